//! Recursive Newton-Euler (`mj_rne`; Computation "General framework": the bias force `c(q, v)`),
//! in the COM frames of [`crate::com`].

use crate::constraint::assemble;
use crate::data::ConstraintType;
use crate::data::Data;
use crate::math::spatial::{cross_force, inert_mul, join};
use crate::math::{sc, Scalar};
use crate::model::{disable, EqType, Model, TrnType};
use nalgebra::{Vector3, Vector6};

/// `out = M(q) qacc + c(q, v)` if `flg_acc`, else `out = c(q, v)` (Coriolis, centrifugal and
/// gravitational forces). Gravity enters as the acceleration `-gravity` of the world body unless
/// the gravity flag is disabled. Needs `cdof`, `cinert`, `cvel`, `cdof_dot`. `out` must not alias
/// a field of `d` (use `std::mem::take`). Uses `scratch_body6[0..2]`.
pub fn rne<T: Scalar>(m: &Model, d: &mut Data<T>, flg_acc: bool, out: &mut [T]) {
    let [cacc, cfrc] = &mut d.scratch_body6;
    cacc[0] = if m.opt.disabled(disable::GRAVITY) {
        Vector6::zeros()
    } else {
        let g = m.opt.gravity;
        Vector6::new(
            T::zero(),
            T::zero(),
            T::zero(),
            sc(-g[0]),
            sc(-g[1]),
            sc(-g[2]),
        )
    };
    cfrc[0] = Vector6::zeros();
    for b in 1..m.nbody {
        let mut a = cacc[m.body_parentid[b]];
        let d0 = m.body_dofadr[b];
        for i in d0..d0 + m.body_dofnum[b] {
            a += d.cdof_dot[i] * d.qvel[i];
            if flg_acc {
                a += d.cdof[i] * d.qacc[i];
            }
        }
        cacc[b] = a;
        let v = &d.cvel[b];
        let iv = inert_mul(&d.cinert[b], v);
        cfrc[b] = inert_mul(&d.cinert[b], &a) + cross_force(v, &iv);
    }
    for b in (1..m.nbody).rev() {
        let p = m.body_parentid[b];
        if p != 0 {
            let f = cfrc[b];
            cfrc[p] += f;
        }
    }
    for i in 0..m.nv {
        out[i] = d.cdof[i].dot(&cfrc[m.dof_bodyid[i]]);
    }
}

/// `qfrc_bias = c(q, v)` (RNE with zero acceleration).
pub fn rne_bias<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let mut out = std::mem::take(&mut d.qfrc_bias);
    rne(m, d, false, &mut out);
    d.qfrc_bias = out;
}

/// RNE with the final accelerations and forces (`mj_rnePostConstraint`; API Reference
/// "Subcomponents"): body-level `cacc`, `cfrc_ext`, `cfrc_int` in the COM frames of `crate::com`,
/// `[rotation, translation]` order.
///
/// - `cacc[0] = -gravity` (0 if gravity is disabled),
///   `cacc[b] = cacc[parent] + Σ cdof_dot·qvel + Σ cdof·qacc` over the body's dofs;
/// - `cfrc_ext[b]` = `xfrc_applied[b]` moved from `xipos[b]` to the frame origin (torque
///   `τ + (xipos - c) × f`), plus the constraint forces acting on the body (contacts, connect and
///   weld equalities: see `post_constraint_ext`);
/// - `cfrc_int[b] = cinert·cacc + cvel ×* (cinert·cvel) - cfrc_ext[b]`, then summed from the
///   leaves to the root, so `cfrc_int[b]` is the force the parent exerts on subtree `b` and
///   `cfrc_int[0]` the total over the world's children.
///
/// Needs the position and velocity stages and `qacc`. Does not touch `qfrc_*`.
pub fn rne_post_constraint<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.cacc[0] = if m.opt.disabled(disable::GRAVITY) {
        Vector6::zeros()
    } else {
        let g = m.opt.gravity;
        Vector6::new(
            T::zero(),
            T::zero(),
            T::zero(),
            sc(-g[0]),
            sc(-g[1]),
            sc(-g[2]),
        )
    };
    d.cfrc_ext[0] = Vector6::zeros();
    for b in 1..m.nbody {
        let x = d.xfrc_applied[b];
        d.cfrc_ext[b] = if x.iter().all(|v| *v == T::zero()) {
            Vector6::zeros()
        } else {
            let f = Vector3::new(x[0], x[1], x[2]);
            let t = Vector3::new(x[3], x[4], x[5]);
            let r = d.xipos[b] - d.subtree_com[m.body_rootid[b]];
            join(&(t + r.cross(&f)), &f)
        };
    }
    post_constraint_ext(m, d);
    d.cfrc_int[0] = Vector6::zeros();
    for b in 1..m.nbody {
        let mut a = d.cacc[m.body_parentid[b]];
        let d0 = m.body_dofadr[b];
        for i in d0..d0 + m.body_dofnum[b] {
            a += d.cdof_dot[i] * d.qvel[i] + d.cdof[i] * d.qacc[i];
        }
        d.cacc[b] = a;
        let v = &d.cvel[b];
        let iv = inert_mul(&d.cinert[b], v);
        d.cfrc_int[b] = inert_mul(&d.cinert[b], &a) + cross_force(v, &iv) - d.cfrc_ext[b];
    }
    for b in (1..m.nbody).rev() {
        let f = d.cfrc_int[b];
        d.cfrc_int[m.body_parentid[b]] += f;
    }
}

