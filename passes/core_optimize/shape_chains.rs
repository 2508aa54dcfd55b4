//! Chains and identities of data-movement ops. Every rewrite here moves
//! the same elements to the same places as before, so it is exact for
//! every value of every element type (NaN payloads and -0.0 included).
//!
//! Operand order (coreai-core's bindings): `reshape(x, shape)`,
//! `transpose(x, perm)`, `broadcast_to(x, shape)`,
//! `broadcast_in_dims(x, sizes, axes)`, `tile(x, reps)`,
//! `slice(x, begin, end, stride)`, `concat(axis, x...)`.

use super::{constant_ints, defining_op, op_name, Options};
use coreai_ir::emit::constant;
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use melior::ir::{operation::OperationLike, TypeLike, Value, ValueLike};

/// The operand replacing the op when its type is the op's result type.
fn same_type_operand<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    index: usize,
) -> Result<Value<'c, 'a>, Decline> {
    let x = cx.operand(index)?;
    let result = cx.op().result(0).map_err(|_| "no result")?;
    if x.r#type() != result.r#type() {
        return Err("the result type differs from the operand's".into());
    }
    Ok(x)
}

/// The dims of `v`'s ranked tensor type, `None` for a dynamic one.
fn dims_of(v: Value<'_, '_>) -> Result<Vec<Option<i64>>, Decline> {
    let ty = melior::ir::r#type::RankedTensorType::try_from(v.r#type())
        .map_err(|_| "not a ranked tensor")?;
    Ok(coreai_ir::schema::dims(ty)
        .into_iter()
        .map(|d| (d != coreai_ir::schema::DYNAMIC).then_some(d))
        .collect())
}

// reshape(x : T, s) : T → x   (T with at most one dynamic dim: the element
// count then fixes it; `?x?` to `?x?` may swap the sizes)
pub fn reshape_identity<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let x = same_type_operand(cx, 0)?;
    if dims_of(x)?.iter().filter(|d| d.is_none()).count() > 1 {
        return Err("two dynamic dims: the same type does not mean the same shape".into());
    }
    Ok(vec![x])
}

/// Ops that only change the shape (row-major order kept).
pub(crate) const RESHAPES: &[&str] = &[coreai::RESHAPE, coreai::EXPAND_DIMS, coreai::SHRINK_DIMS];

// reshape(reshape(x, s1), s2) → reshape(x, s2)
// (any of reshape, expand_dims, shrink_dims, inner or outer; the new shape
// is the outer result's, with its one dynamic dim, if any, as -1; declines
// two dynamic dims)
pub fn reshape_of_reshape<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let inner = defining_op(cx.operand(0)?.to_raw()).ok_or("the operand is not an op result")?;
    if !RESHAPES.contains(&op_name(inner).as_str()) {
        return Err("the operand is not a reshape, expand_dims or shrink_dims".into());
    }
    let x = cx.value(coreai_ir::raw::operand(inner, 0));
    let to = coreai_ir::schema::type_dims(cx.result_type(0)?)?;
    // One dynamic dim is inferred from the element count (a -1 entry);
    // with two the sizes would be lost.
    if to
        .iter()
        .filter(|&&d| d == coreai_ir::schema::DYNAMIC)
        .count()
        > 1
    {
        return Err("the result has two or more dynamic dims".into());
    }
    Ok(vec![coreai_ir::emit::reshape(cx, x, &to)?])
}

// transpose(x, [0, 1, ..., n-1]) → x
pub fn transpose_identity<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let perm = constant_ints(cx.operand(1)?.to_raw()).ok_or("the permutation is not a constant")?;
    if perm.iter().enumerate().any(|(i, p)| *p != i as i64) {
        return Err("the permutation is not the identity".into());
    }
    Ok(vec![same_type_operand(cx, 0)?])
}

// transpose(transpose(x, p), q) → transpose(x, [p[q[0]], ..., p[q[n-1]]])
pub fn transpose_of_transpose<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let inner = defining_op(cx.operand(0)?.to_raw()).ok_or("the operand is not an op result")?;
    if op_name(inner) != coreai::TRANSPOSE {
        return Err("the operand is not a transpose".into());
    }
    let (x, p) = (
        cx.value(coreai_ir::raw::operand(inner, 0)),
        coreai_ir::raw::operand(inner, 1),
    );
    let p = constant_ints(p).ok_or("the inner permutation is not a constant")?;
    let q =
        constant_ints(cx.operand(1)?.to_raw()).ok_or("the outer permutation is not a constant")?;
    let composed: Option<Vec<i64>> = q
        .iter()
        .map(|&i| usize::try_from(i).ok().and_then(|i| p.get(i).copied()))
        .collect();
    let composed = composed.ok_or("a permutation index is out of range")?;
    let (perm_ty, perm) = cx.int_tensor(&[composed.len() as i64], &composed, "ui32")?;
    let perm = constant(cx, perm_ty, perm)?;
    let ty = cx.result_type(0)?;
    Ok(vec![cx.build_value(
        coreai::TRANSPOSE,
        &[x, perm],
        ty,
        &[],
    )?])
}

