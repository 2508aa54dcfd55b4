"""A coreai graph multiplying its input by a ROWS x COLS f32 weight of
seeded normal values, held in a dense_resource blob."""
import sys

import numpy as np

rows, cols = int(sys.argv[1]), int(sys.argv[2])
w = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
print(f"""coreai.graph @main(%x: tensor<4x{rows}xf32>) -> tensor<4x{cols}xf32> {{
  %w = coreai.constant dense_resource<w> : tensor<{rows}x{cols}xf32>
  %y = coreai.batch_matmul %x, %w : (tensor<4x{rows}xf32>, tensor<{rows}x{cols}xf32>) -> tensor<4x{cols}xf32>
  coreai.output %y : tensor<4x{cols}xf32>
}}
{{-#
  dialect_resources: {{
    builtin: {{
      w: "0x10000000{w.tobytes().hex().upper()}"
    }}
  }}
#-}}""")
