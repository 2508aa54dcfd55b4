//! The aicode serialization read back into coreai IR: the inverse of the
//! writer ([`super::Program`], [`super::ops`]), as MLIR text in generic form
//! that any tool of this project parses.
//!
//! `aicode.serialization.asset` becomes the module; `dataflow.graph_v1`
//! `coreai.graph` (properties back to `sym_name`, `function_type`,
//! `arg_attrs`/`res_attrs` with `aicode.` keys renamed `coreai.`,
//! `composite_decl`, `priv`, `no_inline`, `externalize`, `param_decls`);
//! every op its coreai op: `primitive.<name>_vN` → `coreai.<name>`, a
//! composite (`broadcasting_<name>_v1`, `relu_v1`, `reduce_sum_v1`, ...) →
//! its coreai op with its decomposition region dropped (coreai-core's own
//! `convert-from-versioned` drops it too), the regions of
//! `reduce_v1`/`reduce_index_v1`/`scatter_nd_v1`/`if_v1`/`while_v1` kept;
//! `ax.copy_{with,discarding}_constraints_v1` → `coreaix.copy_*`,
//! `metal.metal4_kernel_v1` → `coreai.metal4_kernel` (its operand segments
//! from the number of results), tensors with `ax.hw_constraints_v1` →
//! `tensor<..., #coreaix.hw_constraints<...>>`.
//! Enum properties become the coreai attributes, constants `dense` (the raw
//! bytes as hex, exact) or `dense_resource` (the blob in the `builtin`
//! resource group with its alignment), locations `debuginfo.location_v1`
//! file/line/column ranges (fused ones `fused[...]`; `"-"` at 0 unknown).
//!
//! What the format does not hold does not come back, as with coreai-core's
//! reader: the graph attributes `__coreai_pure__` and `template_op`.
//! Anything outside what the writer writes (an op or attribute kind not
//! known here) is an error naming it.

use super::Elt;
use crate::bytecode::reader::{self, Cursor, File, Op, Region};
use crate::bytecode::BytecodeError;
use std::collections::HashMap;
use std::fmt::Write;

/// Why an aicode file cannot be read back.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReadError {
    #[error(transparent)]
    Bytecode(#[from] BytecodeError),
    #[error("not an aicode asset: {0}")]
    NotAicode(String),
    #[error("malformed aicode ({0})")]
    Malformed(String),
    #[error("{0} is not yet supported by the aicode reader")]
    Unsupported(String),
}

fn bad(what: impl Into<String>) -> ReadError {
    ReadError::Malformed(what.into())
}

/// How deep attributes may nest (a corrupt file could make them cyclic).
const MAX_DEPTH: usize = 64;

/// An aicode attribute entry.
#[derive(Debug, Clone)]
enum A {
    Str(String),
    Int {
        width: u32,
        unsigned: bool,
        bits: u64,
    },
    Float {
        width: u32,
        bits: u64,
    },
    Type(usize),
    Array(Vec<usize>),
    Dense {
        splat: bool,
        data: Vec<u8>,
    },
    DenseResource(usize),
    Opaque(String, Vec<usize>),
    SymbolRef(Vec<String>),
    ParamConstant(usize),
    Enum(u64, u64),
    File(String),
    Src {
        file: usize,
        lines: [u64; 4],
    },
    Loc {
        src: usize,
        fused: Vec<usize>,
    },
    Dict(Vec<usize>),
    Unit,
    /// `ax.hw_constraints_v1`: `#coreaix.hw_constraints` (a tensor
    /// encoding).
    HwConstraints(super::HwConstraints),
    /// `#coreai.sparse_tensor_encoding<bitmask, ...>` with its number of set
    /// positions.
    Bitmask(u64),
    /// A kind this reader does not interpret (debug-info scopes, metadata,
    /// delegate pieces): an error only where it is used.
    Other,
}

/// An aicode type entry.
#[derive(Debug, Clone)]
enum T {
    /// Dimensions, element type, and the encoding attribute (code 3).
    Tensor(Vec<i64>, usize, Option<usize>),
    Scalar(u64),
    Function(Vec<usize>, Vec<usize>),
    Handle(usize),
    Token,
    Other(u64),
}

fn entry_cursor(bytes: &[u8]) -> Cursor<'_> {
    Cursor::new(bytes)
}

fn list(r: &mut Cursor, limit: usize, what: &'static str) -> Result<Vec<usize>, ReadError> {
    let n = r.count(what)?;
    (0..n).map(|_| Ok(r.index(limit, what)?)).collect()
}

fn apint(r: &mut Cursor, width: u32) -> Result<u64, ReadError> {
    if width == 0 || width > 64 {
        return Err(ReadError::Unsupported(format!(
            "a {width}-bit integer or float"
        )));
    }
    if width <= 8 {
        return Ok(r.byte("integer")? as u64);
    }
    let v = r.svarint("integer")? as u64;
    Ok(if width == 64 {
        v
    } else {
        v & ((1u64 << width) - 1)
    })
}

