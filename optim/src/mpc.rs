//! Receding-horizon iLQR: at every control step [`ilqr`](crate::ilqr::ilqr) is run for a few
//! iterations from the measured state over a fixed horizon, warm-started with the previous
//! solution shifted by one step (the last control repeated). The control applied is the first
//! of the plan plus its feedback term `u₀ + K₀ (x ⊖ x₀)` (zero at the planning state; used when
//! the plan is reused between re-plans). On a [`MoreauSystem`](crate::system::MoreauSystem) the
//! linearization is `moreau_derivatives`' transition FD Jacobians (or the analytic ones,
//! [`MoreauSystem::analytic`](crate::system::MoreauSystem::analytic)), in the tangent space of
//! ball and free joints. With `MpcOptions::bounds`
//! (e.g. [`ctrl_bounds`]) every solve is control-limited iLQR (box QP in the backward pass).
//!
//! A failed solve (iLQR's error, e.g. "regularization exceeded its maximum", a diverged
//! rollout, or a non-finite cost) does not stop the controller: like a real-time controller it
//! falls back to the previous plan shifted by `shift` steps (the last control repeated, its
//! states and gains shifted alike), applies that plan's first feedback control
//! `u₀ + K₀ (x ⊖ x₀)` (the warm start's first control before any plan), and counts the step in
//! [`IlqrMpc::fallbacks`]. Each solve starts from `IlqrOptions::mu_init`, so the next control step
//! re-plans with the regularization reset. Only [`IlqrMpc::max_consecutive_failures`] failed
//! solves in a row are an error. Bad input (dimensions, bounds) is an error at once.

use crate::ilqr::{
    check_problem, ilqr_in, Dynamics, IlqrOptions, IlqrResult, IlqrWorkspace, QuadraticCost,
};
use nalgebra::DVector;

/// MPC settings.
#[derive(Clone, Debug)]
pub struct MpcOptions {
    /// Steps in the planning horizon.
    pub horizon: usize,
    /// iLQR iterations per control step (the first control step gets `first_iter`).
    pub iter: usize,
    pub first_iter: usize,
    /// Elementwise control bounds (`None`: unbounded): the planner's iLQR solves its
    /// backward-pass QPs on this box (see [`crate::ilqr`]) and the returned control lies in it.
    /// [`ctrl_bounds`] gives the actuators' `ctrlrange`.
    pub bounds: Option<(Vec<f64>, Vec<f64>)>,
}

impl Default for MpcOptions {
    fn default() -> Self {
        MpcOptions {
            horizon: 50,
            iter: 2,
            first_iter: 20,
            bounds: None,
        }
    }
}

/// Receding-horizon iLQR state: the current plan.
pub struct IlqrMpc {
    pub cost: QuadraticCost,
    pub opt: MpcOptions,
    pub plan: Option<IlqrResult>,
    us: Vec<DVector<f64>>,
    /// Cost history of the last solve.
    pub last_history: Vec<f64>,
    /// Early exit of each solve: stop iterating when an iteration lowers the cost by less than
    /// this fraction (`IlqrOptions::tol`; 0, the default, runs all the iterations).
    pub tol: f64,
    /// Control steps whose solve failed and that applied the previous plan shifted instead.
    pub fallbacks: usize,
    /// Failed solves in a row so far (0 after a successful one).
    pub consecutive_failures: usize,
    /// [`IlqrMpc::step`] returns an error when this many solves in a row failed (default
    /// [`DEFAULT_MAX_CONSECUTIVE_FAILURES`]; 1: every failure is an error).
    pub max_consecutive_failures: usize,
    /// The error of the last failed solve (`None` before any).
    pub last_failure: Option<String>,
    /// Stages linearized by central differences because the system's Jacobians were not finite,
    /// over all solves ([`IlqrResult::jacobian_fallbacks`]).
    pub jacobian_fallbacks: usize,
    /// The solver's buffers, kept between control steps ([`ilqr_in`]).
    ws: IlqrWorkspace,
    /// The solver's options (the bounds of `opt`, cloned when they change).
    ilqr_opt: IlqrOptions,
    /// The plant's state ([`IlqrMpc::control_into`]).
    x: DVector<f64>,
}

/// Default of [`IlqrMpc::max_consecutive_failures`]: 10 control steps open loop on a shifted plan
/// (0.2 s at the hopper's 20 ms control step, 0.1 s at the quadruped's 10 ms) before giving up.
pub const DEFAULT_MAX_CONSECUTIVE_FAILURES: usize = 10;

