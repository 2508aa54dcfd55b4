//! The diagnostics passes emit: an error at an op, and one error with a note
//! per offending op.

use crate::ffi;
use melior::ir::operation::{OperationLike, OperationRef};
use mlir_sys::MlirStringRef;
use std::ffi::CString;

/// Emits an error diagnostic at `op`'s location.
pub fn emit_error(op: OperationRef<'_, '_>, message: &str) {
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { mlir_sys::mlirEmitError(op.location().to_raw(), message.as_ptr()) };
}

/// One offending op of a validation: where it is, its name in the error's
/// list, and the note at its location.
pub struct Offender {
    pub location: mlir_sys::MlirLocation,
    pub display: String,
    pub note: String,
}

/// The offenders' names, sorted and de-duplicated, comma-separated.
pub fn sorted_unique(offenders: &[Offender]) -> String {
    let mut names: Vec<&str> = offenders.iter().map(|o| o.display.as_str()).collect();
    names.sort();
    names.dedup();
    names.join(", ")
}

/// One error at the first offender's location, one note per offender.
pub fn emit_with_notes(offenders: &[Offender], message: &str) {
    let Some(first) = offenders.first() else {
        return;
    };
    let locations: Vec<mlir_sys::MlirLocation> = offenders.iter().map(|o| o.location).collect();
    let notes: Vec<MlirStringRef> = offenders.iter().map(|o| ffi::string_ref(&o.note)).collect();
    unsafe {
        ffi::coreaiEmitErrorWithNotes(
            first.location,
            ffi::string_ref(message),
            notes.len() as isize,
            locations.as_ptr(),
            notes.as_ptr(),
        )
    };
}
