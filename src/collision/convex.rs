//! Convex colliders (Computation "Checking": convex geoms and mesh convex hulls) by GJK distance
//! and EPA penetration on support functions, computed in `f64`; for dual scalars each contact is
//! re-evaluated from its features ([`super::cvxdiff`]: the values stay the `f64` ones, the
//! derivative parts are those of the exact contact). Used for the pairs MuJoCo sends to its convex collider: anything with an
//! ellipsoid or a mesh, cylinder–capsule/cylinder/box, and plane–ellipsoid/mesh.
//!
//! Pairs with a smooth shape, and box/mesh pairs, run MuJoCo 4.0.0's own search
//! ([`super::native`]); a box/mesh pair's multi-contact patch then starts from the touching
//! features of its last EPA face, as MuJoCo's does (with a margin, of both shapes grown by half
//! of it; box/mesh pairs apart within the margin: the converged search, which gives MuJoCo's
//! exact distance there).
//!
//! Box–mesh, mesh–mesh, capsule–mesh and cylinder pairs get MuJoCo 4.0.0's multi-contact
//! patches (`multiccd`, on unless disabled; [`super::multiccd`], up to 4 contacts) and plane–mesh
//! its hull-polygon rule (up to 4 contacts); every other convex pair gets one contact.
//! No allocation: the simplex and the EPA polytope live in fixed-size arrays (the polytope is
//! kept in `Data`, see `scratch.rs`, so a call does not clear it).

use super::memo::{Aim, Features, SEARCHES};
use super::scratch::epa::{Face, Polytope, Vert, MAXF, MAXV};
use super::scratch::CollisionScratch;
use super::shape::{geom_shape, ConvexContact, Posed, Shape};
use super::simplex::{reduce, vert};
use super::sink::{explicit_pair, f64of, Sink};
use super::{cvxdiff, meshpoly, mpr, multiccd, native};
use crate::data::Data;
use crate::math::{sc, Scalar};
use crate::model::{disable, GeomType, Model};
use nalgebra::Vector3;

type V3 = Vector3<f64>;

fn posed<'a, T: Scalar>(m: &'a Model, d: &Data<T>, g: usize) -> Option<Posed<'a>> {
    Some(Posed {
        shape: geom_shape(m, g)?,
        pos: d.geom_xpos[g].map(|x| f64of(x)),
        mat: d.geom_xmat[g].map(|x| f64of(x)),
    })
}

/// The EPA's gap floor in units of `f64::EPSILON` times the largest coordinate of the support
/// points: above the round-off of a face's plane offset and of a support point's projection.
const ROUNDOFF_GAP: f64 = 256.0;
/// Slack, relative to the shapes' size, by which GJK's distance lower bound must exceed a
/// cutoff before [`penetration_within`] stops early.
const CUTOFF_SLACK: f64 = 1e-10;

/// Signed distance between convex shapes `a` and `b` with witness points: GJK when separated,
/// EPA when penetrating (its polytope in `scratch`). `None` if the iteration breaks down.
///
/// GJK stops early once it proves the shapes farther apart than `cutoff` (`f64::INFINITY`:
/// never): the support point `w` of the Minkowski difference against the current closest point
/// `v` bounds the distance from below by `v·w / |v|`. The result then carries that lower bound
/// as its distance (with the current simplex's witness points), so a caller that keeps only
/// `dist <= cutoff` rejects exactly the pairs the full search rejects: the full search's
/// distance is never below the true one, which is never below the bound. MuJoCo's GJK stops the
/// same way on its distance cutoff (the contact margin).
pub fn penetration_within(
    a: &Posed,
    b: &Posed,
    tol: f64,
    iters: usize,
    cutoff: f64,
    scratch: &mut CollisionScratch,
) -> Option<ConvexContact> {
    #[cfg(test)]
    super::simplex::CONVERGED.with(|c| c.set(c.get() + 1));
    let mut s = [Vert::default(); 4];
    let mut n = 1;
    let mut lam = [1.0, 0.0, 0.0, 0.0];
    let mut dir = b.pos - a.pos;
    if dir.norm_squared() < 1e-30 {
        dir = V3::new(1.0, 0.0, 0.0);
    }
    s[0] = vert(a, b, &-dir);
    let mut v = s[0].w;
    let scale = 1.0 + a.support(&V3::x()).norm() + b.support(&V3::x()).norm();
    let eps = tol.max(1e-12) * 1e-4 * scale;
    // the bound must clear the cutoff by more than its own round-off
    let cut = cutoff + CUTOFF_SLACK * scale;
    let mut inside = false;
    for _ in 0..iters.max(10) * 3 {
        let vn = v.norm();
        if vn <= eps {
            inside = true;
            break;
        }
        let w = vert(a, b, &-v);
        let vw = v.dot(&w.w);
        if vw > cut * vn {
            let (pa, pb) = witnesses(&s[..n], &lam);
            return Some(ConvexContact {
                dist: vw / vn,
                pa,
                pb,
                normal: -v / vn,
            });
        }
        // progress test: |v|^2 - v.w small -> converged
        if vn * vn - vw <= eps * vn {
            break;
        }
        if s[..n].iter().any(|x| (x.w - w.w).norm_squared() < 1e-30) {
            break;
        }
        s[n] = w;
        n += 1;
        match reduce(&mut s, &mut n, &mut lam) {
            Some(p) => v = p,
            None => {
                inside = true;
                break;
            }
        }
    }
    if !inside {
        let (pa, pb) = witnesses(&s[..n], &lam);
        let dvec = pb - pa;
        let dist = dvec.norm();
        if dist <= 0.0 {
            return None;
        }
        return Some(ConvexContact {
            dist,
            pa,
            pb,
            normal: dvec / dist,
        });
    }
    epa(a, b, &mut s, n, tol, iters, scratch.polytope())
}

