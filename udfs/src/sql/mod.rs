//! SQL analysis behind the `sql_*` and `predicate_match` functions: parsing with the
//! dialect the agent's tool speaks, the catalog passed in by the caller, and name rules.
//!
//! Everything here is a pure function of (SQL text, dialect, catalog). Nothing is guessed:
//! a name that cannot be resolved becomes a reason, and the caller decides what a reason
//! means (for labels: the row needs human review).

pub mod analysis;
pub mod lineage;
pub mod normal;
pub mod predicate;
pub mod shape;

use std::collections::HashMap;

use datafusion::sql::sqlparser::ast::{Ident, Statement};
use datafusion::sql::sqlparser::dialect::{Dialect as ParserDialect, dialect_from_str};
use datafusion::sql::sqlparser::parser::Parser;

/// A SQL dialect: how to parse it and how it treats identifier case.
pub struct Dialect {
    pub name: String,
    pub parser: Box<dyn ParserDialect>,
    /// Quoted identifiers keep their case and must match exactly (PostgreSQL, Snowflake,
    /// Oracle…). Elsewhere every identifier matches without regard to case.
    pub quoted_is_exact: bool,
}

/// Binary operators a query may have before it is too large to analyse.
pub const MAX_OPERATORS: usize = 2_000;
/// Bytes of SQL a query may have before it is too large to analyse.
pub const MAX_SQL_BYTES: usize = 1 << 20;

fn is_operator(t: &datafusion::sql::sqlparser::tokenizer::Token) -> bool {
    use datafusion::sql::sqlparser::keywords::Keyword;
    use datafusion::sql::sqlparser::tokenizer::Token;
    match t {
        Token::Word(w) => matches!(w.keyword, Keyword::AND | Keyword::OR),
        Token::Plus
        | Token::Minus
        | Token::Mul
        | Token::Div
        | Token::Mod
        | Token::StringConcat
        | Token::Eq
        | Token::Neq
        | Token::Lt
        | Token::Gt
        | Token::LtEq
        | Token::GtEq => true,
        _ => false,
    }
}

impl Dialect {
    /// `generic`, `postgres`, `snowflake`, `bigquery`, `mysql`, `sqlite`, `duckdb`, and
    /// the other names sqlparser knows. Unknown names give `None`.
    pub fn from_name(name: &str) -> Option<Self> {
        let lower = name.trim().to_ascii_lowercase();
        let parser = dialect_from_str(if lower.is_empty() { "generic" } else { &lower })?;
        let quoted_is_exact = matches!(
            lower.as_str(),
            "postgres" | "postgresql" | "snowflake" | "oracle" | "redshift" | "ansi"
        );
        Some(Self {
            name: lower,
            parser,
            quoted_is_exact,
        })
    }

    /// SQLite (and MySQL without ANSI_QUOTES) read a double-quoted token that names no
    /// column as a string literal: `WHERE country = "USA"`.
    pub fn double_quoted_may_be_string(&self) -> bool {
        matches!(self.name.as_str(), "sqlite" | "mysql")
    }

    /// Parses `sql`, within a budget: the analysis walks the tree recursively, and a
    /// flat chain of 40,000 `OR`s is a tree 40,000 deep, so a statement with more binary
    /// operators than `MAX_OPERATORS` (or longer than `MAX_SQL_BYTES`) is not parsed at
    /// all; the caller gets a reason ("too large to analyse"), never a stack overflow.
    pub fn parse(&self, sql: &str) -> Result<Vec<Statement>, String> {
        if sql.len() > MAX_SQL_BYTES {
            return Err(format!(
                "too large to analyse: {} bytes of SQL (the limit is {MAX_SQL_BYTES})",
                sql.len()
            ));
        }
        let tokens =
            datafusion::sql::sqlparser::tokenizer::Tokenizer::new(self.parser.as_ref(), sql)
                .tokenize_with_location()
                .map_err(|e| format!("cannot parse: {e}"))?;
        let operators = tokens.iter().filter(|t| is_operator(&t.token)).count();
        if operators > MAX_OPERATORS {
            return Err(format!(
                "too large to analyse: {operators} operators in one query (the limit is {MAX_OPERATORS})"
            ));
        }
        Parser::new(self.parser.as_ref())
            .with_tokens_with_locations(tokens)
            .parse_statements()
            .map_err(|e| format!("cannot parse: {e}"))
    }

    /// The key an identifier is looked up by: folded unless quoted in an exact dialect.
    pub fn key(&self, ident: &Ident) -> String {
        if ident.quote_style.is_some() && self.quoted_is_exact {
            ident.value.clone()
        } else {
            ident.value.to_lowercase()
        }
    }

    /// Whether an identifier names `name` (a catalog name or an output column name).
    pub fn matches(&self, ident: &Ident, name: &str) -> bool {
        if ident.quote_style.is_some() && self.quoted_is_exact {
            ident.value == name
        } else {
            ident.value.eq_ignore_ascii_case(name)
        }
    }
}

