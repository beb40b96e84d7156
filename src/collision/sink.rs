//! The narrow phase's output ([`Sink`]: geometric contacts within the margin) and the helpers
//! every collider shares: the contact frame from a normal, a geom's pose, a scalar's `f64` value.

use super::scratch::CollisionScratch;
use crate::data::{Contact, Data};
use crate::math::{sc, Scalar};
use crate::model::Model;
use nalgebra::{Matrix3, Vector3};

/// Completes a contact frame from its normal (docs/mujoco-behaviour.md#contacts): tangent 1 is `t`
/// (or (0,1,0) if `|n_y| < 0.5`, else (0,0,1)) made orthogonal to `n` and normalized; tangent 2 = n
/// × t1.
pub fn frame_from_normal<T: Scalar>(n: Vector3<T>, t: Option<Vector3<T>>) -> Matrix3<T> {
    let tiny = sc::<T>(1e-12);
    let mut t1 = Vector3::zeros();
    if let Some(t) = t {
        t1 = t - n * n.dot(&t);
    }
    let nt = t1.norm();
    if nt > tiny {
        t1 /= nt;
    } else {
        t1 = if n.y.abs() < sc(0.5) {
            Vector3::new(T::zero(), T::one(), T::zero())
        } else {
            Vector3::new(T::zero(), T::zero(), T::one())
        };
        t1 -= n * n.dot(&t1);
        let nt = t1.norm();
        if nt > tiny {
            t1 /= nt;
        }
    }
    let t2 = n.cross(&t1);
    Matrix3::from_rows(&[n.transpose(), t1.transpose(), t2.transpose()])
}

/// Output of a narrow-phase call: pushes geometric contacts into reserved capacity, keeping
/// those with `dist <= margin` (Computation "Checking"; docs/mujoco-behaviour.md#contacts
/// margin/gap).
pub struct Sink<'a, T: Scalar> {
    pub out: &'a mut Vec<Contact<T>>,
    /// The narrow phase's working storage (EPA polytopes, the multi-contact patch).
    pub scratch: &'a mut CollisionScratch,
    /// Most contacts `out` may hold (`Data::nconmax`).
    pub limit: usize,
    /// Contacts are kept up to this distance (margin + gap).
    pub margin: T,
    pub geom: [usize; 2],
    /// Number of contacts added by this call.
    pub added: usize,
    /// Contacts dropped for lack of capacity.
    pub dropped: usize,
}

impl<T: Scalar> Sink<'_, T> {
    /// Adds a contact with normal `n` (unit, geom 0 → geom 1) and optional tangent hint.
    pub fn add(&mut self, dist: T, pos: Vector3<T>, n: Vector3<T>, t: Option<Vector3<T>>) {
        if !(dist <= self.margin) || !pos.iter().all(|x| x.is_finite()) {
            return;
        }
        if self.out.len() >= self.limit {
            self.dropped += 1;
            return;
        }
        self.out.push(Contact::geometric(
            dist,
            pos,
            frame_from_normal(n, t),
            self.geom,
        ));
        self.added += 1;
    }
}

/// Geom pose in the world: position and rotation (columns = geom axes).
#[inline]
pub(crate) fn pose<T: Scalar>(d: &Data<T>, g: usize) -> (Vector3<T>, Matrix3<T>) {
    (d.geom_xpos[g], d.geom_xmat[g])
}

/// An axis-aligned box (low x, y, z, high x, y, z) that overlaps every other: a plane, a geom
/// without a bounding radius (the broad phase's body boxes, the midphase's trees).
pub(crate) const ALL_SPACE: [f64; 6] = [
    f64::NEG_INFINITY,
    f64::NEG_INFINITY,
    f64::NEG_INFINITY,
    f64::INFINITY,
    f64::INFINITY,
    f64::INFINITY,
];

/// The box (low x, y, z, high x, y, z) that overlaps nothing: the start of a union of boxes,
/// or a geom that is not swept.
pub(crate) const NO_SPACE: [f64; 6] = [
    f64::INFINITY,
    f64::INFINITY,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NEG_INFINITY,
    f64::NEG_INFINITY,
];

#[inline]
pub(crate) fn f64of<T: Scalar>(x: T) -> f64 {
    x.to_subset_unchecked()
}

/// The first explicit `pair` of geoms `g1`, `g2` (either order).
pub fn explicit_pair(m: &Model, g1: usize, g2: usize) -> Option<usize> {
    (0..m.npair.min(m.pair_geom1.len())).find(|&k| {
        (m.pair_geom1[k] == g1 && m.pair_geom2[k] == g2)
            || (m.pair_geom1[k] == g2 && m.pair_geom2[k] == g1)
    })
}