/// Force and torque of contact `i` in its contact frame (`mj_contactForce`): `[normal, tangent
/// 1, tangent 2, torsion, roll 1, roll 2]` (the first `dim` entries used, the rest 0), decoded
/// from `efc_force`: elliptic and frictionless rows directly, pyramidal edges `(f⁺, f⁻)` per
/// friction direction `j` as normal `Σ f` and tangential `μ_j (f⁺ − f⁻)`. Zero for contacts
/// without rows (`efc_address < 0`).
pub fn contact_force<T: Scalar>(m: &Model, d: &Data<T>, i: usize) -> [T; 6] {
    let mut out = [T::zero(); 6];
    let c = &d.contact[i];
    let Ok(a) = usize::try_from(c.efc_address) else {
        return out;
    };
    if a >= d.nefc {
        return out;
    }
    let dim = c.dim;
    if dim == 1 || d.efc_type[a] != ConstraintType::ContactPyramidal {
        out[..dim].copy_from_slice(&d.efc_force[a..a + dim]);
        return out;
    }
    let _ = m;
    for j in 0..dim - 1 {
        let (p, n) = (d.efc_force[a + 2 * j], d.efc_force[a + 2 * j + 1]);
        out[0] += p + n;
        out[j + 1] = (p - n) * c.friction[j];
    }
    out
}

/// Adds the world-frame force `f` and torque `t` acting at world point `p` on body `b` (scaled by
/// `s`) to `cfrc_ext[b]`, moved to the COM frame of `b`'s tree.
#[inline]
fn add_ext<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    b: usize,
    p: &Vector3<T>,
    f: &Vector3<T>,
    t: &Vector3<T>,
    s: T,
) {
    add_ext_to(m, &d.subtree_com, &mut d.cfrc_ext, b, p, f, t, s);
}

/// [`add_ext`] on `ext` (a `cfrc_ext` moved out of `Data`), with `subtree_com` from `Data`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn add_ext_to<T: Scalar>(
    m: &Model,
    subtree_com: &[Vector3<T>],
    ext: &mut [Vector6<T>],
    b: usize,
    p: &Vector3<T>,
    f: &Vector3<T>,
    t: &Vector3<T>,
    s: T,
) {
    if b == 0 {
        return;
    }
    let r = p - subtree_com[m.body_rootid[b]];
    ext[b] += join(&((t + r.cross(f)) * s), &(f * s));
}

