"""Writes a corrupted copy of an MLIR bytecode file, one fault per mode, for
the reader-fault tests: python corrupt-bytecode.py MODE IN OUT.

The section table is decoded and re-encoded (MLIR's PrefixVarInt, 0xCB
padding), so a mode changes exactly one field."""

import sys


def read_varint(data, pos):
    first = data[pos]
    if first == 0:
        return int.from_bytes(data[pos + 1:pos + 9], "little"), pos + 9
    n = (first & -first).bit_length()  # bytes in the encoding
    return int.from_bytes(data[pos:pos + n], "little") >> n, pos + n


def varint(value):
    for n in range(1, 9):
        if value < 1 << (7 * n):
            return ((value << n) | (1 << (n - 1))).to_bytes(n, "little")
    return b"\x00" + value.to_bytes(8, "little")


def sections(data):
    pos = 4
    _, pos = read_varint(data, pos)
    pos = data.index(0, pos) + 1
    header, out = data[:pos], []
    while pos < len(data):
        ident = data[pos]
        length, pos = read_varint(data, pos + 1)
        align = None
        if ident & 0x80:
            align, pos = read_varint(data, pos)
            while pos % align:
                pos += 1
        out.append([ident & 0x7F, align, bytearray(data[pos:pos + length])])
        pos += length
    return header, out


def encode(header, secs):
    out = bytearray(header)
    for ident, align, body in secs:
        out.append(ident | (0x80 if align else 0))
        out += varint(len(body))
        if align:
            out += varint(align)
            while len(out) % align:
                out.append(0xCB)
        out += body
    return bytes(out)


def section(secs, ident):
    return next(s for s in secs if s[0] == ident)


def main(mode, src, dst):
    data = open(src, "rb").read()
    header, secs = sections(data)
    if mode == "truncated":
        out = data[: len(data) - 3]
    elif mode == "unknown-section":
        secs.append([42, None, bytearray(b"\x00")])
        out = encode(header, secs)
    elif mode == "string-count":
        body = section(secs, 0)[2]
        _, pos = read_varint(body, 0)
        section(secs, 0)[2] = bytearray(varint(1 << 40)) + body[pos:]
        out = encode(header, secs)
    elif mode == "op-name-count":
        # The dialect section's operation-name count (after the dialects,
        # each a name index with a version flag and, flagged, a nested
        # version section) set to 2^40.
        body = section(secs, 1)[2]
        n, pos = read_varint(body, 0)
        for _ in range(n):
            name, pos = read_varint(body, pos)
            if name & 1:
                ident = body[pos]
                length, pos = read_varint(body, pos + 1)
                assert not ident & 0x80, "expected an unaligned version section"
                pos += length
        _, end = read_varint(body, pos)
        section(secs, 1)[2] = body[:pos] + varint(1 << 40) + body[end:]
        out = encode(header, secs)
    elif mode == "attr-group-overrun":
        # The first attribute group's entry count (after the attribute and
        # type counts and the group's dialect index) set past the declared
        # number of attributes.
        body = section(secs, 3)[2]
        attrs, pos = read_varint(body, 0)
        _, pos = read_varint(body, pos)
        _, pos = read_varint(body, pos)
        _, end = read_varint(body, pos)
        section(secs, 3)[2] = body[:pos] + varint(attrs + 1000) + body[end:]
        out = encode(header, secs)
    elif mode == "string-size-zero":
        body = section(secs, 0)[2]
        _, pos = read_varint(body, 0)
        section(secs, 0)[2] = body[:pos] + b"\x01" + body[pos + 1:]
        out = encode(header, secs)
    elif mode in ("blob-alignment-zero", "blob-alignment-three", "blob-size"):
        body = section(secs, 5)[2]
        _, pos = read_varint(body, 0)
        assert pos == 1, "expected a one-byte alignment"
        if mode == "blob-size":
            size, end = read_varint(body, pos)
            assert end == pos + 1, "expected a one-byte size"
            body[pos] = 0xFF  # 127 bytes, more than the blob holds
        else:
            body[0] = varint(0 if mode == "blob-alignment-zero" else 3)[0]
        out = encode(header, secs)
    elif mode.startswith("replace:"):
        # replace:OLD_HEX:NEW_HEX, same length, exactly once.
        _, old, new = mode.split(":")
        old, new = bytes.fromhex(old), bytes.fromhex(new)
        assert data.count(old) == 1 and len(old) == len(new), "ambiguous replacement"
        out = data.replace(old, new)
    else:
        sys.exit(f"unknown mode {mode}")
    open(dst, "wb").write(out)


if __name__ == "__main__":
    main(*sys.argv[1:])
