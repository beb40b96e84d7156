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

use crate::ilqr::box_qp;
use crate::sampling::Gaussian;
use crate::threads::Threads;
use moreau::model::enable;
use moreau::pipeline::{geom_mix, GeomMix};
use moreau::{Data, Model};
use nalgebra::{DMatrix, DVector, Matrix3, Rotation3, SymmetricEigen, UnitQuaternion};
use std::sync::Mutex;

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
    /// `geom_friction[geom][0]`, the sliding friction (a contact takes the geom's with the
    /// higher `priority`, else the larger of its two geoms', Modeling "Contact"). Its
    /// rollout-Jacobian column is analytic on pyramidal, elliptic and frictionless contacts;
    /// contacts of an explicit `pair`, and every contact under `override`, do not take it.
    Friction { geom: usize },
    /// `geom_solref[geom][0]`, the time constant of the contact's reference acceleration
    /// (Modeling "Solver parameters"; a contact takes the higher-priority geom's, else mixes
    /// its two geoms' by `solmix`). Analytic columns, as [`Param::Friction`].
    SolrefTimeconst { geom: usize },
    /// `geom_solref[geom][1]`, the damping ratio (as [`Param::SolrefTimeconst`]).
    SolrefDampratio { geom: usize },
}

impl Param {
    /// The geom and the contact quantity of a contact parameter: 0 the sliding friction, 1 and
    /// 2 the solref entries.
    fn contact_kind(&self) -> Option<(usize, usize)> {
        match *self {
            Param::Friction { geom } => Some((geom, 0)),
            Param::SolrefTimeconst { geom } => Some((geom, 1)),
            Param::SolrefDampratio { geom } => Some((geom, 2)),
            _ => None,
        }
    }

    /// A contact parameter of a geom (friction or solref).
    pub fn is_contact(&self) -> bool {
        matches!(
            self,
            Param::Friction { .. } | Param::SolrefTimeconst { .. } | Param::SolrefDampratio { .. }
        )
    }
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
/// gives `body_inertia` and `body_iquat`; the frames that coincide with the inertial frame are
/// recomputed, [`Model::fill_sameframe`]). Fails for a non-positive mass.
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
    // the inertial frame moved: which geoms and sites coincide with it may have changed
    m.fill_sameframe();
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
        Param::Friction { geom }
        | Param::SolrefTimeconst { geom }
        | Param::SolrefDampratio { geom } => geom < m.ngeom,
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
        Param::Friction { geom } => m.geom_friction[geom][0],
        Param::SolrefTimeconst { geom } => m.geom_solref[geom][0],
        Param::SolrefDampratio { geom } => m.geom_solref[geom][1],
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
        Param::Friction { geom } => {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("geom {geom}: friction must be ≥ 0, got {v}"));
            }
            m.geom_friction[geom][0] = v;
            Ok(())
        }
        // Positive solref: time constant and damping ratio (the negative, direct stiffness
        // and damping form is another parameterization, not this one).
        Param::SolrefTimeconst { geom } | Param::SolrefDampratio { geom } => {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("geom {geom}: solref must be > 0, got {v}"));
            }
            let k = usize::from(matches!(p, Param::SolrefDampratio { .. }));
            m.geom_solref[geom][k] = v;
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
    let mut m = base.clone();
    write_params(&mut m, params, values)?;
    Ok(m)
}

/// [`model_with`] into `out`, a model that came from `base` by [`Model::clone`] or an earlier
/// `model_with_into` with the same `base` and `params`: the fields a parameter or
/// [`set_derived`] writes are restored from `base` first (allocation-free), then written as
/// [`model_with`] writes them, so `out` equals `model_with(base, params, values)` without copying
/// the model (a robot model's meshes and bounding-volume trees are most of its size). On error
/// `out` is left partly written; the next call restores it.
pub fn model_with_into(
    base: &Model,
    params: &[Param],
    values: &[f64],
    out: &mut Model,
) -> Result<(), String> {
    if (out.nbody, out.nv, out.njnt) != (base.nbody, base.nv, base.njnt) {
        return Err("model_with_into: `out` is not a copy of `base`".into());
    }
    out.body_mass.copy_from_slice(&base.body_mass);
    out.body_ipos.copy_from_slice(&base.body_ipos);
    out.body_iquat.copy_from_slice(&base.body_iquat);
    out.body_inertia.copy_from_slice(&base.body_inertia);
    out.dof_damping.copy_from_slice(&base.dof_damping);
    out.dof_armature.copy_from_slice(&base.dof_armature);
    out.dof_frictionloss.copy_from_slice(&base.dof_frictionloss);
    out.jnt_stiffness.copy_from_slice(&base.jnt_stiffness);
    out.geom_friction.copy_from_slice(&base.geom_friction);
    out.geom_solref.copy_from_slice(&base.geom_solref);
    write_params(out, params, values)
}

/// Writes `values` into a copy of the base model (see [`model_with`]).
fn write_params(m: &mut Model, params: &[Param], values: &[f64]) -> Result<(), String> {
    if params.len() != values.len() {
        return Err(format!(
            "{} values for {} parameters",
            values.len(),
            params.len()
        ));
    }
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
                check(m, p)?;
                if !v.is_finite() {
                    return Err(format!("{p:?}: non-finite value {v}"));
                }
                set(m, p, v)?;
            }
        }
    }
    if params.iter().any(inertial) {
        set_derived(m);
    }
    for (&p, &v) in params.iter().zip(values) {
        if !inertial(&p) {
            check(m, p)?;
            if !v.is_finite() {
                return Err(format!("{p:?}: non-finite value {v}"));
            }
            set(m, p, v)?;
        }
    }
    Ok(())
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
    regressor_on(&Threads::serial(), m, params, rec)
}

/// [`regressor`] with its columns on `threads` (bit-identical at any thread count).
pub fn regressor_on(
    threads: &Threads,
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
    let cols = threads.map(params.to_vec(), |p| -> Result<DVector<f64>, String> {
        let v0 = get(m, p);
        let delta = match p {
            Param::Mass { .. } => v0.abs().max(1e-3),
            _ => 1.0,
        };
        let mut mp = m.clone();
        set(&mut mp, p, v0 + delta)?;
        Ok((inverse_forces(&mp, rec) - &tau0) / delta)
    });
    let mut y = DMatrix::zeros(tau0.len(), params.len());
    for (j, col) in cols.into_iter().enumerate() {
        y.set_column(j, &col?);
    }
    Ok((y, tau0))
}

/// Several recordings as one: their time steps in order. Inverse dynamics is evaluated step
/// by step, so one parameter vector fitted to the stack fits every recording at once.
pub fn stack(recs: &[Recording]) -> Recording {
    let mut out = Recording::default();
    for r in recs {
        out.qpos.extend_from_slice(&r.qpos);
        out.qvel.extend_from_slice(&r.qvel);
        out.qacc.extend_from_slice(&r.qacc);
        out.force.extend_from_slice(&r.force);
    }
    out
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
    identify_on(
        &Threads::serial(),
        nominal,
        params,
        std::slice::from_ref(rec),
        rcond,
    )
}

