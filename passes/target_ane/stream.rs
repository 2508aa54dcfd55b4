//! `bc1s-stream`: the values between the linear layers, a transformer's
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
//! out of it for each value read elsewhere (a graph output, a slice). A
//! component is rewritten when that removes more transposes than it adds.
//!
//! Declines (the component is left as it is): no net saving; values with
//! dynamic dims; ops in other blocks; a norm composite whose body is not
//! all of the ops above, or whose weight is not `(1…, D)`.

use super::bc1s::moved;
use super::layout::{BROADCASTING_ELEMENTWISE, SAME_SHAPE_ELEMENTWISE};
use crate::core_optimize::RESHAPES;
use coreai_ir::emit::{axes, reshape};
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
    Elementwise,
    Reshape,
    Reduce,
    /// A call of the norm composite whose BC1S form is this graph.
    Norm(MlirOperation),
}

#[derive(Clone, Debug)]
struct Flip {
    kind: Kind,
    roles: Vec<Role>,
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
fn classify(op: MlirOperation, body: MlirBlock, norms: &mut Norms<'_, '_>) -> Option<Flip> {
    if raw::block_of(op).ptr != body.ptr || raw::results(op).len() != 1 {
        return None;
    }
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
        return Some(Flip {
            kind: Kind::Elementwise,
            roles,
        });
    }
    let kept = |n: usize| std::iter::repeat_n(Role::Kept, n);
    if RESHAPES.contains(&name.as_str()) {
        (row(operands[0]) == Some([b, s, d])).then_some(())?;
        return Some(Flip {
            kind: Kind::Reshape,
            roles: std::iter::once(Role::Member)
                .chain(kept(operands.len() - 1))
                .collect(),
        });
    }
    if REDUCTIONS.contains(&name.as_str()) {
        let rank = raw::static_shape(raw::value_type(operands[0]))?.len() as i64;
        let over = raw::constant_ints(*operands.get(1)?)?;
        let last = over == [rank - 1] || over == [-1];
        (last && d == 1 && row(operands[0]).is_some_and(|[xb, xs, _]| xb == b && xs == s))
            .then_some(())?;
        return Some(Flip {
            kind: Kind::Reduce,
            roles: vec![Role::Member, Role::Kept],
        });
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
        return Some(Flip {
            kind: Kind::Norm(variant),
            roles,
        });
    }
    None
}

/// A component: the stream values, the ops rewritten, the transposes into
/// and out of BC1S it removes, and the values entering and leaving it.
#[derive(Default)]
struct Component {
    members: HashMap<usize, [i64; 3]>,
    flips: HashMap<usize, Flip>,
    absorbed: HashSet<usize>,
    /// Members defined elsewhere that are not constants (each needs a
    /// transpose into BC1S).
    entries: usize,
    /// Members read elsewhere (each needs a transpose out of BC1S).
    exits: HashSet<usize>,
    /// Who reads the members elsewhere.
    exit_readers: Vec<MlirOperation>,
}

impl Component {
    /// Transposes removed minus transposes added.
    fn saving(&self) -> i64 {
        self.absorbed.len() as i64 - self.entries as i64 - self.exits.len() as i64
    }
}

/// The component of `seeds` in `body`.
fn grow(seeds: &[MlirValue], body: MlirBlock, norms: &mut Norms<'_, '_>) -> Component {
    let mut c = Component::default();
    let mut queue: VecDeque<MlirValue> = seeds.iter().copied().collect();
    let mut flips: HashMap<usize, Option<Flip>> = HashMap::new();
    let mut flip = |op: MlirOperation, norms: &mut Norms<'_, '_>| {
        flips
            .entry(op_key(op))
            .or_insert_with(|| classify(op, body, norms))
            .clone()
    };
    while let Some(v) = queue.pop_front() {
        let Some(r) = row(v) else { continue };
        if c.members.insert(key(v), r).is_some() {
            continue;
        }
        match raw::producer(v) {
            Some(p) if out_of_bc1s(p) && raw::block_of(p).ptr == body.ptr => {
                c.absorbed.insert(op_key(p));
            }
            Some(p) => match flip(p, norms) {
                Some(f) => {
                    add(&mut c, p, f, &mut queue);
                }
                None if raw::op_name(p) == coreai::CONSTANT => {}
                None => c.entries += 1,
            },
            None => c.entries += 1,
        }
        for (u, i) in raw::uses(v) {
            if i == 0 && into_bc1s(u) && raw::block_of(u).ptr == body.ptr {
                c.absorbed.insert(op_key(u));
                continue;
            }
            match flip(u, norms).filter(|f| f.roles[i] != Role::Kept) {
                Some(f) => {
                    if !c.flips.contains_key(&op_key(u)) {
                        queue.push_back(raw::result(u, 0));
                    }
                    add(&mut c, u, f, &mut queue);
                }
                None => {
                    c.exits.insert(key(v));
                    c.exit_readers.push(u);
                }
            }
        }
    }
    c
}

/// `op` rewritten in the component; its operands read as stream values
/// join it.
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
    root: &'r LoweringCx<'c, 'a>,
    c: &'r Component,
    /// Each member's BC1S form.
    bc1s: HashMap<usize, MlirValue>,
    /// `(1, E, 1, 1)` forms of broadcast operands.
    broadcasts: HashMap<usize, MlirValue>,
    /// Each exit's value out of BC1S.
    outs: HashMap<usize, MlirValue>,
}

