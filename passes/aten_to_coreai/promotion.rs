//! PyTorch's type promotion as the lowerings apply it: dtype categories,
//! `result_type` of operands and Python numbers, the numbers the importer
//! wraps in rank-0 constants, their conversion to a tensor's dtype, and
//! when a 16-bit float computation runs in f32 ("opmath"); operands that
//! are a tensor or a Python number ([`Arg`]) and their materialization.

use coreai_ir::emit::{cast_to, splat};
use coreai_ir::lowering::{type_text, Decline, LoweringCx, Scalar};
use coreai_ir::schema::{dims, element_type, f32_type, is_float, is_half, tensor_type};
use melior::ir::r#type::{RankedTensorType, ShapedTypeLike};
use melior::ir::{operation::OperationLike, AttributeLike, Type, TypeLike, Value, ValueLike};

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

/// The Python number held by `value`, if the importer wrapped one there
/// (`x * 2` → a rank-0 splat constant marked `aten.wrapped_number`).
pub fn wrapped_number<'c>(cx: &LoweringCx<'c, '_>, value: Value<'c, '_>) -> Option<Scalar> {
    if !cx.is_wrapped_number(value) {
        return None;
    }
    let attr = coreai_ir::schema::producer(value)?
        .attribute("value")
        .ok()?;
    let e = coreai_ir::schema::splat_element(attr)?;
    let element = RankedTensorType::try_from(attr.r#type()).ok()?.element();
    if element.is_f64() || element.is_f32() {
        coreai_ir::schema::float_value(e).map(Scalar::Float)
    } else if let Some((64, _)) = coreai_ir::schema::int_kind(element) {
        coreai_ir::raw::int_value(e.to_raw()).map(Scalar::Int)
    } else if let Some((1, _)) = coreai_ir::schema::int_kind(element) {
        coreai_ir::raw::int_value(e.to_raw()).map(|v| Scalar::Int(i64::from(v != 0)))
    } else {
        None
    }
}

/// A Python number as a rank-0 constant of `element`, converted as PyTorch
/// converts a number to a tensor's dtype: exact when it can be; f32/f64 round
/// to nearest; f16/bf16 take an f32 constant and an explicit `coreai.cast`
/// (PyTorch goes double → float → half too); an integer or bool dtype
/// declines a number it cannot hold.
pub fn number<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    value: Scalar,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let text = type_text(element);
    let special = matches!(value, Scalar::Float(v) if !v.is_finite());
    if text == "i1" || (special && is_float(element)) {
        return splat(cx, value, tensor_type(&[], element));
    }
    if category(element) == 1 {
        return match value {
            Scalar::Int(v)
                if int_range(&text).is_some_and(|(lo, hi)| (lo..=hi).contains(&i128::from(v))) =>
            {
                cx.scalar_constant(value, element)
            }
            Scalar::Float(v)
                if v.fract() == 0.0
                    && int_range(&text)
                        .is_some_and(|(lo, hi)| (lo as f64..=hi as f64).contains(&v)) =>
            {
                cx.scalar_constant(Scalar::Int(v as i64), element)
            }
            _ => Err(format!(
                "the number {} does not fit the dtype {text}",
                show(value)
            )),
        };
    }
    if value.is_exact_in(element) {
        return cx.scalar_constant(value, element);
    }
    match &*text {
        "f32" | "f64" => splat(cx, value, tensor_type(&[], element)),
        "f16" | "bf16" => {
            let wide = splat(cx, value, tensor_type(&[], f32_type(cx)?))?;
            cast_to(cx, wide, element)
        }
        _ => Err(format!(
            "the number {} does not fit the dtype {text}",
            show(value)
        )),
    }
}

/// A number as the user wrote it.
pub fn show(value: Scalar) -> String {
    match value {
        Scalar::Int(v) => v.to_string(),
        Scalar::Float(v) => v.to_string(),
    }
}

/// The value range of an integer type name (`si8` → -128..=127).
pub fn int_range(name: &str) -> Option<(i128, i128)> {
    let bits = name
        .trim_start_matches(|c: char| c.is_alphabetic())
        .parse::<u32>()
        .ok()?;
    if name.starts_with("ui") {
        Some((0, (1i128 << bits) - 1))
    } else {
        Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
    }
}

/// Whether a computation in `element` with these Python numbers runs in
/// f32 in PyTorch and rounds once (`mul`, `div`, `leaky_relu` on f16/bf16
/// with a number that f16/bf16 cannot hold exactly).
pub fn needs_opmath(element: Type<'_>, numbers: &[Scalar]) -> bool {
    is_half(element) && numbers.iter().any(|n| !n.is_exact_in(element))
}

