//! `.aimodel` assets: the directory Apple's Core AI runtime loads.
//!
//! An asset is a directory named `NAME.aimodel` holding `main.mlirb` (the
//! program, MLIR bytecode version 6), `metadata.json` ([`Metadata`]) and
//! `main.hash` (the raw 32-byte SHA-256 of `main.mlirb`), as coreai-core
//! 1.0.0b3's `AIProgram.save_asset` writes it.
//!
//! [`write`] builds the directory next to its target under a temporary name
//! and renames it into place, so a failure never leaves a partial asset nor
//! replaces an existing one. [`Asset::open`] checks the three files (the
//! metadata, the hash, the bytecode header) and gives one error naming the
//! first problem.

pub mod aicode;
pub mod bytecode;
pub mod metadata;
pub mod sink;

pub use metadata::Metadata;
pub use sink::{Produce, Sink};

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

pub const PROGRAM_FILE: &str = "main.mlirb";
pub const HASH_FILE: &str = "main.hash";
pub const METADATA_FILE: &str = "metadata.json";
pub const EXTENSION: &str = "aimodel";

/// An asset problem, naming the path it concerns.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    #[error("'{path}': {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("'{0}': an asset's name must end in .aimodel")]
    Extension(PathBuf),
    #[error("'{0}' exists and is not an .aimodel asset; not replacing it")]
    NotAnAsset(PathBuf),
    #[error("'{0}': not an .aimodel asset (not a directory)")]
    NotADirectory(PathBuf),
    #[error("'{path}': invalid metadata.json: {source}")]
    Metadata {
        path: PathBuf,
        source: metadata::MetadataError,
    },
    #[error("'{0}': main.hash is not 32 bytes")]
    HashSize(PathBuf),
    #[error("'{0}': main.hash does not match main.mlirb (the program was modified or truncated)")]
    HashMismatch(PathBuf),
    #[error("'{path}': {source}")]
    Bytecode {
        path: PathBuf,
        source: bytecode::BytecodeError,
    },
    #[error(
        "'{path}': bytecode version {version}; assets hold version {}",
        bytecode::VERSION
    )]
    BytecodeVersion { path: PathBuf, version: u64 },
    #[error("'{path}': {source}")]
    Aicode {
        path: PathBuf,
        source: aicode::reader::ReadError,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> AssetError + '_ {
    move |source| AssetError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// True when `path` names an asset directory (by name or by contents): what
/// [`write`] may replace and what readers open with [`Asset::open`].
pub fn looks_like_asset(path: &Path) -> bool {
    path.is_dir()
        && (path.extension().is_some_and(|e| e == EXTENSION)
            || path.join(PROGRAM_FILE).exists()
            || path.join(METADATA_FILE).exists())
}

/// SHA-256 of `bytes`, as `main.hash` stores it.
pub fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Writes the asset `target` (`NAME.aimodel`) holding `program` (MLIR
/// bytecode) and `metadata`. An existing asset at `target` is replaced only
/// once the new one is complete; anything else at `target` is an error and
/// is left alone.
pub fn write(target: &Path, program: &[u8], metadata: &Metadata) -> Result<(), AssetError> {
    write_with(target, metadata, |out| out.write_all(program))
}

/// [`write`] with the program streamed: `program` writes `main.mlirb`'s
/// bytes to `out` (hashed as they pass, never held whole in memory; a
/// produced blob is made, written and hashed piece by piece).
pub fn write_with(
    target: &Path,
    metadata: &Metadata,
    program: impl FnOnce(&mut dyn Sink) -> std::io::Result<()>,
) -> Result<(), AssetError> {
    if target.extension().is_none_or(|e| e != EXTENSION) {
        return Err(AssetError::Extension(target.to_path_buf()));
    }
    let exists = std::fs::symlink_metadata(target).is_ok();
    if exists && !looks_like_asset(target) {
        return Err(AssetError::NotAnAsset(target.to_path_buf()));
    }
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    // The program is complete in memory: what is left is a few writes and
    // renames, done with SIGTERM, SIGINT and SIGHUP held back so a run
    // stopped meanwhile ends after it, never with the staging directory
    // left behind.
    let held = hold_termination_signals();
    let result = fill(&staging, program, metadata).and_then(|()| {
        if exists {
            replace(&staging, target, dir, &name)
        } else {
            std::fs::rename(&staging, target).map_err(io(target))
        }
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    release_signals(held);
    result
}

/// Blocks SIGTERM, SIGINT and SIGHUP in this thread; returns the mask to
/// restore.
fn hold_termination_signals() -> libc::sigset_t {
    // SAFETY: sigset_t values initialized by sigemptyset before use.
    unsafe {
        let mut hold: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut hold);
        for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::sigaddset(&mut hold, signal);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &hold, &mut old);
        old
    }
}

/// Restores the mask; a signal held meanwhile is delivered now.
fn release_signals(old: libc::sigset_t) {
    // SAFETY: `old` came from pthread_sigmask.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
}

fn fill(
    staging: &Path,
    program: impl FnOnce(&mut dyn Sink) -> std::io::Result<()>,
    metadata: &Metadata,
) -> Result<(), AssetError> {
    let _ = std::fs::remove_dir_all(staging);
    std::fs::create_dir(staging).map_err(io(staging))?;
    let put = |file: &str, bytes: &[u8]| {
        let path = staging.join(file);
        std::fs::write(&path, bytes).map_err(io(&path))
    };
    let path = staging.join(PROGRAM_FILE);
    let file = std::fs::File::create(&path).map_err(io(&path))?;
    let mut out = HashingWriter::new(std::io::BufWriter::with_capacity(1 << 20, file));
    program(&mut out)
        .and_then(|()| std::io::Write::flush(&mut out))
        .map_err(io(&path))?;
    let hash = out.finish();
    put(METADATA_FILE, &metadata.to_json())?;
    put(HASH_FILE, &hash)
}

/// Writes through to `inner` and hashes what passes on a second thread:
/// the bytes go to it in order, in chunks of [`sink::PIECE_BYTES`] (the
/// pieces of produced blobs as they are made), so SHA-256 runs beside the
/// writes and the making of the blobs, never after them.
struct HashingWriter<W> {
    inner: W,
    /// Bytes written and not yet sent to the hashing thread.
    pending: Vec<u8>,
    to_hash: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
    /// Buffers the hashing thread is done with.
    hashed: std::sync::mpsc::Receiver<Vec<u8>>,
    spare: Vec<Vec<u8>>,
    /// Buffers made so far (at most [`CHUNKS_IN_FLIGHT`] + 1).
    made: usize,
    hashing: Option<std::thread::JoinHandle<Sha256>>,
}

/// Chunks queued for or being hashed at once.
const CHUNKS_IN_FLIGHT: usize = 4;

impl<W: std::io::Write> HashingWriter<W> {
    fn new(inner: W) -> Self {
        let (to_hash, queue) = std::sync::mpsc::sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT);
        let (give_back, hashed) = std::sync::mpsc::channel();
        let hashing = std::thread::spawn(move || {
            let mut hasher = Sha256::new();
            for chunk in queue {
                hasher.update(&chunk);
                // Gone only when the writer is, which ends this loop too.
                let _ = give_back.send(chunk);
            }
            hasher
        });
        Self {
            inner,
            pending: Vec::new(),
            to_hash: Some(to_hash),
            hashed,
            spare: Vec::new(),
            made: 1,
            hashing: Some(hashing),
        }
    }

    /// A buffer for the next chunk: a spare one, a new one while fewer than
    /// [`CHUNKS_IN_FLIGHT`] + 1 exist, else the next one hashed.
    fn buffer(&mut self) -> Vec<u8> {
        self.spare.extend(self.hashed.try_iter());
        if let Some(b) = self.spare.pop() {
            return b;
        }
        if self.made <= CHUNKS_IN_FLIGHT {
            self.made += 1;
            return Vec::with_capacity(sink::PIECE_BYTES);
        }
        self.hashed
            .recv()
            .expect("the hashing thread gives buffers back")
    }

    fn send(&mut self, chunk: Vec<u8>) {
        if !chunk.is_empty() {
            let to_hash = self.to_hash.as_ref().expect("not finished");
            to_hash.send(chunk).expect("the hashing thread is alive");
        }
    }

    /// Sends the pending bytes, to be hashed before what comes next.
    fn send_pending(&mut self) {
        let mut next = self.buffer();
        next.clear();
        let pending = std::mem::replace(&mut self.pending, next);
        self.send(pending);
    }

    /// The SHA-256 of every byte written.
    fn finish(mut self) -> [u8; 32] {
        self.send_pending();
        self.to_hash = None;
        let hashing = self.hashing.take().expect("not finished");
        hashing
            .join()
            .expect("the hashing thread panicked")
            .finalize()
            .into()
    }
}

impl<W> Drop for HashingWriter<W> {
    fn drop(&mut self) {
        self.to_hash = None;
        if let Some(hashing) = self.hashing.take() {
            let _ = hashing.join();
        }
    }
}

impl<W: std::io::Write> std::io::Write for HashingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.inner.write_all(bytes)?;
        let mut rest = bytes;
        while !rest.is_empty() {
            let room = sink::PIECE_BYTES.saturating_sub(self.pending.len()).max(1);
            let (now, later) = rest.split_at(room.min(rest.len()));
            self.pending.extend_from_slice(now);
            rest = later;
            if self.pending.len() >= sink::PIECE_BYTES {
                self.send_pending();
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: std::io::Write> Sink for HashingWriter<W> {
    /// Makes and writes each piece on this thread while the hashing thread
    /// hashes the ones before.
    fn write_produced(&mut self, blob: &dyn Produce) -> std::io::Result<()> {
        self.send_pending();
        for range in blob.pieces(sink::PIECE_BYTES) {
            let n = range.len();
            let mut buffer = self.buffer();
            if buffer.len() < n {
                buffer.resize(n, 0);
            } else {
                buffer.truncate(n);
            }
            blob.fill(range, &mut buffer);
            self.inner.write_all(&buffer)?;
            self.send(buffer);
        }
        Ok(())
    }
}

/// Moves the old asset aside, the new one in, then deletes the old one; if
/// the second rename fails the old asset is put back.
fn replace(staging: &Path, target: &Path, dir: &Path, name: &str) -> Result<(), AssetError> {
    let old = dir.join(format!(".{name}.{}.old", std::process::id()));
    let _ = std::fs::remove_dir_all(&old);
    std::fs::rename(target, &old).map_err(io(target))?;
    if let Err(e) = std::fs::rename(staging, target) {
        let _ = std::fs::rename(&old, target);
        return Err(io(target)(e));
    }
    std::fs::remove_dir_all(&old).map_err(io(&old))
}

/// An asset read and checked.
#[derive(Debug)]
pub struct Asset {
    pub path: PathBuf,
    pub metadata: Metadata,
    pub program: Vec<u8>,
    pub bytecode: bytecode::Summary,
}

impl Asset {
    /// Reads and checks the asset at `path`: `metadata.json` parses with
    /// the required keys, `main.hash` is the SHA-256 of `main.mlirb`, and
    /// `main.mlirb` is bytecode version 6 (the coreai dialect, or aicode,
    /// which [`program_file`] reads back).
    pub fn open(path: &Path) -> Result<Self, AssetError> {
        let meta = std::fs::metadata(path).map_err(io(path))?;
        if !meta.is_dir() {
            return Err(AssetError::NotADirectory(path.to_path_buf()));
        }
        let read = |file: &str| {
            let p = path.join(file);
            std::fs::read(&p).map_err(io(&p))
        };
        let metadata =
            Metadata::parse(&read(METADATA_FILE)?).map_err(|source| AssetError::Metadata {
                path: path.join(METADATA_FILE),
                source,
            })?;
        let program = read(PROGRAM_FILE)?;
        let hash = read(HASH_FILE)?;
        if hash.len() != 32 {
            return Err(AssetError::HashSize(path.to_path_buf()));
        }
        if hash != digest(&program) {
            return Err(AssetError::HashMismatch(path.to_path_buf()));
        }
        let program_path = path.join(PROGRAM_FILE);
        let summary = bytecode::summarize(&program).map_err(|source| AssetError::Bytecode {
            path: program_path.clone(),
            source,
        })?;
        if summary.version != bytecode::VERSION {
            return Err(AssetError::BytecodeVersion {
                path: program_path,
                version: summary.version,
            });
        }
        Ok(Self {
            path: path.to_path_buf(),
            metadata,
            program,
            bytecode: summary,
        })
    }

    pub fn program_path(&self) -> PathBuf {
        self.path.join(PROGRAM_FILE)
    }
}

/// The file MLIR should parse for an input: a path, and a temporary file
/// (removed when this is dropped) holding the coreai IR read back from an
/// aicode program.
#[derive(Debug)]
pub struct ProgramFile {
    path: PathBuf,
    temporary: bool,
}

impl ProgramFile {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl std::ops::Deref for ProgramFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for ProgramFile {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for ProgramFile {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The coreai IR (MLIR text) of the program of `input`, an asset or a
/// bytecode file, when it is in coreai-core's `aicode` serialization;
/// `None` for anything else (coreai bytecode or text, which MLIR reads).
pub fn aicode_program(input: &Path) -> Result<Option<String>, AssetError> {
    let file = if looks_like_asset(input) || input.extension().is_some_and(|e| e == EXTENSION) {
        Asset::open(input)?.program_path()
    } else {
        input.to_path_buf()
    };
    aicode_text(file)
}

fn aicode_text(file: PathBuf) -> Result<Option<String>, AssetError> {
    if !file.is_file() {
        return Ok(None);
    }
    let mut head = [0u8; 4];
    {
        use std::io::Read;
        let mut f = std::fs::File::open(&file).map_err(io(&file))?;
        if f.read_exact(&mut head).is_err() || &head != bytecode::MAGIC {
            return Ok(None);
        }
    }
    let data = std::fs::read(&file).map_err(io(&file))?;
    if !aicode::reader::is_aicode(&data) {
        return Ok(None);
    }
    aicode::reader::to_coreai(&data)
        .map(Some)
        .map_err(|source| AssetError::Aicode { path: file, source })
}

/// The file MLIR should parse for `input`: an asset's checked `main.mlirb`,
/// or `input` itself (text or bytecode; MLIR tells them apart); a program in
/// coreai-core's `aicode` serialization (an asset's or a `.mlirb` file's) is
/// read back into coreai IR ([`aicode::reader`]), written to a temporary
/// file.
pub fn program_file(input: &Path) -> Result<ProgramFile, AssetError> {
    let path = if looks_like_asset(input) || input.extension().is_some_and(|e| e == EXTENSION) {
        Asset::open(input)?.program_path()
    } else {
        input.to_path_buf()
    };
    let Some(text) = aicode_text(path.clone())? else {
        return Ok(ProgramFile {
            path,
            temporary: false,
        });
    };
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = std::env::temp_dir().join(format!("coreai-aicode-{}-{n}.mlir", std::process::id()));
    std::fs::write(&temp, text).map_err(io(&temp))?;
    Ok(ProgramFile {
        path: temp,
        temporary: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn the_hash_is_of_every_byte_in_order_in_chunks_of_any_size() {
        let big: Vec<u8> = (0..3 * sink::PIECE_BYTES + 5)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let mut out = HashingWriter::new(Vec::new());
        out.write_all(b"head").unwrap();
        out.write_all(&big).unwrap();
        out.write_all(&big[..sink::PIECE_BYTES - 1]).unwrap();
        out.write_all(b"tail").unwrap();
        let written = out.inner.clone();
        assert_eq!(written.len(), 8 + big.len() + sink::PIECE_BYTES - 1);
        assert_eq!(out.finish(), digest(&written));
    }

    /// `data` handed out in pieces of `piece` bytes.
    struct Pieces<'a> {
        data: &'a [u8],
        piece: usize,
    }

    impl Produce for Pieces<'_> {
        fn len(&self) -> usize {
            self.data.len()
        }
        fn pieces(&self, _: usize) -> Vec<std::ops::Range<usize>> {
            (0..self.data.len())
                .step_by(self.piece)
                .map(|s| s..(s + self.piece).min(self.data.len()))
                .collect()
        }
        fn fill(&self, range: std::ops::Range<usize>, out: &mut [u8]) {
            out.copy_from_slice(&self.data[range]);
        }
    }

    #[test]
    fn produced_blobs_are_written_and_hashed_in_order_between_other_writes() {
        // More pieces than are in flight, pieces longer than the buffers the
        // pool kept from the blob before, a blob of one piece, an empty one.
        let data: Vec<u8> = (0..5_000_003u32).map(|i| (i * 13 % 253) as u8).collect();
        let mut out = HashingWriter::new(Vec::new());
        let mut want = Vec::new();
        for (i, piece) in [1000, 700_001, 5_000_003, 65_536].into_iter().enumerate() {
            let blob = Pieces {
                data: &data[..data.len() - i * 17],
                piece,
            };
            out.write_all(b"between").unwrap();
            want.extend_from_slice(b"between");
            out.write_produced(&blob).unwrap();
            want.extend_from_slice(blob.data);
        }
        out.write_produced(&Pieces {
            data: &[],
            piece: 1,
        })
        .unwrap();
        out.write_all(b"tail").unwrap();
        want.extend_from_slice(b"tail");
        assert!(out.inner == want, "the bytes differ");
        assert_eq!(out.finish(), digest(&want));
    }
}
