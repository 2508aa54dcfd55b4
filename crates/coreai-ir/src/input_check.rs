//! Checks a module file before MLIR's readers see it.
//!
//! MLIR 22's readers trust parts of their input: a text file that ends
//! inside a string literal makes the lexer run past the buffer (a crash when
//! the file is mapped, as coreai-opt and coreai-run map it), a `dense_resource`
//! blob whose alignment header is 0 aborts with "LLVM ERROR: out of memory",
//! and bytecode counts and sizes are used to size allocations before they are
//! checked against the file (an abort in SmallVector growth or `bad_alloc`).
//! Both tools call [`check_module_file`] on the bytes they are about to parse.
//!
//! Guarantee: `Ok` means none of the faults below is present, not that the
//! file parses; `Err` is one diagnostic with a location (`FILE:LINE:COL` for
//! text, `FILE: byte N` for bytecode). Checked:
//! - text: no string literal runs into the end of the file; brackets nest at
//!   most [`MAX_NESTING`] deep (MLIR's parser recurses per level); every hex
//!   blob in the `{-# ... #-}` metadata has a power-of-two alignment header
//!   of at most [`MAX_ALIGNMENT`]; no dense array has `index` elements
//!   (`array<index: 1>`, directly or through a type alias: MLIR 22's
//!   `Parser::parseDenseArrayAttr` asks an `index` type for its bit width
//!   and crashes, where other non-int, non-float types are an error);
//! - bytecode: the header (magic, version, terminated producer); every
//!   section's id is known and appears once, its alignment is a power of two
//!   of at most [`MAX_ALIGNMENT`], its padding is MLIR's, and its length fits
//!   in the file; the string table's count and sizes fit in its section and
//!   every string is UTF-8 (names, symbols and string attributes all live
//!   there); the attribute/type, dialect and properties counts fit in their
//!   sections, each attribute/type group's entry count fits in what its
//!   count declares and the entries' sizes in the attribute/type section;
//!   every resource's size fits in the resource section, and each blob's
//!   alignment and size are sane.
//!
//! Not checked (left to MLIR and to the tools' crash handler): the IR section
//! itself and dialect-specific attribute and type encodings.

use std::fmt;

/// The largest alignment a resource blob or a section may ask for. Writers
/// use the element type's alignment (1 to 16 bytes); a larger request is a
/// corrupt header, and MLIR would allocate a buffer aligned to it.
pub const MAX_ALIGNMENT: u64 = 1 << 16;

const BYTECODE_MAGIC: &[u8] = b"ML\xefR";
/// Section ids of MLIR 22's bytecode (`mlir/Bytecode/Encoding.h`).
const NUM_SECTIONS: u8 = 9;
const SECTION_STRING: u8 = 0;
const SECTION_DIALECT: u8 = 1;
const SECTION_ATTR_TYPE: u8 = 2;
const SECTION_ATTR_TYPE_OFFSET: u8 = 3;
const SECTION_RESOURCE: u8 = 5;
const SECTION_RESOURCE_OFFSET: u8 = 6;
const SECTION_PROPERTIES: u8 = 8;
const ALIGNMENT_BYTE: u8 = 0xCB;
/// `AsmResourceEntryKind::Blob`.
const RESOURCE_BLOB: u8 = 0;

/// One fault, at a place in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// `FILE:LINE:COL` or `FILE: byte N`.
    pub location: String,
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.location, self.message)
    }
}

impl std::error::Error for InputError {}

/// Checks `bytes`, the whole content of the file `name`, as bytecode when it
/// starts with MLIR's magic number and as text otherwise.
pub fn check_module_file(bytes: &[u8], name: &str) -> Result<(), InputError> {
    if bytes.starts_with(BYTECODE_MAGIC) {
        check_bytecode(bytes).map_err(|(offset, message)| InputError {
            location: format!("{name}: byte {offset}"),
            message: format!("malformed bytecode: {message}"),
        })
    } else {
        check_text(bytes).map_err(|(offset, message)| {
            let (line, column) = line_column(bytes, offset);
            InputError {
                location: format!("{name}:{line}:{column}"),
                message,
            }
        })
    }
}