/// The witness points on A and B of a simplex with barycentric weights `lam`.
fn witnesses(s: &[Vert], lam: &[f64; 4]) -> (V3, V3) {
    let (mut pa, mut pb) = (V3::zeros(), V3::zeros());
    for (k, x) in s.iter().enumerate() {
        pa += x.a * lam[k];
        pb += x.b * lam[k];
    }
    (pa, pb)
}

/// Expanding polytope: grows the simplex into a tetrahedron around the origin, then expands
/// towards the closest face until the support gain is below `tol`.
fn epa(
    a: &Posed,
    b: &Posed,
    s: &mut [Vert; 4],
    mut n: usize,
    tol: f64,
    iters: usize,
    polytope: &mut Polytope,
) -> Option<ConvexContact> {
    // complete the simplex to a non-degenerate tetrahedron
    let dirs = [V3::x(), V3::y(), V3::z(), -V3::x(), -V3::y(), -V3::z()];
    if n == 1 {
        for d in &dirs {
            let w = vert(a, b, d);
            if (w.w - s[0].w).norm() > 1e-12 {
                s[1] = w;
                n = 2;
                break;
            }
        }
    }
    if n == 2 {
        let e = s[1].w - s[0].w;
        for d in &dirs {
            let p = e.cross(d);
            if p.norm() < 1e-9 {
                continue;
            }
            let w = vert(a, b, &p);
            if e.cross(&(w.w - s[0].w)).norm() > 1e-12 {
                s[2] = w;
                n = 3;
                break;
            }
        }
    }
    if n == 3 {
        let nrm = (s[1].w - s[0].w).cross(&(s[2].w - s[0].w));
        for d in [nrm, -nrm] {
            let w = vert(a, b, &d);
            if (w.w - s[0].w).dot(&nrm).abs() > 1e-12 {
                s[3] = w;
                n = 4;
                break;
            }
        }
    }
    if n < 4 {
        return None;
    }
    expand(a, b, s, tol, iters, polytope)
}

fn face_plane(vs: &[Vert], f: [usize; 3]) -> Face {
    let nrm = (vs[f[1]].w - vs[f[0]].w).cross(&(vs[f[2]].w - vs[f[0]].w));
    let l = nrm.norm();
    let plane = if l > 1e-300 {
        let nrm = nrm / l;
        Some((nrm, nrm.dot(&vs[f[0]].w)))
    } else {
        None
    };
    Face { v: f, plane }
}

/// The EPA expansion from the tetrahedron `s` (in the polytope `p`).
fn expand(
    a: &Posed,
    b: &Posed,
    s: &[Vert; 4],
    tol: f64,
    iters: usize,
    p: &mut Polytope,
) -> Option<ConvexContact> {
    let Polytope { vs, faces, edges } = p;
    vs[..4].copy_from_slice(&s[..4]);
    let mut nv = 4;
    let mut nf = 0;
    // orient faces outward (away from the centroid)
    let cen = (vs[0].w + vs[1].w + vs[2].w + vs[3].w) / 4.0;
    for f in [[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]] {
        let nrm = (vs[f[1]].w - vs[f[0]].w).cross(&(vs[f[2]].w - vs[f[0]].w));
        let f = if nrm.dot(&(vs[f[0]].w - cen)) >= 0.0 {
            f
        } else {
            [f[0], f[2], f[1]]
        };
        faces[nf] = face_plane(vs, f);
        nf += 1;
    }
    let mut best = (V3::zeros(), 0.0, [0usize; 3]);
    // the largest world coordinate behind the polytope's vertices: a gap below the round-off of
    // coordinates of that size cannot be resolved, and the expansion stops there as well (a 2³¹ m
    // ellipsoid would otherwise run to the vertex cap against an absolute 1e-10)
    let mut scale = vs[..4]
        .iter()
        .map(|v| v.a.amax().max(v.b.amax()))
        .fold(0.0, f64::max);
    for _ in 0..iters.max(10) * 4 {
        // closest face
        let mut bi = usize::MAX;
        let mut bd = f64::INFINITY;
        for (i, f) in faces[..nf].iter().enumerate() {
            if let Some((_, dd)) = f.plane {
                if dd < bd {
                    bd = dd;
                    bi = i;
                }
            }
        }
        if bi == usize::MAX {
            return None;
        }
        let (nrm, dd) = faces[bi].plane?;
        best = (nrm, dd, faces[bi].v);
        let w = vert(a, b, &nrm);
        scale = scale.max(w.a.amax()).max(w.b.amax());
        let floor = ROUNDOFF_GAP * f64::EPSILON * scale;
        if w.w.dot(&nrm) - dd <= tol.max(1e-12).max(floor) || nv >= MAXV {
            break;
        }
        // remove visible faces, collect the horizon
        let mut ne = 0;
        let mut k = 0;
        while k < nf {
            let Face { v: f, plane } = faces[k];
            let (fn_, fd) = plane.unwrap_or((V3::zeros(), 0.0));
            if fn_.dot(&w.w) - fd > 1e-14 {
                for e in [[f[0], f[1]], [f[1], f[2]], [f[2], f[0]]] {
                    if let Some(j) = edges[..ne]
                        .iter()
                        .position(|x| x[0] == e[1] && x[1] == e[0])
                    {
                        edges[j] = edges[ne - 1];
                        ne -= 1;
                    } else if ne < MAXF {
                        edges[ne] = e;
                        ne += 1;
                    }
                }
                faces[k] = faces[nf - 1];
                nf -= 1;
            } else {
                k += 1;
            }
        }
        if nf + ne > MAXF {
            break;
        }
        vs[nv] = w;
        for e in &edges[..ne] {
            faces[nf] = face_plane(vs, [e[0], e[1], nv]);
            nf += 1;
        }
        nv += 1;
        if nf == 0 {
            return None;
        }
    }
    let (nrm, dd, f) = best;
    // barycentric coordinates of the origin's projection on the face
    let p = nrm * dd;
    let (x0, x1, x2) = (vs[f[0]].w, vs[f[1]].w, vs[f[2]].w);
    let (e0, e1, e2) = (x1 - x0, x2 - x0, p - x0);
    let (d00, d01, d11) = (e0.dot(&e0), e0.dot(&e1), e1.dot(&e1));
    let (d20, d21) = (e2.dot(&e0), e2.dot(&e1));
    let den = d00 * d11 - d01 * d01;
    if !(den.abs() > 1e-300) {
        return None;
    }
    let l1 = (d11 * d20 - d01 * d21) / den;
    let l2 = (d00 * d21 - d01 * d20) / den;
    let l0 = 1.0 - l1 - l2;
    let pa = vs[f[0]].a * l0 + vs[f[1]].a * l1 + vs[f[2]].a * l2;
    let pb = vs[f[0]].b * l0 + vs[f[1]].b * l1 + vs[f[2]].b * l2;
    Some(ConvexContact {
        dist: -dd,
        pa,
        pb,
        normal: nrm,
    })
}

