//! Decompositions of elementwise, logical and reduction ops.

use super::aten_builders::*;
use coreai_ir::lowering::Scalar;
use melior::ir::{operation::OperationLike, Type, ValueLike};

pub static RULES: &[(&str, super::DecomposeFn)] = &[
    ("__and__.Tensor", and_tensor),
    ("__or__.Tensor", or_tensor),
    ("__xor__.Tensor", xor_tensor),
    ("all.dim", all_dim),
    ("clamp_min.default", clamp_min),
    ("diff.default", diff),
    ("floor_divide.default", floor_divide),
    ("linalg_vector_norm.default", linalg_vector_norm),
    ("log_softmax.int", log_softmax_int),
    ("logsumexp.default", logsumexp),
    ("masked_fill.Scalar", masked_fill_scalar),
    ("max.other", |cx| rename_binary(cx, "maximum.default")),
    ("min.other", |cx| rename_binary(cx, "minimum.default")),
    ("mish.default", mish),
    ("rsub.Scalar", rsub_scalar),
    ("softmax.int", softmax_int),
    ("softplus.default", softplus),
    ("std.dim", std_dim),
    ("sum.default", sum_default),
    ("type_as.default", type_as),
    ("var.dim", var_dim),
    ("where.ScalarOther", where_scalar_other),
];

/// The same binary op under its non-dunder name.
fn rename_binary<'c, 'a>(cx: Cx<'_, 'c, 'a>, key: &str) -> Out<'c, 'a> {
    let operands: Vec<V> = cx.op().operands().collect();
    Ok(vec![aten(cx, key, &operands, result(cx, 0)?, &[])?])
}

// aten.__and__.Tensor(%a, %b) → aten.bitwise_and.Tensor(%a, %b)
fn and_tensor<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    rename_binary(cx, "bitwise_and.Tensor")
}

// aten.__or__.Tensor(%a, %b) → aten.bitwise_or.Tensor(%a, %b)
fn or_tensor<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    rename_binary(cx, "bitwise_or.Tensor")
}

// aten.__xor__.Tensor(%a, %b) → aten.bitwise_xor.Tensor(%a, %b)
fn xor_tensor<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    rename_binary(cx, "bitwise_xor.Tensor")
}

// aten.floor_divide.default(%a, %b) → aten.div.Tensor_mode(%a, %b) {rounding_mode = "floor"}
fn floor_divide<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let (a, b) = (cx.operand(0)?, cx.operand(1)?);
    let mode = a_str(cx, "floor")?;
    Ok(vec![aten(
        cx,
        "div.Tensor_mode",
        &[a, b],
        result(cx, 0)?,
        &[("rounding_mode", mode)],
    )?])
}

// aten.all.dim(%x, d, keepdim) → logical_not(any.dim(logical_not(%x), d, keepdim))
// (∀ = ¬∃¬)
fn all_dim<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let s = shape(x)?;
    let i1 = cx.parse_type("i1")?;
    let not_x = aten(cx, "logical_not.default", &[x], tensor(cx, &s, i1)?, &[])?;
    let dim = norm_dim(int_attr(cx, "dim")?, s.len())?;
    let keepdim = get_bool_or(cx, "keepdim", false)?;
    let any = aten(
        cx,
        "any.dim",
        &[not_x],
        result(cx, 0)?,
        &[
            ("dim", a_int(cx, dim as i64)?),
            ("keepdim", a_bool(cx, keepdim)?),
        ],
    )?;
    Ok(vec![aten(
        cx,
        "logical_not.default",
        &[any],
        result(cx, 0)?,
        &[],
    )?])
}

// aten.clamp_min.default(%x) {min} → aten.clamp.default(%x) {min}
fn clamp_min<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let min = cx.attribute("min")?;
    Ok(vec![aten(
        cx,
        "clamp.default",
        &[cx.operand(0)?],
        result(cx, 0)?,
        &[("min", min)],
    )?])
}

// aten.masked_fill.Scalar(%x, %mask) {value} → where.self(%mask, scalar_tensor(value), %x)
fn masked_fill_scalar<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let (x, mask) = (cx.operand(0)?, cx.operand(1)?);
    let el = element(x)?;
    let fill = aten(
        cx,
        "scalar_tensor.default",
        &[],
        tensor(cx, &[], el)?,
        &[("s", cx.attribute("value")?), ("dtype", a_type(el))],
    )?;
    Ok(vec![aten(
        cx,
        "where.self",
        &[mask, fill, x],
        result(cx, 0)?,
        &[],
    )?])
}

