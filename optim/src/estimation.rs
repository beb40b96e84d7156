//! Estimation by direct collocation (model parameters as decision variables): noisy
//! recorded positions of a system driven by known forces; the decision variables are the
//! trajectory and the unknown parameters; the task tracks the observations (whitened by the
//! noise level), the forces on all dofs must equal the known ones (`nu = 0`, the known forces
//! as [`Collocation::set_applied_forces`]), so the solution is the maximum-likelihood
//! trajectory and parameters under the model's exact discrete dynamics.
//!
//! [`Experiment`] is a recording with the parameters to estimate (the benchmark one, a double
//! pendulum, is `moreau_problems::double_pendulum`); [`param_standard_errors`] is the expected
//! estimation error at a solution, from the Gauss–Newton matrix.

use crate::collocation::{Collocation, ParamSpec, PositionTracking, Weights};
use crate::sysid::Param;
use moreau::{Data, Model};

/// A recorded experiment and the parameters to estimate.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// The nominal model (the parameters' values in it are irrelevant: they are set).
    pub model: Model,
    pub params: Vec<Param>,
    pub names: Vec<&'static str>,
    /// The values the recording was simulated with.
    pub truth: Vec<f64>,
    pub q0: Vec<f64>,
    pub v0: Vec<f64>,
    /// Known generalized forces (`qfrc_applied`) of steps `0 … T−1`.
    pub forces: Vec<Vec<f64>>,
    /// Exact positions after steps `0 … T−1` (`q₁ … q_T`).
    pub clean: Vec<Vec<f64>>,
    /// `clean` plus Gaussian noise of standard deviation `noise` (per coordinate).
    pub observed: Vec<Vec<f64>>,
    pub noise: f64,
}

/// The engine's positions `q₁ … q_T` from `(q0, v0)` under the generalized forces `forces`
/// (`qfrc_applied`, one per step).
pub fn simulate(m: &Model, q0: &[f64], v0: &[f64], forces: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let mut d = Data::new(m);
    d.qpos.copy_from_slice(q0);
    d.qvel.copy_from_slice(v0);
    forces
        .iter()
        .map(|f| {
            d.qfrc_applied.copy_from_slice(f);
            moreau::step(m, &mut d);
            d.qpos.clone()
        })
        .collect()
}

impl Experiment {
    /// The collocation problem: horizon `T` = the recording's length, positions tracked with
    /// weight `1/noise²`, dynamics residual `τ_t − f_t` on all dofs with penalty `dynamics`
    /// (grown by the solver), the parameters starting at `init` with the given `bounds`
    /// (penalty weight `limits`).
    pub fn collocation(
        &self,
        init: &[f64],
        bounds: Option<[f64; 2]>,
        dynamics: f64,
        limits: f64,
    ) -> Result<Collocation, String> {
        if init.len() != self.params.len() {
            return Err(format!(
                "{} initial values for {} parameters",
                init.len(),
                self.params.len()
            ));
        }
        if self.model.nu != 0 {
            return Err("estimation: the model must have no actuators (known forces)".into());
        }
        let nv = self.model.nv;
        let task = PositionTracking::new(
            &self.model,
            self.observed.iter().cloned().map(Some).collect(),
            vec![1.0 / (self.noise * self.noise); nv],
        )?;
        let weights = Weights {
            control: vec![],
            dynamics,
            limits,
        };
        let mut c = Collocation::new(
            self.model.clone(),
            self.forces.len(),
            self.q0.clone(),
            self.v0.clone(),
            Box::new(task),
            weights,
        )?;
        c.set_applied_forces(&self.forces)?;
        c.set_params(
            self.params
                .iter()
                .zip(init)
                .map(|(&p, &v)| ParamSpec {
                    bounds,
                    ..ParamSpec::new(p, v)
                })
                .collect(),
        )?;
        Ok(c)
    }

    /// The initial guess: the observed positions, then `init`.
    pub fn initial_guess(&self, init: &[f64]) -> Vec<f64> {
        let mut z = self.observed.concat();
        z.extend_from_slice(init);
        z
    }
}

/// Standard errors of the parameters at a solution `z` of an estimation problem
/// ([`Experiment::collocation`]: no actuators, whitened task rows as the only noisy residuals,
/// dynamics rows `τ_t − f_t` on every dof, no parameter priors). Along the dynamics the
/// trajectory is a function of the parameters, `J_D,q dq/dp + J_D,p = 0` (`J_D,q` is square:
/// one row per dof and knot), so the estimate is the least-squares fit of `G = J_T,q dq/dp +
/// J_T,p` and, linearized, `Cov(p) = (GᵀG)⁻¹` (Gauss–Markov with unit-variance residuals).
/// Dense (`O((T·nv)³)`): a check and report for problems of up to a few thousand variables,
/// not part of the solver.
pub fn param_standard_errors(c: &Collocation, z: &[f64]) -> Result<Vec<f64>, String> {
    let nv = c.model.nv;
    if c.model.nu != 0 || c.nr() != nv {
        return Err("standard errors: the problem must have no actuators".into());
    }
    if c.param_specs().iter().any(|s| s.prior != 0.0) {
        return Err("standard errors: parameter priors are not accounted for".into());
    }
    let n = c.n_vars();
    let np = c.n_params();
    let nq = n - np;
    let j = c.dense_jacobian(z);
    if j.iter().any(|x| !x.is_finite()) {
        return Err("standard errors: non-finite Jacobian".into());
    }
    let (_, blocks) = c.jacobian(z);
    let mut task_rows = vec![];
    let mut dyn_rows = vec![];
    for (t, b) in blocks.iter().enumerate() {
        let k = c.task.dim(t, c.horizon);
        task_rows.extend(b.row..b.row + k);
        if t < c.horizon {
            dyn_rows.extend(b.row + k..b.row + k + nv);
        }
    }
    let jd = j.select_rows(&dyn_rows);
    let jt = j.select_rows(&task_rows);
    let dqdp = -jd
        .columns(0, nq)
        .into_owned()
        .lu()
        .solve(&jd.columns(nq, np).into_owned())
        .ok_or("standard errors: singular dynamics Jacobian")?;
    let g = jt.columns(0, nq) * dqdp + jt.columns(nq, np);
    let cov = (g.transpose() * g)
        .try_inverse()
        .ok_or("standard errors: parameters not identifiable from this recording")?;
    Ok((0..np).map(|i| cov[(i, i)].max(0.0).sqrt()).collect())
}
