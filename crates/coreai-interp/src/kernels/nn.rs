//! Neural-network kernels in f64: softmax, normalizations, pooling,
//! scaled dot-product attention. The caller converts operands and rounds the
//! result to the result type once.

use crate::error::{kerr, KResult};
use crate::kernels::elementwise::zip2;
use crate::kernels::reduce::to_rows;
use crate::tensor::{DType, Tensor};
use ndarray::{Array2, ArrayD, Axis, IxDyn};
use rayon::prelude::*;

/// Softmax (or log-softmax) along `axis`: `exp(x - max) / sum`, literally,
/// so a slice with +inf or NaN, or only -inf, gives NaN (as PyTorch and
/// coreai-core's interpreter do).
pub fn softmax(x: &ArrayD<f64>, axis: usize, log: bool) -> ArrayD<f64> {
    let mut out = x.clone();
    if out.ndim() == 0 {
        out.fill(if log { 0.0 } else { 1.0 });
        return out;
    }
    out.lanes_mut(Axis(axis)).into_iter().for_each(|mut lane| {
        let m = lane.iter().fold(f64::NEG_INFINITY, |m, &v| {
            if v.is_nan() || m.is_nan() {
                f64::NAN
            } else {
                m.max(v)
            }
        });
        let s: f64 = lane.iter().map(|&v| (v - m).exp()).sum();
        if log {
            let ls = s.ln();
            lane.mapv_inplace(|v| v - m - ls);
        } else {
            lane.mapv_inplace(|v| (v - m).exp() / s);
        }
    });
    out
}

/// Normalizes each row of `rows` to zero mean and unit variance (biased);
/// returns the normalized rows, the means and the reciprocal std-devs.
pub fn normalize_rows(rows: &Array2<f64>, eps: f64) -> (Array2<f64>, Vec<f64>, Vec<f64>) {
    let n = rows.ncols() as f64;
    let stats: Vec<(f64, f64)> = rows
        .axis_iter(Axis(0))
        .into_par_iter()
        .map(|r| {
            let mean = r.sum() / n;
            let var = r.iter().map(|&v| (v - mean) * (v - mean)).sum::<f64>() / n;
            (mean, 1.0 / (var + eps).sqrt())
        })
        .collect();
    let mut out = rows.clone();
    for (mut r, &(m, rs)) in out.axis_iter_mut(Axis(0)).zip(stats.iter()) {
        r.mapv_inplace(|v| (v - m) * rs);
    }
    (
        out,
        stats.iter().map(|s| s.0).collect(),
        stats.iter().map(|s| s.1).collect(),
    )
}

/// `native_layer_norm`: normalizes over the last `nd` dims; returns
/// (out, mean, rstd) with mean/rstd shaped like the input with those dims 1.
pub fn layer_norm(
    x: &ArrayD<f64>,
    nd: usize,
    weight: Option<&ArrayD<f64>>,
    bias: Option<&ArrayD<f64>>,
    eps: f64,
) -> KResult<(ArrayD<f64>, ArrayD<f64>, ArrayD<f64>)> {
    let r = x.ndim();
    if nd > r {
        return kerr("normalized_shape has more dims than the input");
    }
    let axes: Vec<usize> = (r - nd..r).collect();
    let (rows, _, keep) = to_rows(x, &axes);
    let (normed, mean, rstd) = normalize_rows(&rows, eps);
    let mut out = ArrayD::from_shape_vec(IxDyn(x.shape()), normed.into_raw_vec_and_offset().0)
        .expect("sizes agree");
    if let Some(w) = weight {
        out = zip2(&out, w, |p, q| p * q)?;
    }
    if let Some(b) = bias {
        out = zip2(&out, b, |p, q| p + q)?;
    }
    Ok((
        out,
        ArrayD::from_shape_vec(IxDyn(&keep), mean).expect("sizes agree"),
        ArrayD::from_shape_vec(IxDyn(&keep), rstd).expect("sizes agree"),
    ))
}

