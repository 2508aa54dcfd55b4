"""Causal language models, unmodified, to a runnable LLM bundle.

    from coreai_export import llm
    llm.convert_causal_lm(model, "bundle", max_context=256)
    tokens = llm.generate("bundle", prompt_ids, max_new_tokens=32)

`model` is a Hugging Face `transformers` causal LM (or any module called as
`model(input_ids=..., position_ids=..., cache=..., use_cache=True)` that
returns `.logits`) with random or trained weights; nothing in it is
rewritten by hand. The bundle is laid out as Apple's coreai-models
`export/bundle.py` lays out a macOS LLM:

    bundle/NAME.aimodel      one function `main`
    bundle/metadata.json     metadata_version 0.2, kind "llm", function_map
    bundle/tokenizer/        the tokenizer's files, when one is given

and `main` has the macOS export's contract (coreai-models `export/macos.py`,
`models/base.py`):

    main(input_ids: si32[1, q], position_ids: si32[1, s])
        states keyCache, valueCache: [n_layers, 1, n_kv_heads, max_context, head_dim]
        -> logits [1, q, vocab]

`s` is the number of positions seen including the `q` new tokens
(`position_ids` is `0 .. s-1`): the call writes the new keys and values at
`s-q .. s-1` of each layer's cache and attends over `0 .. s-1`. Prefill is a
call with the whole prompt, decode a call with one token; both are `main`,
so every weight is stored once. The caches are runtime states, updated in
place (coreai-core's `state=`).

How: the model runs with a `transformers` Cache whose layers write into
the two state tensors (`KVStateCache`); torch.export sees the forward
arguments mutated in place, the importer makes them states and the
compiler's `state-handles` pass gives them coreai-core's handle form.
Attention masks, sliding windows, soft-capping, RoPE and tied embeddings
stay the model's own code.

One difference from coreai-models: its caches have a dynamic sequence
length (traced at up to 2048, the runner allocates); ours is static at
`max_context`, so the function's descriptor says exactly what to
allocate and the compiler sees one cache shape.
"""

import argparse
import inspect
import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import torch

from .convert import CompileFailure, convert, find_compiler
from .exporting import ExportFailure, load_factory

KEY_CACHE = "keyCache"
VALUE_CACHE = "valueCache"
METADATA_VERSION = "0.2"
ATTENTION_LAYERS = ("full_attention", "sliding_attention")


class Unsupported(ExportFailure):
    """The model is not one the LLM flow can convert; the message names the
    layer and the reason."""


# ---------------------------------------------------------------- the cache

def _cache_classes():
    from transformers.cache_utils import Cache, CacheLayerMixin

    class KVStateLayer(CacheLayerMixin):
        """One decoder layer's view of the shared key and value states:
        `update` writes the new keys and values at the call's positions
        and returns the layer's keys and values at every seen position."""

        is_compileable = False
        is_croppable = False

        def __init__(self, cache, index, sliding):
            super().__init__()
            self.cache, self.index, self.is_sliding = cache, index, sliding
            self.is_initialized = True

        def lazy_initialization(self, key_states, value_states):
            pass

        def update(self, key_states, value_states, *args, **kwargs):
            c = self.cache
            q = key_states.shape[-2]
            for state, new in ((c.keys, key_states), (c.values, value_states)):
                state.narrow(0, self.index, 1).narrow(3, c.offset, q).copy_(new.unsqueeze(0))
            return (c.keys[self.index, :, :, :c.length].to(key_states.dtype),
                    c.values[self.index, :, :, :c.length].to(value_states.dtype))

        def get_mask_sizes(self, query_length):
            return self.cache.length, 0

        def get_seq_length(self):
            return self.cache.offset

        def get_max_length(self):
            return self.cache.keys.shape[3]

    class KVStateCache(Cache):
        """A transformers Cache over two state tensors
        `[n_layers, 1, n_kv_heads, max_context, head_dim]`, for a call that
        has seen `length` positions, the last `length - offset` new."""

        def __init__(self, keys, values, offset, length, sliding):
            self.keys, self.values, self.offset, self.length = keys, values, offset, length
            super().__init__(layers=[KVStateLayer(self, i, s) for i, s in enumerate(sliding)])

    return KVStateCache


