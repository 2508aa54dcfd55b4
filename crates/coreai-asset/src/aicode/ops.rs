//! aicode ops and the decomposition regions of composites, as coreai-core
//! 1.0.0b3's `convert-to-versioned` writes them for static shapes
//! (docs/aicode-format.md §3).
//!
//! - Primitives (`primitive.<name>_vN`) map 1:1, parameters as operands.
//! - `broadcasting_<name>_v1` holds: each operand of lower rank reshaped
//!   to the result's rank with leading 1s (`reshape_v2` by an si32 shape),
//!   then `broadcast_in_dims_v1` (sizes ui32, dims si32) over the dims it
//!   differs from the result in, then `primitive.<name>_v1`.
//! - `relu_v1`: `broadcasting_maximum_v1(x, 0)`. `sigmoid_v1`:
//!   `1 / (1 + exp(0 - x))` with `[1]`-shaped constants; `silu_v1`: `x *`
//!   that. `softmax_v1`: `exp(x) / reduce_sum_v1(exp(x), [axis])`
//!   (keep dims), `reduce_sum_v1` holding `reduce_v1` with an `add_v1`
//!   combiner and a dynamic-shaped result.
//!
//! A composite with a dynamic dimension is refused ([`Unsupported`]): its
//! regions compute shapes at run time, which this writer does not emit.

use super::{versions, Body, Dense, Elt, Program, TensorType, Value, DYNAMIC};
use crate::bytecode::writer::varint;

/// Why an op cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);

/// Version date of an aicode op (`convert-to-versioned`, coreai-core
/// 1.0.0b3). Measured: `primitive.constant_v1`, `primitive.add_v1`,
/// `broadcasting_add_v1`, `primitive.reshape_v2`; the others take the date
/// of their family's measured op (a lower bound of the real date, which
/// only the asset's `version` property shows).
pub fn version(name: &str) -> u32 {
    match name {
        "primitive.constant_v1" => 20250410,
        "primitive.reshape_v2" => 20260204,
        "primitive.get_shape_v2" => 20260317,
        n if n.starts_with("primitive.") || n.starts_with("dataflow.") => versions::GRAPH,
        _ => 20250827,
    }
}

fn props(attrs: &[u64]) -> Vec<u8> {
    let mut v = Vec::new();
    for &a in attrs {
        varint(&mut v, a);
    }
    v
}

/// `op` with no regions; one result.
pub fn simple(
    p: &mut Program,
    b: &mut Body,
    name: &str,
    properties: Option<Vec<u8>>,
    operands: &[Value],
    result: &TensorType,
) -> Value {
    p.op(
        b,
        name,
        version(name),
        properties,
        operands,
        std::slice::from_ref(result),
        vec![],
    )[0]
}

/// `primitive.constant_v1` of an interned `serialization.*` value.
pub fn constant_attr(p: &mut Program, b: &mut Body, value: u64, ty: &TensorType) -> Value {
    simple(
        p,
        b,
        "primitive.constant_v1",
        Some(props(&[value])),
        &[],
        ty,
    )
}

pub fn constant(p: &mut Program, b: &mut Body, dense: &Dense, ty: &TensorType) -> Value {
    let a = p.dense_elements(dense);
    constant_attr(p, b, a, ty)
}

fn yield_(p: &mut Program, b: &mut Body, v: Value) {
    p.op(
        b,
        "dataflow.yield_v1",
        versions::GRAPH,
        None,
        &[v],
        &[],
        vec![],
    );
}

fn require_static(name: &str, types: &[&TensorType]) -> Result<(), Unsupported> {
    if types.iter().all(|t| t.is_static()) {
        Ok(())
    } else {
        Err(Unsupported(format!(
            "'{name}' with a dynamic dimension is not yet supported by the aicode writer"
        )))
    }
}

