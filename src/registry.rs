//! The one registry of the project's passes and pipelines.
//!
//! Every pass is declared once, as a [`PassInfo`]: its pipeline name, summary,
//! options and constructor. `coreai-opt --list-passes`, the docs, option
//! errors and "unknown pass" suggestions all come from here, and
//! [`register_all`] makes every entry nameable in textual pipelines (next to
//! upstream MLIR passes) through the C++ foreign-pass shim.

use crate::{ffi, rewrite::RewriteOptions};
use melior::ir::operation::{OperationLike, OperationRef};
use mlir_sys::{MlirOperation, MlirStringCallback, MlirStringRef};
use std::{
    ffi::{c_void, CString},
    panic::{catch_unwind, AssertUnwindSafe},
    sync::OnceLock,
};

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

/// A boolean option value: `true`/`1` or `false`/`0`.
pub fn parse_bool(value: &str) -> Result<bool, String> {
    match value.trim() {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        other => Err(format!("'{other}' is not true or false")),
    }
}

/// Every pass of the project.
pub static PASSES: &[PassInfo] = &[
    crate::passes::cast_to_f16::INFO,
    crate::passes::core_optimize::INFO,
    crate::passes::decompose::INFO,
    crate::passes::externalize_composites::INFO,
    crate::passes::fold_idempotent_unary::INFO,
    crate::passes::fp16_stabilize::INFO,
    crate::passes::legalize_aten_to_coreai::INFO,
    crate::passes::set_hw_constraints::INFO,
    crate::passes::target_ane::INFO,
    crate::passes::target_cpu::INFO,
    crate::passes::target_gpu::INFO,
    crate::passes::test_plant_miscompile::INFO,
];

/// The options every project pass takes, parsed here once (not by the
/// passes) and handed to `Pass::run` for the rewrite driver
/// ([`crate::rewrite`]).
pub static REWRITE_OPTIONS: &[PassOption] = &[
    PassOption {
        name: "max-rewrites",
        help: "apply only the first N rewrites (numbered in the pass's deterministic order; -1: all); later ones are skipped, to bisect a bad rewrite",
        default: "-1",
    },
    PassOption {
        name: "trace-rewrites",
        help: "print one line per rewrite to stderr: rewrite <pass> #<k> <pattern> at <location>",
        default: "false",
    },
];

/// Every registered pipeline of the project.
pub static PIPELINES: &[PipelineInfo] = &[
    PipelineInfo {
        name: "coreai-cleanup",
        summary: "Value-preserving cleanup: fold-idempotent-unary, canonicalize, cse",
        expansion: "fold-idempotent-unary,canonicalize,cse",
    },
    PipelineInfo {
        name: "coreai-pipeline",
        summary: "Imported ATen module → coreai: decompose (coreai table), legalize-aten-to-coreai, externalize-composites, fp16-stabilize, canonicalize, cse, core-optimize",
        expansion: "decompose,legalize-aten-to-coreai,externalize-composites,fp16-stabilize,canonicalize,cse,core-optimize",
    },
];

pub fn find_pass(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.name == name)
}

/// Registers every project pass and pipeline, and the upstream passes
/// pipelines may mix with them, in MLIR's global pass registry. Idempotent.
pub fn register_all() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| unsafe {
        ffi::coreaiRegisterUpstreamPasses();
        for info in PASSES {
            ffi::coreaiRegisterForeignPass(
                ffi::string_ref(info.name),
                ffi::string_ref(info.summary),
                ffi::string_ref(info.anchor.unwrap_or("")),
                info as *const PassInfo as *mut c_void,
                CALLBACKS,
            );
        }
        for pipeline in PIPELINES {
            ffi::coreaiRegisterPipeline(
                ffi::string_ref(pipeline.name),
                ffi::string_ref(pipeline.summary),
                ffi::string_ref(pipeline.expansion),
            );
        }
    });
}

/// The upstream MLIR passes available by name, with their descriptions.
pub fn upstream_passes() -> Vec<(String, String)> {
    register_all();
    let mut names: Vec<u8> = Vec::new();
    unsafe extern "C" fn collect(s: MlirStringRef, user_data: *mut c_void) {
        let out = unsafe { &mut *(user_data as *mut Vec<u8>) };
        out.extend_from_slice(&unsafe { ffi::string_ref_bytes(s) });
        out.push(b'\n');
    }
    unsafe { ffi::coreaiForEachUpstreamPass(Some(collect), &mut names as *mut _ as *mut c_void) };
    String::from_utf8_lossy(&names)
        .lines()
        .map(|name| {
            let mut description = Vec::new();
            unsafe {
                ffi::coreaiDescribeRegisteredPass(
                    ffi::string_ref(name),
                    Some(ffi::append_to_vec),
                    &mut description as *mut _ as *mut c_void,
                )
            };
            (
                name.to_string(),
                String::from_utf8_lossy(&description).into_owned(),
            )
        })
        .collect()
}

