//! System identification by least squares on inverse dynamics.
//!
//! Inverse dynamics `τ = M(q) a + c(q, v) − passive(q, v)` is affine in each body's ten inertial
//! parameters `π_b = (m, m c, I_o)` (mass, first moment, rotational inertia about the body
//! origin in the body frame: `xx, yy, zz, xy, xz, yz`) and in each dof's damping (with the
//! `invdiscrete` flag also through Euler's implicit damping: `τ = (M + hD) a_d + …`). So the
//! regressor column of a parameter direction `e` is exactly
//! `(τ(θ₀ + δ e) − τ(θ₀)) / δ`, evaluated with `moreau::inverse` on a model with the
//! one parameter perturbed; measured forces `τ_meas = τ(θ₀) + Y (θ − θ₀)` are then solved for
//! `θ` by SVD least squares (minimum-norm in `θ − θ₀`: unidentifiable combinations keep their
//! nominal values).
//!
//! The data are the engine's own trajectory: `q_t`, `v_t` and the discrete acceleration
//! `a_t = (v_{t+1} − v_t)/h` (optionally with Gaussian noise on `v`), with the known actuator
//! force `qfrc_actuator`.

use crate::sampling::Gaussian;
use crate::threads::Threads;
use moreau::model::enable;
use moreau::{Data, Model};
use nalgebra::{DMatrix, DVector, Matrix3, Rotation3, SymmetricEigen, UnitQuaternion};

/// One identifiable quantity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Param {
    /// Component `k` (0..10) of body `b`'s `π_b = (m, mc_x, mc_y, mc_z, I_xx, I_yy, I_zz, I_xy,
    /// I_xz, I_yz)` (inertia about the body origin, body frame).
    Inertial { body: usize, k: usize },
    /// Body `b`'s mass with its COM and its inertia per unit mass fixed (all ten parameters
    /// scale together).
    Mass { body: usize },
    /// `dof_damping[dof]`.
    Damping { dof: usize },
    /// `dof_armature[dof]` (τ is affine in it: `armature · a`).
    Armature { dof: usize },
    /// `dof_frictionloss[dof]`: τ is not affine in it (the soft constraint's force saturates at
    /// ±frictionloss), so it is fitted by [`identify_nonlinear`], not by [`identify`].
    FrictionLoss { dof: usize },
}

/// The ten inertial parameters of body `b`.
pub fn inertial_params(m: &Model, b: usize) -> [f64; 10] {
    let mass = m.body_mass[b];
    let c = nalgebra::Vector3::from(m.body_ipos[b]);
    let q = m.body_iquat[b];
    let r = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]))
        .to_rotation_matrix()
        .into_inner();
    let ic =
        r * Matrix3::from_diagonal(&nalgebra::Vector3::from(m.body_inertia[b])) * r.transpose();
    let io = ic + (Matrix3::identity() * c.dot(&c) - c * c.transpose()) * mass;
    [
        mass,
        mass * c.x,
        mass * c.y,
        mass * c.z,
        io[(0, 0)],
        io[(1, 1)],
        io[(2, 2)],
        io[(0, 1)],
        io[(0, 2)],
        io[(1, 2)],
    ]
}

/// Writes `π` into body `b` (COM = first moment / mass; the COM inertia's eigen-decomposition
/// gives `body_inertia` and `body_iquat`). Fails for a non-positive mass.
pub fn set_inertial_params(m: &mut Model, b: usize, p: &[f64; 10]) -> Result<(), String> {
    let mass = p[0];
    if mass <= 0.0 {
        return Err(format!("body {b}: non-positive mass {mass}"));
    }
    let c = nalgebra::Vector3::new(p[1], p[2], p[3]) / mass;
    let io = Matrix3::new(p[4], p[7], p[8], p[7], p[5], p[9], p[8], p[9], p[6]);
    let ic = io - (Matrix3::identity() * c.dot(&c) - c * c.transpose()) * mass;
    let eig = SymmetricEigen::new(ic);
    let mut r = eig.eigenvectors;
    if r.determinant() < 0.0 {
        r.set_column(2, &(-r.column(2)));
    }
    let q = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(r));
    m.body_mass[b] = mass;
    m.body_ipos[b] = [c.x, c.y, c.z];
    m.body_inertia[b] = [eig.eigenvalues[0], eig.eigenvalues[1], eig.eigenvalues[2]];
    m.body_iquat[b] = [q.w, q.i, q.j, q.k];
    Ok(())
}

