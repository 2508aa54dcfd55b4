//! The compiled coreai program as coreai-core's `aicode` serialization:
//! the `main.mlirb` coreai-core's runtime loads (docs/aicode-format.md §5).
//!
//! Each `coreai.graph` becomes `aicode.dataflow.graph_v1` (its argument and
//! result attributes with `coreai.` keys renamed `aicode.`, its composite
//! declaration, `private`/`noinline`/`externalize`), each op of its body the
//! aicode op or composite that `convert-to-versioned{target-version=20260409}`
//! writes ([`coreai_asset::aicode::ops`]); `coreai.invoke` becomes
//! `invoke_v1`, the regions of `if`/`while`/`scatter_nd`/`reduce` are
//! converted with the same table, constants keep their form (`dense` →
//! `dense_elements`, `dense_resource` → `dense_resource` with the blob, and
//! its alignment, in the `aicode` resource group). Locations are written as
//! `debuginfo.location_v1` (file, line and column; fused parts as
//! `fusedWith`; a named or call-site location as its child or callee).
//! `coreaix.copy_with_constraints`/`copy_discarding_constraints` and
//! `coreai.metal4_kernel` become `ax.copy_*_constraints_v1` and
//! `metal.metal4_kernel_v1`, tensors with `#coreaix.hw_constraints` the
//! encoded `tensor_v1` (docs/aicode-format.md §5.6); an encoded tensor on
//! any other op is refused (coreai-core's form of that is not measured).
//!
//! An op outside the covered subset (or a shape form of a composite not
//! measured), or a graph with attributes the writer does not know gives one
//! error naming the op and its location; nothing is written then.

use crate::ffi::{printed, string_ref, string_ref_bytes};
use coreai_asset::aicode::{
    ops, Backing, Body, Dense, Elt, Graph, HwConstraints, Loc, Program, TensorType, Value,
};

use coreai_asset::bytecode::writer::Blob;
use coreai_ir::deferred::BlobSource;
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum AicodeError {
    #[error("{location}: '{op}' {message} (--format coreai writes any coreai program, for this project's tools)")]
    Op {
        location: String,
        op: String,
        message: String,
    },
}

/// coreai ops (and their `decomposable.broadcasting_` forms) whose
/// operands commute.
const COMMUTATIVE: &[&str] = &[
    "add",
    "mul",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "and",
    "or",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
];

const NOT_YET: &str = "is not yet supported by the aicode writer";

fn op_name(op: MlirOperation) -> String {
    unsafe {
        let id = mlirOperationGetName(op);
        String::from_utf8_lossy(&string_ref_bytes(mlirIdentifierStr(id))).into_owned()
    }
}

fn location(op: MlirOperation) -> String {
    let text = printed(|cb, ud| unsafe { mlirLocationPrint(mlirOperationGetLocation(op), cb, ud) });
    text.strip_prefix("loc(")
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(&text)
        .to_string()
}

/// An MLIR location as a [`Loc`]: file/line/column ranges as they are, a
/// fused location's parts, a named or call-site location as its child or
/// callee (coreai-core rejects those kinds; their source position is
/// kept), anything else unknown.
fn source_location(l: MlirLocation) -> Loc {
    unsafe {
        if mlirLocationIsAFileLineColRange(l) {
            let file = string_ref_bytes(mlirIdentifierStr(
                mlirLocationFileLineColRangeGetFilename(l),
            ));
            let n = |x: i32| x.max(0) as u32;
            return Loc::File {
                file: String::from_utf8_lossy(&file).into_owned(),
                start: (
                    n(mlirLocationFileLineColRangeGetStartLine(l)),
                    n(mlirLocationFileLineColRangeGetStartColumn(l)),
                ),
                end: (
                    n(mlirLocationFileLineColRangeGetEndLine(l)),
                    n(mlirLocationFileLineColRangeGetEndColumn(l)),
                ),
            };
        }
        if mlirLocationIsAName(l) {
            return source_location(mlirLocationNameGetChildLoc(l));
        }
        if mlirLocationIsACallSite(l) {
            return source_location(mlirLocationCallSiteGetCallee(l));
        }
        if mlirLocationIsAFused(l) {
            let n = mlirLocationFusedGetNumLocations(l) as usize;
            let mut parts = vec![mlirLocationUnknownGet(mlirLocationGetContext(l)); n];
            mlirLocationFusedGetLocations(l, parts.as_mut_ptr());
            let parts: Vec<Loc> = parts
                .into_iter()
                .map(source_location)
                .filter(|p| *p != Loc::Unknown)
                .collect();
            return match parts.len() {
                0 => Loc::Unknown,
                1 => parts.into_iter().next().expect("one"),
                _ => Loc::Fused(parts),
            };
        }
        Loc::Unknown
    }
}

fn op_location(p: &mut Program, op: MlirOperation) -> u64 {
    p.location(&source_location(unsafe { mlirOperationGetLocation(op) }))
}

fn value_location(p: &mut Program, v: MlirValue) -> u64 {
    p.location(&source_location(unsafe { mlirValueGetLocation(v) }))
}

fn error(op: MlirOperation, message: impl Into<String>) -> AicodeError {
    AicodeError::Op {
        location: location(op),
        op: op_name(op),
        message: message.into(),
    }
}

fn attr_text(a: MlirAttribute) -> String {
    printed(|cb, ud| unsafe { mlirAttributePrint(a, cb, ud) })
}

