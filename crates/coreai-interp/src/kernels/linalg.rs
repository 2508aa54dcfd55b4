//! Matrix products and convolution on `matrixmultiply`'s GEMM, batches in
//! parallel with rayon. f16/bf16 compute in f32 and round once at the end (as
//! PyTorch's CPU kernels accumulate in f32); f64 in f64; integers exactly in
//! i128, wrapped by the caller.

use crate::error::{kerr, KResult};
use crate::kernels::elementwise::{broadcast_shapes, index_offsets, Ptr};
use crate::tensor::{DType, Tensor};
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};
use rayon::prelude::*;

/// Element types with a GEMM.
pub trait Gemm: Copy + Send + Sync + Default + 'static {
    /// The multiplicative identity.
    const ONE: Self;

    /// `c = alpha · a · b` with a `m×k`, b `k×n` and c `m×n`, each given by
    /// its first element and its (row, column) strides in elements.
    ///
    /// # Safety
    /// Every element the pointers and strides address must be inside live
    /// allocations, and `c`'s elements must not overlap `a`'s or `b`'s.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm_strided(
        m: usize,
        k: usize,
        n: usize,
        alpha: Self,
        a: (*const Self, isize, isize),
        b: (*const Self, isize, isize),
        c: (*mut Self, isize, isize),
    );

    /// `c = a · b` with a `m×k`, b `k×n`, all row-major contiguous.
    fn gemm(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]) {
        assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
        // SAFETY: the slices hold m·k, k·n and m·n elements with the row-major
        // strides passed below.
        unsafe {
            Self::gemm_strided(
                m,
                k,
                n,
                Self::ONE,
                (a.as_ptr(), k as isize, 1),
                (b.as_ptr(), n as isize, 1),
                (c.as_mut_ptr(), n as isize, 1),
            )
        }
    }
}

/// `Gemm` through one of matrixmultiply's strided GEMMs.
macro_rules! float_gemm {
    ($t:ty, $gemm:path) => {
        impl Gemm for $t {
            const ONE: $t = 1.0;
            unsafe fn gemm_strided(
                m: usize,
                k: usize,
                n: usize,
                alpha: $t,
                a: (*const $t, isize, isize),
                b: (*const $t, isize, isize),
                c: (*mut $t, isize, isize),
            ) {
                $gemm(
                    m, k, n, alpha, a.0, a.1, a.2, b.0, b.1, b.2, 0.0, c.0, c.1, c.2,
                )
            }
        }
    };
}

float_gemm!(f32, matrixmultiply::sgemm);
float_gemm!(f64, matrixmultiply::dgemm);

impl Gemm for i128 {
    const ONE: i128 = 1;
    unsafe fn gemm_strided(
        m: usize,
        k: usize,
        n: usize,
        alpha: i128,
        a: (*const i128, isize, isize),
        b: (*const i128, isize, isize),
        c: (*mut i128, isize, isize),
    ) {
        for i in 0..m as isize {
            for j in 0..n as isize {
                let mut acc: i128 = 0;
                for p in 0..k as isize {
                    let x = *a.0.offset(i * a.1 + p * a.2);
                    let y = *b.0.offset(p * b.1 + j * b.2);
                    acc = acc.wrapping_add(x.wrapping_mul(y));
                }
                *c.0.offset(i * c.1 + j * c.2) = acc.wrapping_mul(alpha);
            }
        }
    }
}

/// Below this many multiply-adds a batch of products runs on the calling
/// thread; matrixmultiply threads single products of at least
/// `m·k + k·n ≥ 2^15` elements itself.
const PARALLEL_MIN_MACS: usize = 1 << 18;
const GEMM_THREADS_ITSELF: usize = 1 << 15;

