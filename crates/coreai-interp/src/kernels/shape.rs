//! Data movement: permute, expand, concatenate, slice, select, gather,
//! index_select, advanced indexing, flip, tile, pad. Dtype-agnostic: every
//! kernel is generic over the element and applied to any [`Tensor`].

use crate::error::{kerr, KResult};
use crate::kernels::elementwise::{
    broadcast_shapes, index_offsets, view_as, Ptr, PARALLEL_MIN_ELEMENTS,
};
use crate::kernels::reduce::norm_axis;
use crate::tensor::Tensor;
use crate::{each_tensor, map_tensor};
use ndarray::{ArrayD, Axis, Dimension, IxDyn, Slice};
use rayon::prelude::*;

/// Transposes by `perm` (a permutation of the axes).
pub fn permute(t: &Tensor, perm: &[usize]) -> KResult<Tensor> {
    let mut seen = vec![false; t.ndim()];
    if perm.len() != t.ndim()
        || perm
            .iter()
            .any(|&p| p >= t.ndim() || std::mem::replace(&mut seen[p], true))
    {
        return kerr(format!(
            "{perm:?} is not a permutation of {} axes",
            t.ndim()
        ));
    }
    Ok(map_tensor!(t, a => permute_copy(a, perm)))
}

/// Side of the square tiles a transposing permute copies through.
const TILE: usize = 32;

/// `a` permuted by `perm` into a new standard-layout array: runs along the
/// input's contiguous axis are copied whole when that axis stays last, or
/// transposed tile by tile with the output's last axis when it moves.
fn permute_copy<T: Copy + Send + Sync>(a: &ArrayD<T>, perm: &[usize]) -> ArrayD<T> {
    let v = a.view().permuted_axes(IxDyn(perm));
    let out_shape = v.raw_dim();
    let Some(src) = a.as_slice() else {
        return v.as_standard_layout().into_owned();
    };
    // Unit axes move no data.
    let (shape, strides): (Vec<usize>, Vec<isize>) = v
        .shape()
        .iter()
        .zip(v.strides())
        .filter(|(&n, _)| n != 1)
        .map(|(&n, &s)| (n, s))
        .unzip();
    let d = shape.len();
    let unit = strides.iter().position(|&s| s == 1);
    let (Some(p), true) = (unit, d > 0) else {
        return v.as_standard_layout().into_owned();
    };
    let mut out_strides = vec![1isize; d];
    for i in (0..d - 1).rev() {
        out_strides[i] = out_strides[i + 1] * shape[i + 1] as isize;
    }
    let q = d - 1;
    let others: Vec<usize> = (0..d).filter(|&i| i != p && i != q).collect();
    let pick = |v: &[isize]| others.iter().map(|&i| v[i]).collect::<Vec<_>>();
    let sizes: Vec<usize> = others.iter().map(|&i| shape[i]).collect();
    let (src_offs, dst_offs) = (
        index_offsets(&sizes, &pick(&strides)),
        index_offsets(&sizes, &pick(&out_strides)),
    );
    let (np, nq, sq, dp) = (shape[p], shape[q], strides[q], out_strides[p]);
    let mut out: Vec<T> = coreai_ir::alloc::buffer(a.len());
    let (sp, op) = (Ptr(src.as_ptr() as *mut T), Ptr(out.as_mut_ptr()));
    // Tile rows `i0..i0 + TILE` of one block: output rows `doff + i·dp`,
    // disjoint between tile rows, so large blocks split across rayon's
    // workers by tile row (the same elements copied, in any order).
    let rows = |so: isize, doff: isize, i0: usize| {
        for j0 in (0..nq).step_by(TILE) {
            for i in i0..(i0 + TILE).min(np) {
                // SAFETY: `so` + the strides address elements of `src` (a
                // standard layout array viewed through its own permuted
                // strides); `doff` + the standard output strides address
                // elements below `a.len()`.
                unsafe {
                    let s_col = sp.at(so + i as isize);
                    let d_row = op.at(doff + i as isize * dp);
                    for j in j0..(j0 + TILE).min(nq) {
                        *d_row.add(j) = *s_col.offset(j as isize * sq);
                    }
                }
            }
        }
    };
    let parallel = np * nq >= PARALLEL_MIN_ELEMENTS && np > TILE;
    for (&so, &doff) in src_offs.iter().zip(&dst_offs) {
        if p == q {
            // SAFETY: as above, a whole contiguous run.
            unsafe { std::ptr::copy_nonoverlapping(sp.at(so), op.at(doff), nq) };
            continue;
        }
        if parallel {
            (0..np.div_ceil(TILE))
                .into_par_iter()
                .for_each(|t| rows(so, doff, t * TILE));
        } else {
            for i0 in (0..np).step_by(TILE) {
                rows(so, doff, i0);
            }
        }
    }
    // SAFETY: the offsets visit every index of the other axes once, and each
    // visit writes all np·nq (or nq) elements of its block.
    unsafe { out.set_len(a.len()) };
    ArrayD::from_shape_vec(out_shape, out).expect("sizes agree")
}

