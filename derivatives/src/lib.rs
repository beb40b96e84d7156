//! Derivatives of moreau dynamics.
//!
//! **Entry points**, one per kind, each with an options struct: [`transition()`] (the step's
//! `A`, `B`, `C`, `D`, as MuJoCo's `mjd_transitionFD`) and [`inverse()`] (inverse dynamics'
//! `DfDq`, ..., as `mjd_inverseFD`), by finite differences or analytically ([`Method`]); a
//! [`Workspace`] reuses the buffers across calls; [`Support`] says what the analytic path covers
//! and, if not, why.
//!
//! Files are named by what they differentiate:
//! - [`transition`](mod@transition): the step's Jacobians through soft contact by the implicit function theorem
//!   at the constraint solution (Euler, implicit, implicitfast); [`transition_rk4`]: the RK4
//!   step's (chain rule over the four stages); [`forward`]: `∂qacc/∂x` of forward dynamics, the
//!   core of both; `integrate`: the integration `q ⊕ h v` and `act'`.
//! - [`inverse`](mod@inverse): inverse dynamics' `∂/∂qacc`, `∂/∂qvel`, `∂/∂qpos`; [`inverse_pos`]: its
//!   `∂/∂q` (analytic + restricted duals).
//! - [`rne`]: `∂/∂q` of the RNE, `M`, joint springs, gravcomp (Carpentier-Mansard);
//!   [`smooth_vel_pos`]: `∂(qDeriv a)/∂q` of the implicitfast step.
//! - [`constraint`]: the constraint force's `H = −∂efc_force/∂jar`; [`constraint_pos`]:
//!   `∂(Jᵀ f)/∂q` of the constraint force (contact geometry by duals on the pair's collider,
//!   limits, friction loss, simple equalities).
//! - `noslip`: `∂qacc/∂x` through the noslip post-pass (the implicit function theorem at its
//!   converged friction forces, chained with the main solve's).
//! - [`fluid`]: the fluid force's velocity derivative and its implicitfast block's `∂/∂(q, v)`.
//! - [`step_matrix`]: the step matrix `He` of Euler/implicit/implicitfast and `∂(He a)/∂x`.
//! - [`sensor`]: the sensor Jacobians `C`, `D` from the IFT `∂qacc`.
//! - [`quat`]: quaternion difference and integration Jacobians (`mjd_subQuat`,
//!   `mjd_quatIntegrate`).
//! - [`fd`]: finite differences (`mjd_transitionFD`, `mjd_inverseFD`); [`dual`]: exact
//!   Jacobians by forward-mode dual numbers (the reference).
//! - [`threads`]: the thread pool of the finite-difference columns
//!   ([`fd::FdWorkspace::transition_on`]), shared with `moreau_optim`'s batch API and
//!   optimizers;
//! - [`support`]: what the analytic paths cover; `work`: the analytic paths' shared workspace
//!   (plain buffers, depending on no other module of the crate); `rows`: row-block linear
//!   algebra over many right-hand sides.

pub mod constraint;
pub mod constraint_pos;
pub mod dual;
pub mod fd;
pub mod fluid;
pub mod forward;
mod integrate;
pub mod inverse;
pub mod inverse_pos;
mod jacobians;
mod noslip;
pub mod quat;
pub mod rne;
mod rows;
pub mod sensor;
pub mod smooth_vel_pos;
pub mod step_matrix;
pub mod support;
pub mod threads;
pub mod transition;
pub mod transition_rk4;
mod work;

pub use fd::{FdWorkspace, InverseJacobians, TransitionJacobians};
pub use jacobians::{
    inverse, transition, Error, InverseOptions, Method, TransitionOptions, Workspace,
};
pub use support::Support;
pub use work::{ConstraintWork, Work};
