//! Builds the C++ side (the repository's CMakeLists.txt: dialects/ and
//! driver/, via CMake and Ninja) and links it into this crate, the lowest
//! one that calls it.
//!
//! LLVM/MLIR is pinned here, once: `LLVM_MAJOR`. The CMake build checks the
//! same number against the MLIR it finds, and mlir-sys checks it again.

use std::{env, path::PathBuf, process::Command};

/// The repository root, where CMakeLists.txt, dialects/, driver/ and cmake/
/// are, relative to this crate.
const ROOT: &str = "../..";

/// The one LLVM/MLIR major version this project builds against.
const LLVM_MAJOR: u32 = 22;

fn main() {
    let prefix_var = format!("MLIR_SYS_{LLVM_MAJOR}0_PREFIX");
    println!("cargo:rerun-if-env-changed={prefix_var}");
    let prefix = PathBuf::from(
        env::var(&prefix_var).unwrap_or_else(|_| format!("/usr/lib/llvm-{LLVM_MAJOR}")),
    );

    let llvm_config = prefix.join("bin/llvm-config");
    let version = Command::new(&llvm_config)
        .arg("--version")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_else(|| {
            panic!(
                "cannot run {}: install LLVM/MLIR {LLVM_MAJOR} (scripts/setup.sh does) or set {prefix_var}",
                llvm_config.display()
            )
        });
    if !version.starts_with(&format!("{LLVM_MAJOR}.")) {
        panic!(
            "LLVM/MLIR {LLVM_MAJOR}.x required, {} is {version}",
            llvm_config.display()
        );
    }

    let root = PathBuf::from(ROOT);
    for path in ["CMakeLists.txt", "dialects", "driver", "cmake"] {
        println!("cargo:rerun-if-changed={}", root.join(path).display());
    }

    let out = cmake::Config::new(&root)
        .generator("Ninja")
        .profile("Release")
        .define("MLIR_DIR", prefix.join("lib/cmake/mlir"))
        .define("COREAI_LLVM_MAJOR", LLVM_MAJOR.to_string())
        .define("LLVM_ENABLE_ASSERTIONS", "OFF")
        .build_target("coreai-native")
        .build();

    let lib = out.join("build/lib");
    println!("cargo:rustc-link-search=native={}", lib.display());
    for name in [
        "CoreAIDriver",
        "CoreAICAPI",
        "CoreAIAten",
        "CoreAICore",
        "CoreAIX",
    ] {
        println!("cargo:rustc-link-lib=static={name}");
    }
    println!("cargo:include={}", root.join("dialects/include").display());
}
