//! Verdicts back where people look at their traces (issue #47): annotations (made from
//! the labels by `eval::annotate`) sent to Arize Phoenix and to MLflow (as assessments)
//! through their REST APIs, and as
//! OpenTelemetry GenAI evaluation events (`gen_ai.evaluation.result` log records,
//! parented to the span they judge) to any OTLP/HTTP endpoint. In Phoenix each carries the
//! identifier `groundcheck`: Phoenix upserts on (name, span, identifier), so a rerun
//! updates what it wrote before and never adds a second one.

use serde_json::{Value, json};

use crate::error::{Error, Result};

/// The identifier every annotation carries (Phoenix's upsert key with name and span).
pub const IDENTIFIER: &str = "groundcheck";

/// One annotation of one span.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    pub span_id: String,
    /// The trace the span is in (OTLP events need it; Phoenix finds spans alone).
    pub trace_id: Option<String>,
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
    /// Trace annotations, and the traces they went on.
    pub trace_annotations: usize,
    pub traces: usize,
    /// Traces that hold more than one task: their verdicts would overwrite each other on
    /// the trace, so they are on the tasks' spans only.
    pub shared_traces: usize,
}

/// Sends `annotations` to the Phoenix at `base` as span annotations
/// (`POST /v1/span_annotations?sync=true`), and again as trace annotations
/// (`/v1/trace_annotations`) on the trace of a task that has its trace to itself, so the
/// traces table shows them. 100 a request. Phoenix refuses a whole request when one span
/// or trace is unknown, naming them: those are left out and the rest sent again.
pub async fn to_phoenix(base: &str, annotations: &[Annotation]) -> Result<Sent> {
    let client = http_client()?;
    let mut sent = Sent::default();
    let spans: Vec<(&str, &Annotation)> = annotations
        .iter()
        .map(|a| (a.span_id.as_str(), a))
        .collect();
    let (n, on, missing) = post_phoenix(&client, base, "span", &spans).await?;
    (sent.annotations, sent.spans, sent.missing) = (n, on, missing);
    // Tasks per trace: a task is its answer span.
    let mut tasks: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
        Default::default();
    for a in annotations {
        if let Some(t) = &a.trace_id {
            tasks.entry(t).or_default().insert(&a.span_id);
        }
    }
    sent.shared_traces = tasks.values().filter(|s| s.len() > 1).count();
    let traces: Vec<(&str, &Annotation)> = annotations
        .iter()
        .filter_map(|a| {
            let t = a.trace_id.as_deref()?;
            (tasks[t].len() == 1 && !sent.missing.contains(&a.span_id)).then_some((t, a))
        })
        .collect();
    let (n, on, _) = post_phoenix(&client, base, "trace", &traces).await?;
    (sent.trace_annotations, sent.traces) = (n, on);
    Ok(sent)
}

/// Posts (target id, annotation) pairs as Phoenix `kind` ("span" or "trace") annotations;
/// returns how many were taken, on how many targets, and the targets Phoenix lacks.
async fn post_phoenix(
    client: &reqwest::Client,
    base: &str,
    kind: &str,
    annotations: &[(&str, &Annotation)],
) -> Result<(usize, usize, Vec<String>)> {
    let url = format!(
        "{}/v1/{kind}_annotations?sync=true",
        base.trim_end_matches('/')
    );
    let (mut taken, mut on, mut lacking) = (0, std::collections::BTreeSet::new(), Vec::new());
    for chunk in annotations.chunks(100) {
        let mut batch: Vec<&(&str, &Annotation)> = chunk.iter().collect();
        while !batch.is_empty() {
            let body = json!({"data": batch.iter().map(|(id, a)| json!({
                format!("{kind}_id"): id, "name": a.name, "annotator_kind": "CODE",
                "identifier": IDENTIFIER,
                "result": {"label": a.label, "score": a.score, "explanation": a.explanation},
            })).collect::<Vec<_>>()});
            let r = client
                .post(&url)
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .await
                .map_err(|e| Error::Upstream(format!("cannot reach Phoenix at {base}: {e}")))?;
            let status = r.status();
            let text = r.text().await.unwrap_or_default();
            if status.is_success() {
                taken += batch.len();
                on.extend(batch.iter().map(|(id, _)| id.to_string()));
                break;
            }
            let missing = missing_ids(&text);
            if status.as_u16() == 404 && !missing.is_empty() {
                batch.retain(|(id, _)| !missing.iter().any(|m| m == id));
                lacking.extend(missing);
                continue;
            }
            return Err(Error::Upstream(format!(
                "Phoenix at {base} refused the {kind} annotations: HTTP {status}: {}",
                text.chars().take(500).collect::<String>()
            )));
        }
    }
    lacking.sort();
    lacking.dedup();
    Ok((taken, on.len(), lacking))
}

