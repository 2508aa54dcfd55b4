//! Pooling, normalization, attention and resampling → coreai.
//!
//! coreai-torch wraps norms, log_softmax, SDPA and avg-pool in private
//! composite graphs; so do these lowerings (`lower_composite`, composite.rs;
//! `composites=inline` emits them in place), each graph's body being the
//! inline lowering below, which fixes what coreai-torch gets wrong: avg-pool honours `ceil_mode`, `count_include_pad` and
//! `divisor_override`; the causal mask of SDPA is PyTorch's upper-left one
//! with -inf (not -1e4); instance norm follows `use_input_stats`.
//! Norms of f16/bf16 tensors compute in f32 and round the results once, as
//! PyTorch's CPU kernels do. Shapes must be static, except that batch,
//! group, layer and instance norm and softmax only need the channel
//! (normalized) dims static, pooling only the spatial dims (N and C may be
//! dynamic), and attention without a causal mask or GQA only the embedding
//! size; a dynamic dim that must be static declines naming it. Pooling takes
//! [N, C, ...] or unbatched [C, ...] inputs, upsampling NCHW.

use super::composite::{lower_composite, of_input, operand, operand_or, Composite, Input, OpAttr};
use super::indexing::gather_at_dim;
use coreai_ir::emit::arith as broadcasting;
use coreai_ir::emit::constant;
use coreai_ir::emit::{axes, cast_to, reshape, shape, splat, transpose};
use coreai_ir::emit::{batch_matmul, float_scalar, pad_spatial};
use coreai_ir::emit::{extents_of, reshape_to, Extent};
use coreai_ir::emit::{predicate, select, unary};
use coreai_ir::lowering::{type_text, Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::arg_operand;
use coreai_ir::schema::is_bool;
use coreai_ir::schema::{
    bool_attr, element_type, int_attr, int_list_attr, opt_int_attr, segment_operand, shape_of,
    tensor_type, DYNAMIC,
};
use melior::ir::{
    attribute::{ArrayAttribute, FloatAttribute, IntegerAttribute},
    operation::OperationLike,
    r#type::ShapedTypeLike,
    Type, Value, ValueLike,
};

pub static LOWERINGS: super::Family = &[
    ("_adaptive_avg_pool2d.default", adaptive_avg_pool2d),
    ("dropout.default", dropout),
    ("_log_softmax.default", |cx| {
        lower_composite(cx, log_softmax, log_softmax_composite)
    }),
    ("_native_batch_norm_legit_no_training.default", |cx| {
        lower_composite(cx, batch_norm_no_training, batch_norm_composite)
    }),
    ("_softmax.default", softmax),
    ("adaptive_avg_pool2d.default", adaptive_avg_pool2d),
    ("adaptive_max_pool2d.default", adaptive_max_pool2d),
    ("avg_pool2d.default", |cx| {
        lower_composite(cx, avg_pool2d, |cx| avg_pool_composite(cx, 2))
    }),
    ("avg_pool3d.default", |cx| {
        lower_composite(cx, avg_pool3d, |cx| avg_pool_composite(cx, 3))
    }),
    ("instance_norm.default", |cx| {
        lower_composite(cx, instance_norm, instance_norm_composite)
    }),
    ("max_pool2d.default", max_pool2d),
    ("max_pool2d_with_indices.default", max_pool2d),
    ("group_norm.default", |cx| {
        lower_composite(cx, group_norm, |cx| group_norm_composite(cx, "num_groups"))
    }),
    ("layer_norm.default", |cx| {
        lower_composite(cx, layer_norm, layer_norm_composite)
    }),
    ("log_softmax.int", |cx| {
        lower_composite(cx, log_softmax, log_softmax_composite)
    }),
    ("native_group_norm.default", |cx| {
        lower_composite(cx, native_group_norm, |cx| {
            group_norm_composite(cx, "group")
        })
    }),
    ("native_layer_norm.default", |cx| {
        lower_composite(cx, native_layer_norm, layer_norm_composite)
    }),
    ("scaled_dot_product_attention.default", |cx| {
        lower_composite(cx, sdpa, sdpa_composite)
    }),
    ("softmax.int", softmax),
    ("upsample_bilinear2d.vec", upsample_bilinear2d),
    ("upsample_nearest2d.vec", upsample_nearest2d),
];

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

// ---------------------------------------------------------------- helpers

/// A keep-dims reduction `op %x, axes` (`coreai::REDUCE_MEAN`, `coreai::REDUCE_MAX`).
fn reduce<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    x: Value<'c, '_>,
    over: &[usize],
) -> Result<Value<'c, 'a>, Decline> {
    let mut to = shape_of(x)?;
    for &a in over {
        to[a] = 1;
    }
    let list: Vec<i64> = over.iter().map(|&a| a as i64).collect();
    let ty = tensor_type(&to, element_type(x)?);
    cx.build_value(op, &[x, axes(cx, &list)?], ty, &[])
}

/// A float constant of `element` and shape `to` holding `values` (row-major,
/// rounded to nearest); one value is a splat.
fn float_constant<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    to: &[i64],
    values: &[f64],
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let uniform = values
        .windows(2)
        .all(|w| w[0] == w[1] || (w[0].is_nan() && w[1].is_nan()));
    if uniform && !values.is_empty() {
        return splat(cx, Scalar::Float(values[0]), tensor_type(to, element));
    }
    let literals: Result<Vec<String>, Decline> = values
        .iter()
        .map(|&v| coreai_ir::emit::fill_literal(Scalar::Float(v), element))
        .collect();
    let flat = tensor_type(&[values.len() as i64], element);
    let attr = cx.parse_attribute(&format!("dense<[{}]> : {flat}", literals?.join(", ")))?;
    let c = constant(cx, flat, attr)?;
    if to.len() == 1 {
        Ok(c)
    } else {
        reshape(cx, c, to)
    }
}

/// The element type norms compute in: f32 for f16/bf16 (PyTorch's CPU
/// kernels accumulate in float), the element type itself otherwise.
fn compute_type<'c>(cx: &LoweringCx<'c, '_>, element: Type<'c>) -> Result<Type<'c>, Decline> {
    match &*type_text(element) {
        "f16" | "bf16" => cx.parse_type("f32"),
        "f32" | "f64" => Ok(element),
        other => Err(format!("normalization of {other} tensors is not defined")),
    }
}

/// A float attribute (`eps`) as f64.
fn float_attr(cx: &LoweringCx<'_, '_>, name: &str) -> Result<f64, Decline> {
    let attr = cx.attribute(name)?;
    if let Ok(f) = FloatAttribute::try_from(attr) {
        return Ok(f.value());
    }
    IntegerAttribute::try_from(attr)
        .map(|i| i.value() as f64)
        .map_err(|_| format!("attribute '{name}' is not a number: {attr}"))
}

/// An optional float attribute (`scale`), `None` when absent.
fn opt_float_attr(cx: &LoweringCx<'_, '_>, name: &str) -> Result<Option<f64>, Decline> {
    match cx.op().attribute(name) {
        Err(_) => Ok(None),
        Ok(_) => float_attr(cx, name).map(Some),
    }
}

/// An optional list-of-numbers attribute (`scale_factors`).
fn opt_float_list(cx: &LoweringCx<'_, '_>, name: &str) -> Result<Option<Vec<f64>>, Decline> {
    let Ok(attr) = cx.op().attribute(name) else {
        return Ok(None);
    };
    let array = ArrayAttribute::try_from(attr)
        .map_err(|_| format!("attribute '{name}' is not a list: {attr}"))?;
    (0..array.len())
        .map(|i| {
            let e = array.element(i).map_err(|e| e.to_string())?;
            FloatAttribute::try_from(e)
                .map(|f| f.value())
                .or_else(|_| IntegerAttribute::try_from(e).map(|n| n.value() as f64))
                .map_err(|_| format!("attribute '{name}' is not a list of numbers: {attr}"))
        })
        .collect::<Result<Vec<f64>, Decline>>()
        .map(Some)
}

/// An optional integer-list attribute (`output_size`).
fn opt_int_list(cx: &LoweringCx<'_, '_>, name: &str) -> Result<Option<Vec<i64>>, Decline> {
    match cx.op().attribute(name) {
        Err(_) => Ok(None),
        Ok(_) => int_list_attr(cx, name).map(Some),
    }
}

/// The static dims of result `index`.
fn result_dims(cx: &LoweringCx<'_, '_>, index: usize) -> Result<Vec<i64>, Decline> {
    let d = coreai_ir::schema::dims(cx.result_tensor(index)?);
    if let Some(i) = d.iter().position(|&n| n == coreai_ir::schema::DYNAMIC) {
        return Err(format!(
            "dim {i} of result #{index} ({}) is dynamic; this lowering needs its size",
            cx.result_type(index)?
        ));
    }
    Ok(d)
}

/// The dims of operand `index`, declining unless those at `needed` (the
/// channel dim, the normalized dims ...) are static; others may be `?`.
fn dims_static_at(
    cx: &LoweringCx<'_, '_>,
    index: usize,
    needed: impl Fn(usize) -> bool,
) -> Result<Vec<i64>, Decline> {
    let ty = cx.operand_tensor(index)?;
    let d = coreai_ir::schema::dims(ty);
    if let Some(i) = (0..d.len()).find(|&i| needed(i) && d[i] == coreai_ir::schema::DYNAMIC) {
        return Err(format!(
            "dim {i} of operand #{index} ({ty}) must be static for this lowering"
        ));
    }
    Ok(d)
}

/// Whether result `index` of the op being lowered has uses.
fn result_used(cx: &LoweringCx<'_, '_>, index: usize) -> Result<bool, Decline> {
    let r = cx
        .op()
        .result(index)
        .map_err(|_| format!("expected a result #{index}"))?;
    Ok(coreai_ir::raw::has_uses(r.to_raw()))
}

/// The value of an unused result (pooling indices nobody reads): a zero
/// constant of its type, dead once the op is replaced; a dynamic type takes
/// its runtime shape from `like` (a value of the same shape).
fn unused_result<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    index: usize,
    like: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    coreai_ir::emit::fill(
        cx,
        Scalar::Int(0),
        cx.result_type(index)?,
        &extents_of(like)?,
    )
}

// ---------------------------------------------------------------- softmax

/// The input, cast to the result's dtype (`softmax.int`'s `dtype`), and
/// the normalized softmax axis.
fn softmax_input<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<(Value<'c, 'a>, usize), Decline> {
    if cx.op().attribute("half_to_float").is_ok() && bool_attr(cx, "half_to_float")? {
        return Err("half_to_float = true (a CUDA-only fused upcast) is not supported".into());
    }
    let rank = cx.operand_tensor(0)?.rank();
    let axis = coreai_ir::schema::normalize_dim(int_attr(cx, "dim")?, rank)?;
    let x = cast_to(cx, cx.operand(0)?, cx.result_tensor(0)?.element())?;
    Ok((x, axis))
}

