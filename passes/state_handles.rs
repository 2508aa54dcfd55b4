//! `state-handles`: coreai → coreai. Turns a graph's states from tensors
//! passed in and returned into `!coreai.handle`s the runtime holds, the form
//! coreai-core's runtime and Swift runners bind with `state=` (a KV cache
//! lives across calls without being copied in and out).
//!
//! The importer marks a state as an argument and a result with
//! `coreai.state` and the same `coreai.name` (a buffer or a forward argument
//! mutated in place); the graph computes the new value from the old one.
//! The pass rewrites each such pair as coreai-torch writes a converter's
//! `state_names`, op for op:
//!
//!   %arg: T {coreai.name = "s", coreai.state}     %arg: !coreai.handle<T> {MutableBuffers.buffer_mutation = "s", coreai.name = "s"}
//!   ... uses of %arg ...                      →   %t = coreai.create_token
//!   output %new_s (result "s", coreai.state)      %v, %t1 = coreai.read_handle %arg, %t   (at the start; %v replaces %arg)
//!                                                 %t2 = coreai.write_handle %arg, %new_s, %t1   (before the output)
//!                                                 output %t2, <the other results>
//!
//! The token results come first, one per state in argument order and named
//! after it; the other results keep their order and names. Each state's
//! write is ordered after its own read only: the graph computes the new
//! value from the value read, so no other order is observable.
//!
//! Runs last in every target's pipeline (before `set-hw-constraints`, which
//! constrains handles through their reads and writes), so no other pass
//! sees handles. A graph without `coreai.state` is unchanged. A state
//! argument without exactly one state result of its name and type (or the
//! reverse) is one error at the graph; nothing is changed.

use coreai_ir::op::{attr, coreai};
use coreai_ir::raw::{
    self, attr_str, attribute, create, op_name, results, set_function_type, type_text, uses,
};
use coreai_ir::{
    pass::{Pass, PassFailed, PassInfo, PassResult},
    rewrite::RewriteOptions,
};
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::{MlirAttribute, MlirNamedAttribute, MlirOperation, MlirType};

pub const INFO: PassInfo = PassInfo {
    name: "state-handles",
    summary: "Turn coreai.state arguments and results into !coreai.handle states read and written through tokens, the form coreai-core's runtime binds with state=",
    source: include_str!("state_handles.rs"),
    anchor: None,
    options: &[],
    create: || Box::new(StateHandles),
};

#[derive(Clone, Default)]
struct StateHandles;

impl Pass for StateHandles {
    fn set_option(&mut self, name: &str, _: &str) -> Result<(), String> {
        Err(format!("state-handles has no option '{name}'"))
    }

    fn run(&mut self, root: OperationRef<'_, '_>, _: &RewriteOptions) -> PassResult {
        let mut graphs = Vec::new();
        root.walk(WalkOrder::PreOrder, |op| {
            if op_name(op.to_raw()) == coreai::GRAPH {
                graphs.push(op.to_raw());
            }
            WalkResult::Advance
        });
        let mut failed = false;
        for graph in graphs {
            let rewritten = plan(graph)
                .and_then(|states| states.map_or(Ok(()), |states| rewrite(graph, &states)));
            if let Err(message) = rewritten {
                raw::emit_error(graph, &format!("state-handles: {message}"));
                failed = true;
            }
        }
        if failed {
            Err(PassFailed)
        } else {
            Ok(())
        }
    }
}

/// One state: its argument, its result, its name and tensor type.
struct State {
    arg: usize,
    result: usize,
    name: String,
    ty: MlirType,
}

/// The `attr` (`arg_attrs`/`res_attrs`) dictionary of entry `i`, if any.
fn entry(graph: MlirOperation, attr: &str, i: usize) -> Option<MlirAttribute> {
    let d = raw::array_element(attribute(graph, attr)?, i)?;
    raw::is_dictionary(d).then_some(d)
}

fn field(dict: Option<MlirAttribute>, name: &str) -> Option<MlirAttribute> {
    raw::dict_entry(dict?, name)
}

/// The states of `graph` paired by name, `None` when it has none.
fn plan(graph: MlirOperation) -> Result<Option<Vec<State>>, String> {
    let (ins, outs) = raw::signature(graph).ok_or("no function_type")?;
    let named = |attr: &str, count: usize| -> Vec<(usize, Option<String>)> {
        (0..count)
            .filter(|&i| field(entry(graph, attr, i), attr::STATE).is_some())
            .map(|i| {
                (
                    i,
                    field(entry(graph, attr, i), attr::NAME).and_then(attr_str),
                )
            })
            .collect()
    };
    let args = named("arg_attrs", ins.len());
    let mut state_results = named("res_attrs", outs.len());
    if args.is_empty() && state_results.is_empty() {
        return Ok(None);
    }
    let mut states = Vec::new();
    for (arg, name) in args {
        let name = name.ok_or_else(|| format!("state argument #{arg} has no coreai.name"))?;
        let at = state_results
            .iter()
            .position(|(_, n)| n.as_deref() == Some(name.as_str()))
            .ok_or_else(|| format!("state '{name}' (argument #{arg}) is not returned"))?;
        let (result, _) = state_results.remove(at);
        let ty = ins[arg];
        if !raw::same_type(ty, outs[result]) {
            return Err(format!(
                "state '{name}' is passed in as {} and returned as {}",
                type_text(ty),
                type_text(outs[result])
            ));
        }
        if !raw::is_ranked_tensor(ty) {
            return Err(format!(
                "state '{name}' is a {}, not a tensor",
                type_text(ty)
            ));
        }
        states.push(State {
            arg,
            result,
            name,
            ty,
        });
    }
    if let Some((result, name)) = state_results.first() {
        return Err(format!(
            "state result #{result} ('{}') has no state argument of its name",
            name.as_deref().unwrap_or("unnamed")
        ));
    }
    Ok(Some(states))
}

