//! Workspaces reused with another model (other nv/nu/na/nefc/nbody, or the same sizes with
//! another kinematic tree) give exactly the results of a fresh workspace: they resize or
//! rebuild instead of indexing out of bounds or using the old model's tree. Models in turn:
//! sphere_drop (one free sphere with contacts), the humanoid (27 dofs, actuators, contacts),
//! both again, then a two-hinge chain and a two-hinge star (same nbody and nv, other tree).
//! Equality is bitwise: a workspace holds no state that changes results.

use moreau::{Data, Model};
use moreau_derivatives::constraint_pos::add_constraint_pos;
use moreau_derivatives::fd::FdWorkspace;
use moreau_derivatives::inverse::InverseDerivatives;
use moreau_derivatives::inverse_pos::{d_pos, Output};
use moreau_derivatives::rne::{d_mass_pos, d_smooth_pos, Terms};
use moreau_derivatives::ConstraintWork as CposWork;
use moreau_derivatives::Work as RneaWork;
use moreau_derivatives::{TransitionOptions, Workspace};
use nalgebra::DMatrix;

use crate::common;

const CHAIN: &str = r#"<mujoco><worldbody>
  <body pos="0 0 1"><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
    <body pos="0.3 0 0"><joint type="hinge" axis="1 0 0"/><geom type="capsule" fromto="0 0 0 0 0.2 -0.2" size="0.03"/></body>
  </body></worldbody></mujoco>"#;

const STAR: &str = r#"<mujoco><worldbody>
  <body pos="0 0 1"><joint type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body>
  <body pos="0.3 0 1"><joint type="hinge" axis="1 0 0"/><geom type="capsule" fromto="0 0 0 0 0.2 -0.2" size="0.03"/></body>
  </worldbody></mujoco>"#;

/// The models in the order the workspaces see them, each at a random settled state.
fn cases() -> Vec<(&'static str, Model, Data<f64>)> {
    let inline = |xml| moreau::load_from_str(xml, &moreau::Vfs::default()).unwrap();
    let humanoid = common::load("humanoid");
    let sphere = common::load("sphere_drop");
    let list = [
        ("sphere_drop", sphere.clone()),
        ("humanoid", humanoid.clone()),
        ("sphere_drop", sphere),
        ("humanoid", humanoid),
        ("chain", inline(CHAIN)),
        ("star", inline(STAR)),
        ("chain", inline(CHAIN)),
    ];
    list.into_iter()
        .enumerate()
        .map(|(i, (name, m))| {
            let d = common::state(&m, common::lcg(i as u64), 60, 0.01, 0.1);
            (name, m, d)
        })
        .collect()
}

#[test]
fn models_differ_as_intended() {
    let c = cases();
    let (s, h) = (&c[0], &c[1]);
    assert!(h.1.nv != s.1.nv && h.1.nu != s.1.nu && h.2.nefc != s.2.nefc);
    assert!(
        h.2.nefc > 0 && s.2.nefc > 0,
        "both contact states have constraint rows"
    );
    let (a, b) = (&c[4].1, &c[5].1);
    assert_eq!((a.nbody, a.nv), (b.nbody, b.nv));
    assert_ne!(a.body_parentid, b.body_parentid);
}

#[test]
fn contact_workspace() {
    let mut w = Workspace::default();
    for (name, m, d) in cases() {
        for sensors in [false, true] {
            let r = w
                .transition(
                    &m,
                    &mut d.clone(),
                    &TransitionOptions::analytic().with_sensors(sensors),
                )
                .cloned();
            let f = Workspace::default()
                .transition(
                    &m,
                    &mut d.clone(),
                    &TransitionOptions::analytic().with_sensors(sensors),
                )
                .cloned();
            match (r, f) {
                (Ok(r), Ok(f)) => {
                    assert_eq!((&r.A, &r.B, &r.C, &r.D), (&f.A, &f.B, &f.C, &f.D), "{name}")
                }
                (r, f) => assert_eq!(r.err(), f.err(), "{name}"),
            }
        }
    }
}

