//===- Exceptions.cpp - A C++ exception out of MLIR ends the process ------===//
//
// MLIR 22 is built without exception handling, but the C++ library it calls
// still throws: std::vector throws std::length_error for a size read from a
// malformed bytecode file (mlir::BytecodeReader's parseRegion). The exception
// unwinds through MLIR's frames into the Rust caller, whose runtime aborts
// with a line of its own ("Rust cannot catch foreign exceptions") before the
// tool's crash handler prints its one message. This file alone is compiled
// with exception handling (see CMakeLists.txt): a throw inside `body` stops
// here and the process aborts at once, so the crash handler's message is the
// only one. MLIR's frames are not unwound cleanly (they have no cleanups), so
// nothing may continue after a throw.
//
//===----------------------------------------------------------------------===//

#include "coreai-c/CoreAI.h"

#include <cstdlib>

void coreaiAbortOnCxxException(void (*body)(void *), void *userData) {
  try {
    body(userData);
  } catch (...) {
    std::abort();
  }
}
