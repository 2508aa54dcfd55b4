//! Weights: the value a `coreai.constant` holds, and new constants made
//! from computed data (compressed weights, their scales and LUTs).
//!
//! Sub-byte integer elements (`si2`, `si4`, `ui1` … `ui6`) are stored the
//! two ways coreai-core's stack stores them:
//! - in an inline `dense<…>` attribute, one per byte (MLIR's storage: the
//!   element's low bits);
//! - in a `dense_resource` blob, packed as one little-endian bit stream:
//!   element `i` of the row-major tensor at bit `i * bits`, bit `k` of the
//!   stream bit `k % 8` of byte `k / 8`, the last byte zero-padded
//!   (coreai-torch's `pack_intx`, the form Apple's compression library
//!   writes and coreai-core's runtime reads; docs/aicode-format.md §6).

use crate::ffi::coreaiReleaseResourcePages;
use melior::ir::{
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike},
    Attribute, AttributeLike, Type, TypeLike, Value,
};
use mlir_sys::*;
use std::borrow::Cow;
use std::ffi::c_void;

/// The op that holds a weight.
pub const CONSTANT: &str = "coreai.constant";

/// `codes` (each fitting `bits` bits, two's complement when negative) as a
/// packed bit stream.
pub fn pack_bits<T: Copy + Into<i64>>(codes: &[T], bits: u32) -> Vec<u8> {
    let mask = (1u64 << bits) - 1;
    if 8 % bits == 0 {
        // Whole codes per byte (1, 2, 4, 8 bits): one byte from each run.
        let per = (8 / bits) as usize;
        return codes
            .chunks(per)
            .map(|run| {
                run.iter().enumerate().fold(0u8, |byte, (k, &c)| {
                    byte | (((c.into() as u64 & mask) as u8) << (k as u32 * bits))
                })
            })
            .collect();
    }
    let mut out = vec![0u8; (codes.len() * bits as usize).div_ceil(8)];
    for (i, &c) in codes.iter().enumerate() {
        let v = c.into() as u64 & mask;
        let bit = i * bits as usize;
        // An element spans at most two bytes (bits ≤ 8).
        let word = v << (bit % 8);
        out[bit / 8] |= word as u8;
        if bit % 8 + bits as usize > 8 {
            out[bit / 8 + 1] |= (word >> 8) as u8;
        }
    }
    out
}

/// [`pack_bits`] of codes given by their low 8 bits, with whole codes per
/// byte (1, 2, 4 bits) done a byte at a time with fixed shifts (a loop
/// that vectorizes: a weight has millions of codes).
pub fn pack_code_bytes(codes: &[u8], bits: u32) -> Vec<u8> {
    if 8 % bits != 0 {
        return pack_bits(codes, bits);
    }
    let per = (8 / bits) as usize;
    let whole = codes.len() / per * per;
    let mut out = vec![0u8; whole / per];
    pack_code_bytes_into(&codes[..whole], bits, &mut out);
    if whole < codes.len() {
        out.extend(pack_bits(&codes[whole..], bits));
    }
    out
}

/// [`pack_code_bytes`] into `out`, for codes that fill whole bytes: `bits`
/// divides 8 and `out` has `codes.len() * bits / 8` bytes.
pub fn pack_code_bytes_into(codes: &[u8], bits: u32, out: &mut [u8]) {
    fn whole<const PER: usize>(codes: &[u8], bits: u32, out: &mut [u8]) {
        let mask = ((1u16 << bits) - 1) as u8;
        for (o, run) in out.iter_mut().zip(codes.chunks_exact(PER)) {
            let mut byte = 0u8;
            for (k, &c) in run.iter().enumerate() {
                byte |= (c & mask) << (k as u32 * bits);
            }
            *o = byte;
        }
    }
    assert!(
        8 % bits == 0 && codes.len() * bits as usize == out.len() * 8,
        "{} codes of {bits} bits do not fill {} bytes",
        codes.len(),
        out.len()
    );
    match bits {
        8 => out.copy_from_slice(codes),
        4 => whole::<2>(codes, bits, out),
        2 => whole::<4>(codes, bits, out),
        _ => whole::<8>(codes, bits, out),
    }
}

