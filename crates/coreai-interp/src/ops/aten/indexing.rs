//! Indexing kernels: select, gather, advanced indexing, embeddings, scatters and index_put, nonzero.

use super::promote::{f64_of, wrap_int};
use super::symbolic::opt_sym_i64;
use crate::error::{kerr, KResult};
use crate::kernels::reduce::norm_axis;
use crate::kernels::shape;
use crate::ops::{one, Ctx, Kernel};
use crate::tensor::{DType, Dom, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, Dimension, IxDyn};

/// The aten kernels of this family.
pub(super) static KERNELS: &[(&str, Kernel)] = &[
    ("aten.scatter_reduce.two", scatter_reduce),
    ("aten.masked_scatter.default", masked_scatter),
    ("aten.select.int", select),
    ("aten.index_select.default", index_select),
    ("aten.gather.default", gather),
    ("aten.index.Tensor", index),
    ("aten.index_put.default", index_put),
    ("aten.scatter.src", scatter),
    ("aten.scatter.value", scatter),
    ("aten.scatter_add.default", scatter),
    ("aten.embedding.default", embedding),
    ("aten.repeat_interleave.self_int", repeat_interleave),
    ("aten.select_scatter.default", select_scatter),
    ("aten.slice_scatter.default", slice_scatter),
    ("aten.nonzero.default", nonzero),
    ("aten.nonzero_numpy.default", nonzero_numpy),
    ("aten.scatter.reduce", scatter_reduce_legacy),
    ("aten.scatter.value_reduce", scatter_reduce_legacy),
    ("aten._embedding_bag.default", embedding_bag),
];

fn select(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let Some(i) = opt_sym_i64(c, "index")? else {
        return kerr("select needs an index");
    };
    one(shape::select(x, d, i)?)
}

fn index_select(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    one(shape::index_select(x, d, &c.arg(1)?.to_i64_vec())?)
}

fn gather(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let idx = c.arg(1)?.to_i128().mapv(|v| v as i64);
    one(shape::gather(x, d, &idx)?)
}

/// `x[i, :, j]`: the index tensors are the operands after `x`, one per
/// dim whose `indices_present` entry is true (the importer drops the
/// `None`s of `Tensor?[] indices`).
fn index(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let present: Vec<bool> = match c.attr("indices_present") {
        Some(a) => {
            let text = a.to_text();
            let inner = text
                .trim_start_matches("array<i1")
                .trim_start_matches(':')
                .trim_end_matches('>');
            inner
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| s == "true")
                .collect()
        }
        None => vec![true; c.n_args() - 1],
    };
    if present.iter().filter(|&&p| p).count() != c.n_args() - 1 {
        return kerr("indices_present does not match the number of index operands");
    }
    let mut idx = Vec::new();
    let mut next = 1;
    for p in present {
        if !p {
            idx.push(None);
            continue;
        }
        let t = c.arg(next)?;
        next += 1;
        if t.dtype() == DType::Bool {
            return kerr("boolean-mask indexing has a data-dependent shape and is not supported");
        }
        idx.push(Some(t.to_i128().mapv(|v| v as i64)));
    }
    one(shape::index(x, &idx)?)
}

fn embedding(c: &Ctx) -> KResult<Vec<Value>> {
    let (w, ids) = (c.arg(0)?, c.arg(1)?);
    let rows = shape::index_select(w, 0, &ids.to_i64_vec())?;
    let mut s = ids.shape();
    s.extend(&w.shape()[1..]);
    one(rows.reshape(&s)?)
}

