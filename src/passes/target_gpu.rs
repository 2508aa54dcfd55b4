//! `target-gpu`: coreai → coreai. Rewrites the formulations Apple's GPU
//! delegate is reported to compute wrongly into forms it computes right,
//! each exact for every input of its element type (conversion guide §9.7).
//!
//! Patterns (one family file, `target_gpu/rounding.rs`, §9.7 #7,
//! apple/coreai-torch#10: "floor, trunc and ceil are executed as identity,
//! and round uses ties-away-from-zero"):
//!   - `floor-by-two`: float `floor_divide(x, 1)` (what `floor`, `ceil`,
//!     `trunc` and float `//` lower to, here and in coreai-torch)
//!     → `where(0 < |x| < 2^p, floor_divide(x · 2, 2), x)`, the guide's
//!     `torch.div(x * 2., 2., rounding_mode="floor")` guarded so that no
//!     `2x` overflows;
//!   - `round-half-even`: float `coreai.round` → ties-to-even from
//!     `(2|x|) // 2`, the fraction and the parity of the floor.
//!
//! Each pattern declines integer elements (exact on every unit), operands
//! broadcast by the op, and (`floor-by-two`) divisors other than the
//! constant 1. After the pass no float `floor_divide` by 1 and no float
//! `coreai.round` is left.
//!
//! Exactness: `2^p` is the magnitude from which every float of the element
//! type is an integer (f32 2^23, f16 2^10, bf16 2^7); beyond it, at ±0,
//! ±inf and NaN the input is its own rounding and passes through `where`;
//! below it every op of the rewrite is exact (scaling by 2, `(2x) / 2`,
//! `|x| - floor(|x|)`, integers below 2^p). Tested against float64 math on
//! every f16 bit pattern and a sweep of f32 values in coreai-run and
//! coreai-core's interpreter (`test/e2e/test_targets.py`). The one
//! difference from the original op: `±inf // 1` is ±inf, as coreai documents
//! `±inf // finite` (coreai-core's interpreter gives NaN; the `floor`
//! lowering maps that NaN back to x, so `floor(±inf)` is ±inf either way).
//!
//! `remarks=true` prints one line per rewrite to stderr:
//! `target-gpu: <location>: '<op>' <pattern>: <reason>`.
//!
//! Preconditions: verified coreai IR. Runs on any op and rewrites the ops
//! nested in it, one sweep in program order through the rewrite driver
//! (`max-rewrites`, `trace-rewrites`); the ops it emits are never targets
//! (their divisors are 2). Interactions: the last passes of
//! `coreai-compile --target gpu`, followed by `canonicalize,cse` (the
//! constant 1 left unused, the constants it creates merged).

mod rounding;

use crate::{
    registry::{Pass, PassInfo, PassOption, PassResult},
    rewrite::{ExplainedPattern, Policy, RewriteOptions, Rewriter},
};
use melior::ir::operation::OperationRef;

/// The rewrites, each with the reason `remarks` gives.
static PATTERNS: &[ExplainedPattern] = &[
    ExplainedPattern {
        name: "floor-by-two",
        root: "coreai.decomposable.broadcasting_floor_divide",
        rewrite: rounding::floor_divide_by_one,
        reason: FLOOR_REASON,
    },
    ExplainedPattern {
        name: "floor-by-two",
        root: "coreai.floor_divide",
        rewrite: rounding::floor_divide_by_one,
        reason: FLOOR_REASON,
    },
    ExplainedPattern {
        name: "round-half-even",
        root: "coreai.round",
        rewrite: rounding::round_half_even,
        reason: "the GPU delegate rounds ties away from zero, PyTorch to even (guide §9.7 #7); ties-to-even from (2|x|) // 2",
    },
];

const FLOOR_REASON: &str = "the GPU delegate executes float x // 1 (floor, ceil, trunc) as the identity (guide §9.7 #7); x // 1 → (2x) // 2";

pub const INFO: PassInfo = PassInfo {
    name: "target-gpu",
    summary: "Rewrite float x // 1 (floor, ceil, trunc) and round into forms the GPU delegate computes exactly",
    source: include_str!("target_gpu.rs"),
    anchor: None,
    options: &[PassOption {
        name: "remarks",
        help: "print one line per rewrite to stderr: its location, op, pattern and reason",
        default: "false",
    }],
    create: || Box::new(TargetGpu::default()),
};

#[derive(Clone, Default)]
struct TargetGpu {
    remarks: bool,
}

impl Pass for TargetGpu {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        debug_assert_eq!(name, "remarks");
        self.remarks = crate::registry::parse_bool(value)?;
        Ok(())
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        let mut rewriter = Rewriter::new(INFO.name, Policy::Optional, rewrites);
        let applied = rewriter.run_explained(root, PATTERNS, self.remarks)?;
        tracing::debug!(applied, "target-gpu rewrites");
        Ok(())
    }
}
