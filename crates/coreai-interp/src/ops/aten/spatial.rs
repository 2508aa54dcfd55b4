//! Convolutions, pooling and resampling (upsample, grid_sample, col2im).

use super::promote::f64_of;
use crate::error::{kerr, KResult};
use crate::kernels::nn::{self, Pool2d};
use crate::kernels::spatial::{self, Conv2d};
use crate::kernels::{pool_nd, shape};
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{DType, Dom, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten.adaptive_max_pool2d.default", adaptive_max_pool2d),
    ("aten.avg_pool3d.default", avg_pool3d),
    ("aten.convolution.default", convolution),
    ("aten.conv2d.default", convolution),
    ("aten.conv1d.default", convolution),
    ("aten.max_pool2d_with_indices.default", max_pool2d),
    ("aten.max_pool2d.default", max_pool2d),
    ("aten.avg_pool2d.default", avg_pool2d),
    ("aten.adaptive_avg_pool2d.default", adaptive_avg_pool2d),
    ("aten._adaptive_avg_pool2d.default", adaptive_avg_pool2d),
    ("aten.upsample_nearest2d.vec", upsample_nearest),
    ("aten.upsample_nearest2d.default", upsample_nearest),
    ("aten.upsample_bilinear2d.vec", upsample_bilinear),
    ("aten.upsample_bilinear2d.default", upsample_bilinear),
    ("aten.conv3d.default", convolution),
    ("aten.conv2d.padding", conv_padding_str),
    ("aten.conv_transpose1d.default", conv_transpose),
    ("aten.conv_transpose2d.input", conv_transpose),
    ("aten.avg_pool1d.default", avg_pool1d),
    ("aten.adaptive_avg_pool1d.default", adaptive_avg_pool1d),
    ("aten.max_pool3d_with_indices.default", max_pool3d),
    ("aten._adaptive_avg_pool3d.default", adaptive_avg_pool3d),
    ("aten.grid_sampler_2d.default", grid_sampler_2d),
    ("aten.col2im.default", col2im),
];

fn pair(v: Option<Vec<i64>>, default: usize) -> [usize; 2] {
    match v.as_deref() {
        Some([a]) => [*a as usize, *a as usize],
        Some([a, b, ..]) => [*a as usize, *b as usize],
        _ => [default, default],
    }
}

/// One value per spatial dim from a schema list (`[1]` means all dims).
fn per_dim(v: Option<Vec<i64>>, k: usize, default: usize) -> KResult<Vec<usize>> {
    let v = v.unwrap_or_default();
    let out: Vec<i64> = match v.len() {
        0 => vec![default as i64; k],
        1 => vec![v[0]; k],
        n if n == k => v,
        n => return kerr(format!("{n} values for {k} spatial dims")),
    };
    if out.iter().any(|&x| x < 0) {
        return kerr(format!("negative convolution parameter {out:?}"));
    }
    Ok(out.into_iter().map(|x| x as usize).collect())
}

/// Any-rank and transposed convolution on the N-d kernels: zero padding
/// first for the plain form (the kernel correlates a padded input), the
/// transposed form takes padding and output_padding itself.
fn convolution_nd(c: &Ctx, dt: DType) -> KResult<Vec<Value>> {
    let (x, w) = (c.arg(0)?, c.arg(1)?);
    let k = x.ndim().saturating_sub(2);
    let transposed = c.bool_or("transposed", false)?;
    let p = spatial::ConvNd {
        stride: per_dim(c.opt_i64s("stride")?, k, 1)?,
        padding: per_dim(c.opt_i64s("padding")?, k, 0)?,
        dilation: per_dim(c.opt_i64s("dilation")?, k, 1)?,
        output_padding: per_dim(c.opt_i64s("output_padding")?, k, 0)?,
        groups: c.i64_or("groups", 1)?.max(0) as usize,
    };
    let wf = f64_of(w, dt);
    let mut y = if transposed {
        spatial::conv_transpose_nd(&f64_of(x, dt), &wf, &p)?
    } else {
        let pads: Vec<i64> = p
            .padding
            .iter()
            .rev()
            .flat_map(|&q| [q as i64, q as i64])
            .collect();
        let zero = Tensor::from_f64(ArrayD::zeros(IxDyn(&[])), dt);
        let padded = shape::pad_constant(&x.cast(dt), &pads, &zero)?;
        spatial::conv_nd(&padded.to_f64(), &wf, &p)?
    };
    if let Some(b) = c.opt_arg(2) {
        let mut bshape = vec![1; y.ndim()];
        bshape[1] = b.len();
        let b = f64_of(b, dt)
            .into_shape_with_order(IxDyn(&bshape))
            .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
        y = &y + &b;
    }
    one(Tensor::from_f64(y, dt))
}

