// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(test-plant-miscompile{op=coreai.abs nth=2})' | FileCheck %s
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(test-plant-miscompile{op=coreai.abs nth=2 max-rewrites=1})' | FileCheck %s --check-prefix=LIMIT
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(test-plant-miscompile{op=coreai.abs nth=2 trace-rewrites=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// RUN: not coreai-opt %s --split-input-file --pass-pipeline='builtin.module(test-plant-miscompile)' 2>&1 | FileCheck %s --check-prefix=NOOP

// The second abs is skipped: its user reads the first abs's operand chain.
// CHECK-LABEL: coreai.graph @second_of_three
// CHECK:         %[[A:.*]] = coreai.abs %arg0
// CHECK:         %[[B:.*]] = coreai.abs %[[A]]
// CHECK:         %[[C:.*]] = coreai.abs %[[A]]
// CHECK:         coreai.output %[[C]]
// LIMIT-LABEL: coreai.graph @second_of_three
// LIMIT:         %[[A:.*]] = coreai.abs %arg0
// LIMIT:         %[[B:.*]] = coreai.abs %[[A]]
// LIMIT:         %[[C:.*]] = coreai.abs %[[B]]
// LIMIT:         coreai.output %[[C]]
// TRACE: rewrite test-plant-miscompile #1 plant-miscompile at loc("{{.*}}test-plant-miscompile.mlir":[[@LINE+3]]
// TRACE: rewrite test-plant-miscompile #2 plant-miscompile at loc("{{.*}}test-plant-miscompile.mlir":[[@LINE+3]]
coreai.graph @second_of_three(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %a = coreai.abs %arg0 : tensor<3xf32> -> tensor<3xf32>
  %b = coreai.abs %a : tensor<3xf32> -> tensor<3xf32>
  %c = coreai.abs %b : tensor<3xf32> -> tensor<3xf32>
  coreai.output %c : tensor<3xf32>
}

// -----

// Does not fire: a single match is not the second.
// CHECK-LABEL: coreai.graph @one_match
// CHECK:         %[[A:.*]] = coreai.abs %arg0
// CHECK:         coreai.output %[[A]]
coreai.graph @one_match(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %a = coreai.abs %arg0 : tensor<3xf32> -> tensor<3xf32>
  coreai.output %a : tensor<3xf32>
}

// -----

// Does not fire: an op whose operand type differs from its result type is
// not a match (skipping it would not type-check).
// CHECK-LABEL: coreai.graph @type_changes
// CHECK:         coreai.cast
// CHECK:         coreai.cast
coreai.graph @type_changes(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %a = coreai.cast %arg0 : tensor<3xf32> to tensor<3xf16>
  %b = coreai.cast %a : tensor<3xf16> to tensor<3xf32>
  coreai.output %b : tensor<3xf32>
}

// NOOP: error: test-plant-miscompile: option 'op' is required
