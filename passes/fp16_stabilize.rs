//! `fp16-stabilize`: coreai → coreai. Rewrites formulations whose
//! intermediates overflow or underflow fp16 while their result does not
//! into forms that stay in range when every op runs in fp16 (Apple's GPU
//! and Neural Engine; conversion guide §9.1, §5.6).
//!
//! Families (option `families`, default all), one file each under
//! `fp16_stabilize/`:
//!   - `softplus`: `log1p(exp(z))` in the lowering's log1p form (softplus
//!     with any `beta`/`threshold`, mish, `torch.log1p(torch.exp(z))`),
//!     `log(1 + exp(z))`, `log(sigmoid(z))` → `max(z, 0) + log1p(exp(-|z|))`
//!     and `min(z, 0) - log1p(exp(-|z|))`, log1p with a rounding
//!     correction instead of a select; softplus's `beta · z > threshold`
//!     select dropped where the stable form already gives `z` (beta 1,
//!     threshold ≥ 16);
//!   - `logsumexp`: `log(reduce_sum(exp(z)))` and `exp(z) / reduce_sum(exp(z))`
//!     (softmax by hand, attention weights) → max-shifted;
//!   - `norms`: `sqrt`/`rsqrt` of a mean or sum of `d · d` (RMSNorm,
//!     layer/group norm variance, vector 2-norms, through `+ eps`, `/ n`
//!     and reshapes) → the statistic of `d / max|d|`, the scale taken back
//!     out after the root.
//!
//! Forms that are already safe are left alone: `coreai.softmax`, the
//! max-shifted logsumexp/logcumsumexp/log_softmax lowerings. Composite
//! graphs (`coreai.graph private noinline`, e.g. `@layer_norm`) are
//! rewritten inside their bodies and stay composites.
//!
//! Preconditions: verified coreai IR. Runs on any op and rewrites the ops
//! nested in it.
//!
//! Guarantee: each rewrite is exact in real arithmetic; in f32 it stays
//! within a few ulp of the original (most are bit-identical on part of
//! their domain; each pattern file states its error and fp16 range
//! argument), and with every op rounded through fp16 no intermediate leaves
//! the range of the result. The error bound is tested against float64 math
//! (`test/e2e/test_fp16_stabilize_f32.py`) and fp16 behaviour against eager
//! PyTorch under `coreai-run --simulate-fp16` (`test/e2e/test_fp16_danger.py`).
//! Patterns match a whole formulation before building anything and go
//! through the rewrite driver (`crates/coreai-ir/src/rewrite.rs`: one sweep in program order,
//! numbered applications, `max-rewrites`, `trace-rewrites`); afterwards the
//! side-effect-free ops left unused (the replaced formulations) are erased.
//!
//! Interactions: runs after `legalize-aten-to-coreai` (it reads the forms
//! the lowerings emit) and before `canonicalize`/`cse` in `coreai-pipeline`,
//! which merge the constants it creates.

mod logsumexp;
mod norms;
pub(crate) mod pattern;
mod softplus;

use coreai_ir::op::coreai;
use coreai_ir::pass::parse_choices;
use coreai_ir::{
    pass::{Pass, PassInfo, PassResult},
    rewrite::{Pattern, Policy, RewriteFn, RewriteOptions, Rewriter},
};
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::MlirOperation;
use pattern::{op_name, use_count};

