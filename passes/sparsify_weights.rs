//! `sparsify-weights`: magnitude pruning of weights, stored as the values
//! kept and a bitmask.
//!
//! // %w = coreai.constant <float weight>
//! //   → %v = coreai.constant <the kept values, row-major: tensor<N x T>>
//! //     %m = coreai.constant <1 where kept: tensor<shape x ui1>, packed>
//! //     %s = coreai.build_sparse_with_bitmask %v, %m
//! //            : tensor<shape x T, #coreai.sparse_tensor_encoding<bitmask, numNonZero = N, ...>>
//! //     %w' = coreai.sparse_with_bitmask_to_dense %s
//!
//! `w'` is `w` with the pruned elements zero. Which constants are weights,
//! and their channel axes, is `compress.rs`'s rule (Apple's). What is
//! pruned is what coreai-opt 0.3.0's `sparsify_weights` prunes (its output
//! is this pass's test oracle, element for element):
//!   - `target-sparsity=p`: with `mag = |w|`, every element whose `mag` is
//!     at most numpy's `percentile(mag, 100·p)` (linear interpolation
//!     between the sorted magnitudes around rank `p·(n-1)`, the difference
//!     of the two taken in the weight's float type, the rest in f64) is
//!     zero; `p = 1` zeroes everything, `p = 0` nothing;
//!   - with `block-size=b` (and a target sparsity), `mag` is instead the
//!     L2 norm of the element's block: `b` consecutive output channels
//!     (the last block zero-padded), `sqrt(((m₀² + m₁²) + ...) )` summed
//!     in order in the weight's type, so whole blocks go together;
//!   - `n-m=N:M`: along the input channels, in each group of `M`
//!     consecutive elements (the last group zero-padded), the `N` of
//!     lowest magnitude are zero (ties: the first ones).
//!
//! An element that was already zero is not stored either. The pass never
//! changes a value it keeps, so the dense result is exact to the pruning.
//!
//! `quantize-dtype=int8` (or `fp8e4m3fn`, `fp8e5m2`) stores the kept
//! values as 8-bit codes of one symmetric scale (`quantize-weights`'
//! per-tensor arithmetic on the kept values), in coreai-opt's joint form
//! (`quantize_dtype`), codes and scale bit for bit (but f8E5M2 codes of an
//! f16 weight, where coreai-opt's scale overflows to 0; see
//! quantize-weights):
//!
//! //     %c = coreai.constant <codes of the kept values: tensor<N x si8>>
//! //     %s = coreai.build_sparse_with_bitmask %c, %m : tensor<shape x si8, #...>
//! //     %d = coreai.sparse_with_bitmask_to_dense %s : tensor<shape x si8>
//! //     %w' = coreai.blockwise_shift_scale %d, %scale, %zero_point, %0   (each 1x..x1)
//!
//! A pruned element reads code 0, int8's and fp8's zero point: 0. `uint8`'s zero
//! point is 127, so in that form a pruned element would read `-127·s`;
//! coreai-opt 0.3.0 writes exactly that (its uint8 joint output is off by
//! about twice the output's scale in coreai-core's own runtime, measured in
//! `test_compression.py`). Here `uint8` dequantizes the kept values first
//! and scatters floats, so pruned elements stay 0:
//!
//! //     %v = coreai.blockwise_shift_scale %c, %scale, %zero_point, %0   (each [1]: tensor<N x T>)
//! //     %w' = coreai.sparse_with_bitmask_to_dense (coreai.build_sparse_with_bitmask %v, %m)
//!
//! `palettize-nbits=n` stores the kept values as `n`-bit indices into one
//! palette of `2^n` entries, `palettize-weights`' per-tensor palette of the
//! kept values (optimal over its buckets, so over the kept values a squared
//! error at most that of coreai-opt's k-means), in coreai-opt's form
//! (`palettize_nbits`):
//!
//! //     %v = coreai.lut_to_dense %indices, %palette, %axis   (tensor<N x ui n>, [1, 2^n, 1], si16 0)
//! //     %w' = coreai.sparse_with_bitmask_to_dense (coreai.build_sparse_with_bitmask %v, %m)
//!
//! `max-error=e` keeps a weight dense when the dense result's relative
//! error `‖w − w'‖ / ‖w‖` (`w'`: the kept values as stored, zero elsewhere)
//! exceeds `e`; with `calibration=FILE.npz` the error is measured at the
//! outputs of the layers reading the weight (`compress/calibration.rs`),
//! as for `quantize-weights`. `remarks=true` prints that error per weight.
//!
//! A weight the structure does not apply to stays dense, with a remark at
//! the weight saying why (as Apple's library skips it with a warning): a
//! block size over half the output channels, an `M` over half the input
//! channels, a weight of rank other than 2 to 5 or with those channels on
//! an axis other than 0 or 1. Both `target-sparsity` and `n-m` given,
//! `block-size` with `n-m`, or both `quantize-dtype` and
//! `palettize-nbits`, is one error.

