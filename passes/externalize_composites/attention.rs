//! Attention → `scaled_dot_product_attention` (coreai-torch's `SDPA`:
//! inputs `query`, `key`, `value`, `attn_mask`; `op_attrs` `is_causal`,
//! `scale`, `window_size`).
//!
//! ```text
//! o = softmax(q · kᵀ · s + m, -1) · v           (additive mask; `/ c` or `· c`)
//! o = softmax(where(b, q · kᵀ · s, -inf), -1) · v (boolean mask, true = attend)
//! o = softmax(where(b, -inf, q · kᵀ · s), -1) · v (masked_fill(b, -inf): true = masked out)
//! o = softmax((q · s) · kᵀ, -1) · v              (query scaled first; no mask)
//! k, v = repeat_kv(k), repeat_kv(v)             (GQA: repeat_interleave/expand on dim 1)
//!   → coreai.invoke @scaled_dot_product_attention(q, k, v[, m])
//! ```
//!
//! The matmuls are the lowering's 4-D form (reshape to 3-D, batch matmul,
//! reshape back) or a 4-D batch matmul; `kᵀ` is a transpose of the last
//! two axes. A 3-D attention (`[N, T, D]`, as `nn.MultiheadAttention`
//! computes it with `need_weights=True`: `bmm` over batch × heads) is the
//! 4-D composite with one batch: q, k, v (and a 3-D mask) are passed as
//! `reshape [1, N, T, D]`, the body reshapes them back and the result is
//! reshaped to `[1, N, T, D_v]` and back at the call site (reshapes only:
//! exact). When the softmax weights are also used outside (the averaged
//! weights `need_weights=True` returns), the ops up to the softmax stay in
//! place for that use and the composite computes its own clone: the
//! scores are computed twice, each exactly as before (the composite
//! returns no weights). A `masked_fill(b, -inf)` mask (true = masked out)
//! that is not proved causal is passed as `not(b)` (the composite's
//! boolean mask is true where attended), negated back in the body. As the composite wants, key and value are passed with their
//! own head count (`[B, N_kv, T, D]`): the head repetition
//! (`reshape [B, N_kv, 1, T, D] → broadcast on axis 2 → reshape [B, N_q,
//! T, D]`) is outlined with the rest. A mask computed from constants only
//! (evaluated with the executor's kernels, when they are installed, as in
//! `coreai-opt` and `coreai-compile`) that is coreai-torch's causal triangle
//! (lower-right: query `i` attends key `j ≤ i + T_k − T_q`; the same as
//! PyTorch's upper-left one when `T_q = T_k`), additive (0 / ≤ −1e4) or
//! boolean (true where attended, or, for `masked_fill`, the strict upper
//! triangle `triu(ones, 1)` true where masked out: a registered buffer or
//! computed in forward), of at most 2²⁰ elements, gives `is_causal = true` and no `attn_mask` input, as
//! `SDPA(is_causal=True)` declares: the body reads the proved mask as a
//! constant and computes what the matched ops did. Any other mask (an
//! input, an upper-left triangle with `T_q < T_k`, a padding mask) stays
//! the `attn_mask` input with `is_causal = false`, exact in both
//! geometries. `window_size = 0`. `scale` is left out when
//! it equals `1/√d` in f32 (the composite's default), as coreai-torch
//! leaves it out for `SDPA()`.
//!
//! Declines (with a reason, printed by `remarks=true`): a softmax over
//! another axis, a select whose fill is not -inf or very negative, a mask
//! that widens the scores, a non-constant scale, intermediates other
//! than the softmax weights used outside,
//! key/value head counts that do not divide the query's, other layouts.
//! Heads tiled another way (`repeat(1, n, 1, 1)`) stay outside: the
//! composite then gets the tiled key and value, as multi-head attention.

use super::{
    outline::{drop_leading, lift, OpAttr, Outline, Reform, Substitute},
    rms_norm::int_values,
    NearMiss,
};
use crate::fp16_stabilize::pattern::{defined_by, shape, splat, use_count};
use coreai_ir::lowering::Scalar;
use coreai_ir::lowering::{broadcast_shapes, Decline, LoweringCx};
use coreai_ir::op::coreai;
use melior::ir::{operation::OperationLike, OperationRef, Value};

