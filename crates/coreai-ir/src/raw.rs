//! IR through raw handles (`MlirOperation`, `MlirValue`, `MlirType`,
//! `MlirAttribute`), for the passes that walk and rewrite a whole graph at a
//! time (cast-to-f16, set-hw-constraints, state-handles, outlining,
//! dead-code and de-duplication), where borrowed melior references would tie
//! every use to one borrow of the module. The C API calls are here, behind
//! safe functions; a pass holds handles only of IR it is walking, which
//! outlives the call.

use crate::ffi::string_ref;
use crate::op::coreai;
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::{OperationRef, Value, ValueLike};
use mlir_sys::*;

pub fn op_name(op: MlirOperation) -> String {
    unsafe {
        let id = mlirOperationGetName(op);
        let s = mlirIdentifierStr(id);
        String::from_utf8_lossy(std::slice::from_raw_parts(s.data as *const u8, s.length))
            .into_owned()
    }
}

pub fn is_null_op(op: MlirOperation) -> bool {
    op.ptr.is_null()
}

pub fn value_type(v: MlirValue) -> MlirType {
    unsafe { mlirValueGetType(v) }
}

/// The element type of a ranked tensor type.
pub fn element(ty: MlirType) -> Option<MlirType> {
    unsafe { mlirTypeIsARankedTensor(ty).then(|| mlirShapedTypeGetElementType(ty)) }
}

/// A ranked tensor of f32.
pub fn is_f32_tensor(ty: MlirType) -> bool {
    element(ty).is_some_and(|e| unsafe { mlirTypeIsAF32(e) })
}

/// A ranked tensor of f16.
pub fn is_f16_tensor(ty: MlirType) -> bool {
    element(ty).is_some_and(|e| unsafe { mlirTypeIsAF16(e) })
}

/// A ranked tensor of any float element.
pub fn is_float_tensor(ty: MlirType) -> bool {
    element(ty).is_some_and(|e| unsafe { mlirTypeIsAFloat(e) })
}

/// `ty` with its f32 element replaced by `to` (other types unchanged).
pub fn with_element(ty: MlirType, to: MlirType) -> MlirType {
    unsafe {
        if !mlirTypeIsARankedTensor(ty) {
            return ty;
        }
        let rank = mlirShapedTypeGetRank(ty) as isize;
        let shape: Vec<i64> = (0..rank).map(|i| mlirShapedTypeGetDimSize(ty, i)).collect();
        mlirRankedTensorTypeGet(
            rank as isize,
            shape.as_ptr(),
            to,
            mlirRankedTensorTypeGetEncoding(ty),
        )
    }
}

pub fn f16_of(ty: MlirType) -> MlirType {
    if is_f32_tensor(ty) {
        with_element(ty, unsafe { mlirF16TypeGet(mlirTypeGetContext(ty)) })
    } else {
        ty
    }
}

/// The static dims of a ranked tensor type (`None` for a dynamic one).
pub fn static_shape(ty: MlirType) -> Option<Vec<i64>> {
    unsafe {
        if !mlirTypeIsARankedTensor(ty) {
            return None;
        }
        let rank = mlirShapedTypeGetRank(ty) as isize;
        let dims: Vec<i64> = (0..rank).map(|i| mlirShapedTypeGetDimSize(ty, i)).collect();
        dims.iter().all(|d| *d >= 0).then_some(dims)
    }
}

pub fn operands(op: MlirOperation) -> Vec<MlirValue> {
    unsafe {
        (0..mlirOperationGetNumOperands(op))
            .map(|i| mlirOperationGetOperand(op, i))
            .collect()
    }
}

pub fn results(op: MlirOperation) -> Vec<MlirValue> {
    unsafe {
        (0..mlirOperationGetNumResults(op))
            .map(|i| mlirOperationGetResult(op, i))
            .collect()
    }
}

/// The op defining `v`, when it is an op result.
pub fn producer(v: MlirValue) -> Option<MlirOperation> {
    unsafe { mlirValueIsAOpResult(v).then(|| mlirOpResultGetOwner(v)) }
}

/// The ops using `v` (an op once per use), with the operand numbers.
pub fn uses(v: MlirValue) -> Vec<(MlirOperation, usize)> {
    let mut out = Vec::new();
    unsafe {
        let mut u = mlirValueGetFirstUse(v);
        while !mlirOpOperandIsNull(u) {
            out.push((
                mlirOpOperandGetOwner(u),
                mlirOpOperandGetOperandNumber(u) as usize,
            ));
            u = mlirOpOperandGetNextUse(u);
        }
    }
    out
}

pub fn same_op(a: MlirOperation, b: MlirOperation) -> bool {
    a.ptr == b.ptr
}

pub fn same_value(a: MlirValue, b: MlirValue) -> bool {
    a.ptr == b.ptr
}

pub fn attribute(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    let a = unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) };
    (!a.ptr.is_null()).then_some(a)
}

/// A string or flat symbol attribute's text.
pub fn attr_str(attr: MlirAttribute) -> Option<String> {
    unsafe {
        let s = if mlirAttributeIsAString(attr) {
            mlirStringAttrGetValue(attr)
        } else if mlirAttributeIsAFlatSymbolRef(attr) {
            mlirFlatSymbolRefAttrGetValue(attr)
        } else {
            return None;
        };
        Some(
            String::from_utf8_lossy(std::slice::from_raw_parts(s.data as *const u8, s.length))
                .into_owned(),
        )
    }
}

/// The attribute as MLIR prints it.
pub fn attr_text(attr: MlirAttribute) -> String {
    let mut out: Vec<u8> = Vec::new();
    unsafe {
        mlirAttributePrint(
            attr,
            Some(crate::ffi::append_to_vec),
            &mut out as *mut _ as *mut std::ffi::c_void,
        )
    };
    String::from_utf8_lossy(&out).into_owned()
}

/// The symbol an invoke calls: its `callee` (a flat symbol reference, or
/// `#param.constant<@name>`).
pub fn callee(op: MlirOperation) -> Option<String> {
    let attr = attribute(op, "callee")?;
    if let Some(s) = attr_str(attr) {
        return Some(s);
    }
    let text = attr_text(attr);
    let rest = text.split_once('@')?.1;
    let name: String = rest
        .trim_start_matches('"')
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '$' | '-'))
        .collect();
    (!name.is_empty()).then_some(name)
}

