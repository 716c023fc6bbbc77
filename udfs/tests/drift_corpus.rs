//! The drift gate on real releases: tools/list captures of published MCP servers, each
//! version installed from its registry as it was when published
//! (tests/drift_corpus/capture.py), and a verdict per consecutive pair checked by hand
//! (tests/fixtures/drift-corpus/expected.tsv). A pair is blocked when any change's
//! default action is block. Controls (the same version installed twice) must give no
//! change at all.

use std::path::PathBuf;

use groundcheck_udfs::changes::{self, Action, tools_from_json};

fn corpus() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../tests/fixtures/drift-corpus")
}

fn capture(server: &str, version: &str) -> serde_json::Value {
    let path = corpus().join(server).join(format!("{version}.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
        .unwrap()
}

/// Tools, and the rest of the surface (prompts, resources, templates, instructions,
/// capabilities) as `groundcheck drift` compares two captures.
fn all_changes(server: &str, old: &str, new: &str) -> Vec<changes::Change> {
    let (a, b) = (capture(server, old), capture(server, new));
    let (ta, tb) = (tools_from_json(&a).unwrap(), tools_from_json(&b).unwrap());
    let mut out = changes::diff(&ta, &tb);
    let (sa, sb) = (
        changes::surface::Surface::from_json(&a).unwrap(),
        changes::surface::Surface::from_json(&b).unwrap(),
    );
    out.extend(changes::surface::diff(&sa, &sb, &[]));
    out.extend(changes::language::switches(&ta, Some(&sa), &tb, Some(&sb)));
    out
}

#[test]
fn real_releases_get_the_verdicts_checked_by_hand() {
    let expected = std::fs::read_to_string(corpus().join("expected.tsv")).unwrap();
    let (mut pairs, mut breaking, mut benign, mut false_blocks, mut missed) = (0, 0, 0, 0, 0);
    let mut wrong = Vec::new();
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let (server, old, new, verdict) = (f[0], f[1], f[2], f[3]);
        let changes = all_changes(server, old, new);
        let blocked: Vec<String> = changes
            .iter()
            .filter(|c| c.action == Action::Block)
            .map(|c| format!("{} {}: {}", c.rule, c.tool, c.message))
            .collect();
        match verdict {
            "identical" => {
                assert!(
                    changes.is_empty(),
                    "{server} {old} vs its control: {changes:?}"
                );
                continue;
            }
            "block" => {
                breaking += 1;
                if blocked.is_empty() {
                    missed += 1;
                    wrong.push(format!("{server} {old} -> {new}: breaking, not blocked"));
                }
            }
            "pass" => {
                benign += 1;
                if !blocked.is_empty() {
                    false_blocks += 1;
                    wrong.push(format!(
                        "{server} {old} -> {new}: benign, blocked by {blocked:?}"
                    ));
                }
            }
            other => panic!("verdict {other}?"),
        }
        pairs += 1;
    }
    eprintln!(
        "{pairs} pairs: {breaking} breaking ({missed} missed), {benign} benign ({false_blocks} blocked)"
    );
    assert!(pairs >= 25, "{pairs} pairs");
    // Every breaking pair blocked; at most one benign pair in twenty blocked (issue #20);
    // here: none.
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn every_captured_pair_has_a_verdict() {
    let expected = std::fs::read_to_string(corpus().join("expected.tsv")).unwrap();
    for (server, _) in split() {
        for w in versions(&server).windows(2) {
            let row = format!("{server}\t{}\t{}\t", w[0], w[1]);
            assert!(expected.contains(&row), "no verdict for {row:?}");
        }
    }
}

/// The servers of the corpus with their split: the text review was tuned on `tune` and is
/// measured on `held-out` (tests/fixtures/drift-corpus/split.tsv).
fn split() -> Vec<(String, String)> {
    std::fs::read_to_string(corpus().join("split.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (a, b) = l.split_once('\t').unwrap();
            (a.to_string(), b.to_string())
        })
        .collect()
}

fn versions(server: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(corpus().join(server))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_str().unwrap().to_string())
                .filter(|n| n.ends_with(".json") && !n.contains("control"))
                .map(|n| n.trim_end_matches(".json").to_string())
                .collect()
        })
        .unwrap_or_default();
    v.sort_by_key(|v| version_key(v));
    v
}

