//===- ParamDialect.cpp - the param dialect (graph parameter declarations) ===//
//
// Kept apart from CoreAIDialect.cpp: each dialect's generated attribute
// parser/printer helpers must live in their own translation unit.
//
//===----------------------------------------------------------------------===//

#include "coreai/CoreAIDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

#include "coreai/ParamDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "coreai/ParamAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "coreai/ParamTypes.cpp.inc"

void coreai::param::ParamDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "coreai/ParamTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "coreai/ParamAttrs.cpp.inc"
      >();
}
