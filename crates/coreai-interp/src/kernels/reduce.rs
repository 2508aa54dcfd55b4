//! Reductions over a set of axes: sum, prod, mean, amax, amin, any, all,
//! argmax/argmin, and cumulative sums. Float reductions accumulate in f64,
//! integer ones in i128 (the caller wraps to the result width, which equals
//! wrapping after every step).

use crate::error::{kerr, KResult};
use crate::kernels::elementwise::{Real, PARALLEL_MIN_ELEMENTS};
use crate::tensor::{Dom, Tensor};
use ndarray::{Array2, ArrayD, Axis, IxDyn};
use rayon::prelude::*;

/// What to reduce with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    Sum,
    Prod,
    Mean,
    /// NaN-propagating maximum.
    Max,
    Min,
    Any,
    All,
}

/// Normalizes a possibly negative axis against `rank` (0-d tensors accept
/// 0 and -1, as PyTorch does).
pub fn norm_axis(axis: i64, rank: usize) -> KResult<usize> {
    let r = rank.max(1) as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if a < 0 || a >= r {
        return kerr(format!(
            "dimension {axis} is out of range for a tensor of rank {rank}"
        ));
    }
    Ok(a as usize)
}

/// The sorted, deduplicated axes; all axes when `axes` is empty and
/// `empty_means_all`.
pub fn norm_axes(axes: &[i64], rank: usize, empty_means_all: bool) -> KResult<Vec<usize>> {
    if axes.is_empty() && empty_means_all {
        return Ok((0..rank).collect());
    }
    let mut out = Vec::new();
    for &a in axes {
        let a = norm_axis(a, rank)?;
        if rank > 0 && !out.contains(&a) {
            out.push(a);
        }
    }
    out.sort();
    Ok(out)
}

/// Moves `axes` last and flattens to `[outer, inner]`; returns the kept
/// shape with and without the reduced axes as 1s.
pub fn to_rows<T: Clone>(a: &ArrayD<T>, axes: &[usize]) -> (Array2<T>, Vec<usize>, Vec<usize>) {
    let rank = a.ndim();
    let kept: Vec<usize> = (0..rank).filter(|d| !axes.contains(d)).collect();
    let perm: Vec<usize> = kept.iter().chain(axes.iter()).copied().collect();
    let outer: usize = kept.iter().map(|&d| a.shape()[d]).product();
    let inner: usize = axes.iter().map(|&d| a.shape()[d]).product();
    let p = a.view().permuted_axes(IxDyn(&perm));
    let data: Vec<T> = p.iter().cloned().collect();
    let rows = Array2::from_shape_vec((outer, inner), data).expect("sizes agree");
    let shape: Vec<usize> = kept.iter().map(|&d| a.shape()[d]).collect();
    let keep_shape: Vec<usize> = (0..rank)
        .map(|d| if axes.contains(&d) { 1 } else { a.shape()[d] })
        .collect();
    (rows, shape, keep_shape)
}

fn finish<T>(v: Vec<T>, shape: &[usize], keep_shape: &[usize], keepdim: bool) -> ArrayD<T> {
    let s = if keepdim { keep_shape } else { shape };
    ArrayD::from_shape_vec(IxDyn(s), v).expect("sizes agree")
}

fn reduce_f64(kind: Reduction, row: &[f64]) -> f64 {
    match kind {
        Reduction::Sum => row.iter().sum(),
        Reduction::Mean => row.iter().sum::<f64>() / row.len() as f64,
        Reduction::Prod => row.iter().product(),
        Reduction::Max => row.iter().fold(f64::NEG_INFINITY, |m, &v| {
            if m.is_nan() || v.is_nan() {
                f64::NAN
            } else {
                m.max(v)
            }
        }),
        Reduction::Min => row.iter().fold(f64::INFINITY, |m, &v| {
            if m.is_nan() || v.is_nan() {
                f64::NAN
            } else {
                m.min(v)
            }
        }),
        Reduction::Any => row.iter().any(|&v| v != 0.0) as u8 as f64,
        Reduction::All => row.iter().all(|&v| v != 0.0) as u8 as f64,
    }
}

