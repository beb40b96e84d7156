#!/usr/bin/env bash
# The project's test command (README): every crate's tests, then the Python package's. Each part
# states what it needs; a missing input is a failure with a message, never a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

# Rust: the engine, derivatives, optimizers, command line, Python bindings' crate and the papers'
# crates.
cargo test --workspace --all-features

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
# PyTorch's CPU-only wheel where its index is reachable (without the default wheel's CUDA
# libraries, about 4 GB installed)
"$venv/bin/python" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu 2>/dev/null \
    || echo "PyTorch's CPU index is not reachable: the default torch wheel comes from PyPI"
"$venv/bin/python" -m pip install -q "./python[test,jax,torch]"
(cd python && "$venv/bin/python" -m pytest -q)
