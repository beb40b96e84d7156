//! Forward dynamics and transition Jacobians through soft contact by the implicit function
//! theorem (IFT) at the constraint solution (Computation "Reduced primal problem").
//!
//! At the solution of the (converged) primal problem the optimality condition is
//! `g(a; x) = M a − qfrc_smooth − Jᵀ f(J a − aref) = qfrc_inverse(q, v, a) − qfrc_ext(x) = 0`
//! (`qfrc_ext = qfrc_applied + qfrc_actuator + Σ Jᵀ xfrc_applied`), so
//! `∂a/∂x = −(M + Jᵀ H[s] J)⁻¹ ∂g/∂x` with the Newton Hessian `M + Jᵀ H J`
//! ([`crate::inverse::dfda`]).
//! - `∂g/∂v`: analytic ([`crate::inverse::dfdv_rows`] minus `∂qfrc_actuator/∂v`);
//! - `∂g/∂(act, u)`: `−∂qfrc_actuator/∂(act, u)` by duals on the actuation stage alone
//!   (`fwd_actuation`, `nu + na` cheap passes over the actuators; position/velocity results
//!   fixed) — exact for every gain/bias/dynamics type and clamp;
//! - `∂g/∂q`: analytic smooth part and `∂M/∂q` ([`crate::rne`]), the constraint force
//!   analytic through the contact geometry ([`crate::constraint_pos`]: primitive-collider contacts,
//!   convex/mesh/height-field contacts through their differentiable re-evaluation
//!   (`moreau::collision::cvxdiff`), hinge/slide and fixed-tendon limits, friction loss, simple
//!   equalities), the rest (tendon springs, other transmissions, ball limits, ...) by a
//!   restricted dual pass — [`crate::inverse_pos::method`] says which; fluid forces by a
//!   kinematics/COM/`com_vel`/fluid pass (`crate::fluid::fluid_pos`); for tendon armature
//!   (not [`crate::inverse_pos::covers`]) by full dual passes, one position/velocity/inverse pass per
//!   tangent direction (no constraint solve). Implicitfast's `∂qDeriv/∂q · a_int` comes from
//!   [`crate::smooth_vel_pos`] (zero for joint and fixed-tendon moments, a
//!   kinematics/tendon/transmission dual pass otherwise), the fluid block's `∂/∂(q, v) · a_int`
//!   from `crate::fluid::fluid_pos` and `crate::fluid::fluid_qderiv_vel`. Connect/weld rows' `∂(J̇ v)/∂v` term:
//!   `crate::inverse::sub_jdot_vel`.
//!
//! Linear algebra: `M + JᵀHJ` factored once for all `2nv + na + nu` columns — in M's
//! tree-sparse layout (LᵀDL, no fill-in) when every constraint row `H` couples acts on one dof
//! chain ([`hessian_tree_sparse`]), else by a dense Cholesky factor; the right-hand sides and
//! solutions are row-major `nv × (2nv + na + nu)` blocks (row gathers, AVX2 when present);
//! `M x` and (eulerdamp) `(M + h diag(damping))⁻¹` in M's tree-sparse layout; a reusable
//! [`Workspace`] ([`transition_analytic_with`]) keeps the `Data<Dual64>` and buffers.
//!
//! The step's chain rule for Euler (`He = M`, or `M + h diag(s(v))` with eulerdamp, `s` the
//! damping slope `b + 2 p0 |v| + 3 p1 v²`) and the implicit integrators (`He = M − h qDeriv` on
//! M's sparsity: symmetrized under implicitfast, with the exact gyroscopic block of childless
//! free bodies; the full `qDeriv` with RNE's velocity derivative under implicit, an LU; as
//! [`crate::step_matrix::he_offset`] builds it): `He a_int = M qacc`, so
//! `He ∂a_int = M ∂qacc + ∂M (qacc − a_int) − ∂(He − M) a_int`. The last term: eulerdamp
//! `h diag(s'(v) a_int)` in the velocity columns (analytic); implicitfast with joint/tendon
//! dampers of constant slope and velocity-independent gains `−h sym(∂qDeriv/∂q) a_int` from
//! [`crate::smooth_vel_pos`]; otherwise (polynomial damping, velocity-dependent gains, childless free
//! bodies, implicit) by [`crate::step_matrix::d_he_offset_vec`] (`Dual64` passes restricted to the
//! stages `He` reads, only along the directions that move it, forming `(He − M) a_int` without
//! `He`; free bodies' gyroscopic blocks and implicit's RNE velocity columns in closed form). Then
//! `v' = v + h a_int`; `q' = q ⊕ h v'` in closed form (`mjd_quatIntegrate` blocks,
//! [`crate::quat::quat_integrate_deriv`]) and `act'` (`advance_act`: `act + c act_dot`, zero
//! where the activation clamp is active). RK4: the chain rule over its four stages
//! ([`crate::transition_rk4`]), each stage's `∂qacc` by the IFT at that stage's state.
//! `∂(qfrc_actuator, act_dot)/∂(act, u)`: each actuator depends only on its own control and
//! activation, so two seeded passes suffice (per-column passes with `jnt_actfrcrange` clamps).
//!
//! Unsupported ([`unsupported`]): the noslip post-pass, invdiscrete with integrators other than
//! Euler.
//! The sensor Jacobians `C`, `D` ([`crate::sensor`], from `∂qacc/∂x`) only when asked
//! ([`transition_analytic_flg`]); otherwise they are left empty (`0 × n`).

#![allow(clippy::needless_range_loop)]

use crate::dual::{lift, lift_into, seed};
use crate::fd::TransitionJacobians;
use crate::inverse::{constraint_hessian_force, dfda_dv_constraint, neg_dfdv_into};
use moreau::model::{Integrator, JointType, Model};
use moreau::pipeline::{
    chol_factor_fast, d_actuator_vel, damping_slope, euler_damped, factor_ld, fwd_acceleration,
    fwd_actuation, inverse_skip, Skip,
};
use moreau::Data;
use nalgebra::DMatrix;

