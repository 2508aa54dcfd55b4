//! Slicing a module for reduction: the ops of `main` printed once (generic
//! form, with one `AsmState` so value names agree), and any subset of them
//! rebuilt as a module of its own: values the subset uses but does not
//! define become arguments of `main`, results nobody in the subset uses
//! become its results. Constants (ops without operands or regions) come
//! along with the ops that use them; graphs the subset invokes come along
//! too, and the `dense_resource` blobs its text names.

use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationRef, WalkOrder, WalkResult},
    Module, RegionLike, ValueLike,
};
use mlir_sys::{MlirAsmState, MlirStringRef, MlirValue};
use std::collections::{BTreeMap, HashSet};
use std::ffi::c_void;

/// One op of `main`.
#[derive(Debug, Clone)]
pub struct SliceOp {
    pub text: String,
    pub location: String,
    pub is_const: bool,
    /// Results: (name, type).
    pub defs: Vec<(String, String)>,
    /// Values used from outside the op: (name, type).
    pub uses: Vec<(String, String)>,
    pub callees: Vec<String>,
}

/// A module prepared for slicing.
pub struct Sliceable {
    pub graph_kind: String,
    pub ops: Vec<SliceOp>,
    /// The arguments of `main` (name, type), in order, when the ops sliced
    /// are those of `main` itself (not of a composite or a nested region):
    /// then the model's inputs give every value a real value.
    pub main_args: Option<Vec<(String, String)>>,
    /// Whether the ops sliced are those of a region nested in an op.
    pub nested: bool,
    /// Other top-level symbols: name → (text, callees).
    symbols: BTreeMap<String, (String, Vec<String>)>,
    /// `dense_resource` blobs: name → `name: "0x..."` line.
    resources: BTreeMap<String, String>,
}

unsafe extern "C" fn append(s: MlirStringRef, data: *mut c_void) {
    let out = &mut *(data as *mut Vec<u8>);
    out.extend_from_slice(std::slice::from_raw_parts(s.data as *const u8, s.length));
}

fn print_value(v: MlirValue, state: MlirAsmState) -> String {
    let mut buf = Vec::new();
    unsafe {
        mlir_sys::mlirValuePrintAsOperand(v, state, Some(append), &mut buf as *mut _ as *mut c_void)
    };
    String::from_utf8_lossy(&buf).into_owned()
}

