//===- CoreAIDialect.cpp - the coreai and param dialects ------------------===//

#include "coreai/CoreAIDialect.h"
#include "coreaix/CoreAIXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace coreai::core;

#include "coreai/CoreAIOpsDialect.cpp.inc"

#include "coreai/CoreAIEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "coreai/CoreAITypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "coreai/CoreAIAttrs.cpp.inc"

void CoreAIDialect::initialize() {
  registerCoreAIDialectOperations(this);
  addTypes<
#define GET_TYPEDEF_LIST
#include "coreai/CoreAITypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "coreai/CoreAIAttrs.cpp.inc"
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
  p.printRegion(getBodyRegion(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

LogicalResult GraphOp::verify() {
  if (getPriv() && getExternalize())
    return emitOpError("cannot be both 'private' and 'externalize'");
  if (getBodyRegion().empty())
    return emitOpError("must have a body");
  Block &entry = getBodyRegion().front();
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
static LogicalResult verifyBroadcast(Operation *op,
                                     ArrayRef<Type> operandTypes,
                                     Type resultType) {
  SmallVector<RankedTensorType> operands;
  for (Type t : operandTypes)
    operands.push_back(cast<RankedTensorType>(t));
  auto result = cast<RankedTensorType>(resultType);
  int64_t rank = 0;
  for (RankedTensorType t : operands)
    rank = std::max(rank, t.getRank());
  if (result.getRank() != rank)
    return op->emitOpError("result rank ")
           << result.getRank() << " is not the broadcast rank " << rank;
  for (int64_t i = 0; i < rank; ++i) {
    auto dimOf = [&](RankedTensorType t) -> int64_t {
      int64_t j = i - (rank - t.getRank());
      return j < 0 ? 1 : t.getDimSize(j);
    };
    int64_t expected = 1;
    bool dynamic = false;
    for (RankedTensorType t : operands) {
      int64_t d = dimOf(t);
      if (ShapedType::isDynamic(d)) {
        dynamic = true;
        continue;
      }
      if (d == 1)
        continue;
      if (expected != 1 && d != expected) {
        InFlightDiagnostic diag =
            op->emitOpError("operand shapes ");
        llvm::interleaveComma(operands, diag);
        return diag << " are not broadcast-compatible at dim " << i;
      }
      expected = d;
    }
    int64_t r = result.getDimSize(i);
    if (!dynamic && !ShapedType::isDynamic(r) && r != expected)
      return op->emitOpError("result dim ")
             << i << " is " << r << " but the broadcast of the operands is "
             << expected;
  }
  return success();
}

#define COREAI_BROADCASTING_VERIFIER(Op)                                       \
  LogicalResult Op::verify() {                                                 \
    return verifyBroadcast(*this, {getInput().getType(), getOther().getType()},\
                           getOutput().getType());                             \
  }
COREAI_BROADCASTING_VERIFIER(BroadcastingAddOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingAndOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingBitwiseAndOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingBitwiseOrOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingBitwiseXorOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingDivideOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingEqualOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingFloorDivideOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingGreaterOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingMaximumOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingMinimumOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingModuloOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingMulOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingNotEqualOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingOrOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingPowOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingSubOp)
COREAI_BROADCASTING_VERIFIER(BroadcastingXorOp)
#undef COREAI_BROADCASTING_VERIFIER

LogicalResult BroadcastingWhereOp::verify() {
  return verifyBroadcast(*this,
                         {getCondition().getType(), getA().getType(),
                          getB().getType()},
                         getResults_().getType());
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// Checks that `cond` is a 0-D i1 tensor (the form coreai predicates take).
static LogicalResult verifyPredicate(Operation *op, Type cond) {
  auto tensor = dyn_cast<RankedTensorType>(cond);
  if (!tensor || tensor.getRank() != 0 ||
      !tensor.getElementType().isInteger(1))
    return op->emitOpError("condition must be tensor<i1>, got ")
           << cond << "; reshape or compare to produce a 0-D boolean";
  return success();
}

/// Checks that the yield ending `region` yields exactly `types`.
static LogicalResult verifyYield(Operation *op, Region &region,
                                 TypeRange types, StringRef what) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield)
    return op->emitOpError(what) << " must end in coreai.yield";
  if (yield.getArgs().getTypes() != types)
    return op->emitOpError(what)
           << " yields (" << yield.getArgs().getTypes() << ") but ("
           << types << ") is expected";
  return success();
}

LogicalResult IfOp::verify() {
  if (failed(verifyPredicate(*this, getCondition().getType())))
    return failure();
  if (failed(verifyYield(*this, getThenRegion(), getResultTypes(),
                         "then region")) ||
      failed(verifyYield(*this, getElseRegion(), getResultTypes(),
                         "else region")))
    return failure();
  return success();
}

LogicalResult ConditionOp::verify() {
  return verifyPredicate(*this, getCondition().getType());
}

LogicalResult WhileOp::verify() {
  Block &before = getBefore().front();
  Block &after = getAfter().front();
  if (before.getArgumentTypes() != getInits().getTypes())
    return emitOpError("before region arguments (")
           << before.getArgumentTypes() << ") must match the inits ("
           << getInits().getTypes() << ")";
  auto cond = dyn_cast<ConditionOp>(before.getTerminator());
  if (!cond)
    return emitOpError("before region must end in coreai.condition");
  if (cond.getArgs().getTypes() != getResultTypes())
    return emitOpError("coreai.condition forwards (")
           << cond.getArgs().getTypes() << ") but the loop results are ("
           << getResultTypes() << ")";
  if (after.getArgumentTypes() != getResultTypes())
    return emitOpError("after region arguments (")
           << after.getArgumentTypes() << ") must match the loop results ("
           << getResultTypes() << ")";
  return verifyYield(*this, getAfter(), getInits().getTypes(), "after region");
}

//===----------------------------------------------------------------------===//
// InvokeOp
//===----------------------------------------------------------------------===//

ParseResult InvokeOp::parse(OpAsmParser &parser, OperationState &result) {
  FlatSymbolRefAttr callee;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  FunctionType type;
  if (parser.parseAttribute(callee))
    return failure();
  MLIRContext *ctx = parser.getContext();
  result.addAttribute(getCalleeAttrName(result.name),
                      coreai::param::ConstantAttr::get(
                          ctx, callee, coreai::param::SymbolType::get(ctx)));
  if (parser.parseOperandList(operands, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperands(operands, type.getInputs(),
                             parser.getCurrentLocation(), result.operands))
    return failure();
  result.addTypes(type.getResults());
  return success();
}

void InvokeOp::print(OpAsmPrinter &p) {
  p << ' ';
  if (FlatSymbolRefAttr sym = getCalleeSymbol())
    p.printAttributeWithoutType(sym);
  else
    p.printAttribute(getCalleeAttr());
  p << '(' << getOperands_() << ") ";
  p.printOptionalAttrDict((*this)->getAttrs(), {getCalleeAttrName()});
  p << " : ";
  p.printFunctionalType(getOperands_().getTypes(), getResultTypes());
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

FlatSymbolRefAttr InvokeOp::getCalleeSymbol() {
  auto constant = dyn_cast<coreai::param::ConstantAttr>(getCalleeAttr());
  if (!constant)
    return {};
  return dyn_cast<FlatSymbolRefAttr>(constant.getValue());
}

LogicalResult InvokeOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FlatSymbolRefAttr sym = getCalleeSymbol();
  if (!sym)
    return emitOpError("callee must be #param.constant<@graph> : "
                       "!param.symbol, got ")
           << getCalleeAttr();
  auto graph = symbolTable.lookupNearestSymbolFrom<GraphOp>(*this, sym);
  if (!graph)
    return emitOpError("'")
           << sym.getValue()
           << "' does not name a coreai.graph; define the graph in this module";
  FunctionType type = graph.getFunctionType();
  if (TypeRange(type.getInputs()) != TypeRange(getOperands_().getTypes()))
    return emitOpError("operand types (")
           << getOperands_().getTypes() << ") do not match the inputs of @"
           << sym.getValue() << " (" << type.getInputs() << ")";
  if (TypeRange(type.getResults()) != TypeRange(getResultTypes()))
    return emitOpError("result types (")
           << getResultTypes() << ") do not match the results of @"
           << sym.getValue() << " (" << type.getResults() << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Handles
//===----------------------------------------------------------------------===//

LogicalResult ReadHandleOp::verify() {
  Type inner = getHandle().getType().getInnerType();
  if (getOutput().getType() != inner)
    return emitOpError("reads ")
           << getOutput().getType() << " from a handle holding " << inner;
  return success();
}

LogicalResult WriteHandleOp::verify() {
  Type inner = getHandle().getType().getInnerType();
  if (getData().getType() != inner)
    return emitOpError("writes ")
           << getData().getType() << " into a handle holding " << inner;
  return success();
}

//===----------------------------------------------------------------------===//
// IsolatedGroupOp, TargetSpecOp
//===----------------------------------------------------------------------===//

LogicalResult IsolatedGroupOp::verify() {
  Block &body = getGroup().front();
  if (TypeRange(body.getArgumentTypes()) != TypeRange(getInputs().getTypes()))
    return emitOpError("region arguments (")
           << body.getArgumentTypes() << ") must match the inputs ("
           << getInputs().getTypes() << ")";
  return verifyYield(*this, getGroup(), getResultTypes(), "region");
}

ParseResult TargetSpecOp::parse(OpAsmParser &parser, OperationState &result) {
  TargetSpecAttr spec;
  CompilationAttr compilation;
  MLIRContext *ctx = parser.getContext();
  if (parser.parseLBrace() || parser.parseKeyword("spec") ||
      parser.parseEqual() ||
      parser.parseCustomAttributeWithFallback(spec, Type{}))
    return failure();
  result.addAttribute(getSpecAttrName(result.name), spec);
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("compilation") || parser.parseEqual() ||
        parser.parseCustomAttributeWithFallback(compilation, Type{}))
      return failure();
  } else {
    compilation = CompilationAttr::get(ctx, Compilation::full);
  }
  result.addAttribute(getCompilationAttrName(result.name), compilation);
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseRBrace())
    return failure();
  return success();
}

void TargetSpecOp::print(OpAsmPrinter &p) {
  p << "{spec = ";
  p.printStrippedAttrOrType(getSpecAttr());
  p << ", compilation = ";
  p.printStrippedAttrOrType(getCompilationAttr());
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getSpecAttrName(), getCompilationAttrName()});
  p << '}';
}

