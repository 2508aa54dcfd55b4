//! `target-gpu`: coreai → coreai. Rewrites the formulations Apple's GPU
//! delegate is reported to compute wrongly into forms it computes right,
//! each exact for every input of its element type (the masks: wherever
//! PyTorch defines them) (conversion guide §9.7).
//!
//! Rounding patterns (`target_gpu/rounding.rs`, §9.7 #7,
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
//! Each rounding pattern declines integer elements (exact on every unit), operands
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
//! Mask patterns (`target_gpu/masks.rs`, §9.7 #8, apple/coreai-torch#11:
//! an int64 comparison → bool → float chain corrupts an unrelated live
//! tensor on the CPU and GPU delegates):
//!   - `mask-arithmetic`: `cast(b : i1)` to a float, `b` built from
//!     `greater`/`equal`/`not_equal` of integers and `and`/`or`/`xor`/`not`
//!     → the same mask in float arithmetic on the floats the integers were
//!     cast from (`a >= b` → `max(min(a - b + 1, 1), 0)`, `==` →
//!     `1 - min(|a - b|, 1)`, `and` → product, `or` → max, `not` → `1 - m`);
//!   - `mask-select`: float `where(b, x, y)` with such a `b`
//!     → `where(m > 0, x, y)`.
//!
//! They apply only where each integer is the float → int cast of a float
//! proven integer-valued (floor, ceil, trunc, round and their rewrites
//! above, int → float casts, integral constants, and abs/add/sub/mul/
//! min/max/where of those) or an integer constant exact in the float type;
//! they decline otherwise, and for a mask moved (reshaped, broadcast)
//! between comparison and cast, or a non-float result. Exact (0 or +0, 1,
//! as eager PyTorch) for integers of any magnitude wherever PyTorch's
//! float → int cast is defined; see the family file.
//!
//! `remarks=true` prints one line per rewrite to stderr:
//! `target-gpu: <location>: '<op>' <pattern>: <reason>`, then one line per
//! mask the mask patterns declined:
//! `target-gpu: <location>: <pattern> declined: <reason>`.
//!
//! Preconditions: verified coreai IR. Runs on any op and rewrites the ops
//! nested in it, one sweep in program order through the rewrite driver
//! (`max-rewrites`, `trace-rewrites`); the ops it emits are never targets.
//! A mask is analysed after the rounding ops before it were rewritten
//! (program order), so it recognises the rewritten forms. Interactions: the
//! last passes of `coreai-compile --target gpu`, followed by `canonicalize,cse` (the
//! constant 1 left unused and the integer comparisons a mask replaced
//! removed, the constants it creates and the masks built twice for a cast
//! and a `where` of one bool merged).

pub(crate) mod masks;
mod rounding;

use coreai_ir::op::coreai;
use coreai_ir::{
    pass::PassInfo,
    rewrite::{ExplainedPass, ExplainedPattern, Rewriter},
};
use melior::ir::{Type, TypeLike};

/// The rewrites, each with the reason `remarks` gives.
static PATTERNS: &[ExplainedPattern] = &[
    ExplainedPattern {
        name: "floor-by-two",
        roots: &[coreai::DECOMPOSABLE_BROADCASTING_FLOOR_DIVIDE],
        rewrite: rounding::floor_divide_by_one,
        reason: FLOOR_REASON,
    },
    ExplainedPattern {
        name: "floor-by-two",
        roots: &[coreai::FLOOR_DIVIDE],
        rewrite: rounding::floor_divide_by_one,
        reason: FLOOR_REASON,
    },
    ExplainedPattern {
        name: "round-half-even",
        roots: &[coreai::ROUND],
        rewrite: rounding::round_half_even,
        reason: "the GPU delegate rounds ties away from zero, PyTorch to even (guide §9.7 #7); ties-to-even from (2|x|) // 2",
    },
    MASK_PATTERNS[0],
    MASK_PATTERNS[1],
];

/// The mask patterns, which `target-cpu` runs too: the defect is on the CPU
/// delegate as well.
pub(crate) const MASK_PATTERNS: [ExplainedPattern; 2] = [
    ExplainedPattern {
        name: "mask-arithmetic",
        roots: &[coreai::CAST],
        rewrite: masks::cast_of_mask,
        reason: "an integer comparison → bool → float chain corrupts an unrelated live tensor on the CPU and GPU delegates (guide §9.7 #8); the mask in float arithmetic",
    },
    ExplainedPattern {
        name: "mask-select",
        roots: &[coreai::DECOMPOSABLE_BROADCASTING_WHERE],
        rewrite: masks::where_of_mask,
        reason: "an integer comparison → bool → float chain corrupts an unrelated live tensor on the CPU and GPU delegates (guide §9.7 #8); where(m > 0, x, y) with m the mask in float arithmetic",
    },
];

/// Prints one line per mask the mask patterns declined (`remarks`):
/// `PASS: <location>: <pattern> declined: <reason>`.
pub(crate) fn print_mask_declines(pass: &str, rewriter: &Rewriter) {
    for declined in rewriter.declines() {
        if MASK_PATTERNS.iter().any(|p| p.name == declined.pattern)
            && !declined.reason.starts_with(masks::NOT_A_MASK)
        {
            let location = coreai_ir::raw::location_string(declined.location);
            eprintln!(
                "{pass}: {location}: {} declined: {}",
                declined.pattern, declined.reason
            );
        }
    }
}

const FLOOR_REASON: &str = "the GPU delegate executes float x // 1 (floor, ceil, trunc) as the identity (guide §9.7 #7); x // 1 → (2x) // 2";

pub const INFO: PassInfo = PassInfo {
    name: "target-gpu",
    summary: "Rewrite float x // 1 (floor, ceil, trunc), round and integer-comparison masks into forms the GPU delegate computes exactly",
    source: include_str!("target_gpu.rs"),
    anchor: None,
    options: &[ExplainedPass::REMARKS],
    create: || ExplainedPass::new("target-gpu", PATTERNS, Some(print_mask_declines)),
};

/// The exponent `p` from which every float of `element` is an integer
/// (f32 2^23, f16 2^10, bf16 2^7, f64 2^52); `None` for non-floats.
fn integral_from(element: Type<'_>) -> Option<i32> {
    if element.is_f32() {
        Some(23)
    } else if element.is_f16() {
        Some(10)
    } else if element.is_bf16() {
        Some(7)
    } else if element.is_f64() {
        Some(52)
    } else {
        None
    }
}
