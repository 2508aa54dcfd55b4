//! `ane-residency`: which ops of a compiled module would leave the Neural
//! Engine, and why. An analysis: the IR is not changed.
//!
//! Apple's Neural Engine authoring rules (apple/coreai-models,
//! `skills/skills/model-authoring/references/neural_engine_rules.md`) say
//! what an op must look like to run there; an op that breaks one is cut out
//! of the Neural Engine segment at load time and runs on the GPU or CPU,
//! with transfers around it, silently. This pass checks every op of every
//! `coreai.graph` against the rules that the IR decides, first match
//! reported:
//!
//! - `state`: `coreai.read_handle` / `coreai.write_handle`: the Neural
//!   Engine form takes no runtime state (its KV cache is passed in and the
//!   new slices returned);
//! - `fused-attention`: a `coreai.invoke` of a `scaled_dot_product_attention`
//!   composite: "there is no fused SDPA path" (attention runs per head);
//! - `rank`: an operand or result of rank above 5 ("rank-6+ intermediates
//!   are rejected");
//! - `static-shape`: an operand or result with a dynamic dim ("fully static
//!   shapes: one function per shape");
//! - `dtype`: an operand or result whose element is not f16, int8 or int16
//!   ("fp32 falls back to GPU/CPU"); a cast from or to an f32 graph input
//!   or output is reported as such.
//!
//! Integer constant operands (shapes, axes, permutations, bounds, scalar
//! flags such as `ceil_mode`; not boolean tensors, which are masks: data
//! the Neural Engine would hold), and the
//! constant operands coreai defines as f32 parameters (`interpolate`'s
//! `scale` and `offset`: Apple's resize takes them in f32 on every device),
//! are static parameters of their op, not tensors the Neural Engine
//! computes on, and are not checked; nor are the constant operands of the
//! weight decompression ops (`blockwise_shift_scale`, `lut_to_dense`,
//! `build_sparse_with_bitmask`): codes, palettes, scales and bitmasks are
//! the compressed weight's storage format (a 1-bit mask no less than 4-bit
//! indices). Counted: every op in a graph body except constants,
//! terminators
//! (`output`, `yield`, `condition`), ordering tokens and calls of composite
//! graphs (their bodies are counted where they are defined). Alignment of
//! the last axis (64 bytes) costs padding, not residency, and is not
//! reported.
//!
//! Output: one remark `ane-residency: 'OP' leaves the Neural Engine: RULE:
//! WHY` per offending op, at the op's location (the PyTorch source line the
//! importer recorded, with the lines it was called from), then, on stderr,
//! `ane-residency: N of M ops Neural-Engine-resident` and the count per
//! rule. With `require-resident=true` the pass fails (for CI) with one error
//! listing the offending ops and a note at each.

use coreai_ir::op::coreai;
use coreai_ir::raw;
use coreai_ir::{
    diagnostics::{emit_with_notes, sorted_unique, Offender},
    pass::{Pass, PassFailed, PassInfo, PassResult},
    rewrite::RewriteOptions,
};
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::{MlirOperation, MlirType, MlirValue};

pub const INFO: PassInfo = PassInfo {
    name: "ane-residency",
    summary: "Report each op that would leave the Neural Engine (Apple's rules: rank <= 5, static shapes, f16/int8/int16, no fused attention, no runtime state) and how many stay; with require-resident=true each is an error",
    source: include_str!("ane_residency.rs"),
    anchor: None,
    options: AneResidency::OPTIONS,
    create: || Box::new(AneResidency::default()),
};

coreai_ir::pass_options! {
    struct AneResidency {
        "require-resident" => require_resident: bool = "false",
            "every op that would leave the Neural Engine is an error";
    }
}

/// The Neural Engine's largest tensor rank.
pub const MAX_RANK: usize = 5;

/// A rule an op breaks, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breach {
    pub rule: &'static str,
    pub why: String,
}

