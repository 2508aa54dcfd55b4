//! `argsort-ranks`: the indices that sort a short axis of softmax values,
//! counted in the float type instead of returned by `coreai.argsort`,
//! whose result is `si32` (coreai-core infers it so and takes nothing
//! else), a type the Neural Engine cannot hold (Apple's Neural Engine
//! rules: f16, int8 and int16 only). A mixture-of-experts router's top-k
//! is such a sort (its `softmax`, then `topk`).
//!
//! For `x` with `n` elements along `axis` (`j`, `i`, `r` in `[0, n)`):
//!
//! ```text
//! step(t)   = min(min(max(t · 2^a, 0), 1) · 2^a, 1)   (2^(2a) ≥ 1 / the least subnormal)
//! g[j, i]   = step(x_j - x_i)                       (x_j > x_i)
//! l[j, i]   = step(x_i - x_j)                       (x_j < x_i)
//! e[j, i]   = 1 - g[j, i] - l[j, i]                 (x_j = x_i)
//! before    = g + e · [j < i]    (descending)       l + e · [j < i]    (ascending)
//! rank_i    = Σ_j before[j, i]                      (i's place in the stable order)
//! perm_r    = Σ_i i · max(1 - |rank_i - r|, 0)      (the i whose rank is r)
//! result    = cast(min(max(cast(perm, si16), 0), n - 1), si32)
//! ```
//!
//! Exact for finite `x`: the difference of two distinct finite values of a
//! float type, rounded, is nonzero and of the exact difference's sign
//! (both are multiples of the least subnormal; an overflow is ±∞), so a
//! positive one is at least `2^-a` after the first product and clamp and
//! at least 1 after the second, and the clamps give 1 or 0. The clamp
//! between the two products is what keeps them apart: merged into one
//! product by `2^(2a)`, which overflows f16, a zero difference would give
//! `0 · ∞ = NaN` (coreai-core's runtime merges consecutive constant
//! products, and so would Apple's rewrite); `rank` and `perm` are sums of integers below `n ≤ 2048`, exact
//! in f16 and f32; a rank is an integer, so `max(1 - |rank - r|, 0)` is
//! `[rank = r]`, and exactly one `i` has each rank. The order is the stable
//! one (equal values by position), what `argsort` with `stable` gives and
//! a valid answer without it.
//!
//! Where a value is not finite the counts are wrong, so the rewrite applies
//! only to values proven to be a softmax along the sorted axis (directly or
//! reversed along it): each is in [0, 1], or the whole row is NaN (a NaN or
//! +∞ input makes every value of its row NaN). A NaN row's indices are
//! not the ones the sort gives; the final clamp keeps them in `[0, n)`, so
//! what reads them stays in bounds, and the values it gathers by them are
//! the row's NaNs, as the sort's would be.
//!
//! Declines: an axis that is not a constant, not static, of more than
//! [`MAX_AXIS`] elements (the counts take `n²` elements per row), a rank
//! above 4 (the counts add an axis; the Neural Engine takes rank 5), an
//! element type other than f16 or f32, or values not proven a softmax
//! along the axis.

use coreai_ir::emit::{self, axes, broadcasting, cast_to, constant, reshape};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use coreai_ir::schema::{element_type, normalize_dim, shape_of, tensor_type};
use coreai_ir::weights::dense_from_bytes;
use melior::ir::r#type::{RankedTensorType, ShapedTypeLike};
use melior::ir::{Type, TypeLike, Value, ValueLike};

/// The longest axis the rank form takes: its counts are `n²` elements per
/// row (a router's experts: Mixtral 8, Qwen3-MoE 128, DeepSeek-V3 256).
pub const MAX_AXIS: i64 = 256;

/// The Neural Engine's largest rank less the axis the counts add.
const MAX_INPUT_RANK: usize = 4;

