//! Constraint assembly (MuJoCo's `mj_makeConstraint` / `mj_instantiate*`, `mj_referenceConstraint`):
//! the efc rows in MuJoCo's order — equality, friction loss (dofs, tendons), limits (joints,
//! tendons), contacts — with their Jacobian, residual, margin, per-row solref/solimp, the raw
//! invweight diagonal approximation and the contact cone table (Computation "Constraint model";
//! docs/mujoco-behaviour.md#parameters, #contacts).
//!
//! [`make_constraint`] is the position stage (rows, J, pos, then [`params::compute`] for
//! K, B, d, R, D), [`reference_constraint`] the velocity stage (`efc_vel = J qvel`, `aref`,
//! including the `J̇ qvel` term of connect and weld rows). `efc_J` is dense (nefc × nv,
//! row-major) or, when [`sparse::is_sparse`], compressed rows with MuJoCo's column patterns
//! (see [`sparse`]). Allocation-free on `f64` except the growth of the efc arrays in
//! [`Data::resize_efc`] and of the sparse arrays past their high-water mark.

#![allow(clippy::needless_range_loop)] // index-based numeric kernels

use super::{params, sparse};
use crate::data::scratch::{clear_on, scatter};
use crate::data::{ConstraintType, EfcCone};
use crate::data::{Data, Warning};
use crate::math::spatial::{ang, body_last_dof, dof_parent, lin};
use crate::math::{sc, zero_fill, Scalar};
use crate::model::{disable, Cone, EqType, JointType, Model, ObjType};
use crate::sleep::{dof_idle, eq_idle, tendon_idle};
use crate::smooth::jacobian::jac_dot_mul;
use nalgebra::{Quaternion, Vector3};

/// Number of efc rows of equality `e` (0 for types moreau does not instantiate).
fn eq_nrow(m: &Model, e: usize) -> usize {
    match m.eq_type[e] {
        EqType::Connect => 3,
        EqType::Weld => 6,
        EqType::Joint | EqType::Tendon => 1,
        EqType::Flex | EqType::Distance => 0,
    }
}

/// Rows of a contact of dimension `dim` under cone `cone`: 1, dim (elliptic) or 2(dim−1).
pub fn contact_nrow(dim: usize, cone: Cone) -> usize {
    if dim == 1 {
        1
    } else if cone == Cone::Elliptic {
        dim
    } else {
        2 * (dim - 1)
    }
}

/// Rotation angle of a ball joint's quaternion and its unit axis (signed so that the rotation
/// vector is `angle · axis` with angle ≥ 0), as MuJoCo's `mju_quat2Vel` with wrap to (−π, π].
fn ball_angle<T: Scalar>(q: &[T]) -> (T, Vector3<T>) {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let (w, v) = (q[0] / n, Vector3::new(q[1], q[2], q[3]) / n);
    let s = v.norm();
    if s < sc(1e-15) {
        return (T::zero(), Vector3::x());
    }
    let axis = v / s;
    let mut angle = sc::<T>(2.0) * s.atan2(w);
    if angle > T::pi() {
        angle -= T::two_pi();
    }
    if angle < T::zero() {
        (-angle, -axis)
    } else {
        (angle, axis)
    }
}

/// Limit residuals of joint `j` that are active (`dist < margin`): (lower, upper) for
/// hinge/slide (Computation "Limit"), the rotation-angle limit `max(range) − θ` for ball joints
/// (in `lower`, with the axis).
#[allow(clippy::type_complexity)]
#[inline]
fn joint_limits<T: Scalar>(m: &Model, d: &Data<T>, j: usize) -> [Option<(T, Vector3<T>)>; 2] {
    let margin: T = sc(m.jnt_margin[j]);
    let r = m.jnt_range[j];
    let q = &d.qpos[m.jnt_qposadr[j]..];
    let on = |x: T, a: Vector3<T>| if x < margin { Some((x, a)) } else { None };
    match m.jnt_type[j] {
        JointType::Hinge | JointType::Slide => [
            on(q[0] - sc(r[0]), Vector3::x()),
            on(sc::<T>(r[1]) - q[0], -Vector3::x()),
        ],
        JointType::Ball => {
            let (angle, axis) = ball_angle(&q[..4]);
            [on(sc::<T>(r[0].max(r[1])) - angle, -axis), None]
        }
        JointType::Free => [None, None],
    }
}

