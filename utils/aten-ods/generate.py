#!/usr/bin/env python3
"""Generate dialects/aten/AtenOps.td from PyTorch's native_functions.yaml.

Run from anywhere (one command regenerates the committed file):

    .venv/bin/python utils/aten-ods/generate.py

It reads ``torchgen/packaged/ATen/native/native_functions.yaml`` from the
installed torch and writes one ODS op per selected overload, named
``aten.<name>.<overload>`` exactly like the torch.export FX target
(``default`` when the schema has no overload name).

Selection (the union of):
  * every overload tagged ``core`` in native_functions.yaml;
  * every ``name.overload`` key of coreai-torch's ``_aten_to_core_resolver``
    (coreai_torch/_aten_to_core.py, read as text; bare Python-operator keys
    such as ``add`` or ``sym_float`` are the hand-written ops of
    AtenStructuralOps.td);
  * the 12 ops coreai-torch's ``get_decomp_table()`` keeps whole;
  * the overloads listed in ``utils/aten-ods/corpus-ops.txt`` (what the
    model corpus exports to under every decomposition setting, refreshed by
    ``utils/aten-ods/collect_corpus_ops.py``).
Schemas that mutate an argument (``Tensor(a!)``) are skipped: torch.export
functionalizes graphs, so they never appear. Everything else imports as
``aten.operator``.

Schema type -> ODS (also stated in AtenBase.td):

  Tensor             operand  AnyRankedTensor
  Tensor?            operand  Optional<AnyRankedTensor>
  Tensor[]           operand  Variadic<AnyRankedTensor>
  Tensor?[]          operand  Variadic<AnyRankedTensor> + attribute
                              ``<name>_present`` (DenseBoolArrayAttr, one
                              entry per list element; false = None)
  Scalar             attribute Aten_ScalarAttr (bool, i64 or f64)
  int, SymInt        attribute I64Attr
  float              attribute F64Attr
  bool               attribute BoolAttr
  str, Dimname       attribute StrAttr
  int[], SymInt[]    attribute I64ArrayAttr
  float[]            attribute F64ArrayAttr
  bool[]             attribute DenseBoolArrayAttr
  Dimname[], str[]   attribute StrArrayAttr
  Scalar[]           attribute ArrayAttr
  ScalarType         attribute TypeAttr (the element type: f32, i64, i1 ...)
  Layout, MemoryFormat, Device
                     attribute StrAttr (``strided``, ``contiguous_format``,
                              ``cpu``: torch's names without the prefix)
  Generator          attribute UnitAttr (only None exports)
  T? (non-tensor)    OptionalAttr<...> of the above; absent = None

Results: Tensor -> AnyRankedTensor, Tensor[] -> Variadic<AnyRankedTensor>,
SymInt/int -> I64, float -> F64, bool -> I1, Scalar -> Aten_ScalarType
(i64, f64 or i1). Multi-result schemas give several results, named as in the
schema (``values``, ``indices``) or ``result0``, ``result1``...

Names: schema argument names that melior's Rust generator cannot spell are
renamed ``<name>_arg``: ``self`` (and every Rust keyword), the reserved
``name``, ``operation``, ``builder``, ODS-reserved ``operands``,
``attributes``, ``properties``, ``context``, ``location``, ``result``; a trailing underscore
is replaced by ``_arg`` as well (``min_`` would be trimmed to ``min``).
The importer (importer) applies the same rule (``ods_name``).

Symbolic SymInt values cannot be attributes; a node that passes one to a
SymInt slot imports as ``aten.operator`` with the value as an operand.
"""

import argparse
import os
import re
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

RUST_KEYWORDS = {
    "as", "break", "const", "continue", "crate", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct",
    "super", "trait", "true", "type", "unsafe", "use", "where", "while",
    "async", "await", "dyn", "abstract", "become", "box", "do", "final",
    "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
}
RESERVED = RUST_KEYWORDS | {
    "name", "operation", "builder", "operands", "attributes", "properties",
    "context", "location", "result", "results", "regions",
}


def ods_name(name: str) -> str:
    """The ODS/Rust-safe spelling of a schema argument name."""
    if name.endswith("_"):
        return name.rstrip("_") + "_arg"
    if name in RESERVED:
        return name + "_arg"
    return name


# ---------------------------------------------------------------- schemas