// aten.rsub.Scalar(%x) {other = s, alpha = a} → s - a·x = sub.Tensor(s, mul.Tensor(%x, a))
fn rsub_scalar<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let mut x = cx.operand(0)?;
    let alpha = cx.scalar("alpha")?;
    if alpha != Scalar::Int(1) && alpha != Scalar::Float(1.0) {
        x = binary_scalar(cx, "mul.Tensor", x, alpha)?;
    }
    let s = constant(cx, cx.scalar("other")?, element(x)?)?;
    let ty = result(cx, 0)?;
    if x.r#type() != ty {
        return Err(
            "rsub with a type promotion (an integer tensor and a float scalar) is not decomposed"
                .into(),
        );
    }
    Ok(vec![aten(
        cx,
        "sub.Tensor",
        &[s, x],
        ty,
        &[("alpha", a_int(cx, 1)?)],
    )?])
}

// aten.sum.default(%x) {dtype?} → aten.sum.dim_IntList(%x) {dim = [], keepdim = false, dtype?}
fn sum_default<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let mut attrs = vec![("dim", a_ints(cx, &[])?), ("keepdim", a_bool(cx, false)?)];
    if let Ok(dtype) = cx.attribute("dtype") {
        attrs.push(("dtype", dtype));
    }
    Ok(vec![aten(
        cx,
        "sum.dim_IntList",
        &[cx.operand(0)?],
        result(cx, 0)?,
        &attrs,
    )?])
}

// aten.type_as.default(%x, %other) → %x (same dtype) | aten._to_copy.default(%x) {dtype}
fn type_as<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let ty = result(cx, 0)?;
    if x.r#type() == ty {
        return Ok(vec![x]);
    }
    let dtype = a_type(element(cx.operand(1)?)?);
    Ok(vec![to_copy(cx, x, ty, dtype)?])
}

/// `%x` cast to the `dtype` attribute if there is one.
fn with_dtype<'c, 'a>(cx: Cx<'_, 'c, 'a>, x: V<'c, 'a>) -> Result<V<'c, 'a>, String> {
    let Ok(dtype) = cx.attribute("dtype") else {
        return Ok(x);
    };
    let el: Type = melior::ir::attribute::TypeAttribute::try_from(dtype)
        .map_err(|_| "attribute 'dtype' is not a type".to_string())?
        .value();
    if el == element(x)? {
        return Ok(x);
    }
    let ty = tensor(cx, &shape(x)?, el)?;
    to_copy(cx, x, ty, a_type(el))
}

/// `aten._to_copy.default(%x) {dtype}` (a dtype conversion).
fn to_copy<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    x: V<'c, 'a>,
    ty: Type<'c>,
    dtype: melior::ir::Attribute<'c>,
) -> Result<V<'c, 'a>, String> {
    aten(
        cx,
        "_to_copy.default",
        &[x],
        ty,
        &[("dtype", dtype), ("non_blocking", a_bool(cx, false)?)],
    )
}

/// `softmax.int` / `log_softmax.int` → `_softmax` / `_log_softmax`.
fn softmax_like<'c, 'a>(cx: Cx<'_, 'c, 'a>, key: &str) -> Out<'c, 'a> {
    let x = with_dtype(cx, cx.operand(0)?)?;
    let attrs = [
        ("dim", a_int(cx, int_attr(cx, "dim")?)?),
        ("half_to_float", a_bool(cx, false)?),
    ];
    Ok(vec![aten(cx, key, &[x], result(cx, 0)?, &attrs)?])
}

// aten.softmax.int(%x) {dim, dtype?} → aten._softmax.default(cast(%x)) {dim, half_to_float = false}
fn softmax_int<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    softmax_like(cx, "_softmax.default")
}

// aten.log_softmax.int(%x) {dim, dtype?} → aten._log_softmax.default(cast(%x)) {dim, half_to_float = false}
fn log_softmax_int<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    softmax_like(cx, "_log_softmax.default")
}

