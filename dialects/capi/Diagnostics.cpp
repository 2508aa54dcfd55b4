//===- Diagnostics.cpp - C API: an error with attached notes --------------===//
//
// The MLIR C API emits single diagnostics only; boundary passes report one
// error with one note per offending operation.
//
//===----------------------------------------------------------------------===//

#include "coreai-c/CoreAI.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

void coreaiEmitErrorWithNotes(MlirLocation location, MlirStringRef message,
                              intptr_t numNotes, const MlirLocation *noteLocations,
                              const MlirStringRef *noteMessages) {
  mlir::InFlightDiagnostic diag = mlir::emitError(unwrap(location))
                                  << unwrap(message);
  for (intptr_t i = 0; i < numNotes; ++i)
    diag.attachNote(unwrap(noteLocations[i])) << unwrap(noteMessages[i]);
}

void coreaiEmitRemark(MlirLocation location, MlirStringRef message) {
  mlir::emitRemark(unwrap(location)) << unwrap(message);
}
