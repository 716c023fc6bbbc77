//! The library's one error type, its kinds, and its conversions to and from DataFusion's.
//!
//! Every error says what kind it is ([`Kind`]), and the exit code follows from the kind:
//! a CI job can tell "fix your input" (2) from "the server was down, retry" (3) from "a
//! bug in groundcheck" (4). Errors raised inside a DataFusion stream travel as
//! `DataFusionError::External`; `From` below unwraps them again so that a bad line reads
//! the same wherever it surfaced.

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
    /// An input that cannot be found, listed or read, or that holds nothing to work on.
    #[error("{0}")]
    Input(String),
    /// Flags, a configuration file or a user's SQL that ask for something impossible.
    #[error("{0}")]
    Config(String),
    /// A server, trace store or cluster that could not be reached, failed to start or
    /// refused: retrying may help.
    #[error("{0}")]
    Upstream(String),
    /// Something groundcheck got wrong itself: one of its own queries failed to plan, an
    /// invariant broke.
    #[error("{0}")]
    Bug(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    DataFusion(Box<DataFusionError>),
}

/// What kind of error it is: who can fix it, and so the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The files given: exit 2.
    Input,
    /// The flags, a configuration file or the user's SQL: exit 2.
    Config,
    /// A server, trace store or cluster: exit 3.
    Upstream,
    /// groundcheck itself: exit 4.
    Bug,
}

impl Kind {
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::Input | Kind::Config => 2,
            Kind::Upstream => 3,
            Kind::Bug => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Input => "input",
            Kind::Config => "config",
            Kind::Upstream => "upstream",
            Kind::Bug => "bug",
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn kind(&self) -> Kind {
        match self {
            Error::BadLine { .. } | Error::Input(_) | Error::Io { .. } => Kind::Input,
            Error::Config(_) => Kind::Config,
            Error::Upstream(_) => Kind::Upstream,
            Error::Bug(_) => Kind::Bug,
            Error::DataFusion(e) => datafusion_kind(e),
        }
    }

    pub fn io(path: impl std::fmt::Display, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_string(),
            source,
        }
    }
}

/// DataFusion's own failures: an internal error is a bug, and so is a plan that does not
/// build (every query it plans is one of ours: a user's SQL is turned into `Config` where
/// `sql` runs it); memory is the flags' to raise; the rest is data that did not read.
fn datafusion_kind(e: &DataFusionError) -> Kind {
    match e {
        DataFusionError::Internal(_)
        | DataFusionError::Plan(_)
        | DataFusionError::SchemaError(..)
        | DataFusionError::SQL(..) => Kind::Bug,
        DataFusionError::ResourcesExhausted(_) => Kind::Config,
        DataFusionError::Context(_, inner) | DataFusionError::Diagnostic(_, inner) => {
            datafusion_kind(inner)
        }
        DataFusionError::Shared(inner) => datafusion_kind(inner),
        DataFusionError::External(inner) => match inner.downcast_ref::<Error>() {
            Some(ours) => ours.kind(),
            None => Kind::Input,
        },
        _ => Kind::Input,
    }
}

/// The kind of the first of our errors in an error's chain (Input when there is none:
/// the CLI's own refusals are about what it was given).
pub fn kind_of<'a>(chain: impl IntoIterator<Item = &'a (dyn std::error::Error + 'static)>) -> Kind {
    for e in chain {
        if let Some(ours) = e.downcast_ref::<Error>() {
            return ours.kind();
        }
        if let Some(df) = e.downcast_ref::<DataFusionError>() {
            return datafusion_kind(df);
        }
    }
    Kind::Input
}

/// An error from planning SQL a user wrote (`groundcheck sql`): a plan that does not
/// build is theirs to fix (Config), not a bug; the text stays DataFusion's.
pub fn in_user_sql(e: DataFusionError) -> Error {
    let mut cur = &e;
    while let DataFusionError::Context(_, inner) | DataFusionError::Diagnostic(_, inner) = cur {
        cur = inner;
    }
    match cur {
        DataFusionError::Plan(_)
        | DataFusionError::SchemaError(..)
        | DataFusionError::SQL(..)
        | DataFusionError::NotImplemented(_) => Error::Config(e.to_string()),
        _ => Error::from(e),
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
        Error::Config(s) => Some(Error::Config(s.clone())),
        Error::Upstream(s) => Some(Error::Upstream(s.clone())),
        Error::Bug(s) => Some(Error::Bug(s.clone())),
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
        Error::store(String::new(), e)
    }
}

impl Error {
    /// An object store's error under `context` (`cannot write URL`): a missing object, a
    /// refused credential or a bad path is the input's; the rest (the connection, the
    /// service) is upstream's.
    pub fn store(context: impl std::fmt::Display, e: object_store::Error) -> Self {
        use object_store::Error as S;
        let context = context.to_string();
        let text = if context.is_empty() {
            e.to_string()
        } else {
            format!("{context}: {e}")
        };
        match e {
            S::NotFound { .. }
            | S::InvalidPath { .. }
            | S::PermissionDenied { .. }
            | S::Unauthenticated { .. }
            | S::AlreadyExists { .. }
            | S::Precondition { .. }
            | S::NotSupported { .. }
            | S::NotImplemented { .. }
            | S::UnknownConfigurationKey { .. } => Error::Input(text),
            _ => Error::Upstream(text),
        }
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

    /// The exit code follows from the kind; a plan of ours that fails is a bug, the same
    /// failure in a user's SQL is theirs, and our errors keep their kind through a stream.
    #[test]
    fn kinds_and_their_exit_codes() {
        use super::{Error, Kind, in_user_sql, kind_of};
        use datafusion::error::DataFusionError;
        let plan = || DataFusionError::Plan("no column x".into());
        assert_eq!(Error::from(plan()).kind(), Kind::Bug);
        assert_eq!(in_user_sql(plan()).kind(), Kind::Config);
        let wrapped = DataFusionError::Context("query".into(), Box::new(plan()));
        assert_eq!(in_user_sql(wrapped).kind(), Kind::Config);
        let execution = DataFusionError::Execution("divide by zero".into());
        assert_eq!(in_user_sql(execution).kind(), Kind::Input);
        let memory = DataFusionError::ResourcesExhausted("pool".into());
        assert_eq!(Error::from(memory).kind(), Kind::Config);
        let streamed = DataFusionError::External(Box::new(Error::Upstream("down".into())));
        assert!(matches!(Error::from(streamed), Error::Upstream(_)));
        let e =
            anyhow::Error::new(Error::Upstream("MLflow at X refused".into())).context("annotate");
        assert_eq!(kind_of(e.chain()), Kind::Upstream);
        let plain = anyhow::anyhow!("a flag the CLI refused");
        assert_eq!(kind_of(plain.chain()), Kind::Input);
        let codes: Vec<u8> = [Kind::Input, Kind::Config, Kind::Upstream, Kind::Bug]
            .iter()
            .map(|k| k.exit_code())
            .collect();
        assert_eq!(codes, [2, 2, 3, 4]);
        let gone = object_store::Error::NotFound {
            path: "a".into(),
            source: "no".into(),
        };
        assert_eq!(Error::store("cannot read a", gone).kind(), Kind::Input);
        let cut = object_store::Error::Generic {
            store: "S3",
            source: "connection reset".into(),
        };
        assert_eq!(Error::store("cannot write a", cut).kind(), Kind::Upstream);
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
