//! Fluid forces (MuJoCo's "Fluid forces" chapter; `qfrc_fluid`, part of `qfrc_passive`).
//!
//! Active when `opt.density > 0` or `opt.viscosity > 0`. Per body with mass: if any of its geoms
//! has `geom_fluid[g][0] > 0` (MJCF `fluidshape="ellipsoid"`) the **ellipsoid model** is applied
//! to each such geom; otherwise the **inertia-box model** is applied to the body. Velocities are
//! the object's (body inertial frame / geom frame) angular velocity `ω` and linear velocity `v`
//! at its origin, both in its local frame, with the local wind subtracted from `v`. The resulting
//! local force/torque is rotated to the world and applied at the frame origin.
//!
//! Inertia box (half-sizes `r_i = √(3/(2M) (I_j + I_k - I_i))`, `r_eq` their mean):
//! `f_i = -6βπ r_eq v_i - 2ρ r_j r_k |v_i| v_i`,
//! `g_i = -8βπ r_eq³ ω_i - ½ρ r_i (r_j⁴ + r_k⁴) |ω_i| ω_i`.
//!
//! Ellipsoid (semi-axes `s` from the geom size; `geom_fluid = [interaction, C_blunt, C_slender,
//! C_ang, C_K, C_M, m_A (3), I_A (3)]`, all terms scaled by `interaction`):
//! - added mass: `f = ρ(m_A∘v) × ω`, `g = ρ(m_A∘v) × v + ρ(I_A∘ω) × ω`;
//! - Magnus: `f = C_M ρ V ω × v`, `V = 4π s_x s_y s_z / 3`;
//! - Kutta: `f = C_K ρ A_proj cosα (n̂ × v) × v`, `n = (a v_x, b v_y, c v_z)`,
//!   `a = (s_y s_z)²` etc., `A_proj = π √((a² v_x² + ..)/(a v_x² + ..))`, `cosα = n·v / (|n||v|)`;
//! - drag + viscous: `f = -(3πDβ + ρ|v|(C_blunt A_proj + C_slender (A_max - A_proj))) v` with
//!   `D = 2(s_x+s_y+s_z)/3`, `A_max = π s_max s_mid`;
//!   `g = -(πD³β + ρ |c∘ω|) ω`, `c_i = C_ang I_i + C_slender (I_max - I_i)`,
//!   `I_i = 8π/15 s_i max(s_j, s_k)⁴`, `I_max = 8π/15 s_mid s_max⁴`.
//!
//! Verified against MuJoCo 4.0.0's `qfrc_fluid` (tests/engine/tendon_fluid_oracle.rs). The velocity
//! derivative for the implicit integrators is [`fluid_deriv`] (by forward-mode differentiation of
//! the same formulas).

use crate::data::Data;
use crate::math::spatial::{ang, body_last_dof, dof_parent, lin};
use crate::math::{sc, Scalar};
use crate::model::{GeomType, Model};
use crate::smooth::jacobian::apply_ft_raw;
use nalgebra::{Matrix3, Vector3, Vector6};

/// Number of fluid parameters per geom (`mjNFLUID`).
pub const NFLUID: usize = 12;

/// Semi-axes of the equivalent ellipsoid of a geom (`mju_geomSemiAxes`): sphere `(r, r, r)`,
/// capsule `(r, r, h + r)`, cylinder `(r, r, h)`, others their size.
pub fn geom_semiaxes(t: GeomType, size: &[f64; 3]) -> [f64; 3] {
    match t {
        GeomType::Sphere => [size[0]; 3],
        GeomType::Capsule => [size[0], size[0], size[1] + size[0]],
        GeomType::Cylinder => [size[0], size[0], size[1]],
        _ => *size,
    }
}

