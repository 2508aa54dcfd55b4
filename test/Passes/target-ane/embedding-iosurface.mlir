// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane,canonicalize,cse,core-optimize)' | FileCheck %s --check-prefix=FOLD

// Apple's IOSurface configuration for embedding tables (guide §7.7): a
// table of 16 rows (a multiple of the interleave 8) is passed as (V, 1, D),
// copied to the encoding, to a noinline graph that discards the encoding
// and gathers the rows.
// CHECK-LABEL: coreai.graph private noinline @embedding_gather(
// CHECK-SAME:    %[[T:.*]]: tensor<16x1x4xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1x1], interleave: [8x1x1]>> {coreai.name = "embedding_table"},
// CHECK-SAME:    %[[I:.*]]: tensor<2x3x1xsi32> {coreai.name = "input_ids"}) -> tensor<2x3x1x4xf16>
// CHECK-NOT:     composite_decl
// CHECK:         %[[U:.*]] = coreaix.copy_discarding_constraints(%[[T]]) : (tensor<16x1x4xf16, #coreaix.hw_constraints<IOSurface, {{.*}}>>) -> tensor<16x1x4xf16>
// CHECK:         %[[G:.*]] = coreai.gather_nd %[[U]] at %[[I]] : (tensor<16x1x4xf16>, tensor<2x3x1xsi32>) to tensor<2x3x1x4xf16>
// CHECK:         coreai.output %[[G]]
// CHECK-LABEL: coreai.graph @embedding(
// CHECK:         %[[C:.*]] = coreai.constant dense<1.500000e+00> : tensor<16x4xf16>
// CHECK:         %[[T3:.*]] = coreai.reshape %[[C]], %{{.*}} : (tensor<16x4xf16>, tensor<3xui32>) -> tensor<16x1x4xf16>
// CHECK:         %[[E:.*]] = coreaix.copy_with_constraints(%[[T3]]) : (tensor<16x1x4xf16>) -> tensor<16x1x4xf16, #coreaix.hw_constraints<IOSurface, alignments: [1x1x1x1], interleave: [8x1x1]>>
// CHECK:         %[[R:.*]] = coreai.invoke @embedding_gather(%[[E]], %arg0)
// CHECK:         %[[Y:.*]] = coreai.reshape %[[R]], %{{.*}} : (tensor<2x3x1x4xf16>, tensor<3xui32>) -> tensor<2x3x4xf16>
// CHECK:         coreai.output %[[Y]]
// REMARK: target-ane: loc({{.*}}): 'coreai.gather_nd' embedding-iosurface: Apple's IOSurface configuration for embedding tables (guide §7.7: alignments [1,1,1,1], interleave [8,1,1])
// The table's reshape folds into the constant; the copy and the graph stay.
// FOLD-LABEL: coreai.graph private noinline @embedding_gather(
// FOLD:         coreaix.copy_discarding_constraints
// FOLD-LABEL: coreai.graph @embedding(
// FOLD:         %[[C:.*]] = coreai.constant dense<1.500000e+00> : tensor<16x1x4xf16>
// FOLD:         %[[E:.*]] = coreaix.copy_with_constraints(%[[C]])
// FOLD:         coreai.invoke @embedding_gather(%[[E]], %arg0)
coreai.graph @embedding(%i: tensor<2x3x1xsi32>) -> tensor<2x3x4xf16> {
  %t = coreai.constant dense<1.5> : tensor<16x4xf16>
  %g = coreai.gather_nd %t at %i : (tensor<16x4xf16>, tensor<2x3x1xsi32>) to tensor<2x3x4xf16>
  coreai.output %g : tensor<2x3x4xf16>
}

// -----

// Two tables, two graphs, named in program order; a table of 12 rows (8
// does not divide them) is read as (V, 1, D) inline (embedding-v1d), and a
// table that is no constant, or a gather of single elements, is left alone.
// CHECK-LABEL: coreai.graph private noinline @embedding_gather(%{{.*}}: tensor<24x1x2xf32, #coreaix
// CHECK-LABEL: coreai.graph private noinline @embedding_gather_1(%{{.*}}: tensor<8x1x3xf32, #coreaix
// CHECK-NOT:   coreai.graph private
// CHECK-LABEL: coreai.graph @tables(
// CHECK:         coreai.invoke @embedding_gather(
// CHECK:         coreai.invoke @embedding_gather_1(
// CHECK:         %[[V:.*]] = coreai.reshape %{{.*}} -> tensor<12x1x2xf32>
// CHECK-NEXT:    coreai.gather_nd %[[V]] at %arg0 : (tensor<12x1x2xf32>, tensor<5x1xsi32>)
// CHECK:         coreai.gather_nd %arg1 at %arg0 : (tensor<16x2xf32>, tensor<5x1xsi32>)
// CHECK:         coreai.gather_nd %{{.*}} at %arg2 : (tensor<24x2xf32>, tensor<5x2xsi32>)
// REMARK: 'coreai.gather_nd' embedding-iosurface:
// REMARK: 'coreai.gather_nd' embedding-iosurface:
// REMARK: 'coreai.gather_nd' embedding-v1d:
// REMARK-NOT: 'coreai.gather_nd'
// REMARK: target-ane: loc({{.*}}): embedding-iosurface declined: the table has 12 rows, not a multiple of 8 (the interleave of Apple's embedding configuration must divide them)
// REMARK-NOT: declined
coreai.graph @tables(%i: tensor<5x1xsi32>, %u: tensor<16x2xf32>, %j: tensor<5x2xsi32>) -> (tensor<5x2xf32>, tensor<5x3xf32>, tensor<5x2xf32>, tensor<5x2xf32>, tensor<5xf32>) {
  %a = coreai.constant dense<1.0> : tensor<24x2xf32>
  %b = coreai.constant dense<2.0> : tensor<8x3xf32>
  %c = coreai.constant dense<3.0> : tensor<12x2xf32>
  %ga = coreai.gather_nd %a at %i : (tensor<24x2xf32>, tensor<5x1xsi32>) to tensor<5x2xf32>
  %gb = coreai.gather_nd %b at %i : (tensor<8x3xf32>, tensor<5x1xsi32>) to tensor<5x3xf32>
  %gc = coreai.gather_nd %c at %i : (tensor<12x2xf32>, tensor<5x1xsi32>) to tensor<5x2xf32>
  %gu = coreai.gather_nd %u at %i : (tensor<16x2xf32>, tensor<5x1xsi32>) to tensor<5x2xf32>
  %ge = coreai.gather_nd %a at %j : (tensor<24x2xf32>, tensor<5x2xsi32>) to tensor<5xf32>
  coreai.output %ga, %gb, %gc, %gu, %ge : tensor<5x2xf32>, tensor<5x3xf32>, tensor<5x2xf32>, tensor<5x2xf32>, tensor<5xf32>
}
