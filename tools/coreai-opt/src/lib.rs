//! The driver shared by `coreai-opt` and `coreai-compile`: MLIR's own
//! command-line options (IR printing, timing, threading), input files
//! (`.mlir`, `.mlirb`, `.aimodel`), outputs that replace their target only
//! on success, and one run of MLIR's `mlir-opt` main on a file.

use clap::Args;
use coreai::ffi;
use std::{
    ffi::{c_void, CString},
    fs::File,
    os::fd::{AsRawFd, RawFd},
    os::unix::fs::OpenOptionsExt,
    path::{Path, PathBuf},
};

/// The options that are MLIR's own, passed to it in LLVM's syntax.
#[derive(Args, Debug, Clone, Default)]
pub struct MlirFlags {
    /// Print IR before each pass.
    #[arg(long)]
    pub mlir_print_ir_before_all: bool,
    /// Print IR after each pass.
    #[arg(long)]
    pub mlir_print_ir_after_all: bool,
    /// Print IR after a pass only when it changed the IR.
    #[arg(long)]
    pub mlir_print_ir_after_change: bool,
    /// Print IR after a pass only when the pass failed.
    #[arg(long)]
    pub mlir_print_ir_after_failure: bool,
    /// Print IR before the named passes.
    #[arg(long, value_name = "PASS")]
    pub mlir_print_ir_before: Vec<String>,
    /// Print IR after the named passes.
    #[arg(long, value_name = "PASS")]
    pub mlir_print_ir_after: Vec<String>,
    /// Print the top-level operation when printing IR around passes.
    #[arg(long)]
    pub mlir_print_ir_module_scope: bool,
    /// Display execution times of parsing, each pass and printing.
    #[arg(long)]
    pub mlir_timing: bool,
    /// Timing display: `list` or `tree`.
    #[arg(long, value_name = "MODE")]
    pub mlir_timing_display: Option<String>,
    /// Print locations.
    #[arg(long)]
    pub mlir_print_debuginfo: bool,
    /// Print operations in the generic form.
    #[arg(long)]
    pub mlir_print_op_generic: bool,
    /// Print with local scope (no aliases).
    #[arg(long)]
    pub mlir_print_local_scope: bool,
    /// Elide elements attributes with more than N elements.
    #[arg(long, value_name = "N")]
    pub mlir_elide_elementsattrs_if_larger: Option<u64>,
    /// Run single-threaded.
    #[arg(long)]
    pub mlir_disable_threading: bool,
}

