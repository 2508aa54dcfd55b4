//! User lowerings ([`coreai_ir::lowering`]), and their registration in a
//! context, which needs to know the built-in lowerings of the passes.

pub use coreai_ir::lowering::*;
use mlir_sys::MlirContext;

/// Registers a user lowering in `context` (what
/// [`crate::Compiler::register_lowering`] does for its own context; the C
/// API's `coreaiRegisterLowering` for a context a C program owns).
pub fn register_in_context(
    context: MlirContext,
    qualified: &str,
    allow_override: bool,
    lowering: UserLowering,
) -> Result<(), RegisterError> {
    // The compression resolver matches variantless: `coreai::quantize.default`
    // collides with its `quantize` (coreai-torch's guard misses that).
    let builtin = match qualified.split_once("::") {
        Some(("aten", key)) => coreai_passes::aten_to_coreai::lookup(key).is_some(),
        Some(("coreai" | "coreaix", key)) => {
            coreai_passes::aten_to_coreai::compression::lookup(key).is_some()
        }
        _ => false,
    };
    register(context, qualified, allow_override, builtin, lowering)
}
