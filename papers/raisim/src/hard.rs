//! Hard-contact, velocity-level time stepping (Le Lidec & Carpentier, section II) on the engine's
//! collision and smooth dynamics, with the solvers of [`crate::gauss_seidel`].
//!
//! One step of [`step_hard`]:
//! 1. the smooth pipeline (kinematics, inertia and its factorization, bias, passive and applied
//!    forces, actuation) and collision give `qacc_smooth = M⁻¹(τ − c)` and the contacts;
//! 2. the free velocity `v_f = v + h qacc_smooth`;
//! 3. for the active contacts (`dist < includemargin`), the contact Jacobian
//!    `J⁽ⁱ⁾ = frame⁽ⁱ⁾ (J_p(body of geom 1) − J_p(body of geom 0))` at the contact point (rows
//!    normal, tangent 1, tangent 2; positive normal velocity separates), the Delassus matrix
//!    `G = J M⁻¹ Jᵀ` and the free contact velocity `g = J v_f − c*` where the reference
//!    velocity `c*` is non-zero in the normal direction only: `c*_N = −dist/h` for a contact
//!    that is still open (it may close within the step, not more) and `c*_N = −erp·dist/h` for a
//!    penetrating one (a fraction `erp` of the penetration is removed per step);
//! 4. the impulses `λ` from RaiSim, RaiSim+DS or PGS, then `v⁺ = v_f + M⁻¹Jᵀλ` and
//!    `q⁺ = q ⊕ h v⁺` ([`moreau::integrate_pos`]).
//!
//! Joint limits of hinge and slide joints are unilateral rows `λ ≥ 0 ⊥ c ≥ 0` appended after the
//! contacts (Jacobian `±e_dof`, velocity positive away from the limit, the same reference velocity
//! `c*` from the limit distance `dist = q − lo` or `hi − q`), solved in the same Gauss-Seidel
//! sweep ([`gauss_seidel::solve_mixed`]); a limit is in the problem when `dist < jnt_margin` or when the
//! free velocity would cross it within the step (`dist + h J v_f < 0`). Only the sliding friction
//! `friction[0]` of a contact is used (condim 1 is frictionless; torsional and rolling friction of
//! condim 4/6 are ignored); ball-joint limits, tendon limits, equality constraints and friction
//! loss are not part of the hard problem.

#![allow(clippy::needless_range_loop)]

pub use crate::contact::contact_jacobian;
use crate::gauss_seidel::{self, GsInfo, GsOptions, GsVariant};
use crate::ncp::{self, NcpErrors};
use moreau::data::Data;
use moreau::model::{JointType, Model};
use moreau::pipeline::{advance_act, fwd_acceleration, fwd_actuation, fwd_position, fwd_velocity};
use moreau::{integrate_pos, solve_m};

/// The hard-contact solver of a [`step_hard`] step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HardSolver {
    /// RaiSim's per-contact bisection (Hwangbo et al.; Le Lidec & Carpentier, problem 7).
    RaiSim,
    /// RaiSim with the de Saxcé correction (Le Lidec & Carpentier, Algorithm 1).
    RaiSimDs,
    /// Projected Gauss-Seidel on the exact Coulomb cone (the reference).
    Pgs,
}

impl HardSolver {
    pub const ALL: [HardSolver; 3] = [HardSolver::RaiSim, HardSolver::RaiSimDs, HardSolver::Pgs];

    fn variant(self) -> GsVariant {
        match self {
            HardSolver::RaiSim => GsVariant::RaiSim,
            HardSolver::RaiSimDs => GsVariant::RaiSimDs,
            HardSolver::Pgs => GsVariant::Pgs,
        }
    }

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            HardSolver::RaiSim => "RaiSim",
            HardSolver::RaiSimDs => "RaiSim+DS",
            HardSolver::Pgs => "PGS",
        }
    }
}

/// Options of [`step_hard`].
#[derive(Clone, Copy, Debug)]
pub struct HardOptions {
    pub gs: GsOptions,
    /// Fraction of a penetration removed per step (Baumgarte-like reference velocity).
    pub erp: f64,
}

impl Default for HardOptions {
    fn default() -> Self {
        HardOptions {
            gs: GsOptions::default(),
            erp: 0.1,
        }
    }
}

/// The velocity-level contact problem of one step.
#[derive(Clone, Debug, Default)]
pub struct ContactProblem {
    /// Number of contacts in the problem.
    pub nc: usize,
    /// Number of joint-limit rows (after the `3nc` contact rows).
    pub nl: usize,
    /// Joint of each limit row.
    pub limit_joint: Vec<usize>,
    /// `+1` for a lower limit (`J = e_dof`), `−1` for an upper one (`J = −e_dof`).
    pub limit_sign: Vec<f64>,
    /// Index in `d.contact` of each problem contact.
    pub contact: Vec<usize>,
    /// Friction coefficient of each contact.
    pub mu: Vec<f64>,
    /// Constraint Jacobian, `n × nv` row-major with `n = 3nc + nl` (rows N, T1, T2 per
    /// contact, then one row per limit).
    pub J: Vec<f64>,
    /// `M⁻¹ Jᵀ` stored transposed: row `r` is `M⁻¹ J_rᵀ` (`n × nv`).
    pub MinvJT: Vec<f64>,
    /// Delassus matrix `J M⁻¹ Jᵀ`, `n × n` row-major.
    pub G: Vec<f64>,
    /// Free velocity `J v_f − c*` (`n`).
    pub g: Vec<f64>,
    /// Reference velocity `c*` (`n`; contact normal and limit rows only non-zero).
    pub cref: Vec<f64>,
}

