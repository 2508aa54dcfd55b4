//! Matrix products and convolution on `matrixmultiply`'s GEMM, batches in
//! parallel with rayon. f16/bf16 compute in f32 and round once at the end (as
//! PyTorch's CPU kernels accumulate in f32); f64 in f64; integers exactly in
//! i128, wrapped by the caller.

use crate::error::{kerr, KResult};
use crate::kernels::elementwise::broadcast_shapes;
use crate::tensor::{DType, Tensor};
use ndarray::{Array3, ArrayD, IxDyn};
use rayon::prelude::*;

/// Element types with a GEMM.
pub trait Gemm: Copy + Send + Sync + Default + 'static {
    /// `c = a · b` with a `m×k`, b `k×n`, all row-major contiguous.
    fn gemm(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]);
}

impl Gemm for f32 {
    fn gemm(m: usize, k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
        assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
        // SAFETY: the slices hold m·k, k·n and m·n elements with the row-major
        // strides passed below.
        unsafe {
            matrixmultiply::sgemm(
                m,
                k,
                n,
                1.0,
                a.as_ptr(),
                k as isize,
                1,
                b.as_ptr(),
                n as isize,
                1,
                0.0,
                c.as_mut_ptr(),
                n as isize,
                1,
            )
        }
    }
}

impl Gemm for f64 {
    fn gemm(m: usize, k: usize, n: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
        assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
        // SAFETY: as for f32.
        unsafe {
            matrixmultiply::dgemm(
                m,
                k,
                n,
                1.0,
                a.as_ptr(),
                k as isize,
                1,
                b.as_ptr(),
                n as isize,
                1,
                0.0,
                c.as_mut_ptr(),
                n as isize,
                1,
            )
        }
    }
}

impl Gemm for i128 {
    fn gemm(m: usize, k: usize, n: usize, a: &[i128], b: &[i128], c: &mut [i128]) {
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = 0;
            }
            for p in 0..k {
                let x = a[i * k + p];
                for j in 0..n {
                    c[i * n + j] = c[i * n + j].wrapping_add(x.wrapping_mul(b[p * n + j]));
                }
            }
        }
    }
}

/// Batched product of `[B, M, K]` and `[B, K, N]`.
pub fn bmm<T: Gemm>(a: &Array3<T>, b: &Array3<T>) -> Array3<T> {
    let (nb, m, k) = a.dim();
    let n = b.dim().2;
    let a = a.as_standard_layout();
    let b = b.as_standard_layout();
    let (sa, sb) = (
        a.as_slice().expect("standard"),
        b.as_slice().expect("standard"),
    );
    let mut out = vec![T::default(); nb * m * n];
    let run = |(i, c): (usize, &mut [T])| {
        T::gemm(
            m,
            k,
            n,
            &sa[i * m * k..(i + 1) * m * k],
            &sb[i * k * n..(i + 1) * k * n],
            c,
        )
    };
    if nb > 1 && m * n > 0 {
        out.par_chunks_mut(m * n).enumerate().for_each(run);
    } else if m * n > 0 {
        out.chunks_mut(m * n).enumerate().for_each(run);
    }
    Array3::from_shape_vec((nb, m, n), out).expect("sizes agree")
}

/// The compute type of a product whose result is `dtype`.
pub(crate) fn compute_kind(dtype: DType) -> KResult<DType> {
    Ok(match dtype {
        DType::F16 | DType::BF16 | DType::F32 => DType::F32,
        DType::F64 => DType::F64,
        d if d.is_int() || d == DType::Bool => DType::I64,
        d => return kerr(format!("matmul of {} tensors is not supported", d.name())),
    })
}

fn to_3d<T: Clone>(a: &ArrayD<T>, batch: &[usize]) -> KResult<Array3<T>> {
    let r = a.ndim();
    let (m, k) = (a.shape()[r - 2], a.shape()[r - 1]);
    let mut full = batch.to_vec();
    full.extend([m, k]);
    let v = match a.broadcast(IxDyn(&full)) {
        Some(v) => v,
        None => return kerr("batch dimensions do not broadcast"),
    };
    let nb: usize = batch.iter().product();
    let data: Vec<T> = v.iter().cloned().collect();
    Ok(Array3::from_shape_vec((nb, m, k), data).expect("sizes agree"))
}

