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
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "coreai/ParamDialect.h.inc"
#include "coreai/CoreAIOpsDialect.h.inc"
#include "coreai/CoreAIEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "coreai/CoreAITypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "coreai/CoreAIAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "coreai/ParamTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "coreai/ParamAttrs.h.inc"

#define GET_OP_CLASSES
#include "coreai/CoreAIOps.h.inc"

#endif // COREAI_COREAI_DIALECT_H
