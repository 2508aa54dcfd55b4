//! Elementwise kernels: arithmetic, comparisons, unary math, activations, clamps, selects, casts.

use super::promote::{in_dtype, opmath, other, wrapped_type};
use crate::error::{kerr, KResult};
use crate::kernels::elementwise::{binary, compare, unary, where_, BinOp, CmpOp, UnOp};
use crate::kernels::shape;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{result_type, DType, Dom, Tensor};
use crate::value::Value;
use ndarray::ArrayD;

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten.add.Tensor", |c| add_sub(c, BinOp::Add)),
    ("aten.add.Scalar", |c| add_sub(c, BinOp::Add)),
    ("aten.sub.Tensor", |c| add_sub(c, BinOp::Sub)),
    ("aten.sub.Scalar", |c| add_sub(c, BinOp::Sub)),
    ("aten.rsub.Scalar", rsub),
    ("aten.rsub.Tensor", rsub),
    ("aten.mul.Tensor", |c| bin(c, BinOp::Mul)),
    ("aten.mul.Scalar", |c| bin(c, BinOp::Mul)),
    ("aten.div.Tensor", div),
    ("aten.div.Scalar", div),
    ("aten.div.Tensor_mode", div),
    ("aten.div.Scalar_mode", div),
    ("aten.true_divide.Tensor", div),
    ("aten.floor_divide.default", |c| bin(c, BinOp::FloorDiv)),
    ("aten.remainder.Tensor", |c| bin(c, BinOp::Remainder)),
    ("aten.remainder.Scalar", |c| bin(c, BinOp::Remainder)),
    ("aten.fmod.Tensor", |c| bin(c, BinOp::Fmod)),
    ("aten.fmod.Scalar", |c| bin(c, BinOp::Fmod)),
    ("aten.pow.Tensor_Tensor", pow_tensor_scalar),
    ("aten.pow.Tensor_Scalar", pow_tensor_scalar),
    ("aten.pow.Scalar", pow_scalar_base),
    ("aten.maximum.default", |c| bin(c, BinOp::Maximum)),
    ("aten.minimum.default", |c| bin(c, BinOp::Minimum)),
    ("aten.atan2.default", |c| bin(c, BinOp::Atan2)),
    ("aten.bitwise_and.Tensor", |c| bin(c, BinOp::BitAnd)),
    ("aten.__lshift__.Scalar", |c| shift(c, true)),
    ("aten.__lshift__.Tensor", |c| shift(c, true)),
    ("aten.__rshift__.Scalar", |c| shift(c, false)),
    ("aten.__rshift__.Tensor", |c| shift(c, false)),
    ("aten.bitwise_left_shift.Tensor", |c| shift(c, true)),
    ("aten.bitwise_right_shift.Tensor", |c| shift(c, false)),
    ("aten.bitwise_or.Tensor", |c| bin(c, BinOp::BitOr)),
    ("aten.bitwise_xor.Tensor", |c| bin(c, BinOp::BitXor)),
    ("aten.logical_and.default", |c| bin(c, BinOp::LogicalAnd)),
    ("aten.logical_or.default", |c| bin(c, BinOp::LogicalOr)),
    ("aten.logical_xor.default", |c| bin(c, BinOp::LogicalXor)),
    ("aten.where.self", where_self),
    ("aten.masked_fill.Scalar", masked_fill),
    ("aten.masked_fill.Tensor", masked_fill),
    ("aten.clamp.default", clamp),
    ("aten.clamp.Tensor", clamp),
    ("aten.clamp_min.default", |c| {
        let dt = c.out_dtype(0)?;
        one(Tensor::from_dom(
            binary(
                BinOp::Maximum,
                &c.arg(0)?.dom_as(dt),
                &c.scalar("min")?.dom_as(dt),
            )?,
            dt,
        ))
    }),
    ("aten.clamp_max.default", |c| {
        let dt = c.out_dtype(0)?;
        one(Tensor::from_dom(
            binary(
                BinOp::Minimum,
                &c.arg(0)?.dom_as(dt),
                &c.scalar("max")?.dom_as(dt),
            )?,
            dt,
        ))
    }),
    ("aten.neg.default", |c| un(c, UnOp::Neg)),
    ("aten.abs.default", |c| un(c, UnOp::Abs)),
    ("aten.relu.default", |c| un(c, UnOp::Relu)),
    ("aten.exp.default", |c| un(c, UnOp::Exp)),
    ("aten.exp2.default", |c| un(c, UnOp::Exp2)),
    ("aten.expm1.default", |c| un(c, UnOp::Expm1)),
    ("aten.log.default", |c| un(c, UnOp::Log)),
    ("aten.log2.default", |c| un(c, UnOp::Log2)),
    ("aten.log10.default", |c| un(c, UnOp::Log10)),
    ("aten.log1p.default", |c| un(c, UnOp::Log1p)),
    ("aten.sqrt.default", |c| un(c, UnOp::Sqrt)),
    ("aten.rsqrt.default", |c| un(c, UnOp::Rsqrt)),
    ("aten.reciprocal.default", |c| un(c, UnOp::Reciprocal)),
    ("aten.sin.default", |c| un(c, UnOp::Sin)),
    ("aten.cos.default", |c| un(c, UnOp::Cos)),
    ("aten.tan.default", |c| un(c, UnOp::Tan)),
    ("aten.asin.default", |c| un(c, UnOp::Asin)),
    ("aten.acos.default", |c| un(c, UnOp::Acos)),
    ("aten.atan.default", |c| un(c, UnOp::Atan)),
    ("aten.sinh.default", |c| un(c, UnOp::Sinh)),
    ("aten.cosh.default", |c| un(c, UnOp::Cosh)),
    ("aten.tanh.default", |c| un(c, UnOp::Tanh)),
    ("aten.asinh.default", |c| un(c, UnOp::Asinh)),
    ("aten.acosh.default", |c| un(c, UnOp::Acosh)),
    ("aten.atanh.default", |c| un(c, UnOp::Atanh)),
    ("aten.sigmoid.default", |c| un(c, UnOp::Sigmoid)),
    ("aten.silu.default", |c| un(c, UnOp::Silu)),
    ("aten.erf.default", |c| un(c, UnOp::Erf)),
    ("aten.gelu.default", gelu),
    ("aten.floor.default", |c| un(c, UnOp::Floor)),
    ("aten.ceil.default", |c| un(c, UnOp::Ceil)),
    ("aten.round.default", |c| un(c, UnOp::Round)),
    ("aten.trunc.default", |c| un(c, UnOp::Trunc)),
    ("aten.sign.default", |c| un(c, UnOp::Sign)),
    ("aten.square.default", |c| un(c, UnOp::Square)),
    ("aten.logical_not.default", |c| un_pred(c, UnOp::LogicalNot)),
    ("aten.bitwise_not.default", |c| un(c, UnOp::BitwiseNot)),
    ("aten.isnan.default", |c| un_pred(c, UnOp::IsNan)),
    ("aten.isinf.default", |c| un_pred(c, UnOp::IsInf)),
    ("aten.hardtanh.default", hardtanh),
    ("aten.leaky_relu.default", leaky_relu),
    ("aten.elu.default", elu),
    ("aten.softplus.default", softplus),
    ("aten.hardswish.default", |c| {
        unf(c, |x| x * (x + 3.0).clamp(0.0, 6.0) / 6.0)
    }),
    ("aten.hardsigmoid.default", |c| {
        unf(c, |x| (x + 3.0).clamp(0.0, 6.0) / 6.0)
    }),
    ("aten.mish.default", |c| {
        unf(c, |x| {
            x * (if x > 20.0 { x } else { x.exp().ln_1p() }).tanh()
        })
    }),
    ("aten._to_copy.default", copy_cast),
    ("aten.to.dtype", copy_cast),
    ("aten.to.dtype_layout", copy_cast),
    ("aten.to.device", copy_cast),
    ("aten.clone.default", copy_cast),
    ("aten.alias.default", copy_cast),
    ("aten.dropout.default", dropout),
    ("aten.detach.default", copy_cast),
    ("aten.lift_fresh_copy.default", copy_cast),
    ("aten.contiguous.default", copy_cast),
    ("aten.copy.default", copy),
    ("aten.__and__.Tensor", |c| bin(c, BinOp::BitAnd)),
    ("aten.__or__.Tensor", |c| bin(c, BinOp::BitOr)),
    ("aten.__xor__.Tensor", |c| bin(c, BinOp::BitXor)),
    ("aten.bitwise_and.Scalar", |c| bin(c, BinOp::BitAnd)),
    ("aten.bitwise_or.Scalar", |c| bin(c, BinOp::BitOr)),
    ("aten.bitwise_xor.Scalar", |c| bin(c, BinOp::BitXor)),
    ("aten.round.decimals", round_decimals),
    ("aten.type_as.default", copy_cast),
    ("aten.eq.Tensor", |c| cmp(c, CmpOp::Eq)),
    ("aten.eq.Scalar", |c| cmp(c, CmpOp::Eq)),
    ("aten.ne.Tensor", |c| cmp(c, CmpOp::Ne)),
    ("aten.ne.Scalar", |c| cmp(c, CmpOp::Ne)),
    ("aten.lt.Tensor", |c| cmp(c, CmpOp::Lt)),
    ("aten.lt.Scalar", |c| cmp(c, CmpOp::Lt)),
    ("aten.le.Tensor", |c| cmp(c, CmpOp::Le)),
    ("aten.le.Scalar", |c| cmp(c, CmpOp::Le)),
    ("aten.gt.Tensor", |c| cmp(c, CmpOp::Gt)),
    ("aten.gt.Scalar", |c| cmp(c, CmpOp::Gt)),
    ("aten.ge.Tensor", |c| cmp(c, CmpOp::Ge)),
    ("aten.ge.Scalar", |c| cmp(c, CmpOp::Ge)),
];

