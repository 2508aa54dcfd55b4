//! `calibration=FILE.npz` of the weight compressors: a weight's error
//! measured where it matters, at the outputs of the layers that read it.
//!
//! Before any weight changes, the reference executor runs the module's
//! `@main` on the file's inputs (keyed by argument `coreai.name`, as
//! `coreai-run --inputs`) and records the operands of each weight's
//! consumers: the first op reading it that is not a `transpose` or
//! `reshape` of it (a matmul, convolution or gather). A compressed weight's
//! error is then `sqrt(Σ ‖y' - y‖² / Σ ‖y‖²)` over its consumers, `y` the
//! consumer's result from the recorded operands and `y'` the same with the
//! weight replaced by its compressed values (through the same transposes),
//! each computed by the executor's kernels (`coreai_interp::fold::eval_op`),
//! in the weight's type.

use coreai_interp::fold::{attribute_value, eval_op};
use coreai_interp::{Tensor, Value as Run};
use coreai_ir::op::coreai;
use coreai_ir::raw::op_name;
use coreai_ir::schema::uses;
use coreai_ir::weights::constant_value;
use melior::ir::{
    attribute::AttributeLike,
    operation::{OperationLike, OperationRef},
    Value,
};
use mlir_sys::MlirOperation;
use std::collections::HashMap;
use std::path::Path;

/// Ops that only move a weight on its way to its consumer.
const MOVES: &[&str] = &[coreai::TRANSPOSE, coreai::RESHAPE];

/// One op on the way: the op (pointer), the operand the weight's value
/// enters by, and the other operands' values (constants).
#[derive(Clone, Debug)]
struct Step {
    op: usize,
    at: usize,
    operands: Vec<Option<Tensor>>,
}

/// One consumer of a weight: the steps from the weight to it (the last is
/// the consumer, its operands those the calibration run recorded).
#[derive(Debug)]
struct Reader {
    steps: Vec<Step>,
}

/// The recorded consumers of each weight, by constant op (pointer).
#[derive(Debug, Default)]
pub struct Calibration {
    readers: HashMap<usize, Vec<Reader>>,
}

/// `op` from its pointer (an op of the module being compressed, alive for
/// the pass).
fn raw(op: usize) -> MlirOperation {
    MlirOperation {
        ptr: op as *mut std::ffi::c_void,
    }
}

impl Calibration {
    /// Runs `@main` of `module` on `inputs` and records the consumers'
    /// operands of every constant `selects` accepts.
    pub fn record(
        module: OperationRef<'_, '_>,
        inputs: &Path,
        selects: impl Fn(&OperationRef<'_, '_>) -> bool,
    ) -> Result<Self, String> {
        if op_name(module.to_raw()) != "builtin.module" {
            return Err("calibration= runs the module's @main: run the pass on the module".into());
        }
        // Pre-order positions, as the executor's copy numbers them, and
        // the paths from each weight to its consumers.
        let mut position = HashMap::new();
        let mut paths: Vec<(usize, Vec<Step>)> = Vec::new();
        let mut failed = None;
        let mut n = 0usize;
        module.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            if op.to_raw().ptr != module.to_raw().ptr {
                position.insert(op.to_raw().ptr as usize, n);
                n += 1;
                if selects(&op) {
                    let w = op.to_raw().ptr as usize;
                    if let Ok(result) = op.result(0) {
                        let found = &mut |steps| paths.push((w, steps));
                        if let Err(e) = follow(result.into(), &mut Vec::new(), found) {
                            failed = Some(e);
                        }
                    }
                }
            }
            melior::ir::operation::WalkResult::Advance
        });
        if let Some(e) = failed {
            return Err(e);
        }
        let consumers: Vec<usize> = paths
            .iter()
            .filter_map(|(_, p)| p.last().and_then(|s| position.get(&s.op).copied()))
            .collect();
        let mut recorded =
            coreai_interp::calibrate::record_operands(module.to_raw(), inputs, "main", &consumers)?;
        let mut readers: HashMap<usize, Vec<Reader>> = HashMap::new();
        for (w, mut steps) in paths {
            let last = steps.last_mut().expect("a path ends at its consumer");
            // A consumer that did not run (a branch not taken) says nothing.
            let Some(values) = recorded.remove(&position[&last.op]) else {
                continue;
            };
            last.operands = values.iter().map(|v| v.as_tensor().cloned()).collect();
            readers.entry(w).or_default().push(Reader { steps });
        }
        Ok(Self { readers })
    }

    /// The error at the outputs of `weight`'s consumers of its compressed
    /// values `compressed` (the weight's `original` values and shape), or
    /// `None` when the calibration run reached none of them.
    pub fn output_error(
        &self,
        weight: usize,
        original: Tensor,
        compressed: Tensor,
    ) -> Option<Result<f64, String>> {
        let readers = self.readers.get(&weight).filter(|r| !r.is_empty())?;
        let run = || -> Result<f64, String> {
            let (mut err, mut norm) = (0.0f64, 0.0f64);
            for reader in readers {
                let y = through(reader, original.clone())?;
                let y2 = through(reader, compressed.clone())?;
                let (y, y2) = (y.to_f64(), y2.to_f64());
                for (a, b) in y.iter().zip(y2.iter()) {
                    err += (a - b) * (a - b);
                    norm += a * a;
                }
            }
            Ok(if norm == 0.0 {
                err.sqrt()
            } else {
                (err / norm).sqrt()
            })
        };
        Some(run())
    }
}

