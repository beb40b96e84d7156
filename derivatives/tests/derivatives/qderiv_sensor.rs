//! The implicitfast `∂(sym qDeriv · a)/∂q` of [`moreau_derivatives::smooth_vel_pos`] and the sensor
//! Jacobians `C`, `D` of [`moreau_derivatives::sensor`] (through
//! `moreau_derivatives::transition` with `TransitionOptions::sensors`):
//! - `∂qDeriv/∂q · a` against the full dual pass (`Dual64` forward + `smooth_vel` per tangent
//!   direction), 1e-10 relative to the largest entry;
//! - `A`, `B`, `C`, `D` against the dual step (`Dual64` through collision, the constraint solver
//!   run to `tolerance = 0` so the dual of its iterates is the IFT derivative, and the sensors),
//!   1e-9 relative to the largest entry (pyramidal cones reach ~1e-13; with the elliptic cone
//!   the dual of the Newton iterates is ~4e-10 from the IFT derivative after 100 iterations);
//! - against centered FD of the `f64` step (eps 1e-6) and MuJoCo 4.0.0's `mjd_transitionFD`
//!   (tests/reference/sensor_jac_cases.json from tools/reference/gen_sensor_jac_cases.py,
//!   centered, eps 1e-6): FD truncation and the solver's tolerance limit these to 1e-5.
//!
//! Models: models/tendon_velocity.xml (implicitfast; spatial tendons with damping and velocity
//! actuators, a site and a ball-in-parent transmission with `kv`, sensors of every stage),
//! with and without contacts, also under Euler and with the elliptic cone; the quadruped and
//! hopper_leg under implicitfast; the sensor models of fd_cases.json (zoo, zoo2).

use moreau::model::{disable, Integrator};
use moreau::{step, Data, Model};
use moreau_derivatives::dual::{lift, qpos_tangent, seed};
use moreau_derivatives::smooth_vel_pos::add_dqderiv_vec;
use moreau_derivatives::{transition, TransitionJacobians, TransitionOptions, Workspace};
use nalgebra::DMatrix;
use num_dual::Dual64;
use serde_json::Value;

use crate::common;
use common::model;

/// `max |a − b| / max(1e-300, max |b|)`.
fn rel(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    assert_eq!(a.shape(), b.shape());
    if a.is_empty() {
        return 0.0;
    }
    (a - b).amax() / b.amax().max(1e-300)
}

/// Keyframe 0 (if any), controls from `seed`, `settle` steps, then a random tangent position
/// (scale `dq`, small enough to keep resting contacts) / velocity / activation perturbation;
/// forwarded.
fn state(m: &Model, seed: u64, settle: usize, dq: f64) -> Data<f64> {
    common::state(m, common::xorshift(seed), settle, dq, 0.02)
}

/// `(S ∘ ∂qDeriv/∂q_i) a` by the full dual pass: a `Dual64` forward per tangent direction,
/// then `smooth_vel` (implicitfast's `qDeriv`), symmetrized and restricted to M's pattern.
fn dqderiv_dual(m: &Model, d: &Data<f64>, a: &[f64]) -> DMatrix<f64> {
    let nv = m.nv;
    let mut out = DMatrix::zeros(nv, nv);
    for i in 0..nv {
        let mut dd = lift(m, d);
        seed(m, &mut dd, i);
        moreau::forward(m, &mut dd);
        moreau::pipeline::smooth_vel(m, &mut dd, false);
        let mut full = vec![Dual64::from(0.0); nv * nv];
        moreau::pipeline::full_d(m, &dd.qDeriv, &mut full);
        let q = |r: usize, c: usize| full[r * nv + c].eps;
        for r in 0..nv {
            // pattern: r, its ancestors and its descendants
            for (c, ac) in a.iter().enumerate() {
                let related = {
                    let (hi, lo) = if r >= c { (r, c) } else { (c, r) };
                    let mut k = hi as i32;
                    while k > lo as i32 {
                        k = m.dof_parentid[k as usize];
                    }
                    k == lo as i32
                };
                if related {
                    out[(r, i)] += 0.5 * (q(r, c) + q(c, r)) * ac;
                }
            }
        }
    }
    out
}