/// The penetration search of the convex pair (`g1`, `g2`) as [`convex_convex`] runs it: both
/// shapes posed from `d`, and the result (None: no shape or no overlap found).
#[cfg(test)]
pub fn pair_contact<'a, T: Scalar>(
    m: &'a Model,
    d: &Data<T>,
    g1: usize,
    g2: usize,
    scratch: &mut CollisionScratch,
) -> Option<(Posed<'a>, Posed<'a>, ConvexContact)> {
    pair_contact_within(m, d, [g1, g2], f64::INFINITY, scratch).map(|(a, b, c, ..)| (a, b, c))
}

/// Both shapes posed, the contact, the touching features when the native polytope search
/// found it, and the EPA face's first vertex when the native search on a smooth pair did.
type Found<'a> = (Posed<'a>, Posed<'a>, ConvexContact, Option<Features>, Aim);

/// [`pair_contact_within`], from the scratch's [`SearchMemo`] when it is on and kept there.
fn pair_contact_kept<'a, T: Scalar>(
    m: &'a Model,
    d: &Data<T>,
    [g1, g2]: [usize; 2],
    cutoff: f64,
    scratch: &mut CollisionScratch,
) -> Option<Found<'a>> {
    if cvxdiff::is_f64::<T>() || scratch.memo().is_none() {
        return pair_contact_within(m, d, [g1, g2], cutoff, scratch);
    }
    let mut key = ([g1, g2], [0u64; 25]);
    let pose = [g1, g2].map(|g| {
        let p = d.geom_xpos[g].map(|x| f64of(x));
        let r = d.geom_xmat[g].map(|x| f64of(x));
        (p, r)
    });
    let bits = pose
        .iter()
        .flat_map(|(p, r)| p.iter().chain(r.iter()))
        .chain(std::iter::once(&cutoff));
    for (k, x) in bits.enumerate() {
        key.1[k] = x.to_bits();
    }
    if let Some(memo) = scratch.memo().map(|x| &x.search) {
        if let Some(i) = memo.keys[..memo.n].iter().position(|k| *k == key) {
            let (c, feat, aim) = memo.vals[i]?;
            return Some((posed(m, d, g1)?, posed(m, d, g2)?, c, feat, aim));
        }
    }
    let found = pair_contact_within(m, d, [g1, g2], cutoff, scratch);
    if let Some(memo) = scratch.memo().map(|x| &mut x.search) {
        let i = memo.next;
        memo.keys[i] = key;
        memo.vals[i] = found.map(|(_, _, c, feat, aim)| (c, feat, aim));
        memo.next = (i + 1) % SEARCHES;
        memo.n = (memo.n + 1).min(SEARCHES);
    }
    found
}

/// [`pair_contact`] with the search stopped once the pair is proved farther apart than `cutoff`
/// ([`penetration_within`]: the result's distance then exceeds `cutoff`).
fn pair_contact_within<'a, T: Scalar>(
    m: &'a Model,
    d: &Data<T>,
    [g1, g2]: [usize; 2],
    cutoff: f64,
    scratch: &mut CollisionScratch,
) -> Option<Found<'a>> {
    let (a, b) = (posed(m, d, g1)?, posed(m, d, g2)?);
    if let Some(c) = native_contact(&a, &b, [g1, g2], m, cutoff, scratch) {
        return c.map(|(c, aim)| {
            let feat = aim.filter(|_| cylinder_polytope(&a, &b)).map(|x| x.idx);
            (a, b, c, feat, aim.map(|x| x.first))
        });
    }
    if let Some(c) = polytope_contact(&a, &b, [g1, g2], m, cutoff, scratch) {
        return c.map(|(c, f)| (a, b, c, f, None));
    }
    let tol = (m.opt.ccd_tolerance * 1e-4).max(1e-12);
    let iters = m.opt.ccd_iterations.max(50);
    let c = match core_contact(&a, &b, tol, iters, cutoff, scratch) {
        Some(c) => c,
        None => penetration_within(&a, &b, tol, iters, cutoff, scratch)?,
    };
    Some((a, b, c, None, None))
}

