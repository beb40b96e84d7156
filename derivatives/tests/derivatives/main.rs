//! The derivatives' integration tests, one test binary with a module per kind of check (each
//! module's documentation says what it checks and against what); shared helpers in `common`.
//! Run one module with a filter: `cargo test -p moreau-derivatives --test derivatives rnea::`.

#[path = "../../../tests/engine/support/alloc_counter.rs"]
mod alloc_counter;
mod common;

mod analytic;
mod analytic_eq_fluid;
mod capsule_cross;
mod fd_no_alloc;
mod fd_oracle;
mod fd_skip;
mod fd_threads;
mod fuzz_corpus;
mod inverse_discrete;
mod noslip;
mod qderiv_sensor;
mod quat_oracle;
mod rnea;
mod sparse_jacobian;
mod transition_hessian;
mod transition_step_matrix;
mod workspace_reuse;
