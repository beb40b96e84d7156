//! Fluid forces in the analytic derivatives (MuJoCo's "Fluid forces"; `moreau::fluid`).
//!
//! - `∂qfrc_fluid/∂qvel` exactly: `Σ_obj Lᵀ D L` (`L` the object's local 6 × nv Jacobian, `D`
//!   the local wrench derivative) — [`moreau::pipeline::fluid_deriv`] unsymmetrized. Under
//!   implicitfast the engine's `d_passive_vel` adds MuJoCo's per-object symmetrized block
//!   (`qDeriv`), which is not the derivative of the force; `fluid_exact` corrects it.
//! - `∂/∂q` of the fluid force in closed form (`fluid_pos`, both fluid models): an object moves
//!   rigidly with the tangent direction's motion subspace `S_j`, its local velocity changes by
//!   the local view of `−S_j × u_j` (plus the rotated wind), its local wrench by `D` times that,
//!   and the joint-space map `Sᵀ` by `S_j × S_k` below `j` — O(depth²) per object, no pass over
//!   the pipeline (derivation at `fluid_pos`). The rest of `∂g/∂q` is [`crate::inverse_pos`]'s
//!   (analytic RNE, contact geometry; its restricted pass, where it runs, takes the fluid force
//!   with `com_vel`).
//! - The step matrices' fluid block (`He = M − h S∘sym(qDeriv)` under implicitfast,
//!   unsymmetrized under implicit), which depends on `q` and `v` through the objects' local
//!   velocities `x`: `(∂/∂x) · a` as `Σ_obj Lᵀ (D (L a))` with `D`'s derivative chained from
//!   `∂D/∂x` computed once per call (`local_ds`): in closed form along position directions
//!   (`fluid_pos`) and velocity directions (`fluid_qderiv_vel`), by `qderiv_mul` on seeded
//!   `Dual64` data in [`crate::step_matrix`]'s passes.

#![allow(clippy::needless_range_loop)]

use crate::rne::dof_groups;
use moreau::model::{disable, Integrator, Model};
use moreau::pipeline::{
    ang, body_last_dof, body_uses_ellipsoid, cross_force, cross_motion, dof_parent,
    ellipsoid_wrench, fluid_deriv, inertia_box_wrench, join, lin, local_vel, FluidScalar,
};
#[cfg(test)]
use moreau::pipeline::{com_pos, com_vel, fluid, kinematics};
use moreau::{jac, Data};
use nalgebra::{DMatrix, Matrix3, Vector3, Vector6};
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

type V6 = Vector6<f64>;

/// Per dof `j`: the spatial velocity `u_j` (world-aligned, at the subtree COM of the tree's
/// root, as `cvel`) of the frame before `j`'s joint group under the joint velocity `vel` (a
/// ball joint's dofs are one group, a free joint's translation and rotation two), and the
/// group's first dof — [`crate::rne`]'s `u` and `grp`. `u`, `grp`: `nv`, overwritten; `vb`:
/// scratch.
fn group_vel(
    m: &Model,
    d: &Data<f64>,
    vel: &[f64],
    u: &mut [V6],
    grp: &mut [usize],
    vb: &mut Vec<V6>,
) {
    vb.clear();
    vb.resize(m.nbody, V6::zeros());
    for b in 1..m.nbody {
        let mut v = vb[m.body_parentid[b]];
        let j0 = m.body_jntadr[b];
        for jn in j0..j0 + m.body_jntnum[b] {
            let da = m.jnt_dofadr[jn];
            let groups = dof_groups(m.jnt_type[jn]);
            for &(o, n) in groups {
                let g0 = da + o;
                for k in g0..g0 + n {
                    u[k] = v;
                    grp[k] = g0;
                }
                for k in g0..g0 + n {
                    v += d.cdof[k] * vel[k];
                }
            }
        }
        vb[b] = v;
    }
}

