//! Outlining a recognised computation into a composite graph.
//!
//! ```text
//! %a = ...(%x, %w)  ...  %r = root(...)
//!   → coreai.graph private noinline @NAME(%arg0 {coreai.name = "input"}, ...)
//!         attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<...>}
//!         { clones of the matched ops on the arguments; coreai.output }
//!     %r = coreai.invoke @NAME(%x, %w)
//! ```
//!
//! The body is a clone of the matched ops (and of the constants they read),
//! so the composite computes exactly what the inline form did. A match is
//! outlined only when it is closed: every operand of a matched op is an
//! input of the composite, a result of a matched op, or a constant, and no
//! result of a matched op other than the root's is used outside the match.
//! (except the recognizer's `shared` ops, which stay in place with what
//! they read, their clones computing the composite).
//! The matched ops are marked [`DEAD`]; the pass erases them once the root
//! is replaced.

use coreai_ir::lowering::{float_literal, Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use melior::ir::{
    operation::{OperationLike, OperationRef},
    BlockLike, Value, ValueLike,
};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::{HashMap, HashSet};

/// The discardable attribute marking an op whose computation now lives in a
/// composite graph (erased by the pass after the sweep).
pub const DEAD: &str = "externalize_composites.outlined";

/// A value of the declaration's `op_attrs`, typed as coreai-torch types it.
#[derive(Clone, Debug, PartialEq)]
pub enum OpAttr {
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl OpAttr {
    pub fn text(&self) -> String {
        match self {
            OpAttr::Int(v) => format!("{v} : si64"),
            OpAttr::Float(v) => format!("{} : f32", float_literal(*v)),
            OpAttr::Bool(v) => v.to_string(),
        }
    }
}

/// A recognised call site: the composite it is and the ops it covers.
pub struct Outline<'c, 'a> {
    /// The declaration's name (`rms_norm`), also the graph's base name.
    pub decl: &'static str,
    /// The composite's inputs in declaration order: name and call-site value.
    pub inputs: Vec<(&'static str, Value<'c, 'a>)>,
    /// `op_attrs` without `version` (always 1).
    pub attrs: Vec<(&'static str, OpAttr)>,
    /// The matched ops, the root (`cx.op()`) included, in any order.
    pub ops: Vec<OperationRef<'c, 'a>>,
    /// Inputs passed in another form than the matched ops read them
    /// (RoPE's cos/sin, passed at half width and widened in the body).
    pub substitutes: Vec<Substitute>,
    /// Values the body reads as constants of these (proved) values instead
    /// of inputs (a causal mask computed from constants).
    pub baked: Vec<(Value<'c, 'a>, mlir_sys::MlirAttribute)>,
    /// Matched ops whose results may also be used outside the match
    /// (attention weights that are also an output): such an op and the
    /// matched ops it reads stay in place for those uses, and the body
    /// computes its own clone.
    pub shared: Vec<OperationRef<'c, 'a>>,
    /// The composite returns the result with a leading axis of 1 (3-D
    /// attention as the 4-D composite), dropped again at the call site.
    pub lift_result: bool,
}

/// A builder of one value from another, in front of the context's op.
pub type Reform =
    for<'c, 'a> fn(&LoweringCx<'c, 'a>, Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline>;

/// Input `input` is passed as `narrow(value)` (built at the call site), and
/// the body reads `widen(argument)` where the matched ops read the value.
pub struct Substitute {
    pub input: usize,
    pub narrow: Reform,
    pub widen: Reform,
}

/// The `#coreai.composite_declaration<...>` of a composite.
pub fn declaration(decl: &str, inputs: &[&str], attrs: &[(&str, OpAttr)]) -> String {
    let mut items: Vec<(&str, String)> = attrs.iter().map(|(k, v)| (*k, v.text())).collect();
    items.push(("version", "1 : si64".into()));
    items.sort_by(|a, b| a.0.cmp(b.0));
    let attrs: Vec<String> = items.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    let names: Vec<String> = inputs.iter().map(|n| format!("\"{n}\"")).collect();
    format!(
        "#coreai.composite_declaration<\"{decl}\" = {{input_names = [{}], op_attrs = {{{}}}, output_names = [\"output\"]}}>",
        names.join(", "),
        attrs.join(", ")
    )
}

fn name_of(op: &OperationRef<'_, '_>) -> String {
    op.name()
        .as_string_ref()
        .as_str()
        .map(str::to_string)
        .unwrap_or_default()
}

fn owner(v: MlirValue) -> Option<MlirOperation> {
    raw::producer(v)
}

/// Whether every use of `v` is an op of `set`.
fn used_only_by(v: MlirValue, set: &HashSet<*mut std::ffi::c_void>) -> bool {
    raw::users(v).all(|user| set.contains(&user.ptr))
}

/// The ops to clone into the body (the matched ops and the constants they
/// read, in program order), or why the match is not closed.
fn body_ops<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    outline: &Outline<'c, 'a>,
) -> Result<Vec<MlirOperation>, Decline> {
    let root = cx.op();
    let block = raw::block_of(root.to_raw());
    let matched: HashSet<_> = outline.ops.iter().map(|o| o.to_raw().ptr).collect();
    let shared: HashSet<_> = outline.shared.iter().map(|o| o.to_raw().ptr).collect();
    let inputs: HashSet<_> = outline
        .inputs
        .iter()
        .map(|(_, v)| v)
        .chain(outline.baked.iter().map(|(v, _)| v))
        .map(|v| v.to_raw().ptr)
        .collect();
    let mut constants: Vec<MlirOperation> = Vec::new();
    for op in &outline.ops {
        if raw::block_of(op.to_raw()).ptr != block.ptr {
            return Err("the matched ops are not in one block".into());
        }
        if op.to_raw().ptr != root.to_raw().ptr && !shared.contains(&op.to_raw().ptr) {
            for i in 0..op.result_count() {
                let r = op.result(i).map_err(|e| e.to_string())?;
                if !used_only_by(r.to_raw(), &matched) {
                    return Err(format!(
                        "the intermediate '{}' is also used outside the match",
                        name_of(op)
                    ));
                }
            }
        }
        for i in 0..op.operand_count() {
            let v = op.operand(i).map_err(|e| e.to_string())?.to_raw();
            if inputs.contains(&v.ptr) {
                continue;
            }
            match owner(v) {
                Some(o) if matched.contains(&o.ptr) => {}
                Some(o) if raw::op_name(o) == coreai::CONSTANT => {
                    if !constants.iter().any(|c| c.ptr == o.ptr) {
                        constants.push(o);
                    }
                }
                _ => {
                    return Err(format!(
                        "operand #{i} of '{}' comes from outside the match",
                        name_of(op)
                    ))
                }
            }
        }
    }
    let mut ops: Vec<MlirOperation> = outline.ops.iter().map(|o| o.to_raw()).collect();
    ops.sort_by(|a, b| {
        if a.ptr == b.ptr {
            std::cmp::Ordering::Equal
        } else if raw::is_before(*a, *b) {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Greater
        }
    });
    // A value two sub-patterns share (the pair reshape of interleaved RoPE) is listed twice.
    ops.dedup_by(|a, b| a.ptr == b.ptr);
    constants.extend(ops);
    Ok(constants)
}

/// Outlines `outline` (rooted at `cx.op()`) into a new composite graph and
/// returns the `coreai.invoke` replacing the root.
pub fn outline<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    outline: &Outline<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let ops = body_ops(cx, outline)?;
    let (anchor, module_block) = coreai_ir::symbols::top_level(cx.op().to_raw())?;
    let name = coreai_ir::symbols::unique_name(module_block, outline.decl);
    let root: Value = cx.op().result(0).map_err(|e| e.to_string())?.into();
    let result_type = if outline.lift_result {
        use crate::fp16_stabilize::pattern::{element, shape, tensor_type};
        let mut s = shape(root)?;
        s.insert(0, 1);
        tensor_type(&s, element(root)?)
    } else {
        root.r#type()
    };
    let mut operands: Vec<Value> = outline.inputs.iter().map(|(_, v)| *v).collect();
    for s in &outline.substitutes {
        operands[s.input] = (s.narrow)(cx, operands[s.input])?;
    }
    let names: Vec<&str> = outline.inputs.iter().map(|(n, _)| *n).collect();
    let inputs: Vec<(&str, _)> = names
        .iter()
        .zip(&operands)
        .map(|(n, v)| (*n, v.r#type()))
        .collect();
    let decl = declaration(outline.decl, &names, &outline.attrs);
    let graph =
        coreai_ir::emit::composite_graph(cx, &name, &inputs, result_type, Some(&decl), None)?;
    raw::insert_before(anchor, graph);
    if let Err(reason) = fill_body(cx, outline, graph, &ops) {
        raw::erase(graph);
        return Err(reason);
    }
    let kept = kept(outline);
    for op in &outline.ops {
        if op.to_raw().ptr != cx.op().to_raw().ptr && !kept.contains(&op.to_raw().ptr) {
            raw::set_unit_attribute(op.to_raw(), DEAD);
        }
    }
    let callee = cx.parse_attribute(&format!("#param.constant<@{name}> : !param.symbol"))?;
    let call = cx.build_value(
        coreai::INVOKE,
        &operands,
        result_type,
        &[("callee", callee)],
    )?;
    Ok(vec![if outline.lift_result {
        drop_leading(cx, call)?
    } else {
        call
    }])
}

/// `[N, ...] → [1, N, ...]` (a 3-D operand as the composite's 4-D one).
pub fn lift<'c, 'a>(cx: &LoweringCx<'c, 'a>, v: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let mut s = crate::fp16_stabilize::pattern::shape(v)?;
    s.insert(0, 1);
    coreai_ir::emit::reshape(cx, v, &s)
}

/// `[1, N, ...] → [N, ...]`: the inverse of [`lift`], in the body.
pub fn drop_leading<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let s = crate::fp16_stabilize::pattern::shape(v)?;
    coreai_ir::emit::reshape(cx, v, &s[1..])
}

/// The matched ops that stay in place: the shared ops used outside the
/// match and, transitively, the matched ops they read.
fn kept(outline: &Outline<'_, '_>) -> HashSet<*mut std::ffi::c_void> {
    let matched: HashSet<_> = outline.ops.iter().map(|o| o.to_raw().ptr).collect();
    let mut kept = HashSet::new();
    let mut work: Vec<MlirOperation> = outline
        .shared
        .iter()
        .filter(|op| {
            (0..op.result_count())
                .filter_map(|i| op.result(i).ok())
                .any(|r| !used_only_by(r.to_raw(), &matched))
        })
        .map(|op| op.to_raw())
        .collect();
    while let Some(op) = work.pop() {
        if !kept.insert(op.ptr) {
            continue;
        }
        for v in raw::operands(op) {
            if let Some(o) = owner(v).filter(|o| matched.contains(&o.ptr)) {
                work.push(o);
            }
        }
    }
    kept
}

/// Fills `graph`'s block: the output first (so substitutes can be built in
/// front of it), then clones of `ops` in order in front of the output.
fn fill_body<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    outline: &Outline<'c, 'a>,
    graph: MlirOperation,
    ops: &[MlirOperation],
) -> Result<(), Decline> {
    // The output's operand is set once the root is cloned.
    let (block, output, at_output) = coreai_ir::emit::graph_body(cx, graph)?;
    let mut map: HashMap<*const std::ffi::c_void, MlirValue> = HashMap::new();
    for (i, (_, v)) in outline.inputs.iter().enumerate() {
        let arg: Value = block.argument(i).map_err(|e| e.to_string())?.into();
        let inside = match outline.substitutes.iter().find(|s| s.input == i) {
            Some(s) => (s.widen)(&at_output, arg)?,
            None => arg,
        };
        map.insert(v.to_raw().ptr, inside.to_raw());
    }
    for (v, attr) in &outline.baked {
        let inside =
            coreai_ir::emit::constant(&at_output, v.r#type(), cx.attribute_from_raw(*attr))?;
        map.insert(v.to_raw().ptr, inside.to_raw());
    }
    for &op in ops {
        let copy = raw::clone(op);
        for (i, v) in raw::operands(copy).into_iter().enumerate() {
            let Some(&new) = map.get(&v.ptr) else {
                raw::erase(copy);
                return Err("a matched op reads a value the body does not define".into());
            };
            raw::set_operand(copy, i, new);
        }
        raw::remove_attribute(copy, DEAD);
        raw::insert_before(output, copy);
        for (old, new) in raw::results(op).into_iter().zip(raw::results(copy)) {
            map.insert(old.ptr, new);
        }
    }
    let root = cx.op().result(0).map_err(|e| e.to_string())?.to_raw();
    let mut value = *map.get(&root.ptr).ok_or("the root was not cloned")?;
    if outline.lift_result {
        value = lift(&at_output, cx.value(value))?.to_raw();
    }
    raw::set_operand(output, 0, value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{declaration, OpAttr};

    #[test]
    fn declarations_sort_attributes_and_add_the_version() {
        assert_eq!(
            declaration(
                "rms_norm",
                &["input", "scale"],
                &[("eps", OpAttr::Float(1e-5)), ("axes", OpAttr::Int(-1))]
            ),
            "#coreai.composite_declaration<\"rms_norm\" = {input_names = [\"input\", \"scale\"], \
             op_attrs = {axes = -1 : si64, eps = 1.0e-5 : f32, version = 1 : si64}, \
             output_names = [\"output\"]}>"
        );
        assert_eq!(OpAttr::Bool(true).text(), "true");
    }
}
