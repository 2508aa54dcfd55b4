//! Custom Metal kernels: coreai-torch's `TorchMetalKernel` calls, as
//! `coreai_export` imports them (`importer/coreai_export/metal.py`), lowered
//! to `coreai.metal4_kernel` exactly as coreai-torch's
//! `register_custom_kernels` emits them.
//!
//! ```text
//! %y = aten.operator "coreai_metal_kernels::k.default"(%x) {metal_kernel = {
//!        name = "k", input_names = ["x", "s"], result_names = ["y"], source, helper_source,
//!        metal_params = [["gid", "uint", "thread_position_in_grid"]], template_dtypes = [["x", "T"]],
//!        scalars = {s = 2.5 : f64}, threads_per_grid = array<i64: 12, 1, 1>,
//!        threads_per_thread_group = array<i64: 4, 1, 1>, result_shapes = [array<i64: 3, 4>]}}
//!   →
//! %xm = coreaix.copy_with_constraints(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32, #mtl2>
//! %sm = coreaix.copy_with_constraints(%s) : (tensor<f32>) -> tensor<f32, #mtl0>   // %s = dense<2.5> : tensor<f32>
//! %r = coreai.metal4_kernel kernel_args(%xm, %sm), threads_per_grid %g, threads_per_thread_group %t,
//!        result_shapes(%shape) {kernel_name = "k_<8 letters>", kernel_source = "..."} : ... -> tensor<3x4xf32, #mtl2>
//! %y = coreaix.copy_discarding_constraints(%r) : (tensor<3x4xf32, #mtl2>) -> tensor<3x4xf32>
//! ```
//!
//! `#mtlN` is `#coreaix.hw_constraints<MTLBuffer, alignments: [1 x (N+1)],
//! interleave: [1 x N]>` for rank N, coreai-core's default Metal-buffer
//! constraints. `threads_per_grid`, `threads_per_thread_group` and each result
//! shape are `tensor<Nxui32>` constants. A scalar input is a rank-0 constant
//! (`f32` for a float, `si32` for an int, `ui8` for a bool), declared
//! `constant T& name [[buffer(i)]]` in the signature and also baked into the
//! body as a local (`{\nfloat s = 2.5f;\n<body>\n}`), as coreai-torch does
//! because the runtime binds rank-0 inputs as tensor handles. The source is
//! coreai-core's `CustomMetalKernel.template_kernel_src`: the includes, the
//! helper source, then `[[kernel]] void <kernel_name>(<tensors>, <results>,
//! <metal params>) { <body> }`, with each template dtype placeholder replaced
//! (in input order) by its input's Metal type.
//!
//! `kernel_name` is the kernel's name and 8 lowercase letters, as in
//! coreai-torch, but the letters are a hash of the source instead of random,
//! so the output is the same on every run and calls with the same source
//! share one kernel (coreai-torch's per-signature cache).
//!
//! Declines: a kernel input or result of an element type Metal lacks (`f64`,
//! `complex`), a dynamic dim, a float scalar that is NaN/inf, an int scalar
//! outside MSL's 32-bit `int`, more than 31 Metal parameters, dispatch
//! triples that are not 3 entries, or operands that do not match the kernel's
//! tensor inputs.

use coreai_ir::emit;
use coreai_ir::lowering::{type_text, Decline, LoweringCx};
use coreai_ir::op::{coreai, coreaix};
use coreai_ir::schema::{static_type_dims, tensor_of};
use coreai_ir::strings::string_value;
use melior::ir::{
    attribute::{ArrayAttribute, BoolAttribute, FloatAttribute, IntegerAttribute},
    operation::OperationLike,
    r#type::ShapedTypeLike,
    Attribute, AttributeLike, Type, Value, ValueLike,
};

/// Metal allows 31 kernel parameters.
const PARAMETER_LIMIT: usize = 31;

/// coreai element type → Metal type (coreai-core's `metal_type_mappings`).
const METAL_TYPES: &[(&str, &str)] = &[
    ("bf16", "bfloat"),
    ("f16", "half"),
    ("f32", "float"),
    ("si8", "int8_t"),
    ("ui8", "uint8_t"),
    ("si16", "int16_t"),
    ("ui16", "uint16_t"),
    ("ui32", "uint"),
    ("si32", "int"),
    ("si64", "int64_t"),
    ("ui64", "uint64_t"),
    ("i1", "bool"),
];

/// A scalar input's value, baked into the kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MetalScalar {
    Float(f64),
    Int(i64),
    Bool(bool),
}