fn type_text(t: MlirType) -> String {
    printed(|cb, ud| unsafe { mlirTypePrint(t, cb, ud) })
}

fn element(t: MlirType) -> Option<Elt> {
    unsafe {
        if mlirTypeIsAF32(t) {
            return Some(Elt::F32);
        }
        if mlirTypeIsAF16(t) {
            return Some(Elt::F16);
        }
        if mlirTypeIsAF64(t) {
            return Some(Elt::F64);
        }
        if mlirTypeIsABF16(t) {
            return Some(Elt::BF16);
        }
        if mlirTypeIsAFloat8E4M3FN(t) {
            return Some(Elt::F8E4M3FN);
        }
        if mlirTypeIsAFloat8E5M2(t) {
            return Some(Elt::F8E5M2);
        }
        if mlirTypeIsAFloat4E2M1FN(t) {
            return Some(Elt::F4E2M1FN);
        }
        if mlirTypeIsAFloat8E8M0FNU(t) {
            return Some(Elt::F8E8M0FNU);
        }
        if mlirTypeIsAComplex(t) {
            let e = mlirComplexTypeGetElementType(t);
            return if mlirTypeIsAF32(e) {
                Some(Elt::CF32)
            } else if mlirTypeIsAF64(e) {
                Some(Elt::CF64)
            } else if mlirTypeIsAF16(e) {
                Some(Elt::CF16)
            } else {
                None
            };
        }
        if mlirTypeIsAInteger(t) {
            let w = mlirIntegerTypeGetWidth(t);
            let signed = mlirIntegerTypeIsSigned(t);
            let unsigned = mlirIntegerTypeIsUnsigned(t);
            return Some(match (w, signed, unsigned) {
                (1, false, false) => Elt::Bool,
                (64, true, _) => Elt::SI64,
                (32, true, _) => Elt::SI32,
                (16, true, _) => Elt::SI16,
                (8, true, _) => Elt::SI8,
                (64, _, true) => Elt::UI64,
                (32, _, true) => Elt::UI32,
                (16, _, true) => Elt::UI16,
                (8, _, true) => Elt::UI8,
                (4, true, _) => Elt::SI4,
                (2, true, _) => Elt::SI2,
                (6, _, true) => Elt::UI6,
                (4, _, true) => Elt::UI4,
                (3, _, true) => Elt::UI3,
                (2, _, true) => Elt::UI2,
                (1, _, true) => Elt::UI1,
                _ => return None,
            });
        }
        None
    }
}

fn tensor_type(t: MlirType) -> Option<TensorType> {
    unsafe {
        if !mlirTypeIsARankedTensor(t) {
            return None;
        }
        let rank = mlirShapedTypeGetRank(t);
        let dims = (0..rank)
            .map(|i| {
                if mlirShapedTypeIsDynamicDim(t, i as isize) {
                    coreai_asset::aicode::DYNAMIC
                } else {
                    mlirShapedTypeGetDimSize(t, i as isize)
                }
            })
            .collect::<Vec<_>>();
        let ty = TensorType::new(&dims, element(mlirShapedTypeGetElementType(t))?);
        let encoding = mlirRankedTensorTypeGetEncoding(t);
        if encoding.ptr.is_null() {
            return Some(ty);
        }
        let text = attr_text(encoding);
        if let Some(n) = bitmask(&text) {
            return Some(ty.with_bitmask(n));
        }
        Some(ty.with_encoding(hw_constraints(&text)?))
    }
}

/// The set positions of `#coreai.sparse_tensor_encoding<bitmask,
/// numNonZero = N, posWidth = 1, crdWidth = 1>` (by its text); `None` for
/// any other encoding (another scheme, no `numNonZero`, block sizes).
fn bitmask(text: &str) -> Option<u64> {
    text.strip_prefix("#coreai.sparse_tensor_encoding<bitmask, numNonZero = ")?
        .strip_suffix(", posWidth = 1, crdWidth = 1>")?
        .parse()
        .ok()
}

/// `#coreaix.hw_constraints<backing, alignments: [AxB..], interleave:
/// [..]>` (by its text: the C API has no accessors for it); `None` for any
/// other encoding.
fn hw_constraints(text: &str) -> Option<HwConstraints> {
    let inner = text
        .strip_prefix("#coreaix.hw_constraints<")?
        .strip_suffix('>')?;
    let mut parts = inner.split(',').map(str::trim);
    let backing = Backing::from_keyword(parts.next()?)?;
    let mut list = |key: &str| -> Option<Vec<i64>> {
        let dims = parts
            .next()?
            .strip_prefix(key)?
            .trim_start()
            .strip_prefix(':')?
            .trim()
            .strip_prefix('[')?
            .strip_suffix(']')?;
        if dims.is_empty() {
            return Some(Vec::new());
        }
        dims.split('x')
            .map(|d| match d.trim() {
                "?" => Some(coreai_asset::aicode::DYNAMIC),
                d => d.parse().ok(),
            })
            .collect()
    };
    let alignments = list("alignments")?;
    let interleave = list("interleave")?;
    if parts.next().is_some() {
        return None;
    }
    Some(HwConstraints {
        backing,
        alignments,
        interleave,
    })
}

fn value_type(op: MlirOperation, v: MlirValue) -> Result<TensorType, AicodeError> {
    let t = unsafe { mlirValueGetType(v) };
    tensor_type(t)
        .or_else(|| token_or_handle(t))
        .ok_or_else(|| error(op, format!("of type {} {NOT_YET}", type_text(t))))
}