@dataclass
class Type:
    base: str  # Tensor, int, SymInt, Scalar, ...
    optional: bool = False  # T?
    is_list: bool = False  # T[] / T[N]
    elem_optional: bool = False  # T?[]
    mutable: bool = False  # (a!)


@dataclass
class Arg:
    name: str
    type: Type
    default: str | None
    kwarg_only: bool


@dataclass
class Schema:
    name: str
    overload: str
    args: list
    returns: list  # list of (name|None, Type)
    text: str
    tags: set = field(default_factory=set)

    @property
    def key(self) -> str:
        return f"{self.name}.{self.overload}"


def split_top(s: str) -> list:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_type(t: str) -> Type:
    mutable = "!" in t
    t = re.sub(r"\([a-z0-9!|\->* ]*\)", "", t)  # alias annotations
    ty = Type(base="")
    ty.mutable = mutable
    if t.endswith("?"):
        ty.optional = True
        t = t[:-1]
    m = re.fullmatch(r"(.*)\[(\d*)\]", t)
    if m:
        ty.is_list = True
        t = m.group(1)
        if t.endswith("?"):
            ty.elem_optional = True
            t = t[:-1]
    ty.base = t
    return ty


def parse_schema(func: str) -> Schema:
    m = re.fullmatch(r"([\w.]+)\((.*)\) -> (.*)", func.strip())
    if not m:
        raise ValueError(f"unparsable schema: {func}")
    qual, args_s, rets_s = m.groups()
    name, _, overload = qual.partition(".")
    args, kw = [], False
    for a in split_top(args_s):
        if a == "*":
            kw = True
            continue
        decl, _, default = a.partition("=")
        tstr, _, aname = decl.strip().rpartition(" ")
        args.append(Arg(aname, parse_type(tstr), default or None, kw))
    rets_s = rets_s.strip()
    if rets_s.startswith("(") and rets_s.endswith(")"):
        rets_s = rets_s[1:-1]
    returns = []
    for r in split_top(rets_s):
        parts = r.rsplit(" ", 1)
        if len(parts) == 2 and not parts[1].endswith(")"):
            returns.append((parts[1], parse_type(parts[0])))
        else:
            returns.append((None, parse_type(r)))
    return Schema(name, overload or "default", args, returns, func.strip())


def read_native_functions(path: str) -> dict:
    """name.overload -> Schema, from the yaml's `func:` and `tags:` lines."""
    schemas, cur = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("- func:"):
                cur = parse_schema(line[len("- func:"):])
                schemas[cur.key] = cur
            elif cur is not None and line.startswith("  tags:"):
                tags = line.split(":", 1)[1].strip().strip("[]")
                cur.tags = {t.strip() for t in tags.split(",")}
    return schemas


# ------------------------------------------------------------- selection


def resolver_keys(site: str) -> list:
    """The keys of coreai-torch's `_aten_to_core_resolver`, read as text."""
    path = os.path.join(site, "coreai_torch", "_aten_to_core.py")
    src = open(path).read()
    m = re.search(r"^_aten_to_core_resolver\b[^=\n]*=\s*\{", src, re.M)
    if m is None:
        raise SystemExit(f"{path}: no `_aten_to_core_resolver = {{` table found")
    start = m.end() - 1
    depth, i = 0, start
    while True:
        depth += {"{": 1, "}": -1}.get(src[i], 0)
        if depth == 0:
            break
        i += 1
    return re.findall(r'^\s*"([\w.]+)"\s*:', src[start:i], re.M)


def preserved_ops(site: str) -> list:
    src = open(os.path.join(site, "coreai_torch", "_decomp.py")).read()
    body = src[src.index("_COMPOSITE_OPS"):]
    body = body[: body.index("]")]
    return re.findall(r"torch\.ops\.aten\.([\w]+\.[\w]+)", body)


def corpus_ops() -> list:
    path = os.path.join(HERE, "corpus-ops.txt")
    if not os.path.exists(path):
        return []
    return [
        ln.strip()
        for ln in open(path)
        if ln.strip() and not ln.startswith("#")
    ]


# ------------------------------------------------------------- emission