fn reduce_i128(kind: Reduction, row: &[i128]) -> KResult<i128> {
    Ok(match kind {
        Reduction::Sum => row.iter().fold(0i128, |s, &v| s.wrapping_add(v)),
        Reduction::Prod => row.iter().fold(1i128, |s, &v| s.wrapping_mul(v)),
        Reduction::Max => match row.iter().max() {
            Some(&m) => m,
            None => return kerr("max of an empty tensor"),
        },
        Reduction::Min => match row.iter().min() {
            Some(&m) => m,
            None => return kerr("min of an empty tensor"),
        },
        Reduction::Any => row.iter().any(|&v| v != 0) as i128,
        Reduction::All => row.iter().all(|&v| v != 0) as i128,
        Reduction::Mean => return kerr("mean needs a floating-point input"),
    })
}

/// Reduces `d` over `axes` (normalized).
pub fn reduce(kind: Reduction, d: &Dom, axes: &[usize], keepdim: bool) -> KResult<Dom> {
    match d {
        Dom::F(a) => {
            if matches!(kind, Reduction::Max | Reduction::Min)
                && axes.iter().any(|&ax| a.shape()[ax] == 0)
            {
                return kerr("max/min of an empty dimension");
            }
            let (rows, s, ks) = to_rows(a, axes);
            let v: Vec<f64> = rows
                .axis_iter(Axis(0))
                .into_par_iter()
                .map(|r| reduce_f64(kind, r.as_slice().expect("contiguous")))
                .collect();
            Ok(Dom::F(finish(v, &s, &ks, keepdim)))
        }
        Dom::I(a) => {
            let (rows, s, ks) = to_rows(a, axes);
            let v: KResult<Vec<i128>> = rows
                .axis_iter(Axis(0))
                .map(|r| reduce_i128(kind, r.as_slice().expect("contiguous")))
                .collect();
            Ok(Dom::I(finish(v?, &s, &ks, keepdim)))
        }
        Dom::B(a) => reduce(kind, &Dom::I(a.mapv(|v| v as i128)), axes, keepdim),
        Dom::C(_) => kerr("reductions of complex tensors are not supported"),
    }
}

/// [`reduce`] of a float tensor over trailing `axes` (normalized) in its own
/// dtype: each row through f64 as [`reduce`] computes it (the same bits),
/// without converting or regrouping the array. `None` when the axes are
/// not trailing, the reduction is not arithmetic, or `x` is not a float.
pub fn reduce_float(
    kind: Reduction,
    x: &Tensor,
    axes: &[usize],
    keepdim: bool,
) -> Option<KResult<Tensor>> {
    fn go<T: Real>(
        kind: Reduction,
        a: &ArrayD<T>,
        axes: &[usize],
        keepdim: bool,
    ) -> KResult<ArrayD<T>> {
        let r = a.ndim();
        let inner: usize = a.shape()[r - axes.len()..].iter().product();
        if inner == 0 && matches!(kind, Reduction::Max | Reduction::Min) {
            return kerr("max/min of an empty dimension");
        }
        let a = a.as_standard_layout();
        let data = a.as_slice().expect("standard layout");
        let outer: usize = a.shape()[..r - axes.len()].iter().product();
        let row = |i: usize| {
            let v: Vec<f64> = data[i * inner..(i + 1) * inner]
                .iter()
                .map(|e| e.to_f64())
                .collect();
            T::from_f64(reduce_f64(kind, &v))
        };
        let v: Vec<T> = if data.len() < PARALLEL_MIN_ELEMENTS {
            (0..outer).map(row).collect()
        } else {
            (0..outer).into_par_iter().map(row).collect()
        };
        let shape: Vec<usize> = (0..r)
            .filter(|d| keepdim || !axes.contains(d))
            .map(|d| if axes.contains(&d) { 1 } else { a.shape()[d] })
            .collect();
        Ok(ArrayD::from_shape_vec(IxDyn(&shape), v).expect("sizes agree"))
    }
    let r = x.ndim();
    let trailing = axes
        .iter()
        .enumerate()
        .all(|(i, &ax)| ax == r - axes.len() + i);
    let arithmetic = matches!(
        kind,
        Reduction::Sum | Reduction::Mean | Reduction::Prod | Reduction::Max | Reduction::Min
    );
    if !trailing || !arithmetic || axes.len() > r {
        return None;
    }
    Some(match x {
        Tensor::F32(a) => go(kind, a, axes, keepdim).map(Tensor::F32),
        Tensor::F64(a) => go(kind, a, axes, keepdim).map(Tensor::F64),
        Tensor::F16(a) => go(kind, a, axes, keepdim).map(Tensor::F16),
        Tensor::BF16(a) => go(kind, a, axes, keepdim).map(Tensor::BF16),
        _ => return None,
    })
}

