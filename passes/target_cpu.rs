//! `target-cpu`: coreai → coreai. The rewrites the CPU delegate needs: the
//! integer-comparison masks of `target-gpu` (conversion guide §9.7 #8,
//! apple/coreai-torch#11: an int64 comparison → bool → float chain corrupts
//! an unrelated live tensor "deterministically, on CPU and GPU"; the
//! reporter's repro runs on the CPU delegate alone).
//!
//! Patterns (`target_gpu/masks.rs`, shared with `target-gpu`):
//!   - `mask-arithmetic`: `cast(b : i1)` to a float, `b` built from integer
//!     comparisons and `and`/`or`/`xor`/`not` → the same mask in float
//!     arithmetic on the floats the integers were cast from;
//!   - `mask-select`: float `where(b, x, y)` with such a `b`
//!     → `where(m > 0, x, y)`.
//!
//! They decline where an integer is not provably an integer-valued float or
//! an exactly representable constant, for a mask moved between comparison
//! and cast, and for non-float results; exact (0 or +0, 1, as eager
//! PyTorch) wherever PyTorch's float → int cast is defined. The rounding
//! rewrites of `target-gpu` are not run: the CPU delegate rounds correctly.
//!
//! `remarks=true` prints one line per rewrite, then one per declined mask:
//! `target-cpu: <location>: '<op>' <pattern>: <reason>` and
//! `target-cpu: <location>: <pattern> declined: <reason>`.
//!
//! Preconditions: verified coreai IR. One sweep in program order through
//! the rewrite driver (`max-rewrites`, `trace-rewrites`). Interactions: the
//! last pass of `coreai-compile --target cpu`, followed by
//! `canonicalize,cse` (the integer comparisons a mask replaced removed).

use crate::target_gpu::{print_mask_declines, MASK_PATTERNS};
use coreai_ir::{pass::PassInfo, rewrite::ExplainedPass};

pub const INFO: PassInfo = PassInfo {
    name: "target-cpu",
    summary: "Rewrite integer-comparison masks feeding floats into float arithmetic the CPU delegate computes right",
    source: include_str!("target_cpu.rs"),
    anchor: None,
    options: &[ExplainedPass::REMARKS],
    create: || ExplainedPass::new("target-cpu", &MASK_PATTERNS, Some(print_mask_declines)),
};
