//! The benchmark problems of docs/optimization.md, shared by the optimizers' examples and
//! tests, the CLI's tests and the Python package's `contact_trajopt`: cart-pole and acrobot
//! swing-up (dt 0.01, 200 knots, start hanging, zero-control initial guess,
//! Q = diag(1, 1, 0.1, 0.1), R = 0.01, Qf = diag(1000, 1000, 100, 100)), contact problems (a
//! hopper hop, a finger pushing a box or a ball) and system-identification problems.
//!
//! The models come from the repository's `models/` folder and are embedded at compile time
//! ([`MODELS`]), so the problems work wherever the binary runs (an installed Python wheel
//! included); the crate is not published.

use moreau::Model;
use moreau_derivatives::FdWorkspace;
use moreau_optim::collocation::{
    Collocation, FiniteDifference, InverseJacobian, StateTracking, Weights,
};
use moreau_optim::estimation::{self, Experiment};
use moreau_optim::ilqr::{ilqr, IlqrOptions, IlqrResult, QuadraticCost};
use moreau_optim::sampling::Gaussian;
use moreau_optim::sysid::{self, Param};
use moreau_optim::system::MoreauSystem;
use nalgebra::{DMatrix, DVector};

/// Initial penalty weight of the dynamics residual for [`SwingUp::collocation`] with the LM
/// solver's penalty growth ([`moreau_optim::lm::LevenbergMarquardt::penalty_growth`], ×10 when a
/// multiplier update reduces the residual less than 4×). Measured on both swing-ups: weights
/// 0.01…0.05 converge in 35–45 iterations to Crocoddyl's optima (cart-pole 3.208278, acrobot
/// 16.842435); a stiff start (3.0) takes 57–90 and on the acrobot ends in
/// the local optimum 28.308 — the soft start lets the trajectory swing through infeasible
/// states before the penalty closes the dynamics.
pub const SWINGUP_PENALTY: f64 = 0.03;

/// A swing-up problem: model, start and the quadratic cost.
pub struct SwingUp {
    pub name: &'static str,
    pub model: Model,
    pub q0: Vec<f64>,
    pub horizon: usize,
    pub q: Vec<f64>,
    pub r: f64,
    pub qf: Vec<f64>,
}

/// `name` is `cartpole` or `acrobot` (models `cartpole_swingup.xml`, `acrobot.xml`).
pub fn swingup(name: &str) -> Result<SwingUp, String> {
    let (file, q0, name) = match name {
        "cartpole" => (
            "cartpole_swingup.xml",
            vec![0.0, std::f64::consts::PI],
            "cartpole",
        ),
        "acrobot" => ("acrobot.xml", vec![std::f64::consts::PI, 0.0], "acrobot"),
        _ => return Err(format!("unknown problem {name}")),
    };
    let model = load_model(file)?;
    Ok(SwingUp {
        name,
        model,
        q0,
        horizon: 200,
        q: vec![1.0, 1.0, 0.1, 0.1],
        r: 0.01,
        qf: vec![1000.0, 1000.0, 100.0, 100.0],
    })
}

impl SwingUp {
    /// Initial state `x₀ = (q₀, 0)`.
    pub fn x0(&self) -> DVector<f64> {
        let mut x = self.q0.clone();
        x.extend(std::iter::repeat_n(0.0, self.model.nv));
        DVector::from_vec(x)
    }

    /// The iLQR cost (state `(q, v)`, reference 0).
    pub fn ilqr_cost(&self) -> QuadraticCost {
        QuadraticCost {
            q: DMatrix::from_diagonal(&DVector::from_vec(self.q.clone())),
            r: DMatrix::from_element(1, 1, self.r),
            qf: DMatrix::from_diagonal(&DVector::from_vec(self.qf.clone())),
            xref: DVector::zeros(2 * self.model.nv),
            dt: self.model.opt.timestep,
        }
    }

    /// iLQR on the engine's step ([`MoreauSystem`], FD transition Jacobians) from `x₀` with zero
    /// initial controls and the default options; returns the system (for replays) and the
    /// result. `on_iter(k, cost)` after each iteration.
    pub fn solve_ilqr(
        &self,
        on_iter: impl FnMut(usize, f64),
    ) -> Result<(MoreauSystem, IlqrResult), String> {
        let mut sys = MoreauSystem::new(self.model.clone())?;
        let r = ilqr(
            &mut sys,
            &self.ilqr_cost(),
            &self.x0(),
            vec![DVector::zeros(self.model.nu); self.horizon],
            &IlqrOptions::default(),
            on_iter,
        )?;
        Ok((sys, r))
    }

    /// The same problem as direct collocation; `dynamics` is the penalty weight of the
    /// unactuated-force residual.
    pub fn collocation(&self, dynamics: f64) -> Result<Collocation, String> {
        let nv = self.model.nv;
        let task = StateTracking {
            qref: vec![0.0; self.model.nq],
            vref: vec![0.0; nv],
            q: self.q.clone(),
            qf: self.qf.clone(),
            dt: self.model.opt.timestep,
        };
        Collocation::new(
            self.model.clone(),
            self.horizon,
            self.q0.clone(),
            vec![0.0; nv],
            Box::new(task),
            Weights {
                control: vec![self.r; self.model.nu],
                dynamics,
                limits: 0.0,
            },
        )
    }
}

