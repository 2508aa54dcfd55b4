//! A reader of MLIR bytecode (versions 4 to 6) into bytes alone, without
//! MLIR: the inverse of [`super::writer`].
//!
//! It reads the sections MLIR's `BytecodeWriter` writes: the strings, the
//! dialects (with their version entries) and op names, the attribute and
//! type entries (left in their encoding: a dialect's custom bytes or the
//! assembly text, decoded by the caller), the dialect resources (blobs),
//! the properties and the IR. Ops come back as a tree ([`Op`], [`Region`],
//! [`Block`]) whose values carry numbers unique in the file, resolved from
//! MLIR's per-region numbering (an isolated region numbers its values from
//! 0; a region that is not isolated numbers them after those of the regions
//! enclosing it, as `BytecodeReader` scopes them).
//!
//! Every count, index and length is checked against the data, so a
//! truncated or corrupt file is an error, never a panic; nesting is bounded.
//! Not read (an error naming them): attribute dictionaries on ops whose
//! name is not registered, use-list orders and block successors are read
//! and kept or skipped as MLIR writes them; a forward reference to a value
//! not yet defined is refused (aicode regions are in dominance order).

use super::{BytecodeError, MAGIC};

use super::section::*;
const SECTIONS: usize = 9;

const HAS_ATTRS: u8 = 0x01;
const HAS_RESULTS: u8 = 0x02;
const HAS_OPERANDS: u8 = 0x04;
const HAS_SUCCESSORS: u8 = 0x08;
const HAS_INLINE_REGIONS: u8 = 0x10;
const HAS_USE_LIST_ORDERS: u8 = 0x20;
const HAS_PROPERTIES: u8 = 0x40;

/// How deep regions may nest (a corrupt file could nest without end).
const MAX_DEPTH: usize = 256;

pub(crate) struct Cursor<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
    /// Where `data` starts in the file (for absolute alignment).
    base: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            base: 0,
        }
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub(crate) fn byte(&mut self, what: &'static str) -> Result<u8, BytecodeError> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or(BytecodeError::Truncated(what))?;
        self.pos += 1;
        Ok(b)
    }

    pub(crate) fn bytes(
        &mut self,
        n: usize,
        what: &'static str,
    ) -> Result<&'a [u8], BytecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or(BytecodeError::Truncated(what))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub(crate) fn varint(&mut self, what: &'static str) -> Result<u64, BytecodeError> {
        let first = self.byte(what)?;
        if first == 0 {
            let raw = self.bytes(8, what)?;
            let mut buf = [0u8; 8];
            buf.copy_from_slice(raw);
            return Ok(u64::from_le_bytes(buf));
        }
        let extra = first.trailing_zeros() as usize;
        let mut buf = [0u8; 8];
        buf[0] = first;
        buf[1..=extra].copy_from_slice(self.bytes(extra, what)?);
        Ok(u64::from_le_bytes(buf) >> (extra + 1))
    }

    pub(crate) fn svarint(&mut self, what: &'static str) -> Result<i64, BytecodeError> {
        let v = self.varint(what)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A varint used as a count or an index below `limit`.
    pub(crate) fn index(
        &mut self,
        limit: usize,
        what: &'static str,
    ) -> Result<usize, BytecodeError> {
        let v = self.varint(what)?;
        usize::try_from(v)
            .ok()
            .filter(|&v| v < limit)
            .ok_or(BytecodeError::Malformed(what))
    }

    /// A count of items each taking at least one byte of what is left.
    pub(crate) fn count(&mut self, what: &'static str) -> Result<usize, BytecodeError> {
        let v = self.varint(what)?;
        usize::try_from(v)
            .ok()
            .filter(|&v| v <= self.data.len() - self.pos.min(self.data.len()))
            .ok_or(BytecodeError::Truncated(what))
    }

    /// Skips 0xCB padding to `align` (absolute in the file).
    fn align(&mut self, align: u64) -> Result<(), BytecodeError> {
        if align == 0 || !align.is_power_of_two() || align > 1 << 16 {
            return Err(BytecodeError::Malformed("alignment"));
        }
        while !((self.base + self.pos) as u64).is_multiple_of(align) {
            if self.byte("padding")? != 0xCB {
                return Err(BytecodeError::Malformed("padding"));
            }
        }
        Ok(())
    }

    /// One section: id, contents (a cursor over them, aligned as the file).
    fn section(&mut self) -> Result<(u8, Cursor<'a>), BytecodeError> {
        let id_and_aligned = self.byte("section id")?;
        let len = self.varint("section length")?;
        let len = usize::try_from(len).map_err(|_| BytecodeError::Truncated("section"))?;
        if id_and_aligned & 0x80 != 0 {
            let align = self.varint("section alignment")?;
            self.align(align)?;
        }
        let start = self.base + self.pos;
        let data = self.bytes(len, "section contents")?;
        Ok((
            id_and_aligned & 0x7f,
            Cursor {
                data,
                pos: 0,
                base: start,
            },
        ))
    }
}

