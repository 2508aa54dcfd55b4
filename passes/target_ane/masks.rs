//! `mask-additive`: an attention mask as the Neural Engine takes it, a
//! large finite negative added to the scores, instead of a select on a
//! boolean mask (Apple's Neural Engine rules: f16, int8 and int16 only, so
//! a boolean mask is a tensor the Neural Engine cannot hold; their causal
//! mask is additive, "-40000.0, NOT float('-inf')").
//!
//! where(C, s, n) → s + M,  M = where(C, 0, L)  (a constant of C's shape)
//! with C a non-splat boolean constant (the causal or padding mask a model
//! builds from positions, folded), n a splat of -inf or of the lowest
//! finite value L of s's type (f16's -65504, what `cast-to-f16` makes of
//! `torch.finfo(torch.float32).min`). Visible scores are unchanged
//! (`s + 0 = s`, and -0.0 + 0 = +0.0 only for a -0.0 score, which a
//! softmax weighs as +0.0). A hidden score becomes `s + L` instead of `n`:
//! through a softmax it weighs `exp(s + L - max)` instead of 0, and that
//! is 0 in f16 and f32 alike unless a hidden score exceeds the row's
//! largest visible score by more than |L| - 18 (65486 in f16): an exact
//! rewrite for every score a model computes in range. Declines: a row of C
//! (its last axis: the keys) with no visible key (the select would give a
//! row of -inf, the sum a row of finite values: a softmax would tell them
//! apart), scores that broadcast to the result, an `n` that is neither.

use coreai_ir::emit::{broadcasting, constant};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use coreai_ir::schema::{element_type, shape_of, tensor_type};
use coreai_ir::weights::{dense_bools, dense_from_bytes};
use melior::ir::{TypeLike, Value, ValueLike};

/// The lowest finite value of a float element (up to f32) and its
/// little-endian bytes.
fn lowest(element: mlir_sys::MlirType) -> Option<(f64, Vec<u8>)> {
    let low = -raw::largest_finite(element)?;
    let bytes = match raw::float_kind(element)? {
        16 if raw::is_bf16(element) => half::bf16::from_f64(low).to_le_bytes().to_vec(),
        16 => half::f16::from_f64(low).to_le_bytes().to_vec(),
        32 => (low as f32).to_le_bytes().to_vec(),
        _ => return None,
    };
    Some((low, bytes))
}

pub fn additive_mask<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let (c, s, n) = (cx.operand(0)?, cx.operand(1)?, cx.operand(2)?);
    if s.r#type() != cx.result_type(0)? {
        return Err("the selected scores broadcast to the result".into());
    }
    let mask = raw::constant_attr(c.to_raw()).ok_or("the condition is not a constant")?;
    if raw::is_splat(mask) {
        return Err("a splat condition (core-optimize's select-by-constant)".into());
    }
    let visible = dense_bools(cx.attribute_from_raw(mask)).ok_or("the condition is not boolean")?;
    let fill = raw::constant_attr(n.to_raw())
        .and_then(raw::splat_number)
        .ok_or("the other value is not a splat constant")?;
    let element = element_type(s)?;
    let (low, low_bytes) = lowest(element.to_raw()).ok_or("the scores are not f16, bf16 or f32")?;
    let width = low_bytes.len();
    if !(fill == f64::NEG_INFINITY || fill <= low) {
        return Err(format!(
            "the other value is {fill}, not -inf or the lowest finite value"
        ));
    }
    let shape = shape_of(c)?;
    let keys = usize::try_from(*shape.last().unwrap_or(&1)).map_err(|_| "a dynamic mask")?;
    if keys == 0 || visible.chunks(keys).any(|row| !row.contains(&true)) {
        return Err("a row of the mask hides every key".into());
    }
    let mut bytes = Vec::with_capacity(visible.len() * width);
    for &v in &visible {
        if v {
            bytes.extend(std::iter::repeat_n(0u8, width));
        } else {
            bytes.extend_from_slice(&low_bytes);
        }
    }
    let ty = tensor_type(&shape, element);
    let additive = constant(
        cx,
        ty,
        dense_from_bytes(ty, &bytes).ok_or("the mask does not build")?,
    )?;
    Ok(vec![broadcasting(
        cx,
        coreai::ADD,
        s,
        additive,
        s.r#type(),
    )?])
}
