//===- CoreAIXDialect.h - the coreaix dialect ---------------------*- C++ -*-===//
#ifndef COREAI_COREAIX_DIALECT_H
#define COREAI_COREAIX_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "coreaix/CoreAIXOpsDialect.h.inc"
#include "coreaix/CoreAIXEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "coreaix/CoreAIXAttrs.h.inc"

#define GET_OP_CLASSES
#include "coreaix/CoreAIXOps.h.inc"

#endif // COREAI_COREAIX_DIALECT_H
