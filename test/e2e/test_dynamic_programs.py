"""Dynamic programs end to end (issue 21): forward arguments mutated in place
(alone and with a mutated buffer) run as states over repeated calls;
`.item()` values bound slice / narrow / select / slice_scatter / arange;
inputs sharing one dynamic dim and a derived `2*s` dim, given as
torch.export's `dynamic_shapes` from Python and in the JSON form of
`--dynamic-shapes`. Each program is converted with coreai-pipeline and run in
coreai-run and in coreai-core's interpreter, compared with eager PyTorch
running the same calls."""

import copy
import json

import numpy as np
import pytest
import torch

from coreai_export.cli import build_parser, main, run
from coreai_export.exporting import export_module
from coreai_export.importer import import_program
from toolchain import coreai_run, lower, run_coreai_core

HEADER = "import torch\n"


def load_source(source):
    ns = {}
    exec(HEADER + source, ns)  # noqa: S102
    return ns["factory"]


def convert(tmp_path, source, *flags):
    """Exports `source` in-process with FLAGS, converts it with
    coreai-pipeline; returns (coreai module path, its text, the exported
    program's argument and result names)."""
    src = tmp_path / "m.py"
    src.write_text(HEADER + source)
    aten = tmp_path / "aten.mlir"
    prog, _ = run(build_parser().parse_args(["--module-file", f"{src}:factory", "-o", str(aten), *flags]))
    core = tmp_path / "coreai.mlir"
    text = lower(aten, core, "coreai-pipeline")
    assert "aten." not in text and "func." not in text
    return core, text, prog.arg_names, prog.result_names


def run_ours(tmp_path, core, text, inputs, step):
    """One call in coreai-run and in coreai-core's interpreter: both outputs
    by name (coreai-run's also holds each state's new value)."""
    feed = tmp_path / f"in{step}.npz"
    out = tmp_path / f"out{step}.npz"
    np.savez(feed, **inputs)
    r = coreai_run(core, "--inputs", feed, "--outputs", out)
    assert r.returncode == 0, r.stderr
    with np.load(out) as z:
        ours = {k: z[k] for k in z.files}
    theirs = run_coreai_core(text, inputs, tmp_path)
    return ours, {k: np.asarray(v) for k, v in theirs.items()}


def assert_close(got, want, tol, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} vs {want.dtype}"
    np.testing.assert_allclose(got, want, atol=tol, rtol=tol, err_msg=what)


def assert_both_match(ours, theirs, want, tol, at=""):
    """Each eager output `want[key]` equals coreai-run's and coreai-core's
    within `tol`."""
    for key, value in want.items():
        assert_close(ours[key], value, tol, f"coreai-run {key}{at}")
        assert_close(theirs[key], value, tol, f"coreai-core {key}{at}")


def outputs_of(out):
    if isinstance(out, torch.Tensor):
        return {"output": out.numpy()}
    return {f"output_{i}": o.numpy() for i, o in enumerate(out)}


# ---------------------------------------------------------------------------
# 1. Mutated forward arguments are states.

# An exponential moving average kept in the caller's tensor.
INPUT_STATE = '''
class M(torch.nn.Module):
    def forward(self, avg, x):
        avg.mul_(0.75).add_(x * 0.25)
        return avg.sum(-1) * 2
def factory():
    return M(), (torch.zeros(2, 5), torch.randn(2, 5))
'''

# A step counter and running total in buffers, a decaying history in the
# caller's tensor.
INPUT_AND_BUFFER_STATE = '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("total", torch.zeros(4))
    def forward(self, x, hist):
        self.steps.add_(1)
        self.total.add_(x.sum(0))
        hist.mul_(0.5).add_(x.mean(0))
        return self.total / self.steps - hist, x.relu()
def factory():
    return M(), (torch.randn(3, 4), torch.zeros(4))
