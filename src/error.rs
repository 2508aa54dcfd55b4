//! Errors of the library.

/// What went wrong, with the text MLIR or the registry produced.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The source did not parse or verify; the diagnostics, one per line.
    #[error("{0}")]
    Parse(String),
    /// A textual pipeline names a pass nobody registered.
    #[error(
        "pipeline:1:{column}: unknown pass or pipeline '{name}'{}",
        if suggestions.is_empty() { String::new() } else { format!("; did you mean {}?", suggestions.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ")) }
    )]
    UnknownPass {
        name: String,
        column: usize,
        suggestions: Vec<String>,
    },
    /// The pipeline text is malformed (MLIR's message).
    #[error("invalid pass pipeline: {0}")]
    Pipeline(String),
    /// A pass failed; the diagnostics it emitted.
    #[error("{0}")]
    PassFailed(String),
    /// The backend could not write the compiled program.
    #[error(transparent)]
    Backend(#[from] crate::backend::BackendError),
}
