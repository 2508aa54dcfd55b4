//! Lowerings from ATen (and custom) ops to coreai, and the per-instance
//! registry of user lowerings.
//!
//! A lowering receives a [`LoweringCx`] for one operation, builds replacement
//! ops in front of it and returns the values that replace its results (same
//! count, same types). It declines with a reason instead of emitting
//! diagnostics; `legalize-aten-to-coreai` turns a decline into an error at the
//! op's location.
//!
//! User lowerings are scoped to one MLIR context (one `coreai::Compiler`),
//! never global: two compilers in one process can lower the same op
//! differently.

use melior::ir::{
    attribute::{FloatAttribute, IntegerAttribute},
    operation::{OperationBuilder, OperationLike, OperationRef},
    r#type::RankedTensorType,
    Attribute, AttributeLike, Identifier, Location, Type, TypeLike, Value, ValueLike,
};
use mlir_sys::MlirContext;
use std::{
    collections::{BTreeMap, HashMap},
    fmt,
    sync::{Arc, Mutex, OnceLock},
};

/// Why a lowering did not apply, in words the user can act on.
pub type Decline = String;

/// The options of the running pass that lowerings read. They travel on the
/// [`LoweringCx`] (never in globals): the rewrite driver
/// ([`crate::rewrite::Rewriter`]) hands the pass's options to every lowering
/// it calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoweringOptions {
    /// `legalize-aten-to-coreai{composites=inline}`: ATen-derived composites
    /// are emitted in place instead of as `noinline` graphs.
    pub inline_composites: bool,
}

/// The context a lowering runs in: the op being lowered, a builder that
/// inserts in front of it, and the running pass's options.
pub struct LoweringCx<'c, 'a> {
    op: OperationRef<'c, 'a>,
    options: LoweringOptions,
}

impl<'c, 'a> LoweringCx<'c, 'a> {
    /// A context for `op` with the default options.
    pub fn new(op: OperationRef<'c, 'a>) -> Self {
        Self::with_options(op, LoweringOptions::default())
    }

    /// A context for `op` with the pass's `options`.
    pub fn with_options(op: OperationRef<'c, 'a>, options: LoweringOptions) -> Self {
        Self { op, options }
    }

    /// The op being lowered.
    pub fn op(&self) -> OperationRef<'c, 'a> {
        self.op
    }

    /// The running pass's options.
    /// A value of the IR being lowered, from its raw handle (a pattern that
    /// builds through [`crate::raw`] returns its results this way).
    pub fn value(&self, raw: mlir_sys::MlirValue) -> Value<'c, 'a> {
        unsafe { Value::from_raw(raw) }
    }

    /// An op of the IR being lowered (or built for it), from its raw handle.
    pub fn operation(&self, raw: mlir_sys::MlirOperation) -> OperationRef<'c, 'a> {
        unsafe { OperationRef::from_raw(raw) }
    }

