//! `calibration=FILE.npz`: the value ranges the reference executor records
//! running the module on the file's inputs, and the ops they keep in f32.
//!
//! The root crate cannot depend on the executor (it depends on this crate),
//! so the executor installs a [`Calibrator`] (`coreai_interp::calibrate::
//! install`, called by `coreai-opt`), as it installs the constant-folding
//! evaluator of `core-optimize`.

use mlir_sys::MlirOperation;
use std::{path::Path, sync::OnceLock};

/// What the executor saw of one float tensor value over the run (every
/// execution of its op merged).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ValueRange {
    /// The largest finite magnitude.
    pub max_abs: f64,
    /// Some finite element becomes infinite in f16.
    pub overflows: bool,
    /// `max |x - f16(x)| / max |x|` over the finite elements that do not
    /// overflow: the precision f16 keeps of the tensor (2^-11 for normal
    /// numbers; more where values are f16 subnormals or flush to zero).
    pub relative_error: f64,
}

/// The ranges of one op's float operands and results (`None`: not a float
/// tensor, or the op never ran).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpRange {
    pub operands: Vec<Option<ValueRange>>,
    pub results: Vec<Option<ValueRange>>,
}

/// Runs the entry `entry` of `module` (a `builtin.module`) on the inputs in
/// the `.npz` file and returns one entry per op nested in the module, in
/// pre-order (the module itself excluded); an error says why it cannot.
pub type Calibrator =
    fn(module: MlirOperation, inputs: &Path, entry: &str) -> Result<Vec<Option<OpRange>>, String>;

static CALIBRATOR: OnceLock<Calibrator> = OnceLock::new();

/// Installs the executor that `calibration=` runs. The first installation
/// stays.
pub fn install_calibrator(calibrator: Calibrator) {
    let _ = CALIBRATOR.set(calibrator);
}

pub fn calibrator() -> Option<Calibrator> {
    CALIBRATOR.get().copied()
}

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
