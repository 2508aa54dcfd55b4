//! `narrow-index-inputs`: an integer input that only indexes takes the
//! Neural Engine's integer type, `si16`.
//!
//! The Neural Engine computes in f16, int8 and int16 only (Apple's Neural
//! Engine rules); token ids arrive as `si64` (PyTorch's `long`) and the
//! lowering casts them to the `si32` indices of a `gather_nd` (an
//! embedding) or `gather_along_axis`, so the cast, the reshapes after it
//! and the gather leave the Neural Engine. When every use of a public
//! graph's integer argument reaches, through integer casts and reshapes
//! (`reshape`, `expand_dims`, `shrink_dims`) and into the private graphs
//! it is passed to (`target-ane`'s embedding graph, called once), only the
//! indices of gathers whose indexed dims are at most 32767 long, the
//! argument becomes `si16`
//! (same shape), the chain computes in `si16`, and the casts, now from
//! `si16` to `si16`, go.
//!
//! Exact for every input the program is defined on: a valid index lies in
//! `[-n, n)` for an indexed dim of length `n ≤ 32767`, which `si16` holds,
//! so every gather reads the same element. The caller passes `si16` ids:
//! the signature changes (like `cast-to-f16{io=f16}` for floats), which is
//! why `coreai-compile --target ane` runs it only with `--io f16`, its
//! default there.
//!
//! Declines (the argument keeps its type; with `remarks=true` one line on
//! stderr says why): a use that is not a cast to an integer, a reshape or
//! a gather's indices or an argument of a private graph called once; an
//! indexed dim longer than 32767 or dynamic (a vocabulary of 151,936 rows:
//! its ids need more than 16 bits). Private graphs are narrowed only
//! through their one caller.

use coreai_ir::op::coreai;
use coreai_ir::pass::{Pass, PassInfo, PassResult};
use coreai_ir::raw;
use coreai_ir::rewrite::RewriteOptions;
use melior::ir::operation::{OperationLike, OperationRef, WalkOrder, WalkResult};
use mlir_sys::{MlirOperation, MlirType, MlirValue};
use std::collections::HashMap;

pub const INFO: PassInfo = PassInfo {
    name: "narrow-index-inputs",
    summary: "Give an integer graph input that only indexes (through casts and reshapes, into gathers of dims <= 32767) the Neural Engine's si16 type",
    source: include_str!("narrow_index_inputs.rs"),
    anchor: None,
    options: NarrowIndexInputs::OPTIONS,
    create: || Box::new(NarrowIndexInputs::default()),
};

coreai_ir::pass_options! {
    struct NarrowIndexInputs {
        "remarks" => remarks: bool = "false",
            "print one line per integer input to stderr: narrowed, or why not";
    }
}

/// The longest indexed dim whose indices `si16` holds.
const MAX_EXTENT: i64 = i16::MAX as i64;

/// Ops an index passes through unchanged but for its type or shape.
const CHAIN: &[&str] = &[
    coreai::CAST,
    coreai::RESHAPE,
    coreai::EXPAND_DIMS,
    coreai::SHRINK_DIMS,
];

impl Pass for NarrowIndexInputs {
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.set(name, value)
    }

    fn run(&mut self, root: OperationRef<'_, '_>, _: &RewriteOptions) -> PassResult {
        let mut graphs = Vec::new();
        let mut calls: HashMap<String, usize> = HashMap::new();
        root.walk(WalkOrder::PreOrder, |op| {
            let raw_op = op.to_raw();
            let name = raw::op_name(raw_op);
            if name == coreai::GRAPH && !raw::is_private(raw_op) {
                graphs.push(raw_op);
            } else if name == coreai::INVOKE {
                if let Some(callee) = raw::callee_name(raw_op) {
                    *calls.entry(callee).or_default() += 1;
                }
            }
            WalkResult::Advance
        });
        for graph in graphs {
            let Some(block) = raw::entry_block(graph) else {
                continue;
            };
            let mut changed = false;
            for arg in raw::arguments(block) {
                let ty = raw::value_type(arg);
                let Some((bits, _)) = raw::element(ty).and_then(raw::int_kind) else {
                    continue;
                };
                if bits <= 16 || !raw::is_ranked_tensor(ty) {
                    continue;
                }
                let mut chain = Chain::default();
                match chain.follow(arg, &calls) {
                    Ok(()) => {
                        chain.narrow(graph, arg);
                        changed = true;
                        if self.remarks {
                            eprintln!(
                                "narrow-index-inputs: {}: an argument of type {} becomes si16: it only indexes",
                                raw::location_text(graph),
                                raw::type_text(ty)
                            );
                        }
                    }
                    Err(why) if self.remarks => eprintln!(
                        "narrow-index-inputs: {}: an argument of type {} keeps its type: {why}",
                        raw::location_text(graph),
                        raw::type_text(ty)
                    ),
                    Err(_) => {}
                }
            }
            if changed {
                retype_signature(graph);
            }
        }
        Ok(())
    }
}