/// A composite `name` over `operands` whose region `build` fills.
pub fn composite(
    p: &mut Program,
    b: &mut Body,
    name: &str,
    operands: &[Value],
    result: &TensorType,
    build: impl FnOnce(&mut Program, &mut Body) -> Value,
) -> Value {
    let arg_types: Vec<TensorType> = operands.iter().map(|&v| b.ty(v).clone()).collect();
    let mut inner = p.body(&arg_types);
    let r = build(p, &mut inner);
    yield_(p, &mut inner, r);
    let region = Program::region(inner);
    p.op(
        b,
        name,
        version(name),
        None,
        operands,
        std::slice::from_ref(result),
        vec![region],
    )[0]
}

/// `v` broadcast to `dims` (reshape to the rank, then broadcast_in_dims).
fn broadcast(p: &mut Program, b: &mut Body, v: Value, dims: &[i64]) -> Value {
    let t = b.ty(v).clone();
    let mut x = v;
    let mut padded = t.dims.clone();
    if padded.len() < dims.len() {
        padded = std::iter::repeat_n(1, dims.len() - t.dims.len())
            .chain(t.dims.iter().copied())
            .collect();
        let shape: Vec<i32> = padded.iter().map(|&d| d as i32).collect();
        let c = constant(
            p,
            b,
            &Dense::i32s(&shape),
            &TensorType::new(&[padded.len() as i64], Elt::SI32),
        );
        x = simple(
            p,
            b,
            "primitive.reshape_v2",
            None,
            &[x, c],
            &TensorType::new(&padded, t.elt),
        );
    }
    let differ: Vec<usize> = (0..dims.len()).filter(|&i| padded[i] != dims[i]).collect();
    if differ.is_empty() {
        return x;
    }
    let sizes: Vec<u32> = differ.iter().map(|&i| dims[i] as u32).collect();
    let axes: Vec<i32> = differ.iter().map(|&i| i as i32).collect();
    let n = [differ.len() as i64];
    let s = constant(p, b, &Dense::u32s(&sizes), &TensorType::new(&n, Elt::UI32));
    let a = constant(p, b, &Dense::i32s(&axes), &TensorType::new(&n, Elt::SI32));
    simple(
        p,
        b,
        "primitive.broadcast_in_dims_v1",
        None,
        &[x, s, a],
        &TensorType::new(dims, t.elt),
    )
}

/// `broadcasting_<name>_v1` computing `primitive.<primitive>_v1`.
pub fn broadcasting(
    p: &mut Program,
    b: &mut Body,
    name: &str,
    primitive: &str,
    operands: &[Value],
    result: &TensorType,
) -> Result<Value, Unsupported> {
    let composite_name = format!("broadcasting_{name}_v1");
    let types: Vec<TensorType> = operands.iter().map(|&v| b.ty(v).clone()).collect();
    require_static(
        &composite_name,
        &types.iter().chain([result]).collect::<Vec<_>>(),
    )?;
    let prim = format!("primitive.{primitive}_v1");
    if name == "where" && types[0].dims != result.dims {
        return where_condition_broadcast(p, b, operands, &types, result);
    }
    Ok(composite(
        p,
        b,
        &composite_name,
        operands,
        result,
        |p, inner| {
            let args: Vec<Value> = (0..operands.len())
                .map(|i| broadcast(p, inner, inner.arg(i), &result.dims))
                .collect();
            simple(p, inner, &prim, None, &args, result)
        },
    ))
}

