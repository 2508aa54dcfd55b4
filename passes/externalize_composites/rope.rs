//! RoPE → `rope` in the cos/sin-input variant (coreai-torch's `RoPE`:
//! inputs `input`, `cos`, `sin`; `op_attrs` `base`, `dims` when partial,
//! `interleaved`, `scale`).
//!
//! ```text
//! y = x · cos + rotate_half(x) · sin                 (full rotary)
//! y = cat(x_r · cos + rotate_half(x_r) · sin, x_p)   (partial: x_r = x[..., :d], x_p = x[..., d:])
//!   rotate_half(z) = cat(-z[..., h:], z[..., :h]),  h = width(z) / 2
//!   → coreai.invoke @rope(x, cos[..., :h], sin[..., :h])
//! ```
//!
//! The pairing is read from the slices: dimension `i` rotates with `i + h`
//! inside the rotated width (the composite's half-split pairing within its
//! first `dims`). A rotation over the whole head whose tables are 1 and 0
//! on some pairs (the "proportional" partial rotary of guide §5.7, pairing
//! across head_dim/2) is therefore a full-width `rope` without `dims`,
//! which is what it computes; it is never declared with the truncated
//! pairing.
//!
//! The composite takes half-width tables (`y₁ = cos·x₁ − sin·x₂`,
//! `y₂ = sin·x₁ + cos·x₂`), while `rotate_half` code multiplies by
//! full-width ones; the two agree only when both halves of each table are
//! equal. The recognizer proves it from the graph (the table is computed
//! from `cat(f, f)` through elementwise ops, reshapes, slices and
//! transposes that keep the last axis, or is a constant whose rows have
//! bit-identical halves: a registered buffer), passes the first half, and the
//! body widens it again with `cat(t, t)`: the body computes exactly what
//! the matched ops did. `base` is coreai-torch's default (10000: it has
//! no effect when cos/sin are inputs) and `scale` 1.
//!
//! The interleaved pairing (`interleaved = true`: `(x₀, x₁)`, `(x₂, x₃)`,
//! ... rotate together), as coreai-torch's `RoPE(interleaved=True)`
//! computes it, with half-width tables passed as they are:
//!
//! ```text
//! x₁ = x[..., 0:d:2], x₂ = x[..., 1:d:2]
//! y = reshape(cat(unsqueeze(c·x₁ − s·x₂, -1), unsqueeze(s·x₁ + c·x₂, -1), -1), [..., d])
//! y = cat(y, x[..., d:])                               (partial: dims = d)
//!   → coreai.invoke @rope(x, c, s)   {interleaved = true}
//! ```
//!
//! The members of the pairs may also be written as `x.reshape(..., d/2,
//! 2)` and `[..., 0]`, `[..., 1]` (or `unbind(-1)`), which lowers to
//! `reshape(slice(reshape(x, [..., d/2, 2]), [..., i:i+1]), [..., d/2])`;
//! partial when that `x` is `x[..., :d]`. (The Meta LLaMA reference's
//! `view_as_complex(x) · freqs_cis` lowers to a complex product between
//! `create_complex` and `real_part`/`imaginary_part`: not recognised.)
//!
//! The cat form (GPT-NeoX/GPT-J-style and reference code), half-split
//! pairing with half-width tables passed as they are:
//!
//! ```text
//! x₁ = z[..., :h], x₂ = z[..., h:2h]
//! y = cat(c·x₁ − s·x₂, s·x₁ + c·x₂)                 (full: z = x, 2h = width)
//! y = cat(c·x₁ − s·x₂, s·x₁ + c·x₂, x[..., d:])     (partial, d = 2h: z = x or x[..., :d])
//! y = cat(cat(c·x₁ − s·x₂, s·x₁ + c·x₂), x[..., d:])
//!   → coreai.invoke @rope(x, c, s)   {interleaved = false[, dims = d]}
//! ```
//!
//! Declines: a rotation with the wrong sign (`cat(x₂, −x₁)` or no
//! negation; interleaved: `c·x₁ + s·x₂` or `c·x₂ − s·x₁`; cat form:
//! `cat(c·x₁ + s·x₂, s·x₁ − c·x₂)`), the halves swapped (cat form:
//! `c·x₂ − s·x₁`), the second part with other tables than the first
//! (`c·x₁ + s·x₂`), slices that do
//! not split the rotated width in two halves (interleaved: not the even and
//! odd elements, or odd first), tables whose halves are not provably equal
//! (pass them computed in the model, or use half-width tables), tables
//! that widen the input, and the interleaved pairing written as
//! `x·cos + rotate_every_two(x)·sin` with full-width repeated tables (not
//! recognised).

use super::{
    outline::{OpAttr, Outline, Substitute},
    rms_norm::int_values,
    NearMiss,
};
use crate::fp16_stabilize::pattern::{defined_by, op_name, producer, shape, splat};
use coreai_ir::lowering::{broadcast_shapes, Decline, LoweringCx};
use coreai_ir::op::coreai;
use melior::ir::{operation::OperationLike, OperationRef, TypeLike, Value, ValueLike};

