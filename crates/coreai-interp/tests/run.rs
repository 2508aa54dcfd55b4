//! End-to-end: parse modules with the project's dialects and run them.

use coreai_interp::{project_context, DType, InterpError, Options, Program, Tensor, Value};
use ndarray::{ArrayD, IxDyn};

fn f32t(shape: &[usize], v: Vec<f32>) -> Value {
    Value::tensor(Tensor::F32(
        ArrayD::from_shape_vec(IxDyn(shape), v).unwrap(),
    ))
}

fn values(v: &Value) -> Vec<f64> {
    v.as_tensor().unwrap().to_f64().iter().copied().collect()
}

const MIXED: &str = r#"
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.relu.default %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32> {coreai.name = "x"}) -> (tensor<4xf32> {coreai.name = "y"}) {
  %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.add.Tensor %0, %x {alpha = 2 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
coreai.graph @g(%x: tensor<2x3xf32> {coreai.name = "x"}) -> (tensor<2x3xf32> {coreai.name = "out"}) {
  %c = coreai.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %a = coreai.abs %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %s = coreai.decomposable.broadcasting_add %a, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  coreai.output %s : tensor<2x3xf32>
}
func.func @bad(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.operator "aten::frobnicate.default"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @wrong_shape(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  %0 = aten.operator "aten::view.default"(%x) {size = [4, 1]} : (tensor<4xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
func.func @int_div(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %0 = aten.operator "aten::div.Tensor_mode"(%a, %b) {rounding_mode = "floor"} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}
func.func @view(%x: tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) -> tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>> {
  %0 = coreaix.view(%x) : (tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) -> tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
  return %0 : tensor<4xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
}
"#;

#[test]
fn calls_and_several_entry_points() {
    let context = project_context();
    let p = Program::parse(&context, MIXED).unwrap();
    assert_eq!(
        p.entries(),
        vec![
            "bad",
            "g",
            "helper",
            "int_div",
            "main",
            "view",
            "wrong_shape"
        ]
    );
    let out = p
        .run(
            "main",
            vec![f32t(&[4], vec![-1.0, 2.0, -0.0, 3.5])],
            Options::default(),
        )
        .unwrap();
    assert_eq!(values(&out[0]), vec![-2.0, 6.0, 0.0, 10.5]);
    let (args, results) = p.signature("g").unwrap();
    assert_eq!(args[0].name, "x");
    assert_eq!(results[0].name, "out");
    let out = p
        .run(
            "g",
            vec![f32t(&[2, 3], vec![-1., 1., -2., 2., -3., 3.])],
            Options::default(),
        )
        .unwrap();
    assert_eq!(values(&out[0]), vec![2., 3., 5., 3., 5., 6.]);
}

#[test]
fn unknown_ops_are_not_executable_with_a_location() {
    let context = project_context();
    let p = Program::parse(&context, MIXED).unwrap();
    let err = p
        .run("bad", vec![f32t(&[4], vec![0.0; 4])], Options::default())
        .unwrap_err();
    assert!(matches!(err, InterpError::NotExecutable { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains("not executable: aten::frobnicate.default"),
        "{msg}"
    );
    assert!(
        msg.contains(":18:8: not executable"),
        "location missing: {msg}"
    );
}

#[test]
fn results_are_checked_against_their_declared_types() {
    let context = project_context();
    let p = Program::parse(&context, MIXED).unwrap();
    let msg = p
        .run(
            "wrong_shape",
            vec![f32t(&[4], vec![0.0; 4])],
            Options::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(msg.contains("computed shape [4, 1]"), "{msg}");
}

#[test]
fn integer_division_by_zero_is_an_error_not_a_panic() {
    let context = project_context();
    let p = Program::parse(&context, MIXED).unwrap();
    let i = |v: Vec<i128>| {
        Value::tensor(Tensor::from_i128(
            ArrayD::from_shape_vec(IxDyn(&[3]), v).unwrap(),
            DType::I32,
        ))
    };
    let out = p
        .run(
            "int_div",
            vec![i(vec![7, -7, 7]), i(vec![2, 2, -2])],
            Options::default(),
        )
        .unwrap();
    assert_eq!(out[0].as_tensor().unwrap().to_i64_vec(), vec![3, -4, -4]);
    let msg = p
        .run(
            "int_div",
            vec![i(vec![1, 1, 1]), i(vec![1, 0, 1])],
            Options::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(msg.contains("ZeroDivisionError"), "{msg}");
}

#[test]
fn coreaix_view_keeps_the_data() {
    let context = project_context();
    let p = Program::parse(&context, MIXED).unwrap();
    let x = Tensor::from_f64(
        ArrayD::from_shape_vec(IxDyn(&[4]), vec![1.0, -2.0, 65504.0, 0.1]).unwrap(),
        DType::F16,
    );
    let out = p
        .run("view", vec![Value::tensor(x.clone())], Options::default())
        .unwrap();
    assert_eq!(out[0].as_tensor().unwrap(), &x);
}

#[test]
fn simulate_fp16_rounds_inputs_and_results() {
    let context = project_context();
    let p = Program::parse(&context, MIXED).unwrap();
    // 40000 + 2 * 40000 = 120000 overflows fp16.
    let x = f32t(&[4], vec![40000.0, 1.0 / 3.0, 0.0, -1.0]);
    let plain = p.run("main", vec![x.clone()], Options::default()).unwrap();
    let sim = p
        .run(
            "main",
            vec![x],
            Options {
                simulate_fp16: true,
                ..Options::default()
            },
        )
        .unwrap();
    assert_eq!(values(&plain[0])[0], 120000.0);
    assert!(values(&sim[0])[0].is_infinite());
    let third = half::f16::from_f64(1.0 / 3.0).to_f64();
    assert_eq!(
        values(&sim[0])[1],
        half::f16::from_f64(third * 3.0).to_f64()
    );
}

#[test]
fn wrong_input_count_is_reported() {
    let context = project_context();
    let p = Program::parse(&context, MIXED).unwrap();
    assert!(matches!(
        p.run("main", vec![], Options::default()),
        Err(InterpError::Input { .. })
    ));
    assert!(matches!(
        p.run("nope", vec![], Options::default()),
        Err(InterpError::NoEntry { .. })
    ));
}

/// A NUL byte in module text is read as MLIR reads it (as blank space,
/// like `mlir-opt-22`), not a panic: found by the `run_module` fuzz target,
/// where melior's `Module::parse` unwrapped a `CString` conversion.
#[test]
fn nul_byte_in_module_text_does_not_panic() {
    let context = project_context();
    let program = Program::parse(&context, "func.func @main() {\0 return }").unwrap();
    assert!(program.signature("main").is_ok());
    assert!(Program::parse(&context, "\0").is_ok());
    assert!(matches!(
        Program::parse(&context, "func.func @main(\0"),
        Err(InterpError::Parse(_))
    ));
}

/// Found by the run_module fuzzer: MLIR's lexer ends text at the NUL after
/// its buffer, and the parse was given the bare slice, so it read on past
/// the slice's end (there, into the `.npz` bytes after the module text: a
/// run of `[` that overflowed the stack in the attribute parser). Only the
/// slice counts: `coreai.` alone is an unknown op.
#[test]
fn the_parse_stops_at_the_end_of_the_text() {
    let context = project_context();
    let buffer = format!("coreai.constant{}", "[".repeat(1 << 20));
    match Program::parse(&context, &buffer[..7]) {
        Err(InterpError::Parse(message)) => {
            assert!(message.contains("'coreai.' is unknown"), "{message}")
        }
        other => panic!("expected a parse error, got {:?}", other.map(|_| ())),
    }
    let module = "func.func @main() { return }";
    let buffer = format!("{module}\n}} trailing garbage");
    assert!(Program::parse(&context, &buffer[..module.len()]).is_ok());
}

/// Found by the run_module fuzzer: split sizes that do not add up to the
/// dim made the kernel panic (caught, as "internal error in the kernel").
#[test]
fn split_sizes_that_do_not_add_up_are_an_error_not_a_panic() {
    let context = project_context();
    let module = r#"coreai.graph @main(%x: tensor<3x4xf32>) -> (tensor<3x1xf32>, tensor<3x3xf32>) {
  %sizes = coreai.constant dense<[5, 3]> : tensor<2xui32>
  %axis = coreai.constant dense<1> : tensor<si32>
  %0:2 = coreai.split %x, %sizes, %axis : (tensor<3x4xf32>, tensor<2xui32>, tensor<si32>) -> (tensor<3x1xf32>, tensor<3x3xf32>)
  coreai.output %0#0, %0#1 : tensor<3x1xf32>, tensor<3x3xf32>
}"#;
    let p = Program::parse(&context, module).unwrap();
    let msg = p
        .run(
            "main",
            vec![f32t(&[3, 4], vec![0.0; 12])],
            Options::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains(
            ":4:10: coreai.split: split sizes [5, 3] add up to 8, but dim 1 has 4 elements"
        ) && !msg.contains("internal error"),
        "{msg}"
    );
}

/// Vector palettes with a palette per block along the vector axis, as
/// palettize-weights{cluster-dim=2 granularity=per-grouped-channel}
/// writes them: index `i` picks a 2-vector from its block's palette, laid
/// along `axis`. Blocks: (1, 2), (3, 4) and (10, 20), (30, 40); indices
/// [[0, 1], [1, 0]]. Along axis 0 (one palette per index row) the columns
/// are [1, 2, 30, 40] and [3, 4, 10, 20]; along axis 1 (one per index
/// column) the rows are [1, 2, 30, 40] and [3, 4, 10, 20].
#[test]
fn vector_palettes_per_block_along_the_vector_axis() {
    let context = project_context();
    let module = r#"coreai.graph @rows() -> tensor<4x2xf32> {
  %i = coreai.constant dense<[[0, 1], [1, 0]]> : tensor<2x2xui8>
  %l = coreai.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[10.0, 20.0], [30.0, 40.0]]]]> : tensor<2x1x2x2xf32>
  %a = coreai.constant dense<0> : tensor<si16>
  %w = coreai.lut_to_dense %i, %l, %a : (tensor<2x2xui8>, tensor<2x1x2x2xf32>, tensor<si16>) -> tensor<4x2xf32>
  coreai.output %w : tensor<4x2xf32>
}
coreai.graph @columns() -> tensor<2x4xf32> {
  %i = coreai.constant dense<[[0, 1], [1, 0]]> : tensor<2x2xui8>
  %l = coreai.constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[10.0, 20.0], [30.0, 40.0]]]]> : tensor<1x2x2x2xf32>
  %a = coreai.constant dense<1> : tensor<si16>
  %w = coreai.lut_to_dense %i, %l, %a : (tensor<2x2xui8>, tensor<1x2x2x2xf32>, tensor<si16>) -> tensor<2x4xf32>
  coreai.output %w : tensor<2x4xf32>
}"#;
    let p = Program::parse(&context, module).unwrap();
    let rows = p.run("rows", vec![], Options::default()).unwrap();
    assert_eq!(
        values(&rows[0]),
        [1.0, 3.0, 2.0, 4.0, 30.0, 10.0, 40.0, 20.0]
    );
    let columns = p.run("columns", vec![], Options::default()).unwrap();
    assert_eq!(
        values(&columns[0]),
        [1.0, 2.0, 30.0, 40.0, 3.0, 4.0, 10.0, 20.0]
    );
}
