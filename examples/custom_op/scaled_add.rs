//! The user lowering of `examples/custom_op/main.rs`, shared with the library's
//! tests: `scaled_add(a, b, scale) = a + scale * b`, the op a PyTorch model
//! defines with `torch.library` (test/e2e/models/custom.py).

use coreai::lowering::{LoweringCx, UserLowering};
use melior::ir::{r#type::ShapedTypeLike, Value, ValueLike};
use std::sync::Arc;

/// `aten.operator "ns::scaled_add.default"(%a, %b) {scale}` →
/// `broadcasting_add(a, broadcasting_mul(b, scale))`, with `scale` a rank-0
/// constant of the result's element type (exact only: the lowering declines a
/// scale the element type cannot hold).
pub fn scaled_add() -> UserLowering {
    Arc::new(|cx: &LoweringCx<'_, '_>| {
        let (a, b) = (cx.operand(0)?, cx.operand(1)?);
        let element = cx.result_tensor(0)?.element();
        let scale = cx.scalar_constant(cx.scalar("scale")?, element)?;
        let scaled = cx.build_value(
            "coreai.decomposable.broadcasting_mul",
            &[b, scale],
            b.r#type(),
            &[],
        )?;
        let sum: Value = cx.build_value(
            "coreai.decomposable.broadcasting_add",
            &[a, scaled],
            cx.result_type(0)?,
            &[],
        )?;
        Ok(vec![sum])
    })
}
