//! What the fuzz targets share: libFuzzer's driver started from a Rust
//! `main`.
//!
//! A target normally leaves `main` to libFuzzer (`#![no_main]`), and the
//! linker takes the first `main` it finds in the static archives. MLIR 22
//! ships one too (`libMLIRMlirOptMain.a`, mlir-opt's own `main`), and in
//! the targets that link the whole pass registry the linker picked that
//! one: the binary was mlir-opt, and refused libFuzzer's flags as unknown
//! LLVM options. Each target therefore defines `main` and calls
//! [`run`], which hands the process arguments to `LLVMFuzzerRunDriver`
//! with the `LLVMFuzzerTestOneInput` of `libfuzzer_sys::fuzz_target!`.

pub mod hazards;
pub mod mutator;

use std::ffi::{c_char, c_int, CString};

extern "C" {
    fn LLVMFuzzerRunDriver(
        argc: *mut c_int,
        argv: *mut *mut *mut c_char,
        callback: extern "C" fn(*const u8, usize) -> c_int,
    ) -> c_int;
    fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> c_int;
}

/// `COREAI_FUZZ_LAST_INPUT=DIR`: each input is written, before it runs, to
/// `DIR/last-input.PID.N`, N counting 0 to 63 and round again. A stack
/// overflow kills a worker before libFuzzer's own crash handler can save
/// the input (the handler needs the exhausted stack), and a heap corruption
/// may have been caused by an earlier input of the same process (the
/// targets keep one MLIR context): the last 64 inputs, replayed in order
/// (`TARGET FILE...`), reproduce either.
static LAST_INPUT: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
static INPUTS_RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

extern "C" fn test_one_input(data: *const u8, size: usize) -> c_int {
    let last =
        LAST_INPUT.get_or_init(|| std::env::var_os("COREAI_FUZZ_LAST_INPUT").map(Into::into));
    if let Some(dir) = last {
        let n = INPUTS_RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 64;
        let path = dir.join(format!("last-input.{}.{n:02}", std::process::id()));
        let bytes = if size == 0 {
            &[][..]
        } else {
            // SAFETY: libFuzzer passes `size` readable bytes at `data`.
            unsafe { std::slice::from_raw_parts(data, size) }
        };
        let _ = std::fs::write(path, bytes);
    }
    unsafe { LLVMFuzzerTestOneInput(data, size) }
}

/// Runs libFuzzer on the process arguments and exits with its status.
pub fn run() -> ! {
    let args: Vec<CString> = std::env::args_os()
        .map(|a| CString::new(a.into_encoded_bytes()).expect("an argument holds a NUL byte"))
        .collect();
    let mut pointers: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    pointers.push(std::ptr::null_mut());
    let mut argc = args.len() as c_int;
    let mut argv = pointers.as_mut_ptr();
    let status = unsafe { LLVMFuzzerRunDriver(&mut argc, &mut argv, test_one_input) };
    std::process::exit(status)
}