const STAGES: &[&str] = &[
    "weights · value matmul",
    "softmax over the last axis",
    "mask",
    "scale",
    "query · keyᵀ matmul",
    "key transpose",
    "key/value head repetition",
];

fn miss(stage: usize, reason: impl Into<String>) -> NearMiss {
    NearMiss {
        composite: "scaled_dot_product_attention",
        stage,
        matched: &STAGES[..stage],
        failed: STAGES[stage],
        reason: reason.into(),
    }
}

type Ops<'c, 'a> = Vec<OperationRef<'c, 'a>>;

/// A 4-D matmul `a · b` (the lowering's reshape/batch-matmul/reshape or a
/// rank-4 batch matmul) or a 3-D one (a rank-3 batch matmul).
fn matmul<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<(Value<'c, 'a>, Value<'c, 'a>, Ops<'c, 'a>)> {
    if let Some(bmm) = defined_by(v, coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL) {
        let (a, b) = (bmm.operand(0).ok()?, bmm.operand(1).ok()?);
        let (ra, rb) = (shape(a).ok()?.len(), shape(b).ok()?.len());
        return (ra == rb && (ra == 3 || ra == 4)).then(|| (a, b, vec![bmm]));
    }
    let back = defined_by(v, coreai::RESHAPE)?;
    let bmm = defined_by(
        back.operand(0).ok()?,
        coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL,
    )?;
    let ra = defined_by(bmm.operand(0).ok()?, coreai::RESHAPE)?;
    let rb = defined_by(bmm.operand(1).ok()?, coreai::RESHAPE)?;
    let (a, b) = (ra.operand(0).ok()?, rb.operand(0).ok()?);
    let (sa, sb, sv) = (shape(a).ok()?, shape(b).ok()?, shape(v).ok()?);
    let consistent = sa.len() == 4
        && sb.len() == 4
        && sv.len() == 4
        && sa[..2] == sb[..2]
        && sa[..2] == sv[..2]
        && sa[3] == sb[2]
        && sv[2] == sa[2]
        && sv[3] == sb[3];
    consistent.then(|| (a, b, vec![back, bmm, ra, rb]))
}

/// `x` repeated on the head axis, interleaved (`repeat_interleave(n, 1)` or
/// `x[:, :, None].expand(...).reshape(...)`): the native `x` and the ops.
fn repeated_heads<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<(Value<'c, 'a>, Ops<'c, 'a>)> {
    let r2 = defined_by(v, coreai::RESHAPE)?;
    let bc = defined_by(r2.operand(0).ok()?, coreai::BROADCAST_IN_DIMS)?;
    let r1 = defined_by(bc.operand(0).ok()?, coreai::RESHAPE)?;
    let x = r1.operand(0).ok()?;
    let (sx, s1, sb, sv) = (
        shape(x).ok()?,
        shape(r1.result(0).ok()?.into()).ok()?,
        shape(bc.result(0).ok()?.into()).ok()?,
        shape(v).ok()?,
    );
    let ok = sx.len() == 4
        && s1 == [sx[0], sx[1], 1, sx[2], sx[3]]
        && sb.len() == 5
        && sb[0] == sx[0]
        && sb[1] == sx[1]
        && sb[3..] == sx[2..]
        && sv == [sx[0], sx[1] * sb[2], sx[2], sx[3]];
    ok.then(|| (x, vec![r2, bc, r1]))
}

/// The native key or value (before a head repetition) and the ops.
fn native<'c: 'a, 'a>(
    v: Value<'c, 'a>,
    heads: i64,
) -> Result<(Value<'c, 'a>, Ops<'c, 'a>), NearMiss> {
    let sx = shape(v).map_err(|e| miss(6, e))?;
    if sx.len() == 3 {
        // [N, T, D]: one head per batch entry, never repeated.
        return if sx[0] == heads {
            Ok((v, Vec::new()))
        } else {
            Err(miss(
                6,
                format!("{} key/value batches, {heads} query batches", sx[0]),
            ))
        };
    }
    let (x, ops) = repeated_heads(v).unwrap_or((v, Vec::new()));
    let h = shape(x).map_err(|e| miss(6, e))?[1];
    if h <= 0 || heads % h != 0 {
        return Err(miss(
            6,
            format!("{h} key/value heads do not divide {heads} query heads"),
        ));
    }
    if h != heads && ops.is_empty() {
        return Err(miss(6, "the key/value heads are not repeated on axis 1"));
    }
    Ok((x, ops))
}

