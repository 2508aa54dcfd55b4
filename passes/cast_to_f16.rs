//! `cast-to-f16`: coreai → coreai. Turns an f32 program into f16 compute:
//! every f32 tensor value an op computes becomes f16, with `coreai.cast` at
//! the boundaries of what stays in f32. Integer and bool values are never
//! touched.
//!
//!   %y = coreai.exp %x : tensor<4xf32> -> tensor<4xf32>
//!   →
//!   %x16 = coreai.cast %x : tensor<4xf32> to tensor<4xf16>
//!   %y16 = coreai.exp %x16 : tensor<4xf16> -> tensor<4xf16>
//!   %y = coreai.cast %y16 : tensor<4xf16> to tensor<4xf32>   (only if an f32 user is left)
//!
//! Each op is one numbered application of the rewrite driver (`to-f16`),
//! and each leaves a valid program (the op's f16 result is cast back for
//! its users), so `max-rewrites=N` bisects a bad conversion. (Signatures of
//! f16 graphs and their invokes change before the sweep, whatever N: casts
//! keep the program valid.) After the
//! sweep, `cast(cast(x : f16 → f32) : f32 → f16)` becomes `x` (exact),
//! casts of constants become f16 constants (round to nearest even), and the
//! casts and constants left unused are erased.
//!
//! What converts: the ops of a converted graph's body (and of the bodies
//! of its `coreai.if`/`coreai.while`) whose results are all f32 tensors.
//! What stays f32 (its f16 operands are cast up): ops with an integer or
//! bool result (comparisons, `argmax`, `topk` indices: a discrete result
//! must not change with rounding), `if`/`while` themselves (their results
//! and region arguments keep their types; casts sit inside the bodies),
//! other ops with regions (`reduce` combiners: left as they are), the ops
//! and operands coreai defines on f32 only (`interpolate_coordinates`,
//! `interpolate`'s scale and offset), custom Metal kernels
//! (`coreai.metal4_kernel` and its MTLBuffer copies: the kernel source is
//! written for its types), handle/state access, ops named in `keep-f32`, ops `calibration=` flags,
//! and with `islands=auto` (the default):
//!   - accumulating reductions (`reduce_sum`, `reduce_mean`,
//!     `reduce_product`, `scan`: cumulative sum/product) over `max-f16-reduction` (default 32) or more
//!     elements per output, or over a dynamic count: an f16 sum of n terms
//!     can be off by about n·2^-11 relative (32 terms: 1.6%);
//!   - norm statistics: a `sqrt`/`rsqrt` whose operand is computed from an
//!     accumulating reduction (through add/sub/mul/divide/maximum and
//!     reshapes), every op on those paths, the reduction and the squaring
//!     feeding it (RMSNorm, layer/group norm variance, vector norms);
//!   - softmax/logsumexp accumulators: `coreai.softmax`, a `reduce_sum` of
//!     `exp`, and the `log` of such a sum;
//!   - RoPE angles (conversion guide §5.7, "fp32 is mandatory"): a
//!     `sin`/`cos` whose argument is a product (positions × frequencies:
//!     a multiply or matmul, through elementwise and data-movement ops),
//!     with the ops computing that argument; a `rope` composite that takes
//!     `position_ids`/`freqs` stays f32 as a whole (with `cos`/`sin` inputs it
//!     only rotates, and converts);
//!   - `pow` with a non-constant exponent: |x|^y spans exp's range
//!     (overflows f16 once y·log2|x| > 16);
//!   - large constants: an op with a constant operand holding a value
//!     beyond 2048 that f16 does not represent exactly (consecutive
//!     integers, e.g. positions, are no longer exact in f16; masks such as
//!     -10000 or -65504 are exact and convert).
//!
//! Comparisons (`equal`, `not_equal`, `greater` and their broadcasting
//! forms) have bool results, so no conversion reaches them; one whose float
//! operands are each an f16 value widened to f32 or a constant f16 holds
//! exactly compares the f16 values instead (exact: widening keeps order,
//! equality, ±0, infinities and NaN), unless `keep-f32` names it. So does
//! an `argsort` or `argmax` of an f16 value widened to f32: it orders the
//! f16 value (the same positions).
//!
//! `islands=neural-engine` (what `coreai-compile --target ane` runs) keeps
//! only the last three kinds (RoPE angles, `pow` with a tensor exponent,
//! large constants): on the Neural Engine an f32 op leaves it (docs/targets.md,
//! `ane-residency`), and Apple's own Neural Engine forms compute norms,
//! reductions and softmax in f16; `fp16-stabilize`'s forms (max-scaled norm
//! statistics, max-shifted softmax and logsumexp) keep them in range.
//! `islands=none` converts every op of the kinds above too.
//!
//! Constants: `torch.finfo(torch.float32).min`/`.max` become f16's ±65504
//! (the finite "minus infinity" of additive masks, as the modeling code
//! writes it when run in f16); any other float constant holding a finite
//! value outside the f16 range (|x| > 65504 after rounding) is an error at
//! the constant when one of its users converts; `keep-f32=<that op>` (or calibration) keeps the user and
//! the constant in f32.
//!
//! Signatures: `io=f32` (default) keeps every public graph's signature
//! (casts after the arguments, before the outputs); `io=f16` makes its f32
//! arguments and results f16. Composite graphs (`coreai.graph private` with
//! `composite_decl`, reached by `coreai.invoke`) are converted like the
//! body of the caller, with f16 arguments and results, and every invoke is
//! rebuilt with the new types: the composites (attention, norms) hold most
//! of the compute, and the declaration names inputs and attributes, not
//! element types. Exceptions kept in f32 with casts around the invoke: a
//! `rope` composite that computes its angles from `position_ids`/`freqs`
//! (§5.7) and, with `keep-f32=invoke`, every composite.
//!
//! `calibration=FILE.npz`: before converting, the reference executor runs
//! the module's `@main` on the file's inputs (keyed by argument
//! `coreai.name`, as `coreai-run --inputs`) and records each op's float
//! operands and results (largest magnitude, overflow in f16, relative
//! precision f16 keeps: `max|x - f16(x)| / max|x|`). An op any of whose
//! operands or results overflows f16, or loses more than
//! `calibration-tolerance` (default 1e-3; normal f16 numbers lose at most
//! 2^-11 ≈ 4.9e-4), stays in f32: an out-of-range value must be neither
//! produced nor consumed in f16. The ranges come from the reference
//! executor (`coreai_interp::calibrate`), whoever runs the pass; when the
//! run fails, the pass fails with the reason.
//!
//! `remarks=true` prints one line per float-valued op to stderr:
//! `cast-to-f16: <location>: '<op>' f16` or `... kept f32: <reason>`.
//!
//! Preconditions: verified coreai IR on the module (or one graph).
//! Interactions: runs last, after `coreai-pipeline` (`fp16-stabilize`
//! rewrites overflowing formulations first; canonicalize/cse after it
//! merge nothing it leaves).

