//! Higher-order ops (cond, while_loop) and their terminator → coreai.
//!
//! The legalizer lowers ops in pre-order, so `aten.cond` / `aten.while_loop`
//! are lowered before the ops in their regions: their lowering moves the
//! regions (still holding aten ops) into the new `coreai.if` /
//! `coreai.while`, and the region ops, `aten.yield` included, are lowered
//! afterwards where they now are. `aten.yield` becomes `coreai.yield`, or
//! `coreai.condition` at the end of a `coreai.while`'s `before` region.

use coreai_ir::emit::constant;
use coreai_ir::lowering::{type_text, Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use melior::ir::{
    operation::{OperationBuilder, OperationLike},
    r#type::RankedTensorType,
    Attribute, BlockLike, Identifier, Region, RegionLike, Type, Value, ValueLike,
};
use mlir_sys::MlirBlock;

pub static LOWERINGS: super::Family = &[
    ("cond", cond),
    ("while_loop", while_loop),
    ("yield", yield_op),
];

/// The entry block of region `index` of the op being lowered.
fn entry_block(cx: &LoweringCx<'_, '_>, index: usize) -> Result<MlirBlock, Decline> {
    let region = cx
        .op()
        .region(index)
        .map_err(|_| format!("expected a region #{index}"))?;
    let block = region
        .first_block()
        .ok_or_else(|| format!("region #{index} is empty"))?;
    Ok(block.to_raw())
}

/// Replaces the block arguments `from..` of `block` by `values` and erases
/// them (a region that captures instead of taking arguments).
fn inline_arguments(
    block: MlirBlock,
    from: usize,
    values: &[Value<'_, '_>],
) -> Result<(), Decline> {
    let args = raw::arguments(block);
    let count = args.len();
    if count != from + values.len() {
        return Err(format!(
            "a region takes {count} arguments for {} values",
            from + values.len()
        ));
    }
    for (i, value) in values.iter().enumerate() {
        raw::replace_all_uses(args[from + i], value.to_raw());
    }
    for i in (from..count).rev() {
        raw::erase_argument(block, i);
    }
    Ok(())
}

/// Moves region `index` of the op being lowered into a new region.
fn take_region(cx: &LoweringCx<'_, '_>, index: usize) -> Result<Region<'static>, Decline> {
    let old = cx
        .op()
        .region(index)
        .map_err(|_| format!("expected a region #{index}"))?;
    let region = Region::new();
    raw::take_body(region.to_raw(), old.to_raw());
    Ok(region)
}

