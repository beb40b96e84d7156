//! Hopper MPC setup shared by `examples/mpc_hopper.rs` and the tests `optim/tests/optim/mpc_limits.rs`
//! and `optim/tests/optim/hopper_mpc.rs`: the planar hopper leg (`models/hopper_leg.xml`, standing
//! keyframe at rest; rootx, rootz, rooty, thigh, leg, foot; three motors, ctrlrange ±1) kept
//! standing, moving forward at `vx`, under pushes on the torso, by receding-horizon iLQR on a
//! diagonal cost around the standing pose.

#![allow(dead_code)]

use moreau::{Data, Model};
use moreau_optim::ilqr::{Dynamics, QuadraticCost};
use moreau_optim::mpc::{closed_loop, ctrl_bounds, ClosedLoop, IlqrMpc, MpcOptions, Push};
use moreau_optim::system::MoreauSystem;
use nalgebra::{DMatrix, DVector};

/// Plant steps (4 ms) per control step.
pub const SUBSTEPS: usize = 5;

/// `models/hopper_leg.xml`.
pub fn model() -> Result<Model, String> {
    moreau_problems::load_model("hopper_leg.xml")
}

/// The plant's initial state: the `stand` keyframe at rest (its `qvel` zeroed).
pub fn initial(m: &Model) -> Result<Data, String> {
    let key = m.key_id("stand").ok_or("hopper_leg: no stand keyframe")?;
    let mut d = Data::new(m);
    d.reset_keyframe(m, key)?;
    d.qvel.iter_mut().for_each(|v| *v = 0.0);
    Ok(d)
}

/// Control steps of `secs` simulated seconds on the plant `m`.
pub fn control_steps(m: &Model, secs: f64) -> usize {
    (secs / (m.opt.timestep * SUBSTEPS as f64)).round() as usize
}

/// ±150 N for one plant step on the torso (alternating sign) every 50 control steps from the
/// 25th, over `steps` control steps.
pub fn pushes(m: &Model, steps: usize) -> Result<Vec<Push>, String> {
    pushes_scaled(m, steps, 1.0)
}

/// [`pushes`] with the force scaled by `scale`.
pub fn pushes_scaled(m: &Model, steps: usize, scale: f64) -> Result<Vec<Push>, String> {
    let f = 150.0 * scale;
    let torso = m.body_id("torso").ok_or("hopper_leg: no torso")?;
    Ok((25..steps)
        .step_by(50)
        .enumerate()
        .map(|(i, k)| Push::Body {
            step: k,
            body: torso,
            wrench: [if i % 2 == 0 { f } else { -f }, 0.0, 0.0, 0.0, 0.0, 0.0],
        })
        .collect())
}

/// The standing cost on `x = (qpos, qvel)`: torso height 100, pitch 10, joint angles 1 around
/// `q_stand`, velocities 0.01 except the forward one (`wvx`, target `vx`); controls 0.01;
/// terminal 0.1 × the stage weights; `dt` = `m`'s time step.
pub fn cost(m: &Model, q_stand: &[f64], vx: f64, wvx: f64) -> QuadraticCost {
    let nx = 2 * m.nv;
    let mut q = vec![0.0; nx];
    q[1] = 100.0; // torso height
    q[2] = 10.0; // pitch
    for qi in q.iter_mut().take(6).skip(3) {
        *qi = 1.0;
    }
    for qi in q.iter_mut().skip(6) {
        *qi = 0.01;
    }
    q[6] = wvx;
    let mut xref = DVector::zeros(nx);
    xref.rows_mut(0, 6).copy_from_slice(q_stand);
    xref[6] = vx;
    QuadraticCost {
        q: DMatrix::from_diagonal(&DVector::from_vec(q.clone())),
        r: DMatrix::identity(m.nu, m.nu) * 0.01,
        qf: DMatrix::from_diagonal(&DVector::from_vec(q)) * 0.1,
        xref,
        dt: m.opt.timestep,
    }
}

