//! Rung 4 of the dispatch ladder: coreai-torch's compression custom ops
//! (`torch.ops.coreai.*`, defined in `coreai_torch/_compression/custom_layers.py`)
//! → coreai's compression ops. The importer writes them as
//! `aten.operator "coreai::quantize.default"(...)` with the tensor arguments
//! as named operand groups (`operand_args`) and the others as attributes.
//!
//! The resolver is consulted for the namespaces `coreai` and `coreaix`, after
//! user lowerings, and is keyed *variantless* like coreai-torch's
//! `_custom_to_core_resolver`: a `.default`, `.Tensor`, `.Scalar` or `.dim`
//! suffix is dropped before the lookup ([`variantless`]), so
//! `coreai::quantize.default` and `coreai::quantize` both match `quantize`.
//!
//! Operand forms follow coreai-torch 0.4.3 (`_custom_to_core.py`): the
//! optional `zero_point` / `minval` become the ops' `offset1` / `offset2`
//! (zero-point mode: `offset1 = zero_point, offset2 = 0`; minval mode:
//! `offset1 = q_min(input dtype), offset2 = minval`; neither: both 0).
//! Sub-byte storage: coreai needs LUT indices of `log2(palette size)` bits
//! and a `ui1` sparsity mask, which PyTorch holds as `uint8` / `bool`; a
//! constant is re-emitted in the narrow type (a run-time value is cast when
//! coreai can cast to that type, else declined); blockwise-quantized weights
//! whose `input_dtype` is narrower than their storage (`torch.int4` data in
//! `int8`) are narrowed the same way, with their zero points.
//!
//! One fidelity fix over coreai-torch: an f16/bf16 `quantize` computes
//! `(x - minval) / scale` in the input dtype first, as PyTorch does
//! (coreai-core's `coreai.quantize` divides in f32; see `half_quotient`).

use coreai_ir::emit::arith;
use coreai_ir::emit::constant;
use coreai_ir::emit::{cast_to, int_scalar, reshape, splat};
use coreai_ir::lowering::{type_text, Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::is_half;
use coreai_ir::schema::{element_type, normalize_dim, shape_of, tensor_type, DYNAMIC};
use melior::ir::{
    attribute::TypeAttribute,
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike},
    Type, Value, ValueLike,
};

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

/// The compression lowerings, keyed by variantless target (sorted).
pub static LOWERINGS: super::Family = &[
    ("constexpr_blockwise_shift_scale", blockwise_shift_scale),
    ("dequantize", dequantize),
    ("lut_to_dense", lut_to_dense),
    ("quantize", quantize),
    ("sparse_to_dense", sparse_to_dense),
];

/// `target` without a `.default`, `.Tensor`, `.Scalar` or `.dim` overload
/// (coreai-torch's `strip_variant_from_target`); other overloads stay.
pub fn variantless(target: &str) -> &str {
    match target.split_once('.') {
        Some((name, "default" | "Tensor" | "Scalar" | "dim")) => name,
        _ => target,
    }
}

/// The lowering of the `coreai::` / `coreaix::` op `target`, matched
/// variantless.
pub fn lookup(target: &str) -> Option<super::LowerFn> {
    let key = variantless(target);
    LOWERINGS.iter().find(|(k, _)| *k == key).map(|(_, f)| *f)
}

/// The variantless keys, sorted.
pub fn keys() -> impl Iterator<Item = &'static str> {
    LOWERINGS.iter().map(|(k, _)| *k)
}

use coreai_ir::schema::named_operand;

fn required_operand<'c, 'a>(cx: &LoweringCx<'c, 'a>, name: &str) -> Result<Value<'c, 'a>, Decline> {
    named_operand(cx, name)?.ok_or_else(|| format!("missing tensor argument '{name}'"))
}

/// An optional `int` argument (`axis`), `default` when absent.
fn int_or(cx: &LoweringCx<'_, '_>, name: &str, default: i64) -> Result<i64, Decline> {
    Ok(coreai_ir::schema::opt_int_attr(cx, name)?.unwrap_or(default))
}

/// The integer width and signedness of `element` (`i4` and `si4` signed,
/// `i1` a bool: unsigned).
fn int_kind(element: Type<'_>) -> Option<(u32, bool)> {
    coreai_ir::schema::int_kind(element)
}