/// Re-simulates `controls` from `(q₀, v₀)` with the engine; returns the configurations
/// `q₀ … q_T` and velocities.
pub fn replay(
    m: &Model,
    q0: &[f64],
    v0: &[f64],
    controls: &[Vec<f64>],
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut d = moreau::Data::new(m);
    d.qpos.copy_from_slice(q0);
    d.qvel.copy_from_slice(v0);
    let mut qs = vec![q0.to_vec()];
    let mut vs = vec![v0.to_vec()];
    for u in controls {
        d.ctrl.copy_from_slice(u);
        moreau::step(m, &mut d);
        qs.push(d.qpos.clone());
        vs.push(d.qvel.clone());
    }
    (qs, vs)
}

/// A collocation problem through contact (Computation "Inverse dynamics and optimization": the
/// soft contact model makes the contact forces a function of `(q, v, a)`, so inverse dynamics
/// gives every force and no complementarity constraints are needed) with its initial guess.
pub struct ContactProblem {
    pub name: &'static str,
    pub collocation: Collocation,
    /// Initial guess `q₁ … q_T` (flat).
    pub z0: Vec<f64>,
    /// Controls of the rollout that produced `z0`.
    pub u0: Vec<Vec<f64>>,
    /// Largest unactuated force residual (N) the solver can be asked for
    /// ([`moreau_optim::lm::LevenbergMarquardt::defect_tol`]).
    pub defect_tol: f64,
    /// Growth factor of the dynamics penalty ([`moreau_optim::lm::LevenbergMarquardt::penalty_growth`]):
    /// the sliding box converges only with a fixed penalty (1), the others with the default.
    pub penalty_growth: f64,
    /// The same objective for iLQR through the engine's step (state `(q, v)`): the task's
    /// running and terminal weights and references, control weight 0.01 per actuator.
    pub ilqr_cost: QuadraticCost,
}

impl ContactProblem {
    /// The same problem by iLQR through the engine's step ([`MoreauSystem`], analytic transition
    /// Jacobians, [`ContactProblem::ilqr_cost`]) from `(q0, 0)` under the guess's controls
    /// `u0`, at most `max_iter` iterations; returns the result and its configurations
    /// `q₁ … q_T` flat (the collocation's variables: a rollout, so its dynamics residual is
    /// the engine's constraint-solver tolerance).
    pub fn solve_ilqr(&self, max_iter: usize) -> Result<(IlqrResult, Vec<f64>), String> {
        let c = &self.collocation;
        let (nq, nv) = (c.model.nq, c.model.nv);
        let mut sys = MoreauSystem::new(c.model.clone())?.analytic()?;
        let x0 = DVector::from_iterator(
            nq + nv,
            c.q0.iter().copied().chain(std::iter::repeat_n(0.0, nv)),
        );
        let us = self
            .u0
            .iter()
            .map(|u| DVector::from_vec(u.clone()))
            .collect();
        let opt = IlqrOptions {
            max_iter,
            ..IlqrOptions::default()
        };
        let r = ilqr(&mut sys, &self.ilqr_cost, &x0, us, &opt, |_, _| {})?;
        let z = r.xs[1..]
            .iter()
            .flat_map(|x| x.rows(0, nq).iter().copied().collect::<Vec<_>>())
            .collect();
        Ok((r, z))
    }

    /// Replaces the initial guess by the iLQR solution of [`ContactProblem::solve_ilqr`]
    /// (warm start: a dynamically feasible trajectory near a local optimum of the same
    /// objective) and returns iLQR's result.
    pub fn warm_start_ilqr(&mut self, max_iter: usize) -> Result<IlqrResult, String> {
        let (r, z) = self.solve_ilqr(max_iter)?;
        self.z0 = z;
        self.u0 = r.us.iter().map(|u| u.as_slice().to_vec()).collect();
        Ok(r)
    }

    /// Replaces the initial guess by the plan of a shorter horizon held at its last knot: the
    /// configurations `q₁ … q_K` (`z`, flat, `1 ≤ K ≤` the horizon) and their controls `u`
    /// (`K` of them), then `q_K` and `u_K` repeated to the horizon (the robot standing where
    /// the short plan stops). A motion solved on a short horizon, e.g. the hop at 60 knots,
    /// thus seeds the same task on a long one with the motion already in it; the dynamics
    /// residual of the held knots is the force that holding `q_K` at rest needs beyond the
    /// controls.
    pub fn extend_guess(&mut self, z: &[f64], u: &[Vec<f64>]) -> Result<(), String> {
        let (nq, nu, horizon) = (
            self.collocation.model.nq,
            self.collocation.model.nu,
            self.collocation.horizon,
        );
        let k = z.len() / nq.max(1);
        if nq == 0 || z.len() != k * nq || k == 0 || k > horizon {
            return Err(format!(
                "extend_guess: {} values are not 1 to {horizon} configurations of {nq}",
                z.len()
            ));
        }
        if u.len() != k || u.iter().any(|u| u.len() != nu) {
            return Err(format!(
                "extend_guess: expected {k} controls of {nu} entries, got {}",
                u.len()
            ));
        }
        if z.iter().chain(u.iter().flatten()).any(|x| !x.is_finite()) {
            return Err("extend_guess: the plan is not finite".into());
        }
        let last = z[(k - 1) * nq..].to_vec();
        self.z0 = z.to_vec();
        self.u0 = u.to_vec();
        for _ in k..horizon {
            self.z0.extend_from_slice(&last);
            self.u0.push(u[k - 1].clone());
        }
        Ok(())
    }
}

