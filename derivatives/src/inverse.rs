//! Analytic inverse-dynamics derivatives (Computation "Reduced primal problem";
//! docs/mujoco-behaviour.md#cost).
//!
//! `qfrc_inverse(q, v, a) = M(q) a + c(q, v) − qfrc_passive(q, v) − Jᵀ f(J a − aref)` with the
//! soft-constraint force `f = −∂s/∂jar` and `H[s] = ∂²s/∂jar²` (block-diagonal: `D` on quadratic
//! rows, 0 on satisfied and linear friction rows, the cone Hessian on elliptic middle-zone
//! blocks). Hence, exactly (away from the measure-zero state switches):
//! - `∂f/∂a = M + Jᵀ H J` (analytic);
//! - `∂f/∂v = ∂c/∂v − ∂qfrc_passive/∂v + Jᵀ H (diag(B) J + X)` (the RNE and passive velocity
//!   derivatives of `moreau::derivative`, fluid forces unsymmetrized ([`crate::fluid`]), and
//!   `∂aref/∂v = −diag(B) J − X`, `X = ∂(J̇ v)/∂v` on connect/weld rows, whose `aref` subtracts
//!   the velocity-quadratic `J̇ v` (docs/mujoco-behaviour.md#parameters): in [`InverseDerivatives`]
//!   from the restricted `∂/∂q` pass's `∂J/∂q_j` (`X e_k = Σ_j v_j (∂J/∂q_j) e_k + (∂J/∂q_k) v`,
//!   `crate::inverse_pos::d_pos_inverse_jdot`), else `jdot_vel`'s `nv` `Dual64` passes over
//!   `com_vel` and the engine's `J̇ v`; both exact);
//! - `∂f/∂q`: `∂(M a + c − springs − gravcomp)/∂q` and `∂M/∂q` analytic ([`crate::rne`]);
//!   constraint and tendon-passive terms by a dual pass restricted to the stages they need
//!   ([`crate::inverse_pos`]; with `com_vel` for connect/weld `J̇ v`); fluid models by the full dual
//!   pass ([`Support::smooth_pos`](crate::support::Support::smooth_pos)).
//!
//! Layout as [`crate::fd::InverseJacobians`]: `D[i][j] = ∂f_j/∂in_i`.
//!
//! `invdiscrete` (API Reference `mj_inverse`; MuJoCo 4.0.0's `mj_discreteAcc`): `qacc` is the
//! discrete acceleration `a`, and `f` is evaluated at the continuous one `ã = M⁻¹ He a = a + M⁻¹
//! x`, `x = (He − M) a`, with the step matrix `He` of the integrator ([`crate::step_matrix`]). With
//! `F = ∂f/∂ã = M + JᵀHJ`, from `M ã = M a + x`:
//! - `∂τ/∂a = F M⁻¹ He = F (I + M⁻¹ (He − M))`;
//! - `∂τ/∂v = ∂f/∂v + F M⁻¹ ∂x/∂v` (`M` does not depend on `v`);
//! - `∂τ/∂q = ∂f/∂q + F M⁻¹ (∂x/∂q − ∂M/∂q (ã − a))` (`∂f/∂q` at fixed `ã`).
//!
//! Euler with eulerdamp: `He − M = h diag(D(v))` (`D` the damping slopes), so `∂x/∂q = 0` and
//! `∂x/∂v = h diag(D'(v) a)`, analytic. Implicitfast and implicit: `He − M = −h S∘sym(qDeriv)`
//! (with the exact gyroscopic block of childless free bodies) or `−h S∘qDeriv`, `qDeriv`
//! recomputed at the state as MuJoCo's `mj_discreteAcc` does; `∂x/∂(q, v)` by the restricted
//! dual passes of [`crate::step_matrix::d_he_offset_vec`] at the fixed `a`.
//!
//! Not covered (reported by [`Support::inverse`](crate::support::Support::inverse)): `invdiscrete` with RK4, which MuJoCo 4.0.0 refuses
//! (a fatal error in `mj_discreteAcc`; [`moreau::pipeline::inverse_unsupported`]).

#![allow(clippy::needless_range_loop)]

