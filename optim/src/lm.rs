//! Gauss–Newton / Levenberg–Marquardt on the block-banded collocation problem, as an argmin
//! [`Solver`] (argmin's `Executor` runs it: termination, observers, function counts), and the
//! L-BFGS alternative through argmin's own `LBFGS`.
//!
//! One iteration: the residual Jacobian `J` (per-knot blocks), the banded normal matrix `JᵀJ`
//! and gradient `g = Jᵀr`, then trial steps `(JᵀJ + λ·(diag JᵀJ + ε)) δ = −g` with banded
//! Cholesky until the gain ratio `ρ = actual / predicted decrease` is positive (Nielsen's update
//! of `λ`). Configurations are updated on the manifold, `q ← q ⊕ δ`. When the objective stalls,
//! the augmented-Lagrangian multipliers of the dynamics residual are updated
//! (`λ_t ← λ_t + w Nᵀτ_t`), and the penalty `w` grows ×`penalty_growth` when an update reduced
//! the largest residual less than `penalty_decrease` (the classic schedule: the multipliers then
//! converge faster than linearly with a fixed small `w`); the solver stops when the objective
//! has stalled with the largest dynamics residual below `defect_tol` at a first-order point
//! (see [`LevenbergMarquardt::gtol`]: the scaled gradient is small *and* the Gauss–Newton model
//! that measures it is confirmed by one evaluation at its undamped step; a stall elsewhere ends
//! as [`Outcome::Stalled`], not converged). The evaluation of the
//! accepted trial point is kept for the next Jacobian (no recomputation), and all storage
//! (Jacobian blocks, band matrices, step vectors) is reused across iterations.
//!
//! With model parameters in the decision vector ([`Collocation::set_params`]) the normal matrix
//! is banded with a dense border ([`Bordered`]): the step solves it by the Schur complement on
//! the parameter block, reusing the banded factorization (no dense solve of the whole system).

use crate::band::Bordered;
use crate::collocation::{Collocation, Evaluation, KnotJacobian};
use argmin::core::{
    CostFunction, Error, Executor, Gradient, IterState, Problem, Solver, State, TerminationReason,
    TerminationStatus, KV,
};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;

/// argmin state of the LM solver: parameter = flat configurations `q₁ … q_T`, then the model
/// parameters if any ([`Collocation::set_params`]).
pub type LmState = IterState<Vec<f64>, Vec<f64>, (), (), Vec<f64>, f64>;

/// Solver settings and per-iteration record.
#[derive(Clone, Debug)]
pub struct LevenbergMarquardt {
    /// Initial damping `λ` (absolute, on `I`: the variables are configurations).
    pub lambda: f64,
    /// Relative objective decrease below which the inner problem counts as solved and the
    /// multipliers are updated.
    pub tol: f64,
    /// Largest dynamics residual `|Nᵀτ|` accepted at convergence.
    pub defect_tol: f64,
    /// Switch from Gauss–Newton to the Newton matrix with second-order force terms
    /// ([`Collocation::second_order`]) once the relative decrease per iteration falls below this
    /// (0: never, 1: from the start).
    pub newton_after: f64,
    /// Damping `λ·diag(JᵀJ)` (Marquardt) instead of `λ·I` (Levenberg). The identity is the
    /// right choice here: the diagonal is dominated by the stiff dynamics rows (`∝ w/h⁴`), and
    /// scaling by it over-damps the directions along the dynamically feasible set.
    pub marquardt: bool,
    /// Stop after this many multiplier updates.
    pub max_al_updates: usize,
    /// Augmented-Lagrangian penalty update: at a multiplier update whose largest dynamics
    /// residual is above `penalty_decrease` times the one at the previous update, the penalty
    /// weight grows by this factor (1: fixed penalty), up to `max_penalty_growth` in total.
    pub penalty_growth: f64,
    pub penalty_decrease: f64,
    pub max_penalty_growth: f64,
    /// First-order optimality, tested when the objective stalls: the cosine of the angle between
    /// the residual and the range of its Jacobian, `‖P_J r‖ / ‖r‖ = √(gᵀ(JᵀJ)⁻¹g / ‖r‖²)` with
    /// `g = Jᵀr` (the gradient in the Gauss–Newton metric; its square is the relative decrease
    /// the undamped Gauss–Newton model predicts). MINPACK's `gtol` test (`Moré 1978` in
    /// docs/references.md) takes the cosine with each column `J_j` instead, which here is
    /// ~1e-4 already at a poor guess: the columns are dominated by the stiff dynamics rows
    /// (`∝ √w/h²`). Scale free: it does not change when a variable or the residual is rescaled.
    ///
    /// The measure is only as good as the Gauss–Newton model it is taken in, so it certifies a
    /// point only when that model holds there: the residual is evaluated at the undamped
    /// Gauss–Newton step and the actual decrease must be within a factor `1/model_ratio` of
    /// the model's (`½ gᵀ(JᵀJ)⁻¹g`; skipped when that is below 1e-10 of the objective, where a
    /// stall is first-order by the gradient alone: converged but not certified, see
    /// [`CollocationResult::certified`]). At a kink of
    /// the contact forces the model fails at every step length down to the damped steps' 1e-8
    /// rad, and a small scaled gradient there (the residual nearly orthogonal to the range of a
    /// Jacobian that does not describe the residual) is not a first-order point: such a stall
    /// continues and ends as [`Outcome::Stalled`].
    pub gtol: f64,
    /// The undamped Gauss–Newton step's gain ratio (actual / predicted decrease) confirms the
    /// model behind the `gtol` test when it lies in `[model_ratio, 1/model_ratio]` (see
    /// [`LevenbergMarquardt::gtol`]).
    pub model_ratio: f64,
    /// The smallest fraction `s` of the undamped Gauss–Newton step at which the model check
    /// may pass (it backs off from the full step by factors of 10 where the objective is above
    /// the model; see `model_check`): the model must hold over at least this part of the step
    /// whose predicted decrease the `gtol` test measures. At the Go1's standing guess (impratio
    /// 100) it holds only up to s = 1e-4 (contact kinks under the feet), at the hopper's and
    /// the Go1 jump's converged plans up to s = 0.1 and 0.01.
    pub model_backoff: f64,
    /// Step test (MINPACK's `xtol`): the undamped Gauss–Newton step with
    /// `‖δ‖∞ ≤ xtol·(‖z‖∞ + xtol)` also counts as first-order. Not the damped step: with the
    /// damping at 1e10 every step is small, optimal or not.
    pub xtol: f64,
    /// Consecutive stalled iterations at a feasible point that is not first-order optimal
    /// after which the run ends as [`Outcome::Stalled`] (the steps are accepted but each
    /// decreases the objective by less than `tol`: the damping cannot fall far enough for a
    /// Gauss–Newton step, whose model fails at a kink of the forces).
    pub max_stalls: usize,
    stalls: usize,
    nu: f64,
    al_updates: usize,
    /// Trajectory cost (task + control + limits) after each iteration.
    pub cost_history: Vec<f64>,
    /// Largest dynamics residual after each iteration.
    pub defect_history: Vec<f64>,
    outcome: Outcome,
    /// Scaled gradient ([`LevenbergMarquardt::gtol`]) at the last stall.
    optimality: f64,
    /// Gain ratio of the undamped Gauss–Newton step at the last stall where it was checked, and
    /// the step fraction where it passed (NaN if it did not).
    last_model_ratio: f64,
    last_model_step: f64,
    /// The run converged with the model check made and passed at its last stall
    /// ([`CollocationResult::certified`]).
    certified: bool,
    work: Work,
}