/// The `n` elements of a packed bit stream of `bits`-bit codes
/// (sign-extended when `signed`); an error when `bytes` is not exactly
/// `ceil(n * bits / 8)` bytes long.
pub fn unpack_bits(bytes: &[u8], n: usize, bits: u32, signed: bool) -> Result<Vec<i64>, String> {
    let want = (n * bits as usize).div_ceil(8);
    if bytes.len() != want {
        return Err(format!(
            "a packed {}{bits} tensor of {n} elements needs {want} bytes, the blob has {}",
            if signed { "si" } else { "ui" },
            bytes.len()
        ));
    }
    let mask = (1u16 << bits) - 1;
    Ok((0..n)
        .map(|i| {
            let bit = i * bits as usize;
            let lo = bytes[bit / 8] as u16;
            let hi = bytes.get(bit / 8 + 1).copied().unwrap_or(0) as u16;
            let v = (((hi << 8) | lo) >> (bit % 8)) & mask;
            if signed && v >> (bits - 1) != 0 {
                v as i64 - (1i64 << bits)
            } else {
                v as i64
            }
        })
        .collect())
}

/// The `value` of the `coreai.constant` that defines `v`.
pub fn constant_value<'c>(v: Value<'c, '_>) -> Option<Attribute<'c>> {
    let result = melior::ir::operation::OperationResult::try_from(v).ok()?;
    let op = result.owner();
    if op.name().as_string_ref().as_str().ok()? != CONSTANT {
        return None;
    }
    op.attribute("value").ok()
}

/// The values of a float weight, in its own element type: borrowed from
/// the attribute's storage when it is aligned little-endian data (a
/// weight's blob), else copied.
#[derive(Debug, Clone, PartialEq)]
pub enum FloatData<'a> {
    F32(Cow<'a, [f32]>),
    F16(Cow<'a, [half::f16]>),
}

impl FloatData<'_> {
    pub fn len(&self) -> usize {
        match self {
            FloatData::F32(v) => v.len(),
            FloatData::F16(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The row-major values of an f32 or f16 elements attribute (inline,
/// splat or `dense_resource`); `None` for any other attribute.
pub fn float_data<'c>(attr: Attribute<'c>) -> Option<FloatData<'c>> {
    let ty = RankedTensorType::try_from(attr.r#type()).ok()?;
    let n: usize = crate::schema::static_type_dims(ty.into())
        .ok()?
        .iter()
        .product::<i64>() as usize;
    // SAFETY: type tests on a live type.
    let (is_f32, is_f16) = unsafe {
        let e = ty.element().to_raw();
        (mlirTypeIsAF32(e), mlirTypeIsAF16(e))
    };
    let raw = attr.to_raw();
    // SAFETY: `raw` is a live attribute; the byte views below cover the
    // sizes MLIR reports for it, and f32/f16 have no invalid bit patterns.
    let bytes: &'c [u8] = unsafe {
        if mlirAttributeIsADenseResourceElements(raw) {
            crate::deferred::blob_data(raw)?
        } else if mlirAttributeIsADenseElements(raw) {
            let data = mlirDenseElementsAttrGetRawData(raw) as *const u8;
            let width = if is_f32 { 4 } else { 2 };
            if mlirDenseElementsAttrIsSplat(raw) {
                // One element, repeated.
                let one = std::slice::from_raw_parts(data, width);
                return float_data_of(&one.repeat(n), n, is_f32, is_f16).map(FloatData::into_owned);
            }
            std::slice::from_raw_parts(data, n * width)
        } else {
            return None;
        }
    };
    float_data_of(bytes, n, is_f32, is_f16)
}

fn float_data_of(bytes: &[u8], n: usize, is_f32: bool, is_f16: bool) -> Option<FloatData<'_>> {
    let aligned = |width: usize| {
        cfg!(target_endian = "little") && (bytes.as_ptr() as usize).is_multiple_of(width)
    };
    if is_f32 && bytes.len() == n * 4 {
        if aligned(4) {
            // SAFETY: n aligned little-endian f32 values; every bit pattern
            // is an f32.
            return Some(FloatData::F32(Cow::Borrowed(unsafe {
                std::slice::from_raw_parts(bytes.as_ptr().cast::<f32>(), n)
            })));
        }
        Some(FloatData::F32(Cow::Owned(
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )))
    } else if is_f16 && bytes.len() == n * 2 {
        if aligned(2) {
            // SAFETY: as above; `half::f16` is a transparent u16.
            return Some(FloatData::F16(Cow::Borrowed(unsafe {
                std::slice::from_raw_parts(bytes.as_ptr().cast::<half::f16>(), n)
            })));
        }
        Some(FloatData::F16(Cow::Owned(
            bytes
                .chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]))
                .collect(),
        )))
    } else {
        None
    }
}

