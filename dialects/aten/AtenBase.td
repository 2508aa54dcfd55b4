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

/// A PyTorch `Scalar`: a Python bool, int or float.
def Aten_ScalarAttr : AnyAttrOf<[BoolAttr, I64Attr, F64Attr]>;

class Aten_Op<string mnemonic, list<Trait> traits = []>
    : Op<Aten_Dialect, mnemonic, traits> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

#endif // COREAI_ATEN_BASE
