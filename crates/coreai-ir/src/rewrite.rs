//! The one rewrite driver every project pass uses.
//!
//! A pass describes *what* to rewrite; the driver does the rest the same way
//! for every pass:
//!
//! 1. collect the targets: a pre-order walk under the root, in program
//!    order, asks the pass's `select` which [`Pattern`]s apply to each op
//!    (collected first, rewritten after: the walk never sees erased ops);
//! 2. for each target, build a [`LoweringCx`] carrying the pass's
//!    [`LoweringOptions`] and call its patterns in order
//!    (`fn(&LoweringCx) -> Result<Vec<Value>, Decline>`: the pattern builds
//!    the replacement in front of the op and returns the values replacing
//!    its results);
//! 3. check the result count and each value's type (the old result's type,
//!    mapped by [`Rewriter::with_result_type`]), replace every use, erase
//!    the op;
//! 4. report declines by [`Policy`]: [`Policy::MustLower`] (a conversion:
//!    a decline is an error at the op, `cannot lower 'aten::x': reason`) or
//!    [`Policy::Optional`] (an optimization: a decline skips the pattern, the
//!    next one is tried, and the reason is kept in [`Rewriter::declines`]
//!    for remarks).
//!
//! [`Rewriter::run_once`] makes one sweep; [`Rewriter::run_to_fixpoint`]
//! sweeps again while a sweep rewrote something (ops a pattern emits may be
//! targets themselves), up to a bound.
//!
//! Every application (a pattern that did not decline) is numbered 1, 2, ...
//! in that deterministic order, across sweeps. Two options every project
//! pass takes are parsed once by the registry ([`RewriteOptions`], handed to
//! `Pass::run`), not by the passes:
//! - `max-rewrites=N`: only the first N applications happen; the later
//!   targets are left as they are and no pattern is called for them (a
//!   bisection finds the first bad rewrite in O(log n) runs);
//! - `trace-rewrites=true`: one line per application on stderr,
//!   `rewrite <pass> #<k> <pattern> at <location>`.
//!
//! The numbering is per run of the pass on one anchor op: a pass anchored on
//! functions numbers each function's rewrites on its own, so bisect it with
//! `--mlir-disable-threading` and one function at a time.
//!
//! A pass using the driver:
//!
//! ```ignore
//! fn run(&mut self, module: OperationRef, options: &RewriteOptions) -> PassResult {
//!     let mut rewriter = Rewriter::new(INFO.name, Policy::Optional, options);
//!     rewriter.run_to_fixpoint(module, 8, |op| patterns_for(op))?;
//!     Ok(())
//! }
//! ```

use crate::{
    diagnostics::emit_error,
    lowering::{Decline, LoweringCx, LoweringOptions, UserLowering},
    pass::PassFailed,
};
use melior::ir::{
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    Type, Value, ValueLike,
};
use mlir_sys::{MlirLocation, MlirOperation};

/// A built-in pattern or lowering: builds the replacement in front of
/// `cx.op()` and returns the values replacing its results, or declines with
/// a reason.
pub type RewriteFn = for<'c, 'a> fn(&LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline>;

pub use crate::pass::RewriteOptions;

/// What a decline means.
#[derive(Clone, Copy, Debug)]
pub enum Policy {
    /// Every target must be rewritten: a decline is an error at the op,
    /// `cannot <verb> '<pattern>': <reason>`; `noun` names the pattern in
    /// result-check errors (`the lowering of 'aten::x' returned ...`).
    MustLower {
        verb: &'static str,
        noun: &'static str,
    },
    /// A decline skips the pattern (the next one for the op is tried); its
    /// reason is kept for remarks.
    Optional,
}

/// How a pattern is called.
#[derive(Clone)]
pub enum Rule {
    /// A built-in function.
    Fn(RewriteFn),
    /// A closure, shared (a user lowering registered on the compiler).
    Shared(UserLowering),
}

/// One pattern for one op: its name (in traces, remarks and errors) and how
/// to call it.
#[derive(Clone)]
pub struct Pattern {
    pub name: String,
    pub rule: Rule,
    /// Under [`Policy::MustLower`], a decline of this pattern keeps the op
    /// (another pass lowers it) instead of being an error.
    pub may_decline: bool,
}

impl Pattern {
    pub fn new(name: impl Into<String>, rewrite: RewriteFn) -> Self {
        Self {
            name: name.into(),
            rule: Rule::Fn(rewrite),
            may_decline: false,
        }
    }

    /// The pattern with [`Pattern::may_decline`] set to `yes`.
    pub fn may_decline(self, yes: bool) -> Self {
        Self {
            may_decline: yes,
            ..self
        }
    }
}

/// A pattern that declined under [`Policy::Optional`].
pub struct Declined {
    pub location: MlirLocation,
    pub pattern: String,
    pub reason: Decline,
}

/// A rewrite that states why it applies: its name, the op it rewrites,
/// the rewrite, and the reason `remarks=true` prints.
#[derive(Clone, Copy)]
pub struct ExplainedPattern {
    pub name: &'static str,
    /// The ops it roots at (`&[coreai::GATHER_ND]`).
    pub roots: &'static [&'static str],
    pub rewrite: RewriteFn,
    pub reason: &'static str,
}

