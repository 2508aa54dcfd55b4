//! Layouts the Neural Engine wants: matrix products on rank-4 operands
//! (conversion guide §9.5) and embedding tables in the `(V, 1, D)` form
//! (§8.6). Both rewrites only insert reshapes that add or drop unit dims,
//! so every value is unchanged, bit for bit.

use crate::core_optimize::RESHAPES;
use crate::fp16_stabilize::pattern::{defined_by, op_name, producer, use_count};
use coreai_ir::emit::reshape;
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::schema::{element_type, shape_of, tensor_type, type_dims, uses, DYNAMIC};
use melior::ir::{
    operation::{OperationLike, OperationRef},
    r#type::ShapedTypeLike,
    Value, ValueLike,
};

/// The rank the Neural Engine's matrix products take (BC1S: 1×1×M×N).
const ANE_RANK: usize = 4;

/// `v` reshaped to rank `rank` by leading unit dims (at most one dynamic
/// dim, which the reshape infers).
fn lift<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    v: Value<'c, 'a>,
    rank: usize,
) -> Result<Value<'c, 'a>, Decline> {
    let dims = shape_of(v)?;
    let mut to = vec![1; rank - dims.len()];
    to.extend(&dims);
    reshape(cx, v, &to)
}

// broadcasting_batch_matmul(%a : M×K, %b : K×N)         (an operand of rank 2)
//   → reshape(broadcasting_batch_matmul(reshape(a) : 1×1×M×K,
//                                       reshape(b) : 1×1×K×N) : 1×1×M×N) : M×N
// Every operand of rank below 4 gets leading unit dims (a rank-3
// `B×M×K` becomes `1×B×M×K`), which leaves the broadcast of the batch dims
// and every product unchanged; the result is reshaped back. The reporter's
// fix for the matmul-feeding-Hardswish divergence on the Neural Engine
// (§9.5: "Transforming the 2D matrix into a 4D matrix (1 x 1 x m x n)
// avoids the issue on the NPU"). Declines: no operand of rank 2, an
// operand of rank 1 or above 4, a shape with more than one dynamic dim
// (a batch dim alone is inferred by the reshapes).
pub fn matmul_rank4<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let (a, b) = (cx.operand(0)?, cx.operand(1)?);
    let (sa, sb) = (shape_of(a)?, shape_of(b)?);
    if sa.len() != 2 && sb.len() != 2 {
        return Err("no operand has rank 2".into());
    }
    if [&sa, &sb].iter().any(|s| s.len() < 2 || s.len() > ANE_RANK) {
        return Err(format!(
            "operand ranks {} and {}: only ranks 2 to 4 are lifted",
            sa.len(),
            sb.len()
        ));
    }
    let result = type_dims(cx.result_type(0)?)?;
    let dynamic = |s: &[i64]| s.iter().filter(|&&d| d == DYNAMIC).count();
    if [&sa, &sb, &result].iter().any(|s| dynamic(s) > 1) {
        return Err("more than one dynamic dim in a shape (a reshape infers one)".into());
    }
    let a4 = lift(cx, a, ANE_RANK)?;
    let b4 = lift(cx, b, ANE_RANK)?;
    let mut product = vec![1; ANE_RANK - result.len()];
    product.extend(&result);
    let element = cx.result_tensor(0)?.element();
    let p = cx.build_value(
        &op_name(&cx.op()),
        &[a4, b4],
        tensor_type(&product, element),
        &[],
    )?;
    Ok(vec![reshape(cx, p, &result)?])
}

// gather_nd(%table : V×D (a constant), %idx : …×1)
//   → reshape(gather_nd(reshape(table) : V×1×D, idx) : …×1×D) : …×D
// The Neural Engine's embedding tables are `(vocab_size, 1, hidden_size)`
// "to maintain BC1S-compatible output" (§8.6, Apple's
// neural_engine_rules.md); core-optimize folds the table's reshape into the
// constant. Declines: see [`embedding_rows`].
pub fn embedding_v1d<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let rows = embedding_rows(cx)?;
    let table = rows.table_v1d(cx)?;
    let g = cx.build_value(coreai::GATHER_ND, &[table, rows.idx], rows.gathered, &[])?;
    Ok(vec![reshape(cx, g, &rows.result)?])
}

/// A `gather_nd` of whole rows of a rank-2 constant table (an embedding),
/// all shapes static.
pub struct EmbeddingRows<'c, 'a> {
    pub table: Value<'c, 'a>,
    pub idx: Value<'c, 'a>,
    /// The table's rows (V) and columns (D).
    pub vocab: i64,
    pub hidden: i64,
    /// The type of the rows gathered from the `(V, 1, D)` table: `…×1×D`.
    pub gathered: melior::ir::Type<'c>,
    /// The op's result shape: `…×D`.
    pub result: Vec<i64>,
}

impl<'c, 'a> EmbeddingRows<'c, 'a> {
    /// The table reshaped to `(V, 1, D)`.
    pub fn table_v1d(&self, cx: &LoweringCx<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
        reshape(cx, self.table, &[self.vocab, 1, self.hidden])
    }
}