/// PyTorch's category of a dtype: bool < integer < float.
pub fn category(element: Type<'_>) -> u8 {
    let text = type_text(element);
    if text == "i1" {
        0
    } else if is_float(element) {
        2
    } else {
        1
    }
}

/// `promote_types(a, b)` for two dtypes.
pub fn promote_pair<'c>(
    cx: &LoweringCx<'c, '_>,
    a: Type<'c>,
    b: Type<'c>,
) -> Result<Type<'c>, Decline> {
    if a == b {
        return Ok(a);
    }
    let (ca, cb) = (category(a), category(b));
    if ca != cb {
        return Ok(if ca > cb { a } else { b });
    }
    let (ta, tb) = (a.to_string(), b.to_string());
    if ca == 2 {
        let rank = |t: &str| match t {
            "f16" | "bf16" => 16,
            "f32" => 32,
            _ => 64,
        };
        return match (rank(&ta), rank(&tb)) {
            (16, 16) => f32_type(cx),
            (x, y) => Ok(if x >= y { a } else { b }),
        };
    }
    let bits = |t: &str| {
        t.trim_start_matches(|c: char| c.is_alphabetic())
            .parse::<u32>()
            .unwrap_or(64)
    };
    let (ua, ub) = (ta.starts_with("ui"), tb.starts_with("ui"));
    let (ba, bb) = (bits(&ta), bits(&tb));
    if ua == ub {
        return Ok(if ba >= bb { a } else { b });
    }
    // Signed with unsigned: the signed type if it is wider, else the next
    // wider signed type (uint8 + int8 = int16).
    let (signed, unsigned) = if ua { (bb, ba) } else { (ba, bb) };
    let width = if signed > unsigned {
        signed
    } else {
        (unsigned * 2).min(64)
    };
    cx.parse_type(&format!("si{width}"))
}

