//! Step 3, after the op-level reduction: shrink the reproducer's data while
//! the pass still miscompiles it (the same test as `reduce`: it parses, the
//! pass runs, `main` before and after differ on seeded inputs).
//!
//! 1. Constants: each `dense_resource` blob (a weight) becomes a splat
//!    (`dense<7.500000e-01>` for floats, `dense<1>` integers, `dense<true>`
//!    booleans): all at once, else one at a time. The reproducer then
//!    carries fewer blobs, and sizes a blob fixed are free to shrink.
//! 2. Shapes: each size of `main`'s argument types, largest first, is
//!    halved everywhere it appears in a tensor type (a consistent renaming,
//!    so types stay compatible), then, if that is invalid, also in integer
//!    lists (`dense<[..]>`, `array<i64: ..>`: reshape targets and the like);
//!    kept when the module stays valid and the divergence persists.
//!    Repeated until no size halves.
//! 3. Arguments: each argument of `main` becomes a splat constant of its
//!    type at the top of the body, one at a time (fewer inputs to carry).

use crate::reduce::{Oracle, Repro};

/// What shrinking did, for the summary.
pub struct Shrunk {
    pub constants: usize,
    /// Elements of `main`'s arguments before and after shrinking shapes.
    pub elements_before: usize,
    pub elements_shrunk: usize,
    /// Arguments made constants.
    pub arguments: usize,
}

/// Splits `text` at its `{-# ... #-}` resource section.
fn split_resources(text: &str) -> (&str, &str) {
    match text.find("\n{-#") {
        Some(i) => (&text[..i + 1], &text[i + 1..]),
        None => (text, ""),
    }
}

/// The element type of the `tensor<...>` starting at `s` ("tensor<2x3xf32>" → "f32").
fn element_type(s: &str) -> Option<&str> {
    let body = s.strip_prefix("tensor<")?;
    let end = body.find('>')?;
    let body = &body[..end];
    let body = body.split(',').next()?;
    Some(body.rsplit('x').next().unwrap_or(body).trim())
}

fn splat_for(element: &str) -> Option<&'static str> {
    match element {
        "f16" | "bf16" | "f32" | "f64" => Some("7.500000e-01"),
        "i1" => Some("true"),
        e if e.starts_with('i') || e.starts_with("si") || e.starts_with("ui") => Some("1"),
        _ => None,
    }
}

