//! aten kernels, named exactly like torch.export's FX targets, with
//! PyTorch's semantics. Schema arguments that are not tensors are attributes
//! named after the schema argument (`self` is `self_arg`); tensors are
//! operands in schema order. The result dtype comes from the IR (PyTorch's
//! inferred type), so type promotion is "compute in the result type", except
//! for comparisons, which promote their operands.

mod more;

use super::{one, Ctx, Table};
use crate::error::{kerr, KResult};
use crate::interp::Value;
use crate::kernels::elementwise::{binary, compare, unary, where_, BinOp, CmpOp, UnOp};
use crate::kernels::linalg;
use crate::kernels::nn::{self, Pool2d};
use crate::kernels::reduce::{self, norm_axes, norm_axis, Reduction};
use crate::kernels::shape;
use crate::kernels::spatial::{self, Conv2d};
use crate::tensor::{result_type, DType, Dom, Tensor};
use ndarray::{ArrayD, Dimension, IxDyn};

/// The result type of `t op scalar` when the scalar is a wrapped number.
fn wrapped_type(t: &Tensor, s: &Tensor) -> DType {
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
fn other(c: &Ctx) -> KResult<Tensor> {
    match c.opt_arg(1) {
        Some(t) => Ok(t.clone()),
        None => c.scalar("other"),
    }
}

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

/// `t` rounded to `dtype` (itself when it has that dtype already).
fn in_dtype(t: Tensor, dtype: DType) -> Tensor {
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
fn opmath(dt: DType, b: &Tensor) -> DType {
    if matches!(dt, DType::F16 | DType::BF16) && b.ndim() == 0 {
        DType::F32
    } else {
        dt
    }
}

/// `a op b` computed directly in f32 when both operands and the result are
/// f32 and `op` is +, −, × or ÷: IEEE rounds those correctly in f32, and
/// computing them in f64 then rounding to f32 gives the same bits (f64 has
/// more than 2·24 + 2 significand bits), so the shortcut changes no result,
/// only skips two conversions of every element.
pub(super) fn f32_fast_path(
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
pub(super) fn f32_unary_fast_path(op: UnOp, dt: DType, x: &Tensor) -> Option<Tensor> {
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

// ---- shapes -------------------------------------------------------------

fn view(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let size = match c.opt_i64s("size")?.or(c.opt_i64s("shape")?) {
        Some(s) => shape::infer_shape(&s, x.len())?,
        None => c.out_shape(0)?,
    };
    one(x.reshape(&size)?)
}

/// Ops whose result is the input reshaped to the declared result type
/// (squeeze/unsqueeze/flatten family): the element order never changes.
fn reshape_to_result(c: &Ctx) -> KResult<Vec<Value>> {
    one(c.arg(0)?.reshape(&c.out_shape(0)?)?)
}

fn unsqueeze(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let mut s = x.shape();
    let d = c.i64_attr("dim")?;
    let d = norm_axis(d, s.len() + 1)?;
    s.insert(d, 1);
    one(x.reshape(&s)?)
}

fn squeeze(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let s = x.shape();
    let dims: Vec<usize> = match c.opt_i64s("dim")? {
        Some(d) => norm_axes(&d, s.len(), false)?,
        None => (0..s.len()).collect(),
    };
    let out: Vec<usize> = s
        .iter()
        .enumerate()
        .filter(|(i, n)| !(dims.contains(i) && **n == 1))
        .map(|(_, n)| *n)
        .collect();
    one(x.reshape(&out)?)
}

fn permute(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let perm = norm_axes_keep_order(&c.i64s_attr("dims")?, x.ndim())?;
    one(shape::permute(x, &perm)?)
}

fn norm_axes_keep_order(a: &[i64], rank: usize) -> KResult<Vec<usize>> {
    a.iter().map(|&d| norm_axis(d, rank)).collect()
}

fn transpose(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let r = x.ndim();
    if r < 2 {
        return one(x.clone());
    }
    let (a, b) = if c.name.ends_with(".default") {
        (0, 1)
    } else {
        (
            norm_axis(c.i64_attr("dim0")?, r)?,
            norm_axis(c.i64_attr("dim1")?, r)?,
        )
    };
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(a, b);
    one(shape::permute(x, &perm)?)
}

fn expand(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let size = c.i64s_attr("size")?;
    let xs = x.shape();
    let off = size.len().saturating_sub(xs.len());
    let target: Vec<usize> = size
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            if d == -1 && i >= off {
                xs[i - off]
            } else {
                d.max(0) as usize
            }
        })
        .collect();
    one(shape::expand(x, &target)?)
}

fn cat(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let ts: Vec<Tensor> = (0..c.n_args())
        .map(|i| c.arg(i).map(|t| t.cast(dt)))
        .collect::<KResult<_>>()?;
    let rank = ts.iter().map(|t| t.ndim()).max().unwrap_or(1);
    let d = norm_axis(c.i64_or("dim", 0)?, rank)?;
    one(shape::cat(&ts, d)?)
}

fn slice(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_or("dim", 0)?, x.ndim())?;
    let step = c.i64_or("step", 1)?;
    if step <= 0 {
        return kerr("slice step must be positive");
    }
    let (start, end) = (more::opt_sym_i64(c, "start")?, more::opt_sym_i64(c, "end")?);
    let (s, e) = shape::clamp_slice(start, end, x.shape()[d]);
    one(shape::slice(x, d, s, e, step as usize)?)
}

fn select(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let Some(i) = more::opt_sym_i64(c, "index")? else {
        return kerr("select needs an index");
    };
    one(shape::select(x, d, i)?)
}

fn index_select(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    one(shape::index_select(x, d, &c.arg(1)?.to_i64_vec())?)
}

fn gather(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let idx = c.arg(1)?.to_i128().mapv(|v| v as i64);
    one(shape::gather(x, d, &idx)?)
}

/// `x[i, :, j]`: the index tensors are the operands after `x`, one per
/// dim whose `indices_present` entry is true (the importer drops the
/// `None`s of `Tensor?[] indices`).
fn index(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let present: Vec<bool> = match c.attr("indices_present") {
        Some(a) => {
            let text = a.to_text();
            let inner = text
                .trim_start_matches("array<i1")
                .trim_start_matches(':')
                .trim_end_matches('>');
            inner
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| s == "true")
                .collect()
        }
        None => vec![true; c.n_args() - 1],
    };
    if present.iter().filter(|&&p| p).count() != c.n_args() - 1 {
        return kerr("indices_present does not match the number of index operands");
    }
    let mut idx = Vec::new();
    let mut next = 1;
    for p in present {
        if !p {
            idx.push(None);
            continue;
        }
        let t = c.arg(next)?;
        next += 1;
        if t.dtype() == DType::Bool {
            return kerr("boolean-mask indexing has a data-dependent shape and is not supported");
        }
        idx.push(Some(t.to_i128().mapv(|v| v as i64)));
    }
    one(shape::index(x, &idx)?)
}

