//! `coreai-compile`: an imported PyTorch program to an `.aimodel` asset.
//!
//! The input is an aten module from `coreai_export`, a coreai module, MLIR
//! bytecode, or an asset this project wrote. The library's pipeline
//! (`coreai::compile`) runs in one MLIR driver run, with MLIR's own options
//! (`--mlir-print-ir-*`, `--mlir-timing`); the library's backend
//! (`coreai::backend`) turns the module it leaves into the asset's program
//! in memory, and `coreai_asset::write` puts that into the asset next to
//! `metadata.json` and `main.hash`. `--compile-to STAGE` stops after a stage
//! and prints the IR instead. Nothing but the output is written, and a
//! failure writes nothing and replaces nothing.

mod cli;

use clap::Parser;
use cli::{FormatArg, IoArg, PrecisionArg, StageArg, TargetArg};
use coreai::{
    backend::{self, link, BackendError},
    compile::{CompileOptions, Stage},
};
use coreai_asset::Metadata;
use coreai_opt::{run_job, run_job_into, Job, MlirFlags, OptError};
use std::{
    ffi::{c_char, c_int, c_void, CStr},
    path::PathBuf,
};

#[derive(Parser, Debug)]
#[command(
    name = "coreai-compile",
    version,
    about = "Compile an imported PyTorch program (aten or coreai MLIR, .mlirb, .aimodel) to an .aimodel asset",
    long_about = None
)]
struct Cli {
    /// The program: `.mlir` (aten or coreai), `.mlirb`, or an `.aimodel` asset.
    #[arg(required_unless_present_any = ["entry", "print_aten_support"])]
    input: Option<String>,

    /// Print every ATen overload the compiler handles, one per line:
    /// `name.overload<TAB>decompose`, `lower` or `decompose,lower`, and exit.
    #[arg(long, exclusive = true)]
    print_aten_support: bool,

    /// `NAME=FILE`: a multi-function asset whose function NAME is FILE's
    /// `@main` (repeat for each function, e.g. prefill and decode).
    #[arg(long, value_name = "NAME=FILE", conflicts_with_all = ["input", "compile_to"])]
    entry: Vec<String>,

    /// The asset to write (`NAME.aimodel`); with --compile-to, the IR file (default stdout).
    #[arg(short = 'o', value_name = "PATH")]
    output: Option<String>,

    /// Device to compile for: `cpu` (no target passes), `gpu` (`target-gpu`:
    /// floor/ceil/trunc/round in forms the GPU delegate computes exactly) or
    /// `ane` (f16 compute, `target-ane`: rank-4 matmuls, (V, 1, D)
    /// embedding tables).
    #[arg(long, value_enum, default_value_t = TargetArg::CPU)]
    target: TargetArg,

    /// Compute precision: `f16` ends the optimized stage with `cast-to-f16`
    /// (f16 compute, f32 signature, fp32 islands where values need them).
    /// Default: f16 for `--target ane`, f32 otherwise.
    #[arg(long, value_enum)]
    precision: Option<PrecisionArg>,

    /// Input and output types: `model` keeps the model's (f32 inputs and
    /// outputs, cast at the boundary when it computes in f16); `f16` gives
    /// the Neural Engine's: f16 for f32, and with `--target ane` si16 for
    /// an integer input that indexes gathers of at most 32767 rows
    /// (`narrow-integers{inputs=true}`). The caller then passes and gets those
    /// types. Default: f16 for `--target ane` in f16, model otherwise.
    #[arg(long, value_enum)]
    io: Option<IoArg>,

    /// Print to stderr one remark per op the precision and target passes
    /// rewrite (or, for cast-to-f16, keep in f32), with the reason; with
    /// `--target ane`, also the residency report (`ane-residency`): each op
    /// that would leave the Neural Engine, the rule it breaks and its
    /// source line, then `N of M ops Neural-Engine-resident`; with
    /// `--compress`, one line per weight: its compressed form and error.
    #[arg(long)]
    explain: bool,

