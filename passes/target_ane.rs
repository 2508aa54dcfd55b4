//! `target-ane`: coreai → coreai. The layouts the Neural Engine wants,
//! each an exact rewrite (only reshapes adding or dropping unit dims), from
//! the conversion guide (one family file, `target_ane/layout.rs`):
//!   - `matmul-rank4`: a `broadcasting_batch_matmul`/`batch_matmul` with a
//!     rank-2 operand takes its operands at rank 4 (`1×1×M×N`), the result
//!     reshaped back (§9.5: the reporter's fix for the matmul-feeding-
//!     Hardswish divergence on the Neural Engine in fp16);
//!   - `embedding-iosurface` (`target_ane/iosurface.rs`): a `gather_nd` of
//!     whole rows of a rank-2 constant table whose row count is a multiple
//!     of 8 passes the table, as `(V, 1, D)`, to a private `noinline` graph
//!     whose parameter carries Apple's embedding configuration (§7.7:
//!     IOSurface, `alignments [1,1,1,1]`, `interleave [8,1,1]`, the form
//!     Apple's own lowering emits), which gathers the rows;
//!   - `embedding-v1d`: the other such gathers read the table as
//!     `(V, 1, D)` inline (§8.6, Apple's Neural Engine embeddings "use
//!     shape (vocab_size, 1, hidden_size) to maintain BC1S-compatible
//!     output"), the rows reshaped back;
//!   - `rank4-chain`: an elementwise op on a rank-4 value reshaped down
//!     (what `matmul-rank4` leaves) runs at rank 4 and the reshape moves
//!     past it, so products and the elementwise ops between them stay at
//!     rank 4; core-optimize folds the reshape down into the next
//!     product's lift.
//!
//!   - `attention-inline` (`target_ane/attention.rs`): a call of a
//!     `scaled_dot_product_attention` composite becomes the composite's
//!     body in place (there is no fused attention on the Neural Engine;
//!     the body's ops run there), exact.
//!   - `rope-inline` (`target_ane/attention.rs`, in the same first
//!     sweep): a call of a `rope` composite becomes its body in place
//!     (Apple's Neural Engine models write RoPE as plain ops), so it runs
//!     in the layout of the queries and keys around it. Exact.
//!   - `mask-additive` (`target_ane/masks.rs`): a select of scores and
//!     -inf (or the lowest finite value) on a constant boolean mask becomes
//!     the scores plus a constant additive mask of 0 and the lowest finite
//!     value (Apple's Neural Engine mask form), declined where a row hides
//!     every key; exact through a softmax for every score in range.
//!   - `rank-reduce` (`target_ane/rank.rs`): a transpose of rank above 5
//!     (Swin's window partitions) runs on its input reshaped to the groups
//!     of dims the permutation keeps together, in order (unit dims
//!     dropped), and the result is reshaped back; `core-optimize` merges
//!     the reshapes with the ones around, so no rank-6 value is left.
//!     Exact (only reshapes and the same permutation of the groups).
//!   - `argsort-ranks` (`target_ane/ranks.rs`): an `argsort` of a softmax
//!     along the sorted axis of at most 256 elements (a mixture-of-experts
//!     router's top-k) becomes counts in the float type: each element's
//!     place in the stable order is the number of elements before it,
//!     found by differences and clamps, and the indices, gathered from the
//!     places by a one-hot sum, are cast to si16 (the argsort's si32
//!     result leaves the Neural Engine). Exact for finite values; a
//!     softmax row is finite or all NaN, and a NaN row's indices are
//!     clamped into range.
//!   - `linear-conv1x1` (`target_ane/bc1s.rs`): a product by a constant
//!     `K×N` weight (a linear layer) becomes a 1×1 `conv2d` of the
//!     activation in BC1S (`B×K×1×S`) by the weight as `N×K×1×1`, between
//!     transposes to and from BC1S (Apple's Neural Engine rules: "Conv2d
//!     instead of Linear", "Transpose bookkeeping around Conv2d"); the same
//!     products summed over the same `K`. Before `matmul-rank4`, which
//!     keeps the products without a constant weight (attention's).
//!   - `transpose-sink` (`target_ane/bc1s.rs`, in sweeps after the main
//!     one, to a fixed point): an elementwise op on operands transposed by
//!     one permutation (or constants) runs before the transpose, so the
//!     activations between projections stay in BC1S and the transposes
//!     that meet compose away in `core-optimize`. Exact.
//!   - `transpose-pair` (`target_ane/bc1s.rs`, in the same sweeps): two
//!     transposes around a reshape become one (the reshape moved below
//!     the first or above the second, where it splits or merges only
//!     dims that stay adjacent): a projection's head split is Apple's
//!     `bc1s_to_gpu`, a head merge `gpu_to_bc1s`. Exact.
//!   - `bc1s-stream` (`target_ane/stream.rs`, after those sweeps, then
//!     the sweeps again): the values between the linear layers (a
//!     transformer's residual stream and its `rms_norm`/`layer_norm`
//!     composites) move to BC1S as a whole component when that removes
//!     more transposes into and out of BC1S than it adds at the values
//!     entering and leaving it; the norms are called as their BC1S forms
//!     (`axes = 1`, weights `(1, D, 1, 1)`, Apple's Neural Engine RMSNorm).
//!     Decided over the whole graph, which no rewrite of one op can do.
//!     Exact.
//!   - `kv-bc1s` (`target_ane/stream.rs`, after `bc1s-stream`, the same
//!     decision): attention's keys and values stay in the cache's
//!     `(B, H, D, S)` order (concatenations, slices, broadcasts and
//!     products swapped, `(AB)ᵀ = BᵀAᵀ`, softmax over the other axis) when
//!     that removes more transposes than it adds: a decode step reads its
//!     cache without a transpose, and attention runs in Apple's Neural
//!     Engine layout (scores `(B, H, S_k, S_q)`).
//!     Exact.
//!   - `transpose-unit-dims` (`target_ane/bc1s.rs`, in the same sweeps): a
//!     transpose that moves only unit dims (one token's head split or
//!     merge) is a reshape. Exact.
//!   - `matmul-per-head` (`target_ane/heads.rs`): a product of two
//!     activations over `H` heads (`1×H×M×K`, attention's scores and
//!     values) is `H` products of one head, concatenated (Apple's
//!     Neural Engine SDPA computes each head individually). Exact.
//!   - `stride-space-to-depth` (`target_ane/strides.rs`): a `conv2d`
//!     stride with a prime factor other than 2 and 3 (wav2vec2's stride-5
//!     feature encoder) whose kernel it divides becomes stride 1: input
//!     and kernel split along the axis into phases moved next to the
//!     channels (space to depth), the same products summed in another
//!     order.
//!   - `layout-in-f16` (`target_ane/casts.rs`): a reshape, transpose,
//!     expand_dims or shrink_dims next to an f16 ↔ f32 cast moves to the
//!     cast's f16 side (`L(cast(x)) = cast(L(x))`, exact), so at an f32
//!     input or output only the cast leaves the Neural Engine.
//!
//! Declines (with reasons, kept by the rewrite driver): no rank-2 operand,
//! operands of rank 1 or above 4, shapes with more than one dynamic dim, tables that are not
//! rank-2 constants, indices that do not select whole rows; for
//! `embedding-iosurface`, a row count that is not a multiple of 8; for
//! `rank4-chain`, no operand from rank 4, or reshapes also read by ops it
//! does not move.
//!
//! Not done here: f16 compute is `cast-to-f16`'s (which `coreai-compile
//! --target ane` runs first, with its fp32 islands); Apple's other
//! configuration (§7.7, IOSurface `alignments [1,1,32,1]` on the cos/sin
//! rows its RoPE lowering gathers from cached tables) is not attached: the
//! pipeline's RoPE takes computed cos/sin, and no cached-table gather is
//! told apart from an embedding. Values other than Apple's two are never
//! attached (their semantics are unverified).
//!
//! `remarks=true` prints one line per rewrite to stderr:
//! `target-ane: <location>: '<op>' <pattern>: <reason>`, then one line per
//! embedding left without the IOSurface configuration:
//! `target-ane: <location>: embedding-iosurface declined: the table has 12
//! rows, not a multiple of 8 (...)`.
//!
//! Preconditions: verified coreai IR. Runs on any op and rewrites the ops
//! nested in it, through the rewrite driver (`max-rewrites`,
//! `trace-rewrites`): a sweep in program order that inlines attention, the
//! main sweep, then `transpose-sink` sweeps until one rewrites nothing,
//! `bc1s-stream` and `kv-bc1s` (one rewrite per component), each followed
//! by the sweeps again. Interactions: followed by
//! `canonicalize,cse,core-optimize` in `coreai-compile --target ane`, which
//! fold the reshapes of constant weights and tables into the constants and
//! merge reshape chains.

