"""The Neural Engine form of a causal language model: a read-only KV cache
and static entry points, from the unmodified model.

    from coreai_export import llm
    llm.convert_causal_lm(model, "bundle", max_context=256, target="ane")
    tokens = llm.generate("bundle", prompt_ids, max_new_tokens=32)

Apple's Neural Engine authoring rules (apple/coreai-models,
`skills/skills/model-authoring/references/neural_engine_rules.md`, "KV
cache — readonly pattern", "Chunked prefill") ask for a model that holds no
runtime state and writes no cache: each call receives the whole past cache,
attends over it and the new keys and values, and returns the new keys and
values; the caller writes them into its cache. Static shapes: one function
per query length. This module builds that form around the model as
`transformers` defines it (a Cache whose layers concatenate instead of
write), so nothing is re-authored:

    gather_embeddings_{q}(input_ids: [1, q]) -> transformer_input [1, q, 1, hidden]
    extend_{M}_{q}(transformer_input: [1, q, 1, hidden], position_ids: [1, q],
                   causal_mask: [1, M + q, 1, q],
                   key_cache, value_cache: [n_layers, 1, n_kv_heads * head_dim, 1, M])
        -> logits [1, q, vocab], new_keys, new_values: [n_layers, 1, n_kv_heads * head_dim, 1, q]
    prompt_opt_{M}_{q}(the same inputs) -> new_keys, new_values     (q > 1)

for each cache length `M` of the ladder (Apple's static cache-length
ladder: 256, 512, ... doubling below `max_context`, then `max_context`;
`cache_lengths=` sets it). A call at offset `t` runs the smallest `M >= t`:
it reads the first `M` slots of the caller's cache, so a short
conversation attends over a short cache. The keys past `t` are hidden by
the mask whatever `M` is, so every length computes the same values.

`prompt_opt` is Apple's prefill-mode entry point: a chunk of the prompt
whose logits nobody reads (every chunk but the last) fills the cache
without the model's head. It is the same model with only the new keys and
values as outputs; the compiler drops what no output needs (the final
norm and the vocabulary-wide product), and the bundle stores each shared
weight once.

The embedding is its own function, as in Apple's iOS export: the model's
own input embedding module (a Gemma's scaled one included), whose result
`extend` takes as the model's `inputs_embeds` (transformers' contract:
exactly what the model computes from `input_ids`), in Apple's
(1, q, 1, hidden) layout.

with `rope_cos`, `rope_sin` inputs (1, head_dim, 1, q) after the caches
when the model has RoPE: the rows of its own cos/sin at the call's
positions, tabulated at conversion (`rope.npz` in the bundle, one pair per
RoPE module), as Apple's rules pass them. `M` is `max_context`, `q` each of
`query_lengths` (default 1 for decode
and 8 for chunked prefill). The cache layout is Apple's (sequence on dim
4); the keys are cached after RoPE, as the rules require. The mask is
the combined past/new mask of Apple's rules: a past key `k` is visible
when `k < t` (t the call's offset; the rules' `k < t + j` would show a
chunk's queries unwritten slots), a new key `m` to query `j` when `m <= j`,
and a hidden key gets -1e4 (finite: no -inf on the Neural Engine). With `--io f16`
(the Neural Engine's default) the function takes f16 masks and caches and
si16 token ids when the vocabulary has at most 32767 rows.

Sliding-window layers (Mistral, Gemma 2 and 3) take a second mask input,
`sliding_mask`, the same mask with keys `window` or more positions behind
the query hidden: one tensor when every layer slides, the
`{"full_attention", "sliding_attention"}` mapping transformers' own models
accept when they mix. A RoPE module with a table per layer type (Gemma 3)
gets one table pair per type (`rope_cos_0`, `rope_sin_0`, ...).

Attention's products run one head at a time, as Apple's SDPA does
(`target-ane`'s `matmul-per-head`, docs/targets.md). Not yet: Apple's
`load_embeddings` function (the table as an output, for a runner that
shares it between functions through an IOSurface). (The separately compressed int8 embedding is
`convert_causal_lm(..., embedding_compress="int8")`.)
"""

import inspect

import numpy as np
import torch

from .exporting import ExportFailure

MASKED = -1e4  # Apple's finite "minus infinity" for the Neural Engine mask
KEY_CACHE = "key_cache"
VALUE_CACHE = "value_cache"
NEW_KEYS = "new_keys"
NEW_VALUES = "new_values"
SLIDING_MASK = "sliding_mask"
TRANSFORMER_INPUT = "transformer_input"


