//! Module-level symbols for the passes that add graphs: the top-level op
//! that contains an op (where a new graph is inserted, before it) and a
//! fresh symbol name.

use crate::lowering::Decline;
use melior::ir::operation::{OperationLike, OperationRef};
use mlir_sys::{MlirBlock, MlirOperation};
use std::collections::HashSet;

/// The module-level op that contains `op`, and the module's body block.
pub fn top_level(op: MlirOperation) -> Result<(MlirOperation, MlirBlock), Decline> {
    let mut current = op;
    loop {
        let parent = unsafe { mlir_sys::mlirOperationGetParentOperation(current) };
        if parent.ptr.is_null() {
            return Err("the op is not inside a module".into());
        }
        let parent_ref = unsafe { OperationRef::from_raw(parent) };
        if parent_ref.name().as_string_ref().as_str() == Ok("builtin.module") {
            return Ok((current, unsafe { mlir_sys::mlirOperationGetBlock(current) }));
        }
        current = parent;
    }
}

/// `base`, or `base_N` with the smallest N ≥ 1 that no op of the module's
/// body names.
pub fn unique_name(module_block: MlirBlock, base: &str) -> String {
    let mut taken = HashSet::new();
    let mut op = unsafe { mlir_sys::mlirBlockGetFirstOperation(module_block) };
    while !op.ptr.is_null() {
        let sym = unsafe { OperationRef::from_raw(op) }
            .attribute("sym_name")
            .ok()
            .and_then(crate::strings::string_value)
            .map(|s| s.into_owned());
        taken.extend(sym);
        op = unsafe { mlir_sys::mlirOperationGetNextInBlock(op) };
    }
    let mut name = base.to_string();
    let mut n = 1;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}
