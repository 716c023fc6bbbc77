//! A bounded mutation fuzzer over every parser in this crate, run as a test: the SQL
//! corpus (tests/corpus/*.sql) and the drift corpus's real tool lists
//! (../tests/fixtures/drift-corpus) are mutated with a fixed seed (deleted, repeated and
//! swapped spans, inserted SQL and JSON tokens, deep nesting, long chains) and fed to
//! sql_fields, predicate_match, time_filters, grain_issues, tools_from_json and the drift
//! diff. The property: no panic, whatever the input (errors and reasons are fine). A
//! failing input is printed whole, to add to the corpus. GROUNDCHECK_FUZZ_ROUNDS raises
//! the bound for a longer local run.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use groundcheck_udfs::changes::{self, Tool, tools_from_json};
use groundcheck_udfs::sql::{Catalog, Dialect, analysis, lineage, predicate};

/// A small deterministic generator (xorshift64*): same seed, same inputs, every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const SQL_TOKENS: &[&str] = &[
    " (",
    ")",
    " AND ",
    " OR ",
    " NOT ",
    " = ",
    " <> ",
    " IN (1, 2)",
    " BETWEEN 1 AND 2",
    " SELECT ",
    " FROM ",
    " WHERE ",
    " JOIN t ON ",
    " UNION ",
    " WITH x AS (",
    "*",
    ",",
    ".",
    "'",
    "\"",
    "`",
    "--",
    "/*",
    ";",
    " NULL",
    " CASE WHEN ",
    " END",
    " OVER (",
    "(SELECT 1)",
    "\u{200B}",
    "é",
    " LIMIT ",
    " GROUP BY 1",
    " HAVING ",
];

const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "true",
    "-1e309",
    "9007199254740993",
    "{\"$ref\": \"#\"}",
    "{\"anyOf\": []}",
    "\"type\"",
    "\"properties\"",
    "\\u0000",
    // Other languages and scripts reach the language check (`changes::language`).
    " Bitte rufen Sie zuerst das Werkzeug auf. ",
    " 请先调用此工具。",
    " пожалуйста ",
    "\u{202E}",
];

/// One mutation of `s` (kept valid UTF-8 by working on chars).
fn mutate(rng: &mut Rng, s: &str, tokens: &[&str]) -> String {
    let mut c: Vec<char> = s.chars().collect();
    let n = c.len();
    match rng.below(7) {
        0 if n > 0 => {
            let a = rng.below(n);
            let b = (a + rng.below(64)).min(n);
            c.drain(a..b);
        }
        1 if n > 0 => {
            let a = rng.below(n);
            let b = (a + rng.below(32)).min(n);
            let span: Vec<char> = c[a..b].to_vec();
            let at = rng.below(n);
            c.splice(
                at..at,
                span.iter()
                    .cycle()
                    .take(span.len() * (1 + rng.below(8)))
                    .copied(),
            );
        }
        2 => {
            let at = rng.below(n + 1);
            let t = tokens[rng.below(tokens.len())];
            c.splice(at..at, t.chars());
        }
        3 if n > 1 => {
            let (a, b) = (rng.below(n), rng.below(n));
            c.swap(a, b);
        }
        4 => {
            // Deep nesting.
            let depth = 1 + rng.below(300);
            let at = rng.below(n + 1);
            let open: String = "(".repeat(depth);
            let close: String = ")".repeat(depth);
            c.splice(at..at, open.chars());
            c.extend(close.chars());
        }
        5 => {
            // A long flat chain (the #22 stack overflow).
            let k = 1 + rng.below(5000);
            let chain = vec!["a = 1"; k].join(" OR ");
            c.extend(format!(" WHERE {chain}").chars());
        }
        _ => {
            let at = rng.below(n + 1);
            let ch = char::from_u32(rng.below(0x2FFF) as u32).unwrap_or('x');
            c.insert(at, ch);
        }
    }
    c.into_iter().collect()
}

fn rounds(default: usize) -> usize {
    std::env::var("GROUNDCHECK_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn root() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap())
}

fn sql_seeds() -> Vec<String> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root().join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        for case in text.split("\n\n") {
            let sql: String = case
                .lines()
                .filter(|l| !l.starts_with("--"))
                .collect::<Vec<_>>()
                .join("\n");
            if !sql.trim().is_empty() {
                out.push(sql);
            }
        }
    }
    out
}