/// `self[indices] = values` (or `+=` with `accumulate`); operands: self,
/// the index tensors, values last.
fn index_put(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let n = c.n_args();
    if n < 3 {
        return kerr("index_put expects self, indices..., values");
    }
    let x = c.arg(0)?;
    let idx: Vec<Option<ArrayD<i64>>> = (1..n - 1)
        .map(|i| c.arg(i).map(|t| Some(t.to_i128().mapv(|v| v as i64))))
        .collect::<KResult<_>>()?;
    let (shape_b, pos) = shape::index_positions(&x.shape(), &idx)?;
    let vals = shape::expand(&c.arg(n - 1)?.cast(dt), &shape_b)?;
    let acc = c.bool_or("accumulate", false)?;
    let flat = |p: &Vec<usize>, s: &[usize]| p.iter().zip(s).fold(0usize, |a, (&i, &n)| a * n + i);
    let xs = x.shape();
    match (x.dom_as(dt), vals.dom()) {
        (Dom::F(mut a), Dom::F(v)) => {
            let (sl, vv): (&mut [f64], Vec<f64>) = (
                a.as_slice_mut()
                    .ok_or_else(|| crate::error::InterpError::Kernel("layout".into()))?,
                v.iter().copied().collect(),
            );
            for (p, val) in pos.iter().zip(vv) {
                let k = flat(p, &xs);
                sl[k] = if acc { sl[k] + val } else { val };
            }
            one(Tensor::from_f64(a, dt))
        }
        (Dom::I(mut a), Dom::I(v)) => {
            let (sl, vv): (&mut [i128], Vec<i128>) = (
                a.as_slice_mut()
                    .ok_or_else(|| crate::error::InterpError::Kernel("layout".into()))?,
                v.iter().copied().collect(),
            );
            for (p, val) in pos.iter().zip(vv) {
                let k = flat(p, &xs);
                sl[k] = if acc { sl[k].wrapping_add(val) } else { val };
            }
            one(Tensor::from_i128(a, dt))
        }
        (Dom::B(mut a), Dom::B(v)) => {
            let (sl, vv): (&mut [bool], Vec<bool>) = (
                a.as_slice_mut()
                    .ok_or_else(|| crate::error::InterpError::Kernel("layout".into()))?,
                v.iter().copied().collect(),
            );
            for (p, val) in pos.iter().zip(vv) {
                let k = flat(p, &xs);
                sl[k] = if acc { sl[k] | val } else { val };
            }
            one(Tensor::Bool(a))
        }
        _ => kerr("index_put of complex tensors is not supported"),
    }
}

/// `scatter_reduce.two`: every `src` element reduces into `out[.., index,
/// ..]` along `dim` with `sum`, `prod`, `mean`, `amax` or `amin`; with
/// `include_self = false` a target's original value does not take part (a
/// target nothing scatters to keeps it). `mean` divides by the number of
/// contributions (floor division on integers); `amax`/`amin` propagate NaN.
fn scatter_reduce(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let index = c.arg(1)?.to_i128().mapv(|v| v as i64);
    let src = c.arg(2)?.cast(dt).dom();
    let reduce = c.opt_str("reduce").unwrap_or_default();
    let include_self = c.bool_or("include_self", true)?;
    let xs = x.shape();
    let n = xs[d] as i64;
    // Contributions per target, in index order.
    let mut contributions: std::collections::BTreeMap<Vec<usize>, Vec<Vec<usize>>> =
        Default::default();
    for (pos, &i) in index.indexed_iter() {
        let p = pos.slice();
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return kerr(format!(
                "scatter_reduce index {i} out of range for size {n}"
            ));
        }
        let mut target = p.to_vec();
        target[d] = j as usize;
        contributions.entry(target).or_default().push(p.to_vec());
    }
    let mut out = x.dom_as(dt);
    match (&mut out, &src) {
        (Dom::F(a), Dom::F(sv)) => {
            for (t, from) in &contributions {
                let t = IxDyn(t);
                let mut vals: Vec<f64> = from.iter().map(|p| sv[IxDyn(p)]).collect();
                if include_self {
                    vals.insert(0, a[&t]);
                }
                a[&t] = match reduce.as_str() {
                    "sum" => vals.iter().sum(),
                    "prod" => vals.iter().product(),
                    "mean" => vals.iter().sum::<f64>() / vals.len() as f64,
                    "amax" => vals.iter().copied().fold(f64::NEG_INFINITY, |m, v| {
                        if m.is_nan() || v.is_nan() {
                            f64::NAN
                        } else {
                            m.max(v)
                        }
                    }),
                    "amin" => vals.iter().copied().fold(f64::INFINITY, |m, v| {
                        if m.is_nan() || v.is_nan() {
                            f64::NAN
                        } else {
                            m.min(v)
                        }
                    }),
                    other => return kerr(format!("unknown scatter_reduce reduction '{other}'")),
                };
            }
        }
        (Dom::I(a), Dom::I(sv)) => {
            for (t, from) in &contributions {
                let t = IxDyn(t);
                let mut vals: Vec<i128> = from.iter().map(|p| sv[IxDyn(p)]).collect();
                if include_self {
                    vals.insert(0, a[&t]);
                }
                a[&t] = match reduce.as_str() {
                    "sum" => vals.iter().sum(),
                    "prod" => vals.iter().fold(1i128, |m, v| m.wrapping_mul(*v)),
                    // PyTorch sums in the dtype (wrapping), then floor-divides.
                    "mean" => {
                        wrap_int(vals.iter().sum::<i128>(), dt).div_euclid(vals.len() as i128)
                    }
                    "amax" => *vals.iter().max().expect("non-empty"),
                    "amin" => *vals.iter().min().expect("non-empty"),
                    other => return kerr(format!("unknown scatter_reduce reduction '{other}'")),
                };
            }
        }
        _ => return kerr("scatter_reduce supports float and integer tensors"),
    }
    one(Tensor::from_dom(out, dt))
}

