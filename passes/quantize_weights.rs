//! `quantize-weights`: linear quantization of weights to 8, 4 or 2-bit
//! integers or to 8- and 4-bit floats, one `coreai.blockwise_shift_scale`
//! per weight.
//!
//! // %w = coreai.constant <float weight>
//! //   → %q = coreai.constant <codes: si8/ui8/si4/ui4/si2/ui2,
//! //                                  f8E4M3FN/f8E5M2/f4E2M1FN>
//! //     %s = coreai.constant <scales: the weight's float type, or f8E8M0FNU>
//! //     %z = coreai.constant <zero points: the codes' type>
//! //     %0 = coreai.constant <zeros: the weight's float type>
//! //     %w' = coreai.blockwise_shift_scale %q, %s, %z, %0
//!
//! `blockwise_shift_scale(q, s, z, 0) = (q - z) * s` with `s` and `z`
//! repeated over each block. Which constants are weights, and their channel
//! axes, is `compress.rs`'s rule (Apple's). A block is one output channel
//! and `block-size` consecutive input channels (`per-block`), one output
//! channel (`per-channel`) or the whole weight (`per-tensor`).
//!
//! Arithmetic, per block, in the weight's float type `T` (f32 or f16), as
//! coreai-opt 0.3.0's `quantize_weights` computes it (its results are this
//! pass's test oracle, bit for bit): with the code range `[lo, hi]`
//! (signed: `[-2^(b-1), 2^(b-1)-1]`, the lowest code dropped when
//! symmetric; unsigned: `[0, 2^b-1]`, the highest dropped when symmetric)
//! and `ε = 1e-6` in `T`:
//!   - symmetric: `m = max|w|`, `vmin = -m`, `vmax = m`; asymmetric:
//!     `vmin = min(0, min w)`, `vmax = max(0, max w)`;
//!   - `s = ((vmax - vmin) + ε) / (hi - lo)`;
//!   - `z = 0` (signed symmetric), `hi / 2` rounded down (unsigned
//!     symmetric), `clip(rint((lo·vmax - hi·vmin) / ((vmax - vmin) + ε)), lo, hi)`
//!     (asymmetric);
//!   - `q = clip(rint(w / s) + z, lo, hi)`, `rint` rounding half to even.
//!
//! Error: `|w - (q - z)·s| ≤ s/2` for every element (the clip cannot bind:
//! `|w/s| ≤ (hi-lo)/2` by construction), so the per-block error is at most
//! half a step; `remarks=true` prints each weight's relative error
//! `‖w - w'‖ / ‖w‖` measured on the result.
//!
//! Storage: codes of fewer than 8 bits are packed into their blob
//! (`coreai_ir::weights`); a splat (all zero points equal, the zero
//! offset) is an inline splat. Blob names derive from the weight's
//! (`<name>.codes`, `.scales`, `.zero_points`), so output is deterministic.
//!
//! `budget-mb=B` (integer codes) chooses each weight's width, `dtype`'s up
//! to 8 bits or dense, so the weights take at most `B` MB: the greedy
//! allocation of `quantize_weights/budget.rs`. `calibration=FILE.npz`
//! measures errors (for `max-error`, `remarks` and the budget) at the
//! outputs of each weight's layers (`compress/calibration.rs`).
//!
//! Errors: a `block-size` that does not divide a weight's input-channel
//! axis is an error at the weight naming both (Apple's library skips such
//! a weight with a warning; a user who asked for blocks of 32 gets them or
//! is told).
//!
//! Float codes (`fp8e4m3fn`, `fp8e5m2`; `fp4e2m1fn` is MXFP4) are
//! symmetric with zero points 0 of the code type, and `F` the format's
//! largest finite value (448, 57344, 6):
//!   - with scales in the weight's type (fp8's default), as coreai-opt
//!     0.3.0 computes them, bit for bit: `s = (2m + ε) / 2F` in `T`,
//!     `q = RNE_fmt(clip(w / s, -F, F))` (`minifloat.rs`'s encoding,
//!     ml_dtypes' rounding); where `2F` overflows `T` (f8E5M2 codes of an
//!     f16 weight) that division is in f64, rounded once (coreai-opt
//!     divides by ∞ there, and every scale is 0);
//!   - with power-of-two scales (`scale-dtype=fp8e8m0fnu`, and always for
//!     fp4, which also requires `granularity=per-block block-size=32`: the
//!     MX block), `s = 2^e` with `e` the one of `E = ⌈log2(m / F)⌉` and
//!     `E - 1` whose codes `q = RNE_fmt(clip(w / 2^e, -F, F))` give the
//!     block the smaller `Σ (w - q·2^e)²` (`E` on a tie; an all-zero block
//!     takes `e = 0`), `e` kept to where `2^e` is a value of `T`. This
//!     differs from coreai-opt 0.3.0 on purpose: it computes the codes
//!     with `(2m + ε) / 2F` and then rounds that scale to a power of two,
//!     so every code of a block is off by the rounding's factor (up to
//!     √2; a Gaussian 64×48 layer's output is 19% off, rms, in
//!     coreai-core's runtime). Here `2^e` is chosen first, so each
//!     element's error is at most half a code step or the clip that
//!     saves more than it costs.

