# Finds LLVM/MLIR and checks that its major version is the one the project is
# pinned to. The pin itself lives in crates/coreai-ir/build.rs (LLVM_MAJOR), which passes it here
# as COREAI_LLVM_MAJOR together with MLIR_DIR.
if(NOT DEFINED COREAI_LLVM_MAJOR)
  message(FATAL_ERROR "COREAI_LLVM_MAJOR is not set; configure through build.rs (cargo build)")
endif()

find_package(MLIR REQUIRED CONFIG)
if(NOT LLVM_VERSION_MAJOR EQUAL COREAI_LLVM_MAJOR)
  message(FATAL_ERROR
    "coreai needs LLVM/MLIR ${COREAI_LLVM_MAJOR}.x, but MLIR_DIR=${MLIR_DIR} is "
    "${LLVM_PACKAGE_VERSION}. Install llvm-${COREAI_LLVM_MAJOR}-dev and "
    "libmlir-${COREAI_LLVM_MAJOR}-dev (scripts/setup.sh does).")
endif()
message(STATUS "coreai: MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(COREAI_LLVM_DEFINITIONS NATIVE_COMMAND ${LLVM_DEFINITIONS})
add_definitions(${COREAI_LLVM_DEFINITIONS})