fn embedding(c: &Ctx) -> KResult<Vec<Value>> {
    let (w, ids) = (c.arg(0)?, c.arg(1)?);
    let rows = shape::index_select(w, 0, &ids.to_i64_vec())?;
    let mut s = ids.shape();
    s.extend(&w.shape()[1..]);
    one(rows.reshape(&s)?)
}

fn flip(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    one(shape::flip(
        x,
        &norm_axes(&c.i64s_attr("dims")?, x.ndim(), false)?,
    ))
}

fn repeat(c: &Ctx) -> KResult<Vec<Value>> {
    let reps: Vec<usize> = c
        .i64s_attr("repeats")?
        .iter()
        .map(|&r| r.max(0) as usize)
        .collect();
    one(shape::tile(c.arg(0)?, &reps)?)
}

fn pad(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let v = c
        .opt_scalar("value")?
        .unwrap_or(Tensor::scalar_i128(0, DType::I64));
    one(shape::pad_constant(x, &c.i64s_attr("pad")?, &v)?)
}

fn split(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_or("dim", 0)?, x.ndim())?;
    let n = x.shape()[d];
    let sizes: Vec<usize> = if let Some(s) = c.opt_i64s("split_sizes")? {
        s.iter().map(|&v| v.max(0) as usize).collect()
    } else {
        let s = c.i64_attr("split_size")?.max(1) as usize;
        (0..n.div_ceil(s)).map(|i| s.min(n - i * s)).collect()
    };
    let mut out = Vec::new();
    let mut start = 0;
    for s in sizes {
        out.push(Value::tensor(shape::slice(x, d, start, start + s, 1)?));
        start += s;
    }
    Ok(out)
}

fn unbind(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_or("dim", 0)?, x.ndim())?;
    (0..x.shape()[d])
        .map(|i| Ok(Value::tensor(shape::select(x, d, i as i64)?)))
        .collect()
}

// ---- factories ----------------------------------------------------------

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

// ---- reductions ---------------------------------------------------------

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

// ---- linear algebra -----------------------------------------------------

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

fn pair(v: Option<Vec<i64>>, default: usize) -> [usize; 2] {
    match v.as_deref() {
        Some([a]) => [*a as usize, *a as usize],
        Some([a, b, ..]) => [*a as usize, *b as usize],
        _ => [default, default],
    }
}

/// One value per spatial dim from a schema list (`[1]` means all dims).
fn per_dim(v: Option<Vec<i64>>, k: usize, default: usize) -> KResult<Vec<usize>> {
    let v = v.unwrap_or_default();
    let out: Vec<i64> = match v.len() {
        0 => vec![default as i64; k],
        1 => vec![v[0]; k],
        n if n == k => v,
        n => return kerr(format!("{n} values for {k} spatial dims")),
    };
    if out.iter().any(|&x| x < 0) {
        return kerr(format!("negative convolution parameter {out:?}"));
    }
    Ok(out.into_iter().map(|x| x as usize).collect())
}

/// Any-rank and transposed convolution on the N-d kernels: zero padding
/// first for the plain form (the kernel correlates a padded input), the
/// transposed form takes padding and output_padding itself.
fn convolution_nd(c: &Ctx, dt: DType) -> KResult<Vec<Value>> {
    let (x, w) = (c.arg(0)?, c.arg(1)?);
    let k = x.ndim().saturating_sub(2);
    let transposed = c.bool_or("transposed", false)?;
    let p = spatial::ConvNd {
        stride: per_dim(c.opt_i64s("stride")?, k, 1)?,
        padding: per_dim(c.opt_i64s("padding")?, k, 0)?,
        dilation: per_dim(c.opt_i64s("dilation")?, k, 1)?,
        output_padding: per_dim(c.opt_i64s("output_padding")?, k, 0)?,
        groups: c.i64_or("groups", 1)?.max(0) as usize,
    };
    let wf = f64_of(w, dt);
    let mut y = if transposed {
        spatial::conv_transpose_nd(&f64_of(x, dt), &wf, &p)?
    } else {
        let pads: Vec<i64> = p
            .padding
            .iter()
            .rev()
            .flat_map(|&q| [q as i64, q as i64])
            .collect();
        let zero = Tensor::from_f64(ArrayD::zeros(IxDyn(&[])), dt);
        let padded = shape::pad_constant(&x.cast(dt), &pads, &zero)?;
        spatial::conv_nd(&padded.to_f64(), &wf, &p)?
    };
    if let Some(b) = c.opt_arg(2) {
        let mut bshape = vec![1; y.ndim()];
        bshape[1] = b.len();
        let b = f64_of(b, dt)
            .into_shape_with_order(IxDyn(&bshape))
            .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
        y = &y + &b;
    }
    one(Tensor::from_f64(y, dt))
}

fn convolution(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if c.bool_or("transposed", false)? || c.arg(0)?.ndim() == 5 {
        return convolution_nd(c, dt);
    }
    let (x, w) = (c.arg(0)?, c.arg(1)?);
    let one_d = x.ndim() == 3;
    // 1-d convolution runs as 2-d over a height of 1.
    let lifted = if one_d {
        let (xs, ws) = (x.shape(), w.shape());
        Some((
            x.reshape(&[xs[0], xs[1], 1, xs[2]])?,
            w.reshape(&[ws[0], ws[1], 1, ws[2]])?,
        ))
    } else {
        None
    };
    let (x, w) = lifted.as_ref().map_or((x, w), |(x, w)| (x, w));
    let lift = |v: Option<Vec<i64>>, d: usize| {
        if one_d {
            [d, pair(v, d)[0]]
        } else {
            pair(v, d)
        }
    };
    let p = Conv2d {
        stride: lift(c.opt_i64s("stride")?, 1),
        padding: if one_d {
            [0, pair(c.opt_i64s("padding")?, 0)[0]]
        } else {
            pair(c.opt_i64s("padding")?, 0)
        },
        dilation: lift(c.opt_i64s("dilation")?, 1),
        groups: c.i64_or("groups", 1)? as usize,
    };
    let mut y = spatial::conv2d(x, w, c.opt_arg(2), &p, dt)?;
    if one_d {
        let s = y.shape();
        y = y.reshape(&[s[0], s[1], s[3]])?;
    }
    one(y)
}

