//! coreai-bisect: finds the pass, and inside it the rewrite, that
//! miscompiles a module, and writes a reduced reproducer.
//!
//! Step 1 runs the pipeline pass by pass (in process, through the library)
//! and executes every stage with the reference executor, against
//! `--expected` or the input module's own outputs; the first stage whose
//! outputs diverge names the pass. Step 2, for a project pass that numbers
//! its rewrites (`max-rewrites`, `trace-rewrites`), bisects over the rewrite
//! count to the first bad application (O(log n) executor runs) and names its
//! pattern and location; upstream passes are reported at pass level. Step 3
//! reduces the pass's input (see `reduce`), shrinks the reproducer's
//! constants and shapes (see `shrink`) and writes REPRO_DIR.
//!
//! Exit status: 0 no divergence, 1 divergence found (reproducer written),
//! 2 bad input (one message).

mod exec;
mod inputs;
mod pipeline;
mod reduce;
mod rewrites;
mod shrink;
mod slice;

use clap::Parser;
use coreai_interp::{npz::read_npz, Program, Tensor};
use exec::{compare, table, Executor, Outputs};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "coreai-bisect",
    version,
    about = "Find the pass and rewrite that miscompile a module; write a reduced reproducer"
)]
struct Args {
    /// The module to compile (MLIR text or bytecode), with a @main.
    input: PathBuf,
    /// The pipeline to bisect, `builtin.module(...)`.
    #[arg(long)]
    pass_pipeline: String,
    /// Inputs of @main (.npz keyed by argument name).
    #[arg(long, required_unless_present = "random_inputs")]
    inputs: Option<PathBuf>,
    /// Reference outputs; default: the input module's own outputs.
    #[arg(long)]
    expected: Option<PathBuf>,
    #[arg(long, default_value_t = 1e-5)]
    atol: f64,
    #[arg(long, default_value_t = 1e-5)]
    rtol: f64,
    /// Draw seeded inputs (straddling zero, above 10, fp16 and int32 limits)
    /// instead of --inputs.
    #[arg(long, value_name = "SEED")]
    random_inputs: Option<u64>,
    /// Where to write the reproducer.
    #[arg(short = 'o', long = "output", value_name = "REPRO_DIR")]
    output: PathBuf,
}

/// A finding, for the summary.
struct Finding {
    stage: usize,
    pass: String,
    rows: String,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(&args) {
        Ok(found) => ExitCode::from(u8::from(found)),
        Err(e) => {
            // One message, on one line (MLIR's diagnostics span several).
            let mut line = String::new();
            for l in e.lines().map(str::trim).filter(|l| !l.is_empty()) {
                if !line.is_empty() {
                    line += if line.ends_with(':') { " " } else { "; " };
                }
                line += l;
            }
            eprintln!("coreai-bisect: error: {line}");
            ExitCode::from(2)
        }
    }
}

fn progress(len: usize) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    if std::io::stderr().is_terminal() {
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                .unwrap_or(ProgressStyle::default_bar()),
        );
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

/// The module text, the inputs and the reference outputs.
fn load(
    args: &Args,
    compiler: &coreai::Compiler,
    exec: &mut Executor,
) -> Result<(String, BTreeMap<String, Tensor>, Outputs), String> {
    let name = args.input.display().to_string();
    let bytes = std::fs::read(&args.input).map_err(|e| format!("{name}: {e}"))?;
    let module = compiler
        .parse_bytes(&bytes, &name)
        .map_err(|e| e.to_string().trim_end().to_string())?;
    let text = exec::module_text(&module);
    let inputs = match (&args.inputs, args.random_inputs) {
        (Some(p), _) => read_npz(p).map_err(|e| e.to_string())?,
        (None, Some(seed)) => {
            let ctx = coreai_interp::project_context();
            let program = Program::parse(&ctx, &text).map_err(|e| e.to_string())?;
            let (ports, _) = program.signature("main").map_err(|e| e.to_string())?;
            inputs::random_inputs(&ports, seed)?
        }
        (None, None) => return Err("give --inputs or --random-inputs".into()),
    };
    let reference = match &args.expected {
        Some(p) => read_npz(p)
            .map_err(|e| e.to_string())?
            .into_iter()
            .collect(),
        None => exec
            .run(&text, &inputs)
            .map_err(|e| format!("{name}: the input module does not run: {e}"))?,
    };
    Ok((text, inputs, reference))
}

/// Step 1: the stages (input, after pass 1, ...) up to the first diverging
/// one.
fn step1(
    args: &Args,
    compiler: &coreai::Compiler,
    exec: &mut Executor,
    text: &str,
    inputs: &BTreeMap<String, Tensor>,
    reference: &Outputs,
    passes: &[String],
) -> Result<(Vec<String>, Option<Finding>), String> {
    let mut module = compiler
        .parse(text, "input.mlir")
        .map_err(|e| e.to_string())?;
    let mut stages = vec![text.to_string()];
    let bar = progress(passes.len());
    for (i, pass) in passes.iter().enumerate() {
        bar.set_message(pass.clone());
        compiler
            .run_pipeline(&mut module, &format!("builtin.module({pass})"))
            .map_err(|e| {
                format!(
                    "pass #{} {pass} failed: {}",
                    i + 1,
                    e.to_string().trim_end()
                )
            })?;
        let stage = exec::module_text(&module);
        let rows = match exec.run(&stage, inputs) {
            Ok(out) => compare(&out, reference, args.atol, args.rtol),
            Err(e) => vec![exec::Row {
                name: "(run)".into(),
                max_abs: f64::INFINITY,
                max_rel: f64::INFINITY,
                mismatches: 1,
                note: e,
            }],
        };
        stages.push(stage);
        bar.inc(1);
        if rows.iter().any(|r| !r.ok()) {
            bar.finish_and_clear();
            return Ok((
                stages,
                Some(Finding {
                    stage: i + 1,
                    pass: pass.clone(),
                    rows: table(&rows),
                }),
            ));
        }
    }
    bar.finish_and_clear();
    Ok((stages, None))
}