'''

MUTATION_CASES = {
    # name → (source, the argument and result names, data inputs per call)
    "input": (INPUT_STATE, (["x", "avg"], ["output", "avg"]), lambda rng: {"x": (2, 5)}),
    "input_and_buffer": (INPUT_AND_BUFFER_STATE, (["x", "steps", "total", "hist"],
                                                  ["output_0", "output_1", "steps", "total", "hist"]),
                         lambda rng: {"x": (3, 4)}),
}


@pytest.mark.parametrize("case", sorted(MUTATION_CASES))
def test_mutated_inputs_are_states_carried_over_calls(case, tmp_path):
    source, (arg_names, result_names), shapes = MUTATION_CASES[case]
    core, text, args, results = convert(tmp_path, source)
    # coreai-torch's order: user inputs, then states (mutated buffers, then
    # mutated inputs), each state's new value after the user outputs
    assert (args, results) == (arg_names, result_names)
    model, example = load_source(source)()
    eager_state = [t.clone() for t in example]  # the caller's tensors, mutated by each call
    model = copy.deepcopy(model)
    state_names = [n for n in args if n in results]
    data_names = [n for n in args if n not in results]
    params = list(type(model).forward.__code__.co_varnames[1:len(example) + 1])
    buffers = dict(model.named_buffers())
    ours_state = {n: (buffers[n].numpy().copy() if n in buffers else eager_state[params.index(n)].numpy().copy())
                  for n in state_names}
    core_state = dict(ours_state)
    rng = np.random.default_rng(len(case))
    for step in range(4):
        data = {n: rng.normal(size=s).astype(np.float32) for n, s in shapes(rng).items()}
        for n, v in data.items():
            eager_state[params.index(n)] = torch.from_numpy(v.copy())
        with torch.no_grad():
            want = outputs_of(model(*eager_state))
        for n in state_names:
            want[n] = (buffers[n] if n in buffers else eager_state[params.index(n)]).numpy().copy()
        ours, _ = run_ours(tmp_path, core, text, {**data, **ours_state}, f"r{step}")
        _, theirs = run_ours(tmp_path, core, text, {**data, **core_state}, f"c{step}")
        for name, value in want.items():
            assert_close(ours[name], value, 1e-6, f"coreai-run call {step} {name}")
            assert_close(theirs[name], value, 1e-6, f"coreai-core call {step} {name}")
        ours_state = {n: ours[n] for n in state_names}
        core_state = {n: theirs[n] for n in state_names}
    assert data_names == [n for n in arg_names if n not in state_names]


# ---------------------------------------------------------------------------
# 2. `.item()` values (and size arithmetic) as slice / narrow / select /
# slice_scatter / arange bounds and behind a view, with PyTorch's clamping
# of negative and oversized bounds.

ITEM_BOUNDS = '''
class M(torch.nn.Module):
    def forward(self, x, col):
        c = col.item()
        torch._check(c >= -x.shape[1])
        torch._check(c < x.shape[1])
        y = x.clone()
        y[:, c:c + 2] = -1.0
        # (coreai-core's runtime aborts on arithmetic with an empty tensor:
        # the slices that may be empty are outputs as they are)
        return (x[:, c:c + 2], x[:, c:] * 2, x[:, :c], x[c - 8:], x[:, c - 100:c + 100],
                x.select(1, c), y, torch.arange(c + 8) * 1.5, x[c - 3:x.shape[0] - 1],
                x[:, :c + 3].reshape(-1) + 1, x.view(-1)[c:c * 2 + 4], torch.arange(c, c + 4) + x.shape[0])
def factory():
    return M(), (torch.randn(5, 6), torch.tensor([2]))
'''

ITEM_NARROW = '''
class M(torch.nn.Module):
    def forward(self, x, col):
        c = col.item()
        torch._check(c >= 0)
        torch._check(c + 3 <= x.shape[1])
        return x.narrow(1, c, 3) + 1, x[:, c::2]
def factory():
    return M(), (torch.randn(4, 7), torch.tensor([1]))
'''

# Without torch._check, narrow's end becomes torch.sym_ite arithmetic (the
# start may be negative) and torch.export adds run-time checks.
ITEM_NARROW_UNCHECKED = '''
class M(torch.nn.Module):
    def forward(self, x, col):
        return x.narrow(1, col.item(), 2) * 3
def factory():
    return M(), (torch.randn(4, 6), torch.tensor([1]))
