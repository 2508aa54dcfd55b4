//! RMSNorm → `rms_norm` (coreai-torch's `RMSNormImpl`: inputs `input`,
//! `scale`; `op_attrs` `axes = -1`, `eps`).
//!
//! ```text
//! y = x · rsqrt(mean(x · x, -1) + eps) · w       (weight after)
//! y = (w · x) · rsqrt(mean(x · x, -1) + eps)     (weight before)
//! y = x / sqrt(mean(x · x, -1) + eps) · w        (`1/sqrt` spellings)
//! y = cast(cast(x, f32) · rsqrt(...)) · w        (computed in f32, cast back)
//! y = cast(cast(x, f32) · rsqrt(...) · (1 + w))  (Gemma: the cast last)
//!   → coreai.invoke @rms_norm(x, w)
//! ```
//!
//! `x²` is `x · x` (the lowering's form of `pow(x, 2)`); the root is the
//! multiplication by the weight, or the cast after it. `w` is whatever
//! multiplies the normalized value (`1 + w` for Gemma) as long as it does
//! not widen the result. The squared value and the normalized one must be
//! the same value; the cast to f32 in front of both is outlined with them.
//!
//! Declines (near misses that must not match): a mean over another axis
//! than the last or over several axes, a reduction other than a mean, an
//! epsilon added anywhere but to the mean (`rsqrt(mean) + eps`,
//! `rsqrt(mean + eps · x)`), a non-constant epsilon, a square of another
//! value than the one normalized, no weight multiplication.

use super::{outline::OpAttr, outline::Outline, NearMiss};
use crate::fp16_stabilize::pattern::{defined_by, op_name, producer, shape, splat};
use coreai_ir::lowering::broadcast_shapes;
use coreai_ir::op::coreai;
use melior::ir::{operation::OperationLike, OperationRef, Value};

/// The sub-patterns, in matching order (a near miss names the first that
/// failed).
const STAGES: &[&str] = &[
    "weight multiplication",
    "normalization (x · rsqrt, x / sqrt)",
    "epsilon added to the mean",
    "mean over the last axis",
    "square of the normalized value",
];

fn miss(stage: usize, reason: impl Into<String>) -> NearMiss {
    NearMiss {
        composite: "rms_norm",
        stage,
        matched: &STAGES[..stage],
        failed: STAGES[stage],
        reason: reason.into(),
    }
}

/// The operands of a binary op in both orders.
fn both<'c: 'a, 'a>(op: &OperationRef<'c, 'a>) -> Vec<(Value<'c, 'a>, Value<'c, 'a>)> {
    match (op.operand(0), op.operand(1)) {
        (Ok(a), Ok(b)) => vec![(a, b), (b, a)],
        _ => Vec::new(),
    }
}

/// What matched below the weight multiplication.
struct Normalized<'c, 'a> {
    /// The value squared and normalized (the f32 copy when cast).
    x: Value<'c, 'a>,
    eps: f64,
    ops: Vec<OperationRef<'c, 'a>>,
}

/// `rsqrt(E)` or `1 / sqrt(E)`, with its ops; `E` is returned.
fn inverse_root<'c: 'a, 'a>(
    r: Value<'c, 'a>,
) -> Option<(Value<'c, 'a>, Vec<OperationRef<'c, 'a>>)> {
    if let Some(op) = defined_by(r, coreai::RSQRT) {
        return Some((op.operand(0).ok()?, vec![op]));
    }
    let div = defined_by(r, coreai::DECOMPOSABLE_BROADCASTING_DIVIDE)?;
    if splat(div.operand(0).ok()?) != Some(1.0) {
        return None;
    }
    let root = defined_by(div.operand(1).ok()?, coreai::SQRT)?;
    Some((root.operand(0).ok()?, vec![div, root]))
}

