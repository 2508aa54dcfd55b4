//! Shape and layout ops (view, permute, slice, cat, pad ...) and tensor
//! creators (arange, full, scalar_tensor ...) → coreai.
//!
//! Forms follow coreai-torch 0.4.3: shapes, permutations, repeat counts and
//! paddings are `tensor<Nxui32>` constants, axes `tensor<Nxsi32>`, a single
//! dimension `tensor<si32>`, slice bounds `tensor<Nxsi32>` with 2^31-1 for
//! "to the end". Ops whose result is static become a `coreai.reshape` to the
//! result's shape where only unit dims change (unsqueeze, squeeze, select's
//! dropped dim), as coreai-torch's output does.
//!
//! Dynamic dims (`?`) pass through where a lowering does not need their
//! size: a reshape may have one (a `si32` shape with -1 there), unit dims are
//! added with `expand_dims` and removed with `shrink_dims`; creators (full, zeros,
//! ones, empty and their `_like` / `new_` forms, fill) of a dynamic shape
//! broadcast a rank-0 constant to the runtime shape, read from the op's
//! symbolic size operands or `coreai.get_shape` of its input; a lowering that
//! needs a dynamic size (a split or roll along it, expand of a unit dim to
//! it, a crop of it) declines with a reason.

use super::formulas::floor_div;
use coreai_ir::emit::constant;
use coreai_ir::emit::{arith, extents_of, fill, Extent};
use coreai_ir::emit::{
    axes, cast_to, fill_literal, int_scalar, reshape, shape, slice, slice_update, splat, transpose,
    TO_END,
};
use coreai_ir::lowering::{Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::{
    dims, element_type, int_attr, int_list_attr, named_operand, normalize_dim, opt_int_attr,
    shape_of, str_attr, tensor_type, DYNAMIC,
};
use melior::ir::{
    operation::OperationLike,
    r#type::{RankedTensorType, ShapedTypeLike},
    Type, Value, ValueLike,
};

pub static LOWERINGS: super::Family = &[
    ("_unsafe_view.default", view),
    ("alias.default", identity),
    ("arange.default", arange),
    ("arange.start", arange),
    ("arange.start_step", arange),
    ("cat.default", cat),
    ("clone.default", identity),
    ("constant_pad_nd.default", constant_pad_nd),
    ("contiguous.default", identity),
    ("copy.default", copy),
    ("detach.default", identity),
    ("diagonal.default", diagonal),
    ("empty.memory_format", zeros_of_result),
    ("empty_like.default", zeros_of_result),
    ("empty_permuted.default", zeros_of_result),
    ("empty_strided.default", zeros_of_result),
    ("expand.default", expand),
    ("fill.Scalar", fill_scalar),
    ("flatten.using_ints", view),
    ("flip.default", flip),
    ("full.default", full),
    ("full_like.default", full),
    ("lift_fresh_copy.default", identity),
    ("new_empty.default", zeros_of_result),
    ("new_full.default", full),
    ("new_ones.default", ones_of_result),
    ("new_zeros.default", zeros_of_result),
    ("ones.default", ones_of_result),
    ("ones_like.default", ones_of_result),
    ("permute.default", permute),
    ("pad.default", pad_default),
    ("pixel_shuffle.default", |cx| {
        super::composite::lower_composite(cx, pixel_shuffle, |cx| {
            let r = super::composite::OpAttr::Int(int_attr(cx, "upscale_factor")?);
            super::composite::of_input(cx, "pixel_shuffle", vec![("upscale_factor", r)])
        })
    }),
    ("pixel_unshuffle.default", pixel_unshuffle),
    ("reflection_pad1d.default", reflection_pad),
    ("reflection_pad2d.default", reflection_pad),
    ("reflection_pad3d.default", reflection_pad),
    ("repeat.default", repeat),
    ("repeat_interleave.self_int", repeat_interleave),
    ("replication_pad1d.default", replication_pad),
    ("replication_pad2d.default", replication_pad),
    ("replication_pad3d.default", replication_pad),
    ("reshape.default", view),
    ("roll.default", roll),
    ("scalar_tensor.default", scalar_tensor),
    ("select.int", select_int),
    ("select_scatter.default", select_scatter),
    ("slice.Tensor", slice_tensor),
    ("slice_scatter.default", slice_scatter),
    ("split.Tensor", split_tensor),
    ("split_with_sizes.default", split_with_sizes),
    ("squeeze.default", squeeze),
    ("squeeze.dim", squeeze),
    ("squeeze.dims", squeeze),
    ("stack.default", stack),
    ("t.default", t),
    ("tile.default", tile),
    ("transpose.int", transpose_int),
    ("unbind.int", unbind),
    ("unflatten.int", view),
    ("unsqueeze.default", unsqueeze),
    ("view.default", view),
    ("as_strided.default", as_strided),
    ("zeros.default", zeros_of_result),
    ("zeros_like.default", zeros_of_result),
    // The `_copy` variants (export's non-aliasing forms) and the `_as` forms
    // lower like their originals: the result type carries the shape.
    ("alias_copy.default", identity),
    ("detach_copy.default", identity),
    ("diagonal_copy.default", diagonal),
    ("expand_as.default", expand),
    ("expand_copy.default", expand),
    ("permute_copy.default", permute),
    ("reshape_as.default", view),
    ("select_copy.int", select_int),
    ("slice_copy.Tensor", slice_tensor),
    ("split_with_sizes_copy.default", split_with_sizes),
    ("squeeze_copy.dim", squeeze),
    ("squeeze_copy.dims", squeeze),
    ("t_copy.default", t),
    ("transpose_copy.int", transpose_int),
    ("unbind_copy.int", unbind),
    ("unsqueeze_copy.default", unsqueeze),
    ("view_as.default", view),
    ("view_copy.default", view),
];

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

/// The static dims of result `index`, or a decline naming the op's result.
fn result_dims(cx: &LoweringCx<'_, '_>, index: usize) -> Result<Vec<i64>, Decline> {
    let ty = cx.result_tensor(index)?;
    let d = dims(ty);
    if let Some(i) = d.iter().position(|&n| n == DYNAMIC) {
        return Err(format!(
            "dim {i} of the result type {ty} is dynamic; this lowering needs a static shape"
        ));
    }
    Ok(d)
}

/// `x` reshaped to the result type (see [`reshape`]), or `x` itself when it
/// already has that type.
fn reshape_to_result<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    reshape(cx, x, &dims(cx.result_tensor(0)?))
}

/// The dims of operand `index` (`DYNAMIC` for `?`), declining when one of
/// `needed` is dynamic.
fn dims_static_at(
    cx: &LoweringCx<'_, '_>,
    index: usize,
    needed: &[usize],
) -> Result<Vec<i64>, Decline> {
    let ty = cx.operand_tensor(index)?;
    let d = dims(ty);
    if let Some(&i) = needed.iter().find(|&&i| d.get(i) == Some(&DYNAMIC)) {
        return Err(format!(
            "dim {i} of {ty} is dynamic; this lowering needs its size"
        ));
    }
    Ok(d)
}

/// The whole of every dim except `dim`, which takes `(start, end, step)`.
fn one_dim_bounds(rank: usize, dim: usize, range: (i64, i64, i64)) -> Vec<(i64, i64, i64)> {
    (0..rank)
        .map(|d| if d == dim { range } else { (0, TO_END, 1) })
        .collect()
}

