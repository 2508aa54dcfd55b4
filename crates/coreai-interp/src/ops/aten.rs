//! aten kernels, named exactly like torch.export's FX targets, with
//! PyTorch's semantics. Schema arguments that are not tensors are attributes
//! named after the schema argument (`self` is `self_arg`); tensors are
//! operands in schema order. The result dtype comes from the IR (PyTorch's
//! inferred type), so type promotion is "compute in the result type", except
//! for comparisons, which promote their operands.
//!
//! One file per op family, matching `kernels/`; each exports a static
//! `KERNELS` table. Adding an op is one entry in its family's table.

mod complex;
mod elementwise;
mod factory;
mod indexing;
mod linalg;
mod norm;
mod promote;
mod reduce;
mod shape;
mod spatial;
mod symbolic;

use super::Kernel;

pub(crate) use elementwise::{f32_fast_path, f32_unary_fast_path};

/// Every family's table.
pub(super) static FAMILIES: &[&[(&str, Kernel)]] = &[
    symbolic::KERNELS,
    elementwise::KERNELS,
    shape::KERNELS,
    indexing::KERNELS,
    factory::KERNELS,
    reduce::KERNELS,
    linalg::KERNELS,
    spatial::KERNELS,
    norm::KERNELS,
    complex::KERNELS,
];
