//! The Berkeley Function Calling Leaderboard's files (`bfcl-eval` ships them under
//! `bfcl_eval/data/`): question files become cases whose gold lists the expected calls
//! (from the possible-answer files, with each function's parameter schema), and model
//! result files become steps, so BFCL's single-turn categories (simple, multiple,
//! parallel, parallel-multiple, live, irrelevance) are scored in SQL (task_tool_calls).
//!
//! Every file is JSON lines; a line is told by its keys: `question` + `function` (a
//! question), `ground_truth` (its possible answers), `result` (a model's output: a list of
//! `{name: arguments}` as function-calling models give it, arguments an object or JSON
//! text, or the Python call syntax prompting models give, `[f(a=1, b='x')]`).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::TraceFile;
use crate::error::{Error, Result};

/// What was read.
#[derive(Debug, Default)]
pub struct Bfcl {
    pub cases: Vec<Value>,
    pub steps: Vec<Value>,
    /// What was read and left, for the summary.
    pub notes: Vec<String>,
}

struct Question {
    text: String,
    functions: Vec<Value>,
}

fn bad(input: &TraceFile, line: usize, why: impl std::fmt::Display) -> Error {
    Error::Input(format!("{}:{line}: {why}", input.display))
}

/// Reads the files; `server` names the model whose results these are.
pub fn read(files: &[TraceFile], run_id: &str, server: &str) -> Result<Bfcl> {
    let mut questions: BTreeMap<String, Question> = BTreeMap::new();
    let mut answers: BTreeMap<String, Value> = BTreeMap::new();
    let mut results: Vec<(String, Value, String, usize)> = Vec::new();
    let mut multi_turn = 0;
    for input in files {
        let text = std::str::from_utf8(&input.bytes)
            .map_err(|e| bad(input, 0, format!("not UTF-8: {e}")))?;
        for (n, line) in text.lines().enumerate() {
            let n = n + 1;
            let line = line.trim_start_matches('\u{feff}').trim();
            if line.is_empty() {
                continue;
            }
            let v: Value =
                serde_json::from_str(line).map_err(|e| bad(input, n, format!("not JSON: {e}")))?;
            let id = v
                .get("id")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(input, n, "no string field id"))?
                .to_string();
            if let (Some(q), Some(f)) = (v.get("question"), v.get("function")) {
                let Some(turns) = q.as_array() else {
                    return Err(bad(input, n, "question: expected a list of turns"));
                };
                if turns.len() > 1 || id.contains("multi_turn") {
                    multi_turn += 1;
                    continue;
                }
                let text = turns
                    .iter()
                    .flat_map(|t| t.as_array().cloned().unwrap_or_default())
                    .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
                    .filter_map(|m| m.get("content").and_then(Value::as_str).map(str::to_string))
                    .collect::<Vec<_>>()
                    .join("\n");
                let functions = f
                    .as_array()
                    .cloned()
                    .ok_or_else(|| bad(input, n, "function: expected a list"))?;
                questions.insert(id, Question { text, functions });
            } else if let Some(g) = v.get("ground_truth") {
                if !g.is_array() {
                    return Err(bad(input, n, "ground_truth: expected a list"));
                }
                answers.insert(id, g.clone());
            } else if let Some(r) = v.get("result") {
                results.push((id, r.clone(), input.display.clone(), n));
            } else {
                return Err(bad(
                    input,
                    n,
                    "neither a question (question, function), a possible answer (ground_truth) nor a result (result)",
                ));
            }
        }
    }
    let mut out = Bfcl::default();
    let mut without_answer = 0;
    for (id, q) in &questions {
        let expected = match answers.get(id) {
            Some(g) => expected_calls(g, &q.functions)
                .map_err(|e| Error::Input(format!("the possible answer of {id}: {e}")))?,
            // Irrelevance: the right answer is no call.
            None if id.contains("irrelevance") => Vec::new(),
            None => {
                without_answer += 1;
                continue;
            }
        };
        out.cases.push(json!({
            "case_id": id, "source_trace": format!("bfcl-{server}-{id}"),
            "user_role": "bfcl", "as_user": "bfcl", "question": q.text,
            "gold": {"required_fields": [], "expected_calls": expected, "call_order": "any"},
        }));
    }
    let mut undecodable = 0;
    for (id, r, file, line) in &results {
        let calls = match decode(r) {
            Ok(c) => c,
            Err(e) => {
                undecodable += 1;
                out.notes.push(format!(
                    "{file}:{line}: the result of {id} cannot be decoded ({e}); it counts as no call, as BFCL counts it"
                ));
                Vec::new()
            }
        };
        let trace_id = format!("bfcl-{server}-{id}");
        let mut step = 0;
        let mut push = |mut row: Value| {
            step += 1;
            row["run_id"] = json!(run_id);
            row["server"] = json!(server);
            row["case_id"] = json!(id);
            row["trace_id"] = json!(trace_id);
            row["step"] = json!(step);
            out.steps.push(row);
        };
        if let Some(q) = questions.get(id) {
            push(json!({"kind": "user", "text": q.text, "as_user": "bfcl"}));
        }
        for (k, (name, args)) in calls.into_iter().enumerate() {
            push(
                json!({"kind": "tool_call", "call_id": format!("c{}", k + 1), "tool": name,
                        "arguments": args, "as_user": "bfcl"}),
            );
        }
    }
    out.notes.insert(
        0,
        format!(
            "{} question(s) as cases ({} without a possible answer left out, {} multi-turn left out: the AST checker does not score them), {} result(s) as traces of server {server}{}",
            out.cases.len(),
            without_answer,
            multi_turn,
            results.len(),
            if undecodable > 0 {
                format!(", {undecodable} of them undecodable")
            } else {
                String::new()
            }
        ),
    );
    if out.cases.is_empty() && out.steps.is_empty() {
        return Err(Error::Input(format!(
            "no BFCL question or result in {}",
            files
                .iter()
                .map(|f| f.display.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(out)
}

/// BFCL's ground truth (`[{name: {param: [values]}}]`) as expected calls, each with the
/// parameter schema of its function.
fn expected_calls(
    ground_truth: &Value,
    functions: &[Value],
) -> std::result::Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for g in ground_truth.as_array().into_iter().flatten() {
        let Some((name, args)) = g.as_object().and_then(|o| o.iter().next()) else {
            return Err("an item is not {function: {parameter: [values]}}".into());
        };
        if !args.is_object() {
            return Err(format!("{name}: the parameters are not an object"));
        }
        let schema = functions
            .iter()
            .find(|f| f.get("name").and_then(Value::as_str) == Some(name))
            .and_then(|f| f.get("parameters"))
            .cloned();
        out.push(json!({"tool": name, "arguments": args, "parameters": schema}));
    }
    Ok(out)
}

/// A model's result as calls: `[{name: args}]` (args an object or JSON text) or Python
/// call syntax.
fn decode(r: &Value) -> std::result::Result<Vec<(String, Value)>, String> {
    match r {
        Value::Array(items) => items
            .iter()
            .map(|item| {
                let (name, args) = item
                    .as_object()
                    .filter(|o| o.len() == 1)
                    .and_then(|o| o.iter().next())
                    .ok_or("an item is not {function: arguments}")?;
                let args = match args {
                    Value::String(s) => serde_json::from_str(s)
                        .map_err(|e| format!("the arguments of {name} are not JSON: {e}"))?,
                    other => other.clone(),
                };
                Ok((name.clone(), args))
            })
            .collect(),
        Value::String(s) => python_calls(s),
        _ => Err("a result is a list of calls or a string".into()),
    }
}

/// `[f(a=1, b='x'), g.h(c=[1, 2])]`: Python calls with keyword arguments whose values are
/// literals (numbers, strings, True/False/None, lists, tuples, dicts), as BFCL's
/// prompting models answer. Tuples become lists, as BFCL's `ast` decoding does.
pub fn python_calls(text: &str) -> std::result::Result<Vec<(String, Value)>, String> {
    let t = text
        .trim()
        .trim_matches(|c| c == '`' || c == '\n' || c == ' ');
    let t = t.strip_prefix("python").unwrap_or(t).trim();
    let wrapped = match (t.starts_with('['), t.ends_with(']')) {
        (true, true) => t.to_string(),
        (true, false) => format!("{t}]"),
        (false, true) => format!("[{t}"),
        (false, false) => format!("[{t}]"),
    };
    let mut p = Py {
        s: wrapped.as_bytes(),
        i: 0,
    };
    p.expect(b'[')?;
    let mut calls = Vec::new();
    loop {
        p.ws();
        if p.eat(b']') {
            break;
        }
        let name = p.dotted_name()?;
        p.expect(b'(')?;
        let mut args = Map::new();
        loop {
            p.ws();
            if p.eat(b')') {
                break;
            }
            let key = p.name()?;
            p.ws();
            p.expect(b'=')?;
            let v = p.value()?;
            args.insert(key, v);
            p.ws();
            if !p.eat(b',') {
                p.ws();
                p.expect(b')')?;
                break;
            }
        }
        calls.push((name, Value::Object(args)));
        p.ws();
        if !p.eat(b',') {
            p.ws();
            p.expect(b']')?;
            break;
        }
    }
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text at {}", p.i));
    }
    Ok(calls)
}

struct Py<'a> {
    s: &'a [u8],
    i: usize,
}

impl Py<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> std::result::Result<(), String> {
        self.ws();
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected '{}' at {}", c as char, self.i))
        }
    }

    fn name(&mut self) -> std::result::Result<String, String> {
        self.ws();
        let start = self.i;
        // Python names may hold any Unicode letter (`año_vehiculo`, seen in BFCL's live
        // data): every non-ASCII byte is taken as part of one.
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric()
                || self.s[self.i] == b'_'
                || self.s[self.i] >= 0x80)
        {
            self.i += 1;
        }
        if start == self.i {
            return Err(format!("expected a name at {start}"));
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    fn dotted_name(&mut self) -> std::result::Result<String, String> {
        let mut name = self.name()?;
        while self.eat(b'.') {
            name.push('.');
            name.push_str(&self.name()?);
        }
        Ok(name)
    }

    fn value(&mut self) -> std::result::Result<Value, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'\'' | b'"') => self.string().map(Value::String),
            Some(b'[') => self.seq(b'[', b']'),
            Some(b'(') => self.seq(b'(', b')'),
            Some(b'{') => self.dict(),
            Some(c) if c.is_ascii_digit() || *c == b'-' || *c == b'+' || *c == b'.' => {
                self.number()
            }
            Some(_) => {
                let w = self.name()?;
                match w.as_str() {
                    "True" => Ok(Value::Bool(true)),
                    "False" => Ok(Value::Bool(false)),
                    "None" => Ok(Value::Null),
                    other => Err(format!("{other} is not a literal")),
                }
            }
            None => Err("unexpected end".into()),
        }
    }

    fn string(&mut self) -> std::result::Result<String, String> {
        let q = self.s[self.i];
        self.i += 1;
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or("unterminated string")?;
                    self.i += 1;
                    let hex = |p: &mut Self, n: usize| -> std::result::Result<char, String> {
                        let digits = p.s.get(p.i..p.i + n).ok_or("short escape")?;
                        p.i += n;
                        u32::from_str_radix(&String::from_utf8_lossy(digits), 16)
                            .ok()
                            .and_then(char::from_u32)
                            .ok_or_else(|| "bad escape".to_string())
                    };
                    let c = match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'0' => '\0',
                        b'x' => hex(self, 2)?,
                        b'u' => hex(self, 4)?,
                        b'U' => hex(self, 8)?,
                        other => other as char,
                    };
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                c if c == q => return String::from_utf8(out).map_err(|e| e.to_string()),
                c => out.push(c),
            }
        }
        Err("unterminated string".into())
    }

    fn number(&mut self) -> std::result::Result<Value, String> {
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_digit()
                || matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'_'))
        {
            self.i += 1;
        }
        let t = String::from_utf8_lossy(&self.s[start..self.i]).replace('_', "");
        if let Ok(i) = t.parse::<i64>() {
            return Ok(json!(i));
        }
        t.parse::<f64>()
            .map(|f| json!(f))
            .map_err(|_| format!("{t} is not a number"))
    }

    fn seq(&mut self, open: u8, close: u8) -> std::result::Result<Value, String> {
        self.expect(open)?;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.eat(close) {
                return Ok(Value::Array(items));
            }
            items.push(self.value()?);
            self.ws();
            if !self.eat(b',') {
                self.expect(close)?;
                return Ok(Value::Array(items));
            }
        }
    }

    fn dict(&mut self) -> std::result::Result<Value, String> {
        self.expect(b'{')?;
        let mut m = Map::new();
        loop {
            self.ws();
            if self.eat(b'}') {
                return Ok(Value::Object(m));
            }
            let k = match self.value()? {
                Value::String(s) => s,
                other => other.to_string(),
            };
            self.expect(b':')?;
            let v = self.value()?;
            m.insert(k, v);
            self.ws();
            if !self.eat(b',') {
                self.expect(b'}')?;
                return Ok(Value::Object(m));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_call_syntax() {
        assert_eq!(
            python_calls("[calculate_triangle_area(base=10, height=5, unit='units'), math.hypot(x=4.0, y=-5, z=None)]").unwrap(),
            vec![
                ("calculate_triangle_area".to_string(), json!({"base": 10, "height": 5, "unit": "units"})),
                ("math.hypot".to_string(), json!({"x": 4.0, "y": -5, "z": null})),
            ]
        );
        assert_eq!(
            python_calls("f(a=[1, (2, 3)], b={'k': \"v\", 'n': True})").unwrap(),
            vec![(
                "f".to_string(),
                json!({"a": [1, [2, 3]], "b": {"k": "v", "n": true}})
            )]
        );
        assert_eq!(python_calls("[]").unwrap(), vec![]);
        assert_eq!(
            python_calls("[f(año=2024)]").unwrap(),
            vec![("f".to_string(), json!({"año": 2024}))]
        );
        assert_eq!(
            python_calls(r"[f(s='it\'s \xe9\u2019\n')]").unwrap(),
            vec![("f".to_string(), json!({"s": "it's \u{e9}\u{2019}\n"}))]
        );
        assert!(
            python_calls("[f(a=x)]")
                .unwrap_err()
                .contains("not a literal")
        );
    }
}