/// A float element the rank form computes in: its width and the power of
/// two whose square is at least the reciprocal of its least subnormal.
fn scales(element: Type<'_>) -> Option<(u32, f64)> {
    let e = element.to_raw();
    if raw::is_bf16(e) {
        return None;
    }
    match raw::float_kind(e)? {
        // 2^-24 is f16's least subnormal.
        16 => Some((16, 2f64.powi(12))),
        // 2^-149 is f32's least subnormal.
        32 => Some((32, 2f64.powi(75))),
        _ => None,
    }
}

/// The axis a constant axis operand names, normalized against `rank`.
fn constant_axis(v: Value<'_, '_>, rank: usize) -> Result<usize, Decline> {
    match raw::constant_ints(v.to_raw()).as_deref() {
        Some([a]) => normalize_dim(*a, rank),
        _ => Err("the axis is not a constant".into()),
    }
}

/// Whether `x` is a softmax along `axis`, directly or reversed along it.
fn softmax_along(x: Value<'_, '_>, axis: usize, rank: usize) -> bool {
    let mut v = x.to_raw();
    loop {
        let Some(op) = raw::producer(v) else {
            return false;
        };
        let along = |i: usize| {
            raw::constant_ints(raw::operand(op, i))
                .and_then(|a| match a.as_slice() {
                    [a] => normalize_dim(*a, rank).ok(),
                    _ => None,
                })
                .is_some_and(|a| a == axis)
        };
        match raw::op_name(op).as_str() {
            coreai::SOFTMAX => return along(1),
            coreai::REVERSE if along(1) => v = raw::operand(op, 0),
            _ => return false,
        }
    }
}

/// A constant of `shape` and float `element` (`width` bits) with the
/// values `f(k)` in row-major order.
fn float_constant<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    shape: &[i64],
    element: Type<'c>,
    width: u32,
    f: impl Fn(usize) -> f64,
) -> Result<Value<'c, 'a>, Decline> {
    let count: i64 = shape.iter().product();
    let mut bytes = Vec::with_capacity(count as usize * width as usize / 8);
    for k in 0..count as usize {
        match width {
            16 => bytes.extend_from_slice(&half::f16::from_f64(f(k)).to_le_bytes()),
            _ => bytes.extend_from_slice(&(f(k) as f32).to_le_bytes()),
        }
    }
    let ty = tensor_type(shape, element);
    let attr = dense_from_bytes(ty, &bytes).ok_or("a rank constant does not build")?;
    constant(cx, ty, attr)
}

