//! `islands=auto`: the ops of a converted body that stay in f32, with the
//! reason printed by `remarks=true`.

use super::ir::{self, op_name, operands, producer, results, static_shape, value_type};
use coreai_ir::op::coreai;
use mlir_sys::MlirOperation;
use std::collections::HashMap;

/// Reductions that accumulate (max/min select and are exact in f16).
const ACCUMULATING: &[&str] = &[
    coreai::REDUCE_SUM,
    coreai::REDUCE_MEAN,
    coreai::REDUCE_PRODUCT,
    coreai::SCAN,
];

/// Ops whose result is a normalised accumulation computed inside the op.
const ACCUMULATORS: &[&str] = &[coreai::SOFTMAX];

/// Ops a norm statistic flows through between its reduction and its root.
const STATISTIC_CHAIN: &[&str] = &[
    coreai::DECOMPOSABLE_BROADCASTING_ADD,
    coreai::DECOMPOSABLE_BROADCASTING_SUB,
    coreai::DECOMPOSABLE_BROADCASTING_MUL,
    coreai::DECOMPOSABLE_BROADCASTING_DIVIDE,
    coreai::DECOMPOSABLE_BROADCASTING_MAXIMUM,
    coreai::RESHAPE,
    coreai::EXPAND_DIMS,
    coreai::SHRINK_DIMS,
];

/// Ops RoPE positions and frequencies flow through into `sin`/`cos`.
const ANGLE_CHAIN: &[&str] = &[
    coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL,
    coreai::DECOMPOSABLE_BROADCASTING_ADD,
    coreai::DECOMPOSABLE_BROADCASTING_SUB,
    coreai::DECOMPOSABLE_BROADCASTING_MUL,
    coreai::DECOMPOSABLE_BROADCASTING_DIVIDE,
    coreai::RESHAPE,
    coreai::EXPAND_DIMS,
    coreai::SHRINK_DIMS,
    coreai::BROADCAST_TO,
    coreai::BROADCAST_IN_DIMS,
    coreai::TRANSPOSE,
    coreai::CONCAT,
    coreai::TILE,
    coreai::SLICE,
    coreai::CAST,
];

/// A constant holding a value beyond this that f16 does not represent
/// exactly keeps its users in f32: beyond 2048 consecutive integers
/// (positions, indices turned to floats) are no longer all representable
/// in f16.
pub const LARGE_CONSTANT: f32 = 2048.0;

/// How far back (ops) the statistic and angle chains are followed.
const MAX_DEPTH: usize = 8;

/// The reasons ops stay in f32, by op; `candidates` are the ops that would
/// convert otherwise (the body's float-valued ops), in program order.
///
/// `neural_engine` (`islands=neural-engine`): reductions, norm statistics
/// and softmax/logsumexp accumulators are not islands (they compute in f16,
/// as Apple's Neural Engine forms compute them; `fp16-stabilize`'s scaled
/// and max-shifted forms keep them in range); the other kinds are.
pub fn auto(
    candidates: &[MlirOperation],
    max_f16_reduction: u64,
    neural_engine: bool,
) -> HashMap<usize, String> {
    let mut keep: HashMap<usize, String> = HashMap::new();
    let is_candidate = |op: MlirOperation| candidates.iter().any(|c| ir::same_op(*c, op));
    let mark = |op: MlirOperation, reason: &str, keep: &mut HashMap<usize, String>| {
        if is_candidate(op) {
            keep.entry(op.ptr as usize)
                .or_insert_with(|| reason.to_string());
        }
    };
    for &op in candidates {
        let name = op_name(op);
        if ACCUMULATING.contains(&name.as_str()) && !neural_engine {
            match reduced_elements(op) {
                Some(n) if n < max_f16_reduction => {}
                Some(n) => mark(
                    op,
                    &format!("reduction over {n} elements (max-f16-reduction={max_f16_reduction})"),
                    &mut keep,
                ),
                None => mark(op, "reduction over a dynamic number of elements", &mut keep),
            }
            if feeds_from(op, coreai::EXP) {
                mark(op, "logsumexp/softmax accumulator (sum of exp)", &mut keep);
            }
        }
        if ACCUMULATORS.contains(&name.as_str()) && !neural_engine {
            mark(op, "softmax accumulator", &mut keep);
        }
        if name == coreai::LOG
            && !neural_engine
            && operands(op)
                .first()
                .and_then(|v| producer(*v))
                .is_some_and(|p| op_name(p) == coreai::REDUCE_SUM && feeds_from(p, coreai::EXP))
        {
            mark(op, "logsumexp accumulator (log of a sum of exp)", &mut keep);
        }
        if matches!(name.as_str(), coreai::SQRT | coreai::RSQRT) && !neural_engine {
            let mut path = Vec::new();
            let mut found = Vec::new();
            statistic_paths(op, 0, &mut path, &mut found);
            if !found.is_empty() {
                mark(op, "norm statistic (root of a mean of squares)", &mut keep);
                for o in found {
                    mark(o, "norm statistic (root of a mean of squares)", &mut keep);
                }
            }
        }
        if name == coreai::DECOMPOSABLE_BROADCASTING_POW
            && operands(op)
                .get(1)
                .and_then(|v| producer(*v))
                .map(op_name)
                .as_deref()
                != Some(coreai::CONSTANT)
        {
            mark(op, "pow with a tensor exponent (exp's range)", &mut keep);
        }
        if matches!(name.as_str(), coreai::SIN | coreai::COS) {
            let mut seen = Vec::new();
            angle_slice(op, 0, &mut seen);
            let product = seen.iter().any(|o| {
                matches!(
                    op_name(*o).as_str(),
                    coreai::DECOMPOSABLE_BROADCASTING_MUL
                        | coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL
                )
            });
            if product {
                let reason = "RoPE angle (positions × frequencies), guide §5.7";
                mark(op, reason, &mut keep);
                for o in seen {
                    mark(o, reason, &mut keep);
                }
            }
        }
        for v in operands(op) {
            let inexact = producer(v)
                .filter(|p| op_name(*p) == coreai::CONSTANT)
                .and_then(|p| ir::attribute(p, "value"))
                .and_then(|a| {
                    ir::find_float_value(a, LARGE_CONSTANT, |x| {
                        !ir::overflows_f16(x)
                            && !ir::is_f32_extreme(x)
                            && half::f16::from_f32(x).to_f32() != x
                    })
                });
            if let Some(x) = inexact {
                mark(
                    op,
                    &format!(
                        "large constant operand ({x} is beyond {LARGE_CONSTANT} and not exact in f16)"
                    ),
                    &mut keep,
                );
            }
        }
    }
    keep
}

