//! (De)quantization, blockwise shift-scale, palettization (LUT) and sparsity, and the quantization statistics, in coreai-core's rounding order.

use super::indexing::along_axis;
use crate::error::{kerr, KResult};
use crate::kernels::shape;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{DType, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The coreai kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    (
        "coreai.build_sparse_with_bitmask",
        build_sparse_with_bitmask,
    ),
    (
        "coreai.sparse_with_bitmask_to_dense",
        sparse_with_bitmask_to_dense,
    ),
    ("coreai.lut_to_dense", lut_to_dense),
    ("coreai.symmetric_quantization_statistics", symmetric_stats),
    (
        "coreai.asymmetric_quantization_statistics",
        asymmetric_stats,
    ),
    ("coreai.dequantize", dequantize),
    ("coreai.quantize", quantize),
    ("coreai.blockwise_shift_scale", blockwise_shift_scale),
];

/// `v` rounded to `dt` (floats) as f64.
fn round_to(v: ArrayD<f64>, dt: DType) -> ArrayD<f64> {
    Tensor::from_f64(v, dt).to_f64()
}

/// `(input - offset1) * scale + offset2` with every step rounded to the
/// output's float type; the difference of integers is exact.
fn shift_scale(
    x: &Tensor,
    scale: &Tensor,
    off1: &Tensor,
    off2: &Tensor,
    dt: DType,
) -> KResult<Tensor> {
    if !dt.is_float() {
        return kerr(format!("dequantization produces floats, not {}", dt.name()));
    }
    let diff = if x.dtype().is_float() {
        round_to(&x.to_f64() - &off1.to_f64(), x.dtype())
    } else {
        (&x.to_i128() - &off1.to_i128()).mapv(|v| v as f64)
    };
    let diff = round_to(diff, dt);
    let prod = round_to(&diff * &scale.cast(dt).to_f64(), dt);
    Ok(Tensor::from_f64(&prod + &off2.cast(dt).to_f64(), dt))
}

/// `dequantize(input, scale, offset1, offset2, axis)`.
fn dequantize(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let xs = x.shape();
    let p = |i: usize| along_axis(c, c.arg(i)?, &xs);
    one(shift_scale(x, &p(1)?, &p(2)?, &p(3)?, c.out_dtype(0)?)?)
}

/// `quantize(input, scale, offset1, offset2, axis)`:
/// `clip(round((input - offset2) / scale) + offset1)` to the output type,
/// each float step rounded to the input's type, half to even.
fn quantize(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let xs = x.shape();
    let p = |i: usize| along_axis(c, c.arg(i)?, &xs);
    let (scale, off1, off2) = (p(1)?, p(2)?, p(3)?);
    let ft = if x.dtype().is_float() {
        x.dtype()
    } else {
        scale.dtype()
    };
    let shifted = round_to(&x.to_f64() - &off2.to_f64(), ft);
    let q = round_to(&shifted / &scale.cast(ft).to_f64(), ft);
    if dt.is_float() {
        return one(Tensor::from_f64(&q + &off1.to_f64(), dt));
    }
    let (lo, hi) = int_range(dt);
    let out = q.mapv(f64::round_ties_even) + off1.to_f64();
    one(Tensor::from_f64(out.mapv(|v| v.clamp(lo, hi)), dt))
}

fn int_range(dt: DType) -> (f64, f64) {
    let bits = dt.int_bits() as i32;
    if dt.is_signed_int() {
        (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1) - 1.0)
    } else {
        (0.0, 2f64.powi(bits) - 1.0)
    }
}