    /// With `--target ane`: fail (exit 1, one error per op) when any op
    /// would leave the Neural Engine (`ane-residency{require-resident=true}`).
    #[arg(long)]
    require_resident: bool,

    /// Stop after STAGE and print its IR (text) instead of writing an asset.
    #[arg(long, value_enum, value_name = "STAGE")]
    compile_to: Option<StageArg>,

    /// What `main.mlirb` holds: `aicode`, coreai-core's versioned
    /// serialization (what coreai-core's runtime loads, and coreai-opt,
    /// coreai-run, coreai-freqop and coreai-graphdiff read back; every
    /// corpus model, docs/aicode-format.md §5), or `coreai`, the coreai
    /// dialect's bytecode (any coreai program; our tools only).
    #[arg(long, value_enum, default_value_t = FormatArg::AICODE)]
    format: FormatArg,

    /// Enumerated static shapes are specialized when the PyTorch program is
    /// exported, one export per configuration: this flag only says so (use
    /// `coreai-export ... -o NAME.aimodel --static-shapes KEY:INPUT=DxD`).
    #[arg(long, value_name = "KEY:INPUT=DxD")]
    static_shapes: Vec<String>,

    /// `NAME=BACKING:ALIGNMENTS:INTERLEAVE`: give the input or output NAME
    /// (its `coreai.name`) a `#coreaix.hw_constraints` encoding, as
    /// coreai-core's `set_hardware_constraints` does (e.g.
    /// `x=IOSurface:1x1x32x1:1x1x1`; BACKING is MTLBuffer, IOSurface or
    /// Heap). With --entry, every entry must have NAME, or `ENTRY/NAME=...`
    /// gives it to that entry only. Repeatable.
    #[arg(long, value_name = "NAME=BACKING:ALIGNMENTS:INTERLEAVE")]
    hw_constraints: Vec<String>,

    /// `KEY=VALUE` for metadata.json: `author`, `license`, `description`, or
    /// any other key (stored under `creatorDefinedMetadata`). Repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    metadata: Vec<String>,

    /// Compress the weights: a preset (`int8`, `int4-block32`,
    /// `int4-block64`) or a compression pass with its options
    /// (`quantize-weights{dtype=uint4 qscheme=asymmetric granularity=per-block
    /// block-size=16}`; docs/compression.md).
    #[arg(long, value_name = "SPEC", value_parser = coreai::compile::Compression::parse)]
    compress: Option<coreai::compile::Compression>,

    #[command(flatten)]
    mlir: MlirFlags,
}

#[derive(Debug, thiserror::Error)]
enum CompileError {
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error(transparent)]
    Opt(#[from] OptError),
    #[error(transparent)]
    Asset(#[from] coreai_asset::AssetError),
    #[error(transparent)]
    Link(#[from] link::LinkError),
    #[error("--entry {name}={file}: the program has no @main")]
    NoMain { name: String, file: String },
    #[error("--entry {0}: the name is given twice")]
    Duplicate(String),
    #[error("--entry '{0}': expected NAME=FILE")]
    Entry(String),
    #[error("--hw-constraints {0}")]
    HwConstraints(String),
    #[error("--metadata '{0}': expected KEY=VALUE")]
    Metadata(String),
    #[error(
        "--static-shapes needs the PyTorch program (one export per configuration): use \
         `coreai-export ... -o NAME.aimodel --static-shapes KEY:INPUT=DxD` or \
         `coreai_export.convert(..., static_shapes=...)`"
    )]
    StaticShapes,
    #[error("no output: give -o NAME.aimodel (or --compile-to STAGE to print IR)")]
    NoOutput,
    #[error("'{0}': an asset's name must end in .aimodel")]
    Extension(String),
    #[error("cannot read '{path}': {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
}

fn metadata(cli: &Cli) -> Result<Metadata, CompileError> {
    let mut m = Metadata::new(&format!("coreai {}", env!("CARGO_PKG_VERSION")));
    for entry in &cli.metadata {
        let (key, value) = entry
            .split_once('=')
            .filter(|(k, _)| !k.is_empty())
            .ok_or_else(|| CompileError::Metadata(entry.clone()))?;
        m.set(key, value);
    }
    Ok(m)
}

