//! groundcheck's DataFusion functions. `register_all` adds every one of them to any
//! `FunctionRegistry` (a `SessionContext`, a Ballista executor's registry), by name.
//!
//! Every function is stateless: what it needs (a catalog, a glossary predicate) comes in
//! as an argument, so a remote executor rebuilds it from the name alone. The only shared
//! state is a memo of results for repeated inputs, which never changes an answer.

pub mod answer_correct;
pub mod cardinality;
pub mod changes;
pub mod common;
pub mod has_term;
pub mod policy_violations;
pub mod predicate_match;
pub mod result_is_empty;
pub mod result_shape;
pub mod semver_bump;
pub mod sql;
pub mod sql_fields;
pub mod sql_grain_issues;
pub mod sql_time_filters;
pub mod tool_calls;
pub mod tool_changes;
pub mod validate_args;

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::ScalarUDF;

/// Every scalar function this crate defines.
pub fn scalar_functions() -> Vec<Arc<ScalarUDF>> {
    let modes: Vec<ScalarUDF> = vec![
        ScalarUDF::new_from_impl(predicate_match::PredicateMatch::verdict()),
        ScalarUDF::new_from_impl(predicate_match::PredicateMatch::reason()),
        ScalarUDF::new_from_impl(result_shape::ResultShape::shape()),
        ScalarUDF::new_from_impl(result_shape::ResultShape::rows()),
        ScalarUDF::new_from_impl(semver_bump::Semver::bump()),
        ScalarUDF::new_from_impl(semver_bump::Semver::allows()),
        ScalarUDF::new_from_impl(semver_bump::Semver::needed()),
    ];
    let mut all = vec![
        answer_correct::answer_correct_udf(),
        tool_calls::call_match_udf(),
        tool_calls::calls_match_udf(),
        policy_violations::policy_violations_udf(),
        has_term::has_term_udf(),
        result_is_empty::result_is_empty_udf(),
        sql_fields::sql_fields_udf(),
        sql_grain_issues::sql_grain_issues_udf(),
        sql_time_filters::sql_time_filters_udf(),
        tool_changes::tool_changes_udf(),
        validate_args::validate_args_udf(),
    ];
    all.extend(modes.into_iter().map(Arc::new));
    all
}

/// Registers every groundcheck function into `registry`, and `cardinality` in the place
/// of DataFusion's (the same results; see `cardinality`).
pub fn register_all(registry: &mut dyn FunctionRegistry) -> Result<()> {
    for f in scalar_functions() {
        registry.register_udf(f)?;
    }
    // In the place of DataFusion's own: the same results, faster (`cardinality`).
    registry.register_udf(cardinality::cardinality_udf())?;
    Ok(())
}