/// [`identify`] of one parameter vector from several recordings (logs of the same system,
/// from different initial states and controls), with the regressor's columns on `threads`
/// (bit-identical at any thread count).
pub fn identify_on(
    threads: &Threads,
    nominal: &Model,
    params: &[Param],
    recs: &[Recording],
    rcond: f64,
) -> Result<Identified, String> {
    let stacked;
    let rec = match recs {
        [one] => one,
        _ => {
            stacked = stack(recs);
            &stacked
        }
    };
    let (y, tau0) = regressor_on(threads, nominal, params, rec)?;
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
/// Which of a contact's parameters a geom parameter moves, and by how much (`∂contact/∂geom`):
/// `kind` 0 is the sliding friction, 1 and 2 the solref entries. A contact mixes its two
/// geoms' parameters (Modeling "Contact", parameter mixing): the higher `priority` geom's
/// alone, else the larger friction and the `solmix`-weighted solref (the smaller of each when
/// either is in the direct, non-positive format). A friction at its floor `mjMINMU`, or the
/// smaller of two frictions, does not move the contact's.
fn contact_weight(m: &Model, geoms: [usize; 2], g: usize, kind: usize) -> f64 {
    // `override` replaces every contact's parameters, an explicit `pair` its own contacts'
    // (Modeling "Contact": "Explicit pairs", `option/flag/override`)
    let paired = (0..m.npair.min(m.pair_geom1.len())).any(|k| {
        let p = [m.pair_geom1[k], m.pair_geom2[k]];
        p == geoms || p == [geoms[1], geoms[0]]
    });
    if m.opt.enabled(enable::OVERRIDE) || paired {
        return 0.0;
    }
    let other = match geoms {
        [a, b] if a == g => b,
        [a, b] if b == g => a,
        _ => return 0.0,
    };
    let mix = match geom_mix(m, g, other) {
        GeomMix::Priority(w) => return if w == g { 1.0 } else { 0.0 },
        GeomMix::Mixed(mix) => mix,
    };
    if kind == 0 {
        let (fg, fo) = (m.geom_friction[g][0], m.geom_friction[other][0]);
        // a tie: increasing this geom's friction raises the contact's (the one-sided slope)
        return if fg >= fo && fg >= 1e-5 { 1.0 } else { 0.0 };
    }
    let (rg, ro) = (m.geom_solref[g], m.geom_solref[other]);
    if rg[0] > 0.0 && ro[0] > 0.0 {
        mix
    } else {
        let k = kind - 1;
        if rg[k] <= ro[k] {
            1.0
        } else {
            0.0
        }
    }
}

fn marquardt_step(jtj: &DMatrix<f64>, g: &DVector<f64>, lambda: f64) -> Option<DVector<f64>> {
    let mut a = jtj.clone();
    for i in 0..a.nrows() {
        a[(i, i)] += lambda * jtj[(i, i)].max(1e-12);
    }
    Some(-a.cholesky()?.solve(g))
}

fn positive(p: Param) -> bool {
    matches!(
        p,
        Param::FrictionLoss { .. }
            | Param::Mass { .. }
            | Param::SolrefTimeconst { .. }
            | Param::SolrefDampratio { .. }
    )
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
    /// Trajectories simulated, counted in rollouts of the log's length: one per residual, and
    /// per Jacobian `1 + n` (finite differences: `n` perturbed rollouts and the residual's;
    /// sensitivities with one-step differences: the nominal rollout with its transition
    /// Jacobians, and `n` sweeps of one-step differences, each as many steps as a rollout) or 1
    /// (analytic sensitivities: the nominal rollout, linearized at each step; its CPU time is
    /// more than a plain rollout's, so compare times too).
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

/// How [`fit_rollout_with`] differentiates the rollout residual.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RolloutJacobian {
    /// Forward sensitivities through the rollout: `S_{t+1} = A_t S_t + ∂f/∂θ|_t`, `S_0 = 0`,
    /// with `A_t` the step's analytic transition Jacobian
    /// ([`moreau_derivatives::transition()`] at the step's forwarded state; centered
    /// `mjd_transitionFD` where [`moreau_derivatives::Support`] says it does not apply) and
    /// `∂f/∂θ|_t` analytic (the implicit function theorem with the step's own factorization,
    /// [`moreau_derivatives::Workspace::transition_params`]; one back-substitution per
    /// parameter) where the model and parameters allow (Euler or implicitfast; masses,
    /// damping, armature, friction loss; friction-loss and joint-limit rows; contact friction
    /// and solref on pyramidal and frictionless contacts), else the forward
    /// difference of one step from the nominal state `x_t` (same warm start) under the
    /// perturbed model ([`RolloutJacobian::SensitivityFd`]), whose error is that of a single
    /// step's difference, not amplified along the trajectory.
    #[default]
    Sensitivity,
    /// [`RolloutJacobian::Sensitivity`] with `∂f/∂θ|_t` always by one-step forward differences
    /// (one perturbed step per parameter per logged step), also where the analytic partials
    /// apply.
    SensitivityFd,
    /// Forward differences of whole rollouts (the Jacobian `mujoco.sysid` uses), the columns
    /// in parallel.
    FiniteDifference,
}

/// One step's transition Jacobian `A` and parameter columns `∂x'/∂θ`.
type StepLinearization = (DMatrix<f64>, DMatrix<f64>);

/// A residual, its Jacobian and the rollouts simulated for them.
type Linearized = (DVector<f64>, DMatrix<f64>, usize);

/// The residual of [`fit_rollout`] and its Jacobians.
struct RolloutProblem<'a> {
    threads: &'a Threads,
    nominal: &'a Model,
    params: &'a [Param],
    log: &'a StateLog,
    bounds: &'a [[f64; 2]],
    /// `s_j = ‖y_·j‖/√2` per signal.
    scale: Vec<f64>,
    rows: usize,
    width: usize,
    /// Copies of `nominal` reused by [`RolloutProblem::with_model`] (one per concurrent user).
    pool: Mutex<Vec<Model>>,
}

impl<'a> RolloutProblem<'a> {
    /// `f` on the model with the parameters `theta` ([`model_with_into`] on a pooled copy of
    /// the nominal model: no model is copied after the first calls).
    fn with_model<T>(&self, theta: &[f64], f: impl FnOnce(&Model) -> T) -> Result<T, String> {
        let pooled = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut m = pooled.unwrap_or_else(|| self.nominal.clone());
        let out = model_with_into(self.nominal, self.params, theta, &mut m).map(|()| f(&m));
        self.pool.lock().unwrap_or_else(|e| e.into_inner()).push(m);
        out
    }

    fn new(
        threads: &'a Threads,
        nominal: &'a Model,
        params: &'a [Param],
        log: &'a StateLog,
        bounds: &'a [[f64; 2]],
    ) -> Result<Self, String> {
        let width = nominal.nq + nominal.nv;
        if log.measured.len() < 2
            || log.ctrl.len() + 1 < log.measured.len()
            || log.qpos0.len() != nominal.nq
            || log.qvel0.len() != nominal.nv
            || log.ctrl.iter().any(|u| u.len() != nominal.nu)
            || log.measured.iter().any(|y| y.len() != width)
        {
            return Err(
                "log: sizes do not match the model (rows of qpos, qvel; nu controls)".into(),
            );
        }
        if bounds.len() != params.len() {
            return Err(format!(
                "{} bounds for {} parameters",
                bounds.len(),
                params.len()
            ));
        }
        for &p in params {
            check(nominal, p)?;
        }
        let rows = log.measured.len() - 1;
        let scale = (0..width)
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
        Ok(RolloutProblem {
            threads,
            nominal,
            params,
            log,
            bounds,
            scale,
            rows,
            width,
            pool: Mutex::new(Vec::new()),
        })
    }