/// `!coreai.token`, or `!coreai.handle<tensor<...>>` (by their text: the
/// C API has no accessors for them).
fn token_or_handle(t: MlirType) -> Option<TensorType> {
    let text = type_text(t);
    if text == "!coreai.token" {
        return Some(TensorType::token());
    }
    let inner = text.strip_prefix("!coreai.handle<")?.strip_suffix('>')?;
    let context = unsafe { mlirTypeGetContext(t) };
    let inner = unsafe { mlirTypeParseGet(context, string_ref(inner)) };
    if inner.ptr.is_null() {
        return None;
    }
    Some(TensorType::handle(&tensor_type(inner)?))
}

/// The attributes of `op`, by name.
fn attributes(op: MlirOperation) -> Vec<(String, MlirAttribute)> {
    unsafe {
        (0..mlirOperationGetNumAttributes(op))
            .map(|i| {
                let a = mlirOperationGetAttribute(op, i);
                let name = string_ref_bytes(mlirIdentifierStr(a.name));
                (String::from_utf8_lossy(&name).into_owned(), a.attribute)
            })
            .collect()
    }
}

/// The entries of the array-of-dictionaries attribute `attr` of `op`
/// (argument or result attributes) as `opaque<"key" = [value]>`, `coreai.`
/// keys renamed `aicode.` (`None` without the attribute).
fn arg_attrs(
    p: &mut Program,
    op: MlirOperation,
    attr: &str,
    count: usize,
) -> Result<Option<Vec<Vec<u64>>>, AicodeError> {
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(attr));
        if a.ptr.is_null() || !mlirAttributeIsAArray(a) {
            return Ok(None);
        }
        let mut out = Vec::new();
        for i in 0..count {
            let mut entries = Vec::new();
            if (i as isize) < mlirArrayAttrGetNumElements(a) {
                let d = mlirArrayAttrGetElement(a, i as isize);
                if mlirAttributeIsADictionary(d) {
                    for j in 0..mlirDictionaryAttrGetNumElements(d) {
                        let e = mlirDictionaryAttrGetElement(d, j);
                        let key =
                            String::from_utf8_lossy(&string_ref_bytes(mlirIdentifierStr(e.name)))
                                .into_owned();
                        let key = match key.strip_prefix("coreai.") {
                            Some(rest) => format!("aicode.{rest}"),
                            None => key,
                        };
                        let v = serialize(p, e.attribute).ok_or_else(|| {
                            error(
                                op,
                                format!(
                                    "with {attr} entry '{key}' ({}) {NOT_YET}",
                                    attr_text(e.attribute)
                                ),
                            )
                        })?;
                        entries.push(p.opaque(&key, &[v]));
                    }
                }
            }
            out.push(entries);
        }
        Ok(Some(out))
    }
}

/// Whether an entry of the argument or result attributes `attr` of `graph`
/// has `coreai.state`.
fn has_state(graph: MlirOperation, attr: &str) -> bool {
    unsafe {
        let a = mlirOperationGetAttributeByName(graph, string_ref(attr));
        if a.ptr.is_null() || !mlirAttributeIsAArray(a) {
            return false;
        }
        (0..mlirArrayAttrGetNumElements(a)).any(|i| {
            let d = mlirArrayAttrGetElement(a, i);
            mlirAttributeIsADictionary(d)
                && !mlirDictionaryAttrGetElementByName(d, string_ref("coreai.state"))
                    .ptr
                    .is_null()
        })
    }
}

fn string_value(a: MlirAttribute) -> String {
    String::from_utf8_lossy(&unsafe { string_ref_bytes(mlirStringAttrGetValue(a)) }).into_owned()
}

/// A builtin attribute as a `serialization.*` attribute: strings, units
/// (`unit_v1`), integers
/// and bools (`integer`, signed unless the type is unsigned), f32/f64
/// (`float`), arrays, dictionaries (of `opaque` entries). `None` for
/// anything else.
fn serialize(p: &mut Program, a: MlirAttribute) -> Option<u64> {
    unsafe {
        if mlirAttributeIsAString(a) {
            return Some(p.string(&string_value(a)));
        }
        if mlirAttributeIsAUnit(a) {
            return Some(p.unit());
        }
        if mlirAttributeIsAInteger(a) || mlirAttributeIsABool(a) {
            let t = mlirAttributeGetType(a);
            let width = mlirIntegerTypeGetWidth(t);
            let unsigned = mlirIntegerTypeIsUnsigned(t);
            let value = if mlirAttributeIsABool(a) {
                mlirBoolAttrGetValue(a) as u64
            } else {
                mlirIntegerAttrGetValueInt(a) as u64
            };
            let bits = if width >= 64 {
                value
            } else {
                value & ((1u64 << width) - 1)
            };
            return Some(p.integer(width, unsigned, bits));
        }
        if mlirAttributeIsAFloat(a) {
            let t = mlirAttributeGetType(a);
            let v = mlirFloatAttrGetValueDouble(a);
            if mlirTypeIsAF32(t) {
                return Some(p.float(32, (v as f32).to_bits() as u64));
            }
            if mlirTypeIsAF64(t) {
                return Some(p.float(64, v.to_bits()));
            }
            return None;
        }
        if mlirAttributeIsAArray(a) {
            let items = (0..mlirArrayAttrGetNumElements(a))
                .map(|i| serialize(p, mlirArrayAttrGetElement(a, i)))
                .collect::<Option<Vec<_>>>()?;
            return Some(p.array(&items));
        }
        if mlirAttributeIsADictionary(a) {
            let entries = dictionary_entries(p, a)?;
            return Some(p.dictionary(&entries));
        }
        None
    }
}

