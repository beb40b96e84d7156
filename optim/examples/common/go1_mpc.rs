//! Go1 MPC setup shared by `examples/mpc_go1.rs` and `optim/tests/optim/go1_mpc.rs`: MuJoCo
//! Menagerie's Unitree Go1 (`unitree_go1/scene.xml` of the public zoo, loaded unchanged: 12
//! position actuators with `kp = 100`, elliptic cones with `impratio = 100`, condim-6 feet)
//! walked forward by a gait-free cost — trunk height and orientation at the `home` keyframe,
//! a forward-velocity target, joints near home, control offsets from the home targets — by
//! receding-horizon iLQR (control-limited by `ctrlrange`, warm-started; analytic or
//! `mjd_transitionFD` transition Jacobians in the tangent space of the free joint) or by the
//! sampling planners (predictive sampling, MPPI, cross-entropy) on the same cost and planning
//! model. Lateral pushes on the trunk test the recovery. The closed loops and the run's measures
//! are the shared legged-MPC driver's (`legged_mpc.rs`).

// the optim test binary includes both setups, so the driver twice
#[path = "legged_mpc.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod legged;

use legged::planning_model;
pub use legged::Run;
use moreau::{Data, Model};
use moreau_optim::mpc::{ctrl_bounds, MpcOptions, Push};
use moreau_optim::sampling::{RolloutCost, SamplingOptions, Update};
use moreau_optim::statecost::DiagonalCost;
use moreau_optim::system::ControlOffset;

/// Plant steps (the model's 2 ms) per control step.
pub const SUBSTEPS: usize = 5;

/// Planner and scenario settings.
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
    /// Sampling planners: rollouts, knots and noise (× half control range).
    pub rollouts: usize,
    pub knots: usize,
    pub sigma: f64,
    /// Lateral pushes: `(time s, force N)` on the trunk along y for one control step.
    pub pushes: Vec<(f64, f64)>,
}

impl Settings {
    /// The example: 10 s at 0.5 m/s, pushed sideways at 3 s and 6 s.
    pub fn example() -> Self {
        Settings {
            seconds: 10.0,
            vx: 0.5,
            plan_dt: 0.01,
            horizon: 25,
            iter: 1,
            first_iter: 5,
            rollouts: 32,
            knots: 4,
            sigma: 0.1,
            pushes: vec![(3.0, 150.0), (6.0, -150.0)],
        }
    }
}

/// The plant model, the zoo's Go1 scene (run `tools/zoo/fetch.py` first; the example does).
pub fn model() -> Result<Model, String> {
    moreau_optim::zoo::load(moreau_optim::zoo::GO1)
}

/// The plant's initial state: the `home` keyframe at rest.
pub fn initial(m: &Model) -> Result<Data, String> {
    let key = m.key_id("home").ok_or("go1: no home keyframe")?;
    let mut d = Data::new(m);
    d.reset_keyframe(m, key)?;
    Ok(d)
}

/// The home keyframe's controls (the position targets of the stance).
pub fn home_ctrl(m: &Model) -> Result<Vec<f64>, String> {
    Ok(initial(m)?.ctrl.clone())
}

/// The gait-free cost around the home stance with forward velocity `vx`; its control weights
/// act on offsets from the home controls.
pub fn cost(m: &Model, q_home: &[f64], vx: f64, horizon_secs: f64) -> Result<DiagonalCost, String> {
    let (nq, nv) = (m.nq, m.nv);
    let mut xref = vec![0.0; nq + nv + m.na];
    xref[..nq].copy_from_slice(q_home);
    xref[nq] = vx;
    let mut c = DiagonalCost::new(m, xref)?;
    // position tangent: x, y free; height; roll, pitch, yaw; joints
    c.q[..6].copy_from_slice(&[0.0, 0.0, 400.0, 100.0, 100.0, 10.0]);
    for w in &mut c.q[6..nv] {
        *w = 1.0;
    }
    // velocity tangent: forward-velocity target, lateral/vertical, angular, joint rates
    c.q[nv..nv + 6].copy_from_slice(&[30.0, 10.0, 2.0, 2.0, 2.0, 2.0]);
    for w in &mut c.q[nv + 6..2 * nv] {
        *w = 0.01;
    }
    for w in &mut c.r {
        *w = 0.05;
    }
    c.terminal = 0.3 * horizon_secs;
    Ok(c)
}

