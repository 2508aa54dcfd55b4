//===- Registration.cpp - C API: dialects and upstream passes -------------===//

#include "coreai-c/CoreAI.h"

#include "aten/AtenDialect.h"
#include "coreai/CoreAIDialect.h"
#include "coreaix/CoreAIXDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <mutex>

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Aten, aten, coreai::aten::AtenDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(CoreAI, coreai, coreai::core::CoreAIDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Param, param, coreai::param::ParamDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(CoreAIX, coreaix, coreai::corex::CoreAIXDialect)

void coreaiRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::DialectRegistry &r = *unwrap(registry);
  r.insert<coreai::aten::AtenDialect, coreai::core::CoreAIDialect,
           coreai::param::ParamDialect, coreai::corex::CoreAIXDialect,
           mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  mlir::func::registerInlinerExtension(r);
}

/// Every pass of mlir/Transforms that coreaiRegisterUpstreamPasses makes
/// available by name. Kept in sync with the registrations below.
static const char *const kUpstreamPasses[] = {
    "canonicalize",       "control-flow-sink", "cse",
    "generate-runtime-verification",           "inline",
    "loop-invariant-code-motion",              "loop-invariant-subset-hoisting",
    "mem2reg",            "print-ir",          "print-op-stats",
    "remove-dead-values", "sccp",              "snapshot-op-locations",
    "sroa",               "strip-debuginfo",   "symbol-dce",
    "symbol-privatize",   "topological-sort",  "view-op-graph",
    "composite-fixed-point-pass",
};

void coreaiRegisterUpstreamPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { mlir::registerTransformsPasses(); });
}

void coreaiForEachUpstreamPass(MlirStringCallback callback, void *userData) {
  coreaiRegisterUpstreamPasses();
  for (const char *name : kUpstreamPasses)
    if (mlir::PassInfo::lookup(name))
      callback(mlirStringRefCreateFromCString(name), userData);
}

bool coreaiDescribeRegisteredPass(MlirStringRef argument,
                                  MlirStringCallback callback, void *userData) {
  llvm::StringRef name = unwrap(argument);
  const mlir::PassRegistryEntry *entry = mlir::PassInfo::lookup(name);
  if (!entry)
    entry = mlir::PassPipelineInfo::lookup(name);
  if (!entry)
    return false;
  llvm::StringRef description = entry->getPassDescription();
  callback(wrap(description), userData);
  return true;
}

/// Runs `parse` under coreaiAbortOnCxxException.
template <typename Parse>
static MlirModule parseAbortingOnException(Parse parse) {
  MlirModule result{nullptr};
  auto call = [&] { result = MlirModule{parse().release().getOperation()}; };
  coreaiAbortOnCxxException(
      [](void *data) { (*static_cast<decltype(call) *>(data))(); }, &call);
  return result;
}

MlirModule coreaiParseModule(MlirContext context, MlirStringRef source,
                             MlirStringRef bufferName) {
  mlir::ParserConfig config(unwrap(context));
  llvm::StringRef text = unwrap(source);
  if (mlir::isBytecode(llvm::MemoryBufferRef(text, unwrap(bufferName))))
    return parseAbortingOnException([&] {
      return mlir::parseSourceString<mlir::ModuleOp>(text, config,
                                                     unwrap(bufferName));
    });
  // MLIR's lexer finds the end of the text at the NUL that follows a memory
  // buffer (parseSourceString does not add one). A string ref need not be
  // followed by one (a Rust slice is not), and the lexer then reads on past
  // its end, into whatever follows in memory. The text is copied into a
  // buffer that has it.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, unwrap(bufferName)),
      llvm::SMLoc());
  return parseAbortingOnException([&] {
    return mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  });
}

MlirModule coreaiParseModuleFile(MlirContext context, MlirStringRef path) {
  mlir::ParserConfig config(unwrap(context));
  return parseAbortingOnException([&] {
    return mlir::parseSourceFile<mlir::ModuleOp>(unwrap(path), config);
  });
}

const void *coreaiDenseResourceElementsGetData(MlirAttribute attr,
                                               size_t *size) {
  *size = 0;
  auto resource =
      llvm::dyn_cast<mlir::DenseResourceElementsAttr>(unwrap(attr));
  if (!resource)
    return nullptr;
  mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob)
    return nullptr;
  llvm::ArrayRef<char> data = blob->getData();
  *size = data.size();
  return data.data();
}