// argsort(x, axis, descending, stable) → the counts in the module comment.
pub fn argsort_ranks<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let x = cx.operand(0)?;
    let shape = shape_of(x)?;
    let rank = shape.len();
    if rank == 0 || rank > MAX_INPUT_RANK {
        return Err(format!(
            "rank {rank} (the counts add an axis; up to {MAX_INPUT_RANK} fits the Neural Engine)"
        ));
    }
    if shape.iter().any(|&d| d < 0) {
        return Err("a dynamic dim".into());
    }
    let axis = constant_axis(cx.operand(1)?, rank)?;
    let descending = raw::constant_attr(cx.operand(2)?.to_raw())
        .and_then(raw::splat_number)
        .ok_or("the direction is not a constant")?
        != 0.0;
    let n = shape[axis];
    if n > MAX_AXIS {
        return Err(format!(
            "an axis of {n} elements (the counts take n² per row; up to {MAX_AXIS})"
        ));
    }
    let element = element_type(x)?;
    let (width, scale) = scales(element).ok_or("the values are not f16 or f32")?;
    if !softmax_along(x, axis, rank) {
        return Err(
            "the values are not a softmax along the sorted axis (the counts are exact \
                    only where no value is infinite and a NaN fills its row)"
                .into(),
        );
    }
    let n_us = n as usize;
    // Shapes with the pair axes (j, i) at axis, axis + 1; `trail` the unit
    // dims after them, so that (n, n) constants broadcast.
    let with = |at: usize, d: i64| {
        let mut s = shape.clone();
        s.insert(at, d);
        s
    };
    let trail = rank - axis - 1;
    let pair_shape = |m: i64, k: i64| {
        let mut s = vec![m, k];
        s.extend(std::iter::repeat_n(1, trail));
        s
    };
    let mut pairs = shape.clone();
    pairs.insert(axis, n);
    let pairs_ty = tensor_type(&pairs, element);
    let scalar = |v: f64| float_constant(cx, &[], element, width, |_| v);
    // Every operand below is of `element`: the broadcast op in that type.
    let arith = |op: &str, p: Value<'c, 'a>, q: Value<'c, 'a>| emit::arith(cx, op, p, q);
    let step = |t: Value<'c, 'a>| -> Result<Value<'c, 'a>, Decline> {
        let t = arith(coreai::MUL, t, scalar(scale)?)?;
        let t = arith(
            coreai::MINIMUM,
            arith(coreai::MAXIMUM, t, scalar(0.0)?)?,
            scalar(1.0)?,
        )?;
        arith(
            coreai::MINIMUM,
            arith(coreai::MUL, t, scalar(scale)?)?,
            scalar(1.0)?,
        )
    };
    let xj = reshape(cx, x, &with(axis + 1, 1))?;
    let xi = reshape(cx, x, &with(axis, 1))?;
    let greater = step(arith(coreai::SUB, xj, xi)?)?;
    let less = step(arith(coreai::SUB, xi, xj)?)?;
    let equal = arith(
        coreai::SUB,
        arith(coreai::SUB, scalar(1.0)?, greater)?,
        less,
    )?;
    let earlier = float_constant(cx, &pair_shape(n, n), element, width, |k| {
        f64::from(u8::from(k / n_us < k % n_us))
    })?;
    let first = if descending { greater } else { less };
    let before = arith(coreai::ADD, first, arith(coreai::MUL, equal, earlier)?)?;
    debug_assert_eq!(before.r#type(), pairs_ty);
    let sum = |v: Value<'c, 'a>, over: usize| -> Result<Value<'c, 'a>, Decline> {
        let mut s = shape_of(v)?;
        s[over] = 1;
        cx.build_value(
            coreai::REDUCE_SUM,
            &[v, axes(cx, &[over as i64])?],
            tensor_type(&s, element),
            &[],
        )
    };
    // rank_i at (…, 1, i, …); r down the axis of j.
    let ranks = sum(before, axis)?;
    let places = float_constant(cx, &pair_shape(n, 1), element, width, |k| k as f64)?;
    let distance = cx.build_value(
        coreai::ABS,
        &[arith(coreai::SUB, ranks, places)?],
        pairs_ty,
        &[],
    )?;
    let hit = arith(
        coreai::MAXIMUM,
        arith(coreai::SUB, scalar(1.0)?, distance)?,
        scalar(0.0)?,
    )?;
    let positions = float_constant(cx, &pair_shape(1, n), element, width, |k| k as f64)?;
    let perm = sum(arith(coreai::MUL, hit, positions)?, axis + 1)?;
    let perm = reshape(cx, perm, &shape)?;
    let si16 = cx.parse_type("si16")?;
    let index = cast_to(cx, perm, si16)?;
    let bound = |op: &str, index: Value<'c, 'a>, v: i64| -> Result<Value<'c, 'a>, Decline> {
        let c = cx.scalar_constant(coreai_ir::lowering::Scalar::Int(v), si16)?;
        broadcasting(cx, op, index, c, index.r#type())
    };
    let index = bound(coreai::MINIMUM, bound(coreai::MAXIMUM, index, 0)?, n - 1)?;
    let result = cx.result_type(0)?;
    let wide = RankedTensorType::try_from(result)
        .map_err(|_| "the result is not a ranked tensor")?
        .element();
    Ok(vec![cast_to(cx, index, wide)?])
}
