//! `narrow-integers`: an integer computation whose values are proven to fit
//! `si16` runs in `si16`, the Neural Engine's integer type.
//!
//! The Neural Engine computes in f16, int8 and int16 only (Apple's Neural
//! Engine rules; Apple's own converter casts int32 to int16 where it knows
//! the values fit, `cast_int32_to_int16`). PyTorch computes indices and
//! counters in `int64`, so token and position ids, RoBERTa's padding-aware
//! positions (`cumsum` of a mask) and a mixture-of-experts router's counts
//! arrive as `si32`/`si64` arithmetic that leaves the Neural Engine.
//!
//! **The analysis.** Every integer value gets an interval `[lo, hi]` that
//! holds each of its elements, in program order: a constant's extremes; a
//! cast's operand range when the target type holds it; the operand's range
//! through data movement (reshape, transpose, slice, gather, sort, ...);
//! interval arithmetic through `add`, `sub`, `mul`, `floor_divide`,
//! `modulo`, `minimum`, `maximum`, `abs` and `bitwise_and` of non-negative
//! values; `n·[lo, hi]` for a sum of `n` elements (`reduce_sum`; a `scan`
//! sum's prefixes `k·[lo, hi]`, `1 ≤ k ≤ n`); `[0, n)` for the indices an
//! `argsort`/`argmax` returns along a dim of `n`. A result whose interval
//! leaves its type's range may have wrapped and gets the whole type range;
//! everything else gets its type's range. A public graph's integer
//! argument gets its type's range, or, with `inputs=true`, `[-n, n)` when
//! it indexes (through integer casts and reshapes, and into a private
//! graph called once) gathers whose indexed dims are at most `n` long:
//! PyTorch defines the program only for indices in range (an embedding
//! raises otherwise). A private graph called once takes its caller's
//! argument ranges.
//!
//! **Where the types must agree.** Values that one op requires to share
//! an element type (an elementwise op's operands and result, a
//! comparison's operands, a select's branches and result, a data-movement
//! op's data and result, a concat's inputs, a scatter's data and updates,
//! a call's argument and its private callee's parameter) form one class;
//! a class narrows as a whole. It narrows when every value in it lies in
//! `[-32768, 32767]`, every constant it reads does too (a narrowed copy of
//! the constant is used), and no value in it is used where the type is
//! fixed: a shape, axis or other static operand, an unknown op, a graph
//! output, a public graph's argument (unless `inputs=true`, which changes
//! the signature: the caller passes `si16`). A cast's operand and result
//! and a gather's or scatter's indices may take any integer type; an
//! `argsort`'s or `argmax`'s result is `si32` (coreai-core infers it so
//! and rejects anything else), so a narrowed class reads it through a
//! cast. A cast then from `si16` to `si16` goes.
//!
//! **The wrap idiom.** PyTorch's narrowing integer conversion keeps the
//! low bits; the lowering writes it as `((x & (2^b - 1)) ^ 2^(b-1)) -
//! 2^(b-1)`, whose intermediate values need 64 bits. Where `x` is proven in
//! `[-2^(b-1), 2^(b-1))` the idiom is `x` (the low `b` bits of such an `x`,
//! sign-extended, are `x`), and it goes first.
//!
//! Exact: each narrowed op computes on the same mathematical values, and
//! every value it produces fits `si16`, so no result wraps where the wide
//! type did not. With `remarks=true` one line per class on stderr: which
//! values became `si16`, or why a class keeps its type.

use coreai_ir::op::coreai;
use coreai_ir::pass::{Pass, PassInfo, PassResult};
use coreai_ir::raw;
use coreai_ir::rewrite::RewriteOptions;
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::{MlirBlock, MlirOperation, MlirType, MlirValue};
use std::collections::{HashMap, HashSet};

pub const INFO: PassInfo = PassInfo {
    name: "narrow-integers",
    summary: "Run integer computations whose values are proven (interval analysis) to fit si16 in si16, the Neural Engine's integer type; with inputs=true also integer inputs that index gathers of dims <= 32767",
    source: include_str!("narrow_integers.rs"),
    anchor: None,
    options: NarrowIntegers::OPTIONS,
    create: || Box::new(NarrowIntegers::default()),
};

coreai_ir::pass_options! {
    struct NarrowIntegers {
        "inputs" => inputs: bool = "false",
            "a public graph's integer argument that indexes gathers of dims <= 32767 may become si16 (the signature changes)";
        "remarks" => remarks: bool = "false",
            "print one line per class of integer values to stderr: narrowed, or why not";
    }
}

/// An interval holding every element of an integer value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub lo: i128,
    pub hi: i128,
}

/// What `si16` holds.
pub const SI16: Range = Range {
    lo: i16::MIN as i128,
    hi: i16::MAX as i128,
};

impl Range {
    pub fn new(lo: i128, hi: i128) -> Self {
        Range {
            lo: lo.min(hi),
            hi: lo.max(hi),
        }
    }

