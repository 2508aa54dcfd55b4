//! The embeddable library: parsing, pipelines, diagnostics, typed builders.

use coreai::{Compiler, Error};
use melior::ir::{
    attribute::{StringAttribute, TypeAttribute},
    operation::OperationLike,
    r#type::{FunctionType, RankedTensorType},
    Block, BlockLike, Location, Module, Region, RegionLike,
};

const GRAPH: &str = r#"
coreai.graph @main(%x: tensor<4xf32> {coreai.name = "x"}) -> (tensor<4xf32> {coreai.name = "y"}) {
  %0 = coreai.abs %x : tensor<4xf32> -> tensor<4xf32>
  %1 = coreai.abs %0 : tensor<4xf32> -> tensor<4xf32>
  coreai.output %1 : tensor<4xf32>
}
"#;

#[test]
fn parses_runs_a_mixed_pipeline_and_prints() {
    let compiler = Compiler::new();
    let mut module = compiler.parse(GRAPH, "graph.mlir").expect("valid IR");
    compiler
        .run_pipeline(
            &mut module,
            "builtin.module(coreai.graph(fold-idempotent-unary,cse),canonicalize)",
        )
        .expect("pipeline runs");
    let text = module.as_operation().to_string();
    assert_eq!(text.matches("coreai.abs").count(), 1, "{text}");
    assert!(text.contains("coreai.output"), "{text}");
}

#[test]
fn parse_errors_carry_the_location() {
    let compiler = Compiler::new();
    let err = compiler
        .parse("coreai.graph @g() {\n  coreai.nosuch\n}\n", "bad.mlir")
        .expect_err("must fail");
    let Error::Parse(text) = &err else {
        panic!("unexpected {err:?}")
    };
    assert!(text.contains("coreai.nosuch"), "{text}");
    assert!(
        text.contains("bad.mlir:2:"),
        "file and line expected in {text}"
    );
}

#[test]
fn unknown_pass_names_the_nearest_registered_one() {
    let compiler = Compiler::new();
    let mut module = compiler.parse(GRAPH, "graph.mlir").unwrap();
    let err = compiler
        .run_pipeline(&mut module, "builtin.module(fold-idempotent-unray)")
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("did you mean 'fold-idempotent-unary'"),
        "{err}"
    );
}

#[test]
fn bad_pass_option_is_an_error_not_a_crash() {
    let compiler = Compiler::new();
    let mut module = compiler.parse(GRAPH, "graph.mlir").unwrap();
    let err = compiler
        .run_pipeline(
            &mut module,
            "builtin.module(fold-idempotent-unary{ops=coreai.exp})",
        )
        .unwrap_err();
    assert!(matches!(err, Error::Pipeline(_)), "{err:?}");
}

#[test]
fn typed_builders_build_verified_ops() {
    let compiler = Compiler::new();
    let context = compiler.context();
    let location = Location::unknown(context);
    let f32 = melior::ir::r#type::Type::float32(context);
    let tensor: melior::ir::Type = RankedTensorType::new(&[2, 3], f32, None).into();

    // coreai.graph @g(%x) -> tensor { abs(x); output }
    let block = Block::new(&[(tensor, location)]);
    let x = block.argument(0).unwrap().into();
    let abs =
        block.append_operation(coreai::dialects::coreai::abs(context, tensor, x, location).into());
    let abs_result = abs.result(0).unwrap().into();
    let add = block.append_operation(
        coreai::dialects::coreai::decomposable_broadcasting_add(
            context, tensor, abs_result, x, location,
        )
        .into(),
    );
    block.append_operation(
        coreai::dialects::coreai::output(context, &[add.result(0).unwrap().into()], location)
            .into(),
    );
    let region = Region::new();
    region.append_block(block);
    let function_type = FunctionType::new(context, &[tensor], &[tensor]);
    let param_decls =
        melior::ir::Attribute::parse(context, "#param.decl.array<[]>").expect("param attr");
    let graph = coreai::dialects::coreai::graph(
        context,
        region,
        StringAttribute::new(context, "g"),
        TypeAttribute::new(function_type.into()),
        param_decls,
        location,
    );
    let module = Module::new(location);
    module.body().append_operation(graph.into());
    assert!(module.as_operation().verify());
    let text = module.as_operation().to_string();
    assert!(text.contains("coreai.graph @g("), "{text}");
    assert!(
        text.contains("coreai.decomposable.broadcasting_add"),
        "{text}"
    );

    // aten.relu.default in a func.func body.
    let block = Block::new(&[(tensor, location)]);
    let x = block.argument(0).unwrap().into();
    let relu = block.append_operation(
        coreai::dialects::aten::relu_default(context, tensor, x, location).into(),
    );
    assert_eq!(
        relu.name().as_string_ref().as_str().unwrap(),
        "aten.relu.default"
    );
}

