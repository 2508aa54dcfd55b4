//! Errors of the executor. Every error that comes from an op carries the op's
//! name and MLIR location.

/// What went wrong while loading inputs or executing a module.
#[derive(Debug, thiserror::Error)]
pub enum InterpError {
    /// The source did not parse or verify.
    #[error("{0}")]
    Parse(String),
    /// No `func.func` or `coreai.graph` of that name.
    #[error("no entry point named '{name}'; the module defines: {available}")]
    NoEntry { name: String, available: String },
    /// The op is known to a dialect but the executor has no kernel for it.
    #[error("{loc}: not executable: {op}")]
    NotExecutable { op: String, loc: String },
    /// An op failed: bad attribute, shape mismatch, integer division by zero …
    #[error("{loc}: {op}: {msg}")]
    Op {
        op: String,
        loc: String,
        msg: String,
    },
    /// A kernel-level failure not yet tied to an op (wrapped into `Op`).
    #[error("{0}")]
    Kernel(String),
    /// An input is missing or does not match the entry's signature.
    #[error("input '{name}': {msg}")]
    Input { name: String, msg: String },
    /// Reading or writing a .npz file failed.
    #[error("{path}: {msg}")]
    Io { path: String, msg: String },
}

/// Result of kernels: a message, wrapped with the op and location by the
/// dispatcher.
pub type KResult<T> = Result<T, InterpError>;

/// A kernel error from a message.
pub fn kerr<T>(msg: impl Into<String>) -> KResult<T> {
    Err(InterpError::Kernel(msg.into()))
}
