//! The parts of an MLIR bytecode file an asset reader checks before handing
//! the file to MLIR: the header (magic, version, producer) and the dialect
//! section's dialect names with their version entries.
//!
//! coreai-core 1.0.0b3 does not write the `coreai` dialect into `main.mlirb`:
//! it re-serializes the program into one versioned dialect, `aicode` (version
//! entry `0x05` for OS 27, op names such as `dataflow.graph_v1` and
//! `primitive.add_v1`, attributes and types in its own binary encoding).
//! Upstream MLIR cannot read that form ("dialect 'aicode' does not implement
//! the bytecode interface"): [`reader`] and `aicode::reader` read it back
//! into coreai IR instead.

/// MLIR bytecode magic number: `ML\xefR`.
pub const MAGIC: &[u8; 4] = b"ML\xefR";

/// The bytecode version coreai-core writes and reads (`_CURRENT_BYTECODE_VERSION`).
pub const VERSION: u64 = 6;

/// What the header and the dialect section say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub version: u64,
    pub producer: String,
    /// Dialect names in the file's order, each with its raw version entry.
    pub dialects: Vec<(String, Option<Vec<u8>>)>,
}

/// Why a file is not readable MLIR bytecode.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BytecodeError {
    #[error("not MLIR bytecode (no 'ML\\xefR' magic number)")]
    NoMagic,
    #[error("truncated MLIR bytecode ({0})")]
    Truncated(&'static str),
    #[error("malformed MLIR bytecode ({0})")]
    Malformed(&'static str),
}

/// Section ids of MLIR bytecode (`bytecode::Section::ID`).
pub(crate) mod section {
    pub(crate) const STRING: u8 = 0;
    pub(crate) const DIALECT: u8 = 1;
    pub(crate) const ATTR_TYPE: u8 = 2;
    pub(crate) const ATTR_TYPE_OFFSET: u8 = 3;
    pub(crate) const IR: u8 = 4;
    pub(crate) const RESOURCE: u8 = 5;
    pub(crate) const RESOURCE_OFFSET: u8 = 6;
    pub(crate) const DIALECT_VERSION: u8 = 7;
    pub(crate) const PROPERTIES: u8 = 8;
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self, what: &'static str) -> Result<u8, BytecodeError> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or(BytecodeError::Truncated(what))?;
        self.pos += 1;
        Ok(b)
    }

    fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], BytecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.data.len())
            .ok_or(BytecodeError::Truncated(what))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    /// MLIR's prefix varint: the count of trailing zero bits of the first
    /// byte is the count of bytes that follow; a first byte of 0 means 8 more.
    fn varint(&mut self, what: &'static str) -> Result<u64, BytecodeError> {
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

    fn usize(&mut self, what: &'static str) -> Result<usize, BytecodeError> {
        usize::try_from(self.varint(what)?).map_err(|_| BytecodeError::Malformed(what))
    }

    /// One section: id byte (high bit: aligned), length, alignment padding.
    fn section(&mut self) -> Result<(u8, &'a [u8]), BytecodeError> {
        let id_and_aligned = self.byte("section id")?;
        let len = self.usize("section length")?;
        if id_and_aligned & 0x80 != 0 {
            let align = self.usize("section alignment")?;
            if align == 0 || !align.is_power_of_two() {
                return Err(BytecodeError::Malformed("section alignment"));
            }
            while !self.pos.is_multiple_of(align) {
                if self.byte("section padding")? != 0xCB {
                    return Err(BytecodeError::Malformed("section padding"));
                }
            }
        }
        Ok((id_and_aligned & 0x7f, self.bytes(len, "section contents")?))
    }
}

/// Reads the header and the dialect section of `data`; every section's
/// bounds are checked, so a truncated file is reported here.
pub fn summarize(data: &[u8]) -> Result<Summary, BytecodeError> {
    if !data.starts_with(MAGIC) {
        return Err(BytecodeError::NoMagic);
    }
    let mut r = Reader { data, pos: 4 };
    let version = r.varint("version")?;
    let rest = &data[r.pos..];
    let nul = rest
        .iter()
        .position(|&b| b == 0)
        .ok_or(BytecodeError::Truncated("producer"))?;
    let producer = String::from_utf8_lossy(&rest[..nul]).into_owned();
    r.pos += nul + 1;
    let (mut strings, mut dialect) = (None, None);
    while r.pos < data.len() {
        let (id, contents) = r.section()?;
        match id {
            section::STRING => strings = Some(contents),
            section::DIALECT => dialect = Some(contents),
            _ => {}
        }
    }
    let strings = read_strings(strings.ok_or(BytecodeError::Malformed("no string section"))?)?;
    let dialects = read_dialects(
        dialect.ok_or(BytecodeError::Malformed("no dialect section"))?,
        &strings,
    )?;
    Ok(Summary {
        version,
        producer,
        dialects,
    })
}

