//! Dtype conversions and scalar operands (_to_copy, wrapped Python numbers, type promotion) → coreai.
//!
//! The helpers here are what every elementwise family uses to bring its
//! operands to the dtype the computation runs in:
//! - a tensor operand of another dtype gets an explicit `coreai.cast`;
//! - a Python number (an operand the importer marked `aten.wrapped_number`,
//!   or a `Scalar` attribute) becomes a new rank-0 constant of that dtype,
//!   converted the way PyTorch converts it ([`number`]);
//! - comparisons, whose result is `i1`, find the computation dtype with
//!   PyTorch's type promotion ([`promoted_element`]).
//!
//! Measured on PyTorch's CPU kernels (fp16 inputs, scalar 0.1): `add`, `sub`,
//! `pow`, `fmod`, `remainder`, `clamp`, comparisons and `where` first convert
//! the number to the tensor's dtype (`f16(0.1)`), while `mul`, `div` and
//! `leaky_relu` keep it in the "opmath" dtype f32 and round the product once
//! (`f16(f32(x) * f32(0.1))`). [`number`] makes the first conversion explicit
//! (an f32 constant and a `coreai.cast` to f16, never a silently rounded f16
//! literal); [`needs_opmath`] tells a lowering of the second kind to compute
//! in f32.

use super::common::{cast_to, dims, element_type, splat, str_attr, tensor_type};
use super::elementwise::trunc_float;
use crate::lowering::{type_text, Decline, LoweringCx, Scalar};
use melior::ir::{
    attribute::TypeAttribute,
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike},
    Type, Value, ValueLike,
};

pub static LOWERINGS: super::Family = &[
    ("_to_copy.default", to_copy),
    ("to.dtype", to_copy),
    ("type_as.default", type_as),
];

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

/// The Python number held by `value`, if the importer wrapped one there
/// (`x * 2` → a rank-0 splat constant marked `aten.wrapped_number`).
pub fn wrapped_number<'c>(cx: &LoweringCx<'c, '_>, value: Value<'c, '_>) -> Option<Scalar> {
    if !cx.is_wrapped_number(value) {
        return None;
    }
    unsafe {
        use mlir_sys::*;
        let owner = mlirOpResultGetOwner(value.to_raw());
        let attr = mlirOperationGetAttributeByName(owner, crate::ffi::string_ref("value"));
        if attr.ptr.is_null()
            || !mlirAttributeIsADenseElements(attr)
            || !mlirDenseElementsAttrIsSplat(attr)
        {
            return None;
        }
        let element = mlirShapedTypeGetElementType(mlirAttributeGetType(attr));
        if mlirTypeIsAF64(element) {
            Some(Scalar::Float(mlirDenseElementsAttrGetDoubleSplatValue(
                attr,
            )))
        } else if mlirTypeIsAF32(element) {
            Some(Scalar::Float(f64::from(
                mlirDenseElementsAttrGetFloatSplatValue(attr),
            )))
        } else if mlirTypeIsAInteger(element) && mlirIntegerTypeGetWidth(element) == 64 {
            Some(Scalar::Int(mlirDenseElementsAttrGetInt64SplatValue(attr)))
        } else if mlirTypeIsAInteger(element) && mlirIntegerTypeGetWidth(element) == 1 {
            Some(Scalar::Int(i64::from(
                mlirDenseElementsAttrGetBoolSplatValue(attr) != 0,
            )))
        } else {
            None
        }
    }
}