#[test]
fn fd_workspace() {
    let mut w = FdWorkspace::new(&cases()[0].1);
    let mut quiet = FdWorkspace::new(&cases()[1].1);
    quiet.sensors = false;
    for (name, m, d) in cases() {
        let mut fresh = FdWorkspace::new(&m);
        for centered in [false, true] {
            let r = w.transition(&m, &mut d.clone(), 1e-6, centered).clone();
            let f = fresh.transition(&m, &mut d.clone(), 1e-6, centered);
            assert_eq!((&r.A, &r.B, &r.C, &r.D), (&f.A, &f.B, &f.C, &f.D), "{name}");
            let r = w.inverse(&m, &mut d.clone(), 1e-6, true, centered).clone();
            let f = fresh.inverse(&m, &mut d.clone(), 1e-6, true, centered);
            assert_eq!(
                (&r.DfDq, &r.DfDv, &r.DfDa, &r.DsDq, &r.DmDq),
                (&f.DfDq, &f.DfDv, &f.DfDa, &f.DsDq, &f.DmDq),
                "{name}"
            );
        }
        // the sensor switch survives the resize
        let r = quiet.transition(&m, &mut d.clone(), 1e-6, false).clone();
        assert!(!quiet.sensors);
        let f = fresh.transition(&m, &mut d.clone(), 1e-6, false);
        assert_eq!((&r.A, &r.B), (&f.A, &f.B), "{name}");
    }
}

#[test]
fn rnea_pos_and_cpos_workspaces() {
    let mut w = RneaWork::default();
    let mut cw = CposWork::default();
    let terms = Terms {
        springs: true,
        gravcomp: true,
        xfrc: true,
    };
    for (name, m, d) in cases() {
        let nv = m.nv;
        let fresh = || (RneaWork::default(), CposWork::default());
        for output in [Output::Inverse, Output::Residual] {
            let r = d_pos(&m, &d, output, &mut w);
            let f = d_pos(&m, &d, output, &mut fresh().0);
            assert_eq!(r, f, "{name} d_pos");
        }
        let (mut r, mut f) = (DMatrix::zeros(nv, nv), DMatrix::zeros(nv, nv));
        d_smooth_pos(&m, &d, Some(&d.qacc), terms, &mut w, &mut r);
        d_smooth_pos(&m, &d, Some(&d.qacc), terms, &mut fresh().0, &mut f);
        assert_eq!(r, f, "{name} d_smooth_pos");
        let (mut r, mut f) = (DMatrix::zeros(nv, m.nM), DMatrix::zeros(nv, m.nM));
        d_mass_pos(&m, &d, &mut w, &mut r);
        d_mass_pos(&m, &d, &mut fresh().0, &mut f);
        assert_eq!(r, f, "{name} d_mass_pos");
        let (mut r, mut f) = (DMatrix::zeros(nv, nv), DMatrix::zeros(nv, nv));
        let ok = add_constraint_pos(&m, &d, &mut w, &mut cw, &mut r);
        let (mut fw, mut fc) = fresh();
        assert_eq!(
            ok,
            add_constraint_pos(&m, &d, &mut fw, &mut fc, &mut f),
            "{name}"
        );
        assert_eq!(r, f, "{name} add_constraint_pos");
    }
}

#[test]
fn inverse_workspace() {
    let mut w = InverseDerivatives::default();
    for (name, m, d) in cases() {
        let mut fresh = InverseDerivatives::new(&m);
        let r = w.compute(&m, &mut d.clone());
        assert_eq!(r, fresh.compute(&m, &mut d.clone()), "{name}");
        assert_eq!(
            (&w.dq, &w.dv, &w.da),
            (&fresh.dq, &fresh.dv, &fresh.da),
            "{name}"
        );
    }
}
