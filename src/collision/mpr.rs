//! MuJoCo 4.0.0's convex collider under `<flag nativeccd="disable"/>`: Minkowski Portal
//! Refinement (MPR; G. Snethen, "XenoCollide: Complex Collision Made Simple", Game Programming
//! Gems 7, docs/references.md), the algorithm of the libccd library that MuJoCo then uses, with
//! `ccd_iterations` and `ccd_tolerance` as its iteration cap and tolerance (MuJoCo's XML
//! reference, `option`). Written from the algorithm; the conventions were measured on MuJoCo
//! 4.0.0 (tools/zoo/gen_regressions.py `mpr`):
//!
//! - the search runs on the Minkowski difference `A − B` of the two geoms' support functions
//!   (geom 0 is `A`) from the interior point `x_A − x_B` (the geoms' centres); a direction
//!   component of exactly zero gives a box's, capsule's or cylinder's middle, and a mesh of 10
//!   vertices or more takes its support on its hull graph ([`HULL_SUPPORT_MIN`]);
//! - **portal discovery:** a triangle of support points whose cone from the interior point
//!   contains the ray towards the origin; a support point not past the origin along its search
//!   direction proves the shapes apart (no contact);
//! - **refinement:** the portal is replaced, one vertex at a time, by the new support point
//!   along its outward normal, keeping the ray inside the cone, until the portal's plane passes
//!   the origin; then it goes on towards the surface until the support point gains less than
//!   `ccd_tolerance` over every portal vertex, or after `ccd_iterations` iterations;
//! - **depth and direction:** the distance from the origin to the last portal triangle and the
//!   direction to its closest point (the contact's normal, geom 0 → geom 1, `dist = −depth`);
//! - **position:** the origin's barycentric weights in the tetrahedron of the interior point and
//!   the portal (or, if they do not all agree in sign, in the portal along its normal) applied to
//!   the support points on each geom; the contact is the midpoint of the two points.
//!
//! MuJoCo then sets the normal of a pair with a sphere, a capsule or a cylinder from that geom's
//! surface at the contact position ([`surface_normal`]; a cylinder's side only, away from its
//! caps). With `multiccd` on, each pair without a sphere
//! ([`perturbs`]) gets up to four more
//! contacts from the search repeated on the two geoms turned oppositely by 1e-3 rad about the
//! first contact's tangents ([`perturbed`]).
//!
//! Measured to 1e-12 in `dist`, `pos` and frame on the pairs [`routed`] lists, no margin
//! (tests/engine/zoo_regressions.rs `mpr_contacts_are_mujocos`). Not reproduced, so kept on the
//! native collider: ellipsoid pairs (their normal is near the ellipsoid's normal at the surface
//! point nearest the contact, to about 1e-7, not reproduced to 1e-9) and a sphere or capsule on a
//! mesh with a contact margin (another normal). At poses where MPR's choice of portal ties in
//! round-off (frequent with box and mesh faces), MuJoCo's own contact jumps under a 1e-13 change
//! of the pose, and so may moreau's against it. With a margin, both geoms are grown by the mean of their `geom_margin`
//! and `dist` is the grown shapes' `−depth` plus twice that ([`Search`]).

use super::native::hill_climb;
use super::scratch::epa::Vert;
use super::shape::{Posed, Shape};
use super::simplex::count_support;
use crate::model::GeomType;
use nalgebra::Vector3;
use std::cell::Cell;

type V3 = Vector3<f64>;

/// The result of [`penetration`]: depth (≥ 0), unit direction geom 0 → geom 1 (zero when the
/// shapes only touch) and the contact position.
#[derive(Clone, Copy, Debug)]
pub struct Penetration {
    pub depth: f64,
    pub dir: V3,
    pub pos: V3,
}

/// Refinement steps before the portal must pass the origin (a guard against non-convergence on
/// degenerate input; MuJoCo's cap on the depth search is `ccd_iterations`).
const REFINE_CAP: usize = 10_000;

