"""Causal language models to LLM bundles (`coreai_export.llm`, docs/llm.md)
against eager PyTorch, in coreai-core's runtime and in coreai-run.

The models are the zoo's transformers decoders (test/zoo/models.py: random
weights, hidden 64, 2 layers, GQA, sliding window 4 where the family has
one), unmodified. The oracle is the same model in eager PyTorch:
`model.generate(do_sample=False)` for the greedy tokens, and the model run
step by step with transformers' own DynamicCache for the logits of every
call (the prompt's positions, then each decode step, well past the sliding
window).

- f32 bundles: the 32 greedy tokens equal eager's, token for token; every
  call's logits equal eager's to 1e-4 of their scale.
- A prompt of one token; a second turn feeds only its new tokens and gives
  the tokens one long prompt gives.
- f16 compute with int4-block32 weights: over 8 prompts, teacher-forced
  greedy choices agree with eager running the dequantized weights
  (test_compression's formula) on at least 90% of the tokens.
- The bundle: metadata.json as coreai-models writes it, the asset's
  signature (inputs, states, output) in coreai-core's descriptor, the
  weights stored once.
- A recurrent model is refused with one message naming the layer.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import oracle
import llm_session
from oracle import run_script
from test_compression import dequantized
from toolchain import BUILD, COREAI_RUN, zoo

HERE = Path(__file__).resolve().parent
models = zoo()

COREAI_COMPILE = BUILD / "coreai-compile"
RUNTIMES = ("coreai-core", "coreai-run")
FAMILIES = ("llama", "qwen2", "qwen3", "mistral", "gemma2", "gemma3", "phi3", "mixtral", "qwen3_moe")
MAX_CONTEXT = 64
NEW_TOKENS = 32


def build(name):
    """The zoo's transformers model `name` (seeded: two builds are equal)."""
    wrapped, _, _ = models.build(name)
    return wrapped.model.eval()


def convert(model, path, **kw):
    from coreai_export import llm

    kw.setdefault("target", "cpu")
    kw.setdefault("precision", "f32")
    return llm.convert_causal_lm(model, path, max_context=MAX_CONTEXT, compiler=str(COREAI_COMPILE), **kw)


def run(bundle, runtime, turns):
    """The record (test/llm_session.py) of one conversation of `turns`
    with `bundle` in `runtime`: coreai-core's in the oracle's worker,
    coreai-run here."""
    if runtime == "coreai-core":
        return oracle.llm_session(bundle, turns)
    return llm_session.record(bundle, runtime, str(COREAI_RUN), turns)


def call_logits(record, turn):
    out, j = [], 0
    while f"logits_{turn}_{j}" in record:
        out.append(record[f"logits_{turn}_{j}"])
        j += 1
    return out


def eager_steps(model, prompt, continuation):
    """Eager logits of each call: the prompt, then each continuation token
    but the last, with transformers' DynamicCache."""
    from coreai_export import llm
    from transformers.cache_utils import DynamicCache

    cache = DynamicCache(config=model.config)
    cache_argument = llm._cache_argument(model)
    out, feed, seen = [], list(prompt), 0
    with torch.no_grad():
        for token in continuation:
            ids = torch.tensor([feed])
            positions = torch.arange(seen, seen + len(feed))[None]
            logits = model(input_ids=ids, position_ids=positions, use_cache=True, **{cache_argument: cache}).logits
            out.append(logits[0].float().numpy())
            seen += len(feed)
            feed = [token]
    return out


def eager_greedy(model, prompt, n):
    """`model.generate(do_sample=False)`'s n tokens after `prompt`, every
    prompt token attended (without an attention mask, generate would mask
    out a prompt token equal to the pad token id) and no end-of-sequence
    stop (`min_new_tokens` would instead forbid the EOS token, which the
    bundle may choose)."""
    with torch.no_grad():
        ids = model.generate(torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                             max_new_tokens=n, do_sample=False, eos_token_id=None)
    assert ids.shape[1] == len(prompt) + n
    return ids[0, len(prompt):].tolist()