/// `torch.matmul` of two views (any strides, broadcast batch dims) scaled by
/// `alpha`: no operand is copied unless a stride is negative.
fn matmul_views<T: Gemm>(a: ArrayViewD<T>, b: ArrayViewD<T>, alpha: T) -> KResult<ArrayD<T>> {
    let (ra, rb) = (a.ndim(), b.ndim());
    if ra == 0 || rb == 0 {
        return kerr("matmul operands must have at least one dimension");
    }
    let (a_shape, b_shape) = (a.shape().to_vec(), b.shape().to_vec());
    let a2 = if ra == 1 { a.insert_axis(Axis(0)) } else { a };
    let b2 = if rb == 1 { b.insert_axis(Axis(1)) } else { b };
    let (m, k) = (a2.shape()[a2.ndim() - 2], a2.shape()[a2.ndim() - 1]);
    let (k2, n) = (b2.shape()[b2.ndim() - 2], b2.shape()[b2.ndim() - 1]);
    if k != k2 {
        return kerr(format!(
            "matmul shapes {a_shape:?} and {b_shape:?} do not agree"
        ));
    }
    let batch = broadcast_shapes(&a2.shape()[..a2.ndim() - 2], &b2.shape()[..b2.ndim() - 2])?;
    let (a_own, b_own);
    let av = broadcast_operand(&a2, &batch, [m, k])?;
    let av = if av.strides().iter().any(|&s| s < 0) {
        a_own = av.as_standard_layout().into_owned();
        a_own.view()
    } else {
        av
    };
    let bv = broadcast_operand(&b2, &batch, [k, n])?;
    let bv = if bv.strides().iter().any(|&s| s < 0) {
        b_own = bv.as_standard_layout().into_owned();
        b_own.view()
    } else {
        bv
    };
    let nb = batch.iter().product::<usize>();
    let mut out = vec![T::default(); nb * m * n];
    let r = batch.len();
    let (sa, sb) = (av.strides(), bv.strides());
    let (a_offs, b_offs) = (
        index_offsets(&batch, &sa[..r]),
        index_offsets(&batch, &sb[..r]),
    );
    let (pa, pb) = (Ptr(av.as_ptr() as *mut T), Ptr(bv.as_ptr() as *mut T));
    // A batch over a shared right operand whose rows follow each other at
    // one stride is one product with nb·m rows (a linear layer).
    let folded = nb > 1
        && b_offs.iter().all(|&o| o == 0)
        && a_offs
            .iter()
            .enumerate()
            .all(|(i, &o)| o == i as isize * m as isize * sa[r]);
    let (nb, m) = if folded { (1, nb * m) } else { (nb, m) };
    let run = |(i, c): (usize, &mut [T])| {
        // SAFETY: the views address their elements through these offsets
        // and strides; each call writes its own m×n chunk of `out`.
        unsafe {
            T::gemm_strided(
                m,
                k,
                n,
                alpha,
                (pa.at(a_offs[i]), sa[r], sa[r + 1]),
                (pb.at(b_offs[i]), sb[r], sb[r + 1]),
                (c.as_mut_ptr(), n as isize, 1),
            )
        }
    };
    if m * n > 0 && k > 0 {
        let small = m * k + k * n < GEMM_THREADS_ITSELF;
        if nb > 1 && small && nb * m * n * k >= PARALLEL_MIN_MACS {
            out.par_chunks_mut(m * n).enumerate().for_each(run);
        } else {
            out.chunks_mut(m * n).enumerate().for_each(run);
        }
    }
    let mut shape = batch;
    if ra > 1 {
        shape.push(a_shape[ra - 2]);
    }
    if rb > 1 {
        shape.push(n);
    }
    Ok(ArrayD::from_shape_vec(IxDyn(&shape), out).expect("sizes agree"))
}

/// `v` (`[.., rows, cols]`) broadcast to `[batch.., rows, cols]` (a view).
fn broadcast_operand<'b, T>(
    v: &'b ArrayViewD<'_, T>,
    batch: &[usize],
    [rows, cols]: [usize; 2],
) -> KResult<ArrayViewD<'b, T>> {
    let mut full = batch.to_vec();
    full.extend([rows, cols]);
    match v.broadcast(IxDyn(&full)) {
        Some(b) => Ok(b),
        None => kerr("batch dimensions do not broadcast"),
    }
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

/// `t` as f64 elements: borrowed when it already is f64.
fn as_f64(t: &Tensor) -> std::borrow::Cow<'_, ArrayD<f64>> {
    match t {
        Tensor::F64(a) => std::borrow::Cow::Borrowed(a),
        other => std::borrow::Cow::Owned(other.to_f64()),
    }
}

/// `torch.matmul` with the result rounded to `dtype`.
pub fn matmul(a: &Tensor, b: &Tensor, dtype: DType) -> KResult<Tensor> {
    product(a, b, false, dtype)
}

/// `a · bᵀ`, bᵀ swapping the last two dims of `b` in place (no copy): the
/// product of `linear`, whose weight is `[out, in]`.
pub fn matmul_bt(a: &Tensor, b: &Tensor, dtype: DType) -> KResult<Tensor> {
    product(a, b, true, dtype)
}