/// The smallest value of an integer type (`-8` for `si4`, `0` for `ui8`).
fn q_min(element: Type<'_>) -> Result<i64, Decline> {
    match int_kind(element) {
        Some((bits, true)) if (2..=64).contains(&bits) => Ok(-(1i64 << (bits - 1))),
        Some((_, false)) => Ok(0),
        _ => Err(format!("{element} is not an integer type with a minimum")),
    }
}

/// The PyTorch dtype attribute `name` (`input_dtype = i4`), if present.
fn dtype_attr<'c>(cx: &LoweringCx<'c, '_>, name: &str) -> Result<Option<Type<'c>>, Decline> {
    let Ok(attr) = cx.op().attribute(name) else {
        return Ok(None);
    };
    TypeAttribute::try_from(attr)
        .map(|t| Some(t.value()))
        .map_err(|_| format!("attribute '{name}' is not a dtype: {attr}"))
}

/// `zero_point` / `minval` as coreai's `(offset1, offset2)` of `shape`:
/// zero-point mode `(zero_point, 0)`, minval mode `(q_min(logical), minval)`,
/// neither `(0, 0)`. `offset1` has the quantized element, `offset2` the float one.
fn offsets<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    quant: Type<'c>,
    float: Type<'c>,
    logical: Option<Type<'c>>,
    shape: &[i64],
) -> Result<(Value<'c, 'a>, Value<'c, 'a>), Decline> {
    let zero_point = named_operand(cx, "zero_point")?;
    let minval = named_operand(cx, "minval")?;
    let zeros = |element| splat(cx, Scalar::Int(0), tensor_type(shape, element));
    match (zero_point, minval) {
        (Some(_), Some(_)) => Err("zero_point and minval are mutually exclusive".into()),
        (Some(zp), None) => {
            let zp = narrowed(cx, reshape(cx, zp, shape)?, quant)?;
            Ok((zp, zeros(float)?))
        }
        (None, Some(minval)) => {
            let logical = logical.ok_or(
                "minval needs input_dtype (the logical quantized dtype, whose minimum is the offset)",
            )?;
            let qmin = splat(cx, Scalar::Int(q_min(logical)?), tensor_type(shape, quant))?;
            Ok((qmin, cast_to(cx, reshape(cx, minval, shape)?, float)?))
        }
        (None, None) => Ok((zeros(quant)?, zeros(float)?)),
    }
}

// aten.operator "coreai::lut_to_dense"(%indices : ui8, %lut : [blocks.., P, V]) {axis}
//   → coreai.lut_to_dense %indices' : ui<log2 P>, %lut, coreai.constant axis : si16
fn lut_to_dense<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let indices = required_operand(cx, "indices")?;
    let lut = required_operand(cx, "lut")?;
    let lut_dims = shape_of(lut)?;
    let index_dims = shape_of(indices)?;
    let rank = index_dims.len();
    if lut_dims.len() != rank + 2 {
        return Err(format!(
            "the LUT {} must have the rank of the indices plus 2 ([blocks.., palettes, vector])",
            lut.r#type()
        ));
    }
    let divides = |d: usize| {
        let (n, b) = (index_dims[d], lut_dims[d]);
        n == DYNAMIC || (b > 0 && n % b == 0)
    };
    if let Some(d) = (0..rank).find(|&d| !divides(d)) {
        return Err(format!(
            "the LUT's {} blocks along dim {d} do not divide the {} indices there",
            lut_dims[d], index_dims[d]
        ));
    }
    let palettes = lut_dims[rank];
    let bits = match palettes {
        2 => 1,
        4 => 2,
        8 => 3,
        16 => 4,
        64 => 6,
        256 => 8,
        _ => {
            return Err(format!(
                "a LUT of {palettes} entries; coreai indices have 1, 2, 3, 4, 6 or 8 bits (2, 4, 8, 16, 64 or 256 entries)"
            ))
        }
    };
    let indices = narrowed(cx, indices, unsigned(cx, bits)?)?;
    let axis = normalize_dim(int_or(cx, "axis", 0)?, rank.max(1))?;
    let axis = int_scalar(cx, axis as i64, "si16")?;
    let out = cx.build_value(
        coreai::LUT_TO_DENSE,
        &[indices, lut, axis],
        cx.result_type(0)?,
        &[],
    )?;
    Ok(vec![out])
}