/// The scores before the mask: `(q · kᵀ) · s`, `(q · kᵀ) / c` or
/// `(q · s) · kᵀ`; the scale (`None`: 1) and the parts.
struct Scores<'c, 'a> {
    q: Value<'c, 'a>,
    k: Value<'c, 'a>,
    scale: Option<f64>,
    ops: Ops<'c, 'a>,
}

fn scores<'c: 'a, 'a>(s: Value<'c, 'a>) -> Result<Scores<'c, 'a>, NearMiss> {
    let mut ops = Vec::new();
    let mut scale = None;
    let mut s0 = s;
    if let Some(div) = defined_by(s, coreai::DECOMPOSABLE_BROADCASTING_DIVIDE) {
        let c = div
            .operand(1)
            .ok()
            .and_then(splat)
            .ok_or_else(|| miss(3, "a division by a non-constant"))?;
        scale = Some(1.0 / c);
        s0 = div.operand(0).map_err(|_| miss(3, "no operand"))?;
        ops.push(div);
    } else if let Some(mul) = defined_by(s, coreai::DECOMPOSABLE_BROADCASTING_MUL) {
        let (a, b) = (mul.operand(0).ok(), mul.operand(1).ok());
        let (x, c) = match (a.and_then(splat), b.and_then(splat)) {
            (_, Some(c)) => (a, c),
            (Some(c), _) => (b, c),
            _ => return Err(miss(3, "a multiplication by a non-constant")),
        };
        scale = Some(c);
        s0 = x.ok_or_else(|| miss(3, "no operand"))?;
        ops.push(mul);
    }
    let (mut q, kt, mm) = matmul(s0).ok_or_else(|| miss(4, "the scores are not a 4-D matmul"))?;
    ops.extend(mm);
    let tr = defined_by(kt, coreai::TRANSPOSE)
        .ok_or_else(|| miss(5, "the right operand is not a transpose"))?;
    let perm = tr.operand(1).ok().and_then(int_values);
    let last_two: &[i64] = if shape(q).map_or(0, |s| s.len()) == 3 {
        &[0, 2, 1]
    } else {
        &[0, 1, 3, 2]
    };
    if perm.as_deref() != Some(last_two) {
        return Err(miss(
            5,
            format!("the transpose permutes {perm:?}, not the last two axes"),
        ));
    }
    ops.push(tr);
    let k = tr.operand(0).map_err(|_| miss(5, "no operand"))?;
    if scale.is_none() {
        if let Some(mul) =
            defined_by(q, coreai::DECOMPOSABLE_BROADCASTING_MUL).filter(|_| use_count(q) == 1)
        {
            let (a, b) = (mul.operand(0).ok(), mul.operand(1).ok());
            if let (Some(x), Some(c)) = (a, b.and_then(splat)) {
                scale = Some(c);
                q = x;
                ops.push(mul);
            } else if let (Some(c), Some(x)) = (a.and_then(splat), b) {
                scale = Some(c);
                q = x;
                ops.push(mul);
            }
        }
    }
    Ok(Scores { q, k, scale, ops })
}

/// Whether `m` broadcast against `s` keeps `s`'s shape.
fn fits(m: Value<'_, '_>, s: Value<'_, '_>) -> bool {
    match (shape(m), shape(s)) {
        (Ok(sm), Ok(ss)) => broadcast_shapes(&[&sm, &ss]).is_ok_and(|b| b == ss),
        _ => false,
    }
}

/// How a mask acts on the scores.
#[derive(Clone, Copy, PartialEq)]
enum MaskKind {
    /// `s + m`: 0 where attended, very negative elsewhere.
    Additive,
    /// `where(m, s, -inf)`: true where attended (the composite's boolean mask).
    Attend,
    /// `where(m, -inf, s)` (`masked_fill(m, -inf)`): true where masked out.
    MaskedOut,
}