/// Broadcasts to `shape` (materialized).
pub fn expand(t: &Tensor, shape: &[usize]) -> KResult<Tensor> {
    Ok(map_tensor!(t, a => view_as(a, shape)?.to_owned()))
}

/// Resolves a PyTorch shape with at most one -1.
pub fn infer_shape(shape: &[i64], numel: usize) -> KResult<Vec<usize>> {
    let known: i64 = shape.iter().filter(|&&d| d != -1).product();
    let holes = shape.iter().filter(|&&d| d == -1).count();
    if holes > 1 || shape.iter().any(|&d| d < -1) {
        return kerr(format!("invalid shape {shape:?}"));
    }
    Ok(shape
        .iter()
        .map(|&d| {
            if d == -1 {
                if known == 0 {
                    0
                } else {
                    numel / known as usize
                }
            } else {
                d as usize
            }
        })
        .collect())
}

/// Concatenates along `axis`; all operands must have the same dtype.
pub fn cat(ts: &[Tensor], axis: usize) -> KResult<Tensor> {
    let Some(first) = ts.first() else {
        return kerr("cat of no tensors");
    };
    // PyTorch skips legacy empty 1-d tensors.
    let ts: Vec<&Tensor> = ts
        .iter()
        .filter(|t| !(t.ndim() == 1 && t.is_empty()) || ts.len() == 1)
        .collect();
    if ts.is_empty() {
        return Ok(first.clone());
    }
    macro_rules! go {
        ($v:ident) => {{
            let mut views = Vec::new();
            for t in &ts {
                match t {
                    Tensor::$v(a) => views.push(a.view()),
                    _ => return kerr("cat operands must have the same dtype"),
                }
            }
            match ndarray::concatenate(Axis(axis), &views) {
                Ok(r) => Tensor::$v(r),
                Err(e) => return kerr(format!("cat: {e}")),
            }
        }};
    }
    Ok(match ts[0] {
        Tensor::Bool(_) => go!(Bool),
        Tensor::I8(_) => go!(I8),
        Tensor::I16(_) => go!(I16),
        Tensor::I32(_) => go!(I32),
        Tensor::I64(_) => go!(I64),
        Tensor::U8(_) => go!(U8),
        Tensor::U16(_) => go!(U16),
        Tensor::U32(_) => go!(U32),
        Tensor::U64(_) => go!(U64),
        Tensor::F16(_) => go!(F16),
        Tensor::BF16(_) => go!(BF16),
        Tensor::F32(_) => go!(F32),
        Tensor::F64(_) => go!(F64),
        Tensor::C64(_) => go!(C64),
    })
}

/// PyTorch's `slice.Tensor` bounds: negative wrap, clamped to [0, size].
pub fn clamp_slice(start: Option<i64>, end: Option<i64>, size: usize) -> (usize, usize) {
    let n = size as i64;
    let fix = |v: i64| {
        let v = if v < 0 { v + n } else { v };
        v.clamp(0, n)
    };
    let s = start.map(fix).unwrap_or(0);
    let e = end.map(fix).unwrap_or(n).max(s);
    (s as usize, e as usize)
}

