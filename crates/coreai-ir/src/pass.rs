//! What a pass is: the [`Pass`] trait, its declaration ([`PassInfo`]: name,
//! summary, options, constructor) and the parsing of MLIR's textual pass
//! options into it. The list of the project's passes is the root crate's
//! (`coreai::registry`); the C++ shim that lets a [`PassInfo`] live in a
//! textual pipeline is [`crate::foreign_pass`].

use melior::ir::operation::OperationRef;

crate::pass_options! {
    /// The options every project pass takes, parsed here once (not by the
    /// passes) and handed to `Pass::run` for the rewrite driver
    /// ([`crate::rewrite::Rewriter`]).
    #[derive(Copy, PartialEq, Eq)]
    pub struct RewriteOptions {
        "max-rewrites" => max_rewrites: Option<usize> = "-1",
            "apply only the first N rewrites (numbered in the pass's deterministic order; -1: all); later ones are skipped, to bisect a bad rewrite",
            parse = |v: &str| match v.trim().parse::<i64>() {
                Ok(-1) => Ok(None),
                Ok(n) if n >= 0 => Ok(Some(n as usize)),
                _ => Err(format!("'{}' is not a count (0, 1, ... or -1 for all)", v.trim())),
            };
        "trace-rewrites" => trace: bool = "false",
            "print one line per rewrite to stderr: rewrite <pass> #<k> <pattern> at <location>";
    }
}

/// One textual option of a pass (`name=value` inside `pass{...}`).
#[derive(Debug)]
pub struct PassOption {
    pub name: &'static str,
    pub help: &'static str,
    /// The value used when the option is not given, as text.
    pub default: &'static str,
}

/// A pass instance. The pass manager clones instances for its worker threads,
/// so a pass keeps its options in itself and nothing in globals.
/// A pass is `Clone`; [`PassClone`] boxes the clones.
pub trait Pass: Send + PassClone {
    /// Sets one option; the error says what values are accepted.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String>;
    /// Runs on `op`. On failure the pass has emitted an error diagnostic.
    /// `rewrites` holds the options every pass takes ([`REWRITE_OPTIONS`]),
    /// for the pass's [`crate::rewrite::Rewriter`].
    fn run(&mut self, op: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult;
}

/// Clones a boxed pass; implemented for every `Pass + Clone`.
pub trait PassClone {
    fn clone_box(&self) -> Box<dyn Pass>;
}

impl<T: Pass + Clone + 'static> PassClone for T {
    fn clone_box(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

/// A pass failed and has emitted its diagnostic.
#[derive(Debug, Clone, Copy)]
pub struct PassFailed;

/// What a pass run (or a step of one) returns.
pub type PassResult = Result<(), PassFailed>;

#[derive(Debug)]
pub struct PassInfo {
    /// The name in textual pipelines (`--pass-pipeline='builtin.module(NAME)'`).
    pub name: &'static str,
    pub summary: &'static str,
    /// The pass file's source (`include_str!` of itself): its `//!` header is
    /// the pass's long description ([`PassInfo::description`]), as MLIR
    /// shows a pass's `description`.
    pub source: &'static str,
    /// The operation the pass is anchored on; `None` runs on any operation.
    pub anchor: Option<&'static str>,
    pub options: &'static [PassOption],
    pub create: fn() -> Box<dyn Pass>,
}

impl PassInfo {
    /// The long description: the pass file's `//!` header, without the
    /// comment markers.
    pub fn description(&self) -> String {
        let mut lines: Vec<&str> = Vec::new();
        for line in self.source.lines() {
            match line.strip_prefix("//!") {
                Some(text) => lines.push(text.strip_prefix(' ').unwrap_or(text)),
                None => break,
            }
        }
        lines.join("\n").trim().to_string()
    }
}

/// A named pipeline: a name that expands to a textual pass list.
#[derive(Debug)]
pub struct PipelineInfo {
    pub name: &'static str,
    pub summary: &'static str,
    /// The pass list, without an anchor (`canonicalize,cse`).
    pub expansion: &'static str,
}

/// Parses a comma-separated option value whose items must each be one of
/// `known` (`what` names an item in the error: "'x' is not WHAT; choose
/// from a, b").
pub fn parse_choices(
    value: &str,
    known: &[&'static str],
    what: &str,
) -> Result<Vec<&'static str>, String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|requested| {
            known
                .iter()
                .find(|k| **k == requested)
                .copied()
                .ok_or_else(|| {
                    format!(
                        "'{requested}' is not {what}; choose from {}",
                        known.join(", ")
                    )
                })
        })
        .collect()
}

