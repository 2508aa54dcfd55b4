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
//! The shapes are checked to be exactly `matmul(x, w[idx])`: the gathered
//! operand is `S + [D, H]`, the batch of the 3-D matmul is `prod(S)`, the
//! result is `S + [M, H]`. Declines: a gather of a stacked weight of
//! another rank than 3, a gather on the left operand, shapes that are not
//! the composite's.

use super::{outline::OpAttr, outline::Outline, NearMiss};
use crate::lowering::broadcast_shapes;
use crate::passes::fp16_stabilize::pattern::{defined_by, shape};
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

/// Recognises `x @ w[idx]` rooted at the reshape after the batch matmul.
pub fn recognize<'c, 'a>(root: OperationRef<'c, 'a>) -> Result<Outline<'c, 'a>, NearMiss> {
    let out: Value = root.result(0).map_err(|_| miss(0, "no result"))?.into();
    let bmm = root
        .operand(0)
        .ok()
        .and_then(|v| defined_by(v, "b.batch_matmul"))
        .ok_or_else(|| miss(0, "not a reshape of a batch matmul"))?;
    let (Some(ra), Some(rb)) = (
        bmm.operand(0).ok().and_then(|v| defined_by(v, "reshape")),
        bmm.operand(1).ok().and_then(|v| defined_by(v, "reshape")),
    ) else {
        return Err(miss(0, "the matmul operands are not reshaped"));
    };
    let g = rb.operand(0).map_err(|_| miss(1, "no operand"))?;
    let gather =
        defined_by(g, "gather_nd").ok_or_else(|| miss(1, "the right operand is not a gather"))?;
    let (w, idx1) = (
        gather.operand(0).map_err(|_| miss(1, "no operand"))?,
        gather.operand(1).map_err(|_| miss(1, "no operand"))?,
    );
    let ri = defined_by(idx1, "reshape")
        .ok_or_else(|| miss(1, "the indices are not reshaped to [..., 1]"))?;
    let idx = ri.operand(0).map_err(|_| miss(1, "no operand"))?;
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
    let n: i64 = s.iter().product();
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
    let lhs = match defined_by(a, "broadcast_in_dims") {
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
