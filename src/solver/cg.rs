//! Nonlinear conjugate gradient on the reduced primal problem with M⁻¹ preconditioning (Computation
//! "Algorithms"); line search and stopping are shared with Newton (`primal.rs`).
//!
//! The seed text says Polak–Ribière+; MuJoCo 4.0.0 matches the Hager–Zhang formula with its
//! lower truncation instead (checked against the oracle: with exact line searches HZ equals PR
//! until PR+ would clamp a negative beta).

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use crate::data::scratch::{Problem, SolverScratch};
use crate::math::{dense, sc, Scalar};

/// Truncation constant η of Hager–Zhang's `η_k = -1 / (|d| min(η, |g|))`.
const HZ_ETA: f64 = 0.01;

/// New direction of problem `p` (M⁻¹ by its tree factor, `mj_solveM`) from `s.grad`, `s.search` (previous direction) and `s.grad_old`,
/// `s.Mgrad_old`: `Mgrad = M⁻¹g`; with `y = g - g_old`, `Py = M⁻¹y`:
/// `beta = max((Py·g - 2 (y·Py)(d·g)/(d·y)) / (d·y), η_k)`; `search = -Mgrad + beta d`.
pub fn direction<T: Scalar>(p: &Problem<T>, s: &mut SolverScratch<T>) {
    let nv = p.nv;
    s.Mgrad.copy_from_slice(&s.grad);
    p.solve_m(&mut s.Mgrad);
    let z = T::zero();
    let (mut dy, mut ypy, mut pyg, mut dg) = (z, z, z, z);
    for i in 0..nv {
        let y = s.grad[i] - s.grad_old[i];
        let py = s.Mgrad[i] - s.Mgrad_old[i];
        dy += s.search[i] * y;
        ypy += y * py;
        pyg += py * s.grad[i];
        dg += s.search[i] * s.grad[i];
    }
    let dn = dense::dot(&s.search, &s.search).sqrt();
    let gn = dense::dot(&s.grad, &s.grad).sqrt();
    let etak = -T::one() / (dn * gn.min(sc(HZ_ETA)));
    let mut beta = if dy != z {
        (pyg - sc::<T>(2.0) * ypy * dg / dy) / dy
    } else {
        z
    };
    beta = beta.max(etak);
    for i in 0..nv {
        s.search[i] = -s.Mgrad[i] + beta * s.search[i];
    }
}
