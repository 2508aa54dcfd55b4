//! The Neural Engine's BC1S form (Apple's Neural Engine rules, "BC1S
//! format", "Conv2d instead of Linear", "Transpose bookkeeping around
//! Conv2d"): activations `(Batch, Channels, 1, Sequence)`, projections as
//! 1×1 convolutions.
//!
//! - `linear-conv1x1`: a product of an activation `x : …×S×K` and a
//!   constant weight `W : K×N` (a linear layer after `legalize`) becomes a
//!   1×1 `conv2d` of `x` in BC1S, `B×K×1×S` (`B` the product of the leading
//!   dims), by the weight as `N×K×1×1`, with the transposes Apple's rules
//!   put around every projection. Algebra: `conv(x', W')[b, n, 0, s] =
//!   Σ_k W'[n, k, 0, 0]·x'[b, k, 0, s] = Σ_k x[b, s, k]·W[k, n]`, the same
//!   products summed over the same `k`: exact up to the order of the sum,
//!   which the executor fixes (bit-identical in coreai-run, whose 1×1
//!   convolution and product both sum `k` in order).
//! - `transpose-sink`: an elementwise op whose operands are transposes by
//!   one permutation `p` (or constants, or all-unit shapes) runs on the
//!   untransposed values and one transpose follows it: `f(T_p(x), c) =
//!   T_p(f(x, T_p⁻¹(c)))`, the same elements meeting the same elements
//!   (a constant of lower rank is first given leading unit dims, as
//!   broadcasting does). Exact for every value. Run to a fixed point after
//!   the main sweep, it carries the BC1S layout through the activations
//!   between projections (a SwiGLU MLP: `down(silu(gate(x)) · up(x))`
//!   keeps no transpose between its three convolutions once core-optimize
//!   composes the transposes that meet).
//!
//! Declines: a weight that is not a constant of rank 2 (after unit dims),
//! a dynamic dim, an activation of rank below 2; for the sink, an operand
//! that is neither a transpose by the same permutation nor a constant, or
//! transposes that all have other users (sinking would add one).

use crate::fp16_stabilize::pattern::{defined_by, op_name, producer, use_count};
use coreai_ir::emit::{int_scalar, reshape, shape, transpose};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw::constant_ints;
use coreai_ir::schema::{shape_of, tensor_type, type_dims, uses, DYNAMIC};
use melior::ir::{operation::OperationLike, r#type::ShapedTypeLike, TypeLike, Value, ValueLike};

/// `[1, B, S, K]` (the activation lifted to rank 4) → `[B, K, 1, S]`
/// (BC1S); its inverse takes the convolution's `[B, N, 1, S]` to
/// `[1, B, S, N]`, which reshapes down to the product's `…×S×N` by dropping
/// leading unit dims (what `rank4-chain` moves past elementwise ops).
const TO_BC1S: [usize; 4] = [1, 3, 0, 2];
const FROM_BC1S: [usize; 4] = [2, 0, 3, 1];

fn static_dims(v: Value<'_, '_>) -> Result<Vec<i64>, Decline> {
    let dims = shape_of(v)?;
    if dims.contains(&DYNAMIC) {
        return Err("a dynamic dim (the Neural Engine runs static shapes)".into());
    }
    Ok(dims)
}

// broadcasting_batch_matmul(%x : …×S×K, %W : K×N (a constant))
//   → reshape(transpose(conv2d(transpose(reshape(x) : 1×B×S×K, [1,3,0,2]) : B×K×1×S,
//                              transpose(reshape(W) : K×N×1×1, [1,0,2,3]) : N×K×1×1,
//                              stride [1,1], dilation [1,1], groups 1) : B×N×1×S,
//                      [2,0,3,1]) : 1×B×S×N) : …×S×N
pub fn linear_conv1x1<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let (x, w) = (cx.operand(0)?, cx.operand(1)?);
    if defined_by(w, coreai::CONSTANT).is_none() {
        return Err("the right operand is not a constant (a linear layer's weight)".into());
    }
    if defined_by(x, coreai::CONSTANT).is_some() {
        return Err("both operands are constants (core-optimize folds the product)".into());
    }
    let (sx, sw) = (static_dims(x)?, static_dims(w)?);
    if sw.len() < 2 || sw[..sw.len() - 2].iter().any(|&d| d != 1) {
        return Err(format!("the weight {sw:?} is not a matrix (K×N)"));
    }
    if sx.len() < 2 {
        return Err(format!("the activation has rank {}", sx.len()));
    }
    let (k, n) = (sw[sw.len() - 2], sw[sw.len() - 1]);
    let (s, kx) = (sx[sx.len() - 2], sx[sx.len() - 1]);
    if kx != k {
        return Err(format!("contraction dims {kx} and {k} differ"));
    }
    let b: i64 = sx[..sx.len() - 2].iter().product();
    let result = type_dims(cx.result_type(0)?)?;
    let element = cx.result_tensor(0)?.element();
    let x4 = reshape(cx, x, &[1, b, s, k])?;
    let xt = transpose(cx, x4, &TO_BC1S)?;
    let w4 = reshape(cx, w, &[k, n, 1, 1])?;
    let wt = transpose(cx, w4, &[1, 0, 2, 3])?;
    let operands = [
        xt,
        wt,
        shape(cx, &[1, 1])?,
        shape(cx, &[1, 1])?,
        int_scalar(cx, 1, "ui32")?,
    ];
    let y = cx.build_value(
        coreai::CONV2D,
        &operands,
        tensor_type(&[b, n, 1, s], element),
        &[],
    )?;
    let back = transpose(cx, y, &FROM_BC1S)?;
    Ok(vec![reshape(cx, back, &result)?])
}