/// How an LM run ended (besides argmin's iteration limit, [`Outcome::Running`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Not stopped by the solver (the iteration limit ended the run, or it did not start).
    Running,
    /// Objective stalled at a first-order point (scaled gradient below `gtol` or Gauss–Newton
    /// step below `xtol`) with the largest dynamics residual below `defect_tol`.
    Converged,
    /// At a feasible point that is not first-order optimal (scaled gradient `gradient` above
    /// `gtol`, or below it but with the undamped Gauss–Newton step's gain ratio `model_ratio`
    /// outside `[r, 1/r]`, `r` = [`LevenbergMarquardt::model_ratio`]: the model that measures
    /// the gradient does not hold), every trial step of an iteration was rejected, or `max_stalls` iterations in a
    /// row decreased the objective by less than `tol`; the damping is `lambda`: the linear
    /// model of the residual fails at every step length tried (a kink of the contact forces).
    /// `model_ratio` is NaN when the scaled gradient was above `gtol` (no check was made).
    Stalled {
        lambda: f64,
        gradient: f64,
        model_ratio: f64,
    },
    /// The multiplier updates ran out before the dynamics residual reached `defect_tol`.
    MultipliersExhausted,
}

/// Storage reused across iterations: the evaluation at the current iterate (so the Jacobian
/// step does not recompute it), the trial evaluation, the Jacobian blocks, the normal matrix
/// and its damped copy, and the step vectors.
#[derive(Clone, Debug)]
struct Work {
    cur: Option<Evaluation>,
    trial: Evaluation,
    blocks: Vec<KnotJacobian>,
    h: Bordered,
    hl: Bordered,
    g: Vec<f64>,
    diag: Vec<f64>,
    delta: Vec<f64>,
    hd: Vec<f64>,
    zn: Vec<f64>,
    /// The point of the undamped Gauss–Newton step and its evaluation (the `gtol` test's check).
    zg: Vec<f64>,
    check: Evaluation,
    /// Largest dynamics residual at the last multiplier update.
    last_defect: f64,
    growth: f64,
}

impl Default for Work {
    fn default() -> Self {
        Work {
            cur: None,
            trial: Evaluation::default(),
            blocks: vec![],
            h: Bordered::zeros(0, 0, 0),
            hl: Bordered::zeros(0, 0, 0),
            g: vec![],
            diag: vec![],
            delta: vec![],
            hd: vec![],
            zn: vec![],
            zg: vec![],
            check: Evaluation::default(),
            last_defect: f64::INFINITY,
            growth: 1.0,
        }
    }
}

