//! Shape kernels: views, reshapes, permutations, concatenation, slicing, splitting, padding, tiling.

use super::symbolic::opt_sym_i64;
use crate::error::{kerr, KResult};
use crate::kernels::reduce::{norm_axes, norm_axis};
use crate::kernels::shape;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{DType, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten.view.default", view),
    ("aten._unsafe_view.default", view),
    ("aten.reshape.default", view),
    ("aten.flatten.using_ints", reshape_to_result),
    ("aten.unflatten.int", unflatten),
    ("aten.unsqueeze.default", unsqueeze),
    ("aten.squeeze.dim", squeeze),
    ("aten.squeeze.dims", squeeze),
    ("aten.squeeze.default", squeeze),
    ("aten.permute.default", permute),
    ("aten.transpose.int", transpose),
    ("aten.t.default", transpose),
    ("aten.expand.default", expand),
    ("aten.cat.default", cat),
    ("aten.slice.Tensor", slice),
    ("aten.flip.default", flip),
    ("aten.repeat.default", repeat),
    ("aten.constant_pad_nd.default", pad),
    ("aten.split_with_sizes.default", split),
    ("aten.split.Tensor", split),
    ("aten.unbind.int", unbind),
    ("aten.pixel_shuffle.default", pixel_shuffle),
    ("aten.reflection_pad1d.default", |c| pad_by_index(c, true)),
    ("aten.reflection_pad2d.default", |c| pad_by_index(c, true)),
    ("aten.reflection_pad3d.default", |c| pad_by_index(c, true)),
    ("aten.replication_pad1d.default", |c| pad_by_index(c, false)),
    ("aten.replication_pad2d.default", |c| pad_by_index(c, false)),
    ("aten.replication_pad3d.default", |c| pad_by_index(c, false)),
    ("aten.stack.default", stack),
    ("aten.tile.default", tile),
    ("aten.roll.default", roll),
    ("aten.diagonal.default", diagonal),
    ("aten.pixel_unshuffle.default", pixel_unshuffle),
    ("aten.pad.default", pad_mode),
    ("aten.as_strided.default", as_strided),
];

fn view(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let size = match c.opt_i64s("size")?.or(c.opt_i64s("shape")?) {
        Some(s) => shape::infer_shape(&s, x.len())?,
        None => c.out_shape(0)?,
    };
    one(x.reshape(&size)?)
}

/// Ops whose result is the input reshaped to the declared result type
/// (squeeze/unsqueeze/flatten family): the element order never changes.
fn reshape_to_result(c: &Ctx) -> KResult<Vec<Value>> {
    one(c.arg(0)?.reshape(&c.out_shape(0)?)?)
}

fn unsqueeze(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let mut s = x.shape();
    let d = c.i64_attr("dim")?;
    let d = norm_axis(d, s.len() + 1)?;
    s.insert(d, 1);
    one(x.reshape(&s)?)
}

/// `dim` split into `sizes` (one of them may be -1).
fn unflatten(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let s = x.shape();
    let d = norm_axis(c.i64_attr("dim")?, s.len())?;
    let sizes = shape::infer_shape(&c.i64s_attr("sizes")?, s[d])?;
    let mut out = s[..d].to_vec();
    out.extend(sizes);
    out.extend_from_slice(&s[d + 1..]);
    one(x.reshape(&out)?)
}

fn squeeze(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let s = x.shape();
    let dims: Vec<usize> = match c.opt_i64s("dim")? {
        Some(d) => norm_axes(&d, s.len(), false)?,
        None => (0..s.len()).collect(),
    };
    let out: Vec<usize> = s
        .iter()
        .enumerate()
        .filter(|(i, n)| !(dims.contains(i) && **n == 1))
        .map(|(_, n)| *n)
        .collect();
    one(x.reshape(&out)?)
}

fn permute(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let perm = norm_axes_keep_order(&c.i64s_attr("dims")?, x.ndim())?;
    one(shape::permute(x, &perm)?)
}

fn norm_axes_keep_order(a: &[i64], rank: usize) -> KResult<Vec<usize>> {
    a.iter().map(|&d| norm_axis(d, rank)).collect()
}

fn transpose(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let r = x.ndim();
    if r < 2 {
        return one(x.clone());
    }
    let (a, b) = if c.name.ends_with(".default") {
        (0, 1)
    } else {
        (
            norm_axis(c.i64_attr("dim0")?, r)?,
            norm_axis(c.i64_attr("dim1")?, r)?,
        )
    };
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(a, b);
    one(shape::permute(x, &perm)?)
}