mod calibration;
pub(crate) mod ir;
mod islands;

pub use calibration::{OpRange, ValueRange};

use coreai_ir::op::{coreai, coreaix};
use coreai_ir::options::OptionValue;
use coreai_ir::{
    diagnostics::emit_error,
    lowering::{Decline, LoweringCx},
    pass::{Pass, PassFailed, PassInfo, PassResult},
    rewrite::{Pattern, Policy, RewriteOptions, Rewriter},
};
use ir::{
    attribute, f16_of, is_f16_tensor, is_f32_tensor, op_name, operands, producer, results, to_f16,
    uses, value_type,
};
use melior::ir::{
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    Value,
};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};

pub const INFO: PassInfo = PassInfo {
    name: "cast-to-f16",
    summary: "Convert f32 compute to f16 with casts at the boundaries, keeping accumulations, norm statistics, RoPE angles and calibrated out-of-range ops in f32",
    source: include_str!("cast_to_f16.rs"),
    anchor: None,
    options: CastToF16::OPTIONS,
    create: || Box::new(CastToF16::default()),
};

coreai_ir::pass_options! {
    struct CastToF16 {
        "islands" => islands: Islands = "auto",
            "auto: keep reductions, norm statistics, softmax/logsumexp accumulators, RoPE angles and ops on large constants in f32; neural-engine: as auto, but reductions, norm statistics and softmax/logsumexp accumulators compute in f16 (Apple's Neural Engine forms); none: convert them all",
            parse = |v: &str| match v.trim() {
                "auto" => Ok(Islands::Auto),
                "neural-engine" => Ok(Islands::NeuralEngine),
                "none" => Ok(Islands::None),
                other => Err(format!("'{other}' is not an islands mode; choose from auto, neural-engine, none")),
            };
        "keep-f32" => keep_f32: Vec<String> = "",
            "comma-separated coreai ops kept in f32 (full name, or without 'coreai.' / 'coreai.decomposable.broadcasting_')";
        "io" => io_f16: bool = "f32",
            "f32: keep public signatures (casts at the boundary); f16: make their f32 arguments and results f16",
            parse = |v: &str| match v.trim() {
                "f32" => Ok(false),
                "f16" => Ok(true),
                other => Err(format!("'{other}' is not an io type; choose from f32, f16")),
            };
        "calibration" => calibration: Option<String> = "",
            "an .npz of @main's inputs: run the reference executor and keep in f32 every op whose values leave the f16 range or lose precision";
        "calibration-tolerance" => tolerance: f64 = "1e-3",
            "relative precision loss (max|x - f16(x)| / max|x|) beyond which calibration keeps an op in f32",
            parse = |v: &str| {
                f64::parse_option(v)
                    .ok()
                    .filter(|t| *t > 0.0)
                    .ok_or_else(|| format!("'{}' is not a positive number", v.trim()))
            };
        "max-f16-reduction" => max_f16_reduction: u64 = "32",
            "with islands=auto, reductions over this many elements or more stay in f32";
        "remarks" => remarks: bool = "false",
            "print one line per float-valued op to stderr: its location and whether it converts or why it stays f32";
    }
}

