//! Scoring: every verb that labels goes through `labels::Labeler`; `chunks` labels a
//! case at a time so memory follows the chunk; `oracle` asks an external permission
//! check; `report` runs the report views and prints them; `sample` draws review sets.

pub mod chunks;
pub mod labels;
pub mod oracle;
pub mod report;
pub mod sample;
