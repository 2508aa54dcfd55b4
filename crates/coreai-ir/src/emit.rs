//! The coreai ops the passes build, in one place: integer constants in the
//! types coreai takes for axes and shapes (`tensor<Nxsi32>` axes,
//! `tensor<Nxui32>` shapes and permutations, `tensor<si32>` dims), splat
//! constants, and the layout ops most rewrites need (reshape, transpose,
//! slice, slice_update, cast). Each builder returns its input unchanged
//! where the op would be the identity.

use crate::lowering::{broadcast_shapes, Scalar};
use crate::lowering::{type_text, Decline, LoweringCx};
use crate::op::coreai;
use crate::schema::shape_of;
use crate::schema::{dims, element_type, tensor_type, DYNAMIC};
use melior::ir::{
    r#type::{RankedTensorType, ShapedTypeLike},
    Attribute, Type, TypeLike, Value, ValueLike,
};

/// `coreai.constant` of `ty` holding `value` (an elements attribute).
pub fn constant<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    ty: Type<'c>,
    value: Attribute<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    cx.build_value("coreai.constant", &[], ty, &[("value", value)])
}

/// A 1-D `coreai.constant` of integer `element` (`si32`, `ui32` ...).
pub fn int_vector<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    values: &[i64],
    element: &str,
) -> Result<Value<'c, 'a>, Decline> {
    let (ty, attr) = cx.int_tensor(&[values.len() as i64], values, element)?;
    cx.build_value("coreai.constant", &[], ty, &[("value", attr)])
}

/// A rank-0 `coreai.constant` of integer `element`.
pub fn int_scalar<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    value: i64,
    element: &str,
) -> Result<Value<'c, 'a>, Decline> {
    let (ty, attr) = cx.int_tensor(&[], &[value], element)?;
    cx.build_value("coreai.constant", &[], ty, &[("value", attr)])
}

/// Axes as coreai takes them: `tensor<Nxsi32>`.
pub fn axes<'c, 'a>(cx: &LoweringCx<'c, 'a>, axes: &[i64]) -> Result<Value<'c, 'a>, Decline> {
    int_vector(cx, axes, "si32")
}

/// A shape (or permutation, repeat counts, padding) as coreai takes it:
/// `tensor<Nxui32>`.
pub fn shape<'c, 'a>(cx: &LoweringCx<'c, 'a>, dims: &[i64]) -> Result<Value<'c, 'a>, Decline> {
    if let Some(d) = dims.iter().find(|&&d| d < 0) {
        return Err(format!("the shape entry {d} is negative"));
    }
    int_vector(cx, dims, "ui32")
}

/// `coreai.reshape %x, <shape>` to `tensor<shape x element(x)>` (`x`
/// itself when it already has that shape): a `ui32` shape, or with one
/// dynamic dim a `si32` shape with -1 there.
pub fn reshape<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    to: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    let result = tensor_type(to, element_type(x)?);
    if x.r#type() == result {
        return Ok(x);
    }
    let s = match to.iter().filter(|&&d| d == DYNAMIC).count() {
        0 => shape(cx, to)?,
        // coreai.reshape infers a -1 entry of a si32 shape.
        1 => {
            let inferred: Vec<i64> = to
                .iter()
                .map(|&d| if d == DYNAMIC { -1 } else { d })
                .collect();
            int_vector(cx, &inferred, "si32")?
        }
        _ => {
            return Err(format!(
                "cannot reshape to {result}: more than one dynamic dim"
            ))
        }
    };
    cx.build_value("coreai.reshape", &[x, s], result, &[])
}

