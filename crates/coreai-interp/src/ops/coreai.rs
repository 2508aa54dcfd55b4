//! coreai (and coreaix) kernels with coreai-core 1.0.0b3's semantics, as its
//! op documentation states them: operands in the order of coreai-core's
//! Python bindings (axes, shapes and strides are tensor operands), results
//! in the input's dtype, integer arithmetic wrapping, reductions keeping
//! their reduced dims, `divide` truncating on integers, `modulo` = fmod.

mod more;

use super::{one, Ctx, Table};
use crate::error::{kerr, KResult};
use crate::interp::Value;
use crate::kernels::elementwise::{binary, compare, unary, where_, BinOp, CmpOp, UnOp};
use crate::kernels::linalg;
use crate::kernels::nn::{self, Pool2d};
use crate::kernels::reduce::{self, norm_axes, norm_axis, Reduction};
use crate::kernels::shape;
use crate::kernels::spatial::{self, Conv2d, ConvNd};
use crate::map_tensor;
use crate::tensor::{DType, Tensor};
use ndarray::{ArrayD, Axis, Dimension, IxDyn, Slice};

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
    if let Some(r) = super::aten::f32_fast_path(op, dt, a, b) {
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
    if let Some(r) = super::aten::f32_unary_fast_path(op, dt, c.arg(0)?) {
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

fn reduce_op(c: &Ctx, kind: Reduction) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let axes = norm_axes(&c.arg_i64s(1)?, x.ndim(), false)?;
    let dt = c.out_dtype(0)?;
    if x.dtype() == dt {
        if let Some(r) = reduce::reduce_float(kind, x, &axes, true) {
            return one(r?);
        }
    }
    one(Tensor::from_dom(
        reduce::reduce(kind, &x.dom(), &axes, true)?,
        dt,
    ))
}

/// coreai-core's interpreter never picks a NaN (the op doc is silent).
fn argmax(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ax = norm_axis(c.arg_i64(1)?, x.ndim())?;
    one(Tensor::from_i128(
        reduce::arg_reduce_nan(&x.dom(), ax, true, true, false)?,
        c.out_dtype(0)?,
    ))
}

fn softmax(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ax = norm_axis(c.arg_i64(1)?, x.ndim())?;
    if x.dtype() == c.out_dtype(0)? {
        if let Some(r) = reduce::softmax_tensor(x, ax, false) {
            return one(r);
        }
    }
    one(Tensor::from_f64(
        nn::softmax(&x.to_f64(), ax, false),
        c.out_dtype(0)?,
    ))
}

fn reshape(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let s = shape::infer_shape(&c.arg_i64s(1)?, x.len())?;
    one(x.reshape(&s)?)
}

/// `coreai.expand_dims %x, %axes`: unit dims inserted at `axes` (of the
/// result's rank); works for dynamic result types.
fn expand_dims(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let axes = c.arg_i64s(1)?;
    let rank = x.ndim() + axes.len();
    let at = norm_axes(&axes, rank, false)?;
    let mut rest = x.shape().into_iter();
    let s: Vec<usize> = (0..rank)
        .map(|i| {
            if at.contains(&i) {
                1
            } else {
                rest.next().unwrap_or(1)
            }
        })
        .collect();
    one(x.reshape(&s)?)
}

/// `coreai.shrink_dims %x, %axes`: the unit dims at `axes` removed; works
/// for dynamic result types.
fn shrink_dims(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let at = norm_axes(&c.arg_i64s(1)?, x.ndim(), false)?;
    let shape = x.shape();
    if at.iter().any(|&a| shape[a] != 1) {
        return kerr(format!("shrink_dims of a non-unit dim of {shape:?}"));
    }
    let s: Vec<usize> = (0..shape.len())
        .filter(|i| !at.contains(i))
        .map(|i| shape[i])
        .collect();
    one(x.reshape(&s)?)
}

fn transpose(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let perm: Vec<usize> = c
        .arg_i64s(1)?
        .iter()
        .map(|&p| norm_axis(p, x.ndim()))
        .collect::<KResult<_>>()?;
    one(shape::permute(x, &perm)?)
}

fn broadcast_to(c: &Ctx) -> KResult<Vec<Value>> {
    let s: Vec<usize> = c.arg_i64s(1)?.iter().map(|&d| d.max(0) as usize).collect();
    one(shape::expand(c.arg(0)?, &s)?)
}

fn concat(c: &Ctx) -> KResult<Vec<Value>> {
    let ts: Vec<Tensor> = (1..c.n_args())
        .map(|i| c.arg(i).cloned())
        .collect::<KResult<_>>()?;
    let rank = ts.first().map(|t| t.ndim()).unwrap_or(1);
    let d = norm_axis(c.arg_i64(0)?, rank)?;
    one(shape::cat(&ts, d)?)
}

/// coreai.slice: see [`slice_ranges`].
fn slice(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ranges = slice_ranges(c, &x.shape())?;
    // (start, step, count) as ndarray's slice, which walks a negative step
    // from the end of its range.
    let window = |d: usize| {
        let (a, s, n) = ranges[d];
        let last = a + (n - 1) * s;
        match (n, s > 0) {
            (0, _) => Slice::new(0, Some(0), 1),
            (_, true) => Slice::new(a as isize, Some(last as isize + 1), s as isize),
            (_, false) => Slice::new(last as isize, Some(a as isize + 1), s as isize),
        }
    };
    one(map_tensor!(x, t => t
        .slice_each_axis(|ax| window(ax.axis.index()))
        .as_standard_layout()
        .into_owned()))
}

fn gather_along_axis(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ax = norm_axis(c.arg_i64(2)?, x.ndim())?;
    let idx = c.arg(1)?.to_i128().mapv(|v| v as i64);
    one(shape::gather(x, ax, &idx)?)
}

fn batch_matmul(c: &Ctx) -> KResult<Vec<Value>> {
    one(linalg::matmul(c.arg(0)?, c.arg(1)?, c.out_dtype(0)?)?)
}

fn pair(v: Vec<i64>) -> KResult<[usize; 2]> {
    match v.as_slice() {
        [a] => Ok([*a as usize, *a as usize]),
        [a, b] => Ok([*a as usize, *b as usize]),
        _ => kerr("expected two spatial values"),
    }
}

fn conv2d(c: &Ctx) -> KResult<Vec<Value>> {
    let p = Conv2d {
        stride: pair(c.arg_i64s(2)?)?,
        padding: [0, 0],
        dilation: pair(c.arg_i64s(3)?)?,
        groups: c.arg_i64(4)?.max(1) as usize,
    };
    one(spatial::conv2d(
        c.arg(0)?,
        c.arg(1)?,
        None,
        &p,
        c.out_dtype(0)?,
    )?)
}

fn max_pool_2d(c: &Ctx) -> KResult<Vec<Value>> {
    let p = Pool2d {
        kernel: pair(c.arg_i64s(1)?)?,
        stride: pair(c.arg_i64s(2)?)?,
        padding: [0, 0],
        dilation: pair(c.arg_i64s(3)?)?,
        ceil_mode: c.arg(4)?.to_bool().iter().any(|&b| b),
    };
    one(nn::max_pool2d_tensor(c.arg(0)?, &p, c.out_dtype(0)?)?.0)
}

fn sum_pool_2d(c: &Ctx) -> KResult<Vec<Value>> {
    let p = Pool2d {
        kernel: pair(c.arg_i64s(1)?)?,
        stride: pair(c.arg_i64s(2)?)?,
        padding: [0, 0],
        dilation: pair(c.arg_i64s(3)?)?,
        ceil_mode: false,
    };
    // average pooling with divisor 1 is the window sum
    let (v, _) = nn::pool2d_with_indices(&c.arg(0)?.to_f64(), &p, false, true, Some(1.0))?;
    one(Tensor::from_f64(v, c.out_dtype(0)?))
}

/// A tensor operand of non-negative sizes (strides, paddings) as `usize`.
fn arg_usizes(c: &Ctx, i: usize) -> KResult<Vec<usize>> {
    c.arg_i64s(i)?
        .into_iter()
        .map(|v| {
            usize::try_from(v).or_else(|_| kerr(format!("operand #{i} holds the negative {v}")))
        })
        .collect()
}

/// `coreai.conv3d %x, %w, stride, dilation, groups` (input already padded).
fn conv3d(c: &Ctx) -> KResult<Vec<Value>> {
    let p = ConvNd {
        stride: arg_usizes(c, 2)?,
        padding: vec![0; 3],
        dilation: arg_usizes(c, 3)?,
        output_padding: vec![0; 3],
        groups: c.arg_i64(4)?.max(1) as usize,
    };
    let y = spatial::conv_nd(&c.arg(0)?.to_f64(), &c.arg(1)?.to_f64(), &p)?;
    one(Tensor::from_f64(y, c.out_dtype(0)?))
}

/// `coreai.conv_transpose{2,3}d %x, %w, stride, padding, dilation,
/// output_pad, groups`: PyTorch's transposed convolution.
fn conv_transpose(c: &Ctx) -> KResult<Vec<Value>> {
    let p = ConvNd {
        stride: arg_usizes(c, 2)?,
        padding: arg_usizes(c, 3)?,
        dilation: arg_usizes(c, 4)?,
        output_padding: arg_usizes(c, 5)?,
        groups: c.arg_i64(6)?.max(1) as usize,
    };
    let y = spatial::conv_transpose_nd(&c.arg(0)?.to_f64(), &c.arg(1)?.to_f64(), &p)?;
    one(Tensor::from_f64(y, c.out_dtype(0)?))
}

/// `coreai.sum_pool_3d %x, kernel, strides, dilation` (floor mode).
fn sum_pool_3d(c: &Ctx) -> KResult<Vec<Value>> {
    let (k, s, d) = (arg_usizes(c, 1)?, arg_usizes(c, 2)?, arg_usizes(c, 3)?);
    let y = spatial::sum_pool_nd(&c.arg(0)?.to_f64(), &k, &s, &d)?;
    one(Tensor::from_f64(y, c.out_dtype(0)?))
}

/// `coreai.interpolate %x, output_shape, scale, offset {interpolation_mode}`.
fn interpolate(c: &Ctx) -> KResult<Vec<Value>> {
    let mode = c
        .attr("interpolation_mode")
        .map(|a| a.to_text())
        .unwrap_or_default();
    let linear = if mode.contains("nearest") {
        false
    } else if mode.contains("linear") {
        true
    } else {
        return kerr(format!("interpolation mode '{mode}' is not supported"));
    };
    let out = arg_usizes(c, 1)?;
    let (scale, offset) = (c.arg(2)?.to_f64(), c.arg(3)?.to_f64());
    let scale: Vec<f64> = scale.iter().copied().collect();
    let offset: Vec<f64> = offset.iter().copied().collect();
    let y = spatial::interpolate(&c.arg(0)?.to_f64(), &out, &scale, &offset, linear)?;
    one(Tensor::from_f64(y, c.out_dtype(0)?))
}

/// `padding` holds (before, after) per dimension in dimension order.
fn pad(c: &Ctx) -> KResult<Vec<Value>> {
    let mode = c
        .attr("padding_mode")
        .map(|a| a.to_text())
        .unwrap_or_default();
    let x = c.arg(0)?;
    let p = c.arg_i64s(1)?;
    if mode.contains("reflect") || mode.contains("replicate") {
        return one(shape::pad_by_index(x, &p, mode.contains("reflect"))?);
    }
    if mode.contains("circular") {
        return one(shape::pad_circular(x, &p)?);
    }
    if !mode.is_empty() && !mode.contains("constant") {
        return kerr(format!("padding mode {mode} is not supported"));
    }
    // shape::pad_constant takes PyTorch's last-dim-first order.
    let mut torch_order = Vec::with_capacity(p.len());
    for pair in p.chunks(2).rev() {
        torch_order.extend_from_slice(pair);
    }
    one(shape::pad_constant(x, &torch_order, c.arg(2)?)?)
}

fn tile(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dims = c.arg_i64s(1)?;
    let mut reps = vec![1usize; x.ndim().saturating_sub(dims.len())];
    reps.extend(dims.iter().map(|&d| d.max(0) as usize));
    one(shape::tile(x, &reps)?)
}

fn reverse(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    one(shape::flip(
        x,
        &norm_axes(&c.arg_i64s(1)?, x.ndim(), false)?,
    ))
}

fn range(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (a, b, s) = (c.arg(0)?.to_f64(), c.arg(1)?.to_f64(), c.arg(2)?.to_f64());
    let (a, b, s) = (
        a.iter().next().copied().unwrap_or(0.0),
        b.iter().next().copied().unwrap_or(0.0),
        s.iter().next().copied().unwrap_or(1.0),
    );
    if s == 0.0 {
        return kerr("range step must be nonzero");
    }
    let n = ((b - a) / s).ceil().max(0.0) as usize;
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&[n]), (0..n).map(|i| a + i as f64 * s).collect())
            .expect("sizes agree"),
        dt,
    ))
}

