//! Predictive sampling (the MPC baseline): a nominal control plan on `knots` evenly spaced
//! knots (zero-order hold or linear spline), `rollouts − 1` candidates = nominal + Gaussian
//! noise (σ scaled by each actuator's control range when limited), every candidate simulated
//! for `steps` physics steps from the current state by the engine, the cheapest becomes the new
//! nominal. The nominal itself is always candidate 0, so the plan's cost never increases for a
//! fixed state ([`Update::Best`]; [`Update::Mppi`] and [`Update::CrossEntropy`] average the
//! candidates instead). Rollouts run on the planner's [`Threads`] (one `Data` per thread; every
//! thread count gives the same plan, bit for bit, as one thread). The physics
//! step of the rollouts is [`PredictiveSampling::stepper`] (default: the engine's
//! `integrator::step`), so a plant stepped otherwise (e.g. `moreau::solver::hard::step_hard`)
//! can be planned with its own model.

use crate::threads::Threads;
use moreau::{Data, Model};
use std::sync::{Arc, Mutex};

/// The physics step of a rollout.
pub type Stepper = Arc<dyn Fn(&Model, &mut Data) + Send + Sync>;

/// How the knots are interpolated in time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interp {
    ZeroOrderHold,
    Linear,
}

/// Planner settings.
#[derive(Clone, Debug)]
pub struct SamplingOptions {
    /// Number of candidate plans per control step (the nominal included).
    pub rollouts: usize,
    /// Physics steps per rollout.
    pub steps: usize,
    /// Control knots over the horizon.
    pub knots: usize,
    /// Noise standard deviation (in control units; times the half range for limited controls).
    pub sigma: f64,
    pub interp: Interp,
    pub seed: u64,
    /// How the rollouts' costs update the nominal plan.
    pub update: Update,
}

/// The update of the nominal plan from the scored candidates: the three sampling planners of
/// MuJoCo MPC (predictive sampling, cross-entropy) and MPPI share the rollouts and differ only
/// here.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Update {
    /// Predictive sampling: the cheapest candidate becomes the nominal.
    Best,
    /// Model-predictive path integral: the nominal becomes the candidates' average weighted by
    /// `exp(−(c − c_min)/λ)`, with the temperature `λ = temperature · (c_mean − c_min)` relative
    /// to the round's spread of finite costs (candidates that diverged get weight 0).
    Mppi { temperature: f64 },
    /// Cross-entropy: the nominal becomes the mean of the `elites` cheapest candidates, and the
    /// next round samples with their standard deviation per knot and actuator (floored at
    /// `min_sigma`, in the units of [`SamplingOptions::sigma`], capped at `sigma`).
    CrossEntropy { elites: usize, min_sigma: f64 },
}

impl Default for SamplingOptions {
    fn default() -> Self {
        SamplingOptions {
            rollouts: 32,
            steps: 100,
            knots: 10,
            sigma: 0.5,
            interp: Interp::Linear,
            seed: 1,
            update: Update::Best,
        }
    }
}

/// A running cost evaluated after every rollout step (the data then holds the new state and the
/// control that produced it); the planner sums `timestep · cost`.
pub trait RolloutCost: Sync {
    fn stage(&self, m: &Model, d: &Data) -> f64;
}

impl<F: Fn(&Model, &Data) -> f64 + Sync> RolloutCost for F {
    fn stage(&self, m: &Model, d: &Data) -> f64 {
        self(m, d)
    }
}

/// splitmix64 and Box–Muller: a small deterministic Gaussian source.
#[derive(Clone, Debug)]
pub struct Gaussian {
    state: u64,
    spare: Option<f64>,
}

impl Gaussian {
    pub fn new(seed: u64) -> Self {
        Gaussian {
            state: seed ^ 0x9E37_79B9_7F4A_7C15,
            spare: None,
        }
    }
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    /// Standard normal.
    pub fn normal(&mut self) -> f64 {
        if let Some(s) = self.spare.take() {
            return s;
        }
        let (u1, u2) = (self.uniform(), self.uniform());
        let r = (-2.0 * u1.ln()).sqrt();
        let t = std::f64::consts::TAU * u2;
        self.spare = Some(r * t.sin());
        r * t.cos()
    }
}

/// The predictive-sampling planner: one `Data` per thread, preallocated.
pub struct PredictiveSampling {
    pub model: Model,
    pub opt: SamplingOptions,
    /// Nominal knots, `knots × nu` row-major; knot `k` at `plan_time + k · knot_dt`.
    pub nominal: Vec<f64>,
    pub plan_time: f64,
    pub knot_dt: f64,
    /// The rollouts' physics step (default `moreau::step`).
    pub stepper: Stepper,
    threads: Threads,
    /// The threads' `Data`, one per thread.
    datas: Vec<Mutex<Data>>,
    candidates: Vec<Vec<f64>>,
    costs: Vec<f64>,
    /// Sampling standard deviation per knot and actuator (in `sigma`'s units; cross-entropy
    /// adapts it, the other updates keep `sigma`).
    stds: Vec<f64>,
    rng: Gaussian,
    scratch: Vec<f64>,
}

