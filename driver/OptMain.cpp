//===- OptMain.cpp - MLIR's mlir-opt driver behind coreai-opt -------------===//
//
// coreai-opt parses its command line in Rust; parsing, diagnostics (including
// --verify-diagnostics and --split-input-file), pass instrumentation and
// printing are MLIR's own, so the tool behaves like mlir-opt where they
// overlap. Without --verify-diagnostics the per-chunk driver is MlirOptMain's
// own sequence written out here (optMain), which skips MlirOptMain's scan of
// the whole input; coreaiOptMainFile maps the input and writes to a file
// descriptor.
//
//===----------------------------------------------------------------------===//

#include "coreai-c/CoreAI.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/Debug/CLOptionsSetup.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/ParseUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include <sys/mman.h>
#include <unistd.h>

using namespace mlir;

namespace {

/// CoreaiOptConfig::readTimeoutSeconds of the running job.
unsigned readTimeoutSeconds = 0;
/// CoreaiOptConfig::sink and sinkUserData of the running job.
bool (*moduleSink)(MlirOperation, void *) = nullptr;
void *moduleSinkUserData = nullptr;
/// The sink of the running chunk failed (and said why).
bool sinkFailed = false;

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

namespace {
/// A pipeline MLIR could not build, as one error. For a pass's options MLIR
/// writes the cause (`<Pass-Options-Parser>: no such option foo`, or a
/// project pass's own message) and then "failed to add `P` with options
/// `O`" on a line of its own; they become one line, at the pass's column in
/// the pipeline text (`pipeline:1:COL`, as the pass-name check reports).
LogicalResult pipelineError(MLIRContext *context, StringRef pipeline,
                            StringRef message) {
  SmallVector<StringRef> lines;
  for (StringRef line : llvm::split(message, '\n'))
    if (!line.trim().empty())
      lines.push_back(line.trim());
  if (lines.empty())
    return emitError(UnknownLoc::get(context)) << "invalid pass pipeline";
  // The innermost "failed to add" follows its causes; the ones after it
  // are the anchors around it (`func.func` ... `to inner pipeline`).
  auto added = llvm::find_if(
      lines, [](StringRef l) { return l.starts_with("failed to add `"); });
  if (added == lines.end())
    return emitError(UnknownLoc::get(context)) << llvm::join(lines, "; ");
  std::string text = added->str();
  unsigned column = 0;
  if (added != lines.begin()) {
    StringRef pass = added->drop_front(strlen("failed to add `")).split('`').first;
    size_t at = pipeline.find((pass + "{").str());
    if (at != StringRef::npos)
      column = at + 1;
    SmallVector<std::string> causes;
    for (StringRef cause : ArrayRef(lines.begin(), added))
      causes.push_back(cause.consume_front("<Pass-Options-Parser>: ")
                           ? cause.trim().str()
                           : cause.str());
    text += ": " + llvm::join(causes, "; ");
  }
  Location loc = column ? Location(FileLineColLoc::get(context, "pipeline", 1,
                                                       column))
                        : Location(UnknownLoc::get(context));
  return emitError(loc) << text;
}

MlirOptMainConfig makeOptMainConfig(const CoreaiOptConfig *c) {
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
      return pipelineError(pm.getContext(), pipeline, message);
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
  config.verifyRoundtrip(c->verifyRoundtrip);
  return config;
}

/// MlirOptMain's diagnostic filter at its default verbosity: standalone notes
/// are dropped, everything else goes on to the next handler.
LogicalResult dropStandaloneNotes(Diagnostic &diag) {
  return success(diag.getSeverity() == DiagnosticSeverity::Note);
}

/// Whether running passes on `op` in parallel can pay for starting threads:
/// MLIR parallelizes over isolated-from-above operations (the verifier, and
/// passes nested on functions), so the work that can overlap is what lies
/// outside the largest of them. Starting the pool's threads costs about a
/// millisecond on a small module, where nothing overlaps.
bool worthThreads(Operation *op) {
  constexpr size_t kMinParallelOps = 4096;
  size_t total = 0, largest = 0;
  for (Region &region : op->getRegions())
    for (Operation &child : region.getOps()) {
      size_t n = 0;
      child.walk([&](Operation *) { ++n; });
      total += n;
      largest = std::max(largest, n);
    }
  return total - largest >= kMinParallelOps;
}

/// --verify-roundtrip: `op` printed as `what` and parsed back in a fresh
/// context (as mlir-opt does: resource names stay as they were) prints,
/// generic and with locations, as `op` does.
LogicalResult checkReparses(Operation *op, StringRef printed, StringRef what,
                            StringRef reference) {
  MLIRContext fresh(op->getContext()->getDialectRegistry(),
                    MLIRContext::Threading::DISABLED);
  fresh.allowUnregisteredDialects(
      op->getContext()->allowsUnregisteredDialects());
  // The reparse's own errors become part of the one error reported.
  std::string firstError;
  ScopedDiagnosticHandler collect(&fresh, [&](Diagnostic &diag) {
    if (firstError.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
      firstError = diag.str();
    return success();
  });
  FallbackAsmResourceMap resources;
  ParserConfig config(&fresh, /*verifyAfterParse=*/true, &resources);
  OwningOpRef<Operation *> copy = parseSourceString(printed, config, what);
  std::string again;
  if (copy) {
    llvm::raw_string_ostream os(again);
    copy.get()->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo());
  }
  if (copy && again == reference)
    return success();
  return op->emitError() << "--verify-roundtrip: the output printed as " << what
                         << (copy ? " parses back to different IR"
                                  : " does not parse back: " + firstError);
}

/// mlir-opt's --verify-roundtrip: the result as text (the form coreai-opt
/// prints) and as bytecode both parse back to the same IR.
LogicalResult verifyRoundtrip(Operation *op, FallbackAsmResourceMap &resources) {
  std::string reference, text, bytecode;
  {
    llvm::raw_string_ostream os(reference);
    op->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo());
  }
  {
    llvm::raw_string_ostream os(text);
    AsmState state(op, OpPrintingFlags().enableDebugInfo(), nullptr, &resources);
    op->print(os, state);
  }
  if (failed(checkReparses(op, text, "text", reference)))
    return failure();
  {
    llvm::raw_string_ostream os(bytecode);
    if (failed(writeBytecodeToFile(op, os, BytecodeWriterConfig(resources))))
      return op->emitError() << "--verify-roundtrip: cannot write bytecode";
  }
  return checkReparses(op, bytecode, "bytecode", reference);
}

/// Parse, run the pipeline, print: MlirOptMain's performActions for a
/// config whose reproducer, round-trip and remark options are the defaults.
LogicalResult parseRunPrint(raw_ostream &os,
                            const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                            MLIRContext &context,
                            const MlirOptMainConfig &config,
                            bool skipTeardown) {
  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();

  // Parse single-threaded; bytecode resources stay in the input buffer (the
  // blobs keep `sourceMgr` alive) instead of being copied.
  bool wasThreadingEnabled = context.isMultithreadingEnabled();
  context.disableMultithreading();
  FallbackAsmResourceMap fallbackResourceMap;
  ParserConfig parseConfig(&context, config.shouldVerifyOnParsing(),
                           &fallbackResourceMap);
  TimingScope parserTiming = timing.nest("Parser");
  // Some malformed bytecode keeps MLIR's reader busy for minutes (a nested
  // array attribute in BuiltinDialectBytecodeInterface::readAttribute):
  // the reading is bounded, the passes are not.
  if (readTimeoutSeconds)
    ::alarm(readTimeoutSeconds);
  // A C++ exception thrown inside MLIR's reader ends the process here, with
  // the crash handler's message alone (coreaiAbortOnCxxException).
  OwningOpRef<Operation *> op;
  auto parse = [&] {
    op = parseSourceFileForTool(sourceMgr, parseConfig,
                                !config.shouldUseExplicitModule());
  };
  coreaiAbortOnCxxException(
      [](void *data) { (*static_cast<decltype(parse) *>(data))(); }, &parse);
  if (readTimeoutSeconds)
    ::alarm(0);
  parserTiming.stop();
  if (!op || !coreaiCheckLoadedIR(wrap(op.get())) ||
      !coreaiAttachExternalWeights(
          wrap(op.get()),
          wrap(sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID())
                   ->getBufferIdentifier())))
    return failure();
  // Left to the process's exit when it is about to end.
  auto keepOp = llvm::make_scope_exit([&] {
    if (skipTeardown)
      (void)op.release();
  });
  context.enableMultithreading(wasThreadingEnabled && worthThreads(op.get()));