fn get_shape(c: &Ctx) -> KResult<Vec<Value>> {
    let s = c.arg(0)?.shape();
    let v = ArrayD::from_shape_vec(IxDyn(&[s.len()]), s.iter().map(|&d| d as i128).collect())
        .expect("sizes agree");
    one(Tensor::from_i128(v, c.out_dtype(0)?))
}

fn scan(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ax = norm_axis(c.arg_i64(1)?, x.ndim())?;
    let rev = c.arg(2)?.to_bool().iter().any(|&b| b);
    let mode = c.attr("scan_op").map(|a| a.to_text()).unwrap_or_default();
    // The combiner is an i32 enum attribute (`0 : i32` = sum, 1 product,
    // 2 min, 3 max) in the generic form.
    let mode = match mode.split(':').next().map(str::trim) {
        Some("0") => "sum".to_string(),
        Some("1") => "prod".to_string(),
        Some("2") => "min".to_string(),
        Some("3") => "max".to_string(),
        _ => mode,
    };
    let dt = c.out_dtype(0)?;
    let kind = if mode.contains("sum") {
        reduce::Scan::Sum
    } else if mode.contains("prod") {
        reduce::Scan::Prod
    } else if mode.contains("max") {
        reduce::Scan::Max
    } else if mode.contains("min") {
        reduce::Scan::Min
    } else {
        return kerr(format!("scan combiner {mode} is not supported"));
    };
    let round = move |v: f64| match dt {
        DType::F16 => half::f16::from_f64(v).to_f64(),
        DType::BF16 => half::bf16::from_f64(v).to_f64(),
        DType::F32 => v as f32 as f64,
        _ => v,
    };
    let r = reduce::scan_sequential(&x.dom(), ax, kind, rev, round)?;
    one(Tensor::from_dom(r, dt))
}

