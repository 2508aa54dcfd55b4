/*===- coreai-c/CoreAI.h - C API of the coreai dialects and passes -------===*\
|*                                                                            *|
|* For C and C++ MLIR tools that want the aten, coreai and coreaix dialects   *|
|* and the coreai passes in their own context. Link libcoreai_capi.a (the Rust *|
|* passes) with the dialect libraries and MLIR's static libraries; see        *|
|* test/capi/embed.c.                                                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef COREAI_C_COREAI_H
#define COREAI_C_COREAI_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Aten, aten);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(CoreAI, coreai);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Param, param);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(CoreAIX, coreaix);

/// Inserts aten, coreai, param and coreaix, and the upstream dialects coreai
/// programs use (builtin, func, arith), into `registry`.
MLIR_CAPI_EXPORTED void coreaiRegisterAllDialects(MlirDialectRegistry registry);

/// Parses `source` (text or bytecode) as a module; diagnostics cite
/// `bufferName` as the file. `source` need not be followed by a NUL byte
/// (text is copied into a buffer that is; MLIR's lexer needs one). Returns a
/// null module (after emitting diagnostics) on failure.
MLIR_CAPI_EXPORTED MlirModule coreaiParseModule(MlirContext context,
                                                MlirStringRef source,
                                                MlirStringRef bufferName);

/// Parses the file at `path` (text or bytecode) as a module; diagnostics
/// cite `path`. Returns a null module (after emitting diagnostics) on
/// failure. A C++ exception thrown while parsing aborts the process (see
/// coreaiAbortOnCxxException).
MLIR_CAPI_EXPORTED MlirModule coreaiParseModuleFile(MlirContext context,
                                                    MlirStringRef path);

/// Calls `body(userData)`; a C++ exception thrown inside it aborts the
/// process at once (MLIR is built without exception handling, and an
/// exception unwinding into a Rust caller makes Rust's runtime abort with a
/// message of its own). `body` must be C or C++, never Rust.
MLIR_CAPI_EXPORTED void coreaiAbortOnCxxException(void (*body)(void *),
                                                  void *userData);

/// The bytes of a `dense_resource` elements attribute of any element type
/// (the upstream C API has typed getters for integers, f32 and f64 only), or
/// null when `attr` is not one or its blob is gone. `*size` gets the byte
/// count.
MLIR_CAPI_EXPORTED const void *
coreaiDenseResourceElementsGetData(MlirAttribute attr, size_t *size);

/// The alignment of a `dense_resource` elements attribute's blob, or 0 when
/// `attr` is not one or its blob is gone.
MLIR_CAPI_EXPORTED size_t
coreaiDenseResourceElementsGetAlignment(MlirAttribute attr);

/// Emits one error at `location` with `numNotes` notes attached, note i at
/// `noteLocations[i]` saying `noteMessages[i]`.
MLIR_CAPI_EXPORTED void coreaiEmitErrorWithNotes(
    MlirLocation location, MlirStringRef message, intptr_t numNotes,
    const MlirLocation *noteLocations, const MlirStringRef *noteMessages);

/// Emits a remark at `location` (the C API emits errors only).
MLIR_CAPI_EXPORTED void coreaiEmitRemark(MlirLocation location,
                                         MlirStringRef message);

/// Registers, once per process, the upstream passes that coreai pipelines may
/// name (canonicalize, cse, inline, symbol-dce, ...). Idempotent.
MLIR_CAPI_EXPORTED void coreaiRegisterUpstreamPasses(void);

/// Calls `callback` with the argument name of every upstream pass that
/// coreaiRegisterUpstreamPasses registers.
MLIR_CAPI_EXPORTED void coreaiForEachUpstreamPass(MlirStringCallback callback,
                                                  void *userData);

/// Writes the description of the registered pass or pipeline `argument`
/// through `callback`; returns false when no such pass is registered.
MLIR_CAPI_EXPORTED bool coreaiDescribeRegisteredPass(MlirStringRef argument,
                                                     MlirStringCallback callback,
                                                     void *userData);

/// A lowering written in C, for `legalize-aten-to-coreai`: builds its
/// replacement ops in front of `op` (`mlirBlockInsertOwnedOperationBefore(
/// mlirOperationGetBlock(op), op, newOp)`), writes the `numResults` values
/// that replace `op`'s results to `results` and returns true; or passes a
/// reason to `decline(reason, declineUserData)` and returns false. It may
/// run on any thread.
typedef bool (*CoreaiLoweringFn)(MlirOperation op, MlirValue *results,
                                 intptr_t numResults,
                                 MlirStringCallback decline,
                                 void *declineUserData, void *userData);

/// Registers `lowering` for `qualified` (`my_lib::op.overload`) in `context`
/// only. Replacing a built-in lowering of a reserved namespace (aten, coreai,
/// coreaix, higher_order) or an earlier registration needs `allowOverride`.
/// A registered lowering also makes the pass accept the op. Returns false and
/// passes the reason to `error` when it cannot register. Defined in
/// libcoreai_capi.a.
MLIR_CAPI_EXPORTED bool coreaiRegisterLowering(MlirContext context,
                                               MlirStringRef qualified,
                                               bool allowOverride,
                                               CoreaiLoweringFn lowering,
                                               void *userData,
                                               MlirStringCallback error,
                                               void *errorUserData);

/// Forgets the lowerings registered in `context`; call before destroying it.
MLIR_CAPI_EXPORTED void coreaiForgetLowerings(MlirContext context);


/// Registers the coreai passes and pipelines (written in Rust) and the
/// upstream passes they mix with, so textual pipelines can name them.
/// Defined in libcoreai_capi.a. Idempotent and thread-safe.
MLIR_CAPI_EXPORTED void coreaiRegisterPasses(void);

/// The device `coreaiCompile` compiles for.
enum {
  COREAI_TARGET_CPU = 0,
  COREAI_TARGET_GPU = 1,
  COREAI_TARGET_ANE = 2,
};

/// The compute precision; DEFAULT is f16 on the Neural Engine, f32 elsewhere.
enum {
  COREAI_PRECISION_DEFAULT = 0,
  COREAI_PRECISION_F32 = 1,
  COREAI_PRECISION_F16 = 2,
};

/// What the program of an asset (`main.mlirb`) holds: coreai-core's
/// versioned `aicode` serialization, or the coreai dialect's bytecode.
enum {
  COREAI_FORMAT_AICODE = 0,
  COREAI_FORMAT_COREAI = 1,
};

typedef struct CoreaiCompileOptions {
  int32_t target;    ///< COREAI_TARGET_*
  int32_t precision; ///< COREAI_PRECISION_*
  int32_t format;    ///< COREAI_FORMAT_*
  /// One remark per op the precision and target passes rewrite (or keep in
  /// f32), with the reason, as diagnostics of the module's context.
  bool explain;
  /// `NAME=BACKING:ALIGNMENTS:INTERLEAVE` items, comma-separated (empty:
  /// none), as `coreai-compile --hw-constraints`.
  MlirStringRef hwConstraints;
  /// Weight compression (empty: none), as `coreai-compile --compress`: a
  /// preset (`int8`, `int4-block32`, ...) or a compression pass with its
  /// options.
  MlirStringRef compress;
  /// With COREAI_TARGET_ANE: every op that would leave the Neural Engine is
  /// an error at its op (`ane-residency{require-resident=true}`), and
  /// `explain` prints the residency report.
  bool requireResident;
} CoreaiCompileOptions;

/// Compiles `module` (an imported aten module, or coreai) in place through
/// every stage of `coreai-compile`, in memory, and passes the program of its
/// asset (`main.mlirb`) to `program`, in pieces. Returns false on failure: a
/// failed pass has reported to the context's diagnostic handlers; any other
/// reason is passed to `error`. The dialects must be loaded in the module's
/// context. Defined in libcoreai_capi.a.
MLIR_CAPI_EXPORTED bool coreaiCompile(MlirModule module,
                                      const CoreaiCompileOptions *options,
                                      MlirStringCallback program,
                                      void *programUserData,
                                      MlirStringCallback error,
                                      void *errorUserData);

/*===----------------------------------------------------------------------===*\
|* Passes implemented outside C++ (the coreai passes are written in Rust).    *|
\*===----------------------------------------------------------------------===*/

