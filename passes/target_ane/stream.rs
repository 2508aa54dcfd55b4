//! `bc1s-stream` and `kv-bc1s`: the values between the linear layers, a transformer's
//! residual stream and its norms, kept in BC1S (Apple's Neural Engine
//! rules: "BC1S format", "RMSNorm: norm over `dim=1` (channels in BC1S),
//! weight shape `(1, D, 1, 1)`"), so that the stream is transposed into
//! BC1S once, not into and out of it around every group of projections.
//!
//! `linear-conv1x1` puts each linear layer in BC1S with a transpose on
//! either side, and `transpose-sink` carries BC1S through the elementwise
//! ops between projections. What it cannot decide, because it rewrites one
//! op at a time, is to move a whole stream to BC1S: a residual add
//! `x + T(conv(…))` has an operand that is not transposed, and the norms
//! reduce over the last axis. This rewrite decides over a whole component
//! of the program at once.
//!
//! Algebra. For `x` of dims `(l…, S, D)`, `B = Πl`, its BC1S form is
//! `φ(x) = transpose(reshape(x, (1, B, S, D)), [1, 3, 0, 2])` of dims
//! `(B, D, 1, S)`: a reordering of the same elements. Then
//!   - `φ(f(x, y)) = f(φ(x), φ(y))` for an elementwise `f` whose operands
//!     have `x`'s `B` and `S` (a last dim of 1 broadcasts in both forms);
//!     an operand of dims `(1…, 1, E)` (a norm's weight, a bias) is read as
//!     `(1, E, 1, 1)`, a scalar as it is;
//!   - `φ(r(x, [-1])) = r(φ(x), [1])` for a reduction over the last axis
//!     (coreai's reductions keep the axis);
//!   - `φ(reshape(x)) = φ(x)` for a reshape that keeps `B`, `S` and `D`;
//!   - `φ(x[…, a:b:c]) = φ(x)[:, a:b:c, :, :]` for a slice along the last
//!     axis only (a fused projection's q, k and v);
//!   - `φ(norm(x, w…)) = norm'(φ(x), w'…)` for an `rms_norm` or
//!     `layer_norm` composite over the last axis: `norm'` is the
//!     composite's BC1S form (`@rms_norm_bc1s`, `axes = 1`, weights
//!     `(1, D, 1, 1)`), whose body is the original body under these rules;
//!   - a transpose of a stream value into BC1S (what `linear-conv1x1`
//!     builds) is `φ(x)` itself, and a transpose out of BC1S (`c` of dims
//!     `(B, D, 1, S)` to `(l…, S, D)`) is `φ⁻¹(c)`, so `φ` of it is `c`.
//!
//! Every value keeps its elements; every op computes the same values on
//! them (a reduction sums the same elements in the same order). Exact.
//!
//! The decision. Starting from a transpose into or out of BC1S, the
//! component is every value reached through the ops above (producers and
//! readers). Rewriting it removes its transposes into and out of BC1S and
//! adds one transpose into BC1S for each value that enters it from
//! elsewhere (a block argument, a gather; a constant's is folded) and one
//! out of it for each value read elsewhere (a graph output, a gather),
//! except where every such reader is a head split (a reshape read only by
//! transposes: `transpose-pair` joins the transpose out with the split's)
//! or the move is of unit dims only (a reshape). A component is rewritten
//! when that removes more transposes than it adds; transposes of constants
//! count for nothing (they fold), and a component seeded by a transpose a
//! rewrite just built is not tried again (its head splits are joined
//! later, by the sweeps).
//!
//! Declines (the component is left as it is): no net saving; values with
//! dynamic dims; ops in other blocks; a norm composite whose body is not
//! all of the ops above, or whose weight is not `(1…, D)`.
//!
//! `kv-bc1s` makes the same decision for another form: `(…, S, D)` as
//! `(…, D, S)`, the last two dims swapped. The Neural Engine LLM form's
//! cache holds each head's keys and values as `(B, H, D, S)` (BC1S per
//! head); attention read them as `(B, H, S, D)`, transposing the whole
//! cache of every layer on every step (and the keys back again for the
//! scores). With `ψ(x)` the swap,
//!   - `ψ(f(x, y)) = f(ψ(x), ψ(y))` for an elementwise `f` on operands of
//!     one shape (a scalar as it is);
//!   - a reshape that keeps the last two dims, a broadcast along leading
//!     dims: the same op on `ψ(x)`; a concatenation or a slice: the same
//!     with its axis or bounds swapped;
//!   - `ψ(A·B) = ψ(B)·ψ(A)` (`(AB)ᵀ = BᵀAᵀ`: the same products, summed in
//!     the same order); a softmax over the last axis runs over the other;
//!   - a transpose of the last two dims is `ψ` itself.
//!
//! A component takes every product it reaches, or only those reached from
//! their second operand (a decode step's values, not its scores, whose
//! swapped form would need the keys in the other order): whichever saves
//! more. With RoPE inlined (`rope-inline`), a prefill's whole attention
//! runs swapped, Apple's layout: scores `(B, H, S_k, S_q)` as `K·Q'`.
//!
//! A move of one token's key (`(1, H, 1, D)`) or one query's weights only
//! moves unit dims: a reshape, which costs nothing. So a decode step keeps
//! its keys and values in the cache's order with no transpose (Apple's
//! `bchq,bkhc->bkhq`, without its BC1S query layout); a prefill keeps
//! the keys (one transpose of the new keys saves the cache's and the
//! scores'), while its values would cost more than they save. Exact.

use super::bc1s::moved;
use super::layout::{BROADCASTING_ELEMENTWISE, SAME_SHAPE_ELEMENTWISE};
use crate::core_optimize::RESHAPES;
use coreai_ir::emit::{int_scalar, int_vector, reshape};
use coreai_ir::lowering::{Decline, LoweringCx};
use coreai_ir::op::coreai;
use coreai_ir::pass::PassFailed;
use coreai_ir::raw;
use coreai_ir::rewrite::Rewriter;
use coreai_ir::schema::{element_type, tensor_type};
use melior::ir::operation::OperationRef;
use melior::ir::{TypeLike, ValueLike};
use mlir_sys::{MlirBlock, MlirOperation, MlirType, MlirValue};
use std::collections::{HashMap, HashSet, VecDeque};