/// Why a run failed; [`OptError::Failed`] when MLIR printed the reasons.
#[derive(Debug, thiserror::Error)]
pub enum OptError {
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
    /// A command line that names something that does not exist.
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Asset(#[from] coreai_asset::AssetError),
    /// Printed as is: the location comes first, as MLIR prints its own.
    #[error(transparent)]
    Input(coreai::input_check::InputError),
    /// MLIR has printed the diagnostics already.
    #[error("")]
    Failed,
}

impl MlirFlags {
    /// The flags that are MLIR's own options, in LLVM's syntax.
    pub fn mlir_options(&self, program: &str) -> Vec<String> {
        let mut args = vec![program.to_string()];
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
pub fn normalize_args(args: impl Iterator<Item = String>) -> Vec<String> {
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

/// Opens the input for MLIR: mapped rather than read into memory, so that
/// bytecode resources (a model's weights) are used where they lie. The
/// bytes are checked for what crashes MLIR's readers before MLIR sees them.
pub fn open_input(path: &str) -> Result<ffi::CoreaiInputFile, OptError> {
    let input = map_input(path)?;
    let mut size = 0usize;
    let data = unsafe { ffi::coreaiInputFileGetBuffer(input, &mut size) };
    let bytes: &[u8] = if size == 0 {
        &[]
    } else {
        // SAFETY: the buffer stays alive until `input` is destroyed.
        unsafe { std::slice::from_raw_parts(data as *const u8, size) }
    };
    let name = if path == "-" { "<stdin>" } else { path };
    if let Err(e) = coreai::input_check::check_module_file(bytes, name) {
        unsafe { ffi::coreaiInputFileDestroy(input) };
        return Err(OptError::Input(e));
    }
    Ok(input)
}

fn map_input(path: &str) -> Result<ffi::CoreaiInputFile, OptError> {
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
/// written in place, or a file in the target's directory that replaces the
/// target only when everything succeeded, so a failed or interrupted run
/// never leaves a partial or clobbered output.
///
/// The file has no name while it is written (`O_TMPFILE`): a run killed by
/// any signal leaves nothing behind. Once the result is complete it is
/// linked under a temporary name and renamed over the target. Where the
/// file system has no `O_TMPFILE`, it is a named temporary file that the
/// crash handler removes on a fault and on SIGTERM, SIGINT and SIGHUP.
pub enum Output {
    Stdout,
    InPlace(File),
    Temporary {
        file: File,
        /// The temporary name: given only at the end when `anonymous`.
        tmp: PathBuf,
        anonymous: bool,
        target: PathBuf,
    },
}

impl Output {
    pub fn open(path: &str) -> Result<Output, OptError> {
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
        let anonymous = std::fs::OpenOptions::new()
            .write(true)
            .mode(0o666)
            .custom_flags(libc::O_TMPFILE)
            .open(&dir);
        let (file, anonymous) = match anonymous {
            Ok(file) => (file, true),
            // EISDIR/EOPNOTSUPP: no O_TMPFILE here; other errors show again.
            Err(_) => {
                let file = File::create(&tmp).map_err(err)?;
                coreai::crash_handler::set_temporary_output(Some(&tmp));
                (file, false)
            }
        };
        Ok(Output::Temporary {
            file,
            tmp,
            anonymous,
            target: target.to_path_buf(),
        })
    }

    pub fn fd(&self) -> RawFd {
        match self {
            Output::Stdout => std::io::stdout().as_raw_fd(),
            Output::InPlace(file) | Output::Temporary { file, .. } => file.as_raw_fd(),
        }
    }

    /// Keeps the output when `succeeded`, else drops the file.
    pub fn finish(self, succeeded: bool, path: &str) -> Result<(), OptError> {
        let Output::Temporary {
            file,
            tmp,
            anonymous,
            target,
        } = self
        else {
            return Ok(());
        };
        let err = |source| OptError::Write {
            path: path.to_string(),
            source,
        };
        if !succeeded {
            drop(file);
            if !anonymous {
                let _ = std::fs::remove_file(&tmp);
                coreai::crash_handler::set_temporary_output(None);
            }
            return Ok(());
        }
        if anonymous {
            // The complete result gets a name: linked through /proc (open(2)
            // on O_TMPFILE), then renamed over the target like a named one.
            coreai::crash_handler::set_temporary_output(Some(&tmp));
            let _ = std::fs::remove_file(&tmp);
            let linked = link_anonymous(&file, &tmp);
            drop(file);
            if let Err(e) = linked {
                coreai::crash_handler::set_temporary_output(None);
                return Err(err(e));
            }
        } else {
            drop(file);
        }
        let kept = std::fs::rename(&tmp, &target);
        if kept.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        coreai::crash_handler::set_temporary_output(None);
        kept.map_err(err)
    }
}

/// Gives the `O_TMPFILE` file `file` the name `path`.
fn link_anonymous(file: &File, path: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let proc = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
    let to = CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: two NUL-terminated paths that outlive the call.
    let status = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            proc.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if status == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// One run of MLIR's driver on one input file.
#[derive(Debug, Clone, Default)]
pub struct Job {
    /// The program name MLIR's options are parsed under.
    pub program: String,
    /// A `.mlir` or `.mlirb` file, an `.aimodel` asset, or `-` for stdin.
    pub input: String,
    /// The output file, or `-` for stdout.
    pub output: String,
    pub pipeline: String,
    pub split_input_marker: String,
    pub output_split_marker: String,
    pub verify_diagnostics: bool,
    pub verify_each: bool,
    pub emit_bytecode: bool,
    /// Bytecode version, or -1 for MLIR's current one.
    pub bytecode_version: i64,
    /// Check that the output, printed as text and as bytecode, parses back.
    pub verify_roundtrip: bool,
    /// Seconds MLIR may spend reading the input before SIGALRM (0: no
    /// limit); the caller installs the handler
    /// ([`coreai::crash_handler::arm_read_timeout`]).
    pub read_timeout: u32,
}

/// Runs `job`: checks the pipeline's pass names, hands MLIR its options,
/// parses the input, runs the pipeline and writes the output, which is
/// created or replaced only on success.
pub fn run_job(job: &Job, flags: &MlirFlags) -> Result<(), OptError> {
    run(job, flags, None)
}

/// Runs `job` as [`run_job`] does, but hands the module the pipeline leaves
/// to `sink` instead of writing an output (`job.output` is not used): the
/// module lives until `sink` returns. `sink` returns false when it failed,
/// having kept its reason; the result is then [`OptError::Failed`] and MLIR
/// adds no diagnostic.
pub fn run_job_into(
    job: &Job,
    flags: &MlirFlags,
    sink: &mut dyn FnMut(melior::ir::operation::OperationRef<'_, '_>) -> bool,
) -> Result<(), OptError> {
    run(job, flags, Some(sink))
}

type Sink<'s> = &'s mut dyn FnMut(melior::ir::operation::OperationRef<'_, '_>) -> bool;

unsafe extern "C" fn call_sink(module: mlir_sys::MlirOperation, user_data: *mut c_void) -> bool {
    // SAFETY: `user_data` is the `Sink` `run` passed, alive during the run;
    // `module` is the live module MLIR hands over.
    let sink = unsafe { &mut *(user_data as *mut Sink<'_>) };
    let module = unsafe { melior::ir::operation::OperationRef::from_raw(module) };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sink(module))).unwrap_or(false)
}

fn run(job: &Job, flags: &MlirFlags, mut sink: Option<Sink<'_>>) -> Result<(), OptError> {
    if !job.pipeline.is_empty() {
        coreai::pipeline::check_pass_names(&job.pipeline, &coreai::registry::all_pass_names())?;
    }
    let mlir_args = flags.mlir_options(&job.program);
    tracing::debug!(?mlir_args, "MLIR options");
    let c_args: Vec<CString> = mlir_args
        .iter()
        .map(|a| CString::new(a.as_str()).map_err(|_| OptError::MlirOption(a.clone())))
        .collect::<Result<_, _>>()?;
    let argv: Vec<*const std::ffi::c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
    if !unsafe { ffi::coreaiParseMlirOptions(argv.len() as i32, argv.as_ptr()) } {
        return Err(OptError::MlirOption(mlir_args[1..].join(" ")));
    }

    // An aicode program read back into coreai IR lives in a temporary file
    // as long as `program`.
    let program = if job.input == "-" {
        None
    } else {
        Some(coreai_asset::program_file(Path::new(&job.input))?)
    };
    let input_path = match &program {
        None => job.input.clone(),
        Some(p) => p.to_string_lossy().into_owned(),
    };
    let input = open_input(&input_path)?;
    let output_path = if sink.is_some() {
        "-"
    } else {
        job.output.as_str()
    };
    let output = match Output::open(output_path) {
        Ok(output) => output,
        Err(e) => {
            unsafe { ffi::coreaiInputFileDestroy(input) };
            return Err(e);
        }
    };
    let config = ffi::CoreaiOptConfig {
        pass_pipeline: ffi::string_ref(&job.pipeline),
        split_input_marker: ffi::string_ref(&job.split_input_marker),
        output_split_marker: ffi::string_ref(&job.output_split_marker),
        verify_diagnostics: job.verify_diagnostics,
        verify_each: job.verify_each,
        emit_bytecode: job.emit_bytecode,
        bytecode_version: job.bytecode_version,
        // The process ends when MLIR is done: freeing the module and the
        // context would only delay it.
        skip_teardown: true,
        verify_roundtrip: job.verify_roundtrip,
        read_timeout_seconds: job.read_timeout,
        sink: sink.as_ref().map(|_| call_sink as _),
        sink_user_data: sink
            .as_mut()
            .map_or(std::ptr::null_mut(), |s| s as *mut Sink<'_> as *mut c_void),
    };
    tracing::debug!(input = %job.input, pipeline = %job.pipeline, "running");
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
    output.finish(succeeded, output_path)?;
    match (succeeded, write_error.is_empty()) {
        (true, _) => Ok(()),
        (false, true) => Err(OptError::Failed),
        (false, false) => Err(OptError::Write {
            path: job.output.clone(),
            source: std::io::Error::other(String::from_utf8_lossy(&write_error).into_owned()),
        }),
    }
}

/// Logging for a driver binary: coreai's tracing events are all debug-level,
/// so the subscriber is set up only when `COREAI_LOG` asks for them (it
/// costs start-up time otherwise).
pub fn init_logging() {
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("COREAI_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }
}

/// Parses the command line with `mlir-opt`'s single-dash long options
/// accepted ([`normalize_args`]); on `--help`/`--version` or a usage error,
/// clap's message is printed and the exit status (0 or 1) returned.
pub fn parse_cli<C: clap::Parser>() -> Result<C, std::process::ExitCode> {
    parse_cli_from(std::env::args()).map_err(std::process::ExitCode::from)
}

/// [`parse_cli`] of the command line `args` (the program name first); the
/// error is the exit status.
pub fn parse_cli_from<C: clap::Parser>(args: impl IntoIterator<Item = String>) -> Result<C, u8> {
    C::try_parse_from(normalize_args(args.into_iter())).map_err(|e| {
        let _ = e.print();
        u8::from(e.use_stderr())
    })
}
