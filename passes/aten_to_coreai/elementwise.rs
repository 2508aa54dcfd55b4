//! Elementwise ATen ops → coreai.
//!
//! Operands and result must share the result's element type: a lowering of a
//! mixed-dtype op needs the promotion cast made explicit first, which these
//! patterns do not guess.

use crate::lowering::{Decline, LoweringCx, Scalar};
use melior::ir::{
    r#type::{RankedTensorType, ShapedTypeLike},
    Value, ValueLike,
};

pub static LOWERINGS: super::Family = &[
    ("abs.default", abs),
    ("add.Tensor", add_tensor),
    ("mul.Tensor", mul_tensor),
];

/// Checks that every operand has the result's element type.
fn same_element_types(cx: &LoweringCx<'_, '_>, operands: usize) -> Result<(), Decline> {
    let result: RankedTensorType = cx.result_tensor(0)?;
    for i in 0..operands {
        let operand = cx.operand_tensor(i)?;
        if operand.element() != result.element() {
            return Err(format!(
                "operand #{i} is {} but the result is {}: the type promotion needs an explicit cast",
                operand.element(),
                result.element()
            ));
        }
    }
    Ok(())
}

// aten.abs.default(%x) → coreai.abs %x
pub fn abs<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    same_element_types(cx, 1)?;
    let x = cx.operand(0)?;
    Ok(vec![cx.build_value(
        "coreai.abs",
        &[x],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.add.Tensor(%a, %b) {alpha = 1}   → coreai.decomposable.broadcasting_add %a, %b
// aten.add.Tensor(%a, %b) {alpha = k}   → broadcasting_add %a, (broadcasting_mul %b, k)
//
// With alpha ≠ 1 PyTorch's CPU kernel may fuse `a + alpha * b` into one
// rounding; the two-op form rounds twice (≤ 1 ulp apart).
pub fn add_tensor<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    same_element_types(cx, 2)?;
    let (a, mut b) = (cx.operand(0)?, cx.operand(1)?);
    let result = cx.result_type(0)?;
    let alpha = cx.scalar("alpha")?;
    if alpha != Scalar::Int(1) && alpha != Scalar::Float(1.0) {
        let element = cx.result_tensor(0)?.element();
        let k = cx.scalar_constant(alpha, element)?;
        let b_type = cx.operand(1)?.r#type();
        b = cx.build_value("coreai.decomposable.broadcasting_mul", &[b, k], b_type, &[])?;
    }
    Ok(vec![cx.build_value(
        "coreai.decomposable.broadcasting_add",
        &[a, b],
        result,
        &[],
    )?])
}

// aten.mul.Tensor(%a, %b) → coreai.decomposable.broadcasting_mul %a, %b
pub fn mul_tensor<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    same_element_types(cx, 2)?;
    let (a, b) = (cx.operand(0)?, cx.operand(1)?);
    Ok(vec![cx.build_value(
        "coreai.decomposable.broadcasting_mul",
        &[a, b],
        cx.result_type(0)?,
        &[],
    )?])
}