/// `masked_scatter`: the positions where `mask` (broadcast to `self`) is
/// true take the elements of `source` in row-major order.
fn masked_scatter(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let mask = shape::expand(c.arg(1)?, &x.shape())?.to_bool();
    let source = c.arg(2)?.cast(dt);
    let needed = mask.iter().filter(|&&m| m).count();
    if needed > source.len() {
        return kerr(format!(
            "masked_scatter needs {needed} source elements, the source has {}",
            source.len()
        ));
    }
    let (mut out, src) = (x.dom_as(dt), source.dom());
    let mut next = 0usize;
    macro_rules! fill {
        ($a:expr, $s:expr) => {{
            let flat: Vec<_> = $s.iter().cloned().collect();
            for (v, &m) in $a.iter_mut().zip(mask.iter()) {
                if m {
                    *v = flat[next].clone();
                    next += 1;
                }
            }
        }};
    }
    match (&mut out, &src) {
        (Dom::F(a), Dom::F(s)) => fill!(a, s),
        (Dom::I(a), Dom::I(s)) => fill!(a, s),
        (Dom::B(a), Dom::B(s)) => fill!(a, s),
        (Dom::C(a), Dom::C(s)) => fill!(a, s),
        _ => return kerr("masked_scatter operands disagree in kind"),
    }
    one(Tensor::from_dom(out, dt))
}

/// A scatter's result dtype, `x`, `src`, and its `(target, source)` position pairs.
type ScatterOperands = (DType, Dom, Dom, Vec<(IxDyn, IxDyn)>);

/// The operands of a scatter along `dim`: the result dtype, `x` and `src` (a
/// tensor, or the scalar `value` expanded to the index's shape) in that
/// dtype, and each `(target, source)` position pair in index order, every
/// index checked against `x`'s size (negative indices counting from the end).
fn scatter_operands(c: &Ctx) -> KResult<ScatterOperands> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?;
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let index = c.arg(1)?.to_i128().mapv(|v| v as i64);
    let src = match c.opt_arg(2) {
        Some(s) => s.cast(dt),
        None => shape::expand(&c.scalar("value")?.cast(dt), index.shape())?,
    };
    let (xs, ss) = (x.shape(), src.shape());
    let n = xs[d] as i64;
    let mut sites = Vec::with_capacity(index.len());
    for (pos, &i) in index.indexed_iter() {
        let p = pos.slice();
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n || p.iter().zip(&ss).any(|(&q, &m)| q >= m) {
            return kerr(format!("scatter index {i} out of range for size {n}"));
        }
        let mut target = p.to_vec();
        target[d] = j as usize;
        sites.push((IxDyn(&target), IxDyn(p)));
    }
    Ok((dt, x.dom_as(dt), src.dom(), sites))
}

