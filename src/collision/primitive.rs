//! Closed-form colliders for planes, spheres, capsules and cylinders (Computation "Checking"),
//! generic over the scalar so derivatives propagate through contact geometry.
//!
//! Conventions (docs/mujoco-behaviour.md#contacts): the normal points from geom 0 to geom 1, `dist`
//! is signed, the point lies midway between the two surfaces.

use super::sink::{f64of, pose, Sink};
use crate::data::Data;
use crate::math::{sc, Scalar};
use crate::model::Model;
use nalgebra::Vector3;

/// Sphere–sphere contact between balls `(c1, r1)` and `(c2, r2)`; coincident centres use +x.
pub fn spheres<T: Scalar>(s: &mut Sink<T>, c1: Vector3<T>, r1: T, c2: Vector3<T>, r2: T) {
    spheres_or(
        s,
        c1,
        r1,
        c2,
        r2,
        Vector3::new(T::one(), T::zero(), T::zero()),
    );
}

/// [`spheres`] with the normal `fallback` (unit) where the centres coincide (`|c2 − c1| <
/// 1e-15`, MuJoCo's `mjMINVAL`). There `dist = |c2 − c1| − r1 − r2` keeps its value and is
/// differentiated as `fallback · (c2 − c1) − r1 − r2` (the distance along the contact normal;
/// `|·|` has no derivative at 0, and dual scalars would give NaN).
pub fn spheres_or<T: Scalar>(
    s: &mut Sink<T>,
    c1: Vector3<T>,
    r1: T,
    c2: Vector3<T>,
    r2: T,
    fallback: Vector3<T>,
) {
    let dv = c2 - c1;
    let len = dv.norm();
    let (n, dist) = if len > sc(1e-15) {
        (dv / len, len - r1 - r2)
    } else {
        // value: len − r1 − r2 to the bit (lin − f64(lin) is an exact zero in f64)
        let lin = fallback.dot(&dv);
        let len0: T = sc(f64of(len));
        (fallback, lin - sc::<T>(f64of(lin)) + len0 - r1 - r2)
    };
    if !(dist <= s.margin) {
        return;
    }
    let pos = c1 + n * (r1 + dist * sc(0.5));
    s.add(dist, pos, n, None);
}

/// Closest point to `p` on the segment `c ± a h` (`a` unit): returns the axial parameter.
pub fn seg_point_param<T: Scalar>(c: &Vector3<T>, a: &Vector3<T>, h: T, p: &Vector3<T>) -> T {
    clamp(a.dot(&(p - c)), -h, h)
}

#[inline]
pub(crate) fn clamp<T: Scalar>(x: T, lo: T, hi: T) -> T {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// Closest points of segments `c1 ± a1 h1`, `c2 ± a2 h2` (unit axes, not parallel): returns the
/// axial parameters (s, t).
pub fn seg_seg_params<T: Scalar>(
    c1: &Vector3<T>,
    a1: &Vector3<T>,
    h1: T,
    c2: &Vector3<T>,
    a2: &Vector3<T>,
    h2: T,
) -> (T, T) {
    let r = c1 - c2;
    let b = a1.dot(a2);
    let c = a1.dot(&r);
    let f = a2.dot(&r);
    let den = T::one() - b * b;
    let mut s = if den > sc(1e-15) {
        clamp((b * f - c) / den, -h1, h1)
    } else {
        T::zero()
    };
    let mut t = b * s + f;
    if t < -h2 {
        t = -h2;
        s = clamp(b * t - c, -h1, h1);
    } else if t > h2 {
        t = h2;
        s = clamp(b * t - c, -h1, h1);
    }
    (s, t)
}

/// Plane normal (z axis) and position.
fn plane<T: Scalar>(d: &Data<T>, g: usize) -> (Vector3<T>, Vector3<T>) {
    let (p, r) = pose(d, g);
    (r.column(2).into_owned(), p)
}

/// Plane–sphere: one contact at the sphere's lowest point moved half the distance along the normal.
pub fn plane_sphere<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [gp, g] = s.geom;
    let (n, p0) = plane(d, gp);
    let (c, _) = pose(d, g);
    let r = sc::<T>(m.geom_size[g][0]);
    plane_ball(s, &n, &p0, &c, r, None);
}

