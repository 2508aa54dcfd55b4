//! coreai: an MLIR compiler from PyTorch (ATen, as `torch.export` names it) to
//! Apple's Core AI IR.
//!
//! This crate is the embeddable library: it loads the `aten`, `coreai` and
//! `coreaix` dialects into an MLIR context ([`context::create_context`]),
//! registers the project's passes so textual pipelines can name them next to
//! upstream MLIR passes ([`registry::register_all`]), and parses and runs
//! pipelines ([`Compiler`]).
//!
//! ```no_run
//! let compiler = coreai::Compiler::new();
//! let mut module = compiler.parse("func.func @f() { return }", "input.mlir")?;
//! compiler.run_pipeline(&mut module, "builtin.module(canonicalize,cse)")?;
//! println!("{}", module.as_operation());
//! # Ok::<(), coreai::Error>(())
//! ```

pub mod backend;
pub mod compile;
pub mod crash_handler;
pub mod error;
pub mod lowering;
pub mod pipeline;
pub mod registry;

// The layers the library ties together, under the names its users know:
// the IR layer (`coreai-ir`) and the passes (`coreai-passes`).
pub use coreai_ir::{
    context, deferred, diagnostics, dialects, emit, ffi, foreign_pass, input_check, pass, rewrite,
    schema, strings, symbols,
};
pub use coreai_passes as passes;
pub use coreai_passes::decomposition_table;

pub use error::Error;

use melior::{
    ir::{
        operation::{OperationLike, OperationRef},
        Module,
    },
    pass::PassManager,
    Context,
};
use std::{cell::RefCell, rc::Rc};

/// A compiler instance: one MLIR context with the project's dialects, and the
/// user lowerings registered on it.
pub struct Compiler {
    context: Context,
}

impl std::fmt::Debug for Compiler {
    /// Lists the user lowerings: the only trace of an override, since the
    /// emitted IR does not record which lowering produced it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiler")
            .field(
                "user_lowerings",
                &lowering::user_lowering_names(self.context.to_raw()),
            )
            .finish()
    }
}

impl Drop for Compiler {
    fn drop(&mut self) {
        lowering::forget(self.context.to_raw());
    }
}

impl Default for Compiler {
    fn default() -> Self {
        Self::new()
    }
}

impl Compiler {
    pub fn new() -> Self {
        registry::register_all();
        Self {
            context: context::create_context(),
        }
    }

    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Registers `lowering` for the op `qualified` (`my_lib::scaled_add.default`,
    /// `aten::add.Tensor`) in this compiler only. Replacing a built-in lowering
    /// of a reserved namespace (aten, coreai, coreaix, higher_order), or an
    /// earlier registration, needs `allow_override`. A registered lowering also
    /// makes `legalize-aten-to-coreai` accept the op.
    pub fn register_lowering(
        &self,
        qualified: &str,
        allow_override: bool,
        lowering: lowering::UserLowering,
    ) -> Result<(), lowering::RegisterError> {
        lowering::register_in_context(self.context.to_raw(), qualified, allow_override, lowering)
    }

    /// Parses and verifies `source`; `name` is the file name diagnostics cite.
    pub fn parse(&self, source: &str, name: &str) -> Result<Module<'_>, Error> {
        self.parse_bytes(source.as_bytes(), name)
    }