/// `A, B, C, D` of one step by duals (rows outputs; sensors of the step's forward).
fn dual_transition(m: &Model, d: &Data<f64>) -> [DMatrix<f64>; 4] {
    let (nv, na, nu, ns) = (m.nv, m.na, m.nu, m.nsensordata);
    let nx = 2 * nv + na;
    let mut y = DMatrix::zeros(nx, nx + nu);
    let mut s = DMatrix::zeros(ns, nx + nu);
    let mut tq = vec![0.0; nv];
    for k in 0..nx + nu {
        let mut dd = lift(m, d);
        seed(m, &mut dd, k);
        step(m, &mut dd);
        qpos_tangent(m, &dd.qpos, &mut tq);
        for r in 0..nv {
            y[(r, k)] = tq[r];
            y[(nv + r, k)] = dd.qvel[r].eps;
        }
        for r in 0..na {
            y[(2 * nv + r, k)] = dd.act[r].eps;
        }
        for r in 0..ns {
            s[(r, k)] = dd.sensordata[r].eps;
        }
    }
    [
        y.columns(0, nx).into_owned(),
        y.columns(nx, nu).into_owned(),
        s.columns(0, nx).into_owned(),
        s.columns(nx, nu).into_owned(),
    ]
}

/// Analytic `A, B, C, D` against duals (1e-9) and centered FD (1e-5); the implicitfast
/// correction `∂qDeriv/∂q · a` against its full dual pass (1e-10). Returns the size of that
/// correction relative to `M`'s, to show it is exercised.
fn check(name: &str, m: &Model, d0: &Data<f64>) -> f64 {
    let mut d = d0.clone();
    let mut w = Workspace::default();
    let t = w
        .transition(m, &mut d, &TransitionOptions::analytic().with_sensors(true))
        .cloned()
        .unwrap();
    let (nx, nu, ns) = (2 * m.nv + m.na, m.nu, m.nsensordata);
    assert_eq!(t.C.shape(), (ns, nx), "{name}: C shape");
    assert_eq!(t.D.shape(), (ns, nu), "{name}: D shape");
    // asking for C, D leaves A, B bit for bit as they are without
    let t0 = w
        .transition(
            m,
            &mut d0.clone(),
            &TransitionOptions::analytic().with_sensors(false),
        )
        .cloned()
        .unwrap();
    assert!(
        t0.A == t.A && t0.B == t.B && t0.C.is_empty(),
        "{name}: flg_sensor changed A, B"
    );
    let want = dual_transition(m, d0);
    let got = [&t.A, &t.B, &t.C, &t.D];
    let e: Vec<f64> = (0..4).map(|k| rel(got[k], &want[k])).collect();
    let mut dfd = d0.clone();
    let f = transition(m, &mut dfd, &TransitionOptions::fd(1e-6, true)).unwrap();
    let fdm = [&f.A, &f.B, &f.C, &f.D];
    let ef: Vec<f64> = (0..4).map(|k| rel(got[k], fdm[k])).collect();
    // the implicitfast term on its own, at the step's a_int-like vector (qacc)
    let mut shift = 0.0;
    if m.opt.integrator == Integrator::ImplicitFast {
        let a = d0.qacc.clone();
        let mut ours = DMatrix::zeros(m.nv, m.nv);
        let mut w = moreau_derivatives::Work::default();
        add_dqderiv_vec(m, d0, &a, 1.0, &mut w, &mut ours);
        let dual = dqderiv_dual(m, d0, &a);
        let eq = rel(&ours, &dual);
        shift = dual.amax();
        eprintln!("{name}: ∂qDeriv/∂q·a vs full dual {eq:.1e} (max |entry| {shift:.2e})");
        assert!(
            eq < 1e-10 || dual.amax() == 0.0 && ours.amax() == 0.0,
            "{name}: ∂qDeriv/∂q·a {eq:.2e}\n{ours:.4}\n{dual:.4}"
        );
    }
    eprintln!(
        "{name}: nefc {}, vs dual A {:.1e} B {:.1e} C {:.1e} D {:.1e}; vs centered FD A {:.1e} \
         B {:.1e} C {:.1e} D {:.1e}",
        d0.nefc, e[0], e[1], e[2], e[3], ef[0], ef[1], ef[2], ef[3]
    );
    for (k, x) in ["A", "B", "C", "D"].iter().zip(&e) {
        assert!(*x < 1e-9, "{name}: {k} vs dual {x:.2e}");
    }
    for (k, x) in ["A", "B", "C", "D"].iter().zip(&ef) {
        assert!(*x < 1e-5, "{name}: {k} vs FD {x:.2e}");
    }
    shift
}

