//! Builders of ATen ops for the decompositions: attribute readers and
//! writers, and one function per emitted ATen op that computes its result
//! type from its operands (static shapes; `-1` is a dynamic dimension).

use coreai_ir::lowering::{type_text, Decline, LoweringCx, Scalar};
use melior::ir::{
    operation::OperationLike, r#type::RankedTensorType, Attribute, Type, TypeLike, Value, ValueLike,
};

pub type Cx<'x, 'c, 'a> = &'x LoweringCx<'c, 'a>;
pub type V<'c, 'a> = Value<'c, 'a>;
pub type Out<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

// ---------------------------------------------------------------- types

/// The shape of a ranked tensor value; `-1` for a dynamic dimension.
pub fn shape(v: V<'_, '_>) -> Result<Vec<i64>, Decline> {
    let ty = RankedTensorType::try_from(v.r#type())
        .map_err(|_| format!("{} is not a ranked tensor", v.r#type()))?;
    Ok(coreai_ir::schema::dims(ty)
        .into_iter()
        .map(|d| {
            if d == coreai_ir::schema::DYNAMIC {
                -1
            } else {
                d
            }
        })
        .collect())
}

/// The element type of a ranked tensor value.
pub fn element<'c>(v: V<'c, '_>) -> Result<Type<'c>, Decline> {
    use melior::ir::r#type::ShapedTypeLike;
    RankedTensorType::try_from(v.r#type())
        .map(|t| t.element())
        .map_err(|_| format!("{} is not a ranked tensor", v.r#type()))
}

/// `tensor<shape x element>`.
pub fn tensor<'c>(
    cx: Cx<'_, 'c, '_>,
    shape: &[i64],
    element: Type<'c>,
) -> Result<Type<'c>, Decline> {
    let mut text = String::from("tensor<");
    for d in shape {
        if *d < 0 {
            text.push_str("?x");
        } else {
            text.push_str(&format!("{d}x"));
        }
    }
    text.push_str(&format!("{element}>"));
    cx.parse_type(&text)
}

/// `dim` in `0..rank` (PyTorch's negative dims count from the end).
pub fn norm_dim(dim: i64, rank: usize) -> Result<usize, Decline> {
    let r = rank as i64;
    let d = if dim < 0 { dim + r } else { dim };
    if d < 0 || d >= r.max(1) {
        return Err(format!("dimension {dim} is out of range for rank {rank}"));
    }
    Ok(d as usize)
}

fn static_dims(shape: &[i64], what: &str) -> Result<(), Decline> {
    if let Some(i) = shape.iter().position(|d| *d < 0) {
        return Err(format!(
            "{what} needs a static shape, got the dynamic dim {i}"
        ));
    }
    Ok(())
}

// ---------------------------------------------------------- attributes

pub fn has(cx: Cx<'_, '_, '_>, name: &str) -> bool {
    cx.op().attribute(name).is_ok()
}

/// Schema attribute readers, shared with the lowerings ([`coreai_ir::schema`]).
pub use coreai_ir::schema::{bool_attr, int_attr, int_list_attr, str_attr};

pub fn get_int_or(cx: Cx<'_, '_, '_>, name: &str, default: i64) -> Result<i64, Decline> {
    if has(cx, name) {
        int_attr(cx, name)
    } else {
        Ok(default)
    }
}

/// An int, float or bool attribute as f64.
pub fn get_f64(cx: Cx<'_, '_, '_>, name: &str) -> Result<f64, Decline> {
    Ok(match cx.scalar(name)? {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    })
}

pub fn get_bool_or(cx: Cx<'_, '_, '_>, name: &str, default: bool) -> Result<bool, Decline> {
    if has(cx, name) {
        bool_attr(cx, name)
    } else {
        Ok(default)
    }
}

/// An optional int list: `None` when absent.
pub fn get_ints_opt(cx: Cx<'_, '_, '_>, name: &str) -> Result<Option<Vec<i64>>, Decline> {
    if has(cx, name) {
        int_list_attr(cx, name).map(Some)
    } else {
        Ok(None)
    }
}

pub fn a_int<'c>(cx: Cx<'_, 'c, '_>, v: i64) -> Result<Attribute<'c>, Decline> {
    Ok(cx.integer_attribute(v, 64))
}

pub fn a_ints<'c>(cx: Cx<'_, 'c, '_>, v: &[i64]) -> Result<Attribute<'c>, Decline> {
    let items: Vec<Attribute<'c>> = v.iter().map(|&i| cx.integer_attribute(i, 64)).collect();
    Ok(cx.array_attribute(&items))
}

