//! Le Lidec & Carpentier, experiment 3 (section IV.C, Fig. 5): MPC for quadrupedal locomotion on a
//! slippery floor with the three hard-contact solvers of `src/hard.rs` (RaiSim, RaiSim+DS, PGS
//! on the exact cone).
//!
//! Setup (a stand-in for the paper's Solo-12 on bumpy, slippery terrain): `models/quadruped.xml`
//! (free-joint torso, 12 limited hinges, 12 position actuators, sphere feet) with every geom's
//! sliding friction set to `MU` (the contact friction is the larger of the two geoms'), stepped
//! by `step_hard` at h = 5 ms (joint limits are rows of the same Gauss-Seidel problem). The
//! controller is predictive sampling (`moreau_optim::sampling`) whose rollouts step with the
//! *same* hard solver as the plant (`PredictiveSampling::stepper`), so planner model = plant
//! model. The task: walk forward at `VX` m/s at the standing height, upright, heading along x.
//! The planner optimizes a residual on top of a fixed trot reference ([`gait`], added to the
//! control inside the stepper, so plant and rollouts see the same control law).
//! As in the paper, the number of Gauss-Seidel sweeps is fixed (`ITERS`; the relative
//! tolerance 1e-10 rarely stops earlier).
//!
//! Shared by `examples/raisim_mpc.rs` and `tests/raisim/raisim_mpc.rs`.

#![allow(dead_code)]

use moreau::{Data, Model};
use moreau_optim::sampling::{Interp, PredictiveSampling, SamplingOptions};
use moreau_raisim::hard::{step_hard, HardOptions, HardSolver, HardStep};
use std::sync::Arc;

/// Sliding friction of every contact (a slippery floor).
pub const MU: f64 = 0.3;
/// Physics time step (s).
pub const H: f64 = 0.005;
/// Target forward velocity (m/s).
pub const VX: f64 = 0.4;
/// Gauss-Seidel sweeps per hard step (plant and planner).
pub const ITERS: usize = 30;
/// A contact slides when its tangential velocity after the step exceeds this (m/s).
pub const V_SLIDE: f64 = 1e-4;

/// Trot frequency (Hz), hip swing amplitude and knee lift (rad) of the reference gait.
pub const GAIT_HZ: f64 = 2.0;
pub const HIP_AMP: f64 = 0.25;
pub const KNEE_LIFT: f64 = 0.5;

/// The reference trot at time `t`, added to the planner's control: diagonal pairs (fl, hr) and
/// (fr, hl) in antiphase; hip `A cos φ` (the foot swings forward while `sin φ > 0`, and pushes
/// back in stance), knee flexed by `KNEE_LIFT sin φ` in swing (front knees flex positive,
/// hind knees negative, as the legs are built). Actuator order: fl, fr, hl, hr × (abd, hip,
/// knee).
pub fn gait(t: f64, u: &mut [f64]) {
    let w = std::f64::consts::TAU * GAIT_HZ * t;
    for (leg, (phase, knee_sign)) in [
        (0.0, 1.0),
        (std::f64::consts::PI, 1.0),
        (std::f64::consts::PI, -1.0),
        (0.0, -1.0),
    ]
    .iter()
    .enumerate()
    {
        let p = w + phase;
        u[3 * leg] = 0.0;
        u[3 * leg + 1] = HIP_AMP * p.cos();
        u[3 * leg + 2] = knee_sign * KNEE_LIFT * p.sin().max(0.0);
    }
}

/// Adds the reference gait at `d.time` to `d.ctrl` (clamped to the control range).
pub fn add_gait(m: &Model, d: &mut Data) {
    let mut g = [0.0; 12];
    gait(d.time, &mut g);
    for ((u, gi), r) in d.ctrl.iter_mut().zip(g).zip(&m.actuator_ctrlrange) {
        *u = (*u + gi).clamp(r[0], r[1]);
    }
}

