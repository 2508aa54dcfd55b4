//! Link settings of the coreai-opt executable.
//!
//! Release builds link the C++ runtime statically. Loading libstdc++.so
//! means resolving its ~4,300 symbol relocations at every start: 18% of the
//! instructions of converting a small transformer block. mlir-sys asks for
//! `-lstdc++`; a search directory holding only `libstdc++.a` answers it
//! with the archive. Debug builds (tests) keep the shared library.

use std::{env, path::PathBuf, process::Command};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PROFILE");
    if env::var("PROFILE").as_deref() != Ok("release") {
        return;
    }
    let cxx = env::var("CXX").unwrap_or_else(|_| "c++".into());
    let archive = Command::new(&cxx)
        .arg("-print-file-name=libstdc++.a")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        .filter(|path| path.is_absolute() && path.exists());
    let Some(archive) = archive else {
        println!("cargo:warning=no static libstdc++ ({cxx} -print-file-name=libstdc++.a); linking the shared one");
        return;
    };
    let dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("static-cxx");
    std::fs::create_dir_all(&dir).expect("create OUT_DIR/static-cxx");
    let link = dir.join("libstdc++.a");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&archive, &link).expect("link libstdc++.a into OUT_DIR");
    println!("cargo:rustc-link-search=native={}", dir.display());
}