/// An attribute or type entry: its dialect and its encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub dialect: usize,
    /// The dialect's custom encoding (else the assembly text, NUL-ended).
    pub custom: bool,
    pub bytes: Vec<u8>,
}

/// A dialect resource (blob).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// The dialect whose group holds it.
    pub dialect: usize,
    pub key: String,
    pub alignment: u64,
    pub data: Vec<u8>,
}

/// One operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    /// `dialect.name`.
    pub name: String,
    /// Attribute index of the location.
    pub loc: usize,
    /// Attribute index of the attribute dictionary, if any.
    pub attrs: Option<usize>,
    /// The encoded properties, if any.
    pub properties: Option<Vec<u8>>,
    /// The results: value number and type index.
    pub results: Vec<(u64, usize)>,
    /// Value numbers of the operands.
    pub operands: Vec<u64>,
    pub regions: Vec<Region>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Region {
    pub blocks: Vec<Block>,
}

/// A block: its arguments (value number, type index, location attribute
/// index if written) and its ops.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Block {
    pub args: Vec<(u64, usize, Option<usize>)>,
    pub ops: Vec<Op>,
}

/// A bytecode file read.
#[derive(Debug, Clone)]
pub struct File {
    pub version: u64,
    pub producer: String,
    pub strings: Vec<String>,
    /// Dialect names with their version entries.
    pub dialects: Vec<(String, Option<Vec<u8>>)>,
    pub attrs: Vec<Entry>,
    pub types: Vec<Entry>,
    /// Dialect resources in handle order.
    pub resources: Vec<Resource>,
    /// The top-level ops.
    pub ops: Vec<Op>,
}

struct OpName {
    name: String,
}

/// Value numbers in an isolated scope: `values[k]` is the file-wide number
/// of the scope's value `k` once defined.
struct Scope {
    values: Vec<Option<u64>>,
    /// The next position to define, per open region of the scope.
    next: Vec<usize>,
}

struct Parser<'a> {
    version: u64,
    names: Vec<OpName>,
    properties: Vec<&'a [u8]>,
    num_attrs: usize,
    num_types: usize,
    scopes: Vec<Scope>,
    counter: u64,
    depth: usize,
}