/// Tuckerman's `κ_i = ∫₀^∞ s_x s_y s_z / √((s_i²+λ)³ (s_j²+λ)(s_k²+λ)) dλ`, evaluated as MuJoCo
/// 4.0.0's compiler does (matched to round-off on its `geom_fluid`): the 15-point Gauss–Kronrod
/// rule on `[0, 1]`, its nodes and weights rounded to 8 decimals ([`KRONROD_X`],
/// [`KRONROD_W`]), after the substitution `λ = σ x³/(1 − x)²` with `σ = (s_i³ s_j s_k)^(2/5)`.
/// Exact to about 1e-6 only, which is the point: the virtual mass of a thin plate depends on it
/// at that level.
pub fn added_mass_kappa(s: &[f64; 3], i: usize) -> f64 {
    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
    let (inv_i, inv_j, inv_k) = (
        1.0 / (s[i] * s[i]),
        1.0 / (s[j] * s[j]),
        1.0 / (s[k] * s[k]),
    );
    let scale = (s[i] * s[i] * s[i] * s[j] * s[k]).powf(0.4);
    let mut kappa = 0.0;
    for (x, w) in KRONROD_X.iter().zip(KRONROD_W) {
        let l = x * x * x / ((1.0 - x) * (1.0 - x));
        let dl = x * x * (3.0 - x) / ((1.0 - x) * (1.0 - x) * (1.0 - x));
        let lambda = scale * l;
        let (a, b, c) = (
            1.0 + lambda * inv_i,
            1.0 + lambda * inv_j,
            1.0 + lambda * inv_k,
        );
        kappa += scale * dl / (a * (a * b * c).sqrt()) * w;
    }
    kappa * inv_i
}

/// The 15 Gauss–Kronrod nodes on `[0, 1]`, rounded to 8 decimals as MuJoCo 4.0.0 uses them.
pub const KRONROD_X: [f64; 15] = [
    0.00427231, 0.02544604, 0.06756779, 0.12923441, 0.20695638, 0.29707742, 0.39610752, 0.5,
    0.60389248, 0.70292258, 0.79304362, 0.87076559, 0.93243221, 0.97455396, 0.99572769,
];

/// The 15 Gauss–Kronrod weights on `[0, 1]`, rounded to 8 decimals as MuJoCo 4.0.0 uses them.
pub const KRONROD_W: [f64; 15] = [
    0.01146766, 0.03154605, 0.05239501, 0.07032663, 0.08450236, 0.09517529, 0.10221647, 0.10474107,
    0.10221647, 0.09517529, 0.08450236, 0.07032663, 0.05239501, 0.03154605, 0.01146766,
];

/// Compile-time `geom_fluid` of a geom (MJCF `fluidshape`, `fluidcoef`): `[interaction, 5
/// coefs, virtual mass (3), virtual inertia (3)]`, virtual terms per unit fluid density:
/// `m_A,i = V κ_i/(2 - κ_i)`, `I_A,i = V/5 (s_j² - s_k²)² |κ_k - κ_j| / |2(s_j² - s_k²) +
/// (s_j² + s_k²)(κ_j - κ_k)|`, the denominators floored at 1e-15 (MuJoCo's `mjMINVAL`).
/// `ellipsoid = false` (fluidshape "none") gives all zeros.
pub fn geom_fluid_compile(
    ellipsoid: bool,
    fluidcoef: &[f64; 5],
    t: GeomType,
    size: &[f64; 3],
) -> [f64; NFLUID] {
    let mut out = [0.0; NFLUID];
    if !ellipsoid {
        return out;
    }
    out[0] = 1.0;
    out[1..6].copy_from_slice(fluidcoef);
    let s = geom_semiaxes(t, size);
    let vol = 4.0 / 3.0 * std::f64::consts::PI * s[0] * s[1] * s[2];
    let kap = [
        added_mass_kappa(&s, 0),
        added_mass_kappa(&s, 1),
        added_mass_kappa(&s, 2),
    ];
    for i in 0..3 {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        out[6 + i] = vol * kap[i] / (2.0 - kap[i]).max(1e-15);
        let (sj, sk) = (s[j] * s[j], s[k] * s[k]);
        let num = (sj - sk) * (sj - sk) * (kap[k] - kap[j]).abs();
        let den = (2.0 * (sj - sk) + (sj + sk) * (kap[j] - kap[k])).abs();
        out[9 + i] = vol * (num / den.max(1e-15)) / 5.0;
    }
    out
}