/// Index of the maximum (or minimum) along `axis`; the first one wins and NaN
/// counts as the maximum (and the minimum), as in PyTorch.
pub fn arg_reduce(d: &Dom, axis: usize, keepdim: bool, max: bool) -> KResult<ArrayD<i128>> {
    arg_reduce_nan(d, axis, keepdim, max, true)
}

/// [`arg_reduce`]; with `nan_wins` false, NaN never compares greater (or
/// less), as in coreai-core's `argmax`.
pub fn arg_reduce_nan(
    d: &Dom,
    axis: usize,
    keepdim: bool,
    max: bool,
    nan_wins: bool,
) -> KResult<ArrayD<i128>> {
    let vals = match d {
        Dom::F(a) => a.clone(),
        // Integers compare exactly (an f64 key ties 2^60 and 2^60 + 1).
        Dom::I(a) => return arg_reduce_int(a, axis, keepdim, max),
        Dom::B(a) => return arg_reduce_int(&a.mapv(i128::from), axis, keepdim, max),
        Dom::C(_) => return kerr("argmax of complex tensors"),
    };
    if vals.ndim() > 0 && vals.shape()[axis] == 0 {
        return kerr("argmax/argmin of an empty dimension");
    }
    let axes = if vals.ndim() == 0 { vec![] } else { vec![axis] };
    let (rows, s, ks) = to_rows(&vals, &axes);
    let v: Vec<i128> = rows
        .axis_iter(Axis(0))
        .map(|r| {
            let mut best = 0usize;
            for (i, &x) in r.iter().enumerate() {
                let b = r[best];
                if nan_wins && b.is_nan() {
                    break;
                }
                if (nan_wins && x.is_nan())
                    || (max && x > b)
                    || (!max && x < b)
                    || (b.is_nan() && !x.is_nan())
                {
                    best = i;
                }
            }
            best as i128
        })
        .collect();
    Ok(finish(v, &s, &ks, keepdim))
}

/// [`arg_reduce`] of integers: the first maximum (or minimum) wins.
fn arg_reduce_int(
    a: &ArrayD<i128>,
    axis: usize,
    keepdim: bool,
    max: bool,
) -> KResult<ArrayD<i128>> {
    if a.ndim() > 0 && a.shape()[axis] == 0 {
        return kerr("argmax/argmin of an empty dimension");
    }
    let axes = if a.ndim() == 0 { vec![] } else { vec![axis] };
    let (rows, s, ks) = to_rows(a, &axes);
    let v: Vec<i128> = rows
        .axis_iter(Axis(0))
        .map(|r| {
            let mut best = 0usize;
            for (i, &x) in r.iter().enumerate() {
                if (max && x > r[best]) || (!max && x < r[best]) {
                    best = i;
                }
            }
            best as i128
        })
        .collect();
    Ok(finish(v, &s, &ks, keepdim))
}

/// The combiner of a cumulative scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scan {
    Sum,
    Prod,
    /// NaN-propagating running maximum.
    Max,
    Min,
}

fn scan_lanes<T: Copy>(
    a: &ArrayD<T>,
    axis: usize,
    reverse: bool,
    f: impl Fn(T, T) -> T,
) -> ArrayD<T> {
    let mut out = a.clone();
    if out.ndim() == 0 {
        return out;
    }
    for mut lane in out.lanes_mut(Axis(axis)) {
        let n = lane.len();
        for k in 1..n {
            let (i, prev) = if reverse {
                (n - 1 - k, n - k)
            } else {
                (k, k - 1)
            };
            lane[i] = f(lane[prev], lane[i]);
        }
    }
    out
}

/// Inclusive cumulative scan along `axis` (from the end when `reverse`).
pub fn cumulative(d: &Dom, axis: usize, kind: Scan, reverse: bool) -> KResult<Dom> {
    Ok(match d {
        Dom::F(a) => Dom::F(match kind {
            Scan::Sum => scan_lanes(a, axis, reverse, |p, v| p + v),
            Scan::Prod => scan_lanes(a, axis, reverse, |p, v| p * v),
            Scan::Max => scan_lanes(a, axis, reverse, |p: f64, v: f64| {
                if p.is_nan() || v.is_nan() {
                    f64::NAN
                } else {
                    p.max(v)
                }
            }),
            Scan::Min => scan_lanes(a, axis, reverse, |p: f64, v: f64| {
                if p.is_nan() || v.is_nan() {
                    f64::NAN
                } else {
                    p.min(v)
                }
            }),
        }),
        Dom::I(a) => Dom::I(match kind {
            Scan::Sum => scan_lanes(a, axis, reverse, |p: i128, v| p.wrapping_add(v)),
            Scan::Prod => scan_lanes(a, axis, reverse, |p: i128, v| p.wrapping_mul(v)),
            Scan::Max => scan_lanes(a, axis, reverse, |p: i128, v| p.max(v)),
            Scan::Min => scan_lanes(a, axis, reverse, |p: i128, v| p.min(v)),
        }),
        Dom::B(a) => return cumulative(&Dom::I(a.mapv(|v| v as i128)), axis, kind, reverse),
        Dom::C(_) => return kerr("cumulative ops on complex tensors"),
    })
}

