//! Constant folding with the reference executor's kernels.
//!
//! // op(constant, ..., constant) → constant
//!
//! Exactness: the folded value is what the executor's kernel computes for
//! the op (the same code `coreai-run` runs), so the module computes the
//! same bits in the executor before and after. A deferred transpose of a
//! weight (`coreai_ir::deferred`, while coreai-compile writes an asset)
//! holds the same bytes, made when they are read or written: the asset is
//! the same file with deferral or without. Against another runtime the
//! fold is as exact as that runtime agrees with the executor on the op.
//!
//! Declines: an operand that is not a constant; a weight's decompression
//! (`blockwise_shift_scale`, `lut_to_dense`, the bitmask sparse ops: the
//! compressed form is the point); an op with regions, a
//! call (`coreai.invoke`: a composite is a contract with the Core AI
//! compiler, folded only by folding its body's ops, never across the
//! call), an op on `!coreai.handle` state; a result that is not a static
//! tensor; a folded result larger than [`MAX_GROWTH_BYTES`] when bigger
//! than all operands together (folding `broadcast_to` of a scalar to a
//! large shape would grow the module); any error of the kernel (an integer division by zero stays in the program, where
//! it is reported at run time).

use super::{constant_attr, op_name, Options};
use coreai_ir::emit::constant;
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::raw;
use melior::ir::{operation::OperationLike, TypeLike, Value, ValueLike};
use mlir_sys::{MlirAttribute, MlirOperation, MlirType};

/// Computes `op`'s results from its operands' constant values (one dense or
/// `dense_resource` elements attribute per operand) with the executor's
/// kernels: one dense elements attribute per result, of the result's type,
/// or why not.
fn evaluate_op(
    op: MlirOperation,
    operands: &[MlirAttribute],
) -> Result<Vec<MlirAttribute>, String> {
    coreai_interp::fold::fold_op(op, operands)
}

/// A fold may make the module larger than its operands by this much.
pub const MAX_GROWTH_BYTES: u64 = 64 * 1024;

/// Ops never folded: calls and effects (state handles, ordering tokens).
const NEVER: &[&str] = &[
    coreai::INVOKE,
    coreai::READ_HANDLE,
    coreai::WRITE_HANDLE,
    coreai::CREATE_TOKEN,
    coreai::JOIN_TOKEN,
];

/// Whether `name` decompresses a weight (`quantize-weights`'
/// `blockwise_shift_scale`, a palette's `lut_to_dense`, the bitmask sparse
/// ops): folding it would undo the compression.
fn decompresses(name: &str) -> bool {
    [
        coreai::BLOCKWISE_SHIFT_SCALE,
        coreai::LUT_TO_DENSE,
        coreai::LUT_TO_SPARSE_WITH_BITMASK,
        coreai::SPARSE_WITH_BITMASK_TO_DENSE,
        coreai::BUILD_SPARSE_WITH_BITMASK,
    ]
    .contains(&name)
}

pub fn fold<'c, 'a>(cx: &LoweringCx<'c, 'a>, _: Options) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let op = cx.op();
    let raw = op.to_raw();
    let name = op_name(raw);
    if NEVER.contains(&name.as_str()) || op.region_count() > 0 {
        return Err(format!("'{name}' is a call, an effect or has regions"));
    }
    if decompresses(&name) {
        return Err(format!("'{name}' decompresses a weight"));
    }
    if op.result_count() == 0 {
        return Err("no results".into());
    }
    let mut operands = Vec::with_capacity(op.operand_count());
    let mut operand_bytes = 0u64;
    for i in 0..op.operand_count() {
        let v = cx.operand(i)?;
        let attr =
            constant_attr(v.to_raw()).ok_or_else(|| format!("operand #{i} is not a constant"))?;
        operand_bytes +=
            static_bytes(v.r#type().to_raw()).ok_or("an operand is not a static tensor")?;
        operands.push(attr);
    }
    let mut result_bytes = 0u64;
    for i in 0..op.result_count() {
        let ty = op.result(i).map_err(|_| "missing result")?.r#type();
        result_bytes += static_bytes(ty.to_raw()).ok_or("a result is not a static tensor")?;
    }
    if result_bytes > operand_bytes.max(MAX_GROWTH_BYTES) {
        return Err(format!(
            "the folded value ({result_bytes} bytes) would be larger than its operands ({operand_bytes} bytes)"
        ));
    }
    let values = match deferred_fold(cx, &operands) {
        Some(attr) => vec![attr],
        None => evaluate_op(raw, &operands)?,
    };
    // A weight folded into another need not stay resident: the pages of a
    // mapped weights file are dropped (read again from the file if the
    // constant has other uses).
    for &attr in &operands {
        raw::release_pages(attr);
    }
    values
        .into_iter()
        .enumerate()
        .map(|(i, attr)| {
            let ty = op.result(i).map_err(|_| "missing result")?.r#type();
            constant(cx, ty, cx.attribute_from_raw(attr))
        })
        .collect()
}

