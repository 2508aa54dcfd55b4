//! `set-hw-constraints`: coreai → coreai. Gives named inputs and outputs
//! of a graph a `#coreaix.hw_constraints` encoding (the backing allocation,
//! per-dimension alignments and interleave), the counterpart of coreai-core's
//! `AIProgram.set_hardware_constraints` and what `coreai-compile
//! --hw-constraints` runs last. Conversion guide §7.7: Apple's own models
//! use IOSurface `alignments [1,1,32,1], interleave [1,1,1]` for RoPE
//! caches and `alignments [1,1,1,1], interleave [8,1,1]` for embedding
//! tables; the values are the user's, checked by the encoding's verifier
//! (alignments: rank + 1 entries, interleave: rank entries, at most one
//! factor other than 1, each dividing its dimension).
//!
//! The IR it produces is coreai-core's, op for op:
//!   - a constrained tensor input gets the encoding on its type, and the
//!     body reads it through `coreaix.copy_discarding_constraints`, placed
//!     at the start of the body in argument order;
//!   - a constrained tensor output is returned through
//!     `coreaix.copy_with_constraints`, placed before `coreai.output`;
//!   - a `!coreai.handle` input carries the encoding on the tensor it wraps:
//!     each `coreai.read_handle` of it yields the constrained tensor and is
//!     followed by a `copy_discarding_constraints`, each `coreai.write_handle`
//!     to it is given a `copy_with_constraints` of the value written.
//!
//! Options: `graph` (default `main`) and `constraints`, a comma-separated
//! list of `NAME=BACKING:ALIGNMENTS:INTERLEAVE` with NAME an input's or
//! output's `coreai.name`, BACKING `MTLBuffer`, `IOSurface` or `Heap` and
//! the two lists written as in the attribute (`1x1x32x1`), e.g.
//! `constraints=x=IOSurface:1x1x32x1:1x1x1`.
//!
//! Preconditions: verified coreai IR whose graph's inputs and outputs carry
//! no encoding yet. A name that is no input or output of the graph, a value
//! that is not a ranked tensor or a handle of one, an input that is already
//! constrained, or a use of a constrained handle other than a read or a
//! write is one error at the graph; nothing is changed. No pass after it
//! in `coreai-compile` looks through the copies.

use coreai_ir::op::{attr, coreai, coreaix};
use coreai_ir::options::list_items;
use coreai_ir::raw::{
    self, attr_str, attribute, create, op_name, parse_type, set_function_type, type_text, uses,
    value_type,
};
use coreai_ir::{
    diagnostics::emit_error,
    pass::{Pass, PassFailed, PassInfo, PassResult},
    rewrite::RewriteOptions,
};
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::{MlirOperation, MlirType};

pub const INFO: PassInfo = PassInfo {
    name: "set-hw-constraints",
    summary: "Give named graph inputs and outputs a #coreaix.hw_constraints encoding, with the copies coreai-core's set_hardware_constraints inserts",
    source: include_str!("set_hw_constraints.rs"),
    anchor: None,
    options: SetHwConstraints::OPTIONS,
    create: || Box::new(SetHwConstraints::default()),
};

/// Checks one `NAME=BACKING:ALIGNMENTS:INTERLEAVE` item of the
/// `constraints` option (for a driver's own flag); the error says what is
/// wrong with it. The shape is checked when the pass runs.
pub fn check_item(text: &str) -> Result<(), String> {
    Constraint::parse(text).map(drop)
}

/// One `NAME=BACKING:ALIGNMENTS:INTERLEAVE`.
#[derive(Clone, Debug, PartialEq)]
struct Constraint {
    name: String,
    backing: String,
    alignments: Vec<i64>,
    interleave: Vec<i64>,
}

