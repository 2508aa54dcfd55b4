//! Factories: full/zeros/ones, arange, fill, dropout (identity at inference).

use crate::error::{kerr, KResult};
use crate::kernels::shape;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{DType, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten.full.default", full),
    ("aten.full_like.default", full),
    ("aten.zeros.default", full),
    ("aten.zeros_like.default", full),
    ("aten.ones.default", full),
    ("aten.ones_like.default", full),
    ("aten.scalar_tensor.default", full),
    ("aten.arange.start_step", arange),
    ("aten.arange.start", arange),
    ("aten.arange.default", arange),
    ("aten.fill.Scalar", fill),
    ("aten.native_dropout.default", native_dropout),
    ("aten.empty.memory_format", full),
    ("aten.empty_strided.default", full),
];

fn full(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let v = c
        .opt_scalar("fill_value")?
        .or(c.opt_scalar("s")?)
        .or(c.opt_scalar("value")?);
    let v = match (v, c.name) {
        (Some(v), _) => v,
        (None, n) if n.starts_with("aten.ones") => Tensor::scalar_i128(1, DType::I64),
        _ => Tensor::scalar_i128(0, DType::I64),
    };
    let s = c.out_shape(0)?;
    one(shape::expand(&v.cast(dt), &s)?)
}

fn arange(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let start = c.opt_f64("start")?.unwrap_or(0.0);
    let end = c
        .opt_f64("end")?
        .ok_or_else(|| crate::error::InterpError::Kernel("missing 'end'".into()))?;
    let step = c.opt_f64("step")?.unwrap_or(1.0);
    if step == 0.0 {
        return kerr("arange step must be nonzero");
    }
    let n = ((end - start) / step).ceil().max(0.0) as usize;
    let v = ArrayD::from_shape_vec(
        IxDyn(&[n]),
        (0..n).map(|i| start + i as f64 * step).collect(),
    )
    .expect("sizes agree");
    one(Tensor::from_f64(v, dt))
}

/// `fill.Scalar`: `self`'s shape filled with `value`.
fn fill(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let v = c.scalar("value")?;
    one(shape::expand(&v.cast(dt), &c.arg(0)?.shape())?)
}

/// `native_dropout` in evaluation (`train = false`) or with `p = 0`: the
/// input and an all-true mask; with `p = 1` in training: `x · 0` (NaN for
/// NaN and ±inf, as PyTorch) and an all-false mask. Other training dropout
/// is random and declines.
fn native_dropout(c: &Ctx) -> KResult<Vec<Value>> {
    let p = c.f64_or("p", 0.0)?;
    let train = c.bool_or("train", true)?;
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let keep = !train || p == 0.0;
    if !keep && p != 1.0 {
        return kerr(
            "native_dropout in training with 0 < p < 1 is random; the executor cannot match it",
        );
    }
    let out = if keep {
        x.cast(dt)
    } else {
        Tensor::from_f64(x.cast(dt).to_f64().mapv(|v| v * 0.0), dt)
    };
    let mask = Tensor::Bool(ArrayD::from_elem(IxDyn(&x.shape()), keep));
    Ok(vec![
        Value::tensor(out),
        Value::tensor(mask.cast(c.out_dtype(1)?)),
    ])
}
