//! Complex numbers and FFTs.

use crate::error::{kerr, KResult};
use crate::kernels::reduce::norm_axis;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{DType, Dom, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};
use num_complex::Complex;

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten.view_as_real.default", view_as_real),
    ("aten.view_as_real_copy.default", view_as_real),
    ("aten.view_as_complex.default", view_as_complex),
    ("aten.view_as_complex_copy.default", view_as_complex),
    ("aten.complex.default", complex),
    ("aten.polar.default", polar),
    ("aten._fft_r2c.default", fft_r2c),
    ("aten._fft_c2r.default", fft_c2r),
];

fn complex_parts(t: &Tensor) -> KResult<(ArrayD<f64>, ArrayD<f64>)> {
    match t {
        Tensor::C64(a) => Ok((a.mapv(|v| v.re as f64), a.mapv(|v| v.im as f64))),
        _ => kerr(format!(
            "expected a complex tensor, got {}",
            t.dtype().name()
        )),
    }
}

fn to_c64(re: &ArrayD<f64>, im: &ArrayD<f64>) -> KResult<Tensor> {
    let r = crate::kernels::elementwise::zip2(re, im, |a, b| {
        num_complex::Complex32::new(a as f32, b as f32)
    })?;
    Ok(Tensor::C64(r))
}

/// `view_as_real(_copy)`: `[..]` complex → `[.., 2]` (re, im).
fn view_as_real(c: &Ctx) -> KResult<Vec<Value>> {
    let (re, im) = complex_parts(c.arg(0)?)?;
    let mut s = re.shape().to_vec();
    let n = re.ndim();
    let parts = [
        re.insert_axis(ndarray::Axis(n)),
        im.insert_axis(ndarray::Axis(n)),
    ];
    s.push(2);
    let both = ndarray::concatenate(ndarray::Axis(n), &[parts[0].view(), parts[1].view()])
        .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    one(Tensor::from_f64(both, c.out_dtype(0)?))
}

/// `view_as_complex(_copy)`: `[.., 2]` float → complex.
fn view_as_complex(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let s = x.shape();
    if s.last() != Some(&2) || x.dtype() != DType::F32 {
        return kerr("view_as_complex needs a float32 tensor whose last dim is 2");
    }
    let a = x.to_f64();
    let n = s.len() - 1;
    let re = a.index_axis(ndarray::Axis(n), 0).to_owned();
    let im = a.index_axis(ndarray::Axis(n), 1).to_owned();
    one(to_c64(&re, &im)?)
}

/// `complex(real, imag)`.
fn complex(c: &Ctx) -> KResult<Vec<Value>> {
    one(to_c64(&c.arg(0)?.to_f64(), &c.arg(1)?.to_f64())?)
}

/// `polar(abs, angle)`: `abs·cos(angle) + i·abs·sin(angle)`.
fn polar(c: &Ctx) -> KResult<Vec<Value>> {
    let (r, t) = (c.arg(0)?.to_f64(), c.arg(1)?.to_f64());
    let re = crate::kernels::elementwise::zip2(&r, &t, |r, t| r * t.cos())?;
    let im = crate::kernels::elementwise::zip2(&r, &t, |r, t| r * t.sin())?;
    one(to_c64(&re, &im)?)
}

/// The DFT of `a` along `axis`, producing `n_out` frequencies (sign -1
/// forward, +1 inverse), unnormalized; in f64.
fn dft_axis(
    a: &ArrayD<Complex<f64>>,
    axis: usize,
    inverse: bool,
    n_out: usize,
) -> ArrayD<Complex<f64>> {
    let n = a.shape()[axis];
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut shape = a.shape().to_vec();
    shape[axis] = n_out;
    let mut out = ArrayD::<Complex<f64>>::zeros(IxDyn(&shape));
    for k in 0..n_out {
        let mut lane = out.index_axis_mut(ndarray::Axis(axis), k);
        for j in 0..n {
            let angle = sign * 2.0 * std::f64::consts::PI * ((j * k) % n.max(1)) as f64 / n as f64;
            let w = Complex::new(angle.cos(), angle.sin());
            lane.zip_mut_with(&a.index_axis(ndarray::Axis(axis), j), |o, &x| *o += x * w);
        }
    }
    out
}