ATTR = {
    "Scalar": "Aten_ScalarAttr",
    "int": "I64Attr",
    "SymInt": "I64Attr",
    "float": "F64Attr",
    "bool": "BoolAttr",
    "SymBool": "BoolAttr",
    "str": "StrAttr",
    "Dimname": "StrAttr",
    "ScalarType": "TypeAttr",
    "Layout": "StrAttr",
    "MemoryFormat": "StrAttr",
    "Device": "StrAttr",
    "Generator": "UnitAttr",
}
LIST_ATTR = {
    "int": "I64ArrayAttr",
    "SymInt": "I64ArrayAttr",
    "float": "F64ArrayAttr",
    "bool": "DenseBoolArrayAttr",
    "Dimname": "StrArrayAttr",
    "str": "StrArrayAttr",
    "Scalar": "ArrayAttr",
}
RESULT = {
    "Tensor": "AnyRankedTensor",
    "int": "I64",
    "SymInt": "I64",
    "SymFloat": "F64",
    "float": "F64",
    "bool": "I1",
    "SymBool": "I1",
    "Scalar": "Aten_ScalarType",
}


# Overloads with a hand-written verifier in AtenDialect.cpp (beyond the
# operand/attribute kinds ODS checks for every op).
CUSTOM_VERIFIERS = {"mean.dim"}


class Unsupported(Exception):
    pass


def camel(s: str) -> str:
    lead = "Internal" if s.startswith("_") else ""
    return lead + "".join(p[:1].upper() + p[1:] for p in s.split("_") if p)