use crate::constraint::{constraint_hessian, constraint_hessian_force, efc_jacobian};
use moreau::data::ConstraintType;
use moreau::model::{enable, EqType, Integrator, Model};
use moreau::pipeline::{
    d_passive_vel, d_rne_vel, damping_slope, discrete_acc, euler_damped, reference_constraint,
};
use moreau::{full_m, solve_m, Data};
use nalgebra::DMatrix;
use num_dual::Dual64;

/// Dense `M` (`nv × nv`).
pub fn mass_matrix(m: &Model, d: &Data<f64>) -> DMatrix<f64> {
    let nv = m.nv;
    let mut buf = vec![0.0; nv * nv];
    full_m(m, &d.qM, &mut buf);
    DMatrix::from_row_slice(nv, nv, &buf)
}

/// `M + Jᵀ H J` (symmetric; the Newton Hessian at `qacc`). Needs the position and velocity
/// stages (and the constraint rows) of `d`.
pub fn dfda(m: &Model, d: &Data<f64>) -> DMatrix<f64> {
    let mut a = mass_matrix(m, d);
    if d.nefc > 0 {
        let j = efc_jacobian(m, d);
        let h = constraint_hessian(m, d);
        a += j.transpose() * h * &j;
    }
    a
}

/// The constraint terms of [`dfda`] and [`dfdv_rows`] from one `J` and `H`: `Jᵀ H J`,
/// `Jᵀ H (diag(B) J + X)` (`X` of [`jdot_vel`], whose `Dual64` data `w` holds) and
/// `(H, efc_force)`; `None` without constraint rows.
#[allow(clippy::type_complexity)]
pub(crate) fn constraint_terms(
    m: &Model,
    d: &Data<f64>,
    w: &mut crate::work::Work,
) -> Option<(DMatrix<f64>, DMatrix<f64>, (DMatrix<f64>, Vec<f64>))> {
    constraint_terms_x(m, d, w, None)
}

/// [`constraint_terms`] with `X` given (`xd`, e.g. from [`crate::inverse_pos::d_pos_inverse_jdot`]);
/// [`jdot_vel`] computes it when `None`.
#[allow(clippy::type_complexity)]
fn constraint_terms_x(
    m: &Model,
    d: &Data<f64>,
    w: &mut crate::work::Work,
    xd: Option<&DMatrix<f64>>,
) -> Option<(DMatrix<f64>, DMatrix<f64>, (DMatrix<f64>, Vec<f64>))> {
    if d.nefc == 0 {
        return None;
    }
    let j = efc_jacobian(m, d);
    let (h, f) = constraint_hessian_force(m, d);
    let jth = j.transpose() * &h;
    let jhj = &jth * &j;
    let mut bj = j;
    for r in 0..d.nefc {
        let b = d.efc_KBIP[r][1];
        bj.row_mut(r).scale_mut(b);
    }
    let mut jhbj = &jth * bj;
    match xd {
        Some(x) => jhbj += jth.columns(0, x.nrows()) * x,
        None => {
            if let Some(x) = jdot_vel(m, d, w) {
                jhbj += jth.columns(0, x.nrows()) * x;
            }
        }
    }
    Some((jhj, jhbj, (h, f)))
}

/// Subtracts the `J̇ qvel` term `Jᵀ H X` ([`jdot_vel`]) from the velocity columns `nv..2nv`
/// of the row-major `nv × c` block `x` (`−∂g/∂x` of [`crate::transition`](mod@crate::transition)); nothing without
/// connect/weld rows.
pub(crate) fn sub_jdot_vel(
    m: &Model,
    d: &Data<f64>,
    h: &DMatrix<f64>,
    w: &mut crate::work::Work,
    x: &mut [f64],
    c: usize,
) {
    let nv = m.nv;
    let Some(xd) = jdot_vel(m, d, w) else {
        return;
    };
    let j = efc_jacobian(m, d);
    let g = j.transpose() * h.columns(0, xd.nrows()) * xd;
    for k in 0..nv {
        for l in 0..nv {
            x[k * c + nv + l] -= g[(k, l)];
        }
    }
}

