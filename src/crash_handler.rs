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

extern "C" fn on_fatal_signal(_: libc::c_int) {
    die(&FAULT_MESSAGE, &FAULT_MESSAGE_LEN)
}

extern "C" fn on_timeout(_: libc::c_int) {
    die(&TIMEOUT_MESSAGE, &TIMEOUT_MESSAGE_LEN)
}
