//===- CoreAIOps.td - coreai operations --------------------*- tablegen -*-===//

#ifndef COREAI_COREAI_OPS
#define COREAI_COREAI_OPS

include "coreai/CoreAIBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "coreai/CoreAIGeneratedOps.td"

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
  let regions = (region AnyRegion:$bodyRegion);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    //===------------------------------------------------------------------===//
    // FunctionOpInterface
    //===------------------------------------------------------------------===//
    ::mlir::Region *getCallableRegion() { return &getBodyRegion(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    /// Graphs use the `priv` unit attribute instead of `sym_visibility`.
    bool isPrivate() { return getPriv(); }
    bool isPublic() { return !getPriv(); }
    bool isDeclaration() { return getBodyRegion().empty(); }
  }];
}


//===----------------------------------------------------------------------===//
// Terminators
//===----------------------------------------------------------------------===//

def CoreAI_OutputOp : CoreAI_Op<"output", [
    Pure, Terminator, ReturnLike, HasParent<"GraphOp">]> {
  let summary = "the results of a coreai.graph";
  let description = [{
    Returns `operands_` from the enclosing graph; their types must be the
    graph's result types.

    Example:
    ```mlir
    coreai.output %0, %1 : tensor<2xf32>, tensor<i32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands_);
  let assemblyFormat = "($operands_^ `:` type($operands_))? attr-dict";
  let hasVerifier = 1;
}

def CoreAI_YieldOp : CoreAI_Op<"yield", [
    Pure, Terminator, ReturnLike,
    ParentOneOf<["IfOp", "WhileOp", "ReduceOp", "ReduceIndexOp", "ScatterNdOp",
                 "IsolatedGroupOp"]>]> {
  let summary = "the results of a region of coreai.if, coreai.while, coreai.isolated_group or a reduction";
  let description = [{
    Example:
    ```mlir
    coreai.yield %a, %b : tensor<si32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$args);
  let assemblyFormat = "($args^ `:` type($args))? attr-dict";
}

def CoreAI_ConditionOp : CoreAI_Op<"condition", [
    Pure, Terminator, HasParent<"WhileOp">]> {
  let summary = "ends the `before` region of coreai.while";
  let description = [{
    When `condition` (a `tensor<i1>`) is true, `args` become the arguments
    of the `after` region; otherwise they are the results of the loop.

    Example:
    ```mlir
    coreai.condition %c, %i, %x : (tensor<i1>, tensor<si32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins CoreAI_Tensor:$condition, Variadic<AnyType>:$args);
  let assemblyFormat = "$condition (`,` $args^)? `:` `(` type(operands) `)` attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Constants, calls and control flow
//===----------------------------------------------------------------------===//

def CoreAI_ConstantOp : CoreAI_Op<"constant", [
    Pure, ConstantLike, AllTypesMatch<["value", "result"]>]> {
  let summary = "a tensor constant";
  let description = [{
    Example:
    ```mlir
    %0 = coreai.constant dense<2.000000e+00> : tensor<f32>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs CoreAI_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  // A ConstantLike op must fold to its value: the folder's constant
  // de-duplication and hoisting key on that attribute.
  let hasFolder = 1;
}

def CoreAI_InvokeOp : CoreAI_Op<"invoke", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "invoke a coreai.graph";
  let description = [{
    Calls the graph named by `callee` with `operands_`. The operand and
    result types must match the callee's signature. `callee` is stored as
    `#param.constant<@graph> : !param.symbol` and printed as `@graph`.

    Example:
    ```mlir
    %0 = coreai.invoke @helper(%x)  : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$callee,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       Variadic<AnyType>:$operands_);
  let results = (outs Variadic<AnyType>:$results_);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The invoked graph's name, or null when `callee` is malformed.
    ::mlir::FlatSymbolRefAttr getCalleeSymbol();
  }];
}

def CoreAI_IfOp : CoreAI_Op<"if", [
    RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "two-way conditional";
  let description = [{
    Runs `thenRegion` when `condition` (a `tensor<i1>`) is true, otherwise
    `elseRegion`; each ends in `coreai.yield` with the results.

    Example:
    ```mlir
    %r = coreai.if %c {
      %s = coreai.sin %x : tensor<3xf32> -> tensor<3xf32>
      coreai.yield %s : tensor<3xf32>
    } else {
      coreai.yield %x : tensor<3xf32>
    } : tensor<i1> -> tensor<3xf32>
    ```
  }];
  let arguments = (ins CoreAI_IfOp_condition:$condition);
  let results = (outs Variadic<AnyType>:$results_);
  let regions = (region SizedRegion<1>:$thenRegion, SizedRegion<1>:$elseRegion);
  let assemblyFormat = "$condition $thenRegion `else` $elseRegion attr-dict `:` type($condition) `->` type($results_)";
  let hasVerifier = 1;
}

def CoreAI_WhileOp : CoreAI_Op<"while", [RecursiveMemoryEffects]> {
  let summary = "loop while a condition holds";
  let description = [{
    `before` receives the loop-carried values and ends in `coreai.condition`;
    `after` receives the values the condition forwards and ends in
    `coreai.yield` with the next loop-carried values.

    Example:
    ```mlir
    %r:2 = coreai.while %i0, %x0 {
    ^bb0(%i: tensor<si32>, %x: tensor<3xf32>):
      %c = coreai.decomposable.broadcasting_greater %n, %i : (tensor<si32>, tensor<si32>) -> tensor<i1>
      coreai.condition %c, %i, %x : (tensor<i1>, tensor<si32>, tensor<3xf32>)
    } do {
    ^bb0(%i: tensor<si32>, %x: tensor<3xf32>):
      coreai.yield %i, %x : tensor<si32>, tensor<3xf32>
    } : (tensor<si32>, tensor<3xf32>) -> (tensor<si32>, tensor<3xf32>)
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inits);
  let results = (outs Variadic<AnyType>:$results_);
  let regions = (region SizedRegion<1>:$before, SizedRegion<1>:$after);
  let assemblyFormat = "$inits $before `do` $after attr-dict `:` `(` type($inits) `)` `->` `(` type($results_) `)`";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and scatters with a combiner region
//===----------------------------------------------------------------------===//

def CoreAI_ReduceOp : CoreAI_Op<"reduce", [RecursiveMemoryEffects]> {
  let summary = "reduction over axes with a combiner region";
  let description = [{
    Example:
    ```mlir
    %r = coreai.reduce %x, %axes, init %zero {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = coreai.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
      coreai.yield %s : tensor<f32>
    } : (tensor<2x3xf32>, tensor<1xsi32>, tensor<f32>) -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins CoreAI_ReduceOp_input:$input, CoreAI_ReduceOp_axes:$axes, CoreAI_ReduceOp_init_value:$init_value);
  let results = (outs CoreAI_ReduceOp_output:$output);
  let regions = (region SizedRegion<1>:$reduction);
  let assemblyFormat = "$input `,` $axes `,` `init` $init_value $reduction attr-dict `:` functional-type(operands, results)";
}

def CoreAI_ReduceIndexOp : CoreAI_Op<"reduce_index", [RecursiveMemoryEffects]> {
  let summary = "index-tracking reduction along an axis with a combiner region";
  let description = [{
    Example:
    ```mlir
    %r = coreai.reduce_index %x, %axis, init %v0 init_index %i0 {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %ia: tensor<ui32>, %ib: tensor<ui32>):
      coreai.yield %a, %ia : tensor<f32>, tensor<ui32>
    } : (tensor<2x3xf32>, tensor<si32>, tensor<f32>, tensor<ui32>) -> tensor<2x1xui32>
    ```
  }];
  let arguments = (ins CoreAI_ReduceIndexOp_input:$input, CoreAI_ReduceIndexOp_axis:$axis,
                       CoreAI_ReduceIndexOp_init_value:$init_value, CoreAI_ReduceIndexOp_init_index:$init_index);
  let results = (outs CoreAI_ReduceIndexOp_output:$output);
  let regions = (region SizedRegion<1>:$reduction);
  let assemblyFormat = "$input `,` $axis `,` `init` $init_value `init_index` $init_index $reduction attr-dict `:` functional-type(operands, results)";
}

def CoreAI_ScatterNdOp : CoreAI_Op<"scatter_nd", [RecursiveMemoryEffects]> {
  let summary = "scatter updates at N-D indices with a combiner region";
  let description = [{
    Example:
    ```mlir
    %r = coreai.scatter_nd %x with %u at %idx {
    ^bb0(%old: tensor<f32>, %new: tensor<f32>):
      coreai.yield %new : tensor<f32>
    } : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x1xsi32>) to tensor<4x3xf32>
    ```
  }];
  let arguments = (ins CoreAI_ScatterNdOp_input:$input, CoreAI_ScatterNdOp_indices:$indices, CoreAI_ScatterNdOp_updates:$updates);
  let results = (outs CoreAI_ScatterNdOp_output:$output);
  let regions = (region SizedRegion<1>:$update_fn);
  let assemblyFormat = "$input `with` $updates `at` $indices $update_fn `:` `(` type($input) `,` type($updates) `,` type($indices) `)` `to` type($output) attr-dict";
}

def CoreAI_ScatterAlongAxisOp : CoreAI_Op<"scatter_along_axis", [Pure]> {
  let summary = "scatter updates along an axis";
  let description = [{
    `scatter_mode` (default `update`) says how an update combines with the
    existing element.

    Example:
    ```mlir
    %r = coreai.scatter_along_axis %x, %idx, %u, %axis scatter_mode = <add> : (tensor<3x4xf32>, tensor<3x4xsi32>, tensor<3x4xf32>, tensor<si32>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins CoreAI_ScatterAlongAxisOp_input:$input, CoreAI_ScatterAlongAxisOp_indices:$indices,
                       CoreAI_ScatterAlongAxisOp_updates:$updates, CoreAI_ScatterAlongAxisOp_axis:$axis,
                       DefaultValuedAttr<CoreAI_ScatterModeAttr,
                         "::coreai::core::ScatterMode::update">:$scatter_mode);
  let results = (outs CoreAI_ScatterAlongAxisOp_output:$output);
  let assemblyFormat = "$input `,` $indices `,` $updates `,` $axis (`scatter_mode` `=` $scatter_mode^)? `:` functional-type(operands, results) attr-dict";
}

def CoreAI_GatherAlongAxisOp : CoreAI_Op<"gather_along_axis", [Pure]> {
  let summary = "gather elements along an axis";
  let description = [{
    Example:
    ```mlir
    %r = coreai.gather_along_axis %x at %idx along %axis : (tensor<3x4xf32>, tensor<3x2xsi32>, tensor<si32>) to tensor<3x2xf32>
    ```
  }];
  let arguments = (ins CoreAI_GatherAlongAxisOp_input:$input, CoreAI_GatherAlongAxisOp_indices:$indices, CoreAI_GatherAlongAxisOp_axis:$axis);
  let results = (outs CoreAI_GatherAlongAxisOp_output:$output);
  let assemblyFormat = "$input `at` $indices `along` $axis `:` `(` type($input) `,` type($indices) `,` type($axis) `)` `to` type($output) attr-dict";
}

def CoreAI_GatherNdOp : CoreAI_Op<"gather_nd", [Pure]> {
  let summary = "gather slices at N-D indices";
  let description = [{
    Example:
    ```mlir
    %r = coreai.gather_nd %x at %idx : (tensor<4x3xf32>, tensor<2x1xsi32>) to tensor<2x3xf32>
    ```
  }];
  let arguments = (ins CoreAI_GatherNdOp_input:$input, CoreAI_GatherNdOp_indices:$indices);
  let results = (outs CoreAI_GatherNdOp_output:$output);
  let assemblyFormat = "$input `at` $indices `:` `(` type($input) `,` type($indices) `)` `to` type($output) attr-dict";
}

def CoreAI_SliceUpdateOp : CoreAI_Op<"slice_update", [Pure]> {
  let summary = "replace a strided slice";
  let description = [{
    Example:
    ```mlir
    %r = coreai.slice_update %x with %u at (%begin, %end, %step) : (tensor<4xf32>, tensor<2xf32>, tensor<1xsi32>, tensor<1xsi32>, tensor<1xsi32>) to tensor<4xf32>
    ```
  }];
  let arguments = (ins CoreAI_SliceUpdateOp_input:$input, CoreAI_SliceUpdateOp_start_indices:$start_indices,
                       CoreAI_SliceUpdateOp_end_indices:$end_indices, CoreAI_SliceUpdateOp_strides:$strides,
                       CoreAI_SliceUpdateOp_update:$update);
  let results = (outs CoreAI_SliceUpdateOp_output:$output);
  let assemblyFormat = "$input `with` $update `at` ` ` `(` $start_indices `,` $end_indices `,` $strides `)` `:` `(` type($input) `,` type($update) `,` type($start_indices) `,` type($end_indices) `,` type($strides) `)` `to` type($output) attr-dict";
}

//===----------------------------------------------------------------------===//
// Ops with enum attributes
//===----------------------------------------------------------------------===//

def CoreAI_GeluOp : CoreAI_Op<"gelu", [Pure, SameOperandsAndResultShape]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `approximate` is `none` (the default, not printed), `tanh` or `sigmoid`.

    Example:
    ```mlir
    %r = coreai.gelu %x approximate = <tanh> : tensor<3x4xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins CoreAI_GeluOp_input:$input,
                       DefaultValuedOptionalAttr<CoreAI_ApproximateAttr,
                         "::coreai::core::Approximate::none">:$approximate);
  let results = (outs CoreAI_GeluOp_output:$output);
  let assemblyFormat = "$input (`approximate` `=` $approximate^)? `:` type($input) `->` type($output) attr-dict";
}

def CoreAI_PadOp : CoreAI_Op<"pad", [Pure]> {
  let summary = "pad a tensor";
  let description = [{
    `padding` holds (before, after) pairs per dimension; `padding_value` is
    used by `constant` mode and must then be a constant.

    Example:
    ```mlir
    %r = coreai.pad %x, %pads, %zero mode = <reflect> : (tensor<3x4xf32>, tensor<4xui32>, tensor<f32>) -> tensor<3x7xf32>
    ```
  }];
  let arguments = (ins CoreAI_PadOp_input:$input, CoreAI_PadOp_padding:$padding,
                       CoreAI_PadOp_padding_value:$padding_value,
                       CoreAI_PaddingModeAttr:$padding_mode);
  let results = (outs CoreAI_PadOp_result:$result);
  let assemblyFormat = "$input `,` $padding `,` $padding_value `mode` `=` $padding_mode `:` functional-type(operands, results) attr-dict";
}

def CoreAI_ScanOp : CoreAI_Op<"scan", [Pure]> {
  let summary = "cumulative sum, product, minimum or maximum along an axis";
  let description = [{
    Example:
    ```mlir
    %r = coreai.scan %x, %axis, %reverse combiner = <sum> : (tensor<3x4xf32>, tensor<ui32>, tensor<i1>) -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins CoreAI_ScanOp_input:$input, CoreAI_ScanOp_axis:$axis,
                       CoreAI_ScanOp_reverse:$reverse, CoreAI_ScanCombiner:$scan_op);
  let results = (outs CoreAI_ScanOp_result:$result);
  let assemblyFormat = "$input `,` $axis `,` $reverse `combiner` `=` `<` $scan_op `>` `:` functional-type(operands, results) attr-dict";
}

def CoreAI_InterpolateOp : CoreAI_Op<"interpolate", [Pure]> {
  let summary = "resample to an output shape";
  let description = [{
    Example:
    ```mlir
    %r = coreai.interpolate %x, %shape, %scale, %offset {interpolation_mode = #coreai.interpolation_mode<linear>} : (tensor<1x1x3x4xf32>, tensor<4xsi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x1x6x8xf32>
    ```
  }];
  let arguments = (ins CoreAI_InterpolateOp_input:$input, CoreAI_InterpolateOp_output_shape:$output_shape,
                       CoreAI_InterpolateOp_scale:$scale, CoreAI_InterpolateOp_offset:$offset,
                       CoreAI_InterpolationModeAttr:$interpolation_mode);
  let results = (outs CoreAI_InterpolateOp_result:$result);
  let assemblyFormat = "$input `,` $output_shape `,` $scale `,` $offset attr-dict `:` functional-type(operands, results)";
}

def CoreAI_InterpolateCoordinatesOp : CoreAI_Op<"interpolate_coordinates", [Pure]> {
  let summary = "sample at given coordinates";
  let description = [{
    Example:
    ```mlir
    %r = coreai.interpolate_coordinates %x, %coords {interpolation_mode = #coreai.interpolation_mode<linear>} : (tensor<4x4xf32>, tensor<3x2xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins CoreAI_InterpolateCoordinatesOp_input:$input, CoreAI_InterpolateCoordinatesOp_coords:$coords,
                       CoreAI_InterpolationModeAttr:$interpolation_mode);
  let results = (outs CoreAI_InterpolateCoordinatesOp_result:$result);
  let assemblyFormat = "$input `,` $coords attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// State: handles and tokens
//===----------------------------------------------------------------------===//

def CoreAI_CreateTokenOp : CoreAI_Op<"create_token", [Pure]> {
  let summary = "a fresh token";
  let description = [{
    Example:
    ```mlir
    %t = coreai.create_token : !coreai.token
    ```
  }];
  let results = (outs CoreAI_Token:$token);
  let assemblyFormat = "`:` type($token) attr-dict";
}

def CoreAI_JoinTokenOp : CoreAI_Op<"join_token", [Pure]> {
  let summary = "a token ordered after all of its operands";
  let description = [{
    Example:
    ```mlir
    %t = coreai.join_token %a, %b : (!coreai.token, !coreai.token) -> !coreai.token
    ```
  }];
  let arguments = (ins CoreAI_Token:$in_token, Variadic<CoreAI_Token>:$rest_tokens);
  let results = (outs CoreAI_Token:$token);
  let assemblyFormat = "$in_token (`,` $rest_tokens^)? `:` functional-type(operands, results) attr-dict";
}

def CoreAI_ReadHandleOp : CoreAI_Op<"read_handle"> {
  let summary = "read the value held by a handle";
  let description = [{
    Reads after `in_token`; `out_token` orders later accesses. `output` has
    the handle's inner type.

    Example:
    ```mlir
    %v, %t1 = coreai.read_handle %h, %t0 : (<tensor<3xf32>>, !coreai.token) -> (tensor<3xf32>, !coreai.token)
    ```
  }];
  let arguments = (ins CoreAI_HandleType:$handle, CoreAI_Token:$in_token);
  let results = (outs AnyType:$output, CoreAI_Token:$out_token);
  let assemblyFormat = "$handle `,` $in_token `:` `(` type($handle) `,` type($in_token) `)` `->` `(` type($output) `,` type($out_token) `)` attr-dict";
  let hasVerifier = 1;
}

def CoreAI_WriteHandleOp : CoreAI_Op<"write_handle"> {
  let summary = "store a value into a handle";
  let description = [{
    Example:
    ```mlir
    %t1 = coreai.write_handle %h, %v, %t0 : (<tensor<3xf32>>, tensor<3xf32>, !coreai.token) -> !coreai.token
    ```
  }];
  let arguments = (ins CoreAI_HandleType:$handle, AnyType:$data, CoreAI_Token:$in_token);
  let results = (outs CoreAI_Token:$out_token);
  let assemblyFormat = "$handle `,` $data `,` $in_token `:` `(` type($handle) `,` type($data) `,` type($in_token) `)` `->` type($out_token) attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Delegation and targets
//===----------------------------------------------------------------------===//

def CoreAI_DelegateOp : CoreAI_Op<"delegate"> {
  let summary = "run an opaque, precompiled delegate";
  let description = [{
    `delegate_id` names the delegate that executes the bytes in `resource`
    on `inputs`.

    Example:
    ```mlir
    %r = coreai.delegate<"ane">(%x) {resource = array<i8: 1, 2>} : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs,
                       StrAttr:$delegate_id,
                       DenseI8ArrayAttr:$resource,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<AnyAttr>:$lifecycle,
                       OptionalAttr<DictionaryAttr>:$delegate_attrs);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = "`<` $delegate_id `>` `` `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)";
}

def CoreAI_IsolatedGroupOp : CoreAI_Op<"isolated_group", [
    IsolatedFromAbove, RecursiveMemoryEffects]> {
  let summary = "a region handed to one delegate as a unit";
  let description = [{
    The region's arguments receive `inputs`; it ends in `coreai.yield`
    with the values that become `outputs`.

    Example:
    ```mlir
    %r = coreai.isolated_group<"gpu">(%x) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %e = coreai.exp %a : tensor<4xf32> -> tensor<4xf32>
      coreai.yield %e : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inputs,
                       StrAttr:$delegate_id,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>:$outputs);
  let regions = (region SizedRegion<1>:$group);
  let assemblyFormat = "`<` $delegate_id `>` `` `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $group";
  let hasVerifier = 1;
}

def CoreAI_Metal4KernelOp : CoreAI_Op<"metal4_kernel", [AttrSizedOperandSegments]> {
  let summary = "a user Metal kernel";
  let description = [{
    Operands and results are MTLBuffer-backed tensors
    (`#coreaix.hw_constraints<MTLBuffer, ...>` encoding). Runs `kernel_name` from the Metal source `kernel_source` over a grid of
    `threads_per_grid` threads in groups of `threads_per_thread_group`;
    `result_shapes` give the shapes of `outputs`.

    Example:
    ```mlir
    // #mtl = #coreaix.hw_constraints<MTLBuffer, alignments: [1x1], interleave: [1]>
    %r = coreai.metal4_kernel kernel_args(%x), threads_per_grid %g, threads_per_thread_group %t, result_shapes(%s) {kernel_name = "k", kernel_source = "..."} : (tensor<4xf32, #mtl>, tensor<3xui32>, tensor<3xui32>, tensor<1xui32>) -> tensor<4xf32, #mtl>
    ```
  }];
  let arguments = (ins Variadic<CoreAI_Metal4KernelOp_kernel_args>:$kernel_args,
                       CoreAI_Metal4KernelOp_threads_per_grid:$threads_per_grid,
                       CoreAI_Metal4KernelOp_threads_per_thread_group:$threads_per_thread_group,
                       Variadic<CoreAI_Metal4KernelOp_result_shapes>:$result_shapes,
                       StrAttr:$kernel_source,
                       StrAttr:$kernel_name);
  let results = (outs Variadic<CoreAI_Metal4KernelOp_outputs>:$outputs);
  let assemblyFormat = "`kernel_args` `(` $kernel_args `)` `,` `threads_per_grid` $threads_per_grid `,` `threads_per_thread_group` $threads_per_thread_group `,` `result_shapes` `(` $result_shapes `)` attr-dict `:` functional-type(operands, results)";
}

def CoreAI_TargetSpecOp : CoreAI_Op<"target_spec"> {
  let summary = "the module's target and compilation strategy";
  let description = [{
    `compilation` is `full` (default), `partial` or `finalized`. At most one
    per module.

    Example:
    ```mlir
    coreai.target_spec{spec = <triple = "arm64-apple-ios", soc = "a17", delegateOptions = {}>, compilation = <full>}
    ```
  }];
  let arguments = (ins CoreAI_TargetSpecAttr:$spec,
                       DefaultValuedAttr<CoreAI_CompilationAttr,
                         "::coreai::core::Compilation::full">:$compilation);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Images
//===----------------------------------------------------------------------===//

def CoreAI_ImageToTensorOp : CoreAI_Op<"image_to_tensor", [
    Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "the pixel data of an image as a ui8 tensor";
  let description = [{
    The result type is inferred from the image: `k24RGB` gives
    `[height, width, 3]`, `k32ARGB` and `k32BGRA` `[height, width, 4]`,
    `k420YpCbCr8Planar` a flat `height * width + 2 * (height / 2) * (width / 2)`,
    any other format a flat `height * width`; elements are `ui8`.

    Example:
    ```mlir
    %t = coreai.image_to_tensor %img : <<k24RGB> x 4 : i64 x 6 : i64> -> tensor<4x6x3xui8>
    ```
  }];
  let arguments = (ins CoreAI_ImageType:$source);
  let results = (outs CoreAI_ImageToTensorOp_result:$result);
  let assemblyFormat = "$source `:` type($source) `->` type($result) attr-dict";
}

def CoreAI_TensorToImageOp : CoreAI_Op<"tensor_to_image", [Pure]> {
  let summary = "a ui8 tensor reinterpreted as an image";
  let description = [{
    The inverse of `coreai.image_to_tensor`; the tensor's layout must be the
    one `image_to_tensor` produces for the result's format (not verified, as
    in coreai-core).

    Example:
    ```mlir
    %img = coreai.tensor_to_image %t : tensor<4x6x3xui8> -> <<k24RGB> x 4 : i64 x 6 : i64>
    ```
  }];
  let arguments = (ins CoreAI_TensorToImageOp_source:$source);
  let results = (outs CoreAI_ImageType:$result);
  let assemblyFormat = "$source `:` type($source) `->` type($result) attr-dict";
}

#endif // COREAI_COREAI_OPS
