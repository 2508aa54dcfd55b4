//! aicode ops and the decomposition regions of composites, as coreai-core
//! 1.0.0b3's `convert-to-versioned` writes them (docs/aicode-format.md §5.2,
//! each form checked against coreai-core's conversion with
//! `utils/aicode/compare.py`).
//!
//! - Primitives (`primitive.<name>_vN`) map 1:1, parameters as operands.
//! - `broadcasting_<name>_v1` holds, for static shapes: each operand of lower
//!   rank reshaped to the result's rank with leading 1s (`reshape_v2` by an
//!   si32 shape), then `broadcast_in_dims_v1` (sizes ui32, dims si32) over
//!   the dims it differs from the result in, then `primitive.<name>_v1`; with
//!   a dynamic shape, `get_shape_v2`/`broadcast_shapes_v1`/`broadcast_to_v1`.
//!   `where` and batch-broadcasting matmuls have their own forms.
//! - Reductions hold `reduce_v1`/`reduce_index_v1` with a combiner region,
//!   their accumulator type and init value by element type; `reduce_mean_v1`
//!   divides a `reduce_sum_v1` by the product of the reduced dims.
//! - `relu_v1`, `sigmoid_v1`, `silu_v1`, `softmax_v1`, `tile_v2`, `sort_v1`.
//! - `coreaix.copy_with_constraints`/`copy_discarding_constraints` are
//!   `ax.copy_with_constraints_v1`/`ax.copy_discarding_constraints_v1`, and
//!   `coreai.metal4_kernel` is `metal.metal4_kernel_v1`: the same operands,
//!   no regions.
//!
//! A shape form not measured (a dynamic `where`, `softmax`, `tile`, ...) is
//! refused ([`Unsupported`]).

use super::{versions, Body, Dense, Elt, Program, TensorType, Value, DYNAMIC};
use crate::bytecode::writer::varint;

/// Why an op cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);

/// Version date of an aicode op: the asset version coreai-core 1.0.0b3's
/// `convert-to-versioned` gives a program of that one op over graph
/// arguments (docs/aicode-format.md §5.3). Ops not measured take the date
/// of a graph holding nothing but its output ([`versions::GRAPH`]) when
/// primitive, that of the broadcasting composites otherwise.
pub fn version(name: &str) -> u32 {
    let Some(prim) = name.strip_prefix("primitive.") else {
        return match name {
            "reduce_sum_v1" | "reduce_product_v1" => 20250926,
            "any_v1" | "all_v1" => 20251017,
            "reduce_max_v1" | "reduce_min_v1" => 20251023,
            "broadcasting_where_v1" => 20251024,
            "argmax_v1" => 20251028,
            "sort_v1" => 20251101,
            "broadcasting_batch_matmul_v1" => 20251202,
            "tile_v2" => 20260219,
            "ax.copy_with_constraints_v1" => 20250903,
            "ax.copy_discarding_constraints_v1" => 20250906,
            "metal.metal4_kernel_v1" => 20260409,
            n if n.starts_with("dataflow.") => versions::GRAPH,
            _ => 20250827,
        };
    };
    match prim.strip_suffix("_v1").unwrap_or(prim) {
        "constant" => 20250410,
        "divide" | "mul" | "sqrt" | "sub" => 20250717,
        "cast" | "gather_nd" | "batch_matmul" => 20250723,
        "transpose" => 20250811,
        "abs" => 20250814,
        "exp" => 20250819,
        "broadcast_in_dims" => 20250826,
        "concat" => 20250903,
        "split" => 20250904,
        "conv2d" => 20250905,
        "broadcast_to" | "broadcast_shapes" => 20250911,
        "slice" | "slice_update" => 20250922,
        "equal" | "not" => 20250923,
        "expand_dims" | "pad" => 20250924,
        "acos" | "acosh" | "asin" | "asinh" | "atan" | "atanh" | "cos" | "cosh" | "sin"
        | "sinh" | "tan" | "tanh" | "erf" | "log" | "rsqrt" | "pow" | "maximum" | "minimum"
        | "modulo" | "floor_divide" | "bitwise_and" | "bitwise_or" | "bitwise_xor" => 20250928,
        "round" => 20251001,
        "shrink_dims" => 20251002,
        "not_equal" => 20251003,
        "greater" | "logical_and" | "logical_or" | "logical_xor" => 20251013,
        "max_pool_3d" | "range" | "sum_pool_2d" | "sum_pool_3d" => 20251017,
        "conv3d" | "max_pool_2d" | "where" => 20251023,
        "gelu" => 20251024,
        "argsort" | "gather_along_axis" => 20251028,
        "scatter_along_axis" => 20251030,
        "conv_transpose2d" | "conv_transpose3d" | "non_zero" => 20251031,
        "scatter_nd" => 20251027,
        "reverse" => 20251101,
        "scan" => 20251114,
        "interpolate" | "interpolate_coordinates" => 20260127,
        "reshape_v2" => 20260204,
        "blockwise_shift_scale_v2" => 20260202,
        "lut_to_dense" => 20251003,
        // coreai-core 1.0.0b3 gives a program of the two 20251112; they come
        // in pairs (coreai-opt's sparsify_weights).
        "build_sparse_with_bitmask" | "sparse_with_bitmask_to_dense" => 20251112,
        "get_shape_v2" => 20260317,
        _ => versions::GRAPH,
    }
}

