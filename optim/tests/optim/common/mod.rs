//! Setup shared by the optimizer tests.

#![allow(dead_code)]

use moreau_optim::argmin::core::{CostFunction, Gradient};
use moreau_optim::collocation::Collocation;
use moreau_optim::lm::TangentObjective;

/// The gradient of [`TangentObjective`] at `zref` (without, then with the banded
/// preconditioner at `μ = 1e-6`) against central differences of its cost at
/// `y_i = 1e-3 cos(0.37 i)`, steps `eps_plain` and 1e-4 (the preconditioned coordinates are
/// scaled by `L`, entries up to ~1e4). Asserts `max |error| < 1e-6 · max(1, max |g|)`: central
/// differences of a cost ~1e6 (whitened residuals) leave round-off ~1e-16·1e6/ε.
pub fn check_tangent_gradient(c: &Collocation, zref: &[f64], eps_plain: f64) {
    let n = c.n_vars();
    for precond in [None, TangentObjective::preconditioner(c, zref, 1e-6)] {
        let has = precond.is_some();
        let obj = TangentObjective {
            c,
            zref: zref.to_vec(),
            precond,
        };
        let y: Vec<f64> = (0..n).map(|i| 1e-3 * ((i as f64) * 0.37).cos()).collect();
        let g = obj.gradient(&y).expect("gradient");
        let eps = if has { 1e-4 } else { eps_plain };
        let (mut err, mut gmax) = (0.0_f64, 0.0_f64);
        for j in 0..n {
            let (mut yp, mut ym) = (y.clone(), y.clone());
            yp[j] += eps;
            ym[j] -= eps;
            let fd = (obj.cost(&yp).unwrap() - obj.cost(&ym).unwrap()) / (2.0 * eps);
            err = err.max((fd - g[j]).abs());
            gmax = gmax.max(g[j].abs());
        }
        eprintln!("preconditioned {has}: gradient error {err:e} of {gmax:e}");
        assert!(
            err < 1e-6 * gmax.max(1.0),
            "gradient error {err:e} of {gmax:e}"
        );
    }
}
