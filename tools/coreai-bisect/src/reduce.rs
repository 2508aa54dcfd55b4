//! Step 3: reduce the failing pass's input module while the pass still
//! miscompiles it, and write the reproducer.
//!
//! The test of a candidate: it parses, the pass runs on it, and `main`
//! before and after the pass give different outputs (beyond the tolerance)
//! on the values its arguments take in the model on the model's inputs
//! (each argument stands for a value of the pass input; those are computed
//! once), else on seeded random inputs. Real values keep what the model
//! guarantees (nonzero integer divisors, indices in range) where random
//! ones break it. First the op the rewrite search named is tried alone, in
//! the innermost region holding it (a branch body) and then in its graph;
//! then delta debugging (ddmin) over the ops of that graph, with removed
//! ops' values turned into arguments (see `slice`).
//!
//! A plant keyed by number (`test-plant-miscompile{op=OP nth=K}`) counts
//! the matches before the bad one, so no reduction could remove them; it is
//! re-keyed first (`rekey_plant`): the same op, planted by a location of its
//! own, which the reproducer's pipeline names.

use crate::exec::{compare, Executor};
use crate::inputs::random_inputs;
use crate::slice::Sliceable;
use coreai_interp::{npz::write_npz, Program, Tensor};
use melior::ir::operation::OperationLike;
use std::collections::BTreeMap;
use std::path::Path;

/// What the reduction and the reproducer need.
pub struct Oracle<'e> {
    pub compiler: &'e coreai::Compiler,
    pub exec: &'e mut Executor,
    /// The pass, as in `builtin.module(PASS)`.
    pub pass: String,
    pub seed: u64,
    pub atol: f64,
    pub rtol: f64,
    /// Predicate evaluations so far, and the cap.
    pub tests: usize,
    pub max_tests: usize,
}

/// A reduced failing module and its inputs.
pub struct Repro {
    pub text: String,
    pub inputs: BTreeMap<String, Tensor>,
}

impl Oracle<'_> {
    /// Runs the pass on `text`; None if it does not parse or the pass fails.
    pub fn apply(&self, text: &str) -> Option<String> {
        let mut m = self.compiler.parse(text, "candidate.mlir").ok()?;
        self.compiler
            .run_pipeline(&mut m, &format!("builtin.module({})", self.pass))
            .ok()?;
        Some(crate::exec::module_text(&m))
    }

    /// The candidate's inputs, drawn from its signature.
    fn inputs_for(&self, text: &str) -> Option<BTreeMap<String, Tensor>> {
        let ctx = coreai_interp::project_context();
        let program = Program::parse(&ctx, text).ok()?;
        let (ports, _) = program.signature("main").ok()?;
        random_inputs(&ports, self.seed).ok()
    }

    /// Whether the pass miscompiles `text` on `inputs` (or drawn ones).
    pub fn fails(
        &mut self,
        text: &str,
        inputs: Option<&BTreeMap<String, Tensor>>,
    ) -> Option<BTreeMap<String, Tensor>> {
        if inputs.is_some_and(|i| !fits(text, i)) {
            return None;
        }
        self.tests += 1;
        let after = self.apply(text)?;
        let drawn;
        let inputs = match inputs {
            Some(i) => i,
            None => {
                drawn = self.inputs_for(text)?;
                &drawn
            }
        };
        let want = self.exec.run(text, inputs).ok()?;
        // A module that no longer runs after the pass (an index out of
        // range) diverges too, as in step 1.
        let diverges = match self.exec.run(&after, inputs) {
            Ok(got) => compare(&got, &want, self.atol, self.rtol)
                .iter()
                .any(|r| !r.ok()),
            Err(_) => true,
        };
        diverges.then(|| inputs.clone())
    }
}

/// Whether `inputs` give every argument of `main` in `text` a tensor of
/// its element type and static shape.
fn fits(text: &str, inputs: &BTreeMap<String, Tensor>) -> bool {
    let ctx = coreai_interp::project_context();
    let Ok(program) = Program::parse(&ctx, text) else {
        return false;
    };
    let Ok((ports, _)) = program.signature("main") else {
        return false;
    };
    ports.iter().all(|p| {
        inputs.get(&p.name).is_some_and(|t| {
            p.dtype == Some(t.dtype())
                && p.shape.as_ref().is_some_and(|s| {
                    s.len() == t.shape().len()
                        && s.iter()
                            .zip(t.shape())
                            .all(|(d, n)| d.is_none_or(|d| d == n))
                })
        })
    })
}

