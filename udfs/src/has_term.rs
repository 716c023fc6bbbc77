//! `has_term(text, term)`: does the text name a business term, as words?
//!
//! Case-insensitive; the term must start and end on word boundaries, so "inactive" does
//! not name "active" and "MRR" is not found in "MRRs2"; a plural ending (`s`, `es`) is
//! allowed ("active customers" names "active customer"); runs of whitespace in either
//! match any whitespace. NULL when either is NULL.

use std::collections::HashMap;
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
    Term::new(term).in_text(&text.to_lowercase())
}

/// A term cut into its lower-case words, once for the many texts it is looked for in.
struct Term {
    words: Vec<String>,
}

impl Term {
    fn new(term: &str) -> Self {
        Self {
            words: term
                .to_lowercase()
                .split_whitespace()
                .map(str::to_string)
                .collect(),
        }
    }

    /// Whether `text`, in lower case, names the term.
    fn in_text(&self, text: &str) -> bool {
        // Each word must be in the text as it is: most pairs of a question and a glossary
        // term end here.
        let Some(first) = self.words.first() else {
            return false;
        };
        if !self.words.iter().all(|w| text.contains(w.as_str())) {
            return false;
        }
        // Every place the first word starts (overlapping ones too), on a word boundary.
        let mut from = 0;
        while let Some(at) = text[from..].find(first.as_str()) {
            let s = from + at;
            if !text[..s].chars().next_back().is_some_and(word) && self.matches_at(text, s) {
                return true;
            }
            from = s + text[s..].chars().next().map_or(1, char::len_utf8);
        }
        false
    }

    /// The words from byte `s` on, whitespace between them, then an optional plural ending
    /// and a boundary.
    fn matches_at(&self, text: &str, s: usize) -> bool {
        let mut i = s;
        for (k, w) in self.words.iter().enumerate() {
            if k > 0 {
                let gap = text[i..]
                    .char_indices()
                    .find(|(_, c)| !c.is_whitespace())
                    .map_or(text.len() - i, |(n, _)| n);
                if gap == 0 {
                    return false;
                }
                i += gap;
            }
            if !text[i..].starts_with(w.as_str()) {
                return false;
            }
            i += w.len();
        }
        ["", "s", "es"].iter().any(|ending| {
            text[i..].starts_with(ending)
                && !text[i + ending.len()..].chars().next().is_some_and(word)
        })
    }
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
        // A join on has_term pairs every text with a few terms: each term is cut into
        // words once per batch, and a text lowered once for the terms that follow it.
        let mut terms: HashMap<&str, Term> = HashMap::new();
        let mut lowered: Option<(&str, String)> = None;
        for i in 0..rows {
            match (text.get(i), term.get(i)) {
                (Some(a), Some(b)) => {
                    if lowered.as_ref().is_none_or(|(t, _)| *t != a) {
                        lowered = Some((a, a.to_lowercase()));
                    }
                    let t = terms.entry(b).or_insert_with(|| Term::new(b));
                    out.append_value(lowered.as_ref().is_some_and(|(_, l)| t.in_text(l)));
                }
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
    use super::{has_term, word};

    /// The matcher before it walked the text in place (a vector of its characters per
    /// row): the two must agree on every pair.
    fn reference(text: &str, term: &str) -> bool {
        let (text, term) = (text.to_lowercase(), term.to_lowercase());
        let parts: Vec<&str> = term.split_whitespace().collect();
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

    #[test]
    fn agrees_with_the_character_walk() {
        let texts = [
            "How many active customers in EMEA?",
            "How many ACTIVE\ncustomers?",
            "inactive customers, then active  customers",
            "aaa customer",
            "the the theme",
            "Ärger über Öl-Preise: ölpreis",
            "ΟΔΟΣ ΟΔΟΣ",
            "open tickets reopen ticketses ticketsx",
            "MRR, MRRs, MRRes MRRx",
            "",
            "customers\u{a0}active",
            "ﬁle files",
        ];
        let terms = [
            "active customer",
            "aa customer",
            "the",
            "theme",
            "öl",
            "οδος",
            "open ticket",
            "ticket",
            "mrr",
            " ",
            "",
            "customers active",
            "file",
            "a",
        ];
        for text in texts {
            for term in terms {
                assert_eq!(
                    has_term(text, term),
                    reference(text, term),
                    "{text:?} / {term:?}"
                );
            }
        }
    }

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