    /// An attribute of the IR being lowered, from its raw handle.
    pub fn attribute_from_raw(&self, raw: mlir_sys::MlirAttribute) -> Attribute<'c> {
        unsafe { Attribute::from_raw(raw) }
    }

    pub fn options(&self) -> LoweringOptions {
        self.options
    }

    pub fn context(&self) -> MlirContext {
        unsafe { mlir_sys::mlirOperationGetContext(self.op.to_raw()) }
    }

    /// `name` as an identifier in this op's context.
    pub fn identifier(&self, name: &str) -> Identifier<'c> {
        unsafe {
            Identifier::from_raw(mlir_sys::mlirIdentifierGet(
                self.context(),
                crate::ffi::string_ref(name),
            ))
        }
    }

    /// Parses an attribute in this op's context.
    pub fn parse_attribute(&self, text: &str) -> Result<Attribute<'c>, Decline> {
        let raw = unsafe {
            mlir_sys::mlirAttributeParseGet(self.context(), crate::ffi::string_ref(text))
        };
        if raw.ptr.is_null() {
            return Err(format!("cannot build the attribute {text}"));
        }
        Ok(unsafe { Attribute::from_raw(raw) })
    }

    /// `v : iN` (a signless integer attribute of `bits` bits).
    pub fn integer_attribute(&self, v: i64, bits: u32) -> Attribute<'c> {
        unsafe {
            let ty = mlir_sys::mlirIntegerTypeGet(self.context(), bits);
            Attribute::from_raw(mlir_sys::mlirIntegerAttrGet(ty, v))
        }
    }

    /// `true` or `false`.
    pub fn bool_attribute(&self, v: bool) -> Attribute<'c> {
        unsafe { Attribute::from_raw(mlir_sys::mlirBoolAttrGet(self.context(), v.into())) }
    }

    /// A string attribute.
    pub fn string_attribute(&self, v: &str) -> Attribute<'c> {
        unsafe {
            Attribute::from_raw(mlir_sys::mlirStringAttrGet(
                self.context(),
                crate::ffi::string_ref(v),
            ))
        }
    }

    /// The unit attribute.
    pub fn unit_attribute(&self) -> Attribute<'c> {
        unsafe { Attribute::from_raw(mlir_sys::mlirUnitAttrGet(self.context())) }
    }

    /// An array attribute of `elements`.
    pub fn array_attribute(&self, elements: &[Attribute<'c>]) -> Attribute<'c> {
        let raw: Vec<mlir_sys::MlirAttribute> = elements.iter().map(|a| a.to_raw()).collect();
        unsafe {
            Attribute::from_raw(mlir_sys::mlirArrayAttrGet(
                self.context(),
                raw.len() as isize,
                raw.as_ptr(),
            ))
        }
    }

    /// A static integer tensor of `shape` holding `values` (row-major) as
    /// `element` (`si32`, `ui32`, `i64`, ...) in this op's context: see
    /// [`int_tensor`].
    pub fn int_tensor(
        &self,
        shape: &[i64],
        values: &[i64],
        element: &str,
    ) -> Result<(Type<'c>, Attribute<'c>), Decline> {
        unsafe { int_tensor(self.context(), shape, values, element) }
    }

    /// Parses a type in this op's context.
    pub fn parse_type(&self, text: &str) -> Result<Type<'c>, Decline> {
        let raw =
            unsafe { mlir_sys::mlirTypeParseGet(self.context(), crate::ffi::string_ref(text)) };
        if raw.ptr.is_null() {
            return Err(format!("cannot build the type {text}"));
        }
        Ok(unsafe { Type::from_raw(raw) })
    }

    pub fn location(&self) -> Location<'c> {
        self.op.location()
    }

    pub fn operand(&self, index: usize) -> Result<Value<'c, 'a>, Decline> {
        self.op
            .operand(index)
            .map_err(|_| format!("expected an operand #{index}"))
    }

    /// The ranked tensor type of operand `index`.
    pub fn operand_tensor(&self, index: usize) -> Result<RankedTensorType<'c>, Decline> {
        let ty = self.operand(index)?.r#type();
        RankedTensorType::try_from(ty)
            .map_err(|_| format!("operand #{index} is not a ranked tensor"))
    }

    /// The coreai type of result `index`: the aten op's result type with
    /// signless integers made signed ([`coreai_type`]), the type the
    /// replacement value must have.
    pub fn result_type(&self, index: usize) -> Result<Type<'c>, Decline> {
        self.op
            .result(index)
            .map(|r| coreai_type(r.r#type()))
            .map_err(|_| format!("expected a result #{index}"))
    }

    /// Whether `value` is a Python number the exporter wrapped into a rank-0
    /// tensor (`x * 2`): a constant marked `aten.wrapped_number`, whose dtype
    /// is PyTorch's default for its kind (i64 / f64), not the computation's.
    pub fn is_wrapped_number(&self, value: Value<'c, '_>) -> bool {
        unsafe {
            let raw = value.to_raw();
            if !mlir_sys::mlirValueIsAOpResult(raw) {
                return false;
            }
            OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(raw))
                .attribute(WRAPPED_NUMBER)
                .is_ok()
        }
    }

    pub fn result_tensor(&self, index: usize) -> Result<RankedTensorType<'c>, Decline> {
        RankedTensorType::try_from(self.result_type(index)?)
            .map_err(|_| format!("result #{index} is not a ranked tensor"))
    }

    pub fn attribute(&self, name: &str) -> Result<Attribute<'c>, Decline> {
        self.op
            .attribute(name)
            .map_err(|_| format!("missing attribute '{name}'"))
    }

    /// A PyTorch `Scalar` attribute (bool, int or float) as a number.
    pub fn scalar(&self, name: &str) -> Result<Scalar, Decline> {
        let attr = self.attribute(name)?;
        if let Ok(int) = IntegerAttribute::try_from(attr) {
            return Ok(Scalar::Int(int.value()));
        }
        if let Ok(float) = FloatAttribute::try_from(attr) {
            return Ok(Scalar::Float(float.value()));
        }
        if attr.is_bool() {
            return Ok(Scalar::Int(i64::from(attr.to_string() == "true")));
        }
        Err(format!(
            "attribute '{name}' is not a bool, int or float scalar: {attr}"
        ))
    }

    /// Builds `name` with `operands`, `results` and `attributes` in front of
    /// the op being lowered and returns it.
    pub fn build(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<OperationRef<'c, 'a>, Decline> {
        let attributes: Vec<(Identifier<'c>, Attribute<'c>)> = attributes
            .iter()
            .map(|(k, v)| (self.identifier(k), *v))
            .collect();
        self.insert(name, operands, results, &attributes)
    }

    /// The op being lowered, built again with `operands` and a `result`
    /// type instead of its own (same name, attributes and location), in
    /// front of it; returns its single result.
    pub fn rebuild(
        &self,
        operands: &[Value<'c, '_>],
        result: Type<'c>,
    ) -> Result<Value<'c, 'a>, Decline> {
        let name = self.op.name();
        let name = name
            .as_string_ref()
            .as_str()
            .map_err(|_| "a non-UTF-8 op name")?;
        let attributes: Vec<(Identifier<'c>, Attribute<'c>)> = self.op.attributes().collect();
        let op = self.insert(name, operands, &[result], &attributes)?;
        op.result(0)
            .map(Into::into)
            .map_err(|_| format!("'{name}' has no result"))
    }

    /// Builds `name` in front of the op being lowered.
    fn insert(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        results: &[Type<'c>],
        attributes: &[(Identifier<'c>, Attribute<'c>)],
    ) -> Result<OperationRef<'c, 'a>, Decline> {
        let op = OperationBuilder::new(name, self.location())
            .add_operands(operands)
            .add_results(results)
            .add_attributes(attributes)
            .build()
            .map_err(|e| format!("cannot build '{name}': {e}"))?;
        let block = self
            .op
            .block()
            .ok_or_else(|| "the op is not in a block".to_string())?;
        unsafe {
            let raw = op.into_raw();
            mlir_sys::mlirBlockInsertOwnedOperationBefore(block.to_raw(), self.op.to_raw(), raw);
            Ok(OperationRef::from_raw(raw))
        }
    }

    /// Builds `name` and returns its single result.
    pub fn build_value(
        &self,
        name: &str,
        operands: &[Value<'c, '_>],
        result: Type<'c>,
        attributes: &[(&str, Attribute<'c>)],
    ) -> Result<Value<'c, 'a>, Decline> {
        let op = self.build(name, operands, &[result], attributes)?;
        op.result(0)
            .map(Into::into)
            .map_err(|_| format!("'{name}' has no result"))
    }

    /// A rank-0 `coreai.constant` holding `value` exactly in `element`, or a
    /// decline when `value` is not representable in `element` without
    /// rounding.
    pub fn scalar_constant(
        &self,
        value: Scalar,
        element: Type<'c>,
    ) -> Result<Value<'c, 'a>, Decline> {
        let literal = value.exact_literal(element)?;
        let tensor = format!("tensor<{}>", type_text(element));
        let text = format!("dense<{literal}> : {tensor}");
        let attr = self.parse_attribute(&text)?;
        let ty = self.parse_type(&tensor)?;
        self.build_value("coreai.constant", &[], ty, &[("value", attr)])
    }
}

/// The discardable attribute the importer puts on constants that hold a
/// Python number (`x * 2`); the legalizer keeps it on the `coreai.constant`
/// while lowering and removes it at the end.
pub const WRAPPED_NUMBER: &str = "aten.wrapped_number";

/// The coreai spelling of an aten-dialect type. The aten dialect, like
/// PyTorch's exporter, uses signless integers (`tensor<3xi64>`); coreai
/// distinguishes signed and unsigned and rejects signless ones, so every
/// signless integer wider than one bit becomes signed (`tensor<3xsi64>`), in
/// tensors and function types. A scalar integer or float (a symbolic size
/// `i64` from `aten.sym_size.int`, a `f64` from `aten.sym_float`, a Python
/// number `arith.constant`) becomes a rank-0 tensor of its coreai element
/// (`i64` → `tensor<si64>`, `f64` → `tensor<f64>`, `i1` → `tensor<i1>`):
/// coreai has tensors only. Other types are returned unchanged.
pub fn coreai_type(ty: Type<'_>) -> Type<'_> {
    use mlir_sys::*;
    unsafe {
        let raw = ty.to_raw();
        if mlirTypeIsAInteger(raw) || mlirTypeIsAFloat(raw) {
            let element = coreai_element(ty).to_raw();
            return Type::from_raw(mlirRankedTensorTypeGet(
                0,
                std::ptr::null(),
                element,
                mlirAttributeGetNull(),
            ));
        }
        if mlirTypeIsARankedTensor(raw) {
            let element = Type::from_raw(mlirShapedTypeGetElementType(raw));
            let converted = coreai_element(element);
            if converted == element {
                return ty;
            }
            let rank = mlirShapedTypeGetRank(raw) as isize;
            let shape: Vec<i64> = (0..rank)
                .map(|i| mlirShapedTypeGetDimSize(raw, i))
                .collect();
            return Type::from_raw(mlirRankedTensorTypeGet(
                rank,
                shape.as_ptr(),
                converted.to_raw(),
                mlirRankedTensorTypeGetEncoding(raw),
            ));
        }
        if mlirTypeIsAFunction(raw) {
            let convert = |types: Vec<MlirType>| -> Vec<MlirType> {
                types
                    .into_iter()
                    .map(|t| coreai_type(Type::from_raw(t)).to_raw())
                    .collect()
            };
            let inputs = convert(
                (0..mlirFunctionTypeGetNumInputs(raw))
                    .map(|i| mlirFunctionTypeGetInput(raw, i))
                    .collect(),
            );
            let results = convert(
                (0..mlirFunctionTypeGetNumResults(raw))
                    .map(|i| mlirFunctionTypeGetResult(raw, i))
                    .collect(),
            );
            return Type::from_raw(mlirFunctionTypeGet(
                mlirTypeGetContext(raw),
                inputs.len() as isize,
                inputs.as_ptr(),
                results.len() as isize,
                results.as_ptr(),
            ));
        }
        ty
    }
}

/// The coreai element type of an aten-dialect element type: a signless
/// integer wider than one bit becomes signed, others are unchanged.
fn coreai_element(ty: Type<'_>) -> Type<'_> {
    use mlir_sys::*;
    unsafe {
        let raw = ty.to_raw();
        if mlirTypeIsAInteger(raw)
            && mlirIntegerTypeIsSignless(raw)
            && mlirIntegerTypeGetWidth(raw) > 1
        {
            return Type::from_raw(mlirIntegerTypeSignedGet(
                mlirTypeGetContext(raw),
                mlirIntegerTypeGetWidth(raw),
            ));
        }
        ty
    }
}

/// A PyTorch `Scalar`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// Whether the scalar is exactly representable in `element` (what
    /// [`LoweringCx::scalar_constant`] accepts), without building anything.
    pub fn is_exact_in(self, element: Type<'_>) -> bool {
        self.exact_literal(element).is_ok()
    }

    /// The scalar as an MLIR literal of `element`, if it is exactly
    /// representable there (an int in a float type, a float in f16 ...).
    fn exact_literal(self, element: Type<'_>) -> Result<String, Decline> {
        let text = type_text(element);
        let float_bits = match &*text {
            "f64" => Some(53),
            "f32" => Some(24),
            "f16" => Some(11),
            "bf16" => Some(8),
            _ => None,
        };
        match (self, float_bits) {
            (Scalar::Float(v), Some(_)) if !v.is_finite() => Ok(nonfinite_literal(v, &text)),
            (Scalar::Float(v), Some(bits)) => {
                if representable(v, bits, &text) {
                    Ok(float_literal(v))
                } else {
                    Err(format!("{v} is not exactly representable in {text}"))
                }
            }
            (Scalar::Int(v), Some(bits)) => {
                if representable(v as f64, bits, &text) && (v as f64) as i64 == v {
                    Ok(float_literal(v as f64))
                } else {
                    Err(format!("{v} is not exactly representable in {text}"))
                }
            }
            (Scalar::Int(v), None) if element.is_integer() => Ok(v.to_string()),
            (Scalar::Float(v), None) if element.is_integer() && v.fract() == 0.0 => {
                Ok((v as i64).to_string())
            }
            _ => Err(format!("{self:?} cannot be a constant of type {text}")),
        }
    }
}

/// A static integer tensor of `shape` holding `values` (row-major) as
/// `element` (`si32`, `ui32`, `i64`, ...): its type and its
/// `DenseElementsAttr`, built directly rather than by printing and
/// parsing a literal (the same attribute: equal values make a splat).
///
/// # Safety
/// `context` must be a live MLIR context that outlives `'c`.
pub unsafe fn int_tensor<'c>(
    context: MlirContext,
    shape: &[i64],
    values: &[i64],
    element: &str,
) -> Result<(Type<'c>, Attribute<'c>), Decline> {
    let (signedness, digits) = if let Some(d) = element.strip_prefix("si") {
        (Some(true), d)
    } else if let Some(d) = element.strip_prefix("ui") {
        (Some(false), d)
    } else {
        (None, element.strip_prefix('i').unwrap_or(""))
    };
    let width = match digits.parse::<u32>() {
        Ok(w @ (8 | 16 | 32 | 64)) => w,
        _ => {
            return Err(format!(
                "{element} is not an integer type of 8, 16, 32 or 64 bits"
            ))
        }
    };
    // The ranges MLIR's literal parser accepts: signless takes either
    // reading of the bits.
    let fits = |v: i64| match (width, signedness) {
        (64, Some(false)) => v >= 0,
        (64, _) => true,
        (w, Some(true)) => v >= -(1i64 << (w - 1)) && v < (1i64 << (w - 1)),
        (w, None) => v >= -(1i64 << (w - 1)) && v < (1i64 << w),
        (w, Some(false)) => v >= 0 && v < (1i64 << w),
    };
    if let Some(v) = values.iter().find(|v| !fits(**v)) {
        return Err(format!("the value {v} does not fit in {element}"));
    }
    let bytes = (width / 8) as usize;
    let raw: Vec<u8> = values
        .iter()
        .flat_map(|v| v.to_le_bytes().into_iter().take(bytes))
        .collect();
    unsafe {
        let element = match signedness {
            Some(true) => mlir_sys::mlirIntegerTypeSignedGet(context, width),
            Some(false) => mlir_sys::mlirIntegerTypeUnsignedGet(context, width),
            None => mlir_sys::mlirIntegerTypeGet(context, width),
        };
        let ty = mlir_sys::mlirRankedTensorTypeGet(
            shape.len() as isize,
            shape.as_ptr(),
            element,
            mlir_sys::mlirAttributeGetNull(),
        );
        let attr = mlir_sys::mlirDenseElementsAttrRawBufferGet(ty, raw.len(), raw.as_ptr().cast());
        Ok((Type::from_raw(ty), Attribute::from_raw(attr)))
    }
}

/// `ty` as MLIR prints it (`f32`, `si64`, `i1`), without the printer for
/// the scalar and plain tensor types lowerings ask about: `Type`'s `Display` builds an
/// `AsmState` per call, a tenth of a small model's conversion when lowerings
/// compare element types by name.
pub fn type_text(ty: Type<'_>) -> std::borrow::Cow<'static, str> {
    use std::borrow::Cow;
    let raw = ty.to_raw();
    unsafe {
        if mlir_sys::mlirTypeIsAF32(raw) {
            return Cow::Borrowed("f32");
        }
        if mlir_sys::mlirTypeIsAF16(raw) {
            return Cow::Borrowed("f16");
        }
        if mlir_sys::mlirTypeIsABF16(raw) {
            return Cow::Borrowed("bf16");
        }
        if mlir_sys::mlirTypeIsAF64(raw) {
            return Cow::Borrowed("f64");
        }
        if mlir_sys::mlirTypeIsAIndex(raw) {
            return Cow::Borrowed("index");
        }
        if mlir_sys::mlirTypeIsAInteger(raw) {
            let width = mlir_sys::mlirIntegerTypeGetWidth(raw);
            let prefix = if mlir_sys::mlirIntegerTypeIsSigned(raw) {
                "si"
            } else if mlir_sys::mlirIntegerTypeIsUnsigned(raw) {
                "ui"
            } else {
                "i"
            };
            return Cow::Owned(format!("{prefix}{width}"));
        }
        if mlir_sys::mlirTypeIsARankedTensor(raw)
            && mlir_sys::mlirRankedTensorTypeGetEncoding(raw).ptr.is_null()
        {
            let rank = mlir_sys::mlirShapedTypeGetRank(raw) as isize;
            let mut text = String::from("tensor<");
            for d in 0..rank {
                if mlir_sys::mlirShapedTypeIsDynamicDim(raw, d) {
                    text.push('?');
                } else {
                    text.push_str(&mlir_sys::mlirShapedTypeGetDimSize(raw, d).to_string());
                }
                text.push('x');
            }
            let element = Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(raw));
            text.push_str(&type_text(element));
            text.push('>');
            return Cow::Owned(text);
        }
    }
    Cow::Owned(ty.to_string())
}

/// PyTorch's broadcast of shapes, aligned at the trailing dim. A dynamic dim
/// (any negative size) against 1 or against itself stays dynamic; against a
/// static size it takes that size, as the result must have it.
pub fn broadcast_shapes(shapes: &[&[i64]]) -> Result<Vec<i64>, Decline> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1; rank];
    for s in shapes {
        for (o, &d) in out[rank - s.len()..].iter_mut().zip(s.iter()) {
            *o = match (*o, d) {
                (x, y) if x == y => x,
                (1, y) => y,
                (x, 1) => x,
                (x, y) if x < 0 || y < 0 => x.max(y),
                (x, y) => {
                    return Err(format!(
                        "the shapes {shapes:?} do not broadcast ({x} vs {y})"
                    ))
                }
            };
        }
    }
    Ok(out)
}

/// An f64 as MLIR float literal text (hex for NaN and the infinities).
pub fn float_literal(v: f64) -> String {
    if v.is_nan() {
        "0x7FF8000000000000".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "0x7FF0000000000000".into()
        } else {
            "0xFFF0000000000000".into()
        }
    } else {
        // Rust prints the shortest decimal that reads back as the same f64;
        // MLIR's float literal needs a '.' before any exponent (`1.0e-6`).
        let s = format!("{v:?}");
        match s.split_once('e') {
            Some((mantissa, exp)) if !mantissa.contains('.') => format!("{mantissa}.0e{exp}"),
            Some(_) => s,
            None if s.contains('.') => s,
            None => format!("{s}.0"),
        }
    }
}