fn plane_ball<T: Scalar>(
    s: &mut Sink<T>,
    n: &Vector3<T>,
    p0: &Vector3<T>,
    c: &Vector3<T>,
    r: T,
    t: Option<Vector3<T>>,
) {
    let dist = n.dot(&(c - p0)) - r;
    let pos = c - n * (r + dist * sc(0.5));
    s.add(dist, pos, *n, t);
}

/// Plane–capsule: the two end spheres; tangent 1 is the capsule axis projected on the plane.
pub fn plane_capsule<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [gp, g] = s.geom;
    let (n, p0) = plane(d, gp);
    let (c, rm) = pose(d, g);
    let a = rm.column(2).into_owned();
    let r = sc::<T>(m.geom_size[g][0]);
    let h = sc::<T>(m.geom_size[g][1]);
    plane_ball(s, &n, &p0, &(c + a * h), r, Some(a));
    plane_ball(s, &n, &p0, &(c - a * h), r, Some(a));
}

/// Plane–box: the corners on the plane side of the box centre that are within the margin.
pub fn plane_box<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [gp, g] = s.geom;
    let (n, p0) = plane(d, gp);
    let (c, rm) = pose(d, g);
    let sz = m.geom_size[g];
    let center = n.dot(&(c - p0));
    let mut count = 0;
    for k in 0..8 {
        let mut off = Vector3::zeros();
        for i in 0..3 {
            let sgn = if k & (1 << i) != 0 { 1.0 } else { -1.0 };
            off += rm.column(i) * sc::<T>(sgn * sz[i]);
        }
        let proj = n.dot(&off);
        if proj > T::zero() {
            continue;
        }
        let dist = center + proj;
        if dist <= s.margin {
            let corner = c + off;
            s.add(dist, corner - n * (dist * sc(0.5)), n, None);
            count += 1;
            if count >= 4 {
                break;
            }
        }
    }
}

/// Plane–cylinder: the deepest rim point of the near cap, the matching point of the far cap and
/// two more near-cap rim points at ±120° (up to 4 contacts).
pub fn plane_cylinder<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [gp, g] = s.geom;
    let (n, p0) = plane(d, gp);
    let (c, rm) = pose(d, g);
    let mut a = rm.column(2).into_owned();
    let r = sc::<T>(m.geom_size[g][0]);
    let h = sc::<T>(m.geom_size[g][1]);
    // make `a` point away from the plane so the near cap is at c - a h
    if n.dot(&a) < T::zero() {
        a = -a;
    }
    let mut v = -(n - a * n.dot(&a));
    let vn = v.norm();
    if vn > sc(1e-12) {
        v /= vn;
    } else {
        v = rm.column(0).into_owned();
    }
    let w = a.cross(&v);
    let near = c - a * h;
    let far = c + a * h;
    let pts = [
        near + v * r,
        far + v * r,
        near + (v * sc::<T>(-0.5) + w * sc::<T>(0.75f64.sqrt())) * r,
        near + (v * sc::<T>(-0.5) - w * sc::<T>(0.75f64.sqrt())) * r,
    ];
    for p in pts {
        let dist = n.dot(&(p - p0));
        s.add(dist, p - n * (dist * sc(0.5)), n, None);
    }
}

/// Sphere–sphere.
pub fn sphere_sphere<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let (c1, c2) = (d.geom_xpos[g1], d.geom_xpos[g2]);
    spheres(s, c1, sc(m.geom_size[g1][0]), c2, sc(m.geom_size[g2][0]));
}

/// Sphere–capsule: sphere against the closest point of the capsule segment.
pub fn sphere_capsule<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let c1 = d.geom_xpos[g1];
    let (c2, rm) = pose(d, g2);
    let a = rm.column(2).into_owned();
    let h = sc::<T>(m.geom_size[g2][1]);
    let t = seg_point_param(&c2, &a, h, &c1);
    spheres(
        s,
        c1,
        sc(m.geom_size[g1][0]),
        c2 + a * t,
        sc(m.geom_size[g2][0]),
    );
}