/// `X = ∂(J̇ qvel)/∂qvel` of the leading equality rows of `d` (`ne × nv`, `ne` the number of
/// equality rows; zero on rows other than connect/weld), `None` without connect/weld rows.
/// Connect and weld rows' `aref` subtracts `J̇ qvel` (docs/mujoco-behaviour.md#parameters,
/// "Reference acceleration"), quadratic in `qvel`, so `∂aref/∂v = −diag(B) J − X` on those rows and
/// the constraint term of `∂qfrc_inverse/∂v` gains `Jᵀ H X`.
///
/// By `nv` `Dual64` passes over `com_vel` and the engine's own `J̇ qvel`
/// ([`reference_constraint`] on rows with `J = 0`, `K = B = 0`, so `efc_aref = −J̇ qvel`), one
/// per velocity direction ([`crate::dual::vel_passes`]; positions are not seeded).
pub(crate) fn jdot_vel(
    m: &Model,
    d: &Data<f64>,
    w: &mut crate::work::Work,
) -> Option<DMatrix<f64>> {
    let nv = m.nv;
    let ne = d.efc_type[..d.nefc]
        .iter()
        .take_while(|t| **t == ConstraintType::Equality)
        .count();
    if !(0..ne).any(|r| matches!(m.eq_type[d.efc_id[r]], EqType::Connect | EqType::Weld)) {
        return None;
    }
    let dd = w.dual_of(m, d);
    dd.efc_J_sparse = false;
    dd.resize_efc(nv, ne, 0);
    dd.efc_type[..ne].copy_from_slice(&d.efc_type[..ne]);
    dd.efc_id[..ne].copy_from_slice(&d.efc_id[..ne]);
    let z = Dual64::from(0.0);
    dd.efc_J[..ne * nv].fill(z);
    dd.efc_KBIP[..ne].fill([z; 4]);
    dd.efc_pos[..ne].fill(z);
    dd.efc_margin[..ne].fill(z);
    let mut x = DMatrix::zeros(ne, nv);
    crate::dual::vel_passes(m, dd, |dd, k| {
        reference_constraint(m, dd);
        for r in 0..ne {
            x[(r, k)] = -dd.efc_aref[r].eps;
        }
    });
    Some(x)
}

/// `∂(qfrc_bias − qfrc_passive)/∂v` plus the constraint term `Jᵀ H (diag(B) J + X)`, rows are
/// outputs (`∂f_i/∂v_k`).
pub fn dfdv_rows(m: &Model, d: &mut Data<f64>) -> DMatrix<f64> {
    let mut out = dfdv_smooth(m, d);
    if let Some((_, jhbj, _)) = constraint_terms(m, d, &mut crate::work::Work::default()) {
        out += jhbj;
    }
    out
}

/// [`dfdv_rows`] without the constraint term.
pub(crate) fn dfdv_smooth(m: &Model, d: &mut Data<f64>) -> DMatrix<f64> {
    let nv = m.nv;
    let mut out = DMatrix::zeros(nv, nv);
    let (mut buf, mut b) = (vec![0.0; nv * nv], vec![0.0; nv * nv]);
    dfdv_into(
        m,
        d,
        &mut crate::work::Work::default(),
        &mut buf,
        &mut b,
        &mut out,
    );
    out
}

/// [`dfdv_smooth`] into `out` (`nv × nv`) with workspaces (`buf`, `b`: `nv²` each); no
/// allocation.
fn dfdv_into(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut crate::work::Work,
    buf: &mut [f64],
    b: &mut [f64],
    out: &mut DMatrix<f64>,
) {
    let nv = m.nv;
    dfdv_buf(m, d, w, buf, b);
    for i in 0..nv {
        for k in 0..nv {
            out[(i, k)] = buf[i * nv + k];
        }
    }
}

