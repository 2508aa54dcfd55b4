//! The exporter's assertions, the Python operators torch.export records on symbolic sizes (`aten.add`, `aten.sym_float`, ...) and the symbolic queries (`sym_size`, `sym_numel`, `sym_stride`).

use crate::error::{kerr, KResult};
use crate::kernels::elementwise::{binary, compare, unary, BinOp, CmpOp, UnOp};
use crate::kernels::reduce::norm_axis;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{promote_types, DType, Dom, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten._assert_scalar.default", assert_scalar),
    ("aten._assert_tensor_metadata.default", metadata_guard),
    ("aten.sym_constrain_range.default", metadata_guard),
    ("aten.sym_constrain_range_for_size.default", metadata_guard),
    ("aten.sym_size.int", sym_size),
    ("aten.add", |c| py_binary(c, BinOp::Add)),
    ("aten.sub", |c| py_binary(c, BinOp::Sub)),
    ("aten.mul", |c| py_binary(c, BinOp::Mul)),
    ("aten.floordiv", |c| py_binary(c, BinOp::FloorDiv)),
    ("aten.mod", |c| py_binary(c, BinOp::Remainder)),
    ("aten.pow", |c| py_binary(c, BinOp::Pow)),
    ("aten.sym_max", |c| py_binary(c, BinOp::Maximum)),
    ("aten.sym_min", |c| py_binary(c, BinOp::Minimum)),
    ("aten.truediv", py_truediv),
    ("aten.eq", |c| py_compare(c, CmpOp::Eq)),
    ("aten.ne", |c| py_compare(c, CmpOp::Ne)),
    ("aten.lt", |c| py_compare(c, CmpOp::Lt)),
    ("aten.le", |c| py_compare(c, CmpOp::Le)),
    ("aten.gt", |c| py_compare(c, CmpOp::Gt)),
    ("aten.ge", |c| py_compare(c, CmpOp::Ge)),
    ("aten.neg", py_neg),
    ("aten.ceil", |c| py_unary_f64(c, UnOp::Ceil)),
    ("aten.floor", |c| py_unary_f64(c, UnOp::Floor)),
    ("aten.trunc", |c| py_unary_f64(c, UnOp::Trunc)),
    ("aten.round", |c| py_unary_f64(c, UnOp::Round)),
    ("aten.sym_sqrt", |c| py_unary_f64(c, UnOp::Sqrt)),
    ("aten.sym_float", py_convert),
    ("aten.sym_int", py_convert),
    ("aten.sym_not", py_not),
    ("aten.sym_numel.default", sym_numel),
    ("aten.sym_stride.int", sym_stride),
    ("aten.sym_storage_offset.default", sym_storage_offset),
    ("aten.sym_is_contiguous.default", sym_is_contiguous),
    ("aten._local_scalar_dense.default", local_scalar_dense),
];

/// `sym_size.int`: the size of dim `dim` (a symbolic int at export time), as
/// a 0-d int64 value.
fn sym_size(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    one(Tensor::from_dom(
        Dom::I(ArrayD::from_elem(IxDyn(&[]), x.shape()[d] as i128)),
        DType::I64,
    ))
}

/// `aten._assert_scalar.default(%cond) {assertion_msg}`: the exporter's
/// guard on a symbolic condition; fails when the condition is zero.
fn assert_scalar(c: &Ctx) -> KResult<Vec<Value>> {
    let holds = c.arg(0)?.to_f64().iter().all(|v| *v != 0.0);
    if holds {
        Ok(Vec::new())
    } else {
        kerr("the exported program's assertion failed")
    }
}

/// The exporter's metadata guards (`_assert_tensor_metadata`, range
/// constraints): the executor already checks every op's result against the
/// dtype and static shape the IR declares, so they have nothing left to check.
fn metadata_guard(_: &Ctx) -> KResult<Vec<Value>> {
    Ok(Vec::new())
}

/// `a op b` (Python `+ - * // % ** min max`) computed in the result's type:
/// Python promotes int with float to float, and the IR records the result.
fn py_binary(c: &Ctx, op: BinOp) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (a, b) = (c.arg(0)?, c.arg(1)?);
    let (x, y) = (a.dom_as(dt), b.dom_as(dt));
    let zero_divisor = matches!(op, BinOp::FloorDiv | BinOp::Remainder)
        && matches!(&y, Dom::I(v) if v.iter().any(|&q| q == 0));
    if zero_divisor {
        return kerr("integer division or modulo by zero");
    }
    if let (Dom::F(xf), Dom::F(yf), BinOp::FloorDiv | BinOp::Remainder) = (&x, &y, op) {
        if yf.iter().any(|&q| q == 0.0) {
            return kerr("float division or modulo by zero");
        }
        let f = if op == BinOp::FloorDiv {
            py_float_divmod_div
        } else {
            py_float_divmod_mod
        };
        let r = crate::kernels::elementwise::zip2(xf, yf, f)?;
        return one(Tensor::from_f64(r, dt));
    }
    one(Tensor::from_dom(binary(op, &x, &y)?, dt))
}

/// CPython's float `divmod` (Objects/floatobject.c): the remainder takes the
/// divisor's sign (a zero remainder is +0 or -0 like the divisor) and the
/// quotient is rounded so that `q * b + r` stays closest to `a`.
fn py_float_divmod(a: f64, b: f64) -> (f64, f64) {
    let mut m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = 0f64.copysign(b);
    }
    let q = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        0f64.copysign(a / b)
    };
    (q, m)
}

fn py_float_divmod_div(a: f64, b: f64) -> f64 {
    py_float_divmod(a, b).0
}

