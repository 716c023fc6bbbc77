//! The demo's context and snapshots, compiled in for `groundcheck gen`.

macro_rules! demo_files {
    ($($f:literal),* $(,)?) => { &[$(($f, include_str!(concat!("../datasets/demo/", $f)))),*] };
}

pub const FILES: &[(&str, &str)] = demo_files![
    "context/catalog.jsonl",
    "context/fiscal_calendar.jsonl",
    "context/glossary.jsonl",
    "context/hedging_phrases.jsonl",
    "context/id_schemes.jsonl",
    "context/policies.jsonl",
    "context/pricing.jsonl",
    "context/tool_context.jsonl",
    "snapshots/2026-07-01.jsonl",
];
