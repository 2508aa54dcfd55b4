#!/usr/bin/env python3
"""From-scratch writer of an aicode bytecode file (no MLIR, no coreai-core), for
    graph @main(x: f32[2,3], y: f32[2,3]) -> add: f32[2,3] { add_v1(x, y) }
using only the encodings recovered from coreai-core's output. Usage: emit_add.py OUT.mlirb"""
import sys, struct


def varint(v):
    if v < 0:
        raise ValueError(v)
    for n in range(8):  # n extra bytes
        if v < (1 << (7 * (n + 1))):
            x = ((v << 1) | 1) << n
            return x.to_bytes(n + 1, "little")
    return b"\x00" + v.to_bytes(8, "little")


def svarint(v):
    return varint((v << 1) ^ (v >> 63) if v < 0 else v << 1) if v >= 0 else varint(((-v) << 1) - 1)


class Table:
    def __init__(self):
        self.items, self.index = [], {}

    def add(self, key):
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(key)
        return self.index[key]


strings = Table()
S = lambda s: strings.add(s)
attrs, types = [], []


def A(data):
    attrs.append(data)
    return len(attrs) - 1


def T(data):
    types.append(data)
    return len(types) - 1


# --- types
f32 = T(varint(6))
t23 = T(varint(2) + varint(2) + svarint(2) + svarint(3) + varint(f32))
fn = T(varint(30) + varint(1) + varint(t23) + varint(2) + varint(t23) + varint(t23))
# --- attributes
unit = A(varint(46))
file_ = A(varint(30) + varint(S("-")) + varint(S("")) + varint(S("")))
src = A(varint(31) + varint(file_) + varint(0) * 4)
loc = A(varint(40) + varint(src) + varint(unit) + varint(0) + varint(0))
false1 = A(varint(2) + varint(1) + b"\x01" + b"\x00")
version = A(varint(2) + varint(32) + b"\x01" + svarint(20250827))
name_main = A(varint(1) + varint(S("main")))
ftype = A(varint(4) + varint(fn))
empty = A(varint(5) + varint(0))


def io_attrs(n):
    s = A(varint(1) + varint(S(n)))
    o = A(varint(9) + varint(S("aicode.name")) + varint(1) + varint(s))
    return A(varint(5) + varint(1) + varint(o))


arg_attrs = A(varint(5) + varint(2) + varint(io_attrs("x")) + varint(io_attrs("y")))
res_attrs = A(varint(5) + varint(1) + varint(io_attrs("add")))

# --- op names (dialect 0 = aicode)
S("aicode")
opnames = ["serialization.asset", "dataflow.graph_v1", "primitive.add_v1", "dataflow.output_v1"]
for n in opnames:
    S(n)
OP = {n: i for i, n in enumerate(opnames)}

# --- properties (ODS: required attr -> varint idx; optional -> varint(idx<<1|1) or 0)
props = []
props.append(varint(0) + varint((version << 1) | 1))            # asset: <unknown optional absent>, version
props.append(b"".join(varint(x) for x in [arg_attrs]) + varint(0)  # argAttrs, compositeDecl absent
             + b"".join(varint(x) for x in [false1, ftype, false1, name_main, false1, empty, res_attrs]))


def section(sid, data):
    return bytes([sid]) + varint(len(data)) + data


# --- IR
graph_body = (varint(1) + varint(3)                       # region: 1 block, 3 values
              + varint((2 << 1) | 1) + varint(2)          # block: 2 ops, has args; 2 args
              + varint((t23 << 1) | 1) + varint(loc)      # arg0 type + loc
              + varint((t23 << 1) | 1) + varint(loc)      # arg1
              + b"\x00"                                   # no use-list orders
              + varint(OP["primitive.add_v1"]) + bytes([0x06]) + varint(loc)
              + varint(1) + varint(t23) + varint(2) + varint(0) + varint(1)
              + varint(OP["dataflow.output_v1"]) + bytes([0x04]) + varint(loc) + varint(1) + varint(2))
graph_op = (varint(OP["dataflow.graph_v1"]) + bytes([0x50]) + varint(loc) + varint(1)
            + varint((1 << 1) | 1) + section(4, graph_body))
asset_body = varint(1) + varint(0) + varint((1 << 1) | 0) + graph_op
asset_op = (varint(OP["serialization.asset"]) + bytes([0x50]) + varint(loc) + varint(0)
            + varint((1 << 1) | 1) + section(4, asset_body))
ir = varint((1 << 1) | 0) + asset_op

# --- sections
strs = strings.items
string_sec = varint(len(strs)) + b"".join(varint(len(s.encode()) + 1) for s in reversed(strs)) \
    + b"".join(s.encode() + b"\0" for s in strs)
dialect_sec = (varint(1) + varint((S("aicode") << 1) | 1) + section(7, varint(2))
               + varint(len(opnames)) + varint(0) + varint(len(opnames))
               + b"".join(varint((S(n) << 1) | 1) for n in opnames))
assert len(strings.items) == len(strs)
at_data = b"".join(attrs) + b"".join(types)
at_off = (varint(len(attrs)) + varint(len(types))
          + varint(0) + varint(len(attrs)) + b"".join(varint((len(a) << 1) | 1) for a in attrs)
          + varint(0) + varint(len(types)) + b"".join(varint((len(t) << 1) | 1) for t in types))
props_sec = varint(len(props)) + b"".join(varint(len(p)) + p for p in props)
out = (b"ML\xefR" + varint(6) + b"hand-written\0"
       + section(1, dialect_sec) + section(3, at_off) + section(2, at_data)
       + section(4, ir) + section(0, string_sec) + section(8, props_sec))
open(sys.argv[1], "wb").write(out)
print(len(out), "bytes")
