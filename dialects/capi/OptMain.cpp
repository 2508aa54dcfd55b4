//===- OptMain.cpp - MLIR's mlir-opt driver behind coreai-opt -------------===//
//
// coreai-opt parses its command line in Rust; parsing, diagnostics (including
// --verify-diagnostics and --split-input-file), pass instrumentation and
// printing are MLIR's own, so the tool behaves like mlir-opt where they
// overlap.
//
//===----------------------------------------------------------------------===//

#include "coreai-c/CoreAI.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <atomic>
#include <mutex>

using namespace mlir;

namespace {
/// Makes every pass failure visible: when a pipeline fails and no error was
/// emitted, an error names the failing pass at the operation it ran on.
///
/// Errors are counted at the top level only: with threading, diagnostics of
/// nested passes are buffered and re-emitted in order when the parallel
/// section ends, which is before the top-level adaptor reports its failure.
class ReportSilentPassFailure : public PassInstrumentation {
public:
  explicit ReportSilentPassFailure(std::shared_ptr<std::atomic<unsigned>> errors)
      : errors(std::move(errors)) {}

  void runBeforePass(Pass *, Operation *op) override {
    if (!op->getParentOp())
      errorsAtStart = errors->load();
  }

  void runAfterPassFailed(Pass *pass, Operation *op) override {
    std::lock_guard<std::mutex> lock(mutex);
    // Nested failures are reported before their adaptor's: keep the first.
    if (!failedOp) {
      failedOp = op;
      failedPass = pass->getArgument().str();
    }
    if (op->getParentOp())
      return;
    if (errors->load() == errorsAtStart)
      failedOp->emitError() << "pass '" << failedPass
                            << "' failed on this operation without a diagnostic";
    failedOp = nullptr;
  }

private:
  std::shared_ptr<std::atomic<unsigned>> errors;
  unsigned errorsAtStart = 0;
  std::mutex mutex;
  Operation *failedOp = nullptr;
  std::string failedPass;
};
} // namespace

bool coreaiParseMlirOptions(int argc, const char *const *argv) {
  static bool registered = [] {
    registerAsmPrinterCLOptions();
    registerMLIRContextCLOptions();
    registerPassManagerCLOptions();
    registerDefaultTimingManagerCLOptions();
    return true;
  }();
  (void)registered;
  return llvm::cl::ParseCommandLineOptions(argc, argv, "coreai-opt",
                                           &llvm::errs());
}

MlirLogicalResult coreaiOptMain(MlirStringRef input, MlirStringRef bufferName,
                                const CoreaiOptConfig *c,
                                MlirStringCallback output, void *userData) {
  coreaiRegisterUpstreamPasses();

  DialectRegistry registry;
  coreaiRegisterAllDialects(wrap(&registry));

  MlirOptMainConfig config;
  std::string pipeline = unwrap(c->passPipeline).str();
  config.setPassPipelineSetupFn([pipeline](PassManager &pm) -> LogicalResult {
    auto errors = std::make_shared<std::atomic<unsigned>>(0);
    pm.getContext()->getDiagEngine().registerHandler(
        [errors](Diagnostic &diag) -> LogicalResult {
          if (diag.getSeverity() == DiagnosticSeverity::Error)
            ++*errors;
          return failure(); // Let the driver's handler print or verify it.
        });
    pm.addInstrumentation(std::make_unique<ReportSilentPassFailure>(errors));
    if (pipeline.empty())
      return success();
    std::string message;
    llvm::raw_string_ostream os(message);
    FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, os);
    if (failed(parsed))
      return emitError(UnknownLoc::get(pm.getContext())) << message;
    static_cast<OpPassManager &>(pm) = std::move(*parsed);
    return success();
  });
  if (c->splitInputMarker.length)
    config.splitInputFile(unwrap(c->splitInputMarker).str());
  config.outputSplitMarker(unwrap(c->outputSplitMarker).str());
  if (c->verifyDiagnostics)
    config.verifyDiagnostics(SourceMgrDiagnosticVerifierHandler::Level::All);
  config.verifyPasses(c->verifyEach);
  config.emitBytecode(c->emitBytecode);
  if (c->bytecodeVersion >= 0)
    config.setEmitBytecodeVersion(c->bytecodeVersion);

  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBufferCopy(
      unwrap(input), unwrap(bufferName));
  mlir::detail::CallbackOstream os(output, userData);
  LogicalResult result = MlirOptMain(os, std::move(buffer), registry, config);
  os.flush();
  return wrap(result);
}
