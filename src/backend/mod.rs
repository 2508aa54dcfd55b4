//! The backend: a compiled coreai module as the program an `.aimodel`
//! asset holds (`main.mlirb`), in one of two [`Format`]s, and the linking
//! of several compiled programs into one multi-function module.
//!
//! The module is read where it is: the aicode writer walks it in place and
//! hands each weight's bytes to the serializer (`coreai_asset::aicode`);
//! nothing is written to disk here.

pub mod aicode;
pub mod link;
pub mod roundtrip;

use melior::ir::operation::OperationRef;
use std::{ffi::c_void, io::Write};

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
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The program of `module` (a compiled `builtin.module`) in `format`.
pub fn program(module: OperationRef<'_, '_>, format: Format) -> Result<Vec<u8>, BackendError> {
    let mut out = Vec::new();
    write_program(module, format, &mut out)?;
    Ok(out)
}

/// [`program`], streamed to `out` (the weights straight from the module's
/// blobs).
pub fn write_program(
    module: OperationRef<'_, '_>,
    format: Format,
    out: &mut dyn coreai_asset::Sink,
) -> Result<(), BackendError> {
    match format {
        Format::Coreai => write_bytecode(module, coreai_asset::bytecode::VERSION as i64, out),
        Format::Aicode => aicode::write_into(module.to_raw(), out),
    }
}

/// `op` as MLIR bytecode of `version`, streamed to `out`.
pub fn write_bytecode(
    op: OperationRef<'_, '_>,
    version: i64,
    out: &mut dyn Write,
) -> Result<(), BackendError> {
    struct Sink<'w> {
        out: &'w mut dyn Write,
        error: Option<std::io::Error>,
    }
    unsafe extern "C" fn piece(s: mlir_sys::MlirStringRef, user_data: *mut c_void) {
        // SAFETY: `user_data` is the `Sink` below, alive during the write.
        let sink = unsafe { &mut *(user_data as *mut Sink<'_>) };
        if sink.error.is_none() {
            let bytes: &[u8] = if s.length == 0 {
                &[]
            } else {
                unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) }
            };
            if let Err(e) = sink.out.write_all(bytes) {
                sink.error = Some(e);
            }
        }
    }
    let mut sink = Sink { out, error: None };
    // SAFETY: the writer config lives across the call; `sink` outlives it.
    let ok = unsafe {
        let config = mlir_sys::mlirBytecodeWriterConfigCreate();
        mlir_sys::mlirBytecodeWriterConfigDesiredEmitVersion(config, version);
        let result = mlir_sys::mlirOperationWriteBytecodeWithConfig(
            op.to_raw(),
            config,
            Some(piece),
            &mut sink as *mut Sink<'_> as *mut c_void,
        );
        mlir_sys::mlirBytecodeWriterConfigDestroy(config);
        result.value != 0
    };
    match (ok, sink.error) {
        (_, Some(e)) => Err(e.into()),
        (true, None) => Ok(()),
        (false, None) => Err(BackendError::Bytecode),
    }
}

/// `op` as MLIR bytecode of `version`, in memory.
pub fn bytecode(op: OperationRef<'_, '_>, version: i64) -> Result<Vec<u8>, BackendError> {
    let mut out = Vec::new();
    write_bytecode(op, version, &mut out)?;
    Ok(out)
}
