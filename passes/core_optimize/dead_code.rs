//! Dead code: exact by construction (nothing that is computed is used).
//!
//! // %unused = op(...)  (no effects) → (erased)
//! // coreai.graph private @g  (no symbol use anywhere) → (erased)
//!
//! An op is erased when none of its results is used, it has no regions
//! (`coreai.if`/`coreai.while` are kept), no operand or result is a
//! `!coreai.handle` (state), and it is not a terminator. A `coreai.invoke`
//! whose results are unused is erased too: graphs have no effects but
//! through handles. Declines (keeps the op) otherwise.

use super::{op_name, symbols_in};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::MlirOperation;
use std::collections::HashSet;

fn is_handle(ty: mlir_sys::MlirType) -> bool {
    !raw::is_ranked_tensor(ty) && raw::type_text(ty).contains("handle")
}

fn is_dead(op: MlirOperation) -> bool {
    let results = raw::results(op);
    !results.is_empty()
        && raw::region_count(op) == 0
        && results
            .iter()
            .all(|r| raw::uses(*r).is_empty() && !is_handle(raw::value_type(*r)))
        && raw::operands(op)
            .into_iter()
            .all(|v| !is_handle(raw::value_type(v)))
}

/// Erases dead ops (uses first: post-order, repeated until none is left).
/// Returns how many.
pub fn erase_dead_ops(root: OperationRef<'_, '_>) -> usize {
    let mut total = 0;
    loop {
        let mut dead: Vec<MlirOperation> = Vec::new();
        root.walk(WalkOrder::PostOrder, |op| {
            let raw = op.to_raw();
            if raw.ptr != root.to_raw().ptr && coreai::contains(&op_name(raw)) && is_dead(raw) {
                dead.push(raw);
            }
            WalkResult::Advance
        });
        if dead.is_empty() {
            return total;
        }
        // In reverse program order, each op's users are erased before it.
        for raw in dead.iter().rev() {
            if is_dead(*raw) {
                raw::erase(*raw);
                total += 1;
            }
        }
    }
}

/// Every symbol named in the attributes of `root`'s nested ops.
fn symbol_uses(root: OperationRef<'_, '_>) -> HashSet<String> {
    let mut uses = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        let raw = op.to_raw();
        if raw.ptr != root.to_raw().ptr && op_name(raw) != coreai::CONSTANT {
            for named in raw::attributes(raw) {
                symbols_in(named.attribute, &mut uses);
            }
        }
        WalkResult::Advance
    });
    uses.into_iter().collect()
}

/// The `sym_name` of a graph, and whether it is private.
pub fn graph_symbol(op: MlirOperation) -> Option<(String, bool)> {
    if op_name(op) != coreai::GRAPH {
        return None;
    }
    let name = raw::attribute(op, "sym_name").and_then(raw::string_value)?;
    // `coreai.graph private` is the unit attribute `priv`.
    let private = raw::attribute(op, "priv").is_some();
    Some((name, private))
}

/// Erases private graphs nothing refers to (repeated: a dead graph's calls
/// may have been the only uses of another). Returns how many.
pub fn erase_dead_graphs(root: OperationRef<'_, '_>) -> usize {
    let mut total = 0;
    loop {
        let uses = symbol_uses(root);
        let mut dead = Vec::new();
        for op in top_level_ops(root) {
            if let Some((name, true)) = graph_symbol(op) {
                if !uses.contains(&name) {
                    dead.push(op);
                }
            }
        }
        if dead.is_empty() {
            return total;
        }
        for op in dead {
            raw::erase(op);
            total += 1;
        }
    }
}

/// The ops directly in `root`'s first block (the module's graphs).
pub fn top_level_ops(root: OperationRef<'_, '_>) -> Vec<MlirOperation> {
    raw::entry_block(root.to_raw()).map_or_else(Vec::new, raw::block_ops)
}
