//! Inference batch norm with constant statistics, folded into an affine
//! map or into the weights of the convolution before it. Value-changing:
//! off under `exact=true`; Apple's `coreai-pre-compilation-rewrite` folds
//! the same composites.
//!
//! // invoke @batch_norm(conv(x, W, ...), gamma, beta, mean, var)   (constants)
//! //   → conv(x, W * s[:, None, ...], ...) + (beta - mean * s)[None, :, None, ...]
//! // invoke @batch_norm(x, gamma, beta, mean, var)
//! //   → x * s[None, :, None, ...] + (beta - mean * s)[None, :, None, ...]
//! // where s = gamma / sqrt(var + eps)
//!
//! The callee must be a graph whose `composite_decl` is `"batch_norm"`
//! (what `legalize-aten-to-coreai` emits for inference batch norm, as
//! coreai-torch does), on f32 or f16 with channels on dim 1. A constant
//! per-channel bias added to the convolution's result folds too
//! (`conv(x, W) + c`: the new bias is `b + c * s`). `s` and the new
//! bias are built from coreai ops on constants (in f32, as the composite
//! computes them; f16 weights and bias rounded once at the end), which
//! `fold_constants` then folds with the executor's kernels (each op
//! rounded to f32 once).
//!
//! Error bound: the composite computes `((x - mean) / sd) * gamma + beta`
//! (four f32 roundings); the fold computes `x * s + (beta - mean * s)`,
//! with `s` and the bias rounded once each. Per element the difference is
//! a few f32 ulps of `|x * s| + |mean * s| + |beta|`; folded into a
//! convolution, the products `w * s` are rounded once each, which adds at
//! most 1 ulp of each product to the convolution's sum, i.e. a relative
//! error ≤ 2^-23 of `sum |w * s * x|`. The corpus models with batch norm
//! match eager PyTorch within the corpus tolerance (1e-4 × max|eager|,
//! `test/e2e/test_convert_corpus.py`).

use super::{constant_attr, op_name, single_use_producer, static_shape, Options};
use coreai_ir::emit::broadcasting;
use coreai_ir::emit::constant;
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use melior::ir::{operation::OperationLike, Type, TypeLike, Value, ValueLike};
use mlir_sys::MlirOperation;

const CONVOLUTIONS: &[&str] = &[coreai::CONV2D, coreai::CONV3D];

/// The graph `invoke` calls, found among the module's ops.
fn callee(invoke: MlirOperation) -> Option<MlirOperation> {
    raw::lookup_symbol(invoke, &super::callee_name(invoke)?)
}

/// The `eps` of a `"batch_norm"` composite declaration, from its text
/// (`#coreai.composite_declaration<"batch_norm" = {..., op_attrs = {eps = 9.99999974E-6 : f32, ...}}>`).
fn batch_norm_eps(graph: MlirOperation) -> Result<f64, Decline> {
    let attr = raw::attribute(graph, "composite_decl").ok_or("the callee is not a composite")?;
    let text = super::attribute_text(attr);
    if !text.contains("<\"batch_norm\"") {
        return Err("the callee is not a batch_norm composite".into());
    }
    let eps = text
        .split("eps = ")
        .nth(1)
        .ok_or("the declaration has no eps")?;
    eps.split(" :")
        .next()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .ok_or_else(|| "the declaration's eps is not a number".into())
}

/// A ranked tensor type of `shape` and `element` (`f32`, `f16`).
pub(super) fn tensor<'c>(
    cx: &LoweringCx<'c, '_>,
    shape: &[i64],
    element: &str,
) -> Result<Type<'c>, Decline> {
    let dims: Vec<String> = shape.iter().map(|d| format!("{d}x")).collect();
    cx.parse_type(&format!("tensor<{}{element}>", dims.concat()))
}

/// `v` reshaped to `shape`.
pub(super) fn reshaped<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
    shape: &[i64],
    element: &str,
) -> Result<Value<'c, 'a>, Decline> {
    let (shape_ty, shape_attr) = cx.int_tensor(&[shape.len() as i64], shape, "ui32")?;
    let s = constant(cx, shape_ty, shape_attr)?;
    cx.build_value(coreai::RESHAPE, &[v, s], tensor(cx, shape, element)?, &[])
}

/// `v` cast to `ty` (nothing when it has it).
pub(super) fn cast<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
    ty: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    if v.r#type() == ty {
        return Ok(v);
    }
    cx.build_value(coreai::CAST, &[v], ty, &[])
}

