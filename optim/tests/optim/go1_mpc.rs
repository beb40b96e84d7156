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

/// What the Go1 MPC main job (iLQR, analytic Jacobians, the example's horizon of 25 planning
/// steps) allocates per control step (one plan with the MPC ring of forward results, then the
/// plant's 5 physics steps and the run's records), counted on the planning thread (the
/// system's default is serial): after the first control steps, which size the ring, the
/// iLQR workspaces and the records, the count per step stays the same to the end, so the ring
/// does not grow with the run. The counts are printed (docs/optimization.md quotes them).
#[test]
fn ilqr_control_step_allocations_do_not_grow() {
    use crate::alloc_counter::{allocations, bytes_allocated};
    let m = go1::model().unwrap();
    let s = go1::Settings {
        seconds: 0.4,
        pushes: vec![],
        ..go1::Settings::example()
    };
    let mut marks = vec![];
    let (a0, b0) = (allocations(), bytes_allocated());
    go1::run_ilqr(&m, &s, true, |_, _| {
        marks.push((allocations(), bytes_allocated()))
    })
    .unwrap();
    let per_step: Vec<(usize, usize)> = std::iter::once((a0, b0))
        .chain(marks.iter().copied())
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| (w[1].0 - w[0].0, w[1].1 - w[0].1))
        .collect();
    println!("allocations and bytes per control step: {per_step:?}");
    let n = per_step.len();
    assert!(n >= 30, "{n} control steps");
    // steady state: the second half allocates no more per step than the steps 5..15
    let early = per_step[5..15].iter().map(|x| x.0).max().unwrap();
    let late = per_step[n / 2..].iter().map(|x| x.0).max().unwrap();
    let early_b = per_step[5..15].iter().map(|x| x.1).max().unwrap();
    let late_b = per_step[n / 2..].iter().map(|x| x.1).max().unwrap();
    assert!(
        late <= early,
        "allocations per step grew from {early} to {late}"
    );
    assert!(
        late_b <= early_b,
        "bytes per step grew from {early_b} to {late_b}"
    );
}
