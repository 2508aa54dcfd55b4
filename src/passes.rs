//! The project's passes, one per file. Each is declared in
//! [`crate::registry::PASSES`].

pub mod aten_to_coreai;
pub mod cast_to_f16;
pub mod core_optimize;
pub mod decompose;
pub mod externalize_composites;
pub mod fold_idempotent_unary;
pub mod fp16_stabilize;
pub mod legalize_aten_to_coreai;
pub mod set_hw_constraints;
pub mod target_ane;
pub mod target_cpu;
pub mod target_gpu;
pub mod test_plant_miscompile;
