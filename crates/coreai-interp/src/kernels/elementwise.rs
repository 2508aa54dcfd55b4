//! Elementwise kernels: unary and binary arithmetic with NumPy broadcasting,
//! comparisons, `where`. Operands arrive already converted to the compute
//! dtype's domain; the caller rounds the result to the result type.

use crate::error::{kerr, KResult};
use crate::tensor::{Dom, Tensor};
use ndarray::{ArrayD, IxDyn, Zip};
use num_complex::Complex;
use rayon::prelude::*;

/// NumPy/PyTorch broadcast of two shapes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> KResult<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return kerr(format!("shapes {a:?} and {b:?} do not broadcast")),
        };
    }
    Ok(out)
}

/// Broadcasts `a` to `shape` (a view, no copy).
pub fn view_as<'a, T>(a: &'a ArrayD<T>, shape: &[usize]) -> KResult<ndarray::ArrayViewD<'a, T>> {
    match a.broadcast(IxDyn(shape)) {
        Some(v) => Ok(v),
        None => kerr(format!(
            "shape {:?} does not broadcast to {:?}",
            a.shape(),
            shape
        )),
    }
}

/// Below this many elements an elementwise op runs on the calling thread.
pub(crate) const PARALLEL_MIN_ELEMENTS: usize = 1 << 16;

/// `f` applied to the broadcast pair.
pub fn zip2<A: Copy + Send + Sync, B: Copy + Send + Sync, R: Send>(
    a: &ArrayD<A>,
    b: &ArrayD<B>,
    f: impl Fn(A, B) -> R + Sync + Send,
) -> KResult<ArrayD<R>> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let (va, vb) = (view_as(a, &shape)?, view_as(b, &shape)?);
    if let Some(r) = zip2_rows(&va, &vb, &f) {
        return Ok(r);
    }
    // Handing a small array to the thread pool costs more than the work.
    if shape.iter().product::<usize>() < PARALLEL_MIN_ELEMENTS {
        Ok(Zip::from(&va).and(&vb).map_collect(|&x, &y| f(x, y)))
    } else {
        Ok(Zip::from(&va).and(&vb).par_map_collect(|&x, &y| f(x, y)))
    }
}

/// Float element types computed through f64 and rounded back once, as
/// [`crate::tensor::Tensor::from_f64`] rounds: kernels over these give the
/// same bits as the f64 domain without converting whole arrays.
pub trait Real: Copy + Send + Sync + 'static {
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
}

impl Real for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl Real for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl Real for half::f16 {
    fn to_f64(self) -> f64 {
        half::f16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        half::f16::from_f64(v)
    }
}

impl Real for half::bf16 {
    fn to_f64(self) -> f64 {
        half::bf16::to_f64(self)
    }
    fn from_f64(v: f64) -> Self {
        half::bf16::from_f64(v)
    }
}

/// `f` (computed in f64) of every element of a float tensor, rounded to its
/// dtype; `None` for other dtypes. Large tensors run on rayon.
pub fn map_float(x: &Tensor, f: impl Fn(f64) -> f64 + Sync + Send) -> Option<Tensor> {
    fn go<T: Real>(a: &ArrayD<T>, f: impl Fn(f64) -> f64 + Sync + Send) -> ArrayD<T> {
        if a.len() < PARALLEL_MIN_ELEMENTS {
            a.mapv(|v| T::from_f64(f(v.to_f64())))
        } else {
            Zip::from(a).par_map_collect(|&v| T::from_f64(f(v.to_f64())))
        }
    }
    Some(match x {
        Tensor::F32(a) => Tensor::F32(go(a, f)),
        Tensor::F64(a) => Tensor::F64(go(a, f)),
        Tensor::F16(a) => Tensor::F16(go(a, f)),
        Tensor::BF16(a) => Tensor::BF16(go(a, f)),
        _ => return None,
    })
}

/// `op` of a float tensor in its own dtype (see [`map_float`]); `None`
/// when `op` is not a float operation or `x` is not a float tensor.
pub fn unary_float(op: UnOp, x: &Tensor) -> Option<Tensor> {
    map_float(x, float_unary(op).ok()?)
}