//===----------------------------------------------------------------------===//
// FourCCAttr and ImageType (coreai-core's syntax and messages)
//===----------------------------------------------------------------------===//

namespace {
struct FourCCName {
  StringRef name;
  uint32_t code;
};
constexpr uint32_t fourChars(const char (&s)[5]) {
  return (uint32_t(uint8_t(s[0])) << 24) | (uint32_t(uint8_t(s[1])) << 16) |
         (uint32_t(uint8_t(s[2])) << 8) | uint32_t(uint8_t(s[3]));
}
constexpr FourCCName kFourCCNames[] = {
    {"kUnknown", 0},
    {"k24RGB", 24},
    {"k32ARGB", 32},
    {"k32BGRA", fourChars("BGRA")},
    {"k420YpCbCr8Planar", fourChars("y420")},
};
} // namespace

Attribute FourCCAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  uint32_t code = 0;
  std::string str;
  StringRef keyword;
  APInt integer;
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalString(&str))) {
    if (str.size() != 4) {
      parser.emitError(loc, "fourCC string must be exactly 4 characters");
      return {};
    }
    for (char c : str)
      code = (code << 8) | uint8_t(c);
  } else if (auto parsed = parser.parseOptionalInteger(integer);
             parsed.has_value()) {
    if (failed(*parsed))
      return {};
    if (integer.getSignificantBits() > 33 ||
        (integer.isNegative() && integer.getSignificantBits() > 32)) {
      parser.emitError(loc, "integer value too large");
      return {};
    }
    code = uint32_t(integer.sextOrTrunc(64).getZExtValue() & 0xffffffffu);
  } else if (succeeded(parser.parseOptionalKeyword(&keyword))) {
    const FourCCName *it =
        llvm::find_if(kFourCCNames, [&](const FourCCName &n) { return n.name == keyword; });
    if (it == std::end(kFourCCNames)) {
      parser.emitError(loc, "unknown FourCC enum value: ") << keyword;
      return {};
    }
    code = it->code;
  } else {
    parser.emitError(loc, "expected string, integer, or enum value for FourCC");
    return {};
  }
  if (parser.parseGreater())
    return {};
  return FourCCAttr::get(parser.getContext(), code);
}

