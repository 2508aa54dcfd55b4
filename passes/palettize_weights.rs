//! `palettize-weights`: each weight as `n-bits`-bit indices into a palette
//! (a look-up table) of `2^n-bits` values, one `coreai.lut_to_dense` per
//! weight.
//!
//! // %w = coreai.constant <float weight>
//! //   → %i = coreai.constant <indices: ui1 … ui8, the weight's shape (output axis / cluster-dim)>
//! //     %t = coreai.constant <palettes: grid × 2^n × cluster-dim, the weight's float type>
//! //     %a = coreai.constant dense<0 (cluster-dim > 1: the output axis)> : tensor<si16>
//! //     %w' = coreai.lut_to_dense %i, %t, %a
//!
//! Which constants are weights, and their output-channel axis, is
//! `compress.rs`'s rule (Apple's). `per-tensor` gives the weight one
//! palette; `per-grouped-channel` one per `group-size` consecutive output
//! channels (the palette tensor has the number of groups on the output
//! axis, as Apple's library writes it).
//!
//! The palette of a group is an optimal 1-D k-means of its values, not a
//! heuristic. The values are gathered into the buckets Apple's library
//! clusters (each weight rounded to f16, then to 4 decimals: [`buckets_of_f16`]);
//! the clusters are the contiguous runs of buckets that minimize
//! the sum of squared errors over the exact values (dynamic programming,
//! divide and conquer on the monotone split points: O(k·u·log u) for `u`
//! buckets and `k` clusters, over only the cells the answer reads, about
//! half the table); each palette entry is the exact mean of its
//! cluster's values, in the weight's type. Apple's clusters are contiguous
//! runs of the same buckets, with entries that are not their
//! cluster's exact mean, so each of our palettes has a sum of squared
//! errors at most Apple's (up to the rounding of an entry to the weight's
//! type); test/e2e/test_compression.py measures it weight by weight.
//! A group with no more distinct buckets than entries keeps each bucket's
//! mean (its values exactly, when each bucket holds one value); unused
//! entries are 0.
//!
//! `cluster-dim=d` > 1 (coreai-opt's `cluster_dim`, its op form): each
//! palette entry is a vector of `d` consecutive elements along the output
//! axis, which is the look-up's axis; the indices have that axis `d` times
//! shorter and the palettes `[grid..., 2^n, d]`. Element
//! `e = (o·n + c)·inner + r` of an output axis of `n` is lane `c % d` of
//! the vector at index position `(o·(n/d) + c/d)·inner + r`. The palette of
//! a group is a k-means of its vectors (in two or more dimensions the
//! optimal clusters are NP-hard to find), in f64 over their exact values:
//! 16 k-means++ seedings from fixed seeds (fewer on groups of more than
//! 2^16 vectors), each run by Lloyd's iterations to convergence (or an
//! iteration lowering the error by less than 10^-6 of it), the best
//! refined by Hartigan's single moves (`palettize_weights/kmeans.rs`).
//! Each entry is its cluster's mean rounded once to the weight's type, the
//! entries in lexicographic order (unused ones 0), and each vector takes
//! the nearest rounded entry. A group with no more distinct vectors than
//! entries keeps each exactly. Apple's library clusters the vectors
//! rounded to f16 and to 4 decimals, with one scikit-learn seeding and a
//! loose tolerance; on every weight of test/e2e/test_compression.py our
//! sum of squared errors is at most Apple's (measured there, not a bound).
//! `d` must divide the output channels of a palette (the axis, or
//! `group-size`) and, where a convolution of `g` groups reads the weight,
//! each group's (coreai-opt's rules). `lut-dtype` quantizes vector
//! entries like scalar ones.
//!
//! Indices of fewer than 8 bits are packed into their blob
//! (`coreai_ir::weights`). Blob names derive from the weight's
//! (`<name>.indices`, `.palettes`).
//!
//! `per-channel-scale=true` (coreai-opt's `enable_per_channel_scale`):
//! the weight is divided by `s`, its largest magnitude across the output
//! channels (one per position of the other axes; 1 where it is 0), the
//! palettes are of `w / s`, and the look-up is followed by
//! `blockwise_shift_scale(·, s, 0, 0)`. Each value weighs `s²` in the
//! clustering, so the palettes minimize the error of the weight itself,
//! `Σ s²·(w/s - c)²` (Apple's k-means minimizes the error of `w / s`).
//!
//! `lut-dtype=int8|uint8|fp8e4m3fn|fp8e5m2`: the palettes, all of a
//! weight's together, are quantized by quantize-weights' symmetric
//! per-tensor rule for that code type, in the weight's type; the look-up
//! yields codes, cast to the weight's type, then
//! `blockwise_shift_scale(·, s_lut·s, z, 0)` (`s = 1` without per-channel
//! scales; `z` 127 for uint8, else 0) — coreai-opt's op chain. Two of
//! coreai-opt 0.3.0's results are wrong, and ours differ on purpose: with
//! both options it keeps the first channel's fused scale for every
//! channel; with f8E5M2 palettes its scale, computed in f16, overflows.
//!
//! Errors: a `group-size` that does not divide a weight's output channels is
//! an error at the weight naming both, as is a `cluster-dim` that does not
//! fit a weight (above; coreai-opt skips such a weight with a warning);
//! `n-bits` outside 1, 2, 3, 4, 6, 8 is an option error, as are a
//! `lut-dtype` other than the four and `cluster-dim` > 1 with
//! `per-channel-scale=true` (which coreai-opt rejects too).

mod kmeans;

use crate::compress::{
    calibrate, compress_weights, keep_dense, parse_positive, weight, Blocks, Measured, Meter, Real,
    Selection, Weight,
};
use crate::quantize_weights::{
    code_at, code_blob, code_range, parse_8bit_codes, quantize, quantize_float, Codes,
};
use coreai_ir::dialects::coreai::{
    BlockwiseShiftScaleOperation, Conv2dOperation, LutToDenseOperation,
};
use coreai_ir::emit::{cast_to, constant};
use coreai_ir::lowering::{Decline, LoweringCx, Scalar, UserLowering};
use coreai_ir::pass::{Pass, PassInfo, PassResult};
use coreai_ir::rewrite::RewriteOptions;
use coreai_ir::schema::{tensor_type, uses};
use coreai_ir::weights::{
    constant_value, element_scalars, float_splat, int_splat, integer_type, release_pages, resource,
    FloatData, BLOB_ALIGNMENT,
};
use melior::ir::{
    operation::{OperationLike, OperationRef},
    r#type::{RankedTensorType, ShapedTypeLike},
    Type, Value, ValueLike,
};
use std::sync::Arc;

pub const INFO: PassInfo = PassInfo {
    name: "palettize-weights",
    summary: "Palettize weights: n-bit indices into optimal 1-D k-means palettes (or k-means palettes of vectors along the output channels) per tensor or per group of output channels (coreai.lut_to_dense)",
    source: include_str!("palettize_weights.rs"),
    anchor: None,
    options: PalettizeWeights::OPTIONS,
    create: || Box::new(PalettizeWeights::default()),
};

