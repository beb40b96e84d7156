//! MPC on a public robot: MuJoCo Menagerie's Unitree Go1 from the public zoo's cache (unchanged
//! `unitree_go1/scene.xml`; a missing cache fails with the fetch command), the setup of
//! `examples/mpc_go1.rs` (examples/common/go1_mpc.rs) over a short stretch with a short
//! horizon. Asserts what the example measures: the trunk stays up (lowest height above a stated
//! bound, home 0.27 m; no fall) and moves forward (target 0.5 m/s), and a lateral push does not
//! make it fall. No timing assertions.

#[path = "../../examples/common/go1_mpc.rs"]
#[allow(dead_code)]
mod go1;

use moreau_optim::sampling::Update;

fn settings() -> go1::Settings {
    go1::Settings {
        seconds: 1.5,
        horizon: 15,
        pushes: vec![(0.8, 100.0)],
        ..go1::Settings::example()
    }
}

fn check(planner: &str, r: &go1::Run, min_z: f64, min_distance: f64) {
    println!(
        "{planner}: distance {:.3} m, min z {:.3} m, max tilt {:.1} deg, falls {}, fallbacks {}",
        r.distance(),
        r.min_z(),
        r.max_tilt().to_degrees(),
        r.falls(go1::FALL_Z),
        r.fallbacks
    );
    assert_eq!(r.falls(go1::FALL_Z), 0, "{planner}: fell");
    assert!(r.min_z() > min_z, "{planner}: trunk fell to {}", r.min_z());
    assert!(
        r.distance() > min_distance,
        "{planner}: moved only {} m",
        r.distance()
    );
}

/// Zero offsets from the home targets (the position actuators hold the stance) neither fall
/// nor walk: the baseline against which the planners' distances mean something.
#[test]
fn home_targets_stand_still() {
    let m = go1::model().unwrap();
    let u0 = go1::home_ctrl(&m).unwrap();
    let s = go1::Settings {
        pushes: vec![],
        ..settings()
    };
    let r = go1::drive(&m, &s, |_| Ok((u0.clone(), 0.0)), |_, _| {}).unwrap();
    println!(
        "home targets: x {:+.4} m, min z {:.3}",
        r.distance(),
        r.min_z()
    );
    assert!(
        r.distance().abs() < 0.02,
        "standing moved {} m",
        r.distance()
    );
    assert!(r.min_z() > 0.2);
}

/// iLQR MPC with analytic transition Jacobians, ctrlrange box, warm start.
#[test]
fn ilqr_walks_forward_and_takes_a_push() {
    let m = go1::model().unwrap();
    let r = go1::run_ilqr(&m, &settings(), true, |_, _| {}).unwrap();
    check("iLQR", &r, 0.2, 0.2);
}

/// Predictive sampling (one thread) on the same cost and planning model.
#[test]
fn sampling_walks_forward_and_takes_a_push() {
    let m = go1::model().unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let r = pool
        .install(|| go1::run_sampling(&m, &settings(), Update::Best, |_, _| {}))
        .unwrap();
    check("sampling", &r, 0.2, 0.1);
}