    /// Every value of integer element type `ty` (`i1` is `[0, 1]`).
    pub fn of_type(ty: MlirType) -> Option<Range> {
        let (width, signed) = raw::int_kind(ty)?;
        let width = width.min(127);
        Some(if signed {
            Range::new(-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
        } else {
            Range::new(0, (1i128 << width) - 1)
        })
    }

    pub fn within(self, outer: Range) -> bool {
        outer.lo <= self.lo && self.hi <= outer.hi
    }

    pub fn union(self, o: Range) -> Range {
        Range::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }

    /// The smallest interval holding every value of `corners`.
    fn hull(corners: &[i128]) -> Range {
        let lo = corners.iter().copied().min().unwrap_or(0);
        let hi = corners.iter().copied().max().unwrap_or(0);
        Range::new(lo, hi)
    }

    fn add(self, o: Range) -> Range {
        Range::new(self.lo.saturating_add(o.lo), self.hi.saturating_add(o.hi))
    }

    fn sub(self, o: Range) -> Range {
        Range::new(self.lo.saturating_sub(o.hi), self.hi.saturating_sub(o.lo))
    }

    fn mul(self, o: Range) -> Range {
        Range::hull(&[
            self.lo.saturating_mul(o.lo),
            self.lo.saturating_mul(o.hi),
            self.hi.saturating_mul(o.lo),
            self.hi.saturating_mul(o.hi),
        ])
    }

    /// `floor(a / b)` for a divisor range without 0: monotone in each
    /// argument on each sign of `b`, so the corners bound it.
    fn floor_div(self, o: Range) -> Option<Range> {
        if o.lo <= 0 && 0 <= o.hi {
            return None;
        }
        let f = |a: i128, b: i128| a.div_euclid(b) - i128::from(b < 0 && a.rem_euclid(b) != 0);
        Some(Range::hull(&[
            f(self.lo, o.lo),
            f(self.lo, o.hi),
            f(self.hi, o.lo),
            f(self.hi, o.hi),
        ]))
    }

    /// `a mod b` with either sign convention (truncating or floored): its
    /// magnitude is below `|b|`, its sign that of `a` or of `b`.
    fn modulo(self, o: Range) -> Option<Range> {
        if o.lo <= 0 && 0 <= o.hi {
            return None;
        }
        let m = o.lo.abs().max(o.hi.abs()) - 1;
        let neg = self.lo < 0 || o.lo < 0;
        let pos = self.hi > 0 || o.hi > 0;
        Some(Range::new(
            if neg { -m } else { 0 },
            if pos { m } else { 0 },
        ))
    }
}

/// A handle's identity, for maps.
fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

/// The element type of `v` (a tensor) or `v`'s type.
fn element_of(v: MlirValue) -> MlirType {
    let ty = raw::value_type(v);
    raw::element(ty).unwrap_or(ty)
}

/// A signed integer wider than 16 bits: what this pass narrows.
fn is_wide(v: MlirValue) -> bool {
    raw::is_ranked_tensor(raw::value_type(v))
        && raw::int_kind(element_of(v)).is_some_and(|(w, signed)| signed && w > 16)
}

/// How an op's operand or result takes part in the element-type classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Shares its element type with the op's other linked values.
    Linked,
    /// Any integer type will do (a cast's operand, a gather's indices).
    Free,
    /// The type is fixed: a static operand, an unknown op, an output.
    Fixed,
}

const ELEMENTWISE: &[&str] = &[
    coreai::ADD,
    coreai::SUB,
    coreai::MUL,
    coreai::MINIMUM,
    coreai::MAXIMUM,
    coreai::FLOOR_DIVIDE,
    coreai::MODULO,
    coreai::ABS,
    coreai::BITWISE_AND,
    coreai::BITWISE_OR,
    coreai::BITWISE_XOR,
    coreai::DECOMPOSABLE_BROADCASTING_ADD,
    coreai::DECOMPOSABLE_BROADCASTING_SUB,
    coreai::DECOMPOSABLE_BROADCASTING_MUL,
    coreai::DECOMPOSABLE_BROADCASTING_MINIMUM,
    coreai::DECOMPOSABLE_BROADCASTING_MAXIMUM,
    coreai::DECOMPOSABLE_BROADCASTING_FLOOR_DIVIDE,
    coreai::DECOMPOSABLE_BROADCASTING_MODULO,
    coreai::DECOMPOSABLE_BROADCASTING_BITWISE_AND,
    coreai::DECOMPOSABLE_BROADCASTING_BITWISE_OR,
    coreai::DECOMPOSABLE_BROADCASTING_BITWISE_XOR,
];

const COMPARE: &[&str] = &[
    coreai::EQUAL,
    coreai::NOT_EQUAL,
    coreai::GREATER,
    coreai::DECOMPOSABLE_BROADCASTING_EQUAL,
    coreai::DECOMPOSABLE_BROADCASTING_NOT_EQUAL,
    coreai::DECOMPOSABLE_BROADCASTING_GREATER,
];

/// Ops whose operand #0 is data carried (or reduced) into result #0; their
/// other operands are static (shapes, axes, flags), but for a gather's
/// indices.
const DATA0: &[&str] = &[
    coreai::RESHAPE,
    coreai::EXPAND_DIMS,
    coreai::SHRINK_DIMS,
    coreai::TRANSPOSE,
    coreai::SLICE,
    coreai::BROADCAST_IN_DIMS,
    coreai::BROADCAST_TO,
    coreai::REVERSE,
    coreai::TILE,
    coreai::SORT,
    coreai::REDUCE_SUM,
    coreai::REDUCE_MAX,
    coreai::REDUCE_MIN,
    coreai::SCAN,
    coreai::GATHER_ND,
    coreai::GATHER_ALONG_AXIS,
];

/// Ops whose integer result may take any index type, reading operand #0
/// by value.
const FREE_RESULT: &[&str] = &[coreai::CAST, coreai::ARGSORT, coreai::ARGMAX];

/// Ops whose index result coreai-core infers as `si32` (its verifier
/// rejects `si16`): a narrowed class reads them through a cast.
const INDEX_RESULT: &[&str] = &[coreai::ARGSORT, coreai::ARGMAX];

const WHERE: &[&str] = &[coreai::WHERE, coreai::DECOMPOSABLE_BROADCASTING_WHERE];

const SCATTER: &[&str] = &[coreai::SCATTER_ND, coreai::SCATTER_ALONG_AXIS];

