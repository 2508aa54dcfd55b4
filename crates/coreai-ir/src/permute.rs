//! Permuting a row-major array's bytes, a range of the result's rows at a
//! time: what a folded `transpose` of a weight computes, made piece by
//! piece for the asset writer (`crate::deferred`).

use std::ops::Range;

/// Rows `rows` of the result's first axis of the row-major `src` (`shape`,
/// `width`-byte elements) permuted by `perm`, written row-major to `out`.
pub fn permute_rows(
    src: &[u8],
    shape: &[usize],
    perm: &[usize],
    width: usize,
    rows: Range<usize>,
    out: &mut [u8],
) {
    fn typed<const W: usize>(
        src: &[u8],
        shape: &[usize],
        perm: &[usize],
        rows: Range<usize>,
        out: &mut [u8],
    ) {
        let (src, _) = src.as_chunks::<W>();
        let (out, _) = out.as_chunks_mut::<W>();
        permute_elements(src, shape, perm, rows, out);
    }
    match width {
        1 => typed::<1>(src, shape, perm, rows, out),
        2 => typed::<2>(src, shape, perm, rows, out),
        4 => typed::<4>(src, shape, perm, rows, out),
        8 => typed::<8>(src, shape, perm, rows, out),
        16 => typed::<16>(src, shape, perm, rows, out),
        w => {
            // Elements of another width: each element's bytes as one more
            // (innermost) axis that stays in place.
            let mut shape = shape.to_vec();
            shape.push(w);
            let mut perm = perm.to_vec();
            perm.push(shape.len() - 1);
            typed::<1>(src, &shape, &perm, rows, out)
        }
    }
}

/// Side of the square tiles a transposing copy goes through (whole cache
/// lines of both arrays stay in L1 while a tile is copied).
const TILE: usize = 32;

/// Side of the blocks inside a tile: eight loads of eight contiguous
/// source elements, eight stores of eight contiguous output elements.
const BLOCK: usize = 8;

/// [`permute_rows`] on elements: the output's last axis is copied as runs
/// when it is the source's contiguous one, else tile by tile with the
/// output axis that is (a transpose of the two), else element by element.
fn permute_elements<E: Copy>(
    src: &[E],
    shape: &[usize],
    perm: &[usize],
    rows: Range<usize>,
    out: &mut [E],
) {
    let d = perm.len();
    if d == 0 {
        out.copy_from_slice(&src[..out.len()]);
        return;
    }
    let mut src_strides = vec![1usize; d];
    for i in (0..d - 1).rev() {
        src_strides[i] = src_strides[i + 1] * shape[i + 1];
    }
    // Per output axis: its extent in the piece and its stride in the source.
    let mut extent: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let stride: Vec<usize> = perm.iter().map(|&p| src_strides[p]).collect();
    let base = rows.start * stride[0];
    extent[0] = rows.len();
    let mut out_strides = vec![1usize; d];
    for i in (0..d - 1).rev() {
        out_strides[i] = out_strides[i + 1] * extent[i + 1];
    }
    let axes: Vec<usize> = (0..d).filter(|&i| extent[i] != 1).collect();
    let Some(&q) = axes.last() else {
        if !out.is_empty() {
            out[0] = src[base];
        }
        return;
    };
    let p = axes.iter().copied().find(|&i| i != q && stride[i] == 1);
    let inner: Vec<usize> = p.into_iter().chain([q]).collect();
    let outer: Vec<usize> = axes
        .iter()
        .copied()
        .filter(|a| !inner.contains(a))
        .collect();
    let (nq, sq) = (extent[q], stride[q]);
    let mut index = vec![0usize; outer.len()];
    loop {
        let so = base
            + outer
                .iter()
                .zip(&index)
                .map(|(&a, &i)| i * stride[a])
                .sum::<usize>();
        let doff = outer
            .iter()
            .zip(&index)
            .map(|(&a, &i)| i * out_strides[a])
            .sum::<usize>();
        match p {
            None if sq == 1 => out[doff..doff + nq].copy_from_slice(&src[so..so + nq]),
            None => {
                for (o, s) in out[doff..doff + nq]
                    .iter_mut()
                    .zip(src[so..].iter().step_by(sq))
                {
                    *o = *s;
                }
            }
            Some(p) => {
                let t = Transpose {
                    src,
                    so,
                    sq,
                    doff,
                    dp: out_strides[p],
                    simd: simd::available::<E>(),
                };
                // Along the source's rows outermost: each source row's
                // run in the piece is read once, while it is in the caches
                // and the TLB.
                for j0 in (0..nq).step_by(TILE) {
                    for i0 in (0..extent[p]).step_by(TILE) {
                        t.tile(out, i0..(i0 + TILE).min(extent[p]), j0..(j0 + TILE).min(nq));
                    }
                }
            }
        }
        // The next index of the outer axes, last fastest.
        let mut k = outer.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < extent[outer[k]] {
                break;
            }
            index[k] = 0;
        }
    }
}