use crate::compress::{
    calibrate, compress_weights, keep_dense, parse_positive, weight, Blocks, Measured, Meter, Real,
    Selection, Weight,
};
use coreai_ir::dialects::coreai::BlockwiseShiftScaleOperation;
use coreai_ir::emit::constant;
use coreai_ir::lowering::{Decline, LoweringCx, UserLowering};
use coreai_ir::minifloat::MiniFloat;
use coreai_ir::pass::{Pass, PassInfo, PassResult};
use coreai_ir::rewrite::RewriteOptions;
use coreai_ir::schema::tensor_type;
use coreai_ir::weights::{
    float_splat, int_splat, integer_type, minifloat_type, pack_code_bytes, pack_code_bytes_into,
    release_pages, resource, FloatData, BLOB_ALIGNMENT,
};
use melior::ir::{
    operation::OperationRef,
    r#type::{RankedTensorType, ShapedTypeLike},
    Type, Value, ValueLike,
};
use std::sync::Arc;

mod budget;

pub const INFO: PassInfo = PassInfo {
    name: "quantize-weights",
    summary: "Quantize weights to 8/4/2-bit integers with per-tensor, per-channel or per-block scales (coreai.blockwise_shift_scale)",
    source: include_str!("quantize_weights.rs"),
    anchor: None,
    options: QuantizeWeights::OPTIONS,
    create: || Box::new(QuantizeWeights::default()),
};

/// The integer code types.
const DTYPES: &[(&str, u32, bool)] = &[
    ("int8", 8, true),
    ("uint8", 8, false),
    ("int4", 4, true),
    ("uint4", 4, false),
    ("int2", 2, true),
    ("uint2", 2, false),
];

pub(crate) fn parse_dtype(v: &str) -> Result<(u32, bool), String> {
    DTYPES
        .iter()
        .find(|(name, ..)| *name == v.trim())
        .map(|&(_, bits, signed)| (bits, signed))
        .ok_or_else(|| {
            let names: Vec<&str> = DTYPES.iter().map(|d| d.0).collect();
            format!("'{}' is not one of {}", v.trim(), names.join(", "))
        })
}

/// How a weight is divided into blocks that share a scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Granularity {
    PerTensor,
    PerChannel,
    PerBlock,
}

fn parse_granularity(v: &str) -> Result<Granularity, String> {
    match v.trim() {
        "per-tensor" => Ok(Granularity::PerTensor),
        "per-channel" => Ok(Granularity::PerChannel),
        "per-block" => Ok(Granularity::PerBlock),
        other => Err(format!(
            "'{other}' is not one of per-tensor, per-channel, per-block"
        )),
    }
}

fn parse_symmetric(v: &str) -> Result<bool, String> {
    match v.trim() {
        "symmetric" => Ok(true),
        "asymmetric" => Ok(false),
        other => Err(format!("'{other}' is not one of symmetric, asymmetric")),
    }
}

/// What a weight's codes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codes {
    /// `bits`-bit integers, signed or not.
    Int(u32, bool),
    /// A small float format.
    Float(MiniFloat),
}