/// Which ops stay in f32 for accuracy (`islands=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Islands {
    Auto,
    NeuralEngine,
    None,
}

impl Pass for CastToF16 {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        let ranges = self.calibrate(root)?;
        let plan = self.plan(root, &ranges);
        if self.remarks {
            for (op, decision) in &plan.remarks {
                eprintln!(
                    "cast-to-f16: {}: '{}' {decision}",
                    ir::location_text(*op),
                    op_name(*op)
                );
            }
        }
        check_constants(&plan)?;
        for graph in &plan.f16_signature {
            convert_signature(*graph);
        }
        for invoke in &plan.invokes {
            rebuild_invoke(*invoke, &plan.graphs_by_name);
        }
        let mut rewriter = Rewriter::new(
            INFO.name,
            Policy::MustLower {
                verb: "convert",
                noun: "conversion",
            },
            rewrites,
        );
        let convert: HashSet<usize> = plan.convert.iter().map(|o| o.ptr as usize).collect();
        rewriter.run_once(root, |op| {
            if convert.contains(&(op.to_raw().ptr as usize)) {
                vec![Pattern::new("to-f16", to_f16_op)]
            } else {
                Vec::new()
            }
        })?;
        narrow_comparisons(root, |name| self.keeps(name));
        cleanup(root);
        tracing::debug!(applied = rewriter.applied(), "cast-to-f16 conversions");
        Ok(())
    }
}

/// What the pass does, decided before it changes anything.
#[derive(Default)]
struct Plan {
    /// Ops the driver converts, in program order.
    convert: Vec<MlirOperation>,
    /// Graphs whose f32 arguments and results become f16.
    f16_signature: Vec<MlirOperation>,
    /// Invokes of those graphs, rebuilt with the new types.
    invokes: Vec<MlirOperation>,
    graphs_by_name: HashMap<String, MlirOperation>,
    /// The constants of converted bodies.
    constants: Vec<MlirOperation>,
    /// One line per float-valued op, in program order.
    remarks: Vec<(MlirOperation, String)>,
}

impl CastToF16 {
    /// The op ranges `calibration=` records, by op.
    fn calibrate(&self, root: OperationRef<'_, '_>) -> Result<HashMap<usize, OpRange>, PassFailed> {
        let Some(path) = &self.calibration else {
            return Ok(HashMap::new());
        };
        let fail = |message: String| {
            emit_error(root, &format!("cast-to-f16: {message}"));
            PassFailed
        };
        if op_name(root.to_raw()) != "builtin.module" {
            return Err(fail(
                "calibration= runs the module's @main: run the pass on the module".into(),
            ));
        }
        let ranges =
            coreai_interp::calibrate::calibrate(root.to_raw(), std::path::Path::new(path), "main")
                .map_err(|e| fail(format!("calibration with '{path}' failed: {e}")))?;
        let mut ops = Vec::new();
        root.walk(WalkOrder::PreOrder, |op| {
            if op.to_raw().ptr != root.to_raw().ptr {
                ops.push(op.to_raw().ptr as usize);
            }
            WalkResult::Advance
        });
        if ops.len() != ranges.len() {
            return Err(fail(format!(
                "calibration returned {} op ranges for {} ops",
                ranges.len(),
                ops.len()
            )));
        }
        Ok(ops
            .into_iter()
            .zip(ranges)
            .filter_map(|(op, r)| r.map(|r| (op, r)))
            .collect())
    }