fn expand(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let size = c.i64s_attr("size")?;
    let xs = x.shape();
    let off = size.len().saturating_sub(xs.len());
    let target: Vec<usize> = size
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            if d == -1 && i >= off {
                xs[i - off]
            } else {
                d.max(0) as usize
            }
        })
        .collect();
    one(shape::expand(x, &target)?)
}

fn cat(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let ts: Vec<Tensor> = (0..c.n_args())
        .map(|i| c.arg(i).map(|t| t.cast(dt)))
        .collect::<KResult<_>>()?;
    let rank = ts.iter().map(|t| t.ndim()).max().unwrap_or(1);
    let d = norm_axis(c.i64_or("dim", 0)?, rank)?;
    one(shape::cat(&ts, d)?)
}

fn slice(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_or("dim", 0)?, x.ndim())?;
    let step = c.i64_or("step", 1)?;
    if step <= 0 {
        return kerr("slice step must be positive");
    }
    let (start, end) = (opt_sym_i64(c, "start")?, opt_sym_i64(c, "end")?);
    let (s, e) = shape::clamp_slice(start, end, x.shape()[d]);
    one(shape::slice(x, d, s, e, step as usize)?)
}

fn flip(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    one(shape::flip(
        x,
        &norm_axes(&c.i64s_attr("dims")?, x.ndim(), false)?,
    ))
}

fn repeat(c: &Ctx) -> KResult<Vec<Value>> {
    let reps: Vec<usize> = c
        .i64s_attr("repeats")?
        .iter()
        .map(|&r| r.max(0) as usize)
        .collect();
    one(shape::tile(c.arg(0)?, &reps)?)
}

fn pad(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let v = c
        .opt_scalar("value")?
        .unwrap_or(Tensor::scalar_i128(0, DType::I64));
    one(shape::pad_constant(x, &c.i64s_attr("pad")?, &v)?)
}

fn split(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_or("dim", 0)?, x.ndim())?;
    let n = x.shape()[d];
    let sizes: Vec<usize> = if let Some(s) = c.opt_i64s("split_sizes")? {
        s.iter().map(|&v| v.max(0) as usize).collect()
    } else {
        let s = c.i64_attr("split_size")?.max(1) as usize;
        (0..n.div_ceil(s)).map(|i| s.min(n - i * s)).collect()
    };
    let mut out = Vec::new();
    let mut start = 0;
    for s in sizes {
        out.push(Value::tensor(shape::slice(x, d, start, start + s, 1)?));
        start += s;
    }
    Ok(out)
}

fn unbind(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_or("dim", 0)?, x.ndim())?;
    (0..x.shape()[d])
        .map(|i| Ok(Value::tensor(shape::select(x, d, i as i64)?)))
        .collect()
}

/// Reflection / replication padding of the last `pad.len() / 2` dims
/// (PyTorch's order: last dim first, (before, after) pairs).
fn pad_by_index(c: &Ctx, reflect: bool) -> KResult<Vec<Value>> {
    let mut x = c.arg(0)?.clone();
    let pads = c.i64s_attr("padding")?;
    let r = x.ndim();
    if pads.len() % 2 != 0 || pads.len() / 2 > r {
        return kerr("padding must be (before, after) pairs, at most one per dim");
    }
    for k in 0..pads.len() / 2 {
        let d = r - 1 - k;
        let n = x.shape()[d] as i64;
        let (lo, hi) = (pads[2 * k], pads[2 * k + 1]);
        if reflect && (lo >= n || hi >= n) {
            return kerr(format!(
                "reflection padding ({lo}, {hi}) must be smaller than the dimension size {n}"
            ));
        }
        let idx: Vec<i64> = (-lo..n + hi)
            .map(|i| {
                if reflect {
                    let i = i.abs();
                    if i >= n {
                        2 * (n - 1) - i
                    } else {
                        i
                    }
                } else {
                    i.clamp(0, n - 1)
                }
            })
            .collect();
        x = shape::index_select(&x, d, &idx)?;
    }
    one(x)
}

