//! Decompositions of shape and data-movement ops.

use super::aten_builders::*;
use coreai_ir::lowering::Scalar;
use melior::ir::{operation::OperationLike, ValueLike};

pub static RULES: &[(&str, super::DecomposeFn)] = &[
    ("_unsafe_view.default", unsafe_view),
    ("einsum.default", einsum),
    ("pad.default", pad),
    ("pixel_unshuffle.default", pixel_unshuffle),
    ("repeat_interleave.self_int", repeat_interleave_self_int),
    ("roll.default", roll),
    ("split.Tensor", split_tensor),
    ("squeeze.dim", squeeze_dim),
    ("stack.default", stack),
    ("tile.default", tile),
    ("transpose.int", transpose_int),
    ("unbind.int", unbind_int),
];

// aten.transpose.int(%x) {dim0, dim1} → aten.permute.default(%x) {dims = identity with dim0 ↔ dim1}
fn transpose_int<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let rank = shape(x)?.len();
    if rank == 0 {
        return Ok(vec![x]);
    }
    let (a, b) = (
        norm_dim(int_attr(cx, "dim0")?, rank)?,
        norm_dim(int_attr(cx, "dim1")?, rank)?,
    );
    let mut dims: Vec<usize> = (0..rank).collect();
    dims.swap(a, b);
    Ok(vec![permute(cx, x, &dims)?])
}

// aten.squeeze.dim(%x) {dim} → aten.squeeze.dims(%x) {dim = [dim]}
fn squeeze_dim<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let rank = shape(x)?.len();
    if rank == 0 {
        return Ok(vec![x]);
    }
    Ok(vec![squeeze_dims(
        cx,
        x,
        &[norm_dim(int_attr(cx, "dim")?, rank)?],
    )?])
}

// aten._unsafe_view.default(%x) {size} → aten.view.default(%x) {size}
fn unsafe_view<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let size = cx.attribute("size")?;
    Ok(vec![aten(
        cx,
        "view.default",
        &[cx.operand(0)?],
        result(cx, 0)?,
        &[("size", size)],
    )?])
}

// aten.split.Tensor(%x) {split_size = s, dim} → slice.Tensor(%x, dim, i·s, min((i+1)·s, n)) for each result
fn split_tensor<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let s = shape(x)?;
    let dim = norm_dim(get_int_or(cx, "dim", 0)?, s.len())?;
    let (n, size) = (s[dim], int_attr(cx, "split_size")?);
    if n < 0 {
        return Err(format!(
            "dim {dim} of the input is dynamic; split needs its size"
        ));
    }
    if size <= 0 {
        return Err("split needs a positive split_size".into());
    }
    (0..cx.op().result_count() as i64)
        .map(|i| slice(cx, x, dim, i * size, ((i + 1) * size).min(n)))
        .collect()
}

// aten.unbind.int(%x) {dim} → select.int(%x, dim, i) for each result
fn unbind_int<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let s = shape(x)?;
    let dim = norm_dim(get_int_or(cx, "dim", 0)?, s.len())?;
    (0..cx.op().result_count())
        .map(|i| {
            let attrs = [
                ("dim", a_int(cx, dim as i64)?),
                ("index", a_int(cx, i as i64)?),
            ];
            aten(cx, "select.int", &[x], result(cx, i)?, &attrs)
        })
        .collect()
}

// aten.stack.default(%xs...) {dim} → aten.cat.default(unsqueeze(%x, dim)...) {dim}
fn stack<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let xs: Vec<V> = cx.op().operands().collect();
    let rank = shape(*xs.first().ok_or("stack of no tensors")?)?.len();
    let dim = norm_dim(get_int_or(cx, "dim", 0)?, rank + 1)?;
    let parts: Vec<V> = xs
        .iter()
        .map(|x| unsqueeze(cx, *x, dim))
        .collect::<Result<_, _>>()?;
    Ok(vec![cat(cx, &parts, dim)?])
}

// aten.tile.default(%x) {dims} → aten.repeat.default(%x) {repeats = [1, ..., 1] ++ dims}
//   (dims shorter than the rank are padded with leading 1s; a longer one
//    is what repeat itself does)
fn tile<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let rank = shape(x)?.len();
    let mut repeats = int_list_attr(cx, "dims")?;
    while repeats.len() < rank {
        repeats.insert(0, 1);
    }
    Ok(vec![aten(
        cx,
        "repeat.default",
        &[x],
        result(cx, 0)?,
        &[("repeats", a_ints(cx, &repeats)?)],
    )?])
}