impl Constraint {
    fn parse(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "'{text}': expected NAME=BACKING:ALIGNMENTS:INTERLEAVE \
                 (e.g. x=IOSurface:1x1x32x1:1x1x1)"
            )
        };
        let (name, spec) = text.split_once('=').ok_or_else(bad)?;
        let parts: Vec<&str> = spec.split(':').collect();
        let [backing, alignments, interleave] = parts.as_slice() else {
            return Err(bad());
        };
        if name.is_empty() {
            return Err(bad());
        }
        if !matches!(*backing, "MTLBuffer" | "IOSurface" | "Heap") {
            return Err(format!(
                "'{text}': the backing '{backing}' is not MTLBuffer, IOSurface or Heap"
            ));
        }
        let dims = |list: &str| -> Result<Vec<i64>, String> {
            list.split('x')
                .map(|d| d.parse::<i64>().ok().filter(|d| (1..=1 << 20).contains(d)))
                .collect::<Option<Vec<i64>>>()
                .ok_or_else(|| {
                    format!("'{text}': '{list}' is not a list of positive integers like 1x1x32x1")
                })
        };
        Ok(Self {
            name: name.to_string(),
            backing: backing.to_string(),
            alignments: dims(alignments)?,
            interleave: dims(interleave)?,
        })
    }

    /// The attribute as coreai-core spells it.
    fn assembly(&self) -> String {
        let join = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join("x");
        format!(
            "#coreaix.hw_constraints<{}, alignments: [{}], interleave: [{}]>",
            self.backing,
            join(&self.alignments),
            join(&self.interleave)
        )
    }
}

coreai_ir::pass_options! {
    struct SetHwConstraints {
        "graph" => graph: String = "main",
            "the coreai.graph whose inputs and outputs are constrained";
        "constraints" => constraints: Vec<Constraint> = "",
            "comma-separated NAME=BACKING:ALIGNMENTS:INTERLEAVE (e.g. x=IOSurface:1x1x32x1:1x1x1), NAME an input's or output's coreai.name, BACKING MTLBuffer, IOSurface or Heap",
            parse = parse_constraints;
    }
}

/// `constraints=`: comma-separated items, each name at most once.
fn parse_constraints(value: &str) -> Result<Vec<Constraint>, String> {
    let constraints = list_items(value)
        .map(Constraint::parse)
        .collect::<Result<Vec<_>, _>>()?;
    let mut names: Vec<&str> = constraints.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("'{}' is constrained twice", w[0]));
    }
    Ok(constraints)
}

impl Pass for SetHwConstraints {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, _: &RewriteOptions) -> PassResult {
        if self.constraints.is_empty() {
            return Ok(());
        }
        let Some(graph) = find_graph(root, &self.graph) else {
            emit_error(
                root,
                &format!("set-hw-constraints: no coreai.graph @{}", self.graph),
            );
            return Err(PassFailed);
        };
        // An empty message: the encoding's verifier has reported it.
        let graph_name = &self.graph;
        let fail = |m: String| {
            if !m.is_empty() {
                raw::emit_error(graph, &format!("set-hw-constraints: @{graph_name}: {m}"));
            }
            PassFailed
        };
        let plan = plan(graph, &self.constraints).map_err(fail)?;
        apply(graph, &plan).map_err(fail)
    }
}