def assert_logits_match(got, want, what, last_only=False):
    assert len(got) == len(want), f"{what}: {len(got)} calls, eager made {len(want)}"
    for j, (g, w) in enumerate(zip(got, want)):
        if last_only:
            w = w[-1:]
        assert g.shape == w.shape, f"{what}: call {j} logits {g.shape}, eager {w.shape}"
        scale = np.abs(w).max()
        err = np.abs(g - w).max()
        assert err <= 1e-4 * scale, f"{what}: call {j} differs from eager by {err / scale:.2e} of the scale"


# ---- f32: tokens and logits equal eager's ------------------------------------

@pytest.mark.parametrize("name", FAMILIES)
def test_greedy_tokens_and_every_step_equal_eager(name, tmp_path):
    model = build(name)
    bundle = convert(model, tmp_path / "bundle")
    prompt = models.ids(8)[0].tolist()
    want = eager_greedy(model, prompt, NEW_TOKENS)
    steps = eager_steps(model, prompt, want)
    for runtime in RUNTIMES:
        record = run(bundle, runtime, [{"generate": prompt, "n": NEW_TOKENS}])
        assert record["tokens_0"].tolist() == want, f"{name} in {runtime}"
        # The calls: the prompt, then one token each, over 39 positions
        # (past the sliding window of 4 in mistral, gemma2, gemma3).
        assert record["calls"].tolist() == [[8, 8]] + [[1, 8 + i] for i in range(1, NEW_TOKENS)]
        assert_logits_match(call_logits(record, 0), steps, f"{name} in {runtime}")


@pytest.mark.parametrize("name", ["llama", "mistral"])
def test_prompt_of_one_token(name, tmp_path):
    model = build(name)
    bundle = convert(model, tmp_path / "bundle")
    want = eager_greedy(model, [5], 12)
    steps = eager_steps(model, [5], want)
    for runtime in RUNTIMES:
        record = run(bundle, runtime, [{"generate": [5], "n": 12}])
        assert record["tokens_0"].tolist() == want, runtime
        assert_logits_match(call_logits(record, 0), steps, f"{name} in {runtime}")


def test_second_turn_reuses_the_cached_prefix(tmp_path):
    model = build("gemma3")
    bundle = convert(model, tmp_path / "bundle")
    first, second = models.ids(6, seed=1)[0].tolist(), models.ids(5, seed=2)[0].tolist()
    for runtime in RUNTIMES:
        record = run(bundle, runtime, [{"generate": first, "n": 8}, {"generate": second, "n": 8}])
        reply = record["tokens_0"].tolist()
        # One long prompt: the first turn, its reply, the second turn.
        long = run(bundle, runtime, [{"generate": first + reply + second, "n": 8}])
        assert record["tokens_1"].tolist() == long["tokens_0"].tolist(), runtime
        assert record["tokens_1"].tolist() == eager_greedy(model, first + reply + second, 8), runtime
        # The second turn's first call fed the reply's last token and the
        # new prompt: 6 tokens, not the 20 of the whole history.
        calls = record["calls"].tolist()
        assert calls[8] == [1 + len(second), len(first) + 8 + len(second)], calls


# ---- f16 with int4-block32 weights ---------------------------------------------

def dequantize_model(model, bits=4, block=32):
    """`model` with every weight int4-block32 compresses (2-D, more than
    1024 elements) replaced by its dequantized value, in place."""
    with torch.no_grad():
        for _, p in model.named_parameters():
            if p.dim() == 2 and p.numel() > 1024:
                p.copy_(torch.from_numpy(dequantized(p.numpy(), bits, block)))
    return model