pub(crate) fn parse_bits(v: &str) -> Result<u32, String> {
    match v.trim().parse::<u32>() {
        Ok(n @ (1 | 2 | 3 | 4 | 6 | 8)) => Ok(n),
        _ => Err(format!("'{}' is not one of 1, 2, 3, 4, 6, 8", v.trim())),
    }
}

fn parse_grouped(v: &str) -> Result<bool, String> {
    match v.trim() {
        "per-tensor" => Ok(false),
        "per-grouped-channel" => Ok(true),
        other => Err(format!(
            "'{other}' is not one of per-tensor, per-grouped-channel"
        )),
    }
}

fn parse_group_size(v: &str) -> Result<usize, String> {
    parse_positive(v, "group size")
}

fn parse_cluster_dim(v: &str) -> Result<usize, String> {
    parse_positive(v, "cluster dimension")
}

coreai_ir::pass_options! {
    struct PalettizeWeights {
        "n-bits" => bits: u32 = "4", "index bits: 1, 2, 3, 4, 6 or 8 (a palette of 2^n-bits entries)",
            parse = parse_bits;
        "granularity" => grouped: bool = "per-tensor",
            "per-tensor (one palette) or per-grouped-channel (one per group-size output channels)",
            parse = parse_grouped;
        "group-size" => group_size: usize = "32",
            "output channels per palette with granularity=per-grouped-channel",
            parse = parse_group_size;
        "cluster-dim" => cluster_dim: usize = "1",
            "palette entries of this many consecutive output channels (vector palettes; 1: scalar entries)",
            parse = parse_cluster_dim;
        "min-elements" => min_elements: i64 = "1024",
            "only weights of more elements than this are palettized";
        "only" => only: Vec<String> = "",
            "palettize only weights whose location or blob name contains one of these";
        "exclude" => exclude: Vec<String> = "",
            "keep weights whose location or blob name contains one of these";
        "lut-dtype" => lut_dtype: Option<Codes> = "",
            "palette entries as int8, uint8, fp8e4m3fn or fp8e5m2 codes with one scale (empty: the weight's type)",
            parse = parse_8bit_codes;
        "per-channel-scale" => per_channel_scale: bool = "false",
            "divide the weight by its largest magnitude across the output channels before palettizing, and multiply back after the look-up";
        "max-error" => max_error: Option<f64> = "",
            "keep a weight dense when its relative error ‖w - w'‖ / ‖w‖ (with calibration=, at its layers' outputs) would exceed this";
        "calibration" => calibration: Option<String> = "",
            "FILE.npz: inputs of @main; max-error and remarks measure each weight's error at the outputs of the layers reading it";
        "remarks" => remarks: bool = "false",
            "a remark per weight: its shape, palettes and relative error";
    }
}

impl Pass for PalettizeWeights {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        if self.cluster_dim > 1 && self.per_channel_scale {
            // coreai-opt rejects the pair too.
            coreai_ir::raw::emit_error(
                root.to_raw(),
                &format!(
                    "{}: cluster-dim={} with per-channel-scale=true: per-channel scales are \
                     for scalar palettes (cluster-dim=1)",
                    INFO.name, self.cluster_dim
                ),
            );
            return Err(coreai_ir::pass::PassFailed);
        }
        let selection = Selection {
            min_elements: self.min_elements,
            only: self.only.clone(),
            exclude: self.exclude.clone(),
        };
        let calibration = calibrate(root, self.calibration.as_deref(), &selection, INFO.name)?;
        let options = self.clone();
        let rewrite: UserLowering = Arc::new(move |cx: &LoweringCx<'_, '_>| {
            let meter = Meter {
                calibration: calibration.as_deref(),
                op: cx.op().to_raw().ptr as usize,
            };
            palettize_weight(cx, &options, meter)
        });
        compress_weights(
            root,
            rewrites,
            INFO.name,
            "palettize the weight with",
            &selection,
            rewrite,
        )
    }
}

// %w = constant → lut_to_dense(indices, palettes, axis), then with
// lut-dtype or per-channel-scale blockwise_shift_scale(cast(·), scales, z, 0)
fn palettize_weight<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    options: &PalettizeWeights,
    meter: Meter<'_>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let result: Value<'c, 'a> = cx.op().result(0).map_err(|e| e.to_string())?.into();
    let w = weight(result)?;
    let mut sizes = vec![0; w.shape.len()];
    if options.grouped && w.out_axis < sizes.len() {
        sizes[w.out_axis] = options.group_size;
    }
    let blocks = Blocks::new(&w.shape, &sizes).map_err(|e| {
        format!(
            "group-size={}: {e} of the weight {:?} (a group size that divides it, or \
             exclude= with the weight's name, keeps it)",
            options.group_size, w.shape
        )
    })?;
    let vectors = VectorAxis::new(result, &w, options)?;
    let measure = options.remarks || options.max_error.is_some();
    let p = match &w.data {
        FloatData::F32(v) => {
            palettize_values(v, &w, &blocks, &vectors, options, measure.then_some(meter))?
        }
        FloatData::F16(v) => {
            palettize_values(v, &w, &blocks, &vectors, options, measure.then_some(meter))?
        }
    };
    if let (Some(error), Some(bound)) = (p.error, options.max_error) {
        if error.error > bound {
            return keep_dense(cx, &w, INFO.name, &error, bound, options.remarks);
        }
    }
    release_pages(w.attr);
    let ty = RankedTensorType::try_from(result.r#type()).map_err(|e| e.to_string())?;
    let float = ty.element();
    let entries = 1usize << options.bits;
    let mut lut_shape: Vec<i64> = blocks.grid.iter().map(|&g| g as i64).collect();
    lut_shape.extend([entries as i64, vectors.d as i64]);
    if let (Some(error), true) = (p.error, options.remarks) {
        let lut = options.lut_dtype.map_or(String::new(), |c| match c {
            Codes::Int(bits, signed) => {
                format!(" of {}{bits} codes", if signed { "si" } else { "ui" })
            }
            Codes::Float(f) => format!(" of {} codes", f.mlir_name()),
        });
        eprintln!(
            "{}: {}: {:?} {} to ui{} indices, {} palette(s) of {entries}{}{lut}{}, {error}",
            INFO.name,
            cx.location(),
            w.shape,
            coreai_ir::lowering::type_text(float),
            options.bits,
            blocks.count(),
            if vectors.d > 1 {
                format!(" vectors of {} along axis {}", vectors.d, vectors.axis)
            } else {
                String::new()
            },
            if options.per_channel_scale {
                ", per-channel scales"
            } else {
                ""
            },
        );
    }
    let element = options.lut_dtype.map_or(float, |c| c.element(float));
    let dims: Vec<i64> = w.shape.iter().map(|&d| d as i64).collect();
    let looked_up = lut_to_dense(
        cx,
        tensor_type(&dims, element),
        (&format!("{}.indices", w.name), p.indices, options.bits),
        (&format!("{}.palettes", w.name), &lut_shape, p.palettes),
        vectors.axis,
    )?;
    let Some(shift) = p.shift else {
        return Ok(vec![looked_up]);
    };
    // (x - z)·s over the scales' shape: the per-channel scales' (the
    // weight's, its output axis 1), or one of each.
    let mut scale_dims = vec![1i64; dims.len()];
    if options.per_channel_scale {
        scale_dims.clone_from(&dims);
        if let Some(d) = scale_dims.get_mut(w.out_axis) {
            *d = 1;
        }
    }
    let scale_ty = tensor_type(&scale_dims, float);
    let scales = if let [one] = shift.scales[..] {
        float_splat(scale_ty, one).ok_or("cannot build the scale splat")?
    } else {
        resource(
            scale_ty,
            &format!("{}.scales", w.name),
            shift.bytes,
            BLOB_ALIGNMENT,
        )
    };
    let splat = |v: f64| -> Result<Value<'c, 'a>, Decline> {
        let attr = float_splat(scale_ty, v).ok_or("cannot build a splat")?;
        constant(cx, scale_ty, attr)
    };
    let operands = [
        cast_to(cx, looked_up, float)?,
        constant(cx, scale_ty, scales)?,
        splat(shift.zero_point)?,
        splat(0.0)?,
    ];
    let out = cx.build_value(
        BlockwiseShiftScaleOperation::name(),
        &operands,
        result.r#type(),
        &[],
    )?;
    Ok(vec![out])
}