/// The entries of a dictionary attribute as `opaque<"key" = [value]>`.
fn dictionary_entries(p: &mut Program, a: MlirAttribute) -> Option<Vec<u64>> {
    unsafe {
        (0..mlirDictionaryAttrGetNumElements(a))
            .map(|i| {
                let e = mlirDictionaryAttrGetElement(a, i);
                let key = String::from_utf8_lossy(&string_ref_bytes(mlirIdentifierStr(e.name)))
                    .into_owned();
                let v = serialize(p, e.attribute)?;
                Some(p.opaque(&key, &[v]))
            })
            .collect()
    }
}

/// `#coreai.composite_declaration<"name" = {dict}>` as `graph_v1`'s
/// `compositeDecl`: `opaque<"name" = [opaque<"key" = [value]>...]>`.
fn composite_decl(p: &mut Program, graph: MlirOperation, a: MlirAttribute) -> Option<u64> {
    let text = attr_text(a);
    let rest = text.strip_prefix("#coreai.composite_declaration<\"")?;
    let (name, rest) = rest.split_once('"')?;
    let dict = rest
        .trim_start()
        .strip_prefix('=')?
        .trim()
        .strip_suffix('>')?;
    let context = unsafe { mlirOperationGetContext(graph) };
    let d = unsafe { mlirAttributeParseGet(context, string_ref(dict)) };
    if d.ptr.is_null() || !unsafe { mlirAttributeIsADictionary(d) } {
        return None;
    }
    let entries = dictionary_entries(p, d)?;
    Some(p.opaque(name, &entries))
}

/// The aicode `main.mlirb` of `module`, a `builtin.module` of compiled
/// coreai graphs, streamed to `out`: the weights go from the module's blobs
/// to `out` without a copy of them in memory.
pub fn write_into(
    module: MlirOperation,
    out: &mut dyn coreai_asset::Sink,
) -> Result<(), super::BackendError> {
    convert(module)?.finish_into(out)?;
    Ok(())
}

/// The program of `module`; it borrows the module's blobs, so it must be
/// finished while the module lives and is not changed (`write_into`
/// finishes it at once).
fn convert<'m>(module: MlirOperation) -> Result<Program<'m>, AicodeError> {
    let mut p = Program::new();
    let l = op_location(&mut p, module);
    p.set_asset_location(l);
    let body = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)) };
    let graphs = coreai_ir::raw::block_ops(body);
    if graphs.is_empty() {
        return Err(error(
            module,
            "defines no coreai.graph: an asset needs an entry point",
        ));
    }
    for graph in graphs {
        if op_name(graph) != "coreai.graph" {
            return Err(error(graph, format!("at the top level {NOT_YET}")));
        }
        convert_graph(&mut p, graph)?;
    }
    Ok(p)
}

const GRAPH_ATTRS: &[&str] = &[
    "arg_attrs",
    "res_attrs",
    "function_type",
    "param_decls",
    "sym_name",
    "__coreai_pure__",
    "priv",
    "no_inline",
    "externalize",
    "composite_decl",
    "template_op",
];

fn convert_graph(p: &mut Program, graph: MlirOperation) -> Result<(), AicodeError> {
    let mut spec = Graph::default();
    for (name, a) in attributes(graph) {
        let empty_params = name == "param_decls" && attr_text(a).contains("<[]>");
        if !GRAPH_ATTRS.contains(&name.as_str()) || (name == "param_decls" && !empty_params) {
            return Err(error(
                graph,
                format!("with attribute '{name}' ({}) {NOT_YET}", attr_text(a)),
            ));
        }
        match name.as_str() {
            "sym_name" => spec.name = string_value(a),
            "priv" => spec.private = true,
            "no_inline" => spec.noinline = true,
            "externalize" => spec.externalize = true,
            "composite_decl" => {
                spec.composite_decl = Some(composite_decl(p, graph, a).ok_or_else(|| {
                    error(
                        graph,
                        format!("with composite declaration {} {NOT_YET}", attr_text(a)),
                    )
                })?)
            }
            _ => {}
        }
    }
    let block = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(graph, 0)) };
    let nargs = unsafe { mlirBlockGetNumArguments(block) } as usize;
    let mut values: HashMap<usize, Value> = HashMap::new();
    spec.arg_attrs = arg_attrs(p, graph, "arg_attrs", nargs)?;
    spec.stateful = has_state(graph, "arg_attrs");
    let mut locs = Vec::new();
    for i in 0..nargs {
        let v = unsafe { mlirBlockGetArgument(block, i as isize) };
        spec.inputs.push(value_type(graph, v)?);
        locs.push(value_location(p, v));
        values.insert(v.ptr as usize, i as Value);
    }
    spec.loc = Some(op_location(p, graph));
    let mut body = p.body_at(&spec.inputs, &locs);
    let mut constants: HashSet<Value> = HashSet::new();
    for op in coreai_ir::raw::block_ops(block) {
        let name = op_name(op);
        let l = op_location(p, op);
        p.set_location(l);
        if name == "coreai.output" {
            let operands = operand_values(op, &values)?;
            spec.result_attrs = arg_attrs(p, graph, "res_attrs", operands.len())?;
            spec.stateful |= has_state(graph, "res_attrs");
            spec.results = operands.iter().map(|&v| body.ty(v).clone()).collect();
            ops::output(p, &mut body, &operands);
            continue;
        }
        let results = convert_op(p, &mut body, op, &name, &values, &constants)?;
        if name == "coreai.constant" {
            constants.insert(results[0]);
        }
        for (i, v) in results.into_iter().enumerate() {
            let r = unsafe { mlirOperationGetResult(op, i as isize) };
            values.insert(r.ptr as usize, v);
        }
    }
    p.graph(&spec, body);
    Ok(())
}