    /// The residual of the simulated rows `sim(t)` (`t = 1 … rows`, `(qpos, qvel)`).
    fn residual_of<'s>(&self, sim: impl Fn(usize) -> &'s [f64]) -> Result<DVector<f64>, String> {
        let (w, log, scale) = (self.width, self.log, &self.scale);
        let r = DVector::from_iterator(
            self.rows * w,
            (1..=self.rows).flat_map(|t| {
                let (y, s) = (&log.measured[t], sim(t));
                (0..w).map(move |j| (y[j] - s[j]) / scale[j])
            }),
        );
        if r.iter().all(|x| x.is_finite()) {
            Ok(r)
        } else {
            Err("non-finite rollout".into())
        }
    }

    fn residual(&self, theta: &[f64]) -> Result<DVector<f64>, String> {
        let sim = self.with_model(theta, |m| rollout_states(m, self.log))?;
        self.residual_of(|t| &sim[t])
    }

    /// The forward-difference step of parameter `j` (`δ = 10⁻⁶ max(|θ|, 0.1)`, backwards at
    /// the upper bound; `None` when neither direction stays inside the bounds).
    fn delta(&self, theta: &[f64], j: usize) -> Option<f64> {
        let [lo, hi] = self.bounds[j];
        let mut d = 1e-6 * theta[j].abs().max(0.1);
        if theta[j] + d > hi {
            d = -d;
        }
        (theta[j] + d >= lo).then_some(d)
    }

    /// The residual and its Jacobian by forward differences of whole rollouts.
    fn jacobian_fd(&self, theta: &[f64], r: &DVector<f64>) -> Result<DMatrix<f64>, String> {
        let n = self.params.len();
        let cols: Vec<Result<DVector<f64>, String>> = self.threads.map((0..n).collect(), |j| {
            let Some(d) = self.delta(theta, j) else {
                return Ok(DVector::zeros(r.len()));
            };
            let mut tp = theta.to_vec();
            tp[j] += d;
            Ok((self.residual(&tp)? - r) / d)
        });
        let mut jac = DMatrix::zeros(r.len(), n);
        for (j, c) in cols.into_iter().enumerate() {
            jac.set_column(j, &c?);
        }
        Ok(jac)
    }

    /// Forward sensitivities with analytic `∂f/∂θ|_t`
    /// ([`moreau_derivatives::Workspace::transition_params`] on [`ParamPartials`]' columns):
    /// one rollout with its transition Jacobians, no perturbed simulation. `None` when a step
    /// has a constraint row whose force's parameter dependence [`ParamPartials`] does not cover.
    fn jacobian_sensitivity_analytic(
        &self,
        m: &Model,
        pp: &ParamPartials,
        theta: &[f64],
    ) -> Result<Option<Linearized>, String> {
        use moreau::pipeline::{integrate, step_skip, Skip};
        use moreau_derivatives::Workspace;
        // the columns of one-step differences (ParamPartials::one_step): their perturbed models
        let mut fd_cols = Vec::new();
        for &j in &pp.one_step {
            let Some(delta) = self.delta(theta, j) else {
                continue;
            };
            let mut tp = theta.to_vec();
            tp[j] += delta;
            let mp = model_with(self.nominal, self.params, &tp)?;
            let dp = Data::new(&mp);
            fd_cols.push((j, delta, mp, dp));
        }
        let mut dx = vec![0.0; 2 * m.nv + m.na];
        let (nq, nv, na) = (m.nq, m.nv, m.na);
        let (ndx, n) = (2 * nv + na, self.params.len());
        let log = self.log;
        let mut d = Data::new(m);
        d.qpos.copy_from_slice(&log.qpos0);
        d.qvel.copy_from_slice(&log.qvel0);
        let mut ws = Workspace::default();
        let mut sim = Vec::with_capacity((self.rows + 1) * (nq + nv));
        sim.extend(d.qpos.iter().chain(&d.qvel));
        let mut s = DMatrix::<f64>::zeros(ndx, n);
        let mut jac = DMatrix::zeros(self.rows * self.width, n);
        let (mut force, mut he) = (DMatrix::zeros(nv, n), DMatrix::zeros(nv, n));
        let mut dq = vec![0.0; nq];
        for t in 0..self.rows {
            d.ctrl.copy_from_slice(&log.ctrl[t]);
            let Some((a, mut g)) = pp.linearize_step(m, &mut d, &mut ws, &mut force, &mut he)?
            else {
                return Ok(None);
            };
            for (_, _, _, dp) in fd_cols.iter_mut() {
                dp.qpos.copy_from_slice(&d.qpos);
                dp.qvel.copy_from_slice(&d.qvel);
                dp.act.copy_from_slice(&d.act);
                dp.qacc_warmstart.copy_from_slice(&d.qacc_warmstart);
                dp.ctrl.copy_from_slice(&d.ctrl);
            }
            integrate(m, &mut d);
            if d.warning.iter().any(|w| w.number > 0) {
                return Err(format!("rollout: bad state at step {t}"));
            }
            // ∂f/∂θ_j = (f(x_t; θ + δ e_j) ⊖ x_{t+1}) / δ
            for (j, delta, mp, dp) in fd_cols.iter_mut() {
                step_skip(mp, dp, Skip::None, true);
                moreau::differentiate_pos(m, &mut dx[..nv], 1.0, &d.qpos, &dp.qpos);
                for (i, v) in dp.qvel.iter().chain(&dp.act).enumerate() {
                    dx[nv + i] = v - if i < nv { d.qvel[i] } else { d.act[i - nv] };
                }
                for (i, v) in dx.iter().enumerate() {
                    g[(i, *j)] = v / *delta;
                }
            }
            s = a * s + g;
            sim.extend(d.qpos.iter().chain(&d.qvel));
            // the residual rows of x_{t+1}: −(∂qpos, ∂qvel)/scale
            for j in 0..n {
                let sj = s.column(j);
                qpos_tangent(m, &d.qpos, &sj.as_slice()[..nv], &mut dq);
                for k in 0..self.width {
                    let v = if k < nq { dq[k] } else { sj[nv + k - nq] };
                    jac[(t * self.width + k, j)] = -v / self.scale[k];
                }
            }
        }
        let w = nq + nv;
        let r = self.residual_of(|t| &sim[t * w..(t + 1) * w])?;
        Ok(Some((r, jac, 1 + fd_cols.len())))
    }

    /// Forward sensitivities with `∂f/∂θ|_t` by one-step forward differences.
    fn jacobian_sensitivity_fd(
        &self,
        m: &Model,
        theta: &[f64],
    ) -> Result<(DVector<f64>, DMatrix<f64>), String> {
        use moreau::pipeline::{check_acc, check_pos, check_vel, integrate, step_skip, Skip};
        use moreau_derivatives::{Support, TransitionOptions, Workspace};
        let (nq, nv, na) = (m.nq, m.nv, m.na);
        let (nx, ndx) = (nq + nv + na, 2 * nv + na);
        let steps = self.rows;
        let log = self.log;
        // the nominal rollout: states x_0 … x_T, the warm start of each step, A_t
        let mut d = Data::new(m);
        d.qpos.copy_from_slice(&log.qpos0);
        d.qvel.copy_from_slice(&log.qvel0);
        let mut xs = Vec::with_capacity((steps + 1) * nx);
        let mut warm = Vec::with_capacity(steps * nv);
        let mut a = Vec::with_capacity(steps * ndx * ndx);
        let analytic = Support::transition(m).is_covered();
        let opts = if analytic {
            TransitionOptions::analytic().forwarded()
        } else {
            TransitionOptions::fd(1e-6, true)
        }
        .with_sensors(false);
        let mut ws = Workspace::default();
        let bad = |d: &Data| d.warning.iter().any(|w| w.number > 0);
        for t in 0..steps {
            xs.extend(d.qpos.iter().chain(&d.qvel).chain(&d.act));
            warm.extend_from_slice(&d.qacc_warmstart);
            d.ctrl.copy_from_slice(&log.ctrl[t]);
            if analytic {
                // `mj_step` split around the linearization at the forwarded state
                check_pos(m, &mut d);
                check_vel(m, &mut d);
                moreau::forward(m, &mut d);
                check_acc(m, &mut d);
            }
            let jac = ws
                .transition(m, &mut d, &opts)
                .map_err(|e| format!("transition Jacobians: {e}"))?;
            a.extend_from_slice(jac.A.as_slice());
            if analytic {
                integrate(m, &mut d);
            } else {
                moreau::step(m, &mut d);
            }
            if bad(&d) {
                return Err(format!("rollout: bad state at step {t}"));
            }
        }
        xs.extend(d.qpos.iter().chain(&d.qvel).chain(&d.act));
        let r = self.residual_of(|t| &xs[t * nx..t * nx + nq + nv])?;
        let (xs, warm, a) = (&xs, &warm, &a);
        let n = self.params.len();
        let cols: Vec<Result<DVector<f64>, String>> = self.threads.map((0..n).collect(), |j| {
            let mut col = DVector::zeros(r.len());
            let Some(delta) = self.delta(theta, j) else {
                return Ok(col);
            };
            let mut tp = theta.to_vec();
            tp[j] += delta;
            let mp = model_with(self.nominal, self.params, &tp)?;
            let mut dp = Data::new(&mp);
            let (mut s, mut s1, mut dx) = (vec![0.0; ndx], vec![0.0; ndx], vec![0.0; ndx]);
            let mut dq = vec![0.0; nq];
            for t in 0..steps {
                let (x, x1) = (&xs[t * nx..(t + 1) * nx], &xs[(t + 1) * nx..(t + 2) * nx]);
                dp.qpos.copy_from_slice(&x[..nq]);
                dp.qvel.copy_from_slice(&x[nq..nq + nv]);
                dp.act.copy_from_slice(&x[nq + nv..]);
                dp.qacc_warmstart
                    .copy_from_slice(&warm[t * nv..(t + 1) * nv]);
                dp.ctrl.copy_from_slice(&log.ctrl[t]);
                step_skip(&mp, &mut dp, Skip::None, true);
                if bad(&dp) {
                    return Err(format!("{:?}: bad state at step {t}", self.params[j]));
                }
                // ∂f/∂θ_j = (f(x_t; θ + δ e_j) ⊖ x_{t+1}) / δ
                moreau::differentiate_pos(m, &mut dx[..nv], 1.0, &x1[..nq], &dp.qpos);
                for (i, v) in dp.qvel.iter().chain(&dp.act).enumerate() {
                    dx[nv + i] = v - x1[nq + i];
                }
                // s ← A_t s + ∂f/∂θ_j (A_t column-major)
                let at = &a[t * ndx * ndx..(t + 1) * ndx * ndx];
                for (o, v) in s1.iter_mut().zip(&dx) {
                    *o = v / delta;
                }
                for (c, &sc) in s.iter().enumerate() {
                    if sc != 0.0 {
                        for (o, &ac) in s1.iter_mut().zip(&at[c * ndx..(c + 1) * ndx]) {
                            *o += ac * sc;
                        }
                    }
                }
                std::mem::swap(&mut s, &mut s1);
                // the residual row of x_{t+1}: −(∂qpos, ∂qvel)/scale
                qpos_tangent(m, &x1[..nq], &s[..nv], &mut dq);
                let row = &mut col.as_mut_slice()[t * self.width..(t + 1) * self.width];
                for (k, o) in row.iter_mut().enumerate() {
                    let v = if k < nq { dq[k] } else { s[nv + k - nq] };
                    *o = -v / self.scale[k];
                }
            }
            Ok(col)
        });
        let mut jac = DMatrix::zeros(r.len(), n);
        for (j, c) in cols.into_iter().enumerate() {
            jac.set_column(j, &c?);
        }
        Ok((r, jac))
    }

    /// The residual, its Jacobian, and the trajectories simulated for them in rollouts of the
    /// log's length (`1 + n`, or 1 for analytic sensitivities: the nominal rollout with its
    /// linearization).
    fn jacobian(&self, theta: &[f64], method: RolloutJacobian) -> Result<Linearized, String> {
        let n = self.params.len();
        match method {
            RolloutJacobian::Sensitivity => self.with_model(theta, |m| {
                if let Some(pp) = ParamPartials::new(m, self, theta)? {
                    if let Some(out) = self.jacobian_sensitivity_analytic(m, &pp, theta)? {
                        return Ok(out);
                    }
                }
                let (r, j) = self.jacobian_sensitivity_fd(m, theta)?;
                Ok((r, j, 1 + n))
            })?,
            RolloutJacobian::SensitivityFd => self.with_model(theta, |m| {
                let (r, j) = self.jacobian_sensitivity_fd(m, theta)?;
                Ok((r, j, 1 + n))
            })?,
            RolloutJacobian::FiniteDifference => {
                let r = self.residual(theta)?;
                let jac = self.jacobian_fd(theta, &r)?;
                Ok((r, jac, 1 + n))
            }
        }
    }
}

