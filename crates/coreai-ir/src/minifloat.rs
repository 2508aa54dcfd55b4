//! The 8- and 4-bit float formats of compressed weights: their codes,
//! values and round-to-nearest-even encoding.
//!
//! MLIR's `f8E4M3FN`, `f8E5M2`, `f4E2M1FN` and `f8E8M0FNU` (the OCP
//! formats, ml_dtypes' `float8_e4m3fn`, `float8_e5m2`, `float4_e2m1fn`,
//! `float8_e8m0fnu`). A weight's codes are stored one byte per element
//! (8-bit formats) or packed two per byte like `si4` (`f4E2M1FN`,
//! `weights::pack_bits`); every value of every format is an f32, so the
//! executor holds them as f32.

/// A small float format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MiniFloat {
    /// Sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities,
    /// `S.1111.111` is NaN; largest finite 448.
    F8E4M3FN,
    /// Sign, 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like
    /// (infinities and NaNs); largest finite 57344.
    F8E5M2,
    /// Sign, 2 exponent bits (bias 1), 1 mantissa bit; no infinities or
    /// NaN; values ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
    F4E2M1FN,
    /// Unsigned powers of two: code `c` is `2^(c - 127)`, 0xFF is NaN
    /// (the MX formats' shared scale).
    F8E8M0FNU,
}

impl MiniFloat {
    pub const ALL: [MiniFloat; 4] = [
        MiniFloat::F8E4M3FN,
        MiniFloat::F8E5M2,
        MiniFloat::F4E2M1FN,
        MiniFloat::F8E8M0FNU,
    ];

    /// Bits per element.
    pub fn bits(self) -> u32 {
        match self {
            MiniFloat::F4E2M1FN => 4,
            _ => 8,
        }
    }

