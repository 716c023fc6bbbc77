//! `call_match` and `calls_match`: tool-call correctness against expected calls
//! (`cases.gold.expected_calls`), by the rules in check.rs.

pub mod check;

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanBuilder, Int64Builder, StringBuilder, StructArray,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{Result, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature,
};
use serde_json::Value;

use crate::common::{Strings, arrays, check_args, doc_section, is_string};
use check::{Expected, Mode, compare};

fn mode_of(s: Option<&str>) -> std::result::Result<Mode, String> {
    match s {
        None => Ok(Mode::Bfcl),
        Some(m) => Mode::parse(m).ok_or_else(|| format!("unknown mode {m:?} (bfcl or strict)")),
    }
}

crate::make_udf!(CallMatch, call_match_udf);

fn call_match_fields() -> Fields {
    Fields::from(vec![
        Field::new("matched", DataType::Boolean, true),
        Field::new("kind", DataType::Utf8, true),
        Field::new("reason", DataType::Utf8, true),
    ])
}

static CALL_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "Whether one tool call matches one expected call, and why not: wrong tool, missing \
         required parameter, unexpected parameter, type mismatch, value not acceptable, \
         parameter not given. Mode bfcl (default) follows the Berkeley Function Calling \
         Leaderboard's AST checker; strict compares names and JSON values exactly. NULL when \
         a name is NULL; matched NULL, with the reason, when the expected call cannot be read.",
        "call_match(tool, arguments, expected_tool, expected_arguments [, parameters [, mode]])",
    )
    .with_argument("tool", "The tool the agent called.")
    .with_argument("arguments", "Its arguments, JSON object text.")
    .with_argument("expected_tool", "The expected tool.")
    .with_argument(
        "expected_arguments",
        "JSON object: parameter -> list of acceptable values (\"\" in the list: may be left out).",
    )
    .with_argument(
        "parameters",
        "The tool's parameter schema, JSON text (JSON Schema or BFCL's); NULL: types from the acceptable values.",
    )
    .with_argument("mode", "'bfcl' (default) or 'strict'.")
    .with_sql_example(
        "SELECT call_match('get_weather', '{\"city\": \"paris\"}', 'get_weather', '{\"city\": [\"Paris\"], \"unit\": [\"celsius\", \"\"]}');\n\
         -- {matched: true, kind: NULL, reason: NULL}",
    )
    .build()
});

impl ScalarUDFImpl for CallMatch {
    fn name(&self) -> &str {
        "call_match"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        check_args(
            self.name(),
            args,
            &["string", "string", "string", "string", "string", "string"],
            4,
        )?;
        Ok(DataType::Struct(call_match_fields()))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let a = arrays(&args.args, rows)?;
        let s: Vec<Strings> = a.iter().map(Strings::new).collect::<Result<_>>()?;
        let (mut matched, mut kind, mut reason) = (
            BooleanBuilder::with_capacity(rows),
            StringBuilder::new(),
            StringBuilder::new(),
        );
        let mut nulls = Vec::with_capacity(rows);
        for i in 0..rows {
            let get = |k: usize| s.get(k).and_then(|x| x.get(i));
            let (Some(tool), Some(want)) = (get(0), get(2)) else {
                matched.append_null();
                kind.append_null();
                reason.append_null();
                nulls.push(false);
                continue;
            };
            nulls.push(true);
            let verdict = mode_of(get(5)).and_then(|mode| {
                let e = Expected::parse(want, get(3).unwrap_or("{}"), get(4))?;
                let args: Value = match get(1) {
                    None => Value::Null,
                    Some(t) => serde_json::from_str(t)
                        .map_err(|e| format!("the call's arguments are not JSON: {e}"))?,
                };
                Ok(check::check(mode, tool, &args, &e))
            });
            match verdict {
                Ok(None) => {
                    matched.append_value(true);
                    kind.append_null();
                    reason.append_null();
                }
                Ok(Some(m)) => {
                    matched.append_value(false);
                    kind.append_value(m.kind());
                    reason.append_value(m.sentence());
                }
                Err(e) => {
                    matched.append_null();
                    kind.append_value("unreadable");
                    reason.append_value(e);
                }
            }
        }
        let out = StructArray::try_new(
            call_match_fields(),
            vec![
                Arc::new(matched.finish()) as ArrayRef,
                Arc::new(kind.finish()),
                Arc::new(reason.finish()),
            ],
            Some(nulls.into()),
        )?;
        Ok(ColumnarValue::Array(Arc::new(out)))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&CALL_DOC)
    }
}