/// Why [`transition_analytic`] does not apply to `m`, if it doesn't.
/// Every integrator is covered (Euler with or without eulerdamp, implicitfast, implicit, RK4).
/// Refused: `invdiscrete` with an integrator other than Euler (the full dual passes run the
/// inverse dynamics, which would convert `qacc`), and the noslip post-pass
/// (`noslip_iterations > 0`): its friction forces replace the main solver's and are not
/// differentiated here, so the IFT at the main solver's optimum would give a wrong matrix
/// (models/noslip.xml after 150 steps: 9.3e-3 relative to max |A| from centered FD with noslip,
/// 7.8e-8 from FD without it; `derivatives/tests/derivatives/noslip_refused.rs`). Use the FD Jacobians ([`crate::fd`]).
pub fn unsupported(m: &Model) -> Option<&'static str> {
    if m.opt.noslip_iterations > 0 {
        return Some(
            "the noslip post-pass (noslip_iterations > 0; its friction force is not \
             differentiated analytically, use finite differences)",
        );
    }
    if m.opt.enabled(moreau::model::enable::INVDISCRETE) && m.opt.integrator != Integrator::Euler {
        return Some("invdiscrete with an integrator other than Euler");
    }
    crate::inverse::unsupported(m)
}

/// The activations that [`moreau::pipeline::advance_act`] moves from `act` by `c act_dot`,
/// each with its factor `c` ([`moreau::pipeline::act_step`]): all but those its `actrange`
/// clamp stops (as the dual of the clamp: strict comparisons), whose row of `∂act'/∂x` is zero.
pub(crate) fn moving_acts<'a>(
    m: &'a Model,
    h: f64,
    act: &'a [f64],
    act_dot: &'a [f64],
) -> impl Iterator<Item = (usize, f64)> + 'a {
    let stateful = |u: usize| usize::try_from(m.actuator_actadr[u]).ok().map(|a| (u, a));
    (0..m.nu).filter_map(stateful).flat_map(move |(u, adr)| {
        let cf = moreau::pipeline::act_step(m, u, h);
        (adr..adr + m.actuator_actnum[u]).filter_map(move |i| {
            let x = act[i] + act_dot[i] * cf;
            let r = m.actuator_actrange[u];
            let clamped = m.actuator_actlimited[u] && (x < r[0] || x > r[1]);
            (!clamped).then_some((i, cf))
        })
    })
}

/// Tangent rows of `q ⊕ h w` (row-major `nv × c`, every entry written into `out`) from
/// `dw = ∂w/∂x` (row-major `nv × c`), the first `nv` columns being the position tangent
/// (identity), at the velocity `w` (`mjd_quatIntegrate` blocks for quaternions, API Reference).
pub(crate) fn integrate_rows(m: &Model, w: &[f64], dw: &[f64], c: usize, h: f64, out: &mut [f64]) {
    for j in 0..m.njnt {
        let da = m.jnt_dofadr[j];
        let (nlin, rot) = match m.jnt_type[j] {
            JointType::Free => (3, Some(da + 3)),
            JointType::Ball => (0, Some(da)),
            _ => (1, None),
        };
        for i in da..da + nlin {
            let t = &mut out[i * c..(i + 1) * c];
            for (t, v) in t.iter_mut().zip(&dw[i * c..(i + 1) * c]) {
                *t = h * *v;
            }
            t[i] += 1.0;
        }
        if let Some(r) = rot {
            let wr = nalgebra::Vector3::new(w[r], w[r + 1], w[r + 2]);
            let (dq, dvel, _) = crate::quat::quat_integrate_deriv(&wr, h);
            let dvel = dvel * h;
            let rows3 = &dw[r * c..(r + 3) * c];
            for e in 0..3 {
                let t = &mut out[(r + e) * c..(r + e + 1) * c];
                let (g0, g1, g2) = (dvel[(e, 0)], dvel[(e, 1)], dvel[(e, 2)]);
                for k in 0..c {
                    t[k] = g0 * rows3[k] + g1 * rows3[c + k] + g2 * rows3[2 * c + k];
                }
                for f in 0..3 {
                    t[r + f] += dq[(e, f)];
                }
            }
        }
    }
}

/// The error for a singular implicit(fast) `M − h qDeriv` (e.g. velocity feedback cancelling the
/// mass; MuJoCo warns and steps with a huge `qacc`).
const SINGULAR_HE: &str = "implicit(fast): M − h·qDeriv is singular";

/// Reusable workspace of [`transition_analytic_with`] (the analytic `∂/∂q` buffers and the
/// `Data<Dual64>` of the single-stage dual passes).
pub type Workspace = crate::rne::Work;

/// Buffers of the linear algebra of [`transition_analytic_with`], reused across calls.
#[derive(Default)]
pub(crate) struct Lin {
    /// `nv × (2nv + na + nu)` row-major: `−∂g/∂x`, then `∂qacc/∂x`, then `∂a_int/∂x`.
    x: Vec<f64>,
    /// Same shape (the eulerdamp correction).
    y: Vec<f64>,
    /// `M + JᵀHJ` in qM's layout and its LᵀDL factor ([`Lin::hessian_tree`]), or dense.
    ld: Vec<f64>,
    ldi: Vec<f64>,
    /// Whether `ld` holds the tree-sparse factor (else the dense Cholesky factor).
    tree: bool,
    /// `M + h diag(damping)` factored (eulerdamp).
    he: Vec<f64>,
    hei: Vec<f64>,
    /// Constraint rows expanded (`nefc × nv`).
    jd: Vec<f64>,
    /// `nv × nv` scratch.
    buf: Vec<f64>,
    solve: rows::Scratch,
    /// `∂g/∂q` and `∂M/∂q · (qacc − a_int)` ([`q_pass`]).
    qdg: DMatrix<f64>,
    qdmx: DMatrix<f64>,
    /// `[A | B]` row-major (`(2nv + na) × (2nv + na + nu)`).
    ab: Vec<f64>,
}

/// True if the nonzeros of `a` and `b` (length nv) all lie on one dof chain (each is an
/// ancestor of the next): then `aᵀb + bᵀa` has M's tree sparsity.
fn on_chain(m: &Model, a: &[f64], b: &[f64]) -> bool {
    let mut cur: Option<usize> = None;
    for k in (0..m.nv).rev() {
        if a[k] == 0.0 && b[k] == 0.0 {
            continue;
        }
        if let Some(mut p) = cur {
            while p > k {
                match moreau::pipeline::dof_parent(m, p) {
                    Some(q) => p = q,
                    None => return false,
                }
            }
            if p != k {
                return false;
            }
        }
        cur = Some(k);
    }
    true
}