/// `coreai.transpose %x, perm` (a `tensor<Nxui32>` permutation); dynamic
/// dims move with their axis.
pub fn transpose<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    perm: &[usize],
) -> Result<Value<'c, 'a>, Decline> {
    let ty = RankedTensorType::try_from(x.r#type())
        .map_err(|_| format!("{} is not a ranked tensor", x.r#type()))?;
    let d = dims(ty);
    if perm.len() != d.len() || perm.iter().any(|&p| p >= d.len()) {
        return Err(format!("{perm:?} is not a permutation of {} dims", d.len()));
    }
    let out: Vec<i64> = perm.iter().map(|&p| d[p]).collect();
    let p = shape(cx, &perm.iter().map(|&p| p as i64).collect::<Vec<_>>())?;
    cx.build_value(
        "coreai.transpose",
        &[x, p],
        tensor_type(&out, ty.element()),
        &[],
    )
}

/// `coreai.concat <axis : si32>, inputs` to `result`.
pub fn concat<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    axis: i64,
    inputs: &[Value<'c, 'a>],
    result: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let mut operands = vec![int_scalar(cx, axis, "si32")?];
    operands.extend_from_slice(inputs);
    cx.build_value("coreai.concat", &operands, result, &[])
}

/// "To the end" in a coreai slice bound (coreai indices are 32-bit).
pub const TO_END: i64 = i32::MAX as i64;

/// The `tensor<Nxsi32>` starts, ends and steps of per-dim `(start, end, step)`.
fn slice_bounds<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    bounds: &[(i64, i64, i64)],
) -> Result<[Value<'c, 'a>; 3], Decline> {
    let starts: Vec<i64> = bounds.iter().map(|b| b.0).collect();
    let ends: Vec<i64> = bounds.iter().map(|b| b.1).collect();
    let steps: Vec<i64> = bounds.iter().map(|b| b.2).collect();
    Ok([axes(cx, &starts)?, axes(cx, &ends)?, axes(cx, &steps)?])
}

/// `coreai.slice %x` by per-dim `(start, end, step)` to `result`.
pub fn slice<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    bounds: &[(i64, i64, i64)],
    result: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let [s, e, st] = slice_bounds(cx, bounds)?;
    cx.build_value("coreai.slice", &[x, s, e, st], result, &[])
}

/// `coreai.slice_update %x with %update` at per-dim `(start, end, step)`.
pub fn slice_update<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    update: Value<'c, 'a>,
    bounds: &[(i64, i64, i64)],
    result: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let [s, e, st] = slice_bounds(cx, bounds)?;
    cx.build_value("coreai.slice_update", &[x, s, e, st, update], result, &[])
}

/// Bounds covering `[0, size)` of every dim (dynamic dims whole).
pub fn leading_block(sizes: &[i64]) -> Vec<(i64, i64, i64)> {
    sizes
        .iter()
        .map(|&n| (0, if n == DYNAMIC { TO_END } else { n }, 1))
        .collect()
}

/// `coreai.cast %x` to `element`, or `x` itself when it already has it.
pub fn cast_to<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let ty = RankedTensorType::try_from(x.r#type())
        .map_err(|_| format!("{} is not a ranked tensor", x.r#type()))?;
    if ty.element() == element {
        return Ok(x);
    }
    cx.build_value("coreai.cast", &[x], tensor_type(&dims(ty), element), &[])
}

/// `value` as an MLIR literal of `element`, converted the way PyTorch fills
/// a tensor of that dtype with a Python number (`full`, `masked_fill`, pad
/// values): floats round to nearest, ±inf and NaN stay, bools are `value !=
/// 0`. An integer dtype declines a non-integral float.
pub fn fill_literal(value: crate::lowering::Scalar, element: Type<'_>) -> Result<String, Decline> {
    use crate::lowering::Scalar;
    let text = type_text(element);
    let v = match value {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    };
    if text == "i1" {
        return Ok((v != 0.0).to_string());
    }
    if element.is_integer() {
        return match value {
            Scalar::Int(i) => Ok(i.to_string()),
            Scalar::Float(f) if f.fract() == 0.0 => Ok((f as i64).to_string()),
            Scalar::Float(f) => Err(format!("{f} is not an integer of type {text}")),
        };
    }
    let special = |inf: &str, ninf: &str, nan: &str| -> Option<String> {
        if v.is_nan() {
            Some(nan.into())
        } else if v == f64::INFINITY {
            Some(inf.into())
        } else if v == f64::NEG_INFINITY {
            Some(ninf.into())
        } else {
            None
        }
    };
    let hex = match &*text {
        "f32" => special("0x7F800000", "0xFF800000", "0x7FC00000"),
        "f16" => special("0x7C00", "0xFC00", "0x7E00"),
        "bf16" => special("0x7F80", "0xFF80", "0x7FC0"),
        "f64" => special(
            "0x7FF0000000000000",
            "0xFFF0000000000000",
            "0x7FF8000000000000",
        ),
        _ => return Err(format!("cannot fill a tensor of {text} with {v}")),
    };
    Ok(hex.unwrap_or_else(|| {
        // Rust prints the shortest decimal that reads back as the same f64;
        // MLIR's float literals need a '.'.
        let s = format!("{v:?}");
        match (s.contains('.'), s.find('e')) {
            (true, _) => s,
            (false, Some(e)) => format!("{}.0{}", &s[..e], &s[e..]),
            (false, None) => format!("{s}.0"),
        }
    }))
}

/// A `coreai.constant` of `ty` (a static tensor type) with every element
/// `value`, converted as [`fill_literal`] says.
pub fn splat<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    value: crate::lowering::Scalar,
    ty: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let tensor =
        RankedTensorType::try_from(ty).map_err(|_| format!("{ty} is not a ranked tensor"))?;
    if dims(tensor).contains(&DYNAMIC) {
        return Err(format!("cannot build a constant of the dynamic type {ty}"));
    }
    let literal = fill_literal(value, tensor.element())?;
    let attr = cx.parse_attribute(&format!("dense<{literal}> : {}", type_text(ty)))?;
    cx.build_value("coreai.constant", &[], ty, &[("value", attr)])
}

/// The broadcasting form of elementwise `op` (`coreai::ADD`) on `%a, %b`
/// with the broadcast shape and result element `element`.
pub fn binary<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let shape = broadcast_shapes(&[&shape_of(a)?, &shape_of(b)?])?;
    broadcasting(cx, op, a, b, tensor_type(&shape, element))
}