impl IlqrMpc {
    pub fn new(nu: usize, cost: QuadraticCost, opt: MpcOptions) -> Self {
        IlqrMpc {
            us: vec![DVector::zeros(nu); opt.horizon],
            cost,
            opt,
            plan: None,
            last_history: vec![],
            tol: 0.0,
            fallbacks: 0,
            consecutive_failures: 0,
            max_consecutive_failures: DEFAULT_MAX_CONSECUTIVE_FAILURES,
            last_failure: None,
            jacobian_fallbacks: 0,
            ws: IlqrWorkspace::default(),
            ilqr_opt: IlqrOptions::default(),
            x: DVector::zeros(0),
        }
    }

    /// Re-plans from `x` (warm start: the previous plan shifted by `shift` steps) and returns the
    /// control to apply now. When the solve fails, the shifted plan itself is applied (see the
    /// module doc); the error is returned only after
    /// [`max_consecutive_failures`](IlqrMpc::max_consecutive_failures) failures in a row, or at
    /// once for inconsistent dimensions or bounds.
    pub fn step<D: Dynamics>(
        &mut self,
        sys: &mut D,
        x: &DVector<f64>,
        shift: usize,
    ) -> Result<DVector<f64>, String> {
        let mut u = DVector::zeros(sys.nu());
        self.step_into(sys, x, shift, u.as_mut_slice())?;
        Ok(u)
    }

    /// [`IlqrMpc::step`] with the control written into `u` (`nu` entries). Once the first solve
    /// has sized the solver's buffers and the plan, a control step allocates nothing itself
    /// (the system's `step` and `jacobians_all` may; a failed solve's fallback does).
    pub fn step_into<D: Dynamics>(
        &mut self,
        sys: &mut D,
        x: &DVector<f64>,
        shift: usize,
        u: &mut [f64],
    ) -> Result<(), String> {
        let iters = if self.plan.is_none() {
            self.opt.first_iter
        } else {
            self.opt.iter
        };
        if let Some(p) = &mut self.plan {
            shift_plan(p, shift);
            copy_vectors(&mut self.us, &p.us);
        }
        if self.ilqr_opt.bounds != self.opt.bounds {
            self.ilqr_opt.bounds.clone_from(&self.opt.bounds);
        }
        self.ilqr_opt.max_iter = iters;
        self.ilqr_opt.tol = self.tol;
        // input errors are the caller's, not a failed solve
        check_problem(&*sys, &self.cost, x, &self.us, &self.ilqr_opt)?;
        copy_vectors(&mut self.ws.us, &self.us);
        let ws = &mut self.ws;
        let solved = ilqr_in(ws, sys, &self.cost, x, &self.ilqr_opt, |_, _| {}).and_then(|res| {
            match ws.cost_history.last() {
                Some(c) if c.is_finite() => Ok(res),
                _ => Err("iLQR: non-finite cost".to_string()),
            }
        });
        match solved {
            Ok(res) => {
                self.consecutive_failures = 0;
                self.jacobian_fallbacks += res.jacobian_fallbacks;
                self.last_history.clear();
                self.last_history.extend_from_slice(&ws.cost_history);
                u.copy_from_slice(ws.us[0].as_slice());
                clamp_to(&self.opt.bounds, u);
                copy_vectors(&mut self.us, &ws.us);
                // the solution becomes the plan, trading buffers with the last plan
                // (the first plan is a copy, so that the workspace keeps buffers of its size)
                let p = self.plan.get_or_insert_with(|| IlqrResult {
                    xs: ws.xs.clone(),
                    us: ws.us.clone(),
                    gains: ws.gains.clone(),
                    cost_history: ws.cost_history.clone(),
                    iterations: 0,
                    converged: false,
                    jacobian_fallbacks: 0,
                });
                std::mem::swap(&mut p.xs, &mut ws.xs);
                std::mem::swap(&mut p.us, &mut ws.us);
                std::mem::swap(&mut p.gains, &mut ws.gains);
                std::mem::swap(&mut p.cost_history, &mut ws.cost_history);
                p.iterations = res.iterations;
                p.converged = res.converged;
                p.jacobian_fallbacks = res.jacobian_fallbacks;
                Ok(())
            }
            Err(e) => {
                self.fallbacks += 1;
                self.consecutive_failures += 1;
                self.last_history.clear();
                let msg = format!(
                    "iLQR MPC: {} consecutive failed solves (the last: {e})",
                    self.consecutive_failures
                );
                self.last_failure = Some(e);
                if self.consecutive_failures >= self.max_consecutive_failures.max(1) {
                    return Err(msg);
                }
                // the shifted warm start (in `self.us`, and in `self.plan` with its states and
                // gains when there is one) is the plan now: its feedback control at `x`
                if let Some(f) = self.feedback(&*sys, 0, x) {
                    u.copy_from_slice(f.as_slice());
                    return Ok(());
                }
                u.copy_from_slice(self.us[0].as_slice());
                self.clamp_slice(u);
                Ok(())
            }
        }
    }

