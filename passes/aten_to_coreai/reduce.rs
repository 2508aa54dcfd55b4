//! Reductions, scans, sorts → coreai.
//!
//! Forms (coreai-torch 0.4.3's, test/golden/reductions.mlir): a reduction is
//! the coreai op keeping the reduced dims, then a `coreai.reshape` to the
//! result when `keepdim` is false; axes are `tensor<Nxsi32>` constants.
//!
//! Element types come from the op's result (`cx.result_type`), never from a
//! narrowing policy: integer `sum`, `prod`, `cumsum`, `cumprod` cast their
//! input to the result type first and accumulate there, so an int64 result
//! accumulates in si64 (coreai-torch narrows to int32 and wraps: conversion
//! guide §9.4), and bool/int8 inputs promote to int64 as PyTorch does.
//! f16/bf16 sums, means, products, variances, norms and scans accumulate in
//! f32 and round once, as PyTorch's CPU kernels do.
//!
//! NaN: PyTorch's argmax, argmin, max.dim, min.dim, sort and topk treat NaN
//! as greater than every number (the first NaN wins). coreai-core's `argmax`
//! never picks a NaN and its `sort`/`argsort` put NaN last in both
//! directions, so float inputs get an explicit NaN path where the two differ
//! (`arg_index`, `sort_permutation`).

use super::composite::{lower_composite, of_input, Composite, OpAttr};
use coreai_ir::emit::select_to;
use coreai_ir::emit::{
    axes as axes_constant, bool_scalar, broadcasting, cast_to, int_scalar, int_vector, reshape,
};
use coreai_ir::lowering::{type_text, Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::is_bool;
use coreai_ir::schema::{
    bool_attr, dims, element_type, int_attr, int_list_attr, normalize_dim, opt_int_attr, tensor_of,
    tensor_type, DYNAMIC,
};
use melior::ir::{
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike},
    Type, TypeLike, Value, ValueLike,
};

pub static LOWERINGS: super::Family = &[
    ("all.default", all_default),
    ("all.dim", all_dim),
    ("all.dims", all_dims),
    ("amax.default", amax),
    ("amin.default", amin),
    ("any.default", any_default),
    ("any.dim", any_dim),
    ("any.dims", any_dims),
    ("argmax.default", argmax),
    ("argmin.default", argmin),
    ("argsort.default", argsort),
    ("argsort.stable", argsort),
    ("cummax.default", cummax),
    ("cummin.default", cummin),
    ("cumprod.default", cumprod),
    ("cumsum.default", cumsum),
    ("kthvalue.default", kthvalue),
    ("linalg_vector_norm.default", |cx| {
        lower_composite(cx, linalg_vector_norm, vector_norm_composite)
    }),
    ("logcumsumexp.default", logcumsumexp),
    ("logsumexp.default", logsumexp),
    ("max.default", max_default),
    ("max.dim", max_dim),
    ("mean.default", mean_default),
    ("mean.dim", mean_dim),
    ("median.default", median_default),
    ("median.dim", median_dim),
    ("min.default", min_default),
    ("min.dim", min_dim),
    ("prod.default", prod_default),
    ("prod.dim_int", prod_dim_int),
    ("sort.default", sort),
    ("sort.stable", sort),
    ("std.correction", std_correction),
    ("std.dim", std_dim),
    ("std_mean.correction", std_mean_correction),
    ("sum.default", sum_default),
    ("sum.dim_IntList", sum_dim_intlist),
    ("topk.default", topk),
    ("var.correction", var_correction),
    ("var.dim", var_dim),
    ("var_mean.correction", var_mean_correction),
];

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;
type Spec<'c, 'a> = Result<Option<Composite<'c, 'a>>, Decline>;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn is_float(element: Type<'_>) -> bool {
    element.is_float()
}

/// The dims a reduction covers: every dim when `dims` is absent or empty
/// (PyTorch's rule for sum, mean, amax, amin, var, std, logsumexp and
/// vector norms), normalized, sorted and de-duplicated.
fn reduce_axes(rank: usize, dims: Option<Vec<i64>>) -> Result<Vec<usize>, Decline> {
    if rank == 0 {
        // A rank-0 tensor has nothing to reduce; PyTorch accepts dim 0 or -1.
        return match dims
            .unwrap_or_default()
            .iter()
            .find(|&&d| d != 0 && d != -1)
        {
            Some(d) => Err(format!("dimension {d} is out of range for a rank-0 tensor")),
            None => Ok(Vec::new()),
        };
    }
    let mut axes = match dims {
        Some(d) if !d.is_empty() => d
            .iter()
            .map(|&d| normalize_dim(d, rank))
            .collect::<Result<Vec<_>, _>>()?,
        _ => (0..rank).collect(),
    };
    axes.sort_unstable();
    axes.dedup();
    Ok(axes)
}

/// The optional `int[]?` attribute `name` (absent → `None`).
fn opt_int_list(cx: &LoweringCx<'_, '_>, name: &str) -> Result<Option<Vec<i64>>, Decline> {
    if cx.op().attribute(name).is_err() {
        return Ok(None);
    }
    int_list_attr(cx, name).map(Some)
}

/// A `BoolAttr` that may be absent (then `default`).
fn bool_or(cx: &LoweringCx<'_, '_>, name: &str, default: bool) -> Result<bool, Decline> {
    if cx.op().attribute(name).is_err() {
        return Ok(default);
    }
    bool_attr(cx, name)
}

/// `value` (the reduced dims `axes` kept as 1s) as `ty`: itself when the
/// types agree, else cast to the element of `ty` (from the f32 accumulator
/// of a half-precision reduction), then a reshape to its shape when static
/// (coreai-torch's form), a `coreai.shrink_dims` of `axes` when dynamic.
fn fit<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    value: Value<'c, 'a>,
    ty: Type<'c>,
    axes: &[usize],
) -> Result<Value<'c, 'a>, Decline> {
    if value.r#type() == ty {
        return Ok(value);
    }
    let target =
        RankedTensorType::try_from(ty).map_err(|_| format!("{ty} is not a ranked tensor"))?;
    let value = cast_to(cx, value, target.element())?;
    if value.r#type() == ty {
        return Ok(value);
    }
    let shape = dims(target);
    if !shape.contains(&DYNAMIC) {
        return reshape(cx, value, &shape);
    }
    if tensor_of(value)?.rank() != target.rank() + axes.len() {
        return Err(format!(
            "the result {ty} does not drop the reduced dims {axes:?}"
        ));
    }
    let list: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let a = axes_constant(cx, &list)?;
    cx.build_value(coreai::SHRINK_DIMS, &[value, a], ty, &[])
}

/// The type of `x` with `axes` set to 1 and element `element`.
fn kept_type<'c>(x: Value<'c, '_>, axes: &[usize], element: Type<'c>) -> Result<Type<'c>, Decline> {
    let mut shape = dims(tensor_of(x)?);
    for &a in axes {
        shape[a] = 1;
    }
    Ok(tensor_type(&shape, element))
}