/// 1-based line and byte column of `offset`, as MLIR counts them.
fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    (line, offset - start + 1)
}

type Fault = (usize, String);

/// How deep brackets may nest in text. MLIR's parser recurses once per
/// level (a few hundred bytes of stack each) and overflows the stack at tens
/// of thousands; models nest a few dozen deep.
pub const MAX_NESTING: usize = 1000;

/// Scans the text as MLIR's lexer does for comments and strings.
fn check_text(bytes: &[u8]) -> Result<(), Fault> {
    let mut i = 0;
    let mut in_metadata = false;
    let mut depth = 0usize;
    let mut aliases = None;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes[i..].starts_with(b"{-#") => {
                in_metadata = true;
                i += 3;
            }
            b'<' if keyword_before(bytes, i) == b"array" => {
                let aliases = aliases.get_or_insert_with(|| type_aliases(bytes));
                if dense_array_of_index(&bytes[i + 1..], aliases) {
                    return Err((
                        i + 1,
                        "a dense array of 'index' elements: MLIR 22's parser crashes on it \
                         (Parser::parseDenseArrayAttr); use i64"
                            .into(),
                    ));
                }
                depth += 1;
                i += 1;
            }
            b'(' | b'[' | b'{' | b'<' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err((
                        i,
                        format!("brackets nest more than {MAX_NESTING} deep here"),
                    ));
                }
                i += 1;
            }
            b')' | b']' | b'}' | b'>' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .map_or(bytes.len(), |p| i + p);
            }
            b'"' => {
                let end = string_end(bytes, i)?;
                if in_metadata && bytes[i + 1..].starts_with(b"0x") {
                    check_hex_blob(&bytes[i + 3..end], i + 3)?;
                }
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-')
}

/// The bare identifier (not a `!type` or `#attribute` name) that ends
/// right before `at`.
fn keyword_before(bytes: &[u8], at: usize) -> &[u8] {
    let start = bytes[..at]
        .iter()
        .rposition(|&b| !is_identifier_byte(b))
        .map_or(0, |p| p + 1);
    if start > 0 && matches!(bytes[start - 1], b'!' | b'#') {
        return &[];
    }
    &bytes[start..at]
}

/// The leading identifier of `bytes` after blanks, with a `!` kept.
fn leading_type_name(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let rest = &bytes[start..];
    let bang = usize::from(rest.first() == Some(&b'!'));
    let len = rest[bang..]
        .iter()
        .position(|&b| !is_identifier_byte(b))
        .unwrap_or(rest.len() - bang);
    &rest[..bang + len]
}

/// The type aliases of the text (`!name = type` at the start of a line):
/// each name (with its `!`) and the leading name of its type.
fn type_aliases(bytes: &[u8]) -> Vec<(&[u8], &[u8])> {
    // The lines found with memchr, not a byte loop: a model's weights are
    // megabytes of hex on a few lines.
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len()));
    ends.map(|end| {
        let line = &bytes[start..end];
        start = end + 1;
        line
    })
    .filter_map(|line| {
        let name = leading_type_name(line);
        if name.len() < 2 || name[0] != b'!' {
            return None;
        }
        let at = line.iter().position(|&b| b == b'!')? + name.len();
        let rest = line[at..].trim_ascii_start().strip_prefix(b"=")?;
        Some((name, leading_type_name(rest)))
    })
    .collect()
}

/// Whether the dense array whose element type starts `bytes` (after
/// `array<`) has `index` elements, written so or through aliases.
fn dense_array_of_index(bytes: &[u8], aliases: &[(&[u8], &[u8])]) -> bool {
    let mut name = leading_type_name(bytes);
    for _ in 0..=aliases.len() {
        if name == b"index" {
            return true;
        }
        match aliases.iter().find(|(alias, _)| *alias == name) {
            Some((_, target)) => name = target,
            None => return false,
        }
    }
    false
}

