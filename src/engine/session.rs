//! A DataFusion session with every groundcheck table and function registered.
//!
//! `Session::open` finds each input table in a project folder (local or `s3://`), or where
//! a `--table NAME=PATH` override points, and registers it: Parquet as a ListingTable,
//! JSONL as a streaming table that checks every line as it reads. Nothing is read at open
//! time but file listings. A table the project does not have is registered empty, with a
//! note, so that every query plans against the same schema. Every `queries/*.sql` is
//! then registered as a view of its name.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::catalog::TableProvider;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::prelude::SessionContext;
use object_store::{ObjectStore, ObjectStoreExt};

pub use crate::engine::context::Cluster;
use crate::error::{Error, Result};
use crate::input::jsonl::{ReadOptions, SourceFile, read_jsonl};
use crate::input::rejects::Rejects;
use crate::model::{TableSpec, all_tables, table};
use crate::store::location::{Listed, Location};

/// The file formats a table can be read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    Jsonl,
    Parquet,
}

impl TableFormat {
    fn of(path: &str) -> Option<Self> {
        let lower = path.to_ascii_lowercase();
        if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") || lower.ends_with(".json") {
            Some(TableFormat::Jsonl)
        } else if lower.ends_with(".parquet") {
            Some(TableFormat::Parquet)
        } else {
            None
        }
    }
}

/// Where one table was found.
#[derive(Debug, Clone)]
pub struct TableSource {
    pub spec: &'static TableSpec,
    /// The location searched (for messages).
    pub searched: String,
    pub format: Option<TableFormat>,
    pub files: Vec<Listed>,
    pub store: Arc<dyn ObjectStore>,
}

/// Where a local file really is, when that is outside the folder `searched` (a symlink
/// out of the project). Files named themselves (`--table NAME=FILE`) are never outside.
fn outside(searched: &str, file: &str) -> Option<String> {
    if searched.contains("://") || file.contains("://") {
        return None;
    }
    let root = std::fs::canonicalize(searched).ok()?;
    if root.is_file() {
        return None;
    }
    let real = std::fs::canonicalize(file).ok()?;
    (!real.starts_with(&root)).then(|| real.display().to_string())
}

impl TableSource {
    pub fn source_files(&self) -> Vec<SourceFile> {
        self.files
            .iter()
            .map(|f| SourceFile {
                store: self.store.clone(),
                meta: f.meta.clone(),
                display: f.display.clone(),
                outside: outside(&self.searched, &f.display),
            })
            .collect()
    }

    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.meta.size).sum()
    }
}

/// The `steps` table as rows, given rather than found.
pub type Steps = arrow::array::RecordBatch;

#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    /// Project folder: local path or `s3://bucket/prefix`.
    pub data: String,
    /// `NAME=PATH` overrides: a table read from a file, folder or glob of its own.
    pub tables: Vec<(String, String)>,
    pub read: ReadOptions,
    /// The steps table given as rows (from `--traces-from`), instead of found.
    pub steps: Option<Steps>,
    /// Run the queries on a Ballista cluster (tables must be Parquet).
    pub cluster: Option<Cluster>,
    /// target_partitions, when not the default.
    pub partitions: Option<usize>,
    /// How long cluster work may wait on the cluster.
    pub patience: crate::engine::context::Patience,
}

pub struct Session {
    pub ctx: SessionContext,
    /// Where JSONL reads report bytes read, once a verb sets it (a progress bar).
    pub progress: Arc<std::sync::OnceLock<crate::input::jsonl::Progress>>,
    pub sources: Vec<TableSource>,
    pub rejects: Rejects,
    /// Things the user should know that are not errors (a missing table, an ignored file).
    pub notes: Vec<String>,
    /// Tables that were looked for and found empty or absent: printed with -v only (an
    /// optional table is often absent on purpose).
    pub absent: Vec<String>,
    pub read: ReadOptions,
    /// Queries run on a Ballista cluster.
    pub on_cluster: bool,
}