/// `E = mean(x · x, -1) + eps` for the normalized `x`.
fn statistic<'c: 'a, 'a>(
    e: Value<'c, 'a>,
    x: Value<'c, 'a>,
    mut ops: Vec<OperationRef<'c, 'a>>,
) -> Result<Normalized<'c, 'a>, NearMiss> {
    let add = defined_by(e, coreai::DECOMPOSABLE_BROADCASTING_ADD)
        .ok_or_else(|| miss(2, "the root's operand is not a sum (mean + eps)"))?;
    let (mean, eps) = both(&add)
        .into_iter()
        .find_map(|(m, c)| {
            let eps = splat(c)?;
            let scalar = shape(c).ok()?.iter().all(|&d| d == 1);
            (scalar && defined_by(m, coreai::REDUCE_MEAN).is_some()).then_some((m, eps))
        })
        .ok_or_else(|| miss(2, "not a mean plus a scalar constant epsilon"))?;
    ops.push(add);
    let reduce = defined_by(mean, coreai::REDUCE_MEAN).ok_or_else(|| miss(3, "no mean"))?;
    let rank = shape(x).map_err(|e| miss(3, e))?.len() as i64;
    let axes = reduce
        .operand(1)
        .ok()
        .and_then(int_values)
        .ok_or_else(|| miss(3, "the mean's axes are not constant"))?;
    if axes.len() != 1 || (axes[0] != rank - 1 && axes[0] != -1) {
        return Err(miss(
            3,
            format!("the mean is over axes {axes:?}, not the last axis alone"),
        ));
    }
    ops.push(reduce);
    let square = reduce.operand(0).map_err(|_| miss(4, "no operand"))?;
    let sq = defined_by(square, coreai::DECOMPOSABLE_BROADCASTING_MUL)
        .ok_or_else(|| miss(4, "the mean is not of a square"))?;
    if sq.operand(0).ok() != Some(x) || sq.operand(1).ok() != Some(x) {
        return Err(miss(4, "the square is not of the normalized value"));
    }
    ops.push(sq);
    Ok(Normalized { x, eps, ops })
}

/// The integer values of a constant (an axes operand).
pub fn int_values(v: Value<'_, '_>) -> Option<Vec<i64>> {
    let op = defined_by(v, coreai::CONSTANT)?;
    let attr = op.attribute("value").ok()?;
    coreai_ir::weights::element_scalars(attr)?
        .into_iter()
        .map(|e| match e {
            coreai_ir::lowering::Scalar::Int(i) => Some(i),
            coreai_ir::lowering::Scalar::Float(_) => None,
        })
        .collect()
}

/// `n = x · rsqrt(E)`, `x / sqrt(E)` or `x · (1 / sqrt(E))`, optionally
/// cast. `stage1_root` is the op computing `n` before the cast.
fn normalized<'c: 'a, 'a>(n: Value<'c, 'a>) -> Result<Normalized<'c, 'a>, NearMiss> {
    let mut ops = Vec::new();
    let mut n = n;
    if let Some(cast) = defined_by(n, coreai::CAST) {
        ops.push(cast);
        n = cast.operand(0).map_err(|_| miss(1, "no operand"))?;
    }
    if let Some(div) = defined_by(n, coreai::DECOMPOSABLE_BROADCASTING_DIVIDE) {
        let x = div.operand(0).map_err(|_| miss(1, "no operand"))?;
        let root = div
            .operand(1)
            .ok()
            .and_then(|r| defined_by(r, coreai::SQRT))
            .ok_or_else(|| miss(1, "a division by something other than a square root"))?;
        ops.extend([div, root]);
        let e = root.operand(0).map_err(|_| miss(2, "no operand"))?;
        return statistic(e, x, ops);
    }
    let mul = defined_by(n, coreai::DECOMPOSABLE_BROADCASTING_MUL)
        .ok_or_else(|| miss(1, "neither x · rsqrt(...) nor x / sqrt(...)"))?;
    let mut last = miss(1, "neither operand is rsqrt(...) or 1 / sqrt(...)");
    for (x, r) in both(&mul) {
        let Some((e, root_ops)) = inverse_root(r) else {
            continue;
        };
        let mut all = ops.clone();
        all.push(mul);
        all.extend(root_ops);
        match statistic(e, x, all) {
            Ok(found) => return Ok(found),
            Err(m) => last = m,
        }
    }
    Err(last)
}

