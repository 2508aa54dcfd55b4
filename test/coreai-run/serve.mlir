// RUN: %python -c "import numpy as np; np.savez('%t.a.npz', x=np.array([1, 2, 3], np.float32)); np.savez('%t.b.npz', x=np.array([-4, 0.5, 8], np.float32))"
// RUN: printf 'main\t%t.a.npz\t%t.a.out.npz\nmain\tnot-a-request\nnope\t%t.a.npz\t%t.x.npz\n\ntwice\t%t.b.npz\t%t.b.out.npz\n' | coreai-run %s --serve | FileCheck %s
// RUN: %python -c "import numpy as np; a = np.load('%t.a.out.npz'); b = np.load('%t.b.out.npz'); assert a['y'].tolist() == [2, 4, 6] and b['y'].tolist() == [-16, 2, 32] and b['z'].tolist() == [-8, 1, 16], (a['y'], b['y'], b['z'])"

// --serve reads the module once and answers one line per request line
// (ENTRY<TAB>INPUTS.npz<TAB>OUTPUTS.npz); a bad request is an error line and
// the server goes on; blank lines are skipped.
// CHECK:      ok
// CHECK-NEXT: error: {{.*}}expected ENTRY<TAB>INPUTS.npz<TAB>OUTPUTS.npz
// CHECK-NEXT: error: {{.*}}nope
// CHECK-NEXT: ok
// CHECK-NOT:  {{.}}
coreai.graph @main(%x: tensor<3xf32> {coreai.name = "x"}) -> (tensor<3xf32> {coreai.name = "y"}) {
  %y = coreai.decomposable.broadcasting_add %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  coreai.output %y : tensor<3xf32>
}
coreai.graph @twice(%x: tensor<3xf32> {coreai.name = "x"}) -> (tensor<3xf32> {coreai.name = "y"}, tensor<3xf32> {coreai.name = "z"}) {
  %z = coreai.decomposable.broadcasting_add %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = coreai.decomposable.broadcasting_add %z, %z : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  coreai.output %y, %z : tensor<3xf32>, tensor<3xf32>
}