impl FloatData<'_> {
    fn into_owned(self) -> FloatData<'static> {
        match self {
            FloatData::F32(v) => FloatData::F32(Cow::Owned(v.into_owned())),
            FloatData::F16(v) => FloatData::F16(Cow::Owned(v.into_owned())),
        }
    }
}

/// The blob name of a `dense_resource` attribute.
pub fn resource_name(attr: Attribute<'_>) -> Option<String> {
    // SAFETY: a type test on a live attribute.
    if !unsafe { mlirAttributeIsADenseResourceElements(attr.to_raw()) } {
        return None;
    }
    let text = attr.to_string();
    let name = text.strip_prefix("dense_resource<")?.split('>').next()?;
    Some(name.trim_matches('"').to_string())
}

/// Tells the weights file a weight was read and need not stay resident
/// (its pages are read again if it is used again).
pub fn release_pages(attr: Attribute<'_>) {
    // SAFETY: `attr` is a live attribute; the call ignores attributes that
    // are not mapped blobs.
    unsafe { coreaiReleaseResourcePages(attr.to_raw()) };
}

/// The alignment of the blobs passes make: coreai-torch's. coreai-core's
/// loader refuses an asset whose bytecode asks for more alignment than its
/// buffer has ("expected section alignment 64 but bytecode buffer ... is not
/// aligned"): at 64 a compressed asset loaded or not depending on where the
/// buffer landed.
pub const BLOB_ALIGNMENT: usize = 16;

/// A `dense_resource` elements attribute of `ty` named `name` (MLIR
/// numbers a repeated name: `_1`, `_2` … in the order blobs are made)
/// holding `bytes`, which MLIR owns from then on.
pub fn resource<'c>(ty: Type<'c>, name: &str, bytes: Vec<u8>, alignment: usize) -> Attribute<'c> {
    let boxed = Box::new(bytes);
    let (data, len) = (boxed.as_ptr() as *const c_void, boxed.len());
    let name_ref = MlirStringRef {
        data: name.as_ptr().cast(),
        length: name.len(),
    };
    // SAFETY: `data` points at `len` bytes inside `*boxed`, alive until MLIR
    // calls `drop_bytes` with the box; MLIR copies `name`.
    unsafe {
        Attribute::from_raw(mlirUnmanagedDenseResourceElementsAttrGet(
            ty.to_raw(),
            name_ref,
            data as *mut c_void,
            len,
            alignment,
            false,
            Some(drop_bytes),
            Box::into_raw(boxed).cast(),
        ))
    }
}

