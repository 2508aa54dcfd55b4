// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The pipeline of `coreai-compile --target ane` after the pass:
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane,canonicalize,cse,core-optimize)' | FileCheck %s --check-prefix=FOLD --enable-var-scope

// A linear layer (a product by a constant K×N weight) → a 1×1 conv2d in BC1S:
// the activation 1×B×S×K transposed to B×K×1×S, the weight N×K×1×1, the
// result B×N×1×S transposed to 1×B×S×N and reshaped back.
// CHECK-LABEL: coreai.graph @linear(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8x16xf16>
// CHECK:         %[[X4:.*]] = coreai.reshape %[[X]], %{{.*}} -> tensor<1x2x8x16xf16>
// CHECK:         %[[XT:.*]] = coreai.transpose %[[X4]], %{{.*}} -> tensor<2x16x1x8xf16>
// CHECK:         %[[WT:.*]] = coreai.transpose %{{.*}} -> tensor<32x16x1x1xf16>
// CHECK:         %[[Y:.*]] = coreai.conv2d %[[XT]], %[[WT]], %{{.*}} : (tensor<2x16x1x8xf16>, tensor<32x16x1x1xf16>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<2x32x1x8xf16>
// CHECK:         %[[YT:.*]] = coreai.transpose %[[Y]], %{{.*}} -> tensor<1x2x8x32xf16>
// CHECK:         %[[R:.*]] = coreai.reshape %[[YT]], %{{.*}} -> tensor<2x8x32xf16>
// CHECK:         coreai.output %[[R]]
// REMARK: target-ane: loc({{.*}}): 'coreai.decomposable.broadcasting_batch_matmul' linear-conv1x1: the Neural Engine runs projections as 1x1 convolutions on (B, C, 1, S) activations
// FOLD-LABEL: coreai.graph @linear(
// FOLD:         %[[W:.*]] = coreai.constant dense<5.000000e-01> : tensor<32x16x1x1xf16>
// FOLD:         coreai.conv2d %{{.*}}, %[[W]]
// FOLD-NOT:     broadcasting_batch_matmul
coreai.graph @linear(%x: tensor<2x8x16xf16>) -> tensor<2x8x32xf16> {
  %w = coreai.constant dense<5.000000e-01> : tensor<16x32xf16>
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %w : (tensor<2x8x16xf16>, tensor<16x32xf16>) -> tensor<2x8x32xf16>
  coreai.output %p : tensor<2x8x32xf16>
}

// -----

