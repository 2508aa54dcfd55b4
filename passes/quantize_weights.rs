//! `quantize-weights`: linear quantization of weights to 8, 4 or 2-bit
//! integers, one `coreai.blockwise_shift_scale` per weight.
//!
//! // %w = coreai.constant <float weight>
//! //   → %q = coreai.constant <codes: si8/ui8/si4/ui4/si2/ui2>
//! //     %s = coreai.constant <scales: the weight's float type>
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
//! Errors: a `block-size` that does not divide a weight's input-channel
//! axis is an error at the weight naming both (Apple's library skips such
//! a weight with a warning; a user who asked for blocks of 32 gets them or
//! is told). Unsupported here (yet): the 8- and 4-bit float formats
//! (`fp8e4m3fn`, `fp8e5m2`, `fp4e2m1fn`), which the executor cannot run.

use crate::compress::{
    compress_weights, keep_dense, parse_positive, weight, Blocks, Real, Selection, Weight,
};
use coreai_ir::dialects::coreai::BlockwiseShiftScaleOperation;
use coreai_ir::emit::constant;
use coreai_ir::lowering::{Decline, LoweringCx, UserLowering};
use coreai_ir::pass::{Pass, PassInfo, PassResult};
use coreai_ir::rewrite::RewriteOptions;
use coreai_ir::schema::tensor_type;
use coreai_ir::weights::{
    float_splat, int_splat, integer_type, pack_bits, release_pages, resource, FloatData,
    BLOB_ALIGNMENT,
};
use melior::ir::{
    operation::OperationRef,
    r#type::{RankedTensorType, ShapedTypeLike},
    Type, Value, ValueLike,
};
use std::sync::Arc;

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

fn parse_block_size(v: &str) -> Result<usize, String> {
    parse_positive(v, "block size")
}

coreai_ir::pass_options! {
    struct QuantizeWeights {
        "dtype" => dtype: (u32, bool) = "int8",
            "code type: int8, uint8, int4, uint4, int2, uint2",
            parse = parse_dtype;
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
            "keep a weight dense when its relative error ‖w - w'‖ / ‖w‖ would exceed this";
        "remarks" => remarks: bool = "false",
            "a remark per weight: its shape, blocks and relative error";
    }
}