// ---- neural-network ops -------------------------------------------------

fn f64_of(t: &Tensor, dt: DType) -> ArrayD<f64> {
    t.cast(dt).to_f64()
}

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

fn pool_params(c: &Ctx, max: bool) -> KResult<Pool2d> {
    let kernel = pair(c.opt_i64s("kernel_size")?, 1);
    let stride = match c.opt_i64s("stride")? {
        Some(s) if !s.is_empty() => pair(Some(s), 1),
        _ => kernel,
    };
    Ok(Pool2d {
        kernel,
        stride,
        padding: pair(c.opt_i64s("padding")?, 0),
        dilation: if max {
            pair(c.opt_i64s("dilation")?, 1)
        } else {
            [1, 1]
        },
        ceil_mode: c.bool_or("ceil_mode", false)?,
    })
}

fn max_pool2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let p = pool_params(c, true)?;
    let (v, i) = nn::max_pool2d_tensor(c.arg(0)?, &p, dt)?;
    let mut out = vec![Value::tensor(v)];
    if c.op.num_results() > 1 {
        out.push(Value::tensor(Tensor::I64(i).cast(c.out_dtype(1)?)));
    }
    Ok(out)
}

fn avg_pool2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let p = pool_params(c, false)?;
    let div = c.opt_i64("divisor_override")?.map(|d| d as f64);
    let (v, _) = nn::pool2d_with_indices(
        &f64_of(c.arg(0)?, dt),
        &p,
        false,
        c.bool_or("count_include_pad", true)?,
        div,
    )?;
    one(Tensor::from_f64(v, dt))
}

/// `avg_pool3d` (floor mode): window sums of the zero-padded input divided
/// by the window volume, by the count of non-padding elements
/// (`count_include_pad = false`), or by `divisor_override`.
fn avg_pool3d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    if c.bool_or("ceil_mode", false)? {
        return kerr("avg_pool3d with ceil_mode is not supported");
    }
    let kernel = per_dim(c.opt_i64s("kernel_size")?, 3, 1)?;
    let stride = match c.opt_i64s("stride")? {
        Some(s) if !s.is_empty() => per_dim(Some(s), 3, 1)?,
        _ => kernel.clone(),
    };
    let padding = per_dim(c.opt_i64s("padding")?, 3, 0)?;
    let pads: Vec<i64> = padding
        .iter()
        .rev()
        .flat_map(|&q| [q as i64, q as i64])
        .collect();
    let x = c.arg(0)?.cast(dt);
    let zero = Tensor::from_f64(ArrayD::zeros(IxDyn(&[])), dt);
    let padded = shape::pad_constant(&x, &pads, &zero)?;
    let dilation = [1, 1, 1];
    let sums = spatial::sum_pool_nd(&padded.to_f64(), &kernel, &stride, &dilation)?;
    let out = if let Some(d) = c.opt_i64("divisor_override")? {
        sums / d as f64
    } else if c.bool_or("count_include_pad", true)? || padding.iter().all(|&q| q == 0) {
        sums / kernel.iter().product::<usize>() as f64
    } else {
        let ones = Tensor::from_f64(ArrayD::ones(x.shape()), DType::F64);
        let counts = shape::pad_constant(
            &ones,
            &pads,
            &Tensor::from_f64(ArrayD::zeros(IxDyn(&[])), DType::F64),
        )?;
        sums / spatial::sum_pool_nd(&counts.to_f64(), &kernel, &stride, &dilation)?
    };
    one(Tensor::from_f64(out, dt))
}

/// `adaptive_max_pool2d`: window `i` of `n` over a dim of size `s` spans
/// `[floor(i·s/n), ceil((i+1)·s/n))`; the maximum (NaN wins, the first of
/// equal maxima) and its flat index `h·W + w` in its plane.
fn adaptive_max_pool2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = f64_of(c.arg(0)?, dt);
    let [oh, ow] = pair(c.opt_i64s("output_size")?, 1);
    let r = x.ndim();
    if r < 3 || oh == 0 || ow == 0 {
        return kerr(
            "adaptive_max_pool2d expects [N, C, H, W] or [C, H, W] and a positive output size",
        );
    }
    let (h, w) = (x.shape()[r - 2], x.shape()[r - 1]);
    let planes = x.len() / (h * w).max(1);
    let flat: Vec<f64> = x.iter().copied().collect();
    let (mut vals, mut idx) = (
        Vec::with_capacity(planes * oh * ow),
        Vec::with_capacity(planes * oh * ow),
    );
    for p in 0..planes {
        let plane = &flat[p * h * w..(p + 1) * h * w];
        for i in 0..oh {
            let (h0, h1) = (i * h / oh, ((i + 1) * h).div_ceil(oh));
            for j in 0..ow {
                let (w0, w1) = (j * w / ow, ((j + 1) * w).div_ceil(ow));
                let (mut best, mut at) = (f64::NEG_INFINITY, h0 * w + w0);
                for y in h0..h1 {
                    for z in w0..w1 {
                        let v = plane[y * w + z];
                        if v > best || (v.is_nan() && !best.is_nan()) {
                            best = v;
                            at = y * w + z;
                        }
                    }
                }
                vals.push(best);
                idx.push(at as i128);
            }
        }
    }
    let mut shape = x.shape().to_vec();
    shape[r - 2] = oh;
    shape[r - 1] = ow;
    let vals = ArrayD::from_shape_vec(IxDyn(&shape), vals).expect("sizes agree");
    let idx = ArrayD::from_shape_vec(IxDyn(&shape), idx).expect("sizes agree");
    Ok(vec![
        Value::tensor(Tensor::from_f64(vals, dt)),
        Value::tensor(Tensor::from_dom(Dom::I(idx), DType::I64)),
    ])
}

fn adaptive_avg_pool2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let [oh, ow] = pair(c.opt_i64s("output_size")?, 1);
    one(Tensor::from_f64(
        nn::adaptive_avg_pool2d(&f64_of(c.arg(0)?, dt), oh, ow)?,
        dt,
    ))
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

