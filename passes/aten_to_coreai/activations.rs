//! Activations (relu, gelu, silu, hardswish, clamp ...) → coreai.
//!
//! One coreai op where coreai has it (relu, gelu, silu, sigmoid); otherwise
//! PyTorch's CPU kernel formula, in its order of operations. On f16/bf16
//! the multi-step formulas run in f32 and round once, as PyTorch's kernels
//! compute reduced-precision floats in f32.

use super::composite::{lower_composite, of_input};
use super::formulas::{expm1_value, log1p_value};
use super::promotion::constant_like;
use super::promotion::{
    arg, attr_arg, finish, float_operand, materialize, opmath_element, widened_operand, Arg,
};
use coreai_ir::emit::cast_to;
use coreai_ir::emit::{arith, predicate, select, unary};
use coreai_ir::lowering::{Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::{is_bool, is_float};
use coreai_ir::schema::{segment_operand, str_attr};
use melior::ir::{operation::OperationLike, r#type::ShapedTypeLike, Type, Value};

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

pub static LOWERINGS: super::Family = &[
    ("clamp.Tensor", clamp_tensor),
    ("clamp.default", clamp),
    ("clamp_min.default", clamp),
    ("elu.default", elu),
    ("gelu.default", gelu),
    ("hardsigmoid.default", |cx| {
        lower_composite(cx, hardsigmoid, |cx| {
            of_input(cx, "hard_sigmoid", Vec::new())
        })
    }),
    ("hardswish.default", hardswish),
    ("hardtanh.default", hardtanh),
    ("leaky_relu.default", leaky_relu),
    ("mish.default", mish),
    ("relu.default", relu),
    ("sigmoid.default", |cx| single(cx, coreai::SIGMOID)),
    ("silu.default", |cx| single(cx, coreai::SILU)),
    ("softplus.default", softplus),
];

// aten.sigmoid.default(%x) → coreai.sigmoid %x
// aten.silu.default(%x)    → coreai.silu %x
fn single<'c, 'a>(cx: &LoweringCx<'c, 'a>, op: &str) -> Lowered<'c, 'a> {
    let x = float_operand(cx)?;
    Ok(vec![unary(cx, op, x)?])
}

// aten.relu.default(%x) → coreai.relu %x                          (floats)
//                       → broadcasting_maximum %x, 0              (integers)
fn relu<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = cx.result_tensor(0)?.element();
    let x = materialize(cx, arg(cx, 0)?, result)?;
    if is_float(result) {
        return Ok(vec![unary(cx, coreai::RELU, x)?]);
    }
    let zero = constant_like(cx, 0.0, x)?;
    Ok(vec![arith(cx, coreai::MAXIMUM, x, zero)?])
}

// aten.gelu.default(%x) {approximate = "none"} → coreai.gelu %x
// aten.gelu.default(%x) {approximate = "tanh"} → coreai.gelu %x approximate = <tanh>
fn gelu<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = float_operand(cx)?;
    let mode = if cx.op().attribute("approximate").is_ok() {
        str_attr(cx, "approximate")?
    } else {
        "none".to_string()
    };
    let mut attributes = Vec::new();
    match mode.as_str() {
        "none" => {}
        "tanh" => attributes.push((
            "approximate",
            cx.parse_attribute("#coreai.approximate<tanh>")?,
        )),
        other => {
            return Err(format!(
                "gelu approximate '{other}' is not 'none' or 'tanh'"
            ))
        }
    }
    Ok(vec![cx.build_value(
        coreai::GELU,
        &[x],
        cx.result_type(0)?,
        &attributes,
    )?])
}

/// `min(max(x + 3, 0), 6)`.
fn relu6_of_shifted<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let three = constant_like(cx, 3.0, x)?;
    let zero = constant_like(cx, 0.0, x)?;
    let six = constant_like(cx, 6.0, x)?;
    let shifted = arith(cx, coreai::ADD, x, three)?;
    let low = arith(cx, coreai::MAXIMUM, shifted, zero)?;
    arith(cx, coreai::MINIMUM, low, six)
}

