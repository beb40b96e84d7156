//! Humanoid MPC setup shared by `examples/mpc_humanoid.rs` and
//! `optim/tests/optim/humanoid_mpc.rs`: the dm_control humanoid (`suite/humanoid.xml` of the
//! public zoo, loaded unchanged: 21 torque motors, 27 dofs, 5 ms steps) standing, its feet
//! set on the floor, and balancing under lateral pushes on the torso, by receding-horizon iLQR
//! (analytic transition Jacobians, control-limited by `ctrlrange`, warm-started) on a quadratic
//! cost around the standing pose: torso height and orientation, the torso's horizontal place,
//! joints near the pose, small velocities and torques. The closed loops and the run's measures
//! are the shared legged-MPC driver's (`legged_mpc.rs`).

// the optim test binary includes every setup, so the driver more than once
#[path = "legged_mpc.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod legged;

use legged::planning_model;
pub use legged::Run;
use moreau::{Data, Model};
use moreau_optim::mpc::{ctrl_bounds, MpcOptions, Push};
use moreau_optim::statecost::DiagonalCost;

/// Plant steps (the model's 5 ms) per control step.
pub const SUBSTEPS: usize = 2;

/// Planner and scenario settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Simulated seconds.
    pub seconds: f64,
    /// Time step of the planning model (the plant keeps the model's 5 ms).
    pub plan_dt: f64,
    /// Planning horizon in planning steps.
    pub horizon: usize,
    /// iLQR iterations per control step (first control step: `first_iter`).
    pub iter: usize,
    pub first_iter: usize,
    /// Lateral pushes on the torso: `(start s, force N along y, duration s)`, the force on the
    /// first plant step of every control step in the interval (impulse `force · 5 ms` each).
    pub pushes: Vec<(f64, f64, f64)>,
}

impl Settings {
    /// The example: 5 s standing, pushed sideways at 1 s and 3 s.
    pub fn example() -> Self {
        Settings {
            seconds: 5.0,
            plan_dt: 0.01,
            horizon: 30,
            iter: 1,
            first_iter: 10,
            pushes: vec![(1.0, 300.0, 0.05), (3.0, -300.0, 0.05)],
        }
    }
}

/// The plant model, the zoo's dm_control humanoid (run `tools/zoo/fetch.py` first; the example
/// does).
pub fn model() -> Result<Model, String> {
    moreau_optim::zoo::load(moreau_optim::zoo::HUMANOID)
}

/// Torso height below which the humanoid counts as fallen (standing: about 1.28 m).
pub const FALL_Z: f64 = 0.9;

/// The plant's initial state: `qpos0` (upright, legs straight) lowered until the lowest point
/// of its geoms touches the floor (z = 0), at rest.
pub fn initial(m: &Model) -> Result<Data, String> {
    let mut d = Data::new(m);
    moreau::forward(m, &mut d);
    // the lowest point of every geom but the floor (capsules and spheres: center − radius
    // along z; capsule end points from the geom frame's z axis)
    let mut low = f64::INFINITY;
    for g in 0..m.ngeom {
        if m.geom_bodyid[g] == 0 {
            continue;
        }
        let p = d.geom_xpos[g];
        let r = m.geom_size[g][0];
        let half = match m.geom_type[g] {
            moreau::model::GeomType::Capsule => m.geom_size[g][1],
            _ => 0.0,
        };
        let axis_z: f64 = d.geom_xmat[g][(2, 2)];
        low = low.min(p.z - half * axis_z.abs() - r);
    }
    if !low.is_finite() {
        return Err("humanoid: no geoms".into());
    }
    d.qpos[2] -= low;
    moreau::forward(m, &mut d);
    Ok(d)
}