/// True if every pair of constraint rows coupled by `h` (`jd`: the rows expanded, `nefc × nv`)
/// acts on one dof chain.
///
/// Each row is checked once; the union of two rows on chains is on one chain exactly when the
/// deeper row's last nonzero dof ("leaf") has the other's leaf on its root path (dofs are
/// numbered parents first, so a row's leaf is its last nonzero). The rows of a contact with one
/// side on a dof-free body (the world, a static body) need no check: they act on the other
/// body's root path, and `h` couples them only with rows of the same contact.
fn rows_on_chains(m: &Model, d: &Data<f64>, jd: &[f64], h: &DMatrix<f64>) -> bool {
    let nv = m.nv;
    let one_body = |r: usize| {
        d.efc_type[r].is_contact()
            && d.contact[d.efc_id[r]]
                .geom
                .iter()
                .any(|&g| moreau::pipeline::body_last_dof(m, m.geom_bodyid[g]).is_none())
    };
    let mut leaf: Vec<Option<usize>> = Vec::with_capacity(h.nrows());
    let mut single: Vec<bool> = Vec::with_capacity(h.nrows());
    for r in 0..h.nrows() {
        let row = &jd[r * nv..(r + 1) * nv];
        let ob = one_body(r);
        if !ob && !on_chain(m, row, row) {
            return false;
        }
        single.push(ob);
        leaf.push(row.iter().rposition(|&x| x != 0.0));
    }
    (0..h.nrows()).all(|r| {
        (0..h.ncols()).all(|s| {
            if h[(r, s)] == 0.0 || (single[r] && r == s) {
                return true;
            }
            if single[r] && single[s] && d.efc_id[r] == d.efc_id[s] {
                return true;
            }
            let (Some(a), Some(b)) = (leaf[r], leaf[s]) else {
                return true;
            };
            let (hi, lo) = (a.max(b), a.min(b));
            let mut p = Some(hi);
            while let Some(q) = p.filter(|&q| q > lo) {
                p = moreau::pipeline::dof_parent(m, q);
            }
            p == Some(lo)
        })
    })
}

/// Whether `M + JᵀHJ` at the (forwarded) state of `d` keeps M's tree sparsity, so
/// [`transition_analytic`] factors it in qM's layout without fill-in; otherwise (rows coupling
/// two branches, e.g. contacts between two free bodies) it takes a dense Cholesky factor.
pub fn hessian_tree_sparse(m: &Model, d: &Data<f64>) -> bool {
    if d.nefc == 0 {
        return true;
    }
    let nv = m.nv;
    let h = constraint_hessian_force(m, d).0;
    let mut jd = vec![0.0; d.nefc * nv];
    for r in 0..d.nefc {
        d.efc_J_row(r, nv).expand(&mut jd[r * nv..(r + 1) * nv]);
    }
    rows_on_chains(m, d, &jd, &h)
}

impl Lin {
    /// `M + JᵀHJ` in qM's tree-sparse layout, factored by `factor_ld` into `ld`, `ldi`, and
    /// `−JᵀH diag(B) J` added to the velocity columns of `x` (`c` columns): when every pair of
    /// rows `H` couples acts on one dof chain (contacts with the world or within one branch),
    /// so `JᵀHJ` has M's sparsity and the factor no fill-in. False (nothing done) otherwise.
    fn hessian_tree(&mut self, m: &Model, d: &Data<f64>, h: &DMatrix<f64>, c: usize) -> bool {
        let (nv, n) = (m.nv, d.nefc);
        // every entry is written by the row expansions
        self.jd.resize(n * nv, 0.0);
        for r in 0..n {
            d.efc_J_row(r, nv)
                .expand(&mut self.jd[r * nv..(r + 1) * nv]);
        }
        let jd = &self.jd;
        if !rows_on_chains(m, d, jd, h) {
            return false;
        }
        self.ld.clear();
        self.ld.extend_from_slice(&d.qM[..m.nM]);
        self.solve.build(m);
        rows::add_jhj(m, d, h, jd, c, &mut self.ld, &mut self.x, &self.solve);
        self.ldi.resize(nv, 0.0);
        factor_ld(m, &mut self.ld, &mut self.ldi);
        true
    }
}

/// `∂s_k/∂v_k` of the damping slope `s_k = b + 2 p0 |v| + 3 p1 v²` (`2 p0 sign(v) + 6 p1 v`,
/// with `|v|`'s derivative as the dual numbers take it, so the dual step agrees at `v = 0`).
fn slope_dv(m: &Model, v: f64, k: usize) -> f64 {
    let p = m.dof_damping_eff(k).1;
    let a = num_dual::Dual64::new(v, 1.0);
    let s = nalgebra::ComplexField::abs(a) * (2.0 * p[0]) + a * a * (3.0 * p[1]);
    s.eps
}

fn dense_m(m: &Model, qm: &[f64]) -> DMatrix<f64> {
    let nv = m.nv;
    let mut b = vec![0.0; nv * nv];
    moreau::full_m(m, qm, &mut b);
    DMatrix::from_row_slice(nv, nv, &b)
}

/// `∂g/∂q_i` (columns) into `dg` and, when asked, `∂M/∂q_i · x` (`x = qacc − a_int`) in
/// column `i` of `dmx` (zero otherwise); both overwritten. [`crate::inverse_pos`] (fluid forces
/// included), full dual passes only where [`crate::inverse_pos::covers`] does not.
fn q_pass(
    m: &Model,
    d: &Data<f64>,
    want_m: Option<&nalgebra::DVector<f64>>,
    w: &mut Workspace,
    dg: &mut DMatrix<f64>,
    dmx: &mut DMatrix<f64>,
) {
    let nv = m.nv;
    for x in [&mut *dg, &mut *dmx] {
        if x.shape() != (nv, nv) {
            *x = DMatrix::zeros(nv, nv);
        }
    }
    if crate::inverse_pos::covers(m) {
        let res = crate::inverse_pos::Output::Residual;
        match want_m {
            // ∂M/∂q · x from the residual's RNE sweep
            Some(x) => {
                crate::inverse_pos::d_pos_mass_into(m, d, res, Some((x.as_slice(), dmx)), w, dg)
            }
            None => {
                dmx.fill(0.0);
                crate::inverse_pos::d_pos_into(m, d, res, w, dg)
            }
        };
        return;
    }
    dmx.fill(0.0);
    let mut qm = vec![0.0; m.nM];
    let mut dd = lift(m, d);
    for i in 0..nv {
        if i > 0 {
            lift_into(d, &mut dd);
        }
        seed(m, &mut dd, i);
        inverse_skip(m, &mut dd, Skip::None, true);
        fwd_actuation(m, &mut dd);
        fwd_acceleration(m, &mut dd);
        for j in 0..nv {
            let g = dd.qfrc_inverse[j] - dd.qfrc_bias[j] + dd.qfrc_passive[j] - dd.qfrc_smooth[j];
            dg[(j, i)] = g.eps;
        }
        if let Some(x) = want_m {
            for (o, x) in qm.iter_mut().zip(&dd.qM) {
                *o = x.eps;
            }
            dmx.set_column(i, &(dense_m(m, &qm) * x));
        }
    }
}