/// A cylinder against a mesh: its patch starts from the mesh's vertices of the native search's
/// last EPA face, as two polytopes' patches do (measured on MuJoCo 4.0.0: dm_control's Kinova
/// arm, its ring cylinders inside its link meshes, tools/zoo/gen_regressions.py
/// `cylinder_mesh_patch`).
fn cylinder_polytope(a: &Posed, b: &Posed) -> bool {
    let poly = |p: &Posed| matches!(p.shape, Shape::Mesh(_));
    let cyl = |p: &Posed| matches!(p.shape, Shape::Cylinder(..));
    (cyl(a) && poly(b)) || (poly(a) && cyl(b))
}

/// MuJoCo 4.0.0's native search on two polytopes (box, mesh) ([`native::polytopes`]): the
/// contact is its last EPA face, and the face's vertex indices on each geom are the touching
/// features the multi-contact patch starts from. With a margin (`cutoff`), overlapping polytopes
/// take the last EPA face of both grown by half the margin ([`native::polytopes_with_margin`]:
/// its depth less the margin, to `ccd_tolerance`), as MuJoCo does; polytopes apart within the
/// margin give `None`, and the caller's converged search gives the exact distance that MuJoCo
/// reports there (measured on 96 poses, tools/zoo/gen_regressions.py `polytope_margin`). `None`
/// also for other pairs or when the search breaks down; `Some(None)`: no contact.
fn polytope_contact<'a>(
    a: &Posed<'a>,
    b: &Posed<'a>,
    geoms: [usize; 2],
    m: &'a Model,
    cutoff: f64,
    scratch: &mut CollisionScratch,
) -> Option<Option<(ConvexContact, Option<Features>)>> {
    let poly = |p: &Posed| matches!(p.shape, Shape::Box(_) | Shape::Mesh(_));
    if !(poly(a) && poly(b) && cutoff >= 0.0 && cutoff.is_finite()) {
        return None;
    }
    let ga = rounded(m, geoms[0], a).full;
    let gb = rounded(m, geoms[1], b).full;
    let (tol, iters) = (m.opt.ccd_tolerance, m.opt.ccd_iterations);
    let (found, margin) = if cutoff > 0.0 {
        match native::query(scratch.hfield(), &ga, &gb, iters, tol, cutoff) {
            native::Query::Hit(_) => {}
            native::Query::Beyond => return Some(None),
            _ => return None,
        }
        let f = native::polytopes_with_margin(scratch.hfield(), &ga, &gb, iters, tol, cutoff);
        (f, cutoff)
    } else {
        (
            native::polytopes(scratch.hfield(), &ga, &gb, iters, tol),
            0.0,
        )
    };
    let Some(hit) = found else {
        return Some(None);
    };
    let h = hit?;
    if !(h.depth > 0.0) {
        return None;
    }
    // with a margin: the grown shapes' face, its witness points moved back onto the shapes
    let normal = h.v / h.depth;
    let c = ConvexContact {
        dist: margin - h.depth,
        pa: h.pa - normal * (0.5 * margin),
        pb: h.pb + normal * (0.5 * margin),
        normal,
    };
    Some(Some((c, Some([h.ia, h.face.map(|f| f.1)]))))
}

/// Geom `g` posed as `p` for the native search, a mesh with its hull graph (MuJoCo's
/// hill-climbing support, [`native::Geom::Mesh`]) as its whole shape and as its core: a sphere
/// or a capsule is searched against the mesh's core, where a scan of every vertex may stop at
/// another vertex of a flat hull polygon than the ascent (measured on Menagerie's ALOHA: a
/// finger sphere on a 15,215-vertex gripper mesh, frame 3.5e-9 off MuJoCo 4.0.0's with the scan,
/// 6e-14 with the ascent).
#[inline]
fn rounded<'a>(m: &'a Model, g: usize, p: &Posed<'a>) -> native::Rounded<'a> {
    let mut r = native::Rounded::new(p.shape, p.pos, p.mat);
    let hull = usize::try_from(m.geom_dataid[g])
        .ok()
        .and_then(|id| m.mesh.get(id))
        .map(|mesh| &mesh.hull)
        .filter(|x| !x.is_empty());
    for shape in [&mut r.full, &mut r.core] {
        if let native::Geom::Mesh { graph, .. } = shape {
            *graph = hull;
        }
    }
    r
}

