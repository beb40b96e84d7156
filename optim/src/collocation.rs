//! Direct collocation (space-time optimization) through inverse dynamics (Computation "Inverse
//! dynamics and optimization"): the decision variables are the configurations `q₁ … q_T`
//! (`q₀` and `v₀` are given); velocities and accelerations are their tangent-space differences
//!
//! `v_t = (q_t ⊖ q_{t−1}) / h`,  `a_t = (v_{t+1} − v_t) / h`,
//!
//! which is exactly the engine's semi-implicit Euler step (`v_{t+1} = v_t + h a_t`,
//! `q_{t+1} = q_t ⊕ h v_{t+1}`), so quaternions are handled and a plan with zero residual replays
//! exactly. The forces follow from inverse dynamics, `τ_t = ID(q_t, v_t, a_t)` (with
//! `invdiscrete`, so Euler's implicit damping is accounted for). Actuated directions give the
//! controls; the unactuated part `Nᵀ τ_t` (`N` spans the left null space of the actuation matrix
//! `B`) is the dynamics residual.
//!
//! Actuators (MuJoCo's documentation, "Actuation model"): fixed gain, no activation dynamics, a
//! joint transmission, and no bias or an affine one (`biastype="affine"`: position and velocity
//! servos). The engine's actuator force is `f_k = gain_k·u_k + bias_k(q, v)` with `bias_k =
//! biasprm[0] + biasprm[1]·length_k + biasprm[2]·velocity_k`, `length_k = gear_k·q_j`,
//! `velocity_k = gear_k·v_j`, and `qfrc_actuator = Σ_k moment_k f_k`. With `B = moment·diag(gain)`
//! the forces are `f_t = diag(gain) B⁺ τ_t` and the controls
//!
//! `u_t = B⁺ τ_t − diag(gain)⁻¹ bias(q_t, v_t)`,
//!
//! so `∂u/∂q` and `∂u/∂v` carry the constant `−biasprm[1]·gear/gain`, `−biasprm[2]·gear/gain`.
//! `forcerange` (with `forcelimited`) is a penalty on `f_t` outside the range, like `ctrlrange`'s
//! on `u_t`: the engine clamps `f`, and a force beyond the clamp has no control that produces it
//! (`∂f/∂u = 0` there), so a plan is replayable only with its forces inside the range. The
//! penalty's slope is 1 outside the range and 0 inside (and on the boundary).
//!
//! Everything is a least-squares residual, `J = ½‖r‖²`, per knot `t`:
//! - task: [`Task::residual`] of `(q_t, v_t)` (includes the terminal cost at `t = T`);
//! - control effort: `√(dt·R_k) u_k`;
//! - dynamics: `√w (Nᵀτ_t + λ_t / w)` — a penalty with augmented-Lagrangian multipliers `λ_t`
//!   (updated by the solver) so that the residual converges to zero, not to `O(1/w)`;
//! - limits as penalties: `√w_lim · (distance outside ctrlrange / forcerange / joint range)`.
//!
//! Knot `t` depends on `q_{t−1}, q_t, q_{t+1}` only, so the residual Jacobian is block-banded and
//! `JᵀJ` has half-bandwidth `3·nv − 1` (see [`crate::band`]). The inverse-dynamics Jacobians come
//! from an [`InverseJacobian`] provider: [`Analytic`] (the default: moreau-derivatives' analytic
//! inverse-dynamics derivatives, with the `invdiscrete` chain rule) or [`FiniteDifference`]
//! (for comparison, and the fallback on models the analytic one does not cover).
//!
//! Model parameters (optionally decision variables): [`Collocation::set_params`]
//! appends `n_p` parameters ([`crate::sysid::Param`]: inertial, mass, damping, friction loss)
//! to the decision vector, `z = (q₁ … q_T, p)`. Every knot's forces are evaluated on a private
//! copy of the model holding `p` ([`crate::sysid::model_with`]: compiled constants recomputed),
//! so `J` gains a dense border of `n_p` columns; a prior `√w_p (p − p_init)` and range
//! penalties (like the limits) add `2·n_p` rows. `∂τ/∂p` is analytic where τ is linear in the
//! parameter ([`ParamJacobian`]), finite differences otherwise. The normal matrix becomes
//! block-banded with a dense border ([`crate::band::Bordered`], solved by the Schur complement
//! on the parameter block). Known generalized forces (`qfrc_applied`, or `B u` of known
//! controls on a model without actuators) can be subtracted from τ
//! ([`Collocation::set_applied_forces`]): with `nu = 0` the whole `τ_t − f_t` is the dynamics
//! residual, which is the estimation-by-collocation setting.

#![allow(clippy::needless_range_loop)]

use crate::band::{BandMatrix, Bordered};
use crate::sysid::{self, Param};
use crate::threads::Threads;
use moreau::model::{disable, enable, BiasType, DynType, GainType, Integrator, JointType, TrnType};
use moreau::pipeline::mjd_sub_quat;
use moreau::{differentiate_pos, integrate_pos, Data, Model};
use moreau_derivatives::fd::{FdWorkspace, InverseJacobians};
use moreau_derivatives::inverse::InverseDerivatives;
use nalgebra::{DMatrix, Matrix3, Vector3, Vector6};
use std::cell::{Ref, RefCell};
use std::sync::Mutex;

/// `∂τ/∂q` (tangent perturbations `q ⊕ δ`), `∂τ/∂v`, `∂τ/∂a` of inverse dynamics, each `nv×nv`.
pub trait InverseJacobian {
    fn name(&self) -> &str;
    #[allow(clippy::too_many_arguments)]
    fn jacobians(
        &mut self,
        m: &Model,
        d: &mut Data,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        dq: &mut DMatrix<f64>,
        dv: &mut DMatrix<f64>,
        da: &mut DMatrix<f64>,
    );
    /// A provider computing the same Jacobians from the same inputs, for another thread
    /// (`None`, the default: the knots are linearized on the calling thread only).
    fn fork(&self) -> Option<Box<dyn InverseJacobian + Send>> {
        None
    }
}

/// Evaluates `τ = qfrc_inverse(q, v, a)` into `tau`.
pub fn inverse_force(m: &Model, d: &mut Data, q: &[f64], v: &[f64], a: &[f64], tau: &mut [f64]) {
    d.qpos.copy_from_slice(q);
    d.qvel.copy_from_slice(v);
    d.qacc.copy_from_slice(a);
    moreau::pipeline::inverse_skip(m, d, moreau::pipeline::Skip::None, true);
    tau.copy_from_slice(&d.qfrc_inverse);
}

/// Finite differences of `inverse` (forward or centered): `mjd_inverseFD`
/// ([`FdWorkspace::inverse_steps`] of the derivatives crate) with its own step in `v` and `a`.
///
/// `τ` is linear in `a` and, for the smooth dynamics without fluid forces or polynomial damping,
/// quadratic in `v` (Coriolis, linear damping), so centered differences in `v` and `a` are exact
/// for any step: `eps_va` defaults to 1, which removes the round-off that a small step leaves.
/// This matters in collocation, where `a` enters as `(q_{t+1} − 2q_t + q_{t−1})/h²`: an error of
/// 1e-10 in `∂τ/∂a` becomes 1e-6 in the Jacobian, and the normal matrix, whose constraint part is
/// `10⁸` times stiffer than the task part, loses the reduced curvature. Set `eps_va` small for
/// models whose forces are not polynomial in `v` (fluid, contacts).
#[derive(Clone, Debug)]
pub struct FiniteDifference {
    /// Step in `q` (tangent).
    pub eps: f64,
    /// Step in `v` and `a`.
    pub eps_va: f64,
    pub centered: bool,
    /// Buffers, built on first use for the model's sizes.
    work: Option<Box<FdWorkspace>>,
}

impl Default for FiniteDifference {
    fn default() -> Self {
        FiniteDifference::new(1e-6, 1.0, true)
    }
}

impl FiniteDifference {
    /// Steps `eps` in `q`, `eps_va` in `v` and `a`; centered or forward differences.
    pub fn new(eps: f64, eps_va: f64, centered: bool) -> Self {
        FiniteDifference {
            eps,
            eps_va,
            centered,
            work: None,
        }
    }

    /// `mjd_inverseFD` at `(q, v, a)` with steps `eps` in `q` and `eps_va` in `v`, `a` (negative
    /// steps with `centered` = false: backward differences), no sensors; MuJoCo's transposed
    /// layout (`DfDq[(i, j)] = ∂τ_j/∂q_i`).
    #[allow(clippy::too_many_arguments)]
    pub fn inverse_jacobians<'a>(
        work: &'a mut Option<Box<FdWorkspace>>,
        m: &Model,
        d: &mut Data,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        (eps, eps_va): (f64, f64),
        centered: bool,
    ) -> &'a InverseJacobians {
        let w = work.get_or_insert_with(|| {
            let mut w = FdWorkspace::new(m);
            w.sensors = false;
            Box::new(w)
        });
        d.qpos.copy_from_slice(q);
        d.qvel.copy_from_slice(v);
        d.qacc.copy_from_slice(a);
        w.inverse_steps(m, d, eps, eps_va, false, centered)
    }
}

impl InverseJacobian for FiniteDifference {
    fn fork(&self) -> Option<Box<dyn InverseJacobian + Send>> {
        Some(Box::new(FiniteDifference::new(
            self.eps,
            self.eps_va,
            self.centered,
        )))
    }

    fn name(&self) -> &str {
        if self.centered {
            "finite differences (centered)"
        } else {
            "finite differences (forward)"
        }
    }

    fn jacobians(
        &mut self,
        m: &Model,
        d: &mut Data,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        dq: &mut DMatrix<f64>,
        dv: &mut DMatrix<f64>,
        da: &mut DMatrix<f64>,
    ) {
        let steps = (self.eps, self.eps_va);
        let j = Self::inverse_jacobians(&mut self.work, m, d, q, v, a, steps, self.centered);
        j.DfDq.transpose_to(dq);
        j.DfDv.transpose_to(dv);
        j.DfDa.transpose_to(da);
    }
}

/// Analytic `∂τ/∂q`, `∂τ/∂v`, `∂τ/∂a` ([`moreau_derivatives::inverse::InverseDerivatives`]:
/// `M + JᵀHJ`, the RNE/passive velocity derivatives, `∂/∂q` by the Carpentier–Mansard recursion
/// plus restricted duals for constraint terms, and under `invdiscrete` the chain rule through
/// Euler's implicit damping). Exact (to round-off) wherever the inverse dynamics is smooth.
///
/// Models outside [`moreau_derivatives::Support::inverse`]'s coverage (`invdiscrete` with
/// RK4) fall back to centered
/// finite differences with small steps (`eps = eps_va = 1e-6`, safe for contacts);
/// [`Analytic::fallback`] and [`InverseJacobian::name`] then say why.
#[derive(Default)]
pub struct Analytic {
    work: InverseDerivatives,
    fallback: Option<(FiniteDifference, &'static str)>,
    name: String,
}

impl Analytic {
    pub fn new() -> Self {
        Self::default()
    }

    /// `Err(reason)` if the analytic derivatives do not cover `m` (the provider would fall
    /// back to finite differences).
    pub fn supports(m: &Model) -> Result<(), &'static str> {
        moreau_derivatives::Support::inverse(m)
            .check()
            .map_err(|e| e.message())
    }

    /// Why the last call fell back to finite differences, if it did.
    pub fn fallback(&self) -> Option<&'static str> {
        self.fallback.as_ref().map(|f| f.1)
    }
}

impl InverseJacobian for Analytic {
    fn fork(&self) -> Option<Box<dyn InverseJacobian + Send>> {
        Some(Box::new(Analytic::new()))
    }

    fn name(&self) -> &str {
        if self.name.is_empty() {
            "analytic"
        } else {
            &self.name
        }
    }