/// Finite-difference inverse-dynamics Jacobians for contact models (the analytic default's
/// comparison, `--fd`): centered differences with small steps in `v` and `a` too (the soft contact forces are piecewise linear in `v` and `a`, not quadratic,
/// so the default unit step would straddle the kinks of the constraint states).
pub fn contact_provider() -> Box<FiniteDifference> {
    Box::new(FiniteDifference::new(1e-6, 1e-6, true))
}

/// Inverse-dynamics Jacobians that do not straddle jumps: central differences (steps `eps` in
/// `q`, `v` and `a`) except in columns where the forward and backward differences disagree by
/// more than `jump_tol` of their size, where the one-sided difference of smaller norm is taken.
///
/// Why: MuJoCo clamps the impedance at `d ≥ 1e-4`, so a contact row created at `dist = margin`
/// still carries the force `−D(J a − aref)` with `D = d/((1−d) A)` — about 1e-4 of the resting
/// force, 1e-3 N on the hopper. A central difference straddling that jump turns it into a
/// derivative of `1e-3 / 2ε ≈ 500` where the one-sided derivatives are ~0, and Levenberg–
/// Marquardt, which takes that gradient for the truth, stops making progress. Smooth columns
/// (disagreement `≈ ε·τ''`) keep the centered difference.
#[derive(Clone, Debug)]
pub struct JumpSafeDifference {
    pub eps: f64,
    pub jump_tol: f64,
    work: Option<Box<FdWorkspace>>,
}

impl Default for JumpSafeDifference {
    fn default() -> Self {
        JumpSafeDifference {
            eps: 1e-6,
            jump_tol: 1e-2,
            work: None,
        }
    }
}

impl InverseJacobian for JumpSafeDifference {
    fn name(&self) -> &str {
        "finite differences (centered, one-sided at jumps)"
    }

    fn jacobians(
        &mut self,
        m: &Model,
        d: &mut moreau::Data,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        dq: &mut DMatrix<f64>,
        dv: &mut DMatrix<f64>,
        da: &mut DMatrix<f64>,
    ) {
        let (nv, eps) = (m.nv, self.eps);
        // forward differences into the outputs, then backward ones (a negative forward step)
        let fwd =
            FiniteDifference::inverse_jacobians(&mut self.work, m, d, q, v, a, (eps, eps), false);
        fwd.DfDq.transpose_to(dq);
        fwd.DfDv.transpose_to(dv);
        fwd.DfDa.transpose_to(da);
        let steps = (-eps, -eps);
        let bwd = FiniteDifference::inverse_jacobians(&mut self.work, m, d, q, v, a, steps, false);
        // MuJoCo's transposed layout: row j of `bwd` is input j's column
        for (out, back) in [(dq, &bwd.DfDq), (dv, &bwd.DfDv), (da, &bwd.DfDa)] {
            for j in 0..nv {
                let (mut nf, mut nb, mut gap) = (0.0_f64, 0.0_f64, 0.0_f64);
                for i in 0..nv {
                    let (f, b) = (out[(i, j)], back[(j, i)]);
                    nf = nf.max(f.abs());
                    nb = nb.max(b.abs());
                    gap = gap.max((f - b).abs());
                }
                let one_sided = gap > self.jump_tol * nf.max(nb).max(1.0);
                for i in 0..nv {
                    let (f, b) = (out[(i, j)], back[(j, i)]);
                    out[(i, j)] = if !one_sided {
                        0.5 * (f + b)
                    } else if nf <= nb {
                        f
                    } else {
                        b
                    };
                }
            }
        }
    }
}