impl Session {
    /// A session with every table and every view.
    pub async fn open(opts: SessionOptions) -> Result<Self> {
        let session = Self::open_tables(opts).await?;
        session.register_views().await?;
        Ok(session)
    }

    /// The first step of `open`: every table registered, no view yet. A caller may
    /// replace a table here (chunked labeling puts in-memory `steps` and `cases` in place)
    /// before `register_views` plans the views against it.
    pub async fn open_tables(opts: SessionOptions) -> Result<Self> {
        let ctx = match &opts.cluster {
            None => match opts.partitions {
                None => crate::engine::context::new_context()?,
                Some(n) => crate::engine::context::with_partitions(n)?,
            },
            Some(c) => cluster_context(c, opts.partitions, opts.patience).await?,
        };
        let overrides: BTreeMap<&str, &str> = opts
            .tables
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        for name in overrides.keys() {
            if table(name).is_none() {
                let known: Vec<_> = all_tables().iter().map(|t| t.name).collect();
                return Err(Error::Config(format!(
                    "--table {name}=…: no such table (tables: {})",
                    known.join(", ")
                )));
            }
        }
        let project = Location::parse(&opts.data)?;
        let mut session = Session {
            ctx,
            sources: Vec::new(),
            rejects: Rejects::default(),
            notes: Vec::new(),
            absent: Vec::new(),
            read: opts.read.clone(),
            progress: Arc::default(),
            on_cluster: opts.cluster.is_some(),
        };
        let given = !opts.tables.is_empty() || opts.steps.is_some();
        session.check_set(&project, &opts.data, given).await?;
        for spec in all_tables() {
            let provider: Arc<dyn TableProvider> = match (&opts.steps, spec.name) {
                (Some(b), "steps") => Arc::new(datafusion::datasource::MemTable::try_new(
                    b.schema(),
                    vec![vec![b.clone()]],
                )?),
                _ => {
                    let source = match overrides.get(spec.name) {
                        Some(path) => session.find_at(spec, &Location::parse(path)?, true).await?,
                        None => session.find_in_project(spec, &project).await?,
                    };
                    if opts.cluster.is_some() && source.format == Some(TableFormat::Jsonl) {
                        return Err(Error::Config(format!(
                            "table {} is JSON lines at {}: a cluster reads Parquet (the executors \
                             read the files themselves); run `groundcheck ingest --data {} --out DIR` \
                             and use --data DIR",
                            spec.name, source.searched, opts.data
                        )));
                    }
                    let provider = session.provider(&source)?;
                    session.sources.push(source);
                    provider
                }
            };
            session.ctx.register_table(spec.name, provider)?;
        }
        crate::engine::tables::register(&session.ctx, session.on_cluster)?;
        Ok(session)
    }

    /// The second step of `open`: every `queries/*.sql` as a view, planned against the
    /// tables registered now.
    pub async fn register_views(&self) -> Result<()> {
        crate::engine::queries::register_views(&self.ctx).await
    }

    /// A session with only `spec`'s table, read from `path` (a file, folder, glob or
    /// s3:// URL), and our functions.
    pub async fn open_table(spec: &'static TableSpec, path: &str) -> Result<Self> {
        Self::open_table_with(spec, path, ReadOptions::default()).await
    }

    /// `open_table` with these read options (`--on-bad-line skip`, a line limit).
    pub async fn open_table_with(
        spec: &'static TableSpec,
        path: &str,
        read: ReadOptions,
    ) -> Result<Self> {
        let mut session = Session {
            ctx: crate::engine::context::new_context()?,
            sources: Vec::new(),
            rejects: Rejects::default(),
            notes: Vec::new(),
            absent: Vec::new(),
            read,
            progress: Arc::default(),
            on_cluster: false,
        };
        let source = session.find_at(spec, &Location::parse(path)?, true).await?;
        session.register(&source)?;
        session.sources.push(source);
        Ok(session)
    }