/// PyTorch's `fft_norm_mode`: 0 none, 1 by 1/√n, 2 by 1/n (n the product of
/// the transformed signal lengths).
fn fft_scale(mode: i64, n: usize) -> KResult<f64> {
    match mode {
        0 => Ok(1.0),
        1 => Ok(1.0 / (n as f64).sqrt()),
        2 => Ok(1.0 / n as f64),
        m => kerr(format!("unknown fft normalization {m}")),
    }
}

fn fft_dims(c: &Ctx, rank: usize) -> KResult<Vec<usize>> {
    let dims: Vec<usize> = c
        .i64s_attr("dim")?
        .iter()
        .map(|&d| norm_axis(d, rank))
        .collect::<KResult<_>>()?;
    if dims.is_empty() {
        return kerr("fft over no dims");
    }
    Ok(dims)
}

/// `_fft_r2c(self, dim, normalization, onesided)`: the real input's DFT over
/// `dim`; one-sided keeps the first n/2 + 1 frequencies of the last dim.
fn fft_r2c(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dims = fft_dims(c, x.ndim())?;
    let mut a = x.to_f64().mapv(|v| Complex::new(v, 0.0));
    let mut n = 1;
    for &d in &dims {
        n *= a.shape()[d];
        a = dft_axis(&a, d, false, a.shape()[d]);
    }
    if c.bool_or("onesided", true)? {
        let last = *dims.last().expect("non-empty");
        let keep = a.shape()[last] / 2 + 1;
        a = a
            .slice_axis(ndarray::Axis(last), ndarray::Slice::from(0..keep))
            .to_owned();
    }
    let s = fft_scale(c.i64_attr("normalization")?, n)?;
    one(Tensor::from_dom(Dom::C(a.mapv(|v| v * s)), c.out_dtype(0)?))
}

/// `_fft_c2r(self, dim, normalization, last_dim_size)`: the inverse DFT
/// over `dim` of a one-sided spectrum (the last dim completed by Hermitian
/// symmetry to `last_dim_size`), real part.
fn fft_c2r(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dims = fft_dims(c, x.ndim())?;
    let Dom::C(mut a) = x.dom() else {
        return kerr("fft_c2r needs a complex input");
    };
    let last = *dims.last().expect("non-empty");
    let n_last = c.i64_attr("last_dim_size")?;
    if n_last <= 0 {
        return kerr(format!("last_dim_size {n_last} must be positive"));
    }
    let n_last = n_last as usize;
    let mut n = n_last;
    for &d in &dims[..dims.len() - 1] {
        n *= a.shape()[d];
        a = dft_axis(&a, d, true, a.shape()[d]);
    }
    let m = a.shape()[last];
    let full: Vec<ArrayD<Complex<f64>>> = (0..n_last)
        .map(|k| {
            if k < m {
                a.index_axis(ndarray::Axis(last), k).to_owned()
            } else if n_last - k < m {
                a.index_axis(ndarray::Axis(last), n_last - k)
                    .mapv(|v| v.conj())
            } else {
                ArrayD::zeros(a.index_axis(ndarray::Axis(last), 0).raw_dim())
            }
        })
        .collect();
    let views: Vec<_> = full
        .iter()
        .map(|v| v.view().insert_axis(ndarray::Axis(last)))
        .collect();
    let spec = ndarray::concatenate(ndarray::Axis(last), &views)
        .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    let y = dft_axis(&spec, last, true, n_last);
    let s = fft_scale(c.i64_attr("normalization")?, n)?;
    one(Tensor::from_f64(y.mapv(|v| v.re * s), c.out_dtype(0)?))
}
