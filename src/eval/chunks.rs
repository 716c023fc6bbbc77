//! Labeling in chunks of cases, so that memory follows the chunk size, not the project.
//!
//! A label is a function of one task, (run_id, server, case_id): its steps, its case and
//! the small context tables. So `steps` and `cases` are split by a hash of case_id into
//! files on local disk in one pass each; each chunk is then loaded into the in-memory
//! tables the views were planned against (`wrap`, between a session's tables and its
//! views), the views that several others read are computed from it into memory
//! (`MATERIALIZED`), and the chunk is labeled; its labels, sorted, go to a file of its
//! own; a sort-preserving merge of those files gives every label in the order of the
//! whole run, the same bytes as one pass.
//!
//! Steps without a case_id belong to no task, but a task's steps may join them by trace
//! (a call's result): they go with every chunk.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, AsArray, RecordBatch, UInt32Array};
use arrow::compute::SortOptions;
use arrow::datatypes::{DataType, SchemaRef};
use arrow::ipc::reader::FileReader;
use arrow::ipc::writer::FileWriter;
use datafusion::catalog::TableProvider;
use datafusion::datasource::MemTable;
use datafusion::execution::{SendableRecordBatchStream, SessionState, TaskContext};
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::expressions::col;
use datafusion::physical_plan::sorts::sort_preserving_merge::SortPreservingMergeExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::prelude::SessionContext;
use futures::StreamExt;

use crate::engine::query::conform;
use crate::engine::session::{Session, TableFormat};
use crate::error::{Error, Result};
use crate::output::Rebatcher;
use crate::output::label_writer::LabelWriter;

/// The tables split by case.
pub const CHUNKED: &[&str] = &["steps", "cases"];

/// The views computed once per chunk into memory (`register_views`). Those read by
/// several others: DataFusion inlines a view wherever it is read, so the labels plan
/// would otherwise compute `tasks` 14 times and `calls` 12 times per chunk, `call_fields`
/// (the SQL analysis of every call) 6 times. And the per-task figures labels joins
/// (the last five): the labels plan is then joins of compact tables, and each figure's
/// cost is a line of its own in `GROUNDCHECK_PROFILE` (benches/RESULTS.md).
pub const MATERIALIZED: &[&str] = &[
    "tasks",
    "calls",
    "catalog_entries",
    "latest_tools",
    "tool_lineage",
    "call_fields",
    "task_terms",
    "task_grounding",
    "task_definition_match",
    "task_freshness",
    "call_policy",
    "task_policy",
    "task_cost",
    "task_clarifications",
    "task_failures",
    "task_tool_calls",
];

/// The labels' sort key (`eval::labels::ORDER`).
const KEY: [&str; 3] = ["run_id", "server", "case_id"];

/// Bytes of JSON lines per step, to size chunks of a JSONL steps table without reading it.
const JSONL_BYTES_PER_STEP: u64 = 256;

/// At most this many chunks: the split keeps a file open per chunk (and the usual limit
/// of open files is 1024). Beyond it chunks grow instead (250M steps at the default).
const MAX_CHUNKS: usize = 1000;

/// Rows the split holds back over all chunks before writing: each chunk's file gets
/// batches of this share (at least 256 rows), so the buffers stay small however many
/// chunks there are; batches are joined again to 8192 rows when a chunk is loaded.
const SPLIT_ROWS: usize = 65_536;

/// Rows per batch of a chunk's labels file. The merge holds a batch of every chunk at
/// once: at 1M tasks, 34 batches of 8,192 labels (~7 MB each) made the merge the run's
/// peak (benches/RESULTS.md).
const MERGE_ROWS: usize = 1024;