/// The input must exist before MLIR is asked to read it; a `.pt2` goes
/// through the importer first.
fn check_input(input: &str) -> Result<(), CompileError> {
    if input.ends_with(".pt2") {
        return Err(CompileError::Read {
            path: input.into(),
            source: std::io::Error::other(
                "an ExportedProgram: import it first with `coreai-export --exported-program`",
            ),
        });
    }
    std::fs::metadata(input)
        .map(drop)
        .map_err(|source| CompileError::Read {
            path: input.into(),
            source,
        })
}

/// `--entry NAME=FILE` pairs, in order.
fn entries(cli: &Cli) -> Result<Vec<(String, String)>, CompileError> {
    cli.entry
        .iter()
        .map(|e| {
            e.split_once('=')
                .filter(|(n, f)| !n.is_empty() && !f.is_empty())
                .map(|(n, f)| (n.to_string(), f.to_string()))
                .ok_or_else(|| CompileError::Entry(e.clone()))
        })
        .collect()
}

fn run(cli: &Cli) -> Result<(), CompileError> {
    if cli.print_aten_support {
        use std::fmt::Write;
        let mut out = String::new();
        for s in coreai::decomposition_table::aten_support() {
            let how = match (s.decomposed, s.lowered) {
                (true, true) => "decompose,lower",
                (true, false) => "decompose",
                _ => "lower",
            };
            let _ = writeln!(out, "{}\t{how}", s.key);
        }
        print!("{out}");
        return Ok(());
    }
    if !cli.static_shapes.is_empty() {
        return Err(CompileError::StaticShapes);
    }
    for item in &cli.hw_constraints {
        coreai::passes::set_hw_constraints::check_item(scoped(item).1)
            .map_err(CompileError::HwConstraints)?;
    }
    coreai::registry::register_all();
    let entries = entries(cli)?;
    for item in &cli.hw_constraints {
        if let (Some(entry), _) = scoped(item) {
            if !entries.iter().any(|(name, _)| name == entry) {
                return Err(CompileError::HwConstraints(format!(
                    "'{item}': no --entry named '{entry}' (ENTRY/NAME=... constrains one entry's NAME)"
                )));
            }
        }
    }
    let inputs: Vec<&str> = match &cli.input {
        Some(input) => vec![input.as_str()],
        None => entries.iter().map(|(_, f)| f.as_str()).collect(),
    };
    for input in &inputs {
        check_input(input)?;
    }
    let metadata = metadata(cli)?;
    let options = CompileOptions {
        target: cli.target.0,
        precision: cli.precision.map(|p| p.0),
        io: cli.io.map(|i| i.0),
        explain: cli.explain,
        require_resident: cli.require_resident,
        hw_constraints: cli
            .hw_constraints
            .iter()
            .filter(|item| scoped(item).0.is_none())
            .cloned()
            .collect(),
        format: cli.format.0,
        compress: cli.compress.clone(),
    };
    let stage = cli.compile_to.map_or(Stage::Target, |s| s.0);
    // An entry's pipeline: the constraints of every entry and its own.
    let entry_options = |entry: &str| CompileOptions {
        hw_constraints: cli
            .hw_constraints
            .iter()
            .filter_map(|item| match scoped(item) {
                (None, item) => Some(item.to_string()),
                (Some(e), item) if e == entry => Some(item.to_string()),
                _ => None,
            })
            .collect(),
        ..options.clone()
    };
    let job_with = |input: &str, options: &CompileOptions| Job {
        program: "coreai-compile".into(),
        input: input.to_string(),
        pipeline: options.pipeline(stage),
        verify_each: true,
        bytecode_version: -1,
        ..Job::default()
    };
    let job = |input: &str| job_with(input, &options);
    if cli.compile_to.is_some() {
        let first = entries
            .first()
            .map_or_else(|| options.clone(), |(name, _)| entry_options(name));
        let mut job = job_with(inputs[0], &first);
        job.output = cli.output.clone().unwrap_or_else(|| "-".into());
        return Ok(run_job(&job, &cli.mlir)?);
    }
    let target = PathBuf::from(cli.output.as_deref().ok_or(CompileError::NoOutput)?);
    if target
        .extension()
        .is_none_or(|e| e != coreai_asset::EXTENSION)
    {
        return Err(CompileError::Extension(target.display().to_string()));
    }
    if std::fs::symlink_metadata(&target).is_ok() && !coreai_asset::looks_like_asset(&target) {
        return Err(coreai_asset::AssetError::NotAnAsset(target).into());
    }
    if entries.is_empty() {
        // The backend runs on the module the pipeline leaves, in place, and
        // streams the program into the asset. Its aicode writer is then the
        // module's one reader besides the passes, so large weight
        // transposes are permuted on their way into the file instead of
        // folded into fresh memory (`coreai::deferred`), unless MLIR
        // prints the IR between passes.
        let mlir = &cli.mlir;
        let prints = mlir.mlir_print_ir_before_all
            || mlir.mlir_print_ir_after_all
            || mlir.mlir_print_ir_after_change
            || mlir.mlir_print_ir_after_failure
            || !mlir.mlir_print_ir_before.is_empty()
            || !mlir.mlir_print_ir_after.is_empty();
        coreai::deferred::set_enabled(options.format == backend::Format::Aicode && !prints);
        return with_module(&job(inputs[0]), &cli.mlir, |module| {
            write_asset(&target, &metadata, |out| {
                backend::write_program(module, options.format, out)
            })
        });
    }
    // Each entry's program, as bytecode in memory, is linked in one
    // context (the entries' contexts are their driver runs').
    let mut programs = Vec::with_capacity(entries.len());
    for (name, file) in &entries {
        let bytes = with_module(&job_with(file, &entry_options(name)), &cli.mlir, |module| {
            Ok(backend::bytecode(
                module,
                coreai_asset::bytecode::VERSION as i64,
            )?)
        })?;
        programs.push((name.clone(), bytes));
    }
    let context = coreai::context::create_context();
    let program = {
        let linked = link::link(&context, &programs).map_err(|e| match e {
            link::LinkError::NoMain(name) => CompileError::NoMain {
                file: entries
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, f)| f.clone())
                    .unwrap_or_default(),
                name,
            },
            link::LinkError::Duplicate(name) => CompileError::Duplicate(name),
            e => e.into(),
        })?;
        linked
    };
    write_asset(&target, &metadata, |out| {
        backend::write_program(program.as_operation(), options.format, out)
    })
}