/// A Python number as a rank-0 constant of `element`, converted as PyTorch
/// converts a number to a tensor's dtype: exact when it can be; f32/f64 round
/// to nearest; f16/bf16 take an f32 constant and an explicit `coreai.cast`
/// (PyTorch goes double → float → half too); an integer or bool dtype
/// declines a number it cannot hold.
pub fn number<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    value: Scalar,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let text = type_text(element);
    let special = matches!(value, Scalar::Float(v) if !v.is_finite());
    if text == "i1" || (special && is_float(element)) {
        return splat(cx, value, tensor_type(&[], element));
    }
    if category(element) == 1 {
        return match value {
            Scalar::Int(v)
                if int_range(&text).is_some_and(|(lo, hi)| (lo..=hi).contains(&i128::from(v))) =>
            {
                cx.scalar_constant(value, element)
            }
            Scalar::Float(v)
                if v.fract() == 0.0
                    && int_range(&text)
                        .is_some_and(|(lo, hi)| (lo as f64..=hi as f64).contains(&v)) =>
            {
                cx.scalar_constant(Scalar::Int(v as i64), element)
            }
            _ => Err(format!(
                "the number {} does not fit the dtype {text}",
                show(value)
            )),
        };
    }
    if value.is_exact_in(element) {
        return cx.scalar_constant(value, element);
    }
    match &*text {
        "f32" | "f64" => splat(cx, value, tensor_type(&[], element)),
        "f16" | "bf16" => {
            let wide = splat(cx, value, tensor_type(&[], f32_type(cx)?))?;
            cast_to(cx, wide, element)
        }
        _ => Err(format!(
            "the number {} does not fit the dtype {text}",
            show(value)
        )),
    }
}

/// A number as the user wrote it.
fn show(value: Scalar) -> String {
    match value {
        Scalar::Int(v) => v.to_string(),
        Scalar::Float(v) => v.to_string(),
    }
}

/// The value range of an integer type name (`si8` → -128..=127).
fn int_range(name: &str) -> Option<(i128, i128)> {
    let bits = name
        .trim_start_matches(|c: char| c.is_alphabetic())
        .parse::<u32>()
        .ok()?;
    if name.starts_with("ui") {
        Some((0, (1i128 << bits) - 1))
    } else {
        Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
    }
}

/// Whether a computation in `element` with these Python numbers runs in
/// f32 in PyTorch and rounds once (`mul`, `div`, `leaky_relu` on f16/bf16
/// with a number that f16/bf16 cannot hold exactly).
pub fn needs_opmath(element: Type<'_>, numbers: &[Scalar]) -> bool {
    is_half(element) && numbers.iter().any(|n| !n.is_exact_in(element))
}

/// PyTorch's category of a dtype: bool < integer < float.
fn category(element: Type<'_>) -> u8 {
    let text = type_text(element);
    if text == "i1" {
        0
    } else if is_float(element) {
        2
    } else {
        1
    }
}

/// `promote_types(a, b)` for two dtypes.
fn promote_pair<'c>(
    cx: &LoweringCx<'c, '_>,
    a: Type<'c>,
    b: Type<'c>,
) -> Result<Type<'c>, Decline> {
    if a == b {
        return Ok(a);
    }
    let (ca, cb) = (category(a), category(b));
    if ca != cb {
        return Ok(if ca > cb { a } else { b });
    }
    let (ta, tb) = (a.to_string(), b.to_string());
    if ca == 2 {
        let rank = |t: &str| match t {
            "f16" | "bf16" => 16,
            "f32" => 32,
            _ => 64,
        };
        return match (rank(&ta), rank(&tb)) {
            (16, 16) => f32_type(cx),
            (x, y) => Ok(if x >= y { a } else { b }),
        };
    }
    let bits = |t: &str| {
        t.trim_start_matches(|c: char| c.is_alphabetic())
            .parse::<u32>()
            .unwrap_or(64)
    };
    let (ua, ub) = (ta.starts_with("ui"), tb.starts_with("ui"));
    let (ba, bb) = (bits(&ta), bits(&tb));
    if ua == ub {
        return Ok(if ba >= bb { a } else { b });
    }
    // Signed with unsigned: the signed type if it is wider, else the next
    // wider signed type (uint8 + int8 = int16).
    let (signed, unsigned) = if ua { (bb, ba) } else { (ba, bb) };
    let width = if signed > unsigned {
        signed
    } else {
        (unsigned * 2).min(64)
    };
    cx.parse_type(&format!("si{width}"))
}

