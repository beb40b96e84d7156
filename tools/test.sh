#!/usr/bin/env bash
# The project's test command (README.md): every crate's tests. Each part states what it needs; a
# missing input is a failure with a message, never a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

# Rust: the engine, derivatives, optimizers, command line and the papers' crates.
cargo test --workspace --all-features
