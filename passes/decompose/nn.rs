//! Decompositions of neural-network ops: convolutions, linear, norms, pools.

use super::aten_builders::*;
use coreai_ir::lowering::Scalar;
use melior::ir::ValueLike;

pub static RULES: &[(&str, super::DecomposeFn)] = &[
    ("_native_batch_norm_legit.no_stats", batch_norm_no_stats),
    ("_weight_norm.default", weight_norm),
    ("adaptive_avg_pool1d.default", adaptive_avg_pool1d),
    ("adaptive_avg_pool2d.default", adaptive_avg_pool2d),
    ("avg_pool1d.default", avg_pool1d),
    ("conv1d.default", conv_nd),
    ("conv2d.default", conv_nd),
    ("conv2d.padding", conv2d_padding),
    ("conv3d.default", conv_nd),
    ("conv_transpose1d.default", conv_transpose_nd),
    ("conv_transpose2d.input", conv_transpose_nd),
    ("group_norm.default", group_norm),
    ("layer_norm.default", layer_norm),
    ("linear.default", linear),
    ("max_pool2d.default", max_pool2d),
];

/// `aten.convolution.default` with the given geometry.
#[allow(clippy::too_many_arguments)]
fn convolution<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    input: V<'c, 'a>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    transposed: bool,
    output_padding: &[i64],
) -> Result<V<'c, 'a>, String> {
    let mut operands = vec![input, cx.operand(1)?];
    if let Ok(bias) = cx.operand(2) {
        operands.push(bias);
    }
    let groups = get_int_or(cx, "groups", 1)?;
    let attrs = [
        ("stride", a_ints(cx, stride)?),
        ("padding", a_ints(cx, padding)?),
        ("dilation", a_ints(cx, dilation)?),
        ("transposed", a_bool(cx, transposed)?),
        ("output_padding", a_ints(cx, output_padding)?),
        ("groups", a_int(cx, groups)?),
    ];
    aten(cx, "convolution.default", &operands, result(cx, 0)?, &attrs)
}

/// The spatial rank of a convolution: the weight's rank minus 2.
fn spatial(cx: Cx<'_, '_, '_>) -> Result<usize, String> {
    let rank = shape(cx.operand(1)?)?.len();
    let input_rank = shape(cx.operand(0)?)?.len();
    if input_rank != rank {
        return Err(format!(
            "an unbatched input (rank {input_rank}) is not decomposed; add the batch dimension"
        ));
    }
    Ok(rank - 2)
}

/// An int-list attribute expanded to `n` entries (`[k]` → `[k; n]`).
fn per_dim(cx: Cx<'_, '_, '_>, name: &str, n: usize, default: i64) -> Result<Vec<i64>, String> {
    let v = get_ints_opt(cx, name)?.unwrap_or_default();
    Ok(match v.len() {
        0 => vec![default; n],
        1 => vec![v[0]; n],
        _ if v.len() == n => v,
        _ => {
            return Err(format!(
                "attribute '{name}' has {} entries for {n} spatial dims",
                v.len()
            ))
        }
    })
}

// aten.conv{1,2,3}d.default(%x, %w, %b?) {stride, padding, dilation, groups}
//   → aten.convolution.default(%x, %w, %b?) {..., transposed = false, output_padding = 0}
fn conv_nd<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let n = spatial(cx)?;
    let (stride, padding, dilation) = (
        per_dim(cx, "stride", n, 1)?,
        per_dim(cx, "padding", n, 0)?,
        per_dim(cx, "dilation", n, 1)?,
    );
    Ok(vec![convolution(
        cx,
        cx.operand(0)?,
        &stride,
        &padding,
        &dilation,
        false,
        &vec![0; n],
    )?])
}