/// True if `x` is zero to double precision (|x| below machine epsilon).
#[inline]
fn tiny(x: f64) -> bool {
    x.abs() < f64::EPSILON
}

/// True if `a` equals `b` to machine epsilon, absolutely or relative to the larger magnitude.
#[inline]
fn close(a: f64, b: f64) -> bool {
    let d = (a - b).abs();
    d < f64::EPSILON || d < f64::EPSILON * a.abs().max(b.abs())
}

fn unit(v: V3) -> V3 {
    v / v.dot(&v).sqrt()
}

/// The search's settings: `ccd_iterations`, `ccd_tolerance`, the distance by which each
/// geom is grown along every direction (a contact margin: MuJoCo grows both geoms by the mean of
/// their `geom_margin`, measured on MuJoCo 4.0.0 with margins 0.01 and 0.004 on two meshes), and
/// each geom's hull graph when its support is found on it ([`HULL_SUPPORT_MIN`]).
#[derive(Clone, Copy, Debug)]
pub struct Search<'a> {
    pub iters: usize,
    pub tol: f64,
    pub grow: f64,
    pub graph: [Option<&'a crate::model::HullWalk>; 2],
}

/// A mesh of at least this many vertices with a hull graph (MuJoCo's `mesh_graph`) takes its
/// support point by steepest ascent on the graph, warm-started at the previous support vertex of
/// the same search (graph vertex 0 at its start, [`super::native::hill_climb`]); a smaller one
/// by the first maximum over its vertices. Measured on MuJoCo 4.0.0 at poses turned about one
/// world axis, where hull vertices tie exactly along a search direction, with a port of this
/// search: on a 10-gon and a 12-gon prism (20 and 24 vertices) the warm-started ascent gives
/// MuJoCo's contact at 59 of 60 and 54 of 54 poses whose contact stays put under 1e-16 moves,
/// the first maximum at 43 and 51, an ascent from graph vertex 0 at 53 and 50, one from
/// `mesh_extrema` at 43 and 53; the 9-vertex hull and the cube of tools/zoo/gen_mpr.py take the
/// first maximum; on dm_control's Kinova arm (`jaco_arm.xml`) base–link_3, two base vertices
/// tie exactly in one of `multiccd`'s searches (tools/zoo/gen_mpr.py `SYMMETRIC` keeps such
/// prisms).
pub const HULL_SUPPORT_MIN: usize = 10;

/// Below this length a direction's component across a cylinder's axis counts as none (MuJoCo's
/// `mjMINVAL`, 1e-15; measured on MuJoCo 4.0.0 with a cylinder over a cube turned about a
/// horizontal axis by 5e-16 rad, its cap's centre taken, and by 2e-15 rad, a rim point).
const AXIAL: f64 = 1e-15;

