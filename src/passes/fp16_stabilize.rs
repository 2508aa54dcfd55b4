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
//!     and `min(z, 0) - log1p(exp(-|z|))`;
//!   - `logsumexp`: `log(reduce_sum(exp(z)))` and `exp(z) / reduce_sum(exp(z))`
//!     (softmax by hand, attention weights) → max-shifted;
//!   - `norms`: `sqrt`/`rsqrt` of a mean or sum of `d · d` (RMSNorm,
//!     layer/group norm variance, vector 2-norms, through `+ eps`, `/ n`
//!     and reshapes) → the statistic of `d / max|d|`, the scale taken back
//!     out after the root.
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
//! Patterns match a whole formulation before building anything; the ops of
//! a replaced formulation that become unused are erased.
//!
//! Interactions: runs after `legalize-aten-to-coreai` (it reads the forms
//! the lowerings emit) and before `canonicalize`/`cse` in `coreai-pipeline`,
//! which merge the constants it creates.

mod logsumexp;
mod norms;
mod pattern;
mod softplus;

use crate::lowering::LoweringCx;
use crate::registry::{Pass, PassFailed, PassInfo, PassOption};
use melior::ir::{
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    ValueLike,
};
use mlir_sys::MlirOperation;
use pattern::{op_name, producer, use_count, Rewritten};

type PatternFn = for<'c, 'a> fn(&LoweringCx<'c, 'a>) -> Rewritten<'c, 'a>;

/// A rewrite: its name, family, root op and function, in application order
/// (the whole log1p form before the `log` inside it).
struct Pattern {
    name: &'static str,
    family: &'static str,
    root: &'static str,
    apply: PatternFn,
}

static PATTERNS: &[Pattern] = &[
    Pattern {
        name: "log1p-exp",
        family: "softplus",
        root: "coreai.decomposable.broadcasting_where",
        apply: softplus::log1p_exp,
    },
    Pattern {
        name: "log-one-plus-exp",
        family: "softplus",
        root: "coreai.log",
        apply: softplus::log_one_plus_exp,
    },
    Pattern {
        name: "log-sigmoid",
        family: "softplus",
        root: "coreai.log",
        apply: softplus::log_sigmoid,
    },
    Pattern {
        name: "log-sum-exp",
        family: "logsumexp",
        root: "coreai.log",
        apply: logsumexp::log_sum_exp,
    },
    Pattern {
        name: "softmax-by-hand",
        family: "logsumexp",
        root: "coreai.decomposable.broadcasting_divide",
        apply: logsumexp::softmax_by_hand,
    },
    Pattern {
        name: "sqrt-of-squares",
        family: "norms",
        root: "coreai.sqrt",
        apply: norms::root_of_squares,
    },
    Pattern {
        name: "rsqrt-of-squares",
        family: "norms",
        root: "coreai.rsqrt",
        apply: norms::root_of_squares,
    },
];

const FAMILIES: &[&str] = &["softplus", "logsumexp", "norms"];

pub const INFO: PassInfo = PassInfo {
    name: "fp16-stabilize",
    summary: "Rewrite softplus/mish/log-sigmoid, unshifted logsumexp/softmax and norm statistics so no intermediate overflows fp16",
    anchor: None,
    options: &[PassOption {
        name: "families",
        help: "comma-separated pattern families to apply (softplus, logsumexp, norms)",
        default: "softplus,logsumexp,norms",
    }],
    create: || Box::new(Fp16Stabilize::default()),
};

#[derive(Clone)]
struct Fp16Stabilize {
    families: Vec<&'static str>,
}

impl Default for Fp16Stabilize {
    fn default() -> Self {
        Self {
            families: FAMILIES.to_vec(),
        }
    }
}

