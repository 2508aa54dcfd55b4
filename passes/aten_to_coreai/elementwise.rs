//! Elementwise arithmetic and math ATen ops → coreai.
//!
//! Every lowering computes in the aten op's result dtype (PyTorch's type
//! promotion already decided it): tensor operands of another dtype get an
//! explicit `coreai.cast` first, Python numbers become constants of that
//! dtype (see `cast.rs`). Integer true division therefore divides in the
//! float result dtype (7 / 2 = 3.5), never in integers.
//!
//! Where coreai has no op (floor, trunc, sign, atan2, expm1 ...), the
//! decomposition follows PyTorch's CPU kernel closely enough to agree on
//! NaN, ±inf, -0.0 and exact-integer cases; each says so in its comment.

use super::formulas::{expm1_value, is_inf, log1p_value};
use super::formulas::{floor_div, floor_float, trunc_float};
use super::promotion::constant_like;
use super::promotion::number;
use super::promotion::{
    all_in, arg, attr_arg, binary_args, finish, float_operand, materialize, numbers,
    operand_in_result, opmath_element, widened_operand, Arg,
};
use coreai_ir::emit::cast_to;
use coreai_ir::emit::{arith, binary, predicate, select, unary};
use coreai_ir::lowering::{Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::{element_type, int_attr, str_attr};
use coreai_ir::schema::{f32_type, is_bool, is_float, is_half};
use melior::ir::{operation::OperationLike, r#type::ShapedTypeLike, Type, Value};

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

pub static LOWERINGS: super::Family = &[
    ("abs.default", abs),
    ("acos.default", |cx| math(cx, coreai::ACOS)),
    ("acosh.default", |cx| math(cx, coreai::ACOSH)),
    ("add.Scalar", |cx| add_sub(cx, coreai::ADD, false)),
    ("add.Tensor", |cx| add_sub(cx, coreai::ADD, false)),
    ("asin.default", |cx| math(cx, coreai::ASIN)),
    ("asinh.default", |cx| math(cx, coreai::ASINH)),
    ("atan.default", |cx| math(cx, coreai::ATAN)),
    ("atan2.default", atan2),
    ("atanh.default", |cx| math(cx, coreai::ATANH)),
    ("ceil.default", ceil),
    ("cos.default", |cx| math(cx, coreai::COS)),
    ("cosh.default", |cx| math(cx, coreai::COSH)),
    ("div.Scalar", div),
    ("div.Scalar_mode", div),
    ("div.Tensor", div),
    ("div.Tensor_mode", div),
    ("erf.default", |cx| math(cx, coreai::ERF)),
    ("exp.default", |cx| math(cx, coreai::EXP)),
    ("exp2.default", exp2),
    ("expm1.default", expm1),
    ("floor.default", floor),
    ("floor_divide.default", floor_divide),
    ("fmod.Scalar", fmod),
    ("fmod.Tensor", fmod),
    ("log.default", |cx| math(cx, coreai::LOG)),
    ("log10.default", |cx| log_base(cx, 10.0)),
    ("log1p.default", log1p),
    ("log2.default", |cx| log_base(cx, 2.0)),
    ("maximum.default", |cx| {
        same_dtype_binary(cx, coreai::MAXIMUM)
    }),
    ("minimum.default", |cx| {
        same_dtype_binary(cx, coreai::MINIMUM)
    }),
    ("mul.Scalar", mul),
    ("mul.Tensor", mul),
    ("neg.default", neg),
    ("pow.Scalar", |cx| pow(cx, PowForm::NumberBase)),
    ("pow.Tensor_Scalar", |cx| pow(cx, PowForm::NumberExponent)),
    ("pow.Tensor_Tensor", |cx| pow(cx, PowForm::Tensors)),
    ("reciprocal.default", reciprocal),
    ("remainder.Scalar", remainder),
    ("remainder.Tensor", remainder),
    ("round.decimals", round_decimals),
    ("round.default", round),
    ("rsqrt.default", |cx| math(cx, coreai::RSQRT)),
    ("rsub.Scalar", |cx| add_sub(cx, coreai::SUB, true)),
    ("sign.default", sign),
    ("sin.default", |cx| math(cx, coreai::SIN)),
    ("sinh.default", |cx| math(cx, coreai::SINH)),
    ("sqrt.default", |cx| math(cx, coreai::SQRT)),
    ("sub.Scalar", |cx| add_sub(cx, coreai::SUB, false)),
    ("sub.Tensor", |cx| add_sub(cx, coreai::SUB, false)),
    ("tan.default", |cx| math(cx, coreai::TAN)),
    ("tanh.default", |cx| math(cx, coreai::TANH)),
    ("true_divide.Tensor", div),
    ("trunc.default", trunc),
];

// ---------------------------------------------------------------------------
// Operands and builders shared by the elementwise families.

/// The result element type, declining bool arithmetic.
fn arithmetic_result<'c>(cx: &LoweringCx<'c, '_>) -> Result<Type<'c>, Decline> {
    let element = cx.result_tensor(0)?.element();
    if is_bool(element) {
        return Err(
            "arithmetic on bool tensors has no coreai lowering; convert to an integer dtype first"
                .into(),
        );
    }
    Ok(element)
}

// ---------------------------------------------------------------------------
// Arithmetic.

// aten.add.Tensor(%a, %b) {alpha = 1}  → coreai.decomposable.broadcasting_add %a, %b
// aten.add.Tensor(%a, %b) {alpha = k}  → broadcasting_add %a, (broadcasting_mul %b, k)
// aten.add.Scalar(%a) {other, alpha}   → the same with a constant `other`
// aten.sub.*                           → broadcasting_sub
// aten.rsub.Scalar(%a) {other, alpha}  → broadcasting_sub other, (alpha · %a)
//
// Numbers convert to the result dtype first (PyTorch's add/sub kernels do,
// measured on f16). With alpha ≠ 1 on f16/bf16 PyTorch's vectorized CPU loop
// computes `a + f16(alpha) · b` in f32 and rounds once, and so does this
// lowering (its scalar tail loop uses f32(alpha) instead, so eager results
// there can differ by an ulp); on f32 its CPU kernel may fuse the
// multiply-add (≤ 1 ulp apart from two ops).
fn add_sub<'c, 'a>(cx: &LoweringCx<'c, 'a>, op: &str, reversed: bool) -> Lowered<'c, 'a> {
    let result = arithmetic_result(cx)?;
    let [mut a, mut b] = binary_args(cx)?;
    if reversed {
        std::mem::swap(&mut a, &mut b);
    }
    let alpha = cx.scalar("alpha")?;
    let scaled = alpha != Scalar::Int(1) && alpha != Scalar::Float(1.0);
    let element = if scaled && is_half(result) {
        f32_type(cx)?
    } else {
        result
    };
    let a = cast_to(cx, materialize(cx, a, result)?, element)?;
    let mut b = cast_to(cx, materialize(cx, b, result)?, element)?;
    if scaled {
        // alpha rounded to the result dtype, as PyTorch converts it.
        let k = if alpha.is_exact_in(result) {
            number(cx, alpha, element)?
        } else {
            cast_to(cx, number(cx, alpha, result)?, element)?
        };
        b = arith(cx, coreai::MUL, b, k)?;
    }
    let r = arith(cx, op, a, b)?;
    finish(cx, r)
}

// aten.mul.Tensor(%a, %b) → coreai.decomposable.broadcasting_mul %a, %b
// aten.mul.Scalar(%a) {other} → the same with a constant
//
// On f16/bf16 with a number f16 cannot hold (0.1), PyTorch multiplies in
// f32 by f32(0.1) and rounds once; so does this lowering (casts around an
// f32 multiply).
// aten.mul.Tensor(%a, %b) : bool → coreai.decomposable.broadcasting_and
// (PyTorch's bool product is the conjunction; its tril/triu decompositions
// multiply masks)
fn mul<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    if is_bool(cx.result_tensor(0)?.element()) {
        return super::compare::logical(cx, coreai::AND);
    }
    let result = arithmetic_result(cx)?;
    let args = binary_args(cx)?;
    let element = opmath_element(cx, result, &args)?;
    let v = all_in(cx, &args, element)?;
    let r = arith(cx, coreai::MUL, v[0], v[1])?;
    finish(cx, r)
}

// aten.div.Tensor(%a, %b)               → broadcasting_divide (cast %a, R), (cast %b, R)
// aten.div.Scalar / true_divide.Tensor  → the same
// aten.div.Tensor_mode {rounding_mode = "trunc"} → trunc(a / b) on floats, broadcasting_divide on ints
// aten.div.Tensor_mode {rounding_mode = "floor"} → see floor_div
//
// True division casts integer operands to the float result dtype R BEFORE
// dividing (7 / 2 = 3.5). f16/bf16 results with a number f16 cannot hold
// divide in f32 (PyTorch's opmath); the rounding modes compute in f32 on
// f16/bf16, as PyTorch's kernels do (measured: floor division of the f32
// operands; trunc of the f32 quotient by a number, of the f16-rounded
// quotient of two tensors).
fn div<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = arithmetic_result(cx)?;
    let args = binary_args(cx)?;
    let mode = if cx.op().attribute("rounding_mode").is_ok() {
        Some(str_attr(cx, "rounding_mode")?)
    } else {
        None
    };
    let rounded = mode.is_some();
    let element = if rounded && is_half(result) {
        f32_type(cx)?
    } else {
        opmath_element(cx, result, &args)?
    };
    let v = all_in(cx, &args, element)?;
    let r = match mode.as_deref() {
        None => {
            if !is_float(result) {
                return Err(format!(
                    "true division must have a float result, not {result}"
                ));
            }
            arith(cx, coreai::DIVIDE, v[0], v[1])?
        }
        Some("trunc") if !is_float(element) => arith(cx, coreai::DIVIDE, v[0], v[1])?,
        Some("trunc") => {
            let mut q = arith(cx, coreai::DIVIDE, v[0], v[1])?;
            if is_half(result) && numbers(&args).is_empty() {
                // Two f16/bf16 tensors: PyTorch truncates the quotient
                // rounded to f16 (measured); a number divisor stays in f32.
                q = cast_to(cx, q, result)?;
            }
            trunc_float(cx, q)?
        }
        Some("floor") => floor_div(cx, v[0], v[1])?,
        Some(other) => {
            return Err(format!(
                "rounding_mode '{other}' is not one of None, 'trunc', 'floor'"
            ))
        }
    };
    finish(cx, r)
}

