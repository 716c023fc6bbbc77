//! One actual call against one expected call, and a task's calls against its expected
//! calls: the rules of the Berkeley Function Calling Leaderboard's AST checker
//! (`bfcl_eval/eval_checker/ast_eval/ast_checker.py`, Python categories) as a mode, and a
//! strict mode.
//!
//! An expected call is a tool name, the acceptable values of each parameter (a list per
//! parameter; `""` in it means the parameter may be left out) and, optionally, the tool's
//! parameter schema (JSON Schema, or BFCL's with `dict`/`float`/`tuple`/`any` types).
//! Without a schema, a parameter's type is that of its first acceptable value and the
//! required ones are those whose list has no `""`.
//!
//! BFCL mode, as BFCL's checker does: a name with dots may come back with underscores
//! (model APIs that allow no dots rewrite them); an int is taken for a float; strings
//! (also inside lists and dicts) compare after removing spaces and `,./-_*^` and lower
//! casing; values otherwise compare as Python's `==` does (1 == 1.0 == True); a value of
//! the acceptable values' type where the schema says another is a variable name and
//! compares as given. Strict mode: names exact, values equal as JSON (5 is not 5.0,
//! "Paris" is not "paris"), types as the schema says.

use serde_json::{Map, Value};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    Bfcl,
    Strict,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s.to_ascii_lowercase().as_str() {
            "bfcl" => Some(Mode::Bfcl),
            "strict" => Some(Mode::Strict),
            _ => None,
        }
    }
}

/// One expected call.
#[derive(Debug, Clone)]
pub struct Expected {
    pub tool: String,
    /// Parameter -> acceptable values.
    pub arguments: Map<String, Value>,
    /// The tool's parameter schema (`{"type": ..., "properties": ..., "required": ...}`).
    pub parameters: Option<Value>,
}

impl Expected {
    /// From the JSON texts a case holds; `Err` says what is wrong with them.
    pub fn parse(tool: &str, arguments: &str, parameters: Option<&str>) -> Result<Self, String> {
        let arguments = match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(m)) => m,
            Ok(Value::Null) => Map::new(),
            Ok(_) => return Err("expected arguments are not a JSON object".into()),
            Err(e) => return Err(format!("expected arguments are not JSON: {e}")),
        };
        for (k, v) in &arguments {
            if !v.is_array() {
                return Err(format!(
                    "expected arguments: {k:?} is not a list of acceptable values"
                ));
            }
        }
        let parameters = match parameters {
            None => None,
            Some(p) => match serde_json::from_str::<Value>(p) {
                Ok(Value::Null) => None,
                Ok(v @ Value::Object(_)) => Some(v),
                Ok(_) => return Err("parameters are not a JSON object".into()),
                Err(e) => return Err(format!("parameters are not JSON: {e}")),
            },
        };
        Ok(Expected {
            tool: tool.to_string(),
            arguments,
            parameters,
        })
    }
}

/// Why a call does not match; the first rule it breaks, in the checker's order.
#[derive(Debug, Clone, PartialEq)]
pub enum Miss {
    WrongTool {
        got: String,
        want: String,
    },
    MissingRequired(String),
    UnexpectedParameter(String),
    TypeMismatch {
        param: String,
        want: String,
        got: String,
    },
    ValueNotAcceptable {
        param: String,
        value: String,
        acceptable: String,
    },
    MissingOptional(String),
    NotAnObject,
}

