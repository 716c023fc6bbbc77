//! The programs groundcheck starts, started one way: `sh -c "exec CMD"` (so that
//! killing the child kills the program, not just its shell), killed when dropped.
//!
//! Their environment is chosen by who wrote them. Third-party programs (MCP servers behind
//! the gateway or under `snapshot`, `drift`, `replay`, `canary`; agents under `run`) get
//! an allow-list, not the whole environment, so cloud credentials and tokens in
//! groundcheck's own environment do not reach them; `--pass-env NAME` adds a variable
//! (`PREFIX*` a family, `*` everything). The user's own hooks (`--alert`, the policy
//! oracle) get groundcheck's environment: they are there to reach the user's systems.

/// Whose program a child is, which decides its environment.
#[derive(Debug, Clone, Copy)]
pub enum Env<'a> {
    /// A third-party program: the allow-list and these `--pass-env` patterns.
    Allowed(&'a [String]),
    /// The user's own hook: groundcheck's environment.
    Inherited,
}

/// `sh -c "exec CMD"` with the environment `env` says, killed on drop. Stdio and extra
/// variables are the caller's to set.
pub fn command(cmd: &str, env: Env<'_>) -> tokio::process::Command {
    let mut c = tokio::process::Command::new("sh");
    c.arg("-c").arg(format!("exec {cmd}")).kill_on_drop(true);
    if let Env::Allowed(pass) = env {
        c.env_clear().envs(allowed(pass));
    }
    c
}

/// Passed by default: what programs need to run at all (paths, locale, time zone,
/// proxies and certificates), and groundcheck's own variables.
pub const DEFAULT: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "PWD",
    "TERM",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "XDG_*",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "GROUNDCHECK_*",
];

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// The variables of this process a child gets: the defaults and `pass`.
pub fn allowed(pass: &[String]) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    std::env::vars_os()
        .filter(|(k, _)| {
            let k = k.to_string_lossy();
            DEFAULT.iter().any(|p| matches(p, &k)) || pass.iter().any(|p| matches(p, &k))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn patterns() {
        assert!(matches("PATH", "PATH") && !matches("PATH", "PATHS"));
        assert!(matches("LC_*", "LC_ALL") && matches("*", "AWS_SECRET_ACCESS_KEY"));
        assert!(!matches("GROUNDCHECK_*", "AWS_SECRET_ACCESS_KEY"));
    }
}
