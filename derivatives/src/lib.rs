//! Derivatives of moreau dynamics.
//!
//! - [`quat`]: analytic Jacobians of quaternion difference and integration in tangent
//!   coordinates (`mjd_subQuat`, `mjd_quatIntegrate`).
//! - [`fd`]: finite-difference transition and inverse-dynamics Jacobians (`mjd_transitionFD`,
//!   `mjd_inverseFD`).

pub mod fd;
pub mod quat;
