//! An MLIR-aware mutator for the text targets.
//!
//! libFuzzer's byte mutations rarely leave a module that parses: one
//! flipped byte in an SSA name or a type and the parser stops at the first
//! line, so the verifier and the passes behind it see few inputs. This
//! mutator edits a module the way its grammar splits it instead:
//!
//! - a token (an op name, a type, an SSA value, an integer) becomes
//!   another token of the same kind, taken from the same module or from a
//!   short list of edge values (`?` dims, zero-size and rank-0 tensors,
//!   the int32/int64 limits, NaN and infinity bit patterns);
//! - a whole line (an op) is deleted, duplicated or swapped with another.
//!
//! One mutation in four is libFuzzer's own, so byte-level damage (what a
//! truncated or corrupt file holds) is still explored. Mutations are a
//! function of `seed`, as libFuzzer requires.

/// Token kinds the mutator swaps within their kind.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    OpName,
    Type,
    Value,
    Integer,
}

const TYPES: &[&str] = &[
    "f16",
    "bf16",
    "f32",
    "f64",
    "i1",
    "i8",
    "i32",
    "i64",
    "ui8",
    "index",
    "tensor<f32>",
    "tensor<0xf32>",
    "tensor<?xf32>",
    "tensor<2x?xi64>",
    "tensor<1x1x1x1xf16>",
    "tensor<4294967296xf32>",
];

const INTEGERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "-2147483648",
    "2147483647",
    "4294967296",
    "-9223372036854775808",
    "9223372036854775807",
    "65504",
    "0x7FC00000",
    "0xFF800000",
    "0x7C00",
];

const OP_NAMES: &[&str] = &[
    "coreai.reshape",
    "coreai.transpose",
    "coreai.slice",
    "coreai.concat",
    "coreai.gather",
    "coreai.matmul",
    "coreai.cast",
    "coreai.broadcast_to",
    "coreai.get_shape",
    "coreai.reduce_sum",
    "aten.view",
    "aten.slice.Tensor",
    "aten.index.Tensor",
    "aten.while_loop",
    "aten.cond",
];

/// A small deterministic generator (a 64-bit LCG, high bits out).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// Mutates `data[..size]` in place and returns the new size (at most
/// `max_size`), as libFuzzer's `LLVMFuzzerCustomMutator` does; `fallback`
/// is libFuzzer's own mutator (`libfuzzer_sys::fuzzer_mutate`).
pub fn mutate(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    fallback: fn(&mut [u8], usize, usize) -> usize,
) -> usize {
    let mut rng = Lcg(u64::from(seed) ^ 0x9E37_79B9_7F4A_7C15);
    let text = match std::str::from_utf8(&data[..size]) {
        Ok(text) if rng.below(4) != 0 && !text.is_empty() => text,
        _ => return fallback(data, size, max_size),
    };
    let mutated = if rng.below(3) == 0 {
        mutate_lines(text, &mut rng)
    } else {
        mutate_token(text, &mut rng)
    };
    let Some(mutated) = mutated else {
        return fallback(data, size, max_size);
    };
    // Cut at a character boundary so a shortened result stays UTF-8.
    let mut len = mutated.len().min(max_size);
    while !mutated.is_char_boundary(len) {
        len -= 1;
    }
    data[..len].copy_from_slice(&mutated.as_bytes()[..len]);
    len
}

fn mutate_lines(text: &str, rng: &mut Lcg) -> Option<String> {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.len() < 2 {
        return None;
    }
    let a = rng.below(lines.len());
    match rng.below(3) {
        0 => {
            lines.remove(a);
        }
        1 => lines.insert(a, lines[a]),
        _ => {
            let b = rng.below(lines.len());
            lines.swap(a, b);
        }
    }
    Some(lines.concat())
}

fn mutate_token(text: &str, rng: &mut Lcg) -> Option<String> {
    let tokens = tokenize(text);
    if tokens.is_empty() {
        return None;
    }
    let (kind, start, end) = tokens[rng.below(tokens.len())];
    let same: Vec<&str> = tokens
        .iter()
        .filter(|t| t.0 == kind)
        .map(|t| &text[t.1..t.2])
        .collect();
    let edges = match kind {
        Kind::OpName => OP_NAMES,
        Kind::Type => TYPES,
        Kind::Integer => INTEGERS,
        Kind::Value => &[][..],
    };
    let replacement = if !edges.is_empty() && rng.below(2) == 0 {
        let edge = edges[rng.below(edges.len())];
        // Op names in the generic form are quoted.
        if kind == Kind::OpName && text[start..end].starts_with('"') {
            format!("\"{edge}\"")
        } else {
            edge.to_string()
        }
    } else {
        same[rng.below(same.len())].to_string()
    };
    Some(format!("{}{}{}", &text[..start], replacement, &text[end..]))
}