/// Local (ω, v) of a point `pos` moving with body `b`, in the frame `r`, wind subtracted.
pub fn local_vel<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    b: usize,
    pos: &Vector3<T>,
    r: &Matrix3<T>,
) -> (Vector3<T>, Vector3<T>) {
    let cv = d.cvel[b];
    let w = ang(&cv);
    let v = lin(&cv) + w.cross(&(pos - d.subtree_com[m.body_rootid[b]]));
    let wind = Vector3::new(sc(m.opt.wind[0]), sc(m.opt.wind[1]), sc(m.opt.wind[2]));
    (r.tr_mul(&w), r.tr_mul(&(v - wind)))
}

/// Inertia-box local wrench (force, torque) for body `b`.
pub fn inertia_box_wrench<T: Scalar>(
    m: &Model,
    b: usize,
    w: &Vector3<T>,
    v: &Vector3<T>,
) -> (Vector3<T>, Vector3<T>) {
    let rho: T = sc(m.opt.density);
    let beta: T = sc(m.opt.viscosity);
    let i = m.body_inertia[b];
    let mass = m.body_mass[b];
    let rr = |a: f64| (1.5 / mass * a).max(1e-15).sqrt();
    let r = [
        rr(i[1] + i[2] - i[0]),
        rr(i[2] + i[0] - i[1]),
        rr(i[0] + i[1] - i[2]),
    ];
    let req = (r[0] + r[1] + r[2]) / 3.0;
    let pi = std::f64::consts::PI;
    let mut f = Vector3::zeros();
    let mut g = Vector3::zeros();
    for a in 0..3 {
        let (j, k) = ((a + 1) % 3, (a + 2) % 3);
        f[a] =
            -(beta * sc(6.0 * pi * req)) * v[a] - rho * sc(2.0 * r[j] * r[k]) * v[a].abs() * v[a];
        g[a] = -(beta * sc(8.0 * pi * req.powi(3))) * w[a]
            - rho * sc(0.5 * r[a] * (r[j].powi(4) + r[k].powi(4))) * w[a].abs() * w[a];
    }
    (f, g)
}

/// `√x`, with a zero derivative at `x = 0` (the same value): on dual numbers `sqrt` has an
/// infinite slope there, and the ellipsoid terms multiply these roots (`|v|`, `|c∘ω|`, the
/// projected area) by factors that vanish with the velocity, so their derivatives at rest are
/// 0 — not the NaN of `0 · ∞` (an implicitfast step from rest took it into `qDeriv`).
fn sqrt0<T: Scalar>(x: T) -> T {
    if x == T::zero() {
        T::zero()
    } else {
        x.sqrt()
    }
}

