//! The pipeline's stages, for the crates built on the engine.
//!
//! [`crate::forward`], [`crate::step`] and [`crate::inverse`] run the whole pipeline. The
//! derivatives, the optimizers, the command line and the papers' solvers also run single stages,
//! re-run part of the pipeline on perturbed or dual-number data, or read the constraint problem;
//! everything they use from inside the engine is here, and nothing else of the engine's internals
//! is public. Each item is MuJoCo's function of the same stage (named in its documentation), on
//! a [`Data`](crate::Data) of any [`Scalar`](crate::Scalar).
//!
//! In pipeline order:
//!
//! - **Position** (`mj_fwdPosition`): [`kinematics`], [`camlight`], [`com_pos`], [`tendon`],
//!   [`crb`], [`factor_m`], [`transmission`], [`collision`] (with the geoms' parameter mixing
//!   [`geom_mix`], [`mix_friction_solref`]), [`make_constraint`]; or all of them by [`fwd_position`].
//! - **Velocity** (`mj_fwdVelocity`): [`com_vel`], [`tendon_velocity`], [`actuator_velocity`],
//!   [`passive`], [`rne_bias`]; or all of them by [`fwd_velocity`]. [`reference_constraint`]
//!   sets the constraint rows' reference acceleration.
//! - **Acceleration**: [`fwd_actuation`], [`fwd_acceleration`], the constraint solver
//!   [`solve`], [`fwd_constraint`]; [`forward_skip`] runs forward from a given stage ([`Skip`]).
//! - **Integration**: [`step_skip`], [`euler_skip`], [`integrate`], [`advance_act`],
//!   [`act_step`].
//! - **Inverse dynamics**: [`inverse_skip`], [`inv_constraint`], [`discrete_acc`].
//! - **Sensors**: [`sensor_pos`], [`sensor_vel`], [`sensor_acc`] and the sensor tables.
//! - **Velocity derivatives** of the smooth forces (`mjd_smooth_vel`): [`smooth_vel`] and its
//!   parts.
//! - **Checks** of the state (`mj_checkPos`, `mj_checkVel`, `mj_checkAcc`).
//! - **Algebra** the derivatives share with the engine: spatial vectors, the tree-sparse inertia
//!   layout, quaternions.
//! - **Ray casting** per geom (`mj_ray`'s parts): [`ray_eligible`], [`ray_geom`] and the
//!   local tests [`ray_primitive_local`], [`ray_mesh`], [`ray_hfield`].
//! - **Model constants** of the compiler: [`slider_body`] (MuJoCo's `body_simple = 2`).
//! - What the engine does not support yet ([`forward_unsupported`], [`inverse_unsupported`]).

pub use crate::math::sc;

// ------------------------------------------------------------ position
pub use crate::actuation::transmission;
pub use crate::collision::{
    collide_geoms, collision, differentiable, geom_mix, mix_friction_solref, pair_limit,
    CollisionScratch, GeomMix,
};
pub use crate::constraint::assemble::{contact_nrow, make_constraint};
pub use crate::constraint::sparse::is_sparse;
pub use crate::forward::fwd_position;
pub use crate::math::pivot::{Clamped, PIVOT_MIN};
pub use crate::smooth::com::com_pos;
pub use crate::smooth::crb::{crb, factor_ld, factor_m, solve_ld};
pub use crate::smooth::kinematics::{camlight, kinematics};
pub use crate::smooth::tendon::{is_fixed, tendon};

// ------------------------------------------------------------ velocity
pub use crate::actuation::{actuator_velocity, is_bad, MAXVAL};
pub use crate::constraint::assemble::reference_constraint;
pub use crate::forward::fwd_velocity;
pub use crate::passive::fluid::{
    body_uses_ellipsoid, ellipsoid_wrench, fluid, fluid_deriv, fluid_deriv_with,
    geom_fluid_compile, inertia_box_wrench, local_vel, FluidScalar,
};
pub use crate::passive::passive;
pub use crate::smooth::com::com_vel;
pub use crate::smooth::rne::{contact_force, rne, rne_bias, rne_post_constraint};
pub use crate::smooth::tendon::tendon_velocity;

// ------------------------------------------------------------ acceleration, constraint solver
pub use crate::actuation::{bad_ctrl, fwd_actuation};
pub use crate::constraint::cost::{efc_jar, evaluate, Rows};
pub use crate::constraint::params::{compute as constraint_params, compute_b};
pub use crate::data::CONE_H;
pub use crate::forward::{forward_skip, fwd_acceleration, fwd_constraint, Skip};
pub use crate::solver::{keep_for_skips, solve, solve_main, solve_skip};

// ------------------------------------------------------------ integration
pub use crate::integrator::{act_step, advance_act, euler_skip, gyro_blocks, integrate, step_skip};

// ------------------------------------------------------------ inverse dynamics
pub use crate::inverse::{
    compare_fwd_inv, damping_slope, discrete_acc, euler_damped, inv_constraint, inverse_skip,
};

// ------------------------------------------------------------ energy (option flag `energy`)
pub use crate::energy::{energy_pos, energy_stage_pos, energy_vel};

// ------------------------------------------------------------ sensors
pub use crate::sensor::{
    sensor_acc, sensor_datatype, sensor_dim, sensor_needstage, sensor_pos, sensor_stage, sensor_vel,
};

// ------------------------------------------------------------ velocity derivatives
pub use crate::derivative::{
    actfrc_clamped, actuator_force_dvel, d_actuator_vel, d_passive_vel, d_rne_vel, d_rne_vel_with,
    d_tendon_actfrc_vel, dof_damping_deriv, full_d, smooth_vel,
};
pub use crate::integrator::{lu_factor_d, lu_solve_d};

// ------------------------------------------------------------ checks
pub use crate::check::{check_acc, check_pos, check_vel};

// ------------------------------------------------------------ algebra
pub use crate::math::dense::chol_factor_fast;
pub use crate::math::quat::{
    dexpinv, mjd_quat_integrate, mjd_sub_quat, normalize_quat, quat_exp, quat_integrate, quat_log,
    quat_mul, quat_normalize, quat_sub, so3_jr, so3_jr_inv, sub_quat,
};
pub use crate::math::spatial::{
    ang, body_last_dof, cross_force, cross_motion, dof_parent, inert_mul, join, lin,
};
pub use crate::smooth::jacobian::apply_ft;

// ------------------------------------------------------------ ray casting
pub use crate::ray::{ray_eligible, ray_geom, ray_hfield, ray_mesh, ray_primitive_local};

// ------------------------------------------------------------ model constants
pub use crate::simple::slider_body;

// ------------------------------------------------------------ support
pub use crate::forward::unsupported as forward_unsupported;
pub use crate::inverse::unsupported as inverse_unsupported;

// ------------------------------------------------------------ timing
pub use crate::clock::thread_cpu_us;
