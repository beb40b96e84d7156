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
    let (p, rm) = pose(d, g2);
    ball_box(
        s,
        d.geom_xpos[g1],
        sc(m.geom_size[g1][0]),
        &p,
        &rm,
        &m.geom_size[g2],
    );
}

/// Sphere–box contact for a ball at `c` (radius `r`) against box `(p, rm, sz)`.
fn ball_box<T: Scalar>(
    s: &mut Sink<T>,
    c: Vector3<T>,
    r: T,
    p: &Vector3<T>,
    rm: &nalgebra::Matrix3<T>,
    sz: &[f64; 3],
) {
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

/// Signed distance from a point (box frame) to the box surface.
fn box_sdf(l: &Vector3<f64>, sz: &[f64; 3]) -> f64 {
    let q = Vector3::new(l.x.abs() - sz[0], l.y.abs() - sz[1], l.z.abs() - sz[2]);
    let outside = q.map(|x| x.max(0.0)).norm();
    outside + q.max().min(0.0)
}

/// Capsule–box: the capsule is a ball swept along its segment. Contact 1 is the ball at the
/// segment point of least signed distance to the box (found in `f64` by golden-section search
/// on the convex signed-distance function); contact 2 is the ball at the far end of the part of
/// the segment lying over the box face that contact 1 touches (two contacts for a capsule
/// resting along a face). MuJoCo chooses these points differently in deep penetration.
pub fn capsule_box<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let (c, r1m) = pose(d, g1);
    let a = r1m.column(2).into_owned();
    let (r, h) = (sc::<T>(m.geom_size[g1][0]), m.geom_size[g1][1]);
    let (p, rm) = pose(d, g2);
    let sz = m.geom_size[g2];
    // segment in the box frame, f64
    let cl: Vector3<f64> = (rm.transpose() * (c - p)).map(|x| super::f64of(x));
    let al: Vector3<f64> = (rm.transpose() * a).map(|x| super::f64of(x));
    let f = |t: f64| box_sdf(&(cl + al * t), &sz);
    let (mut lo, mut hi) = (-h, h);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..80 {
        let x1 = hi - g * (hi - lo);
        let x2 = lo + g * (hi - lo);
        if f(x1) <= f(x2) {
            hi = x2;
        } else {
            lo = x1;
        }
    }
    let mut t1 = 0.5 * (lo + hi);
    for e in [-h, h] {
        if f(e) <= f(t1) {
            t1 = e;
        }
    }
    if !t1.is_finite() {
        return;
    }
    let n0 = s.added;
    ball_box(s, c + a * sc::<T>(t1), r, &p, &rm, &sz);
    if s.added == n0 {
        return;
    }
    // face touched by contact 1: dominant axis of its normal in the box frame
    let nl: Vector3<f64> =
        (rm.transpose() * s.out[s.out.len() - 1].normal()).map(|x| super::f64of(x));
    let k = nl.iamax();
    // part of the segment whose projection lies on that face
    let (mut tlo, mut thi) = (-h, h);
    for i in 0..3 {
        if i == k {
            continue;
        }
        if al[i].abs() < 1e-12 {
            if cl[i].abs() > sz[i] {
                return;
            }
            continue;
        }
        let ta = (-sz[i] - cl[i]) / al[i];
        let tb = (sz[i] - cl[i]) / al[i];
        tlo = tlo.max(ta.min(tb));
        thi = thi.min(ta.max(tb));
    }
    if tlo > thi {
        return;
    }
    let t2 = if (t1 - tlo).abs() > (t1 - thi).abs() {
        tlo
    } else {
        thi
    };
    if (t2 - t1).abs() > 1e-9 {
        ball_box(s, c + a * sc::<T>(t2), r, &p, &rm, &sz);
    }
}