/// The element type name of a float tensor the fold handles.
pub(super) fn float_element(ty: Type<'_>) -> Option<&'static str> {
    use melior::ir::r#type::{RankedTensorType, ShapedTypeLike};
    let e = RankedTensorType::try_from(ty).ok()?.element();
    if e.is_f32() {
        Some("f32")
    } else if e.is_f16() {
        Some("f16")
    } else {
        None
    }
}

// invoke @batch_norm(x, gamma, beta, mean, var) → conv(x, W * s) + b  |  x * s + b
pub fn fold_batch_norm<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    options: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    if options.exact {
        return Err("value-changing (exact=true)".into());
    }
    let op = cx.op();
    let graph = callee(op.to_raw()).ok_or("the callee is not found")?;
    let eps = batch_norm_eps(graph)?;
    if op.operand_count() != 5 || op.result_count() != 1 {
        return Err("not batch_norm(input, gamma, beta, mean, variance)".into());
    }
    for i in 1..5 {
        constant_attr(cx.operand(i)?.to_raw())
            .ok_or_else(|| format!("operand #{i} is not a constant"))?;
    }
    let x = cx.operand(0)?;
    let input = static_shape(x.r#type().to_raw()).ok_or("the input shape is not static")?;
    let stats = static_shape(cx.operand(1)?.r#type().to_raw())
        .ok_or("the statistics' shape is not static")?;
    let result = cx.result_type(0)?;
    let element = float_element(x.r#type()).ok_or("not f32 or f16")?;
    let rank = input.len();
    if float_element(cx.operand(1)?.r#type()) != Some(element)
        || rank < 2
        || stats.len() != 1
        || stats[0] != input[1]
    {
        return Err("statistics of another type, or no channels on dim 1".into());
    }
    let channels = stats[0];
    // The statistics in f32, as the composite computes them.
    let vec32 = tensor(cx, &[channels], "f32")?;
    let stat = |i: usize| -> Result<Value<'c, 'a>, Decline> { cast(cx, cx.operand(i)?, vec32) };
    let (gamma, beta, mean, var) = (stat(1)?, stat(2)?, stat(3)?, stat(4)?);
    let eps_attr = cx.parse_attribute(&format!(
        "dense<{}> : tensor<f32>",
        coreai_ir::lowering::float_literal(eps)
    ))?;
    let eps = constant(cx, tensor(cx, &[], "f32")?, eps_attr)?;
    let sd = cx.build_value(
        coreai::SQRT,
        &[broadcasting(cx, coreai::ADD, var, eps, vec32)?],
        vec32,
        &[],
    )?;
    let s = broadcasting(cx, coreai::DIVIDE, gamma, sd, vec32)?;
    let bias = broadcasting(
        cx,
        coreai::SUB,
        beta,
        broadcasting(cx, coreai::MUL, mean, s, vec32)?,
        vec32,
    )?;
    let mut channel_shape = vec![1i64; rank];
    channel_shape[1] = channels;
    let channel_ty = tensor(cx, &channel_shape, element)?;
    let (scaled, bias) = match scale_convolution(cx, x, s, Some(bias), channels, element)? {
        Some((conv, b)) => (conv, b.unwrap_or(bias)),
        None => {
            let s = cast(cx, reshaped(cx, s, &channel_shape, "f32")?, channel_ty)?;
            (broadcasting(cx, coreai::MUL, x, s, result)?, bias)
        }
    };
    let bias = cast(cx, reshaped(cx, bias, &channel_shape, "f32")?, channel_ty)?;
    Ok(vec![broadcasting(cx, coreai::ADD, scaled, bias, result)?])
}

/// When `x` is the only use of a convolution with constant weights
/// `[C, ...]`, possibly through a constant per-channel bias add
/// `conv(...) + c`: a copy of the convolution with weights
/// `W * s[:, None, ...]`, and the bias (f32, `[C]`) `bias + c * s` (`c * s`
/// without `bias`; none without either).
pub(super) fn scale_convolution<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    s: Value<'c, 'a>,
    bias: Option<Value<'c, 'a>>,
    channels: i64,
    element: &str,
) -> Result<Option<(Value<'c, 'a>, Option<Value<'c, 'a>>)>, Decline> {
    let vec32 = tensor(cx, &[channels], "f32")?;
    let Some(mut conv) = single_use_producer(x) else {
        return Ok(None);
    };
    let mut bias = bias;
    if op_name(conv) == coreai::DECOMPOSABLE_BROADCASTING_ADD {
        let (c, y) = (
            cx.value(raw::operand(conv, 1)),
            cx.value(raw::operand(conv, 0)),
        );
        let c_shape = static_shape(c.r#type().to_raw()).unwrap_or_default();
        let per_channel = c_shape.len() >= 2
            && c_shape[1] == channels
            && c_shape.iter().enumerate().all(|(i, d)| i == 1 || *d == 1);
        let Some(inner) = single_use_producer(y) else {
            return Ok(None);
        };
        if constant_attr(c.to_raw()).is_none() || !per_channel || y.r#type() != x.r#type() {
            return Ok(None);
        }
        let (shape_ty, shape_attr) = cx.int_tensor(&[1], &[channels], "ui32")?;
        let shape = constant(cx, shape_ty, shape_attr)?;
        let c = cx.build_value(
            coreai::RESHAPE,
            &[c, shape],
            tensor(cx, &[channels], element)?,
            &[],
        )?;
        let c = cast(cx, c, vec32)?;
        let cs = broadcasting(cx, coreai::MUL, c, s, vec32)?;
        bias = Some(match bias {
            Some(b) => broadcasting(cx, coreai::ADD, b, cs, vec32)?,
            None => cs,
        });
        conv = inner;
    }
    if !CONVOLUTIONS.contains(&op_name(conv).as_str()) {
        return Ok(None);
    }
    let weight = cx.value(raw::operand(conv, 1));
    if constant_attr(weight.to_raw()).is_none() || float_element(weight.r#type()) != Some(element) {
        return Ok(None);
    }
    let Some(dims) = static_shape(weight.r#type().to_raw()) else {
        return Ok(None);
    };
    if dims.first() != Some(&channels) {
        return Ok(None);
    }
    let mut shape = vec![1i64; dims.len()];
    shape[0] = channels;
    let w32 = cast(cx, weight, tensor(cx, &dims, "f32")?)?;
    let scaled = broadcasting(
        cx,
        coreai::MUL,
        w32,
        reshaped(cx, s, &shape, "f32")?,
        tensor(cx, &dims, "f32")?,
    )?;
    let scaled = cast(cx, scaled, weight.r#type())?;
    let copy = raw::clone(conv);
    raw::set_operand(copy, 1, scaled.to_raw());
    raw::insert_before(cx.op().to_raw(), copy);
    let copy = cx.value(raw::result(copy, 0));
    Ok(Some((copy, bias)))
}
