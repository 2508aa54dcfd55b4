//! Comparisons, logical and bitwise ops, where → coreai.
//!
//! coreai compares with `equal`, `not_equal` and `greater` only. `ge` and
//! `le` are `greater ∨ equal`, never `¬(b > a)` (coreai-torch's form, which
//! is true for NaN where PyTorch says false). Operands are promoted with
//! PyTorch's rules first (the result, `i1`, does not tell the dtype), and a
//! Python number is converted to that dtype (PyTorch compares an f16 tensor
//! with `f16(0.1)`, measured).

use super::formulas::is_inf;
use super::promotion::{arg, binary_args, finish, materialize, numbers, Arg};
use super::promotion::{number, promoted_element};
use coreai_ir::emit::{arith, binary, predicate, select, unary};
use coreai_ir::lowering::{type_text, Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::element_type;
use coreai_ir::schema::{is_bool, is_float};
use melior::ir::{r#type::ShapedTypeLike, Type, Value};

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

pub static LOWERINGS: super::Family = &[
    ("__lshift__.Scalar", lshift),
    ("bitwise_and.Scalar", |cx| bitwise(cx, coreai::BITWISE_AND)),
    ("bitwise_and.Tensor", |cx| bitwise(cx, coreai::BITWISE_AND)),
    ("bitwise_not.default", bitwise_not),
    ("bitwise_or.Scalar", |cx| bitwise(cx, coreai::BITWISE_OR)),
    ("bitwise_or.Tensor", |cx| bitwise(cx, coreai::BITWISE_OR)),
    ("bitwise_xor.Scalar", |cx| bitwise(cx, coreai::BITWISE_XOR)),
    ("bitwise_xor.Tensor", |cx| bitwise(cx, coreai::BITWISE_XOR)),
    ("eq.Scalar", |cx| compare(cx, Cmp::Eq)),
    ("eq.Tensor", |cx| compare(cx, Cmp::Eq)),
    ("ge.Scalar", |cx| compare(cx, Cmp::Ge)),
    ("ge.Tensor", |cx| compare(cx, Cmp::Ge)),
    ("gt.Scalar", |cx| compare(cx, Cmp::Gt)),
    ("gt.Tensor", |cx| compare(cx, Cmp::Gt)),
    ("isinf.default", isinf),
    ("isnan.default", isnan),
    ("le.Scalar", |cx| compare(cx, Cmp::Le)),
    ("le.Tensor", |cx| compare(cx, Cmp::Le)),
    ("logical_and.default", |cx| logical(cx, coreai::AND)),
    ("logical_not.default", logical_not),
    ("logical_or.default", |cx| logical(cx, coreai::OR)),
    ("logical_xor.default", |cx| logical(cx, coreai::XOR)),
    ("lt.Scalar", |cx| compare(cx, Cmp::Lt)),
    ("lt.Tensor", |cx| compare(cx, Cmp::Lt)),
    ("ne.Scalar", |cx| compare(cx, Cmp::Ne)),
    ("ne.Tensor", |cx| compare(cx, Cmp::Ne)),
    ("where.self", where_self),
];

#[derive(Clone, Copy)]
enum Cmp {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
}

/// The dtype PyTorch compares (or combines) `args` in.
fn promoted<'c>(cx: &LoweringCx<'c, '_>, args: &[Arg<'c, '_>]) -> Result<Type<'c>, Decline> {
    let tensors: Vec<Value<'c, '_>> = args
        .iter()
        .filter_map(|a| match a {
            Arg::Tensor(v) => Some(*v),
            Arg::Number(_) => None,
        })
        .collect();
    promoted_element(cx, &tensors, &numbers(args))
}

// aten.eq.Tensor(%a, %b) → coreai.decomposable.broadcasting_equal %a, %b
// aten.ne.*              → broadcasting_not_equal
// aten.gt.*              → broadcasting_greater %a, %b
// aten.lt.*              → broadcasting_greater %b, %a
// aten.ge.*              → broadcasting_or (broadcasting_greater %a, %b), (broadcasting_equal %a, %b)
// aten.le.*              → broadcasting_or (broadcasting_greater %b, %a), (broadcasting_equal %a, %b)
// (.Scalar: `other` is a constant of the promoted dtype)
fn compare<'c, 'a>(cx: &LoweringCx<'c, 'a>, cmp: Cmp) -> Lowered<'c, 'a> {
    let args = binary_args(cx)?;
    let mut element = promoted(cx, &args)?;
    if is_bool(element) && !matches!(cmp, Cmp::Eq | Cmp::Ne) {
        // Ordering bools: false < true, as unsigned bytes.
        element = cx.parse_type("ui8")?;
    }
    let a = materialize(cx, args[0], element)?;
    let b = materialize(cx, args[1], element)?;
    let r = match cmp {
        Cmp::Eq => predicate(cx, coreai::EQUAL, a, b)?,
        Cmp::Ne => predicate(cx, coreai::NOT_EQUAL, a, b)?,
        Cmp::Gt => predicate(cx, coreai::GREATER, a, b)?,
        Cmp::Lt => predicate(cx, coreai::GREATER, b, a)?,
        Cmp::Ge | Cmp::Le => {
            let (x, y) = if matches!(cmp, Cmp::Ge) {
                (a, b)
            } else {
                (b, a)
            };
            let greater = predicate(cx, coreai::GREATER, x, y)?;
            let equal = predicate(cx, coreai::EQUAL, a, b)?;
            predicate(cx, coreai::OR, greater, equal)?
        }
    };
    finish(cx, r)
}

/// `x` as a bool tensor: itself, or `x != 0` (NaN is true, as in PyTorch).
fn truth<'c, 'a>(cx: &LoweringCx<'c, 'a>, x: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let element = element_type(x)?;
    if is_bool(element) {
        return Ok(x);
    }
    let zero = number(cx, Scalar::Int(0), element)?;
    predicate(cx, coreai::NOT_EQUAL, x, zero)
}

/// Operand `index` as a tensor (a wrapped number becomes a constant of its
/// own dtype, i64 or f64 narrowed to f32).
fn tensor_operand<'c, 'a>(cx: &LoweringCx<'c, 'a>, index: usize) -> Result<Value<'c, 'a>, Decline> {
    match arg(cx, index)? {
        Arg::Tensor(v) => Ok(v),
        a @ Arg::Number(n) => {
            let element = match n {
                Scalar::Int(_) => cx.parse_type("si64")?,
                Scalar::Float(_) => cx.parse_type("f32")?,
            };
            materialize(cx, a, element)
        }
    }
}

// aten.logical_not.default(%x) → coreai.not %x               (bool x)
//                              → broadcasting_equal %x, 0     (other dtypes)
fn logical_not<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = tensor_operand(cx, 0)?;
    let element = element_type(x)?;
    let r = if is_bool(element) {
        unary(cx, coreai::NOT, x)?
    } else {
        let zero = number(cx, Scalar::Int(0), element)?;
        predicate(cx, coreai::EQUAL, x, zero)?
    };
    finish(cx, r)
}

// aten.logical_and.default(%a, %b) → coreai.decomposable.broadcasting_and (a ≠ 0), (b ≠ 0)
// aten.logical_or / logical_xor    → broadcasting_or / broadcasting_xor
pub(super) fn logical<'c, 'a>(cx: &LoweringCx<'c, 'a>, op: &str) -> Lowered<'c, 'a> {
    let a = truth(cx, tensor_operand(cx, 0)?)?;
    let b = truth(cx, tensor_operand(cx, 1)?)?;
    let r = predicate(cx, op, a, b)?;
    finish(cx, r)
}

/// The integer (or bool) result element of a bitwise op.
fn bitwise_result<'c>(cx: &LoweringCx<'c, '_>) -> Result<Type<'c>, Decline> {
    let element = cx.result_tensor(0)?.element();
    if is_float(element) {
        return Err(format!(
            "bitwise ops need integer or bool tensors, not {element}"
        ));
    }
    Ok(element)
}

// aten.bitwise_and.Tensor(%a, %b) → coreai.decomposable.broadcasting_bitwise_and %a, %b
// aten.bitwise_or / bitwise_xor   → broadcasting_bitwise_or / broadcasting_bitwise_xor
// (.Scalar: `other` is a constant of the result dtype)
fn bitwise<'c, 'a>(cx: &LoweringCx<'c, 'a>, op: &str) -> Lowered<'c, 'a> {
    let element = bitwise_result(cx)?;
    let args = binary_args(cx)?;
    let a = materialize(cx, args[0], element)?;
    let b = materialize(cx, args[1], element)?;
    Ok(vec![binary(cx, op, a, b, element)?])
}

/// The integer with every bit of `element` set (-1, or 2^n - 1 unsigned).
fn all_ones(element: Type<'_>) -> Result<Scalar, Decline> {
    let text = type_text(element);
    match text.strip_prefix("ui").map(str::parse::<u32>) {
        Some(Ok(bits)) if bits < 64 => Ok(Scalar::Int((1i64 << bits) - 1)),
        Some(_) => Err(format!("bitwise_not of {text} is not supported")),
        None => Ok(Scalar::Int(-1)),
    }
}

// aten.bitwise_not.default(%x) → coreai.not %x                              (bool)
//                              → broadcasting_bitwise_xor %x, <all ones>    (integers: exact, unlike
//                                coreai-torch's -(x + 1) through f32)
fn bitwise_not<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let element = bitwise_result(cx)?;
    let x = materialize(cx, arg(cx, 0)?, element)?;
    if is_bool(element) {
        return Ok(vec![unary(cx, coreai::NOT, x)?]);
    }
    let ones = number(cx, all_ones(element)?, element)?;
    Ok(vec![binary(cx, coreai::BITWISE_XOR, x, ones, element)?])
}