// aten.floor_divide.default(%a, %b) → div(a, b, rounding_mode = "floor")
fn floor_divide<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = arithmetic_result(cx)?;
    let args = binary_args(cx)?;
    let element = if is_half(result) {
        f32_type(cx)?
    } else {
        result
    };
    let v = all_in(cx, &args, element)?;
    let r = floor_div(cx, v[0], v[1])?;
    finish(cx, r)
}

// aten.remainder.Tensor(%a, %b) → m = broadcasting_modulo(a, b); where((m ≠ 0) ∧ ((m < 0) ≠ (b < 0)), m + b, m)
// aten.remainder.Scalar(%a) {other} → the same with a constant
//
// PyTorch's kernel, exact for floats (fmod is exact), where coreai-torch's
// `a - floor(a / b) · b` rounds.
fn remainder<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = arithmetic_result(cx)?;
    let args = binary_args(cx)?;
    let v = all_in(cx, &args, result)?;
    let (a, b) = (v[0], v[1]);
    let zero = constant_like(cx, 0.0, a)?;
    let m = arith(cx, coreai::MODULO, a, b)?;
    let m_nonzero = predicate(cx, coreai::NOT_EQUAL, m, zero)?;
    let m_neg = predicate(cx, coreai::GREATER, zero, m)?;
    let b_neg = predicate(cx, coreai::GREATER, zero, b)?;
    let signs_differ = predicate(cx, coreai::XOR, m_neg, b_neg)?;
    let adjust = predicate(cx, coreai::AND, m_nonzero, signs_differ)?;
    let shifted = arith(cx, coreai::ADD, m, b)?;
    let r = select(cx, adjust, shifted, m)?;
    finish(cx, r)
}

