// RUN: coreai-opt %s --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The pipeline of `coreai-compile --target ane` after the pass: the
// composite, left without callers, is erased.
// RUN: coreai-opt %s --pass-pipeline='builtin.module(target-ane,canonicalize,cse,core-optimize)' | FileCheck %s --check-prefix=FOLD

// rope-inline: the call of a rope composite becomes its body (Apple's
// Neural Engine models write RoPE as plain ops), each argument read as the
// call's operand: x·cos + rotate_half(x)·sin in place.

// CHECK-LABEL: coreai.graph @main(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<1x2x4x8xf16>, %[[COS:[a-z0-9]+]]: tensor<1x1x4x8xf16>, %[[SIN:[a-z0-9]+]]: tensor<1x1x4x8xf16>
// CHECK-NOT:     coreai.invoke
// CHECK:         %[[XC:.*]] = coreai.decomposable.broadcasting_mul %[[X]], %[[COS]]
// CHECK:         %[[LO:.*]] = coreai.slice %[[X]]
// CHECK:         %[[HI:.*]] = coreai.slice %[[X]]
// CHECK:         %[[NEG:.*]] = coreai.decomposable.broadcasting_mul %[[HI]]
// CHECK:         %[[ROT:.*]] = coreai.concat %{{.*}}, %[[NEG]], %[[LO]]
// CHECK:         %[[RS:.*]] = coreai.decomposable.broadcasting_mul %[[ROT]], %[[SIN]]
// CHECK:         %[[Y:.*]] = coreai.decomposable.broadcasting_add %[[XC]], %[[RS]]
// CHECK:         coreai.output %[[Y]]

// REMARK: target-ane: {{.*}}'coreai.invoke' rope-inline: Apple's Neural Engine models write RoPE as plain ops

// FOLD-NOT: @rope

coreai.graph @main(%x: tensor<1x2x4x8xf16>, %cos: tensor<1x1x4x8xf16>, %sin: tensor<1x1x4x8xf16>) -> tensor<1x2x4x8xf16> {
  %y = coreai.invoke @rope(%x, %cos, %sin) : (tensor<1x2x4x8xf16>, tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>) -> tensor<1x2x4x8xf16>
  coreai.output %y : tensor<1x2x4x8xf16>
}

coreai.graph private noinline @rope(%x: tensor<1x2x4x8xf16> {coreai.name = "input"}, %cos: tensor<1x1x4x8xf16> {coreai.name = "cos"}, %sin: tensor<1x1x4x8xf16> {coreai.name = "sin"}) -> tensor<1x2x4x8xf16> attributes {__coreai_pure__, composite_decl = #coreai.composite_declaration<"rope" = {input_names = ["input", "cos", "sin"], op_attrs = {base = 1.000000e+04 : f32, interleaved = false, scale = 1.000000e+00 : f32, version = 1 : si64}, output_names = ["output"]}>} {
  %b0 = coreai.constant dense<0> : tensor<4xsi32>
  %e0 = coreai.constant dense<[2147483647, 2147483647, 2147483647, 4]> : tensor<4xsi32>
  %b1 = coreai.constant dense<[0, 0, 0, 4]> : tensor<4xsi32>
  %e1 = coreai.constant dense<2147483647> : tensor<4xsi32>
  %one = coreai.constant dense<1> : tensor<4xsi32>
  %minus = coreai.constant dense<-1.000000e+00> : tensor<f16>
  %axis = coreai.constant dense<3> : tensor<si32>
  %xc = coreai.decomposable.broadcasting_mul %x, %cos : (tensor<1x2x4x8xf16>, tensor<1x1x4x8xf16>) -> tensor<1x2x4x8xf16>
  %lo = coreai.slice %x, %b0, %e0, %one : (tensor<1x2x4x8xf16>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x4x4xf16>
  %hi = coreai.slice %x, %b1, %e1, %one : (tensor<1x2x4x8xf16>, tensor<4xsi32>, tensor<4xsi32>, tensor<4xsi32>) -> tensor<1x2x4x4xf16>
  %neg = coreai.decomposable.broadcasting_mul %hi, %minus : (tensor<1x2x4x4xf16>, tensor<f16>) -> tensor<1x2x4x4xf16>
  %rot = coreai.concat %axis, %neg, %lo : (tensor<si32>, tensor<1x2x4x4xf16>, tensor<1x2x4x4xf16>) -> tensor<1x2x4x8xf16>
  %rs = coreai.decomposable.broadcasting_mul %rot, %sin : (tensor<1x2x4x8xf16>, tensor<1x1x4x8xf16>) -> tensor<1x2x4x8xf16>
  %y = coreai.decomposable.broadcasting_add %xc, %rs : (tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16>
  coreai.output %y : tensor<1x2x4x8xf16>
}