pub fn props(attrs: &[u64]) -> Vec<u8> {
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

pub fn yield_(p: &mut Program, b: &mut Body, v: Value) {
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

/// [`composite`] whose region arguments are at `locs`.
fn composite_at(
    p: &mut Program,
    b: &mut Body,
    name: &str,
    operands: &[Value],
    locs: &[u64],
    result: &TensorType,
    build: impl FnOnce(&mut Program, &mut Body) -> Value,
) -> Value {
    let arg_types: Vec<TensorType> = operands.iter().map(|&v| b.ty(v).clone()).collect();
    let mut inner = p.body_at(&arg_types, locs);
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
    // The region's arguments are at the operands' locations.
    let locs: Vec<u64> = operands.iter().map(|&v| b.loc(v)).collect();
    let mut inner = p.body_at(&arg_types, &locs);
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
    if !types.iter().chain([result]).all(TensorType::is_static) {
        return Ok(dynamic_broadcasting(
            p,
            b,
            primitive,
            operands,
            result,
            &composite_name,
        ));
    }
    require_static(
        &composite_name,
        &types.iter().chain([result]).collect::<Vec<_>>(),
    )?;
    let prim = format!("primitive.{primitive}_v1");
    if name == "where" {
        return Ok(broadcasting_where(p, b, operands, &types, result));
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

/// The static broadcast of two shapes.
fn broadcast_dims(a: &[i64], b: &[i64]) -> Vec<i64> {
    let rank = a.len().max(b.len());
    let at = |s: &[i64], i: usize| {
        let pad = rank - s.len();
        if i < pad {
            1
        } else {
            s[i - pad]
        }
    };
    (0..rank)
        .map(|i| {
            let (x, y) = (at(a, i), at(b, i));
            if x == 1 {
                y
            } else {
                x
            }
        })
        .collect()
}

/// `broadcasting_where_v1`, as coreai-core writes it (measured on every
/// combination of the shapes `[]`, `[3]`, `[1,3]`, `[2,1]`, `[2,3]`): the
/// target shape from the operands of rank > 0 (one: its ui32 shape
/// constant; two: `broadcast_shapes_v1` of their constants; three: of the
/// folded broadcast of the condition's and the first value's shapes and
/// the second value's, that one created first), then `broadcast_to_v1` of
/// each operand whose shape is not the result's, then `where_v1`.
fn broadcasting_where(
    p: &mut Program,
    b: &mut Body,
    operands: &[Value],
    types: &[TensorType],
    result: &TensorType,
) -> Value {
    composite(
        p,
        b,
        "broadcasting_where_v1",
        operands,
        result,
        |p, inner| {
            let mut args: Vec<Value> = (0..3).map(|i| inner.arg(i)).collect();
            if types.iter().all(|t| t.dims == result.dims) {
                return simple(p, inner, "primitive.where_v1", None, &args, result);
            }
            let shape_constant = |p: &mut Program, inner: &mut Body, dims: &[i64]| {
                let v: Vec<u32> = dims.iter().map(|&d| d as u32).collect();
                constant(
                    p,
                    inner,
                    &Dense::u32s(&v),
                    &TensorType::new(&[dims.len() as i64], Elt::UI32),
                )
            };
            let shape_ty = TensorType::new(&[result.dims.len() as i64], Elt::UI32);
            let rank = |t: &TensorType| !t.dims.is_empty();
            // The condition's and the first value's shapes, folded.
            let (first, folded) = match (rank(&types[0]), rank(&types[1])) {
                (true, true) => (Some(broadcast_dims(&types[0].dims, &types[1].dims)), true),
                (true, false) => (Some(types[0].dims.clone()), false),
                (false, true) => (Some(types[1].dims.clone()), false),
                (false, false) => (None, false),
            };
            let shape = match (first, rank(&types[2])) {
                (None, _) => shape_constant(p, inner, &types[2].dims),
                (Some(f), false) => shape_constant(p, inner, &f),
                (Some(f), true) => {
                    let (x, y) = if folded {
                        let y = shape_constant(p, inner, &types[2].dims);
                        (shape_constant(p, inner, &f), y)
                    } else {
                        let x = shape_constant(p, inner, &f);
                        (x, shape_constant(p, inner, &types[2].dims))
                    };
                    simple(
                        p,
                        inner,
                        "primitive.broadcast_shapes_v1",
                        None,
                        &[x, y],
                        &shape_ty,
                    )
                }
            };
            for (i, t) in types.iter().enumerate() {
                if t.dims != result.dims {
                    let ty = TensorType::new(&result.dims, t.elt);
                    args[i] = simple(
                        p,
                        inner,
                        "primitive.broadcast_to_v1",
                        None,
                        &[args[i], shape],
                        &ty,
                    );
                }
            }
            simple(p, inner, "primitive.where_v1", None, &args, result)
        },
    )
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
        "expand_dims" => "primitive.expand_dims_v1",
        "slice_update" => "primitive.slice_update_v1",
        "non_zero" => "primitive.non_zero_v1",
        "range" => "primitive.range_v1",
        "create_complex" => "primitive.create_complex_v1",
        "real_part" => "primitive.real_part_v1",
        "imaginary_part" => "primitive.imaginary_part_v1",
        "get_shape" => "primitive.get_shape_v2",
        "argsort" => "primitive.argsort_v1",
        // Compressed weights (docs/aicode-format.md §6).
        "blockwise_shift_scale" => "primitive.blockwise_shift_scale_v2",
        "lut_to_dense" => "primitive.lut_to_dense_v1",
        "build_sparse_with_bitmask" => "primitive.build_sparse_with_bitmask_v1",
        "sparse_with_bitmask_to_dense" => "primitive.sparse_with_bitmask_to_dense_v1",
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
                let (input, axes) = (r.arg(0), r.arg(1));
                reduce_body(p, r, Reduce::Sum, input, axes)
            });
            broadcasting(p, inner, "divide", "divide", &[e, sum], result).expect("static")
        },
    ))
}