/// `broadcasting_where_v1` whose condition alone is broadcast: coreai-core
/// broadcasts it with `broadcast_to_v1` to `broadcast_shapes_v1` of the
/// two values' shapes (ui32 constants). Values of another shape than the
/// result are refused: that form was not observed.
fn where_condition_broadcast(
    p: &mut Program,
    b: &mut Body,
    operands: &[Value],
    types: &[TensorType],
    result: &TensorType,
) -> Result<Value, Unsupported> {
    if types[1].dims != result.dims || types[2].dims != result.dims {
        return Err(Unsupported(
            "'broadcasting_where_v1' broadcasting both its condition and its values is not yet supported by the aicode writer".into(),
        ));
    }
    Ok(composite(
        p,
        b,
        "broadcasting_where_v1",
        operands,
        result,
        |p, inner| {
            let rank = [result.dims.len() as i64];
            let shape: Vec<u32> = result.dims.iter().map(|&d| d as u32).collect();
            let shape_ty = TensorType::new(&rank, Elt::UI32);
            let s1 = constant(p, inner, &Dense::u32s(&shape), &shape_ty);
            let s2 = constant(p, inner, &Dense::u32s(&shape), &shape_ty);
            let s = simple(
                p,
                inner,
                "primitive.broadcast_shapes_v1",
                None,
                &[s1, s2],
                &shape_ty,
            );
            let cond_ty = TensorType::new(&result.dims, types[0].elt);
            let c = simple(
                p,
                inner,
                "primitive.broadcast_to_v1",
                None,
                &[inner.arg(0), s],
                &cond_ty,
            );
            let (x, y) = (inner.arg(1), inner.arg(2));
            simple(p, inner, "primitive.where_v1", None, &[c, x, y], result)
        },
    ))
}

/// The broadcasting binary op of coreai `decomposable.broadcasting_<name>`:
/// (aicode composite name, primitive name).
pub fn broadcasting_names(coreai: &str) -> Option<(&'static str, &'static str)> {
    Some(match coreai {
        "add" => ("add", "add"),
        "sub" => ("sub", "sub"),
        "mul" => ("mul", "mul"),
        "divide" => ("divide", "divide"),
        "maximum" => ("maximum", "maximum"),
        "minimum" => ("minimum", "minimum"),
        "pow" => ("pow", "pow"),
        "greater" => ("greater", "greater"),
        "where" => ("where", "where"),
        "equal" => ("equal", "equal"),
        "not_equal" => ("not_equal", "not_equal"),
        "modulo" => ("modulo", "modulo"),
        "floor_divide" => ("floor_divide", "floor_divide"),
        "bitwise_and" => ("bitwise_and", "bitwise_and"),
        "bitwise_or" => ("bitwise_or", "bitwise_or"),
        "bitwise_xor" => ("bitwise_xor", "bitwise_xor"),
        "and" => ("logical_and", "logical_and"),
        "or" => ("logical_or", "logical_or"),
        "xor" => ("logical_xor", "logical_xor"),
        _ => return None,
    })
}

/// Unary coreai ops that are `primitive.<same>_v1`.
pub const UNARY_PRIMITIVES: &[&str] = &[
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan",
    "tanh", "erf", "exp", "log", "sqrt", "rsqrt", "round", "not",
];

/// coreai ops whose operands and result carry over to an aicode primitive
/// with no attributes.
pub fn operand_primitive(coreai: &str) -> Option<&'static str> {
    Some(match coreai {
        "reshape" => "primitive.reshape_v2",
        "transpose" => "primitive.transpose_v1",
        "concat" => "primitive.concat_v1",
        "slice" => "primitive.slice_v1",
        "conv2d" => "primitive.conv2d_v1",
        "max_pool_2d" => "primitive.max_pool_2d_v1",
        "sum_pool_2d" => "primitive.sum_pool_2d_v1",
        "sum_pool_3d" => "primitive.sum_pool_3d_v1",
        "conv3d" => "primitive.conv3d_v1",
        "conv_transpose2d" => "primitive.conv_transpose2d_v1",
        "batch_matmul" => "primitive.batch_matmul_v1",
        "broadcast_in_dims" => "primitive.broadcast_in_dims_v1",
        "broadcast_to" => "primitive.broadcast_to_v1",
        "cast" => "primitive.cast_v1",
        "gather_along_axis" => "primitive.gather_along_axis_v1",
        "gather_nd" => "primitive.gather_nd_v1",
        "reverse" => "primitive.reverse_v1",
        "shrink_dims" => "primitive.shrink_dims_v1",
        "where" => "primitive.where_v1",
        // Same-shape elementwise binaries.
        "add" => "primitive.add_v1",
        "sub" => "primitive.sub_v1",
        "mul" => "primitive.mul_v1",
        "divide" => "primitive.divide_v1",
        "maximum" => "primitive.maximum_v1",
        "minimum" => "primitive.minimum_v1",
        "pow" => "primitive.pow_v1",
        "greater" => "primitive.greater_v1",
        "equal" => "primitive.equal_v1",
        "not_equal" => "primitive.not_equal_v1",
        _ => return None,
    })
}