pub fn location_text(op: MlirOperation) -> String {
    let mut out: Vec<u8> = Vec::new();
    unsafe {
        mlirLocationPrint(
            mlirOperationGetLocation(op),
            Some(crate::ffi::append_to_vec),
            &mut out as *mut _ as *mut std::ffi::c_void,
        )
    };
    String::from_utf8_lossy(&out).into_owned()
}

/// Creates `name(operands) -> results` with `op`'s location and the given
/// attributes, not inserted anywhere.
pub fn create(
    name: &str,
    location: MlirLocation,
    operands: &[MlirValue],
    results: &[MlirType],
    attributes: &[MlirNamedAttribute],
) -> MlirOperation {
    unsafe {
        let mut state = mlirOperationStateGet(string_ref(name), location);
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        mlirOperationStateAddAttributes(&mut state, attributes.len() as isize, attributes.as_ptr());
        mlirOperationCreate(&mut state)
    }
}

/// Sets `graph`'s `function_type` to `(inputs) -> (outputs)`.
pub fn set_function_type(graph: MlirOperation, inputs: &[MlirType], outputs: &[MlirType]) {
    unsafe {
        let fty = mlirFunctionTypeGet(
            mlirOperationGetContext(graph),
            inputs.len() as isize,
            inputs.as_ptr(),
            outputs.len() as isize,
            outputs.as_ptr(),
        );
        mlirOperationSetAttributeByName(graph, string_ref("function_type"), mlirTypeAttrGet(fty));
    }
}

/// `coreai.cast %v : T to ty`, not inserted.
pub fn cast(v: MlirValue, ty: MlirType, location: MlirLocation) -> MlirOperation {
    create(coreai::CAST, location, &[v], &[ty], &[])
}

/// Where a value's casts live: right after its defining op, or at the
/// start of its block for a block argument. Returns (block, the op after
/// which to insert, or null for the block's start).
fn definition_point(v: MlirValue) -> (MlirBlock, MlirOperation) {
    unsafe {
        match producer(v) {
            Some(op) => (mlirOperationGetBlock(op), op),
            None => (
                mlirBlockArgumentGetOwner(v),
                MlirOperation {
                    ptr: std::ptr::null_mut(),
                },
            ),
        }
    }
}

/// `values` as a dense f16 elements attribute of `ty` (an f16 tensor
/// type); one value is a splat.
pub fn f16_attribute(ty: MlirType, values: &[half::f16]) -> MlirAttribute {
    let bits: Vec<u16> = values.iter().map(|v| v.to_bits()).collect();
    unsafe {
        if bits.len() == 1 {
            let ctx = mlirTypeGetContext(ty);
            let e = mlirFloatAttrDoubleGet(ctx, mlirF16TypeGet(ctx), values[0].to_f64());
            mlirDenseElementsAttrSplatGet(ty, e)
        } else {
            mlirDenseElementsAttrFloat16Get(ty, bits.len() as isize, bits.as_ptr())
        }
    }
}

/// `v` (an f32 tensor) as f16: the input of a `coreai.cast` f16 → f32
/// defining it (exact: every f16 is an f32), else the one f16 cast of `v`
/// placed right after its definition, created on first use. The casts of a
/// value sit together after its definition, so the one found dominates
/// every use of `v`.
pub fn to_f16(v: MlirValue) -> MlirValue {
    unsafe {
        if let Some(def) = producer(v) {
            if op_name(def) == coreai::CAST {
                let input = mlirOperationGetOperand(def, 0);
                if is_f16_tensor(value_type(input)) {
                    return input;
                }
            }
        }
        let (block, after) = definition_point(v);
        let mut next = if is_null_op(after) {
            mlirBlockGetFirstOperation(block)
        } else {
            mlirOperationGetNextInBlock(after)
        };
        while !is_null_op(next) && op_name(next) == coreai::CAST {
            let result = mlirOperationGetResult(next, 0);
            if same_value(mlirOperationGetOperand(next, 0), v) && is_f16_tensor(value_type(result))
            {
                return result;
            }
            next = mlirOperationGetNextInBlock(next);
        }
        let location = match producer(v) {
            Some(op) => mlirOperationGetLocation(op),
            None => mlirOperationGetLocation(mlirBlockGetParentOperation(block)),
        };
        let c = cast(v, f16_of(value_type(v)), location);
        if is_null_op(after) {
            mlirBlockInsertOwnedOperation(block, 0, c);
        } else {
            mlirBlockInsertOwnedOperationAfter(block, after, c);
        }
        mlirOperationGetResult(c, 0)
    }
}

/// The values of a float elements attribute (dense, splat or
/// `dense_resource` of f32), in row-major order; a splat gives one value.
pub fn float_values(attr: MlirAttribute) -> Option<Vec<f32>> {
    unsafe {
        let ty = mlirAttributeGetType(attr);
        if !is_f32_tensor(ty) {
            return None;
        }
        if mlirAttributeIsADenseElements(attr) {
            if mlirDenseElementsAttrIsSplat(attr) {
                let e = mlirDenseElementsAttrGetSplatValue(attr);
                return Some(vec![mlirFloatAttrGetValueDouble(e) as f32]);
            }
            let n = mlirElementsAttrGetNumElements(attr) as usize;
            let data = mlirDenseElementsAttrGetRawData(attr) as *const f32;
            return Some(std::slice::from_raw_parts(data, n).to_vec());
        }
        if mlirAttributeIsADenseResourceElements(attr) {
            let blob = crate::deferred::blob_data(attr)?;
            let n = blob.len() / 4;
            let bytes = &blob[..n * 4];
            let values = bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            // Read once for its f16 form: the pages of a mapped weights file
            // need not stay resident (read again if the f32 form is kept).
            crate::ffi::coreaiReleaseResourcePages(attr);
            return Some(values);
        }
        None
    }
}

/// Values a streaming read of a constant hands over at a time.
const RUN: usize = 1 << 14;