    fn jacobians(
        &mut self,
        m: &Model,
        d: &mut Data,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        dq: &mut DMatrix<f64>,
        dv: &mut DMatrix<f64>,
        da: &mut DMatrix<f64>,
    ) {
        if let Err(reason) = Self::supports(m) {
            // (re)built when the model's reason changes, so a provider reused on another
            // model reports that model's reason
            if self.fallback.as_ref().map(|f| f.1) != Some(reason) {
                let fd = FiniteDifference::new(1e-6, 1e-6, true);
                self.name = format!("{} (analytic unsupported: {reason})", fd.name());
                self.fallback = Some((fd, reason));
            }
            if let Some((fd, _)) = self.fallback.as_mut() {
                fd.jacobians(m, d, q, v, a, dq, dv, da);
            }
            return;
        }
        if self.fallback.take().is_some() {
            self.name.clear();
        }
        d.qpos.copy_from_slice(q);
        d.qvel.copy_from_slice(v);
        d.qacc.copy_from_slice(a);
        // `supports` was checked: compute cannot refuse
        if self.work.compute(m, d).is_ok() {
            dq.copy_from(&self.work.dq);
            dv.copy_from(&self.work.dv);
            da.copy_from(&self.work.da);
        }
    }
}

/// A task cost as a least-squares residual of the state at knot `t` (`t = T` is the terminal
/// knot). The default Jacobian is by finite differences (no dynamics involved: cheap).
pub trait Task {
    fn dim(&self, t: usize, horizon: usize) -> usize;
    fn residual(&self, m: &Model, t: usize, horizon: usize, q: &[f64], v: &[f64], r: &mut [f64]);
    /// `∂r/∂q` (tangent) and `∂r/∂v`, `dim × nv` each.
    #[allow(clippy::too_many_arguments)]
    fn jacobian(
        &self,
        m: &Model,
        t: usize,
        horizon: usize,
        q: &[f64],
        v: &[f64],
        jq: &mut DMatrix<f64>,
        jv: &mut DMatrix<f64>,
    ) {
        let k = self.dim(t, horizon);
        let eps = 1e-7;
        let (mut rp, mut rm) = (vec![0.0; k], vec![0.0; k]);
        let mut dir = vec![0.0; m.nv];
        let mut qp = q.to_vec();
        let mut vp = v.to_vec();
        for j in 0..m.nv {
            dir[j] = 1.0;
            qp.copy_from_slice(q);
            integrate_pos(m, &mut qp, &dir, eps);
            self.residual(m, t, horizon, &qp, v, &mut rp);
            qp.copy_from_slice(q);
            integrate_pos(m, &mut qp, &dir, -eps);
            self.residual(m, t, horizon, &qp, v, &mut rm);
            dir[j] = 0.0;
            for i in 0..k {
                jq[(i, j)] = (rp[i] - rm[i]) / (2.0 * eps);
            }
            vp[j] = v[j] + eps;
            self.residual(m, t, horizon, q, &vp, &mut rp);
            vp[j] = v[j] - eps;
            self.residual(m, t, horizon, q, &vp, &mut rm);
            vp[j] = v[j];
            for i in 0..k {
                jv[(i, j)] = (rp[i] - rm[i]) / (2.0 * eps);
            }
        }
    }
}

/// Quadratic state tracking, the cost of docs/optimization.md#swing-up:
/// `Σ_{t<T} dt·½‖x_t − x*‖²_Q + ½‖x_T − x*‖²_{Qf}` with `x − x* = (q ⊖ q*, v − v*)` and diagonal
/// weights (`nv` position weights then `nv` velocity weights).
#[derive(Clone, Debug)]
pub struct StateTracking {
    pub qref: Vec<f64>,
    pub vref: Vec<f64>,
    pub q: Vec<f64>,
    pub qf: Vec<f64>,
    pub dt: f64,
}

impl Task for StateTracking {
    fn dim(&self, _t: usize, _horizon: usize) -> usize {
        self.q.len()
    }
    fn residual(&self, m: &Model, t: usize, horizon: usize, q: &[f64], v: &[f64], r: &mut [f64]) {
        let nv = m.nv;
        // q ⊖ q* straight into r (no allocation), then the weights
        differentiate_pos(m, &mut r[..nv], 1.0, &self.qref, q);
        for i in 0..2 * nv {
            let w = if t == horizon {
                self.qf[i]
            } else {
                self.dt * self.q[i]
            };
            let e = if i < nv {
                r[i]
            } else {
                v[i - nv] - self.vref[i - nv]
            };
            r[i] = w.sqrt() * e;
        }
    }
    fn jacobian(
        &self,
        m: &Model,
        t: usize,
        horizon: usize,
        q: &[f64],
        v: &[f64],
        jq: &mut DMatrix<f64>,
        jv: &mut DMatrix<f64>,
    ) {
        let nv = m.nv;
        let quat = m
            .jnt_type
            .iter()
            .any(|j| matches!(j, JointType::Ball | JointType::Free));
        if quat {
            // d(q ⊖ q*)/dq through mjd_subQuat: finite differences are simpler here.
            let fd = FdTask(self);
            return fd.jacobian(m, t, horizon, q, v, jq, jv);
        }
        jq.fill(0.0);
        jv.fill(0.0);
        for i in 0..nv {
            let (wq, wv) = if t == horizon {
                (self.qf[i], self.qf[nv + i])
            } else {
                (self.dt * self.q[i], self.dt * self.q[nv + i])
            };
            jq[(i, i)] = wq.sqrt();
            jv[(nv + i, i)] = wv.sqrt();
        }
    }
}

/// Tracking of given configurations (e.g. measured positions), `½ Σ_t w_i ((q_t ⊖ y_t)_i)²`
/// over the knots `t ≥ 1` that have a target (`targets[t − 1]`, `None`: no cost at that knot;
/// `q₀` is fixed, so knot 0 has no rows). With `weight = 1/σ²` for measurement noise of
/// standard deviation σ the residuals are the whitened measurement errors (maximum likelihood).
#[derive(Clone, Debug)]
pub struct PositionTracking {
    /// `T` target configurations (`nq` each) for the knots `1 … T`.
    pub targets: Vec<Option<Vec<f64>>>,
    /// Per-dof weights `w_i` (`nv`).
    pub weight: Vec<f64>,
}

impl PositionTracking {
    /// Checks the sizes against `m` (`nq` per target, `nv` weights, finite, weights ≥ 0).
    pub fn new(
        m: &Model,
        targets: Vec<Option<Vec<f64>>>,
        weight: Vec<f64>,
    ) -> Result<Self, String> {
        if weight.len() != m.nv || weight.iter().any(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(format!("position tracking: need {} weights ≥ 0", m.nv));
        }
        for y in targets.iter().flatten() {
            if y.len() != m.nq || y.iter().any(|x| !x.is_finite()) {
                return Err(format!(
                    "position tracking: targets need {} finite values",
                    m.nq
                ));
            }
        }
        Ok(PositionTracking { targets, weight })
    }
}

impl Task for PositionTracking {
    fn dim(&self, t: usize, _horizon: usize) -> usize {
        match t.checked_sub(1).and_then(|k| self.targets.get(k)) {
            Some(Some(_)) => self.weight.len(),
            _ => 0,
        }
    }
    fn residual(&self, m: &Model, t: usize, _horizon: usize, q: &[f64], _v: &[f64], r: &mut [f64]) {
        if let Some(Some(y)) = t.checked_sub(1).and_then(|k| self.targets.get(k)) {
            if y.len() != m.nq || r.len() != m.nv {
                // built without `new`, for another model: no panic, a non-finite cost
                r.iter_mut().for_each(|x| *x = f64::NAN);
                return;
            }
            differentiate_pos(m, &mut r[..m.nv], 1.0, y, q);
            for (x, w) in r.iter_mut().zip(&self.weight) {
                *x *= w.sqrt();
            }
        }
    }
    fn jacobian(
        &self,
        m: &Model,
        t: usize,
        horizon: usize,
        q: &[f64],
        v: &[f64],
        jq: &mut DMatrix<f64>,
        jv: &mut DMatrix<f64>,
    ) {
        if self.dim(t, horizon) == 0 {
            return;
        }
        if self.weight.len() != m.nv {
            jq.fill(f64::NAN);
            jv.fill(f64::NAN);
            return;
        }
        let quat = m
            .jnt_type
            .iter()
            .any(|j| matches!(j, JointType::Ball | JointType::Free));
        if quat {
            return FdTask(self).jacobian(m, t, horizon, q, v, jq, jv);
        }
        jq.fill(0.0);
        jv.fill(0.0);
        for (i, w) in self.weight.iter().enumerate() {
            jq[(i, i)] = w.sqrt();
        }
    }
}

/// Forces the default (finite-difference) Jacobian of a task.
struct FdTask<'a, T: Task>(&'a T);
impl<T: Task> Task for FdTask<'_, T> {
    fn dim(&self, t: usize, horizon: usize) -> usize {
        self.0.dim(t, horizon)
    }
    fn residual(&self, m: &Model, t: usize, horizon: usize, q: &[f64], v: &[f64], r: &mut [f64]) {
        self.0.residual(m, t, horizon, q, v, r)
    }
}

/// Weights of the non-task terms.
#[derive(Clone, Debug)]
pub struct Weights {
    /// Control effort `½ dt R_k u_k²` per actuator.
    pub control: Vec<f64>,
    /// Penalty weight `w` of the dynamics residual on unactuated directions.
    pub dynamics: f64,
    /// Penalty weight of control-range and joint-range violations.
    pub limits: f64,
}

/// The evaluated trajectory: per knot `t < T`, `v_t`, `a_t`, `τ_t`, `u_t`, the actuator forces
/// and the dynamics
/// residual `Nᵀτ_t`; `v` has `T + 1` entries.
#[derive(Clone, Debug, Default)]
pub struct Evaluation {
    pub v: Vec<Vec<f64>>,
    pub a: Vec<Vec<f64>>,
    pub tau: Vec<Vec<f64>>,
    pub u: Vec<Vec<f64>>,
    /// Actuator forces `f_t = gain·u_t + bias(q_t, v_t)` (MuJoCo's `actuator_force` before the
    /// `forcerange` clamp), `nu` per knot `t < T`.
    pub force: Vec<Vec<f64>>,
    pub defect: Vec<Vec<f64>>,
    /// The full residual vector `r` (objective `½‖r‖²`).
    pub r: Vec<f64>,
    /// Cost split: task, control, limits (all without the dynamics penalty).
    pub task_cost: f64,
    pub control_cost: f64,
    pub limit_cost: f64,
    /// The model parameters of `z` (empty without [`Collocation::set_params`]).
    pub params: Vec<f64>,
    /// Parameter prior and range penalties.
    pub param_cost: f64,
}

impl Evaluation {
    /// Task + control + limit (+ parameter prior and range) cost: the cost the dynamics penalty
    /// and multipliers do not alter.
    pub fn cost(&self) -> f64 {
        self.task_cost + self.control_cost + self.limit_cost + self.param_cost
    }
    /// `max |Nᵀτ_t|`.
    pub fn max_defect(&self) -> f64 {
        self.defect
            .iter()
            .flatten()
            .fold(0.0_f64, |a, b| a.max(b.abs()))
    }
}

/// Residual Jacobian rows of knot `t` with respect to `(q_{t−1}, q_t, q_{t+1})` tangents
/// (`rows × 3nv`; columns of fixed configurations are zero).
#[derive(Clone, Debug)]
pub struct KnotJacobian {
    /// First row of this knot in `r`.
    pub row: usize,
    pub mat: DMatrix<f64>,
    /// `∂r/∂p` of the same rows (`rows × n_p`; `n_p = 0` without parameters).
    pub par: DMatrix<f64>,
    /// Second-order term `Σ_i r_i ∇²r_i` of the forces (3nv × 3nv), with
    /// [`Collocation::second_order`].
    pub hess: Option<DMatrix<f64>>,
    /// The knot's one-sided rows (control range, force range, joint range; [`HingeRow`]) and
    /// the derivative of each one's argument, `∂x/∂δ` over the block's columns
    /// (`hinge.len() × 3nv`) and the parameters (`hinge.len() × n_p`), whether the row is
    /// active or not: the rows' model past their kink ([`Collocation::hinge_model_correction`]).
    pub hinge: Vec<HingeRow>,
    pub hinge_mat: DMatrix<f64>,
    pub hinge_par: DMatrix<f64>,
}