/// The entries of dictionary `d` except `drop`, then `extra`, in `graph`'s
/// context.
fn dictionary(
    graph: MlirOperation,
    d: Option<MlirAttribute>,
    drop: &[&str],
    extra: Vec<MlirNamedAttribute>,
) -> MlirAttribute {
    let mut entries: Vec<MlirNamedAttribute> = extra;
    for e in d.map(raw::dict_entries).unwrap_or_default() {
        let name = raw::entry_name(e);
        if !drop.contains(&name.as_str()) && !entries.iter().any(|x| raw::entry_name(*x) == name) {
            entries.push(e);
        }
    }
    raw::dictionary(graph, &entries)
}

fn rewrite(graph: MlirOperation, states: &[State]) -> Result<(), String> {
    let location = raw::location(graph);
    let body = raw::entry_block(graph).ok_or("the graph has no body")?;
    let output = raw::terminator(body);
    let token_ty = raw::parse_type(graph, "!coreai.token").ok_or("no !coreai.token type")?;
    let token = create(coreai::CREATE_TOKEN, location, &[], &[token_ty], &[]);
    raw::insert_at_start(body, token);
    let token = raw::result(token, 0);
    let (mut ins, outs) = raw::signature(graph).ok_or("no function_type")?;
    let args = raw::arguments(body);
    let mut written = Vec::new();
    for (k, s) in states.iter().enumerate() {
        let arg = args[s.arg];
        let handle_ty = raw::parse_type(graph, &format!("!coreai.handle<{}>", type_text(s.ty)))
            .ok_or("cannot build the handle type")?;
        let users = uses(arg);
        raw::set_argument_type(arg, handle_ty);
        ins[s.arg] = handle_ty;
        let read = create(
            coreai::READ_HANDLE,
            raw::value_location(arg),
            &[arg, token],
            &[s.ty, token_ty],
            &[],
        );
        raw::insert_at(body, 1 + k, read);
        let [value, read_token] = results(read)[..] else {
            unreachable!("read_handle has two results")
        };
        for (user, operand) in users {
            raw::set_operand(user, operand, value);
        }
        let new_value = raw::operand(output, s.result);
        let write = create(
            coreai::WRITE_HANDLE,
            raw::location(output),
            &[arg, new_value, read_token],
            &[token_ty],
            &[],
        );
        raw::insert_before(output, write);
        written.push(raw::result(write, 0));
    }
    // The new output: the tokens, then the results that are not states.
    let kept: Vec<usize> = (0..outs.len())
        .filter(|r| !states.iter().any(|s| s.result == *r))
        .collect();
    let mut operands = written.clone();
    operands.extend(kept.iter().map(|&r| raw::operand(output, r)));
    let new_output = create(coreai::OUTPUT, raw::location(output), &operands, &[], &[]);
    raw::insert_before(output, new_output);
    raw::erase(output);
    let mut result_types: Vec<MlirType> = vec![token_ty; states.len()];
    result_types.extend(kept.iter().map(|&r| outs[r]));
    set_function_type(graph, &ins, &result_types);
    // Attributes: a state argument trades `coreai.state` for
    // coreai-torch's `MutableBuffers.buffer_mutation`; each token is
    // named after its state.
    let arg_attrs: Vec<MlirAttribute> = (0..ins.len())
        .map(|i| match states.iter().find(|s| s.arg == i) {
            Some(s) => dictionary(
                graph,
                entry(graph, "arg_attrs", i),
                &[attr::STATE],
                vec![raw::named(
                    graph,
                    "MutableBuffers.buffer_mutation",
                    raw::string_attr(graph, &s.name),
                )],
            ),
            None => {
                entry(graph, "arg_attrs", i).unwrap_or_else(|| dictionary(graph, None, &[], vec![]))
            }
        })
        .collect();
    let mut res_attrs: Vec<MlirAttribute> = states
        .iter()
        .map(|s| {
            dictionary(
                graph,
                None,
                &[],
                vec![raw::named(
                    graph,
                    attr::NAME,
                    raw::string_attr(graph, &s.name),
                )],
            )
        })
        .collect();
    res_attrs.extend(kept.iter().map(|&r| {
        entry(graph, "res_attrs", r).unwrap_or_else(|| dictionary(graph, None, &[], vec![]))
    }));
    for (name, list) in [("arg_attrs", arg_attrs), ("res_attrs", res_attrs)] {
        raw::set_attribute(graph, name, raw::array(graph, &list));
    }
    Ok(())
}
