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
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/TensorEncoding.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def CoreAIX_Dialect : Dialect {
  let name = "coreaix";
  let cppNamespace = "::coreai::corex";
  let summary = "hardware-constraint extensions to Core AI";
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def CoreAIX_AllocationType : I32EnumAttr<"AllocationType",
    "An enum corresponding to the backing type to be used for allocations.", [
    I32EnumAttrCase<"IOSurface", 0>, I32EnumAttrCase<"MTLBuffer", 1>,
    I32EnumAttrCase<"Heap", 2>]> {
  let cppNamespace = "::coreai::corex";
  let genSpecializedAttr = 0;
}

def CoreAIX_ImageContainerType : I32EnumAttr<"ImageContainerType",
    "An enum corresponding to the backing type to be used for allocations of image types.", [
    I32EnumAttrCase<"CVPixelBuffer", 0>, I32EnumAttrCase<"MTLTexture", 1>]> {
  let cppNamespace = "::coreai::corex";
  let genSpecializedAttr = 0;
}

def CoreAIX_HWConstraintsAttr : AttrDef<CoreAIX_Dialect, "HWConstraints",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "hw_constraints";
  let summary = "hardware layout constraints of a tensor (a tensor encoding)";
  let description = [{
    The backing allocation (`IOSurface`, `MTLBuffer`, `Heap`), one alignment
    per dimension plus one (static), and one interleave factor per dimension
    (each static dimension a multiple of its factor). Dimension lists print
    like shapes (`1x16`, `?` dynamic).

    ```mlir
    tensor<4x8xf16, #coreaix.hw_constraints<MTLBuffer, alignments: [1x1x16], interleave: [1x1]>>
    ```

    coreai-core also accepts an optional `baseEncoding` parameter; its syntax
    is not known here, so it is not supported.
  }];
  let parameters = (ins EnumParameter<CoreAIX_AllocationType>:$backing,
                        ArrayRefParameter<"int64_t">:$alignments,
                        ArrayRefParameter<"int64_t">:$interleave);
  let assemblyFormat = "`<` $backing `,` `alignments` `` custom<DimList>($alignments) `,` `interleave` `` custom<DimList>($interleave) `>`";
}

def CoreAIX_ImageConstraintsAttr : AttrDef<CoreAIX_Dialect, "ImageConstraints"> {
  let mnemonic = "image_constraints";
  let summary = "the backing of an image and the row alignment of each plane";
  let description = [{
    ```mlir
    #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>
    ```
  }];
  let parameters = (ins EnumParameter<CoreAIX_ImageContainerType>:$backing,
                        ArrayRefParameter<"int64_t">:$rowAlignmentsPerPlane);
  let assemblyFormat = "`<` $backing `,` `rowAlignmentsPerPlane` `` custom<DimList>($rowAlignmentsPerPlane) `>`";
}

//===----------------------------------------------------------------------===//
// Types and ops
//===----------------------------------------------------------------------===//

/// A ranked tensor whose encoding is #coreaix.hw_constraints.
def CoreAIX_ConstrainedTensor : Type<
    And<[AnyRankedTensor.predicate,
         CPred<"::llvm::isa_and_nonnull<::coreai::corex::HWConstraintsAttr>(::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding())">]>,
    "ranked tensor with a #coreaix.hw_constraints encoding",
    "::mlir::RankedTensorType">;

/// A ranked tensor without a #coreaix.hw_constraints encoding.
def CoreAIX_UnconstrainedTensor : Type<
    And<[AnyRankedTensor.predicate,
         CPred<"!::llvm::isa_and_nonnull<::coreai::corex::HWConstraintsAttr>(::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding())">]>,
    "ranked tensor without a #coreaix.hw_constraints encoding",
    "::mlir::RankedTensorType">;

class CoreAIX_Op<string mnemonic, list<Trait> traits = []>
    : Op<CoreAIX_Dialect, mnemonic, traits>;

def CoreAIX_ViewOp : CoreAIX_Op<"view", [Pure]> {
  let summary = "reinterpret a constrained tensor without copying";
  let description = [{
    A view changes the constraint encoding (and, as in coreai-core, possibly
    the shape) of `source`, never its data or element type.

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

def CoreAIX_CastOp : CoreAIX_Op<"cast", [Pure]> {
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

def CoreAIX_CopyWithConstraintsOp : CoreAIX_Op<"copy_with_constraints", [Pure]> {
  let summary = "copy a tensor into a constrained layout";
  let description = [{
    Copies `source` into a tensor whose encoding carries hardware
    constraints (buffer kind, alignments, interleave).

    Example:
    ```mlir
    %1 = coreaix.copy_with_constraints(%0) : (tensor<4xf16>) -> tensor<4xf16, #a>
    ```
  }];
  let arguments = (ins CoreAIX_UnconstrainedTensor:$source);
  let results = (outs CoreAIX_ConstrainedTensor:$result);
  let assemblyFormat = "`(` $source `)` attr-dict `:` functional-type($source, $result)";
  let hasVerifier = 1;
}

def CoreAIX_CopyDiscardingConstraintsOp : CoreAIX_Op<"copy_discarding_constraints", [Pure]> {
  let summary = "copy a constrained tensor into a plain tensor";
  let description = [{
    Copies `source` out of its constrained layout into an ordinary tensor.

    Example:
    ```mlir
    %1 = coreaix.copy_discarding_constraints(%0) : (tensor<4xf16, #a>) -> tensor<4xf16>
    ```
  }];
  let arguments = (ins CoreAIX_ConstrainedTensor:$source);
  let results = (outs CoreAIX_UnconstrainedTensor:$result);
  let assemblyFormat = "`(` $source `)` attr-dict `:` functional-type($source, $result)";
  let hasVerifier = 1;
}

#endif // COREAI_COREAIX_OPS