/// `∂qfrc_actuator/∂(act, u)` (`nv × (na+nu)`) and `∂act_dot/∂(act, u)` (`na × (na+nu)`), by
/// duals over the actuation stage only (position/velocity results of `d` fixed).
fn actuation_jacobian(m: &Model, d: &Data<f64>, w: &mut Workspace) -> (DMatrix<f64>, DMatrix<f64>) {
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let mut fa = DMatrix::zeros(nv, na + nu);
    let mut ad = DMatrix::zeros(na, na + nu);
    if na + nu == 0 {
        return (fa, ad);
    }
    let dd = w.dual_of(m, d);
    crate::dual::lift_actuation_inputs(d, dd);
    // Each actuator's force and act_dot depend only on its own control and activation, so
    // two passes (all controls seeded, then all activations) give every column, unless a
    // joint-level actuator force clamp mixes actuators or an actuator has several activations.
    let separable =
        !m.jnt_actfrclimited.iter().any(|&x| x) && (0..nu).all(|i| m.actuator_actnum[i] <= 1);
    if separable {
        // the activation pass seeds nothing without activations
        for pass in 0..if na > 0 { 2 } else { 1 } {
            for i in 0..nu {
                match (pass, usize::try_from(m.actuator_actadr[i])) {
                    (0, _) => dd.ctrl[i].eps = 1.0,
                    (_, Ok(a)) if m.actuator_actnum[i] == 1 => dd.act[a].eps = 1.0,
                    _ => {}
                }
            }
            fwd_actuation(m, dd);
            for i in 0..nu {
                let adr = usize::try_from(m.actuator_actadr[i])
                    .ok()
                    .filter(|_| m.actuator_actnum[i] == 1);
                let col = match (pass, adr) {
                    (0, _) => na + i,
                    (_, Some(a)) => a,
                    _ => continue,
                };
                let df = dd.actuator_force[i].eps;
                if df != 0.0 {
                    for r in 0..nv {
                        fa[(r, col)] = d.actuator_moment[i * nv + r] * df;
                    }
                }
                if let Some(a) = adr {
                    ad[(a, col)] = dd.act_dot[a].eps;
                }
            }
            for x in dd.ctrl.iter_mut() {
                x.eps = 0.0;
            }
            for x in dd.act.iter_mut() {
                x.eps = 0.0;
            }
        }
        return (fa, ad);
    }
    for k in 0..na + nu {
        if k < na {
            dd.act[k].eps = 1.0;
        } else {
            dd.ctrl[k - na].eps = 1.0;
        }
        fwd_actuation(m, dd);
        for r in 0..nv {
            fa[(r, k)] = dd.qfrc_actuator[r].eps;
        }
        for r in 0..na {
            ad[(r, k)] = dd.act_dot[r].eps;
        }
        if k < na {
            dd.act[k].eps = 0.0;
        } else {
            dd.ctrl[k - na].eps = 0.0;
        }
    }
    (fa, ad)
}

/// Row-block linear algebra on many right-hand sides at once: `x` holds an `n × c` matrix
/// row-major (row `k` at `x[k c..(k+1) c]`), so every update is a contiguous axpy over the `c`
/// columns.
mod rows {
    use moreau::model::Model;
    use moreau::pipeline::dof_parent;
    use moreau::Data;
    use nalgebra::DMatrix;

    fn scale(x: &mut [f64], c: usize, k: usize, a: f64) {
        for y in &mut x[k * c..k * c + c] {
            *y *= a;
        }
    }

