//! Fluid forces in the analytic derivatives (MuJoCo's "Fluid forces"; [`moreau::fluid`]).
//!
//! - `∂qfrc_fluid/∂qvel` exactly: `Σ_obj Lᵀ D L` (`L` the object's local 6 × nv Jacobian, `D`
//!   the local wrench derivative) — [`moreau::fluid::fluid_deriv`] unsymmetrized. Under
//!   implicitfast the engine's `d_passive_vel` adds MuJoCo's per-object symmetrized block
//!   (`qDeriv`), which is not the derivative of the force; [`fluid_exact`] corrects it.
//! - `∂/∂q` of the fluid force: the full dual pass ([`crate::rnea::unsupported`]).
//! - Implicitfast's `He = M − h sym(qDeriv)` holds the fluid block, which depends on `q` and
//!   `v`, both by [`moreau::fluid::fluid_deriv_with`] on `Dual64` data (hyper-dual local
//!   wrench): `∂/∂q_i` in the full dual pass of [`crate::contact`] (`smooth_vel` →
//!   `d_passive_vel`, which includes the block on `Dual64` data), `∂/∂v_k` by
//!   [`fluid_qderiv_vel`] (`nv` `Dual64` passes over `com_vel`).

use moreau::fluid::{fluid_deriv, fluid_deriv_with};
use moreau::model::{Integrator, Model};
use moreau::Data;
use nalgebra::DMatrix;
use num_dual::Dual64;

fn has_fluid(m: &Model) -> bool {
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

/// `∂qDeriv_fluid/∂v_k` (dense `nv × nv`, rows outputs), `k = 0..nv`; `None` without fluid
/// forces.
pub(crate) fn fluid_qderiv_vel(
    m: &Model,
    d: &Data<f64>,
    w: &mut crate::rnea::Work,
) -> Option<Vec<DMatrix<f64>>> {
    if !has_fluid(m) {
        return None;
    }
    let nv = m.nv;
    let mut out = Vec::with_capacity(nv);
    crate::dual::vel_passes(m, w.dual_of(m, d), |dd, _| {
        let mut x = DMatrix::zeros(nv, nv);
        qderiv_dual(m, dd, |i, v| x[(i / nv, i % nv)] += v.eps);
        out.push(x);
    });
    Some(out)
}
