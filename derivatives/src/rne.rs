//! Analytic position derivatives of the smooth dynamics (Computation "General framework"; the
//! O(n·depth) recursion of Carpentier & Mansard 2018, "Analytical derivatives of rigid body
//! dynamics algorithms", derived here in moreau's/MuJoCo's conventions).
//!
//! All spatial quantities (`cdof` = `S`, `cinert` = `I`, `cvel` = `v`) are in the world-aligned
//! frame at the subtree COM of each tree's root. That point moves with `q`, but every joint force
//! `S_k · F` is invariant under the choice of a fixed reference point, so derivatives are taken
//! with the point frozen at its current location.
//!
//! Perturbing `q` by `ε` along the tangent direction `j` (`qpos ⊕ ε e_j`, MuJoCo's `mjd_`
//! convention: ball and free-joint quaternions perturbed on the right, in the child frame)
//! applies the rigid motion `exp(ε S_j)` to everything attached downstream of dof `j`:
//! - `∂S_k/∂q_j = S_j × S_k` for `k ∈ D(j)`: the dof descendants of `j`, and for a rotational
//!   dof of a ball/free joint also the other rotational dofs of that joint (their axes are
//!   the rotated child frame's axes); `∂S_k/∂q_j = 0` otherwise;
//! - `∂I_b x = S_j ×* (I_b x) − I_b (S_j × x)` for bodies `b` in the subtree of `j`'s body.
//!
//! With `u_j`, `α_j` the velocity and acceleration of the frame before `j`'s joint group (the
//! velocity `cdof_dot_j = u_j × S_j` uses; for a free joint's rotation group, after its
//! translation) and `a_0 = −gravity`, for bodies `b` downstream of `j`:
//! - `∂v_b/∂q_j = S_j × (v_b − u_j)`;
//! - `∂a_b/∂q_j = S_j × (a_b − α_j) − (S_j × u_j) × (v_b − u_j)` (Jacobi identity on
//!   `∂(u_k × S_k)`);
//! - `f_b = I_b a_b + v_b ×* I_b v_b`, `∂f_b` by the product rule, which simplifies to
//!   `S_j ×* (I a) − I (S_j × α_j + ψ × Δv) + (S_j × Δv) ×* h + v ×* (S_j ×* h − I ψ)` with
//!   `ψ = S_j × u_j`, `Δv = v_b − u_j`, `h = I_b v_b`;
//! - `τ_k = S_k · F_{b(k)}` (`F` summed over the subtree), so
//!   `∂τ_k/∂q_j = [k ∈ D(j)] (S_j × S_k) · F + S_k · ∂F`, and every ancestor body of `j`'s body
//!   sees the same `∂F` as that body.
//!
//! Forces fixed in the world at a body's COM (`xfrc_applied`, gravity compensation) enter as
//! `[r × f + t; f]` with `r = xipos − c`; moving the point by `δr = lin(S_j) + ang(S_j) × r` gives
//! `∂ = [δr × f; 0]`.
//!
//! `∂M/∂q` uses `M_kl = S_l · Ic_{b(k)} S_k` (`l` on the dof chain of `k`, composite inertia
//! `Ic`), with `∂Ic_b` the rigid motion of the part of `Ic_b` downstream of `j`: all of it for
//! `b` in the subtree of `j`'s body, `Ic_{b(j)}` for its ancestors.
//!
//! Joint springs (hinge/slide polynomial, ball/free-rotation `subQuat` through
//! [`crate::quat::sub_quat_deriv`], free translation) are differentiated in closed form.

#![allow(clippy::needless_range_loop)]

use crate::quat::skew;
use crate::work::Work;
use moreau::model::{disable, JointType, Model};
use moreau::pipeline::{ang, cross_force, cross_motion, inert_mul, join, lin, normalize_quat};
use moreau::Data;
use nalgebra::{DMatrix, Matrix3, Matrix6, Quaternion, Vector3, Vector6};

type V6 = Vector6<f64>;

/// Terms of the smooth force included by [`d_smooth_pos`] besides `M(q) a + c(q, v)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Terms {
    /// Subtract the joint springs (`qfrc_spring` of joints, not tendons).
    pub springs: bool,
    /// Subtract the gravity compensation of dofs that take it as a passive force.
    pub gravcomp: bool,
    /// Subtract `Σ_b J_bᵀ xfrc_applied[b]`.
    pub xfrc: bool,
}

impl Work {
    pub(crate) fn prepare(&mut self, m: &Model) {
        // `last` depends on the body tree only (the rest is checked where `dual` is used)
        if self.key.body_parentid != m.body_parentid {
            self.fit(m);
        }
        let (nb, nv) = (m.nbody, m.nv);
        let z = V6::zeros();
        for (v, n) in [
            (&mut self.u, nv),
            (&mut self.al, nv),
            (&mut self.acc, nb),
            (&mut self.h, nb),
            (&mut self.ia, nb),
            (&mut self.frc, nb),
            (&mut self.df, nb),
            (&mut self.vel, nb),
        ] {
            v.clear();
            v.resize(n, z);
        }
        self.grp.clear();
        self.grp.resize(nv, 0);
        self.fw.clear();
        self.fw.resize(nb, Vector3::zeros());
        if self.last.len() != nb || self.moving.len() != nb {
            self.last = (0..nb).collect();
            for b in (1..nb).rev() {
                let p = m.body_parentid[b];
                self.last[p] = self.last[p].max(self.last[b]);
            }
            // (parents come first)
            self.moving.clear();
            self.moving.resize(nb, false);
            for b in 1..nb {
                self.moving[b] = m.body_dofnum[b] > 0 || self.moving[m.body_parentid[b]];
            }
        }
    }

