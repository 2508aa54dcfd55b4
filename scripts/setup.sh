#!/usr/bin/env bash
# Installs what the project needs and is missing, idempotently:
#   1. Debian packages: LLVM/MLIR 22, clang-22, CMake, Ninja (as root, or sudo);
#   2. the project venv .venv from requirements.txt (test tools and oracles);
#   3. the Rust build (cargo build --workspace); with --tests (test.sh) also
#      the Rust test binaries (--all-targets), so `cargo test` only runs them.
# Each step is skipped when already satisfied. Run by demo.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '==> %s\n' "$*" >&2; }

APT_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 libclang-22-dev
  libpolly-22-dev libzstd-dev zlib1g-dev cmake ninja-build
  # test/e2e/test_asset.py traces the files coreai-compile creates.
  strace
)

# A fresh set-up writes ~6 GB of venv (PyTorch's wheels, plus as much again
# unpacking them) and ~6 GB of debug build; a full disk would otherwise fail
# halfway, inside pip or the linker, with a far less clear message.
need_gb=2
[ -x .venv/bin/python ] || need_gb=$((need_gb + 10))
[ -d target/debug ] || need_gb=$((need_gb + 7))
free_gb=$(df -Pk . | awk 'NR == 2 { print int($4 / 1048576) }')
if [ "$free_gb" -lt "$need_gb" ]; then
  printf 'error: %s has %s GB free; set-up needs about %s GB (venv and build)\n' \
    "$PWD" "$free_gb" "$need_gb" >&2
  exit 1
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "setting up the Python venv (.venv) from requirements.txt"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -r requirements.txt
  echo "$want" > "$stamp"
fi

if ! command -v cargo >/dev/null 2>&1 && [ -f "$HOME/.cargo/env" ]; then
  # shellcheck disable=SC1091
  . "$HOME/.cargo/env"
fi
if [ "${1:-}" = "--tests" ]; then
  # Binaries, examples (custom_op, custom_op_kernel: the e2e tests run
  # them) and the test binaries, in one cargo invocation.
  log "building (cargo build --workspace --all-targets)"
  cargo build --workspace --all-targets --quiet
else
  log "building (cargo build --workspace)"
  cargo build --workspace --quiet
  cargo build --workspace --examples --quiet
fi