/// `coreai.<op> %x, axes` keeping the reduced dims (`x` itself when there
/// is nothing to reduce, a rank-0 input: coreai-core's reduce_sum with an
/// empty axes tensor returns garbage, e.g. a NaN and zeros for a 2x5 input,
/// so an empty axes list is never emitted). coreai-core's Python doc says
/// reduced dims are removed; its interpreter and coreai-torch's output keep
/// them, which this follows.
fn reduce_keep<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    x: Value<'c, 'a>,
    axes: &[usize],
) -> Result<Value<'c, 'a>, Decline> {
    if axes.is_empty() {
        return Ok(x);
    }
    let list: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let a = axes_constant(cx, &list)?;
    let element = element_type(x)?;
    cx.build_value(op, &[x, a], kept_type(x, axes, element)?, &[])
}

/// `reduce_keep`, then fitted to result #0.
fn reduce_to_result<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    x: Value<'c, 'a>,
    axes: &[usize],
) -> Lowered<'c, 'a> {
    let r = reduce_keep(cx, op, x, axes)?;
    Ok(vec![fit(cx, r, cx.result_type(0)?, axes)?])
}

/// Operand #0 cast to result #0's element type, then to its accumulation
/// type (`accumulator`): int64 results accumulate in si64, f16/bf16 ones in
/// f32 (rounded once by `fit`), as PyTorch's CPU kernels do.
fn input_as_result<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let element = cx.result_tensor(0)?.element();
    if is_bool(element) {
        return cx.operand(0);
    }
    let x = cast_to(cx, cx.operand(0)?, element)?;
    cast_to(cx, x, accumulator(cx, element)?)
}

/// A rank-0 float constant of `element`, exactly.
fn float_scalar<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    value: f64,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    cx.scalar_constant(Scalar::Float(value), element)
}

/// A same-shape elementwise op on `x` with result element `element`.
fn unary<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    x: Value<'c, 'a>,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let ty = tensor_type(&dims(tensor_of(x)?), element);
    cx.build_value(op, &[x], ty, &[])
}

/// A broadcasting binary op whose result has the shape of `a` (the larger
/// operand) and element `element`.
fn binary<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    broadcasting(cx, op, a, b, tensor_type(&dims(tensor_of(a)?), element))
}

/// `x != x`: where `x` (float) is NaN.
fn is_nan<'c, 'a>(cx: &LoweringCx<'c, 'a>, x: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let i1 = cx.parse_type("i1")?;
    let ty = tensor_type(&dims(tensor_of(x)?), i1);
    cx.build_value(coreai::NOT_EQUAL, &[x, x], ty, &[])
}

/// `x` as a bool tensor: itself when bool, else `x != 0` (NaN is true).
fn truthy<'c, 'a>(cx: &LoweringCx<'c, 'a>, x: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let element = element_type(x)?;
    if is_bool(element) {
        return Ok(x);
    }
    let zero = cx.scalar_constant(Scalar::Int(0), element)?;
    binary(cx, coreai::NOT_EQUAL, x, zero, cx.parse_type("i1")?)
}

// ---------------------------------------------------------------------------
// sum, mean, prod, amax, amin, max, min
// ---------------------------------------------------------------------------

// aten.sum.dim_IntList(%x) {dim, keepdim, dtype?}
//   → [coreai.cast to the result type] coreai.reduce_sum %x, axes (+ reshape)
// An absent or empty `dim` sums every dim.
fn sum_dim_intlist<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let axes = reduce_axes(tensor_of(x)?.rank(), opt_int_list(cx, "dim")?)?;
    sum_over(cx, x, &axes)
}

// aten.sum.default(%x) {dtype?} → coreai.reduce_sum over every dim + reshape
fn sum_default<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let axes = reduce_axes(tensor_of(x)?.rank(), None)?;
    sum_over(cx, x, &axes)
}

/// A bool sum (only with a bool result: PyTorch promotes otherwise) is `any`.
fn sum_over<'c, 'a>(cx: &LoweringCx<'c, 'a>, x: Value<'c, 'a>, axes: &[usize]) -> Lowered<'c, 'a> {
    let op = if is_bool(element_type(x)?) {
        coreai::ANY
    } else {
        coreai::REDUCE_SUM
    };
    reduce_to_result(cx, op, x, axes)
}

// aten.mean.dim(%x) {dim, keepdim, dtype?} → coreai.reduce_mean %x, axes (+ reshape)
fn mean_dim<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let axes = reduce_axes(tensor_of(x)?.rank(), opt_int_list(cx, "dim")?)?;
    mean_over(cx, x, &axes)
}

// aten.mean.default(%x) {dtype?} → coreai.reduce_mean over every dim + reshape
fn mean_default<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let axes = reduce_axes(tensor_of(x)?.rank(), None)?;
    mean_over(cx, x, &axes)
}

fn mean_over<'c, 'a>(cx: &LoweringCx<'c, 'a>, x: Value<'c, 'a>, axes: &[usize]) -> Lowered<'c, 'a> {
    if !is_float(element_type(x)?) {
        return Err(format!(
            "mean of {}: PyTorch only averages floating-point tensors",
            x.r#type()
        ));
    }
    reduce_to_result(cx, coreai::REDUCE_MEAN, x, axes)
}

// aten.prod.dim_int(%x) {dim, keepdim, dtype?}
//   → [coreai.cast to the result type] coreai.reduce_product %x, [dim] (+ reshape)
fn prod_dim_int<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let rank = tensor_of(x)?.rank();
    let axes = if rank == 0 {
        Vec::new()
    } else {
        vec![normalize_dim(int_attr(cx, "dim")?, rank)?]
    };
    prod_over(cx, x, &axes)
}

// aten.prod.default(%x) {dtype?} → coreai.reduce_product over every dim + reshape
fn prod_default<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let axes = reduce_axes(tensor_of(x)?.rank(), None)?;
    prod_over(cx, x, &axes)
}

/// A bool product (bool result) is `all`.
fn prod_over<'c, 'a>(cx: &LoweringCx<'c, 'a>, x: Value<'c, 'a>, axes: &[usize]) -> Lowered<'c, 'a> {
    let op = if is_bool(element_type(x)?) {
        coreai::ALL
    } else {
        coreai::REDUCE_PRODUCT
    };
    reduce_to_result(cx, op, x, axes)
}

/// `reduce_max` (or `reduce_min`); on bool tensors `any` (or `all`), which
/// coreai's reduce_max does not take.
fn extremum_op(x: Value<'_, '_>, max: bool) -> Result<&'static str, Decline> {
    Ok(match (is_bool(element_type(x)?), max) {
        (true, true) => coreai::ANY,
        (true, false) => coreai::ALL,
        (false, true) => coreai::REDUCE_MAX,
        (false, false) => coreai::REDUCE_MIN,
    })
}

// aten.amax.default(%x) {dim, keepdim} → coreai.reduce_max %x, axes (+ reshape)
// NaN propagates (coreai-core's reduce_max does, as PyTorch).
fn amax<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    extremum_dims(cx, true)
}