/// The norm composites that have a BC1S form.
const NORMS: &[&str] = &["rms_norm", "layer_norm"];

/// The reductions that run over the channel axis in BC1S.
const REDUCTIONS: &[&str] = &[
    coreai::REDUCE_MEAN,
    coreai::REDUCE_MAX,
    coreai::REDUCE_MIN,
    coreai::REDUCE_SUM,
];

/// `x` into BC1S: `(1, B, S, D)` → `(B, D, 1, S)`.
const INTO: [usize; 4] = [1, 3, 0, 2];
/// Out of BC1S: `(B, D, 1, S)` → `(1, B, S, D)`.
const OUT_OF: [usize; 4] = [2, 0, 3, 1];

fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

fn op_key(op: MlirOperation) -> usize {
    op.ptr as usize
}

/// `[B, S, D]` of a static value of rank 2 or more.
fn row(v: MlirValue) -> Option<[i64; 3]> {
    let d = raw::static_shape(raw::value_type(v))?;
    let r = d.len();
    (r >= 2).then(|| [d[..r - 2].iter().product(), d[r - 2], d[r - 1]])
}

/// The BC1S dims `(B, D, 1, S)` of `[B, S, D]`.
fn bc1s_dims([b, s, d]: [i64; 3]) -> [i64; 4] {
    [b, d, 1, s]
}

/// The axes `p` takes, unit dims of `dims` dropped: two transposes of one
/// value with the same such order give the same elements in the same order.
fn order(dims: &[i64], p: &[usize]) -> Vec<usize> {
    p.iter().copied().filter(|&i| dims[i] != 1).collect()
}

fn permutation(op: MlirOperation) -> Option<Vec<usize>> {
    raw::constant_ints(raw::operand(op, 1))?
        .into_iter()
        .map(|i| usize::try_from(i).ok())
        .collect()
}

/// Whether `op` transposes a value `(l…, S, D)` into its BC1S form.
fn into_bc1s(op: MlirOperation) -> bool {
    if raw::op_name(op) != coreai::TRANSPOSE {
        return false;
    }
    let x = raw::operand(op, 0);
    let (Some(xd), Some(r), Some(yd), Some(p)) = (
        raw::static_shape(raw::value_type(x)),
        row(x),
        raw::static_shape(raw::value_type(raw::result(op, 0))),
        permutation(op),
    ) else {
        return false;
    };
    xd.len() == 4 && yd == bc1s_dims(r) && order(&xd, &p) == order(&xd, &[0, 1, 3, 2])
}

/// Whether `op` transposes a BC1S value `(B, D, 1, S)` out of BC1S, to
/// `(l…, S, D)`.
fn out_of_bc1s(op: MlirOperation) -> bool {
    if raw::op_name(op) != coreai::TRANSPOSE {
        return false;
    }
    let (Some(cd), Some(r), Some(p)) = (
        raw::static_shape(raw::value_type(raw::operand(op, 0))),
        row(raw::result(op, 0)),
        permutation(op),
    ) else {
        return false;
    };
    cd == bc1s_dims(r) && order(&cd, &p) == order(&cd, &[0, 3, 1])
}

/// The form a component moves to.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Layout {
    /// `(l…, S, D)` as BC1S `(B, D, 1, S)` (`bc1s-stream`).
    Bc1s,
    /// `(…, S, D)` as `(…, D, S)`: attention's keys and values per head in
    /// the cache's own order (`kv-bc1s`).
    SwapLast,
}

/// `p` swaps the last two dims of a value of dims `d` (unit dims aside).
fn swaps_last(d: &[i64], p: &[usize]) -> bool {
    let r = d.len();
    if r < 2 || p.len() != r {
        return false;
    }
    order(d, p) == order(d, &swap_permutation(r))
}

/// `d` with its last two dims swapped.
fn swapped(d: &[i64]) -> Vec<i64> {
    let mut out = d.to_vec();
    let r = out.len();
    out.swap(r - 2, r - 1);
    out
}

impl Layout {
    /// The pattern name in remarks.
    fn name(self) -> &'static str {
        match self {
            Layout::Bc1s => "bc1s-stream",
            Layout::SwapLast => "kv-bc1s",
        }
    }

    /// The form's dims of a value of dims `d`, if it has one.
    fn dims(self, d: &[i64]) -> Option<Vec<i64>> {
        let r = d.len();
        (r >= 2).then(|| match self {
            Layout::Bc1s => bc1s_dims([d[..r - 2].iter().product(), d[r - 2], d[r - 1]]).to_vec(),
            Layout::SwapLast => swapped(d),
        })
    }

    /// Whether moving a value of dims `d` into its form, or back, only
    /// moves unit dims (a reshape, not a transpose: it costs nothing). In
    /// both forms `S` and `D` trade places, so one of them being 1 is
    /// enough.
    fn free(self, d: &[i64]) -> bool {
        let r = d.len();
        d[r - 2] == 1 || d[r - 1] == 1
    }

    /// Whether `op` takes its operand to the form (`into`) / a form back
    /// to its result (`out_of`).
    fn is_into(self, op: MlirOperation) -> bool {
        match self {
            Layout::Bc1s => into_bc1s(op),
            Layout::SwapLast => swap_transpose(op),
        }
    }

    fn is_out_of(self, op: MlirOperation) -> bool {
        match self {
            Layout::Bc1s => out_of_bc1s(op),
            Layout::SwapLast => swap_transpose(op),
        }
    }

    fn classify(
        self,
        op: MlirOperation,
        body: MlirBlock,
        norms: &mut Norms<'_, '_>,
    ) -> Option<Flip> {
        if raw::block_of(op).ptr != body.ptr || raw::results(op).len() != 1 {
            return None;
        }
        match self {
            Layout::Bc1s => classify_bc1s(op, norms),
            Layout::SwapLast => classify_swap(op),
        }
    }
}

/// Whether `op` transposes the last two dims of its operand (to exactly
/// that shape: unit dims moved elsewhere make another value).
fn swap_transpose(op: MlirOperation) -> bool {
    let (x, y) = (raw::operand(op, 0), raw::result(op, 0));
    raw::op_name(op) == coreai::TRANSPOSE
        && raw::static_shape(raw::value_type(x))
            .zip(raw::static_shape(raw::value_type(y)))
            .zip(permutation(op))
            .is_some_and(|((d, e), p)| d.len() >= 2 && e == swapped(&d) && swaps_last(&d, &p))
}

