//! `matmul-per-head`: attention's products computed one head at a time
//! (Apple's Neural Engine SDPA, `primitives/ios/sdpa.py`: "iOS requires
//! each attention head to be computed individually to meet hardware
//! constraints and ensure efficient compilation"; its per-head products
//! are concatenated along a head axis for the mask and the softmax, and
//! again after the values' products).
//!
//! `matmul(a : 1×H×M×K, b : 1×H×K×N)` (an operand may have one head,
//! broadcast) → `concat(1, matmul(a[:, h], b[:, h]) for h < H)`: each
//! head's product is the same computation on the same elements, so the
//! values are the same bit for bit.
//!
//! Declines: a constant operand (a linear layer's weight: `linear-conv1x1`
//! or `matmul-rank4` take it), ranks other than 4, a leading dim other
//! than 1, one head, more than [`MAX_HEADS`] heads, dynamic dims.

use coreai_ir::emit::{concat, slice};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::schema::{shape_of, tensor_type, type_dims, DYNAMIC};
use melior::ir::{r#type::ShapedTypeLike, Value};

use crate::fp16_stabilize::pattern::defined_by;

/// Heads split at most (a product per head is an op per head).
pub const MAX_HEADS: i64 = 64;

// broadcasting_batch_matmul(%a : 1×H×M×K, %b : 1×H×K×N)
//   → concat(1, broadcasting_batch_matmul(slice(a, h) : 1×1×M×K,
//                                         slice(b, h) : 1×1×K×N) : 1×1×M×N, h < H)
pub fn matmul_per_head<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let (a, b) = (cx.operand(0)?, cx.operand(1)?);
    if [a, b]
        .iter()
        .any(|&v| defined_by(v, coreai::CONSTANT).is_some())
    {
        return Err("a constant operand (a layer's weight, not attention)".into());
    }
    let (sa, sb) = (shape_of(a)?, shape_of(b)?);
    let out = type_dims(cx.result_type(0)?)?;
    if sa.len() != 4 || sb.len() != 4 || out.len() != 4 {
        return Err("not a product of rank-4 operands".into());
    }
    if sa.iter().chain(&sb).chain(&out).any(|&d| d == DYNAMIC) {
        return Err("a dynamic dim (the Neural Engine runs static shapes)".into());
    }
    if out[0] != 1 {
        return Err(format!("a leading dim of {}", out[0]));
    }
    let heads = out[1];
    if heads == 1 {
        return Err("one head".into());
    }
    if heads > MAX_HEADS {
        return Err(format!("{heads} heads (at most {MAX_HEADS} are split)"));
    }
    let element = cx.result_tensor(0)?.element();
    let head = |v: Value<'c, 'a>, dims: &[i64], h: i64| -> Result<Value<'c, 'a>, Decline> {
        if dims[1] == 1 {
            return Ok(v);
        }
        let mut bounds: Vec<(i64, i64, i64)> = dims.iter().map(|&n| (0, n, 1)).collect();
        bounds[1] = (h, h + 1, 1);
        let mut one = dims.to_vec();
        one[1] = 1;
        slice(cx, v, &bounds, tensor_type(&one, element))
    };
    let product = tensor_type(&[1, 1, out[2], out[3]], element);
    let mut products = Vec::new();
    for h in 0..heads {
        let (ah, bh) = (head(a, &sa, h)?, head(b, &sb, h)?);
        products.push(cx.rebuild(&[ah, bh], product)?);
    }
    concat(cx, 1, &products, cx.result_type(0)?).map(|c| vec![c])
}