/// Number of active limits of joint `j`: `joint_limits(m, d, j)`'s `Some`s, without forming the
/// residuals and axes for hinge and slide joints.
#[inline]
fn joint_limit_count<T: Scalar>(m: &Model, d: &Data<T>, j: usize) -> usize {
    match m.jnt_type[j] {
        JointType::Hinge | JointType::Slide => {
            let margin: T = sc(m.jnt_margin[j]);
            let r = m.jnt_range[j];
            let q = d.qpos[m.jnt_qposadr[j]];
            usize::from(q - sc(r[0]) < margin) + usize::from(sc::<T>(r[1]) - q < margin)
        }
        _ => joint_limits(m, d, j).iter().flatten().count(),
    }
}

/// Active tendon-limit residuals (lower, upper) of tendon `t`.
pub fn tendon_limits<T: Scalar>(m: &Model, d: &Data<T>, t: usize) -> [Option<T>; 2] {
    let margin: T = sc(m.tendon_margin[t]);
    let r = m.tendon_range[t];
    let l = d.ten_length[t];
    let on = |x: T| if x < margin { Some(x) } else { None };
    [on(l - sc(r[0])), on(sc::<T>(r[1]) - l)]
}

/// Whether the contact gets efc rows: not a gap-only contact, and some dof moves one of its
/// bodies (docs/mujoco-behaviour.md#contacts).
fn contact_active<T: Scalar>(m: &Model, d: &Data<T>, i: usize) -> bool {
    let c = &d.contact[i];
    c.exclude == 0
        && (body_last_dof(m, m.geom_bodyid[c.geom[0]]).is_some()
            || body_last_dof(m, m.geom_bodyid[c.geom[1]]).is_some())
}

/// Whether joint `j` may have limit rows: limited, and not in a sleeping tree.
fn limit_rows<T: Scalar>(m: &Model, d: &Data<T>, j: usize) -> bool {
    m.jnt_limited[j] && !dof_idle(m, d, m.jnt_dofadr[j])
}

/// Counts the rows and cone entries `make_constraint` will produce (respecting the disable
/// flags and `eq_active`).
pub fn count<T: Scalar>(m: &Model, d: &Data<T>) -> (usize, usize) {
    let o = &m.opt;
    if o.disabled(disable::CONSTRAINT) {
        return (0, 0);
    }
    let mut n = 0;
    if !o.disabled(disable::EQUALITY) {
        n += (0..m.neq)
            .filter(|&e| d.eq_active[e] && !eq_idle(m, d, e))
            .map(|e| eq_nrow(m, e))
            .sum::<usize>();
    }
    if !o.disabled(disable::FRICTIONLOSS) {
        n += (0..m.nv)
            .filter(|&k| m.dof_frictionloss[k] > 0.0 && !dof_idle(m, d, k))
            .count();
        n += (0..m.ntendon)
            .filter(|&t| m.tendon_frictionloss[t] > 0.0 && !tendon_idle(m, d, t))
            .count();
    }
    if !o.disabled(disable::LIMIT) {
        for j in (0..m.njnt).filter(|&j| limit_rows(m, d, j)) {
            n += joint_limit_count(m, d, j);
        }
        for t in (0..m.ntendon).filter(|&t| m.tendon_limited[t] && !tendon_idle(m, d, t)) {
            n += tendon_limits(m, d, t).iter().flatten().count();
        }
    }
    let mut ncone = 0;
    if !o.disabled(disable::CONTACT) {
        for i in 0..d.contact.len() {
            if contact_active(m, d, i) {
                n += contact_nrow(d.contact[i].dim, o.cone);
                ncone += 1;
            }
        }
    }
    (n, ncone)
}

/// Body, world point and orientation of side `side` (0, 1) of connect/weld `e`: sites give
/// their own pose; bodies the anchor `eq_data[0:3]` / `[3:6]` (connect: side 0 / 1; weld:
/// swapped, docs/mujoco-behaviour.md#parameters) and the body orientation.
pub(crate) fn eq_side<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    e: usize,
    side: usize,
) -> (usize, Vector3<T>, Quaternion<T>) {
    let id = if side == 0 {
        m.eq_obj1id[e]
    } else {
        m.eq_obj2id[e]
    }
    .max(0) as usize;
    if m.eq_objtype[e] == ObjType::Site {
        let b = m.site_bodyid[id];
        let sq = m.site_quat[id];
        let q = d.xquat[b] * Quaternion::new(sc(sq[0]), sc(sq[1]), sc(sq[2]), sc(sq[3]));
        return (b, d.site_xpos[id], q);
    }
    let weld = m.eq_type[e] == EqType::Weld;
    let off = if (side == 0) != weld { 0 } else { 3 };
    let a = &m.eq_data[e][off..off + 3];
    let local = Vector3::new(sc(a[0]), sc(a[1]), sc(a[2]));
    (id, d.xpos[id] + d.xmat[id] * local, d.xquat[id])
}

