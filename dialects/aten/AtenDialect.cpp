//===- AtenDialect.cpp - the aten dialect ---------------------------------===//

#include "aten/AtenDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace coreai::aten;

#include "aten/AtenOpsDialect.cpp.inc"

void AtenDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "aten/AtenOps.cpp.inc"
      >();
}

LogicalResult MeanDimOp::verify() {
  int64_t rank = getSelfArg().getType().getRank();
  if (std::optional<ArrayAttr> dims = getDim()) {
    for (Attribute attr : *dims) {
      int64_t d = cast<IntegerAttr>(attr).getInt();
      if (d < -std::max<int64_t>(rank, 1) || d >= std::max<int64_t>(rank, 1))
        return emitOpError("dim ")
               << d << " is out of range for a tensor of rank " << rank;
    }
  }
  return success();
}

LogicalResult OperatorOp::verify() {
  StringRef name = getName();
  size_t sep = name.find("::");
  if (sep == StringRef::npos || sep == 0 || sep + 2 == name.size())
    return emitOpError("name '")
           << name << "' must be a qualified overload 'namespace::name.overload'";
  return success();
}

#define GET_OP_CLASSES
#include "aten/AtenOps.cpp.inc"
