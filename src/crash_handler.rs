//! The tools' last resort: one message instead of a silent death.
//!
//! Some inputs crash MLIR's own readers in ways no check before parsing can
//! rule out (the IR section of bytecode is only understood by MLIR). For
//! those, [`install`] sets handlers for the fatal signals (SIGSEGV, SIGBUS,
//! SIGILL, SIGFPE, SIGABRT) that print `TOOL: error: internal error while
//! reading FILE: please report`, remove the temporary output file registered
//! with [`set_temporary_output`], and exit with status 1. [`arm_timeout`]
//! does the same for a run that exceeds its time limit (SIGALRM).
//!
//! LLVM's fatal errors (`report_fatal_error`, e.g. "SmallVector unable to
//! grow" on a size read from a malformed file) end the same way, with LLVM's
//! reason in the one message: `... please report (REASON)`.
//!
//! A run stopped from outside (SIGTERM, SIGINT, SIGHUP) removes the
//! registered temporary output too, then ends by the same signal, as it
//! would have without a handler.
//!
//! The handlers only call async-signal-safe functions (`write`, `unlink`,
//! `_exit`) on data prepared before the fault. They run on the alternate
//! signal stack Rust's runtime sets up for the main thread, so a stack
//! overflow in a recursive reader is caught too.

use std::{
    ffi::CString,
    path::Path,
    sync::atomic::{AtomicPtr, AtomicUsize, Ordering},
};

/// The message for a fault and for a timeout, and the temporary output's
/// path (NUL-terminated), each leaked so a handler can read it at any time.
static FAULT_MESSAGE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static FAULT_MESSAGE_LEN: AtomicUsize = AtomicUsize::new(0);
static TIMEOUT_MESSAGE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static TIMEOUT_MESSAGE_LEN: AtomicUsize = AtomicUsize::new(0);
static TEMPORARY_OUTPUT: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

const TERMINATION_SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

const FATAL_SIGNALS: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];

fn leak_message(text: String, ptr: &AtomicPtr<u8>, len: &AtomicUsize) {
    let bytes: &'static mut [u8] = Box::leak(text.into_bytes().into_boxed_slice());
    len.store(bytes.len(), Ordering::SeqCst);
    ptr.store(bytes.as_mut_ptr(), Ordering::SeqCst);
}

/// Sets the fatal-signal handlers of `tool` (`coreai-opt`) while it reads
/// or processes `input`. May be called again to change the phase
/// (`"reading"`, `"running"`).
pub fn install(tool: &str, phase: &str, input: &str) {
    leak_message(
        format!("{tool}: error: internal error while {phase} {input}: please report\n"),
        &FAULT_MESSAGE,
        &FAULT_MESSAGE_LEN,
    );
    for signal in FATAL_SIGNALS {
        set_handler(signal, on_fatal_signal);
    }
    for signal in TERMINATION_SIGNALS {
        set_handler(signal, on_termination);
    }
    // SAFETY: installs a handler that never returns; LLVM keeps the pointer.
    unsafe { LLVMInstallFatalErrorHandler(on_llvm_fatal_error) };
}

unsafe extern "C" {
    /// `llvm-c/ErrorHandling.h`: the handler `report_fatal_error` calls
    /// instead of printing `LLVM ERROR: REASON` and exiting.
    fn LLVMInstallFatalErrorHandler(handler: extern "C" fn(*const libc::c_char));
}

/// Ends the process with a message after `seconds` (0: never).
pub fn arm_timeout(tool: &str, input: &str, seconds: u32) {
    if seconds == 0 {
        return;
    }
    leak_message(
        format!("{tool}: error: {input}: no result after {seconds} s; stopped (--timeout)\n"),
        &TIMEOUT_MESSAGE,
        &TIMEOUT_MESSAGE_LEN,
    );
    set_handler(libc::SIGALRM, on_timeout);
    unsafe { libc::alarm(seconds) };
}

/// The reading time limit of a run without `--timeout`: a minute, and a
/// second more per MiB of input (MLIR reads hundreds of MiB a second), so
/// a well-formed file never meets it and a reader that loops on a
/// malformed one is stopped. `COREAI_READ_TIME_LIMIT=SECONDS` sets it
/// instead (the tests use it).
pub fn read_time_limit(input_bytes: u64) -> u32 {
    if let Some(seconds) = std::env::var("COREAI_READ_TIME_LIMIT")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|&s| s > 0)
    {
        return seconds;
    }
    60 + u32::try_from(input_bytes >> 20)
        .unwrap_or(u32::MAX - 60)
        .min(u32::MAX - 60)
}

