//! Indexing ops (gather, scatter, index.Tensor, index_put, embedding,
//! masked ops) → coreai.
//!
//! Index tensors are cast to `si32`, the index type coreai's gather and
//! scatter ops take. coreai wraps a negative index once (`[-n, n)`), as
//! PyTorch does; where a lowering computes a linear index itself it wraps
//! explicitly.
//!
//! Dynamic dims: the indexed tensor may have dynamic dims where the index
//! and the input agree (gather, scatter, embedding); index_select and
//! index.Tensor with one index tensor (`x[i]`, `x[:, i]`) take dynamic data
//! and a dynamic index (a transpose and gather_nd, the index column a
//! coreai.expand_dims); several index tensors may be dynamic when they have
//! one shape and no un-indexed dim precedes them; index_put then
//! broadcasts its values to the update shape read at run time
//! (coreai.get_shape). index_put with accumulate and masked_scatter need
//! static shapes (they flatten with static strides). A boolean mask is
//! supported as the only index, over leading dims.

use coreai_ir::emit::{binary, broadcasting, select_to};
use coreai_ir::emit::{
    bool_scalar, cast_to, int_scalar, int_vector, leading_block, reshape, shape, slice,
    slice_update, splat, transpose,
};
use coreai_ir::lowering::broadcast_shapes;
use coreai_ir::lowering::{type_text, Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::is_bool;
use coreai_ir::schema::{
    bool_attr, bool_list_attr, element_type, int_attr, normalize_dim, static_dims,
    static_type_dims, str_attr, tensor_type, type_dims, DYNAMIC,
};
use melior::ir::{
    operation::{OperationBuilder, OperationLike, OperationRef},
    r#type::ShapedTypeLike,
    Block, BlockLike, Region, RegionLike, Type, TypeLike, Value, ValueLike,
};

pub static LOWERINGS: super::Family = &[
    ("embedding.default", embedding),
    ("gather.default", gather),
    ("index.Tensor", index_tensor),
    ("index_put.default", index_put),
    ("index_select.default", index_select),
    ("masked_fill.Scalar", masked_fill),
    ("masked_fill.Tensor", masked_fill),
    ("masked_scatter.default", masked_scatter),
    ("nonzero.default", nonzero),
    ("nonzero_numpy.default", nonzero_numpy),
    ("scatter.reduce", scatter_reduce),
    ("scatter.src", scatter_src),
    ("scatter.value", scatter_value),
    ("scatter.value_reduce", scatter_value_reduce),
    ("scatter_add.default", scatter_add),
    ("scatter_reduce.two", scatter_reduce_two),
];

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

/// An index tensor as `si32` (coreai's index type), declining booleans.
fn index_si32<'c, 'a>(cx: &LoweringCx<'c, 'a>, v: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let element = element_type(v)?;
    if is_bool(element) {
        return Err("boolean mask indices are not supported; use torch.where or masked ops".into());
    }
    if !element.is_integer() {
        return Err(format!("index tensors must be integers, got {element}"));
    }
    cast_to(cx, v, cx.parse_type("si32")?)
}

/// `x` (static) broadcast to `to` of the same rank: `coreai.broadcast_to`,
/// or `x` itself when it already has that shape.
fn broadcast<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    to: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    let mut d = static_type_dims(x.r#type())?;
    if d.len() > to.len() {
        return Err(format!("cannot broadcast {d:?} to {to:?}"));
    }
    let mut x = x;
    if d.len() < to.len() {
        let mut padded = vec![1; to.len() - d.len()];
        padded.extend(&d);
        x = reshape(cx, x, &padded)?;
        d = padded;
    }
    if d == to {
        return Ok(x);
    }
    let s = shape(cx, to)?;
    cx.build_value(
        coreai::BROADCAST_TO,
        &[x, s],
        tensor_type(to, element_type(x)?),
        &[],
    )
}

// aten.gather(%x, %index) {dim} → coreai.gather_along_axis %x at (si32 %index) along <dim : si32>
//
// PyTorch lets the index be smaller than x on the other dims; coreai wants
// them equal, so x is sliced to the index's extent there first.
fn gather<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let dim = normalize_dim(int_attr(cx, "dim")?, rank)?;
    let idx = index_si32(cx, cx.operand(1)?)?;
    let x = fit_other_dims(cx, cx.operand(0)?, &type_dims(idx.r#type())?, dim)?;
    let axis = int_scalar(cx, dim as i64, "si32")?;
    Ok(vec![cx.build_value(
        coreai::GATHER_ALONG_AXIS,
        &[x, idx, axis],
        cx.result_type(0)?,
        &[],
    )?])
}

/// `x` sliced to `extent` on every dim except `dim` (or `x` itself).
fn fit_other_dims<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    extent: &[i64],
    dim: usize,
) -> Result<Value<'c, 'a>, Decline> {
    let xd = type_dims(x.r#type())?;
    if extent.len() != xd.len() {
        return Err(format!(
            "the index has rank {} but the input {}",
            extent.len(),
            xd.len()
        ));
    }
    let mut out = xd.clone();
    for (i, (&e, &n)) in extent.iter().zip(&xd).enumerate() {
        if i != dim && e != n {
            if e == DYNAMIC || n == DYNAMIC {
                return Err(format!(
                    "the index and the input may differ in size in the dynamic dim {i}; this needs static shapes"
                ));
            }
            if e > n {
                return Err(format!(
                    "index size {e} exceeds the input size {n} in dim {i}"
                ));
            }
            out[i] = e;
        }
    }
    if out == xd {
        return Ok(x);
    }
    slice(
        cx,
        x,
        &leading_block(&out),
        tensor_type(&out, element_type(x)?),
    )
}

// aten.index_select(%x, %index) {dim}
//   → coreai.gather_along_axis %x at (broadcast_in_dims (reshape %index to [1,..,n,..,1])) along <dim>
//
// Dynamic x: coreai.gather_nd of (x with `dim` moved first) at index[:, None],
// moved back (the broadcast above needs every other size).
fn index_select<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let xd = type_dims(cx.operand(0)?.r#type())?;
    let dim = normalize_dim(int_attr(cx, "dim")?, xd.len())?;
    let id = type_dims(cx.operand(1)?.r#type())?;
    if id.contains(&DYNAMIC) {
        // A 1-D index of runtime length: gathered as it is.
        if xd.is_empty() || id.len() != 1 {
            return Err(format!(
                "index_select with the dynamic index {} of a rank-{} input is not lowered",
                cx.operand(1)?.r#type(),
                xd.len()
            ));
        }
        let idx = index_si32(cx, cx.operand(1)?)?;
        return Ok(vec![gather_at_dim(cx, cx.operand(0)?, idx, dim)?]);
    }
    let n: i64 = id.iter().product();
    if xd.contains(&DYNAMIC) {
        return index_select_dynamic(cx, dim, n);
    }
    let mut idx_shape = vec![1; xd.len().max(1)];
    idx_shape[dim] = n;
    let mut idx = reshape(cx, index_si32(cx, cx.operand(1)?)?, &idx_shape)?;
    let others: Vec<i64> = (0..xd.len())
        .filter(|&i| i != dim)
        .map(|i| i as i64)
        .collect();
    if !others.is_empty() {
        let mut full = xd.clone();
        full[dim] = n;
        let sizes: Vec<i64> = others.iter().map(|&i| xd[i as usize]).collect();
        let (s, a) = (shape(cx, &sizes)?, int_vector(cx, &others, "si32")?);
        let ty = tensor_type(&full, element_type(idx)?);
        idx = cx.build_value(coreai::BROADCAST_IN_DIMS, &[idx, s, a], ty, &[])?;
    }
    let x = cx.operand(0)?;
    let x = if xd.is_empty() {
        reshape(cx, x, &[1])?
    } else {
        x
    };
    let axis = int_scalar(cx, dim as i64, "si32")?;
    let out = static_type_dims(idx.r#type())?;
    let g = cx.build_value(
        coreai::GATHER_ALONG_AXIS,
        &[x, idx, axis],
        tensor_type(&out, element_type(x)?),
        &[],
    )?;
    if g.r#type() == cx.result_type(0)? {
        return Ok(vec![g]);
    }
    Ok(vec![reshape(
        cx,
        g,
        &static_type_dims(cx.result_type(0)?)?,
    )?])
}

/// index_select for a dynamic `x`: [`gather_at_dim`] of the flattened index.
fn index_select_dynamic<'c, 'a>(cx: &LoweringCx<'c, 'a>, dim: usize, n: i64) -> Lowered<'c, 'a> {
    let idx = reshape(cx, index_si32(cx, cx.operand(1)?)?, &[n])?;
    Ok(vec![gather_at_dim(cx, cx.operand(0)?, idx, dim)?])
}

/// `x` indexed along `dim` by the si32 tensor `idx` (any shape B), the
/// result `x.shape[:dim] + B + x.shape[dim+1:]`: coreai.gather_nd of x with
/// `dim` moved first at `idx[..., None]`, the B dims moved back to `dim`.
/// Transposes keep dynamic dims, so x may be dynamic, and so may B (the
/// index column is then a `coreai.expand_dims`).
pub(super) fn gather_at_dim<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    idx: Value<'c, 'a>,
    dim: usize,
) -> Result<Value<'c, 'a>, Decline> {
    let xd = type_dims(x.r#type())?;
    let b = type_dims(idx.r#type())?;
    let mut perm: Vec<usize> = vec![dim];
    perm.extend((0..xd.len()).filter(|&i| i != dim));
    let front = if dim == 0 {
        x
    } else {
        transpose(cx, x, &perm)?
    };
    let idx = unit_last(cx, idx)?;
    let mut gd = b.clone();
    gd.extend(perm[1..].iter().map(|&i| xd[i]));
    let ty = tensor_type(&gd, element_type(front)?);
    let g = cx.build_value(coreai::GATHER_ND, &[front, idx], ty, &[])?;
    if dim == 0 {
        return Ok(g);
    }
    let nb = b.len();
    let back: Vec<usize> = (nb..nb + dim)
        .chain(0..nb)
        .chain(nb + dim..gd.len())
        .collect();
    transpose(cx, g, &back)
}

/// `v` with a trailing unit dim: a reshape when `v` is static, otherwise a
/// `coreai.expand_dims` (which keeps the dynamic dims).
fn unit_last<'c, 'a>(cx: &LoweringCx<'c, 'a>, v: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let mut d = type_dims(v.r#type())?;
    d.push(1);
    if !d.contains(&DYNAMIC) {
        return reshape(cx, v, &d);
    }
    let a = int_vector(cx, &[d.len() as i64 - 1], "si32")?;
    let ty = tensor_type(&d, element_type(v)?);
    cx.build_value(coreai::EXPAND_DIMS, &[v, a], ty, &[])
}

/// `x` broadcast to `to` (dynamic dims as `DYNAMIC`, their runtime sizes
/// in `extents`), of rank at most `to`'s: [`broadcast`] when both are
/// static, otherwise leading unit dims added with `coreai.expand_dims` and
/// a `coreai.broadcast_to` of the runtime shape.
fn broadcast_runtime<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    to: &[i64],
    extents: &[coreai_ir::emit::Extent<'c, 'a>],
) -> Result<Value<'c, 'a>, Decline> {
    let d = type_dims(x.r#type())?;
    if !d.contains(&DYNAMIC) && !to.contains(&DYNAMIC) {
        return broadcast(cx, x, to);
    }
    if d.len() > to.len() {
        return Err(format!(
            "cannot broadcast {} to rank {}",
            x.r#type(),
            to.len()
        ));
    }
    let element = element_type(x)?;
    let mut x = x;
    if d.len() < to.len() {
        let lead = to.len() - d.len();
        let axes: Vec<i64> = (0..lead as i64).collect();
        let mut padded = vec![1; lead];
        padded.extend(&d);
        let a = int_vector(cx, &axes, "si32")?;
        x = cx.build_value(
            coreai::EXPAND_DIMS,
            &[x, a],
            tensor_type(&padded, element),
            &[],
        )?;
    }
    let s = coreai_ir::emit::runtime_shape(cx, extents, "ui32")?;
    cx.build_value(coreai::BROADCAST_TO, &[x, s], tensor_type(to, element), &[])
}

// aten.embedding(%weight, %indices) → coreai.gather_nd %weight at (reshape (si32 %indices) to [..., 1])
//   (dynamic indices: coreai.expand_dims at the end instead of the reshape)
fn embedding<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let mut d = type_dims(cx.operand(1)?.r#type())?;
    d.push(1);
    let idx = index_si32(cx, cx.operand(1)?)?;
    let idx = if d.contains(&DYNAMIC) {
        let a = int_vector(cx, &[d.len() as i64 - 1], "si32")?;
        let ty = tensor_type(&d, element_type(idx)?);
        cx.build_value(coreai::EXPAND_DIMS, &[idx, a], ty, &[])?
    } else {
        reshape(cx, idx, &d)?
    };
    Ok(vec![cx.build_value(
        coreai::GATHER_ND,
        &[cx.operand(0)?, idx],
        cx.result_type(0)?,
        &[],
    )?])
}

/// `coreai.scatter_along_axis %x, %idx, %updates, <dim>` with `mode`
/// (`update`, `add`, `mul`, `max`, `min`), the index being operand 1.
///
/// PyTorch lets the index be smaller than x on the other dims and src
/// larger than the index; coreai wants them equal, so src is sliced to the
/// index's shape, and x's covered block is scattered into and written back
/// with `coreai.slice_update`.
fn scatter_along<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    updates: Value<'c, 'a>,
    mode: &str,
) -> Lowered<'c, 'a> {
    let xd = type_dims(x.r#type())?;
    let dim = normalize_dim(int_attr(cx, "dim")?, xd.len())?;
    let idx = index_si32(cx, cx.operand(1)?)?;
    let id = type_dims(idx.r#type())?;
    let updates = cast_to(cx, updates, element_type(x)?)?;
    let updates = fit_other_dims(cx, updates, &id, usize::MAX)?;
    let block = fit_other_dims(cx, x, &id, dim)?;
    let axis = int_scalar(cx, dim as i64, "si32")?;
    let mut attrs = Vec::new();
    if mode != "update" {
        attrs.push((
            "scatter_mode",
            cx.parse_attribute(&format!("#coreai.scatter_mode<{mode}>"))?,
        ));
    }
    let scattered = cx.build_value(
        coreai::SCATTER_ALONG_AXIS,
        &[block, idx, updates, axis],
        block.r#type(),
        &attrs,
    )?;
    if block == x {
        return Ok(vec![scattered]);
    }
    let bounds = leading_block(&type_dims(block.r#type())?);
    Ok(vec![slice_update(cx, x, scattered, &bounds, x.r#type())?])
}

/// `value` as a constant of the index's shape in x's dtype.
fn value_updates<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let ty = tensor_type(&static_dims(cx, 1)?, cx.operand_tensor(0)?.element());
    splat(cx, cx.scalar("value")?, ty)
}

/// The coreai scatter mode of scatter's legacy `reduce` argument.
fn legacy_mode(cx: &LoweringCx<'_, '_>) -> Result<&'static str, Decline> {
    match str_attr(cx, "reduce")?.as_str() {
        "add" => Ok("add"),
        "multiply" => Ok("mul"),
        other => Err(format!("unknown scatter reduction '{other}'")),
    }
}

// aten.scatter.src(%x, %index, %src) {dim} → coreai.scatter_along_axis %x, %index, %src, <dim>
fn scatter_src<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    scatter_along(cx, cx.operand(0)?, cx.operand(2)?, "update")
}

// aten.scatter.value(%x, %index) {dim, value} → coreai.scatter_along_axis %x, %index, <splat value>, <dim>
fn scatter_value<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    scatter_along(cx, cx.operand(0)?, value_updates(cx)?, "update")
}

// aten.scatter_add(%x, %index, %src) {dim} → coreai.scatter_along_axis ... scatter_mode = <add>
fn scatter_add<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    scatter_along(cx, cx.operand(0)?, cx.operand(2)?, "add")
}

// aten.scatter.reduce(%x, %index, %src) {dim, reduce = add|multiply} → scatter_mode = <add|mul>
fn scatter_reduce<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    scatter_along(cx, cx.operand(0)?, cx.operand(2)?, legacy_mode(cx)?)
}

// aten.scatter.value_reduce(%x, %index) {dim, value, reduce} → scatter_mode = <add|mul> of a splat
fn scatter_value_reduce<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    scatter_along(cx, cx.operand(0)?, value_updates(cx)?, legacy_mode(cx)?)
}

// aten.scatter_reduce.two(%x, %index, %src) {dim, reduce, include_self}
//   → coreai.scatter_along_axis ... scatter_mode = <add|mul|max|min>
//   include_self = false: the targeted elements are first set to the
//   reduction's identity (scatter of a splat), so only src contributes.
//
// coreai's <max>/<min> replace an element only when the update compares
// greater (less), so a NaN in src would be dropped; PyTorch's amax/amin
// propagate it, which float lowerings restore (see propagate_nan).
fn scatter_reduce_two<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let reduce = str_attr(cx, "reduce")?;
    let element = cx.operand_tensor(0)?.element();
    let (mode, identity) = match reduce.as_str() {
        "sum" => ("add", Scalar::Int(0)),
        "prod" => ("mul", Scalar::Int(1)),
        "amax" => ("max", lowest(element)?),
        "amin" => ("min", highest(element)?),
        "mean" => return scatter_mean(cx),
        other => return Err(format!("unknown scatter_reduce reduction '{other}'")),
    };
    let mut x = cx.operand(0)?;
    if !bool_attr(cx, "include_self")? {
        let ty = tensor_type(&static_dims(cx, 1)?, element);
        x = scatter_along(cx, x, splat(cx, identity, ty)?, "update")?[0];
    }
    let reduced = scatter_along(cx, x, cx.operand(2)?, mode)?[0];
    if !matches!(mode, "max" | "min") || element.is_integer() {
        return Ok(vec![reduced]);
    }
    Ok(vec![propagate_nan(cx, x, reduced)?])
}

/// PyTorch's amax/amin scatter propagates a NaN of src; coreai's <max>/<min>
/// drop it. The targets a NaN was scattered to are found with a <max>
/// scatter of `src != src` (as 0/1 in x's dtype) into zeros, and set to NaN.
fn propagate_nan<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    reduced: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let element = element_type(x)?;
    let src = cast_to(cx, cx.operand(2)?, element)?;
    let bool_ty = tensor_type(&type_dims(src.r#type())?, cx.parse_type("i1")?);
    let is_nan = broadcasting(cx, coreai::NOT_EQUAL, src, src, bool_ty)?;
    let flags = cast_to(cx, is_nan, element)?;
    let zeros = splat(cx, Scalar::Int(0), x.r#type())?;
    let hits = scatter_along(cx, zeros, flags, "max")?[0];
    let scalar = tensor_type(&[], element);
    let zero = splat(cx, Scalar::Int(0), scalar)?;
    let hit_ty = tensor_type(&type_dims(x.r#type())?, cx.parse_type("i1")?);
    let hit = broadcasting(cx, coreai::GREATER, hits, zero, hit_ty)?;
    let nan = splat(cx, Scalar::Float(f64::NAN), scalar)?;
    select_to(cx, hit, nan, reduced, reduced.r#type())
}

// aten.scatter_reduce.two(...) {reduce = "mean", include_self}
//   → sum = scatter_along_axis <add> of src into x (targets reset to 0 first
//     without include_self), count = the same of ones into 1s (0s), at
//     least 1; sum / count (floor division for integers, as PyTorch).
fn scatter_mean<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let element = cx.operand_tensor(0)?.element();
    let index_shape = tensor_type(&static_dims(cx, 1)?, element);
    let include_self = bool_attr(cx, "include_self")?;
    let (base, start) = if include_self {
        (x, 1)
    } else {
        let zeros = splat(cx, Scalar::Int(0), index_shape)?;
        (scatter_along(cx, x, zeros, "update")?[0], 0)
    };
    let sum = scatter_along(cx, base, cx.operand(2)?, "add")?[0];
    let counts = splat(cx, Scalar::Int(start), x.r#type())?;
    let ones = splat(cx, Scalar::Int(1), index_shape)?;
    let mut counts = scatter_along(cx, counts, ones, "add")?[0];
    if !include_self {
        let one = splat(cx, Scalar::Int(1), tensor_type(&[], element))?;
        counts = broadcasting(cx, coreai::MAXIMUM, counts, one, x.r#type())?;
    }
    let divide = if element.is_integer() {
        coreai::FLOOR_DIVIDE
    } else {
        coreai::DIVIDE
    };
    Ok(vec![broadcasting(
        cx,
        divide,
        sum,
        counts,
        cx.result_type(0)?,
    )?])
}

/// The smallest value of `element` (−inf for floats).
fn lowest(element: Type<'_>) -> Result<Scalar, Decline> {
    bound(element, f64::NEG_INFINITY, |b| b.0)
}

/// The largest value of `element` (+inf for floats).
fn highest(element: Type<'_>) -> Result<Scalar, Decline> {
    bound(element, f64::INFINITY, |b| b.1)
}

fn bound(
    element: Type<'_>,
    float: f64,
    pick: fn((Scalar, Scalar)) -> Scalar,
) -> Result<Scalar, Decline> {
    if is_bool(element) {
        return Err("scatter_reduce amax/amin on bool tensors is not supported".into());
    }
    if element.is_integer() {
        return int_bounds(element).map(pick);
    }
    Ok(Scalar::Float(float))
}

/// The range of an integer `element` (`si8` ... `ui64`).
fn int_bounds(element: Type<'_>) -> Result<(Scalar, Scalar), Decline> {
    let text = type_text(element);
    let (signed, bits) = match (text.strip_prefix("si"), text.strip_prefix("ui")) {
        (Some(b), _) => (true, b),
        (_, Some(b)) => (false, b),
        _ => return Err(format!("{text} is not an integer type")),
    };
    let bits: u32 = match bits.parse() {
        Ok(b) if (1..=64).contains(&b) => b,
        _ => return Err(format!("{text} is not a supported integer type")),
    };
    Ok(match (signed, bits) {
        (true, 64) => (Scalar::Int(i64::MIN), Scalar::Int(i64::MAX)),
        (true, b) => (
            Scalar::Int(-(1 << (b - 1))),
            Scalar::Int((1 << (b - 1)) - 1),
        ),
        (false, 64) => return Err("ui64 bounds do not fit a PyTorch scalar".into()),
        (false, b) => (Scalar::Int(0), Scalar::Int((1 << b) - 1)),
    })
}

/// Advanced-indexing operands made ready for `gather_nd` / `scatter_nd`:
/// the base (transposed so the indexed dims come first when they are not
/// adjacent), the stacked `si32` indices `[B..., k]`, and the permutation
/// that undoes the transpose.
struct Stacked<'c, 'a> {
    base: Value<'c, 'a>,
    indices: Value<'c, 'a>,
    inverse: Option<Vec<usize>>,
}

/// PyTorch's `x[i0, i1, ...]` with `present[d]` telling whether dim d has
/// an index tensor (the next of `tensors`).
///
/// Adjacent indexed dims after leading un-indexed ones get those leading
/// dims indexed by `arange` tensors, so the gathered dims land where
/// PyTorch puts them; non-adjacent ones are moved to the front (PyTorch
/// puts the broadcast dims first then).
fn stack_indices<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    tensors: &[Value<'c, 'a>],
    present: &[bool],
) -> Result<Stacked<'c, 'a>, Decline> {
    let xd = type_dims(x.r#type())?;
    if present.len() > xd.len() || present.iter().filter(|&&p| p).count() != tensors.len() {
        return Err("the index list does not match the indexed tensor".into());
    }
    let mut slots: Vec<Option<Value>> = Vec::new();
    let mut it = tensors.iter();
    for &p in present {
        slots.push(match p {
            true => Some(index_si32(cx, *it.next().ok_or("too few index tensors")?)?),
            false => None,
        });
    }
    let indexed: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].is_some()).collect();
    let (&first, &last) = match (indexed.first(), indexed.last()) {
        (Some(f), Some(l)) => (f, l),
        _ => return Err("indexing needs at least one index tensor".into()),
    };
    let contiguous = last - first + 1 == indexed.len();
    let shapes: Vec<Vec<i64>> = indexed
        .iter()
        .map(|&i| type_dims(slots[i].expect("indexed").r#type()))
        .collect::<Result<_, _>>()?;
    // Dynamic index shapes: tensors of one shape are used as they are;
    // tensors of different shapes are broadcast at run time by adding a
    // zero of the broadcast shape (z = t0*0*t1*...*tn, exact in si32), as
    // the sizes a dynamic dim stands for are known only then.
    let dynamic = shapes.iter().any(|s| s.contains(&DYNAMIC));
    let b = broadcast_shapes(&shapes.iter().map(Vec::as_slice).collect::<Vec<_>>())?;
    if dynamic && shapes.iter().any(|s| s != &b) {
        let si32 = cx.parse_type("si32")?;
        let mut zero = int_scalar(cx, 0, "si32")?;
        for &i in &indexed {
            zero = binary(cx, coreai::MUL, zero, slots[i].expect("indexed"), si32)?;
        }
        for &i in &indexed {
            let t = slots[i].expect("indexed");
            if type_dims(t.r#type())? != b {
                slots[i] = Some(binary(cx, coreai::ADD, t, zero, si32)?);
            }
        }
    }
    let (base, inverse, lead) = if contiguous {
        (x, None, first)
    } else {
        let rest: Vec<usize> = (0..xd.len()).filter(|i| !indexed.contains(i)).collect();
        let perm: Vec<usize> = indexed.iter().copied().chain(rest).collect();
        let mut inv = vec![0; perm.len()];
        for (i, &p) in perm.iter().enumerate() {
            inv[p] = i;
        }
        let moved: Vec<Option<Value>> = indexed.iter().map(|&i| slots[i]).collect();
        slots = moved;
        (transpose(cx, x, &perm)?, Some(inv), 0)
    };
    // Leading un-indexed dims get aranges shaped [n, 1, ..., 1].
    if let Some(d) = xd[..lead].iter().position(|&n| n == DYNAMIC) {
        return Err(format!(
            "dim {d} of {} is dynamic; indexing after it needs its size",
            x.r#type()
        ));
    }
    if dynamic && lead > 0 {
        return Err(format!(
            "index tensors with a dynamic dim after {lead} un-indexed leading dims of {} are not lowered",
            x.r#type()
        ));
    }
    let mut full = xd[..lead].to_vec();
    full.extend(&b);
    for (i, slot) in slots.iter_mut().enumerate().take(lead) {
        let range: Vec<i64> = (0..xd[i]).collect();
        let mut s = vec![1; full.len() - i];
        s[0] = xd[i];
        let r = int_vector(cx, &range, "si32")?;
        *slot = Some(reshape(cx, r, &s)?);
    }
    let mut column_shape = full.clone();
    column_shape.push(1);
    let columns: Vec<Value> = slots
        .iter()
        .flatten()
        .map(|&v| match dynamic {
            true => unit_last(cx, v),
            false => broadcast(cx, v, &full).and_then(|v| reshape(cx, v, &column_shape)),
        })
        .collect::<Result<_, _>>()?;
    let indices = if columns.len() == 1 {
        columns[0]
    } else {
        let mut stacked_shape = full.clone();
        stacked_shape.push(columns.len() as i64);
        let mut operands = vec![int_scalar(cx, full.len() as i64, "si32")?];
        operands.extend(columns);
        let ty = tensor_type(&stacked_shape, cx.parse_type("si32")?);
        cx.build_value(coreai::CONCAT, &operands, ty, &[])?
    };
    Ok(Stacked {
        base,
        indices,
        inverse,
    })
}

/// The index tensors of index.Tensor / index_put: operands `1..1+n`.
fn index_operands<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    present: &[bool],
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let n = present.iter().filter(|&&p| p).count();
    (1..=n).map(|i| cx.operand(i)).collect()
}

// aten.index.Tensor(%x, %i0, ...) {indices_present}
//   → coreai.gather_nd %x' at <stacked si32 indices>
//   (%x' = %x, or %x transposed to bring non-adjacent indexed dims first)
// x[mask] (one boolean index over the leading dims; a dynamic count)
//   → coreai.gather_nd %x at (coreai.non_zero %mask)
// x[:, i] with dynamic leading dims (one index tensor): gather_nd of x with
//   the indexed dim moved first, moved back (no aranges of unknown size)
fn index_tensor<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let present = bool_list_attr(cx, "indices_present")?;
    let tensors = index_operands(cx, &present)?;
    if let Some(mask) = leading_mask(cx, &tensors, &present)? {
        let rank = cx.operand_tensor(1)?.rank() as i64;
        let ty = tensor_type(&[DYNAMIC, rank], cx.parse_type("si32")?);
        let nz = cx.build_value(coreai::NON_ZERO, &[mask], ty, &[])?;
        return Ok(vec![cx.build_value(
            coreai::GATHER_ND,
            &[cx.operand(0)?, nz],
            cx.result_type(0)?,
            &[],
        )?]);
    }
    let leading_dynamic = type_dims(cx.operand(0)?.r#type())?
        .iter()
        .take(present.iter().position(|&p| p).unwrap_or(0))
        .any(|&d| d == DYNAMIC);
    let index_dynamic = match tensors.first() {
        Some(t) => type_dims(t.r#type())?.contains(&DYNAMIC),
        None => false,
    };
    if let ([t], true) = (&tensors[..], leading_dynamic || index_dynamic) {
        let dim = present.iter().position(|&p| p).unwrap_or(0);
        let idx = index_si32(cx, *t)?;
        return Ok(vec![gather_at_dim(cx, cx.operand(0)?, idx, dim)?]);
    }
    let s = stack_indices(cx, cx.operand(0)?, &tensors, &present)?;
    Ok(vec![cx.build_value(
        coreai::GATHER_ND,
        &[s.base, s.indices],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.index_put(%x, %i0, ..., %values) {indices_present, accumulate = false}
//   → coreai.scatter_nd %x' with %values' at <stacked si32 indices> { yield new }
// accumulate = true: duplicates must add up, which scatter_nd's region cannot
//   express in coreai-core 1.0.0b3, so the indexed dims are flattened to one
//   linear (wrapped) index and a coreai.scatter_along_axis <add> runs on it.
//
// x[mask] = v (one boolean index over the leading dims, a one-element v)
//   → coreai.decomposable.broadcasting_where %mask', %v, %x
//   (accumulate: %x + where(%mask', %v, 0))
fn index_put<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let present = bool_list_attr(cx, "indices_present")?;
    let tensors = index_operands(cx, &present)?;
    let x = cx.operand(0)?;
    let values = cx.operand(tensors.len() + 1)?;
    if let Some(mask) = leading_mask(cx, &tensors, &present)? {
        return Ok(vec![masked_put(cx, x, mask, values)?]);
    }
    let s = stack_indices(cx, x, &tensors, &present)?;
    let bd = type_dims(s.base.r#type())?;
    let id = type_dims(s.indices.r#type())?;
    let k = id[id.len() - 1] as usize;
    let mut ud = id[..id.len() - 1].to_vec();
    ud.extend(&bd[k..]);
    // The runtime sizes of the update shape: the index's batch dims, then
    // the base's un-indexed ones.
    let extents: Vec<coreai_ir::emit::Extent> = (0..id.len() - 1)
        .map(|i| (s.indices, i, id[i]))
        .chain((k..bd.len()).map(|i| (s.base, i, bd[i])))
        .map(|(v, i, n)| match n {
            DYNAMIC => coreai_ir::emit::Extent::DimOf(v, i),
            n => coreai_ir::emit::Extent::Static(n),
        })
        .collect();
    let values = cast_to(cx, values, element_type(x)?)?;
    let values = broadcast_runtime(cx, values, &ud, &extents)?;
    let out = if bool_attr(cx, "accumulate")? {
        accumulate_linear(cx, s.base, s.indices, values)?
    } else {
        scatter_nd(cx, s.base, s.indices, values)?
    };
    match s.inverse {
        Some(inv) => Ok(vec![transpose(cx, out, &inv)?]),
        None => Ok(vec![out]),
    }
}

/// The boolean mask of `x[mask]` when it is the only index (the brief
/// form PyTorch gives `x[m]` and `x[m] = v`) and covers x's leading dims.
fn leading_mask<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    tensors: &[Value<'c, 'a>],
    present: &[bool],
) -> Result<Option<Value<'c, 'a>>, Decline> {
    let [m] = tensors else { return Ok(None) };
    if element_type(*m)?.to_string() != "i1" {
        return Ok(None);
    }
    if present != [true] {
        return Err("a boolean mask mixed with other indices is not supported".into());
    }
    let (md, xd) = (
        static_type_dims(m.r#type())?,
        static_type_dims(cx.operand(0)?.r#type())?,
    );
    if md.len() > xd.len() || md[..] != xd[..md.len()] {
        return Err(format!(
            "the mask shape {md:?} does not match the leading dims of {xd:?}"
        ));
    }
    Ok(Some(*m))
}

/// `x[mask] = v` (or `+=` with accumulate) for a one-element `v`: a where on
/// the mask, reshaped to broadcast over x's trailing dims.
fn masked_put<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    mask: Value<'c, 'a>,
    values: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let xd = static_type_dims(x.r#type())?;
    let vd = static_type_dims(values.r#type())?;
    if vd.iter().product::<i64>() != 1 {
        return Err(format!(
            "x[mask] = v with v of shape {vd:?} is not supported (one element is); use torch.where"
        ));
    }
    let element = element_type(x)?;
    let v = reshape(cx, cast_to(cx, values, element)?, &[])?;
    let mut md = static_type_dims(mask.r#type())?;
    md.resize(xd.len(), 1);
    let mask = reshape(cx, mask, &md)?;
    let where_ = |a: Value<'c, 'a>, b: Value<'c, 'a>| select_to(cx, mask, a, b, x.r#type());
    if !bool_attr(cx, "accumulate")? {
        return where_(v, x);
    }
    // Each element is selected at most once: x + v where the mask holds.
    let added = broadcasting(cx, coreai::ADD, x, v, x.r#type())?;
    where_(added, x)
}

/// `coreai.scatter_nd %base with %updates at %indices { yield %new }`.
fn scatter_nd<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    base: Value<'c, 'a>,
    indices: Value<'c, 'a>,
    updates: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let scalar = tensor_type(&[], element_type(base)?);
    let location = cx.location();
    let block = Block::new(&[(scalar, location), (scalar, location)]);
    let new = block.argument(1).map_err(|_| "no block argument")?;
    block.append_operation(
        OperationBuilder::new(coreai::YIELD, location)
            .add_operands(&[new.into()])
            .build()
            .map_err(|e| format!("cannot build coreai.yield: {e}"))?,
    );
    let region = Region::new();
    region.append_block(block);
    let op = OperationBuilder::new(coreai::SCATTER_ND, location)
        .add_operands(&[base, indices, updates])
        .add_results(&[base.r#type()])
        .add_regions([region])
        .build()
        .map_err(|e| format!("cannot build coreai.scatter_nd: {e}"))?;
    let inserted = insert_before(cx, op)?;
    inserted
        .result(0)
        .map(Into::into)
        .map_err(|_| format!("{} has no result", coreai::SCATTER_ND))
}

/// Inserts `op` in front of the op being lowered.
fn insert_before<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: melior::ir::Operation<'c>,
) -> Result<OperationRef<'c, 'a>, Decline> {
    let block = cx.op().block().ok_or("the op is not in a block")?;
    Ok(block.insert_operation_before(cx.op(), op))
}

/// index_put with accumulate: `base[idx] += updates` with duplicates summed.
///
/// The k indexed dims (leading in `base`) are flattened into one of size
/// P = ∏ dims; each index vector becomes `Σ wrap(i_j)·stride_j`, where
/// `wrap(i) = ((i mod n) + n) mod n` (coreai's modulo truncates) maps
/// PyTorch's negative indices into range; then a scatter_along_axis <add>
/// on axis 0 of the [P, R] view.
fn accumulate_linear<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    base: Value<'c, 'a>,
    indices: Value<'c, 'a>,
    updates: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let bd = static_type_dims(base.r#type())?;
    let id = static_type_dims(indices.r#type())?;
    let k = id[id.len() - 1] as usize;
    let sizes = &bd[..k];
    let strides: Vec<i64> = (0..k).map(|j| sizes[j + 1..].iter().product()).collect();
    let n = int_vector(cx, sizes, "si32")?;
    let st = int_vector(cx, &strides, "si32")?;
    let op =
        |name: &str, a: Value<'c, 'a>, b: Value<'c, 'a>| broadcasting(cx, name, a, b, a.r#type());
    let wrapped = op(
        coreai::MODULO,
        op(coreai::ADD, op(coreai::MODULO, indices, n)?, n)?,
        n,
    )?;
    let linear = if k == 1 {
        wrapped
    } else {
        let weighted = op(coreai::MUL, wrapped, st)?;
        let mut summed_shape = id.clone();
        *summed_shape.last_mut().expect("rank ≥ 1") = 1;
        let last = int_vector(cx, &[id.len() as i64 - 1], "si32")?;
        let ty = tensor_type(&summed_shape, element_type(indices)?);
        cx.build_value(coreai::REDUCE_SUM, &[weighted, last], ty, &[])?
    };
    let m: i64 = id[..id.len() - 1].iter().product();
    let p: i64 = sizes.iter().product();
    let r: i64 = bd[k..].iter().product();
    let mut idx = reshape(cx, linear, &[m, 1])?;
    if r != 1 {
        let (s, a) = (shape(cx, &[r])?, int_vector(cx, &[1], "si32")?);
        let ty = tensor_type(&[m, r], element_type(idx)?);
        idx = cx.build_value(coreai::BROADCAST_IN_DIMS, &[idx, s, a], ty, &[])?;
    }
    let flat = reshape(cx, base, &[p, r])?;
    let upd = reshape(cx, updates, &[m, r])?;
    let axis = int_scalar(cx, 0, "si32")?;
    let mode = cx.parse_attribute("#coreai.scatter_mode<add>")?;
    let sum = cx.build_value(
        coreai::SCATTER_ALONG_AXIS,
        &[flat, idx, upd, axis],
        flat.r#type(),
        &[("scatter_mode", mode)],
    )?;
    reshape(cx, sum, &bd)
}

// aten.masked_fill.Scalar(%x, %mask) {value} → coreai.decomposable.broadcasting_where %mask, <value>, %x
// aten.masked_fill.Tensor(%x, %mask, %value) → ... %mask, (coreai.cast %value), %x
fn masked_fill<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let element = cx.result_tensor(0)?.element();
    let v = match cx.op().operand_count() {
        2 => splat(cx, cx.scalar("value")?, tensor_type(&[], element))?,
        _ => cast_to(cx, cx.operand(2)?, element)?,
    };
    let (x, mask) = (cx.operand(0)?, cx.operand(1)?);
    Ok(vec![select_to(cx, mask, v, x, cx.result_type(0)?)?])
}

// aten.masked_scatter(%x, %mask, %source): the k-th true element (row-major)
// takes source.flatten()[k]
//   → flat = where(mask, gather_along_axis(source.flatten(), max(cumsum(mask) - 1, 0), 0), x.flatten())
//     (coreai.scan <sum> for the cumsum), reshaped back.
//
// Dynamic shapes: the flat views infer their length (-1) and the result is
// reshaped to x's runtime shape; the mask must then have x's shape (its
// broadcast would need sizes).
fn masked_scatter<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let xd = type_dims(cx.operand(0)?.r#type())?;
    let sd = type_dims(cx.operand(2)?.r#type())?;
    let flat = |d: &[i64]| match d.contains(&DYNAMIC) {
        true => DYNAMIC,
        false => d.iter().product(),
    };
    let (n, sn) = (flat(&xd), flat(&sd));
    let x = reshape(cx, cx.operand(0)?, &[n])?;
    let mask = cx.operand(1)?;
    let mask = if n == DYNAMIC {
        let md = type_dims(mask.r#type())?;
        if md != xd {
            return Err(format!(
                "the mask {} is broadcast to the dynamic shape {}; this lowering needs the mask of that shape",
                mask.r#type(),
                cx.operand(0)?.r#type()
            ));
        }
        mask
    } else {
        broadcast(cx, mask, &xd)?
    };
    let mask = reshape(cx, mask, &[n])?;
    let source = cast_to(cx, cx.operand(2)?, element_type(x)?)?;
    let source = reshape(cx, source, &[sn])?;
    let si32 = cx.parse_type("si32")?;
    let counts = cast_to(cx, mask, si32)?;
    let (axis, reverse) = (int_scalar(cx, 0, "ui32")?, bool_scalar(cx, false)?);
    let sum = cx.integer_attribute(0, 32);
    let cumsum = cx.build_value(
        coreai::SCAN,
        &[counts, axis, reverse],
        counts.r#type(),
        &[("scan_op", sum)],
    )?;
    let one = int_scalar(cx, 1, "si32")?;
    let idx = broadcasting(cx, coreai::SUB, cumsum, one, counts.r#type())?;
    // Before the first true element the count is 0; clamp so the (unused)
    // gathered index stays in range.
    let zero = int_scalar(cx, 0, "si32")?;
    let idx = broadcasting(cx, coreai::MAXIMUM, idx, zero, counts.r#type())?;
    let picked = cx.build_value(
        coreai::GATHER_ALONG_AXIS,
        &[source, idx, zero],
        x.r#type(),
        &[],
    )?;
    let flat = select_to(cx, mask, picked, x, x.r#type())?;
    let extents = coreai_ir::emit::extents_of(cx.operand(0)?)?;
    Ok(vec![coreai_ir::emit::reshape_to(cx, flat, &xd, &extents)?])
}

/// `coreai.non_zero %x`: the `[n, rank]` si32 coordinates of the non-zero
/// elements (NaN counts, -0.0 does not, as in PyTorch), row-major.
fn non_zero<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let rank = cx.operand_tensor(0)?.rank() as i64;
    let ty = tensor_type(&[DYNAMIC, rank], cx.parse_type("si32")?);
    cx.build_value(coreai::NON_ZERO, &[cx.operand(0)?], ty, &[])
}

// aten.nonzero(%x) → coreai.cast (coreai.non_zero %x)   ([?, rank] si32 → si64)
fn nonzero<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let nz = non_zero(cx)?;
    Ok(vec![cast_to(cx, nz, cx.result_tensor(0)?.element())?])
}

// aten.nonzero_numpy(%x) → per dim d: coreai.shrink_dims (coreai.slice nz[:, d:d+1]), [1]
fn nonzero_numpy<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    if rank != cx.op().result_count() {
        return Err(format!(
            "{} results for a rank-{rank} tensor",
            cx.op().result_count()
        ));
    }
    let nz = non_zero(cx)?;
    let nz = cast_to(cx, nz, cx.result_tensor(0)?.element())?;
    (0..rank as i64)
        .map(|d| {
            let (s, e, st) = (
                int_vector(cx, &[0, d], "si32")?,
                int_vector(cx, &[i32::MAX as i64, d + 1], "si32")?,
                int_vector(cx, &[1, 1], "si32")?,
            );
            let ty = tensor_type(&[DYNAMIC, 1], element_type(nz)?);
            let column = cx.build_value(coreai::SLICE, &[nz, s, e, st], ty, &[])?;
            let a = int_vector(cx, &[1], "si32")?;
            cx.build_value(
                coreai::SHRINK_DIMS,
                &[column, a],
                cx.result_type(d as usize)?,
                &[],
            )
        })
        .collect()
}
