//! The optimizers' integration tests, one test binary with a module per problem or solver
//! (each module's documentation says what it checks); shared helpers in `common`.
//! Run one module with a filter: `cargo test -p moreau-optim --test optim sysid::`.

#[path = "../../../tests/engine/support/alloc_counter.rs"]
mod alloc_counter;
mod common;
/// The hopper MPC setup shared with `examples/mpc_hopper.rs` (used by `hopper_mpc`, `mpc_limits`).
#[path = "../../examples/common/hopper_mpc.rs"]
mod hop;

mod analytic_jacobians;
mod batch;
mod collocation;
mod collocation_actuators;
mod collocation_no_alloc;
mod collocation_params;
mod contact_collocation;
mod contact_hop_box;
mod determinism;
mod go1_jump;
mod go1_mpc;
mod hopper_mpc;
mod humanoid_mpc;
mod lbfgs;
mod mpc;
mod mpc_limits;
mod peer_optimum;
mod quadruped_mpc;
mod swingup;
mod sysid;
mod sysid_contact;
mod threads;
mod workspace_reuse;