/// A ball pushed by a finger (`models/ball_push.xml`: MuJoCo's default solref/solimp,
/// pyramidal cone, ball–floor condim 3, the ball rolls without slipping): the actuated finger,
/// touching the resting ball, must bring the ball `distance` m along x at knot `horizon`
/// (dt 0.01). Cost: terminal `½·1000 (ball_x − distance)²`, control `dt·½·0.01 u²`; no running
/// state cost (the optimum pushes throughout: the finger never leaves the ball). The start is the ball
/// settled on the floor (1 s of simulation with the finger away), at rest, the finger
/// overlapping it by 0.5 mm.
///
/// Initial guess: an engine rollout under the constant push that would carry finger and ball
/// (rolling: effective mass `m_f + m_b + I_b/r² = 1.9` kg) 80 % of `distance` — a dynamically
/// feasible trajectory (unactuated residual at the forward solver's tolerance) with both
/// contacts active at every knot.
///
/// Why a rolling ball and not a sliding box: with MuJoCo's soft contacts a *sliding* contact
/// has one pyramid edge inactive, and the active edge's reference acceleration contains
/// `b·μ·v_t`, which pushes the body out of the floor: MuJoCo 4.0.0 itself, pushing a 1 kg box
/// 0.2 m in 0.6 s, has no floor contact at 34 of 60 steps (dt 0.01; about half the steps at
/// dt 0.005 and 0.002 too, either cone: `tools/bench/box_slide_chatter.py`). Each contact
/// creation is a jump of the inverse contact force (the Jacobian check shows finite
/// differences straddling it at exactly those knots, and agreement elsewhere), and Gauss–Newton
/// stalls there. A rolling ball keeps both edges active (sticking), which cancels the term.
/// [`box_push`] slides a box with contact parameters that cure both.
///
/// Limitation: converges at T = 30 and 60 knots; at T ≥ 100 the optimal push (nearly linear,
/// falling to 0 at the last knot) is small over the last knots, the finger contact turns
/// inactive there, and Gauss–Newton stalls on that kink of the inverse contact force (the
/// Jacobian check disagrees with finite differences only at those knots). A terminal ball-speed
/// target (to keep the push positive) does not cure it: the optimizer then pulls the finger
/// back at the last knot (u = −0.3 N at T = 60) and stalls on the same kink there.
pub fn ball_push(horizon: usize, distance: f64) -> Result<ContactProblem, String> {
    let model = load_model("ball_push.xml")?;
    check_dims(
        &model,
        4,
        1,
        "ball_push.xml: expected joints ball_x, ball_z, ball_rot, finger_x and one motor",
    )?;
    check_horizon("ball_push", horizon, 2, distance)?;
    let mut d = settle_finger_away(&model, 3);
    let q0 = d.qpos.clone();
    // Constant-push rollout.
    let tf = horizon as f64 * model.opt.timestep;
    let push = 0.8 * 2.0 * 1.9 * distance / (tf * tf);
    let guess = rollout_guess(&model, &mut d, horizon, |_, _, u| u[0] = push);
    contact_problem(
        "ball push",
        model,
        horizon,
        StateTracking {
            qref: vec![distance + q0[0], q0[1], 0.0, 0.0],
            vref: vec![0.0; 4],
            q: vec![0.0; 8],
            qf: vec![1000.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            dt: 0.0,
        },
        q0,
        guess,
        None,
        1e-8,
        10.0,
    )
}

/// The state of `model` after 100 steps from `qpos = 0` with the finger's slide `finger` at
/// −1 m (the pushed body settles on the floor alone), at rest, the finger put back to 0: the
/// start of [`ball_push`] and [`box_push`].
fn settle_finger_away(model: &Model, finger: usize) -> moreau::Data {
    let mut d = moreau::Data::new(model);
    d.qpos[finger] = -1.0;
    for _ in 0..100 {
        moreau::step(model, &mut d);
    }
    d.qvel.iter_mut().for_each(|v| *v = 0.0);
    d.qpos[finger] = 0.0;
    d
}

/// An engine rollout of `horizon` steps from `d` under `controller(t, d, ctrl)` (which sets
/// the controls of step `t`): the initial guess `z0 = q₁ … q_T` (flat) and its controls.
fn rollout_guess(
    model: &Model,
    d: &mut moreau::Data,
    horizon: usize,
    mut controller: impl FnMut(usize, &moreau::Data, &mut [f64]),
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut z0 = Vec::with_capacity(horizon * model.nq);
    let mut u0 = Vec::with_capacity(horizon);
    let mut u = vec![0.0; model.nu];
    for t in 0..horizon {
        controller(t, d, &mut u);
        d.ctrl.copy_from_slice(&u);
        u0.push(u.clone());
        moreau::step(model, d);
        z0.extend_from_slice(&d.qpos);
    }
    (z0, u0)
}

/// The collocation problem of [`ball_push`], [`hopper_hop`] and [`box_push`]: `task` (its `dt`
/// set to the model's time step) from `(q0, 0)`, control weight 0.01 per actuator, dynamics
/// penalty 3, the initial guess `(z0, u0)` and, if given, the Jacobian provider.
#[allow(clippy::too_many_arguments)]
fn contact_problem(
    name: &'static str,
    model: Model,
    horizon: usize,
    mut task: StateTracking,
    q0: Vec<f64>,
    (z0, u0): (Vec<f64>, Vec<Vec<f64>>),
    provider: Option<Box<dyn InverseJacobian>>,
    defect_tol: f64,
    penalty_growth: f64,
) -> Result<ContactProblem, String> {
    task.dt = model.opt.timestep;
    let (nv, nu) = (model.nv, model.nu);
    let ilqr_cost = QuadraticCost {
        q: DMatrix::from_diagonal(&DVector::from_vec(task.q.clone())),
        r: DMatrix::from_diagonal_element(nu, nu, 0.01),
        qf: DMatrix::from_diagonal(&DVector::from_vec(task.qf.clone())),
        xref: DVector::from_iterator(model.nq + nv, task.qref.iter().chain(&task.vref).copied()),
        dt: task.dt,
    };
    let c = Collocation::new(
        model,
        horizon,
        q0,
        vec![0.0; nv],
        Box::new(task),
        Weights {
            control: vec![0.01; nu],
            dynamics: 3.0,
            limits: 0.0,
        },
    )?;
    if let Some(p) = provider {
        c.set_jacobian_provider(p);
    }
    Ok(ContactProblem {
        name,
        collocation: c,
        z0,
        u0,
        defect_tol,
        penalty_growth,
        ilqr_cost,
    })
}

/// Number of contacts (`ncon`) at each configuration of a trajectory.
pub fn contact_counts(m: &Model, qs: &[Vec<f64>]) -> Vec<usize> {
    let mut d = moreau::Data::new(m);
    qs.iter()
        .map(|q| {
            d.qpos.copy_from_slice(q);
            moreau::pipeline::fwd_position(m, &mut d);
            d.contact.len()
        })
        .collect()
}

/// Largest `|a − b|` over two trajectories of equal shape.
pub fn max_diff(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f64::max)
}

