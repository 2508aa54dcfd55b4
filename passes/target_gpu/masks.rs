//! Masks built from integer comparisons (conversion guide §9.7 #8,
//! apple/coreai-torch#11): on the CPU and GPU delegates an "int64
//! comparison → bool → float" chain, the in-bounds mask of a gather-based
//! sampler (`((i >= 0) & (i < W)).float()` with `i = floor(x).long()`),
//! corrupts an unrelated live tensor. The reporter's workaround computes the
//! mask in float arithmetic on the integer-valued floats the integers were
//! cast from and casts to int only at the gather index. These rewrites do
//! that where the values allow it:
//!
//! ```text
//! cast(b : i1) to float         → m                    (mask-arithmetic)
//! where(b : i1, x, y)  (float)  → where(m > 0, x, y)    (mask-select)
//! ```
//!
//! where `b` is built from `greater`, `equal`, `not_equal` of integers and
//! `and`/`or`/`xor`/`not` (bitwise or logical) of such bools, and `m` is the
//! same function of `b` in float arithmetic, each integer operand `i`
//! replaced by a float `a` with `i = a`:
//!
//! ```text
//! a >= b  (or(greater(a, b), equal(a, b)))  → max(min((a - b) + 1, 1), 0)
//! a > b                                      → 1 - (b >= a)
//! a == b                                     → 1 - min(|a - b|, 1)
//! a != b                                     → min(|a - b|, 1)
//! p and q → p · q;  p or q → max(p, q);  p xor q → |p - q|;  not p → 1 - p
//! ```
//!
//! (a bool compared as a bool is an `xor`; a comparison of floats inside the
//! tree is kept and cast to 0/1). The mask is computed in the element type
//! of the floats and cast to the result's float type (0 and 1 are exact in
//! every float type).
//!
//! Integer operands accepted: (a) `cast(y)` float → int, with `y` proven
//! integer-valued wherever it is finite; (b) a splat integer constant
//! exactly representable in the float type. Integer arithmetic between the
//! cast and the comparison (`i + 1 < W` computed in int64) is declined: its
//! float image rounds beyond 2^p, where a comparison with a neighbouring
//! integer could flip. `y` is integer-valued ("integral") when it is:
//! - a float `floor_divide` (any operands: a floor, or ±inf/NaN), a
//!   `coreai.round`, an int or bool → float cast, a splat constant with an
//!   integral (or non-finite) value, a float → float cast of an integral
//!   value (rounding an integer gives an integer);
//! - `abs`, `add`, `sub`, `mul`, `maximum`, `minimum` of integral values
//!   (the exact result is an integer; rounded, it stays one);
//! - `where(c, p, q)` whose branches are integral wherever they are
//!   selected: `p` under `c = (p == k)` (k integral), or under
//!   `c = (f != f)` where f is NaN only where p is NaN or ±inf; `q` under
//!   `¬c` when `c` is `|q| < B` with B ≥ 2^p (every float that large is an
//!   integer), `|q| > 0`, or an `and` of these. These cover the floor and
//!   trunc lowerings (`where(f != f, x, f)`, `f = x // 1`), the trunc
//!   before every float → int cast, and this pass's own floor and round
//!   rewrites (`where(0 < |x| < 2^p, (2x) // 2, x)`, whose `(2x) // 2` is
//!   finite under the guard).
//!
//! Anything else (a graph input, a division, an op not listed) is not
//! proven and the rewrite declines, with the reason.
//!
//! Exactness, for integral finite a, b (any magnitude): a - b is an integer,
//! and round-to-nearest is monotone and keeps representable values, so
//! fl(a - b) is +0 when a = b (x - x is +0), ≥ 1 in magnitude otherwise
//! with a's side of b's sign (an overflow gives ±inf, on the same side);
//! then fl(d + 1) ≥ 1 when d ≥ 0 and ≤ +0 when d ≤ -1, so the min/max give
//! exactly 1 or +0, and |d| clamped to 1 is 0 or 1. Products, max, |p - q|
//! and 1 - p of {+0, 1} are in {+0, 1}. No -0 is formed (coreai-core's
//! `maximum(-0, +0)` is -0, measured; PyTorch's bool → float gives +0), so
//! `x · m` and `where` equal eager PyTorch's bit for bit. With i = cast(a)
//! in range, i = a, so the mask equals the comparison's.
//!
//! Outside the claim: elements where the float → int cast is undefined in
//! PyTorch (y NaN, ±inf, or beyond the integer type's range, e.g.
//! |y| ≥ 2^63 for int64), whose integer and so whose mask PyTorch leaves
//! unspecified. There the float mask follows the float arithmetic: NaN
//! propagates through min/max (a NaN mask; `where(NaN > 0, ..)` takes the
//! second branch), ±inf compares as ±inf.
//!
//! Declines (each with its reason, listed by `remarks`): an integer operand
//! not proven integral, an integer operand that is not a cast or a constant,
//! a constant not exact in the float type, integer operands cast from
//! different float types, a mask reshaped, broadcast or otherwise moved
//! between the comparisons and the cast, a non-float result. Casts of
//! non-bools and bools with no integer comparison are not this idiom: their
//! declines start with [`NOT_A_MASK`] and are not reported.

