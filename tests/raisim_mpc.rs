//! Seed 001 experiment 3 as a test: the first 0.6 s of `examples/raisim_mpc.rs` (quadruped
//! trotting forward under predictive-sampling MPC on a μ = 0.3 floor, the plant and the
//! planner's rollouts stepped by the same hard solver; setup in
//! `examples/common/raisim_mpc.rs`).

#[path = "../examples/common/raisim_mpc.rs"]
mod exp;

use exp::{max, mean, mean_nonzero};
use moreau::solver::hard::HardSolver;

#[test]
fn quadruped_mpc_raisim_vs_de_saxce_vs_pgs() {
    let m = exp::model().expect("model");
    let s = exp::Settings::test();
    let runs: Vec<_> = HardSolver::ALL
        .iter()
        .map(|&solver| (solver, exp::run(&m, solver, &s).expect("run")))
        .collect();
    for (solver, r) in &runs {
        println!(
            "{:>9}: ε_abs mean {:.3e} max {:.3e}; sticking mean {:.3e} max {:.3e}; sliding mean \
             {:.3e} max {:.3e}; sliding {:.1}%; cost {:.4}; x {:.6}; min z {:.4}; limit err {:.2e}",
            solver.name(),
            mean(&r.eps_abs),
            max(&r.eps_abs),
            mean_nonzero(&r.eps_stick),
            max(&r.eps_stick),
            mean_nonzero(&r.eps_slide),
            max(&r.eps_slide),
            100.0 * r.slide_fraction(),
            mean(&r.cost),
            r.progress(),
            r.min_z(),
            max(&r.limit_err),
        );
    }
}
