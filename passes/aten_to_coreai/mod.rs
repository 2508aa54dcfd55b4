//! The ATen → coreai resolver: one lowering per ATen overload, keyed by the
//! overload exactly as `torch.export` names it (`add.Tensor`, not `add`).
//!
//! Lowerings are grouped by op family, one file each; every lowering starts
//! with a `// before → after` comment and declines with a reason.

mod activations;
mod cast;
mod compare;
mod complex;
mod composite;
pub mod compression;
mod control;
mod elementwise;
mod formulas;
mod grouped_mm;
mod histogram;
mod indexing;
mod linalg;
pub mod metal_kernel;
mod nn;
mod promotion;
mod reduce;
mod shape;
mod symbolic;

use coreai_ir::lowering::{Decline, LoweringCx};
use melior::ir::{operation::OperationLike, Value};

/// A built-in lowering (a pattern of the rewrite driver).
pub type LowerFn = coreai_ir::rewrite::RewriteFn;

/// The lowerings of one op family (one file), in any order.
pub type Family = &'static [(&'static str, LowerFn)];

/// Every family's table. A family file exports `pub static LOWERINGS`.
static FAMILIES: &[Family] = &[
    ASSERTIONS,
    activations::LOWERINGS,
    cast::LOWERINGS,
    compare::LOWERINGS,
    complex::LOWERINGS,
    control::LOWERINGS,
    elementwise::LOWERINGS,
    grouped_mm::LOWERINGS,
    histogram::LOWERINGS,
    indexing::LOWERINGS,
    linalg::LOWERINGS,
    nn::LOWERINGS,
    reduce::LOWERINGS,
    shape::LOWERINGS,
    symbolic::LOWERINGS,
];

static ASSERTIONS: Family = &[
    ("_assert_async.msg", drop_op),
    ("_assert_scalar.default", drop_op),
    ("_assert_tensor_metadata.default", drop_op),
    ("sym_constrain_range.default", drop_op),
    ("sym_constrain_range_for_size.default", drop_op),
];

/// Every built-in lowering, in family order (a key registered twice is a
/// bug caught by `resolver_keys_are_unique`).
fn lowerings() -> impl Iterator<Item = &'static (&'static str, LowerFn)> {
    FAMILIES.iter().flat_map(|f| f.iter())
}

/// The lowering of the ATen overload `key` (`add.Tensor`): a scan of the
/// families' few hundred keys, most of which differ in their first bytes.
pub fn lookup(key: &str) -> Option<LowerFn> {
    lowerings().find(|(k, _)| *k == key).map(|(_, f)| *f)
}

/// Ops of other libraries than ATen with a built-in lowering, keyed by
/// their qualified name (`transformers::grouped_mm_fallback.default`).
static LIBRARIES: &[Family] = &[grouped_mm::LIBRARY_LOWERINGS];

/// The lowering of the library op `qualified` (`namespace::name.overload`).
pub fn lookup_library(qualified: &str) -> Option<LowerFn> {
    LIBRARIES
        .iter()
        .flat_map(|f| f.iter())
        .find(|(k, _)| *k == qualified)
        .map(|(_, f)| *f)
}

/// The overloads of the same ATen op that have a lowering (`mean.dim` for
/// `mean.names_dim`).
pub fn siblings(key: &str) -> Vec<&'static str> {
    let base = key.split('.').next().unwrap_or(key);
    let mut found: Vec<&'static str> = lowerings()
        .map(|(k, _)| *k)
        .filter(|k| k.split('.').next() == Some(base) && *k != key)
        .collect();
    found.sort_unstable();
    found
}

/// Every key with a built-in lowering, sorted.
pub fn keys() -> impl Iterator<Item = &'static str> {
    let mut keys: Vec<&'static str> = lowerings().map(|(k, _)| *k).collect();
    keys.sort_unstable();
    keys.into_iter()
}

/// Runtime assertions of the exported program (`_assert_scalar`, range
/// constraints): they check the exporter's shape guards, which the compiled
/// program does not need, and have no results.
// aten._assert_scalar.default(%c) {msg = ...} → (nothing)
fn drop_op<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    if cx.op().result_count() != 0 {
        return Err("an assertion with results cannot be dropped".into());
    }
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    #[test]
    fn resolver_keys_are_unique() {
        let keys: Vec<&str> = super::keys().collect();
        let mut unique = keys.clone();
        unique.dedup();
        assert_eq!(keys, unique, "a key is lowered by two families");
    }
}
