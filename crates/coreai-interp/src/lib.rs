//! coreai-interp: the reference executor. It runs a verified MLIR module in
//! the `aten`, `coreai` and `coreaix` dialects (any mix, at any pipeline
//! stage) on the CPU, so every intermediate module of a pipeline can be
//! executed on the same inputs and compared.
//!
//! - Ops are dispatched by *name*, attributes read by *name*
//!   ([`ops::Ctx`]); an op without a kernel is the error
//!   `not executable: <op>` at the op's location, never a panic.
//! - Dtype-exact: f64, f32, f16, bf16 (rounded to nearest-even after every
//!   op), i1, signed/unsigned 8–64-bit integers (wrapping at the width),
//!   complex64 for elementwise arithmetic.
//! - [`Options::simulate_fp16`] rounds every float value through fp16.
//!
//! ```no_run
//! use coreai_interp::{Program, Options, project_context};
//! let context = project_context();
//! let program = Program::parse(&context, "func.func @main() { return }")?;
//! let outputs = program.run("main", vec![], Options::default())?;
//! # Ok::<(), coreai_interp::InterpError>(())
//! ```

pub mod calibrate;
pub mod error;
pub mod fold;
pub mod interp;
pub mod ir;
pub mod kernels;
pub mod npz;
pub mod ops;
pub mod ranges;
pub mod tensor;
pub mod value;

pub use error::InterpError;
pub use interp::{project_context, OpTime, Options, Port, Program};
pub use tensor::{DType, Tensor};
pub use value::Value;