/// Box–box by the separating-axis test (3 + 3 face axes, 9 edge axes). The least-separated
/// face axis gives a reference face; the incident face of the other box is clipped against it and
/// every clipped vertex within the margin is a contact (up to 8). An edge axis that separates
/// clearly more than every face axis gives one edge–edge contact.
pub fn box_box<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let (c1, r1) = pose(d, g1);
    let (c2, r2) = pose(d, g2);
    let s1 = m.geom_size[g1].map(sc::<T>);
    let s2 = m.geom_size[g2].map(sc::<T>);
    let a: [Vector3<T>; 3] = std::array::from_fn(|i| r1.column(i).into_owned());
    let b: [Vector3<T>; 3] = std::array::from_fn(|i| r2.column(i).into_owned());
    let dv = c2 - c1;
    // separation along unit axis l (signed towards box 2)
    let sep = |l: &Vector3<T>| -> (T, T) {
        let mut ra = T::zero();
        let mut rb = T::zero();
        for i in 0..3 {
            ra += s1[i] * a[i].dot(l).abs();
            rb += s2[i] * b[i].dot(l).abs();
        }
        let dl = dv.dot(l);
        (
            dl.abs() - ra - rb,
            if dl >= T::zero() { T::one() } else { -T::one() },
        )
    };
    // best face axis: (separation, box 0/1, axis index, sign towards the other box)
    let mut best_face: Option<(T, usize, usize, T)> = None;
    for (bx, ax) in [a, b].iter().enumerate() {
        for (i, l) in ax.iter().enumerate() {
            let (sp, sg) = sep(l);
            if best_face.is_none_or(|bf| sp > bf.0) {
                // sign: direction from this box towards the other
                let sg = if bx == 0 { sg } else { -sg };
                best_face = Some((sp, bx, i, sg));
            }
        }
    }
    let Some((fsep, fbox, fax, fsg)) = best_face else {
        return;
    };
    let mut best_edge: Option<(T, usize, usize, Vector3<T>)> = None;
    for i in 0..3 {
        for j in 0..3 {
            let l = a[i].cross(&b[j]);
            let ln = l.norm();
            if !(ln > sc(1e-6)) {
                continue;
            }
            let l = l / ln;
            let (sp, sg) = sep(&l);
            if best_edge.is_none_or(|be| sp > be.0) {
                best_edge = Some((sp, i, j, l * sg));
            }
        }
    }
    if let Some((esep, i, j, l)) = best_edge {
        if esep > fsep + sc::<T>(1e-9) * (T::one() + fsep.abs()) {
            if !(esep <= s.margin) {
                return;
            }
            // supporting edges: box 1 towards +l, box 2 towards -l
            let mut e1 = c1;
            let mut e2 = c2;
            for k in 0..3 {
                if k != i {
                    let sg = if a[k].dot(&l) >= T::zero() {
                        T::one()
                    } else {
                        -T::one()
                    };
                    e1 += a[k] * (s1[k] * sg);
                }
                if k != j {
                    let sg = if b[k].dot(&l) >= T::zero() {
                        T::one()
                    } else {
                        -T::one()
                    };
                    e2 -= b[k] * (s2[k] * sg);
                }
            }
            // closest points of the edge lines; valid only inside both edges
            let bb = a[i].dot(&b[j]);
            let r = e1 - e2;
            let (cc, ff) = (a[i].dot(&r), b[j].dot(&r));
            let den = T::one() - bb * bb;
            let ps = (bb * ff - cc) / den;
            let pt = bb * ps + ff;
            if ps.abs() <= s1[i] && pt.abs() <= s2[j] {
                let q1 = e1 + a[i] * ps;
                let q2 = e2 + b[j] * pt;
                let dist = (q2 - q1).dot(&l);
                s.add(dist, (q1 + q2) * sc::<T>(0.5), l, None);
                return;
            }
        }
    }
    if !(fsep <= s.margin) {
        return;
    }
    // reference box R (face normal nr towards the other box), incident box I
    let (cr, ar, sr, ci, ai, si) = if fbox == 0 {
        (c1, &a, &s1, c2, &b, &s2)
    } else {
        (c2, &b, &s2, c1, &a, &s1)
    };
    let nr = ar[fax] * fsg;
    let fr = cr + nr * sr[fax];
    // incident face: most anti-parallel to nr
    let mut k = 0;
    let mut best = T::zero();
    for (j, axis) in ai.iter().enumerate() {
        let v = axis.dot(&nr).abs();
        if j == 0 || v > best {
            best = v;
            k = j;
        }
    }
    let ni = if ai[k].dot(&nr) > T::zero() {
        -ai[k]
    } else {
        ai[k]
    };
    let fi = ci + ni * si[k];
    let (u, v) = ((k + 1) % 3, (k + 2) % 3);
    let (uu, vv) = (ai[u] * si[u], ai[v] * si[v]);
    let mut poly = [Vector3::zeros(); 16];
    let mut tmp = [Vector3::zeros(); 16];
    poly[0] = fi + uu + vv;
    poly[1] = fi - uu + vv;
    poly[2] = fi - uu - vv;
    poly[3] = fi + uu - vv;
    let mut np = 4;
    // clip against the 4 side planes of the reference face
    for (e, h) in [
        (ar[(fax + 1) % 3], sr[(fax + 1) % 3]),
        (ar[(fax + 2) % 3], sr[(fax + 2) % 3]),
    ] {
        for sg in [T::one(), -T::one()] {
            let dir = e * sg;
            let off = dir.dot(&fr) + h;
            let mut nt = 0;
            for idx in 0..np {
                let p = poly[idx];
                let q = poly[(idx + 1) % np];
                let dp = dir.dot(&p) - off;
                let dq = dir.dot(&q) - off;
                if dp <= T::zero() {
                    tmp[nt] = p;
                    nt += 1;
                }
                if (dp < T::zero() && dq > T::zero()) || (dp > T::zero() && dq < T::zero()) {
                    tmp[nt] = p + (q - p) * (dp / (dp - dq));
                    nt += 1;
                }
            }
            np = nt.min(16);
            poly[..np].copy_from_slice(&tmp[..np]);
            if np == 0 {
                return;
            }
        }
    }
    let normal = if fbox == 0 { nr } else { -nr };
    for p in &poly[..np] {
        let dist = nr.dot(&(p - fr));
        s.add(dist, p - nr * (dist * sc(0.5)), normal, None);
    }
}