    /// `u`, `α`, group starts and body accelerations (`cacc` with `qacc`).
    /// With `vel == false` the velocities are taken as zero (and `gravity == false` drops it):
    /// the RNE of `M(q) qacc` alone.
    pub(crate) fn forward_pass(
        &mut self,
        m: &Model,
        d: &Data<f64>,
        qacc: Option<&[f64]>,
        vel: bool,
        gravity: bool,
    ) {
        self.acc[0] = if !gravity || m.opt.disabled(disable::GRAVITY) {
            V6::zeros()
        } else {
            let g = m.opt.gravity;
            V6::new(0.0, 0.0, 0.0, -g[0], -g[1], -g[2])
        };
        for b in 1..m.nbody {
            let p = m.body_parentid[b];
            let mut v = self.vel[p];
            let mut a = self.acc[p];
            let j0 = m.body_jntadr[b];
            for jn in j0..j0 + m.body_jntnum[b] {
                let da = m.jnt_dofadr[jn];
                let groups = dof_groups(m.jnt_type[jn]);
                for &(o, n) in groups {
                    let g0 = da + o;
                    for k in g0..g0 + n {
                        self.u[k] = v;
                        self.al[k] = a;
                        self.grp[k] = g0;
                    }
                    for k in g0..g0 + n {
                        if vel {
                            v += d.cdof[k] * d.qvel[k];
                            a += d.cdof_dot[k] * d.qvel[k];
                        }
                        if let Some(qa) = qacc {
                            a += d.cdof[k] * qa[k];
                        }
                    }
                }
            }
            self.acc[b] = a;
            self.vel[b] = v;
        }
    }
}

/// `∂τ/∂q` (rows outputs, `out[(k, j)] = ∂τ_k/∂q_j`, tangent columns) of
/// `τ = M(q) qacc + qfrc_bias(q, v) − [springs] − [gravcomp] − [xfrc map]` (the bracketed terms
/// as selected by `terms`; `qacc = None` drops `M qacc`). Needs the position and velocity stages
/// of `d` (`cdof`, `cinert`, `cvel`, `cdof_dot`, `xipos`, `subtree_com`). Overwrites `out`.
pub fn d_smooth_pos(
    m: &Model,
    d: &Data<f64>,
    qacc: Option<&[f64]>,
    terms: Terms,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) {
    d_rne_pos(m, d, qacc, true, terms, None, w, out);
}

/// `∂(M(q) x)/∂q` (rows outputs; `∂M/∂q_j · x` in column `j`): the RNE derivative with zero
/// velocity and no gravity, O(n·depth) instead of the `nv × nM` tensor of [`d_mass_pos`].
pub fn d_mass_vec_pos(m: &Model, d: &Data<f64>, x: &[f64], w: &mut Work, out: &mut DMatrix<f64>) {
    d_rne_pos(m, d, Some(x), false, Terms::default(), None, w, out);
}

/// [`d_smooth_pos`] into `out` and, in the same sweep over the tangent directions,
/// [`d_mass_vec_pos`] of `x` into `outm` (what the transition's eulerdamp/implicitfast chain
/// rule needs next to the residual derivative; the shared recursion runs once).
#[allow(clippy::too_many_arguments)]
pub fn d_smooth_mass_pos(
    m: &Model,
    d: &Data<f64>,
    qacc: Option<&[f64]>,
    terms: Terms,
    x: &[f64],
    w: &mut Work,
    out: &mut DMatrix<f64>,
    outm: &mut DMatrix<f64>,
) {
    d_rne_pos(m, d, qacc, true, terms, Some((x, outm)), w, out);
}

