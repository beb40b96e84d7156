//! Analytic `∂(Jᵀ f)/∂q` of the constraint force at fixed `qacc`, `qvel` (Computation "Reduced
//! primal problem"), for the rows whose `q`-dependence is the contact geometry, the kinematic
//! tree and the row distances; [`crate::inverse_pos`] falls back to its restricted dual pass otherwise.
//!
//! With `jar = J a − aref`, `aref = −B J v − K imp(r) (pos − margin)`, `f = f(jar; D)` and
//! `D = 1/R ∝ imp/(1 − imp)` (`r`: the impedance argument, a contact's distance), per tangent
//! direction `q_j` (states fixed away from switches):
//! - `∂f = −H ∂jar + f ρ ∂r`, `ρ = imp'/(imp (1 − imp))`: every state's force is homogeneous of
//!   degree 1 in the block's `D` (quadratic `−D jar`, the cone zone `∝ D₀`; linear friction
//!   rows have `r = 0` fixed);
//! - `∂jar = ∂J a + B ∂J v + K (imp + imp' (pos − margin)) ∂pos`;
//! - `∂(Jᵀ f) = ∂Jᵀ f + Jᵀ ∂f`.
//!
//! Rows with constant `J` (hinge/slide limits, fixed-tendon limits, single-joint and
//! single-fixed-tendon equalities, friction loss): `∂J = 0`, `∂pos = J` (`pos` is the signed
//! joint/tendon distance of which `J` is the gradient; 0 for friction loss).
//!
//! Contacts: rows are constant combinations of `Jc = [F (Jp(b₂, p) − Jp(b₁, p)); F (Jr(b₂) −
//! Jr(b₁))]` (`F` the frame, `p` the point). `dist`, `p`, `F` are functions of the two geoms'
//! poses: their 13 × 12 Jacobian comes from one `Dual64` run of the pair's collider per pose
//! direction (the primitive colliders are generic over the scalar; the convex ones re-evaluate
//! each contact from its features, `moreau::collision::cvxdiff`) (translation and world-axis rotation of each moving geom), chained with
//! the rigid motion `S_j` of each geom. With `V_b(w) = Σ_{k ≼ b} S_k w_k` (at the frozen
//! reference point of the tree, as in [`crate::rne`]) and `U_j(w)` the same sum before `j`'s
//! joint group, `∂V_b(w)/∂q_j = S_j × (V_b(w) − U_j(w))` for `j ≼ b`, and
//! `∂Jc w = Σ s [∂F v_p + F (∂v + ∂ω × (p − c) + ω × ∂p); ∂F ω + F ∂ω]`.
//! `Jᵀ f = Σ_k S_k · W_{b(k)}` with the subtree sum `W` of the contact wrenches
//! `s [(p − c) × φ + τ; φ]` (`φ`, `τ`: the frame's force and torque); so
//! `∂(∂Jᵀ f)_k = (S_j × S_k) · W_{b(k)} [k ∈ D(j)] + S_k · ∂W_{b(k)}`, and
//! `(S_j × S_k) · W = −S_k · (S_j ×* W)`.
//!
//! Per contact, once: the geometry Jacobian chained with the pose map of each side
//! (`∂/∂S` of a rigid motion `S = [ω; v]` of the geom: rows `g_rot − g_tr × x`, `g_tr`), the
//! relative point and angular velocities of `a + B v` (one field when all the contact's rows
//! share `B`, which `∂jar` is linear in; `a` and `v` apart otherwise). Per direction `j`,
//! `Jᵀ ∂f` of a contact's rows is the wrench of the frame force `Σ_r coef_r ∂f_r` at the point
//! (its rows are constant combinations of `Jc`), added to `∂W`; constant-`J` rows use `J`.
//!
//! Not covered (reported by [`Support::constraint_pos`](crate::support::Support::constraint_pos)): ball-joint limits, spatial-tendon rows, polynomial (two-object) joint/tendon
//! equalities, connect/weld.

#![allow(clippy::needless_range_loop)]

