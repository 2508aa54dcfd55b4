//! `decompose`: ATen ops → simpler ATen ops, like
//! `ExportedProgram.run_decompositions(table)`, written in Rust.
//!
//! Preconditions: a verified module with `aten` ops (as `coreai_export`
//! imports them, typically with `--decompositions none`), anywhere in it
//! (nested regions of `aten.cond` / `aten.while_loop` included).
//!
//! Which ops: those the table decomposes (`table=coreai|default|none`, the
//! same tables as `legalize-aten-to-coreai`: PyTorch's default
//! decompositions, minus the 12 ops coreai-torch keeps whole for `coreai`),
//! plus the ops named in `decompose=`, minus those named in `preserve=`,
//! minus the ops that have no Rust decomposition but a lowering
//! (`legalize-aten-to-coreai`'s built-in resolver or a user lowering of the
//! context): those are kept whole for the legalizer (`matmul.default`,
//! `new_ones.default`, `zeros.default`, ...) rather than refused.
//! Each decomposition is written from the op's mathematics and emits the
//! ATen ops PyTorch's own decomposition emits where that is practical
//! (`linear` → `permute` + `addmm`, `conv2d` → `convolution`, ...).
//!
//! The pass first checks every op it should decompose: ops with neither a
//! Rust decomposition nor a lowering are one error listing them (sorted, de-duplicated) with a
//! note per occurrence, and nothing is rewritten. A decomposition that
//! declines (an unsupported attribute value, a dynamic shape it needs
//! static) is an error at the op's location. Ops a decomposition emits are
//! decomposed again when the table says so (to a fixed point).
//!
//! Guarantee: every rewritten value keeps its type; results are PyTorch's
//! up to floating-point rounding of the reassociated arithmetic.
//!
//! Symbolic sizes (dynamic shapes, any table): a generic
//! `aten.operator "aten::view.default"` whose size has exactly one symbolic
//! entry becomes `aten.view.default` with `-1` there (`view` infers it),
//! and the `aten.sym_size.int` left unused is erased (`symbolic.rs`).
//!
//! Interactions: run before `legalize-aten-to-coreai` with the same table
//! (pipeline `coreai-pipeline`). `aten.sym_size.int` is in PyTorch's table
//! but torch.export never decomposes it (it reads a symbolic size); it is
//! not decomposed, as are the exporter's assertion ops; `arange.default`
//! and `arange.start` are kept too (lowered as `arange.start_step`).

mod aten_builders;
mod math;
mod nn;
mod shape;
mod symbolic;

use crate::aten_to_coreai;
use crate::decomposition_table::Table;
use coreai_ir::{
    diagnostics::{emit_with_notes, sorted_unique, Offender},
    pass::{Pass, PassFailed, PassInfo, PassResult},
    rewrite::{Pattern, Policy, RewriteFn, RewriteOptions, Rewriter},
};
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::{MlirContext, MlirOperation};

pub const INFO: PassInfo = PassInfo {
    name: "decompose",
    summary: "Decompose ATen ops into simpler ATen ops with a decomposition table (like torch.export's run_decompositions)",
    source: include_str!("decompose.rs"),
    anchor: Some("builtin.module"),
    options: Decompose::OPTIONS,
    create: || Box::new(Decompose::default()),
};

/// A decomposition: builds the replacement in front of the op and returns
/// the values replacing its results (a pattern of the rewrite driver).
pub type DecomposeFn = RewriteFn;

/// Ops in the table that are kept on purpose: torch.export does not
/// decompose sym_size.int either; PyTorch decomposes arange.default and
/// arange.start into arange.start_step with start 0 and step 1, which is
/// how the legalizer lowers them (a symbolic `end`, `torch.arange(s)` over
/// a dynamic length, included).
const KEPT: &[&str] = &["arange.default", "arange.start", "sym_size.int"];

/// Every decomposition, by ATen overload.
fn rules() -> impl Iterator<Item = &'static (&'static str, DecomposeFn)> {
    math::RULES.iter().chain(nn::RULES).chain(shape::RULES)
}

/// The decomposition of `key` (`linear.default`).
pub fn lookup(key: &str) -> Option<DecomposeFn> {
    rules().find(|(k, _)| *k == key).map(|(_, f)| *f)
}

/// Every overload with a decomposition, sorted.
pub fn keys() -> Vec<&'static str> {
    let mut keys: Vec<&str> = rules().map(|(k, _)| *k).collect();
    keys.sort();
    keys
}

coreai_ir::pass_options! {
    struct Decompose {
        "table" => table: Table = "coreai",
            "decomposition table: coreai (PyTorch's default table minus the 12 ops coreai-torch keeps whole), default (PyTorch's), none",
            parse = Table::parse;
        "preserve" => preserve: Vec<String> = "",
            "comma-separated ops to keep whole although the table decomposes them (`aten.linear.default` or `linear.default`)",
            parse = parse_op_list;
        "decompose" => decompose: Vec<String> = "",
            "comma-separated ops to decompose although the table keeps them (each needs a decomposition)",
            parse = parse_decompose_list;
    }
}

/// `aten.linear.default` or `linear.default` → `linear.default`.
fn parse_op_list(value: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let key = item
            .strip_prefix("aten.")
            .or_else(|| item.strip_prefix("aten::"))
            .unwrap_or(item);
        let parts: Vec<&str> = key.split('.').collect();
        if parts.len() != 2 || parts.iter().any(|p| p.is_empty()) {
            return Err(format!(
                "'{item}' is not an ATen overload; write it like 'aten.linear.default' or 'linear.default'"
            ));
        }
        out.push(key.to_string());
    }
    Ok(out)
}