/// Re-simulates the plan of `c` with the engine under the planned controls plus a PD tracking
/// feedback on the actuated directions, `u_t = u_plan,t + B⁺ (kp (q_plan,t ⊖ q_t) +
/// kd (v_plan,t − v_t))` (`kp = kd = 0`: open loop). Returns the configurations `q₀ … q_T` and
/// velocities.
pub fn replay_tracking(
    c: &Collocation,
    plan_q: &[Vec<f64>],
    plan_v: &[Vec<f64>],
    controls: &[Vec<f64>],
    kp: f64,
    kd: f64,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let m = &c.model;
    let nv = m.nv;
    let mut d = moreau::Data::new(m);
    d.qpos.copy_from_slice(&c.q0);
    d.qvel.copy_from_slice(&c.v0);
    let mut qs = vec![c.q0.clone()];
    let mut vs = vec![c.v0.clone()];
    let mut e = vec![0.0; nv];
    for (t, u) in controls.iter().enumerate() {
        moreau::differentiate_pos(m, &mut e, 1.0, &d.qpos, &plan_q[t]);
        let f = DVector::from_iterator(
            nv,
            (0..nv).map(|i| kp * e[i] + kd * (plan_v[t][i] - d.qvel[i])),
        );
        let fb = &c.b_pinv * f;
        for k in 0..m.nu {
            d.ctrl[k] = u[k] + fb[k];
        }
        moreau::step(m, &mut d);
        qs.push(d.qpos.clone());
        vs.push(d.qvel.clone());
    }
    (qs, vs)
}

/// A system-identification benchmark: the nominal model, the parameters to identify, the
/// "true" model the data come from, its parameter values and their names.
pub struct SysidProblem {
    pub nominal: Model,
    pub truth: Model,
    pub params: Vec<Param>,
    pub truth_v: Vec<f64>,
    pub names: Vec<String>,
}

/// Cart-pole masses and joint damping (`models/cartpole_swingup.xml`), true values cart
/// 1.3 kg, pole 0.137 kg, slider damping 0.4, hinge damping 0.02.
pub fn cartpole_sysid() -> Result<SysidProblem, String> {
    let nominal = load_model("cartpole_swingup.xml")?;
    let cart = nominal.body_id("cart").ok_or("cartpole: no cart")?;
    let pole = nominal.body_id("pole").ok_or("cartpole: no pole")?;
    let spec = [
        (Param::Mass { body: cart }, "cart mass", 1.3),
        (Param::Mass { body: pole }, "pole mass", 0.137),
        (Param::Damping { dof: 0 }, "slider damping", 0.4),
        (Param::Damping { dof: 1 }, "hinge damping", 0.02),
    ];
    let mut truth = nominal.clone();
    for (p, _, v) in &spec {
        sysid::set(&mut truth, *p, *v)?;
    }
    Ok(SysidProblem {
        nominal,
        truth,
        params: spec.iter().map(|s| s.0).collect(),
        truth_v: spec.iter().map(|s| s.2).collect(),
        names: spec.iter().map(|s| s.1.to_string()).collect(),
    })
}

impl SysidProblem {
    /// A log of `steps` steps of the true model from `(qpos0, qvel0)` under
    /// [`sysid::excitation`]`(nu, steps, 4, 10, 11)`: the input of [`sysid::fit_rollout`].
    pub fn rollout_log(&self, qpos0: Vec<f64>, qvel0: Vec<f64>, steps: usize) -> sysid::StateLog {
        let log = sysid::StateLog {
            qpos0,
            qvel0,
            ctrl: sysid::excitation(self.nominal.nu, steps, 4.0, 10, 11),
            measured: vec![Vec::new(); steps + 1],
        };
        sysid::StateLog {
            measured: sysid::rollout_states(&self.truth, &log),
            ..log
        }
    }
}