/// Evaluates a knot plan at time offset `s` from its start.
fn spline(knots: &[f64], nu: usize, knot_dt: f64, interp: Interp, s: f64, out: &mut [f64]) {
    let nk = knots.len() / nu;
    let x = (s / knot_dt).max(0.0);
    let k = (x.floor() as usize).min(nk - 1);
    if interp == Interp::ZeroOrderHold || k + 1 >= nk {
        out.copy_from_slice(&knots[k * nu..(k + 1) * nu]);
        return;
    }
    let w = x - k as f64;
    for (i, o) in out.iter_mut().enumerate() {
        *o = (1.0 - w) * knots[k * nu + i] + w * knots[(k + 1) * nu + i];
    }
}

impl PredictiveSampling {
    pub fn new(model: Model, opt: SamplingOptions) -> Result<Self, String> {
        if opt.rollouts == 0 || opt.steps == 0 || opt.knots == 0 {
            return Err("predictive sampling: rollouts, steps and knots must be positive".into());
        }
        let nu = model.nu;
        let horizon = opt.steps as f64 * model.opt.timestep;
        let knot_dt = horizon / (opt.knots.max(2) - 1) as f64;
        let threads = Threads::new(0)?;
        let datas = threads.slots(|| Data::new(&model));
        Ok(PredictiveSampling {
            threads,
            nominal: vec![0.0; opt.knots * nu],
            plan_time: 0.0,
            knot_dt,
            stepper: Arc::new(|m: &Model, d: &mut Data| moreau::step(m, d)),
            datas,
            candidates: vec![vec![0.0; opt.knots * nu]; opt.rollouts],
            costs: vec![0.0; opt.rollouts],
            stds: vec![opt.sigma; opt.knots * nu],
            rng: Gaussian::new(opt.seed),
            scratch: vec![0.0; nu],
            model,
            opt,
        })
    }

    /// Runs the rollouts on `nthread` threads (0: every CPU, the default; 1: the calling
    /// thread). The plan does not depend on it.
    pub fn set_threads(&mut self, nthread: usize) -> Result<(), String> {
        self.threads = Threads::new(nthread)?;
        self.datas = self.threads.slots(|| Data::new(&self.model));
        Ok(())
    }

    pub fn nthread(&self) -> usize {
        self.threads.nthread()
    }

    fn clamp(&self, u: &mut [f64]) {
        for (i, v) in u.iter_mut().enumerate() {
            if self.model.actuator_ctrllimited[i] {
                let r = self.model.actuator_ctrlrange[i];
                *v = v.clamp(r[0], r[1]);
            }
        }
    }

    /// The nominal control at absolute time `t`.
    pub fn action(&self, t: f64, u: &mut [f64]) {
        spline(
            &self.nominal,
            self.model.nu,
            self.knot_dt,
            self.opt.interp,
            t - self.plan_time,
            u,
        );
        self.clamp(u);
    }

    /// [`PredictiveSampling::plan`] from `state`, then the action at `state.time`: the control
    /// to apply now and the best rollout's cost (a controller for
    /// [`crate::mpc::closed_loop`]).
    pub fn control(&mut self, state: &Data, cost: &dyn RolloutCost) -> (Vec<f64>, f64) {
        let c = self.plan(state, cost);
        let mut u = vec![0.0; self.model.nu];
        self.action(state.time, &mut u);
        (u, c)
    }

    /// One planning iteration from the state in `state` (time, qpos, qvel, act, warm start):
    /// shifts the nominal to the state's time, samples, rolls out and keeps the best. Returns
    /// the best cost; `costs()` has every candidate's.
    pub fn plan(&mut self, state: &Data, cost: &dyn RolloutCost) -> f64 {
        let nu = self.model.nu;
        let nk = self.opt.knots;
        // shift the nominal to start at the current time
        let mut shifted = vec![0.0; nk * nu];
        for k in 0..nk {
            let t = state.time + k as f64 * self.knot_dt;
            let mut u = std::mem::take(&mut self.scratch);
            self.action(t, &mut u);
            shifted[k * nu..(k + 1) * nu].copy_from_slice(&u);
            self.scratch = u;
        }
        self.nominal = shifted;
        self.plan_time = state.time;
        // candidates
        for (r, c) in self.candidates.iter_mut().enumerate() {
            c.copy_from_slice(&self.nominal);
            if r == 0 {
                continue;
            }
            for k in 0..nk {
                for i in 0..nu {
                    let scale = if self.model.actuator_ctrllimited[i] {
                        let rg = self.model.actuator_ctrlrange[i];
                        0.5 * (rg[1] - rg[0])
                    } else {
                        1.0
                    };
                    c[k * nu + i] += self.stds[k * nu + i] * scale * self.rng.normal();
                }
            }
        }
        // rollouts
        let m = &self.model;
        let (steps, knot_dt, interp) = (self.opt.steps, self.knot_dt, self.opt.interp);
        let stepper = &*self.stepper;
        let tasks: Vec<(&Vec<f64>, &mut f64)> =
            self.candidates.iter().zip(self.costs.iter_mut()).collect();
        self.threads
            .for_each_slot(&self.datas, tasks, 1, |d, (plan, out)| {
                *out = rollout(m, d, state, plan, knot_dt, interp, steps, cost, stepper);
            });
        let (best, &jbest) = self
            .costs
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .unwrap_or((0, &f64::INFINITY));
        match self.opt.update {
            Update::Best => self.nominal.copy_from_slice(&self.candidates[best]),
            Update::Mppi { temperature } => self.mppi(temperature, jbest),
            Update::CrossEntropy { elites, min_sigma } => self.cross_entropy(elites, min_sigma),
        }
        jbest
    }

