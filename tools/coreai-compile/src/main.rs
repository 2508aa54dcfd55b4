//! `coreai-compile`: an imported PyTorch program to an `.aimodel` asset.
//!
//! The input is an aten module from `coreai_export`, a coreai module, MLIR
//! bytecode, or an asset this project wrote. The whole pipeline runs in one
//! MLIR driver run ([`pipeline`]), the program is written as bytecode
//! version 6, and `coreai_asset::write` puts it into the asset next to
//! `metadata.json` and `main.hash`. `--compile-to STAGE` stops after a stage
//! and prints the IR instead. A failure writes nothing and replaces nothing.

mod aicode;
mod link;
mod pipeline;

use clap::Parser;
use coreai_asset::Metadata;
use coreai_opt::{run_job, Job, MlirFlags, OptError};
use pipeline::{Precision, Stage, Target};
use std::{
    path::{Path, PathBuf},
    process::ExitCode,
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
    #[arg(long, value_enum, default_value_t = Target::Cpu)]
    target: Target,

    /// Compute precision: `f16` ends the optimized stage with `cast-to-f16`
    /// (f16 compute, f32 signature, fp32 islands where values need them).
    /// Default: f16 for `--target ane`, f32 otherwise.
    #[arg(long, value_enum)]
    precision: Option<Precision>,

    /// Print to stderr one remark per op the precision and target passes
    /// rewrite (or, for cast-to-f16, keep in f32), with the reason.
    #[arg(long)]
    explain: bool,

    /// Stop after STAGE and print its IR (text) instead of writing an asset.
    #[arg(long, value_enum, value_name = "STAGE")]
    compile_to: Option<Stage>,

    /// What `main.mlirb` holds: `aicode`, coreai-core's versioned
    /// serialization (what coreai-core's runtime loads, and coreai-opt,
    /// coreai-run, coreai-freqop and coreai-graphdiff read back; every
    /// corpus model, docs/aicode-format.md §5), or `coreai`, the coreai
    /// dialect's bytecode (any coreai program; our tools only).
    #[arg(long, value_enum, default_value_t = Format::Aicode)]
    format: Format,

    /// Enumerated static shapes are specialized when the PyTorch program is
    /// exported, one export per configuration: this flag only says so (use
    /// `coreai-export ... -o NAME.aimodel --static-shapes KEY:INPUT=DxD`).
    #[arg(long, value_name = "KEY:INPUT=DxD")]
    static_shapes: Vec<String>,

    /// `NAME=BACKING:ALIGNMENTS:INTERLEAVE`: give the input or output NAME
    /// (its `coreai.name`) a `#coreaix.hw_constraints` encoding, as
    /// coreai-core's `set_hardware_constraints` does (e.g.
    /// `x=IOSurface:1x1x32x1:1x1x1`; BACKING is MTLBuffer, IOSurface or
    /// Heap). With --entry, every entry must have NAME. Repeatable.
    #[arg(long, value_name = "NAME=BACKING:ALIGNMENTS:INTERLEAVE")]
    hw_constraints: Vec<String>,

    /// `KEY=VALUE` for metadata.json: `author`, `license`, `description`, or
    /// any other key (stored under `creatorDefinedMetadata`). Repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    metadata: Vec<String>,

    #[command(flatten)]
    mlir: MlirFlags,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Coreai,
    Aicode,
}

#[derive(Debug, thiserror::Error)]
enum CompileError {
    #[error(transparent)]
    Aicode(#[from] aicode::AicodeError),
    #[error(transparent)]
    Opt(#[from] OptError),
    #[error(transparent)]
    Asset(#[from] coreai_asset::AssetError),
    #[error(transparent)]
    Link(#[from] link::LinkError),
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
        coreai::passes::set_hw_constraints::check_item(item)
            .map_err(CompileError::HwConstraints)?;
    }
    coreai::registry::register_all();
    let entries = entries(cli)?;
    let inputs: Vec<&str> = match &cli.input {
        Some(input) => vec![input.as_str()],
        None => entries.iter().map(|(_, f)| f.as_str()).collect(),
    };
    for input in &inputs {
        check_input(input)?;
    }
    let metadata = metadata(cli)?;
    let stage = cli.compile_to.unwrap_or(Stage::Target);
    let precision = cli
        .precision
        .unwrap_or_else(|| pipeline::default_precision(cli.target));
    let passes = pipeline::pipeline(
        stage,
        cli.target,
        precision,
        cli.explain,
        &cli.hw_constraints,
    );
    let job = |input: &str| Job {
        program: "coreai-compile".into(),
        input: input.to_string(),
        pipeline: passes.clone(),
        verify_each: true,
        bytecode_version: -1,
        ..Job::default()
    };
    if cli.compile_to.is_some() {
        let mut job = job(inputs[0]);
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
    let program = if entries.is_empty() {
        let scratch = Scratch::beside(&target, "program");
        compile_to_bytecode(&mut job(inputs[0]), &cli.mlir, &scratch.0)?;
        read(&scratch.0)?
    } else {
        let scratches: Vec<Scratch> = entries
            .iter()
            .map(|(name, _)| Scratch::beside(&target, name))
            .collect();
        for ((_, file), scratch) in entries.iter().zip(&scratches) {
            compile_to_bytecode(&mut job(file), &cli.mlir, &scratch.0)?;
        }
        let context = coreai::context::create_context();
        let named: Vec<(String, &Path)> = entries
            .iter()
            .zip(&scratches)
            .map(|((name, _), s)| (name.clone(), s.0.as_path()))
            .collect();
        link::link(&context, &named, coreai_asset::bytecode::VERSION as i64)?
    };
    let program = match cli.format {
        Format::Coreai => program,
        Format::Aicode => aicode::write(
            &coreai::context::create_context(),
            &program,
            &target.display().to_string(),
        )?,
    };
    coreai_asset::write(&target, &program, &metadata)?;
    Ok(())
}

/// A bytecode file beside the target asset, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn beside(target: &Path, tag: &str) -> Self {
        let dir = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Self(dir.join(format!(".{name}.{}.{tag}.mlirb", std::process::id())))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn read(path: &Path) -> Result<Vec<u8>, CompileError> {
    std::fs::read(path).map_err(|source| CompileError::Read {
        path: path.display().to_string(),
        source,
    })
}

/// Runs the pipeline of `job`, writing bytecode version 6 to `scratch`.
fn compile_to_bytecode(
    job: &mut Job,
    flags: &MlirFlags,
    scratch: &Path,
) -> Result<(), CompileError> {
    job.output = scratch.to_string_lossy().into_owned();
    job.emit_bytecode = true;
    job.bytecode_version = coreai_asset::bytecode::VERSION as i64;
    Ok(run_job(job, flags)?)
}

fn main() -> ExitCode {
    coreai_opt::init_logging();
    let cli: Cli = match coreai_opt::parse_cli() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CompileError::Opt(OptError::Failed)) => ExitCode::from(1),
        Err(e) => {
            eprintln!("coreai-compile: error: {e}");
            ExitCode::from(1)
        }
    }
}
