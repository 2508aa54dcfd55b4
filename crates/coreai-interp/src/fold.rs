//! Constant folding with the executor's kernels: the value an op computes
//! from constant operands, as an MLIR attribute, so a compiler folds an op
//! to exactly what running it would give.
//!
//! [`fold_op`] is the function `core-optimize` calls to fold an op.

use crate::ir::{Attr, Op, Ty};
use crate::ops::{table, Ctx, Table};
use crate::tensor::{DType, Tensor};
use crate::value::Value;
use mlir_sys::{
    mlirAttributeGetType, mlirAttributeIsADenseResourceElements, mlirDenseElementsAttrBoolGet,
    mlirDenseElementsAttrRawBufferGet, mlirIntegerTypeGetWidth, mlirOperationGetResult,
    mlirTypeIsAInteger, mlirUnmanagedDenseResourceElementsAttrGet, mlirValueGetType, MlirAttribute,
    MlirOperation, MlirStringRef, MlirType,
};
use std::borrow::Cow;
use std::ffi::c_void;
use std::rc::Rc;
use std::sync::OnceLock;

fn kernels() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(table)
}

/// The results of `op` given its operands' values (`operands[i]` a dense or
/// `dense_resource` elements attribute of operand `i`'s type), each as a
/// dense elements attribute of the result's type; an error says why it
/// cannot (no kernel, an element type without an exact attribute, a kernel
/// error such as an integer division by zero).
pub fn fold_op(
    op: MlirOperation,
    operands: &[MlirAttribute],
) -> Result<Vec<MlirAttribute>, String> {
    let vals = operands
        .iter()
        .map(|a| attribute_value(*a))
        .collect::<Result<Vec<_>, _>>()?;
    let results = eval_op(op, vals)?;
    let op = Op(op);
    let name = op.name();
    let blob_name = blob_name(operands);
    results
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let ty = unsafe { mlirValueGetType(mlirOperationGetResult(op.0, i as isize)) };
            match v {
                Value::Tensor(t) => to_attribute(t, ty, &blob_name),
                _ => Err(format!("result #{i} of '{name}' is not a tensor")),
            }
        })
        .collect()
}

/// The value of a dense or `dense_resource` elements attribute.
pub fn attribute_value(a: MlirAttribute) -> Result<Value, String> {
    Attr(a)
        .as_tensor()
        .map(Value::tensor)
        .map_err(|e| e.to_string())
}

/// The results of `op` on the operand values `vals`, by the executor's
/// kernel for it (no regions, no calls), or why not.
pub fn eval_op(op: MlirOperation, vals: Vec<Value>) -> Result<Vec<Value>, String> {
    let op = Op(op);
    let name = op.name();
    let kernel = kernels()
        .get(name.as_str())
        .copied()
        .ok_or_else(|| format!("the executor has no kernel for '{name}'"))?;
    let ctx = Ctx {
        op,
        name: &name,
        vals,
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| kernel(&ctx)))
        .map_err(|_| format!("the kernel of '{name}' failed"))?
        .map_err(|e| e.to_string())
}

/// Folded values of at least this many bytes (and not one repeated
/// element, which a dense attribute stores once) become `dense_resource`
/// blobs, the form the importer gives weights and Apple's rewrite gives its
/// folded ones: the blob takes over the executor's array (no copy), and
/// MLIR does not hash its contents to unique it.
const BLOB_MIN_BYTES: usize = 1024;

/// The name a folded blob gets: its first `dense_resource` operand's, with
/// `.folded` (`layer1.0.conv1.weight.folded` after a batch norm folds into
/// that convolution), else `folded`. MLIR numbers repeated names in the
/// order blobs are made (`_1`, `_2`, ...), so names are deterministic.
fn blob_name(operands: &[MlirAttribute]) -> String {
    operands
        .iter()
        .filter(|a| unsafe { mlirAttributeIsADenseResourceElements(**a) })
        .find_map(|a| {
            let text = Attr(*a).to_text();
            let name = text.strip_prefix("dense_resource<")?.split('>').next()?;
            Some(format!("{}.folded", name.trim_matches('"')))
        })
        .unwrap_or_else(|| "folded".into())
}

/// `t` as a dense elements attribute of `ty` (its dtype and shape must be
/// `ty`'s): raw little-endian storage, i1 through MLIR's bool constructor.
fn to_attribute(t: Rc<Tensor>, ty: MlirType, blob_name: &str) -> Result<MlirAttribute, String> {
    let want = Ty(ty).dtype().map_err(|e| e.to_string())?;
    let shape = Ty(ty).static_shape().map_err(|e| e.to_string())?;
    if t.dtype() != want || t.shape() != shape {
        return Err(format!(
            "the kernel computed {} {:?}, the result is {} {:?}",
            t.dtype().name(),
            t.shape(),
            want.name(),
            shape
        ));
    }
    let element = Ty(ty).element().0;
    let standard_width = unsafe {
        !mlirTypeIsAInteger(element)
            || matches!(mlirIntegerTypeGetWidth(element), 1 | 8 | 16 | 32 | 64)
    };
    if !standard_width || want == DType::C64 {
        return Err(format!(
            "no exact attribute for {} elements",
            Ty(ty).element().to_text()
        ));
    }
    let attr = unsafe {
        match &*t {
            Tensor::Bool(a) => {
                let v: Vec<i32> = a.iter().map(|b| *b as i32).collect();
                mlirDenseElementsAttrBoolGet(ty, v.len() as isize, v.as_ptr())
            }
            _ => {
                let bytes = raw_bytes(&t);
                if bytes.len() >= BLOB_MIN_BYTES
                    && cfg!(target_endian = "little")
                    && !is_splat(&bytes, t.dtype().size_of())
                {
                    drop(bytes);
                    blob_attribute(t, ty, blob_name)
                } else {
                    mlirDenseElementsAttrRawBufferGet(ty, bytes.len(), bytes.as_ptr().cast())
                }
            }
        }
    };
    if attr.ptr.is_null() || unsafe { mlirAttributeGetType(attr).ptr } != ty.ptr {
        return Err("MLIR rejected the folded value".into());
    }
    Ok(attr)
}