const STAGES: &[&str] = &[
    "sum of two products",
    "rotate_half (concat of the negated second half and the first half)",
    "half slices of the rotated input",
    "cos/sin tables",
];

fn miss(stage: usize, reason: impl Into<String>) -> NearMiss {
    NearMiss {
        composite: "rope",
        stage,
        matched: &STAGES[..stage],
        failed: STAGES[stage],
        reason: reason.into(),
    }
}

type Ops<'c, 'a> = Vec<OperationRef<'c, 'a>>;

const INT32_MAX: i64 = i32::MAX as i64;

/// `x[..., begin:end]` on the last axis only (`end` clamped to the width):
/// the sliced value, begin and end.
fn last_axis_slice<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<(Value<'c, 'a>, i64, i64)> {
    let op = defined_by(v, coreai::SLICE)?;
    let x = op.operand(0).ok()?;
    let sx = shape(x).ok()?;
    let r = sx.len();
    let begin = int_values(op.operand(1).ok()?)?;
    let end = int_values(op.operand(2).ok()?)?;
    let stride = int_values(op.operand(3).ok()?)?;
    if begin.len() != r || end.len() != r || stride.len() != r || stride.iter().any(|&s| s != 1) {
        return None;
    }
    for i in 0..r - 1 {
        if begin[i] != 0 || (end[i] < sx[i] && end[i] != INT32_MAX) {
            return None;
        }
    }
    Some((x, begin[r - 1], end[r - 1].min(sx[r - 1])))
}

