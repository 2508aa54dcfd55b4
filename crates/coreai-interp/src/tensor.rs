//! Typed tensors: one `ndarray` array per element type, and the exact
//! conversions between them.
//!
//! Arithmetic happens in a *domain* ([`Dom`]): floats in f64, integers in
//! i128, booleans, complex in `Complex<f64>`. A result is brought back to its
//! element type by [`Tensor::from_dom`], which rounds floats to nearest-even as
//! IEEE does (f64 is wide enough that one rounding of an exact +, −, ×, ÷ or √
//! in f64 equals the correctly rounded f32/f16/bf16 result) and wraps integers
//! at their width.

use crate::error::{kerr, KResult};
use half::{bf16, f16};
use ndarray::{ArrayD, IxDyn};
use num_complex::{Complex, Complex32};

/// The element types the executor knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
    C64,
}

impl DType {
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }
    pub fn is_int(self) -> bool {
        matches!(
            self,
            DType::I8
                | DType::I16
                | DType::I32
                | DType::I64
                | DType::U8
                | DType::U16
                | DType::U32
                | DType::U64
        )
    }
    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }
    pub fn is_complex(self) -> bool {
        self == DType::C64
    }
    /// Bits of an integer type.
    pub fn int_bits(self) -> u32 {
        match self {
            DType::Bool => 1,
            DType::I8 | DType::U8 => 8,
            DType::I16 | DType::U16 => 16,
            DType::I32 | DType::U32 => 32,
            _ => 64,
        }
    }
    /// PyTorch's category order: bool < integer < float < complex.
    pub fn category(self) -> u8 {
        if self == DType::Bool {
            0
        } else if self.is_int() {
            1
        } else if self.is_float() {
            2
        } else {
            3
        }
    }
    /// Bytes per element in memory.
    pub fn size_of(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::C64 => 8,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C64 => "complex64",
        }
    }
}

/// PyTorch's `promote_types` for two dtypes.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a.category(), b.category()) {
        (ca, cb) if ca != cb => {
            let (hi, lo) = if ca > cb { (a, b) } else { (b, a) };
            // complex absorbs f64 only into complex128, which we do not have.
            let _ = lo;
            hi
        }
        (1, 1) => {
            let (sa, sb) = (a.is_signed_int(), b.is_signed_int());
            if sa == sb {
                if a.int_bits() >= b.int_bits() {
                    a
                } else {
                    b
                }
            } else {
                let (s, u) = if sa { (a, b) } else { (b, a) };
                // uint8 with a signed type: the signed type if wider, else
                // the next wider signed type (PyTorch: u8+i8 -> i16).
                if s.int_bits() > u.int_bits() {
                    s
                } else {
                    match u.int_bits() {
                        8 => I16,
                        16 => I32,
                        _ => I64,
                    }
                }
            }
        }
        (2, 2) => match (a, b) {
            (F16, BF16) | (BF16, F16) => F32,
            _ => {
                let rank = |d: DType| match d {
                    F16 | BF16 => 0,
                    F32 => 1,
                    _ => 2,
                };
                if rank(a) >= rank(b) {
                    a
                } else {
                    b
                }
            }
        },
        _ => a,
    }
}

/// PyTorch's result type of a binary op: a 0-d tensor only decides the dtype
/// when its category is higher than the other operand's.
pub fn result_type(a: &Tensor, b: &Tensor) -> DType {
    let (da, db) = (a.dtype(), b.dtype());
    match (a.ndim() == 0, b.ndim() == 0) {
        (true, false) if da.category() <= db.category() => db,
        (false, true) if db.category() <= da.category() => da,
        _ => promote_types(da, db),
    }
}

/// A tensor value.
#[derive(Clone, Debug, PartialEq)]
pub enum Tensor {
    Bool(ArrayD<bool>),
    I8(ArrayD<i8>),
    I16(ArrayD<i16>),
    I32(ArrayD<i32>),
    I64(ArrayD<i64>),
    U8(ArrayD<u8>),
    U16(ArrayD<u16>),
    U32(ArrayD<u32>),
    U64(ArrayD<u64>),
    F16(ArrayD<f16>),
    BF16(ArrayD<bf16>),
    F32(ArrayD<f32>),
    F64(ArrayD<f64>),
    C64(ArrayD<Complex32>),
}