/// `i` of a value of rank `r` as an axis in `0..r` (negative from the end).
fn axis(i: i64, r: usize) -> Option<usize> {
    let i = if i < 0 { i + r as i64 } else { i };
    usize::try_from(i).ok().filter(|&i| i < r)
}

/// The axis of a value of rank `r` in the `(…, D, S)` order.
fn swapped_axis(a: usize, r: usize) -> usize {
    match a {
        _ if a + 2 == r => r - 1,
        _ if a + 1 == r => r - 2,
        _ => a,
    }
}

/// How `op` runs with its values' last two dims swapped, if it does:
/// elementwise ops on operands of its shape, reshapes that keep the last
/// two dims, broadcasts along leading dims, concatenations and slices
/// (their axis and bounds swapped too), products (`(AB)ᵀ = BᵀAᵀ`).
fn classify_swap(op: MlirOperation) -> Option<Flip> {
    let out = raw::static_shape(raw::value_type(raw::result(op, 0)))?;
    let r = out.len();
    (r >= 2).then_some(())?;
    let name = raw::op_name(op);
    let operands = raw::operands(op);
    let dims = |v: MlirValue| raw::static_shape(raw::value_type(v));
    let ints = |v: MlirValue| raw::constant_ints(v);
    let broadcasting = BROADCASTING_ELEMENTWISE.contains(&name.as_str());
    if broadcasting || SAME_SHAPE_ELEMENTWISE.contains(&name.as_str()) {
        // An operand of rank 2 or more whose last two dims are the
        // result's or 1 broadcasts the same way swapped.
        let swaps = |d: &[i64]| {
            let k = d.len();
            k >= 2 && k <= r && (0..2).all(|j| d[k - 2 + j] == out[r - 2 + j] || d[k - 2 + j] == 1)
        };
        let roles = operands
            .iter()
            .map(|&v| match dims(v)? {
                d if d == out => Some(Role::Member),
                d if d.is_empty() => Some(Role::Kept),
                d if broadcasting && swaps(&d) => Some(Role::Member),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        return Some(Flip::new(Kind::Clone, roles));
    }
    if name == coreai::SOFTMAX {
        let a = axis(*ints(*operands.get(1)?)?.first()?, r)?;
        (dims(operands[0])? == out).then_some(())?;
        let mut f = Flip::new(Kind::Clone, vec![Role::Member, Role::Kept]);
        f.constants.push((1, vec![swapped_axis(a, r) as i64], true));
        return Some(f);
    }
    if name == coreai::RESHAPE {
        let x = dims(operands[0])?;
        (x.len() >= 2 && x[x.len() - 2..] == out[r - 2..]).then_some(())?;
        let mut f = Flip::new(Kind::Clone, member_then_kept(operands.len()));
        f.constants.push((1, swapped(&out), false));
        return Some(f);
    }
    if name == coreai::BROADCAST_IN_DIMS {
        (dims(operands[0])?.len() == r).then_some(())?;
        let along = ints(*operands.get(2)?)?;
        along
            .iter()
            .all(|&a| axis(a, r).is_some_and(|a| a + 2 < r))
            .then_some(())?;
        return Some(Flip::new(Kind::Clone, member_then_kept(operands.len())));
    }
    if name == coreai::CONCAT {
        let a = axis(*ints(operands[0])?.first()?, r)?;
        let mut roles = vec![Role::Kept];
        for &v in &operands[1..] {
            (dims(v)?.len() == r).then_some(())?;
            roles.push(Role::Member);
        }
        let mut f = Flip::new(Kind::Clone, roles);
        f.constants.push((0, vec![swapped_axis(a, r) as i64], true));
        return Some(f);
    }
    if name == coreai::SLICE {
        let mut f = Flip::new(Kind::Clone, member_then_kept(operands.len()));
        for (i, &bound) in operands.iter().enumerate().skip(1) {
            let bounds = ints(bound)?;
            (bounds.len() == r).then_some(())?;
            f.constants.push((i, swapped(&bounds), false));
        }
        return Some(f);
    }
    if name == coreai::BATCH_MATMUL || name == coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL {
        (dims(operands[0])?.len() == r && dims(operands[1])?.len() == r).then_some(())?;
        return Some(Flip::new(Kind::Swapped, vec![Role::Member, Role::Member]));
    }
    None
}

/// The roles of an op whose first operand is the value and the others
/// are kept (shapes, axes, bounds).
fn member_then_kept(n: usize) -> Vec<Role> {
    std::iter::once(Role::Member)
        .chain(std::iter::repeat_n(Role::Kept, n - 1))
        .collect()
}

/// How a rewritten op reads an operand.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Role {
    /// A stream value (its BC1S form).
    Member,
    /// `(1…, 1, E)`, read as `(1, E, 1, 1)`.
    Broadcast(i64),
    /// Kept as it is (a scalar, a shape, the axes).
    Kept,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// The op again, on the operands' forms (its kept operands replaced
    /// by `Flip::constants`), with the result's form as its type.
    Clone,
    /// A reshape whose form is its operand's.
    Identity,
    /// A product `A·B`, whose form is `B'·A'` (`(AB)ᵀ = BᵀAᵀ`).
    Swapped,
    /// A call of the norm composite whose BC1S form is this graph.
    Norm(MlirOperation),
}

#[derive(Clone, Debug)]
struct Flip {
    kind: Kind,
    roles: Vec<Role>,
    /// Kept operands replaced by integer constants (operand, values, rank
    /// 0): axes, bounds and shapes in the layout's order.
    constants: Vec<(usize, Vec<i64>, bool)>,
}

impl Flip {
    fn new(kind: Kind, roles: Vec<Role>) -> Self {
        Self {
            kind,
            roles,
            constants: Vec::new(),
        }
    }
}

/// An operand of dims `(1…, 1, E)`, `E` 1 or `d`, of rank 1 or more.
fn broadcast(v: MlirValue, d: i64) -> Option<i64> {
    let dims = raw::static_shape(raw::value_type(v))?;
    let (&e, rest) = dims.split_last()?;
    (rest.iter().all(|&x| x == 1) && (e == 1 || e == d)).then_some(e)
}

/// The BC1S forms of the norm composites, decided once per callee.
struct Norms<'c, 'a> {
    /// The op the pass runs on (to reach the IR from raw handles).
    root: OperationRef<'c, 'a>,
    variants: HashMap<String, Option<MlirOperation>>,
}

/// How `op` runs in BC1S, if it does (see the module documentation).
fn classify_bc1s(op: MlirOperation, norms: &mut Norms<'_, '_>) -> Option<Flip> {
    let [b, s, d] = row(raw::result(op, 0))?;
    let name = raw::op_name(op);
    let operands = raw::operands(op);
    let member = |v: MlirValue, any_d: bool| {
        row(v).is_some_and(|[vb, vs, vd]| vb == b && vs == s && (vd == d || (any_d && vd == 1)))
    };
    let same_shape = SAME_SHAPE_ELEMENTWISE.contains(&name.as_str());
    if same_shape || BROADCASTING_ELEMENTWISE.contains(&name.as_str()) {
        let roles = operands
            .iter()
            .map(|&v| {
                if member(v, !same_shape) {
                    Some(Role::Member)
                } else if same_shape {
                    None
                } else if raw::static_shape(raw::value_type(v)).is_some_and(|x| x.is_empty()) {
                    Some(Role::Kept)
                } else {
                    broadcast(v, d).map(Role::Broadcast)
                }
            })
            .collect::<Option<Vec<_>>>()?;
        return Some(Flip::new(Kind::Clone, roles));
    }
    if RESHAPES.contains(&name.as_str()) {
        (row(operands[0]) == Some([b, s, d])).then_some(())?;
        return Some(Flip::new(Kind::Identity, member_then_kept(operands.len())));
    }
    if REDUCTIONS.contains(&name.as_str()) {
        let rank = raw::static_shape(raw::value_type(operands[0]))?.len() as i64;
        let over = raw::constant_ints(*operands.get(1)?)?;
        let last = over == [rank - 1] || over == [-1];
        (last && d == 1 && row(operands[0]).is_some_and(|[xb, xs, _]| xb == b && xs == s))
            .then_some(())?;
        let mut f = Flip::new(Kind::Clone, vec![Role::Member, Role::Kept]);
        f.constants.push((1, vec![1], false));
        return Some(f);
    }
    if name == coreai::SLICE {
        // Along the last axis only (a fused projection's q, k and v): the
        // same range of the channel axis in BC1S.
        let x = raw::static_shape(raw::value_type(operands[0]))?;
        let r = x.len();
        (row(operands[0]).is_some_and(|[xb, xs, _]| xb == b && xs == s) && operands.len() == 4)
            .then_some(())?;
        let [begin, end, stride] =
            [1, 2, 3].map(|i| raw::constant_ints(operands[i]).filter(|v| v.len() == r));
        let (begin, end, stride) = (begin?, end?, stride?);
        let whole = (0..r - 1).all(|i| begin[i] == 0 && end[i] >= x[i] && stride[i] == 1);
        whole.then_some(())?;
        let mut f = Flip::new(Kind::Clone, member_then_kept(4));
        f.constants.push((1, vec![0, begin[r - 1], 0, 0], false));
        f.constants.push((2, vec![b, end[r - 1], 1, s], false));
        f.constants.push((3, vec![1, stride[r - 1], 1, 1], false));
        return Some(f);
    }
    if name == coreai::INVOKE {
        let callee = raw::callee_name(op)?;
        let graph = raw::lookup_symbol(op, &callee)?;
        let variant = norms.variant(&callee, graph)?;
        (row(*operands.first()?) == Some([b, s, d])).then_some(())?;
        let mut roles = vec![Role::Member];
        for &w in &operands[1..] {
            broadcast(w, d).filter(|&e| e == d)?;
            roles.push(Role::Broadcast(d));
        }
        return Some(Flip::new(Kind::Norm(variant), roles));
    }
    None
}

/// A component: the values moved to the layout's form (with their dims),
/// the ops rewritten, the transposes into and out of the form it removes,
/// and what the values entering and leaving it cost.
#[derive(Default)]
struct Component {
    members: HashMap<usize, Vec<i64>>,
    flips: HashMap<usize, Flip>,
    absorbed: HashSet<usize>,
    /// Absorbed transposes of constants (folded anyway: they save none)
    /// or between two members (moved, not removed).
    folded: usize,
    absorbed_ops: Vec<MlirOperation>,
    /// Transposes into the form for members defined elsewhere (not
    /// constants, not moves of unit dims only).
    entries: usize,
    /// Members defined elsewhere that are not constants.
    entry_values: Vec<usize>,
    /// Members read elsewhere.
    exits: HashSet<usize>,
    /// Who reads the members elsewhere.
    exit_readers: Vec<MlirOperation>,
    /// Exits that move only unit dims out of the form (reshapes).
    free_exits: HashSet<usize>,
    /// Exits read by an op other than a head split (a reshape read only
    /// by transposes, which `transpose-pair` joins with the transpose out
    /// of the form): each costs a transpose.
    costly_exits: HashSet<usize>,
}

impl Component {
    /// Transposes removed minus transposes added.
    fn saving(&self) -> i64 {
        let exits = self.costly_exits.difference(&self.free_exits).count();
        let removed = self.absorbed.len() - self.folded;
        removed as i64 - self.entries as i64 - exits as i64
    }
}

/// The component of `seeds` in `body` for `layout`.
/// Which products a component takes in (`kv-bc1s`).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Products {
    /// Every product reached.
    All,
    /// Only a product reached from its second operand (the values a
    /// decode step's weights multiply), not one reached from its first
    /// operand or its result (the scores, whose swapped form would need
    /// the keys in the other order).
    FromSecond,
}