/// The negated operand of `-z` (`z · -1` or `-1 · z`).
fn negated<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<(Value<'c, 'a>, OperationRef<'c, 'a>)> {
    let op = producer(v)?;
    match op_name(&op).as_str() {
        coreai::DECOMPOSABLE_BROADCASTING_MUL => {
            let (a, b) = (op.operand(0).ok()?, op.operand(1).ok()?);
            if splat(b) == Some(-1.0) && shape(b).ok()?.iter().all(|&d| d == 1) {
                Some((a, op))
            } else if splat(a) == Some(-1.0) && shape(a).ok()?.iter().all(|&d| d == 1) {
                Some((b, op))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The axis of a concat along the last axis of a rank-`rank` result.
fn concat_on_last(op: &OperationRef<'_, '_>, rank: usize) -> bool {
    op.operand(0)
        .ok()
        .and_then(int_values)
        .is_some_and(|a| a.len() == 1 && (a[0] == rank as i64 - 1 || a[0] == -1))
}

/// `rotate_half(z)`: `z` and the ops.
fn rotate_half<'c: 'a, 'a>(r: Value<'c, 'a>) -> Result<(Value<'c, 'a>, Ops<'c, 'a>), NearMiss> {
    let cat = defined_by(r, coreai::CONCAT).ok_or_else(|| miss(1, "not a concat"))?;
    let rank = shape(r).map_err(|e| miss(1, e))?.len();
    if cat.operand_count() != 3 || !concat_on_last(&cat, rank) {
        return Err(miss(1, "not a concat of two parts on the last axis"));
    }
    let (first, second) = (cat.operand(1).unwrap(), cat.operand(2).unwrap());
    let Some((hi, neg)) = negated(first) else {
        return Err(miss(
            1,
            "the first part is not negated (a rotation with the wrong sign)",
        ));
    };
    let (Some((z1, b1, e1)), Some((z2, b2, e2))) = (last_axis_slice(hi), last_axis_slice(second))
    else {
        return Err(miss(2, "the parts are not slices of the last axis"));
    };
    let width = shape(z1)
        .map_err(|e| miss(2, e))?
        .last()
        .copied()
        .unwrap_or(0);
    let h = width / 2;
    if z1 != z2 || width % 2 != 0 || (b1, e1, b2, e2) != (h, width, 0, h) {
        return Err(miss(
            2,
            format!(
                "the parts are [{b1}:{e1}] and [{b2}:{e2}] of a width {width}, not [{h}:{width}] and [0:{h}]"
            ),
        ));
    }
    let (s1, s2) = (producer(hi).unwrap(), producer(second).unwrap());
    Ok((z1, vec![cat, neg, s1, s2]))
}

/// Whether both halves of the last axis of `t` are provably equal.
fn halves_equal(t: Value<'_, '_>) -> bool {
    let mut v = t;
    for _ in 0..16 {
        let Some(op) = producer(v) else {
            return false;
        };
        let name = op_name(&op);
        let last = |x: Value| shape(x).ok().and_then(|s| s.last().copied());
        let next = match name.as_str() {
            coreai::CONSTANT => return constant_halves_equal(&op, v),
            coreai::COS | coreai::SIN | coreai::CAST => op.operand(0).ok(),
            coreai::CONCAT => {
                let rank = shape(v).map(|s| s.len()).unwrap_or(0);
                return op.operand_count() == 3
                    && concat_on_last(&op, rank)
                    && op.operand(1).ok() == op.operand(2).ok();
            }
            coreai::RESHAPE | coreai::BROADCAST_IN_DIMS => op
                .operand(0)
                .ok()
                .filter(|x| last(*x).is_some() && last(*x) == last(v)),
            coreai::TRANSPOSE => {
                let rank = shape(v).map(|s| s.len() as i64).unwrap_or(0);
                let keeps = op
                    .operand(1)
                    .ok()
                    .and_then(int_values)
                    .is_some_and(|p| p.last() == Some(&(rank - 1)));
                op.operand(0).ok().filter(|_| keeps)
            }
            coreai::SLICE => last_axis_slice(v)
                .filter(|(x, b, e)| *b == 0 && Some(*e) == last(*x))
                .map(|(x, _, _)| x)
                .or_else(|| {
                    // A slice of leading axes only.
                    let x = op.operand(0).ok()?;
                    let begin = int_values(op.operand(1).ok()?)?;
                    let end = int_values(op.operand(2).ok()?)?;
                    let stride = int_values(op.operand(3).ok()?)?;
                    let w = last(x)?;
                    let r = begin.len();
                    (r > 0
                        && begin[r - 1] == 0
                        && (end[r - 1] >= w || end[r - 1] == INT32_MAX)
                        && stride[r - 1] == 1)
                        .then_some(x)
                }),
            n if coreai::broadcast_base(n).is_some() => {
                let (a, b) = (op.operand(0).ok(), op.operand(1).ok());
                let scalar = |x: Option<Value>| {
                    x.and_then(|x| shape(x).ok())
                        .is_some_and(|s| s.iter().all(|&d| d == 1))
                };
                if scalar(b) && last(a.unwrap_or(v)) == last(v) {
                    a
                } else if scalar(a) && last(b.unwrap_or(v)) == last(v) {
                    b
                } else {
                    None
                }
            }
            _ => None,
        };
        match next {
            Some(n) => v = n,
            None => return false,
        }
    }
    false
}

/// Whether a float constant's rows have equal halves, bit for bit (a
/// table computed at export time: a registered buffer).
fn constant_halves_equal(op: &OperationRef<'_, '_>, v: Value<'_, '_>) -> bool {
    let (Ok(attr), Ok(s)) = (op.attribute("value"), shape(v)) else {
        return false;
    };
    let Some(&w) = s.last() else {
        return false;
    };
    let n: i64 = s.iter().product();
    let Ok(element) = crate::fp16_stabilize::pattern::element(v) else {
        return false;
    };
    if !element.is_float() || w % 2 != 0 || n <= 0 {
        return false;
    }
    let Some((data, splat)) = coreai_ir::weights::float_bytes(attr) else {
        return false;
    };
    if splat {
        return true;
    }
    let bytes_per = coreai_ir::raw::element_bits(v.r#type().to_raw()).unwrap_or(0) as usize / 8;
    if bytes_per == 0 || data.len() != n as usize * bytes_per {
        return false;
    }
    let row = w as usize * bytes_per;
    let half = row / 2;
    data.chunks(row).all(|r| r[..half] == r[half..])
}

/// Whether multiplying `x` by the table `t` keeps `x`'s shape.
fn fits(x: Value<'_, '_>, t: Value<'_, '_>) -> bool {
    match (shape(x), shape(t)) {
        (Ok(sx), Ok(st)) => {
            st.last() == sx.last() && broadcast_shapes(&[&sx, &st]).is_ok_and(|b| b == sx)
        }
        _ => false,
    }
}

/// A constant 1-D si32 tensor.
fn indices<'c, 'a>(cx: &LoweringCx<'c, 'a>, values: &[i64]) -> Result<Value<'c, 'a>, Decline> {
    let (ty, attr) = cx.int_tensor(&[values.len() as i64], values, "si32")?;
    cx.build_value(coreai::CONSTANT, &[], ty, &[("value", attr)])
}

/// `t[..., :w/2]`, built at the call site.
fn first_half<'c, 'a>(cx: &LoweringCx<'c, 'a>, t: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let mut s = shape(t)?;
    let r = s.len();
    let h = s[r - 1] / 2;
    let mut end = vec![INT32_MAX; r];
    end[r - 1] = h;
    let begin = indices(cx, &vec![0; r])?;
    let end = indices(cx, &end)?;
    let stride = indices(cx, &vec![1; r])?;
    s[r - 1] = h;
    let ty = crate::fp16_stabilize::pattern::tensor_type(
        &s,
        crate::fp16_stabilize::pattern::element(t)?,
    );
    cx.build_value(coreai::SLICE, &[t, begin, end, stride], ty, &[])
}

/// `cat(t, t)` on the last axis, built in the body.
fn doubled<'c, 'a>(cx: &LoweringCx<'c, 'a>, t: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let mut s = shape(t)?;
    let r = s.len();
    s[r - 1] *= 2;
    let (ty, attr) = cx.int_tensor(&[], &[r as i64 - 1], "si32")?;
    let axis = cx.build_value(coreai::CONSTANT, &[], ty, &[("value", attr)])?;
    let out = crate::fp16_stabilize::pattern::tensor_type(
        &s,
        crate::fp16_stabilize::pattern::element(t)?,
    );
    cx.build_value(coreai::CONCAT, &[axis, t, t], out, &[])
}

/// `x · c + rotate_half(x) · s`: x, c, s and the ops.
fn rotation<'c: 'a, 'a>(
    add: OperationRef<'c, 'a>,
) -> Result<(Value<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>, Ops<'c, 'a>), NearMiss> {
    let products = |v: Value<'c, 'a>| {
        let m = defined_by(v, coreai::DECOMPOSABLE_BROADCASTING_MUL)?;
        Some((m, m.operand(0).ok()?, m.operand(1).ok()?))
    };
    let (Some((ma, a0, a1)), Some((mb, b0, b1))) = (
        add.operand(0).ok().and_then(products),
        add.operand(1).ok().and_then(products),
    ) else {
        return Err(miss(0, "not a sum of two products"));
    };
    let mut last = miss(1, "no product of a rotate_half");
    for (mx, x0, x1, mr, r0, r1) in [(ma, a0, a1, mb, b0, b1), (mb, b0, b1, ma, a0, a1)] {
        for (r, s) in [(r0, r1), (r1, r0)] {
            let (z, rot_ops) = match rotate_half(r) {
                Ok(found) => found,
                Err(m) => {
                    if m.stage > last.stage {
                        last = m;
                    }
                    continue;
                }
            };
            let c = if x0 == z {
                x1
            } else if x1 == z {
                x0
            } else {
                last = miss(3, "the other product is not of the rotated input");
                continue;
            };
            let mut ops = vec![add, mx, mr];
            ops.extend(rot_ops);
            return Ok((z, c, s, ops));
        }
    }
    Err(last)
}

const INTERLEAVED_STAGES: &[&str] = &[
    "interleave (reshape of a concat of the two unsqueezed parts)",
    "rotation (c·x₁ − s·x₂, s·x₁ + c·x₂)",
    "even/odd slices of the input",
    "cos/sin tables",
];

fn imiss(stage: usize, reason: impl Into<String>) -> NearMiss {
    NearMiss {
        composite: "rope",
        stage,
        matched: &INTERLEAVED_STAGES[..stage],
        failed: INTERLEAVED_STAGES[stage],
        reason: reason.into(),
    }
}

/// `x[..., begin:end:stride]` on the last axis only (`end` clamped to the
/// width): the sliced value, begin, end and stride.
fn strided_last_axis_slice<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<(Value<'c, 'a>, i64, i64, i64)> {
    let op = defined_by(v, coreai::SLICE)?;
    let x = op.operand(0).ok()?;
    let sx = shape(x).ok()?;
    let r = sx.len();
    let begin = int_values(op.operand(1).ok()?)?;
    let end = int_values(op.operand(2).ok()?)?;
    let stride = int_values(op.operand(3).ok()?)?;
    if r == 0 || begin.len() != r || end.len() != r || stride.len() != r {
        return None;
    }
    for i in 0..r - 1 {
        if begin[i] != 0 || stride[i] != 1 || (end[i] < sx[i] && end[i] != INT32_MAX) {
            return None;
        }
    }
    Some((x, begin[r - 1], end[r - 1].min(sx[r - 1]), stride[r - 1]))
}

/// The operands of a product, in order.
fn factors<'c: 'a, 'a>(
    v: Value<'c, 'a>,
) -> Option<(OperationRef<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>)> {
    let m = defined_by(v, coreai::DECOMPOSABLE_BROADCASTING_MUL)?;
    Some((m, m.operand(0).ok()?, m.operand(1).ok()?))
}

/// One member of each interleaved pair: element `index` (0 or 1) of the
/// pairs of `x`'s first `end` (or `end + 1`) elements, written as a
/// stride-2 slice `x[..., index:end:2]` or as the pair form
/// `reshape(x, [..., d/2, 2])[..., index]` (`end = d`).
struct Component<'c, 'a> {
    x: Value<'c, 'a>,
    index: i64,
    end: i64,
    ops: Ops<'c, 'a>,
}

/// `v` as a [`Component`]: a stride-2 slice of the last axis, or
/// `reshape(slice(reshape(x, [..., h, 2]), [..., i:i+1]), [..., h])`.
fn component<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<Component<'c, 'a>> {
    if let Some((x, begin, end, 2)) = strided_last_axis_slice(v) {
        return Some(Component {
            x,
            index: begin,
            end,
            ops: vec![producer(v)?],
        });
    }
    let squeeze = defined_by(v, coreai::RESHAPE)?;
    let picked = squeeze.operand(0).ok()?;
    let (pairs, begin, end) = last_axis_slice(picked)?;
    let split = defined_by(pairs, coreai::RESHAPE)?;
    let x = split.operand(0).ok()?;
    let (sx, sp, sv) = (shape(x).ok()?, shape(pairs).ok()?, shape(v).ok()?);
    let r = sx.len();
    let h = *sx.last()? / 2;
    let paired = r > 0
        && sx[r - 1] == 2 * h
        && sp.len() == r + 1
        && sp[..r - 1] == sx[..r - 1]
        && sp[r - 1..] == [h, 2]
        && sv[..] == sp[..r]
        && end == begin + 1;
    paired.then(|| Component {
        x,
        index: begin,
        end: 2 * h,
        ops: vec![squeeze, producer(picked).unwrap(), split],
    })
}

/// A product `t · x` where `x` is the even (`index = 0`) or odd
/// (`index = 1`) member of the pairs: the op, the table, the member.
fn product_of_component<'c: 'a, 'a>(
    v: Value<'c, 'a>,
    index: i64,
) -> Option<(OperationRef<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>)> {
    let (m, a, b) = factors(v)?;
    let is = |x: Value<'c, 'a>| component(x).is_some_and(|c| c.index == index);
    if is(b) && !is(a) {
        Some((m, a, b))
    } else if is(a) && !is(b) {
        Some((m, b, a))
    } else {
        None
    }
}

/// The rotated part of an interleaved RoPE, rooted at its final reshape:
/// `reshape(cat(unsq(c·x₁ − s·x₂), unsq(s·x₁ + c·x₂)), [..., d])` with
/// `x₁ = x[..., 0:d:2]`, `x₂ = x[..., 1:d:2]`: x, c, s, the rotated width
/// `d` and the ops.
#[allow(clippy::type_complexity)]
fn interleaved_rotation<'c: 'a, 'a>(
    root: OperationRef<'c, 'a>,
) -> Result<
    (
        Value<'c, 'a>,
        Value<'c, 'a>,
        Value<'c, 'a>,
        i64,
        Ops<'c, 'a>,
    ),
    NearMiss,