/// The residual of [`fit_rollout_logs_with`]: several logs' problems, their residuals and
/// Jacobians stacked in order.
struct RolloutProblems<'a>(Vec<RolloutProblem<'a>>);

impl RolloutProblems<'_> {
    fn residual(&self, theta: &[f64]) -> Result<DVector<f64>, String> {
        let parts = self
            .0
            .iter()
            .map(|p| p.residual(theta))
            .collect::<Result<Vec<_>, String>>()?;
        Ok(stack_rows(&parts))
    }

    fn jacobian(&self, theta: &[f64], method: RolloutJacobian) -> Result<Linearized, String> {
        let (mut rs, mut js, mut sims) = (Vec::new(), Vec::new(), 0);
        for p in &self.0 {
            let (r, j, s) = p.jacobian(theta, method)?;
            rs.push(r);
            js.push(j);
            sims += s;
        }
        let rows: usize = rs.iter().map(|r| r.len()).sum();
        let mut jac = DMatrix::zeros(rows, theta.len());
        let mut at = 0;
        for j in &js {
            jac.rows_mut(at, j.nrows()).copy_from(j);
            at += j.nrows();
        }
        Ok((stack_rows(&rs), jac, sims))
    }
}

/// The vectors `parts` one after the other.
fn stack_rows(parts: &[DVector<f64>]) -> DVector<f64> {
    DVector::from_iterator(
        parts.iter().map(|r| r.len()).sum(),
        parts.iter().flat_map(|r| r.iter().copied()),
    )
}

/// The partial derivatives of one step's forward dynamics and integrator with respect to the
/// parameters at fixed state and acceleration, the inputs of
/// [`moreau_derivatives::Workspace::transition_params`]. With `g = M a + c − passive − Jᵀf −
/// qfrc_ext` and the integrator's `He a_int = M qacc` (`He = M − h qDeriv` under implicitfast,
/// `M + h diag(damping)` under Euler's implicit damping):
/// - `Mass { body }`: inverse dynamics is linear in the body's spatial inertia `I_b`, which scales
///   with the mass, so `∂g/∂m_b = J_bᵀ (I_b a_b + v_b ×* I_b v_b) / m_b` (`a_b` the body's
///   acceleration with gravity, `J_b` its dof chain's motion subspaces) and
///   `∂M/∂m_b y = J_bᵀ I_b J_b y / m_b`;
/// - `Damping { dof }`: `∂g = v_i e_i`, `∂(He − M) = h e_i e_iᵀ`;
/// - `Armature { dof }`: `∂g = qacc_i e_i`, `∂M = e_i e_iᵀ`;
/// - `FrictionLoss { dof }`: the row's force at a saturated bound is `±frictionloss`;
/// - contact `Friction`, `SolrefTimeconst`, `SolrefDampratio`: the pyramidal and
///   frictionless rows' basis, regularizer and reference acceleration
///   ([`ParamPartials::contact_columns`]);
/// - masses and armature also move `dof_invweight0` ([`model_with`] recomputes it), which scales
///   the regularizer `R` of the friction-loss and joint-limit rows, so a row in its quadratic
///   zone (`f = −(J a − aref)/R`) changes by `−f ∂R/R = −f ∂w/w` (`∂w/∂θ` by central
///   differences of [`model_with`], once per Jacobian).
///
/// Covered: the Euler and implicitfast integrators (implicit without `Mass`: its `qDeriv` holds
/// RNE's velocity derivative, which depends on the masses), no gravity compensation or fluid
/// forces on a body whose mass is a parameter, no `Inertial` parameters; rows other than
/// friction loss and joint limits only outside their quadratic zone when masses or armature are
/// parameters ([`ParamPartials::columns`] says so per step).
struct ParamPartials {
    params: Vec<Param>,
    /// Parameters whose step is not differentiable at their value, taken by one-step forward
    /// differences instead: a friction loss at 0 (no constraint row: the derivative into the
    /// feasible side is that of a row created saturated).
    one_step: Vec<usize>,
    /// `∂dof_invweight0/∂θ_j` (`nv` per parameter; empty for parameters that do not move it).
    dw: Vec<Vec<f64>>,
    /// Contact parameters with analytic columns ([`ParamPartials::contact_columns`]).
    contact: bool,
    damper: bool,
    eulerdamp: bool,
}

impl ParamPartials {
    fn new(m: &Model, p: &RolloutProblem, theta: &[f64]) -> Result<Option<Self>, String> {
        Self::with_invweight(m, p.params, theta, |tp| {
            p.with_model(tp, |m| m.dof_invweight0.clone())
        })
    }

