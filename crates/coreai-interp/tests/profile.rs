//! Per-op timing (`Program::set_profiling` / `take_profile`).

use coreai_interp::{project_context, DType, Options, Program, Tensor, Value};
use ndarray::{ArrayD, IxDyn};

const MODULE: &str = r#"
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.relu.default %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.operator "aten::relu.default"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = aten.add.Tensor %1, %x {alpha = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
"#;

fn input() -> Vec<Value> {
    vec![Value::tensor(Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&[4]), vec![1.0, -2.0, 3.0, -4.0]).unwrap(),
        DType::F32,
    ))]
}

#[test]
fn profile_counts_kernels_by_name_and_only_while_on() {
    let context = project_context();
    let p = Program::parse(&context, MODULE).unwrap();
    p.run("main", input(), Options::default()).unwrap();
    assert!(p.take_profile().is_empty(), "off by default");
    p.set_profiling(true);
    for _ in 0..3 {
        p.run("main", input(), Options::default()).unwrap();
    }
    let prof = p.take_profile();
    let calls = |n: &str| prof.iter().find(|t| t.name == n).map(|t| t.calls);
    // The generic aten.operator form counts under its kernel's name; the
    // call itself is not a kernel.
    assert_eq!(calls("aten.relu.default"), Some(6));
    assert_eq!(calls("aten.add.Tensor"), Some(3));
    assert_eq!(prof.len(), 2);
    assert!(prof.windows(2).all(|w| w[0].seconds >= w[1].seconds));
    assert!(prof.iter().all(|t| t.seconds >= 0.0));
    // Taking the record empties it.
    assert!(p.take_profile().is_empty());
    p.set_profiling(false);
    p.run("main", input(), Options::default()).unwrap();
    assert!(p.take_profile().is_empty());
}
