// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(narrow-index-inputs)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(narrow-index-inputs{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Token ids (si64) cast to si32, reshaped and gathered from a 64-row table
// → the argument is si16, the chain computes in si16, the cast is gone.
// CHECK-LABEL: coreai.graph @embedding(
// CHECK-SAME:    %[[IDS:.*]]: tensor<2x9xsi16> {coreai.name = "ids"}, %[[T:.*]]: tensor<64x16xf16>) -> tensor<2x9x16xf16>
// CHECK-NOT:     coreai.cast
// CHECK:         %[[R:.*]] = coreai.reshape %[[IDS]], %{{.*}} : (tensor<2x9xsi16>, tensor<3xui32>) -> tensor<2x9x1xsi16>
// CHECK:         coreai.gather_nd %[[T]] at %[[R]] : (tensor<64x16xf16>, tensor<2x9x1xsi16>)
// REMARK: narrow-index-inputs: loc({{.*}}): an argument of type tensor<2x9xsi64> becomes si16: it only indexes
coreai.graph @embedding(%ids: tensor<2x9xsi64> {coreai.name = "ids"}, %t: tensor<64x16xf16>) -> tensor<2x9x16xf16> {
  %c = coreai.cast %ids : tensor<2x9xsi64> to tensor<2x9xsi32>
  %s = coreai.constant dense<[2, 9, 1]> : tensor<3xui32>
  %r = coreai.reshape %c, %s : (tensor<2x9xsi32>, tensor<3xui32>) -> tensor<2x9x1xsi32>
  %g = coreai.gather_nd %t at %r : (tensor<64x16xf16>, tensor<2x9x1xsi32>) to tensor<2x9x16xf16>
  coreai.output %g : tensor<2x9x16xf16>
}

// -----

// Through the private graph target-ane's embedding-iosurface calls once: its
// index parameter becomes si16 too.
// CHECK-LABEL: coreai.graph private noinline @gather(
// CHECK-SAME:    %{{.*}}: tensor<64x16xf16>, %[[I:.*]]: tensor<4x1xsi16>) -> tensor<4x16xf16>
// CHECK:         coreai.gather_nd %{{.*}} at %[[I]] : (tensor<64x16xf16>, tensor<4x1xsi16>)
// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %[[IDS:.*]]: tensor<4xsi16>
// CHECK:         %[[R:.*]] = coreai.reshape %[[IDS]]
// CHECK:         coreai.invoke @gather(%{{.*}}, %[[R]]) : (tensor<64x16xf16>, tensor<4x1xsi16>) -> tensor<4x16xf16>
coreai.graph private noinline @gather(%t: tensor<64x16xf16>, %i: tensor<4x1xsi32>) -> tensor<4x16xf16> {
  %g = coreai.gather_nd %t at %i : (tensor<64x16xf16>, tensor<4x1xsi32>) to tensor<4x16xf16>
  coreai.output %g : tensor<4x16xf16>
}
coreai.graph @main(%ids: tensor<4xsi64>, %t: tensor<64x16xf16>) -> tensor<4x16xf16> {
  %c = coreai.cast %ids : tensor<4xsi64> to tensor<4xsi32>
  %s = coreai.constant dense<[4, 1]> : tensor<2xui32>
  %r = coreai.reshape %c, %s : (tensor<4xsi32>, tensor<2xui32>) -> tensor<4x1xsi32>
  %g = coreai.invoke @gather(%t, %r) : (tensor<64x16xf16>, tensor<4x1xsi32>) -> tensor<4x16xf16>
  coreai.output %g : tensor<4x16xf16>
}

// -----

// Declined: a 40000-row vocabulary (si16 holds indices up to 32767), and
// ids that are also added (not only an index).
// CHECK-LABEL: coreai.graph @declined(
// CHECK-SAME:    tensor<3xsi64>, %{{.*}}: tensor<40000x8xf16>, %{{.*}}: tensor<3xsi32>
// REMARK: an argument of type tensor<3xsi64> keeps its type: it indexes a dim of 40000 (si16 holds indices up to 32767)
// REMARK: an argument of type tensor<3xsi32> keeps its type: operand #0 of 'coreai.decomposable.broadcasting_add' is not an index
coreai.graph @declined(%ids: tensor<3xsi64>, %t: tensor<40000x8xf16>, %j: tensor<3xsi32>) -> (tensor<3x8xf16>, tensor<3xsi32>) {
  %c = coreai.cast %ids : tensor<3xsi64> to tensor<3xsi32>
  %s = coreai.constant dense<[3, 1]> : tensor<2xui32>
  %r = coreai.reshape %c, %s : (tensor<3xsi32>, tensor<2xui32>) -> tensor<3x1xsi32>
  %g = coreai.gather_nd %t at %r : (tensor<40000x8xf16>, tensor<3x1xsi32>) to tensor<3x8xf16>
  %one = coreai.constant dense<1> : tensor<si32>
  %a = coreai.decomposable.broadcasting_add %j, %one : (tensor<3xsi32>, tensor<si32>) -> tensor<3xsi32>
  coreai.output %g, %a : tensor<3x8xf16>, tensor<3xsi32>
}