/// Fails when `p` names a body or dof that `m` does not have.
pub fn check(m: &Model, p: Param) -> Result<(), String> {
    let ok = match p {
        Param::Inertial { body, k } => body > 0 && body < m.nbody && k < 10,
        Param::Mass { body } => body > 0 && body < m.nbody,
        Param::Damping { dof } | Param::Armature { dof } | Param::FrictionLoss { dof } => {
            dof < m.nv
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{p:?}: no such body/dof/component in the model"))
    }
}

/// The current value of `p` in `m`.
pub fn get(m: &Model, p: Param) -> f64 {
    match p {
        Param::Inertial { body, k } => inertial_params(m, body)[k],
        Param::Mass { body } => m.body_mass[body],
        Param::Damping { dof } => m.dof_damping[dof],
        Param::Armature { dof } => m.dof_armature[dof],
        Param::FrictionLoss { dof } => m.dof_frictionloss[dof],
    }
}

/// Sets `p` in `m` (for `Mass`, scales all ten parameters of the body).
///
/// Only the parameter's own fields change: the compiled quantities that depend on the inertia
/// (`body_subtreemass`, `body_invweight0`, `dof_invweight0`, `dof_M0`, …) keep their values, as
/// when MuJoCo's `mjModel` fields are written without `mj_setConst`. That leaves the
/// constraint-free inverse dynamics unchanged (`subtree_com` only moves the origin of the COM
/// frames) but not the soft constraints' regularization (`R ∝ invweight0`); [`model_with`]
/// recomputes them.
pub fn set(m: &mut Model, p: Param, v: f64) -> Result<(), String> {
    match p {
        Param::Inertial { body, k } => {
            let mut pi = inertial_params(m, body);
            pi[k] = v;
            set_inertial_params(m, body, &pi)
        }
        Param::Mass { body } => {
            let s = v / m.body_mass[body];
            let mut pi = inertial_params(m, body);
            pi.iter_mut().for_each(|x| *x *= s);
            set_inertial_params(m, body, &pi)
        }
        Param::Damping { dof } => {
            m.dof_damping[dof] = v;
            Ok(())
        }
        Param::Armature { dof } => {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("dof {dof}: armature must be ≥ 0, got {v}"));
            }
            m.dof_armature[dof] = v;
            Ok(())
        }
        Param::FrictionLoss { dof } => {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("dof {dof}: frictionloss must be ≥ 0, got {v}"));
            }
            m.dof_frictionloss[dof] = v;
            Ok(())
        }
    }
}

/// `base` with `params` set to `values`, as if compiled with them: inertial parameters and
/// armature first
/// (per-component ones before `Mass`, which scales its body), then `body_subtreemass` summed
/// from the leaves and the `qpos0` constants of [`moreau::set_const`] (`mj_setConst`:
/// `dof_invweight0`, `body_invweight0`, `dof_M0`, tendon and actuator constants, joint
/// `springdamper` damping), then damping and friction loss (so that an explicit `Damping`
/// overrides a `springdamper`-derived one).
pub fn model_with(base: &Model, params: &[Param], values: &[f64]) -> Result<Model, String> {
    if params.len() != values.len() {
        return Err(format!(
            "{} values for {} parameters",
            values.len(),
            params.len()
        ));
    }
    let mut m = base.clone();
    // the parameters of the mass matrix, written before `set_const` (armature enters
    // `dof_invweight0` and `dof_M0` as MuJoCo's compiler computes them)
    let inertial = |p: &Param| {
        matches!(
            p,
            Param::Inertial { .. } | Param::Mass { .. } | Param::Armature { .. }
        )
    };
    for pass in [0, 1] {
        for (&p, &v) in params.iter().zip(values) {
            if inertial(&p) && usize::from(matches!(p, Param::Mass { .. })) == pass {
                check(&m, p)?;
                if !v.is_finite() {
                    return Err(format!("{p:?}: non-finite value {v}"));
                }
                set(&mut m, p, v)?;
            }
        }
    }
    if params.iter().any(inertial) {
        set_derived(&mut m);
    }
    for (&p, &v) in params.iter().zip(values) {
        if !inertial(&p) {
            check(&m, p)?;
            if !v.is_finite() {
                return Err(format!("{p:?}: non-finite value {v}"));
            }
            set(&mut m, p, v)?;
        }
    }
    Ok(m)
}

