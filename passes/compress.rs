//! What the weight-compression passes (`quantize-weights`,
//! `palettize-weights`) share: which constants are weights to compress,
//! the axes their consumers give them, and arithmetic in the weight's own
//! float type.
//!
//! Candidates are those of Apple's compression library (coreai-opt 0.3.0,
//! `_should_compress_op`): a `coreai.constant` of a static float tensor
//! with more than `min-elements` elements, every use of which is a
//! `batch_matmul`, `decomposable.broadcasting_batch_matmul`, `conv2d`,
//! `gather_nd` or `transpose` (a constant of at least 10⁸ elements
//! whatever its uses); `only=`/`exclude=` then select by location or blob
//! name.
//!
//! Channel axes (`_select_input_output_channel_axis`): the `y` operand of a
//! matmul has its output channels on the last axis and its input channels
//! on the one before; the `x` operand the other way round; a `transpose`
//! whose every use is the `y` (`x`) operand of a matmul swaps them (torch's
//! `Linear` weight `[out, in]` transposed into `y`); anything else has
//! output channels on axis 0 and input channels on axis 1. Uses that
//! disagree give the default axis for the one in dispute.

mod calibration;
pub use calibration::Calibration;

use coreai_ir::dialects::coreai::{
    BatchMatmulOperation, BroadcastingBatchMatmulOperation, ConstantOperation, Conv2dOperation,
    GatherNdOperation, TransposeOperation,
};
use coreai_ir::lowering::UserLowering;
use coreai_ir::pass::PassResult;
use coreai_ir::rewrite::{Pattern, Policy, RewriteOptions, Rewriter, Rule};
use coreai_ir::schema::uses;
use coreai_ir::weights::{constant_value, float_data, resource_name, FloatData};
use melior::ir::{
    operation::{OperationLike, OperationRef},
    r#type::{RankedTensorType, ShapedTypeLike},
    Attribute, Value, ValueLike,
};

/// Consumers whose constant operands are weights.
fn is_weight_consumer(name: &str) -> bool {
    [
        BatchMatmulOperation::name(),
        BroadcastingBatchMatmulOperation::name(),
        Conv2dOperation::name(),
        GatherNdOperation::name(),
        TransposeOperation::name(),
    ]
    .contains(&name)
}

fn is_matmul(name: &str) -> bool {
    name == BatchMatmulOperation::name() || name == BroadcastingBatchMatmulOperation::name()
}

fn op_name(op: &OperationRef<'_, '_>) -> String {
    op.name()
        .as_string_ref()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A positive integer option value (`block-size`, `group-size`); the error
/// names `what`.
pub fn parse_positive(v: &str, what: &str) -> Result<usize, String> {
    match v.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("'{}' is not a positive {what}", v.trim())),
    }
}

/// Which weights a pass compresses: the options every compression pass
/// takes.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub min_elements: i64,
    /// Substrings of a weight's location or blob name; empty: every weight.
    pub only: Vec<String>,
    pub exclude: Vec<String>,
}

/// A weight to compress: its constant op's value, shape, float data and
/// channel axes.
pub struct Weight<'c> {
    pub attr: Attribute<'c>,
    pub shape: Vec<usize>,
    pub data: FloatData<'c>,
    /// Output and input channel axes.
    pub out_axis: usize,
    pub in_axis: usize,
    /// The blob name new constants are named after.
    pub name: String,
}