/// `relpose` quaternion of weld `e` (identity for site welds).
pub(crate) fn weld_rel<T: Scalar>(m: &Model, e: usize) -> Quaternion<T> {
    if m.eq_objtype[e] == ObjType::Site {
        return Quaternion::identity();
    }
    let q = &m.eq_data[e][6..10];
    Quaternion::new(sc(q[0]), sc(q[1]), sc(q[2]), sc(q[3]))
}

/// `Im(a ⊗ (0, v) ⊗ b)`.
pub(crate) fn im_sandwich<T: Scalar>(
    a: &Quaternion<T>,
    v: &Vector3<T>,
    b: &Quaternion<T>,
) -> Vector3<T> {
    let p = a * Quaternion::from_parts(T::zero(), *v) * b;
    p.imag()
}

/// Polynomial `a0 + a1 x + … + a4 x⁴` and its derivative.
fn poly<T: Scalar>(c: &[f64], x: T) -> (T, T) {
    let mut y = T::zero();
    let mut dy = T::zero();
    for k in (0..5).rev() {
        dy = dy * x + y;
        y = y * x + sc(c[k]);
    }
    (y, dy)
}

fn to_t<T: Scalar, const N: usize>(a: &[f64; N]) -> [T; N] {
    a.map(|x| sc(x))
}

/// Column pattern of a group of sparse rows.
#[derive(Clone, Copy)]
enum Pat {
    /// Two bodies' chains: union, or (`true`) the dofs in exactly one of them (contacts).
    Pair(usize, usize, bool),
    /// Up to 3 dofs (ascending after sorting), count.
    Dofs([usize; 3], usize),
    /// One tendon's pattern or the union of two.
    Tendon(usize, Option<usize>),
}

/// Sparse mode: gives rows `r0..r0 + nrow` the pattern `pat` (appended to `efc_J_colind`, zero
/// values appended to `efc_J`). Rows must be opened in order. No-op in dense mode.
fn open_rows<T: Scalar>(m: &Model, d: &mut Data<T>, r0: usize, nrow: usize, pat: Pat) {
    if !d.efc_J_sparse {
        return;
    }
    let a = d.efc_J_colind.len();
    let mut cols = std::mem::take(&mut d.efc_J_colind);
    match pat {
        Pat::Pair(b1, b2, ex) => d.sparse_scratch.body_pair(m, b1, b2, ex, &mut cols),
        Pat::Dofs(mut v, n) => {
            v[..n].sort_unstable();
            for (x, &k) in v[..n].iter().enumerate() {
                if x == 0 || k != v[x - 1] {
                    cols.push(k);
                }
            }
        }
        Pat::Tendon(t1, t2) => d.sparse_scratch.tendon_pair(t1, t2, &mut cols),
    }
    let n = cols.len() - a;
    for _ in 1..nrow {
        cols.extend_from_within(a..a + n);
    }
    d.efc_J_colind = cols;
    for r in 0..nrow {
        d.efc_J_rowadr[r0 + r] = a + r * n;
        d.efc_J_rownnz[r0 + r] = n;
    }
    d.efc_J.resize(a + nrow * n, T::zero());
}

/// Index of entry (r, k) of `efc_J`; `None` for a column outside a sparse row's pattern (only
/// the exactly cancelling common-ancestor columns of a contact).
#[inline]
fn jidx<T: Scalar>(d: &Data<T>, nv: usize, r: usize, k: usize) -> Option<usize> {
    if d.efc_J_sparse {
        let a = d.efc_J_rowadr[r];
        let cols = &d.efc_J_colind[a..a + d.efc_J_rownnz[r]];
        cols.binary_search(&k).ok().map(|x| a + x)
    } else {
        Some(r * nv + k)
    }
}

/// Entry (r0, k) of a group of rows opened together (same pattern, contiguous) and the stride
/// to the same column of the next row of the group; `None` as [`jidx`].
#[inline]
fn jslot<T: Scalar>(d: &Data<T>, nv: usize, r0: usize, k: usize) -> Option<(usize, usize)> {
    let stride = if d.efc_J_sparse {
        d.efc_J_rownnz[r0]
    } else {
        nv
    };
    jidx(d, nv, r0, k).map(|x| (x, stride))
}

/// `J[r, k] = v`.
#[inline]
fn jset<T: Scalar>(d: &mut Data<T>, nv: usize, r: usize, k: usize, v: T) {
    if let Some(x) = jidx(d, nv, r, k) {
        d.efc_J[x] = v;
    }
}