impl Pass for Fp16Stabilize {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        debug_assert_eq!(name, "families");
        let mut families = Vec::new();
        for requested in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match FAMILIES.iter().find(|known| **known == requested) {
                Some(known) => families.push(*known),
                None => {
                    return Err(format!(
                        "'{requested}' is not a family; choose from {}",
                        FAMILIES.join(", ")
                    ))
                }
            }
        }
        self.families = families;
        Ok(())
    }

    fn run(&mut self, root: OperationRef<'_, '_>) -> Result<(), PassFailed> {
        for pattern in PATTERNS {
            if self.families.contains(&pattern.family) {
                apply_everywhere(root, pattern);
            }
        }
        Ok(())
    }

    fn clone_box(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

/// Applies `pattern` to every op named `pattern.root` under `root`, in
/// program order: collect first, then rewrite (a rewrite erases ops the
/// walk would visit).
fn apply_everywhere(root: OperationRef<'_, '_>, pattern: &Pattern) {
    let mut candidates: Vec<MlirOperation> = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        if op_name(&op) == pattern.root {
            candidates.push(op.to_raw());
        }
        WalkResult::Advance
    });
    let mut erased: Vec<MlirOperation> = Vec::new();
    for raw in candidates {
        if erased.iter().any(|e| e.ptr == raw.ptr) {
            continue;
        }
        let op = unsafe { OperationRef::from_raw(raw) };
        let cx = LoweringCx::new(op);
        match (pattern.apply)(&cx) {
            Ok(values) => {
                if let Err(reason) = replace(op, &values) {
                    tracing::warn!(pattern = pattern.name, %reason, "replacement rejected");
                    continue;
                }
                tracing::debug!(pattern = pattern.name, "applied");
                erase_dead(raw, &mut erased);
            }
            Err(reason) => tracing::trace!(pattern = pattern.name, %reason, "declined"),
        }
    }
}

/// Replaces the results of `op` by `values` (same count and types).
fn replace(op: OperationRef<'_, '_>, values: &[melior::ir::Value<'_, '_>]) -> Result<(), String> {
    if values.len() != op.result_count() {
        return Err(format!(
            "{} values for {} results",
            values.len(),
            op.result_count()
        ));
    }
    for (i, new) in values.iter().enumerate() {
        let old = op.result(i).map_err(|_| format!("no result #{i}"))?;
        if old.r#type() != new.r#type() {
            return Err(format!(
                "result #{i}: {} instead of {}",
                new.r#type(),
                old.r#type()
            ));
        }
    }
    for (i, new) in values.iter().enumerate() {
        if let Ok(old) = op.result(i) {
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) };
        }
    }
    Ok(())
}

/// Ops this pass may erase once unused: side-effect-free, no regions.
fn is_erasable(name: &str) -> bool {
    name.starts_with("coreai.decomposable.broadcasting_")
        || name.starts_with("coreai.reduce_")
        || matches!(
            name,
            "coreai.constant"
                | "coreai.exp"
                | "coreai.log"
                | "coreai.abs"
                | "coreai.sqrt"
                | "coreai.rsqrt"
                | "coreai.sigmoid"
                | "coreai.reshape"
        )
}

/// Erases `raw` (now unused) and, transitively, the producers of its
/// operands that this leaves unused.
fn erase_dead(raw: MlirOperation, erased: &mut Vec<MlirOperation>) {
    let mut work = vec![raw];
    while let Some(raw) = work.pop() {
        if erased.iter().any(|e| e.ptr == raw.ptr) {
            continue;
        }
        let op = unsafe { OperationRef::from_raw(raw) };
        let unused =
            (0..op.result_count()).all(|i| op.result(i).is_ok_and(|r| use_count(r.into()) == 0));
        if !unused {
            continue;
        }
        let producers: Vec<MlirOperation> = op
            .operands()
            .filter_map(producer)
            .filter(|p| is_erasable(&op_name(p)))
            .map(|p| p.to_raw())
            .collect();
        unsafe { mlir_sys::mlirOperationDestroy(raw) };
        erased.push(raw);
        for p in producers {
            if !work.iter().any(|w| w.ptr == p.ptr) {
                work.push(p);
            }
        }
    }
}
