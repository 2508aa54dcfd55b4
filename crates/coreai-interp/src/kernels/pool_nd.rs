//! N-d pooling over the trailing `k` dims of `[.., S1..Sk]` in f64: max
//! pooling with PyTorch's flat in-plane indices (max_pool3d_with_indices,
//! coreai.max_pool_3d) and adaptive average pooling (_adaptive_avg_pool3d).

use crate::error::{kerr, KResult};
use ndarray::{ArrayD, IxDyn};

/// Max-pooling geometry, one entry per pooled dim.
pub struct PoolNd {
    pub kernel: Vec<usize>,
    pub stride: Vec<usize>,
    pub padding: Vec<usize>,
    pub dilation: Vec<usize>,
    pub ceil_mode: bool,
}

/// The output size of one dim (PyTorch's rule: in ceil mode the last
/// window must start inside the input or its left padding).
pub fn out_size(n: usize, k: usize, s: usize, p: usize, d: usize, ceil: bool) -> usize {
    let eff = d * (k - 1) + 1;
    let num = (n + 2 * p).saturating_sub(eff);
    let mut o = if ceil { num.div_ceil(s) } else { num / s } + 1;
    if ceil && (o - 1) * s >= n + p {
        o -= 1;
    }
    o
}

/// The multi-index of `flat` in `shape` (row-major).
fn unflatten(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut out = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        out[i] = flat % shape[i].max(1);
        flat /= shape[i].max(1);
    }
    out
}

/// Max pooling: the maximum of each window (a NaN wins, a later NaN
/// replaces an earlier one, as PyTorch's CPU kernel) and its flat index in
/// its plane. Padding never wins.
pub fn max_pool_nd(x: &ArrayD<f64>, p: &PoolNd) -> KResult<(ArrayD<f64>, ArrayD<i64>)> {
    let k = p.kernel.len();
    let s = x.shape().to_vec();
    if s.len() < k
        || [&p.stride, &p.padding, &p.dilation]
            .iter()
            .any(|v| v.len() != k)
        || p.kernel.contains(&0)
        || p.stride.contains(&0)
        || p.dilation.contains(&0)
    {
        return kerr(format!(
            "max pooling of {s:?} needs {k} positive kernel, stride and dilation values"
        ));
    }
    let sp = &s[s.len() - k..];
    for d in 0..k {
        if 2 * p.padding[d] > p.kernel[d] {
            return kerr(format!(
                "padding {:?} must be at most half the kernel {:?}",
                p.padding, p.kernel
            ));
        }
    }
    let os: Vec<usize> = (0..k)
        .map(|d| {
            out_size(
                sp[d],
                p.kernel[d],
                p.stride[d],
                p.padding[d],
                p.dilation[d],
                p.ceil_mode,
            )
        })
        .collect();
    let plane: usize = sp.iter().product();
    let oplane: usize = os.iter().product();
    let planes: usize = s[..s.len() - k].iter().product();
    let xs = x.as_standard_layout();
    let xv = xs.as_slice().expect("standard layout");
    let kcount: usize = p.kernel.iter().product();
    let (mut vals, mut idx) = (
        Vec::with_capacity(planes * oplane),
        Vec::with_capacity(planes * oplane),
    );
    for pl in 0..planes {
        let base = &xv[pl * plane..(pl + 1) * plane];
        for o in 0..oplane {
            let oi = unflatten(o, &os);
            let (mut best, mut at) = (f64::NEG_INFINITY, -1i64);
            'window: for w in 0..kcount {
                let wi = unflatten(w, &p.kernel);
                let mut flat = 0usize;
                for d in 0..k {
                    let i = (oi[d] * p.stride[d] + wi[d] * p.dilation[d]) as isize
                        - p.padding[d] as isize;
                    if i < 0 || i as usize >= sp[d] {
                        continue 'window;
                    }
                    flat = flat * sp[d] + i as usize;
                }
                let v = base[flat];
                if v.is_nan() || v > best || at < 0 {
                    best = v;
                    at = flat as i64;
                }
            }
            vals.push(best);
            idx.push(at);
        }
    }
    let mut shape = s[..s.len() - k].to_vec();
    shape.extend(&os);
    Ok((
        ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("sizes agree"),
        ArrayD::from_shape_vec(IxDyn(&shape), idx).expect("sizes agree"),
    ))
}

