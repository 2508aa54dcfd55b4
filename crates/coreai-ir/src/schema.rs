//! Reading what an op carries: its schema arguments (the aten dialect
//! stores non-tensor schema arguments as attributes named after the
//! argument), its optional operands (`operandSegmentSizes`), and the shapes
//! and element types of its tensors (`DYNAMIC` is MLIR's `?`).

use crate::lowering::type_text;
use crate::lowering::{Decline, LoweringCx};
use melior::ir::{
    attribute::{ArrayAttribute, BoolAttribute, IntegerAttribute},
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike},
    Attribute, AttributeLike, Type, TypeLike, Value, ValueLike,
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
    if let Some(i) = d.iter().position(|&n| n == DYNAMIC) {
        return Err(format!(
            "dim {i} of {ty} is dynamic; this lowering needs static shapes"
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
    if let Some(i) = d.iter().position(|&n| n == DYNAMIC) {
        return Err(format!(
            "dim {i} of operand #{index} ({ty}) is dynamic; this lowering needs static shapes"
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

/// Whether `element` is a float type coreai computes in.
pub fn is_float(element: Type<'_>) -> bool {
    matches!(&*type_text(element), "f16" | "bf16" | "f32" | "f64")
}

/// Whether `element` is PyTorch's bool (`i1`).
pub fn is_bool(element: Type<'_>) -> bool {
    type_text(element) == "i1"
}

/// Whether `element` is a 16-bit float (PyTorch computes its elementwise
/// kernels in f32, "opmath").
pub fn is_half(element: Type<'_>) -> bool {
    matches!(&*type_text(element), "f16" | "bf16")
}

/// `f32` in this op's context.
pub fn f32_type<'c>(cx: &LoweringCx<'c, '_>) -> Result<Type<'c>, Decline> {
    cx.parse_type("f32")
}

/// The ranked tensor type of `v`.
pub fn tensor_of<'c>(v: Value<'c, '_>) -> Result<RankedTensorType<'c>, Decline> {
    RankedTensorType::try_from(v.r#type())
        .map_err(|_| format!("{} is not a ranked tensor", v.r#type()))
}

/// The operand of schema argument `name` of a generic `aten.operator`
/// (`operand_args = ["input", "scale"]`, `operand_groups = array<i64: 1,
/// 1>`); `None` when the argument is absent (`None` in PyTorch).
pub fn named_operand<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    name: &str,
) -> Result<Option<Value<'c, 'a>>, Decline> {
    match named_operands(cx, name)? {
        Some(group) if group.len() == 1 => Ok(Some(group[0])),
        Some(group) => Err(format!(
            "argument '{name}' has {} operands, not one",
            group.len()
        )),
        None => Ok(None),
    }
}

/// Every operand of schema argument `name` of a generic `aten.operator` (a
/// list argument whose elements are symbolic sizes is one operand per
/// element); `None` when the argument is not an operand.
pub fn named_operands<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    name: &str,
) -> Result<Option<Vec<Value<'c, 'a>>>, Decline> {
    let Ok(names) = cx.op().attribute("operand_args") else {
        return Ok(None);
    };
    let names = ArrayAttribute::try_from(names)
        .map_err(|_| format!("operand_args is not an array: {names}"))?;
    let groups = cx.attribute("operand_groups")?;
    let groups = melior::ir::attribute::DenseI64ArrayAttribute::try_from(groups)
        .map_err(|_| format!("operand_groups is not an i64 array: {groups}"))?;
    let mut start = 0usize;
    for i in 0..names.len() {
        let size = groups
            .element(i)
            .map_err(|_| "operand_groups is shorter than operand_args".to_string())?;
        let count = usize::try_from(size)
            .map_err(|_| format!("operand_groups entry {size} is not an operand count"))?;
        let this = names
            .element(i)
            .ok()
            .and_then(crate::strings::string_value)
            .map(|s| s.into_owned());
        if this.as_deref() == Some(name) {
            return (start..start + count)
                .map(|k| cx.operand(k))
                .collect::<Result<Vec<_>, _>>()
                .map(Some);
        }
        start = start
            .checked_add(count)
            .ok_or_else(|| format!("operand_groups entry {size} is not an operand count"))?;
    }
    Ok(None)
}

/// The tensor operand of schema argument `name` (ODS operand group `group`
/// of a typed op, or the named group of a generic `aten.operator`, whose
/// symbolic sizes are operands too); `None` when absent.
pub fn arg_operand<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    name: &str,
    group: usize,
) -> Result<Option<Value<'c, 'a>>, Decline> {
    if cx.op().attribute("operand_args").is_ok() {
        return named_operand(cx, name);
    }
    segment_operand(cx, group)
}

/// The uses of `v`: each user op and the operand number `v` is at, in use-list
/// order.
pub fn uses<'c, 'a>(v: Value<'c, 'a>) -> Vec<(melior::ir::operation::OperationRef<'c, 'a>, usize)> {
    let mut out = Vec::new();
    // SAFETY: walks the use list of a live value; each owner is a live op.
    unsafe {
        let mut u = mlir_sys::mlirValueGetFirstUse(v.to_raw());
        while !mlir_sys::mlirOpOperandIsNull(u) {
            out.push((
                melior::ir::operation::OperationRef::from_raw(mlir_sys::mlirOpOperandGetOwner(u)),
                mlir_sys::mlirOpOperandGetOperandNumber(u) as usize,
            ));
            u = mlir_sys::mlirOpOperandGetNextUse(u);
        }
    }
    out
}

/// The op that defines `v`, when it is an op result.
pub fn producer<'c, 'a>(v: Value<'c, 'a>) -> Option<melior::ir::operation::OperationRef<'c, 'a>> {
    melior::ir::operation::OperationResult::try_from(v)
        .ok()
        .map(|r| r.owner())
}

/// Entry `name` of dictionary attribute `dict`.
pub fn dict_get<'c>(dict: Attribute<'c>, name: &str) -> Option<Attribute<'c>> {
    let entry = crate::raw::dict_entry(dict.to_raw(), name)?;
    // SAFETY: an entry of a live dictionary attribute of the same context.
    Some(unsafe { Attribute::from_raw(entry) })
}

/// The element of a splat dense elements attribute.
pub fn splat_element<'c>(attr: Attribute<'c>) -> Option<Attribute<'c>> {
    // SAFETY: type tests and the splat element of a live attribute.
    unsafe {
        let raw = attr.to_raw();
        (mlir_sys::mlirAttributeIsADenseElements(raw)
            && mlir_sys::mlirDenseElementsAttrIsSplat(raw))
        .then(|| Attribute::from_raw(mlir_sys::mlirDenseElementsAttrGetSplatValue(raw)))
    }
}

/// The value of a float attribute.
pub fn float_value(attr: Attribute<'_>) -> Option<f64> {
    melior::ir::attribute::FloatAttribute::try_from(attr)
        .ok()
        .map(|f| f.value())
}

/// The elements of an `array<i64: ...>` attribute.
pub fn i64_array(attr: Attribute<'_>) -> Option<Vec<i64>> {
    // SAFETY: a type test, then reads within the array's length.
    unsafe {
        let raw = attr.to_raw();
        mlir_sys::mlirAttributeIsADenseI64Array(raw).then(|| {
            (0..mlir_sys::mlirDenseArrayGetNumElements(raw))
                .map(|i| mlir_sys::mlirDenseI64ArrayGetElement(raw, i))
                .collect()
        })
    }
}

/// `(width, signed)` of an integer type (`i1` unsigned), `None` for others.
pub fn int_kind(element: Type<'_>) -> Option<(u32, bool)> {
    melior::ir::r#type::IntegerType::try_from(element)
        .ok()
        .map(|i| (i.width(), i.width() > 1 && !i.is_unsigned()))
}
