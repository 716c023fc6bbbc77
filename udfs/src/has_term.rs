//! `has_term(text, term)`: does the text name a business term, as words?
//!
//! Case-insensitive; the term must start and end on word boundaries, so "inactive" does
//! not name "active" and "MRR" is not found in "MRRs2"; a plural ending (`s`, `es`) is
//! allowed ("active customers" names "active customer"); runs of whitespace in either
//! match any whitespace. NULL when either is NULL.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, BooleanBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};

use crate::common::{Strings, arrays, check_args, doc_section};

crate::make_udf!(HasTerm, has_term_udf);

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "Whether a text names a term as words: case-insensitive, on word boundaries, a plural ending allowed.",
        "has_term(text, term)",
    )
    .with_argument("text", "The text, e.g. a case's question.")
    .with_argument("term", "The term, e.g. a glossary term.")
    .with_sql_example("SELECT has_term('How many inactive customers?', 'active customer');\n-- false")
    .build()
});

fn word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `text` names `term` (see the module comment).
pub fn has_term(text: &str, term: &str) -> bool {
    let (text, term) = (text.to_lowercase(), term.to_lowercase());
    let parts: Vec<&str> = term.split_whitespace().collect();
    // Each word must be in the text as it is: most pairs of a question and a glossary
    // term end here, before the text is cut into characters.
    if parts.is_empty() || !parts.iter().all(|p| text.contains(p)) {
        return false;
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|c| c.1);
    'start: for s in 0..chars.len() {
        if s > 0 && at(s - 1).is_some_and(word) {
            continue;
        }
        let mut i = s;
        for (k, part) in parts.iter().enumerate() {
            if k > 0 {
                // Whitespace between the words, at least one.
                let before = i;
                while at(i).is_some_and(char::is_whitespace) {
                    i += 1;
                }
                if i == before {
                    continue 'start;
                }
            }
            for pc in part.chars() {
                if at(i) != Some(pc) {
                    continue 'start;
                }
                i += 1;
            }
        }
        // An optional plural ending, then a boundary.
        for ending in ["", "s", "es"] {
            let mut j = i;
            let mut ok = true;
            for ec in ending.chars() {
                if at(j) == Some(ec) {
                    j += 1;
                } else {
                    ok = false;
                    break;
                }
            }
            if ok && !at(j).is_some_and(word) {
                return true;
            }
        }
    }
    false
}

impl ScalarUDFImpl for HasTerm {
    fn name(&self) -> &str {
        "has_term"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(self.name(), args, &["string", "string"], 2)?;
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args.args, rows)?;
        let (text, term) = (Strings::new(&arrays[0])?, Strings::new(&arrays[1])?);
        let mut out = BooleanBuilder::with_capacity(rows);
        for i in 0..rows {
            match (text.get(i), term.get(i)) {
                (Some(a), Some(b)) => out.append_value(has_term(a, b)),
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
    use super::has_term;

    #[test]
    fn words_not_substrings() {
        assert!(has_term(
            "How many active customers in EMEA?",
            "active customer"
        ));
        assert!(has_term("How many ACTIVE\ncustomers?", "active customer"));
        assert!(!has_term("How many inactive customers?", "active customer"));
        assert!(!has_term(
            "How many reactivated customers?",
            "active customer"
        ));
        assert!(has_term("MRR on July 1?", "MRR"));
        assert!(!has_term("MRRX on July 1?", "MRR"));
        assert!(has_term("open tickets for acme", "open ticket"));
        assert!(!has_term("reopen tickets", "open ticket"));
        assert!(has_term("the pipeline", "pipeline"));
        assert!(!has_term("", "pipeline"));
        assert!(!has_term("anything", " "));
    }
}
