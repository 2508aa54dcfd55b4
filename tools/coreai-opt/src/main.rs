//! `coreai-opt`: the mlir-opt of the coreai dialects and passes.
//!
//! The command line is parsed here (clap); parsing, diagnostics,
//! `--verify-diagnostics`, `--split-input-file`, pass instrumentation and
//! printing are MLIR's own driver, so flags shared with `mlir-opt` behave the
//! same. The output file is written only when everything succeeded.

use clap::{ArgAction, Parser};
use coreai::{ffi, pipeline, registry};
use std::{
    ffi::{c_void, CString},
    fs::File,
    os::fd::{AsRawFd, RawFd},
    path::{Path, PathBuf},
    process::ExitCode,
};
use tracing::debug;

#[derive(Parser, Debug)]
#[command(
    name = "coreai-opt",
    version,
    about = "Parse, verify, transform and print MLIR with the aten, coreai and coreaix dialects",
    long_about = None
)]
struct Cli {
    /// Input file, or `-` for stdin.
    #[arg(default_value = "-")]
    input: String,

    /// Output file, or `-` for stdout.
    #[arg(short = 'o', default_value = "-", value_name = "FILE")]
    output: String,

    /// Textual pass pipeline, e.g. `builtin.module(func.func(cse),canonicalize)`.
    #[arg(long, value_name = "PIPELINE")]
    pass_pipeline: Option<String>,

    /// Split the input at MARKER (default `// -----`) and process each chunk independently.
    #[arg(long, value_name = "MARKER", num_args = 0..=1, default_missing_value = "// -----")]
    split_input_file: Option<String>,

    /// Marker written between the outputs of split chunks.
    #[arg(long, value_name = "MARKER", default_value = "")]
    output_split_marker: String,

    /// Check that emitted diagnostics match the `expected-*` comments in the input.
    #[arg(long)]
    verify_diagnostics: bool,

    /// Run the verifier after each pass.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = ArgAction::Set,
          num_args = 0..=1, default_missing_value = "true")]
    verify_each: bool,

    /// Emit MLIR bytecode instead of text.
    #[arg(long)]
    emit_bytecode: bool,

    /// Bytecode version to emit (with --emit-bytecode).
    #[arg(long, value_name = "N", requires = "emit_bytecode")]
    emit_bytecode_version: Option<i64>,

    /// List the registered passes and pipelines with their options, and exit.
    #[arg(long)]
    list_passes: bool,

    /// Print IR before each pass.
    #[arg(long)]
    mlir_print_ir_before_all: bool,
    /// Print IR after each pass.
    #[arg(long)]
    mlir_print_ir_after_all: bool,
    /// Print IR after a pass only when it changed the IR.
    #[arg(long)]
    mlir_print_ir_after_change: bool,
    /// Print IR after a pass only when the pass failed.
    #[arg(long)]
    mlir_print_ir_after_failure: bool,
    /// Print IR before the named passes.
    #[arg(long, value_name = "PASS")]
    mlir_print_ir_before: Vec<String>,
    /// Print IR after the named passes.
    #[arg(long, value_name = "PASS")]
    mlir_print_ir_after: Vec<String>,
    /// Print the top-level operation when printing IR around passes.
    #[arg(long)]
    mlir_print_ir_module_scope: bool,
    /// Display execution times of parsing, each pass and printing.
    #[arg(long)]
    mlir_timing: bool,
    /// Timing display: `list` or `tree`.
    #[arg(long, value_name = "MODE")]
    mlir_timing_display: Option<String>,
    /// Print locations.
    #[arg(long)]
    mlir_print_debuginfo: bool,
    /// Print operations in the generic form.
    #[arg(long)]
    mlir_print_op_generic: bool,
    /// Print with local scope (no aliases).
    #[arg(long)]
    mlir_print_local_scope: bool,
    /// Elide elements attributes with more than N elements.
    #[arg(long, value_name = "N")]
    mlir_elide_elementsattrs_if_larger: Option<u64>,
    /// Run single-threaded.
    #[arg(long)]
    mlir_disable_threading: bool,
}

#[derive(Debug, thiserror::Error)]
enum OptError {
    #[error("cannot read '{path}': {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write '{path}': {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Pipeline(#[from] coreai::Error),
    #[error("invalid MLIR option: {0}")]
    MlirOption(String),
    /// MLIR has printed the diagnostics already.
    #[error("")]
    Failed,
}

