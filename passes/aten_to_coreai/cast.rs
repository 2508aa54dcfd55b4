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

use super::formulas::trunc_float;
use super::promotion::{category, number};
use coreai_ir::emit::broadcasting;
use coreai_ir::emit::cast_to;
use coreai_ir::lowering::{Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::is_bool;
use coreai_ir::schema::{dims, element_type, str_attr, tensor_type};
use melior::ir::{
    attribute::TypeAttribute,
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike},
    Type, Value, ValueLike,
};

pub static LOWERINGS: super::Family = &[
    ("_to_copy.default", to_copy),
    ("to.dtype", to_copy),
    ("to.dtype_layout", to_copy),
    ("to.device", to_copy),
    ("type_as.default", type_as),
];

// aten._to_copy.default(%x) {dtype = T} → coreai.cast %x to T  (or %x when the dtype is unchanged)
// aten.to.dtype(%x) {dtype = T}         → the same
// aten.to.dtype_layout, aten.to.device  → the same (torch.export's
//   training IR keeps these; the result type carries the dtype)
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
        return broadcasting(cx, coreai::NOT_EQUAL, x, zero, tensor_type(&shape, to));
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
    let mut low = broadcasting(cx, coreai::BITWISE_AND, wide, mask, wide_ty)?;
    if !tt.starts_with("ui") {
        let m = number(cx, Scalar::Int(1i64 << (bits - 1)), wide_type)?;
        let flipped = broadcasting(cx, coreai::BITWISE_XOR, low, m, wide_ty)?;
        low = broadcasting(cx, coreai::SUB, flipped, m, wide_ty)?;
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
    use super::super::promotion::int_range;
    use super::{int_bits, keeps_every_value};

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