/// A weight palettized: what its constants hold.
struct Palettized {
    indices: Vec<u8>,
    /// The palettes' bytes: of the weight's type, or `lut-dtype` codes.
    palettes: Vec<u8>,
    /// The `blockwise_shift_scale` after the look-up, if any.
    shift: Option<Shift>,
    error: Option<Measured>,
}

/// `(x - zero_point)·scales`: one scale, or one per position of the
/// weight without its output axis (values of the weight's type, and their
/// bytes).
struct Shift {
    scales: Vec<f64>,
    bytes: Vec<u8>,
    zero_point: f64,
}

/// The weight's output axis: element `e` is at position
/// `(e / (n·inner))·inner + e % inner` of the weight without it.
struct ChannelAxis {
    n: usize,
    inner: usize,
}

impl ChannelAxis {
    fn new(shape: &[usize], axis: usize) -> Self {
        match shape.get(axis) {
            Some(&n) => Self {
                n,
                inner: shape[axis + 1..].iter().product(),
            },
            // No output axis: the whole weight is one position.
            None => Self {
                n: shape.iter().product(),
                inner: 1,
            },
        }
    }
    fn position(&self, e: usize) -> usize {
        e / (self.n * self.inner) * self.inner + e % self.inner
    }
}

/// Where a palette entry's values sit in the weight. Scalar palettes
/// (`cluster-dim` 1): an entry is one element, the look-up's axis 0.
/// Vector palettes (`cluster-dim` `d` > 1, coreai-opt's form): an entry is
/// `d` consecutive elements along the output axis `axis` (of size `n`,
/// `inner` elements apart), the indices have that axis `d` times shorter,
/// and the look-up's axis is `axis`. Element `e = (o·n + c)·inner + r` is
/// lane `c % d` of the vector at index position
/// `p = (o·(n/d) + c/d)·inner + r`.
struct VectorAxis {
    d: usize,
    axis: usize,
    n: usize,
    inner: usize,
}

impl VectorAxis {
    /// The vector axis of the weight `w` (the value `result`), or why
    /// `cluster-dim` does not fit it: as coreai-opt requires, `d` divides
    /// the output channels of a palette (the axis, or `group-size`) and,
    /// when a convolution of `g > 1` groups reads the weight, the output
    /// channels of each group.
    fn new(
        result: Value<'_, '_>,
        w: &Weight<'_>,
        options: &PalettizeWeights,
    ) -> Result<Self, String> {
        let d = options.cluster_dim;
        if d == 1 {
            return Ok(Self {
                d: 1,
                axis: 0,
                n: 1,
                inner: 1,
            });
        }
        let axis = w.out_axis;
        let keeps = "(a cluster-dim that divides it, or exclude= with the weight's name, keeps it)";
        let Some(&n) = w.shape.get(axis) else {
            return Err(format!(
                "cluster-dim={d}: the weight {:?} has no output axis for vectors",
                w.shape
            ));
        };
        let (span, what) = if options.grouped {
            (
                options.group_size,
                format!("group-size={}", options.group_size),
            )
        } else {
            (n, format!("axis {axis} (of size {n})"))
        };
        if span % d != 0 {
            return Err(format!(
                "cluster-dim={d}: {d} does not divide {what} of the weight {:?} {keeps}",
                w.shape
            ));
        }
        for (user, _) in uses(result) {
            if user.name().as_string_ref().as_str() != Ok(Conv2dOperation::name()) {
                continue;
            }
            let groups = user
                .operand(4)
                .ok()
                .and_then(constant_value)
                .and_then(element_scalars)
                .and_then(|g| match g.first() {
                    Some(&Scalar::Int(g)) => Some(g),
                    _ => None,
                });
            if let Some(g) = groups.filter(|&g| g > 1) {
                // Apple's library: axis 0 divided among the groups.
                let per = if axis == 0 { n / g as usize } else { n };
                if per % d != 0 {
                    return Err(format!(
                        "cluster-dim={d}: {d} does not divide the {per} output channels of each \
                         of the {g} groups of the convolution reading the weight {:?} {keeps}",
                        w.shape
                    ));
                }
            }
        }
        Ok(Self {
            d,
            axis,
            n,
            inner: w.shape[axis + 1..].iter().product(),
        })
    }

    /// The index position and lane of element `e`.
    fn split(&self, e: usize) -> (usize, usize) {
        if self.d == 1 {
            return (e, 0);
        }
        let (o, rest) = (e / (self.n * self.inner), e % (self.n * self.inner));
        let (c, r) = (rest / self.inner, rest % self.inner);
        (
            (o * (self.n / self.d) + c / self.d) * self.inner + r,
            c % self.d,
        )
    }

    /// The element at lane `l` of the vector at index position `p`.
    fn element(&self, p: usize, l: usize) -> usize {
        let m = self.n / self.d;
        let (o, rest) = (p / (m * self.inner), p % (m * self.inner));
        let (c, r) = (rest / self.inner, rest % self.inner);
        (o * self.n + c * self.d + l) * self.inner + r
    }
}