/// Hands the f32 elements of `attr` (a dense or `dense_resource` f32
/// elements attribute; a splat's one element) to `f` in consecutive runs
/// of at most [`RUN`] values, without copying them whole; `f` returns
/// false to stop. A mapped weight's pages are released after the read (see
/// [`float_values`]). False when `attr` is neither.
fn for_f32_runs(attr: MlirAttribute, mut f: impl FnMut(&[f32]) -> bool) -> bool {
    unsafe {
        if !is_f32_tensor(mlirAttributeGetType(attr)) {
            return false;
        }
        if mlirAttributeIsADenseElements(attr) {
            if mlirDenseElementsAttrIsSplat(attr) {
                let e = mlirDenseElementsAttrGetSplatValue(attr);
                f(&[mlirFloatAttrGetValueDouble(e) as f32]);
                return true;
            }
            let n = mlirElementsAttrGetNumElements(attr) as usize;
            // SAFETY: a dense f32 attribute's raw data is n aligned f32s.
            let data =
                std::slice::from_raw_parts(mlirDenseElementsAttrGetRawData(attr) as *const f32, n);
            for run in data.chunks(RUN) {
                if !f(run) {
                    break;
                }
            }
            return true;
        }
        if mlirAttributeIsADenseResourceElements(attr) {
            let Some(blob) = crate::deferred::blob_data(attr) else {
                return false;
            };
            let (data, size) = (blob.as_ptr(), blob.len());
            if (data as usize).is_multiple_of(std::mem::align_of::<f32>()) {
                // SAFETY: the blob's `size` bytes, aligned for f32 and
                // little-endian as this host (the blob format's order).
                let values = std::slice::from_raw_parts(data as *const f32, size / 4);
                if cfg!(target_endian = "little") {
                    for run in values.chunks(RUN) {
                        if !f(run) {
                            break;
                        }
                    }
                    crate::ffi::coreaiReleaseResourcePages(attr);
                    return true;
                }
            }
            // SAFETY: the blob's `size` bytes; a blob need not be 4-aligned,
            // so each run is decoded into an aligned buffer.
            let bytes = std::slice::from_raw_parts(data, size / 4 * 4);
            let mut buf = vec![0f32; RUN.min(size / 4)];
            for run in bytes.chunks(4 * RUN) {
                let m = run.len() / 4;
                for (v, b) in buf[..m].iter_mut().zip(run.chunks_exact(4)) {
                    *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
                if !f(&buf[..m]) {
                    break;
                }
            }
            crate::ffi::coreaiReleaseResourcePages(attr);
            return true;
        }
        false
    }
}

/// The first finite f32 element of `attr` (as [`float_values`] reads it)
/// of magnitude beyond `bound` for which `pred` holds, read without copying
/// the constant. A run whose finite magnitudes stay within `bound` (one
/// vectorized pass: a weight's usual case) is not searched.
pub fn find_float_value(
    attr: MlirAttribute,
    bound: f32,
    pred: impl Fn(f32) -> bool,
) -> Option<f32> {
    find_float_value_dyn(attr, bound, &pred)
}

fn find_float_value_dyn(
    attr: MlirAttribute,
    bound: f32,
    pred: &dyn Fn(f32) -> bool,
) -> Option<f32> {
    // A deferred permute holds its source's values: when the source has
    // none, neither has it, and it is not made to find out (when it has
    // one, the permute is searched in its own order).
    let source = crate::deferred::recipe(attr)
        .filter(|r| r.width() == 4)
        .and_then(|r| r.source_attribute());
    if let Some(source) = source {
        find_float_value_dyn(source, bound, pred)?;
    }
    let mut found = None;
    for_f32_runs(attr, |run| {
        // The bits of |v| order as the magnitudes do; those of ±inf and NaN
        // are from 0x7f80_0000 up. An integer max, which vectorizes.
        let largest = run
            .iter()
            .map(|v| v.to_bits() & 0x7fff_ffff)
            .map(|b| if b < 0x7f80_0000 { b } else { 0 })
            .fold(0u32, u32::max);
        if f32::from_bits(largest) > bound {
            found = run
                .iter()
                .copied()
                .find(|&v| v.is_finite() && v.abs() > bound && pred(v));
        }
        found.is_none()
    });
    found
}

/// The little-endian f16 bytes of the f32 elements of `attr` (as
/// [`float_values`] reads them), each rounded to the nearest f16 (ties to
/// even) except that `f32::MAX`/`f32::MIN` become `extremes`: the bulk
/// conversion (F16C where the CPU has it) straight from the constant's
/// storage to the result's, run by run, with no f32 copy.
pub fn f16_bytes(attr: MlirAttribute, extremes: (half::f16, half::f16)) -> Option<Vec<u8>> {
    use half::slice::HalfFloatSliceExt;
    // SAFETY: a type query on a live attribute.
    let n = unsafe { mlirElementsAttrGetNumElements(attr) }.max(0) as usize;
    let mut bytes = crate::alloc::buffer(2 * n);
    let mut halves = vec![half::f16::ZERO; RUN];
    let read = for_f32_runs(attr, |run| {
        let h = &mut halves[..run.len()];
        h.convert_from_f32_slice(run);
        for (h, &v) in h.iter_mut().zip(run) {
            if v == f32::MAX {
                *h = extremes.0;
            } else if v == f32::MIN {
                *h = extremes.1;
            }
        }
        bytes.extend(h.iter().flat_map(|h| h.to_le_bytes()));
        true
    });
    read.then_some(bytes)
}

/// Result `i` of `op`.
pub fn result(op: MlirOperation, i: usize) -> MlirValue {
    unsafe { mlirOperationGetResult(op, i as isize) }
}

/// Operand `i` of `op`.
pub fn operand(op: MlirOperation, i: usize) -> MlirValue {
    unsafe { mlirOperationGetOperand(op, i as isize) }
}

/// Makes `v` operand `i` of `op`.
pub fn set_operand(op: MlirOperation, i: usize, v: MlirValue) {
    unsafe { mlirOperationSetOperand(op, i as isize, v) }
}

/// Every attribute of `op` (inherent and discardable).
pub fn attributes(op: MlirOperation) -> Vec<MlirNamedAttribute> {
    unsafe {
        (0..mlirOperationGetNumAttributes(op))
            .map(|i| mlirOperationGetAttribute(op, i))
            .collect()
    }
}

/// `name = attr` in `op`'s context.
pub fn named(op: MlirOperation, name: &str, attr: MlirAttribute) -> MlirNamedAttribute {
    unsafe {
        let ctx = mlirOperationGetContext(op);
        mlirNamedAttributeGet(mlirIdentifierGet(ctx, string_ref(name)), attr)
    }
}

/// Sets attribute `name` of `op`.
pub fn set_attribute(op: MlirOperation, name: &str, attr: MlirAttribute) {
    unsafe { mlirOperationSetAttributeByName(op, string_ref(name), attr) }
}

pub fn location(op: MlirOperation) -> MlirLocation {
    unsafe { mlirOperationGetLocation(op) }
}

pub fn context(op: MlirOperation) -> MlirContext {
    unsafe { mlirOperationGetContext(op) }
}

/// The block `op` is in (null when it is in none).
pub fn block_of(op: MlirOperation) -> MlirBlock {
    unsafe { mlirOperationGetBlock(op) }
}

/// The op whose region holds `op` (null for a top-level op).
pub fn parent(op: MlirOperation) -> MlirOperation {
    unsafe { mlirOperationGetParentOperation(op) }
}

/// Inserts `new` (not in any block yet) right before `anchor`.
pub fn insert_before(anchor: MlirOperation, new: MlirOperation) {
    unsafe { mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(anchor), anchor, new) }
}