    /// `row i ← s0 · row i − Σ_k a_k · row k` over `ks` (all `k ≠ i`), eight/four/two source rows per sweep; the
    /// same code compiled for AVX2 when the CPU has it (4 lanes instead of SSE2's 2; no FMA
    /// contraction, so the results are bit-identical).
    fn gather(
        x: &mut [f64],
        c: usize,
        i: usize,
        s0: f64,
        ks: &[usize],
        a: &[f64],
        tmp: &mut [f64],
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above); the body is safe code.
            unsafe { gather_avx2(x, c, i, s0, ks, a, tmp) };
            return;
        }
        gather_body(x, c, i, s0, ks, a, tmp);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn gather_avx2(
        x: &mut [f64],
        c: usize,
        i: usize,
        s0: f64,
        ks: &[usize],
        a: &[f64],
        tmp: &mut [f64],
    ) {
        gather_body(x, c, i, s0, ks, a, tmp);
    }

    #[inline(always)]
    fn gather_body(
        x: &mut [f64],
        c: usize,
        i: usize,
        s0: f64,
        ks: &[usize],
        a: &[f64],
        tmp: &mut [f64],
    ) {
        // every slice below has length c: lets the inner loops run without bounds checks
        let tmp = &mut tmp[..c];
        let a = &a[..ks.len()];
        for (t, y) in tmp.iter_mut().zip(&x[i * c..i * c + c]) {
            *t = s0 * *y;
        }
        let mut p = 0;
        while p + 8 <= ks.len() {
            let r: [usize; 8] = std::array::from_fn(|q| ks[p + q] * c);
            let b: [f64; 8] = std::array::from_fn(|q| a[p + q]);
            let xs: [&[f64]; 8] = std::array::from_fn(|q| &x[r[q]..r[q] + c]);
            let [x0, x1, x2, x3, x4, x5, x6, x7] = xs;
            for t in 0..c {
                tmp[t] -= (b[0] * x0[t] + b[1] * x1[t] + b[2] * x2[t] + b[3] * x3[t])
                    + (b[4] * x4[t] + b[5] * x5[t] + b[6] * x6[t] + b[7] * x7[t]);
            }
            p += 8;
        }
        while p + 4 <= ks.len() {
            let (r0, r1, r2, r3) = (ks[p] * c, ks[p + 1] * c, ks[p + 2] * c, ks[p + 3] * c);
            let (a0, a1, a2, a3) = (a[p], a[p + 1], a[p + 2], a[p + 3]);
            let (x0, x1, x2, x3) = (
                &x[r0..r0 + c],
                &x[r1..r1 + c],
                &x[r2..r2 + c],
                &x[r3..r3 + c],
            );
            for t in 0..c {
                tmp[t] -= a0 * x0[t] + a1 * x1[t] + a2 * x2[t] + a3 * x3[t];
            }
            p += 4;
        }
        if p + 2 <= ks.len() {
            let (r0, r1) = (ks[p] * c, ks[p + 1] * c);
            let (a0, a1) = (a[p], a[p + 1]);
            let (x0, x1) = (&x[r0..r0 + c], &x[r1..r1 + c]);
            for t in 0..c {
                tmp[t] -= a0 * x0[t] + a1 * x1[t];
            }
            p += 2;
        }
        while p < ks.len() {
            let r = ks[p] * c;
            let ap = a[p];
            for (y, z) in tmp.iter_mut().zip(&x[r..r + c]) {
                *y -= ap * *z;
            }
            p += 1;
        }
        x[i * c..i * c + c].copy_from_slice(tmp);
    }

    /// `x ← (L Lᵀ)⁻¹ x`, `L` row-major `n × n` from `chol_factor`.
    pub fn chol_solve(l: &[f64], n: usize, x: &mut [f64], c: usize) {
        let mut tmp = vec![0.0; c];
        let mut ks = Vec::with_capacity(n);
        let mut a = Vec::with_capacity(n);
        for i in 0..n {
            ks.clear();
            a.clear();
            ks.extend(0..i);
            a.extend_from_slice(&l[i * n..i * n + i]);
            gather(x, c, i, 1.0, &ks, &a, &mut tmp);
            scale(x, c, i, 1.0 / l[i * n + i]);
        }
        for i in (0..n).rev() {
            ks.clear();
            a.clear();
            ks.extend(i + 1..n);
            a.extend((i + 1..n).map(|k| l[k * n + i]));
            gather(x, c, i, 1.0, &ks, &a, &mut tmp);
            scale(x, c, i, 1.0 / l[i * n + i]);
        }
    }

    /// `ld += JᵀHJ` in qM's layout (every coupled pair of rows on one dof chain) and
    /// `x[:, nv..2nv] −= JᵀH diag(B) J` (`jd`: the rows expanded, `x` row-major with `c`
    /// columns); the ancestor lists of `s` (built) give each row's qM addresses. Compiled for
    /// AVX2 as well (no FMA contraction).
    #[allow(clippy::too_many_arguments)]
    pub fn add_jhj(
        m: &Model,
        d: &Data<f64>,
        h: &DMatrix<f64>,
        jd: &[f64],
        c: usize,
        ld: &mut [f64],
        x: &mut [f64],
        s: &Scratch,
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above); the body is safe code.
            unsafe { add_jhj_avx2(m, d, h, jd, c, ld, x, s) };
            return;
        }
        add_jhj_body(m, d, h, jd, c, ld, x, s);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn add_jhj_avx2(
        m: &Model,
        d: &Data<f64>,
        h: &DMatrix<f64>,
        jd: &[f64],
        c: usize,
        ld: &mut [f64],
        x: &mut [f64],
        s: &Scratch,
    ) {
        add_jhj_body(m, d, h, jd, c, ld, x, s);
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn add_jhj_body(
        m: &Model,
        d: &Data<f64>,
        h: &DMatrix<f64>,
        jd: &[f64],
        c: usize,
        ld: &mut [f64],
        x: &mut [f64],
        s: &Scratch,
    ) {
        let (nv, n) = (m.nv, h.nrows());
        for r in 0..n {
            for q in 0..n {
                let hrq = h[(r, q)];
                if hrq == 0.0 {
                    continue;
                }
                let (jr, jq) = (&jd[r * nv..(r + 1) * nv], &jd[q * nv..(q + 1) * nv]);
                let b = d.efc_KBIP[q][1];
                // the velocity-column update spans row q's nonzeros only
                let lo = jq.iter().position(|&z| z != 0.0).unwrap_or(0);
                let hi = jq.iter().rposition(|&z| z != 0.0).map_or(lo, |h| h + 1);
                for k in 0..nv {
                    if jr[k] == 0.0 {
                        continue;
                    }
                    let a = hrq * jr[k];
                    // (JᵀHJ)_kl for l on k's chain (row k of the qM layout)
                    // (row k's ancestor entries follow its diagonal contiguously)
                    let a0 = m.dof_Madr[k];
                    let anc = &s.aidx[s.aptr[k]..s.aptr[k + 1]];
                    let row = &mut ld[a0..a0 + 1 + anc.len()];
                    row[0] += a * jq[k];
                    for (o, &l) in row[1..].iter_mut().zip(anc) {
                        *o += a * jq[l];
                    }
                    let ab = a * b;
                    let y = &mut x[k * c + nv + lo..k * c + nv + hi];
                    for (y, z) in y.iter_mut().zip(&jq[lo..hi]) {
                        *y -= ab * *z;
                    }
                }
            }
        }
    }

    /// Scratch of [`ld_solve`]: the descendants of every dof with the qM address of their
    /// factor entry (compressed rows), the ancestors likewise, and one row of `c` values.
    #[derive(Default)]
    pub struct Scratch {
        ptr: Vec<usize>,
        idx: Vec<usize>,
        adr: Vec<usize>,
        aptr: Vec<usize>,
        aidx: Vec<usize>,
        aadr: Vec<usize>,
        vals: Vec<f64>,
        tmp: Vec<f64>,
        /// The tree the lists were built for (`dof_parentid`, `dof_Madr`).
        parent: Vec<i32>,
        madr: Vec<usize>,
    }

    impl Scratch {
        pub(super) fn build(&mut self, m: &Model) {
            if self.parent == m.dof_parentid && self.madr == m.dof_Madr {
                return;
            }
            self.parent.clone_from(&m.dof_parentid);
            self.madr.clone_from(&m.dof_Madr);
            let nv = m.nv;
            self.ptr.clear();
            self.ptr.resize(nv + 1, 0);
            self.aptr.clear();
            self.aptr.push(0);
            self.aidx.clear();
            self.aadr.clear();
            for k in 0..nv {
                let mut adr = m.dof_Madr[k];
                let mut i = dof_parent(m, k);
                while let Some(ii) = i {
                    adr += 1;
                    self.ptr[ii + 1] += 1;
                    self.aidx.push(ii);
                    self.aadr.push(adr);
                    i = dof_parent(m, ii);
                }
                self.aptr.push(self.aidx.len());
            }
            for i in 0..nv {
                self.ptr[i + 1] += self.ptr[i];
            }
            let n = self.ptr[nv];
            self.idx.resize(n, 0);
            self.adr.resize(n, 0);
            let mut fill = self.ptr[..nv].to_vec();
            for k in 0..nv {
                for p in self.aptr[k]..self.aptr[k + 1] {
                    let i = self.aidx[p];
                    self.idx[fill[i]] = k;
                    self.adr[fill[i]] = self.aadr[p];
                    fill[i] += 1;
                }
            }
        }
    }

    /// `x ← A⁻¹ x` with `A`'s tree-sparse LᵀDL factor (`factor_ld`, qM layout): both
    /// triangular sweeps as row gathers (descendants, then ancestors).
    pub fn ld_solve(
        m: &Model,
        ld: &[f64],
        diag_inv: &[f64],
        x: &mut [f64],
        c: usize,
        s: &mut Scratch,
    ) {
        let nv = m.nv;
        s.build(m);
        s.tmp.resize(c, 0.0);
        for i in (0..nv).rev() {
            let r = s.ptr[i]..s.ptr[i + 1];
            if r.is_empty() {
                continue;
            }
            s.vals.clear();
            s.vals.extend(s.adr[r.clone()].iter().map(|&a| ld[a]));
            gather(x, c, i, 1.0, &s.idx[r], &s.vals, &mut s.tmp);
        }
        for k in 0..nv {
            let r = s.aptr[k]..s.aptr[k + 1];
            if r.is_empty() {
                scale(x, c, k, diag_inv[k]);
                continue;
            }
            // row k of the qM layout: the ancestors' entries follow the diagonal in order; the
            // diagonal scale applied on the way in
            let a0 = m.dof_Madr[k] + 1;
            let vals = &ld[a0..a0 + r.len()];
            gather(x, c, k, diag_inv[k], &s.aidx[r], vals, &mut s.tmp);
        }
    }

    /// `y = A x` for a symmetric `A` in the qM layout.
    pub fn sparse_mul(m: &Model, a: &[f64], x: &[f64], y: &mut [f64], c: usize) {
        for i in 0..m.nv {
            let d = a[m.dof_Madr[i]];
            for (u, v) in y[i * c..i * c + c].iter_mut().zip(&x[i * c..i * c + c]) {
                *u = d * *v;
            }
        }
        for i in 0..m.nv {
            let mut adr = m.dof_Madr[i];
            let mut j = dof_parent(m, i);
            while let Some(jj) = j {
                adr += 1;
                let v = a[adr];
                for t in 0..c {
                    y[i * c + t] += v * x[jj * c + t];
                    y[jj * c + t] += v * x[i * c + t];
                }
                j = dof_parent(m, jj);
            }
        }
    }
}