/// PyTorch's `result_type` of the operands: tensors with dims first, then
/// rank-0 tensors, then wrapped Python numbers, each later group counting
/// only when its category (bool < int < float) is higher; a float number
/// promotes integer tensors to the default dtype f32.
pub fn promoted_element<'c>(
    cx: &LoweringCx<'c, '_>,
    operands: &[Value<'c, '_>],
    numbers: &[Scalar],
) -> Result<Type<'c>, Decline> {
    let mut groups: [Option<Type<'c>>; 3] = [None, None, None];
    for &v in operands {
        let (group, element) = match wrapped_number(cx, v) {
            Some(n) => (2, number_dtype(cx, n)?),
            None => {
                let ty = RankedTensorType::try_from(v.r#type())
                    .map_err(|_| format!("{} is not a ranked tensor", v.r#type()))?;
                (usize::from(dims(ty).is_empty()), ty.element())
            }
        };
        groups[group] = Some(match groups[group] {
            Some(t) => promote_pair(cx, t, element)?,
            None => element,
        });
    }
    for &n in numbers {
        let element = number_dtype(cx, n)?;
        groups[2] = Some(match groups[2] {
            Some(t) => promote_pair(cx, t, element)?,
            None => element,
        });
    }
    let mut result: Option<Type<'c>> = None;
    for (i, group) in groups.into_iter().enumerate() {
        let Some(t) = group else { continue };
        result = Some(match result {
            None => t,
            Some(r) if category(t) > category(r) => {
                if i == 2 && category(t) == 2 {
                    f32_type(cx)?
                } else {
                    t
                }
            }
            Some(r) => r,
        });
    }
    result.ok_or_else(|| "no operand to promote".to_string())
}

/// The dtype PyTorch gives a Python number on its own (int → int64, float
/// → float64 here; the default dtype is applied by [`promoted_element`]).
pub fn number_dtype<'c>(cx: &LoweringCx<'c, '_>, n: Scalar) -> Result<Type<'c>, Decline> {
    cx.parse_type(match n {
        Scalar::Int(_) => "si64",
        Scalar::Float(_) => "f64",
    })
}

/// A rank-0 constant `v` of the element type of `like`.
pub fn constant_like<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: f64,
    like: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let element = element_type(like)?;
    let n = if is_float(element) {
        Scalar::Float(v)
    } else {
        Scalar::Int(v as i64)
    };
    number(cx, n, element)
}

/// An operand of an elementwise op: a tensor, or a Python number (a wrapped
/// number operand or a `Scalar` attribute).
#[derive(Clone, Copy)]
pub enum Arg<'c, 'a> {
    Tensor(Value<'c, 'a>),
    Number(Scalar),
}

/// Operand `index`, as a number when the importer wrapped one there.
pub fn arg<'c, 'a>(cx: &LoweringCx<'c, 'a>, index: usize) -> Result<Arg<'c, 'a>, Decline> {
    let v = cx.operand(index)?;
    Ok(match wrapped_number(cx, v) {
        Some(n) => Arg::Number(n),
        None => Arg::Tensor(v),
    })
}

/// The `Scalar` attribute `name` as an operand.
pub fn attr_arg<'c, 'a>(cx: &LoweringCx<'c, 'a>, name: &str) -> Result<Arg<'c, 'a>, Decline> {
    cx.scalar(name).map(Arg::Number)
}

/// The numbers among `args`.
pub fn numbers(args: &[Arg<'_, '_>]) -> Vec<Scalar> {
    args.iter()
        .filter_map(|a| match a {
            Arg::Number(n) => Some(*n),
            Arg::Tensor(_) => None,
        })
        .collect()
}

/// `arg` as a tensor of `element` (a cast, or a new constant).
pub fn materialize<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    arg: Arg<'c, 'a>,
    element: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    match arg {
        Arg::Tensor(v) => cast_to(cx, v, element),
        Arg::Number(n) => number(cx, n, element),
    }
}

/// The dtype a computation with `args` and result element `result` runs in
/// when PyTorch keeps its numbers in "opmath" (mul, div, leaky_relu): f32
/// for an f16/bf16 result with a number f16/bf16 cannot hold, else `result`.
///
/// A rank-0 tensor of another dtype as the second of two operands counts as
/// such a number: PyTorch's CPU kernels read a 0-dim second operand as a
/// scalar of the opmath type (measured: f16 `x * torch.tensor(1/3,
/// dtype=float64)` is `f16(f32(x) * f32(1/3))`; with the 0-dim tensor first
/// it is converted to f16 instead). That is also how a symbolic Python number
/// (`x * (n / 3)`, dynamic shapes) reaches the kernel. Its value is only
/// known at run time, so the computation always runs in f32: for values
/// f16/bf16 can hold the result is the same (the product of two such values
/// is exact in f32, and f32 has the 2p + 2 bits that make rounding a
/// quotient twice innocuous).
pub fn opmath_element<'c>(
    cx: &LoweringCx<'c, '_>,
    result: Type<'c>,
    args: &[Arg<'c, '_>],
) -> Result<Type<'c>, Decline> {
    let scalar_second = match args {
        [_, Arg::Tensor(b)] => RankedTensorType::try_from(b.r#type())
            .is_ok_and(|t| t.rank() == 0 && t.element() != result),
        _ => false,
    };
    if needs_opmath(result, &numbers(args)) || (scalar_second && is_half(result)) {
        f32_type(cx)
    } else {
        Ok(result)
    }
}

/// The single result: `value` cast to the result element.
pub fn finish<'c, 'a>(cx: &LoweringCx<'c, 'a>, value: Value<'c, 'a>) -> Lowered<'c, 'a> {
    Ok(vec![cast_to(cx, value, cx.result_tensor(0)?.element())?])
}

/// Operands of a binary op: `(self, other)` from two operands (`.Tensor`)
/// or an operand and the `other` attribute (`.Scalar`).
pub fn binary_args<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<[Arg<'c, 'a>; 2], Decline> {
    let other = if cx.op().operand_count() > 1 {
        arg(cx, 1)?
    } else {
        attr_arg(cx, "other")?
    };
    Ok([arg(cx, 0)?, other])
}

/// Materializes `args` in `element`.
pub fn all_in<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    args: &[Arg<'c, 'a>],
    element: Type<'c>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    args.iter().map(|&a| materialize(cx, a, element)).collect()
}

/// The single operand in the result dtype (int → float for exp, sin ...).
pub fn operand_in_result<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let result = cx.result_tensor(0)?.element();
    materialize(cx, arg(cx, 0)?, result)
}

/// The single operand, declining a non-float result.
pub fn float_operand<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let result = cx.result_tensor(0)?.element();
    if !is_float(result) {
        return Err(format!("the result must be a float tensor, not {result}"));
    }
    operand_in_result(cx)
}

/// The float operand in the dtype a multi-op formula runs in: f32 for an
/// f16/bf16 result (PyTorch computes those in f32 and rounds once; `finish`
/// rounds back), else the result dtype.
pub fn widened_operand<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let x = float_operand(cx)?;
    if is_half(element_type(x)?) {
        cast_to(cx, x, f32_type(cx)?)
    } else {
        Ok(x)
    }
}
