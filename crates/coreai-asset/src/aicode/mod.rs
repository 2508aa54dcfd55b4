//! The `aicode` serialization coreai-core 1.0.0b3 writes in `main.mlirb`
//! and its runtime loads (docs/aicode-format.md): one dialect, `aicode`,
//! with version entry `varint 2` (the encoding), whose top-level op is
//! `aicode.serialization.asset`.
//!
//! [`Program`] interns the aicode types and attributes in their custom
//! encoding (§2.4 of the spec) on a [`Writer`], and builds regions whose
//! values carry their tensor types ([`Body`]), so the decompositions in
//! [`ops`] can compute the shapes of what they insert. [`Program::finish`]
//! wraps the graphs in the asset op, stamped with the largest version date
//! of the ops used, and writes the file.

pub mod ops;
pub mod reader;

use crate::bytecode::writer::{apint, svarint, varint, Op, Region, Writer, LEVEL_SHIFT};

/// The aicode encoding version (the dialect's version entry).
pub const ENCODING_VERSION: u64 = 2;

/// The producer string (coreai-core's MLIR writes `MLIR22.0.0git`; the
/// loader does not check it).
pub const PRODUCER: &str = "coreai";

/// Element types (`!aicode.*_v1`) with their type codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elt {
    Bool,
    F64,
    F32,
    F16,
    BF16,
    SI64,
    SI32,
    SI16,
    SI8,
    UI64,
    UI32,
    UI16,
    UI8,
    /// Sub-byte integers (compressed weights' codes, LUT indices): one
    /// byte per element in a dense attribute, packed in a blob
    /// (docs/aicode-format.md §6).
    SI4,
    SI2,
    UI6,
    UI4,
    UI3,
    UI2,
    UI1,
    /// `complex<f64>`, `complex<f32>`, `complex<f16>`.
    CF64,
    CF32,
    CF16,
    /// The small floats of compressed weights (`coreai_ir::minifloat`):
    /// one byte per element in a dense attribute; `f4E2M1FN` packed two
    /// per byte in a blob, like `si4`.
    F8E4M3FN,
    F8E5M2,
    F4E2M1FN,
    F8E8M0FNU,
}

impl Elt {
    pub fn code(self) -> u64 {
        match self {
            Elt::Bool => 4,
            Elt::F64 => 5,
            Elt::F32 => 6,
            Elt::F16 => 7,
            Elt::BF16 => 8,
            Elt::SI64 => 17,
            Elt::SI32 => 18,
            Elt::SI16 => 19,
            Elt::SI8 => 20,
            Elt::UI64 => 23,
            Elt::UI32 => 24,
            Elt::UI16 => 25,
            Elt::UI8 => 26,
            Elt::SI4 => 21,
            Elt::SI2 => 22,
            Elt::UI6 => 36,
            Elt::UI4 => 27,
            Elt::UI3 => 37,
            Elt::UI2 => 28,
            Elt::UI1 => 29,
            Elt::CF64 => 11,
            Elt::CF32 => 12,
            Elt::CF16 => 13,
            Elt::F8E5M2 => 9,
            Elt::F8E4M3FN => 10,
            Elt::F4E2M1FN => 46,
            Elt::F8E8M0FNU => 47,
        }
    }

    /// Bytes per element in a dense attribute's data (a bool: one byte).
    pub fn size(self) -> usize {
        match self {
            Elt::Bool | Elt::SI8 | Elt::UI8 => 1,
            Elt::SI4 | Elt::SI2 | Elt::UI6 | Elt::UI4 | Elt::UI3 | Elt::UI2 | Elt::UI1 => 1,
            Elt::F8E4M3FN | Elt::F8E5M2 | Elt::F4E2M1FN | Elt::F8E8M0FNU => 1,
            Elt::F16 | Elt::BF16 | Elt::SI16 | Elt::UI16 => 2,
            Elt::F32 | Elt::SI32 | Elt::UI32 => 4,
            Elt::F64 | Elt::SI64 | Elt::UI64 | Elt::CF32 => 8,
            Elt::CF16 => 4,
            Elt::CF64 => 16,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Elt::F64 | Elt::F32 | Elt::F16 | Elt::BF16)
    }
}

