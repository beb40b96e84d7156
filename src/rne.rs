//! Recursive Newton-Euler (`mj_rne`; seed 000 "General framework": the bias force `c(q, v)`),
//! in the COM frames of [`crate::com`].

use crate::data::{sc, Data, Scalar};
use crate::model::{disable, Model};
use crate::spatial::{cross_force, inert_mul};
use nalgebra::Vector6;

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