fn product(a: &Tensor, b: &Tensor, b_transposed: bool, dtype: DType) -> KResult<Tensor> {
    fn t<S>(mut v: ArrayViewD<'_, S>, yes: bool) -> ArrayViewD<'_, S> {
        let r = v.ndim();
        if yes && r >= 2 {
            v.swap_axes(r - 2, r - 1);
        }
        v
    }
    let bt = b_transposed;
    match compute_kind(dtype)? {
        DType::F32 => {
            let (x, y) = (as_f32(a), as_f32(b));
            Ok(from_f32(
                matmul_views(x.view(), t(y.view(), bt), 1.0)?,
                dtype,
            ))
        }
        DType::F64 => {
            let (x, y) = (as_f64(a), as_f64(b));
            let r = Tensor::F64(matmul_views(x.view(), t(y.view(), bt), 1.0)?);
            Ok(if dtype == DType::F64 {
                r
            } else {
                r.cast(dtype)
            })
        }
        _ => {
            let (x, y) = (a.to_i128(), b.to_i128());
            let r = matmul_views(x.view(), t(y.view(), bt), 1)?;
            Ok(Tensor::from_i128(r, dtype))
        }
    }
}

/// Scaled dot-product attention of f32 operands `[.., L, E]`, `[.., S, E]`
/// and `[.., S, Ev]`: `softmax(q·kᵀ·scale + mask)·v`, both products in f32
/// as PyTorch's CPU kernels compute them (kᵀ read in place), each row's
/// softmax through f64 ([`crate::kernels::reduce::softmax`]). A bool mask
/// adds -inf where false; a float mask is added in f32. `causal` masks the
/// positions after the row's own (aligned to the upper left).
pub fn sdpa_f32(
    q: &ArrayD<f32>,
    k: &ArrayD<f32>,
    v: &ArrayD<f32>,
    scale: f32,
    mask: Option<&Tensor>,
    causal: bool,
) -> KResult<ArrayD<f32>> {
    let r = k.ndim();
    if r < 2 || q.ndim() < 2 || v.ndim() < 2 {
        return kerr("sdpa expects at least [L, E] operands");
    }
    let mut kt = k.view();
    kt.swap_axes(r - 2, r - 1);
    let mut s = matmul_views(q.view(), kt, scale)?;
    let (l, sl) = (s.shape()[s.ndim() - 2], s.shape()[s.ndim() - 1]);
    if causal && l > 0 && sl > 0 {
        let rows = s.as_slice_mut().expect("a fresh product is standard");
        for (i, row) in rows.chunks_mut(sl).enumerate() {
            row.iter_mut()
                .skip(i % l + 1)
                .for_each(|x| *x = f32::NEG_INFINITY);
        }
    }
    if let Some(m) = mask {
        let add = match m {
            Tensor::Bool(b) => b.mapv(|keep| if keep { 0.0 } else { f32::NEG_INFINITY }),
            other => as_f32(other).into_owned(),
        };
        s = crate::kernels::elementwise::zip2(&s, &add, |x, y| x + y)?;
    }
    let p = crate::kernels::reduce::softmax(&s, s.ndim() - 1, false);
    matmul_views(p.view(), v.view(), 1.0)
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

    /// `torch.matmul` by definition, in f64, on standard-layout copies.
    fn naive(a: &ArrayD<f64>, b: &ArrayD<f64>) -> ArrayD<f64> {
        let (ra, rb) = (a.ndim(), b.ndim());
        let (m, k, n) = (a.shape()[ra - 2], a.shape()[ra - 1], b.shape()[rb - 1]);
        let batch = broadcast_shapes(&a.shape()[..ra - 2], &b.shape()[..rb - 2]).unwrap();
        let full = |s: &[usize]| [batch.clone(), s.to_vec()].concat();
        let av = a.broadcast(IxDyn(&full(&[m, k]))).unwrap().to_owned();
        let bv = b.broadcast(IxDyn(&full(&[k, n]))).unwrap().to_owned();
        let mut out = ArrayD::zeros(IxDyn(&full(&[m, n])));
        for (idx, o) in out.indexed_iter_mut() {
            let mut s = 0.0;
            for p in 0..k {
                let mut ia = ndarray::Dimension::slice(&idx).to_vec();
                let mut ib = ia.clone();
                ia[batch.len() + 1] = p;
                ib[batch.len()] = p;
                s += av[IxDyn(&ia)] * bv[IxDyn(&ib)];
            }
            *o = s;
        }
        out
    }

    fn seq(shape: &[usize], salt: usize) -> ArrayD<f64> {
        let n: usize = shape.iter().product();
        let v = (0..n).map(|i| ((i * 7 + salt) % 11) as f64 - 5.0).collect();
        ArrayD::from_shape_vec(IxDyn(shape), v).unwrap()
    }

    #[test]
    fn strided_and_broadcast_products_match_the_definition() {
        // (a shape, b shape): broadcast batches, a shared right operand
        // (folded into rows), batches on both sides, small and threaded.
        for (sa, sb) in [
            (vec![2, 1, 3, 4], vec![5, 4, 2]),
            (vec![3, 4, 5], vec![5, 6]),
            (vec![1, 128, 40], vec![40, 70]),
            (vec![4, 9, 8], vec![4, 8, 9]),
            (vec![6, 3], vec![1, 3, 2]),
        ] {
            let (a, b) = (seq(&sa, 1), seq(&sb, 3));
            let want = naive(&a, &b);
            let got = matmul(&Tensor::F64(a.clone()), &Tensor::F64(b.clone()), DType::F64).unwrap();
            assert_eq!(got.to_f64(), want, "{sa:?} @ {sb:?}");
            let got = matmul(&Tensor::F64(a.clone()), &Tensor::F64(b.clone()), DType::F32).unwrap();
            assert_eq!(got.to_f64(), want, "f32 {sa:?} @ {sb:?}");
            let int = |x: &ArrayD<f64>| Tensor::I32(x.mapv(|v| v as i32));
            let got = matmul(&int(&a), &int(&b), DType::I32).unwrap();
            assert_eq!(got.to_f64(), want, "i32 {sa:?} @ {sb:?}");
            // The same product with b given transposed, read in place.
            let mut bt = b.clone();
            let r = bt.ndim();
            bt.swap_axes(r - 2, r - 1);
            let bt = bt.as_standard_layout().into_owned();
            let got = matmul_bt(&Tensor::F64(a), &Tensor::F64(bt), DType::F64).unwrap();
            assert_eq!(got.to_f64(), want, "bt {sa:?} @ {sb:?}");
        }
        // Operands that are themselves non-standard views (reversed axes).
        let a = seq(&[5, 3], 2);
        let at = Tensor::F32(a.mapv(|v| v as f32).reversed_axes());
        let b = seq(&[5, 4], 4);
        let got = matmul(&at, &Tensor::F64(b.clone()), DType::F32).unwrap();
        assert_eq!(got.to_f64(), naive(&a.reversed_axes().to_owned(), &b));
    }

    #[test]
    fn sdpa_f32_matches_softmax_of_scores() {
        let q = seq(&[2, 3, 4], 1).mapv(|v| v as f32 / 4.0);
        let k = seq(&[2, 5, 4], 2).mapv(|v| v as f32 / 4.0);
        let v = seq(&[2, 5, 3], 3).mapv(|v| v as f32);
        for causal in [false, true] {
            let got = sdpa_f32(&q, &k, &v, 0.5, None, causal).unwrap();
            for bh in 0..2 {
                for i in 0..3 {
                    let s: Vec<f64> = (0..5)
                        .map(|j| {
                            let dot: f64 =
                                (0..4).map(|e| (q[[bh, i, e]] * k[[bh, j, e]]) as f64).sum();
                            if causal && j > i {
                                f64::NEG_INFINITY
                            } else {
                                dot * 0.5
                            }
                        })
                        .collect();
                    let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    let z: f64 = s.iter().map(|x| (x - m).exp()).sum();
                    for c in 0..3 {
                        let want: f64 = (0..5)
                            .map(|j| (s[j] - m).exp() / z * v[[bh, j, c]] as f64)
                            .sum();
                        let d = (got[[bh, i, c]] as f64 - want).abs();
                        assert!(d <= 1e-5 * (1.0 + want.abs()), "{causal} {bh} {i} {c}: {d}");
                    }
                }
            }
        }
        // A bool mask that hides everything but key 0 returns v's row 0.
        let mut keep = ndarray::ArrayD::from_elem(IxDyn(&[3, 5]), false);
        keep.index_axis_mut(ndarray::Axis(1), 0).fill(true);
        let got = sdpa_f32(&q, &k, &v, 0.5, Some(&Tensor::Bool(keep)), false).unwrap();
        for bh in 0..2 {
            for i in 0..3 {
                for c in 0..3 {
                    assert_eq!(got[[bh, i, c]], v[[bh, 0, c]]);
                }
            }
        }
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
}
