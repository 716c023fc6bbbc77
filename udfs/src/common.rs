//! What every function shares: reading string and list arguments in any of Arrow's string
//! layouts (Utf8, LargeUtf8, Utf8View), argument type checks, the catalog argument, and a
//! bounded memo for results of repeated inputs.
//!
//! Policy for bad values, the same in every function: a value that cannot be analyzed
//! gives a result that says so (a reason, `unsure`), never a panic; an argument of the
//! wrong type is a plan error.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, LazyLock, Mutex};

use datafusion::arrow::array::{Array, ArrayRef, AsArray, GenericListArray, OffsetSizeTrait};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, plan_err};
use datafusion::logical_expr::ColumnarValue;

use crate::sql::analysis::{Analysis, analyse};
use crate::sql::{Catalog, Dialect};

/// A function's struct (its signature: by default any arguments, which `return_type`
/// checks with `check_args`), its `Default`, and `$udf()`, the one shared `ScalarUDF` of it, as
/// datafusion-functions-json's `make_udf_function!` gives each of its functions.
#[macro_export]
macro_rules! make_udf {
    ($ty:ident, $udf:ident) => {
        $crate::make_udf!(
            $ty,
            $udf,
            datafusion::logical_expr::Signature::variadic_any(
                datafusion::logical_expr::Volatility::Immutable,
            )
        );
    };
    ($ty:ident, $udf:ident, $signature:expr) => {
        #[derive(Debug, PartialEq, Eq, Hash)]
        pub struct $ty {
            signature: datafusion::logical_expr::Signature,
        }

        impl Default for $ty {
            fn default() -> Self {
                Self {
                    signature: $signature,
                }
            }
        }

        /// The function as a `ScalarUDF`, built once.
        pub fn $udf() -> std::sync::Arc<datafusion::logical_expr::ScalarUDF> {
            static UDF: std::sync::OnceLock<std::sync::Arc<datafusion::logical_expr::ScalarUDF>> =
                std::sync::OnceLock::new();
            UDF.get_or_init(|| {
                std::sync::Arc::new(datafusion::logical_expr::ScalarUDF::new_from_impl(
                    $ty::default(),
                ))
            })
            .clone()
        }
    };
}

pub fn is_string(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null
    )
}

pub fn is_string_list(t: &DataType) -> bool {
    match t {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            is_string(f.data_type())
        }
        DataType::Null => true,
        _ => false,
    }
}

/// Plan-time check of argument types: `kinds[i]` is "string" or "string list"; the first
/// `required` must be present.
pub fn check_args(name: &str, args: &[DataType], kinds: &[&str], required: usize) -> Result<()> {
    if args.len() < required || args.len() > kinds.len() {
        return plan_err!(
            "{name} takes {} to {} arguments ({}), got {}",
            required,
            kinds.len(),
            kinds.join(", "),
            args.len()
        );
    }
    for (i, (t, kind)) in args.iter().zip(kinds).enumerate() {
        let ok = match *kind {
            "string list" => is_string_list(t),
            _ => is_string(t),
        };
        if !ok {
            return plan_err!("{name}: argument {} must be a {kind}, got {t}", i + 1);
        }
    }
    Ok(())
}

/// Arguments as arrays of the batch's length (scalars repeated).
pub fn arrays(args: &[ColumnarValue], rows: usize) -> Result<Vec<ArrayRef>> {
    args.iter().map(|a| a.to_array(rows)).collect()
}