// aten.fmod.Tensor(%a, %b) → coreai.decomposable.broadcasting_modulo %a, %b  (C's fmod: sign of a)
// aten.fmod.Scalar(%a) {other} → the same with a constant
fn fmod<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = arithmetic_result(cx)?;
    let args = binary_args(cx)?;
    let v = all_in(cx, &args, result)?;
    let r = arith(cx, coreai::MODULO, v[0], v[1])?;
    finish(cx, r)
}

// aten.pow.Tensor_Tensor(%a, %b)          → coreai.decomposable.broadcasting_pow %a, %b
// aten.pow.Tensor_Scalar(%a) {exponent}   → broadcasting_pow %a, exponent  (or a special form below)
// aten.pow.Scalar(%e) {self_arg}          → broadcasting_pow self_arg, %e
//
// The number converts to the result dtype first (measured on f16). A number
// exponent takes PyTorch's special forms (see `pow_by_number`).
#[derive(Clone, Copy)]
enum PowForm {
    /// `pow.Tensor_Tensor(self, exponent)`.
    Tensors,
    /// `pow.Tensor_Scalar(self) {exponent}`.
    NumberExponent,
    /// `pow.Scalar(exponent) {self_arg}`.
    NumberBase,
}

fn pow<'c, 'a>(cx: &LoweringCx<'c, 'a>, form: PowForm) -> Lowered<'c, 'a> {
    let result = arithmetic_result(cx)?;
    let args = match form {
        PowForm::NumberExponent => [arg(cx, 0)?, attr_arg(cx, "exponent")?],
        PowForm::NumberBase => [attr_arg(cx, "self_arg")?, arg(cx, 0)?],
        PowForm::Tensors => [arg(cx, 0)?, arg(cx, 1)?],
    };
    if let (Arg::Tensor(x), Arg::Number(e)) = (args[0], args[1]) {
        if let Some(r) = pow_by_number(cx, x, e, result)? {
            return finish(cx, r);
        }
    }
    let v = all_in(cx, &args, result)?;
    let r = arith(cx, coreai::POW, v[0], v[1])?;
    finish(cx, r)
}