/// The recursion of [`d_smooth_pos`] / [`d_mass_vec_pos`]; compiled for AVX2 as well and
/// dispatched at run time (no FMA contraction: bit-identical results).
#[allow(clippy::too_many_arguments)]
fn d_rne_pos(
    m: &Model,
    d: &Data<f64>,
    qacc: Option<&[f64]>,
    vel: bool,
    terms: Terms,
    mx: Option<(&[f64], &mut DMatrix<f64>)>,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above); the body is safe code.
        unsafe { d_rne_pos_avx2(m, d, qacc, vel, terms, mx, w, out) };
        return;
    }
    d_rne_pos_body(m, d, qacc, vel, terms, mx, w, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn d_rne_pos_avx2(
    m: &Model,
    d: &Data<f64>,
    qacc: Option<&[f64]>,
    vel: bool,
    terms: Terms,
    mx: Option<(&[f64], &mut DMatrix<f64>)>,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) {
    d_rne_pos_body(m, d, qacc, vel, terms, mx, w, out);
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn d_rne_pos_body(
    m: &Model,
    d: &Data<f64>,
    qacc: Option<&[f64]>,
    vel: bool,
    terms: Terms,
    mx: Option<(&[f64], &mut DMatrix<f64>)>,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) {
    let nv = m.nv;
    let mut mx = mx;
    // nv × nv outputs are zeroed column by column in the sweep over the directions below (a
    // column's short fill instead of one long one); others here
    // (slices: nalgebra's element iterator costs several instructions per entry)
    let by_col = out.len() == nv * nv && mx.as_ref().is_none_or(|(_, o)| o.len() == nv * nv);
    if !by_col || nv == 0 {
        out.as_mut_slice().fill(0.0);
        if let Some((_, o)) = &mut mx {
            o.as_mut_slice().fill(0.0);
        }
    }
    if nv == 0 {
        return;
    }
    w.prepare(m);
    let nb = m.nbody;
    // M(q) x: the zero-velocity, gravity-free recursion (the mass-only branch below), its
    // accelerations kept apart
    let fused = match &mx {
        Some((x, _)) => {
            w.forward_pass(m, d, Some(x), false, false);
            std::mem::swap(&mut w.acc, &mut w.acc2);
            std::mem::swap(&mut w.al, &mut w.al2);
            // every entry is rewritten by the pass below
            w.acc.resize(nb, V6::zeros());
            w.al.resize(nv, V6::zeros());
            w.ia2.clear();
            w.ia2
                .extend((0..nb).map(|b| inert_mul(&d.cinert[b], &w.acc2[b])));
            w.frc2.clone_from(&w.ia2);
            for b in (1..nb).rev() {
                let p = m.body_parentid[b];
                if p != 0 {
                    let f = w.frc2[b];
                    w.frc2[p] += f;
                }
            }
            true
        }
        None => false,
    };
    w.forward_pass(m, d, qacc, vel, vel);
    // world-fixed forces at the COMs (subtracted: they are inputs of τ with sign −)
    let gravity_on = !m.opt.disabled(disable::GRAVITY);
    let springdamp = !(m.opt.disabled(disable::SPRING) && m.opt.disabled(disable::DAMPER));
    // (bodies no dof moves are skipped here and below: their forces reach no joint, and every
    // sum into a moving body comes from its moving subtree, in the same order)
    for b in 1..nb {
        if !w.moving[b] {
            continue;
        }
        let mut f = Vector3::zeros();
        let mut t = Vector3::zeros();
        if terms.gravcomp && gravity_on && springdamp && m.body_gravcomp[b] != 0.0 {
            let s = -m.body_mass[b] * m.body_gravcomp[b];
            let g = m.opt.gravity;
            f += Vector3::new(g[0] * s, g[1] * s, g[2] * s);
        }
        if terms.xfrc {
            let x = &d.xfrc_applied[b];
            f += Vector3::new(x[0], x[1], x[2]);
            t += Vector3::new(x[3], x[4], x[5]);
        }
        w.fw[b] = f;
        let r = d.xipos[b] - d.subtree_com[m.body_rootid[b]];
        let fe = join(&(t + r.cross(&f)), &f);
        let v = &w.vel[b];
        let hb = inert_mul(&d.cinert[b], v);
        let iab = inert_mul(&d.cinert[b], &w.acc[b]);
        w.h[b] = hb;
        w.ia[b] = iab;
        w.frc[b] = iab + cross_force(v, &hb) - fe;
    }
    for b in (1..nb).rev() {
        let p = m.body_parentid[b];
        if w.moving[p] {
            let f = w.frc[b];
            w.frc[p] += f;
        }
    }
    // With ψ = S_j × u_j and σ̃ = S_j × α_j − ψ × u_j (per direction j), a body's force
    // derivative is linear in (S_j, σ̃, ψ): ∂f_b = A_b S_j − I_b σ̃ + B_b ψ with
    //   A_b s = s ×* (I a)_b + (s × v_b) ×* h_b + v_b ×* (s ×* h_b) − [δr(s) × f_w; 0],
    //   B_b ψ = −I_b (ψ × v_b) − ψ ×* h_b − v_b ×* (I_b ψ)
    // (the expansion of the formula in the module docs), so the subtree sum is
    // ∂F_b = Ac_b S_j − Ic_b σ̃ + Bc_b ψ with the composite (subtree-summed) Ac, Ic, Bc, and
    // S_k · ∂F_b = (Ac_bᵀ S_k) · S_j − (Ic_b S_k) · σ̃ + (Bc_bᵀ S_k) · ψ (Ic symmetric); the
    // term −S_k · (S_j ×* F_b) is (S_k ×* F_b) · S_j. Each dof k gets these
    // 6-vectors once; an entry of ∂τ/∂q is then a few 6-term dot products. ∂(M x)/∂q likewise
    // with (I a)_b of x, no velocity and no world-fixed forces (A2_b s = s ×* (I a2)_b).
    w.ic.clear();
    w.ic.extend_from_slice(&d.cinert[..nb]);
    // entries 1..nb are written below (gb only with velocities, else zero; g2 only for the
    // fused mass part, which alone reads it); the world's entry is never read
    for g in [&mut w.gc, &mut w.gb, &mut w.g2] {
        g.resize(nb, Matrix6::zeros());
    }
    // the composite velocity maps of the last d_bias_vel when formed from the same bits (the
    // same vel_map inputs: h = I v is recomputed alike)
    let reuse = vel
        && w.gv_set
        && w.gv.len() == nb
        && (1..nb)
            .all(|b| !w.moving[b] || (w.gv_vel[b] == w.vel[b] && w.gv_inert[b] == d.cinert[b]));
    for b in 1..nb {
        if !w.moving[b] {
            continue;
        }
        let c = &d.cinert[b];
        let (v, h) = (w.vel[b], w.h[b]);
        let mut a = force_bar(&-w.ia[b]);
        if vel {
            // A += K − Kᵀ
            let k = mul_motion_cross(&force_bar(&h), &v);
            for (j, col) in a.as_mut_slice().chunks_exact_mut(6).enumerate() {
                for (i, x) in col.iter_mut().enumerate() {
                    *x += k[6 * j + i] - k[6 * i + j];
                }
            }
            if !reuse {
                w.gb[b] = vel_map(&inertia_matrix(c), &v, &h);
            }
        } else {
            w.gb[b] = Matrix6::zeros();
        }
        let fw = w.fw[b];
        if fw != Vector3::zeros() {
            // − [δr(s) × f_w; 0], δr(s) = lin(s) + ang(s) × r
            let r = d.xipos[b] - d.subtree_com[m.body_rootid[b]];
            for i in 0..6 {
                let mut e = V6::zeros();
                e[i] = 1.0;
                let dr = lin(&e) + ang(&e).cross(&r);
                let col = a.column(i) - join(&dr.cross(&fw), &Vector3::zeros());
                a.set_column(i, &col);
            }
        }
        w.gc[b] = a;
        if fused {
            w.g2[b] = force_bar(&-w.ia2[b]);
        }
    }
    for b in (1..nb).rev() {
        let p = m.body_parentid[b];
        if w.moving[p] {
            let ib = w.ic[b];
            for (x, y) in w.ic[p].iter_mut().zip(ib.iter()) {
                *x += *y;
            }
            add_child(&mut w.gc, p, b);
            if vel && !reuse {
                add_child(&mut w.gb, p, b);
            }
            if fused {
                add_child(&mut w.g2, p, b);
            }
        }
    }
    if reuse {
        // (gv's storage takes gb's old values: no longer a d_bias_vel result)
        std::mem::swap(&mut w.gb, &mut w.gv);
        w.gv_set = false;
    }
    // per dof k (body b): [Ac_bᵀ S_k, Ic_b S_k, Bc_bᵀ S_k, S_k ×* F_b] and the mass part's
    // [A2c_bᵀ S_k, S_k ×* F2_b]
    w.pr.clear();
    w.pr2.clear();
    for k in 0..nv {
        let b = m.dof_bodyid[k];
        let s = &d.cdof[k];
        w.pr.push([
            tr_mul6(&w.gc[b], s),
            inert_mul(&w.ic[b], s),
            tr_mul6(&w.gb[b], s),
            cross_force(s, &w.frc[b]),
        ]);
        if fused {
            w.pr2
                .push([tr_mul6(&w.g2[b], s), cross_force(s, &w.frc2[b])]);
        }
    }
    // ∂qfrc_bias/∂qvel when asked (`w.bias_vel_want`), from the same composites: those of
    // [`d_bias_vel`] are `ic` and `−gb` (the same sums, negated: negation is exact), so its
    // per-dof rows are `[pr[1], −pr[2]]` and every entry is the same operations as there
    let bias = vel && w.bias_vel_want;
    let mut bv = std::mem::take(&mut w.bias_vel);
    if bias {
        bv.clear();
        bv.resize(nv * nv, 0.0);
    }
    for j in 0..nv {
        if by_col {
            out.as_mut_slice()[j * nv..(j + 1) * nv].fill(0.0);
            if let Some((_, o)) = &mut mx {
                o.as_mut_slice()[j * nv..(j + 1) * nv].fill(0.0);
            }
        }
        if translation_invariant(m, j) {
            continue;
        }
        let bj = m.dof_bodyid[j];
        let last = w.last[bj];
        let s = d.cdof[j];
        let psi = cross_motion(&s, &w.u[j]);
        let sig = cross_motion(&s, &w.al[j]) - cross_motion(&psi, &w.u[j]);
        let g = w.grp[j];
        // the dofs of bodies bj..=last (bj's subtree) are one contiguous range
        let k0 = m.body_dofadr[bj];
        let kn = (bj..=last)
            .rev()
            .find(|&b| m.body_dofnum[b] > 0)
            .map_or(k0, |b| m.body_dofadr[b] + m.body_dofnum[b]);
        // dofs of bj before j's group see no S_j × S_k term
        let kb = m.body_dofadr[bj] + m.body_dofnum[bj];
        if bias {
            // e_j: the velocity after j's group
            let mut e = w.u[j];
            let mut k = g;
            while k < nv && w.grp[k] == g {
                e += d.cdof[k] * d.qvel[k];
                k += 1;
            }
            let sigb = d.cdof_dot[j] - cross_motion(&s, &e);
            for (k, p) in (k0..kn).zip(&w.pr[k0..kn]) {
                bv[k * nv + j] = dot6(&p[1], &sigb) - dot6(&p[2], &s);
            }
            let dfb = inert_mul(&w.ic[bj], &sigb) - mul6(&w.gb[bj], &s);
            let mut p = m.body_parentid[bj];
            while p != 0 {
                let k0 = m.body_dofadr[p];
                for k in k0..k0 + m.body_dofnum[p] {
                    bv[k * nv + j] = dot6(&d.cdof[k], &dfb);
                }
                p = m.body_parentid[p];
            }
        }
        // column j of out (column-major)
        let col = &mut out.as_mut_slice()[j * nv..(j + 1) * nv];
        for ((k, p), o) in (k0..kn).zip(&w.pr[k0..kn]).zip(&mut col[k0..kn]) {
            let mut y = dot6(&p[0], &s) - dot6(&p[1], &sig) + dot6(&p[2], &psi);
            if k >= g || k >= kb {
                y += dot6(&p[3], &s);
            }
            *o = y;
        }
        let dfr = mul6(&w.gc[bj], &s) - inert_mul(&w.ic[bj], &sig) + mul6(&w.gb[bj], &psi);
        let mut dfr2 = V6::zeros();
        if let Some((_, o)) = &mut mx {
            let sig2 = cross_motion(&s, &w.al2[j]);
            let col = &mut o.as_mut_slice()[j * nv..(j + 1) * nv];
            let rows = w.pr2[k0..kn].iter().zip(&w.pr[k0..kn]);
            for ((k, (p, q)), o) in (k0..kn).zip(rows).zip(&mut col[k0..kn]) {
                let mut y = dot6(&p[0], &s) - dot6(&q[1], &sig2);
                if k >= g || k >= kb {
                    y += dot6(&p[1], &s);
                }
                *o = y;
            }
            dfr2 = mul6(&w.g2[bj], &s) - inert_mul(&w.ic[bj], &sig2);
        }
        let mut p = m.body_parentid[bj];
        while p != 0 {
            let k0 = m.body_dofadr[p];
            for k in k0..k0 + m.body_dofnum[p] {
                out.as_mut_slice()[j * nv + k] = dot6(&d.cdof[k], &dfr);
                if let Some((_, o)) = &mut mx {
                    o.as_mut_slice()[j * nv + k] = dot6(&d.cdof[k], &dfr2);
                }
            }
            p = m.body_parentid[p];
        }
    }
    w.bias_vel = bv;
    w.bias_vel_ready = bias;
    if terms.springs && !m.opt.disabled(disable::SPRING) {
        spring_pos(m, d, out);
    }
}

/// True for the translational dofs of a free joint of a child of the world: they translate the
/// whole tree rigidly, which changes neither `M`, the RNE forces (gravity is uniform) nor the
/// joint forces of world-fixed forces at moving points, so those columns are zero (only the
/// free joint's own spring depends on them). Likewise for their velocities (world-frame linear
/// velocity): a uniform boost leaves `qfrc_bias` unchanged (Galilean invariance), so
/// `∂qfrc_bias/∂q̇` has zero columns there. Both are checked against duals in the tests.
fn translation_invariant(m: &Model, j: usize) -> bool {
    let jn = m.dof_jntid[j];
    m.jnt_type[jn] == JointType::Free
        && j < m.jnt_dofadr[jn] + 3
        && m.body_parentid[m.jnt_bodyid[jn]] == 0
}

/// Subtracts `∂qfrc_spring/∂q` of the joint springs from `out` (rows outputs).
fn spring_pos(m: &Model, d: &Data<f64>, out: &mut DMatrix<f64>) {
    for jn in 0..m.njnt {
        let k = m.jnt_stiffness[jn];
        let p = m.jnt_stiffnesspoly[jn];
        if k == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
            continue;
        }
        let qa = m.jnt_qposadr[jn];
        let da = m.jnt_dofadr[jn];
        // f = −radial(|x|) x, ∂f/∂x = −(radial I + radial'(r) x xᵀ / r)
        let radial_block = |x: &Vector3<f64>| -> Matrix3<f64> {
            let r = x.norm();
            let rad = k + p[0] * r + p[1] * r * r;
            let mut jm = Matrix3::identity() * rad;
            if r > 0.0 {
                let dr = p[0] + 2.0 * p[1] * r;
                jm += x * x.transpose() * (dr / r);
            }
            -jm
        };
        let rot = |qa: usize, da: usize, out: &mut DMatrix<f64>| {
            let q = normalize_quat(Quaternion::new(
                d.qpos[qa],
                d.qpos[qa + 1],
                d.qpos[qa + 2],
                d.qpos[qa + 3],
            ));
            let s = &m.qpos_spring[qa..qa + 4];
            let qs = Quaternion::new(s[0], s[1], s[2], s[3]);
            let x = moreau::pipeline::sub_quat(&q, &qs);
            let (dxa, _) = crate::quat::sub_quat_deriv(&q, &qs);
            let jm = radial_block(&x) * dxa;
            for a in 0..3 {
                for b in 0..3 {
                    out[(da + a, da + b)] -= jm[(a, b)];
                }
            }
        };
        match m.jnt_type[jn] {
            JointType::Hinge | JointType::Slide => {
                let x = d.qpos[qa] - m.qpos_spring[qa];
                out[(da, da)] += k + x * (2.0 * p[0] + 3.0 * p[1] * x);
            }
            JointType::Ball => rot(qa, da, out),
            JointType::Free => {
                let x = Vector3::new(
                    d.qpos[qa] - m.qpos_spring[qa],
                    d.qpos[qa + 1] - m.qpos_spring[qa + 1],
                    d.qpos[qa + 2] - m.qpos_spring[qa + 2],
                );
                let jm = radial_block(&x);
                for a in 0..3 {
                    for b in 0..3 {
                        out[(da + a, da + b)] -= jm[(a, b)];
                    }
                }
                rot(qa + 3, da + 3, out);
            }
        }
    }
}

/// `∂M/∂q`: row `j` of `out` (`nv × nM`) is `∂qM/∂q_j` in qM's sparse layout (MuJoCo's `DmDq`
/// layout). Needs `cdof`, `cinert`. Tendon armature (its `J` is constant for the fixed tendons
/// moreau's `crb` supports) and `dof_armature` do not depend on `q`.
pub fn d_mass_pos(m: &Model, d: &Data<f64>, w: &mut Work, out: &mut DMatrix<f64>) {
    let nv = m.nv;
    out.fill(0.0);
    if nv == 0 {
        return;
    }
    w.prepare(m);
    w.forward_pass(m, d, None, true, true);
    w.crb.clear();
    w.crb.extend_from_slice(&d.cinert);
    for b in (1..m.nbody).rev() {
        let p = m.body_parentid[b];
        if p != 0 {
            let c = w.crb[b];
            for (x, y) in w.crb[p].iter_mut().zip(c.iter()) {
                *x += *y;
            }
        }
    }
    for j in 0..nv {
        if translation_invariant(m, j) {
            continue;
        }
        let bj = m.dof_bodyid[j];
        let last = w.last[bj];
        let s = d.cdof[j];
        let g = w.grp[j];
        let in_d = |k: usize| {
            let bk = m.dof_bodyid[k];
            (bk > bj && bk <= last) || (bk == bj && k >= g)
        };
        // S_j × S_l for l ∈ D(j) (zero otherwise), reused by every row
        w.cs.clear();
        w.cs.resize(nv, V6::zeros());
        for l in m.body_dofadr[bj]..nv {
            if m.dof_bodyid[l] > last {
                break;
            }
            if in_d(l) {
                w.cs[l] = cross_motion(&s, &d.cdof[l]);
            }
        }
        let cs = &w.cs;
        let row = |k: usize, y: V6, wv: V6, out: &mut DMatrix<f64>| {
            let mut adr = m.dof_Madr[k];
            let mut l = Some(k);
            while let Some(ll) = l {
                out[(j, adr)] = d.cdof[ll].dot(&y) + cs[ll].dot(&wv);
                adr += 1;
                l = moreau::pipeline::dof_parent(m, ll);
            }
        };
        for b in bj..=last {
            let c = &w.crb[b];
            let k0 = m.body_dofadr[b];
            for k in k0..k0 + m.body_dofnum[b] {
                let sk = &d.cdof[k];
                let wv = inert_mul(c, sk);
                let mut y = cross_force(&s, &wv);
                if !in_d(k) {
                    y -= inert_mul(c, &cross_motion(&s, sk));
                }
                row(k, y, wv, out);
            }
        }
        let cj = w.crb[bj];
        let mut p = m.body_parentid[bj];
        while p != 0 {
            let k0 = m.body_dofadr[p];
            for k in k0..k0 + m.body_dofnum[p] {
                let sk = &d.cdof[k];
                let wv = inert_mul(&w.crb[p], sk);
                let y =
                    cross_force(&s, &inert_mul(&cj, sk)) - inert_mul(&cj, &cross_motion(&s, sk));
                row(k, y, wv, out);
            }
            p = m.body_parentid[p];
        }
    }
}

/// The counterpart of Pinocchio's `computeRNEADerivatives(q, v, a)`: from `qpos`, `qvel` of `d`
/// and `qacc`, runs kinematics, COM quantities, `M` (CRB), `cvel`/`cdof_dot`, then writes
/// `dq = ∂(M a + c)/∂q`, `dv = ∂c/∂v` (rows outputs, row-major `nv × nv` in `dv`) and leaves `M`
/// in `d.qM` (`dv` by [`d_bias_vel`]). No passive, actuator or constraint terms (see [`crate::inverse_pos`] for those).
pub fn rnea_derivatives(
    m: &Model,
    d: &mut Data<f64>,
    qacc: &[f64],
    w: &mut Work,
    dq: &mut DMatrix<f64>,
    dv: &mut [f64],
) {
    moreau::pipeline::kinematics(m, d);
    moreau::pipeline::com_pos(m, d);
    moreau::pipeline::crb(m, d);
    moreau::pipeline::com_vel(m, d);
    d_smooth_pos(m, d, Some(qacc), Terms::default(), w, dq);
    d_bias_vel(m, d, w, dv);
}

/// `a · b` of two 6-vectors, written out (nalgebra's generic `dot` iterates).
#[inline(always)]
fn dot6(a: &V6, b: &V6) -> f64 {
    (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) + (a[3] * b[3] + a[4] * b[4] + a[5] * b[5])
}

/// `A B` of 6×6 matrices, written out over the column-major storage (the reference of
/// [`mul_motion_cross`]'s test).
#[cfg(test)]
fn mul66(a: &Matrix6<f64>, b: &Matrix6<f64>) -> Matrix6<f64> {
    let (a, bs) = (a.as_slice(), b.as_slice());
    let mut c = Matrix6::zeros();
    for (cj, bj) in c.as_mut_slice().chunks_exact_mut(6).zip(bs.chunks_exact(6)) {
        for (k, &bkj) in bj.iter().enumerate() {
            for (x, &aik) in cj.iter_mut().zip(&a[6 * k..6 * k + 6]) {
                *x += aik * bkj;
            }
        }
    }
    c
}

/// `A x` (6×6 times a 6-vector), written out.
#[inline(always)]
fn mul6(a: &Matrix6<f64>, x: &V6) -> V6 {
    let a = a.as_slice();
    let mut y = V6::zeros();
    for k in 0..6 {
        for i in 0..6 {
            y[i] += a[6 * k + i] * x[k];
        }
    }
    y
}

/// `Aᵀ x` (6×6 transposed times a 6-vector), written out.
#[inline(always)]
fn tr_mul6(a: &Matrix6<f64>, x: &V6) -> V6 {
    // (an array filled in a loop: `V6::from_fn` calls its closure out of line)
    let a: &[f64; 36] = a.as_slice().try_into().expect("6×6");
    let x: &[f64; 6] = x.as_slice().try_into().expect("6-vector");
    let mut y = [0.0; 6];
    for (i, y) in y.iter_mut().enumerate() {
        let c = &a[6 * i..6 * i + 6];
        *y = (c[0] * x[0] + c[1] * x[1] + c[2] * x[2]) + (c[3] * x[3] + c[4] * x[4] + c[5] * x[5]);
    }
    V6::from(y)
}

/// `g[p] += g[b]` (`p < b`: a body's parent comes first) without copying `g[b]` out.
#[inline(always)]
fn add_child(g: &mut [Matrix6<f64>], p: usize, b: usize) {
    let (lo, hi) = g.split_at_mut(b);
    add66(&mut lo[p], &hi[0]);
}

/// `a += b` of 6×6 matrices over their storage.
#[inline(always)]
fn add66(a: &mut Matrix6<f64>, b: &Matrix6<f64>) {
    for (x, y) in a.as_mut_slice().iter_mut().zip(b.as_slice()) {
        *x += *y;
    }
}

/// The 6×6 matrix of `u ↦ v × u` (motion cross product, angular part first; the reference of
/// [`mul_motion_cross`]'s test).
#[cfg(test)]
fn motion_cross(v: &V6) -> Matrix6<f64> {
    let (w, l) = (skew(&ang(v)), skew(&lin(v)));
    let mut x = Matrix6::zeros();
    x.fixed_view_mut::<3, 3>(0, 0).copy_from(&w);
    x.fixed_view_mut::<3, 3>(3, 0).copy_from(&l);
    x.fixed_view_mut::<3, 3>(3, 3).copy_from(&w);
    x
}

/// The 6×6 matrix `H̄(f)` with `s ×* f = −H̄(f) s` (force cross product as a linear map of the
/// motion `s`; antisymmetric).
fn force_bar(f: &V6) -> Matrix6<f64> {
    let (a, l) = (skew(&ang(f)), skew(&lin(f)));
    let mut x = Matrix6::zeros();
    x.fixed_view_mut::<3, 3>(0, 0).copy_from(&a);
    x.fixed_view_mut::<3, 3>(0, 3).copy_from(&l);
    x.fixed_view_mut::<3, 3>(3, 0).copy_from(&l);
    x
}

/// The symmetric 6×6 matrix of [`inert_mul`] (`cinert` layout).
fn inertia_matrix(c: &[f64; 10]) -> Matrix6<f64> {
    let h = skew(&Vector3::new(c[6], c[7], c[8]));
    let mut x = Matrix6::zeros();
    x.fixed_view_mut::<3, 3>(0, 0).copy_from(&Matrix3::new(
        c[0], c[3], c[4], c[3], c[1], c[5], c[4], c[5], c[2],
    ));
    x.fixed_view_mut::<3, 3>(0, 3).copy_from(&h);
    x.fixed_view_mut::<3, 3>(3, 0).copy_from(&h.transpose());
    x.fixed_view_mut::<3, 3>(3, 3)
        .copy_from(&(Matrix3::identity() * c[9]));
    x
}

/// `A X(v)` (column-major storage) for a 6×6 `A` and the motion cross-product matrix
/// `X(v) = [[W, 0], [L, W]]` (`W = [ω]×`, `L = [v_lin]×`, as `motion_cross`), written over the
/// storage: each entry sums, in ascending `k` from `+0`, only the products with `X`'s
/// structurally nonzero entries (the off-diagonal ones of `[u]×`). The products left out are
/// `±0` (finite `A`), and a sum that starts at `+0` is never `−0` under round-to-nearest, so
/// adding them would change nothing: the result equals `mul66(a, &motion_cross(v))` to the bit.
#[inline(always)]
fn mul_motion_cross(a: &Matrix6<f64>, v: &V6) -> [f64; 36] {
    // the two rows q ≠ c of column c of [u]× (its nonzero positions)
    const OFF: [[usize; 2]; 3] = [[1, 2], [0, 2], [0, 1]];
    let a: &[f64; 36] = a.as_slice().try_into().expect("6×6");
    let w = skew_rows([v[0], v[1], v[2]]);
    let l = skew_rows([v[3], v[4], v[5]]);
    let mut k = [0.0; 36];
    for c in 0..3 {
        let [q0, q1] = OFF[c];
        let (w0, w1, l0, l1) = (w[q0][c], w[q1][c], l[q0][c], l[q1][c]);
        for r in 0..6 {
            let mut x = 0.0;
            x += a[6 * q0 + r] * w0;
            x += a[6 * q1 + r] * w1;
            x += a[6 * (3 + q0) + r] * l0;
            x += a[6 * (3 + q1) + r] * l1;
            k[6 * c + r] = x;
            let mut y = 0.0;
            y += a[6 * (3 + q0) + r] * w0;
            y += a[6 * (3 + q1) + r] * w1;
            k[6 * (3 + c) + r] = y;
        }
    }
    k
}

/// `[u]×` by rows, entries as `quat::skew`'s.
#[inline(always)]
fn skew_rows(u: [f64; 3]) -> [[f64; 3]; 3] {
    [[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]]
}

/// `B` with `B ψ = −I (ψ × v) − ψ ×* h − v ×* (I ψ)` for a body of inertia `i` (6×6), velocity
/// `v` and momentum `h = I v`: `B = I X(v) + (I X(v))ᵀ + H̄(h)` (`X(v)ᵀ = −(v ×*)`), formed as
/// `(H̄(h) + K) + Kᵀ` entry by entry with `K` from [`mul_motion_cross`].
fn vel_map(i: &Matrix6<f64>, v: &V6, h: &V6) -> Matrix6<f64> {
    let k = mul_motion_cross(i, v);
    let ha = skew_rows([h[0], h[1], h[2]]);
    let hl = skew_rows([h[3], h[4], h[5]]);
    // H̄(h) = [[[h_ang]×, [h_lin]×], [[h_lin]×, 0]] (as force_bar), column-major
    let mut b = [0.0; 36];
    for c in 0..3 {
        for r in 0..3 {
            b[6 * c + r] = ha[r][c];
            b[6 * (c + 3) + r] = hl[r][c];
            b[6 * c + r + 3] = hl[r][c];
        }
    }
    for c in 0..6 {
        for r in 0..6 {
            b[6 * c + r] = (b[6 * c + r] + k[6 * c + r]) + k[6 * r + c];
        }
    }
    Matrix6::from_column_slice(&b)
}

/// `∂qfrc_bias/∂qvel` (row-major `nv × nv`, rows outputs; overwrites `out`), the same recursion
/// as [`d_smooth_pos`]: with `e_j` the velocity after `j`'s joint group, for bodies `b`
/// downstream of `j`: `∂v_b/∂q̇_j = S_j`, `∂a_b/∂q̇_j = Ṡ_j + S_j × (v_b − e_j)` (the `cdof_dot`
/// of later groups see `S_j` in their velocity), `∂f_b = I ∂a_b + S_j ×* h_b + v_b ×* I S_j`,
/// and `∂τ_k = S_k · ∂F_{b(k)}`. Needs `cdof`, `cdof_dot`, `cinert`, `cvel`.
///
/// `∂f_b = I_b σ_j + G_b S_j` with `σ_j = Ṡ_j − S_j × e_j` and the body's linear map
/// `G_b s = I_b (s × v_b) + s ×* h_b + v_b ×* I_b s`, so the subtree sum is
/// `∂F_b = Ic_b σ_j + Gc_b S_j` with the composite `Ic_b`, `Gc_b` (sums over `b`'s subtree),
/// and `∂τ_k = (Ic_b S_k) · σ_j + (Gc_bᵀ S_k) · S_j` (`Ic` is symmetric): two 6-vectors per
/// dof `k` formed once, a 12-term dot product per entry.
pub fn d_bias_vel(m: &Model, d: &Data<f64>, w: &mut Work, out: &mut [f64]) {
    let nv = m.nv;
    out.iter_mut().for_each(|x| *x = 0.0);
    if nv == 0 {
        return;
    }
    w.prepare(m);
    w.forward_pass(m, d, None, true, true);
    let nb = m.nbody;
    w.ic.clear();
    w.ic.extend_from_slice(&d.cinert[..nb]);
    // the composite B = −G (kept in `gv` for d_smooth_pos; G's products are B's negated, to
    // the bit: negation is exact and commutes with rounding)
    w.gv.clear();
    w.gv.resize(nb, Matrix6::zeros());
    w.gv_vel.clear();
    w.gv_vel.resize(nb, V6::zeros());
    w.gv_inert.clear();
    w.gv_inert.resize(nb, [0.0; 10]);
    // (bodies no dof moves skipped, as in d_rne_pos)
    for b in 1..nb {
        if !w.moving[b] {
            continue;
        }
        let c = &d.cinert[b];
        let v = &d.cvel[b];
        let h = inert_mul(c, v);
        w.gv[b] = vel_map(&inertia_matrix(c), v, &h);
        w.gv_vel[b] = *v;
        w.gv_inert[b] = *c;
    }
    for b in (1..nb).rev() {
        let p = m.body_parentid[b];
        if w.moving[p] {
            let ib = w.ic[b];
            for (x, y) in w.ic[p].iter_mut().zip(ib.iter()) {
                *x += *y;
            }
            add_child(&mut w.gv, p, b);
        }
    }
    w.gv_set = true;
    w.pk.clear();
    w.pk.extend((0..nv).map(|k| {
        let b = m.dof_bodyid[k];
        let s = &d.cdof[k];
        [inert_mul(&w.ic[b], s), -tr_mul6(&w.gv[b], s)]
    }));
    // e_j: velocity after the group of j
    for j in 0..nv {
        let g = w.grp[j];
        let mut e = w.u[j];
        let mut k = g;
        while k < nv && w.grp[k] == g {
            e += d.cdof[k] * d.qvel[k];
            k += 1;
        }
        w.al[j] = e;
    }
    for j in 0..nv {
        if translation_invariant(m, j) {
            continue;
        }
        let bj = m.dof_bodyid[j];
        let last = w.last[bj];
        let s = d.cdof[j];
        let sig = d.cdof_dot[j] - cross_motion(&s, &w.al[j]);
        // the dofs of bodies bj..=last (bj's subtree) are one contiguous range
        let k0 = m.body_dofadr[bj];
        let kn = (bj..=last)
            .rev()
            .find(|&b| m.body_dofnum[b] > 0)
            .map_or(k0, |b| m.body_dofadr[b] + m.body_dofnum[b]);
        for (k, p) in (k0..kn).zip(&w.pk[k0..kn]) {
            out[k * nv + j] = dot6(&p[0], &sig) + dot6(&p[1], &s);
        }
        let dfr = inert_mul(&w.ic[bj], &sig) - mul6(&w.gv[bj], &s);
        let mut p = m.body_parentid[bj];
        while p != 0 {
            let k0 = m.body_dofadr[p];
            for k in k0..k0 + m.body_dofnum[p] {
                out[k * nv + j] = dot6(&d.cdof[k], &dfr);
            }
            p = m.body_parentid[p];
        }
    }
}

/// A joint's dofs in the groups that move one frame together, as (offset from the joint's first
/// dof, count): a free joint's translation and rotation, a ball joint's rotation, a hinge's or a
/// slide's one dof.
pub(crate) fn dof_groups(t: JointType) -> &'static [(usize, usize)] {
    match t {
        JointType::Free => &[(0, 3), (3, 3)],
        JointType::Ball => &[(0, 3)],
        _ => &[(0, 1)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mul_motion_cross` against the full product with the dense `motion_cross` matrix, bit for
    /// bit, on matrices and velocities with zero, negative-zero and nonzero entries (the
    /// skipped products are the `±0` ones).
    #[test]
    fn mul_motion_cross_is_the_full_product() {
        let mut s = 11u64;
        let mut next = |zero_every: u64| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match (s >> 33) % zero_every {
                0 => 0.0,
                1 => -0.0,
                _ => ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0,
            }
        };
        for t in 0..500 {
            let z = 2 + (t % 5) as u64;
            let a = Matrix6::from_fn(|_, _| next(z));
            let v = V6::from_fn(|_, _| next(z));
            let full = mul66(&a, &motion_cross(&v));
            let k = mul_motion_cross(&a, &v);
            let bits = |x: &[f64]| x.iter().map(|y| y.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(full.as_slice()), bits(&k), "case {t}");
        }
    }
}