impl Miss {
    /// The reason's kind: the words before the colon of `sentence`.
    pub fn kind(&self) -> &'static str {
        match self {
            Miss::WrongTool { .. } => "wrong tool",
            Miss::MissingRequired(_) => "missing required parameter",
            Miss::UnexpectedParameter(_) => "unexpected parameter",
            Miss::TypeMismatch { .. } => "type mismatch",
            Miss::ValueNotAcceptable { .. } => "value not acceptable",
            Miss::MissingOptional(_) => "parameter not given",
            Miss::NotAnObject => "arguments not an object",
        }
    }

    pub fn sentence(&self) -> String {
        let k = self.kind();
        match self {
            Miss::WrongTool { got, want } => format!("{k}: called {got}, expected {want}"),
            Miss::MissingRequired(p) | Miss::UnexpectedParameter(p) => format!("{k}: {p}"),
            Miss::TypeMismatch { param, want, got } => {
                format!("{k}: {param} should be {want}, got {got}")
            }
            Miss::ValueNotAcceptable {
                param,
                value,
                acceptable,
            } => format!("{k}: {param} = {value}, expected one of {acceptable}"),
            Miss::MissingOptional(p) => {
                format!("{k}: {p} (optional only when its acceptable values hold \"\")")
            }
            Miss::NotAnObject => format!("{k}: the call's arguments are not a JSON object"),
        }
    }
}

/// The types BFCL's checker knows (its Python type mapping), from BFCL's names or JSON
/// Schema's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    Str,
    Int,
    Float,
    Bool,
    List,
    Dict,
}

impl Ty {
    fn from_schema(t: &str) -> Option<Ty> {
        Some(match t {
            "string" | "any" => Ty::Str,
            "integer" => Ty::Int,
            "float" | "number" => Ty::Float,
            "boolean" => Ty::Bool,
            "array" | "tuple" => Ty::List,
            "dict" | "object" => Ty::Dict,
            _ => return None,
        })
    }

    /// Python's `type(value)` after `json.loads`.
    fn of(v: &Value) -> Option<Ty> {
        Some(match v {
            Value::String(_) => Ty::Str,
            Value::Bool(_) => Ty::Bool,
            Value::Number(n) if n.is_f64() => Ty::Float,
            Value::Number(_) => Ty::Int,
            Value::Array(_) => Ty::List,
            Value::Object(_) => Ty::Dict,
            Value::Null => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Ty::Str => "string",
            Ty::Int => "integer",
            Ty::Float => "float",
            Ty::Bool => "boolean",
            Ty::List => "array",
            Ty::Dict => "dict",
        }
    }
}

fn type_name(v: &Value) -> &'static str {
    Ty::of(v).map_or("null", Ty::name)
}

/// BFCL's `standardize_string`.
fn standardize(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .collect::<String>()
        .to_lowercase()
        .replace('\'', "\"")
}

/// Python's `==` on values from `json.loads`: numbers by value, a bool as 0 or 1.
fn py_eq(a: &Value, b: &Value) -> bool {
    fn num(v: &Value) -> Option<f64> {
        match v {
            Value::Number(n) => n.as_f64(),
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        }
    }
    match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Null, Value::Null) => true,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

fn eq(mode: Mode, a: &Value, b: &Value) -> bool {
    match mode {
        Mode::Bfcl => py_eq(a, b),
        Mode::Strict => a == b,
    }
}

fn is_optional_marker(v: &Value) -> bool {
    v.as_str() == Some("")
}

fn show(v: &Value) -> String {
    v.to_string()
}

/// Does the called name stand for the expected one?
pub fn same_tool(mode: Mode, got: &str, want: &str) -> bool {
    got == want || (mode == Mode::Bfcl && want.contains('.') && got == want.replace('.', "_"))
}