impl Default for LevenbergMarquardt {
    fn default() -> Self {
        LevenbergMarquardt {
            lambda: 1.0,
            tol: 1e-3,
            defect_tol: 1e-8,
            max_al_updates: 200,
            marquardt: false,
            newton_after: 0.0,
            penalty_growth: 10.0,
            penalty_decrease: 0.25,
            max_penalty_growth: 1e3,
            gtol: 0.03,
            model_ratio: 0.25,
            model_backoff: 1e-2,
            xtol: 1e-8,
            max_stalls: 20,
            stalls: 0,
            nu: 2.0,
            al_updates: 0,
            cost_history: vec![],
            defect_history: vec![],
            outcome: Outcome::Running,
            optimality: f64::NAN,
            last_model_ratio: f64::NAN,
            last_model_step: f64::NAN,
            certified: false,
            work: Work::default(),
        }
    }
}

/// The round-off of the objective `½‖r‖²` of `n` residual rows at the value `f`: `4ε√n·f`,
/// the typical rounding of a sum of `n` squares (`√n` roundings of relative size `ε`) with a
/// factor 4 for the rounding of the rows themselves. A predicted decrease below it cannot be
/// resolved by evaluating the objective (measured on the hopper at 200 knots: the objective's
/// changes at steps whose predicted decrease is below 1e-15 of it are of either sign).
fn roundoff(f: f64, n: usize) -> f64 {
    4.0 * f64::EPSILON * (n as f64).sqrt() * f
}

/// The model check of the `gtol` test ([`LevenbergMarquardt::gtol`]): the gain ratio (actual
/// over predicted decrease, the limit rows modeled past their kinks) along the undamped
/// Gauss–Newton step `−w.delta` (`w.delta = (JᵀJ)⁻¹g`, `gdg = gᵀ(JᵀJ)⁻¹g`). At the full step
/// first; where the objective there is above the model (gain ratio below `r`: the step crosses
/// a kink or a jump of the residual, such as a contact row's creation), at the steps `s = 0.1,
/// 0.01, …` down to `smin` ([`LevenbergMarquardt::model_backoff`]) as long as the model's
/// predicted decrease stays above 4× the objective's round-off `floor`. A point where the residual is differentiable passes at some `s` (the model's error
/// is `O(s²)` against a decrease `∝ s`); a kink at the point itself (a Jacobian that is one
/// side's) does not at any `s` (error and decrease both `∝ s`), nor does a jump at a distance
/// that round-off cannot resolve. A gain ratio above `1/r` (the objective falls faster than the
/// model says) fails at once. Returns the gain ratio and the step fraction `s` where it passed,
/// or the full step's gain ratio and NaN.
fn model_check(
    problem: &mut Problem<Collocation>,
    w: &mut Work,
    (z, ev): (&[f64], &Evaluation),
    (f0, gdg, floor): (f64, f64, f64),
    (r, smin): (f64, f64),
) -> Result<(f64, f64), Error> {
    w.h.mul(&w.delta, &mut w.hd);
    let dhd: f64 = w.delta.iter().zip(&w.hd).map(|(a, b)| a * b).sum();
    let debug = std::env::var_os("LM_DEBUG").is_some();
    let mut first = f64::NAN;
    let mut s = 1.0;
    loop {
        let pred_quad = s * gdg - 0.5 * s * s * dhd;
        if pred_quad < 4.0 * floor || s < smin * (1.0 - 1e-9) {
            return Ok((first, f64::NAN));
        }
        let pred = pred_quad
            - problem.problem("hinge_model", |c| {
                Ok(c.hinge_model_correction(ev, &w.blocks, &w.delta, -s))
            })?;
        if pred > 0.0 {
            let fg = problem.problem("evaluate", |c| {
                c.retract_into(z, &w.delta, -s, &mut w.zg);
                c.evaluate_into(&w.zg, &mut w.check);
                Ok(half_sq(&w.check.r))
            })?;
            let ratio = (f0 - fg) / pred;
            if debug {
                eprintln!(
                    "  Gauss-Newton check: s {s:.0e} ratio {ratio:.3e} (f {fg:.6e}, predicted decrease {pred:.3e})"
                );
            }
            if s == 1.0 {
                first = ratio;
            }
            if ratio >= r && ratio <= 1.0 / r {
                return Ok((ratio, s));
            }
            if ratio > 1.0 / r {
                return Ok((first, f64::NAN));
            }
        } else if debug {
            eprintln!(
                "  Gauss-Newton check: s {s:.0e} the model predicts no decrease ({pred:.3e})"
            );
        }
        s *= 0.1;
    }
}

/// The inner problem has stalled: no trial step was accepted, or the accepted one decreased the
/// objective by at most `tol` (relative).
fn stalled_at(accepted: bool, f0: f64, fnew: f64, tol: f64) -> bool {
    !accepted || f0 - fnew <= tol * f0
}

fn half_sq(r: &[f64]) -> f64 {
    0.5 * r.iter().map(|x| x * x).sum::<f64>()
}

fn kv_of(ev: &Evaluation, lambda: f64) -> KV {
    let mut kv = KV::new();
    kv.insert("cost", ev.cost().into());
    kv.insert("defect", ev.max_defect().into());
    kv.insert("lambda", lambda.into());
    kv
}

