//! argmin's L-BFGS on the collocation objective: the preconditioned tangent objective's gradient
//! matches central differences of its cost, and preconditioned L-BFGS reaches the Gauss–Newton
//! optimum of the cart-pole swing-up of docs/optimization.md#swing-up.

use moreau_optim::lm::{solve_lbfgs, solve_lm, LbfgsOptions, LevenbergMarquardt};

use crate::common;

fn cartpole(horizon: usize) -> moreau_optim::collocation::Collocation {
    let mut p = moreau_problems::swingup("cartpole").expect("model");
    p.horizon = horizon;
    p.collocation(3.0).expect("problem")
}

#[test]
fn preconditioned_gradient_matches_finite_differences() {
    let c = cartpole(8);
    let n = c.n_vars();
    let z0 = c.initial_guess();
    let x: Vec<f64> = (0..n).map(|i| 0.2 * ((i as f64) * 1.3).sin()).collect();
    let zref = c.retract(&z0, &x, 1.0);
    {
        let mut lam = c.multipliers.borrow_mut();
        for (i, l) in lam.iter_mut().enumerate() {
            *l = 0.5 * (i as f64 * 0.7).cos();
        }
    }
    common::check_tangent_gradient(&c, &zref, 1e-6);
}

#[test]
fn preconditioned_lbfgs_reaches_the_gauss_newton_optimum() {
    let c = cartpole(200);
    let z0 = c.initial_guess();
    let r = solve_lbfgs(&c, z0.clone(), &LbfgsOptions::default(), |_, _, _| {}).expect("runs");
    assert!(
        r.converged,
        "{} after {} iterations",
        r.termination, r.iterations
    );
    let (_, lm) =
        solve_lm(cartpole(200), z0, LevenbergMarquardt::default(), 300, |e| e).expect("runs");
    assert!(lm.converged);
    eprintln!(
        "L-BFGS cost {} ({} its), GN/LM {} ({} its)",
        r.eval.cost(),
        r.iterations,
        lm.eval.cost(),
        lm.iterations
    );
    // Both stop on a relative decrease of 1e-3 per round/iteration with |Nᵀτ| ≤ 1e-8; their
    // costs agree to the stopping tolerance.
    assert!(r.eval.max_defect() <= 1e-8);
    assert!((r.eval.cost() - lm.eval.cost()).abs() < 1e-4 * lm.eval.cost());
}
