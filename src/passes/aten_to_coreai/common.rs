//! Helpers shared by the lowering families.
//!
//! Attribute readers (the aten dialect stores schema arguments as attributes
//! named after the argument), tensor types of a given shape, the integer
//! constants coreai takes for axes and shapes (`tensor<Nxsi32>` axes,
//! `tensor<Nxui32>` shapes and permutations, `tensor<si32>` dims), and
//! builders for the layout ops most lowerings need (reshape, cast).

pub use crate::lowering::broadcast_shapes;
use crate::lowering::{type_text, Decline, LoweringCx};
use melior::ir::{
    attribute::{ArrayAttribute, BoolAttribute, IntegerAttribute},
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike},
    AttributeLike, Type, TypeLike, Value, ValueLike,
};

/// The size MLIR uses for a dynamic dimension (`?`).
pub const DYNAMIC: i64 = i64::MIN;

/// An `I64Attr` schema argument.
pub fn int_attr(cx: &LoweringCx<'_, '_>, name: &str) -> Result<i64, Decline> {
    let attr = cx.attribute(name)?;
    IntegerAttribute::try_from(attr)
        .map(|i| i.value())
        .map_err(|_| format!("attribute '{name}' is not an integer: {attr}"))
}

/// An `OptionalAttr<I64Attr>` schema argument (`None` when absent).
pub fn opt_int_attr(cx: &LoweringCx<'_, '_>, name: &str) -> Result<Option<i64>, Decline> {
    if cx.op().attribute(name).is_err() {
        return Ok(None);
    }
    int_attr(cx, name).map(Some)
}

/// An `I64ArrayAttr` schema argument (`int[]`).
pub fn int_list_attr(cx: &LoweringCx<'_, '_>, name: &str) -> Result<Vec<i64>, Decline> {
    let attr = cx.attribute(name)?;
    let array = ArrayAttribute::try_from(attr)
        .map_err(|_| format!("attribute '{name}' is not an integer list: {attr}"))?;
    (0..array.len())
        .map(|i| {
            array
                .element(i)
                .ok()
                .and_then(|e| IntegerAttribute::try_from(e).ok())
                .map(|e| e.value())
                .ok_or_else(|| format!("attribute '{name}' is not an integer list: {attr}"))
        })
        .collect()
}

/// A `BoolAttr` schema argument.
pub fn bool_attr(cx: &LoweringCx<'_, '_>, name: &str) -> Result<bool, Decline> {
    let attr = cx.attribute(name)?;
    BoolAttribute::try_from(attr)
        .map(|b| b.value())
        .map_err(|_| format!("attribute '{name}' is not a bool: {attr}"))
}

/// A `StrAttr` schema argument.
pub fn str_attr(cx: &LoweringCx<'_, '_>, name: &str) -> Result<String, Decline> {
    let attr = cx.attribute(name)?;
    crate::strings::string_value(attr)
        .map(|s| s.into_owned())
        .ok_or_else(|| format!("attribute '{name}' is not a string: {attr}"))
}

/// A `DenseBoolArrayAttr` (`indices_present` of `index.Tensor`: which
/// positions of a `Tensor?[]` hold a tensor).
pub fn bool_list_attr(cx: &LoweringCx<'_, '_>, name: &str) -> Result<Vec<bool>, Decline> {
    let attr = cx.attribute(name)?;
    unsafe {
        let raw = attr.to_raw();
        if !mlir_sys::mlirAttributeIsADenseBoolArray(raw) {
            return Err(format!("attribute '{name}' is not a bool array: {attr}"));
        }
        let n = mlir_sys::mlirDenseArrayGetNumElements(raw);
        Ok((0..n)
            .map(|i| mlir_sys::mlirDenseBoolArrayGetElement(raw, i))
            .collect())
    }
}

/// `dim` in `[-rank, rank)` as an axis in `[0, rank)`.
pub fn normalize_dim(dim: i64, rank: usize) -> Result<usize, Decline> {
    let r = rank as i64;
    if dim < -r || dim >= r.max(1) {
        return Err(format!(
            "dimension {dim} is out of range for a rank-{rank} tensor"
        ));
    }
    Ok(if dim < 0 { dim + r } else { dim } as usize)
}