fn convolution(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if c.bool_or("transposed", false)? || c.arg(0)?.ndim() == 5 {
        return convolution_nd(c, dt);
    }
    let (x, w) = (c.arg(0)?, c.arg(1)?);
    let one_d = x.ndim() == 3;
    // 1-d convolution runs as 2-d over a height of 1.
    let lifted = if one_d {
        let (xs, ws) = (x.shape(), w.shape());
        Some((
            x.reshape(&[xs[0], xs[1], 1, xs[2]])?,
            w.reshape(&[ws[0], ws[1], 1, ws[2]])?,
        ))
    } else {
        None
    };
    let (x, w) = lifted.as_ref().map_or((x, w), |(x, w)| (x, w));
    let lift = |v: Option<Vec<i64>>, d: usize| {
        if one_d {
            [d, pair(v, d)[0]]
        } else {
            pair(v, d)
        }
    };
    let p = Conv2d {
        stride: lift(c.opt_i64s("stride")?, 1),
        padding: if one_d {
            [0, pair(c.opt_i64s("padding")?, 0)[0]]
        } else {
            pair(c.opt_i64s("padding")?, 0)
        },
        dilation: lift(c.opt_i64s("dilation")?, 1),
        groups: c.i64_or("groups", 1)? as usize,
    };
    let mut y = spatial::conv2d(x, w, c.opt_arg(2), &p, dt)?;
    if one_d {
        let s = y.shape();
        y = y.reshape(&[s[0], s[1], s[3]])?;
    }
    one(y)
}

fn pool_params(c: &Ctx, max: bool) -> KResult<Pool2d> {
    let kernel = pair(c.opt_i64s("kernel_size")?, 1);
    let stride = match c.opt_i64s("stride")? {
        Some(s) if !s.is_empty() => pair(Some(s), 1),
        _ => kernel,
    };
    Ok(Pool2d {
        kernel,
        stride,
        padding: pair(c.opt_i64s("padding")?, 0),
        dilation: if max {
            pair(c.opt_i64s("dilation")?, 1)
        } else {
            [1, 1]
        },
        ceil_mode: c.bool_or("ceil_mode", false)?,
    })
}

fn max_pool2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let p = pool_params(c, true)?;
    let (v, i) = nn::max_pool2d_tensor(c.arg(0)?, &p, dt)?;
    let mut out = vec![Value::tensor(v)];
    if c.op.num_results() > 1 {
        out.push(Value::tensor(Tensor::I64(i).cast(c.out_dtype(1)?)));
    }
    Ok(out)
}

fn avg_pool2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let p = pool_params(c, false)?;
    let div = c.opt_i64("divisor_override")?.map(|d| d as f64);
    let (v, _) = nn::pool2d_with_indices(
        &f64_of(c.arg(0)?, dt),
        &p,
        false,
        c.bool_or("count_include_pad", true)?,
        div,
    )?;
    one(Tensor::from_f64(v, dt))
}