    /// [`ParamPartials::new`] for `params` at `theta`, `invweight(θ)` giving `dof_invweight0`
    /// of the model with the values `θ`.
    fn with_invweight(
        m: &Model,
        params: &[Param],
        theta: &[f64],
        invweight: impl Fn(&[f64]) -> Result<Vec<f64>, String>,
    ) -> Result<Option<Self>, String> {
        use moreau::model::{disable, Integrator};
        use moreau_derivatives::Support;
        let fluid = m.opt.density != 0.0 || m.opt.viscosity != 0.0;
        let has_mass = params.iter().any(|q| matches!(q, Param::Mass { .. }));
        let integrator_ok = match m.opt.integrator {
            Integrator::Euler | Integrator::ImplicitFast => true,
            Integrator::Implicit => !has_mass,
            _ => false,
        };
        let params_ok = params.iter().all(|q| match *q {
            Param::Inertial { .. } => false,
            Param::Mass { body } => m.body_gravcomp[body] == 0.0 && !fluid,
            _ => true,
        });
        // (the parameter columns are not derived through the noslip post-pass)
        let noslip = m.opt.noslip_iterations > 0;
        if !(integrator_ok && params_ok && !noslip && Support::transition(m).is_covered()) {
            return Ok(None);
        }
        let mut dw = Vec::with_capacity(theta.len());
        for (j, q) in params.iter().enumerate() {
            if !matches!(q, Param::Mass { .. } | Param::Armature { .. }) {
                dw.push(Vec::new());
                continue;
            }
            let delta = 1e-4 * theta[j].abs().max(0.1);
            let at = |x: f64| -> Result<Vec<f64>, String> {
                let mut tp = theta.to_vec();
                tp[j] = x;
                invweight(&tp)
            };
            let up = at(theta[j] + delta)?;
            let col = match at(theta[j] - delta) {
                Ok(lo) => up
                    .iter()
                    .zip(&lo)
                    .map(|(u, l)| (u - l) / (2.0 * delta))
                    .collect(),
                // at a lower bound (armature 0): the one-sided second-order difference
                Err(_) => {
                    let up2 = at(theta[j] + 2.0 * delta)?;
                    let w0 = &m.dof_invweight0;
                    (0..m.nv)
                        .map(|i| (-3.0 * w0[i] + 4.0 * up[i] - up2[i]) / (2.0 * delta))
                        .collect()
                }
            };
            dw.push(col);
        }
        let one_step = (0..params.len())
            .filter(|&j| {
                matches!(params[j], Param::FrictionLoss { dof } if m.dof_frictionloss[dof] == 0.0)
            })
            .collect();
        let contact = params.iter().any(Param::is_contact);
        Ok(Some(ParamPartials {
            params: params.to_vec(),
            one_step,
            dw,
            contact,
            damper: !m.opt.disabled(disable::DAMPER),
            eulerdamp: m.opt.integrator != Integrator::Euler || !m.opt.disabled(disable::EULERDAMP),
        }))
    }

    /// One step's linearization at the state, controls and warm start of `d` (forwarded here):
    /// the transition Jacobian `A` and the analytic parameter columns `∂x'/∂θ` (zero for the
    /// one-step parameters); `None` when a constraint row's dependence is not covered.
    fn linearize_step(
        &self,
        m: &Model,
        d: &mut Data,
        ws: &mut moreau_derivatives::Workspace,
        force: &mut DMatrix<f64>,
        he: &mut DMatrix<f64>,
    ) -> Result<Option<StepLinearization>, String> {
        use moreau::pipeline::{check_acc, check_pos, check_vel};
        let opts = moreau_derivatives::TransitionOptions::analytic()
            .forwarded()
            .with_sensors(false);
        check_pos(m, d);
        check_vel(m, d);
        moreau::forward(m, d);
        check_acc(m, d);
        let a = ws
            .transition(m, d, &opts)
            .map_err(|e| format!("transition Jacobians: {e}"))?
            .A
            .clone();
        let aint = ws.a_int().ok_or("transition: no a_int")?.to_vec();
        if !self.columns(m, d, &aint, force, he) {
            return Ok(None);
        }
        let g = ws
            .transition_params(m, d, force, he)
            .map_err(|e| format!("parameter Jacobian: {e}"))?;
        Ok(Some((a, g)))
    }

    /// Writes `force = −∂g/∂θ` and `he = ∂M/∂θ (qacc − a_int) − ∂(He − M)/∂θ a_int` at the
    /// forwarded state of `d`; false when a constraint row's dependence is not covered.
    fn columns(
        &self,
        m: &Model,
        d: &Data,
        aint: &[f64],
        force: &mut DMatrix<f64>,
        he: &mut DMatrix<f64>,
    ) -> bool {
        use moreau::data::{ConstraintState, ConstraintType};
        use moreau::pipeline::{body_last_dof, cross_force, dof_parent, inert_mul};
        use nalgebra::Vector6;
        let (nv, h) = (m.nv, m.opt.timestep);
        force.fill(0.0);
        he.fill(0.0);
        let mut cacc: Vec<Vector6<f64>> = Vec::new();
        let mut chain = Vec::new();
        let mut jrow = vec![0.0; nv];
        for (j, &q) in self.params.iter().enumerate() {
            match q {
                Param::Mass { body } => {
                    if cacc.is_empty() {
                        // body accelerations with gravity, as RNE forms them
                        cacc.resize(m.nbody, Vector6::zeros());
                        if !m.opt.disabled(moreau::model::disable::GRAVITY) {
                            let g = m.opt.gravity;
                            cacc[0] = Vector6::new(0.0, 0.0, 0.0, -g[0], -g[1], -g[2]);
                        }
                        for b in 1..m.nbody {
                            let mut a = cacc[m.body_parentid[b]];
                            let d0 = m.body_dofadr[b];
                            for i in d0..d0 + m.body_dofnum[b] {
                                a += d.cdof_dot[i] * d.qvel[i] + d.cdof[i] * d.qacc[i];
                            }
                            cacc[b] = a;
                        }
                    }
                    let (ci, mass) = (&d.cinert[body], m.body_mass[body]);
                    let v = &d.cvel[body];
                    let f = (inert_mul(ci, &cacc[body]) + cross_force(v, &inert_mul(ci, v))) / mass;
                    chain.clear();
                    let mut k = body_last_dof(m, body);
                    while let Some(kk) = k {
                        chain.push(kk);
                        k = dof_parent(m, kk);
                    }
                    let mut ay = Vector6::zeros();
                    for &k in &chain {
                        ay += d.cdof[k] * (d.qacc[k] - aint[k]);
                    }
                    let fy = inert_mul(ci, &ay) / mass;
                    for &k in &chain {
                        force[(k, j)] = -d.cdof[k].dot(&f);
                        he[(k, j)] = d.cdof[k].dot(&fy);
                    }
                }
                Param::Damping { dof } => {
                    if self.damper {
                        force[(dof, j)] = -d.qvel[dof];
                        if self.eulerdamp {
                            he[(dof, j)] = -h * aint[dof];
                        }
                    }
                }
                Param::Armature { dof } => {
                    force[(dof, j)] = -d.qacc[dof];
                    he[(dof, j)] = d.qacc[dof] - aint[dof];
                }
                // friction loss: its rows below; contact parameters: one-step columns
                Param::FrictionLoss { .. }
                | Param::Inertial { .. }
                | Param::Friction { .. }
                | Param::SolrefTimeconst { .. }
                | Param::SolrefDampratio { .. } => {}
            }
        }
        // the constraint force at its active set: −∂g = Jᵀ ∂f
        for r in 0..d.nefc {
            let (ty, st, f) = (d.efc_type[r], d.efc_state[r], d.efc_force[r]);
            if st == ConstraintState::Satisfied || f == 0.0 {
                continue;
            }
            let dof = match ty {
                ConstraintType::FrictionDof => Some(d.efc_id[r]),
                ConstraintType::LimitJoint => Some(m.jnt_dofadr[d.efc_id[r]]),
                _ => None,
            };
            let mut touched = false;
            for (j, &q) in self.params.iter().enumerate() {
                let df = match (q, st) {
                    (Param::FrictionLoss { dof: i }, ConstraintState::LinearNeg)
                    | (Param::FrictionLoss { dof: i }, ConstraintState::LinearPos)
                        if ty == ConstraintType::FrictionDof && d.efc_id[r] == i =>
                    {
                        f / d.efc_frictionloss[r]
                    }
                    (Param::Mass { .. } | Param::Armature { .. }, ConstraintState::Quadratic) => {
                        let Some(k) = dof else {
                            return false;
                        };
                        if d.efc_R[r] <= 1e-15 {
                            continue;
                        }
                        -f * self.dw[j][k] / m.dof_invweight0[k]
                    }
                    (Param::Mass { .. } | Param::Armature { .. }, ConstraintState::Cone) => {
                        return false;
                    }
                    _ => continue,
                };
                if !touched {
                    d.efc_J_row(r, nv).expand(&mut jrow);
                    touched = true;
                }
                for (k, &jk) in jrow.iter().enumerate() {
                    if jk != 0.0 {
                        force[(k, j)] += jk * df;
                    }
                }
            }
        }
        if self.contact {
            self.contact_columns(m, d, force);
        }
        true
    }