/// `scatter` / `scatter_add`: `out[.., index[i,j,k], ..] = src[i,j,k]` along `dim`.
fn scatter(c: &Ctx) -> KResult<Vec<Value>> {
    let add =
        c.name.starts_with("aten.scatter_add") || c.opt_str("reduce").as_deref() == Some("add");
    let (dt, mut a, s, sites) = scatter_operands(c)?;
    for (t, sp) in sites {
        match (&mut a, &s) {
            (Dom::F(a), Dom::F(s)) => a[&t] = if add { a[&t] + s[&sp] } else { s[&sp] },
            (Dom::I(a), Dom::I(s)) => {
                a[&t] = if add {
                    a[&t].wrapping_add(s[&sp])
                } else {
                    s[&sp]
                }
            }
            (Dom::B(a), Dom::B(s)) => a[&t] = if add { a[&t] | s[&sp] } else { s[&sp] },
            _ => return kerr("scatter of complex tensors is not supported"),
        }
    }
    one(Tensor::from_dom(a, dt))
}

/// `repeat_interleave.self_int`: each element `repeats` times along `dim`
/// (the flattened tensor without one).
fn repeat_interleave(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let reps = match c.opt_i64("repeats")? {
        Some(r) => r,
        None => c.arg_i64(1)?,
    };
    if reps < 0 {
        return kerr(format!("repeat_interleave repeats {reps} is negative"));
    }
    let (x, d) = match c.opt_i64("dim")? {
        Some(d) => (x.clone(), norm_axis(d, x.ndim().max(1))?),
        None => (x.reshape(&[x.len()])?, 0),
    };
    let n = x.shape().get(d).copied().unwrap_or(1) as i64;
    let idx: Vec<i64> = (0..n)
        .flat_map(|i| std::iter::repeat_n(i, reps as usize))
        .collect();
    one(shape::index_select(&x, d, &idx)?)
}

/// Along dim `d`, position `j` of the result takes `pick(j)`: `Some(k)` is
/// slice `k` of `src`, `None` keeps `x`'s slice (select/slice_scatter).
fn embed_along(
    x: &Tensor,
    src: &Tensor,
    d: usize,
    pick: impl Fn(usize) -> Option<usize>,
) -> KResult<Tensor> {
    let n = x.shape()[d];
    let mut parts = Vec::with_capacity(n);
    for j in 0..n {
        let part = match pick(j) {
            Some(k) => shape::slice(src, d, k, k + 1, 1)?,
            None => shape::slice(x, d, j, j + 1, 1)?,
        };
        parts.push(part);
    }
    if parts.is_empty() {
        return Ok(x.clone());
    }
    shape::cat(&parts, d)
}

/// `select_scatter`: `self` with `self.select(dim, index)` replaced by `src`.
fn select_scatter(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?.cast(dt);
    let d = norm_axis(c.i64_attr("dim")?, x.ndim())?;
    let n = x.shape()[d] as i64;
    let Some(i) = opt_sym_i64(c, "index")? else {
        return kerr("select_scatter needs an index");
    };
    let i = if i < 0 { i + n } else { i };
    if !(0..n).contains(&i) {
        return kerr(format!("select_scatter index out of range for size {n}"));
    }
    let mut s = c.arg(1)?.shape();
    s.insert(d, 1);
    let src = c.arg(1)?.cast(dt).reshape(&s)?;
    one(embed_along(&x, &src, d, |j| (j as i64 == i).then_some(0))?)
}

