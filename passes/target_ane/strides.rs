//! `stride-space-to-depth`: a convolution stride the Neural Engine maps
//! poorly, made stride 1 by moving the stride into channels (Apple's
//! Neural Engine rules, "Convolution stride optimization": strides "that
//! factor cleanly into 2s and 3s map efficiently"; for others, "use pixel
//! shuffle or transpose insertion tricks").
//!
//! Along a spatial axis with stride `s` and a kernel `k = s·k'`
//! (dilation 1), input position `s·t + j` with `j = s·q + r` (`q < k'`,
//! `r < s`) is position `t + q` of phase `r`. So
//!
//!   x'[b, c·s + r, …, m] = x[b, c, …, s·m + r]   (the axis split as
//!                                                (m, r), `r` moved
//!                                                next to the channels)
//!   w'[o, c·s + r, …, q] = w[o, c, …, s·q + r]   (the same for the kernel)
//!
//! and `conv(x, w, stride s)[t] = Σ_{c,j} w[c, j]·x[c, s·t + j]
//! = Σ_{c,r,q} w'[c·s + r, q]·x'[c·s + r, t + q] = conv(x', w', stride 1)[t]`:
//! the same products, each once (no zero weights: `s` divides `k`), summed
//! in another order (exact up to that order's rounding). Groups keep
//! their channels together (`c·s + r` stays in `c`'s group). The input is
//! first sliced to the `s·(T + k' - 1)` positions the convolution reads
//! (`T` its output length), which the split needs to be a multiple of `s`.
//!
//! Declines: strides whose prime factors are 2 and 3 only, a kernel the
//! stride does not divide, a dilation above 1 on that axis, dynamic dims,
//! parameters that are not constants.

use coreai_ir::emit::{reshape, shape, slice, transpose};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::raw::constant_ints;
use coreai_ir::schema::{shape_of, tensor_type, type_dims, DYNAMIC};
use melior::ir::{r#type::ShapedTypeLike, Value, ValueLike};

/// Whether the Neural Engine maps stride `s` well: 1, or only 2s and 3s.
fn well_factored(mut s: i64) -> bool {
    for p in [2, 3] {
        while s > 1 && s % p == 0 {
            s /= p;
        }
    }
    s == 1
}

/// `v : [N, C, d2, d3]` with spatial axis `axis` (2 or 3) of size `n·s`
/// split as `(n, s)` and the phase `s` moved next to the channels:
/// `[N, C·s, …, n, …]`, channel `c·s + r`, position `m` holding
/// `v[…, c, …, s·m + r, …]`.
fn space_to_depth<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
    axis: usize,
    s: i64,
) -> Result<Value<'c, 'a>, Decline> {
    let d = shape_of(v)?;
    let n = d[axis] / s;
    let (split, perm, merged) = if axis == 3 {
        (
            vec![d[0], d[1], d[2], n, s],
            [0, 1, 4, 2, 3],
            vec![d[0], d[1] * s, d[2], n],
        )
    } else {
        (
            vec![d[0], d[1], n, s, d[3]],
            [0, 1, 3, 2, 4],
            vec![d[0], d[1] * s, n, d[3]],
        )
    };
    let split = reshape(cx, v, &split)?;
    let moved = transpose(cx, split, &perm)?;
    reshape(cx, moved, &merged)
}

// conv2d(%x : B×C×H×W, %w : O×Cg×kh×kw, stride [sh, sw], dilation, groups)
//   with sw = s (a factor other than 2 and 3), kw = s·k', dilation 1 on W
//   → conv2d(space_to_depth(slice(x)), space_to_depth(w), stride [sh, 1], …)
// (the same for H).
pub fn stride_space_to_depth<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let (x, w) = (cx.operand(0)?, cx.operand(1)?);
    let ints = |i: usize| -> Result<Vec<i64>, Decline> {
        constant_ints(cx.operand(i)?.to_raw())
            .ok_or_else(|| format!("operand #{i} is not a constant"))
    };
    let (mut stride, dilation, groups) = (ints(2)?, ints(3)?, cx.operand(4)?);
    let (mut sx, sw) = (shape_of(x)?, shape_of(w)?);
    let out = type_dims(cx.result_type(0)?)?;
    if sx.iter().chain(&sw).chain(&out).any(|&d| d == DYNAMIC) {
        return Err("a dynamic dim (the Neural Engine runs static shapes)".into());
    }
    if stride.len() != 2 || dilation.len() != 2 {
        return Err("not two spatial dims".into());
    }
    let axes: Vec<usize> = (0..2).filter(|&a| !well_factored(stride[a])).collect();
    if axes.is_empty() {
        return Err(format!(
            "strides {stride:?}: prime factors 2 and 3 only, which the Neural Engine maps well"
        ));
    }
    for &a in &axes {
        let (s, k) = (stride[a], sw[2 + a]);
        if k % s != 0 {
            return Err(format!(
                "stride {s} does not divide the kernel {k} (the phases would need zero weights)"
            ));
        }
        if dilation[a] != 1 {
            return Err(format!("dilation {} along the strided axis", dilation[a]));
        }
    }
    let (mut x, mut w) = (x, w);
    let element = cx.result_tensor(0)?.element();
    for &a in &axes {
        let axis = 2 + a;
        let (s, k) = (stride[a], sw[axis]);
        let read = s * (out[axis] + k / s - 1);
        if read > sx[axis] {
            return Err(format!(
                "the convolution reads {read} positions of {}",
                sx[axis]
            ));
        }
        if read < sx[axis] {
            let mut bounds: Vec<(i64, i64, i64)> = sx.iter().map(|&n| (0, n, 1)).collect();
            bounds[axis] = (0, read, 1);
            sx[axis] = read;
            x = slice(cx, x, &bounds, tensor_type(&sx, element))?;
        }
        x = space_to_depth(cx, x, axis, s)?;
        w = space_to_depth(cx, w, axis, s)?;
        sx = shape_of(x)?;
        stride[a] = 1;
    }
    let operands = [x, w, shape(cx, &stride)?, cx.operand(3)?, groups];
    Ok(vec![cx.rebuild(&operands, cx.result_type(0)?)?])
}