impl Cli {
    /// The flags that are MLIR's own options, in LLVM's syntax.
    fn mlir_options(&self) -> Vec<String> {
        let mut args = vec!["coreai-opt".to_string()];
        let flags = [
            (self.mlir_print_ir_before_all, "--mlir-print-ir-before-all"),
            (self.mlir_print_ir_after_all, "--mlir-print-ir-after-all"),
            (
                self.mlir_print_ir_after_change,
                "--mlir-print-ir-after-change",
            ),
            (
                self.mlir_print_ir_after_failure,
                "--mlir-print-ir-after-failure",
            ),
            (
                self.mlir_print_ir_module_scope,
                "--mlir-print-ir-module-scope",
            ),
            (self.mlir_timing, "--mlir-timing"),
            (self.mlir_print_debuginfo, "--mlir-print-debuginfo"),
            (self.mlir_print_op_generic, "--mlir-print-op-generic"),
            (self.mlir_print_local_scope, "--mlir-print-local-scope"),
            (self.mlir_disable_threading, "--mlir-disable-threading"),
        ];
        args.extend(
            flags
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, f)| f.to_string()),
        );
        args.extend(
            self.mlir_print_ir_before
                .iter()
                .map(|p| format!("--mlir-print-ir-before={p}")),
        );
        args.extend(
            self.mlir_print_ir_after
                .iter()
                .map(|p| format!("--mlir-print-ir-after={p}")),
        );
        if let Some(mode) = &self.mlir_timing_display {
            args.push(format!("--mlir-timing-display={mode}"));
        }
        if let Some(n) = self.mlir_elide_elementsattrs_if_larger {
            args.push(format!("--mlir-elide-elementsattrs-if-larger={n}"));
        }
        args
    }
}

/// LLVM's option syntax accepts one dash for long options (`-split-input-file`);
/// so does coreai-opt, as mlir-opt test files use both spellings.
fn normalize_args(args: impl Iterator<Item = String>) -> Vec<String> {
    args.enumerate()
        .map(|(i, arg)| {
            let is_short_o = arg == "-o" || arg.starts_with("-o=");
            let single_dash_long = !arg.starts_with("--")
                && arg.len() > 2
                && arg.starts_with('-')
                && arg.as_bytes()[1].is_ascii_alphabetic();
            if i > 0 && single_dash_long && !is_short_o {
                format!("-{arg}")
            } else {
                arg
            }
        })
        .collect()
}

fn list_passes() {
    let mut out = String::from("coreai passes:\n");
    for pass in registry::PASSES {
        out.push_str(&format!("  {}  -  {}\n", pass.name, pass.summary));
        for option in pass.options {
            out.push_str(&format!(
                "      {}=<value>  -  {} (default: {})\n",
                option.name, option.help, option.default
            ));
        }
    }
    out.push_str("coreai pipelines:\n");
    for pipeline in registry::PIPELINES {
        out.push_str(&format!(
            "  {}  -  {}\n      expands to: {}\n",
            pipeline.name, pipeline.summary, pipeline.expansion
        ));
    }
    out.push_str("upstream MLIR passes:\n");
    for (name, description) in registry::upstream_passes() {
        out.push_str(&format!("  {name}  -  {description}\n"));
    }
    print!("{out}");
}

/// Opens the input for MLIR: mapped rather than read into memory, so that
/// bytecode resources (a model's weights) are used where they lie.
fn open_input(path: &str) -> Result<ffi::CoreaiInputFile, OptError> {
    let mut reason: Vec<u8> = Vec::new();
    let input = unsafe {
        ffi::coreaiInputFileOpen(
            ffi::string_ref(path),
            Some(ffi::append_to_vec),
            &mut reason as *mut Vec<u8> as *mut c_void,
        )
    };
    if input.ptr.is_null() {
        return Err(OptError::Read {
            path: path.to_string(),
            source: std::io::Error::other(String::from_utf8_lossy(&reason).into_owned()),
        });
    }
    Ok(input)
}

/// Where the output goes while MLIR writes it: stdout, a device or pipe
/// written in place, or a temporary file in the target's directory that
/// replaces the target only when everything succeeded, so a failed run never
/// leaves a partial or clobbered output.
enum Output {
    Stdout,
    InPlace(File),
    Temporary {
        file: File,
        tmp: PathBuf,
        target: PathBuf,
    },
}

