"""The model zoo (test/zoo/models.py: transformers and timm architectures,
tiny random-weight configurations) through the default `convert()` call,
run in coreai-run and coreai-core's runtime against eager PyTorch, and
through coreai-torch 0.4.3 for comparison.

Cases per model (pipeline.py: one export per model, every asset compiled
from it; tolerances there):
- `test_asset_matches_eager[MODEL-VARIANT]`: the asset of `convert(model,
  inputs, path)` (f32), of `target="ane"` (f16 and si16 inputs; coreai-run
  with `--simulate-fp16=ane`), `target="gpu"` and `precision="f16"`, in both
  runtimes.
- `test_dynamic_asset_matches_eager_at_each_size[MODEL]`: the model exported
  with a dynamic sequence length (three lengths) or a dynamic image side or
  audio length (two sizes), one asset run at each size, in both runtimes.
- `test_coreai_torch_asset_matches_eager[MODEL]`: coreai-torch's conversion
  (its export and decomposition table, `TorchConverter().to_coreai()`,
  `save_asset`), its asset run in coreai-core's runtime.

All 303 cases take about 3 min with `-n auto` on 2 cores (170 s as `make
test`'s step; the four static variants share one export per model).

The lists below say what does not work today, each with its first error: a
case outside them must convert and match, a case in them must still fail
with that error (remove it when it passes). NOT_CONVERTED applies to every
case of our compiler for a model (its static variants and its dynamic
export); FAILS to one case (`MODEL-VARIANT`, `MODEL-dynamic`) and takes
precedence; COREAI_TORCH records coreai-torch's own failures the same way.
"""

import pytest

import models
import pipeline

# model -> the first error of the default convert(): every case of our
# compiler for the model (static variants, dynamic export) fails with it.
NOT_CONVERTED = {
}

# "MODEL-VARIANT" or "MODEL-dynamic" -> the case's failure ("STAGE: first error").
FAILS = {
    # The Mamba scan loops over the sequence in Python: torch.export specializes its length.
    "mamba-dynamic": "export: the model failed to export with torch.export: UserError: Constraints violated (seq0)!",
    # torch's run_decompositions specializes the image side (the export keeps it): refused, not an asset
    # that takes 64 px only.
    "mobilevit-dynamic": "export: run_decompositions('none') specialized dynamic dims: x dim 2 (32*s39) became 64",
}

# model -> coreai-torch 0.4.3's failure on it ("STAGE: first error").
# as_strided: torch's decomposition of adaptive_avg_pool2d/1d to 1x1 on a
# channels-last input (coreai-torch uses torch's table; our default import
# keeps adaptive_avg_pool).
UNSUPPORTED = "convert: ValueError: The exported program contains unsupported ATen ops: "
COREAI_TORCH = {
    "mixtral": UNSUPPORTED + "aten.empty_permuted.default, aten.histc.default, aten.sort.default.",
    "qwen3_moe": UNSUPPORTED + "aten.empty_permuted.default, aten.histc.default, aten.sort.default.",
    "swin": UNSUPPORTED + "aten.as_strided.default.",
    "timm_convnext": UNSUPPORTED + "aten.as_strided.default.",
    "timm_edgenext": UNSUPPORTED + "aten.as_strided.default.",
    "timm_poolformer": UNSUPPORTED + "aten.as_strided.default.",
    "timm_nfnet": UNSUPPORTED + "aten._native_batch_norm_legit.no_stats.",
}

DYNAMIC = [n for n in models.MODELS if models.build_info(n).dynamic is not None]
STATIC = [pytest.param(n, v, id=f"{n}-{v}") for n in models.MODELS for v in pipeline.VARIANTS]


def expect(outcome, expected, case, listing):
    """The case passes, or fails as its entry in `listing` says."""
    if expected is None:
        assert outcome.ok, f"{case}: {outcome.summary()}"
        return
    assert not outcome.ok, f"{case} converts and matches now: remove it from {listing}"
    assert expected in outcome.summary(), f"{case} fails differently than {listing} says: {outcome.summary()}"


def test_the_lists_name_zoo_models():
    names = set(models.MODELS)
    assert set(NOT_CONVERTED) <= names and set(COREAI_TORCH) <= names
    for key in FAILS:
        name, _, case = key.rpartition("-")
        assert name in names and case in [*pipeline.VARIANTS, "dynamic"], key
    assert all(f"{n}-dynamic" not in FAILS for n in names if n not in DYNAMIC)