/// MPC settings of one run.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Control steps of the closed loop.
    pub control_steps: usize,
    /// Physics steps per control step (the plan is recomputed every control step).
    pub substeps: usize,
    /// Sampling candidates per plan.
    pub rollouts: usize,
    /// Physics steps per rollout.
    pub horizon: usize,
    pub knots: usize,
    pub sigma: f64,
}

impl Settings {
    /// The example's run: 3 s of simulated time.
    pub fn example() -> Self {
        Settings {
            control_steps: 150,
            substeps: 4,
            rollouts: 16,
            horizon: 50,
            knots: 4,
            sigma: 0.15,
        }
    }

    /// The test's run: the first 0.6 s of the example's.
    pub fn test() -> Self {
        Settings {
            control_steps: 30,
            ..Self::example()
        }
    }
}

/// One closed-loop run.
#[derive(Clone, Debug, Default)]
pub struct MpcRun {
    /// Time after every plant physics step.
    pub t: Vec<f64>,
    /// ε_abs of every plant physics step over all contacts (0 without contacts).
    pub eps_abs: Vec<f64>,
    /// ε_abs of every step over the sticking contacts (`λ_N > 0`, `‖c_T‖ ≤ V_SLIDE`) and over
    /// the sliding ones (`λ_N > 0`, `‖c_T‖ > V_SLIDE`); 0 when there is none.
    pub eps_stick: Vec<f64>,
    pub eps_slide: Vec<f64>,
    /// Contacts in the problem, and sliding contacts, per step.
    pub ncon: Vec<usize>,
    pub nslide: Vec<usize>,
    /// Largest joint-limit NCP error per step.
    pub limit_err: Vec<f64>,
    /// Gauss-Seidel sweeps per step and whether the relative criterion stopped them.
    pub iters: Vec<usize>,
    pub converged: Vec<bool>,
    /// Time, stage cost, torso height and forward position after every control step.
    pub tc: Vec<f64>,
    pub cost: Vec<f64>,
    pub z: Vec<f64>,
    pub x: Vec<f64>,
    /// Torso tilt `acos(R_zz)` (rad) after every control step.
    pub tilt: Vec<f64>,
    /// Best predicted rollout cost of every plan.
    pub plan_cost: Vec<f64>,
    /// Wall time of every plant hard step (s) and of every plan (s).
    pub step_secs: Vec<f64>,
    pub plan_secs: Vec<f64>,
    /// Torso height at the standing keyframe.
    pub z_stand: f64,
}

pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

pub fn max(v: &[f64]) -> f64 {
    v.iter().cloned().fold(0.0, f64::max)
}

/// First control-step time at which the torso positions `(x, z)` of two runs differ by more
/// than `tol` (m), or `None`.
pub fn departure(a: &MpcRun, b: &MpcRun, tol: f64) -> Option<f64> {
    (0..a.x.len().min(b.x.len()))
        .find(|&k| (a.x[k] - b.x[k]).abs().max((a.z[k] - b.z[k]).abs()) > tol)
        .map(|k| a.tc[k])
}

/// Mean of the non-zero entries (steps where the category exists).
pub fn mean_nonzero(v: &[f64]) -> f64 {
    let nz: Vec<f64> = v.iter().cloned().filter(|e| *e > 0.0).collect();
    mean(&nz)
}

impl MpcRun {
    pub fn min_z(&self) -> f64 {
        self.z.iter().cloned().fold(f64::INFINITY, f64::min)
    }
    /// Forward progress (m).
    pub fn progress(&self) -> f64 {
        self.x.last().copied().unwrap_or(0.0)
    }
    pub fn max_tilt(&self) -> f64 {
        max(&self.tilt)
    }
    /// Stayed up: torso above 0.2 m (stance 0.34 m; the torso box's bottom is 0.05 m below
    /// its centre) and tilted less than 30° at every control step.
    pub fn stayed_up(&self) -> bool {
        self.min_z() > 0.2 && self.max_tilt() < 30f64.to_radians()
    }
    /// Fraction of steps whose Gauss-Seidel met the relative criterion before `ITERS` sweeps.
    pub fn converged_fraction(&self) -> f64 {
        self.converged.iter().filter(|c| **c).count() as f64 / self.converged.len().max(1) as f64
    }
    /// Fraction of contact-steps that slide.
    pub fn slide_fraction(&self) -> f64 {
        let n: usize = self.ncon.iter().sum();
        self.nslide.iter().sum::<usize>() as f64 / n.max(1) as f64
    }
}

