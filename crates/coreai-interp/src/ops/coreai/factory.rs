//! Constants (the importer's weights and wrapped Python scalars) and ranges.

use crate::error::{kerr, KResult};
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::Tensor;
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The coreai kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("coreai.constant", constant),
    ("arith.constant", constant),
    ("coreai.range", range),
];

fn range(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let (a, b, s) = (c.arg(0)?.to_f64(), c.arg(1)?.to_f64(), c.arg(2)?.to_f64());
    let (a, b, s) = (
        a.iter().next().copied().unwrap_or(0.0),
        b.iter().next().copied().unwrap_or(0.0),
        s.iter().next().copied().unwrap_or(1.0),
    );
    if s == 0.0 {
        return kerr("range step must be nonzero");
    }
    let n = ((b - a) / s).ceil().max(0.0) as usize;
    one(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&[n]), (0..n).map(|i| a + i as f64 * s).collect())
            .expect("sizes agree"),
        dt,
    ))
}

/// `coreai.constant` / `arith.constant`: the `value` attribute.
fn constant(c: &Ctx) -> KResult<Vec<Value>> {
    match c.attr("value") {
        Some(a) => one(a.as_tensor()?),
        None => kerr("missing 'value'"),
    }
}