/// Element offsets of every index of dims of sizes `shape` and element
/// strides `strides`, in row-major order.
pub(crate) fn index_offsets(shape: &[usize], strides: &[isize]) -> Vec<isize> {
    let mut offs = vec![0isize];
    for (&n, &st) in shape.iter().zip(strides) {
        offs = offs
            .iter()
            .flat_map(|&o| (0..n as isize).map(move |i| o + i * st))
            .collect();
    }
    offs
}

/// A read-only pointer into an operand shared with rayon's workers, or the
/// result they write in disjoint ranges.
pub(crate) struct Ptr<T>(pub(crate) *mut T);
impl<T> Clone for Ptr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ptr<T> {}
// SAFETY: workers read the operands and write disjoint ranges of the result.
unsafe impl<T> Send for Ptr<T> {}
unsafe impl<T> Sync for Ptr<T> {}

impl<T> Ptr<T> {
    pub(crate) fn at(self, offset: isize) -> *mut T {
        self.0.wrapping_offset(offset)
    }
}

/// Elements per unit of work of [`zip2_rows`].
const ROW_CHUNK: usize = 1 << 13;

/// [`zip2`] of two broadcast views as runs over the output's trailing dims
/// merged as far as both operands allow: each run reads each operand as a
/// contiguous slice or one repeated element, so the loop is a plain slice
/// loop. `None` (the general path) for negative strides or a trailing stride
/// other than 0 or 1.
fn zip2_rows<A: Copy + Send + Sync, B: Copy + Send + Sync, R: Send>(
    va: &ndarray::ArrayViewD<'_, A>,
    vb: &ndarray::ArrayViewD<'_, B>,
    f: &(impl Fn(A, B) -> R + Sync + Send),
) -> Option<ArrayD<R>> {
    let shape = va.shape();
    let n = shape.len();
    let total: usize = shape.iter().product();
    let (sa, sb) = (va.strides(), vb.strides());
    if n == 0 || total == 0 || sa.iter().chain(sb).any(|&s| s < 0) {
        return None;
    }
    let unit = |s: isize| {
        if shape[n - 1] == 1 {
            Some(0)
        } else {
            matches!(s, 0 | 1).then_some(s)
        }
    };
    let (ia, ib) = (unit(sa[n - 1])?, unit(sb[n - 1])?);
    // Merge trailing dims while each operand stays one run.
    let (mut len, mut k) = (shape[n - 1], n - 1);
    while k > 0 {
        let fits =
            |s: &[isize], inner: isize| s[k - 1] == inner * len as isize || shape[k - 1] == 1;
        if !(fits(sa, ia) && fits(sb, ib)) {
            break;
        }
        len *= shape[k - 1];
        k -= 1;
    }
    let (oa, ob) = (
        index_offsets(&shape[..k], sa),
        index_offsets(&shape[..k], sb),
    );
    let mut out: Vec<R> = coreai_ir::alloc::buffer(total);
    let (pa, pb) = (Ptr(va.as_ptr() as *mut A), Ptr(vb.as_ptr() as *mut B));
    let po = Ptr(out.as_mut_ptr());
    let chunks = len.div_ceil(ROW_CHUNK);
    let unit_of_work = |u: usize| {
        let (row, c) = (u / chunks, u % chunks);
        let (start, end) = (c * ROW_CHUNK, ((c + 1) * ROW_CHUNK).min(len));
        // SAFETY: the offsets and unit strides address elements of the
        // views' arrays; each unit writes its own range of `out`.
        unsafe {
            let (xa, xb) = (pa.at(oa[row]), pb.at(ob[row]));
            let dst = po.at((row * len) as isize);
            // One loop per kind of run, so each is a plain slice loop.
            match (ia, ib) {
                (1, 1) => (start..end).for_each(|j| dst.add(j).write(f(*xa.add(j), *xb.add(j)))),
                (1, _) => (start..end).for_each(|j| dst.add(j).write(f(*xa.add(j), *xb))),
                (_, 1) => (start..end).for_each(|j| dst.add(j).write(f(*xa, *xb.add(j)))),
                _ => (start..end).for_each(|j| dst.add(j).write(f(*xa, *xb))),
            }
        }
    };
    let units = oa.len() * chunks;
    if total < PARALLEL_MIN_ELEMENTS {
        (0..units).for_each(unit_of_work);
    } else {
        (0..units).into_par_iter().for_each(unit_of_work);
    }
    // SAFETY: the units cover every output element once.
    unsafe { out.set_len(total) };
    Some(ArrayD::from_shape_vec(IxDyn(shape), out).expect("sizes agree"))
}