// aten._softmax.default(%x) {dim} → coreai.softmax %x, dim
// aten.softmax.int(%x) {dim, dtype?} → coreai.softmax (coreai.cast %x to dtype), dim
pub fn softmax<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, axis) = softmax_input(cx)?;
    let dim = coreai_ir::emit::int_scalar(cx, axis as i64, "si32")?;
    Ok(vec![cx.build_value(
        coreai::SOFTMAX,
        &[x, dim],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten._log_softmax.default(%x) {dim}   (log_softmax.int: %x cast to dtype first)
//   → d = x - reduce_max(x, dim); d - log(reduce_sum(exp(d), dim))
pub fn log_softmax<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let (x, axis) = softmax_input(cx)?;
    let max = reduce(cx, coreai::REDUCE_MAX, x, &[axis])?;
    let shifted = broadcasting(cx, coreai::SUB, x, max)?;
    let e = unary(cx, coreai::EXP, shifted)?;
    let sum = reduce(cx, coreai::REDUCE_SUM, e, &[axis])?;
    let log = unary(cx, coreai::LOG, sum)?;
    Ok(vec![broadcasting(cx, coreai::SUB, shifted, log)?])
}

// ---------------------------------------------------------------- norms

/// `(x - mean) * rstd * weight + bias` in the compute type, the per-channel
/// parameters reshaped to `param_shape` (`None`: weight 1 / bias 0).
fn affine<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    normalized: Value<'c, 'a>,
    weight: Option<Value<'c, 'a>>,
    bias: Option<Value<'c, 'a>>,
    param_shape: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    let compute = element_type(normalized)?;
    let mut y = normalized;
    if let Some(w) = weight {
        let w = reshape(cx, cast_to(cx, w, compute)?, param_shape)?;
        y = broadcasting(cx, coreai::MUL, y, w)?;
    }
    if let Some(b) = bias {
        let b = reshape(cx, cast_to(cx, b, compute)?, param_shape)?;
        y = broadcasting(cx, coreai::ADD, y, b)?;
    }
    Ok(y)
}

/// `(x - mean(x)) * rsqrt(var(x) + eps)` over `over`, with the mean and the
/// rstd (keep-dims), in `x`'s type.
fn standardize<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    over: &[usize],
    eps: f64,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>), Decline> {
    let mean = reduce(cx, coreai::REDUCE_MEAN, x, over)?;
    let centered = broadcasting(cx, coreai::SUB, x, mean)?;
    let squares = broadcasting(cx, coreai::MUL, centered, centered)?;
    let var = reduce(cx, coreai::REDUCE_MEAN, squares, over)?;
    let eps = float_scalar(cx, eps, element_type(x)?)?;
    let rstd = unary(cx, coreai::RSQRT, broadcasting(cx, coreai::ADD, var, eps)?)?;
    Ok((broadcasting(cx, coreai::MUL, centered, rstd)?, mean, rstd))
}

/// `[1, C, 1, ...]` for a rank-`rank` input with `c` channels.
fn channel_shape(c: i64, rank: usize) -> Vec<i64> {
    let mut s = vec![1; rank];
    s[1] = c;
    s
}

// aten._native_batch_norm_legit_no_training.default(%x, %w?, %b?, %mean, %var) {eps}
//   → (x - mean) / sqrt(var + eps) * w + b (params reshaped to [1, C, 1, ...]),
//     and two empty tensors
pub fn batch_norm_no_training<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let d = dims_static_at(cx, 0, |i| i == 1)?;
    if !(2..=5).contains(&d.len()) {
        return Err(format!(
            "batch norm takes a rank 2 to 5 input, got rank {}",
            d.len()
        ));
    }
    let element = element_type(x)?;
    let compute = compute_type(cx, element)?;
    let param = channel_shape(d[1], d.len());
    let stat = |group: usize| -> Result<Value<'c, 'a>, Decline> {
        let v = segment_operand(cx, group)?.ok_or("missing running statistics")?;
        reshape(cx, cast_to(cx, v, compute)?, &param)
    };
    let (mean, var) = (stat(3)?, stat(4)?);
    let eps = float_scalar(cx, float_attr(cx, "eps")?, compute)?;
    let std = unary(cx, coreai::SQRT, broadcasting(cx, coreai::ADD, var, eps)?)?;
    let xc = cast_to(cx, x, compute)?;
    let normalized = broadcasting(
        cx,
        coreai::DIVIDE,
        broadcasting(cx, coreai::SUB, xc, mean)?,
        std,
    )?;
    let y = affine(
        cx,
        normalized,
        segment_operand(cx, 1)?,
        segment_operand(cx, 2)?,
        &param,
    )?;
    let y = cast_to(cx, y, element)?;
    let empty = |i: usize| splat(cx, Scalar::Float(0.0), cx.result_type(i)?);
    Ok(vec![y, empty(1)?, empty(2)?])
}

/// Layer norm over the trailing `normalized_shape` dims: the output, the
/// mean and the rstd (keep-dims), in the compute type.
type Normalized<'c, 'a> = (Value<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>);

fn layer_norm_parts<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Normalized<'c, 'a>, Decline> {
    let x = cx.operand(0)?;
    let normalized = int_list_attr(cx, "normalized_shape")?;
    let k = normalized.len();
    let rank = cx.operand_tensor(0)?.rank();
    let d = dims_static_at(cx, 0, |i| i + k >= rank)?;
    if k == 0 || k > d.len() || d[d.len() - k..] != normalized[..] {
        return Err(format!(
            "normalized_shape {normalized:?} is not the trailing shape of {d:?}"
        ));
    }
    let compute = compute_type(cx, element_type(x)?)?;
    let over: Vec<usize> = (d.len() - k..d.len()).collect();
    let xc = cast_to(cx, x, compute)?;
    let (y, mean, rstd) = standardize(cx, xc, &over, float_attr(cx, "eps")?)?;
    let y = affine(
        cx,
        y,
        segment_operand(cx, 1)?,
        segment_operand(cx, 2)?,
        &normalized,
    )?;
    Ok((y, mean, rstd))
}

/// Values cast to the element types of the op's results, in order.
fn cast_to_results<'c, 'a>(cx: &LoweringCx<'c, 'a>, values: Vec<Value<'c, 'a>>) -> Lowered<'c, 'a> {
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| cast_to(cx, v, cx.result_tensor(i)?.element()))
        .collect()
}

// aten.native_layer_norm.default(%x, %w?, %b?) {normalized_shape, eps}
//   → reduce_mean over the trailing dims, (x - mean) * rsqrt(var + eps) * w + b;
//     mean and rstd (keep-dims) are the second and third results
pub fn native_layer_norm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let (y, mean, rstd) = layer_norm_parts(cx)?;
    cast_to_results(cx, vec![y, mean, rstd])
}

// aten.layer_norm.default(%x, %w?, %b?) {normalized_shape, eps} → native_layer_norm's output
pub fn layer_norm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let (y, _, _) = layer_norm_parts(cx)?;
    cast_to_results(cx, vec![y])
}

/// Group norm of the input in `g` groups: the output ([N, C, ...]) and the
/// mean and rstd ([N, G]), in the compute type. C must be static; N and the
/// spatial dims may be dynamic (the grouped shape [N, G, -1] then takes N
/// from `coreai.get_shape` when a spatial dim is dynamic too, and the output
/// is reshaped back to the input's runtime shape).
fn group_norm_parts<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    g: i64,
) -> Result<Normalized<'c, 'a>, Decline> {
    let x = cx.operand(0)?;
    let d = dims_static_at(cx, 0, |i| i == 1)?;
    let zero = d.contains(&0);
    if d.len() < 2 || g <= 0 || d[1] % g != 0 || zero {
        return Err(format!("group norm of {d:?} in {g} groups is malformed"));
    }
    let (n, c) = (d[0], d[1]);
    let compute = compute_type(cx, element_type(x)?)?;
    let xc = cast_to(cx, x, compute)?;
    let rest = if d[2..].contains(&DYNAMIC) {
        DYNAMIC
    } else {
        d[2..].iter().product::<i64>() * (c / g)
    };
    let n_extent = if n == DYNAMIC {
        Extent::DimOf(x, 0)
    } else {
        Extent::Static(n)
    };
    let grouped = reshape_to(
        cx,
        xc,
        &[n, g, rest],
        &[n_extent, Extent::Static(g), Extent::Static(-1)],
    )?;
    let (y, mean, rstd) = standardize(cx, grouped, &[2], float_attr(cx, "eps")?)?;
    let y = reshape_to(cx, y, &d, &extents_of(x)?)?;
    let y = affine(
        cx,
        y,
        arg_operand(cx, "weight", 1)?,
        arg_operand(cx, "bias", 2)?,
        &channel_shape(c, d.len()),
    )?;
    Ok((y, reshape(cx, mean, &[n, g])?, reshape(cx, rstd, &[n, g])?))
}

// aten.native_group_norm.default(%x, %w?, %b?) {N, C, HxW, group, eps}
//   → reshape [N, G, C/G·HxW], standardize over the last axis, reshape back,
//     * w + b ([1, C, 1, ...]); mean and rstd reshaped to [N, G]
//   (dynamic N and spatial dims: reshape [N, G, -1] with N from coreai.get_shape
//    %x when both are dynamic, back by coreai.get_shape %x; C must be static)
pub fn native_group_norm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let d = dims_static_at(cx, 0, |i| i == 1)?;
    let c = int_attr(cx, "C")?;
    // A symbolic N or HxW is an operand (aten.operator), not an attribute.
    let n = opt_int_attr(cx, "N")?;
    if d.len() < 2 || d[1] != c || n.is_some_and(|n| d[0] != DYNAMIC && d[0] != n) {
        return Err(format!("N={n:?}, C={c} do not match the input shape {d:?}"));
    }
    let (y, mean, rstd) = group_norm_parts(cx, int_attr(cx, "group")?)?;
    cast_to_results(cx, vec![y, mean, rstd])
}

// aten.group_norm.default(%x, %w?, %b?) {num_groups, eps} → native_group_norm's output
pub fn group_norm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let (y, _, _) = group_norm_parts(cx, int_attr(cx, "num_groups")?)?;
    cast_to_results(cx, vec![y])
}

