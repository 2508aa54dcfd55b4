//! More aten kernels: the Python operators torch.export records on symbolic
//! sizes (`aten.add`, `aten.sym_float`, ...), the symbolic queries
//! (`sym_numel`, `sym_stride`), and tensor ops that compose the shared
//! kernels. PyTorch's semantics, as in the parent module.

use super::super::{one, Ctx, Table};
use crate::error::{kerr, KResult};
use crate::interp::Value;
use crate::kernels::elementwise::{binary, compare, unary, BinOp, CmpOp, UnOp};
use crate::kernels::reduce::{self, norm_axes, norm_axis, Reduction};
use crate::kernels::{nn, pool_nd, shape, spatial};
use crate::tensor::{promote_types, DType, Dom, Tensor};
use ndarray::{ArrayD, Dimension, IxDyn};
use num_complex::Complex;

// ---- Python operators on symbolic scalars --------------------------------

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

// ---- elementwise ----------------------------------------------------------

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

// ---- shapes ----------------------------------------------------------------

fn stack(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let first = c.arg(0)?;
    let d = norm_axis(c.i64_or("dim", 0)?, first.ndim() + 1)?;
    let ts: Vec<Tensor> = (0..c.n_args())
        .map(|i| {
            let t = c.arg(i)?;
            let mut s = t.shape();
            s.insert(d, 1);
            t.cast(dt).reshape(&s)
        })
        .collect::<KResult<_>>()?;
    one(shape::cat(&ts, d)?)
}

/// `tile`: `repeat` with the repeats left-padded with 1s to the rank.
fn tile(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dims = c.i64s_attr("dims")?;
    if dims.iter().any(|&r| r < 0) {
        return kerr(format!("tile repeats {dims:?} must be non-negative"));
    }
    let mut reps = vec![1usize; x.ndim().saturating_sub(dims.len())];
    reps.extend(dims.iter().map(|&r| r as usize));
    one(shape::tile(x, &reps)?)
}

/// `roll`: element `i` moves to `(i + shift) mod n`; without dims the
/// flattened tensor rolls.
fn roll(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let shifts = c.i64s_attr("shifts")?;
    let dims = c.opt_i64s("dims")?.unwrap_or_default();
    if dims.is_empty() {
        if shifts.len() != 1 {
            return kerr("roll without dims takes one shift");
        }
        let flat = x.reshape(&[x.len()])?;
        return one(roll_axis(&flat, 0, shifts[0])?.reshape(&x.shape())?);
    }
    if dims.len() != shifts.len() {
        return kerr(format!(
            "roll: {} shifts for {} dims",
            shifts.len(),
            dims.len()
        ));
    }
    let mut y = x.clone();
    for (&s, &d) in shifts.iter().zip(&dims) {
        y = roll_axis(&y, norm_axis(d, x.ndim())?, s)?;
    }
    one(y)
}

fn roll_axis(x: &Tensor, d: usize, shift: i64) -> KResult<Tensor> {
    let n = x.shape()[d] as i64;
    if n == 0 {
        return Ok(x.clone());
    }
    let idx: Vec<i64> = (0..n).map(|i| (i - shift).rem_euclid(n)).collect();
    shape::index_select(x, d, &idx)
}

/// `diagonal(offset, dim1, dim2)`: dims 1 and 2 removed, the diagonal
/// appended last.
fn diagonal(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let r = x.ndim();
    let (d1, d2) = (
        norm_axis(c.i64_or("dim1", 0)?, r)?,
        norm_axis(c.i64_or("dim2", 1)?, r)?,
    );
    if d1 == d2 {
        return kerr("diagonal dimensions cannot be identical");
    }
    let off = c.i64_or("offset", 0)?;
    let mut perm: Vec<usize> = (0..r).filter(|&d| d != d1 && d != d2).collect();
    perm.extend([d1, d2]);
    let p = shape::permute(x, &perm)?;
    let s = x.shape();
    let (n1, n2) = (s[d1] as i64, s[d2] as i64);
    let (r0, c0) = (off.min(0).abs(), off.max(0));
    let len = (n1 - r0).min(n2 - c0).max(0);
    let rows = ArrayD::from_shape_vec(IxDyn(&[len as usize]), (0..len).map(|i| i + r0).collect())
        .expect("sizes agree");
    let cols = ArrayD::from_shape_vec(IxDyn(&[len as usize]), (0..len).map(|i| i + c0).collect())
        .expect("sizes agree");
    let mut idx: Vec<Option<ArrayD<i64>>> = vec![None; r - 2];
    idx.extend([Some(rows), Some(cols)]);
    if len == 0 {
        let mut out: Vec<usize> = perm[..r - 2].iter().map(|&d| s[d]).collect();
        out.push(0);
        return one(Tensor::zeros(x.dtype(), &out));
    }
    one(shape::index(&p, &idx)?)
}

/// `[.., C, H·r, W·r] → [.., C·r², H, W]`.
fn pixel_unshuffle(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let r = c.i64_attr("downscale_factor")?;
    let s = x.shape();
    let k = s.len();
    if k < 3 || r <= 0 || s[k - 2] % r as usize != 0 || s[k - 1] % r as usize != 0 {
        return kerr("pixel_unshuffle needs [.., C, H·r, W·r] and a positive factor");
    }
    let r = r as usize;
    let (ch, h, w) = (s[k - 3], s[k - 2] / r, s[k - 1] / r);
    let lead = &s[..k - 3];
    let mut six = lead.to_vec();
    six.extend([ch, h, r, w, r]);
    let b = lead.len();
    let mut perm: Vec<usize> = (0..b).collect();
    perm.extend([b, b + 2, b + 4, b + 1, b + 3]);
    let y = shape::permute(&x.reshape(&six)?, &perm)?;
    let mut out = lead.to_vec();
    out.extend([ch * r * r, h, w]);
    one(y.reshape(&out)?)
}

