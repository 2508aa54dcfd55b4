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
//!   A quantized weight (`blockwise_shift_scale` of constant codes,
//!   scales and offsets, each block broadcast along each dim) or a
//!   palettized one (`lut_to_dense` of constant indices and palettes,
//!   whose leading dims are per weight dim) has its parts moved to
//!   `N×K×1×1` alike (a vector palette's axis with its dim): the
//!   decompression then gives the convolution's weight, and the moves
//!   fold into the constants.
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
//! - `transpose-pair` (in the same sweeps): two transposes around a
//!   reshape become one, the reshape moved below the first or above the
//!   second where it only splits dims or merges dims that stay adjacent
//!   ([`reshape_below_transpose`]): a projection's head split is Apple's
//!   `bc1s_to_gpu`, a head merge before one `gpu_to_bc1s`. Exact.
//!
//! A transpose that only moves unit dims is emitted as a reshape (one
//! token, a pooled vector). Declines: a weight that is not a constant, or
//! such a decompression of constants, of rank 2 (after unit dims; a sparse
//! weight or scaled or quantized palettes stay a product), a dynamic dim,
//! an activation of rank below 2; for the sink, an operand that is neither
//! a transpose by the same permutation nor a constant, or a transpose that
//! an op other than an elementwise one also reads (sinking would leave it
//! and add one); for the pair, a reshape
//! that regroups dims the transposes move apart, values with other users.

use super::layout::{all_users_move, dead, elementwise, widening_cast, BROADCASTING_ELEMENTWISE};
use crate::fp16_stabilize::pattern::{defined_by, op_name, producer};
use coreai_ir::emit::{int_scalar, reshape, shape, transpose};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw::constant_ints;
use coreai_ir::schema::{element_type, shape_of, tensor_type, type_dims, uses, DYNAMIC};
use melior::ir::{
    operation::{OperationLike, OperationRef},
    r#type::ShapedTypeLike,
    Value, ValueLike,
};

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
// (a transpose that only moves unit dims, as for one token or one pooled
// vector, is a reshape)
//   → reshape(transpose(conv2d(transpose(reshape(x) : 1×B×S×K, [1,3,0,2]) : B×K×1×S,
//                              transpose(reshape(W) : K×N×1×1, [1,0,2,3]) : N×K×1×1,
//                              stride [1,1], dilation [1,1], groups 1) : B×N×1×S,
//                      [2,0,3,1]) : 1×B×S×N) : …×S×N
pub fn linear_conv1x1<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let (x, w) = (cx.operand(0)?, cx.operand(1)?);
    let form = weight_form(w)?;
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
    let xt = moved(cx, x4, &[1, b, s, k], &TO_BC1S)?;
    let wt = weight_nk11(cx, w, &form, k, n)?;
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
    let back = moved(cx, y, &[b, n, 1, s], &FROM_BC1S)?;
    Ok(vec![reshape(cx, back, &result)?])
}

/// The users of `v` whose results are used (or that have none: a
/// terminator); a user left dead by an earlier rewrite of the same pass
/// (the reshape `rank4-chain` moved past an op) is not counted.
fn live_uses(v: Value<'_, '_>) -> usize {
    uses(v).iter().filter(|(op, _)| !dead(op)).count()
}

/// How a linear layer's weight is stored.
enum WeightForm<'c, 'a> {
    /// A constant.
    Dense,
    /// `blockwise_shift_scale` of constant codes, scales and offsets
    /// (`quantize-weights`), each block broadcast along each dim.
    Quantized(OperationRef<'c, 'a>),
    /// `lut_to_dense` of constant indices, palettes and axis
    /// (`palettize-weights`): the palettes' leading dims are per weight
    /// dim, then the entries and the vector length; with the look-up axis
    /// once the weight's last two dims swap (0 or 1 of `N×K×1×1`).
    Palettized(OperationRef<'c, 'a>, i64),
}