/// One transposed block: output element `(i, j)` at `doff + i·dp + j` is
/// source element `so + i + j·sq`.
struct Transpose<'s, E> {
    src: &'s [E],
    so: usize,
    sq: usize,
    doff: usize,
    dp: usize,
    /// Blocks go through [`simd::block`] (4-byte elements on x86-64 with
    /// AVX2).
    simd: bool,
}

impl<E: Copy> Transpose<'_, E> {
    /// Output rows `is`, columns `js`: whole 8 x 8 blocks through
    /// registers, the ragged edges element by element.
    fn tile(&self, out: &mut [E], is: Range<usize>, js: Range<usize>) {
        let i_full = is.start + is.len() / BLOCK * BLOCK;
        let j_full = js.start + js.len() / BLOCK * BLOCK;
        for i in (is.start..i_full).step_by(BLOCK) {
            for j in (js.start..j_full).step_by(BLOCK) {
                self.block(out, i, j);
            }
        }
        for i in is.clone() {
            let columns = if i < i_full {
                j_full..js.end
            } else {
                js.clone()
            };
            for j in columns {
                out[self.doff + i * self.dp + j] = self.src[self.so + i + j * self.sq];
            }
        }
    }

    #[inline(always)]
    fn block(&self, out: &mut [E], i: usize, j: usize) {
        if self.simd {
            let s = self.so + i + j * self.sq;
            let d = self.doff + i * self.dp + j;
            // The block's last source and output elements are in bounds, so
            // are the others (each row is BLOCK elements from its start).
            assert!(s + (BLOCK - 1) * self.sq + BLOCK <= self.src.len());
            assert!(d + (BLOCK - 1) * self.dp + BLOCK <= out.len());
            // SAFETY: `simd` holds only for 4-byte elements with AVX2
            // present; the rows read and written are in bounds (above).
            unsafe {
                simd::block(
                    self.src.as_ptr().add(s).cast(),
                    self.sq,
                    out.as_mut_ptr().add(d).cast(),
                    self.dp,
                )
            };
            return;
        }
        let first = self.src[self.so + i + j * self.sq];
        let mut b = [[first; BLOCK]; BLOCK];
        for (r, row) in b.iter_mut().enumerate() {
            let s = self.so + i + (j + r) * self.sq;
            row.copy_from_slice(&self.src[s..s + BLOCK]);
        }
        let t: [[E; BLOCK]; BLOCK] = std::array::from_fn(|c| std::array::from_fn(|r| b[r][c]));
        for (c, row) in t.iter().enumerate() {
            let d = self.doff + (i + c) * self.dp + j;
            out[d..d + BLOCK].copy_from_slice(row);
        }
    }
}

