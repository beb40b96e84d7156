//! Le Lidec & Carpentier, experiments 1 and 2 on `models/cube_slide.xml`, shared by the examples
//! (`raisim_slide`, `raisim_drag`) and `tests/raisim/experiments.rs`.

#![allow(dead_code)]

use moreau::pipeline::fwd_position;
use moreau::{Data, Model};
use moreau_raisim::hard::{step_hard, HardOptions, HardSolver};

/// The cube model (path relative to the crate root).
pub fn cube_model() -> Model {
    moreau::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/cube_slide.xml"
    ))
    .expect("models/cube_slide.xml")
}

/// Solver settings of the experiments: up to 500 Gauss-Seidel sweeps, relative tolerance
/// 1e-12; RaiSim relaxation α from 1 towards 0.7 (γ = 0.99).
pub fn options() -> HardOptions {
    let mut o = HardOptions::default();
    o.gs.max_iter = 500;
    o.gs.tol = 1e-12;
    o
}

/// Mechanical energy `½ vᵀ M v − Σ m_b g·x_b` (positions refreshed first).
pub fn energy(m: &Model, d: &mut Data<f64>) -> f64 {
    fwd_position(m, d);
    let mut mv = vec![0.0; m.nv];
    moreau::mul_m(m, d, &d.qvel, &mut mv);
    let kin = 0.5 * mv.iter().zip(&d.qvel).map(|(a, b)| a * b).sum::<f64>();
    let g = m.opt.gravity;
    let pot: f64 = (1..m.nbody)
        .map(|b| -m.body_mass[b] * (0..3).map(|a| g[a] * d.xipos[b][a]).sum::<f64>())
        .sum();
    kin + pot
}

/// Friction coefficient and mass of the cube model.
pub fn mu_mass(m: &Model) -> (f64, f64) {
    (m.geom_friction[1][0], m.body_mass[1])
}

/// Experiment 1 record.
pub struct Slide {
    pub t: Vec<f64>,
    /// Mechanical energy minus its initial value's potential part (kinetic + ΔU).
    pub energy: Vec<f64>,
    /// Analytic energy under maximum dissipation: `½ m max(v0 − μ g t, 0)²`.
    pub analytic: Vec<f64>,
    pub eps_abs: Vec<f64>,
    /// Largest |E − E_analytic| / E(0).
    pub max_rel_err: f64,
}

/// Experiment 1: the cube slides along x at `v0` and stops under friction; `duration` seconds.
pub fn slide(solver: HardSolver, v0: f64, duration: f64) -> Slide {
    let m = cube_model();
    let mut d = Data::new(&m);
    d.qvel[0] = v0;
    let (mu, mass) = mu_mass(&m);
    let gn = -m.opt.gravity[2];
    let h = m.opt.timestep;
    let u0 = energy(&m, &mut d) - 0.5 * mass * v0 * v0;
    let opts = options();
    let n = (duration / h).round() as usize;
    let mut r = Slide {
        t: vec![0.0],
        energy: vec![0.5 * mass * v0 * v0],
        analytic: vec![0.5 * mass * v0 * v0],
        eps_abs: vec![0.0],
        max_rel_err: 0.0,
    };
    for _ in 0..n {
        let s = step_hard(&m, &mut d, solver, &opts);
        let t = d.time;
        let e = energy(&m, &mut d) - u0;
        let va = (v0 - mu * gn * t).max(0.0);
        let ea = 0.5 * mass * va * va;
        r.max_rel_err = r.max_rel_err.max((e - ea).abs() / r.energy[0]);
        r.t.push(t);
        r.energy.push(e);
        r.analytic.push(ea);
        r.eps_abs.push(s.eps_abs());
    }
    r
}

/// Experiment 2 record.
pub struct Drag {
    pub t: Vec<f64>,
    /// Applied force along x.
    pub force: Vec<f64>,
    /// World y-force at each of the 4 contacts (contact order of the collider).
    pub fy: Vec<[f64; 4]>,
    /// Cube velocity along x.
    pub vx: Vec<f64>,
    pub eps_abs: Vec<f64>,
    /// Time at which the applied force exceeds μ m g.
    pub t_slip: f64,
}

/// Experiment 2: a force `rate · t` along x at the cube's centre of mass, `duration` seconds.
pub fn drag(solver: HardSolver, rate: f64, duration: f64) -> Drag {
    let m = cube_model();
    let mut d = Data::new(&m);
    let (mu, mass) = mu_mass(&m);
    let gn = -m.opt.gravity[2];
    let h = m.opt.timestep;
    let opts = options();
    let n = (duration / h).round() as usize;
    let mut r = Drag {
        t: vec![],
        force: vec![],
        fy: vec![],
        vx: vec![],
        eps_abs: vec![],
        t_slip: mu * mass * gn / rate,
    };
    for _ in 0..n {
        let f = rate * d.time;
        d.xfrc_applied[1][0] = f;
        let s = step_hard(&m, &mut d, solver, &opts);
        assert_eq!(s.problem.nc, 4, "the cube should touch at its 4 corners");
        let mut fy = [0.0; 4];
        for (k, y) in fy.iter_mut().enumerate() {
            *y = s.world_force(&d, k, h)[1];
        }
        r.t.push(d.time);
        r.force.push(f);
        r.fy.push(fy);
        r.vx.push(d.qvel[0]);
        r.eps_abs.push(s.eps_abs());
    }
    r
}