/// Inserts `new` (not in any block yet) right after `anchor`.
pub fn insert_after(anchor: MlirOperation, new: MlirOperation) {
    unsafe { mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(anchor), anchor, new) }
}

/// Inserts `new` (not in any block yet) at the start of `block`.
pub fn insert_at_start(block: MlirBlock, new: MlirOperation) {
    unsafe { mlirBlockInsertOwnedOperation(block, 0, new) }
}

/// Appends `new` (not in any block yet) to `block`.
pub fn append(block: MlirBlock, new: MlirOperation) {
    unsafe { mlirBlockAppendOwnedOperation(block, new) }
}

/// Erases `op` (and its regions) from its block; its results must have no
/// uses left.
pub fn erase(op: MlirOperation) {
    unsafe { mlirOperationDestroy(op) }
}

/// A copy of `op` (with its regions), not inserted anywhere.
pub fn clone(op: MlirOperation) -> MlirOperation {
    unsafe { mlirOperationClone(op) }
}

/// Every use of `of` becomes a use of `with`.
pub fn replace_all_uses(of: MlirValue, with: MlirValue) {
    unsafe { mlirValueReplaceAllUsesOfWith(of, with) }
}

/// Every use of `of` but those in `except` becomes a use of `with`.
pub fn replace_all_uses_except(of: MlirValue, with: MlirValue, except: &[MlirOperation]) {
    let mut except = except.to_vec();
    unsafe { mlirValueReplaceAllUsesExcept(of, with, except.len() as isize, except.as_mut_ptr()) }
}

/// The ops of `block` in order (a snapshot: erasing one does not end it).
pub fn block_ops(block: MlirBlock) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    unsafe {
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            out.push(op);
            op = mlirOperationGetNextInBlock(op);
        }
    }
    out
}

/// The op after `op` in its block.
pub fn next_in_block(op: MlirOperation) -> Option<MlirOperation> {
    let next = unsafe { mlirOperationGetNextInBlock(op) };
    (!next.ptr.is_null()).then_some(next)
}

/// The first op of `block`.
pub fn first_op(block: MlirBlock) -> Option<MlirOperation> {
    let op = unsafe { mlirBlockGetFirstOperation(block) };
    (!op.ptr.is_null()).then_some(op)
}

/// The blocks of every region of `op`, in order.
pub fn region_blocks(op: MlirOperation) -> Vec<MlirBlock> {
    let mut out = Vec::new();
    unsafe {
        for r in 0..mlirOperationGetNumRegions(op) {
            let mut b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
            while !b.ptr.is_null() {
                out.push(b);
                b = mlirBlockGetNextInRegion(b);
            }
        }
    }
    out
}

pub fn region_count(op: MlirOperation) -> usize {
    unsafe { mlirOperationGetNumRegions(op) as usize }
}

/// The first block of `op`'s first region (a graph's or function's body).
pub fn entry_block(op: MlirOperation) -> Option<MlirBlock> {
    unsafe {
        if mlirOperationGetNumRegions(op) == 0 {
            return None;
        }
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
        (!block.ptr.is_null()).then_some(block)
    }
}

/// The op whose region holds `block`.
pub fn block_owner(block: MlirBlock) -> MlirOperation {
    unsafe { mlirBlockGetParentOperation(block) }
}

pub fn terminator(block: MlirBlock) -> MlirOperation {
    unsafe { mlirBlockGetTerminator(block) }
}

pub fn arguments(block: MlirBlock) -> Vec<MlirValue> {
    unsafe {
        (0..mlirBlockGetNumArguments(block))
            .map(|i| mlirBlockGetArgument(block, i))
            .collect()
    }
}

/// Gives block argument `arg` type `ty`.
pub fn set_argument_type(arg: MlirValue, ty: MlirType) {
    unsafe { mlirBlockArgumentSetType(arg, ty) }
}

/// A function type's inputs and results (`function_type` attributes hold
/// one in a type attribute: see [`signature`]).
pub fn function_type_parts(ty: MlirType) -> (Vec<MlirType>, Vec<MlirType>) {
    unsafe {
        let inputs = (0..mlirFunctionTypeGetNumInputs(ty))
            .map(|i| mlirFunctionTypeGetInput(ty, i))
            .collect();
        let results = (0..mlirFunctionTypeGetNumResults(ty))
            .map(|i| mlirFunctionTypeGetResult(ty, i))
            .collect();
        (inputs, results)
    }
}

/// A graph's or function's `function_type`: (inputs, results).
pub fn signature(graph: MlirOperation) -> Option<(Vec<MlirType>, Vec<MlirType>)> {
    let attr = attribute(graph, "function_type")?;
    unsafe {
        if !mlirAttributeIsAType(attr) {
            return None;
        }
        Some(function_type_parts(mlirTypeAttrGetValue(attr)))
    }
}

pub fn same_type(a: MlirType, b: MlirType) -> bool {
    unsafe { mlirTypeEqual(a, b) }
}

/// Reports `message` as an error at `op`'s location.
pub fn emit_error(op: MlirOperation, message: &str) {
    let message = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { mlirEmitError(mlirOperationGetLocation(op), message.as_ptr()) }
}

/// Whether `a` comes before `b` in their (common) block.
pub fn is_before(a: MlirOperation, b: MlirOperation) -> bool {
    unsafe { mlirOperationIsBeforeInBlock(a, b) }
}

/// Sets the unit attribute `name` on `op` (a discardable marker).
pub fn set_unit_attribute(op: MlirOperation, name: &str) {
    unsafe {
        let unit = mlirUnitAttrGet(mlirOperationGetContext(op));
        mlirOperationSetDiscardableAttributeByName(op, string_ref(name), unit)
    }
}

/// Removes discardable attribute `name` from `op` (if it has one).
pub fn remove_attribute(op: MlirOperation, name: &str) {
    unsafe {
        mlirOperationRemoveDiscardableAttributeByName(op, string_ref(name));
    }
}

/// The ops using `v`, once per use.
pub fn users(v: MlirValue) -> impl Iterator<Item = MlirOperation> {
    uses(v).into_iter().map(|(op, _)| op)
}