use crate::work::{ConstraintWork as Work, Cp, Work as RneaWork, NG};
use moreau::data::ConstraintType;
use moreau::model::Model;
use moreau::pipeline::{
    ang, body_last_dof, collide_geoms, contact_nrow, cross_force, cross_motion, join, lin,
    pair_limit,
};
use moreau::Data;
use nalgebra::{DMatrix, Matrix3, Vector3, Vector6};
use num_dual::Dual64;

type V6 = Vector6<f64>;

/// `NG × 12` Jacobians of the contact geometry for every contact of `d`, by `Dual64` runs of
/// each pair's collider. False if a pair's dual run does not reproduce its contacts.
fn geometry(m: &Model, d: &Data<f64>, dd: &mut Data<Dual64>, w: &mut Work) -> bool {
    let nc = d.contact.len();
    w.geo.clear();
    w.geo.resize(nc, [0.0; NG * 12]);
    let mut i = 0;
    while i < nc {
        let g = d.contact[i].geom;
        let mut n = 1;
        while i + n < nc && d.contact[i + n].geom == g {
            n += 1;
        }
        if !d.contact[i..i + n].iter().any(|c| c.efc_address >= 0) {
            i += n;
            continue;
        }
        let lim = pair_limit(m, g[0], g[1]);
        for gg in g {
            dd.geom_xpos[gg] = d.geom_xpos[gg].map(Dual64::from);
            dd.geom_xmat[gg] = d.geom_xmat[gg].map(Dual64::from);
        }
        // the runs below share the f64 poses: the convex colliders search and classify once
        w.collision.reuse_f64(true);
        let same = pair_directions(m, d, dd, w, g, lim, i, n);
        w.collision.reuse_f64(false);
        if !same {
            return false;
        }
        i += n;
    }
    true
}

/// The dual runs of the pair `g` (contacts `i..i + n` of `d`), one per pose direction of each
/// moving geom, into `w.geo`. False if a run does not reproduce the pair's contacts.
#[allow(clippy::too_many_arguments)]
fn pair_directions(
    m: &Model,
    d: &Data<f64>,
    dd: &mut Data<Dual64>,
    w: &mut Work,
    g: [usize; 2],
    lim: f64,
    i: usize,
    n: usize,
) -> bool {
    for (side, gg) in g.into_iter().enumerate() {
        if body_last_dof(m, m.geom_bodyid[gg]).is_none() {
            continue;
        }
        for dir in 0..6 {
            let e = Vector3::ith(dir % 3, 1.0);
            if dir < 3 {
                dd.geom_xpos[gg][dir].eps = 1.0;
            } else {
                let dm = e.cross_matrix() * d.geom_xmat[gg];
                for (x, y) in dd.geom_xmat[gg].iter_mut().zip(dm.iter()) {
                    x.eps = *y;
                }
            }
            w.out.clear();
            let _ = collide_geoms(m, dd, g[0], g[1], lim, &mut w.out, &mut w.collision);
            if w.out.len() != n
                || w.out.iter().zip(&d.contact[i..i + n]).any(|(a, b)| {
                    a.geom != b.geom || a.dist.re != b.dist || a.pos.map(|x| x.re) != b.pos
                })
            {
                return false;
            }
            let col = side * 6 + dir;
            for (k, c) in w.out.iter().enumerate() {
                let gj = &mut w.geo[i + k];
                gj[col] = c.dist.eps;
                for a in 0..3 {
                    gj[(1 + a) * 12 + col] = c.pos[a].eps;
                    for b in 0..3 {
                        gj[(4 + 3 * a + b) * 12 + col] = c.frame[(a, b)].eps;
                    }
                }
            }
            if dir < 3 {
                dd.geom_xpos[gg][dir].eps = 0.0;
            } else {
                for x in dd.geom_xmat[gg].iter_mut() {
                    x.eps = 0.0;
                }
            }
        }
    }
    true
}

