// A C program compiles a module with coreaiCompile, the library's whole
// pipeline and backend in memory: the program it gets is byte for byte the
// main.mlirb coreai-compile writes, at each target.
//
// RUN: %cc %s -I%repo/dialects/include -I%llvm_include -o %t %build/libcoreai_capi.a %llvm_link_flags
// RUN: %t %S/Inputs/foldable-weight.mlir cpu %t.cpu.mlirb
// RUN: rm -rf %t.cpu.aimodel && coreai-compile %S/Inputs/foldable-weight.mlir -o %t.cpu.aimodel
// RUN: cmp %t.cpu.mlirb %t.cpu.aimodel/main.mlirb
// RUN: %t %S/Inputs/foldable-weight.mlir ane %t.ane.mlirb
// RUN: rm -rf %t.ane.aimodel && coreai-compile %S/Inputs/foldable-weight.mlir --target ane -o %t.ane.aimodel
// RUN: cmp %t.ane.mlirb %t.ane.aimodel/main.mlirb
// RUN: not %t %S/Inputs/foldable-weight.mlir tpu %t.bad.mlirb 2>&1 | FileCheck %s --check-prefix=BAD

#include "coreai-c/CoreAI.h"

#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static void write_piece(MlirStringRef s, void *user) {
  fwrite(s.data, 1, s.length, (FILE *)user);
}

static void print_error(MlirStringRef s, void *user) {
  (void)user;
  fprintf(stderr, "error: %.*s\n", (int)s.length, s.data);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s FILE.mlir cpu|gpu|ane|... OUT.mlirb\n", argv[0]);
    return 2;
  }
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  coreaiRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);

  MlirModule module =
      coreaiParseModuleFile(ctx, mlirStringRefCreateFromCString(argv[1]));
  if (mlirModuleIsNull(module))
    return 1;
  CoreaiCompileOptions options = {
      .target = strcmp(argv[2], "cpu") == 0   ? COREAI_TARGET_CPU
                : strcmp(argv[2], "gpu") == 0 ? COREAI_TARGET_GPU
                : strcmp(argv[2], "ane") == 0 ? COREAI_TARGET_ANE
                                              : 7,
      .precision = COREAI_PRECISION_DEFAULT,
      .format = COREAI_FORMAT_AICODE,
      .explain = false,
      .hwConstraints = mlirStringRefCreateFromCString(""),
  };
  FILE *out = fopen(argv[3], "wb");
  if (!out)
    return 1;
  bool ok = coreaiCompile(module, &options, write_piece, out, print_error, NULL);
  fclose(out);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return ok ? 0 : 1;
}

// BAD: error: target 7 is not a COREAI_TARGET_* value