// aten.instance_norm.default(%x, %w?, %b?, %rm?, %rv?) {use_input_stats = true, eps}
//   → standardize each (n, c) over the spatial dims, * w + b
// aten.instance_norm.default(...) {use_input_stats = false, eps}
//   → (x - rm) * rsqrt(rv + eps) * w + b, the running statistics per channel
//
// With use_input_stats = true PyTorch also updates the running statistics in
// place; the op has no result for them, so the output is all there is.
pub fn instance_norm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let d = dims_static_at(cx, 0, |i| i == 1)?;
    if d.len() < 3 {
        return Err(format!(
            "instance norm takes a rank ≥ 3 input (N, C, ...), got {d:?}"
        ));
    }
    let element = element_type(x)?;
    let compute = compute_type(cx, element)?;
    let xc = cast_to(cx, x, compute)?;
    let param = channel_shape(d[1], d.len());
    let eps = float_attr(cx, "eps")?;
    let normalized = if bool_attr(cx, "use_input_stats")? {
        let over: Vec<usize> = (2..d.len()).collect();
        standardize(cx, xc, &over, eps)?.0
    } else {
        let (Some(rm), Some(rv)) = (segment_operand(cx, 3)?, segment_operand(cx, 4)?) else {
            return Err("use_input_stats = false needs running_mean and running_var (PyTorch rejects it too)".into());
        };
        let rm = reshape(cx, cast_to(cx, rm, compute)?, &param)?;
        let rv = reshape(cx, cast_to(cx, rv, compute)?, &param)?;
        let eps = float_scalar(cx, eps, compute)?;
        let rstd = unary(cx, coreai::RSQRT, broadcasting(cx, coreai::ADD, rv, eps)?)?;
        broadcasting(
            cx,
            coreai::MUL,
            broadcasting(cx, coreai::SUB, xc, rm)?,
            rstd,
        )?
    };
    let y = affine(
        cx,
        normalized,
        segment_operand(cx, 1)?,
        segment_operand(cx, 2)?,
        &param,
    )?;
    Ok(vec![cast_to(cx, y, element)?])
}

// ---------------------------------------------------------------- attention

// aten.scaled_dot_product_attention.default(%q, %k, %v, %mask?) {is_causal, scale?, enable_gqa}
//   → s = broadcasting_batch_matmul(q, transpose(k)) * scale
//     [+ float mask | where(bool mask, s, -inf) | + causal mask (upper-left, -inf)]
//     → coreai.softmax (last axis) → broadcasting_batch_matmul(·, v)
//   GQA (Hq = G·Hk): q viewed as [B, Hk, G, L, E], k and v as [B, Hk, 1, S, E]
//   so the matmuls broadcast each kv head over its G query heads.
pub fn sdpa<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    if float_attr(cx, "dropout_p")? != 0.0 {
        return Err("dropout_p ≠ 0 is random; export the model in eval mode".into());
    }
    let (q, k, v) = (cx.operand(0)?, cx.operand(1)?, cx.operand(2)?);
    let (qd, kd) = qk_dims(cx)?;
    let rank = qd.len();
    let element = element_type(q)?;
    let (l, s, e) = (qd[rank - 2], kd[rank - 2], qd[rank - 1]);
    let scale = opt_float_attr(cx, "scale")?.unwrap_or(1.0 / (e as f64).sqrt());
    let mut perm: Vec<usize> = (0..rank).collect();
    perm.swap(rank - 2, rank - 1);
    let kt = transpose(cx, k, &perm)?;
    let groups = gqa_groups(cx, &qd, &kd)?;
    let (q, kt, v) = match groups {
        Some((hk, g)) => (
            split_heads(cx, q, hk, g)?,
            split_heads(cx, kt, hk, 1)?,
            split_heads(cx, v, hk, 1)?,
        ),
        None => (q, kt, v),
    };
    let scores = batch_matmul(cx, q, kt)?;
    let scores = broadcasting(cx, coreai::MUL, scores, float_scalar(cx, scale, element)?)?;
    // Masks broadcast against [..., Hq, L, S]: apply them in that view.
    let grouped_shape = shape_of(scores)?;
    let scores = if groups.is_some() {
        merge_heads(cx, scores)?
    } else {
        scores
    };
    let scores = apply_mask(cx, scores, l, s, element)?;
    let scores = if groups.is_some() {
        split_heads(cx, scores, grouped_shape[rank - 3], grouped_shape[rank - 2])?
    } else {
        scores
    };
    let dim = coreai_ir::emit::int_scalar(cx, grouped_shape.len() as i64 - 1, "si32")?;
    let weights = cx.build_value(coreai::SOFTMAX, &[scores, dim], scores.r#type(), &[])?;
    let out = batch_matmul(cx, weights, v)?;
    if out.r#type() == cx.result_type(0)? {
        return Ok(vec![out]);
    }
    if groups.is_some() {
        return Ok(vec![merge_heads(cx, out)?]);
    }
    Ok(vec![reshape(cx, out, &result_dims(cx, 0)?)?])
}

/// The static shapes of query and key, checked against value's rank.
/// The shapes of query and key, checked against value's rank. Sizes may be
/// dynamic except the query's embedding size (the default scale) and, for
/// GQA, the head counts (it splits the query heads into groups); the causal
/// mask reads a dynamic L or S at run time.
fn qk_dims(cx: &LoweringCx<'_, '_>) -> Result<(Vec<i64>, Vec<i64>), Decline> {
    let gqa = bool_attr(cx, "enable_gqa")?;
    let rank = cx.operand_tensor(0)?.rank();
    // GQA compares and splits the head counts (the dim before L).
    let heads = |i: usize| gqa && i + 3 == rank;
    let qd = dims_static_at(cx, 0, |i| i + 1 == rank || heads(i))?;
    let kd = dims_static_at(cx, 1, heads)?;
    let vd = coreai_ir::schema::dims(cx.operand_tensor(2)?);
    if qd.len() < 2 || kd.len() != qd.len() || vd.len() != qd.len() {
        return Err(format!(
            "query, key and value must have one rank ≥ 2: {qd:?}, {kd:?}, {vd:?}"
        ));
    }
    Ok((qd, kd))
}

/// With `enable_gqa` and fewer key heads Hk than query heads Hq (the dim
/// before L): `(Hk, Hq / Hk)`.
fn gqa_groups(
    cx: &LoweringCx<'_, '_>,
    qd: &[i64],
    kd: &[i64],
) -> Result<Option<(i64, i64)>, Decline> {
    let rank = qd.len();
    if !bool_attr(cx, "enable_gqa")? || rank < 3 || qd[rank - 3] == kd[rank - 3] {
        return Ok(None);
    }
    let (hq, hk) = (qd[rank - 3], kd[rank - 3]);
    if hk == 0 || hq % hk != 0 {
        return Err(format!(
            "GQA needs the query heads ({hq}) to be a multiple of the key heads ({hk})"
        ));
    }
    Ok(Some((hk, hq / hk)))
}

/// `x` (`[..., H, A, B]`) viewed as `[..., heads, group, A, B]`.
fn split_heads<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    heads: i64,
    group: i64,
) -> Result<Value<'c, 'a>, Decline> {
    let d = shape_of(x)?;
    let r = d.len();
    let mut to = d[..r - 3].to_vec();
    to.extend([heads, group]);
    to.extend(&d[r - 2..]);
    let all = extents_of(x)?;
    let mut extents = all[..r - 3].to_vec();
    extents.extend([Extent::Static(heads), Extent::Static(group)]);
    extents.extend(&all[r - 2..]);
    reshape_to(cx, x, &to, &extents)
}

/// `x` (`[..., heads, group, A, B]`) viewed as `[..., heads·group, A, B]`
/// (the inverse of [`split_heads`]).
fn merge_heads<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let d = shape_of(x)?;
    let r = d.len();
    let mut to = d[..r - 4].to_vec();
    to.push(d[r - 4] * d[r - 3]);
    to.extend(&d[r - 2..]);
    let all = extents_of(x)?;
    let mut extents = all[..r - 4].to_vec();
    extents.push(Extent::Static(d[r - 4] * d[r - 3]));
    extents.extend(&all[r - 2..]);
    reshape_to(cx, x, &to, &extents)
}

/// Adds the attention mask (operand #3, or the causal one) to `scores`
/// (`[..., L, S]`): a float mask is added; a bool mask keeps the scores
/// where it is true and puts -inf elsewhere; the causal mask lets query i
/// attend keys j ≤ i (PyTorch's upper-left alignment when L ≠ S).
/// PyTorch's upper-left causal mask as the positions to mask: `[L, S]`,
/// true where key j > query i, from two coreai.range (as coreai-torch
/// builds it: no L×S constant in the IR). A dynamic L or S is read from
/// the query's or key's runtime shape (`coreai.get_shape`).
fn causal_masked<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    l: i64,
    s: i64,
) -> Result<Value<'c, 'a>, Decline> {
    let positions = |n: i64, of: usize, unit: usize| -> Result<Value<'c, 'a>, Decline> {
        let si32 = |v: i64| coreai_ir::emit::int_scalar(cx, v, "si32");
        let end = if n == DYNAMIC {
            let x = cx.operand(of)?;
            coreai_ir::emit::dim_scalar(cx, x, shape_of(x)?.len() - 2, "si32")?
        } else {
            si32(n)?
        };
        let ty = tensor_type(&[n], cx.parse_type("si32")?);
        let r = cx.build_value(coreai::RANGE, &[si32(0)?, end, si32(1)?], ty, &[])?;
        if n == DYNAMIC {
            return coreai_ir::emit::expand_dim(cx, r, unit);
        }
        let mut to = vec![n, n];
        to[unit] = 1;
        reshape(cx, r, &to)
    };
    let (rows, cols) = (positions(l, 0, 1)?, positions(s, 1, 0)?);
    predicate(cx, coreai::GREATER, cols, rows)
}

fn apply_mask<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    scores: Value<'c, 'a>,
    l: i64,
    s: i64,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let mask = segment_operand(cx, 3)?;
    let causal = bool_attr(cx, "is_causal")?;
    match (mask, causal) {
        (Some(_), true) => {
            Err("attn_mask and is_causal = true are exclusive (PyTorch rejects both)".into())
        }
        (None, false) => Ok(scores),
        (None, true) => {
            let masked = causal_masked(cx, l, s)?;
            let minus_inf = float_scalar(cx, f64::NEG_INFINITY, element)?;
            select(cx, masked, minus_inf, scores)
        }
        (Some(m), false) => {
            let me = element_type(m)?;
            if is_bool(me) {
                let minus_inf = float_scalar(cx, f64::NEG_INFINITY, element)?;
                select(cx, m, scores, minus_inf)
            } else {
                broadcasting(cx, coreai::ADD, scores, cast_to(cx, m, element)?)
            }
        }
    }
}

// ---------------------------------------------------------------- pooling

/// Pooling window geometry along one spatial dim.
#[derive(Clone, Copy, Debug)]
struct Window {
    input: i64,
    kernel: i64,
    stride: i64,
    pad: i64,
    dilation: i64,
    output: i64,
    ceil: bool,
}

