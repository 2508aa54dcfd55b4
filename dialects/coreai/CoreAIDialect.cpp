//===- CoreAIDialect.cpp - the coreai and param dialects ------------------===//

#include "coreai/CoreAIDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace coreai::core;

#include "coreai/CoreAIOpsDialect.cpp.inc"
#include "coreai/ParamDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "coreai/ParamAttrs.cpp.inc"

void CoreAIDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "coreai/CoreAIOps.cpp.inc"
      >();
}

void coreai::param::ParamDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "coreai/ParamAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

namespace {
/// The unit attributes that print as keywords before the symbol name, in the
/// order they are printed.
struct GraphKeyword {
  StringRef keyword;
  StringRef attrName;
};
constexpr GraphKeyword kGraphKeywords[] = {
    {"private", "priv"},
    {"externalize", "externalize"},
    {"noinline", "no_inline"},
};
} // namespace

ParseResult GraphOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  for (;;) {
    bool matched = false;
    for (const GraphKeyword &kw : kGraphKeywords) {
      if (succeeded(parser.parseOptionalKeyword(kw.keyword))) {
        result.addAttribute(kw.attrName, builder.getUnitAttr());
        matched = true;
      }
    }
    if (!matched)
      break;
  }

  StringAttr nameAttr;
  if (parser.parseSymbolName(nameAttr, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();

  SmallVector<OpAsmParser::Argument> arguments;
  SmallVector<DictionaryAttr> resultAttrs;
  SmallVector<Type> resultTypes;
  bool isVariadic = false;
  if (function_interface_impl::parseFunctionSignatureWithArguments(
          parser, /*allowVariadic=*/false, arguments, isVariadic, resultTypes,
          resultAttrs))
    return failure();

  SmallVector<Type> argTypes;
  for (OpAsmParser::Argument &arg : arguments)
    argTypes.push_back(arg.type);
  result.addAttribute(getFunctionTypeAttrName(result.name),
                      TypeAttr::get(builder.getFunctionType(argTypes, resultTypes)));

  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  if (!result.attributes.get(getParamDeclsAttrName(result.name)))
    result.addAttribute(getParamDeclsAttrName(result.name),
                        coreai::param::DeclArrayAttr::get(
                            builder.getContext(), builder.getArrayAttr({})));

  call_interface_impl::addArgAndResultAttrs(
      builder, result, arguments, resultAttrs, getArgAttrsAttrName(result.name),
      getResAttrsAttrName(result.name));

  Region *body = result.addRegion();
  if (parser.parseRegion(*body, arguments, /*enableNameShadowing=*/false))
    return failure();
  return success();
}

void GraphOp::print(OpAsmPrinter &p) {
  for (const GraphKeyword &kw : kGraphKeywords)
    if ((*this)->hasAttr(kw.attrName))
      p << ' ' << kw.keyword;
  p << ' ';
  p.printSymbolName(getSymName());

  FunctionType type = getFunctionType();
  function_interface_impl::printFunctionSignature(
      p, *this, type.getInputs(), /*isVariadic=*/false, type.getResults());

  SmallVector<StringRef> elided = {
      getSymNameAttrName(), getFunctionTypeAttrName(), getArgAttrsAttrName(),
      getResAttrsAttrName()};
  for (const GraphKeyword &kw : kGraphKeywords)
    elided.push_back(kw.attrName);
  if (getParamDecls().getDecls().empty())
    elided.push_back(getParamDeclsAttrName());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), elided);

  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

LogicalResult GraphOp::verify() {
  if (getPriv() && getExternalize())
    return emitOpError("cannot be both 'private' and 'externalize'");
  if (getBody().empty())
    return emitOpError("must have a body");
  Block &entry = getBody().front();
  ArrayRef<Type> inputs = getFunctionType().getInputs();
  if (entry.getNumArguments() != inputs.size())
    return emitOpError("entry block has ")
           << entry.getNumArguments() << " arguments but the signature has "
           << inputs.size();
  for (auto [i, arg] : llvm::enumerate(entry.getArguments()))
    if (arg.getType() != inputs[i])
      return emitOpError("entry block argument #")
             << i << " has type " << arg.getType()
             << " but the signature says " << inputs[i];
  return success();
}

LogicalResult OutputOp::verify() {
  auto graph = (*this)->getParentOfType<GraphOp>();
  ArrayRef<Type> results = graph.getFunctionType().getResults();
  if (getOperands_().size() != results.size())
    return emitOpError("has ")
           << getOperands_().size() << " operands, but the enclosing graph '"
           << graph.getSymName() << "' returns " << results.size();
  for (auto [i, value] : llvm::enumerate(getOperands_()))
    if (value.getType() != results[i])
      return emitOpError("operand #")
             << i << " has type " << value.getType()
             << ", but the enclosing graph returns " << results[i];
  return success();
}

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

/// Checks that `result` is the NumPy broadcast of `lhs` and `rhs` where all
/// three shapes are static along a dimension.
static LogicalResult verifyBroadcast(Operation *op, RankedTensorType lhs,
                                     RankedTensorType rhs,
                                     RankedTensorType result) {
  int64_t rank = std::max(lhs.getRank(), rhs.getRank());
  if (result.getRank() != rank)
    return op->emitOpError("result rank ")
           << result.getRank() << " is not the broadcast rank " << rank;
  for (int64_t i = 0; i < rank; ++i) {
    auto dimOf = [&](RankedTensorType t) -> int64_t {
      int64_t j = i - (rank - t.getRank());
      return j < 0 ? 1 : t.getDimSize(j);
    };
    int64_t a = dimOf(lhs), b = dimOf(rhs), r = result.getDimSize(i);
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
      continue;
    if (a != b && a != 1 && b != 1)
      return op->emitOpError("operand shapes ")
             << lhs << " and " << rhs << " are not broadcast-compatible at dim "
             << i;
    int64_t expected = a == 1 ? b : a;
    if (!ShapedType::isDynamic(r) && r != expected)
      return op->emitOpError("result dim ")
             << i << " is " << r << " but the broadcast of the operands is "
             << expected;
  }
  return success();
}

#define COREAI_BROADCASTING_VERIFIER(Op)                                       \
  LogicalResult Op::verify() {                                                 \
    return verifyBroadcast(*this, getInput().getType(), getOther().getType(),  \
                           getResult().getType());                             \
  }
COREAI_BROADCASTING_VERIFIER(BroadcastingAddOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingMulOp)
#undef COREAI_BROADCASTING_VERIFIER

#define GET_OP_CLASSES
#include "coreai/CoreAIOps.cpp.inc"