/// `repeat_interleave.self_int`: each element `repeats` times along `dim`
/// (the flattened tensor without one).
fn repeat_interleave(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let reps = match c.opt_i64("repeats")? {
        Some(r) => r,
        None => c.arg_i64(1)?,
    };
    if reps < 0 {
        return kerr(format!("repeat_interleave repeats {reps} is negative"));
    }
    let (x, d) = match c.opt_i64("dim")? {
        Some(d) => (x.clone(), norm_axis(d, x.ndim().max(1))?),
        None => (x.reshape(&[x.len()])?, 0),
    };
    let n = x.shape().get(d).copied().unwrap_or(1) as i64;
    let idx: Vec<i64> = (0..n)
        .flat_map(|i| std::iter::repeat_n(i, reps as usize))
        .collect();
    one(shape::index_select(&x, d, &idx)?)
}

/// Along dim `d`, position `j` of the result takes `pick(j)`: `Some(k)` is
/// slice `k` of `src`, `None` keeps `x`'s slice (select/slice_scatter).
fn embed_along(
    x: &Tensor,
    src: &Tensor,
    d: usize,
    pick: impl Fn(usize) -> Option<usize>,
) -> KResult<Tensor> {
    let n = x.shape()[d];
    let mut parts = Vec::with_capacity(n);
    for j in 0..n {
        let part = match pick(j) {
            Some(k) => shape::slice(src, d, k, k + 1, 1)?,
            None => shape::slice(x, d, j, j + 1, 1)?,
        };
        parts.push(part);
    }
    if parts.is_empty() {
        return Ok(x.clone());
    }
    shape::cat(&parts, d)
}

/// `select_scatter`: `self` with `self.select(dim, index)` replaced by `src`.
fn select_scatter(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?.cast(dt);
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let n = x.shape()[d] as i64;
    let Some(i) = opt_sym_i64(c, "index")? else {
        return kerr("select_scatter needs an index");
    };
    let i = if i < 0 { i + n } else { i };
    if !(0..n).contains(&i) {
        return kerr(format!("select_scatter index out of range for size {n}"));
    }
    let mut s = c.arg(1)?.shape();
    s.insert(d, 1);
    let src = c.arg(1)?.cast(dt).reshape(&s)?;
    one(embed_along(&x, &src, d, |j| (j as i64 == i).then_some(0))?)
}

/// `slice_scatter`: `self` with `self[start:end:step]` along `dim` replaced
/// by `src`.
fn slice_scatter(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?.cast(dt);
    let d = norm_axis(c.i64_or("dim", 0)?, x.ndim())?;
    let step = c.i64_or("step", 1)?;
    if step <= 0 {
        return kerr("slice_scatter step must be positive");
    }
    let (s, e) = shape::clamp_slice(
        opt_sym_i64(c, "start")?,
        opt_sym_i64(c, "end")?,
        x.shape()[d],
    );
    let src = c.arg(1)?.cast(dt);
    let count = if e > s {
        (e - s).div_ceil(step as usize)
    } else {
        0
    };
    if src.shape().get(d) != Some(&count) {
        return kerr(format!(
            "slice_scatter src has {:?} elements along dim {d}, the slice {count}",
            src.shape().get(d)
        ));
    }
    let step = step as usize;
    one(embed_along(&x, &src, d, |j| {
        (j >= s && j < e && (j - s) % step == 0).then(|| (j - s) / step)
    })?)
}

/// `pad.default`: mode constant (value, default 0), reflect, replicate or
/// circular; `pad` in PyTorch's order (last dim first).
fn pad_mode(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let pads = c.i64s_attr("pad")?;
    let mode = c.opt_str("mode").unwrap_or_else(|| "constant".into());
    if mode == "constant" {
        let v = Tensor::scalar_f64(c.opt_f64("value")?.unwrap_or(0.0), DType::F64);
        let v = if x.dtype().is_float() {
            v
        } else {
            v.cast(DType::I64)
        };
        return one(shape::pad_constant(x, &pads, &v)?);
    }
    let r = x.ndim();
    if pads.len() % 2 != 0 || pads.len() / 2 > r {
        return kerr("pad must hold (before, after) pairs, at most one per dim");
    }
    // to pad_by_index's order: a pair per dim, in dim order
    let mut per_dim = vec![0i64; 2 * r];
    for k in 0..pads.len() / 2 {
        per_dim[2 * (r - 1 - k)] = pads[2 * k];
        per_dim[2 * (r - 1 - k) + 1] = pads[2 * k + 1];
    }
    match mode.as_str() {
        "reflect" => one(shape::pad_by_index(x, &per_dim, true)?),
        "replicate" => one(shape::pad_by_index(x, &per_dim, false)?),
        "circular" => {
            let mut y = x.clone();
            for d in 0..r {
                let (lo, hi) = (per_dim[2 * d], per_dim[2 * d + 1]);
                let n = y.shape()[d] as i64;
                if lo > n || hi > n {
                    return kerr(format!(
                        "circular padding ({lo}, {hi}) exceeds the dim size {n}"
                    ));
                }
                if lo != 0 || hi != 0 {
                    let idx: Vec<i64> = (-lo..n + hi).map(|i| i.rem_euclid(n.max(1))).collect();
                    y = shape::index_select(&y, d, &idx)?;
                }
            }
            one(y)
        }
        m => kerr(format!("unknown padding mode '{m}'")),
    }
}

/// `nonzero`: `[count, rank]` int64 coordinates in row-major order.
fn nonzero(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let m = x.to_bool();
    let r = x.ndim();
    let coords: Vec<i128> = m
        .indexed_iter()
        .filter(|(_, &v)| v)
        .flat_map(|(p, _)| p.slice().iter().map(|&i| i as i128).collect::<Vec<_>>())
        .collect();
    let n = coords.len() / r.max(1);
    let n = if r == 0 {
        m.iter().filter(|&&v| v).count()
    } else {
        n
    };
    let a = ArrayD::from_shape_vec(IxDyn(&[n, r]), coords)
        .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    one(Tensor::from_dom(Dom::I(a), c.out_dtype(0)?))
}

