//! Reductions (keeping their reduced dims), arg-reductions, softmax, scans, sorting, and reductions with a region body.

use crate::error::{kerr, KResult};
use crate::kernels::nn::{self};
use crate::kernels::reduce::{self, norm_axes, norm_axis, Reduction};
use crate::kernels::shape;
use crate::ops::{one, Ctx, Kernel, Table};
use crate::tensor::{DType, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, Axis};

/// The coreai kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("coreai.reduce_sum", |c| reduce_op(c, Reduction::Sum)),
    ("coreai.reduce_mean", |c| reduce_op(c, Reduction::Mean)),
    ("coreai.reduce_max", |c| reduce_op(c, Reduction::Max)),
    ("coreai.reduce_min", |c| reduce_op(c, Reduction::Min)),
    ("coreai.reduce_product", |c| reduce_op(c, Reduction::Prod)),
    ("coreai.any", |c| reduce_op(c, Reduction::Any)),
    ("coreai.all", |c| reduce_op(c, Reduction::All)),
    ("coreai.argmax", argmax),
    ("coreai.softmax", softmax),
    ("coreai.scan", scan),
    ("coreai.argsort", |c| sort_impl(c, 0)),
    ("coreai.sort", |c| sort_impl(c, 0)),
    ("coreai.reduce", reduce_region),
    ("coreai.reduce_index", reduce_index),
];

fn reduce_op(c: &Ctx, kind: Reduction) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let axes = norm_axes(&c.arg_i64s(1)?, x.ndim(), false)?;
    let dt = c.out_dtype(0)?;
    if x.dtype() == dt {
        if let Some(r) = reduce::reduce_float(kind, x, &axes, true) {
            return one(r?);
        }
    }
    one(Tensor::from_dom(
        reduce::reduce(kind, &x.dom(), &axes, true)?,
        dt,
    ))
}

/// coreai-core's interpreter never picks a NaN (the op doc is silent).
fn argmax(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ax = norm_axis(c.arg_i64(1)?, x.ndim())?;
    one(Tensor::from_i128(
        reduce::arg_reduce_nan(&x.dom(), ax, true, true, false)?,
        c.out_dtype(0)?,
    ))
}

fn softmax(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ax = norm_axis(c.arg_i64(1)?, x.ndim())?;
    if x.dtype() == c.out_dtype(0)? {
        if let Some(r) = reduce::softmax_tensor(x, ax, false) {
            return one(r);
        }
    }
    one(Tensor::from_f64(
        nn::softmax(&x.to_f64(), ax, false),
        c.out_dtype(0)?,
    ))
}

fn scan(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let ax = norm_axis(c.arg_i64(1)?, x.ndim())?;
    let rev = c.arg(2)?.to_bool().iter().any(|&b| b);
    let mode = c.attr("scan_op").map(|a| a.to_text()).unwrap_or_default();
    // The combiner is an i32 enum attribute (`0 : i32` = sum, 1 product,
    // 2 min, 3 max) in the generic form.
    let mode = match mode.split(':').next().map(str::trim) {
        Some("0") => "sum".to_string(),
        Some("1") => "prod".to_string(),
        Some("2") => "min".to_string(),
        Some("3") => "max".to_string(),
        _ => mode,
    };
    let dt = c.out_dtype(0)?;
    let kind = if mode.contains("sum") {
        reduce::Scan::Sum
    } else if mode.contains("prod") {
        reduce::Scan::Prod
    } else if mode.contains("max") {
        reduce::Scan::Max
    } else if mode.contains("min") {
        reduce::Scan::Min
    } else {
        return kerr(format!("scan combiner {mode} is not supported"));
    };
    let round = move |v: f64| match dt {
        DType::F16 => half::f16::from_f64(v).to_f64(),
        DType::BF16 => half::bf16::from_f64(v).to_f64(),
        DType::F32 => v as f32 as f64,
        _ => v,
    };
    let r = reduce::scan_sequential(&x.dom(), ax, kind, rev, round)?;
    one(Tensor::from_dom(r, dt))
}

