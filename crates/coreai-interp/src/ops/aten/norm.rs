//! Normalisation and attention: softmax, layer/group/batch/instance norm, scaled dot-product attention.

use super::promote::f64_of;
use crate::error::{kerr, KResult};
use crate::kernels::elementwise::{binary, BinOp};
use crate::kernels::nn::{self};
use crate::kernels::reduce::{self, norm_axis};
use crate::kernels::{linalg, shape};
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{DType, Dom, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, Dimension, IxDyn};

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten._softmax.default", |c| softmax(c, false)),
    ("aten.softmax.int", |c| softmax(c, false)),
    ("aten._log_softmax.default", |c| softmax(c, true)),
    ("aten.log_softmax.int", |c| softmax(c, true)),
    ("aten.native_layer_norm.default", native_layer_norm),
    ("aten.layer_norm.default", native_layer_norm),
    ("aten.native_group_norm.default", group_norm),
    ("aten.group_norm.default", group_norm),
    (
        "aten._native_batch_norm_legit_no_training.default",
        batch_norm,
    ),
    ("aten.batch_norm.default", batch_norm),
    ("aten.scaled_dot_product_attention.default", sdpa),
    ("aten.instance_norm.default", instance_norm),
    (
        "aten._native_batch_norm_legit.no_stats",
        batch_norm_no_stats,
    ),
];

fn softmax(c: &Ctx, log: bool) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    if x.dtype() == dt {
        if let Some(r) = reduce::softmax_tensor(x, d, log) {
            return one(r);
        }
    }
    one(Tensor::from_f64(nn::softmax(&f64_of(x, dt), d, log), dt))
}

fn native_layer_norm(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let nd = c.i64s_attr("normalized_shape")?.len();
    // In the input's own dtype, row by row, when weight and bias have the
    // normalized shape.
    let normalized = &x.shape()[x.ndim().saturating_sub(nd)..];
    let fits = |t: Option<&Tensor>| t.is_none_or(|t| t.shape() == normalized);
    if x.dtype() == dt && nd <= x.ndim() && fits(c.opt_arg(1)) && fits(c.opt_arg(2)) {
        let eps = c.f64_or("eps", 1e-5)?;
        if let Some(r) = reduce::layer_norm_tensor(x, nd, c.opt_arg(1), c.opt_arg(2), eps) {
            let (o, m, r) = r?;
            return stats_results(c, o, (m, r));
        }
    }
    let (w, b) = (
        c.opt_arg(1).map(|t| f64_of(t, dt)),
        c.opt_arg(2).map(|t| f64_of(t, dt)),
    );
    let (o, m, r) = nn::layer_norm(
        &f64_of(x, dt),
        nd,
        w.as_ref(),
        b.as_ref(),
        c.f64_or("eps", 1e-5)?,
    )?;
    norm_results(c, dt, (o, m, r))
}

/// A normalization's results: the output, then mean and rstd when the op
/// has three results (`native_layer_norm`, `native_group_norm`).
fn norm_results(
    c: &Ctx,
    dt: DType,
    (o, m, r): (ArrayD<f64>, ArrayD<f64>, ArrayD<f64>),
) -> KResult<Vec<Value>> {
    stats_results(c, Tensor::from_f64(o, dt), (m, r))
}

/// [`norm_results`] of an output already in its dtype.
fn stats_results(c: &Ctx, o: Tensor, (m, r): (ArrayD<f64>, ArrayD<f64>)) -> KResult<Vec<Value>> {
    let mut out = vec![Value::tensor(o)];
    if c.op.num_results() == 3 {
        out.push(Value::tensor(Tensor::from_f64(m, c.out_dtype(1)?)));
        out.push(Value::tensor(Tensor::from_f64(r, c.out_dtype(2)?)));
    }
    Ok(out)
}

fn group_norm(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let g = c
        .opt_i64("group")?
        .or(c.opt_i64("num_groups")?)
        .unwrap_or(1) as usize;
    let (w, b) = (
        c.opt_arg(1).map(|t| f64_of(t, dt)),
        c.opt_arg(2).map(|t| f64_of(t, dt)),
    );
    let (o, m, r) = nn::group_norm(
        &f64_of(x, dt),
        g,
        w.as_ref(),
        b.as_ref(),
        c.f64_or("eps", 1e-5)?,
    )?;
    norm_results(c, dt, (o, m, r))
}

