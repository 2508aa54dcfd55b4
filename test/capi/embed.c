// A C program that uses coreai from its own MLIR context: registers the
// dialects and passes, parses a coreai graph, runs a pipeline that mixes a
// coreai pass with upstream passes, and prints the result.
//
// RUN: %cc %s -I%repo/dialects/include -I%llvm_include -o %t %build/libcoreai_capi.a %llvm_link_flags
// RUN: %t 2>&1 | FileCheck %s

#include "coreai-c/CoreAI.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <string.h>

static void print(MlirStringRef s, void *user) {
  (void)user;
  fwrite(s.data, 1, s.length, stdout);
}

static const char *kSource =
    "coreai.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = coreai.abs %x : tensor<4xf32> -> tensor<4xf32>\n"
    "  %1 = coreai.abs %0 : tensor<4xf32> -> tensor<4xf32>\n"
    "  coreai.output %1 : tensor<4xf32>\n"
    "}\n";

int main(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  coreaiRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  coreaiRegisterPasses();

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kSource));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    return 1;
  }

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(
          "builtin.module(coreai.graph(fold-idempotent-unary),canonicalize,cse)"),
      print, NULL);
  if (mlirLogicalResultIsFailure(parsed)) {
    fprintf(stderr, "\npipeline parse failed\n");
    return 1;
  }
  if (mlirLogicalResultIsFailure(
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

// CHECK:      coreai.graph @main(%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %[[A:.*]] = coreai.abs %[[X]]
// CHECK-NEXT:   coreai.output %[[A]]
