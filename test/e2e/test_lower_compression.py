"""coreai-torch's compression custom ops (torch.ops.coreai.lut_to_dense,
constexpr_blockwise_shift_scale, quantize, dequantize, sparse_to_dense),
in models built with its compression layers (coreai_torch._compression.custom_layers):
PyTorch → coreai_export → coreai-pipeline (rung 4 of the dispatch ladder),
the aten and the coreai stage run in coreai-run and the coreai stage in
coreai-core's interpreter, each compared with eager PyTorch (the exporter's
expected.npz, computed by the layers' eager implementations).

Tolerance: integer outputs (quantize) and palette look-ups (a gather) are
exact; other float outputs within atol = 1e-6 · max|ref| (rtol 0): a
dequantization is one or two roundings in its dtype, which coreai-core's
blockwise op computes as `data·scale + (offset2 - offset1·scale)` (another
association than PyTorch's `(data - offset1)·scale + offset2`), and a matrix
product of palettized weights accumulates in another order.
"""


import numpy as np
import pytest

from test_lower_complex_symbolic import check_both, convert, eager, export
from toolchain import coreai_run, load, run_coreai_core

HEADER = '''
import torch
import coreai_torch._compression.custom_layers as cl  # registers torch.ops.coreai.*
'''

# LUTs of 2, 4, 8, 16, 64 and 256 entries (1-, 2-, 3-, 4-, 6-, 8-bit
# indices), per-block LUTs, vector palettes along axis 0 and 1, f16 and
# int8 LUTs, and palettized weights used by a matmul.
PALETTIZED = HEADER + '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        idx = lambda n, shape: torch.randint(0, n, shape, dtype=torch.uint8, generator=g)
        self.w4 = cl.PalettizeModule(idx(16, (4, 6)), torch.randn(2, 1, 16, 1, generator=g))
        self.w1 = cl.PalettizeModule(idx(2, (3, 4)), torch.randn(1, 2, 2, 1, generator=g) * 5)
        self.w2 = cl.PalettizeModule(idx(4, (2, 2)), torch.randn(1, 1, 4, 3, generator=g).half(), vector_axis=1)
        self.w3 = cl.PalettizeModule(idx(8, (2, 5)), torch.randint(-100, 100, (1, 1, 8, 1), dtype=torch.int8, generator=g))
        self.w6 = cl.PalettizeModule(idx(64, (2, 3)), torch.randn(1, 1, 64, 2, generator=g), vector_axis=0)
        self.w8 = cl.PalettizeModule(idx(256, (5,)), torch.randn(1, 256, 1, generator=g))
    def forward(self, x):
        w = self.w4()
        return w, self.w1(), self.w2(), self.w3(), self.w6(), self.w8(), x @ w.T
def factory():
    return M(), (torch.randn(3, 6, generator=torch.Generator().manual_seed(1)) * 4,)
'''

# Weight dequantization: zero-point mode (int8, blockwise 2x3 scale), minval
# mode with input_dtype int4 (q_min = -8; stored as si4), no offset on uint8
# data, an f16 scale (f16 output), uint4 data with zero points (stored as
# ui4), and a scaled palette (int8 LUT → blockwise).
WEIGHTS = HEADER + '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(2)
        q8 = lambda shape: torch.randint(-128, 128, shape, dtype=torch.int8, generator=g)
        self.zp = cl.WeightDequantizeModule(q8((4, 6)), torch.rand(2, 3, generator=g) + 0.05,
                                            zero_point=torch.randint(-5, 5, (2, 3), dtype=torch.int8, generator=g))
        self.mv = cl.WeightDequantizeModule(torch.randint(-8, 8, (4, 6), dtype=torch.int8, generator=g),
                                            torch.rand(4, 1, generator=g) + 0.05, minval=torch.randn(4, 1, generator=g),
                                            input_dtype=torch.int4)
        self.u8 = cl.WeightDequantizeModule(torch.randint(0, 256, (3, 4), dtype=torch.uint8, generator=g),
                                            torch.rand(1, 2, generator=g) + 0.5)
        self.f16 = cl.WeightDequantizeModule(q8((2, 4)), (torch.rand(2, 2, generator=g) + 0.01).half(),
                                             zero_point=torch.randint(-3, 3, (2, 2), dtype=torch.int8, generator=g))
        self.u4 = cl.WeightDequantizeModule(torch.randint(0, 16, (2, 4), dtype=torch.uint8, generator=g),
                                            torch.rand(1, 2, generator=g) + 0.1,
                                            zero_point=torch.randint(0, 16, (1, 2), dtype=torch.uint8, generator=g),
                                            input_dtype=torch.uint4)
        self.pal = cl.ScaledPalettizeModule(torch.randint(0, 16, (4, 6), dtype=torch.uint8, generator=g),
                                            torch.randint(-128, 128, (1, 1, 16, 1), dtype=torch.int8, generator=g),
                                            torch.rand(4, 1, generator=g) * 0.1)
    def forward(self, x):
        return self.zp(), self.mv(), self.u8(), self.f16(), self.u4(), self.pal(), x @ self.zp().T
def factory():
    return M(), (torch.randn(3, 6, generator=torch.Generator().manual_seed(3)) * 4,)
'''

