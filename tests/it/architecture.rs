//! The shape of the code (issue #23): no two modules import each other, directly or
//! round about, in either crate; and the library's folders depend on each other in one
//! direction only, the data flow of docs/architecture.md.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`engine::session`) -> (the module `super::` names, source), for every
/// file under `src` but the binary's.
fn modules(src: &Path) -> BTreeMap<String, (String, String)> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, (String, String)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, base, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(base).unwrap().with_extension("");
                let mut name = rel.to_string_lossy().replace('/', "::");
                if let Some(m) = name.strip_suffix("::mod") {
                    name = m.to_string();
                }
                let parent = |m: &str| m.rsplit_once("::").map(|(p, _)| p.to_string());
                // `super::` in a/b.rs is `a`; in a/mod.rs it is a's parent.
                let sup = if rel.ends_with("mod") {
                    parent(&name).and_then(|p| parent(&p).or(Some(String::new())))
                } else {
                    parent(&name)
                }
                .unwrap_or_default();
                if name == "lib" || name == "main" || name == "cli" || name.starts_with("cli::") {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                // Unit tests may reach anywhere.
                let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
                out.insert(name, (sup, code));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

/// Which modules each module names with a `crate::` path, or a `super::` path to a
/// sibling (a child naming its parent's items is how Rust nests, not a cycle).
fn imports(mods: &BTreeMap<String, (String, String)>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    for (name, (sup, code)) in mods {
        let mut deps = BTreeSet::new();
        for (prefix, base) in [("crate::", String::new()), ("super::", sup.clone())] {
            let mut rest = code.as_str();
            while let Some(i) = rest.find(prefix) {
                // `crate::` inside `$crate::` or a longer name is not ours.
                let before = rest[..i].chars().last();
                rest = &rest[i + prefix.len()..];
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                    continue;
                }
                let path: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let mut parts: Vec<&str> = base.split("::").filter(|p| !p.is_empty()).collect();
                let own = parts.len();
                parts.extend(path.split("::").filter(|p| !p.is_empty()));
                // The longest prefix that is a module (not `super` itself).
                for k in (own + 1..=parts.len()).rev() {
                    let m = parts[..k].join("::");
                    if mods.contains_key(&m) {
                        if &m != name {
                            deps.insert(m);
                        }
                        break;
                    }
                }
            }
        }
        graph.insert(name.clone(), deps);
    }
    graph
}

/// A cycle in the graph, if there is one, as the modules on it.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for d in graph.get(n).into_iter().flatten() {
            match state.get(d.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == d).unwrap();
                    return Some(stack[at..].to_vec());
                }
                0 => {
                    if let Some(c) = visit(d, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0
            && let Some(c) = visit(n, graph, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_module_imports_itself_round_about() {
    let root = crate::support::root();
    for src in ["src", "udfs/src"] {
        let graph = imports(&modules(&root.join(src)));
        assert!(graph.len() > 20, "{src}: found only {:?}", graph.keys());
        assert_eq!(cycle(&graph), None, "{src}: modules that import each other");
    }
}

#[test]
fn the_library_folders_follow_the_data_flow() {
    // Each folder may use those before it: store -> output -> input -> engine ->
    // eval and drift -> mcp; synth writes projects (output only).
    let layers: &[(&str, &[&str])] = &[
        ("error", &[]),
        ("model", &[]),
        ("store", &["error", "model"]),
        ("output", &["error", "model", "store"]),
        ("input", &["error", "model", "store", "output"]),
        ("engine", &["error", "model", "store", "output", "input"]),
        (
            "eval",
            &["error", "model", "store", "output", "input", "engine"],
        ),
        (
            "drift",
            &["error", "model", "store", "output", "input", "engine"],
        ),
        (
            "mcp",
            &[
                "error", "model", "store", "output", "input", "engine", "drift",
            ],
        ),
        ("synth", &["error", "model", "output"]),
    ];
    let graph = imports(&modules(&crate::support::root().join("src")));
    let folder = |m: &str| m.split("::").next().unwrap_or(m).to_string();
    let mut wrong = Vec::new();
    for (m, deps) in &graph {
        let f = folder(m);
        let allowed = layers
            .iter()
            .find(|(n, _)| *n == f)
            .unwrap_or_else(|| panic!("src/{f}: a folder the layers do not name"))
            .1;
        for d in deps {
            let g = folder(d);
            if g != f && !allowed.contains(&g.as_str()) {
                wrong.push(format!("{m} -> {d}"));
            }
        }
    }
    assert!(wrong.is_empty(), "against the data flow: {wrong:#?}");
}

#[test]
fn the_cli_parses_flags_and_prints() {
    // Each verb is one library call whose result src/cli prints: the work (SQL, Arrow,
    // child processes, file formats) is the library's, where a notebook can call it too.
    let forbidden: &[(&str, &[&str])] = &[
        ("SQL text", &["SELECT ", "INSERT INTO", "CREATE TABLE"]),
        (
            "Arrow or DataFusion",
            &["arrow::", "RecordBatch", "datafusion::"],
        ),
        ("a child process", &["Command::new", "process::Command"]),
        (
            "a file format",
            &[
                "ParquetFile",
                "write_parquet",
                "parquet::",
                "serde_json::from_",
            ],
        ),
    ];
    let dir = crate::support::root().join("src/cli");
    let mut found = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (what, needles) in forbidden {
                if let Some(n) = needles.iter().find(|n| line.contains(*n)) {
                    found.push(format!(
                        "src/cli/{}:{}: {what} (`{n}`)",
                        e.file_name().to_string_lossy(),
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "work done in the CLI: {found:#?}");
}