// aten.amin.default(%x) {dim, keepdim} → coreai.reduce_min %x, axes (+ reshape)
fn amin<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    extremum_dims(cx, false)
}

fn extremum_dims<'c, 'a>(cx: &LoweringCx<'c, 'a>, max: bool) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let axes = reduce_axes(tensor_of(x)?.rank(), opt_int_list(cx, "dim")?)?;
    reduce_to_result(cx, extremum_op(x, max)?, x, &axes)
}

// aten.max.default(%x) → coreai.reduce_max over every dim + reshape to rank 0
fn max_default<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    extremum_all(cx, true)
}

// aten.min.default(%x) → coreai.reduce_min over every dim + reshape to rank 0
fn min_default<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    extremum_all(cx, false)
}

fn extremum_all<'c, 'a>(cx: &LoweringCx<'c, 'a>, max: bool) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let axes = reduce_axes(tensor_of(x)?.rank(), None)?;
    reduce_to_result(cx, extremum_op(x, max)?, x, &axes)
}

// aten.max.dim(%x) {dim, keepdim} → (values, indices):
//   coreai.reduce_max %x, [dim]  and  coreai.argmax (NaN-first, see arg_index)
//   → coreai.cast ui32 → index type, each reshaped when keepdim is false
fn max_dim<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    extremum_with_index(cx, true)
}

// aten.min.dim(%x) {dim, keepdim} → coreai.reduce_min and argmax of the
// order-reversed input (see arg_index), as max.dim
fn min_dim<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    extremum_with_index(cx, false)
}

fn extremum_with_index<'c, 'a>(cx: &LoweringCx<'c, 'a>, max: bool) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let rank = tensor_of(x)?.rank();
    if rank == 0 {
        return Err("max.dim/min.dim of a rank-0 tensor is not lowered".into());
    }
    let axis = normalize_dim(int_attr(cx, "dim")?, rank)?;
    let values = reduce_keep(cx, extremum_op(x, max)?, x, &[axis])?;
    let index = arg_index(cx, x, axis, max)?;
    let index = cast_to(cx, index, cx.result_tensor(1)?.element())?;
    Ok(vec![
        fit(cx, values, cx.result_type(0)?, &[axis])?,
        fit(cx, index, cx.result_type(1)?, &[axis])?,
    ])
}

// ---------------------------------------------------------------------------
// argmax, argmin
// ---------------------------------------------------------------------------

/// The ui32 index (reduced dim kept) of the first maximum (`max`) or
/// minimum of `x` along `axis`, NaN counting as the maximum and the
/// minimum, as in PyTorch:
///
///   key   = x                          (argmax)
///         = -x, or x ^ -1 on integers  (argmin: an order-reversing bijection)
///   float: nan = x != x; key = where(any(nan, axis), cast(nan), key)
///   coreai.argmax key, axis → ui32
///
/// coreai-core's argmax takes the first of equal values and never picks a
/// NaN; a slice holding a NaN is replaced by its NaN mask, whose first 1 is
/// the first NaN.
fn arg_index<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axis: usize,
    max: bool,
) -> Result<Value<'c, 'a>, Decline> {
    let element = element_type(x)?;
    if is_bool(element) {
        return Err("argmax/argmin of a bool tensor: cast it to an integer type first".into());
    }
    let float = is_float(element);
    let mut key = x;
    if !max {
        key = if float {
            let minus_one = float_scalar(cx, -1.0, element)?;
            binary(cx, coreai::MUL, x, minus_one, element)?
        } else {
            let ones = cx.scalar_constant(Scalar::Int(all_ones(element)?), element)?;
            binary(cx, coreai::BITWISE_XOR, x, ones, element)?
        };
    }
    if float {
        let nan = is_nan(cx, x)?;
        let any_nan = reduce_keep(cx, coreai::ANY, nan, &[axis])?;
        let mask = cast_to(cx, nan, element)?;
        key = select_to(cx, any_nan, mask, key, key.r#type())?;
    }
    let a = int_scalar(cx, axis as i64, "si32")?;
    let ui32 = cx.parse_type("ui32")?;
    cx.build_value(
        coreai::ARGMAX,
        &[key, a],
        kept_type(key, &[axis], ui32)?,
        &[],
    )
}

/// The integer with every bit set in `element` (-1 signed, 2^n - 1 unsigned).
fn all_ones(element: Type<'_>) -> Result<i64, Decline> {
    let text = type_text(element);
    if let Some(bits) = text.strip_prefix("ui") {
        let bits: u32 = bits
            .parse()
            .map_err(|_| format!("unexpected type {text}"))?;
        if bits >= 64 {
            return Err("argmin of ui64 is not lowered".into());
        }
        return Ok((1i64 << bits) - 1);
    }
    Ok(-1)
}

// aten.argmax.default(%x) {dim?, keepdim}
//   → coreai.argmax (NaN-first, see arg_index) → coreai.cast ui32 → index type (+ reshape)
// dim = None: the argmax of the flattened tensor.
fn argmax<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    arg_reduce(cx, true)
}

// aten.argmin.default(%x) {dim?, keepdim} → argmax of the order-reversed input (see arg_index)
fn argmin<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    arg_reduce(cx, false)
}

fn arg_reduce<'c, 'a>(cx: &LoweringCx<'c, 'a>, max: bool) -> Lowered<'c, 'a> {
    let mut x = cx.operand(0)?;
    let shape = dims(tensor_of(x)?);
    let axis = match opt_int_attr(cx, "dim")? {
        Some(d) if !shape.is_empty() => normalize_dim(d, shape.len())?,
        _ => {
            // Flattened (row-major, so the flat index is PyTorch's); a
            // dynamic shape flattens to one inferred dim.
            let flat = match shape.contains(&DYNAMIC) {
                true => DYNAMIC,
                false => shape.iter().product(),
            };
            x = reshape(cx, x, &[flat])?;
            0
        }
    };
    let index = arg_index(cx, x, axis, max)?;
    let index = cast_to(cx, index, cx.result_tensor(0)?.element())?;
    Ok(vec![fit(cx, index, cx.result_type(0)?, &[axis])?])
}

// ---------------------------------------------------------------------------
// var, std
// ---------------------------------------------------------------------------

