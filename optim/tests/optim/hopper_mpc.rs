//! Contact MPC on the planar hopper leg: receding-horizon iLQR with the settings of
//! `examples/mpc_hopper.rs`'s forward row (`examples/common/hopper_mpc.rs`,
//! `Forward::example`: analytic transition Jacobians through the foot contact, every solve run
//! to convergence) keeps the hopper up under the example's pushes and moves it forward, also
//! with round-off-level changes of its Jacobians; zero control, the baseline, falls.
//! Deterministic (no threads, no random numbers).
//!
//! Measured over the example's 5 s (`cargo run --release -p moreau-optim --example mpc_hopper -- 5 0.3
//! --robust`, the 8 variants of `hop::variants`: nominal, A, B × (1 ± 1e-12) with four seeds,
//! FD Jacobians, pushes ±10%; run with these analytic Jacobians and with a second,
//! round-off-different analytic variant, 16 loops): distance +0.0395 … +0.0438 m, lowest rootz
//! −0.0548 … −0.0542 (standing −0.052), largest pitch 1.84°; the same controller without a velocity
//! weight moves −0.0008 m, so the distance is the controller's. Zero control falls to rootz −0.79
//! (pitch 147°). The bounds below: half the smallest distance (0.02 m), 2.5 cm of extra drop
//! (−0.08; a fall reaches −0.9), 6° of pitch (a fall reaches 90°), and the two perturbed runs
//! within 1 cm of each other (measured spread over all 16: 4.3 mm). A controller with one iLQR
//! iteration per control step fails them: its nominal and seed-3 runs fall (rootz −0.92). With the
//! Newton rank-1 Hessian updates for up to nv rows: nominal, seed 1, seed 3 +0.0406, +0.0413,
//! +0.0408 m; in the nominal and seed-1 loops one planning stage has a NaN analytic Jacobian (the
//! foot capsule folded onto the torso in a warm start's rollout), which would make iLQR fail with
//! "regularization exceeded its maximum" and abort the loop; such a stage is linearized by central
//! differences (printed below), and a solve that still fails would apply the shifted plan
//! (`IlqrMpc::fallbacks`, printed below; 0 in all three).

use crate::hop;

/// Simulated seconds of the test's closed loops (the example's).
const SECONDS: f64 = 5.0;
/// Forward velocity target (m/s), as in the example.
const VX: f64 = 0.3;
/// Stated bounds (see the header).
const MIN_DISTANCE: f64 = 0.02;
const MIN_ROOTZ: f64 = -0.08;
const MAX_PITCH_DEG: f64 = 6.0;
const MAX_DISTANCE_SPREAD: f64 = 0.01;

/// Zero control falls: the torso drops below −0.5 m (standing −0.052) within the test's time.
#[test]
fn zero_control_falls() {
    let m = hop::model().unwrap();
    let steps = hop::control_steps(&m, SECONDS);
    let mut d = hop::initial(&m).unwrap();
    let r = moreau_optim::mpc::closed_loop(
        &m,
        &mut d,
        steps,
        hop::SUBSTEPS,
        &hop::pushes(&m, steps).unwrap(),
        |_| Ok(vec![0.0; m.nu]),
        |_, _| {},
    )
    .unwrap();
    println!(
        "zero control: min rootz {:.3}, distance {:+.3}",
        r.min_qpos(1),
        r.displacement(0)
    );
    assert!(r.min_qpos(1) < -0.5, "zero control stayed up");
}

/// Runs the forward MPC under `v` and checks that it stays up and moves forward; returns the
/// distance.
fn stays_up_and_moves_forward(v: &hop::Variant) -> f64 {
    let m = hop::model().unwrap();
    let r = hop::run_forward(&m, &hop::Forward::example(), VX, SECONDS, v, |_, _| {}).unwrap();
    println!(
        "forward iLQR, {}: distance {:+.4} m, min rootz {:.4}, max pitch {:.2} deg, {} fallbacks, {} stages \
         linearized by differences",
        v.name,
        r.distance(),
        r.min_z(),
        r.max_pitch().to_degrees(),
        r.closed.fallbacks,
        r.jacobian_fallbacks
    );
    assert!(
        r.min_z() > MIN_ROOTZ,
        "{}: torso dropped to {}",
        v.name,
        r.min_z()
    );
    assert!(
        r.max_pitch() < MAX_PITCH_DEG.to_radians(),
        "{}: pitch {}",
        v.name,
        r.max_pitch()
    );
    assert!(
        r.distance() > MIN_DISTANCE,
        "{}: moved only {} m",
        v.name,
        r.distance()
    );
    r.distance()
}

/// The forward iLQR MPC stays up and moves forward.
#[test]
fn forward_ilqr_stays_up_and_moves_forward() {
    stays_up_and_moves_forward(&hop::variants()[0]);
}

/// The same with round-off-level noise on A, B (seeds 1 and 3 of `hop::variants`; seed 3 tips
/// a one-iteration-per-step controller over): both stay up, move forward, and agree on the
/// distance.
#[test]
fn forward_ilqr_is_robust_to_jacobian_round_off() {
    let vs = hop::variants();
    let picked: Vec<_> = vs
        .iter()
        .filter(|v| v.noise.is_some_and(|n| n.seed == 1 || n.seed == 3))
        .collect();
    assert_eq!(picked.len(), 2);
    let d: Vec<f64> = picked
        .iter()
        .map(|v| stays_up_and_moves_forward(v))
        .collect();
    assert!(
        (d[0] - d[1]).abs() < MAX_DISTANCE_SPREAD,
        "distances {d:?} differ by more than {MAX_DISTANCE_SPREAD} m"
    );
}