impl Solver<Collocation, LmState> for LevenbergMarquardt {
    fn name(&self) -> &str {
        "Gauss-Newton/Levenberg-Marquardt (block-banded)"
    }

    fn init(
        &mut self,
        problem: &mut Problem<Collocation>,
        state: LmState,
    ) -> Result<(LmState, Option<KV>), Error> {
        let z = state
            .get_param()
            .cloned()
            .ok_or_else(|| Error::msg("LM: no initial parameter"))?;
        let ev = problem.problem("evaluate", |c| Ok(c.evaluate(&z)))?;
        self.outcome = Outcome::Running;
        self.stalls = 0;
        self.last_model_ratio = f64::NAN;
        self.last_model_step = f64::NAN;
        self.certified = false;
        self.cost_history = vec![ev.cost()];
        self.defect_history = vec![ev.max_defect()];
        let kv = kv_of(&ev, self.lambda);
        let out = state.cost(half_sq(&ev.r)).residuals(ev.r.clone());
        self.work.cur = Some(ev);
        Ok((out, Some(kv)))
    }

    fn next_iter(
        &mut self,
        problem: &mut Problem<Collocation>,
        mut state: LmState,
    ) -> Result<(LmState, Option<KV>), Error> {
        let z = state
            .take_param()
            .ok_or_else(|| Error::msg("LM: no parameter"))?;
        let w = &mut self.work;
        let ev = match w.cur.take() {
            Some(ev) => ev,
            None => problem.problem("evaluate", |c| Ok(c.evaluate(&z)))?,
        };
        let (n, bw, np) = problem.problem("jacobian", |c| {
            c.jacobian_into(&z, &ev, &mut w.blocks);
            Ok((c.n_vars(), 3 * c.model.nv - 1, c.n_params()))
        })?;
        let f0 = half_sq(&ev.r);
        if !w.h.has_shape(n - np, bw, np) {
            w.h = Bordered::zeros(n - np, bw, np);
            w.hl = Bordered::zeros(n - np, bw, np);
        }
        w.g.resize(n, 0.0);
        w.hd.resize(n, 0.0);
        problem.problem("normal", |c| {
            c.normal_equations_bordered(&ev, &w.blocks, &mut w.h, &mut w.g);
            Ok(())
        })?;
        w.diag.clear();
        w.diag.extend((0..n).map(|i| w.h.diag(i)));
        let mut accepted = false;
        let mut fnew = f0;
        let (mut trials, mut last_rho, mut step) = (0, f64::NAN, f64::NAN);
        // The objective's round-off: a decrease below it cannot be told from the rounding of
        // `½‖r‖²` (see `roundoff`); a trial step whose predicted decrease is below it ends the
        // damping loop (more damping only shrinks the step further).
        let floor = roundoff(f0, ev.r.len());
        let mut below_roundoff = false;
        let zmax = z.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        for _ in 0..30 {
            trials += 1;
            w.hl.copy_from(&w.h);
            for (i, d) in w.diag.iter().enumerate() {
                let scale = if self.marquardt { d.abs() + 1e-9 } else { 1.0 };
                w.hl.add_diag(i, self.lambda * scale);
            }
            if !w.hl.cholesky() {
                self.lambda *= self.nu;
                self.nu *= 2.0;
                continue;
            }
            w.delta.clear();
            w.delta.extend(w.g.iter().map(|x| -x));
            w.hl.solve(&mut w.delta);
            w.h.mul(&w.delta, &mut w.hd);
            let pred = -(w.delta.iter().zip(&w.g).map(|(a, b)| a * b).sum::<f64>()
                + 0.5 * w.delta.iter().zip(&w.hd).map(|(a, b)| a * b).sum::<f64>());
            let pred_quad = pred;
            // the limit penalties past their kinks (`Collocation::hinge_model_correction`)
            let pred = pred
                - problem.problem("hinge_model", |c| {
                    Ok(c.hinge_model_correction(&ev, &w.blocks, &w.delta, 1.0))
                })?;
            problem.problem("retract", |c| {
                c.retract_into(&z, &w.delta, 1.0, &mut w.zn);
                Ok(())
            })?;
            problem.problem("evaluate", |c| {
                c.evaluate_into(&w.zn, &mut w.trial);
                Ok(())
            })?;
            let ft = half_sq(&w.trial.r);
            let rho = (f0 - ft) / pred.max(1e-300);
            last_rho = rho;
            // The largest step component and its variable (knot-major: `t·nv + dof`): where
            // the linear model breaks, when the gain ratio `rho` is small.
            let (imax, smax) = w.delta.iter().enumerate().fold((0, 0.0f64), |a, (i, x)| {
                if x.abs() > a.1 {
                    (i, x.abs())
                } else {
                    a
                }
            });
            step = smax;
            if std::env::var_os("LM_DEBUG").is_some() {
                eprintln!("  trial rho {rho:.3} step {step:.2e} at var {imax} ft {ft:.6e}");
            }
            if ft.is_finite() && ft < f0 && rho > 1e-4 {
                self.lambda *= (1.0 - (2.0 * rho - 1.0).powi(3)).max(1.0 / 3.0);
                self.lambda = self.lambda.max(1e-12);
                self.nu = 2.0;
                accepted = true;
                fnew = ft;
                break;
            }
            if pred_quad <= floor {
                below_roundoff = true;
                break;
            }
            self.lambda *= self.nu;
            self.nu *= 2.0;
        }
        // First-order test at a stall (the Gauss–Newton step at the start point, undamped
        // but for a round-off regularization; a matrix that is not positive definite, e.g.
        // with second-order terms, gets more until it is).
        let (mut gnorm, mut gn_step, mut gdg) = (f64::NAN, f64::NAN, f64::NAN);
        let stalled = stalled_at(accepted, f0, fnew, self.tol);
        if stalled {
            let dmax = w.diag.iter().fold(0.0f64, |a, d| a.max(d.abs()));
            let mut eps = 1e-12 * dmax.max(1e-300);
            for _ in 0..8 {
                w.hl.copy_from(&w.h);
                for i in 0..n {
                    w.hl.add_diag(i, eps);
                }
                if w.hl.cholesky() {
                    w.delta.clear();
                    w.delta.extend_from_slice(&w.g);
                    w.hl.solve(&mut w.delta);
                    gdg = w.delta.iter().zip(&w.g).map(|(a, b)| a * b).sum();
                    gnorm = if f0 > 0.0 {
                        (gdg.max(0.0) / (2.0 * f0)).sqrt()
                    } else {
                        0.0
                    };
                    gn_step = w.delta.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                    break;
                }
                eps *= 100.0;
            }
            self.optimality = gnorm;
        }
        let small_step = gn_step <= self.xtol * (zmax + self.xtol);
        // The first-order test at a stall (`gtol`, `xtol`), at the start point `z`, with the
        // largest dynamics residual after this iteration's step.
        let defect = if accepted {
            w.trial.max_defect()
        } else {
            ev.max_defect()
        };
        let mut model_ratio = f64::NAN;
        // whether this stall's first-order test rests on a model check that was made and
        // passed (not on the step test, nor on a predicted decrease too small to check)
        let mut checked = false;
        let first_order = small_step
            || (gnorm <= self.gtol && {
                // Confirm the Gauss–Newton model along its own (undamped) step from the start
                // point: `w.delta` still holds `(JᵀJ)⁻¹g`, so the step is `−w.delta`.
                let pred = 0.5 * gdg.max(0.0);
                if defect > self.defect_tol || pred <= 1e-10 * f0 {
                    true
                } else {
                    let (ratio, s) = model_check(
                        problem,
                        w,
                        (&z, &ev),
                        (f0, gdg, floor),
                        (self.model_ratio, self.model_backoff),
                    )?;
                    model_ratio = ratio;
                    self.last_model_ratio = ratio;
                    self.last_model_step = s;
                    checked = ratio >= self.model_ratio && ratio <= 1.0 / self.model_ratio;
                    checked
                }
            });
        let (zn, evn) = if accepted {
            let evn = std::mem::replace(&mut w.trial, ev);
            (w.zn.clone(), evn)
        } else {
            (z, ev)
        };
        self.cost_history.push(evn.cost());
        self.defect_history.push(evn.max_defect());
        let kv = kv_of(&evn, self.lambda);
        if std::env::var_os("LM_DEBUG").is_some() {
            eprintln!(
                "f0 {f0:.6e} fnew {fnew:.6e} cost {:.6} defect {:.2e} lambda {:.2e} stalled {stalled} trials {trials} rho {last_rho:.3} step {step:.2e} gradient {gnorm:.2e} GN step {gn_step:.2e}",
                evn.cost(),
                evn.max_defect(),
                self.lambda
            );
        }
        let mut fcur = fnew;
        if (f0 - fnew) <= self.newton_after * f0 {
            problem.problem("second_order", |c| {
                c.second_order.set(true);
                Ok(())
            })?;
        }
        let mut evn = evn;
        // consecutive feasible stalls away from a first-order point (reset by any other iteration)
        let prev_stalls = std::mem::take(&mut self.stalls);
        if stalled {
            if defect <= self.defect_tol && first_order {
                self.outcome = Outcome::Converged;
                self.certified = checked && !small_step;
                state = state.terminate_with(TerminationReason::SolverConverged);
            } else if defect <= self.defect_tol && (!accepted || prev_stalls + 1 >= self.max_stalls)
            {
                // Away from a first-order point: a stall, not an optimum.
                self.outcome = Outcome::Stalled {
                    lambda: self.lambda,
                    gradient: gnorm,
                    model_ratio,
                };
                let why = if accepted {
                    format!(
                        "{} iterations in a row decreased the objective by less than {:.0e}",
                        self.max_stalls, self.tol
                    )
                } else if below_roundoff {
                    format!(
                        "stationary at round-off: every trial step rejected down to a predicted \
                         decrease below the objective's round-off {floor:.1e}"
                    )
                } else {
                    "every trial step rejected".to_string()
                };
                let measure = if gnorm <= self.gtol {
                    format!(
                        "scaled gradient {gnorm:.1e} but the Gauss-Newton step's gain ratio {model_ratio:.1e} is outside [{}, {}] at every step length down to the objective's round-off",
                        self.model_ratio,
                        1.0 / self.model_ratio
                    )
                } else {
                    format!("scaled gradient {gnorm:.1e} > gtol {:.0e}", self.gtol)
                };
                state = state.terminate_with(TerminationReason::SolverExit(format!(
                    "stalled: {why} (damping {:.1e}), {measure}",
                    self.lambda
                )));
            } else if defect <= self.defect_tol {
                // Feasible, decreasing slowly, not yet first-order: keep iterating (the damping
                // falls after each accepted step); the multipliers are already right.
                self.stalls = prev_stalls + 1;
            } else if self.al_updates >= self.max_al_updates {
                self.outcome = Outcome::MultipliersExhausted;
                state = state.terminate_with(TerminationReason::SolverExit(
                    "multiplier updates exhausted".into(),
                ));
            } else {
                let grow = defect > self.penalty_decrease * w.last_defect
                    && w.growth * self.penalty_growth <= self.max_penalty_growth;
                w.last_defect = defect;
                problem.problem("multipliers", |c| {
                    c.update_multipliers(&evn);
                    if grow && self.penalty_growth != 1.0 {
                        c.grow_penalty(self.penalty_growth);
                    }
                    c.evaluate_into(&zn, &mut evn);
                    Ok(())
                })?;
                if grow {
                    w.growth *= self.penalty_growth;
                }
                self.al_updates += 1;
                fcur = half_sq(&evn.r);
                self.lambda = self.lambda.max(1e-6);
            }
        }
        let g = w.g.clone();
        w.cur = Some(evn);
        Ok((state.param(zn).cost(fcur).gradient(g), Some(kv)))
    }