impl Selection {
    /// Whether `op` is a constant this selection compresses.
    pub fn selects(&self, op: &OperationRef<'_, '_>) -> bool {
        if op_name(op) != ConstantOperation::name() || op.result_count() != 1 {
            return false;
        }
        let Ok(result) = op.result(0) else {
            return false;
        };
        let Ok(ty) = RankedTensorType::try_from(result.r#type()) else {
            return false;
        };
        let Ok(dims) = coreai_ir::schema::static_type_dims(ty.into()) else {
            return false;
        };
        if !coreai_ir::schema::is_float(ty.element()) {
            return false;
        }
        let n: i64 = dims.iter().product();
        if n <= self.min_elements {
            return false;
        }
        let all_weight_uses = uses(result.into())
            .iter()
            .all(|(user, _)| is_weight_consumer(&op_name(user)));
        if !all_weight_uses && n < 100_000_000 {
            return false;
        }
        let location = op.location().to_string();
        let name = op
            .attribute("value")
            .ok()
            .and_then(resource_name)
            .unwrap_or_default();
        let names = |patterns: &[String]| {
            patterns
                .iter()
                .any(|p| location.contains(p.as_str()) || name.contains(p.as_str()))
        };
        (self.only.is_empty() || names(&self.only)) && !names(&self.exclude)
    }
}

/// Runs `rewrite` on every weight `selection` selects under `root`, one
/// numbered rewrite per weight through the shared driver; a weight it
/// cannot compress is an error at the weight (`cannot <verb> '<pass>-weight':
/// <reason>`).
pub fn compress_weights(
    root: OperationRef<'_, '_>,
    rewrites: &RewriteOptions,
    pass: &'static str,
    verb: &'static str,
    selection: &Selection,
    rewrite: UserLowering,
) -> PassResult {
    let pattern = Pattern {
        name: format!("{}-weight", pass.trim_end_matches("-weights")),
        rule: Rule::Shared(rewrite),
        may_decline: false,
    };
    let mut rewriter = Rewriter::new(
        pass,
        Policy::MustLower {
            verb,
            noun: "compression",
        },
        rewrites,
    );
    let applied = rewriter.run_once(root, |op| {
        if selection.selects(op) {
            vec![pattern.clone()]
        } else {
            Vec::new()
        }
    })?;
    tracing::debug!(pass, applied, "weights compressed");
    Ok(())
}

/// The calibration `calibration=FILE` asks for (before any weight
/// changes), or none; a failed run is an error at `root` naming the file.
pub fn calibrate(
    root: OperationRef<'_, '_>,
    file: Option<&str>,
    selection: &Selection,
    pass: &str,
) -> Result<Option<std::sync::Arc<Calibration>>, coreai_ir::pass::PassFailed> {
    let Some(file) = file else {
        return Ok(None);
    };
    Calibration::record(root, std::path::Path::new(file), |op| selection.selects(op))
        .map(|c| Some(std::sync::Arc::new(c)))
        .map_err(|e| {
            coreai_ir::raw::emit_error(
                root.to_raw(),
                &format!("{pass}: calibration with '{file}' failed: {e}"),
            );
            coreai_ir::pass::PassFailed
        })
}

/// A weight kept as it is (its compression error `error` exceeds `bound`,
/// the pass's `max-error`): the same constant again, and with `remarks` a
/// line saying so.
pub fn keep_dense<'c, 'a>(
    cx: &coreai_ir::lowering::LoweringCx<'c, 'a>,
    w: &Weight<'c>,
    pass: &str,
    error: &Measured,
    bound: f64,
    remarks: bool,
) -> Result<Vec<Value<'c, 'a>>, coreai_ir::lowering::Decline> {
    if remarks {
        eprintln!(
            "{pass}: {}: {:?} kept dense: {error} > max-error {bound:e}",
            cx.location(),
            w.shape
        );
    }
    let ty = cx.op().result(0).map_err(|e| e.to_string())?.r#type();
    Ok(vec![coreai_ir::emit::constant(cx, ty, w.attr)?])
}

