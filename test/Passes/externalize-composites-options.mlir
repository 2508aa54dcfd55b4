// A composite name this pass does not know, in only=, exclude= or
// require=, is an error naming it and the known names (no output).
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(externalize-composites{only=rmsnorm})' 2>&1 | FileCheck %s --check-prefix=ONLY
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(externalize-composites{require=rope,sdpa})' 2>&1 | FileCheck %s --check-prefix=REQUIRE
// RUN: not coreai-opt %s --pass-pipeline='builtin.module(externalize-composites{exclude=layer_norm})' 2>&1 | FileCheck %s --check-prefix=EXCLUDE
// RUN: coreai-opt %s --pass-pipeline='builtin.module(externalize-composites{only=rms_norm,rope require=rms_norm})' | FileCheck %s --check-prefix=OK
// ONLY: 'rmsnorm' is not a composite this pass recognises; choose from rms_norm, rope, scaled_dot_product_attention, gather_mm
// REQUIRE: 'sdpa' is not a composite this pass recognises; choose from rms_norm, rope, scaled_dot_product_attention, gather_mm
// EXCLUDE: 'layer_norm' is not a composite this pass recognises; choose from rms_norm, rope, scaled_dot_product_attention, gather_mm
// ONLY-NOT: coreai.graph
// OK: coreai.invoke @rms_norm(
coreai.graph @main(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  %sq = coreai.decomposable.broadcasting_mul %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %ax = coreai.constant dense<1> : tensor<1xsi32>
  %ms = coreai.reduce_mean %sq, %ax : (tensor<2x8xf32>, tensor<1xsi32>) -> tensor<2x1xf32>
  %eps = coreai.constant dense<9.99999997E-7> : tensor<f32>
  %e = coreai.decomposable.broadcasting_add %ms, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = coreai.rsqrt %e : tensor<2x1xf32> -> tensor<2x1xf32>
  %n = coreai.decomposable.broadcasting_mul %x, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = coreai.decomposable.broadcasting_mul %n, %w : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  coreai.output %y : tensor<2x8xf32>
}