/// [`dfdv_smooth`] row-major into `buf` (`b`: scratch; `nv²` each); no allocation.
/// `−∂(qfrc_bias − qfrc_passive)/∂qvel` (row-major `nv × nv`, overwrites `buf`): the negated
/// [`dfdv_buf`] without its second buffer and zero fill (`∂qfrc_bias/∂v` written first, then
/// negated, then `+∂passive/∂v` accumulated).
pub(crate) fn neg_dfdv_into(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut crate::work::Work,
    buf: &mut [f64],
) {
    let ready = std::mem::take(&mut w.bias_vel_ready);
    w.bias_vel_want = false;
    if crate::support::Support::smooth_pos(m).is_covered() && ready && w.bias_vel.len() == buf.len()
    {
        // left by the position pass that ran first at this state (crate::forward's
        // forward_parts), the same numbers as crate::rne::d_bias_vel's
        for (x, y) in buf.iter_mut().zip(&w.bias_vel) {
            *x = -*y;
        }
    } else {
        if crate::support::Support::smooth_pos(m).is_covered() {
            crate::rne::d_bias_vel(m, d, w, buf);
        } else {
            buf.fill(0.0);
            d_rne_vel(m, d, 0..m.nv, buf);
        }
        for x in buf.iter_mut() {
            *x = -*x;
        }
    }
    d_passive_vel(m, d, buf);
    crate::fluid::fluid_exact(m, d, buf);
}

pub(crate) fn dfdv_buf(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut crate::work::Work,
    buf: &mut [f64],
    b: &mut [f64],
) {
    let nv = m.nv;
    // passive adds +∂passive/∂v (accumulates): negate after, then add ∂bias/∂v
    buf.fill(0.0);
    d_passive_vel(m, d, buf);
    crate::fluid::fluid_exact(m, d, buf);
    for x in buf.iter_mut() {
        *x = -*x;
    }
    if crate::support::Support::smooth_pos(m).is_covered() {
        // the O(n·depth) recursion of crate::rne (no tendon-armature bias term there)
        crate::rne::d_bias_vel(m, d, w, b);
        for (x, y) in buf.iter_mut().zip(b.iter()) {
            *x += *y;
        }
    } else {
        d_rne_vel(m, d, 0..nv, buf);
    }
}

/// Analytic `∂qfrc_inverse/∂(qpos, qvel, qacc)` with a reusable workspace (no allocation on
/// constraint-free models with [`crate::rne`]-supported smooth dynamics). Rows are outputs
/// (`dq[(i, j)] = ∂qfrc_inverse_i/∂q_j`, tangent `q`): the transpose of MuJoCo's layout.
/// Under `invdiscrete` (Euler) `qacc` is the discrete acceleration and the chain rule of the
/// module docs applies.
#[derive(Default)]
pub struct InverseDerivatives {
    /// `∂τ/∂q` (`nv × nv`).
    pub dq: DMatrix<f64>,
    /// `∂τ/∂v`.
    pub dv: DMatrix<f64>,
    /// `∂τ/∂a`.
    pub da: DMatrix<f64>,
    /// `DmDq` of the full dual pass ([`crate::dual::dual_inverse_dq`]) when it was used.
    dm_dual: Option<DMatrix<f64>>,
    w: crate::work::Work,
    buf: Vec<f64>,
    buf2: Vec<f64>,
    a: Vec<f64>,
    x: Vec<f64>,
    col: Vec<f64>,
    ka: DMatrix<f64>,
    kv: DMatrix<f64>,
    kq: DMatrix<f64>,
}

impl InverseDerivatives {
    pub fn new(m: &Model) -> Self {
        let mut s = Self::default();
        s.resize(m.nv);
        s
    }

    fn resize(&mut self, nv: usize) {
        if self.dq.nrows() == nv && self.a.len() == nv {
            return;
        }
        for mat in [
            &mut self.dq,
            &mut self.dv,
            &mut self.da,
            &mut self.ka,
            &mut self.kv,
            &mut self.kq,
        ] {
            *mat = DMatrix::zeros(nv, nv);
        }
        self.buf = vec![0.0; nv * nv];
        self.buf2 = vec![0.0; nv * nv];
        self.a = vec![0.0; nv];
        self.x = vec![0.0; nv];
        self.col = vec![0.0; nv];
    }