/// The role of `op`'s operand `i`.
fn operand_role(name: &str, i: usize) -> Role {
    let linked = if ELEMENTWISE.contains(&name) || COMPARE.contains(&name) {
        true
    } else if DATA0.contains(&name) {
        if i == 1 && (name == coreai::GATHER_ND || name == coreai::GATHER_ALONG_AXIS) {
            return Role::Free;
        }
        i == 0
    } else if WHERE.contains(&name) {
        i == 1 || i == 2
    } else if SCATTER.contains(&name) {
        if i == 1 {
            return Role::Free;
        }
        i == 0 || i == 2
    } else if name == coreai::CONCAT {
        i >= 1
    } else if FREE_RESULT.contains(&name) {
        return if i == 0 { Role::Free } else { Role::Fixed };
    } else {
        false
    };
    if linked {
        Role::Linked
    } else {
        Role::Fixed
    }
}

/// The role of `op`'s result `r`.
fn result_role(name: &str, r: usize) -> Role {
    if r != 0 {
        Role::Fixed
    } else if FREE_RESULT.contains(&name) {
        Role::Free
    } else if ELEMENTWISE.contains(&name)
        || DATA0.contains(&name)
        || WHERE.contains(&name)
        || SCATTER.contains(&name)
        || name == coreai::CONCAT
    {
        Role::Linked
    } else {
        Role::Fixed
    }
}

/// Union-find over values (by handle), with each class's facts.
#[derive(Default)]
struct Classes {
    parent: HashMap<usize, usize>,
    values: HashMap<usize, MlirValue>,
}

impl Classes {
    fn add(&mut self, v: MlirValue) {
        self.parent.entry(key(v)).or_insert(key(v));
        self.values.entry(key(v)).or_insert(v);
    }

    fn find(&mut self, k: usize) -> usize {
        let mut root = k;
        while let Some(&p) = self.parent.get(&root) {
            if p == root {
                break;
            }
            root = p;
        }
        let mut at = k;
        while at != root {
            let next = self.parent[&at];
            self.parent.insert(at, root);
            at = next;
        }
        root
    }

    fn union(&mut self, a: MlirValue, b: MlirValue) {
        self.add(a);
        self.add(b);
        let (ra, rb) = (self.find(key(a)), self.find(key(b)));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent.insert(hi, lo);
        }
    }
}

/// What one class needs to narrow, gathered from its members.
#[derive(Default)]
struct Facts {
    members: Vec<MlirValue>,
    range: Option<Range>,
    /// Constant operands read where the class's type is required:
    /// (user, operand #, constant).
    constants: Vec<(MlirOperation, usize, MlirValue)>,
    fixed: Option<String>,
}

impl Pass for NarrowIntegers {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, _: &RewriteOptions) -> PassResult {
        let mut graphs = Vec::new();
        let mut calls: HashMap<String, usize> = HashMap::new();
        root.walk(WalkOrder::PreOrder, |op| {
            let raw_op = op.to_raw();
            let name = raw::op_name(raw_op);
            if name == coreai::GRAPH {
                graphs.push(raw_op);
            } else if name == coreai::INVOKE {
                if let Some(callee) = raw::callee_name(raw_op) {
                    *calls.entry(callee).or_default() += 1;
                }
            }
            WalkResult::Advance
        });
        // Callers first: public graphs, then private ones.
        graphs.sort_by_key(|&g| raw::is_private(g));
        let mut cx = Analysis {
            calls,
            inputs: self.inputs,
            ..Default::default()
        };
        for &graph in &graphs {
            cx.analyze(graph);
        }
        cx.link();
        let narrowed = cx.narrow(self.remarks);
        for graph in graphs {
            if narrowed.iter().any(|g| raw::same_op(*g, graph)) {
                retype_signature(graph);
            }
        }
        Ok(())
    }
}

#[derive(Default)]
struct Analysis {
    calls: HashMap<String, usize>,
    inputs: bool,
    ranges: HashMap<usize, Range>,
    /// The entry-block ops analyzed, in order, and their handles.
    ops: Vec<MlirOperation>,
    known: HashSet<usize>,
    /// Every wide value defined in an analyzed block, in order.
    wide: Vec<MlirValue>,
    /// Private graphs' parameters bound to their one call's arguments.
    params: HashMap<usize, MlirValue>,
    /// The graph owning each wide block argument.
    arg_graph: HashMap<usize, MlirOperation>,
    classes: Classes,
}

impl Analysis {
    fn range(&self, v: MlirValue) -> Option<Range> {
        self.ranges
            .get(&key(v))
            .copied()
            .or_else(|| constant_range(v))
            .or_else(|| Range::of_type(element_of(v)))
    }

    fn analyze(&mut self, graph: MlirOperation) {
        let Some(block) = raw::entry_block(graph) else {
            return;
        };
        let public = !raw::is_private(graph);
        for arg in raw::arguments(block) {
            let bound = if public {
                if self.inputs {
                    index_extent(arg, block, &self.calls).map(|n| Range::new(-n, n - 1))
                } else {
                    None
                }
            } else {
                self.params.get(&key(arg)).and_then(|&a| self.range(a))
            };
            self.set(arg, bound);
            if is_wide(arg) {
                self.wide.push(arg);
                self.arg_graph.insert(key(arg), graph);
            }
        }
        for op in raw::block_ops(block) {
            if let Some(x) = self.wrap_identity(op) {
                raw::replace_all_uses(raw::result(op, 0), x);
                let mut erased = Vec::new();
                erase_dead_chain(op, &mut erased);
                let gone = |k: usize| {
                    erased
                        .iter()
                        .any(|(o, results)| *o == k || results.contains(&k))
                };
                self.ops.retain(|&o| !gone(o.ptr as usize));
                self.known.retain(|&o| !gone(o));
                self.wide.retain(|&v| !gone(key(v)));
                continue;
            }
            self.ops.push(op);
            self.known.insert(op.ptr as usize);
            if raw::op_name(op) == coreai::INVOKE {
                self.bind_params(op);
            }
            let results = raw::results(op);
            let computed = if results.len() == 1 {
                self.transfer(op)
            } else {
                None
            };
            for r in results {
                self.set(r, computed);
                if is_wide(r) {
                    self.wide.push(r);
                }
            }
        }
    }

