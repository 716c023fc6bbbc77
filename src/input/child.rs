//! The environment of the programs groundcheck starts (MCP servers behind the gateway,
//! agents under `run`): an allow-list, not the whole environment, so cloud credentials
//! and tokens in groundcheck's own environment do not reach a third-party server.
//! `--pass-env NAME` adds a variable (`PREFIX*` a family, `*` everything).

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

/// Clears `cmd`'s environment and gives it the allowed variables.
pub fn apply(cmd: &mut tokio::process::Command, pass: &[String]) {
    cmd.env_clear().envs(allowed(pass));
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