/// The offset of the byte that ends the string literal opening at `start`
/// (its closing quote, or the line break MLIR reports as an error).
fn string_end(bytes: &[u8], start: usize) -> Result<usize, Fault> {
    // memchr, not a byte loop: a model's weights are megabytes of hex
    // inside string literals, and this check runs before every parse.
    let mut i = start + 1;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let Some(j) = memchr::memchr3(b'"', b'\\', b'\n', rest) else {
            break;
        };
        if let Some(k) = memchr::memchr2(b'\x0b', b'\x0c', &rest[..j]) {
            return Ok(i + k);
        }
        match rest[j] {
            b'\\' => i += j + 2,
            _ => return Ok(i + j),
        }
    }
    if let Some(k) = bytes
        .get(i..)
        .and_then(|r| memchr::memchr2(b'\x0b', b'\x0c', r))
    {
        return Ok(i + k);
    }
    Err((
        start,
        "the file ends inside this string literal (a truncated file?)".to_string(),
    ))
}

/// A `dense_resource` blob: `0x` then hex, the first 4 bytes the alignment
/// (little-endian). Non-hex text is left to MLIR, which reports it.
fn check_hex_blob(hex: &[u8], offset: usize) -> Result<(), Fault> {
    let Some(header) = hex.get(..8) else {
        return Ok(());
    };
    let Some(alignment) = std::str::from_utf8(header)
        .ok()
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .map(|a| u64::from(a.swap_bytes()))
    else {
        return Ok(());
    };
    check_alignment(alignment).map_err(|m| (offset, format!("resource blob {m}")))
}

fn check_alignment(alignment: u64) -> Result<(), String> {
    if !alignment.is_power_of_two() || alignment > MAX_ALIGNMENT {
        return Err(format!(
            "alignment {alignment} is not a power of two between 1 and {MAX_ALIGNMENT}"
        ));
    }
    Ok(())
}

/// A cursor over bytecode; offsets in faults are the file's.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], start: usize, end: usize) -> Self {
        Reader {
            bytes,
            pos: start,
            end,
        }
    }

    fn remaining(&self) -> usize {
        self.end - self.pos
    }

    fn fault(&self, message: impl Into<String>) -> Fault {
        (self.pos, message.into())
    }

    fn byte(&mut self, what: &str) -> Result<u8, Fault> {
        if self.pos >= self.end {
            return Err(self.fault(format!("the data ends before {what}")));
        }
        self.pos += 1;
        Ok(self.bytes[self.pos - 1])
    }

    /// MLIR's PrefixVarInt: the first byte's trailing zeros count the extra
    /// bytes (8 when it is 0).
    fn varint(&mut self, what: &str) -> Result<u64, Fault> {
        let first = self.byte(what)?;
        let extra = if first == 0 {
            8
        } else {
            first.trailing_zeros() as usize
        };
        if self.remaining() < extra {
            return Err(self.fault(format!("the data ends inside {what}")));
        }
        let mut value = 0u64;
        for (k, &b) in self.bytes[self.pos..self.pos + extra].iter().enumerate() {
            value |= u64::from(b) << (8 * k);
        }
        self.pos += extra;
        Ok(if first == 0 {
            value
        } else {
            ((value << 8) | u64::from(first)) >> (extra + 1)
        })
    }

    /// A count of items that take at least `min_size` bytes each here.
    fn count(&mut self, what: &str, min_size: usize) -> Result<u64, Fault> {
        let at = self.pos;
        let n = self.varint(what)?;
        if n.saturating_mul(min_size as u64) > self.remaining() as u64 {
            return Err((
                at,
                format!(
                    "{what} is {n}, more than the {} bytes left could hold",
                    self.remaining()
                ),
            ));
        }
        Ok(n)
    }
}

