//! The interpreter: finds the entry, walks blocks op by op, dispatches each
//! op by name to a kernel of the table ([`crate::ops`]), and runs control
//! flow (calls, `coreai.if`, `coreai.while`) itself.

use crate::error::{InterpError, KResult};
use crate::ir::{Block, Op, Ty, Val};
use crate::ops::{self, Ctx, Table};
use crate::ranges::{self, OpRange, ValueRange};
use crate::tensor::DType;
pub use crate::value::Value;
use melior::ir::{block::BlockLike, operation::OperationLike, Module};
use melior::Context;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Execution options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Round every float input, constant and op result through fp16, so
    /// overflow and precision loss show as on fp16 devices.
    pub simulate_fp16: bool,
    /// With `simulate_fp16`: also make every float op result beyond
    /// ±[`ANE_RANGE`] infinite, the Neural Engine's narrower intermediate
    /// range as reported in the conversion guide §9.1 (an approximation:
    /// softplus overflowing at x ≈ 10.4 fits a 2^15 bound; the device's
    /// exact arithmetic is not modelled).
    pub ane_range: bool,
    /// Stop with an error at the first op reached after this instant (a
    /// loop whose condition never turns false runs until then; without a
    /// deadline, until its 100,000,000th iteration).
    pub deadline: Option<std::time::Instant>,
    /// Stop with an error at the op that would be the `max_ops + 1`-th op
    /// executed (terminators not counted): a budget that, unlike
    /// `deadline`, stops at the same op on every machine.
    pub max_ops: Option<u64>,
}

/// The magnitude beyond which `Options::ane_range` makes op results
/// infinite: 2^15 (e^10.4 ≈ 32860, where the Neural Engine's softplus
/// overflows).
pub const ANE_RANGE: f64 = 32768.0;

/// An argument or result of an entry point.
#[derive(Clone, Debug)]
pub struct Port {
    /// `coreai.name`, or `argN` / `resultN`.
    pub name: String,
    /// The MLIR type as text.
    pub type_text: String,
    /// Element type and static shape, for tensors.
    pub dtype: Option<DType>,
    pub shape: Option<Vec<Option<usize>>>,
    pub is_handle: bool,
    pub is_token: bool,
}

/// A parsed, verified module ready to run.
pub struct Program<'c> {
    module: Module<'c>,
    symbols: HashMap<String, Op>,
    table: Table,
    /// Kernels the user registered for ops the executor does not know (a
    /// `torch.library` op: `aten.operator "ns::name.overload"`).
    user_kernels: HashMap<String, crate::ops::Kernel>,
    /// Constants already materialized, by op: a constant is immutable, so
    /// repeated runs (and loop bodies) decode its attribute once.
    constants: RefCell<HashMap<usize, Value>>,
    /// Wall time per kernel, by op name, while profiling is on.
    profile: RefCell<Option<HashMap<String, OpTime>>>,
    /// The ranges of each op's float operands and results, by op, while
    /// recording is on (`cast-to-f16{calibration=...}`).
    ranges: RefCell<Option<HashMap<usize, OpRange>>>,
    /// The operands of the watched ops' first execution, by op (see
    /// [`Program::watch_operands`]).
    watched: RefCell<HashMap<usize, Option<Vec<Value>>>>,
}

/// The time the kernels of one op name took (see [`Program::set_profiling`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpTime {
    /// The op name (`aten.operator "aten::x.y"` counts as `aten.x.y`).
    pub name: String,
    /// How many ops of this name ran.
    pub calls: usize,
    /// Their total wall time, in seconds.
    pub seconds: f64,
}

fn port(ty: Ty, name: String) -> Port {
    let text = ty.to_text();
    Port {
        is_handle: text.starts_with("!coreai.handle"),
        is_token: text.starts_with("!coreai.token"),
        dtype: ty.dtype().ok().filter(|_| ty.is_ranked_tensor()),
        shape: ty.shape(),
        type_text: text,
        name,
    }
}