// broadcast_to(x : T, s) : T → x   (also broadcast_in_dims, tile; T static:
// a dynamic dim of size 1 may be broadcast or tiled to more)
pub fn same_type_identity<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let x = same_type_operand(cx, 0)?;
    if dims_of(x)?.contains(&None) {
        return Err("a dynamic dim: the same type does not mean the same shape".into());
    }
    Ok(vec![x])
}

// slice(x : T, b, e, [1, ..., 1]) : T → x   (a dynamic dim of T only when
// its bounds are the constants 0 and "to the end": a run-time or partial
// bound may shrink it)
pub fn slice_identity<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let strides = constant_ints(cx.operand(3)?.to_raw()).ok_or("the strides are not constants")?;
    if strides.iter().any(|s| *s != 1) {
        return Err("a stride is not 1 (a full-size slice with stride -1 reverses)".into());
    }
    let x = same_type_operand(cx, 0)?;
    let dims = dims_of(x)?;
    if dims.contains(&None) {
        let starts = constant_ints(cx.operand(1)?.to_raw());
        let ends = constant_ints(cx.operand(2)?.to_raw());
        let (Some(starts), Some(ends)) = (starts, ends) else {
            return Err("a dynamic dim with run-time bounds".into());
        };
        let whole = |d: usize| {
            starts.get(d) == Some(&0) && ends.get(d).is_some_and(|&e| e >= i64::from(i32::MAX))
        };
        if (0..dims.len()).any(|d| dims[d].is_none() && !whole(d)) {
            return Err("a dynamic dim is not taken whole".into());
        }
    }
    Ok(vec![x])
}

// concat(axis, x : T) : T → x
pub fn concat_of_one<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    if cx.op().operand_count() != 2 {
        return Err("more than one tensor is concatenated".into());
    }
    Ok(vec![same_type_operand(cx, 1)?])
}

/// `shape` without its leading 1s.
fn without_leading_ones(shape: &[i64]) -> &[i64] {
    let ones = shape.iter().take_while(|d| **d == 1).count();
    &shape[ones..]
}

// broadcasting_op(a, reshape(b)) → broadcasting_op(a, b)
//   when the reshape only adds or drops leading 1s, b's rank is at most the
//   result's, and some operand still has the result's rank: broadcasting
//   aligns trailing dims, so it is the same op (declines when every operand
//   would be of lower rank: coreai's result rank is the operands' broadcast
//   rank; not for broadcasting_batch_matmul, whose last two dims are a
//   matrix)
pub fn broadcast_operand_reshape<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    _: Options,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let op = cx.op();
    let name = op_name(op.to_raw());
    if name.contains("matmul") {
        return Err("a matrix product".into());
    }
    let result = cx.result_type(0)?;
    let rank = super::static_shape(result.to_raw())
        .ok_or("the result shape is not static")?
        .len();
    for i in 0..op.operand_count() {
        let Some(reshape) = defining_op(cx.operand(i)?.to_raw()) else {
            continue;
        };
        if op_name(reshape) != coreai::RESHAPE {
            continue;
        }
        let b = cx.value(coreai_ir::raw::operand(reshape, 0));
        let (Some(from), Some(to)) = (
            super::static_shape(b.r#type().to_raw()),
            super::static_shape(cx.operand(i)?.r#type().to_raw()),
        ) else {
            continue;
        };
        if without_leading_ones(&from) != without_leading_ones(&to) || from.len() > rank {
            continue;
        }
        let mut operands: Vec<Value<'c, 'a>> = (0..op.operand_count())
            .map(|j| cx.operand(j))
            .collect::<Result<_, _>>()?;
        operands[i] = b;
        let keeps_rank = operands
            .iter()
            .any(|v| super::static_shape(v.r#type().to_raw()).is_some_and(|s| s.len() == rank));
        if !keeps_rank {
            continue;
        }
        return Ok(vec![cx.build_value(&name, &operands, result, &[])?]);
    }
    Err("no operand is a reshape that only adds or drops leading 1s while another operand keeps the result's rank".into())
}
