//! Splitting a textual pipeline into the passes it runs, one by one:
//! `builtin.module(coreai-pipeline)` → `decompose`, `legalize-aten-to-coreai`,
//! `canonicalize`, `cse` (named pipelines expanded from the registry).

/// The passes of `pipeline` (anchored on `builtin.module`), each as the text
/// that runs it alone inside `builtin.module(...)`.
pub fn passes(pipeline: &str) -> Result<Vec<String>, String> {
    let not_anchored =
        || format!("--pass-pipeline must be 'builtin.module(...)', got '{pipeline}'");
    let items = coreai::pipeline::parse(pipeline);
    let [module] = items.as_slice() else {
        return Err(not_anchored());
    };
    let nested = match (&module.nested, module.name) {
        (Some(nested), "builtin.module") if module.text.ends_with(')') => nested,
        _ => return Err(not_anchored()),
    };
    let mut out = Vec::new();
    expand(nested, &mut out, 0)?;
    if out.is_empty() {
        return Err("the pipeline runs no pass".into());
    }
    Ok(out)
}

fn expand(
    items: &[coreai::pipeline::Item<'_>],
    out: &mut Vec<String>,
    depth: usize,
) -> Result<(), String> {
    if depth > 16 {
        return Err("named pipelines nest too deeply".into());
    }
    for item in items {
        match coreai::registry::PIPELINES
            .iter()
            .find(|p| p.name == item.name)
        {
            Some(p) if item.options.is_none() && item.nested.is_none() => {
                expand(&coreai::pipeline::parse(p.expansion), out, depth + 1)?
            }
            _ => out.push(item.text.to_string()),
        }
    }
    Ok(())
}

/// The name of a pass item (`decompose{table=coreai}` → `decompose`).
pub fn pass_name(item: &str) -> &str {
    item.split(['{', '(']).next().unwrap_or(item).trim()
}

/// `item` with `extra` options added (`cse` + `max-rewrites=3` →
/// `cse{max-rewrites=3}`).
pub fn with_options(item: &str, extra: &str) -> String {
    match item.strip_suffix('}') {
        Some(head) if item.contains('{') => format!("{head} {extra}}}"),
        _ => format!("{item}{{{extra}}}"),
    }
}

/// Whether `item` is a project pass: every one numbers its rewrite
/// applications and takes `max-rewrites` and `trace-rewrites`
/// (`coreai::registry::REWRITE_OPTIONS`); upstream passes do not.
pub fn numbers_rewrites(item: &str) -> bool {
    coreai::registry::find_pass(pass_name(item)).is_some()
        && coreai::registry::REWRITE_OPTIONS
            .iter()
            .any(|o| o.name == "max-rewrites")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_named_pipelines_and_keeps_options() {
        let p =
            passes("builtin.module(coreai-pipeline,test-plant-miscompile{op=coreai.mul nth=2})")
                .unwrap();
        assert_eq!(
            p,
            [
                "decompose",
                "legalize-aten-to-coreai",
                "externalize-composites",
                "fp16-stabilize",
                "canonicalize",
                "cse",
                "core-optimize",
                "test-plant-miscompile{op=coreai.mul nth=2}"
            ]
        );
        assert_eq!(
            with_options(&p[7], "max-rewrites=1"),
            "test-plant-miscompile{op=coreai.mul nth=2 max-rewrites=1}"
        );
        assert_eq!(with_options("cse", "a=1"), "cse{a=1}");
        assert!(passes("cse").is_err());
        assert!(passes("builtin.module(cse").is_err());
    }
}
