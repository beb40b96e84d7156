//! The smooth pipeline against MuJoCo 4.0.0 (tests/reference/pipeline_cases.json, written by
//! tools/reference/gen_pipeline_cases.py).

use crate::common;
use crate::oracle_util;

use common::*;
use moreau::model::Model;
use moreau::{Data, Scalar};
use nalgebra::{Matrix3, Quaternion, Vector3, Vector6};
use serde_json::Value;

/// Relative tolerance: |a - b| <= TOL * max(1, |b|).
const TOL: f64 = 1e-10;

trait Flat {
    fn flat(&self) -> Vec<f64>;
}
impl Flat for Vec<f64> {
    fn flat(&self) -> Vec<f64> {
        self.clone()
    }
}
impl Flat for Vec<Vector3<f64>> {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(|v| v.iter().copied()).collect()
    }
}
impl Flat for Vec<Vector6<f64>> {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(|v| v.iter().copied()).collect()
    }
}
impl Flat for Vec<Matrix3<f64>> {
    // row-major as MuJoCo
    fn flat(&self) -> Vec<f64> {
        self.iter()
            .flat_map(|m| m.transpose().iter().copied().collect::<Vec<_>>())
            .collect()
    }
}
impl Flat for Vec<Quaternion<f64>> {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(|q| [q.w, q.i, q.j, q.k]).collect()
    }
}
impl Flat for Vec<[f64; 10]> {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(|v| v.iter().copied()).collect()
    }
}

fn cmp(name: &str, field: &str, got: &[f64], want: &[f64], worst: &mut f64) {
    oracle_util::cmp(&format!("{name}: {field}"), got, want, TOL, worst);
}

fn each_case(mut fun: impl FnMut(&str, &Model, &Value)) {
    let all = load_cases();
    for e in all["models"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m = build_model(&e["model"]);
        for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
            fun(&format!("{name}#{k}"), &m, c);
        }
    }
}

fn position<T: Scalar>(m: &Model, d: &mut Data<T>) {
    moreau::pipeline::kinematics(m, d);
    moreau::pipeline::com_pos(m, d);
    moreau::pipeline::tendon(m, d);
    moreau::pipeline::crb(m, d);
    moreau::pipeline::factor_m(m, d);
}

