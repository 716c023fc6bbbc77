//! The SQL corpus: every case in `tests/corpus/*.sql` run through `sql_fields` with the
//! catalog in `tests/corpus/catalog.txt`, comparing the field set (and the reasons, when
//! the case lists them) with the expectation written by hand above the query.
//!
//! A case:
//! ```text
//! -- case: what it covers
//! -- dialect: postgres          (optional; generic when absent)
//! -- fields: t.a, t.b           (the exact set; empty when none)
//! -- reasons: r1 | r2           (optional; exact list; none expected when absent)
//! SELECT …
//! ```

use std::path::PathBuf;

use groundcheck_udfs::sql::lineage::sql_fields;
use groundcheck_udfs::sql::{Catalog, Dialect};

pub struct Case {
    pub file: String,
    pub name: String,
    pub dialect: String,
    pub fields: Vec<String>,
    pub reasons: Vec<String>,
    pub sql: String,
}

pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

pub fn catalog_entries() -> Vec<String> {
    std::fs::read_to_string(corpus_dir().join("catalog.txt"))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

pub fn cases() -> Vec<Case> {
    let mut files: Vec<_> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let file = f.file_name().unwrap().to_string_lossy().to_string();
        for block in text.split("-- case:").skip(1) {
            let mut lines = block.lines();
            let name = lines.next().unwrap_or("").trim().to_string();
            let mut case = Case {
                file: file.clone(),
                name,
                dialect: "generic".into(),
                fields: Vec::new(),
                reasons: Vec::new(),
                sql: String::new(),
            };
            let mut sql = Vec::new();
            for line in lines {
                if let Some(v) = line.strip_prefix("-- dialect:") {
                    case.dialect = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("-- fields:") {
                    case.fields = v
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect();
                } else if let Some(v) = line.strip_prefix("-- reasons:") {
                    case.reasons = v
                        .split(" | ")
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect();
                } else {
                    sql.push(line);
                }
            }
            case.sql = sql.join("\n").trim().to_string();
            out.push(case);
        }
    }
    out
}

#[test]
fn corpus() {
    let entries = catalog_entries();
    let catalog = Catalog::from_entries(entries.iter().map(String::as_str));
    let cases = cases();
    let mut failures = Vec::new();
    for c in &cases {
        let d = Dialect::from_name(&c.dialect)
            .unwrap_or_else(|| panic!("{}: dialect {}", c.name, c.dialect));
        let got = sql_fields(&c.sql, &d, &catalog);
        let mut want = c.fields.clone();
        want.sort();
        want.dedup();
        let got_fields: Vec<String> = got.fields.iter().cloned().collect();
        if got_fields != want || got.reasons != c.reasons {
            failures.push(format!(
                "{} / {}:\n  sql:     {}\n  want:    {:?} {:?}\n  got:     {:?} {:?}",
                c.file, c.name, c.sql, want, c.reasons, got_fields, got.reasons
            ));
        }
    }
    let names: std::collections::BTreeSet<_> = cases.iter().map(|c| (&c.file, &c.name)).collect();
    assert_eq!(
        names.len(),
        cases.len(),
        "two corpus cases share a name in one file"
    );
    println!(
        "sql_fields corpus: {} cases, {} failed",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