/// Binary arithmetic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// True division (the caller computes in a float type for integers).
    Div,
    /// Division rounded toward −∞ (Python `//`).
    FloorDiv,
    /// Division rounded toward zero.
    TruncDiv,
    /// Python `%`: the sign of the divisor.
    Remainder,
    /// C `fmod`: the sign of the dividend.
    Fmod,
    Pow,
    /// NaN-propagating maximum (`torch.maximum`).
    Maximum,
    Minimum,
    BitAnd,
    BitOr,
    BitXor,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    Atan2,
}

/// Comparisons; results are bool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Python's float floor division (what PyTorch's `div_floor_floating` does).
pub fn floor_div_f64(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div != 0.0 {
        let mut fl = div.floor();
        if div - fl > 0.5 {
            fl += 1.0;
        }
        fl
    } else {
        (0.0f64).copysign(a / b)
    }
}

/// PyTorch's float `remainder`: `fmod` moved to the divisor's sign.
pub fn remainder_f64(a: f64, b: f64) -> f64 {
    let mut m = a % b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        m += b;
    }
    m
}

fn int_div_check(b: i128) -> KResult<()> {
    if b == 0 {
        kerr("ZeroDivisionError: integer division by zero")
    } else {
        Ok(())
    }
}

fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        // max(-0, +0) = +0
        if a.is_sign_negative() {
            b
        } else {
            a
        }
    } else {
        a.max(b)
    }
}

fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        if a.is_sign_negative() {
            a
        } else {
            b
        }
    } else {
        a.min(b)
    }
}

fn float_binary(op: BinOp) -> KResult<fn(f64, f64) -> f64> {
    Ok(match op {
        BinOp::Add => |a, b| a + b,
        BinOp::Sub => |a, b| a - b,
        BinOp::Mul => |a, b| a * b,
        BinOp::Div => |a, b| a / b,
        BinOp::FloorDiv => floor_div_f64,
        BinOp::TruncDiv => |a, b| (a / b).trunc(),
        BinOp::Remainder => remainder_f64,
        BinOp::Fmod => |a, b| a % b,
        BinOp::Pow => f64::powf,
        BinOp::Maximum => nan_max,
        BinOp::Minimum => nan_min,
        BinOp::Atan2 => f64::atan2,
        BinOp::LogicalAnd => |a, b| ((a != 0.0) && (b != 0.0)) as u8 as f64,
        BinOp::LogicalOr => |a, b| ((a != 0.0) || (b != 0.0)) as u8 as f64,
        BinOp::LogicalXor => |a, b| ((a != 0.0) != (b != 0.0)) as u8 as f64,
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
            return kerr(format!("{op:?} is not defined for floating-point tensors"));
        }
    })
}

fn int_binary(op: BinOp, a: i128, b: i128) -> KResult<i128> {
    Ok(match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div | BinOp::TruncDiv => {
            int_div_check(b)?;
            a.wrapping_div(b)
        }
        BinOp::FloorDiv => {
            int_div_check(b)?;
            let q = a.wrapping_div(b);
            if (a % b != 0) && ((a < 0) != (b < 0)) {
                q - 1
            } else {
                q
            }
        }
        BinOp::Remainder => {
            int_div_check(b)?;
            let m = a % b;
            if m != 0 && ((m < 0) != (b < 0)) {
                m + b
            } else {
                m
            }
        }
        BinOp::Fmod => {
            int_div_check(b)?;
            a % b
        }
        BinOp::Pow => {
            if b < 0 {
                return kerr("Integers to negative integer powers are not allowed");
            }
            let mut r: i128 = 1;
            let mut base = a;
            let mut e = b;
            while e > 0 {
                if e & 1 == 1 {
                    r = r.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                e >>= 1;
            }
            r
        }
        BinOp::Maximum => a.max(b),
        BinOp::Minimum => a.min(b),
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::LogicalAnd => ((a != 0) && (b != 0)) as i128,
        BinOp::LogicalOr => ((a != 0) || (b != 0)) as i128,
        BinOp::LogicalXor => ((a != 0) != (b != 0)) as i128,
        BinOp::Atan2 => return kerr("atan2 needs floating-point operands"),
    })
}