/// Reads the whole file.
pub fn read(data: &[u8]) -> Result<File, BytecodeError> {
    if !data.starts_with(MAGIC) {
        return Err(BytecodeError::NoMagic);
    }
    let mut r = Cursor::new(data);
    r.pos = 4;
    let version = r.varint("version")?;
    if !(4..=6).contains(&version) {
        return Err(BytecodeError::Malformed(
            "bytecode version (4 to 6 are read)",
        ));
    }
    let rest = &data[r.pos..];
    let nul = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or(BytecodeError::Truncated("producer"))?;
    let producer = String::from_utf8_lossy(&rest[..nul]).into_owned();
    r.pos += nul + 1;
    let mut sections: Vec<Option<Cursor>> = (0..SECTIONS).map(|_| None).collect();
    while !r.at_end() {
        let (id, contents) = r.section()?;
        let slot = sections
            .get_mut(id as usize)
            .ok_or(BytecodeError::Malformed("section id"))?;
        if slot.is_some() {
            return Err(BytecodeError::Malformed("repeated section"));
        }
        *slot = Some(contents);
    }
    let mut take = |id: u8, what: &'static str| {
        sections[id as usize]
            .take()
            .ok_or(BytecodeError::Malformed(what))
    };
    let strings = read_strings(take(STRING, "no string section")?)?;
    let (dialects, names) = read_dialects(take(DIALECT, "no dialect section")?, &strings, version)?;
    let (attrs, types) = read_attr_types(
        take(ATTR_TYPE_OFFSET, "no attribute/type offset section")?,
        take(ATTR_TYPE, "no attribute/type section")?,
        dialects.len(),
    )?;
    let resources = match (
        sections[RESOURCE_OFFSET as usize].take(),
        sections[RESOURCE as usize].take(),
    ) {
        (Some(offsets), Some(blobs)) => read_resources(offsets, blobs, &strings, dialects.len())?,
        (None, None) => Vec::new(),
        _ => return Err(BytecodeError::Malformed("resource sections")),
    };
    let properties = match sections[PROPERTIES as usize].take() {
        Some(p) => read_properties(p)?,
        None => Vec::new(),
    };
    let mut ir = sections[IR as usize]
        .take()
        .ok_or(BytecodeError::Malformed("no IR section"))?;
    let mut parser = Parser {
        version,
        names,
        properties,
        num_attrs: attrs.len(),
        num_types: types.len(),
        scopes: vec![Scope {
            values: Vec::new(),
            next: vec![0],
        }],
        counter: 0,
        depth: 0,
    };
    // The top level: a block of ops with no arguments.
    let head = ir.varint("top-level block")?;
    if head & 1 != 0 {
        return Err(BytecodeError::Malformed("top-level block arguments"));
    }
    let count = usize::try_from(head >> 1).map_err(|_| BytecodeError::Malformed("op count"))?;
    let mut ops = Vec::new();
    for _ in 0..count {
        ops.push(parser.op(&mut ir)?);
    }
    Ok(File {
        version,
        producer,
        strings,
        dialects,
        attrs,
        types,
        resources,
        ops,
    })
}

fn read_strings(mut r: Cursor) -> Result<Vec<String>, BytecodeError> {
    let count = r.count("string count")?;
    let mut sizes = Vec::with_capacity(count);
    for _ in 0..count {
        sizes.push(
            usize::try_from(r.varint("string size")?)
                .map_err(|_| BytecodeError::Malformed("string size"))?,
        );
    }
    sizes.reverse();
    sizes
        .into_iter()
        .map(|size| {
            let raw = r.bytes(size, "string data")?;
            let (last, text) = raw
                .split_last()
                .ok_or(BytecodeError::Malformed("empty string entry"))?;
            if *last != 0 {
                return Err(BytecodeError::Malformed("string not NUL-ended"));
            }
            Ok(String::from_utf8_lossy(text).into_owned())
        })
        .collect()
}

type Dialects = Vec<(String, Option<Vec<u8>>)>;

fn read_dialects(
    mut r: Cursor,
    strings: &[String],
    version: u64,
) -> Result<(Dialects, Vec<OpName>), BytecodeError> {
    let count = r.count("dialect count")?;
    let mut dialects = Vec::with_capacity(count);
    for _ in 0..count {
        let entry = r.varint("dialect name")?;
        let name = usize::try_from(entry >> 1)
            .ok()
            .and_then(|i| strings.get(i))
            .ok_or(BytecodeError::Malformed("dialect name index"))?
            .clone();
        let v = if entry & 1 == 1 {
            let (id, s) = r.section()?;
            if id != DIALECT_VERSION {
                return Err(BytecodeError::Malformed("dialect version section"));
            }
            Some(s.data.to_vec())
        } else {
            None
        };
        dialects.push((name, v));
    }
    let total = r.count("op name count")?;
    let mut names = Vec::with_capacity(total);
    while !r.at_end() {
        let dialect = r.index(dialects.len(), "op name dialect")?;
        let n = r.count("op names")?;
        for _ in 0..n {
            let entry = r.varint("op name")?;
            let idx = if version >= 5 { entry >> 1 } else { entry };
            let name = usize::try_from(idx)
                .ok()
                .and_then(|i| strings.get(i))
                .ok_or(BytecodeError::Malformed("op name index"))?;
            names.push(OpName {
                name: format!("{}.{name}", dialects[dialect].0),
            });
        }
    }
    if names.len() != total {
        return Err(BytecodeError::Malformed("op name count"));
    }
    Ok((dialects, names))
}

