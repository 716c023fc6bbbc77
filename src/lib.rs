//! groundcheck: SQL analytics over MCP agent traces.
//!
//! The library behind the `groundcheck` binary: the input tables (`model`), reading them
//! from local folders or S3 (`location`, `ingest`, `session`), and writing results
//! (`output`). Metrics live in `queries/*.sql`; functions they call live in the
//! `groundcheck-udfs` crate.

pub mod anomaly_settings;
pub mod canary;
pub mod child_env;
pub mod chunks;
pub mod cluster;
pub mod docs;
pub mod drift;
pub mod drift_format;
pub mod drift_rules;
pub mod error;
pub mod gateway;
pub mod import;
pub mod ingest;
pub mod label_writer;
pub mod location;
pub mod model;
pub mod oracle;
pub mod output;
pub mod queries;
pub mod remote_out;
pub mod runner;
pub mod sample;
pub mod scoring;
pub mod session;
pub mod snapshot;
pub mod synth;
pub mod synth_context;

pub use error::{Error, Result};
pub use session::{Session, SessionOptions};
