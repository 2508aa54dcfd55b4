// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(set-hw-constraints{constraints=x=IOSurface:1x1x32x1:1x1x1})'
// RUN: not coreai-opt %s --split-input-file --pass-pipeline='builtin.module(set-hw-constraints{constraints=x=IOSurface:1x1x32x1:1x1x1})' -o %t.out.mlir 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not test -e %t.out.mlir
// RUN: not coreai-opt %s --split-input-file --pass-pipeline='builtin.module(set-hw-constraints{constraints=x=Texture:1x1:1})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not coreai-opt %s --split-input-file --pass-pipeline='builtin.module(set-hw-constraints{graph=other constraints=x=Heap:1x1:1})' 2>&1 | FileCheck %s --check-prefix=GRAPH

// Each fault is one error at the graph, and nothing is changed: a shape
// the encoding's verifier refuses (its messages are coreai-core's), a name
// that is neither an input nor an output, an encoding already there, a
// handle used by something other than a read or a write.
// ONE-COUNT-4: error:
// ONE-NOT: error:
// OPTION: pipeline:1:16: error: failed to add `set-hw-constraints` with options `constraints=x=Texture:1x1:1`: pass 'set-hw-constraints', option 'constraints': 'x=Texture:1x1:1': the backing 'Texture' is not MTLBuffer, IOSurface or Heap
// GRAPH-COUNT-4: error: set-hw-constraints: no coreai.graph @other
// GRAPH-NOT: error:

// expected-error @+1 {{expected alignments to have (rank + 1) elements}}
coreai.graph @main(%x: tensor<4x8xf32> {coreai.name = "x"}) -> (tensor<4x8xf32> {coreai.name = "y"}) {
  coreai.output %x : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{set-hw-constraints: @main: no input or output named 'x' (inputs: a; outputs: y)}}
coreai.graph @main(%a: tensor<1x32x4xf32> {coreai.name = "a"}) -> (tensor<1x32x4xf32> {coreai.name = "y"}) {
  coreai.output %a : tensor<1x32x4xf32>
}

// -----

// expected-error @+1 {{set-hw-constraints: @main: 'x' already has an encoding (tensor<1x32x4xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1x1], interleave: [1x1x1]>>)}}
coreai.graph @main(%x: tensor<1x32x4xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1x1], interleave: [1x1x1]>> {coreai.name = "x"}) -> (tensor<1x32x4xf32> {coreai.name = "y"}) {
  %p = coreaix.copy_discarding_constraints(%x) : (tensor<1x32x4xf32, #coreaix.hw_constraints<Heap, alignments: [1x1x1x1], interleave: [1x1x1]>>) -> tensor<1x32x4xf32>
  coreai.output %p : tensor<1x32x4xf32>
}

// -----

coreai.graph private @use(%h: !coreai.handle<tensor<1x32x4xf32>>) -> !coreai.token {
  %t = coreai.create_token : !coreai.token
  coreai.output %t : !coreai.token
}
// expected-error @+1 {{set-hw-constraints: @main: input 0 (!coreai.handle<tensor<1x32x4xf32, #coreaix.hw_constraints<IOSurface, alignments: [1x1x32x1], interleave: [1x1x1]>>>) is used by 'coreai.invoke'; only coreai.read_handle and coreai.write_handle of a constrained handle are rewritten}}
coreai.graph @main(%x: !coreai.handle<tensor<1x32x4xf32>> {coreai.name = "x"}) -> (!coreai.token {coreai.name = "x"}) {
  %t = coreai.invoke @use(%x) : (!coreai.handle<tensor<1x32x4xf32>>) -> !coreai.token
  coreai.output %t : !coreai.token
}