/// The broadcasting form of elementwise `op` (`coreai::ADD` builds
/// `coreai.decomposable.broadcasting_add`) on `%a, %b` with result type `ty`.
pub fn broadcasting<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    ty: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let form =
        coreai::broadcasting(op).ok_or_else(|| format!("'{op}' has no broadcasting form"))?;
    cx.build_value(form, &[a, b], ty, &[])
}

/// A rank-0 `i1` constant.
pub fn bool_scalar<'c, 'a>(cx: &LoweringCx<'c, 'a>, v: bool) -> Result<Value<'c, 'a>, Decline> {
    let attr = cx.parse_attribute(&format!("dense<{v}> : tensor<i1>"))?;
    constant(cx, cx.parse_type("tensor<i1>")?, attr)
}

/// `binary` with the element type of `a`.
pub fn arith<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    binary(cx, op, a, b, element_type(a)?)
}

/// `binary` with an `i1` result (equal, not_equal, greater, and, or, xor).
pub fn predicate<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    binary(cx, op, a, b, cx.parse_type("i1")?)
}

/// `op %x` (`coreai::EXP`) of the same type.
pub fn unary<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    cx.build_value(op, &[x], x.r#type(), &[])
}

/// `where(cond, a, b)` with the broadcast shape of the three.
pub fn select<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    cond: Value<'c, 'a>,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let shape = broadcast_shapes(&[&shape_of(cond)?, &shape_of(a)?, &shape_of(b)?])?;
    cx.build_value(
        "coreai.decomposable.broadcasting_where",
        &[cond, a, b],
        tensor_type(&shape, element_type(a)?),
        &[],
    )
}

/// `coreai.expand_dims %x` inserting a unit dimension at `axis`.
pub fn expand_dim<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axis: usize,
) -> Result<Value<'c, 'a>, Decline> {
    let mut to = shape_of(x)?;
    to.insert(axis, 1);
    let ty = tensor_type(&to, element_type(x)?);
    let axis = axes(cx, &[axis as i64])?;
    cx.build_value("coreai.expand_dims", &[x, axis], ty, &[])
}

/// `coreai.decomposable.broadcasting_batch_matmul %a, %b` for operands of
/// rank ≥ 2 (batch dimensions broadcast).
pub fn batch_matmul<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    a: Value<'c, '_>,
    b: Value<'c, '_>,
) -> Result<Value<'c, 'a>, Decline> {
    let (sa, sb) = (shape_of(a)?, shape_of(b)?);
    if sa.len() < 2 || sb.len() < 2 {
        return Err("batch matmul operands must have rank ≥ 2".into());
    }
    let mut to = broadcast_shapes(&[&sa[..sa.len() - 2], &sb[..sb.len() - 2]])?;
    to.extend([sa[sa.len() - 2], sb[sb.len() - 1]]);
    let ty = tensor_type(&to, element_type(a)?);
    cx.build_value(
        "coreai.decomposable.broadcasting_batch_matmul",
        &[a, b],
        ty,
        &[],
    )
}