/// `∂qacc/∂x` of forward dynamics by the IFT, columns `(q tangent, v, act, u)`
/// (`nv × (2nv+na+nu)`, as [`crate::dual::dual_forward_jacobian`]). Runs `forward` on `d`.
pub fn forward_analytic(m: &Model, d: &mut Data<f64>) -> Result<DMatrix<f64>, &'static str> {
    if let Some(e) = unsupported(m) {
        return Err(e);
    }
    moreau::forward(m, d);
    let mut w = Workspace::default();
    forward_parts(m, d, None, &mut w);
    Ok(DMatrix::from_row_slice(
        m.nv,
        2 * m.nv + m.na + m.nu,
        &w.lin.x,
    ))
}

/// `∂qacc/∂x` (`nv × (2nv+na+nu)`) and `∂act_dot/∂(act, u)` (`na × (na+nu)`) at the forwarded
/// state of `d` (one RK4 stage, [`crate::transition_rk4`]).
pub(crate) fn stage_jacobians(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut Workspace,
) -> (DMatrix<f64>, DMatrix<f64>) {
    let ad = forward_parts(m, d, None, w);
    let da = DMatrix::from_row_slice(m.nv, 2 * m.nv + m.na + m.nu, &w.lin.x);
    (da, ad)
}

/// `∂act_dot/∂(act,u)` and the q-pass with `d` already forwarded; `∂qacc/∂x` is left in
/// `w.lin.x` (`nv × (2nv+na+nu)` row-major).
fn forward_parts(
    m: &Model,
    d: &mut Data<f64>,
    want_m: Option<&nalgebra::DVector<f64>>,
    w: &mut Workspace,
) -> DMatrix<f64> {
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let c = 2 * nv + na + nu;
    let mut lin = std::mem::take(&mut w.lin);
    // every entry of x is written below; first the velocity columns:
    // −(∂(bias − passive)/∂v − ∂qfrc_actuator/∂v)
    lin.x.resize(nv * c, 0.0);
    lin.buf.resize(nv * nv, 0.0);
    neg_dfdv_into(m, d, w, &mut lin.buf);
    d_actuator_vel(m, d, &mut lin.buf);
    for k in 0..nv {
        lin.x[k * c + nv..k * c + 2 * nv].copy_from_slice(&lin.buf[k * nv..(k + 1) * nv]);
    }
    // M + JᵀHJ (tree-sparse factor when it has M's sparsity, else dense) and −JᵀH B J into
    // the velocity columns; (H, f) handed to the constraint ∂/∂q
    let pre = (d.nefc > 0).then(|| constraint_hessian_force(m, d));
    lin.tree = match &pre {
        None => {
            lin.ld.clear();
            lin.ld.extend_from_slice(&d.qM[..m.nM]);
            lin.ldi.resize(nv, 0.0);
            factor_ld(m, &mut lin.ld, &mut lin.ldi);
            true
        }
        Some((h, _)) => lin.hessian_tree(m, d, h, c),
    };
    if let (true, Some((h, _))) = (lin.tree, &pre) {
        // connect/weld rows: −Jᵀ H ∂(J̇ v)/∂v (the dense path has it in dfda_dv_constraint)
        crate::inverse::sub_jdot_vel(m, d, h, w, &mut lin.x, c);
    }
    if !lin.tree {
        let (hs, jhbj, _) = dfda_dv_constraint(m, d);
        if let Some(g) = jhbj {
            for k in 0..nv {
                for l in 0..nv {
                    lin.x[k * c + nv + l] -= g[(k, l)];
                }
            }
        }
        lin.ld.clear();
        lin.ld.extend_from_slice(hs.as_slice()); // symmetric: column-major = row-major
        chol_factor_fast(&mut lin.ld, nv);
    }
    w.cons.pre = pre;
    let (fa, ad) = actuation_jacobian(m, d, w);
    q_pass(m, d, want_m, w, &mut lin.qdg, &mut lin.qdmx);
    w.cons.pre = None;
    for k in 0..nv {
        for l in 0..nv {
            lin.x[k * c + l] = -lin.qdg[(k, l)];
        }
        for l in 0..na + nu {
            lin.x[k * c + 2 * nv + l] = fa[(k, l)];
        }
    }
    // (M + JᵀHJ) ∂qacc = −∂g: all columns at once (row blocks)
    if lin.tree {
        rows::ld_solve(m, &lin.ld, &lin.ldi, &mut lin.x, c, &mut lin.solve);
    } else {
        rows::chol_solve(&lin.ld, nv, &mut lin.x, c);
    }
    w.lin = lin;
    ad
}

