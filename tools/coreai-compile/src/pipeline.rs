//! The compilation pipeline, stage by stage, from registered pass names.
//!
//! Each stage lists the passes that end it, by the names they are
//! registered under (`coreai-opt --list-passes`); a new pass joins the
//! pipeline as one line in its stage. `--compile-to STAGE` runs the stages
//! up to and including STAGE.

use clap::ValueEnum;

/// A point in the pipeline where `--compile-to` can stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Stage {
    /// aten → aten: the decomposition table applied (`decompose`).
    Aten,
    /// aten → coreai (`legalize-aten-to-coreai`), hand-written composites
    /// outlined (`externalize-composites`).
    Coreai,
    /// coreai stabilized for fp16, cleaned up and optimized (`fp16-stabilize`,
    /// `canonicalize`, `cse`, `core-optimize`), then with `--precision f16`
    /// cast to f16 compute (`cast-to-f16`).
    Optimized,
    /// After the target's passes (none yet for `cpu`).
    Target,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    Cpu,
    Gpu,
    Ane,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Precision {
    F32,
    F16,
}

/// The target-independent stages and their passes, in order.
const STAGES: &[(Stage, &[&str])] = &[
    (Stage::Aten, &["decompose"]),
    (
        Stage::Coreai,
        &["legalize-aten-to-coreai", "externalize-composites"],
    ),
    (
        Stage::Optimized,
        &["fp16-stabilize", "canonicalize", "cse", "core-optimize"],
    ),
];

/// The passes `--precision f16` adds at the end of the optimized stage.
const F16_PASSES: &[&str] = &["cast-to-f16"];

/// A request the compiler cannot honour yet.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PipelineError {
    #[error("--target {0}: not implemented yet (no {0} target passes exist); only --target cpu compiles")]
    Target(&'static str),
}

/// The passes of `target` (its stage `Target`).
fn target_passes(target: Target) -> Result<&'static [&'static str], PipelineError> {
    match target {
        Target::Cpu => Ok(&[]),
        Target::Gpu => Err(PipelineError::Target("gpu")),
        Target::Ane => Err(PipelineError::Target("ane")),
    }
}

/// The textual pipeline that runs every stage up to `stop`.
pub fn pipeline(
    stop: Stage,
    target: Target,
    precision: Precision,
) -> Result<String, PipelineError> {
    let target_stage = target_passes(target)?;
    let f16: &[&str] = match precision {
        Precision::F16 if stop >= Stage::Optimized => F16_PASSES,
        _ => &[],
    };
    let passes: Vec<&str> = STAGES
        .iter()
        .filter(|(stage, _)| *stage <= stop)
        .flat_map(|(_, passes)| passes.iter().copied())
        .chain(f16.iter().copied())
        .chain(
            target_stage
                .iter()
                .copied()
                .filter(|_| stop == Stage::Target),
        )
        .collect();
    Ok(format!("builtin.module({})", passes.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_accumulate_in_order() {
        let p = |s| pipeline(s, Target::Cpu, Precision::F32).unwrap();
        assert_eq!(p(Stage::Aten), "builtin.module(decompose)");
        assert_eq!(
            p(Stage::Coreai),
            "builtin.module(decompose,legalize-aten-to-coreai,externalize-composites)"
        );
        assert_eq!(
            p(Stage::Target),
            "builtin.module(decompose,legalize-aten-to-coreai,externalize-composites,\
             fp16-stabilize,canonicalize,cse,core-optimize)"
        );
        assert_eq!(
            pipeline(Stage::Target, Target::Cpu, Precision::F16).unwrap(),
            "builtin.module(decompose,legalize-aten-to-coreai,externalize-composites,\
             fp16-stabilize,canonicalize,cse,core-optimize,cast-to-f16)"
        );
        assert_eq!(
            pipeline(Stage::Coreai, Target::Cpu, Precision::F16).unwrap(),
            p(Stage::Coreai)
        );
    }

    #[test]
    fn every_pass_named_is_registered() {
        coreai::registry::register_all();
        let known = coreai::registry::all_pass_names();
        for passes in STAGES.iter().map(|(_, p)| *p).chain([F16_PASSES]) {
            for pass in passes {
                assert!(known.iter().any(|k| k == pass), "{pass} is not registered");
            }
        }
    }

    #[test]
    fn unimplemented_requests_are_refused() {
        assert_eq!(
            pipeline(Stage::Target, Target::Gpu, Precision::F32),
            Err(PipelineError::Target("gpu"))
        );
    }
}