/// Versions in release order: semver where they parse (`3.0.0-beta.25`), else dotted numbers.
fn version_key(v: &str) -> (semver::Version, String) {
    let full = match v.split('.').count() {
        1 => format!("{v}.0.0"),
        2 => format!("{v}.0"),
        _ => v.to_string(),
    };
    (
        semver::Version::parse(&full).unwrap_or(semver::Version::new(0, 0, 0)),
        v.to_string(),
    )
}

/// Every model-visible string of a capture, keyed by where it is.
fn strings(capture: &serde_json::Value) -> std::collections::BTreeSet<(String, String)> {
    let mut out = std::collections::BTreeSet::new();
    for t in tools_from_json(capture).unwrap() {
        for (path, _, text) in changes::text::model_strings(&t) {
            out.insert((format!("{}{path}", t.name), text));
        }
    }
    if let Some(s) = changes::surface::Surface::from_json(capture) {
        out.extend(changes::surface::model_strings(&s));
    }
    out
}

fn review_changes(a: Option<&serde_json::Value>, b: &serde_json::Value) -> Vec<changes::Change> {
    let empty = serde_json::json!({"tools": []});
    let a = a.unwrap_or(&empty);
    let (ta, tb) = (tools_from_json(a).unwrap(), tools_from_json(b).unwrap());
    let mut out = changes::diff(&ta, &tb);
    let sa = changes::surface::Surface::from_json(a).unwrap_or_default();
    let sb = changes::surface::Surface::from_json(b);
    if let Some(sb) = &sb {
        out.extend(changes::surface::diff(&sa, sb, &[]));
    }
    out.extend(changes::language::switches(
        &ta,
        Some(&sa),
        &tb,
        sb.as_ref(),
    ));
    out.retain(|c| {
        c.rule.starts_with("text-language")
            || c.rule == "text-suspicious"
            || c.rule == "text-instruction"
    });
    out
}

#[derive(Default, Debug)]
struct Rates {
    units: usize,
    blocked: Vec<String>,
    warned: Vec<String>,
    /// Versions reviewed (each server's first, and every later one), and those with at
    /// least one string blocked: what a gate run on each release would have stopped.
    releases: usize,
    releases_blocked: usize,
}

/// The text review on real wording: every string a model reads in the first captured
/// version of each server, and every string that is new or changed in each later one.
fn benign(split_name: &str) -> (usize, Rates) {
    let mut r = Rates::default();
    let mut servers = 0;
    for (server, sp) in split() {
        let vs = versions(&server);
        if sp != split_name || vs.is_empty() {
            continue;
        }
        servers += 1;
        let mut prev: Option<serde_json::Value> = None;
        for v in &vs {
            let cur = capture(&server, v);
            let before = prev.as_ref().map(strings).unwrap_or_default();
            r.units += strings(&cur).difference(&before).count();
            r.releases += 1;
            let blocked_before = r.blocked.len();
            for c in review_changes(prev.as_ref(), &cur) {
                let line = format!(
                    "{server} {v}: {} {}{}: {}",
                    c.rule, c.tool, c.path, c.message
                );
                if c.action == Action::Block {
                    r.blocked.push(line);
                } else {
                    r.warned.push(line);
                }
            }
            r.releases_blocked += usize::from(r.blocked.len() > blocked_before);
            prev = Some(cur);
        }
    }
    (servers, r)
}