/// A whole graph (a callee), with its ops' locations: a pattern may fail
/// because of where an op came from, and a plant keyed by location must
/// still find its op.
fn print_symbol(op: &OperationRef) -> String {
    let mut buf = Vec::new();
    unsafe {
        let flags = mlir_sys::mlirOpPrintingFlagsCreate();
        mlir_sys::mlirOpPrintingFlagsPrintGenericOpForm(flags);
        mlir_sys::mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
        mlir_sys::mlirOpPrintingFlagsUseLocalScope(flags);
        mlir_sys::mlirOperationPrintWithFlags(
            op.to_raw(),
            flags,
            Some(append),
            &mut buf as *mut _ as *mut c_void,
        );
        mlir_sys::mlirOpPrintingFlagsDestroy(flags);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

fn print_op(op: &OperationRef, state: MlirAsmState) -> String {
    let mut buf = Vec::new();
    unsafe {
        mlir_sys::mlirOperationPrintWithState(
            op.to_raw(),
            state,
            Some(append),
            &mut buf as *mut _ as *mut c_void,
        )
    };
    String::from_utf8_lossy(&buf).into_owned()
}

/// The graph `op` invokes: the symbol in its `callee` attribute
/// (`#param.constant<@g> : !param.symbol`, or `@g`).
fn callee_of(op: &OperationRef) -> Option<String> {
    let text = op.attribute("callee").ok()?.to_string();
    let rest = &text[text.find('@')? + 1..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next().map(str::to_string);
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_.$-".contains(c)))
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}

fn slice_op(op: OperationRef, state: MlirAsmState) -> SliceOp {
    let mut inside: HashSet<usize> = HashSet::new();
    let mut used: Vec<MlirValue> = Vec::new();
    let mut callees = Vec::new();
    op.walk(WalkOrder::PreOrder, |o| {
        o.results().for_each(|r| {
            inside.insert(r.to_raw().ptr as usize);
        });
        for region in o.regions() {
            let mut b = region.first_block();
            while let Some(block) = b {
                for i in 0..block.argument_count() {
                    if let Ok(a) = block.argument(i) {
                        inside.insert(a.to_raw().ptr as usize);
                    }
                }
                b = block.next_in_region();
            }
        }
        used.extend(o.operands().map(|v| v.to_raw()));
        callees.extend(callee_of(&o));
        WalkResult::Advance
    });
    let mut uses: Vec<(String, String)> = Vec::new();
    for v in used
        .into_iter()
        .filter(|v| !inside.contains(&(v.ptr as usize)))
    {
        let value = unsafe { melior::ir::Value::from_raw(v) };
        let entry = (print_value(v, state), value.r#type().to_string());
        if !uses.contains(&entry) {
            uses.push(entry);
        }
    }
    SliceOp {
        text: print_op(&op, state),
        location: op.location().to_string(),
        is_const: op.operand_count() == 0 && op.region_count() == 0,
        defs: op
            .results()
            .map(|r| (print_value(r.to_raw(), state), r.r#type().to_string()))
            .collect(),
        uses,
        callees,
    }
}

fn children<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = Vec::new();
    if let Some(block) = op.region(0).ok().and_then(|r| r.first_block()) {
        let mut c = block.first_operation();
        while let Some(o) = c {
            out.push(o);
            c = o.next_in_block();
        }
    }
    out
}

/// The ops of the innermost block below `op` that holds an op at `loc`
/// directly (`op`'s own body when nothing nests), and whether it nests.
fn block_holding<'c, 'a>(op: OperationRef<'c, 'a>, loc: &str) -> (Vec<OperationRef<'c, 'a>>, bool) {
    let top = children(op);
    let mut ops = top.clone();
    let mut nested = false;
    'descend: loop {
        if ops.iter().any(|o| o.location().to_string() == loc) {
            return (ops, nested);
        }
        let Some(inner) = ops.iter().copied().find(|o| holds(o, loc)) else {
            return (top, false);
        };
        for region in inner.regions() {
            let mut b = region.first_block();
            while let Some(block) = b {
                let mut list = Vec::new();
                let mut c = block.first_operation();
                while let Some(o) = c {
                    list.push(o);
                    c = o.next_in_block();
                }
                if list
                    .iter()
                    .any(|o| o.location().to_string() == loc || holds(o, loc))
                {
                    ops = list;
                    nested = true;
                    continue 'descend;
                }
                b = block.next_in_region();
            }
        }
        return (top, false);
    }
}

/// Whether an op nested in `op` is at location `loc`.
fn holds(op: &OperationRef, loc: &str) -> bool {
    let mut found = false;
    op.walk(WalkOrder::PreOrder, |o| {
        found |= o.location().to_string() == loc;
        WalkResult::Advance
    });
    found
}

fn resources(printed: &str) -> BTreeMap<String, String> {
    let Some(start) = printed.find("{-#") else {
        return BTreeMap::new();
    };
    printed[start..]
        .lines()
        .filter_map(|l| {
            let t = l.trim().trim_end_matches(',');
            let (name, value) = t.split_once(": \"0x")?;
            Some((
                name.trim_matches('"').to_string(),
                format!("{name}: \"0x{value}"),
            ))
        })
        .collect()
}

impl Sliceable {
    /// `module`'s `main` (a `func.func` or `coreai.graph`), ready to slice;
    /// with `hint`, the graph holding an op at that location instead (a
    /// composite body), sliced into a `main` of its own; with `nested` too,
    /// the innermost region block holding that op (a branch or loop body).
    pub fn new(module: &Module, hint: Option<&str>, nested: bool) -> Result<Self, String> {
        let top = module.as_operation();
        let flags = unsafe { mlir_sys::mlirOpPrintingFlagsCreate() };
        unsafe { mlir_sys::mlirOpPrintingFlagsPrintGenericOpForm(flags) };
        let state = unsafe { mlir_sys::mlirAsmStateCreateForOperation(top.to_raw(), flags) };
        let mut main = None;
        let mut symbols = BTreeMap::new();
        let holder = hint.and_then(|h| children(top).into_iter().find(|op| holds(op, h)));
        for op in children(top) {
            let sym = op
                .attribute("sym_name")
                .ok()
                .map(|a| a.to_string().trim_matches('"').to_string());
            let is_entry = match holder {
                Some(h) => h.to_raw().ptr == op.to_raw().ptr,
                None => sym.as_deref() == Some("main"),
            };
            match sym.as_deref() {
                _ if is_entry => main = Some(op),
                Some(s) => {
                    let mut callees = Vec::new();
                    op.walk(WalkOrder::PreOrder, |o| {
                        callees.extend(callee_of(&o));
                        WalkResult::Advance
                    });
                    symbols.insert(s.to_string(), (print_symbol(&op), callees));
                }
                None => {}
            }
        }
        let result = match main {
            None => Err("the module has no @main".to_string()),
            Some(main) => {
                let (body, inner) = match hint.filter(|_| nested) {
                    Some(h) => block_holding(main, h),
                    None => (children(main), false),
                };
                let mut ops: Vec<SliceOp> = body.into_iter().map(|o| slice_op(o, state)).collect();
                ops.pop(); // the terminator
                let is_main = holder.is_none_or(|h| {
                    h.attribute("sym_name")
                        .is_ok_and(|a| a.to_string().trim_matches('"') == "main")
                });
                let main_args = (is_main && !inner).then(|| {
                    let mut args = Vec::new();
                    if let Some(block) = main.region(0).ok().and_then(|r| r.first_block()) {
                        for i in 0..block.argument_count() {
                            if let Ok(a) = block.argument(i) {
                                args.push((print_value(a.to_raw(), state), a.r#type().to_string()));
                            }
                        }
                    }
                    args
                });
                Ok(Self {
                    main_args,
                    nested: inner,
                    graph_kind: main
                        .name()
                        .as_string_ref()
                        .as_str()
                        .unwrap_or("func.func")
                        .to_string(),
                    ops,
                    symbols,
                    resources: resources(&top.to_string()),
                })
            }
        };
        unsafe {
            mlir_sys::mlirAsmStateDestroy(state);
            mlir_sys::mlirOpPrintingFlagsDestroy(flags);
        }
        result
    }

    /// The non-constant ops: what reduction chooses from.
    pub fn candidates(&self) -> Vec<usize> {
        (0..self.ops.len())
            .filter(|&i| !self.ops[i].is_const)
            .collect()
    }

    /// A module of every op of `main` whose results are all its outputs,
    /// with `main`'s arguments in order (`in0`, `in1`, ...), and the value
    /// of each output (`out0`, `out1`, ...); None unless slicing `main`.
    pub fn values_module(&self) -> Option<(String, Vec<String>)> {
        let args = self.main_args.as_ref()?;
        let kept: Vec<usize> = (0..self.ops.len()).collect();
        let outputs: Vec<&(String, String)> = self
            .ops
            .iter()
            .filter(|o| !o.is_const)
            .flat_map(|o| o.defs.iter())
            .collect();
        if outputs.is_empty() {
            return None;
        }
        let names = outputs.iter().map(|o| o.0.clone()).collect();
        Some((self.render(&kept, args, &outputs), names))
    }

    /// The module of the ops `keep` (indices into `ops`), or None when it
    /// would have no result; with the value each argument of the module
    /// stands for (`in0`, `in1`, ...), in order.
    pub fn build_args(&self, keep: &[usize]) -> Option<(String, Vec<String>)> {
        let keep_set: HashSet<usize> = keep.iter().copied().collect();
        let used_names: HashSet<&str> = keep
            .iter()
            .flat_map(|&i| self.ops[i].uses.iter().map(|u| u.0.as_str()))
            .collect();
        let consts: Vec<usize> = (0..self.ops.len())
            .filter(|&i| {
                self.ops[i].is_const
                    && self.ops[i]
                        .defs
                        .iter()
                        .any(|d| used_names.contains(d.0.as_str()))
            })
            .collect();
        let mut kept: Vec<usize> = keep_set.iter().copied().chain(consts).collect();
        kept.sort_unstable();
        let defined: HashSet<&str> = kept
            .iter()
            .flat_map(|&i| self.ops[i].defs.iter().map(|d| d.0.as_str()))
            .collect();
        let mut args: Vec<(String, String)> = Vec::new();
        for &i in &kept {
            for u in &self.ops[i].uses {
                if !defined.contains(u.0.as_str()) && !args.contains(u) {
                    args.push(u.clone());
                }
            }
        }
        let outputs: Vec<&(String, String)> = keep
            .iter()
            .flat_map(|&i| self.ops[i].defs.iter())
            .filter(|d| !used_names.contains(d.0.as_str()))
            .collect();
        if outputs.is_empty() {
            return None;
        }
        let names = args.iter().map(|a| a.0.clone()).collect();
        Some((self.render(&kept, &args, &outputs), names))
    }

    fn render(
        &self,
        kept: &[usize],
        args: &[(String, String)],
        outputs: &[&(String, String)],
    ) -> String {
        let rename: BTreeMap<&str, String> = args
            .iter()
            .enumerate()
            .map(|(i, a)| (a.0.as_str(), format!("%in{i}")))
            .collect();
        let mut body = String::new();
        for &i in kept {
            // Each op keeps its location (the model's source line), so a
            // pattern that fails because of where an op came from still
            // fails on the reproducer, and its diagnostics point there.
            body += &format!(
                "    {} {}\n",
                rename_values(&self.ops[i].text, &rename),
                self.ops[i].location
            );
        }
        let sig: Vec<String> = args
            .iter()
            .enumerate()
            .map(|(i, a)| format!("%in{i}: {} {{coreai.name = \"in{i}\"}}", a.1))
            .collect();
        let res: Vec<String> = outputs
            .iter()
            .enumerate()
            .map(|(i, o)| format!("{} {{coreai.name = \"out{i}\"}}", o.1))
            .collect();
        let names: Vec<String> = outputs
            .iter()
            .map(|o| rename_values(&o.0, &rename))
            .collect();
        let types: Vec<&str> = outputs.iter().map(|o| o.1.as_str()).collect();
        let terminator = if self.graph_kind == "coreai.graph" {
            "coreai.output"
        } else {
            "func.return"
        };
        let mut text = String::from("module {\n");
        for sym in self.callees_of(kept) {
            if let Some((t, _)) = self.symbols.get(&sym) {
                text += &format!("  {t}\n");
            }
        }
        text += &format!(
            "  {} @main({}) -> ({}) {{\n{body}    {terminator} {} : {}\n  }}\n}}\n",
            self.graph_kind,
            sig.join(", "),
            res.join(", "),
            names.join(", "),
            types.join(", ")
        );
        let blobs: Vec<&String> = self
            .resources
            .iter()
            .filter(|(name, _)| text.contains(&format!("dense_resource<{name}>")))
            .map(|(_, line)| line)
            .collect();
        if !blobs.is_empty() {
            let lines: Vec<String> = blobs.iter().map(|l| format!("      {l}")).collect();
            text += &format!(
                "\n{{-#\n  dialect_resources: {{\n    builtin: {{\n{}\n    }}\n  }}\n#-}}\n",
                lines.join(",\n")
            );
        }
        text
    }

    /// The symbols the ops `kept` invoke, transitively.
    fn callees_of(&self, kept: &[usize]) -> Vec<String> {
        let mut todo: Vec<String> = kept
            .iter()
            .flat_map(|&i| self.ops[i].callees.clone())
            .collect();
        let mut seen: Vec<String> = Vec::new();
        while let Some(s) = todo.pop() {
            if seen.contains(&s) {
                continue;
            }
            if let Some((_, more)) = self.symbols.get(&s) {
                todo.extend(more.iter().cloned());
            }
            seen.push(s);
        }
        seen.sort();
        seen
    }
}

/// Replaces whole SSA value tokens (`%5`, `%5#1`, `%arg0`) by `map`.
pub fn rename_values(text: &str, map: &BTreeMap<&str, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut end = i + 1;
        while let Some(&(j, d)) = chars.peek() {
            if d.is_ascii_alphanumeric() || "_#.$-".contains(d) {
                end = j + d.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        let token = &text[i..end];
        match map.get(token) {
            Some(new) => out.push_str(new),
            None => out.push_str(token),
        }
    }
    out
}