/// `op` on two operands of the same domain, broadcast.
pub fn binary(op: BinOp, a: &Dom, b: &Dom) -> KResult<Dom> {
    match (a, b) {
        (Dom::F(x), Dom::F(y)) => {
            let f = float_binary(op)?;
            Ok(Dom::F(zip2(x, y, f)?))
        }
        (Dom::I(x), Dom::I(y)) => {
            let r = zip2(x, y, |p, q| int_binary(op, p, q))?;
            let mut out = Vec::with_capacity(r.len());
            for v in r.iter() {
                match v {
                    Ok(v) => out.push(*v),
                    Err(e) => return Err(crate::error::InterpError::Kernel(e.to_string())),
                }
            }
            Ok(Dom::I(ArrayD::from_shape_vec(r.raw_dim(), out).map_err(
                |e| crate::error::InterpError::Kernel(e.to_string()),
            )?))
        }
        (Dom::B(x), Dom::B(y)) => {
            let f: fn(bool, bool) -> bool = match op {
                BinOp::BitAnd | BinOp::LogicalAnd | BinOp::Mul | BinOp::Minimum => |p, q| p & q,
                BinOp::BitOr | BinOp::LogicalOr | BinOp::Add | BinOp::Maximum => |p, q| p | q,
                BinOp::BitXor | BinOp::LogicalXor => |p, q| p ^ q,
                _ => return kerr(format!("{op:?} is not defined for bool tensors")),
            };
            Ok(Dom::B(zip2(x, y, f)?))
        }
        (Dom::C(x), Dom::C(y)) => {
            let f: fn(Complex<f64>, Complex<f64>) -> Complex<f64> = match op {
                BinOp::Add => |p, q| p + q,
                BinOp::Sub => |p, q| p - q,
                BinOp::Mul => |p, q| p * q,
                BinOp::Div => |p, q| p / q,
                BinOp::Pow => |p, q| p.powc(q),
                _ => return kerr(format!("{op:?} is not defined for complex tensors")),
            };
            Ok(Dom::C(zip2(x, y, f)?))
        }
        _ => kerr("binary operands are in different domains"),
    }
}

/// A comparison of two operands of the same domain, broadcast.
pub fn compare(op: CmpOp, a: &Dom, b: &Dom) -> KResult<ArrayD<bool>> {
    fn cmp<T: PartialOrd + Copy + Send + Sync>(
        op: CmpOp,
        x: &ArrayD<T>,
        y: &ArrayD<T>,
    ) -> KResult<ArrayD<bool>> {
        match op {
            CmpOp::Eq => zip2(x, y, |p, q| p == q),
            CmpOp::Ne => zip2(x, y, |p, q| p != q),
            CmpOp::Lt => zip2(x, y, |p, q| p < q),
            CmpOp::Le => zip2(x, y, |p, q| p <= q),
            CmpOp::Gt => zip2(x, y, |p, q| p > q),
            CmpOp::Ge => zip2(x, y, |p, q| p >= q),
        }
    }
    match (a, b) {
        (Dom::F(x), Dom::F(y)) => cmp(op, x, y),
        (Dom::I(x), Dom::I(y)) => cmp(op, x, y),
        (Dom::B(x), Dom::B(y)) => cmp(op, x, y),
        (Dom::C(x), Dom::C(y)) => match op {
            CmpOp::Eq => zip2(x, y, |p, q| p == q),
            CmpOp::Ne => zip2(x, y, |p, q| p != q),
            _ => kerr("complex numbers are not ordered"),
        },
        _ => kerr("comparison operands are in different domains"),
    }
}

/// Unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Abs,
    Relu,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sqrt,
    Rsqrt,
    Reciprocal,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Sigmoid,
    Silu,
    Erf,
    GeluErf,
    GeluTanh,
    GeluSigmoid,
    Floor,
    Ceil,
    /// Round half to even, as `torch.round`.
    Round,
    Trunc,
    Sign,
    LogicalNot,
    BitwiseNot,
    IsNan,
    IsInf,
    Square,
}

/// The error function (libm's `erf`).
pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// `gelu(x) = x·Φ(x)` at its mathematical value: `+inf` at `+inf`, `-0.0`
/// at `-inf` (the limit, from below), NaN at NaN. `Φ(x) = erfc(-x/√2)/2`
/// keeps the relative accuracy of the negative tail, where `1 + erf(x/√2)`
/// cancels to 0 (gelu(-10) ≈ -7.6e-23, not -0.0). PyTorch's CPU kernels are
/// no oracle at the infinities: NaN at `-inf`, and at `+inf` NaN or `+inf`
/// depending on the kernel path (test/interp/test_fast_paths.py).
pub fn gelu_erf(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    0.5 * x * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
}

/// The tanh approximation `x/2·(1 + tanh(u))`, `u = √(2/π)(x + 0.044715x³)`,
/// written as `x / (1 + exp(-2u))` (the same function, without the
/// cancellation of `1 + tanh(u)` for negative `u`); `+inf` at `+inf`, `-0.0`
/// at `-inf`.
pub fn gelu_tanh(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    let u = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
    x / (1.0 + (-2.0 * u).exp())
}

/// The sigmoid approximation `x·σ(1.702x)`; `+inf` at `+inf`, `-0.0` at
/// `-inf`.
pub fn gelu_sigmoid(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    x / (1.0 + (-1.702 * x).exp())
}

fn float_unary(op: UnOp) -> KResult<fn(f64) -> f64> {
    Ok(match op {
        UnOp::Neg => |x| -x,
        UnOp::Abs => f64::abs,
        // relu keeps NaN and -0.0 (PyTorch: relu(-0.0) == -0.0).
        UnOp::Relu => |x| if x < 0.0 { 0.0 } else { x },
        UnOp::Exp => f64::exp,
        UnOp::Exp2 => f64::exp2,
        UnOp::Expm1 => f64::exp_m1,
        UnOp::Log => f64::ln,
        UnOp::Log2 => f64::log2,
        UnOp::Log10 => f64::log10,
        UnOp::Log1p => f64::ln_1p,
        UnOp::Sqrt => f64::sqrt,
        UnOp::Rsqrt => |x| 1.0 / x.sqrt(),
        UnOp::Reciprocal => |x| 1.0 / x,
        UnOp::Sin => f64::sin,
        UnOp::Cos => f64::cos,
        UnOp::Tan => f64::tan,
        UnOp::Asin => f64::asin,
        UnOp::Acos => f64::acos,
        UnOp::Atan => f64::atan,
        UnOp::Sinh => f64::sinh,
        UnOp::Cosh => f64::cosh,
        UnOp::Tanh => f64::tanh,
        UnOp::Asinh => f64::asinh,
        UnOp::Acosh => f64::acosh,
        UnOp::Atanh => f64::atanh,
        UnOp::Sigmoid => |x| 1.0 / (1.0 + (-x).exp()),
        UnOp::Silu => |x| x / (1.0 + (-x).exp()),
        UnOp::Erf => erf,
        UnOp::GeluErf => gelu_erf,
        UnOp::GeluTanh => gelu_tanh,
        UnOp::GeluSigmoid => gelu_sigmoid,
        UnOp::Floor => f64::floor,
        UnOp::Ceil => f64::ceil,
        UnOp::Round => f64::round_ties_even,
        UnOp::Trunc => f64::trunc,
        UnOp::Sign => |x| {
            if x.is_nan() {
                x
            } else if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            }
        },
        UnOp::Square => |x| x * x,
        UnOp::LogicalNot => |x| (x == 0.0) as u8 as f64,
        UnOp::IsNan => |x| x.is_nan() as u8 as f64,
        UnOp::IsInf => |x| x.is_infinite() as u8 as f64,
        UnOp::BitwiseNot => return kerr("bitwise_not is not defined for floating-point tensors"),
    })
}