def _readonly_cache_class():
    from transformers.cache_utils import Cache, CacheLayerMixin

    class ReadOnlyLayer(CacheLayerMixin):
        """One decoder layer over the read-only past: `update` returns the
        past keys and values (all M positions; the mask hides the unwritten
        ones) followed by the call's, and records the call's for output."""

        is_compileable = False
        is_croppable = False
        is_sliding = False

        def __init__(self, cache, index):
            super().__init__()
            self.cache, self.index = cache, index
            self.is_initialized = True

        def lazy_initialization(self, key_states, value_states):
            pass

        def update(self, key_states, value_states, *args, **kwargs):
            c = self.cache
            c.new_keys[self.index] = key_states
            c.new_values[self.index] = value_states
            return (torch.cat([c.past(c.keys, self.index, key_states), key_states], dim=2),
                    torch.cat([c.past(c.values, self.index, value_states), value_states], dim=2))

        def get_mask_sizes(self, query_length):
            return self.cache.max_context + query_length, 0

        def get_seq_length(self):
            return self.cache.max_context

        def get_max_length(self):
            return self.cache.max_context

    class ReadOnlyCache(Cache):
        """The past keys and values `[n_layers, 1, H * D, 1, M]` (Apple's
        Neural Engine layout), read, never written."""

        def __init__(self, keys, values, heads):
            self.keys, self.values, self.heads = keys, values, heads
            self.max_context = keys.shape[4]
            n_layers = keys.shape[0]
            self.new_keys = [None] * n_layers
            self.new_values = [None] * n_layers
            super().__init__(layers=[ReadOnlyLayer(self, i) for i in range(n_layers)])

        def past(self, cache, index, like):
            """Layer `index` of `cache` as attention takes it: (1, H, M, D)."""
            layer = cache[index]  # [1, H * D, 1, M]
            head_dim = layer.shape[1] // self.heads
            return layer.reshape(1, self.heads, head_dim, self.max_context).transpose(2, 3).to(like.dtype)

        def stacked(self, new):
            """The call's keys or values of every layer, (1, H, q, D) each, in
            the cache layout [n_layers, 1, H * D, 1, q]."""
            out = []
            for states in new:
                _, heads, q, head_dim = states.shape
                out.append(states.transpose(2, 3).reshape(1, heads * head_dim, 1, q))
            return torch.stack(out)

    return ReadOnlyCache


def rotary_modules(model):
    """The model's RoPE modules (`...RotaryEmbedding`, called as
    `(x, position_ids)` or, with a table per layer type as Gemma 3's,
    `(x, position_ids, layer_type)`), in module order."""
    return [m for m in model.modules() if type(m).__name__.endswith("RotaryEmbedding")]


def rope_keys(model):
    """[(module index, layer type or None)]: one table per RoPE module and,
    for a module that takes a layer type, per layer type of the model."""
    config = getattr(model, "config", None)
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    layer_types = sorted(set(getattr(text, "layer_types", None) or []))
    keys = []
    for i, m in enumerate(rotary_modules(model)):
        takes_type = "layer_type" in inspect.signature(m.forward).parameters
        keys += [(i, t) for t in layer_types] if takes_type and layer_types else [(i, None)]
    return keys


def rope_tables(model, max_context):
    """[(cos, sin)] per `rope_keys` entry: the module's own output at
    positions 0 .. max_context-1, (max_context, head_dim) float32 each,
    computed by the module in PyTorch (its frequencies, scaling and
    attention factor)."""
    modules = rotary_modules(model)
    tables = []
    with torch.no_grad():
        for i, layer_type in rope_keys(model):
            extra = () if layer_type is None else (layer_type,)
            cos, sin = modules[i](torch.zeros(1, dtype=torch.float32), torch.arange(max_context)[None], *extra)
            tables.append((cos[0].float().numpy(), sin[0].float().numpy()))
    return tables


def rope_names(count):
    """The input names of `count` RoPE tables (cos, sin each)."""
    if count == 1:
        return ["rope_cos", "rope_sin"]
    return [n for i in range(count) for n in (f"rope_cos_{i}", f"rope_sin_{i}")]


