//! `externalize-composites`: coreai → coreai. Finds hand-written RMSNorm,
//! RoPE, attention and MoE expert dispatch in the lowered graph, whatever their surface
//! spelling, and outlines each call site into its own private `noinline`
//! composite graph carrying the `composite_decl` coreai-torch's module
//! classes produce (conversion guide §5, §8), reached by a `coreai.invoke`:
//!
//! ```text
//! %r = <matched ops on %x, %w>
//!   → coreai.graph private noinline @rms_norm(%arg0 {coreai.name = "input"}, %arg1 {coreai.name = "scale"})
//!       attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"rms_norm" =
//!         {input_names = ["input", "scale"], op_attrs = {axes = -1 : si64, eps = ... : f32,
//!          version = 1 : si64}, output_names = ["output"]}>} { <the matched ops> }
//!     %r = coreai.invoke @rms_norm(%x, %w)
//! ```
//!
//! Recognizers (one file each under `externalize_composites/`, each with its
//! `before → after` forms and the near misses it declines):
//!   - `rms_norm`: `x · rsqrt(mean(x²) + eps) · w`, weight before or after,
//!     `1/sqrt` spellings, `(1 + w)` (Gemma), computed in f32 and cast back
//!     → `rms_norm` (`input`, `scale`; `axes = -1`, `eps`);
//!   - `rope`: `x · cos + rotate_half(x) · sin` or `cat(x₁·c − x₂·s,
//!     x₁·s + x₂·c)` (half-split pairing), or the interleaved pairing
//!     (`x[..., 0::2]`, `x[..., 1::2]` or `reshape(x, [..., d/2, 2])[..., i]`
//!     rotated and re-interleaved), full or partial rotary → `rope` in its cos/sin-input
//!     variant (`input`, `cos`, `sin`; `base`, `dims` when partial,
//!     `interleaved`, `scale`);
//!   - `scaled_dot_product_attention`: `softmax(q kᵀ · s + mask) v` with an
//!     additive or boolean mask (`where` or `masked_fill`), 4-D or 3-D
//!     (`nn.MultiheadAttention` with `need_weights=True`), and GQA through `repeat_interleave`/`expand`
//!     of k and v → `scaled_dot_product_attention` (`query`, `key`,
//!     `value`, `attn_mask`; `is_causal = false`, `scale` when it is not
//!     `1/√d`, `window_size = 0`);
//!   - `gather_mm`: Mixture-of-Experts dispatch `x @ w[idx]` of stacked
//!     expert weights `w: [E, D, H]`, through 3-D reshapes or a batch
//!     matmul of the gathered weights directly (the lowering of
//!     `aten._grouped_mm` and `transformers::grouped_mm_fallback`)
//!     → `gather_mm` (`lhs`, `rhs`, `rhs_indices`; `num_batch_axes = 0`).
//!
//! Guarantee: the composite's body is a clone of the matched ops (and of the
//! constants they read), so every value is computed exactly as before; the
//! executor and coreai-core run the composite unchanged. A match is outlined
//! only when it is closed (no intermediate used outside it; the one
//! exception, attention weights that are also an output, stay in place
//! for that use and are computed again inside the composite). Each call site
//! gets its own graph, named after the composite (`rms_norm`, `rms_norm_1`,
//! ... in program order). Ops inside composite graphs are not searched.
//! The outlined ops are erased after the sweep.
//!
//! Options: `only=NAME,...` and `exclude=NAME,...` select the recognizers;
//! `require=NAME,...` makes a composite that ends up absent from the module
//! (neither outlined here nor already present) an error naming what is
//! missing and, for the closest near miss, which sub-patterns matched and
//! which did not, at its location; the pass then fails (no output).
//! `remarks=true` prints one remark per declined near miss to stderr.
//!
//! Preconditions: verified coreai IR (after `legalize-aten-to-coreai`).
//! Interactions: runs right after legalization in `coreai-pipeline`;
//! `fp16-stabilize` rewrites inside the composite bodies; `core-optimize`
//! keeps `noinline` graphs.

mod attention;
mod gather_mm;
mod outline;
mod rms_norm;
mod rope;

use crate::fp16_stabilize::pattern::op_name;
use coreai_ir::op::coreai;
use coreai_ir::pass::parse_choices;
use coreai_ir::raw;
use coreai_ir::{
    diagnostics::{emit_with_notes, Offender},
    lowering::{Decline, LoweringCx},
    pass::{Pass, PassFailed, PassInfo, PassResult},
    rewrite::{Pattern, Policy, RewriteOptions, Rewriter},
};
use melior::ir::{
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    Value,
};
use mlir_sys::MlirOperation;

