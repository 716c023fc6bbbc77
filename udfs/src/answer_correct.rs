//! `answer_correct(answer, gold, tolerance)`: is a free-text answer the gold answer?
//!
//! `gold` is JSON text (number, string or array, as `cases.gold.answer` holds it).
//! - number: correct when the answer states a number within `tolerance` (absolute, default
//!   0) of it; numbers are read as people write them (`1,284`, `1284.0`, `-3`), and an
//!   answer that says none / no / zero states 0.
//! - string: correct when the answer contains it, ignoring case.
//! - array: compared as a set: correct when the answer, as a JSON array, has the same
//!   items, or as text, names every item.
//!
//! NULL when the answer or gold is NULL, or when the answer cannot be read against the gold
//! (no number in it for a numeric gold; gold not JSON). Wrong argument types: plan error.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, BooleanBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};
use serde_json::Value;

use crate::common::{Strings, arrays, check_args, doc_section};

crate::make_udf!(AnswerCorrect, answer_correct_udf);

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "Whether a free-text answer states the gold answer (number within tolerance, string, or \
         set of items); NULL when it cannot be read.",
        "answer_correct(answer, gold [, tolerance])",
    )
    .with_argument("answer", "The agent's answer text.")
    .with_argument(
        "gold",
        "The gold answer as JSON text: number, string or array.",
    )
    .with_argument(
        "tolerance",
        "Absolute tolerance for a numeric gold (default 0).",
    )
    .with_sql_example(
        "SELECT answer_correct('We had 1,284 active customers.', '1284', 0);\n-- true",
    )
    .build()
});

/// Numbers as written in prose: `1,284` (comma before three digits groups thousands).
pub fn numbers_in(text: &str) -> Vec<f64> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let neg = b[i] == b'-'
            && i + 1 < b.len()
            && b[i + 1].is_ascii_digit()
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !(b[i].is_ascii_digit() || neg)
            || (i > 0 && (b[i - 1].is_ascii_alphabetic() || b[i - 1] == b'.'))
        {
            i += 1;
            continue;
        }
        let start = i;
        if neg {
            i += 1;
        }
        let mut digits = String::new();
        if neg {
            digits.push('-');
        }
        while i < b.len() {
            if b[i].is_ascii_digit() {
                digits.push(b[i] as char);
                i += 1;
            } else if b[i] == b','
                && i + 3 < b.len() + 1
                && b.get(i + 1..i + 4)
                    .is_some_and(|g| g.iter().all(u8::is_ascii_digit))
                && !b.get(i + 4).is_some_and(u8::is_ascii_digit)
            {
                i += 1;
            } else if b[i] == b'.'
                && b.get(i + 1).is_some_and(u8::is_ascii_digit)
                && !digits.contains('.')
            {
                digits.push('.');
                i += 1;
            } else {
                break;
            }
        }
        if let Ok(n) = digits.parse::<f64>() {
            out.push(n);
        }
        if i == start {
            i += 1;
        }
    }
    out
}

fn says_none(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "no" | "none" | "zero" | "nothing"))
}

fn item_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The verdict for one answer; `None` when it cannot be read.
pub fn correct(answer: &str, gold: &str, tolerance: f64) -> Option<bool> {
    let gold: Value = serde_json::from_str(gold).ok()?;
    match &gold {
        Value::Number(n) => {
            let g = n.as_f64()?;
            let mut found = numbers_in(answer);
            if found.is_empty() && says_none(answer) {
                found.push(0.0);
            }
            if found.is_empty() {
                return None;
            }
            Some(found.iter().any(|x| (x - g).abs() <= tolerance + 1e-9))
        }
        Value::String(s) => Some(answer.to_lowercase().contains(&s.to_lowercase())),
        Value::Array(items) => {
            let want: std::collections::BTreeSet<String> = items.iter().map(item_text).collect();
            if let Ok(Value::Array(got)) = serde_json::from_str::<Value>(answer.trim()) {
                let got: std::collections::BTreeSet<String> = got.iter().map(item_text).collect();
                return Some(got == want);
            }
            let lower = answer.to_lowercase();
            Some(want.iter().all(|w| lower.contains(&w.to_lowercase())))
        }
        _ => None,
    }
}

impl ScalarUDFImpl for AnswerCorrect {
    fn name(&self) -> &str {
        "answer_correct"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(
            self.name(),
            &args[..args.len().min(2)],
            &["string", "string"],
            2,
        )?;
        if let Some(t) = args.get(2)
            && !(t.is_numeric() || *t == DataType::Null)
        {
            return plan_err!("answer_correct: argument 3 must be a number, got {t}");
        }
        if args.len() > 3 {
            return plan_err!("answer_correct takes 2 or 3 arguments, got {}", args.len());
        }
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args.args, rows)?;
        let answer = Strings::new(&arrays[0])?;
        let gold = Strings::new(&arrays[1])?;
        let tolerance = match arrays.get(2) {
            Some(a) => Some(datafusion::arrow::compute::cast(a, &DataType::Float64)?),
            None => None,
        };
        let tol = tolerance.as_ref().map(|t| {
            use datafusion::arrow::array::AsArray;
            t.as_primitive::<datafusion::arrow::datatypes::Float64Type>()
                .clone()
        });
        let mut out = BooleanBuilder::with_capacity(rows);
        for i in 0..rows {
            let t = tol
                .as_ref()
                .and_then(|t| datafusion::arrow::array::Array::is_valid(t, i).then(|| t.value(i)))
                .unwrap_or(0.0);
            match (answer.get(i), gold.get(i)) {
                (Some(a), Some(g)) => out.append_option(correct(a, g, t)),
                _ => out.append_null(),
            }
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_people_write_them() {
        assert_eq!(
            numbers_in("1,284 active customers in Q2 2026"),
            [1284.0, 2026.0]
        );
        assert_eq!(numbers_in("about 12.5% (-3 vs last)"), [12.5, -3.0]);
        assert_eq!(numbers_in("1,2,3"), [1.0, 2.0, 3.0]);
        assert_eq!(numbers_in("D-1007"), [1007.0]);
        assert!(numbers_in("none").is_empty());
    }

    #[test]
    fn verdicts() {
        assert_eq!(correct("1,284", "1284", 0.0), Some(true));
        assert_eq!(correct("We had 1,290.", "1284", 5.0), Some(false));
        assert_eq!(correct("We had 1,288.", "1284", 5.0), Some(true));
        assert_eq!(correct("Acme has no open tickets.", "7", 0.0), Some(false));
        assert_eq!(correct("I could not tell.", "7", 0.0), None);
        assert_eq!(correct("The region is emea", "\"EMEA\"", 0.0), Some(true));
        assert_eq!(
            correct("D-1012 and D-1007", "[\"D-1007\",\"D-1012\"]", 0.0),
            Some(true)
        );
        assert_eq!(
            correct("Only D-1007", "[\"D-1007\",\"D-1012\"]", 0.0),
            Some(false)
        );
        assert_eq!(
            correct("[\"D-1012\",\"D-1007\"]", "[\"D-1007\",\"D-1012\"]", 0.0),
            Some(true)
        );
        assert_eq!(correct("x", "not json", 0.0), None);
    }
}