/// `native_group_norm` on `[N, C, *]`; returns (out, mean [N, G], rstd [N, G]).
pub fn group_norm(
    x: &ArrayD<f64>,
    groups: usize,
    weight: Option<&ArrayD<f64>>,
    bias: Option<&ArrayD<f64>>,
    eps: f64,
) -> KResult<(ArrayD<f64>, ArrayD<f64>, ArrayD<f64>)> {
    let s = x.shape().to_vec();
    if s.len() < 2 || groups == 0 || !s[1].is_multiple_of(groups) {
        return kerr("group_norm: channels must divide into groups");
    }
    let (n, c) = (s[0], s[1]);
    let per: usize = s.iter().skip(1).product::<usize>() / groups;
    let rows = Array2::from_shape_vec(
        (n * groups, per),
        x.as_standard_layout().iter().copied().collect(),
    )
    .expect("sizes agree");
    let (normed, mean, rstd) = normalize_rows(&rows, eps);
    let mut out =
        ArrayD::from_shape_vec(IxDyn(&s), normed.into_raw_vec_and_offset().0).expect("sizes agree");
    let mut cshape = vec![1; s.len()];
    cshape[1] = c;
    if let Some(w) = weight {
        out = &out
            * &w.view()
                .into_shape_with_order(IxDyn(&cshape))
                .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    }
    if let Some(b) = bias {
        out = &out
            + &b.view()
                .into_shape_with_order(IxDyn(&cshape))
                .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    }
    Ok((
        out,
        ArrayD::from_shape_vec(IxDyn(&[n, groups]), mean).expect("sizes agree"),
        ArrayD::from_shape_vec(IxDyn(&[n, groups]), rstd).expect("sizes agree"),
    ))
}

/// Inference batch norm on `[N, C, *]` with running statistics.
pub fn batch_norm_inference(
    x: &ArrayD<f64>,
    weight: Option<&ArrayD<f64>>,
    bias: Option<&ArrayD<f64>>,
    mean: &ArrayD<f64>,
    var: &ArrayD<f64>,
    eps: f64,
) -> KResult<ArrayD<f64>> {
    let s = x.shape();
    if s.len() < 2 {
        return kerr("batch_norm expects at least [N, C]");
    }
    let mut cshape = vec![1; s.len()];
    cshape[1] = s[1];
    let shape = |a: &ArrayD<f64>| -> KResult<ArrayD<f64>> {
        a.clone()
            .into_shape_with_order(IxDyn(&cshape))
            .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))
    };
    let inv = shape(&var.mapv(|v| 1.0 / (v + eps).sqrt()))?;
    let mut out = zip2(&zip2(x, &shape(mean)?, |p, q| p - q)?, &inv, |p, q| p * q)?;
    if let Some(w) = weight {
        out = zip2(&out, &shape(w)?, |p, q| p * q)?;
    }
    if let Some(b) = bias {
        out = zip2(&out, &shape(b)?, |p, q| p + q)?;
    }
    Ok(out)
}

/// Inference batch norm of an f32 `[N, C, *]` input exactly as PyTorch's
/// vectorized CPU kernel (AVX2/AVX-512 builds) computes it, in f32: per
/// channel `alpha = (1 / sqrt(var + eps)) * weight` and `beta = fma(-mean,
/// alpha, bias)`, then `out = fma(x, alpha, beta)`, in one pass over the
/// input. Fused multiply-adds round once, so the result is the same on any
/// CPU; with the `fma` feature they are also fast.
pub fn batch_norm_inference_f32(
    x: &ArrayD<f32>,
    weight: &[f32],
    bias: &[f32],
    mean: &[f32],
    var: &[f32],
    eps: f32,
) -> KResult<ArrayD<f32>> {
    let s = x.shape();
    let c = s.get(1).copied().unwrap_or(0);
    if s.len() < 2 || [weight.len(), bias.len(), mean.len(), var.len()] != [c; 4] {
        return kerr(format!(
            "batch_norm expects [N, C, ...] input and {c} values per parameter"
        ));
    }
    let terms: Vec<(f32, f32)> = (0..c)
        .map(|i| {
            let alpha = (1.0 / (var[i] + eps).sqrt()) * weight[i];
            (alpha, (-mean[i]).mul_add(alpha, bias[i]))
        })
        .collect();
    let per = (x.len() / (s[0] * c).max(1)).max(1);
    let xs = x.as_standard_layout();
    let mut out = Vec::with_capacity(x.len());
    for (i, plane) in xs
        .as_slice()
        .expect("standard layout")
        .chunks(per)
        .enumerate()
    {
        let (alpha, beta) = terms[i % c];
        extend_fma(&mut out, plane, alpha, beta);
    }
    Ok(ArrayD::from_shape_vec(IxDyn(s), out).expect("sizes agree"))
}