fn grow(
    layout: Layout,
    seeds: &[MlirValue],
    body: MlirBlock,
    norms: &mut Norms<'_, '_>,
) -> Component {
    grow_with(layout, Products::All, seeds, body, norms)
}

fn grow_with(
    layout: Layout,
    products: Products,
    seeds: &[MlirValue],
    body: MlirBlock,
    norms: &mut Norms<'_, '_>,
) -> Component {
    let mut c = Component::default();
    let mut queue: VecDeque<MlirValue> = seeds.iter().copied().collect();
    let mut flips: HashMap<usize, Option<Flip>> = HashMap::new();
    let mut flip = |op: MlirOperation, norms: &mut Norms<'_, '_>, operand: Option<usize>| {
        let f = flips
            .entry(op_key(op))
            .or_insert_with(|| layout.classify(op, body, norms))
            .clone();
        let product = f.as_ref().is_some_and(|f| matches!(f.kind, Kind::Swapped));
        f.filter(|_| !product || products == Products::All || operand == Some(1))
    };
    while let Some(v) = queue.pop_front() {
        let Some(d) = raw::static_shape(raw::value_type(v)).filter(|d| d.len() >= 2) else {
            continue;
        };
        if c.members.contains_key(&key(v)) {
            continue;
        }
        // Moving `v` into its form, or back, only moves unit dims; a value
        // transposed from another may enter as that one transposed once.
        let free = layout.free(&d);
        let free_entry = free || composed_free(layout, v);
        c.members.insert(key(v), d);
        match raw::producer(v) {
            Some(p) if layout.is_out_of(p) && raw::block_of(p).ptr == body.ptr => {
                if c.absorbed.insert(op_key(p)) {
                    c.absorbed_ops.push(p);
                    c.folded += usize::from(of_constant(p));
                }
            }
            Some(p) => match flip(p, norms, None) {
                Some(f) => {
                    add(&mut c, p, f, &mut queue);
                }
                None if raw::op_name(p) == coreai::CONSTANT => {}
                None => {
                    c.entry_values.push(key(v));
                    c.entries += usize::from(!free_entry);
                }
            },
            None => {
                c.entry_values.push(key(v));
                c.entries += usize::from(!free_entry);
            }
        }
        for (u, i) in raw::uses(v) {
            if dead(u) {
                // Left by an earlier rewrite; canonicalize erases it.
                continue;
            }
            if i == 0 && layout.is_into(u) && raw::block_of(u).ptr == body.ptr {
                if c.absorbed.insert(op_key(u)) {
                    c.absorbed_ops.push(u);
                    c.folded += usize::from(of_constant(u));
                }
                continue;
            }
            match flip(u, norms, Some(i)).filter(|f| f.roles[i] != Role::Kept) {
                Some(f) => {
                    if !c.flips.contains_key(&op_key(u)) {
                        queue.push_back(raw::result(u, 0));
                    }
                    add(&mut c, u, f, &mut queue);
                }
                None => {
                    c.exits.insert(key(v));
                    c.exit_readers.push(u);
                    if free {
                        c.free_exits.insert(key(v));
                    } else if !head_split(u) {
                        c.costly_exits.insert(key(v));
                    }
                }
            }
        }
    }
    // A transpose between two members is not removed: the rewrite moves
    // it (the form of its result is its operand in the original order).
    for op in std::mem::take(&mut c.absorbed_ops) {
        let both = c.members.contains_key(&key(raw::operand(op, 0)))
            && c.members.contains_key(&key(raw::result(op, 0)));
        if both && !of_constant(op) {
            c.folded += 1;
        }
    }
    c
}