mod attention;
mod bc1s;
mod casts;
mod heads;
mod iosurface;
mod layout;
mod masks;
mod rank;
mod ranks;
mod stream;
mod strides;

use coreai_ir::op::coreai;
use coreai_ir::{
    pass::PassInfo,
    rewrite::{ExplainedPass, ExplainedPattern, GlobalRewrite, Rewriter},
};

/// With `remarks`: the embeddings left without Apple's IOSurface
/// configuration because 8 does not divide their row count (the other
/// declines of `embedding-iosurface` are gathers that are no embedding).
fn print_embedding_declines(pass: &str, rewriter: &Rewriter) {
    for declined in rewriter.declines() {
        if declined.pattern == "embedding-iosurface"
            && declined.reason.starts_with(iosurface::ROWS_NOT_INTERLEAVED)
        {
            let location = coreai_ir::raw::location_string(declined.location);
            eprintln!(
                "{pass}: {location}: {} declined: {}",
                declined.pattern, declined.reason
            );
        }
    }
}

const LAYOUT_REASON: &str = "data movement next to an f16/f32 cast runs in f32 off the Neural Engine (Apple's Neural Engine rules: f16, int8 and int16 only); moved to the cast's f16 side";

const MATMUL_REASON: &str = "2-D matmul operands diverge on the Neural Engine in fp16 (guide §9.5); operands lifted to rank 4 (1×1×M×N)";