/// A PyTorch slice bound as a 32-bit coreai bound: coreai, like PyTorch,
/// wraps a negative bound once and clamps to the dim, so only the
/// magnitude needs clamping (`end = INT64_MAX` means "to the end").
fn clamp_bound(v: i64) -> i64 {
    v.clamp(-TO_END, TO_END)
}

// aten.alias/clone/contiguous/detach/lift_fresh_copy(%x) → %x
//
// Values are immutable in coreai: a copy is the value itself.
fn identity<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    if x.r#type() != cx.result_type(0)? {
        return Err(format!(
            "the operand type {} differs from the result type {}",
            x.r#type(),
            cx.result_type(0)?
        ));
    }
    Ok(vec![x])
}

// aten.view/_unsafe_view/reshape/flatten/unflatten(%x) → coreai.reshape %x, <result shape : ui32>
//   (one dynamic result dim: <shape with -1 there : si32>)
//
// The result type holds the size with -1 resolved. A view to symbolic sizes
// (`aten.operator "aten::view.default"(%x, %s0, ...)`, dynamic shapes) needs
// no sizes when the result has one dynamic dim: -1 infers it.
fn view<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let out = dims(cx.result_tensor(0)?);
    if out.iter().filter(|&&d| d == DYNAMIC).count() > 1 {
        return Ok(vec![symbolic_view(cx, &out)?]);
    }
    Ok(vec![reshape_to_result(cx, cx.operand(0)?)?])
}

// aten.as_strided.default(%x) {size, stride, storage_offset = 0} → coreai.reshape %x, <size>
//   when size and stride are a view of %x: the same element count, no
//   offset, and the row-major strides of size on every dim longer than 1
//   (PyTorch's adaptive-pooling decomposition restrides a channels-last
//   [N, C, 1, 1] this way; any stride of a size-1 dim addresses nothing).
//
// The program is functional: %x's elements are read in its logical
// (row-major) order. Other strides or an offset select, repeat or reorder
// elements (a gather, not a view) and decline.
fn as_strided<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let size =
        int_list_attr(cx, "size").map_err(|e| format!("as_strided needs static sizes ({e})"))?;
    let stride = int_list_attr(cx, "stride")
        .map_err(|e| format!("as_strided needs static strides ({e})"))?;
    let offset = if cx.op().attribute("storage_offset").is_ok() {
        int_attr(cx, "storage_offset")?
    } else {
        0
    };
    if size.len() != stride.len() {
        return Err(format!(
            "size {size:?} and stride {stride:?} differ in rank"
        ));
    }
    let input = dims(cx.operand_tensor(0)?);
    if input.contains(&DYNAMIC) {
        return Err(format!(
            "the input {input:?} has a dynamic dim; as_strided lowers only static views"
        ));
    }
    let view = offset == 0
        && size.iter().product::<i64>() == input.iter().product::<i64>()
        && size
            .iter()
            .zip(&stride)
            .enumerate()
            .all(|(i, (&n, &s))| n == 1 || s == size[i + 1..].iter().product::<i64>());
    if !view {
        return Err(format!(
            "size {size:?}, stride {stride:?}, storage_offset {offset} is not a view of the input {input:?} in row-major order; only such as_strided ops lower"
        ));
    }
    Ok(vec![reshape_to_result(cx, cx.operand(0)?)?])
}

// aten.operator "aten::view.default"(%x, %s0, ..., %sk)  (two or more symbolic sizes)
//   → coreai.reshape %x, (coreai.concat of the sizes, cast to si32)
//
// One size operand per result dim (rank-0: a symbolic size, or a constant
// that may be -1, which coreai.reshape infers from a si32 shape as view
// does); a static result dim is taken from the type.
fn symbolic_view<'c, 'a>(cx: &LoweringCx<'c, 'a>, out: &[i64]) -> Result<Value<'c, 'a>, Decline> {
    let n = cx.op().operand_count();
    let sized = n == out.len() + 1
        && (1..n).all(|i| cx.operand_tensor(i).map(|t| t.rank()).ok() == Some(0));
    if !sized {
        return Err(format!(
            "the result {} has {} dynamic dims and the view carries no symbolic size of them",
            cx.result_type(0)?,
            out.iter().filter(|&&d| d == DYNAMIC).count()
        ));
    }
    let extents: Vec<Extent> = (0..out.len())
        .map(|d| {
            Ok(match out[d] {
                DYNAMIC => Extent::Scalar(cx.operand(d + 1)?),
                n => Extent::Static(n),
            })
        })
        .collect::<Result<_, Decline>>()?;
    let s = coreai_ir::emit::runtime_shape(cx, &extents, "si32")?;
    cx.build_value(
        coreai::RESHAPE,
        &[cx.operand(0)?, s],
        cx.result_type(0)?,
        &[],
    )
}

// aten.permute(%x) {dims} → coreai.transpose %x, <dims : ui32>
fn permute<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let perm = int_list_attr(cx, "dims")?
        .into_iter()
        .map(|d| normalize_dim(d, rank))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(vec![transpose(cx, cx.operand(0)?, &perm)?])
}

// aten.transpose.int(%x) {dim0, dim1} → coreai.transpose %x, <swap : ui32>
fn transpose_int<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    if rank < 2 {
        return identity(cx);
    }
    let a = normalize_dim(int_attr(cx, "dim0")?, rank)?;
    let b = normalize_dim(int_attr(cx, "dim1")?, rank)?;
    let mut perm: Vec<usize> = (0..rank).collect();
    perm.swap(a, b);
    Ok(vec![transpose(cx, cx.operand(0)?, &perm)?])
}

// aten.t(%x) → coreai.transpose %x, [1, 0]   (rank < 2: %x)
fn t<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    if cx.operand_tensor(0)?.rank() < 2 {
        return identity(cx);
    }
    Ok(vec![transpose(cx, cx.operand(0)?, &[1, 0])?])
}