/// The weight a selected constant holds, or why it cannot be read (an
/// element type other than f32/f16).
pub fn weight<'c>(value: Value<'c, '_>) -> Result<Weight<'c>, String> {
    let attr = constant_value(value).ok_or("not a constant")?;
    let ty = RankedTensorType::try_from(value.r#type()).map_err(|e| e.to_string())?;
    let shape: Vec<usize> = coreai_ir::schema::static_type_dims(ty.into())?
        .iter()
        .map(|&d| d as usize)
        .collect();
    let data = float_data(attr).ok_or_else(|| {
        format!(
            "the weight's elements ({}) are not f32 or f16",
            coreai_ir::lowering::type_text(ty.element())
        )
    })?;
    let (out_axis, in_axis) = channel_axes(value, shape.len());
    let name = resource_name(attr).unwrap_or_else(|| "weight".to_string());
    Ok(Weight {
        attr,
        shape,
        data,
        out_axis,
        in_axis,
        name,
    })
}

/// (output, input) channel axes of a weight of `rank` from its uses.
fn channel_axes(value: Value<'_, '_>, rank: usize) -> (usize, usize) {
    let mut outs = Vec::new();
    let mut ins = Vec::new();
    for (user, index) in uses(value) {
        let name = op_name(&user);
        let (o, i): (i64, i64) = if is_matmul(&name) {
            if index == 1 {
                (-1, -2)
            } else {
                (-2, -1)
            }
        } else if name == TransposeOperation::name() {
            let mut sides = Vec::new();
            if let Ok(r) = user.result(0) {
                for (t_user, t_index) in uses(r.into()) {
                    if is_matmul(&op_name(&t_user)) {
                        sides.push(t_index == 1);
                    }
                }
            }
            sides.dedup();
            match sides.as_slice() {
                [true] => (-2, -1),
                [false] => (-1, -2),
                _ => (0, 1),
            }
        } else {
            (0, 1)
        };
        let norm = |a: i64| if a < 0 { a + rank as i64 } else { a };
        outs.push(norm(o));
        ins.push(norm(i));
    }
    let agreed = |mut v: Vec<i64>, default: i64| {
        v.sort_unstable();
        v.dedup();
        match v.as_slice() {
            [one] => *one,
            _ => default,
        }
    };
    (
        agreed(outs, 0).max(0) as usize,
        agreed(ins, 1).max(0) as usize,
    )
}

/// Arithmetic in a weight's own float type: each `+ - * /` one IEEE
/// operation in that type (f16's through f32, which rounds each single
/// operation exactly as f16 arithmetic would), as numpy computes on arrays
/// of that type.
pub trait Real: Copy + PartialOrd + std::fmt::Debug + Send + Sync {
    /// The executor's element type of this type.
    const DTYPE: coreai_interp::DType;
    fn of(v: f64) -> Self;
    fn get(self) -> f64;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    /// The low 8 bits (two's complement) of an integer value in
    /// `[-2^22, 2^22]`: `1.5·2^23` added, the sum's low mantissa bits are
    /// the value's (a bit view, which vectorizes where a saturating
    /// float-to-int cast does not).
    fn low_byte(self) -> u8;
    /// Little-endian bytes of values of this type.
    fn bytes(values: &[Self]) -> Vec<u8>;
    /// The bits of `|self|` (the sign bit cleared): ordered as the
    /// magnitudes are, a NaN above infinity.
    fn magnitude_key(self) -> u32;
    /// The value whose bits are `key` (a [`Real::magnitude_key`]).
    fn from_magnitude_key(key: u32) -> Self;
    /// The bits of each value rounded to f16 (nearest, ties to even).
    fn f16_bits(values: &[Self], out: &mut [u16]);
    /// The integer codes of `xs` in one block of scale `s` and zero point
    /// `z`: `rint(x / s) + z` clamped to `[lo, hi]`, its low 8 bits.
    fn codes(xs: &[Self], s: Self, z: Self, (lo, hi): (Self, Self), out: &mut [u8]) {
        for (o, &x) in out.iter_mut().zip(xs) {
            *o = Self::code(x, s, z, (lo, hi));
        }
    }
    /// [`Real::codes`] with a scale and a zero point per element.
    fn codes_each(xs: &[Self], ss: &[Self], zs: &[Self], (lo, hi): (Self, Self), out: &mut [u8]) {
        for (((o, &x), &s), &z) in out.iter_mut().zip(xs).zip(ss).zip(zs) {
            *o = Self::code(x, s, z, (lo, hi));
        }
    }
    /// The code of one value ([`Real::codes`]): `q + z` is exact (small
    /// integers), clamped in this type (a NaN weight gives code 0).
    #[inline]
    fn code(x: Self, s: Self, z: Self, (lo, hi): (Self, Self)) -> u8 {
        let v = x.div(s).rint().add(z);
        let v = if v < lo {
            lo
        } else if v > hi {
            hi
        } else {
            v
        };
        v.low_byte()
    }
    /// Round half to even (numpy's `rint`).
    fn rint(self) -> Self {
        Self::of(self.get().round_ties_even())
    }
    fn abs(self) -> Self {
        Self::of(self.get().abs())
    }
    /// The square root, rounded once to this type (f64's correctly
    /// rounded root rounds to the f32 or f16 root exactly).
    fn sqrt(self) -> Self {
        Self::of(self.get().sqrt())
    }
}

impl Real for f32 {
    const DTYPE: coreai_interp::DType = coreai_interp::DType::F32;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn rint(self) -> Self {
        rint_f32(self)
    }
    fn codes(xs: &[Self], s: Self, z: Self, (lo, hi): (Self, Self), out: &mut [u8]) {
        // The same operations, in the processor's widest vectors.
        coreai_ir::simd::codes_f32(xs, s, z, lo, hi, out);
    }
    fn codes_each(xs: &[Self], ss: &[Self], zs: &[Self], (lo, hi): (Self, Self), out: &mut [u8]) {
        coreai_ir::simd::codes_f32_each(xs, ss, zs, lo, hi, out);
    }
    fn abs(self) -> Self {
        f32::abs(self)
    }
    fn get(self) -> f64 {
        self as f64
    }
    fn add(self, o: Self) -> Self {
        self + o
    }
    fn sub(self, o: Self) -> Self {
        self - o
    }
    fn mul(self, o: Self) -> Self {
        self * o
    }
    fn div(self, o: Self) -> Self {
        self / o
    }
    fn low_byte(self) -> u8 {
        (self + 12_582_912.0).to_bits() as u8
    }
    fn f16_bits(values: &[Self], out: &mut [u16]) {
        use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
        // F16C, 8 at a time, where the processor has it.
        out.reinterpret_cast_mut::<half::f16>()
            .convert_from_f32_slice(values);
    }
    fn bytes(values: &[Self]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }
    fn magnitude_key(self) -> u32 {
        self.to_bits() & 0x7fff_ffff
    }
    fn from_magnitude_key(key: u32) -> Self {
        f32::from_bits(key)
    }
}

impl Real for half::f16 {
    const DTYPE: coreai_interp::DType = coreai_interp::DType::F16;
    fn of(v: f64) -> Self {
        half::f16::from_f64(v)
    }
    fn rint(self) -> Self {
        // Exact: an f16 value is an f32 value, and so is its rounding.
        half::f16::from_f32(rint_f32(self.to_f32()))
    }
    fn get(self) -> f64 {
        self.to_f64()
    }
    fn add(self, o: Self) -> Self {
        half::f16::from_f32(self.to_f32() + o.to_f32())
    }
    fn sub(self, o: Self) -> Self {
        half::f16::from_f32(self.to_f32() - o.to_f32())
    }
    fn mul(self, o: Self) -> Self {
        half::f16::from_f32(self.to_f32() * o.to_f32())
    }
    fn div(self, o: Self) -> Self {
        half::f16::from_f32(self.to_f32() / o.to_f32())
    }
    fn low_byte(self) -> u8 {
        self.to_f32().low_byte()
    }
    fn f16_bits(values: &[Self], out: &mut [u16]) {
        for (o, v) in out.iter_mut().zip(values) {
            *o = v.to_bits();
        }
    }
    fn bytes(values: &[Self]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }
    fn magnitude_key(self) -> u32 {
        (self.to_bits() & 0x7fff) as u32
    }
    fn from_magnitude_key(key: u32) -> Self {
        half::f16::from_bits(key as u16)
    }
}

/// A weight's compression error, and where it was measured.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    pub error: f64,
    /// At the outputs of the weight's layers (`calibration=`), or relative
    /// to the weight.
    pub at_outputs: bool,
}

