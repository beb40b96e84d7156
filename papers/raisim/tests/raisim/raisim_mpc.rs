//! Le Lidec & Carpentier, experiment 3 as a test: the first 0.6 s of `examples/raisim_mpc.rs`
//! (quadruped trotting forward under predictive-sampling MPC on a μ = 0.3 floor, the plant and the
//! planner's rollouts stepped by the same hard solver; setup in `examples/common/raisim_mpc.rs`).
//!
//! What is asserted is what was measured (numbers in the comments are this run's):
//! * all three keep the robot up (torso above 0.2 m, tilt below 30°) and walk forward;
//! * most contact-steps slide (the floor is slippery), so the MDP matters;
//! * RaiSim's error on sliding contacts is more than 10× that of RaiSim+DS and of PGS (seed
//!   001, Fig. 5 left: RaiSim approximates the MDP, the correction removes the approximation);
//! * RaiSim+DS and PGS, which solve the same NCP, follow the same trajectory (within 1 mm)
//!   over the run, while RaiSim's departs from it (Fig. 5 centre: different behaviours);
//! * RaiSim+DS and PGS keep ε_abs below 1e-7 at every step of these 0.6 s, RaiSim's sliding
//!   contacts average above 1e-2.
//!
//! Not asserted: the paper's ordering RaiSim+DS < PGS in ε_abs, which the measurement does not
//! settle (RaiSim+DS's mean is lower over these 0.6 s, 2.3e-10 vs 9.2e-10, but higher over the
//! example's 3 s, 7.7e-3 vs 3.3e-3), and anything about wall time.

#[path = "../../examples/common/raisim_mpc.rs"]
mod exp;

use exp::{departure, max, mean_nonzero};

/// 72 000 hard steps (3 solvers × 30 plans × 16 rollouts × 50 steps): about 5 s at the test
/// profile (opt-level 1), so it runs with the rest of the suite.
#[test]
fn quadruped_mpc_raisim_vs_de_saxce_vs_pgs() {
    let m = exp::model().expect("model");
    let s = exp::Settings::test();
    let runs = exp::run_all(&m, &s).expect("run");
    exp::print_table(&runs);
    let (rs, ds, pgs) = (&runs[0].1, &runs[1].1, &runs[2].1);
    for (solver, r) in &runs {
        assert!(
            r.stayed_up(),
            "{}: min z {}, tilt {}",
            solver.name(),
            r.min_z(),
            r.max_tilt()
        );
        assert!(r.progress() > 0.1, "{}: x {}", solver.name(), r.progress());
        assert!(r.slide_fraction() > 0.5, "{}", solver.name());
    }
    let slide = |r: &exp::MpcRun| mean_nonzero(&r.eps_slide);
    assert!(
        slide(rs) > 10.0 * slide(ds),
        "{} vs {}",
        slide(rs),
        slide(ds)
    );
    assert!(
        slide(rs) > 10.0 * slide(pgs),
        "{} vs {}",
        slide(rs),
        slide(pgs)
    );
    // Over these 0.6 s the Gauss-Seidel sweeps of RaiSim+DS and PGS converge (relative
    // impulse change 1e-10 within 30 sweeps): measured max ε_abs 3.1e-9 and 9.1e-9 (forces in N,
    // velocities in m/s), against RaiSim's 0.23 mean on sliding contacts. Later in the
    // example's 3 s some impact steps stop unconverged at 30 sweeps and both reach ε ~ 1.
    for r in [ds, pgs] {
        assert!(max(&r.eps_abs) < 1e-7, "{}", max(&r.eps_abs));
    }
    assert!(slide(rs) > 1e-2, "{}", slide(rs));
    assert_eq!(departure(ds, pgs, 1e-3), None);
    assert!(departure(rs, pgs, 1e-3).is_some());
}
