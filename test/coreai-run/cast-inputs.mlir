// RUN: %python -c "import numpy as np; np.savez('%t.in.npz', ids=np.array([3, 0, 32767], np.int64), x=np.array([1.0, 0.1, 7e4, -2.5], np.float32))"
// RUN: %python -c "import numpy as np; np.savez('%t.big.npz', ids=np.array([3, 0, 32768], np.int64), x=np.zeros(4, np.float32))"
// RUN: not coreai-run %s --inputs %t.in.npz 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: coreai-run %s --inputs %t.in.npz --cast-inputs --outputs %t.out.npz
// RUN: %python -c "import numpy as np; z = np.load('%t.out.npz'); assert z['ids'].dtype == np.int16 and z['ids'].tolist() == [3, 0, 32767], z['ids']; assert z['x'].dtype == np.float16 and z['x'].view(np.uint16).tolist() == np.array([1.0, 0.1, 7e4, -2.5], np.float32).astype(np.float16).view(np.uint16).tolist(), z['x']"
// RUN: not coreai-run %s --inputs %t.big.npz --cast-inputs 2>&1 | FileCheck %s --check-prefix=FIT

// An asset compiled with the Neural Engine's inputs (`--io f16`) takes si16
// ids and f16 values: without --cast-inputs an int64 or float32 array is an
// error; with it, floats round to nearest once (7e4 becomes inf, as f16
// holds at most 65504) and integers convert only when every value fits.
// STRICT: dtype int64 does not match the argument type tensor<3xsi16>
// FIT: a value of the int64 input does not fit int16 (--cast-inputs)
coreai.graph @main(%ids: tensor<3xsi16> {coreai.name = "ids"}, %x: tensor<4xf16> {coreai.name = "x"}) -> (tensor<3xsi16> {coreai.name = "ids"}, tensor<4xf16> {coreai.name = "x"}) {
  coreai.output %ids, %x : tensor<3xsi16>, tensor<4xf16>
}