/// `coreai.pad` of the spatial dims (all but the first two) with `value`,
/// `(before, after)` per spatial dim; `x` unchanged when all are zero.
pub fn pad_spatial<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    sides: &[(i64, i64)],
    value: f64,
) -> Result<Value<'c, 'a>, Decline> {
    if sides.iter().all(|&(b, a)| b == 0 && a == 0) {
        return Ok(x);
    }
    let mut padded = shape_of(x)?;
    let mut amounts = vec![0, 0, 0, 0];
    for (i, &(before, after)) in sides.iter().enumerate() {
        let dim = &mut padded[i + 2];
        if *dim != crate::schema::DYNAMIC {
            *dim = dim
                .checked_add(before)
                .and_then(|d| d.checked_add(after))
                .filter(|d| *d >= 0)
                .ok_or_else(|| format!("padding dim {dim} by {before} and {after} overflows"))?;
        }
        amounts.extend([before, after]);
    }
    let element = element_type(x)?;
    let ty = tensor_type(&padded, element);
    let amounts = shape(cx, &amounts)?;
    let fill = float_scalar(cx, value, element)?;
    let mode = cx.parse_attribute("#coreai.padding_mode<constant>")?;
    cx.build_value(
        "coreai.pad",
        &[x, amounts, fill],
        ty,
        &[("padding_mode", mode)],
    )
}

/// A rank-0 float constant of `element` holding `value` rounded to nearest,
/// as PyTorch rounds a Python float it combines with a tensor of that dtype.
pub fn float_scalar<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    value: f64,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    splat(cx, Scalar::Float(value), tensor_type(&[], element))
}

/// `coreai.decomposable.broadcasting_where %cond, %a, %b` with result type
/// `ty`.
pub fn select_to<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    cond: Value<'c, 'a>,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    ty: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    cx.build_value(
        "coreai.decomposable.broadcasting_where",
        &[cond, a, b],
        ty,
        &[],
    )
}

/// `coreai.get_shape %x`: its runtime shape as `tensor<rank x ui32>`.
pub fn get_shape<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let rank = shape_of(x)?.len() as i64;
    let ui32 = cx.parse_type("ui32")?;
    cx.build_value("coreai.get_shape", &[x], tensor_type(&[rank], ui32), &[])
}

