//! Divergence checks (`mj_checkPos`, `mj_checkVel`, `mj_checkAcc`; Computation "Simulation
//! pipeline" stages 1 and 22).
//!
//! Behaviour checked against MuJoCo 4.0.0: at the first bad entry (NaN, ±inf or
//! `|x| > 1e10`) the warning is reported (at the time before the reset, if its counter is zero),
//! the state is reset with [`Data::reset`] unless autoreset is disabled, then the warning is
//! counted with the entry's index (so it survives the reset) and the check returns.
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
        d.announce(w, i as i64);
        if reset {
            // `mj_resetData`, with its pass over the `sleep="init"` trees
            crate::reset::reset_data(m, d);
        }
        d.count_warning(w, i as i64);
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

#[cfg(test)]
mod tests {
    use crate::data::Warning;

    /// `mujoco.mju_warningText(w, 3)` for each `mjtWarning` of MuJoCo 4.0.0, as printed.
    #[test]
    fn warning_text_is_mujocos() {
        let mujoco = [
            "Inertia matrix is too close to singular, or the effective-metric solve failed to \
             converge, at DOF 3. Check model.",
            "Too many contacts. The arena memory is full, increase arena memory allocation.\
             (ncon = 3)",
            "Insufficient arena memory for the number of constraints generated. Increase arena \
             memory allocation above 3 bytes.",
            "Nan, Inf or huge value in QPOS at DOF 3. The simulation is unstable.",
            "Nan, Inf or huge value in QVEL at DOF 3. The simulation is unstable.",
            "Nan, Inf or huge value in QACC at DOF 3. The simulation is unstable.",
            "Nan, Inf or huge value in CTRL at ACTUATOR 3. The simulation is unstable.",
        ];
        for (w, text) in Warning::ALL.iter().zip(mujoco) {
            assert_eq!(w.text(3), text);
        }
        assert_eq!(
            Warning::BadQvel.message(0, 0.002),
            "WARNING: Nan, Inf or huge value in QVEL at DOF 0. The simulation is unstable. \
             Time = 0.0020."
        );
    }
}
