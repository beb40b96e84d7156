//! Forward dynamics and transition Jacobians through soft contact by the implicit function
//! theorem (IFT) at the constraint solution (seed 000 "Reduced primal problem").
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
//! - `∂g/∂q`: analytic smooth part and `∂M/∂q` ([`crate::rnea`]), the constraint force
//!   analytic through the contact geometry ([`crate::cpos`]: primitive-collider contacts,
//!   hinge/slide and fixed-tendon limits, friction loss, simple equalities), the rest
//!   (tendon springs, other transmissions, convex/mesh contacts, ball limits, ...) by a
//!   restricted dual pass — [`crate::pos::method`] says which; for [`crate::rnea::unsupported`]
//!   models by full dual passes, one position/velocity/inverse pass per tangent direction (no
//!   constraint solve). Implicitfast's `∂qDeriv/∂q · a_int` comes from [`crate::qderiv_pos`]
//!   (zero for joint and fixed-tendon moments, a kinematics/tendon/transmission dual pass
//!   otherwise); the full pass's `∂qDeriv/∂q` is kept for fluid forces (not
//!   [`crate::qderiv_pos::covered`]), which [`crate::inverse::unsupported`] refuses today.
//!
//! Linear algebra: one dense Cholesky factor of `M + JᵀHJ` for all `2nv + na + nu` columns,
//! `M x` and (eulerdamp) `(M + h diag(damping))⁻¹` in M's tree-sparse layout; a reusable
//! [`Workspace`] ([`transition_analytic_with`]) keeps the `Data<Dual64>` and buffers.
//!
//! The step's chain rule is analytic for Euler (`He = M`, or `M + h diag(damping)` with
//! eulerdamp) and implicitfast (`He = M − h sym(qDeriv)` on M's sparsity):
//! `He a_int = M qacc`, so `He ∂a_int = M ∂qacc + ∂M (qacc − a_int) + h sym(∂qDeriv) a_int`;
//! `v' = v + h a_int`; `q' = q ⊕ h v'` in closed form (`mjd_quatIntegrate` blocks,
//! [`crate::quat::quat_integrate_deriv`]) and `act'` (`advance_act`: `act + c act_dot`, zero
//! where the activation clamp is active).
//! `∂(qfrc_actuator, act_dot)/∂(act, u)`: each actuator depends only on its own control and
//! activation, so two seeded passes suffice (per-column passes with `jnt_actfrcrange` clamps).
//!
//! Unsupported ([`unsupported`]): RK4 and implicit, polynomial dof damping, implicitfast with
//! velocity-dependent actuator gains (affine `gainprm[2]`, muscles), tendon damping polynomials
//! or childless free bodies (MuJoCo's exact gyroscopic block), plus [`crate::inverse::unsupported`].
//! The sensor Jacobians `C`, `D` ([`crate::sensor`], from `∂qacc/∂x`) only when asked
//! ([`transition_analytic_flg`]); otherwise they are left empty (`0 × n`).

#![allow(clippy::needless_range_loop)]

use crate::dual::{lift, lift_into, seed};
use crate::fd::TransitionJacobians;
use crate::inverse::{dfda_dv_constraint, dfdv_smooth};
use moreau::crb::factor_ld;
use moreau::derivative::{d_actuator_vel, smooth_vel};
use moreau::forward::{fwd_acceleration, fwd_actuation, Skip};
use moreau::inverse::inverse_skip;
use moreau::model::{disable, GainType, Integrator, JointType, Model};
use moreau::solver::dense::chol_factor_fast;
use moreau::Data;
use nalgebra::DMatrix;

