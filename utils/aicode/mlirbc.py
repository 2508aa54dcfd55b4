#!/usr/bin/env python3
"""Minimal MLIR bytecode (v0..6) reader for inspection.

Decodes the container (sections, strings, dialects + version entries, op
names, attr/type offset table, resources, properties) and the IR section.
Builtin attributes/types are decoded; other dialects' custom-encoded entries
are shown as raw bytes plus a best-effort varint decoding (and, for aicode,
the decoder in aicode_decode() below).
"""
import sys, struct

SECTION_NAMES = ["String", "Dialect", "AttrType", "AttrTypeOffset", "IR",
                 "Resource", "ResourceOffset", "DialectVersions", "Properties"]


class R:
    def __init__(self, data, pos=0, end=None):
        self.d = data
        self.p = pos
        self.end = len(data) if end is None else end

    def empty(self):
        return self.p >= self.end

    def byte(self):
        if self.p >= self.end:
            raise EOFError("byte past end")
        b = self.d[self.p]
        self.p += 1
        return b

    def bytes(self, n):
        if self.p + n > self.end:
            raise EOFError("bytes past end")
        b = self.d[self.p:self.p + n]
        self.p += n
        return b

    def varint(self):
        b = self.byte()
        if b & 1:
            return b >> 1
        if b == 0:
            return struct.unpack("<Q", self.bytes(8))[0]
        n = (b & -b).bit_length() - 1  # trailing zeros
        rest = self.bytes(n)
        v = b | int.from_bytes(rest, "little") << 8
        return v >> (n + 1)

    def svarint(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def varint_flag(self):
        v = self.varint()
        return v >> 1, bool(v & 1)

    def cstr(self):
        i = self.d.index(0, self.p, self.end)
        s = self.d[self.p:i].decode("utf-8", "replace")
        self.p = i + 1
        return s

    def align(self, a):
        while self.p % a:
            pad = self.byte()
            assert pad == 0xCB, hex(pad)

    def section(self):
        idb = self.byte()
        length = self.varint()
        sid = idb & 0x7F
        align = None
        if idb & 0x80:
            align = self.varint()
            self.align(align)
        start = self.p
        self.bytes(length)
        return sid, start, length, align


class Bytecode:
    def __init__(self, data):
        self.data = data
        r = R(data)
        assert r.bytes(4) == b"ML\xefR", "bad magic"
        self.version = r.varint()
        self.producer = r.cstr()
        self.sections = {}
        self.section_order = []
        while not r.empty():
            sid, start, length, align = r.section()
            self.sections[sid] = (start, length, align)
            self.section_order.append((SECTION_NAMES[sid], start, length, align))
        self._strings()
        self._props()
        self._dialects()
        self._resources()
        self._attrtype_offsets()
        self.attr_cache = {}
        self.type_cache = {}

    def sec(self, sid):
        s, l, _ = self.sections[sid]
        return R(self.data, s, s + l)

    def _strings(self):
        s, l, _ = self.sections[0]
        r = R(self.data, s, s + l)
        n = r.varint()
        sizes = [r.varint() for _ in range(n)]
        strs = [None] * n
        end = s + l
        for i, sz in zip(reversed(range(n)), sizes):
            strs[i] = self.data[end - sz:end - 1].decode("utf-8", "replace")
            end -= sz
        assert end == r.p, "string section trailing"
        self.strings = strs

    def _props(self):
        self.props = []
        if 8 not in self.sections:
            return
        r = self.sec(8)
        if r.empty():
            return
        count = r.varint()
        base = r.p
        for _ in range(count):
            off = r.p - base
            size = r.varint()
            self.props.append(self.data[r.p:r.p + size])
            r.bytes(size)

    def _dialects(self):
        r = self.sec(1)
        n = r.varint()
        self.dialects = []
        for _ in range(n):
            if self.version < 1:
                self.dialects.append((self.strings[r.varint()], None))
                continue
            idx, has_ver = r.varint_flag()
            ver = None
            if has_ver:
                sid, start, length, align = r.section()
                assert sid == 7, sid
                ver = self.data[start:start + length]
            self.dialects.append((self.strings[idx], ver))
        self.opnames = []
        if self.version >= 4:
            self.num_opnames = r.varint()
        while not r.empty():
            d = r.varint()
            cnt = r.varint()
            for _ in range(cnt):
                if self.version >= 5:
                    idx, reg = r.varint_flag()
                else:
                    idx, reg = r.varint(), None
                self.opnames.append((self.dialects[d][0], self.strings[idx], reg))

    def _resources(self):
        self.resources = []  # (group, key, kind, bytes)
        self.res_handles = []
        if 5 not in self.sections:
            return
        rr = self.sec(5)
        orr = self.sec(6)
        next_ext = orr.varint()

        def group(gname, dialect=False):
            n = orr.varint()
            for _ in range(n):
                key = self.strings[orr.varint()]
                size = orr.varint()
                kind = orr.byte()
                start = rr.p
                data = rr.bytes(size)
                self.resources.append((gname, key, kind, start, data))
                if dialect:
                    self.res_handles.append((gname, key))

        for _ in range(next_ext):
            gname = self.strings[orr.varint()]
            group("external:" + gname)
        while not orr.empty():
            d = orr.varint()
            group(self.dialects[d][0], dialect=True)

    def _attrtype_offsets(self):
        r = self.sec(3)
        na = r.varint()
        nt = r.varint()
        s, l, _ = self.sections[2]
        off = 0
        self.attrs = []
        self.types = []
        for lst, count in ((self.attrs, na), (self.types, nt)):
            while len(lst) < count:
                d = r.varint()
                cnt = r.varint()
                for _ in range(cnt):
                    size, custom = r.varint_flag()
                    lst.append((self.dialects[d][0], custom, s + off, size))
                    off += size
        assert r.empty()

    # ---------------- attribute/type decoding
    def attr(self, i):
        if i in self.attr_cache:
            return self.attr_cache[i]
        self.attr_cache[i] = f"<attr#{i} recursion>"
        v = self._decode(self.attrs[i], True, i)
        self.attr_cache[i] = v
        return v

    def type(self, i):
        if i in self.type_cache:
            return self.type_cache[i]
        self.type_cache[i] = f"<type#{i} recursion>"
        v = self._decode(self.types[i], False, i)
        self.type_cache[i] = v
        return v

    def _decode(self, entry, is_attr, idx):
        dialect, custom, start, size = entry
        r = R(self.data, start, start + size)
        if not custom:
            return r.cstr()
        try:
            if dialect == "builtin":
                v = (self._builtin_attr(r) if is_attr else self._builtin_type(r))
            elif dialect == "aicode" and aicode_decode is not None:
                v = aicode_decode(self, r, is_attr)
            else:
                v = None
            if v is not None and r.p == r.end:
                return v
            if v is not None:
                return f"{v} <+trailing {self.data[r.p:r.end].hex()}>"
        except Exception as e:  # noqa: BLE001
            return f"<{dialect} {'attr' if is_attr else 'type'} raw={self.data[start:start+size].hex()} err={e}>"
        return f"<{dialect} {'attr' if is_attr else 'type'} raw={self.data[start:start+size].hex()}>"

    def _builtin_attr(self, r):
        code = r.varint()
        A = lambda: self.attr(r.varint())
        T = lambda: self.type(r.varint())
        S = lambda: self.strings[r.varint()]
        if code == 0:
            return "[" + ", ".join(A() for _ in range(r.varint())) + "]"
        if code == 1:
            n = r.varint()
            items = []
            for _ in range(n):
                k = A(); v = A()
                items.append(f"{k} = {v}")
            return "{" + ", ".join(items) + "}"
        if code == 2:
            return repr(S())
        if code == 3:
            s = S(); return f"{s!r} : {T()}"
        if code == 4:
            return "@" + A()
        if code == 5:
            root = A(); n = r.varint()
            return "@" + root + "".join("::@" + A() for _ in range(n))
        if code == 6:
            return T()
        if code == 7:
            return "unit"
        if code == 8:
            t = T()
            w = int_width(t)
            if w <= 8:
                v = r.byte()
            elif w <= 64:
                v = r.svarint()
            else:
                nw = r.varint(); v = [r.svarint() for _ in range(nw)]
            return f"{v} : {t}"
        if code == 9:
            t = T()
            w = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(t, 64)
            v = r.byte() if w <= 8 else r.svarint()
            fmt = {16: "<e", 32: "<f", 64: "<d"}.get(w)
            val = struct.unpack(fmt, (v & ((1 << w) - 1)).to_bytes(w // 8, "little"))[0] if fmt and t != "bf16" else v
            return f"{val} : {t}"
        if code == 10:
            return f"callsite({A()} at {A()})"
        if code == 11:
            f = A(); l = r.varint(); c = r.varint()
            return f"loc({f}:{l}:{c})"
        if code == 12:
            return "fused[" + ", ".join(A() for _ in range(r.varint())) + "]"
        if code == 13:
            locs = [A() for _ in range(r.varint())]
            return f"fused<{A()}>[" + ", ".join(locs) + "]"
        if code == 14:
            return f"name({A()} : {A()})"
        if code == 15:
            return "loc(unknown)"
        if code == 16:
            t = T(); h = r.varint()
            return f"dense_resource<{self.res_handles[h] if h < len(self.res_handles) else h}> : {t}"
        if code == 17:
            t = T(); n = r.varint(); bl = r.varint(); b = r.bytes(bl)
            return f"array<{t}: n={n} {b.hex()}>"
        if code == 18:
            t = T(); bl = r.varint(); b = r.bytes(bl)
            return f"dense<{b[:32].hex()}{'...' if bl > 32 else ''} ({bl} bytes)> : {t}"
        if code == 21:
            return f"distinct[{A()}]"
        if code == 22:
            f = A(); n = r.varint()
            vals = [r.varint() for _ in range(n)]
            return f"loc({f}:{vals})"
        raise ValueError(f"builtin attr code {code}")

    def _builtin_type(self, r):
        code = r.varint()
        T = lambda: self.type(r.varint())
        A = lambda: self.attr(r.varint())
        if code == 0:
            ws = r.varint(); w, s = ws >> 2, ws & 3
            return ("i", "si", "ui")[s] + str(w)
        simple = {1: "index", 3: "bf16", 4: "f16", 5: "f32", 6: "f64", 7: "f80", 8: "f128", 12: "none"}
        if code in simple:
            return simple[code]
        if code == 2:
            ins = [T() for _ in range(r.varint())]
            outs = [T() for _ in range(r.varint())]
            return f"({', '.join(ins)}) -> ({', '.join(outs)})"
        if code == 9:
            return f"complex<{T()}>"
        if code in (13, 14):
            enc = A() if code == 14 else None
            shape = [r.svarint() for _ in range(r.varint())]
            et = T()
            dims = "x".join("?" if d < 0 else str(d) for d in shape)
            return f"tensor<{dims + 'x' if shape else ''}{et}{', ' + enc if enc else ''}>"
        if code == 15:
            return "tuple<" + ", ".join(T() for _ in range(r.varint())) + ">"
        if code == 18:
            return f"tensor<*x{T()}>"
        raise ValueError(f"builtin type code {code}")

    # ---------------- IR
    def dump_ir(self, out, show_locs=False):
        r = self.sec(4)
        self.out = out
        self.show_locs = show_locs
        self.op_stats = {}
        nops, has_args = r.varint_flag()
        assert not has_args
        for _ in range(nops):
            self._op(r, 0)

    def _op(self, r, depth):
        ind = "  " * depth
        name_i = r.varint()
        d, n, reg = self.opnames[name_i]
        full = f"{d}.{n}"
        self.op_stats[full] = self.op_stats.get(full, 0) + 1
        mask = r.byte()
        loc = self.attr(r.varint())
        parts = []
        if mask & 0x01:
            parts.append("attrs=" + self.attr(r.varint()))
        if mask & 0x40:
            if reg:
                pi = r.varint()
                parts.append(f"props#{pi}=" + self._props_str(pi, full))
            else:
                parts.append("props(attr)=" + self.attr(r.varint()))
        res = []
        if mask & 0x02:
            res = [self.type(r.varint()) for _ in range(r.varint())]
        opnds = []
        if mask & 0x04:
            opnds = [r.varint() for _ in range(r.varint())]
        if mask & 0x08:
            parts.append("succ=" + str([r.varint() for _ in range(r.varint())]))
        if mask & 0x20:
            nres = len(res)
            nv = r.varint() if nres > 1 else 1
            for _ in range(nv):
                if nres > 1:
                    r.varint()
                cnt, _pair = r.varint_flag()
                for _ in range(cnt):
                    r.varint()
            parts.append("uselist-orders")
        nreg = 0
        iso = False
        if mask & 0x10:
            nreg, iso = r.varint_flag()
        line = f"{ind}{full}{'' if reg else ' (unregistered)'} mask=0x{mask:02x}"
        if opnds:
            line += " operands=" + ",".join(f"%{v}" for v in opnds)
        if res:
            line += " -> (" + ", ".join(res) + ")"
        self.out.write(line + "\n")
        for p in parts:
            self.out.write(f"{ind}    {p}\n")
        if self.show_locs:
            self.out.write(f"{ind}    loc={loc}\n")
        if nreg:
            rr = r
            if iso and self.version >= 2:
                sid, start, length, align = r.section()
                assert sid == 4
                rr = R(self.data, start, start + length)
            self.out.write(f"{ind}  regions={nreg} isolated={iso}\n")
            for ri in range(nreg):
                nblocks = rr.varint()
                if nblocks == 0:
                    self.out.write(f"{ind}  region{ri}: empty\n")
                    continue
                nvalues = rr.varint()
                self.out.write(f"{ind}  region{ri}: blocks={nblocks} values={nvalues}\n")
                for bi in range(nblocks):
                    nops, has_args = rr.varint_flag()
                    args = []
                    if has_args:
                        na = rr.varint()
                        for _ in range(na):
                            ti, hasloc = rr.varint_flag()
                            t = self.type(ti)
                            if hasloc:
                                l = self.attr(rr.varint())
                                args.append(t + (f" loc={l}" if self.show_locs else " (loc)"))
                            else:
                                args.append(t)
                        if self.version >= 3:
                            ulo = rr.byte()
                            if ulo:
                                raise NotImplementedError("block arg use-list orders")
                    self.out.write(f"{ind}  ^bb{bi}({', '.join(args)}) ops={nops}\n")
                    for _ in range(nops):
                        self._op(rr, depth + 2)

    def _props_str(self, pi, opname):
        body = self.props[pi]
        if prop_decode is not None:
            try:
                s = prop_decode(self, opname, R(body))
                if s is not None:
                    return s
            except Exception as e:  # noqa: BLE001
                return f"raw={body.hex()} err={e}"
        return f"raw={body.hex()} varints={try_varints(body)}"


def try_varints(b):
    r = R(b)
    out = []
    try:
        while not r.empty():
            out.append(r.varint())
    except Exception:
        out.append("?")
    return out


def int_width(t):
    t = t.strip()
    for p in ("ui", "si", "i"):
        if t.startswith(p) and t[len(p):].isdigit():
            return int(t[len(p):])
    if t == "index":
        return 64
    return 64


aicode_decode = None
prop_decode = None


def summary(bc, out):
    out.write(f"bytecode version: {bc.version}\nproducer: {bc.producer!r}\n")
    out.write("sections (order, offset, length, alignment):\n")
    for n, s, l, a in bc.section_order:
        out.write(f"  {n:16s} off={s:<6d} len={l:<6d} align={a}\n")
    out.write("dialects:\n")
    for i, (d, v) in enumerate(bc.dialects):
        vs = "none" if v is None else f"{v.hex()} varints={try_varints(v)}"
        out.write(f"  [{i}] {d}  version entry: {vs}\n")
    out.write(f"op names ({len(bc.opnames)}):\n")
    for i, (d, n, reg) in enumerate(bc.opnames):
        out.write(f"  [{i}] {d}.{n}  registered={reg}\n")
    out.write(f"strings: {len(bc.strings)}; attrs: {len(bc.attrs)}; types: {len(bc.types)}; props: {len(bc.props)}\n")
    if bc.resources:
        out.write("resources:\n")
        for g, k, kind, start, data in bc.resources:
            out.write(f"  {g} / {k!r} kind={kind} off={start} size={len(data)} head={data[:24].hex()}\n")


if __name__ == "__main__":
    import argparse, io
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--table", action="store_true", help="print attr/type tables")
    ap.add_argument("--locs", action="store_true")
    ap.add_argument("--strings", action="store_true")
    a = ap.parse_args()
    try:
        import aicode_codec  # noqa: F401  (installs aicode_decode/prop_decode)
        aicode_codec.install(sys.modules[__name__])
    except ImportError:
        pass
    bc = Bytecode(open(a.file, "rb").read())
    out = sys.stdout
    summary(bc, out)
    if a.strings:
        for i, s in enumerate(bc.strings):
            out.write(f"  str[{i}] {s!r}\n")
    if a.table:
        out.write("attributes:\n")
        for i, (d, c, s, l) in enumerate(bc.attrs):
            out.write(f"  #{i} [{d}{' custom' if c else ' asm'} {l}B] {bc.attr(i)}\n")
        out.write("types:\n")
        for i, (d, c, s, l) in enumerate(bc.types):
            out.write(f"  !{i} [{d}{' custom' if c else ' asm'} {l}B] {bc.type(i)}\n")
    out.write("IR:\n")
    bc.dump_ir(out, a.locs)
    out.write("op histogram: " + ", ".join(f"{k}:{v}" for k, v in sorted(bc.op_stats.items())) + "\n")