/// The reductions of `primitive.reduce_v1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    Sum,
    Product,
    Max,
    Min,
    Any,
    All,
}

impl Reduce {
    /// The coreai op (`reduce_sum`, ..., `any`, `all`).
    pub fn from_coreai(name: &str) -> Option<Self> {
        Some(match name {
            "reduce_sum" => Reduce::Sum,
            "reduce_product" => Reduce::Product,
            "reduce_max" => Reduce::Max,
            "reduce_min" => Reduce::Min,
            "any" => Reduce::Any,
            "all" => Reduce::All,
            _ => return None,
        })
    }

    fn composite(self) -> &'static str {
        match self {
            Reduce::Sum => "reduce_sum_v1",
            Reduce::Product => "reduce_product_v1",
            Reduce::Max => "reduce_max_v1",
            Reduce::Min => "reduce_min_v1",
            Reduce::Any => "any_v1",
            Reduce::All => "all_v1",
        }
    }

    fn combiner(self) -> &'static str {
        match self {
            Reduce::Sum => "primitive.add_v1",
            Reduce::Product => "primitive.mul_v1",
            Reduce::Max => "primitive.maximum_v1",
            Reduce::Min => "primitive.minimum_v1",
            Reduce::Any => "primitive.bitwise_or_v1",
            Reduce::All => "primitive.bitwise_and_v1",
        }
    }
}

/// The element type sums and products accumulate in: 64-bit integers,
/// f32 for the 16-bit floats.
fn accumulator(elt: Elt) -> Elt {
    match elt {
        Elt::SI8 | Elt::SI16 | Elt::SI32 => Elt::SI64,
        Elt::UI8 | Elt::UI16 | Elt::UI32 => Elt::UI64,
        Elt::F16 | Elt::BF16 => Elt::F32,
        e => e,
    }
}

/// The little-endian bytes of one element: `0` or `1` (as the type's
/// value), or its lowest / highest finite value.
#[derive(Clone, Copy)]
enum Scalar {
    Zero,
    One,
    Lowest,
    Highest,
}