    /// `−∂g/∂θ` of the contact parameters at the solver's active set (Modeling "Solver
    /// parameters", Computation "Constraint model"). A pyramidal row `r` of edge pair `e`,
    /// sign `s = ±1`, has `J_r = J_n + s μ_e J_e`, the regularizer of all the contact's rows
    /// `R = 2 μ_0²/impratio · (1 − d)/d · A_0` with `A_0 = tran (1 + μ_0²)`, and
    /// `aref_r = −B J_r v − K d (pos − margin)` with `B = 2/(d_max τ)`,
    /// `K = 1/(d_max² τ² ζ²)` (`solref = (τ, ζ)`). In its quadratic zone
    /// `f_r = −(J_r a − aref_r)/R`, so at fixed `a`: `∂f_r = −f_r ∂R/R − (∂J_r a − ∂aref_r)/R`,
    /// and `−∂g = Σ_r ∂J_rᵀ f_r + J_rᵀ ∂f_r`. The sliding friction moves `μ_0 = μ_1`
    /// (`J_e = (J_{2e} − J_{2e+1})/(2μ_e)` from the rows themselves), solref moves `K`, `B`.
    fn contact_columns(&self, m: &Model, d: &Data, force: &mut DMatrix<f64>) {
        use moreau::data::{ConstraintState, ConstraintType};
        let (nv, h) = (m.nv, m.opt.timestep);
        let refsafe = !m.opt.disabled(moreau::model::disable::REFSAFE);
        let mut col = vec![0.0; nv];
        let active =
            |r: usize| d.efc_state[r] == ConstraintState::Quadratic && d.efc_force[r] != 0.0;
        for cone in &d.efc_cone {
            let (adr, nrow, dim, fr) = (cone.adr, cone.nrow, cone.dim, cone.friction);
            if d.efc_type[adr] == ConstraintType::ContactElliptic {
                self.elliptic_columns(m, d, cone, force);
                continue;
            }
            if !(adr..adr + nrow).any(active) {
                continue;
            }
            let pyramidal = d.efc_type[adr] == ConstraintType::ContactPyramidal;
            let c = &d.contact[d.efc_id[adr]];
            for (j, q) in self.params.iter().enumerate() {
                let Some((g, kind)) = q.contact_kind() else {
                    continue;
                };
                let w = contact_weight(m, c.geom, g, kind);
                if w == 0.0 || (kind == 0 && !pyramidal) {
                    continue;
                }
                col.fill(0.0);
                if kind == 0 {
                    // ∂ ln R / ∂μ_0: μ_0² and A_0, unless (1 − d)/d · A_0 sits at its floor
                    let f0 = fr[0];
                    let r0 = d.efc_R[adr] * m.opt.impratio / (2.0 * f0 * f0);
                    let da0 = if r0 > 1.000001e-15 {
                        2.0 * f0 / (1.0 + f0 * f0)
                    } else {
                        0.0
                    };
                    let dlnr = w * (2.0 / f0 + da0);
                    for r in (adr..adr + nrow).filter(|&r| active(r)) {
                        d.efc_J_row(r, nv).axpy(-d.efc_force[r] * dlnr, &mut col);
                    }
                    // the two sliding edge pairs (both take friction[0])
                    for (e, &mu_e) in fr.iter().enumerate().take(2.min(dim - 1)) {
                        let (rp, rm) = (adr + 2 * e, adr + 2 * e + 1);
                        let (jp, jm) = (d.efc_J_row(rp, nv), d.efc_J_row(rm, nv));
                        let two_mu = 2.0 * mu_e;
                        let jea = (jp.dot(&d.qacc) - jm.dot(&d.qacc)) / two_mu;
                        let jev = (d.efc_vel[rp] - d.efc_vel[rm]) / two_mu;
                        let mut sf = 0.0;
                        for (r, s) in [(rp, 1.0), (rm, -1.0)] {
                            if active(r) {
                                let b = d.efc_KBIP[r][1];
                                let df = -d.efc_D[r] * s * w * (jea + b * jev);
                                d.efc_J_row(r, nv).axpy(df, &mut col);
                                sf += s * d.efc_force[r];
                            }
                        }
                        // Σ_r ∂J_rᵀ f_r = w J_eᵀ (f_{2e} − f_{2e+1})
                        let cf = w * sf / two_mu;
                        jp.axpy(cf, &mut col);
                        jm.axpy(-cf, &mut col);
                    }
                } else {
                    // the standard format only; refsafe's floor τ ≥ 2h is flat
                    let (tc, dr) = (c.solref[0], c.solref[1]);
                    if tc <= 0.0 || dr <= 0.0 || (refsafe && tc < 2.0 * h) {
                        continue;
                    }
                    for r in (adr..adr + nrow).filter(|&r| active(r)) {
                        let daref = w * daref_solref(d, r, kind, tc, dr);
                        d.efc_J_row(r, nv).axpy(d.efc_D[r] * daref, &mut col);
                    }
                }
                for (k, v) in col.iter().enumerate() {
                    force[(k, j)] += v;
                }
            }
        }
    }
}

