// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// complex(re, im) is one create_complex; polar(r, θ) = r·cos θ + i·r·sin θ.
// CHECK-LABEL: coreai.graph @complex_polar(
// CHECK-SAME:    %[[RE:[^:]*]]: tensor<3xf32>, %[[IM:[^:]*]]: tensor<3xf32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.create_complex %[[RE]], %[[IM]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
// CHECK-NEXT:    %[[C:.*]] = coreai.cos %[[IM]] : tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[X:.*]] = coreai.decomposable.broadcasting_mul %[[RE]], %[[C]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[S:.*]] = coreai.sin %[[IM]] : tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = coreai.decomposable.broadcasting_mul %[[RE]], %[[S]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[P:.*]] = coreai.create_complex %[[X]], %[[Y]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
// CHECK-NEXT:    coreai.output %[[Z]], %[[P]]
func.func @complex_polar(%re: tensor<3xf32>, %im: tensor<3xf32>) -> (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) {
  %0 = aten.complex.default %re, %im : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
  %1 = aten.polar.default %re, %im : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
  return %0, %1 : tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>
}

// -----

// Static shapes: the trailing pair is sliced apart and the unit dim dropped
// (and added back) with reshape, as in coreai-torch's golden output.
// CHECK-LABEL: coreai.graph @views_static(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x2xf32>
// CHECK-DAG:     %[[B0:.*]] = coreai.constant dense<0> : tensor<2xsi32>
// CHECK-DAG:     %[[E0:.*]] = coreai.constant dense<[2147483647, 1]> : tensor<2xsi32>
// CHECK:         %[[S0:.*]] = coreai.slice %[[X]], %[[B0]], %[[E0]], %{{.*}} : (tensor<3x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x1xf32>
// CHECK:         %[[RE:.*]] = coreai.reshape %[[S0]], %{{.*}} : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
// CHECK-DAG:     %[[B1:.*]] = coreai.constant dense<[0, 1]> : tensor<2xsi32>
// CHECK-DAG:     %[[E1:.*]] = coreai.constant dense<[2147483647, 2]> : tensor<2xsi32>
// CHECK:         %[[S1:.*]] = coreai.slice %[[X]], %[[B1]], %[[E1]], %{{.*}} : (tensor<3x2xf32>, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) -> tensor<3x1xf32>
// CHECK:         %[[IM:.*]] = coreai.reshape %[[S1]], %{{.*}} : (tensor<3x1xf32>, tensor<1xui32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.create_complex %[[RE]], %[[IM]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
// CHECK-NEXT:    %[[R:.*]] = coreai.real_part %[[Z]] : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
// CHECK-NEXT:    %[[I:.*]] = coreai.imaginary_part %[[Z]] : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
// CHECK-NEXT:    %[[AX:.*]] = coreai.constant dense<1> : tensor<si32>
// CHECK:         %[[R2:.*]] = coreai.reshape %[[R]], %{{.*}} : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
// CHECK:         %[[I2:.*]] = coreai.reshape %[[I]], %{{.*}} : (tensor<3xf32>, tensor<2xui32>) -> tensor<3x1xf32>
// CHECK-NEXT:    %[[OUT:.*]] = coreai.concat %[[AX]], %[[R2]], %[[I2]] : (tensor<si32>, tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    coreai.output %[[OUT]]
func.func @views_static(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = aten.view_as_complex.default %x : (tensor<3x2xf32>) -> tensor<3xcomplex<f32>>
  %1 = aten.view_as_real_copy.default %0 : (tensor<3xcomplex<f32>>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// A dynamic dim: shrink_dims / expand_dims on the last axis instead of reshape.
// CHECK-LABEL: coreai.graph @views_dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x4x2xf32>
// CHECK:         %[[S0:.*]] = coreai.slice %[[X]], {{.*}} -> tensor<?x4x1xf32>
// CHECK-NEXT:    %[[A0:.*]] = coreai.constant dense<2> : tensor<1xsi32>
// CHECK-NEXT:    %[[RE:.*]] = coreai.shrink_dims %[[S0]], %[[A0]] : (tensor<?x4x1xf32>, tensor<1xsi32>) to tensor<?x4xf32>
// CHECK:         %[[S1:.*]] = coreai.slice %[[X]], {{.*}} -> tensor<?x4x1xf32>
// CHECK-NEXT:    %[[A1:.*]] = coreai.constant dense<2> : tensor<1xsi32>
// CHECK-NEXT:    %[[IM:.*]] = coreai.shrink_dims %[[S1]], %[[A1]] : (tensor<?x4x1xf32>, tensor<1xsi32>) to tensor<?x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.create_complex %[[RE]], %[[IM]] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xcomplex<f32>>
// CHECK-NEXT:    %[[R:.*]] = coreai.real_part %[[Z]]
// CHECK-NEXT:    %[[I:.*]] = coreai.imaginary_part %[[Z]]
// CHECK-NEXT:    %[[AX:.*]] = coreai.constant dense<2> : tensor<si32>
// CHECK:         %[[R2:.*]] = coreai.expand_dims %[[R]], %{{.*}} : (tensor<?x4xf32>, tensor<1xsi32>) to tensor<?x4x1xf32>
// CHECK:         %[[I2:.*]] = coreai.expand_dims %[[I]], %{{.*}} : (tensor<?x4xf32>, tensor<1xsi32>) to tensor<?x4x1xf32>
// CHECK-NEXT:    %[[OUT:.*]] = coreai.concat %[[AX]], %[[R2]], %[[I2]] : (tensor<si32>, tensor<?x4x1xf32>, tensor<?x4x1xf32>) -> tensor<?x4x2xf32>
// CHECK-NEXT:    coreai.output %[[OUT]]
func.func @views_dynamic(%x: tensor<?x4x2xf32>) -> tensor<?x4x2xf32> {
  %0 = aten.view_as_complex_copy.default %x : (tensor<?x4x2xf32>) -> tensor<?x4xcomplex<f32>>
  %1 = aten.view_as_real.default %0 : (tensor<?x4xcomplex<f32>>) -> tensor<?x4x2xf32>
  return %1 : tensor<?x4x2xf32>
}
