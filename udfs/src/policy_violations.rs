//! `policy_violations(result, row_filter, allowed_columns, masked_columns)`: the policy
//! oracle, run on a tool result after the fact.
//!
//! The result is JSON text in one of the shapes tools return, read by `rows`: an array of
//! objects; an object holding such an array under `rows`, `items`, `results`, `data` or
//! `records` (or `rows` as arrays with `columns` naming them), or as its only array of
//! objects under another key (`{"deals": [...], "next_cursor": null}`), also one wrapper
//! down (`{"result": {"deals": [...]}}`); or one object (one row). The policy comes from the
//! `policies` table: `row_filter` is a SQL boolean expression over result fields
//! (`sales_region = 'EMEA'`), `allowed_columns` the columns the user may see (NULL: all),
//! `masked_columns` those that must come back masked (NULL, a partial mask such as
//! `a***@x.com` or `****1234`, or a value of only `*`, `x`, `#` or `•`). Column names
//! compare by their last part, without case.
//!
//! Returns `{violations, unsure}`: one sentence per violation (empty: none), and one per
//! check that could not be made (a filter on a field the result does not carry, a filter
//! we cannot evaluate). NULL when the result is NULL or not JSON.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{ArrayRef, ListBuilder, StringBuilder, StructBuilder};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::Result;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};
use datafusion::sql::sqlparser::ast::Ident;
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;
use serde_json::{Map, Value};

use crate::common::{Memo, Strings, arrays, check_args, doc_section, list_strings};
use crate::sql::normal::{Atom, Lit, conjuncts, to_atom};

crate::make_udf!(PolicyViolations, policy_violations_udf);

fn item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Utf8, true))
}

fn out_fields() -> Fields {
    Fields::from(vec![
        Field::new("violations", DataType::List(item()), true),
        Field::new("unsure", DataType::List(item()), true),
    ])
}

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "The policy oracle: rows outside the user's row filter, columns not allowed, and masked \
         columns returned unmasked, in a tool result.",
        "policy_violations(result, row_filter, allowed_columns, masked_columns)",
    )
    .with_argument("result", "The tool result, JSON text.")
    .with_argument("row_filter", "SQL boolean expression over result fields; NULL: every row allowed.")
    .with_argument("allowed_columns", "Columns the user may see; NULL: all.")
    .with_argument("masked_columns", "Columns that must come back masked; NULL: none.")
    .with_sql_example(
        "SELECT policy_violations('[{\"deal\":\"D-1\",\"sales_region\":\"AMER\"}]', 'sales_region = ''EMEA''', NULL, NULL);\n\
         -- {violations: [1 of 1 rows outside the row filter sales_region = 'EMEA'], unsure: []}",
    )
    .build()
});

/// The rows of a result, each an object: the one rule for where rows sit (the policy
/// check and the oracle's input use it). A top-level array; `columns` + `rows`; an array
/// under `rows`, `items`, `results`, `data` or `records`; else the only array of objects
/// under any other key (`{"deals": [...], "next_cursor": null}`); each of these also one
/// wrapper object down (`{"data": {"items": [...]}}`, `{"result": {"deals": [...]}}`).
/// Anything else is one row.
pub fn rows(result: &Value) -> Vec<Map<String, Value>> {
    match result {
        Value::Array(items) => as_objects(items, None),
        Value::Object(o) => named_rows(o)
            .or_else(|| {
                // One wrapper down: the only object value that holds rows.
                let inner: Vec<&Map<String, Value>> =
                    o.values().filter_map(Value::as_object).collect();
                match inner.as_slice() {
                    [one] => named_rows(one),
                    _ => None,
                }
            })
            .unwrap_or_else(|| vec![o.clone()]),
        _ => Vec::new(),
    }
}

