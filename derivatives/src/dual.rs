//! Exact Jacobians by forward-mode dual numbers: the engine is generic over `T: Scalar`, so
//! running it on [`Dual64`] with one seeded input direction gives that column of the Jacobian
//! to round-off, through contact (collision, constraint assembly and the constraint solver).
//!
//! These are the reference the analytic derivatives ([`crate::inverse`](mod@crate::inverse), [`crate::transition`](mod@crate::transition))
//! are tested against. Note: the constraint solver is iterative, so the dual derivative is that
//! of the *iterates*; it equals the implicit-function-theorem derivative at the optimum only
//! when the solver has converged (tests set `opt.tolerance = 1e-14` and more iterations).
//!
//! Positions are perturbed in the tangent space, `qpos ⊕ ε e_i` ([`integrate_pos`] with a dual
//! velocity), and position outputs are read with [`differentiate_pos`], as in [`crate::fd`].
//! Layouts: forward/transition Jacobians have rows = outputs; inverse Jacobians use MuJoCo's
//! transposed layout `D[i][j] = ∂out_j/∂in_i` ([`crate::fd::InverseJacobians`]).

use moreau::model::Model;
use moreau::{differentiate_pos, forward, integrate_pos, inverse, step, Data};
use nalgebra::DMatrix;
use num_dual::Dual64;

/// One pass per velocity direction over `dd` (lifted, unseeded): `kinematics` and `com_pos`
/// once, then for each `k` `qvel[k]` seeded, `com_vel`, and `f(dd, k)`.
pub(crate) fn vel_passes(
    m: &Model,
    dd: &mut Data<Dual64>,
    mut f: impl FnMut(&mut Data<Dual64>, usize),
) {
    moreau::pipeline::kinematics(m, dd);
    moreau::pipeline::com_pos(m, dd);
    for k in 0..m.nv {
        dd.qvel[k].eps = 1.0;
        moreau::pipeline::com_vel(m, dd);
        f(dd, k);
        dd.qvel[k].eps = 0.0;
    }
}

/// A `Data<Dual64>` holding the state, controls, applied forces, warm start and `qacc` of `d`
/// (zero derivative parts).
pub fn lift(m: &Model, d: &Data<f64>) -> Data<Dual64> {
    let mut dd = Data::<Dual64>::new(m);
    lift_into(d, &mut dd);
    dd
}

/// Overwrites the inputs of `dd` (as [`lift`]) with those of `d`, so one `Data<Dual64>` can be
/// reused for several seeded passes without reallocating.
pub fn lift_into(d: &Data<f64>, dd: &mut Data<Dual64>) {
    let l = lift_slice;
    dd.time = Dual64::from(d.time);
    l(&d.qpos, &mut dd.qpos);
    l(&d.qvel, &mut dd.qvel);
    l(&d.act, &mut dd.act);
    l(&d.ctrl, &mut dd.ctrl);
    l(&d.qacc, &mut dd.qacc);
    l(&d.qacc_warmstart, &mut dd.qacc_warmstart);
    l(&d.qfrc_applied, &mut dd.qfrc_applied);
    for (a, b) in dd.xfrc_applied.iter_mut().zip(&d.xfrc_applied) {
        *a = b.map(Dual64::from);
    }
    for (a, b) in dd.mocap_pos.iter_mut().zip(&d.mocap_pos) {
        *a = b.map(Dual64::from);
    }
    for (a, b) in dd.mocap_quat.iter_mut().zip(&d.mocap_quat) {
        *a = nalgebra::Quaternion::from(b.coords.map(Dual64::from));
    }
    dd.eq_active.clone_from(&d.eq_active);
}

/// `y ← x` with zero derivative parts.
fn lift_slice(x: &[f64], y: &mut [Dual64]) {
    for (a, b) in y.iter_mut().zip(x) {
        *a = Dual64::from(*b);
    }
}

/// Overwrites the position/velocity results the actuation stage reads (`actuator_moment`,
/// `actuator_length`, `actuator_velocity`, `qfrc_gravcomp`) with those of `d`, for dual passes
/// over `fwd_actuation` alone.
pub(crate) fn lift_actuation_inputs(d: &Data<f64>, dd: &mut Data<Dual64>) {
    lift_slice(&d.actuator_moment, &mut dd.actuator_moment);
    lift_slice(&d.actuator_length, &mut dd.actuator_length);
    lift_slice(&d.actuator_velocity, &mut dd.actuator_velocity);
    lift_slice(&d.qfrc_gravcomp, &mut dd.qfrc_gravcomp);
}

/// Input directions of the transition: `0..nv` position tangent, `nv..2nv` velocity,
/// `2nv..2nv+na` activation, then `nu` controls.
pub fn seed(m: &Model, dd: &mut Data<Dual64>, k: usize) {
    let (nv, na) = (m.nv, m.na);
    if k < nv {
        let mut t = vec![Dual64::from(0.0); nv];
        t[k] = Dual64::from(0.0).derivative();
        integrate_pos(m, &mut dd.qpos, &t, Dual64::from(1.0));
    } else if k < 2 * nv {
        dd.qvel[k - nv].eps = 1.0;
    } else if k < 2 * nv + na {
        dd.act[k - 2 * nv].eps = 1.0;
    } else {
        dd.ctrl[k - 2 * nv - na].eps = 1.0;
    }
}

