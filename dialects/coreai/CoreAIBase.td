//===- CoreAIBase.td - the coreai and param dialects -------*- tablegen -*-===//
//
// Apple's Core AI dialect as coreai-core 1.0.0b3 defines it: same op names,
// operand and attribute names, property order and assembly formats, so IR
// parses in both directions and bytecode loads in coreai-core.
//
//===----------------------------------------------------------------------===//

#ifndef COREAI_COREAI_BASE
#define COREAI_COREAI_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def CoreAI_Dialect : Dialect {
  let name = "coreai";
  let cppNamespace = "::coreai::core";
  let dependentDialects = ["::coreai::param::ParamDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let summary = "Apple Core AI IR (compatible with coreai-core 1.0.0b3)";
  let description = [{
    The target dialect of the pipeline. Programs are `coreai.graph` symbols
    whose bodies end in `coreai.output`; elementwise binary ops broadcast with
    NumPy rules (`coreai.decomposable.broadcasting_*`).
  }];
}

def Param_Dialect : Dialect {
  let name = "param";
  let cppNamespace = "::coreai::param";
  let summary = "parameter declarations carried by coreai graphs";
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
}

def Param_SymbolType : TypeDef<Param_Dialect, "Symbol"> {
  let mnemonic = "symbol";
  let summary = "the type of a parameter constant naming a symbol";
}

def Param_ConstantAttr : AttrDef<Param_Dialect, "Constant", [TypedAttrInterface]> {
  let mnemonic = "constant";
  let summary = "a typed parameter constant";
  let description = [{
    `coreai.invoke` stores its callee as `#param.constant<@graph> : !param.symbol`
    and prints only `@graph`.
  }];
  let parameters = (ins "::mlir::Attribute":$value,
                        AttributeSelfTypeParameter<"">:$type);
  let assemblyFormat = "`<` $value `>`";
}

def Param_DeclArrayAttr : AttrDef<Param_Dialect, "DeclArray"> {
  let mnemonic = "decl.array";
  let summary = "the parameter declarations of a graph";
  let parameters = (ins "::mlir::ArrayAttr":$decls);
  let assemblyFormat = "`<` $decls `>`";
}

class CoreAI_Op<string mnemonic, list<Trait> traits = []>
    : Op<CoreAI_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def CoreAI_HandleType : TypeDef<CoreAI_Dialect, "Handle"> {
  let mnemonic = "handle";
  let summary = "a mutable buffer holding a value of `innerType`";
  let description = [{
    Graph arguments of this type are state (PyTorch buffers mutated in place);
    `coreai.read_handle` and `coreai.write_handle` access them, ordered by
    `!coreai.token` values.
  }];
  let parameters = (ins "::mlir::Type":$innerType);
  let assemblyFormat = "`<` $innerType `>`";
}

def CoreAI_TokenType : TypeDef<CoreAI_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "orders side effects on handles";
}

/// Tokens print in full (`!coreai.token`) inside op formats.
def CoreAI_Token : Type<CPred<"::llvm::isa<::coreai::core::TokenType>($_self)">,
                        "Core AI token", "::mlir::Type">;

def CoreAI_Tensor : AnyTypeOf<[AnyRankedTensor], "ranked tensor">;

def CoreAI_ImageType : TypeDef<CoreAI_Dialect, "Image"> {
  let mnemonic = "image";
  let summary = "an image of `height` x `width` pixels in a FourCC pixel format";
  let description = [{
    `height` and `width` are positive integer attributes (printed with their
    type, `4 : i64`); `image_constraints` optionally carries a backing
    encoding (`#coreaix.image_constraints<...>`).

    ```mlir
    !coreai.image<<k24RGB> x 4 : i64 x 6 : i64>
    !coreai.image<<k32BGRA> x 2 : i64 x 3 : i64, image_constraints = #coreaix.image_constraints<CVPixelBuffer, rowAlignmentsPerPlane: [64]>>
    ```
  }];
  let parameters = (ins "::coreai::core::FourCCAttr":$fourCC,
                        "::mlir::TypedAttr":$height,
                        "::mlir::TypedAttr":$width,
                        OptionalParameter<"::mlir::Attribute">:$image_constraints);
  let assemblyFormat = "`<` $fourCC `x` $height `x` $width (`,` `image_constraints` `=` $image_constraints^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The shape of `coreai.image_to_tensor`'s result for this image.
    ::llvm::SmallVector<int64_t> tensorShape();
  }];
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def CoreAI_CompositeDeclarationAttr
    : AttrDef<CoreAI_Dialect, "CompositeDeclaration"> {
  let mnemonic = "composite_declaration";
  let summary = "declares that a private graph implements a named composite op";
  let description = [{
    ```mlir
    #coreai.composite_declaration<"hard_sigmoid" = {input_names = ["input"], op_attrs = {version = 1 : si64}, output_names = ["output"]}>
    ```
  }];
  let parameters = (ins StringRefParameter<"composite op name">:$name,
                        "::mlir::DictionaryAttr":$declaration);
  let assemblyFormat = "`<` $name `=` $declaration `>`";
}

def CoreAI_FourCCAttr : AttrDef<CoreAI_Dialect, "FourCC"> {
  let mnemonic = "fourcc";
  let summary = "a CoreVideo FourCC pixel-format code";
  let description = [{
    Stores the 32-bit code. Prints the enum name when the code has one
    (`kUnknown` 0, `k24RGB` 24, `k32ARGB` 32, `k32BGRA` 'BGRA',
    `k420YpCbCr8Planar` 'y420'), else the four characters when printable
    (`"RGBA"`), else the integer. Parses any of the three forms.

    ```mlir
    #coreai.fourcc<k24RGB>
    #coreai.fourcc<"RGBA">
    ```
  }];
  let parameters = (ins "uint32_t":$value);
  let hasCustomAssemblyFormat = 1;
}