> {
    let out: Value = root.result(0).map_err(|_| imiss(0, "no result"))?.into();
    let input = root.operand(0).map_err(|_| imiss(0, "no operand"))?;
    let cat =
        defined_by(input, coreai::CONCAT).ok_or_else(|| imiss(0, "not a reshape of a concat"))?;
    let (Ok(sc), Ok(so)) = (shape(input), shape(out)) else {
        return Err(imiss(0, "unranked"));
    };
    let r = sc.len();
    if r < 2
        || cat.operand_count() != 3
        || !concat_on_last(&cat, r)
        || sc[r - 1] != 2
        || so.len() != r - 1
        || so[..r - 2] != sc[..r - 2]
        || so[r - 2] != 2 * sc[r - 2]
    {
        return Err(imiss(0, "not pairs [..., h, 2] flattened to [..., 2h]"));
    }
    let unsqueezed = |i: usize| -> Option<(OperationRef<'c, 'a>, Value<'c, 'a>)> {
        let u = defined_by(cat.operand(i).ok()?, coreai::RESHAPE)?;
        let y = u.operand(0).ok()?;
        (shape(y).ok()? == sc[..r - 1]).then_some((u, y))
    };
    let (Some((u1, y1)), Some((u2, y2))) = (unsqueezed(1), unsqueezed(2)) else {
        return Err(imiss(
            0,
            "the concatenated parts are not unsqueezed [..., h] values",
        ));
    };
    let Some(sub) = defined_by(y1, coreai::DECOMPOSABLE_BROADCASTING_SUB) else {
        return Err(imiss(
            1,
            "the first part is not a difference (a rotation with the wrong sign)",
        ));
    };
    let Some(add) = defined_by(y2, coreai::DECOMPOSABLE_BROADCASTING_ADD) else {
        return Err(imiss(
            1,
            "the second part is not a sum (a rotation with the wrong sign)",
        ));
    };
    let operand = |op: OperationRef<'c, 'a>, i| op.operand(i).map_err(|_| imiss(1, "no operand"));
    let (Some((p, c, x1)), Some((q, s, x2))) = (
        product_of_component(operand(sub, 0)?, 0),
        product_of_component(operand(sub, 1)?, 1),
    ) else {
        return Err(imiss(
            1,
            "the first part is not c·x[..., 0::2] − s·x[..., 1::2] (a rotation with the wrong sign or pairing)",
        ));
    };
    let (a0, a1) = (operand(add, 0)?, operand(add, 1)?);
    let second = |u, w| {
        let (m1, t1, z1) = product_of_component(u, 0)?;
        let (m2, t2, z2) = product_of_component(w, 1)?;
        (t1 == s && z1 == x1 && t2 == c && z2 == x2).then_some((m1, m2))
    };
    let Some((m1, m2)) = second(a0, a1).or_else(|| second(a1, a0)) else {
        return Err(imiss(
            1,
            "the second part is not s·x[..., 0::2] + c·x[..., 1::2] with the first part's tables",
        ));
    };
    let (Some(k1), Some(k2)) = (component(x1), component(x2)) else {
        return Err(imiss(2, "the parts are not members of the pairs"));
    };
    let h = sc[r - 2];
    let d = 2 * h;
    let x = k1.x;
    let w = shape(x)
        .map_err(|e| imiss(2, e))?
        .last()
        .copied()
        .unwrap_or(0);
    // x[..., 0:d:2] and x[..., 1:d:2]: the clamped ends are d or d - 1.
    let (e1, e2) = (k1.end, k2.end);
    if x != k2.x
        || k1.index != 0
        || k2.index != 1
        || !(d - 1..=d).contains(&e1)
        || !(d - 1..=d).contains(&e2)
        || d > w
    {
        return Err(imiss(
            2,
            format!(
                "the members [{}:{e1}:2] and [{}:{e2}:2] do not pair the first {d} of a width {w}",
                k1.index, k2.index
            ),
        ));
    }
    if !fits(x1, c) || !fits(x1, s) {
        return Err(imiss(
            3,
            "the tables do not broadcast to the half-width slices",
        ));
    }
    let mut ops = vec![root, cat, u1, u2, sub, add, p, q, m1, m2];
    ops.extend(k1.ops);
    ops.extend(k2.ops);
    Ok((x, c, s, d, ops))
}

