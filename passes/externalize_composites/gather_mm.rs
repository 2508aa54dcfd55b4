//! Mixture-of-Experts dispatch → `gather_mm` (coreai-torch's `GatherMM`:
//! inputs `lhs`, `rhs`, `rhs_indices`; `op_attrs` `num_batch_axes = 0`).
//!
//! ```text
//! y = x @ w[idx]          w: [E, D, H] stacked experts, idx: S (any shape),
//!                         x broadcasting to S + [M, D], y: S + [M, H]
//!   (lowered: gather_nd(w, reshape(idx, S + [1])), x broadcast, both
//!    reshaped to 3-D, batch matmul, reshape back)
//!   → coreai.invoke @gather_mm(x, w, idx)
//! ```
//!
//! The same product without the 3-D reshapes, a batch matmul taking the
//! gathered weights directly (what `aten._grouped_mm` and transformers'
//! `grouped_mm_fallback` lower to, and `x @ w[idx]` when the operands
//! already have the batch dims):
//!
//! ```text
//! y = broadcasting_batch_matmul(x, gather_nd(w, reshape(idx, S + [1])))
//!   → coreai.invoke @gather_mm(x, w, idx)
//! ```
//!
//! The index may also reach the gather through `coreai.expand_dims` of its
//! last axis (the form of a dynamic index).
//!
//! The shapes are checked to be exactly `matmul(x, w[idx])`: the gathered
//! operand is `S + [D, H]`, the batch of the 3-D matmul is `prod(S)`, the
//! result is `S + [M, H]` (in the direct form: the left operand has rank
//! ≥ 2 and ends in `D`, the batch matmul broadcasting its batch dims as
//! `torch.matmul` does). Declines: a gather of a stacked weight of another
//! rank than 3, a gather on the left operand, shapes that are not the
//! composite's.

use super::{outline::OpAttr, outline::Outline, NearMiss};
use crate::fp16_stabilize::pattern::{defined_by, op_name, shape};
use coreai_ir::lowering::broadcast_shapes;
use coreai_ir::op::coreai;
use coreai_ir::schema::DYNAMIC;
use melior::ir::{operation::OperationLike, OperationRef, Value};

const STAGES: &[&str] = &[
    "reshaped batch matmul",
    "gather of stacked expert weights",
    "left operand broadcast to the gathered batch",
];

fn miss(stage: usize, reason: impl Into<String>) -> NearMiss {
    NearMiss {
        composite: "gather_mm",
        stage,
        matched: &STAGES[..stage],
        failed: STAGES[stage],
        reason: reason.into(),
    }
}

/// The stages of the direct form (a batch matmul of the gathered weights).
const DIRECT_STAGES: &[&str] = &[
    "batch matmul of a gather",
    "gather of stacked expert weights",
    "left operand of rank >= 2 ending in the weights' input size",
];

fn direct_miss(stage: usize, reason: impl Into<String>) -> NearMiss {
    NearMiss {
        composite: "gather_mm",
        stage,
        matched: &DIRECT_STAGES[..stage],
        failed: DIRECT_STAGES[stage],
        reason: reason.into(),
    }
}

/// The index `idx` of `idx1 = idx` with a trailing unit dim (a reshape or
/// an `expand_dims`; the caller checks the shapes), and the op adding it.
fn unit_last_index<'c, 'a>(idx1: Value<'c, 'a>) -> Option<(OperationRef<'c, 'a>, Value<'c, 'a>)> {
    let op = defined_by(idx1, coreai::RESHAPE).or_else(|| defined_by(idx1, coreai::EXPAND_DIMS))?;
    Some((op, op.operand(0).ok()?))
}

/// `prod(s)`, or `DYNAMIC` when a dim is dynamic.
fn batch_size(s: &[i64]) -> i64 {
    if s.contains(&DYNAMIC) {
        DYNAMIC
    } else {
        s.iter().product()
    }
}

