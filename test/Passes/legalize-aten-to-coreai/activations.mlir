// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(legalize-aten-to-coreai)' | FileCheck %s --enable-var-scope

// relu, gelu (both approximations), silu and sigmoid are single coreai ops.
// CHECK-LABEL: coreai.graph @relu_gelu_silu_sigmoid(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = coreai.relu %[[X]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[G:.*]] = coreai.gelu %[[X]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %[[GT:.*]] = coreai.gelu %[[X]] approximate = <tanh> : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = coreai.silu %[[X]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SG:.*]] = coreai.sigmoid %[[X]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    coreai.output %[[R]], %[[G]], %[[GT]], %[[S]], %[[SG]]
func.func @relu_gelu_silu_sigmoid(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = aten.relu.default %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.gelu.default %x {approximate = "none"} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = aten.gelu.default %x {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = aten.silu.default %x : (tensor<4xf32>) -> tensor<4xf32>
  %4 = aten.sigmoid.default %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// relu on integers is a maximum with 0 (coreai.relu is for floats).
// CHECK-LABEL: coreai.graph @relu_int(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xsi32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0> : tensor<si32>
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_maximum %[[X]], %[[Z]] : (tensor<4xsi32>, tensor<si32>) -> tensor<4xsi32>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @relu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = aten.relu.default %x : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// hardswish multiplies x by the clamped x + 3 first, then divides by 6 (PyTorch's order).
// CHECK-LABEL: coreai.graph @hardswish(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-DAG:     %[[SIX:.*]] = coreai.constant dense<6.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[THREE:.*]] = coreai.constant dense<3.000000e+00> : tensor<f32>
// CHECK:         %[[S:.*]] = coreai.decomposable.broadcasting_add %[[X]], %[[THREE]]
// CHECK-NEXT:    %[[LO:.*]] = coreai.decomposable.broadcasting_maximum %[[S]], %{{.*}}
// CHECK-NEXT:    %[[HI:.*]] = coreai.decomposable.broadcasting_minimum %[[LO]], %{{.*}}
// CHECK-NEXT:    %[[P:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[HI]]
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_divide %[[P]], %[[SIX]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @hardswish(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.hardswish.default %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// On f16, hardsigmoid runs in f32 and rounds once, as PyTorch's kernel does,
// in coreai-torch's hard_sigmoid composite.
// CHECK-LABEL: coreai.graph private noinline @hard_sigmoid(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf16> {coreai.name = "input"}) -> tensor<4xf16>
// CHECK-SAME:    composite_decl = #coreai.composite_declaration<"hard_sigmoid" = {input_names = ["input"], op_attrs = {version = 1 : si64}, output_names = ["output"]}>, template_op = "hard_sigmoid"}
// CHECK-NEXT:    %[[W:.*]] = coreai.cast %[[X]] : tensor<4xf16> to tensor<4xf32>
// CHECK:         coreai.decomposable.broadcasting_add %[[W]], %{{.*}} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:         %[[D:.*]] = coreai.decomposable.broadcasting_divide
// CHECK-NEXT:    %[[R:.*]] = coreai.cast %[[D]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    coreai.output %[[R]]
// CHECK-LABEL: coreai.graph @hardsigmoid_f16(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf16>
// CHECK-NEXT:    %[[R:.*]] = coreai.invoke @hard_sigmoid(%[[X]]) : (tensor<4xf16>) -> tensor<4xf16>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @hardsigmoid_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = aten.hardsigmoid.default %x : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// clamp with one or two bounds: maximum then minimum, bounds as result-dtype constants.
// CHECK-LABEL: coreai.graph @clamp(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[M1:.*]] = coreai.constant dense<-1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[A:.*]] = coreai.decomposable.broadcasting_maximum %[[X]], %[[M1]]
// CHECK-NEXT:    %[[LO:.*]] = coreai.constant dense<-2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[HI:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[B0:.*]] = coreai.decomposable.broadcasting_maximum %[[X]], %[[LO]]
// CHECK-NEXT:    %[[B:.*]] = coreai.decomposable.broadcasting_minimum %[[B0]], %[[HI]]
// CHECK-NEXT:    coreai.output %[[A]], %[[B]]
func.func @clamp(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = aten.clamp.default %x {min = -1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.clamp.default %x {min = -2 : i64, max = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// clamp.Tensor reads its optional bounds from operandSegmentSizes; a missing one is skipped.
// CHECK-LABEL: coreai.graph @clamp_tensor(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x5xf32>, %[[LO:[^:]*]]: tensor<5xf32>, %[[HI:[^:]*]]: tensor<2x5xf32>
// CHECK-NEXT:    %[[A0:.*]] = coreai.decomposable.broadcasting_maximum %[[X]], %[[LO]] : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT:    %[[A:.*]] = coreai.decomposable.broadcasting_minimum %[[A0]], %[[HI]]
// CHECK-NEXT:    %[[B:.*]] = coreai.decomposable.broadcasting_minimum %[[X]], %[[HI]]
// CHECK-NEXT:    coreai.output %[[A]], %[[B]]
func.func @clamp_tensor(%x: tensor<2x5xf32>, %lo: tensor<5xf32>, %hi: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = aten.clamp.Tensor %x, %lo, %hi {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<2x5xf32>, tensor<5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = aten.clamp.Tensor %x, %hi {operandSegmentSizes = array<i32: 1, 0, 1>} : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0, %1 : tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// hardtanh is a clamp.
// CHECK-LABEL: coreai.graph @hardtanh(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[LO:.*]] = coreai.constant dense<-2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[HI:.*]] = coreai.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[A:.*]] = coreai.decomposable.broadcasting_maximum %[[X]], %[[LO]]
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_minimum %[[A]], %[[HI]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @hardtanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.hardtanh.default %x {min_val = -2.0 : f64, max_val = 2.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// leaky_relu selects x or x · slope (NaN propagates through the product).
// CHECK-LABEL: coreai.graph @leaky_relu(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = coreai.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[Z:.*]] = coreai.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[P:.*]] = coreai.decomposable.broadcasting_greater %[[X]], %[[Z]]
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[S]]
// CHECK-NEXT:    %[[R:.*]] = coreai.decomposable.broadcasting_where %[[P]], %[[X]], %[[M]]
// CHECK-NEXT:    coreai.output %[[R]]
func.func @leaky_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.leaky_relu.default %x {negative_slope = 0.1 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// On f16 a slope f16 cannot hold (0.1) multiplies in f32, as PyTorch does.
// CHECK-LABEL: coreai.graph @leaky_relu_f16(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf16>
// CHECK-NEXT:    %[[W:.*]] = coreai.cast %[[X]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = coreai.constant dense<1.000000e-01> : tensor<f32>
// CHECK:         %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[W]], %[[S]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SEL:.*]] = coreai.decomposable.broadcasting_where %{{.*}}, %[[W]], %[[M]]
// CHECK-NEXT:    %[[R:.*]] = coreai.cast %[[SEL]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    coreai.output %[[R]]
func.func @leaky_relu_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = aten.leaky_relu.default %x {negative_slope = 0.1 : f64} : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// elu selects x or expm1(x) (Kahan's form); multiplications by 1 are skipped.
// CHECK-LABEL: coreai.graph @elu(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_greater %[[X]], %{{.*}}
// CHECK:         coreai.exp %[[X]]
// CHECK:         %[[R:.*]] = coreai.decomposable.broadcasting_where %[[P]], %[[X]], %{{.*}}
// CHECK-NEXT:    coreai.output %[[R]]
func.func @elu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.elu.default %x {alpha = 1.0 : f64, scale = 1 : i64, input_scale = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// softplus (PyTorch's threshold form) and mish run in f32 on f16, so exp(x) does not overflow at
// x ≈ 11 (conversion-guide §9.1); log1p(exp(x)) reads u - 1 through a where (Goldberg's form).
// CHECK-LABEL: coreai.graph @softplus_mish_f16(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf16>
// CHECK-NEXT:    %[[W:.*]] = coreai.cast %[[X]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT:    %[[T:.*]] = coreai.constant dense<2.000000e+01> : tensor<f32>
// CHECK-NEXT:    %[[LIN:.*]] = coreai.decomposable.broadcasting_greater %[[W]], %[[T]]
// CHECK-NEXT:    %[[E:.*]] = coreai.exp %[[W]] : tensor<4xf32> -> tensor<4xf32>
// CHECK:         coreai.log
// CHECK:         %[[SP:.*]] = coreai.decomposable.broadcasting_where %[[LIN]], %[[W]], %{{.*}}
// CHECK-NEXT:    %[[R0:.*]] = coreai.cast %[[SP]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    %[[W2:.*]] = coreai.cast %[[X]] : tensor<4xf16> to tensor<4xf32>
// CHECK:         %[[TH:.*]] = coreai.tanh
// CHECK-NEXT:    %[[M:.*]] = coreai.decomposable.broadcasting_mul %[[W2]], %[[TH]]
// CHECK-NEXT:    %[[R1:.*]] = coreai.cast %[[M]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT:    coreai.output %[[R0]], %[[R1]]
func.func @softplus_mish_f16(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
  %0 = aten.softplus.default %x {beta = 1 : i64, threshold = 20 : i64} : (tensor<4xf16>) -> tensor<4xf16>
  %1 = aten.mish.default %x : (tensor<4xf16>) -> tensor<4xf16>
  return %0, %1 : tensor<4xf16>, tensor<4xf16>
}