/// Ellipsoid-model local wrench (force, torque) for geom `g`.
pub fn ellipsoid_wrench<T: Scalar>(
    m: &Model,
    g: usize,
    w: &Vector3<T>,
    v: &Vector3<T>,
) -> (Vector3<T>, Vector3<T>) {
    let fl = &m.geom_fluid[g];
    let rho: T = sc(m.opt.density);
    let beta: T = sc(m.opt.viscosity);
    let pi = std::f64::consts::PI;
    let s = geom_semiaxes(m.geom_type[g], &m.geom_size[g]);
    let (cb, cs, ca, ck, cm) = (fl[1], fl[2], fl[3], fl[4], fl[5]);
    let ma = Vector3::new(sc::<T>(fl[6]), sc(fl[7]), sc(fl[8]));
    let ia = Vector3::new(sc::<T>(fl[9]), sc(fl[10]), sc(fl[11]));
    // added mass
    let pv = ma.component_mul(v) * rho;
    let lw = ia.component_mul(w) * rho;
    let mut f = pv.cross(w);
    let mut t = pv.cross(v) + lw.cross(w);
    // Magnus
    let vol = 4.0 / 3.0 * pi * s[0] * s[1] * s[2];
    f += w.cross(v) * (rho * sc(cm * vol));
    // Kutta lift and projected area
    let a = [
        (s[1] * s[2]).powi(2),
        (s[2] * s[0]).powi(2),
        (s[0] * s[1]).powi(2),
    ];
    let nvel = sqrt0(v.norm_squared());
    let mut num = T::zero();
    let mut den = T::zero();
    for k in 0..3 {
        num += sc::<T>(a[k]) * v[k] * v[k];
        den += sc::<T>(a[k] * a[k]) * v[k] * v[k];
    }
    let tiny: T = sc(1e-15);
    let maxt = |x: T| if x > tiny { x } else { tiny };
    let aproj = sc::<T>(pi) * sqrt0(den / maxt(num));
    let n = Vector3::new(
        sc::<T>(a[0]) * v[0],
        sc::<T>(a[1]) * v[1],
        sc::<T>(a[2]) * v[2],
    );
    let nn = sqrt0(den);
    let cosa = num / maxt(nvel * nn);
    let circ = n.cross(v) * (sc::<T>(ck) * rho * cosa * aproj / maxt(nn));
    f += circ.cross(v);
    // drag and viscous resistance
    let dsph = 2.0 / 3.0 * (s[0] + s[1] + s[2]);
    let dmax = s[0].max(s[1]).max(s[2]);
    let dmin = s[0].min(s[1]).min(s[2]);
    let dmid = s[0] + s[1] + s[2] - dmax - dmin;
    let amax = pi * dmax * dmid;
    let lin_coef = beta * sc(3.0 * pi * dsph)
        + rho * nvel * (aproj * sc(cb) + sc::<T>(cs) * (sc::<T>(amax) - aproj));
    f -= v * lin_coef;
    let imax = 8.0 / 15.0 * pi * dmid * dmax.powi(4);
    let mut mom = Vector3::zeros();
    for k in 0..3 {
        let (j, l) = ((k + 1) % 3, (k + 2) % 3);
        let ik = 8.0 / 15.0 * pi * s[k] * s[j].max(s[l]).powi(4);
        mom[k] = w[k] * sc(ca * ik + cs * (imax - ik));
    }
    let ang_coef = beta * sc(pi * dsph.powi(3)) + rho * sqrt0(mom.norm_squared());
    t -= w * ang_coef;
    let inter: T = sc(fl[0]);
    (f * inter, t * inter)
}

/// True if body `b` uses the ellipsoid model (one of its geoms has an interaction coefficient).
pub fn body_uses_ellipsoid(m: &Model, b: usize) -> bool {
    let a = m.body_geomadr[b];
    (a..a + m.body_geomnum[b]).any(|g| m.geom_fluid.get(g).is_some_and(|f| f[0] > 0.0))
}

/// Computes `qfrc_fluid` (zero unless density or viscosity is positive). Needs `cvel`.
pub fn fluid<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.qfrc_fluid.iter_mut().for_each(|x| *x = T::zero());
    if !(m.opt.density > 0.0 || m.opt.viscosity > 0.0) {
        return;
    }
    for b in 1..m.nbody {
        if m.body_mass[b] < 1e-15 {
            continue;
        }
        if body_uses_ellipsoid(m, b) {
            let a = m.body_geomadr[b];
            for g in a..a + m.body_geomnum[b] {
                if m.geom_fluid[g][0] <= 0.0 {
                    continue;
                }
                let r = d.geom_xmat[g];
                let p = d.geom_xpos[g];
                let (w, v) = local_vel(m, d, b, &p, &r);
                let (f, t) = ellipsoid_wrench(m, g, &w, &v);
                apply_ft_raw(
                    m,
                    &d.cdof,
                    &d.subtree_com,
                    &(r * f),
                    &(r * t),
                    &p,
                    b,
                    &mut d.qfrc_fluid,
                );
            }
        } else {
            let r = d.ximat[b];
            let p = d.xipos[b];
            let (w, v) = local_vel(m, d, b, &p, &r);
            let (f, t) = inertia_box_wrench(m, b, &w, &v);
            apply_ft_raw(
                m,
                &d.cdof,
                &d.subtree_com,
                &(r * f),
                &(r * t),
                &p,
                b,
                &mut d.qfrc_fluid,
            );
        }
    }
}