    /// [`Update::Mppi`]: the exponentially weighted average of the candidates.
    fn mppi(&mut self, temperature: f64, cmin: f64) {
        let finite: Vec<f64> = self
            .costs
            .iter()
            .copied()
            .filter(|c| c.is_finite())
            .collect();
        if finite.is_empty() {
            return;
        }
        let mean = finite.iter().sum::<f64>() / finite.len() as f64;
        let lambda = (temperature * (mean - cmin)).max(1e-12 * cmin.abs().max(1e-300));
        let mut wsum = 0.0;
        self.nominal.iter_mut().for_each(|v| *v = 0.0);
        for (c, cand) in self.costs.iter().zip(&self.candidates) {
            if !c.is_finite() {
                continue;
            }
            let w = (-(c - cmin) / lambda).exp();
            wsum += w;
            for (n, v) in self.nominal.iter_mut().zip(cand) {
                *n += w * v;
            }
        }
        self.nominal.iter_mut().for_each(|v| *v /= wsum);
    }

    /// [`Update::CrossEntropy`]: the elites' mean and standard deviation.
    fn cross_entropy(&mut self, elites: usize, min_sigma: f64) {
        let mut order: Vec<usize> = (0..self.costs.len())
            .filter(|&r| self.costs[r].is_finite())
            .collect();
        if order.is_empty() {
            return;
        }
        order.sort_by(|&a, &b| self.costs[a].total_cmp(&self.costs[b]));
        order.truncate(elites.max(1));
        let n = order.len() as f64;
        let nu = self.model.nu;
        let (lo, hi) = (min_sigma.min(self.opt.sigma), self.opt.sigma);
        let cands = &self.candidates;
        let model = &self.model;
        for (j, (nom, sd)) in self
            .nominal
            .iter_mut()
            .zip(self.stds.iter_mut())
            .enumerate()
        {
            let mean = order.iter().map(|&r| cands[r][j]).sum::<f64>() / n;
            let var = order
                .iter()
                .map(|&r| (cands[r][j] - mean).powi(2))
                .sum::<f64>()
                / n;
            *nom = mean;
            let i = j % nu;
            let scale = if model.actuator_ctrllimited[i] {
                let rg = model.actuator_ctrlrange[i];
                0.5 * (rg[1] - rg[0])
            } else {
                1.0
            };
            *sd = (var.sqrt() / scale).clamp(lo, hi);
        }
    }

    /// Every candidate's cost of the last `plan` (candidate 0 is the shifted nominal).
    pub fn costs(&self) -> &[f64] {
        &self.costs
    }

    /// The candidates of the last `plan` (`knots × nu` each, row-major; before clamping to
    /// the control ranges, which the rollouts do per step).
    pub fn candidates(&self) -> &[Vec<f64>] {
        &self.candidates
    }
}

/// Simulates one candidate from `state` and returns `Σ timestep · cost` (∞ if it diverges).
#[allow(clippy::too_many_arguments)]
fn rollout(
    m: &Model,
    d: &mut Data,
    state: &Data,
    plan: &[f64],
    knot_dt: f64,
    interp: Interp,
    steps: usize,
    cost: &dyn RolloutCost,
    stepper: &(dyn Fn(&Model, &mut Data) + Send + Sync),
) -> f64 {
    d.time = state.time;
    d.qpos.copy_from_slice(&state.qpos);
    d.qvel.copy_from_slice(&state.qvel);
    d.act.copy_from_slice(&state.act);
    d.qacc_warmstart.copy_from_slice(&state.qacc_warmstart);
    d.qfrc_applied.iter_mut().for_each(|v| *v = 0.0);
    d.xfrc_applied.iter_mut().for_each(|v| v.fill(0.0));
    let h = m.opt.timestep;
    let nu = m.nu;
    let mut total = 0.0;
    for k in 0..steps {
        let s = k as f64 * h;
        spline(plan, nu, knot_dt, interp, s, &mut d.ctrl);
        for i in 0..nu {
            if m.actuator_ctrllimited[i] {
                let r = m.actuator_ctrlrange[i];
                d.ctrl[i] = d.ctrl[i].clamp(r[0], r[1]);
            }
        }
        stepper(m, d);
        total += h * cost.stage(m, d);
        if !total.is_finite()
            || d.warning.iter().any(|w| w.number > 0)
            || d.qpos.iter().chain(&d.qvel).any(|v| !v.is_finite())
        {
            d.warning = Default::default();
            return f64::INFINITY;
        }
    }
    total
}
