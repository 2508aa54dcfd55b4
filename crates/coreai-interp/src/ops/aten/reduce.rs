//! Reductions, scans and sorting: sum/mean/prod/min/max/any/all, var/std, arg-reductions, cumulative ops, logsumexp, norms, sort/topk.

use crate::error::{kerr, KResult};
use crate::kernels::reduce::{self, norm_axes, norm_axis, Reduction};
use crate::kernels::shape;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{DType, Dom, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten.sort.default", sort),
    ("aten.sort.stable", sort),
    ("aten.topk.default", topk),
    ("aten.sum.dim_IntList", |c| reduce_op(c, Reduction::Sum)),
    ("aten.sum.default", |c| reduce_op(c, Reduction::Sum)),
    ("aten.mean.dim", |c| reduce_op(c, Reduction::Mean)),
    ("aten.mean.default", |c| reduce_op(c, Reduction::Mean)),
    ("aten.prod.dim_int", |c| reduce_op(c, Reduction::Prod)),
    ("aten.prod.default", |c| reduce_op(c, Reduction::Prod)),
    ("aten.amax.default", |c| reduce_op(c, Reduction::Max)),
    ("aten.amin.default", |c| reduce_op(c, Reduction::Min)),
    ("aten.any.dim", |c| reduce_op(c, Reduction::Any)),
    ("aten.any.dims", |c| reduce_op(c, Reduction::Any)),
    ("aten.any.default", |c| reduce_op(c, Reduction::Any)),
    ("aten.all.dim", |c| reduce_op(c, Reduction::All)),
    ("aten.all.default", |c| reduce_op(c, Reduction::All)),
    ("aten.var.correction", var),
    ("aten.var.dim", var),
    ("aten.argmax.default", |c| arg_red(c, true)),
    ("aten.argmin.default", |c| arg_red(c, false)),
    ("aten.max.dim", |c| max_min_dim(c, true)),
    ("aten.min.dim", |c| max_min_dim(c, false)),
    ("aten.cumsum.default", cumsum),
    ("aten.cumprod.default", cumsum),
    ("aten.max.default", |c| reduce_op(c, Reduction::Max)),
    ("aten.min.default", |c| reduce_op(c, Reduction::Min)),
    ("aten.logsumexp.default", logsumexp),
    ("aten.std.dim", std_dim),
    ("aten.linalg_vector_norm.default", vector_norm),
];

/// `sort` (values, int64 indices) and `topk` (the first `k` of the sort):
/// PyTorch's order, NaN greater than every number, ties in input order.
fn sort_or_topk(c: &Ctx, k: Option<usize>, descending: bool) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let axis = norm_axis(c.i64_or("dim", -1)?, x.ndim().max(1))?;
    if x.ndim() == 0 {
        return Ok(vec![
            Value::tensor(x.clone()),
            Value::tensor(Tensor::from_dom(
                Dom::I(ArrayD::zeros(IxDyn(&[]))),
                DType::I64,
            )),
        ]);
    }
    let positions = crate::kernels::sort::sort_positions(&x.dom(), axis, descending, k)?;
    let index = positions.mapv(|i| i as i64);
    let values = shape::gather(x, axis, &index)?;
    Ok(vec![
        Value::tensor(values),
        Value::tensor(Tensor::from_dom(Dom::I(positions), DType::I64)),
    ])
}

fn sort(c: &Ctx) -> KResult<Vec<Value>> {
    sort_or_topk(c, None, c.bool_or("descending", false)?)
}

fn topk(c: &Ctx) -> KResult<Vec<Value>> {
    let k = c.i64_attr("k")?;
    if k < 0 {
        return kerr(format!("topk k = {k} is negative"));
    }
    sort_or_topk(c, Some(k as usize), c.bool_or("largest", true)?)
}

fn reduce_op(c: &Ctx, kind: Reduction) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let dims = c.opt_i64s("dim")?.unwrap_or_default();
    let axes = norm_axes(&dims, x.ndim(), true)?;
    let keep = c.bool_or("keepdim", false)?;
    let input_dt = match kind {
        Reduction::Max | Reduction::Min => x.dtype(),
        _ => dt,
    };
    if x.dtype() == dt && input_dt == dt {
        if let Some(r) = reduce::reduce_float(kind, x, &axes, keep) {
            return one(r?);
        }
    }
    let r = reduce::reduce(kind, &x.dom_as(input_dt), &axes, keep)?;
    one(Tensor::from_dom(r, dt))
}

fn var(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let axes = norm_axes(&c.opt_i64s("dim")?.unwrap_or_default(), x.ndim(), true)?;
    let keep = c.bool_or("keepdim", false)?;
    let corr = c
        .opt_f64("correction")?
        .unwrap_or(if c.bool_or("unbiased", true)? {
            1.0
        } else {
            0.0
        });
    let (rows, s, ks) = reduce::to_rows(&x.cast(dt).to_f64(), &axes);
    let v: Vec<f64> = rows
        .outer_iter()
        .map(|r| {
            let n = r.len() as f64;
            let m = r.sum() / n;
            r.iter().map(|&v| (v - m) * (v - m)).sum::<f64>() / (n - corr).max(0.0)
        })
        .collect();
    let shape = if keep { ks } else { s };
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&shape), v).expect("sizes agree"),
        dt,
    ))
}

