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

use coreai_ir::op::coreai;
use coreai_ir::pass::parse_choices;
use coreai_ir::{
    lowering::{Decline, LoweringCx},
    pass::{Pass, PassInfo, PassResult},
    rewrite::{Pattern, Policy, RewriteOptions, Rewriter},
};
use melior::ir::{
    operation::{OperationLike, OperationRef},
    Value, ValueLike,
};

/// The op names this pass folds.
const FOLDABLE: &[&str] = &[coreai::ABS, "aten.relu.default"];

pub const INFO: PassInfo = PassInfo {
    name: "fold-idempotent-unary",
    summary: "Fold f(f(x)) to f(x) for exactly idempotent elementwise ops (coreai.abs, aten.relu.default)",
    source: include_str!("fold_idempotent_unary.rs"),
    anchor: None,
    options: FoldIdempotentUnary::OPTIONS,
    create: || Box::new(FoldIdempotentUnary::default()),
};

coreai_ir::pass_options! {
    struct FoldIdempotentUnary {
        "ops" => ops: Vec<&'static str> = "",
            "comma-separated op names to fold (coreai.abs, aten.relu.default; empty: all of them)",
            parse = |v: &str| parse_choices(v, FOLDABLE, "foldable");
    }
}

impl FoldIdempotentUnary {
    /// Whether `name` is one of the ops to fold (every foldable op when
    /// `ops` is empty).
    fn folds(&self, name: &str) -> bool {
        FOLDABLE.contains(&name) && (self.ops.is_empty() || self.ops.contains(&name))
    }
}

impl Pass for FoldIdempotentUnary {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        // One sweep: the driver re-reads each op's operand when it gets to
        // it, so a chain f(f(f(x))) folds to f(x) in program order.
        let mut rewriter = Rewriter::new(INFO.name, Policy::Optional, rewrites);
        let applied = rewriter.run_once(root, |op| {
            let name = op.name();
            match name.as_string_ref().as_str() {
                Ok(name) if self.folds(name) => {
                    vec![Pattern::new(name, fold_idempotent_pair)]
                }
                _ => Vec::new(),
            }
        })?;
        tracing::debug!(applied, "f(f(x)) pairs folded");
        Ok(())
    }
}

// f(f(x)) → f(x), for f in the selected ops (the driver selects by name)
fn fold_idempotent_pair<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let op = cx.op();
    if op.operand_count() != 1 || op.result_count() != 1 {
        return Err("not a unary op with one result".into());
    }
    let operand = cx.operand(0)?;
    if !operand.is_operation_result() {
        return Err("the operand is a block argument".into());
    }
    let inner = coreai_ir::schema::producer(operand).ok_or("the operand is a block argument")?;
    if inner.name() != op.name() || inner.result_count() != 1 {
        return Err("the operand is not the same op".into());
    }
    if operand.r#type() != cx.op().result(0).map_err(|e| e.to_string())?.r#type() {
        return Err("operand and result types differ (an implicit cast)".into());
    }
    Ok(vec![operand])
}