// aten.conv2d.padding(%x, %w, %b?) {padding = "valid" | "same"}
//   valid → padding 0; same → total = d·(k − 1), left = total / 2 on each side;
//   an odd total pads one more at the end with constant_pad_nd first.
fn conv2d_padding<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let n = spatial(cx)?;
    let (stride, dilation) = (per_dim(cx, "stride", n, 1)?, per_dim(cx, "dilation", n, 1)?);
    let mode = str_attr(cx, "padding")?;
    let mut input = cx.operand(0)?;
    let padding = match mode.as_str() {
        "valid" => vec![0; n],
        "same" => {
            if stride.iter().any(|s| *s != 1) {
                return Err("padding='same' needs stride 1".into());
            }
            let kernel = &shape(cx.operand(1)?)?[2..];
            let total = (0..n)
                .map(|i| {
                    kernel[i]
                        .checked_sub(1)
                        .and_then(|k| k.checked_mul(dilation[i]))
                        .filter(|t| *t >= 0)
                        .ok_or_else(|| {
                            format!(
                                "dilation {} of a kernel of {} overflows",
                                dilation[i], kernel[i]
                            )
                        })
                })
                .collect::<Result<Vec<i64>, _>>()?;
            if total.iter().any(|t| t % 2 == 1) {
                // constant_pad_nd lists (left, right) pairs from the last dim.
                let mut pad = Vec::new();
                for t in total.iter().rev() {
                    pad.extend([0, t % 2]);
                }
                let mut s = shape(input)?;
                for (i, t) in total.iter().enumerate() {
                    s[2 + i] += t % 2;
                }
                let ty = tensor(cx, &s, element(input)?)?;
                let attrs = [
                    ("pad", a_ints(cx, &pad)?),
                    ("value", a_scalar(cx, Scalar::Float(0.0))?),
                ];
                input = aten(cx, "constant_pad_nd.default", &[input], ty, &attrs)?;
            }
            total.iter().map(|t| t / 2).collect()
        }
        other => return Err(format!("unknown padding mode '{other}'")),
    };
    Ok(vec![convolution(
        cx,
        input,
        &stride,
        &padding,
        &dilation,
        false,
        &vec![0; n],
    )?])
}

// aten.conv_transpose{1,2}d(%x, %w, %b?) {stride, padding, output_padding, groups, dilation}
//   → aten.convolution.default(%x, %w, %b?) {..., transposed = true}
fn conv_transpose_nd<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let n = spatial(cx)?;
    let stride = per_dim(cx, "stride", n, 1)?;
    let padding = per_dim(cx, "padding", n, 0)?;
    let dilation = per_dim(cx, "dilation", n, 1)?;
    let output_padding = per_dim(cx, "output_padding", n, 0)?;
    Ok(vec![convolution(
        cx,
        cx.operand(0)?,
        &stride,
        &padding,
        &dilation,
        true,
        &output_padding,
    )?])
}

// aten.linear.default(%x, %w, %b?):  y = x·wᵀ + b
//   rank 2 with bias → addmm(%b, %x, permute(%w, [1, 0]))
//   rank 2           → mm(%x, permute(%w))
//   rank > 2         → view(mm(view(%x, [∏, K]), wᵀ) ⊕ b, [..., N])
//                      (one dynamic leading dim is -1 in both views)
fn linear<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let (x, w) = (cx.operand(0)?, cx.operand(1)?);
    let bias = cx.operand(2).ok();
    let (xs, ws) = (shape(x)?, shape(w)?);
    if ws.len() != 2 || xs.is_empty() {
        return Err(format!(
            "linear of a rank-{} input and a rank-{} weight is not decomposed",
            xs.len(),
            ws.len()
        ));
    }
    let el = element(x)?;
    let wt = permute(cx, w, &[1, 0])?;
    let (k, n) = (ws[1], ws[0]);
    let flat = if xs.len() == 2 {
        x
    } else {
        view(cx, x, &[flat_size(&xs[..xs.len() - 1]), k])?
    };
    let rows = shape(flat)?[0];
    let out2 = tensor(cx, &[rows, n], el)?;
    let product = match bias {
        Some(b) => {
            let one = a_int(cx, 1)?;
            aten(
                cx,
                "addmm.default",
                &[b, flat, wt],
                out2,
                &[("beta", one), ("alpha", one)],
            )?
        }
        None => aten(cx, "mm.default", &[flat, wt], out2, &[])?,
    };
    let y = if xs.len() == 2 {
        product
    } else {
        let mut s = xs.clone();
        *s.last_mut().ok_or("empty shape")? = n;
        view(cx, product, &s)?
    };
    if y.r#type() != result(cx, 0)? {
        return Err(format!(
            "linear's result type {} is not {}",
            result(cx, 0)?,
            y.r#type()
        ));
    }
    Ok(vec![y])
}