/// Row access to a string array of any layout.
pub enum Strings<'a> {
    Utf8(&'a datafusion::arrow::array::StringArray),
    Large(&'a datafusion::arrow::array::LargeStringArray),
    View(&'a datafusion::arrow::array::StringViewArray),
    Null,
}

impl<'a> Strings<'a> {
    pub fn new(a: &'a ArrayRef) -> Result<Self> {
        Ok(match a.data_type() {
            DataType::Utf8 => Strings::Utf8(a.as_string::<i32>()),
            DataType::LargeUtf8 => Strings::Large(a.as_string::<i64>()),
            DataType::Utf8View => Strings::View(a.as_string_view()),
            DataType::Null => Strings::Null,
            t => return plan_err!("expected a string, got {t}"),
        })
    }

    pub fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Strings::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Large(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::View(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Null => None,
        }
    }
}

/// The strings of row `i` of a list-of-strings array (None for a null row).
pub fn list_strings(a: &ArrayRef, i: usize) -> Result<Option<Vec<String>>> {
    fn of<O: OffsetSizeTrait>(l: &GenericListArray<O>, i: usize) -> Result<Option<Vec<String>>> {
        if l.is_null(i) {
            return Ok(None);
        }
        let values = l.value(i);
        let s = Strings::new(&values)?;
        Ok(Some(
            (0..values.len())
                .filter_map(|j| s.get(j).map(str::to_string))
                .collect(),
        ))
    }
    match a.data_type() {
        DataType::List(_) => of(a.as_list::<i32>(), i),
        DataType::LargeList(_) => of(a.as_list::<i64>(), i),
        DataType::FixedSizeList(_, _) => {
            let l = a.as_fixed_size_list();
            if l.is_null(i) {
                return Ok(None);
            }
            let values = l.value(i);
            let s = Strings::new(&values)?;
            Ok(Some(
                (0..values.len())
                    .filter_map(|j| s.get(j).map(str::to_string))
                    .collect(),
            ))
        }
        DataType::Null => Ok(None),
        t => plan_err!("expected a list of strings, got {t}"),
    }
}

/// The dialect argument, or an error naming the unknown dialect.
pub fn dialect(name: Option<&str>) -> std::result::Result<Dialect, String> {
    let name = name.unwrap_or("generic");
    Dialect::from_name(name).ok_or_else(|| format!("unknown dialect {name}"))
}

/// Catalogs by content, so that one catalog repeated on every row is built once.
#[derive(Default)]
pub struct Catalogs {
    built: HashMap<u64, Arc<Catalog>>,
}

impl Catalogs {
    /// The catalog of row `i` of the catalog argument (empty when absent or null), and a
    /// hash of its content for memo keys.
    pub fn row(&mut self, arg: Option<&ArrayRef>, i: usize) -> Result<(Arc<Catalog>, u64)> {
        let entries = match arg {
            Some(a) => list_strings(a, i)?.unwrap_or_default(),
            None => Vec::new(),
        };
        let mut h = std::collections::hash_map::DefaultHasher::new();
        entries.hash(&mut h);
        let key = h.finish();
        let cat = self
            .built
            .entry(key)
            .or_insert_with(|| Arc::new(Catalog::from_entries(entries.iter().map(String::as_str))))
            .clone();
        Ok((cat, key))
    }
}

/// A bounded memo of results for repeated inputs (agents send the same SQL again and
/// again). It only saves work: a hit returns what a miss would compute. Two generations:
/// when the newer one is full it becomes the older (the older is dropped), so the last
/// `capacity` to `2 * capacity` results are kept, never fewer.
pub struct Memo<K, V> {
    map: Mutex<Generations<K, V>>,
    capacity: usize,
}

struct Generations<K, V> {
    new: HashMap<K, V>,
    old: HashMap<K, V>,
}

impl<K: Hash + Eq, V: Clone> Memo<K, V> {
    pub fn new(capacity: usize) -> Self {
        Self {
            map: Mutex::new(Generations {
                new: HashMap::new(),
                old: HashMap::new(),
            }),
            capacity,
        }
    }

    /// The result kept for `key`, else `compute()` kept. Looked up by a borrowed key (a
    /// `&str` for a `String` key), copied only when the result is not kept: a hit
    /// allocates nothing.
    pub fn get_or<Q>(&self, key: &Q, compute: impl FnOnce() -> V) -> V
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        self.get_or_if(key, |_| true, compute)
    }

    /// As `get_or`, a kept result counting only when `valid` says it answers this call
    /// (a key that is a hash of the inputs: the result keeps its inputs to compare).
    pub fn get_or_if<Q>(
        &self,
        key: &Q,
        valid: impl Fn(&V) -> bool,
        compute: impl FnOnce() -> V,
    ) -> V
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        {
            let g = self.map.lock().expect("memo lock");
            if let Some(v) = g.new.get(key).or_else(|| g.old.get(key))
                && valid(v)
            {
                return v.clone();
            }
        }
        let v = compute();
        let mut g = self.map.lock().expect("memo lock");
        if g.new.len() >= self.capacity {
            g.old = std::mem::take(&mut g.new);
        }
        g.new.insert(key.to_owned(), v.clone());
        v
    }
}

/// Analyses kept for every SQL function (`sql::analysis`), per generation of the memo.
/// Labeling analyses each call's SQL when it computes call_fields, then asks the grain
/// and time checks of the same SQL, and predicate_match once per business term of the
/// task: the analyses of a chunk of calls (about 20,000 SQL statements, mostly distinct, at 250,000 steps) must
/// still be there. An entry is a few hundred bytes beside its SQL text.
const ANALYSES: usize = 16_384;

/// The memo of analyses is split by key so that the cores labeling side by side seldom
/// wait on one lock; each part keeps `ANALYSES / SHARDS` to twice that.
const SHARDS: usize = 16;

/// An analysis with the inputs it answers. The memo is keyed by a hash of those (a lookup
/// copies nothing): a kept entry whose inputs differ is a collision, and is analysed anew.
struct Analysed {
    sql: Box<str>,
    dialect: Box<str>,
    catalog: u64,
    analysis: Arc<Analysis>,
}