impl<'c> Program<'c> {
    /// Parses and verifies `source` in `context` (see [`project_context`]).
    pub fn parse(context: &'c Context, source: &str) -> Result<Self, InterpError> {
        coreai_ir::input_check::check_module_file(source.as_bytes(), "<string>")
            .map_err(|e| InterpError::Parse(e.to_string()))?;
        let module = with_diagnostics(context, || {
            // Through MLIR's string-ref parser rather than melior's
            // `Module::parse`, which panics on a NUL byte in the text.
            // SAFETY: the module is created in `context`, which outlives it.
            let raw = unsafe {
                coreai_ir::ffi::coreaiParseModule(
                    context.to_raw(),
                    coreai_ir::ffi::bytes_ref(source.as_bytes()),
                    coreai_ir::ffi::string_ref("<string>"),
                )
            };
            // SAFETY: a module freshly created in `context` (or null).
            unsafe { Module::from_option_raw(raw) }.filter(|m| loaded_ir_is_usable(m, "<string>"))
        })?;
        Ok(Self::from_module(module))
    }

    /// Parses and verifies the file at `path`; locations name the file.
    pub fn parse_file(context: &'c Context, path: &std::path::Path) -> Result<Self, InterpError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| InterpError::Io {
            path: name.clone(),
            msg: e.to_string(),
        })?;
        // What crashes MLIR's readers is refused before they see it.
        coreai_ir::input_check::check_module_file(&bytes, &name)
            .map_err(|e| InterpError::Parse(e.to_string()))?;
        drop(bytes);
        let module = with_diagnostics(context, || {
            // SAFETY: the module is created in `context`, which outlives it.
            // A C++ exception inside MLIR's reader aborts here, leaving the
            // crash handler's message alone.
            let raw = unsafe {
                coreai_ir::ffi::coreaiParseModuleFile(
                    context.to_raw(),
                    coreai_ir::ffi::string_ref(&name),
                )
            };
            if raw.ptr.is_null() {
                return None;
            }
            // SAFETY: a module freshly created in `context`, owned from here on.
            let m = unsafe { Module::from_raw(raw) };
            loaded_ir_is_usable(&m, &name).then_some(m)
        })?;
        Ok(Self::from_module(module))
    }

    fn from_module(module: Module<'c>) -> Self {
        let mut symbols = HashMap::new();
        let body = Block(module.body().to_raw());
        for op in body.ops() {
            if let Some(name) = op.symbol_name() {
                symbols.insert(name, op);
            }
        }
        Program {
            module,
            symbols,
            table: ops::table(),
            user_kernels: HashMap::new(),
            constants: RefCell::default(),
            profile: RefCell::default(),
            ranges: RefCell::default(),
            watched: RefCell::default(),
        }
    }

    /// Registers `kernel` for the op `qualified` (`my_lib::op.default`, as
    /// `aten.operator` names it) in this program. The executor's own kernels
    /// take precedence; a second registration of a name replaces the first.
    pub fn register_kernel(&mut self, qualified: &str, kernel: crate::ops::Kernel) {
        self.user_kernels.insert(qualified.to_string(), kernel);
    }

    /// Registers `kernel` as the CPU implementation of the custom Metal
    /// kernel `name` (a `TorchMetalKernel`'s name, `my_add`): it runs
    /// `coreai.metal4_kernel` ops whose `kernel_name` is `name` and the 8
    /// letters coreai-torch appends, and the imported call `aten.operator
    /// "coreai_metal_kernels::name.default"`. The kernel sees the kernel's
    /// inputs in order (a scalar input as a rank-0 tensor: f32 for a
    /// float, si32 for an int, ui8 for a bool), then, for the metal4_kernel
    /// op, `threads_per_grid`, `threads_per_thread_group` and the result
    /// shapes (ui32); it returns the results (`Ctx::out_dtype`/`out_shape`
    /// give their types).
    pub fn register_metal_kernel(&mut self, name: &str, kernel: crate::ops::Kernel) {
        self.user_kernels
            .insert(crate::ops::metal::key(name), kernel);
    }

    /// Turns per-op timing on (from an empty record) or off. Only kernels
    /// are timed: control flow and calls are the ops they run.
    pub fn set_profiling(&self, on: bool) {
        *self.profile.borrow_mut() = on.then(HashMap::new);
    }

    /// The time per op name since profiling was turned on, the slowest
    /// first; the record starts again from empty.
    pub fn take_profile(&self) -> Vec<OpTime> {
        let mut v: Vec<OpTime> = match self.profile.borrow_mut().as_mut() {
            Some(p) => p.drain().map(|(_, t)| t).collect(),
            None => Vec::new(),
        };
        v.sort_by(|a, b| b.seconds.total_cmp(&a.seconds).then(a.name.cmp(&b.name)));
        v
    }

    /// Turns value-range recording on (from an empty record) or off: every
    /// op run records its float operands' and results' ranges, merged over
    /// the op's executions (see [`crate::calibrate`]).
    pub fn set_recording_ranges(&self, on: bool) {
        *self.ranges.borrow_mut() = on.then(HashMap::new);
    }

    /// The ranges recorded since recording was turned on, by op
    /// (`MlirOperation` pointer); the record starts again from empty.
    pub fn take_ranges(&self) -> HashMap<usize, OpRange> {
        match self.ranges.borrow_mut().as_mut() {
            Some(r) => std::mem::take(r),
            None => HashMap::new(),
        }
    }

    /// Records the operands of each of `ops` (`MlirOperation` pointers) the
    /// first time it runs, replacing what was watched before.
    pub fn watch_operands(&self, ops: impl IntoIterator<Item = usize>) {
        *self.watched.borrow_mut() = ops.into_iter().map(|op| (op, None)).collect();
    }

    /// The watched ops' recorded operands, by op (an op that did not run
    /// has none); watching stops.
    pub fn take_watched(&self) -> HashMap<usize, Vec<Value>> {
        std::mem::take(&mut *self.watched.borrow_mut())
            .into_iter()
            .filter_map(|(op, v)| v.map(|v| (op, v)))
            .collect()
    }

    /// Names of the callables (func.func, coreai.graph) with bodies.
    pub fn entries(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .symbols
            .iter()
            .filter(|(_, op)| op.num_regions() > 0 && op.region_block(0).is_some())
            .map(|(n, _)| n.clone())
            .collect();
        v.sort();
        v
    }

    fn entry(&self, name: &str) -> Result<Op, InterpError> {
        match self.symbols.get(name) {
            Some(op) if op.region_block(0).is_some() => Ok(*op),
            _ => Err(InterpError::NoEntry {
                name: name.to_string(),
                available: self.entries().join(", "),
            }),
        }
    }

    /// The arguments and results of `entry`, named by their `coreai.name`
    /// attributes (falling back to `argN` / `resultN`).
    pub fn signature(&self, entry: &str) -> Result<(Vec<Port>, Vec<Port>), InterpError> {
        let op = self.entry(entry)?;
        let arg_attrs = op
            .attr("arg_attrs")
            .and_then(|a| a.as_array())
            .unwrap_or_default();
        let res_attrs = op
            .attr("res_attrs")
            .and_then(|a| a.as_array())
            .unwrap_or_default();
        let named = |attrs: &[crate::ir::Attr], i: usize, fallback: String| {
            attrs
                .get(i)
                .and_then(|d| d.dict_get("coreai.name"))
                .and_then(|a| a.as_str())
                .unwrap_or(fallback)
        };
        let block = op.region_block(0).expect("checked by entry");
        let args = (0..block.num_args())
            .map(|i| port(block.arg(i).ty(), named(&arg_attrs, i, format!("arg{i}"))))
            .collect();
        let fty = op.attr("function_type").and_then(|a| a.as_type());
        let mut results = Vec::new();
        if let Some(fty) = fty {
            let n = unsafe { mlir_sys::mlirFunctionTypeGetNumResults(fty.0) } as usize;
            for i in 0..n {
                let t = Ty(unsafe { mlir_sys::mlirFunctionTypeGetResult(fty.0, i as isize) });
                results.push(port(t, named(&res_attrs, i, format!("result{i}"))));
            }
        }
        Ok((args, results))
    }

    /// Runs `entry` on `inputs` (in argument order).
    pub fn run(
        &self,
        entry: &str,
        inputs: Vec<Value>,
        options: Options,
    ) -> Result<Vec<Value>, InterpError> {
        let op = self.entry(entry)?;
        let (args, _) = self.signature(entry)?;
        if inputs.len() != args.len() {
            return Err(InterpError::Input {
                name: entry.to_string(),
                msg: format!("expects {} inputs, got {}", args.len(), inputs.len()),
            });
        }
        let inputs = inputs
            .into_iter()
            .map(|v| match (v, options.simulate_fp16) {
                (Value::Tensor(t), true) => {
                    let mut t = (*t).clone();
                    t.round_through_f16();
                    Value::tensor(t)
                }
                (v, _) => v,
            })
            .collect();
        let exec = Exec {
            program: self,
            options,
            depth: RefCell::new(0),
            executed: std::cell::Cell::new(0),
        };
        exec.call(op, inputs)
    }

    /// The module being run.
    pub fn module(&self) -> &Module<'c> {
        &self.module
    }
}