/// Whether `attr` is an elements attribute (dense, splat, resource).
pub fn is_elements(attr: MlirAttribute) -> bool {
    unsafe { mlirAttributeIsAElements(attr) }
}

/// Whether `attr` is a `dense_resource` elements attribute.
pub fn is_dense_resource(attr: MlirAttribute) -> bool {
    unsafe { mlirAttributeIsADenseResourceElements(attr) }
}

/// Moves the blocks of region `from` into the empty region `to`.
pub fn take_body(to: MlirRegion, from: MlirRegion) {
    unsafe { mlirRegionTakeBody(to, from) }
}

/// The ops under `root` (itself included) for which `keep` holds, in walk
/// `order`, as references as long-lived as `root` (melior's walk lends each
/// op to its callback only).
pub fn collect<'c, 'a>(
    root: &OperationRef<'c, 'a>,
    order: WalkOrder,
    mut keep: impl FnMut(&OperationRef<'_, '_>) -> bool,
) -> Vec<OperationRef<'c, 'a>> {
    let mut found = Vec::new();
    root.walk(order, |op| {
        if keep(&op) {
            found.push(op.to_raw());
        }
        WalkResult::Advance
    });
    // SAFETY: each op is nested in `root`, which is borrowed for 'a, and the
    // walk changed nothing.
    found
        .into_iter()
        .map(|op| unsafe { OperationRef::from_raw(op) })
        .collect()
}

/// Element `i` of array attribute `array` (null past its end).
pub fn array_element(array: MlirAttribute, i: usize) -> Option<MlirAttribute> {
    unsafe {
        if !mlirAttributeIsAArray(array) || i as isize >= mlirArrayAttrGetNumElements(array) {
            return None;
        }
        Some(mlirArrayAttrGetElement(array, i as isize))
    }
}

/// Entry `key` of dictionary attribute `dict`.
pub fn dict_entry(dict: MlirAttribute, key: &str) -> Option<MlirAttribute> {
    unsafe {
        if !mlirAttributeIsADictionary(dict) {
            return None;
        }
        let a = mlirDictionaryAttrGetElementByName(dict, string_ref(key));
        (!a.ptr.is_null()).then_some(a)
    }
}

/// The type as MLIR prints it.
pub fn type_text(ty: MlirType) -> String {
    crate::ffi::printed(|cb, data| unsafe { mlirTypePrint(ty, cb, data) })
}

/// `text` parsed as a type in `op`'s context.
pub fn parse_type(op: MlirOperation, text: &str) -> Option<MlirType> {
    let ty = unsafe { mlirTypeParseGet(mlirOperationGetContext(op), string_ref(text)) };
    (!ty.ptr.is_null()).then_some(ty)
}

/// Replaces the body of `module` (a `builtin.module`) with that of the
/// module `text` parses to in its context; its own attributes stay. False
/// (and `module` unchanged) when `text` does not parse: the parser's
/// diagnostics went to the context's handlers.
pub fn replace_module_body(module: MlirOperation, text: &str) -> bool {
    unsafe {
        let parsed = mlirModuleCreateParse(mlirOperationGetContext(module), string_ref(text));
        if parsed.ptr.is_null() {
            return false;
        }
        let region = mlirOperationGetRegion(module, 0);
        let mut block = mlirRegionGetFirstBlock(region);
        while !block.ptr.is_null() {
            let next = mlirBlockGetNextInRegion(block);
            mlirBlockDetach(block);
            mlirBlockDestroy(block);
            block = next;
        }
        mlirRegionTakeBody(
            region,
            mlirOperationGetRegion(mlirModuleGetOperation(parsed), 0),
        );
        mlirModuleDestroy(parsed);
    }
    true
}

/// `text` parsed as an attribute in `op`'s context.
pub fn parse_attribute(op: MlirOperation, text: &str) -> Option<MlirAttribute> {
    let a = unsafe { mlirAttributeParseGet(mlirOperationGetContext(op), string_ref(text)) };
    (!a.ptr.is_null()).then_some(a)
}

pub fn is_ranked_tensor(ty: MlirType) -> bool {
    unsafe { mlirTypeIsARankedTensor(ty) }
}

/// A ranked tensor type's encoding, if it has one.
pub fn encoding(ty: MlirType) -> Option<MlirAttribute> {
    unsafe {
        if !mlirTypeIsARankedTensor(ty) {
            return None;
        }
        let e = mlirRankedTensorTypeGetEncoding(ty);
        (!e.ptr.is_null()).then_some(e)
    }
}

/// The ranked tensor type `ty` with `encoding`, checked by the encoding's
/// verifier, which reports why not at `location` (then `None`).
pub fn with_encoding(
    ty: MlirType,
    encoding: MlirAttribute,
    location: MlirLocation,
) -> Option<MlirType> {
    unsafe {
        if !mlirTypeIsARankedTensor(ty) {
            return None;
        }
        let rank = mlirShapedTypeGetRank(ty);
        let shape: Vec<i64> = (0..rank)
            .map(|i| mlirShapedTypeGetDimSize(ty, i as isize))
            .collect();
        let checked = mlirRankedTensorTypeGetChecked(
            location,
            rank as isize,
            shape.as_ptr(),
            mlirShapedTypeGetElementType(ty),
            encoding,
        );
        (!checked.ptr.is_null()).then_some(checked)
    }
}

/// Gives value `v` (an op result or block argument) type `ty`.
pub fn set_value_type(v: MlirValue, ty: MlirType) {
    unsafe { mlirValueSetType(v, ty) }
}

/// Inserts `new` (not in any block yet) at position `pos` of `block`.
pub fn insert_at(block: MlirBlock, pos: usize, new: MlirOperation) {
    unsafe { mlirBlockInsertOwnedOperation(block, pos as isize, new) }
}

/// The entries of dictionary attribute `dict`.
pub fn dict_entries(dict: MlirAttribute) -> Vec<MlirNamedAttribute> {
    unsafe {
        if !mlirAttributeIsADictionary(dict) {
            return Vec::new();
        }
        (0..mlirDictionaryAttrGetNumElements(dict))
            .map(|i| mlirDictionaryAttrGetElement(dict, i))
            .collect()
    }
}

/// The name of a named attribute.
pub fn entry_name(entry: MlirNamedAttribute) -> String {
    unsafe {
        String::from_utf8_lossy(&crate::ffi::string_ref_bytes(mlirIdentifierStr(entry.name)))
            .into_owned()
    }
}