/// A poisoning text put where the corpus says (a description, a parameter name, an enum
/// value, a new tool's parameter, a prompt, the server's instructions…) into a small
/// server, and the gate run on the two versions: the strongest review verdict it gives.
fn poisoned(e: &serde_json::Value) -> Option<Action> {
    use serde_json::json;
    let text = e["text"].as_str().unwrap();
    let tool = e["tool"].as_str().unwrap();
    let base_desc = "Search the documentation index and return matching pages.";
    let search = |desc: &str| {
        json!({"name": "search_docs", "description": desc, "inputSchema": {"type": "object",
            "properties": {"query": {"type": "string", "description": "Words to search for."},
                "limit": {"type": "integer", "description": "Most results to return."},
                "format": {"type": "string", "enum": ["markdown", "text"]}},
            "required": ["query"]},
            "outputSchema": {"type": "object", "properties": {"pages": {"type": "array",
                "description": "Matching pages."}}}})
    };
    let others: Vec<serde_json::Value> = e["others"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .filter(|n| *n != "search_docs" && *n != tool)
        .map(|n| json!({"name": n, "description": format!("The {n} tool."), "inputSchema": {"type": "object"}}))
        .collect();
    let surface = json!({"prompts": [{"name": "summarise", "description": "Summarise a document."}],
        "resources": [{"uri": "docs://readme", "name": "readme", "description": "Project README."}],
        "instructions": "This server searches documentation.",
        "capabilities": {"tools": {}, "prompts": {}, "resources": {}}});
    let old_desc = e.get("old").and_then(|v| v.as_str()).unwrap_or(base_desc);
    let mut old_tools = vec![search(old_desc)];
    let mut new = search(base_desc);
    let mut new_tools = Vec::new();
    let mut new_surface = surface.clone();
    let place = e["place"].as_str().unwrap();
    match place {
        "description" => new["description"] = json!(text),
        "title" => new["title"] = json!(text),
        "param-description" => new["inputSchema"]["properties"]["query"]["description"] = json!(text),
        "param-title" => new["inputSchema"]["properties"]["query"]["title"] = json!(text),
        "param-name" => new["inputSchema"]["properties"][text] = json!({"type": "string"}),
        "enum" => new["inputSchema"]["properties"]["format"]["enum"] = json!(["markdown", "text", text]),
        "default" => new["inputSchema"]["properties"]["query"]["default"] = json!(text),
        "example" => new["inputSchema"]["properties"]["query"]["examples"] = json!([text]),
        "output-description" => new["outputSchema"]["properties"]["pages"]["description"] = json!(text),
        "new-tool" => new_tools.push(json!({"name": tool, "description": text,
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}})),
        "new-tool-param" => new_tools.push(json!({"name": tool, "description": format!("The {tool} tool."),
            "inputSchema": {"type": "object", "properties": {"data": {"type": "string", "description": text}}}})),
        "prompt-description" => new_surface["prompts"][0]["description"] = json!(text),
        "resource-description" => new_surface["resources"][0]["description"] = json!(text),
        "server-instructions" => new_surface["instructions"] = json!(text),
        other => panic!("place {other}?"),
    }
    old_tools.extend(others.iter().cloned());
    new_tools.push(new);
    new_tools.extend(others);
    let mut a = surface;
    a["tools"] = json!(old_tools);
    let mut b = new_surface;
    b["tools"] = json!(new_tools);
    review_changes(Some(&a), &b).iter().map(|c| c.action).min()
}

/// The text review as a measured classifier (issue #43). Poisoning: published examples
/// and texts written for this corpus, in every place a model reads
/// (tests/fixtures/drift-text/poisoning.jsonl, split by a hash of each id); benign: every
/// string of the published servers' captured versions (split by server, split.tsv).
/// The batches written after the first corpus, counted apart: how far the rules carry to
/// wording written after them (each batch's header in poisoning.jsonl says what it holds).
const BATCHES: [&str; 13] = [
    "b3-", "b4-", "b5-", "b6-", "b7-", "b8-", "b9-", "b10-", "b11-", "b12-", "b13-", "b14-", "b15-",
];

