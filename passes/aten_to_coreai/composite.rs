//! ATen-derived composites in coreai-torch's form: a private `noinline`
//! `coreai.graph` at module level that carries a `composite_decl` (the
//! composite's name, input and output names and attributes) and whose body
//! is the op's full lowering, called by a `coreai.invoke` where the op was.
//!
//! ```text
//! coreai.graph private noinline @layer_norm(%arg0 {coreai.name = "input"}, %arg1 {coreai.name = "gamma"}, ...)
//!     attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"layer_norm" =
//!       {input_names = ["input", "gamma", "beta"], op_attrs = {axes = [3 : si64], eps = ... : f32, version = 1 : si64},
//!        output_names = ["output"]}>, template_op = "layer_norm"} { <the inline lowering> }
//! %y = coreai.invoke @layer_norm(%x, %w, %b)
//! ```
//!
//! As coreai-torch does, each call site gets its own graph; names are
//! deterministic: the template name, then `_1`, `_2`, ... in program order
//! (skipping names the module already has). The body is built by running the
//! op's inline lowering on a copy of the op inside the graph, its operands
//! replaced by the graph's arguments, so the composite computes exactly what
//! the inline form does (fidelity fixes included). Arguments coreai-torch
//! passes that the aten op does not have (an absent weight as ones, avg-pool's
//! kernel size as a tensor) are built at the call site. An op whose extra
//! results (`native_layer_norm`'s mean and rstd) are used is lowered inline:
//! the composites have one output.
//!
//! `legalize-aten-to-coreai{composites=inline}` emits every composite
//! inline (`LoweringOptions::inline_composites` on the lowering context).