/// A value's type: a ranked tensor (a dynamic dimension is [`DYNAMIC`]),
/// possibly with a hardware-constraints encoding, a handle to a tensor of
/// `dims` and `elt` (`handle_v1`), or a token (`token_v1`, its `dims`
/// empty).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TensorType {
    pub dims: Vec<i64>,
    pub elt: Elt,
    pub kind: Kind,
    /// The tensor's encoding (type code 3).
    pub encoding: Option<Encoding>,
}

/// A tensor encoding.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// `#coreaix.hw_constraints<...>`.
    Hw(HwConstraints),
    /// `#coreai.sparse_tensor_encoding<bitmask, numNonZero = N, posWidth =
    /// 1, crdWidth = 1>` (attribute code 21), the form of
    /// `build_sparse_with_bitmask` results: `N` set positions.
    Bitmask { non_zero: u64 },
}

/// The backing allocation of `#coreaix.hw_constraints`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backing {
    IOSurface,
    MTLBuffer,
    Heap,
}

impl Backing {
    /// The coreai keyword (`IOSurface`, `MTLBuffer`, `Heap`).
    pub fn keyword(self) -> &'static str {
        match self {
            Backing::IOSurface => "IOSurface",
            Backing::MTLBuffer => "MTLBuffer",
            Backing::Heap => "Heap",
        }
    }

    pub fn from_keyword(k: &str) -> Option<Self> {
        [Backing::IOSurface, Backing::MTLBuffer, Backing::Heap]
            .into_iter()
            .find(|b| b.keyword() == k)
    }

    /// The aicode value (`AXIOSurface` 1, `AXMTLBuffer` 2, `AXHeap` 3).
    pub fn code(self) -> u64 {
        match self {
            Backing::IOSurface => 1,
            Backing::MTLBuffer => 2,
            Backing::Heap => 3,
        }
    }

    pub fn from_code(code: u64) -> Option<Self> {
        [Backing::IOSurface, Backing::MTLBuffer, Backing::Heap]
            .into_iter()
            .find(|b| b.code() == code)
    }
}

/// `#coreaix.hw_constraints<backing, alignments: [..], interleave: [..]>`
/// (aicode `ax.hw_constraints_v1`, attribute code 12); a dynamic entry is
/// [`DYNAMIC`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HwConstraints {
    pub backing: Backing,
    pub alignments: Vec<i64>,
    pub interleave: Vec<i64>,
}

/// What a [`TensorType`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Tensor,
    Handle,
    Token,
}

/// How aicode stores a dynamic dimension.
pub const DYNAMIC: i64 = i64::MIN;

impl TensorType {
    pub fn new(dims: &[i64], elt: Elt) -> Self {
        Self {
            dims: dims.to_vec(),
            elt,
            kind: Kind::Tensor,
            encoding: None,
        }
    }

    /// The same tensor with the hardware-constraints encoding `encoding`.
    pub fn with_encoding(&self, encoding: HwConstraints) -> Self {
        Self {
            encoding: Some(Encoding::Hw(encoding)),
            ..self.clone()
        }
    }

    /// The same tensor as a bitmask-sparse one with `non_zero` set positions.
    pub fn with_bitmask(&self, non_zero: u64) -> Self {
        Self {
            encoding: Some(Encoding::Bitmask { non_zero }),
            ..self.clone()
        }
    }

    /// Its hardware constraints, if its encoding is that.
    pub fn hw_constraints(&self) -> Option<&HwConstraints> {
        match &self.encoding {
            Some(Encoding::Hw(h)) => Some(h),
            _ => None,
        }
    }

    /// `handle_v1<inner>`.
    pub fn handle(inner: &TensorType) -> Self {
        Self {
            kind: Kind::Handle,
            ..inner.clone()
        }
    }

    /// `token_v1`.
    pub fn token() -> Self {
        Self {
            dims: vec![],
            elt: Elt::Bool,
            kind: Kind::Token,
            encoding: None,
        }
    }

    pub fn is_static(&self) -> bool {
        self.dims.iter().all(|&d| d >= 0)
    }

    pub fn num_elements(&self) -> i64 {
        self.dims.iter().product()
    }
}