/// `nonzero_numpy`: the coordinates of `nonzero`, one int64 vector per dim.
fn nonzero_numpy(c: &Ctx) -> KResult<Vec<Value>> {
    let m = c.arg(0)?.to_bool();
    let hits: Vec<Vec<usize>> = m
        .indexed_iter()
        .filter(|(_, &v)| v)
        .map(|(p, _)| p.slice().to_vec())
        .collect();
    (0..m.ndim())
        .map(|d| {
            let v: Vec<i128> = hits.iter().map(|p| p[d] as i128).collect();
            let a = ArrayD::from_shape_vec(IxDyn(&[v.len()]), v).expect("sizes agree");
            Ok(Value::tensor(Tensor::from_dom(Dom::I(a), c.out_dtype(d)?)))
        })
        .collect()
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

// ---- reductions --------------------------------------------------------------

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

// ---- convolution and pooling -------------------------------------------------

fn spatial_params(c: &Ctx, k: usize) -> KResult<spatial::ConvNd> {
    Ok(spatial::ConvNd {
        stride: super::per_dim(c.opt_i64s("stride")?, k, 1)?,
        padding: super::per_dim(c.opt_i64s("padding")?, k, 0)?,
        dilation: super::per_dim(c.opt_i64s("dilation")?, k, 1)?,
        output_padding: super::per_dim(c.opt_i64s("output_padding")?, k, 0)?,
        groups: c.i64_or("groups", 1)?.max(0) as usize,
    })
}

fn add_bias(y: ArrayD<f64>, c: &Ctx, dt: DType) -> KResult<ArrayD<f64>> {
    let Some(b) = c.opt_arg(2) else { return Ok(y) };
    let mut bshape = vec![1; y.ndim()];
    bshape[1] = b.len();
    let b = super::f64_of(b, dt)
        .into_shape_with_order(IxDyn(&bshape))
        .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    Ok(&y + &b)
}

/// `conv_transpose1d` / `conv_transpose2d.input` (the transposed
/// convolution of any rank, `transposed` implied).
fn conv_transpose(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (x, w) = (c.arg(0)?, c.arg(1)?);
    let p = spatial_params(c, x.ndim().saturating_sub(2))?;
    let y = spatial::conv_transpose_nd(&super::f64_of(x, dt), &super::f64_of(w, dt), &p)?;
    one(Tensor::from_f64(add_bias(y, c, dt)?, dt))
}

/// `conv2d.padding`: `padding = "valid"` (none) or `"same"` (the output
/// keeps the input size at stride 1; an odd total pads one more at the end).
fn conv_padding_str(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (x, w) = (c.arg(0)?, c.arg(1)?);
    let k = x.ndim().saturating_sub(2);
    let mode = c.opt_str("padding").unwrap_or_else(|| "valid".into());
    let mut p = spatial::ConvNd {
        stride: super::per_dim(c.opt_i64s("stride")?, k, 1)?,
        padding: vec![0; k],
        dilation: super::per_dim(c.opt_i64s("dilation")?, k, 1)?,
        output_padding: vec![0; k],
        groups: c.i64_or("groups", 1)?.max(0) as usize,
    };
    let ws = w.shape();
    let pads: Vec<i64> = match mode.as_str() {
        "valid" => vec![0; 2 * k],
        "same" => {
            if p.stride.iter().any(|&s| s != 1) {
                return kerr("padding='same' needs stride 1");
            }
            (0..k)
                .rev()
                .flat_map(|d| {
                    let total =
                        (p.dilation[d] * (ws.get(d + 2).copied().unwrap_or(1).max(1) - 1)) as i64;
                    [total / 2, total - total / 2]
                })
                .collect()
        }
        m => return kerr(format!("unknown padding '{m}' (valid or same)")),
    };
    p.padding = vec![0; k];
    let zero = Tensor::scalar_f64(0.0, dt);
    let padded = shape::pad_constant(&x.cast(dt), &pads, &zero)?;
    let y = spatial::conv_nd(&padded.to_f64(), &super::f64_of(w, dt), &p)?;
    one(Tensor::from_f64(add_bias(y, c, dt)?, dt))
}

/// `avg_pool1d` as a 2-d pool over `[.., 1, L]`.
fn avg_pool1d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let k = super::per_dim(c.opt_i64s("kernel_size")?, 1, 1)?[0];
    let s = match c.opt_i64s("stride")? {
        Some(s) if !s.is_empty() => super::per_dim(Some(s), 1, 1)?[0],
        _ => k,
    };
    let p = nn::Pool2d {
        kernel: [1, k],
        stride: [1, s],
        padding: [0, super::per_dim(c.opt_i64s("padding")?, 1, 0)?[0]],
        dilation: [1, 1],
        ceil_mode: c.bool_or("ceil_mode", false)?,
    };
    let xs = x.shape();
    if xs.len() < 2 {
        return kerr("avg_pool1d expects [N, C, L] or [C, L]");
    }
    let mut s4 = xs.clone();
    s4.insert(xs.len() - 1, 1);
    let x4 = super::f64_of(&x.reshape(&s4)?, dt);
    let (v, _) =
        nn::pool2d_with_indices(&x4, &p, false, c.bool_or("count_include_pad", true)?, None)?;
    let mut out = v.shape().to_vec();
    out.remove(out.len() - 2);
    one(Tensor::from_f64(v, dt).reshape(&out)?)
}

