//! The ATen → coreai resolver: one lowering per ATen overload, keyed by the
//! overload exactly as `torch.export` names it (`add.Tensor`, not `add`).
//!
//! Lowerings are grouped by op family, one file each; every lowering starts
//! with a `// before → after` comment and declines with a reason.

mod elementwise;

use crate::lowering::{Decline, LoweringCx};
use melior::ir::{operation::OperationLike, Value};

/// A built-in lowering.
pub type LowerFn = for<'c, 'a> fn(&LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline>;

/// Every built-in lowering, sorted by key.
static RESOLVER: &[(&str, LowerFn)] = &[
    ("_assert_async.msg", drop_op),
    ("_assert_scalar.default", drop_op),
    ("_assert_tensor_metadata.default", drop_op),
    ("abs.default", elementwise::abs),
    ("add.Tensor", elementwise::add_tensor),
    ("mul.Tensor", elementwise::mul_tensor),
    ("sym_constrain_range.default", drop_op),
    ("sym_constrain_range_for_size.default", drop_op),
];

/// The lowering of the ATen overload `key` (`add.Tensor`).
pub fn lookup(key: &str) -> Option<LowerFn> {
    RESOLVER
        .binary_search_by(|(k, _)| k.cmp(&key))
        .ok()
        .map(|i| RESOLVER[i].1)
}

/// The overloads of the same ATen op that have a lowering (`mean.dim` for
/// `mean.names_dim`).
pub fn siblings(key: &str) -> Vec<&'static str> {
    let base = key.split('.').next().unwrap_or(key);
    RESOLVER
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| k.split('.').next() == Some(base) && *k != key)
        .collect()
}

/// Every key of the resolver.
pub fn keys() -> impl Iterator<Item = &'static str> {
    RESOLVER.iter().map(|(k, _)| *k)
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
    fn resolver_is_sorted_and_unique() {
        let keys: Vec<&str> = super::keys().collect();
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(keys, sorted);
    }
}
