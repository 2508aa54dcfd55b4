"""The hand-off from `convert` to the compiler in memory
(`coreai_export.inprocess`): on Linux, with `libcoreai_compile.so` beside
the binary, coreai-compile runs in a child forked from the converting
process and takes the weights from the exported tensors' memory instead of
a safetensors file.

The oracle is the file hand-off (`COREAI_HANDOFF=file`: the binary on a
weights file, which the e2e suites check against eager PyTorch in both
runtimes): the asset must be the same bytes, and a failure the same
diagnostic. The memory hand-off must write no weights file and start no
process."""

import importlib
import os
import signal
import subprocess
import threading
import time
import types
from pathlib import Path

import pytest
import torch
import transformers

from coreai_export import convert, importer, inprocess
from coreai_export.convert import CompileFailure, import_model

REPO = Path(__file__).resolve().parents[2]
COMPILE = REPO / "target" / "debug" / "coreai-compile"
# The module (the package's `convert` is the function).
convert_module = importlib.import_module("coreai_export.convert")


class Weights(torch.nn.Module):
    """Weights of several dtypes and alignments: f32 (a Linear), i64
    (gathered rows), bool (a mask), f16 (cast up) and bf16."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(64, 96)
        self.register_buffer("rows", torch.tensor([3, 0, 2], dtype=torch.int64))
        self.register_buffer("mask", torch.arange(96) % 3 == 0)
        self.register_buffer("scale", torch.linspace(-2, 2, 96).to(torch.float16))
        self.register_buffer("shift", torch.linspace(-1, 1, 96).to(torch.bfloat16))

    def forward(self, x):
        y = self.linear(x).masked_fill(self.mask, 0.0) * self.scale.float() + self.shift.float() + 0.5
        return y.index_select(0, self.rows)


class LogitsOnly(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids, use_cache=False).logits


def llama():
    """A Llama with tied embeddings whose weights are large enough (64 KiB
    and more) for deferred permutes, which read them in the writer."""
    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(vocab_size=512, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True,
                                   max_position_embeddings=64)
    ids = torch.arange(8).reshape(1, 8) * 37 % 512
    return LogitsOnly(transformers.LlamaForCausalLM(cfg)).eval(), (ids,)


def weights_model():
    return Weights().eval(), (torch.linspace(-1, 1, 4 * 64).reshape(4, 64),)


@pytest.fixture
def handoff(monkeypatch):
    """Sets the hand-off mode; in memory, fails the test if a weights file
    is written or a process started."""

    def use(mode):
        monkeypatch.setenv("COREAI_HANDOFF", mode)
        if mode == "memory":
            def no_file(*args, **kwargs):
                raise AssertionError("the memory hand-off wrote a weights file")

            def no_process(*args, **kwargs):
                raise AssertionError("the memory hand-off started a process")

            monkeypatch.setattr(importer, "write_safetensors", no_file)
            # convert's own name for the module (PyTorch's export may run
            # processes of its own).
            monkeypatch.setattr(convert_module, "subprocess", types.SimpleNamespace(run=no_process))
        else:
            monkeypatch.undo()
            monkeypatch.setenv("COREAI_HANDOFF", mode)

    return use


def asset_bytes(path):
    # metadata.json holds the creation time.
    return {name: (Path(path) / name).read_bytes() for name in ("main.mlirb", "main.hash")}


def test_the_library_is_built_beside_the_binary():
    # Every convert() of the suites goes through it; a missing library would
    # silently test the file hand-off alone.
    assert inprocess.library_for(COMPILE) == COMPILE.parent / "libcoreai_compile.so"


@pytest.mark.parametrize("make,target,precision,static", [
    (weights_model, "cpu", None, None),
    (llama, "cpu", None, None),
    (llama, "gpu", "f16", None),
    (llama, "ane", None, None),
    # Two entries: two weights files given as memory.
    (llama, "cpu", None, {"short": {"input_ids": (1, 4)}, "long": {"input_ids": (1, 8)}}),
], ids=["dtypes-cpu", "llama-cpu", "llama-gpu-f16", "llama-ane", "llama-two-entries"])
def test_memory_hand_off_writes_the_asset_the_file_hand_off_writes(tmp_path, handoff, make, target, precision,
                                                                     static):
    model, inputs = make()
    assets = {}
    for mode in ("file", "memory"):
        handoff(mode)
        with torch.no_grad():
            out = convert(model, inputs, tmp_path / f"{mode}.aimodel", target=target, precision=precision,
                          static_shapes=static, compiler=str(COMPILE))
        assets[mode] = asset_bytes(out)
    assert assets["memory"] == assets["file"]


@pytest.mark.parametrize("mode", ["file", "memory"])
def test_two_conversions_write_the_same_asset(tmp_path, handoff, mode):
    # Each hand-off is in a fresh temporary directory, whose path an op
    # without a location of its own (the module, a scalar constant) must not
    # carry into the asset.
    handoff(mode)
    model, inputs = weights_model()
    with torch.no_grad():
        first, second = (asset_bytes(convert(model, inputs, tmp_path / f"{i}.aimodel", compiler=str(COMPILE)))
                         for i in range(2))
    assert first == second


def test_without_fork_the_binary_compiles_a_weights_file(tmp_path, handoff, monkeypatch):
    # fork fails (ENOMEM under strict overcommit): the file hand-off, the
    # same asset.
    model, inputs = weights_model()
    handoff("file")
    with torch.no_grad():
        want = asset_bytes(convert(model, inputs, tmp_path / "file.aimodel", compiler=str(COMPILE)))
    monkeypatch.setenv("COREAI_HANDOFF", "memory")

    def no_fork():
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(os, "fork", no_fork)
    with torch.no_grad():
        got = asset_bytes(convert(model, inputs, tmp_path / "nofork.aimodel", compiler=str(COMPILE)))
    assert got == want


def test_a_compile_error_is_the_same_diagnostic_in_memory(tmp_path, handoff):
    model, inputs = weights_model()
    messages = {}
    for mode in ("file", "memory"):
        handoff(mode)
        out = tmp_path / f"{mode}.aimodel"
        with pytest.raises(CompileFailure) as failure:
            convert(model, inputs, out, hw_constraints={"nosuch": "IOSurface:1x1x32x1:1x1x1"},
                    compiler=str(COMPILE))
        messages[mode] = str(failure.value)
        assert not out.exists()
    assert "nosuch" in messages["file"]
    assert messages["memory"] == messages["file"]


def test_a_tensor_missing_from_memory_is_an_error_naming_it(tmp_path):
    model, inputs = weights_model()
    program = import_model(model, inputs, "none", None, [])
    side = program.write(tmp_path / "m.mlir", weights=True, weights_file=False)
    assert not side.exists()
    given = [(side, key, data) for key, _, data in program.resources]
    missing = given.pop(1)[1]
    out = tmp_path / "m.aimodel"
    r = inprocess.run(inprocess.library_for(COMPILE), [str(COMPILE), str(tmp_path / "m.mlir"), "-o", str(out)],
                      given)
    assert r.returncode == 1
    assert f"has no tensor '{missing}'" in r.stderr
    assert not out.exists()
    # All of them given: it compiles, and reads no file.
    r = inprocess.run(inprocess.library_for(COMPILE), [str(COMPILE), str(tmp_path / "m.mlir"), "-o", str(out)],
                      [(side, key, data) for key, _, data in program.resources])
    assert r.returncode == 0, r.stderr
    assert out.is_dir() and not side.exists()


def test_a_library_that_does_not_load_is_a_failure_with_the_reason(tmp_path):
    fake = tmp_path / "libcoreai_compile.so"
    fake.write_text("not a shared library\n")
    r = inprocess.run(fake, [str(COMPILE), "--version"], [])
    assert r.returncode == 70
    assert f"running {fake}" in r.stderr and "OSError" in r.stderr


def child_pids():
    """This process's children (forked by any of its threads)."""
    pids = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return pids