/// Data scalars [`fluid_deriv_with`] runs on: the local `6 × 6` wrench derivative at local
/// velocity `x`, by forward-mode differentiation of the wrench — `f64` with `Dual64`, and
/// `Dual64` (an outer tangent, e.g. a position direction) with `HyperDual64`, which also
/// carries the outer tangent of the derivative (second derivatives of the wrench).
pub trait FluidScalar: Scalar {
    /// `D[i][k] = ∂wrench_i/∂x_k`, wrench = (torque, force), `x = (ω, v)` local.
    fn local_jacobian(m: &Model, b: usize, g: Option<usize>, x: &Vector6<Self>) -> [[Self; 6]; 6];
}

/// The local wrench of object `(b, g)` (ellipsoid geom `g`, else the inertia box of `b`).
fn local_wrench<T: Scalar>(
    m: &Model,
    b: usize,
    g: Option<usize>,
    w: &Vector3<T>,
    v: &Vector3<T>,
) -> (Vector3<T>, Vector3<T>) {
    match g {
        Some(g) => ellipsoid_wrench(m, g, w, v),
        None => inertia_box_wrench(m, b, w, v),
    }
}

impl FluidScalar for f64 {
    #[allow(clippy::needless_range_loop)]
    fn local_jacobian(m: &Model, b: usize, g: Option<usize>, x: &Vector6<f64>) -> [[f64; 6]; 6] {
        use num_dual::Dual64;
        let mut dm = [[0.0; 6]; 6];
        for k in 0..6 {
            let xd: Vector6<Dual64> =
                Vector6::from_fn(|i, _| Dual64::new(x[i], if i == k { 1.0 } else { 0.0 }));
            let wd = Vector3::new(xd[0], xd[1], xd[2]);
            let vd = Vector3::new(xd[3], xd[4], xd[5]);
            let (f, t) = local_wrench(m, b, g, &wd, &vd);
            for i in 0..3 {
                dm[i][k] = t[i].eps;
                dm[3 + i][k] = f[i].eps;
            }
        }
        dm
    }
}

impl FluidScalar for num_dual::Dual64 {
    #[allow(clippy::needless_range_loop)]
    fn local_jacobian(m: &Model, b: usize, g: Option<usize>, x: &Vector6<Self>) -> [[Self; 6]; 6] {
        use num_dual::{Dual64, HyperDual64};
        let mut dm = [[Dual64::from(0.0); 6]; 6];
        for k in 0..6 {
            // eps1: the local velocity direction k; eps2: the outer tangent of x
            let xd: Vector6<HyperDual64> = Vector6::from_fn(|i, _| {
                HyperDual64::new(x[i].re, if i == k { 1.0 } else { 0.0 }, x[i].eps, 0.0)
            });
            let wd = Vector3::new(xd[0], xd[1], xd[2]);
            let vd = Vector3::new(xd[3], xd[4], xd[5]);
            let (f, t) = local_wrench(m, b, g, &wd, &vd);
            for i in 0..3 {
                dm[i][k] = Dual64::new(t[i].eps1, t[i].eps1eps2);
                dm[3 + i][k] = Dual64::new(f[i].eps1, f[i].eps1eps2);
            }
        }
        dm
    }
}

/// Adds `∂qfrc_fluid/∂qvel` (dense nv × nv, row-major) to `out`: for each object,
/// `Jᵀ Rᵀ... ` i.e. `J_objᵀ R (∂w_local/∂(ω,v)) Rᵀ J_obj`, with the 6 × 6 local wrench
/// derivative obtained by forward-mode differentiation (six dual evaluations) of the local
/// wrench. Runs on `f64` data (positions fixed); the result is converted to `T` (constants for
/// duals). `symmetric`: each local 6 × 6 block is replaced by its symmetric part (MuJoCo does
/// this for implicitfast). Allocates (a 6 × nv Jacobian per object; the step uses
/// `fluid_deriv_scratch` with `Data`'s scratch instead).
pub fn fluid_deriv<T: Scalar>(m: &Model, d: &Data<f64>, symmetric: bool, out: &mut [T]) {
    fluid_deriv_with(m, d, symmetric, |i, x| out[i] += sc::<T>(x));
}