// aten.unsqueeze(%x) {dim} → coreai.reshape %x, <result shape>      (static)
//                          → coreai.expand_dims %x, <[dim] : si32>  (dynamic)
fn unsqueeze<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    if !dims(cx.result_tensor(0)?).contains(&DYNAMIC) {
        return Ok(vec![reshape_to_result(cx, x)?]);
    }
    let rank = cx.operand_tensor(0)?.rank() + 1;
    let dim = normalize_dim(int_attr(cx, "dim")?, rank)? as i64;
    let a = axes(cx, &[dim])?;
    Ok(vec![cx.build_value(
        coreai::EXPAND_DIMS,
        &[x, a],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.squeeze.{default,dim,dims}(%x) → coreai.reshape %x, <result shape>  (static)
//                                     → coreai.shrink_dims %x, <unit dims : si32> (dynamic)
//
// Only dims of static size 1 are removed, as in PyTorch.
fn squeeze<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    if !dims(cx.result_tensor(0)?).contains(&DYNAMIC) {
        return Ok(vec![reshape_to_result(cx, x)?]);
    }
    let d = dims(cx.operand_tensor(0)?);
    let listed: Vec<usize> = match cx.op().attribute("dim") {
        Err(_) => (0..d.len()).collect(),
        Ok(_) => match int_list_attr(cx, "dim") {
            Ok(list) => list
                .into_iter()
                .map(|v| normalize_dim(v, d.len()))
                .collect::<Result<_, _>>()?,
            Err(_) => vec![normalize_dim(int_attr(cx, "dim")?, d.len())?],
        },
    };
    let unit: Vec<i64> = listed
        .into_iter()
        .filter(|&i| d[i] == 1)
        .map(|i| i as i64)
        .collect();
    if unit.is_empty() {
        return identity(cx);
    }
    let a = axes(cx, &unit)?;
    Ok(vec![cx.build_value(
        coreai::SHRINK_DIMS,
        &[x, a],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.expand(%x) {size} → coreai.broadcast_in_dims (%x with unit dims added in front:
//   coreai.reshape, or coreai.expand_dims when %x is dynamic), <sizes : ui32>, <axes : si32>
//
// Only unit dims that grow to a static size are broadcast; dynamic dims
// must stay as they are (-1 in `size`).
fn expand<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let mut x = cx.operand(0)?;
    let in_ty = cx.operand_tensor(0)?;
    let in_dims = dims(in_ty);
    let out = dims(cx.result_tensor(0)?);
    if out.len() < in_dims.len() {
        return Err("expand cannot lower the rank".into());
    }
    let lead = out.len() - in_dims.len();
    let mut padded = vec![1; lead];
    padded.extend(&in_dims);
    if lead > 0 && in_dims.contains(&DYNAMIC) {
        let a = axes(cx, &(0..lead as i64).collect::<Vec<_>>())?;
        let ty = tensor_type(&padded, in_ty.element());
        x = cx.build_value(coreai::EXPAND_DIMS, &[x, a], ty, &[])?;
    } else if lead > 0 {
        x = reshape(cx, x, &padded)?;
    }
    let symbolic = padded
        .iter()
        .zip(&out)
        .any(|(&from, &to)| from == 1 && to == DYNAMIC);
    if symbolic {
        return Ok(vec![expand_symbolic(cx, x, &padded, &out)?]);
    }
    let (mut ax, mut sizes) = (Vec::new(), Vec::new());
    for (i, (&from, &to)) in padded.iter().zip(&out).enumerate() {
        if from == to {
            continue;
        }
        if from != 1 || to == DYNAMIC {
            let show = |d: i64| {
                if d == DYNAMIC {
                    "?".to_string()
                } else {
                    d.to_string()
                }
            };
            return Err(format!(
                "cannot expand size {} to {} in dim {i}",
                show(from),
                show(to)
            ));
        }
        ax.push(i as i64);
        sizes.push(to);
    }
    if ax.is_empty() {
        return Ok(vec![x]);
    }
    let (s, a) = (shape(cx, &sizes)?, axes(cx, &ax)?);
    Ok(vec![cx.build_value(
        coreai::BROADCAST_IN_DIMS,
        &[x, s, a],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.operator "aten::expand.default"(%x, %s0, ..., %sk)  (a unit dim expanded to a symbolic size)
//   → coreai.broadcast_to %x', <runtime shape: the size operands there, the
//     input's own sizes elsewhere> : ui32
fn expand_symbolic<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    padded: &[i64],
    out: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    let n = cx.op().operand_count();
    let sized = n == out.len() + 1
        && (1..n).all(|i| cx.operand_tensor(i).map(|t| t.rank()).ok() == Some(0));
    let extents: Vec<Extent> = (0..out.len())
        .map(|i| match (padded[i], out[i]) {
            (_, to) if to != DYNAMIC => Ok(Extent::Static(to)),
            (DYNAMIC, _) => Ok(Extent::DimOf(x, i)),
            _ if sized => Ok(Extent::Scalar(cx.operand(i + 1)?)),
            _ => Err(format!(
                "dim {i} expands from 1 to a dynamic size the op does not carry (no symbolic size operand)"
            )),
        })
        .collect::<Result<_, Decline>>()?;
    let s = coreai_ir::emit::runtime_shape(cx, &extents, "ui32")?;
    cx.build_value(coreai::BROADCAST_TO, &[x, s], cx.result_type(0)?, &[])
}

// aten.copy(%self, %src) → coreai.broadcast_to (coreai.cast %src), <self shape : ui32>
//   (dynamic self: the shape from coreai.get_shape %self)
//
// The result has self's shape and dtype and src's values.
fn copy<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let src = cast_to(cx, cx.operand(1)?, cx.result_tensor(0)?.element())?;
    if src.r#type() == cx.result_type(0)? {
        return Ok(vec![src]);
    }
    let out = dims(cx.result_tensor(0)?);
    let s = if out.contains(&DYNAMIC) {
        coreai_ir::emit::runtime_shape(cx, &extents_of(cx.operand(0)?)?, "ui32")?
    } else {
        shape(cx, &out)?
    };
    Ok(vec![cx.build_value(
        coreai::BROADCAST_TO,
        &[src, s],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.slice.Tensor(%x) {dim, start, end, step}
//   → coreai.slice %x, <starts>, <ends>, <steps>  (si32; 0 / 2^31-1 / 1 on other dims)
// aten.operator "aten::slice.Tensor"(%x, %start?, %end?) {dim, step} (symbolic or `.item()` bounds)
//   → coreai.slice %x, (coreai.concat of the constants and each bound clamped to ±(2^31-1), cast to si32), ...
fn slice_tensor<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let range = slice_range(cx)?;
    let dim = normalize_dim(int_attr(cx, "dim")?, rank)?;
    Ok(vec![slice_along(
        cx,
        cx.operand(0)?,
        None,
        dim,
        range,
        cx.result_type(0)?,
    )?])
}

/// A slice bound along one dim: known when the op is built, or a rank-0
/// integer tensor computed at run time (a symbolic size, an `.item()`).
#[derive(Clone, Copy)]
enum Bound<'c, 'a> {
    Known(i64),
    Runtime(Value<'c, 'a>),
}

/// Schema argument `name` of slice.Tensor / slice_scatter: its operand
/// (symbolic), else its attribute, else `default` (PyTorch's `None`).
fn bound<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    name: &str,
    default: i64,
) -> Result<Bound<'c, 'a>, Decline> {
    if let Some(v) = named_operand(cx, name)? {
        return Ok(Bound::Runtime(v));
    }
    Ok(Bound::Known(clamp_bound(
        opt_int_attr(cx, name)?.unwrap_or(default),
    )))
}

/// `(start, end, step)` of slice.Tensor / slice_scatter; the step must be
/// known.
fn slice_range<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
) -> Result<(Bound<'c, 'a>, Bound<'c, 'a>, i64), Decline> {
    if named_operand(cx, "step")?.is_some() {
        return Err("a symbolic slice step is not supported (start and end may be)".into());
    }
    let step = int_attr(cx, "step")?;
    if step <= 0 {
        return Err(format!("slice step must be positive, got {step}"));
    }
    Ok((
        bound(cx, "start", 0)?,
        bound(cx, "end", i64::MAX)?,
        step.min(TO_END),
    ))
}

/// A run-time bound as a 32-bit coreai bound: clamped to ±(2^31-1) in
/// 64 bits first, so a huge value keeps its meaning (coreai wraps a negative
/// bound once and clamps to the dim, as PyTorch does).
fn runtime_bound<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let v = cast_to(cx, v, cx.parse_type("si64")?)?;
    let lo = int_scalar(cx, -TO_END, "si64")?;
    let hi = int_scalar(cx, TO_END, "si64")?;
    arith(cx, coreai::MINIMUM, arith(cx, coreai::MAXIMUM, v, lo)?, hi)
}

/// `coreai.slice %x` (or `coreai.slice_update %x with update`) taking
/// `(start, end, step)` along `dim` and every other dim whole; run-time
/// bounds join the constant ones in a `coreai.concat`.
fn slice_along<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    update: Option<Value<'c, 'a>>,
    dim: usize,
    (start, end, step): (Bound<'c, 'a>, Bound<'c, 'a>, i64),
    result: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let rank = shape_of(x)?.len();
    if let (Bound::Known(a), Bound::Known(b)) = (start, end) {
        let bounds = one_dim_bounds(rank, dim, (a, b, step));
        return match update {
            Some(u) => slice_update(cx, x, u, &bounds, result),
            None => slice(cx, x, &bounds, result),
        };
    }
    let vector = |b: Bound<'c, 'a>, other: i64| -> Result<Value<'c, 'a>, Decline> {
        let mut extents = vec![Extent::Static(other); rank];
        extents[dim] = match b {
            Bound::Known(v) => Extent::Static(v),
            Bound::Runtime(v) => Extent::Scalar(runtime_bound(cx, v)?),
        };
        coreai_ir::emit::runtime_shape(cx, &extents, "si32")
    };
    let starts = vector(start, 0)?;
    let ends = vector(end, TO_END)?;
    let mut steps = vec![1; rank];
    steps[dim] = step;
    let steps = axes(cx, &steps)?;
    match update {
        Some(u) => cx.build_value(
            coreai::SLICE_UPDATE,
            &[x, starts, ends, steps, u],
            result,
            &[],
        ),
        None => cx.build_value(coreai::SLICE, &[x, starts, ends, steps], result, &[]),
    }
}

/// `[index, index + 1)` along a dim, for select: -1 is "to the end", other
/// negative indices wrap like their end bound.
fn select_range(index: i64) -> (i64, i64, i64) {
    let end = if index == -1 { TO_END } else { index + 1 };
    (clamp_bound(index), clamp_bound(end), 1)
}

/// select's index as `[start, end)` bounds: a known index by
/// [`select_range`]; a run-time one wrapped into `[0, n)` first (`i - n *
/// floor(i / n)`, exact for the indices PyTorch accepts, `-n <= i < n`).
fn select_bounds<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    dim: usize,
) -> Result<(Bound<'c, 'a>, Bound<'c, 'a>, i64), Decline> {
    let Some(i) = named_operand(cx, "index")? else {
        let (a, b, s) = select_range(int_attr(cx, "index")?);
        return Ok((Bound::Known(a), Bound::Known(b), s));
    };
    let si64 = cx.parse_type("si64")?;
    let i = cast_to(cx, i, si64)?;
    let n = match shape_of(x)?[dim] {
        DYNAMIC => {
            let s = coreai_ir::emit::get_shape(cx, x)?;
            let ui32 = element_type(s)?;
            let one = slice(
                cx,
                s,
                &[(dim as i64, dim as i64 + 1, 1)],
                tensor_type(&[1], ui32),
            )?;
            cast_to(cx, reshape(cx, one, &[])?, si64)?
        }
        n => int_scalar(cx, n, "si64")?,
    };
    let wrapped = arith(
        cx,
        coreai::SUB,
        i,
        arith(cx, coreai::MUL, n, floor_div(cx, i, n)?)?,
    )?;
    let next = arith(cx, coreai::ADD, wrapped, int_scalar(cx, 1, "si64")?)?;
    Ok((Bound::Runtime(wrapped), Bound::Runtime(next), 1))
}

// aten.select.int(%x) {dim, index} → coreai.slice (index : index+1 on dim), then
//   coreai.reshape to the result (static) / coreai.shrink_dims <[dim]> (dynamic)
// aten.operator "aten::select.int"(%x, %index) {dim} (a symbolic or `.item()` index)
//   → the same with the index wrapped at run time (see `select_bounds`)
fn select_int<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let in_ty = cx.operand_tensor(0)?;
    let rank = in_ty.rank();
    let dim = normalize_dim(int_attr(cx, "dim")?, rank)?;
    let mut kept = dims(in_ty);
    if named_operand(cx, "index")?.is_none() {
        let index = int_attr(cx, "index")?;
        if kept[dim] != DYNAMIC && (index >= kept[dim] || index < -kept[dim]) {
            return Err(format!(
                "index {index} is out of range for dim {dim} of size {}",
                kept[dim]
            ));
        }
    }
    let range = select_bounds(cx, cx.operand(0)?, dim)?;
    kept[dim] = 1;
    let sliced = slice_along(
        cx,
        cx.operand(0)?,
        None,
        dim,
        range,
        tensor_type(&kept, in_ty.element()),
    )?;
    if !dims(cx.result_tensor(0)?).contains(&DYNAMIC) {
        return Ok(vec![reshape_to_result(cx, sliced)?]);
    }
    let a = axes(cx, &[dim as i64])?;
    Ok(vec![cx.build_value(
        coreai::SHRINK_DIMS,
        &[sliced, a],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.slice_scatter(%x, %src) {dim, start, end, step}
//   → coreai.slice_update %x with %src at (<starts>, <ends>, <steps>)
//   (symbolic start / end: run-time bounds as in slice.Tensor)
fn slice_scatter<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let dim = normalize_dim(int_attr(cx, "dim")?, rank)?;
    let range = slice_range(cx)?;
    let src = named_operand(cx, "src")?.map_or_else(|| cx.operand(1), Ok)?;
    let src = cast_to(cx, src, cx.result_tensor(0)?.element())?;
    Ok(vec![slice_along(
        cx,
        cx.operand(0)?,
        Some(src),
        dim,
        range,
        cx.result_type(0)?,
    )?])
}

// aten.select_scatter(%x, %src) {dim, index}
//   → coreai.slice_update %x with (coreai.reshape %src, <unit dim at dim>) at (index : index+1)
fn select_scatter<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let mut d = dims(cx.operand_tensor(0)?);
    let dim = normalize_dim(int_attr(cx, "dim")?, d.len())?;
    let x = cx.operand(0)?;
    let src = named_operand(cx, "src")?.map_or_else(|| cx.operand(1), Ok)?;
    let range = select_bounds(cx, x, dim)?;
    d[dim] = 1;
    let src = cast_to(cx, src, cx.result_tensor(0)?.element())?;
    let src = reshape(cx, src, &d)?;
    Ok(vec![slice_along(
        cx,
        x,
        Some(src),
        dim,
        range,
        cx.result_type(0)?,
    )?])
}

// aten.cat(%a, %b, ...) {dim} → coreai.concat <dim : si32>, %a, %b, ...
//
// Inputs are cast to the result dtype (cat promotes); empty inputs (PyTorch
// still accepts 1-D empty tensors of any other rank) are left out.
fn cat<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = cx.result_tensor(0)?;
    let rank = result.rank();
    let dim = normalize_dim(int_attr(cx, "dim")?, rank)?;
    let mut inputs = Vec::new();
    for i in 0..cx.op().operand_count() {
        let d = dims(cx.operand_tensor(i)?);
        if d.contains(&0) {
            continue;
        }
        inputs.push(cast_to(cx, cx.operand(i)?, result.element())?);
    }
    concat(cx, dim, inputs)
}

/// `coreai.concat <dim : si32>, inputs` to the result type (one input: itself).
fn concat<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    dim: usize,
    inputs: Vec<Value<'c, 'a>>,
) -> Lowered<'c, 'a> {
    match inputs.len() {
        0 => Err("every input of the concatenation is empty".into()),
        1 if inputs[0].r#type() == cx.result_type(0)? => Ok(inputs),
        _ => Ok(vec![coreai_ir::emit::concat(
            cx,
            dim as i64,
            &inputs,
            cx.result_type(0)?,
        )?]),
    }
}

// aten.stack(%a, %b, ...) {dim} → coreai.concat <dim>, (coreai.reshape %a, <unit dim at dim>), ...
fn stack<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let result = cx.result_tensor(0)?;
    let dim = normalize_dim(int_attr(cx, "dim")?, result.rank())?;
    let mut inputs = Vec::new();
    for i in 0..cx.op().operand_count() {
        let mut d = dims(cx.operand_tensor(i)?);
        d.insert(dim, 1);
        let x = cast_to(cx, cx.operand(i)?, result.element())?;
        inputs.push(reshape(cx, x, &d)?);
    }
    concat(cx, dim, inputs)
}

/// `coreai.split %x, <sizes : ui32>, <dim : si32>` into the op's results.
fn split<'c, 'a>(cx: &LoweringCx<'c, 'a>, sizes: &[i64], dim: usize) -> Lowered<'c, 'a> {
    let results: Vec<Type<'c>> = (0..cx.op().result_count())
        .map(|i| cx.result_type(i))
        .collect::<Result<_, _>>()?;
    if results.len() != sizes.len() {
        return Err(format!(
            "{} split sizes for {} results",
            sizes.len(),
            results.len()
        ));
    }
    let (s, d) = (shape(cx, sizes)?, int_scalar(cx, dim as i64, "si32")?);
    let op = cx.build(coreai::SPLIT, &[cx.operand(0)?, s, d], &results, &[])?;
    (0..results.len())
        .map(|i| {
            op.result(i)
                .map(Into::into)
                .map_err(|_| format!("{} has too few results", coreai::SPLIT))
        })
        .collect()
}

// aten.split_with_sizes(%x) {split_sizes, dim} → coreai.split %x, <sizes : ui32>, <dim : si32>
fn split_with_sizes<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let dim = normalize_dim(int_attr(cx, "dim")?, cx.operand_tensor(0)?.rank())?;
    split(cx, &int_list_attr(cx, "split_sizes")?, dim)
}

// aten.split.Tensor(%x) {split_size, dim} → coreai.split %x, <[k, k, ..., rest] : ui32>, <dim>
fn split_tensor<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let dim = normalize_dim(int_attr(cx, "dim")?, rank)?;
    let d = dims_static_at(cx, 0, &[dim])?;
    let k = int_attr(cx, "split_size")?;
    if k <= 0 {
        return Err(format!("split size must be positive, got {k}"));
    }
    let n = d[dim];
    let sizes: Vec<i64> = (0..n.div_euclid(k) + i64::from(n % k != 0))
        .map(|i| k.min(n - i * k))
        .collect();
    let sizes = if sizes.is_empty() { vec![0] } else { sizes };
    split(cx, &sizes, dim)
}

// aten.unbind.int(%x) {dim} → coreai.split %x, <[1, ..., 1]>, <dim>, each coreai.reshape'd
fn unbind<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let dim = normalize_dim(int_attr(cx, "dim")?, rank)?;
    let d = dims_static_at(cx, 0, &[dim])?;
    let mut piece = d.clone();
    piece[dim] = 1;
    let ty = tensor_type(&piece, cx.operand_tensor(0)?.element());
    let n = d[dim] as usize;
    if n != cx.op().result_count() {
        return Err(format!("{n} slices for {} results", cx.op().result_count()));
    }
    let (s, a) = (shape(cx, &vec![1; n])?, int_scalar(cx, dim as i64, "si32")?);
    let op = cx.build(coreai::SPLIT, &[cx.operand(0)?, s, a], &vec![ty; n], &[])?;
    (0..n)
        .map(|i| {
            let part: Value = op.result(i).map_err(|_| "missing split result")?.into();
            reshape(cx, part, &dims(cx.result_tensor(i)?))
        })
        .collect()
}