/// MuJoCo 4.0.0's native search ([`native::contact`]) on a pair with a smooth shape (sphere,
/// capsule, ellipsoid, cylinder). `None` for two polytopes (the search below) or when the
/// native search breaks down; `Some(None)`: no contact within the cutoff. With the contact, the
/// EPA face's first vertex and vertex indices without a margin ([`native::contact_aimed`]).
fn native_contact<'a>(
    a: &Posed<'a>,
    b: &Posed<'a>,
    geoms: [usize; 2],
    m: &'a Model,
    cutoff: f64,
    scratch: &mut CollisionScratch,
) -> Option<Option<(ConvexContact, Option<native::Aim>)>> {
    let smooth = |p: &Posed| !matches!(p.shape, Shape::Box(_) | Shape::Mesh(_));
    if !smooth(a) && !smooth(b) {
        return None;
    }
    // built in place, one after the other (not through a tuple that is then moved)
    let ra = rounded(m, geoms[0], a);
    let rb = rounded(m, geoms[1], b);
    let (tol, iters) = (m.opt.ccd_tolerance, m.opt.ccd_iterations);
    if cutoff > 0.0 && cutoff.is_finite() {
        let c = native::contact_with_margin(scratch.hfield(), &ra, &rb, iters, tol, cutoff)?;
        return Some(c.map(|c| (c, None)));
    }
    native::contact_aimed(scratch.hfield(), &ra, &rb, iters, tol, cutoff)
}

/// A sphere as its centre and a capsule as its axis segment, with the radius apart (other
/// shapes: themselves, radius 0).
fn core<'a>(p: &Posed<'a>) -> (Posed<'a>, f64) {
    let (shape, r) = match p.shape {
        Shape::Sphere(r) => (Shape::Sphere(0.0), r),
        Shape::Capsule(r, h) => (Shape::Capsule(0.0, h), r),
        s => (s, 0.0),
    };
    (Posed { shape, ..*p }, r)
}

/// The contact of a pair with a sphere or a capsule from the distance between the cores
/// ([`core`]) less the radii, when the cores are apart: exact on a polytope, where the search on
/// the rounded shape stops within its tolerance (measured on MuJoCo 4.0.0: a 36 mm foot sphere
/// on the edge of Spot's leg mesh gets the exact normal and distance, to 1e-16, at every
/// `ccd_tolerance` from 1e-6 to 1e-14; the rounded-shape search here was 2e-5 off in the normal).
/// None when neither is rounded or the cores overlap (then the search on the whole shapes).
fn core_contact(
    a: &Posed,
    b: &Posed,
    tol: f64,
    iters: usize,
    cutoff: f64,
    scratch: &mut CollisionScratch,
) -> Option<ConvexContact> {
    let ((ca, ra), (cb, rb)) = (core(a), core(b));
    if ra == 0.0 && rb == 0.0 {
        return None;
    }
    let c = penetration_within(&ca, &cb, tol, iters, cutoff + ra + rb, scratch)?;
    if !(c.dist > 0.0) {
        return None;
    }
    Some(ConvexContact {
        dist: c.dist - ra - rb,
        pa: c.pa + c.normal * ra,
        pb: c.pb - c.normal * rb,
        normal: c.normal,
    })
}

/// Any convex pair without a dedicated collider (MuJoCo's `mjc_Convex`): the penetration
/// search gives depth and normal (geom 0 → geom 1); box, mesh, capsule–mesh and cylinder
/// pairs then get the multi-contact patch of [`multiccd::multi_contact`] (MuJoCo 4.0.0
/// `multiccd`, on unless `<flag multiccd="disable"/>`; cylinder caps as 16-gons, sides as
/// segments) when their touching features match, else one contact at the midpoint of the
/// witness points.
pub fn convex_convex<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [g1, g2] = s.geom;
    let margin = f64of(s.margin);
    if let Some(found) = libccd_contact(m, d, [g1, g2], margin) {
        if let Some((a, b, c)) = found {
            single_contact(d, s, &a, &b, &c);
            if !m.opt.disabled(disable::MULTICCD) && mpr::perturbs(m.geom_type[g1], m.geom_type[g2])
            {
                libccd_perturbed(m, d, s, &a, &b, &c);
            }
        }
        return;
    }
    let Some((a, b, c, feat, aim)) = pair_contact_kept(m, d, [g1, g2], margin, s.scratch) else {
        return;
    };
    if !(c.dist <= margin) {
        return;
    }
    let tpose = [super::pose(d, g1), super::pose(d, g2)];
    if !m.opt.disabled(disable::MULTICCD)
        && multiccd::multi_contact(m, [(a.pos, a.mat), (b.pos, b.mat)], tpose, &c, feat, aim, s)
    {
        return;
    }
    single_contact(d, s, &a, &b, &c);
}

/// The pairs MuJoCo 4.0.0 collides with MPR under `<flag nativeccd="disable"/>` ([`mpr`]), where
/// this reproduces it: the pair types of [`mpr::routed`] without a contact margin (`None`: the
/// native search). `Some(None)`: no contact. One contact; MuJoCo's extra `multiccd` contacts on
/// that path are not made.
#[allow(clippy::type_complexity)]
fn libccd_contact<'a, T: Scalar>(
    m: &'a Model,
    d: &Data<T>,
    [g1, g2]: [usize; 2],
    margin: f64,
) -> Option<Option<(Posed<'a>, Posed<'a>, ConvexContact)>> {
    let (t1, t2) = (m.geom_type[g1], m.geom_type[g2]);
    if !m.opt.disabled(disable::NATIVECCD)
        || !mpr::routed(t1, t2)
        || !(margin == 0.0
            || (mpr::routed_with_margin(t1, t2) && explicit_pair(m, g1, g2).is_none()))
    {
        return None;
    }
    let (a, b) = (posed(m, d, g1)?, posed(m, d, g2)?);
    let Some(p) = mpr::penetration(&a, &b, &search(m, [g1, g2], margin)) else {
        return Some(None);
    };
    let normal = mpr::contact_normal(&a, &b, &p.pos, &p.dir);
    if !(normal.norm() > 0.5) {
        return Some(None);
    }
    let grow = 2.0 * search(m, [g1, g2], margin).grow;
    Some(Some((a, b, at(p.pos, normal, grow - p.depth))))
}

