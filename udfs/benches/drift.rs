//! Speed of the drift diff and of argument validation, per core. Targets from issue 8:
//! schema diff at least 10,000 tool pairs per second; argument validation at least
//! 200,000 calls per second.
//!
//! Run: `cargo bench -p groundcheck-udfs --bench drift`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use groundcheck_udfs::changes::{Tool, diff};
use groundcheck_udfs::validate_args::validate;
use serde_json::json;

/// A realistic tool: a few parameters, a nested filter array with an enum, bounds.
fn tool(i: usize, changed: bool) -> Tool {
    let q = if changed { "search_query" } else { "query" };
    let ops = if changed {
        json!(["eq", "lt"])
    } else {
        json!(["eq", "lt", "gt"])
    };
    Tool::from_json(&json!({
        "name": format!("tool_{i}"),
        "description": "Search the documentation for pages.",
        "inputSchema": {"type": "object", "properties": {
            q: {"type": "string", "description": "Search query", "minLength": 1},
            "max_results": {"type": "integer", "minimum": 1, "maximum": if changed { 50 } else { 100 }},
            "filters": {"type": "array", "items": {"type": "object", "properties": {
                "field": {"type": "string"}, "op": {"type": "string", "enum": ops},
                "value": {"type": ["string", "number"]}}, "required": ["field", "op"]}},
            "format": {"type": "string", "enum": ["json", "text", "markdown"], "default": "json"}},
            "required": [q]},
        "annotations": {"readOnlyHint": true}
    }))
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let n = 1000;
    let old: Vec<Tool> = (0..n).map(|i| tool(i, false)).collect();
    let new: Vec<Tool> = (0..n).map(|i| tool(i, true)).collect();
    let mut g = c.benchmark_group("drift");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("diff/changed_pairs", |b| {
        b.iter(|| black_box(diff(&old, &new)))
    });
    g.bench_function("diff/identical_pairs", |b| {
        b.iter(|| black_box(diff(&old, &old)))
    });
    g.finish();

    let schema = old[0].input_schema.as_ref().unwrap().to_string();
    let calls: Vec<String> = (0..n)
        .map(|i| {
            if i % 10 == 0 {
                json!({"search_query": "x", "max_results": "10"}).to_string()
            } else {
                json!({"query": format!("refund {i}"), "max_results": 10,
                       "filters": [{"field": "lang", "op": "eq", "value": "en"}]})
                .to_string()
            }
        })
        .collect();
    let mut g = c.benchmark_group("validate_args");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("calls", |b| {
        b.iter(|| {
            for a in &calls {
                black_box(validate(&schema, a, true));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