/// The users of `v` whose results are used (or that have none: a
/// terminator); a user left dead by an earlier rewrite of the same pass
/// (the reshape `rank4-chain` moved past an op) is not counted.
fn live_uses(v: Value<'_, '_>) -> usize {
    uses(v)
        .iter()
        .filter(|(op, _)| {
            op.result_count() == 0
                || (0..op.result_count())
                    .any(|i| op.result(i).is_ok_and(|r| use_count(r.into()) > 0))
        })
        .count()
}

/// `(x, p)` when `v` is `transpose(x, p)` with a constant permutation.
fn transposed<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<(Value<'c, 'a>, Vec<usize>)> {
    let t = producer(v)?;
    if op_name(&t) != coreai::TRANSPOSE {
        return None;
    }
    let perm = constant_ints(t.operand(1).ok()?.to_raw())?;
    let perm = perm
        .into_iter()
        .map(usize::try_from)
        .collect::<Result<_, _>>()
        .ok()?;
    Some((t.operand(0).ok()?, perm))
}

// f(transpose(x, p), transpose(y, p))  → transpose(f(x, y), p)
// f(transpose(x, p), c (a constant))   → transpose(f(x, transpose(c', p⁻¹)), p)
//   (c' = c with leading unit dims up to the rank of p)
pub fn transpose_sink<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let op = cx.op();
    if op.result_count() != 1 {
        return Err("not one result".into());
    }
    let name = op_name(&op);
    if name == coreai::CAST && cx.result_tensor(0)?.element().is_f32() {
        return Err("a widening cast: the transpose stays on its f16 side (layout-in-f16)".into());
    }
    let broadcasting = super::layout::BROADCASTING_ELEMENTWISE.contains(&name.as_str());
    let mut perm: Option<Vec<usize>> = None;
    let mut removes = false;
    for i in 0..op.operand_count() {
        if let Some((_, p)) = transposed(cx.operand(i)?) {
            if perm.as_ref().is_some_and(|q| *q != p) {
                return Err("the operands are transposed by different permutations".into());
            }
            removes |= live_uses(cx.operand(i)?) == 1;
            perm = Some(p);
        }
    }
    let perm = perm.ok_or("no operand is a transpose")?;
    if !removes {
        return Err("the transposes have other users: sinking would add one".into());
    }
    let rank = perm.len();
    let mut inverse = vec![0; rank];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    let mut operands = Vec::new();
    for i in 0..op.operand_count() {
        let v = cx.operand(i)?;
        if let Some((x, _)) = transposed(v) {
            operands.push(x);
            continue;
        }
        let dims = shape_of(v)?;
        if dims.iter().all(|&d| d == 1) && (broadcasting || dims.len() == rank) {
            operands.push(v);
        } else if defined_by(v, coreai::CONSTANT).is_some()
            && dims.len() <= rank
            && (broadcasting || dims.len() == rank)
        {
            let mut lifted = vec![1; rank - dims.len()];
            lifted.extend(&dims);
            let lifted = if dims.len() < rank {
                reshape(cx, v, &lifted)?
            } else {
                v
            };
            operands.push(transpose(cx, lifted, &inverse)?);
        } else {
            return Err(format!(
                "operand #{i} is neither a transpose by the same permutation nor a constant"
            ));
        }
    }
    let result = type_dims(cx.result_type(0)?)?;
    if result.len() != rank {
        return Err(format!(
            "the result has rank {}, the permutation {rank}",
            result.len()
        ));
    }
    let untransposed: Vec<i64> = inverse.iter().map(|&i| result[i]).collect();
    let element = cx.result_tensor(0)?.element();
    let f = cx.rebuild(&operands, tensor_type(&untransposed, element))?;
    Ok(vec![transpose(cx, f, &perm)?])
}
