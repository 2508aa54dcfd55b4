//! Step 2: inside the failing pass, the first bad rewrite application.
//!
//! A project pass that numbers its rewrites takes `max-rewrites=N` (apply
//! only applications 1..N) and `trace-rewrites=true` (one stderr line per
//! application: `rewrite <pass> #<k> <pattern> at <loc>`). The trace is read
//! once from `coreai-opt` (next to this binary) for the count, the pattern
//! names and the locations; then a binary search over N, executing the
//! stage in process, finds the smallest N whose output diverges: ceil(log2 n)
//! executor runs.

use crate::exec::{compare, Executor, Outputs};
use crate::pipeline::{numbers_rewrites, with_options};
use coreai_interp::Tensor;
use std::collections::BTreeMap;

pub struct Rewrite {
    pub index: usize,
    pub total: usize,
    pub pattern: String,
    pub location: String,
}

pub fn ceil_log2(n: usize) -> u32 {
    usize::BITS - n.saturating_sub(1).leading_zeros()
}

/// The trace of `pass` on `before`: (pattern, location) per application.
fn trace(before: &str, pass: &str) -> Result<Vec<(String, String)>, String> {
    let opt = std::env::current_exe()
        .map_err(|e| e.to_string())?
        .with_file_name("coreai-opt");
    let dir = std::env::temp_dir().join(format!("coreai-bisect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join("stage.mlir");
    std::fs::write(&file, before).map_err(|e| e.to_string())?;
    let out = std::process::Command::new(&opt)
        .arg(&file)
        .arg(format!(
            "--pass-pipeline=builtin.module({})",
            with_options(pass, "trace-rewrites=true")
        ))
        .arg("-o")
        .arg(dir.join("after.mlir"))
        .output()
        .map_err(|e| format!("{}: {e}", opt.display()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    Ok(stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("rewrite ")?;
            let (_, rest) = rest.split_once(" #")?;
            let (_, rest) = rest.split_once(' ')?;
            let (pattern, loc) = rest.split_once(" at ")?;
            Some((pattern.to_string(), loc.to_string()))
        })
        .collect())
}

/// Finds the first bad application, or None for a pass that does not
/// number its rewrites.
#[allow(clippy::too_many_arguments)]
pub fn bisect(
    compiler: &coreai::Compiler,
    exec: &mut Executor,
    before: &str,
    pass: &str,
    inputs: &BTreeMap<String, Tensor>,
    reference: &Outputs,
    atol: f64,
    rtol: f64,
) -> Result<Option<Rewrite>, String> {
    if !numbers_rewrites(pass) {
        return Ok(None);
    }
    let applications = trace(before, pass)?;
    let total = applications.len();
    let mut diverges = |n: usize| -> bool {
        let Ok(mut m) = compiler.parse(before, "stage.mlir") else {
            return true;
        };
        let limited = with_options(pass, &format!("max-rewrites={n}"));
        if compiler
            .run_pipeline(&mut m, &format!("builtin.module({limited})"))
            .is_err()
        {
            return true;
        }
        match exec.run(&crate::exec::module_text(&m), inputs) {
            Ok(out) => compare(&out, reference, atol, rtol).iter().any(|r| !r.ok()),
            Err(_) => true,
        }
    };
    // Invariant: n = hi diverges (all applications do), n = lo - 1 does not
    // (the stage before the pass matched).
    let (mut lo, mut hi) = (1usize, total);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if diverges(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if total == 0 {
        return Ok(None);
    }
    let (pattern, location) = applications[hi - 1].clone();
    Ok(Some(Rewrite {
        index: hi,
        total,
        pattern,
        location,
    }))
}