/// Stable sort along `dim` (NaN last in both directions); values
/// and/or indices as the results ask.
fn sort_impl(c: &Ctx, first: usize) -> KResult<Vec<Value>> {
    let x = c.arg(first)?;
    let d = norm_axis(c.arg_i64(first + 1)?, x.ndim())?;
    let desc = c.arg(first + 2)?.to_bool().iter().any(|&b| b);
    let vals = x.to_f64();
    // Integers compare exactly (an f64 key ties 2^60 and 2^60 + 1).
    let ints = (!x.dtype().is_float() && !x.dtype().is_complex()).then(|| x.to_i128());
    let int_lanes: Vec<Vec<i128>> = ints
        .as_ref()
        .map(|a| a.lanes(Axis(d)).into_iter().map(|l| l.to_vec()).collect())
        .unwrap_or_default();
    let mut order = ArrayD::<i128>::zeros(vals.raw_dim());
    for (n, (lane, mut o)) in vals
        .lanes(Axis(d))
        .into_iter()
        .zip(order.lanes_mut(Axis(d)))
        .enumerate()
    {
        let mut ix: Vec<usize> = (0..lane.len()).collect();
        let key = |i: &usize| lane[*i];
        // NaN sorts last in both directions (coreai-core's interpreter).
        ix.sort_by(|a, b| {
            let (p, q) = (key(a), key(b));
            if let Some(il) = int_lanes.get(n) {
                let ord = il[*a].cmp(&il[*b]);
                return if desc { ord.reverse() } else { ord };
            }
            match (p.is_nan(), q.is_nan()) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => std::cmp::Ordering::Greater,
                (false, true) => std::cmp::Ordering::Less,
                _ => {
                    let ord = p.partial_cmp(&q).unwrap_or(std::cmp::Ordering::Equal);
                    if desc {
                        ord.reverse()
                    } else {
                        ord
                    }
                }
            }
        });
        for (k, i) in ix.into_iter().enumerate() {
            o[k] = i as i128;
        }
    }
    let mut out = Vec::new();
    for r in 0..c.op.num_results() {
        let dt = c.out_dtype(r)?;
        if dt == x.dtype() && !(c.op.num_results() == 1 && c.name.ends_with("argsort")) {
            let picked = shape::gather(x, d, &order.mapv(|v| v as i64))?;
            out.push(Value::tensor(picked));
        } else {
            out.push(Value::tensor(Tensor::from_i128(order.clone(), dt)));
        }
    }
    Ok(out)
}

/// Runs a single-block region of table ops (no nested regions) on scalar
/// tensors: the block's arguments are `args`, the result is what it yields.
fn run_region(table: &Table, block: crate::ir::Block, args: &[Tensor]) -> KResult<Vec<Tensor>> {
    if block.num_args() != args.len() {
        return kerr(format!(
            "the region takes {} arguments, not {}",
            block.num_args(),
            args.len()
        ));
    }
    let mut env: std::collections::HashMap<usize, Tensor> = args
        .iter()
        .enumerate()
        .map(|(i, t)| (block.arg(i).key(), t.clone()))
        .collect();
    let get = |env: &std::collections::HashMap<usize, Tensor>,
               op: crate::ir::Op,
               i: usize|
     -> KResult<Tensor> {
        match env.get(&op.operand(i).key()) {
            Some(t) => Ok(t.clone()),
            None => kerr(format!(
                "{} reads a value defined outside its region",
                op.name()
            )),
        }
    };
    for op in block.ops() {
        let name = op.name();
        let operands: Vec<Tensor> = (0..op.num_operands())
            .map(|i| get(&env, op, i))
            .collect::<KResult<_>>()?;
        if name == "coreai.yield" {
            return Ok(operands);
        }
        let Some(kernel) = table.get(name.as_str()) else {
            return kerr(format!("{name} is not executable inside a region"));
        };
        let ctx = Ctx {
            op,
            name: &name,
            vals: operands.into_iter().map(Value::tensor).collect(),
        };
        for (i, v) in kernel(&ctx)?.into_iter().enumerate() {
            let Some(t) = v.as_tensor() else {
                return kerr(format!("{name} in a region produced a non-tensor value"));
            };
            env.insert(op.result(i).key(), t.clone());
        }
    }
    kerr("the region does not yield")
}