    /// [`IlqrMpc::step`] from the plant's state [`state_of`]`(d)`, the control as a `Vec` (a
    /// controller for [`closed_loop`]).
    pub fn control<D: Dynamics>(
        &mut self,
        sys: &mut D,
        d: &moreau::Data,
        shift: usize,
    ) -> Result<Vec<f64>, String> {
        let mut u = vec![0.0; sys.nu()];
        self.control_into(sys, d, shift, &mut u)?;
        Ok(u)
    }

    /// [`IlqrMpc::control`] into `u` (`nu` entries), without allocating ([`IlqrMpc::step_into`]).
    pub fn control_into<D: Dynamics>(
        &mut self,
        sys: &mut D,
        d: &moreau::Data,
        shift: usize,
        u: &mut [f64],
    ) -> Result<(), String> {
        let n = d.qpos.len() + d.qvel.len() + d.act.len();
        if self.x.len() != n {
            self.x = DVector::zeros(n);
        }
        for (o, v) in self
            .x
            .iter_mut()
            .zip(d.qpos.iter().chain(&d.qvel).chain(&d.act))
        {
            *o = *v;
        }
        let x = std::mem::replace(&mut self.x, DVector::zeros(0));
        let r = self.step_into(sys, &x, shift, u);
        self.x = x;
        r
    }

    /// The planner's cost before and after the last solve (NaN before the first).
    pub fn last_costs(&self) -> (f64, f64) {
        let h = &self.last_history;
        match (h.first(), h.last()) {
            (Some(a), Some(b)) => (*a, *b),
            _ => (f64::NAN, f64::NAN),
        }
    }

    /// The feedback control of the current plan at step `t` of it for state `x`
    /// (`u_t + K_t (x ⊖ x_t)` on `sys`'s tangent space).
    pub fn feedback<D: Dynamics>(
        &self,
        sys: &D,
        t: usize,
        x: &DVector<f64>,
    ) -> Option<DVector<f64>> {
        let p = self.plan.as_ref()?;
        let t = t.min(p.us.len() - 1);
        let mut dx = DVector::zeros(sys.ndx());
        sys.diff(p.xs[t].as_slice(), x.as_slice(), dx.as_mut_slice());
        let mut u = &p.us[t] + &p.gains[t] * dx;
        self.clamp(&mut u);
        Some(u)
    }

    fn clamp_slice(&self, u: &mut [f64]) {
        clamp_to(&self.opt.bounds, u);
    }

    fn clamp(&self, u: &mut DVector<f64>) {
        self.clamp_slice(u.as_mut_slice());
    }
}

/// `u` clamped into the box `bounds` (none: unchanged).
fn clamp_to(bounds: &Option<(Vec<f64>, Vec<f64>)>, u: &mut [f64]) {
    if let Some((lo, hi)) = bounds {
        for i in 0..u.len() {
            u[i] = u[i].clamp(lo[i], hi[i]);
        }
    }
}

/// Shifts `p` by `shift` steps in place: controls, gains and states move `shift` entries
/// earlier and the last control, gain and state are repeated (the warm start of the next solve,
/// and the fallback plan when that solve fails). The cost history is left as it was.
fn shift_plan(p: &mut IlqrResult, shift: usize) {
    fn shifted<T>(v: &mut [T], shift: usize, copy: impl Fn(&mut T, &T)) {
        let n = v.len();
        if n == 0 {
            return;
        }
        let s = shift.min(n - 1);
        v.rotate_left(s);
        let (head, tail) = v.split_at_mut(n - s);
        for e in tail {
            copy(e, &head[n - 1 - s]);
        }
    }
    shifted(&mut p.us, shift, |a, b| a.copy_from(b));
    shifted(&mut p.gains, shift, |a, b| a.copy_from(b));
    shifted(&mut p.xs, shift, |a, b| a.copy_from(b));
}

