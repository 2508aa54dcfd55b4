//! logsumexp and softmax written without the max shift (by hand, or in
//! attention: `exp(s) / sum(exp(s))`).
//!
//! fp16 range argument: with `m` the max over the reduced axes,
//! `exp(z - m)` is in [0, 1] and the sum of n of them in [1, n] (the max's
//! own term is 1), so neither the exp, the sum nor its log leaves the range
//! for n ≤ 65504; the unshifted exp overflows at z > 11.09 (7.63 for a
//! logsumexp over a row, conversion guide §9.1).
//!
//! f32: `log Σ e^z = m + log Σ e^(z-m)` and `e^z / Σ e^z = e^(z-m) / Σ e^(z-m)`
//! exactly; rounded, the two differ by a few ulp (tested against float64).
//! `z - m` is exact when it is small (Sterbenz) and the sum's relative error
//! is unchanged. Already shifted forms (the logsumexp and log_softmax
//! lowerings) are left alone.

use super::pattern::*;
use coreai_ir::lowering::LoweringCx;
use coreai_ir::op::coreai;
use melior::ir::{operation::OperationLike, OperationRef, Value, ValueLike};

/// `(z, reduce_sum op)` when `s` is `reduce_sum(exp(z), axes)` over an
/// unshifted float `z`.
fn sum_of_exp<'c: 'a, 'a>(s: Value<'c, 'a>) -> Option<(Value<'c, 'a>, OperationRef<'c, 'a>)> {
    let sum = defined_by(s, coreai::REDUCE_SUM)?;
    let z = defined_by(sum.operand(0).ok()?, coreai::EXP)?
        .operand(0)
        .ok()?;
    (is_float(z) && !is_max_shifted(z)).then_some((z, sum))
}

/// `exp(z - m')` and the new `reduce_sum` of it, with `m'` from
/// [`finite_max`] over the sum's axes.
fn shifted_sum<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    z: Value<'c, 'a>,
    sum: &OperationRef<'c, 'a>,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>), String> {
    let axes = arg(sum, 1)?;
    let ty = sum
        .result(0)
        .map_err(|_| "reduce_sum has no result")?
        .r#type();
    let m = finite_max(cx, z, axes, ty)?;
    let e = unary(cx, coreai::EXP, binary(cx, coreai::SUB, z, m)?)?;
    let s = reduce(cx, coreai::REDUCE_SUM, e, axes, ty)?;
    Ok((m, e, s))
}

// log(reduce_sum(exp(z), axes) [→ reshape])
//   → m' + log(reduce_sum(exp(z - m'), axes)) [→ reshape],  m' = finite_max(z, axes)
pub fn log_sum_exp<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Rewritten<'c, 'a> {
    let operand = arg(&cx.op(), 0)?;
    let (s, reshape) = match defined_by(operand, coreai::RESHAPE) {
        Some(r) => (arg(&r, 0)?, Some(r)),
        None => (operand, None),
    };
    let (z, sum) = sum_of_exp(s).ok_or("not log(reduce_sum(exp(z))) with an unshifted z")?;
    let (m, _, shifted) = shifted_sum(cx, z, &sum)?;
    let r = binary(cx, coreai::ADD, unary(cx, coreai::LOG, shifted)?, m)?;
    Ok(vec![match reshape {
        Some(op) => cx.build_value(coreai::RESHAPE, &[r, arg(&op, 1)?], operand.r#type(), &[])?,
        None => r,
    }])
}

// exp(z) / reduce_sum(exp(z), axes)   (the two exps one value or the same op on the same z)
//   → exp(z - m') / reduce_sum(exp(z - m'), axes),  m' = finite_max(z, axes)
pub fn softmax_by_hand<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Rewritten<'c, 'a> {
    let (num, den) = (arg(&cx.op(), 0)?, arg(&cx.op(), 1)?);
    let (z, sum) = sum_of_exp(den).ok_or("the divisor is not reduce_sum(exp(z))")?;
    let numerator_z = defined_by(num, coreai::EXP).and_then(|e| e.operand(0).ok());
    if numerator_z != Some(z) {
        return Err("the numerator is not exp of the summed z".into());
    }
    if shape(num)? != shape(cx.op().result(0).map_err(|_| "no result")?.into())? {
        return Err("the quotient broadcasts beyond exp(z)".into());
    }
    let (_, e, s) = shifted_sum(cx, z, &sum)?;
    Ok(vec![binary(cx, coreai::DIVIDE, e, s)?])
}