fn split(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.arg_i64(2)?, x.ndim())?;
    let n = x.shape()[d];
    let spec = c.arg(1)?;
    let sizes: Vec<usize> = if spec.ndim() == 0 {
        let s = spec.to_i64_vec()[0].max(1) as usize;
        (0..n.div_ceil(s)).map(|i| s.min(n - i * s)).collect()
    } else {
        spec.to_i64_vec()
            .iter()
            .map(|&v| v.max(0) as usize)
            .collect()
    };
    let mut start = 0;
    let mut out = Vec::new();
    for s in sizes {
        out.push(Value::tensor(
            map_tensor!(x, a => a.slice_axis(Axis(d), Slice::from(start..start + s)).to_owned()),
        ));
        start += s;
    }
    Ok(out)
}

fn read_handle(c: &Ctx) -> KResult<Vec<Value>> {
    match c.vals.first() {
        Some(Value::Handle(h)) => Ok(vec![Value::tensor(h.borrow().clone()), Value::Token]),
        _ => kerr("operand #0 is not a handle"),
    }
}

fn write_handle(c: &Ctx) -> KResult<Vec<Value>> {
    match c.vals.first() {
        Some(Value::Handle(h)) => {
            *h.borrow_mut() = c.arg(1)?.clone();
            Ok(vec![Value::Token])
        }
        _ => kerr("operand #0 is not a handle"),
    }
}

