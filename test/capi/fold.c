// A C program runs core-optimize through the library on a module with a
// foldable weight: the weight is folded with the executor's kernels, as in
// coreai-opt (no tool installs anything first), and the output is
// byte-identical to coreai-opt's.
//
// RUN: %cc %s -I%repo/dialects/include -I%llvm_include -o %t %build/libcoreai_capi.a %llvm_link_flags
// RUN: %t %S/Inputs/foldable-weight.mlir > %t.library.mlir
// RUN: coreai-opt %S/Inputs/foldable-weight.mlir --pass-pipeline='builtin.module(core-optimize)' > %t.tool.mlir
// RUN: diff %t.tool.mlir %t.library.mlir
// RUN: FileCheck %s < %t.library.mlir

#include "coreai-c/CoreAI.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>

static void print(MlirStringRef s, void *user) {
  (void)user;
  fwrite(s.data, 1, s.length, stdout);
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text)
    text[size] = '\0';
  fclose(f);
  return text;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE.mlir\n", argv[0]);
    return 2;
  }
  char *source = read_file(argv[1]);
  if (!source) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  coreaiRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  coreaiRegisterPasses();

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  free(source);
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    return 1;
  }
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString("builtin.module(core-optimize)"), print,
      NULL);
  if (mlirLogicalResultIsFailure(parsed) ||
      mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    fprintf(stderr, "pipeline failed\n");
    return 1;
  }
  mlirOperationPrint(mlirModuleGetOperation(module), print, NULL);
  printf("\n");

  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}

// The weight times 0.5, transposed: exact in f32.
// CHECK:      coreai.graph @main(%[[X:.*]]: tensor<3x2xf32>
// CHECK-NEXT:   %[[W:.*]] = coreai.constant dense<{{\[\[}}5.000000e-01, 1.500000e+00], [-1.000000e+00, 1.250000e-01], [2.500000e-01, -5.000000e-01]]> : tensor<3x2xf32>
// CHECK-NEXT:   %[[Y:.*]] = coreai.add %[[X]], %[[W]]
// CHECK-NEXT:   coreai.output %[[Y]]
