//! The compilation pipeline, stage by stage, from registered pass names,
//! and [`Compiler::compile`], which runs it and the backend in memory.
//!
//! Each stage lists the passes that end it, by the names they are
//! registered under (`coreai-opt --list-passes`); a new pass joins the
//! pipeline as one line in its stage. `coreai-compile --compile-to STAGE`
//! runs the stages up to and including STAGE.

use crate::{
    backend::{self, Format},
    Compiler, Error,
};
use melior::ir::{operation::OperationRef, Module};

/// A point in the pipeline where compilation can stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
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
    /// The compiled program as the asset holds it: written as the aicode
    /// serialization and read back (`aicode-roundtrip`), what coreai-core's
    /// runtime receives.
    Aicode,
}

impl Stage {
    pub const ALL: [Stage; 5] = [
        Stage::Aten,
        Stage::Coreai,
        Stage::Optimized,
        Stage::Target,
        Stage::Aicode,
    ];

    /// The stage's name on command lines (`--compile-to NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Aten => "aten",
            Stage::Coreai => "coreai",
            Stage::Optimized => "optimized",
            Stage::Target => "target",
            Stage::Aicode => "aicode",
        }
    }

    /// What the stage has done, for `--help`.
    pub fn help(self) -> &'static str {
        match self {
            Stage::Aten => "aten → aten: the decomposition table applied (`decompose`)",
            Stage::Coreai => {
                "aten → coreai (`legalize-aten-to-coreai`), hand-written composites outlined \
                 (`externalize-composites`)"
            }
            Stage::Optimized => {
                "coreai stabilized for fp16, cleaned up and optimized (`fp16-stabilize`, \
                 `canonicalize`, `cse`, `core-optimize`), then with `--precision f16` cast to \
                 f16 compute (`cast-to-f16`)"
            }
            Stage::Target => {
                "After the target's passes: `target-cpu` (then `canonicalize`, `cse`) for `cpu`; \
                 `target-gpu` (then `canonicalize`, `cse`) for `gpu`; `target-ane` (then \
                 `canonicalize`, `cse`, `core-optimize`) for `ane`; then `state-handles` (states \
                 become handles the runtime binds with `state=`)"
            }
            Stage::Aicode => {
                "The compiled program as the asset holds it: written as the aicode serialization \
                 and read back (`aicode-roundtrip`), what coreai-core's runtime receives"
            }
        }
    }
}

/// The device a program is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// No target passes but `target-cpu`'s mask rewrites.
    Cpu,
    /// `target-gpu`: floor/ceil/trunc/round in forms the GPU delegate
    /// computes exactly.
    Gpu,
    /// The Neural Engine: f16 compute, `target-ane` (rank-4 matmuls,
    /// (V, 1, D) embedding tables).
    Ane,
}

impl Target {
    pub const ALL: [Target; 3] = [Target::Cpu, Target::Gpu, Target::Ane];

    pub fn name(self) -> &'static str {
        match self {
            Target::Cpu => "cpu",
            Target::Gpu => "gpu",
            Target::Ane => "ane",
        }
    }
}

/// The compute precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    F32,
    /// f16 compute, f32 signature, f32 islands where values need them
    /// (`cast-to-f16`).
    F16,
}

impl Precision {
    pub const ALL: [Precision; 2] = [Precision::F32, Precision::F16];

    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F16 => "f16",
        }
    }
}

/// The element types of a compiled program's inputs and outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Io {
    /// The model's own: f32 inputs and outputs stay f32, with casts at the
    /// graph's boundary when it computes in f16.
    Model,
    /// The Neural Engine's types (f16, int8, int16): f32 inputs and outputs
    /// become f16 (`cast-to-f16{io=f16}`) and, on the Neural Engine, an
    /// integer input that indexes gathers of at most 32767 rows becomes
    /// si16 (`narrow-integers{inputs=true}`). The caller passes and gets
    /// those types.
    F16,
}

