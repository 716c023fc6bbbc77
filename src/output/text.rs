//! Text tables for the terminal: values as printed, columns aligned.

use serde_json::Value;

pub fn fmt_value(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "-".into(),
        Some(Value::Number(n)) if n.is_f64() => format!("{:.4}", n.as_f64().unwrap_or_default()),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Columns aligned: the first to the left, the rest to the right (numbers).
pub fn align(lines: &[Vec<String>]) -> String {
    align_with(lines, false)
}

/// Columns aligned to the left (text).
pub fn align_left(lines: &[Vec<String>]) -> String {
    align_with(lines, true)
}

fn align_with(lines: &[Vec<String>], left: bool) -> String {
    let cols = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            lines
                .iter()
                .filter_map(|l| l.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for l in lines {
        out.push_str(&aligned_line(&widths, l, left));
        out.push('\n');
    }
    out
}

/// One line of cells padded to `widths`: the first column to the left, the rest to the
/// right unless `left`.
pub fn aligned_line(widths: &[usize], cells: &[String], left: bool) -> String {
    let cells: Vec<String> = cells
        .iter()
        .zip(widths)
        .enumerate()
        .map(|(c, (s, &w))| {
            if c == 0 || left {
                format!("{s:<w$}")
            } else {
                format!("{s:>w$}")
            }
        })
        .collect();
    cells.join("  ").trim_end().to_string()
}
