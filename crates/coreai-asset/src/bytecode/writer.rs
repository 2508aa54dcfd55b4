//! A writer of MLIR bytecode (version 6) from bytes alone, without MLIR.
//!
//! It writes the container MLIR's `BytecodeWriter` writes: the header, then
//! the sections Dialect (names with version entries, op names flagged
//! registered), AttrTypeOffset + AttrType (every entry in its dialect's
//! custom encoding, given as bytes by the caller), IR (one top-level op;
//! every region isolated, written as a nested IR section), ResourceOffset +
//! Resource (dialect blobs, aligned), String and Properties.
//!
//! The caller interns strings, attributes, types and resources and builds
//! the op tree ([`Op`], [`Region`]); values are numbered per region, the
//! block arguments first, then each op's results in order (the numbering
//! MLIR uses inside an isolated region). Entries keep the order they were
//! first interned in (MLIR sorts them by dialect and use count; any order
//! reads the same). Strings naming dialects and ops are interned when the
//! file is finished, after those the caller interned.

use std::{borrow::Cow, collections::HashMap, sync::Arc};

use super::section::*;
use crate::sink::{Produce, Sink};

/// A resource blob's bytes: borrowed or owned, or made as they are written
/// ([`Produce`]).
pub enum Blob<'a> {
    Bytes(Cow<'a, [u8]>),
    Produced(Arc<dyn Produce + 'a>),
}

impl Blob<'_> {
    pub fn len(&self) -> usize {
        match self {
            Blob::Bytes(b) => b.len(),
            Blob::Produced(p) => p.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `self` and `other` are known to hold the same bytes: equal
    /// bytes, or one producer.
    fn same(&self, other: &Blob<'_>) -> bool {
        match (self, other) {
            (Blob::Bytes(a), Blob::Bytes(b)) => a[..] == b[..],
            (Blob::Produced(a), Blob::Produced(b)) => a.identity() == b.identity(),
            _ => false,
        }
    }

    fn write_to(&self, out: &mut dyn Sink) -> std::io::Result<()> {
        match self {
            Blob::Bytes(b) => out.write_all(b),
            Blob::Produced(p) => out.write_produced(&**p),
        }
    }
}

impl<'a> From<Cow<'a, [u8]>> for Blob<'a> {
    fn from(bytes: Cow<'a, [u8]>) -> Self {
        Blob::Bytes(bytes)
    }
}

impl<'a> From<&'a [u8]> for Blob<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Blob::Bytes(Cow::Borrowed(bytes))
    }
}

impl From<Vec<u8>> for Blob<'_> {
    fn from(bytes: Vec<u8>) -> Self {
        Blob::Bytes(Cow::Owned(bytes))
    }
}

/// Op encoding mask bits (`bytecode::OpEncodingMask`).
const HAS_RESULTS: u8 = 0x02;
const HAS_OPERANDS: u8 = 0x04;
const HAS_INLINE_REGIONS: u8 = 0x10;
const HAS_PROPERTIES: u8 = 0x40;

/// Padding byte MLIR writes before aligned data.
const PADDING: u8 = 0xCB;

/// `varint` as MLIR writes it: the count of trailing zero bits of the first
/// byte says how many bytes follow (a zero byte: 8 bytes follow).
pub fn varint(out: &mut Vec<u8>, v: u64) {
    for n in 0..8u32 {
        if v < (1u64 << (7 * (n + 1))) {
            let x = ((v << 1) | 1) << n;
            out.extend_from_slice(&x.to_le_bytes()[..(n + 1) as usize]);
            return;
        }
    }
    out.push(0);
    out.extend_from_slice(&v.to_le_bytes());
}