fn region_of(c: &Ctx) -> KResult<crate::ir::Block> {
    match c.op.region_block(0) {
        Some(b) if !c.op.region_is_multi_block(0) => Ok(b),
        _ => kerr("the op needs a single-block region"),
    }
}

/// The elements of `x` along `axes`, for each position of the other dims
/// (row-major both ways), as 0-d tensors.
fn lanes(x: &Tensor, axes: &[usize]) -> KResult<(Vec<Vec<Tensor>>, Vec<usize>)> {
    let r = x.ndim();
    let kept: Vec<usize> = (0..r).filter(|d| !axes.contains(d)).collect();
    let mut perm = kept.clone();
    perm.extend(axes);
    let p = shape::permute(x, &perm)?;
    let outer: usize = kept.iter().map(|&d| x.shape()[d]).product();
    let inner: usize = axes.iter().map(|&d| x.shape()[d]).product();
    let flat = p.reshape(&[outer * inner])?;
    let lanes = (0..outer)
        .map(|o| {
            (0..inner)
                .map(|i| shape::select(&flat, 0, (o * inner + i) as i64))
                .collect::<KResult<Vec<_>>>()
        })
        .collect::<KResult<_>>()?;
    let keep_shape = (0..r)
        .map(|d| if axes.contains(&d) { 1 } else { x.shape()[d] })
        .collect();
    Ok((lanes, keep_shape))
}

/// `coreai.reduce(input, axes, init) { ^bb(%acc, %x): yield %next }`: a
/// left fold of the region over the reduced axes (row-major), from `init`;
/// the reduced dims stay as 1.
fn reduce_region(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let axes = norm_axes(&c.arg_i64s(1)?, x.ndim(), false)?;
    let init = c.arg(2)?.reshape(&[])?;
    let block = region_of(c)?;
    let table = crate::ops::table();
    let (lanes, keep_shape) = lanes(x, &axes)?;
    let mut out = Vec::with_capacity(lanes.len());
    for lane in lanes {
        let mut acc = init.clone();
        for v in lane {
            acc = match run_region(&table, block, &[acc, v])?.as_slice() {
                [t] => t.reshape(&[])?,
                _ => return kerr("the reduce region must yield one value"),
            };
        }
        out.push(acc);
    }
    let dt = c.out_dtype(0)?;
    let flat = shape::cat(
        &out.iter()
            .map(|t| t.cast(dt).reshape(&[1]))
            .collect::<KResult<Vec<_>>>()?,
        0,
    )?;
    one(flat.reshape(&keep_shape)?)
}

/// `coreai.reduce_index(input, axis, init_value, init_index)`: the index
/// of the winner along `axis`. The region either takes (best, candidate)
/// and yields whether the candidate wins, or takes (best, candidate,
/// best index, candidate index) and yields the new (best, index).
fn reduce_index(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let axis = norm_axis(c.arg_i64(1)?, x.ndim())?;
    let (init, init_idx) = (c.arg(2)?.reshape(&[])?, c.arg(3)?.reshape(&[])?);
    let it = init_idx.dtype();
    let block = region_of(c)?;
    let table = crate::ops::table();
    let (lanes, keep_shape) = lanes(x, &[axis])?;
    let mut out = Vec::with_capacity(lanes.len());
    for lane in lanes {
        let (mut best, mut at) = (init.clone(), init_idx.clone());
        for (i, v) in lane.into_iter().enumerate() {
            let i = Tensor::scalar_i128(i as i128, it);
            if block.num_args() == 2 {
                let wins = match run_region(&table, block, &[best.clone(), v.clone()])?.as_slice() {
                    [t] => t.to_bool().iter().any(|&b| b),
                    _ => return kerr("the reduce_index region must yield one bool"),
                };
                if wins {
                    (best, at) = (v, i);
                }
            } else {
                match run_region(&table, block, &[best.clone(), v, at.clone(), i])?.as_slice() {
                    [b, a] => (best, at) = (b.reshape(&[])?, a.reshape(&[])?),
                    _ => return kerr("the reduce_index region must yield (value, index)"),
                }
            }
        }
        out.push(at.cast(c.out_dtype(0)?).reshape(&[1])?);
    }
    one(shape::cat(&out, 0)?.reshape(&keep_shape)?)
}