    /// When the project has no case (no cases file, or JSON-lines files that are empty
    /// or blank), the sentence that says so: every task would go unlabeled. Files over
    /// 64 KiB are taken to hold something (not read twice).
    pub async fn empty_cases(&self) -> Option<String> {
        let cases = self.sources.iter().find(|s| s.spec.name == "cases")?;
        // No traces either: `nothing_to_label` says that first.
        let steps = self.sources.iter().find(|s| s.spec.name == "steps");
        if steps.is_some_and(|s| s.files.is_empty()) {
            return None;
        }
        if cases.files.is_empty() {
            return Some(format!(
                "no task to label: no cases at {} (cases.jsonl or .parquet; --table cases=PATH \
                 names another); --allow-empty writes empty labels",
                cases.searched
            ));
        }
        if cases.format != Some(TableFormat::Jsonl) {
            return None;
        }
        for f in &cases.files {
            if f.meta.size > 64 * 1024 {
                return None;
            }
            if f.meta.size > 0 {
                let bytes = cases
                    .store
                    .get(&f.meta.location)
                    .await
                    .ok()?
                    .bytes()
                    .await
                    .ok()?;
                if bytes.iter().any(|b| !b.is_ascii_whitespace()) {
                    return None;
                }
            }
        }
        let names: Vec<&str> = cases.files.iter().map(|f| f.display.as_str()).collect();
        Some(format!(
            "no task to label: {} hold(s) no case (empty or blank); --allow-empty writes empty \
             labels",
            names.join(", ")
        ))
    }

    /// Why a labeling found no task, in one sentence: what was looked for, where.
    pub fn nothing_to_label(&self) -> String {
        let find = |name: &str| self.sources.iter().find(|s| s.spec.name == name);
        let (steps, cases) = (find("steps"), find("cases"));
        if let Some(s) = steps.filter(|s| s.files.is_empty()) {
            return format!(
                "no task to label: no traces at {} (traces/*.jsonl or .parquet; --table steps=PATH \
                 or --traces-from FORMAT=PATH name others); --allow-empty writes empty labels",
                s.searched
            );
        }
        if let Some(c) = cases.filter(|c| c.files.is_empty()) {
            return format!(
                "no task to label: no cases at {} (cases.jsonl or .parquet; --table cases=PATH names \
                 another); --allow-empty writes empty labels",
                c.searched
            );
        }
        format!(
            "no task to label: no step of the traces {} carries a case_id (a case's case_id on its \
             steps, or a trace tied by `import --cases` through source_trace); --allow-empty writes \
             empty labels",
            steps
                .map(|s| format!("at {}", s.searched))
                .unwrap_or_else(|| "given by --traces-from".into())
        )
    }

    /// Registers the old version's tables (`old_catalog`, …) from another project folder.
    pub async fn register_old(&mut self, project: &str) -> Result<()> {
        let project = Location::parse(project)?;
        for spec in crate::engine::tables::OLD_TABLES.iter() {
            // Views were planned against the (empty) old_* tables: fill them in place.
            let source = self.find_in_project(spec, &project).await?;
            let provider = self.provider(&source)?;
            self.ctx
                .read_table(provider)?
                .write_table(
                    &format!("old_{}", spec.name),
                    datafusion::dataframe::DataFrameWriteOptions::new(),
                )
                .await?;
        }
        Ok(())
    }

    /// A project folder whose outputs a verb was replacing when it stopped: locally the
    /// earlier set comes back (output::set); in an object store, where an upload was cut
    /// between its renames, the mix is refused.
    /// A local project must be a folder, unless some tables are given another way
    /// (`--table`, `--traces-from`): then a missing project only leaves the rest empty.
    async fn check_set(&self, project: &Location, data: &str, given: bool) -> Result<()> {
        if project.glob.is_some() {
            return Ok(());
        }
        if project.is_local() {
            let dir = crate::store::location::lexical(std::path::Path::new(data));
            // `lexical(".")` is the empty path, which is no folder to the file system.
            let dir = if dir.as_os_str().is_empty() {
                ".".into()
            } else {
                dir
            };
            if dir.is_dir() {
                crate::output::set::recover(&dir)?;
                return Ok(());
            }
            if given && !dir.exists() {
                return Ok(());
            }
            // Every table would be read empty, and every answer would be about nothing.
            // The CLI and the Python module say which project ("cannot open DATA: …").
            return Err(Error::Config(if dir.exists() {
                "a file, not a project folder (one file is read as a table with --table NAME=PATH)"
                    .into()
            } else {
                "no such folder".into()
            }));
        }
        let marker = project.join(crate::output::set::JOURNAL);
        if let Some(m) = marker.head(&self.store(project)?).await {
            return Err(Error::Input(format!(
                "{}: a `--out` upload there was cut while it replaced the files (it began {}); \
                 they mix two runs: rerun the verb that writes there",
                project.display(&project.prefix),
                m.meta.last_modified.format("%Y-%m-%dT%H:%M:%SZ")
            )));
        }
        Ok(())
    }