void FourCCAttr::print(AsmPrinter &printer) const {
  uint32_t code = getValue();
  printer << '<';
  for (const FourCCName &n : kFourCCNames) {
    if (n.code == code) {
      printer << n.name << '>';
      return;
    }
  }
  char chars[4] = {char(code >> 24), char(code >> 16), char(code >> 8), char(code)};
  if (llvm::all_of(chars, [](char c) { return llvm::isPrint(c); }))
    printer << '"' << StringRef(chars, 4) << '"';
  else
    printer << code;
  printer << '>';
}

/// A positive integer attribute, or the reason it is not one.
static LogicalResult verifyImageExtent(function_ref<InFlightDiagnostic()> emitError,
                                       StringRef what, TypedAttr attr) {
  auto integer = dyn_cast<IntegerAttr>(attr);
  if (!integer)
    return emitError() << "expected " << what << " to be an integer type, got "
                       << attr.getType();
  if (integer.getValue().isNegative() || integer.getValue().isZero())
    return emitError() << "expected " << what << " to be positive, got "
                       << integer.getValue().getSExtValue();
  return success();
}

LogicalResult ImageType::verify(function_ref<InFlightDiagnostic()> emitError,
                                FourCCAttr, TypedAttr height, TypedAttr width,
                                Attribute) {
  if (failed(verifyImageExtent(emitError, "height", height)) ||
      failed(verifyImageExtent(emitError, "width", width)))
    return failure();
  return success();
}

