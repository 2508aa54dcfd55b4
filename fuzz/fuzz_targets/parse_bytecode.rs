//! Bytecode parse + verify: the input is what follows MLIR's magic number,
//! so every input reaches the bytecode reader (after the input check).

use coreai::{ffi, input_check};
use libfuzzer_sys::fuzz_target;
use melior::ir::{operation::OperationLike, Module};

thread_local! {
    static COMPILER: coreai::Compiler = coreai::Compiler::new();
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = b"ML\xefR".to_vec();
    bytes.extend_from_slice(data);
    if input_check::check_module_file(&bytes, "fuzz.mlirbc").is_err() {
        return;
    }
    COMPILER.with(|compiler| {
        let context = compiler.context();
        // Diagnostics are printed by MLIR's default handler otherwise.
        let id = context.attach_diagnostic_handler(|_| true);
        let module = unsafe {
            Module::from_option_raw(ffi::coreaiParseModule(
                context.to_raw(),
                ffi::bytes_ref(&bytes),
                ffi::string_ref("fuzz.mlirbc"),
            ))
        };
        if let Some(module) = module {
            if unsafe { ffi::coreaiCheckLoadedIR(module.as_operation().to_raw()) } {
                let _ = module.as_operation().verify();
            }
        }
        context.detach_diagnostic_handler(id);
    });
});

fn main() {
    coreai_fuzz::run()
}
