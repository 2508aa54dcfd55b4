//! The project's passes, one per file (a family of patterns in a folder of
//! the same name). Each file declares its pass once, as a
//! [`coreai_ir::pass::PassInfo`]; [`PASSES`] lists them.
//!
//! Passes read and build IR through `coreai-ir`, and compute with the
//! reference executor (`coreai-interp`) where they need values: constant
//! folding in `core-optimize`, calibration in `cast-to-f16`. They hold no
//! `unsafe` (the C API calls are `coreai_ir`'s, behind safe functions) and
//! name no op by string (`coreai_ir::op`'s constants, generated from ODS):
//! the compiler enforces the first, `tests/no_op_strings.rs` the second.

#![forbid(unsafe_code)]

pub mod ane_residency;
pub mod aten_to_coreai;
pub mod cast_to_f16;
pub mod compress;
pub mod core_optimize;
pub mod decompose;
pub mod decomposition_table;
pub mod externalize_composites;
pub mod fold_idempotent_unary;
pub mod fp16_stabilize;
pub mod legalize_aten_to_coreai;
pub mod narrow_integers;
pub mod palettize_weights;
pub mod quantize_weights;
pub mod set_hw_constraints;
pub mod sparsify_weights;
pub mod state_handles;
pub mod target_ane;
pub mod target_cpu;
pub mod target_gpu;
pub mod test_plant_miscompile;

use coreai_ir::pass::PassInfo;

/// Every pass of the project.
pub static PASSES: &[PassInfo] = &[
    ane_residency::INFO,
    cast_to_f16::INFO,
    core_optimize::INFO,
    decompose::INFO,
    externalize_composites::INFO,
    fold_idempotent_unary::INFO,
    fp16_stabilize::INFO,
    legalize_aten_to_coreai::INFO,
    narrow_integers::INFO,
    palettize_weights::INFO,
    quantize_weights::INFO,
    sparsify_weights::INFO,
    set_hw_constraints::INFO,
    state_handles::INFO,
    target_ane::INFO,
    target_cpu::INFO,
    target_gpu::INFO,
    test_plant_miscompile::INFO,
];