/// `blockwise_shift_scale(data, scale, offset1, offset2)`: every block of
/// `data.shape / scale.shape` elements shares one parameter.
fn blockwise_shift_scale(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let xs = x.shape();
    let blocks = |t: &Tensor| -> KResult<Tensor> {
        let ts = t.shape();
        if ts.len() != xs.len() || ts.iter().zip(&xs).any(|(&b, &n)| b == 0 || n % b != 0) {
            return kerr(format!(
                "parameter shape {ts:?} must divide the data shape {xs:?}"
            ));
        }
        let mut out = t.clone();
        for d in 0..xs.len() {
            let bs = (xs[d] / ts[d]) as i64;
            let idx: Vec<i64> = (0..xs[d] as i64).map(|i| i / bs).collect();
            out = shape::index_select(&out, d, &idx)?;
        }
        Ok(out)
    };
    let (scale, off1, off2) = (blocks(c.arg(1)?)?, blocks(c.arg(2)?)?, blocks(c.arg(3)?)?);
    let dt = c.out_dtype(0)?;
    if !dt.is_float() {
        return kerr(format!(
            "blockwise_shift_scale produces floats, not {}",
            dt.name()
        ));
    }
    // coreai-core evaluates `data·scale + (offset2 - offset1·scale)`, each
    // step rounded to the output type (checked on f16, where it shows).
    let s = scale.cast(dt).to_f64();
    let bias = round_to(
        &off2.cast(dt).to_f64() - &round_to(&off1.cast(dt).to_f64() * &s, dt),
        dt,
    );
    let xs = round_to(&x.cast(dt).to_f64() * &s, dt);
    one(Tensor::from_f64(&xs + &bias, dt))
}

/// Per-channel (dim `axis`) minimum and maximum of `x`, each widened to
/// include 0; NaN propagates.
fn channel_min_max(c: &Ctx) -> KResult<(Vec<f64>, Vec<f64>, DType)> {
    let x = c.arg(0)?;
    let ft = x.dtype();
    if !ft.is_float() {
        return kerr(format!(
            "quantization statistics of {} input are not supported",
            ft.name()
        ));
    }
    let a = crate::kernels::reduce::norm_axis(c.arg_i64(2)?, x.ndim())?;
    let axes: Vec<usize> = (0..x.ndim()).filter(|&d| d != a).collect();
    let (rows, _, _) = crate::kernels::reduce::to_rows(&x.to_f64(), &axes);
    let nan_or = |r: &ndarray::ArrayView1<f64>, f: fn(f64, f64) -> f64| {
        if r.iter().any(|v| v.is_nan()) {
            f64::NAN
        } else {
            r.iter().copied().fold(0.0, f)
        }
    };
    let lo = rows.outer_iter().map(|r| nan_or(&r, f64::min)).collect();
    let hi = rows.outer_iter().map(|r| nan_or(&r, f64::max)).collect();
    Ok((lo, hi, ft))
}

fn range_of(c: &Ctx) -> KResult<(f64, f64)> {
    match c.arg(1)?.to_f64().as_slice() {
        Some(&[lo, hi]) => Ok((lo, hi)),
        _ => kerr("the range operand must hold [quant_min, quant_max]"),
    }
}

fn vec_tensor(v: Vec<f64>, dt: DType) -> Value {
    let n = v.len();
    Value::tensor(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&[n]), v).expect("sizes agree"),
        dt,
    ))
}

/// `symmetric_quantization_statistics(input, range, axis)`: per channel
/// `max|x| · (2 / (qmax - qmin))`, in the input's float type.
fn symmetric_stats(c: &Ctx) -> KResult<Vec<Value>> {
    let (lo, hi, ft) = channel_min_max(c)?;
    let (qmin, qmax) = range_of(c)?;
    let r = |v: f64| Tensor::scalar_f64(v, ft).to_f64()[[]];
    let k = r(2.0 / r(qmax - qmin));
    let scale: Vec<f64> = lo
        .iter()
        .zip(&hi)
        .map(|(&l, &h)| {
            if l.is_nan() || h.is_nan() {
                f64::NAN
            } else {
                r(l.abs().max(h.abs()) * k)
            }
        })
        .collect();
    Ok(vec![vec_tensor(scale, c.out_dtype(0)?)])
}

