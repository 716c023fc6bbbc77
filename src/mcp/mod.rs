//! Talking MCP: the recording gateway, the runner that replays cases through it, and
//! canaries against live servers. The child processes they start are `input::child`'s.

pub mod canary;
pub mod gateway;
pub mod runner;
