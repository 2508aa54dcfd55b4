//! Arithmetic and cast identities, each exact for every value of its types
//! (IEEE 754: `x * 1`, `x + (-0.0)`, `x - (+0.0)` and `x / 1` return `x`
//! for every `x`, ±0, ±inf, subnormals and quiet NaNs with their payload
//! included; integers wrap the same way). Only where the result type is
//! `x`'s type (the constant does not broadcast `x` larger, no dtype
//! change).
//!
//! Never (they change values; regression tests keep them out):
//!   - `x + (+0.0)`: turns -0.0 into +0.0;
//!   - `floor_divide(x, 1)`: floors non-integral `x`;
//!   - a float → int → float cast pair: truncates;
//!   - any narrowing of an integer accumulator.

use super::{constant_attr, Options};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use melior::ir::{TypeLike, Value, ValueLike};
use mlir_sys::{MlirType, MlirValue};

/// Element kinds by the values they hold exactly.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Bool,
    Int {
        signed: bool,
        width: u32,
    },
    /// `digits`: significand bits (with the hidden one), `exp`: exponent bits.
    Float {
        digits: u32,
        exp: u32,
    },
}

fn element(ty: MlirType) -> Option<Kind> {
    let e = raw::element(ty)?;
    if let Some((width, signed)) = raw::int_kind(e) {
        return Some(if width == 1 {
            Kind::Bool
        } else {
            Kind::Int { signed, width }
        });
    }
    let (digits, exp) = match raw::float_kind(e)? {
        16 if raw::is_bf16(e) => (8, 8),
        16 => (11, 5),
        32 => (24, 8),
        64 => (53, 11),
        _ => return None,
    };
    Some(Kind::Float { digits, exp })
}

/// Whether every value of `from` converts to `to` and back unchanged.
fn widens(from: Kind, to: Kind) -> bool {
    match (from, to) {
        (Kind::Bool, _) => true,
        (
            Kind::Int {
                signed: s1,
                width: w1,
            },
            Kind::Int {
                signed: s2,
                width: w2,
            },
        ) => (s1 == s2 && w2 > w1) || (!s1 && s2 && w2 > w1),
        (Kind::Int { signed, width }, Kind::Float { digits, .. }) => {
            // Magnitudes up to 2^(width - signed) are exact with `digits` bits.
            width - u32::from(signed) <= digits
        }
        (
            Kind::Float {
                digits: d1,
                exp: e1,
            },
            Kind::Float {
                digits: d2,
                exp: e2,
            },
        ) => d2 > d1 && e2 >= e1,
        _ => false,
    }
}

/// The splat value of a constant dense float or integer tensor, as f64
/// (every f16/bf16/f32 and every integer the tests use is exact in f64;
/// the sign of zero is kept).
fn splat(value: MlirValue) -> Option<f64> {
    raw::splat_number(constant_attr(value)?)
}

/// `x` when `op(x, c)` (or, `commutes`, `op(c, x)`) has `x`'s type, the
/// same element type as `c`, and `c` is a splat accepted by `neutral`.
fn binary_identity<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    commutes: bool,
    neutral: impl Fn(Kind, f64) -> bool,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let result = cx.op().result(0).map_err(|_| "no result")?.r#type();
    let kind = element(result.to_raw()).ok_or("not a ranked int or float tensor")?;
    let orders: &[(usize, usize)] = if commutes {
        &[(0, 1), (1, 0)]
    } else {
        &[(0, 1)]
    };
    for &(xi, ci) in orders {
        let (x, c) = (cx.operand(xi)?, cx.operand(ci)?);
        if x.r#type() != result || element(c.r#type().to_raw()) != Some(kind) {
            continue;
        }
        if splat(c.to_raw()).is_some_and(|v| neutral(kind, v)) {
            return Ok(vec![x]);
        }
    }
    Err("no operand is a neutral constant of the result's type".into())
}