/// Analytic transition Jacobians `A`, `B` of one step (layout of
/// [`crate::fd::TransitionJacobians`]; `C`, `D` are empty `0 × n`). Runs `forward` on `d`
/// (`d`'s state is not advanced).
#[allow(non_snake_case)]
pub fn transition_analytic(
    m: &Model,
    d: &mut Data<f64>,
) -> Result<TransitionJacobians, &'static str> {
    transition_analytic_with(m, d, &mut Workspace::default())
}

/// [`transition_analytic`] with a workspace reused across calls (no `Data<Dual64>` or buffer
/// reallocation after the first call).
pub fn transition_analytic_with(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut Workspace,
) -> Result<TransitionJacobians, &'static str> {
    transition_analytic_flg(m, d, w, false)
}

/// [`transition_analytic_with`], and with `flg_sensor` also the sensor Jacobians `C`
/// (`nsensordata × (2nv+na)`) and `D` (`nsensordata × nu`) of the sensors at the current state
/// ([`crate::sensor::sensor_jacobians`], as MuJoCo's `mjd_transitionFD` with non-NULL `C`, `D`).
#[allow(non_snake_case)]
pub fn transition_analytic_flg(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut Workspace,
    flg_sensor: bool,
) -> Result<TransitionJacobians, &'static str> {
    if let Some(e) = unsupported(m) {
        return Err(e);
    }
    moreau::forward(m, d);
    forwarded(m, d, w, flg_sensor)
}

/// [`transition_analytic_with`] without its `forward`: `d` must hold the results of
/// `moreau::forward` at its current state (e.g. right after a `step`'s forward or a
/// caller's own `forward`), which are used as they are.
#[allow(non_snake_case)]
pub fn transition_analytic_forwarded(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut Workspace,
) -> Result<TransitionJacobians, &'static str> {
    forwarded(m, d, w, false)
}

