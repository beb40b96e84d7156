//! No code: the dependencies in `Cargo.toml` unify the features of crates shared by the
//! workspace's members, so that the binary, the examples and the tests share one build of
//! nalgebra and the engine.
