"""One conversation with an LLM bundle through coreai_export.llm.Session,
recorded for the tests: `record(bundle, runtime, coreai_run, turns)`.

`turns` is a list of turns, each `{"generate": PROMPT, "n": N}` (greedy)
or `{"follow": PROMPT, "continuation": TOKENS}` (teacher-forced). The
record holds, per turn k, `tokens_k` (the chosen tokens) and every call's
logits in order (`logits_k_j`, [fed positions, vocab]; a Neural Engine
bundle's prompt call gives its last position's only, the other chunks
running `prompt_opt`), `calls` (new tokens, positions) of each call, and
for a Neural Engine bundle `functions`, the function each call ran. With runtime "coreai-core" the tests
run it in the oracle's worker (`oracle.llm_session`), where a death of
coreai-core's runtime is rerun like every oracle call."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "importer"))


def record(bundle, runtime, coreai_run, turns):
    from coreai_export import llm

    out = {}
    with llm.Session(bundle, runtime, coreai_run) as session:
        step = session.step
        for k, turn in enumerate(turns):
            logits = []

            def recording(tokens, logits=logits, **kw):
                result = step(tokens, **kw)
                logits.append(result)
                return result

            session.step = recording
            if "generate" in turn:
                tokens = session.generate(turn["generate"], turn["n"])
            else:
                tokens = session.follow(turn["follow"], turn["continuation"])
            out[f"tokens_{k}"] = np.asarray(tokens, dtype=np.int64)
            for j, l in enumerate(logits):
                out[f"logits_{k}_{j}"] = l
        out["calls"] = np.asarray(session.calls, dtype=np.int64)
        if session._ane is not None:
            out["functions"] = np.asarray([entry for entry, _, _ in session._ane.calls])
    return out