/// A region of `coreai.if`/`coreai.while` (not isolated: its ops may use
/// the values of `parent`), ended by `coreai.yield` (`dataflow.yield_v1`)
/// or `coreai.condition` (`controlflow.condition_v1`).
fn convert_nested(
    p: &mut Program,
    parent: &Body,
    region: MlirRegion,
    values: &HashMap<usize, Value>,
    constants: &HashSet<Value>,
) -> Result<coreai_asset::bytecode::writer::Region, AicodeError> {
    let block = unsafe { mlirRegionGetFirstBlock(region) };
    let owner = unsafe { mlirBlockGetParentOperation(block) };
    let nargs = unsafe { mlirBlockGetNumArguments(block) } as usize;
    let mut types = Vec::new();
    let mut locs = Vec::new();
    for i in 0..nargs {
        let v = unsafe { mlirBlockGetArgument(block, i as isize) };
        types.push(value_type(owner, v)?);
        locs.push(value_location(p, v));
    }
    let mut inner = p.nested_body(parent, &types, &locs);
    let mut values = values.clone();
    for i in 0..nargs {
        let v = unsafe { mlirBlockGetArgument(block, i as isize) };
        values.insert(v.ptr as usize, inner.arg(i));
    }
    let mut constants = constants.clone();
    for op in coreai_ir::raw::block_ops(block) {
        let name = op_name(op);
        let l = op_location(p, op);
        p.set_location(l);
        let terminator = match name.as_str() {
            "coreai.yield" => Some("dataflow.yield_v1"),
            "coreai.condition" => Some("controlflow.condition_v1"),
            _ => None,
        };
        if let Some(t) = terminator {
            let operands = operand_values(op, &values)?;
            p.op(&mut inner, t, ops::version(t), None, &operands, &[], vec![]);
            continue;
        }
        let results = convert_op(p, &mut inner, op, &name, &values, &constants)?;
        if name == "coreai.constant" {
            constants.insert(results[0]);
        }
        for (i, v) in results.into_iter().enumerate() {
            let r = unsafe { mlirOperationGetResult(op, i as isize) };
            values.insert(r.ptr as usize, v);
        }
    }
    Ok(Program::region(inner))
}

/// A single-block region of scalar-tensor arguments whose ops are in the
/// writer's subset, ended by `coreai.yield` (a combiner: `scatter_nd`'s
/// update function).
fn convert_region(
    p: &mut Program,
    parent: MlirOperation,
    region: MlirRegion,
) -> Result<coreai_asset::bytecode::writer::Region, AicodeError> {
    let block = unsafe { mlirRegionGetFirstBlock(region) };
    let nargs = unsafe { mlirBlockGetNumArguments(block) } as usize;
    let mut values: HashMap<usize, Value> = HashMap::new();
    let mut types = Vec::new();
    let mut locs = Vec::new();
    for i in 0..nargs {
        let v = unsafe { mlirBlockGetArgument(block, i as isize) };
        types.push(value_type(parent, v)?);
        locs.push(value_location(p, v));
        values.insert(v.ptr as usize, i as Value);
    }
    let mut body = p.body_at(&types, &locs);
    let constants = HashSet::new();
    for op in coreai_ir::raw::block_ops(block) {
        let name = op_name(op);
        let l = op_location(p, op);
        p.set_location(l);
        if name == "coreai.yield" {
            let operands = operand_values(op, &values)?;
            if operands.len() != 1 {
                return Err(error(
                    op,
                    format!("with {} values {NOT_YET}", operands.len()),
                ));
            }
            ops::yield_(p, &mut body, operands[0]);
            continue;
        }
        let results = convert_op(p, &mut body, op, &name, &values, &constants)?;
        for (i, v) in results.into_iter().enumerate() {
            let r = unsafe { mlirOperationGetResult(op, i as isize) };
            values.insert(r.ptr as usize, v);
        }
    }
    Ok(Program::region(body))
}

fn operand_values(
    op: MlirOperation,
    values: &HashMap<usize, Value>,
) -> Result<Vec<Value>, AicodeError> {
    (0..unsafe { mlirOperationGetNumOperands(op) })
        .map(|i| {
            let v = unsafe { mlirOperationGetOperand(op, i) };
            values.get(&(v.ptr as usize)).copied().ok_or_else(|| {
                error(
                    op,
                    format!("using a value from outside its graph {NOT_YET}"),
                )
            })
        })
        .collect()
}

