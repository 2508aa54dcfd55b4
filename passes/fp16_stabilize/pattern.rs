//! Matching and building helpers shared by the `fp16-stabilize` pattern
//! families: reading the coreai forms the lowerings emit (which op defines
//! a value, splat constants) and building elementwise coreai ops with
//! broadcast result types in front of the matched root.

use coreai_ir::emit::select_to;
use coreai_ir::lowering::{broadcast_shapes, Decline, LoweringCx};
use coreai_ir::op::coreai;
pub use coreai_ir::schema::{
    element_type as element, shape_of as shape, tensor_of as tensor, tensor_type,
    type_dims as type_shape,
};
use melior::ir::{
    operation::{OperationLike, OperationRef},
    r#type::ShapedTypeLike,
    AttributeLike, Type, TypeLike, Value, ValueLike,
};

/// A pattern: the replacement values of the root's results, or why it does
/// not apply.
pub type Rewritten<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

/// The op that defines `v`, when it is an op result.
pub fn producer<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    coreai_ir::schema::producer(v)
}

/// The op named `name` (`coreai::CONSTANT`) that defines `v`.
pub fn defined_by<'c: 'a, 'a>(v: Value<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let op = producer(v)?;
    (op_name(&op) == name).then_some(op)
}

pub fn op_name(op: &OperationRef<'_, '_>) -> String {
    op.name()
        .as_string_ref()
        .as_str()
        .map(str::to_string)
        .unwrap_or_default()
}

/// Operand `i` of `op`.
pub fn arg<'c: 'a, 'a>(op: &OperationRef<'c, 'a>, i: usize) -> Result<Value<'c, 'a>, Decline> {
    op.operand(i)
        .map_err(|_| format!("'{}' has no operand #{i}", op_name(op)))
}

/// The element of a splat `coreai.constant` (any shape and type).
pub fn splat_element(v: Value<'_, '_>) -> Option<mlir_sys::MlirAttribute> {
    let op = defined_by(v, coreai::CONSTANT)?;
    let attr = op.attribute("value").ok()?;
    coreai_ir::schema::splat_element(attr).map(|e| e.to_raw())
}

/// The value of a splat float `coreai.constant` (any shape).
pub fn splat(v: Value<'_, '_>) -> Option<f64> {
    let element = splat_element(v)?;
    coreai_ir::raw::float_value(element)
}

/// Whether `v` is a splat constant equal to `value`.
pub fn is_splat(v: Value<'_, '_>, value: f64) -> bool {
    splat(v) == Some(value)
}

/// The two operands of the binary op `op`, the one satisfying `is_const`
/// second (`add(1, y)` and `add(y, 1)` both give `(y, 1)`).
pub fn with_constant<'c: 'a, 'a>(
    op: &OperationRef<'c, 'a>,
    is_const: impl Fn(Value<'c, 'a>) -> bool,
) -> Option<(Value<'c, 'a>, Value<'c, 'a>)> {
    let (a, b) = (op.operand(0).ok()?, op.operand(1).ok()?);
    if is_const(b) {
        Some((a, b))
    } else if is_const(a) {
        Some((b, a))
    } else {
        None
    }
}

/// The number of uses of `v`.
pub fn use_count(v: Value<'_, '_>) -> usize {
    coreai_ir::raw::uses(v.to_raw()).len()
}

pub fn is_float(v: Value<'_, '_>) -> bool {
    tensor(v).is_ok_and(|t| t.element().is_float())
}

/// Builds elementwise `op` (`coreai::EXP`) on `x`.
pub fn unary<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    x: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    cx.build_value(op, &[x], x.r#type(), &[])
}

/// Builds the broadcasting form of elementwise `op` (`coreai::SUB`) on
/// `%a, %b`; the result has the broadcast shape and `a`'s element (`i1` for
/// comparisons).
pub fn binary<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let s = broadcast_shapes(&[&shape(a)?, &shape(b)?])?;
    let e = match op {
        coreai::EQUAL | coreai::GREATER | coreai::NOT_EQUAL => cx.parse_type("i1")?,
        _ => element(a)?,
    };
    coreai_ir::emit::broadcasting(cx, op, a, b, tensor_type(&s, e))
}

/// `where(c, a, b)` with the broadcast shape and `a`'s element.
pub fn select<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    c: Value<'c, 'a>,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let s = broadcast_shapes(&[&shape(c)?, &shape(a)?, &shape(b)?])?;
    select_to(cx, c, a, b, tensor_type(&s, element(a)?))
}

/// A rank-0 constant `value` of `like`'s element (exact, or a decline).
pub fn scalar<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    value: f64,
    like: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    cx.scalar_constant(coreai_ir::lowering::Scalar::Float(value), element(like)?)
}

/// `op %x, %axes` (`coreai::REDUCE_MAX`) with the result type `ty` (the
/// reduced dims kept).
pub fn reduce<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    op: &str,
    x: Value<'c, 'a>,
    axes: Value<'c, 'a>,
    ty: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    cx.build_value(op, &[x, axes], ty, &[])
}

/// The max of `x` over `axes` (type `ty`) with ±inf replaced by 0, the
/// shift of a stable logsumexp/softmax (PyTorch's: an all -inf slice stays
/// -inf/NaN as in the unshifted form, a +inf keeps its inf):
/// `m = reduce_max(x, axes); where(|m| == inf, 0, m)`.
pub fn finite_max<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axes: Value<'c, 'a>,
    ty: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let m = reduce(cx, coreai::REDUCE_MAX, x, axes, ty)?;
    let infinite = binary(
        cx,
        coreai::EQUAL,
        unary(cx, coreai::ABS, m)?,
        scalar(cx, f64::INFINITY, m)?,
    )?;
    select(cx, infinite, scalar(cx, 0.0, m)?, m)
}

/// Whether `z` is already shifted by a max: `x - m` with `m` a
/// `reduce_max` or the guarded `where(_, _, reduce_max)` of [`finite_max`].
pub fn is_max_shifted(z: Value<'_, '_>) -> bool {
    let Some(sub) = defined_by(z, coreai::DECOMPOSABLE_BROADCASTING_SUB) else {
        return false;
    };
    let Ok(m) = sub.operand(1) else {
        return false;
    };
    if defined_by(m, coreai::REDUCE_MAX).is_some() {
        return true;
    }
    defined_by(m, coreai::DECOMPOSABLE_BROADCASTING_WHERE)
        .and_then(|w| w.operand(2).ok())
        .is_some_and(|m| defined_by(m, coreai::REDUCE_MAX).is_some())
}
