// RUN: coreai-opt %s --pass-pipeline='builtin.module(test-plant-miscompile{op=coreai.abs loc=abs_1})' | FileCheck %s
// RUN: coreai-opt %s --pass-pipeline='builtin.module(test-plant-miscompile{op=coreai.abs loc=abs_1 trace-rewrites=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// RUN: coreai-opt %s --pass-pipeline='builtin.module(test-plant-miscompile{op=coreai.abs loc=abs_9})' | FileCheck %s --check-prefix=NONE

// loc=NAME picks the match by its location name, whatever its number: the
// abs named abs_1 (the third match) is skipped, the others stay, and every
// match is still numbered in the trace.
// CHECK-LABEL: coreai.graph @by_name
// CHECK:         %[[A:.*]] = coreai.abs %arg0
// CHECK:         %[[B:.*]] = coreai.abs %[[A]]
// CHECK:         %[[C:.*]] = coreai.abs %[[B]]
// CHECK:         %[[D:.*]] = coreai.abs %[[B]]
// CHECK:         coreai.output %[[D]]
// TRACE: rewrite test-plant-miscompile #1 plant-miscompile at loc("abs"
// TRACE: rewrite test-plant-miscompile #2 plant-miscompile at loc("neg"
// TRACE: rewrite test-plant-miscompile #3 plant-miscompile at loc("abs_1"
// TRACE: rewrite test-plant-miscompile #4 plant-miscompile at loc("abs_2"

// Does not fire: no match is named abs_9 (a name the op list lacks).
// NONE-LABEL: coreai.graph @by_name
// NONE:         %[[A:.*]] = coreai.abs %arg0
// NONE:         %[[B:.*]] = coreai.abs %[[A]]
// NONE:         %[[C:.*]] = coreai.abs %[[B]]
// NONE:         %[[D:.*]] = coreai.abs %[[C]]
// NONE:         coreai.output %[[D]]
coreai.graph @by_name(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %a = coreai.abs %arg0 : tensor<3xf32> -> tensor<3xf32> loc("abs"("m.py":1:0))
  %b = coreai.abs %a : tensor<3xf32> -> tensor<3xf32> loc("neg"("m.py":2:0))
  %c = coreai.abs %b : tensor<3xf32> -> tensor<3xf32> loc("abs_1"("m.py":3:0))
  %d = coreai.abs %c : tensor<3xf32> -> tensor<3xf32> loc("abs_2"("m.py":4:0))
  coreai.output %d : tensor<3xf32>
}
