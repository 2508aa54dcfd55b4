//! Layouts the Neural Engine wants: matrix products on rank-4 operands
//! (conversion guide §9.5) and embedding tables in the `(V, 1, D)` form
//! (§8.6). Both rewrites only insert reshapes that add or drop unit dims,
//! so every value is unchanged, bit for bit.

use crate::emit::reshape;
use crate::lowering::{Decline, LoweringCx};
use crate::passes::fp16_stabilize::pattern::{defined_by, op_name};
use crate::schema::{element_type, shape_of, tensor_type, type_dims, DYNAMIC};
use melior::ir::{r#type::ShapedTypeLike, Value};

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
// constant. Declines: a table that is not a rank-2 constant, an index that
// does not select whole rows (last dim ≠ 1), dynamic dims.
pub fn embedding_v1d<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let (table, idx) = (cx.operand(0)?, cx.operand(1)?);
    let st = shape_of(table)?;
    if st.len() != 2 {
        return Err(format!("the table has rank {}, not 2", st.len()));
    }
    if defined_by(table, "constant").is_none() {
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
    let table3 = reshape(cx, table, &[st[0], 1, st[1]])?;
    let mut rows = si[..si.len() - 1].to_vec();
    rows.extend([1, st[1]]);
    let ty = tensor_type(&rows, element_type(table)?);
    let g = cx.build_value("coreai.gather_nd", &[table3, idx], ty, &[])?;
    Ok(vec![reshape(cx, g, &result)?])
}