/// `x ** e` for a number `e`, as PyTorch's kernel special-cases it:
/// - integer results: exponentiation by squaring with (wrapping) multiplies
///   for e ≥ 1, as PyTorch wraps (coreai-core's interpreter traps on an
///   overflowing integer pow); a negative e declines (PyTorch raises);
/// - float results: 2 → x·x, 3 → x·x·x, -2 → 1 / (x·x), 0.5 → sqrt(x),
///   -0.5 → rsqrt(x), -1 → 1 / x (so sqrt(-0.0) is -0.0 and sqrt(-inf) NaN,
///   as in PyTorch); in f32 for f16/bf16, rounded once.
///
/// `None`: the general `broadcasting_pow`.
fn pow_by_number<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    e: Scalar,
    result: Type<'c>,
) -> Result<Option<Value<'c, 'a>>, Decline> {
    let exponent = match e {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    };
    if !is_float(result) {
        if exponent.fract() != 0.0 || exponent < 0.0 {
            return Err(format!(
                "integer tensors to the power {exponent} are not supported (PyTorch allows non-negative integer powers only)"
            ));
        }
        let mut k = exponent as u64;
        if k == 0 {
            return Ok(None);
        }
        let mut base = cast_to(cx, x, result)?;
        let mut acc: Option<Value<'c, 'a>> = None;
        loop {
            if k & 1 == 1 {
                acc = Some(match acc {
                    Some(a) => arith(cx, coreai::MUL, a, base)?,
                    None => base,
                });
            }
            k >>= 1;
            if k == 0 {
                return Ok(acc);
            }
            base = arith(cx, coreai::MUL, base, base)?;
        }
    }
    let element = if is_half(result) {
        f32_type(cx)?
    } else {
        result
    };
    let x = cast_to(cx, x, element)?;
    let square = |x| arith(cx, coreai::MUL, x, x);
    let inverse = |v| -> Result<Value<'c, 'a>, Decline> {
        let one = constant_like(cx, 1.0, v)?;
        arith(cx, coreai::DIVIDE, one, v)
    };
    let r = if exponent == 2.0 {
        square(x)?
    } else if exponent == 3.0 {
        arith(cx, coreai::MUL, square(x)?, x)?
    } else if exponent == -2.0 {
        inverse(square(x)?)?
    } else if exponent == 0.5 {
        unary(cx, coreai::SQRT, x)?
    } else if exponent == -0.5 {
        unary(cx, coreai::RSQRT, x)?
    } else if exponent == -1.0 {
        inverse(x)?
    } else {
        return Ok(None);
    };
    Ok(Some(r))
}

