//! Linear algebra: matmul family, linear, einsum, pairwise distances.

use super::elementwise::f32_fast_path;
use super::promote::f64_of;
use crate::error::{kerr, KResult};
use crate::kernels::elementwise::{binary, BinOp};
use crate::kernels::linalg;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::Tensor;
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten.mm.default", matmul),
    ("aten.bmm.default", matmul),
    ("aten.matmul.default", matmul),
    ("aten.addmm.default", addmm),
    ("aten.linear.default", linear),
    ("aten._cdist_forward.default", cdist),
    ("aten._pdist_forward.default", pdist),
    ("aten.einsum.default", einsum),
];

fn matmul(c: &Ctx) -> KResult<Vec<Value>> {
    one(linalg::matmul(c.arg(0)?, c.arg(1)?, c.out_dtype(0)?)?)
}

/// `beta * self + alpha * (mat1 @ mat2)`.
fn addmm(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let prod = linalg::matmul(c.arg(1)?, c.arg(2)?, dt)?;
    let is_one = |name| -> KResult<bool> {
        Ok(c.opt_scalar(name)?
            .is_none_or(|t| t.to_f64().iter().all(|&v| v == 1.0)))
    };
    if is_one("alpha")? && is_one("beta")? {
        if let Some(r) = f32_fast_path(BinOp::Add, dt, c.arg(0)?, &prod) {
            return one(Tensor::F32(r?));
        }
    }
    let mut p = prod.dom();
    if let Some(alpha) = c.opt_scalar("alpha")? {
        if alpha.to_f64().iter().any(|&v| v != 1.0) {
            p = binary(BinOp::Mul, &p, &alpha.dom_as(dt))?;
        }
    }
    let mut s = c.arg(0)?.dom_as(dt);
    if let Some(beta) = c.opt_scalar("beta")? {
        if beta.to_f64().iter().all(|&v| v == 0.0) {
            return one(Tensor::from_dom(p, dt));
        }
        s = binary(BinOp::Mul, &s, &beta.dom_as(dt))?;
    }
    one(Tensor::from_dom(binary(BinOp::Add, &s, &p)?, dt))
}

/// `input @ weight.T + bias`.
fn linear(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    // The weight is read transposed in place (a 1-d weight as it is).
    let y = linalg::matmul_bt(c.arg(0)?, c.arg(1)?, dt)?;
    if let Some(r) = c
        .opt_arg(2)
        .and_then(|b| f32_fast_path(BinOp::Add, dt, &y, b))
    {
        return one(Tensor::F32(r?));
    }
    match c.opt_arg(2) {
        Some(b) => one(Tensor::from_dom(
            binary(BinOp::Add, &y.dom(), &b.dom_as(dt))?,
            dt,
        )),
        None => one(y),
    }
}

/// The p-norm distance of two rows as PyTorch's `Dist` computes it: p = 0
/// sums `min(ceil(|d|), 1)` (a NaN difference gives NaN), p = ∞ is
/// `std::max` over the differences (which skips NaN).
fn p_dist(a: ndarray::ArrayView1<f64>, b: ndarray::ArrayView1<f64>, p: f64) -> f64 {
    let d = a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs());
    if p == 0.0 {
        d.map(|v| if v.is_nan() { v } else { v.ceil().min(1.0) })
            .sum()
    } else if p == f64::INFINITY {
        d.fold(0.0, |m, v| if m < v { v } else { m })
    } else if p == 1.0 {
        d.sum()
    } else if p == 2.0 {
        d.map(|v| v * v).sum::<f64>().sqrt()
    } else {
        d.map(|v| v.powf(p)).sum::<f64>().powf(1.0 / p)
    }
}

/// `_cdist_forward(x1 [.., P, M], x2 [.., R, M], p)`: `[.., P, R]`.
fn cdist(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (a, b) = (f64_of(c.arg(0)?, dt), f64_of(c.arg(1)?, dt));
    let p = c.f64_or("p", 2.0)?;
    let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
    let r = sa.len();
    if r < 2 || sb.len() != r || sa[..r - 2] != sb[..r - 2] || sa[r - 1] != sb[r - 1] {
        return kerr(format!(
            "cdist of {sa:?} and {sb:?}: [.., P, M] and [.., R, M] with equal batch dims"
        ));
    }
    let (np, nr, m) = (sa[r - 2], sb[r - 2], sa[r - 1]);
    let batch: usize = sa[..r - 2].iter().product();
    let a3 = a
        .as_standard_layout()
        .into_owned()
        .into_shape_with_order((batch, np, m))
        .expect("sizes agree");
    let b3 = b
        .as_standard_layout()
        .into_owned()
        .into_shape_with_order((batch, nr, m))
        .expect("sizes agree");
    let mut out = Vec::with_capacity(batch * np * nr);
    for k in 0..batch {
        for i in 0..np {
            for j in 0..nr {
                out.push(p_dist(
                    a3.slice(ndarray::s![k, i, ..]),
                    b3.slice(ndarray::s![k, j, ..]),
                    p,
                ));
            }
        }
    }
    let mut s = sa[..r - 2].to_vec();
    s.extend([np, nr]);
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&s), out).expect("sizes agree"),
        dt,
    ))
}

