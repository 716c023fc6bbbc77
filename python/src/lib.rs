//! The native half of the `groundcheck` Python package: every SQL function groundcheck's
//! queries call, a project's tables, the views' SQL and the session options they need,
//! handed to datafusion-python through datafusion-ffi's capsules (the protocol
//! datafusion-python 55 reads: `__datafusion_scalar_udf__`, `__datafusion_table_provider__`).
//! The Python side (`groundcheck/__init__.py`) registers them in the notebook's context.

use std::ptr::NonNull;
use std::sync::{Arc, LazyLock};

use datafusion::catalog::TableProvider;
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::ScalarUDF;
use datafusion_ffi::proto::logical_extension_codec::FFI_LogicalExtensionCodec;
use datafusion_ffi::table_provider::FFI_TableProvider;
use datafusion_ffi::udf::FFI_ScalarUDF;
use groundcheck::engine::session::{Session, SessionOptions};
use pyo3::exceptions::{PyConnectionError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// Runs what the tables do on their own (listing files, reading JSON lines): a notebook's
/// thread has no tokio runtime, and datafusion-python's belongs to its own library.
static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("groundcheck")
        .build()
        .expect("a tokio runtime (threads and a timer) can always be built")
});

fn to_py(e: groundcheck::Error) -> PyErr {
    use groundcheck::error::Kind;
    // The kind says who can fix it, as the CLI's exit code does.
    match e.kind() {
        Kind::Input | Kind::Config => PyValueError::new_err(e.to_string()),
        Kind::Upstream => PyConnectionError::new_err(e.to_string()),
        Kind::Bug => PyRuntimeError::new_err(e.to_string()),
    }
}

/// One SQL function, exportable to any datafusion-python 55 context.
#[pyclass(frozen, name = "Function", module = "groundcheck._native")]
struct Function {
    udf: Arc<ScalarUDF>,
}

#[pymethods]
impl Function {
    #[getter]
    fn name(&self) -> &str {
        self.udf.name()
    }

    fn __datafusion_scalar_udf__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let ffi = FFI_ScalarUDF::from(Arc::clone(&self.udf));
        PyCapsule::new_with_value(py, ffi, cr"datafusion_scalar_udf")
    }

    fn __repr__(&self) -> String {
        format!("<groundcheck function {}>", self.udf.name())
    }
}

/// One of a project's tables, as groundcheck opens it (JSON lines checked line by line,
/// Parquet as a listing table; empty with the right schema when the project lacks it).
#[pyclass(frozen, name = "Table", module = "groundcheck._native")]
struct Table {
    #[pyo3(get)]
    name: String,
    provider: Arc<dyn TableProvider>,
}

#[pymethods]
impl Table {
    fn __datafusion_table_provider__<'py>(
        &self,
        py: Python<'py>,
        session: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let codec = logical_codec(session)?;
        let ffi = FFI_TableProvider::new_with_ffi_codec(
            Arc::clone(&self.provider),
            true,
            Some(RUNTIME.handle().clone()),
            codec,
        );
        PyCapsule::new_with_value(py, ffi, cr"datafusion_table_provider")
    }

    fn __repr__(&self) -> String {
        format!("<groundcheck table {}>", self.name)
    }
}

/// The host's logical codec: datafusion-python passes its session (which has a getter for
/// it) or, through a catalog, the codec's capsule itself. As datafusion-python's
/// `ffi_logical_codec_from_pycapsule` reads it.
fn logical_codec(obj: Bound<'_, PyAny>) -> PyResult<FFI_LogicalExtensionCodec> {
    let getter = "__datafusion_logical_extension_codec__";
    let capsule = if obj.hasattr(getter)? {
        obj.getattr(getter)?.call0()?
    } else {
        obj
    };
    let capsule = capsule.cast::<PyCapsule>()?;
    let data: NonNull<FFI_LogicalExtensionCodec> = capsule
        .pointer_checked(Some(c"datafusion_logical_extension_codec"))?
        .cast();
    // SAFETY: the capsule's name says it holds an FFI_LogicalExtensionCodec, which lives
    // as long as the capsule; it is cloned (a reference count) before the capsule can go.
    Ok(unsafe { data.as_ref() }.clone())
}

/// The major version of datafusion-ffi (and DataFusion) this module is built on.
#[pyfunction]
fn ffi_major() -> u64 {
    datafusion_ffi::version()
}

/// Every function groundcheck's SQL calls: its own and datafusion-functions-json's.
#[pyfunction]
fn functions() -> Vec<Function> {
    let mut ctx = datafusion::prelude::SessionContext::new();
    let before: Vec<String> = ctx.udfs().into_iter().collect();
    groundcheck::engine::context::register_functions(&mut ctx)
        .expect("registering functions into a fresh context cannot fail");
    let mut names: Vec<String> = ctx
        .udfs()
        .into_iter()
        .filter(|n| !before.contains(n))
        .collect();
    names.sort();
    names
        .iter()
        .filter_map(|n| ctx.udf(n).ok())
        .map(|udf| Function { udf })
        .collect()
}

/// The session options groundcheck's views need, as `SET`-able pairs.
#[pyfunction]
fn options() -> Vec<(String, String)> {
    groundcheck::engine::context::changed_options()
}

/// Every view, as (name, SQL), each after the views it reads.
#[pyfunction]
fn views() -> PyResult<Vec<(String, String)>> {
    Ok(groundcheck::engine::queries::in_order()
        .map_err(to_py)?
        .into_iter()
        .map(|q| (q.name, q.sql))
        .collect())
}

/// A project's tables (`data`: a folder; `tables`: NAME → PATH overrides, as `--table`)
/// and the notes groundcheck has about them (a table the project lacks, say).
#[pyfunction]
#[pyo3(signature = (data, tables = Vec::new()))]
fn tables(
    py: Python<'_>,
    data: String,
    tables: Vec<(String, String)>,
) -> PyResult<(Vec<Table>, Vec<String>)> {
    let opts = SessionOptions {
        data: data.clone(),
        tables,
        ..SessionOptions::default()
    };
    let session = py
        .detach(|| RUNTIME.block_on(Session::open_tables(opts)))
        .map_err(|e| match to_py(e) {
            // As the CLI says it: which project could not be opened, then why.
            e if e.is_instance_of::<PyValueError>(py) => {
                PyValueError::new_err(format!("cannot open {data}: {}", e.value(py)))
            }
            e => e,
        })?;
    let state = session.ctx.state();
    let catalog = &state.config().options().catalog;
    let names = session
        .ctx
        .catalog(&catalog.default_catalog)
        .and_then(|c| c.schema(&catalog.default_schema))
        .map(|s| s.table_names())
        .unwrap_or_default();
    let mut out = Vec::new();
    for name in names {
        let provider = py
            .detach(|| RUNTIME.block_on(session.ctx.table_provider(name.as_str())))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        out.push(Table { name, provider });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((out, session.notes))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Function>()?;
    m.add_class::<Table>()?;
    m.add_function(wrap_pyfunction!(ffi_major, m)?)?;
    m.add_function(wrap_pyfunction!(functions, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add_function(wrap_pyfunction!(views, m)?)?;
    m.add_function(wrap_pyfunction!(tables, m)?)?;
    Ok(())
}