#[test]
fn tendon_velocity_contact() {
    let m = model("tendon_velocity", None);
    assert_eq!(m.opt.integrator, Integrator::ImplicitFast);
    for seed in [1, 2] {
        let d = state(&m, seed, 300, 2e-5);
        assert!(
            d.contact.len() >= 4,
            "{} contacts after settling",
            d.contact.len()
        );
        let shift = check(&format!("tendon_velocity seed {seed}"), &m, &d);
        assert!(
            shift > 1e-3,
            "the q-dependent qDeriv term is not exercised: {shift}"
        );
    }
}

#[test]
fn tendon_velocity_no_contact() {
    let mut m = model("tendon_velocity", None);
    m.opt.disableflags |= disable::CONTACT;
    let d = state(&m, 3, 20, 0.02);
    assert!(d.contact.is_empty(), "contacts with the contact flag off");
    check("tendon_velocity without contacts", &m, &d);
}

/// Rows of a JSON matrix (`nr × nc`).
fn json_mat(v: &Value, nr: usize, nc: usize) -> DMatrix<f64> {
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), nr);
    let mut out = DMatrix::zeros(nr, nc);
    for (i, r) in rows.iter().enumerate() {
        let r = r.as_array().unwrap();
        assert_eq!(r.len(), nc);
        for (j, x) in r.iter().enumerate() {
            out[(i, j)] = x.as_f64().unwrap();
        }
    }
    out
}

