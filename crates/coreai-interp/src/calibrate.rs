//! Value ranges for `cast-to-f16{calibration=FILE.npz}`: runs a module on
//! the file's inputs and records, for every op, the largest magnitude of
//! its float operands and results, whether they overflow f16 and how much
//! relative precision f16 keeps of them.
//! `cast-to-f16` calls [`calibrate`].

use crate::interp::{project_context, Options, Program};
use crate::npz::read_npz;
pub use crate::ranges::{OpRange, ValueRange};
use crate::value::Value;
use mlir_sys::{MlirOperation, MlirWalkResult};
use std::{collections::HashMap, ffi::c_void, path::Path};

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
