// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane)' | FileCheck %s --enable-var-scope
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The pipeline of `coreai-compile --target ane` after the pass:
// RUN: coreai-opt %s --split-input-file --pass-pipeline='builtin.module(target-ane,canonicalize,cse,core-optimize)' | FileCheck %s --check-prefix=FOLD

// A 2-D matmul (a linear layer) → operands 1×1×M×K and 1×1×K×N, the product reshaped back.
// CHECK-LABEL: coreai.graph @linear(
// CHECK-SAME:    %[[X:.*]]: tensor<3x5xf16>, %[[W:.*]]: tensor<5x7xf16>
// CHECK:         %[[X4:.*]] = coreai.reshape %[[X]], %{{.*}} : (tensor<3x5xf16>, tensor<4xui32>) -> tensor<1x1x3x5xf16>
// CHECK:         %[[W4:.*]] = coreai.reshape %[[W]], %{{.*}} : (tensor<5x7xf16>, tensor<4xui32>) -> tensor<1x1x5x7xf16>
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[X4]], %[[W4]] : (tensor<1x1x3x5xf16>, tensor<1x1x5x7xf16>) -> tensor<1x1x3x7xf16>
// CHECK:         %[[R:.*]] = coreai.reshape %[[P]], %{{.*}} -> tensor<3x7xf16>
// CHECK:         coreai.output %[[R]]
// REMARK: target-ane: loc({{.*}}): 'coreai.decomposable.broadcasting_batch_matmul' matmul-rank4: 2-D matmul operands diverge on the Neural Engine in fp16 (guide §9.5)
coreai.graph @linear(%x: tensor<3x5xf16>, %w: tensor<5x7xf16>) -> tensor<3x7xf16> {
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %w : (tensor<3x5xf16>, tensor<5x7xf16>) -> tensor<3x7xf16>
  coreai.output %p : tensor<3x7xf16>
}

// -----

// A rank-3 input times a 2-D weight: both lifted to rank 4 (1×B×M×K, 1×1×K×N).
// CHECK-LABEL: coreai.graph @batched_linear(
// CHECK:         coreai.decomposable.broadcasting_batch_matmul %{{.*}}, %{{.*}} : (tensor<1x2x3x5xf32>, tensor<1x1x5x7xf32>) -> tensor<1x2x3x7xf32>
// CHECK:         coreai.reshape %{{.*}} -> tensor<2x3x7xf32>
// REMARK: target-ane: loc({{.*}}): 'coreai.decomposable.broadcasting_batch_matmul' matmul-rank4:
coreai.graph @batched_linear(%x: tensor<2x3x5xf32>, %w: tensor<5x7xf32>) -> tensor<2x3x7xf32> {
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %w : (tensor<2x3x5xf32>, tensor<5x7xf32>) -> tensor<2x3x7xf32>
  coreai.output %p : tensor<2x3x7xf32>
}

// -----

// A dynamic batch dim: the reshapes infer it (-1 in an si32 shape).
// CHECK-LABEL: coreai.graph @dynamic_batch(
// CHECK:         coreai.reshape %arg0, %{{.*}} : (tensor<?x5xf32>, tensor<4xsi32>) -> tensor<1x1x?x5xf32>
// CHECK:         broadcasting_batch_matmul %{{.*}}, %{{.*}} : (tensor<1x1x?x5xf32>, tensor<1x1x5x7xf32>) -> tensor<1x1x?x7xf32>
// CHECK:         coreai.reshape %{{.*}} : (tensor<1x1x?x7xf32>, tensor<2xsi32>) -> tensor<?x7xf32>
// REMARK: target-ane: loc({{.*}}): 'coreai.decomposable.broadcasting_batch_matmul' matmul-rank4:
coreai.graph @dynamic_batch(%e: tensor<?x5xf32>, %f: tensor<5x7xf32>) -> tensor<?x7xf32> {
  %r = coreai.decomposable.broadcasting_batch_matmul %e, %f : (tensor<?x5xf32>, tensor<5x7xf32>) -> tensor<?x7xf32>
  coreai.output %r : tensor<?x7xf32>
}

// -----

