//! The same statement as different people and models write it (#25: real traces are
//! mostly distinct SQL, so a memo of the analysis must not make the benchmark free):
//! other table aliases (with or without `AS`), a name for a lone aggregate, keyword case, line breaks and
//! indentation, `IN` lists in another order, comparisons with the literal on the left,
//! `DATE '…'` or a plain string, a trailing `;`. Every variant means what the template
//! means, so the generated labels stay the labels intended (tests/it/synth.rs checks
//! that on every task).

use super::Rng;

/// Aliases a table may get, the template's own first.
const ALIASES: &[(&str, &[&str])] = &[
    ("customers", &["c", "cu", "cust", "cs"]),
    ("subscriptions", &["s", "sub", "subs", "sb"]),
    ("orders", &["o", "ord", "od", "orr"]),
    ("order_lines", &["l", "ol", "li", "oli"]),
    ("deals", &["d", "dl", "de", "dd"]),
    ("tickets", &["t", "tk", "tix", "tt"]),
];

/// Keywords a statement may break its line before.
const BREAKS: &[&str] = &[
    "FROM", "JOIN", "WHERE", "AND", "GROUP BY", "ORDER BY", "QUALIFY", "LIMIT", "SELECT",
];

/// A piece of a statement: code, or a quoted string (kept as it is).
enum Piece {
    Code(String),
    Quoted(String),
}

fn pieces(sql: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut code = String::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' {
            code.push(c);
            continue;
        }
        out.push(Piece::Code(std::mem::take(&mut code)));
        let mut q = String::from("'");
        while let Some(d) = chars.next() {
            q.push(d);
            if d == '\'' {
                if chars.peek() == Some(&'\'') {
                    q.push(chars.next().unwrap_or('\''));
                } else {
                    break;
                }
            }
        }
        out.push(Piece::Quoted(q));
    }
    out.push(Piece::Code(code));
    out
}

fn join(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Code(s) | Piece::Quoted(s) => s.as_str(),
        })
        .collect()
}

