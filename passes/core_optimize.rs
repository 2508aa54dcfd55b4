//! `core-optimize`: coreai → coreai optimization, the last pass of
//! `coreai-pipeline`.
//!
//! Preconditions: a verified module whose graphs hold `coreai` ops (the
//! output of `legalize-aten-to-coreai`); run on the module (it removes and
//! merges graphs).
//!
//! What it does, to a fixed point (at most [`MAX_ROUNDS`] rounds), family by
//! family (each file under `core_optimize/` states its rewrites, each with a
//! `before → after` header and its exactness):
//!   - `fold_constants`: an op whose operands are all constants becomes a
//!     constant, computed with the reference executor's kernels (the value
//!     the op computes, bit for bit, in the executor); while folds defer
//!     (`coreai_ir::deferred`: coreai-compile writing an asset), a
//!     transpose of a weight blob of 64 KiB or more, and a reshape of such
//!     a fold, is a blob naming its source and permutation, made with the
//!     same bytes when first read or as the asset is written;
//!   - `shape_chains`: reshape of reshape, transpose of transpose, identity
//!     reshape/transpose/broadcast/slice/concat (a same-type broadcast or
//!     tile only when static, a reshape with at most one dynamic dim, a
//!     slice taking each dynamic dim whole by constant bounds);
//!   - `linear`: a linear layer on a rank-3+ input without the reshapes
//!     that flatten it to rank 2 and back;
//!   - `identities`: `x*1`, `x+(-0.0)`, `x-0.0`, `x/1` (true division),
//!     integer `x+0`/`x-0`, cast to the same type, widen-then-narrow cast
//!     pairs, `where` with a splat constant condition;
//!   - `batch_norm`: a `batch_norm` composite call with constant
//!     statistics becomes `x * s + b`, with `s` folded into the weights of
//!     a convolution before it (value-changing: off under `exact=true`);
//!   - `scales`: a constant scale after a convolution (and its constant
//!     bias) folded into its weights, two constant scales in a row merged
//!     (value-changing: off under `exact=true`);
//!   - `dead_code`: ops without uses and without effects, private graphs no
//!     one calls;
//!   - `dedup`: equal constants (`dense_resource` blobs compared by their
//!     bytes) in one block, and private graphs that are identical but for
//!     their name, composite graphs with the same declaration included
//!     (what coreai-torch's `to_coreai()` ships).
//!
//! Guarantee: with `exact=true` every value the module computes is
//! bit-identical, for every input, to what it computed before (NaN, ±0,
//! ±inf, subnormals and integer extremes included), as far as the executor
//! computes it; the folds behind coreai-core's known miscompiles are never
//! made (a float→int→float cast pair is not an identity; floor division by
//! 1 is not an identity; integer accumulators are never narrowed). The
//! default (`exact=false`) adds the value-changing `batch_norm` and
//! `scales` families, whose error bounds are stated in their files.
//!
//! Composites: a `noinline` graph (one with a `composite_decl`) is never
//! inlined or rewritten across its boundary; its body is optimized like any
//! graph, a call whose result is unused is dead like any op, and call sites
//! of identical composite graphs share one graph.
//!
//! Constant folding computes with the executor's kernels
//! (`coreai_interp::fold`), the same code `coreai-run` runs, whoever runs
//! the pass: `coreai-opt`, `coreai-compile` or a program using the library.
//!
//! Rewrite driver: the op rewrites (`fold_constants`, `shape_chains`,
//! `identities`, `batch_norm`; on each op constant folding first, then the
//! op's patterns in the order of `PATTERNS`) go through the shared driver
//! (`crates/coreai-ir/src/rewrite.rs`, `Policy::Optional`, one `run_once` sweep a round), so
//! they are numbered across rounds and obey `max-rewrites=N` and
//! `trace-rewrites=true` (`rewrite core-optimize #k <pattern> at <loc>`).
//! A replacement whose types differ from the op's results is declined. The
//! `dead_code` and `dedup` steps are not op rewrites: they are neither
//! numbered nor limited by `max-rewrites`, and still run every round.
//!
//! Interactions: runs after `canonicalize,cse`; it leaves no dead ops, so
//! nothing needs to follow it.