/// One coreai op as aicode; returns its results.
fn convert_op(
    p: &mut Program,
    body: &mut Body,
    op: MlirOperation,
    name: &str,
    values: &HashMap<usize, Value>,
    constants: &HashSet<Value>,
) -> Result<Vec<Value>, AicodeError> {
    let short = name.strip_prefix("coreai.").unwrap_or(name);
    let regions = unsafe { mlirOperationGetNumRegions(op) };
    let with_regions = ["scatter_nd", "reduce", "reduce_index", "if", "while"];
    let copy = matches!(
        name,
        "coreaix.copy_with_constraints" | "coreaix.copy_discarding_constraints"
    );
    if !(name.starts_with("coreai.") || copy) || (regions != 0 && !with_regions.contains(&short)) {
        return Err(error(op, NOT_YET));
    }
    let results = (0..unsafe { mlirOperationGetNumResults(op) })
        .map(|i| value_type(op, unsafe { mlirOperationGetResult(op, i) }))
        .collect::<Result<Vec<_>, _>>()?;
    let attrs = attributes(op);
    if copy || short == "metal4_kernel" {
        return hardware_op(p, body, op, name, &attrs, values, &results);
    }
    // Encoded tensors are written only where coreai-core's form was
    // measured: the copies, metal4_kernel, graph arguments and results,
    // `invoke` (its operands and results keep their types), and the reads
    // and writes of a constrained state's handle (set_hardware_constraints
    // on a state).
    let inputs = operand_values(op, values)?;
    if short == "invoke" {
        return invoke(p, body, op, &attrs, &inputs, &results);
    }
    let handle_access = matches!(short, "read_handle" | "write_handle");
    if let Some(t) = results
        .iter()
        .chain(inputs.iter().map(|&v| body.ty(v)))
        .filter(|_| !handle_access)
        .find(|t| t.hw_constraints().is_some())
    {
        let e = t.hw_constraints().expect("hardware constraints");
        return Err(error(
            op,
            format!(
                "on a #coreaix.hw_constraints<{}, ...> tensor {NOT_YET}",
                e.backing.keyword()
            ),
        ));
    }
    if short == "if" || short == "while" {
        if let Some((n, a)) = attrs.first() {
            return Err(error(
                op,
                format!("with attribute '{n}' ({}) {NOT_YET}", attr_text(*a)),
            ));
        }
        let operands = operand_values(op, values)?;
        let mut converted = Vec::new();
        for i in 0..regions {
            let region = unsafe { mlirOperationGetRegion(op, i) };
            converted.push(convert_nested(p, body, region, values, constants)?);
        }
        let aicode = format!("controlflow.{short}_v1");
        let l = op_location(p, op);
        p.set_location(l);
        return Ok(p.op(
            body,
            &aicode,
            ops::version(&aicode),
            None,
            &operands,
            &results,
            converted,
        ));
    }
    if matches!(short, "scatter_nd" | "reduce" | "reduce_index") {
        if let Some((n, a)) = attrs.first() {
            return Err(error(
                op,
                format!("with attribute '{n}' ({}) {NOT_YET}", attr_text(*a)),
            ));
        }
        let operands = operand_values(op, values)?;
        let region = convert_region(p, op, unsafe { mlirOperationGetRegion(op, 0) })?;
        let aicode = format!("primitive.{short}_v1");
        let l = op_location(p, op);
        p.set_location(l);
        return Ok(p.op(
            body,
            &aicode,
            ops::version(&aicode),
            None,
            &operands,
            &results,
            vec![region],
        ));
    }
    let dataflow = match short {
        "create_token" | "join_token" | "read_handle" | "write_handle" => Some(short),
        _ => None,
    };
    if let (Some(d), true) = (dataflow, attrs.is_empty()) {
        let operands = operand_values(op, values)?;
        let aicode = format!("dataflow.{d}_v1");
        return Ok(p.op(
            body,
            &aicode,
            ops::version(&aicode),
            None,
            &operands,
            &results,
            vec![],
        ));
    }
    if short == "split" && attrs.is_empty() {
        let operands = operand_values(op, values)?;
        return Ok(p.op(
            body,
            "primitive.split_v1",
            ops::version("primitive.split_v1"),
            None,
            &operands,
            &results,
            vec![],
        ));
    }
    if results.len() != 1 {
        return Err(error(
            op,
            format!("with {} results {NOT_YET}", results.len()),
        ));
    }
    single_result(p, body, op, short, &attrs, values, constants, &results[0]).map(|v| vec![v])
}

/// `coreai.invoke` as `invoke_v1`: the callee's name from `callee`
/// (`#param.constant<@name> : !param.symbol`, or `@name`), the operands and
/// results as they are (encoded ones included, as coreai-core writes them).
fn invoke(
    p: &mut Program,
    body: &mut Body,
    op: MlirOperation,
    attrs: &[(String, MlirAttribute)],
    operands: &[Value],
    results: &[TensorType],
) -> Result<Vec<Value>, AicodeError> {
    if let Some((n, a)) = attrs.iter().find(|(n, _)| n != "callee") {
        return Err(error(
            op,
            format!("with attribute '{n}' ({}) {NOT_YET}", attr_text(*a)),
        ));
    }
    let callee = attrs
        .iter()
        .find(|(n, _)| n == "callee")
        .map(|(_, a)| attr_text(*a))
        .unwrap_or_default();
    let callee = callee
        .split_once('@')
        .map(|(_, rest)| {
            rest.split(['>', ' ', ':'])
                .next()
                .unwrap_or_default()
                .trim_matches('"')
                .to_string()
        })
        .unwrap_or_default();
    Ok(ops::invoke(p, body, &callee, operands, results))
}

