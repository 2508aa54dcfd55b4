#!/usr/bin/env python3
"""Generates dialects/coreai/CoreAIGeneratedOps.td: the coreai ops whose
structure is regular (tensor operands in, tensors out, a declarative assembly
format).

The table below records, per op, the operand and result names and the
assembly-format family observed by building each op with coreai-core
1.0.0b3's Python API and printing it (names in declaration order, as its
generated bindings list them). Ops with regions, symbols, enums or special
types are written by hand in CoreAIOps.td.

Operand and result types come from utils/coreai-ods/element_types.json, the
element-type (and rank/encoding) constraints observed by
probe_element_types.py: each observed constraint becomes one class in
dialects/coreai/CoreAITypeConstraints.td whose summary is coreai-core's own
text, so the verifiers reject the same types with the same message, and each
op slot gets a def `CoreAI_<Op>_<operand>` (hand-written ops in CoreAIOps.td
use these too).

Run (regenerates both files):
    .venv/bin/python utils/coreai-ods/gen_ops_td.py
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DATA = json.load(open(os.path.join(HERE, "element_types.json")))["ops"]

# Format families (the printed form, with `{attrs}` where coreai-core prints
# the attribute dictionary):
#   unary  : %r = op %x : T -> R {attrs}
#   to     : %r = op %x : T to R {attrs}
#   fn     : %r = op %a, %b : (A, B) -> R {attrs}
#   fnkw   : %r = op %a, %b attributes {attrs} : (A, B) -> R
#   fnd    : %r = op %a, %b {attrs} : (A, B) -> R
#   fnto   : %r = op %a, %b : (A, B) to R {attrs}
#   fnres  : %r:n = op %a, %b : (A, B) -> (R...) {attrs}
UNARY_MATH = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos",
              "cosh", "erf", "exp", "log", "round", "rsqrt", "sin", "sinh",
              "sqrt", "tan", "tanh"]
BINARY_XY = ["add", "and", "bitwise_and", "bitwise_or", "bitwise_xor", "divide",
             "floor_divide", "maximum", "minimum", "modulo", "mul", "or", "pow",
             "sub", "xor"]
BROADCASTING = ["add", "and", "bitwise_and", "bitwise_or", "bitwise_xor",
                "divide", "equal", "floor_divide", "greater", "maximum",
                "minimum", "modulo", "mul", "not_equal", "or", "pow", "sub",
                "xor"]

# (op, operands, results, family, summary, traits, verifier)
OPS = []
for n in UNARY_MATH:
    OPS.append((n, ["x"], ["output"], "unary", f"elementwise {n.replace('_', ' ')}", "unary", None))
OPS.append(("not", ["x"], ["result"], "unary", "elementwise logical not", "unary", None))
for n in BINARY_XY:
    OPS.append((n, ["x", "y"], ["output"], "fn", f"elementwise {n.replace('_', ' ')} of same-shaped operands", "samebin", None))
OPS.append(("equal", ["input", "other"], ["output"], "fn", "elementwise equality of same-shaped operands", "samebin", None))
OPS.append(("not_equal", ["input", "other"], ["output"], "fn", "elementwise inequality of same-shaped operands", "samebin", None))
OPS.append(("greater", ["input", "other"], ["output"], "fn", "elementwise greater-than of same-shaped operands", "samebin", None))
for n in BROADCASTING:
    OPS.append((f"decomposable.broadcasting_{n}", ["input", "other"], ["output"], "fnkw",
                f"elementwise {n.replace('_', ' ')} with NumPy broadcasting", "", "broadcast"))
OPS += [
    ("decomposable.broadcasting_batch_matmul", ["x", "y"], ["output"], "fnkw", "batched matrix product with broadcast batch dimensions", "", None),
    ("decomposable.broadcasting_where", ["condition", "a", "b"], ["results_"], "fnkw", "elementwise select with NumPy broadcasting", "", "broadcast3"),
    ("batch_matmul", ["x", "y"], ["output"], "fn", "batched matrix product", "", None),
    ("where", ["condition", "a", "b"], ["result"], "fn", "elementwise select of same-shaped operands", "", None),
    ("all", ["input", "axes"], ["result"], "fnkw", "logical and over axes", "", None),
    ("any", ["input", "axes"], ["result"], "fnkw", "logical or over axes", "", None),
    ("reduce_max", ["input", "axes"], ["output"], "fnkw", "maximum over axes", "", None),
    ("reduce_mean", ["input", "axes"], ["output"], "fnkw", "mean over axes", "", None),
    ("reduce_min", ["input", "axes"], ["output"], "fnkw", "minimum over axes", "", None),
    ("reduce_product", ["input", "axes"], ["output"], "fnkw", "product over axes", "", None),
    ("reduce_sum", ["input", "axes"], ["output"], "fnkw", "sum over axes", "", None),
    ("argmax", ["input", "axis"], ["output"], "fnkw", "index of the maximum along an axis", "", None),
    ("argsort", ["input", "dim", "descending", "stable"], ["result"], "fn", "indices that sort along a dimension", "", None),
    ("sort", ["input", "dim", "descending", "stable"], ["result"], "fnkw", "values sorted along a dimension", "", None),
    ("asymmetric_quantization_statistics", ["input", "range", "axis"], ["scale", "zero_point"], "fnkw", "scale and zero point for asymmetric quantization", "", None),
    ("symmetric_quantization_statistics", ["input", "range", "axis"], ["scale"], "fnkw", "scale for symmetric quantization", "", None),
    ("quantize", ["input", "scale", "offset1", "offset2", "axis"], ["output"], "fnkw", "quantize with scale and offsets", "", None),
    ("dequantize", ["input", "scale", "offset1", "offset2", "axis"], ["output"], "fnkw", "dequantize with scale and offsets", "", None),
    ("blockwise_shift_scale", ["data", "scale", "offset1", "offset2"], ["output"], "fn", "blockwise shift and scale of compressed data", "", None),
    ("lut_to_dense", ["indices", "lut", "axis"], ["result"], "fn", "expand lookup-table indices to a dense tensor", "", None),
    ("lut_to_sparse_with_bitmask", ["indices", "lut", "axis"], ["result"], "fn", "expand lookup-table indices to a bitmask-sparse tensor", "", None),
    ("build_sparse_with_bitmask", ["values", "bitmask"], ["result"], "fn", "build a bitmask-sparse tensor from values and a bitmask", "", None),
    ("sparse_with_bitmask_to_dense", ["input"], ["result"], "unary", "densify a bitmask-sparse tensor", "", None),
    ("broadcast_in_dims", ["input", "dim_sizes", "axes"], ["output"], "fn", "broadcast into given dimensions", "", None),
    ("broadcast_shapes", ["shape_1", "shape_2"], ["output"], "fn", "the broadcast of two shapes", "", None),
    ("broadcast_to", ["input", "shape"], ["output"], "fn", "broadcast to a shape", "", None),
    ("cast", ["input"], ["output"], "to", "element type conversion", "sameshape", None),
    ("concat", ["dimension", "inputs*"], ["result"], "fn", "concatenate along a dimension", "", None),
    ("conv2d", ["input", "weight", "stride", "dilation", "groups"], ["output"], "fn", "2-D convolution", "", None),
    ("conv3d", ["input", "weight", "stride", "dilation", "groups"], ["output"], "fn", "3-D convolution", "", None),
    ("conv_transpose2d", ["input", "weight", "stride", "padding", "dilation", "output_pad", "groups"], ["output"], "fn", "2-D transposed convolution", "", None),
    ("conv_transpose3d", ["input", "weight", "stride", "padding", "dilation", "output_pad", "groups"], ["output"], "fn", "3-D transposed convolution", "", None),
    ("create_complex", ["real", "imaginary"], ["result"], "fn", "complex tensor from real and imaginary parts", "", None),
    ("real_part", ["input"], ["real"], "fn", "real part of a complex tensor", "", None),
    ("imaginary_part", ["input"], ["result"], "fn", "imaginary part of a complex tensor", "", None),
    ("expand_dims", ["input", "axes"], ["output"], "fnto", "insert unit dimensions", "", None),
    ("shrink_dims", ["input", "axes"], ["output"], "fnto", "remove unit dimensions", "", None),
    ("get_shape", ["input"], ["shape"], "unary", "the shape of a tensor as a 1-D tensor", "", None),
    ("non_zero", ["input"], ["result"], "unary", "indices of the non-zero elements", "", None),
    ("max_pool_2d", ["input", "kernel_size", "stride", "dilation", "ceil_mode"], ["output"], "fn", "2-D max pooling", "", None),
    ("max_pool_3d", ["input", "kernel_size", "stride", "dilation", "ceil_mode"], ["output"], "fn", "3-D max pooling", "", None),
    ("sum_pool_2d", ["input", "kernel_size", "strides", "dilation"], ["output"], "fn", "2-D sum pooling", "", None),
    ("sum_pool_3d", ["input", "kernel_size", "strides", "dilation"], ["output"], "fn", "3-D sum pooling", "", None),
    ("range", ["start", "stop", "step"], ["output"], "fn", "evenly spaced values in [start, stop)", "", None),
    ("relu", ["input"], ["output"], "fnkw", "rectified linear unit", "sameshape", None),
    ("sigmoid", ["input"], ["output"], "fnkw", "logistic sigmoid", "sameshape", None),
    ("silu", ["input"], ["output"], "fnkw", "sigmoid-weighted linear unit", "sameshape", None),
    ("softmax", ["input", "axis"], ["output"], "fn", "softmax along an axis", "", None),
    ("reshape", ["input", "new_shape"], ["output"], "fn", "change the shape, keeping the elements", "", None),
    ("reverse", ["input", "dims"], ["result"], "fn", "reverse along dimensions", "", None),
    ("slice", ["input", "start_indices", "end_indices", "strides"], ["output"], "fn", "strided slice", "", None),
    ("split", ["input", "split_size_or_sections", "dim"], ["results_*"], "fnres", "split along a dimension", "", None),
    ("tile", ["input", "dims"], ["output"], "fn", "repeat along each dimension", "", None),
    ("transpose", ["input", "permutation"], ["output"], "fn", "permute dimensions", "", None),
]


SHAPE_OPERANDS = {"argsort", "sort", "concat", "conv2d", "conv3d", "conv_transpose2d",
                  "conv_transpose3d", "max_pool_2d", "max_pool_3d", "sum_pool_2d",
                  "sum_pool_3d", "reshape", "reverse", "slice", "tile", "transpose",
                  "softmax", "broadcast_to", "broadcast_in_dims", "split"}


def cls(op):
    base = op.split(".")[-1]
    return "".join(p.capitalize() for p in base.split("_")) + "Op"


def strip(n):
    return n.rstrip("*")


def example_type(entry, default):
    """A type coreai-core accepts for a probed slot (its probed rank, a
    preferred accepted element type), else `default`."""
    if not entry or entry["shape"] is None or not entry["accepted"] or entry["encoding"]:
        return default
    pref = [t for t in ("f32", "si32", "ui32", "i1", "ui8") if t in entry["accepted"]]
    dims = entry["shape"] + "x" if entry["shape"] else ""
    return f"tensor<{dims}{(pref or entry['accepted'])[0]}>"


def example_types(op, operands, results):
    rec = DATA.get("coreai." + op, {"operands": [], "results": []})
    def types(entries, n, default):
        return [example_type(entries[i] if i < len(entries) else None, default(i)) for i in range(n)]
    ts = types(rec["operands"], len(operands), lambda i: "tensor<2x3xf32>" if i == 0 else "tensor<2xsi32>")
    rs = types(rec["results"], len(results), lambda i: "tensor<2x3xf32>")
    return ts, rs


def fmt(family, operands, results):
    ops = [f"${strip(o)}" for o in operands]
    opl = " `,` ".join(ops)
    tyl = " `,` ".join(f"type(${strip(o)})" for o in operands)
    r = strip(results[0])
    if family == "unary":
        return f"{opl} `:` type({ops[0]}) `->` type(${r}) attr-dict"
    if family == "to":
        return f"{opl} `:` type({ops[0]}) `to` type(${r}) attr-dict"
    if family == "fn":
        return f"{opl} `:` functional-type(operands, results) attr-dict"
    if family == "fnkw":
        return f"{opl} attr-dict-with-keyword `:` functional-type(operands, results)"
    if family == "fnto":
        return f"{opl} `:` `(` {tyl} `)` `to` type(${r}) attr-dict"
    if family == "fnres":
        return f"{opl} `:` `(` {tyl} `)` `->` `(` type(${r}) `)` attr-dict"
    raise ValueError(family)


def example(op, family, operands, results):
    ts, rs = example_types(op, operands, results)
    names = ["%x"] + [f"%a{i}" for i in range(1, len(operands))]
    lhs = ", ".join(f"%r{i}" for i in range(len(results))) if len(results) > 1 else "%r"
    args = ", ".join(names)
    if family == "unary":
        ty = f"{ts[0]} -> {rs[0]}"
    elif family == "to":
        ty = f"{ts[0]} to {rs[0]}"
    elif family in ("fn", "fnkw"):
        res = rs[0] if len(rs) == 1 else "(" + ", ".join(rs) + ")"
        ty = f"({', '.join(ts)}) -> {res}"
    elif family == "fnto":
        ty = f"({', '.join(ts)}) to {rs[0]}"
    else:
        ty = f"({', '.join(ts)}) -> ({rs[0]}, {rs[0]})"
        lhs = "%r:2"
    return f"{lhs} = coreai.{op} {args} : {ty}"


TRAITS = {
    "unary": "Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType",
    "samebin": "Pure, SameOperandsAndResultShape",
    "sameshape": "Pure, SameOperandsAndResultShape",
    "": "Pure",
}


# Element type spelling (as probed) -> ODS type.
ODS_ELEMENT = {
    "i1": "I1", "i2": "I<2>", "i4": "I<4>", "i8": "I8", "i16": "I16", "i32": "I32", "i64": "I64",
    "f16": "F16", "bf16": "BF16", "f32": "F32", "f64": "F64",
    "f8E5M2": "F8E5M2", "f8E4M3FN": "F8E4M3FN", "f8E4M3FNUZ": "F8E4M3FNUZ",
    "f4E2M1FN": "F4E2M1FN", "f8E8M0FNU": "F8E8M0FNU",
    "complex<f32>": "Complex<F32>", "complex<f16>": "Complex<F16>", "complex<f64>": "Complex<F64>",
    "index": "Index",
}


def ods_element(t):
    m = re.fullmatch(r"(s|u)i(\d+)", t)
    if m:
        return f"{m.group(1).upper()}I<{m.group(2)}>"
    return ODS_ELEMENT[t]


def shape_preds(summary, entry):
    """Rank/shape/encoding predicates coreai-core states in the summary."""
    preds = []
    m = re.match(r"(?:variadic of )?((?:\d+D/)*\d+D) ", summary)
    if m:
        ranks = [r.rstrip("D") for r in m.group(1).split("/")]
        preds.append("HasAnyRankOfPred<[" + ", ".join(ranks) + "]>")
    m = re.match(r"(\d+)-element ", summary)
    if m:
        preds.append("HasAnyRankOfPred<[1]>")
        preds.append(f'CPred<"::llvm::cast<::mlir::ShapedType>($_self).getDimSize(0) == {m.group(1)}">')
    if summary.startswith("statically shaped 1D"):
        preds += ["HasAnyRankOfPred<[1]>", "HasStaticShapePred"]
    enc = entry.get("encoding")
    if enc and enc.startswith("#coreaix."):
        preds.append('CPred<"::coreai::core::isMTLBufferBacked($_self)">')
    elif enc and enc.startswith("#coreai.sparse_tensor_encoding<bitmask"):
        preds.append('CPred<"::coreai::core::isSparseEncoded($_self, ::coreai::core::CompressionScheme::bitmask)">')
    elif enc:
        preds.append('CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding() != nullptr">')
    if "CoreAI Tensor" in summary and "Sparse" not in summary:
        # coreai-core's "CoreAI Tensor" rejects sparse-encoded tensors.
        preds.append('CPred<"!::coreai::core::isSparseEncoded($_self)">')
    return preds


def slot_entries():
    """(op, index, entry) for every tensor slot with an element-type constraint."""
    for op, rec in sorted(DATA.items()):
        if not op.startswith("coreai."):
            continue
        for kind in ("operands", "results"):
            for e in rec[kind]:
                if e["summary"] and e["rejected"] and e["shape"] is not None:
                    yield op, e


def constraint_key(e):
    summary = re.sub(r"^variadic of ", "", e["summary"])
    return summary, tuple(e["accepted"]), tuple(shape_preds(e["summary"], e))


def slot_def(op, name):
    return f"CoreAI_{cls(op)}_{name}"


def constraints_td():
    """dialects/coreai/CoreAITypeConstraints.td"""
    classes = {}
    for op, e in slot_entries():
        classes.setdefault(constraint_key(e), []).append((op, e["name"]))
    out = []
    w = out.append
    w("//===- CoreAITypeConstraints.td - coreai operand types ------*- tablegen -*-===//")
    w("//")
    w("// Generated by utils/coreai-ods/gen_ops_td.py from element_types.json (what")
    w("// probe_element_types.py observed coreai-core 1.0.0b3 accept and reject).")
    w("// Each class is one observed constraint: the element types it accepted out")
    w("// of the probe palette, the rank/shape/encoding its summary states, and the")
    w("// summary itself, verbatim, so diagnostics read like coreai-core's.")
    w("//")
    w("//===----------------------------------------------------------------------===//")
    w("")
    w("#ifndef COREAI_COREAI_TYPE_CONSTRAINTS")
    w("#define COREAI_COREAI_TYPE_CONSTRAINTS")
    w("")
    w('include "mlir/IR/CommonTypeConstraints.td"')
    w("")
    w("/// A ranked tensor whose element type is one of `elements` and which")
    w("/// satisfies `preds`.")
    w("class CoreAI_TensorConstraint<list<Type> elements, list<Pred> preds, string summary>")
    w("    : Type<And<!listconcat([IsRankedTensorTypePred,")
    w('        Concat<"[](::mlir::Type elementType) { return ",')
    w('               SubstLeaves<"$_self", "elementType", AnyTypeOf<elements>.predicate>,')
    w('               "; }(::llvm::cast<::mlir::ShapedType>($_self).getElementType())">], preds)>,')
    w('           summary, "::mlir::RankedTensorType">;')
    w("")
    for i, ((summary, accepted, preds), users) in enumerate(sorted(classes.items())):
        w(f"// Used by {len(users)} slot(s), e.g. {users[0][0]} `{users[0][1]}`.")
        w(f"class CoreAI_TC{i} : CoreAI_TensorConstraint<")
        w(f"    [{', '.join(ods_element(t) for t in accepted)}],")
        w(f"    [{', '.join(preds)}],")
        w(f'    "{summary}">;')
        for op, name in users:
            pass
        classes[(summary, accepted, preds)] = i
    w("")
    w("// One def per op slot, named CoreAI_<Op>_<operand or result>.")
    seen = set()
    for op, e in slot_entries():
        d = slot_def(op, e["name"])
        if d in seen:
            continue
        seen.add(d)
        w(f"def {d} : CoreAI_TC{classes[constraint_key(e)]};")
    w("")
    w("#endif // COREAI_COREAI_TYPE_CONSTRAINTS")
    return "\n".join(out) + "\n"


def slot_type(op, name, index, kind):
    """The ODS type of slot `name` (operand or result #index) of coreai.`op`."""
    rec = DATA.get("coreai." + op)
    entries = rec[kind] if rec else []
    if index < len(entries):
        e = entries[index]
        assert e["name"] == name, (op, name, e["name"])
        if e["summary"] and e["rejected"] and e["shape"] is not None:
            return slot_def("coreai." + op, name)
    return "CoreAI_Tensor"


def ops_td():
    out = []
    w = out.append
    w("//===- CoreAIGeneratedOps.td - regular coreai ops ----------*- tablegen -*-===//")
    w("//")
    w("// Generated by utils/coreai-ods/gen_ops_td.py; edit the table there.")
    w("//")
    w("//===----------------------------------------------------------------------===//")
    w("")
    w("#ifndef COREAI_COREAI_GENERATED_OPS")
    w("#define COREAI_COREAI_GENERATED_OPS")
    w("")
    w('include "coreai/CoreAIBase.td"')
    w('include "coreai/CoreAITypeConstraints.td"')
    w("")
    for op, operands, results, family, summary, traits, verifier in OPS:
        c = cls(op)
        if op.startswith("decomposable."):
            pass
        def typed(names, kind):
            parts = []
            for i, n in enumerate(names):
                t = slot_type(op, strip(n), i, kind)
                parts.append(f"Variadic<{t}>:${strip(n)}" if n.endswith("*") else f"{t}:${n}")
            return ", ".join(parts)
        args = typed(operands, "operands")
        res = typed(results, "results")
        ops_desc = ", ".join(f"`{strip(o)}`" for o in operands)
        w(f'def CoreAI_{c} : CoreAI_Op<"{op}", [{TRAITS[traits]}]> {{')
        w(f'  let summary = "{summary}";')
        w("  let description = [{")
        w(f"    Operands, in order: {ops_desc}.")
        if len(operands) > 1 and family not in ("fn",) or op in SHAPE_OPERANDS:
            w("    Shape-like operands (axes, sizes, strides, dimensions) are 0-D or 1-D")
            w("    integer tensors, not attributes, so they may be computed at run time.")
        if verifier in ("broadcast", "broadcast3"):
            w("")
            w("    `input` and `other` broadcast to the result shape with NumPy rules;")
            w("    the verifier checks every statically known dimension.")
        w("")
        w("    Example:")
        w("    ```mlir")
        w(f"    {example(op, family, operands, results)}")
        w("    ```")
        w("  }];")
        w(f"  let arguments = (ins {args});")
        w(f"  let results = (outs {res});")
        w(f'  let assemblyFormat = "{fmt(family, operands, results)}";')
        if verifier:
            w("  let hasVerifier = 1;")
        w("}")
        w("")
    w("#endif // COREAI_COREAI_GENERATED_OPS")
    return "\n".join(out) + "\n"


def main():
    files = {"CoreAIGeneratedOps.td": ops_td(), "CoreAITypeConstraints.td": constraints_td()}
    for name, text in files.items():
        path = os.path.join(REPO, "dialects", "coreai", name)
        if not os.path.exists(path) or open(path).read() != text:
            open(path, "w").write(text)
            print(f"wrote {os.path.relpath(path, REPO)}", file=sys.stderr)


if __name__ == "__main__":
    main()
