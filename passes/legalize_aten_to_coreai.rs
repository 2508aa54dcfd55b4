//! `legalize-aten-to-coreai`: ATen ops in `func.func` → coreai ops in
//! `coreai.graph`.
//!
//! Preconditions: a verified module whose functions hold `aten` ops (as
//! `coreai_export` imports them, after `decompose`), `arith.constant` tensors
//! and `func.return`.
//!
//! The pass first validates every function, and only then rewrites:
//!   1. Validation: every ATen op must have a lowering. Ops that the selected
//!      decomposition table (`table=coreai|default|none`) would have
//!      decomposed are reported together as "non-decomposed", the rest as
//!      "unsupported": each group is one error listing the ops sorted and
//!      de-duplicated, with one note per occurrence at its location and the
//!      overloads of the same op that do have a lowering ("did you mean").
//!   2. Types: block arguments and `arith.constant`s take their coreai
//!      types (signless integers become signed: `i64` → `si64`; scalars such
//!      as symbolic sizes and Python numbers become rank-0 tensors: `i64` →
//!      `tensor<si64>`; see `lowering::coreai_type`); the constants become
//!      `coreai.constant`.
//!      Then lowering, op by op in program order, by the dispatch ladder: a user
//!      lowering registered for `namespace::name.overload` in this context,
//!      then the built-in ATen resolver keyed by the exact overload (namespace
//!      `aten`, or a Python callable's: `builtins::round` looks up `round`),
//!      then the compression resolver for `coreai::`/`coreaix::` ops keyed
//!      variantless (`coreai::quantize.default` and `coreai::quantize` are
//!      `quantize`; see `aten_to_coreai::compression`); every
//!      `coreai_metal_kernels::` op (a custom Metal kernel) lowers to
//!      `coreai.metal4_kernel` (`aten_to_coreai::metal_kernel`); ops of
//!      other libraries with a built-in lowering are keyed by their
//!      qualified name (`transformers::grouped_mm_fallback.default`, the
//!      fp32 experts product of transformers' MoE layers:
//!      `aten_to_coreai/grouped_mm.rs`). A lowering
//!      that declines is an error at the op's location, with its reason.
//!      With `composites=graph` (the default) the ATen-derived composites
//!      (norms, log_softmax, SDPA, avg-pool, hardsigmoid, vector norm,
//!      pixel_shuffle) become private `noinline` graphs with coreai-torch's
//!      `composite_decl`, inserted before the function, each called by a
//!      `coreai.invoke` (`aten_to_coreai/composite.rs`); `composites=inline`
//!      emits their ops in place.
//!   3. Each `func.func` becomes a `coreai.graph` with the same name,
//!      signature and argument/result attributes (`coreai.name`); private
//!      functions become `private` graphs, `coreai.noinline` functions
//!      (externalized submodules, rung 1 of the ladder) `noinline` graphs
//!      keeping their `coreai.composite_decl`; `func.return` becomes
//!      `coreai.output`; `func.call` becomes `coreai.invoke`. Constants of
//!      Python numbers that no lowering used are erased.
//!
//! Guarantee: on success no `aten`, `func` or `arith` op remains, and every
//! value keeps its type up to integer signedness (a scalar becoming a rank-0
//! tensor). On failure the module is left unchanged by step 1
//! errors; a decline in step 2 fails the pass after earlier ops were rewritten.
//!
//! Interactions: run `decompose` first with the same table.

use crate::{aten_to_coreai, decomposition_table::Table};
use coreai_ir::op::{attr, coreai};
use coreai_ir::raw;
use coreai_ir::{
    diagnostics::{emit_error, emit_with_notes, sorted_unique, Offender},
    lowering::{self, Decline, LoweringCx, LoweringOptions},
    pass::{Pass, PassFailed, PassInfo, PassResult},
    rewrite::{Pattern, Policy, RewriteOptions, Rewriter, Rule},
};
use melior::ir::{
    operation::{OperationBuilder, OperationLike, OperationRef, WalkOrder, WalkResult},
    Attribute, AttributeLike, BlockLike, Identifier, RegionLike, Value, ValueLike,
};
use mlir_sys::MlirOperation;

pub const INFO: PassInfo = PassInfo {
    name: "legalize-aten-to-coreai",
    summary: "Lower ATen ops in func.func to coreai ops in coreai.graph, after validating that every op has a lowering",
    source: include_str!("legalize_aten_to_coreai.rs"),
    anchor: Some("builtin.module"),
    options: LegalizeAtenToCoreai::OPTIONS,
    create: || Box::new(LegalizeAtenToCoreai::default()),
};