/// `coreaix.copy_with_constraints`, `copy_discarding_constraints` (no
/// attributes) and `coreai.metal4_kernel` (`kernel_name`,
/// `kernel_source`; its operand segments follow from the number of
/// results).
fn hardware_op(
    p: &mut Program,
    body: &mut Body,
    op: MlirOperation,
    name: &str,
    attrs: &[(String, MlirAttribute)],
    values: &HashMap<usize, Value>,
    results: &[TensorType],
) -> Result<Vec<Value>, AicodeError> {
    let operands = operand_values(op, values)?;
    if name == "coreai.metal4_kernel" {
        let known = ["kernel_name", "kernel_source", "operandSegmentSizes"];
        if let Some((n, a)) = attrs.iter().find(|(n, _)| !known.contains(&n.as_str())) {
            return Err(error(
                op,
                format!("with attribute '{n}' ({}) {NOT_YET}", attr_text(*a)),
            ));
        }
        let string = |key: &str| {
            attrs
                .iter()
                .find(|(n, a)| n == key && unsafe { mlirAttributeIsAString(*a) })
                .map(|(_, a)| string_value(*a))
                .ok_or_else(|| error(op, format!("without its string '{key}'")))
        };
        let (kernel, source) = (string("kernel_name")?, string("kernel_source")?);
        return Ok(ops::metal4_kernel(
            p, body, &kernel, &source, &operands, results,
        ));
    }
    if let Some((n, a)) = attrs.first() {
        return Err(error(
            op,
            format!("with attribute '{n}' ({}) {NOT_YET}", attr_text(*a)),
        ));
    }
    let to_encoding = name == "coreaix.copy_with_constraints";
    let ([x], [result]) = (operands.as_slice(), results) else {
        return Err(error(op, "without one operand and one result"));
    };
    Ok(vec![ops::copy_constraints(
        p,
        body,
        to_encoding,
        *x,
        result,
    )])
}

/// A coreai op with one result.
#[allow(clippy::too_many_arguments)]
fn single_result(
    p: &mut Program,
    body: &mut Body,
    op: MlirOperation,
    short: &str,
    attrs: &[(String, MlirAttribute)],
    values: &HashMap<usize, Value>,
    constants: &HashSet<Value>,
    result: &TensorType,
) -> Result<Value, AicodeError> {
    let result = result.clone();
    let allowed: &[&str] = match short {
        "constant" => &["value"],
        "pad" => &["padding_mode"],
        "gelu" => &["approximate"],
        "scatter_along_axis" => &["scatter_mode"],
        "interpolate" => &["interpolation_mode"],
        "scan" => &["scan_op"],
        _ => &[],
    };
    if let Some((n, a)) = attrs.iter().find(|(n, _)| !allowed.contains(&n.as_str())) {
        return Err(error(
            op,
            format!("with attribute '{n}' ({}) {NOT_YET}", attr_text(*a)),
        ));
    }
    if short == "constant" {
        return constant(p, body, op, &attrs[0].1, &result);
    }
    let mut operands = operand_values(op, values)?;
    // coreai-core's conversion folds commutative ops, which moves a
    // constant operand to the right (MLIR's `Commutative` fold).
    let base = short
        .strip_prefix("decomposable.broadcasting_")
        .unwrap_or(short);
    if COMMUTATIVE.contains(&base)
        && operands.len() == 2
        && constants.contains(&operands[0])
        && !constants.contains(&operands[1])
    {
        operands.swap(0, 1);
    }
    let unsupported = |e: ops::Unsupported| error(op, e.0);
    if let Some(bin) = short.strip_prefix("decomposable.broadcasting_") {
        if bin == "batch_matmul" {
            return ops::batch_matmul(p, body, operands[0], operands[1], &result)
                .map_err(unsupported);
        }
        let Some((composite, primitive)) = ops::broadcasting_names(bin) else {
            return Err(error(op, NOT_YET));
        };
        return ops::broadcasting(p, body, composite, primitive, &operands, &result)
            .map_err(unsupported);
    }
    if ops::UNARY_PRIMITIVES.contains(&short) {
        let prim = format!("primitive.{short}_v1");
        return Ok(ops::simple(p, body, &prim, None, &operands, &result));
    }
    if let Some(prim) = ops::operand_primitive(short) {
        return Ok(ops::simple(p, body, prim, None, &operands, &result));
    }
    match short {
        "relu" => ops::relu(p, body, operands[0], &result).map_err(unsupported),
        "sigmoid" => ops::sigmoid(p, body, operands[0], &result).map_err(unsupported),
        "silu" => ops::silu(p, body, operands[0], &result).map_err(unsupported),
        "softmax" => ops::softmax(p, body, operands[0], operands[1], &result).map_err(unsupported),
        "reduce_mean" => {
            ops::reduce_mean(p, body, operands[0], operands[1], &result).map_err(unsupported)
        }
        "argmax" => ops::argmax(p, body, operands[0], operands[1], &result).map_err(unsupported),
        r if ops::Reduce::from_coreai(r).is_some() => {
            let kind = ops::Reduce::from_coreai(r).expect("a reduction");
            ops::reduce(p, body, kind, operands[0], operands[1], &result).map_err(unsupported)
        }
        "tile" => ops::tile(p, body, operands[0], operands[1], &result).map_err(unsupported),
        "sort" => Ok(ops::sort(p, body, &operands, &result)),
        "scatter_along_axis" | "interpolate" | "scan" => {
            // Enum properties: (aicode op, property code, coreai keywords in
            // value order); a missing scatter mode is `update`.
            let (prim, code, keywords): (&str, u64, &[&str]) = match short {
                "scatter_along_axis" => (
                    "primitive.scatter_along_axis_v1",
                    20,
                    &["update", "add", "sub", "mul", "div", "max", "min"],
                ),
                "interpolate" => (
                    "primitive.interpolate_v1",
                    43,
                    &["linear", "nearest_neighbor"],
                ),
                _ => ("primitive.scan_v1", 25, &["sum", "product", "min", "max"]),
            };
            let value = match attrs.first() {
                None if short == "scatter_along_axis" => 0,
                None => return Err(error(op, format!("without its mode {NOT_YET}"))),
                Some((_, a)) if short == "scan" => {
                    let v = unsafe { mlirIntegerAttrGetValueInt(*a) };
                    if !(0..keywords.len() as i64).contains(&v) {
                        return Err(error(op, format!("with combiner {v} {NOT_YET}")));
                    }
                    v as usize
                }
                Some((_, a)) => {
                    let text = attr_text(*a);
                    keywords
                        .iter()
                        .position(|k| text.ends_with(&format!("<{k}>")))
                        .ok_or_else(|| error(op, format!("with mode {text} {NOT_YET}")))?
                }
            };
            let e = p.enum_attr(code, value as u64);
            Ok(ops::simple(
                p,
                body,
                prim,
                Some(ops::props(&[e])),
                &operands,
                &result,
            ))
        }
        "gelu" => {
            let tanh = attrs.iter().any(|(_, a)| attr_text(*a).contains("tanh"));
            Ok(ops::gelu(p, body, operands[0], tanh, &result))
        }
        "pad" => {
            let text = attrs
                .first()
                .map(|(_, a)| attr_text(*a))
                .unwrap_or_default();
            let mode = ["circular", "constant", "reflect", "replicate", "symmetric"]
                .iter()
                .position(|m| text.contains(&format!("<{m}>")))
                .ok_or_else(|| error(op, format!("with padding mode {text} {NOT_YET}")))?;
            Ok(ops::pad(p, body, &operands, mode as u64, &result))
        }
        _ => Err(error(op, NOT_YET)),
    }
}