/// `adaptive_avg_pool1d` as a 2-d adaptive pool over `[.., 1, L]`.
fn adaptive_avg_pool1d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let o = super::per_dim(c.opt_i64s("output_size")?, 1, 1)?[0];
    let xs = x.shape();
    if xs.len() < 2 || o == 0 {
        return kerr("adaptive_avg_pool1d expects [N, C, L] or [C, L] and a positive output size");
    }
    let mut s4 = xs.clone();
    s4.insert(xs.len() - 1, 1);
    let v = nn::adaptive_avg_pool2d(&super::f64_of(&x.reshape(&s4)?, dt), 1, o)?;
    let mut out = v.shape().to_vec();
    out.remove(out.len() - 2);
    one(Tensor::from_f64(v, dt).reshape(&out)?)
}

// ---- more pooling, normalization, scatter, factories ---------------------------

/// `max_pool3d_with_indices`: values and flat `d·H·W + h·W + w` indices.
fn max_pool3d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let kernel = super::per_dim(c.opt_i64s("kernel_size")?, 3, 1)?;
    let stride = match c.opt_i64s("stride")? {
        Some(s) if !s.is_empty() => super::per_dim(Some(s), 3, 1)?,
        _ => kernel.clone(),
    };
    let p = pool_nd::PoolNd {
        kernel,
        stride,
        padding: super::per_dim(c.opt_i64s("padding")?, 3, 0)?,
        dilation: super::per_dim(c.opt_i64s("dilation")?, 3, 1)?,
        ceil_mode: c.bool_or("ceil_mode", false)?,
    };
    let (v, i) = pool_nd::max_pool_nd(&super::f64_of(c.arg(0)?, dt), &p)?;
    Ok(vec![
        Value::tensor(Tensor::from_f64(v, dt)),
        Value::tensor(Tensor::from_i128(i.mapv(|v| v as i128), c.out_dtype(1)?)),
    ])
}

fn adaptive_avg_pool3d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let out = super::per_dim(c.opt_i64s("output_size")?, 3, 1)?;
    one(Tensor::from_f64(
        pool_nd::adaptive_avg_pool_nd(&super::f64_of(c.arg(0)?, dt), &out)?,
        dt,
    ))
}