    fn store(&self, loc: &Location) -> Result<Arc<dyn ObjectStore>> {
        Ok(self.ctx.runtime_env().object_store(&loc.store_url)?)
    }

    /// `cases.jsonl`, `cases.json`, `cases.ndjson`, `cases.parquet`, or a folder `cases/`.
    async fn find_in_project(
        &mut self,
        spec: &'static TableSpec,
        project: &Location,
    ) -> Result<TableSource> {
        let store = self.store(project)?;
        let mut found = Vec::new();
        for ext in ["jsonl", "ndjson", "json", "parquet"] {
            if let Some(f) = project
                .join(&format!("{}.{ext}", spec.location))
                .head(&store)
                .await
            {
                found.push(f);
            }
        }
        let dir = project.join(spec.location);
        if found.is_empty() {
            return self.find_at(spec, &dir, false).await;
        }
        let searched = found
            .iter()
            .map(|f| f.display.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        if !dir.list(&store).await?.is_empty() {
            return Err(Error::Input(format!(
                "table {}: both {} and the folder {}; keep one",
                spec.name,
                searched,
                dir.display(&dir.prefix)
            )));
        }
        self.make_source(spec, searched, store, found)
    }

    async fn find_at(
        &mut self,
        spec: &'static TableSpec,
        loc: &Location,
        explicit: bool,
    ) -> Result<TableSource> {
        let store = self.store(loc)?;
        let searched = format!(
            "{}{}",
            loc.display(&loc.prefix),
            loc.glob
                .as_ref()
                .map(|g| format!("/{g}"))
                .unwrap_or_default()
        );
        let listed = loc.list(&store).await?;
        if explicit && listed.is_empty() {
            return Err(Error::Input(format!(
                "table {}: no files at {searched}",
                spec.name
            )));
        }
        self.make_source(spec, searched, store, listed)
    }

    fn make_source(
        &mut self,
        spec: &'static TableSpec,
        searched: String,
        store: Arc<dyn ObjectStore>,
        listed: Vec<Listed>,
    ) -> Result<TableSource> {
        let mut files = Vec::new();
        let mut formats = Vec::new();
        for f in listed {
            match TableFormat::of(&f.display) {
                Some(fmt) => {
                    formats.push(fmt);
                    files.push(f);
                }
                None => self.notes.push(format!(
                    "table {}: ignored {} (not .jsonl, .ndjson, .json or .parquet)",
                    spec.name, f.display
                )),
            }
        }
        formats.sort_by_key(|f| *f as u8);
        formats.dedup();
        if formats.len() > 1 {
            return Err(Error::Input(format!(
                "table {}: {searched} holds both JSONL and Parquet files; keep one format per table",
                spec.name
            )));
        }
        if files.is_empty() {
            self.absent.push(format!(
                "table {}: nothing at {searched}; the table is empty",
                spec.name
            ));
        }
        Ok(TableSource {
            spec,
            searched,
            format: formats.first().copied(),
            files,
            store,
        })
    }

    fn register(&self, source: &TableSource) -> Result<()> {
        let provider = self.provider(source)?;
        self.ctx.register_table(source.spec.name, provider)?;
        Ok(())
    }

    /// The table as DataFusion reads it.
    pub fn provider(&self, source: &TableSource) -> Result<Arc<dyn TableProvider>> {
        let schema = source.spec.schema.clone();
        Ok(match source.format {
            // A table the project lacks is a Parquet table of no files: it plans like the
            // others and, unlike an EmptyTable, can be sent to a cluster.
            None | Some(TableFormat::Parquet) => {
                let mut urls = source
                    .files
                    .iter()
                    .map(|f| ListingTableUrl::parse(&f.url))
                    .collect::<datafusion::error::Result<Vec<_>>>()?;
                if urls.is_empty() {
                    urls.push(ListingTableUrl::parse(crate::store::registry::empty_url(
                        source.spec.name,
                    ))?);
                }
                let options = ListingOptions::new(Arc::new(ParquetFormat::default()))
                    .with_file_extension(".parquet");
                let config = ListingTableConfig::new_with_multi_paths(urls)
                    .with_listing_options(options)
                    .with_schema(schema);
                Arc::new(ListingTable::try_new(config)?)
            }
            Some(TableFormat::Jsonl) => {
                // Files are spread over partitions so a scan reads them in parallel; each
                // partition reads its files in path order.
                let n = self.ctx.copied_config().target_partitions().max(1);
                let mut parts: Vec<Vec<SourceFile>> = vec![Vec::new(); n.min(source.files.len())];
                for (i, f) in source.source_files().into_iter().enumerate() {
                    let k = i % parts.len();
                    parts[k].push(f);
                }
                let partitions = parts
                    .into_iter()
                    .map(|files| {
                        Arc::new(JsonlPartition {
                            spec: source.spec,
                            files,
                            read: self.read.clone(),
                            rejects: self.rejects.clone(),
                            progress: self.progress.clone(),
                        }) as Arc<dyn PartitionStream>
                    })
                    .collect();
                Arc::new(InputTable(Arc::new(StreamingTable::try_new(
                    schema, partitions,
                )?)))
            }
        })
    }
}

struct JsonlPartition {
    spec: &'static TableSpec,
    files: Vec<SourceFile>,
    read: ReadOptions,
    rejects: Rejects,
    progress: Arc<std::sync::OnceLock<crate::input::jsonl::Progress>>,
}

impl std::fmt::Debug for JsonlPartition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonlPartition")
            .field("table", &self.spec.name)
            .field("files", &self.files.len())
            .finish()
    }
}