/// `(Some(ENTRY), NAME=...)` for an `--hw-constraints ENTRY/NAME=...` item,
/// `(None, item)` for one that applies to every entry.
fn scoped(item: &str) -> (Option<&str>, &str) {
    let name = item.split('=').next().unwrap_or_default();
    match name.split_once('/') {
        Some((entry, _)) => (Some(entry), &item[entry.len() + 1..]),
        None => (None, item),
    }
}

/// Writes the asset `target` with the program `write` streams; a backend
/// error is reported as such, not as a write error.
fn write_asset(
    target: &std::path::Path,
    metadata: &Metadata,
    write: impl FnOnce(&mut dyn coreai_asset::Sink) -> Result<(), BackendError>,
) -> Result<(), CompileError> {
    let mut backend_error = None;
    let written = coreai_asset::write_with(target, metadata, |out| {
        write(out).map_err(|e| match e {
            BackendError::Io(e) => e,
            e => {
                backend_error = Some(e);
                std::io::Error::other("the backend failed")
            }
        })
    });
    match (backend_error, written) {
        (Some(e), _) => Err(e.into()),
        (None, result) => Ok(result?),
    }
}

/// Runs `job`'s pipeline and `f` on the module it leaves (alive only
/// during the call).
fn with_module<T>(
    job: &Job,
    flags: &MlirFlags,
    f: impl FnOnce(melior::ir::operation::OperationRef<'_, '_>) -> Result<T, CompileError>,
) -> Result<T, CompileError> {
    let mut f = Some(f);
    let mut result = None;
    let ran = run_job_into(job, flags, &mut |module| {
        let value = f.take().map(|f| f(module));
        let ok = matches!(value, Some(Ok(_)));
        result = value;
        ok
    });
    match (ran, result) {
        (_, Some(Err(e))) => Err(e),
        (Ok(()), Some(Ok(value))) => Ok(value),
        (Err(e), _) => Err(e.into()),
        (Ok(()), None) => Err(OptError::Failed.into()),
    }
}