coreai_ir::pass_options! {
    struct LegalizeAtenToCoreai {
        "table" => table: Table = "coreai",
            "the decomposition table the input was decomposed with (coreai, default, none); ops it decomposes are reported as non-decomposed",
            parse = Table::parse;
        "composites" => inline_composites: bool = "graph",
            "graph: ATen-derived composites (norms, log_softmax, SDPA, avg-pool, hard_sigmoid, vector norm, pixel_shuffle) become private noinline coreai.graphs with a composite_decl, called by coreai.invoke, as coreai-torch emits them; inline: their ops are emitted in place",
            parse = |v: &str| match v.trim() {
                "graph" => Ok(false),
                "inline" => Ok(true),
                other => Err(format!("unknown composites mode '{other}'; choose graph or inline")),
            };
    }
}

/// What an op in the input is, as far as this pass is concerned.
enum OpKind {
    /// An ATen (or custom) op: its namespace and `name.overload`.
    Aten { namespace: String, key: String },
    /// Anything else (func, arith, coreai ...).
    Other,
}

fn classify(op: &OperationRef<'_, '_>) -> OpKind {
    let name = op.name();
    let Ok(name) = name.as_string_ref().as_str() else {
        return OpKind::Other;
    };
    if name == "aten.operator" {
        let qualified = op
            .attribute("name")
            .ok()
            .and_then(coreai_ir::strings::string_value)
            .map(|s| s.into_owned())
            .unwrap_or_default();
        let (namespace, key) = qualified.split_once("::").unwrap_or(("", &qualified));
        return OpKind::Aten {
            namespace: namespace.to_string(),
            key: key.to_string(),
        };
    }
    match name.strip_prefix("aten.") {
        Some(key) => OpKind::Aten {
            namespace: "aten".into(),
            key: key.to_string(),
        },
        None => OpKind::Other,
    }
}

impl Pass for LegalizeAtenToCoreai {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, module: OperationRef<'_, '_>, rewrites: &RewriteOptions) -> PassResult {
        self.validate(module)?;
        let constants = convert_values(module)?;
        self.lower_ops(module, rewrites)?;
        convert_functions(module)?;
        finish_constants(constants);
        Ok(())
    }
}

impl LegalizeAtenToCoreai {
    /// Step 1: reports every op without a lowering, grouped, with notes.
    fn validate(&self, module: OperationRef<'_, '_>) -> Result<(), PassFailed> {
        let context = raw::context(module.to_raw());
        let mut non_decomposed: Vec<Offender> = Vec::new();
        let mut unsupported: Vec<Offender> = Vec::new();
        module.walk(WalkOrder::PreOrder, |op| {
            let OpKind::Aten { namespace, key } = classify(&op) else {
                return WalkResult::Advance;
            };
            let qualified = format!("{namespace}::{key}");
            if lowering::user_lowering(context, &qualified).is_some() {
                return WalkResult::Advance;
            }
            let display = if namespace == "aten" {
                format!("aten.{key}")
            } else {
                qualified.clone()
            };
            if builtin_lowering(&namespace, &key).is_some() {
                return WalkResult::Advance;
            }
            let location = op.location().to_raw();
            if namespace == "aten" && self.table.decomposes(&key) {
                non_decomposed.push(Offender {
                    location,
                    note: format!(
                        "'{display}' is decomposed by the '{}' table",
                        self.table.name()
                    ),
                    display,
                });
                return WalkResult::Advance;
            }
            let siblings = if namespace == "aten" {
                aten_to_coreai::siblings(&key)
            } else {
                Vec::new()
            };
            let note = if COMPRESSION_NAMESPACES.contains(&namespace.as_str()) {
                let keys: Vec<&str> = aten_to_coreai::compression::keys().collect();
                format!(
                    "'{display}' has no lowering; the {namespace} namespace lowers (any of the overloads .default, .Tensor, .Scalar, .dim, or none): {}",
                    keys.join(", ")
                )
            } else if siblings.is_empty() {
                format!("'{display}' has no lowering")
            } else {
                let list: Vec<String> = siblings.iter().map(|s| format!("'aten.{s}'")).collect();
                format!(
                    "'{display}' has no lowering; did you mean {}? (lowered overloads of the same op)",
                    list.join(", ")
                )
            };
            unsupported.push(Offender {
                location,
                display,
                note,
            });
            WalkResult::Advance
        });

        let mut failed = false;
        if !non_decomposed.is_empty() {
            let names = sorted_unique(&non_decomposed);
            emit_with_notes(
                &non_decomposed,
                &format!(
                    "the module contains non-decomposed ops: {names}; run the 'decompose' pass with table={} first (--pass-pipeline='builtin.module(decompose{{table={}}},legalize-aten-to-coreai)'), or import with --decompositions {}",
                    self.table.name(),
                    self.table.name(),
                    self.table.name()
                ),
            );
            failed = true;
        }
        if !unsupported.is_empty() {
            let names = sorted_unique(&unsupported);
            emit_with_notes(
                &unsupported,
                &format!(
                    "the module contains unsupported ops: {names}; register a lowering for each (coreai::Compiler::register_lowering, or coreaiRegisterLowering from C) or change the model to avoid them"
                ),
            );
            failed = true;
        }
        if failed {
            Err(PassFailed)
        } else {
            Ok(())
        }
    }

