// RUN: not coreai-run %s 2>&1 | FileCheck %s

// The executor holds 8- and 4-bit floats as f32, which has all their
// values: an op computing one would skip its rounding, so it is an error,
// never an unrounded result.
// CHECK: float-weights-computed.mlir{{.*}}:9:8: coreai.cast: result #0 is tensor<2xf8E4M3FN>: the executor has 8- and 4-bit floats only as constants (compressed weights)
coreai.graph @main() -> tensor<2xf32> {
  %x = coreai.constant dense<[1.0, 0.1]> : tensor<2xf32>
  %c = coreai.cast %x : tensor<2xf32> to tensor<2xf8E4M3FN>
  %y = coreai.cast %c : tensor<2xf8E4M3FN> to tensor<2xf32>
  coreai.output %y : tensor<2xf32>
}
