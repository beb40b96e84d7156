//! Derivatives of moreau dynamics.
//!
//! - [`quat`]: analytic Jacobians of quaternion difference and integration in tangent
//!   coordinates (`mjd_subQuat`, `mjd_quatIntegrate`).

pub mod quat;
