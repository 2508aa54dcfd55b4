//! Matrix multiplication.

use crate::error::KResult;
use crate::kernels::linalg;
use crate::ops::{one, Ctx, Kernel};
use crate::value::Value;

/// The coreai kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    (
        "coreai.decomposable.broadcasting_batch_matmul",
        batch_matmul,
    ),
    ("coreai.batch_matmul", batch_matmul),
];

fn batch_matmul(c: &Ctx) -> KResult<Vec<Value>> {
    one(linalg::matmul(c.arg(0)?, c.arg(1)?, c.out_dtype(0)?)?)
}