/// Prepares the SIGALRM handler for a limit on reading `input` only: the
/// caller arms and cancels the alarm around the parse (`alarm(2)`), as
/// `coreaiOptMainFile` does with `readTimeoutSeconds`. Returns `seconds`.
pub fn arm_read_timeout(tool: &str, input: &str, seconds: u32) -> u32 {
    leak_message(
        format!(
            "{tool}: error: reading {input} took more than {seconds} s (a malformed file?); stopped\n"
        ),
        &TIMEOUT_MESSAGE,
        &TIMEOUT_MESSAGE_LEN,
    );
    set_handler(libc::SIGALRM, on_timeout);
    seconds
}

/// Runs `read` (the parse of `input`) under the reading time limit of
/// [`read_time_limit`]: past it, the SIGALRM handler prints the message of
/// [`arm_read_timeout`] and exits with status 1.
pub fn bounded_read<T>(tool: &str, input: &Path, read: impl FnOnce() -> T) -> T {
    let bytes = std::fs::metadata(input).map_or(0, |m| m.len());
    let seconds = arm_read_timeout(tool, &input.display().to_string(), read_time_limit(bytes));
    unsafe { libc::alarm(seconds) };
    let result = read();
    unsafe { libc::alarm(0) };
    result
}

/// The temporary output file to remove if the process dies (None: none).
pub fn set_temporary_output(path: Option<&Path>) {
    use std::os::unix::ffi::OsStrExt;
    let new = path
        .and_then(|p| CString::new(p.as_os_str().as_bytes()).ok())
        .map_or(std::ptr::null_mut(), CString::into_raw);
    let old = TEMPORARY_OUTPUT.swap(new, Ordering::SeqCst);
    if !old.is_null() {
        // SAFETY: made by CString::into_raw above, and no longer visible.
        drop(unsafe { CString::from_raw(old) });
    }
}

fn set_handler(signal: libc::c_int, handler: extern "C" fn(libc::c_int)) {
    // SAFETY: a zeroed sigaction with a handler of the right type.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = handler as usize;
        action.sa_flags = libc::SA_ONSTACK | libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(signal, &action, std::ptr::null_mut());
    }
}

fn die(message: &AtomicPtr<u8>, len: &AtomicUsize) -> ! {
    // SAFETY: only async-signal-safe calls, on leaked static data.
    unsafe {
        let text = message.load(Ordering::SeqCst);
        if !text.is_null() {
            libc::write(2, text as *const libc::c_void, len.load(Ordering::SeqCst));
        }
        let tmp = TEMPORARY_OUTPUT.load(Ordering::SeqCst);
        if !tmp.is_null() {
            libc::unlink(tmp);
        }
        libc::_exit(1)
    }
}

/// LLVM's fatal error: the fault message with LLVM's reason before the
/// newline, then as [`die`].
extern "C" fn on_llvm_fatal_error(reason: *const libc::c_char) {
    // SAFETY: leaked static data and LLVM's NUL-terminated reason.
    unsafe {
        let text = FAULT_MESSAGE.load(Ordering::SeqCst);
        let len = FAULT_MESSAGE_LEN.load(Ordering::SeqCst);
        if !text.is_null() && len > 0 && !reason.is_null() {
            libc::write(2, text as *const libc::c_void, len - 1);
            libc::write(2, c" (".as_ptr() as *const libc::c_void, 2);
            libc::write(2, reason as *const libc::c_void, libc::strlen(reason));
            libc::write(2, c")\n".as_ptr() as *const libc::c_void, 2);
            FAULT_MESSAGE.store(std::ptr::null_mut(), Ordering::SeqCst);
        }
    }
    die(&FAULT_MESSAGE, &FAULT_MESSAGE_LEN)
}

extern "C" fn on_fatal_signal(_: libc::c_int) {
    die(&FAULT_MESSAGE, &FAULT_MESSAGE_LEN)
}

/// SIGTERM, SIGINT, SIGHUP: the temporary output removed, then the default
/// action of the signal (the handler was reset by `SA_RESETHAND`), so the
/// parent sees the process ended by it.
extern "C" fn on_termination(signal: libc::c_int) {
    // SAFETY: only async-signal-safe calls, on leaked static data.
    unsafe {
        let tmp = TEMPORARY_OUTPUT.load(Ordering::SeqCst);
        if !tmp.is_null() {
            libc::unlink(tmp);
        }
        libc::raise(signal);
    }
}

extern "C" fn on_timeout(_: libc::c_int) {
    die(&TIMEOUT_MESSAGE, &TIMEOUT_MESSAGE_LEN)
}