/// [`DiagonalCost`] on control offsets from `u0`, for the sampling planners (whose rollouts see
/// absolute controls).
pub struct OffsetCost {
    pub cost: DiagonalCost,
    pub u0: Vec<f64>,
}

impl RolloutCost for OffsetCost {
    fn stage(&self, m: &Model, d: &Data) -> f64 {
        let mut du = [0.0; 64];
        let du = &mut du[..d.ctrl.len()];
        for ((o, u), u0) in du.iter_mut().zip(&d.ctrl).zip(&self.u0) {
            *o = u - u0;
        }
        self.cost.stage_of(m, &d.qpos, &d.qvel, &d.act, du)
    }
}

/// Trunk height below which the robot counts as fallen (home: 0.27 m; [`Run::falls`]).
pub const FALL_Z: f64 = 0.15;

/// The planning model and the cost around the plant's home stance.
fn planning(m: &Model, s: &Settings) -> Result<(Model, DiagonalCost), String> {
    let pm = planning_model(m, s.plan_dt);
    let c = cost(&pm, &initial(m)?.qpos, s.vx, s.horizon as f64 * s.plan_dt)?;
    Ok((pm, c))
}

/// Control step of the plant, seconds.
pub fn control_dt(m: &Model) -> f64 {
    SUBSTEPS as f64 * m.opt.timestep
}

/// The pushes of `s` as body wrenches on the trunk.
pub fn pushes(m: &Model, s: &Settings) -> Result<Vec<Push>, String> {
    let trunk = m.body_id("trunk").ok_or("go1: no trunk body")?;
    Ok(s.pushes
        .iter()
        .map(|&(t, f)| Push::Body {
            step: (t / control_dt(m)).round() as usize,
            body: trunk,
            wrench: [0.0, f, 0.0, 0.0, 0.0, 0.0],
        })
        .collect())
}

/// The closed loop of `s.seconds` from [`initial`] with the pushes of `s` under `plan(d)`,
/// which returns the control and the planner's predicted cost.
pub fn drive(
    m: &Model,
    s: &Settings,
    plan: impl FnMut(&Data) -> Result<(Vec<f64>, f64), String>,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let steps = (s.seconds / control_dt(m)).round() as usize;
    legged::drive(
        m,
        initial(m)?,
        steps,
        SUBSTEPS,
        &pushes(m, s)?,
        plan,
        on_step,
    )
}

/// Receding-horizon iLQR (control-limited by `ctrlrange`, warm-started) on the planning model,
/// with analytic (`analytic`) or `mjd_transitionFD` transition Jacobians.
pub fn run_ilqr(
    m: &Model,
    s: &Settings,
    analytic: bool,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let (pm, c) = planning(m, s)?;
    let shift = (control_dt(m) / s.plan_dt).round().max(1.0) as usize;
    let (ctrl_box, nu) = (ctrl_bounds(&pm), pm.nu);
    let sys = legged::system(pm, analytic)?;
    let sys = ControlOffset::new(sys, home_ctrl(m)?)?;
    let bounds = sys.bounds(&ctrl_box);
    let opt = MpcOptions {
        horizon: s.horizon,
        iter: s.iter,
        first_iter: s.first_iter,
        bounds: Some(bounds),
    };
    let steps = (s.seconds / control_dt(m)).round() as usize;
    legged::ilqr(
        m,
        initial(m)?,
        steps,
        SUBSTEPS,
        &pushes(m, s)?,
        sys,
        nu,
        c.quadratic(s.plan_dt),
        opt,
        shift,
        |sys, du| sys.control(du),
        on_step,
    )
}

/// A sampling planner (`update`: predictive sampling, MPPI or cross-entropy) on the same
/// planning model and cost, its nominal plan starting at the home controls, in the calling
/// rayon pool.
pub fn run_sampling(
    m: &Model,
    s: &Settings,
    update: Update,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let (pm, c) = planning(m, s)?;
    let u0 = home_ctrl(m)?;
    let opt = SamplingOptions {
        rollouts: s.rollouts,
        steps: s.horizon,
        knots: s.knots,
        sigma: s.sigma,
        update,
        ..Default::default()
    };
    let cost = OffsetCost {
        cost: c,
        u0: u0.clone(),
    };
    let steps = (s.seconds / control_dt(m)).round() as usize;
    let (d, pushes) = (initial(m)?, pushes(m, s)?);
    legged::sampling(
        m,
        d,
        steps,
        SUBSTEPS,
        &pushes,
        &pm,
        opt,
        Some(&u0),
        &cost,
        on_step,
    )
}
