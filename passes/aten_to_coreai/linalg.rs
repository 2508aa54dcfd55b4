//! Matrix products and convolutions → coreai.
//!
//! Matrix products become `coreai.decomposable.broadcasting_batch_matmul`
//! (what coreai-torch emits for mm, bmm and addmm); convolutions become
//! `coreai.pad` (coreai convolutions have no padding operand) then
//! `coreai.conv2d` / `conv3d`, or `coreai.conv_transpose2d` / `3d`, then a
//! broadcasting add of the bias reshaped to `[1, C, 1, ...]`. Conv1d runs as
//! a conv2d over an inserted unit dimension. Matrix products accept dynamic
//! batch sizes; convolutions a dynamic batch dim (channel and spatial sizes
//! must be static, the decline names the dim).

use coreai_ir::emit::arith as broadcasting;
use coreai_ir::emit::{axes, cast_to, int_scalar, reshape, shape, transpose};
use coreai_ir::emit::{batch_matmul, expand_dim, float_scalar, pad_spatial};
use coreai_ir::lowering::{Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::{
    bool_attr, element_type, int_attr, int_list_attr, segment_operand, shape_of, static_type_dims,
    tensor_type, DYNAMIC,
};
use melior::ir::{operation::OperationLike, r#type::ShapedTypeLike, TypeLike, Value, ValueLike};

pub static LOWERINGS: super::Family = &[
    ("addmm.default", addmm),
    ("baddbmm.default", baddbmm),
    ("bmm.default", bmm),
    ("convolution.default", convolution),
    ("linear.default", linear),
    ("matmul.default", matmul),
    ("mm.default", mm),
];

/// Declines unless both operands have the result's element type (PyTorch
/// rejects mixed-dtype matrix products).
fn same_dtypes(cx: &LoweringCx<'_, '_>, operands: &[usize]) -> Result<(), Decline> {
    let result = cx.result_tensor(0)?.element();
    for &i in operands {
        let e = element_type(cx.operand(i)?)?;
        if e != result {
            return Err(format!(
                "operand #{i} is {e} but the result is {result}: PyTorch requires one dtype"
            ));
        }
    }
    Ok(())
}

// aten.mm.default(%a, %b) → coreai.decomposable.broadcasting_batch_matmul %a, %b
pub fn mm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    same_dtypes(cx, &[0, 1])?;
    Ok(vec![batch_matmul(cx, cx.operand(0)?, cx.operand(1)?)?])
}

// aten.bmm.default(%a, %b) → coreai.decomposable.broadcasting_batch_matmul %a, %b
pub fn bmm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    mm(cx)
}

// aten.matmul.default(%a, %b) → [expand_dims of 1-D operands]
//   → broadcasting_batch_matmul → [reshape dropping the inserted dims]
pub fn matmul<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    same_dtypes(cx, &[0, 1])?;
    let (mut a, mut b) = (cx.operand(0)?, cx.operand(1)?);
    let (sa, sb) = (shape_of(a)?, shape_of(b)?);
    if sa.is_empty() || sb.is_empty() {
        return Err("matmul of a rank-0 tensor is not defined".into());
    }
    if sa.len() == 1 {
        a = reshape(cx, a, &[1, sa[0]])?;
    }
    if sb.len() == 1 {
        b = reshape(cx, b, &[sb[0], 1])?;
    }
    let product = batch_matmul(cx, a, b)?;
    let result = cx.result_type(0)?;
    if product.r#type() == result {
        return Ok(vec![product]);
    }
    let out = static_type_dims(result)?;
    Ok(vec![reshape(cx, product, &out)?])
}

/// `k · x` with `k` a constant of `x`'s element type, or `x` when k = 1.
fn scaled<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    k: Scalar,
) -> Result<Value<'c, 'a>, Decline> {
    let one = matches!(k, Scalar::Int(1)) || k == Scalar::Float(1.0);
    if one {
        return Ok(x);
    }
    let element = element_type(x)?;
    let constant = if element.is_integer() {
        cx.scalar_constant(k, element)?
    } else {
        let v = match k {
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        };
        float_scalar(cx, v, element)?
    };
    broadcasting(cx, coreai::MUL, x, constant)
}

/// `beta · bias + alpha · product`; with beta = 0 the bias is ignored, NaN
/// and inf included, as in PyTorch.
fn add_scaled_bias<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    product: Value<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    // Absent when the op arrives as `aten.operator` with the defaults.
    let scalar_or_one = |name: &str| match cx.op().attribute(name) {
        Ok(_) => cx.scalar(name),
        Err(_) => Ok(Scalar::Int(1)),
    };
    let (beta, alpha) = (scalar_or_one("beta")?, scalar_or_one("alpha")?);
    let product = scaled(cx, product, alpha)?;
    let zero = matches!(beta, Scalar::Int(0)) || beta == Scalar::Float(0.0);
    if zero {
        return Ok(vec![product]);
    }
    let bias = scaled(cx, cx.operand(0)?, beta)?;
    Ok(vec![broadcasting(cx, coreai::ADD, product, bias)?])
}