use super::integral_from;
use crate::fp16_stabilize::pattern::{op_name, producer, splat};
use coreai_ir::emit::{arith, cast_to, float_scalar, predicate, select_to, splat as fill, unary};
use coreai_ir::lowering::{Decline, LoweringCx, Scalar};
use coreai_ir::op::coreai;
use coreai_ir::schema::{element_type, is_bool, is_float, shape_of, tensor_type};
use melior::ir::{
    operation::OperationLike, r#type::ShapedTypeLike, OperationRef, Type, TypeLike, Value,
    ValueLike,
};
use std::collections::HashMap;

/// How every decline of an op that is not the idiom begins; the pass does
/// not report them.
pub const NOT_A_MASK: &str = "not an integer-comparison mask";

/// The deepest expression the analyses follow.
const MAX_DEPTH: usize = 48;

/// An integer operand of a comparison, as the float it equals.
#[derive(Clone, Copy)]
enum Number<'c, 'a> {
    /// `y` of `cast(y)`, float → int, `y` proven integral.
    Float(Value<'c, 'a>),
    /// A splat integer constant: its value and the constant (for its shape).
    Constant(i64, Value<'c, 'a>),
}

/// A bool of the mask, as it is rebuilt.
enum Mask<'c, 'a> {
    AtLeast(Number<'c, 'a>, Number<'c, 'a>),
    Greater(Number<'c, 'a>, Number<'c, 'a>),
    Equal(Number<'c, 'a>, Number<'c, 'a>),
    NotEqual(Number<'c, 'a>, Number<'c, 'a>),
    And(Box<Mask<'c, 'a>>, Box<Mask<'c, 'a>>),
    Or(Box<Mask<'c, 'a>>, Box<Mask<'c, 'a>>),
    Xor(Box<Mask<'c, 'a>>, Box<Mask<'c, 'a>>),
    Not(Box<Mask<'c, 'a>>),
    /// A bool kept as it is (a comparison of floats, a graph input), cast
    /// to 0/1.
    Kept(Value<'c, 'a>),
}

/// The name of `op`, a broadcasting form named as its elementwise op
/// (`coreai::GREATER` for `coreai.decomposable.broadcasting_greater`).
fn short(op: &OperationRef<'_, '_>) -> String {
    let name = op_name(op);
    coreai::broadcast_base(&name).map_or(name, str::to_string)
}

fn operands<'c: 'a, 'a>(op: &OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    (0..op.operand_count())
        .filter_map(|i| op.operand(i).ok())
        .collect()
}

fn is_integer(v: Value<'_, '_>) -> bool {
    element_type(v).is_ok_and(|e| e.is_integer() && !is_bool(e))
}

fn float_element(v: Value<'_, '_>) -> bool {
    element_type(v).is_ok_and(is_float)
}

/// The value of a splat integer `coreai.constant`.
fn int_splat(v: Value<'_, '_>) -> Option<i64> {
    coreai_ir::raw::int_value(crate::fp16_stabilize::pattern::splat_element(v)?)
}

/// Whether `v` is a splat float constant whose value is an integer or
/// non-finite.
fn integral_constant(v: Value<'_, '_>) -> bool {
    splat(v).is_some_and(|c| !c.is_finite() || c.fract() == 0.0)
}

