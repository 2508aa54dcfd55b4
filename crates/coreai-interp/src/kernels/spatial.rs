//! Spatial kernels: the 2-d convolution on GEMM (im2col + `matrixmultiply`,
//! f32 for f32/f16/bf16, f64 for f64), and in f64 with direct loops the rarer
//! ones: convolution and transposed convolution of any spatial rank
//! (coreai.conv3d, conv_transpose2d/3d), sum pooling (sum_pool_3d) and grid
//! interpolation (coreai.interpolate).

use crate::error::{kerr, KResult};
use crate::kernels::elementwise::zip2;
use crate::kernels::linalg::{as_f32, compute_kind, from_f32, Gemm};
use crate::tensor::{DType, Tensor};
use ndarray::{ArrayD, Axis, IxDyn};
use rayon::prelude::*;
use std::cell::RefCell;

/// Parameters of a 2-d convolution.
#[derive(Clone, Debug)]
pub struct Conv2d {
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
    pub groups: usize,
}

/// GEMM element types of the 2-d convolution, with a per-thread im2col
/// buffer kept between calls (a fresh multi-megabyte buffer per call costs
/// more in page faults than the copy into it).
pub trait ConvElem: Gemm + std::ops::Add<Output = Self> {
    fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [Self]) -> R) -> R;
}

macro_rules! conv_elem {
    ($t:ty, $key:ident) => {
        thread_local!(static $key: RefCell<Vec<$t>> = const { RefCell::new(Vec::new()) });
        impl ConvElem for $t {
            fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [$t]) -> R) -> R {
                $key.with(|cell| match cell.try_borrow_mut() {
                    Ok(mut buf) => {
                        if buf.len() < len {
                            buf.resize(len, 0.0);
                        }
                        f(&mut buf[..len])
                    }
                    // re-entered (a rayon worker running a second convolution)
                    Err(_) => f(&mut vec![0.0; len]),
                })
            }
        }
    };
}
conv_elem!(f32, SCRATCH_F32);
conv_elem!(f64, SCRATCH_F64);

/// `c [m×n] = a [m×k] · b [k×n]`, all row-major. When `n > m` it runs as
/// `cᵀ = bᵀ · aᵀ` (strides only, no copy): `matrixmultiply` packs the right
/// operand on one thread and splits the rows of the left one across
/// threads, so the larger dim goes left. Both orders sum each element's
/// products in the same order: the results are the same bits.
fn conv_gemm<T: ConvElem>(m: usize, k: usize, n: usize, a: &[T], b: &[T], c: &mut [T]) {
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
    let (ki, ni) = (k as isize, n as isize);
    // SAFETY: with these strides the GEMM reads a[..m·k], b[..k·n] and
    // writes c[..m·n], all inside the slices (checked above).
    unsafe {
        if n > m {
            T::gemm_strided(
                n,
                k,
                m,
                T::ONE,
                (b.as_ptr(), 1, ni),
                (a.as_ptr(), 1, ki),
                (c.as_mut_ptr(), 1, ni),
            )
        } else {
            T::gemm_strided(
                m,
                k,
                n,
                T::ONE,
                (a.as_ptr(), ki, 1),
                (b.as_ptr(), ni, 1),
                (c.as_mut_ptr(), ni, 1),
            )
        }
    }
}

/// Geometry of one 2-d convolution: input `[C, h, w]` planes, kernel
/// `kh × kw`, output `ho × wo`.
struct Geom {
    h: usize,
    w: usize,
    kh: usize,
    kw: usize,
    ho: usize,
    wo: usize,
    p: Conv2d,
}

impl Geom {
    /// The output columns `[lo, hi)` whose input column `ox·s + b·d - pad`
    /// lies inside the input (the others read padding).
    fn valid_cols(&self, b: usize) -> (usize, usize) {
        let (s, off) = (self.p.stride[1], b * self.p.dilation[1]);
        let pad = self.p.padding[1];
        let lo = pad.saturating_sub(off).div_ceil(s).min(self.wo);
        let hi = if self.w + pad > off {
            ((self.w + pad - off - 1) / s + 1).min(self.wo)
        } else {
            0
        };
        (lo, hi.max(lo))
    }