/// `slice_scatter`: `self` with `self[start:end:step]` along `dim` replaced
/// by `src`.
fn slice_scatter(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let x = c.arg(0)?.cast(dt);
    let d = norm_axis(c.i64_or("dim", 0)?, x.ndim())?;
    let step = c.i64_or("step", 1)?;
    if step <= 0 {
        return kerr("slice_scatter step must be positive");
    }
    let (s, e) = shape::clamp_slice(
        opt_sym_i64(c, "start")?,
        opt_sym_i64(c, "end")?,
        x.shape()[d],
    );
    let src = c.arg(1)?.cast(dt);
    let count = if e > s {
        (e - s).div_ceil(step as usize)
    } else {
        0
    };
    if src.shape().get(d) != Some(&count) {
        return kerr(format!(
            "slice_scatter src has {:?} elements along dim {d}, the slice {count}",
            src.shape().get(d)
        ));
    }
    let step = step as usize;
    one(embed_along(&x, &src, d, |j| {
        (j >= s && j < e && (j - s) % step == 0).then(|| (j - s) / step)
    })?)
}

/// `nonzero`: `[count, rank]` int64 coordinates in row-major order.
fn nonzero(c: &Ctx) -> KResult<Vec<Value>> {
    let x = c.arg(0)?;
    let m = x.to_bool();
    let r = x.ndim();
    let coords: Vec<i128> = m
        .indexed_iter()
        .filter(|(_, &v)| v)
        .flat_map(|(p, _)| p.slice().iter().map(|&i| i as i128).collect::<Vec<_>>())
        .collect();
    let n = coords.len() / r.max(1);
    let n = if r == 0 {
        m.iter().filter(|&&v| v).count()
    } else {
        n
    };
    let a = ArrayD::from_shape_vec(IxDyn(&[n, r]), coords)
        .map_err(|e| crate::error::InterpError::Kernel(e.to_string()))?;
    one(Tensor::from_dom(Dom::I(a), c.out_dtype(0)?))
}

/// `nonzero_numpy`: the coordinates of `nonzero`, one int64 vector per dim.
fn nonzero_numpy(c: &Ctx) -> KResult<Vec<Value>> {
    let m = c.arg(0)?.to_bool();
    let hits: Vec<Vec<usize>> = m
        .indexed_iter()
        .filter(|(_, &v)| v)
        .map(|(p, _)| p.slice().to_vec())
        .collect();
    (0..m.ndim())
        .map(|d| {
            let v: Vec<i128> = hits.iter().map(|p| p[d] as i128).collect();
            let a = ArrayD::from_shape_vec(IxDyn(&[v.len()]), v).expect("sizes agree");
            Ok(Value::tensor(Tensor::from_dom(Dom::I(a), c.out_dtype(d)?)))
        })
        .collect()
}

/// `scatter.reduce` / `scatter.value_reduce` (`reduce` = "add" or
/// "multiply"): every `src` element (or `value`) combines into
/// `out[.., index, ..]` along `dim`, integers wrapping.
fn scatter_reduce_legacy(c: &Ctx) -> KResult<Vec<Value>> {
    match c.opt_str("reduce").as_deref() {
        Some("add") => return scatter(c),
        Some("multiply") => {}
        other => {
            return kerr(format!(
                "scatter reduce must be 'add' or 'multiply', not {other:?}"
            ))
        }
    }
    let (dt, mut out, s, sites) = scatter_operands(c)?;
    for (t, sp) in sites {
        match (&mut out, &s) {
            // PyTorch rounds every partial product to the dtype
            (Dom::F(a), Dom::F(s)) => a[&t] = Tensor::scalar_f64(a[&t] * s[&sp], dt).to_f64()[[]],
            (Dom::I(a), Dom::I(s)) => a[&t] = wrap_int(a[&t].wrapping_mul(s[&sp]), dt),
            (Dom::B(a), Dom::B(s)) => a[&t] &= s[&sp],
            _ => return kerr("scatter multiply of complex tensors is not supported"),
        }
    }
    one(Tensor::from_dom(out, dt))
}