// aten.flip(%x) {dims} → coreai.reverse %x, <dims : si32>
fn flip<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let ds: Vec<i64> = int_list_attr(cx, "dims")?
        .into_iter()
        .map(|d| normalize_dim(d, rank).map(|d| d as i64))
        .collect::<Result<_, _>>()?;
    if ds.is_empty() {
        return identity(cx);
    }
    let a = axes(cx, &ds)?;
    Ok(vec![cx.build_value(
        coreai::REVERSE,
        &[cx.operand(0)?, a],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.roll(%x) {shifts, dims} → per dim: coreai.concat (slice [n-s:]), (slice [:n-s])
//   (no dims: the same on the flattened tensor, reshaped back)
fn roll<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let shifts = int_list_attr(cx, "shifts")?;
    let ds = int_list_attr(cx, "dims")?
        .into_iter()
        .map(|dim| normalize_dim(dim, rank))
        .collect::<Result<Vec<_>, _>>()?;
    let needed: Vec<usize> = if ds.is_empty() {
        (0..rank).collect()
    } else {
        ds.clone()
    };
    let d = dims_static_at(cx, 0, &needed)?;
    let mut x = cx.operand(0)?;
    if ds.is_empty() {
        let [s] = shifts[..] else {
            return Err("roll without dims takes exactly one shift".into());
        };
        let flat = reshape(cx, x, &[d.iter().product()])?;
        let rolled = roll_dim(cx, flat, s, 0)?;
        return Ok(vec![reshape_to_result(cx, rolled)?]);
    }
    if shifts.len() != ds.len() {
        return Err(format!("{} shifts for {} dims", shifts.len(), ds.len()));
    }
    for (&s, &dim) in shifts.iter().zip(&ds) {
        x = roll_dim(cx, x, s, dim)?;
    }
    Ok(vec![x])
}

/// `x` rolled by `shift` along `dim` (static size).
fn roll_dim<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    shift: i64,
    dim: usize,
) -> Result<Value<'c, 'a>, Decline> {
    let ty = RankedTensorType::try_from(x.r#type()).map_err(|_| "not a ranked tensor")?;
    let d = dims(ty);
    let n = d[dim];
    let s = if n == 0 { 0 } else { shift.rem_euclid(n) };
    if s == 0 {
        return Ok(x);
    }
    let part = |from: i64, to: i64| {
        let mut pd = d.clone();
        pd[dim] = to - from;
        let b = one_dim_bounds(d.len(), dim, (from, to, 1));
        slice(cx, x, &b, tensor_type(&pd, ty.element()))
    };
    let (tail, head) = (part(n - s, n)?, part(0, n - s)?);
    let dimv = int_scalar(cx, dim as i64, "si32")?;
    cx.build_value(coreai::CONCAT, &[dimv, tail, head], x.r#type(), &[])
}

// aten.diagonal(%x) {offset, dim1, dim2}: x[..., i, i + offset] over the other dims
//   → coreai.transpose (dim1, dim2 last), coreai.reshape [..., n1·n2],
//     coreai.slice from the first diagonal element in steps of n2 + 1
fn diagonal<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let d1 = normalize_dim(int_attr(cx, "dim1")?, rank)?;
    let d2 = normalize_dim(int_attr(cx, "dim2")?, rank)?;
    if d1 == d2 {
        return Err("diagonal dimensions cannot be identical".into());
    }
    let d = dims_static_at(cx, 0, &[d1, d2])?;
    let offset = int_attr(cx, "offset")?;
    let (n1, n2) = (d[d1], d[d2]);
    let len = if offset >= 0 {
        n1.min(n2 - offset)
    } else {
        (n1 + offset).min(n2)
    }
    .max(0);
    let mut perm: Vec<usize> = (0..rank).filter(|&i| i != d1 && i != d2).collect();
    perm.extend([d1, d2]);
    let x = transpose(cx, cx.operand(0)?, &perm)?;
    let mut flat: Vec<i64> = perm[..rank - 2].iter().map(|&i| d[i]).collect();
    flat.push(n1 * n2);
    let x = reshape(cx, x, &flat)?;
    let start = if offset >= 0 { offset } else { -offset * n2 };
    let end = if len == 0 {
        start
    } else {
        start + (len - 1) * (n2 + 1) + 1
    };
    let bounds = one_dim_bounds(rank - 1, rank - 2, (start, end, n2 + 1));
    Ok(vec![slice(cx, x, &bounds, cx.result_type(0)?)?])
}

// aten.repeat(%x) {repeats} → coreai.tile (coreai.reshape %x to the repeat rank), <repeats : ui32>
fn repeat<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    tile_to(cx, int_list_attr(cx, "repeats")?)
}

// aten.tile(%x) {dims} → aten.repeat with dims padded with leading 1s to the rank
fn tile<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let mut reps = int_list_attr(cx, "dims")?;
    if reps.len() < rank {
        let mut padded = vec![1; rank - reps.len()];
        padded.extend(reps);
        reps = padded;
    }
    tile_to(cx, reps)
}

