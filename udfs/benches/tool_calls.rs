//! Speed of the tool-call matcher (`check::compare`, what `calls_match` runs per task), in
//! tasks per second on one core, over tasks shaped like BFCL's: one to four expected
//! calls of three to six parameters with schemas, strings that need standardizing,
//! lists and dicts, and outputs that match, miss a value or call the wrong tool.
//!
//! Run: `cargo bench -p groundcheck-udfs --bench tool_calls`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use groundcheck_udfs::tool_calls::check::{Expected, Mode, compare};
use serde_json::{Value, json};

/// One task: the calls made (tool, arguments) and the calls expected.
type Task = (Vec<(String, Value)>, Vec<Expected>);

/// Deterministic tasks.
fn tasks(n: usize) -> Vec<Task> {
    (0..n)
        .map(|i| {
            let k = 1 + i % 4;
            let expected: Vec<Expected> = (0..k)
                .map(|j| {
                    let schema = json!({"type": "dict", "properties": {
                        "city": {"type": "string"}, "days": {"type": "integer"}, "ratio": {"type": "float"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "filters": {"type": "dict"}, "unit": {"type": "string"}},
                        "required": ["city", "days"]});
                    Expected::parse(
                        &format!("tool_{j}.get"),
                        &json!({"city": [format!("New York {i}"), format!("NYC {i}")], "days": [i % 30],
                                "ratio": [0.5, ""], "tags": [["a b", "c"], ""],
                                "filters": [{"kind": ["open", "pending"], "limit": [10, ""]}, ""],
                                "unit": ["celsius", "fahrenheit", ""]})
                        .to_string(),
                        Some(&schema.to_string()),
                    )
                    .expect("expected call")
                })
                .collect();
            let calls = (0..k)
                .rev()
                .map(|j| {
                    let tool = if i % 7 == 0 { "other".to_string() } else { format!("tool_{j}_get") };
                    let days = if i % 5 == 0 { 99 } else { i % 30 };
                    (tool, json!({"city": format!("new york {i}"), "days": days, "ratio": 0.5,
                                  "tags": ["A B", "c"], "filters": {"kind": "open"}}))
                })
                .collect();
            (calls, expected)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let tasks = tasks(2_000);
    let mut g = c.benchmark_group("tool_calls");
    g.throughput(Throughput::Elements(tasks.len() as u64));
    for (name, mode) in [
        ("compare/bfcl", Mode::Bfcl),
        ("compare/strict", Mode::Strict),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                for (calls, expected) in &tasks {
                    black_box(compare(mode, false, calls, expected));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
