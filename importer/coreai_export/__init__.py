"""torch.export -> aten-dialect MLIR.

`python -m coreai_export --help` for the command line; from Python:

    from coreai_export import export_module, import_program
    ep = export_module(model, example_inputs, decompositions="coreai")
    text = import_program(ep).text

    from coreai_export import convert   # nn.Module -> .aimodel (coreai-compile)
    convert(model, example_inputs, "m.aimodel")
"""

from .convert import CompileFailure, convert
from .decompositions import PRESERVED_OPS, decomposition_table
from .exporting import ExportFailure, export_module
from .importer import ImportedProgram, import_program

__all__ = [
    "CompileFailure",
    "convert",
    "PRESERVED_OPS",
    "ExportFailure",
    "ImportedProgram",
    "decomposition_table",
    "export_module",
    "import_program",
]
