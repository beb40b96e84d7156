//! Cart-pole swing-up by iLQR on moreau's dynamics: converges to the upright state, and the
//! optimized controls re-simulated from scratch reproduce the planned trajectory.

use moreau_optim::ilqr::Dynamics;
use moreau_problems::swingup;
use nalgebra::DVector;

#[test]
fn cartpole_swingup_converges_and_replays() {
    let p = swingup("cartpole").expect("model loads");
    let x0 = p.x0();
    let (mut sys, res) = p.solve_ilqr(|_, _| {}).expect("iLQR runs");
    assert!(
        res.converged,
        "not converged in {} iterations",
        res.iterations
    );
    let first = res.cost_history[0];
    let last = *res.cost_history.last().unwrap();
    assert!(last < 0.2 * first, "cost {first} -> {last}");
    let xt = res.xs.last().unwrap();
    assert!(xt.norm() < 0.01, "final state not upright at rest: {xt}");
    // The cost never increases between iterations.
    assert!(res.cost_history.windows(2).all(|w| w[1] <= w[0]));
    // Replay: the engine under the optimized controls follows the plan.
    let mut x = x0.as_slice().to_vec();
    let mut next = vec![0.0; 4];
    for (t, u) in res.us.iter().enumerate() {
        sys.step(&x, u.as_slice(), &mut next).unwrap();
        x.copy_from_slice(&next);
        let err = (DVector::from_column_slice(&x) - &res.xs[t + 1]).amax();
        assert!(
            err < 1e-12,
            "replay differs from the plan by {err} at step {t}"
        );
    }
}
