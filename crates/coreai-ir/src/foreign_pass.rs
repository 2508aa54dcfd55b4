//! A [`PassInfo`] as a pass of MLIR's pass manager: the callbacks of the
//! C++ foreign-pass shim (create, clone, destroy, set options, run), and the
//! panic handling that turns a panic inside a pass into one error
//! diagnostic at the op being rewritten.

use crate::{
    diagnostics::emit_error,
    ffi,
    pass::{configure, Pass, PassInfo},
    rewrite::RewriteOptions,
};
use melior::ir::operation::OperationRef;
use mlir_sys::{MlirOperation, MlirStringCallback, MlirStringRef};
use std::{
    ffi::{c_void, CString},
    panic::{catch_unwind, AssertUnwindSafe},
};

/// Registers `info` in MLIR's global pass registry, so textual pipelines can
/// name it.
pub fn register(info: &'static PassInfo) {
    unsafe {
        ffi::coreaiRegisterForeignPass(
            ffi::string_ref(info.name),
            ffi::string_ref(info.summary),
            ffi::string_ref(info.anchor.unwrap_or("")),
            info as *const PassInfo as *mut c_void,
            CALLBACKS,
        )
    };
}

struct Instance {
    info: &'static PassInfo,
    pass: Box<dyn Pass>,
    rewrites: RewriteOptions,
}

unsafe extern "C" fn cb_create(descriptor: *mut c_void) -> *mut c_void {
    let info = unsafe { &*(descriptor as *const PassInfo) };
    Box::into_raw(Box::new(Instance {
        info,
        pass: (info.create)(),
        rewrites: RewriteOptions::default(),
    })) as *mut c_void
}

unsafe extern "C" fn cb_clone(state: *mut c_void) -> *mut c_void {
    let instance = unsafe { &*(state as *const Instance) };
    Box::into_raw(Box::new(Instance {
        info: instance.info,
        pass: instance.pass.clone_box(),
        rewrites: instance.rewrites,
    })) as *mut c_void
}

unsafe extern "C" fn cb_destroy(state: *mut c_void) {
    drop(unsafe { Box::from_raw(state as *mut Instance) });
}

unsafe extern "C" fn cb_set_options(
    state: *mut c_void,
    options: MlirStringRef,
    error: MlirStringCallback,
    error_user_data: *mut c_void,
) -> bool {
    let instance = unsafe { &mut *(state as *mut Instance) };
    let text = String::from_utf8_lossy(&unsafe { ffi::string_ref_bytes(options) }).into_owned();
    match configure(
        instance.info,
        instance.pass.as_mut(),
        &mut instance.rewrites,
        &text,
    ) {
        Ok(()) => true,
        Err(message) => {
            if let Some(error) = error {
                unsafe { error(ffi::string_ref(&message), error_user_data) };
            }
            false
        }
    }
}

thread_local! {
    /// Set while a pass runs on this thread: the panic hook then records
    /// where a panic happened instead of printing it (the pass reports it
    /// as one error diagnostic).
    static IN_PASS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The source line of the last panic inside a pass.
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    /// The location of the op the rewrite driver is rewriting, if any: a
    /// panic's error is reported there rather than at the pass's root.
    static REWRITING: std::cell::Cell<Option<mlir_sys::MlirLocation>> =
        const { std::cell::Cell::new(None) };
}

/// Records (or, with `None`, forgets) the location of the op being
/// rewritten, for the error of a panic inside its pattern.
pub(crate) fn set_rewriting(location: Option<mlir_sys::MlirLocation>) {
    REWRITING.with(|r| r.set(location));
}

/// Chains a panic hook, once per process, that stays silent for panics
/// inside a pass (cb_run reports them) and defers to the previous hook for
/// every other panic.
fn quiet_panics_in_passes() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_PASS.with(|p| p.get()) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                PANIC_AT.with(|p| *p.borrow_mut() = at);
            } else {
                previous(info)
            }
        }));
    });
}

unsafe extern "C" fn cb_run(state: *mut c_void, op: MlirOperation) -> bool {
    let instance = unsafe { &mut *(state as *mut Instance) };
    let op = unsafe { OperationRef::from_raw(op) };
    let _span = tracing::debug_span!("pass", name = instance.info.name).entered();
    quiet_panics_in_passes();
    let was_in_pass = IN_PASS.with(|p| p.replace(true));
    let result = catch_unwind(AssertUnwindSafe(|| {
        instance.pass.run(op, &instance.rewrites)
    }));
    IN_PASS.with(|p| p.set(was_in_pass));
    match result {
        Ok(result) => result.is_ok(),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let at = PANIC_AT
                .with(|p| p.borrow_mut().take())
                .map_or(String::new(), |at| format!(" at {at}"));
            let message = format!(
                "internal error in pass '{}'{at}: {what} (please report)",
                instance.info.name
            );
            match REWRITING.with(|r| r.take()) {
                Some(location) => {
                    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
                    unsafe { mlir_sys::mlirEmitError(location, message.as_ptr()) };
                }
                None => emit_error(op, &message),
            }
            false
        }
    }
}

const CALLBACKS: ffi::CoreaiForeignPassCallbacks = ffi::CoreaiForeignPassCallbacks {
    create: cb_create,
    clone: cb_clone,
    destroy: cb_destroy,
    set_options: cb_set_options,
    run: cb_run,
};