    /// Records `v`'s range: `bound` where its type holds it, else the
    /// type's (a value that may have wrapped).
    fn set(&mut self, v: MlirValue, bound: Option<Range>) {
        let Some(whole) = Range::of_type(element_of(v)) else {
            return;
        };
        let r = bound.filter(|r| r.within(whole)).unwrap_or(whole);
        self.ranges.insert(key(v), r);
    }

    /// A private graph called once: its parameters take the call's
    /// arguments.
    fn bind_params(&mut self, invoke: MlirOperation) {
        let Some(callee) = private_callee(invoke, &self.calls) else {
            return;
        };
        let Some(block) = raw::entry_block(callee) else {
            return;
        };
        for (param, arg) in raw::arguments(block).into_iter().zip(raw::operands(invoke)) {
            self.params.insert(key(param), arg);
        }
    }

    /// The interval of `op`'s single result.
    fn transfer(&self, op: MlirOperation) -> Option<Range> {
        let name = raw::op_name(op);
        let name = name.as_str();
        let n = raw::operands(op).len();
        let r = |i: usize| -> Option<Range> {
            let v = raw::operand(op, i);
            raw::int_kind(element_of(v))?;
            self.range(v)
        };
        let result = raw::result(op, 0);
        Some(match name {
            coreai::CONSTANT => constant_range(result)?,
            coreai::CAST => r(0)?,
            _ if DATA0.contains(&name) && name != coreai::REDUCE_SUM && name != coreai::SCAN => {
                r(0)?
            }
            coreai::CONCAT => (1..n).map(r).reduce(|a, b| Some(a?.union(b?)))??,
            _ if WHERE.contains(&name) => r(1)?.union(r(2)?),
            _ if SCATTER.contains(&name) => r(0)?.union(r(2)?),
            coreai::ADD | coreai::DECOMPOSABLE_BROADCASTING_ADD => r(0)?.add(r(1)?),
            coreai::SUB | coreai::DECOMPOSABLE_BROADCASTING_SUB => r(0)?.sub(r(1)?),
            coreai::MUL | coreai::DECOMPOSABLE_BROADCASTING_MUL => r(0)?.mul(r(1)?),
            coreai::MINIMUM | coreai::DECOMPOSABLE_BROADCASTING_MINIMUM => {
                let (a, b) = (r(0)?, r(1)?);
                Range::new(a.lo.min(b.lo), a.hi.min(b.hi))
            }
            coreai::MAXIMUM | coreai::DECOMPOSABLE_BROADCASTING_MAXIMUM => {
                let (a, b) = (r(0)?, r(1)?);
                Range::new(a.lo.max(b.lo), a.hi.max(b.hi))
            }
            coreai::FLOOR_DIVIDE | coreai::DECOMPOSABLE_BROADCASTING_FLOOR_DIVIDE => {
                r(0)?.floor_div(r(1)?)?
            }
            coreai::MODULO | coreai::DECOMPOSABLE_BROADCASTING_MODULO => r(0)?.modulo(r(1)?)?,
            coreai::ABS => {
                let a = r(0)?;
                let m = a.lo.abs().max(a.hi.abs());
                Range::new(
                    if a.lo <= 0 && 0 <= a.hi {
                        0
                    } else {
                        a.lo.abs().min(a.hi.abs())
                    },
                    m,
                )
            }
            coreai::BITWISE_AND | coreai::DECOMPOSABLE_BROADCASTING_BITWISE_AND => {
                let (a, b) = (r(0)?, r(1)?);
                match (a.lo >= 0, b.lo >= 0) {
                    (true, true) => Range::new(0, a.hi.min(b.hi)),
                    (true, false) => Range::new(0, a.hi),
                    (false, true) => Range::new(0, b.hi),
                    (false, false) => return None,
                }
            }
            coreai::REDUCE_SUM => {
                let input = raw::static_shape(raw::value_type(raw::operand(op, 0)))?;
                let output = raw::static_shape(raw::value_type(result))?;
                let (i, o): (i64, i64) = (input.iter().product(), output.iter().product());
                let count = if o == 0 { 0 } else { i / o };
                r(0)?.mul(Range::new(count.into(), count.into()))
            }
            coreai::SCAN => {
                // `scan_op`: 0 sum, 1 product, 2 min, 3 max (CoreAIBase.td).
                let combiner = raw::int_value(raw::attribute(op, "scan_op")?)?;
                let a = r(0)?;
                match combiner {
                    0 => {
                        let count = *raw::static_shape(raw::value_type(raw::operand(op, 0)))?
                            .iter()
                            .max()
                            .unwrap_or(&1);
                        a.mul(Range::new(1, count.max(1).into())).union(a)
                    }
                    2 | 3 => a,
                    _ => return None,
                }
            }
            coreai::ARGSORT | coreai::ARGMAX => {
                let extent = *raw::static_shape(raw::value_type(raw::operand(op, 0)))?
                    .iter()
                    .max()
                    .unwrap_or(&1);
                Range::new(0, (extent.max(1) - 1).into())
            }
            _ => return None,
        })
    }