/// Resolved (start, step, count) per dim of coreai.slice / slice_update:
/// wrap negatives once, clamp by stride sign, any nonzero step.
fn slice_ranges(c: &Ctx, shape: &[usize]) -> KResult<Vec<(i64, i64, i64)>> {
    let (st, en, sd) = (c.arg_i64s(1)?, c.arg_i64s(2)?, c.arg_i64s(3)?);
    let r = shape.len();
    if st.len() != r || en.len() != r || sd.len() != r {
        return kerr("start, end and strides need one entry per dimension");
    }
    (0..r)
        .map(|d| {
            let n = shape[d] as i64;
            let s = sd[d];
            if s == 0 {
                return kerr("slice strides must be nonzero");
            }
            let wrap = |v: i64, lo: i64| if v < lo { v + n } else { v };
            let (a, b) = if s > 0 {
                (wrap(st[d], 0).clamp(0, n), wrap(en[d], 0).clamp(0, n))
            } else {
                (
                    wrap(st[d], 0).clamp(0, (n - 1).max(0)),
                    wrap(en[d], -1).clamp(-1, n - 1),
                )
            };
            let count = if s > 0 {
                ((b - a).max(0) + s - 1) / s
            } else {
                ((a - b).max(0) + (-s) - 1) / (-s)
            };
            Ok((a, s, count))
        })
        .collect()
}

/// `input` with the strided window replaced by `update`.
fn slice_update(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let upd = c.arg(4)?.cast(x.dtype());
    let ranges = slice_ranges(c, &x.shape())?;
    let want: Vec<usize> = ranges.iter().map(|r| r.2 as usize).collect();
    if upd.shape() != want {
        return kerr(format!(
            "update shape {:?} does not match the window {:?}",
            upd.shape(),
            want
        ));
    }
    fn go<T: Clone>(a: &ArrayD<T>, u: &ArrayD<T>, ranges: &[(i64, i64, i64)]) -> ArrayD<T> {
        let mut out = a.clone();
        for (pos, v) in u.indexed_iter() {
            let p: Vec<usize> = pos
                .slice()
                .iter()
                .zip(ranges)
                .map(|(&i, &(a, s, _))| (a + i as i64 * s) as usize)
                .collect();
            out[IxDyn(&p)] = v.clone();
        }
        out
    }
    macro_rules! upd {
        ($($v:ident),*) => {
            match (x, &upd) {
                $((Tensor::$v(a), Tensor::$v(u)) => Tensor::$v(go(a, u, &ranges)),)*
                _ => return kerr("dtype mismatch"),
            }
        };
    }
    one(upd!(
        Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, C64
    ))
}

/// `out[i..] = input[indices[i.., :]]` (the last index dim addresses the
/// leading input dims).
fn gather_nd(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let idx = c.arg(1)?;
    let is = idx.shape();
    let k = *is.last().unwrap_or(&0);
    let xs = x.shape();
    if k == 0 || k > xs.len() {
        return kerr("gather_nd index depth must be between 1 and the input rank");
    }
    let iv = idx.to_i64_vec();
    let batch: usize = is[..is.len() - 1].iter().product();
    let inner: usize = xs[k..].iter().product();
    let flat = x.reshape(&[xs[..k].iter().product::<usize>(), inner])?;
    let mut rows = Vec::with_capacity(batch);
    for b in 0..batch {
        let mut lin = 0i64;
        for d in 0..k {
            let n = xs[d] as i64;
            let i = iv[b * k + d];
            let i = if i < 0 { i + n } else { i };
            if i < 0 || i >= n {
                return kerr(format!(
                    "gather_nd index {} out of range for size {n}",
                    iv[b * k + d]
                ));
            }
            lin = lin * n + i;
        }
        rows.push(lin);
    }
    let g = shape::index_select(&flat, 0, &rows)?;
    let mut out: Vec<usize> = is[..is.len() - 1].to_vec();
    out.extend(&xs[k..]);
    one(g.reshape(&out)?)
}