/// Recomputes what the compiler derives from masses, inertias and the other parameters
/// `mj_setConst` reads: the subtree masses, then `mj_setConst`'s constants (`qpos_spring`
/// aside, reference accelerations' inverse weights, actuator length ranges' dependents).
pub fn set_derived(m: &mut Model) {
    m.body_subtreemass.clone_from(&m.body_mass);
    for b in (1..m.nbody).rev() {
        let p = m.body_parentid[b];
        m.body_subtreemass[p] += m.body_subtreemass[b];
    }
    moreau::set_const(m);
}

/// A recorded trajectory: states, discrete accelerations and the known generalized forces.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    pub qpos: Vec<Vec<f64>>,
    pub qvel: Vec<Vec<f64>>,
    /// `(v_{t+1} − v_t) / h`.
    pub qacc: Vec<Vec<f64>>,
    /// `qfrc_actuator + qfrc_applied` at step `t`.
    pub force: Vec<Vec<f64>>,
}

/// Simulates `m` from its `qpos0` (plus `q_offset`) under `controls` and records it; `noise`
/// is the standard deviation of Gaussian noise added to the measured velocities (the
/// accelerations are differenced from the noisy velocities).
pub fn record(
    m: &Model,
    q_offset: &[f64],
    controls: &[Vec<f64>],
    noise: f64,
    seed: u64,
) -> Recording {
    let mut d = Data::new(m);
    for (q, o) in d.qpos.iter_mut().zip(q_offset) {
        *q += o;
    }
    let mut g = Gaussian::new(seed);
    let mut rec = Recording::default();
    let mut noisy = |v: &[f64]| -> Vec<f64> { v.iter().map(|x| x + noise * g.normal()).collect() };
    let mut v_meas = noisy(&d.qvel);
    for u in controls {
        d.ctrl.copy_from_slice(u);
        let q = d.qpos.clone();
        moreau::step(m, &mut d);
        let v_next = noisy(&d.qvel);
        let h = m.opt.timestep;
        rec.qacc.push(
            v_next
                .iter()
                .zip(&v_meas)
                .map(|(a, b)| (a - b) / h)
                .collect(),
        );
        rec.force.push(
            d.qfrc_actuator
                .iter()
                .zip(&d.qfrc_applied)
                .map(|(a, b)| a + b)
                .collect(),
        );
        rec.qpos.push(q);
        rec.qvel.push(std::mem::replace(&mut v_meas, v_next));
    }
    rec
}

/// `qfrc_inverse` of `m` along the recording, stacked (`T·nv`), with the `invdiscrete` flag
/// (the accelerations are the integrator's discrete ones).
pub fn inverse_forces(m: &Model, rec: &Recording) -> DVector<f64> {
    let mut m = m.clone();
    m.opt.enableflags |= enable::INVDISCRETE;
    let nv = m.nv;
    let mut d = Data::new(&m);
    let mut out = DVector::zeros(rec.qpos.len() * nv);
    for t in 0..rec.qpos.len() {
        d.qpos.copy_from_slice(&rec.qpos[t]);
        d.qvel.copy_from_slice(&rec.qvel[t]);
        d.qacc.copy_from_slice(&rec.qacc[t]);
        moreau::inverse(&m, &mut d);
        out.rows_mut(t * nv, nv).copy_from_slice(&d.qfrc_inverse);
    }
    out
}

/// The regressor `Y` (`T·nv × n`) of `params` at the nominal model `m` and `τ(θ₀)`: column `j`
/// is `(τ(θ₀ + δ_j e_j) − τ(θ₀)) / δ_j`, exact because τ is affine in each parameter.
pub fn regressor(
    m: &Model,
    params: &[Param],
    rec: &Recording,
) -> Result<(DMatrix<f64>, DVector<f64>), String> {
    for &p in params {
        check(m, p)?;
        if matches!(p, Param::FrictionLoss { .. }) {
            return Err(format!(
                "{p:?}: τ is not affine in frictionloss; use identify_nonlinear"
            ));
        }
    }
    let tau0 = inverse_forces(m, rec);
    let mut y = DMatrix::zeros(tau0.len(), params.len());
    for (j, &p) in params.iter().enumerate() {
        let v0 = get(m, p);
        let delta = match p {
            Param::Mass { .. } => v0.abs().max(1e-3),
            _ => 1.0,
        };
        let mut mp = m.clone();
        set(&mut mp, p, v0 + delta)?;
        let col = (inverse_forces(&mp, rec) - &tau0) / delta;
        y.set_column(j, &col);
    }
    Ok((y, tau0))
}