/// Appends `fma(v, a, b)` for every `v` of `src` to `dst`.
fn extend_fma(dst: &mut Vec<f32>, src: &[f32], a: f32, b: f32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the `fma` feature (checked above).
        return unsafe { extend_fma_x86(dst, src, a, b) };
    }
    dst.extend(src.iter().map(|&v| v.mul_add(a, b)));
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn extend_fma_x86(dst: &mut Vec<f32>, src: &[f32], a: f32, b: f32) {
    dst.extend(src.iter().map(|&v| v.mul_add(a, b)));
}

/// Pooling parameters (2-d).
#[derive(Clone, Debug)]
pub struct Pool2d {
    pub kernel: [usize; 2],
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
    pub ceil_mode: bool,
}

fn pool_out(size: usize, k: usize, s: usize, p: usize, d: usize, ceil: bool) -> usize {
    let eff = d * (k - 1) + 1;
    let num = (size + 2 * p).saturating_sub(eff);
    let mut o = if ceil { num.div_ceil(s) } else { num / s } + 1;
    // The last window must start inside the input or left padding.
    if ceil && (o - 1) * s >= size + p {
        o -= 1;
    }
    o
}

/// Max (NaN-propagating) or average pooling over the last two dims.
/// Average pooling counts padding when `count_include_pad`.
pub fn pool2d(
    x: &ArrayD<f64>,
    p: &Pool2d,
    max: bool,
    count_include_pad: bool,
) -> KResult<ArrayD<f64>> {
    Ok(pool2d_with_indices(x, p, max, count_include_pad, None)?.0)
}

/// The pooled output `[.., ho, wo]` of `shape` `[.., h, w]`: (h, w, ho, wo,
/// number of planes, output shape).
fn pool_geometry(
    s: &[usize],
    p: &Pool2d,
) -> KResult<(usize, usize, usize, usize, usize, Vec<usize>)> {
    if s.len() < 2 || p.stride.contains(&0) || p.kernel.contains(&0) || p.dilation.contains(&0) {
        return kerr("pool2d expects [.., H, W] input and positive kernel, stride and dilation");
    }
    let (h, w) = (s[s.len() - 2], s[s.len() - 1]);
    let out = |d: usize, n: usize| {
        pool_out(
            n,
            p.kernel[d],
            p.stride[d],
            p.padding[d],
            p.dilation[d],
            p.ceil_mode,
        )
    };
    let (ho, wo) = (out(0, h), out(1, w));
    let mut shape = s[..s.len() - 2].to_vec();
    shape.extend([ho, wo]);
    Ok((h, w, ho, wo, s[..s.len() - 2].iter().product(), shape))
}

/// Float element types of max pooling (which only compares, so it runs in
/// the input's own type). A tap packs into one integer whose order is the
/// scan's choice: a greater value wins, equal values (-0.0 == 0.0) keep the
/// earlier tap, any NaN beats every number and a later NaN the earlier one.
/// The window's winner is then a branch-free integer maximum.
pub trait MaxElem: Copy + Send + Sync {
    const NEG_INFINITY: Self;
    type Packed: Ord + Copy;
    /// The tap holding `self` at in-plane index `i` (below 2³²).
    fn pack(self, i: usize) -> Self::Packed;
    /// The in-plane index of a packed tap.
    fn index(p: Self::Packed) -> usize;
}

