//! Cameras, body (adhesion) transmissions, length ranges and rangefinders against MuJoCo 4.0.0
//! (tests/reference/phys8c_cases.json, written by tools/reference/gen_phys8c_cases.py). Every model
//! is compiled from its XML by moreau's loader.
//! - cameras: compiled `cam_*` fields, `cam_xpos` / `cam_xmat` for the modes fixed, track,
//!   trackcom, targetbody, targetbodycom, and camera frame sensors;
//! - `mj_ray` skipping invisible geoms (material alpha, else rgba alpha), and rangefinders;
//! - body (adhesion) transmission: moment, force, `qfrc_actuator`, and a 200-step rollout.
//!
//! Error measure `|a − b| / max(1, |b|)`; tolerance 1e-10 for the smooth quantities (the
//! contact rollout too: the same Newton iterations run in both).

use moreau::data::Data;
use moreau::model::Model;
use nalgebra::Vector3;
use serde_json::Value;

const TOL: f64 = 1e-10;
const TOL_ROLLOUT: f64 = 1e-10;
const TOL_INSIDE: f64 = 1e-8;

fn load() -> Value {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/phys8c_cases.json"
    );
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Flattens nested JSON arrays of numbers.
fn fv(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().flat_map(fv).collect(),
        Value::Number(x) => vec![x.as_f64().unwrap()],
        Value::Bool(b) => vec![*b as u8 as f64],
        _ => vec![],
    }
}

fn cmp(what: &str, got: &[f64], want: &[f64], tol: f64) -> f64 {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let mut worst = 0.0f64;
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        let e = (a - b).abs() / b.abs().max(1.0);
        assert!(
            e <= tol,
            "{what}[{k}] = {a}, MuJoCo {b} (rel err {e:.2e})\n got  {got:?}\n want {want:?}"
        );
        worst = worst.max(e);
    }
    worst
}

fn compile(xml: &Value) -> Model {
    let m = moreau::load_from_str(xml.as_str().unwrap(), &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(moreau::pipeline::forward_unsupported(&m), None);
    m
}

fn set_state(d: &mut Data<f64>, c: &Value) {
    d.qpos.copy_from_slice(&fv(&c["qpos"]));
    d.qvel.copy_from_slice(&fv(&c["qvel"]));
    d.ctrl.copy_from_slice(&fv(&c["ctrl"]));
    d.act.copy_from_slice(&fv(&c["act"]));
}

fn flat3(v: &[Vector3<f64>]) -> Vec<f64> {
    v.iter().flat_map(|x| x.iter().copied()).collect()
}

fn flat_mat(v: &[nalgebra::Matrix3<f64>]) -> Vec<f64> {
    // row-major like MuJoCo
    v.iter()
        .flat_map(|r| (0..9).map(move |k| r[(k / 3, k % 3)]))
        .collect()
}

#[test]
fn cameras_match_mujoco() {
    let all = load();
    let e = &all["cameras"];
    let m = compile(&e["xml"]);
    let md = &e["model"];
    let ints = |v: &[usize]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    let modes: Vec<f64> = m.cam_mode.iter().map(|&x| x as u8 as f64).collect();
    cmp("cam_mode", &modes, &fv(&md["cam_mode"]), 0.0);
    cmp(
        "cam_bodyid",
        &ints(&m.cam_bodyid),
        &fv(&md["cam_bodyid"]),
        0.0,
    );
    let tb: Vec<f64> = m.cam_targetbodyid.iter().map(|&x| x as f64).collect();
    cmp("cam_targetbodyid", &tb, &fv(&md["cam_targetbodyid"]), 0.0);
    let mut w = 0.0f64;
    w = w.max(cmp("cam_pos", &fv3(&m.cam_pos), &fv(&md["cam_pos"]), TOL));
    w = w.max(cmp(
        "cam_quat",
        &fv4(&m.cam_quat),
        &fv(&md["cam_quat"]),
        TOL,
    ));
    w = w.max(cmp(
        "cam_pos0",
        &fv3(&m.cam_pos0),
        &fv(&md["cam_pos0"]),
        TOL,
    ));
    w = w.max(cmp(
        "cam_poscom0",
        &fv3(&m.cam_poscom0),
        &fv(&md["cam_poscom0"]),
        TOL,
    ));
    let mat0: Vec<f64> = m.cam_mat0.iter().flatten().copied().collect();
    w = w.max(cmp("cam_mat0", &mat0, &fv(&md["cam_mat0"]), TOL));
    for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
        let mut d = Data::<f64>::new(&m);
        set_state(&mut d, c);
        moreau::forward(&m, &mut d);
        let n = format!("case {k}");
        w = w.max(cmp(
            &format!("{n} cam_xpos"),
            &flat3(&d.cam_xpos),
            &fv(&c["cam_xpos"]),
            TOL,
        ));
        w = w.max(cmp(
            &format!("{n} cam_xmat"),
            &flat_mat(&d.cam_xmat),
            &fv(&c["cam_xmat"]),
            TOL,
        ));
        w = w.max(cmp(
            &format!("{n} sensordata"),
            &d.sensordata,
            &fv(&c["sensordata"]),
            TOL,
        ));
    }
    eprintln!("cameras: worst rel err {w:.2e}");
}

