"""coreai-opt and coreai-core 1.0.0b3 accept and reject the same operand and
result types, op by op, slot by slot.

For every coreai op, every operand/result slot and every element type of the
probe palette (utils/coreai-ods/probe_element_types.py; the slot's other
operands hold types coreai-core accepts, recorded in element_types.json), the
op is written in generic form and given to both tools. The decision compared
is whether the tool reports "operand #i must be ..." / "result #i must be
..." for the probed slot (other verifiers, e.g. shape inference, differ and
are not compared here). coreai-opt reads all cases in one --split-input-file
run; each case's op carries loc("caseN") so its diagnostics are attributed.

Also checks that element_types.json matches what coreai-core does today
(the data the ODS constraints are generated from is not stale).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPT = os.path.join(os.environ.get("COREAI_BUILD_DIR", os.path.join(REPO, "target", "debug")), "coreai-opt")
sys.path.insert(0, os.path.join(REPO, "utils", "coreai-ods"))

import probe_element_types as probe  # noqa: E402

# Ops where coreai-opt decides differently on purpose, with the reason.
KNOWN_DIFFERENCES = {}

DATA = json.load(open(os.path.join(REPO, "utils", "coreai-ods", "element_types.json")))["ops"]
PREFERRED = ("f32", "si32", "ui32", "i1", "ui8")


def baseline(rec):
    """A type coreai-core accepts for each slot (operands then results)."""
    types = []
    for e in rec["operands"] + rec["results"]:
        if e["shape"] is not None and e["accepted"]:
            pref = [t for t in PREFERRED if t in e["accepted"]] or e["accepted"]
            types.append(probe.tensor(pref[0], (e["shape"], e["encoding"])))
        elif e["non_tensor"]:
            types.append(e["non_tensor"])
        else:
            types.append(probe.tensor("f32"))
    return types


def cases():
    """(op name, slot index, slot name, probed type, op info, types)"""
    for f in ("_coreai_ops_gen.py", "_coreaix_ops_gen.py"):
        for op in probe.ops_from_bindings(os.path.join(probe.bindings_dir(), f)):
            rec = DATA[op["name"]]
            entries = rec["operands"] + rec["results"]
            base = baseline(rec)
            for s, e in enumerate(entries):
                if e["shape"] is None:
                    continue
                for el in probe.PALETTE:
                    types = list(base)
                    types[s] = probe.tensor(el, (e["shape"], e["encoding"]))
                    yield op["name"], s, e["name"], types[s], op, types


def slot_rejected(err, slot, n_in):
    if err is None:
        return False
    what = f"operand #{slot}" if slot < n_in else f"result #{slot - n_in}"
    return re.search(rf"{what} must be .*, but got '", err) is not None


def run_opt(texts):
    """coreai-opt's diagnostics per case index (missing: accepted)."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as fh:
        fh.write("\n// -----\n".join(texts))
        path = fh.name
    r = subprocess.run([OPT, path, "--split-input-file", "-o", os.devnull], capture_output=True, text=True)
    os.unlink(path)
    errors = {}
    for line in r.stderr.splitlines():
        m = re.search(r'case(\d+)', line)
        if m and "error" in line:
            errors.setdefault(int(m.group(1)), line)
    return errors


SHARDS = 4


@pytest.mark.parametrize("shard", range(SHARDS))
def test_same_type_decisions(shard):
    """Every SHARDS-th case from `shard`, so the suite's workers share the
    cases."""
    check_cases(list(cases())[shard::SHARDS])


def check_cases(all_cases):
    texts = [probe.build_case(op, types, f"case{i}") for i, (_, _, _, _, op, types) in enumerate(all_cases)]
    ours = run_opt(texts)
    mismatches = []
    with probe.Core() as core:
        for i, (name, s, slot, ty, op, types) in enumerate(all_cases):
            n_in = len(op["operands"])
            theirs = slot_rejected(core.check(texts[i]), s, n_in)
            mine = slot_rejected(ours.get(i), s, n_in)
            if theirs != mine and name not in KNOWN_DIFFERENCES:
                mismatches.append(f"{name} {slot} {ty}: coreai-core {'rejects' if theirs else 'accepts'}, "
                                  f"coreai-opt {'rejects' if mine else 'accepts'} ({ours.get(i, 'no error')[:200]})")
    print(f"{len(all_cases)} cases, {len(mismatches)} mismatches")
    assert not mismatches, "\n".join(mismatches[:60]) + f"\n... {len(mismatches)} in all"


if __name__ == "__main__":
    try:
        check_cases(list(cases()))
        print("element-type parity: PASS")
    except AssertionError as e:
        print(f"element-type parity: FAIL\n{e}")
        sys.exit(1)