impl Codes {
    /// The codes' element type (in the context of `like`).
    pub(crate) fn element(self, like: Type<'_>) -> Type<'_> {
        match self {
            Codes::Int(bits, signed) => integer_type(like, bits, signed),
            Codes::Float(format) => minifloat_type(like, format),
        }
    }
}

const FLOAT_DTYPES: &[(&str, MiniFloat)] = &[
    ("fp8e4m3fn", MiniFloat::F8E4M3FN),
    ("fp8e5m2", MiniFloat::F8E5M2),
    ("fp4e2m1fn", MiniFloat::F4E2M1FN),
];

fn parse_codes(v: &str) -> Result<Codes, String> {
    if let Some(&(_, f)) = FLOAT_DTYPES.iter().find(|(name, _)| *name == v.trim()) {
        return Ok(Codes::Float(f));
    }
    parse_dtype(v)
        .map(|(bits, signed)| Codes::Int(bits, signed))
        .map_err(|_| {
            let names: Vec<&str> = DTYPES
                .iter()
                .map(|d| d.0)
                .chain(FLOAT_DTYPES.iter().map(|d| d.0))
                .collect();
            format!("'{}' is not one of {}", v.trim(), names.join(", "))
        })
}

/// An optional 8-bit code type (palette entries, sparse kept values):
/// `int8`, `uint8`, `fp8e4m3fn`, `fp8e5m2`, or empty for none.
pub(crate) fn parse_8bit_codes(v: &str) -> Result<Option<Codes>, String> {
    match v.trim() {
        "" => Ok(None),
        "int8" => Ok(Some(Codes::Int(8, true))),
        "uint8" => Ok(Some(Codes::Int(8, false))),
        "fp8e4m3fn" => Ok(Some(Codes::Float(MiniFloat::F8E4M3FN))),
        "fp8e5m2" => Ok(Some(Codes::Float(MiniFloat::F8E5M2))),
        other => Err(format!(
            "'{other}' is not one of int8, uint8, fp8e4m3fn, fp8e5m2"
        )),
    }
}

fn parse_scale_dtype(v: &str) -> Result<Option<MiniFloat>, String> {
    match v.trim() {
        "" => Ok(None),
        "fp8e8m0fnu" => Ok(Some(MiniFloat::F8E8M0FNU)),
        other => Err(format!(
            "'{other}' is not fp8e8m0fnu (or empty: the weight's own type)"
        )),
    }
}

fn parse_block_size(v: &str) -> Result<usize, String> {
    parse_positive(v, "block size")
}

coreai_ir::pass_options! {
    struct QuantizeWeights {
        "dtype" => dtype: Codes = "int8",
            "code type: int8, uint8, int4, uint4, int2, uint2, fp8e4m3fn, fp8e5m2, fp4e2m1fn (MXFP4)",
            parse = parse_codes;
        "scale-dtype" => scale_dtype: Option<MiniFloat> = "",
            "fp8e8m0fnu: power-of-two scales (fp8 codes; always for fp4); empty: the weight's type",
            parse = parse_scale_dtype;
        "qscheme" => symmetric: bool = "symmetric",
            "symmetric (zero point fixed) or asymmetric (zero point per block)",
            parse = parse_symmetric;
        "granularity" => granularity: Granularity = "per-channel",
            "per-tensor, per-channel (one scale per output channel) or per-block",
            parse = parse_granularity;
        "block-size" => block_size: usize = "32",
            "input channels per block with granularity=per-block",
            parse = parse_block_size;
        "min-elements" => min_elements: i64 = "1024",
            "only weights of more elements than this are quantized";
        "only" => only: Vec<String> = "",
            "quantize only weights whose location or blob name contains one of these";
        "exclude" => exclude: Vec<String> = "",
            "keep weights whose location or blob name contains one of these";
        "max-error" => max_error: Option<f64> = "",
            "keep a weight dense when its relative error ‖w - w'‖ / ‖w‖ (with calibration=, at its layers' outputs) would exceed this";
        "budget-mb" => budget_mb: Option<f64> = "",
            "integer codes: choose each weight's width (dtype's up to 8 bits, or dense) so the weights take at most this many MB (10^6 bytes)";
        "calibration" => calibration: Option<String> = "",
            "FILE.npz: inputs of @main; max-error and remarks measure each weight's error at the outputs of the layers reading it";
        "remarks" => remarks: bool = "false",
            "a remark per weight: its shape, blocks and relative error";
    }
}

impl Pass for QuantizeWeights {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        if let Err(e) = self.check() {
            coreai_ir::raw::emit_error(root.to_raw(), &format!("{}: {e}", INFO.name));
            return Err(coreai_ir::pass::PassFailed);
        }
        let selection = Selection {
            min_elements: self.min_elements,
            only: self.only.clone(),
            exclude: self.exclude.clone(),
        };
        let calibration = calibrate(root, self.calibration.as_deref(), &selection, INFO.name)?;
        let plan = match self.budget_mb {
            None => None,
            Some(budget) => {
                let plan = budget::plan(root, &selection, self, budget, calibration.as_deref())
                    .map_err(|e| {
                        coreai_ir::raw::emit_error(root.to_raw(), &format!("{}: {e}", INFO.name));
                        coreai_ir::pass::PassFailed
                    })?;
                if self.remarks {
                    eprintln!("{}: {}", INFO.name, plan.summary);
                }
                Some(Arc::new(plan))
            }
        };
        let options = self.clone();
        let rewrite: UserLowering = Arc::new(move |cx: &LoweringCx<'_, '_>| {
            let op = cx.op().to_raw().ptr as usize;
            let meter = Meter {
                calibration: calibration.as_deref(),
                op,
            };
            match plan.as_ref().and_then(|p| p.choices.get(&op)) {
                None => quantize_weight(cx, &options, meter),
                Some(budget::Choice::Dense) => budget_keeps_dense(cx, &options),
                Some(&budget::Choice::Bits(bits)) => {
                    let mut at = options.clone();
                    if let Codes::Int(_, signed) = at.dtype {
                        at.dtype = Codes::Int(bits, signed);
                    }
                    quantize_weight(cx, &at, meter)
                }
            }
        });
        compress_weights(
            root,
            rewrites,
            INFO.name,
            "quantize the weight with",
            &selection,
            rewrite,
        )
    }
}