# Activation quantization: per-channel uint8 with zero points along axis 0,
# per-tensor int8 in minval mode (ties at .5 round half to even), per-channel
# along a negative axis without offsets (saturating), and dequantization
# per-channel with zero points and per-tensor in minval mode.
ACTIVATIONS = HEADER + '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q_zp = cl.ActivationQuantizeModule(torch.tensor([0.1, 0.2, 0.05, 0.3]), torch.uint8,
                                                zero_point=torch.tensor([128, 100, 3, 7], dtype=torch.uint8), axis=0)
        self.q_mv = cl.ActivationQuantizeModule(torch.tensor(0.25), torch.int8, minval=torch.tensor(-4.0))
        self.q_none = cl.ActivationQuantizeModule(torch.tensor([0.5, 0.25, 0.125, 1.0, 0.05, 2.0]), torch.int8, axis=-1)
        self.dq_zp = cl.ActivationDequantizeModule(torch.tensor([0.5, 0.1, 0.02, 1.5, 0.3, 0.7]),
                                                   zero_point=torch.tensor([0, -3, 5, 1, -128, 127], dtype=torch.int8), axis=1)
        self.dq_mv = cl.ActivationDequantizeModule(torch.tensor(0.125), minval=torch.tensor(-1.5), input_dtype=torch.uint8)
    def forward(self, x, qi, qu):
        return self.q_zp(x), self.q_mv(x), self.q_none(x), self.dq_zp(qi), self.dq_mv(qu)
def factory():
    g = torch.Generator().manual_seed(4)
    x = torch.randn(4, 6, generator=g) * 20
    x[0] = torch.tensor([0.125, 0.375, -0.125, -0.375, 0.625, 1.125])  # ties of x / 0.25 and (x + 4) / 0.25
    x[1, :3] = torch.tensor([0.3, -0.1, 0.05])  # ties of x / 0.2 after rounding to f32
    return M(), (x, torch.randint(-128, 128, (4, 6), dtype=torch.int8, generator=g),
                 torch.randint(0, 256, (4, 6), dtype=torch.uint8, generator=g))
'''

# f16 activations: PyTorch rounds x / scale (and x - minval) to f16 before
# rounding to an integer; coreai-core's quantize divides in f32, which
# differs by 1 where the f16 quotient lands on .5 (the lowering divides in
# f16 first). Random data hits such quotients several times in 192 values.
HALF_ACTIVATIONS = HEADER + '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q = cl.ActivationQuantizeModule(torch.tensor([0.1, 0.3, 0.07]).half(), torch.int8,
                                             zero_point=torch.tensor([1, -3, 2], dtype=torch.int8), axis=1)
        self.q2 = cl.ActivationQuantizeModule(torch.tensor(0.3).half(), torch.uint8, minval=torch.tensor(-2.0).half())
        self.dq = cl.ActivationDequantizeModule(torch.tensor([0.5, 0.1, 2.0]).half(),
                                                zero_point=torch.tensor([1, -2, 3], dtype=torch.int8), axis=-1)
    def forward(self, x, qi):
        return self.q(x), self.q2(x), self.dq(qi)
def factory():
    g = torch.Generator().manual_seed(0)
    return M(), ((torch.randn(64, 3, generator=g) * 10).half(),
                 torch.randint(-128, 128, (64, 3), dtype=torch.int8, generator=g))
'''

# Bitmask sparsity: f32 and f16 data, a mask with empty rows.
SPARSE = HEADER + '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(5)
        m1 = torch.rand(5, 4, generator=g) > 0.5
        m1[2] = False
        m2 = torch.rand(3, 2, 4, generator=g) > 0.3
        self.s = cl.SparseModule(torch.randn(int(m1.sum()), generator=g), m1)
        self.h = cl.SparseModule(torch.randn(int(m2.sum()), generator=g).half(), m2)
    def forward(self, x):
        return self.s(), self.h(), x + self.s()