/// Stable sort along `dim` (NaN last in both directions); values
/// and/or indices as the results ask.
fn sort_impl(c: &Ctx, first: usize) -> KResult<Vec<Value>> {
    let x = c.arg(first)?;
    let d = norm_axis(c.arg_i64(first + 1)?, x.ndim())?;
    let desc = c.arg(first + 2)?.to_bool().iter().any(|&b| b);
    let vals = x.to_f64();
    // Integers compare exactly (an f64 key ties 2^60 and 2^60 + 1).
    let ints = (!x.dtype().is_float() && !x.dtype().is_complex()).then(|| x.to_i128());
    let int_lanes: Vec<Vec<i128>> = ints
        .as_ref()
        .map(|a| a.lanes(Axis(d)).into_iter().map(|l| l.to_vec()).collect())
        .unwrap_or_default();
    let mut order = ArrayD::<i128>::zeros(vals.raw_dim());
    for (n, (lane, mut o)) in vals
        .lanes(Axis(d))
        .into_iter()
        .zip(order.lanes_mut(Axis(d)))
        .enumerate()
    {
        let mut ix: Vec<usize> = (0..lane.len()).collect();
        let key = |i: &usize| lane[*i];
        // NaN sorts last in both directions (coreai-core's interpreter).
        ix.sort_by(|a, b| {
            let (p, q) = (key(a), key(b));
            if let Some(il) = int_lanes.get(n) {
                let ord = il[*a].cmp(&il[*b]);
                return if desc { ord.reverse() } else { ord };
            }
            match (p.is_nan(), q.is_nan()) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => std::cmp::Ordering::Greater,
                (false, true) => std::cmp::Ordering::Less,
                _ => {
                    let ord = p.partial_cmp(&q).unwrap_or(std::cmp::Ordering::Equal);
                    if desc {
                        ord.reverse()
                    } else {
                        ord
                    }
                }
            }
        });
        for (k, i) in ix.into_iter().enumerate() {
            o[k] = i as i128;
        }
    }
    let mut out = Vec::new();
    for r in 0..c.op.num_results() {
        let dt = c.out_dtype(r)?;
        if dt == x.dtype() && !(c.op.num_results() == 1 && c.name.ends_with("argsort")) {
            let picked = shape::gather(x, d, &order.mapv(|v| v as i64))?;
            out.push(Value::tensor(picked));
        } else {
            out.push(Value::tensor(Tensor::from_i128(order.clone(), dt)));
        }
    }
    Ok(out)
}

/// `coreai.constant` / `arith.constant`: the `value` attribute.
fn constant(c: &Ctx) -> KResult<Vec<Value>> {
    match c.attr("value") {
        Some(a) => one(a.as_tensor()?),
        None => kerr("missing 'value'"),
    }
}

/// `coreai.broadcast_in_dims %x, %sizes, %axes`: the size-1 dims `axes[i]`
/// of `x` broadcast to `sizes[i]`.
fn broadcast_in_dims(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let (sizes, axes) = (c.arg_i64s(1)?, c.arg_i64s(2)?);
    if sizes.len() != axes.len() {
        return kerr("broadcast_in_dims needs one size per axis");
    }
    let mut s = x.shape();
    for (&a, &n) in axes.iter().zip(&sizes) {
        let a = norm_axis(a, s.len())?;
        if s[a] != 1 && s[a] as i64 != n {
            return kerr(format!("cannot broadcast dim {a} of size {} to {n}", s[a]));
        }
        s[a] = n.max(0) as usize;
    }
    one(shape::expand(x, &s)?)
}

/// A value of `dt` rounded as the dtype stores it.
fn round_to(v: f64, dt: DType) -> f64 {
    Tensor::scalar_f64(v, dt)
        .to_f64()
        .iter()
        .next()
        .copied()
        .unwrap_or(v)
}

/// The combiner of `coreai.scatter_along_axis`'s `scatter_mode` on floats
/// and integers (`update` when absent).
fn scatter_combine(mode: &str) -> KResult<fn(f64, f64) -> f64> {
    Ok(match mode {
        "update" => |_, u| u,
        "add" => |a, u| a + u,
        "sub" => |a, u| a - u,
        "mul" => |a, u| a * u,
        "div" => |a, u| a / u,
        // coreai-core's interpreter replaces only when the update compares
        // greater (less): a NaN update is dropped, a NaN element stays.
        "max" => |a: f64, u: f64| if u > a { u } else { a },
        "min" => |a: f64, u: f64| if u < a { u } else { a },
        other => return kerr(format!("scatter mode {other} is not supported")),
    })
}