/// Dim `d` of `x` as a rank-0 tensor of `element`: its static size as a
/// constant, or read at run time (a slice of `coreai.get_shape`, reshaped
/// to rank 0 and cast).
pub fn dim_scalar<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    d: usize,
    element: &str,
) -> Result<Value<'c, 'a>, Decline> {
    let n = *shape_of(x)?
        .get(d)
        .ok_or_else(|| format!("{} has no dim {d}", x.r#type()))?;
    let ty = cx.parse_type(element)?;
    if n != DYNAMIC {
        return splat(cx, Scalar::Int(n), tensor_type(&[], ty));
    }
    let s = get_shape(cx, x)?;
    let one = slice(
        cx,
        s,
        &[(d as i64, d as i64 + 1, 1)],
        tensor_type(&[1], element_type(s)?),
    )?;
    cast_to(cx, reshape(cx, one, &[])?, ty)
}

/// One entry of a shape built at run time by [`runtime_shape`].
#[derive(Clone, Copy)]
pub enum Extent<'c, 'a> {
    /// A known size.
    Static(i64),
    /// Dim `usize` of a tensor, read with `coreai.get_shape`.
    DimOf(Value<'c, 'a>, usize),
    /// A rank-0 integer tensor holding the size (a symbolic size).
    Scalar(Value<'c, 'a>),
}

/// A 1-D shape of integer `element` (`ui32` for `broadcast_to`, `si32`
/// where a -1 entry is inferred) whose entries are `extents`: runs of static
/// sizes become one constant, runtime sizes slices of `coreai.get_shape` or
/// reshaped scalars, joined by `coreai.concat`; a constant when all are
/// static.
pub fn runtime_shape<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    extents: &[Extent<'c, 'a>],
    element: &str,
) -> Result<Value<'c, 'a>, Decline> {
    let ty = cx.parse_type(element)?;
    // The whole shape of one tensor: its coreai.get_shape.
    if let Some(Extent::DimOf(x, _)) = extents.iter().find(|e| matches!(e, Extent::DimOf(..))) {
        let xs = shape_of(*x)?;
        let whole = xs.len() == extents.len()
            && extents.iter().enumerate().all(|(i, e)| match *e {
                Extent::DimOf(v, d) => v == *x && d == i,
                Extent::Static(n) => xs[i] == n,
                Extent::Scalar(_) => false,
            });
        if whole {
            return cast_to(cx, get_shape(cx, *x)?, ty);
        }
    }
    let mut shapes: Vec<(Value<'c, 'a>, Value<'c, 'a>)> = Vec::new();
    let mut parts: Vec<Value<'c, 'a>> = Vec::new();
    let mut run: Vec<i64> = Vec::new();
    for e in extents {
        if let Extent::Static(n) = e {
            run.push(*n);
            continue;
        }
        if !run.is_empty() {
            parts.push(int_vector(cx, &std::mem::take(&mut run), element)?);
        }
        let one = match *e {
            Extent::DimOf(x, d) => {
                let s = match shapes.iter().find(|(v, _)| *v == x) {
                    Some(&(_, s)) => s,
                    None => {
                        let s = get_shape(cx, x)?;
                        shapes.push((x, s));
                        s
                    }
                };
                let u = slice(
                    cx,
                    s,
                    &[(d as i64, d as i64 + 1, 1)],
                    tensor_type(&[1], element_type(s)?),
                )?;
                cast_to(cx, u, ty)?
            }
            Extent::Scalar(v) => cast_to(cx, reshape(cx, v, &[1])?, ty)?,
            Extent::Static(_) => unreachable!("handled above"),
        };
        parts.push(one);
    }
    if !run.is_empty() {
        parts.push(int_vector(cx, &run, element)?);
    }
    if parts.len() == 1 {
        return Ok(parts.remove(0));
    }
    let mut operands = vec![int_scalar(cx, 0, "si32")?];
    operands.extend(parts);
    cx.build_value(
        "coreai.concat",
        &operands,
        tensor_type(&[extents.len() as i64], ty),
        &[],
    )
}

/// `coreai.reshape %x` to `to` (dynamic dims as `DYNAMIC`) whatever the
/// number of dynamic dims: [`reshape`] with at most one, otherwise a shape
/// built at run time from `extents` (one per entry of `to`; a `Static(-1)`
/// entry is inferred, in a `si32` shape).
pub fn reshape_to<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    to: &[i64],
    extents: &[Extent<'c, 'a>],
) -> Result<Value<'c, 'a>, Decline> {
    if to.iter().filter(|&&d| d == DYNAMIC).count() <= 1 {
        return reshape(cx, x, to);
    }
    let result = tensor_type(to, element_type(x)?);
    // Two dynamic dims of one type may still differ (x.reshape(m, n) of an
    // [n, m] x): the shape is always built.
    let infers = extents.iter().any(|e| matches!(e, Extent::Static(-1)));
    let s = runtime_shape(cx, extents, if infers { "si32" } else { "ui32" })?;
    cx.build_value("coreai.reshape", &[x, s], result, &[])
}

/// A tensor of type `ty` with every element `value`: a [`splat`] constant
/// when `ty` is static, otherwise a rank-0 constant broadcast
/// (`coreai.broadcast_to`) to the runtime shape `extents` (one per dim of
/// `ty`).
pub fn fill<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    value: Scalar,
    ty: Type<'c>,
    extents: &[Extent<'c, 'a>],
) -> Result<Value<'c, 'a>, Decline> {
    let d = crate::schema::type_dims(ty)?;
    if !d.contains(&DYNAMIC) {
        return splat(cx, value, ty);
    }
    if extents.len() != d.len() {
        return Err(format!(
            "cannot fill {ty}: {} runtime sizes for {} dims",
            extents.len(),
            d.len()
        ));
    }
    let tensor =
        RankedTensorType::try_from(ty).map_err(|_| format!("{ty} is not a ranked tensor"))?;
    let scalar = splat(cx, value, tensor_type(&vec![1; d.len()], tensor.element()))?;
    let s = runtime_shape(cx, extents, "ui32")?;
    cx.build_value("coreai.broadcast_to", &[scalar, s], ty, &[])
}

/// The extents of every dim of `x`: static sizes, `DimOf` for dynamic ones.
pub fn extents_of<'c, 'a>(x: Value<'c, 'a>) -> Result<Vec<Extent<'c, 'a>>, Decline> {
    Ok(shape_of(x)?
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            if n == DYNAMIC {
                Extent::DimOf(x, i)
            } else {
                Extent::Static(n)
            }
        })
        .collect())
}

