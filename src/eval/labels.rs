//! The one way every verb labels (`label`, `report`, `report diff`, `suite rerun`,
//! `review export`): a `Labeler` opens the session, and writes the labels view into
//! `labels.jsonl` and `labels.parquet` of a folder, in `ORDER`. Locally it labels in
//! chunks of cases (`eval::chunks`: memory follows the chunk); on a cluster in one query
//! whose labels stream back here. Verbs then read the labels from that file, so no verb
//! holds every label of a project in memory or plans the labels view twice.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt;

use crate::engine::query::{conform, plain_schema};
use crate::engine::session::{Session, SessionOptions};
use crate::error::{Error, Result};
use crate::eval::chunks::{self, Chunked};
use crate::output::label_writer::LabelWriter;

/// The labels' row order, everywhere they are written or read.
pub const ORDER: &str = "ORDER BY run_id, server, case_id";

/// How to label.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Steps per chunk, about; 0 labels everything at once.
    pub chunk_steps: u64,
    /// The policy oracle to run over each chunk's calls: command and timeout per call.
    pub oracle: Option<(String, Duration)>,
    /// Write the (empty) label files when there is no task; else that is an error and
    /// nothing is written (earlier outputs stay).
    pub allow_empty: bool,
    /// Only the tasks this SQL condition over the labels' columns keeps.
    pub filter: Option<String>,
}

/// What a labeling run did.
#[derive(Debug, Default)]
pub struct Done {
    pub tasks: u64,
    pub chunks: usize,
    pub oracle_calls: usize,
}

/// A session opened for labeling.
pub struct Labeler {
    pub session: Session,
    /// What each chunk fills (None on a cluster, which labels in one query).
    chunked: Option<Chunked>,
}

impl Labeler {
    /// Opens the session: its tables, then (locally) in-memory `steps` and `cases` in
    /// their place, then the views (locally, those read by several others in memory too,
    /// filled per chunk: `chunks::MATERIALIZED`).
    pub async fn open(opts: SessionOptions) -> Result<Self> {
        let session = Session::open_tables(opts).await?;
        let chunked = if session.on_cluster {
            session.register_views().await?;
            None
        } else {
            Some(Chunked::open(&session).await?)
        };
        Ok(Self { session, chunked })
    }

    /// Labels every task into `dir/labels.jsonl` and `dir/labels.parquet`, each under a
    /// temporary name until all is written. `on_chunk` hears (k, n, tasks so far).
    pub async fn write(
        &self,
        dir: &Path,
        opts: &Options,
        on_chunk: &dyn Fn(usize, usize, u64),
    ) -> Result<Done> {
        let ctx = &self.session.ctx;
        let filter = opts
            .filter
            .as_ref()
            .map(|f| format!("WHERE {f}"))
            .unwrap_or_default();
        // Planned once; each execution reads what the tables hold then.
        let query = ctx
            .sql(&format!("SELECT * FROM labels {filter} {ORDER}"))
            .await?;
        let schema = plain_schema(query.schema().as_arrow());
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display(), e))?;
        let mut out = LabelWriter::create(dir, schema.clone())?;
        let mut done = if let Some(chunked) = &self.chunked {
            let split = chunks::Options {
                chunk_steps: opts.chunk_steps,
                oracle: opts.oracle.as_ref(),
            };
            let done = chunks::write_labels(
                &self.session,
                chunked,
                query,
                &mut out,
                dir,
                &split,
                on_chunk,
            )
            .await?;
            Done {
                chunks: done.chunks,
                oracle_calls: done.oracle_calls,
                tasks: 0,
            }
        } else {
            if opts.oracle.is_some() {
                return Err(Error::Config(
                    "--policy-oracle runs on this machine and its answers stay in memory, \
                     which a cluster cannot read: label without --cluster"
                        .into(),
                ));
            }
            on_chunk(1, 1, 0);
            let mut stream = query.execute_stream().await?;
            while let Some(b) = stream.next().await {
                out.write(&conform(&schema, b?)?)?;
            }
            Done {
                chunks: 1,
                ..Done::default()
            }
        };
        done.tasks = out.rows;
        if done.tasks == 0 && !opts.allow_empty {
            // Dropped unfinished: its temporary files go, the previous outputs stay.
            drop(out);
            return Err(Error::Input(self.session.nothing_to_label()));
        }
        // Tasks, but no case to judge them by: every one would be unlabeled. Checked once
        // the traces were read, so that a bad line in them is what the user hears first.
        if !opts.allow_empty
            && let Some(why) = self.session.empty_cases().await
        {
            drop(out);
            return Err(Error::Input(why));
        }
        let start = std::time::Instant::now();
        out.finish()?;
        chunks::profile_since("labels files finished", start);
        Ok(done)
    }
}