/// `(sum((x - mean(x))²) / max(N - correction, 0), mean(x))` over `axes`,
/// dims kept:
///   m = coreai.reduce_mean %x; d = broadcasting_sub %x, m;
///   s = coreai.reduce_sum (broadcasting_mul d, d); broadcasting_divide s, N - correction
fn variance_keep<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axes: &[usize],
    correction: f64,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>), Decline> {
    let element = element_type(x)?;
    if !is_float(element) {
        return Err(format!(
            "var/std of {}: PyTorch needs a floating-point tensor",
            x.r#type()
        ));
    }
    let shape = dims(tensor_of(x)?);
    let n: i64 = axes
        .iter()
        .map(|&a| shape[a])
        .filter(|&d| d != DYNAMIC)
        .product();
    let mean = reduce_keep(cx, coreai::REDUCE_MEAN, x, axes)?;
    let d = binary(cx, coreai::SUB, x, mean, element)?;
    let sq = binary(cx, coreai::MUL, d, d, element)?;
    let s = reduce_keep(cx, coreai::REDUCE_SUM, sq, axes)?;
    let dynamic: Vec<usize> = axes
        .iter()
        .copied()
        .filter(|&a| shape[a] == DYNAMIC)
        .collect();
    let divisor = if dynamic.is_empty() {
        float_scalar(cx, (n as f64 - correction).max(0.0), element)?
    } else {
        // N read at run time: the static sizes' product times each dynamic
        // size (exact in the float type while N fits its significand).
        let mut count = float_scalar(cx, n as f64, element)?;
        for a in dynamic {
            let size = coreai_ir::emit::dim_scalar(cx, x, a, &type_text(element))?;
            count = binary(cx, coreai::MUL, count, size, element)?;
        }
        let c = float_scalar(cx, correction, element)?;
        let zero = float_scalar(cx, 0.0, element)?;
        binary(
            cx,
            coreai::MAXIMUM,
            binary(cx, coreai::SUB, count, c, element)?,
            zero,
            element,
        )?
    };
    let s_ty = s.r#type();
    let var = broadcasting(cx, coreai::DIVIDE, s, divisor, s_ty)?;
    Ok((var, mean))
}

/// The `correction` of var/std: `correction` (a Scalar, default 1) or
/// `unbiased` (bool).
fn correction(cx: &LoweringCx<'_, '_>) -> Result<f64, Decline> {
    if cx.op().attribute("unbiased").is_ok() {
        return Ok(if bool_attr(cx, "unbiased")? { 1.0 } else { 0.0 });
    }
    if cx.op().attribute("correction").is_err() {
        return Ok(1.0);
    }
    Ok(match cx.scalar("correction")? {
        Scalar::Int(v) => v as f64,
        Scalar::Float(v) => v,
    })
}

fn variance<'c, 'a>(cx: &LoweringCx<'c, 'a>, sqrt: bool) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let axes = reduce_axes(tensor_of(x)?.rank(), opt_int_list(cx, "dim")?)?;
    let (mut v, mean) = variance_keep(cx, x, &axes, correction(cx)?)?;
    if sqrt {
        v = unary(cx, coreai::SQRT, v, element_type(v)?)?;
    }
    let mut results = vec![fit(cx, v, cx.result_type(0)?, &axes)?];
    if cx.op().result_count() == 2 {
        results.push(fit(cx, mean, cx.result_type(1)?, &axes)?);
    }
    Ok(results)
}

// aten.var_mean.correction(%x) {dim?, correction?, keepdim} → (var, mean):
// the variance and the mean it subtracts (see variance_keep) (+ reshapes)
fn var_mean_correction<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    variance(cx, false)
}

// aten.std_mean.correction(%x) {dim?, correction?, keepdim} → (sqrt(var), mean)
fn std_mean_correction<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    variance(cx, true)
}

// aten.var.correction(%x) {dim?, correction?, keepdim} → see variance_keep (+ reshape)
fn var_correction<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    variance(cx, false)
}

// aten.var.dim(%x) {dim?, unbiased, keepdim} → see variance_keep (+ reshape)
fn var_dim<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    variance(cx, false)
}

// aten.std.correction(%x) {dim?, correction?, keepdim} → coreai.sqrt of the variance (+ reshape)
fn std_correction<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    variance(cx, true)
}

// aten.std.dim(%x) {dim?, unbiased, keepdim} → coreai.sqrt of the variance (+ reshape)
fn std_dim<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    variance(cx, true)
}

// ---------------------------------------------------------------------------
// any, all
// ---------------------------------------------------------------------------

/// `coreai.any`/`coreai.all` (which take bool tensors only) of `x != 0`.
fn logical<'c, 'a>(cx: &LoweringCx<'c, 'a>, op: &str, axes: Option<Vec<usize>>) -> Lowered<'c, 'a> {
    let x = truthy(cx, cx.operand(0)?)?;
    let rank = tensor_of(x)?.rank();
    let axes = axes.unwrap_or_else(|| (0..rank).collect());
    reduce_to_result(cx, op, x, &axes)
}

fn one_dim(cx: &LoweringCx<'_, '_>) -> Result<Vec<usize>, Decline> {
    let rank = cx.operand_tensor(0)?.rank();
    if rank == 0 {
        return Ok(Vec::new());
    }
    Ok(vec![normalize_dim(int_attr(cx, "dim")?, rank)?])
}

/// `any.dims`/`all.dims`: `dim = None` reduces every dim; an empty list
/// reduces none (eager PyTorch returns `x != 0` unreduced).
fn listed_dims(cx: &LoweringCx<'_, '_>) -> Result<Option<Vec<usize>>, Decline> {
    let rank = cx.operand_tensor(0)?.rank();
    match opt_int_list(cx, "dim")? {
        None => Ok(None),
        Some(d) if d.is_empty() => Ok(Some(Vec::new())),
        Some(d) => reduce_axes(rank, Some(d)).map(Some),
    }
}

// aten.any.default(%x) → coreai.any (x != 0), every dim + reshape to rank 0
fn any_default<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    logical(cx, coreai::ANY, None)
}

// aten.any.dim(%x) {dim, keepdim} → coreai.any (x != 0), [dim] (+ reshape)
fn any_dim<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    logical(cx, coreai::ANY, Some(one_dim(cx)?))
}

// aten.any.dims(%x) {dim?, keepdim} → coreai.any (x != 0), dims (+ reshape)
fn any_dims<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    logical(cx, coreai::ANY, listed_dims(cx)?)
}

// aten.all.default(%x) → coreai.all (x != 0), every dim + reshape to rank 0
fn all_default<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    logical(cx, coreai::ALL, None)
}

// aten.all.dim(%x) {dim, keepdim} → coreai.all (x != 0), [dim] (+ reshape)
fn all_dim<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    logical(cx, coreai::ALL, Some(one_dim(cx)?))
}

// aten.all.dims(%x) {dim?, keepdim} → coreai.all (x != 0), dims (+ reshape)
fn all_dims<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    logical(cx, coreai::ALL, listed_dims(cx)?)
}

// ---------------------------------------------------------------------------
// cumsum, cumprod, logsumexp, vector norms
// ---------------------------------------------------------------------------

/// `coreai.scan` with combiner `scan_op` (0 sum, 1 product) along `dim` of
/// operand #0 cast to the result type (so int64 results accumulate in si64).
/// f16/bf16 scans run in f32 and round once at the end, as PyTorch's CPU
/// kernel does (coreai-core's f16 scan rounds every partial sum: 2048
/// values near 1.05 sum to 2070 instead of 2150; its f16 reduce_product
/// drifts the same way).
fn scan<'c, 'a>(cx: &LoweringCx<'c, 'a>, scan_op: i64) -> Lowered<'c, 'a> {
    let mut x = input_as_result(cx)?;
    let rank = tensor_of(x)?.rank();
    if rank > 0 {
        x = scan_along(cx, x, normalize_dim(int_attr(cx, "dim")?, rank)?, scan_op)?;
    }
    Ok(vec![fit(cx, x, cx.result_type(0)?, &[])?])
}

