//! Gathers and scatters along an axis and by n-d index, non_zero.

use crate::error::{kerr, KResult};
use crate::kernels::reduce::norm_axis;
use crate::kernels::shape;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{DType, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, Axis, Dimension, IxDyn};

/// The coreai kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("coreai.gather_along_axis", gather_along_axis),
    ("coreai.scatter_along_axis", scatter_along_axis),
    ("coreai.scatter_nd", scatter_nd),
    ("coreai.non_zero", non_zero),
    ("coreai.gather_nd", gather_nd),
];

fn gather_along_axis(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ax = norm_axis(c.arg_i64(2)?, x.ndim())?;
    let idx = c.arg(1)?.to_i128().mapv(|v| v as i64);
    one(shape::gather(x, ax, &idx)?)
}

/// `out[i..] = input[indices[i.., :]]` (the last index dim addresses the
/// leading input dims).
fn gather_nd(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let idx = c.arg(1)?;
    let is = idx.shape();
    let k = *is.last().unwrap_or(&0);
    let xs = x.shape();
    if k == 0 || k > xs.len() {
        return kerr("gather_nd index depth must be between 1 and the input rank");
    }
    let iv = idx.to_i64_vec();
    let batch: usize = is[..is.len() - 1].iter().product();
    let inner: usize = xs[k..].iter().product();
    let flat = x.reshape(&[xs[..k].iter().product::<usize>(), inner])?;
    let mut rows = Vec::with_capacity(batch);
    for b in 0..batch {
        let lin = linear_index(&xs[..k], &iv[b * k..(b + 1) * k], "gather_nd")?;
        rows.push(lin);
    }
    let g = shape::index_select(&flat, 0, &rows)?;
    let mut out: Vec<usize> = is[..is.len() - 1].to_vec();
    out.extend(&xs[k..]);
    one(g.reshape(&out)?)
}

/// A value of `dt` rounded as the dtype stores it.
fn round_scalar_to(v: f64, dt: DType) -> f64 {
    Tensor::scalar_f64(v, dt)
        .to_f64()
        .iter()
        .next()
        .copied()
        .unwrap_or(v)
}

/// The combiner of `coreai.scatter_along_axis`'s `scatter_mode` on floats
/// and integers (`update` when absent).
fn scatter_combine(mode: &str) -> KResult<fn(f64, f64) -> f64> {
    Ok(match mode {
        "update" => |_, u| u,
        "add" => |a, u| a + u,
        "sub" => |a, u| a - u,
        "mul" => |a, u| a * u,
        "div" => |a, u| a / u,
        // coreai-core's interpreter replaces only when the update compares
        // greater (less): a NaN update is dropped, a NaN element stays.
        "max" => |a: f64, u: f64| if u > a { u } else { a },
        "min" => |a: f64, u: f64| if u < a { u } else { a },
        other => return kerr(format!("scatter mode {other} is not supported")),
    })
}

/// `coreai.scatter_along_axis %x, %idx, %updates, %axis`: for each position
/// p of idx, `out[p with p[axis] = idx[p]] = combine(out[..], updates[p])`,
/// negative indices wrapped once; results round to the dtype after every
/// combine.
fn scatter_along_axis(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dt = x.dtype();
    let ax = norm_axis(c.arg_i64(3)?, x.ndim())?;
    let mode = c
        .attr("scatter_mode")
        .map(|a| a.to_text())
        .unwrap_or_default();
    let mode = ["update", "add", "sub", "mul", "div", "max", "min"]
        .into_iter()
        .find(|m| mode.contains(m))
        .unwrap_or("update");
    let combine = scatter_combine(mode)?;
    let idx = c.arg(1)?.to_i128();
    let upd = c.arg(2)?;
    if idx.shape() != upd.shape().as_slice() || idx.ndim() != x.ndim() {
        return kerr(
            "scatter_along_axis indices and updates must have the input's rank and one shape",
        );
    }
    let xs = x.shape();
    let n = xs[ax] as i128;
    let target = |pos: &[usize], i: i128| -> KResult<IxDyn> {
        let j = if i < 0 { i + n } else { i };
        if j < 0
            || j >= n
            || pos
                .iter()
                .zip(&xs)
                .enumerate()
                .any(|(d, (&p, &m))| d != ax && p >= m)
        {
            return kerr(format!("scatter index {i} out of range for size {n}"));
        }
        let mut t = pos.to_vec();
        t[ax] = j as usize;
        Ok(IxDyn(&t))
    };
    if dt.is_float() {
        let (mut a, u) = (x.to_f64(), upd.to_f64());
        for (pos, &i) in idx.indexed_iter() {
            let t = target(pos.slice(), i)?;
            a[&t] = round_scalar_to(combine(a[&t], u[&pos]), dt);
        }
        return one(Tensor::from_f64(a, dt));
    }
    if dt.is_int() {
        let (mut a, u) = (x.to_i128(), upd.to_i128());
        for (pos, &i) in idx.indexed_iter() {
            let t = target(pos.slice(), i)?;
            let (old, new) = (a[&t], u[&pos]);
            a[&t] = match mode {
                "update" => new,
                "add" => old + new,
                "sub" => old - new,
                "mul" => old.wrapping_mul(new),
                "max" => old.max(new),
                "min" => old.min(new),
                _ => return kerr(format!("integer scatter mode {mode} is not supported")),
            };
            a[&t] = crate::tensor::wrap_int(a[&t], dt);
        }
        return one(Tensor::from_i128(a, dt));
    }
    kerr(format!(
        "scatter_along_axis of {} is not supported",
        dt.name()
    ))
}

