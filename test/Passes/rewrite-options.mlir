// The options every project pass takes, handled once by the registry and the
// rewrite driver (crates/coreai-ir/src/rewrite.rs): max-rewrites=N applies only the first N
// rewrites of the pass, numbered in its deterministic order (program order,
// then sweep by sweep); trace-rewrites=true prints one line per rewrite.
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fold-idempotent-unary,decompose,legalize-aten-to-coreai)' | FileCheck %s --check-prefix=ALL --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fold-idempotent-unary{trace-rewrites=true},decompose{trace-rewrites=true},legalize-aten-to-coreai{trace-rewrites=true})' 2>&1 >/dev/null | FileCheck %s --check-prefix=TRACE
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fold-idempotent-unary{max-rewrites=1},decompose,legalize-aten-to-coreai{max-rewrites=2})' | FileCheck %s --check-prefix=FIRST --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fold-idempotent-unary{max-rewrites=0},decompose{max-rewrites=0})' | FileCheck %s --check-prefix=NONE --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fold-idempotent-unary{max-rewrites=-1},decompose{max-rewrites=-1},legalize-aten-to-coreai{max-rewrites=-1})' | FileCheck %s --check-prefix=ALL --enable-var-scope
// RUN: not coreai-opt %s --split-input-file --pass-pipeline='builtin.module(decompose{max-rewrites=x})' 2>&1 | FileCheck %s --check-prefix=BAD-COUNT
// RUN: not coreai-opt %s --split-input-file --pass-pipeline='builtin.module(fold-idempotent-unary{trace-rewrites=yes})' 2>&1 | FileCheck %s --check-prefix=BAD-BOOL

// BAD-COUNT: pass 'decompose', option 'max-rewrites': 'x' is not a count (0, 1, ... or -1 for all)
// BAD-BOOL: pass 'fold-idempotent-unary', option 'trace-rewrites': 'yes' is not true or false

// A chain of three relus: the second and third fold (#1, #2).
// TRACE:      rewrite fold-idempotent-unary #1 aten.relu.default at loc("second")
// TRACE-NEXT: rewrite fold-idempotent-unary #2 aten.relu.default at loc("third")
// TRACE-NEXT: rewrite legalize-aten-to-coreai #1 aten::relu.default at loc("first")
// ALL-LABEL: coreai.graph @relu_chain(
// ALL-SAME:    %[[X:.*]]: tensor<2x3xf32>
// ALL:         %[[R:.*]] = coreai.relu %[[X]]
// ALL-NOT:     relu
// ALL:         coreai.output %[[R]]
// Only the first fold happens; the legalizer's two rewrites lower both relus.
// FIRST-LABEL: coreai.graph @relu_chain(
// FIRST-SAME:    %[[X:.*]]: tensor<2x3xf32>
// FIRST:         %[[R0:.*]] = coreai.relu %[[X]]
// FIRST:         %[[R1:.*]] = coreai.relu %[[R0]]
// FIRST-NOT:     relu
// FIRST:         coreai.output %[[R1]]
// Does not fire: max-rewrites=0 leaves the chain whole.
// NONE-LABEL: func.func @relu_chain(
// NONE-COUNT-3: aten.relu.default
// NONE-NOT:     relu
func.func @relu_chain(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = aten.relu.default %x : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("first")
  %1 = aten.relu.default %0 : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("second")
  %2 = aten.relu.default %1 : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("third")
  return %2 : tensor<2x3xf32>
}

// -----

// decompose: linear → permute + addmm (#1); the legalizer then numbers its
// lowerings in program order.
// TRACE:      rewrite decompose #1 aten.linear.default at loc("linear")
// TRACE-NEXT: rewrite legalize-aten-to-coreai #1 aten::permute.default at loc("linear")
// TRACE-NEXT: rewrite legalize-aten-to-coreai #2 aten::addmm.default at loc("linear")
// TRACE-NEXT: rewrite legalize-aten-to-coreai #3 aten::relu.default at loc("relu")
// TRACE-NOT:  rewrite
// ALL-LABEL: coreai.graph @linear_relu(
// ALL:         coreai.transpose
// ALL:         coreai.decomposable.broadcasting_batch_matmul
// ALL:         coreai.decomposable.broadcasting_add
// ALL:         %[[R:.*]] = coreai.relu
// ALL:         coreai.output %[[R]]
// The first two lowerings only: the relu is left as it was.
// FIRST-LABEL: coreai.graph @linear_relu(
// FIRST:         %[[ADD:.*]] = coreai.decomposable.broadcasting_add
// FIRST:         %[[R:.*]] = aten.relu.default %[[ADD]]
// FIRST:         coreai.output %[[R]]
// NONE-LABEL: func.func @linear_relu(
// NONE:         aten.linear.default
// NONE-NOT:     aten.addmm
func.func @linear_relu(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = aten.linear.default %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32> loc("linear")
  %1 = aten.relu.default %0 : (tensor<4x16xf32>) -> tensor<4x16xf32> loc("relu")
  return %1 : tensor<4x16xf32>
}
