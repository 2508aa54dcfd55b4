// RUN: not coreai-opt %s --pass-pipeline='builtin.module(ane-residency{require-resident=true})' -o %t 2>&1 | FileCheck %s
// RUN: coreai-opt %s --pass-pipeline='builtin.module(ane-residency)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// require-resident=true: one error listing the ops that would leave the
// Neural Engine, a note at each, and the pass fails; without it the same
// ops are remarks and the pass succeeds.

// CHECK: ane-residency: 1 of 3 ops Neural-Engine-resident (2 leave it: dtype: 2)
// CHECK: error: ane-residency: 2 of 3 ops would leave the Neural Engine (require-resident=true): coreai.exp, coreai.reduce_sum
// CHECK: note: 'coreai.exp' leaves the Neural Engine: dtype: operand #0 is tensor<8xf32>
// CHECK: note: 'coreai.reduce_sum' leaves the Neural Engine: dtype: operand #0 is tensor<8xf32>

// REPORT-COUNT-2: remark: ane-residency:
// REPORT: ane-residency: 1 of 3 ops Neural-Engine-resident (2 leave it: dtype: 2)

coreai.graph @main(%x: tensor<8xf16>, %y: tensor<8xf32>) -> (tensor<8xf16>, tensor<1xf32>) {
  %a = coreai.abs %x : tensor<8xf16> -> tensor<8xf16>
  %e = coreai.exp %y : tensor<8xf32> -> tensor<8xf32>
  %axes = coreai.constant dense<[0]> : tensor<1xsi32>
  %s = coreai.reduce_sum %e, %axes : (tensor<8xf32>, tensor<1xsi32>) -> tensor<1xf32>
  coreai.output %a, %s : tensor<8xf16>, tensor<1xf32>
}