  remark::RemarkCategories cats{
      config.getRemarksAllFilter(), config.getRemarksPassedFilter(),
      config.getRemarksMissedFilter(), config.getRemarksAnalyseFilter(),
      config.getRemarksFailedFilter()};
  if (failed(remark::enableOptimizationRemarks(
          context, nullptr, std::make_unique<remark::RemarkEmittingPolicyAll>(),
          cats, /*printAsEmitRemarks=*/true)))
    return failure();

  PassManager pm(op.get()->getName(), PassManager::Nesting::Implicit);
  pm.enableVerifier(config.shouldVerifyPasses());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  pm.enableTiming(timing);
  if (failed(config.setupPassPipeline(pm)) || failed(pm.run(*op)))
    return failure();
  if (config.shouldVerifyRoundtrip() &&
      failed(verifyRoundtrip(op.get(), fallbackResourceMap)))
    return failure();

  TimingScope outputTiming = timing.nest("Output");
  if (moduleSink) {
    sinkFailed = !moduleSink(wrap(op.get()), moduleSinkUserData);
    return success(!sinkFailed);
  }
  if (config.shouldEmitBytecode()) {
    BytecodeWriterConfig writerConfig(fallbackResourceMap);
    if (auto version = config.bytecodeVersionToEmit())
      writerConfig.setDesiredBytecodeVersion(*version);
    return writeBytecodeToFile(op.get(), os, writerConfig);
  }
  AsmState asmState(op.get(), OpPrintingFlags(), /*locationMap=*/nullptr,
                    &fallbackResourceMap);
  op.get()->print(os, asmState);
  os << '\n';
  return success();
}