/// Builds `name` with regions in front of the op being lowered.
fn build_with_regions<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    name: &str,
    operands: &[Value<'c, '_>],
    results: &[Type<'c>],
    regions: [Region<'c>; 2],
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let attributes: Vec<(Identifier<'c>, Attribute<'c>)> = Vec::new();
    let op = OperationBuilder::new(name, cx.location())
        .add_operands(operands)
        .add_results(results)
        .add_attributes(&attributes)
        .add_regions(regions)
        .build()
        .map_err(|e| format!("cannot build '{name}': {e}"))?;
    let block = cx.op().block().ok_or("the op is not in a block")?;
    let op = block.insert_operation_before(cx.op(), op);
    (0..results.len())
        .map(|i| op.result(i).map(Into::into).map_err(|e| e.to_string()))
        .collect()
}

/// The op's result types in coreai.
fn result_types<'c>(cx: &LoweringCx<'c, '_>) -> Result<Vec<Type<'c>>, Decline> {
    (0..cx.op().result_count())
        .map(|i| cx.result_type(i))
        .collect()
}

/// A boolean predicate as the rank-0 `tensor<i1>` coreai control flow takes
/// (`tensor<1xi1>` is reshaped).
fn rank0_predicate<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    p: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let ty = RankedTensorType::try_from(p.r#type())
        .map_err(|_| format!("the predicate is {}, not a tensor<i1>", p.r#type()))?;
    use melior::ir::r#type::ShapedTypeLike;
    if type_text(ty.element()) != "i1" {
        return Err(format!(
            "the predicate is {}, not a boolean tensor",
            p.r#type()
        ));
    }
    if ty.rank() == 0 {
        return Ok(p);
    }
    let elements: i64 = coreai_ir::schema::dims(ty).iter().product();
    if elements != 1 {
        return Err(format!(
            "the predicate {} has more than one element",
            p.r#type()
        ));
    }
    let shape_type = cx.parse_type("tensor<0xui32>")?;
    let shape = constant(
        cx,
        shape_type,
        cx.parse_attribute("dense<> : tensor<0xui32>")?,
    )?;
    let scalar = cx.parse_type("tensor<i1>")?;
    cx.build_value(coreai::RESHAPE, &[p, shape], scalar, &[])
}

// aten.cond %p (%xs...) {^bb0(%as...): ... aten.yield} , {...}
//   → coreai.if %p {... (%as := %xs) ... aten.yield} else {...}
//   (the branches capture %xs instead of taking arguments; their ops and
//    aten.yield are lowered after this op, in place)
fn cond<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let operands: Vec<Value<'c, 'a>> = cx.op().operands().collect();
    let (p, inputs) = operands.split_first().ok_or("aten.cond has no predicate")?;
    let p = rank0_predicate(cx, *p)?;
    for index in 0..2 {
        inline_arguments(entry_block(cx, index)?, 0, inputs)?;
    }
    let regions = [take_region(cx, 0)?, take_region(cx, 1)?];
    build_with_regions(cx, coreai::IF, &[p], &result_types(cx)?, regions)
}

// aten.while_loop (%carried...) (%extra...) cond {^bb0(%c..., %e...): aten.yield %b} body {... aten.yield %next...}
//   → coreai.while %carried... {^bb0(%c...): ... aten.yield %b} do {^bb0(%c...): ... aten.yield %next...}
//   (the additional inputs %extra are captured; aten.yield in `before`
//    becomes coreai.condition %b, %c...)
fn while_loop<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let operands: Vec<Value<'c, 'a>> = cx.op().operands().collect();
    let carried = carried_count(cx, operands.len())?;
    let (inits, extra) = operands.split_at(carried);
    for index in 0..2 {
        let block = entry_block(cx, index)?;
        inline_arguments(block, carried, extra)?;
    }
    let regions = [take_region(cx, 0)?, take_region(cx, 1)?];
    build_with_regions(cx, coreai::WHILE, inits, &result_types(cx)?, regions)
}

/// The number of carried inputs of `aten.while_loop` (its
/// `operandSegmentSizes`; all operands without it).
fn carried_count(cx: &LoweringCx<'_, '_>, operands: usize) -> Result<usize, Decline> {
    let Ok(sizes) = cx.op().attribute("operandSegmentSizes") else {
        return Ok(operands);
    };
    let sizes = melior::ir::attribute::DenseI32ArrayAttribute::try_from(sizes)
        .map_err(|_| "operandSegmentSizes is not an i32 array".to_string())?;
    Ok(sizes.element(0).map_err(|e| e.to_string())? as usize)
}

// aten.yield %vs...  → coreai.yield %vs...
// aten.yield %b (end of coreai.while's `before` region) → coreai.condition %b, %args...
fn yield_op<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let values: Vec<Value<'c, 'a>> = cx.op().operands().collect();
    let block = cx.op().block().ok_or("aten.yield is not in a block")?;
    let parent = block
        .parent_operation()
        .ok_or("aten.yield has no parent op")?;
    let parent_name = parent.name();
    let in_before = parent_name.as_string_ref().as_str() == Ok(coreai::WHILE)
        && parent.region(0).ok().and_then(|r| r.first_block()) == Some(block);
    if !in_before {
        cx.build(coreai::YIELD, &values, &[], &[])?;
        return Ok(Vec::new());
    }
    let [condition] = values.as_slice() else {
        return Err(format!(
            "a while_loop condition yields {} values instead of one boolean",
            values.len()
        ));
    };
    let condition = rank0_predicate(cx, *condition)?;
    let mut operands = vec![condition];
    for i in 0..block.argument_count() {
        operands.push(block.argument(i).map_err(|e| e.to_string())?.into());
    }
    cx.build(coreai::CONDITION, &operands, &[], &[])?;
    Ok(Vec::new())
}