/// One call against one expected call: `None` when it matches.
pub fn check(mode: Mode, tool: &str, arguments: &Value, e: &Expected) -> Option<Miss> {
    if !same_tool(mode, tool, &e.tool) {
        return Some(Miss::WrongTool {
            got: tool.to_string(),
            want: e.tool.clone(),
        });
    }
    let empty = Map::new();
    let args = match arguments {
        Value::Object(m) => m,
        Value::Null => &empty,
        _ => return Some(Miss::NotAnObject),
    };
    let schema_props = e
        .parameters
        .as_ref()
        .and_then(|p| p.get("properties"))
        .and_then(Value::as_object);
    let required: Vec<&str> = match &e.parameters {
        Some(p) => p
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default(),
        None => e
            .arguments
            .iter()
            .filter(|(_, v)| {
                !v.as_array()
                    .is_some_and(|a| a.iter().any(is_optional_marker))
            })
            .map(|(k, _)| k.as_str())
            .collect(),
    };
    for p in &required {
        if !args.contains_key(*p) {
            return Some(Miss::MissingRequired(p.to_string()));
        }
    }
    for (param, value) in args {
        let acceptable = match e.arguments.get(param).and_then(Value::as_array) {
            Some(a) if schema_props.is_none_or(|s| s.contains_key(param)) => a,
            _ => return Some(Miss::UnexpectedParameter(param.clone())),
        };
        if let Some(miss) = check_value(mode, param, value, acceptable, schema_props) {
            return Some(miss);
        }
    }
    for (param, acceptable) in &e.arguments {
        let optional = acceptable
            .as_array()
            .is_some_and(|a| a.iter().any(is_optional_marker));
        if !args.contains_key(param) && !optional {
            return Some(Miss::MissingOptional(param.clone()));
        }
    }
    None
}

fn check_value(
    mode: Mode,
    param: &str,
    value: &Value,
    acceptable: &[Value],
    schema_props: Option<&Map<String, Value>>,
) -> Option<Miss> {
    let answer_ty = acceptable
        .iter()
        .find(|a| !is_optional_marker(a))
        .and_then(Ty::of);
    let prop = schema_props.and_then(|s| s.get(param));
    let schema_ty = prop
        .and_then(|p| p.get("type"))
        .and_then(Value::as_str)
        .and_then(Ty::from_schema);
    let item_ty = prop
        .and_then(|p| p.get("items"))
        .and_then(|i| i.get("type"))
        .and_then(Value::as_str)
        .and_then(Ty::from_schema);
    // Without a schema (or with a type BFCL does not know) the acceptable values say.
    let Some(want) = schema_ty.or(answer_ty) else {
        return acceptable
            .iter()
            .any(|a| eq(mode, a, value))
            .then_some(())
            .map_or_else(|| Some(not_acceptable(param, value, acceptable)), |_| None);
    };
    let mut value = value.clone();
    if mode == Mode::Bfcl
        && want == Ty::Float
        && let Some(i) = value.as_i64()
        && Ty::of(&value) == Some(Ty::Int)
    {
        value = serde_json::json!(i as f64);
    }
    // BFCL's type_checker.
    let mut variable = mode == Mode::Bfcl && answer_ty.is_some_and(|t| t != want);
    let got = Ty::of(&value);
    if got == Some(want) {
        if want == Ty::List
            && let Some(item) = item_ty
        {
            let items = value.as_array().cloned().unwrap_or_default();
            let fits = acceptable.iter().any(|a| match a {
                Value::Array(list) => items.iter().all(|v| fits_nested(v, item, list)),
                _ => true,
            });
            if !fits {
                return Some(Miss::TypeMismatch {
                    param: param.to_string(),
                    want: format!("array of {}", item.name()),
                    got: show(&value),
                });
            }
        }
    } else if mode == Mode::Bfcl && answer_ty.is_some() && got == answer_ty {
        variable = true;
    } else {
        return Some(Miss::TypeMismatch {
            param: param.to_string(),
            want: want.name().to_string(),
            got: type_name(&value).to_string(),
        });
    }
    // A dict's acceptable values are dicts of acceptable lists (BFCL's convention), in
    // both modes.
    if !variable {
        match want {
            Ty::Dict => {
                return (!dict_ok(mode, &value, acceptable))
                    .then(|| not_acceptable(param, &value, acceptable));
            }
            Ty::List if item_ty == Some(Ty::Dict) => {
                return (!list_dict_ok(mode, &value, acceptable))
                    .then(|| not_acceptable(param, &value, acceptable));
            }
            _ => {}
        }
    }
    if mode == Mode::Bfcl && !variable {
        let ok = match want {
            Ty::Str => {
                let v = standardize(value.as_str().unwrap_or_default());
                acceptable
                    .iter()
                    .filter_map(Value::as_str)
                    .any(|a| standardize(a) == v)
            }
            Ty::List => {
                let v = standardize_list(&value);
                acceptable.iter().any(|a| py_eq(&standardize_list(a), &v))
            }
            _ => acceptable.iter().any(|a| py_eq(a, &value)),
        };
        return (!ok).then(|| not_acceptable(param, &value, acceptable));
    }
    if acceptable.iter().any(|a| eq(mode, a, &value)) {
        None
    } else {
        Some(not_acceptable(param, &value, acceptable))
    }
}