// aten.maximum.default(%a, %b) → coreai.decomposable.broadcasting_maximum %a, %b  (NaN propagates)
// aten.minimum.default(%a, %b) → coreai.decomposable.broadcasting_minimum %a, %b
fn same_dtype_binary<'c, 'a>(cx: &LoweringCx<'c, 'a>, op: &str) -> Lowered<'c, 'a> {
    let result = cx.result_tensor(0)?.element();
    let args = [arg(cx, 0)?, arg(cx, 1)?];
    let v = all_in(cx, &args, result)?;
    let r = binary(cx, op, v[0], v[1], result)?;
    finish(cx, r)
}

// aten.atan2.default(%y, %x) → atan(y / x) with quadrant, zero and infinity fixes:
//   r = atan(y / x) + (x < 0 or x = -0.0 ? (y < 0 or y = -0.0 ? -π : π) : 0)
//   x = ±0 and y = ±0 → (x is -0.0 ? ±π : ±0)  (the sign of y)
//   x = ±inf and y = ±inf → ±π/4 or ±3π/4
// NaN in either operand gives NaN (every comparison with NaN is false).
fn atan2<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    use std::f64::consts::{FRAC_PI_4, PI};
    let result = arithmetic_result(cx)?;
    if !is_float(result) {
        return Err(format!("atan2 must have a float result, not {result}"));
    }
    // f16/bf16 compute in f32 and round once, like PyTorch.
    let element = if is_half(result) {
        f32_type(cx)?
    } else {
        result
    };
    let v = all_in(cx, &[arg(cx, 0)?, arg(cx, 1)?], element)?;
    let (y, x) = (v[0], v[1]);
    let zero = constant_like(cx, 0.0, x)?;
    let pi = constant_like(cx, PI, x)?;
    let minus_pi = constant_like(cx, -PI, x)?;
    let y_neg = sign_bit(cx, y)?;
    let x_neg = sign_bit(cx, x)?;
    let base = unary(cx, coreai::ATAN, arith(cx, coreai::DIVIDE, y, x)?)?;
    let turn = select(cx, y_neg, minus_pi, pi)?;
    let turned = arith(cx, coreai::ADD, base, turn)?;
    let r = select(cx, x_neg, turned, base)?;
    // Both zero: 0/0 is NaN above.
    let y_zero = predicate(cx, coreai::EQUAL, y, zero)?;
    let x_zero = predicate(cx, coreai::EQUAL, x, zero)?;
    let both_zero = predicate(cx, coreai::AND, y_zero, x_zero)?;
    let zero_case = select(cx, x_neg, turn, y)?;
    let r = select(cx, both_zero, zero_case, r)?;
    // Both infinite: inf/inf is NaN above.
    let y_inf = is_inf(cx, y)?;
    let x_inf = is_inf(cx, x)?;
    let both_inf = predicate(cx, coreai::AND, y_inf, x_inf)?;
    let quarter = constant_like(cx, FRAC_PI_4, x)?;
    let three_quarters = constant_like(cx, 3.0 * FRAC_PI_4, x)?;
    let magnitude = select(cx, x_neg, three_quarters, quarter)?;
    let minus_one = constant_like(cx, -1.0, x)?;
    let negated = arith(cx, coreai::MUL, magnitude, minus_one)?;
    let inf_case = select(cx, y_neg, negated, magnitude)?;
    let r = select(cx, both_inf, inf_case, r)?;
    finish(cx, r)
}