/// The result of [`identify`].
#[derive(Clone, Debug)]
pub struct Identified {
    pub params: Vec<Param>,
    pub nominal: Vec<f64>,
    pub estimate: Vec<f64>,
    /// Numerical rank of the regressor (identifiable combinations).
    pub rank: usize,
    /// RMS of the force residual at the estimate.
    pub residual_rms: f64,
    /// Right singular vectors of the identifiable subspace (columns).
    pub row_space: DMatrix<f64>,
}

impl Identified {
    /// The estimate's error against `truth` in the identifiable subspace: `row_spaceᵀ (θ̂ − θ)`.
    pub fn identifiable_error(&self, truth: &[f64]) -> DVector<f64> {
        let err = DVector::from_iterator(
            self.estimate.len(),
            self.estimate.iter().zip(truth).map(|(e, t)| e - t),
        );
        self.row_space.transpose() * err
    }

    /// The model with the estimate written in.
    pub fn apply(&self, m: &Model) -> Result<Model, String> {
        let mut out = m.clone();
        // masses last: they scale the other inertial parameters of their body
        for (p, v) in self.params.iter().zip(&self.estimate) {
            if !matches!(p, Param::Mass { .. }) {
                set(&mut out, *p, *v)?;
            }
        }
        for (p, v) in self.params.iter().zip(&self.estimate) {
            if matches!(p, Param::Mass { .. }) {
                set(&mut out, *p, *v)?;
            }
        }
        Ok(out)
    }
}

/// Least-squares identification of `params` from `rec`, linearized (exactly) at `nominal`.
/// `rcond`: singular values below `rcond · σ_max` are treated as zero.
pub fn identify(
    nominal: &Model,
    params: &[Param],
    rec: &Recording,
    rcond: f64,
) -> Result<Identified, String> {
    let (y, tau0) = regressor(nominal, params, rec)?;
    let meas = DVector::from_iterator(tau0.len(), rec.force.iter().flatten().copied());
    let rhs = &meas - &tau0;
    let svd = y.clone().svd(true, true);
    let smax = svd.singular_values.max();
    let tol = rcond * smax;
    let rank = svd.singular_values.iter().filter(|s| **s > tol).count();
    let dtheta = svd.solve(&rhs, tol)?;
    let resid = &y * &dtheta - &rhs;
    let vt = svd.v_t.ok_or("SVD without V")?;
    let mut row_space = DMatrix::zeros(params.len(), rank);
    let mut c = 0;
    for (i, s) in svd.singular_values.iter().enumerate() {
        if *s > tol {
            row_space.set_column(c, &vt.row(i).transpose());
            c += 1;
        }
    }
    let nominal_v: Vec<f64> = params.iter().map(|p| get(nominal, *p)).collect();
    Ok(Identified {
        params: params.to_vec(),
        estimate: nominal_v
            .iter()
            .zip(dtheta.iter())
            .map(|(a, b)| a + b)
            .collect(),
        nominal: nominal_v,
        rank,
        residual_rms: (resid.norm_squared() / resid.len().max(1) as f64).sqrt(),
        row_space,
    })
}

/// Random excitation controls (Gaussian, `sigma`, held for `hold` steps).
pub fn excitation(nu: usize, steps: usize, sigma: f64, hold: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut g = Gaussian::new(seed);
    let mut u = vec![0.0; nu];
    (0..steps)
        .map(|t| {
            if t % hold.max(1) == 0 {
                u.iter_mut().for_each(|x| *x = sigma * g.normal());
            }
            u.clone()
        })
        .collect()
}

/// Contact parameters fitted by simulation error: the sliding friction and the `solref`
/// time constant shared by all geoms (contacts mix them: friction by max, solref by solmix
/// weights, so setting every geom sets the contact's value).
#[derive(Clone, Debug)]
pub struct ContactFit {
    /// The scene; its `Data` starts from `qpos0`/`qvel0`.
    pub model: Model,
    pub qpos0: Vec<f64>,
    pub qvel0: Vec<f64>,
    pub steps: usize,
    /// Measured `qpos` after each step.
    pub measured: Vec<Vec<f64>>,
}

/// Writes friction `mu` and solref time constant `tc` into every geom.
pub fn set_contact(m: &mut Model, mu: f64, tc: f64) {
    for f in m.geom_friction.iter_mut() {
        f[0] = mu;
    }
    for s in m.geom_solref.iter_mut() {
        s[0] = tc;
    }
}