/// The acrobot's ten inertial parameters per link and its two joint dampings
/// (`models/acrobot.xml`, 22 parameters, only combinations identifiable); the true model has
/// link masses 1.2 and 0.8 kg (the other inertial parameters scaled with them) and dampings
/// 0.1 and 0.05.
pub fn acrobot_sysid() -> Result<SysidProblem, String> {
    let nominal = load_model("acrobot.xml")?;
    let mut params = vec![];
    for body in 1..3 {
        for k in 0..10 {
            params.push(Param::Inertial { body, k });
        }
    }
    params.push(Param::Damping { dof: 0 });
    params.push(Param::Damping { dof: 1 });
    let mut truth = nominal.clone();
    sysid::set(&mut truth, Param::Mass { body: 1 }, 1.2)?;
    sysid::set(&mut truth, Param::Mass { body: 2 }, 0.8)?;
    sysid::set(&mut truth, Param::Damping { dof: 0 }, 0.1)?;
    sysid::set(&mut truth, Param::Damping { dof: 1 }, 0.05)?;
    let truth_v = params.iter().map(|p| sysid::get(&truth, *p)).collect();
    let names = params.iter().map(|p| format!("{p:?}")).collect();
    Ok(SysidProblem {
        nominal,
        truth,
        params,
        truth_v,
        names,
    })
}

/// `models/double_pendulum_est.xml` (unactuated, Euler, dt 0.01) released from `q₀ = (0.8,
/// −0.5)` at rest, driven for `steps` steps by known torques `(0.6 sin 2t, 0.4 cos 3t)` N·m;
/// unknowns: the lower link's mass (true 0.8 kg) and the two joints' damping (0.1, 0.05);
/// positions observed with noise `noise` (rad, seed `seed`).
pub fn double_pendulum(steps: usize, noise: f64, seed: u64) -> Result<Experiment, String> {
    let model = load_model("double_pendulum_est.xml")?;
    let lower = model.body_id("lower").ok_or("no body 'lower'")?;
    let params = vec![
        Param::Mass { body: lower },
        Param::Damping { dof: 0 },
        Param::Damping { dof: 1 },
    ];
    let truth = vec![0.8, 0.1, 0.05];
    let h = model.opt.timestep;
    let forces: Vec<Vec<f64>> = (0..steps)
        .map(|t| {
            let s = t as f64 * h;
            vec![0.6 * (2.0 * s).sin(), 0.4 * (3.0 * s).cos()]
        })
        .collect();
    let q0 = vec![0.8, -0.5];
    let v0 = vec![0.0, 0.0];
    let truth_model = sysid::model_with(&model, &params, &truth)?;
    let clean = estimation::simulate(&truth_model, &q0, &v0, &forces);
    let mut g = Gaussian::new(seed);
    let observed = clean
        .iter()
        .map(|q| q.iter().map(|x| x + noise * g.normal()).collect())
        .collect();
    Ok(Experiment {
        model,
        params,
        names: vec!["lower link mass", "shoulder damping", "elbow damping"],
        truth,
        q0,
        v0,
        forces,
        clean,
        observed,
        noise,
    })
}

/// The models the problems use, embedded from the repository's `models/` folder:
/// (file name, MJCF text). None of them reads an asset file.
pub const MODELS: &[(&str, &str)] = &[
    ("acrobot.xml", include_str!("../../models/acrobot.xml")),
    ("ball_push.xml", include_str!("../../models/ball_push.xml")),
    ("box_push.xml", include_str!("../../models/box_push.xml")),
    ("cartpole.xml", include_str!("../../models/cartpole.xml")),
    (
        "cartpole_swingup.xml",
        include_str!("../../models/cartpole_swingup.xml"),
    ),
    (
        "double_pendulum_est.xml",
        include_str!("../../models/double_pendulum_est.xml"),
    ),
    (
        "hopper_hop.xml",
        include_str!("../../models/hopper_hop.xml"),
    ),
    (
        "hopper_leg.xml",
        include_str!("../../models/hopper_leg.xml"),
    ),
    ("quadruped.xml", include_str!("../../models/quadruped.xml")),
];

/// Path of `models/<file>` in the repository this crate was built from (`file` itself if
/// absolute): what a trajectory file written by an example names as its model, for
/// `moreau replay` and the viewer.
pub fn model_path(file: &str) -> String {
    if std::path::Path::new(file).is_absolute() {
        file.to_string()
    } else {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../models/").to_string() + file
    }
}

/// One of the embedded [`MODELS`] by file name; any other name is read as a path
/// ([`model_path`]).
pub fn load_model(file: &str) -> Result<Model, String> {
    match MODELS.iter().find(|(name, _)| *name == file) {
        Some((name, xml)) => {
            moreau::load_from_str(xml, &moreau::Vfs::default()).map_err(|e| format!("{name}: {e}"))
        }
        None => moreau::load(model_path(file)).map_err(|e| e.to_string()),
    }
}

fn check_dims(model: &Model, nq: usize, nu: usize, what: &str) -> Result<(), String> {
    if model.nq != nq || model.nv != nq || model.nu != nu {
        return Err(what.into());
    }
    Ok(())
}