/// The MPR search's settings for geoms `g1`, `g2` ([`mpr::Search`]): with a contact margin,
/// both grown by the mean of their `geom_margin` (geoms of an explicit `<pair>` with a margin are
/// grown by half the pair's margin in MuJoCo 4.0.0, measured once; they stay on the native
/// collider); a mesh's hull graph for its support ([`mpr::HULL_SUPPORT_MIN`]).
fn search(m: &Model, [g1, g2]: [usize; 2], margin: f64) -> mpr::Search<'_> {
    let grow = if margin > 0.0 {
        0.5 * (m.geom_margin[g1] + m.geom_margin[g2])
    } else {
        0.0
    };
    let graph = |g: usize| {
        (m.geom_type[g] == GeomType::Mesh)
            .then(|| usize::try_from(m.geom_dataid[g]).ok())
            .flatten()
            .and_then(|id| m.mesh.get(id))
            .map(|mesh| &mesh.hull)
            .filter(|x| !x.is_empty())
    };
    mpr::Search {
        iters: m.opt.ccd_iterations,
        tol: m.opt.ccd_tolerance,
        grow,
        graph: [graph(g1), graph(g2)],
    }
}

/// MuJoCo 4.0.0's extra `multiccd` contacts of an MPR contact `c` ([`mpr::perturbed`], the
/// tangents of `c`'s frame, kept beyond [`mpr::PERTURB_SEPARATION`] of the smaller
/// `geom_rbound`), each with `c`'s distance.
fn libccd_perturbed<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    s: &mut Sink<T>,
    a: &Posed,
    b: &Posed,
    c: &ConvexContact,
) {
    let [g1, g2] = s.geom;
    let frame = super::sink::frame_from_normal(c.normal, None);
    let tangents = [frame.row(1).transpose(), frame.row(2).transpose()];
    let sep = mpr::PERTURB_SEPARATION * m.geom_rbound[g1].min(m.geom_rbound[g2]);
    let pos = (c.pa + c.pb) * 0.5;
    let mut out = [(V3::zeros(), V3::zeros()); 4];
    let margin = f64of(s.margin);
    let n = mpr::perturbed(
        a,
        b,
        &pos,
        tangents,
        sep,
        &search(m, [g1, g2], margin),
        &mut out,
    );
    for &(p, normal) in &out[..n] {
        single_contact(d, s, a, b, &at(p, normal, c.dist));
    }
}

/// A contact at `pos` with `normal` and distance `dist`, its witness points `dist / 2` along the
/// normal on either side.
fn at(pos: V3, normal: V3, dist: f64) -> ConvexContact {
    let half = normal * (0.5 * dist);
    ConvexContact {
        dist,
        pa: pos - half,
        pb: pos + half,
        normal,
    }
}

/// One contact of a convex pair at the midpoint of its witness points.
fn single_contact<T: Scalar>(
    d: &Data<T>,
    s: &mut Sink<T>,
    a: &Posed,
    b: &Posed,
    c: &ConvexContact,
) {
    let [g1, g2] = s.geom;
    let tpose = [super::pose(d, g1), super::pose(d, g2)];
    let pos = (c.pa + c.pb) * 0.5;
    if cvxdiff::is_f64::<T>() {
        let v = |x: V3| Vector3::new(sc::<T>(x.x), sc::<T>(x.y), sc::<T>(x.z));
        s.add(sc(c.dist), v(pos), v(c.normal), None);
    } else {
        let exact = cvxdiff::single(
            [a.shape, b.shape],
            [(a.pos, a.mat), (b.pos, b.mat)],
            tpose,
            c,
            s.scratch.memo().map(|x| (&mut x.feats, s.geom)),
        );
        s.add_exact((c.dist, &pos, &c.normal), exact);
    }
}

/// A plane-mesh contact takes the support point of a mesh with fewer vertices than this by a
/// scan of every vertex, of the others by a search on its hull graph (measured on MuJoCo
/// 4.0.0: a box hull with extra vertices inside its bottom face listed first gives one contact
/// at the first of them with 9 vertices, the hull face's four corners from 10 on;
/// tools/zoo/gen_regressions.py `plane_mesh_hull`).
const HULL_SUPPORT_MIN: usize = 10;