/// One execution.
pub struct Exec<'p, 'c> {
    program: &'p Program<'c>,
    options: Options,
    depth: RefCell<usize>,
    /// Ops executed so far (for `Options::max_ops`).
    executed: std::cell::Cell<u64>,
}

type Env = HashMap<usize, Value>;

const MAX_DEPTH: usize = 256;

/// Ops that only move data: on constant operands their result is computed
/// once and cached like a constant (a transposed weight is not transposed
/// again on every run). Moving data commutes with `--simulate-fp16`'s
/// rounding, which still applies to every result.
const FOLDABLE: &[&str] = &[
    "aten._unsafe_view.default",
    "aten.expand.default",
    "aten.permute.default",
    "aten.reshape.default",
    "aten.squeeze.dim",
    "aten.squeeze.dims",
    "aten.t.default",
    "aten.transpose.int",
    "aten.unsqueeze.default",
    "aten.view.default",
    "coreai.broadcast_to",
    "coreai.expand_dims",
    "coreai.reshape",
    "coreai.shrink_dims",
    "coreai.transpose",
];

fn op_error(op: Op, msg: impl Into<String>) -> InterpError {
    InterpError::Op {
        op: op.name(),
        loc: op.location(),
        msg: msg.into(),
    }
}

impl Exec<'_, '_> {
    fn call(&self, callee: Op, args: Vec<Value>) -> Result<Vec<Value>, InterpError> {
        let Some(block) = callee.region_block(0) else {
            return Err(op_error(callee, "the callee has no body"));
        };
        if callee.region_is_multi_block(0) {
            return Err(InterpError::NotExecutable {
                op: format!("{} with several blocks", callee.name()),
                loc: callee.location(),
            });
        }
        {
            let mut d = self.depth.borrow_mut();
            *d += 1;
            if *d > MAX_DEPTH {
                return Err(op_error(callee, "call depth exceeds 256 (recursion?)"));
            }
        }
        let mut env = Env::new();
        let r = self.run_block(block, args, &mut env).map(|(_, v)| v);
        *self.depth.borrow_mut() -= 1;
        r
    }

