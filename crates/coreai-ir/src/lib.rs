//! coreai-ir: the one place that reads and builds IR.
//!
//! - [`context`]: an MLIR context with the `aten`, `coreai` and `coreaix`
//!   dialects (the C++ side, built from `dialects/` by this crate's
//!   build.rs), and [`ffi`], its C API;
//! - [`input_check`]: what a module file must satisfy before MLIR reads it;
//! - [`emit`], [`schema`], [`strings`], [`symbols`]: op builders, readers
//!   of op operands and attributes, symbol tables;
//! - [`lowering`]: the context a rewrite pattern runs in
//!   ([`lowering::LoweringCx`]) and why it declines ([`lowering::Decline`]);
//! - [`rewrite`]: the rewrite driver every pass runs its patterns through;
//! - [`raw`]: the same through raw C API handles, for whole-graph rewrites;
//! - [`op`]: every op name as a constant generated from ODS;
//! - [`weights`]: a constant's values, new constants from computed data
//!   (packed sub-byte blobs);
//! - [`pass`], [`diagnostics`], [`foreign_pass`]: what a pass is, the
//!   diagnostics it emits, and how it runs inside MLIR's pass manager.
//!
//! The passes (`coreai-passes`), the executor (`coreai-interp`) and the
//! library (`coreai`) build on it; it depends on none of them.

pub mod alloc;
pub mod context;
pub mod deferred;
pub mod diagnostics;
pub mod dialects;
pub mod emit;
pub mod ffi;
pub mod foreign_pass;
pub mod input_check;
pub mod lowering;
pub mod minifloat;
pub mod op;
pub mod options;
pub mod pass;
pub mod permute;
pub mod raw;
pub mod rewrite;
pub mod rng;
pub mod schema;
pub mod simd;
pub mod strings;
pub mod symbols;
pub mod weights;