/// Adaptive average pooling of the trailing `out.len()` dims: window `i` of
/// `o` over `n` spans `[floor(i·n/o), ceil((i+1)·n/o))`.
pub fn adaptive_avg_pool_nd(x: &ArrayD<f64>, out: &[usize]) -> KResult<ArrayD<f64>> {
    let k = out.len();
    let s = x.shape().to_vec();
    if s.len() < k || out.contains(&0) {
        return kerr(format!("adaptive pooling of {s:?} to {out:?}"));
    }
    let sp = &s[s.len() - k..];
    let plane: usize = sp.iter().product();
    let oplane: usize = out.iter().product();
    let planes: usize = s[..s.len() - k].iter().product();
    let xs = x.as_standard_layout();
    let xv = xs.as_slice().expect("standard layout");
    let mut vals = Vec::with_capacity(planes * oplane);
    for pl in 0..planes {
        let base = &xv[pl * plane..(pl + 1) * plane];
        for o in 0..oplane {
            let oi = unflatten(o, out);
            let lo: Vec<usize> = (0..k).map(|d| oi[d] * sp[d] / out[d]).collect();
            let hi: Vec<usize> = (0..k)
                .map(|d| ((oi[d] + 1) * sp[d]).div_ceil(out[d]))
                .collect();
            let win: Vec<usize> = (0..k).map(|d| hi[d] - lo[d]).collect();
            let n: usize = win.iter().product();
            let mut acc = 0.0;
            for w in 0..n {
                let wi = unflatten(w, &win);
                let flat = (0..k).fold(0, |f, d| f * sp[d] + lo[d] + wi[d]);
                acc += base[flat];
            }
            vals.push(acc / n as f64);
        }
    }
    let mut shape = s[..s.len() - k].to_vec();
    shape.extend(out);
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("sizes agree"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(shape: &[usize], f: impl Fn(usize) -> f64) -> ArrayD<f64> {
        let n = shape.iter().product();
        ArrayD::from_shape_vec(IxDyn(shape), (0..n).map(f).collect()).unwrap()
    }

    #[test]
    fn max_pool_indices_nan_and_padding() {
        // [1, 1, 2, 2, 2] holding 0..8, one NaN at flat 5
        let mut x = arr(&[1, 1, 2, 2, 2], |i| i as f64);
        x.as_slice_mut().unwrap()[5] = f64::NAN;
        let p = PoolNd {
            kernel: vec![2, 2, 2],
            stride: vec![2, 2, 2],
            padding: vec![1, 1, 1],
            dilation: vec![1, 1, 1],
            ceil_mode: false,
        };
        let (v, i) = max_pool_nd(&x, &p).unwrap();
        assert_eq!(v.shape(), &[1, 1, 2, 2, 2]);
        // each output window holds exactly one input element
        assert_eq!(i.as_slice().unwrap(), &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert!(v.as_slice().unwrap()[5].is_nan());
        let q = PoolNd {
            padding: vec![0, 0, 0],
            ..p
        };
        let (v, i) = max_pool_nd(&x, &q).unwrap();
        assert!(v[[0, 0, 0, 0, 0]].is_nan());
        assert_eq!(i[[0, 0, 0, 0, 0]], 5);
    }

    #[test]
    fn adaptive_average_windows_overlap() {
        let x = arr(&[1, 3], |i| i as f64);
        // 3 → 2: windows [0, 2) and [1, 3)
        let y = adaptive_avg_pool_nd(&x, &[2]).unwrap();
        assert_eq!(y.as_slice().unwrap(), &[0.5, 1.5]);
    }
}