fn bin(c: &Ctx, op: BinOp) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (a, b) = (c.arg(0)?, other(c)?);
    if let Some(r) = f32_fast_path(op, dt, a, &b) {
        return one(Tensor::F32(r?));
    }
    let at = if op == BinOp::Mul { opmath(dt, &b) } else { dt };
    let r = Tensor::from_dom(binary(op, &a.dom_as(at), &b.dom_as(at))?, at);
    one(in_dtype(r, dt))
}

/// `a op b` computed directly in f32 when both operands and the result are
/// f32 and `op` is +, −, × or ÷: IEEE rounds those correctly in f32, and
/// computing them in f64 then rounding to f32 gives the same bits (f64 has
/// more than 2·24 + 2 significand bits), so the shortcut changes no result,
/// only skips two conversions of every element.
pub(crate) fn f32_fast_path(
    op: BinOp,
    dt: DType,
    a: &Tensor,
    b: &Tensor,
) -> Option<KResult<ArrayD<f32>>> {
    let (DType::F32, Tensor::F32(x), Tensor::F32(y)) = (dt, a, b) else {
        return None;
    };
    let f: fn(f32, f32) -> f32 = match op {
        BinOp::Add => |p, q| p + q,
        BinOp::Sub => |p, q| p - q,
        BinOp::Mul => |p, q| p * q,
        BinOp::Div => |p, q| p / q,
        _ => return None,
    };
    Some(crate::kernels::elementwise::zip2(x, y, f))
}

