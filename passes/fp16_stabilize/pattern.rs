//! Matching and building helpers shared by the `fp16-stabilize` pattern
//! families: reading the coreai forms the lowerings emit (which op defines
//! a value, splat constants) and building elementwise coreai ops with
//! broadcast result types in front of the matched root.

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

/// The largest finite value of `like`'s float element (f16's 65504,
/// f32's `f32::MAX`). `cast-to-f16` turns an f32 constant `±f32::MAX`
/// into f16's ±65504 (the "finite infinity" convention).
pub fn largest_finite(like: Value<'_, '_>) -> Result<f64, Decline> {
    coreai_ir::raw::largest_finite(element(like)?.to_raw())
        .ok_or_else(|| "not a float element".into())
}

/// `min(max(v, lo), hi)`: computed with elementwise ops only, no
/// comparison and no boolean (a boolean leaves the Neural Engine, whose
/// types are f16, int8 and int16).
pub fn clamp<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
    lo: Value<'c, 'a>,
    hi: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    binary(cx, coreai::MINIMUM, binary(cx, coreai::MAXIMUM, v, lo)?, hi)
}

/// The max of `x` over `axes` (type `ty`) clamped to the finite range,
/// the shift of a stable logsumexp/softmax:
/// `m = reduce_max(x, axes); min(max(m, -F), F)`, `F` the element's
/// largest finite value. A finite max is unchanged. An all -inf slice
/// shifts by -F: `exp(-inf + F) = 0`, so softmax gives 0/0 = NaN and
/// logsumexp `-F + log 0 = -inf`, as in the unshifted form. A slice holding
/// +inf shifts by F: `exp(inf - F) = inf`, the sum is inf, logsumexp gives
/// inf and softmax NaN at the +inf entries and 0 elsewhere. No boolean
/// (`where(|m| == inf, 0, m)` computes the same outputs with a comparison
/// the Neural Engine cannot hold).
pub fn finite_max<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    axes: Value<'c, 'a>,
    ty: Type<'c>,
) -> Result<Value<'c, 'a>, Decline> {
    let m = reduce(cx, coreai::REDUCE_MAX, x, axes, ty)?;
    let f = largest_finite(m)?;
    clamp(cx, m, scalar(cx, -f, m)?, scalar(cx, f, m)?)
}

/// Whether `z` is already shifted by a max: `x - m` with `m` a
/// `reduce_max` or the clamped `min(max(reduce_max, _), _)` of
/// [`finite_max`].
pub fn is_max_shifted(z: Value<'_, '_>) -> bool {
    let Some(sub) = defined_by(z, coreai::DECOMPOSABLE_BROADCASTING_SUB) else {
        return false;
    };
    let Ok(mut m) = sub.operand(1) else {
        return false;
    };
    for bound in [
        coreai::DECOMPOSABLE_BROADCASTING_MINIMUM,
        coreai::DECOMPOSABLE_BROADCASTING_MAXIMUM,
    ] {
        match defined_by(m, bound).and_then(|op| op.operand(0).ok()) {
            Some(inner) => m = inner,
            None => break,
        }
    }
    defined_by(m, coreai::REDUCE_MAX).is_some()
}
