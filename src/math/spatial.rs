//! Spatial-algebra helpers shared by the smooth pipeline (Computation "General framework").
//!
//! Motion and force 6-vectors are (rotation, translation) in a world-aligned frame; body
//! inertias use MuJoCo's 10-element `cinert` layout `(I00, I11, I22, I01, I02, I12, m c, m)`
//! (inertia about the frame origin, first moment `m c`, mass).

use crate::math::{sc, Scalar};
use crate::model::Model;
use nalgebra::{Vector3, Vector6};

/// `[f64; 3]` model constant as a scalar vector.
#[inline(always)]
pub fn v3<T: Scalar>(x: &[f64; 3]) -> Vector3<T> {
    Vector3::new(sc(x[0]), sc(x[1]), sc(x[2]))
}

#[inline(always)]
pub fn ang<T: Scalar>(v: &Vector6<T>) -> Vector3<T> {
    Vector3::new(v[0], v[1], v[2])
}

#[inline(always)]
pub fn lin<T: Scalar>(v: &Vector6<T>) -> Vector3<T> {
    Vector3::new(v[3], v[4], v[5])
}

#[inline(always)]
pub fn join<T: Scalar>(a: &Vector3<T>, l: &Vector3<T>) -> Vector6<T> {
    Vector6::new(a.x, a.y, a.z, l.x, l.y, l.z)
}

/// Motion cross product `v ×ₘ u` (derivative of the motion vector `u` moving with velocity `v`).
#[inline]
pub fn cross_motion<T: Scalar>(v: &Vector6<T>, u: &Vector6<T>) -> Vector6<T> {
    let (w, vl) = (ang(v), lin(v));
    let (uw, ul) = (ang(u), lin(u));
    join(&w.cross(&uw), &(w.cross(&ul) + vl.cross(&uw)))
}

/// Force cross product `v ×* f`.
#[inline]
pub fn cross_force<T: Scalar>(v: &Vector6<T>, f: &Vector6<T>) -> Vector6<T> {
    let (w, vl) = (ang(v), lin(v));
    let (fw, fl) = (ang(f), lin(f));
    join(&(w.cross(&fw) + vl.cross(&fl)), &w.cross(&fl))
}

/// Spatial inertia (cinert layout) times a motion vector: the momentum / force.
#[inline]
pub fn inert_mul<T: Scalar>(c: &[T; 10], v: &Vector6<T>) -> Vector6<T> {
    let (w, vl) = (ang(v), lin(v));
    let h = Vector3::new(c[6], c[7], c[8]);
    let iw = Vector3::new(
        c[0] * w.x + c[3] * w.y + c[4] * w.z,
        c[3] * w.x + c[1] * w.y + c[5] * w.z,
        c[4] * w.x + c[5] * w.y + c[2] * w.z,
    );
    join(&(iw + h.cross(&vl)), &(vl * c[9] - h.cross(&w)))
}

/// The last dof acting on body `b` (its own, or its nearest moving ancestor's), if any. The dofs
/// moving `b` are this dof and its `dof_parentid` chain.
#[inline]
pub fn body_last_dof(m: &Model, mut b: usize) -> Option<usize> {
    while b != 0 {
        if m.body_dofnum[b] > 0 {
            return Some(m.body_dofadr[b] + m.body_dofnum[b] - 1);
        }
        b = m.body_parentid[b];
    }
    None
}

/// Parent dof of `i` in the tree, if any.
#[inline(always)]
pub fn dof_parent(m: &Model, i: usize) -> Option<usize> {
    usize::try_from(m.dof_parentid[i]).ok()
}

/// Appends the dofs of body `b`'s chain to `out` (descending).
pub fn dof_chain(m: &Model, b: usize, out: &mut Vec<usize>) {
    let mut k = body_last_dof(m, b);
    while let Some(kk) = k {
        out.push(kk);
        k = dof_parent(m, kk);
    }
}