/// BFCL checks nested types one level deep: an item of the schema's item type, or of the
/// type of the acceptable list's first value (a variable); no int for a float here.
fn fits_nested(v: &Value, item: Ty, acceptable: &[Value]) -> bool {
    let got = Ty::of(v);
    got == Some(item)
        || acceptable
            .iter()
            .find(|a| !is_optional_marker(a))
            .and_then(Ty::of)
            .is_some_and(|t| got == Some(t))
}

fn not_acceptable(param: &str, value: &Value, acceptable: &[Value]) -> Miss {
    Miss::ValueNotAcceptable {
        param: param.to_string(),
        value: show(value),
        acceptable: show(&Value::Array(acceptable.to_vec())),
    }
}

/// A list with its strings standardized; a string (BFCL iterates it) as its characters.
fn standardize_list(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| match i {
                    Value::String(s) => Value::String(standardize(s)),
                    other => other.clone(),
                })
                .collect(),
        ),
        Value::String(s) => Value::Array(
            s.chars()
                .map(|c| Value::String(standardize(&c.to_string())))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn std_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(standardize(s)),
        other => other.clone(),
    }
}

/// BFCL's dict_checker: some acceptable dict takes every key of the value with an
/// acceptable value, and every key it has that the value lacks may be left out. Strings
/// standardized in BFCL mode; exact JSON in strict mode.
fn dict_ok(mode: Mode, value: &Value, acceptable: &[Value]) -> bool {
    let norm = |v: &Value| match mode {
        Mode::Bfcl => std_value(v),
        Mode::Strict => v.clone(),
    };
    let Some(got) = value.as_object() else {
        return false;
    };
    acceptable.iter().any(|a| {
        let Some(want) = a.as_object() else {
            return false;
        };
        let keys_ok = got.iter().all(|(k, v)| {
            want.get(k).and_then(Value::as_array).is_some_and(|list| {
                let v = norm(v);
                list.iter().any(|x| eq(mode, &norm(x), &v))
            })
        });
        keys_ok
            && want.iter().all(|(k, list)| {
                got.contains_key(k)
                    || list
                        .as_array()
                        .is_some_and(|l| l.iter().any(is_optional_marker))
            })
    })
}

/// BFCL's list_dict_checker: as many dicts as some acceptable list, each fitting its peer.
fn list_dict_ok(mode: Mode, value: &Value, acceptable: &[Value]) -> bool {
    let Some(got) = value.as_array() else {
        return false;
    };
    acceptable.iter().any(|a| {
        let Some(want) = a.as_array() else {
            return false;
        };
        want.len() == got.len()
            && got
                .iter()
                .zip(want)
                .all(|(g, w)| dict_ok(mode, g, std::slice::from_ref(w)))
    })
}

/// How a task's calls compare with its expected calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// BFCL's verdict: as many calls as expected, each expected call matched by its own
    /// call (in order when the order is strict).
    pub valid: bool,
    /// Why not, when not valid.
    pub reason: Option<String>,
    pub expected: usize,
    pub actual: usize,
    /// Expected calls paired with a call of the same tool (each call used once).
    pub tools_matched: usize,
    /// Expected calls paired with a call that matches it entirely (each call used once).
    pub calls_matched: usize,
    /// The calls are the expected calls, one for one, in order.
    pub in_sequence: bool,
}

