//! Multi-function assets: compiled programs (`coreai-compile --entry
//! NAME=FILE`) linked into one module.
//!
//! Each program's `@main` becomes the public `@NAME`; another top-level
//! symbol keeps its name unless an earlier program (or an entry name) took
//! it, then it becomes `@sym_NAME` (`_2`, `_3`, ... appended until unique),
//! with every use in its program renamed. Weights (`dense_resource` blobs)
//! of equal names are told apart by MLIR's parser, which renames a blob that
//! a program of the same context already declared; then every blob whose
//! type and bytes equal an earlier one's is replaced by that one
//! ([`share_equal_blobs`]), so programs that hold the same weights (the
//! configurations of `--static-shapes`, prefill and decode) store them
//! once, as coreai-core's own multi-function assets do.

use crate::ffi::{bytes_ref, coreaiParseModule, string_ref};
use melior::{
    ir::{
        operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
        Location, Module, Type,
    },
    Context,
};
use mlir_sys::{
    mlirAttributeEqual, mlirAttributeGetType, mlirBlockAppendOwnedOperation,
    mlirBlockGetFirstOperation, mlirIdentifierStr, mlirModuleGetBody, mlirOperationGetAttribute,
    mlirOperationGetAttributeByName, mlirOperationGetNextInBlock, mlirOperationGetNumAttributes,
    mlirOperationRemoveFromParent, mlirOperationSetAttributeByName, mlirStringAttrGet,
    mlirStringAttrGetValue, mlirSymbolTableGetSymbolAttributeName,
    mlirSymbolTableReplaceAllSymbolUses, MlirAttribute, MlirOperation,
};
use std::{
    collections::{BTreeSet, HashMap},
    hash::{Hash, Hasher},
};

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("entry '{0}': the compiled program does not parse")]
    Parse(String),
    #[error("entry '{0}': the program has no @main")]
    NoMain(String),
    #[error("entry '{0}': the name is given twice")]
    Duplicate(String),
    #[error("the linked program does not verify")]
    Verify,
}

/// The `sym_name` of `op`, if it has one.
fn symbol_name(op: MlirOperation) -> Option<String> {
    unsafe {
        let attr = mlirOperationGetAttributeByName(op, mlirSymbolTableGetSymbolAttributeName());
        if attr.ptr.is_null() {
            return None;
        }
        let s = mlirStringAttrGetValue(attr);
        Some(String::from_utf8_lossy(&crate::ffi::string_ref_bytes(s)).into_owned())
    }
}

/// The top-level operations of `module`, in order.
fn top_level(module: &Module<'_>) -> Vec<MlirOperation> {
    let mut ops = Vec::new();
    unsafe {
        let mut op = mlirBlockGetFirstOperation(mlirModuleGetBody(module.to_raw()));
        while !op.ptr.is_null() {
            ops.push(op);
            op = mlirOperationGetNextInBlock(op);
        }
    }
    ops
}

/// Renames the symbol `op` (`from`) to `to` and every use of it in `module`.
fn rename(context: &Context, module: &Module<'_>, op: MlirOperation, from: &str, to: &str) {
    unsafe {
        mlirSymbolTableReplaceAllSymbolUses(
            string_ref(from),
            string_ref(to),
            module.as_operation().to_raw(),
        );
        let attr = mlirStringAttrGet(context.to_raw(), string_ref(to));
        mlirOperationSetAttributeByName(op, mlirSymbolTableGetSymbolAttributeName(), attr);
    }
}

/// Links the programs `entries` (name, compiled program as bytecode) into
/// one module of `context`.
pub fn link<'c>(
    context: &'c Context,
    entries: &[(String, Vec<u8>)],
) -> Result<Module<'c>, LinkError> {
    let linked = Module::new(Location::unknown(context));
    let mut taken: BTreeSet<String> = entries.iter().map(|(n, _)| n.clone()).collect();
    if taken.len() != entries.len() {
        let mut seen = BTreeSet::new();
        let dup = entries
            .iter()
            .find(|(n, _)| !seen.insert(n))
            .map(|(n, _)| n.clone());
        return Err(LinkError::Duplicate(dup.unwrap_or_default()));
    }
    for (name, program) in entries {
        let module = unsafe {
            Module::from_option_raw(coreaiParseModule(
                context.to_raw(),
                bytes_ref(program),
                string_ref(name),
            ))
        }
        .ok_or_else(|| LinkError::Parse(name.to_string()))?;
        let ops = top_level(&module);
        let main = ops
            .iter()
            .copied()
            .find(|&op| symbol_name(op).as_deref() == Some("main"))
            .ok_or_else(|| LinkError::NoMain(name.clone()))?;
        for &op in &ops {
            let Some(symbol) = symbol_name(op).filter(|s| s != "main") else {
                continue;
            };
            if taken.contains(&symbol) {
                let base = format!("{symbol}_{name}");
                let fresh = std::iter::once(base.clone())
                    .chain((2..).map(|i| format!("{base}_{i}")))
                    .find(|c| !taken.contains(c))
                    .unwrap_or(base);
                rename(context, &module, op, &symbol, &fresh);
                taken.insert(fresh);
            } else {
                taken.insert(symbol);
            }
        }
        rename(context, &module, main, "main", name);
        for op in ops {
            unsafe {
                mlirOperationRemoveFromParent(op);
                mlirBlockAppendOwnedOperation(mlirModuleGetBody(linked.to_raw()), op);
            }
        }
    }
    share_equal_blobs(linked.as_operation());
    if !linked.as_operation().verify() {
        return Err(LinkError::Verify);
    }
    Ok(linked)
}

/// Replaces every `dense_resource` attribute whose type and bytes equal
/// those of an earlier one (in program order) by the earlier one. The
/// bytecode writer only writes the blobs still referenced.
fn share_equal_blobs(root: OperationRef<'_, '_>) {
    // (type, length, hash of the bytes) → the first attributes with them.
    let mut first: HashMap<(String, usize, u64), Vec<MlirAttribute>> = HashMap::new();
    root.walk(WalkOrder::PreOrder, |op| unsafe {
        let op = op.to_raw();
        for i in 0..mlirOperationGetNumAttributes(op) {
            let named = mlirOperationGetAttribute(op, i);
            let Some(bytes) = coreai_ir::deferred::blob_data(named.attribute) else {
                continue;
            };
            let size = bytes.len();
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut hasher);
            let key = (
                Type::from_raw(mlirAttributeGetType(named.attribute)).to_string(),
                size,
                hasher.finish(),
            );
            let candidates = first.entry(key).or_default();
            let same = candidates
                .iter()
                .copied()
                .find(|&earlier| coreai_ir::deferred::blob_data(earlier) == Some(bytes));
            match same {
                Some(earlier) if !mlirAttributeEqual(earlier, named.attribute) => {
                    mlirOperationSetAttributeByName(op, mlirIdentifierStr(named.name), earlier);
                }
                Some(_) => {}
                None => candidates.push(named.attribute),
            }
        }
        WalkResult::Advance
    });
}