def comm(pid):
    """The name of process `pid`, or "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def test_the_child_is_named_coreai_compile_and_a_signal_ending_it_is_its_status(tmp_path):
    # A FIFO as the input: the child blocks reading it until killed. It
    # shows as coreai-compile (what ps, top and a memory benchmark see).
    fifo = tmp_path / "m.mlir"
    os.mkfifo(fifo)
    result = {}
    thread = threading.Thread(target=lambda: result.update(r=inprocess.run(
        inprocess.library_for(COMPILE), [str(COMPILE), str(fifo), "-o", str(tmp_path / "m.aimodel")], [])))
    thread.start()
    # Until the child shows (it blocks on the FIFO until killed, so the
    # thread lives until then; a thread that ends first forked no child).
    children = []
    while not children and thread.is_alive():
        children = [pid for pid in child_pids() if comm(pid) == "coreai-compile"]
        time.sleep(0.05)
    assert children, "no child named coreai-compile"
    os.kill(children[0], signal.SIGKILL)
    thread.join()
    assert result["r"].returncode == -signal.SIGKILL


def test_a_killed_compiler_is_a_failure_naming_the_signal(tmp_path, monkeypatch):
    model, inputs = weights_model()
    monkeypatch.setattr(inprocess, "run", lambda library, command, weights, cwd=None:
                        subprocess.CompletedProcess(command, -signal.SIGSEGV, "", ""))
    monkeypatch.setenv("COREAI_HANDOFF", "memory")
    with pytest.raises(CompileFailure, match="coreai-compile was killed by SIGSEGV"):
        convert(model, inputs, tmp_path / "m.aimodel", compiler=str(COMPILE))


def test_a_compiler_named_bare_is_found_on_path(monkeypatch, tmp_path):
    # Its library is the one beside the binary PATH gives, not one in the
    # current directory.
    monkeypatch.setenv("PATH", f"{COMPILE.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    assert inprocess.library_for("coreai-compile") == COMPILE.parent / "libcoreai_compile.so"
    monkeypatch.setenv("PATH", str(tmp_path))
    assert inprocess.library_for("coreai-compile") is None


def test_an_unknown_hand_off_mode_is_refused(monkeypatch):
    monkeypatch.setenv("COREAI_HANDOFF", "pipe")
    with pytest.raises(ValueError, match="COREAI_HANDOFF='pipe'"):
        inprocess.library_for(COMPILE)