// aten.layer_norm.default(%x, %w?, %b?) {normalized_shape, eps}
//   → aten.native_layer_norm.default(...)#0 (the mean and 1/σ results unused)
fn layer_norm<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let g = groups(cx)?;
    let x = cx.operand(0)?;
    let xs = shape(x)?;
    let normalized = int_list_attr(cx, "normalized_shape")?;
    let axis = xs
        .len()
        .checked_sub(normalized.len())
        .ok_or("normalized_shape is longer than the input's shape")?;
    let stats: Vec<i64> = xs
        .iter()
        .enumerate()
        .map(|(i, d)| if i < axis { *d } else { 1 })
        .collect();
    let (w, b) = (optional(&g, 1), optional(&g, 2));
    let mut operands = vec![x];
    operands.extend(w);
    operands.extend(b);
    let segments = cx.parse_attribute(&format!(
        "array<i32: 1, {}, {}>",
        i32::from(w.is_some()),
        i32::from(b.is_some())
    ))?;
    let stat_ty = tensor(cx, &stats, element(x)?)?;
    let attrs = [
        ("normalized_shape", a_ints(cx, &normalized)?),
        ("eps", a_scalar(cx, Scalar::Float(get_f64(cx, "eps")?))?),
        ("operandSegmentSizes", segments),
    ];
    let results = aten_n(
        cx,
        "native_layer_norm.default",
        &operands,
        &[result(cx, 0)?, stat_ty, stat_ty],
        &attrs,
    )?;
    Ok(vec![results[0]])
}

// aten.group_norm.default(%x, %w?, %b?) {num_groups, eps}
//   → aten.native_group_norm.default(%x, %w?, %b?) {N, C, HxW, group, eps}#0
fn group_norm<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let g = groups(cx)?;
    let x = cx.operand(0)?;
    let xs = shape(x)?;
    if xs.len() < 2 {
        return Err("group_norm needs an [N, C, ...] input".into());
    }
    let group = int_attr(cx, "num_groups")?;
    let hxw = numel(&xs[2..])?;
    let (w, b) = (optional(&g, 1), optional(&g, 2));
    let mut operands = vec![x];
    operands.extend(w);
    operands.extend(b);
    let segments = cx.parse_attribute(&format!(
        "array<i32: 1, {}, {}>",
        i32::from(w.is_some()),
        i32::from(b.is_some())
    ))?;
    let stat_ty = tensor(cx, &[xs[0], group], element(x)?)?;
    let attrs = [
        ("N", a_int(cx, xs[0])?),
        ("C", a_int(cx, xs[1])?),
        ("HxW", a_int(cx, hxw)?),
        ("group", a_int(cx, group)?),
        ("eps", a_scalar(cx, Scalar::Float(get_f64(cx, "eps")?))?),
        ("operandSegmentSizes", segments),
    ];
    let results = aten_n(
        cx,
        "native_group_norm.default",
        &operands,
        &[result(cx, 0)?, stat_ty, stat_ty],
        &attrs,
    )?;
    Ok(vec![results[0]])
}