impl ContactProblem {
    /// Constraint velocities `c = Gλ + g` (relative to `c*`).
    pub fn velocity(&self, lambda: &[f64]) -> Vec<f64> {
        let n = self.g.len();
        (0..n)
            .map(|r| {
                self.g[r]
                    + self.G[r * n..(r + 1) * n]
                        .iter()
                        .zip(lambda)
                        .map(|(a, b)| a * b)
                        .sum::<f64>()
            })
            .collect()
    }
}

/// True if contact `i` of `d` takes part in the constraint problem (`dist < includemargin`).
pub fn is_active(d: &Data<f64>, i: usize) -> bool {
    let c = &d.contact[i];
    c.exclude == 0 && c.dist < c.includemargin
}

/// The limit rows of hinge and slide joints in the problem (see the module docs): `(joint,
/// sign, dist)` with `sign = +1` for the lower limit.
fn active_limits(m: &Model, d: &Data<f64>, vf: &[f64]) -> Vec<(usize, f64, f64)> {
    let h = m.opt.timestep;
    let mut out = vec![];
    for j in 0..m.njnt {
        if !m.jnt_limited[j] || !matches!(m.jnt_type[j], JointType::Hinge | JointType::Slide) {
            continue;
        }
        let q = d.qpos[m.jnt_qposadr[j]];
        let v = vf[m.jnt_dofadr[j]];
        let [lo, hi] = m.jnt_range[j];
        for (sign, dist) in [(1.0, q - lo), (-1.0, hi - q)] {
            if dist < m.jnt_margin[j] || dist + h * sign * v < 0.0 {
                out.push((j, sign, dist));
            }
        }
    }
    out
}

/// Assembles the problem from `d.contact` (after collision and the position stage), the joint
/// limits and the free velocity `vf`.
pub fn assemble(m: &Model, d: &Data<f64>, vf: &[f64], erp: f64) -> ContactProblem {
    let nv = m.nv;
    let h = m.opt.timestep;
    let contact: Vec<usize> = (0..d.contact.len()).filter(|&i| is_active(d, i)).collect();
    let nc = contact.len();
    let limits = active_limits(m, d, vf);
    let nl = limits.len();
    let n = 3 * nc + nl;
    let mut J = vec![0.0; n * nv];
    for (k, &ci) in contact.iter().enumerate() {
        contact_jacobian(m, d, ci, &mut J[3 * k * nv..3 * (k + 1) * nv]);
    }
    for (k, &(j, sign, _)) in limits.iter().enumerate() {
        J[(3 * nc + k) * nv + m.jnt_dofadr[j]] = sign;
    }
    let mut MinvJT = J.clone();
    for r in 0..n {
        solve_m(m, d, &mut MinvJT[r * nv..(r + 1) * nv]);
    }
    let mut G = vec![0.0; n * n];
    for r in 0..n {
        for s in r..n {
            let v: f64 = (0..nv).map(|k| J[r * nv + k] * MinvJT[s * nv + k]).sum();
            G[r * n + s] = v;
            G[s * n + r] = v;
        }
    }
    let mut cref = vec![0.0; n];
    let mut g = vec![0.0; n];
    let mut mu = vec![0.0; nc];
    for (k, &ci) in contact.iter().enumerate() {
        let c = &d.contact[ci];
        let dist = c.dist;
        cref[3 * k] = if dist > 0.0 {
            -dist / h
        } else {
            -erp * dist / h
        };
        mu[k] = if c.dim >= 3 { c.friction[0] } else { 0.0 };
        for r in 0..3 {
            let row = 3 * k + r;
            g[row] = (0..nv).map(|j| J[row * nv + j] * vf[j]).sum::<f64>() - cref[row];
        }
    }
    for (k, &(j, sign, dist)) in limits.iter().enumerate() {
        let row = 3 * nc + k;
        cref[row] = if dist > 0.0 {
            -dist / h
        } else {
            -erp * dist / h
        };
        g[row] = sign * vf[m.jnt_dofadr[j]] - cref[row];
    }
    ContactProblem {
        nc,
        nl,
        limit_joint: limits.iter().map(|l| l.0).collect(),
        limit_sign: limits.iter().map(|l| l.1).collect(),
        contact,
        mu,
        J,
        MinvJT,
        G,
        g,
        cref,
    }
}