/// What the lowering reads of a kernel call (the `metal_kernel` attribute).
#[derive(Clone, Debug, Default)]
pub struct MetalKernelCall {
    pub name: String,
    pub input_names: Vec<String>,
    pub result_names: Vec<String>,
    pub source: String,
    pub helper_source: String,
    /// `(name, dtype, attr)`: `uint gid [[thread_position_in_grid]]`.
    pub metal_params: Vec<(String, String, String)>,
    /// `(input name, placeholder)`, in input order.
    pub template_dtypes: Vec<(String, String)>,
    pub scalars: Vec<(String, MetalScalar)>,
    pub threads_per_grid: Vec<i64>,
    pub threads_per_thread_group: Vec<i64>,
    pub result_shapes: Vec<Vec<i64>>,
}

/// One kernel parameter of the signature: its name, rank and Metal type.
struct Param<'n> {
    name: &'n str,
    rank: usize,
    metal: String,
}

impl MetalKernelCall {
    /// The scalar input `name`, if it is one.
    fn scalar(&self, name: &str) -> Option<MetalScalar> {
        self.scalars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    /// The body with the scalar locals that shadow the scalar parameters
    /// (coreai-torch's `_inject_scalar_locals`), unchanged without scalars.
    fn body(&self) -> Result<String, Decline> {
        let mut decls = Vec::new();
        for name in &self.input_names {
            let Some(v) = self.scalar(name) else { continue };
            decls.push(match v {
                MetalScalar::Bool(b) => format!("bool {name} = {b};"),
                MetalScalar::Int(i) => {
                    if i32::try_from(i).is_err() {
                        return Err(format!(
                            "the int scalar '{name}' = {i} is outside the 32-bit int range of MSL"
                        ));
                    }
                    format!("int {name} = {i};")
                }
                MetalScalar::Float(f) => {
                    if !f.is_finite() {
                        return Err(format!(
                            "the float scalar '{name}' = {f} is not finite; NaN/inf scalars are not supported"
                        ));
                    }
                    format!("float {name} = {}f;", python_float_repr(f))
                }
            });
        }
        if decls.is_empty() {
            return Ok(self.source.clone());
        }
        Ok(format!("{{\n{}\n{}\n}}", decls.join("\n"), self.source))
    }

    /// coreai-core's `template_kernel_src` for `kernel_id`.
    fn template(
        &self,
        kernel_id: &str,
        inputs: &[Param<'_>],
        results: &[Param<'_>],
    ) -> Result<String, Decline> {
        let mut parameters: Vec<String> = Vec::new();
        let mut templates: Vec<(&str, &str)> = Vec::new();
        for p in inputs {
            let i = parameters.len();
            parameters.push(if p.rank == 0 {
                format!("constant {}& {} [[buffer({i})]]", p.metal, p.name)
            } else {
                format!(
                    "tensor<device {}, metal::dextents<int, {}>, tensor_handle> {} [[buffer({i})]]",
                    p.metal, p.rank, p.name
                )
            });
            if let Some((_, placeholder)) = self.template_dtypes.iter().find(|(n, _)| n == p.name) {
                templates.retain(|(t, _)| *t != placeholder.as_str());
                templates.push((placeholder, &p.metal));
            }
        }
        for p in results {
            let i = parameters.len();
            parameters.push(format!(
                "tensor<device {}, metal::dextents<int, {}>, tensor_handle> {} [[buffer({i})]]",
                p.metal, p.rank, p.name
            ));
        }
        parameters.extend(
            self.metal_params
                .iter()
                .map(|(name, dtype, attr)| format!("{dtype} {name} [[{attr}]]")),
        );
        if parameters.len() > PARAMETER_LIMIT {
            return Err(format!(
                "Metal kernels take at most {PARAMETER_LIMIT} parameters, '{}' has {}",
                self.name,
                parameters.len()
            ));
        }
        let mut body = self.body()?;
        let mut helpers = self.helper_source.clone();
        for (placeholder, metal) in templates {
            body = body.replace(placeholder, metal);
            helpers = helpers.replace(placeholder, metal);
        }
        Ok(format!(
            "\n#include <metal_stdlib>\n#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>\nusing namespace metal;\nusing namespace mpp::tensor_ops;\n{helpers}\n[[kernel]] void {kernel_id}({}) {{ {body} }}",
            parameters.join(", ")
        ))
    }
}

/// Python's `repr` of a float (`2.5`, `1e-05`, `1e+16`, `0.0001`), which
/// coreai-torch writes into the kernel source.
pub fn python_float_repr(v: f64) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // `{:e}` is the shortest round-trip digits: `2.5e0`, `1e-5`.
    let e = format!("{:e}", v.abs());
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let decpt = exp.parse::<i32>().unwrap_or(0) + 1;
    let sign = if v < 0.0 { "-" } else { "" };
    let n = digits.len() as i32;
    let body = if -4 < decpt && decpt <= 16 {
        if decpt <= 0 {
            format!("0.{}{digits}", "0".repeat((-decpt) as usize))
        } else if decpt >= n {
            format!("{digits}{}.0", "0".repeat((decpt - n) as usize))
        } else {
            format!(
                "{}.{}",
                &digits[..decpt as usize],
                &digits[decpt as usize..]
            )
        }
    } else {
        let x = decpt - 1;
        let frac = if n > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        format!("{frac}e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs())
    };
    format!("{sign}{body}")
}

/// 8 lowercase letters from a hash of `text` (FNV-1a, 64 bits).
fn suffix(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (0..8)
        .map(|_| {
            let c = (b'a' + (h % 26) as u8) as char;
            h /= 26;
            c
        })
        .collect()
}

/// `#coreaix.hw_constraints<MTLBuffer, ...>` form of the tensor type `ty`.
fn mtl_type<'c>(cx: &LoweringCx<'c, '_>, ty: Type<'c>) -> Result<Type<'c>, Decline> {
    let dims = static_type_dims(ty)?;
    let element = tensor_of_type(ty)?;
    let shape: String = dims.iter().map(|d| format!("{d}x")).collect();
    let ones = |n: usize| vec!["1"; n].join("x");
    cx.parse_type(&format!(
        "tensor<{shape}{}, #coreaix.hw_constraints<MTLBuffer, alignments: [{}], interleave: [{}]>>",
        type_text(element),
        ones(dims.len() + 1),
        ones(dims.len())
    ))
}

fn tensor_of_type(ty: Type<'_>) -> Result<Type<'_>, Decline> {
    melior::ir::r#type::RankedTensorType::try_from(ty)
        .map(|t| t.element())
        .map_err(|_| format!("{ty} is not a ranked tensor"))
}

fn metal_type(element: Type<'_>, what: &str) -> Result<String, Decline> {
    let text = type_text(element);
    METAL_TYPES
        .iter()
        .find(|(t, _)| *t == text)
        .map(|(_, m)| m.to_string())
        .ok_or_else(|| {
            format!("{what} has the element type {text}, which Metal kernels do not take")
        })
}

// --- reading the attribute ------------------------------------------------

fn field<'c>(dict: Attribute<'c>, name: &str) -> Result<Attribute<'c>, Decline> {
    coreai_ir::schema::dict_get(dict, name).ok_or_else(|| format!("'metal_kernel' has no '{name}'"))
}

