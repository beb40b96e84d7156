//! Spatial tendons, fluid forces and transmissions against MuJoCo 4.0.0
//! (tests/reference/phys8_cases.json, written by tools/reference/gen_phys8_cases.py): spatial
//! tendons (sites, pulleys, sphere / cylinder wraps with and without side sites), fluid forces
//! (inertia-box and ellipsoid models, wind), site / refsite / slider-crank transmissions, muscles;
//! plus derivatives on `num_dual::Dual64`.

use crate::common;
use crate::oracle_util;

use common::tendon_fluid::*;
use common::*;
use moreau::model::Model;
use moreau::{Data, Scalar};
use num_dual::Dual64;
use serde_json::Value;

/// Relative tolerance: |a - b| <= TOL * max(1, |b|).
const TOL: f64 = 1e-10;

fn cmp(name: &str, field: &str, got: &[f64], want: &[f64], worst: &mut f64) {
    oracle_util::cmp(&format!("{name}: {field}"), got, want, TOL, worst);
}

#[test]
fn phys8_matches_mujoco() {
    let all = load();
    let mut worst = 0.0f64;
    for e in all["models"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m = build(&e["model"]);
        assert_eq!(moreau::pipeline::forward_unsupported(&m), None, "{name}");
        for (k, c) in e["cases"].as_array().unwrap().iter().enumerate() {
            let name = &format!("{name}#{k}");
            let mut d = Data::<f64>::new(&m);
            set_state(&m, &mut d, c);
            moreau::forward(&m, &mut d);
            let w = &mut worst;
            for (field, got) in [
                ("ten_length", &d.ten_length),
                ("ten_J", &d.ten_J_dense()),
                ("ten_velocity", &d.ten_velocity),
                ("actuator_length", &d.actuator_length),
                ("actuator_moment", &d.actuator_moment_dense()),
                ("actuator_velocity", &d.actuator_velocity),
                ("qfrc_fluid", &d.qfrc_fluid),
                ("qfrc_spring", &d.qfrc_spring),
                ("qfrc_damper", &d.qfrc_damper),
                ("qfrc_passive", &d.qfrc_passive),
                ("act_dot", &d.act_dot),
                ("actuator_force", &d.actuator_force),
                ("qfrc_actuator", &d.qfrc_actuator),
                ("qfrc_smooth", &d.qfrc_smooth),
                ("qacc_smooth", &d.qacc_smooth),
            ] {
                cmp(name, field, got, &fv(&c[field]), w);
            }
            let mut dense = vec![0.0; m.nv * m.nv];
            moreau::full_m(&m, &d.qM, &mut dense);
            cmp(name, "qM", &dense, &fv(&c["qM"]), w);
            // wrap path: addresses, counts, objects and points of the used entries
            let adr: Vec<usize> = fv(&c["ten_wrapadr"]).iter().map(|x| *x as usize).collect();
            let num: Vec<usize> = fv(&c["ten_wrapnum"]).iter().map(|x| *x as usize).collect();
            assert_eq!(d.ten_wrapadr, adr, "{name}: ten_wrapadr");
            assert_eq!(d.ten_wrapnum, num, "{name}: ten_wrapnum");
            let used: usize = num.iter().sum();
            let obj: Vec<i32> = fv(&c["wrap_obj"]).iter().map(|x| *x as i32).collect();
            assert_eq!(d.wrap_obj[..used], obj[..used], "{name}: wrap_obj");
            let xp: Vec<f64> = d.wrap_xpos[..used]
                .iter()
                .flat_map(|p| p.iter().copied())
                .collect();
            cmp(name, "wrap_xpos", &xp, &fv(&c["wrap_xpos"])[..3 * used], w);
        }
    }
    eprintln!("worst relative error {worst:.2e}");
}

#[test]
fn geom_fluid_compile_close_to_mujoco() {
    // The interaction flag and coefficients are exact; the virtual mass / inertia come from
    // MuJoCo's own 15-point quadrature of Tuckerman's integrals (round-off apart).
    let all = load();
    let mut worst = 0.0f64;
    for e in all["models"].as_array().unwrap() {
        let m = build(&e["model"]);
        for g in 0..m.ngeom {
            let want = m.geom_fluid[g];
            let c: [f64; 5] = want[1..6].try_into().unwrap();
            let got = moreau::pipeline::geom_fluid_compile(
                want[0] > 0.0,
                &c,
                m.geom_type[g],
                &m.geom_size[g],
            );
            assert_eq!(got[..6], want[..6]);
            for k in 6..12 {
                let err = (got[k] - want[k]).abs() / want[k].abs().max(1e-300);
                worst = worst.max(err);
                assert!(
                    err < 1e-13,
                    "geom {g} fluid[{k}] = {}, MuJoCo {}",
                    got[k],
                    want[k]
                );
            }
        }
    }
    eprintln!("geom_fluid virtual terms worst relative error {worst:.2e}");
}