/// `decompose=`: overloads that must have a Rust decomposition.
fn parse_decompose_list(value: &str) -> Result<Vec<String>, String> {
    let ops = parse_op_list(value)?;
    let missing: Vec<&str> = ops
        .iter()
        .filter(|k| lookup(k).is_none())
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "no decomposition for {}; decompositions exist for: {}",
            missing.join(", "),
            keys().join(", ")
        ));
    }
    Ok(ops)
}

impl Pass for Decompose {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, module: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        self.check(module)?;
        symbolic::rewrite_views(module);
        // Decompositions may emit ops the table decomposes: sweep until none
        // is left (each sweep strictly lowers the op's level; the bound only
        // guards against a decomposition emitting its own op).
        let policy = Policy::MustLower {
            verb: "decompose",
            noun: "decomposition",
        };
        let mut rewriter = Rewriter::new(INFO.name, policy, rewrites);
        let context = coreai_ir::raw::context(module.to_raw());
        let select = |op: &OperationRef<'_, '_>| match aten_key(op) {
            // An op legalize-aten-to-coreai also lowers is kept when its
            // decomposition declines (a decomposition that needs static
            // shapes, on a dynamic op).
            Some(key) if self.wants(context, &key) => lookup(&key)
                .map(|rule| {
                    let pattern = Pattern::new(format!("aten.{key}"), rule);
                    vec![pattern.may_decline(lowered(context, &key))]
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        if rewriter.run_to_fixpoint(module, 8, select)? {
            return Ok(());
        }
        let left = self.targets(module);
        if let Some((raw, key)) = left.iter().find(|(_, key)| !lowered(context, key)) {
            coreai_ir::raw::emit_error(
                *raw,
                &format!(
                    "internal error: 'aten.{key}' is still present after 8 rounds of decomposition"
                ),
            );
            return Err(PassFailed);
        }
        Ok(())
    }
}

/// The `name.overload` of an `aten.*` op (not `aten.operator`).
fn aten_key(op: &OperationRef<'_, '_>) -> Option<String> {
    let name = op.name();
    let name = name.as_string_ref().as_str().ok()?;
    if name == "aten.operator" {
        let qualified = op
            .attribute("name")
            .ok()
            .and_then(coreai_ir::strings::string_value)?;
        return qualified.strip_prefix("aten::").map(str::to_string);
    }
    name.strip_prefix("aten.").map(str::to_string)
}

/// Whether `legalize-aten-to-coreai` lowers the ATen overload `key` as is:
/// a user lowering registered in `context` or a built-in one.
fn lowered(context: MlirContext, key: &str) -> bool {
    aten_to_coreai::lookup(key).is_some()
        || coreai_ir::lowering::user_lowering(context, &format!("aten::{key}")).is_some()
}

impl Decompose {
    fn wants(&self, context: MlirContext, key: &str) -> bool {
        if self.preserve.iter().any(|k| k == key) || KEPT.contains(&key) {
            return false;
        }
        if self.decompose.iter().any(|k| k == key) {
            return true;
        }
        let decomposed = lookup(key).is_some();
        // An op nothing lowers is decomposed whenever a table is in use,
        // listed or not (torch's tables omit some, e.g. batch norm's
        // no_stats overload).
        let only_way = decomposed && self.table != Table::None && !lowered(context, key);
        only_way || (self.table.decomposes(key) && (decomposed || !lowered(context, key)))
    }

    /// Every op to decompose now, in pre-order.
    fn targets(&self, module: OperationRef<'_, '_>) -> Vec<(MlirOperation, String)> {
        let context = coreai_ir::raw::context(module.to_raw());
        let mut ops = Vec::new();
        module.walk(WalkOrder::PreOrder, |op| {
            if let Some(key) = aten_key(&op) {
                if self.wants(context, &key) {
                    ops.push((op.to_raw(), key));
                }
            }
            WalkResult::Advance
        });
        ops
    }

    /// Reports every op the table decomposes that has no decomposition.
    fn check(&self, module: OperationRef<'_, '_>) -> Result<(), PassFailed> {
        let mut missing: Vec<Offender> = Vec::new();
        for (raw, key) in self.targets(module) {
            if lookup(&key).is_none() {
                missing.push(Offender {
                    location: coreai_ir::raw::location(raw),
                    display: format!("aten.{key}"),
                    note: format!("'aten.{key}' has no decomposition"),
                });
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let names = sorted_unique(&missing);
        let message = format!(
            "the '{}' table decomposes ops that have no decomposition here: {names}; keep them with preserve={} (and lower them), or import with coreai_export --decompositions {}",
            self.table.name(),
            names.replace("aten.", "").replace(", ", ","),
            self.table.name(),
        );
        emit_with_notes(&missing, &message);
        Err(PassFailed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decomposition_keys_are_unique_and_in_the_default_table_or_not_lowered() {
        let keys = keys();
        let mut unique = keys.clone();
        unique.dedup();
        assert_eq!(keys, unique);
        // In PyTorch's table, or the only way to an op nothing lowers
        // (decomposed whatever the table lists: `Decompose::wants`).
        for key in keys {
            assert!(
                Table::Default.decomposes(key) || aten_to_coreai::lookup(key).is_none(),
                "{key} is neither in PyTorch's table nor without a lowering"
            );
        }
    }

    #[test]
    fn op_lists_accept_both_spellings() {
        assert_eq!(
            parse_op_list("aten.linear.default, softmax.int").unwrap(),
            vec!["linear.default", "softmax.int"]
        );
        assert!(parse_op_list("linear").is_err());
    }
}