/// The largest finite float of the type whose integral exponent is `p`.
fn max_finite(p: i32) -> f64 {
    match p {
        23 => f32::MAX as f64,
        10 => 65504.0,
        7 => 3.389_531_389_251_535_5e38,
        _ => f64::MAX,
    }
}

/// Whether the integer `k` is a float of the type whose integral exponent
/// is `p` (p + 1 significant bits, within its range).
fn representable(k: i64, p: i32) -> bool {
    let m = k.unsigned_abs();
    m == 0 || ((m >> m.trailing_zeros()) < (1u64 << (p + 1)) && m as f64 <= max_finite(p))
}

/// What the analyses found out about float values, by value.
#[derive(Default)]
struct Facts {
    integral: HashMap<usize, bool>,
}

fn key(v: Value<'_, '_>) -> usize {
    v.to_raw().ptr as usize
}

impl Facts {
    /// Whether every finite element of the float `v` is an integer.
    fn integral(&mut self, v: Value<'_, '_>, depth: usize) -> bool {
        if let Some(&known) = self.integral.get(&key(v)) {
            return known;
        }
        let result = depth < MAX_DEPTH && float_element(v) && self.integral_by_rule(v, depth + 1);
        self.integral.insert(key(v), result);
        result
    }

    fn integral_by_rule(&mut self, v: Value<'_, '_>, depth: usize) -> bool {
        let Some(op) = producer(v) else {
            return false;
        };
        let args = operands(&op);
        match (short(&op).as_str(), args.as_slice()) {
            (coreai::CONSTANT, _) => integral_constant(v),
            (coreai::CAST, [y]) => !float_element(*y) || self.integral(*y, depth),
            (coreai::FLOOR_DIVIDE | coreai::ROUND, _) => true,
            (coreai::ABS, [x]) => self.integral(*x, depth),
            (
                coreai::ADD | coreai::SUB | coreai::MUL | coreai::MAXIMUM | coreai::MINIMUM,
                [a, b],
            ) => self.integral(*a, depth) && self.integral(*b, depth),
            (coreai::WHERE, [c, a, b]) => {
                (integral_when(*c, *a, depth) || self.integral(*a, depth))
                    && (integral_unless(*c, *b, depth) || self.integral(*b, depth))
            }
            _ => false,
        }
    }
}

/// Whether `a` is integral (or non-finite) wherever the bool `c` is true.
fn integral_when(c: Value<'_, '_>, a: Value<'_, '_>, depth: usize) -> bool {
    let Some(op) = producer(c).filter(|_| depth < MAX_DEPTH) else {
        return false;
    };
    match (short(&op).as_str(), operands(&op).as_slice()) {
        (coreai::EQUAL, [p, q]) => {
            (*p == a && integral_constant(*q)) || (*q == a && integral_constant(*p))
        }
        // f != f: f is NaN, which it is only where a is NaN or ±inf.
        (coreai::NOT_EQUAL, [p, q]) => p == q && nan_only_where_not_finite(*p, a),
        (coreai::AND, [p, q]) => integral_when(*p, a, depth + 1) || integral_when(*q, a, depth + 1),
        (coreai::OR, [p, q]) => integral_when(*p, a, depth + 1) && integral_when(*q, a, depth + 1),
        (coreai::NOT, [p]) => integral_unless(*p, a, depth + 1),
        _ => false,
    }
}

/// Whether `b` is integral (or non-finite) wherever the bool `c` is false.
fn integral_unless(c: Value<'_, '_>, b: Value<'_, '_>, depth: usize) -> bool {
    let Some(op) = producer(c).filter(|_| depth < MAX_DEPTH) else {
        return false;
    };
    let Some(p) = element_type(b).ok().and_then(integral_from) else {
        return false;
    };
    match (short(&op).as_str(), operands(&op).as_slice()) {
        // ¬(B > |b|): |b| ≥ B ≥ 2^p (an integer) or NaN.
        (coreai::GREATER, [bound, m]) if is_abs_of(*m, b) => {
            splat(*bound).is_some_and(|bound| bound >= 2f64.powi(p))
        }
        // ¬(|b| > z), z ≤ 0: b is ±0 or NaN.
        (coreai::GREATER, [m, z]) if is_abs_of(*m, b) => splat(*z).is_some_and(|z| z <= 0.0),
        (coreai::AND, [p, q]) => {
            integral_unless(*p, b, depth + 1) && integral_unless(*q, b, depth + 1)
        }
        (coreai::OR, [p, q]) => {
            integral_unless(*p, b, depth + 1) || integral_unless(*q, b, depth + 1)
        }
        (coreai::NOT, [p]) => integral_when(*p, b, depth + 1),
        _ => false,
    }
}