/// The quadratic cost around the standing pose `q_stand`.
pub fn cost(m: &Model, q_stand: &[f64], horizon_secs: f64) -> Result<DiagonalCost, String> {
    let (nq, nv) = (m.nq, m.nv);
    let mut xref = vec![0.0; nq + nv + m.na];
    xref[..nq].copy_from_slice(q_stand);
    let mut c = DiagonalCost::new(m, xref)?;
    // position tangent: torso x, y (over the feet), height; roll, pitch, yaw; joints
    c.q[..6].copy_from_slice(&[30.0, 30.0, 300.0, 100.0, 100.0, 3.0]);
    for w in &mut c.q[6..nv] {
        *w = 1.0;
    }
    // velocity tangent: the torso's, the joints'
    for w in &mut c.q[nv..nv + 6] {
        *w = 3.0;
    }
    for w in &mut c.q[nv + 6..2 * nv] {
        *w = 0.03;
    }
    for w in &mut c.r {
        *w = 0.1;
    }
    c.terminal = 0.3 * horizon_secs;
    Ok(c)
}

/// Control step of the plant, seconds.
pub fn control_dt(m: &Model) -> f64 {
    SUBSTEPS as f64 * m.opt.timestep
}

/// The pushes of `s` as body wrenches on the torso, one per control step of each push.
pub fn pushes(m: &Model, s: &Settings) -> Result<Vec<Push>, String> {
    let torso = m.body_id("torso").ok_or("humanoid: no torso body")?;
    let dt = control_dt(m);
    let mut out = vec![];
    for &(t, f, dur) in &s.pushes {
        let (k0, n) = (
            (t / dt).round() as usize,
            (dur / dt).round().max(1.0) as usize,
        );
        for k in k0..k0 + n {
            out.push(Push::Body {
                step: k,
                body: torso,
                wrench: [0.0, f, 0.0, 0.0, 0.0, 0.0],
            });
        }
    }
    Ok(out)
}

/// The impulse of each push of `s` on the plant (N·s).
pub fn impulses(m: &Model, s: &Settings) -> Vec<f64> {
    let dt = control_dt(m);
    s.pushes
        .iter()
        .map(|&(_, f, dur)| f * m.opt.timestep * (dur / dt).round().max(1.0))
        .collect()
}

/// Receding-horizon iLQR (control-limited by `ctrlrange`, warm-started) on the planning model
/// with analytic (`analytic`) or `mjd_transitionFD` transition Jacobians.
pub fn run_ilqr(
    m: &Model,
    s: &Settings,
    analytic: bool,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let d0 = initial(m)?;
    let pm = planning_model(m, s.plan_dt);
    let c = cost(&pm, &d0.qpos, s.horizon as f64 * s.plan_dt)?;
    let shift = (control_dt(m) / s.plan_dt).round().max(1.0) as usize;
    let (ctrl_box, nu) = (ctrl_bounds(&pm), pm.nu);
    let sys = legged::system(pm, analytic)?;
    let opt = MpcOptions {
        horizon: s.horizon,
        iter: s.iter,
        first_iter: s.first_iter,
        bounds: Some(ctrl_box),
    };
    let steps = (s.seconds / control_dt(m)).round() as usize;
    legged::ilqr(
        m,
        d0,
        steps,
        SUBSTEPS,
        &pushes(m, s)?,
        sys,
        nu,
        c.quadratic(s.plan_dt),
        opt,
        shift,
        |_, u| u.to_vec(),
        on_step,
    )
}

/// The baseline: the same closed loop with zero torques (the joints' springs and damping
/// alone), which falls.
pub fn run_zero(m: &Model, s: &Settings, on_step: impl FnMut(usize, &Data)) -> Result<Run, String> {
    let steps = (s.seconds / control_dt(m)).round() as usize;
    let zero = vec![0.0; m.nu];
    legged::drive(
        m,
        initial(m)?,
        steps,
        SUBSTEPS,
        &pushes(m, s)?,
        |_| Ok((zero.clone(), 0.0)),
        on_step,
    )
}

/// The torso's largest horizontal distance from its start over the run (m): a push the
/// controller does not stop carries the humanoid sideways, upright at first.
pub fn drift(r: &Run) -> f64 {
    let q0 = &r.closed.qpos[0];
    r.closed
        .qpos
        .iter()
        .map(|q| (q[0] - q0[0]).hypot(q[1] - q0[1]))
        .fold(0.0, f64::max)
}
