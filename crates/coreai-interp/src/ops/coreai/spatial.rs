//! Convolutions, pooling and interpolation.

use crate::error::{kerr, KResult};
use crate::kernels::nn::{self, Pool2d};
use crate::kernels::pool_nd;
use crate::kernels::spatial::{self, Conv2d, ConvNd};
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::Tensor;
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The coreai kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("coreai.conv2d", conv2d),
    ("coreai.max_pool_2d", max_pool_2d),
    ("coreai.sum_pool_2d", sum_pool_2d),
    ("coreai.conv3d", conv3d),
    ("coreai.conv_transpose2d", conv_transpose),
    ("coreai.conv_transpose3d", conv_transpose),
    ("coreai.sum_pool_3d", sum_pool_3d),
    ("coreai.interpolate", interpolate),
    ("coreai.interpolate_coordinates", interpolate_coordinates),
    ("coreai.max_pool_3d", max_pool_3d),
];

fn pair(v: Vec<i64>) -> KResult<[usize; 2]> {
    match v.as_slice() {
        [a] => Ok([*a as usize, *a as usize]),
        [a, b] => Ok([*a as usize, *b as usize]),
        _ => kerr("expected two spatial values"),
    }
}

fn conv2d(c: &Ctx) -> KResult<Vec<Value>> {
    let p = Conv2d {
        stride: pair(c.arg_i64s(2)?)?,
        padding: [0, 0],
        dilation: pair(c.arg_i64s(3)?)?,
        groups: c.arg_i64(4)?.max(1) as usize,
    };
    one(spatial::conv2d(
        c.arg(0)?,
        c.arg(1)?,
        None,
        &p,
        c.out_dtype(0)?,
    )?)
}

fn max_pool_2d(c: &Ctx) -> KResult<Vec<Value>> {
    let p = Pool2d {
        kernel: pair(c.arg_i64s(1)?)?,
        stride: pair(c.arg_i64s(2)?)?,
        padding: [0, 0],
        dilation: pair(c.arg_i64s(3)?)?,
        ceil_mode: c.arg(4)?.to_bool().iter().any(|&b| b),
    };
    one(nn::max_pool2d_tensor(c.arg(0)?, &p, c.out_dtype(0)?)?.0)
}

fn sum_pool_2d(c: &Ctx) -> KResult<Vec<Value>> {
    let p = Pool2d {
        kernel: pair(c.arg_i64s(1)?)?,
        stride: pair(c.arg_i64s(2)?)?,
        padding: [0, 0],
        dilation: pair(c.arg_i64s(3)?)?,
        ceil_mode: false,
    };
    // average pooling with divisor 1 is the window sum
    let (v, _) = nn::pool2d_with_indices(&c.arg(0)?.to_f64(), &p, false, true, Some(1.0))?;
    one(Tensor::from_f64(v, c.out_dtype(0)?))
}

/// A tensor operand of non-negative sizes (strides, paddings) as `usize`.
fn arg_usizes(c: &Ctx, i: usize) -> KResult<Vec<usize>> {
    c.arg_i64s(i)?
        .into_iter()
        .map(|v| {
            usize::try_from(v).or_else(|_| kerr(format!("operand #{i} holds the negative {v}")))
        })
        .collect()
}

/// `coreai.conv3d %x, %w, stride, dilation, groups` (input already padded).
fn conv3d(c: &Ctx) -> KResult<Vec<Value>> {
    let p = ConvNd {
        stride: arg_usizes(c, 2)?,
        padding: vec![0; 3],
        dilation: arg_usizes(c, 3)?,
        output_padding: vec![0; 3],
        groups: c.arg_i64(4)?.max(1) as usize,
    };
    let y = spatial::conv_nd(&c.arg(0)?.to_f64(), &c.arg(1)?.to_f64(), &p)?;
    one(Tensor::from_f64(y, c.out_dtype(0)?))
}

/// `coreai.conv_transpose{2,3}d %x, %w, stride, padding, dilation,
/// output_pad, groups`: PyTorch's transposed convolution.
fn conv_transpose(c: &Ctx) -> KResult<Vec<Value>> {
    let p = ConvNd {
        stride: arg_usizes(c, 2)?,
        padding: arg_usizes(c, 3)?,
        dilation: arg_usizes(c, 4)?,
        output_padding: arg_usizes(c, 5)?,
        groups: c.arg_i64(6)?.max(1) as usize,
    };
    let y = spatial::conv_transpose_nd(&c.arg(0)?.to_f64(), &c.arg(1)?.to_f64(), &p)?;
    one(Tensor::from_f64(y, c.out_dtype(0)?))
}

/// `coreai.sum_pool_3d %x, kernel, strides, dilation` (floor mode).
fn sum_pool_3d(c: &Ctx) -> KResult<Vec<Value>> {
    let (k, s, d) = (arg_usizes(c, 1)?, arg_usizes(c, 2)?, arg_usizes(c, 3)?);
    let y = spatial::sum_pool_nd(&c.arg(0)?.to_f64(), &k, &s, &d)?;
    one(Tensor::from_f64(y, c.out_dtype(0)?))
}

/// `coreai.interpolate %x, output_shape, scale, offset {interpolation_mode}`.
fn interpolate(c: &Ctx) -> KResult<Vec<Value>> {
    let mode = c
        .attr("interpolation_mode")
        .map(|a| a.to_text())
        .unwrap_or_default();
    let linear = if mode.contains("nearest") {
        false
    } else if mode.contains("linear") {
        true
    } else {
        return kerr(format!("interpolation mode '{mode}' is not supported"));
    };
    let out = arg_usizes(c, 1)?;
    let (scale, offset) = (c.arg(2)?.to_f64(), c.arg(3)?.to_f64());
    let scale: Vec<f64> = scale.iter().copied().collect();
    let offset: Vec<f64> = offset.iter().copied().collect();
    let y = spatial::interpolate(&c.arg(0)?.to_f64(), &out, &scale, &offset, linear)?;
    one(Tensor::from_f64(y, c.out_dtype(0)?))
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