/// The tables and columns the caller says exist, from entries `schema.table.column` or
/// `table.column`, each optionally followed by annotations: `pk` (part of the primary
/// key), `-> table.column` (a foreign key to it) and `[unit]` (the unit of an amount), as in
/// `orders.customer_id -> customers.id` or `orders.total_cents [cents]`. A field is
/// reported exactly as its name is written.
#[derive(Debug, Default, Clone)]
pub struct Catalog {
    tables: Vec<CatalogTable>,
    /// Lower-cased table name -> indexes into `tables`.
    by_name: HashMap<String, Vec<usize>>,
    /// Annotations by field name, lower-cased.
    info: HashMap<String, ColumnInfo>,
    /// Every way a reference can name a field (`field_named`): its lower-cased name and
    /// each dotted suffix of it, to the fields so named.
    by_suffix: HashMap<String, Vec<String>>,
}

#[derive(Debug, Clone)]
pub struct CatalogTable {
    pub schema: Option<String>,
    pub name: String,
    /// (column name, the field as given).
    pub columns: Vec<(String, String)>,
}

/// What an entry says about a column beyond its name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnInfo {
    pub primary_key: bool,
    /// The field this column references, as written after `->`.
    pub references: Option<String>,
    pub unit: Option<String>,
}

/// Splits an entry into its field name and annotations.
/// The parts of a dotted name, each bare or double-quoted (`""` inside a quoted part is
/// one `"`): `frpm."free meal count (k-12)"`. Returns the parts and the rest of the text
/// after the name.
pub fn name_parts(text: &str) -> (Vec<String>, &str) {
    let mut parts = Vec::new();
    let mut rest = text.trim_start();
    loop {
        let mut part = String::new();
        if let Some(r) = rest.strip_prefix('"') {
            let mut chars = r.char_indices().peekable();
            let mut end = r.len();
            while let Some((i, c)) = chars.next() {
                if c == '"' {
                    if chars.peek().is_some_and(|(_, n)| *n == '"') {
                        part.push('"');
                        chars.next();
                        continue;
                    }
                    end = i + 1;
                    break;
                }
                part.push(c);
            }
            rest = &r[end.min(r.len())..];
        } else {
            let end = rest
                .find(|c: char| c == '.' || c.is_whitespace())
                .unwrap_or(rest.len());
            part.push_str(&rest[..end]);
            rest = &rest[end..];
        }
        parts.push(part);
        match rest.strip_prefix('.') {
            Some(r) => rest = r,
            None => break,
        }
    }
    (parts, rest)
}

/// An entry: the dotted name (parts bare or double-quoted), then ` pk`, ` -> target`,
/// ` [unit]`. The name is returned with its parts unquoted, joined by '.'.
pub fn parse_entry(entry: &str) -> (String, Vec<String>, ColumnInfo) {
    let entry = entry.trim();
    let (parts, rest) = name_parts(entry);
    let name = parts.join(".");
    let mut info = ColumnInfo::default();
    let mut rest = rest.trim();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("->") {
            let (target, after) = name_parts(r);
            info.references = Some(target.join("."));
            rest = after.trim_start();
        } else if let Some(r) = rest.strip_prefix('[') {
            let (unit, after) = r.split_once(']').unwrap_or((r, ""));
            info.unit = Some(unit.trim().to_string());
            rest = after.trim_start();
        } else {
            let (word, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if word.eq_ignore_ascii_case("pk") {
                info.primary_key = true;
            }
            rest = after.trim_start();
        }
    }
    (name, parts, info)
}