/// Inference batch norm: operands (input, weight, bias, running_mean,
/// running_var).
fn batch_norm(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if c.bool_or("training", false)? {
        return kerr("training-mode batch_norm is not supported");
    }
    if c.n_args() != 5 {
        return kerr("batch_norm expects input, weight, bias, running_mean, running_var");
    }
    let eps = c.f64_or("eps", 1e-5)?;
    let o = match batch_norm_f32(c, dt, eps)? {
        Some(o) => Tensor::F32(o),
        None => batch_norm_f64(c, dt, eps)?,
    };
    let mut out = vec![Value::tensor(o)];
    for i in 1..c.op.num_results() {
        out.push(Value::tensor(Tensor::zeros(
            c.out_dtype(i)?,
            &c.out_shape(i)?,
        )));
    }
    Ok(out)
}

/// Batch norm of f32 operands into f32, as PyTorch's CPU kernel computes it;
/// `None` for other types.
fn batch_norm_f32(c: &Ctx, dt: DType, eps: f64) -> KResult<Option<ArrayD<f32>>> {
    let args = (0..5).map(|i| c.arg(i)).collect::<KResult<Vec<_>>>()?;
    let (
        DType::F32,
        [Tensor::F32(x), Tensor::F32(w), Tensor::F32(b), Tensor::F32(m), Tensor::F32(v)],
    ) = (dt, args.as_slice())
    else {
        return Ok(None);
    };
    let flat = |a: &ArrayD<f32>| a.iter().copied().collect::<Vec<f32>>();
    Ok(Some(nn::batch_norm_inference_f32(
        x,
        &flat(w),
        &flat(b),
        &flat(m),
        &flat(v),
        eps as f32,
    )?))
}

/// Batch norm in f64, rounded once to `dt` (f16, bf16, f64).
fn batch_norm_f64(c: &Ctx, dt: DType, eps: f64) -> KResult<Tensor> {
    let f = |i| c.arg(i).map(|t| f64_of(t, dt));
    let (w, b) = (f(1)?, f(2)?);
    let o = nn::batch_norm_inference(&f(0)?, Some(&w), Some(&b), &f(3)?, &f(4)?, eps)?;
    Ok(Tensor::from_f64(o, dt))
}

/// `softmax(q kᵀ · scale + mask) v`: f32 operands in f32 ([`linalg::sdpa_f32`]),
/// others (and grouped-query attention) in f64.
fn sdpa(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if let (DType::F32, Tensor::F32(q), Tensor::F32(k), Tensor::F32(v)) =
        (dt, c.arg(0)?, c.arg(1)?, c.arg(2)?)
    {
        let same_heads = q.ndim() < 3 || k.ndim() != q.ndim() || {
            let r = k.ndim();
            q.shape()[r - 3] == k.shape()[r - 3]
        };
        if !c.bool_or("enable_gqa", false)? || same_heads {
            let e = q.shape().last().copied().unwrap_or(1) as f64;
            let scale = c.opt_f64("scale")?.unwrap_or(1.0 / e.sqrt()) as f32;
            let causal = c.bool_or("is_causal", false)?;
            return one(Tensor::F32(linalg::sdpa_f32(
                q,
                k,
                v,
                scale,
                c.opt_arg(3),
                causal,
            )?));
        }
    }
    let (q, mut k, mut v) = (
        c.arg(0)?.cast(DType::F64),
        c.arg(1)?.cast(DType::F64),
        c.arg(2)?.cast(DType::F64),
    );
    let r = k.ndim();
    if r < 2 {
        return kerr("sdpa expects at least [L, E] operands");
    }
    // Grouped-query attention: each group of Hq/Hk query heads shares one
    // key/value head (PyTorch repeats k and v along the head dim).
    if c.bool_or("enable_gqa", false)? && r >= 3 && q.ndim() == r {
        let (hq, hk) = (q.shape()[r - 3], k.shape()[r - 3]);
        if hq != hk {
            if hk == 0 || hq % hk != 0 {
                return kerr(format!("enable_gqa needs the query heads ({hq}) to be a multiple of the key heads ({hk})"));
            }
            let heads: Vec<i64> = (0..hq).map(|h| (h / (hq / hk)) as i64).collect();
            k = shape::index_select(&k, r - 3, &heads)?;
            v = shape::index_select(&v, r - 3, &heads)?;
        }
    }
    let (qs, ks) = (q.shape(), k.shape());
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 1, r - 2);
    let kt = shape::permute(&k, &perm)?;
    let scale = c
        .opt_f64("scale")?
        .unwrap_or(1.0 / (qs[qs.len() - 1] as f64).sqrt());
    let mut s = linalg::matmul(&q, &kt, DType::F64)?
        .to_f64()
        .mapv(|x| x * scale);
    let (l, sl) = (qs[qs.len() - 2], ks[r - 2]);
    if c.bool_or("is_causal", false)? {
        for (pos, x) in s.indexed_iter_mut() {
            let p = pos.slice();
            if p[p.len() - 1] > p[p.len() - 2] {
                *x = f64::NEG_INFINITY;
            }
        }
    }
    let _ = (l, sl);
    if let Some(m) = c.opt_arg(3) {
        let add = if m.dtype() == DType::Bool {
            m.to_bool()
                .mapv(|b| if b { 0.0 } else { f64::NEG_INFINITY })
        } else {
            m.to_f64()
        };
        let Dom::F(sum) = binary(BinOp::Add, &Dom::F(s), &Dom::F(add))? else {
            unreachable!("float domain")
        };
        s = sum;
    }
    let nd = s.ndim();
    let p = nn::softmax(&s, nd - 1, false);
    one(linalg::matmul(&Tensor::F64(p), &v, DType::F64)?.cast(dt))
}