/// The embedding read by the `gather_nd` of `cx`. Declines: a table that
/// is not a rank-2 constant, an index that does not select whole rows
/// (last dim ≠ 1), dynamic dims.
pub fn embedding_rows<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<EmbeddingRows<'c, 'a>, Decline> {
    let (table, idx) = (cx.operand(0)?, cx.operand(1)?);
    let st = shape_of(table)?;
    if st.len() != 2 {
        return Err(format!("the table has rank {}, not 2", st.len()));
    }
    if defined_by(table, coreai::CONSTANT).is_none() {
        return Err("the table is not a constant (an embedding weight)".into());
    }
    let si = shape_of(idx)?;
    if si.last() != Some(&1) {
        return Err("the index does not select whole rows (its last dim is not 1)".into());
    }
    let result = type_dims(cx.result_type(0)?)?;
    if st.iter().chain(&si).chain(&result).any(|&d| d == DYNAMIC) {
        return Err("a dynamic dim".into());
    }
    let mut rows = si[..si.len() - 1].to_vec();
    rows.extend([1, st[1]]);
    Ok(EmbeddingRows {
        table,
        idx,
        vocab: st[0],
        hidden: st[1],
        gathered: tensor_type(&rows, element_type(table)?),
        result,
    })
}

/// Elementwise ops whose operands all have the result's shape
/// (`SameOperandsAndResultShape` in the dialect): `rank4-chain` moves one
/// into rank 4 only when every operand comes from rank 4.
pub const SAME_SHAPE_ELEMENTWISE: &[&str] = &[
    coreai::ABS,
    coreai::ACOS,
    coreai::ACOSH,
    coreai::ASIN,
    coreai::ASINH,
    coreai::ATAN,
    coreai::ATANH,
    coreai::COS,
    coreai::COSH,
    coreai::ERF,
    coreai::EXP,
    coreai::LOG,
    coreai::ROUND,
    coreai::RSQRT,
    coreai::SIN,
    coreai::SINH,
    coreai::SQRT,
    coreai::TAN,
    coreai::TANH,
    coreai::NOT,
    coreai::ADD,
    coreai::AND,
    coreai::BITWISE_AND,
    coreai::BITWISE_OR,
    coreai::BITWISE_XOR,
    coreai::DIVIDE,
    coreai::FLOOR_DIVIDE,
    coreai::MAXIMUM,
    coreai::MINIMUM,
    coreai::MODULO,
    coreai::MUL,
    coreai::OR,
    coreai::POW,
    coreai::SUB,
    coreai::XOR,
    coreai::EQUAL,
    coreai::NOT_EQUAL,
    coreai::GREATER,
    coreai::CAST,
    coreai::RELU,
    coreai::SIGMOID,
    coreai::SILU,
    coreai::GELU,
];

/// Elementwise ops that broadcast their operands (trailing dims aligned):
/// an operand of lower rank may stay as it is.
pub const BROADCASTING_ELEMENTWISE: &[&str] = &[
    coreai::DECOMPOSABLE_BROADCASTING_ADD,
    coreai::DECOMPOSABLE_BROADCASTING_AND,
    coreai::DECOMPOSABLE_BROADCASTING_BITWISE_AND,
    coreai::DECOMPOSABLE_BROADCASTING_BITWISE_OR,
    coreai::DECOMPOSABLE_BROADCASTING_BITWISE_XOR,
    coreai::DECOMPOSABLE_BROADCASTING_DIVIDE,
    coreai::DECOMPOSABLE_BROADCASTING_EQUAL,
    coreai::DECOMPOSABLE_BROADCASTING_FLOOR_DIVIDE,
    coreai::DECOMPOSABLE_BROADCASTING_GREATER,
    coreai::DECOMPOSABLE_BROADCASTING_MAXIMUM,
    coreai::DECOMPOSABLE_BROADCASTING_MINIMUM,
    coreai::DECOMPOSABLE_BROADCASTING_MODULO,
    coreai::DECOMPOSABLE_BROADCASTING_MUL,
    coreai::DECOMPOSABLE_BROADCASTING_NOT_EQUAL,
    coreai::DECOMPOSABLE_BROADCASTING_OR,
    coreai::DECOMPOSABLE_BROADCASTING_POW,
    coreai::DECOMPOSABLE_BROADCASTING_SUB,
    coreai::DECOMPOSABLE_BROADCASTING_XOR,
    coreai::DECOMPOSABLE_BROADCASTING_WHERE,
];

/// `x` when `v` is `x : 1…1×S` (rank 4) reshaped to `S` (leading unit dims
/// dropped, at most one dynamic dim).
fn rank4_value<'c: 'a, 'a>(v: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
    let reshape = producer(v)?;
    if !RESHAPES.contains(&op_name(&reshape).as_str()) {
        return None;
    }
    let x = reshape.operand(0).ok()?;
    let (sx, sv) = (shape_of(x).ok()?, shape_of(v).ok()?);
    let lead = ANE_RANK.checked_sub(sv.len())?;
    let drops_leading_ones = sx.len() == ANE_RANK
        && lead > 0
        && sx[..lead].iter().all(|&d| d == 1)
        && sx[lead..] == sv[..];
    let dynamic = sv.iter().filter(|&&d| d == DYNAMIC).count();
    (drops_leading_ones && dynamic <= 1).then_some(x)
}

