//===- CoreAIXOps.td - the coreaix extension dialect -------*- tablegen -*-===//
//
// Hardware-constraint extensions to coreai: tensors whose encoding carries
// #coreaix.hw_constraints<...> (buffer kind, alignment, interleave), and the
// ops that move values between constrained and unconstrained layouts.
//
//===----------------------------------------------------------------------===//

#ifndef COREAI_COREAIX_OPS
#define COREAI_COREAIX_OPS

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def CoreAIX_Dialect : Dialect {
  let name = "coreaix";
  let cppNamespace = "::coreai::corex";
  let summary = "hardware-constraint extensions to Core AI";
}

/// A ranked tensor whose encoding carries hardware constraints.
def CoreAIX_ConstrainedTensor : Type<
    And<[AnyRankedTensor.predicate,
         CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding() != nullptr">]>,
    "ranked tensor with a hardware-constraint encoding",
    "::mlir::RankedTensorType">;

class CoreAIX_Op<string mnemonic, list<Trait> traits = []>
    : Op<CoreAIX_Dialect, mnemonic, traits>;

def CoreAIX_ViewOp : CoreAIX_Op<"view", [Pure, SameOperandsAndResultShape]> {
  let summary = "reinterpret a constrained tensor without copying";
  let description = [{
    A view changes only the constraint encoding of `source`, never its data or
    element type.

    Example:
    ```mlir
    %1 = coreaix.view(%0) : (tensor<4xf16, #a>) -> tensor<4xf16, #b>
    ```
  }];
  let arguments = (ins CoreAIX_ConstrainedTensor:$source);
  let results = (outs CoreAIX_ConstrainedTensor:$result);
  let assemblyFormat = "`(` $source `)` attr-dict `:` functional-type($source, $result)";
  let hasVerifier = 1;
}

def CoreAIX_CastOp : CoreAIX_Op<"cast", [Pure, SameOperandsAndResultShape]> {
  let summary = "change the element type of a constrained tensor";
  let description = [{
    Converts the elements of a tensor that carries a hardware-constraint
    encoding, keeping its shape.

    Example:
    ```mlir
    %1 = coreaix.cast(%0) : (tensor<4xf16, #a>) -> tensor<4xf32, #a>
    ```
  }];
  let arguments = (ins CoreAIX_ConstrainedTensor:$source);
  let results = (outs CoreAIX_ConstrainedTensor:$result);
  let assemblyFormat = "`(` $source `)` attr-dict `:` functional-type($source, $result)";
}

def CoreAIX_CopyWithConstraintsOp : CoreAIX_Op<"copy_with_constraints", [Pure, SameOperandsAndResultShape]> {
  let summary = "copy a tensor into a constrained layout";
  let description = [{
    Copies `source` into a tensor whose encoding carries hardware
    constraints (buffer kind, alignments, interleave).

    Example:
    ```mlir
    %1 = coreaix.copy_with_constraints(%0) : (tensor<4xf16>) -> tensor<4xf16, #a>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs CoreAIX_ConstrainedTensor:$result);
  let assemblyFormat = "`(` $source `)` attr-dict `:` functional-type($source, $result)";
}

def CoreAIX_CopyDiscardingConstraintsOp : CoreAIX_Op<"copy_discarding_constraints", [Pure, SameOperandsAndResultShape]> {
  let summary = "copy a constrained tensor into a plain tensor";
  let description = [{
    Copies `source` out of its constrained layout into an ordinary tensor.

    Example:
    ```mlir
    %1 = coreaix.copy_discarding_constraints(%0) : (tensor<4xf16, #a>) -> tensor<4xf16>
    ```
  }];
  let arguments = (ins CoreAIX_ConstrainedTensor:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "`(` $source `)` attr-dict `:` functional-type($source, $result)";
}

#endif // COREAI_COREAIX_OPS