/// `coreai.tile` of operand 0 by `reps` (at least its rank; extra leading
/// dims are added as unit dims first).
fn tile_to<'c, 'a>(cx: &LoweringCx<'c, 'a>, reps: Vec<i64>) -> Lowered<'c, 'a> {
    let d = dims(cx.operand_tensor(0)?);
    if reps.len() < d.len() {
        return Err(format!(
            "{} repeats for a rank-{} tensor",
            reps.len(),
            d.len()
        ));
    }
    let mut x = cx.operand(0)?;
    if reps.len() > d.len() {
        let mut padded = vec![1; reps.len() - d.len()];
        padded.extend(&d);
        x = reshape(cx, x, &padded)?;
    }
    let r = shape(cx, &reps)?;
    Ok(vec![cx.build_value(
        coreai::TILE,
        &[x, r],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.pixel_shuffle(%x) {upscale_factor = r}: [*, C·r², H, W] → [*, C, H·r, W·r]
//   (in coreai-torch's pixel_shuffle composite {upscale_factor}: composite.rs)
//   → coreai.reshape [*, C, r, r, H, W], coreai.transpose [*, C, H, r, W, r], coreai.reshape
//   (dynamic H or W: the shapes built at run time from coreai.get_shape %x)
fn pixel_shuffle<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let r = int_attr(cx, "upscale_factor")?;
    let d = channel_dims(cx)?;
    let [.., c, _, _] = d[..] else {
        return Err("pixel_shuffle needs a tensor of rank 3 or more".into());
    };
    if r <= 0 || c % (r * r) != 0 {
        return Err(format!("{c} channels are not divisible by {r}²"));
    }
    let lead = d.len() - 3;
    let x = cx.operand(0)?;
    let e = extents_of(x)?;
    let (h, w) = (e[lead + 1], e[lead + 2]);
    let mut split = e[..lead].to_vec();
    split.extend([
        Extent::Static(c / (r * r)),
        Extent::Static(r),
        Extent::Static(r),
        h,
        w,
    ]);
    let x = reshape_extents(cx, x, &split)?;
    let mut perm: Vec<usize> = (0..lead).collect();
    perm.extend([lead, lead + 3, lead + 1, lead + 4, lead + 2]);
    let x = transpose(cx, x, &perm)?;
    let mut out = e[..lead].to_vec();
    out.extend([
        Extent::Static(c / (r * r)),
        scaled(cx, h, r, coreai::MUL)?,
        scaled(cx, w, r, coreai::MUL)?,
    ]);
    Ok(vec![reshape_extents(cx, x, &out)?])
}

// aten.pixel_unshuffle(%x) {downscale_factor = r}: [*, C, H·r, W·r] → [*, C·r², H, W]
//   → coreai.reshape [*, C, H, r, W, r], coreai.transpose [*, C, r, r, H, W], coreai.reshape
//   (dynamic H or W as in pixel_shuffle)
fn pixel_unshuffle<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let r = int_attr(cx, "downscale_factor")?;
    let d = channel_dims(cx)?;
    let [.., c, h, w] = d[..] else {
        return Err("pixel_unshuffle needs a tensor of rank 3 or more".into());
    };
    let divides = |n: i64| n == DYNAMIC || n % r == 0;
    if r <= 0 || !divides(h) || !divides(w) {
        return Err(format!("the spatial size {h}x{w} is not divisible by {r}"));
    }
    let lead = d.len() - 3;
    let x = cx.operand(0)?;
    let e = extents_of(x)?;
    let (h, w) = (
        scaled(cx, e[lead + 1], r, coreai::FLOOR_DIVIDE)?,
        scaled(cx, e[lead + 2], r, coreai::FLOOR_DIVIDE)?,
    );
    let mut split = e[..lead].to_vec();
    split.extend([
        Extent::Static(c),
        h,
        Extent::Static(r),
        w,
        Extent::Static(r),
    ]);
    let x = reshape_extents(cx, x, &split)?;
    let mut perm: Vec<usize> = (0..lead).collect();
    perm.extend([lead, lead + 2, lead + 4, lead + 1, lead + 3]);
    let x = transpose(cx, x, &perm)?;
    let mut out = e[..lead].to_vec();
    out.extend([Extent::Static(c * r * r), h, w]);
    Ok(vec![reshape_extents(cx, x, &out)?])
}

/// The dims of operand 0, its channel dim (third from last) static.
fn channel_dims(cx: &LoweringCx<'_, '_>) -> Result<Vec<i64>, Decline> {
    let rank = cx.operand_tensor(0)?.rank();
    dims_static_at(cx, 0, &[rank.saturating_sub(3)])
}

/// `n` `op` (`mul`, `floor_divide`) `r`: a static size, or a run-time one
/// (a rank-0 si32 computed from `coreai.get_shape`).
fn scaled<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    n: Extent<'c, 'a>,
    r: i64,
    op: &str,
) -> Result<Extent<'c, 'a>, Decline> {
    Ok(match n {
        Extent::Static(n) if op == coreai::MUL => Extent::Static(n * r),
        Extent::Static(n) => Extent::Static(n / r),
        Extent::DimOf(x, d) => {
            let size = coreai_ir::emit::dim_scalar(cx, x, d, "si32")?;
            Extent::Scalar(arith(cx, op, size, int_scalar(cx, r, "si32")?)?)
        }
        Extent::Scalar(v) => Extent::Scalar(arith(cx, op, v, int_scalar(cx, r, "si32")?)?),
    })
}

/// `x` reshaped to the sizes `extents` (a shape built at run time when two
/// or more are not static).
fn reshape_extents<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    extents: &[Extent<'c, 'a>],
) -> Result<Value<'c, 'a>, Decline> {
    let to: Vec<i64> = extents
        .iter()
        .map(|e| match e {
            Extent::Static(n) => *n,
            _ => DYNAMIC,
        })
        .collect();
    coreai_ir::emit::reshape_to(cx, x, &to, extents)
}