impl Io {
    pub const ALL: [Io; 2] = [Io::Model, Io::F16];

    pub fn name(self) -> &'static str {
        match self {
            Io::Model => "model",
            Io::F16 => "f16",
        }
    }
}

/// How to compile: everything but the input and where the result goes.
#[derive(Debug, Clone)]
pub struct CompileOptions {
    pub target: Target,
    /// `None`: [`default_precision`] of the target.
    pub precision: Option<Precision>,
    /// `None`: [`default_io`] of the target and precision.
    pub io: Option<Io>,
    /// One remark per op the precision and target passes rewrite (or keep
    /// in f32), with the reason, on the diagnostics.
    pub explain: bool,
    /// With [`Target::Ane`]: every op that would leave the Neural Engine is
    /// an error (`ane-residency{require-resident=true}`); `explain` alone
    /// reports them.
    pub require_resident: bool,
    /// `NAME=BACKING:ALIGNMENTS:INTERLEAVE` items for `set-hw-constraints`.
    pub hw_constraints: Vec<String>,
    /// What the program of the asset holds.
    pub format: Format,
    /// Weight compression: a pass of the compression family with its
    /// options (`quantize-weights{dtype=int4 granularity=per-block}`), run
    /// after `core-optimize` and before `cast-to-f16` ([`Compression`]).
    pub compress: Option<Compression>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        Self {
            target: Target::Cpu,
            precision: None,
            io: None,
            explain: false,
            require_resident: false,
            hw_constraints: Vec::new(),
            format: Format::Aicode,
            compress: None,
        }
    }
}

impl CompileOptions {
    /// The precision the options ask for, or the target's default.
    pub fn precision(&self) -> Precision {
        self.precision
            .unwrap_or_else(|| default_precision(self.target))
    }

    /// The input and output types the options ask for, or the default.
    pub fn io(&self) -> Io {
        self.io
            .unwrap_or_else(|| default_io(self.target, self.precision()))
    }

    /// The textual pipeline that runs every stage up to `stop`.
    pub fn pipeline(&self, stop: Stage) -> String {
        pipeline(stop, self)
    }
}

/// Weight compression: one pass of the compression family and its options,
/// as pipeline text (`quantize-weights{dtype=int4 granularity=per-block
/// block-size=32}`). [`Compression::parse`] takes a preset name or that
/// text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compression(String);

/// The compression presets: name, pass text, what it is.
pub const COMPRESSION_PRESETS: &[(&str, &str, &str)] = &[
    (
        "int8",
        "quantize-weights{dtype=int8 granularity=per-channel}",
        "8-bit integers, one scale per output channel",
    ),
    (
        "int4-block32",
        "quantize-weights{dtype=int4 granularity=per-block block-size=32}",
        "4-bit integers, one scale per 32 input channels (Apple's macOS LLM preset)",
    ),
    (
        "int4-block64",
        "quantize-weights{dtype=int4 granularity=per-block block-size=64}",
        "4-bit integers, one scale per 64 input channels",
    ),
    (
        "fp8",
        "quantize-weights{dtype=fp8e4m3fn granularity=per-channel}",
        "8-bit floats (E4M3), one scale per output channel",
    ),
    (
        "mxfp4",
        "quantize-weights{dtype=fp4e2m1fn granularity=per-block block-size=32}",
        "MXFP4: 4-bit floats (E2M1), one power-of-two scale per 32 input channels",
    ),
    (
        "palettize4",
        "palettize-weights{n-bits=4}",
        "4-bit indices into one 16-entry palette per weight",
    ),
    (
        "palettize4-group32",
        "palettize-weights{n-bits=4 granularity=per-grouped-channel group-size=32}",
        "4-bit indices, one palette per 32 output channels (Apple's iOS LLM preset)",
    ),
    (
        "palettize6",
        "palettize-weights{n-bits=6}",
        "6-bit indices into one 64-entry palette per weight",
    ),
    (
        "sparse50",
        "sparsify-weights{target-sparsity=0.5}",
        "the half of each weight of lowest magnitude pruned, the rest kept with a bitmask",
    ),
    (
        "sparse-2:4",
        "sparsify-weights{n-m=2:4}",
        "2 of every 4 consecutive input channels pruned (the lower magnitudes)",
    ),
];