fn is_abs_of(m: Value<'_, '_>, x: Value<'_, '_>) -> bool {
    producer(m).is_some_and(|op| short(&op) == coreai::ABS && op.operand(0).is_ok_and(|v| v == x))
}

/// A constant divisor that keeps a finite dividend finite: |k| ≥ 1.
fn finite_divisor(k: Value<'_, '_>) -> bool {
    splat(k).is_some_and(|k| k.is_finite() && k.abs() >= 1.0)
}

/// Whether `f` is NaN only where `a` is NaN or ±inf: `a` itself,
/// `floor_divide(a, k)` with |k| ≥ 1, or the guarded
/// `where(|a| < B ∧ .., floor_divide(a · c, k), a)` with |c|·B finite.
fn nan_only_where_not_finite(f: Value<'_, '_>, a: Value<'_, '_>) -> bool {
    if f == a {
        return true;
    }
    let Some(op) = producer(f) else {
        return false;
    };
    match (short(&op).as_str(), operands(&op).as_slice()) {
        (coreai::FLOOR_DIVIDE, [x, k]) => *x == a && finite_divisor(*k),
        (coreai::WHERE, [g, h, x]) if *x == a => {
            bound_of(*g, a).is_some_and(|bound| finite_below(*h, a, bound))
        }
        _ => false,
    }
}

/// A bound B with `|a| < B` wherever `g` is true, from `B > |a|` alone or
/// in an `and`.
fn bound_of(g: Value<'_, '_>, a: Value<'_, '_>) -> Option<f64> {
    let op = producer(g)?;
    match (short(&op).as_str(), operands(&op).as_slice()) {
        (coreai::GREATER, [bound, m]) if is_abs_of(*m, a) => splat(*bound),
        (coreai::AND, [p, q]) => match (bound_of(*p, a), bound_of(*q, a)) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        },
        _ => None,
    }
}

/// Whether `h` is finite wherever `a` is finite with |a| < `bound`:
/// `floor_divide(m, k)`, |k| ≥ 1, of `m = a` or `m = a · c` with
/// |c| · bound finite.
fn finite_below(h: Value<'_, '_>, a: Value<'_, '_>, bound: f64) -> bool {
    let Some(op) = producer(h).filter(|op| short(op) == coreai::FLOOR_DIVIDE) else {
        return false;
    };
    let [m, k] = operands(&op)[..] else {
        return false;
    };
    let Some(max) = element_type(a).ok().and_then(integral_from).map(max_finite) else {
        return false;
    };
    let scaled = producer(m).is_some_and(|mul| {
        let args = operands(&mul);
        short(&mul) == coreai::MUL
            && match args[..] {
                [x, c] | [c, x] if x == a => {
                    splat(c).is_some_and(|c| c.is_finite() && c.abs() * bound <= max)
                }
                _ => false,
            }
    });
    finite_divisor(k) && (m == a || scaled)
}

/// The analysis of a mask: its tree, the float type its numbers are in.
struct Plan<'c, 'a> {
    mask: Mask<'c, 'a>,
    element: Type<'c>,
}

/// Whether the bool `b` holds a comparison of integers, through the
/// logical ops and any op moving bools (so that a moved mask is declined
/// with its reason); looks at `budget` ops at most.
fn has_integer_comparison(b: Value<'_, '_>, budget: &mut usize) -> bool {
    let Some(op) = producer(b).filter(|_| *budget > 0) else {
        return false;
    };
    *budget -= 1;
    let args = operands(&op);
    match short(&op).as_str() {
        coreai::GREATER | coreai::EQUAL | coreai::NOT_EQUAL
            if args.iter().any(|v| is_integer(*v)) =>
        {
            true
        }
        _ => args
            .iter()
            .any(|v| element_type(*v).is_ok_and(is_bool) && has_integer_comparison(*v, budget)),
    }
}

