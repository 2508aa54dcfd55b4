//! Data-movement ops on constants run once per program and are cached.

use coreai_interp::{project_context, DType, Options, Program, Tensor, Value};
use ndarray::{ArrayD, IxDyn};

const MODULE: &str = r#"
coreai.graph @main(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = coreai.constant dense<[[0.333333343, 1.0, 2.0], [3.0, 4.0, 100000.0]]> : tensor<2x3xf32>
  %p = coreai.constant dense<[1, 0]> : tensor<2xui32>
  %t = coreai.transpose %w, %p : (tensor<2x3xf32>, tensor<2xui32>) -> tensor<3x2xf32>
  %s = coreai.decomposable.broadcasting_add %t, %x : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %u = coreai.transpose %s, %p : (tensor<3x2xf32>, tensor<2xui32>) -> tensor<2x3xf32>
  %v = coreai.transpose %u, %p : (tensor<2x3xf32>, tensor<2xui32>) -> tensor<3x2xf32>
  coreai.output %v : tensor<3x2xf32>
}
"#;

fn run(p: &Program, simulate_fp16: bool) -> Vec<f64> {
    let x = Tensor::from_f64(ArrayD::zeros(IxDyn(&[3, 2])), DType::F32);
    let out = p
        .run(
            "main",
            vec![Value::tensor(x)],
            Options {
                simulate_fp16,
                ..Options::default()
            },
        )
        .unwrap();
    out[0]
        .as_tensor()
        .unwrap()
        .to_f64()
        .iter()
        .copied()
        .collect()
}

#[test]
fn a_transposed_constant_is_computed_once() {
    let context = project_context();
    let p = Program::parse(&context, MODULE).unwrap();
    let want = [0.33333334f32, 3.0, 1.0, 4.0, 2.0, 100000.0].map(|v| v as f64);
    assert_eq!(run(&p, false), want);
    p.set_profiling(true);
    assert_eq!(run(&p, false), want);
    let prof = p.take_profile();
    let calls = |n: &str| prof.iter().find(|t| t.name == n).map_or(0, |t| t.calls);
    // Only the two transposes of a computed value run again.
    assert_eq!(calls("coreai.transpose"), 2);
    assert_eq!(calls("coreai.decomposable.broadcasting_add"), 1);
}

#[test]
fn folding_keeps_fp16_simulation_per_run() {
    let context = project_context();
    let p = Program::parse(&context, MODULE).unwrap();
    let plain = run(&p, false);
    let sim = run(&p, true);
    let again = run(&p, false);
    assert_eq!(plain, again);
    assert_eq!(sim[0], half::f16::from_f64(plain[0]).to_f64());
    assert!(sim[5].is_infinite(), "100000 overflows fp16");
}