/// MlirOptMain without --verify-diagnostics. MlirOptMain itself scans the
/// whole input for `expected-*` comments even when not verifying (a regex
/// on every line: 16% of coreai-opt's time on resnet18's 45 MB of
/// bytecode), so only --verify-diagnostics goes through it.
LogicalResult optMain(raw_ostream &os, std::unique_ptr<llvm::MemoryBuffer> input,
                      const MlirOptMainConfig &config, bool skipTeardown) {
  coreaiRegisterUpstreamPasses();
  DialectRegistry registry;
  coreaiRegisterAllDialects(wrap(&registry));
  if (config.shouldVerifyDiagnostics())
    return MlirOptMain(os, std::move(input), registry, config);

  // Only a whole-file run leaves its context to the process's exit: with
  // --split-input-file every chunk's context is freed before the next one.
  bool leakAtExit = skipTeardown && config.inputSplitMarker().empty();
  auto processChunk = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                          const llvm::MemoryBufferRef &source,
                          raw_ostream &chunkOs) -> LogicalResult {
    // The whole input comes first, so locations in a chunk are the file's.
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(source,
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    sourceMgr->AddNewSourceBuffer(std::move(chunk), llvm::SMLoc());
    // Threading as --mlir-disable-threading says; the pool starts its
    // threads only when a pass runs in parallel (see worthThreads).
    std::unique_ptr<MLIRContext> context = std::make_unique<MLIRContext>(
        registry, MLIRContext::Threading::ENABLED);
    auto keepContext = llvm::make_scope_exit([&] {
      if (leakAtExit)
        (void)context.release();
    });
    context->allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
    tracing::InstallDebugHandler debugHandler(*context, config.getDebugConfig());
    SourceMgrDiagnosticHandler sourceMgrHandler(*sourceMgr, context.get());
    ScopedDiagnosticHandler noteFilter(context.get(), dropStandaloneNotes);
    // One diagnostic per fault: an error after the chunk's first is a
    // follow-on (the parser's "expected hex string blob" after a lexer
    // error, a verifier error after a failed pass) and is dropped. Handlers
    // run newest first, so this one sees every diagnostic first.
    bool sawError = false;
    ScopedDiagnosticHandler firstErrorOnly(
        context.get(), [&](Diagnostic &diag) -> LogicalResult {
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return failure();
          bool followOn = sawError;
          sawError = true;
          return success(followOn);
        });
    LogicalResult result =
        parseRunPrint(chunkOs, sourceMgr, *context, config, leakAtExit);
    // Every failure says so: where MLIR gave up without a diagnostic (a
    // reader or hook that returns failure silently), one error names the
    // input.
    if (failed(result) && !sawError && !sinkFailed)
      emitError(UnknownLoc::get(context.get()))
          << source.getBufferIdentifier()
          << ": failed without a diagnostic; please report";
    return result;
  };
  return splitAndProcessBuffer(std::move(input), processChunk, os,
                               config.inputSplitMarker(),
                               config.outputSplitMarker());
}
} // namespace