static ANALYSED: LazyLock<Vec<Memo<u64, Arc<Analysed>>>> =
    LazyLock::new(|| (0..SHARDS).map(|_| Memo::new(ANALYSES / SHARDS)).collect());

/// The analysis of a row's SQL, from the memo when it was analysed before.
pub fn analysis(row: &SqlRow) -> Arc<Analysis> {
    use std::hash::BuildHasher;
    let key = foldhash::fast::FixedState::default().hash_one((
        row.sql,
        row.dialect_name,
        row.catalog_key,
    ));
    let shard = &ANALYSED[(key >> 32) as usize % SHARDS];
    let same = |a: &Arc<Analysed>| {
        a.catalog == row.catalog_key && *a.sql == *row.sql && *a.dialect == *row.dialect_name
    };
    let found = shard.get_or_if(&key, same, || {
        Arc::new(Analysed {
            sql: row.sql.into(),
            dialect: row.dialect_name.into(),
            catalog: row.catalog_key,
            analysis: Arc::new(match row.dialect() {
                Ok(d) => analyse(row.sql, &d, &row.catalog),
                Err(reason) => Analysis::failed(reason),
            }),
        })
    });
    found.analysis.clone()
}

/// One row's inputs to a SQL-analysing function.
pub struct SqlRow<'a> {
    pub sql: &'a str,
    /// The dialect named (generic when absent).
    pub dialect_name: &'a str,
    pub catalog: Arc<Catalog>,
    /// Hash of the catalog's entries, for memo keys.
    pub catalog_key: u64,
}

impl SqlRow<'_> {
    pub fn dialect(&self) -> std::result::Result<Dialect, String> {
        dialect(Some(self.dialect_name))
    }
}

/// Arguments as arrays of the batch's length, except a scalar argument at `catalog`
/// (`(SELECT entries FROM catalog_entries)`), which stays one row: repeating a list of
/// catalog entries on every row would copy it, and read it back, once per row.
pub fn sql_arrays(args: &[ColumnarValue], rows: usize, catalog: usize) -> Result<Vec<ArrayRef>> {
    args.iter()
        .enumerate()
        .map(|(i, a)| match a {
            ColumnarValue::Scalar(s) if i == catalog => s.to_array_of_size(1),
            a => a.to_array(rows),
        })
        .collect()
}

/// The `sql [, dialect [, catalog]]` arguments of a function, at their positions, from
/// `sql_arrays`.
pub struct SqlArgs<'a> {
    sql: Strings<'a>,
    dialects: Option<Strings<'a>>,
    catalog: Option<&'a ArrayRef>,
    /// The catalog argument is one row for the whole batch.
    one_catalog: bool,
    catalogs: Catalogs,
    /// The catalog of the last row asked, by its row in the catalog argument.
    last: Option<(usize, Arc<Catalog>, u64)>,
}

impl<'a> SqlArgs<'a> {
    pub fn new(arrays: &'a [ArrayRef], sql: usize, dialect: usize, catalog: usize) -> Result<Self> {
        let rows = arrays[sql].len();
        let catalog = arrays.get(catalog);
        Ok(Self {
            sql: Strings::new(&arrays[sql])?,
            dialects: arrays.get(dialect).map(Strings::new).transpose()?,
            one_catalog: catalog.is_some_and(|c| c.len() == 1 && rows != 1),
            catalog,
            catalogs: Catalogs::default(),
            last: None,
        })
    }

    fn catalog_row(&mut self, i: usize) -> Result<(Arc<Catalog>, u64)> {
        let i = if self.one_catalog { 0 } else { i };
        if let Some((row, cat, key)) = &self.last
            && *row == i
        {
            return Ok((cat.clone(), *key));
        }
        let (cat, key) = self.catalogs.row(self.catalog, i)?;
        self.last = Some((i, cat.clone(), key));
        Ok((cat, key))
    }

    /// Row `i`, or `None` when its SQL is NULL.
    pub fn row(&mut self, i: usize) -> Result<Option<SqlRow<'a>>> {
        let Some(sql) = self.sql.get(i) else {
            return Ok(None);
        };
        let dialect_name = self
            .dialects
            .as_ref()
            .and_then(|d| d.get(i))
            .unwrap_or("generic");
        let (catalog, catalog_key) = self.catalog_row(i)?;
        Ok(Some(SqlRow {
            sql,
            dialect_name,
            catalog,
            catalog_key,
        }))
    }
}