/// NaN or ±inf as the hexadecimal bit pattern MLIR parses for the float
/// type `ty` (`0x7F800000` is +inf in f32; a decimal spelling does not parse).
fn nonfinite_literal(v: f64, ty: &str) -> String {
    let (nan, inf, neg_inf) = match ty {
        "f32" => ("0x7FC00000", "0x7F800000", "0xFF800000"),
        "f16" => ("0x7E00", "0x7C00", "0xFC00"),
        "bf16" => ("0x7FC0", "0x7F80", "0xFF80"),
        _ => return float_literal(v),
    };
    match v {
        v if v.is_nan() => nan,
        v if v > 0.0 => inf,
        _ => neg_inf,
    }
    .into()
}

/// Whether `v` has at most `bits` significant bits and fits the exponent
/// range of the named type (normal or subnormal).
fn representable(v: f64, bits: u32, ty: &str) -> bool {
    if v == 0.0 {
        return true;
    }
    let (min_exp, max_exp) = match ty {
        "f16" => (-24, 15),
        "bf16" => (-133, 127),
        "f32" => (-149, 127),
        _ => (-1074, 1023),
    };
    let exp = v.abs().log2().floor() as i32;
    if exp > max_exp {
        return false;
    }
    // The value must be an integer multiple of the unit in the last place.
    let ulp_exp = (exp - (bits as i32 - 1)).max(min_exp);
    let scaled = v / 2f64.powi(ulp_exp);
    scaled.fract() == 0.0
}

