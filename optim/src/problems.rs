//! The benchmark problems of `targets.md`, shared by examples and tests: cart-pole and acrobot
//! swing-up (dt 0.01, 200 knots, start hanging, zero-control initial guess, Q = diag(1, 1, 0.1,
//! 0.1), R = 0.01, Qf = diag(1000, 1000, 100, 100)).

use crate::collocation::{Collocation, FiniteDifference, StateTracking, Weights};
use crate::ilqr::QuadraticCost;
use moreau::Model;
use nalgebra::{DMatrix, DVector};

/// Initial penalty weight of the dynamics residual for [`SwingUp::collocation`] with the LM
/// solver's penalty growth ([`crate::lm::LevenbergMarquardt::penalty_growth`], ×10 when a
/// multiplier update reduces the residual less than 4×). Measured on both swing-ups: weights
/// 0.01…0.05 converge in 35–45 iterations to Crocoddyl's optima (cart-pole 3.208278, acrobot
/// 16.842435); a stiff start (3.0, the former default) takes 57–90 and on the acrobot ends in
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

/// `name` is `cartpole` or `acrobot`; models are read from `models/` of the workspace root.
pub fn swingup(name: &str) -> Result<SwingUp, String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/");
    let (file, q0, name) = match name {
        "cartpole" => (
            "cartpole_swingup.xml",
            vec![0.0, std::f64::consts::PI],
            "cartpole",
        ),
        "acrobot" => ("acrobot.xml", vec![std::f64::consts::PI, 0.0], "acrobot"),
        _ => return Err(format!("unknown problem {name}")),
    };
    let model = moreau::mjcf::load(format!("{root}{file}")).map_err(|e| e.to_string())?;
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
        moreau::integrator::step(m, &mut d);
        qs.push(d.qpos.clone());
        vs.push(d.qvel.clone());
    }
    (qs, vs)
}

/// The trajectory in the JSON format of `moreau simulate` (`time`, `qpos`, `qvel`, `act`), plus
/// `ctrl` (one fewer than the states) and any extra fields.
pub fn trajectory_json(
    dt: f64,
    qpos: &[Vec<f64>],
    qvel: &[Vec<f64>],
    ctrl: &[Vec<f64>],
    extra: serde_json::Value,
) -> serde_json::Value {
    let time: Vec<f64> = (0..qpos.len()).map(|t| t as f64 * dt).collect();
    let mut v = serde_json::json!({
        "time": time, "qpos": qpos, "qvel": qvel,
        "act": vec![Vec::<f64>::new(); qpos.len()],
        "ctrl": ctrl,
    });
    if let (Some(o), serde_json::Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    v
}

/// A collocation problem through contact (seed 000, "Inverse dynamics and optimization": the
/// soft contact model makes the contact forces a function of `(q, v, a)`, so inverse dynamics
/// gives every force and no complementarity constraints are needed) with its initial guess.
pub struct ContactProblem {
    pub name: &'static str,
    pub collocation: Collocation,
    /// Initial guess `q₁ … q_T` (flat).
    pub z0: Vec<f64>,
    /// Controls of the rollout that produced `z0`.
    pub u0: Vec<Vec<f64>>,
}

/// Finite-difference inverse-dynamics Jacobians for contact models (the analytic default's
/// comparison, `--fd`): centered differences with small steps in `v` and `a` too (the soft contact forces are piecewise linear in `v` and `a`, not quadratic,
/// so the default unit step would straddle the kinks of the constraint states).
pub fn contact_provider() -> Box<FiniteDifference> {
    Box::new(FiniteDifference {
        eps: 1e-6,
        eps_va: 1e-6,
        centered: true,
    })
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
///
/// Limitation: converges at T = 30 and 60 knots; at T ≥ 100 the optimal push (nearly linear,
/// falling to 0 at the last knot) is small over the last knots, the finger contact turns
/// inactive there, and Gauss–Newton stalls on that kink of the inverse contact force (the
/// Jacobian check disagrees with finite differences only at those knots). A terminal ball-speed
/// target (to keep the push positive) does not cure it: the optimizer then pulls the finger
/// back at the last knot (u = −0.3 N at T = 60) and stalls on the same kink there.
pub fn ball_push(horizon: usize, distance: f64) -> Result<ContactProblem, String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/");
    let model = moreau::mjcf::load(format!("{root}ball_push.xml")).map_err(|e| e.to_string())?;
    if model.nq != 4 || model.nv != 4 || model.nu != 1 {
        return Err(
            "ball_push.xml: expected joints ball_x, ball_z, ball_rot, finger_x and one motor"
                .into(),
        );
    }
    if horizon < 2 || !distance.is_finite() {
        return Err("ball_push: horizon must be ≥ 2 and distance finite".into());
    }
    // Settle the ball on the floor with the finger 1 m away, then put the finger back.
    let mut d = moreau::Data::new(&model);
    d.qpos[3] = -1.0;
    for _ in 0..100 {
        moreau::integrator::step(&model, &mut d);
    }
    d.qvel.iter_mut().for_each(|v| *v = 0.0);
    d.qpos[3] = 0.0;
    let q0 = d.qpos.clone();
    // Constant-push rollout.
    let dt = model.opt.timestep;
    let tf = horizon as f64 * dt;
    let push = 0.8 * 2.0 * 1.9 * distance / (tf * tf);
    let mut z0 = Vec::with_capacity(horizon * 4);
    let mut u0 = Vec::with_capacity(horizon);
    for _ in 0..horizon {
        d.ctrl[0] = push;
        u0.push(vec![push]);
        moreau::integrator::step(&model, &mut d);
        z0.extend_from_slice(&d.qpos);
    }
    let task = StateTracking {
        qref: vec![distance + q0[0], q0[1], 0.0, 0.0],
        vref: vec![0.0; 4],
        q: vec![0.0; 8],
        qf: vec![1000.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        dt,
    };
    let c = Collocation::new(
        model,
        horizon,
        q0,
        vec![0.0; 4],
        Box::new(task),
        Weights {
            control: vec![0.01],
            dynamics: 3.0,
            limits: 0.0,
        },
    )?;
    Ok(ContactProblem {
        name: "ball push",
        collocation: c,
        z0,
        u0,
    })
}

/// Number of contacts (`ncon`) at each configuration of a trajectory.
pub fn contact_counts(m: &Model, qs: &[Vec<f64>]) -> Vec<usize> {
    let mut d = moreau::Data::new(m);
    qs.iter()
        .map(|q| {
            d.qpos.copy_from_slice(q);
            moreau::forward::fwd_position(m, &mut d);
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
        moreau::state::differentiate_pos(m, &mut e, 1.0, &d.qpos, &plan_q[t]);
        let f = DVector::from_iterator(
            nv,
            (0..nv).map(|i| kp * e[i] + kd * (plan_v[t][i] - d.qvel[i])),
        );
        let fb = &c.b_pinv * f;
        for k in 0..m.nu {
            d.ctrl[k] = u[k] + fb[k];
        }
        moreau::integrator::step(m, &mut d);
        qs.push(d.qpos.clone());
        vs.push(d.qvel.clone());
    }
    (qs, vs)
}