/// The dofs of body `b`'s chain (descending) into `out`.
fn chain(m: &Model, b: usize, out: &mut Vec<usize>) {
    out.clear();
    let mut k = body_last_dof(m, b);
    while let Some(kk) = k {
        out.push(kk);
        k = dof_parent(m, kk);
    }
}

/// An object's frame: rotation `r` and origin `rp` relative to the subtree COM of its tree's
/// root (the point `cdof` and `cvel` are taken at).
struct Frame {
    r: Matrix3<f64>,
    rp: Vector3<f64>,
}

impl Frame {
    /// Local (ω, v) of the object under the world motion `s` (at the tree's point): `(Rᵀ ω,
    /// Rᵀ (v + ω × rp))`.
    fn local(&self, s: &V6) -> [f64; 6] {
        let w = ang(s);
        let a = self.r.tr_mul(&w);
        let b = self.r.tr_mul(&(lin(s) + w.cross(&self.rp)));
        [a.x, a.y, a.z, b.x, b.y, b.z]
    }

    /// The spatial force (at the tree's point) of the local wrench `y` = (torque, force)
    /// applied at the object's origin.
    fn world(&self, y: &[f64; 6]) -> V6 {
        let t = self.r * Vector3::new(y[0], y[1], y[2]);
        let f = self.r * Vector3::new(y[3], y[4], y[5]);
        join(&(t + self.rp.cross(&f)), &f)
    }
}

fn mul6(dm: &[[f64; 6]; 6], x: &[f64; 6]) -> [f64; 6] {
    std::array::from_fn(|i| (0..6).fold(0.0, |s, k| s + dm[i][k] * x[k]))
}

/// `D` symmetrized as implicitfast's `qDeriv` takes it (`fast`), else as it is.
fn sym6(mut dm: [[f64; 6]; 6], fast: bool) -> [[f64; 6]; 6] {
    if fast {
        for i in 0..6 {
            for k in 0..i {
                let s = (dm[i][k] + dm[k][i]) * 0.5;
                dm[i][k] = s;
                dm[k][i] = s;
            }
        }
    }
    dm
}

/// `Σ_l T[l] dx_l`: `D`'s derivative along the local velocity change `dx` ([`LocalD`]).
fn d_local(t: &[[[f64; 6]; 6]; 6], dx: &[f64; 6]) -> [[f64; 6]; 6] {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| (0..6).fold(0.0, |s, l| s + t[l][i][j] * dx[l]))
    })
}

/// The joint velocity `a` seen by the object on body `b` (chain `ch`) in its local frame: `L a`.
fn local_of(d: &Data<f64>, f: &Frame, ch: &[usize], a: &[f64]) -> [f64; 6] {
    let s = ch.iter().fold(V6::zeros(), |s, &k| s + d.cdof[k] * a[k]);
    f.local(&s)
}

/// `s (∂qDeriv_fluid/∂v_k) a` added into column `k` of `out` (`nv × nv`), `k = 0..nv`; nothing
/// without fluid forces. The block as the step forms it (`Σ_obj Lᵀ D L`, per-object symmetric
/// under implicitfast and within `M`'s pattern, so the step's `S ∘ sym(·)` leaves it
/// unchanged). `D` depends on `v` only through the object's local velocity `x`, and
/// `∂x/∂v_k = L e_k`, so column `k` is `Σ_obj Lᵀ ((Σ_l T[l] (L e_k)_l) (L a))` (`T` of
/// [`local_ds`]), over the objects whose chain holds `k`.
pub(crate) fn fluid_qderiv_vel(
    m: &Model,
    d: &Data<f64>,
    a: &[f64],
    s: f64,
    out: &mut nalgebra::DMatrixViewMut<f64>,
) {
    if !has_fluid(m) {
        return;
    }
    let fast = m.opt.integrator == Integrator::ImplicitFast;
    let ds = local_ds(m, d);
    let mut ch = Vec::with_capacity(m.nv);
    for ((b, _, p, r), (_, t)) in objects(m, d).zip(&ds) {
        let f = Frame {
            r,
            rp: p - d.subtree_com[m.body_rootid[b]],
        };
        chain(m, b, &mut ch);
        let z = local_of(d, &f, &ch, a);
        for &k in &ch {
            let dd = sym6(d_local(t, &f.local(&d.cdof[k])), fast);
            let wd = f.world(&mul6(&dd, &z));
            for &r in &ch {
                out[(r, k)] += s * d.cdof[r].dot(&wd);
            }
        }
    }
}

