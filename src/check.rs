//! Divergence checks (`mj_checkPos`, `mj_checkVel`, `mj_checkAcc`; seed 004 "Simulation
//! pipeline" stages 1 and 22).
//!
//! Behaviour checked against MuJoCo 4.0.0: at the first bad entry (NaN, ±inf or
//! `|x| > 1e10`) the state is reset with [`Data::reset`] unless autoreset is disabled, then the
//! warning is recorded with the entry's index (so it survives the reset) and the check returns.
//! `check_acc` additionally re-runs [`forward`] after a reset so the outputs match the new state.

use crate::actuation::is_bad;
use crate::data::{Data, Warning};
use crate::forward::forward;
use crate::math::Scalar;
use crate::model::{disable, Model};

fn check<T: Scalar>(m: &Model, d: &mut Data<T>, w: Warning) -> bool {
    let v = match w {
        Warning::BadQpos => &d.qpos,
        Warning::BadQvel => &d.qvel,
        _ => &d.qacc,
    };
    if let Some(i) = v.iter().position(|&x| is_bad(x)) {
        let reset = !m.opt.disabled(disable::AUTORESET);
        if reset {
            d.reset(m);
        }
        d.warn(w, i as i64);
        return reset;
    }
    false
}

/// Checks `qpos` (warning `BadQpos`).
pub fn check_pos<T: Scalar>(m: &Model, d: &mut Data<T>) {
    check(m, d, Warning::BadQpos);
}

/// Checks `qvel` (warning `BadQvel`).
pub fn check_vel<T: Scalar>(m: &Model, d: &mut Data<T>) {
    check(m, d, Warning::BadQvel);
}

/// Checks `qacc` (warning `BadQacc`); after a reset, recomputes [`forward`].
pub fn check_acc<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if check(m, d, Warning::BadQacc) {
        forward(m, d);
    }
}
