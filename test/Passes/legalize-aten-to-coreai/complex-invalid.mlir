// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

func.func @complex_broadcast(%re: tensor<3xf32>, %im: tensor<1xf32>) -> tensor<3xcomplex<f32>> {
  // expected-error @below {{cannot lower 'aten::complex.default': the part tensor<1xf32> does not have the result shape [3] (broadcasting complex parts is not lowered)}}
  %0 = aten.complex.default %re, %im : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}

// -----

func.func @view_as_complex_odd(%x: tensor<3x3xf32>) -> tensor<3xcomplex<f32>> {
  // expected-error @below {{cannot lower 'aten::view_as_complex.default': view_as_complex needs a last dim of size 2, got tensor<3x3xf32>}}
  %0 = aten.view_as_complex.default %x : (tensor<3x3xf32>) -> tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}

// -----

func.func @complex128(%re: tensor<3xf64>, %im: tensor<3xf64>) -> tensor<3xcomplex<f64>> {
  // expected-error @below {{cannot lower 'aten::complex.default': coreai's complex ops take complex<f32> (torch.complex64) only, not complex<f64>}}
  %0 = aten.complex.default %re, %im : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xcomplex<f64>>
  return %0 : tensor<3xcomplex<f64>>
}

// -----

func.func @view_as_real_complex128(%z: tensor<3xcomplex<f64>>) -> tensor<3x2xf64> {
  // expected-error @below {{cannot lower 'aten::view_as_real.default': coreai's complex ops take complex<f32> (torch.complex64) only, not complex<f64>}}
  %0 = aten.view_as_real.default %z : (tensor<3xcomplex<f64>>) -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}