    fn terminate(&mut self, _state: &LmState) -> TerminationStatus {
        TerminationStatus::NotTerminated
    }
}

impl LevenbergMarquardt {
    /// True if the last run ended with a stalled objective at a first-order point and a small
    /// dynamics residual ([`Outcome::Converged`]).
    pub fn converged(&self) -> bool {
        self.outcome == Outcome::Converged
    }

    /// How the last run ended.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// The scaled gradient ([`LevenbergMarquardt::gtol`]) at the last stall.
    pub fn optimality(&self) -> f64 {
        self.optimality
    }

    /// The gain ratio of the undamped Gauss–Newton step at the last stall where the `gtol` test
    /// checked it (NaN if none; [`LevenbergMarquardt::model_ratio`]).
    pub fn model_ratio_at_stall(&self) -> f64 {
        self.last_model_ratio
    }

    /// True if the last run converged and the first-order test of its last stall was confirmed
    /// by the model check ([`CollocationResult::certified`]).
    pub fn certified(&self) -> bool {
        self.converged() && self.certified
    }

    /// The fraction `s` of the undamped Gauss–Newton step where the model check passed at the
    /// last stall (1: the full step; below 1: a kink or jump of the residual lies within the
    /// step; NaN if it did not pass or was not made).
    pub fn model_step_at_stall(&self) -> f64 {
        self.last_model_step
    }
}