def _cache_argument(model):
    """The keyword the model's forward takes its cache by (`cache` in
    transformers 5.25, `past_key_values` before)."""
    params = inspect.signature(model.forward).parameters
    for name in ("cache", "past_key_values"):
        if name in params:
            return name
    return None


class CausalLMStep(torch.nn.Module):
    """forward(input_ids, position_ids, keyCache, valueCache) -> logits: one
    prefill or decode call of `model` over the two cache states, mutated in
    place (the macOS export's signature and state names)."""

    def __init__(self, model, sliding):
        super().__init__()
        self.model = model
        self.sliding = list(sliding)
        self.cache_argument = _cache_argument(model)
        self.cache_class = _cache_classes()

    def forward(self, input_ids, position_ids, keyCache, valueCache):  # noqa: N803 - the runner's state names
        q = input_ids.shape[1]
        s = position_ids.shape[1]
        torch._check(q <= s)
        torch._check(s <= keyCache.shape[3])
        offset = s - q
        cache = self.cache_class(keyCache, valueCache, offset, s, self.sliding)
        out = self.model(input_ids=input_ids, position_ids=position_ids[:, offset:],
                         **{self.cache_argument: cache}, use_cache=True)
        return out.logits


# ---------------------------------------------------------------- what the model is

def describe(model):
    """(n_layers, n_kv_heads, head_dim, per-layer sliding flags, vocab) of a
    causal LM, read from one eager call with transformers' own dynamic cache
    (so any attention layout is measured, not assumed). Raises Unsupported
    naming the layer when the flow cannot hold the model's state."""
    config = getattr(model, "config", None)
    name = type(model).__name__
    if _cache_argument(model) is None:
        raise Unsupported(f"{name}: its forward takes no cache (`cache` or `past_key_values`); the LLM flow "
                          "needs a transformers-style causal LM")
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    layer_types = list(getattr(text, "layer_types", None) or [])
    for i, kind in enumerate(layer_types):
        if kind not in ATTENTION_LAYERS:
            raise Unsupported(
                f"{name}: layer {i} is a '{kind}' layer: its recurrent state is a summary of the whole prefix, "
                "which a KV-cache bundle cannot rewind or hold as keyCache/valueCache (hybrid recurrent models "
                "need their own runner; conversion guide §6.3)")
    from transformers.cache_utils import DynamicCache

    cache_argument = _cache_argument(model)
    probe = DynamicCache(config=config) if config is not None else DynamicCache()
    with torch.no_grad():
        out = model(input_ids=torch.zeros(1, 2, dtype=torch.long), **{cache_argument: probe}, use_cache=True)
    layers = getattr(probe, "layers", [])
    if not layers:
        raise Unsupported(f"{name}: one call filled no attention cache; the model keeps no key/value state")
    shapes = []
    for i, layer in enumerate(layers):
        keys = getattr(layer, "keys", None)
        if not isinstance(keys, torch.Tensor) or keys.dim() != 4:
            raise Unsupported(f"{name}: layer {i} ({type(layer).__name__}) holds no key/value attention cache; "
                              "its state cannot be a keyCache/valueCache slice")
        shapes.append((keys.shape[1], keys.shape[3], layer.values.shape[3]))
    if len(set(shapes)) != 1:
        i = next(i for i, s in enumerate(shapes) if s != shapes[0])
        raise Unsupported(f"{name}: layer {i} caches {shapes[i][0]} heads of {shapes[i][1]} (keys) and "
                          f"{shapes[i][2]} (values) where layer 0 caches {shapes[0][0]} of {shapes[0][1]}/"
                          f"{shapes[0][2]}: one keyCache/valueCache needs every layer alike")
    heads, key_dim, value_dim = shapes[0]
    if key_dim != value_dim:
        raise Unsupported(f"{name}: keys of {key_dim} and values of {value_dim} per head: keyCache and valueCache "
                          "share one shape")
    sliding = [getattr(layer, "is_sliding", False) for layer in layers]
    if layer_types:
        sliding = [kind == "sliding_attention" for kind in layer_types[:len(layers)]]
    return len(layers), heads, key_dim, sliding, out.logits.shape[-1]


