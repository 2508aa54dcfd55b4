//! `coreai_test::scaled_add(a, b, scale)` as a custom Metal kernel registered
//! from Rust: the op lowers to `coreai.metal4_kernel` with coreai-torch's
//! MTLBuffer constraints, `scale` baked into the source (the executor runs it
//! with the CPU kernel `scaled_add` of
//! `crates/coreai-interp/examples/metal_kernel.rs`).

use coreai::lowering::UserLowering;
use coreai::passes::aten_to_coreai::metal_kernel::{user_lowering, MetalKernelCall};

/// The kernel for the `3×4` operands of `test/e2e/models/custom.py`: one
/// thread per element.
pub fn scaled_add() -> UserLowering {
    let s = |v: &str| v.to_string();
    user_lowering(MetalKernelCall {
        name: s("scaled_add"),
        input_names: vec![s("a"), s("b"), s("scale")],
        result_names: vec![s("out")],
        source: s("out[gid] = a[gid] + scale * b[gid];"),
        metal_params: vec![(s("gid"), s("uint"), s("thread_position_in_grid"))],
        threads_per_grid: vec![12, 1, 1],
        threads_per_thread_group: vec![12, 1, 1],
        result_shapes: vec![vec![3, 4]],
        ..MetalKernelCall::default()
    })
}