/// The result of [`solve_lm`] / [`solve_lbfgs`].
#[derive(Clone, Debug)]
pub struct CollocationResult {
    /// Flat configurations `q₁ … q_T`, then the model parameters if any.
    pub z: Vec<f64>,
    pub eval: Evaluation,
    pub iterations: u64,
    pub converged: bool,
    pub cost_history: Vec<f64>,
    pub defect_history: Vec<f64>,
    pub termination: String,
    /// How the run ended ([`Outcome`]; L-BFGS: `Converged`, `MultipliersExhausted` or
    /// `Running`).
    pub outcome: Outcome,
    /// LM: the scaled gradient ([`LevenbergMarquardt::gtol`]) at the last stall (NaN if none);
    /// L-BFGS: NaN.
    pub optimality: f64,
    /// LM: the model check's gain ratio at the last stall where it was made and the step
    /// fraction where it passed ([`LevenbergMarquardt::model_step_at_stall`]; NaN if none);
    /// L-BFGS: NaN.
    pub model_ratio: f64,
    pub model_step: f64,
    /// LM: converged *and* the first-order test at the converging stall was confirmed by the
    /// model check ([`LevenbergMarquardt::gtol`]): the residual evaluated along the undamped
    /// Gauss–Newton step decreased within `[model_ratio, 1/model_ratio]` of the model's
    /// prediction at a step fraction of at least [`LevenbergMarquardt::model_backoff`]
    /// (`model_ratio`, `model_step` of this result). Not certified: a convergence by the step
    /// test ([`LevenbergMarquardt::xtol`]: the undamped Gauss–Newton step is tiny), or one whose
    /// predicted decrease `½ gᵀ(JᵀJ)⁻¹g` was below 1e-10 of the objective; in both the check is
    /// not made and the first-order claim rests on the linear model alone, which at a kink of
    /// the residual (a Jacobian that is one side's) is not one. E.g. at the Go1's standing guess
    /// with the jump's constraint rows at `ρ` 1e6 the undamped step is 1.2e-9 rad and the
    /// inner solve "converges" by the step test 9.5 cm from feasible. L-BFGS: false.
    pub certified: bool,
}