/// Row coefficients of a contact row on `Jc` (6 entries): `(index, coefficient)` pairs.
fn row_coef(ty: ConstraintType, fr: &[f64; 5], j: usize) -> [(usize, f64); 2] {
    if ty == ConstraintType::ContactPyramidal {
        let e = j / 2 + 1;
        let mu = if j & 1 == 0 { fr[e - 1] } else { -fr[e - 1] };
        [(0, 1.0), (e, mu)]
    } else {
        [(j, 1.0), (j, 0.0)]
    }
}

/// `Σ_k m[o][k] x[k]` for the 6 entries of `x` (`m`: rows of 6).
#[inline(always)]
fn row6(m: &[f64], o: usize, x: &V6) -> f64 {
    let r = &m[o * 6..o * 6 + 6];
    r[0] * x[0] + r[1] * x[1] + r[2] * x[2] + r[3] * x[3] + r[4] * x[4] + r[5] * x[5]
}

/// Subtracts `∂qfrc_constraint/∂q` (rows outputs, tangent columns) from `out` at `qacc`,
/// `qvel` of `d`. False (and `out` untouched) if [`Support::constraint_pos`](crate::support::Support::constraint_pos) refuses or a contact pair's dual
/// collision does not reproduce the contacts; the caller then falls back.
pub fn add_constraint_pos(
    m: &Model,
    d: &Data<f64>,
    rw: &mut RneaWork,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) -> bool {
    if !crate::support::Support::constraint_pos(m, d).is_covered() {
        return false;
    }
    add_constraint_pos_rows(m, d, rw, w, out)
}

/// [`add_constraint_pos`] of the rows [`Support::constraint_pos`](crate::support::Support::constraint_pos)
/// covers, the others (connect/weld and two-object equalities, spatial-tendon rows, ball-joint
/// limits: none of them a contact) left out: `H` couples rows of one contact or one row only,
/// so `∂(Jᵀ f)/∂q` is the sum of the rows' own terms and the caller adds the others'. False
/// (and `out` untouched) if a contact has no differentiable collider or a pair's dual
/// collision does not reproduce its contacts.
pub(crate) fn add_covered_constraint_pos(
    m: &Model,
    d: &Data<f64>,
    rw: &mut RneaWork,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) -> bool {
    use crate::support::Support;
    if (0..d.nefc).any(|r| Support::constraint_pos_row(m, d, r) == Support::Collider) {
        return false;
    }
    add_constraint_pos_rows(m, d, rw, w, out)
}

