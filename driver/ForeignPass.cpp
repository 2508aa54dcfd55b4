//===- ForeignPass.cpp - passes implemented outside C++, by name ----------===//
//
// The MLIR C API can create a pass object from callbacks but cannot register it
// under a name, and its external passes accept no options. This file gives
// such passes a real entry in the pass registry, textual options and a
// per-pass TypeID, so `--pass-pipeline='builtin.module(decompose{table=none})'`
// mixes them with upstream passes.
//
//===----------------------------------------------------------------------===//

#include "coreai-c/CoreAI.h"

#include "aten/AtenDialect.h"
#include "coreai/CoreAIDialect.h"
#include "coreaix/CoreAIXDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/TypeID.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <mutex>

using namespace mlir;

namespace {

struct ForeignPassInfo {
  std::string argument;
  std::string description;
  std::string anchor;
  void *descriptor;
  CoreaiForeignPassCallbacks callbacks;
  TypeID typeID;
};

class ForeignPass final : public Pass {
public:
  ForeignPass(const ForeignPassInfo &info, void *state)
      : Pass(info.typeID, info.anchor.empty()
                              ? std::nullopt
                              : std::optional<StringRef>(info.anchor)),
        info(info), state(state) {}
  ~ForeignPass() override { info.callbacks.destroy(state); }

  StringRef getName() const override { return info.argument; }
  StringRef getArgument() const override { return info.argument; }
  StringRef getDescription() const override { return info.description; }

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<coreai::aten::AtenDialect, coreai::core::CoreAIDialect,
                    coreai::param::ParamDialect, coreai::corex::CoreAIXDialect,
                    func::FuncDialect, arith::ArithDialect>();
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    std::string message;
    auto collect = [](MlirStringRef piece, void *userData) {
      static_cast<std::string *>(userData)->append(piece.data, piece.length);
    };
    if (!info.callbacks.setOptions(state, wrap(options), collect, &message))
      return errorHandler(message);
    return success();
  }

  bool canScheduleOn(RegisteredOperationName) const override { return true; }

  void runOnOperation() override {
    if (!info.callbacks.run(state, wrap(getOperation())))
      signalPassFailure();
  }

  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<ForeignPass>(info, info.callbacks.clone(state));
  }

private:
  const ForeignPassInfo &info;
  void *state;
};

struct ForeignRegistry {
  std::mutex mutex;
  llvm::StringMap<std::unique_ptr<ForeignPassInfo>> passes;
  llvm::StringMap<std::string> pipelines;
  TypeIDAllocator typeIDs;
};

ForeignRegistry &foreignRegistry() {
  static ForeignRegistry *registry = new ForeignRegistry();
  return *registry;
}

} // namespace

bool coreaiRegisterForeignPass(MlirStringRef argument,
                               MlirStringRef description, MlirStringRef anchor,
                               void *descriptor,
                               CoreaiForeignPassCallbacks callbacks) {
  ForeignRegistry &registry = foreignRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  StringRef name = unwrap(argument);
  if (registry.passes.count(name) || PassInfo::lookup(name))
    return false;
  auto info = std::make_unique<ForeignPassInfo>(ForeignPassInfo{
      name.str(), unwrap(description).str(), unwrap(anchor).str(), descriptor,
      callbacks, registry.typeIDs.allocate()});
  const ForeignPassInfo *stable = info.get();
  registry.passes[name] = std::move(info);
  registerPass([stable]() -> std::unique_ptr<Pass> {
    return std::make_unique<ForeignPass>(
        *stable, stable->callbacks.create(stable->descriptor));
  });
  return true;
}

bool coreaiRegisterPipeline(MlirStringRef argument, MlirStringRef description,
                            MlirStringRef expansion) {
  ForeignRegistry &registry = foreignRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  StringRef name = unwrap(argument);
  if (registry.pipelines.count(name) || PassPipelineInfo::lookup(name))
    return false;
  std::string text = unwrap(expansion).str();
  registry.pipelines[name] = text;
  registerPassPipeline(
      name, unwrap(description),
      [text](OpPassManager &pm, StringRef options,
             function_ref<LogicalResult(const Twine &)> errorHandler) {
        if (!options.empty())
          return errorHandler("this pipeline takes no options");
        std::string message;
        llvm::raw_string_ostream os(message);
        if (failed(parsePassPipeline(text, pm, os)))
          return errorHandler(message);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)>) {});
  return true;
}
