//! Writing and reading assets on disk: the three files, the replacement
//! rules, and one error per kind of damage.

use coreai_asset::{bytecode, write, Asset, AssetError, Metadata};
use std::path::{Path, PathBuf};

/// A fresh directory under the target dir for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("asset-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Minimal bytecode version 6 with a `builtin` dialect entry: the header
/// and the two sections the reader checks.
fn program() -> Vec<u8> {
    let mut v = bytecode::MAGIC.to_vec();
    v.push((6 << 1) | 1);
    v.extend_from_slice(b"MLIR22.0.0git\0");
    v.extend_from_slice(&[0, (10 << 1) | 1, 3, (8 << 1) | 1]);
    v.extend_from_slice(b"builtin\0");
    v.extend_from_slice(&[1, (2 << 1) | 1, 3, 1]);
    v
}

fn metadata() -> Metadata {
    let mut m = Metadata::new("coreai 0.1.0");
    m.set("author", "Ann");
    m
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn writes_the_three_files_and_reads_them_back() {
    let dir = scratch("roundtrip");
    let path = dir.join("m.aimodel");
    write(&path, &program(), &metadata()).unwrap();
    assert_eq!(files(&path), ["main.hash", "main.mlirb", "metadata.json"]);
    assert_eq!(files(&dir), ["m.aimodel"], "no staging directory left");
    let asset = Asset::open(&path).unwrap();
    assert_eq!(asset.program, program());
    assert_eq!(asset.metadata, metadata());
    assert_eq!(asset.bytecode.dialects, [("builtin".to_string(), None)]);
    let hash = std::fs::read(path.join("main.hash")).unwrap();
    assert_eq!(hash, coreai_asset::digest(&program()).to_vec());
}

#[test]
fn replaces_an_asset_but_nothing_else() {
    let dir = scratch("replace");
    let path = dir.join("m.aimodel");
    write(&path, &program(), &metadata()).unwrap();
    let mut newer = metadata();
    newer.set("author", "Bob");
    write(&path, &program(), &newer).unwrap();
    assert_eq!(
        Asset::open(&path).unwrap().metadata.author.as_deref(),
        Some("Bob")
    );
    assert_eq!(files(&dir), ["m.aimodel"]);

    let file = dir.join("f.aimodel");
    std::fs::write(&file, b"keep me").unwrap();
    let err = write(&file, &program(), &metadata()).unwrap_err();
    assert!(matches!(err, AssetError::NotAnAsset(_)), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"keep me");

    let other = dir.join("photos.aimodel.d");
    let err = write(&other, &program(), &metadata()).unwrap_err();
    assert!(matches!(err, AssetError::Extension(_)), "{err}");
    assert!(!other.exists());
}

#[test]
fn a_failed_write_leaves_the_old_asset_and_no_staging() {
    let dir = scratch("failed");
    let path = dir.join("m.aimodel");
    write(&path, &program(), &metadata()).unwrap();
    // A directory where the parent should be: the write cannot start.
    let err = write(&dir.join("missing/m.aimodel"), &program(), &metadata()).unwrap_err();
    assert!(matches!(err, AssetError::Io { .. }), "{err}");
    assert_eq!(files(&dir), ["m.aimodel"]);
    assert!(Asset::open(&path).is_ok());
}

#[test]
fn damage_is_one_error_naming_it() {
    let dir = scratch("damage");
    let path = dir.join("m.aimodel");
    let fresh = || write(&path, &program(), &metadata()).unwrap();

    fresh();
    let mut bytes = program();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(path.join("main.mlirb"), &bytes).unwrap();
    assert!(matches!(
        Asset::open(&path),
        Err(AssetError::HashMismatch(_))
    ));

    fresh();
    std::fs::write(path.join("main.hash"), b"short").unwrap();
    assert!(matches!(Asset::open(&path), Err(AssetError::HashSize(_))));

    fresh();
    std::fs::write(path.join("metadata.json"), b"{").unwrap();
    let err = Asset::open(&path).unwrap_err();
    assert!(matches!(err, AssetError::Metadata { .. }), "{err}");
    assert!(err.to_string().contains("metadata.json"), "{err}");

    fresh();
    std::fs::remove_file(path.join("main.mlirb")).unwrap();
    assert!(matches!(Asset::open(&path), Err(AssetError::Io { .. })));

    // Truncated bytecode with a matching hash: the header check catches it.
    fresh();
    let cut = &program()[..20];
    std::fs::write(path.join("main.mlirb"), cut).unwrap();
    std::fs::write(path.join("main.hash"), coreai_asset::digest(cut)).unwrap();
    let err = Asset::open(&path).unwrap_err();
    assert!(matches!(err, AssetError::Bytecode { .. }), "{err}");

    let not_dir = dir.join("x.aimodel");
    std::fs::write(&not_dir, b"").unwrap();
    assert!(matches!(
        Asset::open(&not_dir),
        Err(AssetError::NotADirectory(_))
    ));
}

#[test]
fn reads_coreai_cores_versioned_serialization_and_names_a_damaged_one() {
    let dir = scratch("aicode");
    let path = dir.join("m.aimodel");
    // The header and dialect section coreai-core writes (one dialect,
    // `aicode`, with a version entry) and nothing else: the asset opens, its
    // program is aicode, and reading it back is one error.
    let mut v = bytecode::MAGIC.to_vec();
    v.push((6 << 1) | 1);
    v.extend_from_slice(b"MLIR22.0.0git\0");
    v.extend_from_slice(&[0, (9 << 1) | 1, 3, (7 << 1) | 1]);
    v.extend_from_slice(b"aicode\0");
    v.extend_from_slice(&[1, (5 << 1) | 1, 3, 3, 7, 3, 5]);
    write(&path, &v, &metadata()).unwrap();
    assert!(Asset::open(&path).is_ok());
    let err = coreai_asset::program_file(&path).unwrap_err();
    assert!(matches!(err, AssetError::Aicode { .. }), "{err}");
    assert!(err.to_string().contains("main.mlirb"), "{err}");
}