/// One table filled chunk by chunk: where its rows come from, and the in-memory table the
/// views read.
#[derive(Clone)]
pub struct ChunkTable {
    pub name: &'static str,
    pub source: Arc<dyn TableProvider>,
    pub mem: Arc<MemTable>,
    /// A view that reads the policy oracle's answers: filled after the oracle ran.
    after_oracle: bool,
    /// The other tables of `MATERIALIZED` it reads (through views kept as views too):
    /// it is filled once they are.
    reads: Vec<&'static str>,
    /// Whether it reads a table of `CHUNKED`: the others (the catalog's entries, the
    /// tools' lineage) are the same for every chunk and filled once.
    per_chunk: bool,
    /// Its source's plan through the logical optimizer, kept from the first chunk: only
    /// the physical plan depends on the rows a chunk holds (about half of a chunk's
    /// planning, ~40 ms, at 100k tasks).
    optimized: Arc<std::sync::OnceLock<LogicalPlan>>,
}

/// How to split: steps per chunk (about; 0: one chunk), and the policy oracle to ask
/// about each chunk's calls (command, timeout per call).
pub struct Options<'a> {
    pub chunk_steps: u64,
    pub oracle: Option<&'a (String, std::time::Duration)>,
}

/// What chunked labeling did.
#[derive(Debug, Default)]
pub struct Done {
    pub chunks: usize,
    pub oracle_calls: usize,
}

/// Puts an in-memory table in the place of each of `CHUNKED` in a session whose views are
/// not planned yet (`Session::open_tables`); returns them, with the tables they replace.
fn wrap(session: &Session) -> Result<Vec<ChunkTable>> {
    let mut out = Vec::new();
    for name in CHUNKED {
        let source = session
            .ctx
            .deregister_table(*name)?
            .ok_or_else(|| Error::Config(format!("no table {name} to label in chunks")))?;
        let table = ChunkTable::new(name, source, &session.ctx)?;
        session.ctx.register_table(*name, table.mem.clone())?;
        out.push(table);
    }
    Ok(out)
}

/// What a chunk fills: the tables split by case, then the views computed from them.
pub struct Chunked {
    tables: Vec<ChunkTable>,
    views: Vec<ChunkTable>,
}

impl Chunked {
    /// In a session whose views are not planned yet (`Session::open_tables`): in-memory
    /// tables in the place of `CHUNKED`, then the views, `MATERIALIZED` in memory too.
    pub async fn open(session: &Session) -> Result<Self> {
        std::sync::LazyLock::force(&CLOCK);
        let tables = wrap(session)?;
        let views = register_views(session).await?;
        Ok(Self { tables, views })
    }
}

/// Registers the session's views, each of `MATERIALIZED` as an in-memory table that
/// `write_labels` fills from the view for each chunk; returns those, in the order they
/// must be filled (each after the views it reads).
async fn register_views(session: &Session) -> Result<Vec<ChunkTable>> {
    let mut out = Vec::new();
    let all = crate::engine::queries::all()?;
    let reads = |name: &str, table: &str| crate::engine::queries::reads_in(&all, name, table);
    crate::engine::queries::register_views_with(&session.ctx, |name, view| {
        let Some(name) = MATERIALIZED.iter().find(|m| **m == name) else {
            return Ok(view);
        };
        let mut table = ChunkTable::new(name, view, &session.ctx)?;
        table.after_oracle = reads(name, crate::model::EXTERNAL_POLICY);
        table.per_chunk = CHUNKED.iter().any(|t| reads(name, t));
        table.reads = MATERIALIZED
            .iter()
            .copied()
            .filter(|m| *m != *name && reads(name, m))
            .collect();
        let mem: Arc<dyn TableProvider> = table.mem.clone();
        out.push(table);
        Ok(mem)
    })
    .await?;
    Ok(out)
}