impl ParamPartials {
    /// [`ParamPartials::contact_columns`] of an elliptic cone's rows `adr..adr + dim` (row 0
    /// normal, row `j` tangential with `friction[j − 1]`; Computation "Constraint model",
    /// docs/mujoco-behaviour.md#cost). At fixed `a` the parameters move:
    /// - the sliding friction `s` (`friction[0] = friction[1]`): `μ = friction[0]/√impratio`,
    ///   the scaling `U_j = friction[j−1] jar_j`, and the regularizers of the torsional and
    ///   rolling rows `R_j = R_1 friction[0]²/friction[j−1]²` (`R_0` = `(1 − d)/d · tran`,
    ///   `R_1 = R_0/impratio` do not depend on it);
    /// - solref: `aref_j = −B_j vel_j − K_j d (pos_j − margin_j)` (the tangential rows: `K = 0`,
    ///   `B` from solref unless the contact has its own `solreffriction`), so `∂jar = −∂aref`.
    ///
    /// The force in the bottom zone is `f_j = −D_j jar_j`; in the middle zone, with `N = μ
    /// jar_0`, `T = |U|`, `D_m = D_0/(μ²(1 + μ²))`: `f_0 = −D_m (N − μT) μ`, `f_j = −f_0 U_j
    /// friction[j−1]/T`; in the top zone 0. Its differential at fixed `a` gives `−∂g = Σ_j
    /// J_jᵀ ∂f_j` (the rows' `J` do not depend on the parameters).
    #[allow(clippy::needless_range_loop)] // index-based, over the cone's rows
    fn elliptic_columns(
        &self,
        m: &Model,
        d: &Data,
        cone: &moreau::data::EfcCone<f64>,
        force: &mut DMatrix<f64>,
    ) {
        use moreau::data::ConstraintState;
        let (nv, h) = (m.nv, m.opt.timestep);
        let refsafe = !m.opt.disabled(moreau::model::disable::REFSAFE);
        let (adr, dim, fr, mu) = (cone.adr, cone.dim, cone.friction, cone.mu);
        let state = d.efc_state[adr];
        if dim < 2 || !matches!(state, ConstraintState::Quadratic | ConstraintState::Cone) {
            return;
        }
        let c = &d.contact[d.efc_id[adr]];
        let own_fr = cone.solreffriction[0] != 0.0 || cone.solreffriction[1] != 0.0;
        let jar: Vec<f64> = (adr..adr + dim)
            .map(|r| d.efc_J_row(r, nv).dot(&d.qacc) - d.efc_aref[r])
            .collect();
        let sqi = m.opt.impratio.max(1e-15).sqrt();
        for (j, q) in self.params.iter().enumerate() {
            let Some((g, kind)) = q.contact_kind() else {
                continue;
            };
            let w = contact_weight(m, c.geom, g, kind);
            if w == 0.0 {
                continue;
            }
            // differentials of friction[0..dim−1], μ, jar and D per unit parameter
            let mut dfr = [0.0; 5];
            let mut djar = [0.0; 6];
            let mut dd = [0.0; 6];
            let mut dmu = 0.0;
            if kind == 0 {
                dfr[0] = w;
                dfr[1] = w;
                dmu = w / sqi;
                for k in 2..dim {
                    // R_k ∝ friction[0]²/friction[k−1]²
                    let dlnr = 2.0 * dfr[0] / fr[0] - 2.0 * dfr[k - 1] / fr[k - 1];
                    dd[k] = -d.efc_D[adr + k] * dlnr;
                }
            } else {
                let (tc, dr) = (c.solref[0], c.solref[1]);
                if tc <= 0.0 || dr <= 0.0 || (refsafe && tc < 2.0 * h) {
                    continue;
                }
                for k in 0..dim {
                    if k > 0 && own_fr {
                        continue;
                    }
                    djar[k] = -w * daref_solref(d, adr + k, kind, tc, dr);
                }
            }
            let mut df = [0.0; 6];
            if state == ConstraintState::Quadratic {
                for k in 0..dim {
                    df[k] = -dd[k] * jar[k] - d.efc_D[adr + k] * djar[k];
                }
            } else {
                let n = mu * jar[0];
                let dn = dmu * jar[0] + mu * djar[0];
                let (mut u, mut du) = ([0.0; 6], [0.0; 6]);
                let mut tt = 0.0;
                for k in 1..dim {
                    u[k] = fr[k - 1] * jar[k];
                    du[k] = dfr[k - 1] * jar[k] + fr[k - 1] * djar[k];
                    tt += u[k] * u[k];
                }
                let t = tt.sqrt();
                let dt = (1..dim).map(|k| u[k] * du[k]).sum::<f64>() / t;
                let dm = d.efc_D[adr] / (mu * mu * (1.0 + mu * mu));
                let ddm = -dm * (2.0 + 4.0 * mu * mu) / (mu * (1.0 + mu * mu)) * dmu;
                let nmt = n - mu * t;
                let dnmt = dn - dmu * t - mu * dt;
                let f0 = -dm * nmt * mu;
                df[0] = -(ddm * nmt * mu + dm * dnmt * mu + dm * nmt * dmu);
                for k in 1..dim {
                    // f_k = −f_0 U_k friction[k−1] / T
                    let a = u[k] * fr[k - 1];
                    let da = du[k] * fr[k - 1] + u[k] * dfr[k - 1];
                    df[k] = -(df[0] * a / t + f0 * da / t - f0 * a * dt / (t * t));
                }
            }
            let mut col = vec![0.0; nv];
            for (k, &x) in df.iter().enumerate().take(dim) {
                if x != 0.0 {
                    d.efc_J_row(adr + k, nv).axpy(x, &mut col);
                }
            }
            for (k, v) in col.iter().enumerate() {
                force[(k, j)] += v;
            }
        }
    }
}

/// `∂aref_r/∂solref[kind − 1]` of row `r` (`aref = −B vel − K d (pos − margin)`, `B = 2/(d_max
/// τ)`, `K = 1/(d_max² τ² ζ²)` with `solref = (τ, ζ)` = `(tc, dr)`; Modeling "Solver
/// parameters").
fn daref_solref(d: &Data, r: usize, kind: usize, tc: f64, dr: f64) -> f64 {
    let [k, b, imp, _] = d.efc_KBIP[r];
    let (dk, db) = if kind == 1 {
        (-2.0 * k / tc, -b / tc)
    } else {
        (-2.0 * k / dr, 0.0)
    };
    -(db * d.efc_vel[r] + dk * imp * (d.efc_pos[r] - d.efc_margin[r]))
}

/// `∂qpos/∂ε` of `qpos ⊕ ε dv` at `ε = 0` (`mj_integratePos`): `dv` on hinge and slide joints
/// and free joints' positions, `½ q ⊗ (0, ω)` on quaternions (local angular velocity).
fn qpos_tangent(m: &Model, q: &[f64], dv: &[f64], out: &mut [f64]) {
    use moreau::model::JointType;
    let quat = |q: &[f64], w: &[f64], o: &mut [f64]| {
        o[0] = 0.5 * (-q[1] * w[0] - q[2] * w[1] - q[3] * w[2]);
        o[1] = 0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1]);
        o[2] = 0.5 * (q[0] * w[1] + q[3] * w[0] - q[1] * w[2]);
        o[3] = 0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0]);
    };
    for j in 0..m.njnt {
        let (qa, va) = (m.jnt_qposadr[j], m.jnt_dofadr[j]);
        match m.jnt_type[j] {
            JointType::Hinge | JointType::Slide => out[qa] = dv[va],
            JointType::Ball => quat(&q[qa..qa + 4], &dv[va..va + 3], &mut out[qa..qa + 4]),
            JointType::Free => {
                out[qa..qa + 3].copy_from_slice(&dv[va..va + 3]);
                quat(
                    &q[qa + 3..qa + 7],
                    &dv[va + 3..va + 6],
                    &mut out[qa + 3..qa + 7],
                );
            }
        }
    }
}

/// The residual of [`fit_rollout`] at `theta` and its Jacobian `∂r/∂θ` by `method` (columns
/// of parameters that cannot move inside `bounds` are zero).
pub fn rollout_jacobian(
    nominal: &Model,
    params: &[Param],
    log: &StateLog,
    theta: &[f64],
    bounds: &[[f64; 2]],
    method: RolloutJacobian,
) -> Result<(DVector<f64>, DMatrix<f64>), String> {
    if theta.len() != params.len() {
        return Err(format!(
            "{} values for {} parameters",
            theta.len(),
            params.len()
        ));
    }
    let threads = Threads::new(0)?;
    let (r, jac, _) =
        RolloutProblem::new(&threads, nominal, params, log, bounds)?.jacobian(theta, method)?;
    Ok((r, jac))
}

/// `∂x'/∂θ` of one step (`(2nv + na) × P`, rows as the transition Jacobian `A`: tangent
/// positions, velocities, activations) from the state, controls and warm start of `d` under
/// `m` at its own parameter values: the analytic columns of [`RolloutJacobian::Sensitivity`]
/// (the implicit function theorem on the step's optimality conditions). `None` where some
/// column would be a one-step difference or a constraint row is not covered. `d` is left
/// forwarded, not stepped.
pub fn step_param_jacobian(
    m: &Model,
    params: &[Param],
    d: &mut Data,
) -> Result<Option<DMatrix<f64>>, String> {
    for &p in params {
        check(m, p)?;
    }
    let theta: Vec<f64> = params.iter().map(|&p| get(m, p)).collect();
    let Some(pp) = ParamPartials::with_invweight(m, params, &theta, |tp| {
        model_with(m, params, tp).map(|mm| mm.dof_invweight0)
    })?
    else {
        return Ok(None);
    };
    if !pp.one_step.is_empty() {
        return Ok(None);
    }
    let (mut force, mut he) = (
        DMatrix::zeros(m.nv, params.len()),
        DMatrix::zeros(m.nv, params.len()),
    );
    let mut ws = moreau_derivatives::Workspace::default();
    Ok(pp
        .linearize_step(m, d, &mut ws, &mut force, &mut he)?
        .map(|(_, g)| g))
}

/// The residual of [`fit_rollout`] at `theta` (one rollout).
pub fn rollout_residual(
    nominal: &Model,
    params: &[Param],
    log: &StateLog,
    theta: &[f64],
) -> Result<DVector<f64>, String> {
    let bounds = vec![[f64::NEG_INFINITY, f64::INFINITY]; params.len()];
    if theta.len() != params.len() {
        return Err(format!(
            "{} values for {} parameters",
            theta.len(),
            params.len()
        ));
    }
    RolloutProblem::new(&Threads::serial(), nominal, params, log, &bounds)?.residual(theta)
}

/// [`fit_rollout_with`] with forward sensitivities ([`RolloutJacobian::Sensitivity`]), the
/// Jacobian's columns on every CPU ([`fit_rollout_on`] takes the threads).
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
    on_iter: impl FnMut(usize, f64),
) -> Result<RolloutFit, String> {
    fit_rollout_with(
        threads,
        nominal,
        params,
        log,
        start,
        bounds,
        max_iter,
        RolloutJacobian::Sensitivity,
        on_iter,
    )
}