fn read_attr_types(
    mut offsets: Cursor,
    data: Cursor,
    num_dialects: usize,
) -> Result<(Vec<Entry>, Vec<Entry>), BytecodeError> {
    let num_attrs = offsets.count("attribute count")?;
    let num_types = offsets.count("type count")?;
    let mut pos = 0usize;
    let mut read = |count: usize, offsets: &mut Cursor| -> Result<Vec<Entry>, BytecodeError> {
        let mut out = Vec::with_capacity(count);
        while out.len() < count {
            let dialect = offsets.index(num_dialects, "entry dialect")?;
            let n = offsets.count("entry count")?;
            if out.len() + n > count {
                return Err(BytecodeError::Malformed("entry count"));
            }
            for _ in 0..n {
                let v = offsets.varint("entry size")?;
                let size =
                    usize::try_from(v >> 1).map_err(|_| BytecodeError::Truncated("entry"))?;
                let end = pos
                    .checked_add(size)
                    .filter(|&e| e <= data.data.len())
                    .ok_or(BytecodeError::Truncated("attribute/type entry"))?;
                out.push(Entry {
                    dialect,
                    custom: v & 1 == 1,
                    bytes: data.data[pos..end].to_vec(),
                });
                pos = end;
            }
        }
        Ok(out)
    };
    let attrs = read(num_attrs, &mut offsets)?;
    let types = read(num_types, &mut offsets)?;
    Ok((attrs, types))
}

fn read_resources(
    mut offsets: Cursor,
    mut blobs: Cursor,
    strings: &[String],
    num_dialects: usize,
) -> Result<Vec<Resource>, BytecodeError> {
    let external = offsets.count("external resource groups")?;
    let skip_group = |offsets: &mut Cursor, blobs: &mut Cursor| -> Result<(), BytecodeError> {
        let n = offsets.count("resource count")?;
        for _ in 0..n {
            offsets.index(strings.len(), "resource key")?;
            let size = offsets.varint("resource size")?;
            offsets.byte("resource kind")?;
            blobs.bytes(
                usize::try_from(size).map_err(|_| BytecodeError::Truncated("resource"))?,
                "resource",
            )?;
        }
        Ok(())
    };
    for _ in 0..external {
        offsets.index(strings.len(), "resource group name")?;
        skip_group(&mut offsets, &mut blobs)?;
    }
    let mut out = Vec::new();
    while !offsets.at_end() {
        let dialect = offsets.index(num_dialects, "resource dialect")?;
        let n = offsets.count("resource count")?;
        for _ in 0..n {
            let key = strings[offsets.index(strings.len(), "resource key")?].clone();
            let size = offsets.varint("resource size")?;
            let size = usize::try_from(size).map_err(|_| BytecodeError::Truncated("resource"))?;
            let kind = offsets.byte("resource kind")?;
            let start = blobs.pos;
            if kind != 0 {
                return Err(BytecodeError::Malformed(
                    "dialect resource that is not a blob",
                ));
            }
            let alignment = blobs.varint("blob alignment")?;
            let len = blobs.varint("blob size")?;
            blobs.align(alignment)?;
            let len = usize::try_from(len).map_err(|_| BytecodeError::Truncated("blob"))?;
            let data = blobs.bytes(len, "blob")?.to_vec();
            if blobs.pos - start != size {
                return Err(BytecodeError::Malformed("resource size"));
            }
            out.push(Resource {
                dialect,
                key,
                alignment,
                data,
            });
        }
    }
    Ok(out)
}

fn read_properties(mut r: Cursor<'_>) -> Result<Vec<&[u8]>, BytecodeError> {
    if r.at_end() {
        return Ok(Vec::new());
    }
    let count = r.count("properties count")?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let size = r.varint("properties size")?;
        let size = usize::try_from(size).map_err(|_| BytecodeError::Truncated("properties"))?;
        out.push(r.bytes(size, "properties")?);
    }
    Ok(out)
}