/// Input elements per output element of a reduction; for a `scan`, the
/// length of its axis.
fn reduced_elements(op: MlirOperation) -> Option<u64> {
    if op_name(op) == coreai::SCAN {
        let input = static_shape(value_type(*operands(op).first()?))?;
        let axis = crate::core_optimize::constant_ints(*operands(op).get(1)?)?;
        let rank = input.len() as i64;
        let a = *axis.first()?;
        let a = if a < 0 { a + rank } else { a };
        return input.get(usize::try_from(a).ok()?).map(|d| *d as u64);
    }
    let input = static_shape(value_type(*operands(op).first()?))?;
    let output = static_shape(value_type(*results(op).first()?))?;
    let count = |s: &[i64]| s.iter().product::<i64>().max(1) as u64;
    Some(count(&input) / count(&output))
}

/// Whether operand 0 of `op` is produced by `name`, through reshapes.
fn feeds_from(op: MlirOperation, name: &str) -> bool {
    let mut v = match operands(op).first() {
        Some(v) => *v,
        None => return false,
    };
    for _ in 0..MAX_DEPTH {
        let Some(p) = producer(v) else { return false };
        let n = op_name(p);
        if n == name {
            return true;
        }
        if !matches!(
            n.as_str(),
            coreai::RESHAPE | coreai::EXPAND_DIMS | coreai::SHRINK_DIMS
        ) {
            return false;
        }
        v = operands(p)[0];
    }
    false
}

/// Collects into `found` the ops on every path from `op` back to an
/// accumulating reduction through [`STATISTIC_CHAIN`] ops, the reduction
/// and the squaring that feeds it.
fn statistic_paths(
    op: MlirOperation,
    depth: usize,
    path: &mut Vec<MlirOperation>,
    found: &mut Vec<MlirOperation>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for v in operands(op) {
        if !ir::is_float_tensor(value_type(v)) {
            continue;
        }
        let Some(p) = producer(v) else { continue };
        let name = op_name(p);
        if ACCUMULATING.contains(&name.as_str()) {
            found.extend(path.iter().copied());
            found.push(p);
            if let Some(sq) = operands(p).first().and_then(|x| producer(*x)) {
                let squares = op_name(sq) == coreai::DECOMPOSABLE_BROADCASTING_MUL
                    && ir::same_value(operands(sq)[0], operands(sq)[1]);
                if squares || op_name(sq) == coreai::DECOMPOSABLE_BROADCASTING_POW {
                    found.push(sq);
                }
            }
        } else if STATISTIC_CHAIN.contains(&name.as_str()) {
            path.push(p);
            statistic_paths(p, depth + 1, path, found);
            path.pop();
        }
    }
}

/// The [`ANGLE_CHAIN`] ops `op`'s float operands are computed by.
fn angle_slice(op: MlirOperation, depth: usize, seen: &mut Vec<MlirOperation>) {
    if depth > MAX_DEPTH {
        return;
    }
    for v in operands(op) {
        let Some(p) = producer(v) else { continue };
        if ANGLE_CHAIN.contains(&op_name(p).as_str()) && !seen.iter().any(|s| ir::same_op(*s, p)) {
            seen.push(p);
            angle_slice(p, depth + 1, seen);
        }
    }
}