fn arg_red(c: &Ctx, max: bool) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let keep = c.bool_or("keepdim", false)?;
    let r = match c.opt_i64("dim")? {
        Some(d) => reduce::arg_reduce(&x.dom(), norm_axis(d, x.ndim())?, keep, max)?,
        None => {
            let flat = x.reshape(&[x.len()])?;
            let r = reduce::arg_reduce(&flat.dom(), 0, false, max)?;
            if keep {
                r.into_shape_with_order(IxDyn(&vec![1; x.ndim()]))
                    .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?
            } else {
                r
            }
        }
    };
    one(Tensor::from_i128(r, c.out_dtype(0)?))
}

/// `max.dim` / `min.dim`: (values, indices).
fn max_min_dim(c: &Ctx, max: bool) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let keep = c.bool_or("keepdim", false)?;
    let axes = if x.ndim() == 0 { vec![] } else { vec![d] };
    let kind = if max { Reduction::Max } else { Reduction::Min };
    let v = reduce::reduce(kind, &x.dom(), &axes, keep)?;
    let i = reduce::arg_reduce(&x.dom(), d, keep, max)?;
    Ok(vec![
        Value::tensor(Tensor::from_dom(v, c.out_dtype(0)?)),
        Value::tensor(Tensor::from_i128(i, c.out_dtype(1)?)),
    ])
}

fn cumsum(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let kind = if c.name.starts_with("aten.cumprod") {
        reduce::Scan::Prod
    } else {
        reduce::Scan::Sum
    };
    one(Tensor::from_dom(
        reduce::cumulative(&x.dom_as(dt), d, kind, false)?,
        dt,
    ))
}

/// `logsumexp`: `m + log(Σ exp(x - m))` with `m` the maximum (0 when the
/// maximum is infinite, as PyTorch).
fn logsumexp(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?.cast(dt).to_f64();
    let axes = norm_axes(&c.opt_i64s("dim")?.unwrap_or_default(), x.ndim(), true)?;
    let keep = c.bool_or("keepdim", false)?;
    let (rows, s, ks) = reduce::to_rows(&x, &axes);
    let v: Vec<f64> = rows
        .outer_iter()
        .map(|r| {
            let m = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let m = if m.is_infinite() { 0.0 } else { m };
            m + r.iter().map(|&v| (v - m).exp()).sum::<f64>().ln()
        })
        .collect();
    let shape = if keep { ks } else { s };
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&shape), v).expect("sizes agree"),
        dt,
    ))
}

/// `std.dim`: the square root of the variance with Bessel's correction when
/// `unbiased`.
fn std_dim(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?.cast(dt).to_f64();
    let axes = norm_axes(&c.opt_i64s("dim")?.unwrap_or_default(), x.ndim(), true)?;
    let keep = c.bool_or("keepdim", false)?;
    let corr = if c.bool_or("unbiased", true)? {
        1.0
    } else {
        0.0
    };
    let (rows, s, ks) = reduce::to_rows(&x, &axes);
    let v: Vec<f64> = rows
        .outer_iter()
        .map(|r| {
            let n = r.len() as f64;
            let m = r.sum() / n;
            (r.iter().map(|&v| (v - m) * (v - m)).sum::<f64>() / (n - corr).max(0.0)).sqrt()
        })
        .collect();
    let shape = if keep { ks } else { s };
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&shape), v).expect("sizes agree"),
        dt,
    ))
}

/// `linalg_vector_norm`: `(Σ |x|^ord)^(1/ord)`; ord ∞ / -∞ the largest /
/// smallest magnitude, ord 0 the count of nonzeros.
fn vector_norm(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let ord = c.opt_scalar("ord")?.map(|t| t.to_f64()[[]]).unwrap_or(2.0);
    let x = c.arg(0)?.cast(dt).to_f64().mapv(f64::abs);
    let axes = norm_axes(&c.opt_i64s("dim")?.unwrap_or_default(), x.ndim(), true)?;
    let keep = c.bool_or("keepdim", false)?;
    let (rows, s, ks) = reduce::to_rows(&x, &axes);
    let v: Vec<f64> = rows
        .outer_iter()
        .map(|r| {
            if ord == 0.0 {
                // NaN is nonzero
                r.iter().filter(|&&v| v != 0.0).count() as f64
            } else if r.iter().any(|v| v.is_nan()) {
                f64::NAN
            } else if ord == f64::INFINITY {
                r.iter().copied().fold(0.0, f64::max)
            } else if ord == f64::NEG_INFINITY {
                r.iter().copied().fold(f64::INFINITY, f64::min)
            } else if ord == 1.0 {
                r.sum()
            } else if ord == 2.0 {
                r.iter().map(|v| v * v).sum::<f64>().sqrt()
            } else {
                r.iter().map(|v| v.powf(ord)).sum::<f64>().powf(1.0 / ord)
            }
        })
        .collect();
    let shape = if keep { ks } else { s };
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&shape), v).expect("sizes agree"),
        dt,
    ))
}