impl Parser<'_> {
    fn define(&mut self) -> Result<u64, BytecodeError> {
        let scope = self.scopes.last_mut().expect("a scope");
        let slot = scope.next.last_mut().expect("an open region");
        let v = scope.values.get_mut(*slot).ok_or(BytecodeError::Malformed(
            "more values than the region declares",
        ))?;
        *slot += 1;
        let id = self.counter;
        self.counter += 1;
        *v = Some(id);
        Ok(id)
    }

    fn value(&self, k: u64) -> Result<u64, BytecodeError> {
        let scope = self.scopes.last().expect("a scope");
        usize::try_from(k)
            .ok()
            .and_then(|k| scope.values.get(k).copied().flatten())
            .ok_or(BytecodeError::Malformed(
                "operand is not a value defined before it",
            ))
    }

    fn attr(&self, r: &mut Cursor) -> Result<usize, BytecodeError> {
        r.index(self.num_attrs, "attribute index")
    }

    fn type_(&self, r: &mut Cursor) -> Result<usize, BytecodeError> {
        r.index(self.num_types, "type index")
    }

    fn op(&mut self, r: &mut Cursor) -> Result<Op, BytecodeError> {
        let name = r.index(self.names.len(), "op name index")?;
        let mask = r.byte("op mask")?;
        let loc = self.attr(r)?;
        let attrs = if mask & HAS_ATTRS != 0 {
            Some(self.attr(r)?)
        } else {
            None
        };
        let properties = if mask & HAS_PROPERTIES != 0 {
            let i = r.index(self.properties.len(), "properties index")?;
            Some(self.properties[i].to_vec())
        } else {
            None
        };
        let mut result_types = Vec::new();
        if mask & HAS_RESULTS != 0 {
            let n = r.count("result count")?;
            for _ in 0..n {
                result_types.push(self.type_(r)?);
            }
        }
        let mut operands = Vec::new();
        if mask & HAS_OPERANDS != 0 {
            let n = r.count("operand count")?;
            for _ in 0..n {
                let k = r.varint("operand")?;
                operands.push(self.value(k)?);
            }
        }
        if mask & HAS_SUCCESSORS != 0 {
            return Err(BytecodeError::Malformed("block successors (not read)"));
        }
        if mask & HAS_USE_LIST_ORDERS != 0 {
            let n = if result_types.len() > 1 {
                r.count("use-list orders")?
            } else {
                1
            };
            for _ in 0..n {
                if result_types.len() > 1 {
                    r.varint("use-list value")?;
                }
                let entry = r.varint("use-list count")?;
                for _ in 0..(entry >> 1) {
                    r.varint("use-list index")?;
                }
            }
        }
        let mut results = Vec::with_capacity(result_types.len());
        for t in result_types {
            results.push((self.define()?, t));
        }
        let mut regions = Vec::new();
        if mask & HAS_INLINE_REGIONS != 0 {
            let head = r.varint("region count")?;
            let isolated = head & 1 == 1;
            let n =
                usize::try_from(head >> 1).map_err(|_| BytecodeError::Malformed("region count"))?;
            if n > r.data.len() {
                return Err(BytecodeError::Truncated("regions"));
            }
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(BytecodeError::Malformed("regions nested too deep"));
            }
            for _ in 0..n {
                let region = if isolated && self.version >= 2 {
                    let (id, mut s) = r.section()?;
                    if id != IR {
                        return Err(BytecodeError::Malformed("isolated region section"));
                    }
                    let region = self.region(&mut s, true)?;
                    if !s.at_end() {
                        return Err(BytecodeError::Malformed("bytes after a region"));
                    }
                    region
                } else {
                    self.region(r, isolated)?
                };
                regions.push(region);
            }
            self.depth -= 1;
        }
        Ok(Op {
            name: self.names[name].name.clone(),
            loc,
            attrs,
            properties,
            results,
            operands,
            regions,
        })
    }

    fn region(&mut self, r: &mut Cursor, isolated: bool) -> Result<Region, BytecodeError> {
        let blocks = r.count("block count")?;
        if blocks == 0 {
            return Ok(Region::default());
        }
        let num_values = r.count("value count")?;
        if isolated {
            self.scopes.push(Scope {
                values: vec![None; num_values],
                next: vec![0],
            });
        } else {
            let scope = self.scopes.last_mut().expect("a scope");
            let base = scope.values.len();
            scope.values.resize(base + num_values, None);
            scope.next.push(base);
        }
        let mut region = Region::default();
        for _ in 0..blocks {
            let head = r.varint("block")?;
            let num_ops =
                usize::try_from(head >> 1).map_err(|_| BytecodeError::Malformed("op count"))?;
            if num_ops > r.data.len() {
                return Err(BytecodeError::Truncated("block ops"));
            }
            let mut block = Block::default();
            if head & 1 == 1 {
                let n = r.count("block argument count")?;
                for _ in 0..n {
                    let t = r.varint("block argument type")?;
                    let ty = usize::try_from(t >> 1)
                        .ok()
                        .filter(|&t| t < self.num_types)
                        .ok_or(BytecodeError::Malformed("type index"))?;
                    let loc = if t & 1 == 1 {
                        Some(self.attr(r)?)
                    } else {
                        None
                    };
                    block.args.push((self.define()?, ty, loc));
                }
                if self.version >= 3 && r.byte("block use-list orders")? != 0 {
                    return Err(BytecodeError::Malformed(
                        "block argument use-list orders (not read)",
                    ));
                }
            }
            for _ in 0..num_ops {
                block.ops.push(self.op(r)?);
            }
            region.blocks.push(block);
        }
        if isolated {
            self.scopes.pop();
        } else {
            let scope = self.scopes.last_mut().expect("a scope");
            scope.next.pop();
            let base = scope.values.len() - num_values;
            scope.values.truncate(base);
        }
        Ok(region)
    }
}