def sliding_window(model, sliding):
    """The window of the model's sliding-window layers, or None."""
    if not any(sliding):
        return None
    config = getattr(model, "config", None)
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    window = getattr(text, "sliding_window", None)
    if not isinstance(window, int) or window < 1:
        layer = sliding.index(True)
        raise ExportFailure(f"{type(model).__name__}: layer {layer} is a sliding-window layer without an integer "
                            "config.sliding_window: the Neural Engine form cannot build its mask")
    return window


class GatherEmbeddings(torch.nn.Module):
    """forward(input_ids [1, q]) -> [1, q, 1, hidden]: the model's own input
    embedding (Apple's `gather_embeddings`), in the layout `extend` takes."""

    def __init__(self, model):
        super().__init__()
        self.embedding = model.get_input_embeddings()

    def forward(self, input_ids):
        x = self.embedding(input_ids)
        return x.reshape(x.shape[0], x.shape[1], 1, x.shape[2])


class ExtendStep(torch.nn.Module):
    """forward(transformer_input, position_ids, causal_mask, key_cache, value_cache,
    *rope) -> (logits, new_keys, new_values): one call of `model` over a
    read-only past (the Neural Engine's `extend`). `rope`: each RoPE
    module's cos and sin rows for the call, (1, head_dim, 1, q) as Apple's
    rules pass them; the module returns them instead of computing angles
    from `position_ids` (its own values, tabulated by `rope_tables`)."""

    def __init__(self, model, heads, cache_argument, sliding):
        super().__init__()
        self.model = model
        self.heads = heads
        self.cache_argument = cache_argument
        self.cache_class = _readonly_cache_class()
        self.rotary = rotary_modules(model)
        self.rope_keys = rope_keys(model)
        # The masks the layers take: one tensor when every layer is alike,
        # else the per-layer-type mapping transformers' own models accept.
        self.mask_kind = "sliding" if all(sliding) else ("mapping" if any(sliding) else "full")

    def forward(self, transformer_input, position_ids, causal_mask, key_cache, value_cache, *rest):
        cache = self.cache_class(key_cache, value_cache, self.heads)
        embeds = transformer_input.reshape(transformer_input.shape[0], transformer_input.shape[1], -1)
        # Apple's (1, M + q, 1, q) additive masks as attention takes them:
        # (1, 1, q, M + q).
        full = causal_mask.permute(0, 2, 3, 1)
        rope = rest
        if self.mask_kind != "full":
            sliding, rope = rest[0].permute(0, 2, 3, 1), rest[1:]
            mask = sliding if self.mask_kind == "sliding" else {"full_attention": full, "sliding_attention": sliding}
        else:
            mask = full
        tables = {key: (rope[2 * i], rope[2 * i + 1]) for i, key in enumerate(self.rope_keys)}
        saved = []
        for i, m in enumerate(self.rotary):

            def tabulated(x, position_ids, layer_type=None, index=i):
                cos, sin = tables[(index, layer_type if (index, layer_type) in tables else None)]
                return (cos[:, :, 0, :].transpose(1, 2).to(x.dtype), sin[:, :, 0, :].transpose(1, 2).to(x.dtype))

            saved.append((m, m.forward))
            m.forward = tabulated
        try:
            out = self.model(inputs_embeds=embeds, position_ids=position_ids, attention_mask=mask,
                             **{self.cache_argument: cache}, use_cache=True)
        finally:
            for m, forward in saved:
                m.forward = forward
        return out.logits, cache.stacked(cache.new_keys), cache.stacked(cache.new_values)


class PromptStep(torch.nn.Module):
    """forward(the inputs of ExtendStep) -> (new_keys, new_values): Apple's
    `prompt_opt`, a prefill chunk whose logits are not read."""

    def __init__(self, step):
        super().__init__()
        self.step = step

    def forward(self, *inputs):
        _, new_keys, new_values = self.step(*inputs)
        return new_keys, new_values


