//! Go1 MPC setup shared by `examples/mpc_go1.rs` and `optim/tests/optim/go1_mpc.rs`: MuJoCo
//! Menagerie's Unitree Go1 (`unitree_go1/scene.xml` of the public zoo, loaded unchanged: 12
//! position actuators with `kp = 100`, elliptic cones with `impratio = 100`, condim-6 feet)
//! walked forward by a gait-free cost — trunk height and orientation at the `home` keyframe,
//! a forward-velocity target, joints near home, control offsets from the home targets — by
//! receding-horizon iLQR (control-limited by `ctrlrange`, warm-started; analytic or
//! `mjd_transitionFD` transition Jacobians in the tangent space of the free joint) or by the
//! sampling planners (predictive sampling, MPPI, cross-entropy) on the same cost and planning
//! model. Lateral pushes on the trunk test the recovery.

use moreau::{Data, Model};
use moreau_optim::mpc::{closed_loop, ctrl_bounds, ClosedLoop, IlqrMpc, MpcOptions, Push};
use moreau_optim::sampling::{PredictiveSampling, RolloutCost, SamplingOptions, Update};
use moreau_optim::statecost::DiagonalCost;
use moreau_optim::system::{ControlOffset, MoreauSystem};

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

/// The planning model: the plant's with time step `dt`.
pub fn planning_model(m: &Model, dt: f64) -> Model {
    let mut p = m.clone();
    p.opt.timestep = dt;
    p
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

/// A closed loop with the planner's predicted cost and its time per iteration.
pub struct Run {
    pub closed: ClosedLoop,
    pub planner_cost: Vec<f64>,
    /// Planner iterations over the run (iLQR iterations, or sampling rounds).
    pub iterations: usize,
    /// Control steps whose solve failed and applied the previous plan.
    pub fallbacks: usize,
}

/// Trunk height below which the robot counts as fallen (home: 0.27 m).
pub const FALL_Z: f64 = 0.15;

impl Run {
    /// Forward (x) distance of the trunk.
    pub fn distance(&self) -> f64 {
        self.closed.displacement(0)
    }
    /// Lowest trunk height over the run.
    pub fn min_z(&self) -> f64 {
        self.closed.min_qpos(2)
    }
    /// Root-mean-square error of the trunk's forward velocity from `vx` over the control
    /// steps after the first second (the start from rest excluded); NaN for shorter runs.
    pub fn tracking_rms(&self, vx: f64, dt: f64) -> f64 {
        let skip = (1.0 / dt).round() as usize;
        let v: Vec<f64> = self
            .closed
            .qvel
            .iter()
            .skip(skip)
            .map(|q| q[0] - vx)
            .collect();
        if v.is_empty() {
            return f64::NAN;
        }
        (v.iter().map(|e| e * e).sum::<f64>() / v.len() as f64).sqrt()
    }
    /// Times the trunk went below [`FALL_Z`] or tilted past 60° (each excursion counted once).
    pub fn falls(&self) -> usize {
        let mut n = 0;
        let mut down = false;
        for q in &self.closed.qpos {
            let now = q[2] < FALL_Z || tilt(q) > 60f64.to_radians();
            if now && !down {
                n += 1;
            }
            down = now;
        }
        n
    }
    /// Largest tilt of the trunk's z axis from vertical (radians).
    pub fn max_tilt(&self) -> f64 {
        self.closed
            .qpos
            .iter()
            .map(|q| tilt(q.as_slice()))
            .fold(0.0, f64::max)
    }
    /// Process CPU time per planner iteration over the closed loop, milliseconds (the plant's
    /// own steps included: 5 physics steps per control step, against a horizon of rollout
    /// steps and linearizations per iteration); `None` where CPU time is unavailable. CPU time,
    /// not wall time, so that a loaded machine does not inflate it.
    pub fn ms_per_iteration(&self) -> Option<f64> {
        self.closed
            .cpu
            .map(|c| 1e3 * c / self.iterations.max(1) as f64)
    }
}

/// Tilt of the trunk's z axis from vertical (radians) at `qpos`.
pub fn tilt(q: &[f64]) -> f64 {
    let (w, x, y, z) = (q[3], q[4], q[5], q[6]);
    let n = w * w + x * x + y * y + z * z;
    (1.0 - 2.0 * (x * x + y * y) / n).clamp(-1.0, 1.0).acos()
}

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
    mut plan: impl FnMut(&Data) -> Result<(Vec<f64>, f64), String>,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let mut d = initial(m)?;
    let steps = (s.seconds / control_dt(m)).round() as usize;
    let mut planner_cost = vec![];
    let closed = closed_loop(
        m,
        &mut d,
        steps,
        SUBSTEPS,
        &pushes(m, s)?,
        |d| {
            let (u, c) = plan(d)?;
            planner_cost.push(c);
            Ok(u)
        },
        on_step,
    )?;
    Ok(Run {
        iterations: closed.plan_secs.len(),
        closed,
        planner_cost,
        fallbacks: 0,
    })
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
    let mut sys = MoreauSystem::new(pm.clone())?;
    if analytic {
        sys = sys.analytic()?;
    }
    let mut sys = ControlOffset::new(sys, home_ctrl(m)?)?;
    let bounds = sys.bounds(&ctrl_bounds(&pm));
    let mut mpc = IlqrMpc::new(
        pm.nu,
        c.quadratic(s.plan_dt),
        MpcOptions {
            horizon: s.horizon,
            iter: s.iter,
            first_iter: s.first_iter,
            bounds: Some(bounds),
        },
    );
    let mut iterations = 0;
    let mut run = drive(
        m,
        s,
        |d| {
            let du = mpc.control(&mut sys, d, shift)?;
            iterations += mpc.last_history.len().saturating_sub(1);
            Ok((sys.control(&du), mpc.last_costs().1))
        },
        on_step,
    )?;
    run.iterations = iterations;
    run.fallbacks = mpc.fallbacks;
    run.closed.fallbacks = mpc.fallbacks;
    Ok(run)
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
    let mut ps = PredictiveSampling::new(
        pm.clone(),
        SamplingOptions {
            rollouts: s.rollouts,
            steps: s.horizon,
            knots: s.knots,
            sigma: s.sigma,
            update,
            ..Default::default()
        },
    )?;
    for k in 0..s.knots {
        ps.nominal[k * pm.nu..(k + 1) * pm.nu].copy_from_slice(&u0);
    }
    let cost = OffsetCost { cost: c, u0 };
    drive(m, s, |d| Ok(ps.control(d, &cost)), on_step)
}