impl ChunkTable {
    fn new(
        name: &'static str,
        source: Arc<dyn TableProvider>,
        ctx: &SessionContext,
    ) -> Result<Self> {
        // One partition per core, so that a chunk's scans run in parallel.
        let parts = ctx.copied_config().target_partitions().max(1);
        let mem = MemTable::try_new(source.schema(), vec![vec![]; parts])?;
        Ok(Self {
            name,
            source,
            mem: Arc::new(mem),
            after_oracle: false,
            reads: Vec::new(),
            per_chunk: true,
            optimized: Arc::default(),
        })
    }

    /// Fills the table with every row of its source (the whole table, or a view of the
    /// tables filled before it).
    async fn load(&self, ctx: &SessionContext) -> Result<()> {
        let start = std::time::Instant::now();
        let state = crate::engine::context::chunk_state(ctx);
        let task = Arc::new(TaskContext::from(&state));
        let plan = physical_plan(&state, &self.optimized, || {
            Ok(ctx.read_table(self.source.clone())?.into_unoptimized_plan())
        })
        .await?;
        if profiling() {
            profile_since(&format!("{} planned", self.name), start);
        }
        let rows = datafusion::physical_plan::collect(plan.clone(), task).await?;
        if profiling() {
            profile_since(&format!("{} filled", self.name), start);
            print_plan(self.name, plan.as_ref());
        }
        let rows = rows
            .into_iter()
            .map(|b| conform(&self.mem.schema(), b))
            .collect::<Result<Vec<_>>>()?;
        self.fill(rows).await;
        Ok(())
    }

    /// Replaces the table's rows, spread over its partitions.
    async fn fill(&self, batches: Vec<RecordBatch>) {
        let n = self.mem.batches.len();
        let mut parts = vec![Vec::new(); n];
        for (i, b) in batches.iter().map(compact).enumerate() {
            parts[i % n].push(b);
        }
        for (slot, rows) in self.mem.batches.iter().zip(parts) {
            *slot.write().await = rows;
        }
    }
}

/// A batch whose string and binary views hold only their own bytes. A view array read
/// from Parquet or cut from a larger batch keeps the whole buffers it points into, and
/// every later concat or take of it (a join's build side, a sort) copies those buffers
/// again: the labels plan over a chunk then grows with the square of the chunk.
fn compact(batch: &RecordBatch) -> RecordBatch {
    let columns = batch.columns().iter().map(compact_array).collect();
    RecordBatch::try_new(batch.schema(), columns).unwrap_or_else(|_| batch.clone())
}

fn compact_array(a: &arrow::array::ArrayRef) -> arrow::array::ArrayRef {
    use arrow::array::{ListArray, StructArray};
    match a.data_type() {
        DataType::Utf8View => Arc::new(a.as_string_view().gc()),
        DataType::BinaryView => Arc::new(a.as_binary_view().gc()),
        DataType::List(f) => {
            let l = a.as_list::<i32>();
            Arc::new(ListArray::new(
                f.clone(),
                l.offsets().clone(),
                compact_array(l.values()),
                l.nulls().cloned(),
            ))
        }
        DataType::Struct(fields) => {
            let s = a.as_struct();
            Arc::new(StructArray::new(
                fields.clone(),
                s.columns().iter().map(compact_array).collect(),
                s.nulls().cloned(),
            ))
        }
        _ => a.clone(),
    }
}

/// The profile's clock: views are filled side by side, so each line also says when, from
/// the first use of the clock, its fill started and ended.
static CLOCK: std::sync::LazyLock<std::time::Instant> =
    std::sync::LazyLock::new(std::time::Instant::now);