'''


@pytest.fixture(scope="module")
def item_programs(tmp_path_factory):
    out, aten = {}, {}
    for name, source in (("bounds", ITEM_BOUNDS), ("unchecked", ITEM_NARROW_UNCHECKED), ("narrow", ITEM_NARROW)):
        tmp = tmp_path_factory.mktemp(f"item_{name}")
        out[name] = (source, *convert(tmp, source, "--dynamic-dims", "x:0=2:16")[:2])
        aten[name] = (tmp / "aten.mlir").read_text()
    # torch._check(c >= 0), torch._check(c + 3 <= 7): the unbacked symbol's
    # range is a constraint of the function, and the checks stay run-time
    # assertions of the aten module (its executor fails where eager does);
    # coreai has no assertion, so legalization drops them
    assert '"u0" = [0, 4]' in aten["narrow"] and "_assert_scalar" in aten["narrow"]
    assert '"torch::sym_ite"' in aten["unchecked"]
    for name, (_, _, text) in out.items():
        assert "assert" not in text, name
    return out


@pytest.mark.parametrize("name,rows,col", [
    ("bounds", 5, 2), ("bounds", 9, -2), ("bounds", 2, 5), ("bounds", 3, -6), ("bounds", 12, 0),
    ("narrow", 4, 1), ("narrow", 7, 4), ("narrow", 2, 0),
    ("unchecked", 5, 1), ("unchecked", 3, -3), ("unchecked", 8, 4),
])
def test_item_values_bound_slices_as_in_eager(item_programs, name, rows, col, tmp_path):
    source, core, text = item_programs[name]
    assert "coreai.slice" in text
    width = 7 if name == "narrow" else 6
    x = np.random.default_rng(rows).normal(size=(rows, width)).astype(np.float32)
    # a one-element column index: coreai-core's runtime aborts on rank-0
    # input arrays (SIGILL in NDArray+View.swift), whatever the program
    inputs = {"x": x, "col": np.array([col], dtype=np.int64)}
    model, _ = load_source(source)()
    with torch.no_grad():
        want = outputs_of(model(torch.from_numpy(x), torch.tensor([col])))
    ours, theirs = run_ours(tmp_path, core, text, inputs, 0)
    assert_both_match(ours, theirs, want, 0)


# ---------------------------------------------------------------------------
# 3. Shared and derived dims: torch.export's dynamic_shapes from Python and
# the JSON form on the command line.

SHARED = '''
class M(torch.nn.Module):
    def forward(self, q, k, pair, b):
        scores = (q @ k.transpose(-1, -2)).softmax(-1)
        both = torch.cat([q, k], 0) + pair
        return scores, both * 0.5, q - k, b.sum(0) + q[0]
def factory():
    torch.manual_seed(3)
    return M(), (torch.randn(5, 4), torch.randn(5, 4), torch.randn(10, 4), torch.randn(3, 4))
'''

SHARED_JSON = {"dims": {"seq": [2, 32]},
               "shapes": {"q": {"0": "seq"}, "k": ["seq", None], "pair": {"0": "2*seq"}, "b": {"0": "AUTO"}}}


def shared_python_shapes():
    seq = torch.export.Dim("seq", min=2, max=32)
    return {"q": {0: seq}, "k": {0: seq}, "pair": {0: 2 * seq}, "b": {0: torch.export.Dim.AUTO}}


@pytest.fixture(scope="module")
def shared_program(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shared")
    return convert(tmp, SHARED, "--dynamic-shapes", json.dumps(SHARED_JSON))[:2]


def test_json_dynamic_shapes_import_as_torch_exports_them_from_python(shared_program, tmp_path):
    model, example = load_source(SHARED)()
    ep = export_module(model, example, dynamic_shapes=shared_python_shapes())
    python_text = import_program(ep).text
    aten = (shared_program[0].parent / "aten.mlir").read_text()
    head = next(line for line in aten.splitlines() if "func.func @main" in line)
    assert head == next(line for line in python_text.splitlines() if "func.func @main" in line)
    # one symbol for q and k, its double for pair, b's own
    dims = [d.split(", ")[0] for d in head.split("coreai.dims = [")[1:]]
    assert dims[0] == dims[1] and dims[2] == f'"2*{dims[0][1:]}' and dims[3] != dims[0], dims


@pytest.mark.parametrize("seq,batch", [(2, 1), (7, 4), (32, 9)])
def test_shared_and_derived_dims_run_at_three_sizes(shared_program, seq, batch, tmp_path):
    core, text = shared_program
    rng = np.random.default_rng(seq)
    inputs = {"q": rng.normal(size=(seq, 4)), "k": rng.normal(size=(seq, 4)),
              "pair": rng.normal(size=(2 * seq, 4)), "b": rng.normal(size=(batch, 4))}
    inputs = {k: v.astype(np.float32) for k, v in inputs.items()}
    model, _ = load_source(SHARED)()
    with torch.no_grad():
        want = outputs_of(model(*(torch.from_numpy(v) for v in inputs.values())))
    ours, theirs = run_ours(tmp_path, core, text, inputs, 0)
    assert_both_match(ours, theirs, want, 1e-5)


@pytest.mark.parametrize("spec,message", [
    ('{"shapes": {"q": {"0": "seq"}}}', "dim 'seq' is not declared in \"dims\""),
    ('{"dims": {"s": [2, 8]}, "shapes": {"q": {"0": "s/2"}}}', "'s/2' is not a dim name, A*name+B"),
    ('{"dims": {"s": [2, 8]}, "shapes": {"z": {"0": "s"}}}', "no input 'z'"),
    ('{"dims": {"s": [2, 8]}, "shapes": {"q": {"2": "s"}}}', "input 'q' has rank 2, no dim 2"),
    ('{"dims": {"s": [8, 2]}, "shapes": {"q": {"0": "s"}}}', "dim 's':"),
    ('{"dims": {"s": [2, 8]}, "shapes": {"q": {"0": "s"}', "not JSON"),
])
def test_bad_dynamic_shapes_are_one_diagnostic(spec, message, tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text(HEADER + SHARED)
    status = main(["--module-file", f"{src}:factory", "-o", str(tmp_path / "m.mlir"), "--dynamic-shapes", spec])
    assert status == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("coreai_export: error: --dynamic-shapes"), lines
    assert message in lines[0], lines[0]
    assert not (tmp_path / "m.mlir").exists()


# ---------------------------------------------------------------------------
# 4. Advanced indexing with index tensors that broadcast over a dynamic dim
# (transformers' masking_utils: table[batch[:, None], pos[None, :, None]]):
# the index tensors are broadcast at run time.

BROADCAST_INDEX = '''
class M(torch.nn.Module):
    def forward(self, table, pos):
        batch = torch.arange(table.shape[0])
        rows = table[batch[:, None, None], pos[None, :, None]]
        cols = table[batch[:, None, None], pos[None, None, :]]
        return rows - cols, table[pos[:, None], pos[None, :]]