/// The form of weight `w`, checked before anything is built: a constant,
/// or a decompression of constants.
fn weight_form<'c: 'a, 'a>(w: Value<'c, 'a>) -> Result<WeightForm<'c, 'a>, Decline> {
    if defined_by(w, coreai::CONSTANT).is_some() {
        return Ok(WeightForm::Dense);
    }
    let of_constants = |q: &OperationRef<'c, 'a>| {
        (0..q.operand_count()).all(|i| {
            q.operand(i)
                .is_ok_and(|o| defined_by(o, coreai::CONSTANT).is_some())
        })
    };
    let rank = shape_of(w)?.len();
    if let Some(q) = defined_by(w, coreai::BLOCKWISE_SHIFT_SCALE).filter(of_constants) {
        if (0..4).any(|i| {
            q.operand(i)
                .map_or(true, |o| shape_of(o).map_or(true, |d| d.len() != rank))
        }) {
            return Err("a quantized weight whose scales or offsets have another rank".into());
        }
        return Ok(WeightForm::Quantized(q));
    }
    if let Some(q) = defined_by(w, coreai::LUT_TO_DENSE).filter(of_constants) {
        let lut = q.operand(1).map_err(|_| "a look-up without palettes")?;
        if shape_of(lut)?.len() != rank + 2
            || shape_of(q.operand(0).map_err(|_| "no indices")?)?.len() != rank
        {
            return Err("a palettized weight whose palettes are not per weight dim".into());
        }
        let axis = q
            .operand(2)
            .ok()
            .and_then(|a| constant_ints(a.to_raw()))
            .and_then(|a| a.first().copied())
            .ok_or("the look-up axis is not a constant")?;
        let axis = if axis < 0 { axis + rank as i64 } else { axis };
        // The last two weight dims swap: the vector axis moves with its dim.
        let moved_axis = match axis - (rank as i64 - 2) {
            0 => 1,
            1 => 0,
            _ => return Err(format!("the look-up axis {axis} is not a matrix dim")),
        };
        return Ok(WeightForm::Palettized(q, moved_axis));
    }
    Err("the right operand is not a constant, or a quantized or palettized constant (a linear layer's weight)".into())
}