/// `[N, C·r², H, W] → [N, C, H·r, W·r]`.
fn pixel_shuffle(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let r = c.i64_attr("upscale_factor")? as usize;
    let s = x.shape();
    let k = s.len();
    if k < 3 || r == 0 || s[k - 3] % (r * r) != 0 {
        return kerr("pixel_shuffle needs [.., C·r², H, W]");
    }
    let (ch, h, w) = (s[k - 3] / (r * r), s[k - 2], s[k - 1]);
    let lead = &s[..k - 3];
    let mut six: Vec<usize> = lead.to_vec();
    six.extend([ch, r, r, h, w]);
    let b = lead.len();
    let mut perm: Vec<usize> = (0..b).collect();
    perm.extend([b, b + 3, b + 1, b + 4, b + 2]);
    let y = shape::permute(&x.reshape(&six)?, &perm)?;
    let mut out: Vec<usize> = lead.to_vec();
    out.extend([ch, h * r, w * r]);
    one(y.reshape(&out)?)
}

fn stack(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let first = c.arg(0)?;
    let d = norm_axis(c.i64_or("dim", 0)?, first.ndim() + 1)?;
    let ts: Vec<Tensor> = (0..c.n_args())
        .map(|i| {
            let t = c.arg(i)?;
            let mut s = t.shape();
            s.insert(d, 1);
            t.cast(dt).reshape(&s)
        })
        .collect::<KResult<_>>()?;
    one(shape::cat(&ts, d)?)
}

/// `tile`: `repeat` with the repeats left-padded with 1s to the rank.
fn tile(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dims = c.i64s_attr("dims")?;
    if dims.iter().any(|&r| r < 0) {
        return kerr(format!("tile repeats {dims:?} must be non-negative"));
    }
    let mut reps = vec![1usize; x.ndim().saturating_sub(dims.len())];
    reps.extend(dims.iter().map(|&r| r as usize));
    one(shape::tile(x, &reps)?)
}

/// `roll`: element `i` moves to `(i + shift) mod n`; without dims the
/// flattened tensor rolls.
fn roll(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let shifts = c.i64s_attr("shifts")?;
    let dims = c.opt_i64s("dims")?.unwrap_or_default();
    if dims.is_empty() {
        if shifts.len() != 1 {
            return kerr("roll without dims takes one shift");
        }
        let flat = x.reshape(&[x.len()])?;
        return one(roll_axis(&flat, 0, shifts[0])?.reshape(&x.shape())?);
    }
    if dims.len() != shifts.len() {
        return kerr(format!(
            "roll: {} shifts for {} dims",
            shifts.len(),
            dims.len()
        ));
    }
    let mut y = x.clone();
    for (&s, &d) in shifts.iter().zip(&dims) {
        y = roll_axis(&y, norm_axis(d, x.ndim())?, s)?;
    }
    one(y)
}

fn roll_axis(x: &Tensor, d: usize, shift: i64) -> KResult<Tensor> {
    let n = x.shape()[d] as i64;
    if n == 0 {
        return Ok(x.clone());
    }
    let idx: Vec<i64> = (0..n).map(|i| (i - shift).rem_euclid(n)).collect();
    shape::index_select(x, d, &idx)
}

/// `diagonal(offset, dim1, dim2)`: dims 1 and 2 removed, the diagonal
/// appended last.
fn diagonal(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let r = x.ndim();
    let (d1, d2) = (
        norm_axis(c.i64_or("dim1", 0)?, r)?,
        norm_axis(c.i64_or("dim2", 1)?, r)?,
    );
    if d1 == d2 {
        return kerr("diagonal dimensions cannot be identical");
    }
    let off = c.i64_or("offset", 0)?;
    let mut perm: Vec<usize> = (0..r).filter(|&d| d != d1 && d != d2).collect();
    perm.extend([d1, d2]);
    let p = shape::permute(x, &perm)?;
    let s = x.shape();
    let (n1, n2) = (s[d1] as i64, s[d2] as i64);
    let (r0, c0) = (off.min(0).abs(), off.max(0));
    let len = (n1 - r0).min(n2 - c0).max(0);
    let rows = ArrayD::from_shape_vec(IxDyn(&[len as usize]), (0..len).map(|i| i + r0).collect())
        .expect("sizes agree");
    let cols = ArrayD::from_shape_vec(IxDyn(&[len as usize]), (0..len).map(|i| i + c0).collect())
        .expect("sizes agree");
    let mut idx: Vec<Option<ArrayD<i64>>> = vec![None; r - 2];
    idx.extend([Some(rows), Some(cols)]);
    if len == 0 {
        let mut out: Vec<usize> = perm[..r - 2].iter().map(|&d| s[d]).collect();
        out.push(0);
        return one(Tensor::zeros(x.dtype(), &out));
    }
    one(shape::index(&p, &idx)?)
}

