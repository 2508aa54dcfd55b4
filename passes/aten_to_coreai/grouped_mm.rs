//! Grouped matrix products (Mixture-of-Experts expert dispatch) → coreai.
//!
//! transformers 5.x runs the experts of a MoE layer (`grouped_mm`, its
//! default experts implementation) as one grouped product over the routed
//! rows sorted by expert: `aten._grouped_mm` in bf16 and, in fp32 under
//! torch.export, its opaque custom op `transformers::grouped_mm_fallback`
//! (`transformers/integrations/moe.py`). Both take `x: [S, K]` (rows sorted
//! by expert), stacked weights `w: [E, K, N]` and `offs: [E]`, the
//! cumulative row counts: row `r` belongs to expert `i` when
//! `offs[i-1] <= r < offs[i]`, and rows at or past `offs[E-1]` belong to
//! none (the fallback leaves them zero, `_grouped_mm` uninitialized).
//!
//! ```text
//! y = grouped_mm(x, w, offs)
//!   → e      = #{i : offs[i] <= r} for each row r        (E: no expert)
//!     y      = (x[:, None, :] @ w[min(e, E-1)])[:, 0, :]  (gather + batch matmul)
//!     y[e == E] = 0
//! ```
//!
//! The expert of each row is counted, not searched, so repeated offsets
//! (experts with no rows) and a row count `S` known only at run time
//! (`coreai.range` to `S`) need nothing special. The gather and the batch
//! matmul are the form `externalize-composites` outlines as coreai-torch's
//! `gather_mm` composite (`lhs = x[:, None, :]`, `rhs = w`,
//! `rhs_indices = min(e, E-1)`); the mask stays outside it. Every row is
//! the dot products of its expert's matrix, as PyTorch's per-expert `mm`
//! computes them (in another summation order); no value is approximated.
//!
//! Declines: a 2-D × 2-D or 3-D × 2-D `_grouped_mm` (the jagged-K and
//! jagged-N forms), `bias`, an `out_dtype` other than the input's, a
//! dynamic expert count or feature size, float offsets.

use coreai_ir::emit::{batch_matmul, cast_to, float_scalar, int_scalar, int_vector, reshape};
use coreai_ir::emit::{predicate, select, unary};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::schema::{element_type, is_float, named_operand, shape_of, tensor_type, DYNAMIC};
use melior::ir::{operation::OperationLike, r#type::ShapedTypeLike, TypeLike, Value, ValueLike};

type Lowered<'c, 'a> = Result<Vec<Value<'c, 'a>>, Decline>;

pub static LOWERINGS: super::Family = &[("_grouped_mm.default", grouped_mm)];

/// Ops of other libraries than ATen, keyed by their qualified name.
pub static LIBRARY_LOWERINGS: super::Family = &[(
    "transformers::grouped_mm_fallback.default",
    grouped_mm_fallback,
)];

// transformers::grouped_mm_fallback.default(%x, %w, %offs)
//   → the grouped product of the module doc (rows past offs[E-1] zero)
fn grouped_mm_fallback<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let operand = |name: &str, index: usize| -> Result<Value<'c, 'a>, Decline> {
        match named_operand(cx, name)? {
            Some(v) => Ok(v),
            None if cx.op().attribute("operand_args").is_err() => cx.operand(index),
            None => Err(format!("grouped_mm_fallback has no '{name}' operand")),
        }
    };
    let (x, w, offs) = (
        operand("input", 0)?,
        operand("weight", 1)?,
        operand("offs", 2)?,
    );
    Ok(vec![grouped_rows(cx, x, w, offs)?])
}

// aten._grouped_mm.default(%x [S, K], %w [E, K, N], %offs [E]) → as above
// aten._grouped_mm.default(%a [E, M, K], %b [E, K, N])         → batch matmul
fn grouped_mm<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Lowered<'c, 'a> {
    let a = named_operand(cx, "self")?.map_or_else(|| cx.operand(0), Ok)?;
    let b = named_operand(cx, "mat2")?.map_or_else(|| cx.operand(1), Ok)?;
    if named_operand(cx, "bias")?.is_some() {
        return Err("_grouped_mm with a bias is not lowered (PyTorch's CPU kernel rejects it too); add the bias after the product".into());
    }
    let result = cx.result_tensor(0)?.element();
    if element_type(a)? != result || element_type(b)? != result {
        return Err(format!(
            "_grouped_mm from {} and {} to {result}: only an out_dtype equal to the operands' is lowered",
            a.r#type(),
            b.r#type()
        ));
    }
    let offs = named_operand(cx, "offs")?;
    match (shape_of(a)?.len(), shape_of(b)?.len(), offs) {
        (2, 3, Some(offs)) => Ok(vec![grouped_rows(cx, a, b, offs)?]),
        (3, 3, None) => Ok(vec![batch_matmul(cx, a, b)?]),
        (ra, rb, offs) => Err(format!(
            "_grouped_mm of a rank-{ra} and a rank-{rb} operand {} offsets is not lowered; lowered forms: [S, K] × [E, K, N] with offs, [E, M, K] × [E, K, N] without",
            if offs.is_some() { "with" } else { "without" }
        )),
    }
}

