#!/usr/bin/env python3
"""Replays fuzz artifacts one by one under gdb and says where each died, so
that a fault in our code is not filed with MLIR's own (see
docs/fuzzing.md).

    fuzz/triage.py TARGET ARTIFACT... [--timeout SECONDS]

TARGET is a fuzz target binary (fuzz/target/x86_64-unknown-linux-gnu/
release/parse_bytecode); it runs each ARTIFACT once (`-runs=1`) under
`gdb -batch`, which stops at the first fatal signal (SIGSEGV, SIGABRT,
SIGFPE, SIGILL, SIGBUS) and prints the stack. The deciding frame is the
innermost one that is not the failure's mechanism (libc's abort and raise,
LLVM's fatal-error and SmallVector growth, operator new, the C++ runtime):
`upstream` when it is MLIR's, LLVM's or the C++ library's (`mlir::`,
`llvm::`, `std::`, and the anonymous-namespace classes of MLIR's parsers
and bytecode reader), or a C++ exception that
dialects/capi/Exceptions.cpp stopped, `OURS` otherwise (the project's dialects and Rust code,
and any function gdb names without a namespace: check those by hand). One
line per artifact (`CLASS SIGNAL FRAME  ARTIFACT`), then the count per
class and frame. A run still going after SECONDS / 2 + 1 (default 30) is
stopped there (libFuzzer's `-timeout` alarm, signal SIGALRM) and sorted by
where it was, the same way: a hang or a slow input. `no-fault` is an
artifact that ran to the end alone (its fault needs heap state from
earlier inputs), `timeout` one gdb could not stop. Exit status 1 when any artifact is `OURS`.
A copy of TARGET without debug info (objcopy --strip-debug, kept in the
temporary directory) makes gdb start in a second.
"""

import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

FATAL = ("SIGSEGV", "SIGABRT", "SIGFPE", "SIGILL", "SIGBUS")
MECHANISM = re.compile(
    r"^(__pthread_kill|pthread_kill|raise|abort|__GI_|__libc_|__restore_rt|_int_|tcache_|malloc|free|cfree|"
    r"operator new|operator delete|__cxa_|__gxx_|std::terminate|std::__terminate|__cxxabiv1::|"
    r"std::__throw|__gnu_cxx::|llvm::report_fatal_error|llvm::report_bad_alloc_error|"
    r"llvm::SmallVectorBase|llvm::SmallVectorTemplate|llvm::SmallVectorImpl|llvm::safe_|"
    r"llvm::sys::|\(anonymous namespace\)::SignalHandler|__memmove|__memcpy|__memset|__memcmp|memcpy|memmove|memset|memcmp|bcmp|"
    r"fuzzer::|__sanitizer|report_size_overflow|report_at_maximum_capacity)"
)
UPSTREAM = re.compile(r"^(mlir::|llvm::|std::|\(anonymous namespace\)::(OperationVerifier|OperationParser|"
                      r"EncodingReader|AttrTypeReader|BytecodeReader|CustomOpAsmParser|TopLevelOperationParser|"
                      r"BuiltinDialectBytecodeInterface|DialectReader|BytecodeDialect|PropertiesSectionReader|ResourceSectionReader))")
# Where dialects/capi/Exceptions.cpp stops a C++ exception thrown inside
# MLIR's reader (the thrower's frames are gone by then).
CAUGHT = "coreaiAbortOnCxxException"
# The function of a stack line; gdb prints a template's return type first
# (`llvm::LogicalResult mlir::...<T>(...)`), which is dropped.
FRAME = re.compile(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(?:llvm::LogicalResult |llvm::FailureOr<\S+> )?(.+?) \(")


def stripped(target, tmp):
    copy = os.path.join(tmp, os.path.basename(target))
    if subprocess.run(["objcopy", "--strip-debug", target, copy]).returncode != 0:
        shutil.copy(target, copy)
    return copy


def triage(binary, artifact, timeout):
    """(class, signal, deciding frame) of one artifact."""
    # libFuzzer's `-timeout` timer is a SIGALRM every timeout/2 + 1 s: gdb
    # stops at the first, so a run still going then shows where it is.
    cmd = ["gdb", "-batch", "-nx", "-ex", "handle SIGPIPE SIGUSR1 SIGUSR2 nostop noprint pass",
           "-ex", "handle SIGALRM stop print", "-ex", "run", "-ex", "bt 40",
           "--args", binary, "-runs=1", "-rss_limit_mb=4096", f"-timeout={timeout}", artifact]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                             timeout=2 * timeout + 60).stdout
    except subprocess.TimeoutExpired:
        return "timeout", "-", "-"
    signal = next((s for s in (*FATAL, "SIGALRM") if f"received signal {s}" in out), None)
    if signal is None:
        return "no-fault", "-", "-"
    frames = [m.group(1) for line in out.splitlines() if (m := FRAME.match(line))]
    deciding = next((f for f in frames if not MECHANISM.match(f)), frames[0] if frames else "?")
    if deciding.startswith(CAUGHT):
        return "upstream", signal, f"a C++ exception inside MLIR ({CAUGHT})"
    return ("upstream" if UPSTREAM.match(deciding) else "OURS"), signal, deciding


def main(argv):
    timeout = 30
    if "--timeout" in argv:
        i = argv.index("--timeout")
        timeout = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    target, artifacts = argv[0], argv[1:]
    counts = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        binary = stripped(target, tmp)
        for artifact in artifacts:
            cls, signal, frame = triage(binary, artifact, timeout)
            short = frame[:100]
            print(f"{cls:9s} {signal:7s} {short}  {artifact}", flush=True)
            counts[(cls, short)] += 1
    print()
    for (cls, frame), n in sorted(counts.items(), key=lambda kv: (kv[0][0] != "OURS", -kv[1])):
        print(f"{n:5d}  {cls:9s} {frame}")
    return 1 if any(cls == "OURS" for cls, _ in counts) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