/// A task's calls (tool, arguments) against its expected calls.
pub fn compare(
    mode: Mode,
    strict_order: bool,
    calls: &[(String, Value)],
    expected: &[Expected],
) -> Verdict {
    // One-to-one pairing, as BFCL's parallel checker does it: each expected call in turn
    // takes the first unused call that matches it.
    let greedy = |matches: &dyn Fn(&(String, Value), &Expected) -> bool| {
        let mut used = vec![false; calls.len()];
        expected
            .iter()
            .filter(|e| {
                let hit = (0..calls.len()).find(|&i| !used[i] && matches(&calls[i], e));
                if let Some(i) = hit {
                    used[i] = true;
                }
                hit.is_some()
            })
            .count()
    };
    let tools_matched = greedy(&|c, e| same_tool(mode, &c.0, &e.tool));
    let calls_matched = greedy(&|c, e| check(mode, &c.0, &c.1, e).is_none());
    let in_order: Vec<Option<Miss>> = calls
        .iter()
        .zip(expected)
        .map(|(c, e)| check(mode, &c.0, &c.1, e))
        .collect();
    let in_sequence = calls.len() == expected.len() && in_order.iter().all(Option::is_none);
    let reason = if calls.len() != expected.len() {
        Some(format!(
            "wrong number of calls: {}, expected {}",
            calls.len(),
            expected.len()
        ))
    } else if strict_order || expected.len() == 1 {
        in_order
            .iter()
            .enumerate()
            .find_map(|(i, m)| m.as_ref().map(|m| call_reason(i, expected.len(), m)))
    } else {
        // BFCL's order-free check: the first expected call no unused call matches.
        let mut used = vec![false; calls.len()];
        let mut out = None;
        for (i, e) in expected.iter().enumerate() {
            let mut last = None;
            let hit = (0..calls.len()).find(|&j| {
                if used[j] {
                    return false;
                }
                last = check(mode, &calls[j].0, &calls[j].1, e);
                last.is_none()
            });
            match hit {
                Some(j) => used[j] = true,
                None => {
                    out = Some(format!(
                        "no call matches expected call {} ({}){}",
                        i + 1,
                        e.tool,
                        last.map(|m| format!("; the last tried: {}", m.sentence()))
                            .unwrap_or_default()
                    ));
                    break;
                }
            }
        }
        out
    };
    Verdict {
        valid: reason.is_none(),
        reason,
        expected: expected.len(),
        actual: calls.len(),
        tools_matched,
        calls_matched,
        in_sequence,
    }
}

