//! `coreai-opt`: the mlir-opt of the coreai dialects and passes.
//!
//! The command line is parsed here (clap); parsing, diagnostics,
//! `--verify-diagnostics`, `--split-input-file`, pass instrumentation and
//! printing are MLIR's own driver, so flags shared with `mlir-opt` behave the
//! same. The output file is written only when everything succeeded.

use clap::{ArgAction, Parser};
use coreai::registry;
use coreai_opt::{run_job, Job, MlirFlags, OptError};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "coreai-opt",
    version,
    about = "Parse, verify, transform and print MLIR with the aten, coreai and coreaix dialects",
    long_about = None
)]
struct Cli {
    /// Input file (`.mlir`, `.mlirb`, an `.aimodel` asset), or `-` for stdin.
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

    /// Check that the output, printed as text and as bytecode, parses back
    /// to the same IR (as in mlir-opt).
    #[arg(long)]
    verify_roundtrip: bool,

    /// Stop with an error after SECONDS (0: no limit).
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    timeout: u32,

    /// List the registered passes and pipelines with their options, and exit;
    /// with a pass name, print that pass's long description and options.
    #[arg(long, value_name = "PASS", num_args = 0..=1, default_missing_value = "")]
    list_passes: Option<String>,

    #[command(flatten)]
    mlir: MlirFlags,
}

/// One pass's long description (its file's `//!` header) and options.
fn describe_pass(name: &str) -> Result<(), OptError> {
    let Some(pass) = registry::passes().find(|p| p.name == name) else {
        let names: Vec<&str> = registry::passes().map(|p| p.name).collect();
        return Err(OptError::Usage(format!(
            "--list-passes: no coreai pass named '{name}'; coreai passes: {}",
            names.join(", ")
        )));
    };
    let mut out = format!(
        "{}  -  {}\n\n{}\n\noptions:\n",
        pass.name,
        pass.summary,
        pass.description()
    );
    for option in pass.options.iter().chain(registry::REWRITE_OPTIONS) {
        out.push_str(&format!(
            "  {}=<value>  -  {} (default: {})\n",
            option.name, option.help, option.default
        ));
    }
    print!("{out}");
    Ok(())
}

fn list_passes() {
    let mut out = String::from("coreai passes (`--list-passes=NAME` for a pass's description):\n");
    for pass in registry::passes() {
        out.push_str(&format!("  {}  -  {}\n", pass.name, pass.summary));
        for option in pass.options {
            out.push_str(&format!(
                "      {}=<value>  -  {} (default: {})\n",
                option.name, option.help, option.default
            ));
        }
    }
    out.push_str("options of every coreai pass:\n");
    for option in registry::REWRITE_OPTIONS {
        out.push_str(&format!(
            "      {}=<value>  -  {} (default: {})\n",
            option.name, option.help, option.default
        ));
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

fn run(cli: &Cli) -> Result<(), OptError> {
    registry::register_all();
    match cli.list_passes.as_deref() {
        Some("") => {
            list_passes();
            return Ok(());
        }
        Some(name) => return describe_pass(name),
        None => {}
    }
    let mut job = Job {
        program: "coreai-opt".into(),
        input: cli.input.clone(),
        output: cli.output.clone(),
        pipeline: cli.pass_pipeline.clone().unwrap_or_default(),
        split_input_marker: cli.split_input_file.clone().unwrap_or_default(),
        output_split_marker: cli.output_split_marker.clone(),
        verify_diagnostics: cli.verify_diagnostics,
        verify_each: cli.verify_each,
        emit_bytecode: cli.emit_bytecode,
        bytecode_version: cli.emit_bytecode_version.unwrap_or(-1),
        verify_roundtrip: cli.verify_roundtrip,
        read_timeout: 0,
    };
    // MLIR's readers crash on some inputs no check can rule out: one
    // message, no temporary output, exit status 1.
    coreai::crash_handler::install("coreai-opt", "reading", &cli.input);
    if cli.timeout > 0 {
        coreai::crash_handler::arm_timeout("coreai-opt", &cli.input, cli.timeout);
    } else {
        // Without --timeout only the reading is bounded (some malformed
        // bytecode keeps MLIR's reader busy for minutes).
        let bytes = std::fs::metadata(&cli.input).map_or(0, |m| m.len());
        job.read_timeout = coreai::crash_handler::arm_read_timeout(
            "coreai-opt",
            &cli.input,
            coreai::crash_handler::read_time_limit(bytes),
        );
    }
    run_job(&job, &cli.mlir)
}

fn main() -> ExitCode {
    coreai_opt::init_logging();
    let cli: Cli = match coreai_opt::parse_cli() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(OptError::Failed) => ExitCode::from(1),
        Err(OptError::Input(e)) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("coreai-opt: error: {e}");
            ExitCode::from(1)
        }
    }
}