impl Catalog {
    pub fn from_entries<'a>(entries: impl IntoIterator<Item = &'a str>) -> Self {
        let mut cat = Catalog::default();
        let mut index: HashMap<(Option<String>, String), usize> = HashMap::new();
        for entry in entries {
            let (entry, parts, info) = parse_entry(entry);
            if info != ColumnInfo::default() {
                cat.info.insert(entry.to_lowercase(), info);
            }
            let (schema, table, column) = match parts.as_slice() {
                [t, c] => (None, t.as_str(), c.as_str()),
                [s @ .., t, c] if !s.is_empty() => (Some(s.join(".")), t.as_str(), c.as_str()),
                _ => continue,
            };
            let entry = entry.as_str();
            let key = (schema.clone(), table.to_string());
            let i = *index.entry(key).or_insert_with(|| {
                cat.tables.push(CatalogTable {
                    schema: schema.clone(),
                    name: table.to_string(),
                    columns: Vec::new(),
                });
                cat.by_name
                    .entry(table.to_lowercase())
                    .or_default()
                    .push(cat.tables.len() - 1);
                cat.tables.len() - 1
            });
            let cols = &mut cat.tables[i].columns;
            if !cols.iter().any(|(c, _)| c == column) {
                cols.push((column.to_string(), entry.to_string()));
            }
        }
        for (_, field) in cat.tables.iter().flat_map(|t| t.columns.iter()) {
            let lower = field.to_lowercase();
            let suffixes = lower.match_indices('.').map(|(i, _)| &lower[i + 1..]);
            for name in std::iter::once(lower.as_str()).chain(suffixes) {
                cat.by_suffix
                    .entry(name.to_string())
                    .or_default()
                    .push(field.clone());
            }
        }
        cat
    }

    /// Annotations of a field (as `sql_fields` reports it).
    pub fn info(&self, field: &str) -> Option<&ColumnInfo> {
        if self.info.is_empty() {
            return None;
        }
        // Asked of every column compared or summed: a name already in lower case is
        // looked up without lowering a copy.
        if field.is_ascii() && !field.bytes().any(|b| b.is_ascii_uppercase()) {
            return self.info.get(field);
        }
        self.info.get(&field.to_lowercase())
    }

    /// The field a written reference (`customers.id`) means, if the catalog has it: the one
    /// field whose lower-cased name is the reference's, or ends with `.` and it.
    pub fn field_named(&self, written: &str) -> Option<String> {
        match self.by_suffix.get(&written.to_lowercase())?.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    pub fn table(&self, i: usize) -> &CatalogTable {
        &self.tables[i]
    }

    /// Tables a (possibly schema-qualified) name can mean.
    pub fn find(&self, dialect: &Dialect, name: &[Ident]) -> Vec<usize> {
        let Some(last) = name.last() else {
            return Vec::new();
        };
        let schema = name.len().checked_sub(2).map(|i| &name[i]);
        self.by_name
            .get(&last.value.to_lowercase())
            .map(|ids| {
                ids.iter()
                    .copied()
                    .filter(|&i| {
                        let t = &self.tables[i];
                        // A catalog without schemas cannot contradict a written one:
                        // `public.customers` and `db.schema.customers` are `customers`.
                        dialect.matches(last, &t.name)
                            && schema.is_none_or(|s| match t.schema.as_deref() {
                                None => true,
                                Some(ts) => dialect.matches(s, ts.rsplit('.').next().unwrap_or(ts)),
                            })
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialect_case_rules() {
        let pg = Dialect::from_name("postgres").unwrap();
        let quoted = Ident::with_quote('"', "Orders");
        assert!(!pg.matches(&quoted, "orders"));
        assert!(pg.matches(&Ident::new("ORDERS"), "orders"));
        let my = Dialect::from_name("MySQL").unwrap();
        assert!(my.matches(&Ident::with_quote('`', "Orders"), "orders"));
        assert!(Dialect::from_name("nope").is_none());
        assert_eq!(Dialect::from_name("").unwrap().name, "");
    }

    #[test]
    fn entries_carry_keys_and_units() {
        let (name, _, info) = parse_entry("orders.customer_id -> customers.id");
        assert_eq!(name, "orders.customer_id");
        assert_eq!(info.references.as_deref(), Some("customers.id"));
        let (_, _, info) = parse_entry("orders.total_cents [cents]");
        assert_eq!(info.unit.as_deref(), Some("cents"));
        let (_, _, info) = parse_entry("orders.id pk");
        assert!(info.primary_key);
        // Names with blanks, dots and quotes are double-quoted parts, never split.
        let (name, parts, info) =
            parse_entry(r#"frpm."Free Meal Count (K-12)" -> "school.list"."id ""x""" [count]"#);
        assert_eq!(name, "frpm.Free Meal Count (K-12)");
        assert_eq!(parts, ["frpm", "Free Meal Count (K-12)"]);
        assert_eq!(info.references.as_deref(), Some(r#"school.list.id "x""#));
        assert_eq!(info.unit.as_deref(), Some("count"));
        let cat =
            Catalog::from_entries(["orders.id pk", "orders.total_cents [cents]", "x.orders.id"]);
        assert_eq!(
            cat.info("orders.total_cents").unwrap().unit.as_deref(),
            Some("cents")
        );
        assert_eq!(
            cat.field_named("orders.total_cents").as_deref(),
            Some("orders.total_cents")
        );
        assert_eq!(
            cat.field_named("orders.id"),
            None,
            "two fields end in orders.id"
        );
        // Any case, any dotted suffix, never part of a name.
        assert_eq!(
            cat.field_named("TOTAL_Cents").as_deref(),
            Some("orders.total_cents")
        );
        assert_eq!(
            cat.field_named("X.orders.ID").as_deref(),
            Some("x.orders.id")
        );
        assert_eq!(cat.field_named("ders.id"), None);
        assert_eq!(cat.field_named("nope"), None);
    }

    #[test]
    fn catalog_finds_tables_by_schema() {
        let cat = Catalog::from_entries(["sales.orders.id", "ops.orders.id", "customers.id"]);
        let d = Dialect::from_name("generic").unwrap();
        assert_eq!(cat.find(&d, &[Ident::new("orders")]).len(), 2);
        let one = cat.find(&d, &[Ident::new("SALES"), Ident::new("Orders")]);
        assert_eq!(one.len(), 1);
        assert_eq!(cat.table(one[0]).columns[0].1, "sales.orders.id");
        assert_eq!(cat.find(&d, &[Ident::new("customers")]).len(), 1);
    }
}