impl<'c, 'a> Rewrite<'_, 'c, 'a> {
    fn at(&self, op: MlirOperation) -> LoweringCx<'c, 'a> {
        LoweringCx::new(self.root.operation(op))
    }

    fn ty(&self, dims: &[i64], like: MlirValue) -> Result<MlirType, Decline> {
        Ok(tensor_type(dims, element_type(self.root.value(like))?).to_raw())
    }

    /// The BC1S form of member `v`, read at `op` (an entering value is
    /// transposed into BC1S in front of its first reader).
    fn member(&mut self, v: MlirValue, op: MlirOperation) -> Result<MlirValue, Decline> {
        if let Some(&x) = self.bc1s.get(&key(v)) {
            return Ok(x);
        }
        let [b, s, d] = self.c.members[&key(v)];
        let cx = self.at(op);
        let lifted = reshape(&cx, self.root.value(v), &[1, b, s, d])?;
        let x = moved(&cx, lifted, &[1, b, s, d], &INTO)?.to_raw();
        self.bc1s.insert(key(v), x);
        Ok(x)
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

    /// Member `v` out of BC1S, for a reader elsewhere.
    fn out(&mut self, v: MlirValue, op: MlirOperation) -> Result<MlirValue, Decline> {
        if let Some(&x) = self.outs.get(&key(v)) {
            return Ok(x);
        }
        let x = self.member(v, op)?;
        let dims = bc1s_dims(self.c.members[&key(v)]);
        let cx = self.at(op);
        let t = moved(&cx, self.root.value(x), &dims, &OUT_OF)?;
        let original = raw::static_shape(raw::value_type(v)).ok_or("a dynamic stream value")?;
        let y = reshape(&cx, t, &original)?.to_raw();
        self.outs.insert(key(v), y);
        Ok(y)
    }

    /// `op` (in the component) in BC1S, in front of it.
    fn flip(&mut self, op: MlirOperation, f: &Flip) -> Result<(), Decline> {
        let result = raw::result(op, 0);
        if matches!(f.kind, Kind::Reshape) {
            let x = self.member(raw::operand(op, 0), op)?;
            self.bc1s.insert(key(result), x);
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
        if matches!(f.kind, Kind::Reduce) {
            operands[1] = axes(&self.at(op), &[1])?.to_raw();
        }
        let ty = self.ty(&bc1s_dims(self.c.members[&key(result)]), result)?;
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
        self.bc1s.insert(key(result), raw::result(new, 0));
        Ok(())
    }

    /// Rewrites the component: every op of `body` in order; with `output_bc1s`
    /// (a norm's BC1S form), the block's output takes the BC1S form.
    fn run(&mut self, body: MlirBlock, output_bc1s: bool) -> Result<(), Decline> {
        let ops = raw::block_ops(body);
        for &op in &ops {
            if self.c.absorbed.contains(&op_key(op)) {
                if out_of_bc1s(op) {
                    self.bc1s
                        .insert(key(raw::result(op, 0)), raw::operand(op, 0));
                } else {
                    let x = self.member(raw::operand(op, 0), op)?;
                    raw::replace_all_uses(raw::result(op, 0), x);
                }
            } else if let Some(f) = self.c.flips.get(&op_key(op)) {
                self.flip(op, f)?;
            } else {
                for (i, v) in raw::operands(op).into_iter().enumerate() {
                    if self.c.members.contains_key(&key(v)) {
                        let x = match output_bc1s && raw::op_name(op) == coreai::OUTPUT {
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
        let c = grow(&args[..1], body, self);
        let root = LoweringCx::new(self.root);
        let [b, s, d] = c.members[&key(args[0])];
        let input = tensor_type(
            &bc1s_dims([b, s, d]),
            element_type(root.value(args[0])).ok()?,
        )
        .to_raw();
        raw::set_argument_type(args[0], input);
        let mut rewrite = Rewrite {
            root: &root,
            c: &c,
            bc1s: HashMap::from([(key(args[0]), args[0])]),
            broadcasts: HashMap::new(),
            outs: HashMap::new(),
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
        let c = grow(&[input], body, norms);
        let output = raw::terminator(body);
        let ops = raw::block_ops(body);
        c.entries == 1
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
    let mut norms = Norms {
        root,
        variants: HashMap::new(),
    };
    let mut called = HashSet::new();
    let mut applied = 0;
    let mut result = Ok(());
    for graph in graphs(root.to_raw()) {
        result = rewrite_graph(graph, &mut norms, rewriter, &mut called, &mut applied);
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

/// Rewrites the components of `graph` that save transposes, one at a time
/// (each rewrite changes what the next component is), until none does or
/// `max-rewrites` is reached; `called` collects the BC1S norms the
/// rewritten components call.
fn rewrite_graph(
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
    'restart: for _ in 0..MAX_COMPONENTS {
        let mut seen = HashSet::new();
        for op in raw::block_ops(body) {
            let seed = if out_of_bc1s(op) {
                raw::result(op, 0)
            } else if into_bc1s(op) {
                raw::operand(op, 0)
            } else {
                continue;
            };
            if seen.contains(&op_key(op)) {
                continue;
            }
            let c = grow(&[seed], body, norms);
            seen.extend(c.absorbed.iter().copied());
            if c.saving() <= 0 {
                continue;
            }
            if !rewriter.record(op, "bc1s-stream") {
                return Ok(());
            }
            let mut rewrite = Rewrite {
                root: &cx,
                c: &c,
                bc1s: HashMap::new(),
                broadcasts: HashMap::new(),
                outs: HashMap::new(),
            };
            if let Err(reason) = rewrite.run(body, false) {
                raw::emit_error(op, &format!("bc1s-stream: {reason}"));
                return Err(PassFailed);
            }
            called.extend(c.flips.values().filter_map(|f| match f.kind {
                Kind::Norm(graph) => Some(op_key(graph)),
                _ => None,
            }));
            *applied += 1;
            continue 'restart;
        }
        break;
    }
    Ok(())
}
