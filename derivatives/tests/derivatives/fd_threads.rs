//! `mjd_transitionFD` with its columns on threads ([`FdWorkspace::transition_on`]) gives the
//! serial call's `A`, `B`, `C`, `D` bit for bit at 2 and 3 threads, centered and forward, at
//! contact states: the hopper (dof damping: Euler's factor reused; touch sensors; a control at
//! its range limit, one-sided), the same with polynomial damping (factor recomputed), the
//! humanoid (free joint, 21 actuators), islands.xml (several islands), an RK4 model and a
//! model with activations; repeated calls on the same threads too, and the state `d` is
//! restored as by the serial call.

use crate::common::contact_state;
use moreau::{Data, Model, Vfs};
use moreau_derivatives::fd::{FdThreads, FdWorkspace};

fn root() -> String {
    format!("{}/..", env!("CARGO_MANIFEST_DIR"))
}

fn load(name: &str) -> Model {
    moreau::load(format!("{}/models/{name}", root())).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn bits(ws: &FdWorkspace) -> Vec<u64> {
    let t = &ws.transition;
    [&t.A, &t.B, &t.C, &t.D]
        .iter()
        .flat_map(|m| m.iter().map(|v| v.to_bits()))
        .collect()
}

fn state_bits(d: &Data<f64>) -> Vec<u64> {
    std::iter::once(&d.time)
        .chain(&d.qpos)
        .chain(&d.qvel)
        .chain(&d.act)
        .chain(&d.ctrl)
        .chain(&d.qacc_warmstart)
        .map(|v| v.to_bits())
        .collect()
}

fn check(name: &str, m: &Model, d0: &Data<f64>) {
    for centered in [true, false] {
        let mut d = d0.clone();
        let mut ws = FdWorkspace::new(m);
        ws.transition(m, &mut d, 1e-6, centered);
        let serial = bits(&ws);
        let restored = state_bits(&d);
        assert!(ws.transition.A.iter().all(|v| v.is_finite()));
        for nthread in [2, 3] {
            let mut pool = FdThreads::new(nthread).unwrap();
            let mut tw = FdWorkspace::new(m);
            for call in 0..2 {
                let mut d = d0.clone();
                tw.transition_on(&mut pool, m, &mut d, 1e-6, centered);
                assert_eq!(
                    bits(&tw),
                    serial,
                    "{name}: centered {centered}, {nthread} threads, call {call}"
                );
                assert_eq!(state_bits(&d), restored, "{name}: state not restored");
            }
        }
    }
}

#[test]
fn threaded_columns_equal_the_serial_call() {
    let path = format!("{}/models/hopper.xml", root());
    let m = moreau::load(&path).unwrap();
    assert!(m.nsensordata > 0);
    let mut d = contact_state(&m, 0.2);
    // a control at its range limit: a one-sided column
    if let Some(i) = (0..m.nu).find(|&i| m.actuator_ctrllimited[i]) {
        d.ctrl[i] = m.actuator_ctrlrange[i][1];
    }
    check("hopper", &m, &d);
    let xml = std::fs::read_to_string(&path)
        .unwrap()
        .replace("damping=\".05\"", "damping=\".05 .03 .02\"");
    let m = moreau::load_from_str(&xml, &Vfs::default()).unwrap();
    assert!((0..m.nv).any(|i| m.dof_damping_eff(i).1 != [0.0; 2]));
    check("hopper, dampingpoly", &m, &contact_state(&m, 0.2));
    let m = load("humanoid.xml");
    check("humanoid", &m, &contact_state(&m, 0.0));
    let m = load("islands.xml");
    check("islands", &m, &contact_state(&m, 0.0));
    // RK4 (never skipped) on the humanoid
    let xml = std::fs::read_to_string(format!("{}/models/humanoid.xml", root())).unwrap();
    let rk4 = xml.replacen("<option", "<option integrator=\"RK4\"", 1);
    assert_ne!(rk4, xml, "humanoid.xml has an <option> element");
    let m = moreau::load_from_str(&rk4, &Vfs::default()).unwrap();
    check("humanoid, RK4", &m, &contact_state(&m, 0.0));
}

/// Activations (filter actuators) and a different model on the same threads: the threads'
/// workspaces follow the model's sizes.
#[test]
fn threaded_columns_with_activations_and_another_model() {
    let xml = r#"<mujoco>
      <worldbody>
        <geom type="plane" size="1 1 .1"/>
        <body pos="0 0 .3"><freejoint/><geom type="box" size=".1 .1 .1"/>
          <body pos=".2 0 0"><joint name="hinge" type="hinge" axis="0 1 0" damping=".1"/>
            <geom type="capsule" size=".03" fromto="0 0 0 .2 0 0"/></body></body>
      </worldbody>
      <actuator><general joint="hinge" dyntype="filter" dynprm=".05" gainprm="2"/></actuator>
      <sensor><jointpos joint="hinge"/><jointvel joint="hinge"/></sensor>
    </mujoco>"#;
    let m = moreau::load_from_str(xml, &Vfs::default()).unwrap();
    assert_eq!(m.na, 1);
    let mut d = contact_state(&m, 0.5);
    d.act[0] = 0.3;
    check("filter actuator", &m, &d);
    // one pool, two models of other sizes
    let h = load("humanoid.xml");
    let dh = contact_state(&h, 0.0);
    let mut pool = FdThreads::new(2).unwrap();
    for (mm, d0) in [(&m, &d), (&h, &dh), (&m, &d)] {
        let mut serial = FdWorkspace::new(mm);
        let mut ds = d0.clone();
        serial.transition(mm, &mut ds, 1e-6, true);
        let mut tw = FdWorkspace::new(mm);
        let mut dt = d0.clone();
        tw.transition_on(&mut pool, mm, &mut dt, 1e-6, true);
        assert_eq!(bits(&tw), bits(&serial));
    }
}