/// Bounded Levenberg–Marquardt on the simulation error of `log`: the residual of row `t ≥ 1`
/// and signal `j` is `(y_tj − ŷ_tj(θ)) / s_j`, `ŷ` the rollout of the model built by
/// [`model_with`] from the logged initial state under the logged controls, `s_j = ‖y_·j‖/√2`
/// (the normalization of `mujoco.sysid`'s default residual, so both minimize the same cost).
/// The Jacobian by `method` ([`RolloutJacobian`]), its columns on `threads` (bit-identical at
/// any thread count). The step rule is that of `mujoco.minimize.least_squares`: the step
/// minimizes the quadratic model `½‖r + JΔθ‖² + ½μ‖Δθ‖²` inside the bounds (projected Newton,
/// [`box_qp`]), starting from Gauss–Newton (`μ = 0`); a step must pass Armijo's test
/// `ΔC ≥ −10⁻² gᵀΔθ` on the rollout cost, else `μ` grows by `10^0.1` (from `10⁻⁶`) and the step
/// is recomputed; after an accepted step `μ` shrinks when the actual reduction exceeds 3/4 of the
/// predicted one (faster after consecutive good steps, to 0 below `10⁻⁶`) and grows when it is
/// below 1/4 (Fletcher's rule). A candidate that [`model_with`] refuses or whose rollout fails
/// is rejected like one that fails the test. Stops when a step moves the estimate by less than a
/// tenth of its standard error in the metric of the Gauss–Newton Hessian
/// (`Δθᵀ JᵀJ Δθ < 10⁻² s²`, `s² = ‖r‖²/(N − n)`: further steps cannot change the estimate
/// within its confidence interval), when the free gradient vanishes, when no `μ ≤ 10⁸` gives an
/// acceptable step, or after `max_iter` iterations.
#[allow(clippy::too_many_arguments)]
pub fn fit_rollout_with(
    threads: &Threads,
    nominal: &Model,
    params: &[Param],
    log: &StateLog,
    start: &[f64],
    bounds: &[[f64; 2]],
    max_iter: usize,
    method: RolloutJacobian,
    on_iter: impl FnMut(usize, f64),
) -> Result<RolloutFit, String> {
    fit_rollout_logs_with(
        threads,
        nominal,
        params,
        std::slice::from_ref(log),
        start,
        bounds,
        max_iter,
        method,
        on_iter,
    )
}

/// [`fit_rollout_with`] on several logs of the same system, one parameter vector for all
/// (system identification over many trajectories): the residual is the logs' residuals one
/// after the other, each log normalized by its own signal scales `s_j`, so the cost is the sum
/// of the logs' costs. The logs are linearized one after the other, each Jacobian's columns on
/// `threads`: bit-identical at any thread count, and on one log identical to
/// [`fit_rollout_with`]. `rollouts` counts each log's rollouts.
#[allow(clippy::too_many_arguments)]
pub fn fit_rollout_logs_with(
    threads: &Threads,
    nominal: &Model,
    params: &[Param],
    logs: &[StateLog],
    start: &[f64],
    bounds: &[[f64; 2]],
    max_iter: usize,
    method: RolloutJacobian,
    mut on_iter: impl FnMut(usize, f64),
) -> Result<RolloutFit, String> {
    if logs.is_empty() {
        return Err("no logs to fit".into());
    }
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
    let problem = RolloutProblems(
        logs.iter()
            .map(|log| RolloutProblem::new(threads, nominal, params, log, bounds))
            .collect::<Result<Vec<_>, String>>()?,
    );
    let mut theta = start.to_vec();
    let (mut r, mut jac, mut rollouts) = problem.jacobian(&theta, method)?;
    let mut cost = 0.5 * r.norm_squared();
    let mut history = vec![cost];
    // the regularizer μ of `JᵀJ + μ I`: Gauss–Newton first, raised by MU_FACTOR until a step
    // passes the Armijo test, lowered after a step the quadratic model predicted well
    // (Fletcher 1971), lowered faster after consecutive good steps
    const MU_MIN: f64 = 1e-6;
    const MU_MAX: f64 = 1e8;
    let mu_factor = 10f64.powf(0.1);
    let (mut mu, mut n_reduc) = (0.0, 0u32);
    let increase = |mu: f64| (mu * mu_factor).max(MU_MIN);
    let mut iterations = 0;
    let dof = (r.len() as f64 - n as f64).max(1.0);
    for it in 0..max_iter {
        iterations += 1;
        let g = jac.transpose() * &r;
        let jtj = jac.transpose() * &jac;
        let free_grad = (0..n)
            .filter(|&i| {
                let [lo, hi] = bounds[i];
                !((theta[i] <= lo && g[i] > 0.0) || (theta[i] >= hi && g[i] < 0.0))
            })
            .map(|i| g[i] * g[i])
            .sum::<f64>()
            .sqrt();
        if free_grad <= 1e-12 * (1.0 + cost) {
            break;
        }
        let lo: Vec<f64> = (0..n).map(|i| bounds[i][0] - theta[i]).collect();
        let hi: Vec<f64> = (0..n).map(|i| bounds[i][1] - theta[i]).collect();
        // the step: the box-constrained minimizer of the regularized quadratic model
        // (projected Newton, so a parameter reaching a bound stops there while the others keep
        // their Gauss–Newton step), accepted by Armijo's rule on the rollout cost
        let mut accepted = None;
        loop {
            let mut h = jtj.clone();
            for i in 0..n {
                h[(i, i)] += mu;
            }
            let Some(qp) = box_qp(&h, &g, &lo, &hi, &DVector::zeros(n)) else {
                if mu >= MU_MAX {
                    break;
                }
                (mu, n_reduc) = (increase(mu), 0);
                continue;
            };
            let dx = qp.x;
            let cand: Vec<f64> = (0..n)
                .map(|i| (theta[i] + dx[i]).clamp(bounds[i][0], bounds[i][1]))
                .collect();
            rollouts += 1;
            // a candidate the model or the simulation refuses (a zero mass at its bound, a
            // diverging rollout) is a rejected step
            let rc = problem.residual(&cand).ok();
            let cc = rc
                .as_ref()
                .map_or(f64::INFINITY, |rc| 0.5 * rc.norm_squared());
            let gdx = g.dot(&dx);
            if cc.is_finite() && cost - cc + 1e-2 * gdx >= 0.0 {
                let predicted = -(gdx + 0.5 * dx.dot(&(&jtj * &dx)));
                accepted = Some((cand, cc, predicted, dx.dot(&(&jtj * &dx))));
                break;
            }
            if mu >= MU_MAX {
                break;
            }
            // a rejected step costs a rollout: raise μ tenfold (from 10⁻⁶ of JᵀJ's largest
            // diagonal entry), not by the model-fit factor
            let floor = MU_MIN * (0..n).map(|i| jtj[(i, i)]).fold(0.0, f64::max);
            (mu, n_reduc) = ((10.0 * mu).max(floor).max(MU_MIN), 0);
        }
        let Some((cand, cc, predicted, moved)) = accepted else {
            break;
        };
        let ratio = if predicted > 0.0 {
            (cost - cc) / predicted
        } else {
            0.0
        };
        if ratio > 0.75 {
            let next = mu * (1.0 / mu_factor).powi(1 << n_reduc.min(20));
            mu = if next < MU_MIN { 0.0 } else { next };
            n_reduc += 1;
        } else if ratio < 0.25 {
            (mu, n_reduc) = (increase(mu), 0);
        }
        // converged when the step moves the estimate by less than a tenth of its standard
        // error in the metric of JᵀJ: `Δθᵀ JᵀJ Δθ < 10⁻² s²`, `s² = ‖r‖²/(N − n)`
        let small = moved < 1e-2 * 2.0 * cc / dof;
        theta = cand;
        let sims;
        (r, jac, sims) = problem.jacobian(&theta, method)?;
        rollouts += sims;
        cost = 0.5 * r.norm_squared();
        history.push(cost);
        on_iter(it, cost);
        if small {
            break;
        }
    }
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