fn call_reason(i: usize, n: usize, m: &Miss) -> String {
    if n == 1 {
        m.sentence()
    } else {
        format!("call {}: {}", i + 1, m.sentence())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn exp(tool: &str, args: Value, params: Option<Value>) -> Expected {
        Expected {
            tool: tool.into(),
            arguments: args.as_object().unwrap().clone(),
            parameters: params,
        }
    }

    fn triangle() -> Expected {
        // BFCL simple_python_0.
        exp(
            "calculate_triangle_area",
            json!({"base": [10], "height": [5], "unit": ["units", ""]}),
            Some(
                json!({"type": "dict", "properties": {"base": {"type": "integer"}, "height": {"type": "integer"},
                "unit": {"type": "string"}}, "required": ["base", "height"]}),
            ),
        )
    }

    #[test]
    fn bfcl_rules_one_by_one() {
        let e = triangle();
        let b = Mode::Bfcl;
        let c = |args: Value| check(b, "calculate_triangle_area", &args, &e).map(|m| m.sentence());
        assert_eq!(c(json!({"base": 10, "height": 5})), None);
        assert_eq!(c(json!({"base": 10, "height": 5, "unit": "Units"})), None);
        assert_eq!(
            c(json!({"base": 10})),
            Some("missing required parameter: height".into())
        );
        assert_eq!(
            c(json!({"base": 10, "height": 5, "color": "red"})),
            Some("unexpected parameter: color".into())
        );
        assert_eq!(
            c(json!({"base": 10, "height": 6})),
            Some("value not acceptable: height = 6, expected one of [5]".into())
        );
        assert_eq!(
            c(json!({"base": "10", "height": 5})),
            Some("type mismatch: base should be integer, got string".into())
        );
        assert_eq!(
            check(b, "area", &json!({}), &e).map(|m| m.kind()),
            Some("wrong tool")
        );
    }

    #[test]
    fn bfcl_comparisons_and_strict_mode() {
        let e = exp(
            "math.hypot",
            json!({"x": [4.0], "city": ["New York, NY"], "tags": [["a b", "c"]]}),
            Some(
                json!({"type": "dict", "properties": {"x": {"type": "float"}, "city": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["x"]}),
            ),
        );
        let args = json!({"x": 4, "city": "new york ny", "tags": ["AB", "c"]});
        // An int for a float, a standardized string, the name with underscores.
        assert_eq!(check(Mode::Bfcl, "math_hypot", &args, &e), None);
        assert_eq!(
            check(Mode::Strict, "math_hypot", &args, &e).map(|m| m.kind()),
            Some("wrong tool")
        );
        let int_for_float = json!({"x": 4, "city": "New York, NY", "tags": ["a b", "c"]});
        assert_eq!(
            check(Mode::Strict, "math.hypot", &int_for_float, &e).map(|m| m.sentence()),
            Some("type mismatch: x should be float, got integer".into())
        );
        assert_eq!(
            check(
                Mode::Strict,
                "math.hypot",
                &json!({"x": 4.0, "city": "new york ny", "tags": ["a b", "c"]}),
                &e
            )
            .map(|m| m.kind()),
            Some("value not acceptable")
        );
        let exact = json!({"x": 4.0, "city": "New York, NY", "tags": ["a b", "c"]});
        assert_eq!(check(Mode::Strict, "math.hypot", &exact, &e), None);
    }

    #[test]
    fn a_task_of_parallel_calls() {
        let w = |city: &str| {
            exp(
                "get_weather",
                json!({"city": [city], "unit": ["celsius", ""]}),
                None,
            )
        };
        let expected = [w("Paris"), w("Tokyo")];
        let call = |city: &str| ("get_weather".to_string(), json!({"city": city}));
        let v = compare(
            Mode::Bfcl,
            false,
            &[call("tokyo"), call("Paris")],
            &expected,
        );
        assert!(v.valid, "{v:?}");
        assert_eq!(
            (v.tools_matched, v.calls_matched, v.in_sequence),
            (2, 2, false)
        );
        let v = compare(Mode::Bfcl, true, &[call("tokyo"), call("Paris")], &expected);
        assert_eq!(
            v.reason.as_deref(),
            Some("call 1: value not acceptable: city = \"tokyo\", expected one of [\"Paris\"]")
        );
        let v = compare(Mode::Bfcl, false, &[call("Paris"), call("Rome")], &expected);
        assert_eq!((v.valid, v.tools_matched, v.calls_matched), (false, 2, 1));
        assert!(
            v.reason
                .unwrap()
                .starts_with("no call matches expected call 2 (get_weather)")
        );
        let v = compare(Mode::Bfcl, false, &[call("Paris")], &expected);
        assert_eq!(
            v.reason.as_deref(),
            Some("wrong number of calls: 1, expected 2")
        );
    }

    #[test]
    fn python_equality() {
        assert!(py_eq(&json!(1), &json!(1.0)));
        assert!(py_eq(&json!(true), &json!(1)));
        assert!(!py_eq(&json!("1"), &json!(1)));
        assert!(py_eq(&json!([1, {"a": 2}]), &json!([1.0, {"a": 2.0}])));
    }
}
