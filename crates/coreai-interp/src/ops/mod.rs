//! The kernel table: op name → kernel. Adding an op is one entry in the
//! `KERNELS` table of its family file under `aten/` or `coreai/`. Kernels read operands positionally and
//! attributes by name through [`Ctx`]; they never see typed builders.

mod aten;
mod coreai;
mod custom;
pub mod metal;

use crate::error::{kerr, KResult};
use crate::ir::{Attr, Op};
use crate::tensor::{DType, Tensor};
use crate::value::Value;
use ndarray::{ArrayD, IxDyn};
use std::collections::HashMap;

/// A kernel: reads its op through the context, returns one value per result.
pub type Kernel = fn(&Ctx) -> KResult<Vec<Value>>;

/// Name → kernel.
pub type Table = HashMap<&'static str, Kernel>;

/// Every kernel the executor has.
pub fn table() -> Table {
    let mut t = Table::new();
    for family in aten::FAMILIES.iter().chain(coreai::FAMILIES) {
        t.extend(family.iter().copied());
    }
    custom::register(&mut t);
    t
}

/// Ops the interpreter runs itself (structure, calls, control flow).
pub const STRUCTURAL_OPS: &[&str] = &[
    "aten.cond",
    "aten.operator",
    "aten.while_loop",
    "aten.yield",
    "coreai.condition",
    "coreai.graph",
    "coreai.if",
    "coreai.invoke",
    "coreai.output",
    "coreai.while",
    "coreai.yield",
    "func.call",
    "func.func",
    "func.return",
];

/// Names of every executable op (kernels and structural ops), sorted.
pub fn executable_ops() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = table()
        .keys()
        .copied()
        .chain(STRUCTURAL_OPS.iter().copied())
        .collect();
    v.sort();
    v
}

/// What a kernel sees of its op.
pub struct Ctx<'a> {
    pub op: Op,
    /// The table key of the op (`aten.x.y`, also for `aten.operator "aten::x.y"`).
    pub name: &'a str,
    pub vals: Vec<Value>,
}

/// One tensor result.
pub fn one(t: Tensor) -> KResult<Vec<Value>> {
    Ok(vec![Value::tensor(t)])
}