    /// Binds `args` to the block arguments, runs the ops, and returns the
    /// terminator (name, operand values).
    fn run_block(
        &self,
        block: Block,
        args: Vec<Value>,
        env: &mut Env,
    ) -> Result<(String, Vec<Value>), InterpError> {
        if args.len() != block.num_args() {
            return Err(InterpError::Kernel(format!(
                "block expects {} arguments, got {}",
                block.num_args(),
                args.len()
            )));
        }
        for (i, v) in args.into_iter().enumerate() {
            env.insert(block.arg(i).key(), v);
        }
        for op in block.ops() {
            let name = op.name();
            match name.as_str() {
                "func.return" | "coreai.output" | "coreai.yield" | "coreai.condition"
                | "scf.yield" | "aten.yield" => {
                    let vals = (0..op.num_operands())
                        .map(|i| self.lookup(env, op, op.operand(i)))
                        .collect::<Result<_, _>>()?;
                    return Ok((name, vals));
                }
                _ => {
                    if self
                        .options
                        .deadline
                        .is_some_and(|d| std::time::Instant::now() >= d)
                    {
                        return Err(op_error(op, "the run's time limit ran out at this op"));
                    }
                    let executed = self.executed.get();
                    if self.options.max_ops.is_some_and(|max| executed >= max) {
                        return Err(op_error(
                            op,
                            format!("the run's op budget ({executed} ops) ran out at this op"),
                        ));
                    }
                    self.executed.set(executed + 1);
                    let results = self.exec(op, &name, env)?;
                    for (i, v) in results.into_iter().enumerate() {
                        env.insert(op.result(i).key(), v);
                    }
                }
            }
        }
        Err(InterpError::Kernel("block has no terminator".into()))
    }