/// A rewrite of a whole program at once (a layout decided over many ops,
/// which no rewrite of one op can decide): `run` rewrites what it decides
/// under `root` and records each decision with [`Rewriter::record`] (which
/// keeps `max-rewrites` and `trace-rewrites`), returning how many it
/// applied.
#[derive(Clone, Copy)]
pub struct GlobalRewrite {
    pub name: &'static str,
    pub run: fn(OperationRef<'_, '_>, &mut Rewriter) -> Result<usize, PassFailed>,
    pub reason: &'static str,
}

/// A pass that is one explained sweep of `patterns` with a `remarks`
/// option (the target passes): its `PassInfo` takes
/// [`ExplainedPass::REMARKS`] as its options and creates it with
/// [`ExplainedPass::new`].
#[derive(Clone)]
pub struct ExplainedPass {
    name: &'static str,
    /// A sweep before the main one, for rewrites whose new ops the main
    /// sweep rewrites (an inlined body's ops).
    first: &'static [ExplainedPattern],
    patterns: &'static [ExplainedPattern],
    /// Sweeps after the main one, repeated until one rewrites nothing (at
    /// most [`ExplainedPass::LAST_SWEEPS`]), for rewrites that feed each
    /// other (a transpose sunk past one op meets the next).
    last: &'static [ExplainedPattern],
    /// Whole-program rewrites after the last sweeps, in order, each
    /// followed by them again when it rewrote anything.
    globals: Vec<GlobalRewrite>,
    /// What else `remarks` prints after the sweep (the declines a pass
    /// wants users to see).
    after: Option<fn(&str, &Rewriter)>,
    remarks: bool,
}

impl ExplainedPass {
    /// The `remarks` option.
    pub const REMARKS: crate::pass::PassOption = crate::pass::PassOption {
        name: "remarks",
        help: "print one line per rewrite to stderr: its location, op, pattern and reason",
        default: "false",
    };

    pub fn new(
        name: &'static str,
        patterns: &'static [ExplainedPattern],
        after: Option<fn(&str, &Rewriter)>,
    ) -> Box<Self> {
        Box::new(Self {
            name,
            first: &[],
            patterns,
            last: &[],
            globals: Vec::new(),
            after,
            remarks: false,
        })
    }

    /// The same pass with a sweep of `first` before the main sweep.
    pub fn with_first_sweep(mut self: Box<Self>, first: &'static [ExplainedPattern]) -> Box<Self> {
        self.first = first;
        self
    }

    /// Sweeps of `last` after the main one.
    pub const LAST_SWEEPS: usize = 16;

    /// The same pass with sweeps of `last` after the main sweep, until a
    /// sweep rewrites nothing (at most [`Self::LAST_SWEEPS`]).
    pub fn with_last_sweeps(mut self: Box<Self>, last: &'static [ExplainedPattern]) -> Box<Self> {
        self.last = last;
        self
    }

    /// The same pass with `global` after the last sweeps (and after the
    /// globals given before).
    pub fn with_global(mut self: Box<Self>, global: GlobalRewrite) -> Box<Self> {
        self.globals.push(global);
        self
    }

    /// The last sweeps, until one rewrites nothing.
    fn run_last(
        &self,
        root: OperationRef<'_, '_>,
        rewriter: &mut Rewriter,
    ) -> Result<usize, PassFailed> {
        let mut applied = 0;
        if !self.last.is_empty() {
            for _ in 0..Self::LAST_SWEEPS {
                let n = rewriter.run_explained(root, self.last, false)?;
                applied += n;
                if n == 0 || rewriter.exhausted() {
                    break;
                }
            }
        }
        Ok(applied)
    }
}