/// `J[r, :] = s · ten_J[t, :]` (on the row's pattern when sparse). The tendon's row is
/// scattered into the dense scratch row first, so that the entries of the row's pattern that
/// are off the tendon's (a tendon equality's other tendon) are `s · 0` as in a dense product.
fn jset_tendon<T: Scalar>(d: &mut Data<T>, nv: usize, r: usize, t: usize, s: Option<T>) {
    let sc_ = |x: T| s.map_or(x, |s| s * x);
    let mut row = std::mem::take(&mut d.dense_row);
    let (cols, vals) = d.ten_J_row(t);
    scatter(cols, vals, &mut row);
    if d.efc_J_sparse {
        let a = d.efc_J_rowadr[r];
        for x in a..a + d.efc_J_rownnz[r] {
            d.efc_J[x] = sc_(row[d.efc_J_colind[x]]);
        }
    } else {
        for k in 0..nv {
            d.efc_J[r * nv + k] = sc_(row[k]);
        }
    }
    clear_on(d.ten_J_row(t).0, &mut row);
    d.dense_row = row;
}

/// Writes row `*i` (everything but J) and advances `*i`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn push<T: Scalar>(
    d: &mut Data<T>,
    i: &mut usize,
    ty: ConstraintType,
    id: usize,
    pos: T,
    margin: T,
    frictionloss: T,
    solref: [T; 2],
    solimp: [T; 5],
    diag: T,
) {
    let k = *i;
    d.efc_type[k] = ty;
    d.efc_id[k] = id;
    d.efc_pos[k] = pos;
    d.efc_margin[k] = margin;
    d.efc_frictionloss[k] = frictionloss;
    d.efc_solref[k] = solref;
    d.efc_solimp[k] = solimp;
    d.efc_diagA[k] = diag;
    d.efc_vel[k] = T::zero();
    *i += 1;
}

