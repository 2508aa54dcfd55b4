"""Runs coreai-opt on N one-graph chunks with --split-input-file and fails
when its peak resident memory exceeds LIMIT MiB. Each chunk gets its own
context; freeing it before the next keeps the peak flat in N.

usage: chunk-memory.py COREAI-OPT N LIMIT-MIB SCRATCH-FILE
"""
import resource
import subprocess
import sys

opt, n, limit, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
chunk = """coreai.graph @g{i}(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {{
  %r = coreai.abs %a : tensor<2x3xf32> -> tensor<2x3xf32>
  coreai.output %r : tensor<2x3xf32>
}}"""
with open(path, "w") as f:
    f.write("\n// -----\n".join(chunk.format(i=i) for i in range(n)))
subprocess.run([opt, path, "--split-input-file", "-o", "/dev/null"], check=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(f"{n} chunks: peak {peak} MiB (limit {limit} MiB)")
sys.exit(0 if peak <= limit else 1)
