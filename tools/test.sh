#!/usr/bin/env bash
# The project's test command (README.md): every crate's tests. Each part states what it needs; a
# missing input is a failure with a message, never a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

# Rust: the engine, derivatives, optimizers, command line and the papers' crates.
cargo test --workspace --all-features

# Viewer pages (`moreau view`) opened in headless Chromium by tools/viewer/check_pages.mjs:
# needs node, playwright-core (npm ci --prefix tools/viewer) and Debian's chromium; .ci/run
# installs both. Screenshots land in target/viewer-test/.
[ -d tools/viewer/node_modules/playwright-core ] || {
    echo "tools/viewer: playwright-core missing (npm ci --prefix tools/viewer)" >&2
    exit 1
}
cargo build -p moreau-cli
MOREAU_BIN="${CARGO_TARGET_DIR:-target}/debug/moreau" node --test tools/viewer/check_pages.mjs