/// `t[start:end:step]` along `axis` (bounds already clamped, step > 0).
pub fn slice(t: &Tensor, axis: usize, start: usize, end: usize, step: usize) -> KResult<Tensor> {
    if step == 0 {
        return kerr("slice step must be positive");
    }
    Ok(map_tensor!(t, a => a
        .slice_axis(Axis(axis), Slice::new(start as isize, Some(end as isize), step as isize))
        .to_owned()))
}

/// `t.select(axis, index)`: drops the axis.
pub fn select(t: &Tensor, axis: usize, index: i64) -> KResult<Tensor> {
    let n = t.shape()[axis] as i64;
    let i = if index < 0 { index + n } else { index };
    if i < 0 || i >= n {
        return kerr(format!(
            "index {index} is out of bounds for dimension {axis} with size {n}"
        ));
    }
    Ok(map_tensor!(t, a => a.index_axis(Axis(axis), i as usize).to_owned()))
}

/// An index into a dim of size `n`, without wrapping (index_select,
/// gather, embedding reject negative indices in PyTorch).
fn check_index_strict(i: i64, n: usize) -> KResult<usize> {
    if i < 0 || i >= n as i64 {
        return kerr(format!("index {i} is out of range for size {n}"));
    }
    Ok(i as usize)
}

/// An index into a dim of size `n`; negative values count from the end.
fn check_index(i: i64, n: usize) -> KResult<usize> {
    let j = if i < 0 { i + n as i64 } else { i };
    if j < 0 || j >= n as i64 {
        return kerr(format!("index {i} is out of bounds for size {n}"));
    }
    Ok(j as usize)
}

/// `index_select(t, axis, idx)` for a 1-d index.
pub fn index_select(t: &Tensor, axis: usize, idx: &[i64]) -> KResult<Tensor> {
    let n = t.shape()[axis];
    let idx: Vec<usize> = idx
        .iter()
        .map(|&i| check_index_strict(i, n))
        .collect::<KResult<_>>()?;
    Ok(map_tensor!(t, a => a.select(Axis(axis), &idx)))
}

/// `torch.gather(t, axis, index)`: `out[i][j][k] = t[i][index[i][j][k]][k]`.
pub fn gather(t: &Tensor, axis: usize, index: &ArrayD<i64>) -> KResult<Tensor> {
    let n = t.shape()[axis];
    if index.ndim() != t.ndim() {
        return kerr("gather index must have the input's rank");
    }
    fn go<T: Clone>(
        a: &ArrayD<T>,
        axis: usize,
        index: &ArrayD<i64>,
        n: usize,
    ) -> KResult<ArrayD<T>> {
        let mut out = Vec::with_capacity(index.len());
        for (pos, &i) in index.indexed_iter() {
            let mut p: Vec<usize> = pos.slice().to_vec();
            p[axis] = check_index_strict(i, n)?;
            match a.get(IxDyn(&p)) {
                Some(v) => out.push(v.clone()),
                None => return kerr("gather index shape exceeds the input"),
            }
        }
        Ok(ArrayD::from_shape_vec(index.raw_dim(), out).expect("sizes agree"))
    }
    Ok(map_tensor!(t, a => go(a, axis, index, n)?))
}

/// Advanced indexing `t[i0, i1, …]` where `indices[d]` indexes dim d (None
/// keeps the dim). The index tensors broadcast together; the indexed dims are
/// replaced by the broadcast shape, placed first when the indexed dims are not
/// adjacent (NumPy rule).
pub fn index(t: &Tensor, indices: &[Option<ArrayD<i64>>]) -> KResult<Tensor> {
    if indices.iter().all(|i| i.is_none()) {
        return Ok(t.clone());
    }
    let (out_shape, src_pos) = index_positions(&t.shape(), indices)?;
    Ok(map_tensor!(t, a => {
        let v: Vec<_> = src_pos.iter().map(|p| a[IxDyn(p)]).collect();
        ArrayD::from_shape_vec(IxDyn(&out_shape), v).expect("sizes agree")
    }))
}