/// Plane against an ellipsoid or a mesh (MuJoCo 4.0.0 `mjc_PlaneConvex`; docs/collision.md):
/// the support point against the plane normal is the first contact. For a mesh the support is
/// a hull vertex of largest depth; then, of the hull polygons containing it, the one whose
/// outward normal is most anti-aligned with the plane normal is reduced to at most four
/// corners by [`meshpoly::quad_positions`], and each further corner is a contact if it lies
/// within the margin and not above the mesh centre along the normal.
///
/// The support vertex of a mesh of at least `HULL_SUPPORT_MIN` (10) vertices is found by
/// steepest ascent on its hull graph (`native::hill_climb`) from the graph vertex
/// `mesh_extrema[`[`meshpoly::extremum_index`]`]`: the hull vertex farthest along the
/// direction's components rounded to -1, 0 or 1 at ±0.4. On a hull face flat only to float32
/// round-off (myosuite's object meshes resting on a face) the ascent stops at a local maximum
/// that depends on that start. Measured on MuJoCo 4.0.0 (tools/zoo/gen_regressions.py
/// `plane_mesh_start`): this gives MuJoCo's first contact on all 120 plane-mesh pairs of
/// myosuite's `myohand_object_*` models at their keyframes (the first maximum over the hull
/// vertices: 100; tools/zoo/plane_support.py) and on 705 poses of oblique prisms resting on a
/// cap where the start decides.
pub fn plane_convex<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [gp, g] = s.geom;
    let Some(b) = posed(m, d, g) else {
        return;
    };
    let n: V3 = d.geom_xmat[gp].column(2).map(|x| f64of(x));
    let p0: V3 = d.geom_xpos[gp].map(|x| f64of(x));
    let margin = f64of(s.margin);
    let v = |x: V3| Vector3::new(sc::<T>(x.x), sc::<T>(x.y), sc::<T>(x.z));
    // the plane's normal and point, the mesh's pose in T (derivative parts, cvxdiff)
    let (tp0, tn) = (d.geom_xpos[gp], d.geom_xmat[gp].column(2).into_owned());
    let (tc, tr) = super::pose(d, g);
    // a contact at the support point q (T: qt) of depth dist along n
    let emit = |s: &mut Sink<T>, q: V3, qt: &dyn Fn() -> Vector3<T>, dist: f64| {
        let pos = q - n * (0.5 * dist);
        if cvxdiff::is_f64::<T>() {
            s.add(sc(dist), v(pos), v(n), None);
        } else {
            let qt = qt();
            let dt = tn.dot(&(qt - tp0));
            let pt = qt - tn * (dt * sc::<T>(0.5));
            s.add_exact((dist, &pos, &n), (dt, pt, tn));
        }
    };
    let Shape::Mesh(verts) = b.shape else {
        let q = b.support(&-n);
        let dist = n.dot(&(q - p0));
        if dist <= margin {
            // the support point of a smooth shape (ellipsoid) in closed form, in T
            let qt = || tc + tr * b.shape.support_t(&(tr.transpose() * -tn));
            emit(s, q, &qt, dist);
        }
        return;
    };
    let Some(mesh) = usize::try_from(m.geom_dataid[g])
        .ok()
        .and_then(|id| m.mesh.get(id))
    else {
        return;
    };
    // support vertex (local -n): steepest ascent on the hull graph from the extremum of the
    // direction's octant for a mesh of at least `HULL_SUPPORT_MIN` vertices, else the first
    // maximum over every vertex
    let ln = b.mat.transpose() * (-n);
    let climbed = (verts.len() >= HULL_SUPPORT_MIN && !mesh.hull.is_empty())
        .then(|| {
            let start = mesh.extrema[meshpoly::extremum_index(&[ln.x, ln.y, ln.z])];
            let warm = std::cell::Cell::new(usize::try_from(start).unwrap_or(0));
            native::hill_climb(&mesh.hull, &ln, &warm)
        })
        .flatten();
    let iv = climbed.unwrap_or_else(|| {
        let (mut best, mut iv) = (f64::NEG_INFINITY, 0);
        for (i, q) in verts.iter().enumerate() {
            let x = ln.x * q[0] + ln.y * q[1] + ln.z * q[2];
            if x > best {
                best = x;
                iv = i;
            }
        }
        iv
    });
    let world = |q: &[f64; 3]| b.pos + b.mat * V3::new(q[0], q[1], q[2]);
    let wt = |k: usize| tc + tr * v(V3::new(verts[k][0], verts[k][1], verts[k][2]));
    let Some(q) = verts.get(iv).map(world) else {
        return;
    };
    let dist = n.dot(&(q - p0));
    if !(dist <= margin) {
        return;
    }
    emit(s, q, &|| wt(iv), dist);
    let Some(polys) = mesh.polymap.get(iv) else {
        return;
    };
    // polygon most anti-aligned with the plane normal (first minimum of normal . local n)
    let mut bp = None;
    let mut bd = 1.0;
    for &k in polys {
        let pn = mesh.polynormal[k];
        let x = -(pn[0] * ln.x + pn[1] * ln.y + pn[2] * ln.z);
        if x < bd {
            bd = x;
            bp = Some(k);
        }
    }
    let Some(bp) = bp else {
        return;
    };
    let poly = &mesh.polyvert[bp];
    let Some(a) = poly.iter().position(|&x| x == iv) else {
        return;
    };
    let pt = |k: usize| {
        let q = verts[poly[k]];
        V3::new(q[0], q[1], q[2])
    };
    let (idx, cnt) = meshpoly::quad_positions(poly.len(), a, pt);
    for &k in &idx[1..cnt] {
        let q = world(&verts[poly[k]]);
        let dist = n.dot(&(q - p0));
        if dist > margin || n.dot(&(q - b.pos)) > 0.0 {
            continue;
        }
        emit(s, q, &|| wt(poly[k]), dist);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Matrix3;

    fn rot(ax: V3, ang: f64) -> Matrix3<f64> {
        *nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(ax), ang).matrix()
    }

    /// The fuzzer's slowest inputs, rebuilt: `fuzz/regressions/convex-pile-concentric.xml`
    /// (`tools/fuzz/pile.py 125 --concentric`, 111 copies of the convex geoms on seven free
    /// bodies at the origin). Two concentric shapes give GJK no first direction; the search
    /// then fell back to the converged one (up to 150 GJK and 200 EPA support points per pair,
    /// a polytope of up to 400 vertices), seconds per step. Every pair with a smooth shape must
    /// now stay within MuJoCo's caps: `ccd_iterations` support points for GJK and as many for
    /// EPA, plus the start, at most twice (a second start when the first simplex passes
    /// through the origin), and twice again for a sphere or capsule (its core first); and none
    /// may reach the converged search.
    #[test]
    fn concentric_pairs_stay_within_ccd_iterations() {
        use crate::collision::simplex::{CONVERGED, SUPPORTS};
        use crate::model::GeomType;
        let xml = include_str!("../../fuzz/regressions/convex-pile-concentric.xml");
        let m = crate::load_from_str(xml, &crate::Vfs::new()).unwrap();
        let mut d = Data::<f64>::new(&m);
        crate::forward(&m, &mut d);
        let bound = 4 * (2 * m.opt.ccd_iterations + 1);
        let smooth = |g: usize| {
            matches!(
                m.geom_type[g],
                GeomType::Sphere | GeomType::Capsule | GeomType::Ellipsoid | GeomType::Cylinder
            )
        };
        let mut scratch = CollisionScratch::default();
        let (mut pairs, mut worst) = (0, 0);
        for g1 in 0..m.ngeom {
            for g2 in g1 + 1..m.ngeom {
                let (b1, b2) = (m.geom_bodyid[g1], m.geom_bodyid[g2]);
                if b1 == 0 || b2 == 0 || b1 == b2 || !(smooth(g1) || smooth(g2)) {
                    continue;
                }
                // the pairs the narrow phase sends here (the others have their own colliders)
                let (t1, t2) = (m.geom_type[g1], m.geom_type[g2]);
                let (t1, t2) = if (t1 as i32) <= (t2 as i32) {
                    (t1, t2)
                } else {
                    (t2, t1)
                };
                use GeomType::{Box, Capsule, Cylinder, Sphere};
                if matches!(
                    (t1, t2),
                    (Sphere, Sphere | Capsule | Cylinder | Box) | (Capsule, Capsule | Box)
                ) {
                    continue;
                }
                assert_eq!(
                    d.geom_xpos[g1], d.geom_xpos[g2],
                    "geoms {g1} {g2} concentric"
                );
                let (before, conv) = (SUPPORTS.with(|c| c.get()), CONVERGED.with(|c| c.get()));
                let c = pair_contact_within(&m, &d, [g1, g2], 0.0, &mut scratch);
                let n = SUPPORTS.with(|c| c.get()) - before;
                let conv = CONVERGED.with(|c| c.get()) - conv;
                assert_eq!(conv, 0, "geoms {g1} {g2}: the converged search ran");
                let (_, _, c, ..) = c.unwrap_or_else(|| panic!("geoms {g1} {g2}: no contact"));
                assert!(c.dist < 0.0, "geoms {g1} {g2}: concentric, dist {}", c.dist);
                assert!(n <= bound, "geoms {g1} {g2}: {n} support points > {bound}");
                if pairs < 8 {
                    eprintln!(
                        "geoms {g1} {g2}: dist {:.6e} normal {:?}",
                        c.dist,
                        c.normal.as_slice()
                    );
                }
                pairs += 1;
                worst = worst.max(n);
            }
        }
        assert!(pairs > 3000, "{pairs} concentric pairs");
        eprintln!("{pairs} concentric pairs, at most {worst} support points each");
    }

    #[test]
    fn epa_matches_closed_forms() {
        // sphere–sphere and capsule–capsule penetration against the exact values
        let mut worst: f64 = 0.0;
        for k in 0..200 {
            let t = k as f64 * 0.37;
            let pb = V3::new(
                0.05 * t.sin(),
                0.1 * (1.3 * t).cos(),
                0.12 * (0.7 * t).sin(),
            );
            let a = Posed {
                shape: Shape::Sphere(0.1),
                pos: V3::zeros(),
                mat: Matrix3::identity(),
            };
            let b = Posed {
                shape: Shape::Sphere(0.07),
                pos: pb,
                mat: rot(V3::new(1.0, 2.0, 3.0), t),
            };
            let c = penetration_within(
                &a,
                &b,
                1e-10,
                50,
                f64::INFINITY,
                &mut CollisionScratch::default(),
            )
            .unwrap();
            worst = worst.max((c.dist - (pb.norm() - 0.17)).abs());
            let a = Posed {
                shape: Shape::Capsule(0.07, 0.15),
                pos: V3::zeros(),
                mat: rot(V3::new(0.3, 1.0, 0.0), t),
            };
            let b = Posed {
                shape: Shape::Capsule(0.05, 0.1),
                pos: pb,
                mat: rot(V3::new(1.0, 0.2, 0.5), 2.0 * t),
            };
            let c = penetration_within(
                &a,
                &b,
                1e-10,
                50,
                f64::INFINITY,
                &mut CollisionScratch::default(),
            )
            .unwrap();
            let (a1, a2) = (a.mat.column(2).into_owned(), b.mat.column(2).into_owned());
            let (s, u) =
                super::super::primitive::seg_seg_params(&a.pos, &a1, 0.15, &b.pos, &a2, 0.1);
            let exact = (a.pos + a1 * s - b.pos - a2 * u).norm() - 0.12;
            let e = (c.dist - exact).abs();
            if e > 1e-6 {
                eprintln!("capsule k {k}: epa {} exact {exact}", c.dist);
            }
            worst = worst.max(e);
        }
        assert!(worst < 1e-6, "worst {worst}");
    }
}
