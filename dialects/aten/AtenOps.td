//===- AtenOps.td - aten operations ------------------------*- tablegen -*-===//

#ifndef COREAI_ATEN_OPS
#define COREAI_ATEN_OPS

include "aten/AtenBase.td"

def Aten_ReluDefaultOp : Aten_Op<"relu.default", [Pure]> {
  let summary = "aten::relu(Tensor self) -> Tensor";
  let description = [{
    Example:
    ```mlir
    %0 = aten.relu.default %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$self_arg);
  let results = (outs AnyRankedTensor:$result);
}

def Aten_AddTensorOp : Aten_Op<"add.Tensor", [Pure]> {
  let summary = "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
  let description = [{
    `self + alpha * other`, with PyTorch's broadcasting and type promotion.

    Example:
    ```mlir
    %0 = aten.add.Tensor %a, %b {alpha = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$self_arg, AnyRankedTensor:$other,
                       Aten_ScalarAttr:$alpha);
  let results = (outs AnyRankedTensor:$result);
}

def Aten_MeanDimOp : Aten_Op<"mean.dim", [Pure]> {
  let summary = "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor";
  let description = [{
    Mean over the dimensions `dim` (all when absent).

    Example:
    ```mlir
    %0 = aten.mean.dim %x {dim = [1], keepdim = false} : (tensor<2x3xf32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$self_arg, OptionalAttr<I64ArrayAttr>:$dim,
                       BoolAttr:$keepdim, OptionalAttr<TypeAttr>:$dtype);
  let results = (outs AnyRankedTensor:$result);
  let hasVerifier = 1;
}

def Aten_OperatorOp : Aten_Op<"operator"> {
  let summary = "an ATen overload the dialect does not define";
  let description = [{
    Carries an FX target the dialect has no op for, so that import never fails
    and the legalizer can report the real problem. `name` is the qualified
    overload, `namespace::name.overload`.

    Example:
    ```mlir
    %0 = aten.operator "my_lib::scaled_add.default"(%a, %b) {scale = 2.0 : f64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = "$name `(` $operands `)` attr-dict `:` functional-type($operands, $results)";
  let hasVerifier = 1;
}

#endif // COREAI_ATEN_OPS
