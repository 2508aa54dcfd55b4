//! `fold-idempotent-unary`: `f(f(x)) → f(x)` for elementwise ops with
//! `f ∘ f = f` exactly.
//!
//! Preconditions: verified IR. Runs on any operation and rewrites the ops
//! nested in it; anchor it on `func.func` or `coreai.graph` to run one
//! instance per function in parallel.
//!
//! Guarantee: every rewritten value is bit-identical to the original for every
//! input. The folded ops are those where that holds for all values of their
//! types, NaN, -0.0 and infinities included:
//!   - `coreai.abs`: |(|x|)| = |x| (abs of NaN is NaN, of -0.0 is +0.0, both
//!     fixed points);
//!   - `aten.relu.default`: max(max(x, 0), 0) = max(x, 0) (relu(NaN) is NaN).
//!
//! Only pairs with identical operand and result types fold, so no implicit
//! cast is dropped. The outer op's uses move to the inner op; the outer op,
//! now dead, is erased. Interactions: none; `cse` and `canonicalize` neither
//! need nor undo it.
//!
//! Option `ops`: a comma-separated subset of the foldable op names (default:
//! all of them).

use crate::registry::{Pass, PassFailed, PassInfo, PassOption};
use melior::ir::{
    operation::{OperationLike, OperationRef},
    Value, ValueLike,
};
use mlir_sys::MlirOperation;

/// The op names this pass folds.
const FOLDABLE: &[&str] = &["coreai.abs", "aten.relu.default"];

pub const INFO: PassInfo = PassInfo {
    name: "fold-idempotent-unary",
    summary: "Fold f(f(x)) to f(x) for exactly idempotent elementwise ops (coreai.abs, aten.relu.default)",
    anchor: None,
    options: &[PassOption {
        name: "ops",
        help: "comma-separated op names to fold (coreai.abs, aten.relu.default)",
        default: "coreai.abs,aten.relu.default",
    }],
    create: || Box::new(FoldIdempotentUnary::default()),
};

#[derive(Clone)]
struct FoldIdempotentUnary {
    ops: Vec<&'static str>,
}

impl Default for FoldIdempotentUnary {
    fn default() -> Self {
        Self {
            ops: FOLDABLE.to_vec(),
        }
    }
}

impl Pass for FoldIdempotentUnary {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        debug_assert_eq!(name, "ops");
        let mut ops = Vec::new();
        for requested in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match FOLDABLE.iter().find(|known| **known == requested) {
                Some(known) => ops.push(*known),
                None => {
                    return Err(format!(
                        "'{requested}' is not foldable; choose from {}",
                        FOLDABLE.join(", ")
                    ));
                }
            }
        }
        self.ops = ops;
        Ok(())
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailed> {
        // Collect first, rewrite after: the walk must not see erased ops.
        let mut candidates: Vec<MlirOperation> = Vec::new();
        root.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            if op.to_raw().ptr != root.to_raw().ptr && self.is_candidate(&op) {
                candidates.push(op.to_raw());
            }
            melior::ir::operation::WalkResult::Advance
        });
        tracing::debug!(candidates = candidates.len(), "f(f(x)) pairs found");
        for raw in candidates {
            // Re-read the operand now: an earlier rewrite in a chain
            // f(f(f(x))) may have changed it.
            let outer = unsafe { OperationRef::from_raw(raw) };
            let Some(inner_result) = self.inner_result(&outer) else {
                continue;
            };
            let Ok(outer_result) = outer.result(0) else {
                continue;
            };
            unsafe {
                mlir_sys::mlirValueReplaceAllUsesOfWith(
                    outer_result.to_raw(),
                    inner_result.to_raw(),
                );
                mlir_sys::mlirOperationDestroy(raw);
            }
        }
        Ok(())
    }

    fn clone_box(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

impl FoldIdempotentUnary {
    fn is_candidate(&self, op: &OperationRef<'_, '_>) -> bool {
        self.inner_result(op).is_some()
    }

    /// `f(x)` when `op` is `f(f(x))` with matching types, else `None`.
    fn inner_result<'c, 'a>(&self, op: &OperationRef<'c, 'a>) -> Option<Value<'c, 'a>> {
        let name = op.name();
        let name = name.as_string_ref().as_str().ok()?;
        if !self.ops.contains(&name) || op.operand_count() != 1 || op.result_count() != 1 {
            return None;
        }
        let operand = op.operand(0).ok()?;
        if !operand.is_operation_result() {
            return None;
        }
        let inner =
            unsafe { OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(operand.to_raw())) };
        let same_op = inner.name().as_string_ref().as_str().ok()? == name;
        let same_type = operand.r#type() == op.result(0).ok()?.r#type();
        (same_op && same_type && inner.result_count() == 1).then_some(operand)
    }
}