/// [`cumulative`] as coreai-core's `scan` computes it: every partial result
/// of a float scan is rounded by `round` (to the tensor's dtype: an f16
/// running sum rounds at each step), and a max (min) scan skips NaN,
/// starting from -inf (+inf): a NaN yields the running value so far.
pub fn scan_sequential(
    d: &Dom,
    axis: usize,
    kind: Scan,
    reverse: bool,
    round: impl Fn(f64) -> f64,
) -> KResult<Dom> {
    let Dom::F(a) = d else {
        return cumulative(d, axis, kind, reverse);
    };
    let a = match kind {
        Scan::Max => a.mapv(|v| if v.is_nan() { f64::NEG_INFINITY } else { v }),
        Scan::Min => a.mapv(|v| if v.is_nan() { f64::INFINITY } else { v }),
        _ => a.clone(),
    };
    Ok(Dom::F(match kind {
        Scan::Sum => scan_lanes(&a, axis, reverse, |p, v| round(p + v)),
        Scan::Prod => scan_lanes(&a, axis, reverse, |p, v| round(p * v)),
        Scan::Max => scan_lanes(&a, axis, reverse, f64::max),
        Scan::Min => scan_lanes(&a, axis, reverse, f64::min),
    }))
}

/// Softmax (or log-softmax) of one row, in f64 and rounded to `T`:
/// `exp(x - max) / sum`, literally, so a row with +inf or NaN, or only
/// -inf, gives NaN (as PyTorch and coreai-core's interpreter do).
fn softmax_row<T: Real>(row: &mut [T], log: bool) {
    let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| {
        let v = v.to_f64();
        if v.is_nan() || m.is_nan() {
            f64::NAN
        } else {
            m.max(v)
        }
    });
    let e: Vec<f64> = row.iter().map(|&v| (v.to_f64() - m).exp()).collect();
    let s: f64 = e.iter().sum();
    if log {
        let ls = s.ln();
        row.iter_mut()
            .for_each(|v| *v = T::from_f64(v.to_f64() - m - ls));
    } else {
        row.iter_mut()
            .zip(&e)
            .for_each(|(v, &e)| *v = T::from_f64(e / s));
    }
}

/// Applies `f` to every lane of `out` along `axis`: rows of a standard
/// layout array along its last axis directly (on rayon when large), other
/// lanes through a scratch row.
fn for_each_lane<T: Real>(out: &mut ArrayD<T>, axis: usize, f: impl Fn(&mut [T]) + Sync) {
    let n = out.shape()[axis];
    if n == 0 {
        return;
    }
    if axis + 1 == out.ndim() {
        if let Some(data) = out.as_slice_mut() {
            if data.len() < PARALLEL_MIN_ELEMENTS {
                data.chunks_mut(n).for_each(&f);
            } else {
                data.par_chunks_mut(n).for_each(&f);
            }
            return;
        }
    }
    let mut scratch = Vec::with_capacity(n);
    for mut lane in out.lanes_mut(Axis(axis)) {
        scratch.clear();
        scratch.extend(lane.iter().copied());
        f(&mut scratch);
        lane.iter_mut().zip(&scratch).for_each(|(d, &v)| *d = v);
    }
}

/// Softmax (or log-softmax) along `axis` of a float array in its own
/// dtype: the same bits as the f64 kernel rounded once
/// ([`crate::kernels::nn::softmax`]), without converting the array.
pub fn softmax<T: Real>(x: &ArrayD<T>, axis: usize, log: bool) -> ArrayD<T> {
    let mut out = x.as_standard_layout().into_owned();
    if out.ndim() == 0 {
        out.fill(T::from_f64(if log { 0.0 } else { 1.0 }));
        return out;
    }
    for_each_lane(&mut out, axis, |row| softmax_row(row, log));
    out
}

