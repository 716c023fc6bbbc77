//! Marking the fields a call used in its SQL or arguments, for the trace panels: the SQL
//! is cut by sqlparser's tokenizer (DataFusion's version), and each identifier that names
//! a used field's column gets that field's class. The text is kept byte for byte; the
//! template escapes it.

use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::tokenizer::{Token, Tokenizer};
use serde::Serialize;

/// How a used field stands against the gold record, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    Forbidden,
    Required,
    Used,
}

impl Mark {
    /// A field's mark: forbidden wins over required (a gold record should not list one
    /// field as both, but if it does, the warning shows).
    pub fn of(field: &str, required: &[String], forbidden: &[String]) -> Self {
        if forbidden.iter().any(|f| f.eq_ignore_ascii_case(field)) {
            Mark::Forbidden
        } else if required.iter().any(|f| f.eq_ignore_ascii_case(field)) {
            Mark::Required
        } else {
            Mark::Used
        }
    }
}

/// A piece of text, marked or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Piece {
    pub text: String,
    pub mark: Option<Mark>,
    /// The field the mark is for (`table.column`), shown on hover.
    pub field: Option<String>,
}

fn plain(text: &str) -> Piece {
    Piece {
        text: text.to_string(),
        mark: None,
        field: None,
    }
}

/// `sql` cut into pieces, each identifier whose name is the column of a field in
/// `fields` (`table.column` or `schema.table.column`) marked with that field's mark (the
/// strongest, when a column name belongs to several used fields). SQL the tokenizer
/// refuses comes back as one unmarked piece.
pub fn sql(sql: &str, fields: &[(String, Mark)]) -> Vec<Piece> {
    let dialect = GenericDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize_with_location() else {
        return vec![plain(sql)];
    };
    // Char offsets of each line's start, to turn (line, column) into a position.
    let chars: Vec<char> = sql.chars().collect();
    let mut line_starts = vec![0usize];
    for (i, c) in chars.iter().enumerate() {
        if *c == '\n' {
            line_starts.push(i + 1);
        }
    }
    let at = |line: u64, col: u64| -> Option<usize> {
        let start = *line_starts.get((line as usize).checked_sub(1)?)?;
        Some((start + (col as usize).saturating_sub(1)).min(chars.len()))
    };
    let mut out: Vec<Piece> = Vec::new();
    let mut done = 0usize;
    for t in &tokens {
        let Token::Word(w) = &t.token else { continue };
        let Some(mark) = mark_for(&w.value, fields) else {
            continue;
        };
        let (Some(a), Some(b)) = (
            at(t.span.start.line, t.span.start.column),
            at(t.span.end.line, t.span.end.column),
        ) else {
            continue;
        };
        if a < done || b <= a {
            continue;
        }
        if a > done {
            out.push(plain(&chars[done..a].iter().collect::<String>()));
        }
        out.push(Piece {
            text: chars[a..b].iter().collect(),
            mark: Some(mark.0),
            field: Some(mark.1),
        });
        done = b;
    }
    if done < chars.len() {
        out.push(plain(&chars[done..].iter().collect::<String>()));
    }
    out
}

fn mark_for(word: &str, fields: &[(String, Mark)]) -> Option<(Mark, String)> {
    fields
        .iter()
        .filter(|(f, _)| {
            f.rsplit('.')
                .next()
                .is_some_and(|col| col.eq_ignore_ascii_case(word))
        })
        .min_by_key(|(_, m)| *m)
        .map(|(f, m)| (*m, f.clone()))
}

/// A call's arguments (JSON text) as `name: value` lines, each argument named by a used
/// field `tool.argument` marked. Arguments that are not a JSON object come back as they
/// are.
pub fn arguments(tool: &str, args: &str, fields: &[(String, Mark)]) -> Vec<Piece> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(args) else {
        return vec![plain(args)];
    };
    let mut out = Vec::new();
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push(plain("\n"));
        }
        let field = format!("{tool}.{k}");
        let mark = fields
            .iter()
            .filter(|(f, _)| f.eq_ignore_ascii_case(&field))
            .map(|(_, m)| *m)
            .min();
        out.push(Piece {
            text: k.clone(),
            mark,
            field: mark.map(|_| field.clone()),
        });
        let value = match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out.push(plain(&format!(": {value}")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(p: &[Piece]) -> Vec<(String, Mark)> {
        p.iter()
            .filter_map(|p| p.mark.map(|m| (p.text.clone(), m)))
            .collect()
    }

    #[test]
    fn marks_columns_by_their_field_and_keeps_the_text() {
        let q = "SELECT COUNT(*)\nFROM customers c\nWHERE c.is_active = true AND c.\"Region_Code\" LIKE 'EU%'";
        let fields = vec![
            ("customers.is_active".to_string(), Mark::Forbidden),
            ("customers.region_code".to_string(), Mark::Used),
            ("customers.customer_id".to_string(), Mark::Required),
        ];
        let p = sql(q, &fields);
        assert_eq!(p.iter().map(|p| p.text.as_str()).collect::<String>(), q);
        assert_eq!(
            marked(&p),
            vec![
                ("is_active".to_string(), Mark::Forbidden),
                ("\"Region_Code\"".to_string(), Mark::Used),
            ]
        );
        // A string literal that spells a column is not an identifier.
        let p = sql("SELECT 'is_active' FROM t", &fields);
        assert!(marked(&p).is_empty());
    }

    #[test]
    fn the_strongest_mark_wins_and_non_ascii_text_keeps_its_place() {
        let fields = vec![
            ("orders.customer_id".to_string(), Mark::Used),
            ("customers.customer_id".to_string(), Mark::Required),
        ];
        let q = "SELECT 'año', customer_id FROM orders";
        let p = sql(q, &fields);
        assert_eq!(p.iter().map(|p| p.text.as_str()).collect::<String>(), q);
        assert_eq!(
            marked(&p),
            vec![("customer_id".to_string(), Mark::Required)]
        );
        // Unterminated: the tokenizer refuses it, the text stays.
        assert_eq!(sql("SELECT 'x", &fields), vec![plain("SELECT 'x")]);
    }

    #[test]
    fn arguments_mark_their_names() {
        let fields = vec![("active_customer_count.region".to_string(), Mark::Required)];
        let p = arguments(
            "active_customer_count",
            r#"{"period":"2026-Q2","region":"EMEA"}"#,
            &fields,
        );
        assert_eq!(marked(&p), vec![("region".to_string(), Mark::Required)]);
        assert_eq!(
            p.iter().map(|p| p.text.as_str()).collect::<String>(),
            "period: 2026-Q2\nregion: EMEA"
        );
        assert_eq!(arguments("t", "[1]", &fields), vec![plain("[1]")]);
    }
}