/// A source location, as `debuginfo.location_v1` writes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Loc {
    /// File `"-"`, line 0 (what coreai-core writes for an unknown location).
    Unknown,
    /// A file, line and column range (`FileLineColLoc`).
    File {
        file: String,
        start: (u32, u32),
        end: (u32, u32),
    },
    /// The first location, the others as `fusedWith`.
    Fused(Vec<Loc>),
}

/// A value number inside a [`Body`].
pub type Value = u64;

/// One single-block region under construction: isolated ([`Program::body`])
/// or nested in another body without isolation ([`Program::nested_body`]),
/// whose values then carry their nesting level (`bytecode::writer::Region`).
pub struct Body {
    region: Region,
    types: Vec<TensorType>,
    /// The location attribute of each value of this level.
    locs: Vec<u64>,
    /// The nesting level (0: an isolated region).
    level: u32,
    /// The value types of the enclosing levels, outermost first.
    outer: Vec<Vec<TensorType>>,
    /// The value locations of the enclosing levels.
    outer_locs: Vec<Vec<u64>>,
}

impl Body {
    pub fn ty(&self, v: Value) -> &TensorType {
        let level = (v >> LEVEL_SHIFT) as u32;
        let k = (v & ((1u64 << LEVEL_SHIFT) - 1)) as usize;
        if level == self.level {
            &self.types[k]
        } else {
            &self.outer[level as usize][k]
        }
    }

    /// The location of a value (its block argument's, or its defining
    /// op's).
    pub fn loc(&self, v: Value) -> u64 {
        let level = (v >> LEVEL_SHIFT) as u32;
        let k = (v & ((1u64 << LEVEL_SHIFT) - 1)) as usize;
        if level == self.level {
            self.locs[k]
        } else {
            self.outer_locs[level as usize][k]
        }
    }

    fn value(&self, k: usize) -> Value {
        ((self.level as u64) << LEVEL_SHIFT) | k as u64
    }

    pub fn arg(&self, i: usize) -> Value {
        debug_assert!(i < self.region.args.len());
        self.value(i)
    }
}

/// A graph's signature and flags (`graph_v1`'s properties).
#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub name: String,
    pub inputs: Vec<TensorType>,
    pub results: Vec<TensorType>,
    /// The attributes of each argument (`opaque<"aicode.name" = [..]>`,
    /// ...); `None` when the graph has none (written as an empty array).
    pub arg_attrs: Option<Vec<Vec<u64>>>,
    pub result_attrs: Option<Vec<Vec<u64>>>,
    pub private: bool,
    pub noinline: bool,
    pub externalize: bool,
    /// The `compositeDecl` opaque ([`Program::opaque`]).
    pub composite_decl: Option<u64>,
    /// Whether an argument or result is a state (`aicode.state`), which
    /// dates the asset [`versions::STATE`].
    pub stateful: bool,
    /// The graph op's location attribute ([`Program::location`]).
    pub loc: Option<u64>,
}

/// Attributes and types of an aicode program, and its graphs; its blobs are
/// borrowed for `'a` where the caller has them (a module's weights).
pub struct Program<'a> {
    w: Writer<'a>,
    d: u64,
    loc: Option<u64>,
    /// The location of the ops being created ([`Program::set_location`]).
    current: Option<u64>,
    /// The asset op's location (the module's).
    asset_loc: Option<u64>,
    graphs: Vec<Op>,
    version: u32,
}

impl Default for Program<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// A dense constant's data: its raw little-endian bytes, one element when
/// `splat`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dense {
    pub splat: bool,
    pub data: Vec<u8>,
}

impl Dense {
    /// `data` as a splat when every element has the same bytes (as MLIR's
    /// `DenseElementsAttr::get` stores it).
    pub fn new(data: Vec<u8>, elt_size: usize) -> Self {
        let first = &data[..elt_size.min(data.len())];
        if !data.is_empty() && data.chunks(elt_size).all(|c| c == first) {
            Self {
                splat: true,
                data: first.to_vec(),
            }
        } else {
            Self { splat: false, data }
        }
    }

    pub fn u32s(values: &[u32]) -> Self {
        Self::new(values.iter().flat_map(|v| v.to_le_bytes()).collect(), 4)
    }

    pub fn i32s(values: &[i32]) -> Self {
        Self::new(values.iter().flat_map(|v| v.to_le_bytes()).collect(), 4)
    }
}