// Does not fire: no rank-2 operand (rank 3 × rank 3, rank 4 × rank 4 of one head: matmul-per-head declines too), two dynamic dims.
// CHECK-LABEL: coreai.graph @keeps(
// CHECK-NOT:     coreai.reshape
// CHECK:         broadcasting_batch_matmul %arg0, %arg1 : (tensor<2x3x5xf32>, tensor<2x5x7xf32>)
// CHECK:         broadcasting_batch_matmul %arg2, %arg3 : (tensor<1x1x3x5xf32>, tensor<1x1x5x7xf32>)
// CHECK:         broadcasting_batch_matmul %arg4, %arg5 : (tensor<?x?xf32>, tensor<?x7xf32>)
// REMARK-NOT: matmul-rank4
coreai.graph @keeps(%a: tensor<2x3x5xf32>, %b: tensor<2x5x7xf32>, %c: tensor<1x1x3x5xf32>, %d: tensor<1x1x5x7xf32>, %e: tensor<?x?xf32>, %f: tensor<?x7xf32>) -> (tensor<2x3x7xf32>, tensor<1x1x3x7xf32>, tensor<?x7xf32>) {
  %p = coreai.decomposable.broadcasting_batch_matmul %a, %b : (tensor<2x3x5xf32>, tensor<2x5x7xf32>) -> tensor<2x3x7xf32>
  %q = coreai.decomposable.broadcasting_batch_matmul %c, %d : (tensor<1x1x3x5xf32>, tensor<1x1x5x7xf32>) -> tensor<1x1x3x7xf32>
  %r = coreai.decomposable.broadcasting_batch_matmul %e, %f : (tensor<?x?xf32>, tensor<?x7xf32>) -> tensor<?x7xf32>
  coreai.output %p, %q, %r : tensor<2x3x7xf32>, tensor<1x1x3x7xf32>, tensor<?x7xf32>
}

// -----

// An embedding: a gather of whole rows of a constant V×D table reads it as V×1×D.
// CHECK-LABEL: coreai.graph @embedding(
// CHECK-SAME:    %[[I:.*]]: tensor<2x3x1xsi32>
// CHECK:         %[[T:.*]] = coreai.constant
// CHECK:         %[[T3:.*]] = coreai.reshape %[[T]], %{{.*}} : (tensor<10x4xf32>, tensor<3xui32>) -> tensor<10x1x4xf32>
// CHECK:         %[[G:.*]] = coreai.gather_nd %[[T3]] at %[[I]] : (tensor<10x1x4xf32>, tensor<2x3x1xsi32>) to tensor<2x3x1x4xf32>
// CHECK:         %[[R:.*]] = coreai.reshape %[[G]], %{{.*}} -> tensor<2x3x4xf32>
// CHECK:         coreai.output %[[R]]
// REMARK: target-ane: loc({{.*}}): 'coreai.gather_nd' embedding-v1d: Neural Engine embedding tables are (V, 1, D)
coreai.graph @embedding(%i: tensor<2x3x1xsi32>) -> tensor<2x3x4xf32> {
  %t = coreai.constant dense<1.500000e+00> : tensor<10x4xf32>
  %g = coreai.gather_nd %t at %i : (tensor<10x4xf32>, tensor<2x3x1xsi32>) to tensor<2x3x4xf32>
  coreai.output %g : tensor<2x3x4xf32>
}

// -----

// Does not fire: a table that is an argument, an index selecting elements (last dim 2).
// CHECK-LABEL: coreai.graph @keeps_gathers(
// CHECK-NOT:     coreai.reshape
// CHECK:         coreai.gather_nd %arg0 at %arg1
// CHECK:         coreai.gather_nd %{{.*}} at %arg2
// REMARK-NOT: embedding-v1d
coreai.graph @keeps_gathers(%t: tensor<10x4xf32>, %i: tensor<3x1xsi32>, %j: tensor<3x2xsi32>) -> (tensor<3x4xf32>, tensor<3xf32>) {
  %g = coreai.gather_nd %t at %i : (tensor<10x4xf32>, tensor<3x1xsi32>) to tensor<3x4xf32>
  %c = coreai.constant dense<1.500000e+00> : tensor<10x4xf32>
  %h = coreai.gather_nd %c at %j : (tensor<10x4xf32>, tensor<3x2xsi32>) to tensor<3xf32>
  coreai.output %g, %h : tensor<3x4xf32>, tensor<3xf32>
}

// -----

