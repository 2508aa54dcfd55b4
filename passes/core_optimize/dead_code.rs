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
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::MlirOperation;
use std::collections::HashSet;

fn is_handle(ty: mlir_sys::MlirType) -> bool {
    if unsafe { mlir_sys::mlirTypeIsARankedTensor(ty) } {
        return false;
    }
    coreai_ir::ffi::printed(|callback, data| unsafe { mlir_sys::mlirTypePrint(ty, callback, data) })
        .contains("handle")
}

fn is_dead(op: MlirOperation) -> bool {
    unsafe {
        let results = mlir_sys::mlirOperationGetNumResults(op);
        if results == 0 || mlir_sys::mlirOperationGetNumRegions(op) > 0 {
            return false;
        }
        for i in 0..results {
            let r = mlir_sys::mlirOperationGetResult(op, i);
            if !mlir_sys::mlirValueGetFirstUse(r).ptr.is_null()
                || is_handle(mlir_sys::mlirValueGetType(r))
            {
                return false;
            }
        }
        (0..mlir_sys::mlirOperationGetNumOperands(op)).all(|i| {
            !is_handle(mlir_sys::mlirValueGetType(
                mlir_sys::mlirOperationGetOperand(op, i),
            ))
        })
    }
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
                unsafe { mlir_sys::mlirOperationDestroy(*raw) };
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
            unsafe {
                for i in 0..mlir_sys::mlirOperationGetNumAttributes(raw) {
                    let named = mlir_sys::mlirOperationGetAttribute(raw, i);
                    symbols_in(named.attribute, &mut uses);
                }
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
    unsafe {
        let name =
            mlir_sys::mlirOperationGetAttributeByName(op, coreai_ir::ffi::string_ref("sym_name"));
        if name.ptr.is_null() || !mlir_sys::mlirAttributeIsAString(name) {
            return None;
        }
        let s = mlir_sys::mlirStringAttrGetValue(name);
        let name =
            String::from_utf8_lossy(std::slice::from_raw_parts(s.data as *const u8, s.length))
                .into_owned();
        // `coreai.graph private` is the unit attribute `priv`.
        let private =
            !mlir_sys::mlirOperationGetAttributeByName(op, coreai_ir::ffi::string_ref("priv"))
                .ptr
                .is_null();
        Some((name, private))
    }
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
            unsafe { mlir_sys::mlirOperationDestroy(op) };
            total += 1;
        }
    }
}

/// The ops directly in `root`'s first block (the module's graphs).
pub fn top_level_ops(root: OperationRef<'_, '_>) -> Vec<MlirOperation> {
    let mut ops = Vec::new();
    unsafe {
        let region = mlir_sys::mlirOperationGetRegion(root.to_raw(), 0);
        if region.ptr.is_null() {
            return ops;
        }
        let block = mlir_sys::mlirRegionGetFirstBlock(region);
        if block.ptr.is_null() {
            return ops;
        }
        let mut op = mlir_sys::mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            ops.push(op);
            op = mlir_sys::mlirOperationGetNextInBlock(op);
        }
    }
    ops
}