/// `op` elementwise. Float-only operations on integer operands are an error
/// (the caller converts to the float result type first).
pub fn unary(op: UnOp, a: &Dom) -> KResult<Dom> {
    match a {
        Dom::F(x) => {
            let f = float_unary(op)?;
            Ok(Dom::F(x.mapv(f)))
        }
        Dom::I(x) => {
            let f: fn(i128) -> i128 = match op {
                UnOp::Neg => |v: i128| v.wrapping_neg(),
                UnOp::Abs => |v: i128| v.wrapping_abs(),
                UnOp::Relu => |v: i128| v.max(0),
                UnOp::Sign => |v: i128| v.signum(),
                UnOp::Square => |v: i128| v.wrapping_mul(v),
                UnOp::Floor | UnOp::Ceil | UnOp::Round | UnOp::Trunc => |v| v,
                UnOp::BitwiseNot => |v: i128| !v,
                UnOp::LogicalNot => |v: i128| (v == 0) as i128,
                UnOp::IsNan | UnOp::IsInf => |_| 0,
                _ => return kerr(format!("{op:?} needs a floating-point operand")),
            };
            Ok(Dom::I(x.mapv(f)))
        }
        Dom::B(x) => match op {
            UnOp::LogicalNot | UnOp::BitwiseNot => Ok(Dom::B(x.mapv(|v| !v))),
            UnOp::Abs | UnOp::Relu | UnOp::Floor | UnOp::Ceil | UnOp::Round | UnOp::Trunc => {
                Ok(Dom::B(x.clone()))
            }
            _ => kerr(format!("{op:?} is not defined for bool tensors")),
        },
        Dom::C(x) => match op {
            UnOp::Neg => Ok(Dom::C(x.mapv(|v| -v))),
            UnOp::Exp => Ok(Dom::C(x.mapv(|v| v.exp()))),
            UnOp::Abs => Ok(Dom::F(x.mapv(|v| v.norm()))),
            _ => kerr(format!("{op:?} is not defined for complex tensors")),
        },
    }
}

