//! Verdicts back where people look at their traces (issue #47): annotations (made from
//! the labels by `eval::annotate`) sent to Arize Phoenix through its REST API. Each carries
//! the identifier `groundcheck`: Phoenix upserts on (name, span, identifier), so a rerun
//! updates what it wrote before and never adds a second one.

use serde_json::{Value, json};

use crate::error::{Error, Result};

/// The identifier every annotation carries (Phoenix's upsert key with name and span).
pub const IDENTIFIER: &str = "groundcheck";

/// One annotation of one span.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    pub span_id: String,
    pub name: &'static str,
    pub label: String,
    pub score: Option<f64>,
    pub explanation: Option<String>,
}

/// What Phoenix took.
#[derive(Debug, Default)]
pub struct Sent {
    pub annotations: usize,
    pub spans: usize,
    /// Spans Phoenix does not have (it was not fed those traces).
    pub missing: Vec<String>,
}

/// Sends `annotations` to the Phoenix at `base` (`POST /v1/span_annotations?sync=true`,
/// 100 a request). Phoenix refuses a whole request when one span is unknown, naming them:
/// those are left out and the rest sent again.
pub async fn to_phoenix(base: &str, annotations: &[Annotation]) -> Result<Sent> {
    let url = format!(
        "{}/v1/span_annotations?sync=true",
        base.trim_end_matches('/')
    );
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .map_err(|e| Error::Input(format!("cannot make an HTTP client: {e}")))?;
    let mut sent = Sent::default();
    let mut spans = std::collections::BTreeSet::new();
    for chunk in annotations.chunks(100) {
        let mut batch: Vec<&Annotation> = chunk.iter().collect();
        loop {
            if batch.is_empty() {
                break;
            }
            let body = json!({"data": batch.iter().map(|a| json!({
                "span_id": a.span_id, "name": a.name, "annotator_kind": "CODE",
                "identifier": IDENTIFIER,
                "result": {"label": a.label, "score": a.score, "explanation": a.explanation},
            })).collect::<Vec<_>>()});
            let r = client
                .post(&url)
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .await
                .map_err(|e| Error::Input(format!("cannot reach Phoenix at {base}: {e}")))?;
            let status = r.status();
            let text = r.text().await.unwrap_or_default();
            if status.is_success() {
                sent.annotations += batch.len();
                spans.extend(batch.iter().map(|a| a.span_id.clone()));
                break;
            }
            let missing = missing_spans(&text);
            if status.as_u16() == 404 && !missing.is_empty() {
                batch.retain(|a| !missing.contains(&a.span_id));
                sent.missing.extend(missing);
                continue;
            }
            return Err(Error::Input(format!(
                "Phoenix at {base} refused the annotations: HTTP {status}: {}",
                text.chars().take(500).collect::<String>()
            )));
        }
    }
    sent.spans = spans.len();
    sent.missing.sort();
    sent.missing.dedup();
    Ok(sent)
}

/// The span ids of Phoenix's 404 ("Spans with IDs a, b do not exist.").
fn missing_spans(body: &str) -> Vec<String> {
    let detail = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("detail").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| body.to_string());
    detail
        .split("Spans with IDs ")
        .nth(1)
        .and_then(|r| r.split(" do not exist").next())
        .map(|ids| {
            ids.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn phoenix_names_the_spans_it_lacks() {
        let body = r#"{"detail":"Spans with IDs ab12, cd34 do not exist."}"#;
        assert_eq!(super::missing_spans(body), ["ab12", "cd34"]);
        assert!(super::missing_spans("{\"detail\":\"other\"}").is_empty());
    }
}
