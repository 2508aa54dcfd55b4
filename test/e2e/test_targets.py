"""The gpu and ane targets end to end (`coreai-compile --target T
--compile-to target`, text IR), in coreai-run and coreai-core's interpreter.

- Rounding on the gpu target (target-gpu, guide §9.7 #7): floor, ceil,
  trunc and round of every f16 bit pattern and of a dense f32 sweep (edges,
  halves and their neighbours, ±0, ±inf, NaN, subnormals, magnitudes around
  2^23 and 2^24, random bit patterns) equal numpy's float64 result rounded
  once to the dtype, bit for bit (the sign of zero included; NaN for NaN),
  and the target's IR holds no float `round` and no float `x // 1`.
- The deformable-attention case: a bilinear sampler whose `floor` of the
  sampling position feeds a gather index is exact on the gpu target (the
  indices equal eager PyTorch's, the samples within f32 rounding).
- Integer-comparison masks on the cpu and gpu targets (target-cpu,
  target-gpu, guide §9.7 #8): a sampler with int64 corner indices whose
  bounds masks feed a float multiply and a `where` equals eager PyTorch bit
  for bit in both executors, on positions at every edge (negative, ±0,
  W - 1, W, just below integers, magnitudes beyond 2^24 up to 9e18), and no
  integer comparison reaches a float cast or a float `where` in the target's
  IR (the optimized stage before the target passes has them: the check sees
  them).
- linear-conv1x1, transpose-sink, matmul-rank4 and rank4-chain in f32 are
  bit-exact in coreai-run (within f32 rounding in coreai-core's convolution
  and rank-4 kernels); layout-in-f16 moves data
  movement across f32 <-> f16 casts bit-exactly in both executors (±inf,
  NaN and an f16 overflow included).
- A multi-head attention block in BC1S (linear-conv1x1, transpose-pair)
  is bit-exact in coreai-run, within f32 rounding in coreai-core.
- stride-space-to-depth (a stride-5 Conv1d and a grouped Conv2d with
  stride (5, 2)) computes eager PyTorch's values within f32 rounding in
  both executors, with no stride 5 left.
- The router's argsort on the ane target (target-ane's argsort-ranks): in
  f32 the sort and top-k of a softmax compute the same values bit for bit
  as the argsort they replace, in both executors, and the same indices as
  eager PyTorch (ties by position, values that underflow to 0, near ties);
  in f16 no argsort is left.
- A few corpus models per target against eager PyTorch (utils/coreai-report/
  targets.py): ane within 3e-2 x max|eager| with no rank-2 matmul operand and
  at least 70% of the float ops in f16; gpu within the f32 tolerance with no
  rounding op left; integer outputs exactly.
"""

import importlib.util
import json
import re
import sys
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from models import CORPUS
from toolchain import COREAI_OPT, export_source, load

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("coreai_targets", REPO / "utils" / "coreai-report" / "targets.py")
targets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(targets)
report = targets.report

ROUNDING = """
import torch

class M(torch.nn.Module):
    def forward(self, x):
        return torch.floor(x), torch.ceil(x), torch.trunc(x), torch.round(x)

def factory():
    return M(), (torch.zeros({n}, dtype=torch.{dtype}),)
"""

MATH = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.rint}