/// The 8 x 8 transpose of 4-byte elements in AVX2 registers (the bits
/// move as they are: shuffles of float lanes do not look at them).
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    pub fn available<E>() -> bool {
        std::mem::size_of::<E>() == 4 && std::is_x86_feature_detected!("avx2")
    }

    /// Rows `src + r·ss` (r < 8, 8 elements each) written as the columns of
    /// rows `dst + c·ds`.
    ///
    /// # Safety
    /// AVX2 is present; the 8 rows of 8 four-byte elements at `src` and at
    /// `dst` (strides in elements) are readable and writable.
    #[target_feature(enable = "avx2")]
    pub unsafe fn block(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
        // SAFETY: the caller's bounds; unaligned loads and stores.
        unsafe {
            let r: [__m256; 8] = std::array::from_fn(|k| _mm256_loadu_ps(src.add(k * ss)));
            let t0 = _mm256_unpacklo_ps(r[0], r[1]);
            let t1 = _mm256_unpackhi_ps(r[0], r[1]);
            let t2 = _mm256_unpacklo_ps(r[2], r[3]);
            let t3 = _mm256_unpackhi_ps(r[2], r[3]);
            let t4 = _mm256_unpacklo_ps(r[4], r[5]);
            let t5 = _mm256_unpackhi_ps(r[4], r[5]);
            let t6 = _mm256_unpacklo_ps(r[6], r[7]);
            let t7 = _mm256_unpackhi_ps(r[6], r[7]);
            let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
            let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
            let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
            let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
            let c = [
                _mm256_permute2f128_ps::<0x20>(u0, u4),
                _mm256_permute2f128_ps::<0x20>(u1, u5),
                _mm256_permute2f128_ps::<0x20>(u2, u6),
                _mm256_permute2f128_ps::<0x20>(u3, u7),
                _mm256_permute2f128_ps::<0x31>(u0, u4),
                _mm256_permute2f128_ps::<0x31>(u1, u5),
                _mm256_permute2f128_ps::<0x31>(u2, u6),
                _mm256_permute2f128_ps::<0x31>(u3, u7),
            ];
            for (k, v) in c.into_iter().enumerate() {
                _mm256_storeu_ps(dst.add(k * ds), v);
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod simd {
    pub fn available<E>() -> bool {
        false
    }

    pub unsafe fn block(_: *const f32, _: usize, _: *mut f32, _: usize) {
        unreachable!("no SIMD blocks on this architecture")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The permute by definition: output element `idx` is the source
    /// element whose index along axis `perm[a]` is `idx[a]`.
    pub(crate) fn by_definition(src: &[u32], shape: &[usize], perm: &[usize]) -> Vec<u32> {
        let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
        let n: usize = shape.iter().product();
        (0..n)
            .map(|flat| {
                let mut rem = flat;
                let mut s = 0;
                for a in (0..perm.len()).rev() {
                    let stride: usize = shape[perm[a] + 1..].iter().product();
                    s += rem % out_shape[a] * stride;
                    rem /= out_shape[a];
                }
                src[s]
            })
            .collect()
    }

    pub(crate) fn bytes(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn permutes_match_the_definition_in_pieces_of_any_rows() {
        let cases: &[(&[usize], &[usize])] = &[
            (&[70, 45], &[1, 0]),
            (&[64, 96], &[1, 0]),
            (&[3, 40, 33], &[2, 0, 1]),
            (&[3, 40, 33], &[0, 2, 1]),
            (&[2, 3, 4, 5], &[3, 1, 0, 2]),
            (&[5, 1, 37], &[2, 1, 0]),
            (&[1, 64], &[1, 0]),
            (&[6, 7], &[0, 1]),
            (&[4, 3, 2], &[1, 0, 2]),
        ];
        for &(shape, perm) in cases {
            let n: usize = shape.iter().product();
            let src: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
            let want = bytes(&by_definition(&src, shape, perm));
            let first = shape[perm[0]];
            for step in [1, 2, 7, 9, first] {
                let mut out = vec![0u8; want.len()];
                let row = want.len() / first;
                for r0 in (0..first).step_by(step) {
                    let r1 = (r0 + step).min(first);
                    let piece = &mut out[r0 * row..r1 * row];
                    permute_rows(&bytes(&src), shape, perm, 4, r0..r1, piece);
                }
                assert_eq!(out, want, "shape {shape:?} perm {perm:?} rows by {step}");
            }
        }
    }

    #[test]
    fn elements_of_every_width_move_whole() {
        // A 20 x 13 transpose of 1- to 16-byte elements and of 3-byte ones.
        for width in [1, 2, 3, 4, 8, 16] {
            let src: Vec<u8> = (0..20 * 13 * width).map(|i| (i * 7 % 251) as u8).collect();
            let mut out = vec![0u8; src.len()];
            permute_rows(&src, &[20, 13], &[1, 0], width, 0..13, &mut out);
            for r in 0..20 {
                for c in 0..13 {
                    let (o, s) = ((c * 20 + r) * width, (r * 13 + c) * width);
                    assert_eq!(out[o..o + width], src[s..s + width], "width {width}");
                }
            }
        }
    }
}