/// `dst = src`, in `dst`'s storage where the sizes match.
fn copy_vectors(dst: &mut Vec<DVector<f64>>, src: &[DVector<f64>]) {
    dst.truncate(src.len());
    for (d, s) in dst.iter_mut().zip(src) {
        if d.len() == s.len() {
            d.copy_from(s);
        } else {
            d.clone_from(s);
        }
    }
    let n = dst.len();
    dst.extend(src[n..].iter().cloned());
}

/// The actuators' control box: `ctrlrange` for `ctrllimited` actuators, `(−∞, ∞)` otherwise
/// (MuJoCo clamps `ctrl` into `ctrlrange` before actuation only when `ctrllimited`).
pub fn ctrl_bounds(m: &moreau::Model) -> (Vec<f64>, Vec<f64>) {
    (0..m.nu)
        .map(|i| {
            if m.actuator_ctrllimited[i] {
                (m.actuator_ctrlrange[i][0], m.actuator_ctrlrange[i][1])
            } else {
                (f64::NEG_INFINITY, f64::INFINITY)
            }
        })
        .unzip()
}

/// A one-step disturbance applied to the simulated plant (not known to the planner).
#[derive(Clone, Debug)]
pub enum Push {
    /// `qfrc_applied[dof] = force` during control step `step`.
    Joint { step: usize, dof: usize, force: f64 },
    /// `xfrc_applied[body] = wrench` (force, torque at the body's COM) during `step`.
    Body {
        step: usize,
        body: usize,
        wrench: [f64; 6],
    },
}

/// The plant's trajectory under a controller.
#[derive(Clone, Debug, Default)]
pub struct ClosedLoop {
    pub qpos: Vec<Vec<f64>>,
    pub qvel: Vec<Vec<f64>>,
    pub ctrl: Vec<Vec<f64>>,
    /// Wall time of each controller call, seconds.
    pub plan_secs: Vec<f64>,
    /// Total wall time (controller and plant), seconds.
    pub wall: f64,
    /// Process CPU time (user + system, all threads) over the loop, seconds
    /// ([`process_cpu_secs`]; `None` where unavailable).
    pub cpu: Option<f64>,
    /// Simulated time, seconds.
    pub sim_time: f64,
    /// Every physics step (the initial state first): `time`, `qpos`, `qvel`, `act`, and the
    /// `ctrl` applied in each step (one fewer), for [`ClosedLoop::trajectory_json`].
    pub trace: Trace,
    /// Control steps at which the controller fell back on its previous plan because a solve
    /// failed ([`IlqrMpc::fallbacks`]; [`closed_loop`] leaves it 0, the caller sets it).
    pub fallbacks: usize,
}

/// The plant's state at every physics step, in the trajectory format
/// ([`crate::trajectory::Trajectory`]).
pub type Trace = crate::trajectory::Trajectory;

impl ClosedLoop {
    /// Simulated time over wall time.
    pub fn real_time_factor(&self) -> f64 {
        self.sim_time / self.wall
    }
    /// Simulated time over process CPU time (on a loaded machine the honest single-thread
    /// figure; with several threads it counts all of them). `None` when unavailable or below
    /// 50 ms (five ticks of `/proc`'s resolution).
    pub fn cpu_real_time_factor(&self) -> Option<f64> {
        self.cpu.filter(|&c| c >= 0.05).map(|c| self.sim_time / c)
    }
    /// `qpos[i]` at the end minus at the start (0 for an empty run).
    pub fn displacement(&self, i: usize) -> f64 {
        match (self.qpos.first(), self.qpos.last()) {
            (Some(a), Some(b)) => b[i] - a[i],
            _ => 0.0,
        }
    }
    /// Smallest `qpos[i]` over the control steps (the initial state included).
    pub fn min_qpos(&self, i: usize) -> f64 {
        self.qpos.iter().map(|q| q[i]).fold(f64::INFINITY, f64::min)
    }
    /// Largest `|qpos[i]|` over the control steps (the initial state included).
    pub fn max_abs_qpos(&self, i: usize) -> f64 {
        self.qpos.iter().map(|q| q[i].abs()).fold(0.0, f64::max)
    }
    /// Mean controller time per control step, milliseconds.
    pub fn mean_plan_ms(&self) -> f64 {
        1e3 * self.plan_secs.iter().sum::<f64>() / self.plan_secs.len().max(1) as f64
    }