/// Constraint-force hook of [`rne_post_constraint`]: adds to `cfrc_ext`
/// - per contact with rows, the contact-frame wrench of [`contact_force`] rotated to the world
///   (`frameᵀ·f`, `frameᵀ·τ`) at the contact point: `+` on the second geom's body, `−` on the
///   first's (the normal points from geom 1 to geom 2);
/// - per spatial tendon, its force `F` (passive spring and damper, actuators with tendon
///   transmission `gear₀ · actuator_force`, its friction row and its limit rows, `+` below the
///   range and `−` above) as a tension along each straight segment `a → b` of its path, scaled by
///   the branch's `1/divisor`: `−F u` at `a` on `a`'s body and `+F u` at `b` on `b`'s body, `u =
///   (b − a)/|b − a|` (MuJoCo 4.0.0's `cfrc_ext`, checked on its test model, whose tendon wraps a
///   welded free body);
/// - per active connect / weld equality, its first three rows as a force at each side's anchor
///   (site position or body anchor, as in the constraint), `+` on side 1 and `−` on side 2;
///   weld rows 3..6 mapped through the transposed rotation Jacobian to the world torque
///   `½·ts·R₂ (w_e f + v_e × f)` (`q_e = (w_e, v_e) = q₂* ⊗ q₁ ⊗ relpose`, `ts` the torque
///   scale), `+` on side 1 and `−` on side 2.
pub fn post_constraint_ext<T: Scalar>(m: &Model, d: &mut Data<T>) {
    for i in 0..d.contact.len() {
        if d.contact[i].efc_address < 0 {
            continue;
        }
        let cf = contact_force(m, d, i);
        let c = &d.contact[i];
        let fr = c.frame.transpose();
        let f = fr * Vector3::new(cf[0], cf[1], cf[2]);
        let t = fr * Vector3::new(cf[3], cf[4], cf[5]);
        let p = c.pos;
        let [g1, g2] = c.geom;
        let (b1, b2) = (m.geom_bodyid[g1], m.geom_bodyid[g2]);
        add_ext(m, d, b1, &p, &f, &t, -T::one());
        add_ext(m, d, b2, &p, &f, &t, T::one());
    }
    for t in 0..m.ntendon {
        if d.ten_wrapnum[t] < 2 {
            continue;
        }
        let f = tendon_force(m, d, t);
        if f == T::zero() {
            continue;
        }
        let mut ext = std::mem::take(&mut d.cfrc_ext);
        let zero = Vector3::zeros();
        crate::smooth::tendon::for_each_segment(m, d, t, |a, ba, b, bb, s| {
            let u = b - a;
            let len = u.norm();
            if len >= sc(1e-15) {
                let force = u * (f * s / len);
                add_ext_to(m, &d.subtree_com, &mut ext, ba, a, &force, &zero, -T::one());
                add_ext_to(m, &d.subtree_com, &mut ext, bb, b, &force, &zero, T::one());
            }
        });
        d.cfrc_ext = ext;
    }
    let mut r = 0;
    while r < d.nefc {
        if d.efc_type[r] != ConstraintType::Equality {
            r += 1;
            continue;
        }
        let e = d.efc_id[r];
        let weld = match m.eq_type[e] {
            EqType::Connect => false,
            EqType::Weld => true,
            _ => {
                r += 1;
                continue;
            }
        };
        let (b1, p1, q1) = assemble::eq_side(m, d, e, 0);
        let (b2, p2, q2) = assemble::eq_side(m, d, e, 1);
        let f = Vector3::new(d.efc_force[r], d.efc_force[r + 1], d.efc_force[r + 2]);
        let t = if weld {
            // Jᵀ of the rotation rows: τ = ½·ts·R₂ (w_e f + v_e × f), q_e = q₂* ⊗ q₁ ⊗ relpose
            let ts: T = sc(m.eq_data[e][10]);
            let fr = Vector3::new(d.efc_force[r + 3], d.efc_force[r + 4], d.efc_force[r + 5]);
            let qe = q2.conjugate() * (q1 * assemble::weld_rel::<T>(m, e));
            let u = fr * qe.w + qe.imag().cross(&fr);
            assemble::im_sandwich(&q2, &u, &q2.conjugate()) * (ts * sc(0.5))
        } else {
            Vector3::zeros()
        };
        add_ext(m, d, b1, &p1, &f, &t, T::one());
        add_ext(m, d, b2, &p2, &f, &t, -T::one());
        r += if weld { 6 } else { 3 };
    }
}

/// The scalar force along tendon `t` (positive lengthens it): passive spring and damper,
/// `gear₀ · actuator_force` of the actuators with tendon transmission on `t`, and the
/// constraint forces of its friction row (Jacobian `ten_J`) and limit rows (`ten_J` at the lower
/// limit, `−ten_J` at the upper). Needs `actuator_force` and `efc_force`.
pub fn tendon_force<T: Scalar>(m: &Model, d: &Data<T>, t: usize) -> T {
    let mut f = crate::passive::tendon_passive_force(m, d, t);
    for a in 0..m.nu {
        if m.actuator_trntype[a] == TrnType::Tendon && m.actuator_trnid[a][0] == t as i32 {
            f += d.actuator_force[a] * sc(m.actuator_gear[a][0]);
        }
    }
    let mut sides = assemble::tendon_limits(m, d, t)
        .into_iter()
        .enumerate()
        .filter(|(_, x)| x.is_some())
        .map(|(side, _)| if side == 0 { T::one() } else { -T::one() });
    for r in 0..d.nefc {
        if d.efc_id[r] != t {
            continue;
        }
        match d.efc_type[r] {
            ConstraintType::FrictionTendon => f += d.efc_force[r],
            ConstraintType::LimitTendon => f += d.efc_force[r] * sides.next().unwrap_or(T::one()),
            _ => {}
        }
    }
    f
}