/// Documentation in the section every groundcheck function shares.
pub fn doc_section() -> datafusion::logical_expr::DocSection {
    datafusion::logical_expr::DocSection {
        include: true,
        label: "groundcheck",
        description: Some(
            "Functions over agent traces: SQL grounding, predicates, windows, grain.",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ListBuilder, StringArray, StringBuilder};
    use datafusion::common::ScalarValue;

    fn catalogs(rows: &[&[&str]]) -> ArrayRef {
        let mut b = ListBuilder::new(StringBuilder::new());
        for r in rows {
            for e in *r {
                b.values().append_value(e);
            }
            b.append(true);
        }
        Arc::new(b.finish())
    }

    /// A kept result that does not answer the call (a hash collision) is computed anew
    /// and replaces it.
    #[test]
    fn memo_computes_again_what_a_kept_result_does_not_answer() {
        let m: Memo<u32, (u32, &str)> = Memo::new(4);
        assert_eq!(m.get_or_if(&1, |v| v.1 == "a", || (10, "a")), (10, "a"));
        assert_eq!(m.get_or_if(&1, |v| v.1 == "a", || (99, "a")), (10, "a"));
        assert_eq!(m.get_or_if(&1, |v| v.1 == "b", || (20, "b")), (20, "b"));
        assert_eq!(m.get_or_if(&1, |v| v.1 == "b", || (99, "b")), (20, "b"));
    }

    /// The same SQL asked again is answered from the memo, with its own analysis.
    #[test]
    fn analyses_are_kept_per_sql_dialect_and_catalog() {
        let catalog = Arc::new(Catalog::from_entries(["orders.id pk", "orders.total"]));
        let row = |sql, dialect, catalog_key| SqlRow {
            sql,
            dialect_name: dialect,
            catalog: catalog.clone(),
            catalog_key,
        };
        let a = analysis(&row("SELECT total FROM orders", "generic", 7));
        let again = analysis(&row("SELECT total FROM orders", "generic", 7));
        assert!(Arc::ptr_eq(&a, &again));
        assert!(a.fields.fields.iter().eq(["orders.total"]));
        let other = analysis(&row("SELECT id FROM orders", "generic", 7));
        assert!(other.fields.fields.iter().eq(["orders.id"]));
        let elsewhere = analysis(&row("SELECT total FROM orders", "nope", 7));
        assert!(!Arc::ptr_eq(&a, &elsewhere));
        assert!(!elsewhere.fields.reasons.is_empty());
    }

    #[test]
    fn memo_keeps_the_last_capacity_results() {
        let m: Memo<u32, u32> = Memo::new(2);
        let computed = std::cell::Cell::new(0);
        let get = |k| {
            m.get_or(&k, || {
                computed.set(computed.get() + 1);
                k * 10
            })
        };
        for k in [1, 2, 3] {
            assert_eq!(get(k), k * 10);
        }
        // 3 started a new generation; 1 and 2 are in the older one, still kept.
        assert_eq!((get(1), get(2), get(3)), (10, 20, 30));
        assert_eq!(computed.get(), 3);
        get(4);
        get(5);
        // 5 dropped the generation holding 1 and 2.
        assert_eq!((get(3), get(4)), (30, 40));
        assert_eq!(computed.get(), 5);
        get(1);
        assert_eq!(computed.get(), 6);
    }

    /// A scalar catalog stays one row and serves every row; a catalog column is read per
    /// row.
    #[test]
    fn scalar_and_column_catalogs() {
        let sql: ArrayRef = Arc::new(StringArray::from(vec!["SELECT a FROM t"; 3]));
        let one = catalogs(&[&["t.a"]]);
        let scalar = ScalarValue::try_from_array(&one, 0).unwrap();
        let args = [
            ColumnarValue::Array(sql.clone()),
            ColumnarValue::from(ScalarValue::from("generic")),
            ColumnarValue::Scalar(scalar),
        ];
        let arrays = sql_arrays(&args, 3, 2).unwrap();
        assert_eq!((arrays[1].len(), arrays[2].len()), (3, 1));
        let mut input = SqlArgs::new(&arrays, 0, 1, 2).unwrap();
        let keys: Vec<u64> = (0..3)
            .map(|i| input.row(i).unwrap().unwrap().catalog_key)
            .collect();
        assert!(keys.iter().all(|k| *k == keys[0]));
        let per_row = [
            sql.clone(),
            arrays[1].clone(),
            catalogs(&[&["t.a"], &["t.b"], &["t.a"]]),
        ];
        let mut input = SqlArgs::new(&per_row, 0, 1, 2).unwrap();
        let got: Vec<(bool, u64)> = (0..3)
            .map(|i| {
                let r = input.row(i).unwrap().unwrap();
                (r.catalog.field_named("t.a").is_some(), r.catalog_key)
            })
            .collect();
        assert_eq!(
            got.iter().map(|g| g.0).collect::<Vec<_>>(),
            [true, false, true]
        );
        assert_eq!(got[0].1, keys[0]);
        assert_ne!(got[1].1, keys[0]);
    }
}