    fn keeps(&self, name: &str) -> bool {
        self.keep_f32.iter().any(|k| {
            name == k
                || name
                    .strip_prefix(coreai::DIALECT)
                    .and_then(|r| r.strip_prefix('.'))
                    == Some(k.as_str())
                || coreai::short(name) == k
        })
    }

    fn plan(&self, root: OperationRef<'_, '_>, ranges: &HashMap<usize, OpRange>) -> Plan {
        let mut plan = Plan::default();
        let graphs = callables(root.to_raw());
        let mut invoked: HashSet<String> = HashSet::new();
        let mut invokes: Vec<MlirOperation> = Vec::new();
        root.walk(WalkOrder::PreOrder, |op| {
            if op_name(op.to_raw()) == coreai::INVOKE {
                if let Some(callee) = ir::callee(op.to_raw()) {
                    invoked.insert(callee);
                    invokes.push(op.to_raw());
                }
            }
            WalkResult::Advance
        });
        // Which graphs convert, and why the others do not.
        let mut f32_graphs: HashMap<String, String> = HashMap::new();
        let mut converted: Vec<(MlirOperation, bool)> = Vec::new();
        for &graph in &graphs {
            let name = attribute(graph, "sym_name")
                .and_then(ir::attr_str)
                .unwrap_or_default();
            plan.graphs_by_name.insert(name.clone(), graph);
            // `coreai.graph` marks it with the unit attribute `priv`.
            let private = ir::is_private(graph);
            let internal = private && invoked.contains(&name);
            if internal
                && ir::composite_name(graph).as_deref() == Some("rope")
                && builds_angles(graph)
            {
                f32_graphs.insert(
                    name,
                    "a rope composite that builds its angles from positions and frequencies stays f32 \
                     (guide §5.7)"
                        .into(),
                );
                continue;
            }
            if internal && self.keeps(coreai::INVOKE) {
                f32_graphs.insert(name, "keep-f32 names invoke".into());
                continue;
            }
            let signature = internal || self.io_f16;
            if signature {
                plan.f16_signature.push(graph);
            }
            converted.push((graph, internal));
        }
        plan.invokes = invokes
            .into_iter()
            .filter(|i| {
                ir::callee(*i)
                    .and_then(|c| plan.graphs_by_name.get(&c))
                    .is_some_and(|g| plan.f16_signature.iter().any(|s| ir::same_op(*s, *g)))
            })
            .collect();
        for (graph, _) in converted {
            let Some(block) = ir::entry_block(graph) else {
                continue;
            };
            let mut decided: Vec<(MlirOperation, Result<(), String>)> = Vec::new();
            self.visit_block(block, &f32_graphs, ranges, &mut plan, &mut decided);
            if self.islands != Islands::None {
                let candidates: Vec<MlirOperation> = decided
                    .iter()
                    .filter(|(_, d)| d.is_ok())
                    .map(|(o, _)| *o)
                    .collect();
                let keep = islands::auto(
                    &candidates,
                    self.max_f16_reduction,
                    self.islands == Islands::NeuralEngine,
                );
                for (o, d) in decided.iter_mut() {
                    if let Some(reason) = keep.get(&(o.ptr as usize)) {
                        *d = Err(reason.clone());
                    }
                }
            }
            for (o, d) in decided {
                match d {
                    Ok(()) => {
                        let note = ranges
                            .get(&(o.ptr as usize))
                            .map(|r| format!(" ({})", calibration::summary(r)))
                            .unwrap_or_default();
                        plan.remarks.push((o, format!("f16{note}")));
                        plan.convert.push(o);
                    }
                    Err(reason) => plan.remarks.push((o, format!("kept f32: {reason}"))),
                }
            }
        }
        plan
    }

