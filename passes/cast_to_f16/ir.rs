//! `cast-to-f16`'s f16 constants; the raw IR helpers it shares with other
//! passes are `coreai_ir::raw`.

pub use coreai_ir::raw::*;
use mlir_sys::{MlirAttribute, MlirType};

/// A dense f16 elements attribute of `ty` (an f16 tensor type) holding
/// `values` as [`constant_f16`] converts them (one value: a splat).
pub fn f16_attribute(ty: MlirType, values: &[f32]) -> MlirAttribute {
    let halves: Vec<half::f16> = values.iter().map(|v| constant_f16(*v)).collect();
    coreai_ir::raw::f16_attribute(ty, &halves)
}

/// The f16 constant of `ty` (an f16 tensor type) holding the f32 constant
/// `attr`'s values as [`constant_f16`] converts them: a `dense_resource`
/// of the same name for a blob of more than one element (converted in bulk
/// from the blob's storage), else a dense attribute (one value: a splat).
pub fn f16_constant(attr: MlirAttribute, ty: MlirType) -> Option<MlirAttribute> {
    let extremes = (constant_f16(f32::MAX), constant_f16(f32::MIN));
    match coreai_ir::raw::resource_name(attr) {
        Some(name) => {
            // A deferred permute of f32 weights (`coreai_ir::deferred`): the
            // cast commutes with it, so the source's f16 is permuted as the
            // asset is written, with the bytes and alignment of the f16
            // blob below, and no f32 copy is made.
            let recipe = coreai_ir::deferred::recipe(attr).filter(|r| r.width() == 4);
            let source = recipe.as_ref().and_then(|r| r.source_attribute());
            if let (Some(recipe), Some(source)) = (recipe, source) {
                let halves = coreai_ir::raw::f16_bytes(source, extremes)?;
                let alignment = coreai_ir::weights::BLOB_ALIGNMENT;
                let deferred = recipe
                    .of_elementwise(halves, 2, alignment)
                    .and_then(|r| coreai_ir::deferred::permuted_blob(ty, &name, r));
                if let Some(attr) = deferred {
                    return Some(attr);
                }
            }
            let bytes = coreai_ir::raw::f16_bytes(attr, extremes)?;
            if bytes.len() > 2 {
                return Some(coreai_ir::raw::resource_bytes(ty, &name, bytes));
            }
            let h = half::f16::from_le_bytes([bytes[0], bytes[1]]);
            Some(coreai_ir::raw::f16_attribute(ty, &[h]))
        }
        None => {
            let values = coreai_ir::raw::float_values(attr)?;
            Some(f16_attribute(ty, &values))
        }
    }
}

/// A constant's f32 value in f16: rounded to nearest even, except the
/// extremes `torch.finfo(torch.float32).min` / `.max`, which become f16's
/// (±65504). Modeling code writes them as "minus infinity that stays finite"
/// (Hugging Face's additive attention masks use `finfo(dtype).min`): the
/// same code run in f16 writes f16's extremes, and rounding would give ±inf.
pub fn constant_f16(v: f32) -> half::f16 {
    match v {
        f32::MAX => half::f16::MAX,
        f32::MIN => half::f16::MIN,
        v => half::f16::from_f32(v),
    }
}

/// Whether `v` is `torch.finfo(torch.float32).min` or `.max` (see
/// [`constant_f16`]).
pub fn is_f32_extreme(v: f32) -> bool {
    v == f32::MAX || v == f32::MIN
}

/// Whether a finite f32 constant becomes infinite in f16 ([`constant_f16`]).
pub fn overflows_f16(v: f32) -> bool {
    v.is_finite() && constant_f16(v).is_infinite()
}
