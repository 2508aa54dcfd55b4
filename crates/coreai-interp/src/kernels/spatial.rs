//! N-d spatial kernels in f64: convolution and transposed convolution of
//! any spatial rank (coreai.conv3d, conv_transpose2d/3d), sum pooling
//! (sum_pool_3d) and grid interpolation (coreai.interpolate). Direct loops:
//! these ops are rare in models; the 2-d convolution keeps its GEMM path in
//! `linalg`.

use crate::error::{kerr, KResult};
use ndarray::{ArrayD, Axis, IxDyn};

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The multi-index of flat position `flat` in `shape`.
fn unflatten(mut flat: usize, shape: &[usize], out: &mut [usize]) {
    for i in (0..shape.len()).rev() {
        out[i] = flat % shape[i].max(1);
        flat /= shape[i].max(1);
    }
}

/// Convolution geometry shared by the plain and the transposed form.
pub struct ConvNd {
    pub stride: Vec<usize>,
    pub padding: Vec<usize>,
    pub dilation: Vec<usize>,
    pub output_padding: Vec<usize>,
    pub groups: usize,
}

fn check(x: &ArrayD<f64>, w: &ArrayD<f64>, p: &ConvNd) -> KResult<usize> {
    let k = x.ndim().saturating_sub(2);
    if k == 0 || w.ndim() != x.ndim() {
        return kerr(format!(
            "convolution input {:?} and weight {:?} must be [N, C, ...] of one rank",
            x.shape(),
            w.shape()
        ));
    }
    for (name, v) in [("stride", &p.stride), ("dilation", &p.dilation)] {
        if v.len() != k || v.contains(&0) {
            return kerr(format!("{name} {v:?} must hold {k} positive values"));
        }
    }
    if p.groups == 0 {
        return kerr("groups must be positive");
    }
    Ok(k)
}

/// Cross-correlation of an already padded `x` [N, Cin, S...] with `w`
/// [Cout, Cin/groups, K...] (PyTorch's convolution without padding).
pub fn conv_nd(x: &ArrayD<f64>, w: &ArrayD<f64>, p: &ConvNd) -> KResult<ArrayD<f64>> {
    let k = check(x, w, p)?;
    let (xs, ws) = (x.shape(), w.shape());
    let (n, cin, cout, cing) = (xs[0], xs[1], ws[0], ws[1]);
    if cin != cing * p.groups || cout % p.groups != 0 {
        return kerr(format!(
            "conv channels: input {cin}, weight {ws:?}, groups {}",
            p.groups
        ));
    }
    let mut out_sp = Vec::with_capacity(k);
    for i in 0..k {
        let eff = p.dilation[i] * (ws[i + 2] - 1) + 1;
        if xs[i + 2] < eff {
            return kerr(format!("conv kernel {ws:?} larger than the input {xs:?}"));
        }
        out_sp.push((xs[i + 2] - eff) / p.stride[i] + 1);
    }
    let ksp: Vec<usize> = ws[2..].to_vec();
    let (kn, on): (usize, usize) = (ksp.iter().product(), out_sp.iter().product());
    let xst = strides(&xs[2..]);
    let (xv, wv) = (x.as_standard_layout(), w.as_standard_layout());
    let (xv, wv) = (xv.as_slice().expect("std"), wv.as_slice().expect("std"));
    let plane: usize = xs[2..].iter().product();
    let coutg = cout / p.groups;
    let mut out = vec![0.0; n * cout * on];
    let (mut oi, mut ki) = (vec![0; k], vec![0; k]);
    for b in 0..n {
        for co in 0..cout {
            let g = co / coutg;
            for o in 0..on {
                unflatten(o, &out_sp, &mut oi);
                let mut acc = 0.0;
                for c in 0..cing {
                    let xb = (b * cin + g * cing + c) * plane;
                    let wb = (co * cing + c) * kn;
                    for kk in 0..kn {
                        unflatten(kk, &ksp, &mut ki);
                        let mut off = 0;
                        for d in 0..k {
                            off += (oi[d] * p.stride[d] + ki[d] * p.dilation[d]) * xst[d];
                        }
                        acc += xv[xb + off] * wv[wb + kk];
                    }
                }
                out[(b * cout + co) * on + o] = acc;
            }
        }
    }
    let mut shape = vec![n, cout];
    shape.extend(out_sp);
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("sizes agree"))
}