/// `avg_pool3d` (floor mode): window sums of the zero-padded input divided
/// by the window volume, by the count of non-padding elements
/// (`count_include_pad = false`), or by `divisor_override`.
fn avg_pool3d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if c.bool_or("ceil_mode", false)? {
        return kerr("avg_pool3d with ceil_mode is not supported");
    }
    let kernel = per_dim(c.opt_i64s("kernel_size")?, 3, 1)?;
    let stride = match c.opt_i64s("stride")? {
        Some(s) if !s.is_empty() => per_dim(Some(s), 3, 1)?,
        _ => kernel.clone(),
    };
    let padding = per_dim(c.opt_i64s("padding")?, 3, 0)?;
    let pads: Vec<i64> = padding
        .iter()
        .rev()
        .flat_map(|&q| [q as i64, q as i64])
        .collect();
    let x = c.arg(0)?.cast(dt);
    let zero = Tensor::from_f64(ArrayD::zeros(IxDyn(&[])), dt);
    let padded = shape::pad_constant(&x, &pads, &zero)?;
    let dilation = [1, 1, 1];
    let sums = spatial::sum_pool_nd(&padded.to_f64(), &kernel, &stride, &dilation)?;
    let out = if let Some(d) = c.opt_i64("divisor_override")? {
        sums / d as f64
    } else if c.bool_or("count_include_pad", true)? || padding.iter().all(|&q| q == 0) {
        sums / kernel.iter().product::<usize>() as f64
    } else {
        let ones = Tensor::from_f64(ArrayD::ones(x.shape()), DType::F64);
        let counts = shape::pad_constant(
            &ones,
            &pads,
            &Tensor::from_f64(ArrayD::zeros(IxDyn(&[])), DType::F64),
        )?;
        sums / spatial::sum_pool_nd(&counts.to_f64(), &kernel, &stride, &dilation)?
    };
    one(Tensor::from_f64(out, dt))
}

/// `adaptive_max_pool2d`: window `i` of `n` over a dim of size `s` spans
/// `[floor(i·s/n), ceil((i+1)·s/n))`; the maximum (NaN wins, the first of
/// equal maxima) and its flat index `h·W + w` in its plane.
fn adaptive_max_pool2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = f64_of(c.arg(0)?, dt);
    let [oh, ow] = pair(c.opt_i64s("output_size")?, 1);
    let r = x.ndim();
    if r < 3 || oh == 0 || ow == 0 {
        return kerr(
            "adaptive_max_pool2d expects [N, C, H, W] or [C, H, W] and a positive output size",
        );
    }
    let (h, w) = (x.shape()[r - 2], x.shape()[r - 1]);
    let planes = x.len() / (h * w).max(1);
    let flat: Vec<f64> = x.iter().copied().collect();
    let (mut vals, mut idx) = (
        Vec::with_capacity(planes * oh * ow),
        Vec::with_capacity(planes * oh * ow),
    );
    for p in 0..planes {
        let plane = &flat[p * h * w..(p + 1) * h * w];
        for i in 0..oh {
            let (h0, h1) = (i * h / oh, ((i + 1) * h).div_ceil(oh));
            for j in 0..ow {
                let (w0, w1) = (j * w / ow, ((j + 1) * w).div_ceil(ow));
                let (mut best, mut at) = (f64::NEG_INFINITY, h0 * w + w0);
                for y in h0..h1 {
                    for z in w0..w1 {
                        let v = plane[y * w + z];
                        if v > best || (v.is_nan() && !best.is_nan()) {
                            best = v;
                            at = y * w + z;
                        }
                    }
                }
                vals.push(best);
                idx.push(at as i128);
            }
        }
    }
    let mut shape = x.shape().to_vec();
    shape[r - 2] = oh;
    shape[r - 1] = ow;
    let vals = ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("sizes agree");
    let idx = ArrayD::from_shape_vec(IxDyn(&shape), idx).expect("sizes agree");
    Ok(vec![
        Value::tensor(Tensor::from_f64(vals, dt)),
        Value::tensor(Tensor::from_dom(Dom::I(idx), DType::I64)),
    ])
}

fn adaptive_avg_pool2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let [oh, ow] = pair(c.opt_i64s("output_size")?, 1);
    one(Tensor::from_f64(
        nn::adaptive_avg_pool2d(&f64_of(c.arg(0)?, dt), oh, ow)?,
        dt,
    ))
}