/// A one-sided residual row `r = scale · excess(x, [lo, hi])` (`excess`: the signed distance
/// outside the range, 0 inside): a limit penalty, whose slope jumps from 0 to `scale` where `x`
/// leaves the range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HingeRow {
    /// Its index in the residual `r`.
    pub row: usize,
    /// The argument (a control, an actuator force, a joint position) and its range.
    pub x: f64,
    pub range: [f64; 2],
    pub scale: f64,
}

struct Scratch {
    data: Data,
    provider: Box<dyn InverseJacobian>,
    mats: Mats,
    /// The threads' `Data` and forked providers ([`InverseJacobian::fork`]), made on the
    /// first threaded linearization.
    forks: Vec<Mutex<Fork>>,
    /// The knots' `(∂τ/∂q, ∂τ/∂v, ∂τ/∂a)` of a threaded linearization.
    knots: Vec<[DMatrix<f64>; 3]>,
}

/// A thread's `Data` and provider.
type Fork = (Data, Box<dyn InverseJacobian + Send>);

/// Per-knot work matrices of [`Collocation::jacobian_into`] and [`Collocation::normal_equations`].
#[derive(Default)]
struct Mats {
    tq: DMatrix<f64>,
    tv: DMatrix<f64>,
    ta: DMatrix<f64>,
    /// `∂(q_t ⊖ q_{t−1})/∂(q_{t−1}, q_t)` and the same for `(q_t, q_{t+1})`.
    d_prev: (DMatrix<f64>, DMatrix<f64>),
    d_next: (DMatrix<f64>, DMatrix<f64>),
    dvp: DMatrix<f64>,
    dvc: DMatrix<f64>,
    dap: DMatrix<f64>,
    dac: DMatrix<f64>,
    dan: DMatrix<f64>,
    dtau: [DMatrix<f64>; 3],
    du: DMatrix<f64>,
    dd: DMatrix<f64>,
    /// `B⁺ ∂τ` of one column block (the forces' rows: `du` less the bias part).
    dfb: DMatrix<f64>,
    /// `diag(gain)⁻¹ ∂bias/∂(q_{t−1}, q_t)` of a knot (`nu × nv` each).
    dbias: (DMatrix<f64>, DMatrix<f64>),
    /// Task Jacobians `(∂r/∂q, ∂r/∂v)` per knot.
    task: Vec<(DMatrix<f64>, DMatrix<f64>)>,
    jtj: DMatrix<f64>,
    /// `∂τ_t/∂p` (`nv × n_p`), its images `B⁺ ∂τ`, `Nᵀ ∂τ`, body accelerations and two force
    /// vectors for the parameter columns.
    dp: DMatrix<f64>,
    dup: DMatrix<f64>,
    ddp: DMatrix<f64>,
    cacc: Vec<Vector6<f64>>,
    fp: Vec<f64>,
    fm: Vec<f64>,
}

impl Mats {
    fn prepare(&mut self, nv: usize, nu: usize, nr: usize, horizon: usize, np: usize) {
        if self.tq.nrows() != nv || self.du.shape() != (nu, nv) || self.dd.shape() != (nr, nv) {
            let z = || DMatrix::zeros(nv, nv);
            *self = Mats {
                tq: z(),
                tv: z(),
                ta: z(),
                d_prev: (z(), z()),
                d_next: (z(), z()),
                dvp: z(),
                dvc: z(),
                dap: z(),
                dac: z(),
                dan: z(),
                dtau: [z(), z(), z()],
                du: DMatrix::zeros(nu, nv),
                dd: DMatrix::zeros(nr, nv),
                dfb: DMatrix::zeros(nu, nv),
                dbias: (DMatrix::zeros(nu, nv), DMatrix::zeros(nu, nv)),
                task: vec![],
                jtj: DMatrix::zeros(3 * nv, 3 * nv),
                ..Default::default()
            };
        }
        self.task
            .resize_with(horizon + 1, || (DMatrix::zeros(0, 0), DMatrix::zeros(0, 0)));
        if self.dp.shape() != (nv, np) || self.dup.nrows() != nu || self.ddp.nrows() != nr {
            self.dp = DMatrix::zeros(nv, np);
            self.dup = DMatrix::zeros(nu, np);
            self.ddp = DMatrix::zeros(nr, np);
            self.fp = vec![0.0; nv];
            self.fm = vec![0.0; nv];
        }
    }
}

/// A direct-collocation problem on a moreau model.
pub struct Collocation {
    pub model: Model,
    pub horizon: usize,
    pub q0: Vec<f64>,
    pub v0: Vec<f64>,
    pub task: Box<dyn Task>,
    pub weights: Weights,
    /// Actuation matrix `B` (`nv × nu`): `qfrc_actuator = B u`.
    pub b: DMatrix<f64>,
    /// `B⁺` (`nu × nv`).
    pub b_pinv: DMatrix<f64>,
    /// Orthonormal basis of the unactuated directions (`nv × nr`).
    pub n: DMatrix<f64>,
    /// Augmented-Lagrangian multipliers of `Nᵀτ_t = 0`, `T × nr`.
    pub multipliers: RefCell<Vec<f64>>,
    /// Add the second-order term `Σ r_i ∇²r_i` of the force-dependent residuals (control effort,
    /// dynamics residual with its multiplier, control limits) to the Gauss–Newton matrix: a
    /// Newton step on the Lagrangian instead of Gauss–Newton, which otherwise converges only
    /// linearly here (the residuals are far from zero at the optimum and `τ(q)` is curved).
    /// Costs `4·nv` extra Jacobian evaluations per knot.
    pub second_order: std::cell::Cell<bool>,
    /// Factor on `weights.dynamics` applied by the solver's penalty updates.
    penalty_growth: std::cell::Cell<f64>,
    /// Limited hinge and slide joints (their range-violation residuals).
    limited: Vec<usize>,
    /// The actuators' fixed gains `gainprm[0]`.
    gain: Vec<f64>,
    /// Per actuator, its bias divided by its gain.
    bias: Vec<BiasOverGain>,
    /// `∂c/∂q` and `∂c/∂v` (`nu × nv`, constant).
    bias_q: DMatrix<f64>,
    bias_v: DMatrix<f64>,
    /// Actuators with `forcelimited` (their force-range residuals, after the control-range rows).
    force_limited: Vec<usize>,
    scratch: RefCell<Scratch>,
    /// The threads the knots' inverse-dynamics Jacobians run on ([`Collocation::set_threads`]).
    threads: Threads,
    /// Model parameters appended to the decision vector ([`Collocation::set_params`]).
    params: Vec<ParamSpec>,
    param_jacobian: std::cell::Cell<ParamJacobian>,
    pstate: RefCell<ParamState>,
    fd_models: RefCell<FdModels>,
    /// Known generalized forces `f_t` (`T·nv`, empty: none), subtracted from τ.
    applied: Vec<f64>,
}

/// An actuator's bias divided by its gain, `c(q, v) = c0 + cq·q[qposadr] + cv·v[dofadr]`:
/// `c0 = biasprm[0]/gain`, `cq = biasprm[1]·gear/gain`, `cv = biasprm[2]·gear/gain` on a hinge
/// or slide joint (0 without an affine bias).
#[derive(Clone, Copy, Debug, Default)]
struct BiasOverGain {
    c0: f64,
    qposadr: usize,
    dofadr: usize,
    cq: f64,
    cv: f64,
}

/// A model parameter as a decision variable of [`Collocation`].
#[derive(Clone, Debug)]
pub struct ParamSpec {
    pub param: Param,
    /// Initial value (also the prior's centre).
    pub init: f64,
    /// `[lo, hi]`: violations are penalized like the limits, `√w_lim · (distance outside)`.
    pub bounds: Option<[f64; 2]>,
    /// Weight `w_p` of the prior residual `√w_p (p − init)` (0: none).
    pub prior: f64,
}

impl ParamSpec {
    /// `param` starting at `init`, no bounds, no prior.
    pub fn new(param: Param, init: f64) -> Self {
        ParamSpec {
            param,
            init,
            bounds: None,
            prior: 0.0,
        }
    }
}

/// How `∂τ/∂p` is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamJacobian {
    /// Exact where τ is linear in the parameter, at knots without constraint rows: the inertial
    /// regressor (`τ_i = Σ_b cdof_iᵀ (I_b(π_b) a_b + v_b ×* I_b(π_b) v_b)`, linear in
    /// `π_b`; bodies with gravity compensation and models with fluid forces excepted) and dof
    /// damping (`∂τ_i/∂b_i = v_i + h a_i` under `invdiscrete` with Euler's implicit damping).
    /// Central differences for the rest: friction loss (a soft constraint row: τ is piecewise
    /// linear in it), and every parameter at knots with constraint rows (the rows' `R ∝
    /// invweight0` depends on the inertia, and under `invdiscrete` the constraint force sees
    /// the continuous `a_c = a_d + M⁻¹ h D a_d`, which depends on damping and inertia).
    Analytic,
    /// Central differences everywhere (the comparison path).
    FiniteDifference,
}

/// The model at the parameter values last evaluated, and the `±ε` models of the
/// finite-difference columns.
#[derive(Default)]
struct ParamState {
    values: Vec<f64>,
    model: Option<Model>,
    error: Option<String>,
}

/// The `±ε` models of the finite-difference parameter columns, built when first needed at `p`.
#[derive(Default)]
struct FdModels {
    values: Vec<f64>,
    /// Per parameter: models at `p + ε e_j`, `p − ε e_j` (or `p` for a one-sided step), span;
    /// empty if a perturbed model was refused.
    models: Vec<(Model, Model, f64)>,
}

/// The model evaluated by [`Collocation`]: its own, or the private copy with the parameters.
enum ModelRef<'a> {
    Base(&'a Model),
    Param(Ref<'a, Model>),
}

impl std::ops::Deref for ModelRef<'_> {
    type Target = Model;
    fn deref(&self) -> &Model {
        match self {
            ModelRef::Base(m) => m,
            ModelRef::Param(r) => r,
        }
    }
}