fn json_vec(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Against MuJoCo 4.0.0's centered `mjd_transitionFD` (sensor_jac_cases.json): the sensors
/// themselves to 1e-9, `A, B, C, D` to 1e-6 relative to each matrix's largest entry (FD
/// truncation and round-off at eps 1e-6 on entries up to 1.6e4).
#[test]
fn tendon_velocity_vs_mujoco() {
    let p = format!(
        "{}/../tests/reference/sensor_jac_cases.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let all: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let m0 = model("tendon_velocity", None);
    let mut w = Workspace::default();
    for c in all["cases"].as_array().unwrap() {
        let label = c["label"].as_str().unwrap();
        let mut m = m0.clone();
        m.opt.tolerance = all["tolerance"].as_f64().unwrap();
        if c["disable_contact"].as_bool() == Some(true) {
            m.opt.disableflags |= disable::CONTACT;
        }
        let st = &c["state"];
        let mut d = Data::new(&m);
        d.qpos.copy_from_slice(&json_vec(&st["qpos"]));
        d.qvel.copy_from_slice(&json_vec(&st["qvel"]));
        d.act.copy_from_slice(&json_vec(&st["act"]));
        d.ctrl.copy_from_slice(&json_vec(&st["ctrl"]));
        d.qacc_warmstart
            .copy_from_slice(&json_vec(&st["qacc_warmstart"]));
        moreau::forward(&m, &mut d);
        assert_eq!(d.nefc as u64, c["nefc"].as_u64().unwrap(), "{label}: nefc");
        let s = DMatrix::from_column_slice(m.nsensordata, 1, &d.sensordata);
        let sw = DMatrix::from_column_slice(m.nsensordata, 1, &json_vec(&c["sensordata"]));
        let es = rel(&s, &sw);
        let t = w
            .transition(
                &m,
                &mut d,
                &TransitionOptions::analytic().with_sensors(true),
            )
            .cloned()
            .unwrap();
        let e = abcd_errors(&m, &t, c);
        eprintln!(
            "{label} vs MuJoCo mjd_transitionFD: nefc {}, sensordata {es:.1e}, A {:.1e} B {:.1e} C {:.1e} D {:.1e}",
            d.nefc, e[0], e[1], e[2], e[3]
        );
        assert!(es < 1e-9, "{label}: sensordata {es:.2e}");
        for (k, x) in ["A", "B", "C", "D"].iter().zip(&e) {
            assert!(*x < 1e-6, "{label}: {k} vs MuJoCo {x:.2e}");
        }
    }
}

/// The analytic `A, B, C, D` against MuJoCo 4.0.0's centered `mjd_transitionFD` on the cases
/// of tests/reference/fd_cases.json with sensors that the analytic transition supports (the
/// zoo models: frame, ball-joint, subtree and actuator sensors; MuJoCo's default solver
/// tolerance, no contact): 1e-6 relative to each matrix's largest entry.
#[test]
fn fd_cases_sensors_vs_mujoco() {
    let root = format!("{}/..", env!("CARGO_MANIFEST_DIR"));
    let p = format!("{root}/tests/reference/fd_cases.json");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let (mut ran, mut skipped) = (0, Vec::new());
    for c in all["cases"].as_array().unwrap() {
        if c["method"].as_str() != Some("mjd_transitionFD") {
            continue;
        }
        let mut m = match c["xml"].as_str() {
            Some(xml) => moreau::load_from_str(xml, &moreau::Vfs::default()).unwrap(),
            None => moreau::load(format!("{root}/{}", c["model"].as_str().unwrap())).unwrap(),
        };
        if m.nsensordata == 0 {
            continue;
        }
        let integ = c["integrator"].as_str();
        match integ {
            Some("implicitfast") => m.opt.integrator = Integrator::ImplicitFast,
            Some("implicit") => m.opt.integrator = Integrator::Implicit,
            _ => {}
        }
        let name = format!("{} {integ:?} state {}", c["model"], c["state_index"]);
        if let Err(e) = moreau_derivatives::Support::transition(&m).check() {
            skipped.push(format!("{name}: {e}"));
            continue;
        }
        let st = &c["state"];
        let mut d = Data::new(&m);
        d.qpos.copy_from_slice(&json_vec(&st["qpos"]));
        d.qvel.copy_from_slice(&json_vec(&st["qvel"]));
        d.act.copy_from_slice(&json_vec(&st["act"]));
        d.ctrl.copy_from_slice(&json_vec(&st["ctrl"]));
        d.qacc_warmstart
            .copy_from_slice(&json_vec(&st["qacc_warmstart"]));
        let (mp, mq) = (json_vec(&st["mocap_pos"]), json_vec(&st["mocap_quat"]));
        for b in 0..m.nmocap {
            d.mocap_pos[b] = nalgebra::Vector3::new(mp[3 * b], mp[3 * b + 1], mp[3 * b + 2]);
            d.mocap_quat[b] =
                nalgebra::Quaternion::new(mq[4 * b], mq[4 * b + 1], mq[4 * b + 2], mq[4 * b + 3]);
        }
        // a workspace belongs to one model
        let t = Workspace::default()
            .transition(
                &m,
                &mut d,
                &TransitionOptions::analytic().with_sensors(true),
            )
            .cloned()
            .unwrap();
        let want = &c["transition"]["centered"];
        let e = abcd_errors(&m, &t, want);
        eprintln!(
            "{name}: A {:.1e} B {:.1e} C {:.1e} D {:.1e}",
            e[0], e[1], e[2], e[3]
        );
        for (k, x) in ["A", "B", "C", "D"].iter().zip(&e) {
            assert!(*x < 1e-6, "{name}: {k} vs MuJoCo {x:.2e}");
        }
        ran += 1;
    }
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    assert!(ran >= 4, "only {ran} cases ran");
}

/// Implicitfast with joint actuators only (`∂qDeriv/∂q = 0`, no dual pass at all) through
/// contact: A, B against duals and FD.
#[test]
fn implicitfast_joint_actuators() {
    for (name, settle) in [("hopper_leg", 50), ("quadruped", 200)] {
        let m = model(name, Some(Integrator::ImplicitFast));
        let d = state(&m, 5, settle, 2e-5);
        assert!(d.nefc > 0, "{name}: no contact");
        check(&format!("{name} implicitfast"), &m, &d);
    }
}

/// `C`, `D` are zero with the sensor disable flag (the sensors are not computed) and refused,
/// with an error, under the noslip post-pass at a contact state (where `A`, `B` alone are not).
#[test]
fn sensor_flags_and_refusals() {
    let mut m = model("tendon_velocity", None);
    m.opt.disableflags |= disable::SENSOR;
    let mut d = state(&m, 1, 300, 2e-5);
    let t = Workspace::default()
        .transition(
            &m,
            &mut d,
            &TransitionOptions::analytic().with_sensors(true),
        )
        .cloned()
        .unwrap();
    assert_eq!(t.C.shape(), (m.nsensordata, 2 * m.nv + m.na));
    assert!(t.C.amax() == 0.0 && t.D.amax() == 0.0);
    let mut m = model("tendon_velocity", None);
    m.opt.noslip_iterations = 3;
    let mut d = state(&m, 1, 300, 2e-5);
    let e = Workspace::default()
        .transition(
            &m,
            &mut d,
            &TransitionOptions::analytic().with_sensors(true),
        )
        .cloned()
        .unwrap_err();
    assert!(e.to_string().contains("noslip"), "{e}");
    // A, B alone are derived through the post-pass (tests/derivatives/noslip.rs checks them)
    let t = Workspace::default()
        .transition(
            &m,
            &mut d,
            &TransitionOptions::analytic().with_sensors(false),
        )
        .cloned()
        .unwrap();
    assert_eq!(t.A.shape(), (2 * m.nv + m.na, 2 * m.nv + m.na));
}

/// The sensor Jacobians under Euler and with the elliptic cone (touch and force sensors decode
/// elliptic contact forces), at a contact state.
#[test]
fn tendon_velocity_euler_elliptic() {
    for (label, integ, elliptic) in [
        ("Euler", Integrator::Euler, false),
        ("elliptic", Integrator::ImplicitFast, true),
    ] {
        let mut m = model("tendon_velocity", Some(integ));
        if elliptic {
            m.opt.cone = moreau::model::Cone::Elliptic;
        }
        let d = state(&m, 4, 300, 2e-5);
        assert!(
            d.contact.len() >= 4,
            "{label}: {} contacts",
            d.contact.len()
        );
        check(&format!("tendon_velocity {label}"), &m, &d);
    }
}

/// Relative errors of A, B, C, D against MuJoCo's matrices in `want` (keys "A" … "D").
fn abcd_errors(m: &Model, t: &TransitionJacobians, want: &Value) -> [f64; 4] {
    let (nx, nu, ns) = (2 * m.nv + m.na, m.nu, m.nsensordata);
    [
        rel(&t.A, &json_mat(&want["A"], nx, nx)),
        rel(&t.B, &json_mat(&want["B"], nx, nu)),
        rel(&t.C, &json_mat(&want["C"], ns, nx)),
        rel(&t.D, &json_mat(&want["D"], ns, nu)),
    ]
}