impl crate::pass::Pass for ExplainedPass {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        debug_assert_eq!(name, "remarks");
        self.remarks = crate::pass::parse_bool(value)?;
        Ok(())
    }

    fn run(
        &mut self,
        root: OperationRef<'_, '_>,
        rewrites: &RewriteOptions,
    ) -> crate::pass::PassResult {
        let mut rewriter = Rewriter::new(self.name, Policy::Optional, rewrites);
        let mut applied = 0;
        if !self.first.is_empty() {
            applied += rewriter.run_explained(root, self.first, false)?;
        }
        applied += rewriter.run_explained(root, self.patterns, false)?;
        applied += self.run_last(root, &mut rewriter)?;
        for global in &self.globals {
            if rewriter.exhausted() {
                break;
            }
            let n = (global.run)(root, &mut rewriter)?;
            applied += n;
            if n > 0 {
                applied += self.run_last(root, &mut rewriter)?;
            }
        }
        if self.remarks {
            let (first, patterns, last) = (self.first, self.patterns, self.last);
            let globals = &self.globals;
            rewriter.print_applications(|pattern| {
                first
                    .iter()
                    .chain(patterns)
                    .chain(last)
                    .find(|p| p.name == pattern)
                    .map(|p| p.reason)
                    .or(globals.iter().find(|g| g.name == pattern).map(|g| g.reason))
                    .unwrap_or("")
            });
        }
        tracing::debug!(pass = self.name, applied, "explained rewrites");
        if let (true, Some(after)) = (self.remarks, self.after) {
            after(self.name, &rewriter);
        }
        Ok(())
    }
}

/// An application: a pattern that rewrote an op (for remarks).
pub struct Applied {
    pub location: MlirLocation,
    /// The rewritten op's name (`coreai.round`).
    pub op: String,
    pub pattern: String,
}

/// The rewrite driver of one pass run (see the module documentation).
pub struct Rewriter {
    pass: &'static str,
    policy: Policy,
    options: RewriteOptions,
    lowering: LoweringOptions,
    result_type: for<'c> fn(Type<'c>) -> Type<'c>,
    applied: usize,
    declines: Vec<Declined>,
    applications: Vec<Applied>,
}

impl Rewriter {
    /// A driver for the pass named `pass` (as the registry names it).
    pub fn new(pass: &'static str, policy: Policy, options: &RewriteOptions) -> Self {
        Self {
            pass,
            policy,
            options: *options,
            lowering: LoweringOptions::default(),
            result_type: |ty| ty,
            applied: 0,
            declines: Vec::new(),
            applications: Vec::new(),
        }
    }

    /// The pass options every pattern's context carries.
    pub fn with_lowering_options(mut self, options: LoweringOptions) -> Self {
        self.lowering = options;
        self
    }