/// The fluid force's position derivative in closed form, per tangent direction `j`: with `dg`,
/// `−∂qfrc_fluid/∂q_j` added into its column `j` (the fluid part of the residual's `∂g/∂q`,
/// `g = … − qfrc_passive`); with `qd = (a, s, cm)`, `s (∂qDeriv_fluid/∂q_j) a` added into column
/// `j` of `cm` (the block as the step forms it; symmetric per object under implicitfast and
/// within `M`'s pattern, so the step's `S ∘ sym(·)` leaves it unchanged). Nothing without fluid
/// forces.
///
/// An object (a body's inertia box, or an ellipsoid-model geom; frame `R`, origin `p`, at
/// `r = p − c` from its tree's point `c`) applies the spatial force `W = [R t + r × R f; R f]`
/// of its local wrench `(t, f)(x)`, `x = (Rᵀ ω, Rᵀ (v_p − wind))`, so `qfrc_k = S_k · W` on its
/// chain's dofs `k`. Moving `q` along `j` (`S_j = cdof_j` on the chain, else nothing moves) moves
/// the object rigidly by `S_j` and its velocity by `∂v_b = S_j × (v_b − u_j)` ([`crate::rne`]:
/// `u_j` the velocity before `j`'s joint group); in the object's frame that leaves
/// `∂x = L(−ψ_j) + (0, Rᵀ (θ_j × wind))` with `ψ_j = S_j × u_j`, `θ_j = ang(S_j)`, `L(s)` the
/// local (ω, v) of a world motion `s` at the object. The wrench moves with the frame
/// (`∂W = S_j ×* W`) and changes by `D ∂x` (`D` the local wrench derivative), and
/// `∂S_k = S_j × S_k` for the chain's dofs `k` at or after `j`'s group, whose
/// `(S_j × S_k) · W = −S_k · (S_j ×* W)` cancels the frame's motion:
/// `∂qfrc_k/∂q_j = S_k · W(D ∂x) + [k before j's group] S_k · (S_j ×* W)`.
/// The block `Lᵀ D L a` likewise: `L a` changes by `L(−S_j × u_j(a))` (`u_j` under the joint
/// velocity `a`, no wind), `D` by `Σ_l T[l] ∂x_l` ([`local_ds`]), and `Lᵀ` as `qfrc` above.
pub(crate) fn fluid_pos(
    m: &Model,
    d: &Data<f64>,
    dg: Option<&mut DMatrix<f64>>,
    mut qd: Option<(&[f64], f64, &mut DMatrix<f64>)>,
) {
    // passive forces (fluid included) are off with both the spring and damper flags disabled
    let force = !(m.opt.disabled(disable::SPRING) && m.opt.disabled(disable::DAMPER));
    let mut dg = dg.filter(|_| force);
    if !has_fluid(m) || (dg.is_none() && qd.is_none()) {
        return;
    }
    let nv = m.nv;
    let fast = m.opt.integrator == Integrator::ImplicitFast;
    let wind = Vector3::new(m.opt.wind[0], m.opt.wind[1], m.opt.wind[2]);
    let mut u = vec![V6::zeros(); nv];
    let mut grp = vec![0; nv];
    let mut vb = Vec::new();
    group_vel(m, d, &d.qvel, &mut u, &mut grp, &mut vb);
    let mut ua = Vec::new();
    let ds = match &qd {
        Some((a, ..)) => {
            ua.resize(nv, V6::zeros());
            group_vel(m, d, a, &mut ua, &mut grp, &mut vb);
            local_ds(m, d)
        }
        None => Vec::new(),
    };
    let mut ch = Vec::with_capacity(nv);
    for (i, (b, g, p, r)) in objects(m, d).enumerate() {
        let f = Frame {
            r,
            rp: p - d.subtree_com[m.body_rootid[b]],
        };
        chain(m, b, &mut ch);
        // the force: W and D at the state
        let wd = dg.is_some().then(|| {
            let (w, v) = local_vel(m, d, b, &p, &r);
            let x = Vector6::new(w.x, w.y, w.z, v.x, v.y, v.z);
            let (fl, tl) = match g {
                Some(g) => ellipsoid_wrench(m, g, &w, &v),
                None => inertia_box_wrench(m, b, &w, &v),
            };
            let y = [tl.x, tl.y, tl.z, fl.x, fl.y, fl.z];
            (
                f.world(&y),
                <f64 as FluidScalar>::local_jacobian(m, b, g, &x),
            )
        });
        // the block: L a, D (symmetrized as the step takes it), W(D L a)
        let blk = qd.as_ref().map(|(a, ..)| {
            let (d0, t) = &ds[i];
            let z = local_of(d, &f, &ch, a);
            let dm = sym6(*d0, fast);
            let wz = f.world(&mul6(&dm, &z));
            (z, dm, wz, t)
        });
        for &j in &ch {
            let s = d.cdof[j];
            let psi = cross_motion(&s, &u[j]);
            let mut dx = f.local(&-psi);
            let dw = r.tr_mul(&ang(&s).cross(&wind));
            for c in 0..3 {
                dx[3 + c] += dw[c];
            }
            if let (Some(dg), Some((w0, dm))) = (dg.as_deref_mut(), &wd) {
                let wdx = f.world(&mul6(dm, &dx));
                let sw = cross_force(&s, w0);
                for &k in &ch {
                    let mut y = d.cdof[k].dot(&wdx);
                    if k < grp[j] {
                        y += d.cdof[k].dot(&sw);
                    }
                    dg[(k, j)] -= y;
                }
            }
            if let (Some((_, sc, cm)), Some((z, dm, wz, t))) = (qd.as_mut(), &blk) {
                let ddm = sym6(d_local(t, &dx), fast);
                let dz = f.local(&-cross_motion(&s, &ua[j]));
                let a1 = mul6(&ddm, z);
                let a2 = mul6(dm, &dz);
                let du: [f64; 6] = std::array::from_fn(|c| a1[c] + a2[c]);
                let wdu = f.world(&du);
                let sw = cross_force(&s, wz);
                for &k in &ch {
                    let mut y = d.cdof[k].dot(&wdu);
                    if k < grp[j] {
                        y += d.cdof[k].dot(&sw);
                    }
                    cm[(k, j)] += *sc * y;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The closed forms of [`fluid_pos`] and [`fluid_qderiv_vel`] against per-direction
    //! `Dual64` passes over the engine's own kinematics, COM, `com_vel` and fluid force (and
    //! [`qderiv_mul`] on the seeded data), and `∂qfrc_fluid/∂q` against centered differences
    //! of the engine's `f64` fluid force.
    use super::*;
    use moreau::integrate_pos;

    /// The reference: per tangent direction `j` one `Dual64` pass; `dg` and `cm` as
    /// [`fluid_pos`]'s.
    fn dual_pos(m: &Model, d: &Data<f64>, a: &[f64], s: f64) -> (DMatrix<f64>, DMatrix<f64>) {
        let nv = m.nv;
        let (mut dg, mut cm) = (DMatrix::zeros(nv, nv), DMatrix::zeros(nv, nv));
        let [mut jp, mut jr, mut y] = mul_scratch(nv);
        let ds = local_ds(m, d);
        let mut dd = crate::dual::lift(m, d);
        for j in 0..nv {
            crate::dual::lift_into(d, &mut dd);
            crate::dual::seed(m, &mut dd, j);
            kinematics(m, &mut dd);
            com_pos(m, &mut dd);
            com_vel(m, &mut dd);
            fluid(m, &mut dd);
            for k in 0..nv {
                dg[(k, j)] -= dd.qfrc_fluid[k].eps;
            }
            y.fill(Dual64::from(0.0));
            qderiv_mul(m, &dd, &ds, a, &mut jp, &mut jr, &mut y);
            for (r, x) in y.iter().enumerate() {
                cm[(r, j)] += s * x.eps;
            }
        }
        (dg, cm)
    }

    /// The reference of [`fluid_qderiv_vel`]: one `Dual64` pass over `com_vel` per velocity
    /// direction.
    fn dual_vel(m: &Model, d: &Data<f64>, a: &[f64], s: f64) -> DMatrix<f64> {
        let nv = m.nv;
        let mut out = DMatrix::zeros(nv, nv);
        let [mut jp, mut jr, mut y] = mul_scratch(nv);
        let ds = local_ds(m, d);
        let mut dd = crate::dual::lift(m, d);
        crate::dual::vel_passes(m, &mut dd, |dd, k| {
            y.fill(Dual64::from(0.0));
            qderiv_mul(m, dd, &ds, a, &mut jp, &mut jr, &mut y);
            for (r, x) in y.iter().enumerate() {
                out[(r, k)] += s * x.eps;
            }
        });
        out
    }

    /// `−∂qfrc_fluid/∂q` by centered differences (tangent steps `±e`) of the `f64` force.
    fn fd_pos(m: &Model, d: &Data<f64>, e: f64) -> DMatrix<f64> {
        let nv = m.nv;
        let mut out = DMatrix::zeros(nv, nv);
        let force = |q: &[f64]| {
            let mut x = d.clone();
            x.qpos.copy_from_slice(q);
            kinematics(m, &mut x);
            com_pos(m, &mut x);
            com_vel(m, &mut x);
            fluid(m, &mut x);
            x.qfrc_fluid.clone()
        };
        for j in 0..nv {
            let mut dq = vec![0.0; nv];
            dq[j] = 1.0;
            let (mut qp, mut qm) = (d.qpos.clone(), d.qpos.clone());
            integrate_pos(m, &mut qp, &dq, e);
            integrate_pos(m, &mut qm, &dq, -e);
            let (fp, fm) = (force(&qp), force(&qm));
            for k in 0..nv {
                out[(k, j)] = -(fp[k] - fm[k]) / (2.0 * e);
            }
        }
        out
    }

    fn rel(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
        (a - b).amax() / b.amax().max(1e-300)
    }

    /// Models: `models/fluid_swimmer.xml` (free box and ball-jointed arm link on the inertia
    /// box, capsule and ellipsoid geoms on the ellipsoid model, wind) and an inline fish-like
    /// chain (inertia box only, no wind, a body with two hinges, a slide, a ball below a free
    /// joint); each at several states of random velocities and
    /// positions, under Euler and implicitfast.
    fn models() -> Vec<(&'static str, Model)> {
        let sw = format!("{}/../models/fluid_swimmer.xml", env!("CARGO_MANIFEST_DIR"));
        let fish = r#"<mujoco>
          <option density="5000" viscosity="0.002"/>
          <worldbody>
            <body name="torso" pos="0 0 .1">
              <freejoint/>
              <geom type="ellipsoid" size=".01 .08 .04" mass="0"/>
              <geom type="box" size=".002 .06 .03"/>
              <body name="tail1" pos="0 -.09 0">
                <joint name="tail1" axis="0 0 1" pos="0 .01 0"/>
                <joint name="tail_twist" axis="0 1 0" pos="0 .01 0"/>
                <geom type="ellipsoid" size=".001 .008 .016"/>
                <body name="tail2" pos="0 -.028 0">
                  <joint name="tail2" axis="0 0 1" pos="0 .02 0"/>
                  <joint name="tail_slide" type="slide" axis="0 1 0"/>
                  <geom type="ellipsoid" size=".001 .018 .035" pos="0 -.01 0"/>
                </body>
              </body>
              <body name="fin" pos=".01 0 0">
                <joint name="fin" type="ball"/>
                <geom type="ellipsoid" size=".02 .015 .001" pos=".02 0 0"/>
              </body>
            </body>
          </worldbody>
        </mujoco>"#;
        vec![
            ("fluid_swimmer", moreau::load(&sw).unwrap()),
            (
                "fish-like",
                moreau::load_from_str(fish, &moreau::Vfs::new()).unwrap(),
            ),
        ]
    }

    #[test]
    fn closed_form_position_and_velocity_derivatives_are_the_dual_passes() {
        for (name, mut m) in models() {
            for integ in [Integrator::Euler, Integrator::ImplicitFast] {
                m.opt.integrator = integ;
                let mut rnd = {
                    let mut s = 0x9e37_79b9_7f4a_7c15_u64;
                    move || {
                        s ^= s << 13;
                        s ^= s >> 7;
                        s ^= s << 17;
                        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
                    }
                };
                for state in 0..4 {
                    let mut d = Data::new(&m);
                    let dq: Vec<f64> = (0..m.nv).map(|_| 0.5 * rnd()).collect();
                    integrate_pos(&m, &mut d.qpos, &dq, 1.0);
                    for v in d.qvel.iter_mut() {
                        *v = 2.0 * rnd();
                    }
                    moreau::forward(&m, &mut d);
                    let a: Vec<f64> = (0..m.nv).map(|_| 3.0 * rnd()).collect();
                    let s = 0.7;
                    let nv = m.nv;
                    let (mut dg, mut cm) = (DMatrix::zeros(nv, nv), DMatrix::zeros(nv, nv));
                    fluid_pos(&m, &d, Some(&mut dg), Some((&a, s, &mut cm)));
                    let mut cv = DMatrix::zeros(nv, nv);
                    fluid_qderiv_vel(&m, &d, &a, s, &mut cv.columns_mut(0, nv));
                    let (rdg, rcm) = dual_pos(&m, &d, &a, s);
                    let rcv = dual_vel(&m, &d, &a, s);
                    let fd = fd_pos(&m, &d, 1e-6);
                    let e = [
                        rel(&dg, &rdg),
                        rel(&cm, &rcm),
                        rel(&cv, &rcv),
                        rel(&dg, &fd),
                    ];
                    eprintln!(
                        "{name} {integ:?} state {state}: |dg| {:.2e}; vs duals: dg {:.1e}, \
                         qDeriv q-block {:.1e}, v-block {:.1e}; dg vs centered FD {:.1e}",
                        rdg.amax(),
                        e[0],
                        e[1],
                        e[2],
                        e[3]
                    );
                    assert!(rdg.amax() > 0.0 && rcm.amax() > 0.0 && rcv.amax() > 0.0);
                    assert!(e[0] < 1e-12, "{name} state {state}: dg vs duals {}", e[0]);
                    assert!(
                        e[1] < 1e-12,
                        "{name} state {state}: q-block vs duals {}",
                        e[1]
                    );
                    assert!(
                        e[2] < 1e-12,
                        "{name} state {state}: v-block vs duals {}",
                        e[2]
                    );
                    // truncation ~ e² and round-off ~ 1e-16 / e relative
                    assert!(e[3] < 1e-7, "{name} state {state}: dg vs FD {}", e[3]);
                }
            }
        }
    }
}