/// A weight the size budget leaves dense: the same constant again.
fn budget_keeps_dense<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    options: &QuantizeWeights,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let result = cx.op().result(0).map_err(|e| e.to_string())?;
    let w = weight(result.into())?;
    if options.remarks {
        eprintln!(
            "{}: {}: {:?} kept dense: the budget allows it",
            INFO.name,
            cx.location(),
            w.shape
        );
    }
    Ok(vec![constant(cx, result.r#type(), w.attr)?])
}

impl QuantizeWeights {
    /// Options that cannot go together: one error naming them.
    fn check(&self) -> Result<(), String> {
        match self.dtype {
            Codes::Int(..) if self.scale_dtype.is_some() => Err(
                "scale-dtype=fp8e8m0fnu is for float codes (dtype=fp8e4m3fn, fp8e5m2, \
                 fp4e2m1fn), not integers"
                    .into(),
            ),
            Codes::Float(_) if self.budget_mb.is_some() => Err(
                "budget-mb chooses among integer code widths: dtype=int8, int4, int2 or unsigned"
                    .into(),
            ),
            Codes::Float(_) if !self.symmetric => {
                Err("qscheme=asymmetric: float codes are symmetric (their zero point is 0)".into())
            }
            Codes::Float(MiniFloat::F4E2M1FN)
                if self.granularity != Granularity::PerBlock || self.block_size != 32 =>
            {
                Err(format!(
                    "dtype=fp4e2m1fn is MXFP4, which takes granularity=per-block \
                     block-size=32 (not {}{})",
                    granularity_name(self.granularity),
                    if self.granularity == Granularity::PerBlock {
                        format!(" block-size={}", self.block_size)
                    } else {
                        String::new()
                    }
                ))
            }
            _ => Ok(()),
        }
    }

    /// The scale format: powers of two for fp4 and when asked for.
    fn power_of_two_scales(&self) -> bool {
        self.scale_dtype.is_some() || self.dtype == Codes::Float(MiniFloat::F4E2M1FN)
    }
}

fn granularity_name(g: Granularity) -> &'static str {
    match g {
        Granularity::PerTensor => "granularity=per-tensor",
        Granularity::PerChannel => "granularity=per-channel",
        Granularity::PerBlock => "granularity=per-block",
    }
}

/// Quantized codes, scales and zero points of a weight (row-major; one
/// scale and zero point per block). The codes are the blob's bytes: each
/// code's low `bits` bits (two's complement when signed), packed below 8
/// bits ([`code_at`]).
pub(crate) struct Quantized<T> {
    pub codes: Vec<u8>,
    pub bits: u32,
    pub scales: Vec<T>,
    pub zero_points: Vec<i64>,
}

// %w = constant → blockwise_shift_scale(codes, scales, zero points, 0)
fn quantize_weight<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    options: &QuantizeWeights,
    meter: Meter<'_>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let result: Value<'c, 'a> = cx.op().result(0).map_err(|e| e.to_string())?.into();
    let w = weight(result)?;
    let blocks = block_sizes(&w, options)?;
    let blocks = Blocks::new(&w.shape, &blocks).map_err(|e| {
        format!(
            "block-size={}: {e} of the weight {:?} (a block size that divides it, or \
                 exclude= with the weight's name, keeps it)",
            options.block_size, w.shape
        )
    })?;
    let (bits, signed) = match options.dtype {
        Codes::Int(bits, signed) => (bits, signed),
        Codes::Float(format) => {
            return quantize_float_weight(cx, options, w, blocks, format, meter)
        }
    };
    let (lo, hi) = code_range(bits, signed, options.symmetric);
    let ty = RankedTensorType::try_from(result.r#type()).map_err(|e| e.to_string())?;
    let float = ty.element();
    let grid: Vec<i64> = blocks.grid.iter().map(|&g| g as i64).collect();
    let shape: Vec<i64> = w.shape.iter().map(|&d| d as i64).collect();
    let measure = options.remarks || options.max_error.is_some();
    type Run = (Vec<u8>, Vec<u8>, Vec<i64>, Option<Measured>);
    fn run<T: Real + Send + Sync>(
        v: &[T],
        w: &Weight<'_>,
        blocks: &Blocks,
        (bits, lo, hi, signed, symmetric, measure): (u32, i64, i64, bool, bool, bool),
        meter: Meter<'_>,
    ) -> Result<Run, String> {
        let q = quantize(v, &w.shape, blocks, bits, lo, hi, signed, symmetric);
        let e = measure
            .then(|| {
                meter.measure(v, &w.shape, blocks, |e, b| {
                    (code_at(&q.codes, e, q.bits, signed) - q.zero_points[b]) as f64
                        * q.scales[b].get()
                })
            })
            .transpose()?;
        Ok((q.codes, T::bytes(&q.scales), q.zero_points, e))
    }
    let how = (bits, lo, hi, signed, options.symmetric, measure);
    let (codes, scales, zero_points, error) = match &w.data {
        FloatData::F32(v) => run(v, &w, &blocks, how, meter)?,
        FloatData::F16(v) => run(v, &w, &blocks, how, meter)?,
    };
    if let (Some(error), Some(bound)) = (error, options.max_error) {
        if error.error > bound {
            return keep_dense(cx, &w, INFO.name, &error, bound, options.remarks);
        }
    }
    release_pages(w.attr);
    let code_element = integer_type(float, bits, signed);
    let code_ty = tensor_type(&shape, code_element);
    let grid_code_ty = tensor_type(&grid, code_element);
    let grid_float_ty = tensor_type(&grid, float);
    let codes = constant(
        cx,
        code_ty,
        resource(code_ty, &format!("{}.codes", w.name), codes, BLOB_ALIGNMENT),
    )?;
    let scales = constant(
        cx,
        grid_float_ty,
        resource(
            grid_float_ty,
            &format!("{}.scales", w.name),
            scales,
            BLOB_ALIGNMENT,
        ),
    )?;
    let zero_points = if zero_points.iter().all(|&z| z == zero_points[0]) {
        int_splat(grid_code_ty, zero_points[0]).ok_or("cannot build the zero point splat")?
    } else {
        code_blob(
            grid_code_ty,
            &format!("{}.zero_points", w.name),
            zero_points.iter().map(|&z| z as u8).collect(),
            bits,
        )
    };
    let zero_points = constant(cx, grid_code_ty, zero_points)?;
    let zero = constant(
        cx,
        grid_float_ty,
        float_splat(grid_float_ty, 0.0).ok_or("cannot build the zero offset")?,
    )?;
    let to = format!("{}{bits}", if signed { "si" } else { "ui" });
    shift_scale(
        cx,
        options,
        &w,
        &blocks,
        &to,
        error,
        [codes, scales, zero_points, zero],
    )
}

/// With `remarks=true` the weight's line, then the
/// `blockwise_shift_scale` of codes, scales, zero points and offsets.
fn shift_scale<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    options: &QuantizeWeights,
    w: &Weight<'c>,
    blocks: &Blocks,
    to: &str,
    error: Option<Measured>,
    operands: [Value<'c, 'a>; 4],
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let result = cx.op().result(0).map_err(|e| e.to_string())?;
    if let (Some(error), true) = (error, options.remarks) {
        let float = RankedTensorType::try_from(result.r#type())
            .map_err(|e| e.to_string())?
            .element();
        eprintln!(
            "{}: {}: {:?} {} to {to}, blocks {:?}, {error}",
            INFO.name,
            cx.location(),
            w.shape,
            coreai_ir::lowering::type_text(float),
            blocks.extent,
        );
    }
    let out = cx.build_value(
        BlockwiseShiftScaleOperation::name(),
        &operands,
        result.r#type(),
        &[],
    )?;
    Ok(vec![out])
}

/// Float codes of a weight: one code per element, and per block a scale
/// of the weight's type or (power-of-two scales) an exponent.
pub(crate) struct FloatQuantized<T> {
    pub codes: Vec<u8>,
    pub scales: FloatScales<T>,
}

pub(crate) enum FloatScales<T> {
    Float(Vec<T>),
    /// `2^e` per block.
    Exponent(Vec<i32>),
}

impl<T: Real> FloatQuantized<T> {
    pub(crate) fn scale(&self, b: usize) -> f64 {
        match &self.scales {
            FloatScales::Float(s) => s[b].get(),
            FloatScales::Exponent(e) => 2f64.powi(e[b]),
        }
    }
}

/// The exponents `e` for which `2^e` is a value of `T` and of f8E8M0FNU.
fn exponent_range<T: Real>() -> (i32, i32) {
    // f16: 2^-24 (its smallest subnormal) to 2^15; f32: e8m0's own range.
    if T::of(2f64.powi(-25)).get() == 0.0 {
        (-24, 15)
    } else {
        (-127, 127)
    }
}

/// Each block's largest magnitude.
fn block_amax<T: Real>(w: &[T], shape: &[usize], blocks: &Blocks) -> Vec<f64> {
    let mut amax = vec![0.0f64; blocks.count()];
    blocks.for_each(shape, |e, b| {
        let a = w[e].get().abs();
        if a > amax[b] {
            amax[b] = a;
        }
    });
    amax
}

/// Float codes with scales in `T`, coreai-opt 0.3.0's arithmetic (see the
/// header), or with power-of-two scales chosen per block.
pub(crate) fn quantize_float<T: Real>(
    w: &[T],
    shape: &[usize],
    blocks: &Blocks,
    format: MiniFloat,
    power_of_two: bool,
) -> FloatQuantized<T> {
    let big = format.max();
    let amax = block_amax(w, shape, blocks);
    let mut codes = vec![0u8; w.len()];
    if !power_of_two {
        let two_f = T::of(2.0 * big);
        let scales: Vec<T> = amax
            .iter()
            .map(|&m| {
                let span = T::of(m).add(T::of(m)).add(T::of(EPS));
                if two_f.get().is_finite() {
                    span.div(two_f)
                } else {
                    // 2F overflows T (f8E5M2's 114688 in f16): coreai-opt
                    // divides by infinity there and zeroes the weight; the
                    // quotient in f64, rounded once, is the intended scale.
                    T::of(span.get() / (2.0 * big))
                }
            })
            .collect();
        let (lo, hi) = (T::of(-big), T::of(big));
        blocks.for_each(shape, |e, b| {
            let mut x = w[e].div(scales[b]);
            if x < lo {
                x = lo;
            }
            if x > hi {
                x = hi;
            }
            codes[e] = format.encode(x.get());
        });
        return FloatQuantized {
            codes,
            scales: FloatScales::Float(scales),
        };
    }
    let (emin, emax) = exponent_range::<T>();
    let code = |x: f64, e: i32| format.encode((x / 2f64.powi(e)).clamp(-big, big));
    // E = ⌈log2(m / F)⌉: the least e with m ≤ F·2^e.
    let upper: Vec<i32> = amax
        .iter()
        .map(|&m| {
            if m == 0.0 || !m.is_finite() {
                return 0;
            }
            let mut e = (m / big).log2().ceil() as i32;
            while big * 2f64.powi(e) < m {
                e += 1;
            }
            while big * 2f64.powi(e - 1) >= m {
                e -= 1;
            }
            e.clamp(emin, emax)
        })
        .collect();
    let sse = |shift: i32| {
        let mut sse = vec![0.0f64; amax.len()];
        blocks.for_each(shape, |e, b| {
            let x = w[e].get();
            let s = (upper[b] - shift).clamp(emin, emax);
            let d = x - format.decode(code(x, s)) * 2f64.powi(s);
            sse[b] += d * d;
        });
        sse
    };
    let (at_upper, below) = (sse(0), sse(1));
    let exponents: Vec<i32> = (0..amax.len())
        .map(|b| {
            if amax[b] != 0.0 && below[b] < at_upper[b] {
                (upper[b] - 1).clamp(emin, emax)
            } else {
                upper[b]
            }
        })
        .collect();
    blocks.for_each(shape, |e, b| codes[e] = code(w[e].get(), exponents[b]));
    FloatQuantized {
        codes,
        scales: FloatScales::Exponent(exponents),
    }
}

// %w = constant → blockwise_shift_scale(float codes, scales, 0, 0)
fn quantize_float_weight<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    options: &QuantizeWeights,
    w: Weight<'c>,
    blocks: Blocks,
    format: MiniFloat,
    meter: Meter<'_>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let result: Value<'c, 'a> = cx.op().result(0).map_err(|e| e.to_string())?.into();
    let ty = RankedTensorType::try_from(result.r#type()).map_err(|e| e.to_string())?;
    let float = ty.element();
    let grid: Vec<i64> = blocks.grid.iter().map(|&g| g as i64).collect();
    let shape: Vec<i64> = w.shape.iter().map(|&d| d as i64).collect();
    let measure = options.remarks || options.max_error.is_some();
    let pow2 = options.power_of_two_scales();
    type Run = (Vec<u8>, Vec<u8>, Option<Measured>);
    fn run<T: Real>(
        v: &[T],
        w: &Weight<'_>,
        blocks: &Blocks,
        (format, pow2, measure): (MiniFloat, bool, bool),
        meter: Meter<'_>,
    ) -> Result<Run, String> {
        let q = quantize_float(v, &w.shape, blocks, format, pow2);
        let e = measure
            .then(|| {
                meter.measure(v, &w.shape, blocks, |e, b| {
                    format.decode(q.codes[e]) * q.scale(b)
                })
            })
            .transpose()?;
        Ok((q.codes, scale_blob(q.scales), e))
    }
    let how = (format, pow2, measure);
    let (codes, scale_bytes, error) = match &w.data {
        FloatData::F32(v) => run(v, &w, &blocks, how, meter)?,
        FloatData::F16(v) => run(v, &w, &blocks, how, meter)?,
    };
    if let (Some(error), Some(bound)) = (error, options.max_error) {
        if error.error > bound {
            return keep_dense(cx, &w, INFO.name, &error, bound, options.remarks);
        }
    }
    release_pages(w.attr);
    let code_element = minifloat_type(float, format);
    let code_ty = tensor_type(&shape, code_element);
    let grid_code_ty = tensor_type(&grid, code_element);
    let grid_float_ty = tensor_type(&grid, float);
    let scale_ty = if pow2 {
        tensor_type(&grid, minifloat_type(float, MiniFloat::F8E8M0FNU))
    } else {
        grid_float_ty
    };
    let codes = constant(
        cx,
        code_ty,
        code_blob(code_ty, &format!("{}.codes", w.name), codes, format.bits()),
    )?;
    let scales = constant(
        cx,
        scale_ty,
        resource(
            scale_ty,
            &format!("{}.scales", w.name),
            scale_bytes,
            BLOB_ALIGNMENT,
        ),
    )?;
    let zero_points = constant(
        cx,
        grid_code_ty,
        float_splat(grid_code_ty, 0.0).ok_or("cannot build the zero point splat")?,
    )?;
    let zero = constant(
        cx,
        grid_float_ty,
        float_splat(grid_float_ty, 0.0).ok_or("cannot build the zero offset")?,
    )?;
    let to = format!(
        "{}{}",
        format.mlir_name(),
        if pow2 { " with f8E8M0FNU scales" } else { "" }
    );
    shift_scale(
        cx,
        options,
        &w,
        &blocks,
        &to,
        error,
        [codes, scales, zero_points, zero],
    )
}

/// A weight's scales as blob bytes: `T`'s, or one f8E8M0FNU code each.
fn scale_blob<T: Real>(scales: FloatScales<T>) -> Vec<u8> {
    match scales {
        FloatScales::Float(s) => T::bytes(&s),
        FloatScales::Exponent(e) => e.into_iter().map(MiniFloat::exponent_code).collect(),
    }
}

/// Codes (their low 8 bits) as a constant's value: a packed blob below 8
/// bits, the bytes themselves at 8.
pub(crate) fn code_blob<'c>(
    ty: Type<'c>,
    name: &str,
    codes: Vec<u8>,
    bits: u32,
) -> melior::ir::Attribute<'c> {
    let bytes = if bits < 8 {
        pack_code_bytes(&codes, bits)
    } else {
        codes
    };
    resource(ty, name, bytes, BLOB_ALIGNMENT)
}

