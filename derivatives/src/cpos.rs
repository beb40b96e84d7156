//! Analytic `∂(Jᵀ f)/∂q` of the constraint force at fixed `qacc`, `qvel` (seed 000 "Reduced
//! primal problem"), for the rows whose `q`-dependence is the contact geometry, the kinematic
//! tree and the row distances; [`crate::pos`] falls back to its restricted dual pass otherwise.
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
//! reference point of the tree, as in [`crate::rnea`]) and `U_j(w)` the same sum before `j`'s
//! joint group, `∂V_b(w)/∂q_j = S_j × (V_b(w) − U_j(w))` for `j ≼ b`, and
//! `∂Jc w = Σ s [∂F v_p + F (∂v + ∂ω × (p − c) + ω × ∂p); ∂F ω + F ∂ω]`.
//! `Jᵀ f = Σ_k S_k · W_{b(k)}` with the subtree sum `W` of the contact wrenches
//! `s [(p − c) × φ + τ; φ]` (`φ`, `τ`: the frame's force and torque); so
//! `∂(∂Jᵀ f)_k = (S_j × S_k) · W_{b(k)} [k ∈ D(j)] + S_k · ∂W_{b(k)}`.
//!
//! Not covered (reported by [`unsupported`]): ball-joint limits, spatial-tendon rows, polynomial (two-object) joint/tendon
//! equalities, connect/weld.

#![allow(clippy::needless_range_loop)]

use crate::rnea::Work as RneaWork;
use moreau::collision::{collide_geoms, differentiable, pair_limit, Contact};
use moreau::constraint::assemble::contact_nrow;
use moreau::constraint::ConstraintType;
use moreau::model::{EqType, JointType, Model, WrapType};
use moreau::spatial::{ang, body_last_dof, cross_motion, join, lin};
use moreau::Data;
use nalgebra::{DMatrix, Matrix3, Vector3, Vector6};
use num_dual::Dual64;

type V6 = Vector6<f64>;

/// Contact-geometry outputs per pose direction: dist, pos (3), frame (9, row-major).
const NG: usize = 13;

/// Workspace of [`add_constraint_pos`] (no allocation after the first call at a given size).
#[derive(Default)]
pub struct Work {
    out: Vec<Contact<Dual64>>,
    /// Per contact: `NG × 12` geometry Jacobian (row-major by output) and whether it is set.
    geo: Vec<[f64; NG * 12]>,
    va: Vec<V6>,
    vv: Vec<V6>,
    ua: Vec<V6>,
    uv: Vec<V6>,
    wtot: Vec<V6>,
    dw: Vec<V6>,
    fc: Vec<[f64; 6]>,
    djar: DMatrix<f64>,
    dr: DMatrix<f64>,
    /// `(H, f)` of the current state if the caller already has them (taken by the next call).
    pub(crate) pre: Option<(DMatrix<f64>, Vec<f64>)>,
}

fn fixed_tendon(m: &Model, t: usize) -> bool {
    let a = m.tendon_adr[t];
    m.wrap_type[a..a + m.tendon_num[t]]
        .iter()
        .all(|w| *w == WrapType::Joint)
}

/// Why the constraint rows of `d` are not covered by [`add_constraint_pos`], if they aren't.
pub fn unsupported(m: &Model, d: &Data<f64>) -> Option<&'static str> {
    for r in 0..d.nefc {
        let id = d.efc_id[r];
        match d.efc_type[r] {
            ConstraintType::Equality => match m.eq_type[id] {
                EqType::Joint if m.eq_obj2id[id] < 0 => {}
                EqType::Tendon
                    if m.eq_obj2id[id] < 0 && fixed_tendon(m, m.eq_obj1id[id] as usize) => {}
                _ => return Some("connect/weld or two-object equality rows"),
            },
            ConstraintType::FrictionDof => {}
            ConstraintType::FrictionTendon | ConstraintType::LimitTendon => {
                if !fixed_tendon(m, id) {
                    return Some("spatial-tendon rows");
                }
            }
            ConstraintType::LimitJoint => {
                if !matches!(m.jnt_type[id], JointType::Hinge | JointType::Slide) {
                    return Some("ball-joint limits");
                }
            }
            _ => {
                let c = &d.contact[id];
                let (t1, t2) = (m.geom_type[c.geom[0]], m.geom_type[c.geom[1]]);
                if !differentiable(t1, t2) {
                    return Some("contacts without a differentiable collider");
                }
            }
        }
    }
    None
}

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
                let _ = collide_geoms(m, dd, g[0], g[1], lim, &mut w.out);
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
        i += n;
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