impl Collocation {
    /// Sets up the problem. Requires actuators with a fixed non-zero gain, no bias or an affine
    /// one (affine in the length and velocity only on hinge and slide joints), no activation
    /// dynamics and joint transmissions (constant `B`), and the Euler integrator (the
    /// differences above are its discretization).
    pub fn new(
        model: Model,
        horizon: usize,
        q0: Vec<f64>,
        v0: Vec<f64>,
        task: Box<dyn Task>,
        weights: Weights,
    ) -> Result<Self, String> {
        let mut model = model;
        if model.opt.integrator != Integrator::Euler {
            return Err("collocation: only the Euler integrator is supported".into());
        }
        model.opt.enableflags |= enable::INVDISCRETE;
        let (nv, nu) = (model.nv, model.nu);
        if q0.len() != model.nq || v0.len() != nv || weights.control.len() != nu {
            return Err("collocation: dimension mismatch".into());
        }
        let mut bias = Vec::with_capacity(nu);
        let (mut bias_q, mut bias_v) = (DMatrix::zeros(nu, nv), DMatrix::zeros(nu, nv));
        for k in 0..nu {
            let name = &model.actuator_name[k];
            let (gain, bp) = (model.actuator_gainprm[k][0], model.actuator_biasprm[k]);
            if model.actuator_trntype[k] != TrnType::Joint
                || model.actuator_dyntype[k] != DynType::None
                || model.actuator_gaintype[k] != GainType::Fixed
                || !matches!(
                    model.actuator_biastype[k],
                    BiasType::None | BiasType::Affine
                )
            {
                return Err(format!(
                    "collocation: actuator {k} ({name}) must have a joint transmission, fixed \
                     gain, no activation dynamics and no bias or an affine one (constant B)"
                ));
            }
            if !(gain.is_finite() && gain != 0.0) {
                return Err(format!(
                    "collocation: actuator {k} ({name}) has gain {gain}: no control produces its \
                     force"
                ));
            }
            if model.actuator_biastype[k] != BiasType::Affine {
                bias.push(BiasOverGain::default());
                continue;
            }
            let j = model.actuator_trnid[k][0] as usize;
            let hinge = matches!(model.jnt_type[j], JointType::Hinge | JointType::Slide);
            if !hinge && (bp[1] != 0.0 || bp[2] != 0.0) {
                return Err(format!(
                    "collocation: actuator {k} ({name}): an affine bias in length or velocity is \
                     supported on hinge and slide joints only"
                ));
            }
            let mut c = BiasOverGain {
                c0: bp[0] / gain,
                ..Default::default()
            };
            if hinge {
                let g = model.actuator_gear[k][0];
                (c.qposadr, c.dofadr) = (model.jnt_qposadr[j], model.jnt_dofadr[j]);
                (c.cq, c.cv) = (bp[1] * g / gain, bp[2] * g / gain);
                bias_q[(k, c.dofadr)] = c.cq;
                bias_v[(k, c.dofadr)] = c.cv;
            }
            bias.push(c);
        }
        // B, column by column: qfrc_actuator for a unit control, on a copy without bias and
        // without clamps (B = moment·diag(gain)).
        let mut plain = model.clone();
        for k in 0..nu {
            plain.actuator_biastype[k] = BiasType::None;
            plain.actuator_forcelimited[k] = false;
            plain.actuator_ctrllimited[k] = false;
        }
        let mut data = Data::new(&model);
        data.qpos.copy_from_slice(&q0);
        let mut b = DMatrix::zeros(nv, nu);
        for k in 0..nu {
            data.ctrl.iter_mut().for_each(|c| *c = 0.0);
            data.ctrl[k] = 1.0;
            moreau::pipeline::fwd_position(&plain, &mut data);
            moreau::pipeline::fwd_velocity(&plain, &mut data);
            moreau::pipeline::fwd_actuation(&plain, &mut data);
            for i in 0..nv {
                b[(i, k)] = data.qfrc_actuator[i];
            }
        }
        data.ctrl.iter_mut().for_each(|c| *c = 0.0);
        // Unactuated directions: eigenvectors of B Bᵀ with (numerically) zero eigenvalue.
        let eig = (&b * b.transpose()).symmetric_eigen();
        let scale = eig.eigenvalues.amax().max(1.0);
        let null: Vec<usize> = (0..nv)
            .filter(|&i| eig.eigenvalues[i].abs() <= 1e-12 * scale)
            .collect();
        let mut n = DMatrix::zeros(nv, null.len());
        for (c, &i) in null.iter().enumerate() {
            n.set_column(c, &eig.eigenvectors.column(i));
        }
        let b_pinv = if nu == 0 {
            DMatrix::zeros(0, nv)
        } else {
            b.clone()
                .pseudo_inverse(1e-10)
                .map_err(|e| format!("collocation: {e}"))?
        };
        let nr = n.ncols();
        Ok(Collocation {
            horizon,
            q0,
            v0,
            task,
            weights,
            b,
            b_pinv,
            n,
            multipliers: RefCell::new(vec![0.0; horizon * nr]),
            second_order: std::cell::Cell::new(false),
            penalty_growth: std::cell::Cell::new(1.0),
            limited: (0..model.njnt)
                .filter(|&j| {
                    model.jnt_limited[j]
                        && matches!(model.jnt_type[j], JointType::Hinge | JointType::Slide)
                })
                .collect(),
            gain: (0..nu).map(|k| model.actuator_gainprm[k][0]).collect(),
            bias,
            bias_q,
            bias_v,
            force_limited: (0..nu)
                .filter(|&k| model.actuator_forcelimited[k])
                .collect(),
            scratch: RefCell::new(Scratch {
                data,
                provider: Box::new(Analytic::new()),
                mats: Mats::default(),
                forks: Vec::new(),
                knots: Vec::new(),
            }),
            threads: Threads::serial(),
            params: vec![],
            param_jacobian: std::cell::Cell::new(ParamJacobian::Analytic),
            pstate: RefCell::new(ParamState::default()),
            fd_models: RefCell::new(FdModels::default()),
            applied: vec![],
            model,
        })
    }

    /// Appends model parameters to the decision vector (replacing earlier ones): `z` becomes
    /// `(q₁ … q_T, p)` and [`Collocation::initial_guess`] starts at the `init` values. Fails
    /// for a parameter the model does not have, duplicates, `Mass` together with `Inertial` of
    /// the same body, non-finite or inconsistent values, or initial values the model refuses
    /// (non-positive mass, negative friction loss).
    pub fn set_params(&mut self, specs: Vec<ParamSpec>) -> Result<(), String> {
        for (i, s) in specs.iter().enumerate() {
            sysid::check(&self.model, s.param)?;
            if !s.init.is_finite() || !s.prior.is_finite() || s.prior < 0.0 {
                return Err(format!(
                    "{:?}: init {} and prior weight {} must be finite, the weight ≥ 0",
                    s.param, s.init, s.prior
                ));
            }
            if let Some([lo, hi]) = s.bounds {
                if lo.is_nan() || hi.is_nan() || lo > hi {
                    return Err(format!("{:?}: bounds [{lo}, {hi}]", s.param));
                }
            }
            if let Param::FrictionLoss { .. } = s.param {
                if s.init <= 0.0 {
                    // a zero friction loss has no constraint row, hence no gradient
                    return Err(format!("{:?}: initial value must be > 0", s.param));
                }
            }
            for t in &specs[..i] {
                let body = |p: Param| match p {
                    Param::Mass { body } | Param::Inertial { body, .. } => Some(body),
                    _ => None,
                };
                let clash = t.param == s.param
                    || (matches!(s.param, Param::Mass { .. })
                        != matches!(t.param, Param::Mass { .. })
                        && body(s.param).is_some()
                        && body(s.param) == body(t.param));
                if clash {
                    return Err(format!(
                        "{:?} and {:?}: the same quantity twice (Mass scales its body's \
                         inertial parameters)",
                        t.param, s.param
                    ));
                }
            }
        }
        let list: Vec<Param> = specs.iter().map(|s| s.param).collect();
        let init: Vec<f64> = specs.iter().map(|s| s.init).collect();
        let m = sysid::model_with(&self.model, &list, &init)?;
        self.params = specs;
        *self.pstate.borrow_mut() = ParamState {
            values: init,
            model: Some(m),
            error: None,
        };
        *self.fd_models.borrow_mut() = FdModels::default();
        Ok(())
    }

    /// Selects how `∂τ/∂p` is computed (default [`ParamJacobian::Analytic`]).
    pub fn set_param_jacobian(&self, method: ParamJacobian) {
        self.param_jacobian.set(method);
    }

    /// The parameters of the decision vector.
    pub fn param_specs(&self) -> &[ParamSpec] {
        &self.params
    }

    /// Number of model parameters `n_p`.
    pub fn n_params(&self) -> usize {
        self.params.len()
    }