// Two linear layers with a bias and a GELU between them: the reshape down
// after the first product moves past the add and the gelu (rank4-chain), so
// the chain stays at rank 4 and meets the second product's lift (folded by
// core-optimize).
// CHECK-LABEL: coreai.graph @mlp(
// CHECK:         %[[P:.*]] = coreai.decomposable.broadcasting_batch_matmul %{{.*}}, %{{.*}} : (tensor<1x1x3x5xf16>, tensor<1x1x5x7xf16>) -> tensor<1x1x3x7xf16>
// CHECK:         %[[A:.*]] = coreai.decomposable.broadcasting_add %[[P]], %arg2 : (tensor<1x1x3x7xf16>, tensor<7xf16>) -> tensor<1x1x3x7xf16>
// CHECK:         %[[G:.*]] = coreai.gelu %[[A]] approximate = <tanh> : tensor<1x1x3x7xf16> -> tensor<1x1x3x7xf16>
// CHECK:         %[[D:.*]] = coreai.reshape %[[G]], %{{.*}} -> tensor<3x7xf16>
// CHECK:         %[[L:.*]] = coreai.reshape %[[D]], %{{.*}} -> tensor<1x1x3x7xf16>
// CHECK:         %[[Q:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[L]], %{{.*}} -> tensor<1x1x3x2xf16>
// CHECK:         coreai.reshape %[[Q]], %{{.*}} -> tensor<3x2xf16>
// REMARK: 'coreai.decomposable.broadcasting_batch_matmul' matmul-rank4:
// After core-optimize no reshape is left between the products:
// FOLD-LABEL: coreai.graph @mlp(
// FOLD:         %[[P:.*]] = coreai.decomposable.broadcasting_batch_matmul
// FOLD-NOT:     coreai.reshape %[[P]]
// FOLD:         %[[A:.*]] = coreai.decomposable.broadcasting_add %[[P]], %arg2 : (tensor<1x1x3x7xf16>, tensor<7xf16>) -> tensor<1x1x3x7xf16>
// FOLD-NEXT:    %[[G:.*]] = coreai.gelu %[[A]]
// FOLD-NEXT:    %[[W:.*]] = coreai.reshape %arg3
// FOLD-NEXT:    %[[Q:.*]] = coreai.decomposable.broadcasting_batch_matmul %[[G]], %[[W]] : (tensor<1x1x3x7xf16>, tensor<1x1x7x2xf16>) -> tensor<1x1x3x2xf16>
// FOLD-NEXT:    %[[R:.*]] = coreai.reshape %[[Q]], %{{.*}} -> tensor<3x2xf16>
// FOLD-NEXT:    coreai.output %[[R]]
// REMARK: 'coreai.decomposable.broadcasting_add' rank4-chain: a chain of matrix products and elementwise ops stays at rank 4
// REMARK: 'coreai.gelu' rank4-chain:
// REMARK: 'coreai.decomposable.broadcasting_batch_matmul' matmul-rank4:
coreai.graph @mlp(%x: tensor<3x5xf16>, %w1: tensor<5x7xf16>, %b1: tensor<7xf16>, %w2: tensor<7x2xf16>) -> tensor<3x2xf16> {
  %p = coreai.decomposable.broadcasting_batch_matmul %x, %w1 : (tensor<3x5xf16>, tensor<5x7xf16>) -> tensor<3x7xf16>
  %a = coreai.decomposable.broadcasting_add %p, %b1 : (tensor<3x7xf16>, tensor<7xf16>) -> tensor<3x7xf16>
  %g = coreai.gelu %a approximate = <tanh> : tensor<3x7xf16> -> tensor<3x7xf16>
  %q = coreai.decomposable.broadcasting_batch_matmul %g, %w2 : (tensor<3x7xf16>, tensor<7x2xf16>) -> tensor<3x2xf16>
  coreai.output %q : tensor<3x2xf16>
}

// -----

// Does not fire: an operand that is not from rank 4 in an op whose operands
// share its shape (%y), a result already of rank 4, a reshape with another
// user (moving the op would add a reshape), a reshape that drops a unit dim
// in the middle, and an elementwise op on a plain argument.
// CHECK-LABEL: coreai.graph @keeps_chains(
// CHECK:         coreai.add %{{.*}}, %arg1 : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
// CHECK:         coreai.exp %{{.*}} : tensor<3x7xf32> -> tensor<3x7xf32>
// CHECK:         coreai.decomposable.broadcasting_mul %{{.*}}, %{{.*}} : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
// CHECK:         coreai.relu %{{.*}} : (tensor<3x7xf32>) -> tensor<3x7xf32>
// CHECK:         coreai.sigmoid %arg1 : (tensor<3x7xf32>) -> tensor<3x7xf32>
// REMARK-NOT: rank4-chain
coreai.graph @keeps_chains(%x4: tensor<1x1x3x7xf32>, %y: tensor<3x7xf32>, %z4: tensor<1x3x1x7xf32>) -> (tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>) {
  %s = coreai.constant dense<[3, 7]> : tensor<2xui32>
  %x = coreai.reshape %x4, %s : (tensor<1x1x3x7xf32>, tensor<2xui32>) -> tensor<3x7xf32>
  %a = coreai.add %x, %y : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
  %e = coreai.exp %x : tensor<3x7xf32> -> tensor<3x7xf32>
  %m = coreai.decomposable.broadcasting_mul %x, %x : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
  %z = coreai.reshape %z4, %s : (tensor<1x3x1x7xf32>, tensor<2xui32>) -> tensor<3x7xf32>
  %r = coreai.relu %z : (tensor<3x7xf32>) -> tensor<3x7xf32>
  %g = coreai.sigmoid %y : (tensor<3x7xf32>) -> tensor<3x7xf32>
  coreai.output %a, %e, %m, %r, %g : tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>
}