/// The standing iLQR MPC: [`cost`] with a light forward-velocity weight (0.1: heavier ones make
/// the 0.2 s horizon lean the torso forward until it falls; 0.2 at 0.3 m/s falls within 5 s),
/// 50 plant steps of horizon, one iteration per control step (five at the first), within
/// `ctrlrange` when `bounded`.
pub fn standing_ilqr(m: &Model, q_stand: &[f64], vx: f64, bounded: bool) -> IlqrMpc {
    IlqrMpc::new(
        m.nu,
        cost(m, q_stand, vx, 0.1),
        MpcOptions {
            horizon: 50,
            iter: 1,
            first_iter: 5,
            bounds: bounded.then(|| ctrl_bounds(m)),
        },
    )
}

/// Settings of the forward-moving iLQR MPC ([`forward_ilqr`]).
#[derive(Clone, Debug)]
pub struct Forward {
    /// Time step of the planning model (the plant keeps 4 ms).
    pub plan_dt: f64,
    /// Horizon in planning steps.
    pub horizon: usize,
    /// Weights of the forward velocity, the pitch and the torso height.
    pub wvx: f64,
    pub wpitch: f64,
    pub wz: f64,
    /// Weight of the thigh and leg angles (the crouch).
    pub wjoint: f64,
    /// Terminal weights = `terminal` × stage weights.
    pub terminal: f64,
    /// iLQR iterations per control step (at most).
    pub iter: usize,
    /// Early exit of each solve ([`IlqrMpc::tol`]).
    pub tol: f64,
    /// Analytic transition Jacobians (`MoreauSystem::analytic`) instead of FD.
    pub analytic: bool,
}

impl Forward {
    /// The example's settings: analytic Jacobians (≈4× cheaper per control step than FD here)
    /// on a 20 ms planning model over 0.8 s, a heavy torso-height (1000) and thigh/leg-angle
    /// (100) weight against the crouch, pitch 30, terminal weights = stage weights, forward
    /// velocity 15, and every solve run to convergence: up to 5 iLQR iterations per control
    /// step, stopping when one lowers the cost by less than 1e-3 relative.
    ///
    /// Why converged solves: with one iteration per control step the
    /// applied control is an unconverged iterate whose value depends on the whole history of
    /// warm starts and accepted line-search steps, so the closed loop is chaotic in the
    /// planner's state, and the cost has a second branch (lean forward, gaining forward velocity
    /// within the horizon, and tip over) that some of these histories drift into: 1e-12
    /// relative changes of `A`, `B` ([`JacobianNoise`], as an engine change's round-off makes)
    /// or ±10% pushes flipped it between standing (+0.05–0.13 m, rootz ≈ −0.06) and lying
    /// (rootz ≈ −0.92, pitch ≈ 93°), 4 of 8 [`variants`] falling. Solved to convergence, the
    /// control is (near) a function of the measured state alone: all 8 variants stand and
    /// agree to 4 mm, with these analytic Jacobians and with FD ones
    /// (`mpc_hopper --robust`; docs/optimization.md). The velocity weight keeps a margin below the
    /// falling branch: at 20 one variant (pushes ×0.9) fell with FD Jacobians, at 30
    /// the converged optimum itself leans into the fall in some, at 60 in all.
    pub fn example() -> Self {
        Forward {
            plan_dt: 0.02,
            horizon: 40,
            wvx: 15.0,
            wpitch: 30.0,
            wz: 1000.0,
            wjoint: 100.0,
            terminal: 1.0,
            iter: 5,
            tol: 1e-3,
            analytic: true,
        }
    }

    /// The former settings (FD Jacobians, one iteration per control step).
    pub fn previous() -> Self {
        Forward {
            plan_dt: 0.01,
            horizon: 80,
            wvx: 1.0,
            wpitch: 10.0,
            wz: 100.0,
            wjoint: 1.0,
            terminal: 0.1,
            iter: 1,
            tol: 0.0,
            analytic: false,
        }
    }
}