/// `self ± alpha * other`.
fn add_sub(c: &Ctx, op: BinOp) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (a, b) = (c.arg(0)?, other(c)?);
    let alpha = c.opt_scalar("alpha")?;
    let alpha_is_one = alpha
        .as_ref()
        .is_none_or(|t| t.to_f64().iter().all(|&v| v == 1.0));
    if alpha_is_one {
        if let Some(r) = f32_fast_path(op, dt, a, &b) {
            return one(Tensor::F32(r?));
        }
    }
    let mut bd = b.dom_as(dt);
    if let Some(alpha) = alpha {
        if !alpha_is_one {
            bd = binary(BinOp::Mul, &bd, &alpha.dom_as(dt))?;
        }
    }
    one(Tensor::from_dom(binary(op, &a.dom_as(dt), &bd)?, dt))
}

/// `other - alpha * self`.
fn rsub(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (a, b) = (c.arg(0)?, other(c)?);
    let mut ad = a.dom_as(dt);
    if let Some(alpha) = c.opt_scalar("alpha")? {
        ad = binary(BinOp::Mul, &ad, &alpha.dom_as(dt))?;
    }
    one(Tensor::from_dom(
        binary(BinOp::Sub, &b.dom_as(dt), &ad)?,
        dt,
    ))
}

/// Division with PyTorch's `rounding_mode` (None, "trunc", "floor").
fn div(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (a, b) = (c.arg(0)?, other(c)?);
    let Some(mode) = c.opt_str("rounding_mode") else {
        let at = opmath(dt, &b);
        let q = binary(BinOp::Div, &a.dom_as(at), &b.dom_as(at))?;
        return one(in_dtype(Tensor::from_dom(q, at), dt));
    };
    let (x, y) = (a.dom_as(dt), b.dom_as(dt));
    let r = match mode.as_str() {
        "floor" => binary(BinOp::FloorDiv, &x, &y)?,
        "trunc" if dt.is_float() => {
            // PyTorch rounds the quotient to the dtype, then truncates.
            let q = Tensor::from_dom(binary(BinOp::Div, &x, &y)?, dt);
            unary(UnOp::Trunc, &q.dom())?
        }
        "trunc" => binary(BinOp::TruncDiv, &x, &y)?,
        m => return kerr(format!("unknown rounding_mode '{m}'")),
    };
    one(Tensor::from_dom(r, dt))
}