/// Whether `op` is a widening cast (to f32), whose layout ops stay on its
/// f16 side (`layout-in-f16`).
pub(super) fn widening_cast(op: &OperationRef<'_, '_>) -> bool {
    op_name(op) == coreai::CAST
        && op.result(0).is_ok_and(|r| {
            melior::ir::r#type::RankedTensorType::try_from(r.r#type())
                .is_ok_and(|t| melior::ir::TypeLike::is_f32(&t.element()))
        })
}

/// Whether `op` is elementwise (either list).
pub(super) fn elementwise(op: &OperationRef<'_, '_>) -> bool {
    let name = op_name(op);
    SAME_SHAPE_ELEMENTWISE.contains(&name.as_str())
        || BROADCASTING_ELEMENTWISE.contains(&name.as_str())
}

/// Whether every op that reads `v`, dead ones aside, `moves` past the
/// layout op that defines `v`: once each has, that op is dead, so moving
/// one of them adds no layout op.
pub(super) fn all_users_move(
    v: Value<'_, '_>,
    moves: impl Fn(&OperationRef<'_, '_>) -> bool,
) -> bool {
    uses(v).iter().all(|(op, _)| dead(op) || moves(op))
}

/// Whether `op` has results and none is read: left dead by an earlier
/// rewrite of the same pass (canonicalize erases it after).
pub(super) fn dead(op: &OperationRef<'_, '_>) -> bool {
    op.result_count() > 0
        && (0..op.result_count()).all(|i| op.result(i).is_ok_and(|r| use_count(r.into()) == 0))
}

/// Whether `rank4-chain` moves `op` (its declines, but for the one on
/// layout ops with other users).
fn rank4_moves(op: &OperationRef<'_, '_>) -> bool {
    if !elementwise(op) || widening_cast(op) || op.result_count() != 1 {
        return false;
    }
    let rank = op
        .result(0)
        .ok()
        .and_then(|r| shape_of(r.into()).ok())
        .map_or(ANE_RANK, |d| d.len());
    let broadcasting = BROADCASTING_ELEMENTWISE.contains(&op_name(op).as_str());
    rank < ANE_RANK
        && (broadcasting
            || (0..op.operand_count()).all(|i| op.operand(i).ok().and_then(rank4_value).is_some()))
}

// op(reshape(x : 1×1×M×N) : M×N, y)  → reshape(op(x, y) : 1×1×M×N) : M×N
// An elementwise op on a rank-4 value reshaped down (what `matmul-rank4`
// leaves after each product) runs at rank 4 and its result is reshaped
// down instead: the reshape moves past the op, so a chain of products and
// elementwise ops stays at rank 4 (the BC1S orientation the Neural Engine
// is built around, guide §8.6, §9.5) and the next product's lift meets the
// reshape down, which core-optimize folds away. Exact: the same elements
// meet the same elements (broadcasting aligns trailing dims, so leading
// unit dims change no pairing). Other operands of a broadcasting op stay
// as they are (their rank is at most the result's); an op whose operands
// must share its shape needs every operand from rank 4. Declines: a
// result of rank 4 or more, no operand from rank 4, reshapes also read by
// an op this rewrite does not move (the move would add a reshape, not
// remove one; a reshape read only by ops it moves dies once all have
// moved), more than one dynamic dim.
pub fn rank4_chain<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let op = cx.op();
    let name = op_name(&op);
    if op.result_count() != 1 {
        return Err("not one result".into());
    }
    if widening_cast(&op) {
        return Err("a widening cast: the reshape stays on its f16 side (layout-in-f16)".into());
    }
    let result = type_dims(cx.result_type(0)?)?;
    if result.len() >= ANE_RANK {
        return Err(format!("the result has rank {}", result.len()));
    }
    if result.iter().filter(|&&d| d == DYNAMIC).count() > 1 {
        return Err("more than one dynamic dim in the result (a reshape infers one)".into());
    }
    let broadcasting = BROADCASTING_ELEMENTWISE.contains(&name.as_str());
    let (mut operands, mut from_rank4, mut removes) = (Vec::new(), false, false);
    for i in 0..op.operand_count() {
        let v = cx.operand(i)?;
        match rank4_value(v) {
            Some(x) => {
                operands.push(x);
                from_rank4 = true;
                removes |= all_users_move(v, rank4_moves);
            }
            None if broadcasting => operands.push(v),
            None => return Err(format!("operand #{i} is not a rank-4 value reshaped down")),
        }
    }
    if !from_rank4 {
        return Err("no operand is a rank-4 value reshaped down".into());
    }
    if !removes {
        return Err("every reshape is also read by an op rank4-chain does not move: moving this one would add a reshape".into());
    }
    let mut lifted = vec![1; ANE_RANK - result.len()];
    lifted.extend(&result);
    let element = cx.result_tensor(0)?.element();
    let p = cx.rebuild(&operands, tensor_type(&lifted, element))?;
    Ok(vec![reshape(cx, p, &result)?])
}
