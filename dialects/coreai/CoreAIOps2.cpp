//===- CoreAIOps2.cpp - generated coreai op definitions, shard 2 ----------===//
//
// The ODS-generated op definitions are split into four shards so that the
// translation units compile in parallel.
//
//===----------------------------------------------------------------------===//

#include "coreai/CoreAIDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

#define GET_OP_DEFS_2
#include "coreai/CoreAIOps.cpp.inc"