/// `coreai.scatter_along_axis %x, %idx, %updates, %axis`: for each position
/// p of idx, `out[p with p[axis] = idx[p]] = combine(out[..], updates[p])`,
/// negative indices wrapped once; results round to the dtype after every
/// combine.
fn scatter_along_axis(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let dt = x.dtype();
    let ax = norm_axis(c.arg_i64(3)?, x.ndim())?;
    let mode = c
        .attr("scatter_mode")
        .map(|a| a.to_text())
        .unwrap_or_default();
    let mode = ["update", "add", "sub", "mul", "div", "max", "min"]
        .into_iter()
        .find(|m| mode.contains(m))
        .unwrap_or("update");
    let combine = scatter_combine(mode)?;
    let idx = c.arg(1)?.to_i128();
    let upd = c.arg(2)?;
    if idx.shape() != upd.shape().as_slice() || idx.ndim() != x.ndim() {
        return kerr(
            "scatter_along_axis indices and updates must have the input's rank and one shape",
        );
    }
    let xs = x.shape();
    let n = xs[ax] as i128;
    let target = |pos: &[usize], i: i128| -> KResult<IxDyn> {
        let j = if i < 0 { i + n } else { i };
        if j < 0
            || j >= n
            || pos
                .iter()
                .zip(&xs)
                .enumerate()
                .any(|(d, (&p, &m))| d != ax && p >= m)
        {
            return kerr(format!("scatter index {i} out of range for size {n}"));
        }
        let mut t = pos.to_vec();
        t[ax] = j as usize;
        Ok(IxDyn(&t))
    };
    if dt.is_float() {
        let (mut a, u) = (x.to_f64(), upd.to_f64());
        for (pos, &i) in idx.indexed_iter() {
            let t = target(pos.slice(), i)?;
            a[&t] = round_to(combine(a[&t], u[&pos]), dt);
        }
        return one(Tensor::from_f64(a, dt));
    }
    if dt.is_int() {
        let (mut a, u) = (x.to_i128(), upd.to_i128());
        for (pos, &i) in idx.indexed_iter() {
            let t = target(pos.slice(), i)?;
            let (old, new) = (a[&t], u[&pos]);
            a[&t] = match mode {
                "update" => new,
                "add" => old + new,
                "sub" => old - new,
                "mul" => old.wrapping_mul(new),
                "max" => old.max(new),
                "min" => old.min(new),
                _ => return kerr(format!("integer scatter mode {mode} is not supported")),
            };
            a[&t] = crate::tensor::wrap_int(a[&t], dt);
        }
        return one(Tensor::from_i128(a, dt));
    }
    kerr(format!(
        "scatter_along_axis of {} is not supported",
        dt.name()
    ))
}

/// `coreai.scatter_nd %x with %updates at %idx { yield %new }`: replaces
/// the slices `x[idx[b, 0], ..., idx[b, k-1], ...]` by `updates[b, ...]`
/// (the only region coreai-core 1.0.0b3 accepts), negative indices wrapped.
fn scatter_nd(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let (idx, upd) = (c.arg(1)?, c.arg(2)?.cast(x.dtype()));
    let (xs, is) = (x.shape(), idx.shape());
    let k = *is.last().unwrap_or(&0);
    if k == 0 || k > xs.len() {
        return kerr("scatter_nd index depth must be between 1 and the input rank");
    }
    let batch: usize = is[..is.len() - 1].iter().product();
    let inner: usize = xs[k..].iter().product();
    let rows: usize = xs[..k].iter().product();
    let iv = idx.to_i64_vec();
    let mut order = Vec::with_capacity(batch);
    for b in 0..batch {
        let mut lin = 0i64;
        for d in 0..k {
            let n = xs[d] as i64;
            let i = iv[b * k + d];
            let i = if i < 0 { i + n } else { i };
            if i < 0 || i >= n {
                return kerr(format!(
                    "scatter_nd index {} out of range for size {n}",
                    iv[b * k + d]
                ));
            }
            lin = lin * n + i;
        }
        order.push(lin as usize);
    }
    let flat = x.reshape(&[rows, inner])?;
    let u = upd.reshape(&[batch, inner])?;
    fn go<T: Clone>(a: &ArrayD<T>, u: &ArrayD<T>, order: &[usize]) -> ArrayD<T> {
        let mut a = a.clone();
        for (b, &r) in order.iter().enumerate() {
            a.index_axis_mut(Axis(0), r)
                .assign(&u.index_axis(Axis(0), b));
        }
        a
    }
    let out = match (&flat, &u) {
        (Tensor::F32(a), Tensor::F32(u)) => Tensor::F32(go(a, u, &order)),
        (Tensor::F64(a), Tensor::F64(u)) => Tensor::F64(go(a, u, &order)),
        (Tensor::F16(a), Tensor::F16(u)) => Tensor::F16(go(a, u, &order)),
        (Tensor::Bool(a), Tensor::Bool(u)) => Tensor::Bool(go(a, u, &order)),
        _ => {
            let (a, u) = (flat.to_i128(), u.to_i128());
            let dt = flat.dtype();
            if !dt.is_int() {
                return kerr(format!("scatter_nd of {} is not supported", dt.name()));
            }
            Tensor::from_i128(go(&a, &u, &order), dt)
        }
    };
    one(out.reshape(&xs)?)
}

/// `coreai.non_zero %x`: the row-major coordinates `[n, rank]` of the
/// elements that are not zero (NaN is not zero, -0.0 is).
fn non_zero(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?.to_f64();
    let rank = x.ndim();
    let mut coords: Vec<i128> = Vec::new();
    for (pos, &v) in x.indexed_iter() {
        if v != 0.0 {
            coords.extend(pos.slice().iter().map(|&p| p as i128));
        }
    }
    let n = coords.len() / rank.max(1);
    let a = ArrayD::from_shape_vec(IxDyn(&[n, rank]), coords).expect("sizes agree");
    one(Tensor::from_i128(a, c.out_dtype(0)?))
}