@pytest.mark.parametrize("name", ["llama", "qwen3", "gemma3"])
def test_f16_int4_block32_agrees_with_its_dequantized_weights(name, tmp_path):
    model = build(name)
    bundle = convert(model, tmp_path / "bundle", target="gpu", precision="f16", compress="int4-block32")
    meta = json.loads((bundle / "metadata.json").read_text())
    assert meta["compression"] == "int4-block32"
    assert meta["states"]["keyCache"]["dtype"] == "float16"
    original = [eager_greedy(model, models.ids(8, seed=s)[0].tolist(), NEW_TOKENS) for s in range(8)]
    reference = dequantize_model(build(name))
    agree = total = agree_original = 0
    turns, wants = [], []
    for s in range(8):
        prompt = models.ids(8, seed=s)[0].tolist()
        want = eager_greedy(reference, prompt, NEW_TOKENS)
        wants.append(want)
        turns.append({"follow": prompt, "continuation": want})
    # One session per prompt: the driver runs one conversation, so each
    # prompt is its own run.
    for runtime in RUNTIMES:
        for s, (turn, want) in enumerate(zip(turns, wants)):
            record = run(bundle, runtime, [turn])
            choices = record["tokens_0"].tolist()
            agree += sum(a == b for a, b in zip(choices, want))
            agree_original += sum(a == b for a, b in zip(choices, original[s]))
            total += len(want)
    assert agree >= 0.9 * total, f"{name}: {agree}/{total} teacher-forced choices agree with eager"
    print(f"{name}: {agree / total:.3f} with the dequantized weights, {agree_original / total:.3f} with the "
          "original's own greedy tokens")


@pytest.mark.parametrize("name", ["llama", "qwen3", "gemma3"])
def test_f16_int4_block32_keeps_a_trained_models_greedy_tokens(name, tmp_path):
    """Against the original model: a model trained (300 Adam steps on a
    synthetic language, `models.train_peaked`) has peaked logits, as
    deployed models do; its f16 bundle with int4-block32 weights generates,
    free-running, the same 32 tokens as the f32 model's
    `generate(do_sample=False)` at >= 90% of positions over 8 prompts, in
    both runtimes. (Random-weight models' logits are nearly flat: 4-bit
    weights flip their argmax at most steps, which says nothing of a real
    model; the dequantized-weight test above bounds the compiler's own
    error.)"""
    model = build(name)
    torch.manual_seed(0)
    assert models.train_peaked(model, steps=300, seed=1) < 0.05
    bundle = convert(model, tmp_path / "bundle", target="gpu", precision="f16", compress="int4-block32")
    prompts = [models.ids(8, seed=s)[0].tolist() for s in range(8)]
    original = [eager_greedy(model, p, NEW_TOKENS) for p in prompts]
    for runtime in RUNTIMES:
        agree = total = 0
        for prompt, want in zip(prompts, original):
            record = run(bundle, runtime, [{"generate": prompt, "n": NEW_TOKENS}])
            got = record["tokens_0"].tolist()
            assert len(got) == NEW_TOKENS, (runtime, got)
            agree += sum(a == b for a, b in zip(got, want))
            total += NEW_TOKENS
        assert agree >= 0.9 * total, f"{name} in {runtime}: {agree}/{total} tokens equal the original's"
        print(f"{name} in {runtime}: {agree}/{total} free-running tokens equal the original model's")