// x * 1 → x, 1 * x → x
pub fn mul_by_one<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    binary_identity(cx, true, |kind, v| kind != Kind::Bool && v == 1.0)
}

// x + (-0.0) → x, (-0.0) + x → x; integers: x + 0 → x
pub fn add_negative_zero<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    binary_identity(cx, true, |kind, v| match kind {
        Kind::Float { .. } => v == 0.0 && v.is_sign_negative(),
        Kind::Int { .. } => v == 0.0,
        Kind::Bool => false,
    })
}

// x - (+0.0) → x; integers: x - 0 → x
pub fn sub_zero<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    binary_identity(cx, false, |kind, v| match kind {
        Kind::Float { .. } => v == 0.0 && v.is_sign_positive(),
        Kind::Int { .. } => v == 0.0,
        Kind::Bool => false,
    })
}

// x / 1 → x (true division of floats; floor division is never touched)
pub fn div_by_one<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    binary_identity(cx, false, |kind, v| {
        matches!(kind, Kind::Float { .. }) && v == 1.0
    })
}

// cast(x : T) : T → x
pub fn cast_to_same_type<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let x = cx.operand(0)?;
    if x.r#type() != cx.op().result(0).map_err(|_| "no result")?.r#type() {
        return Err("the cast changes the type".into());
    }
    Ok(vec![x])
}

// cast(cast(x : A) : B) : A → x   when A → B is exact (widening)
pub fn widen_then_narrow<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let mid = cx.operand(0)?;
    let inner = super::defining_op(mid.to_raw()).ok_or("the operand is not an op result")?;
    if super::op_name(inner) != coreai::CAST {
        return Err("the operand is not a cast".into());
    }
    let x = cx.value(raw::operand(inner, 0));
    let result = cx.op().result(0).map_err(|_| "no result")?.r#type();
    if x.r#type() != result {
        return Err("the pair does not return to the original type".into());
    }
    let (from, to) = (element(x.r#type().to_raw()), element(mid.r#type().to_raw()));
    match (from, to) {
        (Some(a), Some(b)) if widens(a, b) => Ok(vec![x]),
        _ => Err("the first cast is not exact on every value (e.g. float → int truncates)".into()),
    }
}

// where(true, a, b) → a, where(false, a, b) → b
// (a splat constant condition; only where the chosen operand already has
// the result's type, so nothing broadcasts). Exact: the select returns the
// chosen operand's elements unchanged.
pub fn select_by_constant<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let condition =
        splat(cx.operand(0)?.to_raw()).ok_or("the condition is not a splat constant")?;
    let chosen = cx.operand(if condition != 0.0 { 1 } else { 2 })?;
    if chosen.r#type() != cx.result_type(0)? {
        return Err("the chosen operand broadcasts to the result".into());
    }
    Ok(vec![chosen])
}

#[cfg(test)]
mod tests {
    use super::*;

    const F16: Kind = Kind::Float { digits: 11, exp: 5 };
    const BF16: Kind = Kind::Float { digits: 8, exp: 8 };
    const F32: Kind = Kind::Float { digits: 24, exp: 8 };
    const SI32: Kind = Kind::Int {
        signed: true,
        width: 32,
    };
    const SI64: Kind = Kind::Int {
        signed: true,
        width: 64,
    };
    const UI8: Kind = Kind::Int {
        signed: false,
        width: 8,
    };

    #[test]
    fn widening_pairs_are_exact_and_narrowing_ones_are_not() {
        assert!(widens(F16, F32) && widens(BF16, F32) && widens(SI32, SI64) && widens(UI8, F16));
        assert!(
            !widens(F32, SI32),
            "float → int truncates (the §9.7 #6 miscompile)"
        );
        assert!(
            !widens(F16, BF16) && !widens(BF16, F16) && !widens(SI64, SI32) && !widens(SI32, F32)
        );
        assert!(
            !widens(
                SI32,
                Kind::Int {
                    signed: false,
                    width: 64
                }
            ),
            "negative values do not survive"
        );
    }
}