pub fn register(t: &mut Table) {
    more::register(t);
    t.insert("coreai.constant", constant);
    // The importer's tensor constants (weights, wrapped Python scalars).
    t.insert("arith.constant", constant);
    t.insert("coreai.cast", cast);
    // unary
    t.insert("coreai.abs", |c| un(c, UnOp::Abs));
    t.insert("coreai.relu", |c| un(c, UnOp::Relu));
    t.insert("coreai.exp", |c| un(c, UnOp::Exp));
    t.insert("coreai.log", |c| un(c, UnOp::Log));
    t.insert("coreai.sqrt", |c| un(c, UnOp::Sqrt));
    t.insert("coreai.rsqrt", |c| un(c, UnOp::Rsqrt));
    t.insert("coreai.sin", |c| un(c, UnOp::Sin));
    t.insert("coreai.cos", |c| un(c, UnOp::Cos));
    t.insert("coreai.tan", |c| un(c, UnOp::Tan));
    t.insert("coreai.asin", |c| un(c, UnOp::Asin));
    t.insert("coreai.acos", |c| un(c, UnOp::Acos));
    t.insert("coreai.atan", |c| un(c, UnOp::Atan));
    t.insert("coreai.sinh", |c| un(c, UnOp::Sinh));
    t.insert("coreai.cosh", |c| un(c, UnOp::Cosh));
    t.insert("coreai.tanh", |c| un(c, UnOp::Tanh));
    t.insert("coreai.asinh", |c| un(c, UnOp::Asinh));
    t.insert("coreai.acosh", |c| un(c, UnOp::Acosh));
    t.insert("coreai.atanh", |c| un(c, UnOp::Atanh));
    t.insert("coreai.sigmoid", |c| un(c, UnOp::Sigmoid));
    t.insert("coreai.silu", |c| un(c, UnOp::Silu));
    t.insert("coreai.erf", |c| un(c, UnOp::Erf));
    t.insert("coreai.round", |c| un(c, UnOp::Round));
    t.insert("coreai.not", |c| un(c, UnOp::LogicalNot));
    t.insert("coreai.gelu", gelu);
    // binary, same shapes
    t.insert("coreai.add", |c| bin(c, BinOp::Add, false));
    t.insert("coreai.sub", |c| bin(c, BinOp::Sub, false));
    t.insert("coreai.mul", |c| bin(c, BinOp::Mul, false));
    t.insert("coreai.divide", |c| bin(c, BinOp::Div, false));
    t.insert("coreai.floor_divide", |c| bin(c, BinOp::FloorDiv, false));
    t.insert("coreai.modulo", |c| bin(c, BinOp::Fmod, false));
    t.insert("coreai.pow", |c| bin(c, BinOp::Pow, false));
    t.insert("coreai.maximum", |c| bin(c, BinOp::Maximum, false));
    t.insert("coreai.minimum", |c| bin(c, BinOp::Minimum, false));
    t.insert("coreai.and", |c| bin(c, BinOp::LogicalAnd, false));
    t.insert("coreai.or", |c| bin(c, BinOp::LogicalOr, false));
    t.insert("coreai.xor", |c| bin(c, BinOp::LogicalXor, false));
    t.insert("coreai.bitwise_and", |c| bin(c, BinOp::BitAnd, false));
    t.insert("coreai.bitwise_or", |c| bin(c, BinOp::BitOr, false));
    t.insert("coreai.bitwise_xor", |c| bin(c, BinOp::BitXor, false));
    t.insert("coreai.equal", |c| cmp(c, CmpOp::Eq));
    t.insert("coreai.not_equal", |c| cmp(c, CmpOp::Ne));
    t.insert("coreai.greater", |c| cmp(c, CmpOp::Gt));
    t.insert("coreai.where", where_op);
    // binary, broadcasting
    t.insert("coreai.decomposable.broadcasting_add", |c| {
        bin(c, BinOp::Add, true)
    });
    t.insert("coreai.decomposable.broadcasting_sub", |c| {
        bin(c, BinOp::Sub, true)
    });
    t.insert("coreai.decomposable.broadcasting_mul", |c| {
        bin(c, BinOp::Mul, true)
    });
    t.insert("coreai.decomposable.broadcasting_divide", |c| {
        bin(c, BinOp::Div, true)
    });
    t.insert("coreai.decomposable.broadcasting_floor_divide", |c| {
        bin(c, BinOp::FloorDiv, true)
    });
    t.insert("coreai.decomposable.broadcasting_modulo", |c| {
        bin(c, BinOp::Fmod, true)
    });
    t.insert("coreai.decomposable.broadcasting_pow", |c| {
        bin(c, BinOp::Pow, true)
    });
    t.insert("coreai.decomposable.broadcasting_maximum", |c| {
        bin(c, BinOp::Maximum, true)
    });
    t.insert("coreai.decomposable.broadcasting_minimum", |c| {
        bin(c, BinOp::Minimum, true)
    });
    t.insert("coreai.decomposable.broadcasting_and", |c| {
        bin(c, BinOp::LogicalAnd, true)
    });
    t.insert("coreai.decomposable.broadcasting_or", |c| {
        bin(c, BinOp::LogicalOr, true)
    });
    t.insert("coreai.decomposable.broadcasting_xor", |c| {
        bin(c, BinOp::LogicalXor, true)
    });
    t.insert("coreai.decomposable.broadcasting_bitwise_and", |c| {
        bin(c, BinOp::BitAnd, true)
    });
    t.insert("coreai.decomposable.broadcasting_bitwise_or", |c| {
        bin(c, BinOp::BitOr, true)
    });
    t.insert("coreai.decomposable.broadcasting_bitwise_xor", |c| {
        bin(c, BinOp::BitXor, true)
    });
    t.insert("coreai.decomposable.broadcasting_equal", |c| {
        cmp(c, CmpOp::Eq)
    });
    t.insert("coreai.decomposable.broadcasting_not_equal", |c| {
        cmp(c, CmpOp::Ne)
    });
    t.insert("coreai.decomposable.broadcasting_greater", |c| {
        cmp(c, CmpOp::Gt)
    });
    t.insert("coreai.decomposable.broadcasting_where", where_op);
    t.insert(
        "coreai.decomposable.broadcasting_batch_matmul",
        batch_matmul,
    );
    t.insert("coreai.batch_matmul", batch_matmul);
    // reductions
    t.insert("coreai.reduce_sum", |c| reduce_op(c, Reduction::Sum));
    t.insert("coreai.reduce_mean", |c| reduce_op(c, Reduction::Mean));
    t.insert("coreai.reduce_max", |c| reduce_op(c, Reduction::Max));
    t.insert("coreai.reduce_min", |c| reduce_op(c, Reduction::Min));
    t.insert("coreai.reduce_product", |c| reduce_op(c, Reduction::Prod));
    t.insert("coreai.any", |c| reduce_op(c, Reduction::Any));
    t.insert("coreai.all", |c| reduce_op(c, Reduction::All));
    t.insert("coreai.argmax", argmax);
    t.insert("coreai.softmax", softmax);
    t.insert("coreai.scan", scan);
    // shapes and data movement
    t.insert("coreai.reshape", reshape);
    t.insert("coreai.expand_dims", expand_dims);
    t.insert("coreai.shrink_dims", shrink_dims);
    t.insert("coreai.transpose", transpose);
    t.insert("coreai.broadcast_to", broadcast_to);
    t.insert("coreai.concat", concat);
    t.insert("coreai.slice", slice);
    t.insert("coreai.split", split);
    t.insert("coreai.gather_along_axis", gather_along_axis);
    t.insert("coreai.tile", tile);
    t.insert("coreai.reverse", reverse);
    t.insert("coreai.pad", pad);
    t.insert("coreai.broadcast_in_dims", broadcast_in_dims);
    t.insert("coreai.scatter_along_axis", scatter_along_axis);
    t.insert("coreai.scatter_nd", scatter_nd);
    t.insert("coreai.non_zero", non_zero);
    t.insert("coreai.range", range);
    t.insert("coreai.get_shape", get_shape);
    t.insert("coreai.slice_update", slice_update);
    t.insert("coreai.gather_nd", gather_nd);
    t.insert("coreai.argsort", |c| sort_impl(c, 0));
    t.insert("coreai.sort", |c| sort_impl(c, 0));
    // complex
    t.insert("coreai.real_part", |c| match c.arg(0)? {
        Tensor::C64(a) => one(Tensor::F32(a.mapv(|v| v.re))),
        _ => kerr("real_part needs a complex operand"),
    });
    t.insert("coreai.imaginary_part", |c| match c.arg(0)? {
        Tensor::C64(a) => one(Tensor::F32(a.mapv(|v| v.im))),
        _ => kerr("imaginary_part needs a complex operand"),
    });
    t.insert("coreai.create_complex", |c| {
        let (re, im) = (c.arg(0)?.to_f64(), c.arg(1)?.to_f64());
        let z = crate::kernels::elementwise::zip2(&re, &im, |a, b| {
            num_complex::Complex32::new(a as f32, b as f32)
        })?;
        one(Tensor::C64(z))
    });
    // convolution and pooling
    t.insert("coreai.conv2d", conv2d);
    t.insert("coreai.max_pool_2d", max_pool_2d);
    t.insert("coreai.sum_pool_2d", sum_pool_2d);
    t.insert("coreai.conv3d", conv3d);
    t.insert("coreai.conv_transpose2d", conv_transpose);
    t.insert("coreai.conv_transpose3d", conv_transpose);
    t.insert("coreai.sum_pool_3d", sum_pool_3d);
    t.insert("coreai.interpolate", interpolate);
    // states and ordering
    t.insert("coreai.create_token", |_| Ok(vec![Value::Token]));
    t.insert("coreai.join_token", |_| Ok(vec![Value::Token]));
    t.insert("coreai.read_handle", read_handle);
    t.insert("coreai.write_handle", write_handle);
    // coreaix: views change only the constraint encoding, never the data.
    t.insert("coreaix.view", |c| one(c.arg(0)?.clone()));
    t.insert("coreaix.cast", |c| one(c.arg(0)?.cast(c.out_dtype(0)?)));
    t.insert("coreaix.copy_with_constraints", |c| one(c.arg(0)?.clone()));
    t.insert("coreaix.copy_discarding_constraints", |c| {
        one(c.arg(0)?.clone())
    });
}