/// A dictionary attribute of `entries`, in `op`'s context.
pub fn dictionary(op: MlirOperation, entries: &[MlirNamedAttribute]) -> MlirAttribute {
    unsafe {
        mlirDictionaryAttrGet(
            mlirOperationGetContext(op),
            entries.len() as isize,
            entries.as_ptr(),
        )
    }
}

/// An array attribute of `elements`, in `op`'s context.
pub fn array(op: MlirOperation, elements: &[MlirAttribute]) -> MlirAttribute {
    unsafe {
        mlirArrayAttrGet(
            mlirOperationGetContext(op),
            elements.len() as isize,
            elements.as_ptr(),
        )
    }
}

/// A string attribute, in `op`'s context.
pub fn string_attr(op: MlirOperation, s: &str) -> MlirAttribute {
    unsafe { mlirStringAttrGet(mlirOperationGetContext(op), string_ref(s)) }
}

/// Where value `v` was defined.
pub fn value_location(v: MlirValue) -> MlirLocation {
    unsafe { mlirValueGetLocation(v) }
}

pub fn is_dictionary(attr: MlirAttribute) -> bool {
    unsafe { mlirAttributeIsADictionary(attr) }
}

/// The op defining `v` when `v` has exactly one use.
pub fn single_use_producer(v: Value<'_, '_>) -> Option<MlirOperation> {
    let single = unsafe {
        let first = mlirValueGetFirstUse(v.to_raw());
        !first.ptr.is_null() && mlirOpOperandGetNextUse(first).ptr.is_null()
    };
    if single {
        producer(v.to_raw())
    } else {
        None
    }
}

/// The `value` attribute of the `coreai.constant` defining `value`.
pub fn constant_attr(value: MlirValue) -> Option<MlirAttribute> {
    let op = producer(value)?;
    if op_name(op) != coreai::CONSTANT {
        return None;
    }
    let attr = unsafe { mlirOperationGetAttributeByName(op, crate::ffi::string_ref("value")) };
    (!attr.ptr.is_null()).then_some(attr)
}

/// The integers of a constant integer tensor (`dense<[0, 2, 1]>`).
pub fn constant_ints(value: MlirValue) -> Option<Vec<i64>> {
    let attr = constant_attr(value)?;
    unsafe {
        if !mlirAttributeIsADenseElements(attr) {
            return None;
        }
        let ty = mlirAttributeGetType(attr);
        let element = mlirShapedTypeGetElementType(ty);
        if !mlirTypeIsAInteger(element) {
            return None;
        }
        let width = mlirIntegerTypeGetWidth(element);
        let unsigned = mlirIntegerTypeIsUnsigned(element);
        let n = mlirElementsAttrGetNumElements(attr) as isize;
        (0..n)
            .map(|i| {
                let i = if mlirDenseElementsAttrIsSplat(attr) {
                    0
                } else {
                    i
                };
                Some(match (width, unsigned) {
                    (8, false) => mlirDenseElementsAttrGetInt8Value(attr, i) as i64,
                    (8, true) => mlirDenseElementsAttrGetUInt8Value(attr, i) as i64,
                    (16, false) => mlirDenseElementsAttrGetInt16Value(attr, i) as i64,
                    (16, true) => mlirDenseElementsAttrGetUInt16Value(attr, i) as i64,
                    (32, false) => mlirDenseElementsAttrGetInt32Value(attr, i) as i64,
                    (32, true) => mlirDenseElementsAttrGetUInt32Value(attr, i) as i64,
                    (64, false) => mlirDenseElementsAttrGetInt64Value(attr, i),
                    (64, true) => {
                        i64::try_from(mlirDenseElementsAttrGetUInt64Value(attr, i)).ok()?
                    }
                    _ => return None,
                })
            })
            .collect()
    }
}

/// The symbols an attribute names (`@g` in a flat symbol reference, or in
/// the printed form of a `#param.constant<@g> : !param.symbol` callee);
/// elements attributes name none and are not printed.
pub fn symbols_in(attr: MlirAttribute, out: &mut Vec<String>) {
    unsafe {
        if mlirAttributeIsAElements(attr) {
            return;
        }
        if mlirAttributeIsAFlatSymbolRef(attr) {
            let s = mlirFlatSymbolRefAttrGetValue(attr);
            out.push(
                String::from_utf8_lossy(std::slice::from_raw_parts(s.data as *const u8, s.length))
                    .into_owned(),
            );
            return;
        }
    }
    let text = attr_text(attr);
    let mut rest = text.as_str();
    while let Some(at) = rest.find('@') {
        rest = &rest[at + 1..];
        let name: String = if let Some(quoted) = rest.strip_prefix('"') {
            quoted.split('"').next().unwrap_or_default().to_string()
        } else {
            rest.chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '-'))
                .collect()
        };
        if !name.is_empty() {
            out.push(name);
        }
    }
}

/// The graph a `coreai.invoke` calls.
pub fn callee_name(invoke: MlirOperation) -> Option<String> {
    let attr = unsafe { mlirOperationGetAttributeByName(invoke, crate::ffi::string_ref("callee")) };
    if attr.ptr.is_null() {
        return None;
    }
    let mut names = Vec::new();
    symbols_in(attr, &mut names);
    names.into_iter().next()
}

/// The bit width of a ranked tensor type's integer or float element.
pub fn element_bits(ty: MlirType) -> Option<u32> {
    let element = element(ty)?;
    unsafe {
        if mlirTypeIsAInteger(element) {
            Some(mlirIntegerTypeGetWidth(element))
        } else if mlirTypeIsAFloat(element) {
            Some(mlirFloatTypeGetWidth(element))
        } else {
            None
        }
    }
}

/// Tells the weights file the blob of `attr` was read and need not stay
/// resident (no-op for other attributes).
pub fn release_pages(attr: MlirAttribute) {
    unsafe {
        crate::ffi::coreaiReleaseResourcePages(attr);
    }
}

/// Which result of its op `v` is (0 for a block argument).
pub fn result_number(v: MlirValue) -> usize {
    unsafe {
        if mlirValueIsAOpResult(v) {
            mlirOpResultGetResultNumber(v) as usize
        } else {
            0
        }
    }
}

/// A string attribute's text (not a symbol reference: see [`attr_str`]).
pub fn string_value(attr: MlirAttribute) -> Option<String> {
    unsafe {
        mlirAttributeIsAString(attr).then(|| {
            String::from_utf8_lossy(&crate::ffi::string_ref_bytes(mlirStringAttrGetValue(attr)))
                .into_owned()
        })
    }
}