/// Nearest-neighbour upsampling of the trailing spatial dims to the result
/// shape (PyTorch's `nearest`: src = floor(dst · scale)).
fn upsample_nearest(c: &Ctx) -> KResult<Vec<Value>> {
    let mut x = c.arg(0)?.clone();
    let out = c.out_shape(0)?;
    let r = x.ndim();
    let scales = c
        .attr("scale_factors")
        .and_then(|a| a.as_array())
        .map(|v| v.iter().filter_map(|a| a.as_f64()).collect::<Vec<f64>>());
    for d in 2..r {
        let (n_in, n_out) = (x.shape()[d], out[d]);
        let scale = match (&scales, c.opt_i64s("output_size")?) {
            (Some(s), None) if s.len() == r - 2 => 1.0 / s[d - 2],
            _ => n_in as f64 / n_out as f64,
        };
        let idx: Vec<i64> = (0..n_out)
            .map(|o| ((o as f64 * scale).floor() as i64).min(n_in as i64 - 1))
            .collect();
        x = shape::index_select(&x, d, &idx)?;
    }
    one(x)
}

/// Bilinear upsampling of `[N, C, H, W]` to the result shape.
fn upsample_bilinear(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = f64_of(c.arg(0)?, dt);
    let out = c.out_shape(0)?;
    if x.ndim() != 4 {
        return kerr("upsample_bilinear2d expects [N, C, H, W]");
    }
    let align = c.bool_or("align_corners", false)?;
    let scales = c
        .attr("scale_factors")
        .and_then(|a| a.as_array())
        .map(|v| v.iter().filter_map(|a| a.as_f64()).collect::<Vec<f64>>());
    let has_size = c.opt_i64s("output_size")?.is_some();
    let (h, w) = (x.shape()[2], x.shape()[3]);
    let (oh, ow) = (out[2], out[3]);
    let coord = |o: usize, n_in: usize, n_out: usize, k: usize| -> (usize, usize, f64) {
        let src = if align {
            if n_out > 1 {
                o as f64 * (n_in as f64 - 1.0) / (n_out as f64 - 1.0)
            } else {
                0.0
            }
        } else {
            let scale = match (&scales, has_size) {
                (Some(s), false) if s.len() == 2 => 1.0 / s[k],
                _ => n_in as f64 / n_out as f64,
            };
            ((o as f64 + 0.5) * scale - 0.5).max(0.0)
        };
        let i0 = (src.floor() as usize).min(n_in - 1);
        let i1 = (i0 + 1).min(n_in - 1);
        (i0, i1, src - i0 as f64)
    };
    let mut y = ArrayD::<f64>::zeros(IxDyn(&out));
    for n in 0..out[0] {
        for ch in 0..out[1] {
            for i in 0..oh {
                let (y0, y1, fy) = coord(i, h, oh, 0);
                for j in 0..ow {
                    let (x0, x1, fx) = coord(j, w, ow, 1);
                    let v = |a: usize, b: usize| x[[n, ch, a, b]];
                    y[[n, ch, i, j]] = (1.0 - fy) * ((1.0 - fx) * v(y0, x0) + fx * v(y0, x1))
                        + fy * ((1.0 - fx) * v(y1, x0) + fx * v(y1, x1));
                }
            }
        }
    }
    one(Tensor::from_f64(y, dt))
}

fn spatial_params(c: &Ctx, k: usize) -> KResult<spatial::ConvNd> {
    Ok(spatial::ConvNd {
        stride: per_dim(c.opt_i64s("stride")?, k, 1)?,
        padding: per_dim(c.opt_i64s("padding")?, k, 0)?,
        dilation: per_dim(c.opt_i64s("dilation")?, k, 1)?,
        output_padding: per_dim(c.opt_i64s("output_padding")?, k, 0)?,
        groups: c.i64_or("groups", 1)?.max(0) as usize,
    })
}

fn add_bias(y: ArrayD<f64>, c: &Ctx, dt: DType) -> KResult<ArrayD<f64>> {
    let Some(b) = c.opt_arg(2) else { return Ok(y) };
    let mut bshape = vec![1; y.ndim()];
    bshape[1] = b.len();
    let b = f64_of(b, dt)
        .into_shape_with_order(IxDyn(&bshape))
        .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    Ok(&y + &b)
}