/// Why a candidate root is not a composite: how many sub-patterns matched
/// (`stage`) and which one failed, and why.
#[derive(Debug, Clone)]
pub struct NearMiss {
    pub composite: &'static str,
    pub stage: usize,
    pub matched: &'static [&'static str],
    pub failed: &'static str,
    pub reason: String,
}

impl std::fmt::Display for NearMiss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.matched.is_empty() {
            write!(f, "{} did not match: {}", self.failed, self.reason)
        } else {
            write!(
                f,
                "matched {}; {} did not match: {}",
                self.matched.join(", "),
                self.failed,
                self.reason
            )
        }
    }
}

type Recognizer =
    for<'c, 'a> fn(OperationRef<'c, 'a>) -> Result<outline::Outline<'c, 'a>, NearMiss>;

/// The recognizers: composite name, root ops, recognizer.
static RECOGNIZERS: &[(&str, &[&str], Recognizer)] = &[
    (
        "rms_norm",
        &[coreai::DECOMPOSABLE_BROADCASTING_MUL, coreai::CAST],
        rms_norm::recognize,
    ),
    (
        "rope",
        &[
            coreai::DECOMPOSABLE_BROADCASTING_ADD,
            coreai::CONCAT,
            coreai::RESHAPE,
        ],
        rope::recognize,
    ),
    (
        "scaled_dot_product_attention",
        &[
            coreai::RESHAPE,
            coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL,
        ],
        attention::recognize,
    ),
    (
        "gather_mm",
        &[
            coreai::RESHAPE,
            coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL,
        ],
        gather_mm::recognize,
    ),
];

const COMPOSITES: &[&str] = &[
    "rms_norm",
    "rope",
    "scaled_dot_product_attention",
    "gather_mm",
];

fn apply<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    recognize: Recognizer,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let found = recognize(cx.op()).map_err(|m| m.to_string())?;
    outline::outline(cx, &found)
}

fn rms_norm_pattern<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    apply(cx, rms_norm::recognize)
}

fn rope_pattern<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    apply(cx, rope::recognize)
}

fn attention_pattern<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    apply(cx, attention::recognize)
}

fn gather_mm_pattern<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    apply(cx, gather_mm::recognize)
}

fn pattern_of(composite: &str) -> coreai_ir::rewrite::RewriteFn {
    match composite {
        "rms_norm" => rms_norm_pattern,
        "rope" => rope_pattern,
        "gather_mm" => gather_mm_pattern,
        _ => attention_pattern,
    }
}

pub const INFO: PassInfo = PassInfo {
    name: "externalize-composites",
    summary: "Outline hand-written RMSNorm, RoPE, attention and MoE dispatch into coreai-torch's composite graphs (rms_norm, rope, scaled_dot_product_attention, gather_mm)",
    source: include_str!("externalize_composites.rs"),
    anchor: Some("builtin.module"),
    options: ExternalizeComposites::OPTIONS,
    create: || Box::new(ExternalizeComposites::default()),
};

coreai_ir::pass_options! {
    struct ExternalizeComposites {
        "only" => only: Vec<&'static str> = "",
            "comma-separated composites to recognise (rms_norm, rope, scaled_dot_product_attention, gather_mm); empty: all",
            parse = |v: &str| parse_choices(v, COMPOSITES, "a composite this pass recognises")
                .map(|only| if only.is_empty() { COMPOSITES.to_vec() } else { only });
        "exclude" => exclude: Vec<&'static str> = "",
            "comma-separated composites not to recognise",
            parse = |v: &str| parse_choices(v, COMPOSITES, "a composite this pass recognises");
        "require" => require: Vec<&'static str> = "",
            "comma-separated composites that must be in the result: a missing one is an error naming the closest near miss",
            parse = |v: &str| parse_choices(v, COMPOSITES, "a composite this pass recognises");
        "remarks" => remarks: bool = "false",
            "print one remark per declined near miss (a candidate that matched at least one sub-pattern) to stderr";
    }
}

impl ExternalizeComposites {
    fn enabled(&self, composite: &str) -> bool {
        self.only.contains(&composite) && !self.exclude.contains(&composite)
    }
}