/// A lowering supplied by a user of the library.
pub type UserLowering = Arc<
    dyn for<'c, 'a> Fn(&LoweringCx<'c, 'a>) -> Result<Vec<Value<'c, 'a>>, Decline> + Send + Sync,
>;

/// Why a lowering could not be registered.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    #[error("'{0}' is not a qualified overload 'namespace::name.overload'")]
    Malformed(String),
    #[error("'{0}' is already registered; pass allow_override = true to replace it")]
    AlreadyRegistered(String),
}

type Registry = Mutex<HashMap<usize, BTreeMap<String, UserLowering>>>;

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

/// Namespaces whose built-in lowerings a user lowering may only replace with
/// `allow_override`.
pub const RESERVED_NAMESPACES: &[&str] = &["aten", "coreai", "coreaix", "higher_order"];

/// Registers `lowering` for `qualified` (`my_lib::scaled_add.default`) in
/// the context `context`. `builtin` tells whether the built-in resolver
/// already lowers that key.
pub fn register(
    context: MlirContext,
    qualified: &str,
    allow_override: bool,
    builtin: bool,
    lowering: UserLowering,
) -> Result<(), RegisterError> {
    let Some((namespace, target)) = qualified.split_once("::") else {
        return Err(RegisterError::Malformed(qualified.into()));
    };
    if namespace.is_empty() || !target.contains('.') || target.starts_with('.') {
        return Err(RegisterError::Malformed(qualified.into()));
    }
    let mut registry = registry().lock().unwrap_or_else(|e| e.into_inner());
    let lowerings = registry.entry(context.ptr as usize).or_default();
    let reserved = RESERVED_NAMESPACES.contains(&namespace) && builtin;
    if !allow_override && (reserved || lowerings.contains_key(qualified)) {
        return Err(RegisterError::AlreadyRegistered(qualified.into()));
    }
    lowerings.insert(qualified.to_string(), lowering);
    Ok(())
}

