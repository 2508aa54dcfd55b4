//! Sums of squares under a square root: RMSNorm, layer/group norm
//! variance, vector 2-norms (conversion guide §5.6: `x²` overflows fp16
//! past |x| = 256 although the norm does not).
//!
//! The statistic is computed on `d / s`, with `s` the largest |d| over the
//! reduced axes (at least 1), and the root takes `s` back out:
//! `sqrt(v + c) = s · sqrt(v/s² + c/s²)`, `rsqrt(v + c) = rsqrt(v/s² + c/s²) / s`.
//!
//! fp16 range argument: |d / s| ≤ 1, so every square is ≤ 1, a mean ≤ 1 and
//! a sum ≤ n; `c / s / s` ≤ c. The only large values are `s` (an input
//! magnitude) and the result.
//!
//! f32: where every |d| ≤ 1 (s = 1) the rewritten ops compute the same
//! values bit for bit (division and multiplication by 1); elsewhere the
//! scaling adds one rounding per element, a few ulp in all (tested against
//! float64). `s` is the largest finite value where the max is inf, and such
//! slices give what the original gives (see [`scale`]).

use super::pattern::*;
use coreai_ir::lowering::{broadcast_shapes, LoweringCx};
use coreai_ir::op::coreai;
use melior::ir::{operation::OperationLike, OperationRef, Value, ValueLike};

/// One op between the reduction and the root.
enum Link<'c, 'a> {
    /// `+ c` (an epsilon): becomes `+ c / s / s`.
    Add(Value<'c, 'a>),
    /// `/ c` or `· c` (a count): unchanged.
    Scale(&'static str, Value<'c, 'a>),
    /// `reshape` to the shape operand: applied to `s` too.
    Reshape(Value<'c, 'a>, melior::ir::Type<'c>),
}

/// The splat constant operand of `op` that does not broadcast the other
/// operand (a scalar epsilon or count), with the other operand.
fn scalar_operand<'c: 'a, 'a>(
    op: &OperationRef<'c, 'a>,
    commutes: bool,
) -> Option<(Value<'c, 'a>, Value<'c, 'a>)> {
    let (w, c) = if commutes {
        with_constant(op, |c| splat(c).is_some())?
    } else {
        let (w, c) = (op.operand(0).ok()?, op.operand(1).ok()?);
        splat(c)?;
        (w, c)
    };
    let sw = shape(w).ok()?;
    (broadcast_shapes(&[&sw, &shape(c).ok()?]).ok()? == sw).then_some((w, c))
}

/// The statistic under the root: the reduction op, `d` with `d·d` reduced,
/// and the links from the reduction up to the root's operand, bottom first.
type Statistic<'c, 'a> = (OperationRef<'c, 'a>, Value<'c, 'a>, Vec<Link<'c, 'a>>);

fn sum_of_squares<'c: 'a, 'a>(mut v: Value<'c, 'a>) -> Option<Statistic<'c, 'a>> {
    let mut links = Vec::new();
    for _ in 0..5 {
        let op = producer(v)?;
        match op_name(&op).as_str() {
            coreai::REDUCE_MEAN | coreai::REDUCE_SUM => {
                let sq = defined_by(op.operand(0).ok()?, coreai::DECOMPOSABLE_BROADCASTING_MUL)?;
                let d = sq.operand(0).ok()?;
                if sq.operand(1).ok()? != d || !is_float(d) {
                    return None;
                }
                links.reverse();
                return Some((op, d, links));
            }
            coreai::DECOMPOSABLE_BROADCASTING_ADD => {
                let (w, c) = scalar_operand(&op, true)?;
                links.push(Link::Add(c));
                v = w;
            }
            coreai::DECOMPOSABLE_BROADCASTING_DIVIDE => {
                let (w, c) = scalar_operand(&op, false)?;
                links.push(Link::Scale(coreai::DIVIDE, c));
                v = w;
            }
            coreai::DECOMPOSABLE_BROADCASTING_MUL => {
                let (w, c) = scalar_operand(&op, true)?;
                links.push(Link::Scale(coreai::MUL, c));
                v = w;
            }
            coreai::RESHAPE => {
                links.push(Link::Reshape(op.operand(1).ok()?, v.r#type()));
                v = op.operand(0).ok()?;
            }
            _ => return None,
        }
    }
    None
}

/// `s = min(max(a, 1), F)` with `a = reduce_max(|d|, axes)` and `F` the
/// element's largest finite value: no comparison and no boolean (which
/// would leave the Neural Engine). A slice holding ±inf gets `s = F`: its
/// sum of squares is still inf, `rsqrt(inf) / F = 0` and
/// `sqrt(inf) · F = inf`, what `s = 1` gives; a slice holding NaN gives
/// NaN with any `s`.
fn scale<'c: 'a, 'a>(
    cx: &LoweringCx<'c, 'a>,
    d: Value<'c, 'a>,
    reduction: &OperationRef<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let ty = reduction.result(0).map_err(|_| "no result")?.r#type();
    let a = reduce(
        cx,
        coreai::REDUCE_MAX,
        unary(cx, coreai::ABS, d)?,
        arg(reduction, 1)?,
        ty,
    )?;
    clamp(
        cx,
        a,
        scalar(cx, 1.0, d)?,
        scalar(cx, largest_finite(d)?, d)?,
    )
}

// sqrt(chain(reduce(d · d)))  → s · sqrt(chain'(reduce((d/s) · (d/s))))
// rsqrt(chain(reduce(d · d))) → rsqrt(chain'(reduce((d/s) · (d/s)))) / s
//   chain: + c, / c, · c, reshape;  chain': + c/s/s, / c, · c, reshape (of s too)
pub fn root_of_squares<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Rewritten<'c, 'a> {
    let root = cx.op();
    let (reduction, d, links) =
        sum_of_squares(arg(&root, 0)?).ok_or("not a root of a reduced d · d")?;
    let mut s = scale(cx, d, &reduction)?;
    let scaled = binary(cx, coreai::DIVIDE, d, s)?;
    let squares = binary(cx, coreai::MUL, scaled, scaled)?;
    let ty = reduction.result(0).map_err(|_| "no result")?.r#type();
    let mut v = cx.build_value(
        &op_name(&reduction),
        &[squares, arg(&reduction, 1)?],
        ty,
        &[],
    )?;
    for link in links {
        v = match link {
            Link::Add(c) => binary(
                cx,
                coreai::ADD,
                v,
                binary(cx, coreai::DIVIDE, binary(cx, coreai::DIVIDE, c, s)?, s)?,
            )?,
            Link::Scale(op, c) => binary(cx, op, v, c)?,
            Link::Reshape(to, ty) => {
                let s_ty = tensor_type(&type_shape(ty)?, element(s)?);
                s = cx.build_value(coreai::RESHAPE, &[s, to], s_ty, &[])?;
                cx.build_value(coreai::RESHAPE, &[v, to], ty, &[])?
            }
        };
    }
    let r = if op_name(&root) == coreai::SQRT {
        binary(cx, coreai::MUL, unary(cx, coreai::SQRT, v)?, s)?
    } else {
        binary(cx, coreai::DIVIDE, unary(cx, coreai::RSQRT, v)?, s)?
    };
    Ok(vec![r])
}