/// Applies `$body` to the array inside any variant, binding it to `$a`.
#[macro_export]
macro_rules! each_tensor {
    ($t:expr, $a:ident => $body:expr) => {
        match $t {
            $crate::tensor::Tensor::Bool($a) => $body,
            $crate::tensor::Tensor::I8($a) => $body,
            $crate::tensor::Tensor::I16($a) => $body,
            $crate::tensor::Tensor::I32($a) => $body,
            $crate::tensor::Tensor::I64($a) => $body,
            $crate::tensor::Tensor::U8($a) => $body,
            $crate::tensor::Tensor::U16($a) => $body,
            $crate::tensor::Tensor::U32($a) => $body,
            $crate::tensor::Tensor::U64($a) => $body,
            $crate::tensor::Tensor::F16($a) => $body,
            $crate::tensor::Tensor::BF16($a) => $body,
            $crate::tensor::Tensor::F32($a) => $body,
            $crate::tensor::Tensor::F64($a) => $body,
            $crate::tensor::Tensor::C64($a) => $body,
        }
    };
}

/// Like [`each_tensor!`] but rebuilds the same variant from `$body`'s array.
#[macro_export]
macro_rules! map_tensor {
    ($t:expr, $a:ident => $body:expr) => {
        match $t {
            $crate::tensor::Tensor::Bool($a) => $crate::tensor::Tensor::Bool($body),
            $crate::tensor::Tensor::I8($a) => $crate::tensor::Tensor::I8($body),
            $crate::tensor::Tensor::I16($a) => $crate::tensor::Tensor::I16($body),
            $crate::tensor::Tensor::I32($a) => $crate::tensor::Tensor::I32($body),
            $crate::tensor::Tensor::I64($a) => $crate::tensor::Tensor::I64($body),
            $crate::tensor::Tensor::U8($a) => $crate::tensor::Tensor::U8($body),
            $crate::tensor::Tensor::U16($a) => $crate::tensor::Tensor::U16($body),
            $crate::tensor::Tensor::U32($a) => $crate::tensor::Tensor::U32($body),
            $crate::tensor::Tensor::U64($a) => $crate::tensor::Tensor::U64($body),
            $crate::tensor::Tensor::F16($a) => $crate::tensor::Tensor::F16($body),
            $crate::tensor::Tensor::BF16($a) => $crate::tensor::Tensor::BF16($body),
            $crate::tensor::Tensor::F32($a) => $crate::tensor::Tensor::F32($body),
            $crate::tensor::Tensor::F64($a) => $crate::tensor::Tensor::F64($body),
            $crate::tensor::Tensor::C64($a) => $crate::tensor::Tensor::C64($body),
        }
    };
}

/// Arithmetic domains (see the module doc).
#[derive(Clone, Debug)]
pub enum Dom {
    F(ArrayD<f64>),
    I(ArrayD<i128>),
    B(ArrayD<bool>),
    C(ArrayD<Complex<f64>>),
}

/// Wraps `v` to an integer of `dtype`'s width and signedness.
pub fn wrap_int(v: i128, dtype: DType) -> i128 {
    let bits = dtype.int_bits();
    if dtype == DType::Bool {
        return (v != 0) as i128;
    }
    let shift = 128 - bits;
    if dtype.is_signed_int() {
        (v << shift) >> shift
    } else {
        ((v as u128) << shift >> shift) as i128
    }
}

/// Float to integer as a C cast does for in-range values (truncation);
/// NaN gives 0 and out-of-range values saturate before wrapping.
fn f64_to_i128(v: f64) -> i128 {
    v as i128
}