/// `a << b` / `a >> b` on integers, as PyTorch's CPU kernel: the left shift
/// wraps at the dtype's width, a shift by at least the width (or by a
/// negative amount) gives 0, or the sign fill for `>>` of a negative value.
fn shift(c: &Ctx, left: bool) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if dt.is_float() || dt.is_complex() || dt == DType::Bool {
        return kerr(format!("shifts need integer operands, not {}", dt.name()));
    }
    let bits = 8 * dt.size_of() as i128;
    let (a, b) = (c.arg(0)?, other(c)?);
    let (Dom::I(x), Dom::I(y)) = (a.dom_as(dt), b.dom_as(dt)) else {
        return kerr("shifts need integer operands");
    };
    let out = crate::kernels::elementwise::zip2(&x, &y, |v: i128, s: i128| {
        match (left, (0..bits).contains(&s)) {
            (true, true) => v << s,
            (true, false) => 0,
            (false, true) => v >> s,
            (false, false) => {
                if v < 0 {
                    -1
                } else {
                    0
                }
            }
        }
    })?;
    one(Tensor::from_dom(Dom::I(out), dt))
}

fn cmp(c: &Ctx, op: CmpOp) -> KResult<Vec<Value>> {
    let a = c.arg(0)?;
    let (b, ct) = match c.opt_arg(1) {
        Some(b) => (b.clone(), result_type(a, b)),
        None => {
            let s = c.scalar("other")?;
            let ct = wrapped_type(a, &s);
            (s, ct)
        }
    };
    one(Tensor::Bool(compare(op, &a.dom_as(ct), &b.dom_as(ct))?))
}

fn un(c: &Ctx, op: UnOp) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if let Some(r) = f32_unary_fast_path(op, dt, c.arg(0)?) {
        return one(r);
    }
    one(Tensor::from_dom(unary(op, &c.arg(0)?.dom_as(dt))?, dt))
}

/// relu of f32 into f32 directly: it is exact in any float type, so the f64
/// domain would only convert every element twice. Other float ops of a
/// float tensor in its own dtype map element by element through f64 (the
/// same bits as the f64 domain, without converting the whole array).
pub(crate) fn f32_unary_fast_path(op: UnOp, dt: DType, x: &Tensor) -> Option<Tensor> {
    match (op, dt, x) {
        (UnOp::Relu, DType::F32, Tensor::F32(x)) => {
            Some(Tensor::F32(x.mapv(|v| if v < 0.0 { 0.0 } else { v })))
        }
        _ if x.dtype() == dt => crate::kernels::elementwise::unary_float(op, x),
        _ => None,
    }
}

/// A unary op whose input is computed in its own dtype (result bool).
fn un_pred(c: &Ctx, op: UnOp) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    one(Tensor::from_dom(unary(op, &c.arg(0)?.dom())?, dt))
}

/// A float-only unary op computed as `f` in f64.
fn unf(c: &Ctx, f: impl Fn(f64) -> f64 + Sync + Send) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if !dt.is_float() {
        return kerr(format!("{} needs a floating-point result", c.name));
    }
    if c.arg(0)?.dtype() == dt {
        if let Some(r) = crate::kernels::elementwise::map_float(c.arg(0)?, &f) {
            return one(r);
        }
    }
    one(Tensor::from_f64(c.arg(0)?.cast(dt).to_f64().mapv(f), dt))
}

/// Eval-mode dropout is the identity; training mode draws random numbers.
fn dropout(c: &Ctx) -> KResult<Vec<Value>> {
    if c.bool_or("train", false)? {
        return kerr("dropout in training mode is random and is not executed");
    }
    copy_cast(c)
}

fn copy_cast(c: &Ctx) -> KResult<Vec<Value>> {
    one(c.arg(0)?.cast(c.out_dtype(0)?))
}

