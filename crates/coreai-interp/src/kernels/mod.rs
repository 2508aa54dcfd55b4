//! Kernels by family. They work on [`crate::tensor::Tensor`] and its
//! arithmetic domains and know nothing of MLIR.

pub mod elementwise;
pub mod linalg;
pub mod nn;
pub mod pool_nd;
pub mod reduce;
pub mod shape;
pub mod sort;
pub mod spatial;