// aten.max_pool2d.default(%x) {...} → aten.max_pool2d_with_indices.default(%x) {...}#0
fn max_pool2d<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let out = result(cx, 0)?;
    let i64_type = cx.parse_type("i64")?;
    let indices = tensor(cx, &result_shape(cx, 0)?, i64_type)?;
    let mut attrs = Vec::new();
    for name in ["kernel_size", "stride", "padding", "dilation", "ceil_mode"] {
        if let Ok(a) = cx.attribute(name) {
            attrs.push((name, a));
        }
    }
    Ok(vec![
        aten_n(
            cx,
            "max_pool2d_with_indices.default",
            &[x],
            &[out, indices],
            &attrs,
        )?[0],
    ])
}

// aten.avg_pool1d.default(%x) {kernel_size = [k], stride, padding, ceil_mode, count_include_pad}
//   → squeeze(avg_pool2d(unsqueeze(%x, -2)) {kernel_size = [1, k], ...}, -2)
fn avg_pool1d<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let rank = shape(x)?.len();
    let kernel = int_list_attr(cx, "kernel_size")?;
    let stride = get_ints_opt(cx, "stride")?
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| kernel.clone());
    let padding = get_ints_opt(cx, "padding")?.unwrap_or_else(|| vec![0]);
    let (Some(k), Some(s), Some(p)) = (kernel.first(), stride.first(), padding.first()) else {
        return Err("avg_pool1d needs kernel_size, stride and padding".into());
    };
    let x4 = unsqueeze(cx, x, rank - 1)?;
    let mut out = shape(x4)?;
    *out.last_mut().ok_or("empty shape")? = *result_shape(cx, 0)?.last().ok_or("empty result")?;
    let attrs = [
        ("kernel_size", a_ints(cx, &[1, *k])?),
        ("stride", a_ints(cx, &[1, *s])?),
        ("padding", a_ints(cx, &[0, *p])?),
        (
            "ceil_mode",
            a_bool(cx, get_bool_or(cx, "ceil_mode", false)?)?,
        ),
        (
            "count_include_pad",
            a_bool(cx, get_bool_or(cx, "count_include_pad", true)?)?,
        ),
    ];
    let pooled = aten(
        cx,
        "avg_pool2d.default",
        &[x4],
        tensor(cx, &out, element(x)?)?,
        &attrs,
    )?;
    Ok(vec![squeeze_dims(cx, pooled, &[rank - 1])?])
}

// aten.adaptive_avg_pool2d.default(%x) {output_size}
//   [1, 1] → aten.mean.dim(%x) {dim = [-1, -2], keepdim = true}
//   else   → aten._adaptive_avg_pool2d.default(%x) {output_size}
fn adaptive_avg_pool2d<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let size = int_list_attr(cx, "output_size")?;
    if size == [1, 1] {
        let attrs = [
            ("dim", a_ints(cx, &[-1, -2])?),
            ("keepdim", a_bool(cx, true)?),
        ];
        return Ok(vec![aten(cx, "mean.dim", &[x], result(cx, 0)?, &attrs)?]);
    }
    let attrs = [("output_size", a_ints(cx, &size)?)];
    Ok(vec![aten(
        cx,
        "_adaptive_avg_pool2d.default",
        &[x],
        result(cx, 0)?,
        &attrs,
    )?])
}

// aten.adaptive_avg_pool1d.default(%x) {output_size = [L]}
//   → squeeze(adaptive_avg_pool2d(unsqueeze(%x, -2), [1, L]), -2)
fn adaptive_avg_pool1d<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let size = int_list_attr(cx, "output_size")?;
    let [l] = size[..] else {
        return Err(format!("output_size {size:?} is not one length"));
    };
    let rank = shape(x)?.len();
    if rank < 2 {
        return Err(format!("the input has rank {rank}, not 2 or 3"));
    }
    let x4 = unsqueeze(cx, x, rank - 1)?;
    let mut s = shape(x4)?;
    s[rank] = l;
    let pooled = aten(
        cx,
        "adaptive_avg_pool2d.default",
        &[x4],
        tensor(cx, &s, element(x)?)?,
        &[("output_size", a_ints(cx, &[1, l])?)],
    )?;
    Ok(vec![squeeze_dims(cx, pooled, &[rank - 1])?])
}

