//! Textual pass pipelines: the names they use, checked against the registry
//! before MLIR parses them, so an unknown name gets the nearest registered
//! ones instead of a bare "does not refer to a registered pass".

use crate::error::Error;

/// One item of a textual pipeline: a pass or named pipeline with its
/// options (`foo{a=1}`), or an operation anchor with the items nested in it
/// (`func.func(cse)`).
#[derive(Debug, PartialEq, Eq)]
pub struct Item<'t> {
    pub name: &'t str,
    /// The byte offset of the name in the text.
    pub offset: usize,
    /// What is between the braces, if the item has them.
    pub options: Option<&'t str>,
    /// The items of an anchor.
    pub nested: Option<Vec<Item<'t>>>,
    /// The item's whole text (`foo{a=1}`, `func.func(cse)`).
    pub text: &'t str,
}

/// The items of a textual pipeline, nested under their anchors
/// (`builtin.module(func.func(cse),foo{a=1})` gives `builtin.module` with
/// `func.func` (with `cse`) and `foo`). Lenient: what is not an item is
/// skipped, and MLIR's own parser reports malformed text.
pub fn parse(text: &str) -> Vec<Item<'_>> {
    let mut pos = 0;
    let mut items = Vec::new();
    while pos < text.len() {
        let (mut list, end) = parse_list(text, pos);
        items.append(&mut list);
        // An unbalanced ')' at the top: step over it.
        pos = end + 1;
    }
    items
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_-.".contains(&b)
}

/// The items from `pos` to the `)` closing their list (or the end), and
/// where that is.
fn parse_list(text: &str, mut pos: usize) -> (Vec<Item<'_>>, usize) {
    let bytes = text.as_bytes();
    let skip_space = |mut p: usize| {
        while p < bytes.len() && bytes[p].is_ascii_whitespace() {
            p += 1;
        }
        p
    };
    let mut items = Vec::new();
    while pos < bytes.len() && bytes[pos] != b')' {
        if !is_name_byte(bytes[pos]) {
            pos += 1;
            continue;
        }
        let start = pos;
        while pos < bytes.len() && is_name_byte(bytes[pos]) {
            pos += 1;
        }
        let name = &text[start..pos];
        let mut end = pos;
        let mut options = None;
        pos = skip_space(pos);
        if pos < bytes.len() && bytes[pos] == b'{' {
            let close = closing_brace(bytes, pos);
            options = Some(&text[pos + 1..close.min(bytes.len())]);
            pos = (close + 1).min(bytes.len());
            end = pos;
            pos = skip_space(pos);
        }
        let mut nested = None;
        if pos < bytes.len() && bytes[pos] == b'(' {
            let (list, close) = parse_list(text, pos + 1);
            nested = Some(list);
            pos = (close + 1).min(bytes.len());
            end = pos;
        }
        items.push(Item {
            name,
            offset: start,
            options,
            nested,
            text: &text[start..end],
        });
    }
    (items, pos)
}

/// The index of the `}` closing the `{` at `open` (nesting and quotes
/// respected), or the text's length.
fn closing_brace(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'{' => depth += 1,
            None if b == b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            None => {}
        }
    }
    bytes.len()
}

/// A pass (or pipeline) name used in a textual pipeline, with its byte offset.
#[derive(Debug, PartialEq, Eq)]
pub struct PassUse {
    pub name: String,
    pub offset: usize,
}

/// The pass names of `text` (`builtin.module(func.func(cse),foo{a=1})` gives
/// `cse` and `foo`): the items that are not anchors.
pub fn pass_uses(text: &str) -> Vec<PassUse> {
    fn walk(items: &[Item<'_>], out: &mut Vec<PassUse>) {
        for item in items {
            match &item.nested {
                Some(nested) => walk(nested, out),
                None => out.push(PassUse {
                    name: item.name.to_string(),
                    offset: item.offset,
                }),
            }
        }
    }
    let mut uses = Vec::new();
    walk(&parse(text), &mut uses);
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
    fn items_nest_under_their_anchors() {
        let items = parse("builtin.module(func.func(cse), foo{a=1 b={x(y)}} ,bar)");
        assert_eq!(items.len(), 1);
        let module = &items[0];
        assert_eq!(module.name, "builtin.module");
        let nested = module.nested.as_ref().unwrap();
        let texts: Vec<&str> = nested.iter().map(|i| i.text).collect();
        assert_eq!(texts, ["func.func(cse)", "foo{a=1 b={x(y)}}", "bar"]);
        assert_eq!(nested[1].options, Some("a=1 b={x(y)}"));
        assert_eq!(nested[0].nested.as_ref().unwrap()[0].name, "cse");
        assert_eq!(parse("x{s=\"a}b\"}")[0].options, Some("s=\"a}b\""));
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