    /// Fills the `kh·kw` im2col rows of one input plane: row `(a, b)` holds,
    /// for every output position, the input element its kernel tap `(a, b)`
    /// reads (0 in the padding).
    fn im2col_plane<T: Copy + Default>(&self, plane: &[T], rows: &mut [T]) {
        let (howo, p) = (self.ho * self.wo, &self.p);
        for a in 0..self.kh {
            for b in 0..self.kw {
                let row = &mut rows[(a * self.kw + b) * howo..][..howo];
                let (lo, hi) = self.valid_cols(b);
                for oy in 0..self.ho {
                    let dst = &mut row[oy * self.wo..][..self.wo];
                    let iy =
                        (oy * p.stride[0] + a * p.dilation[0]) as isize - p.padding[0] as isize;
                    if iy < 0 || iy as usize >= self.h {
                        dst.fill(T::default());
                        continue;
                    }
                    dst[..lo].fill(T::default());
                    dst[hi..].fill(T::default());
                    if lo == hi {
                        continue;
                    }
                    let src = &plane[iy as usize * self.w..][..self.w];
                    let x0 = lo * p.stride[1] + b * p.dilation[1] - p.padding[1];
                    if p.stride[1] == 1 {
                        dst[lo..hi].copy_from_slice(&src[x0..x0 + hi - lo]);
                    } else {
                        for (i, d) in dst[lo..hi].iter_mut().enumerate() {
                            *d = src[x0 + i * p.stride[1]];
                        }
                    }
                }
            }
        }
    }

    /// True when the input planes already are the GEMM's right operand.
    fn is_pointwise(&self) -> bool {
        self.kh == 1 && self.kw == 1 && self.p.stride == [1, 1] && self.p.padding == [0, 0]
    }
}

/// Im2col work below this many elements stays on the calling thread.
const PAR_IM2COL: usize = 1 << 16;

fn conv2d_in<T: ConvElem>(x: &ArrayD<T>, w: &ArrayD<T>, p: &Conv2d) -> KResult<ArrayD<T>> {
    let (xs, ws) = (x.shape(), w.shape());
    if xs.len() != 4 || ws.len() != 4 {
        return kerr("conv2d expects [N, C, H, W] input and [O, C/groups, kH, kW] weight");
    }
    let (nb, c, h, wd) = (xs[0], xs[1], xs[2], xs[3]);
    let (o, cg, kh, kw) = (ws[0], ws[1], ws[2], ws[3]);
    let g = p.groups.max(1);
    if c != cg * g || o % g != 0 || p.stride.contains(&0) || p.dilation.contains(&0) {
        return kerr(format!(
            "conv2d: input channels {c}, weight {ws:?}, groups {g}, stride {:?}, dilation {:?} disagree",
            p.stride, p.dilation
        ));
    }
    let eff_h = p.dilation[0] * (kh.max(1) - 1) + 1;
    let eff_w = p.dilation[1] * (kw.max(1) - 1) + 1;
    if h + 2 * p.padding[0] < eff_h || wd + 2 * p.padding[1] < eff_w {
        return kerr("conv2d: kernel larger than the padded input");
    }
    let geom = Geom {
        h,
        w: wd,
        kh,
        kw,
        ho: (h + 2 * p.padding[0] - eff_h) / p.stride[0] + 1,
        wo: (wd + 2 * p.padding[1] - eff_w) / p.stride[1] + 1,
        p: p.clone(),
    };
    let (x, w) = (x.as_standard_layout(), w.as_standard_layout());
    let (xv, wv) = (
        x.as_slice().expect("standard"),
        w.as_slice().expect("standard"),
    );
    let (og, kk, howo, hw) = (o / g, cg * kh * kw, geom.ho * geom.wo, h * wd);
    let mut out = vec![T::default(); nb * o * howo];
    if howo > 0 && kk > 0 && og > 0 {
        for n in 0..nb {
            for gi in 0..g {
                let planes = &xv[(n * c + gi * cg) * hw..][..cg * hw];
                let a = &wv[gi * og * kk..][..og * kk];
                let dst = &mut out[(n * o + gi * og) * howo..][..og * howo];
                if geom.is_pointwise() {
                    conv_gemm(og, kk, howo, a, planes, dst);
                    continue;
                }
                T::with_scratch(kk * howo, |cols| {
                    let fill = |(ci, rows): (usize, &mut [T])| {
                        geom.im2col_plane(&planes[ci * hw..][..hw], rows)
                    };
                    let chunk = kh * kw * howo;
                    if kk * howo >= PAR_IM2COL {
                        cols.par_chunks_mut(chunk).enumerate().for_each(fill);
                    } else {
                        cols.chunks_mut(chunk).enumerate().for_each(fill);
                    }
                    conv_gemm(og, kk, howo, a, cols, dst);
                });
            }
        }
    }
    Ok(ArrayD::from_shape_vec(IxDyn(&[nb, o, geom.ho, geom.wo]), out).expect("sizes agree"))
}