/// Transposed convolution (PyTorch's `conv_transpose{1,2,3}d`): `x` [N, Cin,
/// S...], `w` [Cin, Cout/groups, K...]; output size per dim
/// `(S-1)·stride - 2·padding + dilation·(K-1) + output_padding + 1`.
pub fn conv_transpose_nd(x: &ArrayD<f64>, w: &ArrayD<f64>, p: &ConvNd) -> KResult<ArrayD<f64>> {
    let k = check(x, w, p)?;
    let (xs, ws) = (x.shape(), w.shape());
    let (n, cin, coutg) = (xs[0], xs[1], ws[1]);
    if ws[0] != cin || cin % p.groups != 0 || p.padding.len() != k || p.output_padding.len() != k {
        return kerr(format!(
            "transposed conv: input {xs:?}, weight {ws:?}, groups {}",
            p.groups
        ));
    }
    let cout = coutg * p.groups;
    let cing = cin / p.groups;
    let mut out_sp = Vec::with_capacity(k);
    for i in 0..k {
        let full = (xs[i + 2] - 1) * p.stride[i]
            + p.dilation[i] * (ws[i + 2] - 1)
            + p.output_padding[i]
            + 1;
        if full < 2 * p.padding[i] + 1 {
            return kerr("transposed conv padding leaves no output");
        }
        out_sp.push(full - 2 * p.padding[i]);
    }
    let ksp: Vec<usize> = ws[2..].to_vec();
    let (kn, on): (usize, usize) = (ksp.iter().product(), out_sp.iter().product());
    let ost = strides(&out_sp);
    let isp: Vec<usize> = xs[2..].to_vec();
    let inn: usize = isp.iter().product();
    let (xv, wv) = (x.as_standard_layout(), w.as_standard_layout());
    let (xv, wv) = (xv.as_slice().expect("std"), wv.as_slice().expect("std"));
    let mut out = vec![0.0; n * cout * on];
    let (mut ii, mut ki) = (vec![0; k], vec![0; k]);
    for b in 0..n {
        for ci in 0..cin {
            let g = ci / cing;
            for i in 0..inn {
                let v = xv[(b * cin + ci) * inn + i];
                unflatten(i, &isp, &mut ii);
                for kk in 0..kn {
                    unflatten(kk, &ksp, &mut ki);
                    let mut off = 0usize;
                    let mut inside = true;
                    for d in 0..k {
                        let o = (ii[d] * p.stride[d] + ki[d] * p.dilation[d]) as isize
                            - p.padding[d] as isize;
                        if o < 0 || o as usize >= out_sp[d] {
                            inside = false;
                            break;
                        }
                        off += o as usize * ost[d];
                    }
                    if !inside {
                        continue;
                    }
                    for c in 0..coutg {
                        let co = g * coutg + c;
                        out[(b * cout + co) * on + off] += v * wv[(ci * coutg + c) * kn + kk];
                    }
                }
            }
        }
    }
    let mut shape = vec![n, cout];
    shape.extend(out_sp);
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("sizes agree"))
}

/// Window sums over the trailing `kernel.len()` dims (floor mode, no padding).
pub fn sum_pool_nd(
    x: &ArrayD<f64>,
    kernel: &[usize],
    stride: &[usize],
    dilation: &[usize],
) -> KResult<ArrayD<f64>> {
    let k = kernel.len();
    let xs = x.shape().to_vec();
    if xs.len() < k || stride.len() != k || dilation.len() != k {
        return kerr("sum pool: kernel, strides and dilation must match the spatial rank");
    }
    if kernel.contains(&0) || stride.contains(&0) || dilation.contains(&0) {
        return kerr("sum pool: kernel, strides and dilation must be positive");
    }
    let lead = xs.len() - k;
    let sp = &xs[lead..];
    let mut out_sp = Vec::with_capacity(k);
    for i in 0..k {
        let eff = dilation[i] * (kernel[i] - 1) + 1;
        if sp[i] < eff {
            return kerr(format!(
                "sum pool window {kernel:?} larger than the input {xs:?}"
            ));
        }
        out_sp.push((sp[i] - eff) / stride[i] + 1);
    }
    let planes: usize = xs[..lead].iter().product();
    let (inn, on, kn): (usize, usize, usize) = (
        sp.iter().product(),
        out_sp.iter().product(),
        kernel.iter().product(),
    );
    let xst = strides(sp);
    let xv = x.as_standard_layout();
    let xv = xv.as_slice().expect("std");
    let mut out = vec![0.0; planes * on];
    let (mut oi, mut ki) = (vec![0; k], vec![0; k]);
    for pl in 0..planes {
        for o in 0..on {
            unflatten(o, &out_sp, &mut oi);
            let mut acc = 0.0;
            for kk in 0..kn {
                unflatten(kk, kernel, &mut ki);
                let off: usize = (0..k)
                    .map(|d| (oi[d] * stride[d] + ki[d] * dilation[d]) * xst[d])
                    .sum();
                acc += xv[pl * inn + off];
            }
            out[pl * on + o] = acc;
        }
    }
    let mut shape = xs[..lead].to_vec();
    shape.extend(out_sp);
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("sizes agree"))
}