impl<'a> Program<'a> {
    pub fn new() -> Self {
        let mut w = Writer::new();
        let mut version = Vec::new();
        varint(&mut version, ENCODING_VERSION);
        let d = w.dialect("aicode", Some(version));
        Self {
            w,
            d,
            loc: None,
            current: None,
            asset_loc: None,
            graphs: Vec::new(),
            version: 0,
        }
    }

    fn code(code: u64) -> Vec<u8> {
        let mut v = Vec::new();
        varint(&mut v, code);
        v
    }

    fn attr(&mut self, bytes: Vec<u8>) -> u64 {
        self.w.attr(self.d, bytes)
    }

    fn type_(&mut self, bytes: Vec<u8>) -> u64 {
        self.w.type_(self.d, bytes)
    }

    // --- types ---------------------------------------------------------

    pub fn scalar_type(&mut self, elt: Elt) -> u64 {
        self.type_(Self::code(elt.code()))
    }

    pub fn tensor_type(&mut self, t: &TensorType) -> u64 {
        match t.kind {
            Kind::Token => return self.type_(Self::code(32)),
            Kind::Handle => {
                // The tensor it holds, with its hardware constraints.
                let inner = self.tensor_type(&TensorType {
                    kind: Kind::Tensor,
                    ..t.clone()
                });
                let mut b = Self::code(31);
                varint(&mut b, inner);
                return self.type_(b);
            }
            Kind::Tensor => {}
        }
        let elt = self.scalar_type(t.elt);
        let encoding = t.encoding.as_ref().map(|e| match e {
            Encoding::Hw(h) => self.hw_constraints(h),
            &Encoding::Bitmask { non_zero } => self.bitmask_encoding(non_zero),
        });
        // `tensor_v1` (2), or with an encoding (3): dims, element type, then
        // the encoding.
        let mut b = Self::code(if encoding.is_some() { 3 } else { 2 });
        varint(&mut b, t.dims.len() as u64);
        for &d in &t.dims {
            svarint(&mut b, d);
        }
        varint(&mut b, elt);
        if let Some(e) = encoding {
            varint(&mut b, e);
        }
        self.type_(b)
    }

    /// `#coreai.sparse_tensor_encoding` (21) of the bitmask scheme (0),
    /// as coreai-core writes it: the scheme, `posWidth` and `crdWidth`
    /// (1 and 1), the block sizes (none), then `numNonZero`.
    pub fn bitmask_encoding(&mut self, non_zero: u64) -> u64 {
        let mut b = Self::code(21);
        for v in [0, 1, 1, 0, non_zero] {
            varint(&mut b, v);
        }
        self.attr(b)
    }

    /// `ax.hw_constraints_v1` (12): the alignments and the interleave
    /// factors (signed varints), then the backing.
    pub fn hw_constraints(&mut self, e: &HwConstraints) -> u64 {
        let mut b = Self::code(12);
        for list in [&e.alignments, &e.interleave] {
            varint(&mut b, list.len() as u64);
            for &x in list.iter() {
                svarint(&mut b, x);
            }
        }
        varint(&mut b, e.backing.code());
        self.attr(b)
    }

    /// `function_v1`: results first, then operands.
    pub fn function_type(&mut self, inputs: &[TensorType], results: &[TensorType]) -> u64 {
        let ins: Vec<u64> = inputs.iter().map(|t| self.tensor_type(t)).collect();
        let outs: Vec<u64> = results.iter().map(|t| self.tensor_type(t)).collect();
        let mut b = Self::code(30);
        for list in [&outs, &ins] {
            varint(&mut b, list.len() as u64);
            for &t in list {
                varint(&mut b, t);
            }
        }
        self.type_(b)
    }

    // --- attributes ----------------------------------------------------

    pub fn string(&mut self, s: &str) -> u64 {
        let mut b = Self::code(1);
        let s = self.w.string(s);
        varint(&mut b, s);
        self.attr(b)
    }

    /// `serialization.integer<(width bit signed|unsigned) bits>`.
    pub fn integer(&mut self, width: u32, unsigned: bool, bits: u64) -> u64 {
        let mut b = Self::code(2);
        varint(&mut b, width as u64);
        b.push(unsigned as u8);
        apint(&mut b, width, bits);
        self.attr(b)
    }