/// `transpose(weight, perm)` of a large weight blob, when folds defer
/// (`coreai_ir::deferred`), and a reshape of such a fold: a blob of the
/// same name, type and bytes as the kernel's result, made when it is read
/// or written. `None` (fold as usual) for a small or splat weight, elements
/// of other than 8 to 64 bits, or an operand that is not a blob.
fn deferred_fold(cx: &LoweringCx<'_, '_>, operands: &[MlirAttribute]) -> Option<MlirAttribute> {
    let &[source, _] = operands else {
        return None;
    };
    if !raw::is_dense_resource(source) {
        return None;
    }
    let ty = cx.op().result(0).ok()?.r#type().to_raw();
    let bytes = static_bytes(ty)?;
    let name = op_name(cx.op().to_raw());
    if name == coreai::RESHAPE {
        let name = format!("{}.folded", raw::resource_name(source)?);
        return coreai_ir::deferred::reshaped(ty, &name, source, bytes as usize);
    }
    if name != coreai::TRANSPOSE {
        return None;
    }
    let width = match raw::element_bits(ty)? {
        bits @ (8 | 16 | 32 | 64) => bits as usize / 8,
        _ => return None,
    };
    if !coreai_ir::deferred::worth_deferring(bytes as usize) {
        return None;
    }
    let source_ty = raw::value_type(cx.operand(0).ok()?.to_raw());
    let shape: Vec<usize> = raw::static_shape(source_ty)?
        .iter()
        .map(|&n| usize::try_from(n).ok())
        .collect::<Option<_>>()?;
    let perm: Vec<usize> = raw::constant_ints(cx.operand(1).ok()?.to_raw())?
        .iter()
        .map(|&p| usize::try_from(p).ok())
        .collect::<Option<_>>()?;
    // A splat folds to a dense splat attribute, not a blob.
    let data = coreai_ir::deferred::blob_data(source)?;
    let first = data.get(..width)?;
    if data.chunks_exact(width).all(|e| e == first) {
        return None;
    }
    let name = format!("{}.folded", raw::resource_name(source)?);
    coreai_ir::deferred::permuted_resource(ty, &name, source, &shape, &perm, width)
}

/// Bytes of a static ranked tensor type (sub-byte elements count a byte).
fn static_bytes(ty: MlirType) -> Option<u64> {
    let n: i64 = raw::static_shape(ty)?.iter().product();
    let bits = raw::element_bits(ty)? as u64;
    Some(n as u64 * bits.div_ceil(8))
}

/// The value of `v` when it derives from constants only, computed with the
/// executor's kernels op by op (at most `depth` ops deep, static tensors
/// of at most [`MAX_EVALUATED_BYTES`]): a dense elements attribute, or
/// `None` (a non-constant leaf, a call or effect, a kernel
/// error). Nothing is rewritten: the recognizers read proved values with
/// it (a causal mask).
pub fn evaluate(v: Value<'_, '_>, depth: usize) -> Option<MlirAttribute> {
    let mut memo = std::collections::HashMap::new();
    evaluate_raw(v.to_raw(), depth, &mut memo)
}

/// The largest value [`evaluate`] computes.
pub const MAX_EVALUATED_BYTES: u64 = 16 << 20;

fn evaluate_raw(
    v: mlir_sys::MlirValue,
    depth: usize,
    memo: &mut std::collections::HashMap<*const std::ffi::c_void, Option<MlirAttribute>>,
) -> Option<MlirAttribute> {
    if let Some(&known) = memo.get(&(v.ptr as *const _)) {
        return known;
    }
    let value = (|| {
        if let Some(attr) = super::constant_attr(v) {
            return Some(attr);
        }
        if depth == 0 {
            return None;
        }
        let op = raw::producer(v)?;
        let name = op_name(op);
        if NEVER.contains(&name.as_str()) || raw::region_count(op) > 0 {
            return None;
        }
        let mut operands = Vec::new();
        for operand in raw::operands(op) {
            operands.push(evaluate_raw(operand, depth - 1, memo)?);
        }
        for r in raw::results(op) {
            if static_bytes(raw::value_type(r))? > MAX_EVALUATED_BYTES {
                return None;
            }
        }
        let values = evaluate_op(op, &operands).ok()?;
        values.get(raw::result_number(v)).copied()
    })();
    memo.insert(v.ptr as *const _, value);
    value
}