fn scalar_bytes(elt: Elt, s: Scalar) -> Vec<u8> {
    use Scalar::*;
    match (elt, s) {
        (Elt::Bool, Zero) => vec![0],
        (Elt::Bool, One) => vec![1],
        (Elt::F64, _) => match s {
            Zero => 0f64,
            One => 1f64,
            Lowest => f64::MIN,
            Highest => f64::MAX,
        }
        .to_le_bytes()
        .to_vec(),
        (Elt::F32, _) => match s {
            Zero => 0f32,
            One => 1f32,
            Lowest => f32::MIN,
            Highest => f32::MAX,
        }
        .to_le_bytes()
        .to_vec(),
        (Elt::F16, _) => match s {
            Zero => 0u16,
            One => 0x3c00,
            Lowest => 0xfbff,
            Highest => 0x7bff,
        }
        .to_le_bytes()
        .to_vec(),
        (Elt::BF16, _) => match s {
            Zero => 0u16,
            One => 0x3f80,
            Lowest => 0xff7f,
            Highest => 0x7f7f,
        }
        .to_le_bytes()
        .to_vec(),
        (e, _) => {
            let bits = (e.size() * 8) as u32;
            let signed = matches!(e, Elt::SI8 | Elt::SI16 | Elt::SI32 | Elt::SI64);
            let v: u64 = match (s, signed) {
                (Zero, _) => 0,
                (One, _) => 1,
                (Lowest, true) => 1u64 << (bits - 1),
                (Lowest, false) => 0,
                (Highest, true) => (1u64 << (bits - 1)) - 1,
                (Highest, false) => u64::MAX >> (64 - bits),
            };
            v.to_le_bytes()[..e.size()].to_vec()
        }
    }
}

fn scalar(p: &mut Program, b: &mut Body, elt: Elt, s: Scalar) -> Value {
    let bytes = scalar_bytes(elt, s);
    let size = bytes.len();
    constant(p, b, &Dense::new(bytes, size), &TensorType::new(&[], elt))
}

/// `primitive.reduce_v1(input, axes, init) { combiner }` as the region of
/// a reduction composite writes it: sums and products of narrow types
/// accumulate in [`accumulator`] (the init a constant of that type, or for
/// the unsigned and bf16 types a constant of the input's type cast to it;
/// the combiner casts each element), the result is the input's rank with
/// every dimension dynamic.
fn reduce_body(p: &mut Program, b: &mut Body, kind: Reduce, input: Value, axes: Value) -> Value {
    let t = b.ty(input).clone();
    let acc = match kind {
        Reduce::Sum | Reduce::Product => accumulator(t.elt),
        _ => t.elt,
    };
    let init_value = match kind {
        Reduce::Sum | Reduce::Any => Scalar::Zero,
        Reduce::Product | Reduce::All => Scalar::One,
        Reduce::Max => Scalar::Lowest,
        Reduce::Min => Scalar::Highest,
    };
    let cast_init = acc != t.elt && matches!(t.elt, Elt::UI8 | Elt::UI16 | Elt::UI32 | Elt::BF16);
    let init = if cast_init {
        let c = scalar(p, b, t.elt, init_value);
        simple(
            p,
            b,
            "primitive.cast_v1",
            None,
            &[c],
            &TensorType::new(&[], acc),
        )
    } else {
        scalar(p, b, acc, init_value)
    };
    let acc_ty = TensorType::new(&[], acc);
    let elt_ty = TensorType::new(&[], t.elt);
    let mut combiner = p.body(&[acc_ty.clone(), elt_ty.clone()]);
    let (l, mut r) = (combiner.arg(0), combiner.arg(1));
    if acc != t.elt {
        r = simple(p, &mut combiner, "primitive.cast_v1", None, &[r], &acc_ty);
    }
    let s = simple(p, &mut combiner, kind.combiner(), None, &[l, r], &acc_ty);
    yield_(p, &mut combiner, s);
    let dynamic = TensorType::new(&vec![DYNAMIC; t.dims.len()], t.elt);
    p.op(
        b,
        "primitive.reduce_v1",
        version("primitive.reduce_v1"),
        None,
        &[input, axes, init],
        &[dynamic],
        vec![Program::region(combiner)],
    )[0]
}

fn check_reduction(
    name: &str,
    input: &TensorType,
    axes: &TensorType,
    result: &TensorType,
) -> Result<(), Unsupported> {
    if axes.dims.len() != 1 || axes.elt != Elt::SI32 || input.dims.len() != result.dims.len() {
        return Err(Unsupported(format!(
            "'{name}' with axes {axes:?} from rank {} to rank {} is not yet supported by the aicode writer",
            input.dims.len(),
            result.dims.len()
        )));
    }
    Ok(())
}

/// `reduce_{sum,product,max,min}_v1`, `any_v1`, `all_v1` over si32 `axes`
/// (dims kept).
pub fn reduce(
    p: &mut Program,
    b: &mut Body,
    kind: Reduce,
    x: Value,
    axes: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    check_reduction(kind.composite(), b.ty(x), b.ty(axes), result)?;
    Ok(composite(
        p,
        b,
        kind.composite(),
        &[x, axes],
        result,
        |p, r| {
            let (input, axes) = (r.arg(0), r.arg(1));
            reduce_body(p, r, kind, input, axes)
        },
    ))
}

