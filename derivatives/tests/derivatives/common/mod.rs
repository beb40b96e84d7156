//! Setup shared by the derivative tests: project models with the constraint solver run to
//! convergence, and random settled states.

#![allow(dead_code)]

use moreau::model::Integrator;
use moreau::{integrate_pos, step, Data, Model};

/// `models/NAME.xml` of the repository.
pub fn load(name: &str) -> Model {
    let p = format!("{}/../models/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    moreau::load(&p).unwrap()
}

/// `m` with the solver run for all 100 iterations (`tolerance = 0`, so the dual derivative of
/// the iterates is the IFT derivative at the optimum), the convex search converged (see
/// [`converged_ccd`]) and, if given, another integrator.
pub fn converged(mut m: Model, integ: Option<Integrator>) -> Model {
    converged_ccd(&mut m);
    m.opt.tolerance = 0.0;
    m.opt.iterations = 100;
    m.opt.ls_iterations = 100;
    if let Some(i) = integ {
        m.opt.integrator = i;
    }
    m
}

/// The convex search run to convergence (`ccd_tolerance` 1e-12, 250 iterations): like MuJoCo's,
/// moreau's search on smooth pairs stops at `ccd_tolerance` (1e-6 by default), and its contacts
/// then move by up to that tolerance, unsmoothly, under a finite-difference step; the dual
/// derivatives are those of the exact contact, which the converged search approaches.
pub fn converged_ccd(m: &mut Model) {
    m.opt.ccd_tolerance = 1e-12;
    m.opt.ccd_iterations = 250;
}

/// [`converged`] of `models/NAME.xml`.
pub fn model(name: &str, integ: Option<Integrator>) -> Model {
    converged(load(name), integ)
}

/// Uniform numbers in `[-1, 1)` by xorshift64 from `seed`.
pub fn xorshift(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed.wrapping_mul(0x9e3779b97f4a7c15) | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Uniform numbers in `[-1, 1)` by a 64-bit LCG (Knuth's MMIX constants) from `seed`.
pub fn lcg(seed: u64) -> impl FnMut() -> f64 {
    const A: u64 = 6364136223846793005;
    const C: u64 = 1442695040888963407;
    let mut s = seed.wrapping_mul(A).wrapping_add(C);
    move || {
        s = s.wrapping_mul(A).wrapping_add(C);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Keyframe 0 (if any), controls from `rnd` (uniform in the middle 80% of a limited range),
/// `settle` steps, then random tangent position (scale `dq`), velocity (scale `dv`) and
/// activation (scale 0.1) perturbations; forwarded.
pub fn state(
    m: &Model,
    mut rnd: impl FnMut() -> f64,
    settle: usize,
    dq: f64,
    dv: f64,
) -> Data<f64> {
    let mut d = Data::new(m);
    if m.nkey > 0 {
        d.reset_keyframe(m, 0).unwrap();
    }
    for u in 0..m.nu {
        d.ctrl[u] = if m.actuator_ctrllimited[u] {
            let r = m.actuator_ctrlrange[u];
            r[0] + (r[1] - r[0]) * 0.5 * (1.0 + 0.8 * rnd())
        } else {
            rnd()
        };
    }
    for _ in 0..settle {
        step(m, &mut d);
    }
    let dq: Vec<f64> = (0..m.nv).map(|_| dq * rnd()).collect();
    integrate_pos(m, &mut d.qpos, &dq, 1.0);
    for v in d.qvel.iter_mut() {
        *v += dv * rnd();
    }
    for a in d.act.iter_mut() {
        *a += 0.1 * rnd();
    }
    moreau::forward(m, &mut d);
    d
}

/// `max |a − b| / max(1, max |b|)`.
pub fn rel_err(a: &nalgebra::DMatrix<f64>, b: &nalgebra::DMatrix<f64>) -> f64 {
    assert_eq!(a.shape(), b.shape());
    (a - b).amax() / b.amax().max(1.0)
}

/// tests/reference/fd_cases.json (MuJoCo 4.0.0's `mjd_transitionFD` / `mjd_inverseFD` cases from
/// tools/reference/gen_fd_cases.py).
pub fn fd_cases() -> serde_json::Value {
    let p = format!(
        "{}/../tests/reference/fd_cases.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A JSON array of numbers.
pub fn fv(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Rows of a JSON matrix as a DMatrix with `nr × nc` (JSON omits the columns of empty rows).
pub fn json_mat(v: &serde_json::Value, nr: usize, nc: usize) -> nalgebra::DMatrix<f64> {
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), nr);
    let mut out = nalgebra::DMatrix::zeros(nr, nc);
    for (i, r) in rows.iter().enumerate() {
        let r = fv(r);
        assert_eq!(r.len(), nc);
        for (j, x) in r.iter().enumerate() {
            out[(i, j)] = *x;
        }
    }
    out
}

/// The model of an fd_cases.json case (its XML or file, with the case's integrator).
pub fn fd_case_model(case: &serde_json::Value) -> Model {
    let mut m = match case["xml"].as_str() {
        Some(xml) => moreau::load_from_str(xml, &moreau::Vfs::default()).unwrap(),
        None => {
            let path = format!(
                "{}/../{}",
                env!("CARGO_MANIFEST_DIR"),
                case["model"].as_str().unwrap()
            );
            moreau::load(&path).unwrap()
        }
    };
    if let Some(i) = case["integrator"].as_str() {
        m.opt.integrator = match i {
            "Euler" => Integrator::Euler,
            "RK4" => Integrator::Rk4,
            "implicit" => Integrator::Implicit,
            "implicitfast" => Integrator::ImplicitFast,
            _ => panic!("integrator {i}"),
        };
    }
    m
}

/// Resets `d` to an fd_cases.json case's state (positions, velocities, activations, controls,
/// warm start, mocap poses).
pub fn fd_case_state(m: &Model, d: &mut Data<f64>, st: &serde_json::Value) {
    d.reset(m);
    d.qpos.copy_from_slice(&fv(&st["qpos"]));
    d.qvel.copy_from_slice(&fv(&st["qvel"]));
    d.act.copy_from_slice(&fv(&st["act"]));
    d.ctrl.copy_from_slice(&fv(&st["ctrl"]));
    d.qacc_warmstart.copy_from_slice(&fv(&st["qacc_warmstart"]));
    let mp = fv(&st["mocap_pos"]);
    let mq = fv(&st["mocap_quat"]);
    for b in 0..m.nmocap {
        d.mocap_pos[b] = nalgebra::Vector3::new(mp[3 * b], mp[3 * b + 1], mp[3 * b + 2]);
        d.mocap_quat[b] =
            nalgebra::Quaternion::new(mq[4 * b], mq[4 * b + 1], mq[4 * b + 2], mq[4 * b + 3]);
    }
}

/// tests/reference/eq_fluid_fd_cases.json (MuJoCo 4.0.0's connect/weld, fluid and invdiscrete
/// cases from tools/reference/gen_eq_fluid_fd_cases.py).
pub fn eq_fluid_cases() -> serde_json::Value {
    let p = format!(
        "{}/../tests/reference/eq_fluid_fd_cases.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The model of an eq_fluid_fd_cases.json case ([`fd_case_model`]) and its state (positions,
/// velocities, controls, warm start) in a fresh `Data`, after `adjust` (e.g. option flags) and a
/// `forward`.
pub fn eq_fluid_case(
    case: &serde_json::Value,
    adjust: impl FnOnce(&mut Model),
) -> (Model, Data<f64>) {
    let mut m = fd_case_model(case);
    adjust(&mut m);
    let mut d = Data::new(&m);
    let st = &case["state"];
    for (k, dst) in [
        ("qpos", &mut d.qpos),
        ("qvel", &mut d.qvel),
        ("ctrl", &mut d.ctrl),
        ("qacc_warmstart", &mut d.qacc_warmstart),
    ] {
        dst.copy_from_slice(&fv(&st[k]));
    }
    moreau::forward(&m, &mut d);
    (m, d)
}

/// Data at keyframe 0 if any (else qpos0), controls `ctrl`, stepped until the first constraint
/// rows appear.
pub fn contact_state(m: &Model, ctrl: f64) -> Data<f64> {
    let mut d = Data::<f64>::new(m);
    if m.nkey > 0 {
        d.reset_keyframe(m, 0).unwrap();
    }
    d.ctrl.iter_mut().for_each(|c| *c = ctrl);
    for _ in 0..3000 {
        moreau::step(m, &mut d);
        if d.nefc > 0 {
            break;
        }
    }
    assert!(d.nefc > 0, "no contact reached");
    d
}
