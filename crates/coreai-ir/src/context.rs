//! MLIR contexts with the project's dialects.

use crate::ffi;
use melior::{dialect::DialectRegistry, Context};

/// A registry holding aten, coreai, param, coreaix and the upstream dialects
/// coreai programs use (builtin, func, arith).
pub fn dialect_registry() -> DialectRegistry {
    let registry = DialectRegistry::new();
    unsafe { ffi::coreaiRegisterAllDialects(registry.to_raw()) };
    registry
}

/// A context with every project dialect loaded (multithreading on).
pub fn create_context() -> Context {
    let context = Context::new();
    context.append_dialect_registry(&dialect_registry());
    context.load_all_available_dialects();
    context
}