/// Palettize `v` (the weight `w`'s values) as `options` say. With
/// per-channel scales `s` (max |w| across the output channels, 1 where that
/// is 0) the palettes are of `w / s` (divided in the weight's type), each
/// value weighted by `s²`: the clusters then minimize the squared error of
/// the weight itself, `Σ s²·(w/s - c)²`. With `lut-dtype` the palettes
/// (all of them together) are quantized by quantize-weights' per-tensor
/// rule (symmetric), and the shift's scale is the codes' scale times `s`.
fn palettize_values<T: Real>(
    v: &[T],
    w: &Weight<'_>,
    blocks: &Blocks,
    vectors: &VectorAxis,
    options: &PalettizeWeights,
    meter: Option<Meter<'_>>,
) -> Result<Palettized, String> {
    let entries = 1usize << options.bits;
    let axis = ChannelAxis::new(&w.shape, w.out_axis);
    let channel: Option<Vec<T>> = options.per_channel_scale.then(|| {
        let mut s = vec![T::of(0.0); v.len() / axis.n.max(1)];
        for (e, x) in v.iter().enumerate() {
            let m = &mut s[axis.position(e)];
            if x.abs().get() > m.get() {
                *m = x.abs();
            }
        }
        for m in &mut s {
            if m.get() == 0.0 {
                *m = T::of(1.0);
            }
        }
        s
    });
    let (indices, lut) = match &channel {
        None if vectors.d > 1 => palettize_vectors(v, &w.shape, blocks, vectors, entries),
        None => palettize(v, None, &w.shape, blocks, entries),
        Some(s) => {
            let at = |e: usize| s[axis.position(e)];
            let normalized: Vec<T> = v.iter().enumerate().map(|(e, x)| x.div(at(e))).collect();
            let weights: Vec<f64> = (0..v.len()).map(|e| at(e).get() * at(e).get()).collect();
            palettize(&normalized, Some(&weights), &w.shape, blocks, entries)
        }
    };
    // `raw[k]`: what the look-up yields for palette value k (entry k / d,
    // lane k % d); the shift's
    // scale (in f64, before the per-channel factor) and zero point.
    let n = lut.len();
    let whole = Blocks::new(&[n], &[0]).expect("one block");
    let (palettes, raw, scale, zero_point) = match options.lut_dtype {
        None => (
            T::bytes(&lut),
            lut.iter().map(|x| x.get()).collect(),
            1.0,
            0.0,
        ),
        Some(Codes::Int(bits, signed)) => {
            let (lo, hi) = code_range(bits, signed, true);
            let q = quantize(&lut, &[n], &whole, bits, lo, hi, signed, true);
            let raw: Vec<f64> = (0..n)
                .map(|k| code_at(&q.codes, k, bits, signed) as f64)
                .collect();
            (q.codes, raw, q.scales[0].get(), q.zero_points[0] as f64)
        }
        Some(Codes::Float(format)) => {
            let q = quantize_float(&lut, &[n], &whole, format, false);
            let raw: Vec<f64> = q.codes.iter().map(|&c| format.decode(c)).collect();
            let scale = q.scale(0);
            (q.codes, raw, scale, 0.0)
        }
    };
    let scales: Option<Vec<T>> = match (&channel, options.lut_dtype) {
        (Some(s), _) => Some(s.iter().map(|&c| T::of(c.get() * scale)).collect()),
        (None, Some(_)) => Some(vec![T::of(scale)]),
        (None, None) => None,
    };
    let error = meter
        .map(|m| {
            m.measure(v, &w.shape, blocks, |e, b| {
                let (p, l) = vectors.split(e);
                let x = raw[(b * entries + indices[p] as usize) * vectors.d + l];
                match &scales {
                    None => x,
                    Some(s) if s.len() == 1 => (x - zero_point) * s[0].get(),
                    Some(s) => (x - zero_point) * s[axis.position(e)].get(),
                }
            })
        })
        .transpose()?;
    let shift = scales.map(|s| Shift {
        bytes: T::bytes(&s),
        scales: s.iter().map(|x| x.get()).collect(),
        zero_point,
    });
    Ok(Palettized {
        indices,
        palettes,
        shift,
        error,
    })
}

/// `coreai.lut_to_dense(indices, palettes, axis)` of type `out`: the
/// `bits`-bit indices (packed below 8 bits; the shape of `out` with `axis`
/// divided by the palettes' last dimension, their vector size) and the
/// palettes (`lut_shape`, bytes of `out`'s float type) as blobs of the
/// given names.
pub(crate) fn lut_to_dense<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    out: Type<'c>,
    (index_name, indices, bits): (&str, Vec<u8>, u32),
    (lut_name, lut_shape, palettes): (&str, &[i64], Vec<u8>),
    axis: usize,
) -> Result<Value<'c, 'a>, Decline> {
    let ty = RankedTensorType::try_from(out).map_err(|e| e.to_string())?;
    let float = ty.element();
    let mut shape = coreai_ir::schema::static_type_dims(out)?;
    let vector = lut_shape.last().copied().unwrap_or(1);
    if let Some(d) = shape.get_mut(axis) {
        *d /= vector;
    }
    let index_ty = tensor_type(&shape, integer_type(float, bits, false));
    let lut_ty = tensor_type(lut_shape, float);
    let axis_ty = tensor_type(&[], integer_type(float, 16, true));
    let indices = constant(cx, index_ty, code_blob(index_ty, index_name, indices, bits))?;
    let palettes = constant(
        cx,
        lut_ty,
        resource(lut_ty, lut_name, palettes, BLOB_ALIGNMENT),
    )?;
    let axis = constant(
        cx,
        axis_ty,
        int_splat(axis_ty, axis as i64).ok_or("cannot build the axis")?,
    )?;
    cx.build_value(
        LutToDenseOperation::name(),
        &[indices, palettes, axis],
        out,
        &[],
    )
}

