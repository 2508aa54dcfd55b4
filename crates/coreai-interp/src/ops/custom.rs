//! Kernels of coreai-torch 0.4.3's compression custom ops
//! (`torch.ops.coreai.*`), as the importer writes them:
//! `aten.operator "coreai::quantize.default"(...)` with the tensor arguments
//! as named operand groups and the others as attributes. The math is the
//! eager reference implementations' (`coreai_torch/_compression/custom_layers.py`):
//! each float step rounds to the dtype PyTorch computes it in, so the aten
//! stage of a compressed model runs like eager PyTorch. Registered under
//! `coreai::<op>.default` and the bare `coreai::<op>`. Also Python's
//! `builtins::round`, which an importer may write as a generic op.

use super::{one, Ctx, Table};
use crate::error::{kerr, KResult};
use crate::kernels::shape;
use crate::tensor::{DType, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};

/// The tensor argument `name` (absent: `None`, PyTorch's default).
fn named<'a>(c: &'a Ctx, name: &str) -> KResult<Option<&'a Tensor>> {
    match c.operand_group(name).as_deref() {
        None | Some([]) => Ok(None),
        Some([t]) => Ok(Some(t)),
        Some(g) => kerr(format!(
            "argument '{name}' has {} operands, not one",
            g.len()
        )),
    }
}

fn required<'a>(c: &'a Ctx, name: &str) -> KResult<&'a Tensor> {
    named(c, name)?.map_or_else(|| kerr(format!("missing tensor argument '{name}'")), Ok)
}

/// `a` rounded to `dt` (a PyTorch op's result in that dtype).
fn rounded(a: ArrayD<f64>, dt: DType) -> ArrayD<f64> {
    Tensor::from_f64(a, dt).to_f64()
}

/// The smallest value of the (possibly sub-byte) integer dtype named by
/// the attribute `name` (`input_dtype = i4` → -8).
fn dtype_min(c: &Ctx, name: &str) -> KResult<f64> {
    let Some(text) = c.attr(name).and_then(|a| a.as_type()).map(|t| t.to_text()) else {
        return kerr(format!(
            "minval needs the attribute '{name}' (the quantized dtype)"
        ));
    };
    let (signed, bits) = match text.strip_prefix("ui") {
        Some(b) => (false, b),
        None => (true, text.trim_start_matches('s').trim_start_matches('i')),
    };
    match bits.parse::<i32>() {
        Ok(b) if signed => Ok(-(2f64.powi(b - 1))),
        Ok(_) => Ok(0.0),
        Err(_) => kerr(format!("'{name}' = {text} is not an integer dtype")),
    }
}

/// For each element of an array of shape `outer` (row-major), the flat
/// index of the element of `inner` whose block holds it: dim `d` is cut
/// into `inner[d]` equal blocks (coreai-torch's `repeat_tensor_as`).
fn block_sources(outer: &[usize], inner: &[usize]) -> KResult<Vec<usize>> {
    if inner.len() < outer.len() || outer.iter().zip(inner).any(|(&n, &b)| b == 0 || n % b != 0) {
        return kerr(format!(
            "the blocks {inner:?} do not divide the shape {outer:?}"
        ));
    }
    let n: usize = outer.iter().product();
    Ok((0..n)
        .map(|flat| {
            let mut rem = flat;
            let mut pos = vec![0; outer.len()];
            for d in (0..outer.len()).rev() {
                pos[d] = rem % outer[d];
                rem /= outer[d];
            }
            (0..outer.len()).fold(0, |f, d| f * inner[d] + pos[d] / (outer[d] / inner[d]))
        })
        .collect())
}

/// `t` repeated blockwise to `shape` (same rank).
fn repeated(t: &Tensor, shape: &[usize]) -> KResult<ArrayD<f64>> {
    let src = block_sources(shape, &t.shape())?;
    let flat = t.to_f64();
    let flat: Vec<f64> = flat.iter().copied().collect();
    Ok(
        ArrayD::from_shape_vec(IxDyn(shape), src.iter().map(|&i| flat[i]).collect())
            .expect("sizes agree"),
    )
}

/// A 0-d or 1-d parameter reshaped to `[1, .., n at axis, .., 1]` and
/// broadcast to `shape` (`_expand_tensor`); a higher-rank one broadcast.
fn along_axis(t: &Tensor, axis: usize, shape: &[usize]) -> KResult<ArrayD<f64>> {
    let t = if t.ndim() <= 1 {
        let mut s = vec![1; shape.len()];
        if let Some(d) = s.get_mut(axis) {
            *d = t.len();
        }
        t.reshape(&s)?
    } else {
        t.clone()
    };
    Ok(shape::expand(&t, shape)?.to_f64())
}