/// The type a reduction or scan accumulates in: f32 for f16/bf16 (PyTorch's
/// accumulation type on CPU), else `element` itself.
fn accumulator<'c>(cx: &LoweringCx<'c, '_>, element: Type<'c>) -> Result<Type<'c>, Decline> {
    match &*type_text(element) {
        "f16" | "bf16" => cx.parse_type("f32"),
        _ => Ok(element),
    }
}

// aten.cumsum.default(%x) {dim, dtype?}
//   → [coreai.cast to the result type] coreai.scan %x, dim, false combiner = <sum>
fn cumsum<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    scan(cx, 0)
}

// aten.cumprod.default(%x) {dim, dtype?}
//   → [coreai.cast to the result type] coreai.scan %x, dim, false combiner = <product>
fn cumprod<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    scan(cx, 1)
}

/// `coreai.scan %x, axis, false` with combiner `code` (0 sum, 1 product,
/// 2 min, 3 max).
fn scan_along<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axis: usize,
    code: i64,
) -> Result<Value<'c, 'a>, Decline> {
    let a = int_scalar(cx, axis as i64, "ui32")?;
    let reverse = bool_scalar(cx, false)?;
    let combiner = cx.integer_attribute(code, 32);
    cx.build_value(
        coreai::SCAN,
        &[x, a, reverse],
        x.r#type(),
        &[("scan_op", combiner)],
    )
}

/// `coreai.decomposable.broadcasting_where %c, %a, %b` with the shape of `c`
/// and the element of `a`.
fn select<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    c: Value<'c, 'a>,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let ty = tensor_type(&dims(tensor_of(c)?), element_type(a)?);
    select_to(cx, c, a, b, ty)
}

/// The si32 positions `0..n` along `axis` of `x`, shaped to broadcast
/// against it (`n` at `axis`, 1 elsewhere).
fn positions<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axis: usize,
) -> Result<Value<'c, 'a>, Decline> {
    let shape = dims(tensor_of(x)?);
    let n = shape[axis];
    let iota = if n == DYNAMIC {
        // coreai.range to the runtime size.
        let (zero, one) = (int_scalar(cx, 0, "si32")?, int_scalar(cx, 1, "si32")?);
        let end = coreai_ir::emit::dim_scalar(cx, x, axis, "si32")?;
        let ty = tensor_type(&[DYNAMIC], cx.parse_type("si32")?);
        cx.build_value(coreai::RANGE, &[zero, end, one], ty, &[])?
    } else {
        int_vector(cx, &(0..n).collect::<Vec<_>>(), "si32")?
    };
    let mut to = vec![1; shape.len()];
    to[axis] = n;
    reshape(cx, iota, &to)
}

// aten.cummax.default(%x) {dim} → (values, indices); cummin with min, +inf.
// PyTorch: ties take the later index; a NaN propagates and each NaN takes
// its own index. coreai-core's scan<max> skips NaN, so NaN is handled apart:
//   xs = where(x != x, -inf, x);  m = scan<max> xs
//   i  = scan<max> where(xs == m, iota, 0)                  (latest tie)
//   floats: seen = scan<max> cast(x != x);  m = where(seen, NaN, m)
//           i = where(seen, scan<max> where(x != x, iota, 0), i)
fn cummax<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    cumulative_extremum(cx, true)
}

// aten.cummin.default(%x) {dim} → (values, indices), as cummax
fn cummin<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    cumulative_extremum(cx, false)
}

fn cumulative_extremum<'c, 'a>(cx: &LoweringCx<'c, 'a>, max: bool) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let element = element_type(x)?;
    if is_bool(element) {
        return Err(
            "cummax/cummin of a bool tensor is not lowered: cast it to an integer type first"
                .into(),
        );
    }
    let rank = tensor_of(x)?.rank();
    if rank == 0 {
        return Err("cummax/cummin of a rank-0 tensor is not lowered".into());
    }
    let axis = normalize_dim(int_attr(cx, "dim")?, rank)?;
    let (code, fill) = if max {
        (3, f64::NEG_INFINITY)
    } else {
        (2, f64::INFINITY)
    };
    let float = is_float(element);
    let nan = if float { Some(is_nan(cx, x)?) } else { None };
    let xs = match nan {
        Some(nan) => select(cx, nan, float_scalar(cx, fill, element)?, x)?,
        None => x,
    };
    let mut values = scan_along(cx, xs, axis, code)?;
    let iota = positions(cx, x, axis)?;
    let zero = int_scalar(cx, 0, "si32")?;
    let i1 = cx.parse_type("i1")?;
    let hit = same_shape_binary(cx, coreai::EQUAL, xs, values, i1)?;
    let mut index = scan_along(cx, select(cx, hit, iota, zero)?, axis, 3)?;
    if let Some(nan) = nan {
        let seen = scan_along(cx, cast_to(cx, nan, element)?, axis, 3)?;
        let seen = cast_to(cx, seen, i1)?;
        values = select(cx, seen, float_scalar(cx, f64::NAN, element)?, values)?;
        let nan_index = scan_along(cx, select(cx, nan, iota, zero)?, axis, 3)?;
        index = select(cx, seen, nan_index, index)?;
    }
    let index = cast_to(cx, index, cx.result_tensor(1)?.element())?;
    Ok(vec![values, index])
}

/// A same-shape binary op (`coreai.equal`) with result element `element`.
fn same_shape_binary<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let ty = tensor_type(&dims(tensor_of(a)?), element);
    cx.build_value(op, &[a, b], ty, &[])
}

// aten.logsumexp.default(%x) {dim, keepdim} → the max-shifted form
// (conversion guide §9.1; PyTorch's own):
//   m  = coreai.reduce_max %x, axes;  m' = where(|m| == inf, 0, m)
//   r  = log(reduce_sum(exp(x - m'))) + m'          (+ reshape)
fn logsumexp<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let element = element_type(x)?;
    if !is_float(element) {
        return Err(format!("logsumexp to {element} is not lowered"));
    }
    let axes = reduce_axes(tensor_of(x)?.rank(), opt_int_list(cx, "dim")?)?;
    let m = reduce_keep(cx, coreai::REDUCE_MAX, x, &axes)?;
    let abs = unary(cx, coreai::ABS, m, element)?;
    let inf = float_scalar(cx, f64::INFINITY, element)?;
    let infinite = binary(cx, coreai::EQUAL, abs, inf, cx.parse_type("i1")?)?;
    let zero = float_scalar(cx, 0.0, element)?;
    let shift = select_to(cx, infinite, zero, m, m.r#type())?;
    let e = unary(
        cx,
        coreai::EXP,
        binary(cx, coreai::SUB, x, shift, element)?,
        element,
    )?;
    let s = reduce_keep(cx, coreai::REDUCE_SUM, e, &axes)?;
    let r = binary(
        cx,
        coreai::ADD,
        unary(cx, coreai::LOG, s, element)?,
        shift,
        element,
    )?;
    Ok(vec![fit(cx, r, cx.result_type(0)?, &axes)?])
}