impl ContactFit {
    /// Simulates `model` with contact parameters `(mu, tc)` and returns the `qpos` trajectory.
    pub fn simulate(&self, mu: f64, tc: f64) -> Vec<Vec<f64>> {
        let mut m = self.model.clone();
        set_contact(&mut m, mu, tc);
        let mut d = Data::new(&m);
        d.qpos.copy_from_slice(&self.qpos0);
        d.qvel.copy_from_slice(&self.qvel0);
        (0..self.steps)
            .map(|_| {
                moreau::step(&m, &mut d);
                d.qpos.clone()
            })
            .collect()
    }

    /// Mean squared position error of the simulation with `(mu, tc)` against the measurement
    /// (∞ outside `mu > 0`, `tc > 2·timestep`).
    pub fn error(&self, mu: f64, tc: f64) -> f64 {
        if mu <= 0.0 || tc <= 2.0 * self.model.opt.timestep {
            return f64::INFINITY;
        }
        let sim = self.simulate(mu, tc);
        let n = (sim.len() * self.qpos0.len()).max(1) as f64;
        let e: f64 = sim
            .iter()
            .zip(&self.measured)
            .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)))
            .sum();
        if e.is_finite() {
            e / n
        } else {
            f64::INFINITY
        }
    }
}

impl argmin::core::CostFunction for ContactFit {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, p: &Vec<f64>) -> Result<f64, argmin::core::Error> {
        Ok(self.error(p[0], p[1]))
    }
}

/// Fits `(mu, tc)` by argmin's Nelder–Mead from `start`; returns the estimate, the final
/// error and the number of iterations. `on_iter(k, cost)` reports progress.
pub fn fit_contact(
    fit: ContactFit,
    start: [f64; 2],
    max_iter: u64,
    on_iter: impl FnMut(u64, f64) + 'static,
) -> Result<([f64; 2], f64, u64), String> {
    use argmin::core::observers::ObserverMode;
    use argmin::core::Executor;
    use argmin::solver::neldermead::NelderMead;
    let simplex = vec![
        start.to_vec(),
        vec![start[0] * 1.2, start[1]],
        vec![start[0], start[1] * 1.3],
    ];
    let solver = NelderMead::new(simplex)
        .with_sd_tolerance(1e-30)
        .map_err(|e| e.to_string())?;
    let res = Executor::new(fit, solver)
        .configure(|s| s.max_iters(max_iter))
        .add_observer(IterObserver(Box::new(on_iter)), ObserverMode::Always)
        .run()
        .map_err(|e| e.to_string())?;
    let st = res.state();
    let p = st.best_param.clone().ok_or("Nelder–Mead: no parameter")?;
    Ok(([p[0], p[1]], st.best_cost, st.iter))
}

/// Forwards argmin's per-iteration cost to a closure.
struct IterObserver(Box<dyn FnMut(u64, f64)>);

impl<I: argmin::core::State<Float = f64>> argmin::core::observers::Observe<I> for IterObserver {
    fn observe_iter(
        &mut self,
        state: &I,
        _kv: &argmin::core::KV,
    ) -> Result<(), argmin::core::Error> {
        (self.0)(state.get_iter(), state.get_best_cost());
        Ok(())
    }
}

/// The result of [`identify_nonlinear`].
#[derive(Clone, Debug)]
pub struct NonlinearFit {
    pub params: Vec<Param>,
    pub estimate: Vec<f64>,
    /// ½‖τ(θ) − τ_meas‖² after each iteration (the first entry is the start).
    pub cost_history: Vec<f64>,
    pub iterations: usize,
    /// RMS of the force residual at the estimate.
    pub residual_rms: f64,
}