def test_int8_embedding_computes_like_the_dequantized_table(tmp_path):
    """`embedding_compress="int8"` (Apple's iOS form keeps the embedding
    table at 8 bits whatever the other weights get): the input embedding
    alone in int8 with one symmetric scale; in f32 the bundle's tokens and
    every call's logits equal (to 1e-4 of their scale, in both runtimes) the
    eager model's whose table is that table dequantized in numpy (the
    formula of docs/compression.md, per tensor); with `compress="palettize4"`
    the table stays int8 while the other matrices are palettized."""
    model = build("llama")
    bundle = convert(model, tmp_path / "b", embedding_compress="int8")
    ir = subprocess.run([str(BUILD / "coreai-opt"), str(bundle / "model.aimodel")], capture_output=True, text=True)
    assert ir.returncode == 0, ir.stderr
    assert re.search(r"embed_tokens\.weight\.codes> : tensor<128x64xsi8>", ir.stdout), ir.stdout[:2000]
    assert ir.stdout.count("blockwise_shift_scale %") == 1
    table = model.get_input_embeddings().weight
    w = table.detach().numpy().astype(np.float32)
    s = (np.float32(2) * np.abs(w).max() + np.float32(1e-6)) / np.float32(254)
    dequantized = (np.clip(np.rint(w / s), -127, 127) * s).astype(np.float32)
    original = table.detach().clone()
    prompt = models.ids(9, seed=2)[0].tolist()
    with torch.no_grad():
        table.copy_(torch.from_numpy(dequantized))
        want = eager_greedy(model, prompt, 8)
        steps = eager_steps(model, prompt, want)
        table.copy_(original)
    for runtime in RUNTIMES:
        record = run(bundle, runtime, [{"generate": prompt, "n": 8}])
        assert record["tokens_0"].tolist() == want, runtime
        assert_logits_match(call_logits(record, 0), steps, runtime)
    mixed = convert(model, tmp_path / "m", embedding_compress="int8", compress="palettize4")
    ir = subprocess.run([str(BUILD / "coreai-opt"), str(mixed / "model.aimodel")], capture_output=True, text=True)
    assert re.search(r"embed_tokens\.weight\.codes> : tensor<128x64xsi8>", ir.stdout)
    assert ir.stdout.count("lut_to_dense %") >= 7 * 2 + 1  # 7 matrices a layer, 2 layers, the head


# ---- the bundle -------------------------------------------------------------------

def test_bundle_layout_signature_and_weights_stored_once(tmp_path):
    from coreai_export import convert as convert_asset

    model = build("qwen3")
    bundle = convert(model, tmp_path / "bundle", name="qwen3")
    meta = json.loads((bundle / "metadata.json").read_text())
    assert meta["metadata_version"] == "0.2" and meta["kind"] == "llm"
    assert meta["assets"] == {"main": "qwen3.aimodel"}
    assert meta["language"]["function_map"] == {"main": ["main"]}
    assert meta["language"]["max_context_length"] == MAX_CONTEXT
    assert meta["language"]["vocab_size"] == models.VOCAB
    shape = [2, 1, 2, MAX_CONTEXT, 16]
    assert meta["states"] == {"keyCache": {"shape": shape, "dtype": "float32"},
                              "valueCache": {"shape": shape, "dtype": "float32"}}
    script = (
        "import asyncio, os, sys\n"
        "from coreai.authoring.asset import AIModelAsset\n"
        "async def go():\n"
        "    asset = AIModelAsset.load(sys.argv[1])\n"
        "    async with asset.executable() as m:\n"
        "        fn = m.load_function('main')\n"
        "        fn = (await fn) if asyncio.iscoroutine(fn) else fn\n"
        "        print(fn.desc)\n"
        "asyncio.run(go())\n"
        "sys.stdout.flush()\n"
        "os._exit(0)  # coreai_export.llm.exit_without_finalizing says why\n")
    r = run_script([sys.executable, "-c", script, str(bundle / "qwen3.aimodel")])
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'Inputs:  ["input_ids", "position_ids"]' in r.stdout, r.stdout
    assert 'Outputs: ["logits"]' in r.stdout, r.stdout
    assert 'States:  ["keyCache", "valueCache"]' in r.stdout, r.stdout

    # Prefill and decode are one function: the weights are in the asset
    # once, as in a plain one-call conversion of the model.
    plain = convert_asset(models.Logits(model), (models.ids(),), tmp_path / "plain.aimodel", compiler=str(COREAI_COMPILE))

    def size(p):
        return sum(f.stat().st_size for f in Path(p).rglob("*") if f.is_file())

    assert abs(size(bundle / "qwen3.aimodel") - size(plain)) <= 0.02 * size(plain)


def test_a_recurrent_model_is_refused_naming_the_layer(tmp_path):
    from coreai_export import llm

    model = build("mamba")
    with pytest.raises(llm.Unsupported) as e:
        convert(model, tmp_path / "bundle")
    message = str(e.value)
    assert message.startswith("MambaForCausalLM: layer 0 ") and "cache" in message, message
    assert not (tmp_path / "bundle").exists()