const CHAIN_REASON: &str = "a chain of matrix products and elementwise ops stays at rank 4, the Neural Engine's BC1S orientation (guide §8.6, §9.5); the reshape down moves past the op";

/// The rewrites, each with the reason `remarks` gives.
/// The first sweep: attention bodies inlined, so that the main sweep
/// rewrites their ops (their masks, their products) like any other.
static INLINE: &[ExplainedPattern] = &[
    ExplainedPattern {
        name: "attention-inline",
        roots: &[coreai::INVOKE],
        rewrite: attention::inline_attention,
        reason: "the Neural Engine has no fused attention (Apple's Neural Engine rules: no fused SDPA path); the composite's body, whose products and softmax run there, in place of the call",
    },
    ExplainedPattern {
        name: "rope-inline",
        roots: &[coreai::INVOKE],
        rewrite: attention::inline_rope,
        reason: "Apple's Neural Engine models write RoPE as plain ops (x*cos + rotate_half(x)*sin); the composite's body in place of the call, so it runs in the layout of the keys and queries around it, exact",
    },
];

/// The sweeps after the main one, to a fixed point: the BC1S layout carried
/// through the elementwise ops between projections.
static SINK: &[ExplainedPattern] = &[
    ExplainedPattern {
        name: "transpose-unit-dims",
        roots: &[coreai::TRANSPOSE],
        rewrite: bc1s::transpose_unit_dims,
        reason: "a transpose that moves only unit dims keeps the elements in order (Apple's Neural Engine rules: avoid unnecessary memory copies); it is a reshape, exact",
    },
    ExplainedPattern {
        name: "transpose-pair",
        roots: &[coreai::TRANSPOSE],
        rewrite: bc1s::transpose_pair,
        reason: "a transpose to or from BC1S and a head transpose around a reshape become one transpose (Apple's gpu_to_bc1s and bc1s_to_gpu forms; avoid unnecessary memory copies), exact",
    },
    ExplainedPattern {
        name: "transpose-sink",
        roots: layout::SAME_SHAPE_ELEMENTWISE,
        rewrite: bc1s::transpose_sink,
        reason: SINK_REASON,
    },
    ExplainedPattern {
        name: "transpose-sink",
        roots: layout::BROADCASTING_ELEMENTWISE,
        rewrite: bc1s::transpose_sink,
        reason: SINK_REASON,
    },
];

const SINK_REASON: &str = "activations between projections stay in BC1S (Apple's Neural Engine rules: avoid unnecessary transposes); the elementwise op runs on the untransposed operands and one transpose follows it, exact";