// aten.operator "coreai::constexpr_blockwise_shift_scale"(%data, %scale, %zero_point?, %minval?) {input_dtype?, output_dtype?}
//   → coreai.blockwise_shift_scale %data, %scale, %offset1, %offset2   (rank-0 parameters reshaped to [1, ..])
fn blockwise_shift_scale<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let data = required_operand(cx, "input")?;
    let mut scale = required_operand(cx, "scale")?;
    let rank = shape_of(data)?.len();
    let mut shape = shape_of(scale)?;
    if shape.is_empty() {
        shape = vec![1; rank];
        scale = reshape(cx, scale, &shape)?;
    }
    if shape.len() != rank {
        return Err(format!(
            "the scale {} must have the rank of the data {}",
            scale.r#type(),
            data.r#type()
        ));
    }
    let logical = dtype_attr(cx, "input_dtype")?;
    // Constant sub-byte weights held in 8 bits (`input_dtype = si4`) are
    // stored in their own width, as coreai-torch's inject_subbyte_tensors does.
    let data = match (logical.and_then(int_kind), int_kind(element_type(data)?)) {
        (Some((bits, signed)), Some((width, _)))
            if bits < width && constant_ints(data).is_some() =>
        {
            let prefix = if signed { "si" } else { "ui" };
            narrowed(cx, data, cx.parse_type(&format!("{prefix}{bits}"))?)?
        }
        _ => data,
    };
    let quant = element_type(data)?;
    let float = cx.result_tensor(0)?.element();
    let (offset1, offset2) = offsets(cx, quant, float, logical, &shape)?;
    let out = cx.build_value(
        coreai::BLOCKWISE_SHIFT_SCALE,
        &[data, scale, offset1, offset2],
        cx.result_type(0)?,
        &[],
    )?;
    Ok(vec![out])
}

// aten.operator "coreai::quantize"(%x, %scale, %zero_point?, %minval?) {output_dtype, axis}
//   → coreai.quantize %x, %scale, %offset1, %offset2, coreai.constant axis : si32
fn quantize<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let input = required_operand(cx, "input")?;
    let quant = cx.result_tensor(0)?.element();
    let float = element_type(input)?;
    quantization(cx, coreai::QUANTIZE, input, quant, float, Some(quant))
}

// aten.operator "coreai::dequantize"(%q, %scale, %zero_point?, %minval?) {axis, input_dtype?, output_dtype?}
//   → coreai.dequantize %q, %scale, %offset1, %offset2, coreai.constant axis : si32
fn dequantize<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let input = required_operand(cx, "input")?;
    let quant = element_type(input)?;
    let float = cx.result_tensor(0)?.element();
    let logical = dtype_attr(cx, "input_dtype")?;
    quantization(cx, coreai::DEQUANTIZE, input, quant, float, logical)
}

/// The per-tensor (0-d) or per-channel (1-d along `axis`) form shared by
/// quantize and dequantize: scale and offsets reshaped to `[]` or
/// `[input.shape[axis]]`.
fn quantization<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    name: &str,
    input: Value<'c, 'a>,
    quant: Type<'c>,
    float: Type<'c>,
    logical: Option<Type<'c>>,
) -> Lowered<'c, 'a> {
    let input_dims = shape_of(input)?;
    let axis = normalize_dim(int_or(cx, "axis", 0)?, input_dims.len().max(1))?;
    let count = |v: Option<Value>| -> Result<i64, Decline> {
        Ok(v.map(|v| shape_of(v).map(|d| d.iter().product()))
            .transpose()?
            .unwrap_or(1))
    };
    let scale = required_operand(cx, "scale")?;
    let per_channel = count(Some(scale))? > 1 || count(named_operand(cx, "zero_point")?)? > 1;
    let shape = if per_channel {
        match input_dims.get(axis) {
            Some(&d) if d != DYNAMIC => vec![d],
            _ => {
                return Err(format!(
                    "per-channel parameters along dim {axis} of {} need it static",
                    input.r#type()
                ))
            }
        }
    } else {
        Vec::new()
    };
    let scale = reshape(cx, scale, &shape)?;
    let (offset1, offset2) = offsets(cx, quant, float, logical, &shape)?;
    let (input, scale, offset2) = if name == coreai::QUANTIZE && is_half(float) {
        half_quotient(cx, input, scale, offset2, axis, &shape)?
    } else {
        (input, scale, offset2)
    };
    let axis = int_scalar(cx, axis as i64, "si32")?;
    let out = cx.build_value(
        name,
        &[input, scale, offset1, offset2, axis],
        cx.result_type(0)?,
        &[],
    )?;
    Ok(vec![out])
}