/// A mask: the value and how it acts.
type Mask<'c, 'a> = (Value<'c, 'a>, MaskKind);

/// The masked scores: the unmasked scores, the mask (if any), the ops.
fn masked<'c: 'a, 'a>(
    s: Value<'c, 'a>,
) -> Result<(Scores<'c, 'a>, Option<Mask<'c, 'a>>, Ops<'c, 'a>), NearMiss> {
    if let Some(add) = defined_by(s, coreai::DECOMPOSABLE_BROADCASTING_ADD) {
        let (a, b) = (
            add.operand(0).map_err(|_| miss(2, "no operand"))?,
            add.operand(1).map_err(|_| miss(2, "no operand"))?,
        );
        let mut last = miss(2, "neither side of the addition is the scores");
        for (x, m) in [(a, b), (b, a)] {
            match scores(x) {
                Ok(sc) if fits(m, x) => return Ok((sc, Some((m, MaskKind::Additive)), vec![add])),
                Ok(_) => last = miss(2, "the additive mask widens the scores"),
                Err(e) if e.stage > last.stage => last = e,
                Err(_) => {}
            }
        }
        return Err(last);
    }
    if let Some(w) = defined_by(s, coreai::DECOMPOSABLE_BROADCASTING_WHERE) {
        let operand = |i| w.operand(i).map_err(|_| miss(2, "no operand"));
        let (c, t, f) = (operand(0)?, operand(1)?, operand(2)?);
        let very_negative = |v| splat(v).is_some_and(|x| x <= -1e4);
        if very_negative(t) {
            if !fits(c, f) {
                return Err(miss(2, "the boolean mask widens the scores"));
            }
            let sc = scores(f)?;
            return Ok((sc, Some((c, MaskKind::MaskedOut)), vec![w]));
        }
        if !very_negative(f) {
            return Err(miss(
                2,
                "a select whose fill is not -inf or a large negative constant",
            ));
        }
        if !fits(c, t) {
            return Err(miss(2, "the boolean mask widens the scores"));
        }
        let sc = scores(t)?;
        return Ok((sc, Some((c, MaskKind::Attend)), vec![w]));
    }
    Ok((scores(s)?, None, Vec::new()))
}

/// Recognises attention rooted at the weights · value matmul's last op.
pub fn recognize<'c, 'a>(root: OperationRef<'c, 'a>) -> Result<Outline<'c, 'a>, NearMiss> {
    let out: Value = root.result(0).map_err(|_| miss(0, "no result"))?.into();
    let (p, vr, mut ops) = matmul(out).ok_or_else(|| miss(0, "not a 4-D matmul"))?;
    let softmax =
        defined_by(p, coreai::SOFTMAX).ok_or_else(|| miss(1, "the weights are not a softmax"))?;
    let rank = shape(p).map_err(|e| miss(1, e))?.len() as i64;
    let axis = softmax.operand(1).ok().and_then(int_values);
    if !matches!(axis.as_deref(), Some([a]) if *a == rank - 1 || *a == -1) {
        return Err(miss(
            1,
            format!("the softmax is over axis {axis:?}, not the last"),
        ));
    }
    ops.push(softmax);
    let s = softmax.operand(0).map_err(|_| miss(2, "no operand"))?;
    let (sc, mask, mask_ops) = masked(s)?;
    ops.extend(mask_ops);
    ops.extend(sc.ops);
    let sq = shape(sc.q).map_err(|e| miss(6, e))?;
    let rank = sq.len();
    let heads = sq[rank - 3];
    let (k, k_ops) = native(sc.k, heads)?;
    let (v, v_ops) = native(vr, heads)?;
    ops.extend(k_ops);
    ops.extend(v_ops);
    let scores_shape = shape(s).map_err(|e| miss(2, e))?;
    let causal = mask.and_then(|(m, kind)| Some((m, causal_mask(m, &scores_shape, kind)?)));
    let mut attrs = vec![
        ("is_causal", OpAttr::Bool(causal.is_some())),
        ("window_size", OpAttr::Int(0)),
    ];
    let d = sq[rank - 1] as f64;
    if let Some(s) = sc.scale {
        if (s as f32) != (d.powf(-0.5) as f32) {
            attrs.push(("scale", OpAttr::Float(s)));
        }
    } else {
        attrs.push(("scale", OpAttr::Float(1.0)));
    }
    let mut inputs = vec![("query", sc.q), ("key", k), ("value", v)];
    let mut substitutes = Vec::new();
    if rank == 3 {
        for input in 0..3 {
            substitutes.push(Substitute {
                input,
                narrow: lift,
                widen: drop_leading,
            });
        }
    }
    let mut baked = Vec::new();
    match (mask, causal) {
        (_, Some(proved)) => baked.push(proved),
        (Some((m, kind)), None) => {
            let lifted = rank == 3 && shape(m).map_err(|e| miss(2, e))?.len() == 3;
            let reform: Option<(Reform, Reform)> = match (kind, lifted) {
                (MaskKind::MaskedOut, true) => Some((negate_lift, drop_negate)),
                (MaskKind::MaskedOut, false) => Some((negate, negate)),
                (_, true) => Some((lift, drop_leading)),
                (_, false) => None,
            };
            if let Some((narrow, widen)) = reform {
                substitutes.push(Substitute {
                    input: 3,
                    narrow,
                    widen,
                });
            }
            inputs.push(("attn_mask", m));
        }
        (None, None) => {}
    }
    Ok(Outline {
        decl: "scaled_dot_product_attention",
        inputs,
        attrs,
        ops,
        substitutes,
        baked,
        shared: vec![softmax],
        lift_result: rank == 3,
    })
}