def test_the_zoo_has_its_architectures():
    sources = [models.build_info(n).source for n in models.MODELS]
    assert sources.count("transformers") >= 30 and sources.count("timm") >= 15


@pytest.mark.parametrize("name,variant", STATIC)
def test_asset_matches_eager(name, variant, shared_dir, tmp_path, record):
    imported = pipeline.shared(shared_dir, f"{name}.static", lambda: pipeline.import_static(name))
    assert pipeline.varying(imported.runs[0][1]), f"{name}: eager PyTorch's outputs are constant"
    if imported.error:
        outcome = pipeline.Outcome("export", message=imported.error)
    else:
        asset = tmp_path / f"{name}.{variant}.aimodel"
        error = pipeline.compile_variant(imported.program, asset, variant)
        if error:
            outcome = pipeline.Outcome("convert", message=error)
        else:
            # The Neural Engine's asset takes f16 and si16 inputs (`--io f16`, its
            # default) and runs in coreai-run with `--simulate-fp16=ane`.
            outcome = pipeline.check_runs(asset, imported.program.arg_names, imported.program.result_names,
                                          imported.runs, pipeline.VARIANTS[variant][1], tmp_path,
                                          neural_engine=variant == "ane")
    record(name, variant, outcome)
    key = f"{name}-{variant}"
    expected = FAILS.get(key, NOT_CONVERTED.get(name))
    expect(outcome, expected, key, "FAILS" if key in FAILS else "NOT_CONVERTED")


@pytest.mark.parametrize("name", DYNAMIC)
def test_dynamic_asset_matches_eager_at_each_size(name, shared_dir, tmp_path, record):
    imported = pipeline.shared(shared_dir, f"{name}.dynamic", lambda: pipeline.import_dynamic(name))
    if imported.error:
        outcome = pipeline.Outcome("export", message=imported.error)
    else:
        asset = tmp_path / f"{name}.dynamic.aimodel"
        error = pipeline.compile_variant(imported.program, asset, "f32")
        if error:
            outcome = pipeline.Outcome("convert", message=error)
        else:
            outcome = pipeline.check_runs(asset, imported.program.arg_names, imported.program.result_names,
                                          imported.runs, pipeline.report.ATOL, tmp_path)
    record(name, "dynamic", outcome, sizes=models.build_info(name).dynamic.what)
    key = f"{name}-dynamic"
    expect(outcome, FAILS.get(key, NOT_CONVERTED.get(name)), key, "FAILS" if key in FAILS else "NOT_CONVERTED")


@pytest.mark.parametrize("name", list(models.MODELS))
def test_coreai_torch_asset_matches_eager(name, shared_dir, tmp_path, record):
    converted = pipeline.shared(shared_dir, f"{name}.coreai-torch",
                                lambda: pipeline.convert_coreai_torch(name, shared_dir))
    if converted.error:
        outcome = pipeline.Outcome("convert", message=converted.error)
    else:
        outcome = pipeline.check_runs(converted.asset, converted.input_names, converted.output_names, converted.runs,
                                      pipeline.report.ATOL, tmp_path, runtimes=("coreai-core",),
                                      dtypes=converted.input_dtypes)
    record(name, "coreai-torch", outcome)
    expect(outcome, COREAI_TORCH.get(name), f"{name} (coreai-torch)", "COREAI_TORCH")


@pytest.mark.parametrize("name", ["mixtral", "qwen3_moe"])
def test_the_neural_engine_exports_transformers_batched_experts(name):
    """convert(target="ane") exports transformers' MoE layers in their
    `batched_mm` form (no sort, histc or scatter: int16 ids and f16 data)
    and puts the model's own form back; other targets keep it. The `ane`
    variant of test_asset_matches_eager checks the numbers."""
    import torch
    from coreai_export.exporting import experts_for_target

    model, inputs, _ = models.build(name)
    inner = model.model
    before = inner.get_experts_implementation()

    def ops(target):
        with experts_for_target(model, target):
            inside = inner.get_experts_implementation()
            graph = torch.export.export(model, inputs).graph
        return inside, {str(n.target) for n in graph.nodes if n.op == "call_function"}

    inside, ane_ops = ops("ane")
    assert inside[""] == "batched_mm" != before[""]
    assert inner.get_experts_implementation() == before
    assert not {"aten.histc.default", "aten.sort.default"} & ane_ops
    inside, gpu_ops = ops("gpu")
    assert inside == before and "aten.histc.default" in gpu_ops