// aten.linalg_vector_norm.default(%x) {ord, dim, keepdim}
//   ord = ∞  → amax(|x|);  ord = 1 → Σ|x|;  ord = 0 and -∞ are declined
//   ord = p  → (Σ |x|^p)^(1/p)   (p = 2 → sqrt(Σ x·x))
fn linalg_vector_norm<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = with_dtype(cx, cx.operand(0)?)?;
    let ord = get_f64(cx, "ord")?;
    let dims = dims_attr(cx, "dim", shape(x)?.len())?;
    let keepdim = get_bool_or(cx, "keepdim", false)?;
    if ord == 0.0 || ord == f64::NEG_INFINITY {
        return Err(format!(
            "ord = {ord} is not decomposed (only positive orders and +inf)"
        ));
    }
    if ord == 2.0 {
        let square = aten(cx, "mul.Tensor", &[x, x], x.r#type(), &[])?;
        let sum = reduce(cx, "sum.dim_IntList", square, &dims, keepdim)?;
        return Ok(vec![unary(cx, "sqrt.default", sum)?]);
    }
    let abs = unary(cx, "abs.default", x)?;
    if ord == f64::INFINITY {
        return Ok(vec![reduce(cx, "amax.default", abs, &dims, keepdim)?]);
    }
    if ord == 1.0 {
        return Ok(vec![reduce(cx, "sum.dim_IntList", abs, &dims, keepdim)?]);
    }
    let pow = aten(
        cx,
        "pow.Tensor_Scalar",
        &[abs],
        x.r#type(),
        &[("exponent", a_scalar(cx, Scalar::Float(ord))?)],
    )?;
    let sum = reduce(cx, "sum.dim_IntList", pow, &dims, keepdim)?;
    let root = a_scalar(cx, Scalar::Float(1.0 / ord))?;
    Ok(vec![aten(
        cx,
        "pow.Tensor_Scalar",
        &[sum],
        sum.r#type(),
        &[("exponent", root)],
    )?])
}

/// `var.correction` for `var.dim` / `std.dim` (`unbiased` → correction 1).
fn variance<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Result<V<'c, 'a>, String> {
    let x = cx.operand(0)?;
    let dims = dims_attr(cx, "dim", shape(x)?.len())?;
    let dims: Vec<i64> = dims.iter().map(|d| *d as i64).collect();
    let correction = i64::from(get_bool_or(cx, "unbiased", true)?);
    let attrs = [
        ("dim", a_ints(cx, &dims)?),
        ("correction", a_int(cx, correction)?),
        ("keepdim", a_bool(cx, get_bool_or(cx, "keepdim", false)?)?),
    ];
    aten(cx, "var.correction", &[x], result(cx, 0)?, &attrs)
}

// aten.var.dim(%x) {dim, unbiased, keepdim} → aten.var.correction(%x) {dim, correction = unbiased, keepdim}
fn var_dim<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    Ok(vec![variance(cx)?])
}

// aten.std.dim(%x) {dim, unbiased, keepdim} → sqrt(aten.var.correction(%x))
fn std_dim<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let var = variance(cx)?;
    Ok(vec![unary(cx, "sqrt.default", var)?])
}

// aten.logsumexp.default(%x) {dim, keepdim}
//   → m = amax(x, dim, keepdim = true); m' = where(|m| = ∞, 0, m)
//     log(Σ exp(x − m')) + squeeze(m')           (stable for large |x|)
fn logsumexp<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let s = shape(x)?;
    let el = element(x)?;
    let dims = dims_attr(cx, "dim", s.len())?;
    let keepdim = get_bool_or(cx, "keepdim", false)?;
    let max = reduce(cx, "amax.default", x, &dims, true)?;
    let abs = unary(cx, "abs.default", max)?;
    let i1 = cx.parse_type("i1")?;
    let inf = a_scalar(cx, Scalar::Float(f64::INFINITY))?;
    let infinite = aten(
        cx,
        "eq.Scalar",
        &[abs],
        tensor(cx, &shape(max)?, i1)?,
        &[("other", inf)],
    )?;
    let zero = constant(cx, Scalar::Int(0), el)?;
    let safe = aten(cx, "where.self", &[infinite, zero, max], max.r#type(), &[])?;
    let shifted = binary(cx, "sub.Tensor", x, safe, el)?;
    let exp = unary(cx, "exp.default", shifted)?;
    let sum = reduce(cx, "sum.dim_IntList", exp, &dims, keepdim)?;
    let log = unary(cx, "log.default", sum)?;
    let offset = if keepdim {
        safe
    } else {
        squeeze_dims(cx, safe, &dims)?
    };
    Ok(vec![aten(
        cx,
        "add.Tensor",
        &[log, offset],
        result(cx, 0)?,
        &[("alpha", a_int(cx, 1)?)],
    )?])
}