# ---------------------------------------------------------------- conversion

def convert_causal_lm(model, output_dir, *, max_context, target="gpu", precision="f16", compress=None,
                      tokenizer=None, name="model", compiler=None, timing=False, query_lengths=(1, 8),
                      cache_lengths=None, cache_constraints=False, embedding_compress=None):
    """Converts `model` to an LLM bundle in `output_dir` (created); returns
    its path. `max_context`: the most positions one conversation holds
    (the caches' length). `precision="f16"` also stores the caches in f16.
    `compress`: weight compression (`"int4-block32"`, docs/compression.md).
    `embedding_compress="int8"`: the input embedding (and a head tied to
    it) in 8-bit integers with one scale, whatever `compress` does to the
    other weights (Apple's iOS LLM form: a 4-bit palettized model keeps an
    int8 embedding table).
    `tokenizer`: a transformers tokenizer (saved into the bundle) or None.
    `target="ane"`: the Neural Engine form (llm_ane.py: a read-only cache
    passed in and the new keys and values returned, one static function
    `extend_{M}_{q}` per `query_lengths` entry and cache length `M` of the
    ladder: `cache_lengths`, or 256 doubling below `max_context`, then
    `max_context`; `cache_constraints=True`: the caches in Apple's
    interleaved IOSurface layout, for a device runner)."""
    if not isinstance(max_context, int) or max_context < 4:
        raise ExportFailure(f"max_context={max_context!r}: expected an int of at least 4")
    model = model.eval()
    n_layers, heads, head_dim, sliding, vocab = describe(model)
    compress = _with_embedding(model, compress, embedding_compress)
    if target == "ane":
        return _convert_neural_engine(model, output_dir, max_context=max_context, precision=precision,
                                      compress=compress, tokenizer=tokenizer, name=name, compiler=compiler,
                                      query_lengths=query_lengths, shape=(n_layers, heads, head_dim),
                                      sliding=sliding, vocab=vocab, cache_lengths=cache_lengths,
                                      cache_constraints=cache_constraints)
    cache_dtype = torch.float16 if precision == "f16" else torch.float32
    shape = (n_layers, 1, heads, max_context, head_dim)
    q, s = 3, 5  # the traced call: 3 new tokens after 2 cached ones
    example = (torch.zeros(1, q, dtype=torch.int32), torch.arange(s, dtype=torch.int32)[None],
               torch.zeros(shape, dtype=cache_dtype), torch.zeros(shape, dtype=cache_dtype))
    # At most max_context - 1 positions, as coreai-models bounds them: a
    # slice reaching the cache's end would make torch.export specialize.
    new = torch.export.Dim("new_tokens", min=1, max=max_context - 1)
    seen = torch.export.Dim("positions", min=1, max=max_context - 1)
    dynamic = ({1: new}, {1: seen}, None, None)
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    asset = out / f"{name}.aimodel"
    step = CausalLMStep(model, sliding)
    convert(step, example, asset, target=target, precision=precision, dynamic_shapes=dynamic,
            compress=compress, compiler=compiler, timing=timing,
            input_names=["input_ids", "position_ids", KEY_CACHE, VALUE_CACHE], output_names=["logits"],
            metadata={"description": f"{type(model).__name__} causal LM: prefill and decode through main, "
                                     f"KV cache states {KEY_CACHE}/{VALUE_CACHE}"})
    metadata = _metadata(model, out, name, asset, vocab, max_context, tokenizer, compress, target,
                         {"main": ["main"]})
    metadata.update({
        # What a runner needs to allocate the states (coreai-core's
        # descriptor says it too).
        "states": {n: {"shape": list(shape), "dtype": str(cache_dtype).removeprefix("torch.")}
                   for n in (KEY_CACHE, VALUE_CACHE)},
    })
    (out / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n")
    return out


def _with_embedding(model, compress, embedding_compress):
    """`compress` with the input embedding compressed first by
    `embedding_compress` (None: as `compress` says): a `quantize-weights`
    pass selecting the embedding's weight by its names (the model's, a tied
    head's, and `embedding.weight`, the Neural Engine form's gather
    module's), then `compress` on the rest."""
    if embedding_compress is None:
        return compress
    if embedding_compress != "int8":
        raise ExportFailure(f"embedding_compress={embedding_compress!r}: expected 'int8' (or None)")
    table = model.get_input_embeddings().weight
    names = {n for n, p in model.named_parameters(remove_duplicate=False) if p is table} | {"embedding.weight"}
    first = f"quantize-weights{{dtype=int8 granularity=per-tensor only={','.join(sorted(names))}}}"
    return first if compress is None else f"{first}+{compress}"


def _metadata(model, out, name, asset, vocab, max_context, tokenizer, compress, target, function_map):
    """metadata.json's common part (coreai-models' `export/bundle.py`
    layout); saves the tokenizer into the bundle when one is given."""
    if tokenizer is not None:
        tokenizer.save_pretrained(str(out / "tokenizer"))
    config = getattr(model, "config", None)
    return {
        "metadata_version": METADATA_VERSION,
        "kind": "llm",
        "name": name,
        "assets": {"main": asset.name},
        "language": {
            "tokenizer": getattr(config, "_name_or_path", None) or None,
            "vocab_size": int(vocab),
            "max_context_length": max_context,
            "embedded_tokenizer": tokenizer is not None,
            "function_map": function_map,
        },
        "source": {"model_definition": "torch", "model_class": type(model).__name__},
        "compression": compress,
        "compilation": {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "targets": [target]},
    }


def _convert_neural_engine(model, output_dir, *, max_context, precision, compress, tokenizer, name, compiler,
                           query_lengths, shape, sliding, vocab, cache_lengths, cache_constraints):
    """The Neural Engine bundle (llm_ane.py): one asset with a static
    `extend_{M}_{q}` function per query length (and a `prompt_opt_{M}_{q}`
    per length > 1), no states."""
    from . import llm_ane
    from .convert import compile_asset
    from .exporting import experts_for_target

    lengths = sorted({int(q) for q in query_lengths})
    if not lengths or lengths[0] < 1 or lengths[-1] > max_context:
        raise ExportFailure(f"query_lengths={query_lengths!r}: expected lengths from 1 to max_context")
    n_layers, heads, head_dim = shape
    ladder = llm_ane.cache_ladder(max_context, cache_lengths)
    with experts_for_target(model, "ane"):
        programs, tables, window = llm_ane.programs(model, max_context=max_context, query_lengths=lengths,
                                                    n_layers=n_layers, heads=heads, head_dim=head_dim,
                                                    cache_argument=_cache_argument(model), sliding=sliding,
                                                    cache_lengths=ladder)
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    asset = out / f"{name}.aimodel"
    # Apple's layout of the caches the runner shares with every function
    # (coreai-models' export_hardware_constraints): an IOSurface, the
    # key/value dim interleaved by 8, rows aligned to 8 * max_context, so
    # each cache length reads a prefix of the same buffer.
    cache = llm_ane.cache_constraints(heads * head_dim, max_context) if cache_constraints else None
    if cache_constraints and cache is None:
        raise ExportFailure(f"cache_constraints: 8 must divide the caches' n_kv_heads * head_dim "
                            f"({heads * head_dim}) to interleave them by 8")
    constrained = {f"{entry}/{state}": cache for entry, _ in programs
                   if not entry.startswith("gather_") for state in (llm_ane.KEY_CACHE, llm_ane.VALUE_CACHE)} \
        if cache else {}
    compile_asset(programs, asset, target="ane", precision=precision, compress=compress, compiler=compiler,
                  hw_constraints=constrained,
                  metadata={"description": f"{type(model).__name__} causal LM, Neural Engine form: read-only KV "
                                           f"cache, gather_embeddings and extend functions for query lengths {lengths}"})
    entries = [llm_ane.entry_name(m, q) for m in ladder for q in lengths]
    prompts = llm_ane.prompt_lengths(lengths)
    function_map = {"gather_embeddings": [llm_ane.gather_name(q) for q in lengths], "extend": entries}
    if prompts:
        function_map["prompt_opt"] = [llm_ane.prompt_name(m, q) for m in ladder for q in prompts]
    metadata = _metadata(model, out, name, asset, vocab, max_context, tokenizer, compress, "ane", function_map)
    metadata.update({
        # What the runner allocates and how it calls: Apple's read-only
        # pattern (new keys and values written by the caller at the offset).
        "neural_engine": {"layout": "readonly", "query_lengths": lengths, "prompt_lengths": prompts,
                          "cache_lengths": ladder,
                          "cache_shape": [n_layers, 1, heads * head_dim, 1, max_context],
                          "cache_dtype": "float16" if precision == "f16" else "float32",
                          "cache_constraints": cache,
                          "sliding_window": window},
    })
    if tables:
        names = llm_ane.rope_names(len(tables))
        np.savez(out / "rope.npz", **dict(zip(names, (t for pair in tables for t in pair))))
        metadata["neural_engine"]["rope"] = "rope.npz"
    (out / "metadata.json").write_text(json.dumps(metadata, indent=2) + "\n")
    return out


# ---------------------------------------------------------------- running a bundle

def _bundle(path):
    path = Path(path)
    meta = json.loads((path / "metadata.json").read_text())
    return path / meta["assets"]["main"], meta


class Session:
    """One conversation with a bundle: the caches and the tokens fed so far.
    `generate` extends it; a later call feeds only what is new (the cached
    prefix is reused, not recomputed). `runtime`: "coreai-core" (its
    runtime, states bound with `state=`) or "coreai-run" (this project's
    executor: one `coreai-run --serve` process for the session, the asset
    read once, states carried in .npz files)."""

    def __init__(self, bundle, runtime="coreai-core", coreai_run=None):
        if runtime not in ("coreai-core", "coreai-run"):
            raise ValueError(f"runtime={runtime!r}: expected 'coreai-core' or 'coreai-run'")
        self.asset, self.meta = _bundle(bundle)
        self.runtime = runtime
        self.fed = []  # tokens whose keys and values are in the caches
        self.pending = []  # generated, not yet fed
        self.capacity = self.meta["language"]["max_context_length"] - 1
        states = self.meta.get("states", {})
        self.states = {n: np.zeros(s["shape"], dtype=np.dtype(s["dtype"])) for n, s in states.items()}
        self.calls = []  # (new tokens, positions) of each call, for tests
        self._work = tempfile.TemporaryDirectory(prefix="coreai-llm-")
        self._tool = coreai_run
        self._core = None
        self._functions = {}  # coreai-core's loaded functions of a Neural Engine bundle
        self._server = None  # the coreai-run --serve process
        self._ane = None
        # Greedy decoding reads the last logits only: a Neural Engine bundle
        # then skips the head of every prompt chunk but the last.
        self._prompt_opt = bool(self.meta.get("neural_engine", {}).get("prompt_lengths"))
        if "neural_engine" in self.meta:
            from .llm_ane import AneSession

            if runtime == "coreai-core" and self.meta["neural_engine"].get("cache_constraints"):
                raise ValueError(
                    f"{bundle}: its functions take the caches in Apple's interleaved IOSurface layout "
                    f"({self.meta['neural_engine']['cache_constraints']}), which coreai-core's Python runtime "
                    "cannot build an input in; run it with runtime='coreai-run', or convert without "
                    "cache_constraints")

            tables = []
            rope = self.meta["neural_engine"].get("rope")
            if rope:
                with np.load(Path(bundle) / rope) as z:
                    tables = [z[n] for n in z.files]
            self._ane = AneSession(self.meta, self._call_function, tables)
            self.capacity = self.meta["language"]["max_context_length"]

    def close(self):
        if self._core is not None:
            self._core.close()
            self._core = None
        for fn in self._functions.values():
            fn.close()
        self._functions = {}
        if self._server is not None:
            self._server.stdin.close()
            self._server.wait()
            self._server.stdout.close()
            self._server.stderr.close()
            self._server = None
        self._work.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def step(self, tokens, last_only=False):
        """Feeds `tokens` after everything fed so far; the logits [len, vocab]
        of each fed position (float32), or with `last_only` of the last one
        [1, vocab] (a Neural Engine bundle then runs its prompt chunks but
        the last through `prompt_opt`, without the model's head)."""
        if not tokens:
            raise ValueError("step: no tokens to feed")
        seen = len(self.fed) + len(tokens)
        if seen > self.capacity:
            raise ValueError(f"the conversation would hold {seen} positions; the bundle holds {self.capacity} "
                             "(max_context - 1)")
        if self._ane is not None:
            logits = self._ane.step(list(tokens), last_only)
            self.fed += list(tokens)
            self.calls.append((len(tokens), seen))
            return logits
        inputs = {"input_ids": np.asarray([tokens], dtype=np.int32),
                  "position_ids": np.arange(seen, dtype=np.int32)[None]}
        logits = self._call(inputs)
        self.fed += list(tokens)
        self.calls.append((len(tokens), seen))
        logits = np.asarray(logits, dtype=np.float32)[0]
        return logits[-1:] if last_only else logits

    def generate(self, prompt_ids, max_new_tokens):
        """Greedy decoding: feeds `prompt_ids` (after any earlier turn) and
        returns the `max_new_tokens` tokens chosen, each the argmax of the
        last position's logits."""
        feed = self.pending + [int(t) for t in prompt_ids]
        self.pending = []
        out = []
        for _ in range(max_new_tokens):
            logits = self.step(feed, last_only=self._prompt_opt)
            token = int(np.argmax(logits[-1]))
            out.append(token)
            feed = [token]
        self.pending = feed
        return out

    def follow(self, prompt_ids, continuation):
        """Teacher-forced greedy choices: feeds `prompt_ids`, then each token
        of `continuation` in turn (one decode call each), and returns the
        argmax after the prompt and after each fed token but the last, so
        choice i is what the bundle picks where `continuation[i]` was
        picked. Agreement measured this way does not cascade: one different
        choice does not change the context of the next."""
        feed = self.pending + [int(t) for t in prompt_ids]
        self.pending = []
        choices = []
        for token in continuation:
            choices.append(int(np.argmax(self.step(feed, last_only=self._prompt_opt)[-1])))
            feed = [int(token)]
        self.pending = feed
        return choices

    # the runtimes

    def _call_function(self, entry, inputs):
        """All outputs of function `entry` (a Neural Engine bundle's; no
        states), the inputs converted to its argument types."""
        if self.runtime == "coreai-core":
            if entry not in self._functions:
                self._functions[entry] = _CoreaiCoreFunction(self.asset, {}, entry)
            return self._functions[entry].outputs(inputs)
        return self._serve(entry, inputs)

    def _call(self, inputs):
        if self.runtime == "coreai-core":
            return self._call_core(inputs)
        return self._call_run(inputs)

    def _call_core(self, inputs):
        if self._core is None:
            self._core = _CoreaiCoreFunction(self.asset, self.states)
        return self._core(inputs)

    def _call_run(self, inputs):
        out = self._serve("main", {**inputs, **self.states})
        for n in self.states:
            self.states[n] = out[n]
        return out["logits"]

    def _serve(self, entry, inputs):
        """`entry`'s outputs from one `coreai-run --serve` process that keeps
        the asset loaded for the whole session (the inputs converted to the
        argument types for a Neural Engine bundle's f16 and si16)."""
        if self._server is None:
            tool = self._tool or _coreai_run()
            flags = ["--cast-inputs"] if self._ane is not None else []
            self._server = subprocess.Popen([tool, str(self.asset), "--serve", *flags], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        work = Path(self._work.name)
        feed, out = work / "in.npz", work / "out.npz"
        np.savez(feed, **inputs)
        self._server.stdin.write(f"{entry}\t{feed}\t{out}\n")
        self._server.stdin.flush()
        answer = self._server.stdout.readline().strip()
        if answer != "ok":
            if not answer:
                self._server.wait()
                answer = f"exited with status {self._server.returncode}: {self._server.stderr.read().strip()}"
            raise RuntimeError(f"coreai-run failed on {self.asset} ({entry}): {answer}")
        with np.load(out) as z:
            return {k: z[k] for k in z.files}


def exit_without_finalizing(code):
    """Ends a process that ran coreai-core's runtime with status `code`:
    flushes stdout and stderr and exits without finalizing the interpreter.

    coreai-core 1.0.0b3 drops a finished call's Python references on one of
    its own (Swift dispatch) threads, which takes the GIL to do it. When the
    main thread is already in `Py_FinalizeEx`, taking the GIL ends that
    thread with `pthread_exit`, and the unwinding through Swift frames
    aborts the process ("C++ exception handling detected but the Swift
    runtime was compiled with exceptions disabled", SIGABRT) after its work
    is done and its outputs written. Whether the release comes before or
    after finalization is a race the load decides: with both cores busy
    about one `coreai-gate --llm-worker` run in twenty died so. Nothing a
    process that ran the runtime needs happens in finalization, so it
    skips it. Open files and temporary directories are the caller's to
    close first."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


class _CoreaiCoreFunction:
    """`main` of an asset loaded once in coreai-core's runtime, with its
    states bound as NDArrays it updates in place."""

    def __init__(self, asset, states, function="main"):
        import asyncio

        from coreai.authoring.asset import AIModelAsset
        from coreai.runtime import NDArray

        self.loop = asyncio.new_event_loop()
        self.NDArray = NDArray
        self.states = {n: NDArray(np.ascontiguousarray(v)) for n, v in states.items()}
        self.asset = AIModelAsset.load(asset)

        async def load():
            self.context = self.asset.executable()
            model = await self.context.__aenter__()
            fn = model.load_function(function)
            return (await fn) if asyncio.iscoroutine(fn) else fn

        self.fn = self.loop.run_until_complete(load())

    def __call__(self, inputs):
        return self.outputs(inputs)["logits"]

    def outputs(self, inputs):
        """Every output; each input converted to the dtype the function
        takes (the Neural Engine's f16 and si16)."""
        desc = self.fn.desc
        feed = {k: self.NDArray(np.ascontiguousarray(np.asarray(v).astype(desc.input_descriptor(k).dtype)))
                for k, v in inputs.items()}
        out = self.loop.run_until_complete(self.fn(inputs=feed, state=self.states))
        return {k: v.numpy() for k, v in out.items()}

    def close(self):
        self.loop.run_until_complete(self.context.__aexit__(None, None, None))
        self.loop.close()


def _coreai_run():
    compiler = Path(find_compiler())
    tool = compiler.with_name("coreai-run")
    if not tool.is_file():
        raise CompileFailure(f"coreai-run not found beside {compiler}")
    return str(tool)


def generate(bundle, prompt_ids, max_new_tokens, runtime="coreai-core", coreai_run=None):
    """Greedy tokens of `bundle` after `prompt_ids`, decoded through the
    asset's own `main` and states in `runtime` ("coreai-core" or
    "coreai-run"; `coreai_run`: that binary, default beside coreai-compile).
    For a conversation over several calls use Session."""
    with Session(bundle, runtime, coreai_run) as session:
        return session.generate(prompt_ids, max_new_tokens)


# ---------------------------------------------------------------- command line

def build_parser():
    p = argparse.ArgumentParser(
        prog="python -m coreai_export.llm",
        description="Convert a causal language model to an LLM bundle (NAME.aimodel, metadata.json, tokenizer/) "
                    "with prefill and decode through one function and the KV cache as runtime states (with "
                    "--target ane: static extend functions over a read-only cache); or, with --generate, run a "
                    "bundle greedily.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--model", metavar="PKG.MODULE:FACTORY", help="factory() returns the model (or (model, ...))")
    src.add_argument("--module-file", metavar="FILE.py:FACTORY", help="as --model, from a file")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="the bundle directory")
    p.add_argument("--max-context", type=int, default=256, help="positions one conversation holds (default 256)")
    p.add_argument("--target", choices=["cpu", "gpu", "ane"], default="gpu")
    p.add_argument("--precision", choices=["f32", "f16"], default="f16")
    p.add_argument("--compress", metavar="SPEC", help="weight compression preset or pass (docs/compression.md)")
    p.add_argument("--tokenizer", metavar="DIR", help="a saved transformers tokenizer to put in the bundle")
    p.add_argument("--name", default="model", help="the asset's name in the bundle (default model)")
    p.add_argument("--query-lengths", default="1,8", metavar="Q,Q",
                   help="with --target ane: the query length of each static extend function (default 1,8: decode "
                        "and chunked prefill)")
    p.add_argument("--cache-lengths", metavar="M,M",
                   help="with --target ane: the cache lengths of the functions (default 256 doubling below "
                        "--max-context, then --max-context)")
    p.add_argument("--cache-constraints", action="store_true",
                   help="with --target ane: the caches in Apple's interleaved IOSurface layout (for a device "
                        "runner; coreai-core's Python runtime cannot feed them)")
    p.add_argument("--embedding-compress", choices=["int8"],
                   help="the input embedding (and a tied head) in int8 with one scale, whatever --compress does "
                        "to the rest (Apple's iOS LLM form)")
    p.add_argument("--generate", metavar="IDS", help="run the bundle DIR instead: comma-separated prompt token ids")
    p.add_argument("--max-new-tokens", type=int, default=32)
    p.add_argument("--runtime", choices=["coreai-core", "coreai-run"], default="coreai-core")
    return p


def main(argv=None):
    ns = build_parser().parse_args(argv)
    try:
        if ns.generate is not None:
            ids = [int(t) for t in ns.generate.split(",") if t.strip()]
            print(" ".join(map(str, generate(ns.output, ids, ns.max_new_tokens, ns.runtime))))
            exit_without_finalizing(0)
        if not (ns.model or ns.module_file):
            raise ExportFailure("give --model or --module-file (or --generate IDS to run a bundle)")
        made = load_factory(ns.model or ns.module_file, from_file=bool(ns.module_file))()
        model = made[0] if isinstance(made, tuple) else made
        tokenizer = None
        if ns.tokenizer:
            from transformers import AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(ns.tokenizer)
        lengths = tuple(int(q) for q in ns.query_lengths.split(",") if q.strip())
        ladder = (tuple(int(m) for m in ns.cache_lengths.split(",") if m.strip())
                  if ns.cache_lengths else None)
        out = convert_causal_lm(model, ns.output, max_context=ns.max_context, target=ns.target,
                                precision=ns.precision, compress=ns.compress, tokenizer=tokenizer, name=ns.name,
                                query_lengths=lengths, cache_lengths=ladder,
                                cache_constraints=ns.cache_constraints,
                                embedding_compress=ns.embedding_compress)
        print(out)
        return 0
    except (ExportFailure, CompileFailure, ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