/// `conv_transpose1d` / `conv_transpose2d.input` (the transposed
/// convolution of any rank, `transposed` implied).
fn conv_transpose(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (x, w) = (c.arg(0)?, c.arg(1)?);
    let p = spatial_params(c, x.ndim().saturating_sub(2))?;
    let y = spatial::conv_transpose_nd(&f64_of(x, dt), &f64_of(w, dt), &p)?;
    one(Tensor::from_f64(add_bias(y, c, dt)?, dt))
}

/// `conv2d.padding`: `padding = "valid"` (none) or `"same"` (the output
/// keeps the input size at stride 1; an odd total pads one more at the end).
fn conv_padding_str(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (x, w) = (c.arg(0)?, c.arg(1)?);
    let k = x.ndim().saturating_sub(2);
    let mode = c.opt_str("padding").unwrap_or_else(|| "valid".into());
    let mut p = spatial::ConvNd {
        stride: per_dim(c.opt_i64s("stride")?, k, 1)?,
        padding: vec![0; k],
        dilation: per_dim(c.opt_i64s("dilation")?, k, 1)?,
        output_padding: vec![0; k],
        groups: c.i64_or("groups", 1)?.max(0) as usize,
    };
    let ws = w.shape();
    let pads: Vec<i64> = match mode.as_str() {
        "valid" => vec![0; 2 * k],
        "same" => {
            if p.stride.iter().any(|&s| s != 1) {
                return kerr("padding='same' needs stride 1");
            }
            (0..k)
                .rev()
                .flat_map(|d| {
                    let total =
                        (p.dilation[d] * (ws.get(d + 2).copied().unwrap_or(1).max(1) - 1)) as i64;
                    [total / 2, total - total / 2]
                })
                .collect()
        }
        m => return kerr(format!("unknown padding '{m}' (valid or same)")),
    };
    p.padding = vec![0; k];
    let zero = Tensor::scalar_f64(0.0, dt);
    let padded = shape::pad_constant(&x.cast(dt), &pads, &zero)?;
    let y = spatial::conv_nd(&padded.to_f64(), &f64_of(w, dt), &p)?;
    one(Tensor::from_f64(add_bias(y, c, dt)?, dt))
}

/// `avg_pool1d` as a 2-d pool over `[.., 1, L]`.
fn avg_pool1d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let k = per_dim(c.opt_i64s("kernel_size")?, 1, 1)?[0];
    let s = match c.opt_i64s("stride")? {
        Some(s) if !s.is_empty() => per_dim(Some(s), 1, 1)?[0],
        _ => k,
    };
    let p = nn::Pool2d {
        kernel: [1, k],
        stride: [1, s],
        padding: [0, per_dim(c.opt_i64s("padding")?, 1, 0)?[0]],
        dilation: [1, 1],
        ceil_mode: c.bool_or("ceil_mode", false)?,
    };
    let xs = x.shape();
    if xs.len() < 2 {
        return kerr("avg_pool1d expects [N, C, L] or [C, L]");
    }
    let mut s4 = xs.clone();
    s4.insert(xs.len() - 1, 1);
    let x4 = f64_of(&x.reshape(&s4)?, dt);
    let (v, _) =
        nn::pool2d_with_indices(&x4, &p, false, c.bool_or("count_include_pad", true)?, None)?;
    let mut out = v.shape().to_vec();
    out.remove(out.len() - 2);
    one(Tensor::from_f64(v, dt).reshape(&out)?)
}

/// `adaptive_avg_pool1d` as a 2-d adaptive pool over `[.., 1, L]`.
fn adaptive_avg_pool1d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let o = per_dim(c.opt_i64s("output_size")?, 1, 1)?[0];
    let xs = x.shape();
    if xs.len() < 2 || o == 0 {
        return kerr("adaptive_avg_pool1d expects [N, C, L] or [C, L] and a positive output size");
    }
    let mut s4 = xs.clone();
    s4.insert(xs.len() - 1, 1);
    let v = nn::adaptive_avg_pool2d(&f64_of(&x.reshape(&s4)?, dt), 1, o)?;
    let mut out = v.shape().to_vec();
    out.remove(out.len() - 2);
    one(Tensor::from_f64(v, dt).reshape(&out)?)
}