/// The static size of dim `d` of `v`, or a decline naming `what`.
fn static_dim(v: Value<'_, '_>, d: usize, what: &str) -> Result<i64, Decline> {
    match shape_of(v)?.get(d) {
        Some(&DYNAMIC) => Err(format!(
            "the {what} (dim {d} of {}) is dynamic; grouped matmul needs it static",
            v.r#type()
        )),
        Some(&n) => Ok(n),
        None => Err(format!("{} has no dim {d}", v.r#type())),
    }
}

/// `x: [S, K]` times the expert of each row among `w: [E, K, N]` given the
/// cumulative row counts `offs: [E]`, rows past `offs[E-1]` zero (module
/// doc).
fn grouped_rows<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    x: Value<'c, 'a>,
    w: Value<'c, 'a>,
    offs: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, Decline> {
    let (sx, sw, so) = (shape_of(x)?, shape_of(w)?, shape_of(offs)?);
    if sx.len() != 2 || sw.len() != 3 || so.len() != 1 {
        return Err(format!(
            "grouped matmul takes x [S, K], w [E, K, N] and offs [E], not {}, {} and {}",
            x.r#type(),
            w.r#type(),
            offs.r#type()
        ));
    }
    let (e, k, n) = (
        static_dim(w, 0, "expert count")?,
        static_dim(w, 1, "input size")?,
        static_dim(w, 2, "output size")?,
    );
    if static_dim(x, 1, "input size")? != k || static_dim(offs, 0, "expert count")? != e {
        return Err(format!(
            "grouped matmul shapes do not agree: x {}, w {}, offs {}",
            x.r#type(),
            w.r#type(),
            offs.r#type()
        ));
    }
    let element = element_type(x)?;
    if element != element_type(w)? || !is_float(element) {
        return Err(format!(
            "grouped matmul of {} and {}: both must be the same float type",
            x.r#type(),
            w.r#type()
        ));
    }
    let offset_type = element_type(offs)?;
    if !offset_type.is_integer() || coreai_ir::schema::is_bool(offset_type) {
        return Err(format!(
            "offs must be an integer tensor, got {}",
            offs.r#type()
        ));
    }
    let s = sx[0];
    // Row positions r as [S, 1], in the offsets' type.
    let rows = if s == DYNAMIC {
        let (zero, one) = (int_scalar(cx, 0, "si32")?, int_scalar(cx, 1, "si32")?);
        let end = coreai_ir::emit::dim_scalar(cx, x, 0, "si32")?;
        let ty = tensor_type(&[DYNAMIC], cx.parse_type("si32")?);
        cx.build_value(coreai::RANGE, &[zero, end, one], ty, &[])?
    } else {
        int_vector(cx, &(0..s).collect::<Vec<_>>(), "si32")?
    };
    let rows = reshape(cx, cast_to(cx, rows, offset_type)?, &[s, 1])?;
    let offs = reshape(cx, offs, &[1, e])?;
    // e(r) = #{i : offs[i] <= r} = #{i : !(offs[i] > r)}.
    let at_or_before = unary(cx, coreai::NOT, predicate(cx, coreai::GREATER, offs, rows)?)?;
    let si32 = cx.parse_type("si32")?;
    let counted = cast_to(cx, at_or_before, si32)?;
    let axis = int_vector(cx, &[1], "si32")?;
    let expert = cx.build_value(
        coreai::REDUCE_SUM,
        &[counted, axis],
        tensor_type(&[s, 1], si32),
        &[],
    )?;
    let last = int_scalar(cx, e - 1, "si32")?;
    let clamped = coreai_ir::emit::arith(cx, coreai::MINIMUM, expert, last)?;
    // The gather_mm form: w[idx] with idx [S], x as [S, 1, K].
    let idx = reshape(cx, reshape(cx, clamped, &[s])?, &[s, 1])?;
    let gathered = cx.build_value(
        coreai::GATHER_ND,
        &[w, idx],
        tensor_type(&[s, k, n], element),
        &[],
    )?;
    let lhs = reshape(cx, x, &[s, 1, k])?;
    let product = reshape(cx, batch_matmul(cx, lhs, gathered)?, &[s, n])?;
    // Rows past offs[E-1] (e = E) are zero.
    let has_expert = predicate(cx, coreai::GREATER, int_scalar(cx, e, "si32")?, expert)?;
    select(cx, has_expert, product, float_scalar(cx, 0.0, element)?)
}