/// Per block: the values' buckets (by f16 value), clustered; returns each
/// element's palette index and the palettes (block-major, `entries` each).
/// `weights` (one per value, positive) weight each value's squared error;
/// without them every value counts once.
pub(crate) fn palettize<T: Real>(
    w: &[T],
    weights: Option<&[f64]>,
    shape: &[usize],
    blocks: &Blocks,
    entries: usize,
) -> (Vec<u8>, Vec<T>) {
    let n = blocks.count();
    let table = buckets_of_f16();
    let threads = crate::compress::threads();
    let mut indices = vec![0u8; w.len()];
    let mut palettes = vec![T::of(0.0); n * entries];
    let mut place = |b: usize, lut: &[f64]| {
        for (k, &c) in lut.iter().enumerate() {
            palettes[b * entries + k] = T::of(c);
        }
    };
    if n == 1 {
        // One palette: the weight's elements in order, bucketed and
        // assigned by all the workers.
        let mut scratch = Scratch::new();
        let (lut, keys) = cluster(w, weights, entries, &table, threads, &mut scratch);
        assign(&keys, &scratch.cluster_of, &mut indices, threads);
        place(0, &lut);
        return (indices, palettes);
    }
    // Every block has the same number of elements: block b's are
    // members[b·size..(b+1)·size], in element order (none when the
    // blocks are runs of the elements).
    let contiguous = blocks.contiguous();
    let (members, size) = if contiguous {
        (Vec::new(), w.len() / n)
    } else {
        block_members(blocks, shape)
    };
    // Groups are independent: workers take runs of them; results land by
    // group, so they do not depend on the split.
    let threads = threads.min(n).max(1);
    let per = n.div_ceil(threads);
    let results: Vec<Vec<Vec<f64>>> = std::thread::scope(|scope| {
        let workers: Vec<_> = indices
            .chunks_mut(per * size)
            .enumerate()
            .map(|(worker, out)| {
                let (members, table) = (&members, &table);
                scope.spawn(move || {
                    let mut values = Vec::with_capacity(if contiguous { 0 } else { size });
                    let mut group_weights = Vec::new();
                    let mut scratch = Scratch::new();
                    let first = worker * per;
                    out.chunks_mut(size)
                        .enumerate()
                        .map(|(g, out)| {
                            let b = first + g;
                            let (group, weighted) = if contiguous {
                                let range = b * size..(b + 1) * size;
                                (&w[range.clone()], weights.map(|ws| &ws[range]))
                            } else {
                                values.clear();
                                let elements = &members[b * size..(b + 1) * size];
                                values.extend(elements.iter().map(|&e| w[e as usize]));
                                let weighted = weights.map(|ws| {
                                    group_weights.clear();
                                    group_weights.extend(elements.iter().map(|&e| ws[e as usize]));
                                    &group_weights[..]
                                });
                                (&values[..], weighted)
                            };
                            let (lut, keys) =
                                cluster(group, weighted, entries, table, 1, &mut scratch);
                            // Block-major here; element order below.
                            for (o, &k) in out.iter_mut().zip(&keys) {
                                *o = scratch.cluster_of[k as usize];
                            }
                            lut
                        })
                        .collect()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|h| h.join().expect("a palette worker panicked"))
            .collect()
    });
    if !contiguous {
        let by_block = std::mem::take(&mut indices);
        indices = vec![0u8; w.len()];
        for (&e, &i) in members.iter().zip(&by_block) {
            indices[e as usize] = i;
        }
    }
    for (b, lut) in results.into_iter().flatten().enumerate() {
        place(b, &lut);
    }
    (indices, palettes)
}

/// Vector palettes: per block of the weight, the `d`-vectors of its
/// elements ([`VectorAxis`]: a block spans whole vectors, `d` dividing its
/// extent on the vector axis) clustered by [`kmeans::cluster`], each
/// center rounded once to the weight's type; returns each vector's palette
/// index (in index-position order) and the palettes (block-major,
/// `entries` × `d` each; unused entries 0).
fn palettize_vectors<T: Real>(
    w: &[T],
    shape: &[usize],
    blocks: &Blocks,
    vectors: &VectorAxis,
    entries: usize,
) -> (Vec<u8>, Vec<T>) {
    let d = vectors.d;
    let n = blocks.count();
    let positions = w.len() / d;
    // The blocks over the index positions: the same grid, the vector
    // axis's extent d times shorter.
    let mut index_shape = shape.to_vec();
    index_shape[vectors.axis] /= d;
    let mut extent = blocks.extent.clone();
    extent[vectors.axis] /= d;
    let index_blocks = Blocks::new(&index_shape, &extent).expect("the extents divide");
    // Block b's positions: members[b·size..(b+1)·size], in position order.
    let (members, size) = block_members(&index_blocks, &index_shape);
    let gather = |b: usize| -> Vec<f32> {
        let mut x = Vec::with_capacity(size * d);
        for &p in &members[b * size..(b + 1) * size] {
            x.extend((0..d).map(|l| w[vectors.element(p as usize, l)].get() as f32));
        }
        x
    };
    let round = |v: f64| T::of(v).get();
    let threads = crate::compress::threads();
    let results: Vec<(Vec<f64>, Vec<u8>)> = if n == 1 {
        // One palette: all the workers share each pass over its vectors.
        vec![kmeans::cluster(&gather(0), d, entries, threads, round)]
    } else {
        // Groups are independent: workers take runs of them; results land
        // by group, so they do not depend on the split.
        let threads = threads.min(n).max(1);
        let per = n.div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..n)
                .step_by(per)
                .map(|first| {
                    let gather = &gather;
                    scope.spawn(move || {
                        (first..(first + per).min(n))
                            .map(|b| kmeans::cluster(&gather(b), d, entries, 1, round))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|h| h.join().expect("a palette worker panicked"))
                .collect()
        })
    };
    let mut indices = vec![0u8; positions];
    let mut palettes = vec![T::of(0.0); n * entries * d];
    for (b, (centers, labels)) in results.into_iter().enumerate() {
        for (&p, &i) in members[b * size..(b + 1) * size].iter().zip(&labels) {
            indices[p as usize] = i;
        }
        for (k, &c) in centers.iter().enumerate() {
            palettes[b * entries * d + k] = T::of(c);
        }
    }
    (indices, palettes)
}

/// The elements of a tensor of `shape` grouped by block: block `b`'s are
/// `members[b·size..(b+1)·size]` (flat indices, in element order), every
/// block having `size` of them.
fn block_members(blocks: &Blocks, shape: &[usize]) -> (Vec<u32>, usize) {
    let total: usize = shape.iter().product();
    let n = blocks.count();
    let size = total / n;
    let rows = blocks.rows(shape);
    let width = rows.column.len();
    let mut members = vec![0u32; total];
    let mut fill: Vec<usize> = (0..n).map(|b| b * size).collect();
    for r in 0..rows.count {
        let base = rows.base(r);
        for (j, &c) in rows.column.iter().enumerate() {
            let b = base + c;
            members[fill[b]] = (r * width + j) as u32;
            fill[b] += 1;
        }
    }
    (members, size)
}

/// A bucket of values that share an f16 value: their count, sum and sum of
/// squares (exact values, f64).
#[derive(Clone, Copy, Default)]
struct Bucket {
    count: f64,
    sum: f64,
    squares: f64,
}

/// The bucket key of each f16 bit pattern, as Apple's library groups
/// values before clustering: the f16 value rounded to 4 decimals in f16
/// arithmetic (numpy's `np.round(w.astype(float16), 4)`: `rint(x·10⁴) /
/// 10⁴`, each step rounded to f16), or the f16 value where that overflows
/// (|x| above 6.55, beyond every rounded value). Keys are ordered like the
/// values, so a cluster of contiguous buckets is a range of values.
fn buckets_of_f16() -> Vec<u16> {
    let k = half::f16::from_f32(10_000.0);
    (0..=u16::MAX)
        .map(|bits| {
            let h = half::f16::from_bits(bits);
            let r = half::f16::from_f32(crate::compress::rint_f32((h * k).to_f32())) / k;
            let value = if r.is_finite() { r } else { h };
            let bits = value.to_bits();
            // Order the bit patterns by value: negatives descend in bit order.
            if bits & 0x8000 != 0 {
                !bits
            } else {
                bits | 0x8000
            }
        })
        .collect()
}

/// Tables reused across the groups a worker clusters (each back to zeros
/// after use), one slot per bucket key.
struct Scratch {
    sums: Vec<Bucket>,
    total: Vec<Bucket>,
    cluster_of: Vec<u8>,
}

impl Scratch {
    fn new() -> Self {
        Self {
            sums: vec![Bucket::default(); 1 << 16],
            total: vec![Bucket::default(); 1 << 16],
            cluster_of: vec![0; 1 << 16],
        }
    }
}

/// Elements bucketed per chunk of this many: each chunk's sums are made in
/// element order and the chunks' added in chunk order, whatever the
/// number of workers, so the palettes do not depend on it.
const CHUNK: usize = 1 << 18;

/// Each value's bucket key, and the used buckets (ascending keys); a
/// value counts `weights[i]` times (once without weights).
fn bucketize<T: Real>(
    values: &[T],
    weights: Option<&[f64]>,
    table: &[u16],
    threads: usize,
    scratch: &mut Scratch,
) -> (Vec<u16>, Vec<(u16, Bucket)>) {
    let mut keys = vec![0u16; values.len()];
    // A worker's chunks (from element `start`): their keys, and each
    // chunk's used buckets.
    let work = |start: usize,
                values: &[T],
                keys: &mut [u16],
                sums: &mut [Bucket]|
     -> Vec<Vec<(u16, Bucket)>> {
        values
            .chunks(CHUNK)
            .zip(keys.chunks_mut(CHUNK))
            .enumerate()
            .map(|(c, (values, keys))| {
                T::f16_bits(values, keys);
                for k in keys.iter_mut() {
                    *k = table[*k as usize];
                }
                let mut used = Vec::new();
                let mut add = |key: u16, v: f64, n: f64| {
                    let b = &mut sums[key as usize];
                    if b.count == 0.0 {
                        used.push(key);
                    }
                    b.count += n;
                    b.sum += n * v;
                    b.squares += n * v * v;
                };
                match weights {
                    None => {
                        for (v, &key) in values.iter().zip(keys.iter()) {
                            add(key, v.get(), 1.0);
                        }
                    }
                    Some(ws) => {
                        let ws = &ws[start + c * CHUNK..][..values.len()];
                        for ((v, &key), &n) in values.iter().zip(keys.iter()).zip(ws) {
                            add(key, v.get(), n);
                        }
                    }
                }
                used.sort_unstable();
                used.iter()
                    .map(|&k| (k, std::mem::take(&mut sums[k as usize])))
                    .collect()
            })
            .collect()
    };
    let chunks = values.len().div_ceil(CHUNK);
    let per = chunks.div_ceil(threads.clamp(1, chunks.max(1))) * CHUNK;
    let mut partials: Vec<Vec<(u16, Bucket)>> = if per >= values.len() {
        work(0, values, &mut keys, &mut scratch.sums)
    } else {
        std::thread::scope(|scope| {
            let workers: Vec<_> = values
                .chunks(per)
                .zip(keys.chunks_mut(per))
                .enumerate()
                .map(|(i, (values, keys))| {
                    let work = &work;
                    scope.spawn(move || {
                        work(i * per, values, keys, &mut vec![Bucket::default(); 1 << 16])
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|h| h.join().expect("a bucket worker panicked"))
                .collect()
        })
    };
    if partials.len() == 1 {
        return (keys, partials.pop().expect("one chunk"));
    }
    // The chunks' buckets added in chunk order.
    let total = &mut scratch.total;
    let mut used = Vec::new();
    for partial in &partials {
        for &(k, b) in partial {
            let t = &mut total[k as usize];
            if t.count == 0.0 {
                used.push(k);
            }
            t.count += b.count;
            t.sum += b.sum;
            t.squares += b.squares;
        }
    }
    used.sort_unstable();
    let buckets = used
        .iter()
        .map(|&k| (k, std::mem::take(&mut total[k as usize])))
        .collect();
    (keys, buckets)
}

/// Optimal 1-D k-means of `values` over their buckets: the palette
/// (cluster means, ascending; at most `entries`) and each value's key
/// (`scratch.cluster_of` is the key's cluster for the keys of `values`.)
fn cluster<T: Real>(
    values: &[T],
    weights: Option<&[f64]>,
    entries: usize,
    table: &[u16],
    threads: usize,
    scratch: &mut Scratch,
) -> (Vec<f64>, Vec<u16>) {
    let (keys, used) = bucketize(values, weights, table, threads, scratch);
    let buckets: Vec<Bucket> = used.iter().map(|&(_, b)| b).collect();
    let k = entries.min(buckets.len());
    let ends = optimal_partition(&buckets, k);
    let cluster_of = &mut scratch.cluster_of;
    let mut means = Vec::with_capacity(k);
    let mut start = 0;
    for (c, &end) in ends.iter().enumerate() {
        let (mut n, mut s) = (0.0, 0.0);
        for &(key, b) in &used[start..end] {
            n += b.count;
            s += b.sum;
            cluster_of[key as usize] = c as u8;
        }
        means.push(s / n);
        start = end;
    }
    (means, keys)
}

/// `indices[i] = cluster_of[keys[i]]`, split across the workers.
fn assign(keys: &[u16], cluster_of: &[u8], indices: &mut [u8], threads: usize) {
    let per = keys.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        for (keys, out) in keys.chunks(per).zip(indices.chunks_mut(per)) {
            scope.spawn(move || {
                for (o, &k) in out.iter_mut().zip(keys) {
                    *o = cluster_of[k as usize];
                }
            });
        }
    });
}

/// The end (exclusive) of each of `k` contiguous clusters of `buckets`
/// minimizing the total sum of squared errors: `D[m][j] = min_i D[m-1][i] +
/// cost(i, j)`, whose minimizing `i` does not decrease with `j` (1-D
/// k-means costs are Monge), computed by divide and conquer over only the
/// cells the answer reads ([`Table::ensure`]).
fn optimal_partition(buckets: &[Bucket], k: usize) -> Vec<usize> {
    let u = buckets.len();
    if k == 0 {
        return Vec::new();
    }
    // Prefix sums, shifted by the overall mean for accuracy.
    let total: f64 = buckets.iter().map(|b| b.count).sum();
    let mean = buckets.iter().map(|b| b.sum).sum::<f64>() / total;
    let mut pc = vec![0.0; u + 1];
    let mut ps = vec![0.0; u + 1];
    let mut pq = vec![0.0; u + 1];
    for (i, b) in buckets.iter().enumerate() {
        let s = b.sum - b.count * mean;
        let q = b.squares - 2.0 * mean * b.sum + b.count * mean * mean;
        pc[i + 1] = pc[i] + b.count;
        ps[i + 1] = ps[i] + s;
        pq[i + 1] = pq[i] + q;
    }
    let sums = Sums {
        count: &pc,
        sum: &ps,
        squares: &pq,
    };
    // Layer 0, one cluster over the first j buckets, is every cell.
    let mut cost = vec![vec![f64::INFINITY; u + 1]; k];
    cost[0] = (0..=u).map(|j| sums.cost(0, j)).collect();
    let last: Vec<usize> = (0..k).map(|m| u - (k - 1 - m)).collect();
    let mut first: Vec<usize> = last.iter().map(|&h| h + 1).collect();
    first[0] = 0;
    let mut table = Table {
        sums,
        buckets: u,
        last,
        first,
        cost,
        split: vec![vec![0; u + 1]; k],
    };
    table.ensure(k - 1, u);
    // Walk the split points back from (k, u).
    let mut ends = vec![0usize; k];
    let mut j = u;
    for m in (0..k).rev() {
        ends[m] = j;
        j = table.split[m][j];
    }
    ends
}

/// Prefix sums over the buckets (shifted by the overall mean).
struct Sums<'a> {
    count: &'a [f64],
    sum: &'a [f64],
    squares: &'a [f64],
}

impl Sums<'_> {
    /// The squared error of buckets `i..j` about their mean.
    fn cost(&self, i: usize, j: usize) -> f64 {
        let n = self.count[j] - self.count[i];
        if n <= 0.0 {
            return 0.0;
        }
        let s = self.sum[j] - self.sum[i];
        (self.squares[j] - self.squares[i] - s * s / n).max(0.0)
    }
}

/// The DP's cells, filled on demand. Layer `m` (m+1 clusters) has cells
/// `j` in `m+1..=last[m]` (each later cluster keeps a bucket); cells
/// `first[m]..=last[m]` are computed, `cost[m][j]` and `split[m][j]`, the
/// least minimizing start of the last cluster.
///
/// The answer is cell `(k-1, u)`. Layer `m` at `j` reads layer `m-1` only
/// at `i >= split[m-1][j]` (Knuth: one cluster more does not move the last
/// split left), so the cells read below form a suffix of each layer that
/// starts near the `m`-th of `k-1` quantiles: about half of the table,
/// where a layer-by-layer DP computes all of it. Filling a suffix first
/// makes sure of the suffix of the layer below it reads.
struct Table<'a> {
    sums: Sums<'a>,
    buckets: usize,
    last: Vec<usize>,
    first: Vec<usize>,
    cost: Vec<Vec<f64>>,
    split: Vec<Vec<usize>>,
}

impl Table<'_> {
    /// Computes layer `m`'s cells from `a` up (those not yet computed).
    fn ensure(&mut self, m: usize, a: usize) {
        let a = a.max(m + 1);
        if m == 0 || a >= self.first[m] {
            return;
        }
        // Beyond layer m-1's last cell, its last split bounds the splits.
        let below_last = self.last[m - 1];
        if m > 1 {
            // Split[m-1] at a, then the cells from there up.
            self.ensure(m - 1, a.min(below_last));
            let from = self.split[m - 1][a.min(below_last)];
            self.ensure(m - 1, from);
        }
        // The new cells' splits lie at or below the first computed one's.
        let top = self.first[m] - 1;
        let opt_hi = if self.first[m] <= self.last[m] {
            self.split[m][self.first[m]]
        } else {
            self.buckets - 1
        };
        let (done, rest) = self.cost.split_at_mut(m);
        let (done_split, rest_split) = self.split.split_at_mut(m);
        layer(
            &Layer {
                lower: &done_split[m - 1][..=below_last],
                prev: &done[m - 1],
                sums: &self.sums,
            },
            (a, top),
            (m, opt_hi),
            &mut rest[0],
            &mut rest_split[0],
        );
        self.first[m] = a;
    }
}

