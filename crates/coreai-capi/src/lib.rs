//! `libcoreai_capi.a`: everything a C or C++ MLIR tool needs to use coreai in
//! its own context, declared in `dialects/include/coreai-c/CoreAI.h`.
//!
//! The archive holds the dialects and their C API (C++), the passes (Rust),
//! and the static MLIR libraries of the LLVM 22 build it was made with: link
//! it in place of MLIR's own static libraries, plus LLVM's
//! (`llvm-config --link-static --libs --system-libs`) and the C++ runtime.

/// Registers the project's passes and pipelines (and the upstream passes they
/// mix with) in MLIR's global registry, so textual pipelines parsed by
/// `mlirParsePassPipeline` or `mlir::parsePassPipeline` can name them.
/// Idempotent and thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn coreaiRegisterPasses() {
    coreai::registry::register_all();
}