/// Whether every `width`-byte element of `bytes` equals the first.
fn is_splat(bytes: &[u8], width: usize) -> bool {
    let first = &bytes[..width.min(bytes.len())];
    bytes.chunks_exact(width).all(|c| c == first)
}

/// `t` (standard layout on a little-endian host: its memory is the blob)
/// as a `dense_resource` of `ty` named `name`; MLIR owns the array from
/// then on and frees it through [`drop_blob`].
fn blob_attribute(t: Rc<Tensor>, ty: MlirType, name: &str) -> MlirAttribute {
    let owned = Rc::try_unwrap(t).unwrap_or_else(|shared| (*shared).clone());
    let owned = crate::map_tensor!(owned, a => if a.is_standard_layout() {
        a
    } else {
        a.as_standard_layout().into_owned()
    });
    let width = owned.dtype().size_of();
    let boxed = Box::new(owned);
    let (data, len) = crate::each_tensor!(&*boxed, a => (
        a.as_ptr() as *mut c_void,
        a.len() * std::mem::size_of_val(&a.as_slice().expect("standard layout")[0])
    ));
    let name_ref = MlirStringRef {
        data: name.as_ptr().cast(),
        length: name.len(),
    };
    // SAFETY: `data` points at `len` bytes inside `*boxed`, aligned to the
    // element width (a `Vec<T>`'s allocation), alive until MLIR calls
    // `drop_blob` with the box; MLIR copies `name`.
    unsafe {
        mlirUnmanagedDenseResourceElementsAttrGet(
            ty,
            name_ref,
            data,
            len,
            width,
            false,
            Some(drop_blob),
            Box::into_raw(boxed).cast(),
        )
    }
}

/// Frees the array behind a blob [`blob_attribute`] made.
unsafe extern "C" fn drop_blob(user: *mut c_void, _: *const c_void, _: usize, _: usize) {
    // SAFETY: `user` is the `Box<Tensor>` `blob_attribute` leaked, freed once.
    drop(unsafe { Box::from_raw(user.cast::<Tensor>()) });
}

/// Row-major little-endian bytes of a non-bool tensor: the array's own
/// memory when it is one standard-layout slice on a little-endian host (no
/// copy: a folded weight has millions of elements), else a copy.
fn raw_bytes(t: &Tensor) -> Cow<'_, [u8]> {
    match t {
        Tensor::I8(a) => le_bytes(a, i8::to_le_bytes),
        Tensor::I16(a) => le_bytes(a, i16::to_le_bytes),
        Tensor::I32(a) => le_bytes(a, i32::to_le_bytes),
        Tensor::I64(a) => le_bytes(a, i64::to_le_bytes),
        Tensor::U8(a) => le_bytes(a, u8::to_le_bytes),
        Tensor::U16(a) => le_bytes(a, u16::to_le_bytes),
        Tensor::U32(a) => le_bytes(a, u32::to_le_bytes),
        Tensor::U64(a) => le_bytes(a, u64::to_le_bytes),
        Tensor::F16(a) => le_bytes(a, half::f16::to_le_bytes),
        Tensor::BF16(a) => le_bytes(a, half::bf16::to_le_bytes),
        Tensor::F32(a) => le_bytes(a, f32::to_le_bytes),
        Tensor::F64(a) => le_bytes(a, f64::to_le_bytes),
        Tensor::Bool(_) | Tensor::C64(_) => Cow::Borrowed(&[]),
    }
}

/// Element types whose in-memory form is exactly their `N` little-endian
/// bytes on a little-endian host: no padding, every bit pattern valid.
trait Plain: Copy {}
impl Plain for i8 {}
impl Plain for i16 {}
impl Plain for i32 {}
impl Plain for i64 {}
impl Plain for u8 {}
impl Plain for u16 {}
impl Plain for u32 {}
impl Plain for u64 {}
impl Plain for half::f16 {}
impl Plain for half::bf16 {}
impl Plain for f32 {}
impl Plain for f64 {}

fn le_bytes<T: Plain, const N: usize>(
    a: &ndarray::ArrayD<T>,
    to_le: impl Fn(T) -> [u8; N],
) -> Cow<'_, [u8]> {
    match a.as_slice() {
        Some(values) if cfg!(target_endian = "little") => {
            // SAFETY: `T: Plain` has no padding and is `N` bytes; on a
            // little-endian host its memory is its `to_le_bytes`. The
            // borrow keeps `values` alive for the returned slice.
            Cow::Borrowed(unsafe {
                std::slice::from_raw_parts(
                    values.as_ptr().cast::<u8>(),
                    std::mem::size_of_val(values),
                )
            })
        }
        _ => {
            // A loop into a sized buffer, not `flat_map`: a per-byte
            // iterator does not vectorize.
            let mut out = Vec::with_capacity(a.len() * N);
            a.iter().for_each(|v| out.extend_from_slice(&to_le(*v)));
            Cow::Owned(out)
        }
    }
}