size_t coreaiDenseResourceElementsGetAlignment(MlirAttribute attr) {
  auto resource =
      llvm::dyn_cast<mlir::DenseResourceElementsAttr>(unwrap(attr));
  if (!resource)
    return 0;
  mlir::AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  return blob ? blob->getDataAlignment() : 0;
}

namespace {
/// What is wrong with `type` or a type inside it, or empty.
std::string typeProblem(mlir::Type type) {
  std::string problem;
  type.walk([&](mlir::ShapedType shaped) {
    if (!shaped.hasRank())
      return mlir::WalkResult::advance();
    for (int64_t dim : shaped.getShape())
      if (dim < 0 && !mlir::ShapedType::isDynamic(dim)) {
        problem = "type has a negative dimension (" + std::to_string(dim) + ")";
        return mlir::WalkResult::interrupt();
      }
    // The bytecode reader builds tensor types without verifying their
    // encoding (`#coreaix.hw_constraints` with a zero interleave factor or
    // too few alignments), which the text parser refuses.
    auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(shaped);
    auto encoding =
        tensor ? llvm::dyn_cast_or_null<mlir::VerifiableTensorEncoding>(
                     tensor.getEncoding())
               : nullptr;
    if (encoding) {
      mlir::MLIRContext *context = tensor.getContext();
      std::string message;
      mlir::ScopedDiagnosticHandler capture(context, [&](mlir::Diagnostic &d) {
        if (message.empty())
          message = d.str();
        return mlir::success();
      });
      auto emit = [&] {
        return mlir::emitError(mlir::UnknownLoc::get(context));
      };
      if (mlir::failed(encoding.verifyEncoding(
              tensor.getShape(), tensor.getElementType(), emit))) {
        problem = "type has an invalid encoding (" + message + ")";
        return mlir::WalkResult::interrupt();
      }
    }
    return mlir::WalkResult::advance();
  });
  return problem;
}

/// What is wrong with `attr` or an attribute or type inside it, or empty.
std::string attributeProblem(mlir::Attribute attr) {
  std::string problem;
  attr.walk(
      [&](mlir::StringAttr string) {
        llvm::StringRef value = string.getValue();
        const auto *begin = reinterpret_cast<const llvm::UTF8 *>(value.data());
        if (!llvm::isLegalUTF8String(&begin, begin + value.size()))
          problem = "string attribute is not valid UTF-8";
        return problem.empty() ? mlir::WalkResult::advance()
                               : mlir::WalkResult::interrupt();
      },
      [&](mlir::Type type) {
        problem = typeProblem(type);
        return problem.empty() ? mlir::WalkResult::advance()
                               : mlir::WalkResult::interrupt();
      });
  return problem;
}

/// What is wrong with `op` itself (not its regions' ops), or empty.
std::string operationProblem(mlir::Operation *op) {
  std::string problem = attributeProblem(op->getAttrDictionary());
  if (problem.empty())
    problem = attributeProblem(op->getLoc());
  for (mlir::Type type : op->getResultTypes())
    if (problem.empty())
      problem = typeProblem(type);
  for (mlir::Region &region : op->getRegions())
    for (mlir::Block &block : region)
      for (mlir::BlockArgument arg : block.getArguments())
        if (problem.empty())
          problem = typeProblem(arg.getType());
  if (problem.empty())
    if (auto props = op->getPropertiesAsAttribute())
      problem = attributeProblem(props);
  return problem;
}
} // namespace

bool coreaiCheckLoadedIR(MlirOperation root) {
  mlir::Operation *bad = nullptr;
  std::string problem;
  unwrap(root)->walk([&](mlir::Operation *op) {
    problem = operationProblem(op);
    if (problem.empty())
      return mlir::WalkResult::advance();
    bad = op;
    return mlir::WalkResult::interrupt();
  });
  if (!bad)
    return true;
  // A location whose file name is the problem is printed as unknown.
  mlir::Location loc = bad->getLoc();
  if (!attributeProblem(loc).empty())
    loc = mlir::UnknownLoc::get(bad->getContext());
  mlir::emitError(loc) << "'" << bad->getName() << "' op " << problem
                       << ": the input is corrupt";
  return false;
}