macro_rules! max_elem {
    ($t:ty, $bits:ty, $packed:ty) => {
        impl MaxElem for $t {
            const NEG_INFINITY: $t = <$t>::NEG_INFINITY;
            type Packed = $packed;
            fn pack(self, i: usize) -> $packed {
                const NAN: $packed = <$bits>::MAX as $packed;
                const LOW: $packed = u32::MAX as $packed;
                let b = self.to_bits() as $bits;
                // IEEE order as integers: negative values count down; the
                // all-ones pattern (a NaN, above +inf) stands for every NaN
                let key = if self.is_nan() {
                    NAN
                } else if b == <$bits>::MIN {
                    0 // -0.0 ties with 0.0
                } else if b < 0 {
                    (b ^ <$bits>::MAX) as $packed
                } else {
                    b as $packed
                };
                let low = if key == NAN {
                    i as $packed
                } else {
                    LOW - i as $packed
                };
                (key << 32) | low
            }
            fn index(p: $packed) -> usize {
                const NAN: $packed = <$bits>::MAX as $packed;
                const LOW: $packed = u32::MAX as $packed;
                let low = p & LOW;
                (if p >> 32 == NAN { low } else { LOW - low }) as usize
            }
        }
    };
}
max_elem!(f32, i32, i64);
max_elem!(f64, i64, i128);

/// Max pooling over the last two dims: each window's maximum (a NaN wins,
/// a later NaN replaces an earlier one, as PyTorch's CPU kernel) and its
/// flat `h * W + w` index within its plane (PyTorch's
/// `max_pool2d_with_indices`). Padding never wins.
pub fn max_pool2d<T: MaxElem>(x: &ArrayD<T>, p: &Pool2d) -> KResult<(ArrayD<T>, ArrayD<i64>)> {
    let (h, w, ho, wo, planes, shape) = pool_geometry(x.shape(), p)?;
    if h * w > u32::MAX as usize {
        return kerr(format!(
            "max pooling of planes of {h}x{w} (over 2^32 elements)"
        ));
    }
    let xs = x.as_standard_layout();
    let xv = xs.as_slice().expect("standard");
    let mut vals = vec![T::NEG_INFINITY; planes * ho * wo];
    let mut idx = vec![-1i64; planes * ho * wo];
    let n = (ho * wo).max(1);
    // the windows of every output row and column, computed once
    let rows: Vec<_> = (0..ho).map(|o| window_taps(p, 0, o, h)).collect();
    let cols: Vec<_> = (0..wo).map(|o| window_taps(p, 1, o, w)).collect();
    vals.par_chunks_mut(n)
        .zip(idx.par_chunks_mut(n))
        .enumerate()
        .for_each(|(pl, (vo, io))| {
            let plane = &xv[pl * h * w..][..h * w];
            for (oy, &(y0, ya, yb)) in rows.iter().enumerate() {
                let iy0 = |a: usize| (y0 + (a * p.dilation[0]) as isize) as usize;
                for (ox, &(x0, xa, xb)) in cols.iter().enumerate() {
                    let ix0 = |b: usize| (x0 + (b * p.dilation[1]) as isize) as usize;
                    if ya == yb || xa == xb {
                        continue; // no tap inside the input: -inf at -1
                    }
                    let first = iy0(ya) * w + ix0(xa);
                    let mut best = T::pack(plane[first], first);
                    for a in ya..yb {
                        let row = iy0(a) * w;
                        for b in xa..xb {
                            best = best.max(T::pack(plane[row + ix0(b)], row + ix0(b)));
                        }
                    }
                    let at = T::index(best);
                    vo[oy * wo + ox] = plane[at];
                    io[oy * wo + ox] = at as i64;
                }
            }
        });
    Ok((
        ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("sizes agree"),
        ArrayD::from_shape_vec(IxDyn(&shape), idx).expect("sizes agree"),
    ))
}

