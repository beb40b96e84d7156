//! Box colliders (Computation "Checking"): sphere–box, capsule–box, box–box; generic over the
//! scalar.

use super::sink::{pose, Sink};
use crate::data::Data;
use crate::math::{sc, Scalar};
use crate::model::Model;
use nalgebra::{Matrix3, Vector3};

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

/// Capsule–box (MuJoCo 4.0.0's rule, measured against the oracle): up to two sphere–box
/// contacts for balls on the capsule segment.
///
/// In the box frame, with the segment `c + a h t` (`t ∈ [-1, 1]`): the first point is the
/// closest candidate among (1) each segment end whose clamp onto the box moves at most one
/// coordinate (end inside the box or over a face), then (2) each of the 12 box edges against
/// the segment (edge parameter clamped first, then the segment parameter; an edge must be
/// closer by 1e-15 to win; parallel edges skipped). A second point is added when the segment
/// runs along the box: from a face-region end, the farthest point of the segment still over
/// that face; from the middle of an edge in an X configuration, the point where the segment
/// leaves the edge's adjacent face or the edge's span; from a corner, along the corner's
/// edge (axis component² > 1/2) or across its face, clipped to the box span. Each point is
/// then a ball of the capsule radius against the box.
pub fn capsule_box<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let (c, r1m) = pose(d, g1);
    let (r, hl) = (sc::<T>(m.geom_size[g1][0]), sc::<T>(m.geom_size[g1][1]));
    let (p, rm) = pose(d, g2);
    let sz = m.geom_size[g2].map(sc::<T>);
    let one = T::one();
    let two = sc::<T>(2.0);
    // segment in the box frame
    let pos = rm.transpose() * (c - p);
    let axis = rm.transpose() * r1m.column(2).into_owned();
    let ha = axis * hl;
    let mut axisdir = 0usize;
    for k in 0..3 {
        if ha[k] > T::zero() {
            axisdir |= 1 << k;
        }
    }
    // closest feature: kind (end face region / edge), segment and edge parameters
    enum Kind {
        End {
            t: i32,
            face: Option<usize>,
        },
        Edge {
            code: usize,
            corner: usize,
            edge: usize,
        },
    }
    let mut bestdist = s.margin + two * (r + hl + sz[0] + sz[1] + sz[2]);
    let mut best: Option<Kind> = None;
    let (mut bsp, mut bbp) = (T::zero(), T::zero());
    for t in [-1i32, 1] {
        let e = pos + ha * sc::<T>(t as f64);
        let mut q = e;
        let (mut nclamp, mut face) = (0, None);
        for k in 0..3 {
            if q[k] < -sz[k] {
                q[k] = -sz[k];
                nclamp += 1;
                face = Some(k);
            } else if q[k] > sz[k] {
                q[k] = sz[k];
                nclamp += 1;
                face = Some(k);
            }
        }
        if nclamp > 1 {
            continue;
        }
        let dd = (q - e).norm_squared();
        if dd < bestdist {
            bestdist = dd;
            bsp = sc(t as f64);
            best = Some(Kind::End { t, face });
        }
    }
    let mc = hl * hl;
    for j in 0..3 {
        for i in 0..8usize {
            if i & (1 << j) != 0 {
                continue;
            }
            // edge along axis j through the corner pattern i, parameter x1 ∈ [-1, 1]
            let mut e0 = Vector3::zeros();
            for k in 0..3 {
                e0[k] = if i & (1 << k) != 0 { sz[k] } else { -sz[k] };
            }
            e0[j] = T::zero();
            let dif = e0 - pos;
            let ma = sz[j] * sz[j];
            let mb = -sz[j] * ha[j];
            let u = -sz[j] * dif[j];
            let v = ha.dot(&dif);
            let det = ma * mc - mb * mb;
            if det.abs() < sc(1e-15) {
                continue;
            }
            let idet = one / det;
            let mut x1 = (mc * u - mb * v) * idet;
            let mut x2 = (ma * v - mb * u) * idet;
            let (mut s1, mut s2) = (1usize, 1usize);
            if x1 > one {
                x1 = one;
                s1 = 2;
                x2 = (v - mb) * (one / mc);
            } else if x1 < -one {
                x1 = -one;
                s1 = 0;
                x2 = (v + mb) * (one / mc);
            }
            let reclamp = |x1: &mut T, s1: &mut usize| {
                if *x1 > one {
                    *x1 = one;
                    *s1 = 2;
                } else if *x1 < -one {
                    *x1 = -one;
                    *s1 = 0;
                }
            };
            if x2 > one {
                x2 = one;
                s2 = 2;
                x1 = (u - mb) * (one / ma);
                reclamp(&mut x1, &mut s1);
            } else if x2 < -one {
                x2 = -one;
                s2 = 0;
                x1 = (u + mb) * (one / ma);
                reclamp(&mut x1, &mut s1);
            }
            let mut dv = dif - ha * x2;
            dv[j] += sz[j] * x1;
            let dd = dv.norm_squared();
            if dd < bestdist - sc(1e-15) {
                bestdist = dd;
                bsp = x2;
                bbp = x1;
                let code = s1 * 3 + s2;
                best = Some(Kind::Edge {
                    code,
                    corner: i + (1 << j) * (code / 6),
                    edge: j,
                });
            }
        }
    }
    let Some(kind) = best else {
        return;
    };
    let absd = |k: usize| ha[k].abs();
    let mut second: Option<T> = None;
    match kind {
        Kind::Edge { code, corner, .. } if code / 3 != 1 => {
            // closest box point is a corner
            let mut c1 = axisdir ^ corner;
            if c1 != 0 && c1 != 7 {
                let (mul, de, dp) = if matches!(c1, 1 | 2 | 4) {
                    (one, one - bsp, one + bsp)
                } else {
                    c1 = 7 - c1;
                    (-one, one + bsp, one - bsp)
                };
                let ax = c1.trailing_zeros() as usize;
                let (ax1, ax2) = ((ax + 1) % 3, (ax + 2) % 3);
                let sp = if axis[ax] * axis[ax] > sc(0.5) {
                    // along the corner's edge
                    let mut sp = de;
                    let e1 = two * sz[ax] / absd(ax);
                    if e1 < sp {
                        sp = e1;
                    }
                    sp * mul
                } else {
                    // across the corner's face
                    let mut sp = dp;
                    for k in [ax1, ax2] {
                        let e1 = two * sz[k] / absd(k);
                        if e1 < sp {
                            sp = e1;
                        }
                    }
                    -sp * mul
                };
                second = Some(sp);
            }
        }
        Kind::Edge { corner, edge, .. } => {
            // middle of an edge: a second point only in an X configuration
            let c1 = (axisdir ^ corner) & (7 - (1 << edge));
            if matches!(c1, 1 | 2 | 4) {
                let ax = edge;
                let (mut ax1, ax2c) = ((ax + 1) % 3, (ax + 2) % 3);
                if axis[ax1].abs() > axis[ax2c].abs() {
                    ax1 = ax2c;
                }
                let ax2 = 3 - ax - ax1;
                let (mul, mut sp) = if c1 & (1 << ax2) != 0 {
                    (one, one - bsp)
                } else {
                    (-one, one + bsp)
                };
                let e1 = two * sz[ax2] / absd(ax2);
                if e1 < sp {
                    sp = e1;
                }
                let e2 = if ((axisdir & (1 << ax)) != 0) == ((c1 & (1 << ax2)) != 0) {
                    one - bbp
                } else {
                    one + bbp
                };
                let e1 = sz[ax] * e2 / absd(ax);
                if e1 < sp {
                    sp = e1;
                }
                second = Some(sp * mul);
            }
        }
        Kind::End {
            t,
            face: Some(face),
        } => {
            // an end over a face: the farthest segment point still over that face
            let mul = if t == -1 { one } else { -one };
            let mut sp = two;
            let q = pos - ha * mul;
            for k in 0..3 {
                if k == face {
                    continue;
                }
                for lim in [sz[k], -sz[k]] {
                    let e1 = (lim - q[k]) / ha[k] * mul;
                    if e1 > T::zero() && e1 < sp {
                        sp = e1;
                    }
                }
            }
            second = Some(sp * mul);
        }
        Kind::End { face: None, .. } => {}
    }
    ball_box(s, c + rm * (ha * bsp), r, &p, &rm, &m.geom_size[g2]);
    if let Some(sp) = second {
        ball_box(s, c + rm * (ha * (sp + bsp)), r, &p, &rm, &m.geom_size[g2]);
    }
}