    /// `((x & (2^b - 1)) ^ 2^(b-1)) - 2^(b-1)` rooted at the `sub`, with
    /// `x` proven in `[-2^(b-1), 2^(b-1))`: the value is `x`.
    fn wrap_identity(&self, sub: MlirOperation) -> Option<MlirValue> {
        let name = raw::op_name(sub);
        if name != coreai::SUB && name != coreai::DECOMPOSABLE_BROADCASTING_SUB {
            return None;
        }
        let half = splat_int(raw::operand(sub, 1))?;
        let xor = raw::producer(raw::operand(sub, 0))?;
        let and = raw::producer(raw::operand(xor, 0))?;
        let xor_name = raw::op_name(xor);
        let and_name = raw::op_name(and);
        let bits = half.checked_ilog2()?;
        let shapes_match = raw::same_type(
            raw::value_type(raw::operand(and, 0)),
            raw::value_type(raw::result(sub, 0)),
        );
        let fits = self
            .range(raw::operand(and, 0))
            .is_some_and(|r| r.within(Range::new(-half, half - 1)));
        (half > 0
            && 1i128 << bits == half
            && (xor_name == coreai::BITWISE_XOR
                || xor_name == coreai::DECOMPOSABLE_BROADCASTING_BITWISE_XOR)
            && (and_name == coreai::BITWISE_AND
                || and_name == coreai::DECOMPOSABLE_BROADCASTING_BITWISE_AND)
            && splat_int(raw::operand(xor, 1)) == Some(half)
            && splat_int(raw::operand(and, 1)) == Some(2 * half - 1)
            && shapes_match
            && fits)
            .then(|| raw::operand(and, 0))
    }

    /// Classes from every analyzed op's linked operands and results.
    fn link(&mut self) {
        for &v in &self.wide {
            self.classes.add(v);
        }
        for &op in &self.ops.clone() {
            let name = raw::op_name(op);
            let linked: Vec<MlirValue> = raw::operands(op)
                .into_iter()
                .enumerate()
                .filter(|&(i, v)| {
                    is_wide(v)
                        && operand_role(&name, i) == Role::Linked
                        && raw::constant_attr(v).is_none()
                })
                .map(|(_, v)| v)
                .chain(
                    raw::results(op)
                        .into_iter()
                        .enumerate()
                        .filter(|&(r, v)| is_wide(v) && result_role(&name, r) == Role::Linked)
                        .map(|(_, v)| v),
                )
                .collect();
            for pair in linked.windows(2) {
                self.classes.union(pair[0], pair[1]);
            }
            if name == coreai::INVOKE {
                if let Some(callee) = private_callee(op, &self.calls) {
                    let params = raw::entry_block(callee)
                        .map(raw::arguments)
                        .unwrap_or_default();
                    for (param, arg) in params.into_iter().zip(raw::operands(op)) {
                        if is_wide(param) && is_wide(arg) && raw::constant_attr(arg).is_none() {
                            self.classes.union(param, arg);
                        }
                    }
                }
            }
        }
    }

    /// Each class's facts, by root, in program order of first member.
    fn facts(&mut self) -> Vec<Facts> {
        let mut order: Vec<usize> = Vec::new();
        let mut by_root: HashMap<usize, Facts> = HashMap::new();
        for v in self.wide.clone() {
            if raw::constant_attr(v).is_some() {
                continue;
            }
            let root = self.classes.find(key(v));
            let facts = by_root.entry(root).or_insert_with(|| {
                order.push(root);
                Facts::default()
            });
            facts.members.push(v);
            let range = self.range(v);
            facts.range = match (facts.range, range) {
                (Some(a), Some(b)) => Some(a.union(b)),
                (a, b) => a.or(b),
            };
            if facts.fixed.is_none() {
                facts.fixed = self.why_fixed(v);
            }
            let producer = raw::producer(v)
                .filter(|&d| result_role(&raw::op_name(d), raw::result_number(v)) == Role::Linked);
            let users = raw::uses(v)
                .into_iter()
                .filter(|&(u, i)| operand_role(&raw::op_name(u), i) == Role::Linked)
                .map(|(u, _)| u);
            for op in producer.into_iter().chain(users) {
                let name = raw::op_name(op);
                for (j, c) in raw::operands(op).into_iter().enumerate() {
                    if is_wide(c)
                        && raw::constant_attr(c).is_some()
                        && operand_role(&name, j) == Role::Linked
                        && !facts
                            .constants
                            .iter()
                            .any(|&(u, k, _)| raw::same_op(u, op) && k == j)
                    {
                        facts.constants.push((op, j, c));
                    }
                }
            }
        }
        order
            .into_iter()
            .filter_map(|r| by_root.remove(&r))
            .collect()
    }

    /// Why `v`'s type cannot change, if it cannot.
    fn why_fixed(&self, v: MlirValue) -> Option<String> {
        match raw::producer(v) {
            Some(def) => {
                let name = raw::op_name(def);
                if result_role(&name, raw::result_number(v)) == Role::Fixed {
                    return Some(format!("'{name}' fixes its result's type"));
                }
                if !combiner_retypable(def) {
                    return Some(format!(
                        "'{name}' has a combiner region this pass does not retype"
                    ));
                }
            }
            None => {
                let graph = self.arg_graph.get(&key(v));
                match graph {
                    Some(&g) if raw::is_private(g) => {
                        let Some(&arg) = self.params.get(&key(v)) else {
                            return Some("a parameter of a graph not called exactly once".into());
                        };
                        if raw::composite_name(g).is_some() {
                            return Some(
                                "a parameter of a composite (its signature is its interface)"
                                    .into(),
                            );
                        }
                        if raw::constant_attr(arg).is_some() {
                            return Some("a parameter bound to a constant".into());
                        }
                    }
                    Some(_) if self.inputs => {}
                    Some(_) => return Some("a graph input (inputs=false)".into()),
                    None => return Some("a block argument of a nested region".into()),
                }
            }
        }
        for (user, i) in raw::uses(v) {
            let name = raw::op_name(user);
            if !self.known.contains(&(user.ptr as usize)) {
                return Some(format!(
                    "it is used by '{name}' in a nested region (not analyzed)"
                ));
            }
            if name == coreai::INVOKE {
                if private_callee(user, &self.calls).is_none() {
                    return Some(format!(
                        "it is passed to '{}', not a private graph called once",
                        raw::callee_name(user).unwrap_or_default()
                    ));
                }
                continue;
            }
            if operand_role(&name, i) == Role::Fixed {
                return Some(format!("operand #{i} of '{name}' has a fixed type"));
            }
        }
        None
    }

