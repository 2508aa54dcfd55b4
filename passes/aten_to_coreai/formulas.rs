//! Numeric formulations shared by the lowerings, each matching PyTorch's
//! kernel rather than the textbook identity: floor division
//! (`div_floor_floating`, not `floor(a / b)`), floor/trunc of floats that
//! keep ±inf where coreai's floor division gives NaN, `expm1`/`log1p`
//! without cancellation, and the ±inf test.

use super::promotion::constant_like;
use coreai_ir::emit::{arith, predicate, select, unary};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::schema::{element_type, is_float};
use melior::ir::Value;

/// Floor division in the operands' dtype.
///
/// Integers: `coreai.broadcasting_floor_divide` (it floors, like PyTorch).
/// Floats: PyTorch's `div_floor_floating`, not `floor(a / b)` (which
/// gives 10 for 1 // 0.1 where PyTorch and Python give 9):
///   b == 0 → a / b;  m = fmod(a, b);  d = (a - m) / b;
///   d -= 1 if m ≠ 0 and (b < 0) ≠ (m < 0);
///   d ≠ 0 → floor(d) (+1 if d - floor(d) > 0.5);  d == 0 → copysign(0, a / b).
pub fn floor_div<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    if !is_float(element_type(a)?) {
        return arith(cx, coreai::FLOOR_DIVIDE, a, b);
    }
    let zero = constant_like(cx, 0.0, a)?;
    let one = constant_like(cx, 1.0, a)?;
    let half = constant_like(cx, 0.5, a)?;
    let quotient = arith(cx, coreai::DIVIDE, a, b)?;
    let m = arith(cx, coreai::MODULO, a, b)?;
    let d = arith(cx, coreai::SUB, a, m)?;
    let d = arith(cx, coreai::DIVIDE, d, b)?;
    let m_nonzero = predicate(cx, coreai::NOT_EQUAL, m, zero)?;
    let m_neg = predicate(cx, coreai::GREATER, zero, m)?;
    let b_neg = predicate(cx, coreai::GREATER, zero, b)?;
    let signs_differ = predicate(cx, coreai::XOR, b_neg, m_neg)?;
    let adjust = predicate(cx, coreai::AND, m_nonzero, signs_differ)?;
    let d_minus = arith(cx, coreai::SUB, d, one)?;
    let d = select(cx, adjust, d_minus, d)?;
    let f = floor_float(cx, d)?;
    let frac = arith(cx, coreai::SUB, d, f)?;
    let round_up = predicate(cx, coreai::GREATER, frac, half)?;
    let f_plus = arith(cx, coreai::ADD, f, one)?;
    let f = select(cx, round_up, f_plus, f)?;
    // d == 0: a zero with the sign of a / b (0 · q keeps the sign when q ≠ 0).
    let d_zero = predicate(cx, coreai::EQUAL, d, zero)?;
    let signed_zero = arith(cx, coreai::MUL, zero, quotient)?;
    let signed_zero = select(cx, d_zero, signed_zero, f)?;
    let b_zero = predicate(cx, coreai::EQUAL, b, zero)?;
    select(cx, b_zero, quotient, signed_zero)
}

/// `floor(x)` for floats: `broadcasting_floor_divide(x, 1)`, except that
/// coreai gives NaN for ±inf there (PyTorch's floor keeps ±inf).
pub fn floor_float<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let one = constant_like(cx, 1.0, x)?;
    let f = arith(cx, coreai::FLOOR_DIVIDE, x, one)?;
    let lost = predicate(cx, coreai::NOT_EQUAL, f, f)?;
    select(cx, lost, x, f)
}

/// `trunc(x)` for floats: `floor(|x|)` with the sign of x, ±0 kept as
/// they are (`x < 0` is false for -0.0, whose truncation is -0.0):
/// `where(x < 0, -floor(|x|), where(x == 0, x, floor(|x|)))`.
pub fn trunc_float<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let zero = constant_like(cx, 0.0, x)?;
    let minus_one = constant_like(cx, -1.0, x)?;
    let magnitude = floor_float(cx, unary(cx, coreai::ABS, x)?)?;
    let negative = predicate(cx, coreai::GREATER, zero, x)?;
    let negated = arith(cx, coreai::MUL, magnitude, minus_one)?;
    let is_zero = predicate(cx, coreai::EQUAL, x, zero)?;
    let kept = select(cx, is_zero, x, magnitude)?;
    select(cx, negative, negated, kept)
}

/// `expm1(x)` by Kahan's formula (see `expm1`).
pub fn expm1_value<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let one = constant_like(cx, 1.0, x)?;
    let u = unary(cx, coreai::EXP, x)?;
    let um1 = arith(cx, coreai::SUB, u, one)?;
    let scaled = arith(cx, coreai::MUL, um1, x)?;
    let r = arith(cx, coreai::DIVIDE, scaled, unary(cx, coreai::LOG, u)?)?;
    let u_is_one = predicate(cx, coreai::EQUAL, u, one)?;
    let r = select(cx, u_is_one, x, r)?;
    // u = inf or u = 0: (u - 1) is already exact.
    let inf = constant_like(cx, f64::INFINITY, x)?;
    let zero = constant_like(cx, 0.0, x)?;
    let u_inf = predicate(cx, coreai::EQUAL, u, inf)?;
    let u_zero = predicate(cx, coreai::EQUAL, u, zero)?;
    let extreme = predicate(cx, coreai::OR, u_inf, u_zero)?;
    select(cx, extreme, um1, r)
}

/// `log1p(x)` by Goldberg's formula (see `log1p`).
pub fn log1p_value<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let one = constant_like(cx, 1.0, x)?;
    let inf = constant_like(cx, f64::INFINITY, x)?;
    let zero = constant_like(cx, 0.0, x)?;
    let u = arith(cx, coreai::ADD, x, one)?;
    let u_inf = predicate(cx, coreai::EQUAL, u, inf)?;
    let u_kept = select(cx, u_inf, inf, u)?;
    let ln = unary(cx, coreai::LOG, u)?;
    let scaled = arith(cx, coreai::MUL, ln, x)?;
    let r = arith(
        cx,
        coreai::DIVIDE,
        scaled,
        arith(cx, coreai::SUB, u_kept, one)?,
    )?;
    let u_is_one = predicate(cx, coreai::EQUAL, u, one)?;
    let r = select(cx, u_is_one, x, r)?;
    // u = inf: log(u) = inf; u = 0 (x = -1): log(u) = -inf; NaN stays NaN.
    let u_zero = predicate(cx, coreai::EQUAL, u, zero)?;
    let extreme = predicate(cx, coreai::OR, u_inf, u_zero)?;
    select(cx, extreme, ln, r)
}

/// `|x| == inf`.
pub fn is_inf<'c, 'a>(cx: &LoweringCx<'c, 'a>, x: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let inf = constant_like(cx, f64::INFINITY, x)?;
    predicate(cx, coreai::EQUAL, unary(cx, coreai::ABS, x)?, inf)
}