/// Runs `f` on a thread with the stack groundcheck's runtime threads have (32 MiB,
/// src/main.rs): a debug build's parser frames on deeply nested input outgrow the test
/// harness's 2 MiB threads, which is not the product's setting.
fn with_runtime_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(32 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn sql_analysis_never_panics() {
    with_runtime_stack(sql_rounds);
}

fn sql_rounds() {
    let seeds = sql_seeds();
    assert!(seeds.len() > 50, "{} seeds", seeds.len());
    let catalog = Catalog::from_entries([
        "customers.id pk",
        "customers.name",
        "customers.sales_region",
        "orders.id pk",
        "orders.customer_id -> customers.id",
        "orders.amount [cents]",
        "orders.created_at",
        "t.a",
    ]);
    let dialects: Vec<Dialect> = ["generic", "postgres", "sqlite", "mysql", "bigquery"]
        .iter()
        .map(|d| Dialect::from_name(d).unwrap())
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..rounds(3000) {
        let mut sql = seeds[rng.below(seeds.len())].clone();
        for _ in 0..1 + rng.below(4) {
            sql = mutate(&mut rng, &sql, SQL_TOKENS);
        }
        let d = &dialects[i % dialects.len()];
        // A crash that unwinding cannot catch (a stack overflow) leaves the input here.
        if let Ok(p) = std::env::var("GROUNDCHECK_FUZZ_LAST") {
            std::fs::write(p, format!("{}\n{sql}", d.name)).unwrap();
        }
        let r = catch_unwind(AssertUnwindSafe(|| {
            let _ = lineage::sql_fields(&sql, d, &catalog);
            let _ = predicate::predicate_match(
                &sql,
                "customers.sales_region IN ('EMEA', 'AMER')",
                d,
                &catalog,
            );
            let _ = analysis::time_filters(&sql, d, &catalog);
            let _ = analysis::grain_issues(&sql, d, &catalog);
        }));
        assert!(
            r.is_ok(),
            "round {i}, dialect {}: panicked on\n{sql}",
            d.name
        );
    }
}

#[test]
fn drift_never_panics() {
    with_runtime_stack(drift_rounds);
}

fn drift_rounds() {
    let corpus = root().join("../tests/fixtures/drift-corpus");
    let mut seeds = Vec::new();
    for server in [
        "everything",
        "filesystem",
        "memory",
        "sequential-thinking",
        "time",
        "fetch",
    ] {
        let dir = corpus.join(server);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        // One tool list per server keeps the run short; each tool is a seed.
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
        for t in v["tools"].as_array().unwrap() {
            seeds.push(t.to_string());
        }
    }
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for i in 0..rounds(2000) {
        let original = seeds[rng.below(seeds.len())].clone();
        let mut text = original.clone();
        for _ in 0..1 + rng.below(3) {
            text = mutate(&mut rng, &text, JSON_TOKENS);
        }
        let r = catch_unwind(AssertUnwindSafe(|| {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
                return;
            };
            let old: serde_json::Value = serde_json::from_str(&original).unwrap();
            let new_tools = tools_from_json(&serde_json::json!({"tools": [v.clone()]}));
            let old_tools: Vec<Tool> =
                tools_from_json(&serde_json::json!({"tools": [old]})).unwrap();
            if let Ok(new_tools) = new_tools {
                let _ = changes::diff(&old_tools, &new_tools);
                let _ = changes::diff(&new_tools, &old_tools);
                let _ = changes::language::switches(&old_tools, None, &new_tools, None);
                let _ = changes::language::switches(&new_tools, None, &old_tools, None);
                for t in &new_tools {
                    let _ = (t.schema_hash(), t.text_hash());
                }
            }
            let _ = changes::surface::Surface::from_json(&v)
                .map(|s| changes::surface::diff(&s, &s, &[]));
        }));
        assert!(
            r.is_ok(),
            "round {i}: panicked on\n{text}\nagainst\n{original}"
        );
    }
}