/// `asymmetric_quantization_statistics(input, range, axis)`: per channel
/// `scale = (max - min) / (qmax - qmin)` and `zero_point = qmin - min /
/// scale` (rounded half to even and clipped to the range for an integer
/// range), min and max widened to include 0.
fn asymmetric_stats(c: &Ctx) -> KResult<Vec<Value>> {
    let (lo, hi, ft) = channel_min_max(c)?;
    let (qmin, qmax) = range_of(c)?;
    let zt = c.out_dtype(1)?;
    let r = |v: f64| Tensor::scalar_f64(v, ft).to_f64()[[]];
    let span = r(qmax - qmin);
    let scale: Vec<f64> = lo
        .iter()
        .zip(&hi)
        .map(|(&l, &h)| r(r(h - l) / span))
        .collect();
    let zp: Vec<f64> = lo
        .iter()
        .zip(&scale)
        .map(|(&l, &s)| {
            let q = r(l / s);
            if zt.is_float() {
                r(qmin - q)
            } else if q.is_nan() {
                0.0
            } else {
                (qmin - q.round_ties_even()).clamp(qmin, qmax)
            }
        })
        .collect();
    Ok(vec![vec_tensor(scale, c.out_dtype(0)?), vec_tensor(zp, zt)])
}

/// `lut_to_dense(indices [a..], lut [b.., P, V], axis)`: each index picks
/// a V-vector from the LUT of its block (`b_i` blocks along dim i), placed
/// along `axis` (which grows by V).
fn lut_to_dense(c: &Ctx) -> KResult<Vec<Value>> {
    let (idx, lut) = (c.arg(0)?, c.arg(1)?);
    let (is, ls) = (idx.shape(), lut.shape());
    let k = is.len();
    if ls.len() != k + 2 || (0..k).any(|d| ls[d] == 0 || is[d] % ls[d] != 0) {
        return kerr(format!(
            "lut {ls:?} must be [blocks.., P, V] with blocks dividing the indices {is:?}"
        ));
    }
    let (p, v) = (ls[k], ls[k + 1]);
    let axis = crate::kernels::reduce::norm_axis(c.arg_i64(2)?, k.max(1))?;
    let ids = idx.to_i64_vec();
    let flat_lut = lut.reshape(&[lut.len()])?;
    let mut out_shape = is.clone();
    if k > 0 {
        out_shape[axis] *= v;
    }
    // the LUT element feeding each output element, in output order
    let n: usize = out_shape.iter().product();
    let mut src = Vec::with_capacity(n);
    let mut at = vec![0usize; k];
    for o in 0..n {
        let mut rem = o;
        for d in (0..k).rev() {
            at[d] = rem % out_shape[d];
            rem /= out_shape[d];
        }
        let lane = if k > 0 { at[axis] % v } else { 0 };
        if k > 0 {
            at[axis] /= v;
        }
        let flat_idx = (0..k).fold(0, |f, d| f * is[d] + at[d]);
        let entry = ids[flat_idx];
        if entry < 0 || entry as usize >= p {
            return kerr(format!("index {entry} outside a palette of {p}"));
        }
        let block = (0..k).fold(0, |f, d| f * ls[d] + at[d] / (is[d] / ls[d]));
        src.push(((block * p + entry as usize) * v + lane) as i64);
    }
    one(shape::index_select(&flat_lut, 0, &src)?.reshape(&out_shape)?)
}

/// Bitmask-sparse tensors are held in their dense view (zeros where the
/// bitmask is 0). `build_sparse_with_bitmask(values, bitmask)`: the
/// values, in row-major order, at the set positions.
fn build_sparse_with_bitmask(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (values, mask) = (c.arg(0)?.cast(dt), c.arg(1)?.to_bool());
    let nnz = mask.iter().filter(|&&m| m).count();
    if values.shape().first() != Some(&nnz) || values.len() != nnz {
        return kerr(format!(
            "{} values for a bitmask with {nnz} set positions",
            values.len()
        ));
    }
    let mut pos: Vec<i64> = Vec::with_capacity(mask.len());
    let mut next = 0i64;
    for &m in mask.iter() {
        // position nnz of [values..., 0] is the zero
        pos.push(if m { next } else { nnz as i64 });
        next += m as i64;
    }
    let zero = Tensor::zeros(dt, &[1]);
    let padded = shape::cat(&[values.reshape(&[nnz])?, zero], 0)?;
    one(shape::index_select(&padded, 0, &pos)?.reshape(mask.shape())?)
}

/// `sparse_with_bitmask_to_dense`: the dense view the executor holds.
fn sparse_with_bitmask_to_dense(c: &Ctx) -> KResult<Vec<Value>> {
    one(c.arg(0)?.cast(c.out_dtype(0)?))
}
