//! coreai (and coreaix) kernels with coreai-core 1.0.0b3's semantics, as its
//! op documentation states them: operands in the order of coreai-core's
//! Python bindings (axes, shapes and strides are tensor operands), results
//! in the input's dtype, integer arithmetic wrapping, reductions keeping
//! their reduced dims, `divide` truncating on integers, `modulo` = fmod.
//!
//! One file per op family, matching `kernels/`; each exports a static
//! `KERNELS` table. Adding an op is one entry in its family's table.

mod compression;
mod elementwise;
mod factory;
mod indexing;
mod linalg;
mod reduce;
mod shape;
mod spatial;
mod state;

use super::Kernel;

/// Every family's table.
pub(super) static FAMILIES: &[&[(&str, Kernel)]] = &[
    elementwise::KERNELS,
    reduce::KERNELS,
    shape::KERNELS,
    indexing::KERNELS,
    linalg::KERNELS,
    spatial::KERNELS,
    compression::KERNELS,
    factory::KERNELS,
    state::KERNELS,
];
