//! Value ranges for `cast-to-f16{calibration=FILE.npz}`: runs a module on
//! the file's inputs and records, for every op, the largest magnitude of
//! its float operands and results, whether they overflow f16 and how much
//! relative precision f16 keeps of them.
//! `cast-to-f16` calls [`calibrate`].

use crate::interp::{project_context, Options, Program, Value};
use crate::npz::read_npz;
use half::f16;
use mlir_sys::{MlirOperation, MlirWalkResult};
use std::{collections::HashMap, ffi::c_void, path::Path};

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

/// Runs `entry` of `module` on the tensors in `inputs` (keyed by argument
/// name, as `coreai-run --inputs`) and returns each op's ranges, in the
/// pre-order of the ops nested in `module`.
pub fn calibrate(
    module: MlirOperation,
    inputs: &Path,
    entry: &str,
) -> Result<Vec<Option<OpRange>>, String> {
    let mut text: Vec<u8> = Vec::new();
    unsafe {
        mlir_sys::mlirOperationPrint(
            module,
            Some(coreai_ir::ffi::append_to_vec),
            &mut text as *mut _ as *mut c_void,
        )
    };
    let text = String::from_utf8(text).map_err(|e| e.to_string())?;
    let context = project_context();
    let program = Program::parse(&context, &text).map_err(|e| e.to_string())?;
    let (ports, _) = program.signature(entry).map_err(|e| e.to_string())?;
    let given = read_npz(inputs).map_err(|e| e.to_string())?;
    let values = ports
        .iter()
        .map(|p| {
            given
                .get(&p.name)
                .map(|t| Value::tensor(t.clone()))
                .ok_or_else(|| format!("input '{}' of @{entry} is missing from the file", p.name))
        })
        .collect::<Result<Vec<_>, _>>()?;
    program.set_recording_ranges(true);
    program
        .run(entry, values, Options::default())
        .map_err(|e| e.to_string())?;
    let mut ranges: HashMap<usize, OpRange> = program.take_ranges();
    let mut order: Vec<usize> = Vec::new();
    unsafe extern "C" fn visit(op: MlirOperation, data: *mut c_void) -> MlirWalkResult {
        let order = unsafe { &mut *(data as *mut Vec<usize>) };
        order.push(op.ptr as usize);
        mlir_sys::MlirWalkResult_MlirWalkResultAdvance
    }
    let root = program.module().as_operation().to_raw();
    unsafe {
        mlir_sys::mlirOperationWalk(
            root,
            Some(visit),
            &mut order as *mut _ as *mut c_void,
            mlir_sys::MlirWalkOrder_MlirWalkPreOrder,
        )
    };
    Ok(order
        .into_iter()
        .filter(|op| *op != root.ptr as usize)
        .map(|op| ranges.remove(&op))
        .collect())
}