// aten.__lshift__.Scalar(%x) {other = k} → coreai.decomposable.broadcasting_mul %x, 2^k  (wrapping)
//
// coreai has no shift; x << k is x · 2^k modulo 2^n (coreai's integer mul
// wraps), and 0 when k is negative or ≥ n, as PyTorch's kernel returns.
fn lshift<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let element = bitwise_result(cx)?;
    let text = type_text(element);
    let bits: u32 = text
        .trim_start_matches(|c: char| c.is_alphabetic())
        .parse()
        .map_err(|_| format!("cannot shift a tensor of {text}"))?;
    let Scalar::Int(k) = cx.scalar("other")? else {
        return Err("the shift amount must be an integer".into());
    };
    let x = materialize(cx, arg(cx, 0)?, element)?;
    let factor = if k < 0 || k >= i64::from(bits) {
        0
    } else if text.starts_with("ui") && k == 63 {
        return Err("shifting a uint64 by 63 is not supported".into());
    } else {
        // 2^k as an n-bit two's complement value (2^(n-1) is the minimum).
        let v = 1i128 << k;
        let half = 1i128 << (bits - 1);
        (if !text.starts_with("ui") && v >= half {
            v - 2 * half
        } else {
            v
        }) as i64
    };
    let factor = number(cx, Scalar::Int(factor), element)?;
    Ok(vec![arith(cx, coreai::MUL, x, factor)?])
}

// aten.isnan.default(%x) → coreai.decomposable.broadcasting_not_equal %x, %x
fn isnan<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = tensor_operand(cx, 0)?;
    Ok(vec![predicate(cx, coreai::NOT_EQUAL, x, x)?])
}

// aten.isinf.default(%x) → coreai.decomposable.broadcasting_equal (coreai.abs %x), inf
// (integers are never infinite: x ≠ x)
fn isinf<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = tensor_operand(cx, 0)?;
    if !is_float(element_type(x)?) {
        return Ok(vec![predicate(cx, coreai::NOT_EQUAL, x, x)?]);
    }
    Ok(vec![is_inf(cx, x)?])
}

// aten.where.self(%c, %a, %b) → coreai.decomposable.broadcasting_where %c, %a, %b
// (%a and %b in the result dtype; a non-bool condition becomes c ≠ 0)
fn where_self<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = cx.result_tensor(0)?.element();
    let cond = truth(cx, tensor_operand(cx, 0)?)?;
    let a = materialize(cx, arg(cx, 1)?, result)?;
    let b = materialize(cx, arg(cx, 2)?, result)?;
    Ok(vec![select(cx, cond, a, b)?])
}
