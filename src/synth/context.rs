//! The context and snapshots of `groundcheck gen`: the demo's, compiled in, with what a
//! generated project needs beyond the demo's handful of users and questions.

use serde_json::json;

macro_rules! demo_files {
    ($($f:literal),* $(,)?) => { &[$(($f, include_str!(concat!("../../datasets/demo/", $f)))),*] };
}

const FILES: &[(&str, &str)] = demo_files![
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

/// Every file of the generated context, by path in the project.
///
/// Beyond the demo's: a region names `deals.sales_region` in deals questions (the demo's
/// region terms name `customers.sales_region` only) and the deals tools encode it; every
/// generated regional sales manager (`sales.mgr.NN`) has a policy row for their region;
/// `deals_closing` reads the amount it ranks by.
pub fn files(regions: &[&str], managers: u64) -> Vec<(&'static str, String)> {
    FILES
        .iter()
        .map(|&(name, text)| {
            let mut text = text.to_string();
            match name {
                "context/glossary.jsonl" => {
                    for r in regions {
                        let row = json!({
                            "term": r,
                            "definition": "in deals questions, region maps to the deal's own sales_region",
                            "predicate": format!("deals.sales_region = '{r}'"),
                            "tools": ["deals_closing", "pipeline_total"],
                        });
                        text.push_str(&format!("{row}\n"));
                    }
                }
                "context/policies.jsonl" => {
                    for n in 0..managers {
                        let r = regions[(n % regions.len() as u64) as usize];
                        let row = json!({
                            "as_user": format!("sales.mgr.{n:02}"), "role": "regional_sales_manager",
                            "scope": "own_region", "row_filter": format!("sales_region = '{r}'"),
                            "masked_columns": [],
                        });
                        text.push_str(&format!("{row}\n"));
                    }
                }
                "context/tool_context.jsonl" => {
                    let old = r#""deals.deal_id", "deals.close_date", "deals.sales_region", "deals.stage"]"#;
                    assert!(text.contains(old), "the demo's deals_closing row changed");
                    text = text.replace(
                        old,
                        r#""deals.deal_id", "deals.close_date", "deals.sales_region", "deals.stage", "deals.amount_usd"]"#,
                    );
                }
                _ => {}
            }
            (name, text)
        })
        .collect()
}
