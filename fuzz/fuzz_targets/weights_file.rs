//! The weights file (`coreai.weights`, a safetensors file beside a module):
//! the input is the file, given to a fixed module whose constants take
//! their bytes from it (`coreaiAttachExternalWeights`, as coreai-opt,
//! coreai-run and coreai-compile load such a module). `fuzz/seed.py` writes
//! seeds that fit the module.

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

/// One constant per kind of element type the reader sizes: f32, i64, i1,
/// f16, complex<f32>, an empty tensor, and a key used twice. seed.py's
/// `WEIGHTS_MODULE` holds the same keys and sizes.
const MODULE: &str = r#"module attributes {coreai.weights = "w.safetensors"} {
  func.func @main() -> (tensor<2x3xf32>, tensor<4xi64>, tensor<3xi1>, tensor<5xf16>, tensor<2xcomplex<f32>>, tensor<0xf32>, tensor<2x3xf32>) {
    %a = arith.constant dense_resource<a> : tensor<2x3xf32>
    %b = arith.constant dense_resource<b> : tensor<4xi64>
    %c = arith.constant dense_resource<c> : tensor<3xi1>
    %d = arith.constant dense_resource<d> : tensor<5xf16>
    %e = arith.constant dense_resource<e> : tensor<2xcomplex<f32>>
    %f = arith.constant dense_resource<f> : tensor<0xf32>
    %g = arith.constant dense_resource<a> : tensor<2x3xf32>
    return %a, %b, %c, %d, %e, %f, %g : tensor<2x3xf32>, tensor<4xi64>, tensor<3xi1>, tensor<5xf16>, tensor<2xcomplex<f32>>, tensor<0xf32>, tensor<2x3xf32>
  }
}
"#;

thread_local! {
    static DIR: PathBuf = {
        let dir = std::env::temp_dir().join(format!("coreai-fuzz-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    };
}

fuzz_target!(|data: &[u8]| {
    DIR.with(|dir| {
        std::fs::write(dir.join("w.safetensors"), data).expect("the weights file written");
        let name = dir.join("m.mlir");
        // A context per input: in a shared one MLIR would rename the keys
        // of the second module it reads (`a_1`), which the file lacks.
        let compiler = coreai::Compiler::new();
        if let Ok(module) = compiler.parse(MODULE, &name.to_string_lossy()) {
            let _ = module.as_operation().to_string();
        };
    });
});

fn main() {
    coreai_fuzz::run()
}
