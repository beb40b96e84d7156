//! Nonlinear conjugate gradient on the reduced primal problem with M⁻¹ preconditioning and the
//! Polak–Ribière+ formula (seed 000, "Algorithms"); line search and stopping are shared with
//! Newton (`primal.rs`).

use super::{dense, SolverScratch};
use crate::data::Scalar;

/// New direction from `s.grad` (current) and `s.grad_old`, `s.Mgrad_old` (previous):
/// `Mgrad = M⁻¹ g`, `beta = max(0, gᵀ(M⁻¹g - M⁻¹g_old) / g_oldᵀM⁻¹g_old)`,
/// `search = -Mgrad + beta search`.
pub fn direction<T: Scalar>(nv: usize, s: &mut SolverScratch<T>) {
    s.Mgrad.copy_from_slice(&s.grad);
    dense::chol_solve(&s.Mchol, nv, &mut s.Mgrad);
    let mut num = T::zero();
    for i in 0..nv {
        num += s.grad[i] * (s.Mgrad[i] - s.Mgrad_old[i]);
    }
    let den = dense::dot(&s.grad_old, &s.Mgrad_old).max(nalgebra::convert(1e-15));
    let beta = (num / den).max(T::zero());
    for i in 0..nv {
        s.search[i] = -s.Mgrad[i] + beta * s.search[i];
    }
}
