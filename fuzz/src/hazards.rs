//! Inputs that reach a known MLIR 22 fault the tools cannot prevent, which
//! the text targets skip so that a run keeps finding faults of our own.
//!
//! [`forward_ref_captured_by_block_argument`]: MLIR 22's parser resolves a
//! pending forward reference (`%t = op %b` before any `%b`) with a block
//! argument of the same name declared later (`^bb0(%b: T)`); when the parse
//! then fails, the argument is freed under the live use and the parser's
//! cleanup writes into freed memory (test/coreai-opt/upstream-forward-ref.test).
//! A target keeps one MLIR context across inputs, so the corrupted heap ends
//! a later input. The check is lexical and errs towards skipping: a name
//! used before any definition in the text that a block header declares
//! later.

/// The `%name` token starting at `i` (`bytes[i] == b'%'`): its end.
fn name_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < bytes.len()
        && (bytes[j].is_ascii_alphanumeric() || matches!(bytes[j], b'_' | b'$' | b'.' | b'-'))
    {
        j += 1;
    }
    j
}

/// Whether the `%name` ending at `end` is defined there: followed by
/// `= `, `:N =`, `, %x =` (a result list) or `:` inside a `(` list that a
/// block header or a signature opens.
fn is_definition(bytes: &[u8], end: usize, in_header: bool) -> bool {
    let rest = &bytes[end..];
    let rest = rest.trim_ascii_start();
    if in_header {
        return rest.first() == Some(&b':');
    }
    // `%a = ...`, `%a:2 = ...`, `%a, %b = ...`
    let mut k = 0;
    while k < rest.len() && rest[k] != b'\n' {
        match rest[k] {
            b'=' => return rest.get(k + 1) != Some(&b'='),
            b'%' | b',' | b':' | b'#' | b' ' | b'\t' => k += 1,
            c if c.is_ascii_alphanumeric() || c == b'_' => k += 1,
            _ => return false,
        }
    }
    false
}

/// See the module documentation.
pub fn forward_ref_captured_by_block_argument(text: &[u8]) -> bool {
    let mut defined: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
    let mut pending: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
    // Inside the `(...)` of a block header (`^bb0(`) or of a signature
    // (`@f(`): names followed by `:` are declared there.
    let mut header_depth: Option<usize> = None;
    let mut depth = 0usize;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i += 1;
                while i < text.len() && text[i] != b'"' && text[i] != b'\n' {
                    i += if text[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if text.get(i + 1) == Some(&b'/') => {
                while i < text.len() && text[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                let before = text[..i].trim_ascii_end();
                let opens_header = before
                    .iter()
                    .rposition(|&b| {
                        !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-'))
                    })
                    .is_some_and(|p| matches!(before[p], b'^' | b'@'));
                depth += 1;
                if opens_header && header_depth.is_none() {
                    header_depth = Some(depth);
                }
                i += 1;
            }
            b')' => {
                if header_depth == Some(depth) {
                    header_depth = None;
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'%' => {
                let end = name_end(text, i);
                let name = &text[i..end];
                let in_header = header_depth.is_some();
                if is_definition(text, end, in_header) {
                    if in_header && pending.contains(name) {
                        return true;
                    }
                    defined.insert(name);
                } else if !defined.contains(name) {
                    pending.insert(name);
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::forward_ref_captured_by_block_argument as hazard;

    #[test]
    fn the_upstream_shape_is_found_valid_modules_are_not() {
        assert!(hazard(
            b"%t = arith.addi %b, %b : index\n%0 = tensor.generate {\n^bb0(%b: index):\n}\n"
        ));
        assert!(hazard(
            b"func.func @f() {\n  %t = aten.neg.default %b : (tensor<3xf32>) -> tensor<3xf32>\n  %0 = aten.while_loop () () -> () cond {\n  ^bb0(%a: tensor<i64>, %b: tensor<3xf32>):\n"
        ));
        let valid: &[&[u8]] = &[
            b"func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = aten.neg.default %x : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
            b"%0:2 = aten.while_loop (%i : tensor<i64>) () -> tensor<i64> cond {\n^bb0(%a: tensor<i64>):\n  aten.yield %a : tensor<i1>\n} body {\n^bb0(%a: tensor<i64>):\n  aten.yield %a : tensor<i64>\n}\n",
            b"coreai.graph @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n  %0, %1 = coreai.split %arg0 : tensor<2xf32>\n  coreai.output %0 : tensor<2xf32>\n}\n",
        ];
        for text in valid {
            assert!(!hazard(text), "{}", String::from_utf8_lossy(text));
        }
    }
}
