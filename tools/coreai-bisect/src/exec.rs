//! Executing a module (as text) with the reference executor, in process, and
//! comparing outputs with a tolerance (`|got - expected| <= atol +
//! rtol·|expected|`, NaN equal to NaN), as `coreai-run --compare` does.

use coreai_interp::{DType, Options, Program, Tensor, Value};
use melior::Context;
use std::collections::BTreeMap;

pub type Outputs = Vec<(String, Tensor)>;

/// The executor's context, reused for every run.
pub struct Executor {
    context: Context,
    pub runs: usize,
}

impl Executor {
    pub fn new() -> Self {
        Self {
            context: coreai_interp::project_context(),
            runs: 0,
        }
    }

    /// Runs `main` of `text` on `inputs` (keyed by argument name).
    pub fn run(
        &mut self,
        text: &str,
        inputs: &BTreeMap<String, Tensor>,
    ) -> Result<Outputs, String> {
        self.runs += 1;
        let program = Program::parse(&self.context, text).map_err(|e| e.to_string())?;
        let (args, results) = program.signature("main").map_err(|e| e.to_string())?;
        let mut values = Vec::new();
        for port in &args {
            let t = inputs.get(&port.name).ok_or_else(|| {
                format!("input '{}' missing (type {})", port.name, port.type_text)
            })?;
            let t = match (port.dtype, t.dtype()) {
                (Some(DType::BF16), DType::F32) => t.cast(DType::BF16),
                _ => t.clone(),
            };
            values.push(Value::tensor(t));
        }
        let out = program
            .run("main", values, Options::default())
            .map_err(|e| e.to_string())?;
        Ok(out
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let name = results
                    .get(i)
                    .map_or(format!("result{i}"), |p| p.name.clone());
                v.as_tensor().map(|t| (name, t.clone()))
            })
            .collect())
    }
}

/// One row of the error table.
pub struct Row {
    pub name: String,
    pub max_abs: f64,
    pub max_rel: f64,
    pub mismatches: usize,
    pub note: String,
}

impl Row {
    pub fn ok(&self) -> bool {
        self.mismatches == 0 && self.note.is_empty()
    }
}

/// Compares `got` with `expected`, output by output.
pub fn compare(got: &Outputs, expected: &Outputs, atol: f64, rtol: f64) -> Vec<Row> {
    got.iter()
        .map(|(name, t)| {
            let mut row = Row {
                name: name.clone(),
                max_abs: 0.0,
                max_rel: 0.0,
                mismatches: 0,
                note: String::new(),
            };
            let Some((_, e)) = expected.iter().find(|(n, _)| n == name) else {
                row.note = "missing in the reference".into();
                return row;
            };
            if e.shape() != t.shape() {
                row.note = format!("shape {:?} vs reference {:?}", t.shape(), e.shape());
                return row;
            }
            for (&x, &y) in t.to_f64().iter().zip(e.to_f64().iter()) {
                if (x.is_nan() && y.is_nan()) || x == y {
                    continue;
                }
                let d = (x - y).abs();
                let d = if d.is_nan() { f64::INFINITY } else { d };
                row.max_abs = row.max_abs.max(d);
                if y != 0.0 {
                    row.max_rel = row.max_rel.max(d / y.abs());
                }
                if d > atol + rtol * y.abs() {
                    row.mismatches += 1;
                }
            }
            row
        })
        .collect()
}

/// The table, one line per output.
pub fn table(rows: &[Row]) -> String {
    let mut s = format!(
        "  {:<24} {:>14} {:>14} {:>12}  status\n",
        "output", "max_abs_err", "max_rel_err", "mismatches"
    );
    for r in rows {
        let status = if r.ok() {
            "ok".to_string()
        } else if r.note.is_empty() {
            "FAIL".into()
        } else {
            format!("FAIL ({})", r.note)
        };
        s += &format!(
            "  {:<24} {:>14.6e} {:>14.6e} {:>12}  {status}\n",
            r.name, r.max_abs, r.max_rel, r.mismatches
        );
    }
    s
}

/// The text of `module` with its locations (the rewrite trace and the
/// reproducer cite them).
pub fn module_text(module: &melior::ir::Module) -> String {
    use melior::ir::operation::{OperationLike, OperationPrintingFlags};
    let flags = OperationPrintingFlags::new().enable_debug_info(true, false);
    module
        .as_operation()
        .to_string_with_flags(flags)
        .unwrap_or_else(|_| module.as_operation().to_string())
}