/// A section's data range in the file.
#[derive(Clone, Copy)]
struct Section {
    start: usize,
    end: usize,
}

fn check_bytecode(bytes: &[u8]) -> Result<(), Fault> {
    let mut r = Reader::new(bytes, BYTECODE_MAGIC.len(), bytes.len());
    let version = r.varint("the version")?;
    let Some(nul) = bytes[r.pos..].iter().position(|&b| b == 0) else {
        return Err(r.fault("the producer string is not terminated"));
    };
    r.pos += nul + 1;
    let mut sections: [Option<Section>; NUM_SECTIONS as usize] = [None; NUM_SECTIONS as usize];
    while r.remaining() > 0 {
        let at = r.pos;
        let id_and_aligned = r.byte("a section id")?;
        let id = id_and_aligned & 0x7f;
        if id >= NUM_SECTIONS {
            return Err((at, format!("unknown section id {id}")));
        }
        if sections[id as usize].is_some() {
            return Err((at, format!("section {id} appears twice")));
        }
        let length = r.varint("a section length")?;
        if id_and_aligned & 0x80 != 0 {
            let alignment = r.varint("a section alignment")?;
            check_alignment(alignment).map_err(|m| r.fault(format!("section {id}: {m}")))?;
            while !r.pos.is_multiple_of(alignment as usize) {
                if r.byte("section padding")? != ALIGNMENT_BYTE {
                    return Err((r.pos - 1, "expected alignment byte 0xCB".into()));
                }
            }
        }
        if length > r.remaining() as u64 {
            return Err((
                at,
                format!(
                    "section {id} claims {length} bytes, but only {} remain in the file",
                    r.remaining()
                ),
            ));
        }
        let start = r.pos;
        r.pos += length as usize;
        sections[id as usize] = Some(Section { start, end: r.pos });
    }
    let num_strings = match sections[SECTION_STRING as usize] {
        Some(s) => check_strings(bytes, s)?,
        None => 0,
    };
    if let Some(s) = sections[SECTION_DIALECT as usize] {
        check_dialects(bytes, s, version)?;
    }
    if let Some(s) = sections[SECTION_ATTR_TYPE_OFFSET as usize] {
        let data = sections[SECTION_ATTR_TYPE as usize].map_or(0, |d| d.end - d.start);
        check_attr_type_offsets(bytes, s, data as u64)?;
    }
    if let Some(s) = sections[SECTION_PROPERTIES as usize] {
        Reader::new(bytes, s.start, s.end).count("the number of properties", 1)?;
    }
    if let (Some(offsets), Some(resources)) = (
        sections[SECTION_RESOURCE_OFFSET as usize],
        sections[SECTION_RESOURCE as usize],
    ) {
        check_resources(bytes, offsets, resources, num_strings)?;
    }
    Ok(())
}

/// The attribute/type offset section: the numbers of attributes and of
/// types, then, for the attributes and then the types, groups of a dialect
/// index, an entry count and that many entry sizes (each `size << 1 |
/// custom`). MLIR 22's `AttrTypeReader::initialize` sizes its tables by the
/// two numbers and fills them group by group without checking a group's
/// count against the room left: a count past the end wrote beyond the
/// table (a heap overflow, found by the `parse_bytecode` fuzz target under
/// valgrind). Also checked: the entries fit in the attribute/type section
/// (`data` bytes; MLIR adds the sizes without an overflow check).
fn check_attr_type_offsets(bytes: &[u8], s: Section, data: u64) -> Result<(), Fault> {
    let mut r = Reader::new(bytes, s.start, s.end);
    let attrs = r.count("the number of attributes", 1)?;
    let types = r.count("the number of types", 1)?;
    if attrs + types > r.remaining() as u64 {
        return Err(r.fault(format!(
            "{attrs} attributes and {types} types need more offsets than the section holds"
        )));
    }
    let mut offset = 0u64;
    for (what, total) in [("attribute", attrs), ("type", types)] {
        let mut read = 0u64;
        while read < total {
            r.varint("a dialect index")?;
            let at = r.pos;
            let entries = r.varint("an entry count")?;
            if entries > total - read {
                return Err((
                    at,
                    format!(
                        "a group of {entries} {what} entries overruns the {total} {what}s the section declares ({read} read)"
                    ),
                ));
            }
            for _ in 0..entries {
                let at = r.pos;
                let size = r.varint("an entry size")? >> 1;
                offset = offset.saturating_add(size);
                if offset > data {
                    return Err((
                        at,
                        format!("{what} entries need {offset} bytes, more than the {data} of the attribute/type section"),
                    ));
                }
            }
            read += entries;
        }
    }
    Ok(())
}

