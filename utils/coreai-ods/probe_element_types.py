#!/usr/bin/env python3
"""Probes coreai-core 1.0.0b3 for the element-type constraint of every operand
and result of every coreai and coreaix op, and records what it observes in
utils/coreai-ods/element_types.json (the data gen_ops_td.py turns into ODS
type constraints).

Method. The op list, operand/result names and kinds (single, optional,
variadic) and required attributes come from coreai-core's generated Python
bindings (_coreai_ops_gen.py, _coreaix_ops_gen.py). Each op is written in
generic form inside a `coreai.graph` whose arguments feed its operands. Slots
(operands in order, then results) are probed one at a time: every earlier
slot holds a type already seen to be accepted, the probed slot holds one
tensor type of the palette, later slots hold anything. ODS checks operand and
result constraints in order, so the probed type is rejected exactly when
coreai-core's diagnostic is "operand #i must be ..." / "result #i must be
..." for the probed slot; that message's text (what follows "must be") is
recorded as the slot's constraint summary. A slot where no palette type is
rejected has no element-type constraint (e.g. `AnyType`).

Run: .venv/bin/python utils/coreai-ods/probe_element_types.py
(about a minute; writes utils/coreai-ods/element_types.json).
"""
import ast
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(REPO, "utils", "coreai-ods", "element_types.json")

# Element types fed to every slot. Each is probed as tensor<2x3xT>.
PALETTE = ["i1", "i4", "i8", "i16", "i32", "i64", "si4", "si8", "si16", "si32", "si64",
           "ui1", "ui2", "ui3", "ui4", "ui6", "ui8", "ui16", "ui32", "ui64",
           "f16", "bf16", "f32", "f64", "f8E5M2", "f8E4M3FN", "f8E4M3FNUZ",
           "f4E2M1FN", "f8E8M0FNU", "si2", "i2",
           "complex<f32>", "complex<f16>", "complex<f64>", "index"]

# A valid value for each required attribute, by name.
REQUIRED_ATTRS = {
    "padding_mode": "#coreai.padding_mode<constant>",
    "interpolation_mode": "#coreai.interpolation_mode<linear>",
    "scan_op": "0 : i32",
    "value": "dense<1.0> : tensor<2x3xf32>",
    "callee": "#param.constant<@g> : !param.symbol",
    "delegate_id": '"ane"',
    "resource": "array<i8: 1>",
    "kernel_source": '"k"',
    "kernel_name": '"k"',
    "spec": '#coreai.target_spec<triple = "", soc = "", delegateOptions = {}>',
    "sym_name": '"h"',
    "function_type": "() -> ()",
    "param_decls": "#param.decl.array<[]>",
}


def bindings_dir():
    import coreai._compiler.dialects._coreai_ops_gen as g
    return os.path.dirname(g.__file__)


def ops_from_bindings(path):
    """[{name, operands: [(name, kind)], results: [(name, kind)], attrs: [(name, required)], regions}]"""
    src = open(path).read()
    tree = ast.parse(src)
    ops = []
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        info = {"operands": [], "results": [], "attrs": [], "regions": 0}
        segmented = False
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                tgt = stmt.targets[0].id
                if tgt == "OPERATION_NAME":
                    info["name"] = stmt.value.value
                elif tgt == "_ODS_REGIONS":
                    info["regions"] = stmt.value.elts[0].value
                elif tgt == "_ODS_OPERAND_SEGMENTS":
                    segmented = True
            if isinstance(stmt, ast.FunctionDef) and any(
                    ast.unparse(d).endswith("property") for d in stmt.decorator_list):
                body = ast.unparse(stmt)
                ann = ast.unparse(stmt.returns) if stmt.returns else ""
                if "self.operation.operands" in body:
                    kind = "variadic" if "List" in ann else ("optional" if "Optional" in ann else "single")
                    info["operands"].append((stmt.name, kind))
                elif "self.operation.results" in body:
                    kind = "variadic" if "List" in ann else ("optional" if "Optional" in ann else "single")
                    info["results"].append((stmt.name, kind))
                elif re.search(r"attributes\[['\"](\w+)", body):
                    info["attrs"].append(re.search(r"attributes\[['\"](\w+)", body).group(1))
            if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__":
                init = ast.unparse(stmt)
        if "name" not in info:
            continue
        # An attribute is required when __init__ sets it unconditionally.
        required = []
        for a in info["attrs"]:
            if a in ("operandSegmentSizes", "resultSegmentSizes"):
                continue
            if re.search(rf"if {a} is not None", init) or re.search(rf"if bool\({a}\)", init):
                continue
            if f'attributes["{a}"]' in init or f"attributes['{a}']" in init:
                required.append(a)
        info["required_attrs"] = required
        info["segmented"] = segmented
        ops.append(info)
    return ops


# Shapes and encodings tried in order; a slot is probed at the first variant
# where some palette type is accepted (some slots take only 0-D or 1-D
# tensors, coreaix slots only tensors with a hardware-constraint encoding).
HW = "#coreaix.hw_constraints<MTLBuffer, alignments: [{}], interleave: [{}]>"
SPARSE = "#coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>"
VARIANTS = [("2x3", None), ("", None), ("2", None), ("3", None), ("2x3x4x5", None), ("2x3x4x5x6", None),
            ("2x3x4", None), ("2x3", HW.format("1x1x1", "1x1")), ("2", HW.format("1x1", "1")),
            ("2x3", SPARSE)]
# Tried when no tensor variant is accepted.
NON_TENSOR = ["!coreai.token", "!coreai.image<<k24RGB> x 2 x 3>", "!coreai.handle<tensor<2x3xf32>>"]