fn matmul_in<T: Gemm>(a: &ArrayD<T>, b: &ArrayD<T>) -> KResult<ArrayD<T>> {
    let (ra, rb) = (a.ndim(), b.ndim());
    if ra == 0 || rb == 0 {
        return kerr("matmul operands must have at least one dimension");
    }
    let a2 = if ra == 1 {
        a.clone()
            .into_shape_with_order(IxDyn(&[1, a.len()]))
            .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?
    } else {
        a.clone()
    };
    let b2 = if rb == 1 {
        b.clone()
            .into_shape_with_order(IxDyn(&[b.len(), 1]))
            .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?
    } else {
        b.clone()
    };
    let (m, k) = (a2.shape()[a2.ndim() - 2], a2.shape()[a2.ndim() - 1]);
    let (k2, n) = (b2.shape()[b2.ndim() - 2], b2.shape()[b2.ndim() - 1]);
    if k != k2 {
        return kerr(format!(
            "matmul shapes {:?} and {:?} do not agree",
            a.shape(),
            b.shape()
        ));
    }
    let batch = broadcast_shapes(&a2.shape()[..a2.ndim() - 2], &b2.shape()[..b2.ndim() - 2])?;
    let c = bmm(&to_3d(&a2, &batch)?, &to_3d(&b2, &batch)?);
    let mut shape = batch.clone();
    if ra > 1 {
        shape.push(m);
    }
    if rb > 1 {
        shape.push(n);
    }
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), c.into_raw_vec_and_offset().0).expect("sizes agree"))
}

/// `t` as f32 elements: borrowed when it already is f32 (no copy of the
/// weights on every call), converted otherwise.
pub(crate) fn as_f32(t: &Tensor) -> std::borrow::Cow<'_, ArrayD<f32>> {
    match t {
        Tensor::F32(a) => std::borrow::Cow::Borrowed(a),
        other => match other.cast(DType::F32) {
            Tensor::F32(a) => std::borrow::Cow::Owned(a),
            _ => unreachable!("cast to f32"),
        },
    }
}

/// An f32 result as a tensor of `dtype` (no copy when `dtype` is f32).
pub(crate) fn from_f32(r: ArrayD<f32>, dtype: DType) -> Tensor {
    if dtype == DType::F32 {
        Tensor::F32(r)
    } else {
        Tensor::F32(r).cast(dtype)
    }
}

/// `torch.matmul` with the result rounded to `dtype`.
pub fn matmul(a: &Tensor, b: &Tensor, dtype: DType) -> KResult<Tensor> {
    match compute_kind(dtype)? {
        DType::F32 => Ok(from_f32(matmul_in(&as_f32(a), &as_f32(b))?, dtype)),
        DType::F64 => Ok(Tensor::F64(matmul_in(&a.to_f64(), &b.to_f64())?).cast(dtype)),
        _ => Ok(Tensor::from_i128(
            matmul_in(&a.to_i128(), &b.to_i128())?,
            dtype,
        )),
    }
}

/// Parameters of a 2-d convolution.
#[derive(Clone, Debug)]
pub struct Conv2d {
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
    pub groups: usize,
}

fn conv2d_in<T: Gemm + std::ops::Add<Output = T>>(
    x: &ArrayD<T>,
    w: &ArrayD<T>,
    p: &Conv2d,
) -> KResult<ArrayD<T>> {
    let (xs, ws) = (x.shape(), w.shape());
    if xs.len() != 4 || ws.len() != 4 {
        return kerr("conv2d expects [N, C, H, W] input and [O, C/groups, kH, kW] weight");
    }
    let (nb, c, h, wd) = (xs[0], xs[1], xs[2], xs[3]);
    let (o, cg, kh, kw) = (ws[0], ws[1], ws[2], ws[3]);
    let g = p.groups.max(1);
    if c != cg * g || o % g != 0 {
        return kerr(format!(
            "conv2d: input channels {c} and weight {ws:?} with groups {g} disagree"
        ));
    }
    let eff_h = p.dilation[0] * (kh.max(1) - 1) + 1;
    let eff_w = p.dilation[1] * (kw.max(1) - 1) + 1;
    if h + 2 * p.padding[0] < eff_h || wd + 2 * p.padding[1] < eff_w {
        return kerr("conv2d: kernel larger than the padded input");
    }
    let ho = (h + 2 * p.padding[0] - eff_h) / p.stride[0] + 1;
    let wo = (wd + 2 * p.padding[1] - eff_w) / p.stride[1] + 1;
    let x = x.as_standard_layout();
    let w = w.as_standard_layout();
    let (xs_, ws_) = (
        x.as_slice().expect("standard"),
        w.as_slice().expect("standard"),
    );
    let og = o / g;
    let kk = cg * kh * kw;
    let mut out = vec![T::default(); nb * o * ho * wo];
    out.par_chunks_mut(o * ho * wo)
        .enumerate()
        .for_each(|(n, on)| {
            let mut cols = vec![T::default(); kk * ho * wo];
            for gi in 0..g {
                for ci in 0..cg {
                    let cin = gi * cg + ci;
                    let plane = &xs_[(n * c + cin) * h * wd..(n * c + cin + 1) * h * wd];
                    for a in 0..kh {
                        for b in 0..kw {
                            let row = (ci * kh + a) * kw + b;
                            let dst = &mut cols[row * ho * wo..(row + 1) * ho * wo];
                            for oy in 0..ho {
                                let iy = (oy * p.stride[0] + a * p.dilation[0]) as isize
                                    - p.padding[0] as isize;
                                for ox in 0..wo {
                                    let ix = (ox * p.stride[1] + b * p.dilation[1]) as isize
                                        - p.padding[1] as isize;
                                    dst[oy * wo + ox] = if iy >= 0
                                        && ix >= 0
                                        && (iy as usize) < h
                                        && (ix as usize) < wd
                                    {
                                        plane[iy as usize * wd + ix as usize]
                                    } else {
                                        T::default()
                                    };
                                }
                            }
                        }
                    }
                }
                let wg = &ws_[gi * og * kk..(gi + 1) * og * kk];
                T::gemm(
                    og,
                    kk,
                    ho * wo,
                    wg,
                    &cols,
                    &mut on[gi * og * ho * wo..(gi + 1) * og * ho * wo],
                );
            }
        });
    Ok(ArrayD::from_shape_vec(IxDyn(&[nb, o, ho, wo]), out).expect("sizes agree"))
}