#[test]
fn smooth_dynamics_matches_mujoco() {
    let mut worst = 0.0f64;
    each_case(|name, m, c| {
        let mut d = Data::<f64>::new(m);
        set_state(m, &mut d, c);
        position(m, &mut d);
        let w = &mut worst;
        cmp(name, "xpos", &d.xpos.flat(), &fv(&c["xpos"]), w);
        cmp(name, "xquat", &d.xquat.flat(), &fv(&c["xquat"]), w);
        cmp(name, "xmat", &d.xmat.flat(), &fv(&c["xmat"]), w);
        cmp(name, "xipos", &d.xipos.flat(), &fv(&c["xipos"]), w);
        cmp(name, "ximat", &d.ximat.flat(), &fv(&c["ximat"]), w);
        cmp(name, "xanchor", &d.xanchor.flat(), &fv(&c["xanchor"]), w);
        cmp(name, "xaxis", &d.xaxis.flat(), &fv(&c["xaxis"]), w);
        cmp(
            name,
            "geom_xpos",
            &d.geom_xpos.flat(),
            &fv(&c["geom_xpos"]),
            w,
        );
        cmp(
            name,
            "geom_xmat",
            &d.geom_xmat.flat(),
            &fv(&c["geom_xmat"]),
            w,
        );
        cmp(
            name,
            "subtree_com",
            &d.subtree_com.flat(),
            &fv(&c["subtree_com"]),
            w,
        );
        cmp(name, "cinert", &d.cinert.flat(), &fv(&c["cinert"]), w);
        cmp(name, "cdof", &d.cdof.flat(), &fv(&c["cdof"]), w);
        let mut dense = vec![0.0; m.nv * m.nv];
        moreau::full_m(m, &d.qM, &mut dense);
        cmp(name, "qM", &dense, &fv(&c["qM"]), w);
        let mut x = fv(&c["solve_x"]);
        moreau::solve_m(m, &d, &mut x);
        cmp(name, "solveM", &x, &fv(&c["solve_Minv_x"]), w);
        moreau::pipeline::com_vel(m, &mut d);
        cmp(name, "cvel", &d.cvel.flat(), &fv(&c["cvel"]), w);
        cmp(name, "cdof_dot", &d.cdof_dot.flat(), &fv(&c["cdof_dot"]), w);
        moreau::pipeline::rne_bias(m, &mut d);
        cmp(name, "qfrc_bias", &d.qfrc_bias, &fv(&c["qfrc_bias"]), w);

        // the whole smooth pipeline
        let mut d = Data::<f64>::new(m);
        set_state(m, &mut d, c);
        moreau::forward(m, &mut d);
        for (field, got) in [
            ("ten_length", &d.ten_length),
            ("ten_J", &d.ten_J_dense()),
            ("ten_velocity", &d.ten_velocity),
            ("actuator_length", &d.actuator_length),
            ("actuator_moment", &d.actuator_moment_dense()),
            ("actuator_velocity", &d.actuator_velocity),
            ("qfrc_spring", &d.qfrc_spring),
            ("qfrc_damper", &d.qfrc_damper),
            ("qfrc_gravcomp", &d.qfrc_gravcomp),
            ("qfrc_passive", &d.qfrc_passive),
            ("qfrc_bias", &d.qfrc_bias),
            ("act_dot", &d.act_dot),
            ("actuator_force", &d.actuator_force),
            ("qfrc_actuator", &d.qfrc_actuator),
            ("qfrc_smooth", &d.qfrc_smooth),
            ("qacc_smooth", &d.qacc_smooth),
        ] {
            cmp(name, field, got, &fv(&c[field]), w);
        }
        cmp(name, "qacc", &d.qacc, &fv(&c["qacc_smooth"]), w);
        // Jacobian of a point on the last body
        let b = c["jac_body"].as_u64().unwrap() as usize;
        let p = fv(&c["jac_point"]);
        let mut jp = vec![0.0; 3 * m.nv];
        let mut jr = vec![0.0; 3 * m.nv];
        moreau::jac(
            m,
            &d,
            &Vector3::new(p[0], p[1], p[2]),
            b,
            Some(&mut jp),
            Some(&mut jr),
        );
        cmp(name, "jacp", &jp, &fv(&c["jacp"]), w);
        cmp(name, "jacr", &jr, &fv(&c["jacr"]), w);
    });
    eprintln!("worst relative error {worst:.2e}");
}

#[test]
fn set_const_matches_mujoco() {
    let all = load_cases();
    let mut worst = 0.0f64;
    for e in all["models"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let want = build_model(&e["model"]);
        let mut m = want.clone();
        m.dof_M0.iter_mut().for_each(|x| *x = 0.0);
        m.dof_invweight0.iter_mut().for_each(|x| *x = 0.0);
        m.body_invweight0.iter_mut().for_each(|x| *x = [0.0; 2]);
        SetConstFields::clear(&mut m);
        // the `actuators` model's third actuator is a position actuator with dampratio 0.8:
        // before mj_setConst MuJoCo stores the dampratio as a positive biasprm[2].
        if name.starts_with("actuators") {
            m.actuator_biasprm[2][2] = 0.8;
        }
        moreau::set_const(&mut m);
        let w = &mut worst;
        cmp(name, "dof_M0", &m.dof_M0, &want.dof_M0, w);
        cmp(
            name,
            "dof_invweight0",
            &m.dof_invweight0,
            &want.dof_invweight0,
            w,
        );
        let flat = |v: &Vec<[f64; 2]>| v.iter().flatten().copied().collect::<Vec<_>>();
        cmp(
            name,
            "body_invweight0",
            &flat(&m.body_invweight0),
            &flat(&want.body_invweight0),
            w,
        );
        for (field, got, exp) in SetConstFields::pairs(&m, &want) {
            cmp(name, field, got, exp, w);
        }
        let bias = |m: &Model| {
            m.actuator_biasprm
                .iter()
                .flatten()
                .copied()
                .collect::<Vec<_>>()
        };
        cmp(name, "actuator_biasprm", &bias(&m), &bias(&want), w);
    }
    eprintln!("set_const worst relative error {worst:.2e}");
}
