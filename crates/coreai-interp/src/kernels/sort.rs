//! Sorting along an axis with PyTorch's order: NaN is greater than every
//! number (last ascending, first descending), ties keep their original
//! order (a stable sort), integers compare exactly.

use crate::error::{kerr, KResult};
use crate::tensor::Dom;
use ndarray::{ArrayD, Axis};
use std::cmp::Ordering;

fn nan_last(p: f64, q: f64) -> Ordering {
    match (p.is_nan(), q.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => p.partial_cmp(&q).unwrap_or(Ordering::Equal),
    }
}

/// For every lane along `axis`, the positions of its first `k` elements in
/// sorted order (all of them when `k` is `None`).
fn lane_orders<T: Copy>(
    a: &ArrayD<T>,
    axis: usize,
    k: Option<usize>,
    cmp: impl Fn(T, T) -> Ordering,
) -> KResult<ArrayD<i128>> {
    let n = a.shape()[axis];
    let k = k.unwrap_or(n);
    if k > n {
        return kerr(format!("k = {k} exceeds the size {n} of the sorted dim"));
    }
    let mut shape = a.shape().to_vec();
    shape[axis] = k;
    let mut out = ArrayD::<i128>::zeros(shape);
    for (lane, mut o) in a
        .lanes(Axis(axis))
        .into_iter()
        .zip(out.lanes_mut(Axis(axis)))
    {
        let mut ix: Vec<usize> = (0..n).collect();
        ix.sort_by(|&i, &j| cmp(lane[i], lane[j]));
        for (slot, i) in o.iter_mut().zip(ix) {
            *slot = i as i128;
        }
    }
    Ok(out)
}

/// The sorted positions (first `k` of each lane) of `d` along `axis`.
pub fn sort_positions(
    d: &Dom,
    axis: usize,
    descending: bool,
    k: Option<usize>,
) -> KResult<ArrayD<i128>> {
    let dir = |o: Ordering| if descending { o.reverse() } else { o };
    match d {
        Dom::F(a) => lane_orders(a, axis, k, |p, q| dir(nan_last(p, q))),
        Dom::I(a) => lane_orders(a, axis, k, |p, q| dir(p.cmp(&q))),
        Dom::B(a) => lane_orders(a, axis, k, |p, q| dir(p.cmp(&q))),
        Dom::C(_) => kerr("complex tensors have no order"),
    }
}