/// What MLflow took.
#[derive(Debug, Default)]
pub struct Assessed {
    pub created: usize,
    pub updated: usize,
    /// Already there with the same value, rationale and score (a rerun on the same labels).
    pub unchanged: usize,
    /// Ours on these traces that the labels no longer have (a figure no longer scored).
    pub removed: usize,
    pub traces: usize,
    /// Traces MLflow does not have, by its id (`tr-` and the OpenTelemetry trace id).
    pub missing: Vec<String>,
}

/// What one trace's assessments came to.
enum Outcome {
    Done {
        created: usize,
        updated: usize,
        unchanged: usize,
        removed: usize,
    },
    Missing(String),
}

/// Writes `annotations` as MLflow assessments (feedback from source CODE `groundcheck`)
/// on the span they judge, through the tracking server's REST API at `base`. A trace
/// ingested over OTLP has the id `tr-` + its OpenTelemetry id. MLflow does not upsert, so
/// each trace's assessments are read first: one of ours with the same name and span is
/// left alone when equal, else updated (PATCH; deleted and created again when a score
/// must go, as PATCH merges metadata), any second copy is deleted, and so is one of ours
/// the labels no longer have (a figure no longer scored). Eight traces at a time.
pub async fn to_mlflow(base: &str, annotations: &[Annotation]) -> Result<Assessed> {
    use futures::StreamExt;
    let api = format!("{}/api/3.0/mlflow/traces", base.trim_end_matches('/'));
    let client = http_client()?;
    let mut by_trace: std::collections::BTreeMap<String, Vec<&Annotation>> = Default::default();
    let mut out = Assessed::default();
    for a in annotations {
        match &a.trace_id {
            Some(t) => by_trace.entry(format!("tr-{t}")).or_default().push(a),
            None => out
                .missing
                .push(format!("(no trace id for span {})", a.span_id)),
        }
    }
    let (client, api) = (&client, api.as_str());
    let results: Vec<Result<Outcome>> = futures::stream::iter(by_trace)
        .map(|(trace, list)| async move { assess_trace(client, api, base, &trace, &list).await })
        .buffer_unordered(8)
        .collect()
        .await;
    for r in results {
        match r? {
            Outcome::Done {
                created,
                updated,
                unchanged,
                removed,
            } => {
                out.traces += 1;
                out.removed += removed;
                out.created += created;
                out.updated += updated;
                out.unchanged += unchanged;
            }
            Outcome::Missing(t) => out.missing.push(t),
        }
    }
    out.missing.sort();
    out.missing.dedup();
    Ok(out)
}