/// Reflection / replication padding of the last `pad.len() / 2` dims
/// (PyTorch's order: last dim first, (before, after) pairs).
fn pad_by_index(c: &Ctx, reflect: bool) -> KResult<Vec<Value>> {
    let mut x = c.arg(0)?.clone();
    let pads = c.i64s_attr("padding")?;
    let r = x.ndim();
    if pads.len() % 2 != 0 || pads.len() / 2 > r {
        return kerr("padding must be (before, after) pairs, at most one per dim");
    }
    for k in 0..pads.len() / 2 {
        let d = r - 1 - k;
        let n = x.shape()[d] as i64;
        let (lo, hi) = (pads[2 * k], pads[2 * k + 1]);
        if reflect && (lo >= n || hi >= n) {
            return kerr(format!(
                "reflection padding ({lo}, {hi}) must be smaller than the dimension size {n}"
            ));
        }
        let idx: Vec<i64> = (-lo..n + hi)
            .map(|i| {
                if reflect {
                    let i = i.abs();
                    if i >= n {
                        2 * (n - 1) - i
                    } else {
                        i
                    }
                } else {
                    i.clamp(0, n - 1)
                }
            })
            .collect();
        x = shape::index_select(&x, d, &idx)?;
    }
    one(x)
}

/// `[N, C·r², H, W] → [N, C, H·r, W·r]`.
fn pixel_shuffle(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let r = c.i64_attr("upscale_factor")? as usize;
    let s = x.shape();
    let k = s.len();
    if k < 3 || r == 0 || s[k - 3] % (r * r) != 0 {
        return kerr("pixel_shuffle needs [.., C·r², H, W]");
    }
    let (ch, h, w) = (s[k - 3] / (r * r), s[k - 2], s[k - 1]);
    let lead = &s[..k - 3];
    let mut six: Vec<usize> = lead.to_vec();
    six.extend([ch, r, r, h, w]);
    let b = lead.len();
    let mut perm: Vec<usize> = (0..b).collect();
    perm.extend([b, b + 3, b + 1, b + 4, b + 2]);
    let y = shape::permute(&x.reshape(&six)?, &perm)?;
    let mut out: Vec<usize> = lead.to_vec();
    out.extend([ch, h * r, w * r]);
    one(y.reshape(&out)?)
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

/// Nearest-neighbour upsampling of the trailing spatial dims to the result
/// shape (PyTorch's `nearest`: src = floor(dst · scale)).
fn upsample_nearest(c: &Ctx) -> KResult<Vec<Value>> {
    let mut x = c.arg(0)?.clone();
    let out = c.out_shape(0)?;
    let r = x.ndim();
    let scales = c
        .attr("scale_factors")
        .and_then(|a| a.as_array())
        .map(|v| v.iter().filter_map(|a| a.as_f64()).collect::<Vec<f64>>());
    for d in 2..r {
        let (n_in, n_out) = (x.shape()[d], out[d]);
        let scale = match (&scales, c.opt_i64s("output_size")?) {
            (Some(s), None) if s.len() == r - 2 => 1.0 / s[d - 2],
            _ => n_in as f64 / n_out as f64,
        };
        let idx: Vec<i64> = (0..n_out)
            .map(|o| ((o as f64 * scale).floor() as i64).min(n_in as i64 - 1))
            .collect();
        x = shape::index_select(&x, d, &idx)?;
    }
    one(x)
}

/// Bilinear upsampling of `[N, C, H, W]` to the result shape.
fn upsample_bilinear(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = f64_of(c.arg(0)?, dt);
    let out = c.out_shape(0)?;
    if x.ndim() != 4 {
        return kerr("upsample_bilinear2d expects [N, C, H, W]");
    }
    let align = c.bool_or("align_corners", false)?;
    let scales = c
        .attr("scale_factors")
        .and_then(|a| a.as_array())
        .map(|v| v.iter().filter_map(|a| a.as_f64()).collect::<Vec<f64>>());
    let has_size = c.opt_i64s("output_size")?.is_some();
    let (h, w) = (x.shape()[2], x.shape()[3]);
    let (oh, ow) = (out[2], out[3]);
    let coord = |o: usize, n_in: usize, n_out: usize, k: usize| -> (usize, usize, f64) {
        let src = if align {
            if n_out > 1 {
                o as f64 * (n_in as f64 - 1.0) / (n_out as f64 - 1.0)
            } else {
                0.0
            }
        } else {
            let scale = match (&scales, has_size) {
                (Some(s), false) if s.len() == 2 => 1.0 / s[k],
                _ => n_in as f64 / n_out as f64,
            };
            ((o as f64 + 0.5) * scale - 0.5).max(0.0)
        };
        let i0 = (src.floor() as usize).min(n_in - 1);
        let i1 = (i0 + 1).min(n_in - 1);
        (i0, i1, src - i0 as f64)
    };
    let mut y = ArrayD::<f64>::zeros(IxDyn(&out));
    for n in 0..out[0] {
        for ch in 0..out[1] {
            for i in 0..oh {
                let (y0, y1, fy) = coord(i, h, oh, 0);
                for j in 0..ow {
                    let (x0, x1, fx) = coord(j, w, ow, 1);
                    let v = |a: usize, b: usize| x[[n, ch, a, b]];
                    y[[n, ch, i, j]] = (1.0 - fy) * ((1.0 - fx) * v(y0, x0) + fx * v(y0, x1))
                        + fy * ((1.0 - fx) * v(y1, x0) + fx * v(y1, x1));
                }
            }
        }
    }
    one(Tensor::from_f64(y, dt))
}

/// `self[indices] = values` (or `+=` with `accumulate`); operands: self,
/// the index tensors, values last.
fn index_put(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let n = c.n_args();
    if n < 3 {
        return kerr("index_put expects self, indices..., values");
    }
    let x = c.arg(0)?;
    let idx: Vec<Option<ArrayD<i64>>> = (1..n - 1)
        .map(|i| c.arg(i).map(|t| Some(t.to_i128().mapv(|v| v as i64))))
        .collect::<KResult<_>>()?;
    let (shape_b, pos) = shape::index_positions(&x.shape(), &idx)?;
    let vals = shape::expand(&c.arg(n - 1)?.cast(dt), &shape_b)?;
    let acc = c.bool_or("accumulate", false)?;
    let flat = |p: &Vec<usize>, s: &[usize]| p.iter().zip(s).fold(0usize, |a, (&i, &n)| a * n + i);
    let xs = x.shape();
    match (x.dom_as(dt), vals.dom()) {
        (Dom::F(mut a), Dom::F(v)) => {
            let (sl, vv): (&mut [f64], Vec<f64>) = (
                a.as_slice_mut()
                    .ok_or_else(|| crate::error::InterpError::Kernel("layout".into()))?,
                v.iter().copied().collect(),
            );
            for (p, val) in pos.iter().zip(vv) {
                let k = flat(p, &xs);
                sl[k] = if acc { sl[k] + val } else { val };
            }
            one(Tensor::from_f64(a, dt))
        }
        (Dom::I(mut a), Dom::I(v)) => {
            let (sl, vv): (&mut [i128], Vec<i128>) = (
                a.as_slice_mut()
                    .ok_or_else(|| crate::error::InterpError::Kernel("layout".into()))?,
                v.iter().copied().collect(),
            );
            for (p, val) in pos.iter().zip(vv) {
                let k = flat(p, &xs);
                sl[k] = if acc { sl[k].wrapping_add(val) } else { val };
            }
            one(Tensor::from_i128(a, dt))
        }
        (Dom::B(mut a), Dom::B(v)) => {
            let (sl, vv): (&mut [bool], Vec<bool>) = (
                a.as_slice_mut()
                    .ok_or_else(|| crate::error::InterpError::Kernel("layout".into()))?,
                v.iter().copied().collect(),
            );
            for (p, val) in pos.iter().zip(vv) {
                let k = flat(p, &xs);
                sl[k] = if acc { sl[k] | val } else { val };
            }
            one(Tensor::Bool(a))
        }
        _ => kerr("index_put of complex tensors is not supported"),
    }
}

/// `scatter_reduce.two`: every `src` element reduces into `out[.., index,
/// ..]` along `dim` with `sum`, `prod`, `mean`, `amax` or `amin`; with
/// `include_self = false` a target's original value does not take part (a
/// target nothing scatters to keeps it). `mean` divides by the number of
/// contributions (floor division on integers); `amax`/`amin` propagate NaN.
fn scatter_reduce(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let index = c.arg(1)?.to_i128().mapv(|v| v as i64);
    let src = c.arg(2)?.cast(dt).dom();
    let reduce = c.opt_str("reduce").unwrap_or_default();
    let include_self = c.bool_or("include_self", true)?;
    let xs = x.shape();
    let n = xs[d] as i64;
    // Contributions per target, in index order.
    let mut contributions: std::collections::BTreeMap<Vec<usize>, Vec<Vec<usize>>> =
        Default::default();
    for (pos, &i) in index.indexed_iter() {
        let p = pos.slice();
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return kerr(format!(
                "scatter_reduce index {i} out of range for size {n}"
            ));
        }
        let mut target = p.to_vec();
        target[d] = j as usize;
        contributions.entry(target).or_default().push(p.to_vec());
    }
    let mut out = x.dom_as(dt);
    match (&mut out, &src) {
        (Dom::F(a), Dom::F(sv)) => {
            for (t, from) in &contributions {
                let t = IxDyn(t);
                let mut vals: Vec<f64> = from.iter().map(|p| sv[IxDyn(p)]).collect();
                if include_self {
                    vals.insert(0, a[&t]);
                }
                a[&t] = match reduce.as_str() {
                    "sum" => vals.iter().sum(),
                    "prod" => vals.iter().product(),
                    "mean" => vals.iter().sum::<f64>() / vals.len() as f64,
                    "amax" => vals.iter().copied().fold(f64::NEG_INFINITY, |m, v| {
                        if m.is_nan() || v.is_nan() {
                            f64::NAN
                        } else {
                            m.max(v)
                        }
                    }),
                    "amin" => vals.iter().copied().fold(f64::INFINITY, |m, v| {
                        if m.is_nan() || v.is_nan() {
                            f64::NAN
                        } else {
                            m.min(v)
                        }
                    }),
                    other => return kerr(format!("unknown scatter_reduce reduction '{other}'")),
                };
            }
        }
        (Dom::I(a), Dom::I(sv)) => {
            for (t, from) in &contributions {
                let t = IxDyn(t);
                let mut vals: Vec<i128> = from.iter().map(|p| sv[IxDyn(p)]).collect();
                if include_self {
                    vals.insert(0, a[&t]);
                }
                a[&t] = match reduce.as_str() {
                    "sum" => vals.iter().sum(),
                    "prod" => vals.iter().fold(1i128, |m, v| m.wrapping_mul(*v)),
                    // PyTorch sums in the dtype (wrapping), then floor-divides.
                    "mean" => {
                        wrap_int(vals.iter().sum::<i128>(), dt).div_euclid(vals.len() as i128)
                    }
                    "amax" => *vals.iter().max().expect("non-empty"),
                    "amin" => *vals.iter().min().expect("non-empty"),
                    other => return kerr(format!("unknown scatter_reduce reduction '{other}'")),
                };
            }
        }
        _ => return kerr("scatter_reduce supports float and integer tensors"),
    }
    one(Tensor::from_dom(out, dt))
}

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

