//! Properties of the smooth pipeline that need no oracle: M symmetric positive definite,
//! factor/solve round-trip, genericity over `num_dual::Dual64` (derivatives vs central finite
//! differences), divergence checks.

use crate::common;

use common::*;
use moreau::data::Warning;
use moreau::model::{disable, JointType, Model};
use moreau::{forward, Data};
use nalgebra::DMatrix;
use num_dual::Dual64;
use serde_json::Value;

fn models() -> Vec<(String, Model, Value)> {
    let all = load_cases();
    all["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                build_model(&e["model"]),
                e["cases"][0].clone(),
            )
        })
        .collect()
}

#[test]
fn mass_matrix_spd_and_factor_roundtrip() {
    for (name, m, c) in models() {
        let mut d = Data::<f64>::new(&m);
        set_state(&m, &mut d, &c);
        forward(&m, &mut d);
        let nv = m.nv;
        let mut dense = vec![0.0; nv * nv];
        moreau::full_m(&m, &d.qM, &mut dense);
        let mm = DMatrix::from_row_slice(nv, nv, &dense);
        assert!(
            (&mm - mm.transpose()).amax() == 0.0,
            "{name}: M not symmetric"
        );
        assert!(
            mm.clone().cholesky().is_some(),
            "{name}: M not positive definite"
        );
        // D > 0 in the LtDL factor
        assert!(
            d.qLDiagInv.iter().all(|&x| x > 0.0),
            "{name}: D not positive"
        );
        // M (M⁻¹ x) = x and M⁻¹ (M x) = x
        let x: Vec<f64> = (0..nv).map(|i| (i as f64 * 0.7).sin() + 0.3).collect();
        let mut y = x.clone();
        moreau::solve_m(&m, &d, &mut y);
        let mut z = vec![0.0; nv];
        moreau::mul_m(&m, &d, &y, &mut z);
        let mut w = vec![0.0; nv];
        moreau::mul_m(&m, &d, &x, &mut w);
        moreau::solve_m(&m, &d, &mut w);
        for i in 0..nv {
            assert!(
                (z[i] - x[i]).abs() < 1e-12 * (1.0 + x[i].abs()),
                "{name}: M M⁻¹ x"
            );
            assert!(
                (w[i] - x[i]).abs() < 1e-12 * (1.0 + x[i].abs()),
                "{name}: M⁻¹ M x"
            );
        }
        // dense mul agrees
        let dm = &mm * nalgebra::DVector::from_column_slice(&y);
        for i in 0..nv {
            assert!((dm[i] - x[i]).abs() < 1e-12 * (1.0 + x[i].abs()));
        }
    }
}

fn run_f64(m: &Model, c: &Value, tweak: impl Fn(&mut Data<f64>)) -> Data<f64> {
    let mut d = Data::<f64>::new(m);
    set_state(m, &mut d, c);
    tweak(&mut d);
    forward(m, &mut d);
    d
}

/// A Data field read on the f64 and the dual run.
type Field = (
    &'static str,
    fn(&Data<f64>) -> &Vec<f64>,
    fn(&Data<Dual64>) -> &Vec<Dual64>,
);

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