/// `op` printed in generic form with value numbers local to it, without
/// locations and without eliding any elements or resource. Flags made by
/// `mlirOpPrintingFlagsCreate` start from the command line's printing
/// options (`--mlir-print-debuginfo`, `--mlir-elide-elementsattrs-if-larger`,
/// `--mlir-print-skip-regions`); every option that changes the text is set
/// here except skipping regions, which the C API cannot unset (a caller
/// comparing texts checks the body is there).
pub fn generic_text(op: MlirOperation) -> String {
    crate::ffi::printed(|callback, data| unsafe {
        let flags = mlirOpPrintingFlagsCreate();
        mlirOpPrintingFlagsPrintGenericOpForm(flags);
        mlirOpPrintingFlagsUseLocalScope(flags);
        mlirOpPrintingFlagsEnableDebugInfo(flags, false, false);
        mlirOpPrintingFlagsElideLargeElementsAttrs(flags, isize::MAX);
        mlirOpPrintingFlagsElideLargeResourceString(flags, isize::MAX);
        mlirOperationPrintWithFlags(op, flags, callback, data);
        mlirOpPrintingFlagsDestroy(flags);
    })
}

/// The op named `name` in the symbol table of the module enclosing `from`.
pub fn lookup_symbol(from: MlirOperation, name: &str) -> Option<MlirOperation> {
    let mut module = from;
    while op_name(module) != "builtin.module" {
        module = parent(module);
        if module.ptr.is_null() {
            return None;
        }
    }
    unsafe {
        let table = mlirSymbolTableCreate(module);
        let found = mlirSymbolTableLookup(table, string_ref(name));
        mlirSymbolTableDestroy(table);
        (!found.ptr.is_null()).then_some(found)
    }
}

/// Whether `v` has any use.
pub fn has_uses(v: MlirValue) -> bool {
    unsafe { !mlirOpOperandIsNull(mlirValueGetFirstUse(v)) }
}

/// Makes `values` the operands of `op`.
pub fn set_operands(op: MlirOperation, values: &[MlirValue]) {
    unsafe { mlirOperationSetOperands(op, values.len() as isize, values.as_ptr()) }
}

/// Sets inherent attribute `name` of `op`.
pub fn set_inherent_attribute(op: MlirOperation, name: &str, attr: MlirAttribute) {
    unsafe { mlirOperationSetInherentAttributeByName(op, string_ref(name), attr) }
}

/// The number of elements of a dense array attribute (`array<i32: ...>`).
pub fn dense_array_len(attr: MlirAttribute) -> usize {
    unsafe { mlirDenseArrayGetNumElements(attr) as usize }
}

/// A location as MLIR prints it.
pub fn location_string(location: MlirLocation) -> String {
    crate::ffi::printed(|callback, data| unsafe { mlirLocationPrint(location, callback, data) })
}

/// Erases argument `i` of `block` (it must have no uses left).
pub fn erase_argument(block: MlirBlock, i: usize) {
    unsafe { mlirBlockEraseArgument(block, i as u32) }
}

/// The value of a float attribute.
pub fn float_value(attr: MlirAttribute) -> Option<f64> {
    unsafe { mlirAttributeIsAFloat(attr).then(|| mlirFloatAttrGetValueDouble(attr)) }
}

/// The elements of an inline dense elements attribute (integer, bool or
/// float), row-major, a splat repeated to its element count; `None` for
/// another attribute or element type (see `weights::element_scalars`).
pub fn element_scalars(attr: MlirAttribute) -> Option<Vec<crate::lowering::Scalar>> {
    use crate::lowering::Scalar;
    unsafe {
        if !mlirAttributeIsADenseElements(attr) {
            return None;
        }
        let shape = static_shape(mlirAttributeGetType(attr))?;
        let n = mlirElementsAttrGetNumElements(attr);
        let splat = mlirDenseElementsAttrIsSplat(attr);
        let mut index = vec![0u64; shape.len()];
        (0..n)
            .map(|linear| {
                let e = if splat {
                    mlirDenseElementsAttrGetSplatValue(attr)
                } else {
                    let mut rest = linear as u64;
                    for d in (0..shape.len()).rev() {
                        index[d] = rest % shape[d] as u64;
                        rest /= shape[d] as u64;
                    }
                    mlirElementsAttrGetValue(attr, index.len() as isize, index.as_mut_ptr())
                };
                if mlirAttributeIsAInteger(e) {
                    Some(Scalar::Int(mlirIntegerAttrGetValueInt(e)))
                } else if mlirAttributeIsAFloat(e) {
                    Some(Scalar::Float(mlirFloatAttrGetValueDouble(e)))
                } else {
                    None
                }
            })
            .collect()
    }
}

/// Whether `attr` is an inline splat elements attribute.
pub fn is_splat(attr: MlirAttribute) -> bool {
    unsafe { mlirAttributeIsADenseElements(attr) && mlirDenseElementsAttrIsSplat(attr) }
}

/// `(width, signed)` of an integer type (`i1` unsigned).
pub fn int_kind(ty: MlirType) -> Option<(u32, bool)> {
    unsafe {
        mlirTypeIsAInteger(ty).then(|| {
            let width = mlirIntegerTypeGetWidth(ty);
            (width, width > 1 && !mlirIntegerTypeIsUnsigned(ty))
        })
    }
}

/// The bit width of a float type.
pub fn float_kind(ty: MlirType) -> Option<u32> {
    unsafe { mlirTypeIsAFloat(ty).then(|| mlirFloatTypeGetWidth(ty)) }
}

pub fn is_bf16(ty: MlirType) -> bool {
    unsafe { mlirTypeIsABF16(ty) }
}

/// The element of a float or integer splat as f64 (an integer read by its
/// signedness; the sign of a float zero kept).
pub fn splat_number(attr: MlirAttribute) -> Option<f64> {
    unsafe {
        if !is_splat(attr) {
            return None;
        }
        let s = mlirDenseElementsAttrGetSplatValue(attr);
        if mlirAttributeIsAFloat(s) {
            return Some(mlirFloatAttrGetValueDouble(s));
        }
        if !mlirAttributeIsAInteger(s) {
            return None;
        }
        Some(if mlirIntegerTypeIsUnsigned(mlirAttributeGetType(s)) {
            mlirIntegerAttrGetValueUInt(s) as f64
        } else {
            mlirIntegerAttrGetValueSInt(s) as f64
        })
    }
}

/// Gives `op` the location `name(<its location>)` and returns it as
/// printed.
pub fn rename_location(op: MlirOperation, name: &str) -> String {
    unsafe {
        let child = mlirOperationGetLocation(op);
        let named = mlirLocationNameGet(mlirOperationGetContext(op), string_ref(name), child);
        mlirOperationSetLocation(op, named);
        location_string(named)
    }
}

