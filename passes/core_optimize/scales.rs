//! Constant scales merged into what computes their operand. Value-changing
//! (each merged product is rounded once instead of twice): off under
//! `exact=true`; Apple's `coreai-pre-compilation-rewrite` makes both.
//!
//! // conv(x, W) * c            → conv(x, W * c[:, None, ...])
//! // (conv(x, W) + b) * c      → conv(x, W * c[:, None, ...]) + b * c
//! //   c a constant per output channel ([1, C, 1, ...]) or a scalar, the
//! //   convolution's result used only here (ConvNeXt's layer scale,
//! //   FrozenBatchNorm's scale after a convolution)
//! // (x * c1) * c2             → x * (c1 * c2)
//! //   c1, c2 constants, the inner product used only here, the result type
//! //   unchanged (NFNet's gain then alpha)
//!
//! Error bound: folded into a convolution, each product `w * c` is rounded
//! once (≤ 1 f32 ulp of it), so the convolution's sum moves by at most
//! 2^-23 of `sum |w * c * x|` (as the batch-norm fold, `batch_norm.rs`); the
//! bias `b * c` is rounded once where the original rounded `conv + b` and
//! then the product. `(x * c1) * c2` rounds twice, `x * round(c1 * c2)`
//! twice too: the results differ by at most 1.5 ulp, except where `x * c1`
//! overflowed or underflowed and the merged product does not. Declined
//! where `c1 * c2` itself may leave the normal range of the type (its
//! largest magnitudes' product above the largest finite value, or its
//! smallest nonzero magnitudes' product below the least normal): in f16,
//! `(x * 2^15) * 2^9` would become `x * inf`, NaN at `x = 0` and infinite
//! wherever the original was finite.

use super::batch_norm::{cast, float_element, reshaped, scale_convolution, tensor};
use super::{constant_attr, single_use_producer, static_shape, Options};
use coreai_ir::emit::broadcasting;
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use melior::ir::{TypeLike, Value, ValueLike};

/// Two operands as (computed, constant), either order.
fn computed_and_constant<'c, 'a>(
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>), Decline> {
    match (constant_attr(a.to_raw()), constant_attr(b.to_raw())) {
        (None, Some(_)) => Ok((a, b)),
        (Some(_), None) => Ok((b, a)),
        _ => Err("not one constant and one computed operand".into()),
    }
}

/// The op's operands as (computed, constant).
fn with_constant<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>), Decline> {
    computed_and_constant(cx.operand(0)?, cx.operand(1)?)
}