fn decode_attr(f: &File, bytes: &[u8]) -> Result<A, ReadError> {
    let (na, nt, ns) = (f.attrs.len(), f.types.len(), f.strings.len());
    let mut r = entry_cursor(bytes);
    let code = r.varint("attribute code")?;
    let s = |r: &mut Cursor| -> Result<String, ReadError> {
        Ok(f.strings[r.index(ns, "string index")?].clone())
    };
    let a = match code {
        1 => A::Str(s(&mut r)?),
        2 => {
            let width = r.varint("integer width")? as u32;
            let unsigned = r.byte("integer signedness")? != 0;
            let bits = apint(&mut r, width)?;
            A::Int {
                width,
                unsigned,
                bits,
            }
        }
        3 => {
            let width = r.varint("float width")? as u32;
            let bits = apint(&mut r, width)?;
            A::Float { width, bits }
        }
        4 => A::Type(r.index(nt, "type index")?),
        5 => A::Array(list(&mut r, na, "array")?),
        6 => {
            let splat = r.byte("splat")? != 0;
            let n = r.count("dense size")?;
            A::Dense {
                splat,
                data: r.bytes(n, "dense data")?.to_vec(),
            }
        }
        7 => A::DenseResource(r.index(f.resources.len(), "resource handle")?),
        9 => {
            let name = s(&mut r)?;
            A::Opaque(name, list(&mut r, na, "opaque values")?)
        }
        14 => {
            let n = r.count("symbol reference")?;
            A::SymbolRef((0..n).map(|_| s(&mut r)).collect::<Result<_, _>>()?)
        }
        16 => {
            let a = r.index(na, "binding")?;
            r.index(nt, "binding type")?;
            A::ParamConstant(a)
        }
        17 | 19 | 20 | 25 | 43 => A::Enum(code, r.varint("enum value")?),
        30 => {
            let name = s(&mut r)?;
            s(&mut r)?;
            s(&mut r)?;
            A::File(name)
        }
        31 => {
            let file = r.index(na, "source file")?;
            let mut lines = [0; 4];
            for l in &mut lines {
                *l = r.varint("line or column")?;
            }
            A::Src { file, lines }
        }
        40 => {
            let src = r.index(na, "location source")?;
            r.index(na, "location scope")?;
            let fused = list(&mut r, na, "fused locations")?;
            list(&mut r, na, "location metadata")?;
            A::Loc { src, fused }
        }
        12 => {
            let mut lists = [Vec::new(), Vec::new()];
            for (l, what) in lists.iter_mut().zip(["alignments", "interleave"]) {
                let n = r.count(what)?;
                *l = (0..n)
                    .map(|_| r.svarint(what))
                    .collect::<Result<Vec<_>, _>>()?;
            }
            let code = r.varint("hw_constraints backing")?;
            let backing = super::Backing::from_code(code)
                .ok_or_else(|| bad(format!("hw_constraints backing {code}")))?;
            let [alignments, interleave] = lists;
            A::HwConstraints(super::HwConstraints {
                backing,
                alignments,
                interleave,
            })
        }
        21 => {
            // The scheme, posWidth, crdWidth, the block sizes, numNonZero:
            // the bitmask scheme's form only (what coreai-opt writes).
            let fields = [
                r.varint("sparse scheme")?,
                r.varint("sparse posWidth")?,
                r.varint("sparse crdWidth")?,
                r.varint("sparse block sizes")?,
            ];
            if fields != [0, 1, 1, 0] {
                return Err(ReadError::Unsupported(format!(
                    "a sparse tensor encoding other than bitmask with posWidth = 1, crdWidth = 1 \
                     (fields {fields:?})"
                )));
            }
            A::Bitmask(r.varint("sparse numNonZero")?)
        }
        45 => A::Dict(list(&mut r, na, "dictionary")?),
        46 => A::Unit,
        _ => return Ok(A::Other),
    };
    if !r.at_end() {
        return Err(bad(format!("bytes left in an attribute of kind {code}")));
    }
    Ok(a)
}

fn decode_type(f: &File, bytes: &[u8]) -> Result<T, ReadError> {
    let nt = f.types.len();
    let mut r = entry_cursor(bytes);
    let code = r.varint("type code")?;
    let t = match code {
        // 3: with an encoding after the element type.
        2 | 3 => {
            let rank = r.count("rank")?;
            let dims = (0..rank)
                .map(|_| r.svarint("dimension"))
                .collect::<Result<Vec<_>, _>>()?;
            let elt = r.index(nt, "element type")?;
            let encoding = if code == 3 {
                Some(r.index(f.attrs.len(), "tensor encoding")?)
            } else {
                None
            };
            T::Tensor(dims, elt, encoding)
        }
        30 => {
            let results = list(&mut r, nt, "function results")?;
            let operands = list(&mut r, nt, "function operands")?;
            T::Function(operands, results)
        }
        31 => T::Handle(r.index(nt, "handle type")?),
        32 => T::Token,
        c if scalar_text(c).is_some() => T::Scalar(c),
        c => return Ok(T::Other(c)),
    };
    if !r.at_end() {
        return Err(bad(format!("bytes left in a type of kind {code}")));
    }
    Ok(t)
}

/// The builtin element type of an aicode scalar type code.
fn scalar_text(code: u64) -> Option<&'static str> {
    Some(match code {
        4 => "i1",
        5 => "f64",
        6 => "f32",
        7 => "f16",
        8 => "bf16",
        9 => "f8E5M2",
        10 => "f8E4M3FN",
        11 => "complex<f64>",
        12 => "complex<f32>",
        13 => "complex<f16>",
        14 => "complex<bf16>",
        17 => "si64",
        18 => "si32",
        19 => "si16",
        20 => "si8",
        21 => "si4",
        22 => "si2",
        23 => "ui64",
        24 => "ui32",
        25 => "ui16",
        26 => "ui8",
        27 => "ui4",
        28 => "ui2",
        29 => "ui1",
        36 => "ui6",
        37 => "ui3",
        46 => "f4E2M1FN",
        47 => "f8E8M0FNU",
        _ => return None,
    })
}

