//! `tool_changes(old_tools, new_tools)`: every classified change between two snapshots of
//! one server's tools (seed 002's diff, rules in `changes::rules`).
//!
//! Each argument is either a tools/list result as JSON text (`{"tools": [...]}` or a bare
//! array), or a list of structs with the `tool_snapshots` columns (`tool` or `name`,
//! `title`, `description`, `input_schema`, `output_schema`, `annotations`, `version`),
//! which is what `array_agg(named_struct(...))` over snapshot rows gives. Returns a list
//! of structs: rule, direction, severity, action, tool, path, message, before, after,
//! fingerprint. An empty list: no change. NULL when either side is NULL. A side that
//! cannot be read gives one `tool-schema-unreadable` change that says why.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, ListBuilder, StringBuilder, StructArray, StructBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{Result, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use serde_json::Value;

use crate::changes::{self, Change, Tool};
use crate::common::{Strings, arrays, doc_section, is_string};

crate::make_udf!(
    ToolChanges,
    tool_changes_udf,
    Signature::any(2, Volatility::Immutable)
);

static DOC: LazyLock<Documentation> = LazyLock::new(|| {
    Documentation::builder(
        doc_section(),
        "Every classified change between two snapshots of a server's tools: rule, direction, \
         severity, default action, tool, JSON-pointer path, message, before/after, fingerprint.",
        "tool_changes(old_tools, new_tools)",
    )
    .with_argument(
        "old_tools",
        "tools/list JSON text, or a list of structs with the tool_snapshots columns.",
    )
    .with_argument("new_tools", "The same for the new snapshot.")
    .with_sql_example(
        "SELECT c.rule, c.severity, c.message FROM (SELECT unnest(tool_changes(\n\
         '{\"tools\":[{\"name\":\"search\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"}}}}]}',\n\
         '{\"tools\":[{\"name\":\"search\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"search_query\":{\"type\":\"string\"}}}}]}'\n\
         )) AS c);\n\
         -- input-property-likely-renamed | likely-breaking | parameter 'query' likely renamed to 'search_query'",
    )
    .build()
});

pub const FIELDS: &[&str] = &[
    "rule",
    "direction",
    "severity",
    "action",
    "tool",
    "path",
    "message",
    "before",
    "after",
    "fingerprint",
];

fn change_fields() -> Fields {
    FIELDS
        .iter()
        .map(|n| Field::new(*n, DataType::Utf8, matches!(*n, "before" | "after")))
        .collect()
}

fn item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Struct(change_fields()), true))
}

fn ok_arg(t: &DataType) -> bool {
    match t {
        DataType::List(f) | DataType::LargeList(f) => matches!(f.data_type(), DataType::Struct(_)),
        t => is_string(t),
    }
}

/// Tools from the struct rows of one list value.
fn tools_from_structs(s: &StructArray) -> std::result::Result<Vec<Tool>, String> {
    let col = |names: &[&str]| -> std::result::Result<Option<&ArrayRef>, String> {
        Ok(names.iter().find_map(|n| s.column_by_name(n)))
    };
    let name = col(&["tool", "name"])?.ok_or("the tool structs have no 'tool' or 'name' field")?;
    fn get(a: Option<&ArrayRef>) -> std::result::Result<Option<Strings<'_>>, String> {
        a.map(Strings::new).transpose().map_err(|e| e.to_string())
    }
    let names = get(Some(name))?.expect("present");
    let title = get(col(&["title"])?)?;
    let desc = get(col(&["description"])?)?;
    let input = get(col(&["input_schema", "inputSchema"])?)?;
    let output = get(col(&["output_schema", "outputSchema"])?)?;
    let ann = get(col(&["annotations"])?)?;
    let version = get(col(&["version"])?)?;
    let mut tools = Vec::with_capacity(s.len());
    for i in 0..s.len() {
        if s.is_null(i) {
            continue;
        }
        let Some(n) = names.get(i) else {
            return Err(format!("tool row {i} has no name"));
        };
        let text = |c: &Option<Strings>| c.as_ref().and_then(|c| c.get(i)).map(str::to_string);
        let json =
            |c: &Option<Strings>, what: &str| -> std::result::Result<Option<Value>, String> {
                c.as_ref()
                    .and_then(|c| c.get(i))
                    .map(|t| {
                        serde_json::from_str(t)
                            .map_err(|e| format!("tool '{n}': {what} is not JSON: {e}"))
                    })
                    .transpose()
            };
        tools.push(Tool {
            name: n.to_string(),
            title: text(&title),
            description: text(&desc),
            input_schema: json(&input, "input_schema")?,
            output_schema: json(&output, "output_schema")?,
            annotations: json(&ann, "annotations")?,
            version: text(&version),
        });
    }
    Ok(tools)
}

/// Row `i` of an argument: None for NULL.
fn side(a: &ArrayRef, i: usize) -> Result<Option<std::result::Result<Vec<Tool>, String>>> {
    let from_list = |v: ArrayRef| Some(tools_from_structs(v.as_struct()));
    Ok(match a.data_type() {
        DataType::List(_) => {
            let l = a.as_list::<i32>();
            if l.is_null(i) {
                None
            } else {
                from_list(l.value(i))
            }
        }
        DataType::LargeList(_) => {
            let l = a.as_list::<i64>();
            if l.is_null(i) {
                None
            } else {
                from_list(l.value(i))
            }
        }
        _ => Strings::new(a)?.get(i).map(|t| {
            serde_json::from_str::<Value>(t)
                .map_err(|e| format!("not JSON: {e}"))
                .and_then(|v| changes::tools_from_json(&v))
        }),
    })
}

impl ScalarUDFImpl for ToolChanges {
    fn name(&self) -> &str {
        "tool_changes"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        for (i, t) in args.iter().enumerate() {
            if !ok_arg(t) {
                return plan_err!(
                    "tool_changes: argument {} must be tools/list JSON text or a list of tool structs, got {t}",
                    i + 1
                );
            }
        }
        Ok(DataType::List(item()))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args.args, rows)?;
        let builders: Vec<Box<dyn datafusion::arrow::array::ArrayBuilder>> = FIELDS
            .iter()
            .map(|_| Box::new(StringBuilder::new()) as _)
            .collect();
        let mut out =
            ListBuilder::new(StructBuilder::new(change_fields(), builders)).with_field(item());
        for i in 0..rows {
            let (Some(old), Some(new)) = (side(&arrays[0], i)?, side(&arrays[1], i)?) else {
                out.append(false);
                continue;
            };
            let changes = match (old, new) {
                (Ok(o), Ok(n)) => changes::diff(&o, &n),
                (Err(e), _) | (_, Err(e)) => vec![Change::new(
                    "tool-schema-unreadable",
                    "",
                    "",
                    format!("a snapshot cannot be read: {e}"),
                    None,
                    None,
                )],
            };
            let s = out.values();
            for c in &changes {
                let vals = [
                    Some(c.rule.clone()),
                    Some(c.direction.as_str().to_string()),
                    Some(c.severity.as_str().to_string()),
                    Some(c.action.as_str().to_string()),
                    Some(c.tool.clone()),
                    Some(c.path.clone()),
                    Some(c.message.clone()),
                    c.before.clone(),
                    c.after.clone(),
                    Some(c.fingerprint()),
                ];
                for (k, v) in vals.into_iter().enumerate() {
                    s.field_builder::<StringBuilder>(k)
                        .expect("string")
                        .append_option(v);
                }
                s.append(true);
            }
            out.append(true);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
    }

    fn documentation(&self) -> Option<&Documentation> {
        Some(&DOC)
    }
}
