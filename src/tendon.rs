//! Tendon lengths, moment arms and velocities (`mj_tendon`; seed 000 "Actuation model",
//! transmission; seed 004 "Simulation pipeline").
//!
//! Only **fixed** tendons (all wraps of type `Joint`: `L = Σ coef · q`) are supported. A spatial
//! tendon (site / geom / pulley wraps) is not yet supported: its `ten_length` is set to NaN and its
//! row of `ten_J` to zero, so any force depending on it surfaces as a bad value rather than being
//! silently ignored; [`crate::forward::unsupported`] reports such models up front.

use crate::data::{sc, Data, Scalar};
use crate::model::{Model, WrapType};

/// True if tendon `t` is a fixed tendon (every wrap is a joint).
pub fn is_fixed(m: &Model, t: usize) -> bool {
    let a = m.tendon_adr[t];
    m.wrap_type[a..a + m.tendon_num[t]]
        .iter()
        .all(|w| *w == WrapType::Joint)
}

/// Computes `ten_length` and the dense `ten_J` (ntendon × nv) from `qpos`.
pub fn tendon<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let nv = m.nv;
    d.ten_J.iter_mut().for_each(|x| *x = T::zero());
    for t in 0..m.ntendon {
        if !is_fixed(m, t) {
            d.ten_length[t] = sc(f64::NAN);
            continue;
        }
        let a = m.tendon_adr[t];
        let mut len = T::zero();
        for w in a..a + m.tendon_num[t] {
            let j = m.wrap_objid[w] as usize;
            let coef: T = sc(m.wrap_prm[w]);
            len += coef * d.qpos[m.jnt_qposadr[j]];
            d.ten_J[t * nv + m.jnt_dofadr[j]] += coef;
        }
        d.ten_length[t] = len;
    }
}

/// `ten_velocity = ten_J · qvel`.
pub fn tendon_velocity<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let nv = m.nv;
    for t in 0..m.ntendon {
        let row = &d.ten_J[t * nv..(t + 1) * nv];
        d.ten_velocity[t] = row
            .iter()
            .zip(&d.qvel)
            .fold(T::zero(), |s, (j, v)| s + *j * *v);
    }
}