impl Tensor {
    pub fn dtype(&self) -> DType {
        match self {
            Tensor::Bool(_) => DType::Bool,
            Tensor::I8(_) => DType::I8,
            Tensor::I16(_) => DType::I16,
            Tensor::I32(_) => DType::I32,
            Tensor::I64(_) => DType::I64,
            Tensor::U8(_) => DType::U8,
            Tensor::U16(_) => DType::U16,
            Tensor::U32(_) => DType::U32,
            Tensor::U64(_) => DType::U64,
            Tensor::F16(_) => DType::F16,
            Tensor::BF16(_) => DType::BF16,
            Tensor::F32(_) => DType::F32,
            Tensor::F64(_) => DType::F64,
            Tensor::C64(_) => DType::C64,
        }
    }
    pub fn shape(&self) -> Vec<usize> {
        each_tensor!(self, a => a.shape().to_vec())
    }
    pub fn ndim(&self) -> usize {
        each_tensor!(self, a => a.ndim())
    }
    pub fn len(&self) -> usize {
        each_tensor!(self, a => a.len())
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A zero-filled tensor.
    pub fn zeros(dtype: DType, shape: &[usize]) -> Tensor {
        Tensor::from_dom(Dom::I(ArrayD::zeros(IxDyn(shape))), dtype)
    }

    /// The value in the arithmetic domain of its own dtype.
    pub fn dom(&self) -> Dom {
        match self {
            Tensor::Bool(a) => Dom::B(a.clone()),
            Tensor::C64(a) => Dom::C(a.mapv(|c| Complex::new(c.re as f64, c.im as f64))),
            t if t.dtype().is_float() => Dom::F(t.to_f64()),
            t => Dom::I(t.to_i128()),
        }
    }

    /// The value in the domain of `dtype` (converted as a cast would).
    pub fn dom_as(&self, dtype: DType) -> Dom {
        if self.dtype() == dtype {
            self.dom()
        } else {
            self.cast(dtype).dom()
        }
    }

    /// Every element as f64 (complex: the real part).
    pub fn to_f64(&self) -> ArrayD<f64> {
        match self {
            Tensor::Bool(a) => a.mapv(|v| v as u8 as f64),
            Tensor::I8(a) => a.mapv(|v| v as f64),
            Tensor::I16(a) => a.mapv(|v| v as f64),
            Tensor::I32(a) => a.mapv(|v| v as f64),
            Tensor::I64(a) => a.mapv(|v| v as f64),
            Tensor::U8(a) => a.mapv(|v| v as f64),
            Tensor::U16(a) => a.mapv(|v| v as f64),
            Tensor::U32(a) => a.mapv(|v| v as f64),
            Tensor::U64(a) => a.mapv(|v| v as f64),
            Tensor::F16(a) => a.mapv(|v| v.to_f64()),
            Tensor::BF16(a) => a.mapv(|v| v.to_f64()),
            Tensor::F32(a) => a.mapv(|v| v as f64),
            Tensor::F64(a) => a.clone(),
            Tensor::C64(a) => a.mapv(|v| v.re as f64),
        }
    }

    /// Every element as i128 (floats truncate toward zero).
    pub fn to_i128(&self) -> ArrayD<i128> {
        match self {
            Tensor::Bool(a) => a.mapv(|v| v as i128),
            Tensor::I8(a) => a.mapv(|v| v as i128),
            Tensor::I16(a) => a.mapv(|v| v as i128),
            Tensor::I32(a) => a.mapv(|v| v as i128),
            Tensor::I64(a) => a.mapv(|v| v as i128),
            Tensor::U8(a) => a.mapv(|v| v as i128),
            Tensor::U16(a) => a.mapv(|v| v as i128),
            Tensor::U32(a) => a.mapv(|v| v as i128),
            Tensor::U64(a) => a.mapv(|v| v as i128),
            Tensor::C64(a) => a.mapv(|v| f64_to_i128(v.re as f64)),
            t => t.to_f64().mapv(f64_to_i128),
        }
    }

    /// Every element as i64 (for indices and shapes).
    pub fn to_i64_vec(&self) -> Vec<i64> {
        self.to_i128().iter().map(|&v| v as i64).collect()
    }

    /// Every element as bool (nonzero).
    pub fn to_bool(&self) -> ArrayD<bool> {
        match self {
            Tensor::Bool(a) => a.clone(),
            Tensor::C64(a) => a.mapv(|v| v.re != 0.0 || v.im != 0.0),
            t if t.dtype().is_float() => t.to_f64().mapv(|v| v != 0.0),
            t => t.to_i128().mapv(|v| v != 0),
        }
    }

    /// Converts a domain value to `dtype`: floats rounded to nearest-even,
    /// integers wrapped at the width, as a PyTorch cast does.
    pub fn from_dom(d: Dom, dtype: DType) -> Tensor {
        match d {
            Dom::F(a) => Tensor::from_f64(a, dtype),
            Dom::I(a) => Tensor::from_i128(a, dtype),
            Dom::B(a) => {
                if dtype == DType::Bool {
                    Tensor::Bool(a)
                } else {
                    Tensor::from_i128(a.mapv(|v| v as i128), dtype)
                }
            }
            Dom::C(a) => match dtype {
                DType::C64 => Tensor::C64(a.mapv(|c| Complex32::new(c.re as f32, c.im as f32))),
                other => Tensor::from_f64(a.mapv(|c| c.re), other),
            },
        }
    }

    pub fn from_f64(a: ArrayD<f64>, dtype: DType) -> Tensor {
        match dtype {
            DType::F64 => Tensor::F64(a),
            DType::F32 => Tensor::F32(a.mapv(|v| v as f32)),
            DType::F16 => Tensor::F16(a.mapv(f16::from_f64)),
            DType::BF16 => Tensor::BF16(a.mapv(bf16::from_f64)),
            DType::C64 => Tensor::C64(a.mapv(|v| Complex32::new(v as f32, 0.0))),
            DType::Bool => Tensor::Bool(a.mapv(|v| v != 0.0)),
            int => Tensor::from_i128(a.mapv(f64_to_i128), int),
        }
    }

    pub fn from_i128(a: ArrayD<i128>, dtype: DType) -> Tensor {
        let w = |v: i128| wrap_int(v, dtype);
        match dtype {
            DType::Bool => Tensor::Bool(a.mapv(|v| v != 0)),
            DType::I8 => Tensor::I8(a.mapv(|v| w(v) as i8)),
            DType::I16 => Tensor::I16(a.mapv(|v| w(v) as i16)),
            DType::I32 => Tensor::I32(a.mapv(|v| w(v) as i32)),
            DType::I64 => Tensor::I64(a.mapv(|v| w(v) as i64)),
            DType::U8 => Tensor::U8(a.mapv(|v| w(v) as u8)),
            DType::U16 => Tensor::U16(a.mapv(|v| w(v) as u16)),
            DType::U32 => Tensor::U32(a.mapv(|v| w(v) as u32)),
            DType::U64 => Tensor::U64(a.mapv(|v| w(v) as u64)),
            DType::F64 => Tensor::F64(a.mapv(|v| v as f64)),
            DType::F32 => Tensor::F32(a.mapv(|v| v as f32)),
            DType::F16 => Tensor::F16(a.mapv(|v| f16::from_f32(v as f32))),
            DType::BF16 => Tensor::BF16(a.mapv(|v| bf16::from_f32(v as f32))),
            DType::C64 => Tensor::C64(a.mapv(|v| Complex32::new(v as f32, 0.0))),
        }
    }

    /// A cast to `dtype` with PyTorch's semantics.
    pub fn cast(&self, dtype: DType) -> Tensor {
        if self.dtype() == dtype {
            return self.clone();
        }
        match (self, dtype) {
            // f32 -> f16/bf16 directly, so the rounding happens once.
            (Tensor::F32(a), DType::F16) => Tensor::F16(a.mapv(f16::from_f32)),
            (Tensor::F32(a), DType::BF16) => Tensor::BF16(a.mapv(bf16::from_f32)),
            (Tensor::C64(a), DType::C64) => Tensor::C64(a.clone()),
            (t, DType::Bool) => Tensor::Bool(t.to_bool()),
            (t, d) if t.dtype().is_float() || t.dtype().is_complex() => {
                Tensor::from_f64(t.to_f64(), d)
            }
            (t, d) => Tensor::from_i128(t.to_i128(), d),
        }
    }

    /// Rounds every float element to fp16 precision and range, keeping the
    /// dtype (`--simulate-fp16`).
    pub fn round_through_f16(&mut self) {
        match self {
            Tensor::F32(a) => a.mapv_inplace(|v| f16::from_f32(v).to_f32()),
            Tensor::F64(a) => a.mapv_inplace(|v| f16::from_f64(v).to_f64()),
            Tensor::BF16(a) => {
                a.mapv_inplace(|v| bf16::from_f32(f16::from_f32(v.to_f32()).to_f32()))
            }
            _ => {}
        }
    }

    /// Makes every float element with |v| > `bound` infinite (same sign),
    /// keeping the dtype (`--simulate-fp16=ane`).
    pub fn overflow_beyond(&mut self, bound: f64) {
        let clip = |v: f64| {
            if v.abs() > bound {
                v.signum() * f64::INFINITY
            } else {
                v
            }
        };
        match self {
            Tensor::F32(a) => a.mapv_inplace(|v| clip(f64::from(v)) as f32),
            Tensor::F64(a) => a.mapv_inplace(clip),
            Tensor::F16(a) => a.mapv_inplace(|v| f16::from_f64(clip(v.to_f64()))),
            Tensor::BF16(a) => a.mapv_inplace(|v| bf16::from_f64(clip(v.to_f64()))),
            _ => {}
        }
    }

    /// Reshapes (row-major) into `shape`.
    pub fn reshape(&self, shape: &[usize]) -> KResult<Tensor> {
        let n: usize = shape.iter().product();
        if n != self.len() {
            return kerr(format!(
                "cannot reshape a tensor of shape {:?} into {:?}",
                self.shape(),
                shape
            ));
        }
        Ok(map_tensor!(self, a => {
            let c = a.as_standard_layout().into_owned();
            match c.into_shape_with_order(IxDyn(shape)) {
                Ok(r) => r,
                Err(_) => return kerr("reshape of a non-contiguous array"),
            }
        }))
    }

    /// A scalar 0-d tensor of `dtype` holding `v`.
    pub fn scalar_f64(v: f64, dtype: DType) -> Tensor {
        Tensor::from_f64(ArrayD::from_elem(IxDyn(&[]), v), dtype)
    }
    pub fn scalar_i128(v: i128, dtype: DType) -> Tensor {
        Tensor::from_i128(ArrayD::from_elem(IxDyn(&[]), v), dtype)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::arr1;

    #[test]
    fn wrap_at_width() {
        assert_eq!(wrap_int(128, DType::I8), -128);
        assert_eq!(wrap_int(300, DType::U8), 44);
        assert_eq!(wrap_int(-1, DType::U32), u32::MAX as i128);
        assert_eq!(wrap_int(i64::MAX as i128 + 1, DType::I64), i64::MIN as i128);
        assert_eq!(wrap_int(u64::MAX as i128 + 1, DType::U64), 0);
    }

    #[test]
    fn promotion_follows_pytorch() {
        use DType::*;
        assert_eq!(promote_types(U8, I8), I16);
        assert_eq!(promote_types(I32, F16), F16);
        assert_eq!(promote_types(F16, BF16), F32);
        assert_eq!(promote_types(Bool, I8), I8);
        assert_eq!(promote_types(I64, F32), F32);
        assert_eq!(promote_types(F64, F32), F64);
        assert_eq!(promote_types(U8, I64), I64);
        let vec = Tensor::F16(arr1(&[f16::ONE]).into_dyn());
        let scalar = Tensor::F32(ndarray::arr0(1.0f32).into_dyn());
        assert_eq!(result_type(&vec, &scalar), F16);
        let int_vec = Tensor::I32(arr1(&[1]).into_dyn());
        assert_eq!(result_type(&int_vec, &scalar), F32);
    }

    #[test]
    fn casts_round_and_truncate() {
        let t = Tensor::F32(arr1(&[65520.0f32, 1.0 + 1.0 / 2048.0, -2.7, f32::NAN]).into_dyn());
        let h = t.cast(DType::F16);
        let Tensor::F16(h) = h else { panic!() };
        assert!(h[0].is_infinite());
        // ties to even: 1 + 2^-11 rounds to 1.0
        assert_eq!(h[1], f16::ONE);
        let i = t.cast(DType::I32);
        assert_eq!(i.to_i64_vec()[2], -2);
        assert_eq!(i.to_i64_vec()[3], 0);
        let b = Tensor::F32(arr1(&[1.0f32 + 1.0 / 256.0]).into_dyn()).cast(DType::BF16);
        let Tensor::BF16(b) = b else { panic!() };
        assert_eq!(b[0].to_f32(), 1.0);
    }
}