/// Box–box (MuJoCo 4.0.0's rule, measured against the oracle): separating-axis test over the
/// 3 + 3 face axes and the 9 edge-cross axes, then a face manifold or one edge contact.
///
/// Axis choice: face axes of box 1 then box 2, the largest separation wins (first on ties);
/// an edge axis must beat the current best by a relative bias of 1e-6 *and* the best face
/// (face manifolds are preferred on near-ties); edge axes with `sin² < 1e-16` are skipped.
/// A winning edge axis within ~8° of the best face axis (`|cos| > 0.99`) that is not deeper
/// than the face by 5% of the face depth is replaced by the face. Any axis separating by more
/// than `margin + 1e-13 Σ sizes` means no contact.
///
/// Face: the incident face (the other box's face most opposed to the reference normal) is
/// clipped against the reference face's side planes; every clipped vertex with height above
/// the reference face `<= margin` is a contact (near-duplicates dropped), placed midway
/// between the reference plane and the vertex, `dist` = that height. Edge: one contact at the
/// midpoint of the closest points of the two supporting edge segments, `dist` along the axis.
pub fn box_box<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let (p1, m1) = pose(d, g1);
    let (p2, m2) = pose(d, g2);
    let s1 = m.geom_size[g1].map(sc::<T>);
    let s2 = m.geom_size[g2].map(sc::<T>);
    let margin = s.margin;
    // box 2 axes in box 1's frame (columns), centres in each other's frames
    let rot = m1.transpose() * m2;
    let pos21 = m1.transpose() * (p2 - p1);
    let pos12 = m2.transpose() * (p1 - p2);
    let ra = rot.map(|x| x.abs());
    let septol = margin + sc::<T>(1e-13) * (s1[0] + s1[1] + s1[2] + s2[0] + s2[1] + s2[2]);

    // stage 1: separating axes; code 0..2 face of box 1, 3..5 face of box 2, 6 + 3i + j edge
    let mut best: Option<(T, usize)> = None;
    for i in 0..3 {
        let r2 = ra[(i, 0)] * s2[0] + ra[(i, 1)] * s2[1] + ra[(i, 2)] * s2[2];
        let sep = pos21[i].abs() - s1[i] - r2;
        if sep > septol {
            return;
        }
        if best.is_none_or(|b| sep > b.0) {
            best = Some((sep, i));
        }
    }
    for j in 0..3 {
        let r1 = ra[(0, j)] * s1[0] + ra[(1, j)] * s1[1] + ra[(2, j)] * s1[2];
        let sep = pos12[j].abs() - s2[j] - r1;
        if sep > septol {
            return;
        }
        if best.is_none_or(|b| sep > b.0) {
            best = Some((sep, 3 + j));
        }
    }
    let Some((sep_face, code_face)) = best else {
        return;
    };
    let (mut sep_best, mut code) = (sep_face, code_face);
    // unit edge-cross axis e_i x (column j of rot) in box 1's frame, None if near-parallel
    let edge_axis = |i: usize, j: usize| -> Option<Vector3<T>> {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let mut ax = Vector3::zeros();
        ax[i1] = -rot[(i2, j)];
        ax[i2] = rot[(i1, j)];
        let n2 = ax[i1] * ax[i1] + ax[i2] * ax[i2];
        if !(n2 >= sc(1e-16)) {
            return None;
        }
        Some(ax / n2.sqrt())
    };
    for i in 0..3 {
        for j in 0..3 {
            let Some(ax) = edge_axis(i, j) else {
                continue;
            };
            let r1 = s1[0] * ax[0].abs() + s1[1] * ax[1].abs() + s1[2] * ax[2].abs();
            let a2 = rot.transpose() * ax;
            let r2 = s2[0] * a2[0].abs() + s2[1] * a2[1].abs() + s2[2] * a2[2].abs();
            let sep = ax.dot(&pos21).abs() - r1 - r2;
            if sep > septol {
                return;
            }
            if sep - sc::<T>(1e-6) * sep.abs() > sep_best && sep > sep_face {
                sep_best = sep;
                code = 6 + 3 * i + j;
            }
        }
    }
    // an edge axis nearly parallel to the best face axis gives way to the face unless it is
    // deeper by 5% of the face depth
    if code >= 6 {
        if let Some(ax) = edge_axis((code - 6) / 3, (code - 6) % 3) {
            let fdir: Vector3<T> = if code_face < 3 {
                let mut e = Vector3::zeros();
                e[code_face] = T::one();
                e
            } else {
                rot.column(code_face - 3).into_owned()
            };
            if ax.dot(&fdir).abs() > sc(0.99)
                && sep_best < sep_face + sc::<T>(0.05) * sep_face.abs() + sc(1e-15)
            {
                code = code_face;
            }
        }
    }
    if code >= 6 {
        box_edge_contact(
            s,
            (code - 6) / 3,
            (code - 6) % 3,
            &rot,
            &pos21,
            &s1,
            &s2,
            septol,
            &p1,
            &m1,
        );
    } else {
        box_face_contacts(
            s,
            code,
            &rot,
            &pos21,
            &pos12,
            &s1,
            &s2,
            margin,
            (&p1, &m1),
            (&p2, &m2),
        );
    }
}