impl Window {
    /// Whether the input or output size is known only at run time.
    fn dynamic(&self) -> bool {
        self.input == DYNAMIC || self.output == DYNAMIC
    }

    /// The extra right padding that makes a floor-mode pool over the padded
    /// input produce `output` windows (ceil mode's partial last window).
    /// At a dynamic size, ceil mode pads `stride - 1`: a floor-mode count
    /// over it is PyTorch's `ceil((in + 2p - e) / s) + 1`, whose last window
    /// `windows` has checked always starts inside the input or left padding.
    fn extra_right(&self) -> i64 {
        if self.dynamic() {
            return if self.ceil { self.stride - 1 } else { 0 };
        }
        let needed = (self.output - 1) * self.stride + self.dilation * (self.kernel - 1) + 1;
        (needed - (self.input + 2 * self.pad)).max(0)
    }

    /// PyTorch's avg-pool divisor of output position `o`.
    fn divisor(&self, o: i64, count_include_pad: bool) -> i64 {
        let start = o * self.stride - self.pad;
        let end = (start + self.kernel).min(self.input + self.pad);
        if count_include_pad {
            end - start
        } else {
            end.min(self.input) - start.max(0)
        }
    }
}

/// A pooling op's input as a batched tensor `[N, C, spatial...]` (an
/// unbatched `[C, spatial...]` input gets a unit batch dim), with the
/// input's and the result's batched dims. Spatial dims may be dynamic: the
/// lowerings whose window arithmetic needs their sizes call
/// [`PoolIo::require_static`].
struct PoolIo<'c, 'a> {
    x: Value<'c, 'a>,
    input: Vec<i64>,
    output: Vec<i64>,
    unbatched: bool,
}

impl<'c, 'a> PoolIo<'c, 'a> {
    fn new(cx: &LoweringCx<'c, 'a>, spatial: usize) -> Result<Self, Decline> {
        let (mut input, mut output) = (pool_dims(cx, None)?, pool_dims(cx, Some(0))?);
        let unbatched = input.len() == spatial + 1 && output.len() == spatial + 1;
        let mut x = cx.operand(0)?;
        if unbatched {
            input.insert(0, 1);
            output.insert(0, 1);
            x = match input.contains(&DYNAMIC) {
                true => coreai_ir::emit::expand_dim(cx, x, 0)?,
                false => reshape(cx, x, &input)?,
            };
        }
        if input.len() != spatial + 2 || output.len() != spatial + 2 {
            return Err(format!(
                "expected an [N, C, ...] or [C, ...] input with {spatial} spatial dims, got {}",
                cx.operand(0)?.r#type()
            ));
        }
        Ok(Self {
            x,
            input,
            output,
            unbatched,
        })
    }

    /// Whether a spatial dim of the input or the result is dynamic.
    fn dynamic(&self) -> bool {
        self.input[2..].contains(&DYNAMIC) || self.output[2..].contains(&DYNAMIC)
    }

    /// Declines when a spatial dim is dynamic: `why` says what needs its
    /// size.
    fn require_static(&self, cx: &LoweringCx<'c, 'a>, why: &str) -> Result<(), Decline> {
        for (dims, what) in [(&self.input, "the input"), (&self.output, "the result")] {
            if let Some(i) = (2..dims.len()).find(|&i| dims[i] == DYNAMIC) {
                let i = if self.unbatched { i - 1 } else { i };
                let ty = match what {
                    "the input" => cx.operand(0)?.r#type(),
                    _ => cx.result_type(0)?,
                };
                return Err(format!(
                    "spatial dim {i} of {what} ({ty}) is dynamic; {why}"
                ));
            }
        }
        Ok(())
    }

    /// The batched result type of element `element`.
    fn result_type(&self, element: Type<'c>) -> Type<'c> {
        tensor_type(&self.output, element)
    }

    /// `y` (batched) in the op's result shape.
    fn finish(&self, cx: &LoweringCx<'c, 'a>, y: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
        if !self.unbatched {
            return Ok(y);
        }
        let d = shape_of(y)?;
        if !d.contains(&DYNAMIC) {
            return reshape(cx, y, &d[1..]);
        }
        let ty = tensor_type(&d[1..], element_type(y)?);
        cx.build_value(coreai::SHRINK_DIMS, &[y, axes(cx, &[0])?], ty, &[])
    }
}

/// The dims of the pooled input (`result: None`) or of result `index`.
fn pool_dims(cx: &LoweringCx<'_, '_>, result: Option<usize>) -> Result<Vec<i64>, Decline> {
    let ty = match result {
        Some(i) => cx.result_tensor(i)?,
        None => cx.operand_tensor(0)?,
    };
    Ok(coreai_ir::schema::dims(ty))
}

/// The windows of a pooling op from its attributes and shapes. At a dynamic
/// spatial size the op counts the windows over the padded input at run time:
/// PyTorch's count in floor mode, and in ceil mode with `stride - 1` extra
/// right padding where PyTorch never drops a last window that would start
/// past the input and the left padding (effective kernel ≥ padding + stride).
fn windows(
    cx: &LoweringCx<'_, '_>,
    io: &PoolIo<'_, '_>,
    with_dilation: bool,
) -> Result<Vec<Window>, Decline> {
    let ceil = bool_attr(cx, "ceil_mode")?;
    let (d, out) = (&io.input, &io.output);
    let spatial = d.len() - 2;
    let kernel = int_list_attr(cx, "kernel_size")?;
    let mut stride = int_list_attr(cx, "stride")?;
    if stride.is_empty() {
        stride = kernel.clone();
    }
    let expand = |v: Vec<i64>, name: &str| -> Result<Vec<i64>, Decline> {
        match v.len() {
            1 => Ok(vec![v[0]; spatial]),
            n if n == spatial => Ok(v),
            n => Err(format!("{name} has {n} values for {spatial} spatial dims")),
        }
    };
    let kernel = expand(kernel, "kernel_size")?;
    let stride = expand(stride, "stride")?;
    let pad = expand(int_list_attr(cx, "padding")?, "padding")?;
    let dilation = if with_dilation {
        expand(int_list_attr(cx, "dilation")?, "dilation")?
    } else {
        vec![1; spatial]
    };
    (0..spatial)
        .map(|i| {
            let w = Window {
                input: d[i + 2],
                kernel: kernel[i],
                stride: stride[i],
                pad: pad[i],
                dilation: dilation[i],
                output: out[i + 2],
                ceil,
            };
            // Below 2^31 every product and sum of the window arithmetic
            // fits in i64 (the fuzzer found overflows with larger values).
            let fields = [w.input, w.kernel, w.stride, w.pad, w.dilation, w.output];
            if fields
                .iter()
                .any(|&v| v != DYNAMIC && !(0..1 << 31).contains(&v))
            {
                return Err(format!(
                    "pooling window {w:?} has a value outside [0, 2^31)"
                ));
            }
            if w.kernel < 1 || w.stride < 1 || w.dilation < 1 || 2 * w.pad > w.kernel {
                return Err(format!("bad pooling window {w:?} (pad must be ≤ kernel/2)"));
            }
            if w.dynamic() && ceil && w.dilation * (w.kernel - 1) + 1 < w.pad + w.stride {
                io.require_static(
                    cx,
                    "ceil_mode's last window, which PyTorch drops when it starts past the input, needs its size",
                )?;
            }
            Ok(w)
        })
        .collect()
}

fn sides(ws: &[Window]) -> Vec<(i64, i64)> {
    ws.iter()
        .map(|w| (w.pad, w.pad + w.extra_right()))
        .collect()
}

// aten.max_pool2d_with_indices.default(%x) {kernel_size, stride, padding, dilation, ceil_mode}
//   → coreai.pad (-inf; ceil mode's partial window as extra right padding)
//     → coreai.max_pool_2d (floor mode);
//   indices (when used): the K window taps as strided coreai.slice, concat on a
//     new last axis, coreai.argmax, gather_along_axis of a constant table of
//     each tap's flat input index h·W + w
// aten.max_pool2d.default(...) → the same, one result
pub fn max_pool2d<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let io = PoolIo::new(cx, 2)?;
    let ws = windows(cx, &io, true)?;
    let padded = pad_spatial(cx, io.x, &sides(&ws), f64::NEG_INFINITY)?;
    let field = |f: fn(&Window) -> i64| ws.iter().map(f).collect::<Vec<i64>>();
    let operands = [
        padded,
        shape(cx, &field(|w| w.kernel))?,
        shape(cx, &field(|w| w.stride))?,
        shape(cx, &field(|w| w.dilation))?,
        bool_constant(cx, false)?,
    ];
    let y = cx.build_value(
        coreai::MAX_POOL_2D,
        &operands,
        io.result_type(element_type(io.x)?),
        &[],
    )?;
    let mut results = vec![io.finish(cx, y)?];
    if cx.op().result_count() == 2 {
        results.push(if result_used(cx, 1)? {
            io.require_static(cx, "max-pool indices need its size")?;
            io.finish(cx, max_pool_indices(cx, padded, &ws)?)?
        } else {
            unused_result(cx, 1, results[0])?
        });
    }
    Ok(results)
}

/// The most taps (kernel elements) and index-table entries (output
/// positions × taps) the max-pool indices are built for.
const MAX_POOL_INDEX_TAPS: i64 = 4096;
const MAX_POOL_INDEX_ENTRIES: i64 = 1 << 26;