fn run(args: &Args) -> Result<bool, String> {
    let compiler = coreai::Compiler::new();
    coreai::pipeline::check_pass_names(&args.pass_pipeline, &coreai::registry::all_pass_names())
        .map_err(|e| e.to_string())?;
    let passes = pipeline::passes(&args.pass_pipeline)?;
    // Every pass and its options, before anything runs: a bad option of the
    // last pass is an input error, not a failure after the others ran.
    for (i, pass) in passes.iter().enumerate() {
        let manager = melior::pass::PassManager::new(compiler.context());
        melior::utility::parse_pass_pipeline(
            manager.as_operation_pass_manager(),
            &format!("builtin.module({pass})"),
        )
        .map_err(|e| format!("pass #{} {pass}: {e}", i + 1))?;
    }
    let mut exec = Executor::new();
    let (text, inputs, reference) = load(args, &compiler, &mut exec)?;
    if let Some(rows) = Some(compare(
        &exec.run(&text, &inputs).map_err(|e| e.to_string())?,
        &reference,
        args.atol,
        args.rtol,
    ))
    .filter(|r| r.iter().any(|r| !r.ok()))
    {
        println!(
            "coreai-bisect: the input module already differs from --expected:\n{}",
            table(&rows)
        );
        println!(
            "coreai-bisect: RESULT divergence before the pipeline (input differs from --expected)"
        );
        return Ok(true);
    }
    let (stages, finding) = step1(
        args, &compiler, &mut exec, &text, &inputs, &reference, &passes,
    )?;
    let Some(f) = finding else {
        println!("coreai-bisect: RESULT clean: {} passes, every stage matches the reference (atol {:e}, rtol {:e}), {} executor runs", passes.len(), args.atol, args.rtol, exec.runs);
        return Ok(false);
    };
    println!(
        "coreai-bisect: step 1: first diverging pass: #{} {} (of {})\n{}",
        f.stage,
        f.pass,
        passes.len(),
        f.rows
    );
    let before = &stages[f.stage - 1];
    let runs_before = exec.runs;
    let rewrite = rewrites::bisect(
        &compiler, &mut exec, before, &f.pass, &inputs, &reference, args.atol, args.rtol,
    )?;
    let step2_runs = exec.runs - runs_before;
    let summary_rewrite = match &rewrite {
        Some(r) => {
            println!(
                "coreai-bisect: step 2: first bad rewrite: #{} of {} ({}) at {} ({step2_runs} executor runs; ceil(log2 {}) = {})",
                r.index, r.total, r.pattern, r.location, r.total, rewrites::ceil_log2(r.total)
            );
            format!(
                " rewrite=#{}/{} pattern={} loc={}",
                r.index, r.total, r.pattern, r.location
            )
        }
        None => {
            println!("coreai-bisect: step 2: {} does not number its rewrites (an upstream pass): pass-level result only", pipeline::pass_name(&f.pass));
            String::new()
        }
    };
    let mut oracle = reduce::Oracle {
        compiler: &compiler,
        exec: &mut exec,
        pass: f.pass.clone(),
        seed: args.random_inputs.unwrap_or(0),
        atol: args.atol,
        rtol: args.rtol,
        tests: 0,
        max_tests: 2000,
    };
    let mut hint = rewrite.as_ref().map(|r| r.location.clone());
    let mut before = before.clone();
    if let Some((rekeyed, pass, location)) = hint
        .is_some()
        .then(|| reduce::rekey_plant(&mut oracle, &before, &inputs))
        .flatten()
    {
        println!("coreai-bisect: step 3: {} counts matches; reducing with the same op planted by location: {pass}", f.pass);
        before = rekeyed;
        hint = Some(location);
    }
    let repro = reduce::reduce(&mut oracle, &before, &inputs, hint.as_deref())?;
    let (repro, shrunk) = shrink::shrink(&mut oracle, repro);
    let tests = oracle.tests;
    let pass = oracle.pass.clone();
    reduce::write_repro(&args.output, &repro, &pass, args.atol, args.rtol)?;
    let (small, big) = (
        reduce::op_count(&compiler, &repro.text),
        reduce::op_count(&compiler, &before),
    );
    println!("coreai-bisect: step 3: reproducer of {small} ops (the pass input has {big}) after {tests} tests; {} constants made splats, argument elements {} -> {} ({} arguments made constants): {}", shrunk.constants, shrunk.elements_before, shrunk.elements_shrunk, shrunk.arguments, args.output.display());
    println!(
        "coreai-bisect: RESULT divergence pass=#{} {}{summary_rewrite} repro={} ops={small}/{big} executor-runs={}",
        f.stage, pipeline::pass_name(&f.pass), args.output.display(), exec.runs
    );
    Ok(true)
}