    /// Decides the ops of `block` in program order, and those in the
    /// bodies of `coreai.if`/`coreai.while` (the op itself stays f32: its
    /// results and region arguments keep their types; the ops inside
    /// convert, with casts at the region's boundary).
    fn visit_block(
        &self,
        block: MlirBlock,
        f32_graphs: &HashMap<String, String>,
        ranges: &HashMap<usize, OpRange>,
        plan: &mut Plan,
        decided: &mut Vec<(MlirOperation, Result<(), String>)>,
    ) {
        for op in ir::block_ops(block) {
            let name = op_name(op);
            if name == coreai::CONSTANT {
                plan.constants.push(op);
            }
            if let Some(d) = self.decide(op, &name, f32_graphs, ranges) {
                decided.push((op, d));
            }
            if matches!(name.as_str(), coreai::IF | coreai::WHILE) {
                for b in ir::region_blocks(op) {
                    self.visit_block(b, f32_graphs, ranges, plan, decided);
                }
            }
        }
    }

    /// `Some(Ok)`: a candidate for f16; `Some(Err(reason))`: a float-valued
    /// op that stays f32; `None`: not a float-valued op (constants, casts
    /// from f16, terminators, invokes of converted graphs, ops without f32
    /// results).
    fn decide(
        &self,
        op: MlirOperation,
        name: &str,
        f32_graphs: &HashMap<String, String>,
        ranges: &HashMap<usize, OpRange>,
    ) -> Option<Result<(), String>> {
        let rs = results(op);
        if matches!(
            name,
            coreai::CONSTANT | coreai::OUTPUT | "func.return" | coreai::YIELD
        ) || !rs.iter().any(|r| is_f32_tensor(value_type(*r)))
        {
            return None;
        }
        if name == coreai::CAST
            && operands(op)
                .first()
                .is_some_and(|v| ir::is_float_tensor(value_type(*v)))
        {
            return None;
        }
        if name == coreai::INVOKE {
            let callee = ir::callee(op).unwrap_or_default();
            return f32_graphs
                .get(&callee)
                .map(|reason| Err(format!("calls @{callee}: {reason}")));
        }
        if !rs.iter().all(|r| is_f32_tensor(value_type(*r))) {
            return Some(Err("has integer, bool or non-f32 results".into()));
        }
        if matches!(name, coreai::IF | coreai::WHILE) {
            return Some(Err(
                "control flow: its results stay f32, its body converts".into()
            ));
        }
        if ir::region_count(op) > 0 {
            return Some(Err("has regions (their bodies are left as they are)".into()));
        }
        if F32_ONLY.contains(&name) {
            return Some(Err("coreai accepts only f32 for it".into()));
        }
        if matches!(
            name,
            coreai::METAL4_KERNEL
                | coreaix::COPY_WITH_CONSTRAINTS
                | coreaix::COPY_DISCARDING_CONSTRAINTS
        ) {
            return Some(Err(
                "a custom Metal kernel: its source is written for its types".into(),
            ));
        }
        if name.contains("handle") || name.contains("state") {
            return Some(Err("reads or writes state".into()));
        }
        if self.keeps(name) {
            return Some(Err("keep-f32".into()));
        }
        if let Some(reason) = ranges
            .get(&(op.ptr as usize))
            .and_then(|r| calibration::verdict(r, self.tolerance))
        {
            return Some(Err(reason));
        }
        Some(Ok(()))
    }
}

/// The `coreai.graph` / `func.func` ops with a body: `root` itself, or the
/// ones directly in it.
fn callables(root: MlirOperation) -> Vec<MlirOperation> {
    let is_callable = |op: MlirOperation| {
        matches!(op_name(op).as_str(), coreai::GRAPH | "func.func") && ir::entry_block(op).is_some()
    };
    if is_callable(root) {
        return vec![root];
    }
    ir::entry_block(root).map_or_else(Vec::new, |block| {
        ir::block_ops(block)
            .into_iter()
            .filter(|op| is_callable(*op))
            .collect()
    })
}

