//===- CoreAIDialect.h - the coreai and param dialects ------------*- C++ -*-===//
#ifndef COREAI_COREAI_DIALECT_H
#define COREAI_COREAI_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "coreai/ParamDialect.h.inc"
#include "coreai/CoreAIOpsDialect.h.inc"
#include "coreai/CoreAIEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "coreai/CoreAIAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "coreai/CoreAITypes.h.inc"

#define GET_TYPEDEF_CLASSES
#include "coreai/ParamTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "coreai/ParamAttrs.h.inc"

namespace coreai::core {
/// Whether `type` is a ranked tensor whose encoding is
/// #coreaix.hw_constraints<MTLBuffer, ...> (coreai.metal4_kernel's operands).
bool isMTLBufferBacked(::mlir::Type type);

/// Whether `type` is a tensor with a #coreai.sparse_tensor_encoding (with the
/// given scheme, when one is given). coreai-core's "CoreAI Tensor"
/// constraints reject sparse tensors.
inline bool isSparseEncoded(::mlir::Type type,
                            std::optional<CompressionScheme> scheme = std::nullopt) {
  auto tensor = ::llvm::dyn_cast<::mlir::RankedTensorType>(type);
  auto sparse = tensor ? ::llvm::dyn_cast_or_null<SparseTensorEncodingAttr>(
                             tensor.getEncoding())
                       : SparseTensorEncodingAttr();
  return sparse && (!scheme || sparse.getCompressionScheme() == *scheme);
}
} // namespace coreai::core

#define GET_OP_CLASSES
#include "coreai/CoreAIOps.h.inc"

#endif // COREAI_COREAI_DIALECT_H