/// coreai-core's `quantize` divides f16/bf16 inputs in f32, PyTorch rounds
/// `x - minval` and `x / scale` to the input dtype first: at a quotient
/// that lands on .5 only after that rounding they give integers 1 apart.
/// So the quotient is computed in the input dtype by elementwise ops and
/// quantized with scale 1 and offset2 0 (exact in any precision).
// coreai.quantize %x : f16, %scale, %offset1, %offset2
//   → coreai.quantize ((x - offset2) / scale), 1, %offset1, 0   (x - offset2 only in minval mode)
type Quotient<'c, 'a> = (Value<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>);
fn half_quotient<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    scale: Value<'c, 'a>,
    offset2: Value<'c, 'a>,
    axis: usize,
    shape: &[i64],
) -> Result<Quotient<'c, 'a>, Decline> {
    let element = element_type(x)?;
    // A per-channel parameter [C] as [1, .., C at axis, .., 1].
    let along = |p: Value<'c, 'a>| -> Result<Value<'c, 'a>, Decline> {
        let p = cast_to(cx, p, element)?;
        match shape {
            [c] => {
                let mut to = vec![1; shape_of(x)?.len()];
                to[axis] = *c;
                reshape(cx, p, &to)
            }
            _ => Ok(p),
        }
    };
    let shifted = match named_operand(cx, "minval")? {
        Some(_) => arith(cx, coreai::SUB, x, along(offset2)?)?,
        None => x,
    };
    let quotient = arith(cx, coreai::DIVIDE, shifted, along(scale)?)?;
    let one = splat(
        cx,
        Scalar::Float(1.0),
        tensor_type(shape, element_type(scale)?),
    )?;
    let zero = splat(
        cx,
        Scalar::Int(0),
        tensor_type(shape, element_type(offset2)?),
    )?;
    Ok((quotient, one, zero))
}

// aten.operator "coreai::sparse_to_dense"(%values : [N], %mask : i1)
//   → coreai.sparse_with_bitmask_to_dense (coreai.build_sparse_with_bitmask %values, %mask' : ui1)
fn sparse_to_dense<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let values = required_operand(cx, "nonzero_data")?;
    let mask = narrowed(cx, required_operand(cx, "mask")?, unsigned(cx, 1)?)?;
    let set = constant_ints(mask).map(|m| m.iter().filter(|&&b| b != 0).count() as i64);
    let nonzero = match shape_of(values)?.as_slice() {
        [n] if set.is_some_and(|set| set != *n) => {
            return Err(format!(
                "{n} nonzero values for a mask with {} set entries",
                set.unwrap_or_default()
            ))
        }
        [n] if *n != DYNAMIC => *n,
        _ => {
            return Err(format!(
                "nonzero_data {} must be 1-d and static",
                values.r#type()
            ))
        }
    };
    let result = cx.result_tensor(0)?;
    let sparse = coreai_ir::weights::bitmask_sparse_type(result, nonzero as u64)
        .ok_or_else(|| format!("cannot make {} bitmask-sparse", Type::from(result)))?;
    let built = cx.build_value(
        coreai::BUILD_SPARSE_WITH_BITMASK,
        &[values, mask],
        sparse,
        &[],
    )?;
    let dense = cx.build_value(
        coreai::SPARSE_WITH_BITMASK_TO_DENSE,
        &[built],
        result.into(),
        &[],
    )?;
    Ok(vec![dense])
}

/// `v` with the integer element `element`: a constant is re-emitted in that
/// type (every value must fit), a run-time value is cast (coreai casts to
/// 2-, 4- and 8-bit integers, not to ui1, ui3 or ui6).
fn narrowed<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    if element_type(v)? == element {
        return Ok(v);
    }
    let shape = shape_of(v)?;
    match (constant_ints(v), int_kind(element)) {
        (Some(values), Some((bits, signed))) => {
            narrow_constant(cx, &values, tensor_type(&shape, element), bits, signed)
        }
        (None, Some((2 | 4 | 8, _))) => cast_to(cx, v, element),
        _ => Err(format!(
            "{} is computed at run time; coreai needs it as {element}, which coreai.cast cannot produce",
            v.r#type()
        )),
    }
}