    /// Narrows every class that fits; returns the graphs whose
    /// parameters changed.
    fn narrow(&mut self, remarks: bool) -> Vec<MlirOperation> {
        let mut changed = Vec::new();
        let mut narrowed_constants: HashMap<usize, MlirValue> = HashMap::new();
        for facts in self.facts() {
            let first = facts.members[0];
            let what = describe(first, facts.members.len());
            let constants_fit = facts
                .constants
                .iter()
                .all(|&(_, _, c)| self.range(c).is_some_and(|r| r.within(SI16)));
            let verdict = if let Some(why) = &facts.fixed {
                Err(why.clone())
            } else if !facts.range.is_some_and(|r| r.within(SI16)) {
                Err(match facts.range {
                    Some(r) => format!("its values may reach [{}, {}]", r.lo, r.hi),
                    None => "its range is unknown".into(),
                })
            } else if !constants_fit {
                Err("a constant it reads does not fit si16".into())
            } else {
                Ok(())
            };
            if remarks {
                match &verdict {
                    Ok(()) => {
                        let r = facts.range.unwrap_or(SI16);
                        eprintln!(
                            "narrow-integers: {what} becomes si16: its values lie in [{}, {}]",
                            r.lo, r.hi
                        );
                    }
                    Err(why) => eprintln!("narrow-integers: {what} keeps its type: {why}"),
                }
            }
            if verdict.is_err() {
                continue;
            }
            let Some(si16) = raw::producer(first)
                .map(raw::parent)
                .or_else(|| self.arg_graph.get(&key(first)).copied())
                .and_then(|anchor| raw::parse_type(anchor, "si16"))
            else {
                continue;
            };
            for &v in &facts.members {
                let ty = raw::with_element(raw::value_type(v), si16);
                let def = raw::producer(v);
                if let Some(def) = def.filter(|&d| INDEX_RESULT.contains(&raw::op_name(d).as_str()))
                {
                    // coreai-core infers si32 for these: the class starts
                    // at a cast.
                    let cast = raw::cast(v, ty, raw::location(def));
                    raw::insert_after(def, cast);
                    raw::replace_all_uses_except(v, raw::result(cast, 0), &[cast]);
                    if let Some(r) = self.ranges.get(&key(v)).copied() {
                        self.ranges.insert(key(raw::result(cast, 0)), r);
                    }
                } else if let Some(def) = def {
                    raw::set_value_type(v, ty);
                    retype_combiner(def, si16);
                } else {
                    raw::set_argument_type(v, ty);
                    if let Some(&g) = self.arg_graph.get(&key(v)) {
                        changed.push(g);
                    }
                }
            }
            for &(user, i, c) in &facts.constants {
                let narrow = *narrowed_constants
                    .entry(key(c))
                    .or_insert_with(|| narrowed_constant(c, si16));
                raw::set_operand(user, i, narrow);
            }
        }
        let mut casts = Vec::new();
        for &op in &self.ops {
            if raw::op_name(op) == coreai::CAST {
                let (x, y) = (raw::operand(op, 0), raw::result(op, 0));
                if raw::same_type(raw::value_type(x), raw::value_type(y)) {
                    raw::replace_all_uses(y, x);
                    raw::erase(op);
                } else {
                    casts.push(op);
                }
            }
        }
        for cast in casts {
            self.compare_as_arithmetic(cast);
        }
        changed
    }

