//! Jacobians of points on bodies (`mj_jac`, `mj_jacBody`, `mj_jacBodyCom`, `mj_jacSite`) and the
//! mapping of a Cartesian force/torque to joint space (`mj_applyFT`); Computation "General
//! framework".
//!
//! Outputs are dense `3 × nv` row-major slices. Both use `cdof` and `subtree_com` (run
//! [`crate::smooth::kinematics::kinematics`] and [`crate::smooth::com::com_pos`] first).

use crate::data::Data;
use crate::math::spatial::{ang, body_last_dof, dof_parent, lin};
use crate::math::Scalar;
use crate::model::Model;
use nalgebra::Vector3;

/// Translational (`jacp`) and rotational (`jacr`) Jacobians of the world point `point` attached
/// to body `body`: `v_point = jacp · qvel`, `ω_body = jacr · qvel`.
pub fn jac<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    point: &Vector3<T>,
    body: usize,
    mut jacp: Option<&mut [T]>,
    mut jacr: Option<&mut [T]>,
) {
    let nv = m.nv;
    for j in [jacp.as_deref_mut(), jacr.as_deref_mut()]
        .into_iter()
        .flatten()
    {
        j[..3 * nv].iter_mut().for_each(|x| *x = T::zero());
    }
    jac_chain(m, d, point, body, jacp, jacr);
}

/// [`jac`] without the clearing: writes only the columns of the dofs on `body`'s path to the
/// root (the Jacobians' nonzeros) and leaves the others as they are, so that a caller going
/// over many bodies clears only what it wrote.
pub fn jac_chain<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    point: &Vector3<T>,
    body: usize,
    mut jacp: Option<&mut [T]>,
    mut jacr: Option<&mut [T]>,
) {
    let nv = m.nv;
    let r = point - d.subtree_com[m.body_rootid[body]];
    let mut i = body_last_dof(m, body);
    while let Some(k) = i {
        let w = ang(&d.cdof[k]);
        if let Some(jp) = jacp.as_deref_mut() {
            let c = lin(&d.cdof[k]) + w.cross(&r);
            for a in 0..3 {
                jp[a * nv + k] = c[a];
            }
        }
        if let Some(jr) = jacr.as_deref_mut() {
            for a in 0..3 {
                jr[a * nv + k] = w[a];
            }
        }
        i = dof_parent(m, k);
    }
}

/// Jacobian of the body frame origin (`mj_jacBody`).
pub fn jac_body<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    body: usize,
    jacp: Option<&mut [T]>,
    jacr: Option<&mut [T]>,
) {
    jac(m, d, &d.xpos[body], body, jacp, jacr);
}

/// Jacobian of the body's center of mass (`mj_jacBodyCom`).
pub fn jac_body_com<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    body: usize,
    jacp: Option<&mut [T]>,
    jacr: Option<&mut [T]>,
) {
    jac(m, d, &d.xipos[body], body, jacp, jacr);
}

/// Jacobian of a site (`mj_jacSite`).
pub fn jac_site<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    site: usize,
    jacp: Option<&mut [T]>,
    jacr: Option<&mut [T]>,
) {
    jac(m, d, &d.site_xpos[site], m.site_bodyid[site], jacp, jacr);
}

/// Adds `Jpᵀ force + Jrᵀ torque` to `qfrc` for a force applied at world point `point` of body
/// `body` (`mj_applyFT`). Low-level form taking `cdof`/`subtree_com` so `qfrc` may be a field of
/// the same `Data`.
#[allow(clippy::too_many_arguments)]
pub fn apply_ft_raw<T: Scalar>(
    m: &Model,
    cdof: &[nalgebra::Vector6<T>],
    subtree_com: &[Vector3<T>],
    force: &Vector3<T>,
    torque: &Vector3<T>,
    point: &Vector3<T>,
    body: usize,
    qfrc: &mut [T],
) {
    let r = point - subtree_com[m.body_rootid[body]];
    let mom = r.cross(force) + torque;
    let mut i = body_last_dof(m, body);
    while let Some(k) = i {
        qfrc[k] += lin(&cdof[k]).dot(force) + ang(&cdof[k]).dot(&mom);
        i = dof_parent(m, k);
    }
}

/// `apply_ft_raw` with the kinematics of `d`; `qfrc` must not be a field of `d`.
pub fn apply_ft<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    force: &Vector3<T>,
    torque: &Vector3<T>,
    point: &Vector3<T>,
    body: usize,
    qfrc: &mut [T],
) {
    apply_ft_raw(m, &d.cdof, &d.subtree_com, force, torque, point, body, qfrc);
}

/// Time derivative of the point Jacobian (`mj_jacDot`; Computation "Constraint model", J̇v for
/// connect/weld): column k is `l̇_k + ȧ_k × (p − c) + a_k × ṗ`, with `(ȧ, l̇) = cdof_dot[k]`,
/// `c` the subtree COM of the root and `ṗ` the velocity of `point` moving with `body`
/// (from `cvel`). Needs [`crate::smooth::com::com_vel`] (cvel, cdof_dot). Dense `3 × nv` row-major.
pub fn jac_dot<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    point: &Vector3<T>,
    body: usize,
    mut jacp: Option<&mut [T]>,
    mut jacr: Option<&mut [T]>,
) {
    let nv = m.nv;
    for j in [jacp.as_deref_mut(), jacr.as_deref_mut()]
        .into_iter()
        .flatten()
    {
        j[..3 * nv].iter_mut().for_each(|x| *x = T::zero());
    }
    jac_dot_cols(m, d, point, body, |k, cp, cr| {
        if let Some(jp) = jacp.as_deref_mut() {
            for a in 0..3 {
                jp[a * nv + k] = cp[a];
            }
        }
        if let Some(jr) = jacr.as_deref_mut() {
            for a in 0..3 {
                jr[a * nv + k] = cr[a];
            }
        }
    });
}

/// `(J̇p v, J̇r v)` for the point `point` on `body` without forming the Jacobian.
pub fn jac_dot_mul<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    point: &Vector3<T>,
    body: usize,
    v: &[T],
) -> (Vector3<T>, Vector3<T>) {
    let mut p = Vector3::zeros();
    let mut r = Vector3::zeros();
    jac_dot_cols(m, d, point, body, |k, cp, cr| {
        p += cp * v[k];
        r += cr * v[k];
    });
    (p, r)
}

/// Calls `f(k, J̇p[:,k], J̇r[:,k])` for every dof `k` on the chain of `body`.
fn jac_dot_cols<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    point: &Vector3<T>,
    body: usize,
    mut f: impl FnMut(usize, Vector3<T>, Vector3<T>),
) {
    let r = point - d.subtree_com[m.body_rootid[body]];
    let cv = &d.cvel[body];
    let pvel = lin(cv) + ang(cv).cross(&r);
    let mut i = body_last_dof(m, body);
    while let Some(k) = i {
        let cd = &d.cdof_dot[k];
        let wd = ang(cd);
        let cp = lin(cd) + wd.cross(&r) + ang(&d.cdof[k]).cross(&pvel);
        f(k, cp, wd);
        i = dof_parent(m, k);
    }
}