/// Position stage of the constraint pipeline (`mj_makeConstraint` + `mj_makeImpedance`):
/// builds every row (type, id, J, pos, margin, frictionloss, solref, solimp, raw diagA), the
/// cone table and `contact.efc_address`, then computes K, B, d, R, D with
/// [`params::compute`]. Needs kinematics, `com_pos`, tendons and collision to be current.
pub fn make_constraint<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let (nefc, ncone) = count(m, d);
    let nv = m.nv;
    d.efc_J_sparse = sparse::is_sparse(m);
    if d.efc_J_sparse {
        d.efc_J.clear();
        d.efc_J_colind.clear();
    }
    // rows that overflow the arena even without their sparse Jacobian are dropped before they
    // are allocated (the same outcome as the check after assembly), so no arena bounds them
    if nefc > 0 && rows_overflow(m, d, nefc, 0, 0) {
        return;
    }
    d.resize_efc(nv, nefc, ncone);
    for c in d.contact.iter_mut() {
        c.efc_address = -1;
    }
    if nefc == 0 {
        return;
    }
    if !d.efc_J_sparse {
        zero_fill(&mut d.efc_J);
    }
    let o = &m.opt;
    let z = T::zero();
    let mut i = 0; // next row
                   // ------------------------------- equality (Computation "Equality")
    if !o.disabled(disable::EQUALITY) {
        for e in 0..m.neq {
            if !d.eq_active[e] || eq_idle(m, d, e) {
                continue;
            }
            let sref = to_t(&m.eq_solref[e]);
            let simp = to_t(&m.eq_solimp[e]);
            let data = &m.eq_data[e];
            match m.eq_type[e] {
                EqType::Connect | EqType::Weld => {
                    let weld = m.eq_type[e] == EqType::Weld;
                    let (b1, p1, q1) = eq_side(m, d, e, 0);
                    let (b2, p2, q2) = eq_side(m, d, e, 1);
                    let iw1 = m.body_invweight0[b1];
                    let iw2 = m.body_invweight0[b2];
                    let res = p1 - p2;
                    let r0 = i;
                    open_rows(m, d, r0, if weld { 6 } else { 3 }, Pat::Pair(b1, b2, false));
                    for a in 0..3 {
                        let dg = sc(iw1[0] + iw2[0]);
                        push(
                            d,
                            &mut i,
                            ConstraintType::Equality,
                            e,
                            res[a],
                            z,
                            z,
                            sref,
                            simp,
                            dg,
                        );
                    }
                    for (p, b, s) in [(p1, b1, T::one()), (p2, b2, -T::one())] {
                        let r = p - d.subtree_com[m.body_rootid[b]];
                        let mut k = body_last_dof(m, b);
                        while let Some(kk) = k {
                            let w = ang(&d.cdof[kk]);
                            let c = (lin(&d.cdof[kk]) + w.cross(&r)) * s;
                            if let Some((x, st)) = jslot(d, nv, r0, kk) {
                                for a in 0..3 {
                                    d.efc_J[x + a * st] += c[a];
                                }
                            }
                            k = dof_parent(m, kk);
                        }
                    }
                    if weld {
                        let ts: T = sc(data[10]);
                        let qc2 = q2.conjugate();
                        let qr = q1 * weld_rel::<T>(m, e);
                        let rot = (qc2 * qr).imag() * ts;
                        for a in 0..3 {
                            let dg = sc(iw1[1] + iw2[1]);
                            push(
                                d,
                                &mut i,
                                ConstraintType::Equality,
                                e,
                                rot[a],
                                z,
                                z,
                                sref,
                                simp,
                                dg,
                            );
                        }
                        let half: T = sc(0.5);
                        for (b, s) in [(b1, T::one()), (b2, -T::one())] {
                            let mut k = body_last_dof(m, b);
                            while let Some(kk) = k {
                                let w = ang(&d.cdof[kk]) * s;
                                let c = im_sandwich(&qc2, &w, &qr) * (half * ts);
                                if let Some((x, st)) = jslot(d, nv, r0 + 3, kk) {
                                    for a in 0..3 {
                                        d.efc_J[x + a * st] += c[a];
                                    }
                                }
                                k = dof_parent(m, kk);
                            }
                        }
                    }
                }
                EqType::Joint => {
                    let j1 = m.eq_obj1id[e] as usize;
                    let (a1, v1) = (m.jnt_qposadr[j1], m.jnt_dofadr[j1]);
                    let y = d.qpos[a1] - sc(m.qpos0[a1]);
                    let mut dg = m.dof_invweight0[v1];
                    let r = i;
                    let j2 = usize::try_from(m.eq_obj2id[e]).ok();
                    let pat = match j2 {
                        Some(j2) => Pat::Dofs([v1, m.jnt_dofadr[j2], 0], 2),
                        None => Pat::Dofs([v1, 0, 0], 1),
                    };
                    open_rows(m, d, r, 1, pat);
                    let pos = if let Some(j2) = j2 {
                        let (a2, v2) = (m.jnt_qposadr[j2], m.jnt_dofadr[j2]);
                        let (p, dp) = poly(&data[..5], d.qpos[a2] - sc(m.qpos0[a2]));
                        jset(d, nv, r, v2, -dp);
                        dg += m.dof_invweight0[v2];
                        y - p
                    } else {
                        y - sc(data[0])
                    };
                    jset(d, nv, r, v1, T::one());
                    push(
                        d,
                        &mut i,
                        ConstraintType::Equality,
                        e,
                        pos,
                        z,
                        z,
                        sref,
                        simp,
                        sc(dg),
                    );
                }
                EqType::Tendon => {
                    let t1 = m.eq_obj1id[e] as usize;
                    let y = d.ten_length[t1] - sc(m.tendon_length0[t1]);
                    let mut dg = m.tendon_invweight0[t1];
                    let r = i;
                    let t2 = usize::try_from(m.eq_obj2id[e]).ok();
                    open_rows(m, d, r, 1, Pat::Tendon(t1, t2));
                    jset_tendon(d, nv, r, t1, None);
                    let pos = if let Some(t2) = t2 {
                        let x = d.ten_length[t2] - sc(m.tendon_length0[t2]);
                        let (p, dp) = poly(&data[..5], x);
                        let mut row = std::mem::take(&mut d.dense_row);
                        let (cols, vals) = d.ten_J_row(t2);
                        scatter(cols, vals, &mut row);
                        if d.efc_J_sparse {
                            let a = d.efc_J_rowadr[r];
                            for x in a..a + d.efc_J_rownnz[r] {
                                let k = d.efc_J_colind[x];
                                d.efc_J[x] -= dp * row[k];
                            }
                        } else {
                            for k in 0..nv {
                                d.efc_J[r * nv + k] -= dp * row[k];
                            }
                        }
                        clear_on(d.ten_J_row(t2).0, &mut row);
                        d.dense_row = row;
                        dg += m.tendon_invweight0[t2];
                        y - p
                    } else {
                        y - sc(data[0])
                    };
                    push(
                        d,
                        &mut i,
                        ConstraintType::Equality,
                        e,
                        pos,
                        z,
                        z,
                        sref,
                        simp,
                        sc(dg),
                    );
                }
                EqType::Flex | EqType::Distance => {}
            }
        }
    }

    // ------------------------------------------------------------ friction loss (dofs, tendons)
    if !o.disabled(disable::FRICTIONLOSS) {
        for k in (0..nv).filter(|&k| m.dof_frictionloss[k] > 0.0) {
            if dof_idle(m, d, k) {
                continue;
            }
            open_rows(m, d, i, 1, Pat::Dofs([k, 0, 0], 1));
            jset(d, nv, i, k, T::one());
            let (sref, simp) = (to_t(&m.dof_solref[k]), to_t(&m.dof_solimp[k]));
            let fl = sc(m.dof_frictionloss[k]);
            let dg = sc(m.dof_invweight0[k]);
            push(
                d,
                &mut i,
                ConstraintType::FrictionDof,
                k,
                z,
                z,
                fl,
                sref,
                simp,
                dg,
            );
        }
        for t in (0..m.ntendon).filter(|&t| m.tendon_frictionloss[t] > 0.0) {
            if tendon_idle(m, d, t) {
                continue;
            }
            open_rows(m, d, i, 1, Pat::Tendon(t, None));
            jset_tendon(d, nv, i, t, None);
            let (sref, simp) = (to_t(&m.tendon_solref_fri[t]), to_t(&m.tendon_solimp_fri[t]));
            let fl = sc(m.tendon_frictionloss[t]);
            let dg = sc(m.tendon_invweight0[t]);
            push(
                d,
                &mut i,
                ConstraintType::FrictionTendon,
                t,
                z,
                z,
                fl,
                sref,
                simp,
                dg,
            );
        }
    }

    // ------------------------------------------------------------ limits (joints, tendons)
    if !o.disabled(disable::LIMIT) {
        for j in (0..m.njnt).filter(|&j| m.jnt_limited[j]) {
            if !limit_rows(m, d, j) {
                continue;
            }
            let v = m.jnt_dofadr[j];
            let lims = joint_limits(m, d, j);
            if lims.iter().all(Option::is_none) {
                continue;
            }
            let (sref, simp) = (to_t(&m.jnt_solref[j]), to_t(&m.jnt_solimp[j]));
            let margin = sc(m.jnt_margin[j]);
            let dg = sc(m.dof_invweight0[v]);
            for (dist, axis) in lims.into_iter().flatten() {
                if m.jnt_type[j] == JointType::Ball {
                    open_rows(m, d, i, 1, Pat::Dofs([v, v + 1, v + 2], 3));
                    for a in 0..3 {
                        jset(d, nv, i, v + a, axis[a]);
                    }
                } else {
                    open_rows(m, d, i, 1, Pat::Dofs([v, 0, 0], 1));
                    jset(d, nv, i, v, axis[0]);
                }
                push(
                    d,
                    &mut i,
                    ConstraintType::LimitJoint,
                    j,
                    dist,
                    margin,
                    z,
                    sref,
                    simp,
                    dg,
                );
            }
        }
        for t in (0..m.ntendon).filter(|&t| m.tendon_limited[t]) {
            if tendon_idle(m, d, t) {
                continue;
            }
            let (sref, simp) = (to_t(&m.tendon_solref_lim[t]), to_t(&m.tendon_solimp_lim[t]));
            let margin = sc(m.tendon_margin[t]);
            let dg = sc(m.tendon_invweight0[t]);
            for (side, dist) in tendon_limits(m, d, t).into_iter().enumerate() {
                let Some(dist) = dist else { continue };
                let s = if side == 0 { T::one() } else { -T::one() };
                open_rows(m, d, i, 1, Pat::Tendon(t, None));
                jset_tendon(d, nv, i, t, Some(s));
                push(
                    d,
                    &mut i,
                    ConstraintType::LimitTendon,
                    t,
                    dist,
                    margin,
                    z,
                    sref,
                    simp,
                    dg,
                );
            }
        }
    }

    // -------------------------------------------- contacts (docs/mujoco-behaviour.md#contacts)
    let mut ic = 0;
    if !o.disabled(disable::CONTACT) {
        for ci in 0..d.contact.len() {
            if !contact_active(m, d, ci) {
                continue;
            }
            let c = &d.contact[ci];
            let dim = c.dim;
            let nrow = contact_nrow(dim, o.cone);
            let ty = if dim == 1 {
                ConstraintType::ContactFrictionless
            } else if o.cone == Cone::Elliptic {
                ConstraintType::ContactElliptic
            } else {
                ConstraintType::ContactPyramidal
            };
            let (g1, g2) = (c.geom[0], c.geom[1]);
            let (b1, b2) = (m.geom_bodyid[g1], m.geom_bodyid[g2]);
            let (iw1, iw2) = (m.body_invweight0[b1], m.body_invweight0[b2]);
            let (tran, rot) = (iw1[0] + iw2[0], iw1[1] + iw2[1]);
            let fr = c.friction;
            let (pos, frame, dist) = (c.pos, c.frame, c.dist);
            let margin: T = sc(c.includemargin);
            let (sref, simp) = (c.solref, to_t(&c.solimp));
            d.efc_cone[ic] = EfcCone {
                adr: i,
                nrow,
                dim,
                friction: fr,
                mu: z,
                solreffriction: to_t(&c.solreffriction),
            };
            d.contact[ci].efc_address = i as i32;
            let r0 = i;
            open_rows(m, d, r0, nrow, Pat::Pair(b1, b2, true));
            // Jacobian: F (J(body2, p) - J(body1, p)), rows combined per cone
            // body1's part is subtracted rather than scaled by −1 (exact either way); the
            // rotational rows exist only for dim > 3
            let mu: [T; 5] = fr;
            for (b, minus) in [(b2, false), (b1, true)] {
                let r = pos - d.subtree_com[m.body_rootid[b]];
                let mut k = body_last_dof(m, b);
                while let Some(kk) = k {
                    // (sparse: a common ancestor's columns cancel and are not in the pattern)
                    if let Some((x, st)) = jslot(d, nv, r0, kk) {
                        let w = ang(&d.cdof[kk]);
                        let cp = frame * (lin(&d.cdof[kk]) + w.cross(&r));
                        let cr = if dim > 3 { frame * w } else { Vector3::zeros() };
                        let jc = [cp[0], cp[1], cp[2], cr[0], cr[1], cr[2]];
                        let col = |row: usize| x + row * st;
                        let add = |v: &mut T, y: T| if minus { *v -= y } else { *v += y };
                        if ty == ConstraintType::ContactPyramidal {
                            for j in 1..dim {
                                add(&mut d.efc_J[col(2 * j - 2)], jc[0] + mu[j - 1] * jc[j]);
                                add(&mut d.efc_J[col(2 * j - 1)], jc[0] - mu[j - 1] * jc[j]);
                            }
                        } else {
                            for j in 0..nrow {
                                add(&mut d.efc_J[col(j)], jc[j]);
                            }
                        }
                    }
                    k = dof_parent(m, kk);
                }
            }
            for j in 0..nrow {
                let (p, mg, dg) = match ty {
                    ConstraintType::ContactPyramidal => {
                        let e = j / 2;
                        let f2 = fr[e] * fr[e];
                        let t: T = sc(tran);
                        (dist, margin, t + f2 * sc(if e < 2 { tran } else { rot }))
                    }
                    _ if j == 0 => (dist, margin, sc(tran)),
                    _ => (z, z, sc(if j < 3 { tran } else { rot })),
                };
                push(d, &mut i, ty, ci, p, mg, z, sref, simp, dg);
            }
            ic += 1;
        }
    }
    debug_assert_eq!(i, nefc);
    debug_assert_eq!(ic, ncone);
    if d.efc_J_sparse {
        // rowsuper: following rows with the same pattern
        for r in (0..nefc).rev() {
            let same = r + 1 < nefc && {
                let (a, n) = (d.efc_J_rowadr[r], d.efc_J_rownnz[r]);
                let (b, nb) = (d.efc_J_rowadr[r + 1], d.efc_J_rownnz[r + 1]);
                n == nb && d.efc_J_colind[a..a + n] == d.efc_J_colind[b..b + n]
            };
            d.efc_J_rowsuper[r] = if same { d.efc_J_rowsuper[r + 1] + 1 } else { 0 };
        }
    }

    // the rows must fit in the arena beside the contacts; if not MuJoCo keeps none and warns
    // with the arena's size (mjWARN_CNSTRFULL, measured; the per-row bytes are approximate)
    let nnz = if d.efc_J_sparse { d.efc_J.len() } else { 0 };
    crate::work::add(crate::work::Loop::Rows, nefc + d.efc_J.len());
    // the dual solvers' sparse AR: its structural nonzeros (dense, it is nefc² whatever J);
    // counted only when its bound nefc² does not fit (the test is monotone in the count)
    let ar_bound = nefc.saturating_mul(nefc);
    let ar_nnz = if !d.efc_J_sparse || !crate::data::arena::is_dual(m) {
        0
    } else if rows_fit(m, d, nefc, nnz, ar_bound) {
        ar_bound
    } else {
        let mut s = d.solver_scratch.take().unwrap_or_default();
        let n = crate::solver::nnz::ar_nnz_all(m, d, &mut s.nnz);
        d.solver_scratch = Some(s);
        n
    };
    if rows_overflow(m, d, nefc, nnz, ar_nnz) {
        return;
    }
    params::compute(m, d);
    for c in 0..ncone {
        let EfcCone { adr, mu, .. } = d.efc_cone[c];
        let id = d.efc_id[adr];
        if d.efc_type[adr] != ConstraintType::ContactFrictionless {
            d.contact[id].mu = mu.to_subset().unwrap_or(f64::NAN);
        }
    }
}

