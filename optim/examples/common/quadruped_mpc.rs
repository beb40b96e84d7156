//! Quadruped MPC setup shared by `examples/mpc_quadruped.rs` and
//! `optim/tests/optim/quadruped_mpc.rs`: `models/quadruped.xml` (free-floating torso, 12 position
//! actuators, soft MuJoCo contacts) driven forward by a gait-free cost — torso height and
//! orientation at the stance, forward-velocity target, small joint deviations and controls — by
//! receding-horizon iLQR (analytic or FD transition Jacobians in the tangent space) or by
//! predictive sampling on the same cost ([`DiagonalCost`]) and the same planning model. The closed
//! loops and the run's measures are the shared legged-MPC driver's (`legged_mpc.rs`).

// the optim test binary includes both setups, so the driver twice
#[path = "legged_mpc.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod legged;

use legged::planning_model;
pub use legged::Run;
use moreau::{Data, Model};
use moreau_optim::mpc::{ctrl_bounds, MpcOptions};
use moreau_optim::sampling::SamplingOptions;
use moreau_optim::statecost::DiagonalCost;

/// Plant steps (2 ms) per control step.
pub const SUBSTEPS: usize = 5;

/// Planner settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Simulated seconds.
    pub seconds: f64,
    /// Forward velocity target (m/s).
    pub vx: f64,
    /// Time step of the planning model (the plant keeps the model's 2 ms).
    pub plan_dt: f64,
    /// Planning horizon in planning steps.
    pub horizon: usize,
    /// iLQR iterations per control step (first control step: `first_iter`).
    pub iter: usize,
    pub first_iter: usize,
    /// Predictive sampling: rollouts, knots and noise (× half control range).
    pub rollouts: usize,
    pub knots: usize,
    pub sigma: f64,
}

impl Settings {
    pub fn example() -> Self {
        Settings {
            seconds: 4.0,
            vx: 0.5,
            plan_dt: 0.01,
            horizon: 30,
            iter: 1,
            first_iter: 5,
            rollouts: 32,
            knots: 4,
            sigma: 0.15,
        }
    }
}

/// The plant model, `models/quadruped.xml`.
pub fn model() -> Result<Model, String> {
    moreau_problems::load_model("quadruped.xml")
}

/// The plant's initial state: the stance keyframe at rest.
pub fn initial(m: &Model) -> Result<Data, String> {
    let key = m.key_id("stand").ok_or("quadruped: no stand keyframe")?;
    let mut d = Data::new(m);
    d.reset_keyframe(m, key)?;
    d.qvel.iter_mut().for_each(|v| *v = 0.0);
    Ok(d)
}

/// The gait-free cost: reference = the stance with forward velocity `vx`.
pub fn cost(
    m: &Model,
    q_stand: &[f64],
    vx: f64,
    horizon_secs: f64,
) -> Result<DiagonalCost, String> {
    let (nq, nv) = (m.nq, m.nv);
    let mut xref = vec![0.0; nq + nv + m.na];
    xref[..nq].copy_from_slice(q_stand);
    xref[nq] = vx;
    let mut c = DiagonalCost::new(m, xref)?;
    // position tangent: x, y free; height; roll, pitch, yaw; joints
    let wq = [0.0, 0.0, 200.0, 50.0, 50.0, 10.0];
    c.q[..6].copy_from_slice(&wq);
    for w in &mut c.q[6..nv] {
        *w = 0.5;
    }
    // velocity tangent: forward-velocity target, lateral/vertical, angular, joint rates
    let wv = [20.0, 5.0, 1.0, 1.0, 1.0, 1.0];
    c.q[nv..nv + 6].copy_from_slice(&wv);
    for w in &mut c.q[nv + 6..2 * nv] {
        *w = 0.01;
    }
    for w in &mut c.r {
        *w = 0.1;
    }
    c.terminal = 0.3 * horizon_secs;
    Ok(c)
}

/// The planning model (the plant's with time step `s.plan_dt`) and the cost around the plant's
/// initial stance.
fn planning(m: &Model, s: &Settings) -> Result<(Model, DiagonalCost), String> {
    let pm = planning_model(m, s.plan_dt);
    let c = cost(&pm, &initial(m)?.qpos, s.vx, s.horizon as f64 * s.plan_dt)?;
    Ok((pm, c))
}

/// Control steps of `s.seconds`.
fn steps(m: &Model, s: &Settings) -> usize {
    (s.seconds / (SUBSTEPS as f64 * m.opt.timestep)).round() as usize
}

/// The closed loop of `s.seconds` from [`initial`] (no pushes) under `plan(d)`, which returns
/// the control and the planner's predicted cost.
pub fn drive(
    m: &Model,
    s: &Settings,
    plan: impl FnMut(&Data) -> Result<(Vec<f64>, f64), String>,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    legged::drive(m, initial(m)?, steps(m, s), SUBSTEPS, &[], plan, on_step)
}

/// Receding-horizon iLQR (control-limited, `ctrlrange` box) on the planning model.
pub fn run_ilqr(
    m: &Model,
    s: &Settings,
    analytic: bool,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let (pm, c) = planning(m, s)?;
    let shift = ((SUBSTEPS as f64 * m.opt.timestep) / s.plan_dt)
        .round()
        .max(1.0) as usize;
    let (ctrl_box, nu) = (ctrl_bounds(&pm), pm.nu);
    let sys = legged::system(pm, analytic)?;
    let opt = MpcOptions {
        horizon: s.horizon,
        iter: s.iter,
        first_iter: s.first_iter,
        bounds: Some(ctrl_box),
    };
    legged::ilqr(
        m,
        initial(m)?,
        steps(m, s),
        SUBSTEPS,
        &[],
        sys,
        nu,
        c.quadratic(s.plan_dt),
        opt,
        shift,
        |_, u| u.to_vec(),
        on_step,
    )
}

/// Predictive sampling on the same planning model and cost, in the calling rayon pool.
pub fn run_sampling(
    m: &Model,
    s: &Settings,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let (pm, c) = planning(m, s)?;
    let opt = SamplingOptions {
        rollouts: s.rollouts,
        steps: s.horizon,
        knots: s.knots,
        sigma: s.sigma,
        ..Default::default()
    };
    legged::sampling(
        m,
        initial(m)?,
        steps(m, s),
        SUBSTEPS,
        &[],
        &pm,
        opt,
        None,
        &c,
        on_step,
    )
}
