//===- CoreAIOps.td - coreai operations --------------------*- tablegen -*-===//

#ifndef COREAI_COREAI_OPS
#define COREAI_COREAI_OPS

include "coreai/CoreAIBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"

def CoreAI_GraphOp : CoreAI_Op<"graph", [
    IsolatedFromAbove, Symbol, FunctionOpInterface, AutomaticAllocationScope]> {
  let summary = "a graph of Core AI operations";
  let description = [{
    A named graph, invoked with `coreai.invoke`; not a function. Optional unit
    attributes print as keywords before the name: `private` (`priv`),
    `externalize` and `noinline` (`no_inline`).

    Example:
    ```mlir
    coreai.graph @main(%x: tensor<2x3xf32> {coreai.name = "x"}) -> (tensor<2x3xf32> {coreai.name = "y"}) {
      %0 = coreai.abs %x : tensor<2x3xf32> -> tensor<2x3xf32>
      coreai.output %0 : tensor<2x3xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       Param_DeclArrayAttr:$param_decls,
                       UnitAttr:$priv,
                       UnitAttr:$externalize,
                       UnitAttr:$no_inline,
                       OptionalAttr<AnyAttr>:$composite_decl,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    //===------------------------------------------------------------------===//
    // FunctionOpInterface
    //===------------------------------------------------------------------===//
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    /// Graphs use the `priv` unit attribute instead of `sym_visibility`.
    bool isPrivate() { return getPriv(); }
    bool isPublic() { return !getPriv(); }
    bool isDeclaration() { return getBody().empty(); }
  }];
}

def CoreAI_OutputOp : CoreAI_Op<"output", [
    Pure, Terminator, ReturnLike, HasParent<"GraphOp">]> {
  let summary = "the results of a coreai.graph";
  let description = [{
    Example:
    ```mlir
    coreai.output %0, %1 : tensor<2xf32>, tensor<i32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands_);
  let assemblyFormat = "attr-dict ($operands_^ `:` type($operands_))?";
  let hasVerifier = 1;
}

def CoreAI_ConstantOp : CoreAI_Op<"constant", [
    Pure, ConstantLike, AllTypesMatch<["value", "result"]>]> {
  let summary = "a tensor constant";
  let description = [{
    Example:
    ```mlir
    %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict $value";
}

def CoreAI_AbsOp : CoreAI_Op<"abs", [Pure, SameOperandsAndResultShape]> {
  let summary = "elementwise absolute value";
  let description = [{
    Example:
    ```mlir
    %1 = coreai.abs %x : tensor<2x3xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
}

/// A binary elementwise op with NumPy broadcasting of `input` and `other`.
class CoreAI_BroadcastingBinaryOp<string name, string what>
    : CoreAI_Op<"decomposable.broadcasting_" # name, [Pure]> {
  let summary = "elementwise " # what # " with broadcasting";
  let description = [{
    Broadcasts `input` and `other` to a common shape (NumPy rules) and applies
    the operation elementwise.

    Example:
    ```mlir
    %0 = coreai.decomposable.broadcasting_}] # name # [{ %a, %b : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$other);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input `,` $other attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def CoreAI_BroadcastingAddOp : CoreAI_BroadcastingBinaryOp<"add", "addition">;
def CoreAI_BroadcastingMulOp : CoreAI_BroadcastingBinaryOp<"mul", "multiplication">;

#endif // COREAI_COREAI_OPS