/// `(x, y)` when `or(p, q)` is `x >= y` as the lowering writes it:
/// `greater(x, y)` and `equal` of the same two integers.
fn at_least<'c: 'a, 'a>(
    p: Value<'c, 'a>,
    q: Value<'c, 'a>,
) -> Option<(Value<'c, 'a>, Value<'c, 'a>)> {
    let (p, q) = (producer(p)?, producer(q)?);
    let (greater, equal) = match (short(&p).as_str(), short(&q).as_str()) {
        (coreai::GREATER, coreai::EQUAL) => (p, q),
        (coreai::EQUAL, coreai::GREATER) => (q, p),
        _ => return None,
    };
    let (g, e) = (operands(&greater), operands(&equal));
    let (&[x, y], &[e0, e1]) = (&g[..], &e[..]) else {
        return None;
    };
    let same = (e0 == x && e1 == y) || (e0 == y && e1 == x);
    (same && is_integer(x)).then_some((x, y))
}

/// The walk of a mask: what it proved, the float type of its numbers, the
/// integer constants it met.
struct Analysis<'c> {
    facts: Facts,
    element: Option<Type<'c>>,
    constants: Vec<i64>,
}

impl<'c> Analysis<'c> {
    fn sub<'a>(&mut self, b: Value<'c, 'a>, depth: usize) -> Result<Box<Mask<'c, 'a>>, Decline>
    where
        'c: 'a,
    {
        self.mask(b, depth + 1).map(Box::new)
    }

    fn mask<'a>(&mut self, b: Value<'c, 'a>, depth: usize) -> Result<Mask<'c, 'a>, Decline>
    where
        'c: 'a,
    {
        if depth >= MAX_DEPTH {
            return Err(format!("the mask is deeper than {MAX_DEPTH} ops"));
        }
        let Some(op) = producer(b) else {
            return Ok(Mask::Kept(b));
        };
        let name = short(&op);
        let args = operands(&op);
        Ok(match (name.as_str(), &args[..]) {
            (coreai::AND | coreai::BITWISE_AND, &[p, q]) => {
                Mask::And(self.sub(p, depth)?, self.sub(q, depth)?)
            }
            (coreai::OR | coreai::BITWISE_OR, &[p, q]) => match at_least(p, q) {
                Some((x, y)) => Mask::AtLeast(self.number(x)?, self.number(y)?),
                None => Mask::Or(self.sub(p, depth)?, self.sub(q, depth)?),
            },
            (coreai::XOR | coreai::BITWISE_XOR, &[p, q]) => {
                Mask::Xor(self.sub(p, depth)?, self.sub(q, depth)?)
            }
            (coreai::NOT, &[p]) => Mask::Not(self.sub(p, depth)?),
            (coreai::GREATER | coreai::EQUAL | coreai::NOT_EQUAL, &[x, y]) if is_integer(x) => {
                let (x, y) = (self.number(x)?, self.number(y)?);
                match name.as_str() {
                    coreai::GREATER => Mask::Greater(x, y),
                    coreai::EQUAL => Mask::Equal(x, y),
                    _ => Mask::NotEqual(x, y),
                }
            }
            // Bools compared as bools: p != q is p xor q, p > q is p ∧ ¬q.
            (coreai::EQUAL, &[p, q]) if element_type(p).is_ok_and(is_bool) => Mask::Not(Box::new(
                Mask::Xor(self.sub(p, depth)?, self.sub(q, depth)?),
            )),
            (coreai::NOT_EQUAL, &[p, q]) if element_type(p).is_ok_and(is_bool) => {
                Mask::Xor(self.sub(p, depth)?, self.sub(q, depth)?)
            }
            (coreai::GREATER, &[p, q]) if element_type(p).is_ok_and(is_bool) => Mask::And(
                self.sub(p, depth)?,
                Box::new(Mask::Not(self.sub(q, depth)?)),
            ),
            (coreai::GREATER | coreai::EQUAL | coreai::NOT_EQUAL, &[x, _]) if float_element(x) => {
                Mask::Kept(b)
            }
            _ => {
                return Err(format!(
                    "a bool of the mask comes from '{}', not a comparison or and/or/xor/not \
                     (masks reshaped, broadcast or gathered before the cast are not handled)",
                    op_name(&op)
                ))
            }
        })
    }