/// Levenberg–Marquardt on the inverse-dynamics residual `r(θ) = τ(θ) − τ_meas` (stacked over
/// the recording, `invdiscrete`), for parameters in which τ is not affine: joint `frictionloss`
/// (MuJoCo's soft friction-loss row gives a Huber-like force, linear in the row's residual
/// acceleration inside ±frictionloss and saturated outside, so τ is piecewise linear in it), fitted
/// jointly with any others (damping, masses). The Jacobian is central differences in θ (the
/// piecewise-linear kinks are crossed by few samples); steps keep frictionloss and masses
/// positive. `start` is the initial guess (frictionloss must start positive: a zero
/// frictionloss has no constraint row, hence no gradient). `on_iter(k, cost)` reports progress.
pub fn identify_nonlinear(
    nominal: &Model,
    params: &[Param],
    rec: &Recording,
    start: &[f64],
    max_iter: usize,
    mut on_iter: impl FnMut(usize, f64),
) -> Result<NonlinearFit, String> {
    if start.len() != params.len() {
        return Err(format!(
            "{} start values for {} parameters",
            start.len(),
            params.len()
        ));
    }
    for (&p, &v) in params.iter().zip(start) {
        check(nominal, p)?;
        let positive = matches!(p, Param::FrictionLoss { .. } | Param::Mass { .. });
        if !v.is_finite() || (positive && v <= 0.0) {
            return Err(format!(
                "{p:?}: start value {v} must be finite and positive"
            ));
        }
    }
    if rec.qpos.is_empty() {
        return Err("empty recording".into());
    }
    let meas = DVector::from_iterator(
        rec.force.len() * nominal.nv,
        rec.force.iter().flatten().copied(),
    );
    let with = |theta: &[f64]| -> Result<Model, String> {
        let mut m = nominal.clone();
        for (&p, &v) in params.iter().zip(theta) {
            if !matches!(p, Param::Mass { .. }) {
                set(&mut m, p, v)?;
            }
        }
        for (&p, &v) in params.iter().zip(theta) {
            if matches!(p, Param::Mass { .. }) {
                set(&mut m, p, v)?;
            }
        }
        Ok(m)
    };
    let residual = |theta: &[f64]| -> Result<DVector<f64>, String> {
        let r = inverse_forces(&with(theta)?, rec) - &meas;
        if r.iter().all(|x| x.is_finite()) {
            Ok(r)
        } else {
            Err("non-finite inverse dynamics".into())
        }
    };
    let n = params.len();
    let mut theta = start.to_vec();
    let mut r = residual(&theta)?;
    let mut cost = 0.5 * r.norm_squared();
    let mut history = vec![cost];
    let mut lambda = 1e-3;
    let mut iterations = 0;
    for it in 0..max_iter {
        iterations = it + 1;
        let mut jac = DMatrix::zeros(r.len(), n);
        for j in 0..n {
            let d = 1e-6 * theta[j].abs().max(1e-3);
            let mut tp = theta.clone();
            tp[j] = theta[j] + d;
            let rp = residual(&tp)?;
            // one-sided near zero so frictionloss and masses stay positive
            let (rm, span) = if theta[j] - d > 0.0 || !positive(params[j]) {
                tp[j] = theta[j] - d;
                (residual(&tp)?, 2.0 * d)
            } else {
                (r.clone(), d)
            };
            jac.set_column(j, &((rp - rm) / span));
        }
        let jtj = jac.transpose() * &jac;
        let g = jac.transpose() * &r;
        let mut improved = false;
        let mut small_step = false;
        for _ in 0..30 {
            let Some(step) = marquardt_step(&jtj, &g, lambda) else {
                lambda *= 10.0;
                continue;
            };
            let cand: Vec<f64> = theta
                .iter()
                .zip(step.iter())
                .zip(params)
                .map(|((t, s), p)| {
                    if positive(*p) {
                        (t + s).max(0.1 * t)
                    } else {
                        t + s
                    }
                })
                .collect();
            let rel = cand
                .iter()
                .zip(&theta)
                .map(|(c, t)| (c - t).abs() / t.abs().max(1e-12))
                .fold(0.0, f64::max);
            let rc = residual(&cand)?;
            let cc = 0.5 * rc.norm_squared();
            if cc < cost {
                theta = cand;
                r = rc;
                small_step = rel < 1e-12 || (cost - cc) < 1e-15 * cost;
                cost = cc;
                lambda = (lambda / 3.0).max(1e-12);
                improved = true;
                break;
            }
            if rel < 1e-14 {
                small_step = true;
                break;
            }
            lambda *= 4.0;
        }
        history.push(cost);
        on_iter(it, cost);
        if !improved || small_step || cost == 0.0 {
            break;
        }
    }
    Ok(NonlinearFit {
        params: params.to_vec(),
        estimate: theta,
        cost_history: history,
        iterations,
        residual_rms: (r.norm_squared() / r.len().max(1) as f64).sqrt(),
    })
}

/// The Levenberg–Marquardt step `−(JᵀJ + λ diag(JᵀJ)) \ Jᵀr` (`None` when the damped matrix is
/// not positive definite).
fn marquardt_step(jtj: &DMatrix<f64>, g: &DVector<f64>, lambda: f64) -> Option<DVector<f64>> {
    let mut a = jtj.clone();
    for i in 0..a.nrows() {
        a[(i, i)] += lambda * jtj[(i, i)].max(1e-12);
    }
    Some(-a.cholesky()?.solve(g))
}

