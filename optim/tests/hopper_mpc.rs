//! Contact MPC on the planar hopper leg (issue 5): receding-horizon iLQR with the settings of
//! `examples/mpc_hopper.rs`'s forward row (`examples/common/hopper_mpc.rs`,
//! `Forward::example`: analytic transition Jacobians through the foot contact) keeps the hopper
//! up under the example's pushes and moves it forward; zero control, the baseline, falls.
//! Deterministic (no threads, no random numbers). Measured over the example's 5 s: distance
//! +0.094 m, lowest rootz −0.060 (standing −0.052), largest pitch 3.0°; zero control falls to
//! rootz −0.79 (pitch 147°). The bounds below leave room for engine changes: half the
//! distance, 5 cm of extra drop, 10° of pitch. The controller is bistable in its weights (see
//! `Forward::example`), so a failure here can mean the hopper crouched: look at min rootz.

#[path = "../../examples/common/hopper_mpc.rs"]
mod hop;

/// Simulated seconds of the test's closed loops (the example's).
const SECONDS: f64 = 5.0;
/// Forward velocity target (m/s), as in the example.
const VX: f64 = 0.3;
/// Stated bounds (see the header).
const MIN_DISTANCE: f64 = 0.047;
const MIN_ROOTZ: f64 = -0.11;
const MAX_PITCH_DEG: f64 = 10.0;

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

/// The forward iLQR MPC stays up and moves forward.
#[test]
fn forward_ilqr_stays_up_and_moves_forward() {
    let m = hop::model().unwrap();
    let q_stand = hop::initial(&m).unwrap().qpos;
    let f = hop::Forward::example();
    let mut pm = m.clone();
    pm.opt.timestep = f.plan_dt;
    let steps = hop::control_steps(&m, SECONDS);
    let r = hop::run_ilqr(
        &m,
        f.plan_dt,
        f.analytic,
        hop::forward_ilqr(&pm, &q_stand, VX, &f),
        false,
        steps,
        &hop::pushes(&m, steps).unwrap(),
        None,
        |_, _| {},
    )
    .unwrap();
    println!(
        "forward iLQR: distance {:+.3} m, min rootz {:.3}, max pitch {:.1} deg",
        r.distance(),
        r.min_z(),
        r.max_pitch().to_degrees()
    );
    assert!(r.min_z() > MIN_ROOTZ, "torso dropped to {}", r.min_z());
    assert!(
        r.max_pitch() < MAX_PITCH_DEG.to_radians(),
        "pitch {}",
        r.max_pitch()
    );
    assert!(r.distance() > MIN_DISTANCE, "moved only {} m", r.distance());
}