/// Why [`transition_analytic`] does not apply to `m`, if it doesn't.
pub fn unsupported(m: &Model) -> Option<&'static str> {
    if let Some(e) = crate::inverse::unsupported(m) {
        return Some(e);
    }
    let poly = |p: &[[f64; 2]]| p.iter().any(|p| p[0] != 0.0 || p[1] != 0.0);
    match m.opt.integrator {
        Integrator::Rk4 => return Some("RK4 integrator"),
        Integrator::Implicit => return Some("implicit integrator (use implicitfast)"),
        Integrator::Euler => {
            if poly(&m.dof_dampingpoly) {
                return Some("polynomial dof damping");
            }
        }
        Integrator::ImplicitFast => {
            if poly(&m.dof_dampingpoly) || poly(&m.tendon_dampingpoly) {
                return Some("polynomial damping under implicitfast");
            }
            for u in 0..m.nu {
                let g = m.actuator_gaintype[u];
                if g == GainType::Muscle
                    || (g == GainType::Affine && m.actuator_gainprm[u][2] != 0.0)
                {
                    return Some("velocity-dependent actuator gain under implicitfast");
                }
            }
            for j in 0..m.njnt {
                let b = m.jnt_bodyid[j];
                if m.jnt_type[j] == JointType::Free
                    && !m.body_parentid.iter().skip(b + 1).any(|&p| p == b)
                {
                    return Some("childless free body under implicitfast (gyroscopic block)");
                }
            }
        }
    }
    None
}

/// Reusable workspace of [`transition_analytic_with`] (the analytic `∂/∂q` buffers and the
/// `Data<Dual64>` of the single-stage dual passes).
pub type Workspace = crate::rnea::Work;

/// Results of one q-direction dual pass.
struct QPass {
    /// `∂g/∂q_i` (columns).
    dg: DMatrix<f64>,
    /// `∂M/∂q_i · x` in column `i` (`x = qacc − a_int`), when asked.
    dmx: DMatrix<f64>,
    /// `∂qDeriv/∂q_i` dense (rows outputs), when asked.
    dqd: Vec<DMatrix<f64>>,
}

fn dense_m(m: &Model, qm: &[f64]) -> DMatrix<f64> {
    let nv = m.nv;
    let mut b = vec![0.0; nv * nv];
    moreau::solver::dense::full_m(m, qm, &mut b);
    DMatrix::from_row_slice(nv, nv, &b)
}

