//! Executing a module that calls a user's `torch.library` op at the aten
//! stage: the executor has no kernel for an op it has never seen, so the
//! user registers one on the program (the executor's counterpart of a user
//! lowering). The op is `coreai_test::scaled_add(a, b, scale) = a + scale * b`
//! of `test/e2e/models/custom.py`.
//!
//! ```text
//! cargo run -p coreai-interp --example custom_op_kernel -- custom.mlir in.npz out.npz
//! ```

use coreai_interp::{
    error::{kerr, KResult},
    npz::run_npz,
    ops::{one, Ctx},
    project_context, Program, Tensor, Value,
};
use std::{path::Path, process::ExitCode};

/// `a + scale * b` for f32 tensors of one shape, rounded as PyTorch rounds
/// it: `scale` (a Python float) in f32, each product and sum in f32.
fn scaled_add(c: &Ctx) -> KResult<Vec<Value>> {
    let (Tensor::F32(a), Tensor::F32(b)) = (c.arg(0)?, c.arg(1)?) else {
        return kerr("scaled_add: this kernel takes f32 tensors");
    };
    if a.shape() != b.shape() {
        return kerr("scaled_add: this kernel takes tensors of one shape");
    }
    let scale = c
        .scalar("scale")?
        .to_f64()
        .iter()
        .copied()
        .next()
        .unwrap_or(0.0) as f32;
    let mut out = a.clone();
    out.zip_mut_with(b, |x, &y| *x += scale * y);
    one(Tensor::F32(out))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [module, inputs, outputs] = args.as_slice() else {
        eprintln!("usage: custom_op_kernel MODULE.mlir IN.npz OUT.npz");
        return ExitCode::from(2);
    };
    match run(module, inputs, outputs) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(module: &str, inputs: &str, outputs: &str) -> Result<(), coreai_interp::InterpError> {
    let context = project_context();
    let mut program = Program::parse_file(&context, Path::new(module))?;
    program.register_kernel("coreai_test::scaled_add.default", scaled_add);
    run_npz(&program, "main", Path::new(inputs), Path::new(outputs))
}