/// Forgets the user lowerings of a context its owner is about to destroy.
pub fn forget_context(context: MlirContext) {
    forget(context)
}

/// The user lowering for `qualified` in `context`, if any.
pub fn user_lowering(context: MlirContext, qualified: &str) -> Option<UserLowering> {
    let registry = registry().lock().unwrap_or_else(|e| e.into_inner());
    registry
        .get(&(context.ptr as usize))?
        .get(qualified)
        .cloned()
}

/// The qualified names of the user lowerings of `context`, sorted.
pub fn user_lowering_names(context: MlirContext) -> Vec<String> {
    let registry = registry().lock().unwrap_or_else(|e| e.into_inner());
    registry
        .get(&(context.ptr as usize))
        .map(|l| l.keys().cloned().collect())
        .unwrap_or_default()
}

/// Forgets every user lowering of `context` (when its compiler is dropped).
pub fn forget(context: MlirContext) {
    let mut registry = registry().lock().unwrap_or_else(|e| e.into_inner());
    registry.remove(&(context.ptr as usize));
}

impl fmt::Debug for LoweringCx<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LoweringCx({})",
            self.op.name().as_string_ref().as_str().unwrap_or("?")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_broadcast_like_pytorch() {
        assert_eq!(
            broadcast_shapes(&[&[2, 3, 4], &[4]]).unwrap(),
            vec![2, 3, 4]
        );
        assert_eq!(broadcast_shapes(&[&[2, 1], &[1, 5]]).unwrap(), vec![2, 5]);
        assert_eq!(broadcast_shapes(&[&[], &[3]]).unwrap(), vec![3]);
        assert_eq!(
            broadcast_shapes(&[&[3, 1], &[3], &[1, 1]]).unwrap(),
            vec![3, 3]
        );
        assert!(broadcast_shapes(&[&[2], &[3]]).is_err());
        assert!(broadcast_shapes(&[&[2], &[1], &[3]]).is_err());
    }

    #[test]
    fn dynamic_dims_broadcast() {
        assert_eq!(
            broadcast_shapes(&[&[i64::MIN, 1], &[1, 4]]).unwrap(),
            vec![i64::MIN, 4]
        );
        assert_eq!(broadcast_shapes(&[&[i64::MIN], &[5]]).unwrap(), vec![5]);
        assert_eq!(broadcast_shapes(&[&[-1], &[1]]).unwrap(), vec![-1]);
        assert_eq!(
            broadcast_shapes(&[&[i64::MIN], &[i64::MIN]]).unwrap(),
            vec![i64::MIN]
        );
    }

    #[test]
    fn signless_integers_become_signed() {
        let context = crate::context::create_context();
        let parse = |text: &str| Type::parse(&context, text).unwrap();
        for (aten, coreai) in [
            ("tensor<3x?xi64>", "tensor<3x?xsi64>"),
            ("tensor<i32>", "tensor<si32>"),
            ("tensor<2xi1>", "tensor<2xi1>"),
            ("tensor<2xui8>", "tensor<2xui8>"),
            ("tensor<2xf32>", "tensor<2xf32>"),
            (
                "(tensor<2xi64>, f32) -> tensor<i8>",
                "(tensor<2xsi64>, tensor<f32>) -> tensor<si8>",
            ),
            // Scalars (symbolic sizes, Python numbers) become rank-0 tensors.
            ("i64", "tensor<si64>"),
            ("f64", "tensor<f64>"),
            ("i1", "tensor<i1>"),
            ("(i64) -> f64", "(tensor<si64>) -> tensor<f64>"),
        ] {
            assert_eq!(coreai_type(parse(aten)), parse(coreai), "{aten}");
        }
    }

    #[test]
    fn type_text_is_what_mlir_prints() {
        let context = crate::context::create_context();
        for text in [
            "f32",
            "f16",
            "bf16",
            "f64",
            "index",
            "i1",
            "i8",
            "i64",
            "si32",
            "ui8",
            "si16",
            "tensor<f32>",
            "tensor<2x?x3xsi64>",
            "tensor<0xui32>",
            "tensor<4xi1>",
            "tensor<2xcomplex<f32>>",
            "complex<f32>",
            "f8E4M3FN",
            "tensor<*xf32>",
            "none",
            "tuple<i32, f32>",
        ] {
            let ty = Type::parse(&context, text).unwrap_or_else(|| panic!("{text} parses"));
            assert_eq!(type_text(ty), ty.to_string(), "{text}");
        }
    }

    #[test]
    fn int_tensors_equal_the_parsed_literal() {
        let context = crate::context::create_context();
        let raw = context.to_raw();
        let cases: &[(&[i64], &[i64], &str)] = &[
            (&[3], &[1, -2, 3], "si32"),
            (&[3], &[4, 4, 4], "si32"), // a splat
            (&[], &[7], "si64"),
            (&[2, 2], &[0, 255, 1, 2], "ui8"),
            (&[2], &[-32768, 32767], "si16"),
            (&[2], &[i64::MIN, i64::MAX], "i64"),
            (&[2], &[-1, 4294967295], "i32"), // signless takes both readings
            (&[0], &[], "ui32"),
        ];
        for (shape, values, element) in cases {
            let (ty, attr) = unsafe { int_tensor(raw, shape, values, element) }.unwrap();
            let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
            let tensor = format!(
                "tensor<{}{element}>",
                dims.iter().map(|d| format!("{d}x")).collect::<String>()
            );
            // MLIR's nested literal, row-major.
            fn nest(shape: &[i64], values: &[i64]) -> String {
                match shape.split_first() {
                    None => values[0].to_string(),
                    Some((&n, rest)) => {
                        let step = rest.iter().product::<i64>() as usize;
                        let items: Vec<String> = (0..n as usize)
                            .map(|i| nest(rest, &values[i * step..]))
                            .collect();
                        format!("[{}]", items.join(", "))
                    }
                }
            }
            let literal = format!("dense<{}> : {tensor}", nest(shape, values));
            let parsed =
                Attribute::parse(&context, &literal).unwrap_or_else(|| panic!("{literal} parses"));
            assert_eq!(attr, parsed, "{literal}");
            assert_eq!(ty, Type::parse(&context, &tensor).unwrap(), "{tensor}");
            assert_eq!(attr.to_string(), parsed.to_string(), "{literal}");
        }
        for (value, element) in [
            (128, "si8"),
            (-1, "ui32"),
            (256, "ui8"),
            (4294967296, "i32"),
        ] {
            let error = unsafe { int_tensor(raw, &[1], &[value], element) }.unwrap_err();
            assert!(
                error.contains("does not fit"),
                "{value} in {element}: {error}"
            );
        }
        assert!(unsafe { int_tensor(raw, &[1], &[1], "f32") }.is_err());
    }

    #[test]
    fn exactness_of_scalar_constants() {
        assert!(representable(2.5, 11, "f16"));
        assert!(representable(65504.0, 11, "f16"));
        assert!(!representable(65536.0, 11, "f16"), "overflows f16");
        assert!(!representable(0.1, 11, "f16"));
        assert!(!representable(0.1, 24, "f32"));
        assert!(representable(0.1, 53, "f64"));
        assert!(
            representable(2f64.powi(-24), 11, "f16"),
            "smallest f16 subnormal"
        );
        assert!(!representable(2f64.powi(-25), 11, "f16"));
        assert!(representable(16777216.0, 24, "f32"));
        assert!(!representable(16777217.0, 24, "f32"));
        assert_eq!(float_literal(1.0), "1.0");
        assert_eq!(float_literal(1e-6), "1.0e-6");
        assert_eq!(float_literal(2.5e-8), "2.5e-8");
        assert_eq!(float_literal(1e300), "1.0e300");
        // Every literal parses back to the same value.
        let context = crate::context::create_context();
        for v in [1e-6, 2.5e-8, 1e300, -3.0, 0.1] {
            let text = format!("{} : f64", float_literal(v));
            let attr = Attribute::parse(&context, &text).expect("parses");
            assert_eq!(FloatAttribute::try_from(attr).unwrap().value(), v, "{text}");
        }
        assert_eq!(nonfinite_literal(f64::INFINITY, "f32"), "0x7F800000");
        assert_eq!(nonfinite_literal(f64::NEG_INFINITY, "f16"), "0xFC00");
        assert_eq!(nonfinite_literal(f64::NAN, "f64"), "0x7FF8000000000000");
    }
}