/// `x < 0 or x is -0.0` (false for NaN): `1 / -0.0` is -inf.
fn sign_bit<'c, 'a>(cx: &LoweringCx<'c, 'a>, x: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let zero = constant_like(cx, 0.0, x)?;
    let one = constant_like(cx, 1.0, x)?;
    let negative = predicate(cx, coreai::GREATER, zero, x)?;
    let inverse = arith(cx, coreai::DIVIDE, one, x)?;
    let negative_zero = predicate(cx, coreai::GREATER, zero, inverse)?;
    predicate(cx, coreai::OR, negative, negative_zero)
}

// ---------------------------------------------------------------------------
// Unary ops.

// aten.exp.default(%x) → coreai.exp %x   (likewise log, sqrt, rsqrt, sin,
// cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, erf);
// an integer operand is cast to the float result dtype first.
fn math<'c, 'a>(cx: &LoweringCx<'c, 'a>, op: &str) -> Lowered<'c, 'a> {
    let x = float_operand(cx)?;
    Ok(vec![unary(cx, op, x)?])
}

// aten.abs.default(%x) → coreai.abs %x
fn abs<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    arithmetic_result(cx)?;
    let x = operand_in_result(cx)?;
    Ok(vec![unary(cx, coreai::ABS, x)?])
}

// aten.neg.default(%x) → coreai.decomposable.broadcasting_mul %x, -1  (exact; -0.0 for 0.0; ints wrap)
fn neg<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    arithmetic_result(cx)?;
    let x = operand_in_result(cx)?;
    let minus_one = constant_like(cx, -1.0, x)?;
    Ok(vec![arith(cx, coreai::MUL, x, minus_one)?])
}

// aten.reciprocal.default(%x) → coreai.decomposable.broadcasting_divide 1, %x
fn reciprocal<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = float_operand(cx)?;
    let one = constant_like(cx, 1.0, x)?;
    Ok(vec![arith(cx, coreai::DIVIDE, one, x)?])
}

// aten.exp2.default(%x) → coreai.decomposable.broadcasting_pow 2, %x
fn exp2<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = float_operand(cx)?;
    let two = constant_like(cx, 2.0, x)?;
    Ok(vec![arith(cx, coreai::POW, two, x)?])
}

// aten.log2.default(%x)  → coreai.decomposable.broadcasting_divide (coreai.log %x), ln 2
// aten.log10.default(%x) → the same with ln 10
fn log_base<'c, 'a>(cx: &LoweringCx<'c, 'a>, base: f64) -> Lowered<'c, 'a> {
    let x = widened_operand(cx)?;
    let ln_base = constant_like(cx, base.ln(), x)?;
    let ln = unary(cx, coreai::LOG, x)?;
    let r = arith(cx, coreai::DIVIDE, ln, ln_base)?;
    finish(cx, r)
}

// aten.expm1.default(%x) → u = exp(x); where(u == 1, x, (u - 1) · x / log(u)), u = inf → inf, u = 0 → -1
//
// Kahan's formula: accurate to a few ulp for tiny x, where exp(x) - 1
// (coreai-torch's form) loses every digit (expm1(1e-7) would be 1.19e-7).
fn expm1<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = widened_operand(cx)?;
    let r = expm1_value(cx, x)?;
    finish(cx, r)
}

