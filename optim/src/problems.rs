//! The benchmark problems of `targets.md`, shared by examples and tests: cart-pole and acrobot
//! swing-up (dt 0.01, 200 knots, start hanging, zero-control initial guess, Q = diag(1, 1, 0.1,
//! 0.1), R = 0.01, Qf = diag(1000, 1000, 100, 100)).

use crate::collocation::{Collocation, FiniteDifference, StateTracking, Weights};
use crate::ilqr::QuadraticCost;
use moreau::Model;
use nalgebra::{DMatrix, DVector};

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
/// soft contact model makes the contact forces a function of `(q, v, a)`, so no complementarity
/// constraints are needed) with its simple initial guess `z0`.
pub struct ContactProblem {
    pub name: &'static str,
    pub collocation: Collocation,
    pub z0: Vec<f64>,
}

/// Runs `steps` engine steps from `q` at rest under `ctrl(qpos, qvel)`; returns the final qpos.
fn settle(
    m: &Model,
    q: &[f64],
    steps: usize,
    ctrl: impl Fn(&[f64], &[f64], &mut [f64]),
) -> Vec<f64> {
    let mut d = moreau::Data::new(m);
    d.qpos.copy_from_slice(q);
    let mut u = vec![0.0; m.nu];
    for _ in 0..steps {
        ctrl(&d.qpos, &d.qvel, &mut u);
        d.ctrl.copy_from_slice(&u);
        moreau::integrator::step(m, &mut d);
    }
    d.qpos.clone()
}

/// `0` before `a`, `1` after `b`, a cubic smoothstep in between.
fn smoothstep(x: f64, a: f64, b: f64) -> f64 {
    let s = ((x - a) / (b - a)).clamp(0.0, 1.0);
    s * s * (3.0 - 2.0 * s)
}

/// Inverse-dynamics Jacobians for contact models: centered differences with small steps in
/// `v` and `a` too (the soft contact forces are piecewise linear in `v` and `a`, not quadratic).
fn contact_provider() -> Box<FiniteDifference> {
    Box::new(FiniteDifference {
        eps: 1e-6,
        eps_va: 1e-5,
        centered: true,
    })
}

/// Box pushing (`models/box_push.xml`): the finger, 1 cm behind the resting box, must push the
/// box `distance` m along x within `horizon` knots (dt 0.01) and bring it to rest. Cost:
/// running `dt·10·(finger_z − z₀)²/2`, terminal `½·1000 (box_x − distance)² + ½·100 box_vx² +
/// ½·10 (finger velocity)²`, control `dt·½·0.01‖u‖²`. The start is the box settled on the
/// floor (2 s of simulation with the finger held against gravity). Initial guess: box and
/// finger translated together by a smoothstep from knot `T/10` to `9T/10`, the finger pressed
/// 2 mm into the box.
pub fn box_push(horizon: usize, distance: f64) -> Result<ContactProblem, String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/");
    let model =
        moreau::mjcf::load(format!("{root}box_push.xml")).map_err(|e| e.to_string())?;
    if model.nq != 4 || model.nu != 2 {
        return Err("box_push.xml: expected 4 slide joints and 2 motors".into());
    }
    let finger = model.body_id("finger").ok_or("box_push.xml: no finger body")?;
    let g = model.opt.gravity[2].abs();
    let hold = model.body_mass[finger] * g;
    let q0 = settle(&model, &[0.0; 4], 200, |_, _, u| {
        u[0] = 0.0;
        u[1] = hold;
    });
    let dt = model.opt.timestep;
    let task = StateTracking {
        qref: vec![distance, q0[1], q0[2] + distance, q0[3]],
        vref: vec![0.0; 4],
        q: vec![0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0, 0.0],
        qf: vec![1000.0, 0.0, 0.0, 0.0, 100.0, 0.0, 10.0, 10.0],
        dt,
    };
    let c = Collocation::new(
        model,
        horizon,
        q0.clone(),
        vec![0.0; 4],
        Box::new(task),
        Weights {
            control: vec![0.01, 0.01],
            dynamics: 3.0,
            limits: 0.0,
        },
    )?;
    c.set_jacobian_provider(contact_provider());
    let tf = horizon as f64;
    let mut z0 = Vec::with_capacity(horizon * 4);
    for t in 1..=horizon {
        let x = t as f64;
        let s = smoothstep(x, 0.1 * tf, 0.9 * tf);
        let approach = 0.012 * (x / (0.1 * tf)).min(1.0);
        z0.extend_from_slice(&[
            q0[0] + distance * s,
            q0[1],
            q0[2] + approach + distance * s,
            q0[3],
        ]);
    }
    Ok(ContactProblem {
        name: "box push",
        collocation: c,
        z0,
    })
}

/// A planar hop (`models/pogo_hopper.xml`): from standing at rest, travel `distance` m along x
/// within `horizon` knots (dt 0.01) and stand still at the end; the only way forward is to
/// lift the foot. Cost: running `dt·½(10 pitch² + 10 hip² + knee²)`, terminal `½·1000 (x −
/// distance)² + ½·100 ((z − z₀)² + pitch²) + ½·10 (hip² + knee² + ‖v‖²)`, control
/// `dt·½(0.01 u_hip² + 0.001 u_knee²)`. The start is the hopper settled on its foot (2 s of
/// simulation with a PD on the knee). Initial guess: the torso translated by a smoothstep from
/// knot `T/5` to `4T/5` with a 10 cm parabolic bump in height, joints as at the start.
pub fn hopper(horizon: usize, distance: f64) -> Result<ContactProblem, String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../models/");
    let model =
        moreau::mjcf::load(format!("{root}pogo_hopper.xml")).map_err(|e| e.to_string())?;
    if model.nq != 5 || model.nu != 2 {
        return Err("pogo_hopper.xml: expected 5 joints and 2 motors".into());
    }
    let q0 = settle(&model, &[0.0; 5], 200, |q, v, u| {
        u[0] = -100.0 * q[3] - 10.0 * v[3];
        u[1] = -2000.0 * q[4] - 100.0 * v[4];
    });
    let dt = model.opt.timestep;
    let task = StateTracking {
        qref: vec![distance, q0[1], 0.0, 0.0, 0.0],
        vref: vec![0.0; 5],
        q: vec![0.0, 0.0, 10.0, 10.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        qf: vec![1000.0, 100.0, 100.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0],
        dt,
    };
    let c = Collocation::new(
        model,
        horizon,
        q0.clone(),
        vec![0.0; 5],
        Box::new(task),
        Weights {
            control: vec![0.01, 0.001],
            dynamics: 3.0,
            limits: 0.0,
        },
    )?;
    c.set_jacobian_provider(contact_provider());
    let tf = horizon as f64;
    let mut z0 = Vec::with_capacity(horizon * 5);
    for t in 1..=horizon {
        let s = smoothstep(t as f64, 0.2 * tf, 0.8 * tf);
        let mut q = q0.clone();
        q[0] += distance * s;
        q[1] += 0.4 * s * (1.0 - s);
        z0.extend_from_slice(&q);
    }
    Ok(ContactProblem {
        name: "hopper",
        collocation: c,
        z0,
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
