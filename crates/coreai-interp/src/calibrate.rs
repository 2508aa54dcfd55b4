//! Value ranges for `cast-to-f16{calibration=FILE.npz}`: runs a module on
//! the file's inputs and records, for every op, the largest magnitude of
//! its float operands and results, whether they overflow f16 and how much
//! relative precision f16 keeps of them.
//! `cast-to-f16` calls [`calibrate`]; the weight compressors'
//! `calibration=` calls [`record_operands`] for the operands of each
//! weight's consumers.

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
    with_program(module, inputs, entry, |program, values, order| {
        program.set_recording_ranges(true);
        program
            .run(entry, values, Options::default())
            .map_err(|e| e.to_string())?;
        let mut ranges: HashMap<usize, OpRange> = program.take_ranges();
        Ok(order.iter().map(|op| ranges.remove(op)).collect())
    })
}

/// Runs `entry` of `module` on the tensors in `inputs` (as [`calibrate`])
/// and returns the operands of the ops at the given pre-order positions
/// (as [`calibrate`] numbers them) the first time each ran, by position;
/// an op that did not run is absent.
pub fn record_operands(
    module: MlirOperation,
    inputs: &Path,
    entry: &str,
    positions: &[usize],
) -> Result<HashMap<usize, Vec<Value>>, String> {
    with_program(module, inputs, entry, |program, values, order| {
        let ops: Vec<usize> = positions
            .iter()
            .map(|&i| {
                order
                    .get(i)
                    .copied()
                    .ok_or_else(|| format!("no op at position {i}"))
            })
            .collect::<Result<_, _>>()?;
        program.watch_operands(ops.iter().copied());
        program
            .run(entry, values, Options::default())
            .map_err(|e| e.to_string())?;
        let mut watched = program.take_watched();
        Ok(positions
            .iter()
            .zip(ops)
            .filter_map(|(&i, op)| watched.remove(&op).map(|v| (i, v)))
            .collect())
    })
}

/// `body` with a copy of `module` ready to run: the program, the values of
/// `entry`'s inputs from the file, and the program's ops in pre-order
/// (pointers; the module itself left out).
fn with_program<R>(
    module: MlirOperation,
    inputs: &Path,
    entry: &str,
    body: impl FnOnce(&Program<'_>, Vec<Value>, &[usize]) -> Result<R, String>,
) -> Result<R, String> {
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
    order.retain(|op| *op != root.ptr as usize);
    body(&program, values, &order)
}
