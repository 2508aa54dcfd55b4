//! Converting a PyTorch model that calls a custom `torch.library` op: the
//! compiler is used as a library, with a user lowering registered for the op.
//!
//! ```text
//! # the model: test/e2e/models/custom.py (coreai_test::scaled_add)
//! .venv/bin/python -m coreai_export --module-file test/e2e/models/custom.py:custom_op \
//!     --decompositions none -o custom.mlir
//! cargo run --example custom_op -- custom.mlir -o custom.coreai.mlir
//! ```
//!
//! Without the registration, `legalize-aten-to-coreai` stops with
//! "unsupported ops: coreai_test::scaled_add.default". With `--metal` the op
//! is lowered as a custom Metal kernel registered from Rust instead
//! (`coreai.metal4_kernel`, `metal.rs`).

mod metal;
mod scaled_add;
#[cfg(test)]
mod tests;

use coreai::Compiler;
use std::process::ExitCode;

const OP: &str = "coreai_test::scaled_add.default";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let metal = args.iter().any(|a| a == "--metal");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--metal").collect();
    let (input, output) = match args.as_slice() {
        [input, flag, output] if *flag == "-o" => (*input, *output),
        _ => {
            eprintln!("usage: custom_op INPUT.mlir -o OUTPUT.mlir [--metal]");
            return ExitCode::from(2);
        }
    };
    match convert(input, metal) {
        Ok(text) => match std::fs::write(output, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: cannot write {output}: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// `input` through `coreai-pipeline`, with the lowering of `OP` registered.
fn convert(input: &str, metal: bool) -> Result<String, String> {
    let source =
        std::fs::read_to_string(input).map_err(|e| format!("error: cannot read {input}: {e}"))?;
    let compiler = Compiler::new();
    let lowering = if metal {
        metal::scaled_add()
    } else {
        scaled_add::scaled_add()
    };
    compiler
        .register_lowering(OP, false, lowering)
        .map_err(|e| format!("error: {e}"))?;
    let mut module = compiler.parse(&source, input).map_err(|e| e.to_string())?;
    compiler
        .run_pipeline(&mut module, "builtin.module(coreai-pipeline)")
        .map_err(|e| e.to_string())?;
    Ok(format!("{}\n", module.as_operation()))
}