/// The unsigned integer type of `bits` bits (`ui4`).
fn unsigned<'c>(cx: &LoweringCx<'c, '_>, bits: u32) -> Result<Type<'c>, Decline> {
    cx.parse_type(&format!("ui{bits}"))
}

/// A `coreai.constant` of the `bits`-bit integer tensor type `ty` holding `values`.
fn narrow_constant<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    values: &[i64],
    ty: Type<'c>,
    bits: u32,
    signed: bool,
) -> Result<Value<'c, 'a>, Decline> {
    let (lo, hi) = if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    if let Some(v) = values.iter().find(|&&v| v < lo || v > hi) {
        let element = RankedTensorType::try_from(ty).map(|t| type_text(t.element()));
        return Err(format!(
            "the value {v} does not fit {}",
            element.unwrap_or_default()
        ));
    }
    let attr = if bits == 1 {
        coreai_ir::weights::dense_bools_attr(
            ty,
            &values.iter().map(|&v| v != 0).collect::<Vec<_>>(),
        )
    } else {
        // MLIR stores 2..8-bit integers one per byte, in the low bits.
        let mask = ((1u16 << bits) - 1) as u8;
        let bytes: Vec<u8> = values.iter().map(|&v| v as u8 & mask).collect();
        coreai_ir::weights::dense_from_bytes(ty, &bytes)
    }
    .ok_or_else(|| format!("cannot build a constant of {ty}"))?;
    constant(cx, ty, attr)
}

/// The integers of `v` when it is an integer (or bool) `coreai.constant`
/// (inline or `dense_resource`), in row-major order.
fn constant_ints(v: Value<'_, '_>) -> Option<Vec<i64>> {
    let op = coreai_ir::schema::producer(v)?;
    if op.name().as_string_ref().as_str() != Ok(coreai::CONSTANT) {
        return None;
    }
    let attr = op.attribute("value").ok()?;
    let (width, signed) = int_kind(element_type(v).ok()?)?;
    let n: i64 = shape_of(v).ok()?.iter().product();
    let n = usize::try_from(n).ok()?;
    let decode = |raw: u64| -> i64 {
        let raw = if width >= 64 {
            raw
        } else {
            raw & ((1u64 << width) - 1)
        };
        if signed && width < 64 && raw >> (width - 1) & 1 == 1 {
            raw as i64 - (1i64 << width)
        } else {
            raw as i64
        }
    };
    let bytes_per = width.div_ceil(8) as usize;
    let from_bytes = |bytes: &[u8], count: usize| -> Vec<i64> {
        (0..n)
            .map(|i| {
                let at = if count == 1 { 0 } else { i } * bytes_per;
                let mut le = [0u8; 8];
                le[..bytes_per].copy_from_slice(&bytes[at..at + bytes_per]);
                decode(u64::from_le_bytes(le))
            })
            .collect()
    };
    if let Some(bytes) = coreai_ir::weights::resource_bytes(attr) {
        return (bytes.len() == n * bytes_per).then(|| from_bytes(bytes, n));
    }
    if width == 1 {
        let bools = coreai_ir::weights::dense_bools(attr)?;
        return (bools.len() == n).then(|| bools.into_iter().map(i64::from).collect());
    }
    let (data, count) = coreai_ir::weights::dense_data(attr)?;
    if count == 0 {
        return (n == 0).then(Vec::new);
    }
    Some(from_bytes(data, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_stripped_like_coreai_torch() {
        assert_eq!(variantless("quantize.default"), "quantize");
        assert_eq!(variantless("quantize.Tensor"), "quantize");
        assert_eq!(variantless("quantize.Scalar"), "quantize");
        assert_eq!(variantless("quantize.dim"), "quantize");
        assert_eq!(variantless("quantize"), "quantize");
        assert_eq!(variantless("quantize.out"), "quantize.out");
        assert!(lookup("lut_to_dense.default").is_some());
        assert!(lookup("sparse_to_dense").is_some());
        assert!(lookup("quantize.out").is_none());
        assert!(lookup("foo.default").is_none());
        let keys: Vec<&str> = keys().collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
    }
}
