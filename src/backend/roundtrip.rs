//! `aicode-roundtrip`: coreai → coreai through the asset's program. Writes
//! the module as the aicode serialization an `.aimodel` holds (what
//! `coreai-compile` writes into `main.mlirb`), reads it back
//! (`coreai_asset::aicode::reader`) and replaces the module's body with
//! what was read: the program as coreai-core's runtime receives it.
//!
//! The backend as a pipeline stage: `coreai-compile --compile-to aicode`
//! ends with it, `coreai-opt` and lit run it like any pass, and
//! `coreai-bisect` blames it when the executor's results differ only after
//! it (a writer or reader that loses an attribute, a type or a weight's
//! bytes). What the format does not hold does not come back (the graph
//! attributes `__coreai_pure__` and `template_op`). A weight read back with
//! the type and bytes it was written with is the module's own
//! `dense_resource` again (MLIR would otherwise number its key, the old
//! blob still being held; the copy read is freed); one whose bytes changed
//! keeps the numbered key.
//!
//! An op the writer does not cover is one error naming that op and its
//! location, as from `coreai-compile`; the module is then unchanged.
//!
//! A debugging stage: the program is read back through MLIR text (the
//! weights as hex), so it costs a few times the weights' size in time and
//! memory; `coreai-compile -o` writes the asset without it.

use super::{aicode, program, BackendError, Format};
use coreai_ir::{
    pass::{Pass, PassFailed, PassInfo, PassResult},
    raw,
    rewrite::RewriteOptions,
};
use melior::ir::{
    attribute::AttributeLike,
    operation::{OperationRef, WalkOrder},
    Attribute,
};
use mlir_sys::MlirAttribute;
use std::collections::HashMap;

pub const INFO: PassInfo = PassInfo {
    name: "aicode-roundtrip",
    summary: "Write the module as the asset's aicode program and read it back: the program coreai-core's runtime receives, as coreai IR",
    source: include_str!("roundtrip.rs"),
    anchor: Some("builtin.module"),
    options: &[],
    create: || Box::new(AicodeRoundtrip),
};

#[derive(Clone, Default)]
struct AicodeRoundtrip;

impl Pass for AicodeRoundtrip {
    fn set_option(&mut self, name: &str, _: &str) -> Result<(), String> {
        Err(format!("aicode-roundtrip has no option '{name}'"))
    }

    fn run(&mut self, root: OperationRef<'_, '_>, _: &RewriteOptions) -> PassResult {
        let module = root.to_raw();
        let fail = |message: &str| {
            raw::emit_error(module, &format!("aicode-roundtrip: {message}"));
            Err(PassFailed)
        };
        let bytes = match program(root, Format::Aicode) {
            Ok(bytes) => bytes,
            Err(BackendError::Aicode(aicode::AicodeError::Op {
                location,
                op,
                message,
            })) => return fail(&format!("{location}: '{op}' {message}")),
            Err(e) => return fail(&e.to_string()),
        };
        let blobs = resources(root);
        let text = match coreai_asset::aicode::reader::to_coreai(&bytes) {
            Ok(text) => text,
            Err(e) => return fail(&format!("the written program does not read back: {e}")),
        };
        if !raw::replace_module_body(module, &text) {
            return fail("the program read back does not parse");
        }
        for op in raw::collect(&root, WalkOrder::PreOrder, |_| true) {
            for named in raw::attributes(op.to_raw()) {
                let Some(old) = original(&blobs, named.attribute) else {
                    continue;
                };
                raw::set_attribute(op.to_raw(), &raw::entry_name(named), old);
                // No op holds the copy read back any more.
                raw::drop_blob(named.attribute);
            }
        }
        Ok(())
    }
}

/// Every `dense_resource` attribute an op of `root` holds, by blob key.
fn resources(root: OperationRef<'_, '_>) -> HashMap<String, MlirAttribute> {
    let mut found = HashMap::new();
    for op in raw::collect(&root, WalkOrder::PreOrder, |_| true) {
        for named in raw::attributes(op.to_raw()) {
            if let Some(key) = raw::resource_name(named.attribute) {
                found.insert(key, named.attribute);
            }
        }
    }
    found
}

/// The attribute of `blobs` that `read` (a `dense_resource` read back,
/// its key `KEY` or `KEY_N`) was written from: same key, type and bytes.
fn original(blobs: &HashMap<String, MlirAttribute>, read: MlirAttribute) -> Option<MlirAttribute> {
    let key = raw::resource_name(read)?;
    let stem = key
        .rsplit_once('_')
        .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map_or(key.as_str(), |(stem, _)| stem);
    let old = [key.as_str(), stem]
        .into_iter()
        .find_map(|k| blobs.get(k))
        .copied()?;
    // SAFETY: both are live attributes of the module's context.
    let (old_attr, read_attr) = unsafe { (Attribute::from_raw(old), Attribute::from_raw(read)) };
    let same = old_attr.r#type() == read_attr.r#type()
        && coreai_ir::weights::resource_bytes(old_attr)
            == coreai_ir::weights::resource_bytes(read_attr);
    same.then_some(old)
}
