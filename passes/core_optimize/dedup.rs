//! De-duplication: one constant per value, one graph per body. Exact: the
//! replacement computes the same bits (it is the same value, or a graph
//! whose printed body, attributes and types are the same).
//!
//! // %a = constant V ; %b = constant V → %a (uses of %b now use %a)
//! // graph private @g_1 ≡ graph private @g → @g (calls of @g_1 call @g)
//!
//! Constants are equal when their attributes are (MLIR uniques them) or,
//! for `dense_resource` blobs, when their types and bytes are; only
//! constants of one block merge (the first dominates the others). Graphs
//! merge when they are private and print the same once their names are
//! set aside, composite graphs included: their declarations (name, input
//! and output names, attributes) are part of what prints, so only calls of
//! the same contract share a graph. This is what coreai-torch ships: its
//! converter emits a graph per call site and `to_coreai()` (Apple's
//! `coreai-pre-compilation-rewrite`) leaves one graph for the identical
//! ones (coreai-torch 0.4.3: two `RMSNormImpl(eps=1e-6)` call sites of one
//! shape are two `coreai.invoke` of one `noinline` graph). Merging neither
//! inlines a composite nor changes its body.

use super::dead_code::{graph_symbol, top_level_ops};
use super::op_name;
use coreai_ir::deferred::BlobSource;
use coreai_ir::op::coreai;
use coreai_ir::raw;
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use melior::ir::{Attribute, AttributeLike, TypeLike};
use mlir_sys::MlirOperation;
use std::collections::HashMap;

/// What identifies a constant's value without reading it: its attribute
/// (MLIR uniques attributes), or for a blob its type and byte length; blobs
/// with the same type and length are then compared byte for byte.
#[derive(Hash, PartialEq, Eq)]
enum Key {
    Attribute(usize),
    Blob(usize, usize),
}

/// The key of a constant's value, and a blob's bytes (a deferred
/// permute's recipe: equal recipes compare their sources).
fn key<'c>(attr: Attribute<'c>) -> (Key, Option<BlobSource<'c>>) {
    match coreai_ir::deferred::blob_source(attr.to_raw()) {
        Some(blob) => (
            Key::Blob(attr.r#type().to_raw().ptr as usize, blob.len()),
            Some(blob),
        ),
        None => (Key::Attribute(attr.to_raw().ptr as usize), None),
    }
}

/// The first constant of each value seen (with a blob's bytes).
type Firsts<'b> = Vec<(Option<BlobSource<'b>>, MlirOperation)>;

/// Replaces every constant equal to an earlier one of its block by that
/// one. Returns how many were replaced. Blobs are neither copied nor
/// hashed: only those of one type and length are compared (`memcmp`).
pub fn dedup_constants(root: OperationRef<'_, '_>) -> usize {
    let mut seen: HashMap<(usize, Key), Firsts> = HashMap::new();
    let mut duplicates: Vec<(MlirOperation, MlirOperation)> = Vec::new();
    let constants = raw::collect(&root, WalkOrder::PreOrder, |op| {
        op_name(op.to_raw()) == coreai::CONSTANT
    });
    for op in &constants {
        let raw = op.to_raw();
        if let Ok(attr) = op.attribute("value") {
            let block = raw::block_of(raw);
            let (key, bytes) = key(attr);
            let firsts = seen.entry((block.ptr as usize, key)).or_default();
            match firsts.iter().find(|(b, _)| *b == bytes) {
                Some((_, first)) => duplicates.push((raw, *first)),
                None => firsts.push((bytes, raw)),
            }
        }
    }
    for (dup, first) in &duplicates {
        let (old, new) = (raw::result(*dup, 0), raw::result(*first, 0));
        if raw::same_type(raw::value_type(old), raw::value_type(new)) {
            raw::replace_all_uses(old, new);
            raw::erase(*dup);
        }
    }
    duplicates.len()
}

/// `op` printed (generic form, local value numbers, no locations) with
/// its symbol name blanked; `None` when the printed text cannot stand for
/// the graph.
///
/// Flags made by `mlirOpPrintingFlagsCreate` start from the command line's
/// printing options (`--mlir-print-debuginfo`, `--mlir-elide-elementsattrs-
/// if-larger`, `--mlir-print-skip-regions`), and with those two graphs that
/// differ could print the same. Every option that changes the text is set
/// here; skipping regions cannot be unset through the C API, so a text
/// without the body's terminator is not compared at all.
fn body_text(op: MlirOperation, name: &str) -> Option<String> {
    let text = raw::generic_text(op);
    text.contains(&format!("\"{}\"", coreai::OUTPUT))
        .then(|| text.replacen(&format!("sym_name = \"{name}\""), "sym_name = \"\"", 1))
}

/// Points the calls of private graphs that print the same as an earlier
/// one, but for their names, to the earlier one (the others, now dead, go
/// with `erase_dead_graphs`). Returns how many calls were renamed.
pub fn merge_identical_graphs(root: OperationRef<'_, '_>) -> usize {
    let mut first_by_body: HashMap<String, String> = HashMap::new();
    let mut renamed: HashMap<String, String> = HashMap::new();
    for op in top_level_ops(root) {
        let Some((name, true)) = graph_symbol(op) else {
            continue;
        };
        let Some(body) = body_text(op, &name) else {
            continue;
        };
        match first_by_body.entry(body) {
            std::collections::hash_map::Entry::Occupied(first) => {
                renamed.insert(name, first.get().clone());
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(name);
            }
        }
    }
    if renamed.is_empty() {
        return 0;
    }
    let mut calls = 0;
    root.walk(WalkOrder::PreOrder, |op| {
        let raw = op.to_raw();
        if op_name(raw) == coreai::INVOKE {
            if let Some(target) = super::callee_name(raw).and_then(|c| renamed.get(&c)) {
                let text = format!("#param.constant<@{target}> : !param.symbol");
                if let Some(attr) = raw::parse_attribute(raw, &text) {
                    raw::set_attribute(raw, "callee", attr);
                    calls += 1;
                }
            }
        }
        WalkResult::Advance
    });
    calls
}