/// Every name a textual pipeline may use: project passes and pipelines, and
/// the upstream passes.
pub fn all_pass_names() -> Vec<String> {
    let mut names: Vec<String> = PASSES.iter().map(|p| p.name.to_string()).collect();
    names.extend(PIPELINES.iter().map(|p| p.name.to_string()));
    names.extend(upstream_passes().into_iter().map(|(name, _)| name));
    names.sort();
    names
}

/// The pass reference (`docs/passes.md`), generated from this registry.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Passes and pipelines\n\n\
         Generated from the pass registry (`src/registry.rs`); `coreai-opt --list-passes`\n\
         prints the same list with the upstream passes. Regenerate with\n\
         `COREAI_BLESS=1 cargo test --test docs`.\n",
    );
    for pass in PASSES {
        out.push_str(&format!(
            "\n## `{}`\n\n{}\n\n{}\n\n",
            pass.name,
            pass.summary,
            pass.description()
        ));
        out.push_str(&format!(
            "Runs on: {}\n",
            pass.anchor
                .map_or("any operation".to_string(), |a| format!("`{a}`"))
        ));
        if !pass.options.is_empty() {
            out.push_str("\n| option | default | meaning |\n|---|---|---|\n");
            for option in pass.options {
                out.push_str(&format!(
                    "| `{}` | `{}` | {} |\n",
                    option.name, option.default, option.help
                ));
            }
        }
    }
    out.push_str("\n## Options of every pass\n\n| option | default | meaning |\n|---|---|---|\n");
    for option in REWRITE_OPTIONS {
        out.push_str(&format!(
            "| `{}` | `{}` | {} |\n",
            option.name, option.default, option.help
        ));
    }
    for pipeline in PIPELINES {
        out.push_str(&format!(
            "\n## pipeline `{}`\n\n{}\n\nExpands to `{}`.\n",
            pipeline.name, pipeline.summary, pipeline.expansion
        ));
    }
    out
}

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
    match key {
        "max-rewrites" => {
            options.max_rewrites = match value.trim().parse::<i64>() {
                Ok(-1) => None,
                Ok(n) if n >= 0 => Some(n as usize),
                _ => {
                    return Err(format!(
                        "'{value}' is not a count (0, 1, ... or -1 for all)"
                    ))
                }
            }
        }
        "trace-rewrites" => {
            options.trace = match value.trim() {
                "true" | "1" => true,
                "false" | "0" => false,
                other => return Err(format!("'{other}' is not true or false")),
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Emits an error diagnostic at `op`'s location.
pub fn emit_error(op: OperationRef<'_, '_>, message: &str) {
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { mlir_sys::mlirEmitError(op.location().to_raw(), message.as_ptr()) };
}

/// One offending op of a validation: where it is, its name in the error's
/// list, and the note at its location.
pub struct Offender {
    pub location: mlir_sys::MlirLocation,
    pub display: String,
    pub note: String,
}

/// The offenders' names, sorted and de-duplicated, comma-separated.
pub fn sorted_unique(offenders: &[Offender]) -> String {
    let mut names: Vec<&str> = offenders.iter().map(|o| o.display.as_str()).collect();
    names.sort();
    names.dedup();
    names.join(", ")
}

/// One error at the first offender's location, one note per offender.
pub fn emit_with_notes(offenders: &[Offender], message: &str) {
    let Some(first) = offenders.first() else {
        return;
    };
    let locations: Vec<mlir_sys::MlirLocation> = offenders.iter().map(|o| o.location).collect();
    let notes: Vec<MlirStringRef> = offenders.iter().map(|o| ffi::string_ref(&o.note)).collect();
    unsafe {
        ffi::coreaiEmitErrorWithNotes(
            first.location,
            ffi::string_ref(message),
            notes.len() as isize,
            locations.as_ptr(),
            notes.as_ptr(),
        )
    };
}

struct Instance {
    info: &'static PassInfo,
    pass: Box<dyn Pass>,
    rewrites: RewriteOptions,
}

unsafe extern "C" fn cb_create(descriptor: *mut c_void) -> *mut c_void {
    let info = unsafe { &*(descriptor as *const PassInfo) };
    Box::into_raw(Box::new(Instance {
        info,
        pass: (info.create)(),
        rewrites: RewriteOptions::default(),
    })) as *mut c_void
}

unsafe extern "C" fn cb_clone(state: *mut c_void) -> *mut c_void {
    let instance = unsafe { &*(state as *const Instance) };
    Box::into_raw(Box::new(Instance {
        info: instance.info,
        pass: instance.pass.clone_box(),
        rewrites: instance.rewrites,
    })) as *mut c_void
}

unsafe extern "C" fn cb_destroy(state: *mut c_void) {
    drop(unsafe { Box::from_raw(state as *mut Instance) });
}

unsafe extern "C" fn cb_set_options(
    state: *mut c_void,
    options: MlirStringRef,
    error: MlirStringCallback,
    error_user_data: *mut c_void,
) -> bool {
    let instance = unsafe { &mut *(state as *mut Instance) };
    let text = String::from_utf8_lossy(&unsafe { ffi::string_ref_bytes(options) }).into_owned();
    match configure(
        instance.info,
        instance.pass.as_mut(),
        &mut instance.rewrites,
        &text,
    ) {
        Ok(()) => true,
        Err(message) => {
            if let Some(error) = error {
                unsafe { error(ffi::string_ref(&message), error_user_data) };
            }
            false
        }
    }
}

thread_local! {
    /// Set while a pass runs on this thread: the panic hook then records
    /// where a panic happened instead of printing it (the pass reports it
    /// as one error diagnostic).
    static IN_PASS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The source line of the last panic inside a pass.
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    /// The location of the op the rewrite driver is rewriting, if any: a
    /// panic's error is reported there rather than at the pass's root.
    static REWRITING: std::cell::Cell<Option<mlir_sys::MlirLocation>> =
        const { std::cell::Cell::new(None) };
}

/// Records (or, with `None`, forgets) the location of the op being
/// rewritten, for the error of a panic inside its pattern.
pub(crate) fn set_rewriting(location: Option<mlir_sys::MlirLocation>) {
    REWRITING.with(|r| r.set(location));
}

/// Chains a panic hook, once per process, that stays silent for panics
/// inside a pass (cb_run reports them) and defers to the previous hook for
/// every other panic.
fn quiet_panics_in_passes() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_PASS.with(|p| p.get()) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                PANIC_AT.with(|p| *p.borrow_mut() = at);
            } else {
                previous(info)
            }
        }));
    });
}

