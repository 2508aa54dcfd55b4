//===- AtenStructuralOps.td - hand-written aten ops --------*- tablegen -*-===//
//
// The aten ops that native_functions.yaml does not describe: the generic
// `aten.operator`, the higher-order `cond` and `while_loop` with their
// terminator `yield`, and the Python operators torch.export records on
// symbolic sizes (`operator.add`, `torch.sym_float`, `math.ceil` ...), named
// like their FX target's `__name__` (the coreai-torch resolver's bare keys).
//
//===----------------------------------------------------------------------===//

#ifndef COREAI_ATEN_STRUCTURAL_OPS
#define COREAI_ATEN_STRUCTURAL_OPS

include "aten/AtenBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Aten_OperatorOp : Aten_Op<"operator"> {
  let summary = "an FX target the dialect does not define";
  let description = [{
    Carries an FX target the dialect has no op for, so that import never fails
    and the legalizer can report the real problem. `name` is the qualified
    overload, `namespace::name.overload`. Tensor arguments and symbolic
    scalars are operands; the other arguments are attributes named after the
    schema argument.

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

def Aten_YieldOp : Aten_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["CondOp", "WhileLoopOp"]>]> {
  let summary = "returns values from a cond branch or while_loop region";
  let description = [{
    Example:
    ```mlir
    aten.yield %0 : tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Aten_CondOp : Aten_Op<"cond", [RecursiveMemoryEffects]> {
  let summary = "torch.cond: runs one of two branches on a boolean predicate";
  let description = [{
    `torch.ops.higher_order.cond(pred, true_fn, false_fn, operands)`. Each
    branch is a one-block region whose arguments are `inputs` and which
    yields the results.

    Example:
    ```mlir
    %r = aten.cond %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      aten.yield %a : tensor<4xf32>
    }, {
    ^bb0(%a: tensor<4xf32>):
      %n = aten.neg.default %a : (tensor<4xf32>) -> tensor<4xf32>
      aten.yield %n : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins AnyTypeOf<[I1, AnyRankedTensor]>:$pred, Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$true_branch, SizedRegion<1>:$false_branch);
  let assemblyFormat = [{
    $pred ` ` `(` $inputs `)` `:` type($pred) `,` functional-type($inputs, $results)
    $true_branch `,` $false_branch attr-dict
  }];
  let hasVerifier = 1;
}

def Aten_WhileLoopOp : Aten_Op<"while_loop", [RecursiveMemoryEffects, AttrSizedOperandSegments]> {
  let summary = "torch.while_loop: iterates body while cond holds";
  let description = [{
    `torch.ops.higher_order.while_loop(cond_fn, body_fn, carried_inputs,
    additional_inputs)`. Both regions take the carried values followed by the
    additional inputs; `cond` yields a boolean (i1 or tensor<i1>), `body`
    yields the next carried values. The results are the final carried values.

    Example:
    ```mlir
    %r = aten.while_loop (%i : tensor<i64>) (%n : tensor<i64>) -> tensor<i64> cond {
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %c = aten.lt.Tensor %a, %b : (tensor<i64>, tensor<i64>) -> tensor<i1>
      aten.yield %c : tensor<i1>
    } body {
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = aten.add.Scalar %a {other = 1 : i64, alpha = 1 : i64} : (tensor<i64>) -> tensor<i64>
      aten.yield %s : tensor<i64>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$carried_inputs, Variadic<AnyType>:$additional_inputs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` ($carried_inputs^ `:` type($carried_inputs))? `)`
    `(` ($additional_inputs^ `:` type($additional_inputs))? `)`
    `->` type($results) `cond` $cond `body` $body attr-dict
  }];
  let hasVerifier = 1;
}

class Aten_PyBinaryOp<string mnemonic, string target>
    : Aten_Op<mnemonic, [Pure]> {
  let summary = "the Python operator `" # target # "` on symbolic scalars or tensors";
  let description = [{
    Recorded by torch.export on symbolic sizes (dynamic shapes).

    Example:
    ```mlir
    %r = aten.}] # mnemonic # [{ %a, %b : (i64, i64) -> i64
    ```
  }];
  let arguments = (ins Aten_ScalarOrTensor:$lhs, Aten_ScalarOrTensor:$rhs);
  let results = (outs Aten_ScalarOrTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

class Aten_PyUnaryOp<string mnemonic, string target>
    : Aten_Op<mnemonic, [Pure]> {
  let summary = "the Python function `" # target # "` on a symbolic scalar or tensor";
  let description = [{
    Recorded by torch.export on symbolic sizes (dynamic shapes).

    Example:
    ```mlir
    %r = aten.}] # mnemonic # [{ %a : (i64) -> f64
    ```
  }];
  let arguments = (ins Aten_ScalarOrTensor:$operand);
  let results = (outs Aten_ScalarOrTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type(operands, results)";
}

def Aten_PyAddOp : Aten_PyBinaryOp<"add", "operator.add">;
def Aten_PySubOp : Aten_PyBinaryOp<"sub", "operator.sub">;
def Aten_PyMulOp : Aten_PyBinaryOp<"mul", "operator.mul">;
def Aten_PyFloordivOp : Aten_PyBinaryOp<"floordiv", "operator.floordiv">;
def Aten_PyTruedivOp : Aten_PyBinaryOp<"truediv", "operator.truediv">;
def Aten_PyModOp : Aten_PyBinaryOp<"mod", "operator.mod">;
def Aten_PyPowOp : Aten_PyBinaryOp<"pow", "operator.pow">;
def Aten_PyEqOp : Aten_PyBinaryOp<"eq", "operator.eq">;
def Aten_PyNeOp : Aten_PyBinaryOp<"ne", "operator.ne">;
def Aten_PyLtOp : Aten_PyBinaryOp<"lt", "operator.lt">;
def Aten_PyLeOp : Aten_PyBinaryOp<"le", "operator.le">;
def Aten_PyGtOp : Aten_PyBinaryOp<"gt", "operator.gt">;
def Aten_PyGeOp : Aten_PyBinaryOp<"ge", "operator.ge">;
def Aten_PySymMinOp : Aten_PyBinaryOp<"sym_min", "torch.sym_min">;
def Aten_PySymMaxOp : Aten_PyBinaryOp<"sym_max", "torch.sym_max">;
def Aten_PyNegOp : Aten_PyUnaryOp<"neg", "operator.neg">;
def Aten_PyCeilOp : Aten_PyUnaryOp<"ceil", "math.ceil">;
def Aten_PyFloorOp : Aten_PyUnaryOp<"floor", "math.floor">;
def Aten_PyTruncOp : Aten_PyUnaryOp<"trunc", "math.trunc">;
def Aten_PyRoundOp : Aten_PyUnaryOp<"round", "round">;
def Aten_PySymFloatOp : Aten_PyUnaryOp<"sym_float", "torch.sym_float">;
def Aten_PySymIntOp : Aten_PyUnaryOp<"sym_int", "torch.sym_int">;
def Aten_PySymNotOp : Aten_PyUnaryOp<"sym_not", "torch.sym_not">;
def Aten_PySymSqrtOp : Aten_PyUnaryOp<"sym_sqrt", "torch.sym_sqrt">;

#endif // COREAI_ATEN_STRUCTURAL_OPS
