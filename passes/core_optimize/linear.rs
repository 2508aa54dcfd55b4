//! Linear layers on rank ≥ 3 inputs without the flattening reshapes.
//!
//! `aten.linear`/`addmm` on `[A..., K]` reach coreai as a reshape to
//! `[M, K]` (M = ∏A), a rank-2 matmul, the bias add and a reshape back.
//! coreai's `broadcasting_batch_matmul` takes the rank-3+ operand with a
//! rank-2 weight directly (Apple's rewrite emits that form too), so the
//! first reshape goes and the last one folds into whatever shape follows:
//!
//! // reshape(add(matmul(reshape(x : [A..., K], [M, K]), w : [K, N]), b), s)
//! //   → reshape(add(matmul(x, w) : [A..., N], b), s)
//!
//! Exact: each output row is the same dot products over the same K in the
//! same order (the executor runs a batch over a shared rank-2 weight as
//! one product of M rows, the very call the rank-2 form makes), and the
//! bias broadcasts to the same element of each row.
//!
//! Declines: shapes not static; x of rank above 5 (the flattened form keeps
//! every op at rank ≤ 5, the Neural Engine's limit; a window partition
//! reshaped to rank 6 would otherwise carry its rank into the product);
//! x's last dim is not K (the reshape moves
//! elements across rows); the weight is not rank 2; the bias would
//! broadcast over more than the last dim; the matmul or the add has
//! another use (both forms would be computed).

use super::{defining_op, op_name, single_use_producer, static_shape, Options};
use coreai_ir::emit::reshape;
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::schema::tensor_type;
use melior::ir::{Type, TypeLike, Value, ValueLike};

const MATMUL: &str = coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL;
const ADD: &str = coreai::DECOMPOSABLE_BROADCASTING_ADD;

fn operand<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: mlir_sys::MlirOperation,
    i: usize,
) -> Value<'c, 'a> {
    cx.value(coreai_ir::raw::operand(op, i))
}

fn shape_of(v: Value<'_, '_>) -> Result<Vec<i64>, Decline> {
    static_shape(v.r#type().to_raw()).ok_or_else(|| "a shape is not static".into())
}

fn result_element<'c>(
    cx: &LoweringCx<'c, '_>,
    op: mlir_sys::MlirOperation,
) -> Result<Type<'c>, Decline> {
    coreai_ir::schema::element_type(cx.value(coreai_ir::raw::result(op, 0)))
}

// reshape(add?(matmul(reshape(x, [M, K]), w), b), s) → reshape(add?(matmul(x, w), b), s)
pub fn unflatten_linear<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let inner = cx.operand(0)?;
    let mut producer = single_use_producer(inner).ok_or("the operand has other uses")?;
    let add = if op_name(producer) == ADD {
        let add = producer;
        producer =
            single_use_producer(operand(cx, add, 0)).ok_or("the add's lhs has other uses")?;
        Some(add)
    } else {
        None
    };
    if op_name(producer) != MATMUL {
        return Err("the operand is not a (matmul + bias) result".into());
    }
    let matmul = producer;
    let (flat, w) = (operand(cx, matmul, 0), operand(cx, matmul, 1));
    let flatten = defining_op(flat.to_raw()).ok_or("the matmul's lhs is not an op result")?;
    if op_name(flatten) != coreai::RESHAPE {
        return Err("the matmul's lhs is not a reshape".into());
    }
    let x = operand(cx, flatten, 0);
    let (xs, fs, ws) = (shape_of(x)?, shape_of(flat)?, shape_of(w)?);
    if fs.len() != 2 || ws.len() != 2 || xs.len() < 3 {
        return Err(
            "not a rank ≥ 3 input flattened into a rank-2 matmul with a rank-2 weight".into(),
        );
    }
    if xs.len() > crate::ane_residency::MAX_RANK {
        return Err(format!(
            "x is rank {}: the flattened form keeps the product at rank <= {}",
            xs.len(),
            crate::ane_residency::MAX_RANK
        ));
    }
    let (k, n) = (ws[0], ws[1]);
    if xs[xs.len() - 1] != k || fs[1] != k {
        return Err("the flattening reshape does not keep the rows of x".into());
    }
    let mut to: Vec<i64> = xs[..xs.len() - 1].to_vec();
    to.push(n);
    let mut y = cx.build_value(
        MATMUL,
        &[x, w],
        tensor_type(&to, result_element(cx, matmul)?),
        &[],
    )?;
    if let Some(add) = add {
        let b = operand(cx, add, 1);
        let bs = shape_of(b)?;
        let row_only = bs.len() <= 2
            && bs.iter().rev().skip(1).all(|&d| d == 1)
            && bs.last().is_none_or(|&d| d == 1 || d == n);
        if !row_only {
            return Err("the bias broadcasts over more than the last dim".into());
        }
        y = cx.build_value(
            ADD,
            &[y, b],
            tensor_type(&to, result_element(cx, add)?),
            &[],
        )?;
    }
    let out = static_shape(cx.result_type(0)?.to_raw()).ok_or("the result shape is not static")?;
    Ok(vec![reshape(cx, y, &out)?])
}
