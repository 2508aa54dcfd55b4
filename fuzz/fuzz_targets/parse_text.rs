//! Text parse + verify, as coreai-opt and coreai-run load a module: the
//! input check, MLIR's parser, the loaded-IR check, the verifier.

use libfuzzer_sys::{fuzz_mutator, fuzz_target};

thread_local! {
    static COMPILER: coreai::Compiler = coreai::Compiler::new();
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A known MLIR 22 parser fault (upstream-forward-ref.test), skipped.
    if coreai_fuzz::hazards::forward_ref_captured_by_block_argument(text.as_bytes()) {
        return;
    }
    COMPILER.with(|compiler| {
        let _ = compiler.parse(text, "fuzz.mlir");
    });
});

// Grammar-aware edits keep most mutants past the parser (src/mutator.rs).
fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    coreai_fuzz::mutator::mutate(data, size, max_size, seed, libfuzzer_sys::fuzzer_mutate)
});

fn main() {
    coreai_fuzz::run()
}