fn clamp(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?.dom_as(dt);
    let (lo, hi) = if c.name.ends_with(".Tensor") {
        (c.opt_arg(1).cloned(), c.opt_arg(2).cloned())
    } else {
        (c.opt_scalar("min")?, c.opt_scalar("max")?)
    };
    let mut r = x;
    if let Some(lo) = lo {
        r = binary(BinOp::Maximum, &r, &lo.dom_as(dt))?;
    }
    if let Some(hi) = hi {
        r = binary(BinOp::Minimum, &r, &hi.dom_as(dt))?;
    }
    one(Tensor::from_dom(r, dt))
}

fn where_self(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let cond = c.arg(0)?.to_bool();
    one(Tensor::from_dom(
        where_(&cond, &c.arg(1)?.dom_as(dt), &c.arg(2)?.dom_as(dt))?,
        dt,
    ))
}

fn masked_fill(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let mask = c.arg(1)?.to_bool();
    let value = match c.opt_arg(2) {
        Some(v) => v.clone(),
        None => c.scalar("value")?,
    };
    one(Tensor::from_dom(
        where_(&mask, &value.dom_as(dt), &c.arg(0)?.dom_as(dt))?,
        dt,
    ))
}

/// gelu for the `approximate` attribute ("none" or "tanh"), at its
/// mathematical value at ±inf (see [`crate::kernels::elementwise::gelu_erf`]).
fn gelu(c: &Ctx) -> KResult<Vec<Value>> {
    match c.opt_str("approximate").as_deref() {
        None | Some("none") => un(c, UnOp::GeluErf),
        Some("tanh") => un(c, UnOp::GeluTanh),
        Some(m) => kerr(format!("unknown gelu approximation '{m}'")),
    }
}

fn hardtanh(c: &Ctx) -> KResult<Vec<Value>> {
    let lo = c.f64_or("min_val", -1.0)?;
    let hi = c.f64_or("max_val", 1.0)?;
    unf(c, move |x| if x.is_nan() { x } else { x.max(lo).min(hi) })
}

fn leaky_relu(c: &Ctx) -> KResult<Vec<Value>> {
    let s = c.f64_or("negative_slope", 0.01)?;
    unf(c, move |x| if x > 0.0 { x } else { x * s })
}

fn elu(c: &Ctx) -> KResult<Vec<Value>> {
    let (a, sc, isc) = (
        c.f64_or("alpha", 1.0)?,
        c.f64_or("scale", 1.0)?,
        c.f64_or("input_scale", 1.0)?,
    );
    unf(c, move |x| {
        if x > 0.0 {
            sc * x
        } else {
            sc * a * ((x * isc).exp() - 1.0)
        }
    })
}

fn softplus(c: &Ctx) -> KResult<Vec<Value>> {
    let (b, t) = (c.f64_or("beta", 1.0)?, c.f64_or("threshold", 20.0)?);
    unf(c, move |x| {
        if x * b > t {
            x
        } else {
            (x * b).exp().ln_1p() / b
        }
    })
}

fn pow_scalar_base(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let base = c.scalar("self_arg")?;
    one(Tensor::from_dom(
        binary(BinOp::Pow, &base.dom_as(dt), &c.arg(0)?.dom_as(dt))?,
        dt,
    ))
}

fn pow_tensor_scalar(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let e = match c.opt_arg(1) {
        Some(t) => t.clone(),
        None => c.scalar("exponent")?,
    };
    one(Tensor::from_dom(
        binary(BinOp::Pow, &c.arg(0)?.dom_as(dt), &e.dom_as(dt))?,
        dt,
    ))
}

fn copy(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let s = c.arg(0)?.shape();
    one(shape::expand(&c.arg(1)?.cast(dt), &s)?)
}

/// `round.decimals`: PyTorch scales by 10^|decimals| in the dtype, rounds half
/// to even, and scales back in the dtype.
fn round_decimals(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if !dt.is_float() {
        return kerr("round.decimals needs a floating-point tensor");
    }
    let d = c.i64_or("decimals", 0)?;
    let r = |a: ArrayD<f64>| Tensor::from_f64(a, dt).to_f64();
    let ten = Tensor::scalar_f64(10f64.powi(d.unsigned_abs() as i32), dt).to_f64()[[]];
    let x = c.arg(0)?.cast(dt).to_f64();
    let out = if d >= 0 {
        let s = r(x.mapv(|v| v * ten));
        r(s.mapv(|v| v.round_ties_even() / ten))
    } else {
        let s = r(x.mapv(|v| v / ten));
        r(s.mapv(|v| v.round_ties_even() * ten))
    };
    one(Tensor::from_f64(out, dt))
}