fn positive(p: Param) -> bool {
    matches!(p, Param::FrictionLoss { .. } | Param::Mass { .. })
}

/// The result of [`fit_rollout`].
#[derive(Clone, Debug)]
pub struct RolloutFit {
    pub params: Vec<Param>,
    pub estimate: Vec<f64>,
    /// Half-widths of the 95% confidence intervals at the estimate: `1.96 √(s² (JᵀJ)⁻¹)ᵢᵢ`
    /// with `s² = ‖r‖² / (N − n)` (infinite for a parameter the data do not determine).
    pub half_width: Vec<f64>,
    /// ½‖r(θ)‖² after each iteration (the first entry is the start).
    pub cost_history: Vec<f64>,
    pub iterations: usize,
    /// Rollouts simulated (residuals and Jacobian columns).
    pub rollouts: usize,
}

/// A measured trajectory for [`fit_rollout`]: the initial state, the controls of each step and
/// the measured `(qpos, qvel)` before each step (row `t` is the state after `t` steps; row 0,
/// the initial state, is not part of the residual).
#[derive(Clone, Debug)]
pub struct StateLog {
    pub qpos0: Vec<f64>,
    pub qvel0: Vec<f64>,
    pub ctrl: Vec<Vec<f64>>,
    pub measured: Vec<Vec<f64>>,
}

/// The simulated `(qpos, qvel)` rows of `log` under `m` (row `t` after `t` steps).
pub fn rollout_states(m: &Model, log: &StateLog) -> Vec<Vec<f64>> {
    let mut d = Data::new(m);
    d.qpos.copy_from_slice(&log.qpos0);
    d.qvel.copy_from_slice(&log.qvel0);
    let mut out = Vec::with_capacity(log.measured.len());
    for t in 0..log.measured.len() {
        out.push(d.qpos.iter().chain(&d.qvel).copied().collect());
        if t + 1 < log.measured.len() {
            d.ctrl.copy_from_slice(&log.ctrl[t]);
            moreau::step(m, &mut d);
        }
    }
    out
}

/// Bounded Levenberg–Marquardt on the simulation error of `log`: the residual of row `t ≥ 1`
/// and signal `j` is `(y_tj − ŷ_tj(θ)) / s_j`, `ŷ` the rollout of the model built by
/// [`model_with`] from the logged initial state under the logged controls, `s_j = ‖y_·j‖/√2`
/// (the normalization of `mujoco.sysid`'s default residual, so both minimize the same cost).
/// Jacobian by forward differences (`δ = 10⁻⁶ max(|θ|, 0.1)`), its columns' rollouts in
/// parallel; steps are clipped to `bounds`. Stops when an accepted step reduces the cost by
/// less than 10⁻¹⁰ of it, when no damping gives a decrease, or after `max_iter` iterations.
/// The columns run on every CPU ([`fit_rollout_on`] takes the threads).
pub fn fit_rollout(
    nominal: &Model,
    params: &[Param],
    log: &StateLog,
    start: &[f64],
    bounds: &[[f64; 2]],
    max_iter: usize,
    on_iter: impl FnMut(usize, f64),
) -> Result<RolloutFit, String> {
    let threads = Threads::new(0)?;
    fit_rollout_on(
        &threads, nominal, params, log, start, bounds, max_iter, on_iter,
    )
}

