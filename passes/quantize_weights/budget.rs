//! `budget-mb=B`: bits per weight from a size budget.
//!
//! Each selected weight may take its `dtype` (the floor), every wider
//! integer code of the same signedness up to 8 bits, or stay dense. Before
//! any weight changes, each weight is quantized at each of its widths and
//! its error `e` measured (relative to the weight, or with `calibration=`
//! at its layers' outputs), and its bytes counted: codes at `bits` per
//! element, packed, plus one scale of the weight's type per block (plus
//! zero points of the codes' width when asymmetric); dense, the weight's
//! own bytes. Every weight starts at the floor; the floor's total over the
//! budget is an error. Then, greedily, the change of one weight to a wider
//! choice with the largest decrease of `e²` per added byte that still fits
//! the budget is made, until none fits (ties: the earlier weight, the
//! narrower choice). This minimizes `Σ e²` (each layer counted alike) at
//! the points of its convex hull of sizes; between them it is a heuristic.
//! `B` is in megabytes of 10⁶ bytes and counts only the weights the pass
//! selects.

use super::{block_sizes, code_at, code_range, quantize, QuantizeWeights};
use crate::compress::{weight, Blocks, Calibration, Meter, Real, Selection};
use coreai_ir::weights::FloatData;
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use std::collections::HashMap;

/// What the budget gives a weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    Bits(u32),
    Dense,
}

/// The budget's choice per weight (by constant op), and its summary.
#[derive(Debug, Default)]
pub struct Plan {
    pub choices: HashMap<usize, Choice>,
    pub summary: String,
}

/// One weight's options: (choice, bytes, error²), narrowest first, dense
/// last.
type Options = Vec<(Choice, u64, f64)>;

/// The plan for `budget` MB over the weights `selection` selects under
/// `root`, or why there is none.
pub fn plan(
    root: OperationRef<'_, '_>,
    selection: &Selection,
    options: &QuantizeWeights,
    budget: f64,
    calibration: Option<&Calibration>,
) -> Result<Plan, String> {
    let super::Codes::Int(floor, signed) = options.dtype else {
        return Err("budget-mb takes integer codes (dtype=int8, int4, int2 or unsigned)".into());
    };
    let widths: Vec<u32> = [2, 4, 8].into_iter().filter(|&b| b >= floor).collect();
    let mut weights: Vec<(usize, Options)> = Vec::new();
    let mut failed = None;
    root.walk(WalkOrder::PreOrder, |op| {
        if !selection.selects(&op) {
            return WalkResult::Advance;
        }
        let op_ptr = op.to_raw().ptr as usize;
        let meter = Meter {
            calibration,
            op: op_ptr,
        };
        match weight_options(&op, options, &widths, signed, meter) {
            Ok(Some(o)) => weights.push((op_ptr, o)),
            Ok(None) => {}
            Err(e) => failed = Some(e),
        }
        WalkResult::Advance
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let limit = (budget * 1e6).floor() as u64;
    let mut at: Vec<usize> = vec![0; weights.len()];
    let mut total: u64 = weights.iter().map(|(_, o)| o[0].1).sum();
    if total > limit {
        return Err(format!(
            "budget-mb={budget}: the {} weights take {:.6} MB at {} bits, over the budget",
            weights.len(),
            total as f64 / 1e6,
            floor
        ));
    }
    loop {
        // The best upgrade that fits: largest decrease of e² per byte.
        let mut best: Option<(f64, usize, usize)> = None;
        for (w, (_, o)) in weights.iter().enumerate() {
            let (_, bytes, e2) = o[at[w]];
            for (k, &(_, more, e2k)) in o.iter().enumerate().skip(at[w] + 1) {
                if more <= bytes || total - bytes + more > limit {
                    continue;
                }
                let gain = (e2 - e2k) / (more - bytes) as f64;
                if gain > 0.0 && best.is_none_or(|(g, ..)| gain > g) {
                    best = Some((gain, w, k));
                }
            }
        }
        let Some((_, w, k)) = best else { break };
        total = total - weights[w].1[at[w]].1 + weights[w].1[k].1;
        at[w] = k;
    }
    let mut count: Vec<(Choice, usize)> = Vec::new();
    let mut choices = HashMap::new();
    for (w, (op, o)) in weights.iter().enumerate() {
        let choice = o[at[w]].0;
        choices.insert(*op, choice);
        match count.iter_mut().find(|(c, _)| *c == choice) {
            Some((_, n)) => *n += 1,
            None => count.push((choice, 1)),
        }
    }
    count.sort_by_key(|(c, _)| match c {
        Choice::Bits(b) => *b,
        Choice::Dense => u32::MAX,
    });
    let parts: Vec<String> = count
        .iter()
        .map(|(c, n)| match c {
            Choice::Bits(b) => format!("{n} at {}{b}", if signed { "int" } else { "uint" }),
            Choice::Dense => format!("{n} dense"),
        })
        .collect();
    let error: f64 = weights
        .iter()
        .enumerate()
        .map(|(w, (_, o))| o[at[w]].2)
        .sum();
    Ok(Plan {
        choices,
        summary: format!(
            "budget-mb={budget}: {} weights: {}; {:.6} MB, sum of squared errors {error:.4e}",
            weights.len(),
            parts.join(", "),
            total as f64 / 1e6,
        ),
    })
}

/// A weight's choices with their bytes and squared errors, or `None` for
/// a constant the pass will report itself (not a float weight, blocks
/// that do not divide it).
fn weight_options(
    op: &OperationRef<'_, '_>,
    options: &QuantizeWeights,
    widths: &[u32],
    signed: bool,
    meter: Meter<'_>,
) -> Result<Option<Options>, String> {
    let Ok(result) = op.result(0) else {
        return Ok(None);
    };
    let Ok(w) = weight(result.into()) else {
        return Ok(None);
    };
    let Ok(sizes) = block_sizes(&w, options) else {
        return Ok(None);
    };
    let Ok(blocks) = Blocks::new(&w.shape, &sizes) else {
        return Ok(None);
    };
    fn each<T: Real>(
        v: &[T],
        shape: &[usize],
        blocks: &Blocks,
        (widths, signed, symmetric): (&[u32], bool, bool),
        meter: Meter<'_>,
    ) -> Result<Options, String> {
        let n = v.len() as u64;
        let scale_bytes = blocks.count() as u64 * std::mem::size_of::<T>() as u64;
        let mut out = Vec::new();
        for &bits in widths {
            let (lo, hi) = code_range(bits, signed, symmetric);
            let q = quantize(v, shape, blocks, bits, lo, hi, signed, symmetric);
            let e = meter.measure(v, shape, blocks, |e, b| {
                (code_at(&q.codes, e, q.bits, signed) - q.zero_points[b]) as f64 * q.scales[b].get()
            })?;
            let zero_points = if symmetric {
                0
            } else {
                (blocks.count() as u64 * bits as u64).div_ceil(8)
            };
            let bytes = (n * bits as u64).div_ceil(8) + scale_bytes + zero_points;
            out.push((Choice::Bits(bits), bytes, e.error * e.error));
        }
        out.push((Choice::Dense, n * std::mem::size_of::<T>() as u64, 0.0));
        Ok(out)
    }
    let how = (widths, signed, options.symmetric);
    let o = match &w.data {
        FloatData::F32(v) => each(v, &w.shape, &blocks, how, meter)?,
        FloatData::F16(v) => each(v, &w.shape, &blocks, how, meter)?,
    };
    Ok(Some(o))
}
