//! MPC on a public robot: the dm_control humanoid from the public zoo's cache (unchanged
//! `suite/humanoid.xml`; a missing cache fails with the fetch command), the setup of
//! `examples/mpc_humanoid.rs` (examples/common/humanoid_mpc.rs) over a short stretch with a
//! short horizon and one lateral push. Asserts what the example measures: with zero torques the
//! humanoid falls (the baseline), under iLQR it stays up through the push (no fall, torso
//! above a stated height, tilt below a stated angle, horizontal drift below 0.15 m), and no
//! solve fell back. No timing
//! assertions.

#[path = "../../examples/common/humanoid_mpc.rs"]
#[allow(dead_code)]
mod humanoid;

fn settings() -> humanoid::Settings {
    humanoid::Settings {
        seconds: 1.5,
        pushes: vec![(0.5, 300.0, 0.05)],
        ..humanoid::Settings::example()
    }
}

fn report(name: &str, r: &humanoid::Run) {
    println!(
        "{name}: min z {:.3} m, max tilt {:.1} deg, drift {:.3} m, falls {}, fallbacks {}",
        r.min_z(),
        r.max_tilt().to_degrees(),
        humanoid::drift(r),
        r.falls(humanoid::FALL_Z),
        r.fallbacks
    );
}

#[test]
fn zero_torques_fall() {
    let m = humanoid::model().unwrap();
    let r = humanoid::run_zero(&m, &settings(), |_, _| {}).unwrap();
    report("zero torques", &r);
    assert!(r.falls(humanoid::FALL_Z) >= 1, "stood without torques");
}

#[test]
fn ilqr_stands_through_a_push() {
    let m = humanoid::model().unwrap();
    let r = humanoid::run_ilqr(&m, &settings(), true, |_, _| {}).unwrap();
    report("iLQR", &r);
    let z0 = humanoid::initial(&m).unwrap().qpos[2];
    assert_eq!(r.falls(humanoid::FALL_Z), 0, "fell");
    assert!(
        r.min_z() > z0 - 0.15,
        "torso fell to {} from {z0}",
        r.min_z()
    );
    assert!(r.max_tilt() < 20f64.to_radians(), "tilted {}", r.max_tilt());
    // a push it does not stop carries it sideways upright (600 N for 50 ms: 0.3 m/s)
    assert!(
        humanoid::drift(&r) < 0.15,
        "drifted {} m",
        humanoid::drift(&r)
    );
    assert_eq!(r.fallbacks, 0);
}