/// `max_pool3d_with_indices`: values and flat `d·H·W + h·W + w` indices.
fn max_pool3d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let kernel = per_dim(c.opt_i64s("kernel_size")?, 3, 1)?;
    let stride = match c.opt_i64s("stride")? {
        Some(s) if !s.is_empty() => per_dim(Some(s), 3, 1)?,
        _ => kernel.clone(),
    };
    let p = pool_nd::PoolNd {
        kernel,
        stride,
        padding: per_dim(c.opt_i64s("padding")?, 3, 0)?,
        dilation: per_dim(c.opt_i64s("dilation")?, 3, 1)?,
        ceil_mode: c.bool_or("ceil_mode", false)?,
    };
    let (v, i) = pool_nd::max_pool_nd(&f64_of(c.arg(0)?, dt), &p)?;
    Ok(vec![
        Value::tensor(Tensor::from_f64(v, dt)),
        Value::tensor(Tensor::from_i128(i.mapv(|v| v as i128), c.out_dtype(1)?)),
    ])
}

fn adaptive_avg_pool3d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let out = per_dim(c.opt_i64s("output_size")?, 3, 1)?;
    one(Tensor::from_f64(
        pool_nd::adaptive_avg_pool_nd(&f64_of(c.arg(0)?, dt), &out)?,
        dt,
    ))
}

/// PyTorch's `reflect_coordinates`: `x` reflected into `[lo2 / 2, hi2 / 2]`.
fn reflect_coordinate(x: f64, lo2: i64, hi2: i64) -> f64 {
    if lo2 == hi2 {
        return 0.0;
    }
    let min = lo2 as f64 / 2.0;
    let span = (hi2 - lo2) as f64 / 2.0;
    let x = (x - min).abs();
    let extra = x % span;
    if (x / span).floor() as i64 % 2 == 0 {
        extra + min
    } else {
        span - extra + min
    }
}

/// A grid coordinate in [-1, 1] to a source position along a dim of `n`,
/// with PyTorch's padding modes (0 zeros, 1 border, 2 reflection).
fn grid_source(g: f64, n: usize, align: bool, padding: i64) -> f64 {
    let n_f = n as f64;
    let mut x = if align {
        (g + 1.0) / 2.0 * (n_f - 1.0)
    } else {
        ((g + 1.0) * n_f - 1.0) / 2.0
    };
    let clip = |v: f64| v.clamp(0.0, n_f - 1.0);
    if padding == 2 {
        x = if align {
            reflect_coordinate(x, 0, 2 * (n as i64 - 1))
        } else {
            reflect_coordinate(x, -1, 2 * n as i64 - 1)
        };
    }
    if padding >= 1 {
        x = clip(x);
    }
    x
}

