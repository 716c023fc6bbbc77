//! `semver_bump(old_version, new_version)` and `semver_allows(range, version)`: declared
//! versions read as semantic versions (a leading `v` is allowed), for the drift reports.
//!
//! `semver_bump` gives 'major', 'minor', 'patch', 'none' or 'backwards' (0.y.z follows
//! Cargo: y is the breaking position); NULL when either is NULL or not a version.
//! `semver_allows` says whether a client pinned to `range` ('^2.0.0') may call
//! `version`; NULL when either is NULL or unreadable.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, BooleanBuilder, StringBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use crate::common::{Strings, arrays, check_args, doc_section};
use crate::drift::semver;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Semver {
    signature: Signature,
    allows: bool,
}

impl Semver {
    pub fn bump() -> Self {
        Self {
            signature: Signature::variadic_any(Volatility::Immutable),
            allows: false,
        }
    }

    pub fn allows() -> Self {
        Self {
            allows: true,
            ..Self::bump()
        }
    }
}

static BUMP_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "The bump between two declared versions: major, minor, patch, none or backwards.",
        "semver_bump(old_version, new_version)",
    )
    .with_argument("old_version", "The version before, e.g. '2.1.0'.")
    .with_argument("new_version", "The version after.")
    .with_sql_example("SELECT semver_bump('2.1.0', '3.0.0');\n-- major")
    .build()
});

static ALLOWS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "Whether a client pinned to a version range may call a version.",
        "semver_allows(range, version)",
    )
    .with_argument("range", "A Cargo-style range, e.g. '^2.0.0'.")
    .with_argument("version", "The server's declared version.")
    .with_sql_example("SELECT semver_allows('^2.0.0', '3.0.0');\n-- false")
    .build()
});

impl ScalarUDFImpl for Semver {
    fn name(&self) -> &str {
        if self.allows {
            "semver_allows"
        } else {
            "semver_bump"
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(self.name(), args, &["string", "string"], 2)?;
        Ok(if self.allows {
            DataType::Boolean
        } else {
            DataType::Utf8
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args.args, rows)?;
        let (a, b) = (Strings::new(&arrays[0])?, Strings::new(&arrays[1])?);
        let out: ArrayRef = if self.allows {
            let mut out = BooleanBuilder::with_capacity(rows);
            for i in 0..rows {
                out.append_option(match (a.get(i), b.get(i)) {
                    (Some(r), Some(v)) => semver::allows(r, v).ok(),
                    _ => None,
                });
            }
            Arc::new(out.finish())
        } else {
            let mut out = StringBuilder::new();
            for i in 0..rows {
                let bump = match (a.get(i).map(semver::parse), b.get(i).map(semver::parse)) {
                    (Some(Ok(o)), Some(Ok(n))) => Some(match semver::declared(&o, &n) {
                        Ok(b) => b.as_str(),
                        Err(_) => "backwards",
                    }),
                    _ => None,
                };
                out.append_option(bump);
            }
            Arc::new(out.finish())
        };
        Ok(ColumnarValue::Array(out))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(if self.allows { &ALLOWS_DOC } else { &BUMP_DOC })
    }
}
