//! Analytic transition Jacobians of the RK4 step (Computation "Numerical integration";
//! docs/mujoco-behaviour.md#integrators, RK4): the chain rule over the four stages of
//! `moreau::integrator::runge_kutta`.
//!
//! Stage `i` evaluates forward dynamics at `x_i = (q0 ⊕ h Σ_j a_ij k_j, v0 + h Σ_j a_ij qacc_j,
//! act0 + h Σ_j a_ij act_dot_j)`, with `k_j` the stage velocity (rotations `dexp⁻¹(θ_j, ω_j)`,
//! `θ_j = h Σ a_jl k_l`); the step is `q' = q0 ⊕ h Σ b_j k_j`, `v' = v0 + h Σ b_j qacc_j`,
//! `act'` = `advance_act` of `Σ b_j act_dot_j`. Each stage's `∂(qacc, act_dot)/∂x_i` is the
//! forward-dynamics IFT derivative of [`crate::transition`](mod@crate::transition) at that stage's state (the constraint
//! solver converged there); the tangent maps of `q0 ⊕ h w` are `mjd_quatIntegrate`'s blocks
//! ([`crate::quat::quat_integrate_deriv`]) and `dexp⁻¹`'s Jacobians come from `Dual64`
//! evaluations of [`moreau::pipeline::dexpinv`] (six per rotation and stage).

#![allow(clippy::needless_range_loop)]

use crate::fd::TransitionJacobians;
use crate::work::Work as Workspace;
use moreau::model::{JointType, Model};
use moreau::pipeline::dexpinv;
use moreau::{integrate_pos, Data};
use nalgebra::{DMatrix, Matrix3};
use num_dual::Dual64;

/// Nonzero Butcher coefficient of stage `i` (on stage `i − 1`), weights and nodes: those of
/// the engine's RK4 (`a_21 = a_32 = 1/2`, `a_43 = 1`).
const RK_A: [f64; 3] = [0.5, 0.5, 1.0];
const RK_B: [f64; 4] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];
const RK_C: [f64; 4] = [0.0, 0.5, 0.5, 1.0];

/// First dof of each rotation (free joint's rotational part, ball joint).
fn rotations(m: &Model) -> Vec<usize> {
    (0..m.njnt)
        .filter_map(|j| match m.jnt_type[j] {
            JointType::Free => Some(m.jnt_dofadr[j] + 3),
            JointType::Ball => Some(m.jnt_dofadr[j]),
            _ => None,
        })
        .collect()
}

/// `(∂/∂θ, ∂/∂ω)` of `dexp⁻¹(θ, ω)` by six dual evaluations.
fn dexpinv_jac(th: &[f64; 3], w: &[f64; 3]) -> (Matrix3<f64>, Matrix3<f64>) {
    let mut jt = Matrix3::zeros();
    let mut jw = Matrix3::zeros();
    for k in 0..6 {
        let mut t = th.map(Dual64::from);
        let mut o = w.map(Dual64::from);
        if k < 3 {
            t[k].eps = 1.0;
        } else {
            o[k - 3].eps = 1.0;
        }
        let r = dexpinv(&t, &o);
        for e in 0..3 {
            if k < 3 {
                jt[(e, k)] = r[e].eps;
            } else {
                jw[(e, k - 3)] = r[e].eps;
            }
        }
    }
    (jt, jw)
}

/// Tangent rows of `q0 ⊕ h w` (`nv × c`) from those of `q0` (identity: the inputs' position
/// tangent) and `dw = ∂w/∂inputs` (`nv × c`), at the velocity `w`
/// ([`crate::integrate::integrate_rows`] on row-major copies).
fn integrate_rows(m: &Model, w: &[f64], dw: &DMatrix<f64>, h: f64) -> DMatrix<f64> {
    let (nv, c) = (m.nv, dw.ncols());
    let dwt = dw.transpose();
    let mut out = vec![0.0; nv * c];
    crate::integrate::integrate_rows(m, w, dwt.as_slice(), c, h, &mut out);
    DMatrix::from_row_slice(nv, c, &out)
}