/// Runs the LM solver through argmin's executor with the given observers attached by `setup`.
pub fn solve_lm(
    problem: Collocation,
    z0: Vec<f64>,
    solver: LevenbergMarquardt,
    max_iters: u64,
    setup: impl FnOnce(
        Executor<Collocation, LevenbergMarquardt, LmState>,
    ) -> Executor<Collocation, LevenbergMarquardt, LmState>,
) -> Result<(Collocation, CollocationResult), Error> {
    let ex = Executor::new(problem, solver).configure(|s| s.param(z0).max_iters(max_iters));
    let res = setup(ex).run()?;
    let termination = res.state().get_termination_status().to_string();
    let iterations = res.state().get_iter();
    let z = res
        .state()
        .get_param()
        .cloned()
        .ok_or_else(|| Error::msg("LM: no result"))?;
    let converged = res.solver().converged();
    let outcome = res.solver().outcome().clone();
    let optimality = res.solver().optimality();
    let model_ratio = res.solver().model_ratio_at_stall();
    let model_step = res.solver().model_step_at_stall();
    let certified = res.solver().certified();
    let cost_history = res.solver().cost_history.clone();
    let defect_history = res.solver().defect_history.clone();
    let problem = res
        .problem
        .get_problem()
        .ok_or_else(|| Error::msg("LM: problem lost"))?;
    let eval = problem.evaluate(&z);
    Ok((
        problem,
        CollocationResult {
            z,
            eval,
            iterations,
            converged,
            cost_history,
            defect_history,
            termination,
            outcome,
            optimality,
            model_ratio,
            model_step,
            certified,
        },
    ))
}

/// The collocation objective on tangent coordinates about a reference trajectory, for argmin's
/// Euclidean solvers (model parameters, if any, are the last `n_p` coordinates, additive):
/// `q = q_ref ⊕ x` with `x = L⁻ᵀ y` when a preconditioner `L` is set (the
/// banded Cholesky factor of `JᵀJ + μI` at `q_ref`), `x = y` otherwise.
///
/// Why the preconditioner: the dynamics rows put `a_t = (q_{t+1} − 2q_t + q_{t−1})/h²` into the
/// residual, so the Hessian's eigenvalues spread like `1/h⁴` (10⁸ at h = 0.01) and L-BFGS on `x`
/// stalls. In `y` the Hessian is `L⁻¹ H L⁻ᵀ ≈ I` near `q_ref`; one banded factorization per
/// augmented-Lagrangian round and two banded triangular solves per evaluation.
pub struct TangentObjective<'a> {
    pub c: &'a Collocation,
    pub zref: Vec<f64>,
    pub precond: Option<Bordered>,
}

impl TangentObjective<'_> {
    /// `x` of `y` (`x = L⁻ᵀ y`).
    pub fn tangent(&self, y: &[f64]) -> Vec<f64> {
        let mut x = y.to_vec();
        if let Some(l) = &self.precond {
            l.solve_upper(&mut x);
        }
        x
    }

    pub fn point(&self, y: &[f64]) -> Vec<f64> {
        self.c.retract(&self.zref, &self.tangent(y), 1.0)
    }

    /// The factor `L` of `JᵀJ + μ·I` at `z` (`None` if it is not positive definite); with
    /// parameters, the bordered factor `[[L_q, 0], [Wᵀ, L_S]]` ([`Bordered::cholesky`]).
    pub fn preconditioner(c: &Collocation, z: &[f64], mu: f64) -> Option<Bordered> {
        let (ev, blocks) = c.jacobian(z);
        let n = c.n_vars();
        let np = c.n_params();
        let mut h = Bordered::zeros(n - np, 3 * c.model.nv - 1, np);
        let mut g = vec![0.0; n];
        c.normal_equations_bordered(&ev, &blocks, &mut h, &mut g);
        for i in 0..n {
            h.add_diag(i, mu);
        }
        h.cholesky().then_some(h)
    }
}

impl CostFunction for TangentObjective<'_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, y: &Vec<f64>) -> Result<f64, Error> {
        Ok(self.c.objective(&self.point(y)))
    }
}

impl Gradient for TangentObjective<'_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, y: &Vec<f64>) -> Result<Vec<f64>, Error> {
        let x = self.tangent(y);
        let z = self.c.retract(&self.zref, &x, 1.0);
        let (ev, blocks) = self.c.jacobian(&z);
        let n = self.c.n_vars();
        let np = self.c.n_params();
        let mut h = Bordered::zeros(n - np, 3 * self.c.model.nv - 1, np);
        let mut g = vec![0.0; n];
        self.c
            .normal_equations_bordered(&ev, &blocks, &mut h, &mut g);
        // Chain rule through the retraction: the local tangent of q_ref ⊕ x moves by Jr(x)·dx
        // for rotations (identity for hinge, slide and free-joint positions).
        let m = &self.c.model;
        let nv = m.nv;
        for t in 0..self.c.horizon {
            for j in 0..m.njnt {
                let va = m.jnt_dofadr[j] + t * nv;
                let off = match m.jnt_type[j] {
                    moreau::model::JointType::Ball => va,
                    moreau::model::JointType::Free => va + 3,
                    _ => continue,
                };
                let w = [x[off], x[off + 1], x[off + 2]];
                let jr = moreau::pipeline::so3_jr(&w);
                let gl = [g[off], g[off + 1], g[off + 2]];
                for (k, gk) in g[off..off + 3].iter_mut().enumerate() {
                    *gk = (0..3).map(|i| jr[i][k] * gl[i]).sum();
                }
            }
        }
        // ∂/∂y = L⁻¹ ∂/∂x.
        if let Some(l) = &self.precond {
            l.solve_lower(&mut g);
        }
        Ok(g)
    }
}