/// The input and `dims` of a rotation of the first `d` elements of `z`:
/// `z` itself, rotated whole, without a passed part; with the passed part
/// `pass = x[..., d:]`, the `x` that `z` is (its first `d` elements
/// rotated) or that `z = x[..., :d]` slices (the slice joins `ops`).
fn rotary_input<'c: 'a, 'a>(
    z: Value<'c, 'a>,
    d: i64,
    pass: Option<Value<'c, 'a>>,
    ops: &mut Ops<'c, 'a>,
    fail: impl Fn(String) -> NearMiss,
) -> Result<(Value<'c, 'a>, Option<i64>), NearMiss> {
    let width = |v| shape(v).ok().and_then(|s| s.last().copied()).unwrap_or(0);
    let Some(pass) = pass else {
        return if width(z) == d {
            Ok((z, None))
        } else {
            Err(fail(
                "a partial rotary: the concat after it is the root".into(),
            ))
        };
    };
    let Some((x, b, e)) = last_axis_slice(pass) else {
        return Err(fail(
            "the passed part is not a slice of the last axis".into(),
        ));
    };
    let w = width(x);
    if b != d || e != w {
        return Err(fail(format!(
            "the parts [0:{d}] and [{b}:{e}] do not split a width {w}"
        )));
    }
    if z == x {
        ops.push(producer(pass).unwrap());
        return Ok((x, Some(d)));
    }
    match last_axis_slice(z) {
        Some((xz, 0, end)) if xz == x && end == d => {
            ops.extend([producer(z).unwrap(), producer(pass).unwrap()]);
            Ok((x, Some(d)))
        }
        _ => Err(fail(
            "the rotated and passed parts are not slices of one input".into(),
        )),
    }
}

