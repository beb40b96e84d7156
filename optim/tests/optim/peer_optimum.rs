//! moreau's solvers reach the optima Crocoddyl 3.2.1's FDDP finds on the same swing-up problems
//! (docs/optimization.md#swing-up: dt 0.01, 200 knots, start hanging, zero-control initial guess),
//! read from `tests/reference/crocoddyl_swingup.json` (produced by
//! `tools/bench/crocoddyl_swingup.py` on Pinocchio models of the same MJCF files, whose dynamics
//! the script checks against MuJoCo 4.0.0 to 5e-14). Independent code, same discrete problem: the
//! costs agree to the solvers' stopping tolerances.

use moreau_optim::lm::{solve_lm, LevenbergMarquardt};
use moreau_problems::{swingup, SWINGUP_PENALTY};

fn reference(name: &str) -> (f64, Vec<f64>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/reference/crocoddyl_swingup.json"
    );
    let text = std::fs::read_to_string(path).expect("reference file");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let e = v
        .as_array()
        .expect("array")
        .iter()
        .find(|e| e["problem"] == name)
        .expect("problem in reference");
    let xn = e["xN"]
        .as_array()
        .expect("xN")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect();
    (e["cost"].as_f64().expect("cost"), xn)
}

fn ilqr_matches(name: &str) {
    let p = swingup(name).expect("problem");
    let (cost_ref, xn_ref) = reference(name);
    let (_, r) = p.solve_ilqr(|_, _| {}).expect("iLQR runs");
    assert!(r.converged);
    let cost = *r.cost_history.last().expect("cost");
    let xn = r.xs.last().expect("state");
    let dx = xn
        .iter()
        .zip(&xn_ref)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    eprintln!("{name}: iLQR cost {cost} vs Crocoddyl {cost_ref}, |Δx_N| {dx:e}");
    // Both stop on a relative cost decrease of ~1e-9 per iteration.
    assert!((cost - cost_ref).abs() < 1e-7 * cost_ref);
    assert!(dx < 1e-5, "terminal states differ by {dx}");
}

#[test]
fn cartpole_ilqr_reaches_crocoddyl_optimum() {
    ilqr_matches("cartpole");
}

#[test]
fn acrobot_ilqr_reaches_crocoddyl_optimum() {
    ilqr_matches("acrobot");
}

fn collocation_matches(name: &str) {
    let p = swingup(name).expect("problem");
    let (cost_ref, _) = reference(name);
    let c = p.collocation(SWINGUP_PENALTY).expect("collocation");
    let z0 = c.initial_guess();
    let (_, r) = solve_lm(c, z0, LevenbergMarquardt::default(), 300, |e| e).expect("runs");
    assert!(r.converged);
    eprintln!(
        "{name}: collocation cost {} vs Crocoddyl {cost_ref} ({} iterations)",
        r.eval.cost(),
        r.iterations
    );
    // The collocation stops on a relative decrease of 1e-3 per iteration with |Nᵀτ| ≤ 1e-8.
    assert!((r.eval.cost() - cost_ref).abs() < 1e-6 * cost_ref);
}

#[test]
fn cartpole_collocation_reaches_crocoddyl_optimum() {
    collocation_matches("cartpole");
}

#[test]
fn acrobot_collocation_reaches_crocoddyl_optimum() {
    collocation_matches("acrobot");
}