/// Whether a `rope` composite takes `position_ids`/`freqs` and computes its
/// angles itself (the variant §5.7 requires in f32); with `cos`/`sin`
/// inputs it only rotates, and the angles are computed, in f32, outside.
fn builds_angles(graph: MlirOperation) -> bool {
    attribute(graph, "composite_decl")
        .map(ir::attr_text)
        .is_some_and(|d| d.contains("\"position_ids\"") || d.contains("\"freqs\""))
}

/// Fails on a constant holding a finite value beyond f16's range when one
/// of its users converts.
fn check_constants(plan: &Plan) -> Result<(), PassFailed> {
    let convert: HashSet<usize> = plan.convert.iter().map(|o| o.ptr as usize).collect();
    let mut failed = false;
    for &c in &plan.constants {
        let Some(bad) = attribute(c, "value")
            .and_then(|a| ir::find_float_value(a, half::f16::MAX.to_f32(), ir::overflows_f16))
        else {
            continue;
        };
        let users: Vec<String> = results(c)
            .iter()
            .flat_map(|r| uses(*r))
            .filter(|(u, _)| convert.contains(&(u.ptr as usize)))
            .map(|(u, _)| op_name(u))
            .collect();
        if let Some(user) = users.first() {
            let short = coreai::short(user);
            let message = format!(
                "cast-to-f16: the constant holds {bad:e}, outside the f16 range (|x| <= 65504), and its user '{user}' would convert to f16; keep the user in f32 with keep-f32={short}"
            );
            ir::emit_error(c, &message);
            failed = true;
        }
    }
    if failed {
        Err(PassFailed)
    } else {
        Ok(())
    }
}

/// Ops coreai defines on f32 only.
const F32_ONLY: &[&str] = &[coreai::INTERPOLATE_COORDINATES, coreai::CREATE_COMPLEX];

/// Operands coreai defines on f32 only, by op: they stay f32 when the op
/// converts (`interpolate`'s `scale` and `offset`).
pub(crate) const F32_OPERANDS: &[(&str, &[usize])] = &[(coreai::INTERPOLATE, &[2, 3])];

/// The driver's pattern: `op` rebuilt on f16 operands with f16 results,
/// each result cast back to f32 for the users not converted yet.
fn to_f16_op<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let op = cx.op().to_raw();
    let name = op_name(op);
    let f32_operands: &[usize] = F32_OPERANDS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, i)| i);
    let new_operands: Vec<MlirValue> = operands(op)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            if is_f32_tensor(value_type(v)) && !f32_operands.contains(&i) {
                to_f16(v)
            } else {
                v
            }
        })
        .collect();
    let old_results = results(op);
    let types: Vec<MlirType> = old_results.iter().map(|r| f16_of(value_type(*r))).collect();
    let location = ir::location(op);
    let new = ir::create(&name, location, &new_operands, &types, &ir::attributes(op));
    ir::insert_before(op, new);
    let mut values = Vec::new();
    for (i, old) in old_results.iter().enumerate() {
        let back = ir::cast(ir::result(new, i), value_type(*old), location);
        ir::insert_before(op, back);
        values.push(cx.value(ir::result(back, 0)));
    }
    Ok(values)
}

/// Makes `graph`'s f32 arguments and results f16: each argument is cast
/// back to f32 for its users, each result is the f16 form of the value.
fn convert_signature(graph: MlirOperation) {
    let Some(block) = ir::entry_block(graph) else {
        return;
    };
    for arg in ir::arguments(block) {
        let ty = value_type(arg);
        if !is_f32_tensor(ty) {
            continue;
        }
        ir::set_argument_type(arg, f16_of(ty));
        let back = ir::cast(arg, ty, ir::location(graph));
        ir::insert_at_start(block, back);
        ir::replace_all_uses_except(arg, ir::result(back, 0), &[back]);
    }
    let terminator = ir::terminator(block);
    for (i, v) in operands(terminator).into_iter().enumerate() {
        if is_f32_tensor(value_type(v)) {
            ir::set_operand(terminator, i, to_f16(v));
        }
    }
    let inputs: Vec<MlirType> = ir::arguments(block).into_iter().map(value_type).collect();
    let outputs: Vec<MlirType> = operands(terminator).into_iter().map(value_type).collect();
    ir::set_function_type(graph, &inputs, &outputs);
}