/// Whether transpose `op` reads a constant, reshaped or transposed
/// (core-optimize folds it: moving it saves nothing).
fn of_constant(op: MlirOperation) -> bool {
    let mut v = raw::operand(op, 0);
    while let Some(p) = raw::producer(v) {
        let name = raw::op_name(p);
        if name == coreai::CONSTANT {
            return true;
        }
        if !(RESHAPES.contains(&name.as_str()) || name == coreai::TRANSPOSE) {
            return false;
        }
        v = raw::operand(p, 0);
    }
    false
}

/// Erases the data movement, arithmetic and constants of `body` that
/// nothing reads (left by the sweeps before: a component must not count
/// a transpose that is already dead, nor reach through dead ops).
fn erase_dead(body: MlirBlock) {
    for op in raw::block_ops(body).into_iter().rev() {
        let name = raw::op_name(op);
        let pure = SAME_SHAPE_ELEMENTWISE.contains(&name.as_str())
            || BROADCASTING_ELEMENTWISE.contains(&name.as_str())
            || RESHAPES.contains(&name.as_str())
            || REDUCTIONS.contains(&name.as_str())
            || [
                coreai::CONSTANT,
                coreai::TRANSPOSE,
                coreai::SLICE,
                coreai::CONCAT,
                coreai::BROADCAST_IN_DIMS,
                coreai::CONV2D,
                coreai::BATCH_MATMUL,
                coreai::DECOMPOSABLE_BROADCASTING_BATCH_MATMUL,
            ]
            .contains(&name.as_str());
        if pure && raw::region_count(op) == 0 && dead(op) {
            raw::erase(op);
        }
    }
}

/// Whether no result of `op` is read (an op an earlier rewrite left dead).
fn dead(op: MlirOperation) -> bool {
    let results = raw::results(op);
    !results.is_empty() && results.into_iter().all(|r| !raw::has_uses(r))
}

/// For `kv-bc1s`, a value transposed from `z` by another permutation
/// (an input mask `(1, S_k, 1, S_q)` read as `(1, 1, S_q, S_k)`): its form
/// is `z` transposed once, by the two permutations composed. `(z, that
/// permutation)`, if so.
fn through_transpose(layout: Layout, v: MlirValue) -> Option<(MlirValue, Vec<i64>, Vec<usize>)> {
    if layout != Layout::SwapLast {
        return None;
    }
    let t = raw::producer(v).filter(|&t| raw::op_name(t) == coreai::TRANSPOSE)?;
    let q = permutation(t)?;
    let z = raw::operand(t, 0);
    let zd = raw::static_shape(raw::value_type(z))?;
    let swap = swap_permutation(q.len());
    Some((z, zd, swap.iter().map(|&i| q[i]).collect()))
}

/// Whether the form of `v` is its source transposed by a permutation that
/// only moves unit dims (a reshape: it costs nothing).
fn composed_free(layout: Layout, v: MlirValue) -> bool {
    through_transpose(layout, v).is_some_and(|(_, zd, p)| {
        let kept = order(&zd, &p);
        kept.windows(2).all(|w| w[0] < w[1])
    })
}

/// Whether `op` is a reshape read only by transposes (a head split or
/// merge): a transpose out of a form in front of it becomes part of the
/// one transpose `transpose-pair` leaves.
fn head_split(op: MlirOperation) -> bool {
    raw::op_name(op) == coreai::RESHAPE
        && raw::uses(raw::result(op, 0))
            .iter()
            .all(|&(u, _)| raw::op_name(u) == coreai::TRANSPOSE)
        && raw::has_uses(raw::result(op, 0))
}