unsafe extern "C" fn drop_bytes(user: *mut c_void, _: *const c_void, _: usize, _: usize) {
    // SAFETY: `user` is the `Box<Vec<u8>>` `resource` leaked, freed once.
    drop(unsafe { Box::from_raw(user.cast::<Vec<u8>>()) });
}

/// A splat elements attribute of the tensor type `ty` whose every element
/// is the integer `value` (any integer element type, sub-byte included).
pub fn int_splat<'c>(ty: Type<'c>, value: i64) -> Option<Attribute<'c>> {
    let tensor = RankedTensorType::try_from(ty).ok()?;
    // SAFETY: MLIR builds both attributes from live types.
    unsafe {
        let element = mlirIntegerAttrGet(tensor.element().to_raw(), value);
        let attr = mlirDenseElementsAttrSplatGet(ty.to_raw(), element);
        (!attr.ptr.is_null()).then(|| Attribute::from_raw(attr))
    }
}

/// A splat elements attribute of the float tensor type `ty`.
pub fn float_splat<'c>(ty: Type<'c>, value: f64) -> Option<Attribute<'c>> {
    let tensor = RankedTensorType::try_from(ty).ok()?;
    // SAFETY: MLIR builds both attributes from live types.
    unsafe {
        let element = mlirFloatAttrDoubleGet(
            mlirTypeGetContext(ty.to_raw()),
            tensor.element().to_raw(),
            value,
        );
        let attr = mlirDenseElementsAttrSplatGet(ty.to_raw(), element);
        (!attr.ptr.is_null()).then(|| Attribute::from_raw(attr))
    }
}

/// The integer element type of `bits` bits (`si4`, `ui8` …) in the context
/// of `like`.
pub fn integer_type<'c>(like: Type<'c>, bits: u32, signed: bool) -> Type<'c> {
    // SAFETY: builds a type in the live context of `like`.
    unsafe {
        let context = mlirTypeGetContext(like.to_raw());
        Type::from_raw(if signed {
            mlirIntegerTypeSignedGet(context, bits)
        } else {
            mlirIntegerTypeUnsignedGet(context, bits)
        })
    }
}

/// The element type of a small float format in the context of `like`.
pub fn minifloat_type<'c>(like: Type<'c>, format: crate::minifloat::MiniFloat) -> Type<'c> {
    use crate::minifloat::MiniFloat;
    // SAFETY: builds a type in the live context of `like`.
    unsafe {
        let context = mlirTypeGetContext(like.to_raw());
        Type::from_raw(match format {
            MiniFloat::F8E4M3FN => mlirFloat8E4M3FNTypeGet(context),
            MiniFloat::F8E5M2 => mlirFloat8E5M2TypeGet(context),
            MiniFloat::F4E2M1FN => mlirFloat4E2M1FNTypeGet(context),
            MiniFloat::F8E8M0FNU => mlirFloat8E8M0FNUTypeGet(context),
        })
    }
}

/// The small float format of an element type, if it is one.
pub fn minifloat_of(element: Type<'_>) -> Option<crate::minifloat::MiniFloat> {
    minifloat_of_raw(element.to_raw())
}

/// [`minifloat_of`] for a C API type (a live one).
pub fn minifloat_of_raw(t: MlirType) -> Option<crate::minifloat::MiniFloat> {
    use crate::minifloat::MiniFloat;
    // SAFETY: type predicates on a live type.
    unsafe {
        if mlirTypeIsAFloat8E4M3FN(t) {
            Some(MiniFloat::F8E4M3FN)
        } else if mlirTypeIsAFloat8E5M2(t) {
            Some(MiniFloat::F8E5M2)
        } else if mlirTypeIsAFloat4E2M1FN(t) {
            Some(MiniFloat::F4E2M1FN)
        } else if mlirTypeIsAFloat8E8M0FNU(t) {
            Some(MiniFloat::F8E8M0FNU)
        } else {
            None
        }
    }
}