/// Capsule–capsule: closest points of the segments; nearly parallel axes give two contacts at
/// the ends of the overlap of the segments.
pub fn capsule_capsule<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let (c1, r1m) = pose(d, g1);
    let (c2, r2m) = pose(d, g2);
    let (a1, a2) = (r1m.column(2).into_owned(), r2m.column(2).into_owned());
    let (r1, h1) = (sc::<T>(m.geom_size[g1][0]), sc::<T>(m.geom_size[g1][1]));
    let (r2, h2) = (sc::<T>(m.geom_size[g2][0]), sc::<T>(m.geom_size[g2][1]));
    let cross = a1.cross(&a2);
    if cross.norm_squared() < sc(1e-8) {
        // Overlap interval along a1: seg1 is [-h1, h1], seg2 projects to [lo2, hi2].
        let b = a1.dot(&a2);
        let m2 = a1.dot(&(c2 - c1));
        let (e1, e2) = (m2 - b * h2, m2 + b * h2);
        let (lo2, hi2, lo_end, hi_end) = if e1 <= e2 {
            (e1, e2, -h2, h2)
        } else {
            (e2, e1, h2, -h2)
        };
        // lower end of the overlap
        if lo2 > -h1 {
            let q = c2 + a2 * lo_end;
            let t = seg_point_param(&c1, &a1, h1, &q);
            spheres(s, c1 + a1 * t, r1, q, r2);
        } else {
            let p = c1 - a1 * h1;
            let t = seg_point_param(&c2, &a2, h2, &p);
            spheres(s, p, r1, c2 + a2 * t, r2);
        }
        // upper end
        if hi2 < h1 {
            let q = c2 + a2 * hi_end;
            let t = seg_point_param(&c1, &a1, h1, &q);
            spheres(s, c1 + a1 * t, r1, q, r2);
        } else {
            let p = c1 + a1 * h1;
            let t = seg_point_param(&c2, &a2, h2, &p);
            spheres(s, p, r1, c2 + a2 * t, r2);
        }
        return;
    }
    let (ps, pt) = seg_seg_params(&c1, &a1, h1, &c2, &a2, h2);
    // crossing segments (closest points coincide): MuJoCo 4.0.0's normal is a1 × a2 (checked on
    // the oracle: fromto x against y gives +z), not the spheres' default +x. In planar models
    // crossing capsules are the generic case, and this normal is out of the plane.
    let n = cross / cross.norm();
    spheres_or(s, c1 + a1 * ps, r1, c2 + a2 * pt, r2, n);
}

/// Sphere–cylinder: sphere against the closest point of the solid cylinder; a centre inside the
/// cylinder is pushed out through the nearest side or cap.
pub fn sphere_cylinder<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let c1 = d.geom_xpos[g1];
    let rs = sc::<T>(m.geom_size[g1][0]);
    let (c2, rm) = pose(d, g2);
    let (rc, hc) = (sc::<T>(m.geom_size[g2][0]), sc::<T>(m.geom_size[g2][1]));
    let a = rm.column(2).into_owned();
    let rel = c1 - c2;
    let z = a.dot(&rel);
    let radial = rel - a * z;
    let rho = radial.norm();
    let inside_r = rho <= rc;
    let inside_z = z.abs() <= hc;
    if inside_r && inside_z {
        // centre inside: nearest boundary (side or cap)
        let dside = rc - rho;
        let dcap = hc - z.abs();
        let (n, depth) = if dside < dcap && rho > sc(1e-15) {
            (radial / rho, dside)
        } else {
            (if z >= T::zero() { a } else { -a }, dcap)
        };
        // normal from sphere to cylinder points inward: -n
        let dist = -depth - rs;
        let nn = -n;
        let pos = c1 + nn * (rs + dist * sc(0.5));
        s.add(dist, pos, nn, None);
        return;
    }
    // closest point on the cylinder
    let zc = clamp(z, -hc, hc);
    let q = if rho > rc {
        c2 + a * zc + radial * (rc / rho)
    } else {
        c2 + a * zc + radial
    };
    spheres(s, c1, rs, q, T::zero());
}