/// `reduce_mean_v1`: the sum (in f32 for the 16-bit floats, cast back at
/// the end) divided by the product of the reduced dims, which coreai-core
/// computes from the static input shape (`gather_nd` of the axes,
/// `reduce_product_v1` in ui64, cast), the division a
/// `broadcasting_divide_v1` of the dynamic-shaped sum.
pub fn reduce_mean(
    p: &mut Program,
    b: &mut Body,
    x: Value,
    axes: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    let (t, at) = (b.ty(x).clone(), b.ty(axes).clone());
    check_reduction("reduce_mean_v1", &t, &at, result)?;
    float_elt("reduce_mean_v1", &t)?;
    let acc = accumulator(t.elt);
    let rank = t.dims.len();
    let dynamic = TensorType::new(&vec![DYNAMIC; rank], acc);
    Ok(composite(
        p,
        b,
        "reduce_mean_v1",
        &[x, axes],
        result,
        |p, r| {
            let (mut input, axes) = (r.arg(0), r.arg(1));
            if acc != t.elt {
                input = simple(
                    p,
                    r,
                    "primitive.cast_v1",
                    None,
                    &[input],
                    &TensorType::new(&t.dims, acc),
                );
            }
            // coreai-core's sum takes a value of its own (at the op's
            // location) even when no cast is needed.
            let locs = [p.current_location(), r.loc(axes)];
            let sum = composite_at(
                p,
                r,
                "reduce_sum_v1",
                &[input, axes],
                &locs,
                &dynamic,
                |p, s| {
                    let (i, a) = (s.arg(0), s.arg(1));
                    reduce_body(p, s, Reduce::Sum, i, a)
                },
            );
            let n = at.dims[0];
            let shape_ty = TensorType::new(&[rank as i64], Elt::UI32);
            let shape = if t.is_static() {
                let dims: Vec<u32> = t.dims.iter().map(|&d| d as u32).collect();
                constant(p, r, &Dense::u32s(&dims), &shape_ty)
            } else {
                let x = r.arg(0);
                simple(p, r, "primitive.get_shape_v2", None, &[x], &shape_ty)
            };
            let idx_shape = constant(
                p,
                r,
                &Dense::i32s(&[n as i32, 1]),
                &TensorType::new(&[2], Elt::SI32),
            );
            let idx = simple(
                p,
                r,
                "primitive.reshape_v2",
                None,
                &[axes, idx_shape],
                &TensorType::new(&[n, 1], Elt::SI32),
            );
            let sizes = simple(
                p,
                r,
                "primitive.gather_nd_v1",
                None,
                &[shape, idx],
                &TensorType::new(&[n], Elt::UI32),
            );
            let zero = constant(p, r, &Dense::i32s(&[0]), &TensorType::new(&[1], Elt::SI32));
            let sizes = simple(
                p,
                r,
                "primitive.cast_v1",
                None,
                &[sizes],
                &TensorType::new(&[n], Elt::UI64),
            );
            let count_ty = TensorType::new(&[1], Elt::UI64);
            let count = composite(
                p,
                r,
                "reduce_product_v1",
                &[sizes, zero],
                &count_ty,
                |p, s| {
                    let (i, a) = (s.arg(0), s.arg(1));
                    reduce_body(p, s, Reduce::Product, i, a)
                },
            );
            let count = simple(
                p,
                r,
                "primitive.cast_v1",
                None,
                &[count],
                &TensorType::new(&[1], acc),
            );
            let mean = dynamic_broadcasting(
                p,
                r,
                "divide",
                &[sum, count],
                &dynamic,
                "broadcasting_divide_v1",
            );
            if acc != t.elt {
                let back = TensorType::new(&vec![DYNAMIC; rank], t.elt);
                simple(p, r, "primitive.cast_v1", None, &[mean], &back)
            } else {
                mean
            }
        },
    ))
}

