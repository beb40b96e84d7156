//! Projected Gauss–Seidel on the dual (seed 000, "Algorithms"). Placeholder, filled below.
use super::SolverScratch;
use crate::data::{Data, Scalar};
use crate::model::Model;

/// PGS solve.
pub(super) fn solve<T: Scalar>(_m: &Model, _d: &mut Data<T>, _s: &mut SolverScratch<T>) {}