/// The largest mask [`causal_mask`] reads, in elements.
const MAX_MASK_ELEMENTS: i64 = 1 << 20;

/// The value of `m` when it is coreai-torch's causal mask (lower-right:
/// query `i` attends key `j` iff `j ≤ i + T_k − T_q`, `T_k ≥ T_q`) for
/// scores of shape `scores` (`[..., T_q, T_k]`), the same for every leading
/// index: additive 0 where attended and ≤ −1e4 (or −inf) elsewhere, or
/// boolean true where attended. `m` must derive from constants only (it is
/// evaluated with the executor's kernels); `None` otherwise.
fn causal_mask(
    m: Value<'_, '_>,
    scores: &[i64],
    kind: MaskKind,
) -> Option<mlir_sys::MlirAttribute> {
    let sm = shape(m).ok()?;
    let (r, rs) = (sm.len(), scores.len());
    if r < 2 || rs < 2 || sm[r - 2..] != scores[rs - 2..] {
        return None;
    }
    let (tq, tk) = (sm[r - 2], sm[r - 1]);
    let n: i64 = sm.iter().product();
    if tq <= 0 || tk < tq || n > MAX_MASK_ELEMENTS {
        return None;
    }
    let attr = crate::core_optimize::evaluate(m, 64)?;
    if coreai_ir::raw::is_splat(attr) && tk > 1 {
        return None;
    }
    let values = coreai_ir::raw::element_scalars(attr)?;
    if values.len() as i64 != n {
        return None;
    }
    for (linear, value) in values.into_iter().enumerate() {
        let (i, j) = ((linear as i64 / tk) % tq, linear as i64 % tk);
        let attended = j <= i + tk - tq;
        let ok = match (kind, value) {
            (MaskKind::Additive, Scalar::Float(x)) => {
                if attended {
                    x == 0.0
                } else {
                    x <= -1e4
                }
            }
            (MaskKind::Additive, Scalar::Int(_)) => false,
            (_, Scalar::Int(x)) => (x != 0) == (attended == (kind == MaskKind::Attend)),
            (_, Scalar::Float(_)) => false,
        };
        if !ok {
            return None;
        }
    }
    Some(attr)
}

/// `not(m)`: a mask true where masked out as the composite's, true where
/// attended; the body negates it back (`not(not(m)) = m`).
fn negate<'c, 'a>(cx: &LoweringCx<'c, 'a>, m: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    coreai_ir::emit::unary(cx, coreai::NOT, m)
}

fn negate_lift<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    m: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    lift(cx, negate(cx, m)?)
}

fn drop_negate<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    m: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    negate(cx, drop_leading(cx, m)?)
}