/// `_embedding_bag(weight, indices, offsets[, per_sample_weights])` with
/// mode 0 sum, 1 mean, 2 max over each bag's rows (a `padding_idx` row
/// skipped, an empty bag 0), and PyTorch's CPU auxiliary results:
/// offset2bag (each index's bag; empty on the sum fast path: float weight,
/// no padding_idx), bag_size (non-padding counts for mean/max, else 0),
/// max_indices (the winning row per feature for max, bag_size for mean,
/// 0 for sum).
fn embedding_bag(c: &Ctx) -> KResult<Vec<Value>> {
    let dt = c.out_dtype(0)?;
    let w = f64_of(c.arg(0)?, dt);
    let idx = c.arg(1)?.to_i64_vec();
    let mut offs: Vec<usize> = c
        .arg(2)?
        .to_i64_vec()
        .iter()
        .map(|&o| o.max(0) as usize)
        .collect();
    let psw = c
        .opt_arg(3)
        .map(|t| t.to_f64().iter().copied().collect::<Vec<f64>>());
    let mode = c.i64_or("mode", 0)?;
    let pad = c.i64_or("padding_idx", -1)?;
    if w.ndim() != 2 || !(0..=2).contains(&mode) || (psw.is_some() && mode != 0) {
        return kerr(
            "embedding_bag needs a 2-d weight, mode 0-2, per-sample weights only with sum",
        );
    }
    if c.bool_or("include_last_offset", false)? {
        if offs.is_empty() {
            return kerr("include_last_offset needs at least one offset");
        }
    } else {
        offs.push(idx.len());
    }
    let (rows, d) = (w.shape()[0] as i64, w.shape()[1]);
    let bags = offs.len() - 1;
    let mut out = ArrayD::<f64>::zeros(IxDyn(&[bags, d]));
    let mut offset2bag = vec![0i128; idx.len()];
    let mut sizes = vec![0i128; bags];
    let mut argmax = ArrayD::<i128>::zeros(IxDyn(&[bags, d]));
    for b in 0..bags {
        let (lo, hi) = (offs[b].min(idx.len()), offs[b + 1].min(idx.len()));
        let mut first = true;
        for i in lo..hi {
            offset2bag[i] = b as i128;
            let r = idx[i];
            if r < 0 || r >= rows {
                return kerr(format!(
                    "embedding_bag index {r} out of range for {rows} rows"
                ));
            }
            if r == pad {
                continue;
            }
            sizes[b] += 1;
            let s = psw.as_ref().map_or(1.0, |p| p[i]);
            for f in 0..d {
                let v = w[[r as usize, f]];
                let o = &mut out[[b, f]];
                if mode == 2 {
                    if first || v > *o {
                        *o = v;
                        argmax[[b, f]] = r as i128;
                    }
                } else {
                    *o += v * s;
                }
            }
            first = false;
        }
        if mode == 1 && sizes[b] > 0 {
            for f in 0..d {
                out[[b, f]] /= sizes[b] as f64;
            }
        }
    }
    let fast_sum = mode == 0 && pad < 0 && matches!(dt, DType::F32 | DType::F16);
    let o2b = if fast_sum { Vec::new() } else { offset2bag };
    let vec_i = |v: Vec<i128>, i: usize| -> KResult<Value> {
        let n = v.len();
        Ok(Value::tensor(Tensor::from_i128(
            ArrayD::from_shape_vec(IxDyn(&[n]), v).expect("sizes agree"),
            c.out_dtype(i)?,
        )))
    };
    let bag_size = if mode == 0 { vec![0; bags] } else { sizes };
    let max_indices = if mode == 2 {
        Value::tensor(Tensor::from_i128(argmax, c.out_dtype(3)?))
    } else {
        vec_i(
            if mode == 1 {
                bag_size.clone()
            } else {
                vec![0; bags]
            },
            3,
        )?
    };
    Ok(vec![
        Value::tensor(Tensor::from_f64(out, dt)),
        vec_i(o2b, 1)?,
        vec_i(bag_size, 2)?,
        max_indices,
    ])
}
