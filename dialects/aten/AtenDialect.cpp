//===- AtenDialect.cpp - the aten dialect ---------------------------------===//
//
// The dialect and the hand-written verifiers. The generated op definitions
// are compiled in the shards AtenOps.<i>.cpp (see CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "aten/AtenDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace coreai::aten;

#include "aten/AtenOpsDialect.cpp.inc"

void AtenDialect::initialize() { registerAtenDialectOperations(this); }

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

/// Checks that `region`'s block takes `argTypes` and that its terminator
/// yields `yieldTypes` (when given).
static LogicalResult verifyRegion(Operation *op, Region &region, StringRef what,
                                  TypeRange argTypes,
                                  std::optional<TypeRange> yieldTypes) {
  Block &block = region.front();
  if (block.getArgumentTypes() != argTypes)
    return op->emitOpError() << what << " takes " << block.getNumArguments()
                             << " arguments of types " << block.getArgumentTypes()
                             << ", expected " << argTypes.size() << " of types "
                             << argTypes;
  // The region's block may be empty or end in a non-terminator (the generic
  // form allows both): look at its last op, never at getTerminator().
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(&block.back());
  if (!yield)
    return op->emitOpError() << what << " must end with aten.yield";
  if (yieldTypes && yield.getValues().getTypes() != *yieldTypes)
    return op->emitOpError() << what << " yields " << yield.getValues().getTypes()
                             << ", expected " << *yieldTypes;
  return success();
}

LogicalResult CondOp::verify() {
  TypeRange inputs = getInputs().getTypes();
  TypeRange results = getResultTypes();
  if (failed(verifyRegion(*this, getTrueBranch(), "true_branch", inputs, results)) ||
      failed(verifyRegion(*this, getFalseBranch(), "false_branch", inputs, results)))
    return failure();
  if (auto t = dyn_cast<RankedTensorType>(getPred().getType()))
    if (t.getRank() != 0 || !t.getElementType().isInteger(1))
      return emitOpError("pred must be i1 or tensor<i1>, got ") << t;
  return success();
}

LogicalResult WhileLoopOp::verify() {
  SmallVector<Type> args(getCarriedInputs().getTypes());
  llvm::append_range(args, getAdditionalInputs().getTypes());
  TypeRange carried = getCarriedInputs().getTypes();
  if (getResultTypes() != carried)
    return emitOpError("results ") << getResultTypes()
                                   << " must have the carried inputs' types " << carried;
  if (failed(verifyRegion(*this, getCond(), "cond", args, std::nullopt)) ||
      failed(verifyRegion(*this, getBody(), "body", args, carried)))
    return failure();
  auto yield = cast<YieldOp>(getCond().front().getTerminator());
  if (yield.getValues().size() != 1)
    return emitOpError("cond must yield one boolean, yields ")
           << yield.getValues().size() << " values";
  return success();
}