/// PyTorch's max-pool indices: for each window, the flat index `h·W + w` in
/// the unpadded input plane of its first maximum. The taps of every window
/// are sliced out of the padded input (`[N, C, Ho, Wo]` each) and stacked
/// on a new last axis; `coreai.argmax` picks the tap and a constant table
/// maps (output position, tap) to the input index. Not reproduced: a window
/// holding NaN (PyTorch returns the NaN's index; coreai.argmax skips NaN)
/// and a window whose input values are all -inf next to padding.
fn max_pool_indices<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    padded: Value<'c, 'a>,
    ws: &[Window],
) -> Result<Value<'c, 'a>, Decline> {
    let (h, w) = (ws[0], ws[1]);
    // One slice per tap and a constant of Ho·Wo·K indices: bounded, so a
    // module claiming huge windows is declined instead of allocating
    // gigabytes (found by the pipeline fuzz target).
    let k = h.kernel * w.kernel;
    let entries = h.output.saturating_mul(w.output).saturating_mul(k);
    if k > MAX_POOL_INDEX_TAPS || entries > MAX_POOL_INDEX_ENTRIES {
        return Err(format!(
            "max-pool indices of {}x{} windows of {}x{} taps: more than {MAX_POOL_INDEX_TAPS} taps or \
             {MAX_POOL_INDEX_ENTRIES} table entries",
            h.output, w.output, h.kernel, w.kernel
        ));
    }
    let p = shape_of(padded)?;
    let (n, c) = (p[0], p[1]);
    let element = element_type(padded)?;
    let taps: Vec<(i64, i64)> = (0..h.kernel)
        .flat_map(|a| (0..w.kernel).map(move |b| (a * h.dilation, b * w.dilation)))
        .collect();
    let mut operands = vec![coreai_ir::emit::int_scalar(cx, 4, "si32")?];
    for &(dy, dx) in &taps {
        let begin = [0, 0, dy, dx];
        let whole = |k: i64| {
            if k == DYNAMIC {
                coreai_ir::emit::TO_END
            } else {
                k
            }
        };
        let end = [
            whole(n),
            whole(c),
            dy + (h.output - 1) * h.stride + 1,
            dx + (w.output - 1) * w.stride + 1,
        ];
        let strides = [1, 1, h.stride, w.stride];
        let tap = cx.build_value(
            coreai::SLICE,
            &[
                padded,
                axes(cx, &begin)?,
                axes(cx, &end)?,
                axes(cx, &strides)?,
            ],
            tensor_type(&[n, c, h.output, w.output], element),
            &[],
        )?;
        operands.push(coreai_ir::emit::expand_dim(cx, tap, 4)?);
    }
    let stacked = cx.build_value(
        coreai::CONCAT,
        &operands,
        tensor_type(&[n, c, h.output, w.output, k], element),
        &[],
    )?;
    let mut table = Vec::with_capacity((h.output * w.output * k) as usize);
    for oy in 0..h.output {
        for ox in 0..w.output {
            for &(dy, dx) in &taps {
                let (iy, ix) = (oy * h.stride + dy - h.pad, ox * w.stride + dx - w.pad);
                let index = i128::from(iy) * i128::from(w.input) + i128::from(ix);
                table.push(i64::try_from(index).map_err(|_| {
                    format!("max-pool index {index} does not fit in 64 bits (windows {ws:?})")
                })?);
            }
        }
    }
    first_max_index(cx, stacked, &table)
}

/// The flat input index of the first maximum of each window: `stacked`
/// holds every window's taps on its last axis (`[N, C, Ho, Wo, K]`) and
/// `table` each tap's flat input index (`[Ho, Wo, K]`, row-major);
/// `coreai.argmax` picks the tap, `gather_along_axis` its index, in the
/// element type of the op's result #1.
fn first_max_index<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    stacked: Value<'c, 'a>,
    table: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    let d = shape_of(stacked)?;
    let mut kept = d.clone();
    kept[4] = 1;
    let axis = coreai_ir::emit::int_scalar(cx, 4, "si32")?;
    let ui32 = cx.parse_type("ui32")?;
    let best = cx.build_value(
        coreai::ARGMAX,
        &[stacked, axis],
        tensor_type(&kept, ui32),
        &[],
    )?;
    let best = cast_to(cx, best, cx.parse_type("si32")?)?;
    let index_type = cx.result_tensor(1)?.element();
    let flat = tensor_type(&[table.len() as i64], index_type);
    let list: Vec<String> = table.iter().map(i64::to_string).collect();
    let attr = cx.parse_attribute(&format!("dense<[{}]> : {flat}", list.join(", ")))?;
    let table = constant(cx, flat, attr)?;
    let table = reshape(cx, table, &[1, 1, d[2], d[3], d[4]])?;
    let to = if d.contains(&DYNAMIC) {
        coreai_ir::emit::runtime_shape(cx, &extents_of(stacked)?, "ui32")?
    } else {
        shape(cx, &d)?
    };
    let table = cx.build_value(
        coreai::BROADCAST_TO,
        &[table, to],
        tensor_type(&d, index_type),
        &[],
    )?;
    let picked = cx.build_value(
        coreai::GATHER_ALONG_AXIS,
        &[table, best, axis],
        tensor_type(&kept, index_type),
        &[],
    )?;
    reshape_to(cx, picked, &d[..4], &extents_of(picked)?[..4])
}

fn bool_constant<'c, 'a>(cx: &LoweringCx<'c, 'a>, v: bool) -> Result<Value<'c, 'a>, Decline> {
    let ty = cx.parse_type("tensor<i1>")?;
    let attr = cx.parse_attribute(&format!("dense<{v}> : tensor<i1>"))?;
    constant(cx, ty, attr)
}

// aten.avg_pool2d.default(%x) {kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override?}
//   → coreai.pad (zeros, ceil mode's partial window as extra right padding)
//     → coreai.sum_pool_2d → broadcasting_divide by PyTorch's divisor
//     (divisor_override, or per output position: the window clipped to the
//     padded input, or to the input without count_include_pad)
pub fn avg_pool2d<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    avg_pool(cx, 2)
}

// aten.avg_pool3d.default(...) → the same with coreai.sum_pool_3d
pub fn avg_pool3d<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    avg_pool(cx, 3)
}

fn avg_pool<'c, 'a>(cx: &LoweringCx<'c, 'a>, spatial: usize) -> Lowered<'c, 'a> {
    let io = PoolIo::new(cx, spatial)?;
    let x = io.x;
    let ws = windows(cx, &io, false)?;
    let padded = pad_spatial(cx, x, &sides(&ws), 0.0)?;
    let field = |f: fn(&Window) -> i64| ws.iter().map(f).collect::<Vec<i64>>();
    let operands = [
        padded,
        shape(cx, &field(|w| w.kernel))?,
        shape(cx, &field(|w| w.stride))?,
        shape(cx, &vec![1; spatial])?,
    ];
    let name = if spatial == 2 {
        coreai::SUM_POOL_2D
    } else {
        coreai::SUM_POOL_3D
    };
    let element = element_type(x)?;
    let sum = cx.build_value(name, &operands, io.result_type(element), &[])?;
    let divisor = match opt_int_attr(cx, "divisor_override")? {
        Some(0) => return Err("divisor_override must not be zero".into()),
        Some(k) => float_scalar(cx, k as f64, element)?,
        None if io.dynamic() => {
            let include = bool_attr(cx, "count_include_pad")?;
            let partial = ws.iter().any(|w| w.extra_right() > 0);
            if !partial && (include || ws.iter().all(|w| w.pad == 0)) {
                // Every window lies inside the padded input.
                let k: i64 = ws.iter().map(|w| w.kernel).product();
                float_scalar(cx, k as f64, element)?
            } else {
                let op = (name, &operands[1..]);
                dynamic_divisor(cx, x, &ws, include, op, element)?
            }
        }
        None => {
            let include = bool_attr(cx, "count_include_pad")?;
            let mut values = vec![1.0f64];
            for w in &ws {
                let per: Vec<i64> = (0..w.output).map(|o| w.divisor(o, include)).collect();
                values = values
                    .iter()
                    .flat_map(|&v| per.iter().map(move |&p| v * p as f64))
                    .collect();
            }
            let to = field(|w| w.output);
            float_constant(cx, &to, &values, element)?
        }
    };
    let y = broadcasting(cx, coreai::DIVIDE, sum, divisor)?;
    Ok(vec![io.finish(cx, y)?])
}

/// PyTorch's avg-pool divisors at a dynamic size, `[1, 1, out...]`: the same
/// sum pool over a count plane, ones over the input, padded with ones where
/// `count_include_pad` counts the padding (zeros otherwise) and with zeros
/// past it (ceil mode's extension, never counted).
fn dynamic_divisor<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    ws: &[Window],
    include: bool,
    (name, window): (&str, &[Value<'c, 'a>]),
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let d = shape_of(x)?;
    let mut plane = vec![1, 1];
    plane.extend(&d[2..]);
    let mut extents = vec![Extent::Static(1), Extent::Static(1)];
    for (i, &n) in d.iter().enumerate().skip(2) {
        extents.push(match n {
            DYNAMIC => Extent::DimOf(x, i),
            n => Extent::Static(n),
        });
    }
    let ones = coreai_ir::emit::fill(
        cx,
        Scalar::Float(1.0),
        tensor_type(&plane, element),
        &extents,
    )?;
    let pads: Vec<(i64, i64)> = ws.iter().map(|w| (w.pad, w.pad)).collect();
    let counted = pad_spatial(cx, ones, &pads, if include { 1.0 } else { 0.0 })?;
    let past: Vec<(i64, i64)> = ws.iter().map(|w| (0, w.extra_right())).collect();
    let counted = pad_spatial(cx, counted, &past, 0.0)?;
    let mut out = vec![1, 1];
    out.extend(ws.iter().map(|w| w.output));
    let mut operands = vec![counted];
    operands.extend(window);
    cx.build_value(name, &operands, tensor_type(&out, element), &[])
}

/// PyTorch's adaptive window of output `o` of `out` over `input` elements:
/// `[floor(o·in/out), ceil((o+1)·in/out))`.
fn adaptive_bounds(o: i64, input: i64, out: i64) -> (i64, i64) {
    (o * input / out, ((o + 1) * input + out - 1) / out)
}

/// Adaptive pooling with `reduce` (`reduce_mean` / `reduce_max`): the window
/// is a product of per-dim ranges and both reductions are separable, so each
/// spatial dim is pooled in turn: slice each window, reduce it, concat.
fn adaptive_separable<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    out: &[i64],
    op: &str,
) -> Result<Value<'c, 'a>, Decline> {
    let mut y = x;
    for axis in 2..out.len() {
        let d = shape_of(y)?;
        let (input, n) = (d[axis], out[axis]);
        if input == n {
            continue;
        }
        let mut parts = Vec::new();
        for o in 0..n {
            let (start, end) = adaptive_bounds(o, input, n);
            let mut begin = vec![0; d.len()];
            let mut stop: Vec<i64> = d
                .iter()
                .map(|&k| {
                    if k == DYNAMIC {
                        coreai_ir::emit::TO_END
                    } else {
                        k
                    }
                })
                .collect();
            begin[axis] = start;
            stop[axis] = end;
            let mut piece_shape = d.clone();
            piece_shape[axis] = end - start;
            let piece = cx.build_value(
                coreai::SLICE,
                &[
                    y,
                    axes(cx, &begin)?,
                    axes(cx, &stop)?,
                    axes(cx, &vec![1; d.len()])?,
                ],
                tensor_type(&piece_shape, element_type(y)?),
                &[],
            )?;
            parts.push(reduce(cx, op, piece, &[axis])?);
        }
        let mut joined = d.clone();
        joined[axis] = n;
        let mut operands = vec![coreai_ir::emit::int_scalar(cx, axis as i64, "si32")?];
        operands.extend(parts);
        y = cx.build_value(
            coreai::CONCAT,
            &operands,
            tensor_type(&joined, element_type(y)?),
            &[],
        )?;
    }
    Ok(y)
}