/// `models/quadruped.xml` with timestep `H` and sliding friction `MU` on every geom.
pub fn model() -> Result<Model, String> {
    let mut m = moreau::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/quadruped.xml"
    ))
    .map_err(|e| e.to_string())?;
    m.opt.timestep = H;
    for f in m.geom_friction.iter_mut() {
        f[0] = MU;
    }
    Ok(m)
}

/// The hard-step options: `ITERS` sweeps, relative tolerance 1e-10.
pub fn options() -> HardOptions {
    let mut o = HardOptions::default();
    o.gs.max_iter = ITERS;
    o.gs.tol = 1e-10;
    o
}

/// Stage cost: forward velocity error, lateral and vertical velocity, height, tilt (1 − R_zz),
/// heading (R_yx: the body x axis' world y component) and yaw rate, and a small control term.
pub fn stage(z0: f64, d: &Data) -> f64 {
    let q = &d.qpos;
    let (w, x, y, z) = (q[3], q[4], q[5], q[6]);
    let tilt = 2.0 * (x * x + y * y);
    let heading = 2.0 * (x * y + w * z);
    let v = &d.qvel;
    let ctrl: f64 = d.ctrl.iter().map(|u| u * u).sum();
    10.0 * (v[0] - VX).powi(2)
        + 2.0 * v[1] * v[1]
        + 100.0 * (q[2] - z0).powi(2)
        + 20.0 * tilt
        + 5.0 * heading * heading
        + 0.5 * v[5] * v[5]
        + 0.02 * ctrl
}

/// Splits the contacts of a hard step into sticking and sliding ones (see [`MpcRun`]) and
/// returns `(ε_abs sticking, ε_abs sliding, number sliding)`.
pub fn classify(hs: &HardStep) -> (f64, f64, usize) {
    let (mut es, mut el, mut ns) = (0.0f64, 0.0f64, 0);
    for k in 0..hs.problem.nc {
        let e = hs.errors[k].abs();
        let c = &hs.velocity[3 * k..3 * k + 3];
        if hs.lambda[3 * k] <= 0.0 {
            // open contact: counted with the sticking ones (both have λ_T ∥ no sliding)
            es = es.max(e);
        } else if c[1].hypot(c[2]) > V_SLIDE {
            el = el.max(e);
            ns += 1;
        } else {
            es = es.max(e);
        }
    }
    (es, el, ns)
}

