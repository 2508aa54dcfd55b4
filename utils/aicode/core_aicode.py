#!/usr/bin/env python3
"""coreai-core's aicode form of a coreai IR file: parses IN (coreai text) in
coreai-core's context, runs its `convert-to-versioned{target-version=20260409}`
(what save_asset runs) and prints the asset op in generic form, the oracle
for the aicode writer's decompositions (docs/aicode-format.md §1.1, §5).

    core_aicode.py IN.mlir [--locs]
"""
import sys
import warnings


def convert(text, locs=False):
    from coreai._compiler import ir
    from coreai._compiler.passmanager import PassManager
    from coreai.authoring.context import Context

    with Context() as c:
        m = ir.Module.parse(text, c._mlir_context)  # noqa: SLF001
        with c._mlir_context:  # noqa: SLF001
            PassManager.parse("builtin.module(convert-to-versioned{target-version=20260409})").run(m.operation)
        op = m.body.operations[0]
        return op.get_asm(print_generic_op_form=True, enable_debug_info=locs)


def main(argv):
    warnings.simplefilter("ignore")
    print(convert(open(argv[0]).read(), "--locs" in argv))


if __name__ == "__main__":
    main(sys.argv[1:])