/// The forward-moving iLQR MPC on the planning model `pm` (time step `f.plan_dt`): [`cost`]
/// with `f`'s weights, control-limited.
pub fn forward_ilqr(pm: &Model, q_stand: &[f64], vx: f64, f: &Forward) -> IlqrMpc {
    let mut c = cost(pm, q_stand, vx, f.wvx);
    c.q[(2, 2)] = f.wpitch;
    c.q[(1, 1)] = f.wz;
    c.q[(3, 3)] = f.wjoint;
    c.q[(4, 4)] = f.wjoint;
    c.qf = &c.q * f.terminal;
    let mut mpc = IlqrMpc::new(
        pm.nu,
        c,
        MpcOptions {
            horizon: f.horizon,
            iter: f.iter,
            first_iter: 5,
            bounds: Some(ctrl_bounds(pm)),
        },
    );
    mpc.tol = f.tol;
    mpc
}

/// A test knob emulating round-off in the linearization: every entry of `A` and `B` is
/// multiplied by `1 + rel·r` with `r ∈ [−1, 1)` a fixed pseudo-random function of the entry,
/// the Jacobian call's index and `seed` (deterministic).
#[derive(Clone, Copy, Debug)]
pub struct JacobianNoise {
    pub rel: f64,
    pub seed: u64,
}

/// `inner` with [`JacobianNoise`] on its Jacobians (none: `inner` unchanged).
pub struct Perturbed<D> {
    pub inner: D,
    pub noise: Option<JacobianNoise>,
    calls: u64,
}

impl<D> Perturbed<D> {
    pub fn new(inner: D, noise: Option<JacobianNoise>) -> Self {
        Perturbed {
            inner,
            noise,
            calls: 0,
        }
    }
}

/// SplitMix64 finalizer: a fixed hash of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl<D: Dynamics> Dynamics for Perturbed<D> {
    fn nx(&self) -> usize {
        self.inner.nx()
    }
    fn ndx(&self) -> usize {
        self.inner.ndx()
    }
    fn nu(&self) -> usize {
        self.inner.nu()
    }
    fn step(&mut self, x: &[f64], u: &[f64], xnext: &mut [f64]) -> Result<(), String> {
        self.inner.step(x, u, xnext)
    }
    fn diff(&self, x0: &[f64], x: &[f64], dx: &mut [f64]) {
        self.inner.diff(x0, x, dx)
    }
    fn integrate(&self, x0: &[f64], dx: &[f64], x: &mut [f64]) {
        self.inner.integrate(x0, dx, x)
    }
    fn jacobians(
        &mut self,
        x: &[f64],
        u: &[f64],
        a: &mut DMatrix<f64>,
        b: &mut DMatrix<f64>,
    ) -> Result<(), String> {
        self.inner.jacobians(x, u, a, b)?;
        let Some(n) = self.noise else { return Ok(()) };
        let base = mix(n.seed ^ mix(self.calls));
        self.calls += 1;
        for (k, v) in a.iter_mut().chain(b.iter_mut()).enumerate() {
            let r = (mix(base ^ k as u64) >> 11) as f64 / (1u64 << 52) as f64 - 1.0;
            *v *= 1.0 + n.rel * r;
        }
        Ok(())
    }
}

/// A closed loop and the planner's cost before / after each solve.
pub struct Run {
    pub closed: ClosedLoop,
    pub costs: Vec<(f64, f64)>,
    /// Planning stages linearized by central differences because the Jacobians were not
    /// finite ([`IlqrMpc::jacobian_fallbacks`]).
    pub jacobian_fallbacks: usize,
}

impl Run {
    /// Forward (x) distance of the torso.
    pub fn distance(&self) -> f64 {
        self.closed.displacement(0)
    }
    /// Lowest torso height `rootz` over the run (standing: −0.052).
    pub fn min_z(&self) -> f64 {
        self.closed.min_qpos(1)
    }
    /// Largest |pitch| (rad).
    pub fn max_pitch(&self) -> f64 {
        self.closed.max_abs_qpos(2)
    }
}