crate::make_udf!(CallsMatch, calls_match_udf);

fn calls_match_fields() -> Fields {
    Fields::from(vec![
        Field::new("valid", DataType::Boolean, true),
        Field::new("reason", DataType::Utf8, true),
        Field::new("expected", DataType::Int64, true),
        Field::new("actual", DataType::Int64, true),
        Field::new("tools_matched", DataType::Int64, true),
        Field::new("calls_matched", DataType::Int64, true),
        Field::new("in_sequence", DataType::Boolean, true),
    ])
}

static CALLS_DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "A task's tool calls against its expected calls: valid (BFCL's verdict: as many calls \
         as expected, each expected call matched by its own call, in order when order is \
         'strict'), the first reason it is not, the counts, tools_matched and calls_matched \
         (expected calls paired one to one with a call of the same tool / a call that matches \
         entirely), and in_sequence (the calls are the expected ones in order). NULL when \
         expected_calls is NULL; a NULL calls list is no call.",
        "calls_match(calls, expected_calls [, order [, mode]])",
    )
    .with_argument(
        "calls",
        "List of structs with fields tool and arguments (JSON text), in the order made.",
    )
    .with_argument(
        "expected_calls",
        "List of structs with fields tool, arguments and, optionally, parameters (as cases.gold.expected_calls holds them).",
    )
    .with_argument("order", "'any' (default) or 'strict'.")
    .with_argument("mode", "'bfcl' (default) or 'strict'.")
    .with_sql_example(
        "SELECT calls_match([named_struct('tool', 'f', 'arguments', '{\"x\": 1}')],\n\
         [named_struct('tool', 'f', 'arguments', '{\"x\": [1]}')])['valid'];\n-- true",
    )
    .build()
});

/// Rows of a list-of-structs argument: per row, the items' (tool, arguments, parameters).
type Items = Vec<Option<Vec<(Option<String>, Option<String>, Option<String>)>>>;

fn struct_list_ok(t: &DataType) -> bool {
    match t {
        DataType::Null => true,
        DataType::List(f) | DataType::LargeList(f) => match f.data_type() {
            DataType::Struct(fields) => fields
                .iter()
                .any(|x| x.name() == "tool" && is_string(x.data_type())),
            DataType::Null => true,
            _ => false,
        },
        _ => false,
    }
}

fn items(a: &ArrayRef) -> Result<Items> {
    fn of<O: datafusion::arrow::array::OffsetSizeTrait>(
        l: &datafusion::arrow::array::GenericListArray<O>,
    ) -> Result<Items> {
        let mut out = Vec::with_capacity(l.len());
        let values = l.values();
        let st = match values.data_type() {
            DataType::Struct(_) => Some(values.as_struct()),
            _ => None,
        };
        let col = |name: &str| -> Result<Option<Strings>> {
            st.and_then(|s| s.column_by_name(name))
                .map(Strings::new)
                .transpose()
        };
        let (tool, args, params) = (col("tool")?, col("arguments")?, col("parameters")?);
        let offsets = l.value_offsets();
        for i in 0..l.len() {
            if l.is_null(i) {
                out.push(None);
                continue;
            }
            let (lo, hi) = (offsets[i].as_usize(), offsets[i + 1].as_usize());
            let get = |c: &Option<Strings>, j: usize| {
                c.as_ref().and_then(|s| s.get(j)).map(str::to_string)
            };
            out.push(Some(
                (lo..hi)
                    .map(|j| (get(&tool, j), get(&args, j), get(&params, j)))
                    .collect(),
            ));
        }
        Ok(out)
    }
    match a.data_type() {
        DataType::Null => Ok(vec![None; a.len()]),
        DataType::List(_) => of(a.as_list::<i32>()),
        DataType::LargeList(_) => of(a.as_list::<i64>()),
        t => plan_err!("calls_match: expected a list of structs, got {t}"),
    }
}

