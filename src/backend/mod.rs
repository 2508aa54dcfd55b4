//! The backend: a compiled coreai module as the program an `.aimodel`
//! asset holds (`main.mlirb`), in one of two [`Format`]s, and the linking
//! of several compiled programs into one multi-function module.
//!
//! The module is read where it is: the aicode writer walks it in place and
//! hands each weight's bytes to the serializer (`coreai_asset::aicode`);
//! nothing is written to disk here.

pub mod aicode;
pub mod link;

use melior::ir::operation::OperationRef;
use std::ffi::c_void;

/// What `main.mlirb` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The coreai dialect's bytecode (version [`coreai_asset::bytecode::VERSION`]):
    /// any coreai program; this project's tools read it.
    Coreai,
    /// coreai-core's versioned serialization, what its runtime loads
    /// (docs/aicode-format.md §5).
    Aicode,
}

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error(transparent)]
    Aicode(#[from] aicode::AicodeError),
    #[error("writing the program as bytecode failed")]
    Bytecode,
}

/// The program of `module` (a compiled `builtin.module`) in `format`.
pub fn program(module: OperationRef<'_, '_>, format: Format) -> Result<Vec<u8>, BackendError> {
    match format {
        Format::Coreai => bytecode(module, coreai_asset::bytecode::VERSION as i64),
        Format::Aicode => Ok(aicode::write(module.to_raw())?),
    }
}

/// `op` as MLIR bytecode of `version`, in memory.
pub fn bytecode(op: OperationRef<'_, '_>, version: i64) -> Result<Vec<u8>, BackendError> {
    let mut out: Vec<u8> = Vec::new();
    // SAFETY: the writer config lives across the call; the callback appends
    // to `out`, which outlives it.
    let ok = unsafe {
        let config = mlir_sys::mlirBytecodeWriterConfigCreate();
        mlir_sys::mlirBytecodeWriterConfigDesiredEmitVersion(config, version);
        let result = mlir_sys::mlirOperationWriteBytecodeWithConfig(
            op.to_raw(),
            config,
            Some(crate::ffi::append_to_vec),
            &mut out as *mut Vec<u8> as *mut c_void,
        );
        mlir_sys::mlirBytecodeWriterConfigDestroy(config);
        result.value != 0
    };
    if ok {
        Ok(out)
    } else {
        Err(BackendError::Bytecode)
    }
}
