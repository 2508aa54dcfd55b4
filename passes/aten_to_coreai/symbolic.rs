//! Symbolic sizes and the Python operators torch.export records on them
//! (`aten.sym_size.int`, `aten.add`, `aten.floordiv`, `aten.sym_float` ...)
//! and `aten._local_scalar_dense` → coreai; `operator.and_` / `or_` on
//! symbolic bools and `torch.sym_ite` (what `narrow` with a data-dependent
//! start decomposes to) are the elementwise logical ops and a select.
//!
//! A symbolic size is a scalar (`i64`, `f64`, `i1`) in the aten dialect; the
//! legalizer gives it a rank-0 coreai tensor (`tensor<si64>`, `tensor<f64>`,
//! `tensor<i1>`, see `lowering::coreai_type`), so the operators are
//! elementwise coreai ops on rank-0 tensors, computed in the result's dtype
//! with Python's semantics (floor division and modulo round toward -inf,
//! true division gives a float, `math.ceil` / `floor` / `trunc` / `round`
//! turn a float into an int). coreai-torch 0.4.3 emits the same ops but
//! holds sizes as `tensor<1xsi32>` / `tensor<1xf32>`; keeping PyTorch's
//! i64 / f64 (as rank 0) makes the lowering exact and lets a size meet a
//! tensor (a Python operator with a tensor operand, `aten.cond`'s
//! predicate) without changing its rank.

use super::formulas::{floor_div, trunc_float};
use super::promotion::constant_like;
use coreai_ir::emit::{arith, select, unary};
use coreai_ir::emit::{cast_to, reshape, slice, splat};
use coreai_ir::lowering::{Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::is_float;
use coreai_ir::schema::{
    dims, element_type, int_attr, named_operand, normalize_dim, tensor_type, DYNAMIC,
};
use melior::ir::{operation::OperationLike, r#type::ShapedTypeLike, Type, Value, ValueLike};

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

pub static LOWERINGS: super::Family = &[
    ("_local_scalar_dense.default", local_scalar_dense),
    ("add", |cx| arithmetic(cx, coreai::ADD)),
    ("and_", |cx| delegate(cx, "logical_and.default")),
    ("ceil", |cx| to_int(cx, Rounding::Ceil)),
    ("eq", |cx| delegate(cx, "eq.Tensor")),
    ("floor", |cx| to_int(cx, Rounding::Floor)),
    ("floordiv", floordiv),
    ("ge", |cx| delegate(cx, "ge.Tensor")),
    ("gt", |cx| delegate(cx, "gt.Tensor")),
    ("le", |cx| delegate(cx, "le.Tensor")),
    ("lt", |cx| delegate(cx, "lt.Tensor")),
    ("mod", |cx| delegate(cx, "remainder.Tensor")),
    ("mul", |cx| arithmetic(cx, coreai::MUL)),
    ("ne", |cx| delegate(cx, "ne.Tensor")),
    ("neg", |cx| delegate(cx, "neg.default")),
    ("or_", |cx| delegate(cx, "logical_or.default")),
    ("pow", |cx| arithmetic(cx, coreai::POW)),
    ("round", python_round),
    ("sub", |cx| arithmetic(cx, coreai::SUB)),
    ("sym_float", sym_float),
    ("sym_int", |cx| to_int(cx, Rounding::Trunc)),
    ("sym_ite", sym_ite),
    ("sym_max", |cx| arithmetic(cx, coreai::MAXIMUM)),
    ("sym_min", |cx| arithmetic(cx, coreai::MINIMUM)),
    ("sym_not", |cx| delegate(cx, "logical_not.default")),
    ("sym_size.int", sym_size),
    ("sym_sqrt", sym_sqrt),
    ("trunc", |cx| to_int(cx, Rounding::Trunc)),
    ("truediv", |cx| arithmetic(cx, coreai::DIVIDE)),
];

/// The result element type.
fn result_element<'c>(cx: &LoweringCx<'c, '_>) -> Result<Type<'c>, Decline> {
    Ok(cx.result_tensor(0)?.element())
}

/// Operand `index` cast to the result element.
fn operand_in_result<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    index: usize,
) -> Result<Value<'c, 'a>, Decline> {
    cast_to(cx, cx.operand(index)?, result_element(cx)?)
}

/// The lowering of the ATen overload `key` applied to this op: the Python
/// operator means the same as the overload on rank-0 tensors.
fn delegate<'c, 'a>(cx: &LoweringCx<'c, 'a>, key: &str) -> Lowered<'c, 'a> {
    let lower =
        super::lookup(key).ok_or_else(|| format!("no lowering of '{key}' to delegate to"))?;
    lower(cx)
}

// aten.sym_size.int(%x) {dim} → coreai.cast (coreai.reshape (coreai.slice (coreai.get_shape %x)[dim:dim+1]), []) to si64
//                              → coreai.constant <size>  (a static dim)
fn sym_size<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let d = dims(cx.operand_tensor(0)?);
    let dim = normalize_dim(int_attr(cx, "dim")?, d.len())?;
    if d[dim] != DYNAMIC {
        return Ok(vec![splat(cx, Scalar::Int(d[dim]), cx.result_type(0)?)?]);
    }
    let ui32 = cx.parse_type("ui32")?;
    let shape = cx.build_value(
        coreai::GET_SHAPE,
        &[x],
        tensor_type(&[d.len() as i64], ui32),
        &[],
    )?;
    let one = slice(
        cx,
        shape,
        &[(dim as i64, dim as i64 + 1, 1)],
        tensor_type(&[1], ui32),
    )?;
    let size = reshape(cx, one, &[])?;
    Ok(vec![cast_to(cx, size, result_element(cx)?)?])
}