/// `op` rewritten in the component; its operands read in the form join
/// it.
fn add(c: &mut Component, op: MlirOperation, f: Flip, queue: &mut VecDeque<MlirValue>) {
    if c.flips.contains_key(&op_key(op)) {
        return;
    }
    for (i, role) in f.roles.iter().enumerate() {
        if *role == Role::Member {
            queue.push_back(raw::operand(op, i));
        }
    }
    queue.push_back(raw::result(op, 0));
    c.flips.insert(op_key(op), f);
}

/// The rewrite of one component in `body`.
struct Rewrite<'r, 'c, 'a> {
    layout: Layout,
    root: &'r LoweringCx<'c, 'a>,
    c: &'r Component,
    /// Each member's form.
    form: HashMap<usize, MlirValue>,
    /// `(1, E, 1, 1)` forms of broadcast operands.
    broadcasts: HashMap<usize, MlirValue>,
    /// Each exit's value out of the form.
    outs: HashMap<usize, MlirValue>,
    /// The transposes built into and out of the form.
    built: Vec<MlirOperation>,
}

impl<'c, 'a> Rewrite<'_, 'c, 'a> {
    fn at(&self, op: MlirOperation) -> LoweringCx<'c, 'a> {
        LoweringCx::new(self.root.operation(op))
    }

    fn ty(&self, dims: &[i64], like: MlirValue) -> Result<MlirType, Decline> {
        Ok(tensor_type(dims, element_type(self.root.value(like))?).to_raw())
    }

    /// The form of member `v` (dims `d`).
    fn form_dims(&self, v: MlirValue) -> Result<Vec<i64>, Decline> {
        self.layout
            .dims(&self.c.members[&key(v)])
            .ok_or_else(|| "a member of rank below 2".into())
    }

    /// The form of member `v`, read at `op` (an entering value is
    /// transposed into the form in front of its first reader).
    fn member(&mut self, v: MlirValue, op: MlirOperation) -> Result<MlirValue, Decline> {
        if let Some(&x) = self.form.get(&key(v)) {
            return Ok(x);
        }
        let d = &self.c.members[&key(v)];
        let r = d.len();
        let cx = self.at(op);
        let x = match self.layout {
            Layout::Bc1s => {
                let lifted = [1, d[..r - 2].iter().product(), d[r - 2], d[r - 1]];
                let v = reshape(&cx, self.root.value(v), &lifted)?;
                moved(&cx, v, &lifted, &INTO)?
            }
            Layout::SwapLast => match through_transpose(self.layout, v) {
                Some((z, zd, p)) => moved(&cx, self.root.value(z), &zd, &p)?,
                None => moved(&cx, self.root.value(v), d, &swap_permutation(r))?,
            },
        };
        self.note(x.to_raw());
        self.form.insert(key(v), x.to_raw());
        Ok(x.to_raw())
    }

    /// Keeps the transposes behind `v` (through reshapes) as built.
    fn note(&mut self, mut v: MlirValue) {
        while let Some(p) = raw::producer(v) {
            let name = raw::op_name(p);
            if name == coreai::TRANSPOSE {
                self.built.push(p);
            } else if !RESHAPES.contains(&name.as_str()) {
                break;
            }
            v = raw::operand(p, 0);
        }
    }

    /// Broadcast operand `v` (`(1…, E)`) as `(1, E, 1, 1)`.
    fn broadcast(&mut self, v: MlirValue, e: i64, op: MlirOperation) -> Result<MlirValue, Decline> {
        if self.c.members.contains_key(&key(v)) {
            return self.member(v, op);
        }
        if let Some(&x) = self.broadcasts.get(&key(v)) {
            return Ok(x);
        }
        let x = reshape(&self.at(op), self.root.value(v), &[1, e, 1, 1])?.to_raw();
        self.broadcasts.insert(key(v), x);
        Ok(x)
    }

    /// Member `v` out of the form, for a reader elsewhere.
    fn out(&mut self, v: MlirValue, op: MlirOperation) -> Result<MlirValue, Decline> {
        if let Some(&x) = self.outs.get(&key(v)) {
            return Ok(x);
        }
        let x = self.member(v, op)?;
        let dims = self.form_dims(v)?;
        let original = self.c.members[&key(v)].clone();
        let cx = self.at(op);
        let y = match self.layout {
            Layout::Bc1s => {
                let t = moved(&cx, self.root.value(x), &dims, &OUT_OF)?;
                reshape(&cx, t, &original)?
            }
            Layout::SwapLast => moved(
                &cx,
                self.root.value(x),
                &dims,
                &swap_permutation(dims.len()),
            )?,
        };
        self.note(y.to_raw());
        self.outs.insert(key(v), y.to_raw());
        Ok(y.to_raw())
    }

    /// `op` (in the component) in the form, in front of it.
    fn flip(&mut self, op: MlirOperation, f: &Flip) -> Result<(), Decline> {
        let result = raw::result(op, 0);
        if matches!(f.kind, Kind::Identity) {
            let x = self.member(raw::operand(op, 0), op)?;
            self.form.insert(key(result), x);
            return Ok(());
        }
        let mut operands = Vec::with_capacity(f.roles.len());
        for (i, role) in f.roles.iter().enumerate() {
            let v = raw::operand(op, i);
            operands.push(match *role {
                Role::Member => self.member(v, op)?,
                Role::Broadcast(e) => self.broadcast(v, e, op)?,
                Role::Kept => v,
            });
        }
        for (i, values, scalar) in &f.constants {
            let kind = raw::element(raw::value_type(operands[*i])).and_then(raw::int_kind);
            let element = match kind {
                Some((bits, true)) => format!("si{bits}"),
                Some((bits, false)) => format!("ui{bits}"),
                None => return Err("a kept operand that is not an integer".into()),
            };
            let cx = self.at(op);
            operands[*i] = match scalar {
                true => int_scalar(&cx, values[0], &element)?,
                false => int_vector(&cx, values, &element)?,
            }
            .to_raw();
        }
        if matches!(f.kind, Kind::Swapped) {
            operands.swap(0, 1);
        }
        let ty = self.ty(&self.form_dims(result)?, result)?;
        let new = raw::clone(op);
        raw::set_operands(new, &operands);
        raw::set_value_type(raw::result(new, 0), ty);
        if let Kind::Norm(graph) = f.kind {
            let name = raw::attribute(graph, "sym_name")
                .and_then(raw::attr_str)
                .ok_or("the norm's BC1S form has no name")?;
            let callee =
                raw::parse_attribute(op, &format!("#param.constant<@{name}> : !param.symbol"))
                    .ok_or("cannot name the norm's BC1S form")?;
            raw::set_attribute(new, "callee", callee);
        }
        raw::insert_before(op, new);
        self.form.insert(key(result), raw::result(new, 0));
        Ok(())
    }

    /// Rewrites the component: every op of `body` in order; with
    /// `output_in_form` (a norm's BC1S form), the block's output takes the
    /// form.
    fn run(&mut self, body: MlirBlock, output_in_form: bool) -> Result<(), Decline> {
        let ops = raw::block_ops(body);
        for &op in &ops {
            if self.c.absorbed.contains(&op_key(op)) {
                let (x, y) = (raw::operand(op, 0), raw::result(op, 0));
                if self.c.members.contains_key(&key(y)) {
                    // Out of the form: the result's form is the operand.
                    let form = match self.c.members.contains_key(&key(x)) {
                        true => self.out(x, op)?,
                        false => x,
                    };
                    self.form.insert(key(y), form);
                } else {
                    let form = self.member(x, op)?;
                    raw::replace_all_uses(y, form);
                }
            } else if let Some(f) = self.c.flips.get(&op_key(op)) {
                self.flip(op, f)?;
            } else {
                for (i, v) in raw::operands(op).into_iter().enumerate() {
                    if self.c.members.contains_key(&key(v)) {
                        let x = match output_in_form && raw::op_name(op) == coreai::OUTPUT {
                            true => self.member(v, op)?,
                            false => self.out(v, op)?,
                        };
                        raw::set_operand(op, i, x);
                    }
                }
            }
        }
        for &op in ops.iter().rev() {
            let replaced =
                self.c.absorbed.contains(&op_key(op)) || self.c.flips.contains_key(&op_key(op));
            if replaced && raw::results(op).into_iter().all(|r| !raw::has_uses(r)) {
                raw::erase(op);
            }
        }
        Ok(())
    }
}