/// The consumer's first result with the weight's value `w` sent down the
/// reader's steps.
fn through(reader: &Reader, w: Tensor) -> Result<Tensor, String> {
    let mut value = w;
    for step in &reader.steps {
        let operands = step
            .operands
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if i == step.at {
                    Ok(Run::tensor(value.clone()))
                } else {
                    t.clone().map(Run::tensor).ok_or_else(|| {
                        format!("operand #{i} of {} is not a tensor", op_name(raw(step.op)))
                    })
                }
            })
            .collect::<Result<Vec<_>, String>>()?;
        let results = eval_op(raw(step.op), operands)?;
        value = results
            .first()
            .and_then(|r| r.as_tensor().cloned())
            .ok_or_else(|| format!("{} gave no tensor", op_name(raw(step.op))))?;
    }
    Ok(value)
}

/// The values of `op`'s operands but `at` (constants: a transpose's
/// permutation, a reshape's shape).
fn constant_operands(op: &OperationRef<'_, '_>, at: usize) -> Result<Vec<Option<Tensor>>, String> {
    (0..op.operand_count())
        .map(|i| {
            if i == at {
                return Ok(None);
            }
            let v = op.operand(i).map_err(|e| e.to_string())?;
            let attr = constant_value(v).ok_or_else(|| {
                format!("operand #{i} of {} is not a constant", op_name(op.to_raw()))
            })?;
            match attribute_value(attr.to_raw())? {
                Run::Tensor(t) => Ok(Some((*t).clone())),
                _ => Ok(None),
            }
        })
        .collect()
}

/// Calls `found` with each path of steps from `value` through transposes
/// and reshapes to a consumer (whose operands are left empty, for the
/// calibration run to fill).
fn follow(
    value: Value<'_, '_>,
    path: &mut Vec<Step>,
    found: &mut dyn FnMut(Vec<Step>),
) -> Result<(), String> {
    for (user, at) in uses(value) {
        let name = op_name(user.to_raw());
        let op = user.to_raw().ptr as usize;
        match user.result(0) {
            Ok(r) if MOVES.contains(&name.as_str()) && at == 0 => {
                let operands = constant_operands(&user, at)?;
                path.push(Step { op, at, operands });
                follow(r.into(), path, found)?;
                path.pop();
            }
            _ => {
                let mut steps = path.clone();
                steps.push(Step {
                    op,
                    at,
                    operands: Vec::new(),
                });
                found(steps);
            }
        }
    }
    Ok(())
}