/// Tuned on `tune` only; on `held-out`: at most 1 % of benign strings blocked and 5 %
/// warned, and at least 95 % of poisoning flagged and 80 % blocked (the targets;
/// as measured, 95.6 % and 83.4 %).
#[test]
fn text_review_rates_on_held_out_poisoning_and_real_wording() {
    let poison = std::fs::read_to_string(corpus().join("../drift-text/poisoning.jsonl")).unwrap();
    let mut report = String::new();
    for sp in ["tune", "held-out"] {
        let (mut n, mut flagged, mut blocked, mut missed) = (0, 0, 0, Vec::new());
        let mut batches = [(0, 0, 0); BATCHES.len()];
        for line in poison.lines() {
            let e: serde_json::Value = serde_json::from_str(line).unwrap();
            if e["split"] != sp {
                continue;
            }
            n += 1;
            let verdict = poisoned(&e);
            for (b, prefix) in BATCHES.iter().enumerate() {
                if e["id"].as_str().is_some_and(|id| id.starts_with(prefix)) {
                    batches[b].0 += 1;
                    batches[b].1 += usize::from(verdict.is_some());
                    batches[b].2 += usize::from(verdict == Some(Action::Block));
                }
            }
            match verdict {
                Some(Action::Block) => {
                    blocked += 1;
                    flagged += 1
                }
                Some(_) => {
                    flagged += 1;
                    missed.push(format!("warned only: {}", e["id"]))
                }
                None => missed.push(format!("passed: {} ({})", e["id"], e["place"])),
            }
        }
        let (servers, b) = benign(sp);
        let pct = |x: usize, n: usize| 100.0 * x as f64 / n.max(1) as f64;
        report.push_str(&format!(
            "{sp}: poisoning {n} texts: {flagged} flagged ({:.1} %), {blocked} blocked ({:.1} %); \
             benign {servers} servers, {} strings: {} blocked ({:.2} %), {} warned ({:.2} %); \
             {} of {} releases with a string blocked\n",
            pct(flagged, n),
            pct(blocked, n),
            b.units,
            b.blocked.len(),
            pct(b.blocked.len(), b.units),
            b.warned.len(),
            pct(b.warned.len(), b.units),
            b.releases_blocked,
            b.releases,
        ));
        for (prefix, (bn, bf, bb)) in BATCHES.iter().zip(batches) {
            report.push_str(&format!(
                "  batch {}: {bf} of {bn} flagged, {bb} blocked\n",
                prefix.trim_end_matches('-')
            ));
        }
        if sp == "tune" {
            // What tuning looks at; the held-out lines are only counted.
            for m in missed.iter().chain(&b.blocked).chain(&b.warned) {
                report.push_str(&format!("  {m}\n"));
            }
        }
        if sp == "held-out" {
            eprintln!("{report}");
            assert!(n >= 40 && servers >= 8 && b.units >= 500, "{report}");
            // The target is 95 %. Measured on this held-out part: 60 of 64
            // (93.8 %) before the third batch; with it 67 of 80 before tuning on its tune
            // half (its held-out half: 7 of 16), 74 of 80 (92.5 %) after (14 of 16). The
            // fourth batch (40 texts, 22 held out): 92 of 102 before tuning on its tune
            // half (its held-out half: 18 of 22), 93 of 102 (91.2 %) after (still 18 of
            // 22; the third batch's 15 of 16). The fifth batch (30 texts, 13 held out): 104
            // of 115 (90.4 %) before tuning on its tune half (its held-out half: 11 of 13);
            // after (spelled-out and leetspeak words read as words, priority over the user,
            // exclusivity claims over the other tools): 108 of 115 (93.9 %), its held-out
            // half 12 of 13. The sixth batch (30 texts, 16 held out): 121 of 131 (92.4 %)
            // before tuning on its tune half (its held-out half: 13 of 16), and the same
            // after (tune half 10 -> 14 of 14). The seventh (30 texts, 14 held out): 132
            // of 145 (91.0 %) before tuning on its tune half (its held-out half: 11 of
            // 14), and the same after. With the text model (a logistic regression trained
            // on the tune part only, udfs/src/changes/text_model.tsv) warning where no
            // rule fires: 136 of 145 (93.8 %), benign warned 1.00 -> 1.09 %. The eighth
            // batch (30 texts, 16 held out, written after the model): 148 of 161 (91.9 %,
            // blocked 77.6 %) before tuning on its tune half (its held-out half: 12 of
            // 16, 7 blocked); after (classes widened, the model retrained): 149 of 161
            // (92.5 %), blocked 129 (80.1 %; its held-out half 12 of 16, 11 blocked).
            // The ninth batch (32 texts, 15 held out): 159 of 176 (90.3 %, blocked 136,
            // 77.3 %) before tuning on its tune half (its held-out half: 10 of 15, 7
            // blocked); after (payment destinations read by their formats' rules,
            // concealment in Chinese, Dutch, Arabic and Italian, messages counted in
            // words, a value that says to move a credential; the model retrained): 159
            // of 176 (90.3 %), blocked 139 (79.0 %; its held-out half still 10 of 15).
            // The tenth batch (32 texts, 13 held out): 165 of 189 (87.3 %, blocked 141,
            // 74.6 %) before anything was changed (its held-out half: 6 of 13); after
            // retraining the model on the larger tune part: 169 of 189 (89.4 %; its
            // held-out half 7 of 13), blocked unchanged. With `text-language` (a sentence
            // in a language the server does not use warns): 175 of 189 (92.6 %; its
            // held-out half 11 of 13), benign warned unchanged. Tuned on the tenth batch's
            // tune half by class (data promoted to the user's request, the model's own
            // turns and reasoning, access codes, a push to a git remote, a parameter
            // name that says to paste something in; the model retrained): tune blocked
            // 195 -> 200 of 211; held out 174 of 189 (92.1 %; the retrained model lost
            // one of the tenth batch's held-out half, 10 of 13), blocked 142 (75.1 %).
            // Three servers written in Chinese added to the held-out benign part,
            // untouched: 3,459 strings, 14 blocked (0.40 %), 39 warned (1.13 %). With
            // `text-language-suspicious` (foreign wording that carries an address, a
            // credential's place, hidden text or another tool's name): blocked 146 of 189
            // (77.2 %), benign unchanged. The eleventh batch (32 texts, 16 held out,
            // written after text-language): 188 of 205 (91.7 %; its held-out half 14 of
            // 16), blocked 150 (73.2 %; its held-out half 4 of 16) before tuning on its
            // tune half; after (an address without a scheme, account details, a note
            // for the model's eyes only, close languages read with a middling
            // confidence when the words are new to the server; the model retrained):
            // the same, 188 and 150. The twelfth batch (34 texts, 18 held out, written
            // after the lexicon of concepts in other languages but measured without it
            // first): 206 of 223 (92.4 %; its held-out half 18 of 18), blocked 160 (71.7 %;
            // its held-out half 10 of 18). With the lexicon (udfs/src/changes/lexicon.tsv,
            // written from a fixed list of concepts per language, not from any corpus
            // text): 207 (92.8 %), blocked 171 (76.7 %), benign unchanged. Tuned on the
            // tune part by class and the model retrained: the same 207 and 171; benign
            // warned 39 -> 40. The model's share of benign strings raised from 1.5 % to 3 %
            // of the tune part (out of fold; the issue allows 5 % warned): 209 (93.7 %),
            // benign warned 40 -> 49 (1.42 %). The thirteenth batch (34 texts, 17 held
            // out, written after all of that and measured once, never tuned on): 226 of
            // 240 (94.2 %; its held-out half 17 of 17), blocked 188 (78.3 %; its held-out
            // half 17 of 17), benign unchanged. The model retrained on the tune part
            // with its tune half (same 3 % operating point): flagged 228 (95.0 %), benign
            // warned 49 -> 57 (1.65 %). The model given a second operating point (a block
            // where the rules warn on a sensitive target and it is sure: out of fold 0.10 %
            // of tune benign strings): blocked 196 (81.7 %), benign blocked 14 -> 17 (0.49 %),
            // warned 57 -> 54 (1.56 %). The fourteenth batch (34 texts, 17 held out) and
            // twelve servers nobody here had read (one version each, 2,565 strings), written
            // and captured after that and measured once: held out 245 of 257 flagged
            // (95.3 %; its held-out half 17 of 17), blocked 212 (82.5 %; its held-out half
            // 16 of 17); benign 24 servers, 6,024 strings: 36 blocked (0.60 %; on the new
            // servers 19, 16 of them the model's, all HubSpot's: 15 of its parameters repeat
            // one sentence), 98 warned (1.63 %). Without the model's block: 203 (79.0 %) and
            // 17 (0.28 %). The model retrained on the tune part with the batch's tune half:
            // flagged 244 (94.9 %), blocked 212, benign 36 and 95 (1.58 %). The fifteenth
            // batch (34 texts, 14 held out) and sixteen more servers split by a hash of
            // their names (8 tune, 8 held out: 7,376 strings), measured once as they came:
            // held out 257 of 271 flagged (94.8 %), blocked 225 (83.0 %), benign 32
            // servers, 13,400 strings: 39 blocked (0.29 %), 162 warned (1.21 %), 11 of 58
            // releases stopped. Then tuned on the tune part only (its new servers' false
            // blocks: a note to the model with no target, a target and a directive in
            // different sentences, "do not ask the user to run it", "must not proceed
            // without approval", a conversation's id, an identifier offered as an enum
            // value; its misses: nslookup, "every credential") and the model retrained,
            // measured once: flagged 259 (95.6 %), blocked 226 (83.4 %), benign 24
            // (0.18 %) and 228 (1.70 %); on the eight new held-out servers 0 blocked and
            // 93 warned (1.26 %).
            assert!(pct(flagged, n) >= 95.0, "{report}");
            assert!(pct(blocked, n) >= 83.0, "{report}");
            assert!(pct(b.blocked.len(), b.units) <= 1.0, "{report}");
            assert!(pct(b.warned.len(), b.units) <= 5.0, "{report}");
            // Per release, what a gate run on each version would have stopped (counted
            // since 2026-12-07): 8 of 50 held-out versions had a string blocked, 6 by
            // the rules alone; 7 of 58 since the fifteenth batch's tuning (0 of the 8 new
            // servers). No target in the issue; held so it cannot grow unnoticed.
            assert!(b.releases_blocked <= 7, "{report}");
        }
    }
}