impl ScalarUDFImpl for CallsMatch {
    fn name(&self) -> &str {
        "calls_match"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        if !(2..=4).contains(&args.len()) {
            return plan_err!("calls_match takes 2 to 4 arguments, got {}", args.len());
        }
        for (i, t) in args[..2].iter().enumerate() {
            if !struct_list_ok(t) {
                return plan_err!(
                    "calls_match: argument {} must be a list of structs with a string field tool, got {t}",
                    i + 1
                );
            }
        }
        for (i, t) in args.iter().enumerate().skip(2) {
            if !is_string(t) {
                return plan_err!("calls_match: argument {} must be a string, got {t}", i + 1);
            }
        }
        Ok(DataType::Struct(calls_match_fields()))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let a = arrays(&args.args, rows)?;
        let calls = items(&a[0])?;
        let expected = items(&a[1])?;
        let extra: Vec<Strings> = a[2..].iter().map(Strings::new).collect::<Result<_>>()?;
        let mut valid = BooleanBuilder::with_capacity(rows);
        let mut reason = StringBuilder::new();
        let mut counts: Vec<Int64Builder> =
            (0..4).map(|_| Int64Builder::with_capacity(rows)).collect();
        let mut in_sequence = BooleanBuilder::with_capacity(rows);
        let mut nulls = Vec::with_capacity(rows);
        for i in 0..rows {
            let Some(exp) = &expected[i] else {
                valid.append_null();
                reason.append_null();
                counts.iter_mut().for_each(|c| c.append_null());
                in_sequence.append_null();
                nulls.push(false);
                continue;
            };
            nulls.push(true);
            let order = extra.first().and_then(|s| s.get(i));
            let mode = extra.get(1).and_then(|s| s.get(i));
            let read = || -> std::result::Result<check::Verdict, String> {
                let strict_order = match order.map(str::to_ascii_lowercase).as_deref() {
                    None | Some("any") => false,
                    Some("strict") => true,
                    Some(o) => return Err(format!("unknown order {o:?} (any or strict)")),
                };
                let mode = mode_of(mode)?;
                let exp: Vec<Expected> = exp
                    .iter()
                    .enumerate()
                    .map(|(k, (t, a, p))| {
                        Expected::parse(
                            t.as_deref().unwrap_or(""),
                            a.as_deref().unwrap_or("{}"),
                            p.as_deref(),
                        )
                        .map_err(|e| format!("expected call {}: {e}", k + 1))
                    })
                    .collect::<std::result::Result<_, _>>()?;
                let made: Vec<(String, Value)> = calls[i]
                    .iter()
                    .flatten()
                    .map(|(t, a, _)| {
                        let args = a
                            .as_deref()
                            .map(|a| {
                                serde_json::from_str(a).unwrap_or(Value::String(a.to_string()))
                            })
                            .unwrap_or(Value::Null);
                        (t.clone().unwrap_or_default(), args)
                    })
                    .collect();
                Ok(compare(mode, strict_order, &made, &exp))
            };
            match read() {
                Ok(v) => {
                    valid.append_value(v.valid);
                    reason.append_option(v.reason);
                    for (c, n) in counts.iter_mut().zip([
                        v.expected,
                        v.actual,
                        v.tools_matched,
                        v.calls_matched,
                    ]) {
                        c.append_value(n as i64);
                    }
                    in_sequence.append_value(v.in_sequence);
                }
                Err(e) => {
                    valid.append_null();
                    reason.append_value(e);
                    counts.iter_mut().for_each(|c| c.append_null());
                    in_sequence.append_null();
                }
            }
        }
        let mut cols: Vec<ArrayRef> = vec![Arc::new(valid.finish()), Arc::new(reason.finish())];
        cols.extend(counts.iter_mut().map(|c| Arc::new(c.finish()) as ArrayRef));
        cols.push(Arc::new(in_sequence.finish()));
        let out = StructArray::try_new(calls_match_fields(), cols, Some(nulls.into()))?;
        Ok(ColumnarValue::Array(Arc::new(out)))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&CALLS_DOC)
    }
}