use super::LowerFn;
use coreai_ir::lowering::{float_literal, Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use melior::ir::{
    operation::OperationLike, AttributeLike, BlockLike, RegionLike, Value, ValueLike,
};
/// A value of the declaration's `op_attrs`, typed as coreai-torch types
/// them (int → si64, float → f32, list → array).
pub enum OpAttr {
    Int(i64),
    Float(f64),
    Bool(bool),
    Ints(Vec<i64>),
}

impl OpAttr {
    fn text(&self) -> String {
        match self {
            OpAttr::Int(v) => format!("{v} : si64"),
            // ±inf and NaN (a vector norm's ord) as f32 bit patterns.
            OpAttr::Float(v) if !v.is_finite() => format!("0x{:08X} : f32", (*v as f32).to_bits()),
            OpAttr::Float(v) => format!("{} : f32", float_literal(*v)),
            OpAttr::Bool(v) => v.to_string(),
            OpAttr::Ints(vs) => {
                let items: Vec<String> = vs.iter().map(|v| format!("{v} : si64")).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
}

/// One argument of a composite graph.
pub struct Input<'c, 'a> {
    /// Its name in the declaration's `input_names`.
    pub name: &'static str,
    /// The graph argument's `coreai.name`.
    pub arg: &'static str,
    /// The value passed at the call site.
    pub value: Value<'c, 'a>,
    /// The operand group of the aten op it stands for in the body, or
    /// `None` for an argument only the declaration has.
    pub group: Option<usize>,
}

/// A composite: its declaration and its arguments.
pub struct Composite<'c, 'a> {
    /// The declaration's name (`layer_norm`, `avg_pool_2d`).
    pub decl: &'static str,
    /// `template_op`, and the graph's name before de-duplication.
    pub template: &'static str,
    pub inputs: Vec<Input<'c, 'a>>,
    /// `op_attrs` without `version` (always 1).
    pub attrs: Vec<(&'static str, OpAttr)>,
    /// Attributes of the op replaced in the body's copy (name, attribute
    /// text): SDPA's `is_causal` becomes false when the mask is an input.
    pub body_attrs: Vec<(&'static str, &'static str)>,
}

/// Input `group` of the op as the composite argument `name`/`arg`.
pub fn operand<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    name: &'static str,
    arg: &'static str,
    group: usize,
) -> Result<Input<'c, 'a>, Decline> {
    let value = coreai_ir::schema::segment_operand(cx, group)?
        .ok_or_else(|| format!("operand group #{group} ('{name}') is absent"))?;
    Ok(Input {
        name,
        arg,
        value,
        group: Some(group),
    })
}

/// The op lowered by `lower`, as the composite `spec` builds (a graph and an
/// invoke), or inline when composites are inline, a result after the first
/// is used, or `spec` gives none (a form coreai-torch inlines too).
pub fn lower_composite<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    lower: LowerFn,
    spec: impl FnOnce(&LoweringCx<'c, 'a>) -> Result<Option<Composite<'c, 'a>>, Decline>,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    if cx.options().inline_composites || extra_results_used(cx) {
        return lower(cx);
    }
    let Some(spec) = spec(cx)? else {
        return lower(cx);
    };
    let (anchor, module_block) = coreai_ir::symbols::top_level(cx.op().to_raw())?;
    let name = coreai_ir::symbols::unique_name(module_block, spec.template);
    let inputs: Vec<(&str, _)> = spec
        .inputs
        .iter()
        .map(|i| (i.arg, i.value.r#type()))
        .collect();
    let graph = coreai_ir::emit::composite_graph(
        cx,
        &name,
        &inputs,
        cx.result_type(0)?,
        Some(&declaration(&spec)),
        Some(spec.template),
    )?;
    raw::insert_before(anchor, graph);
    if let Err(reason) = build_body(cx, &spec, graph, lower) {
        raw::erase(graph);
        return Err(reason);
    }
    invoke(cx, &spec, &name)
}

/// Whether a result after the first has uses.
fn extra_results_used(cx: &LoweringCx<'_, '_>) -> bool {
    (1..cx.op().result_count()).any(|i| cx.op().result(i).is_ok_and(|r| raw::has_uses(r.to_raw())))
}

/// A composite of the op's one operand, `input`.
pub fn of_input<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    decl: &'static str,
    attrs: Vec<(&'static str, OpAttr)>,
) -> Result<Option<Composite<'c, 'a>>, Decline> {
    Ok(Some(Composite {
        decl,
        template: decl,
        inputs: vec![operand(cx, "input", "input", 0)?],
        attrs,
        body_attrs: Vec::new(),
    }))
}

/// Input `group` of the op, or when absent (an optional weight) a
/// call-site constant `fill` of `shape` in the input's element type, as
/// coreai-torch passes it.
pub fn operand_or<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    name: &'static str,
    group: usize,
    fill: f64,
    shape: &[i64],
) -> Result<Input<'c, 'a>, Decline> {
    let value = match coreai_ir::schema::segment_operand(cx, group)? {
        Some(v) => v,
        None => {
            let element = coreai_ir::schema::element_type(cx.operand(0)?)?;
            let ty = coreai_ir::schema::tensor_type(shape, element);
            coreai_ir::emit::splat(cx, coreai_ir::lowering::Scalar::Float(fill), ty)?
        }
    };
    Ok(Input {
        name,
        arg: name,
        value,
        group: Some(group),
    })
}

fn quoted_list<'s>(names: impl Iterator<Item = &'s str>) -> String {
    let items: Vec<String> = names.map(|n| format!("\"{n}\"")).collect();
    format!("[{}]", items.join(", "))
}

/// The `#coreai.composite_declaration<...>` of `spec`.
fn declaration(spec: &Composite<'_, '_>) -> String {
    let mut attrs: Vec<String> = spec
        .attrs
        .iter()
        .map(|(k, v)| format!("{k} = {}", v.text()))
        .collect();
    attrs.push("version = 1 : si64".into());
    format!(
        "#coreai.composite_declaration<\"{}\" = {{input_names = {}, op_attrs = {{{}}}, output_names = [\"output\"]}}>",
        spec.decl,
        quoted_list(spec.inputs.iter().map(|i| i.name)),
        attrs.join(", ")
    )
}

/// Fills `graph`'s block: a copy of the op on the arguments, lowered by
/// `lower`, then `coreai.output` of its first result.
fn build_body<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    spec: &Composite<'c, 'a>,
    graph: mlir_sys::MlirOperation,
    lower: LowerFn,
) -> Result<(), Decline> {
    let graph_ref = cx.operation(graph);
    let block = graph_ref
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or("the composite graph has no block")?;
    // The op's operands, in group order, become the block arguments.
    let mut fed: Vec<(usize, mlir_sys::MlirValue)> = Vec::new();
    for (i, input) in spec.inputs.iter().enumerate() {
        if let Some(group) = input.group {
            let arg = block.argument(i).map_err(|e| e.to_string())?;
            fed.push((group, arg.to_raw()));
        }
    }
    fed.sort_by_key(|(g, _)| *g);
    let segments = cx.op().attribute("operandSegmentSizes").ok().map(|s| {
        let n = raw::dense_array_len(s.to_raw());
        let sizes: Vec<String> = (0..n)
            .map(|g| u8::from(fed.iter().any(|(f, _)| *f == g)).to_string())
            .collect();
        format!("array<i32: {}>", sizes.join(", "))
    });
    let operands: Vec<mlir_sys::MlirValue> = fed.iter().map(|(_, v)| *v).collect();
    if segments.is_none() && fed.iter().enumerate().any(|(i, (g, _))| *g != i) {
        return Err(
            "a composite must pass every operand of an op without optional operands".into(),
        );
    }
    let copy = raw::clone(cx.op().to_raw());
    raw::set_operands(copy, &operands);
    if let Some(text) = &segments {
        raw::set_inherent_attribute(
            copy,
            "operandSegmentSizes",
            cx.parse_attribute(text)?.to_raw(),
        );
    }
    for (name, text) in &spec.body_attrs {
        raw::set_inherent_attribute(copy, name, cx.parse_attribute(text)?.to_raw());
    }
    raw::append(block.to_raw(), copy);
    let copy_ref = cx.operation(copy);
    let body = LoweringCx::with_options(copy_ref, cx.options());
    let outcome = lower(&body).and_then(|values| {
        let first = *values.first().ok_or("the lowering returned no value")?;
        body.build(coreai::OUTPUT, &[first], &[], &[]).map(|_| ())
    });
    raw::erase(copy);
    outcome
}

/// `coreai.invoke @name(inputs)` in front of the op: its result, then each
/// further result (unused: [`extra_results_used`]) as itself when it
/// already has its coreai type (the op is erased with it, and a dynamic
/// shape needs no placeholder), else a dead zero of that type.
fn invoke<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    spec: &Composite<'c, 'a>,
    name: &str,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let callee = cx.parse_attribute(&format!("#param.constant<@{name}> : !param.symbol"))?;
    let operands: Vec<Value> = spec.inputs.iter().map(|i| i.value).collect();
    let mut results = vec![cx.build_value(
        coreai::INVOKE,
        &operands,
        cx.result_type(0)?,
        &[("callee", callee)],
    )?];
    for i in 1..cx.op().result_count() {
        let ty = cx.result_type(i)?;
        let own = cx.op().result(i).map_err(|e| e.to_string())?;
        results.push(if own.r#type() == ty {
            own.into()
        } else {
            coreai_ir::emit::splat(cx, coreai_ir::lowering::Scalar::Int(0), ty)?
        });
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::OpAttr;

    #[test]
    fn op_attrs_are_typed_as_coreai_torch_types_them() {
        assert_eq!(OpAttr::Int(-1).text(), "-1 : si64");
        assert_eq!(OpAttr::Float(1e-5).text(), "1.0e-5 : f32");
        assert_eq!(OpAttr::Float(f64::INFINITY).text(), "0x7F800000 : f32");
        assert_eq!(OpAttr::Float(f64::NEG_INFINITY).text(), "0xFF800000 : f32");
        assert_eq!(OpAttr::Bool(false).text(), "false");
        assert_eq!(OpAttr::Ints(vec![2, 3]).text(), "[2 : si64, 3 : si64]");
        assert_eq!(OpAttr::Ints(vec![]).text(), "[]");
    }
}
