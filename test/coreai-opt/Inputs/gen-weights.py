"""Writes a module whose function returns a `dense_resource` f32 constant of
N elements (value i / 2 at index i), as the importer stores weights.

    gen-weights.py N OUT.mlir
"""

import struct
import sys

n, out = int(sys.argv[1]), sys.argv[2]
blob = struct.pack("<I", 4) + struct.pack(f"<{n}f", *(i / 2 for i in range(n)))
with open(out, "w") as f:
    f.write(
        f"func.func @weights() -> tensor<{n}xf32> {{\n"
        f"  %0 = arith.constant dense_resource<w> : tensor<{n}xf32>\n"
        f"  return %0 : tensor<{n}xf32>\n"
        "}\n"
        f'{{-# dialect_resources: {{ builtin: {{ w: "0x{blob.hex().upper()}" }} }} #-}}\n'
    )