/// The value of every result of `main`'s ops on the model's inputs
/// (by value name), when `slices` slices `main`.
fn real_values(
    oracle: &mut Oracle,
    slices: &Sliceable,
    before: &str,
    inputs: &BTreeMap<String, Tensor>,
) -> Option<BTreeMap<String, Tensor>> {
    let (text, names) = slices.values_module()?;
    let ctx = coreai_interp::project_context();
    let program = Program::parse(&ctx, before).ok()?;
    let (ports, _) = program.signature("main").ok()?;
    let feed: BTreeMap<String, Tensor> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| Some((format!("in{i}"), inputs.get(&p.name)?.clone())))
        .collect::<Option<_>>()?;
    let out = oracle.exec.run(&text, &feed).ok()?;
    let mut values = BTreeMap::new();
    for ((name, _), port) in slices.main_args.as_ref()?.iter().zip(&ports) {
        values.insert(name.clone(), inputs.get(&port.name)?.clone());
    }
    for (name, t) in out {
        let j: usize = name.strip_prefix("out")?.parse().ok()?;
        values.insert(names.get(j)?.clone(), t);
    }
    Some(values)
}

/// A sliceable graph and the real values of its values, when known.
struct Space {
    slices: Sliceable,
    values: Option<BTreeMap<String, Tensor>>,
}

impl Space {
    /// The reproducer of the ops `keep` when the pass miscompiles it: on
    /// the values its arguments take in the model, else on drawn inputs.
    fn test(&self, oracle: &mut Oracle, keep: &[usize]) -> Option<Repro> {
        if oracle.tests >= oracle.max_tests {
            return None;
        }
        let (text, args) = self.slices.build_args(keep)?;
        let real: Option<BTreeMap<String, Tensor>> = self.values.as_ref().and_then(|v| {
            args.iter()
                .enumerate()
                .map(|(i, a)| Some((format!("in{i}"), v.get(a)?.clone())))
                .collect()
        });
        if let Some(inputs) = real.and_then(|r| oracle.fails(&text, Some(&r))) {
            return Some(Repro { text, inputs });
        }
        let inputs = oracle.fails(&text, None)?;
        Some(Repro { text, inputs })
    }
}

/// Reduces `before` (the pass's input); `hint` is the location of the bad
/// rewrite, when known.
pub fn reduce(
    oracle: &mut Oracle,
    before: &str,
    inputs: &BTreeMap<String, Tensor>,
    hint: Option<&str>,
) -> Result<Repro, String> {
    let compiler = oracle.compiler;
    let module = compiler
        .parse(before, "input.mlir")
        .map_err(|e| e.to_string())?;
    // Where to cut, innermost first: the region block holding the bad op,
    // the graph holding it, `main` (where the model's values are known).
    let top = Sliceable::new(&module, hint, false)?;
    let mut spaces = Vec::new();
    if let Some(inner) = hint
        .and_then(|_| Sliceable::new(&module, hint, true).ok())
        .filter(|s| s.nested)
    {
        spaces.push(Space {
            slices: inner,
            values: None,
        });
    }
    let in_main = top.main_args.is_some();
    let values = real_values(oracle, &top, before, inputs);
    spaces.push(Space {
        slices: top,
        values,
    });
    if !in_main {
        let main = Sliceable::new(&module, None, false)?;
        let values = real_values(oracle, &main, before, inputs);
        spaces.push(Space {
            slices: main,
            values,
        });
    }
    let whole = Repro {
        text: before.to_string(),
        inputs: inputs.clone(),
    };
    if let Some(h) = hint {
        for space in &spaces {
            let at: Vec<usize> = space
                .slices
                .candidates()
                .into_iter()
                .filter(|&i| space.slices.ops[i].location == h)
                .collect();
            for i in at {
                if let Some(r) = space.test(oracle, &[i]) {
                    return Ok(r);
                }
            }
        }
    }
    for space in &spaces {
        let all = space.slices.candidates();
        if space.test(oracle, &all).is_none() {
            continue;
        }
        let keep = ddmin(all, |subset| space.test(oracle, subset).is_some());
        oracle.max_tests = oracle.max_tests.max(oracle.tests + 2);
        return space
            .test(oracle, &keep)
            .ok_or_else(|| "the reduced module no longer fails".to_string());
    }
    Ok(whole)
}

/// A plant keyed by number, `test-plant-miscompile{op=OP nth=K}` (or
/// without `nth`, K = 1), re-keyed by location: `before` with match K at
/// `loc("bisect.matchK"(<its location>))`, the pass
/// `test-plant-miscompile{op=OP loc=bisect.matchK}` and that location.
/// None for any other pass, or when the re-keyed pass does not compute
/// exactly what the original does on `inputs`.
pub fn rekey_plant(
    oracle: &mut Oracle,
    before: &str,
    inputs: &BTreeMap<String, Tensor>,
) -> Option<(String, String, String)> {
    let pass = oracle.pass.clone();
    if crate::pipeline::pass_name(&pass) != "test-plant-miscompile" {
        return None;
    }
    let options = pass.split_once('{')?.1.strip_suffix('}')?;
    let mut op = None;
    let mut nth = 1usize;
    for item in options.split_whitespace() {
        match item.split_once('=')? {
            ("op", v) => op = Some(v.to_string()),
            ("nth", v) => nth = v.parse().ok()?,
            ("loc", _) => return None,
            _ => {}
        }
    }
    let op = op?;
    let name = format!("bisect.match{nth}");
    let module = oracle.compiler.parse(before, "input.mlir").ok()?;
    let location =
        coreai::passes::test_plant_miscompile::rekey(module.as_operation(), &op, nth, &name)?;
    let rekeyed = crate::exec::module_text(&module);
    let new_pass = format!("test-plant-miscompile{{op={op} loc={name}}}");
    let original = oracle.apply(before)?;
    oracle.pass = new_pass.clone();
    // The same outputs, or both fail to run.
    let same = oracle.apply(&rekeyed).map(|after| {
        match (
            oracle.exec.run(&original, inputs),
            oracle.exec.run(&after, inputs),
        ) {
            (Ok(want), Ok(got)) => compare(&got, &want, 0.0, 0.0).iter().all(|r| r.ok()),
            (Err(_), Err(_)) => true,
            _ => false,
        }
    });
    if same != Some(true) {
        oracle.pass = pass;
        return None;
    }
    Some((rekeyed, new_pass, location))
}

