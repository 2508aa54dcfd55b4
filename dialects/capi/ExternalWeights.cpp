//===- ExternalWeights.cpp - dense_resource blobs from a side file --------===//
//
// A module may keep its weights out of its text: `dense_resource<KEY>`
// attributes without a `dialect_resources` entry, and the module attribute
// `coreai.weights = "FILE.safetensors"` naming a safetensors file (relative
// to the module's own file) whose tensor KEY holds each blob's bytes. The
// importer writes this form for coreai-compile: the bytes are not written
// and lexed back as hex. The file is mapped (one under four pages is read
// into memory), and a blob whose bytes lie aligned in it is those bytes
// themselves (read-only; the mapping lives as long as its last blob), so
// the weights are not copied; a misaligned one is copied. A process that holds the weights
// itself and runs the compiler in process (a child forked from it) gives
// their addresses instead (coreaiProvideWeights): no file at all.
//
//===----------------------------------------------------------------------===//

#include "coreai-c/CoreAI.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/DebugStringHelper.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

using namespace mlir;

namespace {
/// The address ranges of the weights files mapped now: only their pages may
/// be released (coreaiReleaseResourcePages); any other blob is memory
/// MADV_DONTNEED would clear.
std::mutex mappedMutex;
std::vector<std::pair<const char *, const char *>> mappedRanges;

/// A weights file read by MemoryBuffer, registered while it is mapped. A
/// small file (under four pages) is read into heap memory instead, whose
/// pages MADV_DONTNEED would zero (and share with other allocations): it
/// is not registered, so its blobs are never released.
struct MappedWeights {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  bool mapped;
  explicit MappedWeights(std::unique_ptr<llvm::MemoryBuffer> b)
      : buffer(std::move(b)),
        mapped(buffer->getBufferKind() ==
               llvm::MemoryBuffer::MemoryBuffer_MMap) {
    if (!mapped)
      return;
    std::lock_guard<std::mutex> lock(mappedMutex);
    mappedRanges.emplace_back(buffer->getBufferStart(),
                              buffer->getBufferEnd());
  }
  ~MappedWeights() {
    if (!mapped)
      return;
    std::lock_guard<std::mutex> lock(mappedMutex);
    llvm::erase(mappedRanges, std::make_pair(buffer->getBufferStart(),
                                             buffer->getBufferEnd()));
  }
};

constexpr llvm::StringLiteral kWeightsAttr = "coreai.weights";
/// safetensors' own bound on its JSON header.
constexpr uint64_t kMaxHeader = 100u << 20;

/// Bytes per element of a dense_resource of element type `type` (also the
/// blob's alignment, as the importer writes it), or 0 if unsupported.
uint64_t elementBytes(Type type) {
  if (auto complex = llvm::dyn_cast<ComplexType>(type))
    return 2 * elementBytes(complex.getElementType());
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return 0;
}

llvm::Error failure(const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

/// Tensors in this process's memory by name (coreaiProvideWeights).
using MemoryWeights = llvm::StringMap<llvm::ArrayRef<char>>;

/// The weights files given as memory, by path.
std::mutex providedMutex;
llvm::StringMap<std::shared_ptr<const MemoryWeights>> provided;

/// The weights of a module: a mapped safetensors file (its data section and
/// JSON header), or tensors given as memory.
struct WeightsFile {
  std::shared_ptr<MappedWeights> buffer;
  llvm::json::Object header;
  llvm::ArrayRef<char> data;
  std::shared_ptr<const MemoryWeights> memory;
};

/// Opens `file` (the attribute's value) relative to `inputPath`'s
/// directory; on failure returns the reason.
llvm::Expected<WeightsFile> openWeights(llvm::StringRef file,
                                        llvm::StringRef inputPath) {
  if (file.empty() || llvm::sys::path::is_absolute(file) ||
      llvm::is_contained(llvm::make_range(llvm::sys::path::begin(file),
                                          llvm::sys::path::end(file)),
                         ".."))
    return failure("must be a path relative to the module's directory, "
                "without '..'");
  llvm::SmallString<256> path(llvm::sys::path::parent_path(inputPath));
  llvm::sys::path::append(path, file);
  {
    std::lock_guard<std::mutex> lock(providedMutex);
    auto it = provided.find(path);
    if (it != provided.end()) {
      WeightsFile weights;
      weights.memory = it->second;
      return std::move(weights);
    }
  }
  // A FIFO or a device would block or never end.
  if (!llvm::sys::fs::is_regular_file(path))
    return failure("'" + path + "' is not a regular file");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return failure("cannot read '" + path +
                   "': " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() < 8)
    return failure("'" + path + "' is not a safetensors file (" +
                   llvm::Twine(bytes.size()) + " bytes)");
  uint64_t headerSize = llvm::support::endian::read64le(bytes.data());
  if (headerSize > kMaxHeader || headerSize > bytes.size() - 8)
    return failure("'" + path + "': its header size (" +
                   llvm::Twine(headerSize) + " bytes) exceeds the file");
  auto json = llvm::json::parse(bytes.substr(8, headerSize));
  if (!json)
    return failure("'" + path + "': its header is not JSON: " +
                   llvm::toString(json.takeError()));
  llvm::json::Object *object = json->getAsObject();
  if (!object)
    return failure("'" + path + "': its header is not a JSON object");
  WeightsFile weights;
  weights.header = std::move(*object);
  llvm::StringRef data = bytes.drop_front(8 + headerSize);
  weights.data = llvm::ArrayRef<char>(data.data(), data.size());
  weights.buffer = std::make_shared<MappedWeights>(std::move(*buffer));
  return std::move(weights);
}

/// The bytes of tensor `key`, or the reason there are none.
llvm::Expected<llvm::ArrayRef<char>> tensorBytes(const WeightsFile &weights,
                                                 llvm::StringRef key) {
  if (weights.memory) {
    auto it = weights.memory->find(key);
    if (it == weights.memory->end())
      return failure("has no tensor '" + key + "'");
    return it->second;
  }
  const llvm::json::Object *entry = weights.header.getObject(key);
  if (!entry)
    return failure("has no tensor '" + key + "'");
  const llvm::json::Array *offsets = entry->getArray("data_offsets");
  std::optional<uint64_t> begin, end;
  if (offsets && offsets->size() == 2) {
    begin = (*offsets)[0].getAsUINT64();
    end = (*offsets)[1].getAsUINT64();
  }
  if (!begin || !end || *begin > *end || *end > weights.data.size())
    return failure("tensor '" + key + "': data_offsets are not [begin, end] " +
                   "within its " + llvm::Twine(weights.data.size()) +
                   " bytes of data");
  return weights.data.slice(*begin, *end - *begin);
}
} // namespace

void coreaiProvideWeights(MlirStringRef path, intptr_t count,
                          const MlirStringRef *names, const void *const *data,
                          const size_t *sizes) {
  auto tensors = std::make_shared<MemoryWeights>();
  for (intptr_t i = 0; i < count; ++i)
    (*tensors)[unwrap(names[i])] = llvm::ArrayRef<char>(
        static_cast<const char *>(data[i]), sizes[i]);
  std::lock_guard<std::mutex> lock(providedMutex);
  provided[unwrap(path)] = std::move(tensors);
}

bool coreaiAttachExternalWeights(MlirOperation rootOp,
                                 MlirStringRef inputPath) {
  Operation *root = unwrap(rootOp);
  Attribute attr = root->getAttr(kWeightsAttr);
  if (!attr)
    return true;
  // Errors are at the module; at its file when it has no location of its
  // own (the importer's modules have none: the hand-off file's path would
  // be a different location in each run's asset).
  Location where = root->getLoc();
  if (llvm::isa<UnknownLoc>(where))
    where = FileLineColLoc::get(root->getContext(), unwrap(inputPath), 1, 1);
  auto file = llvm::dyn_cast<StringAttr>(attr);
  if (!file) {
    emitError(where)
        << "'" << kWeightsAttr
        << "' must be a string (a safetensors file name)";
    return false;
  }
  auto weights = openWeights(file.getValue(), unwrap(inputPath));
  if (!weights) {
    emitError(where)
        << "'" << kWeightsAttr << "' = \"" << file.getValue()
        << "\": " << llvm::toString(weights.takeError());
    return false;
  }
  bool ok = true;
  root->walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](DenseResourceElementsAttr resource) {
      DenseResourceElementsHandle handle = resource.getRawHandle();
      if (!ok || handle.getBlob())
        return WalkResult::advance();
      auto fail = [&](const llvm::Twine &why) {
        // At the module: a constant's location is often a name alone
        // (the importer's is the parameter's), and the key names the
        // constant.
        emitError(where) << "dense_resource<" << handle.getKey()
                        << ">: the weights file '" << file.getValue() << "' "
                        << why;
        ok = false;
        return WalkResult::interrupt();
      };
      ShapedType type = resource.getType();
      uint64_t width = elementBytes(type.getElementType());
      std::optional<uint64_t> size =
          width && type.hasStaticShape()
              ? llvm::checkedMulUnsigned<uint64_t>(type.getNumElements(),
                                                   width)
              : std::nullopt;
      if (!size)
        return fail("cannot hold a " + llvm::Twine(debugString(type)));
      auto bytes = tensorBytes(*weights, handle.getKey());
      if (!bytes)
        return fail(llvm::toString(bytes.takeError()));
      if (bytes->size() != *size)
        return fail("holds " + llvm::Twine(bytes->size()) +
                    " bytes for it, its type " + debugString(type) +
                    " needs " + llvm::Twine(*size));
      if (llvm::isAddrAligned(llvm::Align(width), bytes->data())) {
        // The blob keeps the mapping alive (memory given lives as long as
        // the process); nothing writes to its bytes.
        std::shared_ptr<MappedWeights> keep = weights->buffer;
        handle.getResource()->setBlob(AsmResourceBlob(
            *bytes, width,
            [keep](void *, size_t, size_t) mutable { keep.reset(); },
            /*dataIsMutable=*/false));
      } else {
        handle.getResource()->setBlob(
            HeapAsmResourceBlob::allocateAndCopyWithAlign(*bytes, width));
      }
      return WalkResult::advance();
    });
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  // The blobs now live in the module; what it prints is self-contained.
  if (ok)
    root->removeAttr(kWeightsAttr);
  return ok;
}

