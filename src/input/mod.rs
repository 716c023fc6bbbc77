//! Reading inputs: JSON lines checked line by line against their table (`jsonl`,
//! `validate`), rejected lines kept (`rejects`), and other producers' traces and cases
//! turned into our tables (`import`).

pub mod child;
pub mod decode;
pub mod import;
pub mod jsonl;
pub mod rejects;
pub mod validate;