    pub fn type_attr(&mut self, ty: u64) -> u64 {
        let mut b = Self::code(4);
        varint(&mut b, ty);
        self.attr(b)
    }

    pub fn array(&mut self, items: &[u64]) -> u64 {
        let mut b = Self::code(5);
        varint(&mut b, items.len() as u64);
        for &a in items {
            varint(&mut b, a);
        }
        self.attr(b)
    }

    pub fn dense_elements(&mut self, dense: &Dense) -> u64 {
        let mut b = Self::code(6);
        b.push(dense.splat as u8);
        varint(&mut b, dense.data.len() as u64);
        b.extend_from_slice(&dense.data);
        self.attr(b)
    }

    /// `serialization.dense_resource<key>`, its blob in the aicode
    /// resource group with the blob's own alignment (coreai-core keeps the
    /// coreai blob's: 16 from its own constants, 4 from ours).
    pub fn dense_resource(
        &mut self,
        key: &str,
        alignment: u64,
        data: impl Into<crate::bytecode::writer::Blob<'a>>,
    ) -> u64 {
        let handle = self.w.resource(self.d, key, alignment, data);
        let mut b = Self::code(7);
        varint(&mut b, handle);
        self.attr(b)
    }

    /// `serialization.opaque<"name" = [values]>`.
    pub fn opaque(&mut self, name: &str, values: &[u64]) -> u64 {
        let s = self.w.string(name);
        let mut b = Self::code(9);
        varint(&mut b, s);
        varint(&mut b, values.len() as u64);
        for &a in values {
            varint(&mut b, a);
        }
        self.attr(b)
    }

    /// `padding_mode_v1`: circular 0, constant 1, reflect 2, replicate 3,
    /// symmetric 4.
    pub fn padding_mode(&mut self, mode: u64) -> u64 {
        let mut b = Self::code(17);
        varint(&mut b, mode);
        self.attr(b)
    }

    /// `approximate_v1`: none 0, tanh 1.
    pub fn approximate(&mut self, mode: u64) -> u64 {
        let mut b = Self::code(19);
        varint(&mut b, mode);
        self.attr(b)
    }

    /// `serialization.float<(width bit) bits>`.
    pub fn float(&mut self, width: u32, bits: u64) -> u64 {
        let mut b = Self::code(3);
        varint(&mut b, width as u64);
        apint(&mut b, width, bits);
        self.attr(b)
    }

    /// `serialization.dictionary<{entries}>`, the entries
    /// `serialization.opaque<"key" = [value]>`.
    pub fn dictionary(&mut self, entries: &[u64]) -> u64 {
        let mut b = Self::code(45);
        varint(&mut b, entries.len() as u64);
        for &a in entries {
            varint(&mut b, a);
        }
        self.attr(b)
    }

    /// `param.constant_v1<binding{ symbol_ref_v1<name> : param.symbol_v1 }>`
    /// (`invoke_v1`'s callee).
    pub fn symbol_binding(&mut self, name: &str) -> u64 {
        let s = self.w.string(name);
        let mut r = Self::code(14);
        varint(&mut r, 1);
        varint(&mut r, s);
        let r = self.attr(r);
        let t = self.type_(Self::code(33));
        let mut b = Self::code(16);
        varint(&mut b, r);
        varint(&mut b, t);
        self.attr(b)
    }

    /// An enum attribute: `code` (`scatter_mode_v1` 20, `scan_combiner_v1`
    /// 25, `interpolation_mode_v1` 43, ...) and its value.
    pub fn enum_attr(&mut self, code: u64, value: u64) -> u64 {
        let mut b = Self::code(code);
        varint(&mut b, value);
        self.attr(b)
    }

    pub fn unit(&mut self) -> u64 {
        self.attr(Self::code(46))
    }

    /// `debuginfo.location_v1` of an unknown location: file `"-"`, line 0,
    /// scope `unit_v1`.
    pub fn unknown_location(&mut self) -> u64 {
        if let Some(l) = self.loc {
            return l;
        }
        let unit = self.unit();
        let mut file = Self::code(30);
        for s in ["-", "", ""] {
            let s = self.w.string(s);
            varint(&mut file, s);
        }
        let file = self.attr(file);
        let mut src = Self::code(31);
        varint(&mut src, file);
        for _ in 0..4 {
            varint(&mut src, 0);
        }
        let src = self.attr(src);
        let mut loc = Self::code(40);
        varint(&mut loc, src);
        varint(&mut loc, unit);
        varint(&mut loc, 0);
        varint(&mut loc, 0);
        let loc = self.attr(loc);
        self.loc = Some(loc);
        loc
    }