/// The support point of a box, capsule or cylinder in local direction `d` as MuJoCo 4.0.0's MPR
/// path takes it: a direction component of exactly zero selects the middle (a box's face or
/// edge centre, a capsule's or cylinder's mid-height; measured on MuJoCo 4.0.0 at poses turned
/// about one world axis, where the portal's second search direction lies exactly along it), and
/// a direction along a cylinder's axis ([`AXIAL`]) its cap's centre. Other shapes: the shared
/// support ([`Shape::support`]).
fn local_support(shape: &Shape, d: &V3) -> V3 {
    let sign = |x: f64| {
        if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    match *shape {
        Shape::Box(s) => V3::new(sign(d.x) * s[0], sign(d.y) * s[1], sign(d.z) * s[2]),
        Shape::Capsule(r, h) => {
            let n = d.norm();
            let b = if n > 0.0 { d * (r / n) } else { V3::zeros() };
            b + V3::new(0.0, 0.0, sign(d.z) * h)
        }
        Shape::Cylinder(r, h) => {
            let n = (d.x * d.x + d.y * d.y).sqrt();
            let (x, y) = if n > AXIAL {
                (d.x * r / n, d.y * r / n)
            } else {
                (0.0, 0.0)
            };
            V3::new(x, y, sign(d.z) * h)
        }
        _ => shape.support(d),
    }
}

/// The two geoms of a search with its settings and the graph vertex each mesh's ascent starts
/// from ([`HULL_SUPPORT_MIN`]).
struct Pair<'p, 'a> {
    a: &'p Posed<'a>,
    b: &'p Posed<'a>,
    s: &'p Search<'a>,
    warm: [Cell<usize>; 2],
}

impl Pair<'_, '_> {
    /// The support point of geom `k` in world direction `d` ([`local_support`], or the ascent on
    /// its hull graph).
    fn support(&self, k: usize, d: &V3) -> V3 {
        let p = [self.a, self.b][k];
        let l = p.mat.transpose() * d;
        let climbed = match (p.shape, self.s.graph[k]) {
            (Shape::Mesh(v), Some(g)) if v.len() >= HULL_SUPPORT_MIN => {
                hill_climb(g, &l, &self.warm[k]).and_then(|i| v.get(i))
            }
            _ => None,
        };
        let q = match climbed {
            Some(q) => V3::new(q[0], q[1], q[2]),
            None => local_support(&p.shape, &l),
        };
        p.pos + p.mat * q
    }

    /// The support point of `a − b` in direction `d` with both shapes grown by `grow`.
    fn grown(&self, d: &V3) -> Vert {
        count_support();
        let (pa, pb) = (self.support(0, d), self.support(1, &-d));
        let mut v = Vert {
            w: pa - pb,
            a: pa,
            b: pb,
        };
        let grow = self.s.grow;
        if grow != 0.0 {
            let u = d / d.norm();
            v.a += u * grow;
            v.b -= u * grow;
            v.w = v.a - v.b;
        }
        v
    }
}

/// Penetration of the convex shapes `a` and `b` (each grown by `s.grow`) by MPR (module docs);
/// `None` when they are apart or the search breaks down (non-finite values).
pub fn penetration(a: &Posed, b: &Posed, s: &Search) -> Option<Penetration> {
    let (iters, tol) = (s.iters, s.tol);
    let pair = Pair {
        a,
        b,
        s,
        warm: [Cell::new(0), Cell::new(0)],
    };
    let mut w0 = a.pos - b.pos;
    if w0 == V3::zeros() {
        // coincident centres: an interior point just off the origin
        w0.x += 1e-5;
    }
    let p0 = Vert {
        w: w0,
        a: a.pos,
        b: b.pos,
    };
    // portal discovery
    let mut d = unit(-w0);
    let p1 = pair.grown(&d);
    if !(p1.w.dot(&d) > 0.0) {
        return None;
    }
    d = w0.cross(&p1.w);
    if tiny(d.dot(&d)) {
        // the origin on the line through the interior point and the first support point
        let pos = (p1.a + p1.b) * 0.5;
        if p1.w == V3::zeros() {
            return Some(Penetration {
                depth: 0.0,
                dir: V3::zeros(),
                pos,
            });
        }
        let depth = p1.w.norm();
        return Some(Penetration {
            depth,
            dir: p1.w / depth,
            pos,
        });
    }
    d = unit(d);
    let mut p2 = pair.grown(&d);
    if !(p2.w.dot(&d) > 0.0) {
        return None;
    }
    let mut p1 = p1;
    d = unit((p1.w - w0).cross(&(p2.w - w0)));
    if d.dot(&w0) > 0.0 {
        std::mem::swap(&mut p1, &mut p2);
        d = -d;
    }
    let mut p3;
    let mut guard = 0;
    loop {
        guard += 1;
        if guard > REFINE_CAP {
            return None;
        }
        p3 = pair.grown(&d);
        if !(p3.w.dot(&d) > 0.0) {
            return None;
        }
        // the origin outside the plane through w0, p1, p3: p3 replaces p2
        let x = p1.w.cross(&p3.w).dot(&w0);
        if x < 0.0 && !tiny(x) {
            p2 = p3;
            d = unit((p1.w - w0).cross(&(p3.w - w0)));
            continue;
        }
        // outside the plane through w0, p3, p2: p3 replaces p1
        let x = p3.w.cross(&p2.w).dot(&w0);
        if x < 0.0 && !tiny(x) {
            p1 = p3;
            d = unit((p3.w - w0).cross(&(p2.w - w0)));
            continue;
        }
        break;
    }
    let mut portal = [p0, p1, p2, p3];
    // refinement until the portal passes the origin
    loop {
        guard += 1;
        if guard > REFINE_CAP {
            return None;
        }
        let n = normal(&portal)?;
        let x = n.dot(&portal[1].w);
        if tiny(x) || x > 0.0 {
            break;
        }
        let p4 = pair.grown(&n);
        let y = p4.w.dot(&n);
        if !(tiny(y) || y > 0.0) || reached(&portal, &p4, &n, tol) {
            return None;
        }
        expand(&mut portal, p4);
    }
    // on towards the surface
    let mut it = 0;
    loop {
        let n = normal(&portal)?;
        let p4 = pair.grown(&n);
        if reached(&portal, &p4, &n, tol) || it > iters {
            let q = closest_on_triangle(portal[1].w, portal[2].w, portal[3].w);
            let depth = q.dot(&q).sqrt();
            let dir = if tiny(depth) { V3::zeros() } else { q / depth };
            let pos = position(&portal, &n);
            if !(depth.is_finite() && pos.iter().all(|x| x.is_finite())) {
                return None;
            }
            return Some(Penetration { depth, dir, pos });
        }
        expand(&mut portal, p4);
        it += 1;
    }
}

/// The portal's unit normal (away from the interior point).
fn normal(p: &[Vert; 4]) -> Option<V3> {
    let n = (p[2].w - p[1].w).cross(&(p[3].w - p[1].w));
    let l = n.dot(&n).sqrt();
    (l > 0.0 && l.is_finite()).then(|| n / l)
}

/// True once the support point `p4` along the portal normal `n` gains at most `tol` over the
/// nearest of the portal's vertices.
fn reached(p: &[Vert; 4], p4: &Vert, n: &V3, tol: f64) -> bool {
    let x4 = p4.w.dot(n);
    let gain = (1..4)
        .map(|i| x4 - p[i].w.dot(n))
        .fold(f64::INFINITY, f64::min);
    close(gain, tol) || gain < tol
}

/// Replaces one portal vertex by `p4`: of the three triangles `p4` forms with two of them, the
/// one whose cone from the interior point holds the ray to the origin (decided by the side of
/// the plane through the interior point, `p4` and each portal vertex).
fn expand(p: &mut [Vert; 4], p4: Vert) {
    let c = p4.w.cross(&p[0].w);
    let k = if p[1].w.dot(&c) > 0.0 {
        if p[2].w.dot(&c) > 0.0 {
            1
        } else {
            3
        }
    } else if p[3].w.dot(&c) > 0.0 {
        2
    } else {
        1
    };
    p[k] = p4;
}

/// The contact position: the origin's barycentric weights in the tetrahedron (interior point,
/// portal), or in the portal along its normal `n` when those weights do not sum to a positive
/// value, applied to the points on each geom; the midpoint of the two.
fn position(p: &[Vert; 4], n: &V3) -> V3 {
    let [w0, w1, w2, w3] = [p[0].w, p[1].w, p[2].w, p[3].w];
    let mut b = [
        w1.cross(&w2).dot(&w3),
        w3.cross(&w2).dot(&w0),
        w0.cross(&w1).dot(&w3),
        w2.cross(&w1).dot(&w0),
    ];
    let mut sum: f64 = b.iter().sum();
    if tiny(sum) || sum < 0.0 {
        b = [
            0.0,
            w2.cross(&w3).dot(n),
            w3.cross(&w1).dot(n),
            w1.cross(&w2).dot(n),
        ];
        sum = b.iter().sum();
    }
    let inv = 1.0 / sum;
    let (mut pa, mut pb) = (V3::zeros(), V3::zeros());
    for (bi, q) in b.iter().zip(p) {
        pa += q.a * *bi;
        pb += q.b * *bi;
    }
    (pa * inv + pb * inv) * 0.5
}

/// The point of triangle `a b c` closest to the origin (by its Voronoi regions: vertices, edges,
/// face).
fn closest_on_triangle(a: V3, b: V3, c: V3) -> V3 {
    let (ab, ac) = (b - a, c - a);
    let (d1, d2) = (-ab.dot(&a), -ac.dot(&a));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let (d3, d4) = (-ab.dot(&b), -ac.dot(&b));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let (d5, d6) = (-ab.dot(&c), -ac.dot(&c));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let den = 1.0 / (va + vb + vc);
    a + ab * (vb * den) + ac * (vc * den)
}

/// True for the type pairs (geom 0's type not above geom 1's) that MuJoCo 4.0.0 sends to MPR
/// under `nativeccd="disable"` and that this module reproduces: mesh–mesh, sphere–mesh,
/// capsule–mesh, box–mesh, cylinder–mesh, cylinder–box, capsule–cylinder and
/// cylinder–cylinder.
pub fn routed(t1: GeomType, t2: GeomType) -> bool {
    use GeomType::*;
    matches!(
        (t1, t2),
        (Mesh, Mesh)
            | (Sphere, Mesh)
            | (Capsule, Mesh)
            | (Cylinder, Mesh)
            | (Cylinder, Box)
            | (Capsule, Cylinder)
            | (Cylinder, Cylinder)
            | (Box, Mesh)
    )
}

/// True for the routed pairs this module also reproduces with a contact margin: mesh–mesh
/// (a sphere or capsule on a mesh with a margin gets another normal in MuJoCo 4.0.0, not found).
pub fn routed_with_margin(t1: GeomType, t2: GeomType) -> bool {
    t1 == GeomType::Mesh && t2 == GeomType::Mesh
}

/// True if `multiccd` adds perturbed contacts ([`perturbed`]) to an MPR contact of these types:
/// not with a sphere (measured on MuJoCo 4.0.0: a sphere on a mesh keeps one contact, its
/// perturbed results up to 1.9e-3 of its radius away dropped, where a capsule's or a mesh's
/// are kept from 1e-3 of the smaller `geom_rbound`).
pub fn perturbs(t1: GeomType, t2: GeomType) -> bool {
    t1 != GeomType::Sphere && t2 != GeomType::Sphere
}

/// A contact position closer to a cylinder's cap plane than this fraction of the half-height
/// (or than [`CAP_SLOPE`] times its distance from the side) gets no cylinder normal: measured on
/// MuJoCo 4.0.0 by bisection on the contact's depth, the switch lies at `h − |z| = 0.05 h` and,
/// nearer the axis, at `h − |z| = 0.25 (r − ρ)` (radius `r`, half-height `h`, both for
/// cylinders .06/.07 and .04/.1).
pub const CAP_BAND: f64 = 0.05;
/// See [`CAP_BAND`].
pub const CAP_SLOPE: f64 = 0.25;

/// The outward unit normal of a sphere, capsule or cylinder at world point `x` (sphere: from its
/// centre; capsule: from the nearest point of its axis segment; cylinder: its side's radial
/// direction, `None` near a cap, [`CAP_BAND`]). `None` for other shapes or a point on the centre
/// or axis.
pub fn surface_normal(p: &Posed, x: &V3) -> Option<V3> {
    let l = p.mat.transpose() * (x - p.pos);
    let n = match p.shape {
        Shape::Sphere(_) => l,
        Shape::Capsule(_, h) => l - V3::new(0.0, 0.0, l.z.clamp(-h, h)),
        Shape::Cylinder(r, h) => {
            let rho = l.x.hypot(l.y);
            if h - l.z.abs() < (CAP_BAND * h).max(CAP_SLOPE * (r - rho)) {
                return None;
            }
            V3::new(l.x, l.y, 0.0)
        }
        _ => return None,
    };
    let len = n.norm();
    (len > 0.0 && len.is_finite()).then(|| p.mat * (n / len))
}

/// The contact normal MuJoCo 4.0.0 reports for an MPR contact at `pos` with direction `dir`
/// (geom 0 → geom 1): the surface normal of a sphere, capsule or cylinder ([`surface_normal`]), the
/// normalised difference of both outward normals when both are, else `dir`.
pub fn contact_normal(a: &Posed, b: &Posed, pos: &V3, dir: &V3) -> V3 {
    match (surface_normal(a, pos), surface_normal(b, pos)) {
        (Some(na), Some(nb)) => {
            let n = na - nb;
            let l = n.norm();
            if l > 0.0 {
                n / l
            } else {
                *dir
            }
        }
        (Some(na), None) => na,
        (None, Some(nb)) => -nb,
        (None, None) => *dir,
    }
}

/// Angle (rad) by which `multiccd` turns the two geoms, in opposite senses, about each tangent
/// of the first contact (measured on MuJoCo 4.0.0: the extra contacts' normals are the first
/// one's turned by 1e-3 rad).
pub const PERTURB_ANGLE: f64 = 1e-3;
/// A perturbed contact is kept if it lies farther than this fraction of the smaller bounding
/// radius (`geom_rbound`) from every contact kept before it (measured: kept from 1.0e-3 of it
/// up, dropped at 0.94e-3 and below).
pub const PERTURB_SEPARATION: f64 = 1e-3;

/// `p` turned by `angle` about the line through `c` along the unit `axis`.
pub fn turned<'a>(p: &Posed<'a>, axis: &V3, angle: f64, c: &V3) -> Posed<'a> {
    let r = nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_unchecked(*axis), angle);
    let r = *r.matrix();
    Posed {
        shape: p.shape,
        pos: c + r * (p.pos - c),
        mat: r * p.mat,
    }
}