impl Ctx<'_> {
    pub fn n_args(&self) -> usize {
        self.vals.len()
    }
    /// Operand `i`, which must be a tensor.
    pub fn arg(&self, i: usize) -> KResult<&Tensor> {
        match self.vals.get(i) {
            Some(Value::Tensor(t)) => Ok(t),
            Some(_) => kerr(format!("operand #{i} is not a tensor")),
            None => kerr(format!("missing operand #{i}")),
        }
    }
    pub fn opt_arg(&self, i: usize) -> Option<&Tensor> {
        self.vals.get(i).and_then(|v| v.as_tensor())
    }
    /// The integers of a shape/axes operand.
    pub fn arg_i64s(&self, i: usize) -> KResult<Vec<i64>> {
        Ok(self.arg(i)?.to_i64_vec())
    }
    pub fn arg_i64(&self, i: usize) -> KResult<i64> {
        match self.arg_i64s(i)?.as_slice() {
            [v] => Ok(*v),
            _ => kerr(format!("operand #{i} must hold one integer")),
        }
    }
    pub fn attr(&self, name: &str) -> Option<Attr> {
        self.op.attr(name)
    }
    pub fn i64_attr(&self, name: &str) -> KResult<i64> {
        match self.opt_i64(name)? {
            Some(v) => Ok(v),
            None => kerr(format!("missing integer attribute '{name}'")),
        }
    }
    pub fn opt_i64(&self, name: &str) -> KResult<Option<i64>> {
        match self.attr(name) {
            None => Ok(None),
            Some(a) if a.is_unit() => Ok(None),
            Some(a) => match a.as_i64() {
                Some(v) => Ok(Some(v)),
                None => kerr(format!(
                    "attribute '{name}' = {} is not an integer",
                    a.to_text()
                )),
            },
        }
    }
    pub fn i64_or(&self, name: &str, default: i64) -> KResult<i64> {
        Ok(self.opt_i64(name)?.unwrap_or(default))
    }
    /// A number attribute, or with dynamic shapes the one scalar operand
    /// of schema argument `name` (`arange(s)`'s `end`).
    pub fn opt_f64(&self, name: &str) -> KResult<Option<f64>> {
        match self.attr(name) {
            None => Ok(self.operand_group(name).and_then(|ts| match ts.as_slice() {
                [t] if t.len() == 1 => t.to_f64().iter().next().copied(),
                _ => None,
            })),
            Some(a) if a.is_unit() => Ok(None),
            Some(a) => match a.as_f64() {
                Some(v) => Ok(Some(v)),
                None => kerr(format!(
                    "attribute '{name}' = {} is not a number",
                    a.to_text()
                )),
            },
        }
    }
    pub fn f64_or(&self, name: &str, default: f64) -> KResult<f64> {
        Ok(self.opt_f64(name)?.unwrap_or(default))
    }
    pub fn bool_or(&self, name: &str, default: bool) -> KResult<bool> {
        match self.attr(name) {
            None => Ok(default),
            Some(a) => match a.as_bool() {
                Some(v) => Ok(v),
                None => kerr(format!(
                    "attribute '{name}' = {} is not a bool",
                    a.to_text()
                )),
            },
        }
    }
    /// The operands of schema argument `name` of a generic `aten.operator`
    /// (`operand_args = ["self", "size"]`, `operand_groups = array<i64: 1,
    /// 3>`): with dynamic shapes a `SymInt[]` argument is a group of scalar
    /// operands instead of an attribute.
    pub fn operand_group(&self, name: &str) -> Option<Vec<&Tensor>> {
        let names = self.attr("operand_args")?.to_text();
        let names: Vec<&str> = names
            .trim_matches(|c| c == '[' || c == ']')
            .split(',')
            .map(|n| n.trim().trim_matches('"'))
            .collect();
        let at = names.iter().position(|n| *n == name)?;
        let groups = self.attr("operand_groups")?.to_text();
        let sizes: Vec<usize> = groups
            .trim_start_matches("array<i64")
            .trim_start_matches(':')
            .trim_end_matches('>')
            .split(',')
            .filter_map(|v| v.trim().parse().ok())
            .collect();
        let start: usize = sizes.get(..at)?.iter().sum();
        (start..start + sizes.get(at)?)
            .map(|i| self.opt_arg(i))
            .collect()
    }
    pub fn opt_i64s(&self, name: &str) -> KResult<Option<Vec<i64>>> {
        match self.attr(name) {
            None => Ok(self
                .operand_group(name)
                .map(|ts| ts.iter().flat_map(|t| t.to_i64_vec()).collect())),
            Some(a) if a.is_unit() => Ok(None),
            Some(a) => match a.as_i64s() {
                Some(v) => Ok(Some(v)),
                None => kerr(format!(
                    "attribute '{name}' = {} is not a list of integers",
                    a.to_text()
                )),
            },
        }
    }
    pub fn i64s_attr(&self, name: &str) -> KResult<Vec<i64>> {
        match self.opt_i64s(name)? {
            Some(v) => Ok(v),
            None => kerr(format!("missing attribute '{name}'")),
        }
    }
    pub fn opt_str(&self, name: &str) -> Option<String> {
        self.attr(name).and_then(|a| a.as_str())
    }
    /// A PyTorch `ScalarType?` attribute: a type attribute (`f32`), or
    /// PyTorch's integer code.
    pub fn opt_dtype(&self, name: &str) -> KResult<Option<DType>> {
        let Some(a) = self.attr(name) else {
            return Ok(None);
        };
        if a.is_unit() {
            return Ok(None);
        }
        if let Some(t) = a.as_type() {
            return t.dtype().map(Some);
        }
        match a.as_i64() {
            Some(code) => Ok(Some(match code {
                0 => DType::U8,
                1 => DType::I8,
                2 => DType::I16,
                3 => DType::I32,
                4 => DType::I64,
                5 => DType::F16,
                6 => DType::F32,
                7 => DType::F64,
                9 => DType::C64,
                11 => DType::Bool,
                15 => DType::BF16,
                27 => DType::U16,
                28 => DType::U32,
                29 => DType::U64,
                _ => return kerr(format!("unsupported ScalarType code {code}")),
            })),
            None => kerr(format!(
                "attribute '{name}' = {} is not a dtype",
                a.to_text()
            )),
        }
    }
    /// A PyTorch `Scalar` attribute as a 0-d tensor: bool, int64 or float64
    /// (a "wrapped number", which never decides the result type alone).
    pub fn opt_scalar(&self, name: &str) -> KResult<Option<Tensor>> {
        let Some(a) = self.attr(name) else {
            return Ok(None);
        };
        if a.is_unit() {
            return Ok(None);
        }
        let e = IxDyn(&[]);
        if a.is_bool() {
            return Ok(a.as_bool().map(|b| Tensor::Bool(ArrayD::from_elem(e, b))));
        }
        if a.is_float() {
            return Ok(a.as_f64().map(|v| Tensor::F64(ArrayD::from_elem(e, v))));
        }
        match a.as_i64() {
            Some(v) => Ok(Some(Tensor::I64(ArrayD::from_elem(e, v)))),
            None => kerr(format!(
                "attribute '{name}' = {} is not a scalar",
                a.to_text()
            )),
        }
    }
    pub fn scalar(&self, name: &str) -> KResult<Tensor> {
        match self.opt_scalar(name)? {
            Some(t) => Ok(t),
            None => kerr(format!("missing scalar attribute '{name}'")),
        }
    }
    /// The element type of result `i`.
    pub fn out_dtype(&self, i: usize) -> KResult<DType> {
        if i >= self.op.num_results() {
            return kerr(format!("the op has no result #{i}"));
        }
        self.op.result(i).ty().dtype()
    }
    /// The static shape of result `i`.
    pub fn out_shape(&self, i: usize) -> KResult<Vec<usize>> {
        if i >= self.op.num_results() {
            return kerr(format!("the op has no result #{i}"));
        }
        self.op.result(i).ty().static_shape()
    }
}

#[cfg(test)]
mod tests {
    /// A key in two family tables would leave one kernel unreachable.
    #[test]
    fn kernel_keys_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for family in super::aten::FAMILIES.iter().chain(super::coreai::FAMILIES) {
            for (key, _) in family.iter() {
                assert!(seen.insert(*key), "{key} is in two kernel tables");
            }
        }
    }
}