/// Adds the cast to f32 in front of `x` (its input becomes the cast's
/// operand) when the matched ops are its only users.
fn input_of<'c: 'a, 'a>(norm: &mut Normalized<'c, 'a>) -> Value<'c, 'a> {
    if let Some(cast) = defined_by(norm.x, coreai::CAST) {
        let users = crate::fp16_stabilize::pattern::use_count(norm.x);
        let inside = norm
            .ops
            .iter()
            .map(|op| {
                (0..op.operand_count())
                    .filter(|&i| op.operand(i).ok() == Some(norm.x))
                    .count()
            })
            .sum::<usize>();
        if users == inside {
            if let Ok(x0) = cast.operand(0) {
                norm.ops.push(cast);
                return x0;
            }
        }
    }
    norm.x
}

/// Whether multiplying by `w` keeps the shape of `n`.
fn keeps_shape(n: Value<'_, '_>, w: Value<'_, '_>) -> bool {
    match (shape(n), shape(w)) {
        (Ok(sn), Ok(sw)) => broadcast_shapes(&[&sn, &sw]).is_ok_and(|s| s == sn),
        _ => false,
    }
}

/// Recognises an RMSNorm rooted at `root` (a multiplication or a cast).
pub fn recognize<'c, 'a>(root: OperationRef<'c, 'a>) -> Result<Outline<'c, 'a>, NearMiss> {
    let mut ops = vec![root];
    let mut mul = root;
    if op_name(&root) == coreai::CAST {
        mul = root
            .operand(0)
            .ok()
            .and_then(|v| defined_by(v, coreai::DECOMPOSABLE_BROADCASTING_MUL))
            .ok_or_else(|| miss(0, "a cast of something other than a multiplication"))?;
        ops.push(mul);
    } else if let Ok(r) = root.result(0) {
        // A cast after the weight multiplication is the root (Gemma).
        let r: Value = r.into();
        let single = crate::fp16_stabilize::pattern::use_count(r) == 1;
        let first_user = coreai_ir::schema::uses(r).first().map(|(user, _)| *user);
        if single && first_user.is_some_and(|u| op_name(&u) == coreai::CAST) {
            return Err(miss(0, "a cast follows; it is the root"));
        }
    }
    let mut last = miss(0, "not a multiplication of a normalized value by a weight");
    // Weight after: mul(n, w).
    for (n, w) in both(&mul) {
        match normalized(n) {
            Ok(mut norm) => {
                if !keeps_shape(n, w) {
                    last = miss(0, "the weight widens the normalized value");
                    continue;
                }
                if producer(w).is_some_and(|p| norm.ops.contains(&p)) {
                    continue;
                }
                let x = input_of(&mut norm);
                ops.extend(norm.ops);
                return Ok(found(x, w, norm.eps, ops));
            }
            Err(m) if m.stage > last.stage => last = m,
            Err(_) => {}
        }
    }
    // Weight before: mul(mul(w, x), rsqrt(E)).
    if op_name(&root) != coreai::CAST {
        for (wx, r) in both(&mul) {
            let (Some((e, root_ops)), Some(inner)) = (
                inverse_root(r),
                defined_by(wx, coreai::DECOMPOSABLE_BROADCASTING_MUL),
            ) else {
                continue;
            };
            for (w, x) in both(&inner) {
                let mut all = vec![inner];
                all.extend(root_ops.iter().copied());
                match statistic(e, x, all) {
                    Ok(mut norm) if keeps_shape(x, w) => {
                        let x0 = input_of(&mut norm);
                        ops.extend(norm.ops);
                        return Ok(found(x0, w, norm.eps, ops));
                    }
                    Ok(_) => last = miss(0, "the weight widens the normalized value"),
                    Err(m) if m.stage > last.stage => last = m,
                    Err(_) => {}
                }
            }
        }
    }
    Err(last)
}

fn found<'c, 'a>(
    x: Value<'c, 'a>,
    w: Value<'c, 'a>,
    eps: f64,
    ops: Vec<OperationRef<'c, 'a>>,
) -> Outline<'c, 'a> {
    Outline {
        decl: "rms_norm",
        inputs: vec![("input", x), ("scale", w)],
        attrs: vec![("axes", OpAttr::Int(-1)), ("eps", OpAttr::Float(eps))],
        ops,
        substitutes: Vec::new(),
        baked: Vec::new(),
        shared: Vec::new(),
        lift_result: false,
    }
}
