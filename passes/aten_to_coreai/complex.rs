//! Complex tensors ↔ pairs of real tensors (complex, polar, view_as_complex,
//! view_as_real) → coreai.create_complex / real_part / imaginary_part.
//!
//! Forms follow coreai-torch 0.4.3: the trailing size-2 axis of a real view
//! is split with `coreai.slice` and joined with `coreai.concat`; unit axes
//! are added or dropped with `coreai.reshape` when the shape is static (as
//! coreai-torch's canonicalized output shows), `coreai.expand_dims` /
//! `coreai.shrink_dims` when it is dynamic.

use coreai_ir::emit::expand_dim;
use coreai_ir::emit::{arith, unary};
use coreai_ir::emit::{axes, int_scalar, reshape, slice, TO_END};
use coreai_ir::lowering::{type_text, Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::schema::{dims, shape_of, tensor_type, DYNAMIC};
use melior::ir::{
    r#type::{RankedTensorType, ShapedTypeLike},
    Type, Value, ValueLike,
};

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

pub static LOWERINGS: super::Family = &[
    ("complex.default", complex),
    ("polar.default", polar),
    ("view_as_complex.default", view_as_complex),
    ("view_as_complex_copy.default", view_as_complex),
    ("view_as_real.default", view_as_real),
    ("view_as_real_copy.default", view_as_real),
];

/// coreai's only complex element type (torch.complex64).
const COMPLEX64: &str = "complex<f32>";

/// Declines a complex element other than `complex<f32>`.
fn check_complex64(element: Type<'_>) -> Result<(), Decline> {
    let text = type_text(element);
    if text != COMPLEX64 {
        return Err(format!(
            "coreai's complex ops take {COMPLEX64} (torch.complex64) only, not {text}"
        ));
    }
    Ok(())
}

/// The real element type of the complex result (`f32` of `complex<f32>`).
fn complex_part_element<'c>(cx: &LoweringCx<'c, '_>) -> Result<Type<'c>, Decline> {
    check_complex64(cx.result_tensor(0)?.element())?;
    cx.parse_type("f32")
}

/// `coreai.create_complex %re, %im` to the result type; both parts must
/// already have the result's shape.
fn create_complex<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    re: Value<'c, 'a>,
    im: Value<'c, 'a>,
) -> Lowered<'c, 'a> {
    let out = dims(cx.result_tensor(0)?);
    for part in [re, im] {
        if shape_of(part)? != out {
            return Err(format!(
                "the part {} does not have the result shape {out:?} (broadcasting complex parts is not lowered)",
                part.r#type()
            ));
        }
    }
    let part = complex_part_element(cx)?;
    for v in [re, im] {
        let element = RankedTensorType::try_from(v.r#type()).map(|t| t.element());
        if element.ok() != Some(part) {
            return Err(format!("the part {} is not of {part}", v.r#type()));
        }
    }
    Ok(vec![cx.build_value(
        coreai::CREATE_COMPLEX,
        &[re, im],
        cx.result_type(0)?,
        &[],
    )?])
}

// aten.complex(%re, %im) → coreai.create_complex %re, %im
fn complex<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    create_complex(cx, cx.operand(0)?, cx.operand(1)?)
}

// aten.polar(%abs, %angle) → coreai.create_complex (broadcasting_mul %abs, (coreai.cos %angle)),
//                                                  (broadcasting_mul %abs, (coreai.sin %angle))
fn polar<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let (magnitude, angle) = (cx.operand(0)?, cx.operand(1)?);
    let re = arith(cx, coreai::MUL, magnitude, unary(cx, coreai::COS, angle)?)?;
    let im = arith(cx, coreai::MUL, magnitude, unary(cx, coreai::SIN, angle)?)?;
    create_complex(cx, re, im)
}

// aten.view_as_complex(%x : [..., 2]) → coreai.create_complex
//   (reshape|shrink_dims (coreai.slice %x[..., 0:1])), (reshape|shrink_dims (coreai.slice %x[..., 1:2]))
fn view_as_complex<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let x = cx.operand(0)?;
    let ty = cx.operand_tensor(0)?;
    let mut d = dims(ty);
    if d.last() != Some(&2) {
        return Err(format!(
            "view_as_complex needs a last dim of size 2, got {ty}"
        ));
    }
    let last = d.len() - 1;
    d[last] = 1;
    let half = tensor_type(&d, ty.element());
    let part = |index: i64| -> Result<Value<'c, 'a>, Decline> {
        let mut bounds: Vec<(i64, i64, i64)> = vec![(0, TO_END, 1); last + 1];
        bounds[last] = (index, index + 1, 1);
        let s = slice(cx, x, &bounds, half)?;
        drop_last(cx, s, &d[..last])
    };
    create_complex(cx, part(0)?, part(1)?)
}

// aten.view_as_real(%z) → coreai.concat <rank : si32>,
//   (reshape|expand_dims (coreai.real_part %z)), (reshape|expand_dims (coreai.imaginary_part %z))
fn view_as_real<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let z = cx.operand(0)?;
    check_complex64(cx.operand_tensor(0)?.element())?;
    let d = dims(cx.operand_tensor(0)?);
    let element = cx.result_tensor(0)?.element();
    let part_ty = tensor_type(&d, element);
    let re = cx.build_value(coreai::REAL_PART, &[z], part_ty, &[])?;
    let im = cx.build_value(coreai::IMAGINARY_PART, &[z], part_ty, &[])?;
    let axis = int_scalar(cx, d.len() as i64, "si32")?;
    let re = add_last(cx, re, &d)?;
    let im = add_last(cx, im, &d)?;
    Ok(vec![cx.build_value(
        coreai::CONCAT,
        &[axis, re, im],
        cx.result_type(0)?,
        &[],
    )?])
}

/// `x` (dims `kept` + a trailing unit dim) without its last dim.
fn drop_last<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    kept: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    if !kept.contains(&DYNAMIC) {
        return reshape(cx, x, kept);
    }
    let ty = RankedTensorType::try_from(x.r#type())
        .map_err(|_| format!("{} is not a ranked tensor", x.r#type()))?;
    let a = axes(cx, &[kept.len() as i64])?;
    cx.build_value(
        coreai::SHRINK_DIMS,
        &[x, a],
        tensor_type(kept, ty.element()),
        &[],
    )
}

/// `x` (dims `d`) with a trailing unit dim.
fn add_last<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    d: &[i64],
) -> Result<Value<'c, 'a>, Decline> {
    if !d.contains(&DYNAMIC) {
        let mut to = d.to_vec();
        to.push(1);
        return reshape(cx, x, &to);
    }
    expand_dim(cx, x, d.len())
}
