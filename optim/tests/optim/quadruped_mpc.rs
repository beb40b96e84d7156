//! Contact MPC that moves forward: the free-floating quadruped on the soft MuJoCo
//! engine, gait-free cost (examples/common/quadruped_mpc.rs, the setup of
//! `examples/mpc_quadruped.rs`), 1.5 s of its closed loop per planner. Asserts what the example
//! measures over this stretch: the torso stays up (lowest height above a stated bound; stance
//! 0.341 m) and it moves forward by more than a stated distance (target 0.5 m/s). Measured
//! (deterministic: fixed seed, no threads in the arithmetic): iLQR 0.719 m, lowest torso
//! 0.327 m (0.724 m, 0.329 m with the Newton rank-1 updates for up to nv rows);
//! sampling 0.380 m, lowest 0.277 m; the bounds leave room for engine changes.

#[path = "../../examples/common/quadruped_mpc.rs"]
#[allow(dead_code)]
mod quad;

fn settings() -> quad::Settings {
    quad::Settings {
        seconds: 1.5,
        ..quad::Settings::example()
    }
}

/// Prints the run and asserts that the torso stayed above `min_z` and moved forward more than
/// `min_distance`.
fn check(planner: &str, r: &quad::Run, min_z: f64, min_distance: f64) {
    println!(
        "{planner}: distance {:.3} m, min z {:.3} m, max tilt {:.1} deg",
        r.distance(),
        r.min_z(),
        r.max_tilt().to_degrees()
    );
    assert!(r.min_z() > min_z, "{planner}: torso fell to {}", r.min_z());
    assert!(
        r.distance() > min_distance,
        "{planner}: moved only {} m",
        r.distance()
    );
}

/// Zero control (the position actuators hold the stance) neither falls nor moves: the
/// baseline against which the planners' distances mean something.
#[test]
fn zero_control_stands_still() {
    let m = quad::model().unwrap();
    let r = quad::drive(&m, &settings(), |_| Ok((vec![0.0; m.nu], 0.0)), |_, _| {}).unwrap();
    let dx = r.distance();
    println!("zero control: x {dx:+.4} m");
    assert!(dx.abs() < 0.01, "zero control moved {dx} m");
}

/// iLQR MPC with analytic transition Jacobians (tangent space of the free joint).
#[test]
fn ilqr_walks_forward() {
    let m = quad::model().unwrap();
    let r = quad::run_ilqr(&m, &settings(), true, |_, _| {}).unwrap();
    check("iLQR", &r, 0.32, 0.6);
}

/// Predictive sampling (one thread) on the same cost and planning model.
#[test]
fn sampling_walks_forward() {
    let m = quad::model().unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let r = pool
        .install(|| quad::run_sampling(&m, &settings(), |_, _| {}))
        .unwrap();
    check("sampling", &r, 0.25, 0.3);
}