    /// The physics-step trace in the JSON format of `moreau simulate` (`time`, `qpos`, `qvel`,
    /// `act`, plus `ctrl`), with the keys of `extra` (an object) added. `moreau replay`
    /// re-runs it; pushes are not in the format, so a replay departs at the first push.
    pub fn trajectory_json(&self, extra: serde_json::Value) -> serde_json::Value {
        self.trace.to_json(extra)
    }
}

/// Simulates the plant `d` for `steps` control steps of `substeps` physics steps each; the
/// controller sees the plant's `Data` at the start of each control step and returns the
/// control (held over the substeps). `pushes` are applied for the first physics step of their
/// control step. `on_step(k, d)` is called after each control step.
#[allow(clippy::too_many_arguments)]
pub fn closed_loop(
    m: &moreau::Model,
    d: &mut moreau::Data,
    steps: usize,
    substeps: usize,
    pushes: &[Push],
    mut controller: impl FnMut(&moreau::Data) -> Result<Vec<f64>, String>,
    mut on_step: impl FnMut(usize, &moreau::Data),
) -> Result<ClosedLoop, String> {
    let mut out = ClosedLoop {
        qpos: vec![d.qpos.clone()],
        qvel: vec![d.qvel.clone()],
        ..Default::default()
    };
    let tr = &mut out.trace;
    tr.time.push(d.time);
    tr.qpos.push(d.qpos.clone());
    tr.qvel.push(d.qvel.clone());
    tr.act.push(d.act.clone());
    let t0 = std::time::Instant::now();
    let c0 = process_cpu_secs();
    let start = d.time;
    for k in 0..steps {
        let tp = std::time::Instant::now();
        let u = controller(d)?;
        out.plan_secs.push(tp.elapsed().as_secs_f64());
        if u.len() != d.ctrl.len() {
            return Err(format!(
                "controller returned {} controls, the model has nu = {}",
                u.len(),
                d.ctrl.len()
            ));
        }
        d.ctrl.copy_from_slice(&u);
        for s in 0..substeps {
            for p in pushes {
                match p {
                    Push::Joint { step, dof, force } if *step == k && s == 0 => {
                        d.qfrc_applied[*dof] = *force
                    }
                    Push::Body { step, body, wrench } if *step == k && s == 0 => {
                        d.xfrc_applied[*body] = nalgebra::Vector6::from_column_slice(wrench)
                    }
                    _ => {}
                }
            }
            out.trace.ctrl.push(d.ctrl.clone());
            moreau::step(m, d);
            d.qfrc_applied.iter_mut().for_each(|v| *v = 0.0);
            d.xfrc_applied.iter_mut().for_each(|v| v.fill(0.0));
            let tr = &mut out.trace;
            tr.time.push(d.time);
            tr.qpos.push(d.qpos.clone());
            tr.qvel.push(d.qvel.clone());
            tr.act.push(d.act.clone());
        }
        if d.qpos.iter().chain(&d.qvel).any(|v| !v.is_finite()) {
            return Err(format!("plant diverged at control step {k}"));
        }
        out.qpos.push(d.qpos.clone());
        out.qvel.push(d.qvel.clone());
        out.ctrl.push(u);
        on_step(k, d);
    }
    out.wall = t0.elapsed().as_secs_f64();
    out.cpu = c0.and_then(|a| process_cpu_secs().map(|b| b - a));
    out.sim_time = d.time - start;
    Ok(out)
}

/// CPU time (user + system) of this process, seconds, from `/proc/self/stat` (Linux; `None`
/// elsewhere). Resolution: one clock tick (10 ms at the usual 100 Hz).
pub fn process_cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // the fields after the parenthesised command name start at field 3; utime and stime are
    // fields 14 and 15
    let rest = s.rsplit_once(')')?.1;
    let mut f = rest.split_whitespace().skip(11);
    let ut: f64 = f.next()?.parse().ok()?;
    let st: f64 = f.next()?.parse().ok()?;
    Some((ut + st) / 100.0)
}

/// The state vector `(qpos, qvel, act)` of `d` (the state of a
/// [`MoreauSystem`](crate::system::MoreauSystem)).
pub fn state_of(d: &moreau::Data) -> DVector<f64> {
    DVector::from_iterator(
        d.qpos.len() + d.qvel.len() + d.act.len(),
        d.qpos.iter().chain(&d.qvel).chain(&d.act).copied(),
    )
}