/// Integer dequantization in the scale's dtype `dt`: `(x - zero_point) *
/// scale`, `(x - q_min) * scale + minval` or `x * scale`; float data:
/// `f32(x) * f32(scale)` to `dt`.
fn dequantized(x: &Tensor, scale: ArrayD<f64>, offset: Offset, dt: DType) -> KResult<Tensor> {
    if !dt.is_float() {
        return kerr(format!("dequantization produces floats, not {}", dt.name()));
    }
    if x.dtype().is_float() {
        let prod = rounded(
            &rounded(x.to_f64(), DType::F32) * &rounded(scale, DType::F32),
            DType::F32,
        );
        return Ok(Tensor::from_f64(prod, dt));
    }
    let xs = rounded(x.to_f64(), dt);
    let scale = rounded(scale, dt);
    let out = match offset {
        Offset::ZeroPoint(zp) => rounded(&rounded(&xs - &zp, dt) * &scale, dt),
        Offset::MinVal(qmin, minval) => {
            let shifted = rounded(xs.mapv(|v| v - qmin), dt);
            rounded(&rounded(&shifted * &scale, dt) + &rounded(minval, dt), dt)
        }
        Offset::None => rounded(&xs * &scale, dt),
    };
    Ok(Tensor::from_f64(out, dt))
}

/// The optional `zero_point` / `minval` of a (de)quantization, broadcast.
enum Offset {
    ZeroPoint(ArrayD<f64>),
    /// `q_min` of the quantized dtype and the broadcast `minval`.
    MinVal(f64, ArrayD<f64>),
    None,
}

fn offset(
    c: &Ctx,
    qmin: impl Fn() -> KResult<f64>,
    broadcast: impl Fn(&Tensor) -> KResult<ArrayD<f64>>,
) -> KResult<Offset> {
    match (named(c, "zero_point")?, named(c, "minval")?) {
        (Some(_), Some(_)) => kerr("zero_point and minval are mutually exclusive"),
        (Some(zp), None) => Ok(Offset::ZeroPoint(broadcast(zp)?)),
        (None, Some(mv)) => Ok(Offset::MinVal(qmin()?, broadcast(mv)?)),
        (None, None) => Ok(Offset::None),
    }
}

/// `lut_to_dense(indices, lut [blocks.., P, V], axis)`: index `i` of block
/// `b` picks the V-vector `lut[b.., i, :]`, laid along `axis` (which grows by V).
fn lut_to_dense(c: &Ctx) -> KResult<Vec<Value>> {
    let (idx, lut) = (required(c, "indices")?, required(c, "lut")?);
    let (is, ls) = (idx.shape(), lut.shape());
    let k = is.len();
    if ls.len() != k + 2 {
        return kerr(format!(
            "lut {ls:?} must be [blocks.., P, V] for indices {is:?}"
        ));
    }
    let (p, v) = (ls[k], ls[k + 1]);
    let axis = crate::kernels::reduce::norm_axis(c.i64_or("axis", 0)?, k.max(1))?;
    let blocks = block_sources(&is, &ls[..k])?;
    let ids = idx.to_i64_vec();
    // [*is, V] in row-major order, then V moved next to `axis` and merged.
    let mut src = Vec::with_capacity(ids.len() * v);
    for (n, &entry) in ids.iter().enumerate() {
        if entry < 0 || entry as usize >= p {
            return kerr(format!("index {entry} outside a palette of {p}"));
        }
        for lane in 0..v {
            src.push(((blocks[n] * p + entry as usize) * v + lane) as i64);
        }
    }
    let mut staged: Vec<usize> = is.clone();
    staged.push(v);
    let gathered = shape::index_select(&lut.reshape(&[lut.len()])?, 0, &src)?.reshape(&staged)?;
    let mut perm: Vec<usize> = (0..k).collect();
    perm.insert((axis + 1).min(k), k);
    let mut out_shape = is.clone();
    if k > 0 {
        out_shape[axis] *= v;
    }
    let moved = shape::permute(&gathered, &perm)?;
    one(moved.reshape(&out_shape)?.cast(c.out_dtype(0)?))
}

/// `constexpr_blockwise_shift_scale(input, scale, zero_point?, minval?,
/// input_dtype?, output_dtype?)`: every block of `input` shares one scale
/// (and offset).
fn blockwise_shift_scale(c: &Ctx) -> KResult<Vec<Value>> {
    let x = required(c, "input")?;
    let xs = x.shape();
    let scale = required(c, "scale")?;
    let offset = offset(c, || dtype_min(c, "input_dtype"), |t| repeated(t, &xs))?;
    one(dequantized(
        x,
        repeated(scale, &xs)?,
        offset,
        c.out_dtype(0)?,
    )?)
}

/// `dequantize(input, scale, zero_point?, minval?, axis, input_dtype?,
/// output_dtype?)`: per-tensor or per-channel along `axis`.
fn dequantize(c: &Ctx) -> KResult<Vec<Value>> {
    let x = required(c, "input")?;
    let xs = x.shape();
    let axis = crate::kernels::reduce::norm_axis(c.i64_or("axis", 0)?, xs.len().max(1))?;
    let scale = along_axis(required(c, "scale")?, axis, &xs)?;
    let offset = offset(
        c,
        || dtype_min(c, "input_dtype"),
        |t| along_axis(t, axis, &xs),
    )?;
    one(dequantized(x, scale, offset, c.out_dtype(0)?)?)
}