/// `y` plus `bias[c]` on every element of channel `c` of `[N, C, ...]`.
fn add_channel_bias<T: Copy + Send + Sync + std::ops::Add<Output = T>>(
    y: ArrayD<T>,
    bias: &[T],
) -> KResult<ArrayD<T>> {
    let mut shape = vec![1; y.ndim()];
    shape[1] = bias.len();
    let b = ArrayD::from_shape_vec(IxDyn(&shape), bias.to_vec()).expect("sizes agree");
    zip2(&y, &b, |p, q| p + q)
}

/// 2-d convolution (cross-correlation, as PyTorch) with zero `padding`,
/// rounded to `dtype`, then plus `bias` (one value per output channel) in
/// `dtype`: the f32 result adds it in f32; f16/bf16/f64 round the product,
/// then add the bias rounded to `dtype` and round again, as an `add` op of
/// the two would.
pub fn conv2d(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    p: &Conv2d,
    dtype: DType,
) -> KResult<Tensor> {
    if let Some(b) = bias {
        if b.ndim() != 1 || w.ndim() != 4 || b.len() != w.shape()[0] {
            return kerr(format!(
                "conv2d bias {:?} must hold one value per output channel of weight {:?}",
                b.shape(),
                w.shape()
            ));
        }
    }
    match (compute_kind(dtype)?, dtype) {
        (DType::F32, DType::F32) => {
            let y = conv2d_in(&as_f32(x), &as_f32(w), p)?;
            Ok(Tensor::F32(match bias {
                Some(b) => add_channel_bias(y, as_f32(b).as_slice().expect("1-d"))?,
                None => y,
            }))
        }
        (kind, _) => {
            let y = match kind {
                DType::F32 => from_f32(conv2d_in(&as_f32(x), &as_f32(w), p)?, dtype),
                DType::F64 => Tensor::F64(conv2d_in(&x.to_f64(), &w.to_f64(), p)?).cast(dtype),
                _ => return kerr("integer convolution is not supported"),
            };
            let Some(b) = bias else { return Ok(y) };
            let b = b.cast(dtype).to_f64();
            let y = add_channel_bias(y.to_f64(), b.as_slice().expect("1-d"))?;
            Ok(Tensor::from_f64(y, dtype))
        }
    }
}

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

    /// Zero-pads the two trailing dims of `[N, C, H, W]` by `p`.
    fn pad2(x: &ArrayD<f64>, p: [usize; 2]) -> ArrayD<f64> {
        let s = x.shape();
        arr(&[s[0], s[1], s[2] + 2 * p[0], s[3] + 2 * p[1]], |i| {
            let (wp, hp) = (s[3] + 2 * p[1], s[2] + 2 * p[0]);
            let (col, row, plane) = (i % wp, (i / wp) % hp, i / (wp * hp));
            if row < p[0] || col < p[1] || row - p[0] >= s[2] || col - p[1] >= s[3] {
                0.0
            } else {
                x.as_slice().unwrap()[(plane * s[2] + row - p[0]) * s[3] + col - p[1]]
            }
        })
    }

    #[test]
    fn gemm_conv2d_matches_direct_loops() {
        // small integers: every sum is exact in f32, so the two must agree
        // bit for bit; padding wider than a dilated tap, odd strides,
        // groups, 1x1 (no im2col) and a 1-wide output.
        let cases: [([usize; 4], [usize; 4], Conv2d); 5] = [
            ([2, 4, 7, 6], [6, 2, 3, 3], conv(1, 1, 1, 2)),
            ([1, 3, 9, 8], [4, 3, 3, 2], conv(2, 2, 1, 1)),
            ([1, 2, 8, 9], [2, 2, 3, 3], conv(3, 3, 2, 1)),
            ([2, 4, 5, 5], [3, 4, 1, 1], conv(1, 0, 1, 1)),
            ([1, 2, 4, 3], [2, 2, 3, 3], conv(2, 0, 1, 1)),
        ];
        for (xs, ws, p) in cases {
            let x = arr(&xs, |i| (i % 7) as f64 - 3.0);
            let w = arr(&ws, |i| (i % 5) as f64 - 2.0);
            let b = arr(&[ws[0]], |i| i as f64 - 1.0);
            let nd = ConvNd {
                stride: p.stride.to_vec(),
                padding: vec![0, 0],
                dilation: p.dilation.to_vec(),
                output_padding: vec![0, 0],
                groups: p.groups,
            };
            let mut want = conv_nd(&pad2(&x, p.padding), &w, &nd).unwrap();
            for (i, v) in want.iter_mut().enumerate() {
                let per: usize = want_plane(&xs, &ws, &p);
                *v += b.as_slice().unwrap()[(i / per) % ws[0]];
            }
            let (xf, wf, bf) = (
                Tensor::F64(x).cast(DType::F32),
                Tensor::F64(w).cast(DType::F32),
                Tensor::F64(b).cast(DType::F32),
            );
            let got = conv2d(&xf, &wf, Some(&bf), &p, DType::F32).unwrap();
            assert_eq!(got.to_f64(), want, "{xs:?} {ws:?} {p:?}");
        }
    }

    fn conv(stride: usize, padding: usize, dilation: usize, groups: usize) -> Conv2d {
        Conv2d {
            stride: [stride, stride],
            padding: [padding, padding],
            dilation: [dilation, dilation],
            groups,
        }
    }

    /// Output elements per channel plane.
    fn want_plane(xs: &[usize; 4], ws: &[usize; 4], p: &Conv2d) -> usize {
        (0..2)
            .map(|d| {
                (xs[d + 2] + 2 * p.padding[d] - p.dilation[d] * (ws[d + 2] - 1) - 1) / p.stride[d]
                    + 1
            })
            .product()
    }

    #[test]
    fn conv2d_declines_bad_bias_and_groups() {
        let x = Tensor::F32(ArrayD::zeros(IxDyn(&[1, 4, 3, 3])));
        let w = Tensor::F32(ArrayD::zeros(IxDyn(&[2, 4, 1, 1])));
        let b = Tensor::F32(ArrayD::zeros(IxDyn(&[3])));
        assert!(conv2d(&x, &w, Some(&b), &conv(1, 0, 1, 1), DType::F32).is_err());
        assert!(conv2d(&x, &w, None, &conv(1, 0, 1, 3), DType::F32).is_err());
        assert!(conv2d(&x, &w, None, &conv(0, 0, 1, 1), DType::F32).is_err());
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
