//! Inverse dynamics against MuJoCo 4.0.0 (tests/reference/inverse_cases.json, written by
//! tools/reference/gen_sensor_cases.py): the pipeline-case models with constraints disabled,
//! random states and accelerations, plain and with `invdiscrete` under Euler (with and without
//! eulerdamp), implicitfast and implicit; plus the forward/inverse consistency `M a + c = τ`.

use crate::common;
use crate::sensor_common;

use common::*;
use moreau::model::{disable, enable, Integrator};
use moreau::pipeline::apply_ft;
use moreau::{inverse, Data};
use nalgebra::Vector3;
use sensor_common::*;

const TOL: f64 = 1e-10;

fn cmp(what: &str, got: &[f64], want: &[f64], worst: &mut f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        let e = (a - b).abs() / b.abs().max(1.0);
        *worst = worst.max(e);
        assert!(
            e <= TOL,
            "{what}[{k}] = {a}, MuJoCo {b} (rel err {e:.2e})\n got  {got:?}\n want {want:?}"
        );
    }
}

#[test]
fn inverse_matches_mujoco() {
    let all = load("inverse_cases.json");
    let mut worst = 0.0f64;
    for e in all["models"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m0 = build_sensor_model(&e["model"]);
        assert!(m0.opt.disabled(disable::CONSTRAINT));
        for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
            let name = format!("{name}#{k}");
            let mut d = Data::<f64>::new(&m0);
            set_state(&m0, &mut d, c);
            moreau::forward(&m0, &mut d);
            cmp(
                &format!("{name} forward qacc"),
                &d.qacc,
                &fv(&c["qacc_forward"]),
                &mut worst,
            );
            let qacc = fv(&c["qacc_in"]);
            d.qacc.copy_from_slice(&qacc);
            inverse(&m0, &mut d);
            cmp(
                &format!("{name} qfrc_inverse"),
                &d.qfrc_inverse,
                &fv(&c["qfrc_inverse"]),
                &mut worst,
            );
            for (iname, integ) in [
                ("euler", Integrator::Euler),
                ("implicitfast", Integrator::ImplicitFast),
                ("implicit", Integrator::Implicit),
            ] {
                let o = &c["discrete"][iname];
                let mut m = m0.clone();
                m.opt.integrator = integ;
                m.opt.enableflags |= enable::INVDISCRETE;
                // MuJoCo's qDeriv (dense in the file) on D's sparsity; inverse recomputes it
                let qd = fv(&o["qDeriv"]);
                for i in 0..m.nv {
                    let a = m.D_rowadr[i];
                    for k in a..a + m.D_rownnz[i] {
                        d.qDeriv[k] = qd[i * m.nv + m.D_colind[k]];
                    }
                }
                d.qacc.copy_from_slice(&qacc);
                inverse(&m, &mut d);
                cmp(
                    &format!("{name} {iname} invdiscrete qfrc_inverse"),
                    &d.qfrc_inverse,
                    &fv(&o["qfrc_inverse"]),
                    &mut worst,
                );
                assert_eq!(d.qacc, qacc, "{name}: qacc restored");
                m.opt.disableflags |= disable::EULERDAMP;
                inverse(&m, &mut d);
                cmp(
                    &format!("{name} {iname} invdiscrete noeulerdamp qfrc_inverse"),
                    &d.qfrc_inverse,
                    &fv(&o["qfrc_inverse_noeulerdamp"]),
                    &mut worst,
                );
            }
        }
    }
    eprintln!("worst relative error {worst:.2e}");
}

/// forward then inverse on the forward `qacc` returns the applied forces:
/// `qfrc_inverse = qfrc_applied + qfrc_actuator + Σ Jᵀ xfrc_applied`.
#[test]
fn forward_then_inverse_returns_applied_forces() {
    let all = load("inverse_cases.json");
    for e in all["models"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m = build_sensor_model(&e["model"]);
        for c in e["cases"].as_array().unwrap() {
            let mut d = Data::<f64>::new(&m);
            set_state(&m, &mut d, c);
            moreau::forward(&m, &mut d);
            inverse(&m, &mut d);
            let mut tau: Vec<f64> = (0..m.nv)
                .map(|i| d.qfrc_applied[i] + d.qfrc_actuator[i])
                .collect();
            for b in 1..m.nbody {
                let x = d.xfrc_applied[b];
                let f = Vector3::new(x[0], x[1], x[2]);
                let t = Vector3::new(x[3], x[4], x[5]);
                apply_ft(&m, &d, &f, &t, &d.xipos[b], b, &mut tau);
            }
            let scale = tau.iter().fold(1.0f64, |s, x| s.max(x.abs()));
            for (i, t) in tau.iter().enumerate() {
                let err = (d.qfrc_inverse[i] - t).abs() / scale;
                assert!(err < 1e-12, "{name}: dof {i} err {err:.2e}");
            }
        }
    }
}

/// inverse allocates nothing and is generic: runs on duals with the same values.
#[test]
fn inverse_generic_over_duals() {
    use num_dual::Dual64;
    let all = load("inverse_cases.json");
    for e in all["models"].as_array().unwrap() {
        let m = build_sensor_model(&e["model"]);
        let c = &e["cases"][0];
        let mut d = Data::<f64>::new(&m);
        let mut dd = Data::<Dual64>::new(&m);
        set_state(&m, &mut d, c);
        set_state(&m, &mut dd, c);
        let qacc = fv(&c["qacc_in"]);
        d.qacc.copy_from_slice(&qacc);
        for (x, y) in dd.qacc.iter_mut().zip(&qacc) {
            *x = Dual64::from(*y);
        }
        inverse(&m, &mut d);
        inverse(&m, &mut dd);
        for i in 0..m.nv {
            assert!((dd.qfrc_inverse[i].re - d.qfrc_inverse[i]).abs() < 1e-12);
        }
    }
}