    /// Parses and verifies MLIR text or bytecode (`.mlirb`, told apart by
    /// its magic number, as `mlir-opt` does). The bytes are checked first for
    /// what crashes MLIR's reader ([`input_check`]), the parsed IR for what it
    /// accepts but nothing downstream handles (negative dimensions, strings
    /// that are not UTF-8).
    pub fn parse_bytes(&self, source: &[u8], name: &str) -> Result<Module<'_>, Error> {
        input_check::check_module_file(source, name).map_err(|e| Error::Parse(format!("{e}\n")))?;
        let (module, diagnostics) = self.with_diagnostics(|| {
            let module = unsafe {
                Module::from_option_raw(ffi::coreaiParseModule(
                    self.context.to_raw(),
                    ffi::bytes_ref(source),
                    ffi::string_ref(name),
                ))
            }?;
            let op = module.as_operation().to_raw();
            let clean = unsafe {
                ffi::coreaiCheckLoadedIR(op)
                    && ffi::coreaiAttachExternalWeights(op, ffi::string_ref(name))
            };
            (clean && module.as_operation().verify()).then_some(module)
        });
        module.ok_or(Error::Parse(diagnostics))
    }

    /// Runs the anchored textual `pipeline` (`builtin.module(...)`) on
    /// `module`, with the verifier after every pass.
    pub fn run_pipeline(&self, module: &mut Module<'_>, pipeline: &str) -> Result<(), Error> {
        let op = module.as_operation();
        let (result, diagnostics) = self.with_diagnostics(|| run_pipeline_on(op, pipeline));
        result.map_err(|e| match e {
            Error::PassFailed(_) => Error::PassFailed(diagnostics),
            e => e,
        })
    }

    /// [`Compiler::run_pipeline`], returning the diagnostics the passes
    /// emitted (remarks and warnings, one per line) when it succeeds.
    pub fn run_pipeline_diagnostics(
        &self,
        module: &mut Module<'_>,
        pipeline: &str,
    ) -> Result<String, Error> {
        let op = module.as_operation();
        let (result, diagnostics) = self.with_diagnostics(|| run_pipeline_on(op, pipeline));
        match result {
            Ok(()) => Ok(diagnostics),
            Err(Error::PassFailed(_)) => Err(Error::PassFailed(diagnostics)),
            Err(e) => Err(e),
        }
    }

    /// Runs `f`, collecting the diagnostics emitted meanwhile, one per line;
    /// an error after the first is a follow-on of the same fault, dropped.
    fn with_diagnostics<T>(&self, f: impl FnOnce() -> T) -> (T, String) {
        let collected = Rc::new(RefCell::new(String::new()));
        let sink = collected.clone();
        let mut seen_error = false;
        let id = self.context.attach_diagnostic_handler(move |diagnostic| {
            let is_error = matches!(
                diagnostic.severity(),
                melior::diagnostic::DiagnosticSeverity::Error
            );
            if is_error && seen_error {
                return true;
            }
            seen_error |= is_error;
            let severity = match diagnostic.severity() {
                melior::diagnostic::DiagnosticSeverity::Error => "error",
                melior::diagnostic::DiagnosticSeverity::Warning => "warning",
                melior::diagnostic::DiagnosticSeverity::Note => "note",
                melior::diagnostic::DiagnosticSeverity::Remark => "remark",
            };
            let location = plain_location(&diagnostic.location().to_string());
            sink.borrow_mut()
                .push_str(&format!("{location}: {severity}: {diagnostic}\n"));
            true
        });
        let value = f();
        self.context.detach_diagnostic_handler(id);
        let text = collected.borrow().clone();
        (value, text)
    }
}

/// Runs the anchored textual `pipeline` on `op` (a `builtin.module` in any
/// context with the project's dialects loaded), with the verifier after
/// every pass. A failed pass has reported to the context's diagnostic
/// handlers; the error then carries no text.
pub fn run_pipeline_on(op: OperationRef<'_, '_>, pipeline: &str) -> Result<(), Error> {
    registry::register_all();
    pipeline::check_pass_names(pipeline, &registry::all_pass_names())?;
    let context = op.context();
    // SAFETY: the context outlives the pass manager, dropped at the end.
    let manager = PassManager::new(unsafe { context.to_ref() });
    manager.enable_verifier(true);
    melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
        .map_err(|e| Error::Pipeline(e.to_string()))?;
    // SAFETY: `op` is a live operation of `context`.
    let result = unsafe { mlir_sys::mlirPassManagerRunOnOp(manager.to_raw(), op.to_raw()) };
    if result.value != 0 {
        Ok(())
    } else {
        Err(Error::PassFailed(String::new()))
    }
}

/// `loc("f.mlir":2:3)` → `f.mlir:2:3`, the form compilers print; other
/// locations are kept as printed.
fn plain_location(printed: &str) -> String {
    let inner = printed
        .strip_prefix("loc(")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(printed);
    match inner.strip_prefix('"').and_then(|s| s.split_once('"')) {
        Some((file, rest)) if rest.starts_with(':') => format!("{file}{rest}"),
        _ => inner.to_string(),
    }
}
