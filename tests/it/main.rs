//! Integration tests: the real binary in temporary folders, and a real S3 server.
//! One test binary, so DataFusion is linked once.

mod architecture;
mod bad_input;
mod bfcl;
mod canary;
mod cli;
mod drift;
mod gateway;
mod html;
mod import;
mod producers;
mod s3;
mod s3_server;
mod scoring;
mod suite;
mod support;
mod synth;