/// Ops that are not computations: data, terminators, ordering.
const NOT_COUNTED: &[&str] = &[
    coreai::CONSTANT,
    coreai::OUTPUT,
    coreai::YIELD,
    coreai::CONDITION,
    coreai::GRAPH,
    coreai::CREATE_TOKEN,
    coreai::JOIN_TOKEN,
];

/// Ops that decompress a weight: their constant operands are its storage.
const DECOMPRESSION: &[&str] = &[
    coreai::BLOCKWISE_SHIFT_SCALE,
    coreai::LUT_TO_DENSE,
    coreai::BUILD_SPARSE_WITH_BITMASK,
];

/// The composite the Neural Engine has no fused form of.
const FUSED_ATTENTION: &str = "scaled_dot_product_attention";

impl Pass for AneResidency {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, _: &RewriteOptions) -> PassResult {
        let mut ops = Vec::new();
        root.walk(WalkOrder::PreOrder, |op| {
            let raw_op = op.to_raw();
            if inside_graph(raw_op) && counted(raw_op) {
                ops.push(raw_op);
            }
            WalkResult::Advance
        });
        let mut by_rule: Vec<(&'static str, usize)> = Vec::new();
        let mut offenders = Vec::new();
        let mut left = 0;
        for &op in &ops {
            let Some(breach) = breach(op) else { continue };
            left += 1;
            match by_rule.iter_mut().find(|(r, _)| *r == breach.rule) {
                Some((_, n)) => *n += 1,
                None => by_rule.push((breach.rule, 1)),
            }
            let message = format!(
                "'{}' leaves the Neural Engine: {}: {}",
                raw::op_name(op),
                breach.rule,
                breach.why
            );
            if self.require_resident {
                offenders.push(Offender {
                    location: raw::location(op),
                    display: raw::op_name(op),
                    note: message,
                });
            } else {
                raw::emit_remark(op, &format!("ane-residency: {message}"));
            }
        }
        let rules: Vec<String> = by_rule.iter().map(|(r, n)| format!("{r}: {n}")).collect();
        eprintln!(
            "ane-residency: {} of {} ops Neural-Engine-resident{}",
            ops.len() - left,
            ops.len(),
            if rules.is_empty() {
                String::new()
            } else {
                format!(" ({} leave it: {})", left, rules.join(", "))
            }
        );
        if self.require_resident && left > 0 {
            emit_with_notes(
                &offenders,
                &format!(
                    "ane-residency: {left} of {} ops would leave the Neural Engine (require-resident=true): {}",
                    ops.len(),
                    sorted_unique(&offenders)
                ),
            );
            return Err(PassFailed);
        }
        Ok(())
    }
}

/// Whether `op` is nested (at any depth) in a `coreai.graph`.
fn inside_graph(op: MlirOperation) -> bool {
    let mut current = raw::parent(op);
    while !current.ptr.is_null() {
        if raw::op_name(current) == coreai::GRAPH {
            return true;
        }
        current = raw::parent(current);
    }
    false
}

/// Whether `op` counts as a computation (see the module header).
fn counted(op: MlirOperation) -> bool {
    let name = raw::op_name(op);
    if NOT_COUNTED.contains(&name.as_str()) {
        return false;
    }
    name != coreai::INVOKE || composite_of(op).as_deref() == Some(FUSED_ATTENTION)
}

/// The composite a `coreai.invoke` calls, when its callee declares one.
fn composite_of(invoke: MlirOperation) -> Option<String> {
    raw::composite_name(raw::lookup_symbol(invoke, &raw::callee_name(invoke)?)?)
}

