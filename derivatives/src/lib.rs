//! Derivatives of moreau dynamics.
//!
//! - [`quat`]: analytic Jacobians of quaternion difference and integration in tangent
//!   coordinates (`mjd_subQuat`, `mjd_quatIntegrate`).
//! - [`fd`]: finite-difference transition and inverse-dynamics Jacobians (`mjd_transitionFD`,
//!   `mjd_inverseFD`).
//! - [`dual`]: exact Jacobians by forward-mode dual numbers (the reference).
//! - [`inverse`]: analytic inverse-dynamics derivatives (`∂/∂qacc`, `∂/∂qvel`, `∂/∂qpos`).
//! - [`rnea`]: analytic `∂/∂q` of the RNE, `M`, joint springs, gravcomp (Carpentier-Mansard).
//! - [`cpos`]: analytic `∂(Jᵀ f)/∂q` of the constraint force (contact geometry by duals on
//!   the pair's collider, limits, friction loss, simple equalities).
//! - [`pos`]: `∂/∂q` of `qfrc_inverse` and the forward residual (analytic + restricted duals).
//! - [`contact`]: forward dynamics and transition Jacobians through soft contact by the implicit
//!   function theorem at the constraint solution.
//! - [`qderiv_pos`]: `∂(qDeriv a)/∂q` of the implicitfast step (moment arms, tendon Jacobians).
//! - [`fluid`]: the exact fluid-force velocity derivative and the `∂qDeriv/∂(q, v)` of its
//!   implicitfast block.
//! - [`stepmat`]: the step matrix `He` of Euler/implicit/implicitfast as the step builds it and
//!   `∂(He a)/∂x` by restricted dual passes along the directions that move `He` (polynomial
//!   damping, velocity gains), free bodies' gyroscopic blocks in closed form.
//! - [`rk4`]: the RK4 step's transition Jacobians (chain rule over the four stages).
//! - [`sensor`]: the transition's sensor Jacobians `C`, `D` from the IFT `∂qacc`.

pub mod contact;
pub mod cpos;
pub mod dual;
pub mod fd;
pub mod fluid;
pub mod inverse;
pub mod pos;
pub mod qderiv_pos;
pub mod quat;
pub mod rk4;
pub mod rnea;
pub mod sensor;
pub mod stepmat;