/// The `coreai.graph` named `name`, anywhere in the module.
fn find_graph(root: OperationRef<'_, '_>, name: &str) -> Option<MlirOperation> {
    let mut found = None;
    root.walk(WalkOrder::PreOrder, |op| {
        let raw = op.to_raw();
        if op_name(raw) == coreai::GRAPH
            && attribute(raw, "sym_name").and_then(attr_str).as_deref() == Some(name)
        {
            found = Some(raw);
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found
}

/// What to change: per input and per output index, the encoded type
/// (of the tensor, or of the handle's tensor) and whether it is a handle.
struct Plan {
    inputs: Vec<(usize, Retyped)>,
    outputs: Vec<(usize, Retyped)>,
}

struct Retyped {
    /// The new type of the input or output itself.
    outer: MlirType,
    /// The constrained tensor type (the handle's inner type for a handle).
    tensor: MlirType,
    handle: bool,
}

/// The `coreai.name` of each entry of the graph's `attr` (`arg_attrs` or
/// `res_attrs`), `None` where there is none.
fn io_names(graph: MlirOperation, attr: &str, count: usize) -> Vec<Option<String>> {
    let attrs = attribute(graph, attr);
    (0..count)
        .map(|i| {
            let dict = attrs.and_then(|a| raw::array_element(a, i))?;
            raw::dict_entry(dict, attr::NAME).and_then(attr_str)
        })
        .collect()
}

fn plan(graph: MlirOperation, constraints: &[Constraint]) -> Result<Plan, String> {
    let (input_types, output_types) = raw::signature(graph).ok_or("no function_type")?;
    let inputs = io_names(graph, "arg_attrs", input_types.len());
    let outputs = io_names(graph, "res_attrs", output_types.len());
    let mut plan = Plan {
        inputs: Vec::new(),
        outputs: Vec::new(),
    };
    for c in constraints {
        let named = |names: &[Option<String>]| -> Vec<usize> {
            (0..names.len())
                .filter(|i| names[*i].as_deref() == Some(c.name.as_str()))
                .collect()
        };
        let ins = named(&inputs);
        let outs = named(&outputs);
        if ins.is_empty() && outs.is_empty() {
            let list = |names: &[Option<String>]| {
                let named: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
                if named.is_empty() {
                    "none".to_string()
                } else {
                    named.join(", ")
                }
            };
            return Err(format!(
                "no input or output named '{}' (inputs: {}; outputs: {})",
                c.name,
                list(&inputs),
                list(&outputs)
            ));
        }
        // As coreai-core: every input and output of that name, except
        // those of other types (the `!coreai.token` a stateful graph
        // returns under its handle's name).
        let mut any = false;
        for (indices, is_input) in [(ins, true), (outs, false)] {
            for i in indices {
                let ty = if is_input {
                    input_types[i]
                } else {
                    output_types[i]
                };
                if type_text(ty).starts_with("!coreai.token") {
                    continue;
                }
                any = true;
                let retyped = retype(graph, ty, c)?;
                if is_input {
                    plan.inputs.push((i, retyped));
                } else {
                    plan.outputs.push((i, retyped));
                }
            }
        }
        if !any {
            return Err(format!("'{}' names only tokens", c.name));
        }
    }
    plan.inputs.sort_by_key(|(i, _)| *i);
    plan.outputs.sort_by_key(|(i, _)| *i);
    Ok(plan)
}

/// `ty` (a ranked tensor, or a handle of one) with `c`'s encoding; the
/// encoding's verifier reports a bad shape at the graph.
fn retype(graph: MlirOperation, ty: MlirType, c: &Constraint) -> Result<Retyped, String> {
    let text = type_text(ty);
    let (handle, tensor) = match text
        .strip_prefix("!coreai.handle<")
        .and_then(|t| t.strip_suffix('>'))
    {
        Some(inner) => (true, parse_type(graph, inner).ok_or("bad handle type")?),
        None => (false, ty),
    };
    if !raw::is_ranked_tensor(tensor) {
        return Err(format!(
            "'{}' is a {text}, not a ranked tensor or a handle of one",
            c.name
        ));
    }
    if raw::encoding(tensor).is_some() {
        return Err(format!("'{}' already has an encoding ({text})", c.name));
    }
    let encoding = raw::parse_attribute(graph, &c.assembly())
        .ok_or_else(|| format!("'{}': cannot build {}", c.name, c.assembly()))?;
    // Else the encoding's verifier has said why, at the graph.
    let constrained =
        raw::with_encoding(tensor, encoding, raw::location(graph)).ok_or_else(String::new)?;
    let outer = if handle {
        parse_type(
            graph,
            &format!("!coreai.handle<{}>", type_text(constrained)),
        )
        .ok_or("cannot build the constrained handle type")?
    } else {
        constrained
    };
    Ok(Retyped {
        outer,
        tensor: constrained,
        handle,
    })
}

/// Changes the graph as `plan` says; checks every use of a constrained
/// handle before changing anything.
fn apply(graph: MlirOperation, plan: &Plan) -> Result<(), String> {
    let body = raw::entry_block(graph).ok_or("the graph has no body")?;
    let location = raw::location(graph);
    let args = raw::arguments(body);
    for (i, r) in plan.inputs.iter().filter(|(_, r)| r.handle) {
        let arg = args[*i];
        for (user, operand) in uses(arg) {
            let name = op_name(user);
            if !(operand == 0
                && matches!(name.as_str(), coreai::READ_HANDLE | coreai::WRITE_HANDLE))
            {
                return Err(format!(
                    "input {i} ({}) is used by '{name}'; only coreai.read_handle and \
                     coreai.write_handle of a constrained handle are rewritten",
                    type_text(r.outer)
                ));
            }
        }
    }
    let mut inserted = 0;
    for (i, r) in &plan.inputs {
        let arg = args[*i];
        let plain = value_type(arg);
        if r.handle {
            let users = uses(arg);
            raw::set_argument_type(arg, r.outer);
            for (user, _) in users {
                if op_name(user) == coreai::READ_HANDLE {
                    discard_after_read(user, r.tensor);
                } else {
                    constrain_written(user, r.tensor);
                }
            }
            continue;
        }
        raw::set_argument_type(arg, r.outer);
        let copy = create(
            coreaix::COPY_DISCARDING_CONSTRAINTS,
            location,
            &[arg],
            &[plain],
            &[],
        );
        raw::insert_at(body, inserted, copy);
        inserted += 1;
        raw::replace_all_uses_except(arg, raw::result(copy, 0), &[copy]);
    }
    let terminator = raw::terminator(body);
    for (i, r) in &plan.outputs {
        if r.handle {
            continue;
        }
        let value = raw::operand(terminator, *i);
        let copy = create(
            coreaix::COPY_WITH_CONSTRAINTS,
            location,
            &[value],
            &[r.outer],
            &[],
        );
        raw::insert_before(terminator, copy);
        raw::set_operand(terminator, *i, raw::result(copy, 0));
    }
    let (mut ins, mut outs) = raw::signature(graph).ok_or("no function_type")?;
    for (i, r) in &plan.inputs {
        ins[*i] = r.outer;
    }
    for (i, r) in &plan.outputs {
        outs[*i] = r.outer;
    }
    set_function_type(graph, &ins, &outs);
    Ok(())
}

/// `read_handle` of a constrained handle: its tensor result becomes the
/// constrained type and the rest of the body reads a discarding copy.
fn discard_after_read(read: MlirOperation, tensor: MlirType) {
    let result = raw::result(read, 0);
    let plain = value_type(result);
    raw::set_value_type(result, tensor);
    let copy = create(
        coreaix::COPY_DISCARDING_CONSTRAINTS,
        raw::location(read),
        &[result],
        &[plain],
        &[],
    );
    raw::insert_after(read, copy);
    raw::replace_all_uses_except(result, raw::result(copy, 0), &[copy]);
}

/// `write_handle` to a constrained handle: the value written goes through
/// a `copy_with_constraints` placed before it.
fn constrain_written(write: MlirOperation, tensor: MlirType) {
    let value = raw::operand(write, 1);
    let copy = create(
        coreaix::COPY_WITH_CONSTRAINTS,
        raw::location(write),
        &[value],
        &[tensor],
        &[],
    );
    raw::insert_before(write, copy);
    raw::set_operand(write, 1, raw::result(copy, 0));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_parse_and_print_as_coreai_core_spells_them() {
        let c = Constraint::parse("x=IOSurface:1x1x32x1:1x1x1").unwrap();
        assert_eq!(
            c.assembly(),
            "#coreaix.hw_constraints<IOSurface, alignments: [1x1x32x1], interleave: [1x1x1]>"
        );
        for bad in [
            "x",
            "=MTLBuffer:1:1",
            "x=Texture:1x1:1",
            "x=MTLBuffer:1x0:1",
            "x=MTLBuffer:1x-1:1",
            "x=MTLBuffer:1x1",
            "x=MTLBuffer:1x1:1:1",
            "x=MTLBuffer:1xx1:1",
        ] {
            assert!(Constraint::parse(bad).is_err(), "{bad}");
        }
    }
}