/// Regression (issue 20): `aten.operator` named by a string that is not UTF-8
/// made legalize-aten-to-coreai panic inside melior. `Compiler::parse`
/// refuses such a module at load; a module parsed another way reaches the
/// pass, which must report the op as unsupported, once, without panicking.
const NON_UTF8_OPERATOR: &str = r#"
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = aten.operator "my\FFlib::op.default"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"#;

#[test]
fn non_utf8_names_are_refused_at_load() {
    let compiler = Compiler::new();
    let err = compiler
        .parse(NON_UTF8_OPERATOR, "names.mlir")
        .expect_err("must fail");
    let text = err.to_string();
    assert!(
        text.contains("names.mlir:3:") && text.contains("is not valid UTF-8"),
        "{text}"
    );
    assert_eq!(text.matches("error").count(), 1, "{text}");
}

#[test]
fn non_utf8_operator_name_is_a_diagnostic_not_a_panic() {
    let compiler = Compiler::new();
    let mut module = Module::parse(compiler.context(), NON_UTF8_OPERATOR).expect("parses");
    let err = compiler
        .run_pipeline(&mut module, "builtin.module(legalize-aten-to-coreai)")
        .expect_err("an unknown op must fail the pass");
    let text = err.to_string();
    assert!(text.contains("my\u{FFFD}lib::op.default"), "{text}");
    assert_eq!(text.matches("error").count(), 1, "{text}");
}

/// `core-optimize` run through the library folds a weight with the
/// executor's kernels, as `coreai-opt` does: nothing has to be installed
/// first. The folded values are exact in f32 (the weight times 0.5,
/// transposed); `test/capi/fold.c` runs the same module from C and diffs
/// its output with `coreai-opt`'s.
#[test]
fn core_optimize_from_the_library_folds_a_weight() {
    let compiler = Compiler::new();
    let source = include_str!("../capi/Inputs/foldable-weight.mlir");
    let mut module = compiler
        .parse(source, "foldable-weight.mlir")
        .expect("valid IR");
    compiler
        .run_pipeline(&mut module, "builtin.module(core-optimize)")
        .expect("pipeline runs");
    let text = module.as_operation().to_string();
    let folded = "coreai.constant dense<[[5.000000e-01, 1.500000e+00], [-1.000000e+00, 1.250000e-01], [2.500000e-01, -5.000000e-01]]> : tensor<3x2xf32>";
    assert!(text.contains(folded), "{text}");
    for gone in ["coreai.mul", "coreai.transpose"] {
        assert!(!text.contains(gone), "{gone} left in\n{text}");
    }
}

/// `Compiler::compile` runs every stage and the backend in memory: the
/// coreai-format program parses back with the weight folded and the target
/// passes applied (f16 compute on the Neural Engine); the aicode program is
/// MLIR bytecode of the `aicode` dialect. (`test/capi/compile.c` checks the
/// C API's program byte for byte against `coreai-compile`'s asset.)
#[test]
fn compile_runs_the_pipeline_and_the_backend_in_memory() {
    use coreai::{
        backend::Format,
        compile::{CompileOptions, Target},
    };
    let compiler = Compiler::new();
    let source = include_str!("../capi/Inputs/foldable-weight.mlir");
    let options = CompileOptions {
        target: Target::Ane,
        format: Format::Coreai,
        ..CompileOptions::default()
    };
    let mut module = compiler.parse(source, "in.mlir").expect("valid IR");
    let program = compiler.compile(&mut module, &options).expect("compiles");
    let back = compiler
        .parse_bytes(&program, "program.mlirb")
        .expect("the program is coreai bytecode");
    let text = back.as_operation().to_string();
    assert!(
        text.contains("tensor<3x2xf16>"),
        "f16 compute expected:\n{text}"
    );
    assert!(!text.contains("coreai.transpose"), "{text}");

    let mut module = compiler.parse(source, "in.mlir").expect("valid IR");
    let aicode = compiler
        .compile(&mut module, &CompileOptions::default())
        .expect("compiles");
    assert!(aicode.starts_with(b"ML\xefR"), "MLIR bytecode expected");
    assert!(
        aicode.windows(b"aicode".len()).any(|w| w == b"aicode"),
        "the aicode dialect expected"
    );
}