/// Analytic `A`, `B` (and with `flg_sensor` `C`, `D` at the current state) of one RK4 step;
/// `d` forwarded at its state, which is not advanced.
pub(crate) fn transition(
    m: &Model,
    d: &mut Data<f64>,
    w: &mut Workspace,
    flg_sensor: bool,
) -> Result<TransitionJacobians, &'static str> {
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let nx = 2 * nv + na;
    let c = nx + nu;
    let h = m.opt.timestep;
    let rots = rotations(m);
    // stage 0 at the current state
    let (da0, ad0) = crate::forward::stage_jacobians(m, d, w);
    let sensors = if flg_sensor {
        Some(crate::sensor::sensor_jacobians(m, d, &da0, w)?)
    } else {
        None
    };
    // inputs' rows of the current state: q tangent, v, act, u
    let ident = |off: usize, n: usize| DMatrix::from_fn(n, c, |r, k| f64::from(k == off + r));
    let v0 = ident(nv, nv);
    let act0 = ident(2 * nv, na);
    let u_rows = ident(nx, nu);
    // ∂act_dot/∂(act, u) of a stage as a function of the inputs
    let act_dot_rows = |ad: &DMatrix<f64>, act: &DMatrix<f64>| {
        let mut au = DMatrix::zeros(na + nu, c);
        au.rows_mut(0, na).copy_from(act);
        au.rows_mut(na, nu).copy_from(&u_rows);
        ad * au
    };
    // per stage: qacc, act_dot, the velocity k (values) and their input derivatives
    let mut qacc = vec![d.qacc.clone()];
    let mut actdot = vec![d.act_dot.clone()];
    let mut kval = vec![d.qvel.clone()];
    let mut dacc = vec![da0];
    let mut dactdot = vec![act_dot_rows(&ad0, &act0)];
    let mut dk = vec![v0.clone()];
    // the stages' Data: the workspace's, refilled from `d` (no allocation after the first call)
    w.fit(m);
    let mut di = match w.stage.take() {
        Some(mut di) => {
            di.clone_from(d);
            di
        }
        None => d.clone(),
    };
    for i in 1..4 {
        let a = RK_A[i - 1];
        // stage state, as the engine computes it
        let dv: Vec<f64> = kval[i - 1].iter().map(|k| 0.0 + k * a).collect();
        di.qpos.copy_from_slice(&d.qpos);
        integrate_pos(m, &mut di.qpos, &dv, h);
        for x in 0..nv {
            di.qvel[x] = d.qvel[x] + h * (0.0 + qacc[i - 1][x] * a);
        }
        for x in 0..na {
            di.act[x] = d.act[x] + h * (0.0 + actdot[i - 1][x] * a);
        }
        di.time = d.time + RK_C[i] * h;
        di.qacc_warmstart.copy_from_slice(&d.qacc_warmstart);
        moreau::forward(m, &mut di);
        // its input derivatives
        let ddv = &dk[i - 1] * a;
        let q_i = integrate_rows(m, &dv, &ddv, h);
        let v_i = &v0 + &dacc[i - 1] * (h * a);
        let act_i = &act0 + &dactdot[i - 1] * (h * a);
        let (da, ad) = crate::forward::stage_jacobians(m, &mut di, w);
        let mut s = DMatrix::zeros(c, c);
        s.rows_mut(0, nv).copy_from(&q_i);
        s.rows_mut(nv, nv).copy_from(&v_i);
        s.rows_mut(2 * nv, na).copy_from(&act_i);
        s.rows_mut(nx, nu).copy_from(&u_rows);
        dacc.push(da * s);
        dactdot.push(act_dot_rows(&ad, &act_i));
        // k_i = v_i, rotations dexp⁻¹(h dv, ω_i)
        let mut k = di.qvel.clone();
        let mut dki = v_i.clone();
        for &r in &rots {
            let th = [dv[r] * h, dv[r + 1] * h, dv[r + 2] * h];
            let om = [di.qvel[r], di.qvel[r + 1], di.qvel[r + 2]];
            k[r..r + 3].copy_from_slice(&dexpinv(&th, &om));
            let (jt, jw) = dexpinv_jac(&th, &om);
            let blk = jt * ddv.rows(r, 3) * h + jw * v_i.rows(r, 3);
            dki.rows_mut(r, 3).copy_from(&blk);
        }
        qacc.push(di.qacc.clone());
        actdot.push(di.act_dot.clone());
        kval.push(k);
        dk.push(dki);
    }
    w.stage = Some(di);
    // the step: rk_combine over stages 0..3, then stage 3 added
    let mut dvf = vec![0.0; nv];
    let mut ddvf = DMatrix::zeros(nv, c);
    for j in 0..4 {
        for x in 0..nv {
            dvf[x] += kval[j][x] * RK_B[j];
        }
        ddvf += &dk[j] * RK_B[j];
    }
    let qn = integrate_rows(m, &dvf, &ddvf, h);
    let mut vn = v0;
    let mut adf = vec![0.0; na];
    let mut dadf = DMatrix::zeros(na, c);
    for j in 0..4 {
        vn += &dacc[j] * (h * RK_B[j]);
        for x in 0..na {
            adf[x] += actdot[j][x] * RK_B[j];
        }
        dadf += &dactdot[j] * RK_B[j];
    }
    // act' = advance_act(act0, Σ b_j act_dot_j): zero rows where the clamp is active
    let mut an = DMatrix::zeros(na, c);
    for (i, cf) in crate::integrate::moving_acts(m, h, &d.act, &adf) {
        for k in 0..c {
            an[(i, k)] = act0[(i, k)] + cf * dadf[(i, k)];
        }
    }
    let mut ab = DMatrix::zeros(nx, c);
    ab.rows_mut(0, nv).copy_from(&qn);
    ab.rows_mut(nv, nv).copy_from(&vn);
    ab.rows_mut(2 * nv, na).copy_from(&an);
    let (cs, ds) = sensors.unwrap_or_else(|| (DMatrix::zeros(0, nx), DMatrix::zeros(0, nu)));
    Ok(TransitionJacobians {
        A: ab.columns(0, nx).into_owned(),
        B: ab.columns(nx, nu).into_owned(),
        C: cs,
        D: ds,
    })
}