use crate::compress::{
    calibrate, compress_weights, keep_dense, parse_positive, weight, Blocks, Measured, Meter, Real,
    Selection, Weight,
};
use crate::quantize_weights::{
    code_at, code_blob, code_range, parse_8bit_codes, quantize, quantize_float, Codes,
};
use coreai_ir::emit::constant;
use coreai_ir::lowering::{Decline, LoweringCx, UserLowering};
use coreai_ir::op::coreai::{
    BLOCKWISE_SHIFT_SCALE, BUILD_SPARSE_WITH_BITMASK, SPARSE_WITH_BITMASK_TO_DENSE,
};
use coreai_ir::pass::{Pass, PassInfo, PassResult};
use coreai_ir::rewrite::RewriteOptions;
use coreai_ir::schema::tensor_type;
use coreai_ir::weights::{
    bitmask_sparse_type, dense_from_bytes, float_splat, int_splat, integer_type, pack_bits,
    release_pages, resource, FloatData, BLOB_ALIGNMENT,
};
use melior::ir::{
    operation::OperationRef,
    r#type::{RankedTensorType, ShapedTypeLike},
    Value, ValueLike,
};
use std::sync::Arc;

pub const INFO: PassInfo = PassInfo {
    name: "sparsify-weights",
    summary: "Prune weights by magnitude (unstructured, output-channel blocks or n:m) and store the kept values with a bitmask (coreai.build_sparse_with_bitmask)",
    source: include_str!("sparsify_weights.rs"),
    anchor: None,
    options: SparsifyWeights::OPTIONS,
    create: || Box::new(SparsifyWeights::default()),
};

fn parse_fraction(v: &str) -> Result<Option<f64>, String> {
    let v = v.trim();
    if v.is_empty() {
        return Ok(None);
    }
    match v.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(Some(p)),
        _ => Err(format!("'{v}' is not a fraction from 0 to 1")),
    }
}

fn parse_n_m(v: &str) -> Result<Option<(usize, usize)>, String> {
    let v = v.trim();
    if v.is_empty() {
        return Ok(None);
    }
    let parsed = v.split_once(':').and_then(|(n, m)| {
        Some((
            n.trim().parse::<usize>().ok()?,
            m.trim().parse::<usize>().ok()?,
        ))
    });
    match parsed {
        Some((n, m)) if m > 0 && n <= m => Ok(Some((n, m))),
        _ => Err(format!("'{v}' is not N:M with 0 <= N <= M and M > 0")),
    }
}

fn parse_palettize_bits(v: &str) -> Result<Option<u32>, String> {
    if v.trim().is_empty() {
        return Ok(None);
    }
    crate::palettize_weights::parse_bits(v).map(Some)
}

fn parse_block_size(v: &str) -> Result<Option<usize>, String> {
    if v.trim().is_empty() {
        return Ok(None);
    }
    match parse_positive(v, "block size")? {
        1 => Err("a block size must be greater than 1".into()),
        b => Ok(Some(b)),
    }
}

coreai_ir::pass_options! {
    struct SparsifyWeights {
        "target-sparsity" => target_sparsity: Option<f64> = "",
            "the fraction of each weight's elements to prune, lowest magnitude first (default 0.5 without n-m)",
            parse = parse_fraction;
        "n-m" => n_m: Option<(usize, usize)> = "",
            "N:M structured pruning: the N lowest of every M consecutive input channels",
            parse = parse_n_m;
        "block-size" => block_size: Option<usize> = "",
            "with target-sparsity: prune blocks of this many consecutive output channels by their L2 norm",
            parse = parse_block_size;
        "quantize-dtype" => quantize_dtype: Option<Codes> = "",
            "store the kept values as 8-bit codes of one symmetric scale: int8, uint8, fp8e4m3fn or fp8e5m2",
            parse = parse_8bit_codes;
        "palettize-nbits" => palettize_bits: Option<u32> = "",
            "store the kept values as indices into one palette of 2^n entries: 1, 2, 3, 4, 6, 8",
            parse = parse_palettize_bits;
        "min-elements" => min_elements: i64 = "1024",
            "only weights of more elements than this are pruned";
        "only" => only: Vec<String> = "",
            "prune only weights whose location or blob name contains one of these";
        "exclude" => exclude: Vec<String> = "",
            "keep weights whose location or blob name contains one of these";
        "max-error" => max_error: Option<f64> = "",
            "keep a weight dense when its relative error ‖w - w'‖ / ‖w‖ (with calibration=, at its layers' outputs) would exceed this";
        "calibration" => calibration: Option<String> = "",
            "FILE.npz: inputs of @main; max-error and remarks measure each weight's error at the outputs of the layers reading it";
        "remarks" => remarks: bool = "false",
            "a remark per weight: its shape, the fraction pruned and the relative error";
    }
}