fn check_horizon(name: &str, horizon: usize, min: usize, distance: f64) -> Result<(), String> {
    if horizon < min || !distance.is_finite() {
        return Err(format!(
            "{name}: horizon must be ≥ {min} and distance finite"
        ));
    }
    Ok(())
}

/// Hip and knee angles of the hopper's standing posture (foot under the hip).
const HOP_STANCE: [f64; 2] = [0.5, -1.0];

/// A planar one-legged hopper hopping forward (`models/hopper_hop.xml`: torso on rootx, rootz,
/// rooty, unactuated; actuated hip and knee; a spherical foot, the only colliding geom): from
/// rest, it must end `distance` m further along x at knot `horizon` (dt 0.01), upright and at
/// rest. Cost: terminal `½·1000 (x − x*)²`, `½·10` on the pitch and `½·1` on the velocities,
/// running `dt·½·1` on the pitch (keep the torso upright), control `dt·½·0.01 u²`.
///
/// The foot contact is made continuous at its creation by the model's own parameters (margin
/// 6 mm, solimp `d0 = 1e-4` rising to 0.95 over 5 mm; see the model's comment): with MuJoCo's
/// default solimp the inverse contact force jumps by `−D(J a − aref)` where a row is created,
/// and Gauss–Newton stalls at those knots. MuJoCo's impedance floor `d ≥ 1e-4` leaves a jump
/// of ~1e-3 N (weight 54 N): `defect_tol` is 1e-3 N, and the Jacobians should come from
/// [`JumpSafeDifference`] (central differences that straddle the jump stall the solver).
/// Pyramidal kinks (edges activating at take-off and landing) remain and slow Levenberg–
/// Marquardt down. Variants (`contact_trajopt --model`): the elliptic cone converges in fewer
/// iterations at 60 knots (18) but not at 45 or 150; friction 2 spoils the rollout's hop.
///
/// Initial guess: an engine rollout of a hand-tuned hop controller (crouch, push off with the
/// hip holding the torso pitch, swing the leg back to the stance angles in flight; gains from
/// a random search in MuJoCo 4.0.0, `tools/bench/hopper_hop_search.py`) that hops 0.16 m
/// forward in 0.6 s with 21 knots without contact (a short drop as it crouches, then the hop):
/// dynamically feasible, with every contact
/// transition in it. `horizon` ≥ 40 (the push-off ends at knot 26).
pub fn hopper_hop(
    horizon: usize,
    distance: f64,
    provider: Box<dyn InverseJacobian>,
) -> Result<ContactProblem, String> {
    hopper_hop_on(load_model("hopper_hop.xml")?, horizon, distance, provider)
}