/// A private `noinline` `coreai.graph @name` with an empty body block: one
/// argument per `(input name, type)`, one result of `result`,
/// `composite_decl` parsed from `declaration` where given (a composite),
/// and coreai-torch's `template_op` where given. The caller fills the body.
pub fn composite_graph(
    cx: &LoweringCx<'_, '_>,
    name: &str,
    inputs: &[(&str, Type<'_>)],
    result: Type<'_>,
    declaration: Option<&str>,
    template_op: Option<&str>,
) -> Result<mlir_sys::MlirOperation, Decline> {
    use melior::ir::{
        operation::OperationBuilder, AttributeLike, Block, Identifier, Region, RegionLike,
    };
    let context = cx.context();
    let types: Vec<Type> = inputs.iter().map(|(_, t)| *t).collect();
    // Built directly: printing and re-parsing them was most of the cost of a
    // composite. The declaration and `param_decls` are coreai's and param's
    // own attributes, so they are parsed.
    let function_type = unsafe {
        let raw: Vec<mlir_sys::MlirType> = types.iter().map(|t| t.to_raw()).collect();
        let output = result.to_raw();
        Attribute::from_raw(mlir_sys::mlirTypeAttrGet(mlir_sys::mlirFunctionTypeGet(
            context,
            raw.len() as isize,
            raw.as_ptr(),
            1,
            &output,
        )))
    };
    let name_id = cx.identifier("coreai.name").to_raw();
    let dictionaries: Vec<Attribute> = inputs
        .iter()
        .map(|(n, _)| unsafe {
            let entry = mlir_sys::mlirNamedAttributeGet(name_id, cx.string_attribute(n).to_raw());
            Attribute::from_raw(mlir_sys::mlirDictionaryAttrGet(context, 1, &entry))
        })
        .collect();
    let unit = cx.unit_attribute();
    let mut attributes = vec![
        ("sym_name", cx.string_attribute(name)),
        ("function_type", function_type),
        ("arg_attrs", cx.array_attribute(&dictionaries)),
        ("param_decls", cx.parse_attribute("#param.decl.array<[]>")?),
        ("priv", unit),
        ("no_inline", unit),
        ("__coreai_pure__", unit),
    ];
    if let Some(declaration) = declaration {
        attributes.push(("composite_decl", cx.parse_attribute(declaration)?));
    }
    if let Some(template) = template_op {
        attributes.push(("template_op", cx.string_attribute(template)));
    }
    let attributes: Vec<(Identifier, Attribute)> = attributes
        .into_iter()
        .map(|(k, attr)| (cx.identifier(k), attr))
        .collect();
    let location = cx.location();
    let block_args: Vec<_> = types.iter().map(|&t| (t, location)).collect();
    let region = Region::new();
    region.append_block(Block::new(&block_args));
    let graph = OperationBuilder::new("coreai.graph", location)
        .add_attributes(&attributes)
        .add_regions([region])
        .build()
        .map_err(|e| format!("cannot build the composite graph @{name}: {e}"))?;
    Ok(graph.into_raw())
}

/// The body block of `graph` (made by [`composite_graph`]), with a
/// `coreai.output` of its first argument appended and a context that builds
/// in front of that output: the caller builds the body there, then sets
/// the output's operand (`mlirOperationSetOperand`).
pub fn graph_body<'c, 'a>(
    cx: &LoweringCx<'c, '_>,
    graph: mlir_sys::MlirOperation,
) -> Result<
    (
        melior::ir::BlockRef<'c, 'a>,
        mlir_sys::MlirOperation,
        LoweringCx<'c, 'a>,
    ),
    Decline,
> {
    use melior::ir::{
        operation::{OperationBuilder, OperationLike, OperationRef},
        BlockLike, RegionLike,
    };
    let graph = unsafe { OperationRef::<'c, 'a>::from_raw(graph) };
    let block = graph
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or("the graph has no block")?;
    let first: Value = block.argument(0).map_err(|e| e.to_string())?.into();
    let output = OperationBuilder::new("coreai.output", cx.location())
        .add_operands(&[first])
        .build()
        .map_err(|e| format!("cannot build 'coreai.output': {e}"))?
        .into_raw();
    unsafe { mlir_sys::mlirBlockAppendOwnedOperation(block.to_raw(), output) };
    let at_output =
        LoweringCx::with_options(unsafe { OperationRef::from_raw(output) }, cx.options());
    Ok((block, output, at_output))
}