    /// `debuginfo.location_v1` of `loc` (scope `unit_v1`).
    pub fn location(&mut self, loc: &Loc) -> u64 {
        match loc {
            Loc::Unknown => self.unknown_location(),
            Loc::File { file, start, end } => self.file_location(file, *start, *end, &[]),
            Loc::Fused(list) => match list.split_first() {
                None => self.unknown_location(),
                Some((Loc::File { file, start, end }, rest)) => {
                    let fused: Vec<u64> = rest.iter().map(|l| self.location(l)).collect();
                    self.file_location(file, *start, *end, &fused)
                }
                Some((first, _)) => self.location(first),
            },
        }
    }

    fn file_location(
        &mut self,
        name: &str,
        start: (u32, u32),
        end: (u32, u32),
        fused: &[u64],
    ) -> u64 {
        let unit = self.unit();
        let mut file = Self::code(30);
        for s in [name, "", ""] {
            let s = self.w.string(s);
            varint(&mut file, s);
        }
        let file = self.attr(file);
        let mut src = Self::code(31);
        varint(&mut src, file);
        for x in [start.0, start.1, end.0, end.1] {
            varint(&mut src, x as u64);
        }
        let src = self.attr(src);
        let mut loc = Self::code(40);
        varint(&mut loc, src);
        varint(&mut loc, unit);
        varint(&mut loc, fused.len() as u64);
        for &f in fused {
            varint(&mut loc, f);
        }
        varint(&mut loc, 0);
        self.attr(loc)
    }

    /// The location of the ops created from now on (and of the ops of their
    /// regions): a composite's decomposition carries the coreai op's.
    pub fn set_location(&mut self, loc: u64) {
        self.current = Some(loc);
    }

    /// The location of the asset op (the module's).
    pub fn set_asset_location(&mut self, loc: u64) {
        self.asset_loc = Some(loc);
    }

    /// The location of the ops being created (unknown until set).
    pub fn current_location(&mut self) -> u64 {
        match self.current {
            Some(l) => l,
            None => self.unknown_location(),
        }
    }

    // --- regions and ops ---------------------------------------------

    /// An isolated body whose arguments are at the current location.
    pub fn body(&mut self, args: &[TensorType]) -> Body {
        let loc = self.current_location();
        self.body_at(args, &vec![loc; args.len()])
    }

    /// An isolated body whose arguments are at `locs`.
    pub fn body_at(&mut self, args: &[TensorType], locs: &[u64]) -> Body {
        let region = Region {
            args: args
                .iter()
                .zip(locs)
                .map(|(t, &l)| (self.tensor_type(t), l))
                .collect(),
            ops: Vec::new(),
            isolated: true,
        };
        Body {
            region,
            types: args.to_vec(),
            locs: locs.to_vec(),
            level: 0,
            outer: Vec::new(),
            outer_locs: Vec::new(),
        }
    }

    /// A region nested in `parent` without isolation (`controlflow.if_v1`,
    /// `while_v1`): its ops may use `parent`'s values (and those of its
    /// enclosing non-isolated bodies).
    pub fn nested_body(&mut self, parent: &Body, args: &[TensorType], locs: &[u64]) -> Body {
        let region = Region {
            args: args
                .iter()
                .zip(locs)
                .map(|(t, &l)| (self.tensor_type(t), l))
                .collect(),
            ops: Vec::new(),
            isolated: false,
        };
        let mut outer = parent.outer.clone();
        outer.push(parent.types.clone());
        let mut outer_locs = parent.outer_locs.clone();
        outer_locs.push(parent.locs.clone());
        Body {
            region,
            types: args.to_vec(),
            locs: locs.to_vec(),
            level: parent.level + 1,
            outer,
            outer_locs,
        }
    }