/// The dialect section: the dialects (a name index with a flag, then,
/// with the flag, the dialect's version as a nested section), then, from
/// version 4 on, the number of operation names MLIR reserves room for
/// before reading them (a count beyond the section aborted upstream in
/// `BytecodeReader::Impl::parseDialectSection`, "SmallVector unable to
/// grow"; found by the `parse_bytecode` fuzz target).
fn check_dialects(bytes: &[u8], s: Section, version: u64) -> Result<(), Fault> {
    let mut r = Reader::new(bytes, s.start, s.end);
    let dialects = r.count("the number of dialects", 1)?;
    for _ in 0..dialects {
        let name = r.varint("a dialect name")?;
        if version >= 1 && name & 1 != 0 {
            let at = r.pos;
            let id = r.byte("a dialect version section")?;
            let length = r.varint("a dialect version length")?;
            if id & 0x80 != 0 {
                let alignment = r.varint("a dialect version alignment")?;
                check_alignment(alignment).map_err(|m| r.fault(m))?;
                while !r.pos.is_multiple_of(alignment as usize) {
                    r.byte("dialect version padding")?;
                }
            }
            if length > r.remaining() as u64 {
                return Err((
                    at,
                    format!(
                        "a dialect version claims {length} bytes, but only {} remain in the section",
                        r.remaining()
                    ),
                ));
            }
            r.pos += length as usize;
        }
    }
    if version >= 4 {
        r.count("the number of operation names", 1)?;
    }
    Ok(())
}

/// The string table: a count, the sizes in reverse order, then the strings
/// (each with a trailing NUL) packed from the end of the section backwards.
fn check_strings(bytes: &[u8], s: Section) -> Result<u64, Fault> {
    let mut r = Reader::new(bytes, s.start, s.end);
    let n = r.count("the number of strings", 2)?;
    let mut data_end = s.end;
    for k in (0..n).rev() {
        let at = r.pos;
        let size = r.varint("a string size")? as usize;
        if size == 0 || size > data_end.saturating_sub(r.pos) {
            return Err((at, format!("string #{k} has an impossible size {size}")));
        }
        let string = &bytes[data_end - size..data_end - 1];
        if let Err(e) = std::str::from_utf8(string) {
            return Err((
                data_end - size + e.valid_up_to(),
                format!("string #{k} (a name, symbol or string attribute) is not UTF-8"),
            ));
        }
        data_end -= size;
    }
    Ok(n)
}