impl Output {
    fn open(path: &str) -> Result<Output, OptError> {
        let err = |source| OptError::Write {
            path: path.to_string(),
            source,
        };
        if path == "-" {
            return Ok(Output::Stdout);
        }
        let target = Path::new(path);
        if std::fs::metadata(target).is_ok_and(|m| !m.is_file()) {
            return File::create(target).map(Output::InPlace).map_err(err);
        }
        let dir = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let file_name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(
            ".{file_name}.coreai-opt-{}.tmp",
            std::process::id()
        ));
        let file = File::create(&tmp).map_err(err)?;
        Ok(Output::Temporary {
            file,
            tmp,
            target: target.to_path_buf(),
        })
    }

    fn fd(&self) -> RawFd {
        match self {
            Output::Stdout => std::io::stdout().as_raw_fd(),
            Output::InPlace(file) | Output::Temporary { file, .. } => file.as_raw_fd(),
        }
    }

    /// Keeps the output when `succeeded`, else drops the temporary file.
    fn finish(self, succeeded: bool, path: &str) -> Result<(), OptError> {
        let Output::Temporary { file, tmp, target } = self else {
            return Ok(());
        };
        drop(file);
        let kept = if succeeded {
            std::fs::rename(&tmp, &target)
        } else {
            Ok(())
        };
        if !succeeded || kept.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        kept.map_err(|source| OptError::Write {
            path: path.to_string(),
            source,
        })
    }
}

fn run(cli: &Cli) -> Result<(), OptError> {
    registry::register_all();
    coreai_interp::fold::install();
    if cli.list_passes {
        list_passes();
        return Ok(());
    }

    let pipeline_text = cli.pass_pipeline.clone().unwrap_or_default();
    if !pipeline_text.is_empty() {
        pipeline::check_pass_names(&pipeline_text, &registry::all_pass_names())?;
    }

    let mlir_args = cli.mlir_options();
    debug!(?mlir_args, "MLIR options");
    let c_args: Vec<CString> = mlir_args
        .iter()
        .map(|a| CString::new(a.as_str()).map_err(|_| OptError::MlirOption(a.clone())))
        .collect::<Result<_, _>>()?;
    let argv: Vec<*const std::ffi::c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
    if !unsafe { ffi::coreaiParseMlirOptions(argv.len() as i32, argv.as_ptr()) } {
        return Err(OptError::MlirOption(mlir_args[1..].join(" ")));
    }

    let input = open_input(&cli.input)?;
    let output = match Output::open(&cli.output) {
        Ok(output) => output,
        Err(e) => {
            unsafe { ffi::coreaiInputFileDestroy(input) };
            return Err(e);
        }
    };
    let split_marker = cli.split_input_file.clone().unwrap_or_default();
    let config = ffi::CoreaiOptConfig {
        pass_pipeline: ffi::string_ref(&pipeline_text),
        split_input_marker: ffi::string_ref(&split_marker),
        output_split_marker: ffi::string_ref(&cli.output_split_marker),
        verify_diagnostics: cli.verify_diagnostics,
        verify_each: cli.verify_each,
        emit_bytecode: cli.emit_bytecode,
        bytecode_version: cli.emit_bytecode_version.unwrap_or(-1),
        // The process ends when MLIR is done: freeing the module and the
        // context would only delay it.
        skip_teardown: true,
    };
    debug!(input = %cli.input, pipeline = %pipeline_text, "running");
    // Like mlir-opt, stdout gets what succeeded (the chunks of a split input
    // that passed); a file is created or replaced only on success.
    let mut write_error: Vec<u8> = Vec::new();
    let result = unsafe {
        ffi::coreaiOptMainFile(
            input,
            &config,
            output.fd(),
            Some(ffi::append_to_vec),
            &mut write_error as *mut Vec<u8> as *mut c_void,
        )
    };
    let succeeded = result.value != 0;
    output.finish(succeeded, &cli.output)?;
    match (succeeded, write_error.is_empty()) {
        (true, _) => Ok(()),
        (false, true) => Err(OptError::Failed),
        (false, false) => Err(OptError::Write {
            path: cli.output.clone(),
            source: std::io::Error::other(String::from_utf8_lossy(&write_error).into_owned()),
        }),
    }
}

fn main() -> ExitCode {
    // coreai's tracing events are all debug-level: the subscriber is needed
    // only when COREAI_LOG asks for them, and costs start-up time otherwise.
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("COREAI_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }

    let cli = match Cli::try_parse_from(normalize_args(std::env::args())) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(OptError::Failed) => ExitCode::from(1),
        Err(e) => {
            eprintln!("coreai-opt: error: {e}");
            ExitCode::from(1)
        }
    }
}