/// Adaptive pooling: a fixed-window pool when every output size divides its
/// input size, the separable slice form otherwise.
fn adaptive<'c, 'a>(cx: &LoweringCx<'c, 'a>, max: bool) -> Result<Value<'c, 'a>, Decline> {
    let io = PoolIo::new(cx, 2)?;
    let (x, d, out) = (io.x, &io.input, &io.output);
    if out[2] == 0 || out[3] == 0 {
        return Err("adaptive pool output sizes must be positive".into());
    }
    let element = element_type(x)?;
    if io.dynamic() {
        // Global pooling is a reduction at every input size.
        if out[2..] != [1, 1] {
            io.require_static(
                cx,
                "adaptive pooling to a size other than 1x1 needs its size",
            )?;
        }
        let op = if max {
            coreai::REDUCE_MAX
        } else {
            coreai::REDUCE_MEAN
        };
        return io.finish(cx, reduce(cx, op, x, &[2, 3])?);
    }
    let divisible = d[2] % out[2] == 0 && d[3] % out[3] == 0;
    let y = if !divisible {
        adaptive_separable(
            cx,
            x,
            out,
            if max {
                coreai::REDUCE_MAX
            } else {
                coreai::REDUCE_MEAN
            },
        )?
    } else {
        let k = [d[2] / out[2], d[3] / out[3]];
        let mut operands = vec![x, shape(cx, &k)?, shape(cx, &k)?, shape(cx, &[1, 1])?];
        if max {
            operands.push(bool_constant(cx, false)?);
            cx.build_value(coreai::MAX_POOL_2D, &operands, io.result_type(element), &[])?
        } else {
            let sum =
                cx.build_value(coreai::SUM_POOL_2D, &operands, io.result_type(element), &[])?;
            let count = float_scalar(cx, (k[0] * k[1]) as f64, element)?;
            broadcasting(cx, coreai::DIVIDE, sum, count)?
        }
    };
    io.finish(cx, y)
}

// aten._adaptive_avg_pool2d.default(%x) {output_size}
//   → coreai.sum_pool_2d (kernel = stride = in/out) / kernel size when divisible,
//     otherwise per dim: coreai.slice of each window → reduce_mean → coreai.concat
pub fn adaptive_avg_pool2d<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    Ok(vec![adaptive(cx, false)?])
}

// aten.adaptive_max_pool2d.default(%x) {output_size}
//   → coreai.max_pool_2d (kernel = stride = in/out) when divisible,
//     otherwise per dim: coreai.slice of each window → reduce_max → coreai.concat;
//   indices (when used): every window's taps gathered from the flattened
//     planes (a shorter window repeats its first element), argmax, index table
pub fn adaptive_max_pool2d<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let y = adaptive(cx, true)?;
    let indices = if result_used(cx, 1)? {
        let io = PoolIo::new(cx, 2)?;
        io.finish(cx, adaptive_max_indices(cx, &io)?)?
    } else {
        unused_result(cx, 1, y)?
    };
    Ok(vec![y, indices])
}

/// Adaptive max-pool indices (see [`first_max_index`]): the taps of window
/// (oh, ow) are its rows × columns in PyTorch's scan order, padded to the
/// largest window with the window's first element, which cannot change
/// which tap is the first maximum.
fn adaptive_max_indices<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    io: &PoolIo<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    io.require_static(cx, "adaptive max-pool indices need its size")?;
    let (n, c, h, w) = (io.input[0], io.input[1], io.input[2], io.input[3]);
    let (ho, wo) = (io.output[2], io.output[3]);
    let rows: Vec<(i64, i64)> = (0..ho).map(|o| adaptive_bounds(o, h, ho)).collect();
    let cols: Vec<(i64, i64)> = (0..wo).map(|o| adaptive_bounds(o, w, wo)).collect();
    let kh = rows.iter().map(|(s, e)| e - s).max().unwrap_or(1);
    let kw = cols.iter().map(|(s, e)| e - s).max().unwrap_or(1);
    let mut table = Vec::with_capacity((ho * wo * kh * kw) as usize);
    for &(hs, he) in &rows {
        for &(ws, we) in &cols {
            for a in 0..kh {
                for b in 0..kw {
                    let inside = hs + a < he && ws + b < we;
                    table.push(if inside {
                        (hs + a) * w + ws + b
                    } else {
                        hs * w + ws
                    });
                }
            }
        }
    }
    let t = kh * kw;
    let element = element_type(io.x)?;
    // N and C may be dynamic: their runtime sizes come from the input.
    let xe = extents_of(io.x)?;
    let lead = |rest: &[i64]| -> Vec<Extent<'c, 'a>> {
        let mut e = vec![xe[0], xe[1]];
        e.extend(rest.iter().map(|&k| Extent::Static(k)));
        e
    };
    let planes = reshape_to(cx, io.x, &[n, c, h * w], &lead(&[h * w]))?;
    let flat = tensor_type(&[table.len() as i64], cx.parse_type("si32")?);
    let list: Vec<String> = table.iter().map(i64::to_string).collect();
    let attr = cx.parse_attribute(&format!("dense<[{}]> : {flat}", list.join(", ")))?;
    let idx = constant(cx, flat, attr)?;
    let idx = reshape(cx, idx, &[1, 1, ho * wo * t])?;
    let gathered = [n, c, ho * wo * t];
    let idx = cx.build_value(
        coreai::BROADCAST_TO,
        &[
            idx,
            coreai_ir::emit::runtime_shape(cx, &lead(&[ho * wo * t]), "ui32")?,
        ],
        tensor_type(&gathered, cx.parse_type("si32")?),
        &[],
    )?;
    let axis = coreai_ir::emit::int_scalar(cx, 2, "si32")?;
    let taps = cx.build_value(
        coreai::GATHER_ALONG_AXIS,
        &[planes, idx, axis],
        tensor_type(&gathered, element),
        &[],
    )?;
    let stacked = reshape_to(cx, taps, &[n, c, ho, wo, t], &lead(&[ho, wo, t]))?;
    first_max_index(cx, stacked, &table)
}

// ---------------------------------------------------------------- resampling

/// Output size and per-dim coordinate scale (input = output / scale) of an
/// upsample: PyTorch maps with 1/scale_factor when scale factors are given,
/// and with in/out when the output size is.
///
/// The batch and channel dims may be dynamic (the output shape then reads
/// them at run time); the spatial ones must be static.
fn upsample_geometry(cx: &LoweringCx<'_, '_>) -> Result<(Vec<i64>, [f64; 2]), Decline> {
    let d = upsample_dims(cx)?;
    let out = coreai_ir::schema::dims(cx.result_tensor(0)?);
    if out.len() == 4 && out[2..].contains(&DYNAMIC) {
        return Err(format!(
            "the result {} has a dynamic spatial dim",
            cx.result_type(0)?
        ));
    }
    if d.len() != 4 {
        return Err(format!("upsample takes an NCHW input, got {d:?}"));
    }
    let scales = match (
        opt_int_list(cx, "output_size")?,
        opt_float_list(cx, "scale_factors")?,
    ) {
        (Some(_), None) => [out[2] as f64 / d[2] as f64, out[3] as f64 / d[3] as f64],
        (None, Some(f)) if f.len() == 2 && f.iter().all(|&v| v > 0.0) => [f[0], f[1]],
        _ => return Err("give exactly one of output_size and two positive scale_factors".into()),
    };
    Ok((out, scales))
}

/// The input dims of an upsample, declining a dynamic spatial dim (the
/// output size and the nearest offsets are computed from it).
fn upsample_dims(cx: &LoweringCx<'_, '_>) -> Result<Vec<i64>, Decline> {
    let ty = cx.operand_tensor(0)?;
    let d = coreai_ir::schema::dims(ty);
    if let Some(i) = (2..d.len()).find(|&i| d[i] == coreai_ir::schema::DYNAMIC) {
        return Err(format!(
            "spatial dim {i} of the input ({ty}) is dynamic; upsampling needs static spatial sizes (only the batch and channel dims may be dynamic)"
        ));
    }
    Ok(d)
}

/// `coreai.interpolate %x, output_shape, scale, offset {mode}`; a dynamic
/// batch or channel dim of `out` is read from the input with
/// `coreai.get_shape`.
fn interpolate<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    out: &[i64],
    scale: [f64; 2],
    offset: [f64; 2],
    mode: &str,
) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let extents: Vec<coreai_ir::emit::Extent> = out
        .iter()
        .enumerate()
        .map(|(i, &n)| match n {
            coreai_ir::schema::DYNAMIC => coreai_ir::emit::Extent::DimOf(x, i),
            n => coreai_ir::emit::Extent::Static(n),
        })
        .collect();
    let shape = coreai_ir::emit::runtime_shape(cx, &extents, "si32")?;
    interpolate_to(cx, shape, scale, offset, mode)
}

/// `coreai.interpolate %x, %shape, scale, offset {mode}`.
fn interpolate_to<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    shape: Value<'c, 'a>,
    scale: [f64; 2],
    offset: [f64; 2],
    mode: &str,
) -> Lowered<'c, 'a> {
    let f32 = cx.parse_type("f32")?;
    let operands = [
        cx.operand(0)?,
        shape,
        float_constant(cx, &[4], &[1.0, 1.0, scale[0], scale[1]], f32)?,
        float_constant(cx, &[4], &[0.0, 0.0, offset[0], offset[1]], f32)?,
    ];
    let mode = cx.parse_attribute(&format!("#coreai.interpolation_mode<{mode}>"))?;
    Ok(vec![cx.build_value(
        coreai::INTERPOLATE,
        &operands,
        cx.result_type(0)?,
        &[("interpolation_mode", mode)],
    )?])
}

// aten.upsample_bilinear2d.vec(%x) {output_size? | scale_factors?, align_corners}
//   → coreai.interpolate %x, [N, C, H', W'], [1, 1, sh, sw], [0, 0, oh, ow] {linear}
//   half-pixel: s = scale, o = 0; align_corners: s = (out-1)/(in-1), o = (1-s)/2
pub fn upsample_bilinear2d<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    if let Some(lowered) = upsample_dynamic_spatial(cx, "linear")? {
        return Ok(lowered);
    }
    if let Some(lowered) = resample_at_run_time(cx, Resample::Linear)? {
        return Ok(lowered);
    }
    let (out, mut scale) = upsample_geometry(cx)?;
    let mut offset = [0.0, 0.0];
    if bool_attr(cx, "align_corners")? {
        let d = upsample_dims(cx)?;
        for i in 0..2 {
            let (input, output) = (d[i + 2] as f64, out[i + 2] as f64);
            scale[i] = if input > 1.0 && output > 1.0 {
                (output - 1.0) / (input - 1.0)
            } else {
                1.0
            };
            offset[i] = 0.5 * (1.0 - scale[i]);
        }
    }
    interpolate(cx, &out, scale, offset, "linear")
}

