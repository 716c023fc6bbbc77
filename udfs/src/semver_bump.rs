//! `semver_bump(old_version, new_version)` and `semver_allows(range, version)`: declared
//! versions read as semantic versions (a leading `v` is allowed), for the drift reports.
//!
//! `semver_bump` gives 'major', 'minor', 'patch', 'none' or 'backwards' (0.y.z follows
//! Cargo: y is the breaking position); NULL when either is NULL or not a version.
//! `semver_allows` says whether a client pinned to `range` ('^2.0.0') may call
//! `version`; NULL when either is NULL or unreadable. `semver_needed(severity)` is the bump
//! one change of that severity needs (seed 002): 'major' for breaking and likely-breaking,
//! else 'minor'; NULL for NULL or a word that is no severity.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, BooleanBuilder, StringBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use crate::changes::{Severity, semver};
use crate::common::{Strings, arrays, check_args, doc_section};

#[derive(Debug, PartialEq, Eq, Hash, Clone, Copy)]
enum Kind {
    Bump,
    Allows,
    Needed,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Semver {
    signature: Signature,
    kind: Kind,
}

impl Semver {
    fn of(kind: Kind) -> Self {
        Self {
            signature: Signature::variadic_any(Volatility::Immutable),
            kind,
        }
    }

    pub fn bump() -> Self {
        Self::of(Kind::Bump)
    }

    pub fn allows() -> Self {
        Self::of(Kind::Allows)
    }

    pub fn needed() -> Self {
        Self::of(Kind::Needed)
    }
}

static BUMP_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "The bump between two declared versions: major, minor, patch, none or backwards.",
        "semver_bump(old_version, new_version)",
    )
    .with_argument("old_version", "The version before, e.g. '2.1.0'.")
    .with_argument("new_version", "The version after.")
    .with_sql_example("SELECT semver_bump('2.1.0', '3.0.0');\n-- major")
    .build()
});

static ALLOWS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "Whether a client pinned to a version range may call a version.",
        "semver_allows(range, version)",
    )
    .with_argument("range", "A Cargo-style range, e.g. '^2.0.0'.")
    .with_argument("version", "The server's declared version.")
    .with_sql_example("SELECT semver_allows('^2.0.0', '3.0.0');\n-- false")
    .build()
});

static NEEDED_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "The version bump one change of this severity needs: major for breaking and \
         likely-breaking, else minor (a tool's changes need the largest).",
        "semver_needed(severity)",
    )
    .with_argument(
        "severity",
        "A change's severity (the changes view's severity).",
    )
    .with_sql_example("SELECT semver_needed('likely-breaking');\n-- major")
    .build()
});

impl ScalarUDFImpl for Semver {
    fn name(&self) -> &str {
        match self.kind {
            Kind::Bump => "semver_bump",
            Kind::Allows => "semver_allows",
            Kind::Needed => "semver_needed",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        if self.kind == Kind::Needed {
            check_args(self.name(), args, &["string"], 1)?;
            return Ok(DataType::Utf8);
        }
        check_args(self.name(), args, &["string", "string"], 2)?;
        Ok(if self.kind == Kind::Allows {
            DataType::Boolean
        } else {
            DataType::Utf8
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args.args, rows)?;
        if self.kind == Kind::Needed {
            let severity = Strings::new(&arrays[0])?;
            let mut out = StringBuilder::new();
            for i in 0..rows {
                out.append_option(
                    severity
                        .get(i)
                        .and_then(Severity::parse)
                        .map(|s| semver::needed_for(s).as_str()),
                );
            }
            return Ok(ColumnarValue::Array(Arc::new(out.finish())));
        }
        let (a, b) = (Strings::new(&arrays[0])?, Strings::new(&arrays[1])?);
        let out: ArrayRef = if self.kind == Kind::Allows {
            let mut out = BooleanBuilder::with_capacity(rows);
            for i in 0..rows {
                out.append_option(match (a.get(i), b.get(i)) {
                    (Some(r), Some(v)) => semver::allows(r, v).ok(),
                    _ => None,
                });
            }
            Arc::new(out.finish())
        } else {
            let mut out = StringBuilder::new();
            for i in 0..rows {
                let bump = match (a.get(i).map(semver::parse), b.get(i).map(semver::parse)) {
                    (Some(Ok(o)), Some(Ok(n))) => Some(match semver::declared(&o, &n) {
                        Ok(b) => b.as_str(),
                        Err(_) => "backwards",
                    }),
                    _ => None,
                };
                out.append_option(bump);
            }
            Arc::new(out.finish())
        };
        Ok(ColumnarValue::Array(out))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(match self.kind {
            Kind::Bump => &BUMP_DOC,
            Kind::Allows => &ALLOWS_DOC,
            Kind::Needed => &NEEDED_DOC,
        })
    }
}