/// What one layer of the DP reads: the layer below's costs and splits
/// (`lower[j]` bounds the split at `j` from below; past its end, its last
/// entry does), and the prefix sums.
struct Layer<'a> {
    lower: &'a [usize],
    prev: &'a [f64],
    sums: &'a Sums<'a>,
}

/// One layer of the DP by divide and conquer on the monotone split
/// points: `cur[j]`, `arg[j]` for `j` in `lo..=hi`, the best split `i` in
/// `max(opt_lo, lower[j])..=min(opt_hi, j-1)`.
fn layer(
    below: &Layer<'_>,
    (lo, hi): (usize, usize),
    (opt_lo, opt_hi): (usize, usize),
    cur: &mut [f64],
    arg: &mut [usize],
) {
    if lo > hi {
        return;
    }
    let mid = (lo + hi) / 2;
    let to = opt_hi.min(mid - 1);
    let bound = below.lower[mid.min(below.lower.len() - 1)];
    let from = opt_lo.max(bound).min(to);
    let (best, best_i) = best_split(below.prev, below.sums, from, to, mid);
    cur[mid] = best;
    arg[mid] = best_i;
    if mid > lo {
        layer(below, (lo, mid - 1), (opt_lo, best_i), cur, arg);
    }
    layer(below, (mid + 1, hi), (best_i, opt_hi), cur, arg);
}