// aten.logcumsumexp.default(%x) {dim} → a max-shifted logsumexp over the
// prefix of each position, as an n×n masked matrix along `dim` (n = its
// size; static shapes):
//   X[.., i, j, ..] = where(j > i, -inf, x[.., j, ..])
//   m  = reduce_max_j X;  m' = where(|m| == inf, 0, m)
//   r  = log(reduce_sum_j exp(X - m')) + m'       (reshaped back to x's shape)
// Every exp argument is ≤ 0 and the sum holds exp(0) = 1, so neither the
// exp nor the log leave the fp16 range while the result is in it
// (conversion guide §9.1: the naive log(cumsum(exp(x))) overflows fp16 at
// x ≈ 11; a single max over the whole axis underflows the early prefixes).
// Memory is n² per slice along `dim`.
fn logcumsumexp<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let element = element_type(x)?;
    if !is_float(element) {
        return Err(format!("logcumsumexp to {element} is not lowered"));
    }
    let shape = dims(tensor_of(x)?);
    // Dynamic dims: the unit dims are added with coreai.expand_dims and
    // removed with coreai.shrink_dims, the positions reach the runtime size.
    let dynamic = shape.contains(&DYNAMIC);
    if shape.is_empty() {
        return Ok(vec![fit(cx, x, cx.result_type(0)?, &[])?]);
    }
    let axis = normalize_dim(int_attr(cx, "dim")?, shape.len())?;
    let n = shape[axis];
    let (before, after) = (&shape[..axis], &shape[axis + 1..]);
    let with = |mid: &[i64]| -> Vec<i64> { [before, mid, after].concat() };
    let row = match dynamic {
        true => coreai_ir::emit::expand_dim(cx, x, axis)?,
        false => reshape(cx, x, &with(&[1, n]))?,
    };
    let si32 = cx.parse_type("si32")?;
    let positions = |to: &[i64]| -> Result<Value<'c, 'a>, Decline> {
        let ty = tensor_type(&[n], si32);
        let (zero, end, one) = (
            int_scalar(cx, 0, "si32")?,
            coreai_ir::emit::dim_scalar(cx, x, axis, "si32")?,
            int_scalar(cx, 1, "si32")?,
        );
        let r = cx.build_value(coreai::RANGE, &[zero, end, one], ty, &[])?;
        reshape(cx, r, to)
    };
    let ones = |k: usize| vec![1i64; k];
    let i = positions(&[ones(axis), vec![n, 1], ones(after.len())].concat())?;
    let j = positions(&[ones(axis), vec![1, n], ones(after.len())].concat())?;
    let i1 = cx.parse_type("i1")?;
    let later = broadcasting(
        cx,
        coreai::GREATER,
        j,
        i,
        tensor_type(&[ones(axis), vec![n, n], ones(after.len())].concat(), i1),
    )?;
    let minus_inf = float_scalar(cx, f64::NEG_INFINITY, element)?;
    let square = with(&[n, n]);
    let prefix = select_to(cx, later, minus_inf, row, tensor_type(&square, element))?;
    let m = reduce_keep(cx, coreai::REDUCE_MAX, prefix, &[axis + 1])?;
    let abs = unary(cx, coreai::ABS, m, element)?;
    let inf = float_scalar(cx, f64::INFINITY, element)?;
    let infinite = binary(cx, coreai::EQUAL, abs, inf, i1)?;
    let zero = float_scalar(cx, 0.0, element)?;
    let shift = select(cx, infinite, zero, m)?;
    let e = unary(
        cx,
        coreai::EXP,
        binary(cx, coreai::SUB, prefix, shift, element)?,
        element,
    )?;
    let s = reduce_keep(cx, coreai::REDUCE_SUM, e, &[axis + 1])?;
    let r = binary(
        cx,
        coreai::ADD,
        unary(cx, coreai::LOG, s, element)?,
        shift,
        element,
    )?;
    let r = if dynamic {
        let a = int_vector(cx, &[axis as i64 + 1], "si32")?;
        let ty = tensor_type(&shape, element);
        cx.build_value(coreai::SHRINK_DIMS, &[r, a], ty, &[])?
    } else {
        reshape(cx, r, &shape)?
    };
    Ok(vec![fit(cx, r, cx.result_type(0)?, &[])?])
}

// aten.linalg_vector_norm.default(%x) {ord, dim?, keepdim, dtype?} →
//   ord 2: sqrt(reduce_sum(x·x))      ord 1: reduce_sum(|x|)
//   ord ∞: reduce_max(|x|)            ord -∞: reduce_min(|x|)
//   ord 0: reduce_sum(cast(x != 0))   else: reduce_sum(|x|^p)^(1/p)
// in coreai-torch's `linalg_vector_norm` composite (vector_norm_composite).
fn linalg_vector_norm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = input_as_result(cx)?;
    let element = element_type(x)?;
    if !is_float(element) {
        return Err(format!("vector norm to {element} is not lowered"));
    }
    let axes = reduce_axes(tensor_of(x)?.rank(), opt_int_list(cx, "dim")?)?;
    let ord = match cx.scalar("ord")? {
        Scalar::Int(v) => v as f64,
        Scalar::Float(v) => v,
    };
    let abs = || unary(cx, coreai::ABS, x, element);
    let r = if ord == 2.0 {
        let sq = binary(cx, coreai::MUL, x, x, element)?;
        let s = reduce_keep(cx, coreai::REDUCE_SUM, sq, &axes)?;
        unary(cx, coreai::SQRT, s, element)?
    } else if ord == 1.0 {
        reduce_keep(cx, coreai::REDUCE_SUM, abs()?, &axes)?
    } else if ord == f64::INFINITY {
        reduce_keep(cx, coreai::REDUCE_MAX, abs()?, &axes)?
    } else if ord == f64::NEG_INFINITY {
        reduce_keep(cx, coreai::REDUCE_MIN, abs()?, &axes)?
    } else if ord == 0.0 {
        let nonzero = truthy(cx, x)?;
        let counts = cast_to(cx, nonzero, element)?;
        reduce_keep(cx, coreai::REDUCE_SUM, counts, &axes)?
    } else {
        let p = float_scalar(cx, ord, element)?;
        let powered = binary(cx, coreai::POW, abs()?, p, element)?;
        let s = reduce_keep(cx, coreai::REDUCE_SUM, powered, &axes)?;
        let one = float_scalar(cx, 1.0, element)?;
        let inv = binary(cx, coreai::DIVIDE, one, p, element)?;
        binary(cx, coreai::POW, s, inv, element)?
    };
    Ok(vec![fit(cx, r, cx.result_type(0)?, &axes)?])
}