def op_def(s: Schema):
    """(class name, ODS text, importer signature) of one overload."""
    operands, attrs, segments, sig = [], [], 0, []
    for a in s.args:
        t, n = a.type, ods_name(a.name)
        if t.mutable:
            raise Unsupported("mutates an argument")
        if t.base == "Tensor":
            if t.is_list:
                operands.append(f"Variadic<AnyRankedTensor>:${n}")
                segments += 1
                if t.elem_optional:
                    attrs.append(f"DenseBoolArrayAttr:${n}_present")
                kind = "Tensor?[]" if t.elem_optional else "Tensor[]"
            elif t.optional:
                operands.append(f"Optional<AnyRankedTensor>:${n}")
                segments += 1
                kind = "Tensor?"
            else:
                operands.append(f"AnyRankedTensor:${n}")
                kind = "Tensor"
            sig.append((a.name, n, kind, False))
            continue
        table = LIST_ATTR if t.is_list else ATTR
        if t.base not in table:
            raise Unsupported(f"argument type {t.base}{'[]' if t.is_list else ''}")
        c = table[t.base]
        attrs.append(f"OptionalAttr<{c}>:${n}" if t.optional else f"{c}:${n}")
        sig.append((a.name, n, t.base + ("[]" if t.is_list else ""), t.optional))
    results, rsegments = [], 0
    names = {ods_name(a.name) for a in s.args}
    for i, (rn, t) in enumerate(s.returns):
        if t.base == "Tensor" and t.is_list:
            c = "Variadic<AnyRankedTensor>"
            rsegments += 1
        elif t.base in RESULT and not t.is_list and not t.optional:
            c = RESULT[t.base]
        else:
            raise Unsupported(f"result type {t.base}")
        if rn is None or ods_name(rn) in names:
            rn = "result" if len(s.returns) == 1 else f"result{i}"
        else:
            rn = ods_name(rn)
        results.append(f"{c}:${rn}")
    traits = []
    if not ({"nondeterministic_seeded", "nondeterministic_bitwise"} & s.tags) and results:
        traits.append("Pure")
    if segments > 1:
        traits.append("AttrSizedOperandSegments")
    if rsegments > 1:
        traits.append("AttrSizedResultSegments")
    cls = f"Aten_{camel(s.name)}{camel(s.overload)}Op"
    tags = sorted(t for t in s.tags if t)
    desc = f"Schema tags: {', '.join(tags)}." if tags else "No schema tags."
    lines = [
        f'def {cls} : Aten_Op<"{s.name}.{s.overload}", [{", ".join(traits)}]> {{',
        f'  let summary = "aten::{s.text.replace(chr(34), "")}";',
        f"  let description = [{{",
        f"    The ATen overload `aten::{s.name}.{s.overload}`; see the schema in",
        f"    the summary. {desc}",
        f"  }}];",
        f"  let arguments = (ins{' ' if operands or attrs else ''}"
        + ",\n                       ".join(operands + attrs)
        + ");",
        f"  let results = (outs{' ' if results else ''}" + ", ".join(results) + ");",
    ]
    if s.key in CUSTOM_VERIFIERS:
        lines.append("  let hasVerifier = 1;")
    lines.append("}")
    return cls, "\n".join(lines), (sig, segments > 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", default=os.path.join(REPO, "dialects/aten/AtenOps.td"))
    ap.add_argument(
        "--signatures",
        default=os.path.join(REPO, "importer/coreai_export/_aten_ops.py"),
        help="the importer's table of generated ops",
    )
    ns = ap.parse_args()

    import torch  # noqa: F401  (version, location)
    import torchgen

    site = os.path.dirname(os.path.dirname(torch.__file__))
    yaml_path = os.path.join(
        os.path.dirname(torchgen.__file__),
        "packaged/ATen/native/native_functions.yaml",
    )
    schemas = read_native_functions(yaml_path)

    wanted = {}  # key -> reason
    for k, s in schemas.items():
        if "core" in s.tags:
            wanted.setdefault(k, "core")
    for k in resolver_keys(site):
        if "." in k:
            wanted.setdefault(k, "coreai-torch resolver")
    for k in preserved_ops(site):
        wanted.setdefault(k, "kept whole by coreai-torch get_decomp_table")
    for k in corpus_ops():
        if k.startswith("aten."):
            wanted.setdefault(k[len("aten."):], "corpus")

    defs, skipped, classes, sigs = [], [], {}, {}
    for k in sorted(wanted):
        s = schemas.get(k)
        if s is None:
            skipped.append((k, "not in native_functions.yaml"))
            continue
        try:
            cls, text, sig = op_def(s)
        except Unsupported as e:
            skipped.append((k, str(e)))
            continue
        if cls in classes:
            raise SystemExit(f"class name {cls} of {k} collides with {classes[cls]}")
        classes[cls] = k
        defs.append(text)
        sigs[k] = sig

    core = [k for k, s in schemas.items() if "core" in s.tags]
    n_core = sum(1 for k in core if k in wanted and k not in dict(skipped))
    out = [
        "//===- AtenOps.td - aten operations (generated) ------------*- tablegen -*-===//",
        "//",
        "// GENERATED by utils/aten-ods/generate.py from torch "
        f"{torch.__version__}'s native_functions.yaml. Do not edit; rerun:",
        "//   .venv/bin/python utils/aten-ods/generate.py",
        f"// {len(defs)} overloads ({n_core} of the {len(core)} tagged core) plus the",
        "// hand-written ops of AtenStructuralOps.td.",
    ]
    for k, why in skipped:
        out.append(f"// not generated: {k}: {why}")
    out += [
        "//",
        "//===----------------------------------------------------------------------===//",
        "",
        "#ifndef COREAI_ATEN_OPS",
        "#define COREAI_ATEN_OPS",
        "",
        'include "aten/AtenBase.td"',
        'include "aten/AtenStructuralOps.td"',
        "",
    ]
    out += [d + "\n" for d in defs]
    out.append("#endif // COREAI_ATEN_OPS")
    with open(ns.o, "w") as f:
        f.write("\n".join(out) + "\n")
    with open(ns.signatures, "w") as f:
        f.write(
            '"""The aten dialect\'s generated ops, for the importer.\n\n'
            f"GENERATED by utils/aten-ods/generate.py (torch {torch.__version__}) together with\n"
            "dialects/aten/AtenOps.td. Do not edit.\n\n"
            "OPS maps `name.overload` to (arguments, has_segments): one\n"
            "(schema name, ODS name, schema type, optional) per schema argument;\n"
            "has_segments is true when the op carries operandSegmentSizes.\n"
            '"""\n\n'
            f"TORCH_VERSION = {torch.__version__!r}\n\n"
            "OPS = {\n"
        )
        for k in sorted(sigs):
            f.write(f"    {k!r}: {sigs[k]!r},\n")
        f.write("}\n\n# Core ATen overloads of native_functions.yaml (tag `core`).\n")
        f.write(f"CORE = {sorted(core)!r}\n")
    print(f"{ns.o}: {len(defs)} ops, {n_core}/{len(core)} core, {len(skipped)} skipped", file=sys.stderr)
    for k, why in skipped:
        print(f"  skipped {k}: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
