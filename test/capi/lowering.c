// A lowering written in C: registers `my_lib::twice.default` (x + x) in the
// program's own context, runs legalize-aten-to-coreai on a module that calls
// it, and checks the reserved-namespace refusal and a decline.
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

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

// my_lib::twice.default(%x) -> coreai.decomposable.broadcasting_add %x, %x
static bool twice(MlirOperation op, MlirValue *results, intptr_t numResults,
                  MlirStringCallback decline, void *declineUserData,
                  void *userData) {
  (void)userData;
  if (numResults != 1 || mlirOperationGetNumOperands(op) != 1) {
    decline(str("twice takes one operand and gives one result"), declineUserData);
    return false;
  }
  MlirValue x = mlirOperationGetOperand(op, 0);
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirOperationState state = mlirOperationStateGet(
      str("coreai.decomposable.broadcasting_add"), mlirOperationGetLocation(op));
  MlirValue operands[2] = {x, x};
  mlirOperationStateAddOperands(&state, 2, operands);
  mlirOperationStateAddResults(&state, 1, &type);
  MlirOperation add = mlirOperationCreate(&state);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, add);
  results[0] = mlirOperationGetResult(add, 0);
  return true;
}

static const char *kSource =
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = aten.operator \"my_lib::twice.default\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  %1 = aten.abs.default %0 : (tensor<4xf32>) -> tensor<4xf32>\n"
    "  return %1 : tensor<4xf32>\n"
    "}\n";

static const char *kTwoOperands =
    "func.func @bad(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = aten.operator \"my_lib::twice.default\"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
    "  return %0 : tensor<4xf32>\n"
    "}\n";

static int run(MlirContext ctx, const char *source) {
  MlirModule module = mlirModuleCreateParse(ctx, str(source));
  if (mlirModuleIsNull(module))
    return 2;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                        str("builtin.module(legalize-aten-to-coreai)"), print, NULL);
  MlirLogicalResult result = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  if (mlirLogicalResultIsSuccess(result)) {
    mlirOperationPrint(mlirModuleGetOperation(module), print, NULL);
    printf("\n");
  }
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return mlirLogicalResultIsSuccess(result) ? 0 : 1;
}

int main(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  coreaiRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  coreaiRegisterPasses();

  // A built-in lowering of a reserved namespace is refused without override.
  if (coreaiRegisterLowering(ctx, str("aten::abs.default"), false, twice, NULL, print, NULL))
    return 1;
  printf("\n");
  if (!coreaiRegisterLowering(ctx, str("my_lib::twice.default"), false, twice, NULL, print, NULL))
    return 1;
  printf("status %d\n", run(ctx, kSource));
  fflush(stdout);
  printf("status %d\n", run(ctx, kTwoOperands));
  coreaiForgetLowerings(ctx);
  mlirContextDestroy(ctx);
  return 0;
}

// CHECK:      'aten::abs.default' is already registered; pass allow_override = true to replace it
// CHECK:      coreai.graph @main(%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %[[T:.*]] = coreai.decomposable.broadcasting_add %[[X]], %[[X]]
// CHECK-NEXT:   %[[A:.*]] = coreai.abs %[[T]]
// CHECK-NEXT:   coreai.output %[[A]]
// CHECK:      status 0
// CHECK:      error: cannot lower 'my_lib::twice.default': twice takes one operand and gives one result
// CHECK:      status 1
