//! `calibration=FILE.npz`: the value ranges the reference executor records
//! running the module on the file's inputs, and the ops they keep in f32.
//!
//! The executor (`coreai_interp::calibrate`) runs the module and records
//! the ranges; this file turns them into verdicts and remarks.

pub use coreai_interp::calibrate::{OpRange, ValueRange};

/// Why an op with these ranges must stay in f32, if it must.
pub fn verdict(range: &OpRange, tolerance: f64) -> Option<String> {
    let all = range
        .operands
        .iter()
        .map(|r| ("operand", r))
        .chain(range.results.iter().map(|r| ("result", r)));
    let mut worst: Option<String> = None;
    for (kind, r) in all {
        let Some(r) = r else { continue };
        if r.overflows {
            return Some(format!(
                "calibration: {kind} reaches |x| = {:.4e}, beyond f16's 65504",
                r.max_abs
            ));
        }
        if r.relative_error > tolerance && worst.is_none() {
            worst = Some(format!(
                "calibration: {kind} loses {:.2e} relative precision in f16 (tolerance {tolerance:.0e})",
                r.relative_error
            ));
        }
    }
    worst
}

/// The remark of an op calibration lets convert.
pub fn summary(range: &OpRange) -> String {
    let max = range
        .operands
        .iter()
        .chain(range.results.iter())
        .flatten()
        .fold(0f64, |m, r| m.max(r.max_abs));
    let err = range
        .operands
        .iter()
        .chain(range.results.iter())
        .flatten()
        .fold(0f64, |m, r| m.max(r.relative_error));
    format!("calibration: |x| ≤ {max:.4e}, relative error {err:.2e}")
}