/// Delta debugging (Zeller's ddmin): a 1-minimal subset of `items` for which
/// `test` holds, given that it holds for `items`.
fn ddmin(mut items: Vec<usize>, mut test: impl FnMut(&[usize]) -> bool) -> Vec<usize> {
    let mut n = 2usize;
    while items.len() >= 2 {
        let chunk = items.len().div_ceil(n);
        let parts: Vec<Vec<usize>> = items.chunks(chunk).map(<[usize]>::to_vec).collect();
        let mut reduced = false;
        for p in &parts {
            if test(p) {
                items = p.clone();
                n = 2;
                reduced = true;
                break;
            }
        }
        if !reduced {
            for i in 0..parts.len() {
                let complement: Vec<usize> = parts
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .flat_map(|(_, p)| p.iter().copied())
                    .collect();
                if test(&complement) {
                    items = complement;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= items.len() {
                break;
            }
            n = (2 * n).min(items.len());
        }
    }
    items
}

/// Ops not counted, as in the project's op counts (bench/optimize.py,
/// core-optimize's figures): constants, graph outputs and the structural
/// ops (the module, graphs, functions, region terminators).
const NOT_COUNTED: &[&str] = &[
    "builtin.module",
    "coreai.constant",
    "arith.constant",
    "coreai.output",
    "func.return",
    "coreai.graph",
    "func.func",
    "coreai.yield",
    "coreai.condition",
];

/// The number of ops in the module of `text`, but constants, outputs and
/// structural ops: a reproducer of one op counts 1.
pub fn op_count(compiler: &coreai::Compiler, text: &str) -> usize {
    let Ok(m) = compiler.parse(text, "count.mlir") else {
        return 0;
    };
    let mut n = 0usize;
    m.as_operation()
        .walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            let name = op.name();
            let name = name.as_string_ref().as_str().unwrap_or("");
            n += usize::from(!NOT_COUNTED.contains(&name));
            melior::ir::operation::WalkResult::Advance
        });
    n
}

/// Writes REPRO_DIR: `repro.mlir` (a lit test: the pass must not change
/// what `main` computes), `inputs.npz`, `pipeline.txt`, `lit.cfg.py`.
/// Written to a temporary directory first, then renamed into place.
pub fn write_repro(
    dir: &Path,
    repro: &Repro,
    pass: &str,
    atol: f64,
    rtol: f64,
) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", dir.display());
    let tmp = dir.with_extension("partial~");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(err)?;
    let pipeline = format!("builtin.module({pass})");
    let header = format!(
        "// A pass miscompiles this module: {pipeline} changes what @main computes.\n\
// The test fails while the bug exists and passes once it is fixed.\n\
// RUN: coreai-run %s --inputs %S/inputs.npz --outputs %t.expected.npz\n\
// RUN: coreai-opt %s --pass-pipeline='{pipeline}' -o %t.after.mlir\n\
// RUN: coreai-run %t.after.mlir --inputs %S/inputs.npz --compare %t.expected.npz --atol {atol:e} --rtol {rtol:e}\n\n"
    );
    std::fs::write(tmp.join("repro.mlir"), header + &repro.text).map_err(err)?;
    std::fs::write(tmp.join("pipeline.txt"), format!("{pipeline}\n")).map_err(err)?;
    let arrays: Vec<(String, Tensor)> = repro
        .inputs
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    write_npz(&tmp.join("inputs.npz"), &arrays).map_err(|e| e.to_string())?;
    let bin = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.display().to_string()))
        .unwrap_or_default();
    let cfg = format!(
        "import os\nimport lit.formats\n\nconfig.name = 'coreai-repro'\nconfig.test_format = lit.formats.ShTest(execute_external=False)\n\
config.suffixes = ['.mlir']\nconfig.test_source_root = os.path.dirname(__file__)\n\
# The directory of coreai-opt and coreai-run: $COREAI_BIN, else where coreai-bisect ran from.\n\
config.environment['PATH'] = os.pathsep.join([os.environ.get('COREAI_BIN', {bin:?}), os.environ.get('PATH', '')])\n"
    );
    std::fs::write(tmp.join("lit.cfg.py"), cfg).map_err(err)?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&tmp, dir).map_err(err)
}