// aten.addmm.default(%bias, %a, %b) {beta, alpha}
//   → broadcasting_add (alpha · broadcasting_batch_matmul %a, %b), (beta · %bias)
pub fn addmm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    same_dtypes(cx, &[0, 1, 2])?;
    let product = batch_matmul(cx, cx.operand(1)?, cx.operand(2)?)?;
    add_scaled_bias(cx, product)
}

// aten.baddbmm.default(%bias, %a, %b) {beta, alpha}
//   → broadcasting_add (alpha · broadcasting_batch_matmul %a, %b), (beta · %bias)
pub fn baddbmm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    addmm(cx)
}

// aten.linear.default(%x, %w, %bias?) → broadcasting_batch_matmul %x, (transpose %w)
//   [→ broadcasting_add %bias]
pub fn linear<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    same_dtypes(cx, &[0, 1])?;
    let (x, w) = (cx.operand(0)?, cx.operand(1)?);
    let sw = shape_of(w)?;
    let wt = match sw.len() {
        2 => transpose(cx, w, &[1, 0])?,
        1 => reshape(cx, w, &[sw[0], 1])?,
        r => return Err(format!("linear weight must have rank 1 or 2, got {r}")),
    };
    let sx = shape_of(x)?;
    let x2 = if sx.len() == 1 {
        reshape(cx, x, &[1, sx[0]])?
    } else {
        x
    };
    let mut y = batch_matmul(cx, x2, wt)?;
    if let Some(bias) = segment_operand(cx, 2)? {
        y = broadcasting(cx, coreai::ADD, y, bias)?;
    }
    let result = cx.result_type(0)?;
    if y.r#type() != result {
        y = reshape(cx, y, &static_type_dims(result)?)?;
    }
    Ok(vec![y])
}

/// The convolution's attributes, validated against the input's rank.
struct ConvParams {
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    output_padding: Vec<i64>,
    groups: i64,
    transposed: bool,
}

fn conv_params(cx: &LoweringCx<'_, '_>, spatial: usize) -> Result<ConvParams, Decline> {
    let params = ConvParams {
        stride: int_list_attr(cx, "stride")?,
        padding: int_list_attr(cx, "padding")?,
        dilation: int_list_attr(cx, "dilation")?,
        output_padding: int_list_attr(cx, "output_padding")?,
        groups: int_attr(cx, "groups")?,
        transposed: bool_attr(cx, "transposed")?,
    };
    for (name, list) in [
        ("stride", &params.stride),
        ("padding", &params.padding),
        ("dilation", &params.dilation),
        ("output_padding", &params.output_padding),
    ] {
        if list.len() != spatial {
            return Err(format!(
                "{name} has {} values for {spatial} spatial dimensions",
                list.len()
            ));
        }
        if list.iter().any(|&v| v < 0) {
            return Err(format!("negative {name} {list:?}"));
        }
    }
    if params.groups < 1 {
        return Err(format!("groups must be ≥ 1, got {}", params.groups));
    }
    if !params.transposed && params.output_padding.iter().any(|&p| p != 0) {
        return Err("output_padding is only meaningful for a transposed convolution".into());
    }
    Ok(params)
}

// aten.convolution.default(%x, %w, %b?) {transposed = false}
//   → coreai.pad (if padding) → coreai.conv2d | conv3d → broadcasting_add (reshape %b)
//   (1-D: expand_dims axis 2 of %x and %w, conv2d, shrink_dims axis 2)
// aten.convolution.default(%x, %w, %b?) {transposed = true}
//   → coreai.conv_transpose2d | conv_transpose3d → broadcasting_add (reshape %b)
//   (1-D: expand_dims axis 3, conv_transpose2d, shrink_dims axis 3)
//   An unbatched %x is reshaped to a batch of one and back (expand_dims and
//   shrink_dims when a dim is dynamic).
pub fn convolution<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let mut x = cx.operand(0)?;
    let element = element_type(x)?;
    let w = cast_to(cx, cx.operand(1)?, element)?;
    let mut in_shape = conv_dims(cx.operand(0)?.r#type(), "the input")?;
    let mut out_shape = conv_dims(cx.result_type(0)?, "the result")?;
    // An unbatched input ([C, ...], one rank below the weight) runs as a
    // batch of one.
    let unbatched = shape_of(w)?.len() == in_shape.len() + 1;
    if unbatched {
        in_shape.insert(0, 1);
        out_shape.insert(0, 1);
        x = match in_shape.contains(&DYNAMIC) {
            true => expand_dim(cx, x, 0)?,
            false => reshape(cx, x, &in_shape)?,
        };
    }
    let rank = in_shape.len();
    if !(3..=5).contains(&rank) || shape_of(w)?.len() != rank {
        return Err(format!(
            "convolution needs an input of rank 3, 4 or 5 (or one less, unbatched) and a weight of that rank, got {} and {}",
            cx.operand(0)?.r#type(),
            cx.operand(1)?.r#type()
        ));
    }
    let p = conv_params(cx, rank - 2)?;
    let mut y = if rank == 3 {
        conv1d(cx, x, w, p, &out_shape)?
    } else if p.transposed {
        conv_transpose(cx, x, w, &p, &out_shape)?
    } else {
        let padded = zero_pad(cx, x, &p.padding)?;
        conv(cx, padded, w, &p, &out_shape)?
    };
    if let Some(bias) = segment_operand(cx, 2)? {
        let bias = cast_to(cx, bias, element)?;
        let mut to = vec![1; rank];
        to[1] = out_shape[1];
        let bias = reshape(cx, bias, &to)?;
        y = broadcasting(cx, coreai::ADD, y, bias)?;
    }
    if unbatched && out_shape.contains(&DYNAMIC) {
        let ty = tensor_type(&out_shape[1..], element);
        y = cx.build_value(coreai::SHRINK_DIMS, &[y, axes(cx, &[0])?], ty, &[])?;
    } else if unbatched {
        y = reshape(cx, y, &out_shape[1..])?;
    }
    Ok(vec![y])
}

