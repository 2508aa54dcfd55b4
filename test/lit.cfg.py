# lit configuration of the coreai test suite.
#
# Tools come from the project's build (target/debug) and from LLVM 22
# (/usr/lib/llvm-22/bin: FileCheck, not, mlir-opt). scripts/test.sh runs it.

import os

import lit.formats

config.name = "coreai"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".c", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
repo = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(repo, "target", "lit")

llvm_bin = os.environ.get("COREAI_LLVM_BIN", "/usr/lib/llvm-22/bin")
build_dir = os.environ.get("COREAI_BUILD_DIR", os.path.join(repo, "target", "debug"))
config.environment["PATH"] = os.pathsep.join(
    [build_dir, llvm_bin, config.environment.get("PATH", os.environ["PATH"])]
)
for var in ("HOME", "TMPDIR", "COREAI_LOG"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%repo", repo))
config.substitutions.append(("%build", build_dir))

import sys

config.substitutions.append(("%python", sys.executable))

# C embedding tests link libcoreai_capi.a (which carries MLIR) with LLVM's
# static libraries.
import subprocess

llvm_config = os.path.join(llvm_bin, "llvm-config")
llvm_link = subprocess.run(
    [llvm_config, "--link-static", "--ldflags", "--libs", "--system-libs"],
    capture_output=True, text=True, check=True,
).stdout.split()
config.substitutions.append(("%cc", os.environ.get("CC", "cc")))
config.substitutions.append(("%llvm_include", os.path.join(os.path.dirname(llvm_bin), "include")))
config.substitutions.append(("%llvm_link_flags", " ".join(llvm_link + ["-lstdc++", "-lm"])))
