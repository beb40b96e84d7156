//! `sub_quat_deriv` / `quat_integrate_deriv` against MuJoCo 4.0.0 (`mjd_subQuat`,
//! `mjd_quatIntegrate`; derivatives/tests/quat_cases.json from
//! tools/reference/gen_sensor_cases.py) and against forward-mode duals (num-dual).

use moreau::pipeline::sub_quat;
use moreau_derivatives::quat::{quat_exp, quat_integrate_deriv, sub_quat_deriv};
use nalgebra::{Matrix3, Quaternion, Vector3};
use num_dual::Dual64;
use serde_json::Value;

const TOL: f64 = 1e-12;

fn cases() -> Value {
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quat_cases.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn fv(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().flat_map(fv).collect(),
        _ => vec![v.as_f64().unwrap()],
    }
}
fn quat(v: &Value) -> Quaternion<f64> {
    let x = fv(v);
    Quaternion::new(x[0], x[1], x[2], x[3])
}
fn vec3(v: &Value) -> Vector3<f64> {
    let x = fv(v);
    Vector3::new(x[0], x[1], x[2])
}
fn close(what: &str, got: &[f64], want: &[f64], worst: &mut f64) {
    for (a, b) in got.iter().zip(want) {
        let e = (a - b).abs() / b.abs().max(1.0);
        *worst = worst.max(e);
        assert!(e <= TOL, "{what}: {got:?} vs {want:?} (rel err {e:.2e})");
    }
}

fn rows(m: &Matrix3<f64>) -> Vec<f64> {
    m.transpose().iter().copied().collect()
}

#[test]
fn sub_quat_deriv_matches_mujoco() {
    let mut worst = 0.0f64;
    for (k, c) in cases()["subquat"].as_array().unwrap().iter().enumerate() {
        let (qa, qb) = (quat(&c["qa"]), quat(&c["qb"]));
        let r = sub_quat(&qa, &qb);
        close(
            &format!("#{k} res"),
            r.as_slice(),
            &fv(&c["res"]),
            &mut worst,
        );
        let (da, db) = sub_quat_deriv(&qa, &qb);
        close(&format!("#{k} Da"), &rows(&da), &fv(&c["Da"]), &mut worst);
        close(&format!("#{k} Db"), &rows(&db), &fv(&c["Db"]), &mut worst);
    }
    eprintln!("subQuat worst {worst:.2e}");
}

#[test]
fn quat_integrate_deriv_matches_mujoco() {
    let mut worst = 0.0f64;
    for (k, c) in cases()["quatintegrate"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let v = vec3(&c["vel"]);
        let h = c["scale"].as_f64().unwrap();
        // the forward map itself: q ⊗ exp(h v)
        let q = quat(&c["q"]);
        let qo = q * quat_exp(&(v * h));
        let want = fv(&c["qout"]);
        close(
            &format!("#{k} qout"),
            &[qo.w, qo.i, qo.j, qo.k],
            &want,
            &mut worst,
        );
        let (dq, dv, dh) = quat_integrate_deriv(&v, h);
        close(
            &format!("#{k} Dquat"),
            &rows(&dq),
            &fv(&c["Dquat"]),
            &mut worst,
        );
        close(
            &format!("#{k} Dvel"),
            &rows(&dv),
            &fv(&c["Dvel"]),
            &mut worst,
        );
        close(
            &format!("#{k} Dscale"),
            dh.as_slice(),
            &fv(&c["Dscale"]),
            &mut worst,
        );
    }
    eprintln!("quatIntegrate worst {worst:.2e}");
}

fn dq(q: &Quaternion<f64>) -> Quaternion<Dual64> {
    Quaternion::new(q.w.into(), q.i.into(), q.j.into(), q.k.into())
}
fn dv3(v: &Vector3<f64>) -> Vector3<Dual64> {
    Vector3::new(v.x.into(), v.y.into(), v.z.into())
}
/// `e_k` with a unit dual part.
fn eps(k: usize) -> Vector3<Dual64> {
    let mut e = Vector3::from_element(Dual64::from(0.0));
    e[k] = Dual64::from(0.0).derivative();
    e
}

/// Column k of a Jacobian from the dual parts of a 3-vector.
fn col(m: &mut Matrix3<f64>, k: usize, v: &Vector3<Dual64>) {
    for r in 0..3 {
        m[(r, k)] = v[r].eps;
    }
}

#[test]
fn quaternion_derivatives_match_duals() {
    let all = cases();
    let mut worst = 0.0f64;
    for c in all["subquat"].as_array().unwrap() {
        let (qa, qb) = (quat(&c["qa"]), quat(&c["qb"]));
        let (da, db) = sub_quat_deriv(&qa, &qb);
        let (mut na, mut nb) = (Matrix3::zeros(), Matrix3::zeros());
        for k in 0..3 {
            let a = dq(&qa) * quat_exp(&eps(k));
            col(&mut na, k, &sub_quat(&a, &dq(&qb)));
            let b = dq(&qb) * quat_exp(&eps(k));
            col(&mut nb, k, &sub_quat(&dq(&qa), &b));
        }
        close("Da dual", &rows(&da), &rows(&na), &mut worst);
        close("Db dual", &rows(&db), &rows(&nb), &mut worst);
    }
    for c in all["quatintegrate"].as_array().unwrap() {
        let v = vec3(&c["vel"]);
        let h = c["scale"].as_f64().unwrap();
        let q = quat(&c["q"]);
        let qo = dq(&(q * quat_exp(&(v * h))));
        let (d_q, d_v, d_h) = quat_integrate_deriv(&v, h);
        let (mut nq, mut nv) = (Matrix3::zeros(), Matrix3::zeros());
        let hd = Dual64::from(h);
        for k in 0..3 {
            let a = dq(&q) * quat_exp(&eps(k)) * quat_exp(&(dv3(&v) * hd));
            col(&mut nq, k, &sub_quat(&a, &qo));
            let b = dq(&q) * quat_exp(&((dv3(&v) + eps(k)) * hd));
            col(&mut nv, k, &sub_quat(&b, &qo));
        }
        let hs = Dual64::from(h).derivative();
        let c3 = sub_quat(&(dq(&q) * quat_exp(&(dv3(&v) * hs))), &qo);
        close("Dquat dual", &rows(&d_q), &rows(&nq), &mut worst);
        // ∂q/∂v = h · Dvel (MuJoCo's Dvel is the derivative w.r.t. s = h v)
        close("Dvel dual", &rows(&(d_v * h)), &rows(&nv), &mut worst);
        close(
            "Dscale dual",
            d_h.as_slice(),
            &[c3.x.eps, c3.y.eps, c3.z.eps],
            &mut worst,
        );
    }
    eprintln!("dual worst {worst:.2e}");
}
