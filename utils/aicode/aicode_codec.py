"""Hypothesised custom bytecode encoding of the `aicode` dialect (encoding version 2),
reverse-engineered from coreai-core 1.0.0b3's output. Each entry: varint kind code, then fields.
Unknown codes are reported as raw bytes."""

TYPE_SIMPLE = {}   # code -> name, filled from observation
ATTR_NAMES = {}

# Types observed (code: name)
TYPES = {
    2: "tensor_v1", 3: "tensor_v1", 4: "bool_v1", 5: "float64_v1", 6: "float32_v1", 7: "float16_v1",
    8: "bfloat16_v1", 17: "sint64_v1", 18: "sint32_v1", 19: "sint16_v1", 20: "sint8_v1", 23: "uint64_v1",
    24: "uint32_v1", 25: "uint16_v1", 26: "uint8_v1", 30: "function_v1",
}
# `ax.hw_constraints_v1`'s backing (coreaix's AllocationType + 1).
BACKINGS = {1: "AXIOSurface", 2: "AXMTLBuffer", 3: "AXHeap"}
ATTRS = {
    1: "serialization.string", 2: "serialization.integer", 3: "serialization.float",
    4: "serialization.type", 5: "serialization.array", 6: "serialization.dense_elements",
    9: "serialization.opaque", 14: "symbol_ref_v1", 45: "serialization.dictionary", 46: "unit_v1",
}


def install(mod):
    mod.aicode_decode = decode
    mod.prop_decode = decode_props


def _apint(r, width):
    if width <= 8:
        return r.byte()
    if width <= 64:
        return r.svarint()
    n = r.varint()
    return [r.svarint() for _ in range(n)]


def decode(bc, r, is_attr):
    code = r.varint()
    A = lambda: bc.attr(r.varint())
    T = lambda: bc.type(r.varint())
    S = lambda: bc.strings[r.varint()]
    if not is_attr:
        if code in (2, 3):
            # 3: a tensor with an encoding (`#ax.hw_constraints_v1`) after its element type.
            rank = r.varint()
            shape = [r.svarint() for _ in range(rank)]
            et = T()
            if code == 3:
                et += f", {A()}"
            return f"!tensor_v1<{shape} : {et}>" if rank else f"!tensor_v1<{et}>"
        if code == 31:
            return f"!handle_v1<{T()}>"
        if code == 30:
            res = [T() for _ in range(r.varint())]
            ops = [T() for _ in range(r.varint())]
            return f"!function_v1<({', '.join(ops)}) -> ({', '.join(res)})>"
        if r.p == r.end:
            return f"!{TYPES.get(code, f'type{code}')}"
        return f"!type{code}<raw {bc.data[r.p:r.end].hex()}>" + _skip(r)
    if code == 1:
        return f"str<{S()!r}>"
    if code == 2:
        w = r.varint(); uns = r.byte(); v = _apint(r, w)
        return f"int<{w}{'u' if uns else 's'} {v}>"
    if code == 3:
        w = r.varint(); v = _apint(r, w)
        import struct
        if w in (16, 32, 64):
            v = struct.unpack({16: "<e", 32: "<f", 64: "<d"}[w], (v & ((1 << w) - 1)).to_bytes(w // 8, "little"))[0]
        return f"float<{w} {v}>"
    if code == 4:
        return f"type<{T()}>"
    if code == 5:
        return "[" + ", ".join(A() for _ in range(r.varint())) + "]"
    if code == 6:
        splat = r.byte(); n = r.varint(); b = r.bytes(n)
        return f"dense<splat={splat} {n}B {b[:16].hex()}{'...' if n > 16 else ''}>"
    if code == 9:
        name = S(); vals = [A() for _ in range(r.varint())]
        return f"opaque<{name!r} = [{', '.join(vals)}]>"
    if code == 12:
        alignments = [r.svarint() for _ in range(r.varint())]
        interleave = [r.svarint() for _ in range(r.varint())]
        backing = r.varint()
        return (f"#ax.hw_constraints_v1<{BACKINGS.get(backing, backing)}, alignments: {alignments}, "
                f"interleave: {interleave}>")
    if code == 14:
        return "@" + "::".join(S() for _ in range(r.varint()))
    if code == 45:
        return "dict{" + ", ".join(A() for _ in range(r.varint())) + "}"
    if code == 46:
        return "unit_v1"
    if code == 7:
        h = r.varint()
        return f"dense_resource<{bc.res_handles[h][1] if h < len(bc.res_handles) else h}>"
    if code == 16:
        a = A(); t = T()
        return f"param.constant_v1<binding{{{a} : {t}}}>"
    if code == 17:
        return f"padding_mode_v1<{r.varint()}>"
    if code == 30:
        return f"file<{S()!r}, {S()!r}, sha={S()!r}>"
    if code == 31:
        f = A(); v = [r.varint() for _ in range(4)]
        return f"srcloc<{f} {v}>"
    if code == 33:
        return f"<value = {A()}>"
    if code == 35:
        n = S(); return f"{n!r}: {A()}"
    if code == 32:
        lang = S(); f = A(); prod = S(); opt = r.varint(); flags = S()
        allf = [A() for _ in range(r.varint())]
        return f"compile_unit_v1<{lang!r}, file={f}, producer={prod!r}, optimized={opt}, flags={flags!r}, allFiles={allf}>"
    if code == 36:
        t = T(); cu = A(); f = A(); name = S(); link = S()
        md = [A() for _ in range(r.varint())]
        return f"subprogram_v1<{t}, cu={cu}, file={f}, name={name!r}, linkage={link!r}, metadata={md}>"
    if code == 40:
        src = A(); scope = A()
        fl = [A() for _ in range(r.varint())]
        fused = f", fusedWith={fl}" if fl else ""
        md = [A() for _ in range(r.varint())]
        return f"location_v1<{src}, scope={scope}{fused}, metadata={md}>"
    return f"#attr{code}<raw {bc.data[r.p:r.end].hex()} varints={_vi(bc.data[r.p:r.end])}>" + _skip(r)


def _skip(r):
    r.p = r.end
    return ""


def _vi(b):
    import mlirbc
    return mlirbc.try_varints(b)


def decode_props(bc, opname, r):
    # ODS-style properties: optional attrs as varint-with-flag, required as attr index.
    vals = []
    import mlirbc
    raw = bc.data  # noqa
    out = []
    while not r.empty():
        out.append(r.varint())
    return "varints=" + str(out)
