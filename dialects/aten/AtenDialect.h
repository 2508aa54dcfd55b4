//===- AtenDialect.h - the aten dialect ---------------------------*- C++ -*-===//
#ifndef COREAI_ATEN_DIALECT_H
#define COREAI_ATEN_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "aten/AtenOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "aten/AtenOps.h.inc"

#endif // COREAI_ATEN_DIALECT_H