/// The passes `--compress` may name.
const COMPRESSION_PASSES: &[&str] = &["quantize-weights", "palettize-weights", "sparsify-weights"];

impl Compression {
    /// A preset's name, or a compression pass with its options in pipeline
    /// syntax, or several of those joined by `+`, run in order (a weight
    /// the first compresses is no candidate for the next: `quantize-weights{dtype=int8
    /// granularity=per-tensor only=embed_tokens}+palettize4-group32` keeps
    /// the embedding at 8 bits); an error says what is accepted. The
    /// options themselves are checked when the pipeline is built.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut passes = Vec::new();
        let mut depth = 0usize;
        let mut start = 0;
        for (i, c) in spec.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                '+' if depth == 0 => {
                    passes.push(Self::one(&spec[start..i])?);
                    start = i + 1;
                }
                _ => {}
            }
        }
        passes.push(Self::one(&spec[start..])?);
        Ok(Self(passes.join(",")))
    }

    fn one(spec: &str) -> Result<String, String> {
        let spec = spec.trim();
        if let Some((_, pass, _)) = COMPRESSION_PRESETS.iter().find(|(n, ..)| *n == spec) {
            return Ok(pass.to_string());
        }
        let name = spec.split('{').next().unwrap_or_default().trim();
        if COMPRESSION_PASSES.contains(&name) && (spec == name || spec.ends_with('}')) {
            return Ok(spec.to_string());
        }
        let presets: Vec<&str> = COMPRESSION_PRESETS.iter().map(|p| p.0).collect();
        Err(format!(
            "'{spec}' is not a compression preset ({}) or a compression pass ({}) with its options \
             (several joined by '+')",
            presets.join(", "),
            COMPRESSION_PASSES.join(", ")
        ))
    }

    /// The passes with their options, as pipeline text.
    pub fn pass(&self) -> &str {
        &self.0
    }

    /// [`Compression::pass`] with `remarks=true` on each pass that does not
    /// set `remarks` itself: one stderr line per weight (its form and
    /// error).
    pub fn with_remarks(&self) -> String {
        let mut out = String::new();
        let mut depth = 0usize;
        let mut options = String::new();
        let close = |out: &mut String, options: &str| {
            if !options.contains("remarks=") {
                if !options.trim().is_empty() {
                    out.push(' ');
                }
                out.push_str("remarks=true");
            }
        };
        for c in self.0.chars() {
            match c {
                '{' => {
                    depth += 1;
                    options.clear();
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        close(&mut out, &options);
                    }
                }
                ',' if depth == 0 && !out.ends_with('}') => out.push_str("{remarks=true}"),
                _ if depth > 0 => options.push(c),
                _ => {}
            }
            out.push(c);
        }
        if !out.ends_with('}') {
            out.push_str("{remarks=true}");
        }
        out
    }
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

/// The Neural Engine's si16 integers (and, with [`Io::F16`], index
/// inputs).
const NARROW_INTEGERS: &str = "narrow-integers";

/// The stage `Aicode`: the backend as a pass.
const BACKEND_STAGE: &str = "aicode-roundtrip";