// aten.repeat_interleave.self_int(%x) {repeats = r, dim = d}
//   → view(expand(unsqueeze(%x, d + 1), [..., n, r, ...]), [..., n·r, ...])
fn repeat_interleave_self_int<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let s = shape(x)?;
    if !has(cx, "dim") {
        return Err(
            "repeat_interleave without dim (over the flattened input) is not decomposed".into(),
        );
    }
    let dim = norm_dim(int_attr(cx, "dim")?, s.len())?;
    let r = int_attr(cx, "repeats")?;
    let up = unsqueeze(cx, x, dim + 1)?;
    let mut wide = shape(up)?;
    wide[dim + 1] = r;
    let expanded = aten(
        cx,
        "expand.default",
        &[up],
        tensor(cx, &wide, element(x)?)?,
        &[
            ("size", a_ints(cx, &wide)?),
            ("implicit", a_bool(cx, false)?),
        ],
    )?;
    let mut out = s.clone();
    out[dim] = if s[dim] < 0 { -1 } else { s[dim] * r };
    Ok(vec![view(cx, expanded, &out)?])
}

// aten.roll.default(%x) {shifts, dims}: per dim, with k = shift mod n,
//   cat(slice(x, n − k, n), slice(x, 0, n − k))
fn roll<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let mut x = cx.operand(0)?;
    let s = shape(x)?;
    let shifts = int_list_attr(cx, "shifts")?;
    let dims = get_ints_opt(cx, "dims")?.unwrap_or_default();
    if dims.is_empty() || dims.len() != shifts.len() {
        return Err("roll over the flattened input (no dims) is not decomposed".into());
    }
    for (shift, dim) in shifts.iter().zip(&dims) {
        let d = norm_dim(*dim, s.len())?;
        let n = s[d];
        if n < 0 {
            return Err(format!(
                "dim {d} of the input is dynamic; roll needs its size"
            ));
        }
        if n == 0 {
            return Err(format!("roll along the empty dim {d} is not decomposed"));
        }
        let k = shift.rem_euclid(n);
        if k == 0 {
            continue;
        }
        let tail = slice(cx, x, d, n - k, n)?;
        let head = slice(cx, x, d, 0, n - k)?;
        x = cat(cx, &[tail, head], d)?;
    }
    Ok(vec![x])
}

// aten.pad.default(%x) {pad, mode, value?}
//   constant → constant_pad_nd; reflect → reflection_pad{1,2,3}d; replicate → replication_pad{1,2,3}d
fn pad<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let widths = int_list_attr(cx, "pad")?;
    let mode = if has(cx, "mode") {
        str_attr(cx, "mode")?
    } else {
        "constant".into()
    };
    let ty = result(cx, 0)?;
    if mode == "constant" {
        let value = match cx.scalar("value") {
            Ok(v) => v,
            Err(_) => Scalar::Float(0.0),
        };
        let attrs = [
            ("pad", a_ints(cx, &widths)?),
            ("value", a_scalar(cx, value)?),
        ];
        return Ok(vec![aten(cx, "constant_pad_nd.default", &[x], ty, &attrs)?]);
    }
    let family = match mode.as_str() {
        "reflect" => "reflection",
        "replicate" => "replication",
        other => return Err(format!("padding mode '{other}' is not decomposed")),
    };
    let n = widths.len() / 2;
    if widths.len() % 2 != 0 || !(1..=3).contains(&n) {
        return Err(format!(
            "{mode} padding of {} widths is not decomposed",
            widths.len()
        ));
    }
    let key = format!("{family}_pad{n}d.default");
    Ok(vec![aten(
        cx,
        &key,
        &[x],
        ty,
        &[("padding", a_ints(cx, &widths)?)],
    )?])
}

// aten.pixel_unshuffle.default(%x) {downscale_factor = r}:  [N, C, H·r, W·r]
//   → view [N, C, H, r, W, r] → permute [0, 1, 3, 5, 2, 4] → view [N, C·r·r, H, W]
fn pixel_unshuffle<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let x = cx.operand(0)?;
    let s = shape(x)?;
    let r = int_attr(cx, "downscale_factor")?;
    if let Some(d) = (1..s.len()).find(|&d| s[d] < 0) {
        return Err(format!(
            "dim {d} of the input is dynamic; pixel_unshuffle needs its size"
        ));
    }
    if s.len() != 4 || r <= 0 || s[2] % r != 0 || s[3] % r != 0 {
        return Err("pixel_unshuffle needs an [N, C, H·r, W·r] input".into());
    }
    let (n, c, h, w) = (s[0], s[1], s[2] / r, s[3] / r);
    let split = view(cx, x, &[n, c, h, r, w, r])?;
    let moved = permute(cx, split, &[0, 1, 3, 5, 2, 4])?;
    Ok(vec![view(cx, moved, &[n, c * r * r, h, w])?])
}

/// One einsum operand: its letters and value.
struct Term<'c, 'a> {
    letters: Vec<char>,
    value: V<'c, 'a>,
}

