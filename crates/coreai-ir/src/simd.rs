//! Loops that weight passes run over every element of a model, compiled
//! once per vector unit: AVX-512 and AVX2 on x86-64 besides the baseline,
//! the widest the processor has chosen once at run time (`multiversion`).
//! Every version performs the same IEEE operations on each element, so
//! the results are the same bits whichever runs; the baseline build alone
//! would use 4 lanes of SSE2 on x86-64.

use multiversion::multiversion;

/// `x` rounded to an integer, half to even, without a libm call: below
/// 2^23 in magnitude, `(|x| + 2^23) - 2^23` rounds `|x|` to an integer in
/// the default rounding mode (nearest, ties to even); at or above it every
/// f32 is an integer. NaN stays NaN.
#[inline]
pub fn rint_f32(x: f32) -> f32 {
    const TWO_23: f32 = 8_388_608.0;
    let a = x.abs();
    if a < TWO_23 {
        ((a + TWO_23) - TWO_23).copysign(x)
    } else {
        x
    }
}

/// The code of `x` in a block of scale `s` and zero point `z` (an integer
/// in f32): `rint(x / s) + z` clamped to `[lo, hi]`, and the low 8 bits
/// (two's complement) of that integer, read from the bits of the sum with
/// `1.5·2^23` (a NaN weight gives 0).
#[inline(always)]
fn code(x: f32, s: f32, z: f32, lo: f32, hi: f32) -> u8 {
    let v = rint_f32(x / s) + z;
    let v = if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    };
    (v + 12_582_912.0).to_bits() as u8
}

/// [`code`] of each of `xs` in one block (scale `s`, zero point `z`), into
/// `out` (as long as `xs`).
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512vl", "x86_64+avx2"))]
pub fn codes_f32(xs: &[f32], s: f32, z: f32, lo: f32, hi: f32, out: &mut [u8]) {
    for (o, &x) in out.iter_mut().zip(xs) {
        *o = code(x, s, z, lo, hi);
    }
}

/// [`code`] of each of `xs` in a block of its own (scales `ss`, zero points
/// `zs`, as long as `xs`), into `out`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512vl", "x86_64+avx2"))]
pub fn codes_f32_each(xs: &[f32], ss: &[f32], zs: &[f32], lo: f32, hi: f32, out: &mut [u8]) {
    for (((o, &x), &s), &z) in out.iter_mut().zip(xs).zip(ss).zip(zs) {
        *o = code(x, s, z, lo, hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chosen_version_codes_like_f64_arithmetic() {
        // The version this processor runs (AVX-512 on the CI machine).
        // Values around every rounding boundary, ±0, ±inf, NaN, subnormals
        // and values beyond the code range, in one block and per element;
        // against f64 arithmetic rounded once (x / s rounded to f32, as
        // IEEE division is, then rounded half to even).
        let mut xs: Vec<f32> = (-1200..1200).map(|i| i as f32 * 0.125 * 1.0001).collect();
        xs.extend([
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-40,
            -1e-40,
            3e38,
            -3e38,
        ]);
        let (lo, hi) = (-128.0f32, 127.0f32);
        let want = |x: f32, s: f32, z: f32| -> u8 {
            if x.is_nan() {
                return 0;
            }
            let q = ((x as f64 / s as f64) as f32).round_ties_even() as f64 + z as f64;
            (q.clamp(lo as f64, hi as f64) as i64) as u8
        };
        for (s, z) in [(0.5f32, 0.0f32), (0.0390625, 3.0), (1.0 / 3.0, -7.0)] {
            let mut out = vec![0u8; xs.len()];
            codes_f32(&xs, s, z, lo, hi, &mut out);
            for (&x, &o) in xs.iter().zip(&out) {
                assert_eq!(o, want(x, s, z), "x = {x}, s = {s}, z = {z}");
            }
            let (ss, zs) = (vec![s; xs.len()], vec![z; xs.len()]);
            let mut each = vec![0u8; xs.len()];
            codes_f32_each(&xs, &ss, &zs, lo, hi, &mut each);
            assert_eq!(each, out);
        }
    }
}