def causal_mask(offset, query_len, max_context, dtype=np.float16, window=None):
    """The combined read-only mask (1, M + q, 1, q) for a call at `offset`:
    past key k visible to every query when k < offset (the slots written so
    far), new key m to query j when m <= j; with a sliding `window`, only
    keys less than `window` positions behind the query (transformers'
    `kv_idx > q_idx - window`). Hidden keys get -1e4. Apple's rules write
    the past condition as `k < offset + j`, which also shows query j of a
    chunk the past cache's slots offset .. offset + j - 1: not written yet
    (zeros), they would take attention weight; those keys are the chunk's
    own, which the new part of the mask shows."""
    query = offset + np.arange(query_len)[None, :]
    past_pos = np.arange(max_context)[:, None]
    new_pos = offset + np.arange(query_len)[:, None]
    hidden_past = np.broadcast_to(past_pos >= offset, (max_context, query_len))
    hidden_new = new_pos > query
    if window is not None:
        hidden_past = hidden_past | (past_pos <= query - window)
        hidden_new = hidden_new | (new_pos <= query - window)
    hidden = np.concatenate([hidden_past, hidden_new], axis=0)
    return np.where(hidden, MASKED, 0.0).astype(dtype)[None, :, None, :]


def entry_name(max_context, query_len):
    return f"extend_{max_context}_{query_len}"


def prompt_name(max_context, query_len):
    return f"prompt_opt_{max_context}_{query_len}"


SMALLEST_CACHE = 256  # Apple's IOS_STATIC_MIN_CACHE_LEN
CACHE_INTERLEAVE = 8  # Apple's KV_CACHE_INTERLEAVE_FACTOR


def cache_constraints(kv_dim, max_context):
    """Apple's hardware constraints of the key and value caches
    (`BACKING:ALIGNMENTS:INTERLEAVE`, coreai-models'
    `export_hardware_constraints`): an IOSurface whose dim 2 (the `kv_dim`
    = heads x head_dim channels) is interleaved by 8 and whose dim 4 rows
    are aligned to 8 * max_context elements, whatever the function's cache
    length. None when 8 does not divide `kv_dim` (the interleave must)."""
    if kv_dim % CACHE_INTERLEAVE:
        return None
    f = CACHE_INTERLEAVE
    return f"IOSurface:1x1x1x1x{f * max_context}x1:1x1x{f}x1x1"


def cache_ladder(max_context, cache_lengths=None):
    """The cache lengths of the functions, ascending, `max_context` last:
    `cache_lengths` (with `max_context` added), or Apple's ladder, 256
    doubling while below `max_context`."""
    if cache_lengths is None:
        ladder, m = [], SMALLEST_CACHE
        while m < max_context:
            ladder.append(m)
            m *= 2
    else:
        ladder = [int(m) for m in cache_lengths]
        bad = [m for m in ladder if m < 1 or m > max_context]
        if bad:
            raise ExportFailure(f"cache_lengths={tuple(cache_lengths)!r}: {bad[0]} is not a cache length from 1 to "
                                f"max_context ({max_context})")
    return sorted(set(ladder) | {max_context})


def prompt_lengths(query_lengths):
    """The query lengths that get a `prompt_opt` function: every one but 1
    (a one-token chunk is a decode step, or a prompt's rare remainder)."""
    return [q for q in query_lengths if q > 1]


def gather_name(query_len):
    return f"gather_embeddings_{query_len}"


def programs(model, *, max_context, query_lengths, n_layers, heads, head_dim, cache_argument, sliding,
             cache_lengths=None):
    """([(entry name, ImportedProgram)], RoPE tables, sliding window): the
    model imported once per cache length and query length, every shape
    static."""
    from .convert import import_model

    window = sliding_window(model, sliding)
    step = ExtendStep(model, heads, cache_argument, sliding).eval()
    gather = GatherEmbeddings(model).eval()
    hidden = model.get_input_embeddings().weight.shape[1]
    tables = rope_tables(model, max_context)
    out = []
    for q in query_lengths:
        out.append((gather_name(q), import_model(gather, (torch.zeros(1, q, dtype=torch.long),), "none", None, (),
                                                 (["input_ids"], [TRANSFORMER_INPUT]))))
    for m in cache_ladder(max_context, cache_lengths):
        shape = (n_layers, 1, heads * head_dim, 1, m)
        for q in query_lengths:
            masks = [torch.from_numpy(causal_mask(0, q, m, np.float32))]
            mask_names = ["causal_mask"]
            if window is not None:
                masks.append(torch.from_numpy(causal_mask(0, q, m, np.float32, window)))
                mask_names.append(SLIDING_MASK)
            rope = [torch.from_numpy(rows(t, 0, q)) for pair in tables for t in pair]
            example = (torch.zeros(1, q, 1, hidden), torch.arange(q)[None], masks[0],
                       torch.zeros(shape), torch.zeros(shape), *masks[1:], *rope)
            names = ([TRANSFORMER_INPUT, "position_ids", "causal_mask", KEY_CACHE, VALUE_CACHE, *mask_names[1:],
                      *rope_names(len(tables))],
                     ["logits", NEW_KEYS, NEW_VALUES])
            out.append((entry_name(m, q), import_model(step, example, "none", None, (), names)))
            if q in prompt_lengths(query_lengths):
                out.append((prompt_name(m, q), import_model(PromptStep(step).eval(), example, "none", None, (),
                                                            (names[0], names[1][1:]))))
    return out, tables, window


