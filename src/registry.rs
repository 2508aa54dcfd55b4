//! The project's passes and pipelines, by name.
//!
//! Every pass is declared once, as a [`PassInfo`] in its own file, and listed
//! in [`coreai_passes::PASSES`] (the `coreai-passes` crate) or, for the
//! backend's, [`BACKEND_PASSES`]; [`passes`] lists both. `coreai-opt --list-passes`, the
//! docs, option errors and "unknown pass" suggestions all come from here, and
//! [`register_all`] makes every entry nameable in textual pipelines (next to
//! upstream MLIR passes) through the C++ foreign-pass shim
//! ([`coreai_ir::foreign_pass`]).

pub use coreai_ir::pass::{
    configure, parse_bool, parse_choices, parse_options, Pass, PassClone, PassFailed, PassInfo,
    PassOption, PassResult, PipelineInfo, REWRITE_OPTIONS,
};

/// The library's own passes: the backend as a pass.
pub static BACKEND_PASSES: &[PassInfo] = &[crate::backend::roundtrip::INFO];

/// Every project pass: the `coreai-passes` crate's, then the backend's.
pub fn passes() -> impl Iterator<Item = &'static PassInfo> {
    coreai_passes::PASSES.iter().chain(BACKEND_PASSES)
}

use coreai_ir::{ffi, foreign_pass};
use mlir_sys::MlirStringRef;
use std::{ffi::c_void, sync::OnceLock};

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
    passes().find(|p| p.name == name)
}

/// Registers every project pass and pipeline, and the upstream passes
/// pipelines may mix with them, in MLIR's global pass registry. Idempotent.
pub fn register_all() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| unsafe {
        ffi::coreaiRegisterUpstreamPasses();
        for info in passes() {
            foreign_pass::register(info);
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
    let mut names: Vec<String> = passes().map(|p| p.name.to_string()).collect();
    names.extend(PIPELINES.iter().map(|p| p.name.to_string()));
    names.extend(upstream_passes().into_iter().map(|(name, _)| name));
    names.sort();
    names
}

/// The pass reference (`docs/passes.md`), generated from this registry.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Passes and pipelines\n\n\
         Generated from the pass registry (`passes/lib.rs`, `src/registry.rs`); `coreai-opt --list-passes`\n\
         prints the same list with the upstream passes. Regenerate with\n\
         `COREAI_BLESS=1 cargo test --test docs`.\n",
    );
    for pass in passes() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_names_are_unique_across_passes_and_pipelines() {
        let mut names: Vec<&str> = passes().map(|p| p.name).collect();
        names.extend(PIPELINES.iter().map(|p| p.name));
        let before = names.len();
        names.sort();
        names.dedup();
        assert_eq!(before, names.len());
    }
}