/// PyTorch's pad list (pairs for the last dim first) as coreai's
/// `(before, after)` per dim in dim order, for a rank-`rank` tensor.
fn pads_in_dim_order(torch: &[i64], rank: usize) -> Result<Vec<i64>, Decline> {
    if !torch.len().is_multiple_of(2) || torch.len() / 2 > rank {
        return Err(format!(
            "{} pad values for a rank-{rank} tensor",
            torch.len()
        ));
    }
    let mut pads = vec![0; 2 * rank];
    for (i, pair) in torch.chunks(2).enumerate() {
        let dim = rank - 1 - i;
        pads[2 * dim] = pair[0];
        pads[2 * dim + 1] = pair[1];
    }
    Ok(pads)
}

/// `coreai.pad %x, <pads : ui32>, %value mode = <mode>` to the result type.
fn pad<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    pads: &[i64],
    value: Scalar,
    mode: &str,
) -> Result<Value<'c, 'a>, Decline> {
    let element = cx.result_tensor(0)?.element();
    let v = splat(cx, value, tensor_type(&[], element))?;
    let p = shape(cx, pads)?;
    let m = cx.parse_attribute(&format!("#coreai.padding_mode<{mode}>"))?;
    cx.build_value(
        coreai::PAD,
        &[x, p, v],
        cx.result_type(0)?,
        &[("padding_mode", m)],
    )
}

