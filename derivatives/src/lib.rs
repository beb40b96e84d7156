//! Derivatives of moreau dynamics.
//!
//! - [`quat`]: analytic Jacobians of quaternion difference and integration in tangent
//!   coordinates (`mjd_subQuat`, `mjd_quatIntegrate`).
//! - [`fd`]: finite-difference transition and inverse-dynamics Jacobians (`mjd_transitionFD`,
//!   `mjd_inverseFD`).
//! - [`dual`]: exact Jacobians by forward-mode dual numbers (the reference).
//! - [`inverse`]: analytic inverse-dynamics derivatives (`∂/∂qacc`, `∂/∂qvel`, `∂/∂qpos`).
//! - [`rne`]: analytic `∂/∂q` of the RNE, `M`, joint springs, gravcomp (Carpentier-Mansard).
//! - [`constraint_pos`]: analytic `∂(Jᵀ f)/∂q` of the constraint force (contact geometry by duals on
//!   the pair's collider, limits, friction loss, simple equalities).
//! - [`inverse_pos`]: `∂/∂q` of `qfrc_inverse` and the forward residual (analytic + restricted duals).
//! - [`transition`]: forward dynamics and transition Jacobians through soft contact by the implicit
//!   function theorem at the constraint solution.
//! - [`smooth_vel_pos`]: `∂(qDeriv a)/∂q` of the implicitfast step (moment arms, tendon Jacobians).
//! - [`fluid`]: the exact fluid-force velocity derivative and the `∂qDeriv/∂(q, v)` of its
//!   implicitfast block.
//! - [`step_matrix`]: the step matrix `He` of Euler/implicit/implicitfast as the step builds it and
//!   `∂(He a)/∂x` by restricted dual passes along the directions that move `He` (polynomial
//!   damping, velocity gains), free bodies' gyroscopic blocks in closed form.
//! - [`transition_rk4`]: the RK4 step's transition Jacobians (chain rule over the four stages).
//! - [`sensor`]: the transition's sensor Jacobians `C`, `D` from the IFT `∂qacc`.

pub mod constraint_pos;
pub mod dual;
pub mod fd;
pub mod fluid;
pub mod inverse;
pub mod inverse_pos;
pub mod quat;
pub mod rne;
pub mod sensor;
pub mod smooth_vel_pos;
pub mod step_matrix;
pub mod transition;
pub mod transition_rk4;