    /// Appends the op `name` (without `aicode.`) to `body`; returns its
    /// results. `version` is the op's version date.
    #[allow(clippy::too_many_arguments)]
    pub fn op(
        &mut self,
        body: &mut Body,
        name: &str,
        version: u32,
        properties: Option<Vec<u8>>,
        operands: &[Value],
        results: &[TensorType],
        regions: Vec<Region>,
    ) -> Vec<Value> {
        self.version = self.version.max(version);
        let loc = self.current_location();
        let result_types = results.iter().map(|t| self.tensor_type(t)).collect();
        body.region.ops.push(Op {
            name: format!("aicode.{name}"),
            loc,
            properties,
            results: result_types,
            operands: operands.to_vec(),
            regions,
        });
        let first = body.types.len();
        body.types.extend(results.iter().cloned());
        body.locs.extend(std::iter::repeat_n(loc, results.len()));
        (first..body.types.len()).map(|k| body.value(k)).collect()
    }

    /// The region of a finished body.
    pub fn region(body: Body) -> Region {
        body.region
    }

    /// Adds `graph_v1` `spec` with the body `body` (ended by the caller
    /// with `dataflow.output_v1`).
    pub fn graph(&mut self, spec: &Graph, body: Body) {
        let lists = |p: &mut Program, list: &Option<Vec<Vec<u64>>>| {
            let entries: Vec<u64> = match list {
                Some(list) if list.iter().any(|l| !l.is_empty()) => {
                    list.iter().map(|l| p.array(l)).collect()
                }
                _ => vec![],
            };
            p.array(&entries)
        };
        let arg_attrs = lists(self, &spec.arg_attrs);
        let res_attrs = lists(self, &spec.result_attrs);
        let fty = self.function_type(&spec.inputs, &spec.results);
        let fty = self.type_attr(fty);
        let externalize = self.integer(1, true, spec.externalize as u64);
        let private = self.integer(1, true, spec.private as u64);
        let noinline = self.integer(1, true, spec.noinline as u64);
        let name = self.string(&spec.name);
        let params = self.array(&[]);
        // argAttrs, compositeDecl?, externalize, functionType, isPrivate,
        // name, noInline, paramDecls, resAttrs.
        let mut props = Vec::new();
        varint(&mut props, arg_attrs);
        varint(&mut props, spec.composite_decl.map_or(0, |d| (d << 1) | 1));
        for a in [externalize, fty, private, name, noinline, params, res_attrs] {
            varint(&mut props, a);
        }
        let loc = match spec.loc {
            Some(l) => l,
            None => self.unknown_location(),
        };
        self.version = self.version.max(versions::GRAPH);
        if spec.stateful {
            self.version = self.version.max(versions::STATE);
        }
        self.graphs.push(Op {
            name: "aicode.dataflow.graph_v1".into(),
            loc,
            properties: Some(props),
            results: vec![],
            operands: vec![],
            regions: vec![body.region],
        });
    }

    /// The version date of the asset: the largest of its ops'.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The `main.mlirb` bytes.
    pub fn finish(self) -> Vec<u8> {
        let mut out = Vec::new();
        self.finish_into(&mut out)
            .expect("writing to memory does not fail");
        out
    }

    /// The `main.mlirb` bytes, written to `out` as they are made (the
    /// blobs straight from where they are borrowed).
    pub fn finish_into(mut self, out: &mut dyn crate::Sink) -> std::io::Result<()> {
        let version = self.integer(32, true, self.version as u64);
        let loc = match self.asset_loc {
            Some(l) => l,
            None => self.unknown_location(),
        };
        let mut props = Vec::new();
        varint(&mut props, 0); // the unnamed optional property: absent
        varint(&mut props, (version << 1) | 1);
        let asset = Op {
            name: "aicode.serialization.asset".into(),
            loc,
            properties: Some(props),
            results: vec![],
            operands: vec![],
            regions: vec![Region {
                args: vec![],
                ops: std::mem::take(&mut self.graphs),
                isolated: true,
            }],
        };
        self.w.finish_into(PRODUCER, &asset, out)
    }
}

/// Version dates of aicode ops (`convert-to-versioned` of one-op programs
/// with coreai-core 1.0.0b3; the asset's version is the largest used).
pub mod versions {
    /// A graph holding nothing but its output (`graph_v1`, `output_v1`).
    pub const GRAPH: u32 = 20250707;
    /// A graph with a `coreai.state` argument or result.
    pub const STATE: u32 = 20260313;
}
