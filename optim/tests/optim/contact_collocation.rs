//! Direct collocation through contact (Computation "Inverse dynamics and optimization"): a ball
//! pushed by an actuated finger, rolling on the floor (`models/ball_push.xml`, MuJoCo's default
//! soft contacts, pyramidal cone, condim 3). The residual Jacobian agrees with finite
//! differences of the residual (collision and constraint states re-evaluated), the solver
//! converges with a vanishing unactuated-force residual, the engine replays the planned
//! controls open loop (no feedback) onto the plan, and the plan matches the analytic optimum
//! of the equivalent rigid rolling system.

use moreau_optim::collocation::Collocation;
use moreau_optim::lm::{solve_lm, LevenbergMarquardt};
use moreau_problems::{ball_push, contact_counts, max_diff, replay_tracking};

const HORIZON: usize = 30;
const DISTANCE: f64 = 0.1;

/// Largest entry of `J − J_fd`, relative to the largest entry of `J`.
fn jacobian_error(c: &Collocation, z: &[f64]) -> f64 {
    let ja = c.dense_jacobian(z);
    let jf = c.fd_jacobian(z, 1e-7);
    (&ja - &jf).amax() / ja.amax()
}

#[test]
fn ball_push_collocation_converges_and_replays() {
    let p = ball_push(HORIZON, DISTANCE).expect("problem");
    // Jacobian of the residual through contact vs central differences of the residual (step
    // 1e-7, both sides re-run collision and the constraint states). Measured 4.6e-7 relative to
    // the largest entry (~3e5): the round-off and truncation of the two finite-difference
    // levels; a missing or wrong contact term would show at O(1).
    let e0 = jacobian_error(&p.collocation, &p.z0);
    assert!(e0 < 1e-5, "Jacobian error at the initial guess {e0:.2e}");
    let (c, res) = solve_lm(
        p.collocation,
        p.z0,
        LevenbergMarquardt::default(),
        200,
        |e| e,
    )
    .expect("runs");
    assert!(
        res.converged,
        "{} after {} iterations",
        res.termination, res.iterations
    );
    assert!(res.eval.max_defect() < 1e-8, "{:e}", res.eval.max_defect());
    let e1 = jacobian_error(&c, &res.z);
    assert!(e1 < 1e-5, "Jacobian error at the solution {e1:.2e}");
    let plan: Vec<Vec<f64>> = (0..=c.horizon)
        .map(|t| c.config(&res.z, t).to_vec())
        .collect();
    // Both contacts (finger–ball, ball–floor) at every knot: the plan never leaves contact.
    assert!(contact_counts(&c.model, &plan).iter().all(|&n| n == 2));
    // Open-loop replay with the engine (integrator::step): the residual is ~1e-9 N, the
    // forward solver's tolerance; measured deviation 3e-10 m at 60 knots.
    let (qs, _) = replay_tracking(&c, &plan, &res.eval.v, &res.eval.u, 0.0, 0.0);
    let err = max_diff(&qs, &plan);
    assert!(err < 1e-7, "replay error {err:e}");
    // Analytic optimum of the rigid equivalent: finger and rolling ball as one mass
    // m = m_f + m_b + I_b/r² = 0.5 + 1 + 0.4 kg. With semi-implicit Euler
    // x_T = x₀ + (h²/m) Σ_t (T − t) u_t, and minimizing ½hR Σu² + ½W(x_T − d)² gives
    // u_t = k (T − t), k = W (d − x_T + x₀) h / (R m), i.e.
    // k = W d h / (R m + W h³/m · Σ(T − t)²). Soft contacts make the system slightly compliant
    // (penetration changes with the push, creep of the soft friction), so this holds only to
    // their order: measured 1.4e-3 of the largest control.
    let (h, w, r, m) = (0.01, 1000.0, 0.01, 1.9);
    let s2: f64 = (1..=HORIZON).map(|k| (k * k) as f64).sum();
    let k = w * DISTANCE * h / (r * m + w * h.powi(3) / m * s2);
    let mut rel: f64 = 0.0;
    for (t, u) in res.eval.u.iter().enumerate() {
        let ua = k * (HORIZON - t) as f64;
        rel = rel.max((u[0] - ua).abs() / (k * HORIZON as f64));
    }
    assert!(rel < 1e-2, "plan vs rigid optimum: {rel:.3e}");
    eprintln!(
        "iterations {}, cost {:.6}, defect {:.1e}, Jacobian err {e0:.1e}/{e1:.1e}, replay {err:.1e}, rigid-optimum dev {rel:.2e}",
        res.iterations,
        res.eval.cost(),
        res.eval.max_defect()
    );
}

#[test]
fn ball_push_rejects_bad_input() {
    assert!(ball_push(1, 0.1).is_err());
    assert!(ball_push(10, f64::NAN).is_err());
}