def factory():
    torch.manual_seed(5)
    return M(), (torch.randn(2, 9), torch.tensor([3, 0, 8, 1, 1]))
'''


@pytest.mark.parametrize("n", [1, 5, 9])
def test_index_tensors_broadcast_over_a_dynamic_length(n, tmp_path):
    spec = {"dims": {"n": [1, 16]}, "shapes": {"pos": {"0": "n"}}}
    core, text, _, _ = convert(tmp_path, BROADCAST_INDEX, "--dynamic-shapes", json.dumps(spec))
    assert "tensor<1x?x1xsi32>" in text and "tensor<1x1x?xsi32>" in text
    rng = np.random.default_rng(n)
    inputs = {"table": rng.normal(size=(2, 9)).astype(np.float32), "pos": rng.integers(0, 2, size=n)}
    model, _ = load_source(BROADCAST_INDEX)()
    want = outputs_of(model(*(torch.from_numpy(v) for v in inputs.values())))
    ours, theirs = run_ours(tmp_path, core, text, inputs, 0)
    assert_both_match(ours, theirs, want, 0)


# ---------------------------------------------------------------------------
# 5. A dynamic image side through convolutions (1-D, 2-D, 3-D, transposed),
# pads (negative constant pads crop), pixel (un)shuffles, pools and
# resampling: floor and ceil mode, padding counted or not in the average,
# global pooling; nearest and bilinear resizing (align_corners or not) to
# another tensor's size, up and down, and to a fixed size. Window counts, divisors and source
# positions are computed at run time. One resize per program: coreai-core
# 1.0.0b3's runtime stops on graphs holding several of them (six here, or
# two beside the pools) with "KernelError(kernelName: "coreai.divide" ...
# Expected operands to be tensors.)" at whichever binary op runs first,
# while each runs alone.

DYNAMIC_POOLS = '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.pw = torch.nn.Conv1d(4, 2, 3, padding=2, dilation=2)
    def forward(self, x):
        y = self.stem(x)
        a = torch.nn.functional.max_pool2d(y, 3, 2, 1, ceil_mode=True)
        b = torch.nn.functional.avg_pool2d(y, 2, 2, ceil_mode=True, count_include_pad=False)
        c = torch.nn.functional.avg_pool2d(y, 3, 2, 1, ceil_mode=True, count_include_pad=True)
        d = torch.nn.functional.avg_pool2d(y, 3, 1, 1, count_include_pad=False)
        g = torch.nn.functional.adaptive_avg_pool2d(d, 1) + torch.nn.functional.adaptive_max_pool2d(a, 1)
        return a, b, c, g, self.pw(y.flatten(2))
def factory():
    torch.manual_seed(7)
    return M(), (torch.randn(1, 3, 16, 12),)
'''