// A SwiGLU MLP with a bias: `transpose-sink` carries BC1S through silu, the
// product and the bias add (the bias becomes 1×N×1×1), so once
// core-optimize composes the transposes that meet, the three convolutions
// have no transpose between them: one into BC1S, one out.
// CHECK-LABEL: coreai.graph @mlp(
// CHECK:         coreai.silu %{{.*}} : (tensor<1x32x1x8xf32>) -> tensor<1x32x1x8xf32>
// CHECK:         coreai.decomposable.broadcasting_mul %{{.*}} -> tensor<1x32x1x8xf32>
// CHECK:         coreai.decomposable.broadcasting_add %{{.*}} : (tensor<1x32x1x8xf32>, tensor<1x32x1x1xf32>) -> tensor<1x32x1x8xf32>
// REMARK-COUNT-3: linear-conv1x1
// REMARK-COUNT-3: transpose-sink: activations between projections stay in BC1S
// FOLD-LABEL: coreai.graph @mlp(
// FOLD:         %[[XT:.*]] = coreai.transpose %{{.*}} -> tensor<1x16x1x8xf32>
// FOLD-NOT:     coreai.transpose
// FOLD:         %[[G:.*]] = coreai.conv2d %[[XT]]
// FOLD-NOT:     coreai.transpose
// FOLD:         %[[S:.*]] = coreai.silu %[[G]]
// FOLD-NOT:     coreai.transpose
// FOLD:         %[[U:.*]] = coreai.conv2d %[[XT]]
// FOLD-NOT:     coreai.transpose
// FOLD:         %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[S]], %[[U]]
// FOLD-NOT:     coreai.transpose
// FOLD:         %[[B:.*]] = coreai.decomposable.broadcasting_add %[[M]], %{{.*}} : (tensor<1x32x1x8xf32>, tensor<1x32x1x1xf32>)
// FOLD-NOT:     coreai.transpose
// FOLD:         %[[D:.*]] = coreai.conv2d %[[B]]
// FOLD:         %[[DT:.*]] = coreai.transpose %[[D]], %{{.*}} -> tensor<1x1x8x16xf32>
// FOLD-NOT:     coreai.transpose
// FOLD:         coreai.output
coreai.graph @mlp(%x: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
  %wg = coreai.constant dense<2.500000e-01> : tensor<16x32xf32>
  %wu = coreai.constant dense<7.500000e-01> : tensor<16x32xf32>
  %wd = coreai.constant dense<1.250000e-01> : tensor<32x16xf32>
  %bias = coreai.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0]> : tensor<32xf32>
  %g = coreai.decomposable.broadcasting_batch_matmul %x, %wg : (tensor<1x8x16xf32>, tensor<16x32xf32>) -> tensor<1x8x32xf32>
  %s = coreai.silu %g : (tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %u = coreai.decomposable.broadcasting_batch_matmul %x, %wu : (tensor<1x8x16xf32>, tensor<16x32xf32>) -> tensor<1x8x32xf32>
  %m = coreai.decomposable.broadcasting_mul %s, %u : (tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %b = coreai.decomposable.broadcasting_add %m, %bias : (tensor<1x8x32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
  %d = coreai.decomposable.broadcasting_batch_matmul %b, %wd : (tensor<1x8x32xf32>, tensor<32x16xf32>) -> tensor<1x8x16xf32>
  coreai.output %d : tensor<1x8x16xf32>
}

// -----

// Does not fire: a weight that is not a constant (matmul-rank4 takes it),
// a weight with a batch of matrices, a dynamic dim.
// CHECK-LABEL: coreai.graph @keeps(
// CHECK-NOT:     coreai.conv2d
// CHECK:         broadcasting_batch_matmul %{{.*}}, %{{.*}} : (tensor<1x1x8x16xf32>, tensor<1x1x16x32xf32>)
// CHECK:         broadcasting_batch_matmul %{{.*}}, %{{.*}} : (tensor<2x8x16xf32>, tensor<2x16x32xf32>)
// CHECK:         broadcasting_batch_matmul %{{.*}}, %{{.*}} : (tensor<1x1x?x16xf32>, tensor<1x1x16x32xf32>)
// REMARK-NOT: linear-conv1x1
coreai.graph @keeps(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %y: tensor<2x8x16xf32>, %z: tensor<?x16xf32>) -> (tensor<8x32xf32>, tensor<2x8x32xf32>, tensor<?x32xf32>) {
  %wb = coreai.constant dense<2.500000e-01> : tensor<2x16x32xf32>
  %wc = coreai.constant dense<2.500000e-01> : tensor<16x32xf32>
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %w : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %q = coreai.decomposable.broadcasting_batch_matmul %y, %wb : (tensor<2x8x16xf32>, tensor<2x16x32xf32>) -> tensor<2x8x32xf32>
  %r = coreai.decomposable.broadcasting_batch_matmul %z, %wc : (tensor<?x16xf32>, tensor<16x32xf32>) -> tensor<?x32xf32>
  coreai.output %p, %q, %r : tensor<8x32xf32>, tensor<2x8x32xf32>, tensor<?x32xf32>
}

// -----

// transpose-sink declines: operands transposed by different permutations,
// an operand that is neither a transpose nor a constant, a widening cast
// (its transpose stays on the f16 side: layout-in-f16).
// CHECK-LABEL: coreai.graph @sink_declines(
// CHECK:         coreai.decomposable.broadcasting_add %{{.*}}, %{{.*}} : (tensor<3x2x4xf32>, tensor<3x2x4xf32>)
// CHECK:         coreai.decomposable.broadcasting_mul %{{.*}}, %arg2 : (tensor<3x2x4xf32>, tensor<3x2x4xf32>)
// CHECK:         coreai.cast %{{.*}} : tensor<3x2x4xf16> to tensor<3x2x4xf32>
// REMARK-NOT: transpose-sink
coreai.graph @sink_declines(%a: tensor<2x3x4xf32>, %b: tensor<4x2x3xf32>, %c: tensor<3x2x4xf32>, %h: tensor<2x3x4xf16>) -> (tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x4xf32>) {
  %p = coreai.constant dense<[1, 0, 2]> : tensor<3xui32>
  %q = coreai.constant dense<[2, 1, 0]> : tensor<3xui32>
  %ta = coreai.transpose %a, %p : (tensor<2x3x4xf32>, tensor<3xui32>) -> tensor<3x2x4xf32>
  %tb = coreai.transpose %b, %q : (tensor<4x2x3xf32>, tensor<3xui32>) -> tensor<3x2x4xf32>
  %s = coreai.decomposable.broadcasting_add %ta, %tb : (tensor<3x2x4xf32>, tensor<3x2x4xf32>) -> tensor<3x2x4xf32>
  %ta2 = coreai.transpose %a, %p : (tensor<2x3x4xf32>, tensor<3xui32>) -> tensor<3x2x4xf32>
  %m = coreai.decomposable.broadcasting_mul %ta2, %c : (tensor<3x2x4xf32>, tensor<3x2x4xf32>) -> tensor<3x2x4xf32>
  %th = coreai.transpose %h, %p : (tensor<2x3x4xf16>, tensor<3xui32>) -> tensor<3x2x4xf16>
  %w = coreai.cast %th : tensor<3x2x4xf16> to tensor<3x2x4xf32>
  coreai.output %s, %m, %w : tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x4xf32>
}

// -----

// Attention's head split after a projection and head merge before one:
// `transpose-pair` makes each pair of transposes around a reshape one
// transpose (Apple's bc1s_to_gpu: reshape (B, H, D, S) then permute; and
// gpu_to_bc1s: permute then reshape (B, H·D, 1, S)).
// REMARK: linear-conv1x1
// REMARK: transpose-pair: a transpose to or from BC1S and a head transpose around a reshape become one transpose
// FOLD-LABEL: coreai.graph @heads(
// FOLD:         %[[Q:.*]] = coreai.conv2d %{{.*}} -> tensor<1x64x1x8xf32>
// FOLD-NEXT:    %[[QS:.*]] = coreai.reshape %[[Q]], %{{.*}} -> tensor<1x4x16x8xf32>
// FOLD-NEXT:    %[[QT:.*]] = coreai.transpose %[[QS]], %{{.*}} -> tensor<1x4x8x16xf32>
// FOLD:         %[[VT:.*]] = coreai.transpose %arg1, %{{.*}} : (tensor<1x4x8x16xf32>, tensor<4xui32>) -> tensor<1x4x16x8xf32>
// FOLD-NEXT:    %[[VM:.*]] = coreai.reshape %[[VT]], %{{.*}} -> tensor<1x64x1x8xf32>
// FOLD-NOT:     coreai.transpose
// FOLD:         coreai.conv2d %[[VM]]
// FOLD:         coreai.output %[[QT]]
coreai.graph @heads(%x: tensor<1x8x64xf32>, %v: tensor<1x4x8x16xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x8x64xf32>) {
  %wq = coreai.constant dense<2.500000e-01> : tensor<64x64xf32>
  %wo = coreai.constant dense<5.000000e-01> : tensor<64x64xf32>
  %split = coreai.constant dense<[1, 8, 4, 16]> : tensor<4xui32>
  %merge = coreai.constant dense<[1, 8, 64]> : tensor<3xui32>
  %perm = coreai.constant dense<[0, 2, 1, 3]> : tensor<4xui32>
  %q = coreai.decomposable.broadcasting_batch_matmul %x, %wq : (tensor<1x8x64xf32>, tensor<64x64xf32>) -> tensor<1x8x64xf32>
  %qs = coreai.reshape %q, %split : (tensor<1x8x64xf32>, tensor<4xui32>) -> tensor<1x8x4x16xf32>
  %qt = coreai.transpose %qs, %perm : (tensor<1x8x4x16xf32>, tensor<4xui32>) -> tensor<1x4x8x16xf32>
  %vt = coreai.transpose %v, %perm : (tensor<1x4x8x16xf32>, tensor<4xui32>) -> tensor<1x8x4x16xf32>
  %vm = coreai.reshape %vt, %merge : (tensor<1x8x4x16xf32>, tensor<3xui32>) -> tensor<1x8x64xf32>
  %o = coreai.decomposable.broadcasting_batch_matmul %vm, %wo : (tensor<1x8x64xf32>, tensor<64x64xf32>) -> tensor<1x8x64xf32>
  coreai.output %qt, %o : tensor<1x4x8x16xf32>, tensor<1x8x64xf32>
}

// -----

// One token (or one pooled vector): the moves into and out of BC1S only
// move unit dims, so they are reshapes, not transposes.
// CHECK-LABEL: coreai.graph @one_token(
// CHECK-NOT:     coreai.transpose %arg0
// CHECK:         coreai.reshape %{{.*}} -> tensor<1x64x1x1xf16>
// CHECK:         coreai.conv2d %{{.*}} -> tensor<1x32x1x1xf16>
// CHECK-NOT:     coreai.transpose
// CHECK:         coreai.output
coreai.graph @one_token(%x: tensor<1x64xf16>) -> tensor<1x32xf16> {
  %w = coreai.constant dense<5.000000e-01> : tensor<64x32xf16>
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %w : (tensor<1x64xf16>, tensor<64x32xf16>) -> tensor<1x32xf16>
  coreai.output %p : tensor<1x32xf16>
}

// -----

// A quantized weight (quantize-weights' blockwise_shift_scale of constant
// codes, scales and offsets): its parts move to N×K×1×1 and the
// decompression gives the convolution's weight, so the moves fold into the
// constants and no decompressed weight is transposed at run time.
// FOLD-LABEL: coreai.graph @quantized(
// FOLD:         %[[W:.*]] = coreai.blockwise_shift_scale %{{.*}} : (tensor<32x16x1x1xsi8>, tensor<32x1x1x1xf16>, tensor<32x1x1x1xsi8>, tensor<32x1x1x1xf16>) -> tensor<32x16x1x1xf16>
// FOLD-NOT:     coreai.transpose %[[W]]
// FOLD:         coreai.conv2d %{{.*}}, %[[W]]
coreai.graph @quantized(%x: tensor<1x8x16xf16>) -> tensor<1x8x32xf16> {
  %codes = coreai.constant dense<3> : tensor<16x32xsi8>
  %scale = coreai.constant dense<1.250000e-01> : tensor<1x32xf16>
  %zero = coreai.constant dense<0> : tensor<1x32xsi8>
  %zerof = coreai.constant dense<0.000000e+00> : tensor<1x32xf16>
  %w = coreai.blockwise_shift_scale %codes, %scale, %zero, %zerof : (tensor<16x32xsi8>, tensor<1x32xf16>, tensor<1x32xsi8>, tensor<1x32xf16>) -> tensor<16x32xf16>
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %w : (tensor<1x8x16xf16>, tensor<16x32xf16>) -> tensor<1x8x32xf16>
  coreai.output %p : tensor<1x8x32xf16>
}

// -----

// A palettized weight with vector entries of 2 output channels
// (palettize-weights' lut_to_dense, the vector along the N axis of a K×N
// weight, axis 1): the indices and palettes move to N×K×1×1 and the
// vector axis with its dim (0).
// FOLD-LABEL: coreai.graph @palettized(
// FOLD:         %[[A:.*]] = coreai.constant dense<0> : tensor<si16>
// FOLD:         %[[W:.*]] = coreai.lut_to_dense %{{.*}}, %{{.*}}, %[[A]] : (tensor<16x16x1x1xui4>, tensor<1x1x1x1x4x2xf16>, tensor<si16>) -> tensor<32x16x1x1xf16>
// FOLD-NOT:     coreai.transpose %[[W]]
// FOLD:         coreai.conv2d %{{.*}}, %[[W]]
coreai.graph @palettized(%x: tensor<1x8x16xf16>) -> tensor<1x8x32xf16> {
  %idx = coreai.constant dense<1> : tensor<16x16xui4>
  %lut = coreai.constant dense<[[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]]]> : tensor<1x1x4x2xf16>
  %axis = coreai.constant dense<1> : tensor<si16>
  %w = coreai.lut_to_dense %idx, %lut, %axis : (tensor<16x16xui4>, tensor<1x1x4x2xf16>, tensor<si16>) -> tensor<16x32xf16>
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %w : (tensor<1x8x16xf16>, tensor<16x32xf16>) -> tensor<1x8x32xf16>
  coreai.output %p : tensor<1x8x32xf16>
}

// -----

// A projection's result read twice (`h · min(h + 3, 6)`): the reshape and
// the transpose move past both readers, one after the other, and die, so
// the two convolutions have no transpose between them.
// FOLD-LABEL: coreai.graph @read_twice(
// FOLD:         %[[U:.*]] = coreai.conv2d
// FOLD-NOT:     coreai.transpose
// FOLD:         coreai.decomposable.broadcasting_mul %[[U]], %{{.*}} : (tensor<1x32x1x8xf32>, tensor<1x32x1x8xf32>)
// FOLD-NOT:     coreai.transpose
// FOLD:         coreai.conv2d
coreai.graph @read_twice(%x: tensor<1x8x16xf32>) -> tensor<1x8x16xf32> {
  %wu = coreai.constant dense<2.500000e-01> : tensor<16x32xf32>
  %wd = coreai.constant dense<1.250000e-01> : tensor<32x16xf32>
  %three = coreai.constant dense<3.000000e+00> : tensor<f32>
  %six = coreai.constant dense<6.000000e+00> : tensor<f32>
  %h = coreai.decomposable.broadcasting_batch_matmul %x, %wu : (tensor<1x8x16xf32>, tensor<16x32xf32>) -> tensor<1x8x32xf32>
  %a = coreai.decomposable.broadcasting_add %h, %three : (tensor<1x8x32xf32>, tensor<f32>) -> tensor<1x8x32xf32>
  %c = coreai.decomposable.broadcasting_minimum %a, %six : (tensor<1x8x32xf32>, tensor<f32>) -> tensor<1x8x32xf32>
  %m = coreai.decomposable.broadcasting_mul %h, %c : (tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %d = coreai.decomposable.broadcasting_batch_matmul %m, %wd : (tensor<1x8x32xf32>, tensor<32x16xf32>) -> tensor<1x8x16xf32>
  coreai.output %d : tensor<1x8x16xf32>
}

// -----

// One token's head split, `(1, 1, H, D)` to `(1, H, 1, D)`, moves only a
// unit dim: the elements keep their order, so the transpose is a reshape.
// A transpose that reorders two dims larger than 1 stays.
// CHECK-LABEL: coreai.graph @one_token(
// CHECK:         %[[R:.*]] = coreai.reshape %{{.*}} -> tensor<1x4x1x16xf16>
// CHECK:         coreai.transpose %[[R]], %{{.*}} -> tensor<1x16x1x4xf16>
// CHECK-NOT:     coreai.transpose
// REMARK: bc1s.mlir":[[@LINE+4]]:{{.*}} 'coreai.transpose' transpose-unit-dims: a transpose that moves only unit dims keeps the elements in order
coreai.graph @one_token(%x: tensor<1x1x4x16xf16>) -> tensor<1x16x1x4xf16> {
  %p = coreai.constant dense<[0, 2, 1, 3]> : tensor<4xui32>
  %q = coreai.constant dense<[0, 3, 2, 1]> : tensor<4xui32>
  %h = coreai.transpose %x, %p : (tensor<1x1x4x16xf16>, tensor<4xui32>) -> tensor<1x4x1x16xf16>
  %t = coreai.transpose %h, %q : (tensor<1x4x1x16xf16>, tensor<4xui32>) -> tensor<1x16x1x4xf16>
  coreai.output %t : tensor<1x16x1x4xf16>
}
