//! softplus, mish and log-sigmoid: `log(1 + exp(z))` in its three coreai
//! spellings.
//!
//! fp16 range argument (all three): `exp(-|z|)` is in (0, 1], so
//! `1 + exp(-|z|)` is in (1, 2] and its log in (0, log 2]; `max(z, 0)` and
//! `min(z, 0)` are `z` or 0. No intermediate leaves the range of the result.
//! The naive forms overflow at `exp(z)`, z > 11.09 (conversion guide §9.1).
//!
//! Every rewrite uses the lowering's log1p form, accurate for small
//! arguments. f32: for z ≤ 0 the rewritten log1p(exp(z)) is bit-identical
//! (`exp(-|z|)` is `exp(z)` and adding `max(z, 0) = 0` is exact); elsewhere
//! the rewritten forms are within a few ulp of the exact value, as good as
//! or better than the originals (log(1 + e^z) loses every digit for
//! z < -17, log(sigmoid(z)) for z < -88; tested against float64).

use super::pattern::*;
use coreai_ir::lowering::LoweringCx;
use coreai_ir::op::coreai;
use melior::ir::{operation::OperationLike, Value};

/// `exp(-|z|)`.
fn exp_minus_abs<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    z: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let zero = scalar(cx, 0.0, z)?;
    let neg = binary(cx, coreai::SUB, zero, unary(cx, coreai::ABS, z)?)?;
    unary(cx, coreai::EXP, neg)
}

/// The log1p of `e` in the lowering's Goldberg form, for `e` in (0, 1]:
/// `u = e + 1; where(u == 1, e, log(u) · e / (u - 1))` (the lowering's
/// extra branches for u = inf and u = 0 cannot be taken there).
fn log1p_small<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    e: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let one = scalar(cx, 1.0, e)?;
    let u = binary(cx, coreai::ADD, e, one)?;
    let log = unary(cx, coreai::LOG, u)?;
    let ratio = binary(
        cx,
        coreai::DIVIDE,
        binary(cx, coreai::MUL, log, e)?,
        binary(cx, coreai::SUB, u, one)?,
    )?;
    select(cx, binary(cx, coreai::EQUAL, u, one)?, e, ratio)
}

/// `y` when `v` is the lowering's log1p form of `y`:
/// `where(u == inf or u == 0, log(u), where(u == 1, y, log(u)·y/(where(u == inf, inf, u) - 1)))`
/// with `u = y + 1`; returns `y`.
fn log1p_operand<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
    let outer = defined_by(v, coreai::DECOMPOSABLE_BROADCASTING_WHERE)?;
    let log = defined_by(outer.operand(1).ok()?, coreai::LOG)?;
    let u = log.operand(0).ok()?;
    let add = defined_by(u, coreai::DECOMPOSABLE_BROADCASTING_ADD)?;
    let (y, _) = with_constant(&add, |c| is_splat(c, 1.0))?;
    let or = defined_by(outer.operand(0).ok()?, coreai::DECOMPOSABLE_BROADCASTING_OR)?;
    let compares_u = |c: Value<'c, 'a>, k: f64| {
        defined_by(c, coreai::DECOMPOSABLE_BROADCASTING_EQUAL).is_some_and(|eq| {
            eq.operand(0).ok() == Some(u) && eq.operand(1).ok().is_some_and(|k2| is_splat(k2, k))
        })
    };
    let (c0, c1) = (or.operand(0).ok()?, or.operand(1).ok()?);
    if !(compares_u(c0, f64::INFINITY) && compares_u(c1, 0.0)) {
        return None;
    }
    let inner = defined_by(
        outer.operand(2).ok()?,
        coreai::DECOMPOSABLE_BROADCASTING_WHERE,
    )?;
    (compares_u(inner.operand(0).ok()?, 1.0) && inner.operand(1).ok()? == y).then_some(y)
}

// log1p(exp(z))  (the lowering's log1p form: softplus, mish, torch.log1p(torch.exp(z)))
//   → max(z, 0) + log1p(exp(-|z|))
pub fn log1p_exp<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Rewritten<'c, 'a> {
    let root = cx.op().result(0).map_err(|_| "no result".to_string())?;
    let y = log1p_operand(root.into()).ok_or("not the log1p form")?;
    let z = arg(
        &defined_by(y, coreai::EXP).ok_or("log1p of something other than exp")?,
        0,
    )?;
    if !is_float(z) {
        return Err("not a float tensor".into());
    }
    let positive = binary(cx, coreai::MAXIMUM, z, scalar(cx, 0.0, z)?)?;
    let soft = log1p_small(cx, exp_minus_abs(cx, z)?)?;
    Ok(vec![binary(cx, coreai::ADD, positive, soft)?])
}

/// `z` when `u` is `exp(z) + 1` (either operand order).
fn one_plus_exp<'c: 'a, 'a>(u: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
    let add = defined_by(u, coreai::DECOMPOSABLE_BROADCASTING_ADD)?;
    let (e, _) = with_constant(&add, |c| is_splat(c, 1.0))?;
    defined_by(e, coreai::EXP)?.operand(0).ok()
}

// log(1 + exp(z)) → max(z, 0) + log1p(exp(-|z|))
// (declines when the sum is also used by the log1p form, which log1p_exp rewrites whole)
pub fn log_one_plus_exp<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Rewritten<'c, 'a> {
    let u = arg(&cx.op(), 0)?;
    let z = one_plus_exp(u).ok_or("not log(1 + exp(z))")?;
    if use_count(u) != 1 {
        return Err("1 + exp(z) has other uses (the log1p form)".into());
    }
    if shape(u)? != shape(z)? || !is_float(z) {
        return Err("the constant 1 broadcasts exp(z) to a larger shape".into());
    }
    let positive = binary(cx, coreai::MAXIMUM, z, scalar(cx, 0.0, z)?)?;
    let soft = log1p_small(cx, exp_minus_abs(cx, z)?)?;
    Ok(vec![binary(cx, coreai::ADD, positive, soft)?])
}

// log(sigmoid(z)) → min(z, 0) - log1p(exp(-|z|))
// (sigmoid(z) underflows fp16 to 0 for z < -16.6, and its log to -inf)
pub fn log_sigmoid<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Rewritten<'c, 'a> {
    let s = defined_by(arg(&cx.op(), 0)?, coreai::SIGMOID).ok_or("not log(sigmoid(z))")?;
    let z = arg(&s, 0)?;
    if !is_float(z) {
        return Err("not a float tensor".into());
    }
    let negative = binary(cx, coreai::MINIMUM, z, scalar(cx, 0.0, z)?)?;
    let soft = log1p_small(cx, exp_minus_abs(cx, z)?)?;
    Ok(vec![binary(cx, coreai::SUB, negative, soft)?])
}