fn as_objects(items: &[Value], columns: Option<&Vec<Value>>) -> Vec<Map<String, Value>> {
    items
        .iter()
        .filter_map(|r| match (r, columns) {
            (Value::Object(o), _) => Some(o.clone()),
            (Value::Array(cells), Some(cols)) => Some(
                cols.iter()
                    .zip(cells)
                    .map(|(c, v)| (c.as_str().unwrap_or_default().to_string(), v.clone()))
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

/// Rows held by an object itself: under a known key, or the only array of objects.
fn named_rows(o: &Map<String, Value>) -> Option<Vec<Map<String, Value>>> {
    for key in ["rows", "items", "results", "data", "records"] {
        if let Some(Value::Array(items)) = o.get(key) {
            let cols = match o.get("columns") {
                Some(Value::Array(c)) => Some(c),
                _ => None,
            };
            return Some(as_objects(items, cols));
        }
    }
    let arrays: Vec<&Vec<Value>> = o
        .values()
        .filter_map(Value::as_array)
        .filter(|a| !a.is_empty() && a.iter().all(Value::is_object))
        .collect();
    match arrays.as_slice() {
        [one] => Some(as_objects(one, None)),
        _ => None,
    }
}

fn last_part(name: &str) -> String {
    name.rsplit('.').next().unwrap_or(name).to_lowercase()
}

/// A masked value: NULL; only mask characters (`****`, `xxxx`, `####`, `••••`); or a
/// partial mask, a run of three or more `*` or `•` inside the value (`a***@x.com`,
/// `****1234`, `12••••••34`).
fn looks_masked(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => {
            let full = !s.is_empty() && s.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '#' | '•'));
            let mut run = 0;
            let partial = s.chars().any(|c| {
                run = if matches!(c, '*' | '•') { run + 1 } else { 0 };
                run >= 3
            });
            full || partial
        }
        _ => false,
    }
}

fn lit_of(v: &Value) -> Option<Lit> {
    match v {
        Value::String(s) => Some(Lit::Str(s.clone())),
        Value::Number(n) => Some(Lit::Num(format!("{}", n.as_f64()?))),
        Value::Bool(b) => Some(Lit::Bool(*b)),
        _ => None,
    }
}

/// Whether a row passes an atom; None when it cannot be told.
fn passes(atom: &Atom, row: &Map<String, Value>) -> Option<bool> {
    let get = |col: &str| {
        row.iter()
            .find(|(k, _)| last_part(k) == last_part(col))
            .map(|(_, v)| v)
    };
    match atom {
        Atom::In {
            col,
            values,
            negated,
        } => {
            let v = get(col)?;
            if v.is_null() {
                return Some(false);
            }
            let l = lit_of(v)?;
            let hit = values.iter().any(|x| x == &l || matches!((x, &l), (Lit::Num(a), Lit::Num(b)) if a.parse::<f64>().ok() == b.parse::<f64>().ok()));
            Some(hit != *negated)
        }
        Atom::Null { col, negated } => Some(get(col)?.is_null() != *negated),
        Atom::Range { col, lo, hi } => {
            let l = lit_of(get(col)?)?;
            let ok = |b: &Option<(Lit, bool)>, lower: bool| -> Option<bool> {
                let Some((v, incl)) = b else {
                    return Some(true);
                };
                let ord = match (&l, v) {
                    (Lit::Num(a), Lit::Num(b)) => a
                        .parse::<f64>()
                        .ok()?
                        .partial_cmp(&b.parse::<f64>().ok()?)?,
                    (Lit::Str(a), Lit::Str(b)) => a.cmp(b),
                    _ => return None,
                };
                Some(match ord {
                    std::cmp::Ordering::Equal => *incl,
                    std::cmp::Ordering::Greater => lower,
                    std::cmp::Ordering::Less => !lower,
                })
            };
            Some(ok(lo, true)? && ok(hi, false)?)
        }
        Atom::Or(parts) => {
            let mut unknown = false;
            for p in parts {
                match passes(p, row) {
                    Some(true) => return Some(true),
                    None => unknown = true,
                    _ => {}
                }
            }
            if unknown { None } else { Some(false) }
        }
        Atom::Other { .. } => None,
    }
}

/// A row filter's conjuncts as atoms over bare column names, or why it does not parse.
type FilterAtoms = Arc<std::result::Result<Vec<Atom>, String>>;

/// Row filters parsed: a deployment has a few (one per user or role), asked of every call.
static FILTERS: LazyLock<Memo<String, FilterAtoms>> = LazyLock::new(|| Memo::new(1024));

fn filter_atoms(filter: &str) -> FilterAtoms {
    FILTERS.get_or(filter, || {
        Arc::new(
            Parser::new(&GenericDialect {})
                .try_with_sql(filter)
                .and_then(|mut p| p.parse_expr())
                .map(|expr| {
                    conjuncts(&expr)
                        .into_iter()
                        .map(|c| {
                            to_atom(c, &mut |parts: &[Ident]| {
                                parts.last().map(|p| p.value.clone())
                            })
                        })
                        .collect()
                })
                .map_err(|e| e.to_string()),
        )
    })
}

/// The violations in one result.
pub fn violations(
    result: &Value,
    row_filter: Option<&str>,
    allowed: Option<&[String]>,
    masked: &[String],
) -> Vec<String> {
    let rows = rows(result);
    let mut out = Vec::new();
    if let Some(filter) = row_filter.filter(|f| !f.trim().is_empty()) {
        match filter_atoms(filter).as_ref() {
            Err(e) => out.push(format!("unsure: cannot parse the row filter: {e}")),
            Ok(atoms) => {
                let (mut outside, mut unknown) = (0, 0);
                for row in &rows {
                    let verdicts: Vec<Option<bool>> =
                        atoms.iter().map(|a| passes(a, row)).collect();
                    if verdicts.contains(&Some(false)) {
                        outside += 1;
                    } else if verdicts.contains(&None) {
                        unknown += 1;
                    }
                }
                if outside > 0 {
                    out.push(format!(
                        "{outside} of {} rows outside the row filter {filter}",
                        rows.len()
                    ));
                }
                if unknown > 0 {
                    out.push(format!(
                        "unsure: {unknown} of {} rows cannot be checked against {filter}",
                        rows.len()
                    ));
                }
            }
        }
    }
    let mut columns: Vec<String> = rows.iter().flat_map(|r| r.keys().cloned()).collect();
    columns.sort();
    columns.dedup();
    if let Some(allowed) = allowed {
        let allowed: Vec<String> = allowed.iter().map(|a| last_part(a)).collect();
        for c in &columns {
            if !allowed.contains(&last_part(c)) {
                out.push(format!("column {c} is not allowed"));
            }
        }
    }
    for m in masked {
        for c in columns.iter().filter(|c| last_part(c) == last_part(m)) {
            if rows
                .iter()
                .any(|r| r.get(c).is_some_and(|v| !looks_masked(v)))
            {
                out.push(format!("column {c} returned unmasked"));
            }
        }
    }
    out
}

impl ScalarUDFImpl for PolicyViolations {
    fn name(&self) -> &str {
        "policy_violations"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(
            self.name(),
            args,
            &["string", "string", "string list", "string list"],
            4,
        )?;
        Ok(DataType::Struct(out_fields()))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args.args, rows)?;
        let result = Strings::new(&arrays[0])?;
        let filter = Strings::new(&arrays[1])?;
        let mut out = StructBuilder::new(
            out_fields(),
            vec![
                Box::new(ListBuilder::new(StringBuilder::new()).with_field(item())),
                Box::new(ListBuilder::new(StringBuilder::new()).with_field(item())),
            ],
        );
        for i in 0..rows {
            let value = result
                .get(i)
                .and_then(|r| serde_json::from_str::<Value>(r).ok());
            let found = match &value {
                Some(v) => {
                    let allowed = list_strings(&arrays[2], i)?;
                    let masked = list_strings(&arrays[3], i)?.unwrap_or_default();
                    Some(violations(v, filter.get(i), allowed.as_deref(), &masked))
                }
                None => None,
            };
            for k in 0..2 {
                let b = out
                    .field_builder::<ListBuilder<StringBuilder>>(k)
                    .expect("list");
                match &found {
                    Some(all) => {
                        for x in all.iter().filter(|x| x.starts_with("unsure: ") == (k == 1)) {
                            b.values()
                                .append_value(x.strip_prefix("unsure: ").unwrap_or(x));
                        }
                        b.append(true);
                    }
                    None => b.append(false),
                }
            }
            out.append(found.is_some());
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

    fn v(
        result: &str,
        filter: Option<&str>,
        allowed: Option<&[String]>,
        masked: &[&str],
    ) -> Vec<String> {
        let masked: Vec<String> = masked.iter().map(|s| s.to_string()).collect();
        violations(
            &serde_json::from_str(result).unwrap(),
            filter,
            allowed,
            &masked,
        )
    }

    /// Issue #50: rows under a named key or one wrapper down are rows; partial masks mask.
    #[test]
    fn rows_wherever_they_sit_and_partial_masks() {
        for r in [
            r#"{"deals": [{"sales_region": "EMEA"}, {"sales_region": "APAC"}], "next_cursor": null}"#,
            r#"{"data": {"items": [{"sales_region": "EMEA"}, {"sales_region": "APAC"}]}}"#,
            r#"{"result": {"deals": [{"sales_region": "EMEA"}, {"sales_region": "APAC"}]}}"#,
        ] {
            assert_eq!(
                v(r, Some("sales_region = 'EMEA'"), None, &[]),
                ["1 of 2 rows outside the row filter sales_region = 'EMEA'"],
                "{r}"
            );
        }
        // Two arrays of objects: which holds the rows is not known, so it is one row.
        let two: Value = serde_json::from_str(r#"{"a": [{"x": 1}], "b": [{"y": 2}]}"#).unwrap();
        assert_eq!(rows(&two).len(), 1);
        for masked in ["a***@x.com", "****1234", "12••••34", "xxxx"] {
            assert!(looks_masked(&Value::String(masked.to_string())), "{masked}");
        }
        for plain in ["alice@x.com", "a*b", "1234"] {
            assert!(!looks_masked(&Value::String(plain.to_string())), "{plain}");
        }
    }

    #[test]
    fn row_filter() {
        let r = r#"{"columns":["deal_id","sales_region"],"rows":[["D-1","EMEA"],["D-2","AMER"],["D-3","APAC"]]}"#;
        assert_eq!(
            v(r, Some("sales_region = 'EMEA'"), None, &[]),
            ["2 of 3 rows outside the row filter sales_region = 'EMEA'"]
        );
        assert!(
            v(
                r,
                Some("sales_region IN ('EMEA', 'AMER', 'APAC')"),
                None,
                &[]
            )
            .is_empty()
        );
        assert_eq!(
            v(r#"{"count": 12}"#, Some("sales_region = 'EMEA'"), None, &[]),
            ["unsure: 1 of 1 rows cannot be checked against sales_region = 'EMEA'"]
        );
        assert!(
            v(
                r#"[{"amount": 5}]"#,
                Some("amount BETWEEN 1 AND 10"),
                None,
                &[]
            )
            .is_empty()
        );
    }

    #[test]
    fn columns() {
        let r = r#"[{"name":"Acme","email":"a@acme.com"},{"name":"Beta","email":"***"}]"#;
        assert_eq!(
            v(r, None, None, &["customers.email"]),
            ["column email returned unmasked"]
        );
        let allowed = vec!["customers.name".to_string()];
        assert_eq!(
            v(r, None, Some(&allowed), &[]),
            ["column email is not allowed"]
        );
        assert!(v(r#"[{"email":"***"}]"#, None, None, &["email"]).is_empty());
    }
}