// conv(x, W) * c → conv(x, W * c) ; (conv(x, W) + b) * c → conv(x, W * c) + b * c
pub fn fold_scale_into_convolution<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    options: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    if options.exact {
        return Err("value-changing (exact=true)".into());
    }
    let (y, c) = with_constant(cx)?;
    let result = cx.result_type(0)?;
    if y.r#type() != result {
        return Err("the constant broadcasts the result larger".into());
    }
    let element = float_element(y.r#type()).ok_or("not f32 or f16")?;
    if float_element(c.r#type()) != Some(element) {
        return Err("a constant of another type".into());
    }
    let shape = static_shape(y.r#type().to_raw()).ok_or("the shape is not static")?;
    let c_shape = static_shape(c.r#type().to_raw()).ok_or("the constant is not static")?;
    if shape.len() < 3 {
        return Err("not a convolution's [N, C, ...] result".into());
    }
    let channels = shape[1];
    let scalar = c_shape.iter().all(|&d| d == 1);
    let per_channel = c_shape.len() == shape.len()
        && c_shape[1] == channels
        && c_shape.iter().enumerate().all(|(i, &d)| i == 1 || d == 1);
    if !scalar && !per_channel {
        return Err("the constant is not a scalar or per output channel".into());
    }
    // s: the scale per channel, f32 [C].
    let vec32 = tensor(cx, &[channels], "f32")?;
    let s = match scalar {
        true => {
            let one = reshaped(cx, c, &[1], element)?;
            let one = cast(cx, one, tensor(cx, &[1], "f32")?)?;
            let (ty, attr) = cx.int_tensor(&[1], &[channels], "ui32")?;
            let to = coreai_ir::emit::constant(cx, ty, attr)?;
            cx.build_value(coreai::BROADCAST_TO, &[one, to], vec32, &[])?
        }
        false => cast(cx, reshaped(cx, c, &[channels], element)?, vec32)?,
    };
    let Some((conv, bias)) = scale_convolution(cx, y, s, None, channels, element)? else {
        return Err("the operand is not a convolution with constant weights used only here".into());
    };
    let Some(bias) = bias else {
        return Ok(vec![conv]);
    };
    let mut channel_shape = vec![1i64; shape.len()];
    channel_shape[1] = channels;
    let bias = reshaped(cx, bias, &channel_shape, "f32")?;
    let bias = cast(cx, bias, tensor(cx, &channel_shape, element)?)?;
    Ok(vec![broadcasting(cx, coreai::ADD, conv, bias, result)?])
}

// (x * c1) * c2 → x * (c1 * c2)
pub fn merge_constant_scales<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    options: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    if options.exact {
        return Err("value-changing (exact=true)".into());
    }
    let (inner, c2) = with_constant(cx)?;
    let op = single_use_producer(inner).ok_or("the operand is not used only here")?;
    if super::op_name(op) != coreai::DECOMPOSABLE_BROADCASTING_MUL {
        return Err("the operand is not a product".into());
    }
    let operand = |i| cx.value(coreai_ir::raw::operand(op, i));
    let (x, c1) = computed_and_constant(operand(0), operand(1))?;
    let element = float_element(x.r#type()).ok_or("not f32 or f16")?;
    if float_element(c1.r#type()) != Some(element) || float_element(c2.r#type()) != Some(element) {
        return Err("constants of another type".into());
    }
    if !product_in_range(cx, c1, c2, element)? {
        return Err("the constants' product may overflow or underflow the type".into());
    }
    let s1 = static_shape(c1.r#type().to_raw()).ok_or("a dynamic constant")?;
    let s2 = static_shape(c2.r#type().to_raw()).ok_or("a dynamic constant")?;
    let both = coreai_ir::lowering::broadcast_shapes(&[&s1, &s2])?;
    let product = broadcasting(cx, coreai::MUL, c1, c2, tensor(cx, &both, element)?)?;
    let result = cx.result_type(0)?;
    let x_shape = static_shape(x.r#type().to_raw()).ok_or("a dynamic operand")?;
    let out = static_shape(result.to_raw()).ok_or("a dynamic result")?;
    if coreai_ir::lowering::broadcast_shapes(&[&x_shape, &both])? != out {
        return Err("the merged product has another shape".into());
    }
    Ok(vec![broadcasting(cx, coreai::MUL, x, product, result)?])
}

/// Whether every product of an element of constant `c1` with one of
/// constant `c2` is a normal value of `element` (f32 or f16) or zero:
/// bounded by the products of their largest and of their smallest nonzero
/// magnitudes (a NaN or infinite element is out of range).
fn product_in_range(
    cx: &LoweringCx<'_, '_>,
    c1: Value<'_, '_>,
    c2: Value<'_, '_>,
    element: &str,
) -> Result<bool, Decline> {
    let magnitudes = |c: Value<'_, '_>| -> Result<(f64, f64), Decline> {
        let attr = constant_attr(c.to_raw()).ok_or("not a constant")?;
        let attr = cx.attribute_from_raw(attr);
        let data = coreai_ir::weights::float_data(attr).ok_or("unreadable constant values")?;
        let values: Vec<f64> = match &data {
            coreai_ir::weights::FloatData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            coreai_ir::weights::FloatData::F16(v) => v.iter().map(|&x| f64::from(x)).collect(),
        };
        let mut largest = 0f64;
        let mut least = f64::INFINITY;
        for v in values.iter().map(|v| v.abs()) {
            if v.is_nan() {
                largest = f64::INFINITY;
            } else {
                largest = largest.max(v);
                if v > 0.0 {
                    least = least.min(v);
                }
            }
        }
        Ok((largest, least))
    };
    let (largest, least_normal) = match element {
        "f16" => (
            f64::from(half::f16::MAX),
            f64::from(half::f16::MIN_POSITIVE),
        ),
        _ => (f64::from(f32::MAX), f64::from(f32::MIN_POSITIVE)),
    };
    let (big1, small1) = magnitudes(c1)?;
    let (big2, small2) = magnitudes(c2)?;
    let overflow = big1 * big2 > largest;
    let underflow = small1.is_finite() && small2.is_finite() && small1 * small2 < least_normal;
    Ok(!overflow && !underflow)
}