/// What a hard step computed: the contact problem, the impulses and the NCP criteria.
#[derive(Clone, Debug, Default)]
pub struct HardStep {
    pub problem: ContactProblem,
    /// Impulses (`3nc` contact components in contact frames, then `nl` limit impulses); forces
    /// are `λ / h`.
    pub lambda: Vec<f64>,
    /// Constraint velocities after the step, relative to `c*` (`3nc + nl`).
    pub velocity: Vec<f64>,
    /// Per-contact NCP errors (Le Lidec & Carpentier).
    pub errors: Vec<NcpErrors>,
    /// Solver iterations and convergence.
    pub info: GsInfo,
}

impl HardStep {
    /// `ε_abs` of the step (0 without contacts).
    pub fn eps_abs(&self) -> f64 {
        ncp::max_errors(&self.errors).abs()
    }

    /// Largest NCP error of the joint-limit rows (`λ ≥ 0 ⊥ c ≥ 0`, forces `λ/h`): the
    /// largest of `max(0, −λ/h)`, `max(0, −c)` and `|λ c|/h` (0 without limits).
    pub fn limit_error(&self, h: f64) -> f64 {
        let p = &self.problem;
        (3 * p.nc..3 * p.nc + p.nl).fold(0.0f64, |e, r| {
            let (l, c) = (self.lambda[r], self.velocity[r]);
            e.max((-l / h).max(0.0))
                .max((-c).max(0.0))
                .max((l * c / h).abs())
        })
    }

    /// World-frame contact force of problem contact `k` (acting on geom 1's body), `λ/h`
    /// rotated out of the contact frame.
    pub fn world_force(&self, d: &Data<f64>, k: usize, h: f64) -> [f64; 3] {
        let f = &d.contact[self.problem.contact[k]].frame;
        let l = &self.lambda[3 * k..3 * k + 3];
        let mut w = [0.0; 3];
        for a in 0..3 {
            w[a] = (0..3).map(|r| f[(r, a)] * l[r]).sum::<f64>() / h;
        }
        w
    }
}

/// One hard-contact time step (see the module docs): smooth dynamics and collision from the
/// engine, the contact impulses from `solver`, `v⁺ = v_f + M⁻¹Jᵀλ`, `q⁺ = q ⊕ h v⁺`, activations
/// and time advanced. Sets `qacc = (v⁺ − v)/h` and `qfrc_constraint = Jᵀλ/h`.
pub fn step_hard(m: &Model, d: &mut Data<f64>, solver: HardSolver, opts: &HardOptions) -> HardStep {
    let nv = m.nv;
    let h = m.opt.timestep;
    // The position stage runs collision (and assembles MuJoCo's soft rows, unused here).
    fwd_position(m, d);
    fwd_velocity(m, d);
    fwd_actuation(m, d);
    fwd_acceleration(m, d);
    let vf: Vec<f64> = (0..nv).map(|i| d.qvel[i] + h * d.qacc_smooth[i]).collect();
    let problem = assemble(m, d, &vf, opts.erp);
    let n = 3 * problem.nc + problem.nl;
    let mut lambda = vec![0.0; n];
    let info = if n > 0 {
        gauss_seidel::solve_mixed(
            solver.variant(),
            &problem.G,
            &problem.g,
            &problem.mu,
            problem.nl,
            &opts.gs,
            &mut lambda,
        )
    } else {
        GsInfo::default()
    };
    let velocity = problem.velocity(&lambda);
    let errors = ncp::errors(&lambda, &velocity, &problem.mu, h);
    // v⁺ = v_f + M⁻¹Jᵀλ; qfrc_constraint = Jᵀλ/h.
    let mut vplus = vf;
    d.qfrc_constraint.iter_mut().for_each(|x| *x = 0.0);
    for r in 0..n {
        let l = lambda[r];
        if l == 0.0 {
            continue;
        }
        for k in 0..nv {
            vplus[k] += problem.MinvJT[r * nv + k] * l;
            d.qfrc_constraint[k] += problem.J[r * nv + k] * l / h;
        }
    }
    for k in 0..nv {
        d.qacc[k] = (vplus[k] - d.qvel[k]) / h;
        d.qvel[k] = vplus[k];
    }
    d.qacc_warmstart.copy_from_slice(&d.qacc);
    advance_act(m, &mut d.act, &d.act_dot, h);
    integrate_pos(m, &mut d.qpos, &d.qvel, h);
    d.time += h;
    HardStep {
        problem,
        lambda,
        velocity,
        errors,
        info,
    }
}

/// A stepping mode: MuJoCo's pipeline with its soft solver (`opt.solver`), or a hard-contact
/// solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepMode {
    Soft,
    Hard(HardSolver),
}

/// Steps `d` once in the given mode. Returns the hard step's record for hard modes.
pub fn step_mode(
    m: &Model,
    d: &mut Data<f64>,
    mode: StepMode,
    opts: &HardOptions,
) -> Option<HardStep> {
    match mode {
        StepMode::Soft => {
            moreau::step(m, d);
            None
        }
        StepMode::Hard(s) => Some(step_hard(m, d, s, opts)),
    }
}
