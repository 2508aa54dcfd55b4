"""The model zoo (test/zoo/models.py: transformers and timm architectures,
tiny random-weight configurations) through the default `convert()` call,
run in coreai-run and coreai-core's runtime against eager PyTorch, and
through coreai-torch 0.4.3 for comparison.

Cases per model (pipeline.py: one export per model, every asset compiled
from it; tolerances there):
- `test_asset_matches_eager[MODEL-VARIANT]`: the asset of `convert(model,
  inputs, path)` (f32), of `target="ane"`, `target="gpu"` and
  `precision="f16"`, in both runtimes.
- `test_dynamic_asset_matches_eager_at_each_size[MODEL]`: the model exported
  with a dynamic sequence length (three lengths) or a dynamic image side or
  audio length (two sizes), one asset run at each size, in both runtimes.
- `test_coreai_torch_asset_matches_eager[MODEL]`: coreai-torch's conversion
  (its export and decomposition table, `TorchConverter().to_coreai()`,
  `save_asset`), its asset run in coreai-core's runtime.

The default run (scripts/test.sh) has the four static variants of every
model (they share the model's one export: about 3 minutes with `-n auto` on
2 cores); `--zoo-full` (or COREAI_ZOO_FULL=1) adds the dynamic exports and
coreai-torch (one more export each: about 12 minutes in all).

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

# model -> the first error of the default convert(): every static variant fails with it.
NOT_CONVERTED = {
    'llama': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'qwen2': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'qwen3': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'mistral': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'gemma': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'gemma2': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.matmul.default, aten.new_ones.default, aten.where.ScalarOther, aten.zeros.default",
    'gemma3': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'phi3': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'olmo2': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'gpt2': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'gpt_neox': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'opt': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.ones.default",
    'bloom': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.baddbmm.default, aten.where.ScalarOther, aten.zeros.default",
    'falcon': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.matmul.default, aten.new_ones.default",
    'phi': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'stablelm': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.new_ones.default",
    'mamba': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.matmul.default, aten.zeros.default",
    'mixtral': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.empty_like.default, aten.new_ones.default",
    'qwen3_moe': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.diff.default, aten.empty_like.default, aten.new_ones.default",
    't5': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.min.other, aten.where.ScalarOther, aten.zeros.default, aten.zeros_like.default",
    'swin': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.adaptive_avg_pool1d.default",
    'mobilevit': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.matmul.default",
    'detr': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.new_ones.default, aten.ones.default, aten.zeros_like.default",
    'wav2vec2': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten._weight_norm.default",
    'timm_swin': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.matmul.default",
    'timm_edgenext': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.matmul.default, aten.zeros.default",
    'timm_efficientformerv2': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.matmul.default",
    'timm_levit': "convert: the 'coreai' table decomposes ops that have no decomposition here: aten.matmul.default",
    'timm_nfnet': 'convert: the module contains unsupported ops: aten._native_batch_norm_legit.no_stats',
}

# "MODEL-VARIANT" or "MODEL-dynamic" -> the case's failure ("STAGE: first error").
FAILS = {
    'mamba-dynamic': 'export: the model failed to export with torch.export: UserError: Constraints violated (seq0)!',
    'convnext-dynamic': "convert: cannot decompose 'aten.linear.default': a view to [1, -1, -1, 64] has more than one dynamic dimension",
    'segformer-dynamic': "convert: cannot lower 'aten::convolution.default': dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic",
    'timm_resnet18-dynamic': "convert: cannot lower 'aten::convolution.default': dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic",
    'timm_efficientnet-dynamic': "convert: cannot lower 'aten::convolution.default': dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic",
    'timm_mobilenetv3-dynamic': "convert: cannot lower 'aten::convolution.default': dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic",
    'timm_convnext-dynamic': "convert: cannot lower 'aten::convolution.default': dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic",
    'timm_regnet-dynamic': "convert: cannot lower 'aten::convolution.default': dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic",
    'timm_ghostnet-dynamic': "convert: cannot lower 'aten::convolution.default': dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic",
    'timm_densenet-dynamic': "convert: cannot lower 'aten::convolution.default': dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic",
    'timm_repvit-dynamic': "convert: cannot lower 'aten::convolution.default': dim 2 of the input (tensor<1x3x?x?xf32>) is dynamic",
    'timm_poolformer-dynamic': "convert: cannot decompose 'aten.group_norm.default': this decomposition needs a static shape, got the dynamic dim 0",
}

# model -> coreai-torch 0.4.3's failure on it ("STAGE: first error").
COREAI_TORCH = {
    'mixtral': 'convert: ValueError: The exported program contains unsupported ATen ops: aten.empty_permuted.default, aten.histc.default, aten.sort.default.',
    'qwen3_moe': 'convert: ValueError: The exported program contains unsupported ATen ops: aten.empty_permuted.default, aten.histc.default, aten.sort.default.',
    'swin': 'convert: ValueError: The exported program contains unsupported ATen ops: aten.as_strided.default.',
    'timm_convnext': 'convert: ValueError: The exported program contains unsupported ATen ops: aten.as_strided.default.',
    'timm_edgenext': 'convert: ValueError: The exported program contains unsupported ATen ops: aten.as_strided.default.',
    'timm_nfnet': 'convert: ValueError: The exported program contains unsupported ATen ops: aten._native_batch_norm_legit.no_stats.',
    'timm_poolformer': 'convert: ValueError: The exported program contains unsupported ATen ops: aten.as_strided.default.',
}

DEFAULT_VARIANTS = ["f32", "ane", "gpu", "f16"]
ALL_VARIANTS = list(pipeline.VARIANTS)
DYNAMIC = [n for n in models.MODELS if models.build_info(n).dynamic is not None]


FULL_ONLY = [pytest.mark.zoo_full]


def pytest_generate_tests(metafunc):
    """The cases; those outside the default run carry the zoo_full marker
    (conftest.py deselects them without --zoo-full)."""
    if metafunc.function is test_asset_matches_eager:
        cases = [pytest.param(n, v, id=f"{n}-{v}", marks=[] if v in DEFAULT_VARIANTS else FULL_ONLY)
                 for n in models.MODELS for v in ALL_VARIANTS]
        metafunc.parametrize("name,variant", cases)
    elif metafunc.function is test_dynamic_asset_matches_eager_at_each_size:
        metafunc.parametrize("name", [pytest.param(n, marks=FULL_ONLY) for n in DYNAMIC])
    elif metafunc.function is test_coreai_torch_asset_matches_eager:
        metafunc.parametrize("name", [pytest.param(n, marks=FULL_ONLY) for n in models.MODELS])


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
            outcome = pipeline.check_runs(asset, imported.program.arg_names, imported.runs,
                                          pipeline.VARIANTS[variant][1], tmp_path)
    record(name, variant, outcome)
    key = f"{name}-{variant}"
    expected = FAILS.get(key, NOT_CONVERTED.get(name))
    expect(outcome, expected, key, "FAILS" if key in FAILS else "NOT_CONVERTED")


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
            outcome = pipeline.check_runs(asset, imported.program.arg_names, imported.runs, pipeline.report.ATOL,
                                          tmp_path)
    record(name, "dynamic", outcome, sizes=models.build_info(name).dynamic.what)
    key = f"{name}-dynamic"
    expect(outcome, FAILS.get(key, NOT_CONVERTED.get(name)), key, "FAILS" if key in FAILS else "NOT_CONVERTED")


def test_coreai_torch_asset_matches_eager(name, shared_dir, tmp_path, record):
    converted = pipeline.shared(shared_dir, f"{name}.coreai-torch",
                                lambda: pipeline.convert_coreai_torch(name, shared_dir))
    if converted.error:
        outcome = pipeline.Outcome("convert", message=converted.error)
    else:
        outcome = pipeline.check_runs(converted.asset, converted.input_names, converted.runs,
                                      pipeline.report.ATOL, tmp_path, runtimes=("coreai-core",),
                                      dtypes=converted.input_dtypes)
    record(name, "coreai-torch", outcome)
    expect(outcome, COREAI_TORCH.get(name), f"{name} (coreai-torch)", "COREAI_TORCH")