// aten.linalg_vector_norm.default → @linalg_vector_norm(input) {axes, keep_dim, ord}
//   (ord as PyTorch gives it: an int → si64, a float → f32; no dim: every axis)
fn vector_norm_composite<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Spec<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank() as i64;
    let axes = opt_int_list(cx, "dim")?.unwrap_or_else(|| (0..rank).collect());
    let ord = match cx.scalar("ord")? {
        Scalar::Int(v) => OpAttr::Int(v),
        Scalar::Float(v) => OpAttr::Float(v),
    };
    let keep = OpAttr::Bool(bool_attr(cx, "keepdim")?);
    of_input(
        cx,
        "linalg_vector_norm",
        vec![
            ("axes", OpAttr::Ints(axes)),
            ("keep_dim", keep),
            ("ord", ord),
        ],
    )
}

// ---------------------------------------------------------------------------
// sort, argsort, topk
// ---------------------------------------------------------------------------

/// The si32 permutation that sorts `x` along `axis` stably (equal elements
/// keep their order, which PyTorch's CPU sort does for every `stable`):
///
///   coreai.argsort %x, axis, descending, true
///
/// coreai-core puts NaN last in both directions; PyTorch puts NaN first
/// when descending. A descending float sort along an axis of static length
/// `n` therefore sorts the reversed input ascending and reverses back:
///   q = argsort (reverse x) ascending; p = (n - 1) - reverse q
/// `q` lists the reversed input's positions by ascending value, NaN last,
/// equal values (and NaNs) by ascending position there, i.e. descending
/// position in `x`; reversed, that is NaN first, then values descending,
/// equal ones by ascending position in `x` (PyTorch's stable order), and
/// `(n - 1) - i` turns a position in the reversed input into one in `x`.
/// Along a dynamic axis it sorts twice:
///   p1 = argsort x (NaN last); f = gather(cast(x != x), p1)
///   p2 = argsort f descending (NaN first, stable); p = gather(p1, p2)
fn sort_permutation<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axis: usize,
    descending: bool,
) -> Result<Value<'c, 'a>, Decline> {
    let element = element_type(x)?;
    if is_bool(element) {
        return Err(
            "sorting a bool tensor is not lowered: cast it to an integer type first".into(),
        );
    }
    let si32 = cx.parse_type("si32")?;
    let perm_ty = tensor_type(&dims(tensor_of(x)?), si32);
    let argsort = |key: Value<'c, 'a>, descending: bool| -> Result<Value<'c, 'a>, Decline> {
        let a = int_scalar(cx, axis as i64, "si32")?;
        let d = bool_scalar(cx, descending)?;
        let s = bool_scalar(cx, true)?;
        cx.build_value(coreai::ARGSORT, &[key, a, d, s], perm_ty, &[])
    };
    if !(descending && is_float(element)) {
        return argsort(x, descending);
    }
    let n = dims(tensor_of(x)?)[axis];
    if n != DYNAMIC {
        let reverse = |v: Value<'c, 'a>| -> Result<Value<'c, 'a>, Decline> {
            let a = axes_constant(cx, &[axis as i64])?;
            cx.build_value(coreai::REVERSE, &[v, a], v.r#type(), &[])
        };
        let q = reverse(argsort(reverse(x)?, false)?)?;
        let last = cx.scalar_constant(Scalar::Int(n - 1), si32)?;
        return broadcasting(cx, coreai::SUB, last, q, perm_ty);
    }
    let p1 = argsort(x, descending)?;
    let flags = cast_to(cx, is_nan(cx, x)?, element)?;
    let flags = gather(cx, flags, p1, axis)?;
    let p2 = argsort(flags, descending)?;
    gather(cx, p1, p2, axis)
}

/// `coreai.gather_along_axis %x at %indices along axis`.
fn gather<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    indices: Value<'c, 'a>,
    axis: usize,
) -> Result<Value<'c, 'a>, Decline> {
    let a = int_scalar(cx, axis as i64, "si32")?;
    let ty = tensor_type(&dims(tensor_of(indices)?), element_type(x)?);
    cx.build_value(coreai::GATHER_ALONG_AXIS, &[x, indices, a], ty, &[])
}

/// The values of `x` sorted along `axis`: `coreai.sort` (stable), or the
/// gather of the NaN-first permutation when `sort_permutation` needed two
/// passes.
fn sorted_values<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    perm: Value<'c, 'a>,
    axis: usize,
    descending: bool,
) -> Result<Value<'c, 'a>, Decline> {
    if descending && is_float(element_type(x)?) {
        return gather(cx, x, perm, axis);
    }
    let a = int_scalar(cx, axis as i64, "si32")?;
    let d = bool_scalar(cx, descending)?;
    let s = bool_scalar(cx, true)?;
    cx.build_value(coreai::SORT, &[x, a, d, s], x.r#type(), &[])
}

fn sort_axis(cx: &LoweringCx<'_, '_>, x: Value<'_, '_>) -> Result<usize, Decline> {
    let rank = tensor_of(x)?.rank();
    if rank == 0 {
        return Err("sorting a rank-0 tensor is not lowered".into());
    }
    normalize_dim(int_attr(cx, "dim")?, rank)
}

// aten.sort.default(%x) {dim, descending} → (values, indices)
// aten.sort.stable(%x) {stable?, dim, descending} → (values, indices):
//   coreai.sort %x, dim, descending, true and coreai.argsort (stable)
//   → coreai.cast si32 → index type (NaN-first when descending: sort_permutation)
fn sort<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let axis = sort_axis(cx, x)?;
    let descending = bool_or(cx, "descending", false)?;
    let perm = sort_permutation(cx, x, axis, descending)?;
    let values = sorted_values(cx, x, perm, axis, descending)?;
    let indices = cast_to(cx, perm, cx.result_tensor(1)?.element())?;
    Ok(vec![values, indices])
}

// aten.argsort.default(%x) {dim, descending} / argsort.stable(%x) {stable, dim, descending}
//   → coreai.argsort %x, dim, descending, true → coreai.cast si32 → index type
fn argsort<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let axis = sort_axis(cx, x)?;
    let perm = sort_permutation(cx, x, axis, bool_or(cx, "descending", false)?)?;
    Ok(vec![cast_to(cx, perm, cx.result_tensor(0)?.element())?])
}

// aten.topk.default(%x) {k, dim, largest, sorted} → (values, indices):
//   the sort of %x along dim (descending when largest; NaN-first as PyTorch),
//   both sliced to [0, k) along dim; indices cast si32 → index type.
// Ties: this returns the lowest indices first; PyTorch's CPU topk does not
// specify which of equal elements it returns.
fn topk<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let axis = sort_axis(cx, x)?;
    let shape = dims(tensor_of(x)?);
    let k = int_attr(cx, "k")?;
    if k < 0 || (shape[axis] != DYNAMIC && k > shape[axis]) {
        return Err(format!(
            "k = {k} is out of range for dim {axis} of {}",
            x.r#type()
        ));
    }
    let largest = bool_or(cx, "largest", true)?;
    let perm = sort_permutation(cx, x, axis, largest)?;
    let values = sorted_values(cx, x, perm, axis, largest)?;
    let values = take_first(cx, values, axis, k)?;
    let indices = take_first(cx, perm, axis, k)?;
    let indices = cast_to(cx, indices, cx.result_tensor(1)?.element())?;
    Ok(vec![values, indices])
}