def factory():
    return M(), (torch.randn(5, 4, generator=torch.Generator().manual_seed(6)),)
'''


def run(tmp_path, module, stage, inputs="in.npz"):
    out = tmp_path / f"{stage}.out.npz"
    r = coreai_run(module, "--inputs", tmp_path / inputs, "--outputs", out)
    assert r.returncode == 0, r.stdout + r.stderr
    return load(out)


def assert_matches(got, expected, where):
    assert set(got) >= set(expected), where
    for name, want in expected.items():
        have = got[name]
        assert have.shape == want.shape, (where, name, have.shape, want.shape)
        if np.issubdtype(want.dtype, np.integer):
            np.testing.assert_array_equal(have, want, err_msg=f"{where}: {name}")
        else:
            scale = float(np.abs(want.astype(np.float64)).max()) or 1.0
            np.testing.assert_allclose(have.astype(np.float64), want.astype(np.float64), rtol=0,
                                       atol=1e-6 * scale, err_msg=f"{where}: {name}")


@pytest.mark.parametrize("source", [PALETTIZED, WEIGHTS, ACTIVATIONS, HALF_ACTIVATIONS, SPARSE],
                         ids=["palettized", "weights", "activations", "half_activations", "sparse"])
def test_compression_ops_match_eager_in_both_stages_and_both_executors(tmp_path, source):
    aten = export(tmp_path, source)
    text = aten.read_text()
    # Every custom op is imported with its tensor arguments as operands.
    assert 'aten.operator "coreai::' in text
    expected = load(tmp_path / "expected.npz")
    inputs = load(tmp_path / "in.npz")

    assert_matches(run(tmp_path, aten, "aten"), expected, "coreai-run, aten stage")

    core, core_text = convert(tmp_path, aten)
    assert_matches(run(tmp_path, core, "coreai"), expected, "coreai-run, coreai stage")
    assert_matches(run_coreai_core(core_text, inputs, tmp_path), expected, "coreai-core")


# Activation (de)quantization with a dynamic batch: per-channel along the
# static dim, per-tensor; run at batch sizes other than the example's.
DYNAMIC = HEADER + '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q = cl.ActivationQuantizeModule(torch.tensor([0.1, 0.2, 0.05]), torch.uint8,
                                             zero_point=torch.tensor([128, 100, 3], dtype=torch.uint8), axis=1)
        self.q2 = cl.ActivationQuantizeModule(torch.tensor(0.3), torch.int8)
        self.dq = cl.ActivationDequantizeModule(torch.tensor([0.5, 0.25, 2.0]),
                                                zero_point=torch.tensor([1, -2, 3], dtype=torch.int8), axis=-1)
    def forward(self, x, qi):
        return self.q(x), self.q2(x), self.dq(qi)
def factory():
    g = torch.Generator().manual_seed(7)
    return M(), (torch.randn(4, 3, generator=g) * 10, torch.randint(-128, 128, (5, 3), dtype=torch.int8, generator=g))
'''


def test_compression_ops_with_a_dynamic_batch_match_eager(tmp_path):
    aten = export(tmp_path, DYNAMIC, dynamic="x:0,qi:0")
    core, text = convert(tmp_path, aten)
    assert "tensor<?x3xf32>" in text
    for batch in (1, 9):
        rng = np.random.default_rng(batch)
        inputs = {"x": (rng.normal(size=(batch, 3)) * 10).astype(np.float32),
                  "qi": rng.integers(-128, 128, (batch + 1, 3)).astype(np.int8)}
        expected = eager(DYNAMIC, inputs)
        # Exact: integer outputs, and a dequantization of one rounding.
        check_both(tmp_path, core, text, inputs, expected, 0)
        assert_matches(run(tmp_path, aten, "aten", "run_in.npz"), expected, f"aten stage, batch {batch}")


def test_importer_keeps_every_argument_of_a_custom_op(tmp_path):
    """Non-default arguments survive the import: dtypes (sub-byte ones too)
    as type attributes, ints as attributes, optional tensors as named
    operand groups."""
    text = export(tmp_path, WEIGHTS).read_text()
    assert ('aten.operator "coreai::constexpr_blockwise_shift_scale.default"' in text
            and 'input_dtype = si4' in text and 'input_dtype = ui4' in text
            and 'operand_args = ["input", "scale", "minval"]' in text), text
    text = export(tmp_path, ACTIVATIONS).read_text()
    assert 'output_dtype = ui8' in text and 'axis = -1 : i64' in text and 'input_dtype = ui8' in text, text
    assert 'operand_args = ["input", "scale", "zero_point"]' in text, text