/// [`softmax`] of a float tensor; `None` for other dtypes.
pub fn softmax_tensor(x: &Tensor, axis: usize, log: bool) -> Option<Tensor> {
    Some(match x {
        Tensor::F32(a) => Tensor::F32(softmax(a, axis, log)),
        Tensor::F64(a) => Tensor::F64(softmax(a, axis, log)),
        Tensor::F16(a) => Tensor::F16(softmax(a, axis, log)),
        Tensor::BF16(a) => Tensor::BF16(softmax(a, axis, log)),
        _ => None?,
    })
}

/// `native_layer_norm` over the last `nd` dims of a float array in its own
/// dtype, weight and bias flattened over those dims: each row's mean and
/// biased variance in f64, `(x - mean) · rstd · w + b` in f64, rounded once
/// (the same bits as [`crate::kernels::nn::layer_norm`]). Returns the
/// output and each row's mean and rstd.
pub fn layer_norm<T: Real>(
    x: &ArrayD<T>,
    nd: usize,
    weight: Option<&[T]>,
    bias: Option<&[T]>,
    eps: f64,
) -> KResult<(ArrayD<T>, Vec<f64>, Vec<f64>)> {
    let r = x.ndim();
    if nd > r {
        return kerr("normalized_shape has more dims than the input");
    }
    let n: usize = x.shape()[r - nd..].iter().product();
    if weight.is_some_and(|w| w.len() != n) || bias.is_some_and(|b| b.len() != n) {
        return kerr("layer_norm weight and bias must have the normalized shape");
    }
    let mut out = x.as_standard_layout().into_owned();
    // An empty row has a NaN mean and rstd (0 / 0), as in f64.
    let rows: usize = x.shape()[..r - nd].iter().product();
    let mut stats = vec![(f64::NAN, f64::NAN); rows];
    if n > 0 {
        let data = out.as_slice_mut().expect("standard layout");
        let row = |(row, st): (&mut [T], &mut (f64, f64))| {
            let v: Vec<f64> = row.iter().map(|&e| e.to_f64()).collect();
            let mean = ndarray::ArrayView1::from(&v[..]).sum() / n as f64;
            let var = v.iter().map(|&e| (e - mean) * (e - mean)).sum::<f64>() / n as f64;
            let rstd = 1.0 / (var + eps).sqrt();
            for (i, (d, &e)) in row.iter_mut().zip(&v).enumerate() {
                let mut y = (e - mean) * rstd;
                if let Some(w) = weight {
                    y *= w[i].to_f64();
                }
                if let Some(b) = bias {
                    y += b[i].to_f64();
                }
                *d = T::from_f64(y);
            }
            *st = (mean, rstd);
        };
        if data.len() < PARALLEL_MIN_ELEMENTS {
            data.chunks_mut(n).zip(stats.iter_mut()).for_each(row);
        } else {
            data.par_chunks_mut(n)
                .zip(stats.par_iter_mut())
                .for_each(row);
        }
    }
    let (mean, rstd) = stats.into_iter().unzip();
    Ok((out, mean, rstd))
}