/// Edge–edge stage of [`box_box`]: box 1's edge along its axis `i`, box 2's along axis `j`
/// (frames as in `box_box`, everything in box 1's frame).
#[allow(clippy::too_many_arguments)]
fn box_edge_contact<T: Scalar>(
    s: &mut Sink<T>,
    i: usize,
    j: usize,
    rot: &Matrix3<T>,
    pos21: &Vector3<T>,
    s1: &[T; 3],
    s2: &[T; 3],
    septol: T,
    p1: &Vector3<T>,
    m1: &Matrix3<T>,
) {
    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
    let mut axis = Vector3::zeros();
    axis[i1] = -rot[(i2, j)];
    axis[i2] = rot[(i1, j)];
    axis /= axis.norm();
    if axis.dot(pos21) < T::zero() {
        axis = -axis;
    }
    // the axis in box 2's frame
    let a2 = rot.transpose() * axis;
    // a near-zero axis component leaves the supporting corner ambiguous: try both
    let amb = sc::<T>(1e-9);
    let amb1 = if axis[i1].abs() < amb {
        Some(i1)
    } else if axis[i2].abs() < amb {
        Some(i2)
    } else {
        None
    };
    let amb2 = if a2[j1].abs() < amb {
        Some(j1)
    } else if a2[j2].abs() < amb {
        Some(j2)
    } else {
        None
    };
    let d2 = rot.column(j).into_owned();
    let b = d2[i];
    let denom = T::one() - b * b;
    let mut bestw: Option<(T, Vector3<T>, Vector3<T>)> = None;
    for v1 in 0..if amb1.is_some() { 2 } else { 1 } {
        for v2 in 0..if amb2.is_some() { 2 } else { 1 } {
            // box 1 edge corner: support along +axis
            let mut c1 = Vector3::zeros();
            for k in [i1, i2] {
                c1[k] = if axis[k] >= T::zero() { s1[k] } else { -s1[k] };
            }
            if let (Some(k), 1) = (amb1, v1) {
                c1[k] = -c1[k];
            }
            // box 2 edge corner: support along -axis (box 2 frame)
            let mut cc = Vector3::zeros();
            for k in [j1, j2] {
                cc[k] = if a2[k] >= T::zero() { -s2[k] } else { s2[k] };
            }
            if let (Some(k), 1) = (amb2, v2) {
                cc[k] = -cc[k];
            }
            let c2 = rot * cc + pos21;
            // closest points of the segments c1 + e_i s, c2 + d2 t (clamped)
            let e = c2 - c1;
            let (d1e, d2e) = (e[i], d2.dot(&e));
            let mut sp = if denom < sc(1e-15) {
                T::zero()
            } else {
                (d1e - b * d2e) / denom
            };
            sp = super::primitive::clamp(sp, -s1[i], s1[i]);
            let tp = super::primitive::clamp(b * sp - d2e, -s2[j], s2[j]);
            sp = super::primitive::clamp(d1e + b * tp, -s1[i], s1[i]);
            let mut w1 = c1;
            w1[i] += sp;
            let w2 = c2 + d2 * tp;
            let g2 = (w2 - w1).norm_squared();
            if bestw.as_ref().is_none_or(|bw| g2 < bw.0) {
                bestw = Some((g2, w1, w2));
            }
        }
    }
    let Some((_, w1, w2)) = bestw else {
        return;
    };
    let dist = (w2 - w1).dot(&axis);
    if dist > septol {
        return;
    }
    let mid = (w1 + w2) * sc::<T>(0.5);
    s.add(dist, m1 * mid + p1, m1 * axis, None);
}

