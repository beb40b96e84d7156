//! The engine's integration tests, one test binary with a module per stage or feature (each
//! module's documentation says what it checks and against what). Shared helpers are in
//! [`support`]: the pipeline model builder and tolerances (`common`), the oracle scenes
//! (`oracle_util`), the sensor cases (`sensor_common`) and the counting global allocator of the
//! allocation tests (`alloc_counter`: its counts are per thread, so the other tests running
//! beside them do not show up in their counts).
//!
//! Run one module with a filter: `cargo test --test engine collision_oracle::`.

mod support;
use support::{alloc_counter, common, oracle_util, sensor_common};

// loading and compiling MJCF
mod compile_oracle;
mod contact_sensor;
mod fluid_compile;
mod hostile_mjcf;
mod loader_rollout;
mod mesh_compile;
mod mjcf_source;

// smooth dynamics: kinematics, inertia, bias forces, tendons, actuators, passive forces
mod actuator_damping_oracle;
mod camera_rangefinder_oracle;
mod inverse_oracle;
mod lights;
mod pipeline_generic;
mod pipeline_oracle;
mod rne_post_constraint_oracle;
mod sensor_oracle;
mod tendon_actfrc_oracle;
mod tendon_fluid_oracle;
mod user_fields;

// collision
mod capsule_cross;
mod collision_oracle;
mod contact_oracle;
mod hull_start_oracle;
mod planar_oracle;
mod ray_oracle;
mod texture_oracle;

// constraints and solvers
mod arena_oracle;
mod assembly_oracle;
mod inverse_sleep_oracle;
mod island_independence;
mod island_oracle;
mod noslip_oracle;
mod pgs_oracle;
mod reset_oracle;
mod reset_overflow;
mod sleep_init_oracle;
mod sleep_oracle;
mod solve_skip;
mod solver_counts;
mod solver_oracle;
mod sparse_oracle;

// integrators and state
mod data_clone;
mod determinism;
mod energy;
mod fluid_implicit_oracle;
mod ilqr_free_joint;
mod implicit_sparse;
mod integrator_oracle;
mod properties;
mod state;

// allocation-free stepping and memory (support::alloc_counter)
mod camera_rangefinder_no_alloc;
mod constraint_no_alloc;
mod forward_no_alloc;
mod hfield_no_alloc;
mod scaling;
mod sensor_no_alloc;
mod step_no_alloc;
mod tendon_fluid_no_alloc;

// the public model zoo against MuJoCo
mod zoo;
mod zoo_regressions;