    /// Step 2: lowers every ATen op in program order (the rewrite driver,
    /// a decline is an error at the op).
    fn lower_ops(
        &self,
        module: OperationRef<'_, '_>,
        rewrites: &RewriteOptions,
    ) -> Result<(), PassFailed> {
        let context = raw::context(module.to_raw());
        let policy = Policy::MustLower {
            verb: "lower",
            noun: "lowering",
        };
        let options = LoweringOptions {
            inline_composites: self.inline_composites,
        };
        Rewriter::new(INFO.name, policy, rewrites)
            .with_lowering_options(options)
            .with_result_type(lowering::coreai_type)
            .run_once(module, |op| {
                let OpKind::Aten { namespace, key } = classify(op) else {
                    return Vec::new();
                };
                vec![resolve(context, &namespace, &key)]
            })?;
        Ok(())
    }
}

/// The pattern lowering `namespace::key` by the dispatch ladder: a user
/// lowering registered in `context`, else a built-in one.
fn resolve(context: mlir_sys::MlirContext, namespace: &str, key: &str) -> Pattern {
    let qualified = format!("{namespace}::{key}");
    let rule = if let Some(user) = lowering::user_lowering(context, &qualified) {
        Rule::Shared(user)
    } else if let Some(builtin) = builtin_lowering(namespace, key) {
        Rule::Fn(builtin)
    } else {
        let reason = format!("'{qualified}' has no lowering");
        Rule::Shared(std::sync::Arc::new(move |_: &LoweringCx<'_, '_>| {
            Err(reason.clone())
        }))
    };
    Pattern {
        name: qualified,
        rule,
        may_decline: false,
    }
}

/// Namespaces whose ops the compression resolver lowers (rung 4).
const COMPRESSION_NAMESPACES: &[&str] = &["coreai", "coreaix"];

/// The namespace of custom Metal kernels (coreai-torch's `TorchMetalKernel`,
/// `coreai_export.metal`): every op of it lowers to `coreai.metal4_kernel`
/// (`aten_to_coreai/metal_kernel.rs`), after user lowerings.
const METAL_KERNELS_NAMESPACE: &str = "coreai_metal_kernels";

/// Namespaces of Python callables torch.export records (`builtins::round`,
/// `operator::mul`, `math::ceil`, `torch::sym_ite`): coreai-torch sees no
/// namespace on them and looks their bare name up in the ATen resolver
/// (rung 3).
const PYTHON_NAMESPACES: &[&str] = &["builtins", "operator", "math", "torch"];

/// The built-in rungs of the dispatch ladder (conversion guide §7.4), after
/// user lowerings: the ATen resolver keyed by the exact overload (rung 3,
/// namespace `aten` or a Python callable's), then the compression resolver
/// for `coreai`/`coreaix` keyed variantless (rung 4), then the ops of other
/// libraries by qualified name (`transformers::grouped_mm_fallback.default`,
/// `aten_to_coreai::lookup_library`). Higher-order ops
/// (`aten.cond`, `aten.while_loop`) are ATen resolver keys here.
fn builtin_lowering(namespace: &str, key: &str) -> Option<aten_to_coreai::LowerFn> {
    if namespace == "aten" || PYTHON_NAMESPACES.contains(&namespace) {
        aten_to_coreai::lookup(key)
    } else if COMPRESSION_NAMESPACES.contains(&namespace) {
        aten_to_coreai::compression::lookup(key)
    } else if namespace == METAL_KERNELS_NAMESPACE {
        Some(aten_to_coreai::metal_kernel::lower)
    } else {
        aten_to_coreai::lookup_library(&format!("{namespace}::{key}"))
    }
}

