//! Link settings of the coreai-opt executable.
//!
//! Release builds link the C++ runtime and the unwinder statically. Loading
//! libstdc++.so means resolving its ~4,300 symbol relocations at every
//! start: 14% of the instructions of converting a small transformer block.
//! mlir-sys asks for `-lstdc++`; a search directory holding only
//! `libstdc++.a` answers it with the archive. Debug builds (tests) keep the
//! shared libraries.

use std::{env, path::PathBuf, process::Command};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if env::var("PROFILE").as_deref() != Ok("release") {
        return;
    }
    let cxx = env::var("CXX").unwrap_or_else(|_| "c++".into());
    let find = |name: &str| {
        Command::new(&cxx)
            .arg(format!("-print-file-name={name}"))
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
            .filter(|path| path.is_absolute() && path.exists())
    };
    let (Some(cxx_runtime), Some(unwinder)) = (find("libstdc++.a"), find("libgcc_eh.a")) else {
        println!("cargo:warning=no static libstdc++/libgcc_eh from {cxx}; linking the shared ones");
        return;
    };
    let dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("static-cxx");
    std::fs::create_dir_all(&dir).expect("create OUT_DIR/static-cxx");
    // Rust's standard library asks for `-lgcc_s` (its unwinder); the static
    // unwinder answers it, so that libgcc_s.so, whose start-up probes the CPU
    // with `cpuid` (slow under virtualization), is not loaded either.
    for (name, archive) in [("libstdc++.a", cxx_runtime), ("libgcc_s.a", unwinder)] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&archive, &link).expect("link the archive into OUT_DIR");
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
}