/// `instance_norm`: group norm with one group per channel (input
/// statistics only).
fn instance_norm(c: &Ctx) -> KResult<Vec<Value>> {
    if !c.bool_or("use_input_stats", true)? {
        return kerr("instance_norm with running statistics is not supported");
    }
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let ch = x.shape().get(1).copied().unwrap_or(1);
    let (w, b) = match c.n_args() {
        1 => (None, None),
        3 | 5 => (Some(f64_of(c.arg(1)?, dt)), Some(f64_of(c.arg(2)?, dt))),
        _ => {
            return kerr("instance_norm expects input[, weight, bias[, running_mean, running_var]]")
        }
    };
    let (o, _, _) = nn::group_norm(
        &f64_of(x, dt),
        ch,
        w.as_ref(),
        b.as_ref(),
        c.f64_or("eps", 1e-5)?,
    )?;
    one(Tensor::from_f64(o, dt))
}

/// `_native_batch_norm_legit.no_stats`: batch statistics per channel (dim
/// 1), biased variance; results: output, mean, 1/sqrt(var + eps).
fn batch_norm_no_stats(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = f64_of(c.arg(0)?, dt);
    let r = x.ndim();
    if r < 2 {
        return kerr("batch norm needs [N, C, ...]");
    }
    let (w, b) = match c.n_args() {
        1 => (None, None),
        3 => (Some(f64_of(c.arg(1)?, dt)), Some(f64_of(c.arg(2)?, dt))),
        _ => return kerr("batch norm expects input[, weight, bias]"),
    };
    let axes: Vec<usize> = (0..r).filter(|&d| d != 1).collect();
    let (rows, _, _) = reduce::to_rows(&x, &axes);
    let (norm, mean, rstd) = nn::normalize_rows(&rows, c.f64_or("eps", 1e-5)?);
    let s = x.shape();
    let mut permuted = vec![s[1], s[0]];
    permuted.extend(&s[2..]);
    let mut perm: Vec<usize> = vec![1, 0];
    perm.extend(2..r);
    let y = norm
        .into_shape_with_order(IxDyn(&permuted))
        .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?
        .permuted_axes(IxDyn(&perm));
    let mut bshape = vec![1; r];
    bshape[1] = s[1];
    let per_channel = |v: Option<ArrayD<f64>>| -> KResult<Option<ArrayD<f64>>> {
        v.map(|a| {
            a.into_shape_with_order(IxDyn(&bshape))
                .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))
        })
        .transpose()
    };
    let mut y = y.to_owned();
    if let Some(w) = per_channel(w)? {
        y = &y * &w;
    }
    if let Some(b) = per_channel(b)? {
        y = &y + &b;
    }
    let vec1 = |v: Vec<f64>, i: usize| -> KResult<Value> {
        let n = v.len();
        Ok(Value::tensor(Tensor::from_f64(
            ArrayD::from_shape_vec(IxDyn(&[n]), v).expect("sizes agree"),
            c.out_dtype(i)?,
        )))
    };
    Ok(vec![
        Value::tensor(Tensor::from_f64(y, dt)),
        vec1(mean, 1)?,
        vec1(rstd, 2)?,
    ])
}