/// [`layer_norm`] of a float tensor whose weight and bias (if any) have its
/// dtype; `None` otherwise. The mean and rstd are shaped like the input with
/// the normalized dims 1.
#[allow(clippy::type_complexity)]
pub fn layer_norm_tensor(
    x: &Tensor,
    nd: usize,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Option<KResult<(Tensor, ArrayD<f64>, ArrayD<f64>)>> {
    macro_rules! go {
        ($v:ident, $a:expr) => {{
            let flat = |t: Option<&Tensor>| match t {
                None => Some(None),
                Some(Tensor::$v(w)) => Some(Some(w.as_standard_layout().into_owned())),
                Some(_) => None,
            };
            let (w, b) = (flat(weight)?, flat(bias)?);
            let w = w.as_ref().map(|w| w.as_slice().expect("standard layout"));
            let b = b.as_ref().map(|b| b.as_slice().expect("standard layout"));
            layer_norm($a, nd, w, b, eps).map(|(o, m, r)| (Tensor::$v(o), m, r))
        }};
    }
    let r = match x {
        Tensor::F32(a) => go!(F32, a),
        Tensor::F64(a) => go!(F64, a),
        Tensor::F16(a) => go!(F16, a),
        Tensor::BF16(a) => go!(BF16, a),
        _ => return None,
    };
    Some(r.map(|(o, m, rs)| {
        let rank = x.ndim();
        let keep: Vec<usize> = (0..rank)
            .map(|d| if d + nd >= rank { 1 } else { x.shape()[d] })
            .collect();
        let shaped = |v| ArrayD::from_shape_vec(IxDyn(&keep), v).expect("sizes agree");
        (o, shaped(m), shaped(rs))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    #[test]
    fn sum_keepdim_and_axes() {
        let a = Dom::F(Array::from_shape_vec(vec![2, 3], vec![1., 2., 3., 4., 5., 6.]).unwrap());
        let Dom::F(r) = reduce(Reduction::Sum, &a, &[1], true).unwrap() else {
            panic!()
        };
        assert_eq!(r.shape(), &[2, 1]);
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![6., 15.]);
        let Dom::F(r) = reduce(Reduction::Mean, &a, &[0, 1], false).unwrap() else {
            panic!()
        };
        assert_eq!(r.shape(), &[] as &[usize]);
        assert_eq!(r[IxDyn(&[])], 3.5);
    }

    #[test]
    fn int_sum_wraps_only_at_result_width() {
        let a = Dom::I(Array::from_shape_vec(vec![3], vec![i32::MAX as i128; 3]).unwrap());
        let Dom::I(r) = reduce(Reduction::Sum, &a, &[0], false).unwrap() else {
            panic!()
        };
        let s = r[IxDyn(&[])];
        assert_eq!(s, 3 * i32::MAX as i128);
        assert_eq!(
            crate::tensor::wrap_int(s, crate::tensor::DType::I32),
            2147483645
        );
    }

    #[test]
    fn nan_wins_max_and_argmax() {
        let a = Dom::F(Array::from_shape_vec(vec![4], vec![1., f64::NAN, 5., f64::NAN]).unwrap());
        let Dom::F(r) = reduce(Reduction::Max, &a, &[0], false).unwrap() else {
            panic!()
        };
        assert!(r[IxDyn(&[])].is_nan());
        let r = arg_reduce(&a, 0, false, true).unwrap();
        assert_eq!(r[IxDyn(&[])], 1);
        let b = Dom::F(Array::from_shape_vec(vec![4], vec![3., 7., 7., 1.]).unwrap());
        assert_eq!(arg_reduce(&b, 0, false, true).unwrap()[IxDyn(&[])], 1);
        assert_eq!(arg_reduce(&b, 0, false, false).unwrap()[IxDyn(&[])], 3);
        let big = 1i128 << 60;
        let c = Dom::I(Array::from_shape_vec(vec![3], vec![big, big + 1, big]).unwrap());
        assert_eq!(arg_reduce(&c, 0, false, true).unwrap()[IxDyn(&[])], 1);
        assert_eq!(arg_reduce(&c, 0, false, false).unwrap()[IxDyn(&[])], 0);
    }

    #[test]
    fn coreai_scan_skips_nan_and_rounds_each_step() {
        let nan = f64::NAN;
        let a = Dom::F(Array::from_shape_vec(vec![4], vec![nan, 2., nan, 3.]).unwrap());
        let Dom::F(r) = scan_sequential(&a, 0, Scan::Max, false, |v| v).unwrap() else {
            panic!()
        };
        assert_eq!(
            r.iter().copied().collect::<Vec<_>>(),
            vec![f64::NEG_INFINITY, 2., 2., 3.]
        );
        let f16 = |v: f64| half::f16::from_f64(v).to_f64();
        let b = Dom::F(Array::from_shape_vec(vec![3], vec![2048., 1., 1.]).unwrap());
        let Dom::F(r) = scan_sequential(&b, 0, Scan::Sum, false, f16).unwrap() else {
            panic!()
        };
        assert_eq!(
            r.iter().copied().collect::<Vec<_>>(),
            vec![2048., 2048., 2048.]
        );
    }

    #[test]
    fn cumsum_reverse() {
        let a = Dom::I(Array::from_shape_vec(vec![4], vec![1, 2, 3, 4]).unwrap());
        let Dom::I(r) = cumulative(&a, 0, Scan::Sum, false).unwrap() else {
            panic!()
        };
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![1, 3, 6, 10]);
        let Dom::I(r) = cumulative(&a, 0, Scan::Sum, true).unwrap() else {
            panic!()
        };
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![10, 9, 7, 4]);
    }
}