/// The window of output `o` along pooled dim `d` (input size `n`): its
/// origin `o·stride - pad` and the taps `[lo, hi)` that fall inside the
/// input (tap `k` reads `origin + k·dilation`).
fn window_taps(p: &Pool2d, d: usize, o: usize, n: usize) -> (isize, usize, usize) {
    let origin = (o * p.stride[d]) as isize - p.padding[d] as isize;
    let dil = p.dilation[d] as isize;
    let lo = if origin < 0 {
        (-origin + dil - 1) / dil
    } else {
        0
    } as usize;
    let room = n as isize - origin;
    let hi = if room <= 0 {
        0
    } else {
        ((room + dil - 1) / dil) as usize
    };
    (origin, lo, hi.min(p.kernel[d]).max(lo))
}

/// [`max_pool2d`] of a tensor, rounded to `dtype`: an f32 input into f32
/// stays in f32, other types go through f64.
pub fn max_pool2d_tensor(x: &Tensor, p: &Pool2d, dtype: DType) -> KResult<(Tensor, ArrayD<i64>)> {
    if let (Tensor::F32(a), DType::F32) = (x, dtype) {
        let (v, i) = max_pool2d(a, p)?;
        return Ok((Tensor::F32(v), i));
    }
    let (v, i) = max_pool2d(&x.to_f64(), p)?;
    Ok((Tensor::from_f64(v, dtype), i))
}

/// [`pool2d`], plus for max pooling the flat `h * W + w` index of each
/// maximum within its plane ([`max_pool2d`]). Average pooling divides by
/// `divisor` when given, else by the window clipped to input and padding
/// (`count_include_pad`) or by the count of input elements in it.
pub fn pool2d_with_indices(
    x: &ArrayD<f64>,
    p: &Pool2d,
    max: bool,
    count_include_pad: bool,
    divisor: Option<f64>,
) -> KResult<(ArrayD<f64>, ArrayD<i64>)> {
    if max {
        return max_pool2d(x, p);
    }
    let (h, w, ho, wo, planes, shape) = pool_geometry(x.shape(), p)?;
    let xs = x.as_standard_layout();
    let xv = xs.as_slice().expect("standard");
    let mut out = vec![0.0; planes * ho * wo];
    out.par_chunks_mut((ho * wo).max(1))
        .enumerate()
        .for_each(|(pl, o)| {
            let plane = &xv[pl * h * w..(pl + 1) * h * w];
            for oy in 0..ho {
                for ox in 0..wo {
                    let y0 = (oy * p.stride[0]) as isize - p.padding[0] as isize;
                    let x0 = (ox * p.stride[1]) as isize - p.padding[1] as isize;
                    let mut acc = 0.0;
                    let mut count = 0usize;
                    let yend = (y0 + p.kernel[0] as isize).min((h + p.padding[0]) as isize);
                    let xend = (x0 + p.kernel[1] as isize).min((w + p.padding[1]) as isize);
                    let pad_count = ((yend - y0) * (xend - x0)) as usize;
                    for a in 0..p.kernel[0] {
                        for b in 0..p.kernel[1] {
                            let iy = y0 + (a * p.dilation[0]) as isize;
                            let ix = x0 + (b * p.dilation[1]) as isize;
                            if iy < 0 || ix < 0 || iy as usize >= h || ix as usize >= w {
                                continue;
                            }
                            acc += plane[iy as usize * w + ix as usize];
                            count += 1;
                        }
                    }
                    o[oy * wo + ox] = if let Some(d) = divisor {
                        acc / d
                    } else if count_include_pad {
                        acc / pad_count as f64
                    } else {
                        acc / count as f64
                    };
                }
            }
        });
    Ok((
        ArrayD::from_shape_vec(IxDyn(&shape), out).expect("sizes agree"),
        ArrayD::from_elem(IxDyn(&shape), -1),
    ))
}