/// The permutation swapping the last two of `r` dims.
fn swap_permutation(r: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..r).collect();
    p.swap(r - 2, r - 1);
    p
}

impl Norms<'_, '_> {
    /// The BC1S form of norm composite `graph` (`@callee`), made once: a
    /// copy of the graph whose input, weights and output are in BC1S, or
    /// `None` when its body does not run in BC1S.
    fn variant(&mut self, callee: &str, graph: MlirOperation) -> Option<MlirOperation> {
        if let Some(v) = self.variants.get(callee) {
            return *v;
        }
        self.variants.insert(callee.to_string(), None);
        let made = self.make(callee, graph);
        self.variants.insert(callee.to_string(), made);
        made
    }

    fn make(&mut self, callee: &str, graph: MlirOperation) -> Option<MlirOperation> {
        let composite = raw::composite_name(graph)?;
        if !NORMS.contains(&composite.as_str()) || !raw::is_private(graph) {
            return None;
        }
        let body = raw::entry_block(graph)?;
        let rank = raw::static_shape(raw::value_type(*raw::arguments(body).first()?))?.len();
        let decl = raw::attr_text(raw::attribute(graph, "composite_decl")?);
        let decl = channel_axes(&decl, rank)?;
        if !Self::runs_in_bc1s(body, self) {
            return None;
        }
        let copy = raw::clone(graph);
        let mut name = format!("{callee}_bc1s");
        for n in 2.. {
            if raw::lookup_symbol(graph, &name).is_none() {
                break;
            }
            name = format!("{callee}_bc1s_{n}");
        }
        raw::set_attribute(copy, "sym_name", raw::string_attr(copy, &name));
        raw::set_attribute(copy, "composite_decl", raw::parse_attribute(copy, &decl)?);
        raw::insert_after(graph, copy);
        let body = raw::entry_block(copy)?;
        let args = raw::arguments(body);
        let c = grow(Layout::Bc1s, &args[..1], body, self);
        let root = LoweringCx::new(self.root);
        let form = Layout::Bc1s.dims(&c.members[&key(args[0])])?;
        let input = tensor_type(&form, element_type(root.value(args[0])).ok()?).to_raw();
        raw::set_argument_type(args[0], input);
        let mut rewrite = Rewrite {
            layout: Layout::Bc1s,
            root: &root,
            c: &c,
            form: HashMap::from([(key(args[0]), args[0])]),
            broadcasts: HashMap::new(),
            outs: HashMap::new(),
            built: Vec::new(),
        };
        let mut inputs = vec![input];
        for &w in &args[1..] {
            let e = *raw::static_shape(raw::value_type(w))?.last()?;
            let ty = tensor_type(&[1, e, 1, 1], element_type(root.value(w)).ok()?).to_raw();
            raw::set_argument_type(w, ty);
            rewrite.broadcasts.insert(key(w), w);
            inputs.push(ty);
        }
        if rewrite.run(body, true).is_err() {
            raw::erase(copy);
            return None;
        }
        raw::set_function_type(copy, &inputs, &[input]);
        Some(copy)
    }

    /// Whether every op of a norm's `body` runs in BC1S with its first
    /// argument as the stream: the weights are `(1…, D)`, and the output
    /// is a stream value of the input's dims.
    fn runs_in_bc1s(body: MlirBlock, norms: &mut Self) -> bool {
        let args = raw::arguments(body);
        let Some(&input) = args.first() else {
            return false;
        };
        let Some([_, _, d]) = row(input) else {
            return false;
        };
        if args[1..].iter().any(|&w| broadcast(w, d) != Some(d)) {
            return false;
        }
        let c = grow(Layout::Bc1s, &[input], body, norms);
        let output = raw::terminator(body);
        let ops = raw::block_ops(body);
        c.entry_values == [key(input)]
            && c.absorbed.is_empty()
            && c.exit_readers.iter().all(|&u| u.ptr == output.ptr)
            && raw::operands(output).len() == 1
            && row(raw::operand(output, 0)) == row(input)
            && c.members.contains_key(&key(raw::operand(output, 0)))
            && args[1..].iter().all(|&w| !c.members.contains_key(&key(w)))
            && ops.iter().all(|&op| {
                op.ptr == output.ptr
                    || raw::op_name(op) == coreai::CONSTANT
                    || c.flips.contains_key(&op_key(op))
            })
    }
}