pub fn a_bool<'c>(cx: Cx<'_, 'c, '_>, v: bool) -> Result<Attribute<'c>, Decline> {
    Ok(cx.bool_attribute(v))
}

pub fn a_str<'c>(cx: Cx<'_, 'c, '_>, v: &str) -> Result<Attribute<'c>, Decline> {
    Ok(cx.string_attribute(v))
}

pub fn a_type<'c>(ty: Type<'c>) -> Attribute<'c> {
    melior::ir::attribute::TypeAttribute::new(ty).into()
}

/// A PyTorch Scalar attribute: i64 for ints, f64 for floats.
pub fn a_scalar<'c>(cx: Cx<'_, 'c, '_>, v: Scalar) -> Result<Attribute<'c>, Decline> {
    match v {
        Scalar::Int(i) => a_int(cx, i),
        Scalar::Float(f) => cx.parse_attribute(&format!("{} : f64", float_text(f))),
    }
}

/// An f64 as MLIR float literal text (the legalizer's spelling).
pub fn float_text(v: f64) -> String {
    coreai_ir::lowering::float_literal(v)
}

// ------------------------------------------------------------ operands

/// The operands of each ODS operand group, using `operandSegmentSizes`
/// when the op has several variadic or optional operands.
pub fn groups<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Result<Vec<Vec<V<'c, 'a>>>, Decline> {
    let operands: Vec<V<'c, 'a>> = cx.op().operands().collect();
    let Ok(sizes) = cx.op().attribute("operandSegmentSizes") else {
        return Ok(operands.into_iter().map(|v| vec![v]).collect());
    };
    let sizes = melior::ir::attribute::DenseI32ArrayAttribute::try_from(sizes)
        .map_err(|_| "operandSegmentSizes is not an i32 array".to_string())?;
    let mut out = Vec::new();
    let mut next = 0usize;
    for i in 0..sizes.len() {
        let n = sizes.element(i).map_err(|e| e.to_string())? as usize;
        out.push(
            operands
                .get(next..next + n)
                .ok_or("operandSegmentSizes disagrees with the operands")?
                .to_vec(),
        );
        next += n;
    }
    Ok(out)
}

/// Operand group `i` when it holds at most one value.
pub fn optional<'c, 'a>(groups: &[Vec<V<'c, 'a>>], i: usize) -> Option<V<'c, 'a>> {
    groups.get(i).and_then(|g| g.first().copied())
}

// ----------------------------------------------------------- emitting