// aten.einsum.default(%a, %b) {equation = "ab..,cd..->.."} (two operands, no
// ellipsis, no repeated letter): letters in both inputs and the output are
// batch dims, in both inputs only are contracted, in one input and the
// output are free:
//   bmm(view(permute(a), [B, M, K]), view(permute(b), [B, K, N]))
//   → view [batch.., m.., n..] → permute to the output's order
fn einsum<'c, 'a>(cx: Cx<'_, 'c, 'a>) -> Out<'c, 'a> {
    let equation: String = str_attr(cx, "equation")?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let (inputs, output) = equation
        .split_once("->")
        .ok_or("einsum without '->' is not decomposed")?;
    let names: Vec<&str> = inputs.split(',').collect();
    let operands: Vec<V> = cx.op().operands().collect();
    if names.len() != 2 || operands.len() != 2 || equation.contains('.') {
        return Err(format!(
            "einsum '{equation}' is not decomposed (two operands, no ellipsis)"
        ));
    }
    let a = Term {
        letters: names[0].chars().collect(),
        value: operands[0],
    };
    let b = Term {
        letters: names[1].chars().collect(),
        value: operands[1],
    };
    let out: Vec<char> = output.chars().collect();
    for t in [&a.letters, &b.letters, &out] {
        let mut sorted = t.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != t.len() {
            return Err(format!("einsum '{equation}' repeats a letter in one term"));
        }
    }
    if let Some(l) = out
        .iter()
        .find(|l| !a.letters.contains(l) && !b.letters.contains(l))
    {
        return Err(format!(
            "einsum '{equation}': output letter '{l}' is in no operand"
        ));
    }
    if a.letters
        .iter()
        .chain(&b.letters)
        .any(|l| !(out.contains(l) || (a.letters.contains(l) && b.letters.contains(l))))
    {
        return Err(format!(
            "einsum '{equation}' sums a letter of one operand only"
        ));
    }
    let batch: Vec<char> = out
        .iter()
        .copied()
        .filter(|l| a.letters.contains(l) && b.letters.contains(l))
        .collect();
    let contracted: Vec<char> = a
        .letters
        .iter()
        .copied()
        .filter(|l| b.letters.contains(l) && !out.contains(l))
        .collect();
    let m: Vec<char> = a
        .letters
        .iter()
        .copied()
        .filter(|l| !b.letters.contains(l))
        .collect();
    let n: Vec<char> = b
        .letters
        .iter()
        .copied()
        .filter(|l| !a.letters.contains(l))
        .collect();
    let lhs = to_matrix(cx, &a, &[&batch, &m, &contracted])?;
    let rhs = to_matrix(cx, &b, &[&batch, &contracted, &n])?;
    let (ls, rs) = (shape(lhs)?, shape(rhs)?);
    let product = aten(
        cx,
        "bmm.default",
        &[lhs, rhs],
        tensor(cx, &[ls[0], ls[1], rs[2]], element(lhs)?)?,
        &[],
    )?;
    let size = |t: &Term, l: &char| -> Result<i64, String> {
        let i = t.letters.iter().position(|x| x == l).ok_or("letter")?;
        Ok(shape(t.value)?[i])
    };
    let mut letters: Vec<char> = Vec::new();
    let mut dims = Vec::new();
    for l in batch.iter().chain(&m) {
        letters.push(*l);
        dims.push(size(&a, l)?);
    }
    for l in &n {
        letters.push(*l);
        dims.push(size(&b, l)?);
    }
    let unflat = view(cx, product, &dims)?;
    let order: Vec<usize> = out
        .iter()
        .map(|l| letters.iter().position(|x| x == l).unwrap_or(0))
        .collect();
    let y = if order.iter().enumerate().all(|(i, o)| i == *o) {
        unflat
    } else {
        permute(cx, unflat, &order)?
    };
    if y.r#type() != result(cx, 0)? {
        return Err(format!(
            "einsum '{equation}' gives {} instead of {}",
            y.r#type(),
            result(cx, 0)?
        ));
    }
    Ok(vec![y])
}

/// Permutes `t` to the letter groups' order and views it as one dim per group.
fn to_matrix<'c, 'a>(
    cx: Cx<'_, 'c, 'a>,
    t: &Term<'c, 'a>,
    groups: &[&Vec<char>; 3],
) -> Result<V<'c, 'a>, String> {
    let s = shape(t.value)?;
    let order: Vec<usize> = groups
        .iter()
        .flat_map(|g| {
            g.iter()
                .map(|l| t.letters.iter().position(|x| x == l).unwrap_or(0))
        })
        .collect();
    let moved = if order.iter().enumerate().all(|(i, o)| i == *o) {
        t.value
    } else {
        permute(cx, t.value, &order)?
    };
    let mut dims = Vec::new();
    for g in groups {
        let sizes: Vec<i64> = g
            .iter()
            .map(|l| s[t.letters.iter().position(|x| x == l).unwrap_or(0)])
            .collect();
        dims.push(numel(&sizes)?);
    }
    view(cx, moved, &dims)
}