fn string(a: Attribute<'_>, what: &str) -> Result<String, Decline> {
    string_value(a)
        .map(|s| s.into_owned())
        .ok_or_else(|| format!("'metal_kernel' {what} is not a string: {a}"))
}

fn array<'c>(a: Attribute<'c>, what: &str) -> Result<Vec<Attribute<'c>>, Decline> {
    let arr =
        ArrayAttribute::try_from(a).map_err(|_| format!("'metal_kernel' {what} is not a list"))?;
    (0..arr.len())
        .map(|i| arr.element(i).map_err(|e| e.to_string()))
        .collect()
}

fn strings(a: Attribute<'_>, what: &str) -> Result<Vec<String>, Decline> {
    array(a, what)?
        .into_iter()
        .map(|e| string(e, what))
        .collect()
}

fn i64s(a: Attribute<'_>, what: &str) -> Result<Vec<i64>, Decline> {
    coreai_ir::schema::i64_array(a)
        .ok_or_else(|| format!("'metal_kernel' {what} is not an array<i64>: {a}"))
}

fn tuples(a: Attribute<'_>, what: &str, n: usize) -> Result<Vec<Vec<String>>, Decline> {
    array(a, what)?
        .into_iter()
        .map(|e| {
            let s = strings(e, what)?;
            if s.len() != n {
                return Err(format!("'metal_kernel' {what} entries have {n} strings"));
            }
            Ok(s)
        })
        .collect()
}