impl std::fmt::Display for Measured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.at_outputs {
            "output error"
        } else {
            "relative error"
        };
        write!(f, "{what} {:.3e}", self.error)
    }
}

/// Where a pass measures errors: with a calibration, at the outputs of the
/// layers of the weight whose constant op is `op` (if the calibration run
/// reached them); otherwise relative to the weight.
#[derive(Clone, Copy)]
pub struct Meter<'m> {
    pub calibration: Option<&'m Calibration>,
    pub op: usize,
}

impl Meter<'_> {
    /// The error of `w` (of `shape`, in `blocks`) compressed to
    /// `reconstructed(e, block of e)`.
    pub fn measure<T: Real>(
        &self,
        w: &[T],
        shape: &[usize],
        blocks: &Blocks,
        reconstructed: impl Fn(usize, usize) -> f64,
    ) -> Result<Measured, String> {
        if let Some(c) = self.calibration {
            let mut dense = vec![0.0f64; w.len()];
            blocks.for_each(shape, |e, b| dense[e] = reconstructed(e, b));
            let tensor = |values: Vec<f64>| -> Result<coreai_interp::Tensor, String> {
                let a = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(shape), values)
                    .map_err(|e| e.to_string())?;
                Ok(coreai_interp::Tensor::from_f64(a, T::DTYPE))
            };
            let original = tensor(w.iter().map(|x| x.get()).collect())?;
            if let Some(e) = c.output_error(self.op, original, tensor(dense)?) {
                return Ok(Measured {
                    error: e?,
                    at_outputs: true,
                });
            }
        }
        Ok(Measured {
            error: relative_error(w, shape, blocks, reconstructed),
            at_outputs: false,
        })
    }
}

