//! Text parse + verify, as coreai-opt and coreai-run load a module: the
//! input check, MLIR's parser, the loaded-IR check, the verifier.

use libfuzzer_sys::fuzz_target;

thread_local! {
    static COMPILER: coreai::Compiler = coreai::Compiler::new();
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    COMPILER.with(|compiler| {
        let _ = compiler.parse(text, "fuzz.mlir");
    });
});

fn main() {
    coreai_fuzz::run()
}