/// `cond ? a : b`, broadcast over the three.
pub fn where_(cond: &ArrayD<bool>, a: &Dom, b: &Dom) -> KResult<Dom> {
    fn sel<T: Copy + Send + Sync>(
        c: &ArrayD<bool>,
        x: &ArrayD<T>,
        y: &ArrayD<T>,
    ) -> KResult<ArrayD<T>> {
        let s = broadcast_shapes(c.shape(), &broadcast_shapes(x.shape(), y.shape())?)?;
        let (vc, vx, vy) = (view_as(c, &s)?, view_as(x, &s)?, view_as(y, &s)?);
        Ok(Zip::from(&vc)
            .and(&vx)
            .and(&vy)
            .map_collect(|&c, &p, &q| if c { p } else { q }))
    }
    match (a, b) {
        (Dom::F(x), Dom::F(y)) => Ok(Dom::F(sel(cond, x, y)?)),
        (Dom::I(x), Dom::I(y)) => Ok(Dom::I(sel(cond, x, y)?)),
        (Dom::B(x), Dom::B(y)) => Ok(Dom::B(sel(cond, x, y)?)),
        (Dom::C(x), Dom::C(y)) => Ok(Dom::C(sel(cond, x, y)?)),
        _ => kerr("where operands are in different domains"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr1;

    fn f(v: &[f64]) -> Dom {
        Dom::F(arr1(v).into_dyn())
    }
    fn i(v: &[i128]) -> Dom {
        Dom::I(arr1(v).into_dyn())
    }
    fn fv(d: Dom) -> Vec<f64> {
        match d {
            Dom::F(a) => a.iter().copied().collect(),
            _ => panic!("not float"),
        }
    }
    fn iv(d: Dom) -> Vec<i128> {
        match d {
            Dom::I(a) => a.iter().copied().collect(),
            _ => panic!("not int"),
        }
    }

    /// The three gelu forms against their mathematical values: the limits
    /// at ±inf, NaN, signed zero, and the negative tail (x·Φ(x), computed
    /// with mpmath at 50 digits and rounded once to f64).
    #[test]
    fn gelu_special_values_are_the_mathematical_ones() {
        for g in [gelu_erf, gelu_tanh, gelu_sigmoid] {
            assert_eq!(g(f64::INFINITY), f64::INFINITY);
            let r = g(f64::NEG_INFINITY);
            assert!(r == 0.0 && r.is_sign_negative(), "{r}");
            assert!(g(f64::NAN).is_nan());
            assert!(g(0.0) == 0.0 && g(0.0).is_sign_positive());
            assert!(g(-0.0) == 0.0 && g(-0.0).is_sign_negative());
            assert_eq!(g(1e300), 1e300);
            let r = g(-1e300);
            assert!(r == 0.0 && r.is_sign_negative(), "{r}");
        }
        let close = |a: f64, b: f64| ((a - b) / b).abs() < 1e-14;
        for (x, erf_form, tanh_form, sigmoid_form) in [
            (
                1.0,
                0.8413447460685429,
                0.8411919906082767,
                0.8457957659328212,
            ),
            (
                -1.0,
                -0.15865525393145705,
                -0.1588080093917233,
                -0.1542042340671787,
            ),
            (
                -5.0,
                -1.4332578593959695e-06,
                -2.291796196629506e-07,
                -0.0010070162673523689,
            ),
            (
                -10.0,
                -7.619853024160526e-23,
                -1.204092348209806e-37,
                -4.05796129485531e-07,
            ),
            (3.0, 2.99595030590511, 2.996362607918227, 2.981928690292214),
        ] {
            assert!(close(gelu_erf(x), erf_form), "gelu({x}) = {}", gelu_erf(x));
            assert!(
                close(gelu_tanh(x), tanh_form),
                "gelu_tanh({x}) = {}",
                gelu_tanh(x)
            );
            assert!(
                close(gelu_sigmoid(x), sigmoid_form),
                "gelu_sigmoid({x}) = {}",
                gelu_sigmoid(x)
            );
        }
    }

    #[test]
    fn zip2_runs_match_ndarray_zip() {
        let pairs: [(&[usize], &[usize]); 8] = [
            (&[2, 3, 4], &[4]),
            (&[2, 3, 4], &[3, 1]),
            (&[1, 128, 1], &[1, 128, 256]),
            (&[5], &[1]),
            (&[2, 1, 4], &[1, 3, 1]),
            (&[300, 300], &[300]),
            (&[7, 1], &[7, 1]),
            (&[], &[3, 2]),
        ];
        let arr = |s: &[usize], salt: i64| {
            let n: usize = s.iter().product();
            ArrayD::from_shape_vec(IxDyn(s), (0..n as i64).map(|v| v * 3 + salt).collect()).unwrap()
        };
        for (sa, sb) in pairs {
            let (a, b) = (arr(sa, 1), arr(sb, -7));
            let shape = broadcast_shapes(sa, sb).unwrap();
            let want = Zip::from(&view_as(&a, &shape).unwrap())
                .and(&view_as(&b, &shape).unwrap())
                .map_collect(|&x, &y| x * 1000 - y);
            assert_eq!(
                zip2(&a, &b, |x, y| x * 1000 - y).unwrap(),
                want,
                "{sa:?} {sb:?}"
            );
            // Swapped operands: the broadcast one first.
            assert_eq!(
                zip2(&b, &a, |y, x| x * 1000 - y).unwrap(),
                want,
                "{sb:?} {sa:?}"
            );
        }
        // A transposed (non-unit inner stride) operand takes the general path.
        let a = arr(&[3, 4], 0).reversed_axes();
        let b = arr(&[4, 3], 5);
        let want = Zip::from(&a).and(&b).map_collect(|&x, &y| x + 2 * y);
        assert_eq!(zip2(&a, &b, |x, y| x + 2 * y).unwrap(), want);
    }

    #[test]
    fn floor_and_trunc_division() {
        let a = i(&[7, -7, 7, -7]);
        let b = i(&[2, 2, -2, -2]);
        assert_eq!(
            iv(binary(BinOp::FloorDiv, &a, &b).unwrap()),
            vec![3, -4, -4, 3]
        );
        assert_eq!(
            iv(binary(BinOp::TruncDiv, &a, &b).unwrap()),
            vec![3, -3, -3, 3]
        );
        assert_eq!(
            iv(binary(BinOp::Remainder, &a, &b).unwrap()),
            vec![1, 1, -1, -1]
        );
        assert_eq!(iv(binary(BinOp::Fmod, &a, &b).unwrap()), vec![1, -1, 1, -1]);
        let fa = f(&[7.5, -7.5, 0.0, -0.0]);
        let fb = f(&[2.0, 2.0, -3.0, 3.0]);
        let r = fv(binary(BinOp::FloorDiv, &fa, &fb).unwrap());
        assert_eq!(r[..2], [3.0, -4.0]);
        assert!(r[2] == 0.0 && r[2].is_sign_negative());
        assert!(r[3] == 0.0 && r[3].is_sign_negative());
        assert_eq!(fv(binary(BinOp::Remainder, &fa, &fb).unwrap())[1], 0.5);
    }

    #[test]
    fn integer_division_by_zero_is_an_error() {
        assert!(binary(BinOp::FloorDiv, &i(&[1]), &i(&[0])).is_err());
        let r = fv(binary(BinOp::Div, &f(&[1.0, -1.0, 0.0]), &f(&[0.0, 0.0, 0.0])).unwrap());
        assert_eq!(r[0], f64::INFINITY);
        assert_eq!(r[1], f64::NEG_INFINITY);
        assert!(r[2].is_nan());
    }

    #[test]
    fn nan_propagates_through_max_min() {
        let r = fv(binary(BinOp::Maximum, &f(&[f64::NAN, 1.0]), &f(&[1.0, f64::NAN])).unwrap());
        assert!(r[0].is_nan() && r[1].is_nan());
        let r = fv(binary(BinOp::Minimum, &f(&[-0.0]), &f(&[0.0])).unwrap());
        assert!(r[0].is_sign_negative());
        let r = fv(unary(UnOp::Relu, &f(&[-0.0, f64::NAN, -3.0])).unwrap());
        assert!(r[0].is_sign_negative() && r[1].is_nan() && r[2] == 0.0);
    }

    #[test]
    fn broadcasting() {
        let a = Dom::F(ndarray::Array::from_shape_vec(vec![2, 1], vec![1.0, 2.0]).unwrap());
        let b = f(&[10.0, 20.0, 30.0]);
        let r = binary(BinOp::Add, &a, &b).unwrap();
        let Dom::F(r) = r else { panic!() };
        assert_eq!(r.shape(), &[2, 3]);
        assert_eq!(
            r.iter().copied().collect::<Vec<_>>(),
            vec![11., 21., 31., 12., 22., 32.]
        );
        assert!(broadcast_shapes(&[2, 3], &[4]).is_err());
    }

    #[test]
    fn round_half_even_and_int_pow_wraps() {
        assert_eq!(
            fv(unary(UnOp::Round, &f(&[0.5, 1.5, 2.5, -0.5])).unwrap()),
            vec![0.0, 2.0, 2.0, -0.0]
        );
        let r = iv(binary(BinOp::Pow, &i(&[3]), &i(&[40])).unwrap());
        assert_eq!(
            crate::tensor::wrap_int(r[0], crate::tensor::DType::I32),
            3i32.wrapping_pow(40) as i128
        );
        assert!(binary(BinOp::Pow, &i(&[2]), &i(&[-1])).is_err());
    }
}