/// Step 2a: every block argument takes its coreai type and every
/// `arith.constant` (tensor or scalar) becomes a `coreai.constant` of its
/// coreai type (keeping
/// the wrapped-number mark), so that lowerings only see coreai-typed
/// operands. Returns the new constants.
fn convert_values(module: OperationRef<'_, '_>) -> Result<Vec<MlirOperation>, PassFailed> {
    module.walk(WalkOrder::PreOrder, |op| {
        for r in 0..op.region_count() {
            let Ok(region) = op.region(r) else { continue };
            let mut block = region.first_block();
            while let Some(b) = block {
                for i in 0..b.argument_count() {
                    if let Ok(arg) = b.argument(i) {
                        let ty = lowering::coreai_type(arg.r#type());
                        arg.set_type(ty);
                    }
                }
                block = b.next_in_region();
            }
        }
        WalkResult::Advance
    });
    let constants = raw::collect(&module, WalkOrder::PreOrder, |op| {
        op.name().as_string_ref().as_str() == Ok("arith.constant")
    });
    let mut converted = Vec::with_capacity(constants.len());
    for op in constants {
        let cx = LoweringCx::new(op);
        let rewritten = (|| {
            let ty = cx.result_type(0)?;
            let mut value = cx.attribute("value")?;
            if value.r#type() != ty {
                // Same elements, coreai element type: re-read the literal
                // (or resource handle) with the new type.
                let text = value.to_string();
                let body = text.rsplit_once(" : ").map_or(text.as_str(), |(b, _)| b);
                // A scalar (`2 : i64`, `0.5 : f64`, `true`) becomes a
                // rank-0 tensor (see `lowering::coreai_type`).
                let scalar = !raw::is_elements(value.to_raw());
                let resource = raw::is_dense_resource(value.to_raw());
                value = if scalar {
                    cx.parse_attribute(&format!("dense<{body}> : {ty}"))?
                } else if resource {
                    // A blob's bytes are the same in the signed type; a
                    // re-read handle would name a new, empty blob.
                    retyped_resource(value, ty)?
                } else {
                    cx.parse_attribute(&format!("{body} : {ty}"))?
                };
            }
            let mut attributes = vec![("value", value)];
            if let Ok(mark) = op.attribute(lowering::WRAPPED_NUMBER) {
                attributes.push((lowering::WRAPPED_NUMBER, mark));
            }
            let new = cx.build(coreai::CONSTANT, &[], &[ty], &attributes)?;
            let old = op.result(0).map_err(|_| "no result".to_string())?;
            let value = new.result(0).map_err(|_| "no result".to_string())?;
            raw::replace_all_uses(old.to_raw(), value.to_raw());
            Ok::<_, Decline>(new.to_raw())
        })();
        match rewritten {
            Ok(new) => converted.push(new),
            Err(reason) => {
                emit_error(op, &format!("cannot lower 'arith.constant': {reason}"));
                return Err(PassFailed);
            }
        }
        raw::erase(op.to_raw());
    }
    Ok(converted)
}

/// The elements of the `dense_resource` attribute `value` as an inline
/// dense attribute of type `ty` (same element width, other signedness).
fn retyped_resource<'c>(
    value: Attribute<'c>,
    ty: melior::ir::Type<'c>,
) -> Result<Attribute<'c>, Decline> {
    let Some(bytes) = coreai_ir::weights::resource_bytes(value) else {
        return Err(format!("the blob of {value} is not loaded"));
    };
    coreai_ir::weights::dense_from_bytes(ty, bytes)
        .ok_or_else(|| format!("the {} bytes of {value} do not make a {ty}", bytes.len()))
}

/// Step 4: the constants of step 2a lose the wrapped-number mark, and those
/// no lowering used (a lowering re-emits a Python number in its
/// computation's dtype) are erased.
fn finish_constants(constants: Vec<MlirOperation>) {
    for op in constants {
        if raw::results(op)
            .first()
            .is_some_and(|r| raw::uses(*r).is_empty())
        {
            raw::erase(op);
        } else {
            raw::remove_attribute(op, lowering::WRAPPED_NUMBER);
        }
    }
}

