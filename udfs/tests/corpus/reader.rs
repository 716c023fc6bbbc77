//! Reads the SQL corpus (`tests/corpus/*.sql` and `catalog.txt`); shared by the corpus
//! test and the bench.

#![allow(dead_code)]

use std::path::PathBuf;

pub struct Case {
    pub file: String,
    pub name: String,
    pub dialect: String,
    pub fields: Vec<String>,
    pub reasons: Vec<String>,
    pub sql: String,
}

pub fn corpus_dir() -> PathBuf {
    // Read at run time (cargo sets it): a shared target dir may hold this binary built
    // from another checkout, whose path env!() would have baked in.
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .join("tests/corpus")
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