/// Recognises `x @ w[idx]`: rooted at the reshape after the batch matmul
/// of 3-D reshapes, or at a batch matmul of the gathered weights.
pub fn recognize<'c, 'a>(root: OperationRef<'c, 'a>) -> Result<Outline<'c, 'a>, NearMiss> {
    if op_name(&root) == coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL {
        return recognize_direct(root);
    }
    let out: Value = root.result(0).map_err(|_| miss(0, "no result"))?.into();
    let bmm = root
        .operand(0)
        .ok()
        .and_then(|v| defined_by(v, coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL))
        .ok_or_else(|| miss(0, "not a reshape of a batch matmul"))?;
    let (Some(ra), Some(rb)) = (
        bmm.operand(0)
            .ok()
            .and_then(|v| defined_by(v, coreai::RESHAPE)),
        bmm.operand(1)
            .ok()
            .and_then(|v| defined_by(v, coreai::RESHAPE)),
    ) else {
        return Err(miss(0, "the matmul operands are not reshaped"));
    };
    let g = rb.operand(0).map_err(|_| miss(1, "no operand"))?;
    let gather = defined_by(g, coreai::GATHER_ND)
        .ok_or_else(|| miss(1, "the right operand is not a gather"))?;
    let (w, idx1) = (
        gather.operand(0).map_err(|_| miss(1, "no operand"))?,
        gather.operand(1).map_err(|_| miss(1, "no operand"))?,
    );
    let (ri, idx) =
        unit_last_index(idx1).ok_or_else(|| miss(1, "the indices are not reshaped to [..., 1]"))?;
    let (sw, s, si1, sg) = (
        shape(w).map_err(|e| miss(1, e))?,
        shape(idx).map_err(|e| miss(1, e))?,
        shape(idx1).map_err(|e| miss(1, e))?,
        shape(g).map_err(|e| miss(1, e))?,
    );
    if sw.len() != 3 {
        return Err(miss(
            1,
            format!("the stacked weight has rank {}, not 3", sw.len()),
        ));
    }
    let (d, h) = (sw[1], sw[2]);
    let mut expected_i1 = s.clone();
    expected_i1.push(1);
    let mut expected_g = s.clone();
    expected_g.extend([d, h]);
    if si1 != expected_i1 || sg != expected_g {
        return Err(miss(1, "the gather is not w[idx] of one index per element"));
    }
    let a = ra.operand(0).map_err(|_| miss(2, "no operand"))?;
    let sa = shape(a).map_err(|e| miss(2, e))?;
    let n = batch_size(&s);
    let m = sa
        .last()
        .map(|_| sa[sa.len().saturating_sub(2)])
        .unwrap_or(0);
    let mut expected_a = s.clone();
    expected_a.extend([m, d]);
    let (s3a, s3b, s3o, so) = (
        shape(bmm.operand(0).map_err(|_| miss(0, "no operand"))?).map_err(|e| miss(0, e))?,
        shape(bmm.operand(1).map_err(|_| miss(0, "no operand"))?).map_err(|e| miss(0, e))?,
        shape(bmm.result(0).map_err(|_| miss(0, "no result"))?.into()).map_err(|e| miss(0, e))?,
        shape(out).map_err(|e| miss(0, e))?,
    );
    let mut expected_o = s.clone();
    expected_o.extend([m, h]);
    if sa != expected_a
        || s3a != [n, m, d]
        || s3b != [n, d, h]
        || s3o != [n, m, h]
        || so != expected_o
    {
        return Err(miss(2, "the shapes are not those of x @ w[idx]"));
    }
    let mut ops = vec![root, bmm, ra, rb, gather, ri];
    let lhs = match defined_by(a, coreai::BROADCAST_IN_DIMS) {
        Some(b) => {
            let x = b.operand(0).map_err(|_| miss(2, "no operand"))?;
            let sx = shape(x).map_err(|e| miss(2, e))?;
            if sx.len() != sa.len() || broadcast_shapes(&[&sx, &sa]).ok().as_ref() != Some(&sa) {
                return Err(miss(
                    2,
                    "the left operand is not a broadcast of a same-rank value",
                ));
            }
            ops.push(b);
            x
        }
        None => a,
    };
    Ok(Outline {
        decl: "gather_mm",
        inputs: vec![("lhs", lhs), ("rhs", w), ("rhs_indices", idx)],
        attrs: vec![("num_batch_axes", OpAttr::Int(0))],
        ops,
        substitutes: Vec::new(),
        baked: Vec::new(),
        shared: Vec::new(),
        lift_result: false,
    })
}

/// Recognises `x @ w[idx]` rooted at a batch matmul whose right operand is
/// the gather itself.
fn recognize_direct<'c, 'a>(root: OperationRef<'c, 'a>) -> Result<Outline<'c, 'a>, NearMiss> {
    let g = root.operand(1).map_err(|_| direct_miss(0, "no operand"))?;
    let gather = defined_by(g, coreai::GATHER_ND)
        .ok_or_else(|| direct_miss(0, "the right operand is not a gather"))?;
    let (w, idx1) = (
        gather
            .operand(0)
            .map_err(|_| direct_miss(1, "no operand"))?,
        gather
            .operand(1)
            .map_err(|_| direct_miss(1, "no operand"))?,
    );
    let (ri, idx) = unit_last_index(idx1)
        .ok_or_else(|| direct_miss(1, "the indices are not reshaped to [..., 1]"))?;
    let (sw, s, si1, sg) = (
        shape(w).map_err(|e| direct_miss(1, e))?,
        shape(idx).map_err(|e| direct_miss(1, e))?,
        shape(idx1).map_err(|e| direct_miss(1, e))?,
        shape(g).map_err(|e| direct_miss(1, e))?,
    );
    if sw.len() != 3 {
        return Err(direct_miss(
            1,
            format!("the stacked weight has rank {}, not 3", sw.len()),
        ));
    }
    let mut expected_i1 = s.clone();
    expected_i1.push(1);
    let mut expected_g = s.clone();
    expected_g.extend([sw[1], sw[2]]);
    if si1 != expected_i1 || sg != expected_g {
        return Err(direct_miss(
            1,
            "the gather is not w[idx] of one index per element",
        ));
    }
    let x = root.operand(0).map_err(|_| direct_miss(2, "no operand"))?;
    let sx = shape(x).map_err(|e| direct_miss(2, e))?;
    if sx.len() < 2 || sx.last() != Some(&sw[1]) {
        return Err(direct_miss(
            2,
            format!(
                "the left operand {sx:?} does not multiply a [{}, {}] weight",
                sw[1], sw[2]
            ),
        ));
    }
    Ok(Outline {
        decl: "gather_mm",
        inputs: vec![("lhs", x), ("rhs", w), ("rhs_indices", idx)],
        attrs: vec![("num_batch_axes", OpAttr::Int(0))],
        ops: vec![root, gather, ri],
        substitutes: Vec::new(),
        baked: Vec::new(),
        shared: Vec::new(),
        lift_result: false,
    })
}