/// Bytes per element in a constant's data, for the element types whose
/// data is written as hex (`None`: bools, `ui1`); 2- to 6-bit integers
/// take a byte each, as in MLIR's dense attributes.
fn element_size(code: u64) -> Option<usize> {
    let elt = match code {
        5 => Elt::F64,
        6 => Elt::F32,
        7 => Elt::F16,
        8 => Elt::BF16,
        11 => Elt::CF64,
        12 => Elt::CF32,
        13 => Elt::CF16,
        17 => Elt::SI64,
        18 => Elt::SI32,
        19 => Elt::SI16,
        20 => Elt::SI8,
        23 => Elt::UI64,
        24 => Elt::UI32,
        25 => Elt::UI16,
        26 => Elt::UI8,
        21 => Elt::SI4,
        22 => Elt::SI2,
        27 => Elt::UI4,
        28 => Elt::UI2,
        36 => Elt::UI6,
        37 => Elt::UI3,
        9 => Elt::F8E5M2,
        10 => Elt::F8E4M3FN,
        46 => Elt::F4E2M1FN,
        47 => Elt::F8E8M0FNU,
        _ => return None,
    };
    Some(elt.size())
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

fn push_hex(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len() * 2);
    for &b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
}

/// An MLIR string literal.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:02X}");
            }
        }
    }
    out.push('"');
    out
}

/// A bare identifier (`[A-Za-z_][A-Za-z0-9_$.]*`), else a string.
fn key(s: &str) -> String {
    let ok = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if ok {
        s.to_string()
    } else {
        quoted(s)
    }
}

struct Reader<'f> {
    f: &'f File,
    attrs: Vec<Option<A>>,
    types: Vec<Option<T>>,
    type_text: HashMap<usize, String>,
    loc_text: HashMap<usize, String>,
    /// The type index of each value (by file-wide number).
    value_types: HashMap<u64, usize>,
    /// Resource handles used, in order of first use.
    resources: Vec<usize>,
    out: String,
}

impl<'f> Reader<'f> {
    fn new(f: &'f File) -> Result<Self, ReadError> {
        let aicode = f
            .dialects
            .iter()
            .position(|(n, _)| n == "aicode")
            .ok_or_else(|| ReadError::NotAicode("no 'aicode' dialect".into()))?;
        let (_, version) = &f.dialects[aicode];
        if version.as_deref() != Some(&[0x05][..]) {
            return Err(ReadError::Unsupported(format!(
                "aicode encoding version entry {version:02x?} (2 is read)"
            )));
        }
        let mut attrs = Vec::with_capacity(f.attrs.len());
        for e in &f.attrs {
            attrs.push(if e.custom && e.dialect == aicode {
                Some(decode_attr(f, &e.bytes)?)
            } else {
                None
            });
        }
        let mut types = Vec::with_capacity(f.types.len());
        for e in &f.types {
            types.push(if e.custom && e.dialect == aicode {
                Some(decode_type(f, &e.bytes)?)
            } else {
                None
            });
        }
        Ok(Self {
            f,
            attrs,
            types,
            type_text: HashMap::new(),
            loc_text: HashMap::new(),
            value_types: HashMap::new(),
            resources: Vec::new(),
            out: String::new(),
        })
    }

    fn attr(&self, i: usize) -> Result<&A, ReadError> {
        self.attrs[i].as_ref().ok_or_else(|| {
            ReadError::Unsupported(format!(
                "an attribute of dialect '{}' (not aicode's encoding)",
                self.f.dialect_name(self.f.attrs[i].dialect)
            ))
        })
    }

    fn ty(&self, i: usize) -> Result<&T, ReadError> {
        self.types[i].as_ref().ok_or_else(|| {
            ReadError::Unsupported(format!(
                "a type of dialect '{}' (not aicode's encoding)",
                self.f.dialect_name(self.f.types[i].dialect)
            ))
        })
    }

    // --- types ---------------------------------------------------------

    fn type_str(&mut self, i: usize) -> Result<String, ReadError> {
        if let Some(t) = self.type_text.get(&i) {
            return Ok(t.clone());
        }
        let text = self.type_uncached(i, 0)?;
        self.type_text.insert(i, text.clone());
        Ok(text)
    }

