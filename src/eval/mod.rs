//! Scoring: every verb that labels goes through `labels::Labeler`; `chunks` labels a
//! case at a time so memory follows the chunk; `oracle` asks an external permission
//! check; `report` runs the report views and lays them out; `diff` compares two sides'
//! labels; `review` is the human review loop; `sample` draws review sets.

pub mod annotate;
pub mod anomalies;
pub mod chunks;
pub mod diff;
pub mod labels;
pub mod oracle;
pub mod page;
pub mod report;
pub mod review;
pub mod sample;
pub mod suite;