/// `old` as a whole word in `s` replaced by `new` (a word: not inside a longer name).
fn replace_word(s: &str, old: &str, new: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(old) {
        let before = rest[..i].chars().last();
        let after = rest[i + old.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(word) || after.is_some_and(word) {
            out.push_str(old);
        } else {
            out.push_str(new);
        }
        rest = &rest[i + old.len()..];
    }
    out.push_str(rest);
    out
}

/// `old.` (a qualifier, not the end of a longer name) in `s` as `new.`.
fn rename_qualifier(s: &str, old: &str, new: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let dotted = format!("{old}.");
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(&dotted) {
        out.push_str(&rest[..i]);
        if rest[..i].chars().last().is_some_and(word) {
            out.push_str(&dotted);
        } else {
            out.push_str(new);
            out.push('.');
        }
        rest = &rest[i + dotted.len()..];
    }
    out.push_str(rest);
    out
}

/// A variant of `sql` (see the module comment), drawn with `r`.
pub fn vary(sql: &str, r: &mut Rng) -> String {
    let mut parts = pieces(sql);
    // Aliases: `customers c` becomes `customers cust` or `customers AS cu`, and every
    // `c.` with it.
    for (table, names) in ALIASES {
        let old = names[0];
        let declared = format!("{table} {old}");
        if !parts
            .iter()
            .any(|p| matches!(p, Piece::Code(s) if replace_word(s, &declared, "") != *s))
        {
            continue;
        }
        let new = *r.pick(names);
        let with_as = r.chance(30);
        for p in parts.iter_mut() {
            if let Piece::Code(s) = p {
                let decl = if with_as {
                    format!("{table} AS {new}")
                } else {
                    format!("{table} {new}")
                };
                *s = replace_word(s, &declared, &decl);
                *s = rename_qualifier(s, old, new);
            }
        }
    }
    let mut sql = join(&parts);
    // A name for a lone aggregate (`SELECT SUM(x) AS total FROM`).
    if r.chance(60) {
        sql = name_aggregates(&sql, r.pick::<&str>(OUTPUT_NAMES));
    }
    // IN lists of strings in another order.
    if r.chance(50) {
        sql = reorder_in_lists(&sql, r);
    }
    // Dates as plain strings, or comparisons with the literal first.
    if r.chance(30) {
        sql = sql.replace("DATE '", "'");
    } else if r.chance(30) {
        sql = flip_date_comparisons(&sql);
    }
    // Keyword case and layout, in code only.
    let lower = r.chance(35);
    let indent = match r.below(3) {
        0 => None,
        1 => Some("  "),
        _ => Some("    "),
    };
    let mut parts = pieces(&sql);
    for p in parts.iter_mut() {
        if let Piece::Code(s) = p {
            if let Some(pad) = indent {
                for kw in BREAKS {
                    *s = replace_word(s, kw, &format!("\n{pad}{kw}"));
                }
            }
            if lower {
                *s = s.to_lowercase();
            }
        }
    }
    let mut sql = join(&parts).replace(" \n", "\n").trim_start().to_string();
    if r.chance(25) {
        sql.push(';');
    }
    sql
}

/// Names a lone aggregate may be given.
const OUTPUT_NAMES: &[&str] = &[
    "n",
    "total",
    "value",
    "result",
    "cnt",
    "answer",
    "amount_total",
    "count_",
    "v",
    "metric",
];

/// Each `SELECT COUNT(…) FROM` or `SELECT SUM(…) FROM` (one expression, unnamed) with
/// `AS name` after the expression.
fn name_aggregates(sql: &str, name: &str) -> String {
    let mut out = String::new();
    let mut rest = sql;
    while let Some(i) = rest.find("SELECT ") {
        let start = i + "SELECT ".len();
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        if !(rest.starts_with("COUNT(") || rest.starts_with("SUM(")) {
            continue;
        }
        // The end of the expression: its parenthesis closes, then FROM or an operator.
        let mut depth = 0;
        let mut end = None;
        for (k, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(k + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        // `SUM(x) / 100.0 FROM`: name the whole expression, up to FROM.
        let Some(from) = rest[end..].find(" FROM ") else {
            continue;
        };
        let expr_end = end + from;
        if rest[end..expr_end].contains(',') || rest[end..expr_end].contains(" AS ") {
            continue;
        }
        out.push_str(&rest[..expr_end]);
        out.push_str(" AS ");
        out.push_str(name);
        rest = &rest[expr_end..];
    }
    out.push_str(rest);
    out
}

/// `IN ('a', 'b', 'c')` with its items shuffled.
fn reorder_in_lists(sql: &str, r: &mut Rng) -> String {
    let mut out = String::new();
    let mut rest = sql;
    while let Some(i) = rest.find("IN ('") {
        let start = i + "IN (".len();
        let Some(len) = rest[start..].find(')') else {
            break;
        };
        out.push_str(&rest[..start]);
        let mut items: Vec<&str> = rest[start..start + len].split(", ").collect();
        if items
            .iter()
            .all(|s| s.starts_with('\'') && s.ends_with('\''))
        {
            for k in (1..items.len()).rev() {
                items.swap(k, r.below(k as u64 + 1) as usize);
            }
        }
        out.push_str(&items.join(", "));
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

/// `x >= DATE 'd'` written `DATE 'd' <= x`.
fn flip_date_comparisons(sql: &str) -> String {
    let mut words: Vec<String> = sql.split(' ').map(str::to_string).collect();
    let mut k = 0;
    while k + 3 < words.len() + 1 && k + 2 < words.len() {
        let flipped = match words[k + 1].as_str() {
            ">=" => Some("<="),
            "<=" => Some(">="),
            "<" => Some(">"),
            ">" => Some("<"),
            _ => None,
        };
        if let Some(op) = flipped
            && words[k + 2] == "DATE"
            && k + 3 < words.len()
            && words[k + 3].starts_with('\'')
            && words[k + 3].len() == 12
            && words[k + 3].ends_with('\'')
        {
            let column = words[k].clone();
            let date = words[k + 3].clone();
            words.splice(k..k + 4, ["DATE".to_string(), date, op.to_string(), column]);
            k += 4;
        } else {
            k += 1;
        }
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_keep_quotes_and_rename_whole_aliases() {
        let sql = "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN subscriptions s ON s.customer_id = c.customer_id \
                   WHERE c.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = 'EMEA' \
                   AND s.period_start <= DATE '2026-06-30'";
        let mut seen = std::collections::BTreeSet::new();
        for task in 0..200 {
            let v = vary(sql, &mut Rng::new(7, task));
            // Quoted values are never touched (their case included).
            assert!(
                v.contains("'ACTIVE'") && v.contains("'PAUSED_BILLING'"),
                "{v}"
            );
            assert!(v.contains("'EMEA'") && v.contains("2026-06-30'"), "{v}");
            // No alias is left half renamed.
            let lower = v.to_lowercase();
            assert!(lower.contains("customers"), "{v}");
            assert!(!lower.contains("cust.omer"), "{v}");
            seen.insert(v);
        }
        assert!(seen.len() > 150, "only {} variants of 200", seen.len());
        assert_eq!(
            name_aggregates("SELECT SUM(o.total_cents) / 100.0 FROM orders o", "v"),
            "SELECT SUM(o.total_cents) / 100.0 AS v FROM orders o"
        );
        assert_eq!(
            name_aggregates(
                "WITH a AS (SELECT c.id FROM c) SELECT COUNT(DISTINCT id) FROM a",
                "n"
            ),
            "WITH a AS (SELECT c.id FROM c) SELECT COUNT(DISTINCT id) AS n FROM a"
        );
        assert_eq!(
            flip_date_comparisons("WHERE o.closed_at >= DATE '2026-04-01' AND x = 1"),
            "WHERE DATE '2026-04-01' <= o.closed_at AND x = 1"
        );
    }
}