/// The blob of a `dense_resource` attribute, or null.
static AsmResourceBlob *resourceBlob(MlirAttribute attr) {
  auto resource = llvm::dyn_cast<DenseResourceElementsAttr>(unwrap(attr));
  return resource ? resource.getRawHandle().getBlob() : nullptr;
}

bool coreaiReleaseResourcePages(MlirAttribute attr) {
  AsmResourceBlob *blob = resourceBlob(attr);
  if (!blob)
    return false;
  llvm::ArrayRef<char> data = blob->getData();
  std::lock_guard<std::mutex> lock(mappedMutex);
  bool mapped = llvm::any_of(mappedRanges, [&](const auto &range) {
    return data.begin() >= range.first && data.end() <= range.second;
  });
  if (!mapped)
    return false;
  // The whole pages inside the blob: dropped from this process's resident
  // set; the next read maps them again from the file.
  uintptr_t page = ::sysconf(_SC_PAGESIZE);
  uintptr_t begin = llvm::alignTo(reinterpret_cast<uintptr_t>(data.begin()), page);
  uintptr_t end = llvm::alignDown(reinterpret_cast<uintptr_t>(data.end()), page);
  if (begin < end)
    ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
  return true;
}

bool coreaiDropResourceBlob(MlirAttribute attr) {
  if (coreaiReleaseResourcePages(attr))
    return true;
  AsmResourceBlob *blob = resourceBlob(attr);
  if (!blob)
    return false;
  // Runs the blob's deleter (the bytes a pass handed to MLIR).
  *blob = AsmResourceBlob();
  return true;
}