fn fv3(v: &[[f64; 3]]) -> Vec<f64> {
    v.iter().flatten().copied().collect()
}

fn fv4(v: &[[f64; 4]]) -> Vec<f64> {
    v.iter().flatten().copied().collect()
}

#[test]
fn ray_skips_invisible_geoms_like_mujoco() {
    let all = load();
    let e = &all["rays"];
    let m = compile(&e["xml"]);
    let md = &e["model"];
    let rgba: Vec<[f64; 4]> = m.geom_rgba.iter().map(|c| c.map(f64::from)).collect();
    cmp("geom_rgba", &fv4(&rgba), &fv(&md["geom_rgba"]), 1e-7); // MuJoCo stores f32
    let mat: Vec<f64> = m.geom_matid.iter().map(|&x| x as f64).collect();
    cmp("geom_matid", &mat, &fv(&md["geom_matid"]), 0.0);
    cmp("mat_rgba", &fv4(&m.mat_rgba), &fv(&md["mat_rgba"]), 1e-7);
    let mut d = Data::<f64>::new(&m);
    moreau::forward(&m, &mut d);
    cmp("rangefinders", &d.sensordata, &fv(&e["sensordata"]), TOL);
    let mut hits = 0;
    for (k, q) in e["queries"].as_array().unwrap().iter().enumerate() {
        let p = fv(&q["pnt"]);
        let v = fv(&q["vec"]);
        let gg = match &q["geomgroup"] {
            Value::Null => None,
            g => {
                let g = fv(g);
                Some(std::array::from_fn(|i| g[i] != 0.0))
            }
        };
        let be = usize::try_from(q["bodyexclude"].as_i64().unwrap()).ok();
        let (x, g) = moreau::ray(
            &m,
            &d,
            &Vector3::new(p[0], p[1], p[2]),
            &Vector3::new(v[0], v[1], v[2]),
            gg,
            q["flg_static"].as_i64().unwrap() != 0,
            be,
        );
        let gid = g.map_or(-1, |g| g as i64);
        assert_eq!(gid, q["geomid"].as_i64().unwrap(), "query {k}: geom");
        cmp(
            &format!("query {k} dist"),
            &[x],
            &[q["dist"].as_f64().unwrap()],
            TOL,
        );
        hits += (gid >= 0) as usize;
    }
    assert!(hits > 10, "too few hits to be meaningful: {hits}");
}

#[test]
fn body_transmission_matches_mujoco() {
    let all = load();
    let e = &all["adhesion"];
    let m = compile(&e["xml"]);
    let md = &e["model"];
    let gain: Vec<f64> = m.actuator_gainprm.iter().flatten().copied().collect();
    cmp("actuator_gainprm", &gain, &fv(&md["actuator_gainprm"]), 0.0);
    let cr: Vec<f64> = m.actuator_ctrlrange.iter().flatten().copied().collect();
    cmp(
        "actuator_ctrlrange",
        &cr,
        &fv(&md["actuator_ctrlrange"]),
        0.0,
    );
    let cl: Vec<f64> = m
        .actuator_ctrllimited
        .iter()
        .map(|&b| b as u8 as f64)
        .collect();
    cmp(
        "actuator_ctrllimited",
        &cl,
        &fv(&md["actuator_ctrllimited"]),
        0.0,
    );
    let mut w = 0.0f64;
    for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
        let mut d = Data::<f64>::new(&m);
        set_state(&mut d, c);
        moreau::forward(&m, &mut d);
        let n = format!("case {k}");
        assert_eq!(
            d.contact.len() as u64,
            c["ncon"].as_u64().unwrap(),
            "{n}: ncon"
        );
        for (f, got) in [
            ("actuator_length", &d.actuator_length),
            ("actuator_moment", &d.actuator_moment_dense()),
            ("actuator_velocity", &d.actuator_velocity),
            ("actuator_force", &d.actuator_force),
            ("qfrc_actuator", &d.qfrc_actuator),
        ] {
            w = w.max(cmp(&format!("{n} {f}"), got, &fv(&c[f]), TOL));
        }
    }
    eprintln!("adhesion: worst rel err {w:.2e}");
    let ro = &e["rollout"];
    let mut d = Data::<f64>::new(&m);
    d.ctrl.copy_from_slice(&fv(&ro["ctrl"]));
    let qpos = ro["qpos"].as_array().unwrap();
    let qvel = ro["qvel"].as_array().unwrap();
    let mut wr = 0.0f64;
    for s in 0..ro["nstep"].as_u64().unwrap() as usize {
        moreau::step(&m, &mut d);
        if (s + 1) % 50 == 0 {
            let i = s / 50;
            wr = wr.max(cmp(
                &format!("step {s} qpos"),
                &d.qpos,
                &fv(&qpos[i]),
                TOL_ROLLOUT,
            ));
            wr = wr.max(cmp(
                &format!("step {s} qvel"),
                &d.qvel,
                &fv(&qvel[i]),
                TOL_ROLLOUT,
            ));
        }
    }
    eprintln!("adhesion rollout: worst rel err {wr:.2e}");
}

