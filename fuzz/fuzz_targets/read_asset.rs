//! An asset's program as coreai-opt and coreai-run read it when it is in
//! coreai-core's `aicode` serialization: the bytecode reader and the aicode
//! reader (both Rust, `coreai-asset`) turn it into coreai IR text, which MLIR
//! then parses and verifies. The input is what follows MLIR's magic number.

use libfuzzer_sys::fuzz_target;

thread_local! {
    static COMPILER: coreai::Compiler = coreai::Compiler::new();
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = coreai_asset::bytecode::MAGIC.to_vec();
    bytes.extend_from_slice(data);
    if !coreai_asset::aicode::reader::is_aicode(&bytes) {
        return;
    }
    let Ok(text) = coreai_asset::aicode::reader::to_coreai(&bytes) else {
        return;
    };
    COMPILER.with(|compiler| {
        let _ = compiler.parse(&text, "fuzz.mlir");
    });
});

fn main() {
    coreai_fuzz::run()
}
