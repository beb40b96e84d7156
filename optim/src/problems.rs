//! The benchmark problems of `targets.md`, shared by examples and tests: cart-pole and acrobot
//! swing-up (dt 0.01, 200 knots, start hanging, zero-control initial guess, Q = diag(1, 1, 0.1,
//! 0.1), R = 0.01, Qf = diag(1000, 1000, 100, 100)).

use crate::collocation::{Collocation, StateTracking, Weights};
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
