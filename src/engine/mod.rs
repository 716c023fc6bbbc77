//! The DataFusion side: one context builder for local runs, reports and Ballista
//! (`context`), a session's tables (`session`, `tables`), then its views
//! (`queries`), and running a query into rows (`query`).

#[cfg(feature = "ballista")]
pub mod cluster;
pub mod context;
pub mod ingest;
pub mod queries;
pub mod query;
pub mod session;
pub mod source_traces;
pub mod sql;
pub mod tables;
