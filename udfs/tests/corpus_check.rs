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

#[path = "corpus/reader.rs"]
mod reader;

use groundcheck_udfs::sql::lineage::sql_fields;
use groundcheck_udfs::sql::{Catalog, Dialect};
use reader::{cases, catalog_entries};

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

/// Unparseable input never panics: every prefix of every corpus query (most of them not
/// valid SQL), and absurdly deep nesting, give a result with reasons.
#[test]
fn no_input_panics() {
    let entries = catalog_entries();
    let catalog = Catalog::from_entries(entries.iter().map(String::as_str));
    let mut tried = 0;
    for c in cases() {
        let d = Dialect::from_name(&c.dialect).unwrap();
        let cuts: Vec<usize> = c.sql.char_indices().map(|(i, _)| i).step_by(5).collect();
        for cut in cuts {
            let prefix = &c.sql[..cut];
            let _ = sql_fields(prefix, &d, &catalog);
            let _ = groundcheck_udfs::sql::predicate::predicate_match(
                prefix,
                "customers.id = 1",
                &d,
                &catalog,
            );
            let _ = groundcheck_udfs::sql::analysis::grain_issues(prefix, &d, &catalog);
            tried += 1;
        }
    }
    assert!(tried > 3000, "{tried}");
    let d = Dialect::from_name("generic").unwrap();
    let deep = format!(
        "SELECT {}1{} FROM customers",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let r = sql_fields(&deep, &d, &catalog);
    assert!(r.reasons[0].starts_with("cannot parse"), "{:?}", r.reasons);
    let deep_sub = format!(
        "SELECT id FROM customers WHERE id IN {}",
        "(SELECT id FROM customers WHERE id IN ".repeat(40) + "(1)" + &")".repeat(40)
    );
    let r = sql_fields(&deep_sub, &d, &catalog);
    assert!(r.fields.contains("customers.id") || !r.reasons.is_empty());
}