/// Builds `aten.<key>` with one result.
pub fn aten<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    key: &str,
    operands: &[V<'c, '_>],
    result: Type<'c>,
    attributes: &[(&str, Attribute<'c>)],
) -> Result<V<'c, 'a>, Decline> {
    cx.build_value(&format!("aten.{key}"), operands, result, attributes)
}

/// Builds `aten.<key>` with several results.
pub fn aten_n<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    key: &str,
    operands: &[V<'c, '_>],
    results: &[Type<'c>],
    attributes: &[(&str, Attribute<'c>)],
) -> Result<Vec<V<'c, 'a>>, Decline> {
    let op = cx.build(&format!("aten.{key}"), operands, results, attributes)?;
    (0..results.len())
        .map(|i| op.result(i).map(Into::into).map_err(|e| e.to_string()))
        .collect()
}

/// A rank-0 `arith.constant` of `element` holding `v` (rounded to
/// `element` like PyTorch rounds a Python scalar operand).
pub fn constant<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    v: Scalar,
    element: Type<'c>,
) -> Result<V<'c, 'a>, Decline> {
    let literal = match v {
        _ if type_text(element) == "i1" => {
            let nonzero = match v {
                Scalar::Int(i) => i != 0,
                Scalar::Float(f) => f != 0.0,
            };
            nonzero.to_string()
        }
        Scalar::Int(i) if element.is_integer() => i.to_string(),
        Scalar::Float(f) if element.is_integer() => {
            if f.fract() != 0.0 {
                return Err(format!("{f} is not an integer of {element}"));
            }
            (f as i64).to_string()
        }
        Scalar::Int(i) => float_text(i as f64),
        Scalar::Float(f) => float_text(f),
    };
    let ty = tensor(cx, &[], element)?;
    let value = cx.parse_attribute(&format!("dense<{literal}> : {ty}"))?;
    cx.build_value("arith.constant", &[], ty, &[("value", value)])
}

/// `x ⊙ c` for an elementwise binary `Tensor` overload and a scalar `c`
/// in `x`'s element type.
pub fn binary_scalar<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    key: &str,
    x: V<'c, 'a>,
    c: Scalar,
) -> Result<V<'c, 'a>, Decline> {
    let k = constant(cx, c, element(x)?)?;
    let mut attrs = Vec::new();
    if key == "add.Tensor" || key == "sub.Tensor" {
        attrs.push(("alpha", a_int(cx, 1)?));
    }
    aten(cx, key, &[x, k], x.r#type(), &attrs)
}

/// An elementwise unary op that keeps the type.
pub fn unary<'c, 'a>(cx: Cx<'_, 'c, 'a>, key: &str, x: V<'c, 'a>) -> Result<V<'c, 'a>, Decline> {
    aten(cx, key, &[x], x.r#type(), &[])
}

/// An elementwise binary `Tensor` op of two tensors with the broadcast
/// shape and `element`.
pub fn binary<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    key: &str,
    a: V<'c, 'a>,
    b: V<'c, 'a>,
    element: Type<'c>,
) -> Result<V<'c, 'a>, Decline> {
    let ty = tensor(
        cx,
        &coreai_ir::lowering::broadcast_shapes(&[&shape(a)?, &shape(b)?])?,
        element,
    )?;
    let mut attrs = Vec::new();
    if key == "add.Tensor" || key == "sub.Tensor" {
        attrs.push(("alpha", a_int(cx, 1)?));
    }
    aten(cx, key, &[a, b], ty, &attrs)
}

pub fn permute<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    x: V<'c, 'a>,
    dims: &[usize],
) -> Result<V<'c, 'a>, Decline> {
    let s = shape(x)?;
    let out: Vec<i64> = dims.iter().map(|d| s[*d]).collect();
    let dims: Vec<i64> = dims.iter().map(|d| *d as i64).collect();
    aten(
        cx,
        "permute.default",
        &[x],
        tensor(cx, &out, element(x)?)?,
        &[("dims", a_ints(cx, &dims)?)],
    )
}

/// `aten.view.default`; one entry of `size` may be `-1` (a dynamic
/// dimension, which `view` infers from the element count).
pub fn view<'c, 'a>(cx: Cx<'_, 'c, 'a>, x: V<'c, 'a>, size: &[i64]) -> Result<V<'c, 'a>, Decline> {
    if size.iter().filter(|d| **d < 0).count() > 1 {
        return Err(format!(
            "a view to {size:?} has more than one dynamic dimension"
        ));
    }
    aten(
        cx,
        "view.default",
        &[x],
        tensor(cx, size, element(x)?)?,
        &[("size", a_ints(cx, size)?)],
    )
}

/// The product of dims, `-1` when one of them is dynamic.
pub fn flat_size(dims: &[i64]) -> i64 {
    if dims.iter().any(|d| *d < 0) {
        -1
    } else {
        dims.iter().product()
    }
}

pub fn unsqueeze<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    x: V<'c, 'a>,
    dim: usize,
) -> Result<V<'c, 'a>, Decline> {
    let mut s = shape(x)?;
    s.insert(dim, 1);
    aten(
        cx,
        "unsqueeze.default",
        &[x],
        tensor(cx, &s, element(x)?)?,
        &[("dim", a_int(cx, dim as i64)?)],
    )
}

pub fn squeeze_dims<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    x: V<'c, 'a>,
    dims: &[usize],
) -> Result<V<'c, 'a>, Decline> {
    let s = shape(x)?;
    let out: Vec<i64> = s
        .iter()
        .enumerate()
        .filter(|(i, d)| !(dims.contains(i) && **d == 1))
        .map(|(_, d)| *d)
        .collect();
    let dims: Vec<i64> = dims.iter().map(|d| *d as i64).collect();
    aten(
        cx,
        "squeeze.dims",
        &[x],
        tensor(cx, &out, element(x)?)?,
        &[("dim", a_ints(cx, &dims)?)],
    )
}