/// `v` wrapped to the integer dtype `dt` (two's complement at its width).
fn wrap_int(v: i128, dt: DType) -> i128 {
    let bits = 8 * dt.size_of() as u32;
    let m = v.rem_euclid(1i128 << bits);
    if dt.is_signed_int() && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// `masked_scatter`: the positions where `mask` (broadcast to `self`) is
/// true take the elements of `source` in row-major order.
fn masked_scatter(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let mask = shape::expand(c.arg(1)?, &x.shape())?.to_bool();
    let source = c.arg(2)?.cast(dt);
    let needed = mask.iter().filter(|&&m| m).count();
    if needed > source.len() {
        return kerr(format!(
            "masked_scatter needs {needed} source elements, the source has {}",
            source.len()
        ));
    }
    let (mut out, src) = (x.dom_as(dt), source.dom());
    let mut next = 0usize;
    macro_rules! fill {
        ($a:expr, $s:expr) => {{
            let flat: Vec<_> = $s.iter().cloned().collect();
            for (v, &m) in $a.iter_mut().zip(mask.iter()) {
                if m {
                    *v = flat[next].clone();
                    next += 1;
                }
            }
        }};
    }
    match (&mut out, &src) {
        (Dom::F(a), Dom::F(s)) => fill!(a, s),
        (Dom::I(a), Dom::I(s)) => fill!(a, s),
        (Dom::B(a), Dom::B(s)) => fill!(a, s),
        (Dom::C(a), Dom::C(s)) => fill!(a, s),
        _ => return kerr("masked_scatter operands disagree in kind"),
    }
    one(Tensor::from_dom(out, dt))
}

/// A scatter's result dtype, `x`, `src`, and its `(target, source)` position pairs.
pub(super) type ScatterOperands = (DType, Dom, Dom, Vec<(IxDyn, IxDyn)>);

/// The operands of a scatter along `dim`: the result dtype, `x` and `src` (a
/// tensor, or the scalar `value` expanded to the index's shape) in that
/// dtype, and each `(target, source)` position pair in index order, every
/// index checked against `x`'s size (negative indices counting from the end).
pub(super) fn scatter_operands(c: &Ctx) -> KResult<ScatterOperands> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let index = c.arg(1)?.to_i128().mapv(|v| v as i64);
    let src = match c.opt_arg(2) {
        Some(s) => s.cast(dt),
        None => shape::expand(&c.scalar("value")?.cast(dt), index.shape())?,
    };
    let (xs, ss) = (x.shape(), src.shape());
    let n = xs[d] as i64;
    let mut sites = Vec::with_capacity(index.len());
    for (pos, &i) in index.indexed_iter() {
        let p = pos.slice();
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n || p.iter().zip(&ss).any(|(&q, &m)| q >= m) {
            return kerr(format!("scatter index {i} out of range for size {n}"));
        }
        let mut target = p.to_vec();
        target[d] = j as usize;
        sites.push((IxDyn(&target), IxDyn(p)));
    }
    Ok((dt, x.dom_as(dt), src.dom(), sites))
}

