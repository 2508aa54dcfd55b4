//! coreai-run: executes an aten / coreai / coreaix MLIR module on `.npz`
//! inputs with the reference executor, writes the outputs, and optionally
//! compares them with expected values.
//!
//! Inputs and outputs are keyed by the entry's `coreai.name` argument and
//! result attributes (falling back to `arg0…` / `result0…`). A state
//! argument (`!coreai.handle<…>`) is initialized from the input of its name
//! and written back to the outputs, after the results, under that name. Exit status 0 on
//! success, 1 on any error or on a comparison outside tolerance.

use clap::{Parser, ValueEnum};

/// What `--simulate-fp16` models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Fp16Device {
    /// Every float value rounded to IEEE fp16 (range ±65504).
    Ieee,
    /// IEEE fp16, and op results beyond ±2^15 = 32768 become infinite
    /// (the Neural Engine's intermediate range, conversion guide §9.1).
    Ane,
}
use coreai_interp::npz::{read_npz, write_npz};
use coreai_interp::{DType, InterpError, Options, Port, Program, Tensor, Value};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;

#[derive(Parser)]
#[command(
    name = "coreai-run",
    version,
    about = "Run an MLIR module (aten, coreai, coreaix) on .npz inputs"
)]
struct Args {
    /// The MLIR module: text, bytecode, or an `.aimodel` asset.
    #[arg(required_unless_present = "list_ops")]
    file: Option<PathBuf>,
    /// The func.func or coreai.graph to run.
    #[arg(long, default_value = "main")]
    entry: String,
    /// Inputs, keyed by argument name.
    #[arg(long)]
    inputs: Option<PathBuf>,
    /// Where to write the outputs, keyed by result name, in result order.
    #[arg(long)]
    outputs: Option<PathBuf>,
    /// Expected outputs to compare against.
    #[arg(long)]
    compare: Option<PathBuf>,
    /// Absolute tolerance of --compare.
    #[arg(long, default_value_t = 1e-5)]
    atol: f64,
    /// Relative tolerance of --compare.
    #[arg(long, default_value_t = 1e-5)]
    rtol: f64,
    /// Carry out all float arithmetic in fp16 (reproduces fp16 overflow);
    /// `=ane` also makes op results beyond ±2^15 infinite, an approximation
    /// of the Neural Engine's narrower intermediate range.
    #[arg(long, value_name = "DEVICE", num_args = 0..=1, require_equals = true,
          default_missing_value = "ieee", value_enum)]
    simulate_fp16: Option<Fp16Device>,
    /// Convert each input to its argument's element type: floats to a
    /// narrower float rounded to nearest (f32 test vectors for an f16
    /// program, as `--io f16` compiles for the Neural Engine), integers to
    /// another integer type when every value fits (int64 ids for si16);
    /// any other mismatch, or an integer that does not fit, is an error.
    #[arg(long)]
    cast_inputs: bool,
    /// Keep the module loaded and run one request per line of stdin,
    /// `ENTRY<TAB>INPUTS.npz<TAB>OUTPUTS.npz`, answering one line on
    /// stdout each: `ok`, or `error: MESSAGE` (the server goes on). For
    /// callers that run a program many times (an LLM session): the module
    /// is read once. Ends at end of input.
    #[arg(long)]
    serve: bool,
    /// Print the ops the executor can run, and exit.
    #[arg(long)]
    list_ops: bool,
    /// Print the entry's arguments and results (name, type) as JSON, and exit.
    #[arg(long)]
    print_signature: bool,
    /// Run the entry N more times after the first and print the median and
    /// minimum wall time per run (stderr).
    #[arg(long, value_name = "N")]
    bench: Option<usize>,
    /// Print the kernel time per op name (stderr): of the --bench runs
    /// (per run), else of the single run.
    #[arg(long)]
    profile: bool,
    /// Stop with an error, at the op being run, once the runs have taken
    /// SECONDS (0: no limit; a `coreai.while` whose condition never turns
    /// false otherwise runs to its 100,000,000th iteration).
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    timeout: u64,
    /// Stop with an error at the op that would be the (N+1)-th op executed
    /// in one run (0: no limit): unlike --timeout, the same op on every
    /// machine.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_ops: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(file) = &args.file {
        // MLIR's readers crash on some inputs no check can rule out.
        coreai::crash_handler::install("coreai-run", "reading", &file.display().to_string());
    }
    // Kernel panics are caught and reported as errors at their op.
    std::panic::set_hook(Box::new(|_| {}));
    if args.list_ops {
        for op in coreai_interp::ops::executable_ops() {
            println!("{op}");
        }
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("coreai-run: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn shape_ok(port: &Port, shape: &[usize]) -> bool {
    match &port.shape {
        Some(s) => {
            s.len() == shape.len() && s.iter().zip(shape).all(|(d, g)| d.is_none_or(|d| d == *g))
        }
        None => true,
    }
}

/// `t` as `dtype` for `--cast-inputs`: floats to floats rounded to
/// nearest, integers to integers when every value fits.
fn converted(t: &Tensor, dtype: DType) -> Result<Tensor, String> {
    let from = t.dtype();
    if from.is_float() && dtype.is_float() {
        return Ok(t.cast(dtype));
    }
    if from.is_int() && dtype.is_int() {
        let narrowed = t.cast(dtype);
        if narrowed.to_i128() == t.to_i128() {
            return Ok(narrowed);
        }
        return Err(format!(
            "a value of the {} input does not fit {} (--cast-inputs)",
            from.name(),
            dtype.name()
        ));
    }
    Err(format!(
        "dtype {} does not convert to {} (--cast-inputs converts float to float and integer to integer)",
        from.name(),
        dtype.name()
    ))
}

/// The element of a handle's tensor (`!coreai.handle<tensor<4xf16>>`).
fn handle_element(type_text: &str) -> Option<DType> {
    let inner = type_text.split("tensor<").nth(1)?.split('>').next()?;
    let element = inner.rsplit('x').next()?;
    Some(match element {
        "f16" => DType::F16,
        "bf16" => DType::BF16,
        "f32" => DType::F32,
        "f64" => DType::F64,
        "i1" => DType::Bool,
        "si8" | "i8" => DType::I8,
        "si16" | "i16" => DType::I16,
        "si32" | "i32" => DType::I32,
        "si64" | "i64" => DType::I64,
        "ui8" => DType::U8,
        "ui16" => DType::U16,
        "ui32" => DType::U32,
        "ui64" => DType::U64,
        _ => return None,
    })
}

fn input_value(port: &Port, given: Option<&Tensor>, cast: bool) -> Result<Value, InterpError> {
    let err = |msg: String| InterpError::Input {
        name: port.name.clone(),
        msg,
    };
    if port.is_token {
        return Ok(Value::Token);
    }
    let Some(t) = given else {
        return Err(err(format!(
            "missing from the inputs (type {})",
            port.type_text
        )));
    };
    if port.is_handle {
        let held = match handle_element(&port.type_text) {
            Some(dt) if cast && dt != t.dtype() => converted(t, dt).map_err(err)?,
            _ => t.clone(),
        };
        return Ok(Value::Handle(Rc::new(RefCell::new(held))));
    }
    let Some(dt) = port.dtype else {
        return Err(err(format!(
            "arguments of type {} are not supported",
            port.type_text
        )));
    };
    let t = match (dt, t.dtype()) {
        (a, b) if a == b => t.clone(),
        // NumPy has no bfloat16: accept float32 and round.
        (DType::BF16, DType::F32) => t.cast(DType::BF16),
        (a, _) if cast => converted(t, a).map_err(err)?,
        (a, b) => {
            return Err(err(format!(
                "dtype {} does not match the argument type {} ({})",
                b.name(),
                port.type_text,
                a.name()
            )))
        }
    };
    if !shape_ok(port, &t.shape()) {
        return Err(err(format!(
            "shape {:?} does not match the argument type {}",
            t.shape(),
            port.type_text
        )));
    }
    Ok(Value::tensor(t))
}

fn run(args: &Args) -> Result<bool, InterpError> {
    let context = coreai_interp::project_context();
    let Some(file) = &args.file else {
        return Err(InterpError::Input {
            name: "FILE".into(),
            msg: "no module given".into(),
        });
    };
    // An asset's program is its checked main.mlirb.
    let file = coreai_asset::program_file(file).map_err(|e| InterpError::Parse(e.to_string()))?;
    // Reading is bounded (some malformed bytecode keeps MLIR's reader busy
    // for minutes); running is not.
    let program = coreai::crash_handler::bounded_read("coreai-run", &file, || {
        Program::parse_file(&context, &file)
    })?;
    coreai::crash_handler::install("coreai-run", "running", &file.display().to_string());
    if args.serve {
        serve(&program, args);
        return Ok(true);
    }
    let (arg_ports, res_ports) = program.signature(&args.entry)?;
    if args.print_signature {
        let ports = |ps: &[Port]| {
            ps.iter()
                .map(|p| format!("{{\"name\": {:?}, \"type\": {:?}}}", p.name, p.type_text))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "{{\"arguments\": [{}], \"results\": [{}]}}",
            ports(&arg_ports),
            ports(&res_ports)
        );
        return Ok(true);
    }
    let inputs = input_values(
        &arg_ports,
        args.inputs.as_deref(),
        &args.entry,
        args.cast_inputs,
    )?;
    let options = run_options(args);
    program.set_profiling(args.profile && args.bench.is_none());
    let outputs = program.run(&args.entry, inputs.clone(), options)?;
    if let Some(n) = args.bench {
        program.set_profiling(args.profile);
        let mut times = Vec::with_capacity(n);
        for _ in 0..n {
            let t = std::time::Instant::now();
            program.run(&args.entry, inputs.clone(), options)?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        if let (Some(min), Some(med)) = (times.first(), times.get(times.len() / 2)) {
            eprintln!("bench: median {med:.3} ms, min {min:.3} ms over {n} runs");
        }
    }
    if args.profile {
        print_profile(&program.take_profile(), args.bench.unwrap_or(1).max(1));
    }
    let named = named_outputs(outputs, &res_ports, &arg_ports, &inputs);
    if let Some(p) = &args.outputs {
        write_npz(p, &named)?;
    }
    match &args.compare {
        Some(p) => {
            let failures = compare(&named, &read_npz(p)?, args.atol, args.rtol);
            if let Some(first) = failures.first() {
                let more = match failures.len() {
                    1 => String::new(),
                    n => format!(" (and {} more outputs, see the table)", n - 1),
                };
                eprintln!(
                    "coreai-run: error: outputs differ from {}: {first}{more}",
                    p.display()
                );
            }
            Ok(failures.is_empty())
        }
        None => {
            if args.outputs.is_none() {
                for (n, t) in &named {
                    println!("{n}: {} {:?}", t.dtype().name(), t.shape());
                }
            }
            Ok(true)
        }
    }
}

/// The argument values of `ports` from the `.npz` file at `path` (none:
/// no inputs), warning about entries no argument takes.
fn input_values(
    ports: &[Port],
    path: Option<&std::path::Path>,
    entry: &str,
    cast: bool,
) -> Result<Vec<Value>, InterpError> {
    let given = match path {
        Some(p) => read_npz(p)?,
        None => BTreeMap::new(),
    };
    let values = ports
        .iter()
        .map(|p| input_value(p, given.get(&p.name), cast))
        .collect::<Result<Vec<_>, _>>()?;
    let known: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    for name in given.keys() {
        if !known.contains(&name.as_str()) {
            eprintln!(
                "coreai-run: warning: input '{name}' is not an argument of @{entry} (arguments: {})",
                known.join(", ")
            );
        }
    }
    Ok(values)
}

/// The executor's options from the command line.
fn run_options(args: &Args) -> Options {
    Options {
        simulate_fp16: args.simulate_fp16.is_some(),
        ane_range: args.simulate_fp16 == Some(Fp16Device::Ane),
        deadline: (args.timeout > 0)
            .then(|| std::time::Instant::now() + std::time::Duration::from_secs(args.timeout)),
        max_ops: (args.max_ops > 0).then_some(args.max_ops),
    }
}

/// The results named after the result ports, then the states (handle
/// arguments) after the run, named after their argument.
fn named_outputs(
    outputs: Vec<Value>,
    res_ports: &[Port],
    arg_ports: &[Port],
    inputs: &[Value],
) -> Vec<(String, Tensor)> {
    let mut named = Vec::new();
    for (i, v) in outputs.into_iter().enumerate() {
        let name = res_ports
            .get(i)
            .map(|p| p.name.clone())
            .unwrap_or(format!("result{i}"));
        match v {
            Value::Tensor(t) => named.push((name, (*t).clone())),
            Value::Handle(h) => named.push((name, h.borrow().clone())),
            Value::Token => {}
        }
    }
    for (port, v) in arg_ports.iter().zip(inputs) {
        if let Value::Handle(h) = v {
            named.push((port.name.clone(), h.borrow().clone()));
        }
    }
    named
}

/// `--serve`: one request per line of stdin, one answer line each.
fn serve(program: &Program<'_>, args: &Args) {
    use std::io::{BufRead, Write};
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serve_one(program, args, &line) {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("error: {}", e.to_string().replace('\n', " ")),
        };
        if writeln!(stdout, "{answer}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            break;
        }
    }
}

/// One `--serve` request: `ENTRY<TAB>INPUTS.npz<TAB>OUTPUTS.npz`.
fn serve_one(program: &Program<'_>, args: &Args, line: &str) -> Result<(), InterpError> {
    let fields: Vec<&str> = line.split('\t').collect();
    let [entry, inputs, outputs] = fields[..] else {
        return Err(InterpError::Input {
            name: "request".into(),
            msg: format!("expected ENTRY<TAB>INPUTS.npz<TAB>OUTPUTS.npz, got {line:?}"),
        });
    };
    let (arg_ports, res_ports) = program.signature(entry)?;
    let values = input_values(
        &arg_ports,
        Some(std::path::Path::new(inputs)),
        entry,
        args.cast_inputs,
    )?;
    let results = program.run(entry, values.clone(), run_options(args))?;
    let named = named_outputs(results, &res_ports, &arg_ports, &values);
    write_npz(std::path::Path::new(outputs), &named)?;
    Ok(())
}

/// Prints the kernel time per op name, per run, the slowest first.
fn print_profile(times: &[coreai_interp::OpTime], runs: usize) {
    let total: f64 = times.iter().map(|t| t.seconds).sum();
    eprintln!(
        "profile: kernels {:.3} ms per run (over {runs} run{})",
        total * 1e3 / runs as f64,
        if runs == 1 { "" } else { "s" }
    );
    eprintln!("{:<48} {:>8} {:>10} {:>6}", "op", "calls", "ms/run", "%");
    for t in times {
        eprintln!(
            "{:<48} {:>8} {:>10.3} {:>6.1}",
            t.name,
            t.calls / runs,
            t.seconds * 1e3 / runs as f64,
            if total > 0.0 {
                100.0 * t.seconds / total
            } else {
                0.0
            }
        );
    }
}

/// Prints a per-output error table (stdout); returns why each failing
/// output fails, empty when every output is within `atol + rtol * |expected|`
/// (NaN matches NaN, infinities match exactly).
fn compare(
    got: &[(String, Tensor)],
    expected: &BTreeMap<String, Tensor>,
    atol: f64,
    rtol: f64,
) -> Vec<String> {
    let mut failures = Vec::new();
    println!(
        "{:<24} {:>10} {:>14} {:>14} {:>12}  status",
        "output", "dtype", "max_abs_err", "max_rel_err", "mismatches"
    );
    for (name, t) in got {
        let Some(e) = expected.get(name) else {
            println!(
                "{name:<24} {:>10} {:>14} {:>14} {:>12}  MISSING in expected",
                t.dtype().name(),
                "-",
                "-",
                "-"
            );
            failures.push(format!(
                "output '{name}' is missing from the expected values"
            ));
            continue;
        };
        if e.shape() != t.shape() {
            println!(
                "{name:<24} {:>10} {:>14} {:>14} {:>12}  SHAPE {:?} vs expected {:?}",
                t.dtype().name(),
                "-",
                "-",
                "-",
                t.shape(),
                e.shape()
            );
            failures.push(format!(
                "output '{name}' has shape {:?}, expected {:?}",
                t.shape(),
                e.shape()
            ));
            continue;
        }
        let (a, b) = (t.to_f64(), e.to_f64());
        let (mut max_abs, mut max_rel, mut bad) = (0.0f64, 0.0f64, 0usize);
        for (&x, &y) in a.iter().zip(b.iter()) {
            let same = (x.is_nan() && y.is_nan()) || x == y;
            if same {
                continue;
            }
            let d = (x - y).abs();
            let d = if d.is_nan() { f64::INFINITY } else { d };
            max_abs = max_abs.max(d);
            if y != 0.0 {
                max_rel = max_rel.max(d / y.abs());
            }
            // A NaN bound counts as a mismatch, as `d` beyond it does.
            if !matches!(
                d.partial_cmp(&(atol + rtol * y.abs())),
                Some(Ordering::Less | Ordering::Equal)
            ) {
                bad += 1;
            }
        }
        let dtype_note =
            if e.dtype() != t.dtype() && !(t.dtype() == DType::BF16 && e.dtype() == DType::F32) {
                format!(" (dtype differs: expected {})", e.dtype().name())
            } else {
                String::new()
            };
        let status = if bad == 0 { "ok" } else { "FAIL" };
        println!(
            "{name:<24} {:>10} {max_abs:>14.6e} {max_rel:>14.6e} {bad:>12}  {status}{dtype_note}",
            t.dtype().name()
        );
        if bad > 0 {
            failures.push(format!(
                "output '{name}': {bad} of {} elements outside atol {atol:e} + rtol {rtol:e} * |expected| \
                 (max abs error {max_abs:.6e}, max rel error {max_rel:.6e})",
                a.len()
            ));
        }
    }
    failures
}