/// The main sweep.
static PATTERNS: &[ExplainedPattern] = &[
    ExplainedPattern {
        name: "mask-additive",
        roots: &[coreai::DECOMPOSABLE_BROADCASTING_WHERE],
        rewrite: masks::additive_mask,
        reason: "a boolean mask is a tensor the Neural Engine cannot hold (Apple's Neural Engine rules: f16, int8 and int16; an additive mask with a large finite negative, not -inf); the select on a constant mask becomes the scores plus a constant of 0 and the lowest finite value",
    },
    ExplainedPattern {
        name: "argsort-ranks",
        roots: &[coreai::ARGSORT],
        rewrite: ranks::argsort_ranks,
        reason: "an argsort's indices are si32, a type the Neural Engine cannot hold (Apple's Neural Engine rules: f16, int8 and int16 only); over a short axis of softmax values (a mixture-of-experts router) each element's place is counted in the float type and cast to si16, exact",
    },
    ExplainedPattern {
        name: "rank-reduce",
        roots: &[coreai::TRANSPOSE],
        rewrite: rank::reduce_transpose,
        reason: "the Neural Engine takes rank <= 5 (Apple's Neural Engine rules: rank-6+ intermediates are rejected); the dims the transpose keeps together are merged, exact",
    },
    ExplainedPattern {
        name: "layout-in-f16",
        roots: casts::LAYOUT,
        rewrite: casts::layout_before_widening,
        reason: LAYOUT_REASON,
    },
    ExplainedPattern {
        name: "layout-in-f16",
        roots: &[coreai::CAST],
        rewrite: casts::layout_after_narrowing,
        reason: LAYOUT_REASON,
    },
    ExplainedPattern {
        name: "linear-conv1x1",
        roots: &[coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL],
        rewrite: bc1s::linear_conv1x1,
        reason: "the Neural Engine runs projections as 1x1 convolutions on (B, C, 1, S) activations (Apple's Neural Engine rules: BC1S format, Conv2d instead of Linear); the product by a constant weight becomes a 1x1 conv2d between transposes to and from BC1S",
    },
    ExplainedPattern {
        name: "matmul-rank4",
        roots: &[coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL],
        rewrite: layout::matmul_rank4,
        reason: MATMUL_REASON,
    },
    ExplainedPattern {
        name: "matmul-rank4",
        roots: &[coreai::BATCH_MATMUL],
        rewrite: layout::matmul_rank4,
        reason: MATMUL_REASON,
    },
    ExplainedPattern {
        name: "stride-space-to-depth",
        roots: &[coreai::CONV2D],
        rewrite: strides::stride_space_to_depth,
        reason: "the Neural Engine maps convolution strides of 2s and 3s well (Apple's Neural Engine rules: convolution stride optimization, pixel shuffle); the stride moves into channels (space to depth) and the convolution runs at stride 1, the same products",
    },
    ExplainedPattern {
        name: "matmul-per-head",
        roots: &[coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL],
        rewrite: heads::matmul_per_head,
        reason: "the Neural Engine computes attention one head at a time (Apple's Neural Engine SDPA: each head computed individually to meet hardware constraints); the heads' products are concatenated, the same values",
    },
    ExplainedPattern {
        name: "embedding-iosurface",
        roots: &[coreai::GATHER_ND],
        rewrite: iosurface::embedding_iosurface,
        reason: "Apple's IOSurface configuration for embedding tables (guide §7.7: alignments [1,1,1,1], interleave [8,1,1]) on a noinline graph's (V, 1, D) table parameter",
    },
    ExplainedPattern {
        name: "embedding-v1d",
        roots: &[coreai::GATHER_ND],
        rewrite: layout::embedding_v1d,
        reason:
            "Neural Engine embedding tables are (V, 1, D) for BC1S-compatible rows (guide §8.6)",
    },
    ExplainedPattern {
        name: "rank4-chain",
        roots: layout::SAME_SHAPE_ELEMENTWISE,
        rewrite: layout::rank4_chain,
        reason: CHAIN_REASON,
    },
    ExplainedPattern {
        name: "rank4-chain",
        roots: layout::BROADCASTING_ELEMENTWISE,
        rewrite: layout::rank4_chain,
        reason: CHAIN_REASON,
    },
];

pub const INFO: PassInfo = PassInfo {
    name: "target-ane",
    summary: "The Neural Engine's forms: linear layers as 1x1 convolutions in BC1S (B, C, 1, S), the residual stream and its norms kept in BC1S between them, cached keys and values read in their (B, H, D, S) order, other products and the elementwise chains between them at rank 4, embedding tables as (V, 1, D) (in Apple's IOSurface configuration where V % 8 == 0), attention composites inlined with additive masks, rank above 5 reduced, argsorts of softmax values counted in f16",
    source: include_str!("target_ane.rs"),
    anchor: None,
    options: &[ExplainedPass::REMARKS],
    create: || {
        ExplainedPass::new("target-ane", PATTERNS, Some(print_embedding_declines)).with_first_sweep(INLINE)
            .with_last_sweeps(SINK)
            .with_global(GlobalRewrite {
                name: "bc1s-stream",
                run: stream::bc1s_stream,
                reason: "the Neural Engine runs the stream between projections in BC1S (Apple's Neural Engine rules: BC1S format, RMSNorm over dim 1 with a (1, D, 1, 1) weight, avoid unnecessary transposes); the component of the program around this transpose runs in BC1S, its norms as their BC1S composites, with fewer transposes, exact",
            })
            .with_global(GlobalRewrite {
                name: "kv-bc1s",
                run: stream::kv_bc1s,
                reason: "the Neural Engine reads attention's cached keys and values in their BC1S order, (B, H, D, S) per head (Apple's Neural Engine SDPA: bchq,bkhc->bkhq, no transposes of the cache); the values around this transpose keep that order, the products computed transposed ((AB)^T = B^T A^T), with fewer transposes, exact",
            })
    },
};
