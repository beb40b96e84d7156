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
use moreau::fluid::{body_uses_ellipsoid, fluid, fluid_deriv, local_vel, FluidScalar};
use moreau::jacobian::jac;
use moreau::kinematics::kinematics;
use moreau::model::{disable, Integrator, Model};
use moreau::Data;
use nalgebra::{DMatrix, Matrix3, Vector3, Vector6};
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

/// `qDeriv_fluid a` added into `out`: the fluid block as the step forms it
/// ([`moreau::fluid::fluid_deriv_with`]: `Σ_obj Lᵀ D L`, `D` the local wrench derivative,
/// symmetrized per object under implicitfast) times `a`, as `Σ_obj Lᵀ (D (L a))` without the
/// `nv × nv` block (the same objects, local velocities and `D` as the engine's loop).
/// `jp`, `jr`: `3 nv` scratch.
pub(crate) fn qderiv_mul(
    m: &Model,
    dd: &Data<Dual64>,
    a: &[f64],
    jp: &mut [Dual64],
    jr: &mut [Dual64],
    out: &mut [Dual64],
) {
    if !has_fluid(m) {
        return;
    }
    let nv = m.nv;
    let sym = m.opt.integrator == Integrator::ImplicitFast;
    let mut obj = |b: usize, g: Option<usize>, p: Vector3<Dual64>, r: Matrix3<Dual64>| {
        jac(m, dd, &p, b, Some(&mut *jp), Some(&mut *jr));
        let (w, v) = local_vel(m, dd, b, &p, &r);
        let x = Vector6::new(w.x, w.y, w.z, v.x, v.y, v.z);
        let mut dm = Dual64::local_jacobian(m, b, g, &x);
        if sym {
            for i in 0..6 {
                for k in 0..i {
                    let s = (dm[i][k] + dm[k][i]) * 0.5;
                    dm[i][k] = s;
                    dm[k][i] = s;
                }
            }
        }
        // L a = (Rᵀ jr a, Rᵀ jp a), u = D (L a), Lᵀ u = jrᵀ R u_ω + jpᵀ R u_v
        let row = |j: &[Dual64], i: usize| (0..nv).fold(Dual64::from(0.0), |s, c| s + j[i * nv + c] * a[c]);
        let la_w = r.tr_mul(&Vector3::from_fn(|i, _| row(jr, i)));
        let la_v = r.tr_mul(&Vector3::from_fn(|i, _| row(jp, i)));
        let la = [la_w.x, la_w.y, la_w.z, la_v.x, la_v.y, la_v.z];
        let u: [Dual64; 6] =
            std::array::from_fn(|i| (0..6).fold(Dual64::from(0.0), |s, k| s + dm[i][k] * la[k]));
        let uw = r * Vector3::new(u[0], u[1], u[2]);
        let uv = r * Vector3::new(u[3], u[4], u[5]);
        for c in 0..nv {
            out[c] += (0..3).fold(Dual64::from(0.0), |s, i| {
                s + jr[i * nv + c] * uw[i] + jp[i * nv + c] * uv[i]
            });
        }
    };
    for b in 1..m.nbody {
        if m.body_mass[b] < 1e-15 {
            continue;
        }
        if body_uses_ellipsoid(m, b) {
            let ga = m.body_geomadr[b];
            for g in ga..ga + m.body_geomnum[b] {
                if m.geom_fluid[g][0] > 0.0 {
                    obj(b, Some(g), dd.geom_xpos[g], dd.geom_xmat[g]);
                }
            }
        } else {
            obj(b, None, dd.xipos[b], dd.ximat[b]);
        }
    }
}

/// Scratch of [`qderiv_mul`]: `(jp, jr, out)`.
pub(crate) fn mul_scratch(nv: usize) -> [Vec<Dual64>; 3] {
    std::array::from_fn(|i| vec![Dual64::from(0.0); if i < 2 { 3 * nv } else { nv }])
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
    let [mut jp, mut jr, mut y] = mul_scratch(m.nv);
    crate::dual::vel_passes(m, w.dual_of(m, d), |dd, k| {
        y.fill(Dual64::from(0.0));
        qderiv_mul(m, dd, a, &mut jp, &mut jr, &mut y);
        for (r, x) in y.iter().enumerate() {
            out[(r, k)] += s * x.eps;
        }
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
    let [mut jp, mut jr, mut y] = mul_scratch(nv);
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
            y.fill(Dual64::from(0.0));
            qderiv_mul(m, dd, a, &mut jp, &mut jr, &mut y);
            for (r, x) in y.iter().enumerate() {
                cm[(r, j)] += *s * x.eps;
            }
        }
    }
}