/// `broadcasting_<name>_v1` with a dynamic-shaped operand or result, as
/// coreai-core writes it: the shapes of the operands of rank > 0
/// (`get_shape_v2` of a dynamic one, a ui32 constant of a static one)
/// joined left to right by `broadcast_shapes_v1`, every operand
/// `broadcast_to_v1` that shape (typed with the result's dims), then
/// `primitive.<primitive>_v1`.
fn dynamic_broadcasting(
    p: &mut Program,
    b: &mut Body,
    primitive: &str,
    operands: &[Value],
    result: &TensorType,
    composite_name: &str,
) -> Value {
    let prim = format!("primitive.{primitive}_v1");
    composite(p, b, composite_name, operands, result, |p, r| {
        let rank = result.dims.len() as i64;
        let ranked: Vec<usize> = (0..operands.len())
            .filter(|&i| !r.ty(r.arg(i)).dims.is_empty())
            .collect();
        let shapes: Vec<Value> = ranked
            .into_iter()
            .map(|i| {
                let t = r.ty(r.arg(i)).clone();
                let ty = TensorType::new(&[t.dims.len() as i64], Elt::UI32);
                if t.is_static() {
                    let dims: Vec<u32> = t.dims.iter().map(|&d| d as u32).collect();
                    constant(p, r, &Dense::u32s(&dims), &ty)
                } else {
                    let a = r.arg(i);
                    simple(p, r, "primitive.get_shape_v2", None, &[a], &ty)
                }
            })
            .collect();
        let shape_ty = TensorType::new(&[rank], Elt::UI32);
        let mut shape = shapes[0];
        for &s in &shapes[1..] {
            shape = simple(
                p,
                r,
                "primitive.broadcast_shapes_v1",
                None,
                &[shape, s],
                &shape_ty,
            );
        }
        let args: Vec<Value> = (0..operands.len())
            .map(|i| {
                let a = r.arg(i);
                let elt = r.ty(a).elt;
                let ty = TensorType::new(&result.dims, elt);
                simple(p, r, "primitive.broadcast_to_v1", None, &[a, shape], &ty)
            })
            .collect();
        simple(p, r, &prim, None, &args, result)
    })
}