/// `[.., C, H·r, W·r] → [.., C·r², H, W]`.
fn pixel_unshuffle(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let r = c.i64_attr("downscale_factor")?;
    let s = x.shape();
    let k = s.len();
    if k < 3 || r <= 0 || s[k - 2] % r as usize != 0 || s[k - 1] % r as usize != 0 {
        return kerr("pixel_unshuffle needs [.., C, H·r, W·r] and a positive factor");
    }
    let r = r as usize;
    let (ch, h, w) = (s[k - 3], s[k - 2] / r, s[k - 1] / r);
    let lead = &s[..k - 3];
    let mut six = lead.to_vec();
    six.extend([ch, h, r, w, r]);
    let b = lead.len();
    let mut perm: Vec<usize> = (0..b).collect();
    perm.extend([b, b + 2, b + 4, b + 1, b + 3]);
    let y = shape::permute(&x.reshape(&six)?, &perm)?;
    let mut out = lead.to_vec();
    out.extend([ch * r * r, h, w]);
    one(y.reshape(&out)?)
}

/// `pad.default`: mode constant (value, default 0), reflect, replicate or
/// circular; `pad` in PyTorch's order (last dim first).
fn pad_mode(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let pads = c.i64s_attr("pad")?;
    let mode = c.opt_str("mode").unwrap_or_else(|| "constant".into());
    if mode == "constant" {
        let v = Tensor::scalar_f64(c.opt_f64("value")?.unwrap_or(0.0), DType::F64);
        let v = if x.dtype().is_float() {
            v
        } else {
            v.cast(DType::I64)
        };
        return one(shape::pad_constant(x, &pads, &v)?);
    }
    let r = x.ndim();
    if pads.len() % 2 != 0 || pads.len() / 2 > r {
        return kerr("pad must hold (before, after) pairs, at most one per dim");
    }
    // to pad_by_index's order: a pair per dim, in dim order
    let mut per_dim = vec![0i64; 2 * r];
    for k in 0..pads.len() / 2 {
        per_dim[2 * (r - 1 - k)] = pads[2 * k];
        per_dim[2 * (r - 1 - k) + 1] = pads[2 * k + 1];
    }
    match mode.as_str() {
        "reflect" => one(shape::pad_by_index(x, &per_dim, true)?),
        "replicate" => one(shape::pad_by_index(x, &per_dim, false)?),
        "circular" => {
            let mut y = x.clone();
            for d in 0..r {
                let (lo, hi) = (per_dim[2 * d], per_dim[2 * d + 1]);
                let n = y.shape()[d] as i64;
                if lo > n || hi > n {
                    return kerr(format!(
                        "circular padding ({lo}, {hi}) exceeds the dim size {n}"
                    ));
                }
                if lo != 0 || hi != 0 {
                    let idx: Vec<i64> = (-lo..n + hi).map(|i| i.rem_euclid(n.max(1))).collect();
                    y = shape::index_select(&y, d, &idx)?;
                }
            }
            one(y)
        }
        m => kerr(format!("unknown padding mode '{m}'")),
    }
}

/// `as_strided(size, stride, storage_offset)` over the row-major storage.
fn as_strided(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let size = c.i64s_attr("size")?;
    let stride = c.i64s_attr("stride")?;
    let off = c.opt_i64("storage_offset")?.unwrap_or(0);
    if size.len() != stride.len() || size.iter().chain(&stride).any(|&v| v < 0) || off < 0 {
        return kerr(format!(
            "as_strided size {size:?} / stride {stride:?} / offset {off}"
        ));
    }
    let size: Vec<usize> = size.iter().map(|&v| v as usize).collect();
    let n: usize = size.iter().product();
    let mut idx = Vec::with_capacity(n);
    for f in 0..n {
        let (mut rem, mut pos) = (f, off);
        for d in (0..size.len()).rev() {
            pos += (rem % size[d]) as i64 * stride[d];
            rem /= size[d];
        }
        if pos as usize >= x.len() {
            return kerr(format!(
                "as_strided reads element {pos} of a storage of {}",
                x.len()
            ));
        }
        idx.push(pos);
    }
    let flat = x.reshape(&[x.len()])?;
    one(shape::index_select(&flat, 0, &idx)?.reshape(&size)?)
}