/// Rebuilds `invoke` with its callee's (new) argument and result types,
/// casting the operands to them and the results back.
fn rebuild_invoke(invoke: MlirOperation, graphs: &HashMap<String, MlirOperation>) {
    let Some(graph) = ir::callee(invoke).and_then(|c| graphs.get(&c).copied()) else {
        return;
    };
    let Some((inputs, types)) = ir::signature(graph) else {
        return;
    };
    let new_operands: Vec<MlirValue> = operands(invoke)
        .into_iter()
        .zip(inputs)
        .map(|(v, want)| {
            if is_f16_tensor(want) && is_f32_tensor(value_type(v)) {
                to_f16(v)
            } else {
                v
            }
        })
        .collect();
    let location = ir::location(invoke);
    let new = ir::create(
        coreai::INVOKE,
        location,
        &new_operands,
        &types,
        &ir::attributes(invoke),
    );
    ir::insert_before(invoke, new);
    for (i, old) in results(invoke).into_iter().enumerate() {
        let mut r = ir::result(new, i);
        if value_type(r).ptr != value_type(old).ptr {
            let back = ir::cast(r, value_type(old), location);
            ir::insert_before(invoke, back);
            r = ir::result(back, 0);
        }
        ir::replace_all_uses(old, r);
    }
    ir::erase(invoke);
}

/// Comparisons: their result is bool, so no conversion reaches them, and
/// one of an f16 value widened to f32 compares in f32 off the f16 path.
const COMPARISONS: &[&str] = &[
    coreai::EQUAL,
    coreai::NOT_EQUAL,
    coreai::GREATER,
    coreai::DECOMPOSABLE_BROADCASTING_EQUAL,
    coreai::DECOMPOSABLE_BROADCASTING_NOT_EQUAL,
    coreai::DECOMPOSABLE_BROADCASTING_GREATER,
];

/// Ops whose integer result depends only on the order and equality of
/// their first operand's elements: the positions that sort them
/// (`argsort`), the position of the largest (`argmax`).
const ORDERINGS: &[&str] = &[coreai::ARGSORT, coreai::ARGMAX];

/// A comparison of f32 operands that are each an f16 value widened
/// (`cast(x : f16 → f32)`) or a constant whose every value f16 holds
/// exactly compares the f16 values instead: widening f16 to f32 is exact and
/// keeps order, equality, ±0, infinities and NaN, so every comparison gives
/// the same bool. At least one operand must be a widened f16 value (a
/// comparison of constants is left to folding); `keep-f32` naming the
/// comparison keeps it. An ordering ([`ORDERINGS`]) of a widened f16 value
/// orders the f16 value, for the same reason: the same positions.
fn narrow_comparisons(root: OperationRef<'_, '_>, keeps: impl Fn(&str) -> bool) {
    let mut comparisons: Vec<(MlirOperation, usize)> = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        let (name, raw) = (op_name(op.to_raw()), op.to_raw());
        if COMPARISONS.contains(&name.as_str()) && !keeps(&name) {
            comparisons.push((raw, operands(raw).len()));
        } else if ORDERINGS.contains(&name.as_str()) && !keeps(&name) {
            comparisons.push((raw, 1));
        }
        WalkResult::Advance
    });
    for (c, compared) in comparisons {
        let mut narrowed = Vec::new();
        let mut widened = false;
        for v in operands(c).into_iter().take(compared) {
            if !is_f32_tensor(value_type(v)) {
                narrowed.clear();
                break;
            }
            let Some(def) = producer(v) else {
                narrowed.clear();
                break;
            };
            match op_name(def).as_str() {
                coreai::CAST if is_f16_tensor(value_type(operands(def)[0])) => {
                    narrowed.push(Narrowed::Source(operands(def)[0]));
                    widened = true;
                }
                coreai::CONSTANT => {
                    let exact =
                        attribute(def, "value")
                            .and_then(ir::float_values)
                            .filter(|values| {
                                values
                                    .iter()
                                    .all(|x| x.is_nan() || ir::constant_f16(*x).to_f32() == *x)
                            });
                    match exact {
                        Some(values) => narrowed.push(Narrowed::Constant(def, values)),
                        None => {
                            narrowed.clear();
                            break;
                        }
                    }
                }
                _ => {
                    narrowed.clear();
                    break;
                }
            }
        }
        if !widened || narrowed.len() != compared {
            continue;
        }
        for (i, n) in narrowed.into_iter().enumerate() {
            let v = match n {
                Narrowed::Source(x) => x,
                Narrowed::Constant(def, values) => {
                    let ty = f16_of(value_type(results(def)[0]));
                    let value = ir::named(c, "value", ir::f16_attribute(ty, &values));
                    let k = ir::create(coreai::CONSTANT, ir::location(def), &[], &[ty], &[value]);
                    ir::insert_before(c, k);
                    ir::result(k, 0)
                }
            };
            ir::set_operand(c, i, v);
        }
    }
}