/// The result shape of advanced indexing and, for each result element in
/// row-major order, the position it reads.
pub fn index_positions(
    shape: &[usize],
    indices: &[Option<ArrayD<i64>>],
) -> KResult<(Vec<usize>, Vec<Vec<usize>>)> {
    if indices.len() > shape.len() {
        return kerr("too many indices");
    }
    let used: Vec<usize> = (0..indices.len())
        .filter(|&d| indices[d].is_some())
        .collect();
    if used.is_empty() {
        return kerr("no index tensors");
    }
    let mut bshape: Vec<usize> = vec![];
    for &d in &used {
        bshape = broadcast_shapes(&bshape, indices[d].as_ref().expect("used").shape())?;
    }
    let adjacent = used.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..shape.len()).filter(|d| !used.contains(d)).collect();
    // Output layout: [before..., B..., after...] if adjacent else [B..., rest...].
    let first = used[0];
    let before: Vec<usize> = if adjacent {
        rest.iter().copied().filter(|&d| d < first).collect()
    } else {
        vec![]
    };
    let after: Vec<usize> = rest
        .iter()
        .copied()
        .filter(|d| !before.contains(d))
        .collect();
    let mut out_shape: Vec<usize> = before.iter().map(|&d| shape[d]).collect();
    out_shape.extend(&bshape);
    out_shape.extend(after.iter().map(|&d| shape[d]));
    let views: Vec<_> = used
        .iter()
        .map(|&d| view_as(indices[d].as_ref().expect("used"), &bshape))
        .collect::<KResult<_>>()?;
    let total: usize = out_shape.iter().product();
    let nb = before.len();
    let nbs = bshape.len();
    let mut src_pos: Vec<Vec<usize>> = Vec::with_capacity(total);
    for flat in 0..total {
        let mut rem = flat;
        let mut o = vec![0usize; out_shape.len()];
        for k in (0..out_shape.len()).rev() {
            o[k] = rem % out_shape[k];
            rem /= out_shape[k];
        }
        let mut p = vec![0usize; shape.len()];
        for (k, &d) in before.iter().enumerate() {
            p[d] = o[k];
        }
        let bpos = &o[nb..nb + nbs];
        for (k, &d) in used.iter().enumerate() {
            let i = views[k][IxDyn(bpos)];
            p[d] = check_index(i, shape[d])?;
        }
        for (k, &d) in after.iter().enumerate() {
            p[d] = o[nb + nbs + k];
        }
        src_pos.push(p);
    }
    Ok((out_shape, src_pos))
}

/// Reverses the listed axes.
pub fn flip(t: &Tensor, axes: &[usize]) -> Tensor {
    map_tensor!(t, a => {
        let mut v = a.view();
        for &ax in axes {
            v.invert_axis(Axis(ax));
        }
        v.to_owned()
    })
}

/// Repeats the tensor `reps[d]` times along each dim (`Tensor.repeat`).
pub fn tile(t: &Tensor, reps: &[usize]) -> KResult<Tensor> {
    let mut cur = t.clone();
    if reps.len() > cur.ndim() {
        let mut s = vec![1; reps.len() - cur.ndim()];
        s.extend(cur.shape());
        cur = cur.reshape(&s)?;
    }
    for (d, &r) in reps.iter().enumerate() {
        if r != 1 {
            let copies = vec![cur.clone(); r];
            if r == 0 {
                let mut s = cur.shape();
                s[d] = 0;
                cur = Tensor::zeros(cur.dtype(), &s);
            } else {
                cur = cat(&copies, d)?;
            }
        }
    }
    Ok(cur)
}

