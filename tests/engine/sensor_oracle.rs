//! Sensors and `mj_rnePostConstraint` against MuJoCo 4.0.0 (tests/reference/sensor_cases.json,
//! written by tools/reference/gen_sensor_cases.py): sensordata per sensor after `forward` and
//! after `inverse`, `cacc`, `cfrc_int`, `cfrc_ext`, `subtree_linvel`, `subtree_angmom`.

use crate::common;
use crate::sensor_common;

use common::*;
use moreau::model::Model;
use moreau::pipeline::{sensor_datatype, sensor_dim, sensor_stage};
use moreau::Data;
use sensor_common::*;
use serde_json::Value;

/// Relative tolerance: |a - b| <= TOL * max(1, |b|).
const TOL: f64 = 1e-10;

fn set_full_state(m: &Model, d: &mut Data<f64>, c: &Value) {
    set_state(m, d, c);
    d.time = c["time"].as_f64().unwrap();
}

fn cmp(what: &str, got: &[f64], want: &[f64], worst: &mut f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        let e = (a - b).abs() / b.abs().max(1.0);
        *worst = worst.max(e);
        assert!(e <= TOL, "{what}[{k}] = {a}, MuJoCo {b} (rel err {e:.2e})");
    }
}

fn flat6(v: &[nalgebra::Vector6<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}
fn flat3(v: &[nalgebra::Vector3<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

fn check_sensors(name: &str, m: &Model, got: &[f64], want: &[f64], worst: &mut f64) {
    for i in 0..m.nsensor {
        let a = m.sensor_adr[i];
        let n = m.sensor_dim[i];
        cmp(
            &format!(
                "{name} sensor {i} {:?} obj {:?}/{} ref {:?}/{} cutoff {}",
                m.sensor_type[i],
                m.sensor_objtype[i],
                m.sensor_objid[i],
                m.sensor_reftype[i],
                m.sensor_refid[i],
                m.sensor_cutoff[i]
            ),
            &got[a..a + n],
            &want[a..a + n],
            worst,
        );
    }
}

#[test]
fn sensor_metadata_matches_mujoco() {
    let all = load("sensor_cases.json");
    for e in all["models"].as_array().unwrap() {
        let j = &e["model"];
        let m = build_sensor_model(j);
        let dt = ints(&j["sensor_datatype"]);
        let st = ints(&j["sensor_needstage"]);
        for i in 0..m.nsensor {
            let t = m.sensor_type[i];
            assert_eq!(sensor_datatype(t) as i64, dt[i], "{t:?} datatype");
            assert_eq!(sensor_stage(t) as i64, st[i], "{t:?} needstage");
            assert_eq!(sensor_dim(t), m.sensor_dim[i], "{t:?} dim");
        }
    }
}

#[test]
fn sensors_match_mujoco() {
    let all = load("sensor_cases.json");
    let mut worst = 0.0f64;
    for e in all["models"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m = build_sensor_model(&e["model"]);
        let disabled = m.opt.disabled(moreau::model::disable::SENSOR);
        for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
            let name = format!("{name}#{k}");
            let mut d = Data::<f64>::new(&m);
            set_full_state(&m, &mut d, c);
            moreau::forward(&m, &mut d);
            let f = &c["forward"];
            cmp(
                &format!("{name} qacc"),
                &d.qacc,
                &fv(&f["qacc"]),
                &mut worst,
            );
            check_sensors(
                &format!("{name} forward"),
                &m,
                &d.sensordata,
                &fv(&f["sensordata"]),
                &mut worst,
            );
            if !disabled {
                let w = &mut worst;
                cmp(&format!("{name} cacc"), &flat6(&d.cacc), &fv(&f["cacc"]), w);
                let ci = fv(&f["cfrc_int"]);
                cmp(&format!("{name} cfrc_int"), &flat6(&d.cfrc_int), &ci, w);
                let ce = fv(&f["cfrc_ext"]);
                cmp(&format!("{name} cfrc_ext"), &flat6(&d.cfrc_ext), &ce, w);
                let lv = fv(&f["subtree_linvel"]);
                cmp(&format!("{name} linvel"), &flat3(&d.subtree_linvel), &lv, w);
                let am = fv(&f["subtree_angmom"]);
                cmp(&format!("{name} angmom"), &flat3(&d.subtree_angmom), &am, w);
            }
            // inverse dynamics with a given qacc: acceleration sensors see that qacc
            let inv = &c["inverse"];
            d.qacc.copy_from_slice(&fv(&c["qacc_in"]));
            moreau::inverse(&m, &mut d);
            cmp(
                &format!("{name} qfrc_inverse"),
                &d.qfrc_inverse,
                &fv(&inv["qfrc_inverse"]),
                &mut worst,
            );
            check_sensors(
                &format!("{name} inverse"),
                &m,
                &d.sensordata,
                &fv(&inv["sensordata"]),
                &mut worst,
            );
            if !disabled {
                let ci = fv(&inv["cfrc_int"]);
                cmp(
                    &format!("{name} inverse cfrc_int"),
                    &flat6(&d.cfrc_int),
                    &ci,
                    &mut worst,
                );
            }
        }
    }
    eprintln!("worst relative error {worst:.2e}");
}

/// Sensors are generic: on `Dual64` with a seeded `qvel`/`qpos` entry the values equal the f64
/// ones and the dual parts match central finite differences of `forward`.
#[test]
fn sensors_differentiate_with_duals() {
    use num_dual::Dual64;
    let all = load("sensor_cases.json");
    let e = &all["models"][0];
    let m = build_sensor_model(&e["model"]);
    let c = &e["cases"][0];
    let run = |dq: usize, dv: usize, hq: f64, hv: f64| {
        let mut d = Data::<f64>::new(&m);
        set_full_state(&m, &mut d, c);
        d.qpos[dq] += hq;
        d.qvel[dv] += hv;
        moreau::forward(&m, &mut d);
        d.sensordata
    };
    // qpos index 0 (hinge h0) and qvel index 5 (a ball dof)
    for (dq, dv, seed_q) in [(0usize, 5usize, true), (0, 5, false)] {
        let mut dd = Data::<Dual64>::new(&m);
        set_state(&m, &mut dd, c);
        dd.time = Dual64::from(c["time"].as_f64().unwrap());
        if seed_q {
            dd.qpos[dq] = dd.qpos[dq].derivative();
        } else {
            dd.qvel[dv] = dd.qvel[dv].derivative();
        }
        moreau::forward(&m, &mut dd);
        let base = run(dq, dv, 0.0, 0.0);
        let h = 1e-6;
        let (p, n) = if seed_q {
            (run(dq, dv, h, 0.0), run(dq, dv, -h, 0.0))
        } else {
            (run(dq, dv, 0.0, h), run(dq, dv, 0.0, -h))
        };
        for k in 0..m.nsensordata {
            let r = dd.sensordata[k].re;
            assert!(
                (r - base[k]).abs() < 1e-12 * base[k].abs().max(1.0),
                "{k}: {r} vs {}",
                base[k]
            );
            let fd = (p[k] - n[k]) / (2.0 * h);
            let e = (dd.sensordata[k].eps - fd).abs() / fd.abs().max(1.0);
            assert!(
                e < 1e-6,
                "sensordata[{k}]: dual {} fd {fd}",
                dd.sensordata[k].eps
            );
        }
    }
}