/// [`transition_analytic_forwarded`] with the sensor flag of [`transition_analytic_flg`].
#[allow(non_snake_case)]
fn forwarded(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut Workspace,
    flg_sensor: bool,
) -> Result<TransitionJacobians, &'static str> {
    if let Some(e) = unsupported(m) {
        return Err(e);
    }
    if flg_sensor {
        if let Some(e) = crate::sensor::unsupported(m, d) {
            return Err(e);
        }
    }
    if m.opt.integrator == Integrator::Rk4 {
        return crate::transition_rk4::transition(m, d, w, flg_sensor);
    }
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let nx = 2 * nv + na;
    let h = m.opt.timestep;
    let fast = m.opt.integrator == Integrator::ImplicitFast;
    let implicit = fast || m.opt.integrator == Integrator::Implicit;
    // He depends on (q, v, act, u) beyond smooth_vel_pos's constant weights: ∂(He a_int)/∂x by
    // restricted dual passes (crate::step_matrix)
    let he_dual = crate::step_matrix::needs_dual(m);
    let damped = m.opt.integrator == Integrator::Euler && euler_damped(m);
    // Euler: the damping slope s(v) of He = M + h diag(s) (polynomial damping included)
    let slope: Vec<f64> = if damped {
        (0..nv).map(|i| damping_slope(m, d, i)).collect()
    } else {
        Vec::new()
    };
    // He = M + (He − M) dense (implicit integrators; crate::step_matrix::he_offset builds it as
    // the step does: sym(qDeriv) on M's sparsity, exact gyroscopic blocks, implicit's full
    // qDeriv), LU-factored (nothing to factor without dofs: nalgebra's solve panics on 0 × 0)
    let lu = (implicit && nv > 0).then(|| {
        let mut off = vec![0.0; nv * nv];
        crate::step_matrix::he_offset(m, d, &mut off);
        (dense_m(m, &d.qM) + DMatrix::from_row_slice(nv, nv, &off)).lu()
    });
    let qacc = nalgebra::DVector::from_column_slice(&d.qacc);
    let integrated = damped || implicit;
    // eulerdamp: the tree-sparse LᵀDL of He = M + h diag(s)
    let mut lin = std::mem::take(&mut w.lin);
    if damped {
        lin.he.clear();
        lin.he.extend_from_slice(&d.qM[..m.nM]);
        for i in 0..nv {
            lin.he[m.dof_Madr[i]] += h * slope[i];
        }
        lin.hei.resize(nv, 0.0);
        factor_ld(m, &mut lin.he, &mut lin.hei);
    }
    // M x, in M's sparse layout (all columns at once)
    let qm = if implicit { d.qM.clone() } else { Vec::new() };
    let m_mul = |x: &DMatrix<f64>| {
        let xt = x.transpose();
        let mut yt = DMatrix::zeros(x.ncols(), nv);
        rows::sparse_mul(m, &qm, xt.as_slice(), yt.as_mut_slice(), x.ncols());
        yt.transpose()
    };
    // a_int: eulerdamp a_int = qacc − h He⁻¹ diag(s) qacc; implicit(fast) He a_int = M qacc
    let aint = if damped {
        let mut x: Vec<f64> = (0..nv).map(|i| -h * slope[i] * qacc[i]).collect();
        moreau::pipeline::solve_ld(m, &lin.he, &lin.hei, &mut x);
        &qacc + nalgebra::DVector::from_vec(x)
    } else if let Some(lu) = &lu {
        let x = m_mul(&DMatrix::from_column_slice(nv, 1, qacc.as_slice()));
        nalgebra::DVector::from_column_slice(lu.solve(&x).ok_or(SINGULAR_HE)?.as_slice())
    } else {
        qacc.clone()
    };
    let diff = &qacc - &aint;
    w.lin = lin;
    let ad = forward_parts(m, d, integrated.then_some(&diff), w);
    let c = nx + nu;
    let sensors = if flg_sensor {
        let da = DMatrix::from_row_slice(nv, c, &w.lin.x);
        Some(crate::sensor::sensor_jacobians(m, d, &da, w)?)
    } else {
        None
    };
    let mut lin = std::mem::take(&mut w.lin);
    // A (columns q tangent, v, act) and B (u): row i of the combined nx × c Jacobian, row-major
    // in lin.ab (every entry written), then copied out column by column; the v' rows
    // (v' = v + h a_int) are written straight from ∂a_int/∂x
    lin.ab.resize(nx * c, 0.0);
    // ∂a_int/∂x (row-major nv × c): eulerdamp into the v' rows of lin.ab, else into lin.x
    if damped {
        // He = M + h D, so He⁻¹ M = I − h He⁻¹ D and
        // ∂a_int = ∂qacc + He⁻¹ (∂M (qacc − a_int) − h D ∂qacc)
        // and, for polynomial damping, − h diag(s'(v) a_int) in the velocity columns
        lin.y.resize(nv * c, 0.0);
        for k in 0..nv {
            let s = -h * slope[k];
            let (y, x) = (&mut lin.y[k * c..(k + 1) * c], &lin.x[k * c..(k + 1) * c]);
            for (y, x) in y.iter_mut().zip(x) {
                *y = s * *x;
            }
            for l in 0..nv {
                y[l] += lin.qdmx[(k, l)];
            }
            y[nv + k] -= h * slope_dv(m, d.qvel[k], k) * aint[k];
        }
        rows::ld_solve(m, &lin.he, &lin.hei, &mut lin.y, c, &mut lin.solve);
        let vrows = &mut lin.ab[nv * c..2 * nv * c];
        for (o, (x, y)) in vrows.iter_mut().zip(lin.x.iter().zip(&lin.y)) {
            *o = h * (*x + *y);
        }
    } else if let Some(lu) = &lu {
        // He ∂a_int = M ∂qacc + ∂M (qacc − a_int) + h sym(∂qDeriv) a_int
        let da = DMatrix::from_row_slice(nv, c, &lin.x);
        let mut rhs = m_mul(&da);
        let mut cm = lin.qdmx.clone();
        if he_dual {
            // − ∂((He − M) a_int)/∂x, every column
            let dp = crate::step_matrix::d_he_offset_vec(m, d, aint.as_slice(), w);
            rhs -= dp;
        } else {
            // implicitfast: h sym(∂qDeriv/∂q) a_int, the fluid block (which depends on q and v
            // through the bodies' velocities; symmetric per object and within M's pattern) by
            // crate::fluid's passes
            crate::smooth_vel_pos::add_dqderiv_vec(m, d, aint.as_slice(), h, w, &mut cm);
            crate::fluid::fluid_pos(m, d, w, None, Some((aint.as_slice(), h, &mut cm)));
            let mut v = rhs.columns_mut(nv, nv);
            crate::fluid::fluid_qderiv_vel(m, d, aint.as_slice(), h, w, &mut v);
        }
        let mut q = rhs.columns_mut(0, nv);
        q += cm;
        let dai = lu.solve(&rhs).ok_or(SINGULAR_HE)?;
        for k in 0..nv {
            for l in 0..c {
                lin.x[k * c + l] = dai[(k, l)];
            }
        }
    }
    if !damped {
        for (o, x) in lin.ab[nv * c..2 * nv * c].iter_mut().zip(&lin.x) {
            *o = h * *x;
        }
    }
    for i in 0..nv {
        lin.ab[(nv + i) * c + nv + i] += 1.0;
    }
    // dv: the v' rows (∂v'/∂x); ab: the q' rows, then all rows
    let (ab, rest) = lin.ab.split_at_mut(nv * c);
    let dv = &rest[..nv * c];
    // q' = q ⊕ h v' (mjd_quatIntegrate blocks for quaternions)
    let vnew: Vec<f64> = (0..nv).map(|i| d.qvel[i] + h * aint[i]).collect();
    integrate_rows(m, &vnew, dv, c, h, ab);
    let ab = &mut lin.ab;
    // act' (advance_act): columns (act, u) only (column 2nv + col of the combined row)
    ab[2 * nv * c..].fill(0.0);
    for (i, cf) in moving_acts(m, h, &d.act, &d.act_dot) {
        let row = &mut ab[(2 * nv + i) * c..(2 * nv + i + 1) * c];
        for col in 0..na + nu {
            let e = if col == i { 1.0 } else { 0.0 };
            row[2 * nv + col] = e + cf * ad[(i, col)];
        }
    }
    let a = DMatrix::from_fn(nx, nx, |i, k| ab[i * c + k]);
    let b = DMatrix::from_fn(nx, nu, |i, k| ab[i * c + nx + k]);
    w.lin = lin;
    let (c, dm) = sensors.unwrap_or_else(|| (DMatrix::zeros(0, nx), DMatrix::zeros(0, nu)));
    Ok(TransitionJacobians {
        A: a,
        B: b,
        C: c,
        D: dm,
    })
}