/// `‖w - w'‖ / ‖w‖` in f64, `w'[e]` = `reconstructed(e, block of e)`.
pub fn relative_error<T: Real>(
    w: &[T],
    shape: &[usize],
    blocks: &Blocks,
    reconstructed: impl Fn(usize, usize) -> f64,
) -> f64 {
    let (mut err, mut norm) = (0.0f64, 0.0f64);
    blocks.for_each(shape, |e, b| {
        let x = w[e].get();
        let d = x - reconstructed(e, b);
        err += d * d;
        norm += x * x;
    });
    if norm == 0.0 {
        0.0
    } else {
        (err / norm).sqrt()
    }
}

pub use coreai_ir::simd::rint_f32;

/// Blocks of a weight: for each axis the block extent (the whole axis when
/// its block size is 0), and the shape of the grid of blocks.
#[derive(Debug)]
pub struct Blocks {
    pub extent: Vec<usize>,
    pub grid: Vec<usize>,
}

impl Blocks {
    /// `block_sizes[d]` consecutive elements of axis `d` form a block (0:
    /// the whole axis); an error names the axis a size does not divide.
    pub fn new(shape: &[usize], block_sizes: &[usize]) -> Result<Self, String> {
        let mut extent = Vec::with_capacity(shape.len());
        let mut grid = Vec::with_capacity(shape.len());
        for (d, (&n, &b)) in shape.iter().zip(block_sizes).enumerate() {
            if b == 0 {
                extent.push(n);
                grid.push(1);
            } else if n % b != 0 {
                return Err(format!("{b} does not divide axis {d} (of size {n})"));
            } else {
                extent.push(b);
                grid.push(n / b);
            }
        }
        Ok(Self { extent, grid })
    }

    pub fn count(&self) -> usize {
        self.grid.iter().product()
    }

    /// Whether block `b` is the elements `b·size..(b+1)·size` in row-major
    /// order: the axes before the first split one have extent 1, those
    /// after it are whole.
    pub fn contiguous(&self) -> bool {
        let split = self.grid.iter().position(|&g| g > 1);
        match split {
            None => true,
            Some(d) => {
                self.extent[..d].iter().all(|&e| e == 1)
                    && self.grid[d + 1..].iter().all(|&g| g == 1)
            }
        }
    }

