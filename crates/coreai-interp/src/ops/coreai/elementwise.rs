//! Elementwise kernels: arithmetic (integer arithmetic wraps, `divide` truncates on integers, `modulo` is fmod), comparisons, unary math, casts, selects, complex parts.

use crate::error::{kerr, KResult};
use crate::kernels::elementwise::{binary, compare, unary, where_, BinOp, CmpOp, UnOp};
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::Tensor;
use crate::value::Value;

/// The coreai kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("coreai.cast", cast),
    ("coreai.abs", |c| un(c, UnOp::Abs)),
    ("coreai.relu", |c| un(c, UnOp::Relu)),
    ("coreai.exp", |c| un(c, UnOp::Exp)),
    ("coreai.log", |c| un(c, UnOp::Log)),
    ("coreai.sqrt", |c| un(c, UnOp::Sqrt)),
    ("coreai.rsqrt", |c| un(c, UnOp::Rsqrt)),
    ("coreai.sin", |c| un(c, UnOp::Sin)),
    ("coreai.cos", |c| un(c, UnOp::Cos)),
    ("coreai.tan", |c| un(c, UnOp::Tan)),
    ("coreai.asin", |c| un(c, UnOp::Asin)),
    ("coreai.acos", |c| un(c, UnOp::Acos)),
    ("coreai.atan", |c| un(c, UnOp::Atan)),
    ("coreai.sinh", |c| un(c, UnOp::Sinh)),
    ("coreai.cosh", |c| un(c, UnOp::Cosh)),
    ("coreai.tanh", |c| un(c, UnOp::Tanh)),
    ("coreai.asinh", |c| un(c, UnOp::Asinh)),
    ("coreai.acosh", |c| un(c, UnOp::Acosh)),
    ("coreai.atanh", |c| un(c, UnOp::Atanh)),
    ("coreai.sigmoid", |c| un(c, UnOp::Sigmoid)),
    ("coreai.silu", |c| un(c, UnOp::Silu)),
    ("coreai.erf", |c| un(c, UnOp::Erf)),
    ("coreai.round", |c| un(c, UnOp::Round)),
    ("coreai.not", |c| un(c, UnOp::LogicalNot)),
    ("coreai.gelu", gelu),
    ("coreai.add", |c| bin(c, BinOp::Add, false)),
    ("coreai.sub", |c| bin(c, BinOp::Sub, false)),
    ("coreai.mul", |c| bin(c, BinOp::Mul, false)),
    ("coreai.divide", |c| bin(c, BinOp::Div, false)),
    ("coreai.floor_divide", |c| bin(c, BinOp::FloorDiv, false)),
    ("coreai.modulo", |c| bin(c, BinOp::Fmod, false)),
    ("coreai.pow", |c| bin(c, BinOp::Pow, false)),
    ("coreai.maximum", |c| bin(c, BinOp::Maximum, false)),
    ("coreai.minimum", |c| bin(c, BinOp::Minimum, false)),
    ("coreai.and", |c| bin(c, BinOp::LogicalAnd, false)),
    ("coreai.or", |c| bin(c, BinOp::LogicalOr, false)),
    ("coreai.xor", |c| bin(c, BinOp::LogicalXor, false)),
    ("coreai.bitwise_and", |c| bin(c, BinOp::BitAnd, false)),
    ("coreai.bitwise_or", |c| bin(c, BinOp::BitOr, false)),
    ("coreai.bitwise_xor", |c| bin(c, BinOp::BitXor, false)),
    ("coreai.equal", |c| cmp(c, CmpOp::Eq)),
    ("coreai.not_equal", |c| cmp(c, CmpOp::Ne)),
    ("coreai.greater", |c| cmp(c, CmpOp::Gt)),
    ("coreai.where", where_op),
    ("coreai.decomposable.broadcasting_add", |c| {
        bin(c, BinOp::Add, true)
    }),
    ("coreai.decomposable.broadcasting_sub", |c| {
        bin(c, BinOp::Sub, true)
    }),
    ("coreai.decomposable.broadcasting_mul", |c| {
        bin(c, BinOp::Mul, true)
    }),
    ("coreai.decomposable.broadcasting_divide", |c| {
        bin(c, BinOp::Div, true)
    }),
    ("coreai.decomposable.broadcasting_floor_divide", |c| {
        bin(c, BinOp::FloorDiv, true)
    }),
    ("coreai.decomposable.broadcasting_modulo", |c| {
        bin(c, BinOp::Fmod, true)
    }),
    ("coreai.decomposable.broadcasting_pow", |c| {
        bin(c, BinOp::Pow, true)
    }),
    ("coreai.decomposable.broadcasting_maximum", |c| {
        bin(c, BinOp::Maximum, true)
    }),
    ("coreai.decomposable.broadcasting_minimum", |c| {
        bin(c, BinOp::Minimum, true)
    }),
    ("coreai.decomposable.broadcasting_and", |c| {
        bin(c, BinOp::LogicalAnd, true)
    }),
    ("coreai.decomposable.broadcasting_or", |c| {
        bin(c, BinOp::LogicalOr, true)
    }),
    ("coreai.decomposable.broadcasting_xor", |c| {
        bin(c, BinOp::LogicalXor, true)
    }),
    ("coreai.decomposable.broadcasting_bitwise_and", |c| {
        bin(c, BinOp::BitAnd, true)
    }),
    ("coreai.decomposable.broadcasting_bitwise_or", |c| {
        bin(c, BinOp::BitOr, true)
    }),
    ("coreai.decomposable.broadcasting_bitwise_xor", |c| {
        bin(c, BinOp::BitXor, true)
    }),
    ("coreai.decomposable.broadcasting_equal", |c| {
        cmp(c, CmpOp::Eq)
    }),
    ("coreai.decomposable.broadcasting_not_equal", |c| {
        cmp(c, CmpOp::Ne)
    }),
    ("coreai.decomposable.broadcasting_greater", |c| {
        cmp(c, CmpOp::Gt)
    }),
    ("coreai.decomposable.broadcasting_where", where_op),
    ("coreai.real_part", |c| match c.arg(0)? {
        Tensor::C64(a) => one(Tensor::F32(a.mapv(|v| v.re))),
        _ => kerr("real_part needs a complex operand"),
    }),
    ("coreai.imaginary_part", |c| match c.arg(0)? {
        Tensor::C64(a) => one(Tensor::F32(a.mapv(|v| v.im))),
        _ => kerr("imaginary_part needs a complex operand"),
    }),
    ("coreai.create_complex", |c| {
        let (re, im) = (c.arg(0)?.to_f64(), c.arg(1)?.to_f64());
        let z = crate::kernels::elementwise::zip2(&re, &im, |a, b| {
            num_complex::Complex32::new(a as f32, b as f32)
        })?;
        one(Tensor::C64(z))
    }),
];