/// An upsample of an input with a dynamic spatial dim (`None` when every
/// spatial dim is static):
///   coreai.interpolate %x, (cast (coreai.get_shape %x) to si32) · [1, 1, kh, kw], [1, 1, kh, kw], [0, 0, 0, 0]
/// Only for power-of-two integer scale factors without align_corners: the
/// output size is then in·k exactly, PyTorch's source coordinate
/// (o + 0.5)/k - 0.5 (bilinear) and floor(o/k) (nearest, 1/k exact in f32)
/// are coreai's with offset 0 at every size; any other form depends on the
/// sizes and declines naming the dim.
fn upsample_dynamic_spatial<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    mode: &str,
) -> Result<Option<Vec<Value<'c, 'a>>>, Decline> {
    let ty = cx.operand_tensor(0)?;
    let d = coreai_ir::schema::dims(ty);
    let Some(dim) = (2..d.len()).find(|&i| d[i] == DYNAMIC) else {
        return Ok(None);
    };
    let refuse = |why: &str| {
        Err(format!(
            "spatial dim {dim} of the input ({ty}) is dynamic; {why} (only power-of-two integer scale factors without align_corners give the output size and source indices at every size)"
        ))
    };
    if d.len() != 4 {
        return Err(format!("upsample takes an NCHW input, got {ty}"));
    }
    let factors = match opt_float_list(cx, "scale_factors")? {
        Some(f) if f.len() == 2 => f,
        _ => return Ok(None), // an output size: resample_at_run_time
    };
    let power_of_two = |f: f64| f >= 1.0 && f.fract() == 0.0 && (f as i64).count_ones() == 1;
    if !factors.iter().all(|&f| power_of_two(f)) {
        return refuse(&format!("scale factors {factors:?} are not powers of two"));
    }
    if cx.op().attribute("align_corners").is_ok() && bool_attr(cx, "align_corners")? {
        return refuse("align_corners scales by (out - 1)/(in - 1)");
    }
    let x = cx.operand(0)?;
    let si32 = cx.parse_type("si32")?;
    let shape = cast_to(cx, coreai_ir::emit::get_shape(cx, x)?, si32)?;
    let k = [1, 1, factors[0] as i64, factors[1] as i64];
    let shape = broadcasting(
        cx,
        coreai::MUL,
        shape,
        coreai_ir::emit::int_vector(cx, &k, "si32")?,
    )?;
    let scale = [factors[0], factors[1]];
    interpolate_to(cx, shape, scale, [0.0, 0.0], mode).map(Some)
}

/// How [`resample_at_run_time`] picks source pixels.
#[derive(Clone, Copy, PartialEq)]
enum Resample {
    Nearest,
    Linear,
}

/// An upsample to an output size given as symbolic sizes (operands), or to
/// a static size from an input with a dynamic spatial dim (`None` when the
/// input and the size are static, or with scale factors). The source
/// positions follow PyTorch's CPU kernels, computed in f32 at run time from
/// the sizes, one spatial dim at a time (W, then H, as PyTorch nests them):
///   nearest: src = floor(o · (in / out)), at most in - 1; gather
///   linear:  src = max((o + 0.5) · (in / out) - 0.5, 0), or
///            o · (in - 1)/(out - 1) (0 when out = 1) with align_corners;
///            i0 = floor(src), i1 = min(i0 + 1, in - 1), l1 = src - i0;
///            gather(i0) · (1 - l1) + gather(i1) · l1
fn resample_at_run_time<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    mode: Resample,
) -> Result<Option<Vec<Value<'c, 'a>>>, Decline> {
    let x = cx.operand(0)?;
    let d = shape_of(x)?;
    let symbolic = coreai_ir::schema::named_operands(cx, "output_size")?;
    let sizes: Vec<Option<Value<'c, 'a>>> = match (symbolic, opt_int_list(cx, "output_size")?) {
        (Some(v), _) if v.len() == 2 => v.into_iter().map(Some).collect(),
        (None, Some(n)) if n.len() == 2 && d.len() == 4 && d[2..].contains(&DYNAMIC) => {
            vec![None, None]
        }
        _ => return Ok(None),
    };
    if d.len() != 4 {
        return Err(format!("upsample takes an NCHW input, got {}", x.r#type()));
    }
    let out = coreai_ir::schema::dims(cx.result_tensor(0)?);
    let align = mode == Resample::Linear && bool_attr(cx, "align_corners")?;
    let (f32, si32) = (cx.parse_type("f32")?, cx.parse_type("si32")?);
    let element = element_type(x)?;
    let f = |v: f64| float_scalar(cx, v, f32);
    let mut y = x;
    for axis in [3, 2] {
        let n = out[axis];
        let (out_f, out_i) = match sizes[axis - 2] {
            Some(v) => (cast_to(cx, v, f32)?, cast_to(cx, v, si32)?),
            None => (f(n as f64)?, coreai_ir::emit::int_scalar(cx, n, "si32")?),
        };
        // The sizes as [1], as coreai-torch holds sizes.
        let out_f = coreai_ir::emit::expand_dim(cx, out_f, 0)?;
        let in_f =
            coreai_ir::emit::expand_dim(cx, coreai_ir::emit::dim_scalar(cx, y, axis, "f32")?, 0)?;
        let last = coreai_ir::emit::dim_scalar(cx, y, axis, "si32")?;
        let last = broadcasting(
            cx,
            coreai::SUB,
            last,
            coreai_ir::emit::int_scalar(cx, 1, "si32")?,
        )?;
        let zero = coreai_ir::emit::int_scalar(cx, 0, "si32")?;
        let one = coreai_ir::emit::int_scalar(cx, 1, "si32")?;
        let positions = cx.build_value(
            coreai::RANGE,
            &[zero, out_i, one],
            tensor_type(&[n], si32),
            &[],
        )?;
        let o = cast_to(cx, positions, f32)?;
        let floor = |v| broadcasting(cx, coreai::FLOOR_DIVIDE, v, f(1.0)?);
        let index = |v| -> Result<Value<'c, 'a>, Decline> {
            let i = cast_to(cx, v, si32)?;
            broadcasting(cx, coreai::MINIMUM, i, last)
        };
        let ratio = broadcasting(cx, coreai::DIVIDE, in_f, out_f)?;
        // The weights of one source position broadcast along `axis`.
        let along = |v: Value<'c, 'a>| -> Result<Value<'c, 'a>, Decline> {
            let mut v = cast_to(cx, v, element)?;
            for a in 0..4 {
                if a != axis {
                    v = coreai_ir::emit::expand_dim(cx, v, a)?;
                }
            }
            Ok(v)
        };
        y = match mode {
            Resample::Nearest => {
                let src = floor(broadcasting(cx, coreai::MUL, o, ratio)?)?;
                gather_at_dim(cx, y, index(src)?, axis)?
            }
            Resample::Linear => {
                let src = if align {
                    let in_less = broadcasting(cx, coreai::SUB, in_f, f(1.0)?)?;
                    let out_less = broadcasting(cx, coreai::SUB, out_f, f(1.0)?)?;
                    let wide = predicate(cx, coreai::GREATER, out_f, f(1.0)?)?;
                    let safe = select(cx, wide, out_less, f(1.0)?)?;
                    let scale = select(
                        cx,
                        wide,
                        broadcasting(cx, coreai::DIVIDE, in_less, safe)?,
                        f(0.0)?,
                    )?;
                    broadcasting(cx, coreai::MUL, o, scale)?
                } else {
                    let centre = broadcasting(cx, coreai::ADD, o, f(0.5)?)?;
                    let src = broadcasting(cx, coreai::MUL, centre, ratio)?;
                    let src = broadcasting(cx, coreai::SUB, src, f(0.5)?)?;
                    broadcasting(cx, coreai::MAXIMUM, src, f(0.0)?)?
                };
                let i0f = floor(src)?;
                let i0 = index(i0f)?;
                let i1 = broadcasting(cx, coreai::ADD, i0, one)?;
                let i1 = broadcasting(cx, coreai::MINIMUM, i1, last)?;
                let l1 = broadcasting(cx, coreai::SUB, src, i0f)?;
                let l0 = broadcasting(cx, coreai::SUB, f(1.0)?, l1)?;
                let a = gather_at_dim(cx, y, i0, axis)?;
                let b = gather_at_dim(cx, y, i1, axis)?;
                let a = broadcasting(cx, coreai::MUL, a, along(l0)?)?;
                broadcasting(
                    cx,
                    coreai::ADD,
                    a,
                    broadcasting(cx, coreai::MUL, b, along(l1)?)?,
                )?
            }
        };
    }
    Ok(Some(vec![y]))
}

/// PyTorch's nearest source index of output `o` (`upsample_nearest2d`):
/// `floor(o · s)` in f32 with `s` = 1/scale_factor or in/out.
fn torch_nearest(o: i64, input: i64, output: i64, factor: Option<f64>) -> i64 {
    if output == input {
        return o;
    }
    if output == 2 * input {
        return o >> 1;
    }
    let s = match factor {
        Some(f) => (1.0 / f) as f32,
        None => input as f32 / output as f32,
    };
    ((o as f32 * s).floor() as i64).min(input - 1)
}

/// coreai.interpolate's nearest source index: the half-pixel coordinate
/// `(o + 0.5 - offset) / scale - 0.5` in f32, rounded half to even.
fn coreai_nearest(o: i64, input: i64, scale: f64, offset: f64) -> i64 {
    let src = (o as f32 + 0.5 - offset as f32) / scale as f32 - 0.5;
    (src.round_ties_even() as i64).clamp(0, input - 1)
}

/// An interpolate offset under which coreai's rounding picks PyTorch's
/// nearest index for every output position: 0 (exact for integer factors),
/// or a shift of just under half a pixel that turns round-to-nearest into
/// PyTorch's floor; checked position by position.
fn nearest_offset(input: i64, output: i64, scale: f64, factor: Option<f64>) -> Option<f64> {
    let candidates = [
        0.0,
        0.5 - 0.5 * scale / output as f64,
        0.5 - 0.25 * scale / output as f64,
    ];
    candidates.into_iter().find(|&off| {
        (0..output).all(|o| {
            coreai_nearest(o, input, scale, off) == torch_nearest(o, input, output, factor)
        })
    })
}

// aten.upsample_nearest2d.vec(%x) {output_size? | scale_factors?}
//   → coreai.interpolate %x, [N, C, H', W'], [1, 1, sh, sw], [0, 0, oh, ow] {nearest_neighbor}
//   PyTorch picks floor(o / scale); coreai rounds the half-pixel coordinate,
//   so the offset is chosen (and verified for every output index) to make
//   the two agree.
pub fn upsample_nearest2d<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    if let Some(lowered) = upsample_dynamic_spatial(cx, "nearest_neighbor")? {
        return Ok(lowered);
    }
    if let Some(lowered) = resample_at_run_time(cx, Resample::Nearest)? {
        return Ok(lowered);
    }
    let (out, scale) = upsample_geometry(cx)?;
    let d = upsample_dims(cx)?;
    let factors = opt_float_list(cx, "scale_factors")?;
    let mut offset = [0.0; 2];
    for i in 0..2 {
        let factor = factors.as_ref().map(|f| f[i]);
        offset[i] = nearest_offset(d[i + 2], out[i + 2], scale[i], factor).ok_or_else(|| {
            format!(
                "no coreai.interpolate offset reproduces PyTorch's nearest indices for size {} → {}",
                d[i + 2],
                out[i + 2]
            )
        })?;
    }
    interpolate(cx, &out, scale, offset, "nearest_neighbor")
}

// ---------------------------------------------------------------- composites
//
// What coreai-torch passes to its composite graphs (composite.rs): the
// declaration's name, its inputs and its op_attrs, per op.

type Spec<'c, 'a> = Result<Option<Composite<'c, 'a>>, Decline>;

// aten._log_softmax.default / log_softmax.int → @log_softmax(input) {axis}
fn log_softmax_composite<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Spec<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let axis = coreai_ir::schema::normalize_dim(int_attr(cx, "dim")?, rank)?;
    of_input(cx, "log_softmax", vec![("axis", OpAttr::Int(axis as i64))])
}