/// Reflection (`reflect`, the edge not repeated) or replication padding;
/// `pads` holds (before, after) per dim in dim order.
pub fn pad_by_index(t: &Tensor, pads: &[i64], reflect: bool) -> KResult<Tensor> {
    if pads.len() != 2 * t.ndim() {
        return kerr("padding must hold a (before, after) pair per dim");
    }
    let mut x = t.clone();
    for d in 0..t.ndim() {
        let n = x.shape()[d] as i64;
        let (lo, hi) = (pads[2 * d], pads[2 * d + 1]);
        if lo == 0 && hi == 0 {
            continue;
        }
        if lo < 0 || hi < 0 || n == 0 || (reflect && (lo >= n || hi >= n)) {
            return kerr(format!("cannot pad a dim of size {n} by ({lo}, {hi})"));
        }
        let idx: Vec<i64> = (-lo..n + hi)
            .map(|i| match reflect {
                true if i < 0 => -i,
                true if i >= n => 2 * (n - 1) - i,
                _ => i.clamp(0, n - 1),
            })
            .collect();
        x = index_select(&x, d, &idx)?;
    }
    Ok(x)
}

/// Circular padding (the tensor wraps around); `pads` holds (before,
/// after) per dim in dim order, each at most the dim's size.
pub fn pad_circular(t: &Tensor, pads: &[i64]) -> KResult<Tensor> {
    if pads.len() != 2 * t.ndim() {
        return kerr("padding must hold a (before, after) pair per dim");
    }
    let mut x = t.clone();
    for d in 0..t.ndim() {
        let n = x.shape()[d] as i64;
        let (lo, hi) = (pads[2 * d], pads[2 * d + 1]);
        if lo == 0 && hi == 0 {
            continue;
        }
        if lo < 0 || hi < 0 || lo > n || hi > n {
            return kerr(format!(
                "cannot pad a dim of size {n} circularly by ({lo}, {hi})"
            ));
        }
        let idx: Vec<i64> = (-lo..n + hi).map(|i| i.rem_euclid(n)).collect();
        x = index_select(&x, d, &idx)?;
    }
    Ok(x)
}

/// Constant padding; `pads` is PyTorch's order: last dim first, (before,
/// after) pairs; negative pads crop.
pub fn pad_constant(t: &Tensor, pads: &[i64], value: &Tensor) -> KResult<Tensor> {
    let shape = t.shape();
    let rank = shape.len();
    if !pads.len().is_multiple_of(2) || pads.len() / 2 > rank {
        return kerr("padding must be pairs, at most one per dim");
    }
    let mut lo = vec![0i64; rank];
    let mut hi = vec![0i64; rank];
    for k in 0..pads.len() / 2 {
        lo[rank - 1 - k] = pads[2 * k];
        hi[rank - 1 - k] = pads[2 * k + 1];
    }
    let out_shape: Vec<usize> = (0..rank)
        .map(|d| (shape[d] as i64 + lo[d] + hi[d]).max(0) as usize)
        .collect();
    let fill = value.cast(t.dtype());
    Ok(map_tensor!(t, a => pad_generic(a, &out_shape, &lo, &fill)?))
}

fn pad_generic<T: Clone + 'static>(
    a: &ArrayD<T>,
    out_shape: &[usize],
    lo: &[i64],
    fill: &Tensor,
) -> KResult<ArrayD<T>> {
    let value: T = match each_tensor!(fill, x => x.first().map(|v| v as &dyn std::any::Any)) {
        Some(v) => match v.downcast_ref::<T>() {
            Some(v) => v.clone(),
            None => return kerr("pad value dtype mismatch"),
        },
        None => return kerr("empty pad value"),
    };
    let mut out = ArrayD::from_elem(IxDyn(out_shape), value);
    // The block of `a` that lands inside `out` is copied whole (row by row,
    // not element by element): per dim, source indices [s0, s1) go to
    // [s0 + lo, s1 + lo).
    let (mut src, mut dst) = (a.view(), out.view_mut());
    for d in 0..a.ndim() {
        let s0 = (-lo[d]).max(0);
        let s1 = (a.shape()[d] as i64).min(out_shape[d] as i64 - lo[d]);
        if s1 <= s0 {
            return Ok(out);
        }
        src.slice_axis_inplace(Axis(d), Slice::from(s0 as isize..s1 as isize));
        dst.slice_axis_inplace(
            Axis(d),
            Slice::from((s0 + lo[d]) as isize..(s1 + lo[d]) as isize),
        );
    }
    dst.assign(&src);
    Ok(out)
}

