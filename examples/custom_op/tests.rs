//! User lowerings: registered per compiler instance, checked against the
//! reserved namespaces, and used by `legalize-aten-to-coreai`.

use coreai::{
    lowering::{LoweringCx, RegisterError},
    Compiler,
};
use std::sync::Arc;

const SCALED_ADD: &str = r#"
func.func @main(%x: tensor<4xf32> {coreai.name = "x"}, %y: tensor<4xf32> {coreai.name = "y"}) -> (tensor<4xf32> {coreai.name = "out"}) {
  %0 = aten.operator "my_lib::scaled_add.default"(%x, %y) {scale = 0.5 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"#;

use crate::scaled_add::scaled_add;

#[test]
fn a_registered_lowering_lowers_a_custom_op() {
    let compiler = Compiler::new();
    compiler
        .register_lowering("my_lib::scaled_add.default", false, scaled_add())
        .unwrap();
    let mut module = compiler.parse(SCALED_ADD, "m.mlir").unwrap();
    compiler
        .run_pipeline(&mut module, "builtin.module(legalize-aten-to-coreai)")
        .expect("lowers");
    let text = module.as_operation().to_string();
    assert!(
        text.contains("coreai.constant dense<5.000000e-01> : tensor<f32>"),
        "{text}"
    );
    assert!(
        text.contains("coreai.decomposable.broadcasting_add"),
        "{text}"
    );
    assert!(!text.contains("aten."), "{text}");
}

#[test]
fn lowerings_are_scoped_to_their_compiler() {
    let with = Compiler::new();
    with.register_lowering("my_lib::scaled_add.default", false, scaled_add())
        .unwrap();
    let without = Compiler::new();
    let mut module = without.parse(SCALED_ADD, "m.mlir").unwrap();
    let err = without
        .run_pipeline(&mut module, "builtin.module(legalize-aten-to-coreai)")
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("unsupported ops: my_lib::scaled_add.default"),
        "{err}"
    );
    assert_eq!(
        format!("{with:?}"),
        "Compiler { user_lowerings: [\"my_lib::scaled_add.default\"] }"
    );
    assert_eq!(format!("{without:?}"), "Compiler { user_lowerings: [] }");
}

#[test]
fn reserved_builtins_need_allow_override() {
    let compiler = Compiler::new();
    let err = compiler
        .register_lowering("aten::add.Tensor", false, scaled_add())
        .unwrap_err();
    assert!(matches!(err, RegisterError::AlreadyRegistered(_)), "{err}");
    compiler
        .register_lowering("aten::add.Tensor", true, scaled_add())
        .expect("override allowed");
    // A key the built-in resolver lacks needs no override.
    compiler
        .register_lowering("aten::mean.names_dim", false, scaled_add())
        .expect("new aten key");
    // Registering twice needs an override too.
    compiler
        .register_lowering("my_lib::op.default", false, scaled_add())
        .unwrap();
    assert!(compiler
        .register_lowering("my_lib::op.default", false, scaled_add())
        .is_err());
    assert!(matches!(
        compiler.register_lowering("scaled_add", false, scaled_add()),
        Err(RegisterError::Malformed(_))
    ));
}

#[test]
fn an_override_replaces_the_builtin_lowering() {
    let compiler = Compiler::new();
    // Lower add.Tensor to a multiplication: absurd, but visible.
    compiler
        .register_lowering(
            "aten::add.Tensor",
            true,
            Arc::new(|cx: &LoweringCx<'_, '_>| {
                let (a, b) = (cx.operand(0)?, cx.operand(1)?);
                Ok(vec![cx.build_value(
                    "coreai.decomposable.broadcasting_mul",
                    &[a, b],
                    cx.result_type(0)?,
                    &[],
                )?])
            }),
        )
        .unwrap();
    let mut module = compiler
        .parse(
            "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = aten.add.Tensor %a, %a {alpha = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
            "m.mlir",
        )
        .unwrap();
    compiler
        .run_pipeline(&mut module, "builtin.module(legalize-aten-to-coreai)")
        .unwrap();
    let text = module.as_operation().to_string();
    assert!(text.contains("broadcasting_mul"), "{text}");
    assert!(!text.contains("broadcasting_add"), "{text}");
}

/// A lowering that panics is one error at the op it was lowering, naming
/// the pass and the panic's source line, and nothing is printed besides
/// (the panic hook stays silent inside a pass).
#[test]
fn a_panicking_lowering_is_one_error_at_its_op() {
    let compiler = Compiler::new();
    let panics: coreai::lowering::UserLowering = Arc::new(|_: &LoweringCx<'_, '_>| {
        panic!("scaled_add lowering gave up");
    });
    compiler
        .register_lowering("my_lib::scaled_add.default", false, panics)
        .unwrap();
    let mut module = compiler.parse(SCALED_ADD, "m.mlir").unwrap();
    let err = compiler
        .run_pipeline(&mut module, "builtin.module(legalize-aten-to-coreai)")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("m.mlir:3:8: error: internal error in pass 'legalize-aten-to-coreai' at ")
            && err.contains("tests.rs:")
            && err.contains(": scaled_add lowering gave up (please report)"),
        "{err}"
    );
    assert_eq!(err.matches("internal error").count(), 1, "{err}");
}