/// The first rule `op` breaks, if any.
pub fn breach(op: MlirOperation) -> Option<Breach> {
    let name = raw::op_name(op);
    let found = |rule, why: String| Some(Breach { rule, why });
    if name == coreai::READ_HANDLE || name == coreai::WRITE_HANDLE {
        return found(
            "state",
            "the Neural Engine takes no runtime state (its form passes the KV cache in and returns the new slices)".into(),
        );
    }
    if name == coreai::INVOKE && composite_of(op).as_deref() == Some(FUSED_ATTENTION) {
        return found(
            "fused-attention",
            "the Neural Engine has no fused attention; attention runs per head".into(),
        );
    }
    let f32_parameters = crate::cast_to_f16::F32_OPERANDS
        .iter()
        .find(|(op, _)| *op == name)
        .map_or(&[][..], |(_, operands)| *operands);
    let weight_format = DECOMPRESSION.contains(&name.as_str());
    let values: Vec<(String, MlirValue)> = raw::operands(op)
        .into_iter()
        .enumerate()
        .filter(|(i, v)| !((weight_format || f32_parameters.contains(i)) && constant(*v)))
        .map(|(i, v)| (format!("operand #{i}"), v))
        .chain(
            raw::results(op)
                .into_iter()
                .enumerate()
                .map(|(i, v)| (format!("result #{i}"), v)),
        )
        .collect();
    let tensors: Vec<(String, MlirValue, MlirType)> = values
        .into_iter()
        .filter(|(_, v)| raw::is_ranked_tensor(raw::value_type(*v)) && !static_parameter(*v))
        .map(|(what, v)| (what, v, raw::value_type(v)))
        .collect();
    for (what, _, ty) in &tensors {
        let rank = raw::static_shape(*ty).map_or_else(|| shape_rank(*ty), |s| s.len());
        if rank > MAX_RANK {
            return found(
                "rank",
                format!(
                    "{what} is rank {rank}, {} (the Neural Engine takes rank <= {MAX_RANK})",
                    raw::type_text(*ty)
                ),
            );
        }
    }
    for (what, _, ty) in &tensors {
        if raw::static_shape(*ty).is_none() {
            return found(
                "static-shape",
                format!(
                    "{what} has a dynamic shape, {} (the Neural Engine needs static shapes: one function per shape)",
                    raw::type_text(*ty)
                ),
            );
        }
    }
    for (what, v, ty) in &tensors {
        if !supported_element(*ty) {
            let boundary = name == coreai::CAST && boundary_cast(*v);
            return found(
                "dtype",
                format!(
                    "{what} is {} (the Neural Engine computes in f16, int8 and int16 only){}",
                    raw::type_text(*ty),
                    if boundary {
                        "; it is a graph input or output: give the model f16 inputs and outputs"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
    None
}

/// An integer constant operand: a shape, axes, permutation or bounds the
/// op takes as a static parameter, not a tensor the Neural Engine computes
/// on.
fn static_parameter(v: MlirValue) -> bool {
    let ty = raw::value_type(v);
    let flag = raw::static_shape(ty).is_some_and(|s| s.is_empty());
    constant(v)
        && raw::element(ty)
            .and_then(raw::int_kind)
            .is_some_and(|(width, _)| width > 1 || flag)
}

/// Whether `v` is a `coreai.constant`.
fn constant(v: MlirValue) -> bool {
    raw::producer(v).is_some_and(|p| raw::op_name(p) == coreai::CONSTANT)
}

/// The rank of a ranked tensor type with dynamic dims.
fn shape_rank(ty: MlirType) -> usize {
    let text = raw::type_text(ty);
    text.split('x').count().saturating_sub(1)
}

/// f16, or an integer of 8 or 16 bits.
fn supported_element(ty: MlirType) -> bool {
    let Some(e) = raw::element(ty) else {
        return false;
    };
    match raw::int_kind(e) {
        Some((width, _)) => width == 8 || width == 16,
        None => raw::float_kind(e) == Some(16) && !raw::is_bf16(e),
    }
}

/// Whether a cast's f32 side `v` is a graph argument or a graph result
/// (the f32 signature `cast-to-f16` keeps).
fn boundary_cast(v: MlirValue) -> bool {
    raw::producer(v).is_none() || raw::users(v).any(|u| raw::op_name(u) == coreai::OUTPUT)
}