    /// The float an integer operand equals.
    fn number<'a>(&mut self, v: Value<'c, 'a>) -> Result<Number<'c, 'a>, Decline>
    where
        'c: 'a,
    {
        let Some(op) = producer(v) else {
            return Err(
                "an integer operand is a graph input, not a float → int cast or a constant".into(),
            );
        };
        let args = operands(&op);
        match (short(&op).as_str(), &args[..]) {
            (coreai::CAST, &[y]) if float_element(y) => {
                if !self.facts.integral(y, 0) {
                    let from = producer(y).map_or("a graph input".to_string(), |p| {
                        format!("'{}'", op_name(&p))
                    });
                    return Err(format!(
                        "an integer operand is the cast of a float (from {from}) not proven \
                         integer-valued (floor_divide, round, casts from ints, integral constants \
                         and abs/add/sub/mul/min/max/where of them are)"
                    ));
                }
                let element = element_type(y)?;
                match self.element {
                    Some(e) if e != element => {
                        return Err(format!(
                        "the integer operands are cast from different float types ({e}, {element})"
                    ))
                    }
                    _ => self.element = Some(element),
                }
                Ok(Number::Float(y))
            }
            (coreai::CONSTANT, _) => match int_splat(v) {
                Some(k) => {
                    self.constants.push(k);
                    Ok(Number::Constant(k, v))
                }
                None => Err("an integer constant of the mask is not a splat".into()),
            },
            _ => Err(format!(
                "an integer operand comes from '{}', not a float → int cast or a constant \
                 (integer arithmetic before the comparison is not exact in floats beyond 2^p)",
                op_name(&op)
            )),
        }
    }
}

/// Analyses the bool `b`: declines what is not the idiom (with
/// [`NOT_A_MASK`]) and what the values do not allow.
fn plan<'c: 'a, 'a>(b: Value<'c, 'a>) -> Result<Plan<'c, 'a>, Decline> {
    let mut analysis = Analysis {
        facts: Facts::default(),
        element: None,
        constants: Vec::new(),
    };
    let mask = analysis.mask(b, 0)?;
    let Some(element) = analysis.element else {
        return Err("every integer operand of the mask is a constant".into());
    };
    let p = integral_from(element).ok_or_else(|| format!("{element} is not a float"))?;
    if let Some(k) = analysis.constants.iter().find(|&&k| !representable(k, p)) {
        return Err(format!(
            "the integer constant {k} is not exact in {element}"
        ));
    }
    Ok(Plan { mask, element })
}

/// Checks that `b` is a bool holding an integer comparison.
fn is_mask(b: Value<'_, '_>) -> Result<(), Decline> {
    if !element_type(b).is_ok_and(is_bool) {
        return Err(format!("{NOT_A_MASK}: the operand is not a bool"));
    }
    if !has_integer_comparison(b, &mut 256) {
        return Err(format!("{NOT_A_MASK}: no comparison of integers"));
    }
    Ok(())
}

/// Builds the float mask of `plan` in front of the root.
struct Builder<'x, 'c, 'a> {
    cx: &'x LoweringCx<'c, 'a>,
    element: Type<'c>,
    one: Value<'c, 'a>,
    zero: Value<'c, 'a>,
}