impl PartitionStream for JsonlPartition {
    fn schema(&self) -> &arrow::datatypes::SchemaRef {
        &self.spec.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        read_jsonl(
            self.spec,
            self.files.clone(),
            self.read.clone(),
            self.rejects.clone(),
            self.progress.get().cloned(),
        )
    }
}

/// A streaming table that says it is a base table (StreamingTable calls itself a view,
/// which would put inputs among the views in information_schema).
#[derive(Debug)]
struct InputTable(Arc<StreamingTable>);

#[async_trait::async_trait]
impl TableProvider for InputTable {
    fn schema(&self) -> arrow::datatypes::SchemaRef {
        self.0.schema()
    }

    fn table_type(&self) -> datafusion::datasource::TableType {
        datafusion::datasource::TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn datafusion::catalog::Session,
        projection: Option<&Vec<usize>>,
        filters: &[datafusion::prelude::Expr],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn datafusion::physical_plan::ExecutionPlan>> {
        self.0.scan(state, projection, filters, limit).await
    }
}

/// `-v`: say which tables were looked for and found empty.
pub static VERBOSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(feature = "ballista")]
async fn cluster_context(
    c: &Cluster,
    partitions: Option<usize>,
    patience: crate::engine::context::Patience,
) -> Result<SessionContext> {
    crate::engine::cluster::context(c, partitions, patience).await
}

#[cfg(not(feature = "ballista"))]
async fn cluster_context(
    _: &Cluster,
    _: Option<usize>,
    _: crate::engine::context::Patience,
) -> Result<SessionContext> {
    Err(Error::Config(
        "this groundcheck was built without the `ballista` feature: it cannot run on a cluster"
            .into(),
    ))
}