impl Pass for QuantizeWeights {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        let selection = Selection {
            min_elements: self.min_elements,
            only: self.only.clone(),
            exclude: self.exclude.clone(),
        };
        let options = self.clone();
        let rewrite: UserLowering =
            Arc::new(move |cx: &LoweringCx<'_, '_>| quantize_weight(cx, &options));
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

/// Quantized codes, scales and zero points of a weight (row-major; one
/// scale and zero point per block).
pub(crate) struct Quantized<T> {
    pub codes: Vec<i16>,
    pub scales: Vec<T>,
    pub zero_points: Vec<i64>,
}

// %w = constant → blockwise_shift_scale(codes, scales, zero points, 0)
fn quantize_weight<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    options: &QuantizeWeights,
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
    let (bits, signed) = options.dtype;
    let (lo, hi) = code_range(bits, signed, options.symmetric);
    let ty = RankedTensorType::try_from(result.r#type()).map_err(|e| e.to_string())?;
    let float = ty.element();
    let grid: Vec<i64> = blocks.grid.iter().map(|&g| g as i64).collect();
    let shape: Vec<i64> = w.shape.iter().map(|&d| d as i64).collect();
    let measure = options.remarks || options.max_error.is_some();
    let (codes, scales, zero_points, error) = match &w.data {
        FloatData::F32(v) => {
            let q = quantize(v, &w.shape, &blocks, lo, hi, signed, options.symmetric);
            let e = measure.then(|| relative_error(v, &q, &w.shape, &blocks));
            (q.codes, f32::bytes(&q.scales), q.zero_points, e)
        }
        FloatData::F16(v) => {
            let q = quantize(v, &w.shape, &blocks, lo, hi, signed, options.symmetric);
            let e = measure.then(|| relative_error(v, &q, &w.shape, &blocks));
            (q.codes, half::f16::bytes(&q.scales), q.zero_points, e)
        }
    };
    if let (Some(error), Some(bound)) = (error, options.max_error) {
        if error > bound {
            return keep_dense(cx, &w, INFO.name, error, bound, options.remarks);
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
        code_blob(code_ty, &format!("{}.codes", w.name), &codes, bits),
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
            &zero_points,
            bits,
        )
    };
    let zero_points = constant(cx, grid_code_ty, zero_points)?;
    let zero = constant(
        cx,
        grid_float_ty,
        float_splat(grid_float_ty, 0.0).ok_or("cannot build the zero offset")?,
    )?;
    if let (Some(error), true) = (error, options.remarks) {
        eprintln!(
            "{}: {}: {:?} {} to {}{bits}, blocks {:?}, relative error {error:.3e}",
            INFO.name,
            cx.location(),
            w.shape,
            coreai_ir::lowering::type_text(float),
            if signed { "si" } else { "ui" },
            blocks.extent,
        );
    }
    let out = cx.build_value(
        BlockwiseShiftScaleOperation::name(),
        &[codes, scales, zero_points, zero],
        result.r#type(),
        &[],
    )?;
    Ok(vec![out])
}

/// Codes as a constant's value: a packed blob below 8 bits, a byte blob
/// at 8.
pub(crate) fn code_blob<'c, C: Copy + Into<i64>>(
    ty: Type<'c>,
    name: &str,
    codes: &[C],
    bits: u32,
) -> melior::ir::Attribute<'c> {
    let bytes = if bits < 8 {
        pack_bits(codes, bits)
    } else {
        codes.iter().map(|&c| c.into() as u8).collect()
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

pub(crate) fn quantize<T: Real + Send + Sync>(
    w: &[T],
    shape: &[usize],
    blocks: &Blocks,
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
                            RowBlocks::PerElement => {
                                let lows = &mut vmin[base..base + width];
                                let highs = &mut vmax[base..base + width];
                                for ((low, high), &x) in
                                    lows.iter_mut().zip(highs.iter_mut()).zip(xs)
                                {
                                    if x < *low {
                                        *low = x;
                                    }
                                    if x > *high {
                                        *high = x;
                                    }
                                }
                            }
                            RowBlocks::Runs(e) => {
                                for (k, run) in xs.chunks(e).enumerate() {
                                    let (mut low, mut high) = (vmin[base + k], vmax[base + k]);
                                    for &x in run {
                                        if x < low {
                                            low = x;
                                        }
                                        if x > high {
                                            high = x;
                                        }
                                    }
                                    (vmin[base + k], vmax[base + k]) = (low, high);
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
    let mut codes = vec![0i16; w.len()];
    let offsets: Vec<T> = zero_points.iter().map(|&z| T::of(z as f64)).collect();
    let (flo, fhi) = (lo as f64, hi as f64);
    std::thread::scope(|scope| {
        let mut rest = codes.as_mut_slice();
        for range in &chunks {
            let (mine, tail) = rest.split_at_mut(range.len() * width);
            rest = tail;
            let (rows, scales, offsets, range) = (&rows, &scales, &offsets, range.clone());
            scope.spawn(move || {
                for (k, r) in range.enumerate() {
                    let base = rows.base(r);
                    let xs = &w[r * width..(r + 1) * width];
                    let out = &mut mine[k * width..(k + 1) * width];
                    // q + z is exact (small integers): adding a zero z
                    // changes nothing.
                    let code =
                        |x: T, s: T, z: T| x.div(s).rint().add(z).get().clamp(flo, fhi) as i16;
                    match layout {
                        RowBlocks::PerElement => {
                            let (ss, zs) =
                                (&scales[base..base + width], &offsets[base..base + width]);
                            for (((o, &x), &s), &z) in out.iter_mut().zip(xs).zip(ss).zip(zs) {
                                *o = code(x, s, z);
                            }
                        }
                        RowBlocks::Runs(e) => {
                            for (k, (o, xs)) in out.chunks_mut(e).zip(xs.chunks(e)).enumerate() {
                                let (s, z) = (scales[base + k], offsets[base + k]);
                                for (o, &x) in o.iter_mut().zip(xs) {
                                    *o = code(x, s, z);
                                }
                            }
                        }
                        RowBlocks::Lookup => {
                            for ((o, &x), &c) in out.iter_mut().zip(xs).zip(&rows.column) {
                                *o = code(x, scales[base + c], offsets[base + c]);
                            }
                        }
                    }
                }
            });
        }
    });
    Quantized {
        codes,
        scales,
        zero_points,
    }
}

/// `‖w - (q - z)·s‖ / ‖w‖` in f64.
fn relative_error<T: Real>(w: &[T], q: &Quantized<T>, shape: &[usize], blocks: &Blocks) -> f64 {
    crate::compress::relative_error(w, shape, blocks, |e, b| {
        (q.codes[e] as i64 - q.zero_points[b]) as f64 * q.scales[b].get()
    })
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
        let q = quantize(&w, &[4], &blocks, -127, 127, true, true);
        let s = (4.0f32 + 1e-6f32) / 254.0f32;
        assert_eq!(q.scales, [s]);
        assert_eq!(q.codes, [127, -63, 32, 0]);
        assert_eq!(q.zero_points, [0]);
    }
}
