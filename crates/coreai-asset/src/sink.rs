//! Blobs made while they are written.
//!
//! A weight the compiler permutes (a linear layer's transposed weight) need
//! not exist whole in memory before it is written: a [`Produce`] blob makes
//! its bytes piece by piece, and a [`Sink`] writes each piece as it is made.
//! The asset writer's sink hashes one piece on a second thread while the
//! next is made and written, so the permute, the file's page-cache copy and
//! SHA-256 overlap instead of running one after the other, and the blob
//! never takes fresh memory of its size.

use std::io::Write;
use std::ops::Range;

/// Bytes of a blob, made on demand.
pub trait Produce: Send + Sync {
    /// The blob's length in bytes.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Byte ranges, in order, that cover `0..len()` without overlap, each
    /// about `target` bytes where the blob's layout allows (a piece is at
    /// least one row of the blob's first axis).
    fn pieces(&self, target: usize) -> Vec<Range<usize>>;

    /// Writes the bytes `range` (one of [`Produce::pieces`]) to `out`,
    /// `out.len() == range.len()`.
    fn fill(&self, range: Range<usize>, out: &mut [u8]);

    /// What makes the bytes: two producers of one identity make the same
    /// bytes (a blob written for several ops is written once).
    fn identity(&self) -> usize {
        (self as *const Self).cast::<()>() as usize
    }
}

/// About this many bytes per piece of a produced blob: small enough that a
/// few stay in the caches, large enough that the hand-offs between threads
/// cost nothing.
pub const PIECE_BYTES: usize = 4 << 20;

/// A writer that can also take produced blobs.
pub trait Sink: Write {
    /// Writes `blob`'s bytes. The default makes them piece by piece into
    /// one buffer and writes each piece.
    fn write_produced(&mut self, blob: &dyn Produce) -> std::io::Result<()> {
        let mut buffer = Vec::new();
        for range in blob.pieces(PIECE_BYTES) {
            buffer.resize(range.len(), 0);
            blob.fill(range, &mut buffer);
            self.write_all(&buffer)?;
        }
        Ok(())
    }
}

impl Sink for Vec<u8> {}
impl Sink for std::fs::File {}
impl<W: Write> Sink for std::io::BufWriter<W> {}
impl Sink for std::io::Sink {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes `i mod 251`, in pieces of `piece` bytes.
    struct Counting {
        len: usize,
        piece: usize,
    }

    impl Produce for Counting {
        fn len(&self) -> usize {
            self.len
        }
        fn pieces(&self, _: usize) -> Vec<Range<usize>> {
            (0..self.len)
                .step_by(self.piece)
                .map(|s| s..(s + self.piece).min(self.len))
                .collect()
        }
        fn fill(&self, range: Range<usize>, out: &mut [u8]) {
            for (o, i) in out.iter_mut().zip(range) {
                *o = (i % 251) as u8;
            }
        }
    }

    #[test]
    fn the_default_writes_every_piece_in_order() {
        let blob = Counting {
            len: 1000,
            piece: 300,
        };
        let mut out = Vec::new();
        out.write_produced(&blob).unwrap();
        let want: Vec<u8> = (0..1000).map(|i| (i % 251) as u8).collect();
        assert_eq!(out, want);
    }
}