/// `quantize(input, scale, output_dtype, zero_point?, minval?, axis)`:
/// `clamp(round(x / scale) + zero_point, q_min, q_max)`, `clamp(round((x -
/// minval) / scale) + q_min, ..)` or `clamp(round(x / scale), ..)` in the
/// input's float dtype (round half to even); a float output dtype:
/// `f32(x) / f32(scale)` clamped to its finite range.
fn quantize(c: &Ctx) -> KResult<Vec<Value>> {
    let x = required(c, "input")?;
    let xs = x.shape();
    let dt = c.out_dtype(0)?;
    let axis = crate::kernels::reduce::norm_axis(c.i64_or("axis", 0)?, xs.len().max(1))?;
    let scale = along_axis(required(c, "scale")?, axis, &xs)?;
    let ft = x.dtype();
    if !ft.is_float() {
        return kerr(format!("quantize takes floats, not {}", ft.name()));
    }
    if dt.is_float() {
        let max = match dt {
            DType::F16 => 65504.0,
            DType::BF16 => 3.3895313892515355e38,
            DType::F32 => f32::MAX as f64,
            _ => f64::MAX,
        };
        let q = rounded(
            &rounded(x.to_f64(), DType::F32) / &rounded(scale, DType::F32),
            DType::F32,
        );
        return one(Tensor::from_f64(q.mapv(|v| v.clamp(-max, max)), dt));
    }
    let bits = dt.int_bits() as i32;
    let (lo, hi) = if dt.is_signed_int() {
        (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1) - 1.0)
    } else {
        (0.0, 2f64.powi(bits) - 1.0)
    };
    let xv = x.to_f64();
    let scale = rounded(scale, ft);
    let q = match offset(c, || Ok(lo), |t| along_axis(t, axis, &xs))? {
        Offset::ZeroPoint(zp) => rounded(
            &rounded(&xv / &scale, ft).mapv(f64::round_ties_even) + &zp,
            ft,
        ),
        Offset::MinVal(qmin, mv) => {
            let shifted = rounded(&xv - &rounded(mv, ft), ft);
            rounded(
                rounded(&shifted / &scale, ft).mapv(|v| v.round_ties_even() + qmin),
                ft,
            )
        }
        Offset::None => rounded(&xv / &scale, ft).mapv(f64::round_ties_even),
    };
    one(Tensor::from_f64(q.mapv(|v| v.clamp(lo, hi)), dt))
}

/// `sparse_to_dense(nonzero_data [N], mask)`: zeros of the mask's shape,
/// the data in row-major order where the mask is set.
fn sparse_to_dense(c: &Ctx) -> KResult<Vec<Value>> {
    let (data, mask) = (required(c, "nonzero_data")?, required(c, "mask")?);
    let mask = mask.to_bool();
    let set = mask.iter().filter(|&&m| m).count();
    if data.ndim() != 1 || data.len() != set {
        return kerr(format!(
            "nonzero_data of shape {:?} for a mask with {set} set entries",
            data.shape()
        ));
    }
    let values = data.to_f64();
    let mut next = values.iter();
    let dense = mask.mapv(|m| {
        if m {
            next.next().copied().unwrap_or(0.0)
        } else {
            0.0
        }
    });
    one(Tensor::from_f64(dense, c.out_dtype(0)?))
}

/// `builtins::round(x)`: Python's `round(x)` (the generic form of
/// `aten.round`), half to even, to the result's dtype; `round(x, ndigits)`
/// (an `arg1` attribute) is refused.
fn builtins_round(c: &Ctx) -> KResult<Vec<Value>> {
    if c.n_args() != 1 || c.attr("arg1").is_some() {
        return kerr("round(x, ndigits) is not executable; round(x) is");
    }
    let x = c.arg(0)?.to_f64();
    if x.iter().any(|v| !v.is_finite()) {
        return kerr("round of a non-finite value has no integer result");
    }
    one(Tensor::from_f64(
        x.mapv(f64::round_ties_even),
        c.out_dtype(0)?,
    ))
}

pub fn register(t: &mut Table) {
    t.insert("builtins::round", builtins_round);
    let kernels: [(&'static str, &'static str, super::Kernel); 5] = [
        (
            "coreai::lut_to_dense",
            "coreai::lut_to_dense.default",
            lut_to_dense,
        ),
        (
            "coreai::constexpr_blockwise_shift_scale",
            "coreai::constexpr_blockwise_shift_scale.default",
            blockwise_shift_scale,
        ),
        ("coreai::quantize", "coreai::quantize.default", quantize),
        (
            "coreai::dequantize",
            "coreai::dequantize.default",
            dequantize,
        ),
        (
            "coreai::sparse_to_dense",
            "coreai::sparse_to_dense.default",
            sparse_to_dense,
        ),
    ];
    for (bare, default, kernel) in kernels {
        t.insert(bare, kernel);
        t.insert(default, kernel);
    }
}