/// 2-d convolution (cross-correlation, as PyTorch) rounded to `dtype`; the
/// bias, if any, is added by the caller.
pub fn conv2d(x: &Tensor, w: &Tensor, p: &Conv2d, dtype: DType) -> KResult<Tensor> {
    match compute_kind(dtype)? {
        DType::F32 => Ok(from_f32(conv2d_in(&as_f32(x), &as_f32(w), p)?, dtype)),
        DType::F64 => Ok(Tensor::F64(conv2d_in(&x.to_f64(), &w.to_f64(), p)?).cast(dtype)),
        _ => kerr("integer convolution is not supported"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    fn f32t(shape: &[usize], v: Vec<f32>) -> Tensor {
        Tensor::F32(Array::from_shape_vec(IxDyn(shape), v).unwrap())
    }

    #[test]
    fn matmul_shapes_follow_torch() {
        let a = f32t(&[2, 3], vec![1., 2., 3., 4., 5., 6.]);
        let b = f32t(&[3], vec![1., 0., -1.]);
        let r = matmul(&a, &b, DType::F32).unwrap();
        assert_eq!(r.shape(), vec![2]);
        assert_eq!(
            r.to_f64().iter().copied().collect::<Vec<_>>(),
            vec![-2., -2.]
        );
        let batched = f32t(&[4, 1, 3], vec![1.0; 12]);
        let r = matmul(&batched, &f32t(&[3, 2], vec![1.0; 6]), DType::F32).unwrap();
        assert_eq!(r.shape(), vec![4, 1, 2]);
        assert!(r.to_f64().iter().all(|&v| v == 3.0));
        assert!(matmul(&a, &a, DType::F32).is_err());
    }

    #[test]
    fn integer_matmul_wraps_at_result_width() {
        let a = Tensor::I32(Array::from_shape_vec(IxDyn(&[1, 2]), vec![i32::MAX, 1]).unwrap());
        let b = Tensor::I32(Array::from_shape_vec(IxDyn(&[2, 1]), vec![2, 2]).unwrap());
        let r = matmul(&a, &b, DType::I32).unwrap();
        assert_eq!(
            r.to_i64_vec(),
            vec![(i32::MAX as i64 * 2 + 2) as i32 as i64]
        );
    }

    #[test]
    fn conv2d_against_direct_sum() {
        // 1x2x3x3 input, 2 groups, 3x3 kernel, padding 1.
        let x = f32t(&[1, 2, 3, 3], (0..18).map(|v| v as f32 - 9.0).collect());
        let w = f32t(
            &[2, 1, 3, 3],
            (0..18).map(|v| (v % 5) as f32 - 2.0).collect(),
        );
        let p = Conv2d {
            stride: [1, 1],
            padding: [1, 1],
            dilation: [1, 1],
            groups: 2,
        };
        let r = conv2d(&x, &w, &p, DType::F32).unwrap().to_f64();
        let (xv, wv) = (x.to_f64(), w.to_f64());
        for o in 0..2 {
            for i in 0..3i64 {
                for j in 0..3i64 {
                    let mut s = 0.0;
                    for a in 0..3i64 {
                        for b in 0..3i64 {
                            let (y, z) = (i + a - 1, j + b - 1);
                            if (0..3).contains(&y) && (0..3).contains(&z) {
                                s += xv[[0, o, y as usize, z as usize]]
                                    * wv[[o, 0, a as usize, b as usize]];
                            }
                        }
                    }
                    assert_eq!(r[[0, o, i as usize, j as usize]], s);
                }
            }
        }
    }
}
