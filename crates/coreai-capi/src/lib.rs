//! `libcoreai_capi.a`: everything a C or C++ MLIR tool needs to use coreai in
//! its own context, declared in `dialects/include/coreai-c/CoreAI.h`.
//!
//! The archive holds the dialects and their C API (C++), the passes (Rust),
//! and the static MLIR libraries of the LLVM 22 build it was made with: link
//! it in place of MLIR's own static libraries, plus LLVM's
//! (`llvm-config --link-static --libs --system-libs`) and the C++ runtime.

/// Registers the project's passes and pipelines (and the upstream passes they
/// mix with) in MLIR's global registry, so textual pipelines parsed by
/// `mlirParsePassPipeline` or `mlir::parsePassPipeline` can name them.
/// Idempotent and thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn coreaiRegisterPasses() {
    coreai::registry::register_all();
}

use coreai::lowering::{self, LoweringCx, UserLowering};
use melior::ir::{operation::OperationLike, Value};
use mlir_sys::{MlirContext, MlirOperation, MlirStringCallback, MlirStringRef, MlirValue};
use std::{ffi::c_void, sync::Arc};

/// A lowering written in C: builds its replacement ops in front of `op`
/// (e.g. `mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op,
/// new)`), writes the `numResults` values that replace `op`'s results to
/// `results` and returns true; or returns false after passing the reason to
/// `decline(reason, declineUserData)`.
pub type CoreaiLoweringFn = unsafe extern "C" fn(
    op: MlirOperation,
    results: *mut MlirValue,
    num_results: isize,
    decline: MlirStringCallback,
    decline_user_data: *mut c_void,
    user_data: *mut c_void,
) -> bool;

struct CLowering {
    function: CoreaiLoweringFn,
    user_data: *mut c_void,
}

// The C side promises its lowering may run on any thread (MLIR runs passes
// multithreaded), as for any pass callback.
unsafe impl Send for CLowering {}
unsafe impl Sync for CLowering {}

unsafe extern "C" fn append(s: MlirStringRef, user_data: *mut c_void) {
    let out = unsafe { &mut *(user_data as *mut Vec<u8>) };
    out.extend_from_slice(unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) });
}

fn string(s: MlirStringRef) -> String {
    String::from_utf8_lossy(unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) })
        .into_owned()
}

/// Registers the C lowering `lowering` for `qualified`
/// (`my_lib::op.overload`) in `context` only, with the semantics of
/// `coreai::Compiler::register_lowering` (a reserved namespace's built-in
/// or an earlier registration needs `allowOverride`). Returns false and
/// passes the reason to `error` when it cannot register.
///
/// # Safety
/// `context` must be a live MLIR context, `qualified` must point at
/// `qualified.length` readable bytes, `user_data` must stay valid for
/// `lowering` until the lowerings of `context` are forgotten, and
/// `error_user_data` for `error` during this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coreaiRegisterLowering(
    context: MlirContext,
    qualified: MlirStringRef,
    allow_override: bool,
    lowering: CoreaiLoweringFn,
    user_data: *mut c_void,
    error: MlirStringCallback,
    error_user_data: *mut c_void,
) -> bool {
    let c = Arc::new(CLowering {
        function: lowering,
        user_data,
    });
    let user: UserLowering = Arc::new(move |cx: &LoweringCx<'_, '_>| {
        let op = cx.op();
        let n = op.result_count();
        let mut results = vec![
            MlirValue {
                ptr: std::ptr::null_mut()
            };
            n
        ];
        let mut reason: Vec<u8> = Vec::new();
        let ok = unsafe {
            (c.function)(
                op.to_raw(),
                results.as_mut_ptr(),
                n as isize,
                Some(append),
                &mut reason as *mut Vec<u8> as *mut c_void,
                c.user_data,
            )
        };
        if !ok {
            let reason = String::from_utf8_lossy(&reason).into_owned();
            return Err(if reason.is_empty() {
                "the C lowering declined".into()
            } else {
                reason
            });
        }
        if results.iter().any(|v| v.ptr.is_null()) {
            return Err("the C lowering left a result value null".into());
        }
        Ok(results
            .into_iter()
            .map(|v| unsafe { Value::from_raw(v) })
            .collect())
    });
    match lowering::register_in_context(context, &string(qualified), allow_override, user) {
        Ok(()) => true,
        Err(e) => {
            if let Some(error) = error {
                let text = e.to_string();
                unsafe {
                    error(
                        MlirStringRef {
                            data: text.as_ptr() as *const _,
                            length: text.len(),
                        },
                        error_user_data,
                    )
                };
            }
            false
        }
    }
}

/// Forgets every lowering registered in `context`; call it before
/// `mlirContextDestroy`.
///
/// # Safety
/// `context` must be a live MLIR context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coreaiForgetLowerings(context: MlirContext) {
    lowering::forget_context(context);
}