/// Runs the closed loop with `solver` as plant and planner model.
pub fn run(m: &Model, solver: HardSolver, s: &Settings) -> Result<MpcRun, String> {
    let key = m.key_id("stand").ok_or("no stand keyframe")?;
    let mut d = Data::new(m);
    d.reset_keyframe(m, key)?;
    // Settle the stance for 0.2 s (zero controls) before the controller starts.
    let opts = options();
    for _ in 0..(0.2 / H) as usize {
        step_hard(m, &mut d, solver, &opts);
    }
    d.time = 0.0;
    let z0 = d.qpos[2];
    let x0 = d.qpos[0];
    let mut ps = PredictiveSampling::new(
        m.clone(),
        SamplingOptions {
            rollouts: s.rollouts,
            steps: s.horizon,
            knots: s.knots,
            sigma: s.sigma,
            interp: Interp::Linear,
            seed: 7,
            ..Default::default()
        },
    )?;
    ps.stepper = Arc::new(move |m: &Model, d: &mut Data| {
        add_gait(m, d);
        step_hard(m, d, solver, &opts);
    });
    let cost = move |_: &Model, d: &Data| stage(z0, d);
    let mut out = MpcRun {
        z_stand: z0,
        ..Default::default()
    };
    let mut u = vec![0.0; m.nu];
    for k in 0..s.control_steps {
        let t = std::time::Instant::now();
        let pc = ps.plan(&d, &cost);
        ps.action(d.time, &mut u);
        out.plan_secs.push(t.elapsed().as_secs_f64());
        out.plan_cost.push(pc);
        d.ctrl.copy_from_slice(&u);
        for _ in 0..s.substeps {
            d.ctrl.copy_from_slice(&u);
            add_gait(m, &mut d);
            let t = std::time::Instant::now();
            let hs = step_hard(m, &mut d, solver, &opts);
            out.step_secs.push(t.elapsed().as_secs_f64());
            let (es, el, ns) = classify(&hs);
            out.t.push(d.time);
            out.eps_abs.push(hs.eps_abs());
            out.eps_stick.push(es);
            out.eps_slide.push(el);
            out.ncon.push(hs.problem.nc);
            out.nslide.push(ns);
            out.limit_err.push(hs.limit_error(H));
            out.iters.push(hs.info.iterations);
            out.converged.push(hs.info.converged);
        }
        if d.qpos.iter().chain(&d.qvel).any(|v| !v.is_finite()) {
            return Err(format!(
                "{}: plant diverged at control step {k}",
                solver.name()
            ));
        }
        out.tc.push(d.time);
        out.cost.push(stage(z0, &d));
        out.z.push(d.qpos[2]);
        out.x.push(d.qpos[0] - x0);
        let q = &d.qpos;
        out.tilt.push(
            (1.0 - 2.0 * (q[4] * q[4] + q[5] * q[5]))
                .clamp(-1.0, 1.0)
                .acos(),
        );
    }
    Ok(out)
}

/// [`run`] with every solver of [`HardSolver::ALL`].
pub fn run_all(m: &Model, s: &Settings) -> Result<Vec<(HardSolver, MpcRun)>, String> {
    HardSolver::ALL
        .iter()
        .map(|&solver| Ok((solver, run(m, solver, s)?)))
        .collect()
}

/// Prints one row per solver: mean/max ε_abs over all, sticking and sliding contacts, sliding
/// fraction, mean stage cost, progress, lowest torso, largest tilt, stayed up, wall time per
/// plant step and per plan, converged fraction, largest joint-limit error.
pub fn print_table(runs: &[(HardSolver, MpcRun)]) {
    println!(
        "\n{:<10} {:>9} {:>9} {:>10} {:>10} {:>10} {:>10} {:>6} {:>6} {:>7} {:>6} {:>6} {:>6} {:>8} {:>8} {:>6} {:>8}",
        "solver",
        "mean ε",
        "max ε",
        "mean ε st",
        "max ε st",
        "mean ε sl",
        "max ε sl",
        "slide%",
        "cost",
        "x (m)",
        "min z",
        "tilt°",
        "up",
        "step µs",
        "plan ms",
        "conv%",
        "lim err"
    );
    for (solver, r) in runs {
        println!(
            "{:<10} {:>9.2e} {:>9.2e} {:>10.2e} {:>10.2e} {:>10.2e} {:>10.2e} {:>6.1} {:>6.3} {:>7.3} {:>6.3} {:>6.1} {:>6} {:>8.1} {:>8.1} {:>6.1} {:>8.1e}",
            solver.name(),
            mean(&r.eps_abs),
            max(&r.eps_abs),
            mean_nonzero(&r.eps_stick),
            max(&r.eps_stick),
            mean_nonzero(&r.eps_slide),
            max(&r.eps_slide),
            100.0 * r.slide_fraction(),
            mean(&r.cost),
            r.progress(),
            r.min_z(),
            r.max_tilt().to_degrees(),
            r.stayed_up(),
            1e6 * mean(&r.step_secs),
            1e3 * mean(&r.plan_secs),
            100.0 * r.converged_fraction(),
            max(&r.limit_err),
        );
    }
}