impl Pass for ExternalizeComposites {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        let mut rewriter = Rewriter::new(INFO.name, Policy::Optional, rewrites);
        rewriter.run_once(root, |op| {
            if in_composite(op) {
                return Vec::new();
            }
            let name = op_name(op);
            RECOGNIZERS
                .iter()
                .filter(|(c, roots, _)| roots.contains(&name.as_str()) && self.enabled(c))
                .map(|(c, _, _)| Pattern::new(*c, pattern_of(c)))
                .collect()
        })?;
        erase_outlined(root);
        if self.remarks {
            for d in rewriter.declines() {
                if d.reason.starts_with("matched ") && d.reason.contains(", ") {
                    let location = raw::location_string(d.location);
                    eprintln!(
                        "{location}: remark: {} not outlined: {}",
                        d.pattern, d.reason
                    );
                }
            }
        }
        self.check_required(root)
    }
}

impl ExternalizeComposites {
    /// Fails with one error (and a note at the closest near miss) when a
    /// required composite is absent from the module.
    fn check_required(&self, root: OperationRef<'_, '_>) -> Result<(), PassFailed> {
        let present = declared_composites(root);
        let missing: Vec<&str> = self
            .require
            .iter()
            .copied()
            .filter(|c| !present.iter().any(|p| p == c))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let mut offenders = Vec::new();
        let mut lines = Vec::new();
        for composite in &missing {
            match closest_near_miss(root, composite) {
                Some((location, miss)) => {
                    lines.push(format!("'{composite}': the closest near miss {miss}"));
                    offenders.push(Offender {
                        location,
                        display: composite.to_string(),
                        note: format!("closest near miss for '{composite}': {miss}"),
                    });
                }
                None => lines.push(format!("'{composite}': no candidate op in the module")),
            }
        }
        let message = format!(
            "externalize-composites: required composite(s) not found: {}; {}",
            missing.join(", "),
            lines.join("; ")
        );
        if offenders.is_empty() {
            coreai_ir::diagnostics::emit_error(root, &message);
        } else {
            emit_with_notes(&offenders, &message);
        }
        Err(PassFailed)
    }
}

/// Whether `op` is inside a composite graph (one with a `composite_decl`).
fn in_composite(op: &OperationRef<'_, '_>) -> bool {
    let mut current = op.to_raw();
    loop {
        let parent = raw::parent(current);
        if parent.ptr.is_null() {
            return false;
        }
        if raw::attribute(parent, "composite_decl").is_some() {
            return true;
        }
        current = parent;
    }
}

/// The composite names declared by graphs of the module.
fn declared_composites(root: OperationRef<'_, '_>) -> Vec<String> {
    let mut names = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        if let Ok(decl) = op.attribute("composite_decl") {
            let text = decl.to_string();
            if let Some(name) = text
                .split('"')
                .nth(1)
                .filter(|_| text.starts_with("#coreai.composite_declaration<"))
            {
                names.push(name.to_string());
            }
        }
        WalkResult::Advance
    });
    names
}

/// The candidate root where `composite`'s recognizer got furthest, with
/// its near miss.
fn closest_near_miss(
    root: OperationRef<'_, '_>,
    composite: &str,
) -> Option<(mlir_sys::MlirLocation, NearMiss)> {
    let (_, roots, recognize) = RECOGNIZERS.iter().find(|(c, _, _)| *c == composite)?;
    let mut best: Option<(mlir_sys::MlirLocation, NearMiss)> = None;
    root.walk(WalkOrder::PreOrder, |op| {
        if roots.contains(&op_name(&op).as_str()) && !in_composite(&op) {
            if let Err(miss) = recognize(op) {
                if miss.stage > 0 && best.as_ref().is_none_or(|(_, b)| miss.stage > b.stage) {
                    best = Some((op.location().to_raw(), miss));
                }
            }
        }
        WalkResult::Advance
    });
    best
}

/// Erases the ops the outlining marked, users first.
fn erase_outlined(root: OperationRef<'_, '_>) {
    let mut dead: Vec<MlirOperation> = Vec::new();
    root.walk(WalkOrder::PostOrder, |op| {
        if op.attribute(outline::DEAD).is_ok() {
            dead.push(op.to_raw());
        }
        WalkResult::Advance
    });
    // The constants they read (cloned into the bodies), erased when unused.
    let mut constants: Vec<MlirOperation> = Vec::new();
    for &op in &dead {
        for v in raw::operands(op) {
            if let Some(c) = raw::producer(v).filter(|c| raw::op_name(*c) == coreai::CONSTANT) {
                if !constants.iter().any(|k| k.ptr == c.ptr) {
                    constants.push(c);
                }
            }
        }
    }
    for op in dead.into_iter().rev() {
        raw::erase(op);
    }
    for op in constants {
        if raw::results(op).first().is_some_and(|r| !raw::has_uses(*r)) {
            raw::erase(op);
        }
    }
}