/// What to prune.
#[derive(Clone, Copy, Debug)]
enum Method {
    Magnitude { sparsity: f64, block: Option<usize> },
    NM { n: usize, m: usize },
}

impl SparsifyWeights {
    fn method(&self) -> Result<Method, String> {
        match (self.target_sparsity, self.n_m) {
            (Some(_), Some(_)) => Err("target-sparsity and n-m cannot both be given".into()),
            (_, Some(_)) if self.block_size.is_some() => {
                Err("block-size applies to target-sparsity, not to n-m".into())
            }
            _ if self.quantize_dtype.is_some() && self.palettize_bits.is_some() => {
                Err("quantize-dtype and palettize-nbits cannot both be given".into())
            }
            (_, Some((n, m))) => Ok(Method::NM { n, m }),
            (p, None) => Ok(Method::Magnitude {
                sparsity: p.unwrap_or(0.5),
                block: self.block_size,
            }),
        }
    }
}

impl Pass for SparsifyWeights {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        let method = match self.method() {
            Ok(m) => m,
            Err(e) => {
                coreai_ir::raw::emit_error(root.to_raw(), &format!("{}: {e}", INFO.name));
                return Err(coreai_ir::pass::PassFailed);
            }
        };
        let selection = Selection {
            min_elements: self.min_elements,
            only: self.only.clone(),
            exclude: self.exclude.clone(),
        };
        let storage = match (self.quantize_dtype, self.palettize_bits) {
            (Some(codes), _) => Storage::Codes(codes),
            (_, Some(bits)) => Storage::Palette { bits },
            _ => Storage::Floats,
        };
        let calibration = calibrate(root, self.calibration.as_deref(), &selection, INFO.name)?;
        let accuracy = Accuracy {
            max_error: self.max_error,
            remarks: self.remarks,
        };
        let rewrite: UserLowering = Arc::new(move |cx: &LoweringCx<'_, '_>| {
            let meter = Meter {
                calibration: calibration.as_deref(),
                op: cx.op().to_raw().ptr as usize,
            };
            sparsify_weight(cx, method, storage, accuracy, meter)
        });
        compress_weights(
            root,
            rewrites,
            INFO.name,
            "sparsify the weight with",
            &selection,
            rewrite,
        )
    }
}

/// When to keep a weight dense, and whether to say what was done.
#[derive(Clone, Copy)]
struct Accuracy {
    max_error: Option<f64>,
    remarks: bool,
}

