//! The closed-loop driver shared by the legged-robot MPC setups (`go1_mpc.rs`: Menagerie's Go1,
//! `quadruped_mpc.rs`: `models/quadruped.xml`): a run's record and its measures (distance,
//! height, tilt, falls, forward-velocity tracking, planner time), the planning model, and the
//! receding-horizon loops of iLQR and of the sampling planners over [`closed_loop`]. Each setup
//! supplies its model, initial state, cost, pushes and planner settings.

use moreau::{Data, Model};
use moreau_optim::ilqr::{Dynamics, QuadraticCost};
use moreau_optim::mpc::{closed_loop, ClosedLoop, IlqrMpc, MpcOptions, Push};
use moreau_optim::sampling::{PredictiveSampling, RolloutCost, SamplingOptions};
use moreau_optim::system::MoreauSystem;

/// A closed loop with the planner's predicted cost and its iteration count.
pub struct Run {
    pub closed: ClosedLoop,
    pub planner_cost: Vec<f64>,
    /// Planner iterations over the run (iLQR iterations, or sampling rounds).
    pub iterations: usize,
    /// Control steps whose solve failed and applied the previous plan.
    pub fallbacks: usize,
}

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
    /// Times the trunk went below `fall_z` or tilted past 60° (each excursion counted once).
    pub fn falls(&self, fall_z: f64) -> usize {
        let mut n = 0;
        let mut down = false;
        for q in &self.closed.qpos {
            let now = q[2] < fall_z || tilt(q) > 60f64.to_radians();
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
    /// own steps included); `None` where CPU time is unavailable. CPU time, not wall time, so
    /// that a loaded machine does not inflate it.
    pub fn ms_per_iteration(&self) -> Option<f64> {
        self.closed
            .cpu
            .map(|c| 1e3 * c / self.iterations.max(1) as f64)
    }
}

/// Tilt of the trunk's z axis from vertical (radians) at `qpos` (a free joint first): `R_zz` of
/// the unit quaternion.
pub fn tilt(q: &[f64]) -> f64 {
    let (w, x, y, z) = (q[3], q[4], q[5], q[6]);
    let n = w * w + x * x + y * y + z * z;
    (1.0 - 2.0 * (x * x + y * y) / n).clamp(-1.0, 1.0).acos()
}

/// The planning model: the plant's with time step `dt`.
pub fn planning_model(m: &Model, dt: f64) -> Model {
    let mut p = m.clone();
    p.opt.timestep = dt;
    p
}

/// The plant's loop: `steps` control steps of `substeps` physics steps from `d` with `pushes`,
/// under `plan(d)`, which returns the control and the planner's predicted cost.
pub fn drive(
    m: &Model,
    mut d: Data,
    steps: usize,
    substeps: usize,
    pushes: &[Push],
    mut plan: impl FnMut(&Data) -> Result<(Vec<f64>, f64), String>,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let mut planner_cost = vec![];
    let closed = closed_loop(
        m,
        &mut d,
        steps,
        substeps,
        pushes,
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

/// The planning model's dynamics for iLQR, with analytic (`analytic`) or `mjd_transitionFD`
/// transition Jacobians. The system takes `pm` (a robot's model holds megabytes of meshes and
/// textures: no second copy).
pub fn system(pm: Model, analytic: bool) -> Result<MoreauSystem, String> {
    let sys = MoreauSystem::new(pm)?;
    if analytic {
        sys.analytic()
    } else {
        Ok(sys)
    }
}

/// Receding-horizon iLQR on `sys` (the planning model's dynamics) with `cost` and `opt`,
/// shifting its plan by `shift` planning steps per control step; `ctrl(sys, u)` turns the
/// planner's control into the plant's. The run counts the iLQR iterations and fallbacks.
#[allow(clippy::too_many_arguments)]
pub fn ilqr<D: Dynamics>(
    m: &Model,
    d: Data,
    steps: usize,
    substeps: usize,
    pushes: &[Push],
    mut sys: D,
    nu: usize,
    cost: QuadraticCost,
    opt: MpcOptions,
    shift: usize,
    ctrl: impl Fn(&D, &[f64]) -> Vec<f64>,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let mut mpc = IlqrMpc::new(nu, cost, opt);
    let mut iterations = 0;
    let mut run = drive(
        m,
        d,
        steps,
        substeps,
        pushes,
        |d| {
            let u = mpc.control(&mut sys, d, shift)?;
            iterations += mpc.last_history.len().saturating_sub(1);
            Ok((ctrl(&sys, &u), mpc.last_costs().1))
        },
        on_step,
    )?;
    run.iterations = iterations;
    run.fallbacks = mpc.fallbacks;
    run.closed.fallbacks = mpc.fallbacks;
    Ok(run)
}

/// A sampling planner on the planning model `pm` with `opt` and `cost`, its nominal plan
/// starting at `u0` in every knot when given, in the calling rayon pool.
#[allow(clippy::too_many_arguments)]
pub fn sampling(
    m: &Model,
    d: Data,
    steps: usize,
    substeps: usize,
    pushes: &[Push],
    pm: &Model,
    opt: SamplingOptions,
    u0: Option<&[f64]>,
    cost: &impl RolloutCost,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let knots = opt.knots;
    let mut ps = PredictiveSampling::new(pm.clone(), opt)?;
    if let Some(u0) = u0 {
        for k in 0..knots {
            ps.nominal[k * pm.nu..(k + 1) * pm.nu].copy_from_slice(u0);
        }
    }
    drive(
        m,
        d,
        steps,
        substeps,
        pushes,
        |d| Ok(ps.control(d, cost)),
        on_step,
    )
}