/// The value of an integer attribute, read by its signedness (`None` for an
/// unsigned value beyond `i64`).
pub fn int_value(attr: MlirAttribute) -> Option<i64> {
    unsafe {
        if !mlirAttributeIsAInteger(attr) {
            return None;
        }
        if mlirIntegerTypeIsUnsigned(mlirAttributeGetType(attr)) {
            i64::try_from(mlirIntegerAttrGetValueUInt(attr)).ok()
        } else {
            Some(mlirIntegerAttrGetValueInt(attr))
        }
    }
}

/// Reports `message` as a remark at `op`'s location.
pub fn emit_remark(op: MlirOperation, message: &str) {
    unsafe { crate::ffi::coreaiEmitRemark(mlirOperationGetLocation(op), string_ref(message)) }
}

/// The composite a graph declares: `rope` for
/// `composite_decl = #coreai.composite_declaration<"rope" = ...>`.
pub fn composite_name(graph: MlirOperation) -> Option<String> {
    let text = attr_text(attribute(graph, "composite_decl")?);
    let rest = text.split_once('"')?.1;
    Some(rest.split_once('"')?.0.to_string())
}

/// Whether `graph` is private: `coreai.graph private` (its unit attribute
/// `priv`) or the generic `sym_visibility = "private"`. Its callers, not
/// the runtime, pass its arguments.
pub fn is_private(graph: MlirOperation) -> bool {
    attribute(graph, "priv").is_some()
        || attribute(graph, "sym_visibility")
            .and_then(attr_str)
            .is_some_and(|v| v == "private")
}

/// The largest finite value of float element `ty` (f16's 65504, bf16's,
/// f32's and f64's `MAX`); its negation is the lowest.
pub fn largest_finite(ty: MlirType) -> Option<f64> {
    Some(match float_kind(ty)? {
        16 if is_bf16(ty) => f64::from(half::bf16::MAX),
        16 => f64::from(half::f16::MAX),
        32 => f64::from(f32::MAX),
        64 => f64::MAX,
        _ => return None,
    })
}

/// `values` as a dense elements attribute of `ty` (a tensor of `si16`);
/// one value is a splat.
pub fn i16_attribute(ty: MlirType, values: &[i16]) -> MlirAttribute {
    unsafe {
        if values.len() == 1 {
            let e = mlirIntegerAttrGet(mlirShapedTypeGetElementType(ty), i64::from(values[0]));
            mlirDenseElementsAttrSplatGet(ty, e)
        } else {
            mlirDenseElementsAttrInt16Get(ty, values.len() as isize, values.as_ptr())
        }
    }
}

/// Frees the blob of `attr` (a `dense_resource` no op holds any more): the
/// bytes a pass made are returned to the allocator, a mapped weights
/// file's pages released. The caller guarantees nothing reads `attr`
/// again: its blob is then empty.
pub fn drop_blob(attr: MlirAttribute) -> bool {
    // A deferred weight permuted from this blob is made while it is there.
    crate::deferred::before_drop(attr);
    unsafe { crate::ffi::coreaiDropResourceBlob(attr) }
}

/// A `dense_resource` attribute of `ty` named `name` (MLIR numbers a
/// repeated name) holding `bytes` (the elements, little-endian), which
/// MLIR owns.
pub fn resource_bytes(ty: MlirType, name: &str, bytes: Vec<u8>) -> MlirAttribute {
    // SAFETY: `ty` is a live type of the context the attribute is made in.
    let ty = unsafe { melior::ir::Type::from_raw(ty) };
    melior::ir::attribute::AttributeLike::to_raw(&crate::weights::resource(
        ty,
        name,
        bytes,
        crate::weights::BLOB_ALIGNMENT,
    ))
}

/// The blob name of a `dense_resource` attribute, if `attr` is one.
pub fn resource_name(attr: MlirAttribute) -> Option<String> {
    // SAFETY: a live attribute.
    crate::weights::resource_name(unsafe { melior::ir::Attribute::from_raw(attr) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use melior::ir::TypeLike;

    /// f32 constants of `values` as a `dense_resource` blob and as a dense
    /// attribute.
    fn constants(ctx: &melior::Context, values: &[f32]) -> [MlirAttribute; 2] {
        let ty = melior::ir::Type::parse(ctx, &format!("tensor<{}xf32>", values.len()))
            .expect("a tensor type");
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let blob = resource_bytes(ty.to_raw(), "w", bytes.clone());
        // SAFETY: `bytes` holds the elements of `ty`, little-endian.
        let dense = unsafe {
            mlirDenseElementsAttrRawBufferGet(ty.to_raw(), bytes.len(), bytes.as_ptr().cast())
        };
        [blob, dense]
    }

    #[test]
    fn streamed_reads_see_every_element_as_the_element_wise_forms() {
        let ctx = melior::Context::new();
        let n = 3 * RUN + 5;
        let values: Vec<f32> = (0..n)
            .map(|i| match i % 13 {
                0 => f32::MAX,
                1 => f32::MIN,
                2 => f32::NAN,
                3 => f32::INFINITY,
                4 => 65519.0,
                _ => (i as f32) * 0.37 - 5000.0,
            })
            .collect();
        let extremes = (half::f16::MAX, half::f16::MIN);
        let mut want = Vec::new();
        for &v in &values {
            let h = match v {
                f32::MAX => extremes.0,
                f32::MIN => extremes.1,
                v => half::f16::from_f32(v),
            };
            want.extend_from_slice(&h.to_le_bytes());
        }
        for attr in constants(&ctx, &values) {
            assert_eq!(f16_bytes(attr, extremes).expect("an f32 constant"), want);
            // The first finite element beyond the bound that the predicate
            // accepts, in order: runs within the bound are skipped whole.
            let late = values.len() - 1;
            let pick = |bound: f32, pred: &dyn Fn(f32) -> bool| {
                values
                    .iter()
                    .copied()
                    .find(|&v| v.is_finite() && v.abs() > bound && pred(v))
            };
            for (bound, pred) in [
                (2048.0, &(|v: f32| v > 0.0) as &dyn Fn(f32) -> bool),
                (65504.0, &|v: f32| v != f32::MAX),
                (1e9, &|_| true),
                (0.0, &|v: f32| v == values[late]),
            ] {
                assert_eq!(
                    find_float_value(attr, bound, pred).map(f32::to_bits),
                    pick(bound, pred).map(f32::to_bits)
                );
            }
        }
    }
}
