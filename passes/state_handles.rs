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

use crate::cast_to_f16::ir::{
    attr_str, attribute, create, op_name, results, set_function_type, uses,
};
use coreai_ir::dialects::coreai::{
    CreateTokenOperation, GraphOperation, OutputOperation, ReadHandleOperation,
    WriteHandleOperation,
};
use coreai_ir::op::attr;
use coreai_ir::{
    diagnostics::emit_error,
    ffi::{printed, string_ref, string_ref_bytes},
    pass::{Pass, PassFailed, PassInfo, PassResult},
    rewrite::RewriteOptions,
};
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::*;

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
            if op_name(op.to_raw()) == GraphOperation::name() {
                graphs.push(op.to_raw());
            }
            WalkResult::Advance
        });
        let mut failed = false;
        for graph in graphs {
            let planned = plan(graph);
            match planned {
                Ok(Some(states)) => rewrite(graph, &states),
                Ok(None) => {}
                Err(message) => {
                    let op = unsafe { OperationRef::from_raw(graph) };
                    emit_error(op, &format!("state-handles: {message}"));
                    failed = true;
                }
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
    let array = attribute(graph, attr)?;
    unsafe {
        if !mlirAttributeIsAArray(array) || i as isize >= mlirArrayAttrGetNumElements(array) {
            return None;
        }
        let d = mlirArrayAttrGetElement(array, i as isize);
        mlirAttributeIsADictionary(d).then_some(d)
    }
}

fn field(dict: Option<MlirAttribute>, name: &str) -> Option<MlirAttribute> {
    let a = unsafe { mlirDictionaryAttrGetElementByName(dict?, string_ref(name)) };
    (!a.ptr.is_null()).then_some(a)
}

fn type_text(ty: MlirType) -> String {
    printed(|cb, data| unsafe { mlirTypePrint(ty, cb, data) })
}

fn function_type(graph: MlirOperation) -> (Vec<MlirType>, Vec<MlirType>) {
    unsafe {
        let fty = mlirTypeAttrGetValue(attribute(graph, "function_type").expect("a function_type"));
        (
            (0..mlirFunctionTypeGetNumInputs(fty))
                .map(|i| mlirFunctionTypeGetInput(fty, i))
                .collect(),
            (0..mlirFunctionTypeGetNumResults(fty))
                .map(|i| mlirFunctionTypeGetResult(fty, i))
                .collect(),
        )
    }
}

/// The states of `graph` paired by name, `None` when it has none.
fn plan(graph: MlirOperation) -> Result<Option<Vec<State>>, String> {
    let (ins, outs) = function_type(graph);
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
        if !unsafe { mlirTypeEqual(ty, outs[result]) } {
            return Err(format!(
                "state '{name}' is passed in as {} and returned as {}",
                type_text(ty),
                type_text(outs[result])
            ));
        }
        if !unsafe { mlirTypeIsARankedTensor(ty) } {
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

fn named_attr(ctx: MlirContext, name: &str, value: MlirAttribute) -> MlirNamedAttribute {
    unsafe { mlirNamedAttributeGet(mlirIdentifierGet(ctx, string_ref(name)), value) }
}

fn string_attr(ctx: MlirContext, s: &str) -> MlirAttribute {
    unsafe { mlirStringAttrGet(ctx, string_ref(s)) }
}

/// The entries of dictionary `d` except `drop`, then `extra`.
fn dictionary(
    ctx: MlirContext,
    d: Option<MlirAttribute>,
    drop: &[&str],
    extra: Vec<MlirNamedAttribute>,
) -> MlirAttribute {
    let mut entries: Vec<MlirNamedAttribute> = extra;
    if let Some(d) = d {
        for i in 0..unsafe { mlirDictionaryAttrGetNumElements(d) } {
            let e = unsafe { mlirDictionaryAttrGetElement(d, i) };
            let name =
                String::from_utf8_lossy(&unsafe { string_ref_bytes(mlirIdentifierStr(e.name)) })
                    .into_owned();
            if !drop.contains(&name.as_str())
                && !entries
                    .iter()
                    .any(|x| unsafe { mlirIdentifierEqual(x.name, e.name) })
            {
                entries.push(e);
            }
        }
    }
    unsafe { mlirDictionaryAttrGet(ctx, entries.len() as isize, entries.as_ptr()) }
}

fn rewrite(graph: MlirOperation, states: &[State]) {
    unsafe {
        let ctx = mlirOperationGetContext(graph);
        let location = mlirOperationGetLocation(graph);
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(graph, 0));
        let output = mlirBlockGetTerminator(body);
        let token_ty = mlirTypeParseGet(ctx, string_ref("!coreai.token"));
        let token = create(
            CreateTokenOperation::name(),
            location,
            &[],
            &[token_ty],
            &[],
        );
        mlirBlockInsertOwnedOperation(body, 0, token);
        let token = mlirOperationGetResult(token, 0);
        let (mut ins, outs) = function_type(graph);
        let mut written = Vec::new();
        for (k, s) in states.iter().enumerate() {
            let arg = mlirBlockGetArgument(body, s.arg as isize);
            let handle_ty = mlirTypeParseGet(
                ctx,
                string_ref(&format!("!coreai.handle<{}>", type_text(s.ty))),
            );
            let users = uses(arg);
            mlirBlockArgumentSetType(arg, handle_ty);
            ins[s.arg] = handle_ty;
            let read = create(
                ReadHandleOperation::name(),
                mlirValueGetLocation(arg),
                &[arg, token],
                &[s.ty, token_ty],
                &[],
            );
            mlirBlockInsertOwnedOperation(body, 1 + k as isize, read);
            let [value, read_token] = results(read)[..] else {
                unreachable!("read_handle has two results")
            };
            for (user, operand) in users {
                mlirOperationSetOperand(user, operand as isize, value);
            }
            let new_value = mlirOperationGetOperand(output, s.result as isize);
            let write = create(
                WriteHandleOperation::name(),
                mlirOperationGetLocation(output),
                &[arg, new_value, read_token],
                &[token_ty],
                &[],
            );
            mlirBlockInsertOwnedOperationBefore(body, output, write);
            written.push(mlirOperationGetResult(write, 0));
        }
        // The new output: the tokens, then the results that are not states.
        let kept: Vec<usize> = (0..outs.len())
            .filter(|r| !states.iter().any(|s| s.result == *r))
            .collect();
        let mut operands = written.clone();
        operands.extend(
            kept.iter()
                .map(|&r| mlirOperationGetOperand(output, r as isize)),
        );
        let new_output = create(
            OutputOperation::name(),
            mlirOperationGetLocation(output),
            &operands,
            &[],
            &[],
        );
        mlirBlockInsertOwnedOperationBefore(body, output, new_output);
        mlirOperationDestroy(output);
        let mut result_types: Vec<MlirType> = vec![token_ty; states.len()];
        result_types.extend(kept.iter().map(|&r| outs[r]));
        set_function_type(graph, &ins, &result_types);
        // Attributes: a state argument trades `coreai.state` for
        // coreai-torch's `MutableBuffers.buffer_mutation`; each token is
        // named after its state.
        let arg_attrs: Vec<MlirAttribute> = (0..ins.len())
            .map(|i| match states.iter().find(|s| s.arg == i) {
                Some(s) => dictionary(
                    ctx,
                    entry(graph, "arg_attrs", i),
                    &[attr::STATE],
                    vec![named_attr(
                        ctx,
                        "MutableBuffers.buffer_mutation",
                        string_attr(ctx, &s.name),
                    )],
                ),
                None => entry(graph, "arg_attrs", i)
                    .unwrap_or_else(|| dictionary(ctx, None, &[], vec![])),
            })
            .collect();
        let mut res_attrs: Vec<MlirAttribute> = states
            .iter()
            .map(|s| {
                dictionary(
                    ctx,
                    None,
                    &[],
                    vec![named_attr(ctx, attr::NAME, string_attr(ctx, &s.name))],
                )
            })
            .collect();
        res_attrs.extend(kept.iter().map(|&r| {
            entry(graph, "res_attrs", r).unwrap_or_else(|| dictionary(ctx, None, &[], vec![]))
        }));
        for (name, list) in [("arg_attrs", arg_attrs), ("res_attrs", res_attrs)] {
            let array = mlirArrayAttrGet(ctx, list.len() as isize, list.as_ptr());
            mlirOperationSetAttributeByName(graph, string_ref(name), array);
        }
    }
}
