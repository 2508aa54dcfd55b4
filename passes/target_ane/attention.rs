//! `attention-inline`: a call of a `scaled_dot_product_attention` composite
//! becomes the composite's body, in place: the Neural Engine has no fused
//! attention (Apple's Neural Engine rules: "there is no fused SDPA path"),
//! so the call would leave it, while the body's products, softmax and mask
//! arithmetic are ops it runs.
//!
//! Algebra: `invoke @g(a…)` computes `g`'s body on `a…`; the body's ops
//! cloned in front of the call, each block argument read as the call's
//! operand, compute the same values, so every result of the call is the
//! corresponding output operand of the clone. Exact for every input (the
//! same ops on the same values, in the same order).
//!
//! Declines: a callee that is not found or is not an attention composite, a
//! body with nested regions, operand and argument counts that differ. The
//! composite graph, left without callers, is erased by `core-optimize`'s
//! dead-graph sweep, which `coreai-compile --target ane` runs after this
//! pass.

use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use melior::ir::{operation::OperationLike, Value, ValueLike};
use std::collections::HashMap;

/// The composite the Neural Engine has no fused form of.
pub const FUSED_ATTENTION: &str = "scaled_dot_product_attention";

pub fn inline_attention<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    inline_composite(cx, FUSED_ATTENTION)
}

/// The rotary embedding composite, which Apple's Neural Engine models
/// write as plain ops (`primitives/ios/rope.py`: `x·cos + rotate_half(x)·sin`).
pub const ROPE: &str = "rope";

// invoke @rope(x, cos, sin) → the composite's body in place: its products,
// slices and concatenation are ops the Neural Engine runs, and in place
// they can take the layout of the values around them (`kv-bc1s`). Exact
// (the same ops on the same values).
pub fn inline_rope<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    inline_composite(cx, ROPE)
}

/// A call of a `composite` graph replaced by the graph's body.
fn inline_composite<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    composite: &str,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let invoke = cx.op().to_raw();
    let callee = raw::callee_name(invoke).ok_or("the call names no graph")?;
    let graph = raw::lookup_symbol(invoke, &callee)
        .ok_or_else(|| format!("the callee @{callee} is not in the module"))?;
    if raw::composite_name(graph).as_deref() != Some(composite) {
        return Err(format!("@{callee} is not a {composite} composite"));
    }
    let body = raw::entry_block(graph).ok_or("the composite has no body")?;
    let arguments = raw::arguments(body);
    let operands = raw::operands(invoke);
    if arguments.len() != operands.len() {
        return Err(format!(
            "{} operands for {} arguments",
            operands.len(),
            arguments.len()
        ));
    }
    let ops = raw::block_ops(body);
    if ops.iter().any(|op| raw::region_count(*op) > 0) {
        return Err("the body has nested regions".into());
    }
    let mut map: HashMap<usize, mlir_sys::MlirValue> = arguments
        .iter()
        .zip(&operands)
        .map(|(a, o)| (a.ptr as usize, *o))
        .collect();
    let mut outputs = Vec::new();
    for op in ops {
        if raw::op_name(op) == coreai::OUTPUT {
            for v in raw::operands(op) {
                let mapped = map
                    .get(&(v.ptr as usize))
                    .ok_or("an output of the body is not computed in it")?;
                outputs.push(cx.value(*mapped));
            }
            break;
        }
        let copy = raw::clone(op);
        for (i, v) in raw::operands(copy).into_iter().enumerate() {
            let Some(&new) = map.get(&(v.ptr as usize)) else {
                raw::erase(copy);
                return Err("a body op reads a value the body does not define".into());
            };
            raw::set_operand(copy, i, new);
        }
        raw::insert_before(invoke, copy);
        for (old, new) in raw::results(op).into_iter().zip(raw::results(copy)) {
            map.insert(old.ptr as usize, new);
        }
    }
    if outputs.len() != cx.op().result_count()
        || outputs
            .iter()
            .enumerate()
            .any(|(i, v)| cx.op().result(i).map(|r| r.r#type()).ok() != Some(v.r#type()))
    {
        return Err("the body's outputs do not match the call's results".into());
    }
    Ok(outputs)
}