/// Side sites inside the wrapping geom (sphere; cylinder) and, as a control, a cylinder side
/// site inside the circle in 2D but outside the geom in 3D (ordinary side-site wrap).
///
/// MuJoCo finds the contact point of an inside wrap iteratively and stops at a tolerance: its
/// point differs from the exact minimizer by ~3e-10 (moreau's point agrees with a 40-digit
/// mpmath solution to 1e-17 on case 0). So the path points and everything first-order in them
/// (`ten_J`, moments, velocities, forces) are compared at `TOL_INSIDE`; the lengths, second-order
/// in the point, at `TOL`. The exactness of moreau's point is checked separately: at the
/// contact point on the sphere the two unit vectors towards the neighbouring path points must sum
/// to a vector along the sphere normal (reflection law), to 1e-12.
#[test]
fn inside_wrap_matches_mujoco() {
    let all = load();
    let e = &all["inside"];
    let m = compile(&e["xml"]);
    let mut w = 0.0f64;
    let mut checked = 0;
    for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
        let mut d = Data::<f64>::new(&m);
        set_state(&mut d, c);
        moreau::forward(&m, &mut d);
        let n = format!("case {k}");
        let num: Vec<usize> = fv(&c["ten_wrapnum"]).iter().map(|x| *x as usize).collect();
        assert_eq!(d.ten_wrapnum, num, "{n}: ten_wrapnum");
        let used: usize = num.iter().sum();
        let obj: Vec<i32> = fv(&c["wrap_obj"]).iter().map(|x| *x as i32).collect();
        assert_eq!(d.wrap_obj[..used], obj[..], "{n}: wrap_obj");
        let xp = flat3(&d.wrap_xpos[..used]);
        w = w.max(cmp(
            &format!("{n} wrap_xpos"),
            &xp,
            &fv(&c["wrap_xpos"]),
            TOL_INSIDE,
        ));
        for (f, got) in [
            ("ten_length", &d.ten_length),
            ("actuator_length", &d.actuator_length),
        ] {
            w = w.max(cmp(&format!("{n} {f}"), got, &fv(&c[f]), TOL));
        }
        // reflection law at the sphere contact point (geom 0, centered at the world origin)
        for i in 1..used.saturating_sub(1) {
            if d.wrap_obj[i] == 0 && d.wrap_obj[i + 1] == 0 {
                let t = d.wrap_xpos[i];
                let s = (d.wrap_xpos[i - 1] - t).normalize() + (d.wrap_xpos[i + 2] - t).normalize();
                let nrm = t.normalize();
                let tangential = s - nrm * s.dot(&nrm);
                assert!(
                    tangential.norm() < 1e-12,
                    "{n}: not a stationary point {tangential:?}"
                );
                checked += 1;
            }
        }
        for (f, got) in [
            ("ten_J", &d.ten_J_dense()),
            ("ten_velocity", &d.ten_velocity),
            ("qfrc_passive", &d.qfrc_passive),
            ("actuator_moment", &d.actuator_moment_dense()),
            ("qfrc_actuator", &d.qfrc_actuator),
        ] {
            w = w.max(cmp(&format!("{n} {f}"), got, &fv(&c[f]), TOL_INSIDE));
        }
    }
    assert!(checked >= 3, "too few sphere inside wraps: {checked}");
    eprintln!("inside wrap: worst rel err {w:.2e}");
}

/// `actuator_lengthrange` computed by the compiler (`mj_setLengthRange`) for several
/// `<compiler><lengthrange>` settings: selection (mode, useexisting, uselimit) and the
/// simulation estimate (accel, maxforce, timeconst, timestep, inttotal, interval, tolrange) with
/// joint limits active. The simulation is the same sequence of steps as MuJoCo's, so the ranges
/// agree to rounding: TOL. A muscle on an unlimited hinge never settles: both refuse the model.
#[test]
fn lengthrange_by_simulation_matches_mujoco() {
    let all = load();
    let e = &all["lengthrange"];
    let xml = e["xml"].as_str().unwrap();
    let mut w = 0.0f64;
    for v in e["variants"].as_array().unwrap() {
        let attrs = v["attrs"].as_str().unwrap();
        let m = compile(&Value::from(xml.replace("LRATTR", attrs)));
        let got: Vec<f64> = m.actuator_lengthrange.iter().flatten().copied().collect();
        w = w.max(cmp(
            &format!("lengthrange [{attrs}]"),
            &got,
            &fv(&v["actuator_lengthrange"]),
            TOL,
        ));
    }
    eprintln!("lengthrange: worst rel err {w:.2e}");
    let err = moreau::load_from_str(e["error_xml"].as_str().unwrap(), &Default::default())
        .expect_err("MuJoCo refuses this model");
    assert!(
        err.to_string().contains("did not converge in actuator 1"),
        "{err}; MuJoCo: {}",
        e["error"]
    );
}