impl<'c, 'a> Builder<'_, 'c, 'a> {
    fn number(&self, n: Number<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
        match n {
            Number::Float(y) => Ok(y),
            Number::Constant(k, v) => fill(
                self.cx,
                Scalar::Float(k as f64),
                tensor_type(&shape_of(v)?, self.element),
            ),
        }
    }

    /// max(min((a - b) + 1, 1), 0): 1 where a ≥ b, +0 elsewhere.
    fn at_least(&self, a: Number<'c, 'a>, b: Number<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
        let cx = self.cx;
        let d = arith(cx, coreai::SUB, self.number(a)?, self.number(b)?)?;
        let e = arith(cx, coreai::ADD, d, self.one)?;
        arith(
            cx,
            coreai::MAXIMUM,
            arith(cx, coreai::MINIMUM, e, self.one)?,
            self.zero,
        )
    }

    /// min(|a - b|, 1): 1 where a ≠ b, +0 elsewhere.
    fn differs(&self, a: Number<'c, 'a>, b: Number<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
        let cx = self.cx;
        let d = arith(cx, coreai::SUB, self.number(a)?, self.number(b)?)?;
        arith(cx, coreai::MINIMUM, unary(cx, coreai::ABS, d)?, self.one)
    }

    fn not(&self, m: Value<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
        arith(self.cx, coreai::SUB, self.one, m)
    }

    fn build(&self, mask: &Mask<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
        let cx = self.cx;
        match mask {
            Mask::AtLeast(a, b) => self.at_least(*a, *b),
            Mask::Greater(a, b) => self.not(self.at_least(*b, *a)?),
            Mask::Equal(a, b) => self.not(self.differs(*a, *b)?),
            Mask::NotEqual(a, b) => self.differs(*a, *b),
            Mask::And(p, q) => arith(cx, coreai::MUL, self.build(p)?, self.build(q)?),
            Mask::Or(p, q) => arith(cx, coreai::MAXIMUM, self.build(p)?, self.build(q)?),
            Mask::Xor(p, q) => unary(
                cx,
                coreai::ABS,
                arith(cx, coreai::SUB, self.build(p)?, self.build(q)?)?,
            ),
            Mask::Not(p) => self.not(self.build(p)?),
            Mask::Kept(b) => cast_to(cx, *b, self.element),
        }
    }
}

/// The float mask of `plan`, built in front of the root.
fn build<'c, 'a>(cx: &LoweringCx<'c, 'a>, plan: &Plan<'c, 'a>) -> Result<Value<'c, 'a>, Decline> {
    let builder = Builder {
        cx,
        element: plan.element,
        one: float_scalar(cx, 1.0, plan.element)?,
        zero: float_scalar(cx, 0.0, plan.element)?,
    };
    builder.build(&plan.mask)
}

/// The float element of result 0, or the decline for a non-float result.
fn float_result<'c>(cx: &LoweringCx<'c, '_>, what: &str) -> Result<Type<'c>, Decline> {
    let element = cx.result_tensor(0)?.element();
    if !is_float(element) {
        return Err(format!(
            "{what} gives {element}, not a float (the defect is the chain to a float)"
        ));
    }
    Ok(element)
}

// cast(%b : i1) to float          (b built from integer comparisons)
//   → the float mask m of b, cast to the result's float type
// Declines: see the module header; casts of non-bools and of bools with no
// integer comparison are not masks.
pub fn cast_of_mask<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let b = cx.operand(0)?;
    is_mask(b)?;
    let element = float_result(cx, "the cast")?;
    let plan = plan(b)?;
    let m = cast_to(cx, build(cx, &plan)?, element)?;
    if m.r#type() != cx.result_type(0)? {
        return Err(format!(
            "the mask has the type {}, the cast {} (broadcasting not handled)",
            m.r#type(),
            cx.result_type(0)?
        ));
    }
    Ok(vec![m])
}

// where(%b : i1, %x, %y) : float   (b built from integer comparisons)
//   → where(m > 0, x, y), m the float mask of b (0 or 1)
// Declines: as cast_of_mask, and a non-float result (selecting integers is
// not the float chain).
pub fn where_of_mask<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let b = cx.operand(0)?;
    is_mask(b)?;
    float_result(cx, "the where")?;
    let plan = plan(b)?;
    let m = build(cx, &plan)?;
    let zero = float_scalar(cx, 0.0, plan.element)?;
    let condition = predicate(cx, coreai::GREATER, m, zero)?;
    if shape_of(condition)? != shape_of(b)? {
        return Err(
            "the mask's shape differs from the condition's (broadcasting not handled)".into(),
        );
    }
    let (x, y) = (cx.operand(1)?, cx.operand(2)?);
    Ok(vec![select_to(cx, condition, x, y, cx.result_type(0)?)?])
}

#[cfg(test)]
mod tests {
    use super::representable;

    #[test]
    fn integers_exact_in_a_float_type() {
        // f32: 24 significant bits; f16: 11 bits, at most 65504.
        assert!(representable(16_777_216, 23) && !representable(16_777_217, 23));
        assert!(representable(-(1 << 40), 23) && representable(i64::MIN, 23));
        assert!(representable(2048, 10) && !representable(2049, 10));
        assert!(representable(65504, 10) && !representable(65536, 10));
    }
}
