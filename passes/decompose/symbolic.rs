//! Views whose size holds a symbolic dimension (dynamic shapes).
//!
//! torch.export records `x.view(n, 2, 2)` with a symbolic `n` as the generic
//! `aten.operator "aten::view.default"(%x, %n, %c2, %c2)`, `%n` an
//! `aten.sym_size.int` and the others `arith.constant 2 : i64`. With exactly
//! one symbolic entry, that entry is what `view` infers from the element
//! count, so the op is `aten.view.default %x {size = [-1, 2, 2]}`: exact for
//! every input the program accepts. The `aten.sym_size.int` and constants left
//! without uses are erased. Views with two or more symbolic entries are kept
//! (the legalizer reshapes them to the runtime sizes).

use super::aten_builders::*;
use coreai_ir::lowering::{Decline, LoweringCx};
use melior::ir::{
    attribute::{DenseI64ArrayAttribute, IntegerAttribute},
    operation::{OperationLike, OperationRef, WalkOrder},
    Value, ValueLike,
};
use mlir_sys::MlirOperation;

/// The generic ops rewritten, by their `aten.operator` name.
const VIEWS: &[&str] = &[
    "aten::view.default",
    "aten::_unsafe_view.default",
    "aten::reshape.default",
];

/// Rewrites every symbolic view in `module`; a view that cannot be
/// rewritten is left as it is (the legalizer reports it).
pub fn rewrite_views(module: OperationRef<'_, '_>) {
    let views = coreai_ir::raw::collect(&module, WalkOrder::PreOrder, |op| {
        let generic = op.name().as_string_ref().as_str() == Ok("aten.operator");
        let name = op
            .attribute("name")
            .ok()
            .and_then(coreai_ir::strings::string_value);
        generic && name.is_some_and(|n| VIEWS.contains(&n.as_ref()))
    });
    for op in views {
        let cx = LoweringCx::new(op);
        let Ok(new) = inferred_view(&cx) else {
            continue;
        };
        let Ok(old) = op.result(0) else { continue };
        let mut sizes: Vec<MlirOperation> = op.operands().skip(1).filter_map(defining_op).collect();
        sizes.sort_by_key(|o| o.ptr as usize);
        sizes.dedup_by_key(|o| o.ptr as usize);
        coreai_ir::raw::replace_all_uses(old.to_raw(), new.to_raw());
        coreai_ir::raw::erase(op.to_raw());
        for size in sizes {
            erase_if_unused(size);
        }
    }
}

// aten.operator "aten::view.default"(%x, %n, %c...) {operand_groups = [1, k]}
//   → aten.view.default(%x) {size = [c..., -1 where %n is, c...]}
fn inferred_view<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let groups = cx.attribute("operand_groups")?;
    let groups = DenseI64ArrayAttribute::try_from(groups)
        .map_err(|_| "operand_groups is not an i64 array")?;
    let operands: Vec<Value> = cx.op().operands().collect();
    if groups.len() != 2 || groups.element(0).ok() != Some(1) || operands.len() < 2 {
        return Err("not a view of one tensor by a size list".into());
    }
    let mut size = Vec::new();
    for v in &operands[1..] {
        size.push(constant_int(*v).unwrap_or(-1));
    }
    if size.iter().filter(|d| **d == -1).count() != 1 {
        return Err("not one symbolic size (two or more are reshaped by the legalizer)".into());
    }
    aten(
        cx,
        "view.default",
        &[operands[0]],
        result(cx, 0)?,
        &[("size", a_ints(cx, &size)?)],
    )
}

/// The op defining `v`, if `v` is an op result.
fn defining_op(v: Value<'_, '_>) -> Option<MlirOperation> {
    coreai_ir::raw::producer(v.to_raw())
}

/// The value of `v` when it is a scalar `arith.constant` integer.
fn constant_int(v: Value<'_, '_>) -> Option<i64> {
    let op = coreai_ir::schema::producer(v)?;
    if op.name().as_string_ref().as_str() != Ok("arith.constant") {
        return None;
    }
    IntegerAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|i| i.value())
}

/// Erases a size's `aten.sym_size.int` or scalar `arith.constant` once it
/// has no uses.
fn erase_if_unused(raw: MlirOperation) {
    let erasable = matches!(
        coreai_ir::raw::op_name(raw).as_str(),
        "aten.sym_size.int" | "arith.constant"
    ) && matches!(coreai_ir::raw::results(raw)[..], [r] if !coreai_ir::raw::has_uses(r));
    if erasable {
        coreai_ir::raw::erase(raw);
    }
}