mod batch_norm;
mod dead_code;
mod dedup;
mod fold_constants;
mod identities;
mod linear;
mod scales;
mod shape_chains;
pub(crate) use shape_chains::RESHAPES;

pub use fold_constants::evaluate;

use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::pass::{Pass, PassInfo, PassResult};
use coreai_ir::rewrite::{Pattern as DriverPattern, Policy, RewriteOptions, Rewriter, Rule};
use melior::ir::{
    operation::{OperationLike, OperationRef},
    Value, ValueLike,
};
use std::sync::Arc;

/// Rounds of (patterns, dead code, de-duplication) at most.
pub const MAX_ROUNDS: usize = 16;

pub const INFO: PassInfo = PassInfo {
    name: "core-optimize",
    summary: "Optimize coreai graphs: constant folding with the executor's kernels, shape chains, identities, dead code, de-duplication, batch-norm folding",
    source: include_str!("core_optimize.rs"),
    anchor: None,
    options: Options::OPTIONS,
    create: || Box::new(CoreOptimize::default()),
};

coreai_ir::pass_options! {
    /// What the patterns may do.
    #[derive(Copy)]
    pub struct Options {
        "exact" => exact: bool = "false",
            "only rewrites that are bit-identical for every input (turns batch-norm folding off)";
    }
}

/// A rewrite rooted at one op: the values replacing its results (same
/// count, same types), or why it does not apply.
pub type Pattern =
    for<'c, 'a> fn(&LoweringCx<'c, 'a>, Options) -> Result<Vec<Value<'c, 'a>>, Decline>;

/// Patterns by root op name, tried in order, with their names in traces;
/// constant folding is tried first on every op.
static PATTERNS: &[(&str, &str, Pattern)] = &[
    (
        coreai::RESHAPE,
        "reshape-identity",
        shape_chains::reshape_identity,
    ),
    (
        coreai::RESHAPE,
        "reshape-of-reshape",
        shape_chains::reshape_of_reshape,
    ),
    (
        coreai::RESHAPE,
        "unflatten-linear",
        linear::unflatten_linear,
    ),
    (
        coreai::EXPAND_DIMS,
        "reshape-of-reshape",
        shape_chains::reshape_of_reshape,
    ),
    (
        coreai::SHRINK_DIMS,
        "reshape-of-reshape",
        shape_chains::reshape_of_reshape,
    ),
    (
        coreai::TRANSPOSE,
        "transpose-identity",
        shape_chains::transpose_identity,
    ),
    (
        coreai::TRANSPOSE,
        "transpose-of-transpose",
        shape_chains::transpose_of_transpose,
    ),
    (
        coreai::BROADCAST_TO,
        "same-type-identity",
        shape_chains::same_type_identity,
    ),
    (
        coreai::BROADCAST_IN_DIMS,
        "same-type-identity",
        shape_chains::same_type_identity,
    ),
    (
        coreai::TILE,
        "same-type-identity",
        shape_chains::same_type_identity,
    ),
    (
        coreai::SLICE,
        "slice-identity",
        shape_chains::slice_identity,
    ),
    (coreai::CONCAT, "concat-of-one", shape_chains::concat_of_one),
    (
        coreai::CAST,
        "cast-to-same-type",
        identities::cast_to_same_type,
    ),
    (
        coreai::CAST,
        "widen-then-narrow",
        identities::widen_then_narrow,
    ),
    (
        coreai::DECOMPOSABLE_BROADCASTING_MUL,
        "mul-by-one",
        identities::mul_by_one,
    ),
    (
        coreai::DECOMPOSABLE_BROADCASTING_WHERE,
        "select-by-constant",
        identities::select_by_constant,
    ),
    (
        coreai::DECOMPOSABLE_BROADCASTING_MUL,
        "fold-scale-into-convolution",
        scales::fold_scale_into_convolution,
    ),
    (
        coreai::DECOMPOSABLE_BROADCASTING_MUL,
        "merge-constant-scales",
        scales::merge_constant_scales,
    ),
    (
        coreai::DECOMPOSABLE_BROADCASTING_ADD,
        "add-negative-zero",
        identities::add_negative_zero,
    ),
    (
        coreai::DECOMPOSABLE_BROADCASTING_SUB,
        "sub-zero",
        identities::sub_zero,
    ),
    (
        coreai::DECOMPOSABLE_BROADCASTING_DIVIDE,
        "div-by-one",
        identities::div_by_one,
    ),
    (
        coreai::INVOKE,
        "fold-batch-norm",
        batch_norm::fold_batch_norm,
    ),
];