fn scalar_constant(p: &mut Program, b: &mut Body, elt: Elt, dims: &[i64], value: f64) -> Value {
    let bytes = match elt {
        Elt::F32 => (value as f32).to_le_bytes().to_vec(),
        Elt::F16 => f32_to_f16_bits(value as f32).to_le_bytes().to_vec(),
        Elt::F64 => value.to_le_bytes().to_vec(),
        _ => unreachable!("float element types only"),
    };
    constant(
        p,
        b,
        &Dense::new(bytes, elt.size()),
        &TensorType::new(dims, elt),
    )
}

/// IEEE half bits of `x` (round to nearest even); the constants here are
/// 0 and 1, exact in f16.
fn f32_to_f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mant = bits & 0x7f_ffff;
    if x == 0.0 {
        sign
    } else {
        sign | ((exp as u16) << 10) | (mant >> 13) as u16
    }
}

fn float_elt(name: &str, t: &TensorType) -> Result<(), Unsupported> {
    if matches!(t.elt, Elt::F32 | Elt::F16 | Elt::F64) {
        Ok(())
    } else {
        Err(Unsupported(format!(
            "'{name}' of {:?} elements is not yet supported by the aicode writer",
            t.elt
        )))
    }
}

pub fn relu(
    p: &mut Program,
    b: &mut Body,
    x: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    require_static("relu_v1", &[result])?;
    float_elt("relu_v1", result)?;
    Ok(composite(p, b, "relu_v1", &[x], result, |p, inner| {
        let zero = scalar_constant(p, inner, result.elt, &[], 0.0);
        let a = inner.arg(0);
        broadcasting(p, inner, "maximum", "maximum", &[a, zero], result).expect("static")
    }))
}

/// `1 / (1 + exp(0 - x))` inside the current region.
fn sigmoid_body(p: &mut Program, b: &mut Body, x: Value, result: &TensorType) -> Value {
    let zero = scalar_constant(p, b, result.elt, &[1], 0.0);
    let one = scalar_constant(p, b, result.elt, &[1], 1.0);
    let neg = broadcasting(p, b, "sub", "sub", &[zero, x], result).expect("static");
    let e = simple(p, b, "primitive.exp_v1", None, &[neg], result);
    let den = broadcasting(p, b, "add", "add", &[one, e], result).expect("static");
    broadcasting(p, b, "divide", "divide", &[one, den], result).expect("static")
}

pub fn sigmoid(
    p: &mut Program,
    b: &mut Body,
    x: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    require_static("sigmoid_v1", &[result])?;
    float_elt("sigmoid_v1", result)?;
    Ok(composite(p, b, "sigmoid_v1", &[x], result, |p, inner| {
        let a = inner.arg(0);
        sigmoid_body(p, inner, a, result)
    }))
}

pub fn silu(
    p: &mut Program,
    b: &mut Body,
    x: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    require_static("silu_v1", &[result])?;
    float_elt("silu_v1", result)?;
    Ok(composite(p, b, "silu_v1", &[x], result, |p, inner| {
        let a = inner.arg(0);
        let s = sigmoid_body(p, inner, a, result);
        broadcasting(p, inner, "mul", "mul", &[a, s], result).expect("static")
    }))
}