MlirLogicalResult coreaiOptMain(MlirStringRef input, MlirStringRef bufferName,
                                const CoreaiOptConfig *c,
                                MlirStringCallback output, void *userData) {
  mlir::detail::CallbackOstream os(output, userData);
  readTimeoutSeconds = c->readTimeoutSeconds;
  moduleSink = c->sink;
  moduleSinkUserData = c->sinkUserData;
  sinkFailed = false;
  LogicalResult result =
      optMain(os,
              llvm::MemoryBuffer::getMemBufferCopy(unwrap(input),
                                                   unwrap(bufferName)),
              makeOptMainConfig(c), c->skipTeardown);
  os.flush();
  return wrap(result);
}

CoreaiInputFile coreaiInputFileOpen(MlirStringRef path, MlirStringCallback error,
                                    void *errorUserData) {
  // Mapped, not read, when large (LLVM decides), so the bytecode reader's
  // resources point into the page cache.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(unwrap(path), /*IsText=*/false,
                                         /*RequiresNullTerminator=*/true);
  if (!buffer) {
    std::string message = buffer.getError().message();
    if (error)
      error(mlirStringRefCreate(message.data(), message.size()), errorUserData);
    return {nullptr};
  }
#ifdef MADV_POPULATE_READ
  // A mapped model is read whole (the writer copies every weight): mapping
  // all its pages in one call is cheaper than a page fault per 64 KiB.
  // Advice only; kernels before 5.14 refuse it and fault as usual.
  if ((*buffer)->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap) {
    uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    uintptr_t start =
        reinterpret_cast<uintptr_t>((*buffer)->getBufferStart()) & ~(page - 1);
    uintptr_t end = reinterpret_cast<uintptr_t>((*buffer)->getBufferEnd());
    (void)madvise(reinterpret_cast<void *>(start), end - start,
                  MADV_POPULATE_READ);
  }
#endif
  return {buffer->release()};
}

const char *coreaiInputFileGetBuffer(CoreaiInputFile input, size_t *size) {
  const auto *buffer = static_cast<const llvm::MemoryBuffer *>(input.ptr);
  *size = buffer->getBufferSize();
  return buffer->getBufferStart();
}

void coreaiInputFileDestroy(CoreaiInputFile input) {
  delete static_cast<llvm::MemoryBuffer *>(input.ptr);
}

MlirLogicalResult coreaiOptMainFile(CoreaiInputFile input,
                                    const CoreaiOptConfig *c, int outputFd,
                                    MlirStringCallback writeError,
                                    void *errorUserData) {
  std::unique_ptr<llvm::MemoryBuffer> buffer(
      static_cast<llvm::MemoryBuffer *>(input.ptr));
  llvm::raw_fd_ostream os(outputFd, /*shouldClose=*/false);
  // The bytecode writer hands over a few large pieces (sections, resource
  // blobs): buffering them would copy every blob smaller than the buffer
  // once more. The text printer writes many small pieces.
  if (c->emitBytecode)
    os.SetUnbuffered();
  else
    os.SetBufferSize(1 << 20);
  readTimeoutSeconds = c->readTimeoutSeconds;
  moduleSink = c->sink;
  moduleSinkUserData = c->sinkUserData;
  sinkFailed = false;
  LogicalResult result =
      optMain(os, std::move(buffer), makeOptMainConfig(c), c->skipTeardown);
  os.flush();
  if (os.has_error()) {
    std::string message = os.error().message();
    os.clear_error();
    if (writeError)
      writeError(mlirStringRefCreate(message.data(), message.size()),
                 errorUserData);
    return wrap(failure());
  }
  return wrap(result);
}
