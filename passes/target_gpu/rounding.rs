//! Rounding on the GPU delegate (conversion guide §9.7 #7, apple/coreai-torch
//! #10): the delegate executes `floor_divide(x, 1)` on floats as the
//! identity (the floor of `floor`, `ceil`, `trunc` and float `//` all reach
//! coreai as that op) and `coreai.round` with ties away from zero, where
//! PyTorch rounds ties to even. The guide reports `(2x) // 2` correct there.
//!
//! Both rewrites keep every input whose result is not a rounding of a
//! non-zero value in `(-2^p, 2^p)` as it is: `2^p` is the first magnitude
//! from which every float of the element type is an integer (f32: 2^23,
//! f16: 2^10, bf16: 2^7, f64: 2^52), so large values, ±0, ±inf and NaN
//! pass through `where` unchanged (no `2x` can overflow). Every op on the
//! other branch is exact: `2x` is a power-of-two scaling of a value below
//! 2^p, `(2x) / 2 = x` exactly, so `(2x) // 2 = floor(x)`; `|x| - floor(|x|)`
//! keeps a subset of `|x|`'s fraction bits; `f + 1` and `2 · (f // 2)` are
//! integers below 2^p.

use super::integral_from;
use crate::fp16_stabilize::pattern::splat;
use coreai_ir::emit::{arith, float_scalar, predicate, select, unary};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::schema::element_type;
use melior::ir::{Value, ValueLike};

/// The rounding operand `x` (operand 0) of the root and the `p` of its
/// element; declines integers and results `x` does not have the type of.
fn rounding_operand<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<(Value<'c, 'a>, i32), Decline> {
    let x = cx.operand(0)?;
    let element = element_type(x)?;
    let Some(p) = integral_from(element) else {
        return Err(format!(
            "the element type {element} is not a float (integer rounding is exact on the GPU)"
        ));
    };
    if x.r#type() != cx.result_type(0)? {
        return Err("the operand is broadcast to the result's shape".into());
    }
    Ok((x, p))
}

/// `0 < |x| < 2^p`: the inputs the rewrites round (false for ±0, NaN,
/// ±inf and large values, which are their own rounding).
fn roundable<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    magnitude: Value<'c, 'a>,
    p: i32,
) -> Result<Value<'c, 'a>, Decline> {
    let element = element_type(x)?;
    let bound = float_scalar(cx, 2f64.powi(p), element)?;
    let zero = float_scalar(cx, 0.0, element)?;
    let below = predicate(cx, coreai::GREATER, bound, magnitude)?;
    let nonzero = predicate(cx, coreai::GREATER, magnitude, zero)?;
    predicate(cx, coreai::AND, below, nonzero)
}

/// `floor(v)` as `(2v) // 2`, for `|v| < 2^p`.
fn floor_by_two<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let two = float_scalar(cx, 2.0, element_type(v)?)?;
    arith(
        cx,
        coreai::FLOOR_DIVIDE,
        arith(cx, coreai::MUL, v, two)?,
        two,
    )
}

// floor_divide(%x, 1)            (float %x; `floor`, `ceil`, `trunc`, float `//`)
//   → where(0 < |x| < 2^p, floor_divide(x · 2, 2), x)
// Declines: an integer element, a divisor that is not the constant 1 (other
// divisors are executed correctly), an `x` broadcast by the divisor. At ±inf
// the result is ±inf, as coreai documents `±inf // finite` (coreai-core's
// interpreter gives NaN there; `floor`'s lowering maps that NaN back to x).
pub fn floor_divide_by_one<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    if splat(cx.operand(1)?) != Some(1.0) {
        return Err(
            "the divisor is not the constant 1 (only x // 1 is executed as the identity)".into(),
        );
    }
    let (x, p) = rounding_operand(cx)?;
    let inside = roundable(cx, x, unary(cx, coreai::ABS, x)?, p)?;
    let floored = floor_by_two(cx, x)?;
    Ok(vec![select(cx, inside, floored, x)?])
}

// round(%x)                      (float %x)
//   → a = |x|;  f = floor_divide(a · 2, 2);  d = a - f
//     up = d > 0.5  or  (d == 0.5  and  2 · floor_divide(f, 2) ≠ f)
//     r = where(up, f + 1, f);  s = where(x < 0, r · -1, r)
//     where(0 < |x| < 2^p, s, x)
// Ties go to the even neighbour, as torch.round; the sign is x's (round of
// -0.3 is -0.0). Declines: an integer element.
pub fn round_half_even<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let (x, p) = rounding_operand(cx)?;
    let element = element_type(x)?;
    let scalar = |v: f64| float_scalar(cx, v, element);
    let a = unary(cx, coreai::ABS, x)?;
    let inside = roundable(cx, x, a, p)?;
    let f = floor_by_two(cx, a)?;
    let d = arith(cx, coreai::SUB, a, f)?;
    let half = scalar(0.5)?;
    let two = scalar(2.0)?;
    let even = arith(
        cx,
        coreai::MUL,
        arith(cx, coreai::FLOOR_DIVIDE, f, two)?,
        two,
    )?;
    let odd = predicate(cx, coreai::NOT_EQUAL, even, f)?;
    let tie = predicate(cx, coreai::EQUAL, d, half)?;
    let above = predicate(cx, coreai::GREATER, d, half)?;
    let up = predicate(cx, coreai::OR, above, predicate(cx, coreai::AND, tie, odd)?)?;
    let r = select(cx, up, arith(cx, coreai::ADD, f, scalar(1.0)?)?, f)?;
    let negative = predicate(cx, coreai::GREATER, scalar(0.0)?, x)?;
    let signed = select(cx, negative, arith(cx, coreai::MUL, r, scalar(-1.0)?)?, r)?;
    Ok(vec![select(cx, inside, signed, x)?])
}