/// The passes of `target` (its stage `Target`); the first is the target's
/// own pass (it takes `remarks=true` under `--explain`), the others clean
/// up after it.
fn target_passes(target: Target) -> &'static [&'static str] {
    match target {
        Target::Cpu => &["target-cpu", "canonicalize", "cse", "state-handles"],
        Target::Gpu => &["target-gpu", "canonicalize", "cse", "state-handles"],
        Target::Ane => &[
            "target-ane",
            "canonicalize",
            "cse",
            "core-optimize",
            "state-handles",
        ],
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

/// The input and output types when `--io` is not given: the Neural
/// Engine's (f16, and si16 indices) for an f16 program on the Neural
/// Engine, whose rules hold the inputs and outputs too (an f32 boundary
/// cast runs off the Neural Engine); the model's elsewhere.
pub fn default_io(target: Target, precision: Precision) -> Io {
    match (target, precision) {
        (Target::Ane, Precision::F16) => Io::F16,
        _ => Io::Model,
    }
}

/// The textual pipeline that runs every stage of `options` up to `stop`;
/// with `explain`, the passes that can say why they rewrote an op
/// (`cast-to-f16`, the target's pass) print one remark per op
/// (`remarks=true`). For the Neural Engine, `cast-to-f16` keeps only the
/// f32 islands values need for their range (`islands=neural-engine`): an f32
/// op leaves the Neural Engine, and norms, reductions and softmax are in
/// `fp16-stabilize`'s f16-safe forms by then. Weight compression ends the optimized stage, before
/// `cast-to-f16` (calibration then sees the dequantized weights). A full
/// pipeline ends with `set-hw-constraints` when `hw_constraints` (its
/// `NAME=BACKING:ALIGNMENTS:INTERLEAVE` items) is not empty: no pass
/// after it has to look through the copies it inserts.
pub fn pipeline(stop: Stage, options: &CompileOptions) -> String {
    let f16: &[&str] = match options.precision() {
        Precision::F16 if stop >= Stage::Optimized => F16_PASSES,
        _ => &[],
    };
    let target = stop >= Stage::Target;
    let mut target_stage: Vec<&str> = if target {
        target_passes(options.target).to_vec()
    } else {
        Vec::new()
    };
    if options.target == Target::Ane && !target_stage.is_empty() {
        // After target-ane (whose gathers it reads), before the clean-up.
        target_stage.insert(1, NARROW_INTEGERS);
    }
    let explained = |pass: &&str| -> String {
        let mut pass_options = Vec::new();
        if F16_PASSES.contains(pass) && options.target == Target::Ane {
            pass_options.push("islands=neural-engine");
        }
        if F16_PASSES.contains(pass) && options.io() == Io::F16 {
            pass_options.push("io=f16");
        }
        if *pass == NARROW_INTEGERS && options.io() == Io::F16 {
            pass_options.push("inputs=true");
        }
        if *pass == NARROW_INTEGERS && options.explain {
            pass_options.push("remarks=true");
        }
        if options.explain && (F16_PASSES.contains(pass) || pass.starts_with("target-")) {
            pass_options.push("remarks=true");
        }
        if pass_options.is_empty() {
            pass.to_string()
        } else {
            format!("{pass}{{{}}}", pass_options.join(" "))
        }
    };
    let compress = options
        .compress
        .as_ref()
        .filter(|_| stop >= Stage::Optimized)
        .map(|c| {
            if options.explain {
                c.with_remarks()
            } else {
                c.pass().to_string()
            }
        });
    let residency = (target && options.target == Target::Ane)
        .then_some(if options.require_resident {
            Some("ane-residency{require-resident=true}")
        } else if options.explain {
            Some("ane-residency")
        } else {
            None
        })
        .flatten();
    let hw = &options.hw_constraints;
    let passes: Vec<String> = STAGES
        .iter()
        .filter(|(stage, _)| *stage <= stop)
        .flat_map(|(_, passes)| passes.iter())
        .map(explained)
        .chain(compress)
        .chain(f16.iter().map(explained))
        .chain(target_stage.iter().map(explained))
        .chain(residency.map(str::to_string))
        .chain(
            (target && !hw.is_empty())
                .then(|| format!("set-hw-constraints{{constraints={}}}", hw.join(","))),
        )
        .chain((stop == Stage::Aicode).then(|| BACKEND_STAGE.to_string()))
        .collect();
    format!("builtin.module({})", passes.join(","))
}

impl Compiler {
    /// Runs the pipeline on `module` up to and including `stop`, in memory.
    pub fn compile_to(
        &self,
        module: &mut Module<'_>,
        stop: Stage,
        options: &CompileOptions,
    ) -> Result<(), Error> {
        self.run_pipeline(module, &options.pipeline(stop))
    }

    /// Compiles `module` (an imported aten module, or coreai) through every
    /// stage and returns the program of its asset (`main.mlirb`) in
    /// `options.format`; [`coreai_asset::write`] puts it into an asset.
    /// Nothing is written to disk.
    pub fn compile(
        &self,
        module: &mut Module<'_>,
        options: &CompileOptions,
    ) -> Result<Vec<u8>, Error> {
        self.compile_to(module, Stage::Target, options)?;
        backend::program(module.as_operation(), options.format).map_err(Error::from)
    }
}

/// What [`Compiler::compile`] does, for a module of any context with the
/// project's dialects (the C API's `coreaiCompile`): diagnostics go to that
/// context's handlers, and a failed pass's error carries no text.
pub fn compile_module(
    module: OperationRef<'_, '_>,
    options: &CompileOptions,
) -> Result<Vec<u8>, Error> {
    crate::run_pipeline_on(module, &options.pipeline(Stage::Target))?;
    Ok(backend::program(module, options.format)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_accumulate_in_order() {
        let p = |s| pipeline(s, &CompileOptions::default());
        let f16 = CompileOptions {
            precision: Some(Precision::F16),
            ..CompileOptions::default()
        };
        assert_eq!(p(Stage::Aten), "builtin.module(decompose)");
        assert_eq!(
            p(Stage::Coreai),
            "builtin.module(decompose,legalize-aten-to-coreai,externalize-composites)"
        );
        assert_eq!(
            p(Stage::Target),
            "builtin.module(decompose,legalize-aten-to-coreai,externalize-composites,\
             fp16-stabilize,canonicalize,cse,core-optimize,target-cpu,canonicalize,cse,state-handles)"
        );
        assert_eq!(
            pipeline(Stage::Target, &f16),
            "builtin.module(decompose,legalize-aten-to-coreai,externalize-composites,\
             fp16-stabilize,canonicalize,cse,core-optimize,cast-to-f16,target-cpu,canonicalize,cse,\
             state-handles)"
        );
        assert_eq!(pipeline(Stage::Coreai, &f16), p(Stage::Coreai));
        assert_eq!(
            p(Stage::Aicode),
            p(Stage::Target).replace("state-handles)", "state-handles,aicode-roundtrip)")
        );
    }

    #[test]
    fn targets_end_with_their_passes() {
        let optimized = "decompose,legalize-aten-to-coreai,externalize-composites,\
                         fp16-stabilize,canonicalize,cse,core-optimize";
        let o = |target, precision, explain, hw: &[String]| CompileOptions {
            target,
            precision: Some(precision),
            explain,
            hw_constraints: hw.to_vec(),
            ..CompileOptions::default()
        };
        assert_eq!(
            pipeline(Stage::Target, &o(Target::Gpu, Precision::F32, false, &[])),
            format!("builtin.module({optimized},target-gpu,canonicalize,cse,state-handles)")
        );
        assert_eq!(
            pipeline(Stage::Target, &o(Target::Ane, Precision::F16, true, &[])),
            format!(
                "builtin.module({optimized},cast-to-f16{{islands=neural-engine io=f16 remarks=true}},\
                 target-ane{{remarks=true}},narrow-integers{{inputs=true remarks=true}},canonicalize,cse,\
                 core-optimize,state-handles,ane-residency)"
            )
        );
        // The model's types on request (or in f32): no io=f16, no si16 inputs
        // (integers inside still narrow).
        let model_io = CompileOptions {
            io: Some(Io::Model),
            ..o(Target::Ane, Precision::F16, false, &[])
        };
        assert_eq!(
            pipeline(Stage::Target, &model_io),
            format!(
                "builtin.module({optimized},cast-to-f16{{islands=neural-engine}},\
                 target-ane,narrow-integers,canonicalize,cse,core-optimize,state-handles)"
            )
        );
        assert_eq!(default_io(Target::Ane, Precision::F32), Io::Model);
        assert_eq!(default_io(Target::Gpu, Precision::F16), Io::Model);
        assert_eq!(
            pipeline(
                Stage::Optimized,
                &o(Target::Gpu, Precision::F32, false, &[])
            ),
            format!("builtin.module({optimized})")
        );
        let hw = [
            "x=IOSurface:1x1x32x1:1x1x1".to_string(),
            "y=Heap:1x1:1".to_string(),
        ];
        assert_eq!(
            pipeline(Stage::Target, &o(Target::Cpu, Precision::F32, false, &hw)),
            format!(
                "builtin.module({optimized},target-cpu,canonicalize,cse,state-handles,\
                 set-hw-constraints{{constraints=x=IOSurface:1x1x32x1:1x1x1,y=Heap:1x1:1}})"
            )
        );
        assert_eq!(
            pipeline(
                Stage::Optimized,
                &o(Target::Cpu, Precision::F32, false, &hw)
            ),
            format!("builtin.module({optimized})")
        );
        assert_eq!(default_precision(Target::Ane), Precision::F16);
        assert_eq!(default_precision(Target::Gpu), Precision::F32);
    }

    #[test]
    fn explain_asks_each_compression_pass_for_remarks() {
        let spec = |s: &str| Compression::parse(s).unwrap().with_remarks();
        assert_eq!(
            spec("int8"),
            "quantize-weights{dtype=int8 granularity=per-channel remarks=true}"
        );
        assert_eq!(
            spec("quantize-weights+palettize-weights{remarks=false}+sparse50"),
            "quantize-weights{remarks=true},palettize-weights{remarks=false},\
             sparsify-weights{target-sparsity=0.5 remarks=true}"
        );
        assert_eq!(
            spec("palettize-weights{}"),
            "palettize-weights{remarks=true}"
        );
    }

    #[test]
    fn compression_ends_the_optimized_stage_before_f16() {
        let options = CompileOptions {
            precision: Some(Precision::F16),
            compress: Some(Compression::parse("int4-block32").unwrap()),
            ..CompileOptions::default()
        };
        assert!(pipeline(Stage::Target, &options).contains(
            "core-optimize,quantize-weights{dtype=int4 granularity=per-block block-size=32},\
             cast-to-f16,target-cpu"
        ));
        assert!(!pipeline(Stage::Coreai, &options).contains("quantize"));
        let full = Compression::parse("quantize-weights{dtype=uint8}").unwrap();
        assert_eq!(full.pass(), "quantize-weights{dtype=uint8}");
        let two = Compression::parse("quantize-weights{dtype=int8 only=a+b}+palettize6").unwrap();
        assert_eq!(
            two.pass(),
            "quantize-weights{dtype=int8 only=a+b},palettize-weights{n-bits=6}"
        );
        assert!(Compression::parse("int8+").unwrap_err().contains("''"));
        let err = Compression::parse("int3").unwrap_err();
        assert!(
            err.contains("int4-block32") && err.contains("quantize-weights"),
            "{err}"
        );
    }

    #[test]
    fn every_pass_named_is_registered() {
        crate::registry::register_all();
        let known = crate::registry::all_pass_names();
        let targets = [Target::Cpu, Target::Gpu, Target::Ane].map(target_passes);
        for passes in STAGES
            .iter()
            .map(|(_, p)| *p)
            .chain([F16_PASSES])
            .chain(targets)
            .chain([&[BACKEND_STAGE][..]])
        {
            for pass in passes {
                assert!(known.iter().any(|k| k == pass), "{pass} is not registered");
            }
        }
    }
}