/// `GROUNDCHECK_PROFILE=1`: each table and view of a chunk says on stderr how long it
/// took to fill, and the labels query prints its plan with every operator's metrics
/// (benches/RESULTS.md reads these).
fn profiling() -> bool {
    std::env::var_os("GROUNDCHECK_PROFILE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// `GROUNDCHECK_PROFILE=plans`: every view's plan too, with its metrics, and the views
/// filled one at a time, so that each operator's `elapsed_compute` is its own and not
/// time shared with the views beside it.
fn profiling_plans() -> bool {
    std::env::var_os("GROUNDCHECK_PROFILE").is_some_and(|v| v == "plans")
}

fn print_plan(name: &str, plan: &dyn ExecutionPlan) {
    if profiling_plans() {
        eprintln!(
            "profile: plan of {name}\n{}",
            datafusion::physical_plan::display::DisplayableExecutionPlan::with_metrics(plan)
                .indent(true)
        );
    }
}

/// With `GROUNDCHECK_PROFILE`: how long `what` took since `start`, and when.
pub(crate) fn profile_since(what: &str, start: std::time::Instant) {
    if profiling() {
        eprintln!(
            "profile: {what} in {:?} (from {:?} to {:?})",
            start.elapsed(),
            start - *CLOCK,
            CLOCK.elapsed()
        );
    }
}

/// A physical plan for what the tables hold now, from `logical` optimized once and kept
/// in `optimized`. No rule of DataFusion's logical optimizer reads a table's rows, and no
/// query of ours reads the clock (`now()`), so the kept plan is what each chunk's own
/// optimization would give.
async fn physical_plan(
    state: &SessionState,
    optimized: &std::sync::OnceLock<LogicalPlan>,
    logical: impl FnOnce() -> Result<LogicalPlan>,
) -> Result<Arc<dyn ExecutionPlan>> {
    let plan = match optimized.get() {
        Some(plan) => plan,
        None => {
            let plan = state.optimize(&logical()?)?;
            optimized.get_or_init(|| plan)
        }
    };
    Ok(state
        .query_planner()
        .create_physical_plan(plan, state)
        .await?)
}

/// Runs the labels query over the filled chunk, each batch to `each`.
async fn run_labels(
    ctx: &SessionContext,
    query: &datafusion::dataframe::DataFrame,
    optimized: &std::sync::OnceLock<LogicalPlan>,
    mut each: impl FnMut(RecordBatch) -> Result<()>,
) -> Result<()> {
    let start = std::time::Instant::now();
    let plan = physical_plan(&ctx.state(), optimized, || {
        Ok(query.clone().into_unoptimized_plan())
    })
    .await?;
    let mut stream = datafusion::physical_plan::execute_stream(plan.clone(), ctx.task_ctx())?;
    while let Some(b) = stream.next().await {
        each(b?)?;
    }
    if profiling() {
        profile_since("labels query", start);
        eprintln!(
            "{}",
            datafusion::physical_plan::display::DisplayableExecutionPlan::with_metrics(
                plan.as_ref()
            )
            .indent(true)
        );
    }
    Ok(())
}

/// Labels every task of `query` (the labels view, ordered by `KEY`), `chunked`'s tables
/// filled a chunk at a time and then its views from them, into `out`; `on_chunk` hears
/// (k, n, tasks labeled so far) as chunk k of n starts. `dir` holds the chunks' temporary
/// files.
pub(crate) async fn write_labels(
    session: &Session,
    chunked: &Chunked,
    query: datafusion::dataframe::DataFrame,
    out: &mut LabelWriter,
    dir: &Path,
    opts: &Options<'_>,
    on_chunk: &dyn Fn(usize, usize, u64),
) -> Result<Done> {
    let ctx = &session.ctx;
    let (tables, views) = (&chunked.tables, &chunked.views);
    let schema = out.schema();
    let steps = estimated_steps(session, tables).await?;
    let n = if opts.chunk_steps == 0 {
        1
    } else {
        (steps.div_ceil(opts.chunk_steps).max(1) as usize).min(MAX_CHUNKS)
    };
    let mut done = Done {
        chunks: n,
        ..Default::default()
    };
    let optimized = std::sync::OnceLock::new();
    if n == 1 {
        on_chunk(1, 1, 0);
        for t in tables {
            t.load(ctx).await?;
        }
        done.oracle_calls += fill_views(ctx, views, opts, true).await?;
        run_labels(ctx, &query, &optimized, |b| {
            out.write(&conform(&schema, b)?)
        })
        .await?;
    } else {
        let tmp = tempfile::Builder::new()
            .prefix(".groundcheck-chunks-")
            .tempdir_in(dir)
            .map_err(|e| Error::io(dir.display(), e))?;
        crate::output::track_temporary(tmp.path());
        let start = std::time::Instant::now();
        // Side by side, each a task of its own: a project's cases are one file, read on
        // one thread, while its steps' files are read in parallel. Both run to the end,
        // so that of two failures the one reported is always the first table's.
        let mut splits = tokio::task::JoinSet::new();
        for (i, t) in tables.iter().enumerate() {
            let (ctx, t, dir) = (ctx.clone(), t.clone(), tmp.path().to_path_buf());
            splits.spawn(async move {
                let start = std::time::Instant::now();
                let done = split(&ctx, &t, n, &dir).await;
                profile_since(&format!("{} split", t.name), start);
                (i, done)
            });
        }
        let mut ended = Vec::new();
        while let Some(d) = splits.join_next().await {
            ended.push(d.map_err(|e| Error::Bug(format!("a split stopped: {e}")))?);
        }
        ended.sort_by_key(|(i, _)| *i);
        for (_, d) in ended {
            d?;
        }
        profile_since(&format!("split into {n} chunks"), start);
        let mut sorted = Vec::new();
        let mut removing = Vec::new();
        let mut labeled = 0;
        for k in 0..n {
            on_chunk(k + 1, n, labeled);
            for t in tables {
                let part = part_path(tmp.path(), t.name, k);
                let mut rows = read_ipc(&part)?;
                // Read whole: removed now, on another thread, rather than all at the end
                // on this one (~0.6 s of unlinking at 1M tasks); what stays goes with `tmp`.
                removing.push(tokio::task::spawn_blocking(move || {
                    std::fs::remove_file(part)
                }));
                rows.extend(read_ipc(&part_path(tmp.path(), t.name, n))?);
                t.fill(crate::output::rebatch(&t.mem.schema(), &rows)?)
                    .await;
            }
            done.oracle_calls += fill_views(ctx, views, opts, k == 0).await?;
            let path = tmp.path().join(format!("labels-{k}.arrow"));
            let mut w = ipc_writer(&path, &schema)?;
            run_labels(ctx, &query, &optimized, |b| {
                let b = conform(&schema, b)?;
                labeled += b.num_rows() as u64;
                for start in (0..b.num_rows()).step_by(MERGE_ROWS) {
                    w.write(&b.slice(start, MERGE_ROWS.min(b.num_rows() - start)))?;
                }
                Ok(())
            })
            .await?;
            w.finish()?;
            sorted.push(path);
        }
        for t in tables.iter().chain(views.iter()) {
            t.fill(Vec::new()).await;
        }
        // Done before `tmp` goes, which removes what they did not.
        for r in removing {
            let _ = r.await;
        }
        let start = std::time::Instant::now();
        let mut merged = merge(&schema, sorted, ctx.task_ctx())?;
        while let Some(b) = merged.next().await {
            out.write(&b?)?;
        }
        profile_since("chunks merged and written", start);
    }
    Ok(done)
}

/// Steps in the project: counted from Parquet metadata or memory, estimated from the size
/// of JSON lines (counting those would read them twice).
async fn estimated_steps(session: &Session, tables: &[ChunkTable]) -> Result<u64> {
    if let Some(s) = session.sources.iter().find(|s| s.spec.name == "steps")
        && s.format == Some(TableFormat::Jsonl)
    {
        return Ok(s.bytes() / JSONL_BYTES_PER_STEP);
    }
    let steps = tables
        .iter()
        .find(|t| t.name == "steps")
        .ok_or_else(|| Error::Config("no steps table to chunk".into()))?;
    Ok(session
        .ctx
        .read_table(steps.source.clone())?
        .count()
        .await? as u64)
}

/// Fills a chunk's views from its tables (those that read no chunked table only for the
/// `first` chunk), each as soon as what it reads is, several at once, each a task of its
/// own: one view's plan alone keeps both cores busy only part of the time (a final sort,
/// a single-partition window), and the part of a plan its caller drives runs on the
/// caller's thread. The policy oracle is asked once the views it reads are filled, and the
/// views that read its answers wait for it. Returns the calls the oracle checked. On an
/// error the tasks still running are stopped (a `JoinSet` aborts them when dropped).
async fn fill_views(
    ctx: &SessionContext,
    views: &[ChunkTable],
    opts: &Options<'_>,
    first: bool,
) -> Result<usize> {
    let oracle = crate::model::EXTERNAL_POLICY;
    let (kept, mut waiting): (Vec<_>, Vec<_>) = views.iter().partition(|v| !first && !v.per_chunk);
    let mut filled: Vec<&str> = kept.iter().map(|v| v.name).collect();
    let mut asked = false;
    let mut checked = 0;
    let mut running = tokio::task::JoinSet::new();
    loop {
        let ready = |v: &&ChunkTable, filled: &[&str]| {
            v.reads.iter().all(|r| filled.contains(r))
                && (!v.after_oracle || filled.contains(&oracle))
        };
        let (mut now, mut later): (Vec<_>, Vec<_>) =
            waiting.into_iter().partition(|v| ready(v, &filled));
        if profiling_plans() {
            let one = usize::from(running.is_empty()).min(now.len());
            later.extend(now.drain(one..));
        }
        waiting = later;
        for v in now {
            let (ctx, v) = (ctx.clone(), v.clone());
            running.spawn(async move { v.load(&ctx).await.map(|()| (v.name, 0)) });
        }
        if !asked
            && crate::eval::oracle::READS
                .iter()
                .all(|r| filled.contains(r))
        {
            asked = true;
            let (ctx, asking) = (ctx.clone(), opts.oracle.cloned());
            running.spawn(async move { ask_oracle(&ctx, asking).await.map(|n| (oracle, n)) });
        }
        match running.join_next().await {
            Some(done) => {
                let (name, n) =
                    done.map_err(|e| Error::Bug(format!("a view's fill stopped: {e}")))??;
                filled.push(name);
                checked += n;
            }
            None if waiting.is_empty() => return Ok(checked),
            None => {
                let names: Vec<_> = waiting.iter().map(|v| v.name).collect();
                return Err(Error::Bug(format!(
                    "views {} read views no chunk fills",
                    names.join(", ")
                )));
            }
        }
    }
}

async fn ask_oracle(
    ctx: &SessionContext,
    oracle: Option<(String, std::time::Duration)>,
) -> Result<usize> {
    match oracle {
        Some((cmd, timeout)) => crate::eval::oracle::run(ctx, &cmd, timeout).await,
        None => Ok(0),
    }
}

/// `DIR/NAME-K.arrow`; part `n` holds the rows without a case_id.
fn part_path(dir: &Path, name: &str, k: usize) -> PathBuf {
    dir.join(format!("{name}-{k}.arrow"))
}

/// Reads a table once and writes its rows to `n` files by a hash of case_id (and one more
/// for rows without one).
async fn split(ctx: &SessionContext, t: &ChunkTable, n: usize, dir: &Path) -> Result<()> {
    let schema = t.mem.schema();
    let rows = (SPLIT_ROWS / (n + 1)).clamp(256, 8192);
    let mut parts = (0..=n)
        .map(|k| {
            Ok(Part {
                writer: ipc_writer(&part_path(dir, t.name, k), &schema)?,
                rebatch: Rebatcher::with_rows(schema.clone(), rows),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let key = schema.index_of("case_id")?;
    let mut stream = ctx.read_table(t.source.clone())?.execute_stream().await?;
    while let Some(b) = stream.next().await {
        let b = conform(&schema, b?)?;
        let buckets = buckets(b.column(key).as_ref(), n)?;
        // Rows grouped by bucket (stable), then one slice per bucket.
        let mut order: Vec<u32> = (0..b.num_rows() as u32).collect();
        order.sort_by_key(|&i| buckets[i as usize]);
        let grouped = arrow::compute::take_record_batch(&b, &UInt32Array::from(order.clone()))?;
        let mut start = 0;
        while start < order.len() {
            let k = buckets[order[start] as usize];
            let len = order[start..]
                .iter()
                .take_while(|&&i| buckets[i as usize] == k)
                .count();
            let part = &mut parts[k];
            for full in part.rebatch.push(&grouped.slice(start, len))? {
                part.writer.write(&full)?;
            }
            start += len;
        }
    }
    for mut part in parts {
        if let Some(last) = part.rebatch.finish()? {
            part.writer.write(&last)?;
        }
        part.writer.finish()?;
    }
    Ok(())
}

struct Part {
    writer: FileWriter<BufWriter<File>>,
    rebatch: Rebatcher,
}

/// Each row's chunk: FNV-1a of its case_id modulo `n`, or `n` when it has none.
fn buckets(column: &dyn Array, n: usize) -> Result<Vec<usize>> {
    let column = arrow::compute::cast(column, &DataType::Utf8)?;
    let ids = column.as_string::<i32>();
    Ok((0..ids.len())
        .map(|i| {
            if ids.is_null(i) {
                return n;
            }
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for byte in ids.value(i).bytes() {
                h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
            (h % n as u64) as usize
        })
        .collect())
}

fn ipc_writer(path: &Path, schema: &SchemaRef) -> Result<FileWriter<BufWriter<File>>> {
    let file = File::create(path).map_err(|e| Error::io(path.display(), e))?;
    Ok(FileWriter::try_new(BufWriter::new(file), schema)?)
}

fn read_ipc(path: &Path) -> Result<Vec<RecordBatch>> {
    let file = File::open(path).map_err(|e| Error::io(path.display(), e))?;
    Ok(FileReader::try_new(BufReader::new(file), None)?
        .collect::<std::result::Result<Vec<_>, _>>()?)
}

/// The chunks' sorted labels merged into one stream in `KEY` order (ascending, NULLs
/// last, as SQL's ORDER BY).
fn merge(
    schema: &SchemaRef,
    files: Vec<PathBuf>,
    task: Arc<TaskContext>,
) -> Result<SendableRecordBatchStream> {
    let ordering = LexOrdering::new(
        KEY.iter()
            .map(|c| {
                Ok(PhysicalSortExpr::new(
                    col(c, schema)?,
                    SortOptions {
                        descending: false,
                        nulls_first: false,
                    },
                ))
            })
            .collect::<Result<Vec<_>>>()?,
    )
    .ok_or_else(|| Error::Config("labels have no sort key".into()))?;
    let parts = files
        .into_iter()
        .map(|path| {
            Arc::new(IpcFile {
                schema: schema.clone(),
                path,
            }) as Arc<dyn PartitionStream>
        })
        .collect();
    let input = StreamingTableExec::try_new(
        schema.clone(),
        parts,
        None,
        vec![ordering.clone()],
        false,
        None,
    )?;
    let plan = SortPreservingMergeExec::new(ordering, Arc::new(input));
    Ok(plan.execute(0, task)?)
}

/// One chunk's labels, read back in order.
#[derive(Debug)]
struct IpcFile {
    schema: SchemaRef,
    path: PathBuf,
}

impl PartitionStream for IpcFile {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let path = self.path.clone();
        let batches = File::open(&path)
            .map_err(|e| Error::io(path.display(), e))
            .and_then(|f| Ok(FileReader::try_new(BufReader::new(f), None)?));
        let stream = match batches {
            Ok(reader) => futures::stream::iter(reader.map(|b| b.map_err(Into::into))).boxed(),
            Err(e) => futures::stream::once(async move {
                Err(datafusion::error::DataFusionError::External(Box::new(e)))
            })
            .boxed(),
        };
        Box::pin(RecordBatchStreamAdapter::new(self.schema.clone(), stream))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view kept in memory is one the labels read more than once (else it only costs
    /// memory) or a per-task figure only labels joins, and one the policy oracle's
    /// answers reach is filled after the oracle.
    #[test]
    fn materialized_views_are_read_more_than_once() {
        let all = crate::engine::queries::all().unwrap();
        for name in MATERIALIZED {
            let readers: Vec<_> = all
                .iter()
                .filter(|q| q.inputs().iter().any(|i| i == name))
                .map(|q| q.name.as_str())
                .collect();
            if readers.len() < 2 {
                assert_eq!(readers, ["labels"], "{name}");
                let q = all.iter().find(|q| q.name == *name).unwrap();
                assert_eq!(q.header["grain"], "(run_id, server, case_id)", "{name}");
            }
            assert!(
                crate::engine::queries::reads("labels", name).unwrap(),
                "{name}"
            );
        }
        let reads = |v| crate::engine::queries::reads(v, crate::model::EXTERNAL_POLICY).unwrap();
        assert!(reads("call_policy"));
        assert!(!reads("calls") && !reads("tasks") && !reads("call_fields"));
    }

    #[test]
    fn rows_without_a_case_go_to_the_shared_part() {
        let ids = arrow::array::StringArray::from(vec![Some("c1"), None, Some("c2"), Some("c1")]);
        let b = buckets(&ids, 4).unwrap();
        assert_eq!(b[1], 4);
        assert_eq!(b[0], b[3]);
        assert!(b.iter().all(|&k| k <= 4));
    }

    /// A slice of a view array read whole keeps every buffer of the whole; the compacted
    /// copy holds its own bytes only, also inside lists and structs, and reads the same.
    #[test]
    fn compacting_keeps_the_rows_and_drops_the_buffers_of_the_rest() {
        use arrow::array::{ListArray, StringViewArray, StructArray};
        use arrow::datatypes::{Field, Fields, Schema};
        let long: Vec<String> = (0..1000)
            .map(|i| format!("a value long enough {i:06}"))
            .collect();
        let whole = StringViewArray::from_iter_values(long.iter());
        let part: arrow::array::ArrayRef = Arc::new(whole.slice(10, 2));
        let list = ListArray::new(
            Arc::new(Field::new_list_field(DataType::Utf8View, true)),
            arrow::buffer::OffsetBuffer::from_lengths([1, 1]),
            part.clone(),
            None,
        );
        let fields = Fields::from(vec![Field::new("s", DataType::Utf8View, true)]);
        let strukt = StructArray::new(fields.clone(), vec![part.clone()], None);
        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(vec![
                Field::new("s", DataType::Utf8View, true),
                Field::new("l", list.data_type().clone(), true),
                Field::new("t", DataType::Struct(fields), true),
            ])),
            vec![part.clone(), Arc::new(list), Arc::new(strukt.slice(0, 2))],
        )
        .unwrap();
        let small = compact(&batch);
        let bytes = |a: &arrow::array::ArrayRef| -> usize {
            a.as_string_view()
                .data_buffers()
                .iter()
                .map(|b| b.len())
                .sum()
        };
        assert!(bytes(&batch.columns()[0]) > 20_000);
        assert!(bytes(&small.columns()[0]) < 100);
        assert!(bytes(small.columns()[1].as_list::<i32>().values()) < 100);
        assert!(bytes(small.columns()[2].as_struct().column(0)) < 100);
        assert_eq!(small, batch);
    }
}
