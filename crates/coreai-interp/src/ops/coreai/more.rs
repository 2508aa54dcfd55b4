//! More coreai kernels (coreai-core 1.0.0b3's semantics, checked against
//! its interpreter): shape arithmetic, (de)quantization, blockwise
//! dequantization, 3-d max pooling.

use super::super::{one, Ctx, Table};
use crate::error::{kerr, KResult};
use crate::interp::Value;
use crate::kernels::elementwise::broadcast_shapes as broadcast;
use crate::kernels::reduce::{norm_axes, norm_axis};
use crate::kernels::{pool_nd, shape};
use crate::tensor::{DType, Tensor};
use ndarray::{ArrayD, IxDyn};

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

/// The quantization parameters `p` (0-d or 1-d) broadcast to `x`'s shape:
/// along dim `axis` (a 0-d axis operand) or as scalars (a 1-d axis operand
/// listing every dim).
fn along_axis(c: &Ctx, p: &Tensor, xs: &[usize]) -> KResult<Tensor> {
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

/// `max_pool_3d(input, kernel_size, stride, dilation, ceil_mode)` over
/// NCDHW without padding; a NaN in the window wins.
fn max_pool_3d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let dims = |i: usize| -> KResult<Vec<usize>> {
        let v = c.arg_i64s(i)?;
        if v.len() != 3 || v.iter().any(|&d| d <= 0) {
            return kerr(format!(
                "operand #{i} must hold three positive values, not {v:?}"
            ));
        }
        Ok(v.into_iter().map(|d| d as usize).collect())
    };
    let p = pool_nd::PoolNd {
        kernel: dims(1)?,
        stride: dims(2)?,
        padding: vec![0; 3],
        dilation: dims(3)?,
        ceil_mode: c.arg(4)?.to_bool().iter().any(|&b| b),
    };
    let x = c.arg(0)?;
    if x.ndim() != 5 {
        return kerr("max_pool_3d expects NCDHW input");
    }
    let (v, _) = pool_nd::max_pool_nd(&x.cast(dt).to_f64(), &p)?;
    one(Tensor::from_f64(v, dt))
}

/// `interpolate_coordinates(input, coords [N, K])`: the K-d `input` read at
/// each row of `coords` (absolute positions). Linear mode lerps one dim at a
/// time between `floor(c)` and `floor(c) + 1` (indices clamped to the input,
/// as `coreai.interpolate` does), nearest rounds half to even and clamps.
fn interpolate_coordinates(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?.cast(dt).to_f64();
    let coords = c.arg(1)?.to_f64();
    let k = x.ndim();
    if coords.ndim() != 2 || coords.shape()[1] != k || x.is_empty() {
        return kerr(format!(
            "coords {:?} must be [N, {k}] over a non-empty input",
            coords.shape()
        ));
    }
    let mode = c
        .attr("interpolation_mode")
        .map(|a| a.to_text())
        .unwrap_or_default();
    let linear = mode.contains("linear");
    let n = coords.shape()[0];
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let pos: Vec<f32> = (0..k).map(|d| coords[[i, d]] as f32).collect();
        out.push(sample(&x, &pos, linear));
    }
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&[n]), out).expect("sizes agree"),
        dt,
    ))
}

