"""coreai-opt and coreai-core 1.0.0b3 make the same accept/reject decision on
random coreaix.view and coreaix.cast ops between tensors with
#coreaix.hw_constraints layouts (ranks 0-3, alignments 1-16, at most one
interleaved dimension). coreai-core rejects a view whose destination layout
extends past its source's ("dest max offset N exceeds source max offset M");
casts may change the layout freely.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPT = os.path.join(os.environ.get("COREAI_BUILD_DIR", os.path.join(REPO, "target", "debug")), "coreai-opt")
sys.path.insert(0, os.path.join(REPO, "utils", "coreai-ods"))

import probe_element_types as probe  # noqa: E402


def layout(rng):
    rank = rng.randint(0, 3)
    dims = [rng.choice([1, 2, 3, 4, 6]) for _ in range(rank)]
    alignments = [rng.choice([1, 1, 2, 4, 8, 16]) for _ in range(rank + 1)]
    interleave = [1] * rank
    if rank and rng.random() < 0.5:
        k = rng.randrange(rank)
        factors = [f for f in (2, 3) if dims[k] % f == 0]
        if factors:
            interleave[k] = rng.choice(factors)
    x = lambda values: "x".join(map(str, values))
    return (f"tensor<{''.join(f'{d}x' for d in dims)}f32, #coreaix.hw_constraints<MTLBuffer, "
            f"alignments: [{x(alignments)}], interleave: [{x(interleave)}]>>")


def cases(n=200, seed=1):
    rng = random.Random(seed)
    ops = {o["name"]: o for o in probe.ops_from_bindings(os.path.join(probe.bindings_dir(), "_coreaix_ops_gen.py"))}
    for i in range(n):
        source, dest = layout(rng), layout(rng)
        for name in ("coreaix.view", "coreaix.cast"):
            yield name, source, dest, probe.build_case(ops[name], [source, dest], f"case{i}_{name}")


def test_same_layout_decisions():
    all_cases = list(cases())
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as fh:
        fh.write("\n// -----\n".join(text for *_, text in all_cases))
        path = fh.name
    r = subprocess.run([OPT, path, "--split-input-file", "-o", os.devnull], capture_output=True, text=True)
    os.unlink(path)
    rejected_by_opt = set(re.findall(r'(case\d+_coreaix\.\w+)', r.stderr))
    mismatches = []
    with probe.Core() as core:
        for name, source, dest, text in all_cases:
            tag = re.search(r'loc\("(case\d+_coreaix\.\w+)"\)', text).group(1)
            theirs = core.check(text) is None
            ours = tag not in rejected_by_opt
            if theirs != ours:
                mismatches.append(f"{name} {source} -> {dest}: coreai-core {'accepts' if theirs else 'rejects'}")
    assert not mismatches, "\n".join(mismatches[:20])


if __name__ == "__main__":
    test_same_layout_decisions()
    print("coreaix layout parity: PASS")
