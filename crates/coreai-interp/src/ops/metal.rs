//! Custom Metal kernels (coreai-torch's `TorchMetalKernel`): the executor has
//! no Metal, so `coreai.metal4_kernel` and the imported call `aten.operator
//! "coreai_metal_kernels::name.default"` run the CPU kernel the user
//! registers for the kernel's name (`Program::register_metal_kernel`), and
//! are `not executable` without one.

use crate::ir::Attr;
use crate::tensor::{DType, Tensor};
use crate::Value;

/// The namespace of the kernels' `torch.library` ops.
pub const NAMESPACE: &str = "coreai_metal_kernels";

/// The registry key of the kernel `name`: its op, `coreai_metal_kernels::name.default`.
pub fn key(name: &str) -> String {
    format!("{NAMESPACE}::{name}.default")
}

/// The kernel's name in a `kernel_name`: coreai-torch appends `_` and 8
/// lowercase letters (`my_add_qwertyui` → `my_add`); other names are
/// returned whole.
pub fn base_name(kernel_name: &str) -> &str {
    match kernel_name.len().checked_sub(9) {
        Some(cut)
            if kernel_name.is_char_boundary(cut)
                && kernel_name[cut..].starts_with('_')
                && kernel_name[cut + 1..]
                    .bytes()
                    .all(|b| b.is_ascii_lowercase()) =>
        {
            &kernel_name[..cut]
        }
        _ => kernel_name,
    }
}

/// The kernel's inputs of an imported call: the operands (its tensor
/// inputs) with the scalar inputs of the `metal_kernel` attribute put in
/// their places as rank-0 tensors of the types the lowering gives them
/// (f32, si32, ui8 for a bool).
pub fn kernel_inputs(attr: Attr, operands: Vec<Value>) -> Result<Vec<Value>, String> {
    let names = attr
        .dict_get("input_names")
        .and_then(|a| a.as_array())
        .ok_or("'metal_kernel' has no input_names")?;
    let scalars = attr.dict_get("scalars");
    let mut operands = operands.into_iter();
    let mut out = Vec::new();
    for n in names {
        let n = n
            .as_str()
            .ok_or("'metal_kernel' input_names are not strings")?;
        match scalars.and_then(|s| s.dict_get(&n)) {
            Some(s) => {
                let t = if s.is_bool() {
                    Tensor::scalar_f64(f64::from(u8::from(s.as_bool().unwrap_or(false))), DType::U8)
                } else if s.is_float() {
                    Tensor::scalar_f64(s.as_f64().unwrap_or(0.0), DType::F32)
                } else {
                    let v = s
                        .as_i64()
                        .ok_or(format!("the scalar '{n}' is not a number"))?;
                    Tensor::scalar_f64(v as f64, DType::I32)
                };
                out.push(Value::tensor(t));
            }
            None => out.push(
                operands
                    .next()
                    .ok_or(format!("no operand for the kernel input '{n}'"))?,
            ),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn base_names_drop_coreai_torchs_suffix() {
        assert_eq!(super::base_name("my_add_qwertyui"), "my_add");
        assert_eq!(super::base_name("add"), "add");
        assert_eq!(super::base_name("my_add_Qwertyui"), "my_add_Qwertyui");
    }
}
