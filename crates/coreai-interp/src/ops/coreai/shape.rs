//! Shape kernels and shape arithmetic: reshape, expand/shrink dims, transpose, broadcasts, concat, slices, pad, tile, reverse, split.

use crate::error::{kerr, KResult};
use crate::kernels::elementwise::broadcast_shapes as broadcast;
use crate::kernels::reduce::{norm_axes, norm_axis};
use crate::kernels::shape;
use crate::map_tensor;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::Tensor;
use crate::value::Value;
use ndarray::{ArrayD, Axis, Dimension, IxDyn, Slice};

/// The coreai kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("coreai.reshape", reshape),
    ("coreai.expand_dims", expand_dims),
    ("coreai.shrink_dims", shrink_dims),
    ("coreai.transpose", transpose),
    ("coreai.broadcast_to", broadcast_to),
    ("coreai.concat", concat),
    ("coreai.slice", slice),
    ("coreai.split", split),
    ("coreai.tile", tile),
    ("coreai.reverse", reverse),
    ("coreai.pad", pad),
    ("coreai.broadcast_in_dims", broadcast_in_dims),
    ("coreai.get_shape", get_shape),
    ("coreai.slice_update", slice_update),
    ("coreai.broadcast_shapes", broadcast_shapes),
];

fn reshape(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let s = shape::infer_shape(&c.arg_i64s(1)?, x.len())?;
    one(x.reshape(&s)?)
}

/// `coreai.expand_dims %x, %axes`: unit dims inserted at `axes` (of the
/// result's rank); works for dynamic result types.
fn expand_dims(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let axes = c.arg_i64s(1)?;
    let rank = x.ndim() + axes.len();
    let at = norm_axes(&axes, rank, false)?;
    let mut rest = x.shape().into_iter();
    let s: Vec<usize> = (0..rank)
        .map(|i| {
            if at.contains(&i) {
                1
            } else {
                rest.next().unwrap_or(1)
            }
        })
        .collect();
    one(x.reshape(&s)?)
}

/// `coreai.shrink_dims %x, %axes`: the unit dims at `axes` removed; works
/// for dynamic result types.
fn shrink_dims(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let at = norm_axes(&c.arg_i64s(1)?, x.ndim(), false)?;
    let shape = x.shape();
    if at.iter().any(|&a| shape[a] != 1) {
        return kerr(format!("shrink_dims of a non-unit dim of {shape:?}"));
    }
    let s: Vec<usize> = (0..shape.len())
        .filter(|i| !at.contains(i))
        .map(|i| shape[i])
        .collect();
    one(x.reshape(&s)?)
}

fn transpose(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let perm: Vec<usize> = c
        .arg_i64s(1)?
        .iter()
        .map(|&p| norm_axis(p, x.ndim()))
        .collect::<KResult<_>>()?;
    one(shape::permute(x, &perm)?)
}

fn broadcast_to(c: &Ctx) -> KResult<Vec<Value>> {
    let s: Vec<usize> = c.arg_i64s(1)?.iter().map(|&d| d.max(0) as usize).collect();
    one(shape::expand(c.arg(0)?, &s)?)
}

fn concat(c: &Ctx) -> KResult<Vec<Value>> {
    let ts: Vec<Tensor> = (1..c.n_args())
        .map(|i| c.arg(i).cloned())
        .collect::<KResult<_>>()?;
    let rank = ts.first().map(|t| t.ndim()).unwrap_or(1);
    let d = norm_axis(c.arg_i64(0)?, rank)?;
    one(shape::cat(&ts, d)?)
}

/// coreai.slice: see [`slice_ranges`].
fn slice(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ranges = slice_ranges(c, &x.shape())?;
    // (start, step, count) as ndarray's slice, which walks a negative step
    // from the end of its range.
    let window = |d: usize| {
        let (a, s, n) = ranges[d];
        let last = a + (n - 1) * s;
        match (n, s > 0) {
            (0, _) => Slice::new(0, Some(0), 1),
            (_, true) => Slice::new(a as isize, Some(last as isize + 1), s as isize),
            (_, false) => Slice::new(last as isize, Some(a as isize + 1), s as isize),
        }
    };
    one(map_tensor!(x, t => t
        .slice_each_axis(|ax| window(ax.axis.index()))
        .as_standard_layout()
        .into_owned()))
}

/// `padding` holds (before, after) per dimension in dimension order.
fn pad(c: &Ctx) -> KResult<Vec<Value>> {
    let mode = c
        .attr("padding_mode")
        .map(|a| a.to_text())
        .unwrap_or_default();
    let x = c.arg(0)?;
    let p = c.arg_i64s(1)?;
    if mode.contains("reflect") || mode.contains("replicate") {
        return one(shape::pad_by_index(x, &p, mode.contains("reflect"))?);
    }
    if mode.contains("circular") {
        return one(shape::pad_circular(x, &p)?);
    }
    if !mode.is_empty() && !mode.contains("constant") {
        return kerr(format!("padding mode {mode} is not supported"));
    }
    // shape::pad_constant takes PyTorch's last-dim-first order.
    let mut torch_order = Vec::with_capacity(p.len());
    for pair in p.chunks(2).rev() {
        torch_order.extend_from_slice(pair);
    }
    one(shape::pad_constant(x, &torch_order, c.arg(2)?)?)
}

fn tile(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dims = c.arg_i64s(1)?;
    let mut reps = vec![1usize; x.ndim().saturating_sub(dims.len())];
    reps.extend(dims.iter().map(|&d| d.max(0) as usize));
    one(shape::tile(x, &reps)?)
}