/// `_native_batch_norm_legit.no_stats`: batch statistics per channel (dim
/// 1), biased variance; results: output, mean, 1/sqrt(var + eps).
fn batch_norm_no_stats(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = super::f64_of(c.arg(0)?, dt);
    let r = x.ndim();
    if r < 2 {
        return kerr("batch norm needs [N, C, ...]");
    }
    let (w, b) = match c.n_args() {
        1 => (None, None),
        3 => (
            Some(super::f64_of(c.arg(1)?, dt)),
            Some(super::f64_of(c.arg(2)?, dt)),
        ),
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

/// `scatter.reduce` / `scatter.value_reduce` (`reduce` = "add" or
/// "multiply"): every `src` element (or `value`) combines into
/// `out[.., index, ..]` along `dim`, integers wrapping.
fn scatter_reduce_legacy(c: &Ctx) -> KResult<Vec<Value>> {
    match c.opt_str("reduce").as_deref() {
        Some("add") => return super::scatter(c),
        Some("multiply") => {}
        other => {
            return kerr(format!(
                "scatter reduce must be 'add' or 'multiply', not {other:?}"
            ))
        }
    }
    let (dt, mut out, s, sites) = super::scatter_operands(c)?;
    for (t, sp) in sites {
        match (&mut out, &s) {
            // PyTorch rounds every partial product to the dtype
            (Dom::F(a), Dom::F(s)) => a[&t] = Tensor::scalar_f64(a[&t] * s[&sp], dt).to_f64()[[]],
            (Dom::I(a), Dom::I(s)) => a[&t] = super::wrap_int(a[&t].wrapping_mul(s[&sp]), dt),
            (Dom::B(a), Dom::B(s)) => a[&t] &= s[&sp],
            _ => return kerr("scatter multiply of complex tensors is not supported"),
        }
    }
    one(Tensor::from_dom(out, dt))
}

// ---- complex numbers ---------------------------------------------------------------

fn complex_parts(t: &Tensor) -> KResult<(ArrayD<f64>, ArrayD<f64>)> {
    match t {
        Tensor::C64(a) => Ok((a.mapv(|v| v.re as f64), a.mapv(|v| v.im as f64))),
        _ => kerr(format!(
            "expected a complex tensor, got {}",
            t.dtype().name()
        )),
    }
}

fn to_c64(re: &ArrayD<f64>, im: &ArrayD<f64>) -> KResult<Tensor> {
    let r = crate::kernels::elementwise::zip2(re, im, |a, b| {
        num_complex::Complex32::new(a as f32, b as f32)
    })?;
    Ok(Tensor::C64(r))
}

/// `view_as_real(_copy)`: `[..]` complex → `[.., 2]` (re, im).
fn view_as_real(c: &Ctx) -> KResult<Vec<Value>> {
    let (re, im) = complex_parts(c.arg(0)?)?;
    let mut s = re.shape().to_vec();
    let n = re.ndim();
    let parts = [
        re.insert_axis(ndarray::Axis(n)),
        im.insert_axis(ndarray::Axis(n)),
    ];
    s.push(2);
    let both = ndarray::concatenate(ndarray::Axis(n), &[parts[0].view(), parts[1].view()])
        .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    one(Tensor::from_f64(both, c.out_dtype(0)?))
}

/// `view_as_complex(_copy)`: `[.., 2]` float → complex.
fn view_as_complex(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let s = x.shape();
    if s.last() != Some(&2) || x.dtype() != DType::F32 {
        return kerr("view_as_complex needs a float32 tensor whose last dim is 2");
    }
    let a = x.to_f64();
    let n = s.len() - 1;
    let re = a.index_axis(ndarray::Axis(n), 0).to_owned();
    let im = a.index_axis(ndarray::Axis(n), 1).to_owned();
    one(to_c64(&re, &im)?)
}

/// `complex(real, imag)`.
fn complex(c: &Ctx) -> KResult<Vec<Value>> {
    one(to_c64(&c.arg(0)?.to_f64(), &c.arg(1)?.to_f64())?)
}

/// `polar(abs, angle)`: `abs·cos(angle) + i·abs·sin(angle)`.
fn polar(c: &Ctx) -> KResult<Vec<Value>> {
    let (r, t) = (c.arg(0)?.to_f64(), c.arg(1)?.to_f64());
    let re = crate::kernels::elementwise::zip2(&r, &t, |r, t| r * t.cos())?;
    let im = crate::kernels::elementwise::zip2(&r, &t, |r, t| r * t.sin())?;
    one(to_c64(&re, &im)?)
}

// ---- distances, strides, einsum ---------------------------------------------------

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
    let (a, b) = (super::f64_of(c.arg(0)?, dt), super::f64_of(c.arg(1)?, dt));
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
    let x = super::f64_of(c.arg(0)?, dt);
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

/// `as_strided(size, stride, storage_offset)` over the row-major storage.
fn as_strided(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let size = c.i64s_attr("size")?;
    let stride = c.i64s_attr("stride")?;
    let off = c.opt_i64("storage_offset")?.unwrap_or(0);
    if size.len() != stride.len() || size.iter().chain(&stride).any(|&v| v < 0) || off < 0 {
        return kerr(format!(
            "as_strided size {size:?} / stride {stride:?} / offset {off}"
        ));
    }
    let size: Vec<usize> = size.iter().map(|&v| v as usize).collect();
    let n: usize = size.iter().product();
    let mut idx = Vec::with_capacity(n);
    for f in 0..n {
        let (mut rem, mut pos) = (f, off);
        for d in (0..size.len()).rev() {
            pos += (rem % size[d]) as i64 * stride[d];
            rem /= size[d];
        }
        if pos as usize >= x.len() {
            return kerr(format!(
                "as_strided reads element {pos} of a storage of {}",
                x.len()
            ));
        }
        idx.push(pos);
    }
    let flat = x.reshape(&[x.len()])?;
    one(shape::index_select(&flat, 0, &idx)?.reshape(&size)?)
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
        .map(|i| c.arg(i).map(|t| super::f64_of(t, dt)))
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

/// PyTorch's `reflect_coordinates`: `x` reflected into `[lo2 / 2, hi2 / 2]`.
fn reflect_coordinate(x: f64, lo2: i64, hi2: i64) -> f64 {
    if lo2 == hi2 {
        return 0.0;
    }
    let min = lo2 as f64 / 2.0;
    let span = (hi2 - lo2) as f64 / 2.0;
    let x = (x - min).abs();
    let extra = x % span;
    if (x / span).floor() as i64 % 2 == 0 {
        extra + min
    } else {
        span - extra + min
    }
}

/// A grid coordinate in [-1, 1] to a source position along a dim of `n`,
/// with PyTorch's padding modes (0 zeros, 1 border, 2 reflection).
fn grid_source(g: f64, n: usize, align: bool, padding: i64) -> f64 {
    let n_f = n as f64;
    let mut x = if align {
        (g + 1.0) / 2.0 * (n_f - 1.0)
    } else {
        ((g + 1.0) * n_f - 1.0) / 2.0
    };
    let clip = |v: f64| v.clamp(0.0, n_f - 1.0);
    if padding == 2 {
        x = if align {
            reflect_coordinate(x, 0, 2 * (n as i64 - 1))
        } else {
            reflect_coordinate(x, -1, 2 * n as i64 - 1)
        };
    }
    if padding >= 1 {
        x = clip(x);
    }
    x
}

/// `grid_sampler_2d(input [N, C, H, W], grid [N, Ho, Wo, 2])`: bilinear
/// (mode 0) or nearest (mode 1, ties to even) sampling at `grid` (x then
/// y, in [-1, 1]); out-of-range taps read 0 under zeros padding.
fn grid_sampler_2d(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = super::f64_of(c.arg(0)?, dt);
    let g = super::f64_of(c.arg(1)?, dt);
    let (xs, gs) = (x.shape().to_vec(), g.shape().to_vec());
    if xs.len() != 4 || gs.len() != 4 || gs[3] != 2 || gs[0] != xs[0] {
        return kerr(format!("grid_sampler_2d needs [N, C, H, W] input and [N, Ho, Wo, 2] grid, got {xs:?} and {gs:?}"));
    }
    let mode = c.i64_attr("interpolation_mode")?;
    let padding = c.i64_attr("padding_mode")?;
    if !(0..=1).contains(&mode) || !(0..=2).contains(&padding) {
        return kerr(format!(
            "grid_sampler_2d mode {mode} / padding {padding} is not supported (bicubic is not)"
        ));
    }
    let align = c.bool_or("align_corners", false)?;
    let (n, ch, h, w, ho, wo) = (xs[0], xs[1], xs[2], xs[3], gs[1], gs[2]);
    let mut out = ArrayD::<f64>::zeros(IxDyn(&[n, ch, ho, wo]));
    let tap = |b: usize, k: usize, yy: i64, xx: i64| -> f64 {
        if yy < 0 || xx < 0 || yy >= h as i64 || xx >= w as i64 {
            0.0
        } else {
            x[[b, k, yy as usize, xx as usize]]
        }
    };
    for b in 0..n {
        for i in 0..ho {
            for j in 0..wo {
                let sx = grid_source(g[[b, i, j, 0]], w, align, padding);
                let sy = grid_source(g[[b, i, j, 1]], h, align, padding);
                for k in 0..ch {
                    out[[b, k, i, j]] = if mode == 1 {
                        tap(
                            b,
                            k,
                            sy.round_ties_even() as i64,
                            sx.round_ties_even() as i64,
                        )
                    } else if sx.is_nan() || sy.is_nan() {
                        f64::NAN
                    } else {
                        let (x0, y0) = (sx.floor(), sy.floor());
                        let (tx, ty) = (sx - x0, sy - y0);
                        let (x0, y0) = (x0 as i64, y0 as i64);
                        tap(b, k, y0, x0) * (1.0 - tx) * (1.0 - ty)
                            + tap(b, k, y0, x0 + 1) * tx * (1.0 - ty)
                            + tap(b, k, y0 + 1, x0) * (1.0 - tx) * ty
                            + tap(b, k, y0 + 1, x0 + 1) * tx * ty
                    };
                }
            }
        }
    }
    one(Tensor::from_f64(out, dt))
}

/// `col2im` (`F.fold`): `[N, C·kh·kw, L]` blocks summed into `[N, C, H, W]`
/// (the adjoint of im2col; overlapping taps add, padding taps drop).
fn col2im(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    if !(2..=3).contains(&x.ndim()) {
        return kerr("col2im expects [N, C·kh·kw, L] or [C·kh·kw, L]");
    }
    let batched = x.ndim() == 3;
    let x = if batched {
        x.clone()
    } else {
        x.reshape(&[1, x.shape()[0], x.shape()[1]])?
    };
    let x = super::f64_of(&x, dt);
    let [oh, ow] = super::pair(c.opt_i64s("output_size")?, 1);
    let [kh, kw] = super::pair(c.opt_i64s("kernel_size")?, 1);
    let [dh, dw] = super::pair(c.opt_i64s("dilation")?, 1);
    let [ph, pw] = super::pair(c.opt_i64s("padding")?, 0);
    let [sh, sw] = super::pair(c.opt_i64s("stride")?, 1);
    let (n, ckk, l) = (x.shape()[0], x.shape()[1], x.shape()[2]);
    if kh * kw == 0 || sh * sw == 0 || dh * dw == 0 || ckk % (kh * kw) != 0 {
        return kerr(format!("col2im: {ckk} rows for a {kh}x{kw} kernel"));
    }
    let blocks = |o: usize, k: usize, d: usize, p: usize, s: usize| {
        ((o + 2 * p).saturating_sub(d * (k - 1) + 1)) / s + 1
    };
    let (lh, lw) = (blocks(oh, kh, dh, ph, sh), blocks(ow, kw, dw, pw, sw));
    if lh * lw != l {
        return kerr(format!("col2im: {l} blocks, the geometry gives {lh}x{lw}"));
    }
    let ch = ckk / (kh * kw);
    let mut out = ArrayD::<f64>::zeros(IxDyn(&[n, ch, oh, ow]));
    for b in 0..n {
        for row in 0..ckk {
            let (k, ki, kj) = (row / (kh * kw), row / kw % kh, row % kw);
            for bh in 0..lh {
                for bw in 0..lw {
                    let y = (bh * sh + ki * dh) as i64 - ph as i64;
                    let xx = (bw * sw + kj * dw) as i64 - pw as i64;
                    if y >= 0 && xx >= 0 && (y as usize) < oh && (xx as usize) < ow {
                        out[[b, k, y as usize, xx as usize]] += x[[b, row, bh * lw + bw]];
                    }
                }
            }
        }
    }
    let out = Tensor::from_f64(out, dt);
    one(if batched {
        out
    } else {
        out.reshape(&[ch, oh, ow])?
    })
}

/// The DFT of `a` along `axis`, producing `n_out` frequencies (sign -1
/// forward, +1 inverse), unnormalized; in f64.
fn dft_axis(
    a: &ArrayD<Complex<f64>>,
    axis: usize,
    inverse: bool,
    n_out: usize,
) -> ArrayD<Complex<f64>> {
    let n = a.shape()[axis];
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut shape = a.shape().to_vec();
    shape[axis] = n_out;
    let mut out = ArrayD::<Complex<f64>>::zeros(IxDyn(&shape));
    for k in 0..n_out {
        let mut lane = out.index_axis_mut(ndarray::Axis(axis), k);
        for j in 0..n {
            let angle = sign * 2.0 * std::f64::consts::PI * ((j * k) % n.max(1)) as f64 / n as f64;
            let w = Complex::new(angle.cos(), angle.sin());
            lane.zip_mut_with(&a.index_axis(ndarray::Axis(axis), j), |o, &x| *o += x * w);
        }
    }
    out
}

/// PyTorch's `fft_norm_mode`: 0 none, 1 by 1/√n, 2 by 1/n (n the product of
/// the transformed signal lengths).
fn fft_scale(mode: i64, n: usize) -> KResult<f64> {
    match mode {
        0 => Ok(1.0),
        1 => Ok(1.0 / (n as f64).sqrt()),
        2 => Ok(1.0 / n as f64),
        m => kerr(format!("unknown fft normalization {m}")),
    }
}

fn fft_dims(c: &Ctx, rank: usize) -> KResult<Vec<usize>> {
    let dims: Vec<usize> = c
        .i64s_attr("dim")?
        .iter()
        .map(|&d| norm_axis(d, rank))
        .collect::<KResult<_>>()?;
    if dims.is_empty() {
        return kerr("fft over no dims");
    }
    Ok(dims)
}

/// `_fft_r2c(self, dim, normalization, onesided)`: the real input's DFT over
/// `dim`; one-sided keeps the first n/2 + 1 frequencies of the last dim.
fn fft_r2c(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dims = fft_dims(c, x.ndim())?;
    let mut a = x.to_f64().mapv(|v| Complex::new(v, 0.0));
    let mut n = 1;
    for &d in &dims {
        n *= a.shape()[d];
        a = dft_axis(&a, d, false, a.shape()[d]);
    }
    if c.bool_or("onesided", true)? {
        let last = *dims.last().expect("non-empty");
        let keep = a.shape()[last] / 2 + 1;
        a = a
            .slice_axis(ndarray::Axis(last), ndarray::Slice::from(0..keep))
            .to_owned();
    }
    let s = fft_scale(c.i64_attr("normalization")?, n)?;
    one(Tensor::from_dom(Dom::C(a.mapv(|v| v * s)), c.out_dtype(0)?))
}

/// `_fft_c2r(self, dim, normalization, last_dim_size)`: the inverse DFT
/// over `dim` of a one-sided spectrum (the last dim completed by Hermitian
/// symmetry to `last_dim_size`), real part.
fn fft_c2r(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dims = fft_dims(c, x.ndim())?;
    let Dom::C(mut a) = x.dom() else {
        return kerr("fft_c2r needs a complex input");
    };
    let last = *dims.last().expect("non-empty");
    let n_last = c.i64_attr("last_dim_size")?;
    if n_last <= 0 {
        return kerr(format!("last_dim_size {n_last} must be positive"));
    }
    let n_last = n_last as usize;
    let mut n = n_last;
    for &d in &dims[..dims.len() - 1] {
        n *= a.shape()[d];
        a = dft_axis(&a, d, true, a.shape()[d]);
    }
    let m = a.shape()[last];
    let full: Vec<ArrayD<Complex<f64>>> = (0..n_last)
        .map(|k| {
            if k < m {
                a.index_axis(ndarray::Axis(last), k).to_owned()
            } else if n_last - k < m {
                a.index_axis(ndarray::Axis(last), n_last - k)
                    .mapv(|v| v.conj())
            } else {
                ArrayD::zeros(a.index_axis(ndarray::Axis(last), 0).raw_dim())
            }
        })
        .collect();
    let views: Vec<_> = full
        .iter()
        .map(|v| v.view().insert_axis(ndarray::Axis(last)))
        .collect();
    let spec = ndarray::concatenate(ndarray::Axis(last), &views)
        .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    let y = dft_axis(&spec, last, true, n_last);
    let s = fft_scale(c.i64_attr("normalization")?, n)?;
    one(Tensor::from_f64(y.mapv(|v| v.re * s), c.out_dtype(0)?))
}

/// `_embedding_bag(weight, indices, offsets[, per_sample_weights])` with
/// mode 0 sum, 1 mean, 2 max over each bag's rows (a `padding_idx` row
/// skipped, an empty bag 0), and PyTorch's CPU auxiliary results:
/// offset2bag (each index's bag; empty on the sum fast path: float weight,
/// no padding_idx), bag_size (non-padding counts for mean/max, else 0),
/// max_indices (the winning row per feature for max, bag_size for mean,
/// 0 for sum).
fn embedding_bag(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let w = super::f64_of(c.arg(0)?, dt);
    let idx = c.arg(1)?.to_i64_vec();
    let mut offs: Vec<usize> = c
        .arg(2)?
        .to_i64_vec()
        .iter()
        .map(|&o| o.max(0) as usize)
        .collect();
    let psw = c
        .opt_arg(3)
        .map(|t| t.to_f64().iter().copied().collect::<Vec<f64>>());
    let mode = c.i64_or("mode", 0)?;
    let pad = c.i64_or("padding_idx", -1)?;
    if w.ndim() != 2 || !(0..=2).contains(&mode) || (psw.is_some() && mode != 0) {
        return kerr(
            "embedding_bag needs a 2-d weight, mode 0-2, per-sample weights only with sum",
        );
    }
    if c.bool_or("include_last_offset", false)? {
        if offs.is_empty() {
            return kerr("include_last_offset needs at least one offset");
        }
    } else {
        offs.push(idx.len());
    }
    let (rows, d) = (w.shape()[0] as i64, w.shape()[1]);
    let bags = offs.len() - 1;
    let mut out = ArrayD::<f64>::zeros(IxDyn(&[bags, d]));
    let mut offset2bag = vec![0i128; idx.len()];
    let mut sizes = vec![0i128; bags];
    let mut argmax = ArrayD::<i128>::zeros(IxDyn(&[bags, d]));
    for b in 0..bags {
        let (lo, hi) = (offs[b].min(idx.len()), offs[b + 1].min(idx.len()));
        let mut first = true;
        for i in lo..hi {
            offset2bag[i] = b as i128;
            let r = idx[i];
            if r < 0 || r >= rows {
                return kerr(format!(
                    "embedding_bag index {r} out of range for {rows} rows"
                ));
            }
            if r == pad {
                continue;
            }
            sizes[b] += 1;
            let s = psw.as_ref().map_or(1.0, |p| p[i]);
            for f in 0..d {
                let v = w[[r as usize, f]];
                let o = &mut out[[b, f]];
                if mode == 2 {
                    if first || v > *o {
                        *o = v;
                        argmax[[b, f]] = r as i128;
                    }
                } else {
                    *o += v * s;
                }
            }
            first = false;
        }
        if mode == 1 && sizes[b] > 0 {
            for f in 0..d {
                out[[b, f]] /= sizes[b] as f64;
            }
        }
    }
    let fast_sum = mode == 0 && pad < 0 && matches!(dt, DType::F32 | DType::F16);
    let o2b = if fast_sum { Vec::new() } else { offset2bag };
    let vec_i = |v: Vec<i128>, i: usize| -> KResult<Value> {
        let n = v.len();
        Ok(Value::tensor(Tensor::from_i128(
            ArrayD::from_shape_vec(IxDyn(&[n]), v).expect("sizes agree"),
            c.out_dtype(i)?,
        )))
    };
    let bag_size = if mode == 0 { vec![0; bags] } else { sizes };
    let max_indices = if mode == 2 {
        Value::tensor(Tensor::from_i128(argmax, c.out_dtype(3)?))
    } else {
        vec_i(
            if mode == 1 {
                bag_size.clone()
            } else {
                vec![0; bags]
            },
            3,
        )?
    };
    Ok(vec![
        Value::tensor(Tensor::from_f64(out, dt)),
        vec_i(o2b, 1)?,
        vec_i(bag_size, 2)?,
        max_indices,
    ])
}

pub fn register(t: &mut Table) {
    // Python operators on symbolic scalars
    t.insert("aten.add", |c| py_binary(c, BinOp::Add));
    t.insert("aten.sub", |c| py_binary(c, BinOp::Sub));
    t.insert("aten.mul", |c| py_binary(c, BinOp::Mul));
    t.insert("aten.floordiv", |c| py_binary(c, BinOp::FloorDiv));
    t.insert("aten.mod", |c| py_binary(c, BinOp::Remainder));
    t.insert("aten.pow", |c| py_binary(c, BinOp::Pow));
    t.insert("aten.sym_max", |c| py_binary(c, BinOp::Maximum));
    t.insert("aten.sym_min", |c| py_binary(c, BinOp::Minimum));
    t.insert("aten.truediv", py_truediv);
    t.insert("aten.eq", |c| py_compare(c, CmpOp::Eq));
    t.insert("aten.ne", |c| py_compare(c, CmpOp::Ne));
    t.insert("aten.lt", |c| py_compare(c, CmpOp::Lt));
    t.insert("aten.le", |c| py_compare(c, CmpOp::Le));
    t.insert("aten.gt", |c| py_compare(c, CmpOp::Gt));
    t.insert("aten.ge", |c| py_compare(c, CmpOp::Ge));
    t.insert("aten.neg", py_neg);
    t.insert("aten.ceil", |c| py_unary_f64(c, UnOp::Ceil));
    t.insert("aten.floor", |c| py_unary_f64(c, UnOp::Floor));
    t.insert("aten.trunc", |c| py_unary_f64(c, UnOp::Trunc));
    t.insert("aten.round", |c| py_unary_f64(c, UnOp::Round));
    t.insert("aten.sym_sqrt", |c| py_unary_f64(c, UnOp::Sqrt));
    t.insert("aten.sym_float", py_convert);
    t.insert("aten.sym_int", py_convert);
    t.insert("aten.sym_not", py_not);
    // symbolic queries
    t.insert("aten.sym_numel.default", sym_numel);
    t.insert("aten.sym_stride.int", sym_stride);
    t.insert("aten.sym_storage_offset.default", sym_storage_offset);
    t.insert("aten.sym_is_contiguous.default", sym_is_contiguous);
    t.insert("aten._local_scalar_dense.default", local_scalar_dense);
    // elementwise
    t.insert("aten.__and__.Tensor", |c| super::bin(c, BinOp::BitAnd));
    t.insert("aten.__or__.Tensor", |c| super::bin(c, BinOp::BitOr));
    t.insert("aten.__xor__.Tensor", |c| super::bin(c, BinOp::BitXor));
    t.insert("aten.bitwise_and.Scalar", |c| super::bin(c, BinOp::BitAnd));
    t.insert("aten.bitwise_or.Scalar", |c| super::bin(c, BinOp::BitOr));
    t.insert("aten.bitwise_xor.Scalar", |c| super::bin(c, BinOp::BitXor));
    t.insert("aten.round.decimals", round_decimals);
    t.insert("aten.type_as.default", super::copy_cast);
    t.insert("aten.fill.Scalar", fill);
    t.insert("aten.native_dropout.default", native_dropout);
    // shapes
    t.insert("aten.stack.default", stack);
    t.insert("aten.tile.default", tile);
    t.insert("aten.roll.default", roll);
    t.insert("aten.diagonal.default", diagonal);
    t.insert("aten.pixel_unshuffle.default", pixel_unshuffle);
    t.insert("aten.repeat_interleave.self_int", repeat_interleave);
    t.insert("aten.select_scatter.default", select_scatter);
    t.insert("aten.slice_scatter.default", slice_scatter);
    t.insert("aten.pad.default", pad_mode);
    t.insert("aten.nonzero.default", nonzero);
    t.insert("aten.nonzero_numpy.default", nonzero_numpy);
    // reductions
    t.insert("aten.max.default", |c| super::reduce_op(c, Reduction::Max));
    t.insert("aten.min.default", |c| super::reduce_op(c, Reduction::Min));
    t.insert("aten.logsumexp.default", logsumexp);
    t.insert("aten.std.dim", std_dim);
    t.insert("aten.linalg_vector_norm.default", vector_norm);
    // convolution and pooling
    t.insert("aten.conv3d.default", super::convolution);
    t.insert("aten.conv2d.padding", conv_padding_str);
    t.insert("aten.conv_transpose1d.default", conv_transpose);
    t.insert("aten.conv_transpose2d.input", conv_transpose);
    t.insert("aten.avg_pool1d.default", avg_pool1d);
    t.insert("aten.adaptive_avg_pool1d.default", adaptive_avg_pool1d);
    t.insert("aten.max_pool3d_with_indices.default", max_pool3d);
    t.insert("aten._adaptive_avg_pool3d.default", adaptive_avg_pool3d);
    t.insert(
        "aten._native_batch_norm_legit.no_stats",
        batch_norm_no_stats,
    );
    // scatter, factories
    t.insert("aten.scatter.reduce", scatter_reduce_legacy);
    t.insert("aten.scatter.value_reduce", scatter_reduce_legacy);
    t.insert("aten.empty.memory_format", super::full);
    t.insert("aten.empty_strided.default", super::full);
    // complex numbers
    t.insert("aten.view_as_real.default", view_as_real);
    t.insert("aten.view_as_real_copy.default", view_as_real);
    t.insert("aten.view_as_complex.default", view_as_complex);
    t.insert("aten.view_as_complex_copy.default", view_as_complex);
    t.insert("aten.complex.default", complex);
    t.insert("aten.polar.default", polar);
    // distances, strides, einsum
    t.insert("aten._cdist_forward.default", cdist);
    t.insert("aten._pdist_forward.default", pdist);
    t.insert("aten.as_strided.default", as_strided);
    t.insert("aten.einsum.default", einsum);
    t.insert("aten.grid_sampler_2d.default", grid_sampler_2d);
    t.insert("aten.col2im.default", col2im);
    t.insert("aten._embedding_bag.default", embedding_bag);
    t.insert("aten._fft_r2c.default", fft_r2c);
    t.insert("aten._fft_c2r.default", fft_c2r);
}