    /// The parameter values of `z`.
    pub fn param_values<'a>(&self, z: &'a [f64]) -> &'a [f64] {
        &z[self.horizon * self.model.nq..]
    }

    /// The model with the parameters of `z` written in ([`crate::sysid::model_with`]).
    pub fn model_at(&self, z: &[f64]) -> Result<Model, String> {
        let list: Vec<Param> = self.params.iter().map(|s| s.param).collect();
        sysid::model_with(&self.model, &list, self.param_values(z))
    }

    /// Known generalized forces `f_t` per knot (`T` vectors of `nv`: `qfrc_applied`, or the
    /// force of known controls), subtracted from the inverse dynamics: `τ_t = qfrc_inverse −
    /// f_t` is what the actuators must supply (and, on unactuated directions, the dynamics
    /// residual). An empty list removes them.
    pub fn set_applied_forces(&mut self, f: &[Vec<f64>]) -> Result<(), String> {
        let nv = self.model.nv;
        if f.is_empty() {
            self.applied.clear();
            return Ok(());
        }
        if f.len() != self.horizon || f.iter().any(|x| x.len() != nv) {
            return Err(format!(
                "applied forces: need {} vectors of {nv}",
                self.horizon
            ));
        }
        if f.iter().flatten().any(|x| !x.is_finite()) {
            return Err("applied forces: non-finite value".into());
        }
        self.applied = f.concat();
        Ok(())
    }

    /// The model at the parameters of `z` (`None` if the model refuses them), rebuilt when they
    /// changed since the last call.
    fn model_for(&self, z: &[f64]) -> Option<ModelRef<'_>> {
        if self.params.is_empty() {
            return Some(ModelRef::Base(&self.model));
        }
        let p = self.param_values(z);
        {
            let mut st = self.pstate.borrow_mut();
            if st.values != p {
                st.values.clear();
                st.values.extend_from_slice(p);
                let list: Vec<Param> = self.params.iter().map(|s| s.param).collect();
                match sysid::model_with(&self.model, &list, p) {
                    Ok(m) => {
                        st.model = Some(m);
                        st.error = None;
                    }
                    Err(e) => {
                        st.model = None;
                        st.error = Some(e);
                    }
                }
            }
        }
        Ref::filter_map(self.pstate.borrow(), |s| s.model.as_ref())
            .ok()
            .map(ModelRef::Param)
    }

    /// Why the parameters last evaluated were refused, if they were.
    pub fn param_error(&self) -> Option<String> {
        self.pstate.borrow().error.clone()
    }

    /// Builds the `±ε` models of the finite-difference parameter columns at `p` (once per `p`).
    /// Steps `ε_j = 1e-6·max(|p_j|, 1)`, one-sided where `p_j − ε_j` would leave the
    /// parameter's domain (mass ≤ 0, friction loss < 0).
    fn prepare_fd_models(&self, p: &[f64]) -> Result<(), String> {
        let mut st = self.fd_models.borrow_mut();
        if st.values == p && st.models.len() == p.len() {
            return Ok(());
        }
        st.models.clear();
        st.values.clear();
        let list: Vec<Param> = self.params.iter().map(|s| s.param).collect();
        let mut fd = Vec::with_capacity(p.len());
        let mut x = p.to_vec();
        for j in 0..p.len() {
            let eps = 1e-6 * p[j].abs().max(1.0);
            x[j] = p[j] + eps;
            let mp = sysid::model_with(&self.model, &list, &x)?;
            let positive = matches!(list[j], Param::Mass { .. } | Param::FrictionLoss { .. });
            let (mm, span) = if positive && p[j] - eps <= 0.0 {
                x[j] = p[j];
                (sysid::model_with(&self.model, &list, &x)?, eps)
            } else {
                x[j] = p[j] - eps;
                (sysid::model_with(&self.model, &list, &x)?, 2.0 * eps)
            };
            x[j] = p[j];
            fd.push((mp, mm, span));
        }
        st.models = fd;
        st.values = p.to_vec();
        Ok(())
    }

    /// Replaces the inverse-dynamics Jacobian provider.
    pub fn set_jacobian_provider(&self, p: Box<dyn InverseJacobian>) {
        let mut sc = self.scratch.borrow_mut();
        sc.provider = p;
        sc.forks.clear();
    }

    /// Computes the knots' inverse-dynamics Jacobians ([`Collocation::jacobian_into`]) on
    /// `nthread` threads (0: every CPU; 1, the default: the calling thread) when the provider
    /// forks ([`InverseJacobian::fork`]). The Jacobians do not depend on it.
    pub fn set_threads(&mut self, nthread: usize) -> Result<(), String> {
        self.threads = Threads::new(nthread)?;
        self.scratch.borrow_mut().forks.clear();
        Ok(())
    }

    pub fn nthread(&self) -> usize {
        self.threads.nthread()
    }

    pub fn provider_name(&self) -> String {
        self.scratch.borrow().provider.name().to_string()
    }

    /// Number of unactuated directions.
    pub fn nr(&self) -> usize {
        self.n.ncols()
    }

    /// Number of decision variables (tangent dimension): `T·nv + n_p`.
    pub fn n_vars(&self) -> usize {
        self.horizon * self.model.nv + self.params.len()
    }

    /// Number of configuration variables (tangent dimension) `T·nv`: the banded block.
    pub fn n_config_vars(&self) -> usize {
        self.horizon * self.model.nv
    }

    /// The stationary initial guess `q_t = q₀` (flat `T·nq`), then the parameters' `init`.
    pub fn initial_guess(&self) -> Vec<f64> {
        let mut z = self.q0.repeat(self.horizon);
        z.extend(self.params.iter().map(|s| s.init));
        z
    }

    /// Configuration `t` (0..=T) of the flat parameter `z = (q₁ … q_T)`.
    pub fn config<'a>(&'a self, z: &'a [f64], t: usize) -> &'a [f64] {
        let nq = self.model.nq;
        if t == 0 {
            &self.q0
        } else {
            &z[(t - 1) * nq..t * nq]
        }
    }

    /// `z ⊕ δ` (δ in tangent coordinates, `T·nv`, then `n_p` parameter steps added).
    pub fn retract(&self, z: &[f64], delta: &[f64], scale: f64) -> Vec<f64> {
        let mut out = vec![];
        self.retract_into(z, delta, scale, &mut out);
        out
    }

    /// [`Collocation::retract`] into `out` (storage reused).
    pub fn retract_into(&self, z: &[f64], delta: &[f64], scale: f64, out: &mut Vec<f64>) {
        let (nq, nv) = (self.model.nq, self.model.nv);
        out.clear();
        out.extend_from_slice(z);
        for t in 0..self.horizon {
            integrate_pos(
                &self.model,
                &mut out[t * nq..(t + 1) * nq],
                &delta[t * nv..(t + 1) * nv],
                scale,
            );
        }
        let (zq, dq) = (self.horizon * nq, self.horizon * nv);
        for (j, x) in out[zq..].iter_mut().enumerate() {
            *x += scale * delta[dq + j];
        }
    }

    fn velocity(&self, z: &[f64], t: usize, v: &mut [f64]) {
        if t == 0 {
            v.copy_from_slice(&self.v0);
        } else {
            let h = self.model.opt.timestep;
            differentiate_pos(&self.model, v, h, self.config(z, t - 1), self.config(z, t));
        }
    }

    fn knot_rows(&self, t: usize) -> usize {
        let nu = self.model.nu;
        let mut rows = self.task.dim(t, self.horizon);
        if t < self.horizon {
            rows += nu + self.nr() + nu + self.force_limited.len();
        }
        rows + self.limited.len()
    }

    /// The effective penalty weight of the dynamics residual: `weights.dynamics` times the
    /// growth factor applied by the solver ([`Collocation::grow_penalty`]).
    pub fn dynamics_weight(&self) -> f64 {
        self.weights.dynamics * self.penalty_growth.get()
    }

    /// Multiplies the dynamics penalty weight by `factor` (augmented-Lagrangian penalty update;
    /// the multipliers are kept).
    pub fn grow_penalty(&self, factor: f64) {
        self.penalty_growth.set(self.penalty_growth.get() * factor);
    }

    /// Total number of residuals: the knots', then per parameter its prior and range rows.
    pub fn n_residuals(&self) -> usize {
        (0..=self.horizon).map(|t| self.knot_rows(t)).sum::<usize>() + 2 * self.params.len()
    }

    /// Evaluates the trajectory and the residual vector.
    pub fn evaluate(&self, z: &[f64]) -> Evaluation {
        let mut ev = Evaluation::default();
        self.evaluate_into(z, &mut ev);
        ev
    }

    /// [`Collocation::evaluate`] into `ev`, reusing its storage (no allocation after the first
    /// call with the same problem, apart from the task's own).
    pub fn evaluate_into(&self, z: &[f64], ev: &mut Evaluation) {
        let base = &self.model;
        let (nv, nu, nr, horizon) = (base.nv, base.nu, self.nr(), self.horizon);
        let h = base.opt.timestep;
        let mut sc = self.scratch.borrow_mut();
        let sc = &mut *sc;
        let lam = self.multipliers.borrow();
        let fit = |x: &mut Vec<Vec<f64>>, n: usize| {
            x.resize_with(n, Vec::new);
            for y in x.iter_mut() {
                y.resize(nv, 0.0);
            }
        };
        fit(&mut ev.v, horizon + 1);
        fit(&mut ev.a, horizon);
        fit(&mut ev.tau, horizon);
        fit(&mut ev.u, horizon);
        fit(&mut ev.force, horizon);
        fit(&mut ev.defect, horizon);
        for t in 0..horizon {
            ev.u[t].resize(nu, 0.0);
            ev.force[t].resize(nu, 0.0);
            ev.defect[t].resize(nr, 0.0);
        }
        ev.r.resize(self.n_residuals(), 0.0);
        ev.task_cost = 0.0;
        ev.control_cost = 0.0;
        ev.limit_cost = 0.0;
        ev.param_cost = 0.0;
        ev.params.clear();
        ev.params.extend_from_slice(&z[horizon * base.nq..]);
        let Some(mref) = self.model_for(z) else {
            // parameters the model refuses: a non-finite objective, which the solvers reject
            ev.r.iter_mut().for_each(|x| *x = f64::NAN);
            ev.param_cost = f64::NAN;
            return;
        };
        let m: &Model = &mref;
        for t in 0..=horizon {
            self.velocity(z, t, &mut ev.v[t]);
        }
        let sw = self.dynamics_weight().sqrt();
        let sl = self.weights.limits.sqrt();
        let mut row = 0;
        for t in 0..=horizon {
            let q = self.config(z, t);
            let k = self.task.dim(t, horizon);
            let rt = &mut ev.r[row..row + k];
            self.task.residual(m, t, horizon, q, &ev.v[t], rt);
            ev.task_cost += 0.5 * rt.iter().map(|x| x * x).sum::<f64>();
            row += k;
            if t < horizon {
                for i in 0..nv {
                    ev.a[t][i] = (ev.v[t + 1][i] - ev.v[t][i]) / h;
                }
                inverse_force(m, &mut sc.data, q, &ev.v[t], &ev.a[t], &mut ev.tau[t]);
                if !self.applied.is_empty() {
                    for (x, f) in ev.tau[t].iter_mut().zip(&self.applied[t * nv..]) {
                        *x -= f;
                    }
                }
                let tau = &ev.tau[t];
                for kk in 0..nu {
                    // f/gain = B⁺τ; u = (f − bias)/gain
                    let fg: f64 = (0..nv).map(|i| self.b_pinv[(kk, i)] * tau[i]).sum();
                    ev.force[t][kk] = self.gain[kk] * fg;
                    ev.u[t][kk] = fg - self.bias_over_gain(kk, q, &ev.v[t]);
                }
                for c in 0..nr {
                    ev.defect[t][c] = (0..nv).map(|i| self.n[(i, c)] * tau[i]).sum();
                }
                for kk in 0..nu {
                    let s = (h * self.weights.control[kk]).sqrt();
                    ev.r[row + kk] = s * ev.u[t][kk];
                    ev.control_cost += 0.5 * (s * ev.u[t][kk]).powi(2);
                }
                row += nu;
                for c in 0..nr {
                    ev.r[row + c] = sw * ev.defect[t][c] + lam[t * nr + c] / sw;
                }
                row += nr;
                for kk in 0..nu {
                    let e = range_excess(
                        ev.u[t][kk],
                        m.actuator_ctrllimited[kk],
                        m.actuator_ctrlrange[kk],
                    );
                    ev.r[row + kk] = sl * e;
                    ev.limit_cost += 0.5 * (sl * e).powi(2);
                }
                row += nu;
                for &kk in &self.force_limited {
                    let e = range_excess(ev.force[t][kk], true, m.actuator_forcerange[kk]);
                    ev.r[row] = sl * e;
                    ev.limit_cost += 0.5 * (sl * e).powi(2);
                    row += 1;
                }
            }
            for &j in &self.limited {
                let e = range_excess(q[m.jnt_qposadr[j]], true, m.jnt_range[j]);
                ev.r[row] = sl * e;
                ev.limit_cost += 0.5 * (sl * e).powi(2);
                row += 1;
            }
        }
        for (s, &p) in self.params.iter().zip(&ev.params) {
            let rp = s.prior.sqrt() * (p - s.init);
            let rb = sl * s.bounds.map_or(0.0, |b| range_excess(p, true, b));
            ev.r[row] = rp;
            ev.r[row + 1] = rb;
            ev.param_cost += 0.5 * (rp * rp + rb * rb);
            row += 2;
        }
        debug_assert_eq!(row, ev.r.len());
    }

    /// `bias_k(q, v)/gain_k` of actuator `k` (0 without bias).
    fn bias_over_gain(&self, k: usize, q: &[f64], v: &[f64]) -> f64 {
        let c = &self.bias[k];
        c.c0 + c.cq * q[c.qposadr] + c.cv * v[c.dofadr]
    }

    /// Objective `½‖r‖²` (including the dynamics penalty and multiplier terms).
    pub fn objective(&self, z: &[f64]) -> f64 {
        let ev = self.evaluate(z);
        0.5 * ev.r.iter().map(|x| x * x).sum::<f64>()
    }

    /// `∂ (q_b ⊖ q_a) / ∂q_a` into `da` and `∂/∂q_b` into `db`, tangent coordinates (block
    /// diagonal per joint).
    fn diff_jac_into(&self, qa: &[f64], qb: &[f64], da: &mut DMatrix<f64>, db: &mut DMatrix<f64>) {
        let m = &self.model;
        da.fill(0.0);
        db.fill(0.0);
        for j in 0..m.njnt {
            let (pa, va) = (m.jnt_qposadr[j], m.jnt_dofadr[j]);
            let quat = |p: usize, x: &[f64]| -> [f64; 4] {
                let q = [x[p], x[p + 1], x[p + 2], x[p + 3]];
                let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
                [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
            };
            let rot = |p: usize, v: usize, da: &mut DMatrix<f64>, db: &mut DMatrix<f64>| {
                // sub_quat(q_b, q_a): first argument is q_b.
                let (d2, d1) = mjd_sub_quat(&quat(p, qb), &quat(p, qa));
                for r in 0..3 {
                    for c in 0..3 {
                        db[(v + r, v + c)] = d2[r][c];
                        da[(v + r, v + c)] = d1[r][c];
                    }
                }
            };
            match m.jnt_type[j] {
                JointType::Hinge | JointType::Slide => {
                    da[(va, va)] = -1.0;
                    db[(va, va)] = 1.0;
                }
                JointType::Ball => rot(pa, va, da, db),
                JointType::Free => {
                    // Linear part in the world frame; a tangent perturbation of a free joint's
                    // position is also in the world frame (integrate_pos adds v_lin).
                    for k in 0..3 {
                        da[(va + k, va + k)] = -1.0;
                        db[(va + k, va + k)] = 1.0;
                    }
                    rot(pa + 3, va + 3, da, db);
                }
            }
        }
    }

    /// Residuals and the per-knot Jacobian blocks at `z`.
    pub fn jacobian(&self, z: &[f64]) -> (Evaluation, Vec<KnotJacobian>) {
        let ev = self.evaluate(z);
        let mut blocks = vec![];
        self.jacobian_into(z, &ev, &mut blocks);
        (ev, blocks)
    }

    /// The knots' `(∂τ/∂q, ∂τ/∂v, ∂τ/∂a)` into `sc.knots` on the threads, when there are
    /// several and the provider forks: knot 0 on the provider itself (so that its name and
    /// fallback describe this model), the others on the forks. `false` (nothing computed) for
    /// the serial path.
    fn knot_jacobians_threaded(
        &self,
        m: &Model,
        z: &[f64],
        ev: &Evaluation,
        sc: &mut Scratch,
    ) -> bool {
        let (nv, horizon) = (m.nv, self.horizon);
        if self.threads.nthread() == 1 || horizon < 2 {
            return false;
        }
        if sc.forks.len() != self.threads.nthread() {
            let mut forks = Vec::new();
            for _ in 0..self.threads.nthread() {
                let Some(p) = sc.provider.fork() else {
                    sc.forks.clear();
                    return false;
                };
                forks.push(Mutex::new((sc.data.clone(), p)));
            }
            sc.forks = forks;
        }
        if sc.knots.len() != horizon || sc.knots[0][0].shape() != (nv, nv) {
            sc.knots = (0..horizon)
                .map(|_| std::array::from_fn(|_| DMatrix::zeros(nv, nv)))
                .collect();
        }
        let qs: Vec<&[f64]> = (0..horizon).map(|t| self.config(z, t)).collect();
        let Scratch {
            data,
            provider,
            forks,
            knots,
            ..
        } = sc;
        let (first, rest) = knots.split_at_mut(1);
        let [dq, dv, da] = &mut first[0];
        provider.jacobians(m, data, qs[0], &ev.v[0], &ev.a[0], dq, dv, da);
        let items: Vec<(usize, &mut [DMatrix<f64>; 3])> = rest
            .iter_mut()
            .enumerate()
            .map(|(i, k)| (i + 1, k))
            .collect();
        self.threads
            .for_each_slot(forks, items, 1, |(d, p), (t, [dq, dv, da])| {
                p.jacobians(m, d, qs[t], &ev.v[t], &ev.a[t], dq, dv, da)
            });
        true
    }

    /// The per-knot Jacobian blocks at `z` into `blocks` (storage reused), given `ev =`
    /// [`Collocation::evaluate`]`(z)` under the current multipliers: the residuals are not
    /// recomputed.
    /// `z` must be a point whose parameters the model accepts (as at every iterate of the
    /// solvers: [`Collocation::evaluate`] gives a non-finite objective otherwise); if it is not,
    /// the blocks are left unchanged.
    pub fn jacobian_into(&self, z: &[f64], ev: &Evaluation, blocks: &mut Vec<KnotJacobian>) {
        let np = self.params.len();
        let Some(mref) = self.model_for(z) else {
            return;
        };
        let m: &Model = &mref;
        let pvals = self.param_values(z);
        let (nv, nu, nr, horizon) = (m.nv, m.nu, self.nr(), self.horizon);
        let h = m.opt.timestep;
        let sw = self.dynamics_weight().sqrt();
        let sl = self.weights.limits.sqrt();
        let mut guard = self.scratch.borrow_mut();
        let sc = &mut *guard;
        sc.mats.prepare(nv, nu, nr, horizon, np);
        let threaded = self.knot_jacobians_threaded(m, z, ev, sc);
        blocks.resize_with(horizon + 1, || KnotJacobian {
            row: 0,
            mat: DMatrix::zeros(0, 0),
            par: DMatrix::zeros(0, 0),
            hess: None,
            hinge: vec![],
            hinge_mat: DMatrix::zeros(0, 0),
            hinge_par: DMatrix::zeros(0, 0),
        });
        let nctrl = (0..nu).filter(|&k| m.actuator_ctrllimited[k]).count();
        let mut row = 0;
        for t in 0..=horizon {
            let q = self.config(z, t);
            let rows = self.knot_rows(t);
            let Mats {
                tq,
                tv,
                ta,
                d_prev,
                d_next,
                dvp,
                dvc,
                dap,
                dac,
                dan,
                dtau,
                du,
                dd,
                dfb,
                dbias,
                task,
                dp,
                dup,
                ddp,
                cacc,
                fp,
                fm,
                ..
            } = &mut sc.mats;
            let b = &mut blocks[t];
            b.row = row;
            if b.mat.shape() != (rows, 3 * nv) {
                b.mat = DMatrix::zeros(rows, 3 * nv);
            } else {
                b.mat.fill(0.0);
            }
            if b.par.shape() != (rows, np) {
                b.par = DMatrix::zeros(rows, np);
            } else {
                b.par.fill(0.0);
            }
            b.hess = None;
            let nh = if t < horizon {
                nctrl + self.force_limited.len()
            } else {
                0
            } + self.limited.len();
            if b.hinge_mat.shape() != (nh, 3 * nv) {
                b.hinge_mat = DMatrix::zeros(nh, 3 * nv);
            } else {
                b.hinge_mat.fill(0.0);
            }
            if b.hinge_par.shape() != (nh, np) {
                b.hinge_par = DMatrix::zeros(nh, np);
            } else {
                b.hinge_par.fill(0.0);
            }
            b.hinge.clear();
            // Column blocks: 0 = q_{t−1}, 1 = q_t, 2 = q_{t+1}.
            // ∂v_t/∂(q_{t−1}, q_t) (zero at t = 0: v₀ is given); d_prev = ∂(q_t ⊖ q_{t−1}).
            if t == 0 {
                dvp.fill(0.0);
                dvc.fill(0.0);
            } else {
                std::mem::swap(d_prev, d_next);
                dvp.copy_from(&d_prev.0);
                dvp.scale_mut(1.0 / h);
                dvc.copy_from(&d_prev.1);
                dvc.scale_mut(1.0 / h);
            }
            if t < horizon {
                let (n0, n1) = (&mut d_next.0, &mut d_next.1);
                self.diff_jac_into(q, self.config(z, t + 1), n0, n1);
            }
            // task
            let k = self.task.dim(t, horizon);
            let (gq, gv) = &mut task[t];
            if gq.shape() != (k, nv) {
                *gq = DMatrix::zeros(k, nv);
                *gv = DMatrix::zeros(k, nv);
            }
            self.task.jacobian(m, t, horizon, q, &ev.v[t], gq, gv);
            b.mat.view_mut((0, 0), (k, nv)).gemm(1.0, gv, dvp, 0.0);
            let mut cur = b.mat.view_mut((0, nv), (k, nv));
            cur.copy_from(gq);
            cur.gemm(1.0, gv, dvc, 1.0);
            let mut r0 = k;
            if t < horizon {
                if threaded {
                    let [kq, kv, ka] = &sc.knots[t];
                    tq.copy_from(kq);
                    tv.copy_from(kv);
                    ta.copy_from(ka);
                } else {
                    sc.provider
                        .jacobians(m, &mut sc.data, q, &ev.v[t], &ev.a[t], tq, tv, ta);
                }
                // a_t = (v_{t+1} − v_t)/h
                let h2 = 1.0 / (h * h);
                dan.copy_from(&d_next.1);
                dan.scale_mut(h2);
                dac.copy_from(&d_next.0);
                dac.scale_mut(h2);
                for (x, y) in dac.iter_mut().zip(dvc.iter()) {
                    *x -= y / h;
                }
                dap.copy_from(dvp);
                dap.scale_mut(-1.0 / h);
                let [t0, t1, t2] = dtau;
                t0.gemm(1.0, tv, dvp, 0.0);
                t0.gemm(1.0, ta, dap, 1.0);
                t1.copy_from(tq);
                t1.gemm(1.0, tv, dvc, 1.0);
                t1.gemm(1.0, ta, dac, 1.0);
                t2.gemm(1.0, ta, dan, 0.0);
                if self.second_order.get() {
                    // μ = ∂(½‖r_τ‖²)/∂τ-weights: Σ r_i ∇r_i(τ) (the bias is linear in (q, v):
                    // no second-order term of its own).
                    let nf = self.force_limited.len();
                    let rr = &ev.r[row + k..row + k + 2 * nu + nr + nf];
                    let mut mu = nalgebra::DVector::zeros(nv);
                    for kk in 0..nu {
                        let s = (h * self.weights.control[kk]).sqrt();
                        let e = range_slope(
                            ev.u[t][kk],
                            m.actuator_ctrllimited[kk],
                            m.actuator_ctrlrange[kk],
                        );
                        let coef = rr[kk] * s + rr[nu + nr + kk] * sl * e;
                        mu += self.b_pinv.row(kk).transpose() * coef;
                    }
                    for i in 0..nr {
                        mu += self.n.column(i) * (rr[nu + i] * sw);
                    }
                    for (i, &kk) in self.force_limited.iter().enumerate() {
                        let e = range_slope(ev.force[t][kk], true, m.actuator_forcerange[kk]);
                        let coef = rr[2 * nu + nr + i] * sl * e * self.gain[kk];
                        mu += self.b_pinv.row(kk).transpose() * coef;
                    }
                    let hy = self.force_hessian(
                        m,
                        &mut sc.data,
                        &mut *sc.provider,
                        q,
                        &ev.v[t],
                        &ev.a[t],
                        &mu,
                    );
                    // y = (q_t, v_t, a_t) = L (δq_{t−1}, δq_t, δq_{t+1})
                    let mut l = DMatrix::zeros(3 * nv, 3 * nv);
                    l.view_mut((0, nv), (nv, nv)).fill_with_identity();
                    l.view_mut((nv, 0), (nv, nv)).copy_from(dvp);
                    l.view_mut((nv, nv), (nv, nv)).copy_from(dvc);
                    l.view_mut((2 * nv, 0), (nv, nv)).copy_from(dap);
                    l.view_mut((2 * nv, nv), (nv, nv)).copy_from(dac);
                    l.view_mut((2 * nv, 2 * nv), (nv, nv)).copy_from(dan);
                    b.hess = Some(l.transpose() * hy * l);
                }
                // ∂(bias/gain) through v_t = (q_t ⊖ q_{t−1})/h and q_t
                dbias.0.gemm(1.0, &self.bias_v, dvp, 0.0);
                dbias.1.copy_from(&self.bias_q);
                dbias.1.gemm(1.0, &self.bias_v, dvc, 1.0);
                for (c, blk) in dtau.iter().enumerate() {
                    dfb.gemm(1.0, &self.b_pinv, blk, 0.0);
                    du.copy_from(dfb);
                    match c {
                        0 => *du -= &dbias.0,
                        1 => *du -= &dbias.1,
                        _ => {}
                    }
                    dd.gemm_tr(1.0, &self.n, blk, 0.0);
                    let sc = (h, sl, sw);
                    let uf = (&ev.u[t][..], &ev.force[t][..]);
                    let mats = (&*du, &*dd, &*dfb);
                    self.put_force_rows(m, uf, sc, mats, &mut b.mat, (r0, c * nv));
                    self.put_hinge_rows(m, (&*du, &*dfb), &mut b.hinge_mat, c * nv);
                }
                if np > 0 {
                    self.param_force_jacobian(
                        m,
                        pvals,
                        &mut sc.data,
                        (q, &ev.v[t], &ev.a[t]),
                        dp,
                        cacc,
                        (fp, fm),
                    );
                    dup.gemm(1.0, &self.b_pinv, dp, 0.0);
                    ddp.gemm_tr(1.0, &self.n, dp, 0.0);
                    let sc = (h, sl, sw);
                    let uf = (&ev.u[t][..], &ev.force[t][..]);
                    let mats = (&*dup, &*ddp, &*dup);
                    self.put_force_rows(m, uf, sc, mats, &mut b.par, (r0, 0));
                    self.put_hinge_rows(m, (&*dup, &*dup), &mut b.hinge_par, 0);
                }
                for kk in (0..nu).filter(|&k| m.actuator_ctrllimited[k]) {
                    b.hinge.push(HingeRow {
                        row: row + r0 + nu + nr + kk,
                        x: ev.u[t][kk],
                        range: m.actuator_ctrlrange[kk],
                        scale: sl,
                    });
                }
                for (i, &kk) in self.force_limited.iter().enumerate() {
                    b.hinge.push(HingeRow {
                        row: row + r0 + 2 * nu + nr + i,
                        x: ev.force[t][kk],
                        range: m.actuator_forcerange[kk],
                        scale: sl,
                    });
                }
                r0 += 2 * nu + nr + self.force_limited.len();
            }
            let h0 = b.hinge.len();
            for (i, &j) in self.limited.iter().enumerate() {
                let e = range_slope(q[m.jnt_qposadr[j]], true, m.jnt_range[j]);
                b.mat[(r0 + i, nv + m.jnt_dofadr[j])] = sl * e;
                b.hinge_mat[(h0 + i, nv + m.jnt_dofadr[j])] = 1.0;
                b.hinge.push(HingeRow {
                    row: row + r0 + i,
                    x: q[m.jnt_qposadr[j]],
                    range: m.jnt_range[j],
                    scale: sl,
                });
            }
            // Fixed configurations: q₀ (block 1 at t = 0, block 0 at t = 1), q_{−1}.
            let fixed = if t == 0 {
                2 * nv
            } else if t == 1 {
                nv
            } else {
                0
            };
            b.mat.columns_mut(0, fixed).fill(0.0);
            b.hinge_mat.columns_mut(0, fixed).fill(0.0);
            if let Some(hs) = b.hess.as_mut() {
                hs.columns_mut(0, fixed).fill(0.0);
                hs.rows_mut(0, fixed).fill(0.0);
            }
            if t == horizon {
                b.mat.columns_mut(2 * nv, nv).fill(0.0);
                b.hinge_mat.columns_mut(2 * nv, nv).fill(0.0);
            }
            debug_assert_eq!(b.hinge.len(), nh);
            row += rows;
        }
    }

    /// Writes one knot's control, residual, control-range and force-range rows of
    /// force-Jacobian columns (`du = ∂u = B⁺ ∂τ − ∂(bias/gain)`, `dd = Nᵀ ∂τ`, `dfb = B⁺ ∂τ =
    /// ∂f/gain`) into `dst` at `(r0, c0)`; `(u, f)` the knot's controls and forces, `sc = (h,
    /// √w_limits, √w_dynamics)`.
    fn put_force_rows(
        &self,
        m: &Model,
        (u, f): (&[f64], &[f64]),
        (h, sl, sw): (f64, f64, f64),
        (du, dd, dfb): (&DMatrix<f64>, &DMatrix<f64>, &DMatrix<f64>),
        dst: &mut DMatrix<f64>,
        (r0, c0): (usize, usize),
    ) {
        let (nu, nr, nc) = (du.nrows(), dd.nrows(), du.ncols());
        for (i, &kk) in self.force_limited.iter().enumerate() {
            let e = range_slope(f[kk], true, m.actuator_forcerange[kk]);
            for j in 0..nc {
                dst[(r0 + 2 * nu + nr + i, c0 + j)] = sl * e * self.gain[kk] * dfb[(kk, j)];
            }
        }
        for kk in 0..nu {
            let s = (h * self.weights.control[kk]).sqrt();
            let e = range_slope(u[kk], m.actuator_ctrllimited[kk], m.actuator_ctrlrange[kk]);
            for j in 0..nc {
                dst[(r0 + kk, c0 + j)] = s * du[(kk, j)];
                dst[(r0 + nu + nr + kk, c0 + j)] = sl * e * du[(kk, j)];
            }
        }
        for i in 0..nr {
            for j in 0..nc {
                dst[(r0 + nu + i, c0 + j)] = sw * dd[(i, j)];
            }
        }
    }

    /// Writes one knot's one-sided force rows' argument derivatives (`∂u` of the controls with
    /// `ctrllimited`, then `∂f = gain · dfb` of the forces with `forcelimited`; `dfb = B⁺ ∂τ`)
    /// of a column block into `dst` at column `c0` (the order of [`KnotJacobian::hinge`]).
    fn put_hinge_rows(
        &self,
        m: &Model,
        (du, dfb): (&DMatrix<f64>, &DMatrix<f64>),
        dst: &mut DMatrix<f64>,
        c0: usize,
    ) {
        let nc = du.ncols();
        let mut i = 0;
        for kk in (0..m.nu).filter(|&k| m.actuator_ctrllimited[k]) {
            for j in 0..nc {
                dst[(i, c0 + j)] = du[(kk, j)];
            }
            i += 1;
        }
        for &kk in &self.force_limited {
            for j in 0..nc {
                dst[(i, c0 + j)] = self.gain[kk] * dfb[(kk, j)];
            }
            i += 1;
        }
    }

    /// The one-sided rows' correction to the Gauss–Newton model `½‖r + J·sδ‖²` at the step
    /// `sδ` (tangent, `T·nv + n_p`, as LM's): `Σ_h ½ (scale_h · excess(x_h + s a_h δ))² −
    /// ½ (r_h + s J_h δ)²` over the limit rows ([`HingeRow`]; `a_h = ∂x_h/∂δ`), the control,
    /// force and joint ranges and the parameters' bounds. `J` holds each such row's slope at
    /// the linearization point only (0 inside the range, `scale` outside), so the plain model
    /// misses a penalty that the step switches on and keeps one that it switches off; with
    /// the correction the model is exact in these rows to first order in their argument, and
    /// a step that crosses a limit is judged by the penalty it meets.
    pub fn hinge_model_correction(
        &self,
        ev: &Evaluation,
        blocks: &[KnotJacobian],
        delta: &[f64],
        s: f64,
    ) -> f64 {
        let nv = self.model.nv;
        let n = self.n_config_vars();
        let mut out = 0.0;
        // which piece of the hinge: below, inside, above the range
        let piece = |x: f64, [lo, hi]: [f64; 2]| (x >= lo) as i8 + (x > hi) as i8;
        let mut term = |h: &HingeRow, ad: f64, r: f64| {
            // a step within one piece: the plain model is exact in this row (and the difference
            // of the two squares would be round-off only)
            if piece(h.x, h.range) == piece(h.x + ad, h.range) {
                return;
            }
            let slope = range_slope(h.x, true, h.range);
            let quad = r + h.scale * slope * ad;
            let pw = h.scale * range_excess(h.x + ad, true, h.range);
            out += 0.5 * (pw - quad) * (pw + quad);
        };
        for (t, b) in blocks.iter().enumerate() {
            let base = t as isize * nv as isize - 2 * nv as isize;
            for (i, h) in b.hinge.iter().enumerate() {
                let mut ad = 0.0;
                for c in 0..3 * nv {
                    let gi = base + c as isize;
                    if gi < 0 || gi as usize >= n {
                        continue;
                    }
                    ad += b.hinge_mat[(i, c)] * delta[gi as usize];
                }
                for j in 0..b.hinge_par.ncols() {
                    ad += b.hinge_par[(i, j)] * delta[n + j];
                }
                term(h, s * ad, ev.r[h.row]);
            }
        }
        let sl = self.weights.limits.sqrt();
        let tail = ev.r.len() - 2 * self.params.len();
        for (j, spec) in self.params.iter().enumerate() {
            if let Some(range) = spec.bounds {
                let h = HingeRow {
                    row: tail + 2 * j + 1,
                    x: ev.params[j],
                    range,
                    scale: sl,
                };
                term(&h, s * delta[n + j], ev.r[h.row]);
            }
        }
        out
    }

    /// Hessian of `μᵀτ(q, v, a)` with respect to `y = (q, v, a)` (3nv × 3nv) by central
    /// differences of the provider's Jacobians (τ is linear in `a`: only `q` and `v` are
    /// perturbed).
    #[allow(clippy::too_many_arguments)]
    fn force_hessian(
        &self,
        m: &Model,
        data: &mut Data,
        provider: &mut dyn InverseJacobian,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        mu: &nalgebra::DVector<f64>,
    ) -> DMatrix<f64> {
        let nv = m.nv;
        let eps = 1e-5;
        let mut hy = DMatrix::zeros(3 * nv, 3 * nv);
        let mut tq = DMatrix::zeros(nv, nv);
        let mut tv = DMatrix::zeros(nv, nv);
        let mut ta = DMatrix::zeros(nv, nv);
        let mut grad = |qq: &[f64], vv: &[f64]| -> nalgebra::DVector<f64> {
            provider.jacobians(m, data, qq, vv, a, &mut tq, &mut tv, &mut ta);
            let mut g = nalgebra::DVector::zeros(3 * nv);
            g.rows_mut(0, nv).copy_from(&(tq.transpose() * mu));
            g.rows_mut(nv, nv).copy_from(&(tv.transpose() * mu));
            g.rows_mut(2 * nv, nv).copy_from(&(ta.transpose() * mu));
            g
        };
        let mut dir = vec![0.0; nv];
        let mut qp = q.to_vec();
        let mut vp = v.to_vec();
        for j in 0..2 * nv {
            let (gp, gm) = if j < nv {
                dir[j] = 1.0;
                qp.copy_from_slice(q);
                integrate_pos(m, &mut qp, &dir, eps);
                let gp = grad(&qp, v);
                qp.copy_from_slice(q);
                integrate_pos(m, &mut qp, &dir, -eps);
                let gm = grad(&qp, v);
                dir[j] = 0.0;
                (gp, gm)
            } else {
                let i = j - nv;
                vp[i] = v[i] + eps;
                let gp = grad(q, &vp);
                vp[i] = v[i] - eps;
                let gm = grad(q, &vp);
                vp[i] = v[i];
                (gp, gm)
            };
            hy.set_column(j, &((gp - gm) / (2.0 * eps)));
        }
        // Columns of `a` from symmetry (∂²/∂a² = 0).
        for j in 0..2 * nv {
            for i in 2 * nv..3 * nv {
                hy[(j, i)] = hy[(i, j)];
            }
        }
        (&hy + hy.transpose()) * 0.5
    }

    /// Gradient `Jᵀr` (tangent, `T·nv`) and the Gauss–Newton matrix `JᵀJ` in band storage: the
    /// configuration block only (all of it without parameters; see
    /// [`Collocation::normal_equations_bordered`]). `h` is resized to `T·nv` with half-bandwidth
    /// `3nv − 1` if it has another shape; `g` must have `T·nv` entries.
    pub fn normal_equations(
        &self,
        ev: &Evaluation,
        blocks: &[KnotJacobian],
        h: &mut BandMatrix,
        g: &mut [f64],
    ) {
        let nv = self.model.nv;
        let n = self.n_config_vars();
        let bw = (3 * nv).saturating_sub(1);
        if h.n != n || h.bw != bw {
            *h = BandMatrix::zeros(n, bw);
        }
        h.fill_zero();
        g.iter_mut().for_each(|x| *x = 0.0);
        let mut guard = self.scratch.borrow_mut();
        let jtj = &mut guard.mats.jtj;
        if jtj.nrows() != 3 * nv {
            *jtj = DMatrix::zeros(3 * nv, 3 * nv);
        }
        for (t, b) in blocks.iter().enumerate() {
            let rows = b.mat.nrows();
            let r = &ev.r[b.row..b.row + rows];
            // Column c of the block is variable (t − 2)·nv + c (q_{t−1} is block t − 2 of z).
            let base = t as isize * nv as isize - 2 * nv as isize;
            jtj.gemm_tr(1.0, &b.mat, &b.mat, 0.0);
            for c in 0..3 * nv {
                let gi = base + c as isize;
                if gi < 0 || gi as usize >= n {
                    continue;
                }
                let gi = gi as usize;
                let mut s = 0.0;
                for k in 0..rows {
                    s += b.mat[(k, c)] * r[k];
                }
                g[gi] += s;
                for c2 in 0..=c {
                    let gj = base + c2 as isize;
                    if gj < 0 {
                        continue;
                    }
                    let extra = b.hess.as_ref().map_or(0.0, |hs| hs[(c, c2)]);
                    h.add(gi, gj as usize, jtj[(c, c2)] + extra);
                }
            }
        }
    }

    /// The whole Gauss–Newton system with parameters: the banded configuration block `A`
    /// ([`Collocation::normal_equations`]), the border `B = J_qᵀ J_p` (`T·nv × n_p`), the corner
    /// `C = J_pᵀ J_p` (with the prior and range rows) and the gradient `Jᵀr` (`T·nv + n_p`).
    /// The border is `Σ_t` of each knot's `mat_tᵀ par_t` (the second-order term of
    /// [`Collocation::second_order`] is added to `A` only: the border stays Gauss–Newton).
    /// `h` is resized if it has another shape; `g` must have `T·nv + n_p` entries.
    pub fn normal_equations_bordered(
        &self,
        ev: &Evaluation,
        blocks: &[KnotJacobian],
        h: &mut Bordered,
        g: &mut [f64],
    ) {
        let nv = self.model.nv;
        let n = self.n_config_vars();
        let np = self.params.len();
        let bw = (3 * nv).saturating_sub(1);
        if !h.has_shape(n, bw, np) {
            *h = Bordered::zeros(n, bw, np);
        }
        self.normal_equations(ev, blocks, &mut h.band, &mut g[..n]);
        h.border.fill(0.0);
        h.corner.fill(0.0);
        g[n..].iter_mut().for_each(|x| *x = 0.0);
        if np == 0 {
            return;
        }
        for (t, b) in blocks.iter().enumerate() {
            let rows = b.mat.nrows();
            let r = &ev.r[b.row..b.row + rows];
            let base = t as isize * nv as isize - 2 * nv as isize;
            for j in 0..np {
                let pc = b.par.column(j);
                g[n + j] += pc.iter().zip(r).map(|(a, b)| a * b).sum::<f64>();
                for j2 in 0..=j {
                    h.corner[(j, j2)] += pc.dot(&b.par.column(j2));
                }
                for c in 0..3 * nv {
                    let gi = base + c as isize;
                    if gi < 0 || gi as usize >= n {
                        continue;
                    }
                    h.border[(gi as usize, j)] += pc.dot(&b.mat.column(c));
                }
            }
        }
        let sl = self.weights.limits.sqrt();
        let tail = ev.r.len() - 2 * np;
        for (j, s) in self.params.iter().enumerate() {
            let p = ev.params[j];
            let d1 = s.prior.sqrt();
            let d2 = sl * s.bounds.map_or(0.0, |b| range_slope(p, true, b));
            h.corner[(j, j)] += d1 * d1 + d2 * d2;
            g[n + j] += d1 * ev.r[tail + 2 * j] + d2 * ev.r[tail + 2 * j + 1];
        }
        for j in 0..np {
            for j2 in 0..j {
                h.corner[(j2, j)] = h.corner[(j, j2)];
            }
        }
    }

    /// `∂τ_t/∂p` (`nv × n_p`) at the knot `(q, v, a)` on `m` (the model at `p`) into `dp`, as
    /// selected by [`ParamJacobian`] (NaN columns if a `±ε` model is refused).
    #[allow(clippy::too_many_arguments)]
    fn param_force_jacobian(
        &self,
        m: &Model,
        p: &[f64],
        d: &mut Data,
        (q, v, a): (&[f64], &[f64], &[f64]),
        dp: &mut DMatrix<f64>,
        cacc: &mut Vec<Vector6<f64>>,
        (fp, fm): (&mut [f64], &mut [f64]),
    ) {
        let nv = m.nv;
        inverse_force(m, d, q, v, a, fp);
        let analytic = self.param_jacobian.get() == ParamJacobian::Analytic && d.nefc == 0;
        let fluid = m.opt.density > 0.0 || m.opt.viscosity > 0.0;
        let mut done = [false; 64];
        let mut done_big = vec![];
        let done = if self.params.len() <= 64 {
            &mut done[..self.params.len()]
        } else {
            done_big.resize(self.params.len(), false);
            &mut done_big[..]
        };
        if analytic {
            body_accelerations(m, d, a, cacc);
            for (j, s) in self.params.iter().enumerate() {
                let inertial_ok = |b: usize| !fluid && m.body_gravcomp[b] == 0.0;
                match s.param {
                    Param::Damping { dof } => {
                        dp.column_mut(j).fill(0.0);
                        if !m.opt.disabled(disable::DAMPER) {
                            // −qfrc_damper = b v; invdiscrete under Euler's implicit damping
                            // adds h b a_d (inverse::discrete_acc; for b > 0)
                            let implicit = !m.opt.disabled(disable::EULERDAMP);
                            dp[(dof, j)] = v[dof]
                                + if implicit {
                                    m.opt.timestep * a[dof]
                                } else {
                                    0.0
                                };
                        }
                        done[j] = true;
                    }
                    Param::Mass { body } if inertial_ok(body) => {
                        // all ten scale with the mass: ∂π/∂m = π/m
                        let mut pi = sysid::inertial_params(m, body);
                        let mass = pi[0];
                        pi.iter_mut().for_each(|x| *x /= mass);
                        inertial_column(m, d, cacc, body, &pi, dp, j);
                        done[j] = true;
                    }
                    Param::Inertial { body, k } if inertial_ok(body) => {
                        let mut pi = [0.0; 10];
                        pi[k] = 1.0;
                        inertial_column(m, d, cacc, body, &pi, dp, j);
                        done[j] = true;
                    }
                    _ => {}
                }
            }
        }
        if done.iter().all(|x| *x) {
            return;
        }
        if self.prepare_fd_models(p).is_err() {
            for j in 0..self.params.len() {
                if !done[j] {
                    dp.column_mut(j).fill(f64::NAN);
                }
            }
            return;
        }
        let fd = self.fd_models.borrow();
        for j in 0..self.params.len() {
            if done[j] {
                continue;
            }
            let (mp, mm, span) = &fd.models[j];
            inverse_force(mp, d, q, v, a, fp);
            inverse_force(mm, d, q, v, a, fm);
            for i in 0..nv {
                dp[(i, j)] = (fp[i] - fm[i]) / span;
            }
        }
    }

    /// The residual Jacobian `∂r/∂δ` (`n_residuals × (T·nv + n_p)`, tangent perturbations
    /// `z ⊕ δ`) assembled densely from the knot blocks of [`Collocation::jacobian`] and the
    /// parameter prior and range rows: for checks.
    pub fn dense_jacobian(&self, z: &[f64]) -> DMatrix<f64> {
        let nv = self.model.nv;
        let n = self.n_config_vars();
        let np = self.params.len();
        let (ev, blocks) = self.jacobian(z);
        let mut out = DMatrix::zeros(self.n_residuals(), n + np);
        for (t, b) in blocks.iter().enumerate() {
            let base = t as isize * nv as isize - 2 * nv as isize;
            for c in 0..3 * nv {
                let gi = base + c as isize;
                if gi < 0 || gi as usize >= n {
                    continue;
                }
                for k in 0..b.mat.nrows() {
                    out[(b.row + k, gi as usize)] = b.mat[(k, c)];
                }
            }
            for j in 0..np {
                for k in 0..b.par.nrows() {
                    out[(b.row + k, n + j)] = b.par[(k, j)];
                }
            }
        }
        let sl = self.weights.limits.sqrt();
        let tail = out.nrows() - 2 * np;
        for (j, s) in self.params.iter().enumerate() {
            let p = ev.params[j];
            out[(tail + 2 * j, n + j)] = s.prior.sqrt();
            out[(tail + 2 * j + 1, n + j)] = sl * s.bounds.map_or(0.0, |b| range_slope(p, true, b));
        }
        out
    }

    /// Central finite differences of the whole residual vector, `(r(z ⊕ εe_j) − r(z ⊖ εe_j))/2ε`:
    /// an independent check of [`Collocation::dense_jacobian`] (it re-runs collision detection and
    /// the constraint states at every perturbed trajectory).
    pub fn fd_jacobian(&self, z: &[f64], eps: f64) -> DMatrix<f64> {
        let n = self.n_vars();
        let mut out = DMatrix::zeros(self.n_residuals(), n);
        let mut dir = vec![0.0; n];
        for j in 0..n {
            dir[j] = 1.0;
            let rp = self.evaluate(&self.retract(z, &dir, eps)).r;
            let rm = self.evaluate(&self.retract(z, &dir, -eps)).r;
            dir[j] = 0.0;
            for i in 0..rp.len() {
                out[(i, j)] = (rp[i] - rm[i]) / (2.0 * eps);
            }
        }
        out
    }

    /// Updates the multipliers `λ_t ← λ_t + w Nᵀτ_t`.
    pub fn update_multipliers(&self, ev: &Evaluation) {
        let nr = self.nr();
        let w = self.dynamics_weight();
        let mut lam = self.multipliers.borrow_mut();
        for (t, d) in ev.defect.iter().enumerate() {
            for i in 0..nr {
                lam[t * nr + i] += w * d[i];
            }
        }
    }
}