    fn type_uncached(&self, i: usize, depth: usize) -> Result<String, ReadError> {
        if depth > MAX_DEPTH {
            return Err(bad("types nested too deep"));
        }
        Ok(match self.ty(i)?.clone() {
            T::Tensor(dims, elt, encoding) => {
                let elt = match self.ty(elt)? {
                    T::Scalar(c) => scalar_text(*c).expect("a scalar code"),
                    _ => return Err(bad("tensor element type is not a scalar")),
                };
                let mut s = String::from("tensor<");
                for d in dims {
                    if d == super::DYNAMIC {
                        s.push_str("?x");
                    } else if d < 0 {
                        return Err(bad(format!("tensor dimension {d}")));
                    } else {
                        let _ = write!(s, "{d}x");
                    }
                }
                s.push_str(elt);
                if let Some(e) = encoding {
                    match self.attr(e)? {
                        A::HwConstraints(h) => {
                            let _ = write!(
                                s,
                                ", #coreaix.hw_constraints<{}, alignments: [{}], interleave: [{}]>",
                                h.backing.keyword(),
                                dim_list(&h.alignments),
                                dim_list(&h.interleave)
                            );
                        }
                        A::Bitmask(n) => {
                            let _ = write!(
                                s,
                                ", #coreai.sparse_tensor_encoding<bitmask, numNonZero = {n}, \
                                 posWidth = 1, crdWidth = 1>"
                            );
                        }
                        _ => {
                            return Err(ReadError::Unsupported(
                                "a tensor encoding other than hw_constraints or a bitmask".into(),
                            ))
                        }
                    }
                }
                s.push('>');
                s
            }
            T::Scalar(c) => scalar_text(c).expect("a scalar code").to_string(),
            T::Handle(inner) => {
                format!("!coreai.handle<{}>", self.type_uncached(inner, depth + 1)?)
            }
            T::Token => "!coreai.token".into(),
            T::Function(operands, results) => {
                let ins = operands
                    .iter()
                    .map(|&t| self.type_uncached(t, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                let outs = results
                    .iter()
                    .map(|&t| self.type_uncached(t, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("({}) -> ({})", ins.join(", "), outs.join(", "))
            }
            T::Other(c) => return Err(ReadError::Unsupported(format!("aicode type kind {c}"))),
        })
    }

    // --- attributes ----------------------------------------------------

    fn loc(&mut self, i: usize) -> Result<String, ReadError> {
        if let Some(t) = self.loc_text.get(&i) {
            return Ok(t.clone());
        }
        let text = format!("loc({})", self.loc_inner(i, 0)?);
        self.loc_text.insert(i, text.clone());
        Ok(text)
    }

    fn loc_inner(&self, i: usize, depth: usize) -> Result<String, ReadError> {
        if depth > MAX_DEPTH {
            return Err(bad("locations nested too deep"));
        }
        let A::Loc { src, fused } = self.attr(i)? else {
            return Err(bad("a location that is not debuginfo.location_v1"));
        };
        let A::Src { file, lines } = self.attr(*src)? else {
            return Err(bad("a location source that is not a source range"));
        };
        let A::File(name) = self.attr(*file)? else {
            return Err(bad("a location file that is not a file"));
        };
        let [l0, c0, l1, c1] = *lines;
        let first = if name == "-" && lines.iter().all(|&x| x == 0) {
            "unknown".to_string()
        } else if (l1, c1) == (l0, c0) {
            format!("{}:{l0}:{c0}", quoted(name))
        } else if l1 == l0 {
            format!("{}:{l0}:{c0} to :{c1}", quoted(name))
        } else {
            format!("{}:{l0}:{c0} to {l1}:{c1}", quoted(name))
        };
        if fused.is_empty() {
            return Ok(first);
        }
        let mut parts = vec![first];
        for &l in fused {
            parts.push(self.loc_inner(l, depth + 1)?);
        }
        Ok(format!("fused[{}]", parts.join(", ")))
    }

    /// A `serialization.*` value as a builtin attribute.
    fn value(&mut self, i: usize, depth: usize) -> Result<String, ReadError> {
        if depth > MAX_DEPTH {
            return Err(bad("attributes nested too deep"));
        }
        Ok(match self.attr(i)?.clone() {
            A::Str(s) => quoted(&s),
            A::Int { width: 1, bits, .. } => (if bits & 1 == 1 { "true" } else { "false" }).into(),
            A::Int {
                width,
                unsigned,
                bits,
            } => {
                if unsigned {
                    format!("{bits} : ui{width}")
                } else {
                    let shift = 64 - width;
                    format!("{} : si{width}", ((bits << shift) as i64) >> shift)
                }
            }
            A::Float { width, bits } => {
                let (t, digits) = match width {
                    16 => ("f16", 4),
                    32 => ("f32", 8),
                    64 => ("f64", 16),
                    w => return Err(ReadError::Unsupported(format!("a {w}-bit float attribute"))),
                };
                format!("0x{bits:0digits$X} : {t}")
            }
            A::Type(t) => self.type_str(t)?,
            A::Array(items) => {
                let v = items
                    .iter()
                    .map(|&a| self.value(a, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("[{}]", v.join(", "))
            }
            A::Dict(entries) => self.dict(&entries, depth + 1)?,
            A::Unit => "unit".into(),
            other => {
                return Err(ReadError::Unsupported(format!(
                    "attribute {other:?} as a value"
                )))
            }
        })
    }

    /// `{key = value, ...}` of `opaque<"key" = [value]>` entries.
    fn dict(&mut self, entries: &[usize], depth: usize) -> Result<String, ReadError> {
        let mut parts = Vec::new();
        for &e in entries {
            let A::Opaque(k, values) = self.attr(e)?.clone() else {
                return Err(bad("a dictionary entry that is not an opaque"));
            };
            let [v] = values.as_slice() else {
                return Err(bad(format!(
                    "dictionary entry '{k}' with {} values",
                    values.len()
                )));
            };
            let v = self.value(*v, depth + 1)?;
            parts.push(if v == "unit" {
                key(&k)
            } else {
                format!("{} = {v}", key(&k))
            });
        }
        Ok(format!("{{{}}}", parts.join(", ")))
    }

    /// Argument or result attributes: an array (empty: none) of arrays of
    /// `opaque<"key" = [value]>`, `aicode.` keys renamed `coreai.`.
    fn arg_attrs(&mut self, i: usize) -> Result<Option<String>, ReadError> {
        let A::Array(lists) = self.attr(i)?.clone() else {
            return Err(bad("argument attributes that are not an array"));
        };
        if lists.is_empty() {
            return Ok(None);
        }
        let mut dicts = Vec::new();
        for l in lists {
            let A::Array(entries) = self.attr(l)?.clone() else {
                return Err(bad("an argument's attributes that are not an array"));
            };
            let mut parts = Vec::new();
            for e in entries {
                let A::Opaque(k, values) = self.attr(e)?.clone() else {
                    return Err(bad("an argument attribute that is not an opaque"));
                };
                let k = match k.strip_prefix("aicode.") {
                    Some(rest) => format!("coreai.{rest}"),
                    None => k,
                };
                let [v] = values.as_slice() else {
                    return Err(bad(format!(
                        "argument attribute '{k}' with {} values",
                        values.len()
                    )));
                };
                let v = self.value(*v, 1)?;
                parts.push(if v == "unit" {
                    key(&k)
                } else {
                    format!("{} = {v}", key(&k))
                });
            }
            dicts.push(format!("{{{}}}", parts.join(", ")));
        }
        Ok(Some(format!("[{}]", dicts.join(", "))))
    }

    fn int(&self, i: usize, what: &str) -> Result<u64, ReadError> {
        match self.attr(i)? {
            A::Int { bits, .. } => Ok(*bits),
            _ => Err(bad(format!("{what} is not an integer"))),
        }
    }

    // --- ops -----------------------------------------------------------

    fn value_name(v: u64) -> String {
        format!("%v{v}")
    }

    fn operand_types(&mut self, op: &Op) -> Result<Vec<String>, ReadError> {
        op.operands
            .iter()
            .map(|v| {
                let t = *self
                    .value_types
                    .get(v)
                    .ok_or_else(|| bad("an operand defined inside a decomposition region"))?;
                self.type_str(t)
            })
            .collect()
    }

    fn single_block<'o>(
        &self,
        region: &'o Region,
        what: &str,
    ) -> Result<&'o reader::Block, ReadError> {
        match region.blocks.as_slice() {
            [b] => Ok(b),
            _ => Err(bad(format!(
                "{what} whose region has {} blocks",
                region.blocks.len()
            ))),
        }
    }

    fn program(&mut self) -> Result<(), ReadError> {
        let f = self.f;
        let [asset] = f.ops.as_slice() else {
            return Err(ReadError::NotAicode(format!(
                "{} top-level ops",
                f.ops.len()
            )));
        };
        if asset.name != "aicode.serialization.asset" {
            return Err(ReadError::NotAicode(format!(
                "the top-level op is '{}', not 'aicode.serialization.asset'",
                asset.name
            )));
        }
        let loc = self.loc(asset.loc)?;
        self.out.push_str("module {\n");
        let [region] = asset.regions.as_slice() else {
            return Err(bad("an asset op without its region"));
        };
        let block = self.single_block(region, "the asset op")?;
        for graph in &block.ops {
            self.graph(graph)?;
        }
        let _ = writeln!(self.out, "}} {loc}");
        if !self.resources.is_empty() {
            self.out
                .push_str("{-#\n  dialect_resources: {\n    builtin: {\n");
            let used = std::mem::take(&mut self.resources);
            for (n, &h) in used.iter().enumerate() {
                let r = &f.resources[h];
                let _ = write!(self.out, "      {}: \"0x", key(&r.key));
                let align = u32::try_from(r.alignment).map_err(|_| bad("resource alignment"))?;
                push_hex(&mut self.out, &align.to_le_bytes());
                push_hex(&mut self.out, &r.data);
                self.out.push('"');
                if n + 1 < used.len() {
                    self.out.push(',');
                }
                self.out.push('\n');
            }
            self.out.push_str("    }\n  }\n#-}\n");
        }
        Ok(())
    }

    fn graph(&mut self, op: &Op) -> Result<(), ReadError> {
        if op.name != "aicode.dataflow.graph_v1" {
            return Err(ReadError::Unsupported(format!(
                "'{}' at the top level",
                op.name
            )));
        }
        let props = op
            .properties
            .as_deref()
            .ok_or_else(|| bad("a graph without properties"))?;
        let mut r = Cursor::new(props);
        let na = self.f.attrs.len();
        let arg_attrs = r.index(na, "graph argAttrs")?;
        let decl = r.varint("graph compositeDecl")?;
        let mut rest = [0usize; 7];
        for x in &mut rest {
            *x = r.index(na, "graph property")?;
        }
        if !r.at_end() {
            return Err(bad("bytes left in a graph's properties"));
        }
        let [externalize, fty, private, name, noinline, params, res_attrs] = rest;
        let mut attrs = Vec::new();
        if let Some(a) = self.arg_attrs(arg_attrs)? {
            attrs.push(format!("arg_attrs = {a}"));
        }
        if decl != 0 {
            let d = usize::try_from(decl >> 1)
                .ok()
                .filter(|&d| decl & 1 == 1 && d < na)
                .ok_or_else(|| bad("graph compositeDecl"))?;
            let A::Opaque(name, entries) = self.attr(d)?.clone() else {
                return Err(bad("a composite declaration that is not an opaque"));
            };
            let dict = self.dict(&entries, 1)?;
            attrs.push(format!(
                "composite_decl = #coreai.composite_declaration<{} = {dict}>",
                quoted(&name)
            ));
        }
        if self.int(externalize, "externalize")? & 1 == 1 {
            attrs.push("externalize".into());
        }
        let A::Type(t) = *self.attr(fty)? else {
            return Err(bad("a graph functionType that is not a type"));
        };
        let (inputs, results) = match self.ty(t)?.clone() {
            T::Function(i, r) => (i, r),
            _ => return Err(bad("a graph functionType that is not a function")),
        };
        attrs.push(format!("function_type = {}", self.type_str(t)?));
        if self.int(noinline, "noInline")? & 1 == 1 {
            attrs.push("no_inline".into());
        }
        match self.attr(params)? {
            A::Array(p) if p.is_empty() => attrs.push("param_decls = #param.decl.array<[]>".into()),
            _ => {
                return Err(ReadError::Unsupported(
                    "a graph with parameter declarations".into(),
                ))
            }
        }
        if self.int(private, "isPrivate")? & 1 == 1 {
            attrs.push("priv".into());
        }
        if let Some(a) = self.arg_attrs(res_attrs)? {
            attrs.push(format!("res_attrs = {a}"));
        }
        let A::Str(sym) = self.attr(name)?.clone() else {
            return Err(bad("a graph name that is not a string"));
        };
        attrs.push(format!("sym_name = {}", quoted(&sym)));
        let [region] = op.regions.as_slice() else {
            return Err(bad("a graph without its region"));
        };
        let block = self.single_block(region, "a graph")?;
        if block.args.len() != inputs.len() {
            return Err(bad(format!(
                "graph '{sym}' has {} arguments and a type of {}",
                block.args.len(),
                inputs.len()
            )));
        }
        let _ = results;
        let loc = self.loc(op.loc)?;
        let _ = write!(
            self.out,
            "  \"coreai.graph\"() <{{{}}}> (",
            attrs.join(", ")
        );
        self.region(region, 2)?;
        let _ = writeln!(self.out, ") : () -> () {loc}");
        Ok(())
    }

    /// `({ ^bb0(args): ops })` of a region whose ops are converted.
    fn region(&mut self, region: &Region, indent: usize) -> Result<(), ReadError> {
        let block = self.single_block(region, "an op")?;
        self.out.push_str("{\n");
        if !block.args.is_empty() {
            let mut args = Vec::new();
            for &(v, t, l) in &block.args {
                self.value_types.insert(v, t);
                let loc = match l {
                    Some(l) => format!(" {}", self.loc(l)?),
                    None => String::new(),
                };
                args.push(format!(
                    "{}: {}{loc}",
                    Self::value_name(v),
                    self.type_str(t)?
                ));
            }
            let _ = writeln!(self.out, "{:indent$}^bb0({}):", "", args.join(", "));
        }
        for op in &block.ops {
            self.op(op, indent + 2)?;
        }
        let _ = write!(self.out, "{:indent$}}}", "");
        Ok(())
    }

    fn op(&mut self, op: &Op, indent: usize) -> Result<(), ReadError> {
        let short = op
            .name
            .strip_prefix("aicode.")
            .ok_or_else(|| ReadError::Unsupported(format!("op '{}'", op.name)))?;
        let (coreai, keep_regions) = coreai_name(short)
            .filter(|(n, _)| {
                n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
            })
            .ok_or_else(|| ReadError::Unsupported(format!("op '{}'", op.name)))?;
        let mut props: Vec<String> = Vec::new();
        let prop_attrs = match &op.properties {
            Some(p) => {
                let mut r = Cursor::new(p);
                let mut v = Vec::new();
                while !r.at_end() {
                    v.push(r.index(self.f.attrs.len(), "property")?);
                }
                v
            }
            None => Vec::new(),
        };
        let one_prop = |what: &str| -> Result<usize, ReadError> {
            match prop_attrs.as_slice() {
                [a] => Ok(*a),
                _ => Err(bad(format!(
                    "'{}' with {} properties ({what})",
                    op.name,
                    prop_attrs.len()
                ))),
            }
        };
        match short {
            "primitive.constant_v1" => {
                let a = one_prop("value")?;
                let [(_, t)] = op.results.as_slice() else {
                    return Err(bad("a constant without one result"));
                };
                props.push(format!("value = {}", self.constant(a, *t)?));
            }
            "dataflow.invoke_v1" => {
                let [arg_attrs, callee, res_attrs] = prop_attrs.as_slice() else {
                    return Err(bad("an invoke without its three properties"));
                };
                for a in [arg_attrs, res_attrs] {
                    if !matches!(self.attr(*a)?, A::Array(l) if l.is_empty()) {
                        return Err(ReadError::Unsupported(
                            "an invoke with argument or result attributes".into(),
                        ));
                    }
                }
                let A::ParamConstant(s) = *self.attr(*callee)? else {
                    return Err(bad("an invoke callee that is not a binding"));
                };
                let A::SymbolRef(path) = self.attr(s)?.clone() else {
                    return Err(bad("an invoke callee that is not a symbol"));
                };
                let sym = path
                    .iter()
                    .map(|p| format!("@{}", key_symbol(p)))
                    .collect::<Vec<_>>()
                    .join("::");
                props.push(format!("callee = #param.constant<{sym}> : !param.symbol"));
            }
            "metal.metal4_kernel_v1" => {
                let [name, source] = prop_attrs.as_slice() else {
                    return Err(bad("a metal4_kernel without its two properties"));
                };
                let (A::Str(name), A::Str(source)) = (self.attr(*name)?, self.attr(*source)?)
                else {
                    return Err(bad("a metal4_kernel name or source that is not a string"));
                };
                // The operands: the kernel arguments, threads_per_grid,
                // threads_per_thread_group, one result shape per result.
                let args = op
                    .operands
                    .len()
                    .checked_sub(2 + op.results.len())
                    .ok_or_else(|| bad("a metal4_kernel with too few operands"))?;
                props.push(format!("kernel_name = {}", quoted(name)));
                props.push(format!("kernel_source = {}", quoted(source)));
                props.push(format!(
                    "operandSegmentSizes = array<i32: {args}, 1, 1, {}>",
                    op.results.len()
                ));
            }
            _ => {
                if !prop_attrs.is_empty() {
                    let a = one_prop("an enum")?;
                    let A::Enum(code, v) = *self.attr(a)? else {
                        return Err(ReadError::Unsupported(format!(
                            "'{}' with properties",
                            op.name
                        )));
                    };
                    props.push(enum_attr(short, code, v)?);
                }
            }
        }
        let results: Vec<String> = op
            .results
            .iter()
            .map(|(v, _)| Self::value_name(*v))
            .collect();
        let result_types = op
            .results
            .iter()
            .map(|&(_, t)| self.type_str(t))
            .collect::<Result<Vec<_>, _>>()?;
        let operand_types = self.operand_types(op)?;
        for &(v, t) in &op.results {
            self.value_types.insert(v, t);
        }
        let loc = self.loc(op.loc)?;
        let _ = write!(self.out, "{:indent$}", "");
        if !results.is_empty() {
            let _ = write!(self.out, "{} = ", results.join(", "));
        }
        let operands: Vec<String> = op.operands.iter().map(|&v| Self::value_name(v)).collect();
        let _ = write!(self.out, "\"{coreai}\"({})", operands.join(", "));
        if !props.is_empty() {
            let _ = write!(self.out, " <{{{}}}>", props.join(", "));
        }
        if keep_regions && !op.regions.is_empty() {
            self.out.push_str(" (");
            for (i, r) in op.regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.region(r, indent)?;
            }
            self.out.push(')');
        }
        let results = match result_types.as_slice() {
            [one] => one.clone(),
            many => format!("({})", many.join(", ")),
        };
        let _ = writeln!(
            self.out,
            " : ({}) -> {results} {loc}",
            operand_types.join(", ")
        );
        Ok(())
    }

    /// A constant's value: `dense<"0x...">` (bools and empty tensors as
    /// literals) or `dense_resource<key>`, typed by the result `t`.
    fn constant(&mut self, a: usize, t: usize) -> Result<String, ReadError> {
        let ty = self.type_str(t)?;
        let (dims, elt) = match self.ty(t)? {
            T::Tensor(d, e, _) => (d.clone(), *e),
            _ => return Err(bad("a constant that is not a tensor")),
        };
        let code = match self.ty(elt)? {
            T::Scalar(c) => *c,
            _ => return Err(bad("a constant of a non-scalar element type")),
        };
        if dims.iter().any(|&d| d < 0) {
            return Err(bad("a constant of a dynamic shape"));
        }
        let count = dims
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d as u64))
            .ok_or_else(|| bad("constant size"))?;
        match self.attr(a)?.clone() {
            A::DenseResource(h) => {
                if !self.resources.contains(&h) {
                    self.resources.push(h);
                }
                Ok(format!(
                    "dense_resource<{}> : {ty}",
                    key(&self.f.resources[h].key)
                ))
            }
            A::Dense { splat, data } => {
                if count == 0 {
                    return Ok(format!("dense<> : {ty}"));
                }
                if code == 4 {
                    let want = if splat { 1 } else { count };
                    if data.len() as u64 != want {
                        return Err(bad("a bool constant's size"));
                    }
                    return Ok(format!("dense<{}> : {ty}", bools(&data, &dims, splat)));
                }
                let size = element_size(code).ok_or_else(|| {
                    ReadError::Unsupported(format!(
                        "a constant of {}",
                        scalar_text(code).unwrap_or("?")
                    ))
                })? as u64;
                let want = if splat { size } else { size * count };
                if data.len() as u64 != want {
                    return Err(bad(format!("a constant of {} bytes for {ty}", data.len())));
                }
                let mut s = String::from("dense<\"0x");
                push_hex(&mut s, &data);
                let _ = write!(s, "\"> : {ty}");
                Ok(s)
            }
            _ => Err(bad("a constant value that is not dense data")),
        }
    }
}

fn key_symbol(s: &str) -> String {
    key(s)
}

/// Bool data (one byte per element) as a nested literal.
fn bools(data: &[u8], dims: &[i64], splat: bool) -> String {
    let b = |x: u8| if x != 0 { "true" } else { "false" };
    if splat {
        return b(data[0]).into();
    }
    fn nest(data: &[u8], dims: &[i64], b: &dyn Fn(u8) -> &'static str) -> String {
        match dims.split_first() {
            None => b(data[0]).into(),
            Some((&n, rest)) => {
                let stride = data.len() / n.max(1) as usize;
                let parts: Vec<String> = (0..n as usize)
                    .map(|i| nest(&data[i * stride..(i + 1) * stride], rest, b))
                    .collect();
                format!("[{}]", parts.join(", "))
            }
        }
    }
    nest(data, dims, &b)
}

/// The coreai attribute of an enum property (inverse of the writer's
/// tables): padding mode, gelu approximation, scatter mode, interpolation
/// mode, scan combiner.
fn enum_attr(op: &str, code: u64, v: u64) -> Result<String, ReadError> {
    let pick = |names: &[&str]| {
        names.get(v as usize).map(|s| s.to_string()).ok_or_else(|| {
            ReadError::Unsupported(format!("value {v} of enum kind {code} on '{op}'"))
        })
    };
    Ok(match (op, code) {
        ("primitive.pad_v1", 17) => format!(
            "padding_mode = #coreai.padding_mode<{}>",
            pick(&["circular", "constant", "reflect", "replicate", "symmetric"])?
        ),
        ("primitive.gelu_v1", 19) => {
            format!(
                "approximate = #coreai.approximate<{}>",
                pick(&["none", "tanh"])?
            )
        }
        ("primitive.scatter_along_axis_v1", 20) => format!(
            "scatter_mode = #coreai.scatter_mode<{}>",
            pick(&["update", "add", "sub", "mul", "div", "max", "min"])?
        ),
        ("primitive.interpolate_v1", 43) => format!(
            "interpolation_mode = #coreai.interpolation_mode<{}>",
            pick(&["linear", "nearest_neighbor"])?
        ),
        ("primitive.scan_v1", 25) => {
            pick(&["sum", "product", "min", "max"])?;
            format!("scan_op = {v} : i32")
        }
        _ => {
            return Err(ReadError::Unsupported(format!(
                "enum kind {code} on '{op}'"
            )))
        }
    })
}

/// A `hw_constraints` list as coreaix prints it: `1x1x32`, `?` dynamic.
fn dim_list(dims: &[i64]) -> String {
    dims.iter()
        .map(|&d| {
            if d == super::DYNAMIC {
                "?".to_string()
            } else {
                d.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("x")
}

/// The coreai op of an aicode op (without `aicode.`), and whether its
/// regions are kept (`false`: a composite's decomposition, dropped).
fn coreai_name(short: &str) -> Option<(String, bool)> {
    let strip = |s: &str| -> Option<String> {
        let (base, v) = s.rsplit_once("_v")?;
        (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) && !base.is_empty())
            .then(|| base.to_string())
    };
    if let Some(rest) = short.strip_prefix("primitive.") {
        let base = strip(rest)?;
        let regions = matches!(base.as_str(), "reduce" | "reduce_index" | "scatter_nd");
        return Some((format!("coreai.{base}"), regions));
    }
    if let Some(rest) = short.strip_prefix("dataflow.") {
        let base = strip(rest)?;
        return matches!(
            base.as_str(),
            "output"
                | "yield"
                | "invoke"
                | "create_token"
                | "join_token"
                | "read_handle"
                | "write_handle"
        )
        .then(|| (format!("coreai.{base}"), false));
    }
    if let Some(rest) = short.strip_prefix("controlflow.") {
        let base = strip(rest)?;
        return matches!(base.as_str(), "if" | "while" | "condition")
            .then(|| (format!("coreai.{base}"), true));
    }
    match short {
        "ax.copy_with_constraints_v1" => {
            return Some(("coreaix.copy_with_constraints".into(), false))
        }
        "ax.copy_discarding_constraints_v1" => {
            return Some(("coreaix.copy_discarding_constraints".into(), false))
        }
        "metal.metal4_kernel_v1" => return Some(("coreai.metal4_kernel".into(), false)),
        _ => {}
    }
    if short.contains('.') {
        return None;
    }
    let base = strip(short)?;
    if let Some(bin) = base.strip_prefix("broadcasting_") {
        let bin = match bin {
            "logical_and" => "and",
            "logical_or" => "or",
            "logical_xor" => "xor",
            b => b,
        };
        return Some((format!("coreai.decomposable.broadcasting_{bin}"), false));
    }
    Some((format!("coreai.{base}"), false))
}

/// The coreai IR (MLIR text) of an aicode `main.mlirb`.
pub fn to_coreai(data: &[u8]) -> Result<String, ReadError> {
    let file = reader::read(data)?;
    let mut r = Reader::new(&file)?;
    r.program()?;
    Ok(r.out)
}

/// Whether `data` is MLIR bytecode naming the `aicode` dialect.
pub fn is_aicode(data: &[u8]) -> bool {
    crate::bytecode::summarize(data)
        .map(|s| s.dialects.iter().any(|(n, _)| n == "aicode"))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_invert_the_writers() {
        let n = coreai_name;
        assert_eq!(
            n("primitive.reshape_v2"),
            Some(("coreai.reshape".into(), false))
        );
        assert_eq!(
            n("primitive.reduce_v1"),
            Some(("coreai.reduce".into(), true))
        );
        assert_eq!(
            n("broadcasting_logical_and_v1"),
            Some(("coreai.decomposable.broadcasting_and".into(), false))
        );
        assert_eq!(n("tile_v2"), Some(("coreai.tile".into(), false)));
        assert_eq!(n("controlflow.if_v1"), Some(("coreai.if".into(), true)));
        assert_eq!(n("dataflow.graph_v1"), None);
        assert_eq!(n("primitive.add"), None);
        assert_eq!(
            n("ax.copy_with_constraints_v1"),
            Some(("coreaix.copy_with_constraints".into(), false))
        );
        assert_eq!(
            n("metal.metal4_kernel_v1"),
            Some(("coreai.metal4_kernel".into(), false))
        );
        assert_eq!(n("ax.view_v1"), None);
    }

    /// A kernel over a copied argument, written by [`super::super::Program`]
    /// and read back: the encodings (a dynamic alignment included), both
    /// copies and the kernel's operand segments.
    #[test]
    fn hw_constraints_and_metal_kernels_read_back() {
        use super::super::{ops, Backing, Graph, HwConstraints, Program, TensorType};
        let mut p = Program::new();
        let x = TensorType::new(&[8, 4], Elt::F32);
        let mtl = x.with_encoding(HwConstraints {
            backing: Backing::MTLBuffer,
            alignments: vec![1, super::super::DYNAMIC, 16],
            interleave: vec![8, 1],
        });
        let shape = TensorType::new(&[3], Elt::UI32);
        let mut b = p.body(&[x.clone(), shape.clone()]);
        let (a, g) = (b.arg(0), b.arg(1));
        let c = ops::copy_constraints(&mut p, &mut b, true, a, &mtl);
        let k = ops::metal4_kernel(&mut p, &mut b, "k", "src\n", &[c, g, g, g], &[mtl]);
        let y = ops::copy_constraints(&mut p, &mut b, false, k[0], &x);
        ops::output(&mut p, &mut b, &[y]);
        let spec = Graph {
            name: "main".into(),
            inputs: vec![x.clone(), shape],
            results: vec![x],
            ..Graph::default()
        };
        p.graph(&spec, b);
        assert_eq!(p.version(), 20260409);
        let text = to_coreai(&p.finish()).expect("reads back");
        let enc = "#coreaix.hw_constraints<MTLBuffer, alignments: [1x?x16], interleave: [8x1]>";
        assert!(text.contains(&format!(
            "\"coreaix.copy_with_constraints\"(%v0) : (tensor<8x4xf32>) -> tensor<8x4xf32, {enc}>"
        )));
        assert!(text.contains(
            "\"coreai.metal4_kernel\"(%v2, %v1, %v1, %v1) <{kernel_name = \"k\", \
             kernel_source = \"src\\0A\", operandSegmentSizes = array<i32: 1, 1, 1, 1>}>"
        ));
        assert!(text.contains("\"coreaix.copy_discarding_constraints\"(%v3)"));
    }

    #[test]
    fn strings_and_keys_are_quoted_as_mlir_reads_them() {
        assert_eq!(quoted("a\"b\\c\n"), "\"a\\\"b\\\\c\\0A\"");
        assert_eq!(key("coreai.name"), "coreai.name");
        assert_eq!(key("a-b"), "\"a-b\"");
    }

    #[test]
    fn bools_nest_by_shape() {
        assert_eq!(
            bools(&[1, 0, 0, 1], &[2, 2], false),
            "[[true, false], [false, true]]"
        );
        assert_eq!(bools(&[1], &[3], true), "true");
    }
}
