//! Fluid forces in the analytic derivatives (MuJoCo's "Fluid forces"; `moreau::fluid`).
//!
//! - `∂qfrc_fluid/∂qvel` exactly: `Σ_obj Lᵀ D L` (`L` the object's local 6 × nv Jacobian, `D`
//!   the local wrench derivative) — [`moreau::pipeline::fluid_deriv`] unsymmetrized. Under
//!   implicitfast the engine's `d_passive_vel` adds MuJoCo's per-object symmetrized block
//!   (`qDeriv`), which is not the derivative of the force; `fluid_exact` corrects it.
//! - `∂/∂q` of the fluid force: `fluid_pos`, per tangent direction a `Dual64` pass over the
//!   stages the force reads (kinematics, COM, `com_vel`, the fluid force) — the rest of `∂g/∂q`
//!   is [`crate::inverse_pos`]'s (analytic RNE, contact geometry; its restricted pass takes the fluid
//!   force with `com_vel`), not a full dual pass of inverse dynamics.
//! - The step matrices' fluid block (`He = M − h S∘sym(qDeriv)` under implicitfast,
//!   unsymmetrized under implicit), which depends on `q` and `v` through the objects' local
//!   velocities `x`: `(∂/∂x) · a` as `Σ_obj Lᵀ (D (L a))` (`qderiv_mul`, no `nv × nv` block)
//!   on `Dual64` data seeded per direction, `D`'s derivative along the seed chained from
//!   `∂D/∂x` computed once per call (`local_ds`); position directions in `fluid_pos`'s pass,
//!   velocity directions by `fluid_qderiv_vel` (`nv` `Dual64` passes over `com_vel`), and in
//!   [`crate::step_matrix`]'s passes.

#![allow(clippy::needless_range_loop)]

use moreau::model::{disable, Integrator, Model};
use moreau::pipeline::{
    body_uses_ellipsoid, com_pos, com_vel, ellipsoid_wrench, fluid, fluid_deriv,
    inertia_box_wrench, kinematics, local_vel,
};
use moreau::{jac, Data};
use nalgebra::{DMatrix, Matrix3, Vector3};
use num_dual::{Dual64, HyperDual64};

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

/// The fluid objects in the engine's order (bodies with mass; a body's ellipsoid-model geoms,
/// else its inertia box) and their frames on `d`.
fn objects<'a, T: moreau::Scalar>(
    m: &'a Model,
    d: &'a Data<T>,
) -> impl Iterator<Item = (usize, Option<usize>, Vector3<T>, Matrix3<T>)> + 'a {
    (1..m.nbody)
        .filter(|&b| m.body_mass[b] >= 1e-15)
        .flat_map(move |b| {
            let ga = m.body_geomadr[b];
            let geoms: Vec<Option<usize>> = if body_uses_ellipsoid(m, b) {
                (ga..ga + m.body_geomnum[b])
                    .filter(|&g| m.geom_fluid[g][0] > 0.0)
                    .map(Some)
                    .collect()
            } else {
                vec![None]
            };
            geoms.into_iter().map(move |g| match g {
                Some(g) => (b, Some(g), d.geom_xpos[g], d.geom_xmat[g]),
                None => (b, None, d.xipos[b], d.ximat[b]),
            })
        })
}

/// Per fluid object at the state of `d`: the local wrench derivative `D[i][j] = ∂w_i/∂x_j`
/// (`w` = (torque, force), `x` = local (ω, v)) and its derivatives `T[k][i][j] = ∂D[i][j]/∂x_k`
/// (21 hyper-dual evaluations of the wrench per object). `D` depends on the state only
/// through `x`, so on data seeded along any direction `D.eps = Σ_k T[k] x.eps_k` — what
/// [`moreau::pipeline::FluidScalar::local_jacobian`] gives on `Dual64` data by six hyper-dual
/// evaluations per object and pass.
pub(crate) type LocalD = ([[f64; 6]; 6], [[[f64; 6]; 6]; 6]);