impl File {
    /// The name of a dialect by index.
    pub fn dialect_name(&self, d: usize) -> &str {
        &self.dialects[d].0
    }

    pub fn has_dialect(&self, name: &str) -> bool {
        self.dialects.iter().any(|(n, _)| n == name)
    }
}

#[cfg(test)]
mod tests {
    use super::super::writer::{Op as WOp, Region as WRegion, Writer};
    use super::*;

    fn sample() -> Vec<u8> {
        let mut w = Writer::new();
        let d = w.dialect("t", Some(vec![5]));
        let ty = w.type_(d, vec![1, 2]);
        let loc = w.attr(d, vec![3]);
        w.resource(d, "blob_1", 16, vec![9; 20]);
        let inner = WRegion {
            args: vec![(ty, loc), (ty, loc)],
            ops: vec![
                WOp {
                    name: "t.add".into(),
                    loc,
                    properties: Some(vec![1, 2, 3]),
                    results: vec![ty],
                    operands: vec![0, 1],
                    regions: vec![],
                },
                WOp {
                    name: "t.ret".into(),
                    loc,
                    properties: None,
                    results: vec![],
                    operands: vec![2],
                    regions: vec![],
                },
            ],
            isolated: true,
        };
        let top = WOp {
            name: "t.top".into(),
            loc,
            properties: None,
            results: vec![],
            operands: vec![],
            regions: vec![inner],
        };
        w.finish("test", &top)
    }

    #[test]
    fn reads_what_the_writer_writes() {
        let f = read(&sample()).unwrap();
        assert_eq!(f.version, 6);
        assert_eq!(f.producer, "test");
        assert_eq!(f.dialects, vec![("t".to_string(), Some(vec![5]))]);
        assert_eq!(f.types[0].bytes, vec![1, 2]);
        assert_eq!(f.resources[0].key, "blob_1");
        assert_eq!(f.resources[0].alignment, 16);
        assert_eq!(f.resources[0].data, vec![9; 20]);
        let top = &f.ops[0];
        assert_eq!(top.name, "t.top");
        let block = &top.regions[0].blocks[0];
        assert_eq!(block.args.len(), 2);
        assert_eq!(block.ops[0].name, "t.add");
        assert_eq!(block.ops[0].properties, Some(vec![1, 2, 3]));
        assert_eq!(
            block.ops[0].operands,
            vec![block.args[0].0, block.args[1].0]
        );
        assert_eq!(block.ops[1].operands, vec![block.ops[0].results[0].0]);
    }

    #[test]
    fn every_truncation_and_byte_flip_is_an_error_or_a_file_not_a_panic() {
        let full = sample();
        for len in 0..full.len() {
            assert!(read(&full[..len]).is_err(), "prefix of {len} bytes");
        }
        for i in 0..full.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut b = full.clone();
                b[i] ^= flip;
                let _ = read(&b);
            }
        }
    }
}