/// PyTorch's `result_type` of the operands: tensors with dims first, then
/// rank-0 tensors, then wrapped Python numbers, each later group counting
/// only when its category (bool < int < float) is higher; a float number
/// promotes integer tensors to the default dtype f32.
pub fn promoted_element<'c>(
    cx: &LoweringCx<'c, '_>,
    operands: &[Value<'c, '_>],
    numbers: &[Scalar],
) -> Result<Type<'c>, Decline> {
    let mut groups: [Option<Type<'c>>; 3] = [None, None, None];
    for &v in operands {
        let (group, element) = match wrapped_number(cx, v) {
            Some(n) => (2, number_dtype(cx, n)?),
            None => {
                let ty = RankedTensorType::try_from(v.r#type())
                    .map_err(|_| format!("{} is not a ranked tensor", v.r#type()))?;
                (usize::from(dims(ty).is_empty()), ty.element())
            }
        };
        groups[group] = Some(match groups[group] {
            Some(t) => promote_pair(cx, t, element)?,
            None => element,
        });
    }
    for &n in numbers {
        let element = number_dtype(cx, n)?;
        groups[2] = Some(match groups[2] {
            Some(t) => promote_pair(cx, t, element)?,
            None => element,
        });
    }
    let mut result: Option<Type<'c>> = None;
    for (i, group) in groups.into_iter().enumerate() {
        let Some(t) = group else { continue };
        result = Some(match result {
            None => t,
            Some(r) if category(t) > category(r) => {
                if i == 2 && category(t) == 2 {
                    f32_type(cx)?
                } else {
                    t
                }
            }
            Some(r) => r,
        });
    }
    result.ok_or_else(|| "no operand to promote".to_string())
}

/// The dtype PyTorch gives a Python number on its own (int → int64, float
/// → float64 here; the default dtype is applied by [`promoted_element`]).
fn number_dtype<'c>(cx: &LoweringCx<'c, '_>, n: Scalar) -> Result<Type<'c>, Decline> {
    cx.parse_type(match n {
        Scalar::Int(_) => "si64",
        Scalar::Float(_) => "f64",
    })
}

// aten._to_copy.default(%x) {dtype = T} → coreai.cast %x to T  (or %x when the dtype is unchanged)
// aten.to.dtype(%x) {dtype = T}         → the same
//
// Layout, device and memory format do not change values, so they are
// accepted; a sparse layout is declined. Float → int truncates toward zero
// (coreai.cast does, like PyTorch); see [`convert`] for narrowing ints and
// bools.
fn to_copy<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    if let Ok(layout) = str_attr(cx, "layout") {
        if layout != "strided" {
            return Err(format!(
                "the layout '{layout}' has no coreai equivalent; only strided tensors convert"
            ));
        }
    }
    if cx.op().attribute("dtype").is_ok() {
        TypeAttribute::try_from(cx.attribute("dtype")?)
            .map_err(|_| "attribute 'dtype' is not a type".to_string())?;
    }
    let x = cx.operand(0)?;
    let to = cx.result_tensor(0)?.element();
    Ok(vec![convert(cx, x, to)?])
}

// aten.type_as.default(%x, %other) → coreai.cast %x to element(other)
fn type_as<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let x = cx.operand(0)?;
    let to = cx.result_tensor(0)?.element();
    Ok(vec![convert(cx, x, to)?])
}

/// `x` converted to `to` with PyTorch's value semantics:
/// - to bool: `x != 0` (NaN is true), as a comparison;
/// - integer to a narrower (or differently signed) integer: PyTorch keeps
///   the low bits (300 → int8 is 44) while coreai.cast saturates, so the low
///   bits are taken with `bitwise_and` in 64 bits and sign-extended with the
///   `(v ^ m) - m` identity before the (then exact) cast;
/// - everything else: `coreai.cast` (float → int truncates toward zero,
///   int → float rounds to nearest, f32 → f16 overflows to ±inf).
pub fn convert<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    to: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let from = element_type(x)?;
    if from == to {
        return Ok(x);
    }
    let shape = dims(
        RankedTensorType::try_from(x.r#type()).map_err(|_| "not a ranked tensor".to_string())?,
    );
    if is_bool(to) {
        let zero = number(cx, Scalar::Int(0), from)?;
        return cx.build_value(
            "coreai.decomposable.broadcasting_not_equal",
            &[x, zero],
            tensor_type(&shape, to),
            &[],
        );
    }
    let (tf, tt) = (from.to_string(), to.to_string());
    if category(from) == 2 && category(to) == 1 {
        // Truncate explicitly before the cast: coreai-core's compiler folds
        // cast(cast(x, int), float) into x, which would drop the truncation
        // of a float → int → float round trip; folded or not, trunc(x) is
        // then what the float side sees.
        let truncated = trunc_float(cx, x)?;
        return cast_to(cx, truncated, to);
    }
    if category(from) != 1 || category(to) != 1 || keeps_every_value(&tf, &tt) {
        return cast_to(cx, x, to);
    }
    if tf == "ui64" || int_bits(&tt) == 64 {
        return Err(format!(
            "converting {tf} to {tt} wraps in PyTorch; only wrapping conversions to integers narrower than 64 bits are supported"
        ));
    }
    let wide_type = cx.parse_type("si64")?;
    let wide = cast_to(cx, x, wide_type)?;
    let wide_ty = tensor_type(&shape, wide_type);
    let bits = int_bits(&tt);
    let mask = number(cx, Scalar::Int((1i64 << bits) - 1), wide_type)?;
    let mut low = cx.build_value(
        "coreai.decomposable.broadcasting_bitwise_and",
        &[wide, mask],
        wide_ty,
        &[],
    )?;
    if !tt.starts_with("ui") {
        let m = number(cx, Scalar::Int(1i64 << (bits - 1)), wide_type)?;
        let flipped = cx.build_value(
            "coreai.decomposable.broadcasting_bitwise_xor",
            &[low, m],
            wide_ty,
            &[],
        )?;
        low = cx.build_value(
            "coreai.decomposable.broadcasting_sub",
            &[flipped, m],
            wide_ty,
            &[],
        )?;
    }
    cast_to(cx, low, to)
}

/// Whether every value of the integer type `from` is a value of `to`.
fn keeps_every_value(from: &str, to: &str) -> bool {
    let (uf, ut) = (from.starts_with("ui"), to.starts_with("ui"));
    let (bf, bt) = (int_bits(from), int_bits(to));
    (uf == ut && bt >= bf) || (uf && !ut && bt > bf)
}

/// The width of an integer type name (`si32` → 32).
fn int_bits(name: &str) -> u32 {
    name.trim_start_matches(|c: char| c.is_alphabetic())
        .parse()
        .unwrap_or(64)
}

#[cfg(test)]
mod tests {
    use super::{int_bits, int_range, keeps_every_value};

    #[test]
    fn integer_ranges_and_widths() {
        assert_eq!(int_range("si8"), Some((-128, 127)));
        assert_eq!(int_range("ui8"), Some((0, 255)));
        assert_eq!(
            int_range("si64"),
            Some((i128::from(i64::MIN), i128::from(i64::MAX)))
        );
        assert_eq!(int_bits("ui16"), 16);
    }

    #[test]
    fn which_integer_conversions_need_pytorchs_wrap() {
        assert!(keeps_every_value("si32", "si64"));
        assert!(keeps_every_value("ui8", "si16"));
        assert!(keeps_every_value("ui8", "ui8"));
        assert!(!keeps_every_value("si64", "si8"), "narrowing");
        assert!(!keeps_every_value("si8", "ui16"), "negative values wrap");
        assert!(!keeps_every_value("ui8", "si8"), "200 wraps to -56");
    }
}
