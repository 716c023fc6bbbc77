//! Talking MCP: the recording gateway, the runner that replays cases through it, and
//! canaries against live servers. The child processes they start get `child_env`.

pub mod canary;
pub mod child_env;
pub mod gateway;
pub mod runner;