// aten._weight_norm.default(%v, %g) {dim}
//   → %v * (%g / linalg_vector_norm(%v, 2, every dim but dim, keepdim))
// (dim = -1: the norm of the whole tensor, as PyTorch's norm_except_dim)
fn weight_norm<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let (v, g) = (cx.operand(0)?, cx.operand(1)?);
    let sv = shape(v)?;
    let dim = get_int_or(cx, "dim", 0)?;
    let kept = if dim == -1 {
        None
    } else {
        Some(norm_dim(dim, sv.len())?)
    };
    let dims: Vec<i64> = (0..sv.len())
        .filter(|d| Some(*d) != kept)
        .map(|d| d as i64)
        .collect();
    let reduced: Vec<i64> = (0..sv.len())
        .map(|d| if Some(d) == kept { sv[d] } else { 1 })
        .collect();
    let el = element(v)?;
    let norm = aten(
        cx,
        "linalg_vector_norm.default",
        &[v],
        tensor(cx, &reduced, el)?,
        &[
            ("ord", a_scalar(cx, Scalar::Float(2.0))?),
            ("dim", a_ints(cx, &dims)?),
            ("keepdim", a_bool(cx, true)?),
        ],
    )?;
    let scale = binary(cx, "div.Tensor", g, norm, element(g)?)?;
    Ok(vec![binary(cx, "mul.Tensor", v, scale, el)?])
}

// aten._native_batch_norm_legit.no_stats(%x, %w?, %b?) {training, momentum, eps}
//   (batch statistics without running ones: F.batch_norm(x, None, None, training=True),
//    e.g. timm's ScaledStdConv2d standardizing its weight), as torch._decomp does it:
//   mean = mean.dim(%x, every dim but 1, keepdim)
//   rstd = rsqrt(var.correction(%x, same dims, correction = 0, keepdim) + eps)
//   → ((%x - mean) * rstd) * %w' + %b'   (%w', %b' viewed as [1, C, 1, ...]),
//     mean and rstd viewed as [C]
fn batch_norm_no_stats<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let g = groups(cx)?;
    let x = cx.operand(0)?;
    let xs = shape(x)?;
    if xs.len() < 2 || xs[1] < 0 {
        return Err("batch norm needs an [N, C, ...] input with a static C".into());
    }
    let el = element(x)?;
    let dims: Vec<i64> = (0..xs.len() as i64).filter(|&d| d != 1).collect();
    let mut kept = vec![1; xs.len()];
    kept[1] = xs[1];
    let stat = tensor(cx, &kept, el)?;
    let keep = a_bool(cx, true)?;
    let mean = aten(
        cx,
        "mean.dim",
        &[x],
        stat,
        &[("dim", a_ints(cx, &dims)?), ("keepdim", keep)],
    )?;
    let attrs = [
        ("dim", a_ints(cx, &dims)?),
        ("correction", a_int(cx, 0)?),
        ("keepdim", keep),
    ];
    let var = aten(cx, "var.correction", &[x], stat, &attrs)?;
    let eps = get_f64(cx, "eps")?;
    let rstd = unary(
        cx,
        "rsqrt.default",
        binary_scalar(cx, "add.Tensor", var, Scalar::Float(eps))?,
    )?;
    let centred = binary(cx, "sub.Tensor", x, mean, el)?;
    let mut y = binary(cx, "mul.Tensor", centred, rstd, el)?;
    if let Some(w) = optional(&g, 1) {
        y = binary(cx, "mul.Tensor", y, view(cx, w, &kept)?, el)?;
    }
    if let Some(b) = optional(&g, 2) {
        y = binary(cx, "add.Tensor", y, view(cx, b, &kept)?, el)?;
    }
    Ok(vec![
        y,
        view(cx, mean, &[xs[1]])?,
        view(cx, rstd, &[xs[1]])?,
    ])
}