/// A `K×N` weight as the convolution's `N×K×1×1`: a constant reshaped and
/// transposed (core-optimize folds both); a compressed weight decompressed
/// straight into that form, its constant parts moved alike (each part's
/// per-dim blocks move with their dims), so that nothing transposes a
/// decompressed weight at run time.
fn weight_nk11<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    w: Value<'c, 'a>,
    form: &WeightForm<'c, 'a>,
    k: i64,
    n: i64,
) -> Result<Value<'c, 'a>, Decline> {
    // `v`'s dims `[…, a, b, rest…]` (a, b at `at`, `at + 1`) as `[b, a, 1, 1, rest…]`.
    let swap = |v: Value<'c, 'a>, at: usize| -> Result<Value<'c, 'a>, Decline> {
        let d = static_dims(v)?;
        let mut lifted = vec![d[at], d[at + 1], 1, 1];
        lifted.extend(&d[at + 2..]);
        let v = reshape(cx, v, &lifted)?;
        let mut perm: Vec<usize> = (0..lifted.len()).collect();
        perm.swap(0, 1);
        transpose(cx, v, &perm)
    };
    let ty = tensor_type(&[n, k, 1, 1], element_type(w)?);
    let part =
        |q: &OperationRef<'c, 'a>, i: usize| q.operand(i).map_err(|_| format!("no operand #{i}"));
    let rank = shape_of(w)?.len();
    match form {
        WeightForm::Dense => {
            let w4 = reshape(cx, w, &[k, n, 1, 1])?;
            transpose(cx, w4, &[1, 0, 2, 3])
        }
        WeightForm::Quantized(q) => {
            let mut parts = Vec::new();
            for i in 0..4 {
                let p = part(q, i)?;
                parts.push(swap(p, static_dims(p)?.len() - 2)?);
            }
            cx.build_value(coreai::BLOCKWISE_SHIFT_SCALE, &parts, ty, &[])
        }
        WeightForm::Palettized(q, moved_axis) => {
            let indices = swap(part(q, 0)?, rank - 2)?;
            let palettes = swap(part(q, 1)?, rank - 2)?;
            let axis = int_scalar(cx, *moved_axis, "si16")?;
            cx.build_value(coreai::LUT_TO_DENSE, &[indices, palettes, axis], ty, &[])
        }
    }
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

/// Whether `transpose-sink` may move `op` past a transpose: an
/// elementwise op that is not a widening cast. Its other operands are not
/// asked for: in a chain that reads a value twice (`x · clamp(x + 3)`),
/// they become transposes as the ops before it sink.
fn sinks(op: &OperationRef<'_, '_>) -> bool {
    elementwise(op) && !widening_cast(op) && op.result_count() == 1
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
    if widening_cast(&op) {
        return Err("a widening cast: the transpose stays on its f16 side (layout-in-f16)".into());
    }
    let broadcasting = BROADCASTING_ELEMENTWISE.contains(&name.as_str());
    let mut perm: Option<Vec<usize>> = None;
    let mut removes = false;
    for i in 0..op.operand_count() {
        if let Some((_, p)) = transposed(cx.operand(i)?) {
            if perm.as_ref().is_some_and(|q| *q != p) {
                return Err("the operands are transposed by different permutations".into());
            }
            removes |= all_users_move(cx.operand(i)?, sinks);
            perm = Some(p);
        }
    }
    let perm = perm.ok_or("no operand is a transpose")?;
    if !removes {
        return Err(
            "every transpose is also read by an op that does not sink: sinking would add one"
                .into(),
        );
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
    Ok(vec![moved(cx, f, &untransposed, &perm)?])
}

/// `(X', p')` with `reshape(transpose(x, p), z) = transpose(reshape(x, X'), p')`
/// for `x` of dims `x`, when the reshape only splits dims of the transposed
/// value or merges dims that are adjacent and in order in `x` (unit dims
/// aside); `None` otherwise (a reshape that regroups across dims).
fn reshape_below_transpose(x: &[i64], p: &[usize], z: &[i64]) -> Option<(Vec<i64>, Vec<usize>)> {
    let y: Vec<i64> = p.iter().map(|&i| x[i]).collect();
    let ys: Vec<usize> = (0..y.len()).filter(|&i| y[i] != 1).collect();
    let zs: Vec<usize> = (0..z.len()).filter(|&j| z[j] != 1).collect();
    // Groups of non-unit dims with equal products: (y positions, z positions).
    let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    let (mut a, mut b) = (0, 0);
    while a < ys.len() || b < zs.len() {
        let (mut gy, mut gz) = (vec![*ys.get(a)?], vec![*zs.get(b)?]);
        let (mut py, mut pz) = (y[ys[a]], z[zs[b]]);
        a += 1;
        b += 1;
        while py != pz {
            if py < pz {
                gy.push(*ys.get(a)?);
                py *= y[ys[a]];
                a += 1;
            } else {
                gz.push(*zs.get(b)?);
                pz *= z[zs[b]];
                b += 1;
            }
        }
        if gy.len() > 1 && gz.len() > 1 {
            return None;
        }
        groups.push((gy, gz));
    }
    // The non-unit dims of x in order, and where each sits among them.
    let xs: Vec<usize> = (0..x.len()).filter(|&d| x[d] != 1).collect();
    let rank_in_xs = |d: usize| xs.iter().position(|&e| e == d);
    // Unit dims first: a reshape to them keeps the last (width) dim the
    // one the data has, never a padded singleton.
    let mut new_dims = Vec::new();
    let mut index_of_z = vec![usize::MAX; z.len()];
    for j in 0..z.len() {
        if z[j] == 1 {
            index_of_z[j] = new_dims.len();
            new_dims.push(1);
        }
    }
    let mut emitted = vec![false; groups.len()];
    for &d in &xs {
        let g = groups
            .iter()
            .position(|(gy, _)| gy.iter().any(|&i| p[i] == d))?;
        if emitted[g] {
            continue;
        }
        let (gy, gz) = &groups[g];
        // Merged dims: adjacent in x, in the transposed order.
        let first = rank_in_xs(p[gy[0]])?;
        for (t, &i) in gy.iter().enumerate() {
            if rank_in_xs(p[i])? != first + t {
                return None;
            }
        }
        if p[gy[0]] != d {
            return None;
        }
        for &j in gz {
            index_of_z[j] = new_dims.len();
            new_dims.push(z[j]);
        }
        emitted[g] = true;
    }
    (new_dims.len() == z.len() && index_of_z.iter().all(|&i| i < z.len()))
        .then_some((new_dims, index_of_z))
}

/// `q` after `p`: `transpose(transpose(v, p), q) = transpose(v, composed)`.
fn compose(p: &[usize], q: &[usize]) -> Vec<usize> {
    q.iter().map(|&i| p[i]).collect()
}

fn inverse(p: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; p.len()];
    for (i, &pi) in p.iter().enumerate() {
        inv[pi] = i;
    }
    inv
}

// transpose(reshape(transpose(x, a)), b)
//   → transpose(reshape(x), b ∘ a')       (the reshape moved below a)
//   or reshape(transpose(x, b' ∘ a))      (the reshape moved above b)
// Two transposes around a reshape become one: Apple's `gpu_to_bc1s`
// (`(B, H, S, D).permute(0, 1, 3, 2).reshape(B, H·D, 1, S)`) and
// `bc1s_to_gpu` forms, one transpose each, instead of a transpose to and
// from BC1S on either side of a head split or merge. Exact: only the
// order in which the same elements are laid out. Declines reshapes that
// regroup across dims the transposes move apart, transposes or reshapes
// with other users.
pub fn transpose_pair<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let b = constant_ints(cx.operand(1)?.to_raw()).ok_or("the permutation is not a constant")?;
    let b: Vec<usize> = b
        .into_iter()
        .map(usize::try_from)
        .collect::<Result<_, _>>()
        .map_err(|_| "a negative permutation index")?;
    // The reshapes between the transposes (each with no other user).
    let mut v = cx.operand(0)?;
    let mut reshaped = false;
    while let Some(r) = producer(v).filter(|r| op_name(r) == coreai::RESHAPE) {
        if live_uses(v) != 1 {
            return Err("a reshape between the transposes has other users".into());
        }
        v = r.operand(0).map_err(|_| "a reshape without operand")?;
        reshaped = true;
    }
    if !reshaped {
        return Err("the operand is not a reshape".into());
    }
    let (x, a) = transposed(v).ok_or("no transpose before the reshape")?;
    if live_uses(v) != 1 {
        return Err("the inner transpose has other users".into());
    }
    let (dx, z, out) = (
        static_dims(x)?,
        static_dims(cx.operand(0)?)?,
        type_dims(cx.result_type(0)?)?,
    );
    if let Some((dims, a2)) = reshape_below_transpose(&dx, &a, &z) {
        let r = reshape(cx, x, &dims)?;
        return Ok(vec![moved(cx, r, &dims, &compose(&a2, &b))?]);
    }
    // T_b(reshape(y, z)) with y = T_a(x): reshape(y, z) = T_b⁻¹(W), so
    // y = reshape(T_b⁻¹(W), dims y) = T_s(reshape(W, W')), and
    // W = reshape(T_s⁻¹(y), dims W).
    let dy: Vec<i64> = a.iter().map(|&i| dx[i]).collect();
    let (_, s) = reshape_below_transpose(&out, &inverse(&b), &dy)
        .ok_or("the reshape regroups dims the transposes move apart")?;
    let t = moved(cx, x, &dx, &compose(&a, &inverse(&s)))?;
    Ok(vec![reshape(cx, t, &out)?])
}

