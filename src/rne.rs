//! Recursive Newton-Euler (`mj_rne`; seed 000 "General framework": the bias force `c(q, v)`),
//! in the COM frames of [`crate::com`].

use crate::data::{sc, Data, Scalar};
use crate::model::{disable, Model};
use crate::spatial::{cross_force, inert_mul, join};
use nalgebra::{Vector3, Vector6};

/// `out = M(q) qacc + c(q, v)` if `flg_acc`, else `out = c(q, v)` (Coriolis, centrifugal and
/// gravitational forces). Gravity enters as the acceleration `-gravity` of the world body unless
/// the gravity flag is disabled. Needs `cdof`, `cinert`, `cvel`, `cdof_dot`. `out` must not alias
/// a field of `d` (use `std::mem::take`). Uses `scratch_body6[0..2]`.
pub fn rne<T: Scalar>(m: &Model, d: &mut Data<T>, flg_acc: bool, out: &mut [T]) {
    let [cacc, cfrc] = &mut d.scratch_body6;
    cacc[0] = if m.opt.disabled(disable::GRAVITY) {
        Vector6::zeros()
    } else {
        let g = m.opt.gravity;
        Vector6::new(
            T::zero(),
            T::zero(),
            T::zero(),
            sc(-g[0]),
            sc(-g[1]),
            sc(-g[2]),
        )
    };
    cfrc[0] = Vector6::zeros();
    for b in 1..m.nbody {
        let mut a = cacc[m.body_parentid[b]];
        let d0 = m.body_dofadr[b];
        for i in d0..d0 + m.body_dofnum[b] {
            a += d.cdof_dot[i] * d.qvel[i];
            if flg_acc {
                a += d.cdof[i] * d.qacc[i];
            }
        }
        cacc[b] = a;
        let v = &d.cvel[b];
        let iv = inert_mul(&d.cinert[b], v);
        cfrc[b] = inert_mul(&d.cinert[b], &a) + cross_force(v, &iv);
    }
    for b in (1..m.nbody).rev() {
        let p = m.body_parentid[b];
        if p != 0 {
            let f = cfrc[b];
            cfrc[p] += f;
        }
    }
    for i in 0..m.nv {
        out[i] = d.cdof[i].dot(&cfrc[m.dof_bodyid[i]]);
    }
}

/// `qfrc_bias = c(q, v)` (RNE with zero acceleration).
pub fn rne_bias<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let mut out = std::mem::take(&mut d.qfrc_bias);
    rne(m, d, false, &mut out);
    d.qfrc_bias = out;
}

/// RNE with the final accelerations and forces (`mj_rnePostConstraint`; seed 003 "Subcomponents"):
/// body-level `cacc`, `cfrc_ext`, `cfrc_int` in the COM frames of [`crate::com`], `[rotation,
/// translation]` order.
///
/// - `cacc[0] = -gravity` (0 if gravity is disabled), `cacc[b] = cacc[parent] + Σ cdof_dot·qvel
///   + Σ cdof·qacc` over the body's dofs;
/// - `cfrc_ext[b]` = `xfrc_applied[b]` moved from `xipos[b]` to the frame origin (torque
///   `τ + (xipos - c) × f`), plus the constraint forces acting on the body (contacts, connect and
///   weld equalities: see [`post_constraint_ext`], zero until the constraint stage exists);
/// - `cfrc_int[b] = cinert·cacc + cvel ×* (cinert·cvel) - cfrc_ext[b]`, then summed from the
///   leaves to the root, so `cfrc_int[b]` is the force the parent exerts on subtree `b` and
///   `cfrc_int[0]` the total over the world's children.
///
/// Needs the position and velocity stages and `qacc`. Does not touch `qfrc_*`.
pub fn rne_post_constraint<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.cacc[0] = if m.opt.disabled(disable::GRAVITY) {
        Vector6::zeros()
    } else {
        let g = m.opt.gravity;
        Vector6::new(
            T::zero(),
            T::zero(),
            T::zero(),
            sc(-g[0]),
            sc(-g[1]),
            sc(-g[2]),
        )
    };
    d.cfrc_ext[0] = Vector6::zeros();
    for b in 1..m.nbody {
        let x = d.xfrc_applied[b];
        d.cfrc_ext[b] = if x.iter().all(|v| *v == T::zero()) {
            Vector6::zeros()
        } else {
            let f = Vector3::new(x[0], x[1], x[2]);
            let t = Vector3::new(x[3], x[4], x[5]);
            let r = d.xipos[b] - d.subtree_com[m.body_rootid[b]];
            join(&(t + r.cross(&f)), &f)
        };
    }
    post_constraint_ext(m, d);
    d.cfrc_int[0] = Vector6::zeros();
    for b in 1..m.nbody {
        let mut a = d.cacc[m.body_parentid[b]];
        let d0 = m.body_dofadr[b];
        for i in d0..d0 + m.body_dofnum[b] {
            a += d.cdof_dot[i] * d.qvel[i] + d.cdof[i] * d.qacc[i];
        }
        d.cacc[b] = a;
        let v = &d.cvel[b];
        let iv = inert_mul(&d.cinert[b], v);
        d.cfrc_int[b] = inert_mul(&d.cinert[b], &a) + cross_force(v, &iv) - d.cfrc_ext[b];
    }
    for b in (1..m.nbody).rev() {
        let f = d.cfrc_int[b];
        d.cfrc_int[m.body_parentid[b]] += f;
    }
}

/// Constraint-force hook of [`rne_post_constraint`]: adds the contact and connect/weld
/// equality forces (world-frame wrenches from `efc_force`) to `cfrc_ext`. The constraint stage
/// does not exist yet, so there is nothing to add.
pub fn post_constraint_ext<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let _ = (m, d);
}