// %w = constant → sparse_with_bitmask_to_dense(build_sparse_with_bitmask(values, mask))
fn sparsify_weight<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    method: Method,
    storage: Storage,
    accuracy: Accuracy,
    meter: Meter<'_>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let result: Value<'c, 'a> = cx.op().result(0).map_err(|e| e.to_string())?.into();
    let w = weight(result)?;
    let remarks = accuracy.remarks;
    let meter = (remarks || accuracy.max_error.is_some()).then_some(meter);
    let pruning = match &w.data {
        FloatData::F32(v) => sparsified(v, &w, method, storage, meter)?,
        FloatData::F16(v) => sparsified(v, &w, method, storage, meter)?,
    };
    let (keep, values, error) = match pruning {
        Ok(p) => p,
        Err(reason) => {
            coreai_ir::raw::emit_remark(
                cx.op().to_raw(),
                &format!("{}: kept dense: {reason}", INFO.name),
            );
            return Ok(vec![constant(cx, result.r#type(), w.attr)?]);
        }
    };
    if let (Some(error), Some(bound)) = (error, accuracy.max_error) {
        if error.error > bound {
            return keep_dense(cx, &w, INFO.name, &error, bound, remarks);
        }
    }
    let non_zero = keep.iter().filter(|&&k| k).count();
    release_pages(w.attr);
    let ty = RankedTensorType::try_from(result.r#type()).map_err(|e| e.to_string())?;
    let float = ty.element();
    let shape: Vec<i64> = w.shape.iter().map(|&d| d as i64).collect();
    let mask_ty = tensor_type(&shape, integer_type(float, 1, false));
    let mask = resource(
        mask_ty,
        &format!("{}.mask", w.name),
        pack_bits(&keep, 1),
        BLOB_ALIGNMENT,
    );
    let values_ty = tensor_type(&[non_zero as i64], float);
    let (values, dequantize) = match values {
        Stored::Floats(_) if non_zero == 0 => (
            constant(
                cx,
                values_ty,
                dense_from_bytes(values_ty, &[]).ok_or("cannot build the empty values")?,
            )?,
            None,
        ),
        Stored::Floats(bytes) => (
            constant(
                cx,
                values_ty,
                resource(
                    values_ty,
                    &format!("{}.values", w.name),
                    bytes,
                    BLOB_ALIGNMENT,
                ),
            )?,
            None,
        ),
        Stored::Codes {
            codes,
            scale,
            zero_point,
            kind,
        } => {
            let code_ty = tensor_type(&[non_zero as i64], kind.element(float));
            let codes = constant(
                cx,
                code_ty,
                code_blob(code_ty, &format!("{}.codes", w.name), codes, 8),
            )?;
            (codes, Some((scale, zero_point, kind)))
        }
        Stored::Palette {
            indices,
            palette,
            bits,
        } => {
            // lut_to_dense(indices, the palette as [1, 2^bits, 1], axis 0):
            // the kept values, then scattered (coreai-opt's form).
            let values = crate::palettize_weights::lut_to_dense(
                cx,
                values_ty,
                (&format!("{}.indices", w.name), indices, bits),
                (
                    &format!("{}.palette", w.name),
                    &[1, 1i64 << bits, 1],
                    palette,
                ),
                0,
            )?;
            (values, None)
        }
    };
    let mask = constant(cx, mask_ty, mask)?;
    // blockwise_shift_scale(codes, scale, zero point, 0) with each of the
    // three of `grid` (all ones): the codes' float values.
    let dequantized =
        |codes: Value<'c, 'a>, scale: f64, zero_point: i64, kind: Codes, grid: &[i64], out| {
            let float_ty = tensor_type(grid, float);
            let code_ty = tensor_type(grid, kind.element(float));
            let scale = constant(
                cx,
                float_ty,
                float_splat(float_ty, scale).ok_or("cannot build the scale")?,
            )?;
            let zero_point = match kind {
                Codes::Int(..) => int_splat(code_ty, zero_point),
                Codes::Float(_) => float_splat(code_ty, zero_point as f64),
            };
            let zero_point = constant(
                cx,
                code_ty,
                zero_point.ok_or("cannot build the zero point")?,
            )?;
            let zero = constant(
                cx,
                float_ty,
                float_splat(float_ty, 0.0).ok_or("cannot build the offset")?,
            )?;
            cx.build_value(
                BLOCKWISE_SHIFT_SCALE,
                &[codes, scale, zero_point, zero],
                out,
                &[],
            )
        };
    let (values, after) = match dequantize {
        // uint8: the kept values dequantized, then scattered.
        Some((scale, zero_point, kind @ Codes::Int(_, false))) => (
            dequantized(values, scale, zero_point, kind, &[1], values_ty)?,
            None,
        ),
        other => (values, other),
    };
    let scattered = tensor_type(&shape, coreai_ir::schema::element_type(values)?);
    let scattered_ty = RankedTensorType::try_from(scattered).map_err(|e| e.to_string())?;
    let sparse_ty =
        bitmask_sparse_type(scattered_ty, non_zero as u64).ok_or("cannot build the sparse type")?;
    let sparse = cx.build_value(BUILD_SPARSE_WITH_BITMASK, &[values, mask], sparse_ty, &[])?;
    if remarks {
        eprintln!(
            "{}: {}: {:?} {} kept {non_zero} of {} ({:.1}% pruned){}",
            INFO.name,
            cx.location(),
            w.shape,
            coreai_ir::lowering::type_text(float),
            keep.len(),
            100.0 * (1.0 - non_zero as f64 / keep.len().max(1) as f64),
            error.map_or(String::new(), |e| format!(", {e}")),
        );
    }
    let dense = cx.build_value(SPARSE_WITH_BITMASK_TO_DENSE, &[sparse], scattered, &[])?;
    let out = match after {
        // int8 and fp8 (coreai-opt's form): the codes scattered (a pruned
        // element reads code 0, the zero point), then dequantized.
        Some((scale, zero_point, kind)) => dequantized(
            dense,
            scale,
            zero_point,
            kind,
            &vec![1; shape.len()],
            result.r#type(),
        )?,
        None => dense,
    };
    Ok(vec![out])
}

/// How the kept values are to be stored.
#[derive(Clone, Copy, Debug)]
enum Storage {
    Floats,
    /// int8, uint8 or fp8 codes.
    Codes(Codes),
    /// `bits`-bit indices into one palette.
    Palette {
        bits: u32,
    },
}

/// How the kept values are stored.
enum Stored {
    /// The values' bytes, in the weight's float type.
    Floats(Vec<u8>),
    /// 8-bit codes of one symmetric scale.
    Codes {
        codes: Vec<u8>,
        scale: f64,
        zero_point: i64,
        kind: Codes,
    },
    /// Indices (one byte each) into one palette (its bytes, the weight's
    /// type), as `palettize-weights` makes a per-tensor palette.
    Palette {
        indices: Vec<u8>,
        palette: Vec<u8>,
        bits: u32,
    },
}

/// A weight pruned and stored: which elements are kept, how, and (when
/// measured) the error of the dense result.
type Sparsified = (Vec<bool>, Stored, Option<Measured>);

/// `v` pruned by `method` and its kept values stored as `storage`; with a
/// meter, the error of the dense result (the kept values as stored, zero
/// elsewhere). The inner error is why the weight stays dense.
fn sparsified<T: Real + Send + Sync>(
    v: &[T],
    w: &Weight<'_>,
    method: Method,
    storage: Storage,
    meter: Option<Meter<'_>>,
) -> Result<Result<Sparsified, String>, String> {
    let keep = match pruned(v, w, method) {
        Ok(keep) => keep,
        Err(reason) => return Ok(Err(reason)),
    };
    let (stored, as_stored) = stored(v, &keep, storage, meter.is_some());
    let error = match meter {
        None => None,
        Some(meter) => {
            let mut dense = vec![0.0; v.len()];
            for (d, x) in dense
                .iter_mut()
                .zip(&keep)
                .filter(|(_, &k)| k)
                .map(|(d, _)| d)
                .zip(as_stored)
            {
                *d = x;
            }
            let blocks = Blocks::new(&w.shape, &vec![0; w.shape.len()])?;
            Some(meter.measure(v, &w.shape, &blocks, |e, _| dense[e])?)
        }
    };
    Ok(Ok((keep, stored, error)))
}

/// The values of `v` that `keep` keeps, as stored: their bytes, 8-bit
/// codes, or palette indices (an empty set of kept values stays floats);
/// with `values_back`, also the values they stand for, in order.
fn stored<T: Real + Send + Sync>(
    v: &[T],
    keep: &[bool],
    storage: Storage,
    values_back: bool,
) -> (Stored, Vec<f64>) {
    let n = keep.iter().filter(|&&k| k).count();
    if n == 0 || matches!(storage, Storage::Floats) {
        // Their bytes straight from the weight: no copy of the values.
        let back = if values_back {
            kept(v, keep).map(|x| x.get()).collect()
        } else {
            Vec::new()
        };
        return (Stored::Floats(kept_bytes(v, keep, n)), back);
    }
    let values: Vec<T> = kept(v, keep).collect();
    match storage {
        Storage::Palette { bits } => {
            let blocks = Blocks::new(&[n], &[0]).expect("one block");
            let (indices, palette) =
                crate::palettize_weights::palettize(&values, None, &[n], &blocks, 1 << bits);
            let back = if values_back {
                indices.iter().map(|&i| palette[i as usize].get()).collect()
            } else {
                Vec::new()
            };
            let palette = T::bytes(&palette);
            (
                Stored::Palette {
                    indices,
                    palette,
                    bits,
                },
                back,
            )
        }
        Storage::Codes(kind) => {
            let blocks = Blocks::new(&[n], &[0]).expect("one block");
            let (stored, back): (Stored, Vec<f64>) = match kind {
                Codes::Int(bits, signed) => {
                    let (lo, hi) = code_range(bits, signed, true);
                    let q = quantize(&values, &[n], &blocks, bits, lo, hi, signed, true);
                    let (scale, zero_point) = (q.scales[0].get(), q.zero_points[0]);
                    let back = if values_back {
                        (0..n)
                            .map(|e| {
                                (code_at(&q.codes, e, q.bits, signed) - zero_point) as f64 * scale
                            })
                            .collect()
                    } else {
                        Vec::new()
                    };
                    let stored = Stored::Codes {
                        codes: q.codes,
                        scale,
                        zero_point,
                        kind,
                    };
                    (stored, back)
                }
                Codes::Float(format) => {
                    let q = quantize_float(&values, &[n], &blocks, format, false);
                    let scale = q.scale(0);
                    let back = if values_back {
                        q.codes.iter().map(|&c| format.decode(c) * scale).collect()
                    } else {
                        Vec::new()
                    };
                    let stored = Stored::Codes {
                        scale,
                        codes: q.codes,
                        zero_point: 0,
                        kind,
                    };
                    (stored, back)
                }
            };
            (stored, back)
        }
        Storage::Floats => unreachable!("stored as floats above"),
    }
}

/// The values of `v` that `keep` keeps, in order.
fn kept<'v, T: Copy>(v: &'v [T], keep: &'v [bool]) -> impl Iterator<Item = T> + 'v {
    v.iter().zip(keep).filter(|(_, &k)| k).map(|(&x, _)| x)
}

/// The bytes of the `n` values of `v` that `keep` keeps, converted a
/// chunk at a time.
fn kept_bytes<T: Real>(v: &[T], keep: &[bool], n: usize) -> Vec<u8> {
    const CHUNK: usize = 4096;
    let mut out = Vec::with_capacity(n * std::mem::size_of::<T>());
    let mut chunk = Vec::with_capacity(CHUNK);
    for x in kept(v, keep) {
        chunk.push(x);
        if chunk.len() == CHUNK {
            out.extend(T::bytes(&chunk));
            chunk.clear();
        }
    }
    out.extend(T::bytes(&chunk));
    out
}

/// Which elements of `v` (row-major) are kept.
fn pruned<T: Real>(v: &[T], w: &Weight<'_>, method: Method) -> Result<Vec<bool>, String> {
    let structured = |what: &str| -> Result<(), String> {
        if (2..=5).contains(&w.shape.len()) {
            Ok(())
        } else {
            Err(format!(
                "{what} needs a weight of rank 2 to 5; this one is {:?}",
                w.shape
            ))
        }
    };
    // Apple's structured pruning runs along axis 0 or 1 only.
    let axis = |what: &str, axis: usize, role: &str| -> Result<usize, String> {
        structured(what)?;
        if axis <= 1 {
            Ok(axis)
        } else {
            Err(format!(
                "{what} needs the {role} channels on axis 0 or 1; the weight {:?} has them on axis {axis}",
                w.shape
            ))
        }
    };
    let keep = match method {
        Method::Magnitude {
            sparsity,
            block: None,
        } => by_percentile(v, || v.iter().map(|x| x.abs()), sparsity),
        Method::Magnitude {
            sparsity,
            block: Some(b),
        } => {
            let norms = block_norms(v, &w.shape, axis("block-size", w.out_axis, "output")?, b)?;
            by_percentile(v, || norms.iter().copied(), sparsity)
        }
        Method::NM { n, m } => n_of_m(v, &w.shape, axis("n-m", w.in_axis, "input")?, n, m)?,
    };
    Ok(keep)
}

/// The magnitude map of block pruning: each element's block norm, blocks
/// of `b` consecutive indices of axis `dim`.
fn block_norms<T: Real>(v: &[T], shape: &[usize], dim: usize, b: usize) -> Result<Vec<T>, String> {
    let channels = shape[dim];
    if 2 * b > channels {
        return Err(format!(
            "block-size={b} is more than half the {channels} output channels (axis {dim}) of the weight \
             {shape:?}"
        ));
    }
    let stride: usize = shape[dim + 1..].iter().product();
    let outer: usize = shape[..dim].iter().product();
    let mut out = vec![T::of(0.0); v.len()];
    for o in 0..outer {
        for start in (0..channels).step_by(b) {
            let end = (start + b).min(channels);
            for i in 0..stride {
                let at = |c: usize| (o * channels + c) * stride + i;
                // numpy sums axis 1 of (C/b, b, ...) in order; padded
                // channels add zeros, which change nothing.
                let mut acc = T::of(0.0);
                for c in start..end {
                    let m = v[at(c)].abs();
                    acc = acc.add(m.mul(m));
                }
                let norm = acc.sqrt();
                for c in start..end {
                    out[at(c)] = norm;
                }
            }
        }
    }
    Ok(out)
}

/// Keep every element of `v` whose magnitude (the items of
/// `magnitudes()`, one per element) is above numpy's
/// `percentile(magnitudes, 100·p)`, and that is not zero.
fn by_percentile<T: Real, I: Iterator<Item = T>>(
    v: &[T],
    magnitudes: impl Fn() -> I,
    p: f64,
) -> Vec<bool> {
    let q = p * 100.0;
    if q == 100.0 || v.is_empty() {
        return vec![false; v.len()];
    }
    if q == 0.0 {
        return v.iter().map(|x| x.get() != 0.0).collect();
    }
    // numpy's "linear" method: the virtual index q/100·(n-1), the two
    // sorted values around it, interpolated with t = its fraction.
    let n = v.len();
    let index = q / 100.0 * (n - 1) as f64;
    let below = (index.floor() as usize).min(n - 1);
    let above = (below + 1).min(n - 1);
    let t = index - below as f64;
    // numpy's percentile of magnitudes with a NaN is NaN, and so is an
    // interpolation with infinity (`inf - inf`, `inf·0`).
    let threshold = match ranked(&magnitudes, [below, above]) {
        Some([a, b]) => {
            let diff = b.sub(a).get();
            if t >= 0.5 {
                b.get() - diff * (1.0 - t)
            } else {
                a.get() + diff * t
            }
        }
        None => f64::NAN,
    };
    // A magnitude is pruned when it is at most the threshold: when its key
    // is at most that of the largest value of `T` at most the threshold.
    // No magnitude is at most NaN: then only zeros go.
    let at_most = if threshold.is_nan() {
        0
    } else {
        let nearest = T::of(threshold).magnitude_key();
        if T::from_magnitude_key(nearest).get() > threshold {
            nearest - 1
        } else {
            nearest
        }
    };
    v.iter()
        .zip(magnitudes())
        .map(|(x, m)| m.magnitude_key() > at_most && x.magnitude_key() != 0)
        .collect()
}

/// The magnitudes of ranks `ranks` in ascending order among
/// `magnitudes()`, or `None` if one is NaN. A radix select on their bits
/// ([`Real::magnitude_key`], ordered as the magnitudes are): a count per
/// value of the high 16 bits finds each rank's bucket, a count per value
/// of the low 16 bits within that bucket its key. Two passes and three
/// 65,536-entry counts, where a sort would copy every magnitude.
fn ranked<T: Real, I: Iterator<Item = T>>(
    magnitudes: impl Fn() -> I,
    ranks: [usize; 2],
) -> Option<[T; 2]> {
    const BUCKETS: usize = 1 << 16;
    let mut high = vec![0usize; BUCKETS];
    let mut nan = false;
    for m in magnitudes() {
        nan |= m.get().is_nan();
        high[(m.magnitude_key() >> 16) as usize] += 1;
    }
    if nan {
        return None;
    }
    // The bucket of rank `r` in `counts`, and `r`'s rank within it.
    let locate = |counts: &[usize], r: usize| {
        let mut seen = 0;
        for (bucket, &c) in counts.iter().enumerate() {
            if r < seen + c {
                return (bucket, r - seen);
            }
            seen += c;
        }
        unreachable!("rank {r} of {seen}")
    };
    let at = ranks.map(|r| locate(&high, r));
    let mut low = [vec![0usize; BUCKETS], vec![0usize; BUCKETS]];
    let [first, second] = at.map(|(bucket, _)| bucket as u32);
    for key in magnitudes().map(|m| m.magnitude_key()) {
        if key >> 16 == first {
            low[0][(key & 0xffff) as usize] += 1;
        }
        if key >> 16 == second {
            low[1][(key & 0xffff) as usize] += 1;
        }
    }
    let key = |i: usize| {
        let (bucket, r) = at[i];
        ((bucket as u32) << 16) | locate(&low[i], r).0 as u32
    };
    Some([T::from_magnitude_key(key(0)), T::from_magnitude_key(key(1))])
}

/// N:M pruning along axis `dim` (0 or 1): in each group of `m` consecutive
/// indices of that axis (the last one zero-padded), the `n` of lowest
/// magnitude are pruned (ties: the first ones; padding counts, as zeros).
fn n_of_m<T: Real>(
    v: &[T],
    shape: &[usize],
    dim: usize,
    n: usize,
    m: usize,
) -> Result<Vec<bool>, String> {
    let channels = shape[dim];
    if 2 * m > channels {
        return Err(format!(
            "n-m={n}:{m}: M is more than half the {channels} input channels (axis {dim}) of the weight \
             {shape:?}"
        ));
    }
    let stride: usize = shape[dim + 1..].iter().product();
    let outer: usize = shape[..dim].iter().product();
    let mut keep: Vec<bool> = v.iter().map(|x| x.get() != 0.0).collect();
    let mut group: Vec<(T, usize)> = Vec::with_capacity(m);
    for o in 0..outer {
        for i in 0..stride {
            for start in (0..channels).step_by(m) {
                group.clear();
                for k in 0..m {
                    let c = start + k;
                    if c < channels {
                        let at = (o * channels + c) * stride + i;
                        group.push((v[at].abs(), at));
                    } else {
                        group.push((T::of(0.0), usize::MAX));
                    }
                }
                // A stable sort: equal magnitudes keep their channel order.
                group.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
                for &(_, at) in &group[..n] {
                    if at != usize::MAX {
                        keep[at] = false;
                    }
                }
            }
        }
    }
    Ok(keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_interpolates_like_numpy() {
        // numpy.percentile([1, 2, 3, 4], 50) = 2.5: 1 and 2 pruned.
        let v = [3.0f32, -1.0, 4.0, 2.0];
        let m = || v.iter().map(|x| x.abs());
        assert_eq!(by_percentile(&v, m, 0.5), [true, false, true, false]);
        // 25% of 4: index 0.75 between 1 and 2 → 1.75: only 1 pruned.
        assert_eq!(by_percentile(&v, m, 0.25), [true, false, true, true]);
        // A zero is never kept; p = 0 prunes nothing else, p = 1 everything.
        let z = [0.0f32, 5.0, -2.0];
        let mz = || z.iter().map(|x| x.abs());
        assert_eq!(by_percentile(&z, mz, 0.0), [false, true, true]);
        assert_eq!(by_percentile(&z, mz, 1.0), [false, false, false]);
        // A magnitude equal to the threshold goes: median of [1, 2, 3] is 2.
        let w = [3.0f32, -2.0, 1.0];
        assert_eq!(
            by_percentile(&w, || w.iter().map(|x| x.abs()), 0.5),
            [true, false, false]
        );
        // A threshold between two neighbours of f32, 1 + 1.5 ulp, rounds
        // up to 1 + 2 ulp: that one stays.
        let u = [f32::from_bits(0x3f80_0001), f32::from_bits(0x3f80_0002)];
        assert_eq!(by_percentile(&u, || u.iter().copied(), 0.5), [false, true]);
    }

    #[test]
    fn ranked_magnitudes_are_the_sorted_ones() {
        // Magnitudes over many exponents, with repeats, zeros, subnormals
        // and infinity; each rank checked against a sort.
        let mut x = 0x2545_f491u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut v: Vec<f32> = (0..5000)
            .map(|_| {
                f32::from_bits(next() & 0x7fff_ffff).min(1e30)
                    * if next() % 2 == 0 { 1.0 } else { -1.0 }
            })
            .collect();
        v.extend([
            0.0,
            -0.0,
            f32::MIN_POSITIVE / 8.0,
            f32::INFINITY,
            2.5,
            2.5,
            -2.5,
        ]);
        v.extend(v[..100].to_vec());
        let mut sorted: Vec<f32> = v.iter().map(|x| x.abs()).collect();
        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
        for r in [0, 1, 99, 2500, v.len() - 2, v.len() - 1] {
            let got = ranked(|| v.iter().map(|x| x.abs()), [r, (r + 1).min(v.len() - 1)]).unwrap();
            assert_eq!(
                got,
                [sorted[r], sorted[(r + 1).min(v.len() - 1)]],
                "rank {r}"
            );
        }
        // f16: its keys all fall in the first high bucket.
        let h: Vec<half::f16> = v.iter().map(|&x| half::f16::from_f32(x)).collect();
        let mut hs: Vec<half::f16> = h.iter().map(|x| x.abs()).collect();
        hs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        for r in [0, 777, h.len() - 1] {
            let got = ranked(|| h.iter().map(|x| x.abs()), [r, r]).unwrap();
            assert_eq!(got, [hs[r], hs[r]], "f16 rank {r}");
        }
        // A NaN makes numpy's percentile NaN: nothing but zeros is pruned.
        let nan = [1.0f32, f32::NAN, 0.0, 3.0];
        assert_eq!(ranked(|| nan.iter().map(|x| x.abs()), [1, 2]), None);
        assert_eq!(
            by_percentile(&nan, || nan.iter().map(|x| x.abs()), 0.5),
            [true, true, false, true]
        );
        // Interpolating with infinity gives numpy NaN too (median of
        // [1, 2, inf]: 2 + inf·0; of [1, inf, inf]: inf - inf), and at
        // 25% of [1, inf] infinity, which prunes everything.
        for w in [
            [1.0f32, 2.0, f32::INFINITY],
            [1.0, f32::INFINITY, f32::INFINITY],
        ] {
            assert_eq!(by_percentile(&w, || w.iter().copied(), 0.5), [true; 3]);
        }
        let w = [1.0f32, -f32::INFINITY];
        assert_eq!(
            by_percentile(&w, || w.iter().map(|x| x.abs()), 0.25),
            [false, false]
        );
    }

    #[test]
    fn n_of_m_prunes_the_lowest_of_each_group_along_the_axis() {
        // [2, 4], axis 1, 2:4: each row keeps its two largest.
        let v = [1.0f32, -4.0, 3.0, 2.0, 0.5, 0.25, -8.0, 1.0];
        let keep = n_of_m(&v, &[2, 4], 1, 2, 4).err();
        assert!(keep.unwrap().contains("more than half"));
        let v8: Vec<f32> = v.iter().chain(v.iter()).copied().collect();
        let keep = n_of_m(&v8, &[2, 8], 1, 2, 4).unwrap();
        assert_eq!(
            keep,
            [
                false, true, true, false, false, false, true, true, false, true, true, false,
                false, false, true, true
            ]
        );
        // Along axis 0 of [8, 1]: two groups of 4 rows.
        let col: Vec<f32> = (1..=8).map(|x| x as f32).collect();
        let keep = n_of_m(&col, &[8, 1], 0, 1, 4).unwrap();
        assert_eq!(keep, [false, true, true, true, false, true, true, true]);
    }

    #[test]
    fn block_norms_cover_consecutive_output_channels() {
        // [4, 1], blocks of 2 along axis 0: norms 5 (3, 4) and 0 (0, 0).
        let v = [3.0f32, 4.0, 0.0, 0.0];
        assert_eq!(
            block_norms(&v, &[4, 1], 0, 2).unwrap(),
            [5.0, 5.0, 0.0, 0.0]
        );
    }
}
