//! Permuted weights made when they are read or written.
//!
//! Folding `transpose(constant)` of a large weight copies all of its bytes
//! into fresh memory, and the asset writer copies them again into the file:
//! at 1B parameters, 4 GB of fresh pages and a permute on the critical path
//! before the file's SHA-256 can start. A deferred permute is a
//! `dense_resource` blob that names its source blob and the permutation
//! instead ([`permuted_resource`]):
//!
//! - [`blob_data`], the one way the project's code reads a blob's bytes,
//!   makes them on first read (the permute the fold would have done);
//! - [`blob_source`] hands the asset writer the recipe instead
//!   ([`Permuted::fill`]), which permutes piece by piece from the source
//!   into the file while the pieces before are hashed;
//! - a blob's source dropped first ([`before_drop`]) makes the blob first.
//!
//! The bytes are the fold's own, so the module and the asset are the same
//! bit for bit with deferral or without. Until they are made, the blob's
//! memory is a reserved mapping without access: a reader that bypasses
//! [`blob_data`] (MLIR's printer, its bytecode writer) faults at once
//! instead of reading wrong values. Folds defer only while [`enabled`], which
//! coreai-compile sets when the module's one reader is its asset writer.

use crate::ffi::coreaiDenseResourceElementsGetData;
use crate::permute::permute_rows;
use mlir_sys::{
    mlirAttributeIsADenseResourceElements, mlirUnmanagedDenseResourceElementsAttrGet,
    MlirAttribute, MlirStringRef, MlirType,
};
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Makes folds of large transposes defer (`true`) or compute (`false`, the
/// default) their bytes. Only for a process whose modules are read by the
/// project's own code alone: MLIR's printer and bytecode writer read blobs
/// without [`blob_data`].
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// Whether folds defer ([`set_enabled`]).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Blobs from this many bytes up are deferred; smaller ones cost less to
/// make than to track.
pub const MIN_BYTES: usize = 64 << 10;

/// A blob's bytes as the permutation `perm` of a row-major source of
/// `shape` with `width`-byte elements.
#[derive(Clone)]
pub struct Permuted {
    source: Source,
    shape: Vec<usize>,
    perm: Vec<usize>,
    width: usize,
    /// The alignment the blob is written with.
    alignment: usize,
}

#[derive(Clone)]
enum Source {
    /// A `dense_resource` attribute (it lives as long as its context, and
    /// its blob until [`before_drop`]).
    Blob(usize),
    /// Bytes a pass made from such a blob elementwise (its f16 cast).
    Owned(Arc<Vec<u8>>),
}

impl Permuted {
    /// The blob's length in bytes.
    pub fn len(&self) -> usize {
        self.shape.iter().product::<usize>() * self.width
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of one row of the result's first axis.
    fn row_bytes(&self) -> usize {
        self.len() / self.perm.first().map_or(1, |&p| self.shape[p]).max(1)
    }

    fn source_bytes(&self) -> &[u8] {
        match &self.source {
            Source::Blob(attr) => blob_data(MlirAttribute {
                ptr: *attr as *const c_void,
            })
            .unwrap_or(&[]),
            Source::Owned(bytes) => bytes,
        }
    }

    /// The source blob, when the recipe permutes one.
    pub fn source_attribute(&self) -> Option<MlirAttribute> {
        match self.source {
            Source::Blob(attr) => Some(MlirAttribute {
                ptr: attr as *const c_void,
            }),
            Source::Owned(_) => None,
        }
    }

    /// Bytes per element.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The same permutation of `bytes`, the source's elements mapped one
    /// for one to `width`-byte ones (an elementwise op commutes with a
    /// permute), written with `alignment`; `None` when `bytes` is not one
    /// element per source element.
    pub fn of_elementwise(&self, bytes: Vec<u8>, width: usize, alignment: usize) -> Option<Self> {
        let n: usize = self.shape.iter().product();
        (bytes.len() == n * width && width > 0).then(|| Permuted {
            source: Source::Owned(Arc::new(bytes)),
            width,
            alignment,
            ..self.clone()
        })
    }

    /// Byte ranges of whole rows of the result's first axis, about
    /// `target` bytes each, in order.
    pub fn pieces(&self, target: usize) -> Vec<Range<usize>> {
        let (len, row) = (self.len(), self.row_bytes());
        if row == 0 {
            // Nothing to write.
            return Vec::new();
        }
        let step = row * (target / row).max(1);
        (0..len)
            .step_by(step)
            .map(|s| s..(s + step).min(len))
            .collect()
    }

    /// Writes the result's bytes `range` (whole rows of its first axis) to
    /// `out`.
    pub fn fill(&self, range: Range<usize>, out: &mut [u8]) {
        let row = self.row_bytes().max(1);
        debug_assert!(range.start.is_multiple_of(row) && range.len() == out.len());
        let rows = range.start / row..range.end.div_ceil(row);
        permute_rows(
            self.source_bytes(),
            &self.shape,
            &self.perm,
            self.width,
            rows,
            out,
        );
    }
}

/// A deferred blob: its reserved memory and whether it has been made.
pub struct Entry {
    permuted: Permuted,
    base: usize,
    reserved: usize,
    made: Mutex<bool>,
}

impl Entry {
    pub fn permuted(&self) -> &Permuted {
        &self.permuted
    }

    /// Makes the bytes in the reserved memory (once), split across the
    /// cores by rows.
    fn make(&self) {
        let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        if *made {
            return;
        }
        let len = self.permuted.len();
        tracing::debug!(bytes = len, "a deferred permute is read: made in memory");
        // SAFETY: [base, base + reserved) is this entry's own mapping (see
        // `reserve`), which stays mapped until the blob's deleter runs;
        // nothing else writes it, and readers wait for `made`.
        let out = unsafe {
            let ok = libc::mprotect(
                self.base as *mut c_void,
                self.reserved,
                libc::PROT_READ | libc::PROT_WRITE,
            );
            assert_eq!(ok, 0, "mprotect of a deferred weight failed");
            std::slice::from_raw_parts_mut(self.base as *mut u8, len)
        };
        let pieces = self.permuted.pieces(len.div_ceil(threads()).max(1));
        std::thread::scope(|scope| {
            let mut rest = &mut out[..];
            for range in pieces {
                let (piece, tail) = std::mem::take(&mut rest).split_at_mut(range.len());
                rest = tail;
                let permuted = &self.permuted;
                scope.spawn(move || permuted.fill(range, piece));
            }
        });
        *made = true;
    }

    fn is_made(&self) -> bool {
        *self.made.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The bytes, made first.
    fn bytes(&self) -> &[u8] {
        self.make();
        // SAFETY: the made bytes of the entry's mapping, mapped while the
        // entry lives.
        unsafe { std::slice::from_raw_parts(self.base as *const u8, self.permuted.len()) }
    }
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Deferred blobs by the address of their memory.
static PENDING: Mutex<BTreeMap<usize, Arc<Entry>>> = Mutex::new(BTreeMap::new());

fn pending() -> std::sync::MutexGuard<'static, BTreeMap<usize, Arc<Entry>>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

fn raw_data(attr: MlirAttribute) -> Option<(usize, usize)> {
    let mut size = 0usize;
    // SAFETY: a live attribute; null for anything but a dense_resource
    // with a blob.
    let data = unsafe {
        if !mlirAttributeIsADenseResourceElements(attr) {
            return None;
        }
        coreaiDenseResourceElementsGetData(attr, &mut size)
    };
    (!data.is_null()).then_some((data as usize, size))
}

/// The bytes of a `dense_resource` attribute's blob (`None` for another
/// attribute or a blob not loaded), made first if deferred.
pub fn blob_data<'c>(attr: MlirAttribute) -> Option<&'c [u8]> {
    let (data, size) = raw_data(attr)?;
    let entry = pending().get(&data).cloned();
    if let Some(entry) = entry {
        entry.make();
    }
    // SAFETY: the blob's `size` bytes at `data`, made, live as long as the
    // context ('c) or until its blob is dropped.
    Some(unsafe { std::slice::from_raw_parts(data as *const u8, size) })
}

/// A blob's bytes, or how to make them when they are deferred and not made.
pub enum BlobSource<'c> {
    Bytes(&'c [u8]),
    Deferred(Arc<Entry>),
}

impl BlobSource<'_> {
    pub fn len(&self) -> usize {
        match self {
            BlobSource::Bytes(b) => b.len(),
            BlobSource::Deferred(entry) => entry.permuted.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes `range`; a deferred permute not made makes the rows that
    /// hold them into `scratch`.
    fn window<'s>(&'s self, range: Range<usize>, scratch: &'s mut Vec<u8>) -> &'s [u8] {
        match self {
            BlobSource::Bytes(b) => &b[range],
            BlobSource::Deferred(entry) if entry.is_made() => &entry.bytes()[range],
            BlobSource::Deferred(entry) => {
                let p = &entry.permuted;
                let row = p.row_bytes().max(1);
                let start = range.start / row * row;
                let end = (range.end.div_ceil(row) * row).min(p.len());
                scratch.resize(end - start, 0);
                p.fill(start..end, &mut scratch[..]);
                &scratch[range.start - start..range.end - start]
            }
        }
    }
}

/// Bytes compared at a time between blobs of which one is deferred: two
/// different weights differ in the first window, whose rows are all that
/// is made.
const COMPARE_BYTES: usize = 1 << 20;

/// Equal bytes, compared without making deferred blobs: two permutes of
/// equal sources by one permutation are equal; otherwise the blobs are
/// compared window by window, a deferred one made a window at a time.
impl PartialEq for BlobSource<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (BlobSource::Bytes(a), BlobSource::Bytes(b)) => return a == b,
            (BlobSource::Deferred(a), BlobSource::Deferred(b)) => {
                let (p, q) = (&a.permuted, &b.permuted);
                if Arc::ptr_eq(a, b) {
                    return true;
                }
                if (&p.shape, &p.perm, p.width) == (&q.shape, &q.perm, q.width) {
                    return p.source_bytes() == q.source_bytes();
                }
            }
            _ => {}
        }
        let len = self.len();
        if len != other.len() {
            return false;
        }
        let (mut s, mut t) = (Vec::new(), Vec::new());
        (0..len).step_by(COMPARE_BYTES).all(|start| {
            let range = start..(start + COMPARE_BYTES).min(len);
            self.window(range.clone(), &mut s) == other.window(range, &mut t)
        })
    }
}

/// What the asset writer writes for a `dense_resource` attribute.
pub fn blob_source<'c>(attr: MlirAttribute) -> Option<BlobSource<'c>> {
    let (data, _) = raw_data(attr)?;
    let entry = pending().get(&data).cloned();
    match entry {
        Some(entry) if !entry.is_made() => Some(BlobSource::Deferred(entry)),
        _ => blob_data(attr).map(BlobSource::Bytes),
    }
}

/// Makes every deferred blob whose source is `attr`'s blob, before that
/// blob is dropped.
pub fn before_drop(attr: MlirAttribute) {
    let Some((data, _)) = raw_data(attr) else {
        return;
    };
    let dependents: Vec<Arc<Entry>> = pending().values().cloned().collect();
    for entry in dependents {
        let source = entry.permuted.source_attribute();
        if source.and_then(raw_data).is_some_and(|(d, _)| d == data) {
            entry.make();
        }
    }
}

/// Whether a blob of `bytes` would be deferred: folds are deferring and
/// the blob is large enough.
pub fn worth_deferring(bytes: usize) -> bool {
    enabled() && bytes >= MIN_BYTES
}

/// A `dense_resource` of `ty` named `name` (numbered by MLIR like any
/// blob) holding `source`'s blob (row-major, `shape`, `width`-byte
/// elements) permuted by `perm`, made when first read; `None` when
/// `source` is not a loaded blob of that size or memory cannot be reserved.
pub fn permuted_resource(
    ty: MlirType,
    name: &str,
    source: MlirAttribute,
    shape: &[usize],
    perm: &[usize],
    width: usize,
) -> Option<MlirAttribute> {
    let (_, size) = raw_data(source)?;
    let permuted = Permuted {
        source: Source::Blob(source.ptr as usize),
        shape: shape.to_vec(),
        perm: perm.to_vec(),
        width,
        alignment: width,
    };
    let mut seen = vec![false; shape.len()];
    let is_perm = perm.len() == shape.len()
        && perm
            .iter()
            .all(|&p| p < shape.len() && !std::mem::replace(&mut seen[p], true));
    if !is_perm || width == 0 || permuted.len() != size || size == 0 {
        return None;
    }
    permuted_blob(ty, name, permuted)
}

/// A deferred blob of `ty` named `name` (numbered by MLIR like any blob)
/// made by `permuted`; `None` when memory cannot be reserved.
pub fn permuted_blob(ty: MlirType, name: &str, permuted: Permuted) -> Option<MlirAttribute> {
    let size = permuted.len();
    let alignment = permuted.alignment;
    let (base, reserved) = reserve(size)?;
    let entry = Arc::new(Entry {
        permuted,
        base,
        reserved,
        made: Mutex::new(false),
    });
    pending().insert(base, entry.clone());
    tracing::debug!(name, bytes = size, "permute deferred");
    let name_ref = MlirStringRef {
        data: name.as_ptr().cast(),
        length: name.len(),
    };
    // SAFETY: `base` is `size` bytes of this entry's reservation, alive until
    // MLIR calls `release` with the leaked `Arc`; MLIR copies `name`.
    let attr = unsafe {
        mlirUnmanagedDenseResourceElementsAttrGet(
            ty,
            name_ref,
            base as *mut c_void,
            size,
            alignment,
            false,
            Some(release),
            Arc::into_raw(entry).cast_mut().cast(),
        )
    };
    (!attr.ptr.is_null()).then_some(attr)
}

/// A `dense_resource` of `ty` named `name` holding the bytes of the deferred
/// blob `attr` (not made): a reshape of it, the same recipe under another
/// type. `None` when `attr` is not such a blob or `ty` is not its size.
pub fn reshaped(
    ty: MlirType,
    name: &str,
    attr: MlirAttribute,
    bytes: usize,
) -> Option<MlirAttribute> {
    let Some(BlobSource::Deferred(entry)) = blob_source(attr) else {
        return None;
    };
    (entry.permuted.len() == bytes).then_some(())?;
    permuted_blob(ty, name, entry.permuted.clone())
}

/// The recipe of `attr` when it is a deferred permute not made, for a pass
/// that transforms its elements one for one ([`Permuted::of_elementwise`]).
pub fn recipe(attr: MlirAttribute) -> Option<Permuted> {
    match blob_source(attr)? {
        BlobSource::Deferred(entry) => Some(entry.permuted.clone()),
        BlobSource::Bytes(_) => None,
    }
}

/// Address space for `size` bytes with no access and no memory behind it.
fn reserve(size: usize) -> Option<(usize, usize)> {
    // SAFETY: a fresh private anonymous mapping; nothing else refers to it.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (base != libc::MAP_FAILED).then_some((base as usize, size))
}

/// The deleter of a deferred blob: forgets it and unmaps its memory.
unsafe extern "C" fn release(user: *mut c_void, _: *const c_void, _: usize, _: usize) {
    // SAFETY: `user` is the `Arc<Entry>` `permuted_resource` leaked, released
    // once.
    let entry = unsafe { Arc::from_raw(user.cast_const().cast::<Entry>()) };
    pending().remove(&entry.base);
    // SAFETY: the entry's own mapping; MLIR reads the blob no more.
    unsafe { libc::munmap(entry.base as *mut c_void, entry.reserved) };
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::permute::tests::{by_definition, bytes};

    fn is_deferred(attr: MlirAttribute) -> bool {
        matches!(blob_source(attr), Some(BlobSource::Deferred(_)))
    }

    #[test]
    fn a_deferred_permute_reads_writes_and_compares_as_its_bytes() {
        use melior::ir::TypeLike;
        let ctx = melior::Context::new();
        let ty = |s: &str| melior::ir::Type::parse(&ctx, s).expect("a type").to_raw();
        let (shape, perm) = ([300, 200], [1, 0]);
        let values: Vec<u32> = (0..60_000u32).map(|i| i.wrapping_mul(2654435761)).collect();
        let want = bytes(&by_definition(&values, &shape, &perm));
        let source = crate::raw::resource_bytes(ty("tensor<300x200xf32>"), "w", bytes(&values));
        let other = crate::raw::resource_bytes(ty("tensor<300x200xf32>"), "v", bytes(&values));
        let result = ty("tensor<200x300xf32>");
        let t = permuted_resource(result, "w.folded", source, &shape, &perm, 4).expect("deferred");
        let u = permuted_resource(result, "v.folded", other, &shape, &perm, 4).expect("deferred");
        assert!(permuted_resource(result, "x", source, &shape, &[0, 0], 4).is_none());

        // Compared without being made: one recipe on equal sources, then
        // window by window against plain blobs.
        let plain = crate::raw::resource_bytes(result, "p", want.clone());
        let mut near = want.clone();
        *near.last_mut().unwrap() ^= 1;
        let near = crate::raw::resource_bytes(result, "q", near);
        assert!(blob_source(t) == blob_source(u));
        assert!(blob_source(t) == blob_source(plain));
        assert!(blob_source(plain) == blob_source(t));
        assert!(blob_source(t) != blob_source(near));
        assert!(is_deferred(t) && is_deferred(u));

        // The writer's pieces make the bytes without making the blob.
        let Some(BlobSource::Deferred(entry)) = blob_source(t) else {
            unreachable!()
        };
        let mut written = Vec::new();
        for range in entry.permuted().pieces(4096) {
            let mut piece = vec![0u8; range.len()];
            entry.permuted().fill(range, &mut piece);
            written.extend(piece);
        }
        assert!(written == want && is_deferred(t));

        // Reading makes it; dropping a source makes what is permuted from it.
        assert!(blob_data(t) == Some(&want[..]) && !is_deferred(t));
        assert!(crate::raw::drop_blob(other));
        assert!(!is_deferred(u) && blob_data(u) == Some(&want[..]));
    }
}
