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

/// docs/architecture.md matches the tree: every file path it names exists, and every
/// module path (`eval::page::plots`, `input::import::{read_files, write}`) names a module
/// of the library, or items defined in one.
#[test]
fn docs_architecture_md_names_what_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let mut missing = Vec::new();
    let is_path = |c: char| c.is_ascii_alphanumeric() || "_-./*".contains(c);
    for (i, _) in doc.match_indices(['s', 'u', 'q']) {
        let rest = &doc[i..];
        let starts = ["src/", "udfs/", "queries/"]
            .iter()
            .any(|p| rest.starts_with(p));
        let before = doc[..i].chars().last();
        if !starts || before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '/') {
            continue;
        }
        let path: String = rest.chars().take_while(|&c| is_path(c)).collect();
        let path = path.trim_end_matches(['.', '/', '*']);
        if path.contains('*') {
            continue;
        }
        if !root.join(path).exists() {
            missing.push(path.to_string());
        }
    }
    let mods = modules(&root.join("src"));
    let code_of = |m: &str| mods.get(m).map(|(_, code)| code.as_str());
    for quoted in doc.split('`').skip(1).step_by(2) {
        if !quoted.contains("::") || quoted.contains(' ') && !quoted.contains('{') {
            continue;
        }
        let quoted = quoted.trim_end_matches("()");
        let (head, items) = match quoted.split_once("::{") {
            Some((h, rest)) => (
                h.to_string(),
                rest.trim_end_matches('}')
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .collect::<Vec<_>>(),
            ),
            None => (quoted.to_string(), Vec::new()),
        };
        let segs: Vec<&str> = head.split("::").collect();
        if !segs[0].chars().all(|c| c.is_ascii_lowercase() || c == '_')
            || ![
                "input", "engine", "eval", "drift", "output", "store", "mcp", "synth", "error",
                "model", "cli",
            ]
            .contains(&segs[0])
        {
            continue;
        }
        if segs[0] == "cli" {
            // The binary's modules: the longest prefix that is a file, then its items.
            let file = (1..=segs.len()).rev().find_map(|k| {
                let f = root
                    .join("src")
                    .join(segs[..k].join("/"))
                    .with_extension("rs");
                f.exists().then_some((k, f))
            });
            let ok = file.is_some_and(|(k, f)| {
                let t = std::fs::read_to_string(f).unwrap();
                segs[k..].len() <= 1
                    && segs[k..]
                        .iter()
                        .map(|s| s.to_string())
                        .chain(items.iter().cloned())
                        .all(|i| {
                            t.contains(&format!("fn {i}")) || t.contains(&format!("struct {i}"))
                        })
            });
            if !ok {
                missing.push(quoted.to_string());
            }
            continue;
        }
        // The longest prefix that is a module; what follows is an item defined in it.
        let k = (1..=segs.len())
            .rev()
            .find(|&k| mods.contains_key(&segs[..k].join("::")))
            .unwrap_or(0);
        let module = segs[..k].join("::");
        let defined = |item: &str| {
            code_of(&module).is_some_and(|c| {
                [
                    "fn ", "struct ", "enum ", "const ", "mod ", "trait ", "type ",
                ]
                .iter()
                .any(|kw| c.contains(&format!("{kw}{item}")))
            })
        };
        let tail: Vec<String> = segs[k..].iter().map(|s| s.to_string()).collect();
        let ok = k > 0
            && tail.len() <= 1
            && tail
                .iter()
                .chain(&items)
                .all(|i| defined(i) || mods.contains_key(&format!("{module}::{i}")));
        if !ok {
            missing.push(quoted.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "docs/architecture.md names what is not there: {missing:?}"
    );
}

/// A comment that names a file names one that exists (from the repository's root, or its
/// crate's): comments outlived their paths three times before this test.
#[test]
fn paths_named_in_comments_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    fn rs_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() && name != "node_modules" && name != "target" && !name.starts_with('.') {
                rs_files(&p, out);
            } else if name.ends_with(".rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    for d in ["src", "udfs", "tests", "python/src"] {
        rs_files(&root.join(d), &mut files);
    }
    let tops = [
        "src/",
        "udfs/",
        "queries/",
        "docs/",
        "tests/",
        "benches/",
        "scripts/",
        "datasets/",
        "python/",
    ];
    let mut missing = Vec::new();
    for f in &files {
        let crate_dir = if f.starts_with(root.join("udfs")) {
            root.join("udfs")
        } else {
            root.to_path_buf()
        };
        for (n, line) in std::fs::read_to_string(f).unwrap().lines().enumerate() {
            let Some(at) = line.find("//") else { continue };
            let comment = &line[at..];
            for (i, _) in comment.char_indices() {
                let rest = &comment[i..];
                let before = comment[..i].chars().last();
                if !tops.iter().any(|t| rest.starts_with(t))
                    || before.is_some_and(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
                {
                    continue;
                }
                let path: String = rest
                    .chars()
                    .take_while(|&c| c.is_ascii_alphanumeric() || "_-./*".contains(c))
                    .collect();
                let path = path.trim_end_matches(['.', '/']);
                // Globs, and the examples a doc comment gives (`tests/fixtures/x`).
                let last = path.rsplit('/').next().unwrap_or("");
                if path.contains('*') || last == "x" || last.starts_with("x.") {
                    continue;
                }
                if !root.join(path).exists() && !crate_dir.join(path).exists() {
                    missing.push(format!(
                        "{}:{}: {path}",
                        f.strip_prefix(root).unwrap().display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "comments name paths that do not exist: {missing:#?}"
    );
}