fn bin(c: &Ctx, op: BinOp, broadcast: bool) -> KResult<Vec<Value>> {
    let (a, b) = (c.arg(0)?, c.arg(1)?);
    if !broadcast && a.shape() != b.shape() {
        return kerr(format!(
            "operand shapes {:?} and {:?} differ (use the broadcasting form)",
            a.shape(),
            b.shape()
        ));
    }
    let dt = c.out_dtype(0)?;
    if a.dtype() != b.dtype() {
        return kerr(format!(
            "operand dtypes {} and {} differ",
            a.dtype().name(),
            b.dtype().name()
        ));
    }
    // Integer `divide` truncates (C semantics).
    let op = if op == BinOp::Div && !dt.is_float() && !dt.is_complex() {
        BinOp::TruncDiv
    } else {
        op
    };
    // Float `floor_divide` is floor(x / y) of the rounded quotient (so
    // -5 // inf is -0.0, not Python's -1.0), except that ±inf // finite is
    // NaN in coreai-core's interpreter (its doc says ±inf).
    if op == BinOp::FloorDiv && dt.is_float() {
        let q = Tensor::from_dom(binary(BinOp::Div, &a.dom(), &b.dom())?, dt);
        let fl = Tensor::from_dom(unary(UnOp::Floor, &q.dom())?, dt).to_f64();
        let r = crate::kernels::elementwise::zip2(&fl, &a.to_f64(), |f, x| {
            if x.is_infinite() && !f.is_nan() {
                f64::NAN
            } else {
                f
            }
        })?;
        return one(Tensor::from_f64(r, dt));
    }
    if let Some(r) = crate::ops::aten::f32_fast_path(op, dt, a, b) {
        return one(Tensor::F32(r?));
    }
    one(Tensor::from_dom(binary(op, &a.dom(), &b.dom())?, dt))
}

fn cmp(c: &Ctx, op: CmpOp) -> KResult<Vec<Value>> {
    let (a, b) = (c.arg(0)?, c.arg(1)?);
    if a.dtype() != b.dtype() {
        return kerr("comparison operands must have the same dtype");
    }
    one(Tensor::Bool(compare(op, &a.dom(), &b.dom())?))
}

fn un(c: &Ctx, op: UnOp) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if let Some(r) = crate::ops::aten::f32_unary_fast_path(op, dt, c.arg(0)?) {
        return one(r);
    }
    one(Tensor::from_dom(unary(op, &c.arg(0)?.dom())?, dt))
}

/// gelu in its three forms, at the mathematical value at ±inf (coreai-core's
/// interpreter gives NaN at -inf: test/interp/test_coreai_vs_coreai_core.py).
fn gelu(c: &Ctx) -> KResult<Vec<Value>> {
    let mode = c
        .attr("approximate")
        .map(|a| a.to_text())
        .unwrap_or_default();
    if mode.contains("tanh") {
        un(c, UnOp::GeluTanh)
    } else if mode.contains("sigmoid") {
        un(c, UnOp::GeluSigmoid)
    } else {
        un(c, UnOp::GeluErf)
    }
}

/// Float/bool conversions as documented; integer narrowing saturates, as
/// coreai-core's interpreter does (the op doc is silent; PyTorch wraps).
fn cast(c: &Ctx) -> KResult<Vec<Value>> {
    let (x, dt) = (c.arg(0)?, c.out_dtype(0)?);
    if x.dtype().is_int() && dt.is_int() {
        let (lo, hi) = if dt.is_signed_int() {
            (
                -(1i128 << (dt.int_bits() - 1)),
                (1i128 << (dt.int_bits() - 1)) - 1,
            )
        } else {
            (0, (1i128 << dt.int_bits()) - 1)
        };
        return one(Tensor::from_i128(x.to_i128().mapv(|v| v.clamp(lo, hi)), dt));
    }
    one(x.cast(dt))
}

fn where_op(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    one(Tensor::from_dom(
        where_(
            &c.arg(0)?.to_bool(),
            &c.arg(1)?.dom_as(dt),
            &c.arg(2)?.dom_as(dt),
        )?,
        dt,
    ))
}