/// A deferred permute of a weight ([`coreai_ir::deferred`]), made as the
/// asset's file is written.
struct Deferred(Arc<coreai_ir::deferred::Entry>);

impl coreai_asset::Produce for Deferred {
    fn len(&self) -> usize {
        self.0.permuted().len()
    }

    fn pieces(&self, target: usize) -> Vec<std::ops::Range<usize>> {
        self.0.permuted().pieces(target)
    }

    fn fill(&self, range: std::ops::Range<usize>, out: &mut [u8]) {
        self.0.permuted().fill(range, out)
    }

    fn identity(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
}

/// `coreai.constant`: `dense` → `dense_elements` (raw bytes, one element
/// when splat), `dense_resource` → `dense_resource` (the blob moved to the
/// aicode resource group under its key).
fn constant(
    p: &mut Program,
    body: &mut Body,
    op: MlirOperation,
    value: &MlirAttribute,
    result: &TensorType,
) -> Result<Value, AicodeError> {
    let a = *value;
    unsafe {
        if mlirAttributeIsADenseResourceElements(a) {
            // Borrowed, not copied: the blob lives in the module, which
            // outlives the program being written (`write`, `write_into`).
            // A deferred permute is made piece by piece as it is written.
            let blob: Blob<'_> = match coreai_ir::deferred::blob_source(a) {
                Some(BlobSource::Bytes(bytes)) => bytes.into(),
                Some(BlobSource::Deferred(entry)) => Blob::Produced(Arc::new(Deferred(entry))),
                None => return Err(error(op, "has a dense_resource without its blob")),
            };
            let text = attr_text(a);
            let key = text
                .strip_prefix("dense_resource<")
                .and_then(|t| t.split_once('>'))
                .map(|(k, _)| k.to_string())
                .unwrap_or_else(|| "resource".into());
            let alignment = crate::ffi::coreaiDenseResourceElementsGetAlignment(a).max(1) as u64;
            let attr = p.dense_resource(&key, alignment, blob);
            return Ok(ops::constant_attr(p, body, attr, result));
        }
        if !mlirAttributeIsADenseElements(a) {
            return Err(error(op, format!("with value {} {NOT_YET}", attr_text(a))));
        }
        let splat = mlirDenseElementsAttrIsSplat(a);
        if result.elt == Elt::UI1 && !splat {
            // coreai-core bit-packs an inline ui1 constant (not measured
            // here); compressed weights keep theirs in packed blobs.
            return Err(error(op, format!("with an inline ui1 constant {NOT_YET}")));
        }
        let data = if result.elt == Elt::Bool {
            if splat {
                vec![mlirDenseElementsAttrGetBoolSplatValue(a) as u8]
            } else {
                (0..result.num_elements())
                    .map(|i| mlirDenseElementsAttrGetBoolValue(a, i as isize) as u8)
                    .collect()
            }
        } else {
            let n = if splat {
                1
            } else {
                result.num_elements() as usize
            };
            let raw = mlirDenseElementsAttrGetRawData(a) as *const u8;
            let len = n * result.elt.size();
            if len == 0 || raw.is_null() {
                Vec::new()
            } else {
                std::slice::from_raw_parts(raw, len).to_vec()
            }
        };
        Ok(ops::constant(p, body, &Dense { splat, data }, result))
    }
}