/// Receding-horizon iLQR on the planning model (the plant's with time step `plan_dt`),
/// re-planned every control step (warm start shifted by a control step's worth of planning
/// steps), driving the plant `m` from [`initial`] for `steps` control steps under `pushes`.
/// `clamp`: the applied control is clamped into `ctrlrange` (for a planner without bounds);
/// `noise`: [`JacobianNoise`] on the planner's linearization (a test knob).
#[allow(clippy::too_many_arguments)]
pub fn run_ilqr(
    m: &Model,
    plan_dt: f64,
    analytic: bool,
    mut mpc: IlqrMpc,
    clamp: bool,
    steps: usize,
    pushes: &[Push],
    noise: Option<JacobianNoise>,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let mut pm = m.clone();
    pm.opt.timestep = plan_dt;
    let shift = ((m.opt.timestep * SUBSTEPS as f64 / plan_dt).round() as usize).max(1);
    let mut sys = MoreauSystem::new(pm)?;
    if analytic {
        sys = sys.analytic()?;
    }
    let mut sys = Perturbed::new(sys, noise);
    let (lo, hi) = ctrl_bounds(m);
    let mut costs = vec![];
    let mut d = initial(m)?;
    let closed = closed_loop(
        m,
        &mut d,
        steps,
        SUBSTEPS,
        pushes,
        |d| {
            let mut u = mpc.control(&mut sys, d, shift)?;
            costs.push(mpc.last_costs());
            if clamp {
                for (i, ui) in u.iter_mut().enumerate() {
                    *ui = ui.clamp(lo[i], hi[i]);
                }
            }
            Ok(u)
        },
        on_step,
    )?;
    let mut closed = closed;
    closed.fallbacks = mpc.fallbacks;
    Ok(Run {
        closed,
        costs,
        jacobian_fallbacks: mpc.jacobian_fallbacks,
    })
}

/// One closed loop of the robustness family ([`variants`]).
#[derive(Clone, Debug)]
pub struct Variant {
    pub name: String,
    /// FD instead of analytic Jacobians.
    pub fd: bool,
    /// Push force scale.
    pub push_scale: f64,
    pub noise: Option<JacobianNoise>,
}

/// The family over which the forward MPC must stay up and move forward: the nominal loop,
/// [`JacobianNoise`] of 1e-12 relative with four seeds (round-off in the last bits of A, B, as
/// engine changes make), FD Jacobians (≈1e-7 relative apart from the analytic ones), and the
/// pushes ±10%.
pub fn variants() -> Vec<Variant> {
    let v = |name: String, fd, push_scale, noise| Variant {
        name,
        fd,
        push_scale,
        noise,
    };
    let mut out = vec![v("nominal".into(), false, 1.0, None)];
    for seed in 1..=4 {
        let noise = JacobianNoise { rel: 1e-12, seed };
        out.push(v(
            format!("A,B ±1e-12 seed {seed}"),
            false,
            1.0,
            Some(noise),
        ));
    }
    out.push(v("FD Jacobians".into(), true, 1.0, None));
    out.push(v("pushes ×0.9".into(), false, 0.9, None));
    out.push(v("pushes ×1.1".into(), false, 1.1, None));
    out
}

/// The forward MPC `f` (target `vx`) on the plant `m` for `secs` under the variant `v`.
pub fn run_forward(
    m: &Model,
    f: &Forward,
    vx: f64,
    secs: f64,
    v: &Variant,
    on_step: impl FnMut(usize, &Data),
) -> Result<Run, String> {
    let q_stand = initial(m)?.qpos;
    let mut pm = m.clone();
    pm.opt.timestep = f.plan_dt;
    let steps = control_steps(m, secs);
    run_ilqr(
        m,
        f.plan_dt,
        f.analytic && !v.fd,
        forward_ilqr(&pm, &q_stand, vx, f),
        false,
        steps,
        &pushes_scaled(m, steps, v.push_scale)?,
        v.noise,
        on_step,
    )
}