/// [`hopper_hop`] on a variant of `models/hopper_hop.xml` (other contact parameters, cone).
pub fn hopper_hop_on(
    model: Model,
    horizon: usize,
    distance: f64,
    provider: Box<dyn InverseJacobian>,
) -> Result<ContactProblem, String> {
    check_dims(
        &model,
        5,
        2,
        "hopper_hop: expected joints rootx, rootz, rooty, hip, knee and two motors",
    )?;
    check_horizon("hopper_hop", horizon, 40, distance)?;
    let [a, k] = HOP_STANCE;
    // Standing start: foot (radius 0.04) on the floor, joints held by PD for 0.3 s, then the
    // torso reset to x = 0, pitch 0, at rest.
    let mut d = moreau::Data::new(&model);
    d.qpos.copy_from_slice(&[0.0, 0.0, 0.0, a, k]);
    moreau::pipeline::fwd_position(&model, &mut d);
    let foot = model
        .geom_name
        .iter()
        .position(|n| n == "foot")
        .ok_or("hopper_hop.xml: no geom named foot")?;
    d.qpos[1] = 0.04 - d.geom_xpos[foot][2];
    let pd = |d: &moreau::Data, j: usize, target: f64| -> f64 {
        100.0 * (target - d.qpos[j]) - 5.0 * d.qvel[j]
    };
    for _ in 0..30 {
        d.ctrl[0] = pd(&d, 3, a);
        d.ctrl[1] = pd(&d, 4, k);
        moreau::step(&model, &mut d);
    }
    d.qvel.iter_mut().for_each(|v| *v = 0.0);
    d.qpos[0] = 0.0;
    d.qpos[2] = 0.0;
    let q0 = d.qpos.clone();
    // The hop controller: knee PD to a crouch (t < 11), then to an extended knee (t < 26) while
    // the hip holds the torso pitch at a lean; afterwards hip and knee PD to the stance angles.
    let (crouch, push, lean, kpp, kdp) = (0.185, 0.676, -0.237, 59.0, 15.2);
    let guess = rollout_guess(&model, &mut d, horizon, |t, d, u| {
        let knee = if t < 11 {
            -2.0 * (a + crouch)
        } else if t < 26 {
            -push
        } else {
            k
        };
        u[0] = if t < 26 {
            kpp * (d.qpos[2] - lean) + kdp * d.qvel[2]
        } else {
            pd(d, 3, a)
        };
        u[1] = pd(d, 4, knee);
    });
    let mut qref = q0.clone();
    qref[0] += distance;
    contact_problem(
        "hopper hop",
        model,
        horizon,
        StateTracking {
            qref,
            vref: vec![0.0; 5],
            q: vec![0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            qf: vec![1000.0, 0.0, 10.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            dt: 0.0,
        },
        q0,
        guess,
        Some(provider),
        // The force jump where a contact row is created (see `JumpSafeDifference`): ~1e-3 N.
        1e-3,
        10.0,
    )
}

/// The constant push under which the engine carries the box `travel` m along x in `horizon`
/// steps from `d`, found by bisection (the travel grows with the push) below the rigid
/// estimate (finger and box, 1.5 kg, against the sliding friction `μ m g` of the 1 kg box).
/// The rigid push overshoots on long horizons: below its saturation velocity the soft
/// friction is weaker than `μ m g` (the contact's creep), and the box slides further.
/// Measured at 200 knots for 0.16 m: the rigid push carries the box 0.30 m, and Levenberg–
/// Marquardt from that rollout spends 300 iterations at damping λ ≈ 1e4…1e5 without bringing
/// the box back towards the target.
pub fn guess_push(model: &Model, d: &moreau::Data, horizon: usize, travel: f64) -> f64 {
    let g = model.opt.gravity[2].abs();
    let tf = horizon as f64 * model.opt.timestep;
    let rigid = 2.0 * 1.5 * travel / (tf * tf) + 0.3 * 1.0 * g;
    let x0 = d.qpos[0];
    let travel_of = |push: f64| {
        let mut d = d.clone();
        d.ctrl[0] = push;
        for _ in 0..horizon {
            moreau::step(model, &mut d);
        }
        d.qpos[0] - x0
    };
    if travel_of(rigid) <= travel {
        return rigid;
    }
    let (mut lo, mut hi) = (0.0, rigid);
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        if travel_of(mid) > travel {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// A box pushed across the floor by a finger (`models/box_push.xml`: a 1 kg cube on slide x
/// and slide z, sliding with friction 0.3 on four corner contacts, elliptic cone, condim 3;
/// an actuated finger on a horizontal slider touching its face): the box must travel
/// `distance` m along x by knot `horizon` (dt 0.01). Cost: terminal `½·1000 (box_x − x*)²`,
/// control `dt·½·0.01 u²`. No terminal velocity target: with the pyramidal cone, asking the box
/// to stop puts the stick–slip switch of the friction (the edge `n + μt` activating as `v_t → 0`, a
/// kink of the force in `v` with slope `D b μ²`) at the last knots, where Levenberg–Marquardt
/// crawls (measured: 200 multiplier updates without reaching the tolerance at T = 60).
///
/// Contacts made continuous at their creation as in [`hopper_hop`] (margin 0.02, solimp
/// `d0 = 1e-4` rising to 0.95 over 30 mm, power 2; see the model's comment): this also cures
/// the sliding box of MuJoCo's default contact parameters, which loses floor contact at about
/// half the steps (see [`ball_push`]): the lift of the sliding contact's reference
/// acceleration (`b·μ·v_t`) now raises the box only within the margin (measured in MuJoCo
/// 4.0.0: the box rests 14 mm above the floor, inside the margin, and rises to 16 mm sliding
/// at 2 m/s, 18 mm with the pyramidal cone; the four floor contacts stay at every step). The
/// elliptic cone converges at 60 and 100 knots, the pyramidal one (16 edges switching one by
/// one) only at 60. No contact is created or removed along the plan, so the residual
/// converges to 1e-8 N here (`defect_tol`), unlike the hopper's.
///
/// The finger starts 19 mm from the box, 1 mm inside the contact margin (force ~1e-5 N):
/// starting it overlapping the box kicks the box at the first knot.
///
/// Initial guess: an engine rollout under the constant push that carries the box 80 % of
/// `distance` ([`guess_push`]).
pub fn box_push(
    horizon: usize,
    distance: f64,
    provider: Box<dyn InverseJacobian>,
) -> Result<ContactProblem, String> {
    box_push_on(load_model("box_push.xml")?, horizon, distance, provider)
}

/// [`box_push`] on a variant of `models/box_push.xml` (other contact parameters, cone).
pub fn box_push_on(
    model: Model,
    horizon: usize,
    distance: f64,
    provider: Box<dyn InverseJacobian>,
) -> Result<ContactProblem, String> {
    check_dims(
        &model,
        3,
        1,
        "box_push: expected joints box_x, box_z, finger_x and one motor",
    )?;
    check_horizon("box_push", horizon, 2, distance)?;
    let mut d = settle_finger_away(&model, 2);
    let q0 = d.qpos.clone();
    let push = guess_push(&model, &d, horizon, 0.8 * distance);
    let guess = rollout_guess(&model, &mut d, horizon, |_, _, u| u[0] = push);
    contact_problem(
        "box push",
        model,
        horizon,
        StateTracking {
            qref: vec![distance + q0[0], q0[1], 0.0],
            vref: vec![0.0; 3],
            q: vec![0.0; 6],
            qf: vec![1000.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            dt: 0.0,
        },
        q0,
        guess,
        Some(provider),
        1e-8,
        1.0,
    )
}