/// The value at `pos`: nearest reads one element; linear sums, from +0 in
/// f32, `w · x[corner]` over the 2^K corners (`w` the product of the
/// per-dim weights `1 - t` / `t`, dim 0 varying fastest over the corners),
/// as coreai-core's interpreter (bit-exact on its 2-d and 3-d cases).
fn sample(x: &ArrayD<f64>, pos: &[f32], linear: bool) -> f64 {
    let k = pos.len();
    let hi = |d: usize| (x.shape()[d] - 1) as f32;
    if !linear {
        let at: Vec<usize> = (0..k)
            .map(|d| pos[d].round_ties_even().clamp(0.0, hi(d)) as usize)
            .collect();
        return x[IxDyn(&at)];
    }
    let floor: Vec<f32> = pos.iter().map(|p| p.floor()).collect();
    let mut acc = 0f32;
    for corner in 0..1usize << k {
        let mut w = 1f32;
        let mut at = vec![0usize; k];
        for d in 0..k {
            let up = corner >> d & 1 == 1;
            let t = pos[d] - floor[d];
            w *= if up { t } else { 1.0 - t };
            at[d] = (floor[d] + up as u8 as f32).clamp(0.0, hi(d)) as usize;
        }
        acc += w * x[IxDyn(&at)] as f32;
    }
    f64::from(acc)
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

/// Runs a single-block region of table ops (no nested regions) on scalar
/// tensors: the block's arguments are `args`, the result is what it yields.
fn run_region(table: &Table, block: crate::ir::Block, args: &[Tensor]) -> KResult<Vec<Tensor>> {
    if block.num_args() != args.len() {
        return kerr(format!(
            "the region takes {} arguments, not {}",
            block.num_args(),
            args.len()
        ));
    }
    let mut env: std::collections::HashMap<usize, Tensor> = args
        .iter()
        .enumerate()
        .map(|(i, t)| (block.arg(i).key(), t.clone()))
        .collect();
    let get = |env: &std::collections::HashMap<usize, Tensor>,
               op: crate::ir::Op,
               i: usize|
     -> KResult<Tensor> {
        match env.get(&op.operand(i).key()) {
            Some(t) => Ok(t.clone()),
            None => kerr(format!(
                "{} reads a value defined outside its region",
                op.name()
            )),
        }
    };
    for op in block.ops() {
        let name = op.name();
        let operands: Vec<Tensor> = (0..op.num_operands())
            .map(|i| get(&env, op, i))
            .collect::<KResult<_>>()?;
        if name == "coreai.yield" {
            return Ok(operands);
        }
        let Some(kernel) = table.get(name.as_str()) else {
            return kerr(format!("{name} is not executable inside a region"));
        };
        let ctx = Ctx {
            op,
            name: &name,
            vals: operands.into_iter().map(Value::tensor).collect(),
        };
        for (i, v) in kernel(&ctx)?.into_iter().enumerate() {
            let Some(t) = v.as_tensor() else {
                return kerr(format!("{name} in a region produced a non-tensor value"));
            };
            env.insert(op.result(i).key(), t.clone());
        }
    }
    kerr("the region does not yield")
}

fn region_of(c: &Ctx) -> KResult<crate::ir::Block> {
    match c.op.region_block(0) {
        Some(b) if !c.op.region_is_multi_block(0) => Ok(b),
        _ => kerr("the op needs a single-block region"),
    }
}

/// The elements of `x` along `axes`, for each position of the other dims
/// (row-major both ways), as 0-d tensors.
fn lanes(x: &Tensor, axes: &[usize]) -> KResult<(Vec<Vec<Tensor>>, Vec<usize>)> {
    let r = x.ndim();
    let kept: Vec<usize> = (0..r).filter(|d| !axes.contains(d)).collect();
    let mut perm = kept.clone();
    perm.extend(axes);
    let p = shape::permute(x, &perm)?;
    let outer: usize = kept.iter().map(|&d| x.shape()[d]).product();
    let inner: usize = axes.iter().map(|&d| x.shape()[d]).product();
    let flat = p.reshape(&[outer * inner])?;
    let lanes = (0..outer)
        .map(|o| {
            (0..inner)
                .map(|i| shape::select(&flat, 0, (o * inner + i) as i64))
                .collect::<KResult<Vec<_>>>()
        })
        .collect::<KResult<_>>()?;
    let keep_shape = (0..r)
        .map(|d| if axes.contains(&d) { 1 } else { x.shape()[d] })
        .collect();
    Ok((lanes, keep_shape))
}

/// `coreai.reduce(input, axes, init) { ^bb(%acc, %x): yield %next }`: a
/// left fold of the region over the reduced axes (row-major), from `init`;
/// the reduced dims stay as 1.
fn reduce_region(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let axes = norm_axes(&c.arg_i64s(1)?, x.ndim(), false)?;
    let init = c.arg(2)?.reshape(&[])?;
    let block = region_of(c)?;
    let table = super::super::table();
    let (lanes, keep_shape) = lanes(x, &axes)?;
    let mut out = Vec::with_capacity(lanes.len());
    for lane in lanes {
        let mut acc = init.clone();
        for v in lane {
            acc = match run_region(&table, block, &[acc, v])?.as_slice() {
                [t] => t.reshape(&[])?,
                _ => return kerr("the reduce region must yield one value"),
            };
        }
        out.push(acc);
    }
    let dt = c.out_dtype(0)?;
    let flat = shape::cat(
        &out.iter()
            .map(|t| t.cast(dt).reshape(&[1]))
            .collect::<KResult<Vec<_>>>()?,
        0,
    )?;
    one(flat.reshape(&keep_shape)?)
}

/// `coreai.reduce_index(input, axis, init_value, init_index)`: the index
/// of the winner along `axis`. The region either takes (best, candidate)
/// and yields whether the candidate wins, or takes (best, candidate,
/// best index, candidate index) and yields the new (best, index).
fn reduce_index(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let axis = norm_axis(c.arg_i64(1)?, x.ndim())?;
    let (init, init_idx) = (c.arg(2)?.reshape(&[])?, c.arg(3)?.reshape(&[])?);
    let it = init_idx.dtype();
    let block = region_of(c)?;
    let table = super::super::table();
    let (lanes, keep_shape) = lanes(x, &[axis])?;
    let mut out = Vec::with_capacity(lanes.len());
    for lane in lanes {
        let (mut best, mut at) = (init.clone(), init_idx.clone());
        for (i, v) in lane.into_iter().enumerate() {
            let i = Tensor::scalar_i128(i as i128, it);
            if block.num_args() == 2 {
                let wins = match run_region(&table, block, &[best.clone(), v.clone()])?.as_slice() {
                    [t] => t.to_bool().iter().any(|&b| b),
                    _ => return kerr("the reduce_index region must yield one bool"),
                };
                if wins {
                    (best, at) = (v, i);
                }
            } else {
                match run_region(&table, block, &[best.clone(), v, at.clone(), i])?.as_slice() {
                    [b, a] => (best, at) = (b.reshape(&[])?, a.reshape(&[])?),
                    _ => return kerr("the reduce_index region must yield (value, index)"),
                }
            }
        }
        out.push(at.cast(c.out_dtype(0)?).reshape(&[1])?);
    }
    one(shape::cat(&out, 0)?.reshape(&keep_shape)?)
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

pub fn register(t: &mut Table) {
    t.insert(
        "coreai.build_sparse_with_bitmask",
        build_sparse_with_bitmask,
    );
    t.insert(
        "coreai.sparse_with_bitmask_to_dense",
        sparse_with_bitmask_to_dense,
    );
    t.insert("coreai.reduce", reduce_region);
    t.insert("coreai.reduce_index", reduce_index);
    t.insert("coreai.lut_to_dense", lut_to_dense);
    t.insert("coreai.symmetric_quantization_statistics", symmetric_stats);
    t.insert(
        "coreai.asymmetric_quantization_statistics",
        asymmetric_stats,
    );
    t.insert("coreai.interpolate_coordinates", interpolate_coordinates);
    t.insert("coreai.broadcast_shapes", broadcast_shapes);
    t.insert("coreai.dequantize", dequantize);
    t.insert("coreai.quantize", quantize);
    t.insert("coreai.blockwise_shift_scale", blockwise_shift_scale);
    t.insert("coreai.max_pool_3d", max_pool_3d);
}