impl MetalKernelCall {
    /// The call's `metal_kernel` attribute.
    pub fn from_attribute(dict: Attribute<'_>) -> Result<Self, Decline> {
        if !coreai_ir::raw::is_dictionary(dict.to_raw()) {
            return Err(format!("'metal_kernel' is not a dictionary: {dict}"));
        }
        let input_names = strings(field(dict, "input_names")?, "input_names")?;
        let scalars_attr = field(dict, "scalars")?;
        let mut scalars = Vec::new();
        for name in &input_names {
            let Some(a) = coreai_ir::schema::dict_get(scalars_attr, name) else {
                continue;
            };
            scalars.push((name.clone(), scalar(a, "the scalar", name)?));
        }
        Ok(Self {
            name: string(field(dict, "name")?, "name")?,
            result_names: strings(field(dict, "result_names")?, "result_names")?,
            source: string(field(dict, "source")?, "source")?,
            helper_source: string(field(dict, "helper_source")?, "helper_source")?,
            metal_params: tuples(field(dict, "metal_params")?, "metal_params", 3)?
                .into_iter()
                .map(|t| (t[0].clone(), t[1].clone(), t[2].clone()))
                .collect(),
            template_dtypes: tuples(field(dict, "template_dtypes")?, "template_dtypes", 2)?
                .into_iter()
                .map(|t| (t[0].clone(), t[1].clone()))
                .collect(),
            scalars,
            threads_per_grid: i64s(field(dict, "threads_per_grid")?, "threads_per_grid")?,
            threads_per_thread_group: i64s(
                field(dict, "threads_per_thread_group")?,
                "threads_per_thread_group",
            )?,
            result_shapes: array(field(dict, "result_shapes")?, "result_shapes")?
                .into_iter()
                .map(|a| i64s(a, "result_shapes"))
                .collect::<Result<_, _>>()?,
            input_names,
        })
    }
}

// --- the lowering -----------------------------------------------------------

/// `aten.operator "coreai_metal_kernels::<name>.default"` → `coreai.metal4_kernel`.
pub fn lower<'c, 'a>(cx: &LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let attr = cx.op().attribute("metal_kernel").map_err(|_| {
        "a coreai_metal_kernels op needs the 'metal_kernel' attribute coreai_export records (import the model with coreai_export, registering the kernel)".to_string()
    })?;
    let call = MetalKernelCall::from_attribute(attr)?;
    lower_call(cx, &call)
}