/// `norm_axis` for shape kernels.
pub fn axis(a: i64, rank: usize) -> KResult<usize> {
    norm_axis(a, rank)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    fn t(shape: &[usize], v: Vec<i64>) -> Tensor {
        Tensor::I64(Array::from_shape_vec(IxDyn(shape), v).unwrap())
    }

    #[test]
    fn permute_copy_matches_the_strided_view() {
        // Shapes with unit axes, tiles cut at the edges (33 > TILE), and
        // every permutation of 2, 3 and 4 axes.
        // Blocks of 2^16 elements and more split across rayon's workers.
        for shape in [
            vec![2, 33, 40],
            vec![1, 5, 1, 7],
            vec![3, 1, 70, 2],
            vec![4, 0, 3],
            vec![257, 300],
            vec![3, 130, 190],
        ] {
            let n: usize = shape.iter().product();
            let a = Array::from_shape_vec(IxDyn(&shape), (0..n as i64).collect()).unwrap();
            let d = shape.len();
            let mut perms: Vec<Vec<usize>> = vec![vec![]];
            for _ in 0..d {
                perms = perms
                    .into_iter()
                    .flat_map(|p| {
                        (0..d)
                            .filter(|i| !p.contains(i))
                            .map(|i| [p.clone(), vec![i]].concat())
                            .collect::<Vec<_>>()
                    })
                    .collect();
            }
            for perm in perms {
                let want = a.view().permuted_axes(IxDyn(&perm)).to_owned();
                let got = permute_copy(&a, &perm);
                assert_eq!(got, want, "shape {shape:?} perm {perm:?}");
                assert!(got.is_standard_layout());
            }
        }
        // A non-standard input takes the general path.
        let a = Array::from_shape_vec(IxDyn(&[3, 4]), (0..12i64).collect()).unwrap();
        let at = a.clone().reversed_axes();
        assert_eq!(permute_copy(&at, &[1, 0]), a);
    }

    #[test]
    fn slicing_clamps_like_pytorch() {
        assert_eq!(clamp_slice(Some(-2), None, 5), (3, 5));
        assert_eq!(clamp_slice(Some(1), Some(i64::MAX), 5), (1, 5));
        assert_eq!(clamp_slice(Some(4), Some(2), 5), (4, 4));
        let x = t(&[5], vec![0, 1, 2, 3, 4]);
        assert_eq!(slice(&x, 0, 0, 5, 2).unwrap().to_i64_vec(), vec![0, 2, 4]);
    }

    #[test]
    fn advanced_index_non_adjacent_goes_first() {
        let x = t(&[2, 3, 4], (0..24).collect());
        let i0 = Array::from_shape_vec(IxDyn(&[2]), vec![1, 0]).unwrap();
        let i2 = Array::from_shape_vec(IxDyn(&[2]), vec![3, -1]).unwrap();
        let r = index(&x, &[Some(i0), None, Some(i2)]).unwrap();
        assert_eq!(r.shape(), vec![2, 3]);
        assert_eq!(r.to_i64_vec(), vec![15, 19, 23, 3, 7, 11]);
    }

    #[test]
    fn gather_and_pad() {
        let x = t(&[2, 2], vec![1, 2, 3, 4]);
        let idx = Array::from_shape_vec(IxDyn(&[2, 2]), vec![0, 0, 1, 0]).unwrap();
        assert_eq!(gather(&x, 1, &idx).unwrap().to_i64_vec(), vec![1, 1, 4, 3]);
        let p = pad_constant(
            &x,
            &[1, 0],
            &Tensor::scalar_i128(9, crate::tensor::DType::I64),
        )
        .unwrap();
        assert_eq!(p.to_i64_vec(), vec![9, 1, 2, 9, 3, 4]);
    }
}