fn q_pass(
    m: &Model,
    d: &Data<f64>,
    want_m: Option<&nalgebra::DVector<f64>>,
    want_qd: bool,
    w: &mut Workspace,
) -> QPass {
    let nv = m.nv;
    if !want_qd && crate::rnea::unsupported(m).is_none() {
        let dg = crate::pos::d_pos(m, d, crate::pos::Output::Residual, w);
        let mut dmx = DMatrix::zeros(nv, nv);
        if let Some(x) = want_m {
            crate::rnea::d_mass_vec_pos(m, d, x.as_slice(), w, &mut dmx);
        }
        return QPass {
            dg,
            dmx,
            dqd: Vec::new(),
        };
    }
    let mut dg = DMatrix::zeros(nv, nv);
    let mut dmx = DMatrix::zeros(nv, nv);
    let mut dqd = Vec::new();
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
        if want_qd {
            smooth_vel(m, &mut dd, false);
            dqd.push(DMatrix::from_fn(nv, nv, |r, c| dd.qDeriv[r * nv + c].eps));
        }
    }
    QPass { dg, dmx, dqd }
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
        for pass in 0..2 {
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
    use moreau::spatial::dof_parent;

    /// `row dst −= a · row src` (`dst != src`).
    #[inline]
    fn axpy(x: &mut [f64], c: usize, dst: usize, src: usize, a: f64) {
        if a == 0.0 {
            return;
        }
        let (d, s) = if dst < src {
            let (lo, hi) = x.split_at_mut(src * c);
            (&mut lo[dst * c..dst * c + c], &hi[..c])
        } else {
            let (lo, hi) = x.split_at_mut(dst * c);
            (&mut hi[..c], &lo[src * c..src * c + c])
        };
        for (y, z) in d.iter_mut().zip(s) {
            *y -= a * *z;
        }
    }

    fn scale(x: &mut [f64], c: usize, k: usize, a: f64) {
        for y in &mut x[k * c..k * c + c] {
            *y *= a;
        }
    }

    /// `row i −= Σ_k a_k · row k` over `ks` (all `k ≠ i`), four source rows per sweep.
    fn gather(x: &mut [f64], c: usize, i: usize, ks: &[usize], a: &[f64], tmp: &mut [f64]) {
        tmp.copy_from_slice(&x[i * c..i * c + c]);
        let mut p = 0;
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
            gather(x, c, i, &ks, &a, &mut tmp);
            scale(x, c, i, 1.0 / l[i * n + i]);
        }
        for i in (0..n).rev() {
            ks.clear();
            a.clear();
            ks.extend(i + 1..n);
            a.extend((i + 1..n).map(|k| l[k * n + i]));
            gather(x, c, i, &ks, &a, &mut tmp);
            scale(x, c, i, 1.0 / l[i * n + i]);
        }
    }

    /// `x ← A⁻¹ x` with `A`'s tree-sparse LᵀDL factor (`factor_ld`, qM layout).
    pub fn ld_solve(m: &Model, ld: &[f64], diag_inv: &[f64], x: &mut [f64], c: usize) {
        for k in (0..m.nv).rev() {
            let mut adr = m.dof_Madr[k];
            let mut i = dof_parent(m, k);
            while let Some(ii) = i {
                adr += 1;
                axpy(x, c, ii, k, ld[adr]);
                i = dof_parent(m, ii);
            }
        }
        for k in 0..m.nv {
            scale(x, c, k, diag_inv[k]);
        }
        let mut tmp = vec![0.0; c];
        let (mut ks, mut a) = (Vec::new(), Vec::new());
        for k in 0..m.nv {
            ks.clear();
            a.clear();
            let mut adr = m.dof_Madr[k];
            let mut i = dof_parent(m, k);
            while let Some(ii) = i {
                adr += 1;
                ks.push(ii);
                a.push(ld[adr]);
                i = dof_parent(m, ii);
            }
            if !ks.is_empty() {
                gather(x, c, k, &ks, &a, &mut tmp);
            }
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
    if let Some(e) = crate::inverse::unsupported(m) {
        return Err(e);
    }
    moreau::forward::forward(m, d);
    Ok(forward_parts(m, d, None, false, &mut Workspace::default()).0)
}

/// `(∂qacc/∂x, ∂act_dot/∂(act,u), q-pass)` with `d` already forwarded.
fn forward_parts(
    m: &Model,
    d: &mut Data<f64>,
    want_m: Option<&nalgebra::DVector<f64>>,
    want_qd: bool,
    w: &mut Workspace,
) -> (DMatrix<f64>, DMatrix<f64>, QPass) {
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let nx = 2 * nv + na + nu;
    // M + JᵀHJ and JᵀH B J from one J, H; (H, f) handed to the constraint ∂/∂q
    let (hs, jhbj, pre) = dfda_dv_constraint(m, d);
    w.cons.pre = pre;
    let mut dg = DMatrix::zeros(nv, nx);
    // velocity: ∂(bias − passive)/∂v + JᵀH B J − ∂qfrc_actuator/∂v
    let mut gv = dfdv_smooth(m, d);
    if let Some(x) = jhbj {
        gv += x;
    }
    let mut buf = vec![0.0; nv * nv];
    d_actuator_vel(m, d, &mut buf);
    gv -= DMatrix::from_row_slice(nv, nv, &buf);
    dg.columns_mut(nv, nv).copy_from(&gv);
    let (fa, ad) = actuation_jacobian(m, d, w);
    dg.columns_mut(2 * nv, na + nu).copy_from(&(-fa));
    let qp = q_pass(m, d, want_m, want_qd, w);
    w.cons.pre = None;
    dg.columns_mut(0, nv).copy_from(&qp.dg);
    // (M + JᵀHJ) da = −dg: one dense Cholesky factor, all columns at once (row blocks)
    let mut l: Vec<f64> = hs.as_slice().to_vec(); // symmetric: column-major = row-major
    chol_factor_fast(&mut l, nv);
    let mut xt = -dg.transpose();
    rows::chol_solve(&l, nv, xt.as_mut_slice(), nx);
    (xt.transpose(), ad, qp)
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
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let nx = 2 * nv + na;
    let h = m.opt.timestep;
    moreau::forward::forward(m, d);
    let fast = m.opt.integrator == Integrator::ImplicitFast;
    if flg_sensor {
        if let Some(e) = crate::sensor::unsupported(m, d) {
            return Err(e);
        }
    }
    // ∂qDeriv/∂q by full dual passes only where qderiv_pos does not apply
    let full_qd = fast && !crate::qderiv_pos::covered(m);
    let damped = !fast
        && !m.opt.disabled(disable::EULERDAMP)
        && !m.opt.disabled(disable::DAMPER)
        && m.dof_damping.iter().any(|&x| x > 0.0);
    // He (dense, implicitfast only) and its restriction of qDeriv to M's sparsity
    let restrict = |x: &DMatrix<f64>| {
        let mut o = DMatrix::zeros(nv, nv);
        for i in 0..nv {
            let mut j = i as i32;
            while j >= 0 {
                let ju = j as usize;
                let s = 0.5 * (x[(i, ju)] + x[(ju, i)]);
                o[(i, ju)] = s;
                o[(ju, i)] = s;
                j = m.dof_parentid[ju];
            }
        }
        o
    };
    let lu = fast.then(|| {
        smooth_vel(m, d, false);
        let qd = DMatrix::from_row_slice(nv, nv, &d.qDeriv);
        (dense_m(m, &d.qM) - h * restrict(&qd)).lu()
    });
    let qacc = nalgebra::DVector::from_column_slice(&d.qacc);
    let integrated = damped || fast;
    // He⁻¹: LU (implicitfast), or the tree-sparse LᵀDL of M + h diag(damping) (eulerdamp)
    let mut ld = Vec::new();
    let mut ldi = vec![0.0; nv];
    if damped {
        ld.extend_from_slice(&d.qM);
        for i in 0..nv {
            ld[m.dof_Madr[i]] += h * m.dof_damping[i];
        }
        factor_ld(m, &mut ld, &mut ldi);
    }
    let he_solve = |x: &mut DMatrix<f64>| {
        if let Some(lu) = &lu {
            *x = lu.solve(x).expect("He invertible");
        } else {
            let mut xt = x.transpose();
            rows::ld_solve(m, &ld, &ldi, xt.as_mut_slice(), x.ncols());
            *x = xt.transpose();
        }
    };
    // M x, in M's sparse layout (all columns at once)
    let qm = d.qM.clone();
    let m_mul = |x: &DMatrix<f64>| {
        let xt = x.transpose();
        let mut yt = DMatrix::zeros(x.ncols(), nv);
        rows::sparse_mul(m, &qm, xt.as_slice(), yt.as_mut_slice(), x.ncols());
        yt.transpose()
    };
    // ∂a_int/∂x
    // eulerdamp: He = M + h D, so He⁻¹ M = I − h He⁻¹ D and
    // a_int = qacc − h He⁻¹ D qacc, ∂a_int = ∂qacc + He⁻¹ (∂M (qacc − a_int) − h D ∂qacc)
    let damp = |x: &DMatrix<f64>| {
        let mut y = x.clone();
        for (i, mut r) in y.row_iter_mut().enumerate() {
            r *= -h * m.dof_damping[i];
        }
        y
    };
    let aint = if damped {
        let mut x = damp(&DMatrix::from_column_slice(nv, 1, qacc.as_slice()));
        he_solve(&mut x);
        &qacc + nalgebra::DVector::from_column_slice(x.as_slice())
    } else if fast {
        let mut x = m_mul(&DMatrix::from_column_slice(nv, 1, qacc.as_slice()));
        he_solve(&mut x);
        nalgebra::DVector::from_column_slice(x.as_slice())
    } else {
        qacc.clone()
    };
    let diff = &qacc - &aint;
    let (da, ad, qp) = forward_parts(m, d, integrated.then_some(&diff), full_qd, w);
    let sensors = if flg_sensor {
        Some(crate::sensor::sensor_jacobians(m, d, &da, w)?)
    } else {
        None
    };
    let dai = if damped {
        let mut rhs = damp(&da);
        for i in 0..nv {
            let mut col = rhs.column_mut(i);
            col += qp.dmx.column(i);
        }
        he_solve(&mut rhs);
        rhs + da
    } else if fast {
        let mut rhs = m_mul(&da);
        let mut c = qp.dmx.clone();
        if full_qd {
            for i in 0..nv {
                let mut col = c.column_mut(i);
                col += h * restrict(&qp.dqd[i]) * &aint;
            }
        } else {
            crate::qderiv_pos::add_dqderiv_vec(m, d, aint.as_slice(), h, w, &mut c);
        }
        let mut q = rhs.columns_mut(0, nv);
        q += c;
        he_solve(&mut rhs);
        rhs
    } else {
        da
    };
    // v' = v + h a_int
    let mut dv = h * dai;
    for i in 0..nv {
        dv[(i, nv + i)] += 1.0;
    }
    // q' = q ⊕ h v' (mjd_quatIntegrate blocks for quaternions) and act' (advance_act)
    let mut full = DMatrix::<f64>::zeros(nx, nx + nu);
    for j in 0..m.njnt {
        let da = m.jnt_dofadr[j];
        let (lin, rot) = match m.jnt_type[j] {
            JointType::Free => (3, Some(da + 3)),
            JointType::Ball => (0, Some(da)),
            _ => (1, None),
        };
        for i in da..da + lin {
            for k in 0..nx + nu {
                full[(i, k)] = h * dv[(i, k)];
            }
            full[(i, i)] += 1.0;
        }
        if let Some(r) = rot {
            let w = nalgebra::Vector3::new(
                d.qvel[r] + h * aint[r],
                d.qvel[r + 1] + h * aint[r + 1],
                d.qvel[r + 2] + h * aint[r + 2],
            );
            let (dq, dvel, _) = crate::quat::quat_integrate_deriv(&w, h);
            let dvel = dvel * h;
            for k in 0..nx + nu {
                let x = nalgebra::Vector3::new(dv[(r, k)], dv[(r + 1, k)], dv[(r + 2, k)]);
                let mut y = dvel * x;
                if (r..r + 3).contains(&k) {
                    y += dq.column(k - r);
                }
                for c in 0..3 {
                    full[(r + c, k)] = y[c];
                }
            }
        }
    }
    full.rows_mut(nv, nv).copy_from(&dv);
    for u in 0..nu {
        let Ok(adr) = usize::try_from(m.actuator_actadr[u]) else {
            continue;
        };
        for i in adr..adr + m.actuator_actnum[u] {
            let c = if m.actuator_dyntype[u] == moreau::model::DynType::FilterExact {
                let tau = m.actuator_dynprm[u][0].max(1e-15);
                tau * (1.0 - (-h / tau).exp())
            } else {
                h
            };
            // clamped activations do not move (as the dual of the clamp: strict comparisons)
            let x = d.act[i] + d.act_dot[i] * c;
            if m.actuator_actlimited[u] {
                let r = m.actuator_actrange[u];
                if x < r[0] || x > r[1] {
                    continue;
                }
            }
            full[(2 * nv + i, 2 * nv + i)] = 1.0;
            for col in 0..na + nu {
                full[(2 * nv + i, 2 * nv + col)] += c * ad[(i, col)];
            }
        }
    }
    // column-major: A's columns are the first nx·nx entries, B's the rest
    let a = DMatrix::from_column_slice(nx, nx, &full.as_slice()[..nx * nx]);
    let b = DMatrix::from_column_slice(nx, nu, &full.as_slice()[nx * nx..]);
    let (c, dm) = sensors.unwrap_or_else(|| (DMatrix::zeros(0, nx), DMatrix::zeros(0, nu)));
    Ok(TransitionJacobians {
        A: a,
        B: b,
        C: c,
        D: dm,
    })
}