/// `coreai.scatter_nd %x with %updates at %idx { yield %new }`: replaces
/// the slices `x[idx[b, 0], ..., idx[b, k-1], ...]` by `updates[b, ...]`
/// (the only region coreai-core 1.0.0b3 accepts), negative indices wrapped.
fn scatter_nd(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let (idx, upd) = (c.arg(1)?, c.arg(2)?.cast(x.dtype()));
    let (xs, is) = (x.shape(), idx.shape());
    let k = *is.last().unwrap_or(&0);
    if k == 0 || k > xs.len() {
        return kerr("scatter_nd index depth must be between 1 and the input rank");
    }
    let batch: usize = is[..is.len() - 1].iter().product();
    let inner: usize = xs[k..].iter().product();
    let rows: usize = xs[..k].iter().product();
    let iv = idx.to_i64_vec();
    let mut order = Vec::with_capacity(batch);
    for b in 0..batch {
        let lin = linear_index(&xs[..k], &iv[b * k..(b + 1) * k], "scatter_nd")?;
        order.push(lin as usize);
    }
    let flat = x.reshape(&[rows, inner])?;
    let u = upd.reshape(&[batch, inner])?;
    fn go<T: Clone>(a: &ArrayD<T>, u: &ArrayD<T>, order: &[usize]) -> ArrayD<T> {
        let mut a = a.clone();
        for (b, &r) in order.iter().enumerate() {
            a.index_axis_mut(Axis(0), r)
                .assign(&u.index_axis(Axis(0), b));
        }
        a
    }
    let out = match (&flat, &u) {
        (Tensor::F32(a), Tensor::F32(u)) => Tensor::F32(go(a, u, &order)),
        (Tensor::F64(a), Tensor::F64(u)) => Tensor::F64(go(a, u, &order)),
        (Tensor::F16(a), Tensor::F16(u)) => Tensor::F16(go(a, u, &order)),
        (Tensor::Bool(a), Tensor::Bool(u)) => Tensor::Bool(go(a, u, &order)),
        _ => {
            let (a, u) = (flat.to_i128(), u.to_i128());
            let dt = flat.dtype();
            if !dt.is_int() {
                return kerr(format!("scatter_nd of {} is not supported", dt.name()));
            }
            Tensor::from_i128(go(&a, &u, &order), dt)
        }
    };
    one(out.reshape(&xs)?)
}

/// `coreai.non_zero %x`: the row-major coordinates `[n, rank]` of the
/// elements that are not zero (NaN is not zero, -0.0 is).
fn non_zero(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?.to_f64();
    let rank = x.ndim();
    let mut coords: Vec<i128> = Vec::new();
    for (pos, &v) in x.indexed_iter() {
        if v != 0.0 {
            coords.extend(pos.slice().iter().map(|&p| p as i128));
        }
    }
    let n = coords.len() / rank.max(1);
    let a = ArrayD::from_shape_vec(IxDyn(&[n, rank]), coords).expect("sizes agree");
    one(Tensor::from_i128(a, c.out_dtype(0)?))
}

/// The quantization parameters `p` (0-d or 1-d) broadcast to `x`'s shape:
/// along dim `axis` (a 0-d axis operand) or as scalars (a 1-d axis operand
/// listing every dim).
pub(super) fn along_axis(c: &Ctx, p: &Tensor, xs: &[usize]) -> KResult<Tensor> {
    let axis = c.arg(4)?;
    if p.ndim() == 0 || p.len() == 1 && axis.ndim() == 1 {
        return shape::expand(&p.reshape(&[])?, xs);
    }
    if axis.ndim() != 0 {
        return kerr("per-tensor (1-d axis) quantization takes 0-d scale and offsets");
    }
    let a = crate::kernels::reduce::norm_axis(c.arg_i64(4)?, xs.len())?;
    if p.len() != xs[a] {
        return kerr(format!(
            "{} parameters for dim {a} of size {}",
            p.len(),
            xs[a]
        ));
    }
    let mut s = vec![1; xs.len()];
    s[a] = xs[a];
    shape::expand(&p.reshape(&s)?, xs)
}

/// The row-major linear position of the n-d index `index` (negative entries
/// count from the end) in leading dims `dims`; `op` names the op in the
/// out-of-range error.
fn linear_index(dims: &[usize], index: &[i64], op: &str) -> KResult<i64> {
    let mut lin = 0i64;
    for (&size, &raw) in dims.iter().zip(index) {
        let n = size as i64;
        let i = if raw < 0 { raw + n } else { raw };
        if i < 0 || i >= n {
            return kerr(format!("{op} index {raw} out of range for size {n}"));
        }
        lin = lin * n + i;
    }
    Ok(lin)
}
