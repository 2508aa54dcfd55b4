//! Step 3: reduce the failing pass's input module while the pass still
//! miscompiles it, and write the reproducer.
//!
//! The test of a candidate: it parses, the pass runs on it, and `main`
//! before and after the pass give different outputs on seeded random inputs
//! (beyond the tolerance). First the op the rewrite search named is tried
//! alone; then delta debugging (ddmin) over the ops of `main`, with removed
//! ops' values turned into arguments (see `slice`).

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
        let got = self.exec.run(&after, inputs).ok()?;
        let diverges = compare(&got, &want, self.atol, self.rtol)
            .iter()
            .any(|r| !r.ok());
        diverges.then(|| inputs.clone())
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
    let slices = Sliceable::new(&module, hint)?;
    let whole = Repro {
        text: before.to_string(),
        inputs: inputs.clone(),
    };
    if let Some(h) = hint {
        for i in slices
            .candidates()
            .into_iter()
            .filter(|&i| slices.ops[i].location == h)
        {
            if let Some(text) = slices.build(&[i]) {
                if let Some(inputs) = oracle.fails(&text, None) {
                    return Ok(Repro { text, inputs });
                }
            }
        }
    }
    let all = slices.candidates();
    let Some(full) = slices.build(&all) else {
        return Ok(whole);
    };
    if oracle.fails(&full, None).is_none() {
        return Ok(whole);
    }
    let keep = ddmin(all, |subset| {
        oracle.tests < oracle.max_tests
            && slices
                .build(subset)
                .is_some_and(|t| oracle.fails(&t, None).is_some())
    });
    let text = slices
        .build(&keep)
        .ok_or("reduction lost the module's results")?;
    let inputs = oracle
        .fails(&text, None)
        .ok_or("the reduced module no longer fails")?;
    Ok(Repro { text, inputs })
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

/// The number of ops nested in the module of `text` (the module excluded).
pub fn op_count(compiler: &coreai::Compiler, text: &str) -> usize {
    let Ok(m) = compiler.parse(text, "count.mlir") else {
        return 0;
    };
    let mut n = 0usize;
    m.as_operation()
        .walk(melior::ir::operation::WalkOrder::PreOrder, |_| {
            n += 1;
            melior::ir::operation::WalkResult::Advance
        });
    n.saturating_sub(1)
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