#[test]
fn lengthrange_from_limits() {
    let all = load();
    let want = build(&all["lengthrange"]["model"]);
    let mut m = want.clone();
    // the last actuator has an explicit lengthrange (useexisting keeps it)
    for i in 0..m.nu - 1 {
        m.actuator_lengthrange[i] = [0.0, 0.0];
    }
    let opt = moreau::LengthRangeOpt {
        mode: moreau::LengthRangeMode::All,
        useexisting: true,
        uselimit: true,
        ..Default::default()
    };
    moreau::set_length_range(&mut m, &opt).unwrap();
    assert_eq!(m.actuator_lengthrange, want.actuator_lengthrange);
}

/// Position of the first dof-affecting input: perturb qpos (and qvel) along a direction.
fn eval<T: Scalar>(m: &Model, c: &Value, t: T, dir: &[f64]) -> Data<T> {
    let mut d = Data::<T>::new(m);
    set_state(m, &mut d, c);
    for (i, q) in d.qpos.iter_mut().enumerate() {
        *q += t * moreau::pipeline::sc(dir[i % dir.len()]);
    }
    for (i, v) in d.qvel.iter_mut().enumerate() {
        *v += t * moreau::pipeline::sc(dir[(i + 3) % dir.len()]);
    }
    moreau::forward(m, &mut d);
    d
}

#[test]
fn dual_derivatives_match_central_differences() {
    let all = load();
    let dir = [0.3, -0.7, 0.5, 0.2, -0.4, 0.9, -0.1];
    let mut worst = 0.0f64;
    for e in all["models"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let m = build(&e["model"]);
        for c in e["cases"].as_array().unwrap().iter().skip(1).take(3) {
            let dd = eval(&m, c, Dual64::new(0.0, 1.0), &dir);
            let h = 1e-6;
            let dp = eval(&m, c, h, &dir);
            let dm = eval(&m, c, -h, &dir);
            let check = |f: &str, du: &[Dual64], p: &[f64], mm: &[f64], worst: &mut f64| {
                for k in 0..du.len() {
                    let fd = (p[k] - mm[k]) / (2.0 * h);
                    let err = (du[k].eps - fd).abs() / fd.abs().max(1.0);
                    *worst = worst.max(err);
                    assert!(
                        err < 1e-5,
                        "{name}: d{f}[{k}] dual {} vs fd {fd}",
                        du[k].eps
                    );
                    assert!(
                        (du[k].re - (p[k] + mm[k]) / 2.0).abs() < 1e-6 * du[k].re.abs().max(1.0),
                        "{name}: {f}[{k}] value {} vs {}",
                        du[k].re,
                        (p[k] + mm[k]) / 2.0
                    );
                }
            };
            check(
                "ten_length",
                &dd.ten_length,
                &dp.ten_length,
                &dm.ten_length,
                &mut worst,
            );
            check("ten_J", &dd.ten_J, &dp.ten_J, &dm.ten_J, &mut worst);
            check(
                "actuator_length",
                &dd.actuator_length,
                &dp.actuator_length,
                &dm.actuator_length,
                &mut worst,
            );
            check(
                "actuator_force",
                &dd.actuator_force,
                &dp.actuator_force,
                &dm.actuator_force,
                &mut worst,
            );
            check(
                "qfrc_fluid",
                &dd.qfrc_fluid,
                &dp.qfrc_fluid,
                &dm.qfrc_fluid,
                &mut worst,
            );
            check("qacc", &dd.qacc, &dp.qacc, &dm.qacc, &mut worst);
        }
    }
    eprintln!("dual vs central differences worst relative error {worst:.2e}");
}

#[test]
fn fluid_velocity_derivative_matches_dual() {
    // fluid::fluid_deriv (analytic ∂qfrc_fluid/∂qvel) against dual-number differentiation of
    // the whole qfrc_fluid along each qvel direction.
    let all = load();
    for e in all["models"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        if !name.starts_with("fluid") {
            continue;
        }
        let m = build(&e["model"]);
        let nv = m.nv;
        for c in e["cases"].as_array().unwrap().iter().skip(1).take(2) {
            let mut d = Data::<f64>::new(&m);
            set_state(&m, &mut d, c);
            moreau::forward(&m, &mut d);
            let mut der = vec![0.0; nv * nv];
            moreau::pipeline::fluid_deriv(&m, &d, false, &mut der);
            for col in 0..nv {
                let mut dd = Data::<Dual64>::new(&m);
                set_state(&m, &mut dd, c);
                dd.qvel[col].eps = 1.0;
                moreau::forward(&m, &mut dd);
                for r in 0..nv {
                    let want = dd.qfrc_fluid[r].eps;
                    let got = der[r * nv + col];
                    assert!(
                        (got - want).abs() <= 1e-10 * want.abs().max(1.0),
                        "{name}: dfluid[{r},{col}] = {got}, dual {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn set_const_with_spatial_tendons_and_site_transmissions() {
    let all = load();
    let mut worst = 0.0f64;
    for e in all["models"].as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let want = build(&e["model"]);
        let mut m = want.clone();
        SetConstFields::clear(&mut m);
        moreau::set_const(&mut m);
        let w = &mut worst;
        for (field, got, exp) in SetConstFields::pairs(&m, &want) {
            cmp(name, field, got, exp, w);
        }
        cmp(name, "dof_M0", &m.dof_M0, &want.dof_M0, w);
    }
    eprintln!("set_const worst relative error {worst:.2e}");
}