/// `softmax_v1(x, axis)`, `axis` a rank-0 si32 tensor.
pub fn softmax(
    p: &mut Program,
    b: &mut Body,
    x: Value,
    axis: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    require_static("softmax_v1", &[result])?;
    float_elt("softmax_v1", result)?;
    if b.ty(axis).dims.as_slice() != [] as [i64; 0] || b.ty(axis).elt != Elt::SI32 {
        return Err(Unsupported(
            "'softmax_v1' whose axis is not a rank-0 si32 tensor is not yet supported by the aicode writer".into(),
        ));
    }
    Ok(composite(
        p,
        b,
        "softmax_v1",
        &[x, axis],
        result,
        |p, inner| {
            let (a, ax) = (inner.arg(0), inner.arg(1));
            let one = TensorType::new(&[1], Elt::SI32);
            let shape = constant(p, inner, &Dense::i32s(&[1]), &one);
            let axes = simple(p, inner, "primitive.reshape_v2", None, &[ax, shape], &one);
            let e = simple(p, inner, "primitive.exp_v1", None, &[a], result);
            let sum = composite(p, inner, "reduce_sum_v1", &[e, axes], result, |p, r| {
                let init = scalar_constant(p, r, result.elt, &[], 0.0);
                let scalar = TensorType::new(&[], result.elt);
                let mut combiner = p.body(&[scalar.clone(), scalar.clone()]);
                let lhs_rhs = [combiner.arg(0), combiner.arg(1)];
                let s = simple(
                    p,
                    &mut combiner,
                    "primitive.add_v1",
                    None,
                    &lhs_rhs,
                    &scalar,
                );
                yield_(p, &mut combiner, s);
                let region = Program::region(combiner);
                let dynamic = TensorType::new(&vec![DYNAMIC; result.dims.len()], result.elt);
                let (input, axes) = (r.arg(0), r.arg(1));
                p.op(
                    r,
                    "primitive.reduce_v1",
                    version("primitive.reduce_v1"),
                    None,
                    &[input, axes, init],
                    &[dynamic],
                    vec![region],
                )[0]
            });
            broadcasting(p, inner, "divide", "divide", &[e, sum], result).expect("static")
        },
    ))
}

/// `primitive.gelu_v1` with `approximate` (none 0, tanh 1).
pub fn gelu(p: &mut Program, b: &mut Body, x: Value, tanh: bool, result: &TensorType) -> Value {
    let a = p.approximate(tanh as u64);
    simple(p, b, "primitive.gelu_v1", Some(props(&[a])), &[x], result)
}

/// `primitive.pad_v1` with `padding_mode` (circular 0, constant 1,
/// reflect 2, replicate 3, symmetric 4).
pub fn pad(
    p: &mut Program,
    b: &mut Body,
    operands: &[Value],
    mode: u64,
    result: &TensorType,
) -> Value {
    let a = p.padding_mode(mode);
    simple(
        p,
        b,
        "primitive.pad_v1",
        Some(props(&[a])),
        operands,
        result,
    )
}

/// `broadcasting_batch_matmul_v1` when no batch dimension broadcasts (both
/// of rank 2, or of one rank with equal batch dims): its region is the one
/// `primitive.batch_matmul_v1`.
pub fn batch_matmul(
    p: &mut Program,
    b: &mut Body,
    lhs: Value,
    rhs: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    let (l, r) = (b.ty(lhs).clone(), b.ty(rhs).clone());
    require_static("broadcasting_batch_matmul_v1", &[&l, &r, result])?;
    let same_batch = l.dims.len() == r.dims.len()
        && l.dims.len() >= 2
        && l.dims[..l.dims.len() - 2] == r.dims[..r.dims.len() - 2];
    if !same_batch {
        return Err(Unsupported(format!(
            "'broadcasting_batch_matmul_v1' of {:?} and {:?} (broadcast batch dims) is not yet supported by the aicode writer",
            l.dims, r.dims
        )));
    }
    Ok(composite(
        p,
        b,
        "broadcasting_batch_matmul_v1",
        &[lhs, rhs],
        result,
        |p, inner| {
            let (a, c) = (inner.arg(0), inner.arg(1));
            simple(p, inner, "primitive.batch_matmul_v1", None, &[a, c], result)
        },
    ))
}

/// `dataflow.output_v1` of `values`.
pub fn output(p: &mut Program, b: &mut Body, values: &[Value]) {
    p.op(
        b,
        "dataflow.output_v1",
        versions::GRAPH,
        None,
        values,
        &[],
        vec![],
    );
}