/// [`fluid_deriv`] on data of any [`FluidScalar`] (e.g. `Dual64` data seeded along a position
/// direction gives `∂qfrc_fluid/∂qvel` and its derivative along that direction), entry
/// `i = row · nv + column` passed to `add`.
pub fn fluid_deriv_with<S: FluidScalar>(
    m: &Model,
    d: &Data<S>,
    symmetric: bool,
    add: impl FnMut(usize, S),
) {
    fluid_deriv_scratch(m, d, symmetric, &mut Vec::new(), add);
}

/// [`fluid_deriv_with`] with its per-object Jacobians in `scratch` (resized to `18 nv`; no
/// allocation when it already has that length, as `Data::scratch_fluid` has).
#[allow(clippy::needless_range_loop)]
pub fn fluid_deriv_scratch<S: FluidScalar>(
    m: &Model,
    d: &Data<S>,
    symmetric: bool,
    scratch: &mut Vec<S>,
    mut add: impl FnMut(usize, S),
) {
    if !(m.opt.density > 0.0 || m.opt.viscosity > 0.0) {
        return;
    }
    let nv = m.nv;
    let half: S = sc(0.5);
    scratch.resize(18 * nv, S::zero());
    let (jp, rest) = scratch.split_at_mut(3 * nv);
    let (jr, rest) = rest.split_at_mut(3 * nv);
    let (l, dl) = rest.split_at_mut(6 * nv);
    let mut obj = |b: usize, g: Option<usize>, p: Vector3<S>, r: Matrix3<S>| {
        crate::smooth::jacobian::jac(m, d, &p, b, Some(&mut *jp), Some(&mut *jr));
        let (w, v) = local_vel(m, d, b, &p, &r);
        let x = Vector6::new(w.x, w.y, w.z, v.x, v.y, v.z);
        // local 6x6 derivative D[i][k] = d wrench_i / d x_k, wrench = (torque, force)
        let mut dm = S::local_jacobian(m, b, g, &x);
        if symmetric {
            for i in 0..6 {
                for k in 0..i {
                    let a = (dm[i][k] + dm[k][i]) * half;
                    dm[i][k] = a;
                    dm[k][i] = a;
                }
            }
        }
        // the dofs of b's chain (descending): the only columns where the Jacobians are not
        // zero, so the only entries of Lᵀ D L that are (the others would add +0)
        let chain = || std::iter::successors(body_last_dof(m, b), |&k| dof_parent(m, k));
        // local Jacobian on the chain's columns, compacted: L = [Rᵀ jr; Rᵀ jp] (6 x n)
        let mut n = 0;
        for (ci, c) in chain().enumerate() {
            let a = r.tr_mul(&Vector3::new(jr[c], jr[nv + c], jr[2 * nv + c]));
            let bvec = r.tr_mul(&Vector3::new(jp[c], jp[nv + c], jp[2 * nv + c]));
            for i in 0..3 {
                l[i * nv + ci] = a[i];
                l[(3 + i) * nv + ci] = bvec[i];
            }
            n = ci + 1;
        }
        // out += Lᵀ D L
        for i in 0..6 {
            for ci in 0..n {
                dl[i * nv + ci] = (0..6).fold(S::zero(), |s, k| s + dm[i][k] * l[k * nv + ci]);
            }
        }
        for (ri, rr) in chain().enumerate() {
            for (ci, c) in chain().enumerate() {
                let x = (0..6).fold(S::zero(), |s, i| s + l[i * nv + ri] * dl[i * nv + ci]);
                add(rr * nv + c, x);
            }
        }
    };
    for b in 1..m.nbody {
        if m.body_mass[b] < 1e-15 {
            continue;
        }
        if body_uses_ellipsoid(m, b) {
            let a = m.body_geomadr[b];
            for g in a..a + m.body_geomnum[b] {
                if m.geom_fluid[g][0] > 0.0 {
                    obj(b, Some(g), d.geom_xpos[g], d.geom_xmat[g]);
                }
            }
        } else {
            obj(b, None, d.xipos[b], d.ximat[b]);
        }
    }
}
