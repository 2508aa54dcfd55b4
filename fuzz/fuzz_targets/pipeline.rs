//! Text parse + `coreai-pipeline` (decompose, legalize-aten-to-coreai,
//! canonicalize, cse): the project's passes on any module that loads.

use libfuzzer_sys::fuzz_target;

thread_local! {
    static COMPILER: coreai::Compiler = coreai::Compiler::new();
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    COMPILER.with(|compiler| {
        if let Ok(mut module) = compiler.parse(text, "fuzz.mlir") {
            let _ = compiler.run_pipeline(&mut module, "builtin.module(coreai-pipeline)");
        }
    });
});

fn main() {
    coreai_fuzz::run()
}