/// Adaptive average pooling to `[oh, ow]` (PyTorch's start/end rule).
pub fn adaptive_avg_pool2d(x: &ArrayD<f64>, oh: usize, ow: usize) -> KResult<ArrayD<f64>> {
    let s = x.shape().to_vec();
    if s.len() < 2 {
        return kerr("adaptive_avg_pool2d expects [.., H, W]");
    }
    let (h, w) = (s[s.len() - 2], s[s.len() - 1]);
    let planes: usize = s[..s.len() - 2].iter().product();
    let xs = x.as_standard_layout();
    let xv = xs.as_slice().expect("standard");
    let mut out = vec![0.0; planes * oh * ow];
    out.par_chunks_mut((oh * ow).max(1))
        .enumerate()
        .for_each(|(pl, o)| {
            let plane = &xv[pl * h * w..(pl + 1) * h * w];
            for i in 0..oh {
                let (y0, y1) = (i * h / oh, ((i + 1) * h).div_ceil(oh));
                for j in 0..ow {
                    let (x0, x1) = (j * w / ow, ((j + 1) * w).div_ceil(ow));
                    let mut sum = 0.0;
                    for y in y0..y1 {
                        for xx in x0..x1 {
                            sum += plane[y * w + xx];
                        }
                    }
                    o[i * ow + j] = sum / ((y1 - y0) * (x1 - x0)) as f64;
                }
            }
        });
    let mut shape = s[..s.len() - 2].to_vec();
    shape.extend([oh, ow]);
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("sizes agree"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    #[test]
    fn softmax_is_shifted() {
        let x = Array::from_shape_vec(IxDyn(&[3]), vec![1000.0, 1000.0, -f64::INFINITY]).unwrap();
        let s = softmax(&x, 0, false);
        assert_eq!(s.iter().copied().collect::<Vec<_>>(), vec![0.5, 0.5, 0.0]);
        let l = softmax(&x, 0, true);
        assert!((l[0] - (0.5f64).ln()).abs() < 1e-15);
    }

    #[test]
    fn pooling() {
        let x =
            Array::from_shape_vec(IxDyn(&[1, 4, 4]), (0..16).map(|v| v as f64).collect()).unwrap();
        let p = Pool2d {
            kernel: [2, 2],
            stride: [2, 2],
            padding: [0, 0],
            dilation: [1, 1],
            ceil_mode: false,
        };
        let m = pool2d(&x, &p, true, true).unwrap();
        assert_eq!(
            m.iter().copied().collect::<Vec<_>>(),
            vec![5., 7., 13., 15.]
        );
        let a = pool2d(&x, &p, false, true).unwrap();
        assert_eq!(
            a.iter().copied().collect::<Vec<_>>(),
            vec![2.5, 4.5, 10.5, 12.5]
        );
        let ad = adaptive_avg_pool2d(&x, 1, 1).unwrap();
        assert_eq!(ad.iter().copied().collect::<Vec<_>>(), vec![7.5]);
        let x3 = Array::from_shape_vec(IxDyn(&[1, 1, 3]), vec![1., 2., 3.]).unwrap();
        let a = adaptive_avg_pool2d(&x3, 1, 2).unwrap();
        assert_eq!(a.iter().copied().collect::<Vec<_>>(), vec![1.5, 2.5]);
    }

    #[test]
    fn layer_norm_rows() {
        let x = Array::from_shape_vec(IxDyn(&[2, 2]), vec![1.0, 3.0, -2.0, -2.0]).unwrap();
        let (o, m, r) = layer_norm(&x, 1, None, None, 0.0).unwrap();
        assert_eq!(o.iter().copied().collect::<Vec<_>>()[..2], [-1.0, 1.0]);
        assert_eq!(m.iter().copied().collect::<Vec<_>>(), vec![2.0, -2.0]);
        assert_eq!(r[[0, 0]], 1.0);
    }
}