/// Per-axis block sizes (0: the whole axis) for the granularity.
fn block_sizes(w: &Weight<'_>, options: &QuantizeWeights) -> Result<Vec<usize>, String> {
    let rank = w.shape.len();
    let mut sizes = vec![0; rank];
    match options.granularity {
        Granularity::PerTensor => {}
        Granularity::PerChannel => {
            if w.out_axis < rank {
                sizes[w.out_axis] = 1;
            }
        }
        Granularity::PerBlock => {
            if w.out_axis < rank {
                sizes[w.out_axis] = 1;
            }
            if w.in_axis < rank {
                sizes[w.in_axis] = options.block_size;
            }
        }
    }
    Ok(sizes)
}

/// The code range of `bits`-bit codes.
pub(crate) fn code_range(bits: u32, signed: bool, symmetric: bool) -> (i64, i64) {
    if signed {
        let lo = -(1i64 << (bits - 1));
        (
            if symmetric { lo + 1 } else { lo },
            (1i64 << (bits - 1)) - 1,
        )
    } else {
        let hi = (1i64 << bits) - 1;
        (0, if symmetric { hi - 1 } else { hi })
    }
}

const EPS: f64 = 1e-6;

/// How a row's elements map to blocks.
#[derive(Clone, Copy)]
enum RowBlocks {
    /// Element `j` is in block `base + j`.
    PerElement,
    /// Runs of this many elements: run `k` is block `base + k`.
    Runs(usize),
    /// Element `j` is in block `base + column[j]`.
    Lookup,
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn quantize<T: Real + Send + Sync>(
    w: &[T],
    shape: &[usize],
    blocks: &Blocks,
    bits: u32,
    lo: i64,
    hi: i64,
    signed: bool,
    symmetric: bool,
) -> Quantized<T> {
    let n = blocks.count();
    let rows = blocks.rows(shape);
    let width = rows.column.len();
    let chunks = rows.chunks(crate::compress::threads());
    // A row's blocks are its element's own (one output channel per column:
    // a matmul weight's blocks run down the input channels) or one: slices
    // then replace the per-element block lookup (the common cases, and the
    // loops the compiler vectorizes).
    let run = rows.column.iter().take_while(|&&c| c == 0).count().max(1);
    let layout = if rows.column.iter().enumerate().any(|(j, &c)| c != j / run) {
        RowBlocks::Lookup
    } else if run == 1 {
        RowBlocks::PerElement
    } else {
        RowBlocks::Runs(run)
    };
    // Each worker's ranges over its rows, merged in order (min and max are
    // exact, so the result does not depend on the split).
    let ranges: Vec<(Vec<T>, Vec<T>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = chunks
            .iter()
            .map(|range| {
                let rows = &rows;
                let range = range.clone();
                scope.spawn(move || {
                    let mut vmin = vec![T::of(f64::INFINITY); n];
                    let mut vmax = vec![T::of(f64::NEG_INFINITY); n];
                    for r in range {
                        let base = rows.base(r);
                        let xs = &w[r * width..(r + 1) * width];
                        match layout {
                            RowBlocks::PerElement => widen(
                                &mut vmin[base..base + width],
                                &mut vmax[base..base + width],
                                xs,
                            ),
                            RowBlocks::Runs(e) => {
                                for (k, run) in xs.chunks(e).enumerate() {
                                    let (low, high) = run_range(run);
                                    let (b_low, b_high) = (vmin[base + k], vmax[base + k]);
                                    vmin[base + k] = if low < b_low { low } else { b_low };
                                    vmax[base + k] = if high > b_high { high } else { b_high };
                                }
                            }
                            RowBlocks::Lookup => {
                                for (&x, &c) in xs.iter().zip(&rows.column) {
                                    let b = base + c;
                                    if x < vmin[b] {
                                        vmin[b] = x;
                                    }
                                    if x > vmax[b] {
                                        vmax[b] = x;
                                    }
                                }
                            }
                        }
                    }
                    (vmin, vmax)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|h| h.join().expect("a range worker panicked"))
            .collect()
    });
    let mut vmin = vec![T::of(f64::INFINITY); n];
    let mut vmax = vec![T::of(f64::NEG_INFINITY); n];
    for (mins, maxs) in &ranges {
        for b in 0..n {
            if mins[b] < vmin[b] {
                vmin[b] = mins[b];
            }
            if maxs[b] > vmax[b] {
                vmax[b] = maxs[b];
            }
        }
    }
    drop(ranges);
    let zero = T::of(0.0);
    let eps = T::of(EPS);
    let (tlo, thi) = (T::of(lo as f64), T::of(hi as f64));
    let range = T::of((hi - lo) as f64);
    let mut scales = Vec::with_capacity(n);
    let mut zero_points = Vec::with_capacity(n);
    for b in 0..n {
        let (mut a, mut z) = (vmin[b], vmax[b]);
        if symmetric {
            let m = if a.abs() > z.abs() { a.abs() } else { z.abs() };
            a = T::of(-m.get());
            z = m;
        } else {
            if zero < a {
                a = zero;
            }
            if zero > z {
                z = zero;
            }
        }
        let span = z.sub(a).add(eps);
        scales.push(span.div(range));
        let zp = if !symmetric {
            let v = tlo.mul(z).sub(thi.mul(a)).div(span).rint().get();
            v.clamp(lo as f64, hi as f64) as i64
        } else if !signed {
            hi / 2
        } else {
            0
        };
        zero_points.push(zp);
    }
    // Rows that fill whole bytes are packed as they are made (no byte per
    // code in between); others are packed at the end.
    let packed_rows = bits < 8 && 8 % bits == 0 && (width * bits as usize).is_multiple_of(8);
    let row_bytes = if packed_rows {
        width * bits as usize / 8
    } else {
        width
    };
    let mut codes = vec![0u8; rows.count * row_bytes];
    let offsets: Vec<T> = zero_points.iter().map(|&z| T::of(z as f64)).collect();
    std::thread::scope(|scope| {
        let mut rest = codes.as_mut_slice();
        for range in &chunks {
            let (mine, tail) = rest.split_at_mut(range.len() * row_bytes);
            rest = tail;
            let (rows, scales, offsets, range) = (&rows, &scales, &offsets, range.clone());
            scope.spawn(move || {
                let mut row = vec![0u8; if packed_rows { width } else { 0 }];
                for (k, r) in range.enumerate() {
                    let base = rows.base(r);
                    let xs = &w[r * width..(r + 1) * width];
                    let dest = &mut mine[k * row_bytes..(k + 1) * row_bytes];
                    let out: &mut [u8] = if packed_rows { &mut row } else { dest };
                    let bounds = (tlo, thi);
                    match layout {
                        RowBlocks::PerElement => {
                            let (ss, zs) =
                                (&scales[base..base + width], &offsets[base..base + width]);
                            T::codes_each(xs, ss, zs, bounds, out);
                        }
                        RowBlocks::Runs(e) => {
                            for (k, (o, xs)) in out.chunks_mut(e).zip(xs.chunks(e)).enumerate() {
                                T::codes(xs, scales[base + k], offsets[base + k], bounds, o);
                            }
                        }
                        RowBlocks::Lookup => {
                            for ((o, &x), &c) in out.iter_mut().zip(xs).zip(&rows.column) {
                                *o = T::code(x, scales[base + c], offsets[base + c], bounds);
                            }
                        }
                    }
                    if packed_rows {
                        pack_code_bytes_into(&row, bits, dest);
                    }
                }
            });
        }
    });
    if bits < 8 && !packed_rows {
        codes = pack_code_bytes(&codes, bits);
    }
    Quantized {
        codes,
        bits,
        scales,
        zero_points,
    }
}

/// The value of code `e` of a blob of `bits`-bit codes ([`Quantized`]).
pub(crate) fn code_at(codes: &[u8], e: usize, bits: u32, signed: bool) -> i64 {
    if bits == 8 {
        return code_value(codes[e], signed);
    }
    let bit = e * bits as usize;
    let pair = codes[bit / 8] as u16 | (codes.get(bit / 8 + 1).copied().unwrap_or(0) as u16) << 8;
    let v = (pair >> (bit % 8)) & ((1 << bits) - 1);
    if signed && v >> (bits - 1) != 0 {
        v as i64 - (1 << bits)
    } else {
        v as i64
    }
}

/// Each `lows[j]`/`highs[j]` widened to include `xs[j]` (a NaN is
/// skipped). Selects over equal-length slices, so the loop vectorizes.
fn widen<T: Real>(lows: &mut [T], highs: &mut [T], xs: &[T]) {
    let n = xs.len();
    let (lows, highs) = (&mut lows[..n], &mut highs[..n]);
    for j in 0..n {
        let x = xs[j];
        let (low, high) = (lows[j], highs[j]);
        lows[j] = if x < low { x } else { low };
        highs[j] = if x > high { x } else { high };
    }
}

/// The least and greatest of `xs` (NaNs skipped; ±∞ when there is none),
/// in 8 lanes: a min and a max per element form a loop-carried chain that
/// lanes break, and the lanes vectorize. (Exact: the extremes do not
/// depend on the order.)
fn run_range<T: Real>(xs: &[T]) -> (T, T) {
    const LANES: usize = 8;
    let mut lows = [T::of(f64::INFINITY); LANES];
    let mut highs = [T::of(f64::NEG_INFINITY); LANES];
    let mut chunks = xs.chunks_exact(LANES);
    for chunk in &mut chunks {
        widen(&mut lows, &mut highs, chunk);
    }
    widen(&mut lows, &mut highs, chunks.remainder());
    let (mut low, mut high) = (lows[0], highs[0]);
    for j in 1..LANES {
        low = if lows[j] < low { lows[j] } else { low };
        high = if highs[j] > high { highs[j] } else { high };
    }
    (low, high)
}

/// The value of a code's low 8 bits.
pub(crate) fn code_value(code: u8, signed: bool) -> i64 {
    if signed {
        code as i8 as i64
    } else {
        code as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_ranges_drop_one_end_when_symmetric() {
        assert_eq!(code_range(8, true, true), (-127, 127));
        assert_eq!(code_range(8, true, false), (-128, 127));
        assert_eq!(code_range(4, false, true), (0, 14));
        assert_eq!(code_range(4, false, false), (0, 15));
        assert_eq!(code_range(2, true, true), (-1, 1));
    }

    #[test]
    fn int8_symmetric_per_tensor_by_hand() {
        // max |w| = 2: s = (4 + 1e-6) / 254 in f32; codes rint(w / s).
        let w = [2.0f32, -1.0, 0.5, 0.0];
        let blocks = Blocks::new(&[4], &[0]).unwrap();
        let q = quantize(&w, &[4], &blocks, 8, -127, 127, true, true);
        let s = (4.0f32 + 1e-6f32) / 254.0f32;
        assert_eq!(q.scales, [s]);
        let values: Vec<i64> = q.codes.iter().map(|&c| code_value(c, true)).collect();
        assert_eq!(values, [127, -63, 32, 0]);
        assert_eq!(q.zero_points, [0]);
    }
}