/// Zigzag-encoded signed varint.
pub fn svarint(out: &mut Vec<u8>, v: i64) {
    varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// `writeAPIntWithKnownWidth`: one byte up to 8 bits, a signed varint up to
/// 64 (of the value's bits, zero-extended), else the words.
pub fn apint(out: &mut Vec<u8>, width: u32, bits: u64) {
    if width <= 8 {
        out.push(bits as u8);
    } else {
        svarint(out, bits as i64);
    }
}

fn section(out: &mut Vec<u8>, id: u8, data: &[u8]) {
    out.push(id);
    varint(out, data.len() as u64);
    out.extend_from_slice(data);
}

/// Entries interned once, numbered in order of first use.
#[derive(Default)]
struct Table<K> {
    items: Vec<K>,
    index: HashMap<K, u64>,
}

impl<K: Clone + Eq + std::hash::Hash> Table<K> {
    fn add(&mut self, key: K) -> u64 {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.items.len() as u64;
        self.index.insert(key.clone(), i);
        self.items.push(key);
        i
    }
}

/// One operation. Every region is isolated from above and has one block.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    /// `dialect.name`.
    pub name: String,
    /// Attribute index of the location.
    pub loc: u64,
    /// The encoded properties, if the op has any.
    pub properties: Option<Vec<u8>>,
    /// Type indices of the results.
    pub results: Vec<u64>,
    /// Value numbers (of the enclosing region) of the operands.
    pub operands: Vec<u64>,
    pub regions: Vec<Region>,
}

/// A single-block region: its arguments (type, location) and ops.
///
/// An isolated region (the default) numbers its values from 0 and is
/// written as a nested IR section. A region that is not isolated (the
/// regions of an op share the flag of its first) is written inline; its
/// values are numbered after every value of the enclosing region, as
/// MLIR's reader scopes them (sibling regions reuse the same numbers). Its
/// ops name the values of an enclosing non-isolated level `L` (the
/// isolated scope being level 0) as `(L << LEVEL_SHIFT) | k`, `k` the
/// value's number within that level's region; the writer turns those into
/// file numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    pub args: Vec<(u64, u64)>,
    pub ops: Vec<Op>,
    pub isolated: bool,
}

/// Where the nesting level of a value number starts (see [`Region`]).
pub const LEVEL_SHIFT: u32 = 40;

impl Default for Region {
    fn default() -> Self {
        Self {
            args: Vec::new(),
            ops: Vec::new(),
            isolated: true,
        }
    }
}

impl Region {
    /// Values defined in the region's scope: arguments, then results.
    fn num_values(&self) -> u64 {
        self.args.len() as u64 + self.ops.iter().map(|o| o.results.len() as u64).sum::<u64>()
    }
}

/// A bytecode file under construction.
/// The blobs are borrowed where the caller has them (`'a`: a module's
/// weights), and [`Writer::finish_into`] streams them to the output.
#[derive(Default)]
pub struct Writer<'a> {
    strings: Table<String>,
    /// Dialect name and its version entry (varint-encoded by the caller).
    dialects: Vec<(String, Option<Vec<u8>>)>,
    attrs: Table<(u64, Vec<u8>)>,
    types: Table<(u64, Vec<u8>)>,
    /// Dialect, key, alignment, data.
    resources: Vec<(u64, u64, u64, Blob<'a>)>,
    /// The resource of each (dialect, key), for one blob read by several
    /// ops (the functions of a multi-function asset sharing a weight).
    resource_of: std::collections::HashMap<(u64, u64), usize>,
}