/// Subtracts `∂qfrc_constraint/∂q` (rows outputs, tangent columns) from `out` at `qacc`,
/// `qvel` of `d`. False (and `out` untouched) if [`unsupported`] or a contact pair's dual
/// collision does not reproduce the contacts; the caller then falls back.
pub fn add_constraint_pos(
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
    if unsupported(m, d).is_some() {
        return false;
    }
    let dd = rw.dual_data(m);
    if !geometry(m, d, dd, w) {
        return false;
    }
    let (h, f) = match w.pre.take() {
        Some(x) => x,
        None => crate::inverse::constraint_hessian_force(m, d),
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
    // contact-frame forces and the static subtree wrenches
    let z6 = V6::zeros();
    w.wtot.clear();
    w.wtot.resize(nb, z6);
    w.fc.clear();
    w.fc.resize(d.contact.len(), [0.0; 6]);
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
        w.fc[ci] = fc;
        let phi = c.frame.transpose() * Vector3::new(fc[0], fc[1], fc[2]);
        let tau = c.frame.transpose() * Vector3::new(fc[3], fc[4], fc[5]);
        for (g, s) in [(c.geom[1], 1.0), (c.geom[0], -1.0)] {
            let b = m.geom_bodyid[g];
            let r = c.pos - d.subtree_com[m.body_rootid[b]];
            w.wtot[b] += join(&(r.cross(&phi) + tau), &phi) * s;
        }
    }
    for b in (1..nb).rev() {
        let p = m.body_parentid[b];
        if p != 0 {
            let x = w.wtot[b];
            w.wtot[p] += x;
        }
    }
    // per-row K (imp + imp' (pos − margin)) and f ρ
    w.djar = DMatrix::zeros(n, nv);
    w.dr = DMatrix::zeros(n, nv);
    let kfac = |r: usize| {
        let [k, _, imp, dimp] = d.efc_KBIP[r];
        k * (imp + dimp * (d.efc_pos[r] - d.efc_margin[r]))
    };
    for r in 0..n {
        if matches!(
            d.efc_type[r],
            ConstraintType::Equality | ConstraintType::LimitJoint | ConstraintType::LimitTendon
        ) {
            let kf = kfac(r);
            for j in 0..nv {
                let jr = d.efc_J[r * nv + j];
                w.djar[(r, j)] = kf * jr;
                w.dr[(r, j)] = jr;
            }
        }
    }
    for j in 0..nv {
        let bj = m.dof_bodyid[j];
        let last = rw.last[bj];
        let sj = d.cdof[j];
        let wj = ang(&sj);
        let in_sub = |b: usize| b >= bj && b <= last;
        let mut touched = false;
        for (ci, c) in d.contact.iter().enumerate() {
            let Ok(r0) = usize::try_from(c.efc_address) else {
                continue;
            };
            let bodies = [m.geom_bodyid[c.geom[0]], m.geom_bodyid[c.geom[1]]];
            let inb = [in_sub(bodies[0]), in_sub(bodies[1])];
            if !inb[0] && !inb[1] {
                continue;
            }
            if !touched {
                w.dw.clear();
                w.dw.resize(nb, z6);
                touched = true;
            }
            // pose tangents of the two geoms under S_j, then the geometry derivative
            let mut pose = [0.0; 12];
            for s in 0..2 {
                if !inb[s] {
                    continue;
                }
                let g = c.geom[s];
                let x = d.geom_xpos[g] - d.subtree_com[m.body_rootid[bodies[s]]];
                let dx = lin(&sj) + wj.cross(&x);
                for a in 0..3 {
                    pose[s * 6 + a] = dx[a];
                    pose[s * 6 + 3 + a] = wj[a];
                }
            }
            let gj = &w.geo[ci];
            let mut dg = [0.0; NG];
            for (o, x) in dg.iter_mut().enumerate() {
                *x = (0..12).map(|k| gj[o * 12 + k] * pose[k]).sum();
            }
            let ddist = dg[0];
            let dp = Vector3::new(dg[1], dg[2], dg[3]);
            let df = Matrix3::from_row_slice(&dg[4..13]);
            let fr = &c.frame;
            // ∂(Jc a), ∂(Jc v) and the wrench derivative
            let mut dja = [0.0; 6];
            let mut djv = [0.0; 6];
            let fc = &w.fc[ci];
            let fct = Vector3::new(fc[0], fc[1], fc[2]);
            let fcr = Vector3::new(fc[3], fc[4], fc[5]);
            let phi = fr.transpose() * fct;
            let dphi = df.transpose() * fct;
            let dtau = df.transpose() * fcr;
            for (side, s) in [(1usize, 1.0), (0usize, -1.0)] {
                let b = bodies[side];
                let r = c.pos - d.subtree_com[m.body_rootid[b]];
                for (vb, ub, dst) in [
                    (&w.va[b], &w.ua[j], &mut dja),
                    (&w.vv[b], &w.uv[j], &mut djv),
                ] {
                    let om = ang(vb);
                    let vp = lin(vb) + om.cross(&r);
                    let mut t = df * vp + fr * (om.cross(&dp));
                    let mut rr = df * om;
                    if inb[side] {
                        let dv = cross_motion(&sj, &(vb - ub));
                        let dom = ang(&dv);
                        t += fr * (lin(&dv) + dom.cross(&r));
                        rr += fr * dom;
                    }
                    for a in 0..3 {
                        dst[a] += s * t[a];
                        dst[3 + a] += s * rr[a];
                    }
                }
                w.dw[b] += join(&(dp.cross(&phi) + r.cross(&dphi) + dtau), &dphi) * s;
            }
            let ty = d.efc_type[r0];
            let nrow = contact_nrow(c.dim, m.opt.cone);
            for k in 0..nrow {
                let r = r0 + k;
                let mut x = 0.0;
                for (idx, cf) in row_coef(ty, &c.friction, k) {
                    x += cf * (dja[idx] + d.efc_KBIP[r][1] * djv[idx]);
                }
                w.djar[(r, j)] = x + kfac(r) * ddist;
                w.dr[(r, j)] = ddist;
            }
        }
        // ∂Jᵀ f: S_k · ∂W, and (S_j × S_k) · W for k ∈ D(j)
        if touched {
            for b in (1..nb).rev() {
                let p = m.body_parentid[b];
                if p != 0 {
                    let x = w.dw[b];
                    w.dw[p] += x;
                }
            }
            for k in 0..nv {
                out[(k, j)] -= d.cdof[k].dot(&w.dw[m.dof_bodyid[k]]);
            }
        }
        let g = rw.grp[j];
        for b in bj..=last {
            let k0 = m.body_dofadr[b];
            for k in k0..k0 + m.body_dofnum[b] {
                if b > bj || k >= g {
                    out[(k, j)] -= cross_motion(&sj, &d.cdof[k]).dot(&w.wtot[b]);
                }
            }
        }
    }
    // Jᵀ ∂f = Jᵀ (−H ∂jar + diag(f ρ) ∂r)
    let mut dfm = -(&h * &w.djar);
    for r in 0..n {
        let [_, _, imp, dimp] = d.efc_KBIP[r];
        let rho = dimp / (imp * (1.0 - imp));
        if rho != 0.0 && f[r] != 0.0 {
            for j in 0..nv {
                dfm[(r, j)] += f[r] * rho * w.dr[(r, j)];
            }
        }
    }
    // out −= Jᵀ dfm: per column, axpys of J's (row-major, mostly sparse) rows
    for j in 0..nv {
        let col = &mut out.as_mut_slice()[j * nv..(j + 1) * nv];
        for r in 0..n {
            let x = dfm[(r, j)];
            if x == 0.0 {
                continue;
            }
            for (o, jr) in col.iter_mut().zip(&d.efc_J[r * nv..(r + 1) * nv]) {
                *o -= *jr * x;
            }
        }
    }
    true
}
