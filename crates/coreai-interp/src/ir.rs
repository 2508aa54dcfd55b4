//! A thin, read-only view of MLIR IR through the C API, so the executor reads
//! ops by name and attributes by name without depending on typed builders
//! (the ODS changes; op and attribute names are the stable contract).
//!
//! Every handle here borrows from a module that the caller keeps alive for the
//! whole execution ([`crate::Program`] owns both).

use crate::error::{kerr, KResult};
use crate::tensor::{DType, Dom, Tensor};
use coreai_ir::minifloat::MiniFloat;
use half::{bf16, f16};
use mlir_sys::*;
use ndarray::{ArrayD, IxDyn};
use num_complex::Complex32;
use std::ffi::c_void;

fn sref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const _,
        length: s.len(),
    }
}

fn string(s: MlirStringRef) -> String {
    if s.data.is_null() {
        return String::new();
    }
    // SAFETY: MLIR string refs point at `length` valid bytes.
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

unsafe extern "C" fn push_str(s: MlirStringRef, data: *mut c_void) {
    // SAFETY: `data` is the `&mut String` passed by `print_with`.
    let out = unsafe { &mut *(data as *mut String) };
    out.push_str(&string(s));
}

fn print_with(f: impl FnOnce(MlirStringCallback, *mut c_void)) -> String {
    let mut out = String::new();
    f(Some(push_str), &mut out as *mut String as *mut c_void);
    out
}

/// An operation.
#[derive(Clone, Copy)]
pub struct Op(pub MlirOperation);
/// An SSA value.
#[derive(Clone, Copy)]
pub struct Val(pub MlirValue);
/// A type.
#[derive(Clone, Copy)]
pub struct Ty(pub MlirType);
/// An attribute.
#[derive(Clone, Copy)]
pub struct Attr(pub MlirAttribute);
/// A block.
#[derive(Clone, Copy)]
pub struct Block(pub MlirBlock);

impl Op {
    pub fn name(self) -> String {
        // SAFETY: a live operation (see the module doc).
        unsafe { string(mlirIdentifierStr(mlirOperationGetName(self.0))) }
    }
    pub fn num_operands(self) -> usize {
        unsafe { mlirOperationGetNumOperands(self.0) as usize }
    }
    pub fn operand(self, i: usize) -> Val {
        unsafe { Val(mlirOperationGetOperand(self.0, i as isize)) }
    }
    pub fn num_results(self) -> usize {
        unsafe { mlirOperationGetNumResults(self.0) as usize }
    }
    pub fn result(self, i: usize) -> Val {
        unsafe { Val(mlirOperationGetResult(self.0, i as isize)) }
    }
    pub fn attr(self, name: &str) -> Option<Attr> {
        let a = unsafe { mlirOperationGetAttributeByName(self.0, sref(name)) };
        if a.ptr.is_null() {
            None
        } else {
            Some(Attr(a))
        }
    }
    pub fn num_regions(self) -> usize {
        unsafe { mlirOperationGetNumRegions(self.0) as usize }
    }
    /// The first block of region `i`, if the region has one.
    pub fn region_block(self, i: usize) -> Option<Block> {
        let r = unsafe { mlirOperationGetRegion(self.0, i as isize) };
        let b = unsafe { mlirRegionGetFirstBlock(r) };
        if b.ptr.is_null() {
            None
        } else {
            Some(Block(b))
        }
    }
    /// Whether region `i` has more than one block.
    pub fn region_is_multi_block(self, i: usize) -> bool {
        match self.region_block(i) {
            Some(b) => unsafe { !mlirBlockGetNextInRegion(b.0).ptr.is_null() },
            None => false,
        }
    }
    pub fn next(self) -> Option<Op> {
        let n = unsafe { mlirOperationGetNextInBlock(self.0) };
        if n.ptr.is_null() {
            None
        } else {
            Some(Op(n))
        }
    }
    /// The location as MLIR prints it (`loc("file":1:2)` without `loc(`).
    pub fn location(self) -> String {
        let s = print_with(|cb, d| unsafe {
            mlirLocationPrint(mlirOperationGetLocation(self.0), cb, d)
        });
        s.strip_prefix("loc(")
            .and_then(|s| s.strip_suffix(')'))
            .unwrap_or(&s)
            .to_string()
    }
    pub fn symbol_name(self) -> Option<String> {
        self.attr("sym_name").and_then(|a| a.as_str())
    }
}

impl Block {
    pub fn num_args(self) -> usize {
        unsafe { mlirBlockGetNumArguments(self.0) as usize }
    }
    pub fn arg(self, i: usize) -> Val {
        unsafe { Val(mlirBlockGetArgument(self.0, i as isize)) }
    }
    pub fn first_op(self) -> Option<Op> {
        let o = unsafe { mlirBlockGetFirstOperation(self.0) };
        if o.ptr.is_null() {
            None
        } else {
            Some(Op(o))
        }
    }
    pub fn ops(self) -> impl Iterator<Item = Op> {
        std::iter::successors(self.first_op(), |o| o.next())
    }
}

impl Val {
    /// Identity of the value within the module.
    pub fn key(self) -> usize {
        self.0.ptr as usize
    }
    pub fn ty(self) -> Ty {
        unsafe { Ty(mlirValueGetType(self.0)) }
    }
    /// The op whose result this is (`None` for a block argument).
    pub fn defining_op(self) -> Option<Op> {
        // SAFETY: a value of the module, which outlives it.
        unsafe {
            mlir_sys::mlirValueIsAOpResult(self.0)
                .then(|| Op(mlir_sys::mlirOpResultGetOwner(self.0)))
        }
    }
}

impl Ty {
    pub fn to_text(self) -> String {
        print_with(|cb, d| unsafe { mlirTypePrint(self.0, cb, d) })
    }
    pub fn is_ranked_tensor(self) -> bool {
        unsafe { mlirTypeIsARankedTensor(self.0) }
    }
    /// Static shape of a ranked tensor (dynamic dims are `None`).
    pub fn shape(self) -> Option<Vec<Option<usize>>> {
        if !self.is_ranked_tensor() {
            return None;
        }
        unsafe {
            let r = mlirShapedTypeGetRank(self.0);
            Some(
                (0..r)
                    .map(|i| {
                        if mlirShapedTypeIsDynamicDim(self.0, i as isize) {
                            None
                        } else {
                            Some(mlirShapedTypeGetDimSize(self.0, i as isize) as usize)
                        }
                    })
                    .collect(),
            )
        }
    }
    /// Static shape, or an error naming the type.
    pub fn static_shape(self) -> KResult<Vec<usize>> {
        match self.shape() {
            Some(s) if s.iter().all(|d| d.is_some()) => Ok(s.into_iter().flatten().collect()),
            _ => kerr(format!("type {} has no static shape", self.to_text())),
        }
    }
    /// The element type of a tensor, or the type itself if scalar.
    pub fn element(self) -> Ty {
        if self.is_ranked_tensor() || unsafe { mlirTypeIsAUnrankedTensor(self.0) } {
            unsafe { Ty(mlirShapedTypeGetElementType(self.0)) }
        } else {
            self
        }
    }
    /// The small float format of a tensor's (or scalar's) element type.
    pub fn minifloat(self) -> Option<MiniFloat> {
        coreai_ir::weights::minifloat_of_raw(self.element().0)
    }
    /// The executor's dtype of a tensor (or scalar) type. Signless integers
    /// are signed, as PyTorch's are. The 8- and 4-bit floats of compressed
    /// weights are held as f32, which has every one of their values; only
    /// constants have them (`Interpreter::exec` refuses an op computing one).
    pub fn dtype(self) -> KResult<DType> {
        if self.minifloat().is_some() {
            return Ok(DType::F32);
        }
        let e = self.element();
        unsafe {
            if mlirTypeIsAF32(e.0) {
                return Ok(DType::F32);
            }
            if mlirTypeIsAF16(e.0) {
                return Ok(DType::F16);
            }
            if mlirTypeIsABF16(e.0) {
                return Ok(DType::BF16);
            }
            if mlirTypeIsAF64(e.0) {
                return Ok(DType::F64);
            }
            if mlirTypeIsAIndex(e.0) {
                return Ok(DType::I64);
            }
            if mlirTypeIsAComplex(e.0) && mlirTypeIsAF32(mlirComplexTypeGetElementType(e.0)) {
                return Ok(DType::C64);
            }
            if mlirTypeIsAInteger(e.0) {
                let w = mlirIntegerTypeGetWidth(e.0);
                let unsigned = mlirIntegerTypeIsUnsigned(e.0);
                return Ok(match (w, unsigned) {
                    (1, _) => DType::Bool,
                    (8, false) => DType::I8,
                    (16, false) => DType::I16,
                    (32, false) => DType::I32,
                    (64, false) => DType::I64,
                    (8, true) => DType::U8,
                    // Sub-byte storage (LUT indices, 4-bit weights): one
                    // byte per element in MLIR's dense attributes (signed
                    // ones sign-extended when read, see `as_tensor`).
                    (2 | 3 | 4 | 6, true) => DType::U8,
                    (2 | 4, false) => DType::I8,
                    (16, true) => DType::U16,
                    (32, true) => DType::U32,
                    (64, true) => DType::U64,
                    _ => return kerr(format!("unsupported element type {}", e.to_text())),
                });
            }
        }
        kerr(format!("unsupported element type {}", e.to_text()))
    }
}

impl Attr {
    pub fn to_text(self) -> String {
        print_with(|cb, d| unsafe { mlirAttributePrint(self.0, cb, d) })
    }
    pub fn as_i64(self) -> Option<i64> {
        unsafe {
            if mlirAttributeIsAInteger(self.0) {
                let t = mlirAttributeGetType(self.0);
                if mlirTypeIsAInteger(t) && mlirIntegerTypeIsUnsigned(t) {
                    return Some(mlirIntegerAttrGetValueUInt(self.0) as i64);
                }
                return Some(mlirIntegerAttrGetValueInt(self.0));
            }
            if mlirAttributeIsABool(self.0) {
                return Some(mlirBoolAttrGetValue(self.0) as i64);
            }
        }
        None
    }
    pub fn as_f64(self) -> Option<f64> {
        unsafe {
            if mlirAttributeIsAFloat(self.0) {
                return Some(mlirFloatAttrGetValueDouble(self.0));
            }
        }
        self.as_i64().map(|v| v as f64)
    }
    pub fn is_float(self) -> bool {
        unsafe { mlirAttributeIsAFloat(self.0) }
    }
    pub fn is_bool(self) -> bool {
        unsafe { mlirAttributeIsABool(self.0) }
    }
    pub fn is_unit(self) -> bool {
        unsafe { mlirAttributeIsAUnit(self.0) }
    }
    pub fn as_bool(self) -> Option<bool> {
        unsafe {
            if mlirAttributeIsABool(self.0) {
                return Some(mlirBoolAttrGetValue(self.0));
            }
            if mlirAttributeIsAUnit(self.0) {
                return Some(true);
            }
        }
        self.as_i64().map(|v| v != 0)
    }
    pub fn as_str(self) -> Option<String> {
        unsafe {
            if mlirAttributeIsAString(self.0) {
                return Some(string(mlirStringAttrGetValue(self.0)));
            }
            if mlirAttributeIsAFlatSymbolRef(self.0) {
                return Some(string(mlirFlatSymbolRefAttrGetValue(self.0)));
            }
            if mlirAttributeIsASymbolRef(self.0) {
                return Some(string(mlirSymbolRefAttrGetRootReference(self.0)));
            }
        }
        None
    }
    pub fn as_type(self) -> Option<Ty> {
        unsafe {
            if mlirAttributeIsAType(self.0) {
                return Some(Ty(mlirTypeAttrGetValue(self.0)));
            }
        }
        None
    }
    pub fn as_array(self) -> Option<Vec<Attr>> {
        unsafe {
            if mlirAttributeIsAArray(self.0) {
                let n = mlirArrayAttrGetNumElements(self.0);
                return Some(
                    (0..n)
                        .map(|i| Attr(mlirArrayAttrGetElement(self.0, i)))
                        .collect(),
                );
            }
        }
        None
    }
    /// An `[1, 2]` array of integers, a `array<i64: 1, 2>` dense array, a
    /// dense integer elements attribute, or a single integer.
    pub fn as_i64s(self) -> Option<Vec<i64>> {
        unsafe {
            if mlirAttributeIsADenseI64Array(self.0) {
                let n = mlirDenseArrayGetNumElements(self.0);
                return Some(
                    (0..n)
                        .map(|i| mlirDenseI64ArrayGetElement(self.0, i))
                        .collect(),
                );
            }
            if mlirAttributeIsADenseI32Array(self.0) {
                let n = mlirDenseArrayGetNumElements(self.0);
                return Some(
                    (0..n)
                        .map(|i| mlirDenseI32ArrayGetElement(self.0, i) as i64)
                        .collect(),
                );
            }
            if mlirAttributeIsADenseElements(self.0) {
                return self.as_tensor().ok().map(|t| t.to_i64_vec());
            }
        }
        if let Some(a) = self.as_array() {
            return a.into_iter().map(|x| x.as_i64()).collect();
        }
        self.as_i64().map(|v| vec![v])
    }
    pub fn dict_get(self, name: &str) -> Option<Attr> {
        unsafe {
            if mlirAttributeIsADictionary(self.0) {
                let a = mlirDictionaryAttrGetElementByName(self.0, sref(name));
                if !a.ptr.is_null() {
                    return Some(Attr(a));
                }
            }
        }
        None
    }

    /// A dense or dense resource attribute of small floats, decoded to
    /// f32 (exact): one code per byte, `f4E2M1FN` packed two per byte in
    /// a blob (one per byte inline, as MLIR stores it).
    fn minifloat_tensor(self, format: MiniFloat, sh: IxDyn, n: usize) -> KResult<Tensor> {
        let codes: Vec<u8> = unsafe {
            if mlirAttributeIsADenseElements(self.0) {
                let splat = mlirDenseElementsAttrIsSplat(self.0);
                let raw = mlirDenseElementsAttrGetRawData(self.0) as *const u8;
                let count = if splat { 1 } else { n };
                let s: &[u8] = if n == 0 || raw.is_null() {
                    &[]
                } else {
                    std::slice::from_raw_parts(raw, count)
                };
                (0..n).map(|i| s[if splat { 0 } else { i }]).collect()
            } else if mlirAttributeIsADenseResourceElements(self.0) {
                let bytes: &[u8] = coreai_ir::deferred::blob_data(self.0).unwrap_or(&[]);
                if format.bits() < 8 {
                    coreai_ir::weights::unpack_bits(bytes, n, format.bits(), false)
                        .map_err(|e| {
                            crate::error::InterpError::Kernel(e.replace("ui4", format.mlir_name()))
                        })?
                        .into_iter()
                        .map(|c| c as u8)
                        .collect()
                } else if bytes.len() != n {
                    return kerr(format!(
                        "dense_resource constant of {} has {} bytes for {n} elements",
                        format.mlir_name(),
                        bytes.len()
                    ));
                } else {
                    bytes.to_vec()
                }
            } else {
                return kerr(format!(
                    "attribute {} is not a dense elements attribute",
                    self.to_text()
                ));
            }
        };
        let v: Vec<f32> = codes.iter().map(|&c| format.decode(c) as f32).collect();
        Ok(Tensor::F32(
            ArrayD::from_shape_vec(sh, v).expect("sizes agree"),
        ))
    }

    /// A dense (or dense resource) elements attribute as a tensor.
    pub fn as_tensor(self) -> KResult<Tensor> {
        /// A signed sub-byte element (`si4`) keeps its low bits in its
        /// byte of a dense attribute: extend its sign.
        fn sign_extend(t: Tensor, ty: Ty) -> Tensor {
            let w = unsafe { mlirIntegerTypeGetWidth(ty.element().0) };
            match t {
                Tensor::I8(a) if w < 8 => Tensor::I8(a.mapv(|v| (v << (8 - w)) >> (8 - w))),
                t => t,
            }
        }
        let ty = Ty(unsafe { mlirAttributeGetType(self.0) });
        // A scalar (`2 : i64`, `0.5 : f32`): a 0-d value of its type.
        unsafe {
            if mlirAttributeIsAInteger(self.0) {
                let dtype = ty.dtype()?;
                let v = if dtype.is_signed_int() {
                    mlirIntegerAttrGetValueSInt(self.0) as i128
                } else {
                    mlirIntegerAttrGetValueUInt(self.0) as i128
                };
                return Ok(Tensor::from_dom(
                    Dom::I(ArrayD::from_elem(IxDyn(&[]), v)),
                    dtype,
                ));
            }
            if mlirAttributeIsAFloat(self.0) {
                let v = mlirFloatAttrGetValueDouble(self.0);
                return Ok(Tensor::from_f64(
                    ArrayD::from_elem(IxDyn(&[]), v),
                    ty.dtype()?,
                ));
            }
        }
        let shape = ty.static_shape()?;
        let dtype = ty.dtype()?;
        let n: usize = shape.iter().product();
        let sh = IxDyn(&shape);
        if let Some(format) = ty.minifloat() {
            return self.minifloat_tensor(format, sh, n);
        }
        unsafe {
            if mlirAttributeIsADenseElements(self.0) {
                let splat = mlirDenseElementsAttrIsSplat(self.0);
                let count = if splat { 1 } else { n };
                let pick = |i: usize| if splat { 0 } else { i };
                if dtype == DType::Bool {
                    let v: Vec<bool> = (0..n)
                        .map(|i| {
                            if splat {
                                mlirDenseElementsAttrGetBoolSplatValue(self.0) != 0
                            } else {
                                mlirDenseElementsAttrGetBoolValue(self.0, i as isize)
                            }
                        })
                        .collect();
                    return Ok(Tensor::Bool(
                        ArrayD::from_shape_vec(sh, v).expect("sizes agree"),
                    ));
                }
                let raw = mlirDenseElementsAttrGetRawData(self.0) as *const u8;
                macro_rules! read {
                    ($t:ty, $v:ident) => {{
                        // An empty attribute (`dense<> : tensor<0xui32>`) has no data pointer.
                        let s: &[$t] = if n == 0 {
                            &[]
                        } else {
                            std::slice::from_raw_parts(raw as *const $t, count)
                        };
                        let v: Vec<$t> = (0..n).map(|i| s[pick(i)]).collect();
                        Tensor::$v(ArrayD::from_shape_vec(sh, v).expect("sizes agree"))
                    }};
                }
                return Ok(match dtype {
                    DType::I8 => sign_extend(read!(i8, I8), ty),
                    DType::I16 => read!(i16, I16),
                    DType::I32 => read!(i32, I32),
                    DType::I64 => read!(i64, I64),
                    DType::U8 => read!(u8, U8),
                    DType::U16 => read!(u16, U16),
                    DType::U32 => read!(u32, U32),
                    DType::U64 => read!(u64, U64),
                    DType::F16 => read!(f16, F16),
                    DType::BF16 => read!(bf16, BF16),
                    DType::F32 => read!(f32, F32),
                    DType::F64 => read!(f64, F64),
                    DType::C64 => read!(Complex32, C64),
                    DType::Bool => unreachable!("handled above"),
                });
            }
            if mlirAttributeIsADenseResourceElements(self.0) {
                // One copy of the blob (little-endian, densely packed; bools
                // one byte each) instead of an element-by-element C call.
                let blob = coreai_ir::deferred::blob_data(self.0);
                let size = blob.map_or(0, <[u8]>::len);
                let element = ty.element().0;
                if mlirTypeIsAInteger(element) {
                    let bits = mlirIntegerTypeGetWidth(element);
                    let unsigned_bit = bits == 1 && mlirIntegerTypeIsUnsigned(element);
                    if (2..8).contains(&bits) || unsigned_bit {
                        let bytes: &[u8] = blob.unwrap_or(&[]);
                        let signed = !mlirIntegerTypeIsUnsigned(element);
                        let codes = coreai_ir::weights::unpack_bits(bytes, n, bits, signed)
                            .map_err(crate::error::InterpError::Kernel)?;
                        if unsigned_bit {
                            // ui1 (a 1-bit palette's indices, a sparsity
                            // mask): the executor's bool.
                            return Ok(Tensor::Bool(
                                ArrayD::from_shape_vec(sh, codes.iter().map(|&v| v != 0).collect())
                                    .expect("sizes agree"),
                            ));
                        }
                        return Ok(if signed {
                            Tensor::I8(
                                ArrayD::from_shape_vec(
                                    sh,
                                    codes.iter().map(|&v| v as i8).collect(),
                                )
                                .expect("sizes agree"),
                            )
                        } else {
                            Tensor::U8(
                                ArrayD::from_shape_vec(
                                    sh,
                                    codes.iter().map(|&v| v as u8).collect(),
                                )
                                .expect("sizes agree"),
                            )
                        });
                    }
                }
                let width = dtype.size_of();
                let bytes = match blob {
                    Some(bytes) if size == n * width => bytes,
                    _ => {
                        return kerr(format!(
                            "dense_resource constant of {} has {size} bytes for {n} elements",
                            dtype.name()
                        ))
                    }
                };
                macro_rules! blob {
                    ($t:ty, $v:ident) => {{
                        debug_assert_eq!(width, std::mem::size_of::<$t>());
                        let v: Vec<$t> = if cfg!(target_endian = "little") {
                            // One memcpy: a weight has millions of elements.
                            let mut v: Vec<$t> = coreai_ir::alloc::buffer(n);
                            // SAFETY: `size` = n elements of `$t` (checked
                            // above), a plain number type every bit pattern
                            // of which is a value, stored little-endian as
                            // on this host.
                            std::ptr::copy_nonoverlapping(
                                bytes.as_ptr(),
                                v.as_mut_ptr().cast::<u8>(),
                                size,
                            );
                            v.set_len(n);
                            v
                        } else {
                            bytes
                                .chunks_exact(std::mem::size_of::<$t>())
                                .map(|c| <$t>::from_le_bytes(c.try_into().expect("width")))
                                .collect()
                        };
                        Tensor::$v(ArrayD::from_shape_vec(sh, v).expect("sizes agree"))
                    }};
                }
                return Ok(match dtype {
                    DType::Bool => Tensor::Bool(
                        ArrayD::from_shape_vec(sh, bytes.iter().map(|&b| b != 0).collect())
                            .expect("sizes agree"),
                    ),
                    DType::I8 => blob!(i8, I8),
                    DType::I16 => blob!(i16, I16),
                    DType::I32 => blob!(i32, I32),
                    DType::I64 => blob!(i64, I64),
                    DType::U8 => blob!(u8, U8),
                    DType::U16 => blob!(u16, U16),
                    DType::U32 => blob!(u32, U32),
                    DType::U64 => blob!(u64, U64),
                    DType::F16 => blob!(f16, F16),
                    DType::BF16 => blob!(bf16, BF16),
                    DType::F32 => blob!(f32, F32),
                    DType::F64 => blob!(f64, F64),
                    DType::C64 => {
                        let v: Vec<Complex32> = bytes
                            .chunks_exact(8)
                            .map(|c| {
                                Complex32::new(
                                    f32::from_le_bytes(c[..4].try_into().expect("4")),
                                    f32::from_le_bytes(c[4..].try_into().expect("4")),
                                )
                            })
                            .collect();
                        Tensor::C64(ArrayD::from_shape_vec(sh, v).expect("sizes agree"))
                    }
                });
            }
        }
        kerr(format!(
            "attribute {} is not a dense elements attribute",
            self.to_text()
        ))
    }
}