/// The channel count (dim 1) of the input.
fn channels(cx: &LoweringCx<'_, '_>) -> Result<i64, Decline> {
    Ok(dims_static_at(cx, 0, |i| i == 1)?
        .get(1)
        .copied()
        .ok_or("the input has no channel dim")?)
}

/// A norm composite `decl`(input, weight, bias) {attrs}, the weight and
/// bias named `names` and, when absent, passed as ones and zeros of
/// `param` (as coreai-torch passes them).
fn norm_composite<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    decl: &'static str,
    names: [&'static str; 2],
    param: &[i64],
    attrs: Vec<(&'static str, OpAttr)>,
) -> Result<Composite<'c, 'a>, Decline> {
    Ok(Composite {
        decl,
        template: decl,
        inputs: vec![
            operand(cx, "input", "input", 0)?,
            operand_or(cx, names[0], 1, 1.0, param)?,
            operand_or(cx, names[1], 2, 0.0, param)?,
        ],
        attrs,
        body_attrs: Vec::new(),
    })
}

fn eps(cx: &LoweringCx<'_, '_>) -> Result<(&'static str, OpAttr), Decline> {
    Ok(("eps", OpAttr::Float(float_attr(cx, "eps")?)))
}

// aten._native_batch_norm_legit_no_training.default
//   → @batch_norm(input, gamma, beta, mean, variance) {eps}
fn batch_norm_composite<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Spec<'c, 'a> {
    let c = channels(cx)?;
    let mut spec = norm_composite(cx, "batch_norm", ["gamma", "beta"], &[c], vec![eps(cx)?])?;
    spec.inputs.push(operand(cx, "mean", "mean", 3)?);
    spec.inputs.push(operand(cx, "variance", "variance", 4)?);
    Ok(Some(spec))
}

// aten.layer_norm.default / native_layer_norm.default
//   → @layer_norm(input, gamma, beta) {axes (the trailing dims), eps}
fn layer_norm_composite<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Spec<'c, 'a> {
    let normalized = int_list_attr(cx, "normalized_shape")?;
    let rank = cx.operand_tensor(0)?.rank() as i64;
    let first = (rank - normalized.len() as i64).max(0);
    let axes = ("axes", OpAttr::Ints((first..rank).collect()));
    let attrs = vec![axes, eps(cx)?];
    Ok(Some(norm_composite(
        cx,
        "layer_norm",
        ["gamma", "beta"],
        &normalized,
        attrs,
    )?))
}

// aten.group_norm.default {num_groups} / native_group_norm.default {group}
//   → @group_norm(input, weight, bias) {eps, num_channels, num_groups}
fn group_norm_composite<'c, 'a>(cx: &LoweringCx<'c, 'a>, groups: &str) -> Spec<'c, 'a> {
    let c = channels(cx)?;
    let attrs = vec![
        eps(cx)?,
        ("num_channels", OpAttr::Int(c)),
        ("num_groups", OpAttr::Int(int_attr(cx, groups)?)),
    ];
    Ok(Some(norm_composite(
        cx,
        "group_norm",
        ["weight", "bias"],
        &[c],
        attrs,
    )?))
}

// aten.instance_norm.default {use_input_stats = true}
//   → @instance_norm(input, gamma, beta) {eps}, gamma and beta reshaped to
//   [C, 1, ...] at the call site as coreai-torch passes them; with the
//   running statistics (use_input_stats = false) coreai-torch inlines it too.
fn instance_norm_composite<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Spec<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    if !bool_attr(cx, "use_input_stats")? || rank < 3 {
        return Ok(None); // (the inline lowering declines rank < 3)
    }
    let mut param = vec![1; rank - 1];
    param[0] = channels(cx)?;
    let attrs = vec![eps(cx)?];
    let mut spec = norm_composite(cx, "instance_norm", ["gamma", "beta"], &param, attrs)?;
    for input in &mut spec.inputs[1..] {
        input.value = reshape(cx, input.value, &param)?;
    }
    Ok(Some(spec))
}

// aten.scaled_dot_product_attention.default
//   → @sdpa(query, key, value, attn_mask) or @sdpa_maskless(query, key, value)
//     {is_causal = false, scale?, window_size = 0}
// is_causal: as coreai-torch, the causal mask is built at the call site and
// passed as attn_mask, here a bool mask (true: attend) of PyTorch's
// upper-left alignment, so masked scores are -inf as in the inline form.
fn sdpa_composite<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Spec<'c, 'a> {
    let mut inputs = vec![
        operand(cx, "query", "q", 0)?,
        operand(cx, "key", "k", 1)?,
        operand(cx, "value", "v", 2)?,
    ];
    let causal = bool_attr(cx, "is_causal")?;
    let masked = causal || segment_operand(cx, 3)?.is_some();
    let mut body_attrs = Vec::new();
    if causal && segment_operand(cx, 3)?.is_none() {
        let (qd, kd) = qk_dims(cx)?;
        let (l, s) = (qd[qd.len() - 2], kd[kd.len() - 2]);
        let attend = unary(cx, coreai::NOT, causal_masked(cx, l, s)?)?;
        inputs.push(Input {
            name: "attn_mask",
            arg: "m",
            value: attend,
            group: Some(3),
        });
        body_attrs.push(("is_causal", "false"));
    } else if masked {
        inputs.push(operand(cx, "attn_mask", "m", 3)?);
    }
    let mut attrs = vec![("is_causal", OpAttr::Bool(false))];
    if let Some(scale) = opt_float_attr(cx, "scale")? {
        attrs.push(("scale", OpAttr::Float(scale)));
    }
    attrs.push(("window_size", OpAttr::Int(0)));
    Ok(Some(Composite {
        decl: "scaled_dot_product_attention",
        template: if masked { "sdpa" } else { "sdpa_maskless" },
        inputs,
        attrs,
        body_attrs,
    }))
}

/// A pooling list attribute with `spatial` entries (one value repeats).
fn pool_list(cx: &LoweringCx<'_, '_>, name: &str, spatial: usize) -> Result<Vec<i64>, Decline> {
    let v = int_list_attr(cx, name)?;
    match v.len() {
        1 => Ok(vec![v[0]; spatial]),
        n if n == spatial => Ok(v),
        n => Err(format!("{name} has {n} values for {spatial} spatial dims")),
    }
}

/// A call-site constant passed as the composite argument `name`.
fn constant_input<'c, 'a>(
    name: &'static str,
    value: Result<Value<'c, 'a>, Decline>,
) -> Result<Input<'c, 'a>, Decline> {
    Ok(Input {
        name,
        arg: name,
        value: value?,
        group: None,
    })
}

// aten.avg_pool2d.default / avg_pool3d.default
//   → @avg_pool2d_composite(input_tensor, kernel_size, stride, padding,
//     ceil_mode, count_include_pad, divisor_override) as coreai-torch passes
//     them (si32 lists, i1 flags, si32 divisor, 0 for none); the body reads
//     the same values from the op.
fn avg_pool_composite<'c, 'a>(cx: &LoweringCx<'c, 'a>, spatial: usize) -> Spec<'c, 'a> {
    let kernel = pool_list(cx, "kernel_size", spatial)?;
    let stride = if int_list_attr(cx, "stride")?.is_empty() {
        kernel.clone()
    } else {
        pool_list(cx, "stride", spatial)?
    };
    let padding = pool_list(cx, "padding", spatial)?;
    let divisor = opt_int_attr(cx, "divisor_override")?.unwrap_or(0);
    let list = |v: &[i64]| coreai_ir::emit::int_vector(cx, v, "si32");
    let (decl, template) = if spatial == 2 {
        ("avg_pool_2d", "avg_pool2d_composite")
    } else {
        ("avg_pool_3d", "avg_pool3d_composite")
    };
    let mut input = operand(cx, "input", "input_tensor", 0)?;
    input.arg = "input_tensor";
    Ok(Some(Composite {
        decl,
        template,
        inputs: vec![
            input,
            constant_input("kernel_size", list(&kernel))?,
            constant_input("stride", list(&stride))?,
            constant_input("padding", list(&padding))?,
            constant_input("ceil_mode", bool_constant(cx, bool_attr(cx, "ceil_mode")?))?,
            constant_input(
                "count_include_pad",
                bool_constant(cx, bool_attr(cx, "count_include_pad")?),
            )?,
            constant_input(
                "divisor_override",
                coreai_ir::emit::int_scalar(cx, divisor, "si32"),
            )?,
        ],
        attrs: Vec::new(),
        body_attrs: Vec::new(),
    }))
}

// aten.dropout.default(%x) {p, train = false} → %x
//
// torch.export's training IR keeps dropout (a composite PyTorch
// decomposes away); in eval mode it is the identity. In training mode it
// draws random numbers, which a converted model cannot reproduce.
fn dropout<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    if bool_attr(cx, "train")? {
        return Err(
            "dropout in training mode is random; put the model in eval mode (model.eval()) before exporting".into(),
        );
    }
    Ok(vec![cx.operand(0)?])
}