/// The dims of a ranked tensor type (`DYNAMIC` for `?`).
pub fn dims(ty: RankedTensorType<'_>) -> Vec<i64> {
    (0..ty.rank())
        .map(|i| unsafe { mlir_sys::mlirShapedTypeGetDimSize(ty.to_raw(), i as isize) })
        .collect()
}

/// The dims of `ty`, a ranked tensor type (`DYNAMIC` for `?`).
pub fn type_dims(ty: Type<'_>) -> Result<Vec<i64>, Decline> {
    RankedTensorType::try_from(ty)
        .map(dims)
        .map_err(|_| format!("{ty} is not a ranked tensor"))
}

/// The dims of `ty`, declining a dynamic one.
pub fn static_type_dims(ty: Type<'_>) -> Result<Vec<i64>, Decline> {
    let d = type_dims(ty)?;
    if d.contains(&DYNAMIC) {
        return Err(format!(
            "{ty} is dynamic; this lowering needs static shapes"
        ));
    }
    Ok(d)
}

/// The dims of `v`, a ranked tensor (`DYNAMIC` for `?`).
pub fn shape_of(v: Value<'_, '_>) -> Result<Vec<i64>, Decline> {
    type_dims(v.r#type())
}

/// The dims of operand `index`, declining when one is dynamic.
pub fn static_dims(cx: &LoweringCx<'_, '_>, index: usize) -> Result<Vec<i64>, Decline> {
    let ty = cx.operand_tensor(index)?;
    let d = dims(ty);
    if d.contains(&DYNAMIC) {
        return Err(format!(
            "operand #{index} has the dynamic shape {ty}; this lowering needs static shapes"
        ));
    }
    Ok(d)
}

/// `tensor<shape x element>` (`DYNAMIC` entries print as `?`).
pub fn tensor_type<'c>(shape: &[i64], element: Type<'c>) -> Type<'c> {
    unsafe {
        Type::from_raw(mlir_sys::mlirRankedTensorTypeGet(
            shape.len() as isize,
            shape.as_ptr(),
            element.to_raw(),
            mlir_sys::mlirAttributeGetNull(),
        ))
    }
}

/// The element type of `value` (a ranked tensor).
pub fn element_type<'c>(value: Value<'c, '_>) -> Result<Type<'c>, Decline> {
    RankedTensorType::try_from(value.r#type())
        .map(|t| t.element())
        .map_err(|_| format!("{} is not a ranked tensor", value.r#type()))
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

/// The operand of ODS operand group `group` (`operandSegmentSizes`), `None`
/// for an absent optional operand (`Tensor? bias = None`). An op without
/// segments has one operand per group, and its one optional operand is last
/// (absent when the op has fewer operands).
pub fn segment_operand<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    group: usize,
) -> Result<Option<Value<'c, 'a>>, Decline> {
    use melior::ir::operation::OperationLike;
    let Ok(sizes) = cx.op().attribute("operandSegmentSizes") else {
        // Bounds first: melior's out-of-range error prints the whole op
        // (14% of coreai-opt's time on mobilenet_v3_small).
        let present = group < cx.op().operand_count();
        return Ok(present.then(|| cx.op().operand(group).ok()).flatten());
    };
    let sizes: Vec<i64> = unsafe {
        let raw = sizes.to_raw();
        if !mlir_sys::mlirAttributeIsADenseI32Array(raw) {
            return Err(format!("malformed operandSegmentSizes: {sizes}"));
        }
        (0..mlir_sys::mlirDenseArrayGetNumElements(raw))
            .map(|i| i64::from(mlir_sys::mlirDenseI32ArrayGetElement(raw, i)))
            .collect()
    };
    let start: i64 = sizes.iter().take(group).sum();
    match sizes.get(group) {
        Some(0) => Ok(None),
        Some(1) => cx.operand(start as usize).map(Some),
        _ => Err(format!(
            "expected one operand in group #{group} ({sizes:?})"
        )),
    }
}