/// Face stage of [`box_box`]: `code` 0..2 is a face of box 1, 3..5 a face of box 2.
#[allow(clippy::too_many_arguments)]
fn box_face_contacts<T: Scalar>(
    s: &mut Sink<T>,
    code: usize,
    rot: &Matrix3<T>,
    pos21: &Vector3<T>,
    pos12: &Vector3<T>,
    s1: &[T; 3],
    s2: &[T; 3],
    margin: T,
    (p1, m1): (&Vector3<T>, &Matrix3<T>),
    (p2, m2): (&Vector3<T>, &Matrix3<T>),
) {
    let ref1 = code < 3;
    let a = if ref1 { code } else { code - 3 };
    let (sref, sinc, pref, mref, pinc) = if ref1 {
        (s1, s2, p1, m1, pos21)
    } else {
        (s2, s1, p2, m2, pos12)
    };
    // incident axes in the reference frame (columns)
    let rinc = if ref1 { *rot } else { rot.transpose() };
    let sgn = if pinc[a] >= T::zero() {
        T::one()
    } else {
        -T::one()
    };
    let mut binc = 0;
    for k in 1..3 {
        if rinc[(a, k)].abs() > rinc[(a, binc)].abs() {
            binc = k;
        }
    }
    let tinc = if sgn * rinc[(a, binc)] > T::zero() {
        -T::one()
    } else {
        T::one()
    };
    // incident face in (x, y, z): x, y along the reference face's axes, z the height above it
    let (ax, ay) = ((a + 1) % 3, (a + 2) % 3);
    let (bu, bv) = ((binc + 1) % 3, (binc + 2) % 3);
    let mut cx = [T::zero(); 3];
    let mut du = [T::zero(); 3];
    let mut dv = [T::zero(); 3];
    for (r, c) in [ax, ay, a].into_iter().enumerate() {
        cx[r] = pinc[c] + tinc * sinc[binc] * rinc[(c, binc)];
        du[r] = sinc[bu] * rinc[(c, bu)];
        dv[r] = sinc[bv] * rinc[(c, bv)];
    }
    cx[2] = sgn * cx[2] - sref[a];
    du[2] *= sgn;
    dv[2] *= sgn;
    const MAXV: usize = 12;
    let mut poly = [[T::zero(); 3]; MAXV];
    let mut tmp = [[T::zero(); 3]; MAXV];
    for (k, (su, sv)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
        .into_iter()
        .enumerate()
    {
        let (su, sv) = (sc::<T>(su), sc::<T>(sv));
        for r in 0..3 {
            poly[k][r] = cx[r] + su * du[r] + sv * dv[r];
        }
    }
    let mut n = 4;
    for (coord, sign, lim) in [
        (0, T::one(), sref[ax]),
        (0, -T::one(), sref[ax]),
        (1, T::one(), sref[ay]),
        (1, -T::one(), sref[ay]),
    ] {
        // Sutherland–Hodgman against sign * v[coord] <= lim
        let dd: [T; MAXV] = std::array::from_fn(|k| {
            if k < n {
                sign * poly[k][coord] - lim
            } else {
                T::zero()
            }
        });
        if dd[..n].iter().all(|&x| x <= T::zero()) {
            continue;
        }
        let mut nt = 0;
        for k in 0..n {
            let k1 = if k + 1 == n { 0 } else { k + 1 };
            let (dp, dq) = (dd[k], dd[k1]);
            if dp <= T::zero() && nt < MAXV {
                tmp[nt] = poly[k];
                nt += 1;
            }
            let cross = (dp < T::zero() && dq > T::zero()) || (dp > T::zero() && dq < T::zero());
            if cross && nt < MAXV {
                let t = dp / (dp - dq);
                let (p, q) = (poly[k], poly[k1]);
                tmp[nt] = std::array::from_fn(|r| p[r] + t * (q[r] - p[r]));
                nt += 1;
            }
        }
        n = nt;
        poly[..n].copy_from_slice(&tmp[..n]);
    }
    // vertices within the margin band, near-duplicates dropped
    let dupe2 = sc::<T>(1e-14) * (sref[ax] * sref[ax] + sref[ay] * sref[ay]);
    let mut acc = [[T::zero(); 3]; MAXV];
    let mut na = 0;
    for v in &poly[..n] {
        if v[2] > margin {
            continue;
        }
        let dup = acc[..na].iter().any(|w| {
            let (dx, dy) = (w[0] - v[0], w[1] - v[1]);
            dx * dx + dy * dy < dupe2
        });
        if !dup {
            acc[na] = *v;
            na += 1;
        }
    }
    let nsign = if ref1 { sgn } else { -sgn };
    let normal = mref.column(a) * nsign;
    for v in &acc[..na] {
        let mut pc = Vector3::zeros();
        pc[ax] = v[0];
        pc[ay] = v[1];
        pc[a] = sgn * (sref[a] + sc::<T>(0.5) * v[2]);
        s.add(v[2], mref * pc + pref, normal, None);
    }
}