impl<'a> Writer<'a> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a dialect with its version entry; returns its index.
    pub fn dialect(&mut self, name: &str, version: Option<Vec<u8>>) -> u64 {
        if let Some(i) = self.dialects.iter().position(|(n, _)| n == name) {
            return i as u64;
        }
        self.dialects.push((name.to_string(), version));
        self.dialects.len() as u64 - 1
    }

    pub fn string(&mut self, s: &str) -> u64 {
        self.strings.add(s.to_string())
    }

    /// An attribute of `dialect` in its custom encoding `bytes`.
    pub fn attr(&mut self, dialect: u64, bytes: Vec<u8>) -> u64 {
        self.attrs.add((dialect, bytes))
    }

    /// A type of `dialect` in its custom encoding `bytes`.
    pub fn type_(&mut self, dialect: u64, bytes: Vec<u8>) -> u64 {
        self.types.add((dialect, bytes))
    }

    /// A blob of `dialect`'s resource group; returns its resource-handle
    /// index (the position among all dialect resources).
    pub fn resource(
        &mut self,
        dialect: u64,
        key: &str,
        alignment: u64,
        data: impl Into<Blob<'a>>,
    ) -> u64 {
        let key = self.string(key);
        let data = data.into();
        if let Some(&i) = self.resource_of.get(&(dialect, key)) {
            let (_, _, align, ref bytes) = self.resources[i];
            if align == alignment && bytes.same(&data) {
                return i as u64;
            }
        }
        self.resource_of
            .entry((dialect, key))
            .or_insert(self.resources.len());
        self.resources.push((dialect, key, alignment, data));
        self.resources.len() as u64 - 1
    }

    /// The file holding `top` as its only top-level op.
    pub fn finish(self, producer: &str, top: &Op) -> Vec<u8> {
        let mut out = Vec::new();
        self.finish_into(producer, top, &mut out)
            .expect("writing to memory does not fail");
        out
    }

    /// [`Writer::finish`], written to `out` as it is made: the blobs go
    /// from where the caller has them to `out`, never copied whole.
    pub fn finish_into(
        mut self,
        producer: &str,
        top: &Op,
        out: &mut dyn Sink,
    ) -> std::io::Result<()> {
        // Op names, in order of first use (preorder), grouped by dialect.
        let mut names: Vec<(u64, String)> = Vec::new();
        collect_names(top, &mut names, &self.dialects);
        let dialect_names: Vec<u64> = self
            .dialects
            .clone()
            .iter()
            .map(|(n, _)| self.string(n))
            .collect();
        let mut grouped: Vec<(u64, Vec<(String, u64)>)> = Vec::new();
        for (dialect, name) in &names {
            let short = name.split_once('.').map_or(name.as_str(), |(_, s)| s);
            let s = self.string(short);
            match grouped.iter_mut().find(|(d, _)| d == dialect) {
                Some((_, list)) => list.push((name.clone(), s)),
                None => grouped.push((*dialect, vec![(name.clone(), s)])),
            }
        }
        let mut op_index: HashMap<String, u64> = HashMap::new();
        for (_, list) in &grouped {
            for (name, _) in list {
                let n = op_index.len() as u64;
                op_index.insert(name.clone(), n);
            }
        }

        let mut props: Table<Vec<u8>> = Table::default();
        let mut ir = Vec::new();
        varint(&mut ir, 1 << 1); // one op, no arguments
        write_op(top, &op_index, &mut props, &mut ir, &[0], 0);

        let mut dialect_sec = Vec::new();
        varint(&mut dialect_sec, self.dialects.len() as u64);
        for ((_, version), name) in self.dialects.iter().zip(&dialect_names) {
            varint(&mut dialect_sec, (name << 1) | version.is_some() as u64);
            if let Some(v) = version {
                section(&mut dialect_sec, DIALECT_VERSION, v);
            }
        }
        varint(&mut dialect_sec, names.len() as u64);
        for (dialect, list) in &grouped {
            varint(&mut dialect_sec, *dialect);
            varint(&mut dialect_sec, list.len() as u64);
            for (_, s) in list {
                varint(&mut dialect_sec, (s << 1) | 1); // registered
            }
        }

        let mut offsets = Vec::new();
        let mut data = Vec::new();
        varint(&mut offsets, self.attrs.items.len() as u64);
        varint(&mut offsets, self.types.items.len() as u64);
        for table in [&self.attrs, &self.types] {
            let mut i = 0;
            while i < table.items.len() {
                let dialect = table.items[i].0;
                let run = table.items[i..]
                    .iter()
                    .take_while(|(d, _)| *d == dialect)
                    .count();
                varint(&mut offsets, dialect);
                varint(&mut offsets, run as u64);
                for (_, bytes) in &table.items[i..i + run] {
                    varint(&mut offsets, ((bytes.len() as u64) << 1) | 1); // custom
                    data.extend_from_slice(bytes);
                }
                i += run;
            }
        }

        let strings = &self.strings.items;
        let mut string_sec = Vec::new();
        varint(&mut string_sec, strings.len() as u64);
        for s in strings.iter().rev() {
            varint(&mut string_sec, s.len() as u64 + 1);
        }
        for s in strings {
            string_sec.extend_from_slice(s.as_bytes());
            string_sec.push(0);
        }

        let mut props_sec = Vec::new();
        varint(&mut props_sec, props.items.len() as u64);
        for p in &props.items {
            varint(&mut props_sec, p.len() as u64);
            props_sec.extend_from_slice(p);
        }

        let mut head = Vec::new();
        head.extend_from_slice(super::MAGIC);
        varint(&mut head, super::VERSION);
        head.extend_from_slice(producer.as_bytes());
        head.push(0);
        section(&mut head, DIALECT, &dialect_sec);
        section(&mut head, ATTR_TYPE_OFFSET, &offsets);
        section(&mut head, ATTR_TYPE, &data);
        section(&mut head, IR, &ir);
        if !self.resources.is_empty() {
            self.write_resources(head, out)?;
        } else {
            out.write_all(&head)?;
        }
        let mut tail = Vec::new();
        section(&mut tail, STRING, &string_sec);
        section(&mut tail, PROPERTIES, &props_sec);
        out.write_all(&tail)
    }

    /// ResourceOffset and Resource after `head` (the bytes before them):
    /// each blob is `varint alignment, varint size`, padding to the
    /// alignment, the data; the section is aligned to the largest alignment
    /// so offsets inside it are absolute ones. The layout is computed
    /// first, then the blobs are written from where they are.
    fn write_resources(&self, mut head: Vec<u8>, out: &mut dyn Sink) -> std::io::Result<()> {
        // Each blob's header (alignment, size, padding) at its offset in
        // the section, and the section's length.
        let mut headers: Vec<Vec<u8>> = Vec::with_capacity(self.resources.len());
        let mut offsets = Vec::new();
        varint(&mut offsets, 0); // no external resource groups
        let mut len = 0usize;
        let mut i = 0;
        let max_align = self.resources.iter().map(|r| r.2).max().unwrap_or(1);
        while i < self.resources.len() {
            let dialect = self.resources[i].0;
            let run = self.resources[i..]
                .iter()
                .take_while(|r| r.0 == dialect)
                .count();
            varint(&mut offsets, dialect);
            varint(&mut offsets, run as u64);
            for (_, key, align, data) in &self.resources[i..i + run] {
                let start = len;
                let mut header = Vec::new();
                varint(&mut header, *align);
                varint(&mut header, data.len() as u64);
                while !((len + header.len()) as u64).is_multiple_of(*align) {
                    header.push(PADDING);
                }
                len += header.len() + data.len();
                headers.push(header);
                varint(&mut offsets, *key);
                varint(&mut offsets, (len - start) as u64);
                offsets.push(0); // kind: blob
            }
            i += run;
        }
        section(&mut head, RESOURCE_OFFSET, &offsets);
        head.push(RESOURCE | 0x80);
        varint(&mut head, len as u64);
        varint(&mut head, max_align);
        while !(head.len() as u64).is_multiple_of(max_align) {
            head.push(PADDING);
        }
        out.write_all(&head)?;
        for (header, (_, _, _, data)) in headers.iter().zip(&self.resources) {
            out.write_all(header)?;
            data.write_to(out)?;
        }
        Ok(())
    }
}

