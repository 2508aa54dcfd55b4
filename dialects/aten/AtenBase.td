//===- AtenBase.td - the aten dialect and its op class -----*- tablegen -*-===//
//
// The `aten` dialect: one op per ATen overload, named exactly like the FX target
// torch.export prints (`aten.add.Tensor`, `aten.div.Tensor_mode`).
//
//===----------------------------------------------------------------------===//

#ifndef COREAI_ATEN_BASE
#define COREAI_ATEN_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Aten_Dialect : Dialect {
  let name = "aten";
  let cppNamespace = "::coreai::aten";
  let summary = "PyTorch ATen operators, one op per overload";
  let description = [{
    The input dialect of the coreai pipeline. Every op is one ATen overload and
    is named exactly like the `torch.export` FX target: `aten.add.Tensor` is
    `torch.ops.aten.add.Tensor`. Operands are the schema's tensors; the schema's
    non-tensor arguments (Scalar, int[], bool, ScalarType, ...) are attributes
    named after the schema argument (`self` is `self_arg`, which Rust
    builders can spell). An overload the dialect does not define is
    imported as the generic `aten.operator`.
  }];
}

//===----------------------------------------------------------------------===//
// Schema types (utils/aten-ods/generate.py applies this mapping)
//
//   Tensor           operand   AnyRankedTensor
//   Tensor?          operand   Optional<AnyRankedTensor>
//   Tensor[]         operand   Variadic<AnyRankedTensor>
//   Tensor?[]        operand   Variadic<AnyRankedTensor> + `<name>_present`
//                              (DenseBoolArrayAttr, false where the list has None)
//   Scalar           attribute Aten_ScalarAttr (bool, i64 or f64)
//   int, SymInt      attribute I64Attr          float       F64Attr
//   bool, SymBool    attribute BoolAttr         str, Dimname StrAttr
//   int[], SymInt[]  attribute I64ArrayAttr     float[]     F64ArrayAttr
//   bool[]           attribute DenseBoolArrayAttr
//   str[], Dimname[] attribute StrArrayAttr     Scalar[]    ArrayAttr
//   ScalarType       attribute TypeAttr (element type: f32, i64, i1, ...)
//   Layout, MemoryFormat, Device
//                    attribute StrAttr: torch's name without the prefix
//                              (`strided`, `contiguous_format`, `cpu`)
//   Generator        OptionalAttr<UnitAttr> (only None exports)
//   T? (not Tensor)  OptionalAttr<...>; absent means None
//
// Results: Tensor -> AnyRankedTensor, Tensor[] -> Variadic<AnyRankedTensor>,
// int/SymInt -> i64, float/SymFloat -> f64, bool/SymBool -> i1,
// Scalar -> Aten_ScalarType. Several schema returns are several results.
//
// Argument names: `self` is `self_arg`; so is every other name melior's Rust
// generator cannot spell or reserves (Rust keywords, `name`, `operation`,
// `builder`, ...) and every name with a trailing underscore: `<name>_arg`.
//===----------------------------------------------------------------------===//

/// A PyTorch `Scalar`: a Python bool, int or float.
def Aten_ScalarAttr : AnyAttrOf<[BoolAttr, I64Attr, F64Attr]>;

/// The value of a symbolic `SymInt`, `SymFloat`, `SymBool` or `Scalar`.
def Aten_ScalarType : AnyTypeOf<[I64, F64, I1]>;

/// Operand of a Python-operator node: a symbolic scalar or a tensor.
def Aten_ScalarOrTensor : AnyTypeOf<[I64, F64, I1, AnyRankedTensor]>;

class Aten_Op<string mnemonic, list<Trait> traits = []>
    : Op<Aten_Dialect, mnemonic, traits> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

#endif // COREAI_ATEN_BASE