/// Signed distance outside `[lo, hi]` (0 inside).
fn range_excess(x: f64, limited: bool, r: [f64; 2]) -> f64 {
    if !limited {
        0.0
    } else if x > r[1] {
        x - r[1]
    } else if x < r[0] {
        x - r[0]
    } else {
        0.0
    }
}

fn range_slope(x: f64, limited: bool, r: [f64; 2]) -> f64 {
    if limited && (x > r[1] || x < r[0]) {
        1.0
    } else {
        0.0
    }
}

/// Spatial accelerations `cacc` of all bodies in the COM frames (gravity as the world's
/// acceleration, as in `rne`) at `qacc = a`, from `cdof`, `cdof_dot` and `qvel` in `d`.
fn body_accelerations(m: &Model, d: &Data, a: &[f64], cacc: &mut Vec<Vector6<f64>>) {
    cacc.resize(m.nbody, Vector6::zeros());
    cacc[0] = if m.opt.disabled(disable::GRAVITY) {
        Vector6::zeros()
    } else {
        let g = m.opt.gravity;
        Vector6::new(0.0, 0.0, 0.0, -g[0], -g[1], -g[2])
    };
    for b in 1..m.nbody {
        let mut acc = cacc[m.body_parentid[b]];
        let d0 = m.body_dofadr[b];
        for i in d0..d0 + m.body_dofnum[b] {
            acc += d.cdof_dot[i] * d.qvel[i] + d.cdof[i] * a[i];
        }
        cacc[b] = acc;
    }
}

