//! `layout-in-f16`: data movement on the f16 side of a precision cast. At an
//! f32 graph output, `reshape(cast(x : f16 → f32))` moves a tensor in f32
//! that the Neural Engine could have moved in f16: the reshape (or
//! `transpose`, `expand_dims`, `shrink_dims`) runs on `x` and the cast
//! follows it; at an f32 input, `cast(reshape(x : f32) → f16)` casts first.
//! The op that leaves the Neural Engine is then the cast alone.
//!
//! Algebra: a layout op only moves elements, and a precision cast maps each
//! element on its own, so `L(cast(x)) = cast(L(x))` for every `x`: exact.
//!
//! Declines: a cast that is not between f16 and f32, an operand with other
//! users (the op would be duplicated, not moved).

use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::schema::{dims, producer, tensor_type, uses};
use melior::ir::{
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike},
    Attribute, Identifier, Type, TypeLike, Value, ValueLike,
};

/// The ops that only move elements, with their static parameters after
/// operand #0.
pub const LAYOUT: &[&str] = &[
    coreai::RESHAPE,
    coreai::TRANSPOSE,
    coreai::EXPAND_DIMS,
    coreai::SHRINK_DIMS,
];

fn element<'c>(v: Value<'c, '_>) -> Option<Type<'c>> {
    RankedTensorType::try_from(v.r#type())
        .ok()
        .map(|t| t.element())
}

fn retyped<'c>(ty: Type<'c>, element: Type<'c>) -> Result<Type<'c>, Decline> {
    let t = RankedTensorType::try_from(ty).map_err(|_| format!("{ty} is not a ranked tensor"))?;
    Ok(tensor_type(&dims(t), element))
}

/// `L(cast(x : f16 → f32))` → `cast(L(x))` (rooted at the layout op `L`).
pub fn layout_before_widening<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let operand = cx.operand(0)?;
    let cast = producer(operand)
        .filter(|p| p.name().as_string_ref().as_str() == Ok(coreai::CAST))
        .ok_or("the operand is not a cast")?;
    let x = cast.operand(0).map_err(|_| "the cast has no operand")?;
    let (from, to) = (element(x), element(operand));
    if !(from.is_some_and(|e| e.is_f16()) && to.is_some_and(|e| e.is_f32())) {
        return Err("the cast is not f16 → f32".into());
    }
    if uses(operand).len() != 1 {
        return Err("the cast has other users".into());
    }
    let result = cx.result_type(0)?;
    let mut operands: Vec<Value> = vec![x];
    operands.extend((1..cx.op().operand_count()).filter_map(|i| cx.op().operand(i).ok()));
    let moved = cx.rebuild(&operands, retyped(result, from.expect("checked"))?)?;
    Ok(vec![cx.build_value(coreai::CAST, &[moved], result, &[])?])
}

/// `cast(L(x : f32) → f16)` → `L(cast(x))` (rooted at the cast).
pub fn layout_after_narrowing<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let operand = cx.operand(0)?;
    let layout = producer(operand).ok_or("the operand is not an op result")?;
    let name = layout.name();
    let name = name
        .as_string_ref()
        .as_str()
        .map_err(|_| "a non-UTF-8 op name")?;
    if !LAYOUT.contains(&name) {
        return Err("the operand is not a reshape, transpose, expand_dims or shrink_dims".into());
    }
    let x = layout
        .operand(0)
        .map_err(|_| "the layout op has no operand")?;
    let result = cx.result_type(0)?;
    let (from, to) = (
        element(x),
        RankedTensorType::try_from(result).ok().map(|t| t.element()),
    );
    if !(from.is_some_and(|e| e.is_f32()) && to.is_some_and(|e| e.is_f16())) {
        return Err("the cast is not f32 → f16 of a layout op".into());
    }
    if uses(operand).len() != 1 {
        return Err("the layout op has other users".into());
    }
    let f16 = to.expect("checked");
    let narrowed = cx.build_value(coreai::CAST, &[x], retyped(x.r#type(), f16)?, &[])?;
    let mut operands: Vec<Value> = vec![narrowed];
    operands.extend((1..layout.operand_count()).filter_map(|i| layout.operand(i).ok()));
    let attributes: Vec<(Identifier, Attribute)> = layout.attributes().collect();
    let names: Vec<String> = attributes
        .iter()
        .map(|(k, _)| k.as_string_ref().as_str().unwrap_or_default().to_string())
        .collect();
    let attrs: Vec<(&str, Attribute)> = names
        .iter()
        .zip(&attributes)
        .map(|(k, (_, v))| (k.as_str(), *v))
        .collect();
    Ok(vec![cx.build_value(name, &operands, result, &attrs)?])
}
