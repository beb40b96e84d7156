//! Trajectory optimization, MPC and system identification on moreau.
//!
//! - [`ilqr`]: iterative LQR on the engine's step (a discrete system, [`system`]), with control
//!   limits by a projected-Newton box QP in the backward pass;
//! - [`collocation`] + [`lm`]: direct collocation through inverse dynamics, solved by a
//!   block-banded Gauss–Newton/Levenberg–Marquardt argmin solver or argmin's L-BFGS; model
//!   parameters as extra decision variables (bordered normal equations), and [`estimation`]:
//!   trajectory and parameters from noisy positions by collocation;
//! - [`mpc`]: receding-horizon iLQR (transition FD Jacobians on moreau models, actuator
//!   `ctrlrange` as the box), and
//!   [`sampling`]: predictive sampling (parallel rollouts), its baseline;
//! - [`sysid`]: system identification (inertial parameters and damping by least squares on
//!   inverse dynamics, joint friction loss by Levenberg–Marquardt on inverse dynamics, contact
//!   parameters by Nelder–Mead on simulation error);
//! - [`batch`]: many simulations at once on a thread pool (`Batch`, `rollout`: MuJoCo's
//!   `mujoco.batch` and `mujoco.rollout`), with per-simulation models and batched Jacobians;
//! - [`threads`]: the one thread pool mechanism of the batch API and the optimizers (sampling's
//!   rollouts, iLQR's per-knot Jacobians, the rollout fit's columns), bit-identical at any
//!   thread count;
//! - [`statecost`]: a diagonal tangent-space cost shared by the iLQR and sampling planners;
//! - [`progress`]: indicatif progress bars (an argmin observer) and summary tables;
//! - [`trajectory`]: the trajectory JSON format of `moreau simulate`/`replay` and the examples;
//! - [`zoo`]: the public model zoo's cache (menagerie robots, dm_control), for the examples on
//!   public robots.

pub use argmin;

pub mod band;
pub mod batch;
pub mod collocation;
pub mod estimation;
pub mod ilqr;
pub mod lm;
pub mod mpc;
pub mod progress;
pub mod sampling;
pub mod statecost;
pub mod sysid;
pub mod system;
pub use moreau_derivatives::threads;
pub mod trajectory;
pub mod zoo;