fn reverse(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    one(shape::flip(
        x,
        &norm_axes(&c.arg_i64s(1)?, x.ndim(), false)?,
    ))
}

fn get_shape(c: &Ctx) -> KResult<Vec<Value>> {
    let s = c.arg(0)?.shape();
    let v = ArrayD::from_shape_vec(IxDyn(&[s.len()]), s.iter().map(|&d| d as i128).collect())
        .expect("sizes agree");
    one(Tensor::from_i128(v, c.out_dtype(0)?))
}

fn split(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.arg_i64(2)?, x.ndim())?;
    let n = x.shape()[d];
    let spec = c.arg(1)?;
    let sizes: Vec<usize> = if spec.ndim() == 0 {
        let s = spec.to_i64_vec()[0].max(1) as usize;
        (0..n.div_ceil(s)).map(|i| s.min(n - i * s)).collect()
    } else {
        spec.to_i64_vec()
            .iter()
            .map(|&v| v.max(0) as usize)
            .collect()
    };
    let total: usize = sizes.iter().sum();
    if total != n {
        return kerr(format!(
            "split sizes {sizes:?} add up to {total}, but dim {d} has {n} elements"
        ));
    }
    let mut start = 0;
    let mut out = Vec::new();
    for s in sizes {
        out.push(Value::tensor(
            map_tensor!(x, a => a.slice_axis(Axis(d), Slice::from(start..start + s)).to_owned()),
        ));
        start += s;
    }
    Ok(out)
}

/// Resolved (start, step, count) per dim of coreai.slice / slice_update:
/// wrap negatives once, clamp by stride sign, any nonzero step.
fn slice_ranges(c: &Ctx, shape: &[usize]) -> KResult<Vec<(i64, i64, i64)>> {
    let (st, en, sd) = (c.arg_i64s(1)?, c.arg_i64s(2)?, c.arg_i64s(3)?);
    let r = shape.len();
    if st.len() != r || en.len() != r || sd.len() != r {
        return kerr("start, end and strides need one entry per dimension");
    }
    (0..r)
        .map(|d| {
            let n = shape[d] as i64;
            let s = sd[d];
            if s == 0 {
                return kerr("slice strides must be nonzero");
            }
            let wrap = |v: i64, lo: i64| if v < lo { v + n } else { v };
            let (a, b) = if s > 0 {
                (wrap(st[d], 0).clamp(0, n), wrap(en[d], 0).clamp(0, n))
            } else {
                (
                    wrap(st[d], 0).clamp(0, (n - 1).max(0)),
                    wrap(en[d], -1).clamp(-1, n - 1),
                )
            };
            let count = if s > 0 {
                ((b - a).max(0) + s - 1) / s
            } else {
                ((a - b).max(0) + (-s) - 1) / (-s)
            };
            Ok((a, s, count))
        })
        .collect()
}

/// `input` with the strided window replaced by `update`.
fn slice_update(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let upd = c.arg(4)?.cast(x.dtype());
    let ranges = slice_ranges(c, &x.shape())?;
    let want: Vec<usize> = ranges.iter().map(|r| r.2 as usize).collect();
    if upd.shape() != want {
        return kerr(format!(
            "update shape {:?} does not match the window {:?}",
            upd.shape(),
            want
        ));
    }
    fn go<T: Clone>(a: &ArrayD<T>, u: &ArrayD<T>, ranges: &[(i64, i64, i64)]) -> ArrayD<T> {
        let mut out = a.clone();
        for (pos, v) in u.indexed_iter() {
            let p: Vec<usize> = pos
                .slice()
                .iter()
                .zip(ranges)
                .map(|(&i, &(a, s, _))| (a + i as i64 * s) as usize)
                .collect();
            out[IxDyn(&p)] = v.clone();
        }
        out
    }
    macro_rules! upd {
        ($($v:ident),*) => {
            match (x, &upd) {
                $((Tensor::$v(a), Tensor::$v(u)) => Tensor::$v(go(a, u, &ranges)),)*
                _ => return kerr("dtype mismatch"),
            }
        };
    }
    one(upd!(
        Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, C64
    ))
}

/// `coreai.broadcast_in_dims %x, %sizes, %axes`: the size-1 dims `axes[i]`
/// of `x` broadcast to `sizes[i]`.
fn broadcast_in_dims(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let (sizes, axes) = (c.arg_i64s(1)?, c.arg_i64s(2)?);
    if sizes.len() != axes.len() {
        return kerr("broadcast_in_dims needs one size per axis");
    }
    let mut s = x.shape();
    for (&a, &n) in axes.iter().zip(&sizes) {
        let a = norm_axis(a, s.len())?;
        if s[a] != 1 && s[a] as i64 != n {
            return kerr(format!("cannot broadcast dim {a} of size {} to {n}", s[a]));
        }
        s[a] = n.max(0) as usize;
    }
    one(shape::expand(x, &s)?)
}

/// `broadcast_shapes(shape_1, shape_2)`: NumPy's broadcast of two shape
/// vectors.
fn broadcast_shapes(c: &Ctx) -> KResult<Vec<Value>> {
    let as_dims = |i: usize| -> KResult<Vec<usize>> {
        c.arg_i64s(i)?
            .into_iter()
            .map(|d| {
                if d < 0 {
                    kerr(format!("negative dim {d} in a shape"))
                } else {
                    Ok(d as usize)
                }
            })
            .collect()
    };
    let s = broadcast(&as_dims(0)?, &as_dims(1)?)?;
    let a = ArrayD::from_shape_vec(IxDyn(&[s.len()]), s.iter().map(|&d| d as i128).collect())
        .expect("sizes agree");
    one(Tensor::from_i128(a, c.out_dtype(0)?))
}