SmallVector<int64_t> ImageType::tensorShape() {
  int64_t h = cast<IntegerAttr>(getHeight()).getValue().getSExtValue();
  int64_t w = cast<IntegerAttr>(getWidth()).getValue().getSExtValue();
  switch (getFourCC().getValue()) {
  case 24:
    return {h, w, 3};
  case 32:
  case fourChars("BGRA"):
    return {h, w, 4};
  case fourChars("y420"):
    return {h * w + 2 * (h / 2) * (w / 2)};
  default:
    return {h * w};
  }
}

LogicalResult ImageToTensorOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto image = dyn_cast<ImageType>(operands[0].getType());
  if (!image)
    return failure();
  inferredReturnTypes.push_back(RankedTensorType::get(
      image.tensorShape(),
      IntegerType::get(context, 8, IntegerType::Unsigned)));
  return success();
}

//===----------------------------------------------------------------------===//
// SparseTensorEncodingAttr (coreai-core's messages)
//===----------------------------------------------------------------------===//

LogicalResult SparseTensorEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, CompressionScheme scheme,
    std::optional<uint64_t>, uint32_t posWidth, uint32_t crdWidth,
    ArrayRef<uint64_t> blockSize) {
  if (scheme == CompressionScheme::bitmask && (posWidth != 1 || crdWidth != 1))
    return emitError() << "For Bitmask compression scheme, both posWidth and "
                          "crdWidth must be equal to 1.";
  if (scheme == CompressionScheme::bsr && blockSize.empty())
    return emitError()
           << "block-sparse compression schemes (BSR) require non-empty blockSize";
  if (scheme != CompressionScheme::bsr && !blockSize.empty())
    return emitError() << "blockSize should only be specified for block-sparse "
                          "compression schemes (BSR)";
  return success();
}

bool coreai::core::isMTLBufferBacked(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto hw = tensor ? dyn_cast_or_null<coreai::corex::HWConstraintsAttr>(tensor.getEncoding())
                   : coreai::corex::HWConstraintsAttr();
  return hw && hw.getBacking() == coreai::corex::AllocationType::MTLBuffer;
}