/// The `rope` composite of `input` with the `cos`/`sin` tables as they
/// are: base 10000 and scale 1 (unused with tables), `dims` when only the
/// first `dims` features rotate.
fn rope_outline<'c, 'a>(
    (x, c, s): (Value<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>),
    dims: Option<i64>,
    interleaved: bool,
    ops: Vec<OperationRef<'c, 'a>>,
) -> Outline<'c, 'a> {
    let mut attrs = vec![
        ("base", OpAttr::Float(10000.0)),
        ("interleaved", OpAttr::Bool(interleaved)),
        ("scale", OpAttr::Float(1.0)),
    ];
    if let Some(d) = dims {
        attrs.push(("dims", OpAttr::Int(d)));
    }
    Outline {
        decl: "rope",
        inputs: vec![("input", x), ("cos", c), ("sin", s)],
        attrs,
        ops,
        substitutes: Vec::new(),
        baked: Vec::new(),
        shared: Vec::new(),
        lift_result: false,
    }
}

/// Interleaved RoPE: full (rooted at the reshape) or partial (rooted at
/// the concat of the rotated part and `x[..., d:]`).
fn interleaved<'c, 'a>(
    root: OperationRef<'c, 'a>,
    rotated: OperationRef<'c, 'a>,
    pass: Option<Value<'c, 'a>>,
) -> Result<Outline<'c, 'a>, NearMiss> {
    let (z, c, s, d, mut ops) = interleaved_rotation(rotated)?;
    let (x, dims) = rotary_input(z, d, pass, &mut ops, |r| imiss(2, r))?;
    if dims.is_some() {
        ops.push(root);
    }
    Ok(rope_outline((x, c, s), dims, true, ops))
}

const CAT_STAGES: &[&str] = &[
    "concat of the two rotated halves",
    "rotation (c·x₁ − s·x₂, s·x₁ + c·x₂)",
    "half slices of the rotated input",
    "cos/sin tables",
];