def tensor(t, variant=VARIANTS[0]):
    shape, enc = variant
    dims = shape + "x" if shape else ""
    return f"tensor<{dims}{t}{', ' + enc if enc else ''}>"


def build_case(op, types, tag):
    """The generic-form module for `op` with slot types `types` (operands then results)."""
    n_in = len(op["operands"])
    operand_types, result_types = types[:n_in], types[n_in:]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(operand_types))
    operands = ", ".join(f"%a{i}" for i in range(n_in))
    attrs = [f"{a} = {REQUIRED_ATTRS[a]}" for a in op["required_attrs"] if a in REQUIRED_ATTRS]
    if op["segmented"]:
        attrs.append("operandSegmentSizes = array<i32: " + ", ".join("1" for _ in range(n_in)) + ">")
    props = (" <{" + ", ".join(attrs) + "}>") if attrs else ""
    regions = (" (" + ", ".join("{}" for _ in range(op["regions"])) + ")") if op["regions"] else ""
    lhs = (", ".join(f"%r{i}" for i in range(len(result_types))) + " = ") if result_types else ""
    res = "(" + ", ".join(result_types) + ")"
    helper = "coreai.graph private @g() {\n  coreai.output\n}\n" if "callee" in op["required_attrs"] else ""
    # A graph returns one token per handle argument.
    n_handles = sum(t.startswith("!coreai.handle") for t in operand_types)
    tokens = "".join(f"  %t{i} = \"coreai.create_token\"() : () -> !coreai.token\n" for i in range(n_handles))
    out = ", ".join(f"%t{i}" for i in range(n_handles))
    out_types = ", ".join("!coreai.token" for _ in range(n_handles))
    ret = f" -> ({out_types})" if n_handles else ""
    output = f"  coreai.output {out} : {out_types}\n" if n_handles else "  coreai.output\n"
    return (f"{helper}coreai.graph @probe({args}){ret} {{\n{tokens}"
            f"  {lhs}\"{op['name']}\"({operands}){props}{regions} : ({', '.join(operand_types)}) -> {res} loc(\"{tag}\")\n"
            f"{output}}}\n")


class Core:
    def __init__(self):
        from coreai.authoring.context import Context
        from coreai._compiler import ir
        self.ir = ir
        self._context = Context()
        self.ctx = self._context.__enter__()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._context.__exit__(*exc)

    def check(self, text):
        """None when coreai-core parses and verifies `text`, else its diagnostics."""
        try:
            m = self.ir.Module.parse(text, self.ctx._mlir_context)
            if m.operation.verify():
                return None
            return "verify failed"
        except Exception as e:  # MLIRError: the diagnostics
            return str(e)


def slot_message(err, slot, n_in):
    """The constraint text if `err` rejects the type of `slot`, else None.

    Raises Unclear when the first diagnostic is not about the probed op (the
    decision for the slot is then unknown)."""
    if err is None:
        return None
    what = f"operand #{slot}" if slot < n_in else f"result #{slot - n_in}"
    m = re.search(rf"{what} must be (.*?), but got '", err)
    if m:
        return m.group(1)
    first = next((l for l in err.splitlines() if "error:" in l), "")
    if '"probe"' not in first:
        raise Unclear(first)
    return None


class Unclear(Exception):
    pass


def probe_op(core, op):
    n_in = len(op["operands"])
    slots = op["operands"] + op["results"]
    chosen = [tensor("f32")] * len(slots)
    record = {"operands": [], "results": []}
    for s, (name, kind) in enumerate(slots):
        for variant in VARIANTS:
            accepted, rejected, summary, unclear = [], [], None, []
            for el in PALETTE:
                types = list(chosen)
                types[s] = tensor(el, variant)
                try:
                    msg = slot_message(core.check(build_case(op, types, "probe")), s, n_in)
                except Unclear as e:
                    unclear.append(f"{tensor(el, variant)}: {e}")
                    continue
                if msg is None:
                    accepted.append(el)
                else:
                    rejected.append(el)
                    summary = summary or msg
            if accepted:
                break
        non_tensor = None
        if accepted:
            pref = [t for t in ("f32", "si32", "ui32", "i1", "ui8") if t in accepted]
            chosen[s] = tensor(pref[0] if pref else accepted[0], variant)
        else:
            variant = None
            for t in NON_TENSOR:
                types = list(chosen)
                types[s] = t
                try:
                    if slot_message(core.check(build_case(op, types, "probe")), s, n_in) is None:
                        chosen[s] = non_tensor = t
                        break
                except Unclear as e:
                    unclear.append(f"{t}: {e}")
        if not rejected:
            # Non-tensor types (e.g. !coreai.token) tell whether the slot takes any type.
            types = list(chosen)
            types[s] = "!coreai.token"
            try:
                summary = slot_message(core.check(build_case(op, types, "probe")), s, n_in)
            except Unclear as e:
                unclear.append(f"!coreai.token: {e}")
        entry = {"name": name, "kind": kind, "accepted": accepted, "rejected": rejected,
                 "summary": summary,
                 "shape": None if variant is None else variant[0],
                 "encoding": None if variant is None else variant[1],
                 "non_tensor": non_tensor, "unclear": unclear[:3]}
        (record["operands"] if s < n_in else record["results"]).append(entry)
    return record


def main():
    d = bindings_dir()
    data = {}
    with Core() as core:
        for f in ("_coreai_ops_gen.py", "_coreaix_ops_gen.py"):
            for op in ops_from_bindings(os.path.join(d, f)):
                rec = probe_op(core, op)
                rec["required_attrs"] = op["required_attrs"]
                rec["regions"] = op["regions"]
                data[op["name"]] = rec
    with open(OUT, "w") as fh:
        json.dump({"coreai_core": "1.0.0b3", "palette": PALETTE, "ops": data}, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