def CoreAI_CompressionScheme : I32EnumAttr<"CompressionScheme", "sparse compression scheme", [
    I32EnumAttrCase<"bitmask", 0>, I32EnumAttrCase<"coo", 1>,
    I32EnumAttrCase<"csr", 2>, I32EnumAttrCase<"csc", 3>,
    I32EnumAttrCase<"bsr", 4>]> {
  let cppNamespace = "::coreai::core";
  let genSpecializedAttr = 0;
}

def CoreAI_SparseTensorEncodingAttr : AttrDef<CoreAI_Dialect, "SparseTensorEncoding"> {
  let mnemonic = "sparse_tensor_encoding";
  let summary = "a sparse tensor layout (a tensor encoding)";
  let description = [{
    The encoding of `coreai.build_sparse_with_bitmask` results and the
    operands of the `*_sparse_with_bitmask` ops. `bitmask` requires
    `posWidth = 1` and `crdWidth = 1`; `blockSize` is required by, and only
    allowed for, `bsr`.

    ```mlir
    tensor<2x3xf32, #coreai.sparse_tensor_encoding<bitmask, numNonZero = 4, posWidth = 1, crdWidth = 1>>
    ```
  }];
  let parameters = (ins EnumParameter<CoreAI_CompressionScheme>:$compressionScheme,
                        OptionalParameter<"std::optional<uint64_t>">:$numNonZero,
                        "uint32_t":$posWidth,
                        "uint32_t":$crdWidth,
                        OptionalArrayRefParameter<"uint64_t">:$blockSize);
  let assemblyFormat = "`<` $compressionScheme `,` (`numNonZero` `=` $numNonZero^ `,`)? `posWidth` `=` $posWidth `,` `crdWidth` `=` $crdWidth (`,` `blockSize` `=` `[` $blockSize^ `]`)? `>`";
  let genVerifyDecl = 1;
}

def CoreAI_TargetSpecAttr : AttrDef<CoreAI_Dialect, "TargetSpec"> {
  let mnemonic = "target_spec";
  let summary = "the hardware target of a module";
  let description = [{
    `triple` and `soc` are empty when unknown; `delegateOptions` carries
    delegate-specific settings.

    ```mlir
    #coreai.target_spec<triple = "arm64-apple-ios", soc = "a17", delegateOptions = {}>
    ```
  }];
  let parameters = (ins StringRefParameter<"platform triple">:$triple,
                        StringRefParameter<"SoC identifier">:$soc,
                        "::mlir::DictionaryAttr":$delegateOptions);
  let assemblyFormat = "`<` struct(params) `>`";
}

def CoreAI_Approximate : I32EnumAttr<"Approximate", "gelu approximation", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>,
    I32EnumAttrCase<"sigmoid", 2>]> {
  let cppNamespace = "::coreai::core";
  let genSpecializedAttr = 0;
}
def CoreAI_ApproximateAttr : EnumAttr<CoreAI_Dialect, CoreAI_Approximate, "approximate"> {
  let assemblyFormat = "`<` $value `>`";
}

def CoreAI_PaddingMode : I32EnumAttr<"PaddingMode", "padding mode", [
    I32EnumAttrCase<"circular", 0>, I32EnumAttrCase<"constant", 1>,
    I32EnumAttrCase<"reflect", 2>, I32EnumAttrCase<"replicate", 3>,
    I32EnumAttrCase<"symmetric", 4>]> {
  let cppNamespace = "::coreai::core";
  let genSpecializedAttr = 0;
}
def CoreAI_PaddingModeAttr : EnumAttr<CoreAI_Dialect, CoreAI_PaddingMode, "padding_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def CoreAI_ScatterMode : I32EnumAttr<"ScatterMode", "scatter combine mode", [
    I32EnumAttrCase<"update", 0>, I32EnumAttrCase<"add", 1>,
    I32EnumAttrCase<"sub", 2>, I32EnumAttrCase<"mul", 3>,
    I32EnumAttrCase<"div", 4>, I32EnumAttrCase<"max", 5>,
    I32EnumAttrCase<"min", 6>]> {
  let cppNamespace = "::coreai::core";
  let genSpecializedAttr = 0;
}
def CoreAI_ScatterModeAttr : EnumAttr<CoreAI_Dialect, CoreAI_ScatterMode, "scatter_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def CoreAI_InterpolationMode : I32EnumAttr<"InterpolationMode", "interpolation mode", [
    I32EnumAttrCase<"linear", 0>, I32EnumAttrCase<"nearest_neighbor", 1>]> {
  let cppNamespace = "::coreai::core";
  let genSpecializedAttr = 0;
}
def CoreAI_InterpolationModeAttr
    : EnumAttr<CoreAI_Dialect, CoreAI_InterpolationMode, "interpolation_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def CoreAI_Compilation : I32EnumAttr<"Compilation", "compilation state", [
    I32EnumAttrCase<"full", 0>, I32EnumAttrCase<"partial", 1>,
    I32EnumAttrCase<"finalized", 2>]> {
  let cppNamespace = "::coreai::core";
  let genSpecializedAttr = 0;
}
def CoreAI_CompilationAttr : EnumAttr<CoreAI_Dialect, CoreAI_Compilation, "compilation"> {
  let assemblyFormat = "`<` $value `>`";
}

/// Stored as a plain i32 (`scan_op = 0 : i32` in generic form).
def CoreAI_ScanCombiner : I32EnumAttr<"ScanCombiner", "scan combiner", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"product", 1>,
    I32EnumAttrCase<"min", 2>, I32EnumAttrCase<"max", 3>]> {
  let cppNamespace = "::coreai::core";
}

#endif // COREAI_COREAI_BASE