/// True (and the rows dropped, with `CnstrFull` and info `narena`) if `nefc` rows with `nnz`
/// sparse Jacobian entries (dense: `nefc·nv`) do not fit in the arena beside the contacts, with
/// the dual solvers' arrays when they are used (`ar_nnz` entries of a sparse AR; MuJoCo
/// allocates them with the rows, `arena::dual_bytes`).
fn rows_overflow<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    nefc: usize,
    nnz: usize,
    ar_nnz: usize,
) -> bool {
    if rows_fit(m, d, nefc, nnz, ar_nnz) {
        return false;
    }
    d.drop_rows(m.nv);
    d.warn(Warning::CnstrFull, crate::data::narena(m) as i64);
    true
}

/// True if the rows of [`rows_overflow`] fit: the arena's bytes and the caps of
/// `arena::rows_over_caps`, both nondecreasing in `ar_nnz`.
fn rows_fit<T: Scalar>(m: &Model, d: &Data<T>, nefc: usize, nnz: usize, ar_nnz: usize) -> bool {
    use crate::data::arena;
    let narena = crate::data::narena(m);
    let used = (d.contact.len() * arena::CONTACT_BYTES) as u128;
    let sparse = d.efc_J_sparse;
    let mut need = used + arena::efc_bytes(nefc, m.nv, nnz, sparse);
    let dual = arena::is_dual(m);
    if dual {
        need += arena::dual_bytes(nefc, m.nv, nnz, ar_nnz, sparse);
    }
    let entries = if sparse {
        nnz
    } else {
        nefc.saturating_mul(m.nv)
    };
    need <= narena as u128 && !arena::rows_over_caps(nefc, entries, ar_nnz, dual, !sparse)
}

