//! Spatial-algebra helpers shared by the smooth pipeline (Computation "General framework").
//!
//! Motion and force 6-vectors are (rotation, translation) in a world-aligned frame; body
//! inertias use MuJoCo's 10-element `cinert` layout `(I00, I11, I22, I01, I02, I12, m c, m)`
//! (inertia about the frame origin, first moment `m c`, mass).

use crate::data::{sc, Scalar};
use crate::model::Model;
use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3, Vector6};

/// `[f64; 3]` model constant as a scalar vector.
#[inline(always)]
pub fn v3<T: Scalar>(x: &[f64; 3]) -> Vector3<T> {
    Vector3::new(sc(x[0]), sc(x[1]), sc(x[2]))
}

/// `[f64; 4]` (w, x, y, z) model constant as a scalar quaternion.
#[inline(always)]
pub fn q4<T: Scalar>(x: &[f64; 4]) -> Quaternion<T> {
    Quaternion::new(sc(x[0]), sc(x[1]), sc(x[2]), sc(x[3]))
}

/// Normalizes a quaternion `[w, x, y, z]` as `mju_normalize4`: a (near) zero quaternion becomes
/// the identity, and one within round-off of unit length (|‖q‖ − 1| ≤ 1e-15) keeps its value.
/// The derivative (dual numbers) is always that of `q/‖q‖`: where the value is kept it is
/// `r − (r − q)` with the difference taken on the values alone, as a constant, which is exact
/// (Sterbenz: `r` and `q` are within a factor of 2), so the value is `q`'s bit for bit.
#[inline]
pub fn normalize4<T: Scalar>(q: [T; 4]) -> [T; 4] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n < sc(1e-15) {
        return [T::one(), T::zero(), T::zero(), T::zero()];
    }
    let inv = T::one() / n;
    let r = [q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv];
    if (n - T::one()).abs() > sc(1e-15) {
        return r;
    }
    let re = |x: T| -> f64 { x.to_subset_unchecked() };
    let c = |a: T, b: T| -> T { sc(re(a) - re(b)) };
    [
        r[0] - c(r[0], q[0]),
        r[1] - c(r[1], q[1]),
        r[2] - c(r[2], q[2]),
        r[3] - c(r[3], q[3]),
    ]
}

/// [`normalize4`] on a nalgebra quaternion.
#[inline]
pub fn normalize_quat<T: Scalar>(q: Quaternion<T>) -> Quaternion<T> {
    let [w, i, j, k] = normalize4([q.w, q.i, q.j, q.k]);
    Quaternion::new(w, i, j, k)
}

/// Rotation matrix of a unit quaternion.
#[inline]
pub fn quat2mat<T: Scalar>(q: &Quaternion<T>) -> Matrix3<T> {
    UnitQuaternion::new_unchecked(*q)
        .to_rotation_matrix()
        .into_inner()
}

/// Quaternion of a rotation by `angle` about the unit `axis`.
#[inline]
pub fn axis_angle<T: Scalar>(axis: &Vector3<T>, angle: T) -> Quaternion<T> {
    let h = angle * sc(0.5);
    let s = h.sin();
    Quaternion::new(h.cos(), axis.x * s, axis.y * s, axis.z * s)
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