/// The resource offset section lists every resource's size and kind; the
/// resource section holds them in that order.
fn check_resources(
    bytes: &[u8],
    offsets: Section,
    resources: Section,
    num_strings: u64,
) -> Result<(), Fault> {
    let mut r = Reader::new(bytes, offsets.start, offsets.end);
    let external = r.count("the number of external resource groups", 2)?;
    let mut entries: Vec<(u64, u8)> = Vec::new();
    let mut group = 0u64;
    while r.remaining() > 0 {
        let at = r.pos;
        let key = r.varint("a resource group key")?;
        if group < external && key >= num_strings {
            return Err((at, format!("resource group key {key} is not a string")));
        }
        group += 1;
        let n = r.count("the number of resources", 3)?;
        for _ in 0..n {
            let at = r.pos;
            if r.varint("a resource key")? >= num_strings {
                return Err((at, "a resource key is not a string".into()));
            }
            let size = r.varint("a resource size")?;
            let kind = r.byte("a resource kind")?;
            if kind > 2 {
                return Err((r.pos - 1, format!("unknown resource kind {kind}")));
            }
            entries.push((size, kind));
        }
    }
    let mut start = resources.start;
    for (size, kind) in entries {
        if size > (resources.end - start) as u64 {
            return Err((
                start,
                format!(
                    "a resource of {size} bytes is larger than what is left of the resource section ({} bytes)",
                    resources.end - start
                ),
            ));
        }
        let end = start + size as usize;
        if kind == RESOURCE_BLOB {
            let mut blob = Reader::new(bytes, start, end);
            let alignment = blob.varint("a blob alignment")?;
            check_alignment(alignment).map_err(|m| blob.fault(format!("resource blob {m}")))?;
            let at = blob.pos;
            let blob_size = blob.varint("a blob size")?;
            if blob_size > blob.remaining() as u64 {
                return Err((
                    at,
                    format!(
                        "resource blob of {blob_size} bytes is larger than its entry ({} bytes)",
                        blob.remaining()
                    ),
                ));
            }
        }
        start = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check_text, string_end};

    /// The definition `string_end` implements with memchr: the first
    /// unescaped quote or line break (`\n`, `\v`, `\f`) after the opening
    /// quote.
    fn by_bytes(bytes: &[u8], start: usize) -> Option<usize> {
        let mut i = start + 1;
        while i < bytes.len() {
            match bytes[i] {
                b'"' | b'\n' | b'\x0b' | b'\x0c' => return Some(i),
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
        None
    }

    #[test]
    fn dense_arrays_of_index_are_refused_other_arrays_are_not() {
        let refused: &[&[u8]] = &[
            b"\"t.op\"() {a = array<index: 1, 1>} : () -> ()",
            b"\"t.op\"() {a = array< index>} : () -> ()",
            b"!t = index\n!u = !t\n\"t.op\"() {a = array<!u: 1>} : () -> ()",
        ];
        for text in refused {
            let e = check_text(text).unwrap_err();
            assert!(e.1.contains("dense array of 'index'"), "{e:?}");
        }
        let kept: &[&[u8]] = &[
            b"\"t.op\"() {a = array<i64: 1, 1>, b = array<f32>} : () -> ()",
            b"!t = i32\n\"t.op\"() {a = array<!t: 1>} : () -> ()",
            b"// array<index: 1>\n\"t.op\"() {s = \"array<index: 1>\"} : () -> ()",
            b"\"t.op\"() : () -> (tensor<4xindex>, !my.array<index>, !array<index>)",
        ];
        for text in kept {
            assert!(
                check_text(text).is_ok(),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn string_end_agrees_with_the_byte_loop() {
        let cases: &[&[u8]] = &[
            b"\"abc\" x",
            b"\"a\\\"b\" x",
            b"\"a\\\\\" x",
            b"\"a\\",
            b"\"a\\\x0b\x0c\"",
            b"\"0x0400\x0b\"",
            b"\"ab\ncd\"",
            b"\"unterminated",
            b"\"a\\\nb\"",
            b"\"",
            b"\"\\\x0b",
        ];
        for bytes in cases {
            assert_eq!(string_end(bytes, 0).ok(), by_bytes(bytes, 0), "{bytes:?}");
        }
        // Every prefix of a string with escapes, quotes and breaks.
        let long = b"\"x\\\"y\\\\z\x0c\"\\\n\"";
        for n in 1..=long.len() {
            assert_eq!(
                string_end(&long[..n], 0).ok(),
                by_bytes(&long[..n], 0),
                "{n}"
            );
        }
    }
}