    /// Calls `f(element, block)` for every element in row-major order.
    pub fn for_each(&self, shape: &[usize], mut f: impl FnMut(usize, usize)) {
        let rows = self.rows(shape);
        for r in 0..rows.count {
            let base = rows.base(r);
            for (j, &c) in rows.column.iter().enumerate() {
                f(r * rows.column.len() + j, base + c);
            }
        }
    }

    /// The weight as rows along its last axis: the block index of element
    /// `j` of row `r` is `base(r) + column[j]`.
    pub fn rows(&self, shape: &[usize]) -> Rows {
        let rank = shape.len();
        if rank == 0 {
            return Rows {
                count: 1,
                column: vec![0],
                outer: Vec::new(),
            };
        }
        let mut grid_stride = vec![1usize; rank];
        for d in (0..rank - 1).rev() {
            grid_stride[d] = grid_stride[d + 1] * self.grid[d + 1];
        }
        let last = rank - 1;
        Rows {
            count: shape[..last].iter().product(),
            column: (0..shape[last])
                .map(|j| (j / self.extent[last]) * grid_stride[last])
                .collect(),
            outer: (0..last)
                .map(|d| (shape[d], self.extent[d], grid_stride[d]))
                .collect(),
        }
    }
}

/// A weight's rows and the block of each element ([`Blocks::rows`]).
pub struct Rows {
    pub count: usize,
    pub column: Vec<usize>,
    /// Per outer axis: its size, block extent and grid stride.
    outer: Vec<(usize, usize, usize)>,
}

impl Rows {
    /// The block index of the first element of row `r`, less its column's part.
    pub fn base(&self, mut r: usize) -> usize {
        let mut base = 0;
        for &(size, extent, stride) in self.outer.iter().rev() {
            base += (r % size / extent) * stride;
            r /= size;
        }
        base
    }

    /// Row ranges for up to `threads` workers, in order.
    pub fn chunks(&self, threads: usize) -> Vec<std::ops::Range<usize>> {
        let per = self.count.div_ceil(threads.max(1)).max(1);
        (0..self.count)
            .step_by(per)
            .map(|s| s..(s + per).min(self.count))
            .collect()
    }
}

/// The worker threads the weight passes use for one weight's arithmetic:
/// the machine's cores, at most 8. Results do not depend on it.
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_number_elements_row_major() {
        // A [2, 4] weight in blocks of [1, 2]: grid [2, 2].
        let b = Blocks::new(&[2, 4], &[1, 2]).unwrap();
        let mut got = Vec::new();
        b.for_each(&[2, 4], |e, k| got.push((e, k)));
        assert_eq!(
            got,
            [
                (0, 0),
                (1, 0),
                (2, 1),
                (3, 1),
                (4, 2),
                (5, 2),
                (6, 3),
                (7, 3)
            ]
        );
        assert!(Blocks::new(&[2, 6], &[1, 4])
            .unwrap_err()
            .contains("4 does not divide axis 1"));
    }

    #[test]
    fn rint_rounds_half_to_even() {
        for x in [
            0.5f32,
            1.5,
            2.5,
            -0.5,
            -2.5,
            3.49999,
            -7.5,
            1e7 + 0.5,
            8388609.0,
            0.0,
            -0.0,
            1e30,
        ] {
            assert_eq!(rint_f32(x).to_bits(), x.round_ties_even().to_bits(), "{x}");
        }
        assert!(rint_f32(f32::NAN).is_nan());
    }

    #[test]
    fn f16_arithmetic_rounds_once() {
        let a = half::f16::from_f32(1.0);
        let b = half::f16::from_f32(0.0004883); // ≈ 2^-11: 1 + b ties to even
        assert_eq!(a.add(b), half::f16::from_f32(1.0));
        assert_eq!(half::f16::of(2.5).rint().get(), 2.0);
    }
}