    /// Runs [`moreau::inverse`] on `d` (state and `qacc` in `d`; `qacc` is left
    /// unchanged) and fills `dq`, `dv`, `da`.
    pub fn compute(&mut self, m: &Model, d: &mut Data<f64>) -> Result<(), &'static str> {
        if let Err(e) = crate::support::Support::inverse(m).check() {
            return Err(e.message());
        }
        let nv = m.nv;
        self.resize(nv);
        self.dm_dual = None;
        self.a.copy_from_slice(&d.qacc);
        moreau::inverse(m, d);
        // RK4 does not reach here under invdiscrete (`Support::inverse`)
        let disc = m.opt.enabled(enable::INVDISCRETE);
        let damped = disc && m.opt.integrator == Integrator::Euler && euler_damped(m);
        let implicit = disc
            && matches!(
                m.opt.integrator,
                Integrator::Implicit | Integrator::ImplicitFast
            );
        if damped || implicit {
            discrete_acc(m, d);
            for i in 0..nv {
                self.x[i] = d.qacc[i] - self.a[i];
            }
        }
        let full_dual = !crate::support::Support::smooth_pos(m).is_covered();
        // ∂f/∂q at ã (restricted pass or analytic); with connect/weld rows the restricted pass
        // also gives X = ∂(J̇ v)/∂v (crate::inverse_pos::d_pos_inverse_jdot), saving jdot_vel's passes
        let mut xd = None;
        if !full_dual {
            let ne = d.efc_type[..d.nefc]
                .iter()
                .take_while(|t| **t == ConstraintType::Equality)
                .count();
            let cw =
                (0..ne).any(|r| matches!(m.eq_type[d.efc_id[r]], EqType::Connect | EqType::Weld));
            if cw {
                let mut x = DMatrix::zeros(ne, nv);
                if crate::inverse_pos::d_pos_inverse_jdot(m, d, &mut self.w, &mut self.dq, &mut x) {
                    xd = Some(x);
                }
            } else {
                crate::inverse_pos::d_pos_into(
                    m,
                    d,
                    crate::inverse_pos::Output::Inverse,
                    &mut self.w,
                    &mut self.dq,
                );
            }
        }
        // F = ∂f/∂ã
        full_m(m, &d.qM, &mut self.buf);
        for i in 0..nv {
            for k in 0..nv {
                self.da[(i, k)] = self.buf[i * nv + k];
            }
        }
        dfdv_into(
            m,
            d,
            &mut self.w,
            &mut self.buf,
            &mut self.buf2,
            &mut self.dv,
        );
        // the constraint terms of ∂f/∂ã and ∂f/∂v from one J, H
        if let Some((jhj, jhbj, _)) = constraint_terms_x(m, d, &mut self.w, xd.as_ref()) {
            self.da += jhj;
            self.dv += jhbj;
        }
        if full_dual {
            // the dual inverse converts the discrete qacc itself: total ∂τ/∂q
            d.qacc.copy_from_slice(&self.a);
            let (dq, dm) = crate::dual::dual_inverse_dq(m, d);
            self.dq.tr_copy_from(&dq);
            self.dm_dual = Some(dm);
        }
        if damped {
            let h = m.opt.timestep;
            // ∂ã/∂a − I = h M⁻¹ D, ∂ã/∂v = h M⁻¹ diag(D'(v) a), column by column
            for j in 0..nv {
                // slope b + 2p₀|v| + 3p₁v² (moreau::pipeline::damping_slope)
                let p = m.dof_damping_eff(j).1;
                let v = d.qvel[j];
                let sgn = if v > 0.0 {
                    1.0
                } else if v < 0.0 {
                    -1.0
                } else {
                    0.0
                };
                let slope_v = 2.0 * p[0] * sgn + 6.0 * p[1] * v;
                for (c, s) in [
                    (&mut self.ka, h * damping_slope(m, d, j)),
                    (&mut self.kv, h * slope_v * self.a[j]),
                ] {
                    self.col.iter_mut().for_each(|x| *x = 0.0);
                    self.col[j] = s;
                    solve_m(m, d, &mut self.col);
                    c.column_mut(j).copy_from_slice(&self.col);
                }
            }
            self.dv.gemm(1.0, &self.da, &self.kv, 1.0);
            if !full_dual {
                // ∂ã/∂q = −M⁻¹ ∂(M x)/∂q
                crate::rne::d_mass_vec_pos(m, d, &self.x, &mut self.w, &mut self.kq);
                for j in 0..nv {
                    self.col.copy_from_slice(self.kq.column(j).as_slice());
                    solve_m(m, d, &mut self.col);
                    self.kq.column_mut(j).copy_from_slice(&self.col);
                }
                self.dq.gemm(-1.0, &self.da, &self.kq, 1.0);
            }
            // da ← F (I + K): kv is free again
            self.kv.copy_from(&self.da);
            self.da.gemm(1.0, &self.kv, &self.ka, 1.0);
        }
        if implicit {
            self.implicit_chain(m, d, full_dual);
        }
        d.qacc.copy_from_slice(&self.a);
        Ok(())
    }

    /// The `invdiscrete` chain rule of the implicit integrators (module docs): `d` holds the
    /// inverse dynamics' stages with `qacc = ã`, `self.a` the discrete `a`, `self.x = ã − a`;
    /// `da` holds `F` on entry. With `full_dual`, `dq` is already total.
    fn implicit_chain(&mut self, m: &Model, d: &mut Data<f64>, full_dual: bool) {
        let nv = m.nv;
        // K_a = M⁻¹ (He − M)
        crate::step_matrix::he_offset(m, d, &mut self.buf);
        for j in 0..nv {
            for i in 0..nv {
                self.col[i] = self.buf[i * nv + j];
            }
            solve_m(m, d, &mut self.col);
            self.ka.column_mut(j).copy_from_slice(&self.col);
        }
        // ∂x/∂(q, v) at fixed a (columns: position tangent, velocity, act, ctrl)
        let g = crate::step_matrix::d_he_offset_vec(m, d, &self.a, &mut self.w);
        for j in 0..nv {
            self.col.copy_from_slice(g.column(nv + j).as_slice());
            solve_m(m, d, &mut self.col);
            self.kv.column_mut(j).copy_from_slice(&self.col);
        }
        self.dv.gemm(1.0, &self.da, &self.kv, 1.0);
        if !full_dual {
            // ∂ã/∂q = M⁻¹ (∂x/∂q − ∂(M (ã − a))/∂q)
            crate::rne::d_mass_vec_pos(m, d, &self.x, &mut self.w, &mut self.kq);
            for j in 0..nv {
                for i in 0..nv {
                    self.col[i] = g[(i, j)] - self.kq[(i, j)];
                }
                solve_m(m, d, &mut self.col);
                self.kq.column_mut(j).copy_from_slice(&self.col);
            }
            self.dq.gemm(1.0, &self.da, &self.kq, 1.0);
        }
        self.kv.copy_from(&self.da);
        self.da.gemm(1.0, &self.kv, &self.ka, 1.0);
    }
}