/// A boolean option value: `true`/`1` or `false`/`0`, as every option
/// ([`crate::options::OptionValue`]).
pub fn parse_bool(value: &str) -> Result<bool, String> {
    crate::options::OptionValue::parse_option(value)
}

/// The options every project pass takes ([`RewriteOptions`]).
pub static REWRITE_OPTIONS: &[PassOption] = RewriteOptions::OPTIONS;

/// Parses MLIR's textual pass options (`a=1 b={x,y} c="s t"`) into pairs.
pub fn parse_options(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return Ok(pairs);
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        if chars.next_if_eq(&'=').is_none() {
            return Err(format!(
                "option '{key}' has no value (expected '{key}=VALUE')"
            ));
        }
        let mut value = String::new();
        let mut depth = 0usize;
        let mut quote = None;
        while let Some(&c) = chars.peek() {
            match (quote, c) {
                (Some(q), _) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '{') => depth += 1,
                (None, '}') => depth = depth.saturating_sub(1),
                (None, c) if c.is_whitespace() && depth == 0 => break,
                _ => {}
            }
            value.push(c);
            chars.next();
        }
        let value = value
            .strip_prefix('{')
            .and_then(|v| v.strip_suffix('}'))
            .or_else(|| value.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
            .unwrap_or(&value)
            .to_string();
        pairs.push((key, value));
    }
}

/// Applies textual options to a fresh instance of `info`'s pass: the
/// options every pass takes go to `rewrites`, the others to the pass.
pub fn configure(
    info: &PassInfo,
    pass: &mut dyn Pass,
    rewrites: &mut RewriteOptions,
    text: &str,
) -> Result<(), String> {
    for (key, value) in parse_options(text)? {
        if set_rewrite_option(rewrites, &key, &value)
            .map_err(|e| format!("pass '{}', option '{key}': {e}", info.name))?
        {
            continue;
        }
        if !info.options.iter().any(|o| o.name == key) {
            let mut known: Vec<&str> = info.options.iter().map(|o| o.name).collect();
            known.extend(REWRITE_OPTIONS.iter().map(|o| o.name));
            return Err(if known.is_empty() {
                format!("pass '{}' takes no options, got '{key}'", info.name)
            } else {
                format!(
                    "pass '{}' has no option '{key}'; its options are: {}",
                    info.name,
                    known.join(", ")
                )
            });
        }
        pass.set_option(&key, &value)
            .map_err(|e| format!("pass '{}', option '{key}': {e}", info.name))?;
    }
    Ok(())
}

/// Sets `key` if it is one of [`REWRITE_OPTIONS`]; `Ok(false)` otherwise.
fn set_rewrite_option(
    options: &mut RewriteOptions,
    key: &str,
    value: &str,
) -> Result<bool, String> {
    if !REWRITE_OPTIONS.iter().any(|o| o.name == key) {
        return Ok(false);
    }
    options.set(key, value).map(|()| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_nested_and_quoted_values() {
        let pairs = parse_options(" a=1 b={x, y} c=\"s t\" ").unwrap();
        assert_eq!(
            pairs,
            vec![
                ("a".into(), "1".into()),
                ("b".into(), "x, y".into()),
                ("c".into(), "s t".into())
            ]
        );
        assert!(parse_options("novalue").is_err());
    }
}
