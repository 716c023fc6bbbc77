//! Where bytes live: local paths and `s3://` URLs (`location`), and the object stores
//! that read and write them (`registry`). Both input and output go through here.

pub mod location;
pub mod registry;