/// Patterns of every `coreai.decomposable.broadcasting_*` op.
static BROADCASTING_PATTERNS: &[(&str, Pattern)] = &[(
    "broadcast-operand-reshape",
    shape_chains::broadcast_operand_reshape,
)];

#[derive(Clone, Default)]
struct CoreOptimize {
    options: Options,
}

impl Pass for CoreOptimize {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.options.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        let patterns = Patterns::new(self.options);
        let mut rewriter = Rewriter::new(INFO.name, Policy::Optional, rewrites);
        for round in 0..MAX_ROUNDS {
            let rewrites = rewriter.run_once(root, |op| patterns.select(op))?;
            let erased = dead_code::erase_dead_ops(root);
            let merged = dedup::dedup_constants(root);
            let graphs = dead_code::erase_dead_graphs(root) + dedup::merge_identical_graphs(root);
            tracing::debug!(
                round,
                rewrites,
                erased,
                merged,
                graphs,
                "core-optimize round"
            );
            if rewrites + erased + merged + graphs == 0 {
                break;
            }
        }
        Ok(())
    }
}

/// Ops a pattern may root at: not constants, terminators or graphs.
fn is_root(name: &str) -> bool {
    !matches!(
        name,
        coreai::CONSTANT | coreai::OUTPUT | coreai::YIELD | coreai::CONDITION | coreai::GRAPH
    ) && coreai::contains(name)
}

/// The patterns of one run, as the driver calls them: each closes over the
/// pass's [`Options`] and declines a replacement whose types differ from
/// the op's results (the op is kept; the unused new ops are dead code).
struct Patterns {
    fold: DriverPattern,
    keyed: Vec<(&'static str, DriverPattern)>,
    broadcasting: Vec<DriverPattern>,
}

impl Patterns {
    fn new(options: Options) -> Self {
        Self {
            fold: driver_pattern("fold-constants", fold_constants::fold, options),
            keyed: PATTERNS
                .iter()
                .map(|&(op, name, p)| (op, driver_pattern(name, p, options)))
                .collect(),
            broadcasting: BROADCASTING_PATTERNS
                .iter()
                .map(|&(name, p)| driver_pattern(name, p, options))
                .collect(),
        }
    }

    /// Constant folding, then the op's own patterns, then those of every
    /// broadcasting op; none for ops a pattern may not root at.
    fn select(&self, op: &OperationRef<'_, '_>) -> Vec<DriverPattern> {
        let name = op_name(op.to_raw());
        if !is_root(&name) {
            return Vec::new();
        }
        let keyed = self
            .keyed
            .iter()
            .filter(|(key, _)| *key == name)
            .map(|(_, p)| p.clone());
        let broadcasting = if coreai::broadcast_base(&name).is_some() {
            self.broadcasting.as_slice()
        } else {
            &[]
        };
        std::iter::once(self.fold.clone())
            .chain(keyed)
            .chain(broadcasting.iter().cloned())
            .collect()
    }
}

/// `pattern` under `name`, called with `options`.
fn driver_pattern(name: &str, pattern: Pattern, options: Options) -> DriverPattern {
    DriverPattern {
        name: name.to_string(),
        rule: Rule::Shared(Arc::new(move |cx: &LoweringCx<'_, '_>| {
            let values = pattern(cx, options)?;
            if !same_types(cx.op(), &values) {
                return Err("replacement types differ from the results".into());
            }
            Ok(values)
        })),
        may_decline: false,
    }
}

/// Whether `values` match `op`'s results in count and types.
fn same_types(op: OperationRef<'_, '_>, values: &[Value<'_, '_>]) -> bool {
    values.len() == op.result_count()
        && values
            .iter()
            .enumerate()
            .all(|(i, v)| op.result(i).is_ok_and(|r| r.r#type() == v.r#type()))
}

pub(crate) use coreai_ir::raw::{
    attr_text as attribute_text, callee_name, constant_attr, constant_ints, op_name,
    producer as defining_op, single_use_producer, static_shape, symbols_in,
};
