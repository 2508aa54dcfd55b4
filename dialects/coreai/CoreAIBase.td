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
include "mlir/Interfaces/SideEffectInterfaces.td"

def CoreAI_Dialect : Dialect {
  let name = "coreai";
  let cppNamespace = "::coreai::core";
  let dependentDialects = ["::coreai::param::ParamDialect"];
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
}

def Param_DeclArrayAttr : AttrDef<Param_Dialect, "DeclArray"> {
  let mnemonic = "decl.array";
  let summary = "the parameter declarations of a graph";
  let parameters = (ins "::mlir::ArrayAttr":$decls);
  let assemblyFormat = "`<` $decls `>`";
}

class CoreAI_Op<string mnemonic, list<Trait> traits = []>
    : Op<CoreAI_Dialect, mnemonic, traits>;

#endif // COREAI_COREAI_BASE
