//! Fluid forces in the analytic derivatives (MuJoCo's "Fluid forces"; [`moreau::fluid`]).
//!
//! - `∂qfrc_fluid/∂qvel` exactly: `Σ_obj Lᵀ D L` (`L` the object's local 6 × nv Jacobian, `D`
//!   the local wrench derivative) — [`moreau::fluid::fluid_deriv`] unsymmetrized. Under
//!   implicitfast the engine's `d_passive_vel` adds MuJoCo's per-object symmetrized block
//!   (`qDeriv`), which is not the derivative of the force; [`fluid_exact`] corrects it.
//! - `∂/∂q` of the fluid force: [`fluid_pos`], per tangent direction a `Dual64` pass over the
//!   stages the force reads (kinematics, COM, `com_vel`, the fluid force) — the rest of `∂g/∂q`
//!   is [`crate::pos`]'s (analytic RNE, contact geometry; its restricted pass takes the fluid
//!   force with `com_vel`). Before 2026-11-22 (anaspeed4) a full dual pass of inverse dynamics.
//! - Implicitfast's `He = M − h sym(qDeriv)` holds the fluid block, which depends on `q` and
//!   `v`, both by [`moreau::fluid::fluid_deriv_with`] on `Dual64` data (hyper-dual local
//!   wrench): `∂/∂q_i` in the full dual pass of [`crate::contact`] (`smooth_vel` →
//!   `d_passive_vel`, which includes the block on `Dual64` data), `∂/∂v_k` by
//!   [`fluid_qderiv_vel`] (`nv` `Dual64` passes over `com_vel`).

use moreau::com::{com_pos, com_vel};
use moreau::fluid::{fluid, fluid_deriv, fluid_deriv_with};
use moreau::kinematics::kinematics;
use moreau::model::{disable, Integrator, Model};
use moreau::Data;
use nalgebra::DMatrix;
use num_dual::Dual64;

pub(crate) fn has_fluid(m: &Model) -> bool {
    m.opt.density > 0.0 || m.opt.viscosity > 0.0
}

/// Under implicitfast `d_passive_vel` adds the per-object symmetrized fluid block `Σ Lᵀ sym(D) L`
/// (as MuJoCo's implicitfast `qDeriv`); the derivative of the force the step applies is the
/// unsymmetrized `Σ Lᵀ D L`: adds the difference into `buf` (row-major `nv × nv`). Allocates
/// (fluid models only).
pub(crate) fn fluid_exact(m: &Model, d: &Data<f64>, buf: &mut [f64]) {
    if !has_fluid(m) || m.opt.integrator != Integrator::ImplicitFast {
        return;
    }
    let mut sym = vec![0.0; buf.len()];
    fluid_deriv(m, d, true, &mut sym);
    fluid_deriv(m, d, false, buf);
    for (b, s) in buf.iter_mut().zip(&sym) {
        *b -= *s;
    }
}

/// The fluid block of `qDeriv` as the step forms it (symmetrized per object under
/// implicitfast) on `Dual64` data, entries to `add`.
fn qderiv_dual(m: &Model, dd: &Data<Dual64>, add: impl FnMut(usize, Dual64)) {
    let sym = m.opt.integrator == Integrator::ImplicitFast;
    fluid_deriv_with(m, dd, sym, add);
}

/// `s (∂qDeriv_fluid/∂v_k) a` added into column `k` of `out` (`nv × nv`), `k = 0..nv`
/// (`nv` `Dual64` passes over `com_vel`); nothing without fluid forces. The block as the step
/// forms it (per-object symmetric under implicitfast, within `M`'s pattern), so the step's
/// `S ∘ sym(·)` leaves it unchanged.
pub(crate) fn fluid_qderiv_vel(
    m: &Model,
    d: &Data<f64>,
    a: &[f64],
    s: f64,
    w: &mut crate::rnea::Work,
    out: &mut nalgebra::DMatrixViewMut<f64>,
) {
    if !has_fluid(m) {
        return;
    }
    let nv = m.nv;
    crate::dual::vel_passes(m, w.dual_of(m, d), |dd, k| {
        qderiv_dual(m, dd, |i, v| out[(i / nv, k)] += s * v.eps * a[i % nv]);
    });
}

/// Per tangent direction `j` (one `Dual64` pass over kinematics, COM, `com_vel` and the fluid
/// force): with `dg`, `−∂qfrc_fluid/∂q_j` added into its column `j` (the fluid part of the
/// residual's `∂g/∂q`, `g = … − qfrc_passive`); with `qd = (a, s, cm)`, `s (∂qDeriv_fluid/∂q_j) a`
/// added into column `j` of `cm` (the block as the step forms it; symmetric per object under
/// implicitfast and within `M`'s pattern, so the step's `S ∘ sym(·)` leaves it unchanged).
/// Nothing without fluid forces.
pub(crate) fn fluid_pos(
    m: &Model,
    d: &Data<f64>,
    w: &mut crate::rnea::Work,
    mut dg: Option<&mut DMatrix<f64>>,
    mut qd: Option<(&[f64], f64, &mut DMatrix<f64>)>,
) {
    // passive forces (fluid included) are off with both the spring and damper flags disabled
    let force = !(m.opt.disabled(disable::SPRING) && m.opt.disabled(disable::DAMPER));
    if !has_fluid(m) || (!force && qd.is_none()) {
        return;
    }
    let nv = m.nv;
    for j in 0..nv {
        let dd = w.dual_of(m, d);
        crate::dual::seed(m, dd, j);
        kinematics(m, dd);
        com_pos(m, dd);
        com_vel(m, dd);
        if let Some(dg) = dg.as_deref_mut().filter(|_| force) {
            fluid(m, dd);
            for k in 0..nv {
                dg[(k, j)] -= dd.qfrc_fluid[k].eps;
            }
        }
        if let Some((a, s, cm)) = qd.as_mut() {
            qderiv_dual(m, dd, |i, x| cm[(i / nv, j)] += *s * x.eps * a[i % nv]);
        }
    }
}