fn id_of(assessment: &Value) -> String {
    assessment["assessment_id"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn assess_trace(
    client: &reqwest::Client,
    api: &str,
    base: &str,
    trace: &str,
    list: &[&Annotation],
) -> Result<Outcome> {
    let call = |method: reqwest::Method, url: String, body: Option<Value>| async move {
        let mut req = client.request(method, &url);
        if let Some(b) = body {
            req = req
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let r = req
            .send()
            .await
            .map_err(|e| Error::Upstream(format!("cannot reach MLflow at {base}: {e}")))?;
        let status = r.status();
        let text = r.text().await.unwrap_or_default();
        Ok::<_, Error>((status, text))
    };
    let refused = |what: &str, status: reqwest::StatusCode, text: &str| {
        Error::Upstream(format!(
            "MLflow at {base} refused {what} of trace {trace}: HTTP {status}: {}",
            text.chars().take(300).collect::<String>()
        ))
    };
    let delete = |id: String, what: &'static str| async move {
        let (status, text) = call(
            reqwest::Method::DELETE,
            format!("{api}/{trace}/assessments/{id}"),
            None,
        )
        .await?;
        if status.is_success() {
            Ok(())
        } else {
            Err(refused(what, status, &text))
        }
    };
    let (status, text) = call(reqwest::Method::GET, format!("{api}/{trace}"), None).await?;
    if status.as_u16() == 404 {
        return Ok(Outcome::Missing(trace.to_string()));
    }
    if !status.is_success() {
        return Err(refused("reading", status, &text));
    }
    let info: Value = serde_json::from_str(&text).map_err(|e| {
        Error::Upstream(format!(
            "MLflow at {base} answered trace {trace} with something other than JSON: {e}"
        ))
    })?;
    let ours: Vec<&Value> = info["trace"]["trace_info"]["assessments"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let ours: Vec<&Value> = ours
        .into_iter()
        .filter(|x| x["source"]["source_id"] == IDENTIFIER && x["valid"] != Value::Bool(false))
        .collect();
    let (mut created, mut updated, mut unchanged) = (0, 0, 0);
    for a in list {
        let metadata: serde_json::Map<String, Value> = a
            .score
            .map(|x| ("score".to_string(), Value::String(format!("{x}"))))
            .into_iter()
            .collect();
        let rationale = a.explanation.clone().unwrap_or_default();
        let assessment = json!({
            "assessment_name": a.name, "trace_id": trace, "span_id": a.span_id,
            "source": {"source_type": "CODE", "source_id": IDENTIFIER},
            "feedback": {"value": a.label}, "rationale": rationale, "metadata": metadata,
        });
        let same: Vec<&&Value> = ours
            .iter()
            .filter(|x| x["assessment_name"] == a.name && x["span_id"] == a.span_id.as_str())
            .collect();
        for extra in same.iter().skip(1) {
            delete(id_of(extra), "deleting a second copy").await?;
        }
        let create = || {
            call(
                reqwest::Method::POST,
                format!("{api}/{trace}/assessments"),
                Some(json!({ "assessment": assessment })),
            )
        };
        let Some(old) = same.first() else {
            let (status, text) = create().await?;
            if !status.is_success() {
                return Err(refused("an assessment", status, &text));
            }
            created += 1;
            continue;
        };
        let id = id_of(old);
        let old_metadata = old["metadata"].as_object().cloned().unwrap_or_default();
        if old["feedback"]["value"] == a.label.as_str()
            && old["rationale"].as_str().unwrap_or_default() == rationale
            && old_metadata == metadata
        {
            unchanged += 1;
            continue;
        }
        let (status, text) = if old_metadata.keys().all(|k| metadata.contains_key(k)) {
            call(
                reqwest::Method::PATCH,
                format!("{api}/{trace}/assessments/{id}"),
                Some(json!({
                    "assessment": {"assessment_id": id, "trace_id": trace,
                        "feedback": {"value": a.label}, "rationale": rationale, "metadata": metadata},
                    "update_mask": "feedback,rationale,metadata",
                })),
            )
            .await?
        } else {
            delete(id_of(old), "deleting an outdated assessment").await?;
            create().await?
        };
        if !status.is_success() {
            return Err(refused("an update", status, &text));
        }
        updated += 1;
    }
    let mut removed = 0;
    for old in &ours {
        if list
            .iter()
            .any(|a| old["assessment_name"] == a.name && old["span_id"] == a.span_id.as_str())
        {
            continue;
        }
        delete(
            id_of(old),
            "deleting an assessment the labels no longer have",
        )
        .await?;
        removed += 1;
    }
    Ok(Outcome::Done {
        created,
        updated,
        unchanged,
        removed,
    })
}

/// What an OTLP endpoint took.
#[derive(Debug, Default)]
pub struct Exported {
    pub events: usize,
    /// Events the endpoint said it rejected (OTLP partial success).
    pub rejected: i64,
    pub requests: usize,
}

/// Sends each annotation as a `gen_ai.evaluation.result` event (OpenTelemetry GenAI
/// semantic conventions: `gen_ai.evaluation.name`, `.score.value`, `.score.label`,
/// `.explanation`), an OTLP log record parented to the span it judges, protobuf over HTTP
/// to `endpoint` (`/v1/logs` appended unless there: OTEL_EXPORTER_OTLP_ENDPOINT's rule),
/// 500 a request. A request that fails with 429, 502, 503, 504 or no connection is retried
/// three times (0.5, 1, 2 s apart).
pub async fn to_otlp(endpoint: &str, annotations: &[Annotation]) -> Result<Exported> {
    use opentelemetry_proto::tonic::collector::logs::v1::{
        ExportLogsServiceRequest, ExportLogsServiceResponse,
    };
    use opentelemetry_proto::tonic::common::v1::{
        AnyValue, InstrumentationScope, KeyValue, any_value,
    };
    use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
    use opentelemetry_proto::tonic::resource::v1::Resource;
    use prost::Message;

    let url = if endpoint.trim_end_matches('/').ends_with("/v1/logs") {
        endpoint.to_string()
    } else {
        format!("{}/v1/logs", endpoint.trim_end_matches('/'))
    };
    let kv = |k: &str, v: any_value::Value| KeyValue {
        key: k.to_string(),
        value: Some(AnyValue { value: Some(v) }),
        ..Default::default()
    };
    let hex = |s: &str| -> Option<Vec<u8>> {
        s.len()
            .is_multiple_of(2)
            .then(|| {
                (0..s.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
                    .collect::<Option<Vec<u8>>>()
            })
            .flatten()
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let client = http_client()?;
    let mut out = Exported::default();
    for chunk in annotations.chunks(500) {
        let records: Vec<LogRecord> = chunk
            .iter()
            .map(|a| {
                let mut attributes = vec![
                    kv(
                        "gen_ai.evaluation.name",
                        any_value::Value::StringValue(a.name.to_string()),
                    ),
                    kv(
                        "gen_ai.evaluation.score.label",
                        any_value::Value::StringValue(a.label.clone()),
                    ),
                ];
                if let Some(s) = a.score {
                    attributes.push(kv(
                        "gen_ai.evaluation.score.value",
                        any_value::Value::DoubleValue(s),
                    ));
                }
                if let Some(e) = &a.explanation {
                    attributes.push(kv(
                        "gen_ai.evaluation.explanation",
                        any_value::Value::StringValue(e.clone()),
                    ));
                }
                LogRecord {
                    time_unix_nano: now,
                    observed_time_unix_nano: now,
                    // INFO: a result, not a problem.
                    severity_number: 9,
                    event_name: "gen_ai.evaluation.result".to_string(),
                    trace_id: a.trace_id.as_deref().and_then(hex).unwrap_or_default(),
                    span_id: hex(&a.span_id).unwrap_or_default(),
                    attributes,
                    ..Default::default()
                }
            })
            .collect();
        let request = ExportLogsServiceRequest {
            resource_logs: vec![ResourceLogs {
                resource: Some(Resource {
                    attributes: vec![kv(
                        "service.name",
                        any_value::Value::StringValue("groundcheck".into()),
                    )],
                    ..Default::default()
                }),
                scope_logs: vec![ScopeLogs {
                    scope: Some(InstrumentationScope {
                        name: "groundcheck".into(),
                        version: env!("CARGO_PKG_VERSION").into(),
                        ..Default::default()
                    }),
                    log_records: records,
                    ..Default::default()
                }],
                ..Default::default()
            }],
        };
        let body = request.encode_to_vec();
        let mut wait = std::time::Duration::from_millis(500);
        let mut tries = 0;
        let response = loop {
            tries += 1;
            let sent = client
                .post(&url)
                .header("content-type", "application/x-protobuf")
                .body(body.clone())
                .send()
                .await;
            let again = match &sent {
                Ok(r) => [429, 502, 503, 504].contains(&r.status().as_u16()),
                Err(e) => e.is_connect() || e.is_timeout(),
            };
            if !again || tries > 3 {
                break sent.map_err(|e| Error::Upstream(format!("cannot reach {url}: {e}")))?;
            }
            tokio::time::sleep(wait).await;
            wait *= 2;
        };
        let status = response.status();
        let bytes = response.bytes().await.unwrap_or_default();
        if !status.is_success() {
            return Err(Error::Upstream(format!(
                "{url} refused the evaluation events: HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
                    .chars()
                    .take(300)
                    .collect::<String>()
            )));
        }
        out.requests += 1;
        out.events += chunk.len();
        if let Ok(r) = ExportLogsServiceResponse::decode(bytes.as_ref())
            && let Some(p) = r.partial_success
        {
            out.rejected += p.rejected_log_records;
        }
    }
    Ok(out)
}

/// The HTTP client every store is written with: a minute a request.
fn http_client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .map_err(|e| Error::Bug(format!("cannot make an HTTP client: {e}")))
}

/// The ids in Phoenix's 404 ("Spans with IDs a, b do not exist.", "Traces with IDs …").
fn missing_ids(body: &str) -> Vec<String> {
    let detail = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("detail").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| body.to_string());
    detail
        .split(" with IDs ")
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
        assert_eq!(super::missing_ids(body), ["ab12", "cd34"]);
        let body = r#"{"detail":"Traces with IDs 0f1e do not exist."}"#;
        assert_eq!(super::missing_ids(body), ["0f1e"]);
        assert!(super::missing_ids("{\"detail\":\"other\"}").is_empty());
    }
}