/// Callbacks of a foreign pass. `state` is one pass instance; the pass manager
/// clones instances for its worker threads, so every callback may run on any
/// thread, concurrently for different states.
typedef struct CoreaiForeignPassCallbacks {
  /// Returns a new instance with default options.
  void *(*create)(void *descriptor);
  /// Returns a copy of `state`, options included.
  void *(*clone)(void *state);
  void (*destroy)(void *state);
  /// Parses the textual options (`a=1 b=x`); on error, writes a message
  /// through `error` and returns false.
  bool (*setOptions)(void *state, MlirStringRef options,
                     MlirStringCallback error, void *errorUserData);
  /// Runs on `op`; returns false when the pass failed (after emitting a
  /// diagnostic on `op`).
  bool (*run)(void *state, MlirOperation op);
} CoreaiForeignPassCallbacks;

/// Registers a pass under `argument` so textual pipelines can name it.
/// `anchor` is the operation name it runs on, or empty for any operation.
/// Registering the same argument again does nothing and returns false.
MLIR_CAPI_EXPORTED bool coreaiRegisterForeignPass(
    MlirStringRef argument, MlirStringRef description, MlirStringRef anchor,
    void *descriptor, CoreaiForeignPassCallbacks callbacks);

/// Registers a named pipeline that expands to the textual pass list
/// `expansion` (without an anchor, e.g. "decompose,canonicalize,cse").
MLIR_CAPI_EXPORTED bool coreaiRegisterPipeline(MlirStringRef argument,
                                               MlirStringRef description,
                                               MlirStringRef expansion);