/// Column `j` of `dp`: the generalized force of body `b` with inertial parameters `π` (body
/// frame, about the body origin; τ is linear in `π`), `f = I(π) a_b + v_b ×* I(π) v_b` mapped
/// by `cdof` onto the dofs supporting `b`. `I(π)` in the COM frame about `p₀ =
/// subtree_com[root]`: mass `m`, first moment `m r + R h`, rotational inertia `R I_o Rᵀ +
/// m(|r|²1 − r rᵀ) + 2(r·R h)1 − (r (Rh)ᵀ + (Rh) rᵀ)` with `r = xpos_b − p₀` (parallel axes
/// from the body origin).
fn inertial_column(
    m: &Model,
    d: &Data,
    cacc: &[Vector6<f64>],
    b: usize,
    pi: &[f64; 10],
    dp: &mut DMatrix<f64>,
    j: usize,
) {
    let r = d.xmat[b];
    let rr = d.xpos[b] - d.subtree_com[m.body_rootid[b]];
    let mass = pi[0];
    let hw = r * Vector3::new(pi[1], pi[2], pi[3]);
    let io = Matrix3::new(
        pi[4], pi[7], pi[8], pi[7], pi[5], pi[9], pi[8], pi[9], pi[6],
    );
    let hc = rr * mass + hw;
    let ic = r * io * r.transpose()
        + (Matrix3::identity() * rr.dot(&rr) - rr * rr.transpose()) * mass
        + Matrix3::identity() * (2.0 * rr.dot(&hw))
        - (rr * hw.transpose() + hw * rr.transpose());
    let cin = [
        ic[(0, 0)],
        ic[(1, 1)],
        ic[(2, 2)],
        ic[(0, 1)],
        ic[(0, 2)],
        ic[(1, 2)],
        hc.x,
        hc.y,
        hc.z,
        mass,
    ];
    let v = &d.cvel[b];
    let f = moreau::pipeline::inert_mul(&cin, &cacc[b])
        + moreau::pipeline::cross_force(v, &moreau::pipeline::inert_mul(&cin, v));
    dp.column_mut(j).fill(0.0);
    let mut bb = b;
    while bb != 0 {
        let d0 = m.body_dofadr[bb];
        for i in d0..d0 + m.body_dofnum[bb] {
            dp[(i, j)] = d.cdof[i].dot(&f);
        }
        bb = m.body_parentid[bb];
    }
}
