// RUN: coreai-opt %s --pass-pipeline='builtin.module(cast-to-f16)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --pass-pipeline='builtin.module(cast-to-f16{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A custom Metal kernel keeps its types: its source declares `float`
// tensors and a `constant float&` scalar, so its arguments, results and
// MTLBuffer copies stay f32 (f16 producers are cast up); the ops around it
// convert.
// CHECK-LABEL: coreai.graph @kernel_stays_f32(
// CHECK:         %[[E:.*]] = coreai.exp %{{.*}} : tensor<4xf16> -> tensor<4xf16>
// CHECK:         %[[UP:.*]] = coreai.cast %[[E]] : tensor<4xf16> to tensor<4xf32>
// CHECK:         %[[XM:.*]] = coreaix.copy_with_constraints(%[[UP]]) : (tensor<4xf32>) -> tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
// CHECK:         coreaix.copy_with_constraints(%{{.*}}) : (tensor<f32>) -> tensor<f32, #coreaix.hw_constraints<MTLBuffer, alignments: [1], interleave: []>>
// CHECK:         %[[K:.*]] = coreai.metal4_kernel kernel_args(%[[XM]], %{{.*}}), {{.*}} : (tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>, tensor<f32, #coreaix.hw_constraints<MTLBuffer, alignments: [1], interleave: []>>, tensor<3xui32>, tensor<3xui32>, tensor<1xui32>) -> tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
// CHECK:         %[[H:.*]] = coreaix.copy_discarding_constraints(%[[K]]) {{.*}} -> tensor<4xf32>
// CHECK:         coreai.cast %[[H]] : tensor<4xf32> to tensor<4xf16>
// REMARK-DAG: 'coreai.metal4_kernel' kept f32: a custom Metal kernel: its source is written for its types
// REMARK-DAG: 'coreaix.copy_discarding_constraints' kept f32: a custom Metal kernel: its source is written for its types
coreai.graph @kernel_stays_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = coreai.exp %x : tensor<4xf32> -> tensor<4xf32>
  %xm = coreaix.copy_with_constraints(%e) : (tensor<4xf32>) -> tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
  %s = coreai.constant dense<2.500000e+00> : tensor<f32>
  %sm = coreaix.copy_with_constraints(%s) : (tensor<f32>) -> tensor<f32, #coreaix.hw_constraints<MTLBuffer, alignments: [1], interleave: []>>
  %g = coreai.constant dense<[4, 1, 1]> : tensor<3xui32>
  %shape = coreai.constant dense<4> : tensor<1xui32>
  %k = coreai.metal4_kernel kernel_args(%xm, %sm), threads_per_grid %g, threads_per_thread_group %g, result_shapes(%shape) {kernel_name = "k_abcdefgh", kernel_source = "..."} : (tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>, tensor<f32, #coreaix.hw_constraints<MTLBuffer, alignments: [1], interleave: []>>, tensor<3xui32>, tensor<3xui32>, tensor<1xui32>) -> tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>
  %h = coreaix.copy_discarding_constraints(%k) : (tensor<4xf32, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>>) -> tensor<4xf32>
  %r = coreai.relu %h : (tensor<4xf32>) -> tensor<4xf32>
  coreai.output %r : tensor<4xf32>
}