unsafe extern "C" fn cb_run(state: *mut c_void, op: MlirOperation) -> bool {
    let instance = unsafe { &mut *(state as *mut Instance) };
    let op = unsafe { OperationRef::from_raw(op) };
    let _span = tracing::debug_span!("pass", name = instance.info.name).entered();
    quiet_panics_in_passes();
    let was_in_pass = IN_PASS.with(|p| p.replace(true));
    let result = catch_unwind(AssertUnwindSafe(|| {
        instance.pass.run(op, &instance.rewrites)
    }));
    IN_PASS.with(|p| p.set(was_in_pass));
    match result {
        Ok(result) => result.is_ok(),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let at = PANIC_AT
                .with(|p| p.borrow_mut().take())
                .map_or(String::new(), |at| format!(" at {at}"));
            let message = format!(
                "internal error in pass '{}'{at}: {what} (please report)",
                instance.info.name
            );
            match REWRITING.with(|r| r.take()) {
                Some(location) => {
                    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
                    unsafe { mlir_sys::mlirEmitError(location, message.as_ptr()) };
                }
                None => emit_error(op, &message),
            }
            false
        }
    }
}

const CALLBACKS: ffi::CoreaiForeignPassCallbacks = ffi::CoreaiForeignPassCallbacks {
    create: cb_create,
    clone: cb_clone,
    destroy: cb_destroy,
    set_options: cb_set_options,
    run: cb_run,
};

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

    #[test]
    fn pass_names_are_unique_across_passes_and_pipelines() {
        let mut names: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
        names.extend(PIPELINES.iter().map(|p| p.name));
        let before = names.len();
        names.sort();
        names.dedup();
        assert_eq!(before, names.len());
    }
}
