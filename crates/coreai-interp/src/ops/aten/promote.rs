//! Result-type rules shared by the families: wrapped numbers, opmath, rounding to the result dtype.

use crate::error::KResult;
use crate::ops::Ctx;
use crate::tensor::{DType, Tensor};
use ndarray::ArrayD;

/// The result type of `t op scalar` when the scalar is a wrapped number.
pub(super) fn wrapped_type(t: &Tensor, s: &Tensor) -> DType {
    let (dt, ds) = (t.dtype(), s.dtype());
    if ds.category() > dt.category() {
        match ds.category() {
            1 => DType::I64,
            2 => DType::F32,
            _ => DType::C64,
        }
    } else {
        dt
    }
}

/// Operand #1, or the `other` Scalar attribute (`.Scalar` overloads).
pub(super) fn other(c: &Ctx) -> KResult<Tensor> {
    match c.opt_arg(1) {
        Some(t) => Ok(t.clone()),
        None => c.scalar("other"),
    }
}

/// `t` rounded to `dtype` (itself when it has that dtype already).
pub(super) fn in_dtype(t: Tensor, dtype: DType) -> Tensor {
    if t.dtype() == dtype {
        t
    } else {
        t.cast(dtype)
    }
}

/// The dtype PyTorch's CPU `mul` and `div` compute an f16/bf16 result in:
/// f32 when the second operand is 0-dim (a Python number, a symbolic one,
/// or a 0-dim tensor), which the kernel reads as an f32 scalar and rounds
/// the result once; else the result dtype. Measured: f16 `x * 0.1` and
/// `x * torch.tensor(0.1, dtype=float64)` are `f16(f32(x) * f32(0.1))`,
/// `torch.tensor(0.1, dtype=float64) * x` is `x * f16(0.1)`.
pub(super) fn opmath(dt: DType, b: &Tensor) -> DType {
    if matches!(dt, DType::F16 | DType::BF16) && b.ndim() == 0 {
        DType::F32
    } else {
        dt
    }
}

pub(super) fn f64_of(t: &Tensor, dt: DType) -> ArrayD<f64> {
    t.cast(dt).to_f64()
}

/// `v` wrapped to the integer dtype `dt` (two's complement at its width).
pub(super) fn wrap_int(v: i128, dt: DType) -> i128 {
    let bits = 8 * dt.size_of() as u32;
    let m = v.rem_euclid(1i128 << bits);
    if dt.is_signed_int() && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}