    /// The MLIR element type's spelling.
    pub fn mlir_name(self) -> &'static str {
        match self {
            MiniFloat::F8E4M3FN => "f8E4M3FN",
            MiniFloat::F8E5M2 => "f8E5M2",
            MiniFloat::F4E2M1FN => "f4E2M1FN",
            MiniFloat::F8E8M0FNU => "f8E8M0FNU",
        }
    }

    pub fn from_mlir_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.mlir_name() == name)
    }

    /// (exponent bits, mantissa bits, bias) of the signed formats.
    fn layout(self) -> Option<(u32, u32, i32)> {
        match self {
            MiniFloat::F8E4M3FN => Some((4, 3, 7)),
            MiniFloat::F8E5M2 => Some((5, 2, 15)),
            MiniFloat::F4E2M1FN => Some((2, 1, 1)),
            MiniFloat::F8E8M0FNU => None,
        }
    }

    /// The value of a code (its low `bits()` bits).
    pub fn decode(self, code: u8) -> f64 {
        let Some((ebits, mbits, bias)) = self.layout() else {
            return if code == 0xFF {
                f64::NAN
            } else {
                2f64.powi(code as i32 - 127)
            };
        };
        let sign_bit = ebits + mbits;
        let code = code as u32 & ((1 << (sign_bit + 1)) - 1);
        let sign = if code >> sign_bit != 0 { -1.0 } else { 1.0 };
        let e = (code >> mbits) & ((1 << ebits) - 1);
        let m = code & ((1 << mbits) - 1);
        let top = (1 << ebits) - 1;
        match self {
            MiniFloat::F8E4M3FN if e == top && m == (1 << mbits) - 1 => return f64::NAN,
            MiniFloat::F8E5M2 if e == top => {
                return if m == 0 {
                    sign * f64::INFINITY
                } else {
                    f64::NAN
                };
            }
            _ => {}
        }
        let frac = m as f64 / (1u32 << mbits) as f64;
        sign * if e == 0 {
            frac * 2f64.powi(1 - bias)
        } else {
            (1.0 + frac) * 2f64.powi(e as i32 - bias)
        }
    }

    /// The largest finite code of the positive half (codes of the signed
    /// formats are ordered like their values from 0 to here).
    fn max_code(self) -> u8 {
        match self {
            MiniFloat::F8E4M3FN => 0x7E,
            MiniFloat::F8E5M2 => 0x7B,
            MiniFloat::F4E2M1FN => 0x7,
            MiniFloat::F8E8M0FNU => 0xFE,
        }
    }

    /// The largest finite value.
    pub fn max(self) -> f64 {
        self.decode(self.max_code())
    }

    /// The code of `x` rounded to nearest, ties to an even code (IEEE's
    /// rounding, as ml_dtypes converts); beyond the largest finite value
    /// it saturates, NaN is the format's NaN (0 for `f4E2M1FN`, which has
    /// none). The sign of a zero is kept. Not for `f8E8M0FNU`, whose
    /// codes are exponents ([`MiniFloat::exponent_code`]).
    pub fn encode(self, x: f64) -> u8 {
        let Some((ebits, mbits, _)) = self.layout() else {
            panic!("encode of {} (an exponent format)", self.mlir_name());
        };
        let sign: u8 = if x.is_sign_negative() {
            1 << (ebits + mbits)
        } else {
            0
        };
        if x.is_nan() {
            return match self {
                MiniFloat::F4E2M1FN => 0,
                _ => 0x7F,
            };
        }
        let a = x.abs();
        let top = self.max_code();
        if a >= self.decode(top) {
            return sign | top;
        }
        // The largest code whose value is ≤ a, then the nearer of it and
        // the next (codes are monotonic in value).
        let (mut lo, mut hi) = (0u8, top);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.decode(mid) <= a {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (below, above) = (self.decode(lo), self.decode(hi));
        let code = if a - below < above - a || (a - below == above - a && lo % 2 == 0) {
            lo
        } else {
            hi
        };
        sign | code
    }

    /// The `f8E8M0FNU` code of `2^e` (`e` in [-127, 127]).
    pub fn exponent_code(e: i32) -> u8 {
        assert!((-127..=127).contains(&e), "2^{e} is not an f8E8M0FNU value");
        (e + 127) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_values_are_the_ocp_ones() {
        assert_eq!(MiniFloat::F8E4M3FN.max(), 448.0);
        assert_eq!(MiniFloat::F8E5M2.max(), 57344.0);
        assert_eq!(MiniFloat::F4E2M1FN.max(), 6.0);
        assert_eq!(MiniFloat::F8E8M0FNU.max(), 2f64.powi(127));
    }

    #[test]
    fn e2m1_values() {
        let v: Vec<f64> = (0..16).map(|c| MiniFloat::F4E2M1FN.decode(c)).collect();
        assert_eq!(
            v,
            [
                0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0,
                -6.0
            ]
        );
    }

    #[test]
    fn specials_and_subnormals() {
        assert!(MiniFloat::F8E4M3FN.decode(0x7F).is_nan());
        assert_eq!(MiniFloat::F8E4M3FN.decode(0x01), 2f64.powi(-9));
        assert_eq!(MiniFloat::F8E5M2.decode(0x7C), f64::INFINITY);
        assert!(MiniFloat::F8E5M2.decode(0x7D).is_nan());
        assert_eq!(MiniFloat::F8E5M2.decode(0x01), 2f64.powi(-16));
        assert!(MiniFloat::F8E8M0FNU.decode(0xFF).is_nan());
        assert_eq!(MiniFloat::F8E8M0FNU.decode(127), 1.0);
    }

    #[test]
    fn every_value_encodes_to_its_code() {
        for f in [MiniFloat::F8E4M3FN, MiniFloat::F8E5M2, MiniFloat::F4E2M1FN] {
            let n = 1u16 << f.bits();
            for c in 0..n as u8 {
                let v = f.decode(c);
                if v.is_finite() {
                    assert_eq!(f.encode(v), c, "{f:?} code {c:#x} = {v}");
                }
            }
        }
    }

    #[test]
    fn ties_go_to_the_even_code() {
        // 2.5 is halfway between 2 (code 4) and 3 (code 5); 5 between 4
        // (code 6) and 6 (code 7).
        assert_eq!(MiniFloat::F4E2M1FN.encode(2.5), 4);
        assert_eq!(MiniFloat::F4E2M1FN.encode(5.0), 6);
        assert_eq!(MiniFloat::F4E2M1FN.encode(0.25), 0);
        assert_eq!(MiniFloat::F4E2M1FN.encode(0.75), 2);
        assert_eq!(MiniFloat::F4E2M1FN.encode(-2.6), 0x8 | 5);
        assert_eq!(MiniFloat::F4E2M1FN.encode(100.0), 7);
        assert_eq!(MiniFloat::F8E4M3FN.encode(-0.0), 0x80);
        // Between 256 (1.0·2^8) and 288 (1.125·2^8).
        assert_eq!(MiniFloat::F8E4M3FN.encode(272.0), 0x78);
        assert_eq!(MiniFloat::F8E4M3FN.encode(272.1), 0x79);
    }
}
