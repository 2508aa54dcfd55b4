//! Value ranges: what a run saw of each float tensor value (its largest
//! magnitude, whether it overflows f16, the precision f16 keeps of it),
//! recorded by the interpreter per op for calibration ([`crate::calibrate`]).

use crate::value::Value;
use half::f16;

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

/// The range of a float tensor value (`None` for anything else).
pub fn range_of(v: &Value) -> Option<ValueRange> {
    let t = v.as_tensor()?;
    if !t.dtype().is_float() {
        return None;
    }
    let mut r = ValueRange::default();
    let mut worst_error = 0f64;
    for x in t.to_f64().iter().copied().filter(|x| x.is_finite()) {
        let h = f16::from_f64(x);
        if h.is_infinite() {
            r.overflows = true;
        } else {
            worst_error = worst_error.max((x - h.to_f64()).abs());
        }
        r.max_abs = r.max_abs.max(x.abs());
    }
    if r.max_abs > 0.0 {
        r.relative_error = worst_error / r.max_abs;
    }
    Some(r)
}

fn merge_value(into: &mut Option<ValueRange>, new: Option<ValueRange>) {
    match (into.as_mut(), new) {
        (Some(a), Some(b)) => {
            a.max_abs = a.max_abs.max(b.max_abs);
            a.overflows |= b.overflows;
            a.relative_error = a.relative_error.max(b.relative_error);
        }
        (None, Some(b)) => *into = Some(b),
        _ => {}
    }
}

/// Merges one execution of an op into its record.
pub fn merge(
    into: &mut OpRange,
    operands: Vec<Option<ValueRange>>,
    results: Vec<Option<ValueRange>>,
) {
    for (list, new) in [(&mut into.operands, operands), (&mut into.results, results)] {
        if list.len() < new.len() {
            list.resize(new.len(), None);
        }
        for (slot, r) in list.iter_mut().zip(new) {
            merge_value(slot, r);
        }
    }
}