/// `coreai-compile` on the command line `args` (the program name first);
/// the exit status: 0, or 1 with the diagnostics on stderr.
pub fn main(args: impl IntoIterator<Item = String>) -> u8 {
    coreai_opt::init_logging();
    let cli: Cli = match coreai_opt::parse_cli_from(args) {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    match run(&cli) {
        Ok(()) => 0,
        Err(CompileError::Opt(OptError::Failed)) => 1,
        Err(e) => {
            eprintln!("coreai-compile: error: {e}");
            1
        }
    }
}

/// One tensor of a weights file given as memory: `size` bytes at `data`,
/// tensor `name` of the weights file at path `file` (NUL-terminated).
#[repr(C)]
pub struct CoreaiWeight {
    pub file: *const c_char,
    pub name: *const c_char,
    pub data: *const c_void,
    pub size: usize,
}

/// Runs `coreai-compile` with the command line `argv` (`argc` NUL-terminated
/// strings, the program name first) in this process and returns its exit
/// status. The `count` tensors of `weights` are the weights files they
/// name (the directory of an input joined with the name its
/// `coreai.weights` attribute gives), which are not read. The process
/// should be one for this call alone (a child forked from the process that
/// holds the weights, which exits with the status): the call logs through
/// a global subscriber, registers passes globally, and its weights must
/// stay valid until the process exits.
///
/// # Safety
/// `argv` holds `argc` valid C strings; `weights` holds `count` entries
/// whose `file` and `name` are valid C strings and whose `data` points to
/// `size` readable bytes that do not change while the process lives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coreai_compile_main(
    argc: c_int,
    argv: *const *const c_char,
    weights: *const CoreaiWeight,
    count: usize,
) -> c_int {
    let bytes = |p: *const c_char| unsafe { CStr::from_ptr(p) }.to_bytes();
    let args: Vec<String> = (0..usize::try_from(argc).unwrap_or(0))
        .map(|i| String::from_utf8_lossy(bytes(unsafe { *argv.add(i) })).into_owned())
        .collect();
    let weights = if count == 0 {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(weights, count) }
    };
    // The tensors of each file, in the order given.
    let mut files: Vec<(&[u8], Vec<&CoreaiWeight>)> = Vec::new();
    for w in weights {
        let file = bytes(w.file);
        match files.iter_mut().find(|(f, _)| *f == file) {
            Some((_, tensors)) => tensors.push(w),
            None => files.push((file, vec![w])),
        }
    }
    for (file, tensors) in &files {
        let names: Vec<_> = tensors
            .iter()
            .map(|w| coreai::ffi::bytes_ref(bytes(w.name)))
            .collect();
        let data: Vec<*const c_void> = tensors.iter().map(|w| w.data).collect();
        let sizes: Vec<usize> = tensors.iter().map(|w| w.size).collect();
        unsafe {
            coreai::ffi::coreaiProvideWeights(
                coreai::ffi::bytes_ref(file),
                names.len() as isize,
                names.as_ptr(),
                data.as_ptr(),
                sizes.as_ptr(),
            )
        };
    }
    // A panic must not unwind into the caller's frames.
    let status = std::panic::catch_unwind(|| main(args)).unwrap_or(101);
    let _ = std::io::Write::flush(&mut std::io::stdout());
    c_int::from(status)
}
