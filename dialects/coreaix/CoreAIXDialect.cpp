//===- CoreAIXDialect.cpp - the coreaix dialect ---------------------------===//

#include "coreaix/CoreAIXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace coreai::corex;

#include "coreaix/CoreAIXOpsDialect.cpp.inc"

void CoreAIXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "coreaix/CoreAIXOps.cpp.inc"
      >();
}

LogicalResult ViewOp::verify() {
  if (getSource().getType().getElementType() !=
      getResult().getType().getElementType())
    return emitOpError("cannot change the element type (")
           << getSource().getType().getElementType() << " to "
           << getResult().getType().getElementType()
           << "); use coreaix.cast";
  return success();
}

#define GET_OP_CLASSES
#include "coreaix/CoreAIXOps.cpp.inc"