/// Step 3: `func.func` → `coreai.graph`, `func.return` → `coreai.output`,
/// tensor `arith.constant` → `coreai.constant`.
fn convert_functions(module: OperationRef<'_, '_>) -> Result<(), PassFailed> {
    let named = |op: &OperationRef<'_, '_>, names: &[&str]| {
        names.contains(&op.name().as_string_ref().as_str().unwrap_or(""))
    };
    let functions = raw::collect(&module, WalkOrder::PreOrder, |op| named(op, &["func.func"]));
    let leftovers = raw::collect(&module, WalkOrder::PreOrder, |op| {
        named(op, &["func.return", "func.call"])
    });
    for op in leftovers {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        let cx = LoweringCx::new(op);
        let rewritten = match name {
            "func.return" => {
                let operands: Vec<Value> = op.operands().collect();
                cx.build(coreai::OUTPUT, &operands, &[], &[]).map(|_| ())
            }
            _ => invoke_from_call(&cx),
        };
        if let Err(reason) = rewritten {
            emit_error(op, &format!("cannot lower '{name}': {reason}"));
            return Err(PassFailed);
        }
        raw::erase(op.to_raw());
    }
    for func in functions {
        graph_from_function(func)?;
        raw::erase(func.to_raw());
    }
    Ok(())
}

// func.call @f(%x) : (T) -> R → coreai.invoke @f(%x) : (T) -> R'
fn invoke_from_call(cx: &LoweringCx<'_, '_>) -> Result<(), Decline> {
    let op = cx.op();
    // coreai stores the callee as a typed symbol constant.
    let callee = cx.attribute("callee")?;
    let callee = cx.parse_attribute(&format!("#param.constant<{callee}> : !param.symbol"))?;
    let operands: Vec<Value> = op.operands().collect();
    let results = (0..op.result_count())
        .map(|i| cx.result_type(i))
        .collect::<Result<Vec<_>, _>>()?;
    let invoke = cx.build(coreai::INVOKE, &operands, &results, &[("callee", callee)])?;
    for i in 0..op.result_count() {
        let (Ok(old), Ok(new)) = (op.result(i), invoke.result(i)) else {
            return Err("result count mismatch".into());
        };
        raw::replace_all_uses(old.to_raw(), new.to_raw());
    }
    Ok(())
}

fn graph_from_function(func: OperationRef<'_, '_>) -> Result<(), PassFailed> {
    let cx = LoweringCx::new(func);
    let body = func.region(0).map_err(|_| PassFailed)?;
    if body.first_block().is_none() {
        emit_error(
            func,
            "a function declaration has no coreai equivalent; define the function or remove it",
        );
        return Err(PassFailed);
    }
    let mut attributes: Vec<(&str, Attribute)> = Vec::new();
    for name in ["sym_name", "arg_attrs", "res_attrs"] {
        if let Ok(value) = func.attribute(name) {
            attributes.push((name, value));
        }
    }
    let function_type = melior::ir::attribute::TypeAttribute::try_from(
        func.attribute("function_type").map_err(|_| PassFailed)?,
    )
    .map_err(|_| PassFailed)?;
    let function_type = lowering::coreai_type(function_type.value());
    attributes.push((
        "function_type",
        melior::ir::attribute::TypeAttribute::new(function_type).into(),
    ));
    let param_decls = cx
        .parse_attribute("#param.decl.array<[]>")
        .map_err(|_| PassFailed)?;
    attributes.push(("param_decls", param_decls));
    let private = func
        .attribute("sym_visibility")
        .is_ok_and(|v| v.to_string() == "\"private\"");
    if private {
        attributes.push(("priv", cx.unit_attribute()));
    }
    // An externalized submodule (the importer's `--externalize`) keeps its
    // boundary: `coreai.noinline` and its composite declaration carry over.
    if func.attribute(attr::NOINLINE).is_ok() {
        attributes.push(("no_inline", cx.unit_attribute()));
    }
    if let Ok(decl) = func.attribute(attr::COMPOSITE_DECL) {
        attributes.push(("composite_decl", decl));
    }
    let attributes: Vec<(Identifier, Attribute)> = attributes
        .into_iter()
        .map(|(k, v)| (cx.identifier(k), v))
        .collect();
    let region = melior::ir::Region::new();
    raw::take_body(region.to_raw(), body.to_raw());
    let graph = OperationBuilder::new(coreai::GRAPH, func.location())
        .add_attributes(&attributes)
        .add_regions([region])
        .build()
        .map_err(|e| {
            emit_error(func, &format!("cannot build coreai.graph: {e}"));
            PassFailed
        })?;
    let block = func.block().ok_or(PassFailed)?;
    block.insert_operation_before(func, graph);
    Ok(())
}
