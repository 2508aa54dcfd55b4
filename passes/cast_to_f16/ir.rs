//! Raw IR helpers of `cast-to-f16`: types, casts placed next to a value's
//! definition, uses, and f16 constants.

use coreai_ir::ffi::string_ref;
use coreai_ir::op::coreai;
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

fn element(ty: MlirType) -> Option<MlirType> {
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
            Some(coreai_ir::ffi::append_to_vec),
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
            Some(coreai_ir::ffi::append_to_vec),
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
            let mut size = 0usize;
            let data = coreai_ir::ffi::coreaiDenseResourceElementsGetData(attr, &mut size);
            if data.is_null() {
                return None;
            }
            let n = size / 4;
            let bytes = std::slice::from_raw_parts(data as *const u8, n * 4);
            let values = bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            // Read once for its f16 form: the pages of a mapped weights file
            // need not stay resident (read again if the f32 form is kept).
            coreai_ir::ffi::coreaiReleaseResourcePages(attr);
            return Some(values);
        }
        None
    }
}

/// A dense f16 elements attribute of `ty` (an f16 tensor type) holding
/// `values` as [`constant_f16`] converts them (one value: a splat).
pub fn f16_attribute(ty: MlirType, values: &[f32]) -> MlirAttribute {
    let bits: Vec<u16> = values.iter().map(|v| constant_f16(*v).to_bits()).collect();
    unsafe {
        if bits.len() == 1 {
            let ctx = mlirTypeGetContext(ty);
            let e = mlirFloatAttrDoubleGet(
                ctx,
                mlirF16TypeGet(ctx),
                half::f16::from_bits(bits[0]).to_f64(),
            );
            mlirDenseElementsAttrSplatGet(ty, e)
        } else {
            mlirDenseElementsAttrFloat16Get(ty, bits.len() as isize, bits.as_ptr())
        }
    }
}

/// A constant's f32 value in f16: rounded to nearest even, except the
/// extremes `torch.finfo(torch.float32).min` / `.max`, which become f16's
/// (±65504). Modeling code writes them as "minus infinity that stays finite"
/// (Hugging Face's additive attention masks use `finfo(dtype).min`): the
/// same code run in f16 writes f16's extremes, and rounding would give ±inf.
pub fn constant_f16(v: f32) -> half::f16 {
    match v {
        f32::MAX => half::f16::MAX,
        f32::MIN => half::f16::MIN,
        v => half::f16::from_f32(v),
    }
}

/// Whether `v` is `torch.finfo(torch.float32).min` or `.max` (see
/// [`constant_f16`]).
pub fn is_f32_extreme(v: f32) -> bool {
    v == f32::MAX || v == f32::MIN
}

/// Whether a finite f32 constant becomes infinite in f16 ([`constant_f16`]).
pub fn overflows_f16(v: f32) -> bool {
    v.is_finite() && constant_f16(v).is_infinite()
}