// aten.log1p.default(%x) → u = 1 + x; where(u == 1, x, log(u) · x / (u - 1)), u = inf or 0 → log(u)
//
// Goldberg's formula (accurate to a few ulp for tiny x, where log(1 + x)
// loses every digit). coreai-core's compiler rewrites (x + 1) - 1 to x,
// which would turn this back into log(1 + x); the u - 1 therefore reads u
// through `where(u == inf, inf, u)`, the same value, which it does not fold.
fn log1p<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = widened_operand(cx)?;
    let r = log1p_value(cx, x)?;
    finish(cx, r)
}

// aten.sign.default(%x) → cast(x > 0) - cast(0 > x)   (0 for ±0 and NaN, as PyTorch)
fn sign<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = cx.result_tensor(0)?.element();
    let x = operand_in_result(cx)?;
    if is_bool(result) {
        return Ok(vec![x]);
    }
    let zero = constant_like(cx, 0.0, x)?;
    let positive = cast_to(cx, predicate(cx, coreai::GREATER, x, zero)?, result)?;
    let negative = cast_to(cx, predicate(cx, coreai::GREATER, zero, x)?, result)?;
    Ok(vec![arith(cx, coreai::SUB, positive, negative)?])
}

/// The operand of a rounding op, or `None` when it is an integer (rounding
/// is the identity there).
fn rounding_operand<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Option<Value<'c, 'a>>, Decline> {
    let x = operand_in_result(cx)?;
    Ok(is_float(element_type(x)?).then_some(x))
}

// aten.floor.default(%x) → where(isnan(f), x, f), f = broadcasting_floor_divide(x, 1)  (ints: %x)
fn floor<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    match rounding_operand(cx)? {
        Some(x) => Ok(vec![floor_float(cx, x)?]),
        None => Ok(vec![operand_in_result(cx)?]),
    }
}

// aten.ceil.default(%x) → -floor(-x)  (ints: %x)
fn ceil<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let Some(x) = rounding_operand(cx)? else {
        return Ok(vec![operand_in_result(cx)?]);
    };
    let minus_one = constant_like(cx, -1.0, x)?;
    let f = floor_float(cx, arith(cx, coreai::MUL, x, minus_one)?)?;
    Ok(vec![arith(cx, coreai::MUL, f, minus_one)?])
}

// aten.trunc.default(%x) → where(x < 0, -floor(|x|), where(x == 0, x, floor(|x|)))  (ints: %x)
fn trunc<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    match rounding_operand(cx)? {
        Some(x) => Ok(vec![trunc_float(cx, x)?]),
        None => Ok(vec![operand_in_result(cx)?]),
    }
}

// aten.round.default(%x) → coreai.round %x  (half to even, as torch.round; ints: %x)
fn round<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    match rounding_operand(cx)? {
        Some(x) => Ok(vec![unary(cx, coreai::ROUND, x)?]),
        None => Ok(vec![operand_in_result(cx)?]),
    }
}

// aten.round.decimals(%x) {decimals = d} → round(x · 10^d) / 10^d      (d ≥ 0)
//                                         → round(x / 10^-d) · 10^-d   (d < 0)
// as PyTorch's kernel computes it; f16/bf16 compute in f32 like it.
fn round_decimals<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let decimals = int_attr(cx, "decimals")?;
    let Some(x) = rounding_operand(cx)? else {
        return Ok(vec![operand_in_result(cx)?]);
    };
    let result = element_type(x)?;
    let x = if is_half(result) {
        cast_to(cx, x, f32_type(cx)?)?
    } else {
        x
    };
    let scale = constant_like(cx, 10f64.powi(decimals.unsigned_abs() as i32), x)?;
    let (there, back) = if decimals >= 0 {
        (coreai::MUL, coreai::DIVIDE)
    } else {
        (coreai::DIVIDE, coreai::MUL)
    };
    let r = unary(cx, coreai::ROUND, arith(cx, there, x, scale)?)?;
    let r = arith(cx, back, r, scale)?;
    finish(cx, r)
}