/// [`add_constraint_pos`] without the support check: rows it does not cover are skipped
/// (their constant-`J` terms are not formed; every contact must have a differentiable collider).
/// With `w.rec` it also records the rows' `∂jar/∂q` and `∂r/∂q` (see `ConstraintWork::rec`).
pub(crate) fn add_constraint_pos_rows(
    m: &Model,
    d: &Data<f64>,
    rw: &mut RneaWork,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) -> bool {
    let (nv, nb, n) = (m.nv, m.nbody, d.nefc);
    if n == 0 {
        return true;
    }
    let dd = rw.dual_data(m);
    if !geometry(m, d, dd, w) {
        return false;
    }
    let (h, f) = match w.pre.take() {
        Some(x) => x,
        None => crate::constraint::constraint_hessian_force(m, d),
    };
    // V_b(a), U_j(a); V_b(v), U_j(v)
    rw.prepare(m);
    rw.forward_pass(m, d, Some(&d.qacc), false, false);
    w.va.clone_from(&rw.acc);
    w.ua.clone_from(&rw.al);
    rw.prepare(m);
    rw.forward_pass(m, d, None, true, false);
    w.vv.clone_from(&rw.vel);
    w.uv.clone_from(&rw.u);
    // rows: K (imp + imp' (pos − margin)), f ρ, H's blocks, constant-J rows expanded
    w.jd.resize(n * nv, 0.0);
    w.kf.clear();
    w.frho.clear();
    w.hblk.clear();
    w.cst.clear();
    for r in 0..n {
        let [k, _, imp, dimp] = d.efc_KBIP[r];
        w.kf.push(k * (imp + dimp * (d.efc_pos[r] - d.efc_margin[r])));
        let rho = dimp / (imp * (1.0 - imp));
        w.frho.push(if rho != 0.0 && f[r] != 0.0 && !w.no_rho {
            f[r] * rho
        } else {
            0.0
        });
        let lo = (0..n).find(|&s| h[(r, s)] != 0.0).unwrap_or(r);
        let hi = (lo..n)
            .rev()
            .find(|&s| h[(r, s)] != 0.0)
            .map_or(lo, |s| s + 1);
        w.hblk.push((lo, hi));
        if matches!(
            d.efc_type[r],
            ConstraintType::Equality | ConstraintType::LimitJoint | ConstraintType::LimitTendon
        ) && crate::support::Support::constraint_pos_row(m, d, r).is_covered()
        {
            d.efc_J_row(r, nv).expand(&mut w.jd[r * nv..(r + 1) * nv]);
            w.cst.push(r);
        }
    }
    // per contact: forces, the static subtree wrenches, the geometry chained with the pose map
    let z6 = V6::zeros();
    w.wtot.clear();
    w.wtot.resize(nb, z6);
    w.cp.clear();
    w.cb.clear();
    for (ci, c) in d.contact.iter().enumerate() {
        let Ok(r0) = usize::try_from(c.efc_address) else {
            continue;
        };
        let ty = d.efc_type[r0];
        let nrow = contact_nrow(c.dim, m.opt.cone);
        let mut fc = [0.0; 6];
        for j in 0..nrow {
            for (idx, cf) in row_coef(ty, &c.friction, j) {
                fc[idx] += cf * f[r0 + j];
            }
        }
        let fct = Vector3::new(fc[0], fc[1], fc[2]);
        let fcr = Vector3::new(fc[3], fc[4], fc[5]);
        let phi = c.frame.transpose() * fct;
        let tau = c.frame.transpose() * fcr;
        let body = [m.geom_bodyid[c.geom[0]], m.geom_bodyid[c.geom[1]]];
        let b = d.efc_KBIP[r0][1];
        let one_b = (r0..r0 + nrow).all(|r| d.efc_KBIP[r][1] == b);
        let mut cp = Cp {
            ci,
            r0,
            nrow,
            body,
            slot: [usize::MAX; 2],
            r: [Vector3::zeros(); 2],
            gp: [[0.0; NG * 6]; 2],
            one_b,
            b,
            dvp: [Vector3::zeros(); 2],
            dom: [Vector3::zeros(); 2],
            fct,
            fcr,
            phi,
            frame: c.frame,
        };
        let gj = &w.geo[ci];
        for (side, s) in [(1usize, 1.0), (0usize, -1.0)] {
            let bd = body[side];
            let org = d.subtree_com[m.body_rootid[bd]];
            let r = c.pos - org;
            cp.r[side] = r;
            w.wtot[bd] += join(&(r.cross(&phi) + tau), &phi) * s;
            // relative velocities of the point: a + B v (one field) or a and v
            let (va, vv) = (w.va[bd], w.vv[bd]);
            let fields = if one_b { [va + vv * b, z6] } else { [va, vv] };
            for (k, v) in fields.iter().enumerate() {
                let om = ang(v);
                cp.dvp[k] += (lin(v) + om.cross(&r)) * s;
                cp.dom[k] += om * s;
            }
            if body_last_dof(m, bd).is_none() {
                continue;
            }
            cp.slot[side] = match w.cb.iter().position(|&x| x == bd) {
                Some(i) => i,
                None => {
                    w.cb.push(bd);
                    w.cb.len() - 1
                }
            };
            // pose tangent of the geom under S = [ω; v]: translation v + ω × x, rotation ω,
            // so ∂/∂ω = G_rot − G_tr [x]× (row o: g_rot − g_tr × x), ∂/∂v = G_tr
            let x = d.geom_xpos[c.geom[side]] - org;
            let gp = &mut cp.gp[side];
            for o in 0..NG {
                let g = &gj[o * 12 + side * 6..o * 12 + side * 6 + 6];
                let gt = Vector3::new(g[0], g[1], g[2]);
                let gr = Vector3::new(g[3], g[4], g[5]) - gt.cross(&x);
                gp[o * 6..o * 6 + 3].copy_from_slice(gr.as_slice());
                gp[o * 6 + 3..o * 6 + 6].copy_from_slice(gt.as_slice());
            }
        }
        w.cp.push(cp);
    }
    for b in (1..nb).rev() {
        let p = m.body_parentid[b];
        if p != 0 {
            let x = w.wtot[b];
            w.wtot[p] += x;
        }
    }
    w.cacc.resize(w.cb.len(), z6);
    w.ctouch.resize(w.cb.len(), false);
    w.djar.resize(n, 0.0);
    w.dr.resize(n, 0.0);
    w.dfm.resize(n, 0.0);
    w.touched.resize(w.cp.len(), false);
    if w.rec {
        w.rec_djar.clear();
        w.rec_djar.resize(n * nv, 0.0);
        w.rec_dr.clear();
        w.rec_dr.resize(n * nv, 0.0);
    }
    for j in 0..nv {
        let bj = m.dof_bodyid[j];
        let last = rw.last[bj];
        let sj = d.cdof[j];
        let in_sub = |b: usize| b >= bj && b <= last;
        w.cacc.fill(z6);
        w.ctouch.fill(false);
        for (cpi, cp) in w.cp.iter().enumerate() {
            let inb = [in_sub(cp.body[0]), in_sub(cp.body[1])];
            w.touched[cpi] = inb[0] || inb[1];
            if !w.touched[cpi] {
                continue;
            }
            // geometry derivative: dist, point, frame
            let mut dg = [0.0; NG];
            for side in 0..2 {
                if inb[side] {
                    for (o, x) in dg.iter_mut().enumerate() {
                        *x += row6(&cp.gp[side], o, &sj);
                    }
                }
            }
            let ddist = dg[0];
            let dp = Vector3::new(dg[1], dg[2], dg[3]);
            let df = Matrix3::from_row_slice(&dg[4..13]);
            let fr = &cp.frame;
            // ∂(Jc W) for the velocity fields W: ∂F Δv_p + F (Δω × ∂p + Σ s ∂(point velocity))
            let nf = if cp.one_b { 1 } else { 2 };
            let mut dj = [[0.0; 6]; 2];
            for k in 0..nf {
                let mut tw = cp.dom[k].cross(&dp);
                let mut rwv = Vector3::zeros();
                for (side, s) in [(1usize, 1.0), (0usize, -1.0)] {
                    if !inb[side] {
                        continue;
                    }
                    let bd = cp.body[side];
                    let (vb, ub) = match (cp.one_b, k) {
                        (true, _) => (w.va[bd] + w.vv[bd] * cp.b, w.ua[j] + w.uv[j] * cp.b),
                        (false, 0) => (w.va[bd], w.ua[j]),
                        _ => (w.vv[bd], w.uv[j]),
                    };
                    let dv = cross_motion(&sj, &(vb - ub));
                    let dom = ang(&dv);
                    tw += (lin(&dv) + dom.cross(&cp.r[side])) * s;
                    rwv += dom * s;
                }
                let t = df * cp.dvp[k] + fr * tw;
                let rr = df * cp.dom[k] + fr * rwv;
                dj[k] = [t[0], t[1], t[2], rr[0], rr[1], rr[2]];
            }
            // ∂Jᵀ f: the wrench derivative at each side's body
            let dphi = df.tr_mul(&cp.fct);
            let dtau = df.tr_mul(&cp.fcr);
            let lin_part = dp.cross(&cp.phi) + dtau;
            for (side, s) in [(1usize, 1.0), (0usize, -1.0)] {
                let u = cp.slot[side];
                if u != usize::MAX {
                    w.cacc[u] += join(&(lin_part + cp.r[side].cross(&dphi)), &dphi) * s;
                    w.ctouch[u] = true;
                }
            }
            let ty = d.efc_type[cp.r0];
            let fric = &d.contact[cp.ci].friction;
            for k in 0..cp.nrow {
                let r = cp.r0 + k;
                let mut x = 0.0;
                for (idx, cf) in row_coef(ty, fric, k) {
                    x += cf
                        * if cp.one_b {
                            dj[0][idx]
                        } else {
                            dj[0][idx] + d.efc_KBIP[r][1] * dj[1][idx]
                        };
                }
                w.djar[r] = x + w.kf[r] * ddist;
                w.dr[r] = ddist;
                if w.rec {
                    w.rec_djar[j * n + r] = w.djar[r];
                    w.rec_dr[j * n + r] = ddist;
                }
            }
        }
        // Jᵀ ∂f = Jᵀ (−H ∂jar + diag(f ρ) ∂r) (H block diagonal within a contact): for contact
        // rows as the wrench of the frame force ∂f at the point (rows = combinations of Jc)
        for (cpi, cp) in w.cp.iter().enumerate() {
            if !w.touched[cpi] {
                continue;
            }
            let rows = cp.r0..cp.r0 + cp.nrow;
            for r in rows.clone() {
                let (lo, hi) = w.hblk[r];
                let mut x = 0.0;
                for s in lo..hi {
                    x += h[(r, s)] * w.djar[s];
                }
                w.dfm[r] = w.frho[r] * w.dr[r] - x;
            }
            let ty = d.efc_type[cp.r0];
            let fric = &d.contact[cp.ci].friction;
            let mut fc = [0.0; 6];
            for k in 0..cp.nrow {
                for (idx, cf) in row_coef(ty, fric, k) {
                    fc[idx] += cf * w.dfm[cp.r0 + k];
                }
            }
            let phi = cp.frame.tr_mul(&Vector3::new(fc[0], fc[1], fc[2]));
            let tau = cp.frame.tr_mul(&Vector3::new(fc[3], fc[4], fc[5]));
            for (side, s) in [(1usize, 1.0), (0usize, -1.0)] {
                let u = cp.slot[side];
                if u != usize::MAX {
                    w.cacc[u] += join(&(cp.r[side].cross(&phi) + tau), &phi) * s;
                    w.ctouch[u] = true;
                }
            }
        }
        let col = &mut out.as_mut_slice()[j * nv..(j + 1) * nv];
        // rows with constant J: ∂jar = K (imp + imp' (pos − margin)) J, ∂r = J
        for &r in &w.cst {
            let jr = w.jd[r * nv + j];
            if w.rec {
                w.rec_djar[j * n + r] = w.kf[r] * jr;
                w.rec_dr[j * n + r] = jr;
            }
            if jr != 0.0 {
                let (lo, hi) = w.hblk[r];
                let mut x = 0.0;
                for s in lo..hi {
                    // H couples no constant-J row with a contact row
                    x += h[(r, s)] * w.kf[s] * w.jd[s * nv + j];
                }
                let dfm = w.frho[r] * jr - x;
                for (o, a) in col.iter_mut().zip(&w.jd[r * nv..(r + 1) * nv]) {
                    *o -= *a * dfm;
                }
            }
        }
        // S_k · ∂W_{b(k)} (∂W: the subtree sum of the contact bodies' terms)
        for (u, &b0) in w.cb.iter().enumerate() {
            if !w.ctouch[u] {
                continue;
            }
            let x = w.cacc[u];
            let mut b = b0;
            while b != 0 {
                let k0 = m.body_dofadr[b];
                for k in k0..k0 + m.body_dofnum[b] {
                    col[k] -= d.cdof[k].dot(&x);
                }
                b = m.body_parentid[b];
            }
        }
        // (S_j × S_k) · W = −S_k · (S_j ×* W) for k ∈ D(j)
        let g = rw.grp[j];
        for b in bj..=last {
            let wt = &w.wtot[b];
            if *wt == z6 {
                continue;
            }
            let y = cross_force(&sj, wt);
            let k0 = m.body_dofadr[b];
            for k in k0.max(if b == bj { g } else { 0 })..k0 + m.body_dofnum[b] {
                col[k] += d.cdof[k].dot(&y);
            }
        }
    }
    w.spare = Some((h, f));
    true
}