/*===----------------------------------------------------------------------===*\
|* The mlir-opt driver, with coreai's registry.                               *|
\*===----------------------------------------------------------------------===*/

typedef struct CoreaiOptConfig {
  /// Textual pipeline, anchored (`builtin.module(...)`); empty: no passes.
  MlirStringRef passPipeline;
  /// Split marker for --split-input-file; empty: no splitting.
  MlirStringRef splitInputMarker;
  /// Marker written between the outputs of split chunks.
  MlirStringRef outputSplitMarker;
  bool verifyDiagnostics;
  bool verifyEach;
  bool emitBytecode;
  /// Bytecode version to emit, or -1 for the current one.
  int64_t bytecodeVersion;
  /// The caller exits right after: the context and module of a whole-file
  /// run are not freed (clang's -disable-free); with a split input each
  /// chunk's are still freed. Only for a process about to end.
  bool skipTeardown;
  /// mlir-opt's --verify-roundtrip: the output, printed as text and as
  /// bytecode, parses back to the same IR.
  bool verifyRoundtrip;
  /// When nonzero, reading the input (each chunk of a split input) raises
  /// SIGALRM after this many seconds: alarm(2) is armed before MLIR parses
  /// and cancelled after. The caller installs the SIGALRM handler.
  unsigned readTimeoutSeconds;
  /// When set, the pipeline's result is handed to `sink` instead of being
  /// printed or written (`emitBytecode` and the output are then unused):
  /// the module lives until `sink` returns. `sink` returns false on failure
  /// after reporting why itself; no diagnostic is added then.
  bool (*sink)(MlirOperation module, void *userData);
  void *sinkUserData;
} CoreaiOptConfig;

/// Hands MLIR's own command-line options (--mlir-print-ir-*, --mlir-timing,
/// --mlir-print-debuginfo, --mlir-print-op-generic, --mlir-disable-threading,
/// ...) to LLVM's option parser, so they behave exactly as in mlir-opt.
/// `argv[0]` is the tool name. Call at most once, before coreaiOptMain.
MLIR_CAPI_EXPORTED bool coreaiParseMlirOptions(int argc, const char *const *argv);

/// Parses `input` (named `bufferName` in diagnostics), runs the pipeline and
/// prints the result through `output`. Diagnostics go to stderr.
MLIR_CAPI_EXPORTED MlirLogicalResult
coreaiOptMain(MlirStringRef input, MlirStringRef bufferName,
              const CoreaiOptConfig *config, MlirStringCallback output,
              void *userData);

/// An input file for coreaiOptMainFile, mapped into memory rather than
/// copied when LLVM deems it large enough.
typedef struct CoreaiInputFile {
  void *ptr;
} CoreaiInputFile;