/// [`LocalD`] of every fluid object (engine order); empty without fluid forces.
pub(crate) fn local_ds(m: &Model, d: &Data<f64>) -> Vec<LocalD> {
    if !has_fluid(m) {
        return Vec::new();
    }
    objects(m, d)
        .map(|(b, g, p, r)| {
            let (w, v) = local_vel(m, d, b, &p, &r);
            let x = [w.x, w.y, w.z, v.x, v.y, v.z];
            let mut d0 = [[0.0; 6]; 6];
            let mut t = [[[0.0; 6]; 6]; 6];
            for j in 0..6 {
                for k in j..6 {
                    let xd: [HyperDual64; 6] = std::array::from_fn(|l| {
                        let e = |c: usize| if l == c { 1.0 } else { 0.0 };
                        HyperDual64::new(x[l], e(j), e(k), 0.0)
                    });
                    let wd = Vector3::new(xd[0], xd[1], xd[2]);
                    let vd = Vector3::new(xd[3], xd[4], xd[5]);
                    let (f, tq) = match g {
                        Some(g) => ellipsoid_wrench(m, g, &wd, &vd),
                        None => inertia_box_wrench(m, b, &wd, &vd),
                    };
                    for i in 0..6 {
                        let y = if i < 3 { tq[i] } else { f[i - 3] };
                        d0[i][j] = y.eps1;
                        t[k][i][j] = y.eps1eps2;
                        t[j][i][k] = y.eps1eps2;
                    }
                }
            }
            (d0, t)
        })
        .collect()
}

/// `qDeriv_fluid a` added into `out`: the fluid block as the step forms it
/// ([`moreau::pipeline::fluid_deriv_with`]: `Σ_obj Lᵀ D L`, `D` the local wrench derivative,
/// symmetrized per object under implicitfast) times `a`, as `Σ_obj Lᵀ (D (L a))` without the
/// `nv × nv` block, `D` from [`local_ds`] (`ds`, at the real part of `dd`'s state) with its
/// derivative along `dd`'s seed. `jp`, `jr`: `3 nv` scratch.
pub(crate) fn qderiv_mul(
    m: &Model,
    dd: &Data<Dual64>,
    ds: &[LocalD],
    a: &[f64],
    jp: &mut [Dual64],
    jr: &mut [Dual64],
    out: &mut [Dual64],
) {
    let nv = m.nv;
    let sym = m.opt.integrator == Integrator::ImplicitFast;
    for ((b, _, p, r), (d0, t)) in objects(m, dd).zip(ds) {
        jac(m, dd, &p, b, Some(&mut *jp), Some(&mut *jr));
        let (w, v) = local_vel(m, dd, b, &p, &r);
        let xe = [w.x.eps, w.y.eps, w.z.eps, v.x.eps, v.y.eps, v.z.eps];
        let mut dm: [[Dual64; 6]; 6] = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                Dual64::new(d0[i][j], (0..6).fold(0.0, |s, k| s + t[k][i][j] * xe[k]))
            })
        });
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
        let row = |j: &[Dual64], i: usize| {
            (0..nv).fold(Dual64::from(0.0), |s, c| s + j[i * nv + c] * a[c])
        };
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
    w: &mut crate::work::Work,
    out: &mut nalgebra::DMatrixViewMut<f64>,
) {
    if !has_fluid(m) {
        return;
    }
    let [mut jp, mut jr, mut y] = mul_scratch(m.nv);
    let ds = local_ds(m, d);
    crate::dual::vel_passes(m, w.dual_of(m, d), |dd, k| {
        y.fill(Dual64::from(0.0));
        qderiv_mul(m, dd, &ds, a, &mut jp, &mut jr, &mut y);
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
    w: &mut crate::work::Work,
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
    let ds = if qd.is_some() {
        local_ds(m, d)
    } else {
        Vec::new()
    };
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
            qderiv_mul(m, dd, &ds, a, &mut jp, &mut jr, &mut y);
            for (r, x) in y.iter().enumerate() {
                cm[(r, j)] += *s * x.eps;
            }
        }
    }
}
