// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// mm is one broadcasting batch matmul.
// CHECK-LABEL: coreai.graph @mm(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<3x4xf32>, %[[B:[^:]*]]: tensor<4x5xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[A]], %[[B]] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @mm(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = aten.mm.default %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// bmm: the same op on rank-3 operands.
// CHECK-LABEL: coreai.graph @bmm(
// CHECK:         coreai.decomposable.broadcasting_batch_matmul {{.*}} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
func.func @bmm(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = aten.bmm.default %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// addmm scales the product by alpha and the bias by beta before adding.
// CHECK-LABEL: coreai.graph @addmm_scaled(
// CHECK-SAME:    %[[C:[^:]*]]: tensor<5xf32>, %[[A:[^:]*]]: tensor<3x4xf32>, %[[B:[^:]*]]: tensor<4x5xf32>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[A]], %[[B]]
// CHECK:         %[[ALPHA:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK:         %[[PA:.*]] = coreai.decomposable.broadcasting_mul %[[P]], %[[ALPHA]]
// CHECK:         %[[BETA:.*]] = coreai.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         %[[CB:.*]] = coreai.decomposable.broadcasting_mul %[[C]], %[[BETA]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_add %[[PA]], %[[CB]] : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK:         coreai.output %[[R]]
func.func @addmm_scaled(%c: tensor<5xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = aten.addmm.default %c, %a, %b {beta = 0.5 : f64, alpha = 2 : i64} : (tensor<5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// beta = 0 ignores the bias entirely (NaN in it does not propagate), as in PyTorch.
// CHECK-LABEL: coreai.graph @addmm_beta_zero(
// CHECK-NEXT:    %[[P:.*]] = coreai.decomposable.broadcasting_batch_matmul
// CHECK-NEXT:    coreai.output %[[P]]
func.func @addmm_beta_zero(%c: tensor<5xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = aten.addmm.default %c, %a, %b {beta = 0 : i64, alpha = 1 : i64} : (tensor<5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// baddbmm (imported as aten.operator) with the default beta = alpha = 1.
// CHECK-LABEL: coreai.graph @baddbmm(
// CHECK-SAME:    %[[C:[^:]*]]: tensor<2x1x5xf32>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_batch_matmul {{.*}} -> tensor<2x3x5xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_add %[[P]], %[[C]]
func.func @baddbmm(%c: tensor<2x1x5xf32>, %a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = aten.operator "aten::baddbmm.default"(%c, %a, %b) : (tensor<2x1x5xf32>, tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// matmul with a 1-D right operand: a [K, 1] matrix, then the unit dim dropped.
// CHECK-LABEL: coreai.graph @matmul_vector(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x3x4xf32>, %[[V:[^:]*]]: tensor<4xf32>
// CHECK:         %[[COL:.*]] = coreai.reshape %[[V]], {{.*}} -> tensor<4x1xf32>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[A]], %[[COL]] : (tensor<2x3x4xf32>, tensor<4x1xf32>) -> tensor<2x3x1xf32>
// CHECK:         %[[R:.*]] = coreai.reshape %[[P]], {{.*}} -> tensor<2x3xf32>
// CHECK:         coreai.output %[[R]]
func.func @matmul_vector(%a: tensor<2x3x4xf32>, %v: tensor<4xf32>) -> tensor<2x3xf32> {
  %0 = aten.operator "aten::matmul.default"(%a, %v) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// linear: x @ transpose(w) + b.
// CHECK-LABEL: coreai.graph @linear(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x4xf32>, %[[W:[^:]*]]: tensor<3x4xf32>, %[[B:[^:]*]]: tensor<3xf32>
// CHECK:         %[[PERM:.*]] = coreai.constant dense<[1, 0]> : tensor<2xui32>
// CHECK:         %[[WT:.*]] = coreai.transpose %[[W]], %[[PERM]] : (tensor<3x4xf32>, tensor<2xui32>) -> tensor<4x3xf32>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[X]], %[[WT]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_add %[[P]], %[[B]]
func.func @linear(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = aten.linear.default %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// conv2d with padding, stride and groups: coreai.pad, then conv2d on the
// padded input, then the bias as [1, C, 1, 1].
// CHECK-LABEL: coreai.graph @conv2d_groups(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x4x6x7xf32>, %[[W:[^:]*]]: tensor<6x2x3x3xf32>, %[[B:[^:]*]]: tensor<6xf32>
// CHECK:         %[[PADS:.*]] = coreai.constant dense<[0, 0, 0, 0, 1, 1, 1, 1]> : tensor<8xui32>
// CHECK:         %[[ZERO:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[XP:.*]] = coreai.pad %[[X]], %[[PADS]], %[[ZERO]] mode = <constant> : {{.*}} -> tensor<1x4x8x9xf32>
// CHECK:         %[[S:.*]] = coreai.constant dense<2> : tensor<2xui32>
// CHECK:         %[[D:.*]] = coreai.constant dense<1> : tensor<2xui32>
// CHECK:         %[[G:.*]] = coreai.constant dense<2> : tensor<ui32>
// CHECK:         %[[Y:.*]] = coreai.conv2d %[[XP]], %[[W]], %[[S]], %[[D]], %[[G]] : (tensor<1x4x8x9xf32>, tensor<6x2x3x3xf32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x6x3x4xf32>
// CHECK:         %[[B4:.*]] = coreai.reshape %[[B]], {{.*}} -> tensor<1x6x1x1xf32>
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_add %[[Y]], %[[B4]]
// CHECK:         coreai.output %[[R]]
func.func @conv2d_groups(%x: tensor<1x4x6x7xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x3x4xf32> {
  %0 = aten.convolution.default %x, %w, %b {stride = [2, 2], padding = [1, 1], dilation = [1, 1], transposed = false, output_padding = [0, 0], groups = 2 : i64} : (tensor<1x4x6x7xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<1x6x3x4xf32>
  return %0 : tensor<1x6x3x4xf32>
}

// -----

// Without padding and bias there is no pad and no add.
// CHECK-LABEL: coreai.graph @conv2d_plain(
// CHECK-NOT:     coreai.pad
// CHECK:         %[[Y:.*]] = coreai.conv2d
// CHECK-NEXT:    coreai.output %[[Y]]
func.func @conv2d_plain(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %0 = aten.convolution.default %x, %w {stride = [1, 1], padding = [0, 0], dilation = [1, 1], transposed = false, output_padding = [0, 0], groups = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// -----

// conv1d: a unit height inserted at axis 2 of input and weight, conv2d with
// stride [1, s] and dilation [1, d], the unit dim dropped again.
// CHECK-LABEL: coreai.graph @conv1d(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x4x11xf32>, %[[W:[^:]*]]: tensor<6x4x3xf32>
// CHECK:         %[[AX:.*]] = coreai.constant dense<2> : tensor<1xsi32>
// CHECK:         %[[X4:.*]] = coreai.expand_dims %[[X]], %[[AX]] : {{.*}} to tensor<2x4x1x11xf32>
// CHECK:         %[[W4:.*]] = coreai.expand_dims %[[W]], {{.*}} to tensor<6x4x1x3xf32>
// CHECK:         coreai.pad %[[X4]], {{.*}} -> tensor<2x4x1x13xf32>
// CHECK:         %[[S:.*]] = coreai.constant dense<[1, 2]> : tensor<2xui32>
// CHECK:         %[[D:.*]] = coreai.constant dense<[1, 2]> : tensor<2xui32>
// CHECK:         %[[Y:.*]] = coreai.conv2d {{.*}}, %[[W4]], %[[S]], %[[D]], {{.*}} -> tensor<2x6x1x5xf32>
// CHECK:         coreai.shrink_dims %[[Y]], {{.*}} to tensor<2x6x5xf32>
func.func @conv1d(%x: tensor<2x4x11xf32>, %w: tensor<6x4x3xf32>) -> tensor<2x6x5xf32> {
  %0 = aten.convolution.default %x, %w {stride = [2], padding = [1], dilation = [2], transposed = false, output_padding = [0], groups = 1 : i64} : (tensor<2x4x11xf32>, tensor<6x4x3xf32>) -> tensor<2x6x5xf32>
  return %0 : tensor<2x6x5xf32>
}

// -----

// conv3d: pad of the three spatial dims, then coreai.conv3d.
// CHECK-LABEL: coreai.graph @conv3d(
// CHECK:         coreai.constant dense<[0, 0, 0, 0, 1, 1, 0, 0, 1, 1]> : tensor<10xui32>
// CHECK:         coreai.pad {{.*}} -> tensor<1x2x6x4x6xf32>
// CHECK:         coreai.conv3d {{.*}} : (tensor<1x2x6x4x6xf32>, tensor<3x2x3x2x3xf32>, tensor<3xui32>, tensor<3xui32>, tensor<ui32>) -> tensor<1x3x4x3x4xf32>
func.func @conv3d(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x3x2x3xf32>) -> tensor<1x3x4x3x4xf32> {
  %0 = aten.convolution.default %x, %w {stride = [1, 1, 1], padding = [1, 0, 1], dilation = [1, 1, 1], transposed = false, output_padding = [0, 0, 0], groups = 1 : i64} : (tensor<1x2x4x4x4xf32>, tensor<3x2x3x2x3xf32>) -> tensor<1x3x4x3x4xf32>
  return %0 : tensor<1x3x4x3x4xf32>
}

// -----

// Transposed conv2d: padding and output padding are operands of
// coreai.conv_transpose2d (stride, padding, dilation, output_pad, groups).
// CHECK-LABEL: coreai.graph @conv_transpose2d(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x4x5x5xf32>, %[[W:[^:]*]]: tensor<4x3x3x3xf32>
// CHECK-DAG:     %[[S:.*]] = coreai.constant dense<2> : tensor<2xui32>
// CHECK-DAG:     %[[P:.*]] = coreai.constant dense<1> : tensor<2xui32>
// CHECK:         %[[Y:.*]] = coreai.conv_transpose2d %[[X]], %[[W]], %[[S]], {{.*}} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>) -> tensor<1x3x10x10xf32>
// CHECK-NEXT:    coreai.output %[[Y]]
func.func @conv_transpose2d(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32> {
  %0 = aten.convolution.default %x, %w {stride = [2, 2], padding = [1, 1], dilation = [1, 1], transposed = true, output_padding = [1, 1], groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
  return %0 : tensor<1x3x10x10xf32>
}

// -----

// Transposed conv1d: a unit width at axis 3, conv_transpose2d, shrink_dims.
// CHECK-LABEL: coreai.graph @conv_transpose1d(
// CHECK:         coreai.expand_dims {{.*}} to tensor<1x4x5x1xf32>
// CHECK:         coreai.expand_dims {{.*}} to tensor<4x2x3x1xf32>
// CHECK:         %[[S:.*]] = coreai.constant dense<[2, 1]> : tensor<2xui32>
// CHECK:         %[[Y:.*]] = coreai.conv_transpose2d {{.*}}, %[[S]], {{.*}} -> tensor<1x2x11x1xf32>
// CHECK:         coreai.shrink_dims %[[Y]], {{.*}} to tensor<1x2x11xf32>
func.func @conv_transpose1d(%x: tensor<1x4x5xf32>, %w: tensor<4x2x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x11xf32> {
  %0 = aten.convolution.default %x, %w, %b {stride = [2], padding = [0], dilation = [1], transposed = true, output_padding = [0], groups = 1 : i64} : (tensor<1x4x5xf32>, tensor<4x2x3xf32>, tensor<2xf32>) -> tensor<1x2x11xf32>
  return %0 : tensor<1x2x11xf32>
}

// -----

// Transposed conv3d → coreai.conv_transpose3d.
// CHECK-LABEL: coreai.graph @conv_transpose3d(
// CHECK:         coreai.conv_transpose3d {{.*}} -> tensor<1x2x5x5x5xf32>
func.func @conv_transpose3d(%x: tensor<1x3x3x3x3xf32>, %w: tensor<3x2x3x3x3xf32>) -> tensor<1x2x5x5x5xf32> {
  %0 = aten.convolution.default %x, %w {stride = [1, 1, 1], padding = [0, 0, 0], dilation = [1, 1, 1], transposed = true, output_padding = [0, 0, 0], groups = 1 : i64} : (tensor<1x3x3x3x3xf32>, tensor<3x2x3x3x3xf32>) -> tensor<1x2x5x5x5xf32>
  return %0 : tensor<1x2x5x5x5xf32>
}

// -----

// An unbatched input (one rank below the weight) runs as a batch of one.
// CHECK-LABEL: coreai.graph @conv2d_unbatched(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x5x5xf32>
// CHECK:         %[[XB:.*]] = coreai.reshape %[[X]], {{.*}} -> tensor<1x2x5x5xf32>
// CHECK:         %[[Y:.*]] = coreai.conv2d %[[XB]], {{.*}} -> tensor<1x3x3x3xf32>
// CHECK:         %[[R:.*]] = coreai.reshape %[[Y]], {{.*}} -> tensor<3x3x3xf32>
// CHECK:         coreai.output %[[R]]
func.func @conv2d_unbatched(%x: tensor<2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<3x3x3xf32> {
  %0 = aten.convolution.default %x, %w {stride = [1, 1], padding = [0, 0], dilation = [1, 1], transposed = false, output_padding = [0, 0], groups = 1 : i64} : (tensor<2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<3x3x3xf32>
  return %0 : tensor<3x3x3xf32>
}