/// What an index argument reaches: the casts and reshapes on its way, the
/// arguments of the private graphs it is passed to, and the gathers.
#[derive(Default)]
struct Chain {
    ops: Vec<MlirOperation>,
    callee_args: Vec<(MlirOperation, MlirValue)>,
    gathers: usize,
}

impl Chain {
    /// Follows every use of `v`, or says why `v` does more than index.
    fn follow(&mut self, v: MlirValue, calls: &HashMap<String, usize>) -> Result<(), String> {
        for (user, operand) in raw::uses(v) {
            let name = raw::op_name(user);
            if CHAIN.contains(&name.as_str()) && operand == 0 {
                let result = raw::result(user, 0);
                if raw::element(raw::value_type(result))
                    .and_then(raw::int_kind)
                    .is_none()
                {
                    return Err(format!("'{name}' makes it a non-integer"));
                }
                self.ops.push(user);
                self.follow(result, calls)?;
            } else if (name == coreai::GATHER_ND || name == coreai::GATHER_ALONG_AXIS)
                && operand == 1
            {
                indexed_extents_fit(user)?;
                self.gathers += 1;
            } else if name == coreai::INVOKE {
                let callee_name = raw::callee_name(user).unwrap_or_default();
                let callee = raw::lookup_symbol(user, &callee_name)
                    .filter(|g| raw::is_private(*g) && calls.get(&callee_name) == Some(&1))
                    .ok_or_else(|| {
                        format!("it is passed to '{callee_name}', not a private graph called once")
                    })?;
                let arg = raw::entry_block(callee)
                    .and_then(|b| raw::arguments(b).get(operand).copied())
                    .ok_or_else(|| format!("'{callee_name}' has no argument #{operand}"))?;
                self.callee_args.push((callee, arg));
                self.follow(arg, calls)?;
            } else {
                return Err(format!("operand #{operand} of '{name}' is not an index"));
            }
        }
        if self.gathers == 0 {
            return Err("it indexes no gather".into());
        }
        Ok(())
    }

    /// `arg` and every value of the chain become `si16`; the casts, now
    /// identities, go; the signatures follow.
    fn narrow(&self, graph: MlirOperation, arg: MlirValue) {
        let Some(si16) = raw::parse_type(graph, "si16") else {
            return;
        };
        let to_si16 = |v: MlirValue| raw::with_element(raw::value_type(v), si16);
        raw::set_argument_type(arg, to_si16(arg));
        for &(_, a) in &self.callee_args {
            raw::set_argument_type(a, to_si16(a));
        }
        for &op in &self.ops {
            let result = raw::result(op, 0);
            raw::set_value_type(result, to_si16(result));
        }
        for &op in &self.ops {
            if raw::op_name(op) == coreai::CAST {
                raw::replace_all_uses(raw::result(op, 0), raw::operand(op, 0));
                raw::erase(op);
            }
        }
        for &(callee, _) in &self.callee_args {
            retype_signature(callee);
        }
    }
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

/// Whether every dim `gather` indexes is static and at most 32767 long.
fn indexed_extents_fit(gather: MlirOperation) -> Result<(), String> {
    let input = raw::static_shape(raw::value_type(raw::operand(gather, 0)))
        .ok_or("the gathered tensor has a dynamic shape")?;
    let indexed: Vec<i64> = if raw::op_name(gather) == coreai::GATHER_ND {
        let indices = raw::static_shape(raw::value_type(raw::operand(gather, 1)))
            .ok_or("the indices have a dynamic shape")?;
        let k = usize::try_from(*indices.last().unwrap_or(&0)).unwrap_or(usize::MAX);
        input
            .get(..k)
            .ok_or("more index components than dims")?
            .to_vec()
    } else {
        let axis = raw::constant_ints(raw::operand(gather, 2))
            .and_then(|a| a.first().copied())
            .ok_or("the axis is not a constant")?;
        let rank = input.len() as i64;
        let axis = if axis < 0 { axis + rank } else { axis };
        vec![*usize::try_from(axis)
            .ok()
            .and_then(|a| input.get(a))
            .ok_or("the axis is out of range")?]
    };
    match indexed.iter().find(|&&n| n > MAX_EXTENT) {
        Some(n) => Err(format!(
            "it indexes a dim of {n} (si16 holds indices up to {MAX_EXTENT})"
        )),
        None => Ok(()),
    }
}
