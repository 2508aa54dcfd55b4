//! Executing a module that calls custom Metal kernels (coreai-torch's
//! `TorchMetalKernel`): the executor has no Metal, so the user registers a
//! CPU kernel per Metal kernel name on the program
//! (`Program::register_metal_kernel`); it runs both the imported call
//! (`aten.operator "coreai_metal_kernels::mk_add.default"`) and the lowered
//! `coreai.metal4_kernel`. The kernels are those of
//! `test/e2e/models/metal_kernels.py`, each its `torch_defn` rounded as
//! PyTorch rounds it.
//!
//! ```text
//! cargo run -p coreai-interp --example metal_kernel -- model.mlir in.npz out.npz [--no-kernels]
//! ```

use coreai_interp::{
    error::{kerr, KResult},
    npz::run_npz,
    ops::{one, Ctx},
    project_context, Program, Tensor, Value,
};
use half::f16;
use std::{path::Path, process::ExitCode};

/// The rank-0 scalar input `i` as f64.
fn scalar(c: &Ctx, i: usize) -> KResult<f64> {
    match c.arg(i)?.to_f64().iter().next() {
        Some(v) => Ok(*v),
        None => kerr(format!("input #{i} is empty")),
    }
}

/// `mk_add(a, b) = a + b`, f32.
fn mk_add(c: &Ctx) -> KResult<Vec<Value>> {
    let (Tensor::F32(a), Tensor::F32(b)) = (c.arg(0)?, c.arg(1)?) else {
        return kerr("mk_add: this kernel takes f32 tensors");
    };
    one(Tensor::F32(a + b))
}

/// `mk_axpb(x, s, n, flag) = x * s + n if flag else x`, in f32 or f16 (each
/// op computed in f32 and rounded to the tensor's type, as PyTorch does;
/// `s` arrives as an f32, `n` as an si32, `flag` as a ui8).
fn mk_axpb(c: &Ctx) -> KResult<Vec<Value>> {
    let (s, n, flag) = (
        scalar(c, 1)? as f32,
        scalar(c, 2)? as f32,
        scalar(c, 3)? != 0.0,
    );
    match c.arg(0)? {
        Tensor::F32(x) if flag => one(Tensor::F32(x.mapv(|v| v * s + n))),
        Tensor::F16(x) if flag => one(Tensor::F16(x.mapv(|v| {
            let p = f16::from_f32(v.to_f32() * s);
            f16::from_f32(p.to_f32() + n)
        }))),
        x @ (Tensor::F32(_) | Tensor::F16(_)) => one(x.clone()),
        _ => kerr("mk_axpb: this kernel takes f32 or f16 tensors"),
    }
}

/// `mk_two(x) = (x + 1, (x * 2).sum(0))`, f32, summing the rows in order.
fn mk_two(c: &Ctx) -> KResult<Vec<Value>> {
    let Tensor::F32(x) = c.arg(0)? else {
        return kerr("mk_two: this kernel takes an f32 tensor");
    };
    if x.ndim() == 0 {
        return kerr("mk_two: the input must have a dim to sum");
    }
    let p = x.mapv(|v| v + 1.0);
    let doubled = x.mapv(|v| v * 2.0);
    let q = doubled.sum_axis(ndarray::Axis(0));
    Ok(vec![
        Value::tensor(Tensor::F32(p)),
        Value::tensor(Tensor::F32(q)),
    ])
}

/// `scaled_add(a, b, scale) = a + scale * b`, f32: the Metal kernel
/// `examples/custom_op/metal.rs` registers from Rust for
/// `coreai_test::scaled_add` (`scale` arrives as an f32).
fn scaled_add(c: &Ctx) -> KResult<Vec<Value>> {
    let (Tensor::F32(a), Tensor::F32(b)) = (c.arg(0)?, c.arg(1)?) else {
        return kerr("scaled_add: this kernel takes f32 tensors");
    };
    let scale = scalar(c, 2)? as f32;
    let mut out = a.clone();
    out.zip_mut_with(b, |x, &y| *x += scale * y);
    one(Tensor::F32(out))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (files, flags): (Vec<&String>, Vec<&String>) =
        args.iter().partition(|a| !a.starts_with("--"));
    let [module, inputs, outputs] = files.as_slice() else {
        eprintln!("usage: metal_kernel MODULE.mlir IN.npz OUT.npz [--no-kernels]");
        return ExitCode::from(2);
    };
    let register = !flags.iter().any(|f| *f == "--no-kernels");
    match run(module, inputs, outputs, register) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    module: &str,
    inputs: &str,
    outputs: &str,
    register: bool,
) -> Result<(), coreai_interp::InterpError> {
    let context = project_context();
    let mut program = Program::parse_file(&context, Path::new(module))?;
    if register {
        program.register_metal_kernel("mk_add", mk_add);
        program.register_metal_kernel("mk_axpb", mk_axpb);
        program.register_metal_kernel("mk_two", mk_two);
        program.register_metal_kernel("scaled_add", scaled_add);
    }
    run_npz(&program, "main", Path::new(inputs), Path::new(outputs))
}
