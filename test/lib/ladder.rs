//! The dispatch ladder of `legalize-aten-to-coreai` (conversion guide §7.4)
//! for coreai-torch's compression ops: user lowerings (rung 2) before the
//! variantless compression resolver (rung 4), the registration guard, and
//! the validator's report of an unknown `coreai::` op.

use coreai::{
    lowering::{LoweringCx, RegisterError},
    Compiler,
};
use std::sync::Arc;

const DEQUANTIZE: &str = r#"
func.func @main(%q: tensor<2x3xi8> {coreai.name = "q"}, %s: tensor<f32> {coreai.name = "s"}) -> (tensor<2x3xf32> {coreai.name = "out"}) {
  %0 = aten.operator "coreai::dequantize.default"(%q, %s) {operand_args = ["input", "scale"], operand_groups = array<i64: 1, 1>} : (tensor<2x3xi8>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"#;

fn lower(compiler: &Compiler, source: &str) -> Result<String, String> {
    let mut module = compiler
        .parse(source, "m.mlir")
        .map_err(|e| e.to_string())?;
    compiler
        .run_pipeline(&mut module, "builtin.module(legalize-aten-to-coreai)")
        .map_err(|e| e.to_string())?;
    Ok(module.as_operation().to_string())
}

#[test]
fn compression_ops_lower_by_the_builtin_resolver() {
    let text = lower(&Compiler::new(), DEQUANTIZE).expect("lowers");
    assert!(text.contains("coreai.dequantize"), "{text}");
}

#[test]
fn a_builtin_compression_key_needs_allow_override_in_any_variant() {
    let compiler = Compiler::new();
    let cast = || -> coreai::lowering::UserLowering {
        Arc::new(|cx: &LoweringCx<'_, '_>| {
            Ok(vec![cx.build_value(
                "coreai.cast",
                &[cx.operand(0)?],
                cx.result_type(0)?,
                &[],
            )?])
        })
    };
    for key in [
        "coreai::dequantize.default",
        "coreai::dequantize.Tensor",
        "coreaix::quantize.default",
    ] {
        let err = compiler.register_lowering(key, false, cast()).unwrap_err();
        assert!(
            matches!(err, RegisterError::AlreadyRegistered(_)),
            "{key}: {err}"
        );
    }
    // Not a built-in key: no override needed.
    compiler
        .register_lowering("coreai::quantize.out", false, cast())
        .expect("quantize.out is not stripped");
    // With the override, the user lowering (rung 2) wins over rung 4.
    compiler
        .register_lowering("coreai::dequantize.default", true, cast())
        .unwrap();
    let text = lower(&compiler, DEQUANTIZE).expect("lowers");
    assert!(text.contains("coreai.cast"), "{text}");
    assert!(!text.contains("coreai.dequantize"), "{text}");
}

#[test]
fn an_unknown_coreai_op_is_unsupported() {
    let source = DEQUANTIZE.replace("coreai::dequantize.default", "coreai::decompress.default");
    let err = lower(&Compiler::new(), &source).unwrap_err();
    assert!(
        err.contains("unsupported ops: coreai::decompress.default"),
        "{err}"
    );
}