/// `dense` (a ranked tensor type) as a bitmask-sparse tensor of `non_zero`
/// set positions: `tensor<..., #coreai.sparse_tensor_encoding<bitmask,
/// numNonZero = N, posWidth = 1, crdWidth = 1>>`, the type of
/// `coreai.build_sparse_with_bitmask`'s result. (The encoding has no C API
/// constructor; its one textual form is built here.)
pub fn bitmask_sparse_type<'c>(dense: RankedTensorType<'c>, non_zero: u64) -> Option<Type<'c>> {
    let dims: String = crate::schema::static_type_dims(dense.into())
        .ok()?
        .iter()
        .map(|d| format!("{d}x"))
        .collect();
    let text = format!(
        "tensor<{dims}{}, #coreai.sparse_tensor_encoding<bitmask, numNonZero = {non_zero}, \
         posWidth = 1, crdWidth = 1>>",
        dense.element()
    );
    let context = unsafe { mlirTypeGetContext(dense.to_raw()) };
    // SAFETY: parses in the live context of `dense`; null when it does not
    // parse.
    let ty = unsafe {
        mlirTypeParseGet(
            context,
            MlirStringRef {
                data: text.as_ptr().cast(),
                length: text.len(),
            },
        )
    };
    (!ty.ptr.is_null()).then(|| unsafe { Type::from_raw(ty) })
}

/// The bytes of a `dense_resource` attribute's blob, borrowed from it
/// (`None` for another attribute or a blob not loaded).
pub fn resource_bytes<'c>(attr: Attribute<'c>) -> Option<&'c [u8]> {
    crate::deferred::blob_data(attr.to_raw())
}

/// A dense elements attribute of `ty` holding `bytes` as its raw,
/// row-major little-endian buffer (`None` when they do not make a `ty`).
pub fn dense_from_bytes<'c>(ty: Type<'c>, bytes: &[u8]) -> Option<Attribute<'c>> {
    // SAFETY: MLIR copies `bytes` and returns null when the size does not
    // fit the type.
    let raw = unsafe {
        mlirDenseElementsAttrRawBufferGet(ty.to_raw(), bytes.len(), bytes.as_ptr() as *const c_void)
    };
    (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
}

/// The values of an `i1` dense elements attribute, row-major (a splat
/// repeated to its element count).
pub fn dense_bools(attr: Attribute<'_>) -> Option<Vec<bool>> {
    // SAFETY: type tests, then reads within the attribute's element count.
    unsafe {
        let raw = attr.to_raw();
        if !mlirAttributeIsADenseElements(raw) {
            return None;
        }
        let n = mlirElementsAttrGetNumElements(raw) as isize;
        if mlirDenseElementsAttrIsSplat(raw) {
            let v = mlirDenseElementsAttrGetBoolSplatValue(raw) != 0;
            return Some(vec![v; n as usize]);
        }
        Some(
            (0..n)
                .map(|i| mlirDenseElementsAttrGetBoolValue(raw, i))
                .collect(),
        )
    }
}

/// The stored bytes of an integer or float dense elements attribute,
/// borrowed from it, and how many elements they hold (1 for a splat).
/// Elements of 2 to 8 bits take a byte each; `i1` (packed bits, see
/// [`dense_bools`]) gives `None`.
pub fn dense_data<'c>(attr: Attribute<'c>) -> Option<(&'c [u8], usize)> {
    let ty = RankedTensorType::try_from(attr.r#type()).ok()?;
    let bits = crate::raw::element_bits(ty.to_raw())? as usize;
    if bits < 2 {
        return None;
    }
    let bytes_per = bits.div_ceil(8);
    // SAFETY: type tests, then a slice of the attribute's own storage,
    // which lives as long as the context: one element for a splat, else
    // every element at its width.
    unsafe {
        let raw = attr.to_raw();
        if !mlirAttributeIsADenseElements(raw) {
            return None;
        }
        let count = if mlirDenseElementsAttrIsSplat(raw) {
            1
        } else {
            mlirElementsAttrGetNumElements(raw) as usize
        };
        let data = mlirDenseElementsAttrGetRawData(raw);
        if data.is_null() {
            return (count == 0).then_some((&[][..], 0));
        }
        Some((
            std::slice::from_raw_parts(data.cast(), count * bytes_per),
            count,
        ))
    }
}

/// An `i1` dense elements attribute of `ty` holding `values`.
pub fn dense_bools_attr<'c>(ty: Type<'c>, values: &[bool]) -> Option<Attribute<'c>> {
    let ints: Vec<std::os::raw::c_int> = values.iter().map(|&v| v.into()).collect();
    // SAFETY: MLIR copies the values; null when they do not make a `ty`.
    let raw =
        unsafe { mlirDenseElementsAttrBoolGet(ty.to_raw(), ints.len() as isize, ints.as_ptr()) };
    (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
}

