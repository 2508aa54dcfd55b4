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
    A view changes only the constraint encoding of `source`, never its data.

    Example:
    ```mlir
    %1 = coreaix.view %0 : tensor<4xf16, #a> -> tensor<4xf16, #b>
    ```
  }];
  let arguments = (ins CoreAIX_ConstrainedTensor:$source);
  let results = (outs CoreAIX_ConstrainedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

#endif // COREAI_COREAIX_OPS