fn cmiss(stage: usize, reason: impl Into<String>) -> NearMiss {
    NearMiss {
        composite: "rope",
        stage,
        matched: &CAT_STAGES[..stage],
        failed: CAT_STAGES[stage],
        reason: reason.into(),
    }
}

/// A product of a table and a slice of the last axis, read both ways:
/// (op, table, slice, sliced value, begin, end).
#[allow(clippy::type_complexity)]
fn products_of_slices<'c: 'a, 'a>(
    v: Value<'c, 'a>,
) -> Vec<(
    OperationRef<'c, 'a>,
    Value<'c, 'a>,
    Value<'c, 'a>,
    Value<'c, 'a>,
    i64,
    i64,
)> {
    let Some((m, a, b)) = factors(v) else {
        return Vec::new();
    };
    [(a, b), (b, a)]
        .into_iter()
        .filter_map(|(t, x)| {
            let (z, begin, end) = last_axis_slice(x)?;
            Some((m, t, x, z, begin, end))
        })
        .collect()
}

/// The product `t · x` or `x · t`, if `v` is one.
fn product_of<'c: 'a, 'a>(
    v: Value<'c, 'a>,
    t: Value<'c, 'a>,
    x: Value<'c, 'a>,
) -> Option<OperationRef<'c, 'a>> {
    let (m, a, b) = factors(v)?;
    ((a == t && b == x) || (a == x && b == t)).then_some(m)
}

/// The two rotated halves of the cat form, `y₁ = c·x₁ − s·x₂` and
/// `y₂ = s·x₁ + c·x₂` with `x₁ = z[..., :h]`, `x₂ = z[..., h:2h]`: z, c,
/// s, the rotated width `2h`, the half `x₁` and the ops.
#[allow(clippy::type_complexity)]
fn cat_rotation<'c: 'a, 'a>(
    y1: Value<'c, 'a>,
    y2: Value<'c, 'a>,
) -> Result<
    (
        Value<'c, 'a>,
        Value<'c, 'a>,
        Value<'c, 'a>,
        i64,
        Value<'c, 'a>,
        Ops<'c, 'a>,
    ),
    NearMiss,
> {
    let sub = defined_by(y1, coreai::DECOMPOSABLE_BROADCASTING_SUB).ok_or_else(|| {
        cmiss(
            1,
            "the first part is not a difference (a rotation with the wrong sign)",
        )
    })?;
    let add = defined_by(y2, coreai::DECOMPOSABLE_BROADCASTING_ADD).ok_or_else(|| {
        cmiss(
            1,
            "the second part is not a sum (a rotation with the wrong sign)",
        )
    })?;
    let operand = |op: OperationRef<'c, 'a>, i| op.operand(i).map_err(|_| cmiss(1, "no operand"));
    let (minuend, subtrahend) = (operand(sub, 0)?, operand(sub, 1)?);
    let mut found = None;
    for (p, c, x1, z, b1, e1) in products_of_slices(minuend) {
        for (q, s, x2, z2, b2, e2) in products_of_slices(subtrahend) {
            let h = e1 - b1;
            if z == z2 && b1 == 0 && h > 0 && b2 == h && e2 == 2 * h {
                found = Some((p, c, x1, q, s, x2, z, h));
            }
        }
    }
    let Some((p, c, x1, q, s, x2, z, h)) = found else {
        return Err(cmiss(
            1,
            "the first part is not c·x[..., :h] − s·x[..., h:2h] (a rotation with the wrong sign or pairing)",
        ));
    };
    let (a0, a1) = (operand(add, 0)?, operand(add, 1)?);
    let second = |u, w| Some((product_of(u, s, x1)?, product_of(w, c, x2)?));
    let Some((m1, m2)) = second(a0, a1).or_else(|| second(a1, a0)) else {
        return Err(cmiss(
            1,
            "the second part is not s·x[..., :h] + c·x[..., h:2h] with the first part's tables",
        ));
    };
    let ops = vec![
        sub,
        add,
        p,
        q,
        m1,
        m2,
        producer(x1).unwrap(),
        producer(x2).unwrap(),
    ];
    Ok((z, c, s, 2 * h, x1, ops))
}

/// The cat form, full (`root = cat(y₁, y₂)`), partial with the passed
/// part in the same concat (`root = cat(y₁, y₂, x[..., d:])`) or in an
/// outer one (`root = cat(cat(y₁, y₂), x[..., d:])`, `inner` the inner
/// concat): the half-width tables are passed as they are.
fn cat_form<'c, 'a>(
    root: OperationRef<'c, 'a>,
    (y1, y2): (Value<'c, 'a>, Value<'c, 'a>),
    pass: Option<Value<'c, 'a>>,
    inner: Option<OperationRef<'c, 'a>>,
) -> Result<Outline<'c, 'a>, NearMiss> {
    let (z, c, s, d, x1, mut ops) = cat_rotation(y1, y2)?;
    ops.push(root);
    ops.extend(inner);
    let (x, dims) = rotary_input(z, d, pass, &mut ops, |r| cmiss(2, r))?;
    if !fits(x1, c) || !fits(x1, s) {
        return Err(cmiss(3, "the tables do not broadcast to the halves"));
    }
    Ok(rope_outline((x, c, s), dims, false, ops))
}