// transpose(x, p) → reshape(x), when p moves only unit dims
// The dims that are not 1 keep their order, so the elements do too: the
// transpose (a copy on the Neural Engine) is a reshape. The model's own
// head splits and merges of one token (`(1, 1, H, D)` to `(1, H, 1, D)`),
// a one-token mask or RoPE row. Exact. Declines a permutation that
// reorders dims larger than 1, more than one dynamic dim.
pub fn transpose_unit_dims<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let (x, p) = transposed(cx.op().result(0).map_err(|_| "no result")?.into())
        .ok_or("the permutation is not a constant")?;
    let d = shape_of(x)?;
    let kept: Vec<usize> = p.iter().copied().filter(|&i| d[i] != 1).collect();
    if !kept.windows(2).all(|w| w[0] < w[1]) {
        return Err("the permutation reorders dims larger than 1".into());
    }
    let out: Vec<i64> = p.iter().map(|&i| d[i]).collect();
    Ok(vec![reshape(cx, x, &out)?])
}

/// `transpose(v, p)` for `v` of dims `d`, or a reshape when `p` only moves
/// unit dims (the elements keep their order: the transposes cancelled).
pub(super) fn moved<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
    d: &[i64],
    p: &[usize],
) -> Result<Value<'c, 'a>, Decline> {
    let kept: Vec<usize> = p.iter().copied().filter(|&i| d[i] != 1).collect();
    if kept.windows(2).all(|w| w[0] < w[1]) {
        let out: Vec<i64> = p.iter().map(|&i| d[i]).collect();
        return reshape(cx, v, &out);
    }
    transpose(cx, v, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `v` (row-major, dims `d`) transposed by `p`.
    fn transpose_flat(v: &[i64], d: &[i64], p: &[usize]) -> Vec<i64> {
        let out: Vec<i64> = p.iter().map(|&i| d[i]).collect();
        let strides: Vec<i64> = (0..d.len()).map(|i| d[i + 1..].iter().product()).collect();
        let n: i64 = d.iter().product();
        (0..n)
            .map(|flat| {
                let (mut rest, mut src) = (flat, 0);
                for k in (0..out.len()).rev() {
                    src += (rest % out[k]) * strides[p[k]];
                    rest /= out[k];
                }
                v[src as usize]
            })
            .collect()
    }

    #[test]
    fn a_reshape_moves_below_a_transpose_with_the_same_elements() {
        // (x dims, p, z): splits, merges, unit dims, and the BC1S head split.
        let cases: &[(&[i64], &[usize], &[i64])] = &[
            (&[1, 64, 1, 8], &[2, 0, 3, 1], &[1, 8, 4, 16]),
            (&[2, 3, 4, 5], &[0, 2, 3, 1], &[2, 20, 3]),
            (&[2, 3, 4, 5], &[3, 0, 1, 2], &[5, 6, 2, 2]),
            (&[1, 4, 16, 8], &[0, 1, 2, 3], &[1, 64, 1, 8]),
            (&[6, 1, 10], &[2, 1, 0], &[2, 5, 1, 3, 2]),
        ];
        for &(x, p, z) in cases {
            let (dims, p2) =
                reshape_below_transpose(x, p, z).unwrap_or_else(|| panic!("{x:?} {p:?} {z:?}"));
            let n: i64 = x.iter().product();
            let data: Vec<i64> = (0..n).collect();
            // reshape is the identity on the flat data.
            let want = transpose_flat(&data, x, p);
            let got = transpose_flat(&data, &dims, &p2);
            assert_eq!(got, want, "{x:?} {p:?} {z:?}");
            let got_dims: Vec<i64> = p2.iter().map(|&i| dims[i]).collect();
            assert_eq!(got_dims, z);
        }
        // Merging dims the transpose moved apart is a regrouping: declined.
        assert!(reshape_below_transpose(&[1, 4, 8, 16], &[0, 2, 1, 3], &[1, 1, 8, 64]).is_none());
        assert!(reshape_below_transpose(&[2, 3, 4], &[2, 1, 0], &[4, 6]).is_none());
    }
}
