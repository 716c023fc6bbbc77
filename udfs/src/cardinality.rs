//! `cardinality(list)`: DataFusion's own function, with the same signature, results and
//! documentation, counted from the list's offsets when its elements are not lists.
//!
//! DataFusion 55 counts each row by slicing it out as an array of its own (an `Arc`ed
//! array built and dropped per row): 3 % of a labeling run's CPU, where the labels and
//! grounding views ask `cardinality` of every task's lists (perf, 100k tasks). Nested
//! lists (counted through every level), maps and scalars are left to DataFusion's.

use std::sync::{Arc, OnceLock};

use datafusion::arrow::array::{Array, ArrayRef, AsArray, OffsetSizeTrait, UInt64Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::Result;
use datafusion::functions_nested::cardinality::Cardinality as DataFusions;
use datafusion::logical_expr::{
    ColumnarValue, Documentation, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
};

#[derive(Debug, PartialEq, Eq, Hash, Default)]
pub struct Cardinality {
    inner: DataFusions,
}

/// The function as a `ScalarUDF`, built once; registered under DataFusion's name, it
/// takes the place of DataFusion's.
pub fn cardinality_udf() -> Arc<ScalarUDF> {
    static UDF: OnceLock<Arc<ScalarUDF>> = OnceLock::new();
    UDF.get_or_init(|| Arc::new(ScalarUDF::new_from_impl(Cardinality::default())))
        .clone()
}

/// Whether a list of this element type holds no lists (its cardinality is its length).
fn flat(element: &DataType) -> bool {
    !matches!(
        element,
        DataType::List(_)
            | DataType::LargeList(_)
            | DataType::ListView(_)
            | DataType::LargeListView(_)
            | DataType::FixedSizeList(..)
    )
}

fn lengths<O: OffsetSizeTrait>(
    offsets: &[O],
    nulls: Option<&datafusion::arrow::buffer::NullBuffer>,
) -> ArrayRef {
    // 0 under a null, as DataFusion's: the same buffers, not only the same values.
    let values: Vec<u64> = offsets
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            if nulls.is_some_and(|n| n.is_null(i)) {
                0
            } else {
                (w[1] - w[0]).as_usize() as u64
            }
        })
        .collect();
    Arc::new(UInt64Array::new(values.into(), nulls.cloned()))
}

impl ScalarUDFImpl for Cardinality {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn signature(&self) -> &Signature {
        self.inner.signature()
    }

    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        self.inner.return_type(args)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        if let [ColumnarValue::Array(a)] = args.args.as_slice() {
            match a.data_type() {
                DataType::List(f) if flat(f.data_type()) => {
                    let l = a.as_list::<i32>();
                    return Ok(ColumnarValue::Array(lengths(l.value_offsets(), l.nulls())));
                }
                DataType::LargeList(f) if flat(f.data_type()) => {
                    let l = a.as_list::<i64>();
                    return Ok(ColumnarValue::Array(lengths(l.value_offsets(), l.nulls())));
                }
                _ => {}
            }
        }
        self.inner.invoke_with_args(args)
    }

    fn documentation(&self) -> Option<&Documentation> {
        self.inner.documentation()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{LargeListArray, ListArray, StringArray};
    use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
    use datafusion::arrow::datatypes::Field;
    use datafusion::config::ConfigOptions;

    fn both(a: ArrayRef) -> (ArrayRef, ArrayRef) {
        let call = |f: &dyn ScalarUDFImpl| {
            let args = ScalarFunctionArgs {
                args: vec![ColumnarValue::Array(a.clone())],
                arg_fields: vec![Arc::new(Field::new("a", a.data_type().clone(), true))],
                number_rows: a.len(),
                return_field: Arc::new(Field::new("c", DataType::UInt64, true)),
                config_options: Arc::new(ConfigOptions::default()),
            };
            match f.invoke_with_args(args).unwrap() {
                ColumnarValue::Array(r) => r,
                ColumnarValue::Scalar(s) => s.to_array().unwrap(),
            }
        };
        (call(&Cardinality::default()), call(&DataFusions::new()))
    }

    /// Null lists, empty lists, null elements and a sliced array (offsets not from 0):
    /// the same numbers and nulls as DataFusion's.
    #[test]
    fn counts_as_datafusion_does() {
        let values =
            StringArray::from(vec![Some("a"), None, Some("b"), Some("c"), None, Some("d")]);
        let field = Arc::new(Field::new("item", DataType::Utf8, true));
        let offsets = OffsetBuffer::new(vec![0, 2, 2, 3, 3, 6].into());
        let nulls = NullBuffer::from(vec![true, true, false, true, true]);
        let list = ListArray::new(
            field.clone(),
            offsets,
            Arc::new(values.clone()),
            Some(nulls),
        );
        let large = LargeListArray::new(
            field,
            OffsetBuffer::new(vec![0i64, 1, 6].into()),
            Arc::new(values),
            None,
        );
        let sliced = list.slice(1, 4);
        for a in [
            Arc::new(list) as ArrayRef,
            Arc::new(large),
            Arc::new(sliced),
        ] {
            let (ours, theirs) = both(a);
            assert_eq!(ours.to_data(), theirs.to_data());
            assert_eq!(ours.to_data().buffers(), theirs.to_data().buffers());
        }
        let (ours, _) = both(Arc::new(ListArray::from_iter_primitive::<
            datafusion::arrow::datatypes::Int32Type,
            _,
            _,
        >(vec![
            Some(vec![Some(1), None]),
            None,
            Some(vec![]),
        ])));
        assert_eq!(
            ours.as_primitive::<datafusion::arrow::datatypes::UInt64Type>(),
            &UInt64Array::from(vec![Some(2), None, Some(0)])
        );
    }

    /// A list of lists is left to DataFusion's (it counts the inner elements).
    #[test]
    fn nested_lists_count_their_elements() {
        let inner =
            ListArray::from_iter_primitive::<datafusion::arrow::datatypes::Int32Type, _, _>(vec![
                Some(vec![Some(1), Some(2)]),
                Some(vec![Some(3)]),
                None,
            ]);
        let outer = ListArray::new(
            Arc::new(Field::new("item", inner.data_type().clone(), true)),
            OffsetBuffer::new(vec![0, 2, 3].into()),
            Arc::new(inner),
            None,
        );
        let (ours, theirs) = both(Arc::new(outer));
        assert_eq!(ours.as_ref(), theirs.as_ref());
        assert_eq!(
            ours.as_primitive::<datafusion::arrow::datatypes::UInt64Type>(),
            &UInt64Array::from(vec![3, 0])
        );
    }
}