/// The string section: a count, the sizes (in reverse order, each counting
/// the trailing NUL), then the characters.
fn read_strings(section: &[u8]) -> Result<Vec<String>, BytecodeError> {
    let mut r = Reader {
        data: section,
        pos: 0,
    };
    let count = r.usize("string count")?;
    let mut sizes = Vec::with_capacity(count.min(section.len()));
    for _ in 0..count {
        sizes.push(r.usize("string size")?);
    }
    sizes.reverse();
    sizes
        .into_iter()
        .map(|size| {
            let raw = r.bytes(size, "string data")?;
            let text = raw
                .split_last()
                .ok_or(BytecodeError::Malformed("empty string entry"))?
                .1;
            Ok(String::from_utf8_lossy(text).into_owned())
        })
        .collect()
}

/// A dialect's name and, when the bytecode records one, its version entry.
type DialectEntry = (String, Option<Vec<u8>>);

/// The dialect section's leading dialect list: a count, then per dialect its
/// name's string index (shifted left, low bit: has a version entry) and,
/// when flagged, the version as a nested section.
fn read_dialects(section: &[u8], strings: &[String]) -> Result<Vec<DialectEntry>, BytecodeError> {
    let mut r = Reader {
        data: section,
        pos: 0,
    };
    let count = r.usize("dialect count")?;
    let mut dialects = Vec::with_capacity(count.min(section.len()));
    for _ in 0..count {
        let entry = r.usize("dialect name")?;
        let name = strings
            .get(entry >> 1)
            .ok_or(BytecodeError::Malformed("dialect name index"))?
            .clone();
        let version = if entry & 1 == 1 {
            Some(r.section()?.1.to_vec())
        } else {
            None
        };
        dialects.push((name, version));
    }
    Ok(dialects)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytecode of an empty module with one versioned dialect, laid out by
    /// hand the way MLIR's writer does (strings, then the dialect section).
    fn sample() -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        v.push((6 << 1) | 1);
        v.extend_from_slice(b"MLIR22.0.0git\0");
        // string section: 2 strings "aicode", "x" (sizes reversed, with NULs)
        let strings = [
            &[(2 << 1) | 1, (2 << 1) | 1, (7 << 1) | 1][..],
            b"aicode\0x\0",
        ]
        .concat();
        v.push(section::STRING);
        v.push(((strings.len() as u8) << 1) | 1);
        v.extend_from_slice(&strings);
        // dialect section: count 1; name index 0 flagged "has version"
        // (0 << 1 | 1 = 1); the version section: id 7, 1 byte, 0x05.
        // Each varint v is written as (v << 1) | 1.
        let dialect = [3, 3, 7, 3, 5];
        v.push(section::DIALECT);
        v.push(((dialect.len() as u8) << 1) | 1);
        v.extend_from_slice(&dialect);
        v
    }

    #[test]
    fn reads_header_and_versioned_dialects() {
        let s = summarize(&sample()).unwrap();
        assert_eq!(s.version, 6);
        assert_eq!(s.producer, "MLIR22.0.0git");
        assert_eq!(s.dialects, vec![("aicode".to_string(), Some(vec![5]))]);
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let full = sample();
        for len in 0..full.len() {
            assert!(summarize(&full[..len]).is_err(), "prefix of {len} bytes");
        }
    }

    #[test]
    fn multi_byte_varints_decode() {
        // 300 = 0b100101100: two bytes, first byte's low bit 0 then 1.
        let enc = ((300u16 << 2) | 0b10).to_le_bytes();
        let mut r = Reader { data: &enc, pos: 0 };
        assert_eq!(r.varint("x").unwrap(), 300);
    }
}

pub mod reader;
pub mod writer;