/// Recognises RoPE rooted at the final sum (`rotate_half`, full rotary),
/// at the reshape that interleaves the rotated pairs (interleaved), at
/// the concat of the two rotated halves (cat form), or at the concat of
/// a rotated part and the passed-through `x[..., d:]` (partial rotary).
pub fn recognize<'c, 'a>(root: OperationRef<'c, 'a>) -> Result<Outline<'c, 'a>, NearMiss> {
    if let Some(user) = single_user(root) {
        if op_name(&user) == coreai::CONCAT
            && user.operand_count() == 3
            && user.operand(1).ok() == root.result(0).ok().map(Into::into)
            && recognize(user).is_ok()
        {
            return Err(miss(0, "a partial rotary: the concat after it is the root"));
        }
    }
    match op_name(&root).as_str() {
        coreai::RESHAPE => return interleaved(root, root, None),
        coreai::CONCAT => {}
        _ => return half_split(root, root, None),
    }
    let rank = root
        .result(0)
        .ok()
        .and_then(|r| shape(r.into()).ok())
        .map_or(0, |s| s.len());
    let parts: Vec<Value> = (1..root.operand_count())
        .filter_map(|i| root.operand(i).ok())
        .collect();
    if !(2..=3).contains(&parts.len()) || !concat_on_last(&root, rank) {
        return Err(miss(
            0,
            "not a concat of two or three parts on the last axis",
        ));
    }
    let (first, second) = (parts[0], parts[1]);
    if parts.len() == 3 {
        if defined_by(first, coreai::DECOMPOSABLE_BROADCASTING_SUB).is_none() {
            return Err(cmiss(
                0,
                "a concat of three parts whose first is not a difference",
            ));
        }
        return cat_form(root, (first, second), Some(parts[2]), None);
    }
    if defined_by(first, coreai::DECOMPOSABLE_BROADCASTING_SUB).is_some() {
        return cat_form(root, (first, second), None, None);
    }
    if let Some(reshape) = defined_by(first, coreai::RESHAPE) {
        return interleaved(root, reshape, Some(second));
    }
    if let Some(inner) = defined_by(first, coreai::CONCAT).filter(|c| c.operand_count() == 3) {
        let halves = (inner.operand(1), inner.operand(2));
        if let (Ok(y1), Ok(y2)) = halves {
            if concat_on_last(&inner, rank)
                && defined_by(y1, coreai::DECOMPOSABLE_BROADCASTING_SUB).is_some()
            {
                return cat_form(root, (y1, y2), Some(second), Some(inner));
            }
        }
    }
    let add = defined_by(first, coreai::DECOMPOSABLE_BROADCASTING_ADD)
        .ok_or_else(|| miss(0, "the first part is not a sum"))?;
    if last_axis_slice(second).is_none()
        && defined_by(second, coreai::DECOMPOSABLE_BROADCASTING_SUB).is_some()
    {
        // cat(c·x₁ + s·x₂, s·x₁ − c·x₂): the cat form with the signs swapped.
        return cat_form(root, (first, second), None, None);
    }
    half_split(root, add, Some(second))
}

/// `x · cos + rotate_half(x) · sin` (rooted at the sum `add`), full or
/// partial (`root` the concat with the passed part `pass`).
fn half_split<'c, 'a>(
    root: OperationRef<'c, 'a>,
    add: OperationRef<'c, 'a>,
    pass: Option<Value<'c, 'a>>,
) -> Result<Outline<'c, 'a>, NearMiss> {
    let (z, c, s, mut ops) = rotation(add)?;
    let d = shape(z)
        .map_err(|e| miss(2, e))?
        .last()
        .copied()
        .unwrap_or(0);
    let (x, dims) = rotary_input(z, d, pass, &mut ops, |r| miss(2, r))?;
    if dims.is_some() {
        ops.push(root);
    }
    if !fits(z, c) || !fits(z, s) {
        return Err(miss(3, "the tables do not broadcast to the rotated input"));
    }
    if !halves_equal(c) || !halves_equal(s) {
        return Err(miss(
            3,
            "the halves of the full-width cos/sin tables are not provably equal",
        ));
    }
    let substitute = |input| Substitute {
        input,
        narrow: first_half,
        widen: doubled,
    };
    Ok(Outline {
        substitutes: vec![substitute(1), substitute(2)],
        ..rope_outline((x, c, s), dims, false, ops)
    })
}

/// The one op using `op`'s result, if it has exactly one use.
fn single_user<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let r: Value = op.result(0).ok()?.into();
    if crate::fp16_stabilize::pattern::use_count(r) != 1 {
        return None;
    }
    coreai_ir::schema::uses(r).first().map(|(user, _)| *user)
}