// aten.hardsigmoid.default(%x) → min(max(x + 3, 0), 6) / 6, in coreai-torch's
// hard_sigmoid composite (composite.rs). hardswish stays inline: coreai-torch's
// x · hard_sigmoid(x) rounds differently from PyTorch's (x · relu6(x + 3)) / 6.
fn hardsigmoid<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = widened_operand(cx)?;
    let six = constant_like(cx, 6.0, x)?;
    let r = arith(cx, coreai::DIVIDE, relu6_of_shifted(cx, x)?, six)?;
    finish(cx, r)
}

// aten.hardswish.default(%x) → (x · min(max(x + 3, 0), 6)) / 6
// (PyTorch's order: multiply, then divide; coreai-torch's x · hardsigmoid(x)
// rounds differently)
fn hardswish<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = widened_operand(cx)?;
    let six = constant_like(cx, 6.0, x)?;
    let product = arith(cx, coreai::MUL, x, relu6_of_shifted(cx, x)?)?;
    let r = arith(cx, coreai::DIVIDE, product, six)?;
    finish(cx, r)
}

/// `min(max(x, lo), hi)` with either bound optional; NaN in x propagates.
fn clamp_between<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    lo: Option<Value<'c, 'a>>,
    hi: Option<Value<'c, 'a>>,
) -> Result<Value<'c, 'a>, Decline> {
    let mut r = x;
    if let Some(lo) = lo {
        r = arith(cx, coreai::MAXIMUM, r, lo)?;
    }
    if let Some(hi) = hi {
        r = arith(cx, coreai::MINIMUM, r, hi)?;
    }
    Ok(r)
}

/// The optional `Scalar` attribute `name` as an operand.
fn optional_bound<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    name: &str,
) -> Result<Option<Arg<'c, 'a>>, Decline> {
    if cx.op().attribute(name).is_err() {
        return Ok(None);
    }
    attr_arg(cx, name).map(Some)
}

/// The result element of a clamp (any dtype but bool).
fn clamp_result<'c>(cx: &LoweringCx<'c, '_>) -> Result<Type<'c>, Decline> {
    let element = cx.result_tensor(0)?.element();
    if is_bool(element) {
        return Err("clamping bool tensors is not supported".into());
    }
    Ok(element)
}

// aten.clamp.default(%x) {min = a, max = b} → broadcasting_minimum (broadcasting_maximum %x, a), b
// aten.clamp_min.default(%x) {min = a}      → broadcasting_maximum %x, a
// (a missing bound is skipped; bounds are constants of the result dtype)
fn clamp<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = clamp_result(cx)?;
    let x = materialize(cx, arg(cx, 0)?, result)?;
    let lo = optional_bound(cx, "min")?
        .map(|a| materialize(cx, a, result))
        .transpose()?;
    let hi = optional_bound(cx, "max")?
        .map(|a| materialize(cx, a, result))
        .transpose()?;
    if lo.is_none() && hi.is_none() {
        return Err("clamp needs at least one of 'min' and 'max'".into());
    }
    Ok(vec![clamp_between(cx, x, lo, hi)?])
}

// aten.clamp.Tensor(%x, %min, %max) → broadcasting_minimum (broadcasting_maximum %x, %min), %max
fn clamp_tensor<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = clamp_result(cx)?;
    let x = materialize(cx, arg(cx, 0)?, result)?;
    let bound = |group: usize| -> Result<Option<Value<'c, 'a>>, Decline> {
        match segment_operand(cx, group)? {
            Some(v) => Ok(Some(cast_to(cx, v, result)?)),
            None => Ok(None),
        }
    };
    let (lo, hi) = (bound(1)?, bound(2)?);
    if lo.is_none() && hi.is_none() {
        return Err("clamp needs at least one of 'min' and 'max'".into());
    }
    let r = clamp_between(cx, x, lo, hi)?;
    finish(cx, r)
}

