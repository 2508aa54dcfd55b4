//! `test-plant-miscompile{op=NAME nth=K}`: a deliberately wrong pass, for
//! testing miscompile hunting (`coreai-bisect`, users' CI) end to end.
//!
//! Preconditions: verified IR; `op` names an operation (`coreai.mul`,
//! `aten.add.Tensor`). Runs on any operation and rewrites the ops nested in
//! it.
//!
//! Guarantee (the wrong one, on purpose): every op named `op` whose first
//! operand has the type of its first result is a match, numbered 1, 2, ...
//! in pre-order; each match is one rewrite application. Application `nth`
//! replaces the uses of the op's first result with its first operand (the
//! op's computation is skipped: type-correct, verifier-clean, numerically
//! wrong unless the op is the identity on that input); every other
//! application leaves its op as it is. Nothing is reported.
//!
//! With `loc=NAME` instead, the wrong applications are those at an op whose
//! location is named NAME (`loc("NAME"(...))`, the node names the importer
//! gives), whatever their number. That is how a real faulty pattern
//! behaves: it is wrong on an op because of the op, not because of how many
//! matches came before it, so a module reduced around that op still
//! reproduces it (with `nth`, every earlier match must stay).
//!
//! The options every project pass takes apply (`coreai_ir::rewrite`):
//! `max-rewrites=N` applies only applications 1..N (`-1`: all),
//! `trace-rewrites=true` prints one stderr line per application,
//! `rewrite <pass> #<k> <pattern> at <loc>`. The pass numbers its matches
//! itself rather than through `Rewriter`: the driver erases every op it
//! rewrites, and all but one application here must leave the op in place.
//!
//! Re-keying (for `coreai-bisect`'s reduction): `rekey` gives match `nth`
//! the location `loc("NAME"(<its location>))`, so that `loc=NAME` plants the
//! same op as `nth` did on that module, and keeps planting it in a reduced
//! module that lost the earlier matches (which `nth` counts).
//!
//! Interactions: `canonicalize` later erases the skipped op if it has no
//! other uses. Never part of a product pipeline.

use coreai_ir::diagnostics::emit_error;
use coreai_ir::options::OptionValue;
use coreai_ir::pass::{Pass, PassFailed, PassInfo, PassResult};
use coreai_ir::rewrite::RewriteOptions;
use melior::ir::{
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    ValueLike,
};
use mlir_sys::MlirOperation;

pub const INFO: PassInfo = PassInfo {
    name: "test-plant-miscompile",
    summary:
        "Test only: silently skip the computation of the nth op named `op` (a planted miscompile)",
    anchor: None,
    source: include_str!("test_plant_miscompile.rs"),
    options: PlantMiscompile::OPTIONS,
    create: || Box::new(PlantMiscompile::default()),
};

coreai_ir::pass_options! {
    struct PlantMiscompile {
        "op" => op: String = "",
            "the op name whose matches are numbered (required)";
        "nth" => nth: usize = "1",
            "which match (1-based) becomes wrong",
            parse = |v: &str| match i64::parse_option(v)? {
                n if n >= 1 => Ok(n as usize),
                n => Err(format!("{n} is not a match number (1, 2, ...)")),
            };
        "loc" => loc_prefix: Option<String> = "",
            "instead of nth: the matches whose location is named this become wrong",
            parse = |v: &str| Ok::<_, String>((!v.trim().is_empty()).then(|| format!("loc(\"{}\"", v.trim())));
    }
}

impl Pass for PlantMiscompile {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        if self.op.is_empty() {
            emit_error(
                root,
                "test-plant-miscompile: option 'op' is required (op=NAME)",
            );
            return Err(PassFailed);
        }
        let mut matches: Vec<MlirOperation> = Vec::new();
        root.walk(WalkOrder::PreOrder, |op| {
            if op.to_raw().ptr != root.to_raw().ptr && self.is_match(&op) {
                matches.push(op.to_raw());
            }
            WalkResult::Advance
        });
        let limit = rewrites.max_rewrites.unwrap_or(usize::MAX);
        for (i, raw) in matches.into_iter().enumerate().take(limit) {
            let k = i + 1;
            let location = coreai_ir::raw::location_text(raw);
            if rewrites.trace {
                eprintln!("rewrite {} #{k} plant-miscompile at {location}", INFO.name);
            }
            let wrong = match &self.loc_prefix {
                Some(prefix) => location.starts_with(prefix.as_str()),
                None => k == self.nth,
            };
            if wrong {
                let (Some(&operand), Some(&result)) = (
                    coreai_ir::raw::operands(raw).first(),
                    coreai_ir::raw::results(raw).first(),
                ) else {
                    continue;
                };
                coreai_ir::raw::replace_all_uses(result, operand);
            }
        }
        Ok(())
    }
}

/// Gives match `nth` of op `op` in `root` (numbered as `nth=` numbers
/// them) the location `loc("name"(<its location>))`; returns that location
/// as printed, or None when there are fewer than `nth` matches.
pub fn rekey(root: OperationRef<'_, '_>, op: &str, nth: usize, name: &str) -> Option<String> {
    let plant = PlantMiscompile {
        op: op.to_string(),
        nth,
        loc_prefix: None,
    };
    let mut matches: Vec<MlirOperation> = Vec::new();
    root.walk(WalkOrder::PreOrder, |o| {
        if o.to_raw().ptr != root.to_raw().ptr && plant.is_match(&o) {
            matches.push(o.to_raw());
        }
        WalkResult::Advance
    });
    let raw = *matches.get(nth.checked_sub(1)?)?;
    Some(coreai_ir::raw::rename_location(raw, name))
}

impl PlantMiscompile {
    /// An op named `op` whose first operand can stand for its first result.
    fn is_match(&self, op: &OperationRef) -> bool {
        let name = op.name();
        if name.as_string_ref().as_str() != Ok(self.op.as_str()) {
            return false;
        }
        match (op.operand(0), op.result(0)) {
            (Ok(a), Ok(r)) => a.r#type() == r.r#type(),
            _ => false,
        }
    }
}
