#!/usr/bin/env bash
# Installs the Debian packages zero needs, if any are missing:
#   install-deps.sh        what building and installing zero needs (make run, make install)
#   install-deps.sh --dev  that, plus what the tests, the CI gates and the benchmarks need
#                          (make deps-dev; make test runs it)
# Uses sudo when not root. Safe to run repeatedly: it does nothing when all is present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git python3
  libcurl4-openssl-dev libjansson-dev libssl-dev
  libsqlite3-dev libpcre2-dev
  libseccomp-dev bubblewrap
  libutf8proc-dev libmd4c-dev
)
OPTIONAL=()
if [ "${1:-}" = "--dev" ]; then
  PACKAGES+=(
    libcmocka-dev libvterm-dev tmux
    # The CI gates: libFuzzer (clang's runtime), clang-tidy, clang-format; man
    # reads the generated pages in their test.
    clang libclang-rt-14-dev clang-tidy clang-format man-db
    # e2e/test_lsp and bench/lsp run zero against a real language server
    # (pyright comes from npm on demand: tests/lsp/package.json).
    clangd
    # e2e/test_batch_slurm starts a one-node Slurm cluster (munge auth).
    slurm-wlm munge
  )
  # Wanted by the benchmarks (ripgrep also by the search comparison tests,
  # gnuplot by the performance lab's charts); installed with the rest so one
  # command prepares a machine.
  OPTIONAL=(hyperfine valgrind ripgrep gnuplot-nox)
elif [ -n "${1:-}" ]; then
  echo "usage: install-deps.sh [--dev]" >&2
  exit 2
fi

missing=()
for p in "${PACKAGES[@]}" ${OPTIONAL[@]+"${OPTIONAL[@]}"}; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: missing packages (${missing[*]}) and not root; install them or run as root." >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