// aten.constant_pad_nd(%x) {pad, value} → coreai.pad %x, <pads : ui32>, <value> mode = <constant>
//
// Negative pads crop first, with a coreai.slice.
fn constant_pad_nd<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    constant_pad(cx, &int_list_attr(cx, "pad")?, cx.scalar("value")?)
}

/// Constant padding by PyTorch's pad list (negative pads crop).
fn constant_pad<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    torch_pads: &[i64],
    value: Scalar,
) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let pads = pads_in_dim_order(torch_pads, rank)?;
    let cropped_dims: Vec<usize> = (0..rank)
        .filter(|&i| pads[2 * i] < 0 || pads[2 * i + 1] < 0)
        .collect();
    let d = dims(cx.operand_tensor(0)?);
    let mut x = cx.operand(0)?;
    if !cropped_dims.is_empty() {
        // A dynamic dim is cropped at its end by a negative end bound,
        // which coreai.slice counts from the end, as Python does.
        let end = |i: usize| match (d[i], pads[2 * i + 1]) {
            (DYNAMIC, after) if after < 0 => after,
            (DYNAMIC, _) => TO_END,
            (n, after) => n + after.min(0),
        };
        let bounds: Vec<(i64, i64, i64)> = (0..rank)
            .map(|i| match cropped_dims.contains(&i) {
                true => ((-pads[2 * i]).max(0), end(i), 1),
                false => (0, TO_END, 1),
            })
            .collect();
        let cropped: Vec<i64> = (0..rank)
            .map(|i| match cropped_dims.contains(&i) && d[i] != DYNAMIC {
                true => (bounds[i].1 - bounds[i].0).max(0),
                false => d[i],
            })
            .collect();
        let ty = tensor_type(&cropped, cx.operand_tensor(0)?.element());
        x = slice(cx, x, &bounds, ty)?;
    }
    if pads.iter().all(|&p| p <= 0) {
        return Ok(vec![x]);
    }
    let positive: Vec<i64> = pads.iter().map(|&p| p.max(0)).collect();
    Ok(vec![pad(cx, x, &positive, value, "constant")?])
}

// aten.reflection_pad{1,2,3}d(%x) {padding} → coreai.pad %x, <pads>, 0 mode = <reflect>
fn reflection_pad<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    mode_pad(cx, "reflect")
}

// aten.replication_pad{1,2,3}d(%x) {padding} → coreai.pad %x, <pads>, 0 mode = <replicate>
fn replication_pad<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    mode_pad(cx, "replicate")
}

fn mode_pad<'c, 'a>(cx: &LoweringCx<'c, 'a>, mode: &str) -> Lowered<'c, 'a> {
    mode_pad_by(cx, &int_list_attr(cx, "padding")?, mode)
}

/// `coreai.pad` in `mode` by PyTorch's pad list (no cropping).
fn mode_pad_by<'c, 'a>(cx: &LoweringCx<'c, 'a>, torch_pads: &[i64], mode: &str) -> Lowered<'c, 'a> {
    let rank = cx.operand_tensor(0)?.rank();
    let pads = pads_in_dim_order(torch_pads, rank)?;
    if pads.iter().any(|&p| p < 0) {
        return Err(format!("negative {mode} padding is not supported"));
    }
    Ok(vec![pad(cx, cx.operand(0)?, &pads, Scalar::Int(0), mode)?])
}

// aten.pad(%x) {pad, mode, value} → the constant_pad_nd lowering (mode "constant"),
//   or coreai.pad %x, <pads>, 0 mode = <reflect|replicate|circular>
fn pad_default<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let pads = int_list_attr(cx, "pad")?;
    match str_attr(cx, "mode")?.as_str() {
        "constant" => {
            let value = match cx.op().attribute("value") {
                Ok(_) => cx.scalar("value")?,
                Err(_) => Scalar::Int(0),
            };
            constant_pad(cx, &pads, value)
        }
        mode @ ("reflect" | "replicate" | "circular") => mode_pad_by(cx, &pads, mode),
        other => Err(format!("unknown padding mode '{other}'")),
    }
}

// aten.repeat_interleave.self_int(%x) {repeats = r, dim}: each element r times along dim
//   → coreai.broadcast_in_dims (%x with a unit dim after dim), <[r]>, <[dim + 1]>,
//     reshaped to the result (no dim: on the flattened tensor)
fn repeat_interleave<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let r = int_attr(cx, "repeats")?;
    if r < 0 {
        return Err(format!("repeats must be non-negative, got {r}"));
    }
    let mut x = cx.operand(0)?;
    let mut d = dims(cx.operand_tensor(0)?);
    let dim = match opt_int_attr(cx, "dim")? {
        Some(dim) => normalize_dim(dim, d.len())?,
        None => {
            let n = if d.contains(&DYNAMIC) {
                DYNAMIC
            } else {
                d.iter().product()
            };
            d = vec![n];
            x = reshape(cx, x, &d)?;
            0
        }
    };
    let mut unit = d.clone();
    unit.insert(dim + 1, 1);
    let x = reshape(cx, x, &unit)?;
    let mut wide = unit.clone();
    wide[dim + 1] = r;
    let (s, a) = (shape(cx, &[r])?, axes(cx, &[dim as i64 + 1])?);
    let ty = tensor_type(&wide, cx.operand_tensor(0)?.element());
    let b = cx.build_value(coreai::BROADCAST_IN_DIMS, &[x, s, a], ty, &[])?;
    Ok(vec![reshape_to_result(cx, b)?])
}

// aten.full/full_like/new_full() {fill_value} → coreai.constant dense<fill_value> : <result>
//   (dynamic result: coreai.broadcast_to (coreai.constant dense<fill_value> : tensor<1x..x1>),
//    <static sizes and symbolic size operands / coreai.get_shape of the `_like` input : ui32>)
fn full<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    created(cx, cx.scalar("fill_value")?)
}

// aten.fill.Scalar(%x) {value} → coreai.constant dense<value> : <result>
//   (dynamic %x: coreai.broadcast_to of the rank-0 constant to coreai.get_shape %x)
fn fill_scalar<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    created(cx, cx.scalar("value")?)
}

