//! Builds the C++ side (the repository's CMakeLists.txt: dialects/ and
//! driver/, via CMake and Ninja) and links it into this crate, the lowest
//! one that calls it.
//!
//! LLVM/MLIR is pinned here, once: `LLVM_MAJOR`. The CMake build checks the
//! same number against the MLIR it finds, and mlir-sys checks it again.

use std::{
    env,
    path::{Path, PathBuf},
    process::Command,
};

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

    let tblgen = prefix.join("bin/llvm-tblgen");
    for (dialect, ods) in [
        ("coreai", "coreai/CoreAIOps.td"),
        ("coreaix", "coreaix/CoreAIXOps.td"),
    ] {
        let code = op_names(&tblgen, &root.join("dialects"), &prefix, ods, dialect);
        let out =
            PathBuf::from(env::var("OUT_DIR").unwrap()).join(format!("op_names_{dialect}.rs"));
        std::fs::write(&out, code).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
    }
}

/// The operation names a dialect's ODS defines, as Rust constants
/// (`coreai.reduce_sum` is `REDUCE_SUM`), read from TableGen's own record
/// dump so that a name is exactly what the C++ side registers. With each
/// constant, a test that the typed builder of the same op has that name.
fn op_names(tblgen: &Path, dialects: &Path, prefix: &Path, ods: &str, dialect: &str) -> String {
    let out = Command::new(tblgen)
        .arg("--print-records")
        .arg("-I")
        .arg(dialects)
        .arg("-I")
        .arg(prefix.join("include"))
        .arg(dialects.join(ods))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", tblgen.display()));
    if !out.status.success() {
        panic!(
            "{} --print-records {ods} failed:\n{}",
            tblgen.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let records = String::from_utf8(out.stdout).expect("TableGen records are UTF-8");

    // `def NAME {	// classes` opens a record; an op record has a literal
    // `string opName = "...";` and an `opDialect` naming its dialect record.
    let mut dialect_records = Vec::new();
    let mut ops = Vec::new();
    let (mut def, mut op_name, mut op_dialect) = (String::new(), None, None);
    for line in records.lines() {
        if let Some(rest) = line.strip_prefix("def ") {
            def = rest.split_whitespace().next().unwrap_or("").to_string();
            (op_name, op_dialect) = (None, None);
        } else if let Some(v) = line.trim().strip_prefix("string opName = \"") {
            op_name = v.strip_suffix("\";").map(str::to_string);
        } else if let Some(v) = line.trim().strip_prefix("Dialect opDialect = ") {
            op_dialect = v.strip_suffix(';').map(str::to_string);
        } else if line.trim() == format!("string name = \"{dialect}\";") {
            dialect_records.push(def.clone());
        } else if line == "}" {
            if let (Some(name), Some(d)) = (op_name.take(), op_dialect.take()) {
                ops.push((def.clone(), name, d));
            }
        }
    }
    let mut ops: Vec<_> = ops
        .into_iter()
        .filter(|(_, _, d)| dialect_records.contains(d))
        .collect();
    ops.sort_by(|a, b| a.1.cmp(&b.1));
    if ops.is_empty() {
        panic!("no {dialect} operations found in {ods}");
    }

    let mut code = String::new();
    let mut test = String::new();
    for (def, name, _) in &ops {
        let ident = name.replace('.', "_").to_uppercase();
        code +=
            &format!("/// `{dialect}.{name}`\npub const {ident}: &str = \"{dialect}.{name}\";\n");
        // melior names the typed builder after the record: `CoreAI_AddOp`
        // is `AddOperation`.
        let stem = def.split_once('_').map_or(def.as_str(), |(_, s)| s);
        let stem = stem.strip_suffix("Op").unwrap_or(stem);
        test += &format!(
            "        assert_eq!({ident}, crate::dialects::{dialect}::{stem}Operation::name());\n"
        );
    }
    // Each `decomposable.broadcasting_<op>` and the elementwise `<op>` it is
    // the broadcasting form of.
    code += "\n/// (elementwise op, its `decomposable.broadcasting_` form)\npub const BROADCASTING_FORMS: &[(&str, &str)] = &[\n";
    for (_, name, _) in &ops {
        if let Some(base) = name.strip_prefix("decomposable.broadcasting_") {
            if ops.iter().any(|(_, n, _)| n == base) {
                code += &format!("    (\"{dialect}.{base}\", \"{dialect}.{name}\"),\n");
            }
        }
    }
    code += "];\n";
    code += &format!(
        "\n#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n    fn names_are_the_typed_builders_names() {{\n{test}    }}\n}}\n"
    );
    code
}