/// `scatter` / `scatter_add`: `out[.., index[i,j,k], ..] = src[i,j,k]` along `dim`.
fn scatter(c: &Ctx) -> KResult<Vec<Value>> {
    let add =
        c.name.starts_with("aten.scatter_add") || c.opt_str("reduce").as_deref() == Some("add");
    let (dt, mut a, s, sites) = scatter_operands(c)?;
    for (t, sp) in sites {
        match (&mut a, &s) {
            (Dom::F(a), Dom::F(s)) => a[&t] = if add { a[&t] + s[&sp] } else { s[&sp] },
            (Dom::I(a), Dom::I(s)) => {
                a[&t] = if add {
                    a[&t].wrapping_add(s[&sp])
                } else {
                    s[&sp]
                }
            }
            (Dom::B(a), Dom::B(s)) => a[&t] = if add { a[&t] | s[&sp] } else { s[&sp] },
            _ => return kerr("scatter of complex tensors is not supported"),
        }
    }
    one(Tensor::from_dom(a, dt))
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

pub fn register(t: &mut Table) {
    more::register(t);
    // the exporter's assertions
    t.insert("aten._assert_scalar.default", assert_scalar);
    t.insert("aten._assert_tensor_metadata.default", metadata_guard);
    t.insert("aten.sym_constrain_range.default", metadata_guard);
    t.insert("aten.sym_constrain_range_for_size.default", metadata_guard);
    // elementwise binary
    t.insert("aten.add.Tensor", |c| add_sub(c, BinOp::Add));
    t.insert("aten.add.Scalar", |c| add_sub(c, BinOp::Add));
    t.insert("aten.sub.Tensor", |c| add_sub(c, BinOp::Sub));
    t.insert("aten.sub.Scalar", |c| add_sub(c, BinOp::Sub));
    t.insert("aten.rsub.Scalar", rsub);
    t.insert("aten.rsub.Tensor", rsub);
    t.insert("aten.mul.Tensor", |c| bin(c, BinOp::Mul));
    t.insert("aten.mul.Scalar", |c| bin(c, BinOp::Mul));
    t.insert("aten.div.Tensor", div);
    t.insert("aten.div.Scalar", div);
    t.insert("aten.div.Tensor_mode", div);
    t.insert("aten.div.Scalar_mode", div);
    t.insert("aten.true_divide.Tensor", div);
    t.insert("aten.floor_divide.default", |c| bin(c, BinOp::FloorDiv));
    t.insert("aten.remainder.Tensor", |c| bin(c, BinOp::Remainder));
    t.insert("aten.remainder.Scalar", |c| bin(c, BinOp::Remainder));
    t.insert("aten.fmod.Tensor", |c| bin(c, BinOp::Fmod));
    t.insert("aten.fmod.Scalar", |c| bin(c, BinOp::Fmod));
    t.insert("aten.pow.Tensor_Tensor", pow_tensor_scalar);
    t.insert("aten.pow.Tensor_Scalar", pow_tensor_scalar);
    t.insert("aten.pow.Scalar", pow_scalar_base);
    t.insert("aten.maximum.default", |c| bin(c, BinOp::Maximum));
    t.insert("aten.minimum.default", |c| bin(c, BinOp::Minimum));
    t.insert("aten.atan2.default", |c| bin(c, BinOp::Atan2));
    t.insert("aten.bitwise_and.Tensor", |c| bin(c, BinOp::BitAnd));
    t.insert("aten.sort.default", sort);
    t.insert("aten.sym_size.int", sym_size);
    t.insert("aten.adaptive_max_pool2d.default", adaptive_max_pool2d);
    t.insert("aten.scatter_reduce.two", scatter_reduce);
    t.insert("aten.masked_scatter.default", masked_scatter);
    t.insert("aten.avg_pool3d.default", avg_pool3d);
    t.insert("aten.sort.stable", sort);
    t.insert("aten.topk.default", topk);
    t.insert("aten.__lshift__.Scalar", |c| shift(c, true));
    t.insert("aten.__lshift__.Tensor", |c| shift(c, true));
    t.insert("aten.__rshift__.Scalar", |c| shift(c, false));
    t.insert("aten.__rshift__.Tensor", |c| shift(c, false));
    t.insert("aten.bitwise_left_shift.Tensor", |c| shift(c, true));
    t.insert("aten.bitwise_right_shift.Tensor", |c| shift(c, false));
    t.insert("aten.bitwise_or.Tensor", |c| bin(c, BinOp::BitOr));
    t.insert("aten.bitwise_xor.Tensor", |c| bin(c, BinOp::BitXor));
    t.insert("aten.logical_and.default", |c| bin(c, BinOp::LogicalAnd));
    t.insert("aten.logical_or.default", |c| bin(c, BinOp::LogicalOr));
    t.insert("aten.logical_xor.default", |c| bin(c, BinOp::LogicalXor));
    // comparisons
    for (n, op) in [
        ("eq", CmpOp::Eq),
        ("ne", CmpOp::Ne),
        ("lt", CmpOp::Lt),
        ("le", CmpOp::Le),
        ("gt", CmpOp::Gt),
        ("ge", CmpOp::Ge),
    ] {
        let k: super::Kernel = match op {
            CmpOp::Eq => |c| cmp(c, CmpOp::Eq),
            CmpOp::Ne => |c| cmp(c, CmpOp::Ne),
            CmpOp::Lt => |c| cmp(c, CmpOp::Lt),
            CmpOp::Le => |c| cmp(c, CmpOp::Le),
            CmpOp::Gt => |c| cmp(c, CmpOp::Gt),
            CmpOp::Ge => |c| cmp(c, CmpOp::Ge),
        };
        let (a, b): (&'static str, &'static str) = match n {
            "eq" => ("aten.eq.Tensor", "aten.eq.Scalar"),
            "ne" => ("aten.ne.Tensor", "aten.ne.Scalar"),
            "lt" => ("aten.lt.Tensor", "aten.lt.Scalar"),
            "le" => ("aten.le.Tensor", "aten.le.Scalar"),
            "gt" => ("aten.gt.Tensor", "aten.gt.Scalar"),
            _ => ("aten.ge.Tensor", "aten.ge.Scalar"),
        };
        t.insert(a, k);
        t.insert(b, k);
    }
    t.insert("aten.where.self", where_self);
    t.insert("aten.masked_fill.Scalar", masked_fill);
    t.insert("aten.masked_fill.Tensor", masked_fill);
    t.insert("aten.clamp.default", clamp);
    t.insert("aten.clamp.Tensor", clamp);
    t.insert("aten.clamp_min.default", |c| {
        let dt = c.out_dtype(0)?;
        one(Tensor::from_dom(
            binary(
                BinOp::Maximum,
                &c.arg(0)?.dom_as(dt),
                &c.scalar("min")?.dom_as(dt),
            )?,
            dt,
        ))
    });
    t.insert("aten.clamp_max.default", |c| {
        let dt = c.out_dtype(0)?;
        one(Tensor::from_dom(
            binary(
                BinOp::Minimum,
                &c.arg(0)?.dom_as(dt),
                &c.scalar("max")?.dom_as(dt),
            )?,
            dt,
        ))
    });
    // elementwise unary
    t.insert("aten.neg.default", |c| un(c, UnOp::Neg));
    t.insert("aten.abs.default", |c| un(c, UnOp::Abs));
    t.insert("aten.relu.default", |c| un(c, UnOp::Relu));
    t.insert("aten.exp.default", |c| un(c, UnOp::Exp));
    t.insert("aten.exp2.default", |c| un(c, UnOp::Exp2));
    t.insert("aten.expm1.default", |c| un(c, UnOp::Expm1));
    t.insert("aten.log.default", |c| un(c, UnOp::Log));
    t.insert("aten.log2.default", |c| un(c, UnOp::Log2));
    t.insert("aten.log10.default", |c| un(c, UnOp::Log10));
    t.insert("aten.log1p.default", |c| un(c, UnOp::Log1p));
    t.insert("aten.sqrt.default", |c| un(c, UnOp::Sqrt));
    t.insert("aten.rsqrt.default", |c| un(c, UnOp::Rsqrt));
    t.insert("aten.reciprocal.default", |c| un(c, UnOp::Reciprocal));
    t.insert("aten.sin.default", |c| un(c, UnOp::Sin));
    t.insert("aten.cos.default", |c| un(c, UnOp::Cos));
    t.insert("aten.tan.default", |c| un(c, UnOp::Tan));
    t.insert("aten.asin.default", |c| un(c, UnOp::Asin));
    t.insert("aten.acos.default", |c| un(c, UnOp::Acos));
    t.insert("aten.atan.default", |c| un(c, UnOp::Atan));
    t.insert("aten.sinh.default", |c| un(c, UnOp::Sinh));
    t.insert("aten.cosh.default", |c| un(c, UnOp::Cosh));
    t.insert("aten.tanh.default", |c| un(c, UnOp::Tanh));
    t.insert("aten.asinh.default", |c| un(c, UnOp::Asinh));
    t.insert("aten.acosh.default", |c| un(c, UnOp::Acosh));
    t.insert("aten.atanh.default", |c| un(c, UnOp::Atanh));
    t.insert("aten.sigmoid.default", |c| un(c, UnOp::Sigmoid));
    t.insert("aten.silu.default", |c| un(c, UnOp::Silu));
    t.insert("aten.erf.default", |c| un(c, UnOp::Erf));
    t.insert("aten.gelu.default", gelu);
    t.insert("aten.floor.default", |c| un(c, UnOp::Floor));
    t.insert("aten.ceil.default", |c| un(c, UnOp::Ceil));
    t.insert("aten.round.default", |c| un(c, UnOp::Round));
    t.insert("aten.trunc.default", |c| un(c, UnOp::Trunc));
    t.insert("aten.sign.default", |c| un(c, UnOp::Sign));
    t.insert("aten.square.default", |c| un(c, UnOp::Square));
    t.insert("aten.logical_not.default", |c| un_pred(c, UnOp::LogicalNot));
    t.insert("aten.bitwise_not.default", |c| un(c, UnOp::BitwiseNot));
    t.insert("aten.isnan.default", |c| un_pred(c, UnOp::IsNan));
    t.insert("aten.isinf.default", |c| un_pred(c, UnOp::IsInf));
    t.insert("aten.hardtanh.default", hardtanh);
    t.insert("aten.leaky_relu.default", leaky_relu);
    t.insert("aten.elu.default", elu);
    t.insert("aten.softplus.default", softplus);
    t.insert("aten.hardswish.default", |c| {
        unf(c, |x| x * (x + 3.0).clamp(0.0, 6.0) / 6.0)
    });
    t.insert("aten.hardsigmoid.default", |c| {
        unf(c, |x| (x + 3.0).clamp(0.0, 6.0) / 6.0)
    });
    t.insert("aten.mish.default", |c| {
        unf(c, |x| {
            x * (if x > 20.0 { x } else { x.exp().ln_1p() }).tanh()
        })
    });
    // casts and copies
    for n in [
        "aten._to_copy.default",
        "aten.to.dtype",
        "aten.clone.default",
        "aten.alias.default",
        "aten.detach.default",
        "aten.lift_fresh_copy.default",
        "aten.contiguous.default",
    ] {
        t.insert(n, copy_cast);
    }
    t.insert("aten.copy.default", copy);
    // shapes
    t.insert("aten.view.default", view);
    t.insert("aten._unsafe_view.default", view);
    t.insert("aten.reshape.default", view);
    t.insert("aten.flatten.using_ints", reshape_to_result);
    t.insert("aten.unsqueeze.default", unsqueeze);
    t.insert("aten.squeeze.dim", squeeze);
    t.insert("aten.squeeze.dims", squeeze);
    t.insert("aten.squeeze.default", squeeze);
    t.insert("aten.permute.default", permute);
    t.insert("aten.transpose.int", transpose);
    t.insert("aten.t.default", transpose);
    t.insert("aten.expand.default", expand);
    t.insert("aten.cat.default", cat);
    t.insert("aten.slice.Tensor", slice);
    t.insert("aten.select.int", select);
    t.insert("aten.index_select.default", index_select);
    t.insert("aten.gather.default", gather);
    t.insert("aten.index.Tensor", index);
    t.insert("aten.index_put.default", index_put);
    t.insert("aten.scatter.src", scatter);
    t.insert("aten.scatter.value", scatter);
    t.insert("aten.scatter_add.default", scatter);
    t.insert("aten.embedding.default", embedding);
    t.insert("aten.flip.default", flip);
    t.insert("aten.repeat.default", repeat);
    t.insert("aten.constant_pad_nd.default", pad);
    t.insert("aten.split_with_sizes.default", split);
    t.insert("aten.split.Tensor", split);
    t.insert("aten.unbind.int", unbind);
    // factories
    t.insert("aten.full.default", full);
    t.insert("aten.full_like.default", full);
    t.insert("aten.zeros.default", full);
    t.insert("aten.zeros_like.default", full);
    t.insert("aten.ones.default", full);
    t.insert("aten.ones_like.default", full);
    t.insert("aten.scalar_tensor.default", full);
    t.insert("aten.arange.start_step", arange);
    t.insert("aten.arange.start", arange);
    t.insert("aten.arange.default", arange);
    // reductions
    t.insert("aten.sum.dim_IntList", |c| reduce_op(c, Reduction::Sum));
    t.insert("aten.sum.default", |c| reduce_op(c, Reduction::Sum));
    t.insert("aten.mean.dim", |c| reduce_op(c, Reduction::Mean));
    t.insert("aten.mean.default", |c| reduce_op(c, Reduction::Mean));
    t.insert("aten.prod.dim_int", |c| reduce_op(c, Reduction::Prod));
    t.insert("aten.prod.default", |c| reduce_op(c, Reduction::Prod));
    t.insert("aten.amax.default", |c| reduce_op(c, Reduction::Max));
    t.insert("aten.amin.default", |c| reduce_op(c, Reduction::Min));
    t.insert("aten.any.dim", |c| reduce_op(c, Reduction::Any));
    t.insert("aten.any.dims", |c| reduce_op(c, Reduction::Any));
    t.insert("aten.any.default", |c| reduce_op(c, Reduction::Any));
    t.insert("aten.all.dim", |c| reduce_op(c, Reduction::All));
    t.insert("aten.all.default", |c| reduce_op(c, Reduction::All));
    t.insert("aten.var.correction", var);
    t.insert("aten.var.dim", var);
    t.insert("aten.argmax.default", |c| arg_red(c, true));
    t.insert("aten.argmin.default", |c| arg_red(c, false));
    t.insert("aten.max.dim", |c| max_min_dim(c, true));
    t.insert("aten.min.dim", |c| max_min_dim(c, false));
    t.insert("aten.cumsum.default", cumsum);
    t.insert("aten.cumprod.default", cumsum);
    // linear algebra
    t.insert("aten.mm.default", matmul);
    t.insert("aten.bmm.default", matmul);
    t.insert("aten.matmul.default", matmul);
    t.insert("aten.addmm.default", addmm);
    t.insert("aten.linear.default", linear);
    t.insert("aten.convolution.default", convolution);
    t.insert("aten.conv2d.default", convolution);
    t.insert("aten.conv1d.default", convolution);
    // neural-network ops
    t.insert("aten._softmax.default", |c| softmax(c, false));
    t.insert("aten.softmax.int", |c| softmax(c, false));
    t.insert("aten._log_softmax.default", |c| softmax(c, true));
    t.insert("aten.log_softmax.int", |c| softmax(c, true));
    t.insert("aten.max_pool2d_with_indices.default", max_pool2d);
    t.insert("aten.max_pool2d.default", max_pool2d);
    t.insert("aten.avg_pool2d.default", avg_pool2d);
    t.insert("aten.adaptive_avg_pool2d.default", adaptive_avg_pool2d);
    t.insert("aten._adaptive_avg_pool2d.default", adaptive_avg_pool2d);
    t.insert("aten.native_layer_norm.default", native_layer_norm);
    t.insert("aten.layer_norm.default", native_layer_norm);
    t.insert("aten.native_group_norm.default", group_norm);
    t.insert("aten.group_norm.default", group_norm);
    t.insert(
        "aten._native_batch_norm_legit_no_training.default",
        batch_norm,
    );
    t.insert("aten.batch_norm.default", batch_norm);
    t.insert("aten.scaled_dot_product_attention.default", sdpa);
    t.insert("aten.instance_norm.default", instance_norm);
    t.insert("aten.pixel_shuffle.default", pixel_shuffle);
    for n in [
        "aten.reflection_pad1d.default",
        "aten.reflection_pad2d.default",
        "aten.reflection_pad3d.default",
    ] {
        t.insert(n, |c| pad_by_index(c, true));
    }
    for n in [
        "aten.replication_pad1d.default",
        "aten.replication_pad2d.default",
        "aten.replication_pad3d.default",
    ] {
        t.insert(n, |c| pad_by_index(c, false));
    }
    t.insert("aten.upsample_nearest2d.vec", upsample_nearest);
    t.insert("aten.upsample_nearest2d.default", upsample_nearest);
    t.insert("aten.upsample_bilinear2d.vec", upsample_bilinear);
    t.insert("aten.upsample_bilinear2d.default", upsample_bilinear);
}
