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

/// Errors of the Gauss–Newton/Newton gradient `g` and banded matrix `H` of
/// [`Collocation::normal_equations`] at `z` against central differences (step `eps` in the
/// tangent coordinates) of the objective and of `g`.
pub struct NewtonErrors {
    /// `max_j |g_fd − g| / (1 + |g|)`.
    pub grad_rel: f64,
    /// `max_j |g_fd − g|` and `max_j |g|`.
    pub grad: f64,
    pub grad_max: f64,
    /// `max_ij |H_fd − H|` and `max_ij |H_fd|`.
    pub hess: f64,
    pub hess_max: f64,
}

/// [`NewtonErrors`] of `c` at `z`.
pub fn newton_errors(c: &Collocation, z: &[f64], eps: f64) -> NewtonErrors {
    use moreau_optim::band::BandMatrix;
    let n = c.n_vars();
    let grad_hess = |z: &[f64]| {
        let (ev, blocks) = c.jacobian(z);
        let mut h = BandMatrix::zeros(n, 3 * c.model.nv - 1);
        let mut g = vec![0.0; n];
        c.normal_equations(&ev, &blocks, &mut h, &mut g);
        (g, h)
    };
    let (g, h) = grad_hess(z);
    let mut dir = vec![0.0; n];
    let mut e = NewtonErrors {
        grad_rel: 0.0,
        grad: 0.0,
        grad_max: 0.0,
        hess: 0.0,
        hess_max: 0.0,
    };
    for j in 0..n {
        dir[j] = eps;
        let zp = c.retract(z, &dir, 1.0);
        let zm = c.retract(z, &dir, -1.0);
        dir[j] = 0.0;
        let fd = (c.objective(&zp) - c.objective(&zm)) / (2.0 * eps);
        e.grad_rel = e.grad_rel.max((fd - g[j]).abs() / (1.0 + g[j].abs()));
        e.grad = e.grad.max((fd - g[j]).abs());
        e.grad_max = e.grad_max.max(g[j].abs());
        let (gp, _) = grad_hess(&zp);
        let (gm, _) = grad_hess(&zm);
        for i in 0..n {
            let fdh = (gp[i] - gm[i]) / (2.0 * eps);
            e.hess = e.hess.max((fdh - h.get(i, j)).abs());
            e.hess_max = e.hess_max.max(fdh.abs());
        }
    }
    e
}