/// The pipeline on `Dual64`: real parts equal the f64 run; `eps` parts (seeded on one qvel or
/// one scalar qpos) match central finite differences of the f64 pipeline.
#[test]
fn dual_numbers_give_values_and_derivatives() {
    let eps = 1e-6;
    let mut checked = 0;
    for (name, m, c) in models() {
        let d0 = run_f64(&m, &c, |_| {});
        // seeds: every qvel, and the qpos of every hinge/slide joint
        let mut seeds: Vec<(bool, usize)> = (0..m.nv).map(|k| (true, k)).collect();
        for j in 0..m.njnt {
            if matches!(m.jnt_type[j], JointType::Hinge | JointType::Slide) {
                seeds.push((false, m.jnt_qposadr[j]));
            }
        }
        for (vel, k) in seeds {
            let mut d = Data::<Dual64>::new(&m);
            set_state(&m, &mut d, &c);
            if vel {
                d.qvel[k].eps = 1.0;
            } else {
                d.qpos[k].eps = 1.0;
            }
            forward(&m, &mut d);
            let bump = |s: f64| {
                run_f64(
                    &m,
                    &c,
                    |d| {
                        if vel {
                            d.qvel[k] += s
                        } else {
                            d.qpos[k] += s
                        }
                    },
                )
            };
            let (dp, dm) = (bump(eps), bump(-eps));
            let fields: [Field; 5] = [
                ("qfrc_bias", |d| &d.qfrc_bias, |d| &d.qfrc_bias),
                ("qfrc_passive", |d| &d.qfrc_passive, |d| &d.qfrc_passive),
                ("qfrc_actuator", |d| &d.qfrc_actuator, |d| &d.qfrc_actuator),
                ("qacc_smooth", |d| &d.qacc_smooth, |d| &d.qacc_smooth),
                ("act_dot", |d| &d.act_dot, |d| &d.act_dot),
            ];
            for (f, g64, gd) in fields {
                for i in 0..g64(&d0).len() {
                    let re = gd(&d)[i].re;
                    assert!(close(re, g64(&d0)[i], 1e-13), "{name}: {f}[{i}] real part");
                    let fd = (g64(&dp)[i] - g64(&dm)[i]) / (2.0 * eps);
                    let ad = gd(&d)[i].eps;
                    assert!(
                        close(ad, fd, 1e-5),
                        "{name}: d{f}[{i}]/d{}[{k}] dual {ad} vs FD {fd}",
                        if vel { "qvel" } else { "qpos" }
                    );
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{checked} dual derivatives checked");
}

#[test]
fn divergence_checks_reset_and_warn() {
    let (_, m, c) = models().into_iter().find(|(n, ..)| n == "arm3").unwrap();
    // bad qpos, autoreset on: reset to qpos0, warning recorded with the index
    let mut d = Data::<f64>::new(&m);
    set_state(&m, &mut d, &c);
    d.qpos[1] = f64::NAN;
    moreau::pipeline::check_pos(&m, &mut d);
    assert_eq!(d.qpos, m.qpos0);
    assert!(d.qvel.iter().all(|&v| v == 0.0));
    let w = d.warning[Warning::BadQpos as usize];
    assert_eq!((w.number, w.lastinfo), (1, 1));
    // huge qvel, autoreset off: state kept, warning recorded
    let mut m2 = m.clone();
    m2.opt.disableflags |= disable::AUTORESET;
    let mut d = Data::<f64>::new(&m2);
    set_state(&m2, &mut d, &c);
    d.qvel[2] = 2e10;
    moreau::pipeline::check_vel(&m2, &mut d);
    assert_eq!(d.qvel[2], 2e10);
    let w = d.warning[Warning::BadQvel as usize];
    assert_eq!((w.number, w.lastinfo), (1, 2));
    // bad qacc: reset and forward recomputed
    let mut d = Data::<f64>::new(&m);
    set_state(&m, &mut d, &c);
    d.qfrc_applied[0] = f64::INFINITY;
    forward(&m, &mut d);
    moreau::pipeline::check_acc(&m, &mut d);
    assert_eq!(d.warning[Warning::BadQacc as usize].number, 1);
    assert!(d.qacc.iter().all(|x| x.is_finite()));
    let fresh = run_f64(&m, &c, |d| d.reset(&m));
    assert_eq!(d.qacc, fresh.qacc);
    // good state: nothing happens
    let mut d = Data::<f64>::new(&m);
    set_state(&m, &mut d, &c);
    let q = d.qpos.clone();
    moreau::pipeline::check_pos(&m, &mut d);
    moreau::pipeline::check_vel(&m, &mut d);
    assert_eq!(d.qpos, q);
    assert!(d.warning.iter().all(|w| w.number == 0));
}

#[test]
fn bad_ctrl_zeroes_inputs_and_warns() {
    let (_, m, c) = models()
        .into_iter()
        .find(|(n, ..)| n == "actuators")
        .unwrap();
    let mut d = run_f64(&m, &c, |d| d.ctrl[3] = f64::NAN);
    let w = d.warning[Warning::BadCtrl as usize];
    assert_eq!((w.number, w.lastinfo), (1, 3));
    assert!(d.ctrl[3].is_nan());
    // same as all-zero controls
    let z = run_f64(&m, &c, |d| d.ctrl.iter_mut().for_each(|u| *u = 0.0));
    assert_eq!(d.actuator_force, z.actuator_force);
    assert_eq!(d.act_dot, z.act_dot);
    d.warning = Default::default();
}

/// `rne(flg_acc = true) - rne(flg_acc = false) = M_rigid qacc` (armature is not part of RNE).
#[test]
fn rne_with_acceleration_is_mass_times_acc_plus_bias() {
    for (name, m, c) in models() {
        if m.dof_armature.iter().any(|&a| a != 0.0) || m.ntendon > 0 {
            continue;
        }
        let mut d = run_f64(&m, &c, |_| {});
        let x: Vec<f64> = (0..m.nv).map(|i| (i as f64 * 1.3).cos()).collect();
        d.qacc.copy_from_slice(&x);
        let mut with = vec![0.0; m.nv];
        moreau::pipeline::rne(&m, &mut d, true, &mut with);
        let mut mx = vec![0.0; m.nv];
        moreau::mul_m(&m, &d, &x, &mut mx);
        for i in 0..m.nv {
            let want = mx[i] + d.qfrc_bias[i];
            assert!(close(with[i], want, 1e-12), "{name}: rne(acc)[{i}]");
        }
    }
}

/// Body (adhesion) transmissions are supported (oracle: tests/engine/camera_rangefinder_oracle.rs): length 0, and
/// without contacts on the body a zero moment row.
#[test]
fn body_transmission_without_contacts() {
    let (_, mut m, c) = models()
        .into_iter()
        .find(|(n, ..)| n == "actuators")
        .unwrap();
    assert_eq!(moreau::pipeline::forward_unsupported(&m), None);
    m.actuator_trntype[0] = moreau::model::TrnType::Body;
    m.actuator_trnid[0] = [1, -1];
    assert_eq!(moreau::pipeline::forward_unsupported(&m), None);
    let d = run_f64(&m, &c, |_| {});
    assert_eq!(d.actuator_length[0], 0.0);
    if !d
        .contact
        .iter()
        .any(|k| k.geom.iter().any(|&g| m.geom_bodyid[g] == 1))
    {
        assert!(d.actuator_moment_dense()[..m.nv].iter().all(|&x| x == 0.0));
    }
    assert!(d.actuator_length[1].is_finite());
}
