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
    /// After the target's passes: `target-cpu` (then `canonicalize`, `cse`)
    /// for `cpu`; `target-gpu` (then
    /// `canonicalize`, `cse`) for `gpu`; `target-ane` (then `canonicalize`,
    /// `cse`, `core-optimize`) for `ane`.
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

/// The passes of `target` (its stage `Target`); the first is the target's
/// own pass (it takes `remarks=true` under `--explain`), the others clean
/// up after it.
fn target_passes(target: Target) -> &'static [&'static str] {
    match target {
        Target::Cpu => &["target-cpu", "canonicalize", "cse"],
        Target::Gpu => &["target-gpu", "canonicalize", "cse"],
        Target::Ane => &["target-ane", "canonicalize", "cse", "core-optimize"],
    }
}

/// The compute precision when `--precision` is not given: f16 on the
/// Neural Engine (it computes in f16), f32 elsewhere.
pub fn default_precision(target: Target) -> Precision {
    match target {
        Target::Ane => Precision::F16,
        Target::Cpu | Target::Gpu => Precision::F32,
    }
}

/// The textual pipeline that runs every stage up to `stop`; with `explain`,
/// the passes that can say why they rewrote an op (`cast-to-f16`, the
/// target's pass) print one remark per op (`remarks=true`). A full
/// pipeline ends with `set-hw-constraints` when `hw_constraints` (its
/// `NAME=BACKING:ALIGNMENTS:INTERLEAVE` items) is not empty: no pass
/// after it has to look through the copies it inserts.
pub fn pipeline(
    stop: Stage,
    target: Target,
    precision: Precision,
    explain: bool,
    hw_constraints: &[String],
) -> String {
    let f16: &[&str] = match precision {
        Precision::F16 if stop >= Stage::Optimized => F16_PASSES,
        _ => &[],
    };
    let target_stage: &[&str] = if stop == Stage::Target {
        target_passes(target)
    } else {
        &[]
    };
    let explained = |pass: &&str| -> String {
        let remarks = explain && (F16_PASSES.contains(pass) || pass.starts_with("target-"));
        if remarks {
            format!("{pass}{{remarks=true}}")
        } else {
            pass.to_string()
        }
    };
    let passes: Vec<String> = STAGES
        .iter()
        .filter(|(stage, _)| *stage <= stop)
        .flat_map(|(_, passes)| passes.iter())
        .chain(f16.iter())
        .chain(target_stage.iter())
        .map(explained)
        .chain(
            (stop == Stage::Target && !hw_constraints.is_empty()).then(|| {
                format!(
                    "set-hw-constraints{{constraints={}}}",
                    hw_constraints.join(",")
                )
            }),
        )
        .collect();
    format!("builtin.module({})", passes.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_accumulate_in_order() {
        let p = |s| pipeline(s, Target::Cpu, Precision::F32, false, &[]);
        assert_eq!(p(Stage::Aten), "builtin.module(decompose)");
        assert_eq!(
            p(Stage::Coreai),
            "builtin.module(decompose,legalize-aten-to-coreai,externalize-composites)"
        );
        assert_eq!(
            p(Stage::Target),
            "builtin.module(decompose,legalize-aten-to-coreai,externalize-composites,\
             fp16-stabilize,canonicalize,cse,core-optimize,target-cpu,canonicalize,cse)"
        );
        assert_eq!(
            pipeline(Stage::Target, Target::Cpu, Precision::F16, false, &[]),
            "builtin.module(decompose,legalize-aten-to-coreai,externalize-composites,\
             fp16-stabilize,canonicalize,cse,core-optimize,cast-to-f16,target-cpu,canonicalize,cse)"
        );
        assert_eq!(
            pipeline(Stage::Coreai, Target::Cpu, Precision::F16, false, &[]),
            p(Stage::Coreai)
        );
    }

    #[test]
    fn targets_end_with_their_passes() {
        let optimized = "decompose,legalize-aten-to-coreai,externalize-composites,\
                         fp16-stabilize,canonicalize,cse,core-optimize";
        assert_eq!(
            pipeline(Stage::Target, Target::Gpu, Precision::F32, false, &[]),
            format!("builtin.module({optimized},target-gpu,canonicalize,cse)")
        );
        assert_eq!(
            pipeline(Stage::Target, Target::Ane, Precision::F16, true, &[]),
            format!(
                "builtin.module({optimized},cast-to-f16{{remarks=true}},\
                 target-ane{{remarks=true}},canonicalize,cse,core-optimize)"
            )
        );
        assert_eq!(
            pipeline(Stage::Optimized, Target::Gpu, Precision::F32, false, &[]),
            format!("builtin.module({optimized})")
        );
        let hw = [
            "x=IOSurface:1x1x32x1:1x1x1".to_string(),
            "y=Heap:1x1:1".to_string(),
        ];
        assert_eq!(
            pipeline(Stage::Target, Target::Cpu, Precision::F32, false, &hw),
            format!(
                "builtin.module({optimized},target-cpu,canonicalize,cse,\
                 set-hw-constraints{{constraints=x=IOSurface:1x1x32x1:1x1x1,y=Heap:1x1:1}})"
            )
        );
        assert_eq!(
            pipeline(Stage::Optimized, Target::Cpu, Precision::F32, false, &hw),
            format!("builtin.module({optimized})")
        );
        assert_eq!(default_precision(Target::Ane), Precision::F16);
        assert_eq!(default_precision(Target::Gpu), Precision::F32);
    }

    #[test]
    fn every_pass_named_is_registered() {
        coreai::registry::register_all();
        let known = coreai::registry::all_pass_names();
        let targets = [Target::Cpu, Target::Gpu, Target::Ane].map(target_passes);
        for passes in STAGES
            .iter()
            .map(|(_, p)| *p)
            .chain([F16_PASSES])
            .chain(targets)
        {
            for pass in passes {
                assert!(known.iter().any(|k| k == pass), "{pass} is not registered");
            }
        }
    }
}