/// The rewrites: name, family, root op and function. For one root op they
/// are tried in this order; ops are visited in program order, so the `log`
/// inside a log1p form is reached before the form's outer `where` and
/// `log-one-plus-exp` declines it (its sum has other uses).
static PATTERNS: &[(&str, &str, &str, RewriteFn)] = &[
    (
        "log1p-exp",
        "softplus",
        coreai::DECOMPOSABLE_BROADCASTING_WHERE,
        softplus::log1p_exp,
    ),
    (
        "softplus-threshold",
        "softplus",
        coreai::DECOMPOSABLE_BROADCASTING_WHERE,
        softplus::softplus_threshold,
    ),
    (
        "log-one-plus-exp",
        "softplus",
        coreai::LOG,
        softplus::log_one_plus_exp,
    ),
    (
        "log-sigmoid",
        "softplus",
        coreai::LOG,
        softplus::log_sigmoid,
    ),
    (
        "log-sum-exp",
        "logsumexp",
        coreai::LOG,
        logsumexp::log_sum_exp,
    ),
    (
        "softmax-by-hand",
        "logsumexp",
        coreai::DECOMPOSABLE_BROADCASTING_DIVIDE,
        logsumexp::softmax_by_hand,
    ),
    (
        "sqrt-of-squares",
        "norms",
        coreai::SQRT,
        norms::root_of_squares,
    ),
    (
        "rsqrt-of-squares",
        "norms",
        coreai::RSQRT,
        norms::root_of_squares,
    ),
];

const FAMILIES: &[&str] = &["softplus", "logsumexp", "norms"];

pub const INFO: PassInfo = PassInfo {
    name: "fp16-stabilize",
    summary: "Rewrite softplus/mish/log-sigmoid, unshifted logsumexp/softmax and norm statistics so no intermediate overflows fp16",
    source: include_str!("fp16_stabilize.rs"),
    anchor: None,
    options: Fp16Stabilize::OPTIONS,
    create: || Box::new(Fp16Stabilize::default()),
};

coreai_ir::pass_options! {
    struct Fp16Stabilize {
        "families" => families: Vec<&'static str> = "softplus,logsumexp,norms",
            "comma-separated pattern families to apply (softplus, logsumexp, norms)",
            parse = |v: &str| parse_choices(v, FAMILIES, "a family");
    }
}

impl Pass for Fp16Stabilize {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        let mut rewriter = Rewriter::new(INFO.name, Policy::Optional, rewrites);
        let applied = rewriter.run_once(root, |op| {
            let name = op_name(op);
            PATTERNS
                .iter()
                .filter(|(_, family, on, _)| *on == name && self.families.contains(family))
                .map(|(pattern, _, _, f)| Pattern::new(*pattern, *f))
                .collect()
        })?;
        if applied > 0 {
            erase_unused(root);
        }
        for declined in rewriter.declines() {
            tracing::trace!(pattern = %declined.pattern, reason = %declined.reason, "declined");
        }
        tracing::debug!(applied, "fp16-stabilize rewrites");
        Ok(())
    }
}

/// Ops this pass may erase once unused: side-effect-free, no regions.
fn is_erasable(name: &str) -> bool {
    coreai::broadcast_base(name).is_some()
        || matches!(
            name,
            coreai::REDUCE_INDEX
                | coreai::REDUCE_MAX
                | coreai::REDUCE_MEAN
                | coreai::REDUCE_MIN
                | coreai::REDUCE_PRODUCT
                | coreai::REDUCE_SUM
                | coreai::CONSTANT
                | coreai::EXP
                | coreai::LOG
                | coreai::ABS
                | coreai::SQRT
                | coreai::RSQRT
                | coreai::SIGMOID
                | coreai::RESHAPE
        )
}

/// Erases the unused erasable ops under `root`, repeatedly (an erased op
/// can leave its producers unused), in reverse program order.
fn erase_unused(root: OperationRef<'_, '_>) {
    loop {
        let mut dead: Vec<MlirOperation> = Vec::new();
        root.walk(WalkOrder::PostOrder, |op| {
            let unused = op.result_count() > 0
                && (0..op.result_count())
                    .all(|i| op.result(i).is_ok_and(|r| use_count(r.into()) == 0));
            if unused && is_erasable(&op_name(&op)) {
                dead.push(op.to_raw());
            }
            WalkResult::Advance
        });
        if dead.is_empty() {
            return;
        }
        for raw in dead.into_iter().rev() {
            if coreai_ir::raw::results(raw)
                .iter()
                .all(|r| !coreai_ir::raw::has_uses(*r))
            {
                coreai_ir::raw::erase(raw);
            }
        }
    }
}