/// `argmax_v1(x, axis)`, `axis` a rank-0 si32 tensor: `reduce_index_v1`
/// from the lowest value and index 0, the combiner `greater(new, best)`.
pub fn argmax(
    p: &mut Program,
    b: &mut Body,
    x: Value,
    axis: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    let (t, at) = (b.ty(x).clone(), b.ty(axis).clone());
    if !at.dims.is_empty() || at.elt != Elt::SI32 || result.elt != Elt::UI32 || t.elt == Elt::Bool {
        return Err(Unsupported(format!(
            "'argmax_v1' of {:?} along {at:?} to {:?} is not yet supported by the aicode writer",
            t.elt, result.elt
        )));
    }
    Ok(composite(p, b, "argmax_v1", &[x, axis], result, |p, r| {
        let (input, axis) = (r.arg(0), r.arg(1));
        let init = scalar(p, r, t.elt, Scalar::Lowest);
        let index = scalar(p, r, Elt::UI32, Scalar::Zero);
        let s = TensorType::new(&[], t.elt);
        let mut combiner = p.body(&[s.clone(), s]);
        let (best, new) = (combiner.arg(0), combiner.arg(1));
        let g = simple(
            p,
            &mut combiner,
            "primitive.greater_v1",
            None,
            &[new, best],
            &TensorType::new(&[], Elt::Bool),
        );
        yield_(p, &mut combiner, g);
        let dynamic = TensorType::new(&vec![DYNAMIC; t.dims.len()], Elt::UI32);
        p.op(
            r,
            "primitive.reduce_index_v1",
            version("primitive.reduce_index_v1"),
            None,
            &[input, axis, init, index],
            &[dynamic],
            vec![Program::region(combiner)],
        )[0]
    }))
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

/// `broadcasting_batch_matmul_v1`. Without batch broadcasting (both of
/// rank 2, or equal batch dims) its region is the one
/// `primitive.batch_matmul_v1`; otherwise coreai-core slices each operand's
/// ui32 shape constant into batch dims and matrix dims (`slice_v1`),
/// joins the batch dims (`broadcast_shapes_v1`), and `broadcast_to_v1`s
/// each operand whose batch dims are not the result's to that shape
/// `concat_v1` its matrix dims.
pub fn batch_matmul(
    p: &mut Program,
    b: &mut Body,
    lhs: Value,
    rhs: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    let (l, r) = (b.ty(lhs).clone(), b.ty(rhs).clone());
    let rank = result.dims.len();
    if l.dims.len() < 2 || r.dims.len() < 2 || rank < l.dims.len().max(r.dims.len()) {
        return Err(Unsupported(format!(
            "'broadcasting_batch_matmul_v1' of {:?} and {:?} is not yet supported by the aicode writer",
            l.dims, r.dims
        )));
    }
    let batch = &result.dims[..rank - 2];
    // An operand is broadcast when it has batch dims to match and they (or
    // any of its dims) are not statically the result's.
    let needs = |t: &TensorType| {
        rank > 2 && (t.dims.len() != rank || &t.dims[..rank - 2] != batch || !t.is_static())
    };
    let (bl, br) = (needs(&l), needs(&r));
    Ok(composite(
        p,
        b,
        "broadcasting_batch_matmul_v1",
        &[lhs, rhs],
        result,
        |p, inner| {
            let (mut a, mut c) = (inner.arg(0), inner.arg(1));
            if bl || br {
                let one = TensorType::new(&[1], Elt::SI32);
                let axis = constant(
                    p,
                    inner,
                    &Dense::i32s(&[0]),
                    &TensorType::new(&[], Elt::SI32),
                );
                let start = constant(p, inner, &Dense::i32s(&[0]), &one);
                let stride = constant(p, inner, &Dense::i32s(&[1]), &one);
                // Per operand: (batch end, matrix end) constants.
                let mut ends = Vec::new();
                for (t, broadcast) in [(&l, bl), (&r, br)] {
                    let n = t.dims.len() as i32;
                    let batch_end =
                        (n > 2).then(|| constant(p, inner, &Dense::i32s(&[n - 2]), &one));
                    let mat_end =
                        (broadcast && n > 2).then(|| constant(p, inner, &Dense::i32s(&[n]), &one));
                    ends.push((batch_end, mat_end));
                }
                let mut shapes = Vec::new();
                for (i, t) in [&l, &r].iter().enumerate() {
                    let ty = TensorType::new(&[t.dims.len() as i64], Elt::UI32);
                    shapes.push(if t.is_static() {
                        let dims: Vec<u32> = t.dims.iter().map(|&d| d as u32).collect();
                        constant(p, inner, &Dense::u32s(&dims), &ty)
                    } else {
                        let v = inner.arg(i);
                        simple(p, inner, "primitive.get_shape_v2", None, &[v], &ty)
                    });
                }
                let mut batches = Vec::new();
                let mut mats = Vec::new();
                for (i, t) in [&l, &r].iter().enumerate() {
                    let n = t.dims.len() as i64;
                    let (batch_end, mat_end) = ends[i];
                    let batch_dims = batch_end.map(|e| {
                        simple(
                            p,
                            inner,
                            "primitive.slice_v1",
                            None,
                            &[shapes[i], start, e, stride],
                            &TensorType::new(&[n - 2], Elt::UI32),
                        )
                    });
                    batches.extend(batch_dims);
                    let mat = match (batch_end, mat_end) {
                        (Some(e), Some(m)) => simple(
                            p,
                            inner,
                            "primitive.slice_v1",
                            None,
                            &[shapes[i], e, m, stride],
                            &TensorType::new(&[2], Elt::UI32),
                        ),
                        _ => shapes[i],
                    };
                    mats.push(mat);
                }
                let batch_ty = TensorType::new(&[(rank - 2) as i64], Elt::UI32);
                let batch_shape = if batches.len() == 2 {
                    simple(
                        p,
                        inner,
                        "primitive.broadcast_shapes_v1",
                        None,
                        &batches,
                        &batch_ty,
                    )
                } else {
                    batches[0]
                };
                let shape_ty = TensorType::new(&[rank as i64], Elt::UI32);
                let mut targets = Vec::new();
                for (i, broadcast) in [bl, br].into_iter().enumerate() {
                    if broadcast {
                        targets.push(simple(
                            p,
                            inner,
                            "primitive.concat_v1",
                            None,
                            &[axis, batch_shape, mats[i]],
                            &shape_ty,
                        ));
                    }
                }
                let mut targets = targets.into_iter();
                for (t, v, broadcast) in [(&l, &mut a, bl), (&r, &mut c, br)] {
                    if broadcast {
                        let n = t.dims.len();
                        let dims: Vec<i64> =
                            batch.iter().chain(&t.dims[n - 2..]).copied().collect();
                        let target = targets.next().expect("one per broadcast operand");
                        *v = simple(
                            p,
                            inner,
                            "primitive.broadcast_to_v1",
                            None,
                            &[*v, target],
                            &TensorType::new(&dims, t.elt),
                        );
                    }
                }
            }
            simple(p, inner, "primitive.batch_matmul_v1", None, &[a, c], result)
        },
    ))
}

/// `tile_v2(x, reps)`, `reps` a ui32 vector: coreai-core's region expands
/// `x` with a unit dim before each dim (`expand_dims_v1` at 0, 2, ...),
/// broadcasts those to `reps` (`concat_v1` of an empty shape and `reps`,
/// `broadcast_in_dims_v1`) and reshapes to the shape times `reps` (the
/// shape a constant, or `get_shape_v2` of a dynamic `x`).
pub fn tile(
    p: &mut Program,
    b: &mut Body,
    x: Value,
    reps: Value,
    result: &TensorType,
) -> Result<Value, Unsupported> {
    let (t, rt) = (b.ty(x).clone(), b.ty(reps).clone());
    let rank = t.dims.len();
    if rt.dims != [rank as i64] || rt.elt != Elt::UI32 {
        return Err(Unsupported(format!(
            "'tile_v2' with repeats {rt:?} is not yet supported by the aicode writer"
        )));
    }
    Ok(composite(p, b, "tile_v2", &[x, reps], result, |p, r| {
        let (input, reps) = (r.arg(0), r.arg(1));
        let n = [rank as i64];
        let axes: Vec<i32> = (0..rank as i32).map(|i| 2 * i).collect();
        let axes = constant(p, r, &Dense::i32s(&axes), &TensorType::new(&n, Elt::SI32));
        let expanded_dims: Vec<i64> = t.dims.iter().flat_map(|&d| [1, d]).collect();
        let expanded = simple(
            p,
            r,
            "primitive.expand_dims_v1",
            None,
            &[input, axes],
            &TensorType::new(&expanded_dims, t.elt),
        );
        let empty = constant(
            p,
            r,
            &Dense {
                splat: false,
                data: vec![],
            },
            &TensorType::new(&[0], Elt::UI32),
        );
        let axis = constant(p, r, &Dense::i32s(&[0]), &TensorType::new(&[], Elt::SI32));
        let shape_ty = TensorType::new(&n, Elt::UI32);
        let sizes = simple(
            p,
            r,
            "primitive.concat_v1",
            None,
            &[axis, empty, reps],
            &shape_ty,
        );
        let broadcast_dims: Vec<i64> = t.dims.iter().flat_map(|&d| [DYNAMIC, d]).collect();
        let broadcast = simple(
            p,
            r,
            "primitive.broadcast_in_dims_v1",
            None,
            &[expanded, sizes, axes],
            &TensorType::new(&broadcast_dims, t.elt),
        );
        let shape = if t.is_static() {
            let dims: Vec<u32> = t.dims.iter().map(|&d| d as u32).collect();
            constant(p, r, &Dense::u32s(&dims), &shape_ty)
        } else {
            simple(p, r, "primitive.get_shape_v2", None, &[input], &shape_ty)
        };
        let out_shape = simple(p, r, "primitive.mul_v1", None, &[shape, sizes], &shape_ty);
        simple(
            p,
            r,
            "primitive.reshape_v2",
            None,
            &[broadcast, out_shape],
            &TensorType::new(&vec![DYNAMIC; rank], t.elt),
        )
    }))
}

/// `sort_v1(x, axis, descending, stable)`: `argsort_v1` then
/// `gather_along_axis_v1`.
pub fn sort(p: &mut Program, b: &mut Body, operands: &[Value], result: &TensorType) -> Value {
    composite(p, b, "sort_v1", operands, result, |p, r| {
        let args: Vec<Value> = (0..4).map(|i| r.arg(i)).collect();
        let idx_ty = TensorType::new(&result.dims, Elt::SI32);
        let idx = simple(p, r, "primitive.argsort_v1", None, &args, &idx_ty);
        simple(
            p,
            r,
            "primitive.gather_along_axis_v1",
            None,
            &[args[0], idx, args[1]],
            result,
        )
    })
}

/// `dataflow.invoke_v1 @callee(operands)` (no argument or result
/// attributes).
pub fn invoke(
    p: &mut Program,
    b: &mut Body,
    callee: &str,
    operands: &[Value],
    results: &[TensorType],
) -> Vec<Value> {
    let empty = p.array(&[]);
    let c = p.symbol_binding(callee);
    p.op(
        b,
        "dataflow.invoke_v1",
        versions::GRAPH,
        Some(props(&[empty, c, empty])),
        operands,
        results,
        vec![],
    )
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

/// `coreaix.copy_with_constraints` (`to_encoding`) or
/// `copy_discarding_constraints` (otherwise) of `x`: the
/// `ax.copy_*_constraints_v1` op, typed `result` (a tensor with or without
/// its `hw_constraints` encoding).
pub fn copy_constraints(
    p: &mut Program,
    b: &mut Body,
    to_encoding: bool,
    x: Value,
    result: &TensorType,
) -> Value {
    let name = if to_encoding {
        "ax.copy_with_constraints_v1"
    } else {
        "ax.copy_discarding_constraints_v1"
    };
    simple(p, b, name, None, &[x], result)
}

/// `coreai.metal4_kernel` as `metal.metal4_kernel_v1`: the operands in
/// coreai's order (the kernel arguments, `threads_per_grid`,
/// `threads_per_thread_group`, one result shape per result) without
/// segment sizes (the reader splits them by the number of results), the
/// properties `kernel_name`, `kernel_source`.
pub fn metal4_kernel(
    p: &mut Program,
    b: &mut Body,
    kernel_name: &str,
    kernel_source: &str,
    operands: &[Value],
    results: &[TensorType],
) -> Vec<Value> {
    let name = p.string(kernel_name);
    let source = p.string(kernel_source);
    let op = "metal.metal4_kernel_v1";
    p.op(
        b,
        op,
        version(op),
        Some(props(&[name, source])),
        operands,
        results,
        vec![],
    )
}