def f32_sweep():
    """Edge values and a dense sweep of f32."""
    rng = np.random.default_rng(16)
    tiny = np.finfo(np.float32).tiny
    edges = [0.0, 0.5, 1.5, 2.5, 1.0, 0.49999997, 0.50000006, 2 ** 22 + 0.5, 2 ** 22 - 0.5, 2 ** 23 - 0.5,
             2 ** 23 - 1, 2 ** 23, 2 ** 23 + 1, 2 ** 24, 2 ** 24 + 2, 3.4e38, np.finfo(np.float32).max,
             tiny, tiny / 2, 1e-45, 1e-30, 0.99999994, 1.0000001, np.inf, np.nan]
    halves = np.arange(-2000, 2000, dtype=np.float64) + 0.5
    halves = halves.astype(np.float32)
    near = np.concatenate([np.nextafter(halves, np.float32(np.inf)), np.nextafter(halves, np.float32(-np.inf))])
    steps = np.linspace(-70.0, 70.0, 40001, dtype=np.float32)
    bits = rng.integers(0, 2 ** 32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    wide = (rng.standard_normal(30000) * 10.0 ** rng.uniform(-8, 9, 30000)).astype(np.float32)
    big = (2.0 ** 23 + rng.uniform(-64, 64, 4000)).astype(np.float32)
    values = np.concatenate([np.array(edges, np.float32), halves, near, steps, bits, wide, big])
    return np.concatenate([values, -values])


def f16_all():
    """Every f16 bit pattern."""
    return np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


def expected_rounding(x):
    with np.errstate(invalid="ignore"):
        wide = x.astype(np.float64)
        return {name: f(wide).astype(x.dtype) for name, f in MATH.items()}


def same_bits(got, want):
    """Equal values with equal signs (zeros included), NaN for NaN."""
    got = np.asarray(got)
    nan = np.isnan(want)
    return (np.isnan(got) == nan) & (nan | ((got == want) & (np.signbit(got) == np.signbit(want))))


@pytest.mark.parametrize("dtype,values", [("float16", f16_all), ("float32", f32_sweep)])
def test_rounding_is_exact_on_the_gpu_target(dtype, values, tmp_path):
    x = values()
    module = export_source(tmp_path, ROUNDING.format(n=x.size, dtype=dtype))
    cpu, gpu = tmp_path / "cpu.mlir", tmp_path / "gpu.mlir"
    for target, out in [("cpu", cpu), ("gpu", gpu)]:
        r = targets.compile_target(module, out, target)
        assert r.returncode == 0, r.stderr
    assert targets.rounding_left(cpu.read_text()) == 4
    assert targets.rounding_left(gpu.read_text()) == 0
    names = list(load(tmp_path / "expected.npz"))
    (key,) = load(tmp_path / "in.npz")
    inputs = tmp_path / "sweep.npz"
    np.savez(inputs, **{key: x})
    want = expected_rounding(x)
    for oracle, runner in [("coreai-run", report.run_coreai_run), ("coreai-core", report.run_coreai_core)]:
        outputs, message = runner(gpu, inputs, tmp_path)
        assert outputs is not None, f"{oracle}: {message}"
        for name, op in zip(names, MATH):
            ok = same_bits(outputs[name], want[op])
            bad = x[~ok][:5]
            assert ok.all(), f"{oracle} {op}: {np.count_nonzero(~ok)} wrong, e.g. {bad} -> {outputs[name][~ok][:5]}"


SAMPLER = """
import torch

H, W = 5, 7

class Sampler(torch.nn.Module):
    # The sampling step of deformable attention (RF-DETR, guide §9.7 #7):
    # the floor of each position picks the gathered pixels.
    def forward(self, value, loc):
        x, y = loc[:, 0], loc[:, 1]
        x0, y0 = torch.floor(x), torch.floor(y)
        fx, fy = x - x0, y - y0
        out, indices = 0.0, []
        for dx, dy, w in [(0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)),
                          (0, 1, (1 - fx) * fy), (1, 1, fx * fy)]:
            xi, yi = x0 + dx, y0 + dy
            inside = ((xi >= 0) & (xi <= W - 1) & (yi >= 0) & (yi <= H - 1)).to(value.dtype)
            idx = (yi.clamp(0, H - 1) * W + xi.clamp(0, W - 1)).long()
            out = out + value[idx] * (w * inside)[:, None]
            indices.append(idx)
        return out, torch.stack(indices, 1)

def locations(n):
    g = torch.Generator().manual_seed(7)
    loc = torch.rand(n, 2, generator=g) * torch.tensor([W + 2.0, H + 2.0]) - 1.0
    # integral positions, just below integers, negatives that floor to -1
    loc[:8] = torch.tensor([[0.0, 0.0], [3.0, 2.0], [-0.25, 1.5], [2.9999998, 3.9999998],
                            [6.0, 4.0], [-1e-6, -1e-6], [5.5, -0.5], [1.0000001, 0.9999999]])
    return loc

def factory():
    g = torch.Generator().manual_seed(3)
    return Sampler(), (torch.randn(H * W, 4, generator=g), locations(64))
"""


def test_floor_feeding_an_index_is_exact_on_the_gpu_target(tmp_path):
    module = export_source(tmp_path, SAMPLER)
    gpu = tmp_path / "gpu.mlir"
    r = targets.compile_target(module, gpu, "gpu")
    assert r.returncode == 0, r.stderr
    assert targets.rounding_left(gpu.read_text()) == 0
    want = load(tmp_path / "expected.npz")
    samples, indices = list(want)
    for oracle, runner in [("coreai-run", report.run_coreai_run), ("coreai-core", report.run_coreai_core)]:
        outputs, message = runner(gpu, tmp_path / "in.npz", tmp_path)
        assert outputs is not None, f"{oracle}: {message}"
        np.testing.assert_array_equal(outputs[indices], want[indices], err_msg=oracle)
        np.testing.assert_allclose(outputs[samples], want[samples], rtol=1e-6, atol=1e-6, err_msg=oracle)


INDEX_SAMPLER = """
import torch

H, W = 5, 7

class IndexSampler(torch.nn.Module):
    # Bilinear sampling with int64 corner indices (deformable attention,
    # guide §9.7 #7 and #8): the bounds masks of the floor-derived indices
    # feed a float multiply and a where; the gather takes the clamped index.
    def forward(self, value, loc):
        x, y = loc[:, 0], loc[:, 1]
        x0, y0 = torch.floor(x), torch.floor(y)
        fx, fy = x - x0, y - y0
        out, masks, kept = 0.0, [], []
        for dx, dy, w in [(0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)),
                          (0, 1, (1 - fx) * fy), (1, 1, fx * fy)]:
            xi, yi = (x0 + dx).long(), (y0 + dy).long()
            valid = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
            idx = yi.clamp(0, H - 1) * W + xi.clamp(0, W - 1)
            m = valid.to(value.dtype)
            out = out + value[idx] * (w * m)[:, None]
            masks.append(m)
            kept.append(torch.where(valid, w, 0.0))
        return out, torch.stack(masks, 1), torch.stack(kept, 1)

# negative, ±0, the last valid index and the first invalid one of both axes,
# just below integers, magnitudes beyond 2^24 up to 9e18 (< 2^63)
EDGES = [-3.5, -1.0, -0.5, -1e-7, -0.0, 0.0, 0.25, 1.0, 4.0, 4.9999995, 5.0, 5.9999995, 6.0, 6.9999995, 7.0,
         7.5, 2.0 ** 24 + 2, -(2.0 ** 24 + 2), 3e7, -5e9, 2.0 ** 40, -(2.0 ** 50), 1e15, 9e18, -9e18]

def factory():
    g = torch.Generator().manual_seed(11)
    e = torch.tensor(EDGES)
    xs, ys = torch.meshgrid(e, e, indexing="ij")
    grid = torch.stack([xs.reshape(-1), ys.reshape(-1)], 1)
    spread = torch.rand(200, 2, generator=g) * torch.tensor([W + 4.0, H + 4.0]) - 2.0
    return IndexSampler(), (torch.randn(H * W, 3, generator=g), torch.cat([grid, spread]))
"""

INT_COMPARE = re.compile(r"(%\w+) = coreai\.decomposable\.broadcasting_(?:greater|equal|not_equal) .*: \(tensor<[^>]*[su]i\d+>")
LOGICAL = re.compile(r"(%\w+) = coreai\.(?:decomposable\.broadcasting_)?(?:and|or|xor|bitwise_and|bitwise_or|bitwise_xor|not) (.*?) :")
TO_FLOAT = [re.compile(r"coreai\.cast (%\w+) : tensor<[^>]*i1> to tensor<[^>]*f\d+>"),
            re.compile(r"broadcasting_where (%\w+), .*-> tensor<[^>]*f\d+>")]


def integer_masks_to_floats(text):
    """The bools built from integer comparisons (through and/or/xor/not)
    that a float cast or a float `where` reads."""
    masks = set()
    for line in text.splitlines():
        if m := INT_COMPARE.search(line):
            masks.add(m[1])
        elif (m := LOGICAL.search(line)) and masks.intersection(re.findall(r"%\w+", m[2])):
            masks.add(m[1])
    return [m[1] for r in TO_FLOAT for m in r.finditer(text) if m[1] in masks]


@pytest.mark.parametrize("target", ["cpu", "gpu"])
def test_integer_comparison_masks_are_float_arithmetic_on_the_target(target, tmp_path):
    module = export_source(tmp_path, INDEX_SAMPLER)
    optimized, out = tmp_path / "optimized.mlir", tmp_path / f"{target}.mlir"
    r = subprocess.run([str(targets.COREAI_COMPILE), str(module), "--target", target, "--compile-to", "optimized",
                        "-o", str(optimized)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = targets.compile_target(module, out, target)
    assert r.returncode == 0, r.stderr
    # four casts and four wheres of masks before the target's passes; none after
    assert len(integer_masks_to_floats(optimized.read_text())) == 8
    assert integer_masks_to_floats(out.read_text()) == []
    want = load(tmp_path / "expected.npz")
    for oracle, runner in [("coreai-run", report.run_coreai_run), ("coreai-core", report.run_coreai_core)]:
        outputs, message = runner(out, tmp_path / "in.npz", tmp_path)
        assert outputs is not None, f"{oracle}: {message}"
        for name in want:
            ok = same_bits(outputs[name], want[name])
            assert ok.all(), f"{oracle} {name}: {np.count_nonzero(~ok)} differ from eager PyTorch"


def test_explain_lists_each_rewrite_with_its_reason(tmp_path):
    module = export_source(tmp_path, ROUNDING.format(n=4, dtype="float32"))
    r = targets.compile_target(module, tmp_path / "gpu.mlir", "gpu", "--explain")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.startswith("target-gpu: ")]
    # floor, ceil, trunc: one x // 1 each; round: one coreai.round
    assert sum("floor-by-two: " in l and "§9.7 #7" in l for l in lines) == 3, r.stderr
    assert sum("'coreai.round' round-half-even: " in l for l in lines) == 1, r.stderr


def test_explain_lists_mask_rewrites_and_declines(tmp_path):
    # i + 1 computed in int64 is declined (it rounds in floats beyond 2^24);
    # the mask of i itself is rewritten.
    source = """
import torch

class M(torch.nn.Module):
    def forward(self, x):
        i = torch.floor(x).long()
        return ((i >= 0) & (i < 7)).float(), ((i + 1) < 7).float()

def factory():
    return M(), (torch.linspace(-3, 9, 8),)
"""
    module = export_source(tmp_path, source)
    r = targets.compile_target(module, tmp_path / "gpu.mlir", "gpu", "--explain")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.startswith("target-gpu: ")]
    assert sum("'coreai.cast' mask-arithmetic: " in l and "§9.7 #8" in l for l in lines) == 1, r.stderr
    declined = [l for l in lines if "mask-arithmetic declined: " in l]
    assert len(declined) == 1 and "broadcasting_add" in declined[0], r.stderr


SPEC = {name: spec for name, spec, _ in CORPUS}
MODELS = {
    "gpu": ["unary_float", "int_floor_mod", "llama_block"],
    "ane": ["embedding", "mha_module", "llama_block", "conv2d_pool"],
}


@pytest.mark.parametrize("target,name", [(t, n) for t, names in MODELS.items() for n in names])
def test_corpus_model_on_target(target, name, tmp_path):
    r = targets.evaluate(name, SPEC[name], tmp_path, target)
    assert not r.error, r.error
    assert r.coreai_run["ok"], r.coreai_run
    assert r.coreai_core["ok"], r.coreai_core
    if target == "ane":
        assert r.rank2_operands == 0
        assert r.share >= 0.70, f"{r.f16_ops}/{r.float_ops} float ops in f16"
    else:
        assert r.rounding_left == 0


EMBEDDINGS = """
import torch

class Embeddings(torch.nn.Module):
    # A token table of 64 rows (a multiple of 8: Apple's IOSurface embedding
    # configuration, guide §7.7) and a position table of 12 rows (not one).
    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.tok = torch.nn.Embedding(64, 16)
        self.pos = torch.nn.Embedding(12, 16)
        with torch.no_grad():
            # f16 edges in the rows: overflow to inf, subnormals, halfway cases, -0.0
            self.tok.weight[0, :6] = torch.tensor([7e4, -7e4, 3e-6, -1e-8, 1.00048828125, -0.0])
            self.tok.weight[63] *= 1e3

    def forward(self, ids, pos):
        return self.tok(ids), self.pos(pos)

def factory():
    g = torch.Generator().manual_seed(6)
    ids = torch.randint(0, 64, (2, 9), generator=g)
    ids[0, :3] = torch.tensor([0, 63, 0])
    return Embeddings(), (ids, torch.randint(0, 12, (2, 9), generator=g))
"""

IOSURFACE_EMBEDDING = "#coreaix.hw_constraints<IOSurface, alignments: [1x1x1x1], interleave: [8x1x1]>"


def test_embedding_tables_take_apples_iosurface_configuration_on_the_ane_target(tmp_path):
    """target-ane's `embedding-iosurface`: the 64-row table is passed as
    (64, 1, 16) to a noinline graph whose parameter carries Apple's encoding
    verbatim, the 12-row table takes `embedding-v1d` (the interleave of 8
    must divide the rows: `--explain` says so); the asset loads and runs in
    coreai-core's runtime and in coreai-run, bit for bit like the eager
    rows: the token rows exactly (their table holds 7e4, beyond f16's
    range, so cast-to-f16 keeps it in f32), the position rows rounded once
    to f16 (a gather is exact)."""
    module = export_source(tmp_path, EMBEDDINGS)
    ir = tmp_path / "ane.mlir"
    r = targets.compile_target(module, ir, "ane", "--explain", "--io", "model")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.startswith("target-ane: ")]
    assert sum("'coreai.gather_nd' embedding-iosurface: " in l and "§7.7" in l for l in lines) == 1, r.stderr
    assert sum("'coreai.gather_nd' embedding-v1d: " in l for l in lines) == 1, r.stderr
    declined = [l for l in lines if " declined: " in l]
    assert len(declined) == 1 and "embedding-iosurface declined: the table has 12 rows" in declined[0], r.stderr
    text = ir.read_text()
    graph = re.search(r"coreai\.graph private noinline @(\w+)\(%arg0: tensor<64x1x16xf32, (#coreaix[^>]*>)>", text)
    assert graph and graph.group(2) == IOSURFACE_EMBEDDING, text
    assert text.count("#coreaix.hw_constraints") == text.count(IOSURFACE_EMBEDDING) == 4, text
    assert re.search(rf"coreai\.invoke @{graph.group(1)}\(", text), text
    assert "tensor<12x1x16xf16>" in text and "12x1x16xf16, #coreaix" not in text, text

    # The model's f32 outputs and int64 ids (`--io model`), compared with
    # eager bit for bit below; the default `--io f16` asset after that.
    asset = tmp_path / "ane.aimodel"
    r = subprocess.run([str(targets.COREAI_COMPILE), str(module), "--target", "ane", "--io", "model",
                        "-o", str(asset)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sys.path.insert(0, str(REPO / "utils" / "aicode"))
    from compare import core_save_asset, decoded_ir

    core_save_asset(text, tmp_path / "theirs.aimodel")
    assert decoded_ir(asset / "main.mlirb") == decoded_ir(tmp_path / "theirs.aimodel" / "main.mlirb")
    eager = load(tmp_path / "expected.npz")
    for who, run in both_runtimes(asset).items():
        out = tmp_path / f"{who}.npz"
        p = run("--inputs", str(tmp_path / "in.npz"), "--outputs", str(out))
        assert p.returncode == 0, f"{who}: {p.stderr}"
        got = load(out)
        assert sorted(got) == sorted(eager) == ["output_0", "output_1"], who
        tok, pos = eager["output_0"], eager["output_1"]
        for key, want in [("output_0", tok), ("output_1", pos.astype(np.float16).astype(np.float32))]:
            assert got[key].dtype == want.dtype, (who, key, got[key].dtype)
            np.testing.assert_array_equal(got[key].view(np.uint32), want.view(np.uint32), err_msg=f"{who} {key}")

    # The default, `--io f16`: the ids are si16 inputs (`narrow-integers`:
    # both tables have fewer than 32768 rows), the outputs f16; the same rows,
    # rounded once to f16, bit for bit.
    r = targets.compile_target(module, tmp_path / "ane16.mlir", "ane")
    assert r.returncode == 0, r.stderr
    text16 = (tmp_path / "ane16.mlir").read_text()
    assert re.search(r'coreai\.graph @main\(%arg0: tensor<2x9xsi16> \{coreai\.name = "ids"\}, '
                     r'%arg1: tensor<2x9xsi16>', text16), text16
    asset16 = tmp_path / "ane16.aimodel"
    r = subprocess.run([str(targets.COREAI_COMPILE), str(module), "--target", "ane", "-o", str(asset16)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for who, run in both_runtimes(asset16).items():
        out = tmp_path / f"{who}.f16.npz"
        p = run("--inputs", str(tmp_path / "in.npz"), "--outputs", str(out), "--cast-inputs")
        assert p.returncode == 0, f"{who}: {p.stderr}"
        got = load(out)
        for key in ["output_0", "output_1"]:
            with np.errstate(over="ignore"):  # 7e4 rounds to inf in f16, as the cast computes
                want = eager[key].astype(np.float16)
            assert got[key].dtype == np.float16, (who, key, got[key].dtype)
            np.testing.assert_array_equal(got[key].view(np.uint16), want.view(np.uint16), err_msg=f"{who} {key}")


def both_runtimes(asset):
    """{runtime: run(*args)} for coreai-core's runtime (through the oracle's
    worker) and coreai-run, each taking runasset-style arguments."""
    import oracle

    return {"coreai-core": lambda *a: oracle.runasset(asset, *a),
            "coreai-run": lambda *a: subprocess.run([str(REPO / "target" / "debug" / "coreai-run"), str(asset), *a],
                                                    capture_output=True, text=True)}


INTEGERS = """
import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.tok = torch.nn.Embedding(50, 8)
        self.pos = torch.nn.Embedding(40, 8)
        for e in (self.tok, self.pos):
            e.weight.data = torch.randn(e.weight.shape, generator=g)

    def forward(self, ids):
        # RoBERTa's padding-aware positions and a router's per-bucket counts.
        mask = ids.ne(1).int()
        positions = (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + 1
        buckets = ids.unsqueeze(-1) > torch.tensor([10, 20, 30, 40])
        counts = buckets.int().sum(dim=1)
        return self.tok(ids), self.pos(positions), positions.float(), counts.float(), (ids // 3).float()

def factory():
    g = torch.Generator().manual_seed(5)
    ids = torch.randint(0, 50, (2, 12), generator=g)
    ids[0, -4:] = 1
    ids[1, :2] = 1
    return M(), (ids,)
"""


def test_integer_computations_narrow_to_si16_and_stay_exact(tmp_path):
    """`narrow-integers` under `--target ane`: the token ids index 50- and
    40-row tables, so the si64 input becomes si16; the positions (a cumsum of
    a mask, PyTorch's int64 → int32 wrap, products and sums), the bucket
    counts and the floor division are proven to fit and compute in si16, the
    comparisons as si16 arithmetic: every op is Neural-Engine-resident, and
    in coreai-core's runtime and in coreai-run every output equals eager,
    rounded once to f16 (integers up to 2048 and gathered rows are exact)."""
    module = export_source(tmp_path, INTEGERS)
    r = targets.compile_target(module, tmp_path / "ane.mlir", "ane", "--explain")
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "ane.mlir").read_text()
    assert re.search(r"coreai\.graph @main\(%arg0: tensor<2x12xsi16>", text), text
    assert not re.search(r"(->|to) tensor<[0-9x]*i1>", text) and "bitwise" not in text, text
    summary = re.search(r"ane-residency: (\d+) of (\d+) ops Neural-Engine-resident", r.stderr)
    assert summary and summary.group(1) == summary.group(2), r.stderr
    assert "narrow-integers: " in r.stderr and "becomes si16" in r.stderr, r.stderr

    asset = tmp_path / "ane.aimodel"
    r = subprocess.run([str(targets.COREAI_COMPILE), str(module), "--target", "ane", "-o", str(asset)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    eager = load(tmp_path / "expected.npz")
    for who, run in both_runtimes(asset).items():
        out = tmp_path / f"{who}.npz"
        p = run("--inputs", str(tmp_path / "in.npz"), "--outputs", str(out), "--cast-inputs")
        assert p.returncode == 0, f"{who}: {p.stderr}"
        got = load(out)
        assert sorted(got) == sorted(eager), who
        for key, value in eager.items():
            want = value.astype(np.float16)
            assert got[key].dtype == np.float16, (who, key, got[key].dtype)
            np.testing.assert_array_equal(got[key].view(np.uint16), want.view(np.uint16), err_msg=f"{who} {key}")


RESIDENCY = """
import torch

class M(torch.nn.Module):
    def forward(self, x):
        h = x * 2.0
        p = torch.softmax(h, dim=-1)
        s = h + 3000.5
        return h.relu(), p, s

def factory():
    return M(), (torch.randn(2, 64),)
"""


def test_ane_residency_report_names_each_op_leaving_the_neural_engine(tmp_path):
    # Under --target ane the multiply, relu and softmax compute in f16
    # (islands=neural-engine); the add of 3000.5, which f16 does not hold,
    # stays an f32 island and the f32 inputs and outputs are cast at the
    # boundary: the report names those ops, at the source line they came
    # from, and counts what stays.
    module = export_source(tmp_path, RESIDENCY)
    r = targets.compile_target(module, tmp_path / "ane.mlir", "ane", "--explain")
    assert r.returncode == 0, r.stderr
    remarks = [l for l in r.stderr.splitlines() if "remark: ane-residency:" in l]
    island_line = RESIDENCY.splitlines().index("        s = h + 3000.5") + 1
    assert any(l.startswith(f"{tmp_path / 'm.py'}:{island_line}:")
               and "'coreai.decomposable.broadcasting_add'" in l
               and "dtype: operand #0 is tensor<2x64xf32>" in l for l in remarks), r.stderr
    assert not any("'coreai.relu'" in l or "'coreai.softmax'" in l for l in remarks), r.stderr
    summary = re.search(r"ane-residency: (\d+) of (\d+) ops Neural-Engine-resident", r.stderr)
    assert summary, r.stderr
    resident, total = map(int, summary.groups())
    assert total - resident == len(remarks) > 0
    # Without --explain there is no report; --require-resident turns the same
    # ops into one error and writes nothing.
    quiet = targets.compile_target(module, tmp_path / "quiet.mlir", "ane")
    assert quiet.returncode == 0 and "ane-residency" not in quiet.stderr, quiet.stderr
    asset = tmp_path / "strict.aimodel"
    strict = subprocess.run([str(targets.COREAI_COMPILE), str(module), "--target", "ane", "--require-resident",
                             "-o", str(asset)], capture_output=True, text=True)
    assert strict.returncode == 1, strict.stderr
    assert f"error: ane-residency: {total - resident} of {total} ops would leave the Neural Engine" in strict.stderr
    assert not asset.exists()
    # The same report from any asset: coreai-freqop --ane.
    built = tmp_path / "ane.aimodel"
    r = subprocess.run([str(targets.COREAI_COMPILE), str(module), "--target", "ane", "-o", str(built)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    freqop = Path(targets.COREAI_COMPILE).with_name("coreai-freqop")
    r = subprocess.run([str(freqop), "--ane", str(built)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"ane-residency: {resident} of {total} ops Neural-Engine-resident" in r.stderr, r.stderr
    assert any(l.startswith(f"{tmp_path / 'm.py'}:{island_line}:") and "broadcasting_add" in l
               for l in r.stderr.splitlines()), r.stderr


ATTENTION = """
import torch

class M(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)

def factory():
    g = torch.Generator().manual_seed(3)
    return M(), tuple(torch.randn(1, 2, 8, 16, generator=g) for _ in range(3))
"""


def test_attention_inline_is_exact_and_leaves_no_fused_attention(tmp_path):
    # target-ane's attention-inline replaces the call of the attention
    # composite by its body, and mask-additive its select on the causal mask
    # by an added constant: in f32 the program computes the same values bit
    # for bit in both executors, and the residency report finds no fused
    # attention left.
    before, after, r = optimized_and_ane_f32(tmp_path, ATTENTION)
    assert "composite_declaration<\"scaled_dot_product_attention\"" in before.read_text()
    assert "attention-inline" in r.stderr, r.stderr
    assert "scaled_dot_product_attention" not in after.read_text()
    # The causal mask is additive (mask-additive): no boolean left, and the
    # values are still the same bit for bit (f32: exp(s + f32::MIN - max) is
    # 0, as exp(-inf) is).
    assert "mask-additive" in r.stderr, r.stderr
    assert "xi1>" in before.read_text() and "xi1>" not in after.read_text()
    assert "fused-attention" not in r.stderr
    assert_same_bits_and_eager(before, after, tmp_path, rtol=1e-5, atol=1e-6)


def optimized_and_ane_f32(tmp_path, source):
    """The model of `source` compiled in f32 to the optimized stage and to
    the ane target stage (with --explain): (before, after, the target
    compile's CompletedProcess)."""
    module = export_source(tmp_path, source)
    before, after = tmp_path / "coreai.mlir", tmp_path / "ane.mlir"
    r = subprocess.run([str(targets.COREAI_COMPILE), str(module), "--target", "ane", "--precision", "f32",
                        "--compile-to", "optimized", "-o", str(before)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = targets.compile_target(module, after, "ane", "--precision", "f32", "--explain")
    assert r.returncode == 0, r.stderr
    return before, after, r


def assert_same_bits_and_eager(before, after, tmp_path, rtol, atol, rounding_in=()):
    """`after` computes what `before` computes, bit for bit, in both
    executors (within f32 rounding in the executors of `rounding_in`, whose
    kernels for a 1x1 convolution and a product sum in different orders),
    and both match eager PyTorch."""
    want = load(tmp_path / "expected.npz")
    for oracle, runner in [("coreai-run", report.run_coreai_run), ("coreai-core", report.run_coreai_core)]:
        (a, ma), (b, mb) = runner(before, tmp_path / "in.npz", tmp_path), runner(after, tmp_path / "in.npz", tmp_path)
        assert a is not None and b is not None, f"{oracle}: {ma} {mb}"
        for name in want:
            if oracle in rounding_in:
                np.testing.assert_allclose(b[name], a[name], rtol=1e-6, atol=1e-6, err_msg=oracle)
            else:
                assert same_bits(b[name], a[name]).all(), f"{oracle} {name}: the target rewrites changed values"
            np.testing.assert_allclose(b[name], want[name], rtol=rtol, atol=atol, err_msg=f"{oracle} vs eager")


WINDOWS = """
import torch

class M(torch.nn.Module):
    # Swin's window partition and its reverse around a per-window linear
    # layer: rank-6 views transposed.
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)

    def forward(self, x):
        b, h, w, c = x.shape
        win = x.view(b, h // 4, 4, w // 4, 4, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, 16, c)
        y = self.proj(win).view(b, h // 4, w // 4, 4, 4, c).permute(0, 1, 3, 2, 4, 5)
        return y.reshape(b, h, w, c)

def factory():
    torch.manual_seed(5)
    return M(), (torch.randn(2, 8, 12, 16),)
"""


def test_rank_reduce_is_exact_and_leaves_no_rank_6_value(tmp_path):
    # target-ane's rank-reduce runs Swin's rank-6 window transposes as
    # rank-4 ones on merged dims: in f32 the values are the same bit for bit
    # (only reshapes and the same permutation; in coreai-core within f32
    # rounding, as the linear layer is a 1x1 convolution there), and the
    # residency report finds no rank-6 tensor.
    before, after, r = optimized_and_ane_f32(tmp_path, WINDOWS)
    assert "tensor<6xui32>" in before.read_text()
    assert "rank-reduce" in r.stderr, r.stderr
    assert "tensor<6xui32>" not in after.read_text()
    assert "rank:" not in r.stderr, r.stderr
    assert_same_bits_and_eager(before, after, tmp_path, rtol=1e-5, atol=1e-5, rounding_in=("coreai-core",))


ROUTER = """
import torch

class M(torch.nn.Module):
    # A mixture-of-experts router: the softmax's descending stable sort
    # (equal values by position) and its top 2.
    def forward(self, x, y):
        p = torch.softmax(x, -1)
        values, indices = torch.sort(p, dim=-1, descending=True, stable=True)
        q = torch.softmax(y, -1)
        top, experts = torch.topk(q, 2, dim=-1)
        return values, indices, top, experts

def factory():
    g = torch.Generator().manual_seed(7)
    x = torch.randn(8, 8, generator=g) * 3
    x[0] = 1.5                                   # every value equal
    x[1] = torch.tensor([2.0, -1.0, 2.0, 0.5, -1.0, 2.0, 0.5, 0.0])
    x[2] = torch.tensor([60.0, -60.0, 0.0, -60.0, 59.0, -59.5, -60.0, 1.0])  # values that underflow to 0
    x[3] = torch.tensor([-1e-3, 0.0, 1e-3, 0.0, -1e-3, 2e-3, 1e-3, 0.0])     # near ties
    return M(), (x, torch.randn(16, 8, generator=g) * 2)
"""


def test_argsort_ranks_is_exact_and_leaves_no_argsort(tmp_path):
    # target-ane's argsort-ranks counts each softmax value's place in the
    # stable order instead of calling argsort: in f32 the sorted values and
    # the indices are the same bit for bit in both executors and equal eager
    # PyTorch's (ties by position, values that underflow to 0, near ties);
    # in f16 (the default) no argsort is left and only the int64 outputs'
    # casts leave the Neural Engine.
    before, after, r = optimized_and_ane_f32(tmp_path, ROUTER)
    assert before.read_text().count("coreai.argsort") == 2
    assert r.stderr.count("argsort-ranks") == 2, r.stderr
    assert "coreai.argsort" not in after.read_text()
    assert_same_bits_and_eager(before, after, tmp_path, rtol=1e-6, atol=0)
    # The indices exactly (the values above within the executors' softmax
    # rounding).
    want = load(tmp_path / "expected.npz")
    indices = [name for name in want if want[name].dtype.kind == "i"]
    assert len(indices) == 2, list(want)
    for oracle, runner in [("coreai-run", report.run_coreai_run), ("coreai-core", report.run_coreai_core)]:
        got, message = runner(after, tmp_path / "in.npz", tmp_path)
        assert got is not None, f"{oracle}: {message}"
        for name in indices:
            assert np.array_equal(got[name], want[name]), f"{oracle} {name}: {got[name]} != {want[name]}"
    f16 = targets.compile_target(tmp_path / "aten.mlir", tmp_path / "ane16.mlir", "ane", "--explain")
    assert f16.returncode == 0, f16.stderr
    assert "coreai.argsort" not in (tmp_path / "ane16.mlir").read_text()
    leaving = [line for line in f16.stderr.splitlines() if "leaves the Neural Engine" in line]
    # Only the casts to the model's int64 outputs leave (a signature the
    # caller chose), not the router.
    assert len(leaving) == 2 and all("graph input or output" in line for line in leaving), f16.stderr


MLP = """
import torch

class M(torch.nn.Module):
    # Linear layers (constant weights, with biases) and an elementwise chain
    # between them: the layers become 1x1 convolutions in BC1S, and the
    # chain stays in BC1S. A product of two inputs (no constant weight)
    # runs at rank 4 with the elementwise op after it.
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(16, 32)
        self.down = torch.nn.Linear(32, 8)

    def forward(self, x, y):
        # hardswish reads its input twice (x * clamp(x + 3, 0, 6) / 6): the
        # layout moves past both readers.
        h = torch.nn.functional.hardswish(self.up(x)) * 2.0 + 1.0
        return self.down(torch.tanh(h)), torch.tanh(x @ y) * 3.0

def factory():
    torch.manual_seed(13)
    return M(), (torch.randn(4, 16), torch.randn(16, 5))
"""


def test_linear_conv1x1_and_the_rank4_forms_are_exact(tmp_path):
    # target-ane's linear-conv1x1 makes each linear layer a 1x1 conv2d in
    # BC1S (B x K x 1 x S) and transpose-sink carries that layout through
    # the bias adds and activations between them; matmul-rank4 lifts the
    # product of two inputs to rank 4 and rank4-chain keeps the tanh after
    # it there. In f32 coreai-run computes the same values bit for bit (its
    # 1x1 convolution and its products sum K in the same order); coreai-core's
    # runtime picks other kernels for a convolution and a rank-4 product:
    # there the values agree within f32 rounding of the sums.
    before, after, r = optimized_and_ane_f32(tmp_path, MLP)
    for pattern in ("linear-conv1x1", "transpose-sink", "matmul-rank4", "rank4-chain"):
        assert pattern in r.stderr, (pattern, r.stderr)
    text = after.read_text()
    assert text.count("coreai.conv2d") == 2, text
    assert re.search(r"broadcasting_batch_matmul .*: \(tensor<1x1x4x16xf32>, tensor<1x1x16x5xf32>", text), text
    # One transpose into BC1S and one out: none between the two layers.
    assert text.count("coreai.transpose") == 2, text
    want = load(tmp_path / "expected.npz")
    for oracle, runner in [("coreai-run", report.run_coreai_run), ("coreai-core", report.run_coreai_core)]:
        (a, ma), (b, mb) = runner(before, tmp_path / "in.npz", tmp_path), runner(after, tmp_path / "in.npz", tmp_path)
        assert a is not None and b is not None, f"{oracle}: {ma} {mb}"
        for name in want:
            if oracle == "coreai-run":
                assert same_bits(b[name], a[name]).all(), f"{oracle} {name}: the target rewrites changed values"
            else:
                np.testing.assert_allclose(b[name], a[name], rtol=1e-6, atol=1e-6, err_msg=oracle)
            np.testing.assert_allclose(b[name], want[name], rtol=1e-5, atol=1e-6, err_msg=f"{oracle} vs eager")


HEADS = """
import torch

class M(torch.nn.Module):
    # Multi-head attention written out: projections, the head split and
    # merge around scaled dot-product attention, a residual.
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (torch.nn.Linear(32, 32) for _ in range(4))

    def forward(self, x):
        b, s, d = x.shape
        split = lambda t: t.view(b, s, 4, 8).transpose(1, 2)
        a = torch.nn.functional.scaled_dot_product_attention(split(self.q(x)), split(self.k(x)), split(self.v(x)))
        return x + self.o(a.transpose(1, 2).reshape(b, s, d))

def factory():
    torch.manual_seed(31)
    return M(), (torch.randn(1, 6, 32),)
"""


def test_bc1s_attention_block_is_exact(tmp_path):
    # The projections become 1x1 convolutions in BC1S (linear-conv1x1) and
    # each head split or merge next to one is a single transpose
    # (transpose-pair): data movement only, so in f32 coreai-run computes the
    # same values bit for bit (coreai-core within f32 rounding: its
    # convolution kernel sums in another order), and eager's.
    before, after, r = optimized_and_ane_f32(tmp_path, HEADS)
    assert r.stderr.count("linear-conv1x1") == 4 and "transpose-pair" in r.stderr, r.stderr
    text = after.read_text()
    assert text.count("coreai.conv2d") == 4, text
    # Attention runs in Apple's Neural Engine layout (kv-bc1s): the queries
    # and values as the projections give them, (B, H, D, S); the scores as
    # (B, H, S_k, S_q) (keys on the channel axis, Apple's bkhq), computed as
    # K.Q' ((QK^T)^T = K Q^T), so the key is transposed once, to (B, H, S, D);
    # the softmax over the keys' axis; the output as V'.P' in (B, H, D, S),
    # merged by a reshape. Three transposes: into BC1S (shared by q, k, v),
    # the key, and out of BC1S at the residual.
    assert text.count("coreai.transpose") == 3, text
    assert_same_bits_and_eager(before, after, tmp_path, rtol=1e-5, atol=1e-5, rounding_in=("coreai-core",))


STREAM = """
import torch

class M(torch.nn.Module):
    # Two pre-norm residual blocks (RMSNorm, a SwiGLU-free MLP and a
    # projection), a post-norm block (LayerNorm after the residual add, as in
    # BERT) and a head: the residual stream between the linear layers.
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = torch.nn.RMSNorm(32, eps=1e-6), torch.nn.RMSNorm(32, eps=1e-6)
        self.up, self.down = torch.nn.Linear(32, 64), torch.nn.Linear(64, 32)
        self.proj, self.mix = torch.nn.Linear(32, 32), torch.nn.Linear(32, 32)
        self.ln = torch.nn.LayerNorm(32)
        self.head = torch.nn.Linear(32, 16)
        for p in (self.n1.weight, self.n2.weight, self.ln.weight, self.ln.bias):
            torch.nn.init.normal_(p)

    def forward(self, x):
        x = x + self.down(torch.nn.functional.silu(self.up(self.n1(x))))
        x = x + self.proj(self.n2(x))
        x = self.ln(x + self.mix(x))
        return self.head(x)

def factory():
    torch.manual_seed(37)
    return M(), (torch.randn(1, 6, 32),)
"""


def test_bc1s_stream_through_norms_is_exact(tmp_path):
    # bc1s-stream keeps the residual stream and its norms in BC1S between
    # the 1x1 convolutions: one transpose into BC1S at the input and one out
    # of it after the head, instead of a pair around every group of
    # projections; the norms run as their BC1S composites (axes = 1, weights
    # (1, D, 1, 1)). Data movement only: bit for bit in coreai-run, within
    # f32 rounding in coreai-core (its 1x1 convolution kernel), and eager's.
    before, after, r = optimized_and_ane_f32(tmp_path, STREAM)
    assert r.stderr.count("linear-conv1x1") == 5 and "bc1s-stream" in r.stderr, r.stderr
    text = after.read_text()
    assert text.count("coreai.conv2d") == 5, text
    assert text.count("coreai.transpose") == 2, text
    assert text.count("coreai.invoke @rms_norm_bc1s(") == 2 and text.count("coreai.invoke @layer_norm_bc1s(") == 1, text
    assert "axes = 1 : si64" in text and "axes = -1 : si64" not in text, text
    assert_same_bits_and_eager(before, after, tmp_path, rtol=1e-5, atol=1e-5, rounding_in=("coreai-core",))


DECODE = """
import torch

class M(torch.nn.Module):
    # One decode step of attention over a cache kept in BC1S order, (B, H, D, S)
    # per head (the Neural Engine LLM form's cache layout): the keys and
    # values are transposed to (B, H, S, D), the new token appended, and the
    # scores take the keys transposed back.
    def forward(self, q, k_new, v_new, k_cache, v_cache):
        k = torch.cat([k_cache.transpose(-1, -2), k_new], dim=2)
        v = torch.cat([v_cache.transpose(-1, -2), v_new], dim=2)
        p = torch.softmax(q @ k.transpose(-1, -2) * 0.25, dim=-1)
        return p @ v

def factory():
    torch.manual_seed(41)
    h, d, s = 4, 16, 12
    return M(), (torch.randn(1, h, 1, d), torch.randn(1, h, 1, d), torch.randn(1, h, 1, d),
                 torch.randn(1, h, d, s), torch.randn(1, h, d, s))
"""


def test_kv_bc1s_reads_the_cache_without_transposes(tmp_path):
    # kv-bc1s keeps the keys and values in the cache's (B, H, D, S) order:
    # the new token's key and value join it there (a reshape: one token),
    # the scores read it as it is, and the values' product is computed
    # transposed ((P V)^T = V^T P^T). No transpose is left; the same
    # products summed in the same order: bit for bit in coreai-run, within
    # f32 rounding in coreai-core, and eager's.
    before, after, r = optimized_and_ane_f32(tmp_path, DECODE)
    assert "kv-bc1s" in r.stderr, r.stderr
    text = after.read_text()
    assert "coreai.transpose" not in text, text
    assert_same_bits_and_eager(before, after, tmp_path, rtol=1e-5, atol=1e-5, rounding_in=("coreai-core",))


ONE_TOKEN = """
import torch

class M(torch.nn.Module):
    # One token's head split and merge around a per-head scale: the
    # transposes move only the unit sequence dim.
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.randn(1, 4, 1, 8))

    def forward(self, x):
        h = x.view(1, 1, 4, 8).transpose(1, 2) * self.scale
        return torch.tanh(h).transpose(1, 2).reshape(1, 1, 32)

def factory():
    torch.manual_seed(43)
    return M(), (torch.randn(1, 1, 32),)
"""


def test_transpose_unit_dims_is_exact(tmp_path):
    # A transpose that moves only unit dims keeps the elements in order:
    # transpose-unit-dims makes it a reshape. Bit for bit in both executors.
    before, after, r = optimized_and_ane_f32(tmp_path, ONE_TOKEN)
    assert "transpose-unit-dims" in r.stderr, r.stderr
    assert "coreai.transpose" in before.read_text() and "coreai.transpose" not in after.read_text()
    assert_same_bits_and_eager(before, after, tmp_path, rtol=1e-6, atol=1e-6)


STRIDES = """
import torch

class M(torch.nn.Module):
    # wav2vec2's first feature convolution (kernel 10, stride 5) and a
    # grouped 2-D convolution with stride 5 along H (kernel 10, 3 rows of
    # the 23 unread) and 2 along W.
    def __init__(self):
        super().__init__()
        self.audio = torch.nn.Conv1d(3, 8, 10, stride=5)
        self.image = torch.nn.Conv2d(4, 6, (10, 3), stride=(5, 2), groups=2)

    def forward(self, a, x):
        return torch.nn.functional.gelu(self.audio(a)), self.image(x)

def factory():
    torch.manual_seed(29)
    return M(), (torch.randn(1, 3, 403), torch.randn(1, 4, 23, 9))
"""


def test_stride_space_to_depth_matches_eager(tmp_path):
    # target-ane's stride-space-to-depth runs a stride-5 convolution at
    # stride 1 on the input's phases moved into channels: the same products,
    # summed in another order, so within f32 rounding of the unrewritten
    # program in both executors and of eager PyTorch; no stride 5 is left.
    before, after, r = optimized_and_ane_f32(tmp_path, STRIDES)
    assert r.stderr.count("stride-space-to-depth") == 2, r.stderr
    text = after.read_text()
    assert "dense<[1, 5]>" not in text and "dense<[5, 2]>" not in text, text
    assert_same_bits_and_eager(before, after, tmp_path, rtol=1e-5, atol=1e-5,
                               rounding_in=("coreai-run", "coreai-core"))


LAYOUT_AT_CASTS = """
module {
  coreai.graph @main(%x: tensor<2x6x4xf32> {coreai.name = "x"}) -> (tensor<6x8xf32> {coreai.name = "y"}) {
    %p = coreai.constant dense<[0, 2, 1]> : tensor<3xui32>
    %s = coreai.constant dense<[6, 8]> : tensor<2xui32>
    %t = coreai.transpose %x, %p : (tensor<2x6x4xf32>, tensor<3xui32>) -> tensor<2x4x6xf32>
    %h = coreai.cast %t : tensor<2x4x6xf32> to tensor<2x4x6xf16>
    %e = coreai.exp %h : tensor<2x4x6xf16> -> tensor<2x4x6xf16>
    %w = coreai.cast %e : tensor<2x4x6xf16> to tensor<2x4x6xf32>
    %r = coreai.reshape %w, %s : (tensor<2x4x6xf32>, tensor<2xui32>) -> tensor<6x8xf32>
    coreai.output %r : tensor<6x8xf32>
  }
}
"""


def test_layout_in_f16_is_exact(tmp_path):
    # target-ane's layout-in-f16 moves a transpose before an f32 -> f16 cast
    # and a reshape after an f16 -> f32 cast to the f16 side
    # (L(cast(x)) = cast(L(x))): the program computes the same values bit
    # for bit in both executors, and only the two casts stay in f32.
    before, after = tmp_path / "before.mlir", tmp_path / "after.mlir"
    before.write_text(LAYOUT_AT_CASTS)
    r = subprocess.run([str(COREAI_OPT), str(before), "--pass-pipeline=builtin.module(target-ane{remarks=true})",
                        "-o", str(after)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("layout-in-f16") == 2, r.stderr
    text = after.read_text()
    assert re.search(r"coreai\.transpose %\w+, %\w+ : \(tensor<2x6x4xf16>", text), text
    assert re.search(r"coreai\.reshape %\w+, %\w+ : \(tensor<2x4x6xf16>", text), text
    x = np.random.default_rng(23).standard_normal((2, 6, 4)).astype(np.float32) * 4
    x[0, 0, :] = [np.inf, -np.inf, np.nan, 70000.0]
    np.savez(tmp_path / "in.npz", x=x)
    for oracle, runner in [("coreai-run", report.run_coreai_run), ("coreai-core", report.run_coreai_core)]:
        (a, ma), (b, mb) = runner(before, tmp_path / "in.npz", tmp_path), runner(after, tmp_path / "in.npz", tmp_path)
        assert a is not None and b is not None, f"{oracle}: {ma} {mb}"
        assert same_bits(b["y"], a["y"]).all(), f"{oracle}: layout-in-f16 changed values"


def test_neural_engine_exports_static_shapes_from_dynamic_ones(tmp_path):
    """`convert(target="ane", dynamic_shapes=...)`: the Neural Engine runs
    static shapes only, so the model is exported at the example inputs'
    shapes with a warning saying so (and how to get one function per shape);
    the asset's signature is static, every op is Neural-Engine-resident, and
    it computes eager PyTorch's outputs in coreai-run (f16: 1e-2 of the
    scale). The same call for the GPU keeps the dynamic batch."""
    sys.path.insert(0, str(REPO / "importer"))
    from coreai_export.convert import StaticShapesOnly, convert
    from models.dynamic import dynamic_batch_mlp
    from toolchain import BUILD, COREAI_RUN

    model, (x,) = dynamic_batch_mlp()
    batch = {"x": {0: torch.export.Dim("batch", min=1, max=64)}}
    with pytest.warns(StaticShapesOnly, match="static shapes only"):
        asset = convert(model, (x,), tmp_path / "ane.aimodel", target="ane", dynamic_shapes=batch,
                        compiler=str(BUILD / "coreai-compile"))
    gpu = convert(model, (x,), tmp_path / "gpu.aimodel", target="gpu", dynamic_shapes=batch,
                  compiler=str(BUILD / "coreai-compile"))

    def signature(path):
        r = subprocess.run([str(COREAI_RUN), str(path), "--print-signature"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return [a["type"] for a in json.loads(r.stdout)["arguments"]]

    assert signature(asset) == ["tensor<3x8xf16>"]
    assert signature(gpu) == ["tensor<?x8xf32>"]
    r = subprocess.run([str(BUILD / "coreai-freqop"), "--ane", str(asset)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert re.search(r"ane-residency: (\d+) of \1 ops", r.stderr), r.stderr
    np.savez(tmp_path / "in.npz", x=x.numpy())
    r = subprocess.run([str(COREAI_RUN), str(asset), "--cast-inputs", "--inputs", str(tmp_path / "in.npz"),
                        "--outputs", str(tmp_path / "out.npz")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "out.npz")
    with torch.no_grad():
        want = [t.numpy() for t in model(x)]
    for g, w in zip((got[k] for k in got.files), want):
        assert g.shape == w.shape
        assert np.abs(g.astype(np.float64) - w).max() <= 1e-2 * np.abs(w).max()
