//! softplus, mish and log-sigmoid: `log(1 + exp(z))` in its three coreai
//! spellings.
//!
//! fp16 range argument (all three): `exp(-|z|)` is in (0, 1], so
//! `1 + exp(-|z|)` is in (1, 2] and its log in (0, log 2]; `max(z, 0)` and
//! `min(z, 0)` are `z` or 0. No intermediate leaves the range of the result.
//! The naive forms overflow at `exp(z)`, z > 11.09 (conversion guide §9.1).
//!
//! Every rewrite computes log1p with a rounding correction, accurate for
//! small arguments and free of comparisons (see [`log1p_small`]). f32: the
//! rewritten forms are within a few ulp of the exact value, as good as or
//! better than the originals (log(1 + e^z) loses every digit for z < -17,
//! log(sigmoid(z)) for z < -88; tested against float64).
//!
//! PyTorch's softplus returns `z` where `beta · z > threshold`; its
//! lowering selects that with a comparison. With `beta = 1` and a threshold
//! of at least 16 the stable form already gives `z` there, bit for bit
//! (see [`softplus_threshold`]), and the select goes.

use super::pattern::*;
use coreai_ir::lowering::LoweringCx;
use coreai_ir::op::coreai;
use melior::ir::{operation::OperationLike, Value, ValueLike};

/// `exp(-|z|)`.
fn exp_minus_abs<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    z: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let zero = scalar(cx, 0.0, z)?;
    let neg = binary(cx, coreai::SUB, zero, unary(cx, coreai::ABS, z)?)?;
    unary(cx, coreai::EXP, neg)
}

/// The log1p of `e` for `e` in [0, 1], with a correction for the rounding
/// of `1 + e` instead of a select: `u = 1 + e;
/// log(u) - ((u - 1) - e) / u`. With `u = 1 + e + δ` (δ the rounding error
/// of the sum), `u - 1` is exact (Sterbenz, `u` in [1, 2]) and so is
/// `(u - 1) - e = δ` (both terms within a factor 2 of each other, or
/// `u - 1 = 0` and the difference is `-e`); `log(u) = log1p(e) + δ/u +
/// O(δ²)`, so the correction takes the rounding back out. At `u = 1` (e
/// below half an ulp of 1) it gives `0 - (0 - e)/1 = e`, which the
/// Goldberg form `where(u == 1, e, log(u)·e/(u - 1))` selects with a
/// comparison; this form has no comparison and no boolean (Neural Engine
/// ops: f16, int8 and int16 only). Within a few ulp of the exact value
/// (tested against float64).
fn log1p_small<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    e: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let one = scalar(cx, 1.0, e)?;
    let u = binary(cx, coreai::ADD, e, one)?;
    let log = unary(cx, coreai::LOG, u)?;
    let rounding = binary(cx, coreai::SUB, binary(cx, coreai::SUB, u, one)?, e)?;
    binary(
        cx,
        coreai::SUB,
        log,
        binary(cx, coreai::DIVIDE, rounding, u)?,
    )
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

/// Whether `v` is `max(z, 0) + log1p(exp(-|z|))` as [`log1p_exp`] builds it.
fn stable_softplus_of<'c: 'a, 'a>(v: Value<'c, 'a>, z: Value<'c, 'a>) -> bool {
    let Some(add) = defined_by(v, coreai::DECOMPOSABLE_BROADCASTING_ADD) else {
        return false;
    };
    let (Ok(positive), Ok(soft)) = (add.operand(0), add.operand(1)) else {
        return false;
    };
    let max_of_z =
        defined_by(positive, coreai::DECOMPOSABLE_BROADCASTING_MAXIMUM).is_some_and(|m| {
            m.operand(0).ok() == Some(z) && m.operand(1).is_ok_and(|c| is_splat(c, 0.0))
        });
    // log(u) - ((u - 1) - e) / u with u = e + 1, e = exp(0 - |z|).
    let log1p_of_exp_minus_abs = || -> Option<()> {
        let sub = defined_by(soft, coreai::DECOMPOSABLE_BROADCASTING_SUB)?;
        let log = defined_by(sub.operand(0).ok()?, coreai::LOG)?;
        let u = defined_by(log.operand(0).ok()?, coreai::DECOMPOSABLE_BROADCASTING_ADD)?;
        let e = defined_by(u.operand(0).ok()?, coreai::EXP)?;
        let neg = defined_by(e.operand(0).ok()?, coreai::DECOMPOSABLE_BROADCASTING_SUB)?;
        let abs = defined_by(neg.operand(1).ok()?, coreai::ABS)?;
        (abs.operand(0).ok()? == z).then_some(())
    };
    max_of_z && log1p_of_exp_minus_abs().is_some()
}

/// The smallest threshold above which `z + log1p(exp(-z))` rounds to `z`
/// in f32, f16 and bf16: `log1p(exp(-16)) < 1.2e-7`, under half an ulp of
/// 16 in f32 (9.5e-7) and a fortiori in f16 and bf16, and the ulp only
/// grows with `z`.
const EXACT_THRESHOLD: f64 = 16.0;

// where(z > t, z, max(z, 0) + log1p(exp(-|z|)))   (softplus, beta = 1, t ≥ 16)
//   → max(z, 0) + log1p(exp(-|z|))
// For z > t ≥ 16 the stable form is z + log1p(exp(-z)) with the second
// term below half an ulp of z: it rounds to z, what the select picks. NaN
// and z ≤ t take the stable form in both; z = +inf gives inf + log1p(0) =
// inf. Exact: the same value for every input. Declines: a threshold below
// 16 or not a splat constant, a select of anything else (beta ≠ 1 scales z
// first, and (β·z + ε)/β need not round to z).
pub fn softplus_threshold<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Rewritten<'c, 'a> {
    let root = cx.op();
    let (c, z, stable) = (arg(&root, 0)?, arg(&root, 1)?, arg(&root, 2)?);
    let greater = defined_by(c, coreai::DECOMPOSABLE_BROADCASTING_GREATER)
        .ok_or("the condition is not z > threshold")?;
    if greater.operand(0).ok() != Some(z) {
        return Err("the condition does not compare the selected value".into());
    }
    let t = splat(arg(&greater, 1)?).ok_or("the threshold is not a splat constant")?;
    if t < EXACT_THRESHOLD {
        return Err(format!(
            "threshold {t} (below {EXACT_THRESHOLD} the stable form need not round to z)"
        ));
    }
    if !stable_softplus_of(stable, z) {
        return Err("the other branch is not the stable softplus of z".into());
    }
    if stable.r#type() != cx.result_type(0)? {
        return Err("the select broadcasts".into());
    }
    Ok(vec![stable])
}