/// Tangent-space derivative of a dual `qpos` relative to its own real part.
pub fn qpos_tangent(m: &Model, qpos: &[Dual64], out: &mut [f64]) {
    let re: Vec<Dual64> = qpos.iter().map(|x| Dual64::from(x.re)).collect();
    let mut t = vec![Dual64::from(0.0); m.nv];
    differentiate_pos(m, &mut t, Dual64::from(1.0), &re, qpos);
    for (o, x) in out.iter_mut().zip(&t) {
        *o = x.eps;
    }
}

/// Transition Jacobians `(A, B)` of one [`step`] (rows are outputs `(qpos tangent, qvel, act)`,
/// columns inputs as in [`seed`]), one dual step per input.
pub fn dual_step_jacobian(m: &Model, d: &Data<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let nx = 2 * nv + na;
    let mut a = DMatrix::zeros(nx, nx);
    let mut b = DMatrix::zeros(nx, nu);
    let mut tq = vec![0.0; nv];
    for k in 0..nx + nu {
        let mut dd = lift(m, d);
        seed(m, &mut dd, k);
        step(m, &mut dd);
        qpos_tangent(m, &dd.qpos, &mut tq);
        let mut col = Vec::with_capacity(nx);
        col.extend_from_slice(&tq);
        col.extend(dd.qvel.iter().map(|x| x.eps));
        col.extend(dd.act.iter().map(|x| x.eps));
        let mut c = if k < nx {
            a.column_mut(k)
        } else {
            b.column_mut(k - nx)
        };
        for (r, v) in col.into_iter().enumerate() {
            c[r] = v;
        }
    }
    (a, b)
}

/// `∂qacc/∂x` of [`forward`] (rows = `qacc`, columns the inputs of [`seed`]:
/// `(qpos tangent, qvel, act, ctrl)`, `nv × (2nv+na+nu)`).
pub fn dual_forward_jacobian(m: &Model, d: &Data<f64>) -> DMatrix<f64> {
    let nx = 2 * m.nv + m.na + m.nu;
    let mut j = DMatrix::zeros(m.nv, nx);
    for k in 0..nx {
        let mut dd = lift(m, d);
        seed(m, &mut dd, k);
        forward(m, &mut dd);
        for r in 0..m.nv {
            j[(r, k)] = dd.qacc[r].eps;
        }
    }
    j
}

/// Inverse-dynamics Jacobians of `qfrc_inverse` in MuJoCo's transposed layout:
/// `(DfDq, DfDv, DfDa)` with `D[i][j] = ∂qfrc_inverse_j/∂in_i`, and `DmDq` (row `i` is
/// `∂qM/∂q_i` in qM's layout).
pub fn dual_inverse_jacobian(
    m: &Model,
    d: &Data<f64>,
) -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
    let nv = m.nv;
    let mut out = [
        DMatrix::zeros(nv, nv),
        DMatrix::zeros(nv, nv),
        DMatrix::zeros(nv, nv),
    ];
    let mut dm = DMatrix::zeros(nv, m.nM);
    for k in 0..3 * nv {
        let mut dd = lift(m, d);
        let (blk, i) = (k / nv, k % nv);
        match blk {
            0 => seed(m, &mut dd, i),
            1 => dd.qvel[i].eps = 1.0,
            _ => dd.qacc[i].eps = 1.0,
        }
        inverse(m, &mut dd);
        for j in 0..nv {
            out[blk][(i, j)] = dd.qfrc_inverse[j].eps;
        }
        if blk == 0 {
            for j in 0..m.nM {
                dm[(i, j)] = dd.qM[j].eps;
            }
        }
    }
    let [q, v, a] = out;
    (q, v, a, dm)
}

/// `∂qfrc_inverse/∂q` (transposed layout) and `∂qM/∂q` (row `i` is `∂qM/∂q_i`, qM's layout):
/// `nv` dual inverse-dynamics passes, one per position tangent direction.
pub fn dual_inverse_dq(m: &Model, d: &Data<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let nv = m.nv;
    let mut df = DMatrix::zeros(nv, nv);
    let mut dm = DMatrix::zeros(nv, m.nM);
    let mut dd = lift(m, d);
    for i in 0..nv {
        if i > 0 {
            lift_into(d, &mut dd);
        }
        seed(m, &mut dd, i);
        inverse(m, &mut dd);
        for j in 0..nv {
            df[(i, j)] = dd.qfrc_inverse[j].eps;
        }
        for j in 0..m.nM {
            dm[(i, j)] = dd.qM[j].eps;
        }
    }
    (df, dm)
}