fn collect_names(op: &Op, names: &mut Vec<(u64, String)>, dialects: &[(String, Option<Vec<u8>>)]) {
    if !names.iter().any(|(_, n)| *n == op.name) {
        let prefix = op.name.split_once('.').map_or("", |(d, _)| d);
        let d = dialects
            .iter()
            .position(|(n, _)| n == prefix)
            .expect("op of an undeclared dialect") as u64;
        names.push((d, op.name.clone()));
    }
    for r in &op.regions {
        for o in &r.ops {
            collect_names(o, names, dialects);
        }
    }
}

/// The file number of the value `v` (see [`Region`]) given the first
/// number of each non-isolated level of the current isolated scope.
fn value_number(v: u64, bases: &[u64]) -> u64 {
    let level = (v >> LEVEL_SHIFT) as usize;
    bases[level] + (v & ((1u64 << LEVEL_SHIFT) - 1))
}

/// Writes `op`; `bases` are the first value numbers of the levels of the
/// current isolated scope (`[0]` at its top), `next` the number after the
/// values of the region holding `op`.
fn write_op(
    op: &Op,
    names: &HashMap<String, u64>,
    props: &mut Table<Vec<u8>>,
    out: &mut Vec<u8>,
    bases: &[u64],
    next: u64,
) {
    varint(out, names[&op.name]);
    let mut mask = 0;
    if op.properties.is_some() {
        mask |= HAS_PROPERTIES;
    }
    if !op.results.is_empty() {
        mask |= HAS_RESULTS;
    }
    if !op.operands.is_empty() {
        mask |= HAS_OPERANDS;
    }
    if !op.regions.is_empty() {
        mask |= HAS_INLINE_REGIONS;
    }
    out.push(mask);
    varint(out, op.loc);
    if let Some(p) = &op.properties {
        let i = props.add(p.clone());
        varint(out, i);
    }
    if !op.results.is_empty() {
        varint(out, op.results.len() as u64);
        for &x in &op.results {
            varint(out, x);
        }
    }
    if !op.operands.is_empty() {
        varint(out, op.operands.len() as u64);
        for &x in &op.operands {
            varint(out, value_number(x, bases));
        }
    }
    if !op.regions.is_empty() {
        let isolated = op.regions[0].isolated;
        varint(out, ((op.regions.len() as u64) << 1) | isolated as u64);
        for region in &op.regions {
            let mut body = Vec::new();
            let inner: Vec<u64> = if isolated {
                vec![0]
            } else {
                bases.iter().copied().chain([next]).collect()
            };
            let inner_next = inner[inner.len() - 1] + region.num_values();
            varint(&mut body, 1); // one block
            varint(&mut body, region.num_values());
            let has_args = !region.args.is_empty();
            varint(
                &mut body,
                ((region.ops.len() as u64) << 1) | has_args as u64,
            );
            if has_args {
                varint(&mut body, region.args.len() as u64);
                for &(ty, loc) in &region.args {
                    varint(&mut body, (ty << 1) | 1);
                    varint(&mut body, loc);
                }
                body.push(0); // no use-list orders
            }
            for o in &region.ops {
                write_op(o, names, props, &mut body, &inner, inner_next);
            }
            if isolated {
                section(out, IR, &body);
            } else {
                out.extend_from_slice(&body);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(f: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
        let mut v = Vec::new();
        f(&mut v);
        v
    }

    #[test]
    fn varints_as_mlir_writes_them() {
        assert_eq!(enc(|o| varint(o, 0)), [0x01]);
        assert_eq!(enc(|o| varint(o, 2)), [0x05]);
        assert_eq!(enc(|o| varint(o, 127)), [0xFF]);
        assert_eq!(enc(|o| varint(o, 128)), [0x02, 0x02]);
        assert_eq!(enc(|o| varint(o, 1024)), [0x02, 0x10]);
        assert_eq!(enc(|o| varint(o, u64::MAX))[0], 0);
        assert_eq!(enc(|o| varint(o, u64::MAX)).len(), 9);
        assert_eq!(enc(|o| svarint(o, -2)), [0x07]);
        // The asset version 20250827 as a 32-bit integer (docs/aicode-format.md §2.4).
        assert_eq!(enc(|o| apint(o, 32, 20250827)), [0x68, 0x19, 0xa0, 0x26]);
        assert_eq!(enc(|o| apint(o, 16, 0x3E00)), [0x04, 0xe0, 0x03]);
    }

    /// Bytes `i mod 7`, made by the maker `id`.
    struct Made(usize, usize);

    impl Produce for Made {
        fn len(&self) -> usize {
            self.0
        }
        fn pieces(&self, _: usize) -> Vec<std::ops::Range<usize>> {
            std::iter::once(0..self.0).collect()
        }
        fn fill(&self, range: std::ops::Range<usize>, out: &mut [u8]) {
            for (o, i) in out.iter_mut().zip(range) {
                *o = (i % 7) as u8;
            }
        }
        fn identity(&self) -> usize {
            self.1
        }
    }

    #[test]
    fn a_key_holds_one_blob_per_bytes_or_maker() {
        let mut w = Writer::new();
        let d = w.dialect("builtin", None);
        let a = w.resource(d, "w", 4, Blob::Produced(Arc::new(Made(40, 1))));
        let b = w.resource(d, "w", 4, Blob::Produced(Arc::new(Made(40, 1))));
        let c = w.resource(d, "w", 4, Blob::Produced(Arc::new(Made(40, 2))));
        let e = w.resource(d, "v", 4, vec![1u8, 2, 3]);
        let f = w.resource(d, "v", 4, &[1u8, 2, 3][..]);
        assert_eq!((a, b, c, e, f), (0, 0, 1, 2, 2));
    }
}