/// MuJoCo 4.0.0's extra `multiccd` contacts on the MPR path, in its order: for each tangent `t`
/// of the first contact's frame (at `pos`, in `tangents`' order) and each angle −θ, +θ
/// ([`PERTURB_ANGLE`]), geom 0 turned by that angle and geom 1 by its opposite about the line
/// through `pos` along `t`, searched again ([`penetration`]); a result farther than
/// `separation` from the first contact and every one kept before it is kept, with the first
/// contact's depth, its own position and its [`contact_normal`] on the unturned geoms.
/// Returns the number kept (at most 4) into `out` as (position, normal).
pub fn perturbed(
    a: &Posed,
    b: &Posed,
    pos: &V3,
    tangents: [V3; 2],
    separation: f64,
    search: &Search,
    out: &mut [(V3, V3); 4],
) -> usize {
    let mut n = 0;
    for t in tangents {
        for angle in [-PERTURB_ANGLE, PERTURB_ANGLE] {
            let (ta, tb) = (turned(a, &t, angle, pos), turned(b, &t, -angle, pos));
            let Some(p) = penetration(&ta, &tb, search) else {
                continue;
            };
            let far = |x: &V3| (p.pos - x).norm() > separation;
            if !far(pos) || !out[..n].iter().all(|(x, _)| far(x)) {
                continue;
            }
            out[n] = (p.pos, contact_normal(a, b, &p.pos, &p.dir));
            n += 1;
        }
    }
    n
}