/// Velocity stage of the constraint pipeline (`mj_referenceConstraint`): `efc_vel = J qvel`
/// and `efc_aref = −B vel − K d (pos − margin)`, minus `J̇ qvel` on connect and weld rows
/// (Computation "Inverse dynamics"; docs/mujoco-behaviour.md#parameters). Needs `cvel`/`cdof_dot`
/// ([`crate::smooth::com::com_vel`]).
pub fn reference_constraint<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let nv = m.nv;
    let n = d.nefc;
    for r in 0..n {
        d.efc_vel[r] = d.efc_J_row(r, nv).dot(&d.qvel);
    }
    params::aref(d);
    let mut r = 0;
    while r < n {
        if d.efc_type[r] != ConstraintType::Equality {
            break;
        }
        let e = d.efc_id[r];
        let t = m.eq_type[e];
        if matches!(t, EqType::Connect | EqType::Weld) {
            let (b1, p1, q1) = eq_side(m, d, e, 0);
            let (b2, p2, q2) = eq_side(m, d, e, 1);
            let (dp1, dw1) = jac_dot_mul(m, d, &p1, b1, &d.qvel);
            let (dp2, dw2) = jac_dot_mul(m, d, &p2, b2, &d.qvel);
            let dp = dp1 - dp2;
            for a in 0..3 {
                d.efc_aref[r + a] -= dp[a];
            }
            if t == EqType::Weld {
                // d/dt [½ ts Im(q̄2 ⊗ (0, ω1 − ω2) ⊗ q1 rel)] with q̇ = ½ (0, ω) ⊗ q
                let half: T = sc(0.5);
                let ts: T = sc(m.eq_data[e][10]);
                let w1 = ang(&d.cvel[b1]);
                let w2 = ang(&d.cvel[b2]);
                let w = w1 - w2;
                let qc2 = q2.conjugate();
                let qr = q1 * weld_rel::<T>(m, e);
                let z = T::zero();
                let dqc2 = -(qc2 * Quaternion::from_parts(z, w2)) * half;
                let dqr = Quaternion::from_parts(z, w1) * qr * half;
                let jd = (im_sandwich(&dqc2, &w, &qr)
                    + im_sandwich(&qc2, &(dw1 - dw2), &qr)
                    + im_sandwich(&qc2, &w, &dqr))
                    * (half * ts);
                for a in 0..3 {
                    d.efc_aref[r + 3 + a] -= jd[a];
                }
            }
        }
        r += eq_nrow(m, e);
    }
}