/// Lowers the op of `cx` as the kernel call `call`: the op's operands are
/// the kernel's tensor inputs in order, its results the kernel's results.
pub fn lower_call<'c, 'a>(
    cx: &LoweringCx<'c, 'a>,
    call: &MetalKernelCall,
) -> Result<Vec<Value<'c, 'a>>, Decline> {
    let n_tensors = call
        .input_names
        .iter()
        .filter(|n| call.scalar(n).is_none())
        .count();
    let n_operands = cx.op().operand_count();
    if n_operands != n_tensors {
        return Err(format!(
            "the kernel '{}' has {n_tensors} tensor inputs, the op {n_operands} operands",
            call.name
        ));
    }
    let n_results = cx.op().result_count();
    if n_results != call.result_names.len() || call.result_shapes.len() != n_results {
        return Err(format!(
            "the kernel '{}' has {} results and {} result shapes, the op {n_results} results",
            call.name,
            call.result_names.len(),
            call.result_shapes.len()
        ));
    }
    for (what, v) in [
        ("threads_per_grid", &call.threads_per_grid),
        ("threads_per_thread_group", &call.threads_per_thread_group),
    ] {
        if v.len() != 3 {
            return Err(format!("{what} must have 3 entries, got {v:?}"));
        }
    }

    // A bad scalar is reported before anything is built (coreai-torch bakes
    // the body first).
    call.body()?;
    // Kernel inputs: the operands, and the scalars as rank-0 constants.
    let mut host: Vec<Value<'c, 'a>> = Vec::new();
    let mut params: Vec<Param<'_>> = Vec::new();
    let mut next = 0;
    for name in &call.input_names {
        let what = format!("the kernel input '{name}'");
        if let Some(s) = call.scalar(name) {
            let (value, metal) = match s {
                MetalScalar::Float(f) => {
                    let v =
                        emit::float_scalar(cx, f as f32 as f64, coreai_ir::schema::f32_type(cx)?)?;
                    (v, "float")
                }
                MetalScalar::Int(i) => (emit::int_scalar(cx, i, "si32")?, "int"),
                MetalScalar::Bool(b) => (emit::int_scalar(cx, i64::from(b), "ui8")?, "bool"),
            };
            host.push(value);
            params.push(Param {
                name,
                rank: 0,
                metal: metal.into(),
            });
        } else {
            let v = cx.operand(next)?;
            next += 1;
            let t = tensor_of(v)?;
            params.push(Param {
                name,
                rank: t.rank(),
                metal: metal_type(t.element(), &what)?,
            });
            host.push(v);
        }
    }
    let mut result_types = Vec::new();
    let mut results: Vec<Param<'_>> = Vec::new();
    for (i, name) in call.result_names.iter().enumerate() {
        let ty = cx.result_type(i)?;
        let t = melior::ir::r#type::RankedTensorType::try_from(ty)
            .map_err(|_| format!("result #{i} is not a ranked tensor"))?;
        results.push(Param {
            name,
            rank: t.rank(),
            metal: metal_type(t.element(), &format!("the kernel result '{name}'"))?,
        });
        result_types.push(mtl_type(cx, ty)?);
    }

    let probe = call.template(&call.name, &params, &results)?;
    let kernel_name = format!("{}_{}", call.name, suffix(&probe));
    let source = call.template(&kernel_name, &params, &results)?;

    let mut operands: Vec<Value<'c, '_>> = Vec::new();
    for v in &host {
        let ty = mtl_type(cx, v.r#type())?;
        operands.push(cx.build_value(coreaix::COPY_WITH_CONSTRAINTS, &[*v], ty, &[])?);
    }
    operands.push(emit::int_vector(cx, &call.threads_per_grid, "ui32")?);
    operands.push(emit::int_vector(
        cx,
        &call.threads_per_thread_group,
        "ui32",
    )?);
    for s in &call.result_shapes {
        operands.push(emit::int_vector(cx, s, "ui32")?);
    }
    let segments = cx.parse_attribute(&format!(
        "array<i32: {}, 1, 1, {}>",
        host.len(),
        call.result_shapes.len()
    ))?;
    let kernel = cx.build(
        coreai::METAL4_KERNEL,
        &operands,
        &result_types,
        &[
            ("kernel_name", cx.string_attribute(&kernel_name)),
            ("kernel_source", cx.string_attribute(&source)),
            ("operandSegmentSizes", segments),
        ],
    )?;
    (0..n_results)
        .map(|i| {
            let r: Value<'c, '_> = kernel.result(i).map_err(|e| e.to_string())?.into();
            cx.build_value(
                coreaix::COPY_DISCARDING_CONSTRAINTS,
                &[r],
                cx.result_type(i)?,
                &[],
            )
        })
        .collect()
}

/// A user lowering (for [`crate::Compiler::register_lowering`]) that lowers
/// a custom op (`my_lib::op.default`, any namespace) as the Metal kernel
/// `kernel`, registered from Rust instead of described by the importer:
/// `kernel.scalars` is ignored; an input whose name is an attribute of the op
/// (a bool, int or float schema argument) is a scalar input, the others are
/// the op's operands in order; the dispatch and result shapes are
/// `kernel`'s.
pub fn user_lowering(kernel: MetalKernelCall) -> coreai_ir::lowering::UserLowering {
    std::sync::Arc::new(move |cx: &LoweringCx<'_, '_>| {
        let mut call = kernel.clone();
        call.scalars.clear();
        for name in &kernel.input_names {
            let Ok(a) = cx.op().attribute(name) else {
                continue;
            };
            call.scalars
                .push((name.clone(), scalar(a, "the scalar input", name)?));
        }
        lower_call(cx, &call)
    })
}

/// A kernel's scalar argument from its attribute (`what` and `name` for the
/// message when it is not a bool, an integer or a float).
fn scalar(a: Attribute<'_>, what: &str, name: &str) -> Result<MetalScalar, String> {
    if let Ok(b) = BoolAttribute::try_from(a) {
        Ok(MetalScalar::Bool(b.value()))
    } else if let Ok(i) = IntegerAttribute::try_from(a) {
        Ok(MetalScalar::Int(i.value()))
    } else if let Ok(f) = FloatAttribute::try_from(a) {
        Ok(MetalScalar::Float(f.value()))
    } else {
        Err(format!("{what} '{name}' is not a bool, int or float: {a}"))
    }
}

#[cfg(test)]
mod tests {
    use super::python_float_repr;

    #[test]
    fn floats_print_as_python_repr() {
        for (v, want) in [
            (2.5, "2.5"),
            (0.5, "0.5"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (0.1, "0.1"),
            (-3.0, "-3.0"),
            (1.5e300, "1.5e+300"),
            (-0.0, "-0.0"),
            (123.456, "123.456"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
        ] {
            assert_eq!(python_float_repr(v), want, "{v}");
        }
    }
}