/// The elements of an inline dense elements attribute (integer, bool or
/// float), row-major, a splat repeated to its element count; `None` for
/// another attribute or another element type.
pub fn element_scalars(attr: Attribute<'_>) -> Option<Vec<crate::lowering::Scalar>> {
    crate::raw::element_scalars(attr.to_raw())
}

/// The stored bytes of a float weight (inline dense or `dense_resource`),
/// borrowed from it: every element at its width, or one for an inline
/// splat (then the flag is true).
pub fn float_bytes<'c>(attr: Attribute<'c>) -> Option<(&'c [u8], bool)> {
    if let Some(bytes) = resource_bytes(attr) {
        return Some((bytes, false));
    }
    let (data, count) = dense_data(attr)?;
    Some((data, count == 1 && is_splat(attr)))
}

/// Whether `attr` is an inline splat elements attribute.
pub fn is_splat(attr: Attribute<'_>) -> bool {
    crate::raw::is_splat(attr.to_raw())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_like_coreai_torch() {
        // The examples coreai-core's runtime decodes as written
        // (docs/aicode-format.md §6): si4 [1,-2,3,-4,5,-6,7,-8] and ui4 0..15.
        assert_eq!(
            pack_bits(&[1i64, -2, 3, -4, 5, -6, 7, -8], 4),
            [0xe1, 0xc3, 0xa5, 0x87]
        );
        let ui4: Vec<i64> = (0..16).collect();
        assert_eq!(
            pack_bits(&ui4, 4),
            [0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe]
        );
        // 3- and 6-bit codes straddle bytes.
        for bits in [1, 2, 3, 4, 6] {
            let codes: Vec<i64> = (0..37).map(|i| (i * 7 + 3) % (1 << bits)).collect();
            let packed = pack_bits(&codes, bits);
            assert_eq!(packed.len(), (37 * bits as usize).div_ceil(8));
            assert_eq!(unpack_bits(&packed, 37, bits, false).unwrap(), codes);
        }
        let signed = [-8i64, 7, 0, -1, 3];
        assert_eq!(
            unpack_bits(&pack_bits(&signed, 4), 5, 4, true).unwrap(),
            signed
        );
        assert!(unpack_bits(&[0u8; 2], 5, 4, true).is_err());
    }

    #[test]
    fn code_bytes_pack_like_pack_bits() {
        // Signed codes by their low 8 bits, lengths with and without a
        // partial last byte.
        for bits in [1, 2, 3, 4, 6, 8] {
            for n in [0, 1, 7, 8, 37, 64] {
                let codes: Vec<i64> = (0..n)
                    .map(|i: i64| (i * 7 + 3) % (1 << bits) - (1 << (bits - 1)))
                    .collect();
                let bytes: Vec<u8> = codes.iter().map(|&c| c as u8).collect();
                assert_eq!(
                    pack_code_bytes(&bytes, bits),
                    pack_bits(&codes, bits),
                    "{bits} bits, {n} codes"
                );
            }
        }
    }
}