/// `x[start:end]` along `dim` (step 1).
pub fn slice<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    x: V<'c, 'a>,
    dim: usize,
    start: i64,
    end: i64,
) -> Result<V<'c, 'a>, Decline> {
    let mut s = shape(x)?;
    s[dim] = end - start;
    aten(
        cx,
        "slice.Tensor",
        &[x],
        tensor(cx, &s, element(x)?)?,
        &[
            ("dim", a_int(cx, dim as i64)?),
            ("start", a_int(cx, start)?),
            ("end", a_int(cx, end)?),
            ("step", a_int(cx, 1)?),
        ],
    )
}

pub fn cat<'c, 'a>(cx: Cx<'_, 'c, 'a>, xs: &[V<'c, 'a>], dim: usize) -> Result<V<'c, 'a>, Decline> {
    let first = *xs.first().ok_or("cat of no tensors")?;
    let mut s = shape(first)?;
    s[dim] = 0;
    for x in xs {
        let d = shape(*x)?[dim];
        s[dim] = if d < 0 || s[dim] < 0 { -1 } else { s[dim] + d };
    }
    aten(
        cx,
        "cat.default",
        xs,
        tensor(cx, &s, element(first)?)?,
        &[("dim", a_int(cx, dim as i64)?)],
    )
}

/// A reduction over `dims` (`sum.dim_IntList`, `amax.default`, ...) with
/// the reduced shape computed here.
pub fn reduce<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    key: &str,
    x: V<'c, 'a>,
    dims: &[usize],
    keepdim: bool,
) -> Result<V<'c, 'a>, Decline> {
    let s = shape(x)?;
    let all = dims.is_empty();
    let mut out = Vec::new();
    for (i, d) in s.iter().enumerate() {
        if all || dims.contains(&i) {
            if keepdim {
                out.push(1);
            }
        } else {
            out.push(*d);
        }
    }
    let dims: Vec<i64> = dims.iter().map(|d| *d as i64).collect();
    aten(
        cx,
        key,
        &[x],
        tensor(cx, &out, element(x)?)?,
        &[
            ("dim", a_ints(cx, &dims)?),
            ("keepdim", a_bool(cx, keepdim)?),
        ],
    )
}

/// The dims of attribute `name` normalized to `0..rank` (an absent or
/// empty list means every dim).
pub fn dims_attr(cx: Cx<'_, '_, '_>, name: &str, rank: usize) -> Result<Vec<usize>, Decline> {
    let dims = get_ints_opt(cx, name)?.unwrap_or_default();
    if dims.is_empty() {
        return Ok((0..rank).collect());
    }
    dims.iter().map(|d| norm_dim(*d, rank)).collect()
}

/// The op's result type `i`, as the aten op has it (signless integers:
/// unlike `LoweringCx::result_type`, which gives the coreai type).
pub fn result<'c>(cx: Cx<'_, 'c, '_>, i: usize) -> Result<Type<'c>, Decline> {
    cx.op()
        .result(i)
        .map(|r| r.r#type())
        .map_err(|_| format!("expected a result #{i}"))
}

/// The shape of the op's result `i`.
pub fn result_shape(cx: Cx<'_, '_, '_>, i: usize) -> Result<Vec<i64>, Decline> {
    let r = cx
        .op()
        .result(i)
        .map_err(|_| format!("expected a result #{i}"))?;
    shape(r.into())
}

/// The product of static dims.
pub fn numel(dims: &[i64]) -> Result<i64, Decline> {
    static_dims(dims, "this decomposition")?;
    Ok(dims.iter().product())
}

#[cfg(test)]
mod tests {
    #[test]
    fn float_literals_parse_in_mlir() {
        assert_eq!(super::float_text(1e-5), "1.0e-5");
        assert_eq!(super::float_text(2.5), "2.5");
        assert_eq!(super::float_text(3.0), "3.0");
        assert_eq!(super::float_text(1.5e300), "1.5e300");
        assert_eq!(super::float_text(f64::INFINITY), "0x7FF0000000000000");
    }
}
