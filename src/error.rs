//! The library's one error type, and its conversions to and from DataFusion's.
//!
//! Errors raised inside a DataFusion stream travel as `DataFusionError::External`; `From`
//! below unwraps them again so that a bad line reads the same wherever it surfaced.

use datafusion::error::DataFusionError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A JSONL line that does not fit its table.
    #[error("{file}:{line}: {}{reason}", field.as_ref().map(|f| format!("field `{f}`: ")).unwrap_or_default())]
    BadLine {
        file: String,
        line: u64,
        field: Option<String>,
        reason: String,
    },
    /// An input that cannot be found, listed or read.
    #[error("{0}")]
    Input(String),
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    DataFusion(Box<DataFusionError>),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn io(path: impl std::fmt::Display, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_string(),
            source,
        }
    }
}

impl From<DataFusionError> for Error {
    fn from(e: DataFusionError) -> Self {
        // DataFusion wraps errors from streams in context layers; find ours inside.
        let mut cur: &DataFusionError = &e;
        loop {
            match cur {
                DataFusionError::External(inner) => {
                    if let Some(ours) = inner.downcast_ref::<Error>() {
                        return clone_ours(ours).unwrap_or_else(|| Error::DataFusion(Box::new(e)));
                    }
                    break;
                }
                DataFusionError::Context(_, inner) | DataFusionError::Diagnostic(_, inner) => {
                    cur = inner
                }
                DataFusionError::Shared(inner) => cur = inner,
                _ => break,
            }
        }
        Error::DataFusion(Box::new(e))
    }
}

/// An error and its causes as one line, `outer: inner`, leaving out a cause whose text
/// the level above already shows (DataFusion's errors repeat their source in their own
/// text, so `{:#}` printed a schema error four times).
pub fn chain_text<'a>(
    chain: impl IntoIterator<Item = &'a (dyn std::error::Error + 'static)>,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    for e in chain {
        let t = e.to_string();
        if parts.last().is_some_and(|p| p.contains(t.trim())) {
            continue;
        }
        parts.push(t);
    }
    parts.join(": ")
}

/// An error text that is a library's debug dump, said as a sentence (None: it is one
/// already). Ballista's client surfaces a refused connection as tonic's
/// (`tonic::transport::Error(Transport, ConnectError("tcp connect error", ADDR, Os {…
/// message: "Connection refused" }))`).
pub fn sentence(text: &str) -> Option<String> {
    // Ballista's scheduler fails a running job whose executors are all gone.
    if let Some(rest) = text.split("all executors were lost").nth(1) {
        let within = rest
            .split("within ")
            .nth(1)
            .and_then(|r| r.split(';').next())
            .unwrap_or("its grace period");
        return Some(format!(
            "the Ballista cluster lost every executor and none registered again within \
             {within} (the scheduler's --no-executor-grace): check that `groundcheck \
             executor` processes run, reach the scheduler and are not stopped"
        ));
    }
    if !text.contains("tonic::transport::Error") {
        return None;
    }
    let addr = text
        .split("tcp connect error\", ")
        .nth(1)
        .and_then(|rest| rest.split([',', ')']).next())
        .unwrap_or("the scheduler");
    let why = text
        .split("message: \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("the connection failed");
    Some(format!(
        "cannot reach the Ballista scheduler at {addr}: {why} (start one with `groundcheck scheduler`, or check --cluster)"
    ))
}

fn clone_ours(e: &Error) -> Option<Error> {
    match e {
        Error::BadLine {
            file,
            line,
            field,
            reason,
        } => Some(Error::BadLine {
            file: file.clone(),
            line: *line,
            field: field.clone(),
            reason: reason.clone(),
        }),
        Error::Input(s) => Some(Error::Input(s.clone())),
        Error::Usage(s) => Some(Error::Usage(s.clone())),
        _ => None,
    }
}

impl From<Error> for DataFusionError {
    fn from(e: Error) -> Self {
        match e {
            Error::DataFusion(inner) => *inner,
            other => DataFusionError::External(Box::new(other)),
        }
    }
}

impl From<arrow::error::ArrowError> for Error {
    fn from(e: arrow::error::ArrowError) -> Self {
        Error::DataFusion(Box::new(e.into()))
    }
}

impl From<parquet::errors::ParquetError> for Error {
    fn from(e: parquet::errors::ParquetError) -> Self {
        Error::DataFusion(Box::new(e.into()))
    }
}

impl From<object_store::Error> for Error {
    fn from(e: object_store::Error) -> Self {
        Error::Input(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_refused_scheduler_is_a_sentence() {
        let dump = r#"Execution error: tonic::transport::Error(Transport, ConnectError(ConnectError("tcp connect error", 127.0.0.1:1, Os { code: 111, kind: ConnectionRefused, message: "Connection refused" })))"#;
        assert_eq!(
            super::sentence(dump).unwrap(),
            "cannot reach the Ballista scheduler at 127.0.0.1:1: Connection refused (start one with `groundcheck scheduler`, or check --cluster)"
        );
        assert_eq!(super::sentence("Execution error: other"), None);
    }

    /// A DataFusion error quotes its source in its own text: the line says it once.
    #[test]
    fn a_cause_the_level_above_quotes_is_said_once() {
        use datafusion::common::{Column, DataFusionError, SchemaError};
        let schema = SchemaError::FieldNotFound {
            field: Box::new(Column::from_name("needs_review")),
            valid_fields: vec![],
        };
        let e = anyhow::Error::new(DataFusionError::Context(
            "planning".into(),
            Box::new(DataFusionError::SchemaError(
                Box::new(schema),
                Box::new(None),
            )),
        ))
        .context("query failed");
        let text = super::chain_text(e.chain());
        assert_eq!(text.matches("needs_review").count(), 1, "{text}");
        assert!(text.starts_with("query failed: "), "{text}");
    }
}