/// `coreai.interpolate`, as coreai-core's interpreter computes it: output
/// index `o` of a dim samples the input at `src = (o + 0.5 - offset) /
/// scale - 0.5` (in f32). Nearest mode takes `src` rounded half to even,
/// clamped to `[0, size - 1]`. Linear mode weighs `i0 = floor(src)` by
/// `1 - t` and `i0 + 1` by `t = src - i0`, both indices clamped to the
/// input, in every dim (an unscaled dim too: a weight-0 neighbour holding
/// inf makes the result NaN, as in coreai-core), one dim at a time.
pub fn interpolate(
    x: &ArrayD<f64>,
    out_shape: &[usize],
    scale: &[f64],
    offset: &[f64],
    linear: bool,
) -> KResult<ArrayD<f64>> {
    let r = x.ndim();
    if out_shape.len() != r || scale.len() != r || offset.len() != r {
        return kerr("interpolate: output shape, scale and offset must have the input's rank");
    }
    let mut y = x.clone();
    for d in 0..r {
        let (input, output) = (x.shape()[d], out_shape[d]);
        if !linear && input == output && scale[d] == 1.0 && offset[d] == 0.0 {
            continue;
        }
        if input == 0 || scale[d] <= 0.0 {
            return kerr(format!(
                "interpolate: bad size {input} or scale {} in dim {d}",
                scale[d]
            ));
        }
        let mut shape = y.shape().to_vec();
        shape[d] = output;
        let mut next = ArrayD::<f64>::zeros(IxDyn(&shape));
        for o in 0..output {
            let src = (o as f32 + 0.5 - offset[d] as f32) / scale[d] as f32 - 0.5;
            let hi = (input - 1) as f32;
            let mut lane = next.index_axis_mut(Axis(d), o);
            if linear {
                let floor = src.floor();
                let t = f64::from(src - floor);
                let clamp = |i: f32| i.clamp(0.0, hi) as usize;
                lane.assign(&y.index_axis(Axis(d), clamp(floor)));
                lane *= 1.0 - t;
                lane.scaled_add(t, &y.index_axis(Axis(d), clamp(floor + 1.0)));
            } else {
                let i = src.round_ties_even().clamp(0.0, hi) as usize;
                lane.assign(&y.index_axis(Axis(d), i));
            }
        }
        y = next;
    }
    Ok(y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::ArrayD;

    fn arr(shape: &[usize], f: impl Fn(usize) -> f64) -> ArrayD<f64> {
        let n = shape.iter().product();
        ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(f).collect()).unwrap()
    }

    #[test]
    fn transposed_conv_is_the_adjoint_of_conv() {
        // <conv(x), y> == <x, conv_transpose(y)> with the same weight.
        let x = arr(&[1, 2, 5, 4], |i| (i % 7) as f64 - 3.0);
        let w = arr(&[4, 1, 3, 2], |i| (i % 5) as f64 - 2.0);
        let p = ConvNd {
            stride: vec![2, 1],
            padding: vec![0, 0],
            dilation: vec![1, 2],
            output_padding: vec![0, 0],
            groups: 2,
        };
        let y = conv_nd(&x, &w, &p).unwrap();
        let z = arr(y.shape(), |i| (i % 3) as f64 - 1.0);
        let lhs: f64 = (&y * &z).sum();
        // conv_transpose's weight is [Cin_of_transpose = 4, Cout/g = 1, ...].
        let xt = conv_transpose_nd(&z, &w, &p).unwrap();
        assert_eq!(xt.shape(), x.shape());
        let rhs: f64 = (&xt * &x).sum();
        assert_eq!(lhs, rhs);
    }

    #[test]
    fn sum_pool_3d_sums_windows() {
        let x = arr(&[1, 1, 2, 2, 2], |i| i as f64);
        let y = sum_pool_nd(&x, &[2, 2, 2], &[1, 1, 1], &[1, 1, 1]).unwrap();
        assert_eq!(y.as_slice().unwrap(), &[28.0]);
    }

    #[test]
    fn interpolate_half_pixel_and_nearest_ties_to_even() {
        let x = arr(&[4], |i| i as f64);
        let lin = interpolate(&x, &[8], &[2.0], &[0.0], true).unwrap();
        assert_eq!(
            lin.as_slice().unwrap(),
            &[0.0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.0]
        );
        let near = interpolate(&x, &[8], &[2.0], &[0.5], false).unwrap();
        assert_eq!(
            near.as_slice().unwrap(),
            &[0.0, 0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 3.0]
        );
    }
}
