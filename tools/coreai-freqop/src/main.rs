//! coreai-freqop: counts the `coreai.*` ops of one program, or compares two,
//! with composites (graphs carrying a `composite_decl`) reported as
//! `composite.<name>`. The command line and tables follow coreai-torch's
//! `tools/freqop`; `--json` and `--plot out.svg` are for CI and reports.
//!
//! Exit status: 0 on success, 2 on an input error (one message, no output
//! file written).

mod count;
mod plot;
mod table;

use clap::Parser;
use count::{count_module, Census};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "coreai-freqop",
    version,
    about = "Count the coreai ops of a program (.mlir, .mlirb, .aimodel), or compare two",
    after_help = "examples:\n  coreai-freqop model.mlir                   count ops in one program\n  \
coreai-freqop a.mlir b.mlirb               compare two programs (Delta column, * on differing rows)\n  \
coreai-freqop --json a.mlir b.mlir         the counts as JSON\n  \
coreai-freqop --plot ops.svg model.mlir    also write a bar chart\n  \
coreai-freqop --ane model.aimodel          also the Neural Engine residency report"
)]
struct Args {
    /// The program to analyze, and optionally a second one to compare against.
    #[arg(value_name = "FILE", num_args = 1..=2, required = true)]
    files: Vec<PathBuf>,
    /// Write a bar chart (grouped bars with two files) as SVG to FILE
    /// (default freqop.svg).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "freqop.svg")]
    plot: Option<PathBuf>,
    /// Write the tables to FILE instead of stdout (.html for HTML, else text).
    #[arg(long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Count each composite graph as one `composite.<name>` op and list its
    /// body's ops in a table of its own.
    #[arg(long)]
    collapse_composites: bool,
    /// Print the counts as JSON.
    #[arg(long)]
    json: bool,
    /// Also report, on stderr, each op that would leave the Neural Engine
    /// and why (`ane-residency`: rank, static shapes, f16/int8/int16, fused
    /// attention, runtime state), with `N of M ops Neural-Engine-resident`.
    #[arg(long)]
    ane: bool,
}

fn main() -> ExitCode {
    let mut args = Args::parse();
    // `--plot model.mlir` (coreai-torch's flag form): the value is a file.
    if let Some(p) = &args.plot {
        if p.extension().is_none_or(|e| e != "svg") && args.files.len() < 2 {
            args.files.insert(0, p.clone());
            args.plot = Some(PathBuf::from("freqop.svg"));
        }
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("coreai-freqop: error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Parses `path` (MLIR text or bytecode, or an `.aimodel` asset) and counts
/// its ops.
fn census(
    compiler: &coreai::Compiler,
    path: &Path,
    collapse: bool,
    ane: bool,
) -> Result<Census, String> {
    let name = path.display().to_string();
    // An `.aimodel` asset is read through its checked `main.mlirb`.
    let file = coreai_asset::program_file(path).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&file).map_err(|e| format!("{name}: {e}"))?;
    let mut module = compiler
        .parse_bytes(&bytes, &name)
        .map_err(|e| e.to_string().trim_end().to_string())?;
    if ane {
        let report = compiler
            .run_pipeline_diagnostics(&mut module, "builtin.module(ane-residency)")
            .map_err(|e| e.to_string().trim_end().to_string())?;
        eprint!("{report}");
    }
    Ok(count_module(module.as_operation(), collapse))
}

fn run(args: &Args) -> Result<(), String> {
    let compiler = coreai::Compiler::new();
    let labels: Vec<String> = args.files.iter().map(|p| p.display().to_string()).collect();
    let a = census(
        &compiler,
        &args.files[0],
        args.collapse_composites,
        args.ane,
    )?;
    let b = match args.files.get(1) {
        Some(p) => Some(census(&compiler, p, args.collapse_composites, args.ane)?),
        None => None,
    };
    let pair = (labels[0].as_str(), labels.get(1).map_or("", |s| s.as_str()));
    let text = if args.json {
        json(&a, b.as_ref(), pair)
    } else {
        match &b {
            None => table::single_text(&a, pair.0),
            Some(b) => table::comparison_text(&a, b, pair, std::io::stdout().is_terminal()),
        }
    };
    if let Some(svg_path) = &args.plot {
        write_file(
            svg_path,
            &plot::svg(&a.ops, b.as_ref().map(|b| &b.ops), pair),
        )?;
    }
    match &args.output {
        Some(out) if out.extension().is_some_and(|e| e == "html" || e == "htm") => {
            write_file(out, &table::html(&a, b.as_ref(), pair))?
        }
        Some(out) => write_file(out, &text)?,
        None => print!("{text}"),
    }
    Ok(())
}

/// Writes through a temporary file and a rename: no partial file on error.
fn write_file(path: &Path, content: &str) -> Result<(), String> {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, content)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("{}: {e}", path.display())
        })
}

fn counts_json(c: &count::Counts) -> serde_json::Value {
    serde_json::Value::Object(c.sorted().into_iter().map(|(n, c)| (n, c.into())).collect())
}

fn census_json(c: &Census, label: &str) -> serde_json::Value {
    let graphs: serde_json::Map<_, _> = c
        .per_graph
        .iter()
        .map(|(g, counts)| (g.clone(), counts_json(counts)))
        .collect();
    let details: serde_json::Map<_, _> = c
        .details
        .iter()
        .map(|(g, counts)| (g.clone(), counts_json(counts)))
        .collect();
    serde_json::json!({
        "file": label,
        "ops": counts_json(&c.ops),
        "total": c.ops.total(),
        "composites": counts_json(&c.composites),
        "composite_details": details,
        "graphs": graphs,
    })
}

/// `{"programs": [...]}` and, with two files, `"delta"`: op → model 2 − model 1
/// for the ops whose counts differ.
fn json(a: &Census, b: Option<&Census>, labels: (&str, &str)) -> String {
    let mut programs = vec![census_json(a, labels.0)];
    let mut doc = serde_json::Map::new();
    if let Some(b) = b {
        programs.push(census_json(b, labels.1));
        let delta: serde_json::Map<_, _> = table::comparison_rows(&a.ops, &b.ops)
            .into_iter()
            .filter(|r| r.3 != 0)
            .map(|r| (r.0, r.3.into()))
            .collect();
        doc.insert("delta".into(), delta.into());
    }
    doc.insert("programs".into(), programs.into());
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}