/// `_pdist_forward(x [N, M], p)`: the distances of rows `i < j`, row-major.
fn pdist(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = f64_of(c.arg(0)?, dt);
    if x.ndim() != 2 {
        return kerr("pdist needs a [N, M] tensor");
    }
    let p = c.f64_or("p", 2.0)?;
    let x = x.into_dimensionality::<ndarray::Ix2>().expect("rank 2");
    let n = x.nrows();
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            out.push(p_dist(x.row(i), x.row(j), p));
        }
    }
    let len = out.len();
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&[len]), out).expect("sizes agree"),
        dt,
    ))
}

/// `einsum(equation, tensors)`: explicit (`ij,jk->ik`) or implicit (the
/// labels used once, sorted) output; every product summed in f64.
fn einsum(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let eq: String = c
        .opt_str("equation")
        .unwrap_or_default()
        .chars()
        .filter(|ch| !ch.is_whitespace())
        .collect();
    if eq.contains("...") {
        return kerr("einsum with '...' is not supported");
    }
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let terms: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    if terms.len() != c.n_args() {
        return kerr(format!(
            "einsum '{eq}' names {} operands, the op has {}",
            terms.len(),
            c.n_args()
        ));
    }
    let ops: Vec<ArrayD<f64>> = (0..c.n_args())
        .map(|i| c.arg(i).map(|t| f64_of(t, dt)))
        .collect::<KResult<_>>()?;
    let mut sizes: std::collections::BTreeMap<char, usize> = Default::default();
    for (t, a) in terms.iter().zip(&ops) {
        if t.len() != a.ndim() {
            return kerr(format!(
                "einsum term '{}' for a rank-{} operand",
                t.iter().collect::<String>(),
                a.ndim()
            ));
        }
        for (&l, &n) in t.iter().zip(a.shape()) {
            let e = sizes.entry(l).or_insert(n);
            if *e != n && *e != 1 && n != 1 {
                return kerr(format!("einsum label '{l}' has sizes {e} and {n}"));
            }
            *e = (*e).max(n);
        }
    }
    let out: Vec<char> = match rhs {
        Some(r) => r.chars().collect(),
        None => sizes
            .keys()
            .copied()
            .filter(|l| terms.iter().flatten().filter(|&x| x == l).count() == 1)
            .collect(),
    };
    if let Some(l) = out.iter().find(|l| !sizes.contains_key(l)) {
        return kerr(format!("einsum output label '{l}' is not an input label"));
    }
    let sum: Vec<char> = sizes.keys().copied().filter(|l| !out.contains(l)).collect();
    let labels: Vec<char> = out.iter().chain(&sum).copied().collect();
    let dims: Vec<usize> = labels.iter().map(|l| sizes[l]).collect();
    let out_n: usize = dims[..out.len()].iter().product();
    let sum_n: usize = dims[out.len()..].iter().product();
    let pos_of: Vec<Vec<usize>> = terms
        .iter()
        .map(|t| {
            t.iter()
                .map(|l| labels.iter().position(|x| x == l).expect("known"))
                .collect()
        })
        .collect();
    let mut res = Vec::with_capacity(out_n);
    let mut at = vec![0usize; labels.len()];
    for o in 0..out_n {
        let mut acc = 0.0;
        for s in 0..sum_n {
            let (mut rem_o, mut rem_s) = (o, s);
            for d in (0..labels.len()).rev() {
                let r = if d >= out.len() {
                    &mut rem_s
                } else {
                    &mut rem_o
                };
                at[d] = *r % dims[d].max(1);
                *r /= dims[d].max(1);
            }
            let mut prod = 1.0;
            for (a, pos) in ops.iter().zip(&pos_of) {
                let ix: Vec<usize> = pos
                    .iter()
                    .zip(a.shape())
                    .map(|(&p, &n)| if n == 1 { 0 } else { at[p] })
                    .collect();
                prod *= a[IxDyn(&ix)];
            }
            acc += prod;
        }
        res.push(acc);
    }
    let shape: Vec<usize> = dims[..out.len()].to_vec();
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&shape), res).expect("sizes agree"),
        dt,
    ))
}