// aten.{add,sub,mul,pow,truediv,sym_min,sym_max}(%a, %b)
//   → coreai.decomposable.broadcasting_{add,sub,mul,pow,divide,minimum,maximum} in the result dtype
fn arithmetic<'c, 'a>(cx: &LoweringCx<'c, 'a>, op: &str) -> Lowered<'c, 'a> {
    let a = operand_in_result(cx, 0)?;
    let b = operand_in_result(cx, 1)?;
    Ok(vec![arith(cx, op, a, b)?])
}

// aten.floordiv(%a, %b) → Python's floor division in the result dtype (see `floor_div`)
fn floordiv<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let a = operand_in_result(cx, 0)?;
    let b = operand_in_result(cx, 1)?;
    Ok(vec![floor_div(cx, a, b)?])
}

// aten.sym_float(%n) → coreai.cast %n to the float result
fn sym_float<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    Ok(vec![operand_in_result(cx, 0)?])
}

// aten.sym_sqrt(%n) → coreai.sqrt (coreai.cast %n to the float result)
fn sym_sqrt<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    if !is_float(result_element(cx)?) {
        return Err(format!(
            "sym_sqrt with the non-float result {}",
            cx.result_type(0)?
        ));
    }
    Ok(vec![unary(cx, coreai::SQRT, operand_in_result(cx, 0)?)?])
}

#[derive(Clone, Copy)]
enum Rounding {
    Floor,
    Ceil,
    Trunc,
    Round,
}

// aten.{floor,ceil,trunc,round,sym_int}(%x : float) → the rounding in %x's dtype, then coreai.cast to the result
//   floor: broadcasting_floor_divide(x, 1) (exact for the finite values Python's math.floor accepts); ceil: -floor(-x); trunc: floor(|x|) with x's sign; round: coreai.round (half to even, as Python)
// (an integer %x: coreai.cast only)
fn to_int<'c, 'a>(cx: &LoweringCx<'c, 'a>, how: Rounding) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    if !is_float(element_type(x)?) {
        return Ok(vec![operand_in_result(cx, 0)?]);
    }
    let one = constant_like(cx, 1.0, x)?;
    let minus_one = constant_like(cx, -1.0, x)?;
    let rounded = match how {
        Rounding::Floor => arith(cx, coreai::FLOOR_DIVIDE, x, one)?,
        Rounding::Ceil => {
            let f = arith(
                cx,
                coreai::FLOOR_DIVIDE,
                arith(cx, coreai::MUL, x, minus_one)?,
                one,
            )?;
            arith(cx, coreai::MUL, f, minus_one)?
        }
        Rounding::Trunc => trunc_float(cx, x)?,
        Rounding::Round => unary(cx, coreai::ROUND, x)?,
    };
    Ok(vec![cast_to(cx, rounded, result_element(cx)?)?])
}

// aten.round(%x) / aten.operator "builtins::round"(%x) → Python's round(x): to_int, half to even
// (the generic form is what an importer writes for `round(x, None)`; `round(x, ndigits)` declines)
fn python_round<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    if cx.op().operand_count() != 1 || cx.op().attribute("arg1").is_ok() {
        return Err(
            "round(x, ndigits) rounds to decimal digits, which has no lowering; round(x) and round(x, None) do".into(),
        );
    }
    to_int(cx, Rounding::Round)
}

// aten._local_scalar_dense(%x : rank 0 or one element) → %x (coreai.reshape to rank 0, coreai.cast to the result)
fn local_scalar_dense<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let d = dims(cx.operand_tensor(0)?);
    if d.iter().any(|&n| n != 1) {
        return Err(format!(
            "item() of {} needs exactly one element",
            x.r#type()
        ));
    }
    let x = reshape(cx, x, &[])?;
    Ok(vec![cast_to(cx, x, result_element(cx)?)?])
}

// aten.operator "torch::sym_ite"(%c) {arg1, arg2} (or either as an operand)
//   → coreai.decomposable.broadcasting_where %c, a, b on rank-0 tensors of the result dtype
fn sym_ite<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let cond = named_operand(cx, "arg0")?.ok_or("sym_ite without its condition operand")?;
    let element = result_element(cx)?;
    let scalar = tensor_type(&[], element);
    let pick = |name: &str| -> Result<Value<'c, 'a>, Decline> {
        match named_operand(cx, name)? {
            Some(v) => cast_to(cx, v, element),
            None => splat(cx, cx.scalar(name)?, scalar),
        }
    };
    let (a, b) = (pick("arg1")?, pick("arg2")?);
    Ok(vec![select(cx, cond, a, b)?])
}