    fn lookup(&self, env: &Env, op: Op, v: Val) -> Result<Value, InterpError> {
        env.get(&v.key()).cloned().ok_or_else(|| {
            op_error(
                op,
                "operand has no value (defined in an unexecuted region?)",
            )
        })
    }

    /// A data-movement op (see [`FOLDABLE`]) whose operands are all cached
    /// constants (or folded ops): its one result is a constant too.
    fn folds(&self, op: Op, name: &str) -> bool {
        let constants = self.program.constants.borrow();
        FOLDABLE.contains(&name)
            && op.num_results() == 1
            && op.num_operands() > 0
            && (0..op.num_operands()).all(|i| {
                op.operand(i)
                    .defining_op()
                    .is_some_and(|d| constants.contains_key(&(d.0.ptr as usize)))
            })
    }

    fn exec(&self, op: Op, name: &str, env: &mut Env) -> Result<Vec<Value>, InterpError> {
        let constant = matches!(name, "arith.constant" | "coreai.constant") || self.folds(op, name);
        if constant {
            let cached = self
                .program
                .constants
                .borrow()
                .get(&(op.0.ptr as usize))
                .cloned();
            if let Some(v) = cached {
                return self.check_results(op, vec![v]);
            }
        }
        let vals: Vec<Value> = (0..op.num_operands())
            .map(|i| self.lookup(env, op, op.operand(i)))
            .collect::<Result<_, _>>()?;
        if let Some(slot @ None) = self
            .program
            .watched
            .borrow_mut()
            .get_mut(&(op.0.ptr as usize))
        {
            *slot = Some(vals.clone());
        }
        let operand_ranges: Option<Vec<Option<ValueRange>>> = self
            .program
            .ranges
            .borrow()
            .is_some()
            .then(|| vals.iter().map(ranges::range_of).collect());
        let results = match name {
            "func.call" | "coreai.invoke" => {
                let callee = op
                    .attr("callee")
                    .and_then(|a| a.as_str().or_else(|| symbol_in_text(&a.to_text())))
                    .ok_or_else(|| op_error(op, "missing callee"))?;
                let target = self
                    .program
                    .symbols
                    .get(&callee)
                    .copied()
                    .ok_or_else(|| op_error(op, format!("no callee @{callee}")))?;
                self.call(target, vals)?
            }
            "coreai.if" => {
                let c = cond_value(&vals).map_err(|e| op_error(op, e.to_string()))?;
                let region = if c { 0 } else { 1 };
                match op.region_block(region) {
                    Some(b) => self.run_block(b, vec![], env)?.1,
                    None => vec![],
                }
            }
            "coreai.while" => self.run_while(op, vals, env)?,
            // torch.cond: operand 0 is the predicate, the rest are the
            // branches' arguments.
            "aten.cond" => {
                let c = cond_value(&vals[..1.min(vals.len())])
                    .map_err(|e| op_error(op, e.to_string()))?;
                let region = if c { 0 } else { 1 };
                let block = op
                    .region_block(region)
                    .ok_or_else(|| op_error(op, "a branch of aten.cond is empty"))?;
                self.run_block(block, vals[1..].to_vec(), env)?.1
            }
            // torch.while_loop: the first #results operands are carried,
            // the rest (additional inputs) are passed unchanged each step.
            "aten.while_loop" => self.run_while_loop(op, vals, env)?,
            _ => {
                // 8- and 4-bit floats are held as f32 (`Ty::dtype`): an op
                // computing one would skip its rounding to the format. A
                // look-up or a scatter into zeros only moves them (palettes
                // and sparse values of f8 codes).
                if !matches!(
                    name,
                    "arith.constant"
                        | "coreai.constant"
                        | "coreai.lut_to_dense"
                        | "coreai.build_sparse_with_bitmask"
                        | "coreai.sparse_with_bitmask_to_dense"
                ) {
                    if let Some(i) =
                        (0..op.num_results()).find(|&i| op.result(i).ty().minifloat().is_some())
                    {
                        return Err(op_error(
                            op,
                            format!(
                                "result #{i} is {}: the executor has 8- and 4-bit floats only as constants (compressed weights)",
                                op.result(i).ty().to_text()
                            ),
                        ));
                    }
                }
                let mut vals = vals;
                let (key, table_key, found) = match name {
                    "aten.operator" => {
                        let q = op.attr("name").and_then(|a| a.as_str()).unwrap_or_default();
                        let key = match q.split_once("::") {
                            Some(("aten", rest)) => format!("aten.{rest}"),
                            _ => q.clone(),
                        };
                        let f = self.program.table.get(key.as_str()).copied();
                        let f = f.or_else(|| self.program.user_kernels.get(&q).copied());
                        if let Some(attr) = op.attr("metal_kernel") {
                            vals = crate::ops::metal::kernel_inputs(attr, vals)
                                .map_err(|e| op_error(op, e))?;
                        }
                        (q, key, f)
                    }
                    "coreai.metal4_kernel" => {
                        let kernel_name = op
                            .attr("kernel_name")
                            .and_then(|a| a.as_str())
                            .unwrap_or_default();
                        let base = crate::ops::metal::base_name(&kernel_name);
                        let f = [kernel_name.as_str(), base]
                            .iter()
                            .find_map(|n| self.program.user_kernels.get(&crate::ops::metal::key(n)))
                            .copied();
                        let key = match f {
                            Some(_) => format!("coreai.metal4_kernel '{base}'"),
                            None => format!(
                                "coreai.metal4_kernel '{base}' (kernel_name {kernel_name}): no CPU kernel is registered for this Metal kernel (Program::register_metal_kernel)"
                            ),
                        };
                        (key, name.to_string(), f)
                    }
                    _ => (
                        name.to_string(),
                        name.to_string(),
                        self.program.table.get(name).copied(),
                    ),
                };
                let Some(kernel) = found else {
                    return Err(InterpError::NotExecutable {
                        op: key,
                        loc: op.location(),
                    });
                };
                let ctx = Ctx {
                    op,
                    name: &table_key,
                    vals,
                };
                // A kernel bug must not take the process down: report it at
                // the op like any other error.
                let started = std::time::Instant::now();
                let outcome =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| kernel(&ctx)));
                self.record_time(&table_key, started);
                match outcome {
                    Ok(r) => r.map_err(|e| match e {
                        InterpError::Kernel(msg) => InterpError::Op {
                            op: key.clone(),
                            loc: op.location(),
                            msg,
                        },
                        other => other,
                    })?,
                    Err(payload) => {
                        let msg = payload
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        return Err(InterpError::Op {
                            op: key.clone(),
                            loc: op.location(),
                            msg: format!("internal error in the kernel: {msg}"),
                        });
                    }
                }
            }
        };
        if let Some(operands) = operand_ranges {
            let results = results.iter().map(ranges::range_of).collect();
            if let Some(all) = self.program.ranges.borrow_mut().as_mut() {
                ranges::merge(all.entry(op.0.ptr as usize).or_default(), operands, results);
            }
        }
        if constant && results.len() == 1 {
            self.program
                .constants
                .borrow_mut()
                .insert(op.0.ptr as usize, results[0].clone());
        }
        self.check_results(op, results)
    }

    fn record_time(&self, name: &str, started: std::time::Instant) {
        if let Some(p) = self.program.profile.borrow_mut().as_mut() {
            let t = p.entry(name.to_string()).or_insert_with(|| OpTime {
                name: name.to_string(),
                ..OpTime::default()
            });
            t.calls += 1;
            t.seconds += started.elapsed().as_secs_f64();
        }
    }

    /// `coreai.while`: region 0 computes `coreai.condition %c, %args`; while
    /// `%c`, region 1 maps the args to the next iteration's.
    fn run_while(
        &self,
        op: Op,
        inits: Vec<Value>,
        env: &mut Env,
    ) -> Result<Vec<Value>, InterpError> {
        let (Some(before), Some(after)) = (op.region_block(0), op.region_block(1)) else {
            return Err(op_error(op, "expects two regions"));
        };
        let mut cur = inits;
        for _ in 0..100_000_000u64 {
            let (_, mut out) = self.run_block(before, cur, env)?;
            if out.is_empty() {
                return Err(op_error(op, "coreai.condition without a condition"));
            }
            let c = cond_value(&out[..1]).map_err(|e| op_error(op, e.to_string()))?;
            let args = out.split_off(1);
            if !c {
                return Ok(args);
            }
            cur = self.run_block(after, args, env)?.1;
        }
        Err(op_error(op, "loop did not terminate"))
    }

    fn run_while_loop(
        &self,
        op: Op,
        vals: Vec<Value>,
        env: &mut Env,
    ) -> Result<Vec<Value>, InterpError> {
        let (Some(cond), Some(body)) = (op.region_block(0), op.region_block(1)) else {
            return Err(op_error(op, "expects a cond and a body region"));
        };
        let carried = op.num_results();
        if vals.len() < carried {
            return Err(op_error(op, "fewer operands than carried values"));
        }
        let extra = vals[carried..].to_vec();
        let with_extra = |mut v: Vec<Value>| {
            v.extend(extra.iter().cloned());
            v
        };
        let mut cur = vals[..carried].to_vec();
        for _ in 0..100_000_000u64 {
            let (_, out) = self.run_block(cond, with_extra(cur.clone()), env)?;
            let c = cond_value(&out).map_err(|e| op_error(op, e.to_string()))?;
            if !c {
                return Ok(cur);
            }
            cur = self.run_block(body, with_extra(cur), env)?.1;
            if cur.len() != carried {
                return Err(op_error(op, "the body yields a different number of values"));
            }
        }
        Err(op_error(op, "loop did not terminate"))
    }

    /// Checks each result against its declared type, and applies fp16
    /// simulation.
    fn check_results(&self, op: Op, results: Vec<Value>) -> Result<Vec<Value>, InterpError> {
        if results.len() != op.num_results() {
            return Err(op_error(
                op,
                format!(
                    "kernel produced {} results, the op has {}",
                    results.len(),
                    op.num_results()
                ),
            ));
        }
        let mut out = Vec::with_capacity(results.len());
        for (i, v) in results.into_iter().enumerate() {
            let ty = op.result(i).ty();
            let v = match v {
                Value::Tensor(t) if ty.is_ranked_tensor() => {
                    let dt = ty.dtype().map_err(|e| op_error(op, e.to_string()))?;
                    if t.dtype() != dt {
                        return Err(op_error(
                            op,
                            format!(
                                "result #{i}: computed {} but the op declares {}",
                                t.dtype().name(),
                                ty.to_text()
                            ),
                        ));
                    }
                    if let Some(shape) = ty.shape() {
                        let got = t.shape();
                        if got.len() != shape.len()
                            || shape
                                .iter()
                                .zip(&got)
                                .any(|(d, g)| d.is_some_and(|d| d != *g))
                        {
                            return Err(op_error(
                                op,
                                format!(
                                    "result #{i}: computed shape {:?} but the op declares {}",
                                    got,
                                    ty.to_text()
                                ),
                            ));
                        }
                    }
                    if self.options.simulate_fp16 && dt.is_float() {
                        let mut t = Rc::unwrap_or_clone(t);
                        t.round_through_f16();
                        if self.options.ane_range {
                            t.overflow_beyond(ANE_RANGE);
                        }
                        Value::tensor(t)
                    } else {
                        Value::Tensor(t)
                    }
                }
                v => v,
            };
            out.push(v);
        }
        Ok(out)
    }
}