/// [`fit_rollout`] with the Jacobian's columns on `threads`; the fit is bit-identical at any
/// thread count.
#[allow(clippy::too_many_arguments)]
pub fn fit_rollout_on(
    threads: &Threads,
    nominal: &Model,
    params: &[Param],
    log: &StateLog,
    start: &[f64],
    bounds: &[[f64; 2]],
    max_iter: usize,
    mut on_iter: impl FnMut(usize, f64),
) -> Result<RolloutFit, String> {
    let n = params.len();
    if start.len() != n || bounds.len() != n {
        return Err(format!(
            "{} start values and {} bounds for {n} parameters",
            start.len(),
            bounds.len()
        ));
    }
    for ((&p, &v), &[lo, hi]) in params.iter().zip(start).zip(bounds) {
        check(nominal, p)?;
        if !(v.is_finite() && lo <= v && v <= hi) {
            return Err(format!("{p:?}: start value {v} outside [{lo}, {hi}]"));
        }
    }
    let width = nominal.nq + nominal.nv;
    if log.measured.len() < 2
        || log.ctrl.len() + 1 < log.measured.len()
        || log.qpos0.len() != nominal.nq
        || log.qvel0.len() != nominal.nv
        || log.ctrl.iter().any(|u| u.len() != nominal.nu)
        || log.measured.iter().any(|y| y.len() != width)
    {
        return Err("log: sizes do not match the model (rows of qpos, qvel; nu controls)".into());
    }
    let rows = log.measured.len() - 1;
    let scale: Vec<f64> = (0..width)
        .map(|j| {
            let s = log.measured[1..]
                .iter()
                .map(|y| y[j] * y[j])
                .sum::<f64>()
                .sqrt();
            if s > 0.0 {
                s / std::f64::consts::SQRT_2
            } else {
                1.0
            }
        })
        .collect();
    let scale = &scale;
    let residual = &|theta: &[f64]| -> Result<DVector<f64>, String> {
        let sim = rollout_states(&model_with(nominal, params, theta)?, log);
        let r = DVector::from_iterator(
            rows * width,
            (1..=rows).flat_map(|t| {
                let (y, s) = (&log.measured[t], &sim[t]);
                (0..width).map(move |j| (y[j] - s[j]) / scale[j])
            }),
        );
        if r.iter().all(|x| x.is_finite()) {
            Ok(r)
        } else {
            Err("non-finite rollout".into())
        }
    };
    let jacobian = |theta: &[f64], r: &DVector<f64>| -> Result<DMatrix<f64>, String> {
        let cols: Vec<Result<DVector<f64>, String>> = threads.map((0..n).collect(), |j| {
            let [lo, hi] = bounds[j];
            let mut d = 1e-6 * theta[j].abs().max(0.1);
            if theta[j] + d > hi {
                d = -d;
            }
            if theta[j] + d < lo {
                return Ok(DVector::zeros(r.len()));
            }
            let mut tp = theta.to_vec();
            tp[j] += d;
            Ok((residual(&tp)? - r) / d)
        });
        let mut jac = DMatrix::zeros(r.len(), n);
        for (j, c) in cols.into_iter().enumerate() {
            jac.set_column(j, &c?);
        }
        Ok(jac)
    };
    let mut theta = start.to_vec();
    let mut r = residual(&theta)?;
    let mut jac = jacobian(&theta, &r)?;
    let mut rollouts = 1 + n;
    let mut cost = 0.5 * r.norm_squared();
    let mut history = vec![cost];
    let mut lambda = 1e-6;
    let mut iterations = 0;
    for it in 0..max_iter {
        iterations += 1;
        let jtj = jac.transpose() * &jac;
        let g = jac.transpose() * &r;
        let mut accepted = None;
        for _ in 0..20 {
            let Some(step) = marquardt_step(&jtj, &g, lambda) else {
                lambda *= 10.0;
                continue;
            };
            let cand: Vec<f64> = (0..n)
                .map(|i| (theta[i] + step[i]).clamp(bounds[i][0], bounds[i][1]))
                .collect();
            let rc = residual(&cand)?;
            rollouts += 1;
            let cc = 0.5 * rc.norm_squared();
            if cc < cost {
                accepted = Some((cand, rc, cc));
                lambda = (lambda / 10.0).max(1e-12);
                break;
            }
            lambda *= 10.0;
        }
        let Some((cand, rc, cc)) = accepted else {
            break;
        };
        let small = cost - cc <= 1e-10 * cost;
        theta = cand;
        r = rc;
        cost = cc;
        history.push(cost);
        on_iter(it, cost);
        jac = jacobian(&theta, &r)?;
        rollouts += n;
        if small {
            break;
        }
    }
    let dof = (r.len() as f64 - n as f64).max(1.0);
    let s2 = r.norm_squared() / dof;
    let jtj = jac.transpose() * &jac;
    let eig = SymmetricEigen::new(jtj);
    let lmax = eig.eigenvalues.max();
    let half_width = (0..n)
        .map(|i| {
            let mut inv = 0.0;
            for k in 0..n {
                let v = eig.eigenvectors[(i, k)];
                if eig.eigenvalues[k] <= 1e-15 * lmax {
                    if v.abs() > 1e-8 {
                        return f64::INFINITY;
                    }
                } else {
                    inv += v * v / eig.eigenvalues[k];
                }
            }
            1.96 * (s2 * inv).sqrt()
        })
        .collect();
    Ok(RolloutFit {
        params: params.to_vec(),
        estimate: theta,
        half_width,
        cost_history: history,
        iterations,
        rollouts,
    })
}