    /// `cast(a ≠ b)`, `cast(a = b)`, `cast(a > b)` of `si16` integers whose
    /// difference `d = a - b` is proven in `[-32767, 32767]`: the boolean
    /// (which the Neural Engine has no type for) becomes `min(|d|, 1)`,
    /// `1 - min(|d|, 1)` and `min(max(d, 0), 1)` in `si16`, exact for
    /// integers (`a ≠ b` iff `|d| ≥ 1`, `a > b` iff `d ≥ 1`), then cast.
    fn compare_as_arithmetic(&self, cast: MlirOperation) -> Option<()> {
        let cmp = raw::producer(raw::operand(cast, 0))?;
        let name = raw::op_name(cmp);
        let kind = match name.as_str() {
            coreai::NOT_EQUAL | coreai::DECOMPOSABLE_BROADCASTING_NOT_EQUAL => 0,
            coreai::EQUAL | coreai::DECOMPOSABLE_BROADCASTING_EQUAL => 1,
            coreai::GREATER | coreai::DECOMPOSABLE_BROADCASTING_GREATER => 2,
            _ => return None,
        };
        let (a, b) = (raw::operand(cmp, 0), raw::operand(cmp, 1));
        let is_si16 = |v: MlirValue| raw::int_kind(element_of(v)) == Some((16, true));
        let result = raw::result(cast, 0);
        let to = element_of(result);
        let d_range = self.range(a)?.sub(self.range(b)?);
        if !(is_si16(a) && is_si16(b) && d_range.within(Range::new(-SI16.hi, SI16.hi)))
            || raw::int_kind(to).is_none() && raw::float_kind(to).is_none()
        {
            return None;
        }
        let si16 = raw::parse_type(cast, "si16")?;
        let ty = raw::with_element(raw::value_type(result), si16);
        let scalar = raw::parse_type(cast, "tensor<si16>")?;
        let location = raw::location(cast);
        let build = |op: &str, operands: &[MlirValue], ty: MlirType| -> MlirValue {
            let new = raw::create(op, location, operands, &[ty], &[]);
            raw::insert_before(cast, new);
            raw::result(new, 0)
        };
        let constant = |v: i16| -> MlirValue {
            let attr = raw::i16_attribute(scalar, &[v]);
            let new = raw::create(
                coreai::CONSTANT,
                location,
                &[],
                &[scalar],
                &[raw::named(cast, "value", attr)],
            );
            raw::insert_before(cast, new);
            raw::result(new, 0)
        };
        let one = constant(1);
        let d = build(coreai::DECOMPOSABLE_BROADCASTING_SUB, &[a, b], ty);
        let value = match kind {
            2 => {
                let positive = build(
                    coreai::DECOMPOSABLE_BROADCASTING_MAXIMUM,
                    &[d, constant(0)],
                    ty,
                );
                build(
                    coreai::DECOMPOSABLE_BROADCASTING_MINIMUM,
                    &[positive, one],
                    ty,
                )
            }
            _ => {
                let magnitude = build(coreai::ABS, &[d], ty);
                let ne = build(
                    coreai::DECOMPOSABLE_BROADCASTING_MINIMUM,
                    &[magnitude, one],
                    ty,
                );
                if kind == 0 {
                    ne
                } else {
                    build(coreai::DECOMPOSABLE_BROADCASTING_SUB, &[one, ne], ty)
                }
            }
        };
        let value = if raw::same_type(ty, raw::value_type(result)) {
            value
        } else {
            build(coreai::CAST, &[value], raw::value_type(result))
        };
        raw::replace_all_uses(result, value);
        raw::erase(cast);
        if !raw::has_uses(raw::result(cmp, 0)) {
            raw::erase(cmp);
        }
        Some(())
    }
}

/// Whether every op of `op`'s regions (a scatter's combiner) is a
/// `yield` or an elementwise op, so its scalars can change type with it.
fn combiner_retypable(op: MlirOperation) -> bool {
    raw::region_blocks(op).into_iter().all(|b| {
        raw::block_ops(b).into_iter().all(|o| {
            let name = raw::op_name(o);
            name == coreai::YIELD || ELEMENTWISE.contains(&name.as_str())
        })
    })
}

/// The wide integer scalars of `op`'s combiner regions become `si16`.
fn retype_combiner(op: MlirOperation, si16: MlirType) {
    for block in raw::region_blocks(op) {
        let values = raw::arguments(block)
            .into_iter()
            .chain(raw::block_ops(block).into_iter().flat_map(raw::results));
        for v in values.collect::<Vec<_>>() {
            if raw::int_kind(element_of(v)).is_some_and(|(w, signed)| signed && w > 16) {
                let ty = raw::with_element(raw::value_type(v), si16);
                if raw::producer(v).is_some() {
                    raw::set_value_type(v, ty);
                } else {
                    raw::set_argument_type(v, ty);
                }
            }
        }
    }
}

/// `c` (an integer constant whose values fit) as an `si16` constant right
/// after it.
fn narrowed_constant(c: MlirValue, si16: MlirType) -> MlirValue {
    let def = raw::producer(c).expect("a constant");
    let values: Vec<i16> = raw::constant_ints(c)
        .unwrap_or_default()
        .into_iter()
        .map(|v| v as i16)
        .collect();
    let ty = raw::with_element(raw::value_type(c), si16);
    let splat = values.windows(2).all(|w| w[0] == w[1]);
    let attr = raw::i16_attribute(ty, if splat { &values[..1] } else { &values });
    let op = raw::create(
        coreai::CONSTANT,
        raw::location(def),
        &[],
        &[ty],
        &[raw::named(def, "value", attr)],
    );
    raw::insert_after(def, op);
    raw::result(op, 0)
}

/// "'OP' at LOC and N other values" for remarks.
fn describe(v: MlirValue, count: usize) -> String {
    let ty = raw::type_text(raw::value_type(v));
    let what = match raw::producer(v) {
        Some(def) => format!(
            "{}: the {ty} result of '{}'",
            raw::location_text(def),
            raw::op_name(def)
        ),
        None => format!(
            "{}: an argument of type {ty}",
            raw::location_string(raw::value_location(v))
        ),
    };
    match count {
        1 => what,
        2 => format!("{what} (and 1 value of its class)"),
        n => format!("{what} (and {} values of its class)", n - 1),
    }
}

/// The extremes of a small integer constant's values.
fn constant_range(v: MlirValue) -> Option<Range> {
    if raw::static_shape(raw::value_type(v))?
        .iter()
        .product::<i64>()
        > 1 << 16
    {
        return None;
    }
    let values = raw::constant_ints(v)?;
    let lo = values.iter().copied().min()?;
    let hi = values.iter().copied().max()?;
    Some(Range::new(lo.into(), hi.into()))
}

/// The integer of a splat integer constant.
fn splat_int(v: MlirValue) -> Option<i128> {
    let values = raw::constant_ints(v)?;
    let first = *values.first()?;
    values.iter().all(|&x| x == first).then_some(first.into())
}

