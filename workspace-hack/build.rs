// A build script makes cargo resolve this crate's build-dependencies, which unify the features
// of the crates the members' proc-macros and build scripts compile.
fn main() {}