/// `min over i in from..=to of prev[i] + cost(i, j)` and the least such
/// `i`, `cost(i, j)` the squared error of buckets `i..j` about their mean.
/// Four independent lanes, so the divisions overlap (the loop is bound
/// by their throughput, not their latency).
fn best_split(prev: &[f64], sums: &Sums<'_>, from: usize, to: usize, j: usize) -> (f64, usize) {
    const LANES: usize = 4;
    let (cj, sj, qj) = (sums.count[j], sums.sum[j], sums.squares[j]);
    let prev = &prev[from..=to];
    let (pc, ps, pq) = (
        &sums.count[from..=to],
        &sums.sum[from..=to],
        &sums.squares[from..=to],
    );
    let value = |k: usize| {
        let s = sj - ps[k];
        prev[k] + (qj - pq[k] - s * s / (cj - pc[k])).max(0.0)
    };
    let mut best = [f64::INFINITY; LANES];
    let mut at = [0usize; LANES];
    let whole = prev.len() / LANES * LANES;
    for base in (0..whole).step_by(LANES) {
        for l in 0..LANES {
            let v = value(base + l);
            if v < best[l] {
                best[l] = v;
                at[l] = base + l;
            }
        }
    }
    let (mut b, mut i) = (f64::INFINITY, usize::MAX);
    for l in 0..LANES {
        if best[l] < b || (best[l] == b && at[l] < i) {
            (b, i) = (best[l], at[l]);
        }
    }
    for k in whole..prev.len() {
        let v = value(k);
        if v < b {
            (b, i) = (v, k);
        }
    }
    if i == usize::MAX {
        // Every candidate infinite (no split can reach j): the first.
        i = 0;
    }
    (b, from + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every partition of `values` (sorted) into `k` contiguous runs: the
    /// least sum of squared errors, by brute force.
    fn brute(values: &[f64], k: usize) -> f64 {
        fn sse(v: &[f64]) -> f64 {
            let m = v.iter().sum::<f64>() / v.len() as f64;
            v.iter().map(|x| (x - m) * (x - m)).sum()
        }
        fn go(v: &[f64], k: usize) -> f64 {
            if k == 1 {
                return sse(v);
            }
            (1..=v.len() - (k - 1))
                .map(|i| sse(&v[..i]) + go(&v[i..], k - 1))
                .fold(f64::INFINITY, f64::min)
        }
        go(values, k)
    }

    /// The palette and each value's cluster.
    fn cluster_values(v: &[f32], k: usize) -> (Vec<f64>, Vec<u8>) {
        let mut scratch = Scratch::new();
        let (lut, keys) = cluster(v, None, k, &buckets_of_f16(), 1, &mut scratch);
        let assign = keys.iter().map(|&key| scratch.cluster_of[key as usize]);
        (lut, assign.collect())
    }

    #[test]
    fn bucketing_does_not_depend_on_the_workers() {
        // More than two chunks, split across one, two and three workers.
        let v: Vec<f32> = (0..(2 * CHUNK + 1000))
            .map(|i| ((i as f32) * 0.618).sin() * 0.05)
            .collect();
        let table = buckets_of_f16();
        let one = cluster(&v, None, 16, &table, 1, &mut Scratch::new());
        for threads in [2, 3] {
            assert_eq!(
                cluster(&v, None, 16, &table, threads, &mut Scratch::new()),
                one
            );
        }
    }

    #[test]
    fn partitions_are_optimal() {
        // Distinct f16 values (one per bucket), against brute force.
        let mut seed = 7u64;
        for trial in 0..20 {
            let n = 6 + trial % 7;
            let mut v: Vec<f64> = (0..n)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    // Distinct buckets: multiples of 1/8 are f16 values with at most 4 decimals.
                    (((seed >> 33) % 33) as f64) / 8.0 - 2.0
                })
                .collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
            for k in 1..=v.len().min(4) {
                let (lut, assign) = cluster_values(&v32, k);
                let got: f64 = v
                    .iter()
                    .zip(&assign)
                    .map(|(x, &c)| (x - lut[c as usize]).powi(2))
                    .sum();
                let want = brute(&v, k);
                assert!(
                    (got - want).abs() <= 1e-9 * (1.0 + want),
                    "{v:?} k={k}: {got} vs {want}"
                );
            }
        }
    }

    /// Divide and conquer with a plain scalar scan over every split: the
    /// reference the four-lane scan, narrowed by the previous layer's
    /// splits, is checked against.
    #[allow(clippy::too_many_arguments)]
    fn solve(
        lo: usize,
        hi: usize,
        opt_lo: usize,
        opt_hi: usize,
        prev: &[f64],
        cost: &impl Fn(usize, usize) -> f64,
        cur: &mut [f64],
        arg: &mut [usize],
    ) {
        if lo > hi {
            return;
        }
        let mid = (lo + hi) / 2;
        let (mut best, mut best_i) = (f64::INFINITY, opt_lo);
        for (i, &before) in prev
            .iter()
            .enumerate()
            .take(opt_hi.min(mid - 1) + 1)
            .skip(opt_lo)
        {
            let c = before + cost(i, mid);
            if c < best {
                best = c;
                best_i = i;
            }
        }
        cur[mid] = best;
        arg[mid] = best_i;
        if mid > lo {
            solve(lo, mid - 1, opt_lo, best_i, prev, cost, cur, arg);
        }
        solve(mid + 1, hi, best_i, opt_hi, prev, cost, cur, arg);
    }

    /// Unshifted prefix sums of the buckets' counts, sums and squares.
    fn prefix_sums(buckets: &[Bucket]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut sums = (vec![0.0], vec![0.0], vec![0.0]);
        for b in buckets {
            sums.0.push(sums.0.last().unwrap() + b.count);
            sums.1.push(sums.1.last().unwrap() + b.sum);
            sums.2.push(sums.2.last().unwrap() + b.squares);
        }
        sums
    }

    #[test]
    fn lanes_find_the_scalar_minima() {
        // Random buckets, every layer of the DP.
        let mut seed = 11u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as f64 / (1u64 << 31) as f64
        };
        for u in [5usize, 17, 64, 300] {
            let buckets: Vec<Bucket> = (0..u)
                .map(|i| {
                    let (n, x) = (1.0 + (next() * 5.0).floor(), i as f64 + next() * 0.5);
                    Bucket {
                        count: n,
                        sum: n * x,
                        squares: n * x * x + next(),
                    }
                })
                .collect();
            let (pc, ps, pq) = prefix_sums(&buckets);
            let cost = |i: usize, j: usize| {
                let (n, s) = (pc[j] - pc[i], ps[j] - ps[i]);
                if n <= 0.0 {
                    0.0
                } else {
                    (pq[j] - pq[i] - s * s / n).max(0.0)
                }
            };
            let mut prev: Vec<f64> = (0..=u).map(|j| cost(0, j)).collect();
            let mut lower = vec![0; u + 1];
            for m in 1..u.min(8) {
                let mut want = vec![f64::INFINITY; u + 1];
                let mut want_arg = vec![0; u + 1];
                solve(m + 1, u, m, u - 1, &prev, &cost, &mut want, &mut want_arg);
                let sums = Sums {
                    count: &pc,
                    sum: &ps,
                    squares: &pq,
                };
                let mut got_cost = vec![f64::INFINITY; u + 1];
                let mut arg = vec![0; u + 1];
                let below = Layer {
                    lower: &lower,
                    prev: &prev,
                    sums: &sums,
                };
                layer(&below, (m + 1, u), (m, u - 1), &mut got_cost, &mut arg);
                // The same splits (the first minimum) and costs.
                for j in m + 1..=u {
                    assert_eq!(
                        (arg[j], got_cost[j]),
                        (want_arg[j], want[j]),
                        "u={u} m={m} j={j}"
                    );
                }
                prev = want;
                lower = want_arg;
            }
        }
    }

    #[test]
    fn the_cells_read_give_the_whole_tables_partition() {
        // The on-demand table against every cell of every layer, each by a
        // plain scan: the same partitions, for few and many clusters.
        let mut rng = coreai_ir::rng::SplitMix64(5);
        let mut next = || rng.unit();
        for (u, k) in [
            (1, 1),
            (3, 3),
            (9, 2),
            (40, 5),
            (200, 16),
            (700, 16),
            (300, 64),
            (64, 63),
        ] {
            // Bucket centres spread like a normal sample's (dense middle).
            let buckets: Vec<Bucket> = (0..u)
                .map(|i| {
                    let t = (i as f64 + 0.5) / u as f64 - 0.5;
                    let (n, x) = (1.0 + (next() * 9.0).floor(), t * t * t * 50.0 + t);
                    Bucket {
                        count: n,
                        sum: n * x,
                        squares: n * x * x + next() * 1e-3,
                    }
                })
                .collect();
            let ends = optimal_partition(&buckets, k);
            let (pc, ps, pq) = prefix_sums(&buckets);
            let sums = Sums {
                count: &pc,
                sum: &ps,
                squares: &pq,
            };
            let cost = |i: usize, j: usize| sums.cost(i, j);
            let mut prev: Vec<f64> = (0..=u).map(|j| cost(0, j)).collect();
            let mut splits = vec![vec![0; u + 1]];
            for m in 1..k {
                let mut cur = vec![f64::INFINITY; u + 1];
                let mut arg = vec![0; u + 1];
                solve(m + 1, u, m, u - 1, &prev, &cost, &mut cur, &mut arg);
                splits.push(arg);
                prev = cur;
            }
            let mut want = vec![0; k];
            let mut j = u;
            for m in (0..k).rev() {
                want[m] = j;
                j = splits[m][j];
            }
            let total = |ends: &[usize]| {
                let mut start = 0;
                ends.iter()
                    .map(|&e| std::mem::replace(&mut start, e))
                    .zip(ends)
                    .map(|(s, &e)| cost(s, e))
                    .sum::<f64>()
            };
            assert!(
                (total(&ends) - total(&want)).abs() <= 1e-12 * total(&want),
                "u={u} k={k}: {} vs {}",
                total(&ends),
                total(&want)
            );
            assert_eq!(ends, want, "u={u} k={k}");
        }
    }

    #[test]
    fn few_values_keep_their_values() {
        let v = [0.5f32, -1.0, 0.5, 2.0];
        let (lut, assign) = cluster_values(&v, 16);
        assert_eq!(lut, [-1.0, 0.5, 2.0]);
        assert_eq!(assign, [1, 0, 1, 2]);
    }
}