    /// The type a replacement must have, from the old result's type (the
    /// identity by default; a conversion maps it to the target's type).
    pub fn with_result_type(mut self, map: for<'c> fn(Type<'c>) -> Type<'c>) -> Self {
        self.result_type = map;
        self
    }

    /// How many applications happened so far.
    pub fn applied(&self) -> usize {
        self.applied
    }

    /// Whether `max-rewrites` stopped the driver: later targets were left.
    pub fn exhausted(&self) -> bool {
        self.options
            .max_rewrites
            .is_some_and(|max| self.applied >= max)
    }

    /// Records an application of a whole-program rewrite (a
    /// [`GlobalRewrite`]) at `op`, before it is rewritten: counted like a
    /// pattern's (remarks, `trace-rewrites`). Returns `false`, recording
    /// nothing, when `max-rewrites` is reached: the rewrite must not
    /// happen.
    pub fn record(&mut self, op: MlirOperation, pattern: &str) -> bool {
        if self.exhausted() {
            return false;
        }
        self.note(unsafe { OperationRef::from_raw(op) }, pattern);
        true
    }

    /// Counts an application of `pattern` at `op` (remarks, traces).
    fn note(&mut self, op: OperationRef<'_, '_>, pattern: &str) {
        self.applied += 1;
        self.applications.push(Applied {
            location: op.location().to_raw(),
            op: op
                .name()
                .as_string_ref()
                .as_str()
                .map(str::to_string)
                .unwrap_or_default(),
            pattern: pattern.to_string(),
        });
        if self.options.trace {
            eprintln!(
                "rewrite {} #{} {pattern} at {}",
                self.pass,
                self.applied,
                op.location()
            );
        }
    }

    /// The declines of [`Policy::Optional`] patterns, in order.
    pub fn declines(&self) -> &[Declined] {
        &self.declines
    }

    /// The applications so far, in order (op, location and pattern).
    pub fn applications(&self) -> &[Applied] {
        &self.applications
    }

    /// Prints one remark per application to stderr,
    /// `<pass>: <location>: '<op>' <pattern>: <reason>`, the reason given by
    /// `reason(pattern)`.
    pub fn print_applications<'r>(&self, reason: impl Fn(&str) -> &'r str) {
        for a in &self.applications {
            let location = unsafe { melior::ir::Location::from_raw(a.location) };
            eprintln!(
                "{}: {location}: '{}' {}: {}",
                self.pass,
                a.op,
                a.pattern,
                reason(&a.pattern)
            );
        }
    }

    /// One sweep of `patterns` (each tried on the ops it names) over
    /// `root`; with `remarks`, one stderr line per application with the
    /// pattern's reason ([`Self::print_applications`]). Returns the number
    /// of applications. The body of a pass whose rewrites explain
    /// themselves (`target-gpu`, `target-ane`).
    pub fn run_explained(
        &mut self,
        root: OperationRef<'_, '_>,
        patterns: &[ExplainedPattern],
        remarks: bool,
    ) -> Result<usize, PassFailed> {
        let applied = self.run_once(root, |op| {
            let name = op.name();
            let name = name.as_string_ref().as_str().unwrap_or_default();
            patterns
                .iter()
                .filter(|p| p.roots.contains(&name))
                .map(|p| Pattern::new(p.name, p.rewrite))
                .collect()
        })?;
        if remarks {
            self.print_applications(|pattern| {
                patterns
                    .iter()
                    .find(|p| p.name == pattern)
                    .map_or("", |p| p.reason)
            });
        }
        Ok(applied)
    }

    /// One sweep: collects the targets under `root` and rewrites them.
    /// Returns the number of applications.
    pub fn run_once(
        &mut self,
        root: OperationRef<'_, '_>,
        select: impl FnMut(&OperationRef<'_, '_>) -> Vec<Pattern>,
    ) -> Result<usize, PassFailed> {
        let targets = collect(root, select);
        self.apply(targets)
    }

    /// Sweeps until a sweep rewrites nothing, at most `max_sweeps` times.
    /// Returns whether it got there (`false`: targets may be left; the pass
    /// decides whether that is an error). Stops early when `max-rewrites`
    /// is reached.
    pub fn run_to_fixpoint(
        &mut self,
        root: OperationRef<'_, '_>,
        max_sweeps: usize,
        mut select: impl FnMut(&OperationRef<'_, '_>) -> Vec<Pattern>,
    ) -> Result<bool, PassFailed> {
        for _ in 0..max_sweeps {
            if self.run_once(root, &mut select)? == 0 || self.exhausted() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Rewrites collected targets in order. Returns the number of
    /// applications.
    pub fn apply(
        &mut self,
        targets: Vec<(MlirOperation, Vec<Pattern>)>,
    ) -> Result<usize, PassFailed> {
        let before = self.applied;
        for (raw, patterns) in targets {
            if self.exhausted() {
                break;
            }
            self.rewrite(raw, &patterns)?;
        }
        Ok(self.applied - before)
    }

    /// Tries `patterns` on the op `raw` until one applies.
    fn rewrite(&mut self, raw: MlirOperation, patterns: &[Pattern]) -> Result<(), PassFailed> {
        let op = unsafe { OperationRef::from_raw(raw) };
        for pattern in patterns {
            // What a declining pattern built before `op` is erased: the ops
            // between this marker and `op`.
            let marker = match pattern.may_decline {
                true => Some(insert_marker(op)),
                false => None,
            };
            let cx = LoweringCx::with_options(op, self.lowering);
            // A panic inside the pattern is reported at this op.
            crate::foreign_pass::set_rewriting(Some(op.location().to_raw()));
            let result = match &pattern.rule {
                Rule::Fn(f) => f(&cx),
                Rule::Shared(f) => f(&cx),
            };
            crate::foreign_pass::set_rewriting(None);
            if let Some(marker) = marker {
                erase_from(marker, op, result.is_err());
            }
            match result {
                Ok(values) => return self.replace(op, pattern, &values),
                Err(reason) if pattern.may_decline => self.declines.push(Declined {
                    location: op.location().to_raw(),
                    pattern: pattern.name.clone(),
                    reason,
                }),
                Err(reason) => match self.policy {
                    Policy::MustLower { verb, .. } => {
                        emit_error(op, &format!("cannot {verb} '{}': {reason}", pattern.name));
                        return Err(PassFailed);
                    }
                    Policy::Optional => self.declines.push(Declined {
                        location: op.location().to_raw(),
                        pattern: pattern.name.clone(),
                        reason,
                    }),
                },
            }
        }
        Ok(())
    }

    /// Checks `values` against the op's results, replaces their uses and
    /// erases the op.
    fn replace(
        &mut self,
        op: OperationRef<'_, '_>,
        pattern: &Pattern,
        values: &[Value<'_, '_>],
    ) -> Result<(), PassFailed> {
        let noun = match self.policy {
            Policy::MustLower { noun, .. } => noun,
            Policy::Optional => "pattern",
        };
        let name = &pattern.name;
        if values.len() != op.result_count() {
            let message = format!(
                "the {noun} of '{name}' returned {} values for {} results",
                values.len(),
                op.result_count()
            );
            emit_error(op, &message);
            return Err(PassFailed);
        }
        for (i, new) in values.iter().enumerate() {
            let old = op.result(i).map_err(|_| PassFailed)?;
            let expected = (self.result_type)(old.r#type());
            if expected != new.r#type() {
                let message = format!(
                    "the {noun} of '{name}' gives result #{i} the type {} instead of {expected}",
                    new.r#type()
                );
                emit_error(op, &message);
                return Err(PassFailed);
            }
        }
        self.note(op, name);
        for (i, new) in values.iter().enumerate() {
            let old = op.result(i).map_err(|_| PassFailed)?;
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) };
        }
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
        Ok(())
    }
}

