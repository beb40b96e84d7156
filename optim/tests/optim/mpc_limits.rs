//! Control-limited iLQR MPC (box-QP backward pass, `moreau_optim::ilqr`) on a contact task: the
//! planar hopper leg under a push stays standing for 1.2 s with every planned control inside
//! the actuators' ctrlrange, and the limits are active (the plan saturates).

use moreau_optim::ilqr::{ilqr, IlqrOptions, QuadraticCost};
use moreau_optim::mpc::{closed_loop, ctrl_bounds, state_of, IlqrMpc, MpcOptions, Push};
use moreau_optim::system::MoreauSystem;
use nalgebra::DVector;

use crate::hop;

use hop::SUBSTEPS;

fn hopper() -> (moreau::Model, moreau::Data) {
    let m = hop::model().expect("model loads");
    let d = hop::initial(&m).expect("stand keyframe");
    (m, d)
}

/// The standing cost of examples/mpc_hopper.rs at zero forward velocity (all velocity
/// weights 0.01).
fn cost(m: &moreau::Model, q_stand: &[f64]) -> QuadraticCost {
    hop::cost(m, q_stand, 0.0, 0.01)
}

#[test]
fn box_ilqr_mpc_keeps_hopper_standing_within_ctrlrange() {
    let (m, mut d) = hopper();
    let q_stand = d.qpos.clone();
    let (lo, hi) = ctrl_bounds(&m);
    assert_eq!((lo.clone(), hi.clone()), (vec![-1.0; 3], vec![1.0; 3]));
    let mut sys = MoreauSystem::new(m.clone()).unwrap();
    let mut mpc = IlqrMpc::new(
        m.nu,
        cost(&m, &q_stand),
        MpcOptions {
            horizon: 50,
            iter: 1,
            first_iter: 5,
            bounds: Some((lo.clone(), hi.clone())),
        },
    );
    let torso = m.body_id("torso").unwrap();
    let push = [Push::Body {
        step: 10,
        body: torso,
        wrench: [150.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    }];
    let mut worst_violation = 0.0f64;
    let mut saturated = 0;
    let run = closed_loop(
        &m,
        &mut d,
        60,
        SUBSTEPS,
        &push,
        |d| {
            let u = mpc.step(&mut sys, &state_of(d), SUBSTEPS)?;
            // the whole plan (not only the applied control, which step() clamps) is feasible
            for us in &mpc.plan.as_ref().unwrap().us {
                for i in 0..us.len() {
                    worst_violation = worst_violation.max(lo[i] - us[i]).max(us[i] - hi[i]);
                    if us[i] == lo[i] || us[i] == hi[i] {
                        saturated += 1;
                    }
                }
            }
            Ok(u.as_slice().to_vec())
        },
        |_, _| {},
    )
    .unwrap();
    assert_eq!(worst_violation, 0.0, "a planned control left ctrlrange");
    assert!(
        saturated > 0,
        "the limits never bound: the test would not exercise them"
    );
    // stated bounds: the torso never drops more than 5 cm below the standing height, pitch
    // stays within 20°, and it ends within 2 cm of the standing height
    let zmin = run.qpos.iter().map(|q| q[1]).fold(f64::INFINITY, f64::min);
    let pmax = run.qpos.iter().map(|q| q[2].abs()).fold(0.0, f64::max);
    let last = run.qpos.last().unwrap();
    assert!(zmin > q_stand[1] - 0.05, "torso dropped to {zmin}");
    assert!(pmax < 20f64.to_radians(), "pitch {pmax}");
    assert!(
        (last[1] - q_stand[1]).abs() < 0.02,
        "final height {}",
        last[1]
    );
}

#[test]
fn ilqr_refuses_bad_bounds() {
    let (m, d) = hopper();
    let mut sys = MoreauSystem::new(m.clone()).unwrap();
    let c = cost(&m, &d.qpos);
    let x0 = state_of(&d);
    let us = vec![DVector::zeros(3); 5];
    for (bounds, needle) in [
        ((vec![-1.0; 2], vec![1.0; 2]), "3 entries"),
        ((vec![1.0; 3], vec![-1.0; 3]), "empty"),
        ((vec![f64::NAN; 3], vec![1.0; 3]), "empty"),
    ] {
        let opt = IlqrOptions {
            bounds: Some(bounds),
            max_iter: 1,
            ..IlqrOptions::default()
        };
        let e = ilqr(&mut sys, &c, &x0, us.clone(), &opt, |_, _| {}).unwrap_err();
        assert!(e.contains(needle), "{e}");
    }
}