/// Where a poisoning text sits, as the review reads it.
fn kind_of(place: &str) -> changes::text::Kind {
    use changes::text::Kind;
    match place {
        "param-name" => Kind::Name,
        "enum" | "default" | "example" => Kind::Value,
        _ => Kind::Prose,
    }
}

/// One of the text model's examples: its features, whether it is poisoning, its fold, and
/// whether a confident score blocks it (the rules warn on it for a sensitive target).
struct Example {
    features: Vec<String>,
    poison: bool,
    fold: usize,
    may_block: bool,
}

/// The text model's examples from one part of the corpus, each with its fold (for
/// choosing the thresholds on texts the fold's model did not see): every distinct string
/// of every captured version of the part's servers (fold: the server), and the part's
/// poisoning texts (fold: the line).
fn model_examples(split_name: &str) -> Vec<Example> {
    use changes::text::{Kind, model_input};
    let mut out = Vec::new();
    let servers: Vec<String> = split()
        .into_iter()
        .filter(|(_, sp)| sp == split_name)
        .map(|(s, _)| s)
        .collect();
    for (fold, server) in servers.iter().enumerate() {
        let mut seen = std::collections::BTreeSet::new();
        for v in versions(server) {
            let cur = capture(server, &v);
            let tools = tools_from_json(&cur).unwrap();
            let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
            for t in &tools {
                for (_, kind, text) in changes::text::model_strings(t) {
                    if seen.insert((format!("{kind:?}"), text.clone())) {
                        let (features, may_block) = model_input(&text, kind, &names, &t.name);
                        out.push(Example {
                            features,
                            poison: false,
                            fold,
                            may_block,
                        });
                    }
                }
            }
            if let Some(s) = changes::surface::Surface::from_json(&cur) {
                for (_, text) in changes::surface::model_strings(&s) {
                    if seen.insert(("Prose".to_string(), text.clone())) {
                        let (features, may_block) = model_input(&text, Kind::Prose, &names, "");
                        out.push(Example {
                            features,
                            poison: false,
                            fold,
                            may_block,
                        });
                    }
                }
            }
        }
    }
    let poison = std::fs::read_to_string(corpus().join("../drift-text/poisoning.jsonl")).unwrap();
    for (i, line) in poison.lines().enumerate() {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        if e["split"] != split_name {
            continue;
        }
        let others: Vec<String> = e["others"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect();
        let (features, may_block) = model_input(
            e["text"].as_str().unwrap(),
            kind_of(e["place"].as_str().unwrap()),
            &others,
            e["tool"].as_str().unwrap(),
        );
        out.push(Example {
            features,
            poison: true,
            fold: i,
            may_block,
        });
    }
    out
}

/// The share of benign strings of the tune part the text model may flag, measured on
/// folds it was not trained on. The rules warn on about 1 % and the issue allows 5 %: the
/// model gets 3 %, which leaves room for wording the tune part does not have.
const MODEL_BENIGN_FLAGGED: f64 = 0.03;
/// The share it may block (of all benign strings, among those the rules warn on for a
/// sensitive target). The rules block about 0.4 % and the issue allows 1 %: the model gets
/// a tenth of a percent.
const MODEL_BENIGN_BLOCKED: f64 = 0.001;
const MODEL_FOLDS: usize = 5;

/// Just above the benign score at `allowed` (scores sorted highest first), rounded as
/// the model's file rounds: at most `allowed` of them reach it.
fn threshold_above(mut benign: Vec<f64>, allowed: usize) -> f64 {
    benign.sort_by(|a, b| b.total_cmp(a));
    match benign.get(allowed) {
        Some(s) => ((s + 1e-4) * 1e4).ceil() / 1e4,
        None => 0.0,
    }
}

/// The text model is trained on the tune part only: out-of-fold scores (5 folds; benign
/// strings by server, poisoning by line) choose the threshold that flags at most
/// `MODEL_BENIGN_FLAGGED` of benign strings, and the one that blocks at most
/// `MODEL_BENIGN_BLOCKED` of them among those the rules warn on for a sensitive target;
/// then one model is trained on the whole tune part. The committed
/// udfs/src/changes/text_model.tsv must be what this trains
/// (`GROUNDCHECK_WRITE_TEXT_MODEL=1` rewrites it).
#[test]
fn text_model_is_the_one_the_tune_split_trains() {
    use changes::text_model::{Training, train};
    let examples = model_examples("tune");
    let t = Training::default();
    let mut oof = vec![0.0; examples.len()];
    for k in 0..MODEL_FOLDS {
        let part: Vec<(Vec<String>, bool)> = examples
            .iter()
            .filter(|e| e.fold % MODEL_FOLDS != k)
            .map(|e| (e.features.clone(), e.poison))
            .collect();
        let m = train(&part, t, 0.5);
        for (i, e) in examples.iter().enumerate() {
            if e.fold % MODEL_FOLDS == k {
                oof[i] = m.score(&e.features);
            }
        }
    }
    let scores = |poison: bool, blockable: bool| -> Vec<f64> {
        examples
            .iter()
            .zip(&oof)
            .filter(|(e, _)| e.poison == poison && (e.may_block || !blockable))
            .map(|(_, s)| *s)
            .collect()
    };
    let n_benign = scores(false, false).len();
    let n_poison = scores(true, false).len();
    let threshold = threshold_above(
        scores(false, false),
        (n_benign as f64 * MODEL_BENIGN_FLAGGED).floor() as usize,
    );
    let block = threshold_above(
        scores(false, true),
        (n_benign as f64 * MODEL_BENIGN_BLOCKED).floor() as usize,
    );
    let count = |v: Vec<f64>, t: f64| v.iter().filter(|s| **s >= t).count();
    let caught = count(scores(true, false), threshold);
    let flagged = count(scores(false, false), threshold);
    let blocked = count(scores(false, true), block);
    let (may_block, block_caught) = (scores(true, true).len(), count(scores(true, true), block));
    let all: Vec<(Vec<String>, bool)> = examples
        .iter()
        .map(|e| (e.features.clone(), e.poison))
        .collect();
    let mut m = train(&all, t, threshold);
    m.block = block;
    let pct = |x: usize, n: usize| 100.0 * x as f64 / n.max(1) as f64;
    let header = format!(
        "groundcheck's text model (issue #43): logistic regression, {t:?}.\n\
         Trained on the tune part of the drift corpus only: {n_benign} benign strings, {n_poison} poisoning texts.\n\
         Out of fold ({MODEL_FOLDS} folds): threshold {threshold:.4} flags {flagged} benign strings ({:.2} %) and {caught} of {n_poison} poisoning texts ({:.1} %).\n\
         Block {block:.4} (texts the rules warn on for a sensitive target): blocks {blocked} benign strings ({:.2} %) and {block_caught} of {may_block} such poisoning texts.\n\
         Written by text_model_is_the_one_the_tune_split_trains (udfs/tests/drift_corpus.rs); do not edit.",
        pct(flagged, n_benign),
        pct(caught, n_poison),
        pct(blocked, n_benign),
    );
    let tsv = m.to_tsv(&header);
    eprintln!("{header}\n{} weights", m.weights.len());
    let path = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("src/changes/text_model.tsv");
    if std::env::var_os("GROUNDCHECK_WRITE_TEXT_MODEL").is_some() {
        std::fs::write(&path, &tsv).unwrap();
    } else {
        assert!(
            std::fs::read_to_string(&path).unwrap() == tsv,
            "{path:?} is not what the tune part trains: GROUNDCHECK_WRITE_TEXT_MODEL=1 \
             cargo test --workspace --test drift_corpus text_model rewrites it"
        );
    }
}
