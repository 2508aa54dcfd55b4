//! Rank reduction: the Neural Engine takes tensors of rank ≤ 5
//! ("rank-6+ intermediates are rejected"), and window partitions (Swin's
//! `view(B, H/w, w, W/w, w, C).permute(0, 1, 3, 2, 4, 5)`) transpose rank-6
//! tensors. A transpose only reorders groups of input dims; dims that stay
//! next to each other, in the same order, are one dim for it.

use crate::ane_residency::MAX_RANK;
use coreai_ir::emit::{reshape, transpose};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::raw;
use coreai_ir::schema::shape_of;
use melior::ir::{Value, ValueLike};

/// The runs of a permutation: maximal sequences of output positions whose
/// input dims are consecutive and ascending (`[0, 1, 3, 2, 4, 5]` →
/// `[[0, 1], [3], [2], [4, 5]]`), unit dims dropped (a dim of size 1 moves
/// nowhere: it joins any run).
fn runs(perm: &[usize], dims: &[i64]) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for &p in perm.iter().filter(|&&p| dims[p] != 1) {
        match runs.last_mut() {
            Some(run) if run.last().and_then(|&d| next_kept(d, dims)) == Some(p) => run.push(p),
            _ => runs.push(vec![p]),
        }
    }
    runs
}

/// The first input dim after `d` that is not a unit dim.
fn next_kept(d: usize, dims: &[i64]) -> Option<usize> {
    (d + 1..dims.len()).find(|&i| dims[i] != 1)
}

// transpose(x : d0×…×d(n-1), perm)                  (rank n > 5)
//   → reshape(transpose(reshape(x) : g0×…×g(k-1), perm') : perm's shape)
// with the input dims grouped into the permutation's runs (dims kept next
// to each other in order, unit dims dropped), g_i the product of group i,
// and perm' the runs' order. Exact: both sides move every element to the
// same place (a row-major reshape does not move elements, and inside a run
// the dims keep their order). Declines: rank ≤ 5, a dynamic dim, a
// non-constant permutation, or runs that still leave more than 5 groups.
pub fn reduce_transpose<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let x = cx.operand(0)?;
    let dims = shape_of(x)?;
    if dims.len() <= MAX_RANK {
        return Err(format!(
            "rank {} (the Neural Engine takes up to {MAX_RANK})",
            dims.len()
        ));
    }
    if dims.iter().any(|&d| d < 0) {
        return Err("a dynamic dim".into());
    }
    let perm: Vec<usize> = raw::constant_ints(cx.operand(1)?.to_raw())
        .ok_or("the permutation is not a constant")?
        .into_iter()
        .map(|p| usize::try_from(p).map_err(|_| format!("permutation entry {p}")))
        .collect::<Result<_, _>>()?;
    let runs = runs(&perm, &dims);
    let out: Vec<i64> = perm.iter().map(|&p| dims[p]).collect();
    if runs.is_empty() {
        // Every dim is a unit dim: the transpose moves nothing.
        return Ok(vec![reshape(cx, x, &out)?]);
    }
    if runs.len() > MAX_RANK {
        return Err(format!(
            "the permutation {perm:?} moves {} groups of dims (at most {MAX_RANK} fit)",
            runs.len()
        ));
    }
    // The groups in input order, and where each run goes.
    let mut by_input: Vec<usize> = (0..runs.len()).collect();
    by_input.sort_by_key(|&r| runs[r][0]);
    let grouped: Vec<i64> = by_input
        .iter()
        .map(|&r| runs[r].iter().map(|&d| dims[d]).product())
        .collect();
    let reduced_perm: Vec<usize> = (0..runs.len())
        .map(|r| by_input.iter().position(|&g| g == r).unwrap_or(r))
        .collect();
    let moved = transpose(cx, reshape(cx, x, &grouped)?, &reduced_perm)?;
    Ok(vec![reshape(cx, moved, &out)?])
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn window_partition_runs() {
        // Swin: (B, H/w, w, W/w, w, C).permute(0, 1, 3, 2, 4, 5).
        let dims = [2, 2, 4, 2, 4, 16];
        assert_eq!(
            runs(&[0, 1, 3, 2, 4, 5], &dims),
            vec![vec![0, 1], vec![3], vec![2], vec![4, 5]]
        );
        // Unit dims join any run: B = 1 and H/w = 1.
        let dims = [1, 1, 4, 1, 4, 32];
        assert_eq!(runs(&[0, 1, 3, 2, 4, 5], &dims), vec![vec![2, 4, 5]]);
        // A full reversal keeps every dim apart.
        let dims = [2, 3, 4, 5, 6, 7];
        assert_eq!(runs(&[5, 4, 3, 2, 1, 0], &dims).len(), 6);
    }
}