/// softplus with `beta` and `threshold`: where(βx > t, x, log1p(exp(βx)) / β).
fn softplus_of<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    x: V<'c, 'a>,
    beta: f64,
    threshold: f64,
) -> Result<V<'c, 'a>, String> {
    let i1 = cx.parse_type("i1")?;
    let scaled = if beta == 1.0 {
        x
    } else {
        binary_scalar(cx, "mul.Tensor", x, Scalar::Float(beta))?
    };
    let exp = unary(cx, "exp.default", scaled)?;
    let mut soft = unary(cx, "log1p.default", exp)?;
    if beta != 1.0 {
        soft = binary_scalar(cx, "div.Tensor", soft, Scalar::Float(beta))?;
    }
    let t = a_scalar(cx, Scalar::Float(threshold))?;
    let linear = aten(
        cx,
        "gt.Scalar",
        &[scaled],
        tensor(cx, &shape(x)?, i1)?,
        &[("other", t)],
    )?;
    aten(cx, "where.self", &[linear, x, soft], x.r#type(), &[])
}

// aten.softplus.default(%x) {beta, threshold} → where(βx > t, x, log1p(exp(βx)) / β)
fn softplus<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let (beta, threshold) = (get_f64(cx, "beta")?, get_f64(cx, "threshold")?);
    Ok(vec![softplus_of(cx, cx.operand(0)?, beta, threshold)?])
}

// aten.mish.default(%x) → x · tanh(softplus(x))   (softplus with β = 1, t = 20)
fn mish<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let soft = softplus_of(cx, x, 1.0, 20.0)?;
    let tanh = unary(cx, "tanh.default", soft)?;
    Ok(vec![aten(
        cx,
        "mul.Tensor",
        &[x, tanh],
        result(cx, 0)?,
        &[],
    )?])
}

// aten.diff.default(%x, prepend?, append?) {n, dim}
//   → %y = cat(prepend, %x, append) along dim, then n times
//     %y = sub.Tensor(%y[1:], %y[:-1]) (logical_xor for booleans)
fn diff<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = coreai_ir::schema::named_operand(cx, "self")?.map_or_else(|| cx.operand(0), Ok)?;
    let prepend = coreai_ir::schema::named_operand(cx, "prepend")?;
    let append = coreai_ir::schema::named_operand(cx, "append")?;
    let dim = norm_dim(get_int_or(cx, "dim", -1)?, shape(x)?.len())?;
    let n = get_int_or(cx, "n", 1)?;
    if n < 0 {
        return Err(format!("n = {n} is negative"));
    }
    let parts: Vec<V> = prepend.into_iter().chain([x]).chain(append).collect();
    let mut y = if parts.len() == 1 {
        x
    } else {
        cat(cx, &parts, dim)?
    };
    let el = element(x)?;
    let key = if coreai_ir::lowering::type_text(el) == "i1" {
        "logical_xor.default"
    } else {
        "sub.Tensor"
    };
    for _ in 0..n {
        let mut s = shape(y)?;
        if s[dim] == 0 {
            break;
        }
        if s[dim] > 0 {
            s[dim] -= 1;
        }
        let ty = tensor(cx, &s, el)?;
        let hi = slice_to(cx, y, dim, 1, i64::MAX, ty)?;
        let lo = slice_to(cx, y, dim, 0, -1, ty)?;
        let attrs = if key == "sub.Tensor" {
            vec![("alpha", a_int(cx, 1)?)]
        } else {
            Vec::new()
        };
        y = aten(cx, key, &[hi, lo], ty, &attrs)?;
    }
    Ok(vec![y])
}

/// `x[start:end]` along `dim` (step 1) of result type `ty` (the slice
/// helper's length arithmetic needs a static dimension; this one takes
/// the type, so a dynamic dimension stays dynamic).
fn slice_to<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    x: V<'c, 'a>,
    dim: usize,
    start: i64,
    end: i64,
    ty: Type<'c>,
) -> Result<V<'c, 'a>, String> {
    aten(
        cx,
        "slice.Tensor",
        &[x],
        ty,
        &[
            ("dim", a_int(cx, dim as i64)?),
            ("start", a_int(cx, start)?),
            ("end", a_int(cx, end)?),
            ("step", a_int(cx, 1)?),
        ],
    )
}

// aten.where.ScalarOther(%c, %x) {other} → where.self(%c, %x, scalar_tensor(other))
// in the result's dtype (%x converted first when it differs)
fn where_scalar_other<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let (c, x) = (cx.operand(0)?, cx.operand(1)?);
    let ty = result(cx, 0)?;
    let el = element(cx.op().result(0).map_err(|e| e.to_string())?.into())?;
    let x = if element(x)? == el {
        x
    } else {
        to_copy(cx, x, tensor(cx, &shape(x)?, el)?, a_type(el))?
    };
    let other = aten(
        cx,
        "scalar_tensor.default",
        &[],
        tensor(cx, &[], el)?,
        &[("s", cx.attribute("other")?), ("dtype", a_type(el))],
    )?;
    Ok(vec![aten(cx, "where.self", &[c, x, other], ty, &[])?])
}