/// `coreai.slice %x` to `[0, k)` along `axis`, everything along other dims.
fn take_first<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axis: usize,
    k: i64,
) -> Result<Value<'c, 'a>, Decline> {
    take_range(cx, x, axis, 0, k)
}

/// `coreai.slice %x` to `[start, start + len)` along `axis`, everything
/// along other dims.
fn take_range<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axis: usize,
    start: i64,
    len: i64,
) -> Result<Value<'c, 'a>, Decline> {
    let mut shape = dims(tensor_of(x)?);
    let rank = shape.len();
    let end: Vec<i64> = (0..rank)
        .map(|d| match d {
            d if d == axis => start + len,
            d if shape[d] == DYNAMIC => i64::from(i32::MAX),
            d => shape[d],
        })
        .collect();
    let mut begin = vec![0; rank];
    begin[axis] = start;
    let begin = int_vector(cx, &begin, "si32")?;
    let end_v = int_vector(cx, &end, "si32")?;
    let stride = int_vector(cx, &vec![1; rank], "si32")?;
    shape[axis] = len;
    let ty = tensor_type(&shape, element_type(x)?);
    cx.build_value(coreai::SLICE, &[x, begin, end_v, stride], ty, &[])
}

// aten.median.dim(%x) {dim, keepdim} → (values, indices): the lower median
// (position (n - 1) / 2 of the stable ascending sort, NaN last), sliced from
// the permutation and gathered; a lane holding a NaN gives NaN and the index
// of its first NaN, as PyTorch. Ties: the stable sort's choice (PyTorch's
// CPU kernel does not specify which of equal elements it returns).
fn median_dim<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let axis = sort_axis(cx, x)?;
    let n = dims(tensor_of(x)?)[axis];
    if n == DYNAMIC {
        return Err(format!(
            "dim {axis} of {} is dynamic; median along it needs its size (the middle position)",
            x.r#type()
        ));
    }
    let (values, index) = order_statistic(cx, x, axis, (n - 1) / 2, true)?;
    values_and_index(cx, values, index, axis)
}

// aten.kthvalue.default(%x) {k, dim, keepdim} → (values, indices): position
// k - 1 of the stable ascending sort (NaN last: PyTorch ranks NaN largest).
// Ties: the stable sort's choice (eager's differs on [3, 3, 1, 3], k = 2).
fn kthvalue<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let axis = sort_axis(cx, x)?;
    let n = dims(tensor_of(x)?)[axis];
    let k = int_attr(cx, "k")?;
    if k < 1 || (n != DYNAMIC && k > n) {
        return Err(format!(
            "k = {k} is out of range for dim {axis} of {}",
            x.r#type()
        ));
    }
    let (values, index) = order_statistic(cx, x, axis, k - 1, false)?;
    values_and_index(cx, values, index, axis)
}

/// (values, index) with dims kept → the op's two results.
fn values_and_index<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    values: Value<'c, 'a>,
    index: Value<'c, 'a>,
    axis: usize,
) -> Lowered<'c, 'a> {
    let index = cast_to(cx, index, cx.result_tensor(1)?.element())?;
    Ok(vec![
        fit(cx, values, cx.result_type(0)?, &[axis])?,
        fit(cx, index, cx.result_type(1)?, &[axis])?,
    ])
}

// aten.median.default(%x) → the lower median of the flattened tensor (rank 0)
fn median_default<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let shape = dims(tensor_of(x)?);
    if let Some(d) = shape.iter().position(|&n| n == DYNAMIC) {
        return Err(format!(
            "dim {d} of {} is dynamic; the median of every element needs the element count (the middle position)",
            x.r#type()
        ));
    }
    let n: i64 = shape.iter().product();
    let flat = reshape(cx, x, &[n])?;
    let (values, _) = order_statistic(cx, flat, 0, (n - 1) / 2, true)?;
    Ok(vec![fit(cx, values, cx.result_type(0)?, &[0])?])
}

/// The element at `position` of the stable ascending sort of `x` along
/// `axis` and its si32 index, dims kept; with `nan_wins` a lane holding a
/// NaN gives NaN and its first NaN's index (median's rule).
fn order_statistic<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axis: usize,
    position: i64,
    nan_wins: bool,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>), Decline> {
    // A dynamic dim: the sort and the slice at the static `position` read
    // no size (kthvalue; torch.export checks k against the dim's range).
    let n = dims(tensor_of(x)?)[axis];
    if n == 0 {
        return Err("median/kthvalue along an empty dim is not lowered".into());
    }
    let perm = sort_permutation(cx, x, axis, false)?;
    let mut index = take_range(cx, perm, axis, position, 1)?;
    let mut values = gather(cx, x, index, axis)?;
    let element = element_type(x)?;
    if nan_wins && is_float(element) {
        let nan = is_nan(cx, x)?;
        let any_nan = reduce_keep(cx, coreai::ANY, nan, &[axis])?;
        let a = int_scalar(cx, axis as i64, "si32")?;
        let ui32 = cx.parse_type("ui32")?;
        let mask = cast_to(cx, nan, element)?;
        let first_nan = cx.build_value(
            coreai::ARGMAX,
            &[mask, a],
            kept_type(mask, &[axis], ui32)?,
            &[],
        )?;
        let first_nan = cast_to(cx, first_nan, cx.parse_type("si32")?)?;
        index = select(cx, any_nan, first_nan, index)?;
        values = select(cx, any_nan, float_scalar(cx, f64::NAN, element)?, values)?;
    }
    Ok((values, index))
}

#[cfg(test)]
mod tests {
    use super::reduce_axes;

    #[test]
    fn empty_or_absent_dims_reduce_every_dim() {
        assert_eq!(reduce_axes(3, None).unwrap(), vec![0, 1, 2]);
        assert_eq!(reduce_axes(3, Some(vec![])).unwrap(), vec![0, 1, 2]);
        assert_eq!(reduce_axes(0, Some(vec![])).unwrap(), Vec::<usize>::new());
        assert_eq!(
            reduce_axes(0, Some(vec![0, -1])).unwrap(),
            Vec::<usize>::new()
        );
        assert!(reduce_axes(0, Some(vec![1])).is_err());
    }

    #[test]
    fn dims_are_normalized_sorted_and_deduplicated() {
        assert_eq!(reduce_axes(3, Some(vec![-1, 0, 2])).unwrap(), vec![0, 2]);
        assert!(reduce_axes(2, Some(vec![2])).is_err());
        assert!(reduce_axes(2, Some(vec![-3])).is_err());
    }
}