/// A norm's declaration with its `axes`, the last of `rank` (`-1`, `2`,
/// `[2]`), made the channel axis `1`; `None` for any other axes.
fn channel_axes(decl: &str, rank: usize) -> Option<String> {
    let last = rank.checked_sub(1)?;
    for axis in ["-1".to_string(), last.to_string()] {
        for (from, to) in [
            (format!("axes = {axis} : si64"), "axes = 1 : si64"),
            (format!("axes = [{axis} : si64]"), "axes = [1 : si64]"),
        ] {
            if decl.contains(&from) {
                return Some(decl.replacen(&from, to, 1));
            }
        }
    }
    None
}

/// The graphs under `root` (or `root` itself) that are not composites.
fn graphs(root: MlirOperation) -> Vec<MlirOperation> {
    if raw::op_name(root) == coreai::GRAPH {
        return vec![root];
    }
    raw::region_blocks(root)
        .into_iter()
        .flat_map(raw::block_ops)
        .filter(|&op| {
            raw::op_name(op) == coreai::GRAPH && raw::attribute(op, "composite_decl").is_none()
        })
        .collect()
}

/// Most rewrites of one graph (each removes at least one transpose, so
/// the loop ends long before; a bound against a bug).
const MAX_COMPONENTS: usize = 1024;

/// The `bc1s-stream` rewrite of every graph under `root`.
pub fn bc1s_stream(
    root: OperationRef<'_, '_>,
    rewriter: &mut Rewriter,
) -> Result<usize, PassFailed> {
    rewrite_layout(Layout::Bc1s, root, rewriter)
}

/// The `kv-bc1s` rewrite of every graph under `root`.
pub fn kv_bc1s(root: OperationRef<'_, '_>, rewriter: &mut Rewriter) -> Result<usize, PassFailed> {
    rewrite_layout(Layout::SwapLast, root, rewriter)
}

fn rewrite_layout(
    layout: Layout,
    root: OperationRef<'_, '_>,
    rewriter: &mut Rewriter,
) -> Result<usize, PassFailed> {
    let mut norms = Norms {
        root,
        variants: HashMap::new(),
    };
    let mut called = HashSet::new();
    let mut applied = 0;
    let mut result = Ok(());
    for graph in graphs(root.to_raw()) {
        result = rewrite_graph(
            layout,
            graph,
            &mut norms,
            rewriter,
            &mut called,
            &mut applied,
        );
        if result.is_err() {
            break;
        }
    }
    // The BC1S norms made while deciding, for components left as they were.
    for graph in norms.variants.values().flatten() {
        if !called.contains(&op_key(*graph)) {
            raw::erase(*graph);
        }
    }
    result.map(|()| applied)
}

/// The component around transpose `op` that saves the most transposes,
/// if one saves any: from its result (`op` takes a form back) or from its
/// operand (`op` takes it to the form).
fn best_component(
    layout: Layout,
    op: MlirOperation,
    body: MlirBlock,
    norms: &mut Norms<'_, '_>,
    seen: &mut HashSet<usize>,
) -> Option<Component> {
    let mut best: Option<Component> = None;
    let seeds = [
        layout.is_out_of(op).then(|| raw::result(op, 0)),
        layout.is_into(op).then(|| raw::operand(op, 0)),
    ];
    let variants: &[Products] = match layout {
        Layout::Bc1s => &[Products::All],
        Layout::SwapLast => &[Products::FromSecond, Products::All],
    };
    let tries = seeds
        .into_iter()
        .flatten()
        .flat_map(|seed| variants.iter().map(move |&products| (seed, products)));
    for (seed, products) in tries {
        let c = grow_with(layout, products, &[seed], body, norms);
        tracing::debug!(
            pattern = layout.name(),
            at = %raw::location_text(op),
            members = c.members.len(),
            absorbed = c.absorbed.len(),
            folded = c.folded,
            entries = c.entries,
            exits = c.exits.len(),
            saving = c.saving(),
            "component"
        );
        seen.extend(c.absorbed.iter().copied());
        if c.saving() > 0 && best.as_ref().is_none_or(|b| c.saving() > b.saving()) {
            best = Some(c);
        }
    }
    best
}

/// Rewrites the components of `graph` that save transposes, one at a time
/// (each rewrite changes what the next component is), until none does or
/// `max-rewrites` is reached; `called` collects the BC1S norms the
/// rewritten components call.
fn rewrite_graph(
    layout: Layout,
    graph: MlirOperation,
    norms: &mut Norms<'_, '_>,
    rewriter: &mut Rewriter,
    called: &mut HashSet<usize>,
    applied: &mut usize,
) -> Result<(), PassFailed> {
    let cx = LoweringCx::new(norms.root);
    let Some(body) = raw::entry_block(graph) else {
        return Ok(());
    };
    // The transposes the rewrites built: a component seeded by one is one
    // just made (its exits into head splits join them later).
    let mut made = HashSet::new();
    'restart: for _ in 0..MAX_COMPONENTS {
        erase_dead(body);
        let mut seen = HashSet::new();
        for op in raw::block_ops(body) {
            if !(layout.is_out_of(op) || layout.is_into(op))
                || seen.contains(&op_key(op))
                || made.contains(&op_key(op))
                || dead(op)
                || of_constant(op)
            {
                continue;
            }
            let Some(c) = best_component(layout, op, body, norms, &mut seen) else {
                continue;
            };
            if !rewriter.record(op, layout.name()) {
                return Ok(());
            }
            let mut rewrite = Rewrite {
                layout,
                root: &cx,
                c: &c,
                form: HashMap::new(),
                broadcasts: HashMap::new(),
                outs: HashMap::new(),
                built: Vec::new(),
            };
            if let Err(reason) = rewrite.run(body, false) {
                raw::emit_error(op, &format!("{}: {reason}", layout.name()));
                return Err(PassFailed);
            }
            called.extend(c.flips.values().filter_map(|f| match f.kind {
                Kind::Norm(graph) => Some(op_key(graph)),
                _ => None,
            }));
            made.extend(rewrite.built.iter().map(|&op| op_key(op)));
            *applied += 1;
            continue 'restart;
        }
        break;
    }
    Ok(())
}
