// RUN: coreai-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(legalize-aten-to-coreai)'

// Metal has no f64.
func.func @f64_input(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @below {{cannot lower 'coreai_metal_kernels::k.default': the kernel input 'x' has the element type f64, which Metal kernels do not take}}
  %0 = aten.operator "coreai_metal_kernels::k.default"(%x) {metal_kernel = {name = "k", input_names = ["x"], result_names = ["y"], source = "y[gid] = x[gid];", helper_source = "", metal_params = [["gid", "uint", "thread_position_in_grid"]], template_dtypes = [], scalars = {}, threads_per_grid = array<i64: 4, 1, 1>, threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 4>]}} : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @f64_result(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @below {{cannot lower 'coreai_metal_kernels::k.default': the kernel result 'y' has the element type f64, which Metal kernels do not take}}
  %0 = aten.operator "coreai_metal_kernels::k.default"(%x) {metal_kernel = {name = "k", input_names = ["x"], result_names = ["y"], source = "y[gid] = x[gid];", helper_source = "", metal_params = [["gid", "uint", "thread_position_in_grid"]], template_dtypes = [], scalars = {}, threads_per_grid = array<i64: 4, 1, 1>, threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 4>]}} : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// The MTLBuffer constraints and the result shapes need static shapes.
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @below {{cannot lower 'coreai_metal_kernels::k.default': dim 0 of tensor<?xf32> is dynamic; this lowering needs static shapes}}
  %0 = aten.operator "coreai_metal_kernels::k.default"(%x) {metal_kernel = {name = "k", input_names = ["x"], result_names = ["y"], source = "y[gid] = x[gid];", helper_source = "", metal_params = [["gid", "uint", "thread_position_in_grid"]], template_dtypes = [], scalars = {}, threads_per_grid = array<i64: 4, 1, 1>, threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 4>]}} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// MSL's int is 32 bits: coreai-torch rejects wider scalars.
func.func @wide_int_scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'coreai_metal_kernels::k.default': the int scalar 'n' = 4294967296 is outside the 32-bit int range of MSL}}
  %0 = aten.operator "coreai_metal_kernels::k.default"(%x) {metal_kernel = {name = "k", input_names = ["x", "n"], result_names = ["y"], source = "y[gid] = x[gid] + n;", helper_source = "", metal_params = [], template_dtypes = [], scalars = {n = 4294967296 : i64}, threads_per_grid = array<i64: 4, 1, 1>, threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 4>]}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @infinite_scalar(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'coreai_metal_kernels::k.default': the float scalar 's' = inf is not finite; NaN/inf scalars are not supported}}
  %0 = aten.operator "coreai_metal_kernels::k.default"(%x) {metal_kernel = {name = "k", input_names = ["x", "s"], result_names = ["y"], source = "y[gid] = x[gid] * s;", helper_source = "", metal_params = [], template_dtypes = [], scalars = {s = 0x7FF0000000000000 : f64}, threads_per_grid = array<i64: 4, 1, 1>, threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 4>]}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Metal dispatches a 3-D grid.
func.func @two_d_grid(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'coreai_metal_kernels::k.default': threads_per_grid must have 3 entries, got [4, 1]}}
  %0 = aten.operator "coreai_metal_kernels::k.default"(%x) {metal_kernel = {name = "k", input_names = ["x"], result_names = ["y"], source = "", helper_source = "", metal_params = [], template_dtypes = [], scalars = {}, threads_per_grid = array<i64: 4, 1>, threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 4>]}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @operand_count(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'coreai_metal_kernels::k.default': the kernel 'k' has 1 tensor inputs, the op 2 operands}}
  %0 = aten.operator "coreai_metal_kernels::k.default"(%x, %y) {metal_kernel = {name = "k", input_names = ["x"], result_names = ["y"], source = "y[gid] = x[gid];", helper_source = "", metal_params = [["gid", "uint", "thread_position_in_grid"]], template_dtypes = [], scalars = {}, threads_per_grid = array<i64: 4, 1, 1>, threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 4>]}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Only coreai_export records what the lowering needs.
func.func @not_imported(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'coreai_metal_kernels::k.default': a coreai_metal_kernels op needs the 'metal_kernel' attribute coreai_export records (import the model with coreai_export, registering the kernel)}}
  %0 = aten.operator "coreai_metal_kernels::k.default"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @too_many_parameters(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot lower 'coreai_metal_kernels::k.default': Metal kernels take at most 31 parameters, 'k' has 33}}
  %0 = aten.operator "coreai_metal_kernels::k.default"(%x) {metal_kernel = {name = "k", input_names = ["x"], result_names = ["y"], source = "", helper_source = "", metal_params = [["p1", "uint", "thread_index_in_simdgroup"], ["p2", "uint", "thread_index_in_simdgroup"], ["p3", "uint", "thread_index_in_simdgroup"], ["p4", "uint", "thread_index_in_simdgroup"], ["p5", "uint", "thread_index_in_simdgroup"], ["p6", "uint", "thread_index_in_simdgroup"], ["p7", "uint", "thread_index_in_simdgroup"], ["p8", "uint", "thread_index_in_simdgroup"], ["p9", "uint", "thread_index_in_simdgroup"], ["p10", "uint", "thread_index_in_simdgroup"], ["p11", "uint", "thread_index_in_simdgroup"], ["p12", "uint", "thread_index_in_simdgroup"], ["p13", "uint", "thread_index_in_simdgroup"], ["p14", "uint", "thread_index_in_simdgroup"], ["p15", "uint", "thread_index_in_simdgroup"], ["p16", "uint", "thread_index_in_simdgroup"], ["p17", "uint", "thread_index_in_simdgroup"], ["p18", "uint", "thread_index_in_simdgroup"], ["p19", "uint", "thread_index_in_simdgroup"], ["p20", "uint", "thread_index_in_simdgroup"], ["p21", "uint", "thread_index_in_simdgroup"], ["p22", "uint", "thread_index_in_simdgroup"], ["p23", "uint", "thread_index_in_simdgroup"], ["p24", "uint", "thread_index_in_simdgroup"], ["p25", "uint", "thread_index_in_simdgroup"], ["p26", "uint", "thread_index_in_simdgroup"], ["p27", "uint", "thread_index_in_simdgroup"], ["p28", "uint", "thread_index_in_simdgroup"], ["p29", "uint", "thread_index_in_simdgroup"], ["p30", "uint", "thread_index_in_simdgroup"], ["q", "uint", "thread_index_in_simdgroup"]], template_dtypes = [], scalars = {}, threads_per_grid = array<i64: 4, 1, 1>, threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 4>]}} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