def zoo_factory(tmp_path, name):
    """A module file whose factory() returns the zoo model `name`, and the
    environment the command line runs in."""
    source = tmp_path / "m.py"
    source.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(HERE.parent / 'zoo')!r})\n"
        "import models\n"
        "def factory():\n"
        f"    return models.build({name!r})[0].model\n")
    env = {"COREAI_COMPILE": str(COREAI_COMPILE), "PYTHONPATH": str(HERE.parents[1] / "importer"),
           "PATH": "/usr/bin:/bin"}
    return source, env


def test_command_line_converts_and_generates(tmp_path):
    source, env = zoo_factory(tmp_path, "llama")
    bundle = tmp_path / "bundle"
    r = subprocess.run([sys.executable, "-m", "coreai_export.llm", "--module-file", f"{source}:factory",
                        "-o", str(bundle), "--max-context", "32", "--target", "cpu", "--precision", "f32"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert (bundle / "model.aimodel").is_dir() and (bundle / "metadata.json").is_file()
    r = subprocess.run([sys.executable, "-m", "coreai_export.llm", "-o", str(bundle), "--generate", "3,1,4,1,5",
                        "--max-new-tokens", "6", "--runtime", "coreai-run"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    want = eager_greedy(build("llama"), [3, 1, 4, 1, 5], 6)
    assert r.stdout.split() == [str(t) for t in want]
    # A bad request is one line on stderr and status 1.
    r = subprocess.run([sys.executable, "-m", "coreai_export.llm", "-o", str(bundle), "--generate", "1",
                        "--max-new-tokens", "40", "--runtime", "coreai-run"], capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "holds 31 (max_context - 1)" in r.stderr, r.stderr


# ---- the Neural Engine form (read-only cache, static functions) ----------------

ANE_FAMILIES = ("llama", "qwen2", "qwen3", "phi3", "mistral", "gemma2", "gemma3", "mixtral", "qwen3_moe")


@pytest.mark.parametrize("name", ANE_FAMILIES)
def test_neural_engine_form_in_f32_equals_eager(name, tmp_path):
    """`target="ane"` in f32: the read-only cache, the combined mask, the
    RoPE tables and the chunked prefill compute what the model computes:
    the greedy tokens equal eager's and every call's logits match eager's
    DynamicCache steps to 1e-4, in both runtimes. The 11-token prompt runs
    as a chunk of 8 and three calls of 1 (the chunk's queries see the
    chunk's own keys, not the unwritten cache slots), well past the
    sliding window of 4 (Mistral, Gemma 2 and 3: the `sliding_mask`). The
    chunk of 8 runs `prompt_opt` (no logits): greedy decoding reads each
    call's last logits only, and those after the prompt and every decode
    step read the keys and values `prompt_opt` returned."""
    model = build(name)
    bundle = convert(model, tmp_path / "bundle", target="ane", precision="f32")
    prompt = models.ids(11, seed=3)[0].tolist()
    want = eager_greedy(model, prompt, 12)
    steps = eager_steps(model, prompt, want)
    for runtime in RUNTIMES:
        record = run(bundle, runtime, [{"generate": prompt, "n": 12}])
        assert record["tokens_0"].tolist() == want, f"{name} in {runtime}"
        assert_logits_match(call_logits(record, 0), steps, f"{name} in {runtime}", last_only=True)
        functions = record["functions"].tolist()
        assert functions[:4] == [f"prompt_opt_{MAX_CONTEXT}_8"] + [f"extend_{MAX_CONTEXT}_1"] * 3, functions


def test_neural_engine_cache_length_ladder_equals_eager(tmp_path):
    """`cache_lengths=(8, 16)`: functions for caches of 8, 16 and 64
    positions; each call runs the shortest cache holding the positions
    written so far (its first slots of the caller's cache), and in f32 the
    tokens and every call's last logits equal eager's in both runtimes
    while the calls climb the ladder. Mistral: its sliding mask is cut to
    the same length."""
    for name in ("llama", "mistral"):
        model = build(name)
        bundle = convert(model, tmp_path / name, target="ane", precision="f32", cache_lengths=(8, 16))
        meta = json.loads((bundle / "metadata.json").read_text())
        assert meta["neural_engine"]["cache_lengths"] == [8, 16, MAX_CONTEXT]
        assert meta["language"]["function_map"]["extend"] == [f"extend_{m}_{q}" for m in (8, 16, MAX_CONTEXT)
                                                              for q in (1, 8)]
        prompt = models.ids(11, seed=5)[0].tolist()
        want = eager_greedy(model, prompt, 12)
        steps = eager_steps(model, prompt, want)
        # Offsets 0 (the chunk of 8), 8, 9, 10 (the prompt's rest), then 11 .. 21.
        ladder = (["prompt_opt_8_8", "extend_8_1"] + ["extend_16_1"] * 8 + [f"extend_{MAX_CONTEXT}_1"] * 5)
        for runtime in RUNTIMES:
            record = run(bundle, runtime, [{"generate": prompt, "n": 12}])
            assert record["tokens_0"].tolist() == want, f"{name} in {runtime}"
            assert_logits_match(call_logits(record, 0), steps, f"{name} in {runtime}", last_only=True)
            assert record["functions"].tolist() == ladder


def test_neural_engine_cache_constraints_for_a_device_runner(tmp_path):
    """`cache_constraints=True`: every extend and prompt_opt function takes
    its caches as Apple's interleaved IOSurface (interleave 8 on the
    key/value channels, rows aligned to 8 x max_context whatever the
    function's cache length), read through copy_discarding_constraints; in
    coreai-run the bundle generates eager's tokens in f32; coreai-core's
    Python runtime cannot feed such an input, and a Session there is one
    error saying so."""
    from coreai_export import llm

    model = build("llama")
    bundle = convert(model, tmp_path / "b", target="ane", precision="f32", cache_lengths=(16,),
                     cache_constraints=True)
    meta = json.loads((bundle / "metadata.json").read_text())
    encoding = f"#coreaix.hw_constraints<IOSurface, alignments: [1x1x1x1x{8 * MAX_CONTEXT}x1], interleave: [1x1x8x1x1]>"
    assert meta["neural_engine"]["cache_constraints"] == f"IOSurface:1x1x1x1x{8 * MAX_CONTEXT}x1:1x1x8x1x1"
    for entry in ["extend_16_1", "prompt_opt_16_8", f"extend_{MAX_CONTEXT}_8", "gather_embeddings_8"]:
        r = subprocess.run([str(COREAI_RUN), str(bundle / "model.aimodel"), "--entry", entry, "--print-signature"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        types = {a["name"]: a["type"] for a in json.loads(r.stdout)["arguments"]}
        if entry.startswith("gather"):
            assert all("hw_constraints" not in t for t in types.values()), types
            continue
        m = 16 if "_16_" in entry else MAX_CONTEXT
        for cache in ("key_cache", "value_cache"):
            assert types[cache] == f"tensor<2x1x32x1x{m}xf32, {encoding}>", (entry, types[cache])
    prompt = models.ids(11, seed=4)[0].tolist()
    record = run(bundle, "coreai-run", [{"generate": prompt, "n": 8}])
    assert record["tokens_0"].tolist() == eager_greedy(model, prompt, 8)
    with pytest.raises(ValueError, match="interleaved IOSurface layout"):
        llm.Session(bundle, "coreai-core")


@pytest.mark.parametrize("name", ["llama", "qwen3", "gemma3"])
def test_neural_engine_form_agrees_with_the_gpu_form_and_stays_resident(name, tmp_path):
    """f16 (the Neural Engine's default): over 8 prompts, the Neural
    Engine form's teacher-forced greedy choices agree with the GPU form's
    greedy tokens on at least 95% of the tokens, in both runtimes; every op
    of its functions is Neural-Engine-resident (no state, no fused
    attention, no f32 RoPE angles: the tables are inputs)."""
    model = build(name)
    gpu = convert(model, tmp_path / "gpu", target="gpu", precision="f16")
    ane = convert(model, tmp_path / "ane", target="ane", precision="f16")
    r = subprocess.run([str(BUILD / "coreai-freqop"), "--ane", str(ane / "model.aimodel")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    resident = [l for l in r.stderr.splitlines() if l.startswith("ane-residency: ")]
    assert resident and all(re.match(r"ane-residency: (\d+) of \1 ops", l) for l in resident), r.stderr
    for runtime in RUNTIMES:
        agree = total = 0
        for s in range(8):
            prompt = models.ids(8 + s, seed=s)[0].tolist()
            want = run(gpu, runtime, [{"generate": prompt, "n": 16}])["tokens_0"].tolist()
            choices = run(ane, runtime, [{"follow": prompt, "continuation": want}])["tokens_0"].tolist()
            agree += sum(a == b for a, b in zip(choices, want))
            total += len(want)
        assert agree >= 0.95 * total, f"{name} in {runtime}: {agree}/{total} choices agree with the GPU form"
        print(f"{name} in {runtime}: {agree}/{total} agree")


def test_neural_engine_bundle_layout_and_signature(tmp_path):
    """Per query length, a static `gather_embeddings` function (the
    model's embedding, Apple's (1, q, 1, hidden) layout) and a static
    `extend` taking its result; Apple's read-only layout, no states; every
    weight stored once (two lengths' asset within 5% of one length's: a
    second copy of the weights would add 95%, the functions' own IR adds
    3.5% on this small model); a
    sliding-window model's functions also take `sliding_mask`."""
    model = build("llama")
    bundle = convert(model, tmp_path / "bundle", target="ane", precision="f16")
    meta = json.loads((bundle / "metadata.json").read_text())
    assert meta["language"]["function_map"] == {
        "gather_embeddings": ["gather_embeddings_1", "gather_embeddings_8"],
        "extend": [f"extend_{MAX_CONTEXT}_1", f"extend_{MAX_CONTEXT}_8"],
        "prompt_opt": [f"prompt_opt_{MAX_CONTEXT}_8"]}
    assert meta["neural_engine"]["cache_shape"] == [2, 1, 32, 1, MAX_CONTEXT]
    assert "states" not in meta
    one = convert(model, tmp_path / "one", target="ane", precision="f16", query_lengths=(8,))
    size, one_size = ((b / "model.aimodel" / "main.mlirb").stat().st_size for b in (bundle, one))
    assert size <= 1.05 * one_size, (size, one_size)
    r = subprocess.run([str(COREAI_RUN), str(bundle / "model.aimodel"), "--entry", "gather_embeddings_8",
                        "--print-signature"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sig = json.loads(r.stdout)
    assert [(a["name"], a["type"]) for a in sig["arguments"]] == [("input_ids", "tensor<1x8xsi16>")]
    assert [(a["name"], a["type"]) for a in sig["results"]] == [("transformer_input", "tensor<1x8x1x64xf16>")]
    r = subprocess.run([str(COREAI_RUN), str(bundle / "model.aimodel"), "--entry", f"extend_{MAX_CONTEXT}_8",
                        "--print-signature"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sig = json.loads(r.stdout)
    assert [(a["name"], a["type"]) for a in sig["arguments"]] == [
        ("transformer_input", "tensor<1x8x1x64xf16>"), ("position_ids", "tensor<1x8xsi64>"),
        ("causal_mask", f"tensor<1x{MAX_CONTEXT + 8}x1x8xf16>"),
        ("key_cache", f"tensor<2x1x32x1x{MAX_CONTEXT}xf16>"), ("value_cache", f"tensor<2x1x32x1x{MAX_CONTEXT}xf16>"),
        ("rope_cos", "tensor<1x16x1x8xf16>"), ("rope_sin", "tensor<1x16x1x8xf16>")]
    assert [(a["name"], a["type"]) for a in sig["results"]] == [
        ("logits", f"tensor<1x8x{models.VOCAB}xf16>"), ("new_keys", "tensor<2x1x32x1x8xf16>"),
        ("new_values", "tensor<2x1x32x1x8xf16>")]
    # prompt_opt: extend's inputs, the new keys and values only, and fewer
    # products than extend: the head's, and the last layer's after its key
    # and value projections (the query projection, the two attention
    # products, one per head on the Neural Engine (matmul-per-head), the
    # output projection, the MLP's three), which no new key or value reads.
    r = subprocess.run([str(COREAI_RUN), str(bundle / "model.aimodel"), "--entry", f"prompt_opt_{MAX_CONTEXT}_8",
                        "--print-signature"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    prompt = json.loads(r.stdout)
    assert prompt["arguments"] == sig["arguments"]
    assert prompt["results"] == sig["results"][1:]
    ir = subprocess.run([str(BUILD / "coreai-opt"), str(bundle / "model.aimodel")], capture_output=True, text=True)
    assert ir.returncode == 0, ir.stderr
    graphs = dict(re.findall(r"coreai\.graph @(\w+)(.*?)\n  \}", ir.stdout, re.S))
    # (The projections are 1x1 convolutions on the Neural Engine: linear-conv1x1.)
    products = {n: len(re.findall(r"= coreai\.(?:\S*matmul|conv2d) ", g)) for n, g in graphs.items()}
    dropped = 1 + 1 + 2 * model.config.num_attention_heads + 1 + 3
    assert products[f"prompt_opt_{MAX_CONTEXT}_8"] == products[f"extend_{MAX_CONTEXT}_8"] - dropped, products
    # A decode step moves no data: its residual stream is BC1S throughout
    # (one token: reshapes), and attention reads the cache in its own
    # (B, H, D, S) order (kv-bc1s), so no transpose is left.
    assert "coreai.transpose" not in graphs[f"extend_{MAX_CONTEXT}_1"], graphs[f"extend_{MAX_CONTEXT}_1"]
    # A sliding-window model takes its second mask after the caches.
    sliding = convert(build("mistral"), tmp_path / "sliding", target="ane", precision="f16")
    assert json.loads((sliding / "metadata.json").read_text())["neural_engine"]["sliding_window"] == 4
    r = subprocess.run([str(COREAI_RUN), str(sliding / "model.aimodel"), "--entry", f"extend_{MAX_CONTEXT}_1",
                        "--print-signature"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    names = [a["name"] for a in json.loads(r.stdout)["arguments"]]
    assert names == ["transformer_input", "position_ids", "causal_mask", "key_cache", "value_cache",
                     "sliding_mask", "rope_cos", "rope_sin"], names


def test_command_line_converts_and_generates_the_neural_engine_form(tmp_path):
    source, env = zoo_factory(tmp_path, "qwen3")
    bundle = tmp_path / "bundle"
    r = subprocess.run([sys.executable, "-m", "coreai_export.llm", "--module-file", f"{source}:factory",
                        "-o", str(bundle), "--max-context", "32", "--target", "ane", "--precision", "f32",
                        "--query-lengths", "1,4"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    meta = json.loads((bundle / "metadata.json").read_text())
    assert meta["language"]["function_map"] == {"gather_embeddings": ["gather_embeddings_1", "gather_embeddings_4"],
                                                 "extend": ["extend_32_1", "extend_32_4"],
                                                 "prompt_opt": ["prompt_opt_32_4"]}
    r = subprocess.run([sys.executable, "-m", "coreai_export.llm", "-o", str(bundle), "--generate", "3,1,4,1,5,9",
                        "--max-new-tokens", "6", "--runtime", "coreai-run"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == [str(t) for t in eager_greedy(build("qwen3"), [3, 1, 4, 1, 5, 9], 6)]