def rows(table, offset, query_len):
    """Rows `offset .. offset + query_len` of a (max_context, head_dim)
    table as the (1, head_dim, 1, q) input (rows past the end repeat the
    last: a padded query's)."""
    index = np.minimum(offset + np.arange(query_len), table.shape[0] - 1)
    return np.ascontiguousarray(table[index].T[None, :, None, :])


class AneSession:
    """One conversation with a Neural Engine bundle: the host-side caches
    (f16, Apple's layout), chunked prefill with the largest query length,
    decode with the smallest, each call's new keys and values written at
    its offset. `call(entry, inputs) -> outputs` runs one function."""

    def __init__(self, meta, call, tables=()):
        lang = meta["language"]
        self.tables = list(tables)
        self.max_context = lang["max_context_length"]
        self.query_lengths = sorted(meta["neural_engine"]["query_lengths"])
        shape = meta["neural_engine"]["cache_shape"]
        self.dtype = np.dtype(meta["neural_engine"].get("cache_dtype", "float16"))
        self.window = meta["neural_engine"].get("sliding_window")
        self.prompt_lengths = set(meta["neural_engine"].get("prompt_lengths", ()))
        self.cache_lengths = sorted(meta["neural_engine"].get("cache_lengths", [self.max_context]))
        self.keys = np.zeros(shape, dtype=self.dtype)
        self.values = np.zeros(shape, dtype=self.dtype)
        self.call = call
        self.fed = []
        self.pending = []
        self.calls = []

    def step(self, tokens, last_only=False):
        """Feeds `tokens`; the logits [len, vocab] of each (float32), or with
        `last_only` of the last one [1, vocab]: then every chunk but the last
        runs `prompt_opt` where the bundle has one for its length."""
        if len(self.fed) + len(tokens) > self.max_context:
            raise ValueError(f"the conversation would hold {len(self.fed) + len(tokens)} positions; the bundle "
                             f"holds {self.max_context}")
        logits = []
        rest = list(tokens)
        while rest:
            # The largest query length the rest fills, else the smallest
            # one that holds it (padded: the padding's outputs are dropped).
            fits = [q for q in self.query_lengths if q <= len(rest)]
            q = max(fits) if fits else min(q for q in self.query_lengths if q >= len(rest))
            chunk, rest = rest[:q], rest[q:]
            n, t = len(chunk), len(self.fed)
            ids = chunk + [chunk[-1]] * (q - n)
            rope = {name: rows(table, t, q).astype(self.dtype)
                    for name, table in zip(rope_names(len(self.tables) // 2), self.tables)}
            embeds = self.call(gather_name(q), {"input_ids": np.asarray([ids], dtype=np.int64)})[TRANSFORMER_INPUT]
            prompt = last_only and rest and q in self.prompt_lengths
            # The shortest cache holding the t positions written so far.
            m = next(m for m in self.cache_lengths if m >= t)
            entry = (prompt_name if prompt else entry_name)(m, q)
            out = self.call(entry, {
                TRANSFORMER_INPUT: embeds,
                "position_ids": (t + np.arange(q, dtype=np.int64))[None],
                "causal_mask": causal_mask(t, q, m, self.dtype),
                KEY_CACHE: np.ascontiguousarray(self.keys[..., :m]),
                VALUE_CACHE: np.ascontiguousarray(self.values[..., :m]), **rope,
                **({SLIDING_MASK: causal_mask(t, q, m, self.dtype, self.window)}
                   if self.window is not None else {})})
            self.keys[..., t:t + n] = out[NEW_KEYS][..., :n]
            self.values[..., t:t + n] = out[NEW_VALUES][..., :n]
            self.fed += chunk
            self.calls.append((entry, n, t))
            if not prompt:
                logits.append(np.asarray(out["logits"], dtype=np.float32)[0, :n])
        logits = np.concatenate(logits, axis=0)
        return logits[-1:] if last_only else logits