/// The dims of a convolution's input or result `ty`: the channel dim must be
/// static (the weight's), the batch and spatial dims may be dynamic (the
/// window arithmetic is the op's, at run time); the decline names the dim.
fn conv_dims(ty: melior::ir::Type<'_>, what: &str) -> Result<Vec<i64>, Decline> {
    let d = coreai_ir::schema::type_dims(ty)?;
    if d.len() > 1 && d[1] == DYNAMIC {
        return Err(format!(
            "dim 1 of {what} ({ty}) is dynamic; convolution needs a static channel size"
        ));
    }
    Ok(d)
}

/// Conv1d (plain or transposed) as the 2-D op over an inserted unit
/// dimension: at axis 2 for a convolution (coreai-torch's choice), at axis 3
/// for a transposed one.
fn conv1d<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    w: Value<'c, 'a>,
    p: ConvParams,
    out_shape: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    let axis = if p.transposed { 3 } else { 2 };
    let widen = |v: &[i64], unit: i64| -> Vec<i64> {
        let mut v = v.to_vec();
        v.insert(axis - 2, unit);
        v
    };
    let p2 = ConvParams {
        stride: widen(&p.stride, 1),
        padding: widen(&p.padding, 0),
        dilation: widen(&p.dilation, 1),
        output_padding: widen(&p.output_padding, 0),
        groups: p.groups,
        transposed: p.transposed,
    };
    let x4 = expand_dim(cx, x, axis)?;
    let w4 = expand_dim(cx, w, axis)?;
    let mut out4 = out_shape.to_vec();
    out4.insert(axis, 1);
    let y = if p.transposed {
        conv_transpose(cx, x4, w4, &p2, &out4)?
    } else {
        let padded = zero_pad(cx, x4, &p2.padding)?;
        conv(cx, padded, w4, &p2, &out4)?
    };
    let ty = tensor_type(out_shape, element_type(x)?);
    let axis = axes(cx, &[axis as i64])?;
    cx.build_value(coreai::SHRINK_DIMS, &[y, axis], ty, &[])
}

/// `coreai.pad` with zeros, `padding[i]` on both sides of spatial dim `i`
/// (`x` unchanged when there is no padding).
fn zero_pad<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    padding: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    let sides: Vec<(i64, i64)> = padding.iter().map(|&p| (p, p)).collect();
    pad_spatial(cx, x, &sides, 0.0)
}

/// `coreai.conv2d` / `conv3d` of an already padded input.
fn conv<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    w: Value<'c, 'a>,
    p: &ConvParams,
    out_shape: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    let name = match out_shape.len() {
        4 => coreai::CONV2D,
        5 => coreai::CONV3D,
        r => return Err(format!("no coreai convolution of rank {r}")),
    };
    let ty = tensor_type(out_shape, element_type(x)?);
    let operands = [
        x,
        w,
        shape(cx, &p.stride)?,
        shape(cx, &p.dilation)?,
        int_scalar(cx, p.groups, "ui32")?,
    ];
    cx.build_value(name, &operands, ty, &[])
}

/// `coreai.conv_transpose2d` / `conv_transpose3d`: padding and output
/// padding are operands, with PyTorch's meaning.
fn conv_transpose<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    w: Value<'c, 'a>,
    p: &ConvParams,
    out_shape: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    let name = match out_shape.len() {
        4 => coreai::CONV_TRANSPOSE2D,
        5 => coreai::CONV_TRANSPOSE3D,
        r => return Err(format!("no coreai transposed convolution of rank {r}")),
    };
    for ((&op, &s), &d) in p.output_padding.iter().zip(&p.stride).zip(&p.dilation) {
        if op >= s && op >= d {
            return Err(format!(
                "output_padding {:?} must be smaller than the stride {:?} or the dilation {:?}",
                p.output_padding, p.stride, p.dilation
            ));
        }
    }
    let ty = tensor_type(out_shape, element_type(x)?);
    let operands = [
        x,
        w,
        shape(cx, &p.stride)?,
        shape(cx, &p.padding)?,
        shape(cx, &p.dilation)?,
        shape(cx, &p.output_padding)?,
        int_scalar(cx, p.groups, "ui32")?,
    ];
    cx.build_value(name, &operands, ty, &[])
}