/// Settings of [`solve_lbfgs`].
#[derive(Clone, Debug)]
pub struct LbfgsOptions {
    /// L-BFGS memory.
    pub memory: usize,
    /// Total L-BFGS iterations over all rounds.
    pub max_iters: u64,
    /// Largest dynamics residual accepted at convergence.
    pub defect_tol: f64,
    /// Augmented-Lagrangian rounds (multiplier updates) at most.
    pub max_al_updates: usize,
    /// Precondition by the banded Cholesky factor of `JᵀJ + μI` at the start of each round
    /// (`None`: plain L-BFGS on the tangent coordinates, which stalls on these problems).
    pub precondition: Option<f64>,
    /// Relative objective decrease per round below which the inner problem counts as solved
    /// (then the multipliers are updated, or the solver stops if `|Nᵀτ| ≤ defect_tol`).
    pub tol: f64,
    /// L-BFGS iterations per round at most: the preconditioner is refactored at the current
    /// point after each round (the L-BFGS memory restarts with it).
    pub refresh: u64,
}

impl Default for LbfgsOptions {
    fn default() -> Self {
        LbfgsOptions {
            memory: 10,
            max_iters: 3000,
            defect_tol: 1e-8,
            max_al_updates: 200,
            precondition: Some(1e-6),
            tol: 1e-3,
            refresh: 50,
        }
    }
}

/// L-BFGS (argmin, More–Thuente line search) on the same objective, with the same
/// augmented-Lagrangian multiplier updates: rounds of at most `refresh` iterations, each
/// preconditioned at its starting point as described at [`TangentObjective`]; a round that
/// decreases the objective by less than `tol` (relative) ends the inner problem (multiplier
/// update, or convergence when `|Nᵀτ| ≤ defect_tol`). `on_iter(total iterations, cost,
/// defect)` after each round.
pub fn solve_lbfgs(
    c: &Collocation,
    z0: Vec<f64>,
    opts: &LbfgsOptions,
    mut on_iter: impl FnMut(u64, f64, f64),
) -> Result<CollocationResult, Error> {
    let mut z = z0;
    let mut total = 0;
    let mut cost_history = vec![];
    let mut defect_history = vec![];
    let mut converged = false;
    let mut outcome = Outcome::Running;
    let mut termination;
    let mut al_updates = 0;
    loop {
        let precond = match opts.precondition {
            Some(mu) => Some(
                TangentObjective::preconditioner(c, &z, mu)
                    .ok_or_else(|| Error::msg("L-BFGS: preconditioner not positive definite"))?,
            ),
            None => None,
        };
        let obj = TangentObjective {
            c,
            zref: z.clone(),
            precond: precond.clone(),
        };
        let to_tangent = TangentObjective {
            c,
            zref: vec![],
            precond,
        };
        let f0 = c.objective(&z);
        let ls = MoreThuenteLineSearch::new();
        let solver = LBFGS::new(ls, opts.memory)
            .with_tolerance_grad(1e-9)?
            .with_tolerance_cost(1e-14)?;
        let remaining = opts
            .max_iters
            .saturating_sub(total)
            .clamp(1, opts.refresh.max(1));
        let res = Executor::new(obj, solver)
            .configure(|s| s.param(vec![0.0; c.n_vars()]).max_iters(remaining))
            .run()?;
        let iters = res.state().get_iter();
        termination = res.state().get_termination_status().to_string();
        let y = res
            .state()
            .get_best_param()
            .cloned()
            .ok_or_else(|| Error::msg("L-BFGS: no result"))?;
        let x = to_tangent.tangent(&y);
        z = c.retract(&z, &x, 1.0);
        total += iters;
        let ev = c.evaluate(&z);
        let f1 = 0.5 * ev.r.iter().map(|r| r * r).sum::<f64>();
        cost_history.push(ev.cost());
        defect_history.push(ev.max_defect());
        on_iter(total, ev.cost(), ev.max_defect());
        if total >= opts.max_iters {
            break;
        }
        if f0 - f1 > opts.tol * f0 {
            continue;
        }
        if ev.max_defect() <= opts.defect_tol {
            converged = true;
            outcome = Outcome::Converged;
            break;
        }
        if al_updates >= opts.max_al_updates {
            termination = "multiplier updates exhausted".into();
            outcome = Outcome::MultipliersExhausted;
            break;
        }
        c.update_multipliers(&ev);
        al_updates += 1;
    }
    let eval = c.evaluate(&z);
    Ok(CollocationResult {
        z,
        eval,
        iterations: total,
        converged,
        cost_history,
        defect_history,
        termination,
        outcome,
        optimality: f64::NAN,
        model_ratio: f64::NAN,
        model_step: f64::NAN,
        certified: false,
    })
}