/// The swappable tokens of `text`: (kind, start, end) byte spans.
fn tokenize(text: &str) -> Vec<(Kind, usize, usize)> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$';
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        if b == b'%' {
            i += 1;
            while i < bytes.len() && (word(bytes[i]) || bytes[i] == b'#') {
                i += 1;
            }
            tokens.push((Kind::Value, start, i));
        } else if bytes[i..].starts_with(b"tensor<") {
            // A balanced `<...>`; an unbalanced one is left alone.
            let mut depth = 0usize;
            while i < bytes.len() {
                match bytes[i] {
                    b'<' => depth += 1,
                    b'>' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    b'\n' => break,
                    _ => {}
                }
                i += 1;
            }
            if depth == 0 {
                tokens.push((Kind::Type, start, i));
            }
        } else if b == b'"' {
            i += 1;
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
            if i < bytes.len() && bytes[i] == b'"' && text[start + 1..i].contains('.') {
                i += 1;
                tokens.push((Kind::OpName, start, i));
            }
        } else if b.is_ascii_digit()
            || (b == b'-' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            // `4x8xf32` inside a shape is not an integer of its own.
            if !text[start..i].contains('x') || text[start..i].starts_with("0x") {
                tokens.push((Kind::Integer, start, i));
            }
        } else if word(b) {
            while i < bytes.len() && word(bytes[i]) {
                i += 1;
            }
            let w = &text[start..i];
            let preceded_by_assign = text[..start].trim_end().ends_with('=');
            if w.contains('.')
                && (w.starts_with("coreai.") || w.starts_with("aten.") || preceded_by_assign)
            {
                tokens.push((Kind::OpName, start, i));
            } else if matches!(
                w,
                "f16" | "bf16" | "f32" | "f64" | "i1" | "i8" | "i16" | "i32" | "i64" | "index"
            ) {
                tokens.push((Kind::Type, start, i));
            }
        } else {
            i += 1;
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "func.func @main(%arg0: tensor<2x3xf32>) -> tensor<6xf32> {\n  \
        %0 = coreai.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>\n  \
        %c = \"coreai.constant\"() {value = dense<4> : tensor<i64>} : () -> tensor<i64>\n  \
        return %0 : tensor<6xf32>\n}\n";

    #[test]
    fn tokens_are_classified() {
        let kinds: Vec<(Kind, &str)> = tokenize(MODULE)
            .into_iter()
            .map(|(k, s, e)| (k, &MODULE[s..e]))
            .collect();
        assert!(kinds.contains(&(Kind::OpName, "coreai.reshape")));
        assert!(kinds.contains(&(Kind::OpName, "\"coreai.constant\"")));
        assert!(kinds.contains(&(Kind::Type, "tensor<2x3xf32>")));
        assert!(kinds.contains(&(Kind::Value, "%arg0")));
        assert!(kinds.contains(&(Kind::Integer, "4")));
        // Shape digits are part of their type, not integers of their own.
        assert!(!kinds.iter().any(|(_, t)| *t == "2x3xf32"));
    }

    #[test]
    fn token_mutations_change_one_token_and_stay_utf8() {
        let mut changed = 0;
        for seed in 0..200u64 {
            let mut rng = Lcg(seed);
            let out = mutate_token(MODULE, &mut rng).unwrap();
            changed += usize::from(out != MODULE);
            // Line structure is kept: a token never spans lines.
            assert_eq!(out.lines().count(), MODULE.lines().count());
        }
        assert!(
            changed > 100,
            "only {changed} of 200 token mutations changed the module"
        );
    }

    /// Non-ASCII text (comments, strings) is walked byte by byte without
    /// slicing inside a character: `i` may sit inside one.
    #[test]
    fn non_ascii_text_tokenizes_and_mutates() {
        let text = "// A float \u{2192} int \u{2192} float round trip\n%0 = coreai.abs %x : tensor<2xf32> -> tensor<2xf32>\n\u{e9}\u{2192}\"";
        let kinds: Vec<&str> = tokenize(text)
            .into_iter()
            .map(|(_, s, e)| &text[s..e])
            .collect();
        assert!(
            kinds.contains(&"tensor<2xf32>") && kinds.contains(&"coreai.abs"),
            "{kinds:?}"
        );
        for seed in 0..200u64 {
            let mut rng = Lcg(seed);
            if let Some(m) = mutate_token(text, &mut rng) {
                assert!(std::str::from_utf8(m.as_bytes()).is_ok());
            }
        }
    }

    #[test]
    fn line_mutations_keep_whole_lines() {
        for seed in 0..50u64 {
            let mut rng = Lcg(seed);
            let out = mutate_lines(MODULE, &mut rng).unwrap();
            for line in out.lines() {
                assert!(
                    MODULE.lines().any(|l| l == line),
                    "a line was cut: {line:?}"
                );
            }
        }
    }

    #[test]
    fn result_fits_max_size_and_falls_back_on_bytes() {
        fn mark(data: &mut [u8], _size: usize, _max: usize) -> usize {
            data[0] = 0xFF;
            1
        }
        let mut fell_back = 0;
        for seed in 0..100u32 {
            let mut data = MODULE.as_bytes().to_vec();
            let max = MODULE.len() - 10;
            let len = mutate(&mut data, MODULE.len(), max, seed, mark);
            assert!(len <= max);
            if data[0] == 0xFF && len == 1 {
                fell_back += 1;
            } else {
                assert!(std::str::from_utf8(&data[..len]).is_ok());
            }
        }
        // About one in four is libFuzzer's own mutation.
        assert!(
            (10..50).contains(&fell_back),
            "{fell_back} of 100 fell back"
        );
        // Input that is not UTF-8 always goes to libFuzzer.
        let mut bytes = vec![0xC3, 0x28, 0x41];
        assert_eq!(mutate(&mut bytes, 3, 3, 7, mark), 1);
    }
}
