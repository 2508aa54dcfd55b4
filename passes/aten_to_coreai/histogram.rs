//! Histograms → coreai: `aten.histc` (transformers' MoE routers count the
//! rows of each expert with it).
//!
//! PyTorch's CPU kernel (`histogramdd_cpu_contiguous`, linear
//! interpolation without local search, the histc path) places an element
//! `x` of a float tensor in bin
//! `trunc(((x - lo) * bins) / (hi - lo))`, each operation in `x`'s dtype,
//! where `lo`, `hi` are `min`, `max` rounded to that dtype; `x == hi`
//! falls in the last bin, and elements outside `[lo, hi]` (NaN included)
//! in none. The lowering computes exactly that formula, then counts with a
//! one-hot comparison against the bin numbers summed in si32 and cast to
//! `x`'s dtype. PyTorch adds ones in `x`'s dtype instead, which agrees
//! while a bin holds at most 2^24 (f32), 2^11 (f16) or 2^8 (bf16)
//! elements: f16/bf16 inputs with more elements than that (or a dynamic
//! count) decline.
//!
//! Declines: `min == max` (PyTorch then takes the range from the data,
//! and how it widens an empty range depends on its version), `min > max`
//! or a non-finite bound (PyTorch raises), integer inputs (PyTorch's CPU
//! kernel rejects them), `bins < 1`.

use coreai_ir::emit::{arith, cast_to, float_scalar, int_vector, predicate, reshape, select};
use coreai_ir::lowering::{Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::{element_type, is_float, opt_int_attr, shape_of, tensor_type, DYNAMIC};
use melior::ir::{operation::OperationLike, Value, ValueLike};

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

pub static LOWERINGS: super::Family = &[("histc.default", histc)];

/// A `Scalar` attribute as f64, `default` when absent.
fn scalar_or(cx: &LoweringCx<'_, '_>, name: &str, default: f64) -> Result<f64, Decline> {
    if cx.op().attribute(name).is_err() {
        return Ok(default);
    }
    Ok(match cx.scalar(name)? {
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) => f,
    })
}

// aten.histc.default(%x) {bins = B, min, max}
//   → lo, hi    = constants min, max in x's dtype
//     inside    = (x > lo | x == lo) & (hi > x | x == hi)      (NaN: false)
//     xs        = where(inside, x, lo)
//     bin       = minimum(cast<si32>(((xs - lo) * B) / (hi - lo)), B - 1)
//     hist      = cast<dtype>(reduce_sum(cast<si32>((bin == [0..B)) & inside), 0))
fn histc<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let element = element_type(x)?;
    if !is_float(element) {
        return Err(format!(
            "histc of {}: PyTorch's CPU kernel takes float tensors only",
            x.r#type()
        ));
    }
    let bins = opt_int_attr(cx, "bins")?.unwrap_or(100);
    if bins < 1 {
        return Err(format!(
            "histc with bins = {bins}: PyTorch needs at least one bin"
        ));
    }
    let (min, max) = (scalar_or(cx, "min", 0.0)?, scalar_or(cx, "max", 0.0)?);
    if !min.is_finite() || !max.is_finite() {
        return Err(format!(
            "histc with range [{min}, {max}]: PyTorch raises on a non-finite range"
        ));
    }
    if min == max {
        return Err(format!(
            "histc with min == max ({min}) takes its range from the data at run time, which is not lowered; pass min < max"
        ));
    }
    if min > max {
        return Err(format!("histc with min {min} > max {max}: PyTorch raises"));
    }
    let shape = shape_of(x)?;
    let count = if shape.contains(&DYNAMIC) {
        None
    } else {
        Some(shape.iter().product::<i64>())
    };
    let exact_counts: i64 = match &*coreai_ir::lowering::type_text(element) {
        "f16" => 1 << 11,
        "bf16" => 1 << 8,
        "f32" => 1 << 24,
        _ => i64::MAX,
    };
    // A dynamic f32 input is taken: 2^24 rows per bin is beyond any shape
    // the executors run.
    let f32_or_wider = exact_counts >= 1 << 24;
    if count.map_or(!f32_or_wider, |n| n > exact_counts) {
        return Err(format!(
            "histc of {}: PyTorch counts in {element}, which is exact only up to {exact_counts} elements per bin; cast the input to f32",
            x.r#type()
        ));
    }
    // f32 bounds rounded here, so the constant is exactly PyTorch's edge.
    let round = |v: f64| {
        if coreai_ir::lowering::type_text(element) == "f32" {
            f64::from(v as f32)
        } else {
            v
        }
    };
    let flat = reshape(cx, x, &[count.unwrap_or(DYNAMIC), 1])?;
    let lo = float_scalar(cx, round(min), element)?;
    let hi = float_scalar(cx, round(max), element)?;
    let at_least = predicate(
        cx,
        coreai::OR,
        predicate(cx, coreai::GREATER, flat, lo)?,
        predicate(cx, coreai::EQUAL, flat, lo)?,
    )?;
    let at_most = predicate(
        cx,
        coreai::OR,
        predicate(cx, coreai::GREATER, hi, flat)?,
        predicate(cx, coreai::EQUAL, flat, hi)?,
    )?;
    let inside = predicate(cx, coreai::AND, at_least, at_most)?;
    let xs = select(cx, inside, flat, lo)?;
    let scaled = arith(
        cx,
        coreai::MUL,
        arith(cx, coreai::SUB, xs, lo)?,
        float_scalar(cx, bins as f64, element)?,
    )?;
    // hi - lo: an f32 constant computed here with f32 arithmetic (the
    // value PyTorch divides by); in other dtypes a subtraction in the graph.
    let width = if coreai_ir::lowering::type_text(element) == "f32" {
        float_scalar(
            cx,
            f64::from(round(max) as f32 - round(min) as f32),
            element,
        )?
    } else {
        arith(cx, coreai::SUB, hi, lo)?
    };
    let position = arith(cx, coreai::DIVIDE, scaled, width)?;
    let si32 = cx.parse_type("si32")?;
    let bin = arith(
        cx,
        coreai::MINIMUM,
        cast_to(cx, position, si32)?,
        coreai_ir::emit::int_scalar(cx, bins - 1, "si32")?,
    )?;
    let numbers = reshape(
        cx,
        int_vector(cx, &(0..bins).collect::<Vec<_>>(), "si32")?,
        &[1, bins],
    )?;
    let hits = predicate(
        cx,
        coreai::AND,
        predicate(cx, coreai::EQUAL, bin, numbers)?,
        inside,
    )?;
    let axis = int_vector(cx, &[0], "si32")?;
    let sums = cx.build_value(
        coreai::REDUCE_SUM,
        &[cast_to(cx, hits, si32)?, axis],
        tensor_type(&[1, bins], si32),
        &[],
    )?;
    let hist = cast_to(cx, reshape(cx, sums, &[bins])?, element)?;
    let result = cx.result_type(0)?;
    if hist.r#type() != result {
        return Err(format!("histc gives {}, not {result}", hist.r#type()));
    }
    Ok(vec![hist])
}
