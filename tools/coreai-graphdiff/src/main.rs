//! coreai-graphdiff: are two coreai programs structurally the same?
//!
//! Same command line and exit codes as coreai-torch's `tools/graphdiff`:
//! `coreai-graphdiff [--entry-point NAME] [--max-items N] [--output FILE]
//! SOURCE TARGET`; exit 0 when every graph is isomorphic, 1 when one
//! differs, 2 on an input error. Without `--entry-point` it diffs `main`
//! against `main`, pairs the composite graphs through the `coreai.invoke`s
//! that `main`'s matching pairs (whatever the callees are named), diffs each
//! pair, and reports graphs found on one side only.

mod graph;
mod iso;
mod report;

use clap::Parser;
use graph::Graph;
use melior::ir::operation::{OperationLike, OperationRef};
use melior::ir::RegionLike;
use report::Section;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "coreai-graphdiff",
    version,
    about = "Structural graph diff between two coreai programs (.mlir, .mlirb, .aimodel)"
)]
struct Args {
    /// The source program.
    #[arg(value_name = "SOURCE")]
    source: PathBuf,
    /// The target program to compare against.
    #[arg(value_name = "TARGET")]
    target: PathBuf,
    /// The coreai.graph (or func.func) to compare (default: main, then
    /// every composite it invokes).
    #[arg(long, value_name = "NAME")]
    entry_point: Option<String>,
    /// Limit the number of rows of each diff table.
    #[arg(long, value_name = "N")]
    max_items: Option<usize>,
    /// Also write the report to FILE (.html for styled HTML, else text).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
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
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("coreai-graphdiff: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn load<'c>(compiler: &'c coreai::Compiler, path: &Path) -> Result<melior::ir::Module<'c>, String> {
    let name = path.display().to_string();
    // An `.aimodel` asset is read through its checked `main.mlirb`.
    let file = coreai_asset::program_file(path).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&file).map_err(|e| format!("{name}: {e}"))?;
    compiler
        .parse_bytes(&bytes, &name)
        .map_err(|e| e.to_string().trim_end().to_string())
}

/// The graphs (`coreai.graph`, `func.func`) at the top of `module`, by symbol.
fn entries<'c, 'a>(module: OperationRef<'c, 'a>) -> BTreeMap<String, OperationRef<'c, 'a>> {
    let mut out = BTreeMap::new();
    let mut child = module
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .and_then(|b| {
            use melior::ir::block::BlockLike;
            b.first_operation()
        });
    while let Some(op) = child {
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        if name == "coreai.graph" || name == "func.func" {
            if let Ok(sym) = op.attribute("sym_name") {
                out.insert(sym.to_string().trim_matches('"').to_string(), op);
            }
        }
        child = op.next_in_block();
    }
    out
}

fn sections(
    src: &BTreeMap<String, OperationRef>,
    tgt: &BTreeMap<String, OperationRef>,
    entry: Option<&str>,
) -> Result<Vec<Section>, String> {
    let pick = |m: &BTreeMap<String, OperationRef>, n: &str, side: &str| {
        m.get(n)
            .map(|op| Graph::build(*op))
            .ok_or(format!("entry point '{n}' not found in the {side} program"))
    };
    if let Some(e) = entry {
        let d = report::diff(pick(src, e, "source")?, pick(tgt, e, "target")?);
        return Ok(vec![Section {
            label: e.to_string(),
            diff: Some(d),
        }]);
    }
    let (s, t) = (pick(src, "main", "source")?, pick(tgt, "main", "target")?);
    let main = report::diff(s, t);
    let pairs = report::invoke_pairs(&main.0, &main.1, &main.2);
    let mut out = vec![Section {
        label: "main".into(),
        diff: Some(main),
    }];
    let (mut seen_s, mut seen_t) = (vec!["main".to_string()], vec!["main".to_string()]);
    for (a, b) in pairs {
        if seen_s.contains(&a) || seen_t.contains(&b) {
            continue;
        }
        if let (Some(x), Some(y)) = (src.get(&a), tgt.get(&b)) {
            let d = report::diff(Graph::build(*x), Graph::build(*y));
            out.push(Section {
                label: format!("{a} (source: @{a}, target: @{b})"),
                diff: Some(d),
            });
        }
        seen_s.push(a);
        seen_t.push(b);
    }
    for name in src.keys().filter(|n| !seen_s.contains(n)) {
        out.push(Section {
            label: format!("REMOVED graph: @{name}"),
            diff: None,
        });
    }
    for name in tgt.keys().filter(|n| !seen_t.contains(n)) {
        out.push(Section {
            label: format!("ADDED graph: @{name}"),
            diff: None,
        });
    }
    Ok(out)
}

fn run(args: &Args) -> Result<bool, String> {
    let compiler = coreai::Compiler::new();
    let src_module = load(&compiler, &args.source)?;
    let tgt_module = load(&compiler, &args.target)?;
    let (src, tgt) = (
        entries(src_module.as_operation()),
        entries(tgt_module.as_operation()),
    );
    let secs = sections(&src, &tgt, args.entry_point.as_deref())?;
    let (text, iso) = report::report_text(&secs, args.max_items);
    if let Some(out) = &args.output {
        let content = if out.extension().is_some_and(|e| e == "html" || e == "htm") {
            report::html(&text)
        } else {
            text.clone()
        };
        let tmp = out.with_extension("tmp~");
        std::fs::write(&tmp, content)
            .and_then(|()| std::fs::rename(&tmp, out))
            .map_err(|e| format!("{}: {e}", out.display()))?;
    }
    print!("{text}");
    Ok(iso)
}
