"""The three decomposition settings of the importer.

`coreai` is coreai-torch 0.4.3's `get_decomp_table()`: torch.export's
default decompositions minus the twelve composites it lowers whole
(coreai_torch/_decomp.py `_COMPOSITE_OPS`). The list is repeated here so
that importing a model does not need coreai-torch; test/e2e checks it
against the installed coreai-torch.
"""

import torch

# coreai_torch/_decomp.py `_COMPOSITE_OPS`, in its order.
PRESERVED_OPS = (
    "hardsigmoid.default",
    "hardswish.default",
    "instance_norm.default",
    "pixel_shuffle.default",
    "reflection_pad1d.default",
    "reflection_pad2d.default",
    "reflection_pad3d.default",
    "replication_pad1d.default",
    "replication_pad2d.default",
    "replication_pad3d.default",
    "scaled_dot_product_attention.default",
    "silu.default",
)

SETTINGS = ("coreai", "default", "none")


def decomposition_table(setting: str) -> dict:
    """The table `ExportedProgram.run_decompositions` gets for `setting`."""
    if setting == "none":
        return {}
    table = torch.export.default_decompositions()
    if setting == "default":
        return table
    if setting != "coreai":
        raise ValueError(f"unknown decomposition setting {setting!r}; use one of {', '.join(SETTINGS)}")
    for key in PRESERVED_OPS:
        name, overload = key.split(".")
        table.pop(getattr(getattr(torch.ops.aten, name), overload), None)
    return table