/// Analytic inverse Jacobians `(DfDq, DfDv, DfDa)` of `qfrc_inverse` at the state and `qacc`
/// of `d`, MuJoCo's transposed layout. Runs [`moreau::inverse`] on `d` first.
/// `DfDq` and the returned `DmDq` (row `i` = `∂qM/∂q_i` in qM's layout) are analytic
/// ([`crate::rne`], [`crate::inverse_pos`]: constraint and tendon-passive terms by a restricted dual
/// pass), or by full dual passes ([`crate::dual::dual_inverse_dq`]) for
/// models outside [`Support::smooth_pos`](crate::support::Support::smooth_pos).
#[allow(non_snake_case, clippy::type_complexity)]
pub(crate) fn analytic(
    m: &Model,
    d: &mut Data<f64>,
) -> Result<(DMatrix<f64>, DMatrix<f64>, DMatrix<f64>, DMatrix<f64>), &'static str> {
    let mut w = InverseDerivatives::new(m);
    w.compute(m, d)?;
    let DmDq = match w.dm_dual.take() {
        Some(dm) => dm,
        None => {
            let mut dm = DMatrix::zeros(m.nv, m.nM);
            crate::rne::d_mass_pos(m, d, &mut w.w, &mut dm);
            dm
        }
    };
    Ok((w.dq.transpose(), w.dv.transpose(), w.da.transpose(), DmDq))
}
