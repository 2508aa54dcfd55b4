//! Declarations of `dialects/include/coreai-c/CoreAI.h`, the C API of the
//! C++ side (dialect registration, foreign passes, the mlir-opt driver).

#![allow(non_snake_case)]

use mlir_sys::{
    MlirContext, MlirDialectHandle, MlirDialectRegistry, MlirLocation, MlirLogicalResult,
    MlirModule, MlirOperation, MlirStringCallback, MlirStringRef,
};
use std::ffi::{c_char, c_int, c_void};

#[repr(C)]
#[derive(Clone, Copy)]
pub struct CoreaiForeignPassCallbacks {
    pub create: unsafe extern "C" fn(descriptor: *mut c_void) -> *mut c_void,
    pub clone: unsafe extern "C" fn(state: *mut c_void) -> *mut c_void,
    pub destroy: unsafe extern "C" fn(state: *mut c_void),
    pub set_options: unsafe extern "C" fn(
        state: *mut c_void,
        options: MlirStringRef,
        error: MlirStringCallback,
        error_user_data: *mut c_void,
    ) -> bool,
    pub run: unsafe extern "C" fn(state: *mut c_void, op: MlirOperation) -> bool,
}

#[repr(C)]
pub struct CoreaiOptConfig {
    pub pass_pipeline: MlirStringRef,
    pub split_input_marker: MlirStringRef,
    pub output_split_marker: MlirStringRef,
    pub verify_diagnostics: bool,
    pub verify_each: bool,
    pub emit_bytecode: bool,
    pub bytecode_version: i64,
    pub skip_teardown: bool,
    pub verify_roundtrip: bool,
    pub read_timeout_seconds: std::ffi::c_uint,
    /// Receives the module after the pipeline instead of the output.
    pub sink: Option<unsafe extern "C" fn(module: MlirOperation, user_data: *mut c_void) -> bool>,
    pub sink_user_data: *mut c_void,
}

unsafe extern "C" {
    pub fn coreaiDenseResourceElementsGetData(
        attr: mlir_sys::MlirAttribute,
        size: *mut usize,
    ) -> *const c_void;
    pub fn coreaiDenseResourceElementsGetAlignment(attr: mlir_sys::MlirAttribute) -> usize;
    pub fn mlirGetDialectHandle__aten__() -> MlirDialectHandle;
    pub fn mlirGetDialectHandle__coreai__() -> MlirDialectHandle;
    pub fn mlirGetDialectHandle__param__() -> MlirDialectHandle;
    pub fn mlirGetDialectHandle__coreaix__() -> MlirDialectHandle;
    pub fn coreaiRegisterAllDialects(registry: MlirDialectRegistry);
    pub fn coreaiParseModule(
        context: MlirContext,
        source: MlirStringRef,
        buffer_name: MlirStringRef,
    ) -> MlirModule;
    pub fn coreaiParseModuleFile(context: MlirContext, path: MlirStringRef) -> MlirModule;
    pub fn coreaiEmitErrorWithNotes(
        location: MlirLocation,
        message: MlirStringRef,
        num_notes: isize,
        note_locations: *const MlirLocation,
        note_messages: *const MlirStringRef,
    );
    pub fn coreaiEmitRemark(location: MlirLocation, message: MlirStringRef);
    pub fn coreaiRegisterUpstreamPasses();
    pub fn coreaiForEachUpstreamPass(callback: MlirStringCallback, user_data: *mut c_void);
    pub fn coreaiDescribeRegisteredPass(
        argument: MlirStringRef,
        callback: MlirStringCallback,
        user_data: *mut c_void,
    ) -> bool;
    pub fn coreaiRegisterForeignPass(
        argument: MlirStringRef,
        description: MlirStringRef,
        anchor: MlirStringRef,
        descriptor: *mut c_void,
        callbacks: CoreaiForeignPassCallbacks,
    ) -> bool;
    pub fn coreaiRegisterPipeline(
        argument: MlirStringRef,
        description: MlirStringRef,
        expansion: MlirStringRef,
    ) -> bool;
    pub fn coreaiParseMlirOptions(argc: c_int, argv: *const *const c_char) -> bool;
    pub fn coreaiOptMain(
        input: MlirStringRef,
        buffer_name: MlirStringRef,
        config: *const CoreaiOptConfig,
        output: MlirStringCallback,
        user_data: *mut c_void,
    ) -> MlirLogicalResult;
    pub fn coreaiInputFileOpen(
        path: MlirStringRef,
        error: MlirStringCallback,
        error_user_data: *mut c_void,
    ) -> CoreaiInputFile;
    pub fn coreaiInputFileGetBuffer(input: CoreaiInputFile, size: *mut usize) -> *const c_char;
    pub fn coreaiCheckLoadedIR(op: MlirOperation) -> bool;
    pub fn coreaiAttachExternalWeights(module: MlirOperation, input_path: MlirStringRef) -> bool;
    pub fn coreaiProvideWeights(
        path: MlirStringRef,
        count: isize,
        names: *const MlirStringRef,
        data: *const *const c_void,
        sizes: *const usize,
    );
    pub fn coreaiReleaseResourcePages(attr: mlir_sys::MlirAttribute) -> bool;
    pub fn coreaiDropResourceBlob(attr: mlir_sys::MlirAttribute) -> bool;
    pub fn coreaiInputFileDestroy(input: CoreaiInputFile);
    pub fn coreaiOptMainFile(
        input: CoreaiInputFile,
        config: *const CoreaiOptConfig,
        output_fd: c_int,
        write_error: MlirStringCallback,
        error_user_data: *mut c_void,
    ) -> MlirLogicalResult;
}

/// An input file opened by `coreaiInputFileOpen` (mapped, not copied).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CoreaiInputFile {
    pub ptr: *mut c_void,
}

/// A borrowed `MlirStringRef` over `s` (valid while `s` is).
pub fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const c_char,
        length: s.len(),
    }
}

/// A borrowed `MlirStringRef` over arbitrary bytes (valid while `b` is).
pub fn bytes_ref(b: &[u8]) -> MlirStringRef {
    MlirStringRef {
        data: b.as_ptr() as *const c_char,
        length: b.len(),
    }
}

/// Copies the bytes of an `MlirStringRef`.
///
/// # Safety
/// `s` must point at `s.length` readable bytes (or be empty).
pub unsafe fn string_ref_bytes(s: MlirStringRef) -> Vec<u8> {
    if s.length == 0 {
        return Vec::new();
    }
    unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) }.to_vec()
}

/// An `MlirStringCallback` appending to the `Vec<u8>` behind `user_data`.
///
/// # Safety
/// `user_data` must point at a live `Vec<u8>` not borrowed elsewhere, and `s`
/// at `s.length` readable bytes (or be empty).
pub unsafe extern "C" fn append_to_vec(s: MlirStringRef, user_data: *mut c_void) {
    let out = unsafe { &mut *(user_data as *mut Vec<u8>) };
    if s.length > 0 {
        out.extend_from_slice(unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) });
    }
}

/// The text an MLIR print function writes through its string callback:
/// `print` gets the callback and its user data.
pub fn printed(print: impl FnOnce(mlir_sys::MlirStringCallback, *mut c_void)) -> String {
    let mut out: Vec<u8> = Vec::new();
    print(Some(append_to_vec), &mut out as *mut Vec<u8> as *mut c_void);
    String::from_utf8_lossy(&out).into_owned()
}
