//===- CoreAIXDialect.cpp - the coreaix dialect ---------------------------===//

#include "coreaix/CoreAIXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace coreai::corex;

/// `: [1x16]`, `: [?x4]`, `: []`: a dimension list printed like a shape
/// (the colon hugs the preceding keyword, as in coreai-core).
static ParseResult parseDimList(AsmParser &parser,
                                SmallVector<int64_t> &dims) {
  if (parser.parseColon() || parser.parseLSquare())
    return failure();
  if (succeeded(parser.parseOptionalRSquare()))
    return success();
  if (parser.parseDimensionList(dims, /*allowDynamic=*/true,
                                /*withTrailingX=*/false))
    return failure();
  return parser.parseRSquare();
}

static void printDimList(AsmPrinter &printer, ArrayRef<int64_t> dims) {
  printer << ": [";
  llvm::interleave(
      dims, printer.getStream(),
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          printer << '?';
        else
          printer << d;
      },
      "x");
  printer << ']';
}

#include "coreaix/CoreAIXOpsDialect.cpp.inc"
#include "coreaix/CoreAIXEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "coreaix/CoreAIXAttrs.cpp.inc"

void CoreAIXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "coreaix/CoreAIXOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "coreaix/CoreAIXAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// HWConstraintsAttr: tensor encoding verification (coreai-core's messages)
//===----------------------------------------------------------------------===//

LogicalResult HWConstraintsAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  ArrayRef<int64_t> alignments = getAlignments();
  ArrayRef<int64_t> interleave = getInterleave();
  if (alignments.size() != shape.size() + 1)
    return emitError() << "expected alignments to have (rank + 1) elements";
  if (interleave.size() != shape.size())
    return emitError() << "expected interleave to have (rank) elements";
  if (llvm::any_of(alignments, ShapedType::isDynamic))
    return emitError() << "expected alignments to be statically defined";
  if (llvm::count_if(interleave, [](int64_t f) { return f != 1; }) > 1)
    return emitError() << "interleave is only supported for a single dimension";
  for (auto [dim, factor] : llvm::zip(shape, interleave)) {
    // coreai-core divides by the factor unchecked (a zero crashes it).
    if (ShapedType::isDynamic(factor) || factor <= 0)
      return emitError() << "interleave factors must be positive, got "
                         << (ShapedType::isDynamic(factor) ? "?" : std::to_string(factor));
    if (!ShapedType::isDynamic(dim) && dim % factor != 0)
      return emitError() << "dimension shape " << dim
                         << " must be a multiple of dimension interleave factor "
                         << factor;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// coreai-core's check that a copy or view keeps the element type.
static LogicalResult verifySameElementType(Operation *op, Type source,
                                           Type result) {
  Type a = cast<ShapedType>(source).getElementType();
  Type b = cast<ShapedType>(result).getElementType();
  if (a != b)
    return op->emitOpError("expected source ")
           << a << " and result element type " << b << " to match";
  return success();
}

/// The extent, in elements, of a static tensor laid out under `hw`, as
/// coreai-core computes it (reverse-engineered, matches it on 600 random
/// views): the innermost chunk holds the interleaved elements (the product
/// of the interleave factors) aligned to the last alignment; each dimension,
/// innermost first, multiplies by its size over its factor and aligns to its
/// own alignment. The encoding must have passed `verifyEncoding` (positive
/// factors, one alignment more than the rank); none when an intermediate
/// does not fit in 64 bits.
static std::optional<int64_t> maxOffset(RankedTensorType type) {
  auto hw = dyn_cast_or_null<HWConstraintsAttr>(type.getEncoding());
  if (!hw || !type.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  ArrayRef<int64_t> alignments = hw.getAlignments();
  ArrayRef<int64_t> interleave = hw.getInterleave();
  auto alignUp = [](std::optional<int64_t> x,
                    int64_t a) -> std::optional<int64_t> {
    if (!x || a <= 0)
      return x;
    std::optional<int64_t> up = llvm::checkedAdd(*x, a - 1);
    return up ? std::optional<int64_t>(*up / a * a) : std::nullopt;
  };
  std::optional<int64_t> factors = 1;
  for (int64_t f : interleave)
    if (factors)
      factors = llvm::checkedMul(*factors, f);
  std::optional<int64_t> extent = alignUp(factors, alignments[shape.size()]);
  for (int64_t k = int64_t(shape.size()) - 1; k >= 0 && extent; --k)
    extent = alignUp(llvm::checkedMul(shape[k] / interleave[k], *extent),
                     alignments[k]);
  return extent;
}

LogicalResult ViewOp::verify() {
  if (failed(verifySameElementType(*this, getSource().getType(),
                                   getResult().getType())))
    return failure();
  // Types read from bytecode have not been through `verifyEncoding`.
  for (RankedTensorType type : {getSource().getType(), getResult().getType()})
    if (auto hw = dyn_cast_or_null<HWConstraintsAttr>(type.getEncoding()))
      if (failed(hw.verifyEncoding(type.getShape(), type.getElementType(),
                                   [&] { return emitOpError(); })))
        return failure();
  std::optional<int64_t> source = maxOffset(getSource().getType());
  std::optional<int64_t> dest = maxOffset(getResult().getType());
  if (source && dest && *dest > *source)
    return emitOpError("dest max offset ")
           << *dest << " exceeds source max offset " << *source;
  return success();
}

LogicalResult CopyWithConstraintsOp::verify() {
  return verifySameElementType(*this, getSource().getType(),
                               getResult().getType());
}

LogicalResult CopyDiscardingConstraintsOp::verify() {
  return verifySameElementType(*this, getSource().getType(),
                               getResult().getType());
}

#define GET_OP_CLASSES
#include "coreaix/CoreAIXOps.cpp.inc"