// aten.hardtanh.default(%x) {min_val, max_val} → broadcasting_minimum (broadcasting_maximum %x, min_val), max_val
fn hardtanh<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = clamp_result(cx)?;
    let x = materialize(cx, arg(cx, 0)?, result)?;
    let lo = materialize(cx, attr_arg(cx, "min_val")?, result)?;
    let hi = materialize(cx, attr_arg(cx, "max_val")?, result)?;
    Ok(vec![clamp_between(cx, x, Some(lo), Some(hi))?])
}

// aten.leaky_relu.default(%x) {negative_slope = s} → where(x > 0, x, x · s)
// (NaN propagates; on f16/bf16 with an s f16 cannot hold, x · s is computed
// in f32 and rounded once, as PyTorch does)
fn leaky_relu<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = cx.result_tensor(0)?.element();
    let slope = attr_arg(cx, "negative_slope")?;
    let x = float_operand(cx)?;
    let element = opmath_element(cx, result, &[slope])?;
    let x = cast_to(cx, x, element)?;
    let s = materialize(cx, slope, element)?;
    let zero = constant_like(cx, 0.0, x)?;
    let positive = predicate(cx, coreai::GREATER, x, zero)?;
    let scaled = arith(cx, coreai::MUL, x, s)?;
    let r = select(cx, positive, x, scaled)?;
    finish(cx, r)
}

/// `x · k`, or `x` when k is 1 (exact).
fn scale<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    k: f64,
) -> Result<Value<'c, 'a>, Decline> {
    if k == 1.0 {
        return Ok(x);
    }
    let k = constant_like(cx, k, x)?;
    arith(cx, coreai::MUL, x, k)
}

/// A `Scalar` attribute as a float.
fn float_scalar(cx: &LoweringCx<'_, '_>, name: &str) -> Result<f64, Decline> {
    Ok(match cx.scalar(name)? {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    })
}

// aten.elu.default(%x) {alpha, scale, input_scale}
//   → where(x > 0, x · scale, expm1(x · input_scale) · (alpha · scale))
// (PyTorch's kernel; multiplications by 1 are skipped, which is exact)
fn elu<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let (alpha, scale_k, input_scale) = (
        float_scalar(cx, "alpha")?,
        float_scalar(cx, "scale")?,
        float_scalar(cx, "input_scale")?,
    );
    let x = widened_operand(cx)?;
    let zero = constant_like(cx, 0.0, x)?;
    let positive = predicate(cx, coreai::GREATER, x, zero)?;
    let pos = scale(cx, x, scale_k)?;
    let neg = expm1_value(cx, scale(cx, x, input_scale)?)?;
    let neg = scale(cx, neg, alpha * scale_k)?;
    let r = select(cx, positive, pos, neg)?;
    finish(cx, r)
}

// aten.softplus.default(%x) {beta, threshold} → where(x · beta > threshold, x, log1p(exp(x · beta)) / beta)
// (PyTorch's kernel; in f32 for f16/bf16, so exp does not overflow early)
fn softplus<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let (beta, threshold) = (float_scalar(cx, "beta")?, float_scalar(cx, "threshold")?);
    let x = widened_operand(cx)?;
    let bx = scale(cx, x, beta)?;
    let t = constant_like(cx, threshold, x)?;
    let linear = predicate(cx, coreai::GREATER, bx, t)?;
    let soft = log1p_value(cx, unary(cx, coreai::EXP, bx)?)?;
    let soft = if beta == 1.0 {
        soft
    } else {
        let b = constant_like(cx, beta, x)?;
        arith(cx, coreai::DIVIDE, soft, b)?
    };
    let r = select(cx, linear, x, soft)?;
    finish(cx, r)
}

// aten.mish.default(%x) → x · tanh(log1p(exp(x)))
// (PyTorch's kernel, no threshold: exp(x) = inf gives tanh(inf) = 1; in f32
// for f16/bf16, so exp does not overflow at x ≈ 11 as it would in f16)
fn mish<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = widened_operand(cx)?;
    let soft = log1p_value(cx, unary(cx, coreai::EXP, x)?)?;
    let r = arith(cx, coreai::MUL, x, unary(cx, coreai::TANH, soft)?)?;
    finish(cx, r)
}
