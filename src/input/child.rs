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
        warn_withheld(cmd, pass);
    }
    c
}

/// Says once per command which withheld variables it mentions (`withheld_mentions`): a
/// server that needs one would otherwise just misbehave.
fn warn_withheld(cmd: &str, pass: &[String]) {
    static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if warned.iter().any(|c| c == cmd) {
        return;
    }
    warned.push(cmd.to_string());
    let names: Vec<String> = std::env::vars_os()
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .collect();
    let withheld = withheld_mentions(cmd, pass, &names);
    if !withheld.is_empty() {
        eprintln!(
            "groundcheck: `{cmd}` mentions {}, which it does not get: third-party programs \
             get an allow-listed environment (add --pass-env NAME to pass one)",
            withheld.join(", ")
        );
    }
}

/// Which of `names` (this process's variables) a third-party child does not get but its
/// command line mentions, as `$NAME`, `${NAME}` or a word, or a file it names does (a
/// script or config of up to 1 MiB: `os.environ["DB_URL"]`). Sorted, each once.
pub fn withheld_mentions(cmd: &str, pass: &[String], names: &[String]) -> Vec<String> {
    let withheld: Vec<&String> = names
        .iter()
        .filter(|k| !DEFAULT.iter().any(|p| matches(p, k)) && !pass.iter().any(|p| matches(p, k)))
        .collect();
    if withheld.is_empty() {
        return Vec::new();
    }
    let mut texts = vec![cmd.to_string()];
    for word in cmd.split_whitespace() {
        let path = std::path::Path::new(word.trim_matches(|c| c == '\'' || c == '"'));
        let small = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= 1 << 20);
        if small && let Ok(t) = std::fs::read_to_string(path) {
            texts.push(t);
        }
    }
    let mut out: Vec<String> = withheld
        .into_iter()
        .filter(|k| {
            texts.iter().any(|t| {
                t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .any(|w| w == k.as_str())
            })
        })
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
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
    use super::{matches, withheld_mentions};

    /// The variables a server needs are the ones its command or its script names.
    #[test]
    fn withheld_variables_its_command_or_script_mentions() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("server.py");
        std::fs::write(&script, "import os\nurl = os.environ[\"DB_URL\"]\n").unwrap();
        let names: Vec<String> = ["DB_URL", "API_TOKEN", "PATH", "OTHER", "GC_PASSED"]
            .map(String::from)
            .to_vec();
        let cmd = format!("python3 {} --token $API_TOKEN", script.display());
        assert_eq!(
            withheld_mentions(&cmd, &["GC_*".to_string()], &names),
            ["API_TOKEN", "DB_URL"]
        );
        assert!(
            withheld_mentions("server --path $PATH ${GC_PASSED}", &["GC_*".into()], &names)
                .is_empty()
        );
    }

    #[test]
    fn patterns() {
        assert!(matches("PATH", "PATH") && !matches("PATH", "PATHS"));
        assert!(matches("LC_*", "LC_ALL") && matches("*", "AWS_SECRET_ACCESS_KEY"));
        assert!(!matches("GROUNDCHECK_*", "AWS_SECRET_ACCESS_KEY"));
    }
}