/// Erases `op` and, recursively, its operands' producers left unused
/// (constants but for their uses), recording each erased op and its
/// results (handles that must not be read again).
fn erase_dead_chain(op: MlirOperation, erased: &mut Vec<(usize, Vec<usize>)>) {
    let operands = raw::operands(op);
    let results = raw::results(op);
    if results.iter().any(|&r| raw::has_uses(r)) {
        return;
    }
    erased.push((op.ptr as usize, results.into_iter().map(key).collect()));
    raw::erase(op);
    for v in operands {
        if let Some(def) = raw::producer(v) {
            if raw::op_name(def) != coreai::CONSTANT && !raw::has_uses(v) {
                erase_dead_chain(def, erased);
            }
        }
    }
}

/// The private graph `invoke` calls, when it is called only there.
fn private_callee(invoke: MlirOperation, calls: &HashMap<String, usize>) -> Option<MlirOperation> {
    let name = raw::callee_name(invoke)?;
    raw::lookup_symbol(invoke, &name)
        .filter(|g| raw::is_private(*g) && calls.get(&name) == Some(&1))
}

/// The ops an index passes through unchanged but for its type or shape.
const INDEX_CHAIN: &[&str] = &[
    coreai::CAST,
    coreai::RESHAPE,
    coreai::EXPAND_DIMS,
    coreai::SHRINK_DIMS,
];

/// `n`, the smallest among the gathers `v` indexes in its `block` (through
/// integer casts and reshapes, and into private graphs called once) of each
/// one's longest static indexed dim, when it is at most 32767: the program
/// is defined only where every one of them reads in range, so every valid
/// `v` lies in `[-n, n)`. Gathers in nested regions need not run and do not
/// count.
fn index_extent(v: MlirValue, block: MlirBlock, calls: &HashMap<String, usize>) -> Option<i128> {
    let mut best: Option<i128> = None;
    let mut meet = |n: i128| best = Some(best.map_or(n, |b: i128| b.min(n)));
    for (user, operand) in raw::uses(v) {
        // Only ops every call runs: a gather in a branch need not run.
        if raw::block_of(user).ptr != block.ptr {
            continue;
        }
        let name = raw::op_name(user);
        if INDEX_CHAIN.contains(&name.as_str()) && operand == 0 {
            let result = raw::result(user, 0);
            if raw::int_kind(element_of(result)).is_some() {
                if let Some(n) = index_extent(result, block, calls) {
                    meet(n);
                }
            }
        } else if (name == coreai::GATHER_ND || name == coreai::GATHER_ALONG_AXIS) && operand == 1 {
            if let Some(n) = indexed_extent(user) {
                meet(n);
            }
        } else if name == coreai::INVOKE {
            let Some(callee) = private_callee(user, calls).and_then(raw::entry_block) else {
                continue;
            };
            let param = raw::arguments(callee).get(operand).copied();
            if let Some(n) = param.and_then(|p| index_extent(p, callee, calls)) {
                meet(n);
            }
        }
    }
    best.filter(|&n| n <= SI16.hi)
}

/// The longest dim `gather` indexes, when every one is static.
fn indexed_extent(gather: MlirOperation) -> Option<i128> {
    let input = raw::static_shape(raw::value_type(raw::operand(gather, 0)))?;
    let indexed: Vec<i64> = if raw::op_name(gather) == coreai::GATHER_ND {
        let indices = raw::static_shape(raw::value_type(raw::operand(gather, 1)))?;
        let k = usize::try_from(*indices.last()?).ok()?;
        input.get(..k)?.to_vec()
    } else {
        let axis = raw::constant_ints(raw::operand(gather, 2))?
            .first()
            .copied()?;
        let rank = input.len() as i64;
        let axis = usize::try_from(if axis < 0 { axis + rank } else { axis }).ok()?;
        vec![*input.get(axis)?]
    };
    indexed.into_iter().max().map(i128::from)
}

/// `graph`'s `function_type` from its entry block's argument types and its
/// terminator's operand types.
fn retype_signature(graph: MlirOperation) {
    let Some(block) = raw::entry_block(graph) else {
        return;
    };
    let inputs: Vec<MlirType> = raw::arguments(block)
        .into_iter()
        .map(raw::value_type)
        .collect();
    let outputs: Vec<MlirType> = raw::operands(raw::terminator(block))
        .into_iter()
        .map(raw::value_type)
        .collect();
    raw::set_function_type(graph, &inputs, &outputs);
}

#[cfg(test)]
mod tests {
    use super::Range;

    #[test]
    fn interval_arithmetic_bounds_every_pair() {
        let ranges = [
            Range::new(-7, -2),
            Range::new(-3, 4),
            Range::new(0, 9),
            Range::new(2, 5),
        ];
        for a in ranges {
            for b in ranges {
                let (sum, diff, prod) = (a.add(b), a.sub(b), a.mul(b));
                let div = b.floor_div(a);
                let rem = b.modulo(a);
                for x in a.lo..=a.hi {
                    for y in b.lo..=b.hi {
                        assert!(Range::new(x + y, x + y).within(sum));
                        assert!(Range::new(x - y, x - y).within(diff));
                        assert!(Range::new(x * y, x * y).within(prod));
                        // Declined only where the divisor's range holds 0.
                        assert_eq!(div.is_none(), a.lo <= 0 && 0 <= a.hi);
                        assert_eq!(rem.is_none(), div.is_none());
                        if div.is_some() {
                            let q = (y as f64 / x as f64).floor() as i128;
                            assert!(
                                div.is_some_and(|d| Range::new(q, q).within(d)),
                                "{y} // {x}"
                            );
                            for m in [y % x, y - x * q] {
                                assert!(
                                    rem.is_some_and(|r| Range::new(m, m).within(r)),
                                    "{y} mod {x}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
