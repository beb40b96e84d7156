//! The soft-constraint model (Computation "Constraint model"): per-row parameters ([`params`]) and
//! the reduced primal cost s(jar) with its gradient and Hessian ([`cost`]).
//!
//! Rows live in the `efc_*` arrays of [`crate::Data`] in MuJoCo's order: equality, friction loss
//! (dof, tendon), limits (joint, tendon), contacts. Contacts additionally get one entry in
//! `efc_cone` (adr, rows, dim, friction, mu), so the cone math does not depend on collision types.

pub mod assemble;
pub mod cost;
pub mod params;
pub mod sparse;