/// An operand of a comparison in f16: the f16 value a cast widened, or a
/// constant (and its values) to rebuild in f16.
enum Narrowed {
    Source(MlirValue),
    Constant(MlirOperation, Vec<f32>),
}

/// After the sweep: `cast(cast(x : f16 → f32) : f32 → f16)` → `x`; casts of
/// f32 constants to f16 → f16 constants; unused casts and constants erased.
///
/// Each f32 constant cast to f16 gets one f16 constant, right after it (a
/// weight's blob stays a blob: the asset writer streams it, where an
/// elements attribute would be copied), and an f32 weight read only by
/// those casts goes at once, its blob freed when no other constant holds
/// it: the weights are in memory in f32 or in f16, never both (a
/// 1B-parameter model would otherwise hold 4 GB of f32 next to 2 GB of
/// f16).
fn cleanup(root: OperationRef<'_, '_>) {
    let mut casts: Vec<MlirOperation> = Vec::new();
    // How many constants hold each attribute (CSE shares them).
    let mut holders: HashMap<usize, usize> = HashMap::new();
    root.walk(WalkOrder::PreOrder, |op| {
        let raw = op.to_raw();
        match op_name(raw).as_str() {
            coreai::CAST => casts.push(raw),
            coreai::CONSTANT => {
                if let Some(a) = attribute(raw, "value") {
                    *holders.entry(a.ptr as usize).or_default() += 1;
                }
            }
            _ => {}
        }
        WalkResult::Advance
    });
    let mut made: HashMap<usize, MlirValue> = HashMap::new();
    for c in casts {
        let input = operands(c)[0];
        let output = results(c)[0];
        if !is_f16_tensor(value_type(output)) || !is_f32_tensor(value_type(input)) {
            continue;
        }
        let Some(def) = producer(input) else { continue };
        match op_name(def).as_str() {
            coreai::CAST => {
                let inner = operands(def)[0];
                if is_f16_tensor(value_type(inner)) {
                    ir::replace_all_uses(output, inner);
                }
            }
            coreai::CONSTANT => {
                let f16 = match made.get(&(def.ptr as usize)) {
                    Some(&v) => v,
                    None => {
                        let Some(attr) = attribute(def, "value") else {
                            continue;
                        };
                        let Some(f16_attr) = ir::f16_constant(attr, value_type(output)) else {
                            continue;
                        };
                        let ty = value_type(output);
                        let value = ir::named(c, "value", f16_attr);
                        let k =
                            ir::create(coreai::CONSTANT, ir::location(def), &[], &[ty], &[value]);
                        ir::insert_after(def, k);
                        let v = ir::result(k, 0);
                        made.insert(def.ptr as usize, v);
                        v
                    }
                };
                ir::replace_all_uses(output, f16);
                ir::erase(c);
                let result = results(def)[0];
                if uses(result).is_empty() {
                    // The f32 weight is read no more: it goes, and so does
                    // its blob once no constant holds it.
                    if let Some(attr) = attribute(def, "value") {
                        let n = holders.entry(attr.ptr as usize).or_default();
                        *n = n.saturating_sub(1);
                        made.remove(&(def.ptr as usize));
                        ir::erase(def);
                        if *n == 0 {
                            ir::drop_blob(attr);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    loop {
        let mut dead: Vec<MlirOperation> = Vec::new();
        root.walk(WalkOrder::PostOrder, |op| {
            let raw = op.to_raw();
            if matches!(op_name(raw).as_str(), coreai::CAST | coreai::CONSTANT)
                && results(raw).iter().all(|r| uses(*r).is_empty())
            {
                dead.push(raw);
            }
            WalkResult::Advance
        });
        if dead.is_empty() {
            return;
        }
        for op in dead {
            ir::erase(op);
        }
    }
}