/// `text` with its `index`-th `dense_resource` constant (every one when
/// None) replaced by a splat; None when nothing changed.
fn splat(text: &str, index: Option<usize>) -> Option<String> {
    let (body, resources) = split_resources(text);
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    let mut seen = 0usize;
    let mut changed = false;
    while let Some(i) = rest.find("dense_resource<") {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let Some(close) = tail.find('>') else { break };
        let after = &tail[close + 1..];
        let replacement = after
            .strip_prefix(" : ")
            .and_then(element_type)
            .and_then(splat_for)
            .filter(|_| index.is_none_or(|k| k == seen));
        seen += 1;
        match replacement {
            Some(v) => {
                out.push_str(&format!("dense<{v}>"));
                changed = true;
            }
            None => out.push_str(&tail[..=close]),
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then(|| out.clone() + &prune_resources(&out, resources))
}

fn resource_count(text: &str) -> usize {
    split_resources(text).0.matches("dense_resource<").count()
}

/// The resource section without the blobs `body` no longer names.
fn prune_resources(body: &str, resources: &str) -> String {
    let kept: Vec<&str> = resources
        .lines()
        .filter(|l| l.contains(": \"0x"))
        .map(|l| l.trim().trim_end_matches(','))
        .filter(|l| {
            let name = l.split(": \"0x").next().unwrap_or("").trim_matches('"');
            body.contains(&format!("dense_resource<{name}>"))
        })
        .collect();
    if kept.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = kept.iter().map(|l| format!("      {l}")).collect();
    format!(
        "{{-#\n  dialect_resources: {{\n    builtin: {{\n{}\n    }}\n  }}\n#-}}\n",
        lines.join(",\n")
    )
}

/// The dims of each `tensor<...>` type in `s`, in order (`?` as None).
fn tensor_dims(s: &str) -> Vec<Vec<Option<usize>>> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("tensor<") {
        rest = &rest[i + "tensor<".len()..];
        let mut dims = Vec::new();
        let mut t = rest;
        loop {
            let n = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
            if n > 0 && t[n..].starts_with('x') {
                dims.push(t[..n].parse().ok());
                t = &t[n + 1..];
            } else if t.starts_with("?x") {
                dims.push(None);
                t = &t[2..];
            } else {
                break;
            }
        }
        out.push(dims);
    }
    out
}

/// The signature of `main` (argument list), or "".
fn main_arguments(text: &str) -> &str {
    let Some(i) = text.find("@main(") else {
        return "";
    };
    let s = &text[i..];
    &s[..s.find(") -> ").or_else(|| s.find('{')).unwrap_or(s.len())]
}

/// The element count of `main`'s arguments, and their distinct sizes > 1
/// (largest first).
fn argument_sizes(text: &str) -> (usize, Vec<usize>) {
    let dims = tensor_dims(main_arguments(text));
    let total = dims
        .iter()
        .map(|d| d.iter().map(|x| x.unwrap_or(1)).product::<usize>())
        .sum();
    let mut sizes: Vec<usize> = dims
        .iter()
        .flatten()
        .flatten()
        .copied()
        .filter(|&d| d > 1)
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();
    (total, sizes)
}

/// Replaces the integer `from` by `to` in a `x`-separated dims prefix
/// (`2x16x64xf32`), returning the rewritten prefix and the rest.
fn halve_dims(t: &str, from: usize, to: usize, out: &mut String) -> usize {
    let mut used = 0;
    let mut s = t;
    loop {
        let n = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        if n > 0 && s[n..].starts_with('x') {
            let d: usize = s[..n].parse().unwrap_or(0);
            out.push_str(&if d == from {
                to.to_string()
            } else {
                s[..n].to_string()
            });
            out.push('x');
            s = &s[n + 1..];
            used += n + 1;
        } else if s.starts_with("?x") {
            out.push_str("?x");
            s = &s[2..];
            used += 2;
        } else {
            return used;
        }
    }
}

/// Replaces integer tokens equal to `from` in a comma-separated list.
fn halve_list(list: &str, from: usize, to: usize) -> String {
    list.split(',')
        .map(|item| {
            let t = item.trim();
            if t.parse::<usize>().ok() == Some(from) {
                item.replace(t, &to.to_string())
            } else {
                item.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `text` with size `from` halved in every tensor type, and with
/// `lists` also in integer lists.
fn halve(text: &str, from: usize, lists: bool) -> String {
    let to = from / 2;
    let (body, resources) = split_resources(text);
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    loop {
        let next = ["tensor<", "array<i64:", "array<i32:", "dense<["]
            .iter()
            .filter_map(|k| rest.find(k).map(|i| (i, *k)))
            .min();
        let Some((i, key)) = next else { break };
        out.push_str(&rest[..i + key.len()]);
        rest = &rest[i + key.len()..];
        if key == "tensor<" {
            let used = halve_dims(rest, from, to, &mut out);
            rest = &rest[used..];
        } else if lists {
            let close = if key == "dense<[" { ']' } else { '>' };
            let Some(end) = rest.find(close) else { break };
            let list = &rest[..end];
            if list.contains(['.', 'e', '[']) {
                out.push_str(list);
            } else {
                out.push_str(&halve_list(list, from, to));
            }
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out + resources
}

/// The top-level comma-separated items of `s` (brackets nest).
fn top_level_items(s: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '{' | '[' => depth += 1,
            '>' | ')' | '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        items.push(&s[start..]);
    }
    items
}

/// The number of arguments of `main`.
fn argument_count(text: &str) -> usize {
    let Some(open) = text.find("@main(").map(|i| i + "@main(".len()) else {
        return 0;
    };
    text[open..]
        .find(") -> ")
        .map_or(0, |close| top_level_items(&text[open..open + close]).len())
}

/// `text` with argument `k` of `main` replaced by a splat constant defined
/// first in its body; None when it has no such argument or its type has
/// no splat.
fn constant_argument(text: &str, k: usize) -> Option<String> {
    let open = text.find("@main(")? + "@main(".len();
    let close = open + text[open..].find(") -> ")?;
    let items = top_level_items(&text[open..close]);
    let arg = items.get(k)?.trim();
    let (name, rest) = arg.split_once(": ")?;
    let ty = rest.split(" {").next()?.trim();
    let value = splat_for(element_type(ty)?)?;
    let body = close + text[close..].find("{\n")? + 2;
    let others: Vec<&str> = items
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != k)
        .map(|(_, a)| a.trim())
        .collect();
    Some(format!(
        "{}{}{}    {name} = \"coreai.constant\"() <{{value = dense<{value}> : {ty}}}> : () -> {ty}\n{}",
        &text[..open],
        others.join(", "),
        &text[close..body],
        &text[body..]
    ))
}

/// Takes `text` as the reproducer when the pass still miscompiles it.
fn accept(oracle: &mut Oracle, repro: &mut Repro, text: String) -> bool {
    if oracle.tests >= oracle.max_tests {
        return false;
    }
    match oracle.fails(&text, None) {
        Some(inputs) => {
            *repro = Repro { text, inputs };
            true
        }
        None => false,
    }
}

/// Shrinks `repro` (see the module comment).
pub fn shrink(oracle: &mut Oracle, mut repro: Repro) -> (Repro, Shrunk) {
    let (before, _) = argument_sizes(&repro.text);
    let blobs = resource_count(&repro.text);
    let mut constants = 0;
    if let Some(all) = splat(&repro.text, None) {
        if accept(oracle, &mut repro, all) {
            constants = blobs - resource_count(&repro.text);
        } else {
            // One at a time: index k stays valid while earlier ones fail.
            let mut k = 0;
            while k < resource_count(&repro.text) {
                let accepted =
                    splat(&repro.text, Some(k)).is_some_and(|t| accept(oracle, &mut repro, t));
                if accepted {
                    constants += 1;
                } else {
                    k += 1;
                }
            }
        }
    }
    loop {
        let (_, sizes) = argument_sizes(&repro.text);
        let mut changed = false;
        for d in sizes {
            let types_only = halve(&repro.text, d, false);
            if accept(oracle, &mut repro, types_only) {
                changed = true;
                break;
            }
            let with_lists = halve(&repro.text, d, true);
            if with_lists != halve(&repro.text, d, false) && accept(oracle, &mut repro, with_lists)
            {
                changed = true;
                break;
            }
        }
        if !changed {
            break;
        }
    }
    let (shrunk_elements, _) = argument_sizes(&repro.text);
    let arguments_before = argument_count(&repro.text);
    let mut k = 0;
    while k < argument_count(&repro.text) {
        let accepted =
            constant_argument(&repro.text, k).is_some_and(|t| accept(oracle, &mut repro, t));
        if !accepted {
            k += 1;
        }
    }
    let arguments = arguments_before - argument_count(&repro.text);
    (
        repro,
        Shrunk {
            constants,
            elements_before: before,
            elements_shrunk: shrunk_elements,
            arguments,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: &str = "module {\n  coreai.graph @main(%in0: tensor<2x16x64xf32> {coreai.name = \"in0\"}) -> (tensor<2x16x64xf32>) {\n    %1 = \"coreai.constant\"() <{value = dense_resource<w> : tensor<64xf32>}> : () -> tensor<64xf32>\n    %2 = \"coreai.constant\"() <{value = dense<[2, 16, 64]> : tensor<3xi64>}> : () -> tensor<3xi64>\n  }\n}\n\n{-#\n  dialect_resources: {\n    builtin: {\n      w: \"0x0400\"\n    }\n  }\n#-}\n";

    #[test]
    fn sizes_of_main_arguments() {
        assert_eq!(argument_sizes(M), (2048, vec![64, 16, 2]));
    }

    #[test]
    fn halving_renames_a_size_in_types_and_optionally_lists() {
        let t = halve(M, 16, false);
        assert!(t.contains("tensor<2x8x64xf32> {coreai.name"));
        assert!(t.contains("dense<[2, 16, 64]>"));
        assert!(t.contains("tensor<3xi64>"));
        let t = halve(M, 16, true);
        assert!(t.contains("dense<[2, 8, 64]>"));
        assert!(t.contains("w: \"0x0400\""), "resources untouched");
    }

    #[test]
    fn splatting_drops_the_blob() {
        let t = splat(M, None).unwrap();
        assert!(t.contains("<{value = dense<7.500000e-01> : tensor<64xf32>}>"));
        assert!(!t.contains("{-#"), "{t}");
        assert_eq!(resource_count(&t), 0);
        assert!(splat(M, Some(1)).is_none());
    }

    #[test]
    fn an_argument_becomes_a_constant() {
        let m = "module {\n  func.func @main(%in0: tensor<2xf32> {coreai.name = \"in0\"}, %in1: tensor<2xi32> {coreai.name = \"in1\"}) -> (tensor<2xf32>) {\n    return\n  }\n}\n";
        let t = constant_argument(m, 0).unwrap();
        assert!(t.contains("@main(%in1: tensor<2xi32> {coreai.name = \"in1\"}) -> (tensor<2xf32>) {\n    %in0 = \"coreai.constant\"() <{value = dense<7.500000e-01> : tensor<2xf32>}> : () -> tensor<2xf32>\n    return"), "{t}");
        let t = constant_argument(m, 1).unwrap();
        assert!(
            t.contains("%in1 = \"coreai.constant\"() <{value = dense<1> : tensor<2xi32>}>"),
            "{t}"
        );
        assert!(constant_argument(m, 2).is_none());
        assert_eq!(argument_count(m), 2);
    }
}