/// Opens `path` ("-": stdin) for coreaiOptMainFile. On failure returns a null
/// `ptr` and passes the reason (e.g. "No such file or directory") to `error`.
MLIR_CAPI_EXPORTED CoreaiInputFile coreaiInputFileOpen(MlirStringRef path,
                                                       MlirStringCallback error,
                                                       void *errorUserData);

/// The bytes of an opened input file (valid until it is destroyed or given
/// to coreaiOptMainFile), for checks before MLIR reads them.
MLIR_CAPI_EXPORTED const char *coreaiInputFileGetBuffer(CoreaiInputFile input,
                                                        size_t *size);

/// Checks a freshly parsed operation for what MLIR's readers accept but
/// nothing downstream can handle: a tensor or memref dimension below zero
/// other than the dynamic marker, and a string (attribute, symbol, file name
/// of a location) that is not UTF-8. Emits one error at the first offending
/// operation and returns false; true when the IR is clean.
MLIR_CAPI_EXPORTED bool coreaiCheckLoadedIR(MlirOperation op);

/// Gives a freshly parsed module's `dense_resource` attributes that have no
/// data their bytes from the safetensors file its `coreai.weights` string
/// attribute names, a path relative to the directory of `inputPath` (the
/// file the module was read from) without `..`, then removes the attribute.
/// Each blob must be the tensor of its key, as many bytes as its type needs.
/// Emits one error and returns false when the file or a tensor is missing,
/// unreadable or malformed; true when done or there is no such attribute.
MLIR_CAPI_EXPORTED bool coreaiAttachExternalWeights(MlirOperation module,
                                                    MlirStringRef inputPath);

/// Lets the weights file `path` be memory this process holds instead of a
/// file: coreaiAttachExternalWeights, asked for that file (the directory of
/// its module's input joined with the `coreai.weights` name), takes tensor
/// `names[i]` to be the `sizes[i]` bytes at `data[i]`, and reads no file.
/// The memory must stay valid and unchanged for as long as the process
/// lives: a blob is those bytes themselves (an aligned one; a misaligned
/// one is copied). For a compiler run in the process that holds the
/// weights (a child forked from it, which shares its pages), so they are
/// neither written to a file nor copied. Giving `path` again replaces its
/// tensors.
MLIR_CAPI_EXPORTED void coreaiProvideWeights(MlirStringRef path, intptr_t count,
                                             const MlirStringRef *names,
                                             const void *const *data,
                                             const size_t *sizes);

/// Drops the pages of a `dense_resource` attribute's blob from the resident
/// set when the blob is bytes of a mapped weights file (the form
/// coreaiAttachExternalWeights gives them): the data stays readable, read
/// again from the file when used. For a constant the program no longer
/// reads (a weight folded into another), so the weights are not resident
/// twice. Returns whether the blob was such a one.
MLIR_CAPI_EXPORTED bool coreaiReleaseResourcePages(MlirAttribute attr);

/// Frees the blob of a `dense_resource` attribute that no op holds any
/// more: a blob MLIR owns (one a pass made) is replaced by an empty one,
/// its memory returned; a mapped weights file's pages are released. The
/// caller guarantees nothing reads the attribute again. False for other
/// attributes.
MLIR_CAPI_EXPORTED bool coreaiDropResourceBlob(MlirAttribute attr);

/// Releases an input file that was not given to coreaiOptMainFile.
MLIR_CAPI_EXPORTED void coreaiInputFileDestroy(CoreaiInputFile input);

/// coreaiOptMain on an opened file (which it takes over): bytecode
/// resources are used where they lie in the input instead of being copied,
/// and the result is written to the open file descriptor `outputFd` through
/// a 1 MiB buffer (not closed). A write error is a failure whose reason goes
/// to `writeError`.
MLIR_CAPI_EXPORTED MlirLogicalResult coreaiOptMainFile(
    CoreaiInputFile input, const CoreaiOptConfig *config, int outputFd,
    MlirStringCallback writeError, void *errorUserData);

#ifdef __cplusplus
}
#endif

#endif /* COREAI_C_COREAI_H */
