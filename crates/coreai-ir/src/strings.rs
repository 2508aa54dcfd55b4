//! MLIR strings as Rust text.
//!
//! MLIR strings are bytes: a string attribute parsed from `"\FF"` in text, or
//! read from bytecode, need not be UTF-8, and melior's
//! `StringAttribute::value` panics on such a string (and `StringRef::as_str`
//! on an empty one). Passes read string attributes through [`string_value`]
//! instead, which never panics.

use melior::ir::{attribute::StringAttribute, Attribute, AttributeLike};
use std::borrow::Cow;

/// The value of `attr` if it is a string attribute, with any byte sequence
/// that is not UTF-8 replaced by U+FFFD (so an op named by such a string is
/// reported as unknown rather than crashing the pass).
pub fn string_value<'c>(attr: Attribute<'c>) -> Option<Cow<'c, str>> {
    StringAttribute::try_from(attr).ok()?;
    let raw = unsafe { mlir_sys::mlirStringAttrGetValue(attr.to_raw()) };
    if raw.length == 0 {
        return Some(Cow::Borrowed(""));
    }
    // SAFETY: the attribute is uniqued in its context, which owns these
    // `length` bytes for at least 'c.
    let bytes: &'c [u8] = unsafe { std::slice::from_raw_parts(raw.data as *const u8, raw.length) };
    Some(String::from_utf8_lossy(bytes))
}