fn py_float_divmod_mod(a: f64, b: f64) -> f64 {
    py_float_divmod(a, b).1
}

/// Python `/`: true division in f64 whatever the operands.
fn py_truediv(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (x, y) = (c.arg(0)?.dom_as(DType::F64), c.arg(1)?.dom_as(DType::F64));
    one(Tensor::from_dom(binary(BinOp::Div, &x, &y)?, dt))
}

/// Python comparisons: both operands promoted (int vs float compares as
/// float), a bool result.
fn py_compare(c: &Ctx, op: CmpOp) -> KResult<Vec<Value>> {
    let (a, b) = (c.arg(0)?, c.arg(1)?);
    let ct = promote_types(a.dtype(), b.dtype());
    let r = Tensor::Bool(compare(op, &a.dom_as(ct), &b.dom_as(ct))?);
    one(r.cast(c.out_dtype(0)?))
}

/// `math.floor/ceil/trunc`, `round` (half to even), `torch.sym_sqrt`: the
/// operand as f64, the result converted to the recorded type (int for
/// floor/ceil/trunc/round).
fn py_unary_f64(c: &Ctx, op: UnOp) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    if x.dtype().is_int() && op != UnOp::Sqrt {
        return one(x.cast(dt));
    }
    let r = Tensor::from_dom(unary(op, &x.dom_as(DType::F64))?, DType::F64);
    let out = r.cast(dt);
    if dt.is_int() && r.to_f64().iter().any(|v| !v.is_finite()) {
        return kerr(format!(
            "{} of a non-finite value has no integer result",
            c.name
        ));
    }
    one(out)
}

/// `-x` in the result's type.
fn py_neg(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    one(Tensor::from_dom(
        unary(UnOp::Neg, &c.arg(0)?.dom_as(dt))?,
        dt,
    ))
}

/// `torch.sym_float` / `torch.sym_int` (truncates toward zero): a cast.
fn py_convert(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    if dt.is_int() && x.to_f64().iter().any(|v| !v.is_finite()) {
        return kerr("sym_int of a non-finite value");
    }
    one(x.cast(dt))
}

fn py_not(c: &Ctx) -> KResult<Vec<Value>> {
    let r = Tensor::Bool(c.arg(0)?.to_bool().mapv(|v| !v));
    one(r.cast(c.out_dtype(0)?))
}

/// An `int`/`SymInt?` schema argument: the attribute, or (dynamic shapes)
/// the one scalar operand of its group in a generic `aten.operator`.
pub(super) fn opt_sym_i64(c: &Ctx, name: &str) -> KResult<Option<i64>> {
    if let Some(v) = c.opt_i64(name)? {
        return Ok(Some(v));
    }
    match c.operand_group(name).as_deref() {
        Some([t]) => match t.to_i64_vec().as_slice() {
            [v] => Ok(Some(*v)),
            _ => kerr(format!("operand '{name}' must hold one integer")),
        },
        Some(_) => kerr(format!("operand group '{name}' must hold one scalar")),
        None => Ok(None),
    }
}

fn scalar_i64(v: i128) -> Tensor {
    Tensor::scalar_i128(v, DType::I64)
}

/// `sym_numel`: the number of elements.
fn sym_numel(c: &Ctx) -> KResult<Vec<Value>> {
    one(scalar_i64(c.arg(0)?.len() as i128))
}

/// `sym_stride.int`: the executor's tensors are contiguous, row-major.
fn sym_stride(c: &Ctx) -> KResult<Vec<Value>> {
    let s = c.arg(0)?.shape();
    let d = norm_axis(c.i64_attr("dim")?, s.len().max(1))?;
    let stride: usize = s.iter().skip(d + 1).product();
    one(scalar_i64(stride as i128))
}

/// `sym_storage_offset`: contiguous tensors start at their storage.
fn sym_storage_offset(c: &Ctx) -> KResult<Vec<Value>> {
    c.arg(0)?;
    one(scalar_i64(0))
}

/// `sym_is_contiguous`: the executor's row-major tensors are contiguous;
/// for `channels_last(_3d)` their strides must equal the channels-last ones
/// on every dim of size > 1 (PyTorch ignores the strides of size-1 dims).
fn sym_is_contiguous(c: &Ctx) -> KResult<Vec<Value>> {
    let s = c.arg(0)?.shape();
    let format = c
        .opt_str("memory_format")
        .unwrap_or_else(|| "contiguous_format".into());
    let yes = match format.as_str() {
        "contiguous_format" | "preserve_format" => true,
        "channels_last" | "channels_last_3d" => {
            let rank = if format == "channels_last" { 4 } else { 5 };
            if s.len() != rank {
                return kerr(format!("{format} needs a rank-{rank} tensor"));
            }
            // channels-last order: N, spatial..., C
            let mut order: Vec<usize> = vec![0];
            order.extend(2..rank);
            order.push(1);
            let mut want = vec![0usize; rank];
            let mut acc = 1;
            for &d in order.iter().rev() {
                want[d] = acc;
                acc *= s[d];
            }
            s.iter().product::<usize>() == 0
                || (0..rank).all(|d| s[d] == 1 || want[d] == s[d + 1..].iter().product::<usize>())
        }
        f => return kerr(format!("unknown memory format '{f}'")),
    };
    one(Tensor::Bool(ArrayD::from_elem(IxDyn(&[]), yes)))
}

/// `_local_scalar_dense` (`Tensor.item()`): the one element.
fn local_scalar_dense(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    if x.len() != 1 {
        return kerr(format!("item() of a tensor with {} elements", x.len()));
    }
    one(x.reshape(&[])?.cast(c.out_dtype(0)?))
}