/// The ops under `root` (itself excluded) that `select` gives patterns for,
/// in pre-order.
pub fn collect(
    root: OperationRef<'_, '_>,
    mut select: impl FnMut(&OperationRef<'_, '_>) -> Vec<Pattern>,
) -> Vec<(MlirOperation, Vec<Pattern>)> {
    let mut targets = Vec::new();
    root.walk(WalkOrder::PreOrder, |op| {
        if op.to_raw().ptr != root.to_raw().ptr {
            let patterns = select(&op);
            if !patterns.is_empty() {
                targets.push((op.to_raw(), patterns));
            }
        }
        WalkResult::Advance
    });
    targets
}

/// An op-less `builtin.unrealized_conversion_cast` inserted before `op`:
/// what a pattern then builds lies between it and `op`.
fn insert_marker(op: OperationRef<'_, '_>) -> MlirOperation {
    unsafe {
        let name = mlir_sys::mlirStringRefCreateFromCString(
            c"builtin.unrealized_conversion_cast".as_ptr(),
        );
        let mut state =
            mlir_sys::mlirOperationStateGet(name, mlir_sys::mlirOperationGetLocation(op.to_raw()));
        let marker = mlir_sys::mlirOperationCreate(&mut state);
        let block = mlir_sys::mlirOperationGetBlock(op.to_raw());
        mlir_sys::mlirBlockInsertOwnedOperationBefore(block, op.to_raw(), marker);
        marker
    }
}

/// Erases `marker` and, with `built`, every op between it and `op` (what a
/// declining pattern left, unused outside itself), last first.
fn erase_from(marker: MlirOperation, op: OperationRef<'_, '_>, built: bool) {
    unsafe {
        let mut created = Vec::new();
        let mut next = mlir_sys::mlirOperationGetNextInBlock(marker);
        while built && !next.ptr.is_null() && next.ptr != op.to_raw().ptr {
            created.push(next);
            next = mlir_sys::mlirOperationGetNextInBlock(next);
        }
        for raw in created.into_iter().rev() {
            mlir_sys::mlirOperationDestroy(raw);
        }
        mlir_sys::mlirOperationDestroy(marker);
    }
}