/// The truth of a condition operand (a one-element tensor).
fn cond_value(vals: &[Value]) -> KResult<bool> {
    match vals.first().and_then(|v| v.as_tensor()) {
        Some(t) if t.len() == 1 => Ok(t.to_bool().iter().next().copied().unwrap_or(false)),
        _ => crate::error::kerr("condition must be a one-element tensor"),
    }
}

/// Free of what MLIR's readers accept but nothing downstream handles
/// (negative dimensions, strings that are not UTF-8), given the weights its
/// `coreai.weights` file holds (relative to `path`), and verified.
fn loaded_ir_is_usable(module: &Module<'_>, path: &str) -> bool {
    let op = module.as_operation().to_raw();
    let clean = unsafe {
        coreai_ir::ffi::coreaiCheckLoadedIR(op)
            && coreai_ir::ffi::coreaiAttachExternalWeights(op, coreai_ir::ffi::string_ref(path))
    };
    clean && module.as_operation().verify()
}

/// Runs `f`, collecting its diagnostics; an error after the first is a
/// follow-on of the same fault and is dropped.
fn with_diagnostics<T>(context: &Context, f: impl FnOnce() -> Option<T>) -> Result<T, InterpError> {
    let collected = Rc::new(RefCell::new(String::new()));
    let sink = collected.clone();
    let mut seen_error = false;
    let id = context.attach_diagnostic_handler(move |d| {
        let is_error = matches!(d.severity(), melior::diagnostic::DiagnosticSeverity::Error);
        if !(is_error && seen_error) {
            use std::fmt::Write;
            let _ = writeln!(sink.borrow_mut(), "{}: {}", d.location(), d);
        }
        seen_error |= is_error;
        true
    });
    let value = f();
    context.detach_diagnostic_handler(id);
    let text = collected.borrow().trim_end().to_string();
    value.ok_or(InterpError::Parse(text))
}

/// A context with the project's dialects (aten, coreai, param, coreaix) and
/// the upstream ones they use.
pub fn project_context() -> Context {
    coreai_ir::context::create_context()
}

/// The first `@symbol` in an attribute's text: callees may be wrapped, as
/// coreai-core's `#param.constant<@g> : !param.symbol`.
fn symbol_in_text(text: &str) -> Option<String> {
    let rest = &text[text.find('@')? + 1..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next().map(|s| s.to_string());
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '-'))
        .collect();
    (!name.is_empty()).then_some(name)
}