RESIZE = '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
    def forward(self, x):
        y = self.stem(x)
        return torch.nn.functional.interpolate(RESIZE)
def factory():
    torch.manual_seed(8)
    return M(), (torch.randn(1, 3, 16, 12),)
'''

DYNAMIC_CONVOLUTIONS = '''
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(3, 2, 3, stride=2, padding=1)
        self.t1 = torch.nn.ConvTranspose1d(3, 2, 3, stride=2, padding=1, output_padding=1)
        self.t2 = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
        self.c3 = torch.nn.Conv3d(3, 2, 3, padding=1)
    def forward(self, x):
        f = x.flatten(2)
        return self.c1(f), self.t1(f), self.t2(x), self.c3(x[:, :, None].expand(-1, -1, 3, -1, -1))
def factory():
    torch.manual_seed(9)
    return M(), (torch.randn(1, 3, 16, 12),)
'''

# Negative constant padding crops a dynamic dim (a negative end bound).
DYNAMIC_PADS = '''
class M(torch.nn.Module):
    def forward(self, x):
        pad = torch.nn.functional.pad
        return pad(x, (-1, 2, 1, -2)), pad(x, (0, -3, -2, 0), value=4.0), pad(x, (1, 1, 2, 0), mode="reflect"), \\
            pad(x, (2, 1, 0, 1), mode="replicate")
def factory():
    return M(), (torch.randn(1, 3, 16, 12),)
'''

# Pixel shuffle and unshuffle: their shapes built at run time.
DYNAMIC_SHUFFLES = '''
class M(torch.nn.Module):
    def forward(self, x):
        y = torch.nn.functional.pixel_shuffle(torch.cat([x, x * 2, x - 1, -x], 1), 2)
        return y, torch.nn.functional.pixel_unshuffle(y, 2) * 2
def factory():
    return M(), (torch.randn(1, 3, 16, 12),)
'''

IMAGE_PROGRAMS = {
    "pools": DYNAMIC_POOLS,
    "shuffles": DYNAMIC_SHUFFLES,
    "convolutions": DYNAMIC_CONVOLUTIONS,
    "pads": DYNAMIC_PADS,
    **{name: RESIZE.replace("RESIZE", call) for name, call in [
        ("bilinear-up", 'y, size=x.shape[-2:], mode="bilinear"'),
        ("bilinear-up-align-corners", 'y, size=x.shape[-2:], mode="bilinear", align_corners=True'),
        ("bilinear-down", 'x, size=y.shape[-2:], mode="bilinear"'),
        ("nearest-up", 'y, size=x.shape[-2:], mode="nearest"'),
        ("nearest-down", 'x, size=y.shape[-2:], mode="nearest"'),
        ("nearest-fixed", 'x, size=(7, 5), mode="nearest"'),
    ]},
}


@pytest.fixture(scope="module")
def dynamic_image(tmp_path_factory):
    # AUTO: torch.export cannot prove ceil mode's last-window rule for a
    # named range and refuses it; AUTO keeps the sides dynamic.
    spec = json.dumps({"shapes": {"x": {"2": "AUTO", "3": "AUTO"}}})
    return {name: convert(tmp_path_factory.mktemp(name), source, "--dynamic-shapes", spec)[:2]
            for name, source in IMAGE_PROGRAMS.items()}


@pytest.mark.parametrize("program", sorted(IMAGE_PROGRAMS))
@pytest.mark.parametrize("h,w", [(16, 12), (9, 23), (31, 8)])
def test_convolutions_pools_and_resizes_run_at_each_image_size(dynamic_image, program, h, w, tmp_path):
    core, text = dynamic_image[program]
    assert "tensor<1x3x?x?xf32>" in text
    x = np.random.default_rng(h * w).normal(size=(1, 3, h, w)).astype(np.float32)
    model, _ = load_source(IMAGE_PROGRAMS[program])()
    with torch.no_grad():
        want = outputs_of(model(torch.from_numpy(x)))
    ours, theirs = run_ours(tmp_path, core, text, {"x": x}, 0)
    assert_both_match(ours, theirs, want, 1e-5, f" at {h}x{w}")