/// The runtime sizes of a creator's dynamic result: its symbolic size
/// operands (`aten.operator "aten::full.default"(%s0, %c3)`, one rank-0
/// operand per result dim, after `self` for `new_*`), or the shape of its
/// tensor operand (`*_like`, `fill`).
fn creator_extents<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Extent<'c, 'a>>, Decline> {
    let ty = cx.result_tensor(0)?;
    let out = dims(ty);
    let n = cx.op().operand_count();
    let rank_of = |i: usize| cx.operand_tensor(i).map(|t| t.rank());
    if n >= out.len() && !out.is_empty() {
        let first = n - out.len();
        if (first..n).all(|i| rank_of(i).ok() == Some(0)) {
            return (0..out.len())
                .map(|d| {
                    Ok(if out[d] == DYNAMIC {
                        Extent::Scalar(cx.operand(first + d)?)
                    } else {
                        Extent::Static(out[d])
                    })
                })
                .collect();
        }
    }
    if n >= 1 && rank_of(0)? == out.len() {
        let x = cx.operand(0)?;
        let d = dims(cx.operand_tensor(0)?);
        return Ok((0..out.len())
            .map(|i| match (out[i], d[i]) {
                (o, _) if o != DYNAMIC => Extent::Static(o),
                (_, s) if s != DYNAMIC => Extent::Static(s),
                _ => Extent::DimOf(x, i),
            })
            .collect());
    }
    Err(format!(
        "the result type {ty} is dynamic and the op carries no symbolic size of it"
    ))
}

/// The op's result filled with `value`: a constant, or for a dynamic result
/// a rank-0 constant broadcast to the runtime shape ([`creator_extents`]).
fn created<'c, 'a>(cx: &LoweringCx<'c, 'a>, value: Scalar) -> Lowered<'c, 'a> {
    let ty = cx.result_type(0)?;
    if !dims(cx.result_tensor(0)?).contains(&DYNAMIC) {
        return Ok(vec![splat(cx, value, ty)?]);
    }
    Ok(vec![fill(cx, value, ty, &creator_extents(cx)?)?])
}

// aten.scalar_tensor() {s} → coreai.constant dense<s> : tensor<dtype>
// aten.operator "aten::scalar_tensor.default"(%s)   (a symbolic size or number)
//   → coreai.cast %s : tensor<...> to tensor<dtype>
fn scalar_tensor<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    if let Some(v) = coreai_ir::schema::named_operand(cx, "s")? {
        if !dims(coreai_ir::schema::tensor_of(v)?).is_empty() {
            return Err(format!("scalar_tensor's s is not a scalar: {}", v.r#type()));
        }
        return Ok(vec![cast_to(cx, v, cx.result_tensor(0)?.element())?]);
    }
    Ok(vec![splat(cx, cx.scalar("s")?, cx.result_type(0)?)?])
}

// aten.zeros/zeros_like/new_zeros/empty.memory_format/empty_like/empty_permuted/empty_strided/new_empty()
//   → coreai.constant dense<0> : <result>
//   (dynamic result: coreai.broadcast_to (coreai.constant dense<0> : tensor<1x..x1>),
//    <static sizes and symbolic size operands / coreai.get_shape of the `_like` input : ui32>)
//
// empty's contents are unspecified; zeros make the program deterministic.
fn zeros_of_result<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    created(cx, Scalar::Int(0))
}

// aten.ones/ones_like/new_ones() → coreai.constant dense<1> : <result>  (dynamic: as zeros)
fn ones_of_result<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    created(cx, Scalar::Int(1))
}

// aten.arange.{default,start,start_step}() {start = 0, end, step = 1}
//   → coreai.constant dense<[start, start+step, ...]>
// aten.operator "aten::arange.start_step"(%start, %end) {step}   (symbolic bounds: a dynamic length)
//   → coreai.range (cast %start), (cast %end), (constant step) : tensor<?x<dtype>>
//
// A static result length: each element is `start + i·step` computed in f64
// (integers exactly) and converted to the result dtype, as PyTorch does. A
// dynamic one (a bound is a symbolic size, as in coreai-torch's lower-right
// causal mask over a dynamic key length): `coreai.range` on the bounds in
// the result dtype (exact for integer dtypes).
fn arange<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let symbolic = ["start", "end", "step"]
        .iter()
        .map(|n| coreai_ir::schema::named_operand(cx, n).map(|v| v.is_some()))
        .collect::<Result<Vec<_>, _>>()?;
    if symbolic.contains(&true) || dims(cx.result_tensor(0)?).contains(&DYNAMIC) {
        return dynamic_arange(cx);
    }
    let out = result_dims(cx, 0)?;
    let element = cx.result_tensor(0)?.element();
    let optional = |name: &str| match cx.op().attribute(name) {
        Ok(_) => cx.scalar(name),
        Err(_) => Ok(Scalar::Int(i64::from(name == "step"))),
    };
    let (start, step) = (optional("start")?, optional("step")?);
    let [n] = out[..] else {
        return Err(format!(
            "arange gives a 1-D tensor, not {}",
            cx.result_type(0)?
        ));
    };
    let literals: Vec<String> = (0..n)
        .map(|i| {
            let v = match (start, step) {
                (Scalar::Int(a), Scalar::Int(s)) => Scalar::Int(a + i * s),
                _ => Scalar::Float(as_f64(start) + i as f64 * as_f64(step)),
            };
            fill_literal(v, element)
        })
        .collect::<Result<_, _>>()?;
    let ty = cx.result_type(0)?;
    let attr = cx.parse_attribute(&format!("dense<[{}]> : {ty}", literals.join(", ")))?;
    Ok(vec![constant(cx, ty, attr)?])
}

/// `arange` with a symbolic bound: `coreai.range` on its bounds, each an
/// operand (a symbolic size, rank 0) or an attribute, in the result dtype.
fn dynamic_arange<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let ty = cx.result_type(0)?;
    let element = cx.result_tensor(0)?.element();
    let scalar_ty = tensor_type(&[], element);
    let bound = |name: &str, default: i64| -> Result<Value<'c, 'a>, Decline> {
        if let Some(v) = coreai_ir::schema::named_operand(cx, name)? {
            if !dims(coreai_ir::schema::tensor_of(v)?).is_empty() {
                return Err(format!("arange's {name} is not a scalar"));
            }
            return cast_to(cx, v, element);
        }
        let value = match cx.op().attribute(name) {
            Ok(_) => cx.scalar(name)?,
            Err(_) => Scalar::Int(default),
        };
        splat(cx, value, scalar_ty)
    };
    let (start, end, step) = (bound("start", 0)?, bound("end", 0)?, bound("step", 1)?);
    Ok(vec![cx.build_value(
        coreai::RANGE,
        &[start, end, step],
        ty,
        &[],
    )?])
}

fn as_f64(s: Scalar) -> f64 {
    match s {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_reverse_pytorch_pairs() {
        assert_eq!(
            pads_in_dim_order(&[1, 2], 3).unwrap(),
            vec![0, 0, 0, 0, 1, 2]
        );
        assert_eq!(
            pads_in_dim_order(&[1, 0, 0, 2], 4).unwrap(),
            vec![0, 0, 0, 0, 0, 2, 1, 0]
        );
        assert!(pads_in_dim_order(&[1, 2, 3], 3).is_err());
    }

    #[test]
    fn select_bounds_wrap_like_pytorch() {
        assert_eq!(select_range(-1), (-1, TO_END, 1));
        assert_eq!(select_range(-3), (-3, -2, 1));
        assert_eq!(select_range(2), (2, 3, 1));
        assert_eq!(clamp_bound(i64::MAX), TO_END);
    }
}
