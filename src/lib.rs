//! groundcheck: SQL analytics over MCP agent traces.
//!
//! Data flows one way (docs/architecture.md):
//! `store` (where bytes live) → `input` (JSONL reader and validator, rejects, importers) →
//! `engine` (one DataFusion context, the session's tables, then the `queries/*.sql` views;
//! Ballista behind the `ballista` feature) → `eval` (labels, reports, the policy oracle,
//! samples) and `drift` (snapshots, schema diffs) → `output` (files written whole, S3).
//! `mcp` (the gateway, the runner, canaries) records traces and snapshots; `synth`
//! generates projects. The functions the SQL calls live in the `groundcheck-udfs` crate.

pub mod drift;
pub mod engine;
pub mod error;
pub mod eval;
pub mod input;
pub mod mcp;
pub mod model;
pub mod output;
pub mod store;
pub mod synth;

pub use engine::session::{Session, SessionOptions};
pub use error::{Error, Result};
