//! Textual pass pipelines: the names they use, checked against the registry
//! before MLIR parses them, so an unknown name gets the nearest registered
//! ones instead of a bare "does not refer to a registered pass".

use crate::error::Error;

/// A pass (or pipeline) name used in a textual pipeline, with its byte offset.
#[derive(Debug, PartialEq, Eq)]
pub struct PassUse {
    pub name: String,
    pub offset: usize,
}

/// The pass names of `text` (`builtin.module(func.func(cse),foo{a=1})` gives
/// `cse` and `foo`); operation anchors (a name followed by `(`) are skipped.
pub fn pass_uses(text: &str) -> Vec<PassUse> {
    let bytes = text.as_bytes();
    let mut uses = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || b"_-.".contains(&bytes[i]))
            {
                i += 1;
            }
            let name = &text[start..i];
            // Skip an options block, honoring nesting and quotes.
            let mut j = i;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'{' {
                let mut depth = 0usize;
                let mut quote: Option<u8> = None;
                while j < bytes.len() {
                    let b = bytes[j];
                    match quote {
                        Some(q) if b == q => quote = None,
                        Some(_) => {}
                        None if b == b'"' || b == b'\'' => quote = Some(b),
                        None if b == b'{' => depth += 1,
                        None if b == b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                j += 1;
                                break;
                            }
                        }
                        None => {}
                    }
                    j += 1;
                }
                i = j;
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
            }
            let is_anchor = j < bytes.len() && bytes[j] == b'(';
            if !is_anchor {
                uses.push(PassUse {
                    name: name.to_string(),
                    offset: start,
                });
            }
        } else {
            i += 1;
        }
    }
    uses
}

/// The registered names closest to `name`, best first (at most three).
pub fn suggestions(name: &str, known: &[String]) -> Vec<String> {
    let mut scored: Vec<(f64, &String)> = known
        .iter()
        .map(|k| (strsim::normalized_damerau_levenshtein(name, k), k))
        .filter(|(score, k)| *score >= 0.5 || k.contains(name) || name.contains(k.as_str()))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, k)| k.clone()).collect()
}

/// Checks that every pass `text` names is registered.
pub fn check_pass_names(text: &str, known: &[String]) -> Result<(), Error> {
    for use_ in pass_uses(text) {
        if !known.contains(&use_.name) {
            return Err(Error::UnknownPass {
                name: use_.name.clone(),
                column: use_.offset + 1,
                suggestions: suggestions(&use_.name, known),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_and_options_are_not_pass_names() {
        let uses = pass_uses("builtin.module(func.func(cse, foo{a=1 b={x(y)}}),canonicalize)");
        let names: Vec<&str> = uses.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["cse", "foo", "canonicalize"]);
        assert_eq!(uses[1].offset, 30);
    }

    #[test]
    fn unknown_names_get_the_nearest_registered_ones() {
        let known: Vec<String> = ["canonicalize", "cse", "inline", "symbol-dce"]
            .map(String::from)
            .to_vec();
        let err = check_pass_names("builtin.module(canonicalise)", &known).unwrap_err();
        match err {
            Error::UnknownPass {
                name, suggestions, ..
            } => {
                assert_eq!(name, "canonicalise");
                assert_eq!(suggestions[0], "canonicalize");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(check_pass_names("builtin.module(cse,inline)", &known).is_ok());
    }
}
