//! Passes name ops through `coreai_ir::op`'s constants, never as string
//! literals: a literal `"coreai.<op>"` (or `"coreaix.<op>"`) in a pass's
//! source is a name the compiler cannot check against the dialect.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the passes folder is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The string literals of `line` that start with a dialect prefix.
fn op_literals(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or_default();
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('"') else { break };
        let literal = &after[..end];
        if literal.starts_with("coreai.") || literal.starts_with("coreaix.") {
            found.push(format!("\"{literal}\""));
        }
        rest = &after[end + 1..];
    }
    found
}

#[test]
fn passes_name_no_op_by_string() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files.retain(|f| !f.starts_with(root.join("tests")));
    files.sort();
    assert!(files.len() > 40, "found only {} source files", files.len());
    let mut offenders = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for (n, line) in text.lines().enumerate() {
            for literal in op_literals(line) {
                offenders.push(format!("{}:{}: {literal}", file.display(), n + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "op names as strings (use coreai_ir::op::coreai::*):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_scanner_finds_a_literal() {
    assert_eq!(
        op_literals(r#"let x = cx.build_value("coreai.add", &[a], t, &[]); // "coreai.sub""#),
        vec!["\"coreai.add\"".to_string()]
    );
    assert!(op_literals(r#"format!("{} has no result", coreai::SCATTER_ND)"#).is_empty());
}