/// `grid_sampler_2d(input [N, C, H, W], grid [N, Ho, Wo, 2])`: bilinear
/// (mode 0) or nearest (mode 1, ties to even) sampling at `grid` (x then
/// y, in [-1, 1]); out-of-range taps read 0 under zeros padding.
fn grid_sampler_2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = f64_of(c.arg(0)?, dt);
    let g = f64_of(c.arg(1)?, dt);
    let (xs, gs) = (x.shape().to_vec(), g.shape().to_vec());
    if xs.len() != 4 || gs.len() != 4 || gs[3] != 2 || gs[0] != xs[0] {
        return kerr(format!("grid_sampler_2d needs [N, C, H, W] input and [N, Ho, Wo, 2] grid, got {xs:?} and {gs:?}"));
    }
    let mode = c.i64_attr("interpolation_mode")?;
    let padding = c.i64_attr("padding_mode")?;
    if !(0..=1).contains(&mode) || !(0..=2).contains(&padding) {
        return kerr(format!(
            "grid_sampler_2d mode {mode} / padding {padding} is not supported (bicubic is not)"
        ));
    }
    let align = c.bool_or("align_corners", false)?;
    let (n, ch, h, w, ho, wo) = (xs[0], xs[1], xs[2], xs[3], gs[1], gs[2]);
    let mut out = ArrayD::<f64>::zeros(IxDyn(&[n, ch, ho, wo]));
    let tap = |b: usize, k: usize, yy: i64, xx: i64| -> f64 {
        if yy < 0 || xx < 0 || yy >= h as i64 || xx >= w as i64 {
            0.0
        } else {
            x[[b, k, yy as usize, xx as usize]]
        }
    };
    for b in 0..n {
        for i in 0..ho {
            for j in 0..wo {
                let sx = grid_source(g[[b, i, j, 0]], w, align, padding);
                let sy = grid_source(g[[b, i, j, 1]], h, align, padding);
                for k in 0..ch {
                    out[[b, k, i, j]] = if mode == 1 {
                        tap(
                            b,
                            k,
                            sy.round_ties_even() as i64,
                            sx.round_ties_even() as i64,
                        )
                    } else if sx.is_nan() || sy.is_nan() {
                        f64::NAN
                    } else {
                        let (x0, y0) = (sx.floor(), sy.floor());
                        let (tx, ty) = (sx - x0, sy - y0);
                        let (x0, y0) = (x0 as i64, y0 as i64);
                        tap(b, k, y0, x0) * (1.0 - tx) * (1.0 - ty)
                            + tap(b, k, y0, x0 + 1) * tx * (1.0 - ty)
                            + tap(b, k, y0 + 1, x0) * (1.0 - tx) * ty
                            + tap(b, k, y0 + 1, x0 + 1) * tx * ty
                    };
                }
            }
        }
    }
    one(Tensor::from_f64(out, dt))
}

/// `col2im` (`F.fold`): `[N, C·kh·kw, L]` blocks summed into `[N, C, H, W]`
/// (the adjoint of im2col; overlapping taps add, padding taps drop).
fn col2im(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    if !(2..=3).contains(&x.ndim()) {
        return kerr("col2im expects [N, C·kh·kw, L] or [C·kh·kw, L]");
    }
    let batched = x.ndim() == 3;
    let x = if batched {
        x.clone()
    } else {
        x.reshape(&[1, x.shape()[0], x.shape()[1]])?
    };
    let x = f64_of(&x, dt);
    let [oh, ow] = pair(c.opt_i64s("output_size")?, 1);
    let [kh, kw] = pair(c.opt_i64s("kernel_size")?, 1);
    let [dh, dw] = pair(c.opt_i64s("dilation")?, 1);
    let [ph, pw] = pair(c.opt_i64s("padding")?, 0);
    let [sh, sw] = pair(c.opt_i64s("stride")?, 1);
    let (n, ckk, l) = (x.shape()[0], x.shape()[1], x.shape()[2]);
    if kh * kw == 0 || sh * sw == 0 || dh * dw == 0 || ckk % (kh * kw) != 0 {
        return kerr(format!("col2im: {ckk} rows for a {kh}x{kw} kernel"));
    }
    let blocks = |o: usize, k: usize, d: usize, p: usize, s: usize| {
        ((o + 2 * p).saturating_sub(d * (k - 1) + 1)) / s + 1
    };
    let (lh, lw) = (blocks(oh, kh, dh, ph, sh), blocks(ow, kw, dw, pw, sw));
    if lh * lw != l {
        return kerr(format!("col2im: {l} blocks, the geometry gives {lh}x{lw}"));
    }
    let ch = ckk / (kh * kw);
    let mut out = ArrayD::<f64>::zeros(IxDyn(&[n, ch, oh, ow]));
    for b in 0..n {
        for row in 0..ckk {
            let (k, ki, kj) = (row / (kh * kw), row / kw % kh, row % kw);
            for bh in 0..lh {
                for bw in 0..lw {
                    let y = (bh * sh + ki * dh) as i64 - ph as i64;
                    let xx = (bw * sw + kj * dw) as i64 - pw as i64;
                    if y >= 0 && xx >= 0 && (y as usize) < oh && (xx as usize) < ow {
                        out[[b, k, y as usize, xx as usize]] += x[[b, row, bh * lw + bw]];
                    }
                }
            }
        }
    }
    let out = Tensor::from_f64(out, dt);
    one(if batched {
        out
    } else {
        out.reshape(&[ch, oh, ow])?
    })
}
