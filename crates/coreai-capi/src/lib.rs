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

use coreai::{
    backend::Format,
    compile::{CompileOptions, Precision, Target},
    lowering::{self, LoweringCx, UserLowering},
};
use melior::ir::{
    operation::{OperationLike, OperationRef},
    Value,
};
use mlir_sys::{
    mlirModuleGetOperation, MlirContext, MlirModule, MlirOperation, MlirStringCallback,
    MlirStringRef, MlirValue,
};
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

/// `CoreaiCompileOptions` of `CoreAI.h`.
#[repr(C)]
pub struct CoreaiCompileOptions {
    pub target: i32,
    pub precision: i32,
    pub format: i32,
    pub explain: bool,
    pub hw_constraints: MlirStringRef,
    pub compress: MlirStringRef,
    pub require_resident: bool,
}

fn compile_options(c: &CoreaiCompileOptions) -> Result<CompileOptions, String> {
    let target = match c.target {
        0 => Target::Cpu,
        1 => Target::Gpu,
        2 => Target::Ane,
        n => return Err(format!("target {n} is not a COREAI_TARGET_* value")),
    };
    let precision = match c.precision {
        0 => None,
        1 => Some(Precision::F32),
        2 => Some(Precision::F16),
        n => return Err(format!("precision {n} is not a COREAI_PRECISION_* value")),
    };
    let format = match c.format {
        0 => Format::Aicode,
        1 => Format::Coreai,
        n => return Err(format!("format {n} is not a COREAI_FORMAT_* value")),
    };
    let hw_constraints = if c.hw_constraints.length == 0 {
        Vec::new()
    } else {
        string(c.hw_constraints)
            .split(',')
            .map(|item| item.trim().to_string())
            .collect()
    };
    for item in &hw_constraints {
        coreai::passes::set_hw_constraints::check_item(item)?;
    }
    let compress = if c.compress.length == 0 {
        None
    } else {
        Some(coreai::compile::Compression::parse(&string(c.compress))?)
    };
    Ok(CompileOptions {
        target,
        precision,
        io: None,
        explain: c.explain,
        require_resident: c.require_resident,
        hw_constraints,
        format,
        compress,
    })
}

/// Compiles `module` in place through every stage and passes the asset's
/// program to `program` (`coreai::compile::compile_module`).
///
/// # Safety
/// `module` must be a live module whose context has the project's dialects
/// loaded, `options` must point at a valid `CoreaiCompileOptions` whose
/// `hwConstraints` points at `length` readable bytes, and the user data must
/// stay valid for their callbacks during this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn coreaiCompile(
    module: MlirModule,
    options: *const CoreaiCompileOptions,
    program: MlirStringCallback,
    program_user_data: *mut c_void,
    error: MlirStringCallback,
    error_user_data: *mut c_void,
) -> bool {
    let fail = |text: String| {
        if let Some(error) = error {
            unsafe { error(string_ref(&text), error_user_data) };
        }
        false
    };
    let Some(options) = (unsafe { options.as_ref() }) else {
        return fail("no options".into());
    };
    let options = match compile_options(options) {
        Ok(options) => options,
        Err(e) => return fail(e),
    };
    let op = unsafe { OperationRef::from_raw(mlirModuleGetOperation(module)) };
    match coreai::compile::compile_module(op, &options) {
        Ok(bytes) => {
            if let Some(program) = program {
                unsafe { program(string_ref_bytes(&bytes), program_user_data) };
            }
            true
        }
        Err(coreai::Error::PassFailed(_)) => false,
        Err(e) => fail(e.to_string()),
    }
}

fn string_ref(text: &str) -> MlirStringRef {
    string_ref_bytes(text.as_bytes())
}

fn string_ref_bytes(bytes: &[u8]) -> MlirStringRef {
    MlirStringRef {
        data: bytes.as_ptr() as *const _,
        length: bytes.len(),
    }
}
