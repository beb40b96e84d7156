//! Multi-contact convex collision for box, mesh, capsule–mesh and cylinder pairs (MuJoCo 4.0.0
//! `multiccd`, on unless `<flag multiccd="disable"/>`; Computation "Checking"; the rule below was
//! measured on MuJoCo 4.0.0, tools/reference/gen_multiccd_cases.py). After the penetration
//! search ([`super::convex::penetration_within`]) finds the normal `n` (geom 0 → geom 1), the touching
//! features are matched and clipped against each other:
//!
//! * features: for box/mesh pairs searched by MuJoCo's native search, the vertex indices of its
//!   last EPA face on each geom ([`indexed_feature`]), and for a cylinder against a mesh those
//!   on the mesh with the cylinder's feature below (its rim point counted as its cap face when
//!   the cap is a candidate); otherwise the vertices of each geom that
//!   support it along `n` (geom 0) and `−n` (geom 1);
//!   one vertex, an edge (two), or a face (three or more). Their candidate faces are the hull
//!   faces (box faces, mesh polygons) containing all of them, in the order of the first vertex's
//!   faces (`polymap`): every one for a vertex, the first two for an edge, the first for a face.
//!   A capsule is its segment (two vertices, no face). A cylinder's caps are regular 16-gons
//!   inscribed in the rims (first corner on the local +x axis); its feature is the cap polygon when `n` is along the axis,
//!   the side line (two rim points, no face) when `n` is normal to it, else the rim
//!   point along `n` with the side line as its edge and the cap as candidate face if within
//!   `FACE_TOL` of `n` ([`cylinder_feature`]); the side line and the rim point are those through
//!   the cylinder's support point of the native search's final EPA face's first vertex
//!   ([`super::native::contact_aimed`]), else those facing `n`;
//! * face–face: the candidate face of geom 0 and the one of geom 1 whose outward normals are the
//!   most anti-parallel, if `n₀·n₁ < −FACE_TOL` (`FACE_TOL = 0.996`, about 5°, bisected on the
//!   oracle): geom 1's face is clipped (Sutherland–Hodgman) by the prism of geom 0's face along
//!   `n₀`, contact normal `−n₁`;
//! * edge–face on the native search's features (measured on Menagerie's Spot-arm and ALOHA
//!   states): otherwise an edge of the feature with fewer vertices (both ways when they are
//!   equal, geom 0's first) with `|e·n_f| < EDGE_TOL` for a candidate face `f` of the other
//!   geom, whatever `f`'s alignment with `n`, else the single contact;
//! * edge–face on the exact supporting features: otherwise an edge of a vertex or edge feature
//!   with `|e·n_f| < EDGE_TOL = 0.0888` (bisected on the oracle; slightly below
//!   `√(1 − FACE_TOL²)`) for a face `f` of the other geom, first among faces within `FACE_TOL` of
//!   `±n` (geom 1's edges on geom 0's faces, then the reverse), then, as in MuJoCo's feature
//!   order, geom 0's edges when its feature is not larger than geom 1's or is a cylinder's side
//!   line, else geom 1's (not from a cylinder's rim point: MuJoCo gives one contact there); the
//!   edge is clipped by that face's prism, contact normal the face normal (geom 0 → geom 1);
//! * every clipped point `p` is projected along the reference face normal onto the reference
//!   face plane (`q`); with `x₀`, `x₁` the points on geom 0 and geom 1 (`p` and `q` in the order of
//!   their geoms), each contact has `dist = n·(x₁ − x₀)` and `pos = x₀ + n dist/2`; points beyond
//!   `margin + gap` are dropped first, more than 4 are reduced to 4 by MuJoCo's greedy
//!   quadrilateral search (`polygon_quad`); of 3 or 4, exact duplicates (1e-15) are dropped; 2
//!   are both kept even when equal (an edge cut by one side plane gives the cut twice, once from
//!   each end: MuJoCo makes two identical contacts when the edge's other end is beyond the
//!   margin, measured on MuJoCo 4.0.0, `tools/zoo/gen_regressions.py`).
//!
//! MuJoCo reads the features off its penetration search's last simplex; on curved cylinder sides
//! and rims that places the side line to ~1e-4 (tests/multiccd_oracle.rs, `SIDE`), and on a cap
//! reduced to four corners the 16-gon's exact area ties are broken by rounding, so the four kept
//! may differ from MuJoCo's (all are corners of the same clipped polygon, [`patch`]).
//! For a dual scalar the kept points are recomputed in `T` from their clip origins ([`Lab`]) and
//! the geoms' poses, features fixed ([`multi_contact`], [`super::cvxdiff`]); a cylinder's rim
//! direction stays the `f64` aim (see [`multi_contact`] for what that leaves out).
//! No allocation: features and polygons live in fixed-size arrays; a pair whose polygons do not
//! fit falls back to the single contact.

use super::cvxdiff::{is_f64, tv};
#[cfg(test)]
use super::scratch::patch::Patch;
use super::scratch::patch::{Lab, PatchBuf, MAXP};
use super::shape::ConvexContact;
use super::sink::{f64of, Sink};
use crate::math::{sc, Scalar};
use crate::model::{GeomType, Mesh, Model};
use nalgebra::{Matrix3, Vector3};

type V3 = Vector3<f64>;

/// Cosine tolerance for anti-parallel face normals (MuJoCo 4.0.0: faces up to ~5.1° apart
/// give a face–face patch; the threshold cos = 0.996 was bisected on the oracle).
pub const FACE_TOL: f64 = 0.996;

/// Sine tolerance for an edge parallel to a face (MuJoCo 4.0.0: an edge tilted up to ~5.09°
/// from a face gives an edge–face patch; bisected on the oracle to `|e·n_face| < 0.0888`, not
/// `√(1 − FACE_TOL²) = 0.08935`, tools/zoo/gen_regressions.py).
pub const EDGE_TOL: f64 = 0.0888;

/// Most support vertices / candidate faces / edges tracked per geom.
const MAXS: usize = 32;

/// MuJoCo's corner listing of the 6 box faces (+x, −x, +y, −y, +z, −z), clockwise about the
/// outward normal; corners as sign bits (1: +x, 2: +y, 4: +z).
const BOX_FACE: [[usize; 4]; 6] = [
    [7, 3, 1, 5],
    [2, 6, 4, 0],
    [2, 3, 7, 6],
    [4, 5, 1, 0],
    [6, 7, 5, 4],
    [3, 2, 0, 1],
];

/// A box or a mesh (with hull polygons) posed in the world (in `f64`, or in `T` for the
/// differentiable re-evaluation of the contacts, [`super::cvxdiff`]).
struct Poly<'a, T: Scalar = f64> {
    kind: Kind<'a>,
    pos: Vector3<T>,
    mat: Matrix3<T>,
}

#[derive(Clone, Copy)]
enum Kind<'a> {
    Box([f64; 3]),
    Mesh(&'a Mesh),
    /// A capsule's segment (radius, half-length): two vertices, no faces, one edge.
    Capsule(f64, f64),
    /// A cylinder (radius, half-length, local radial unit `u` of the supporting direction set by
    /// [`Poly::aim`]): its caps are regular [`CYL_SIDES`]-gons (faces 0: −z, 1: +z; vertices
    /// `k` and `CYL_SIDES + k` at angle `2πk/CYL_SIDES`), its side is not a face; vertices
    /// `CYL_U` and `CYL_U + 1` are the rim points along `u` on the −z and +z caps (the side line
    /// facing the other geom).
    Cylinder(f64, f64, [f64; 2]),
}

/// Corners of the polygon standing for a cylinder cap (MuJoCo 4.0.0, measured with the oracle:
/// a cap's patch corners are corners of the regular 16-gon inscribed in the rim, the first at
/// the local +x axis).
const CYL_SIDES: usize = 16;
/// Index of the first exact rim point of a cylinder (see [`Kind::Cylinder`]).
const CYL_U: usize = 2 * CYL_SIDES;

impl<'a, T: Scalar> Poly<'a, T> {
    fn new(m: &'a Model, g: usize, pos: Vector3<T>, mat: Matrix3<T>) -> Option<Self> {
        let kind = match m.geom_type[g] {
            GeomType::Box => Kind::Box(m.geom_size[g]),
            GeomType::Capsule => Kind::Capsule(m.geom_size[g][0], m.geom_size[g][1]),
            GeomType::Cylinder => Kind::Cylinder(m.geom_size[g][0], m.geom_size[g][1], [1.0, 0.0]),
            GeomType::Mesh => {
                let mesh = m.mesh.get(usize::try_from(m.geom_dataid[g]).ok()?)?;
                if mesh.polyvert.is_empty() || mesh.polymap.len() != mesh.vert.len() {
                    return None;
                }
                Kind::Mesh(mesh)
            }
            _ => return None,
        };
        Some(Poly { kind, pos, mat })
    }

    fn nvert(&self) -> usize {
        match self.kind {
            Kind::Box(_) => 8,
            Kind::Mesh(mesh) => mesh.vert.len(),
            Kind::Capsule(..) => 2,
            Kind::Cylinder(..) => CYL_U + 2,
        }
    }

    fn local(&self, i: usize) -> V3 {
        match self.kind {
            Kind::Box(s) => {
                let sg = |bit: usize, x: f64| if i & bit != 0 { x } else { -x };
                V3::new(sg(1, s[0]), sg(2, s[1]), sg(4, s[2]))
            }
            Kind::Mesh(mesh) => {
                let v = mesh.vert[i];
                V3::new(v[0], v[1], v[2])
            }
            Kind::Capsule(_, h) => V3::new(0.0, 0.0, if i == 0 { -h } else { h }),
            Kind::Cylinder(r, h, u) => {
                let z = if i < CYL_SIDES || i == CYL_U { -h } else { h };
                if i >= CYL_U {
                    return V3::new(r * u[0], r * u[1], z);
                }
                let t = 2.0 * std::f64::consts::PI * (i % CYL_SIDES) as f64 / CYL_SIDES as f64;
                V3::new(r * t.cos(), r * t.sin(), z)
            }
        }
    }

    /// The cap (face 0: −z, 1: +z) holding cylinder vertex `v`.
    fn cap_of(v: usize) -> usize {
        usize::from(!(v < CYL_SIDES || v == CYL_U))
    }

    fn is_cylinder(&self) -> bool {
        matches!(self.kind, Kind::Cylinder(..))
    }

    fn world(&self, i: usize) -> Vector3<T> {
        self.pos + self.mat * tv::<T>(&self.local(i))
    }

    fn normal(&self, f: usize) -> Vector3<T> {
        let l = match self.kind {
            Kind::Box(_) => {
                let mut l = V3::zeros();
                l[f / 2] = if f % 2 == 0 { 1.0 } else { -1.0 };
                l
            }
            Kind::Mesh(mesh) => {
                let n = mesh.polynormal[f];
                V3::new(n[0], n[1], n[2])
            }
            Kind::Capsule(..) => V3::zeros(),
            Kind::Cylinder(..) => V3::new(0.0, 0.0, if f == 0 { -1.0 } else { 1.0 }),
        };
        self.mat * tv::<T>(&l)
    }

    fn face_has(&self, f: usize, v: usize) -> bool {
        match self.kind {
            Kind::Box(_) => ((v >> (f / 2)) & 1 == 1) == (f % 2 == 0),
            Kind::Mesh(mesh) => mesh.polymap[v].contains(&f),
            Kind::Capsule(..) => false,
            Kind::Cylinder(..) => Self::cap_of(v) == f,
        }
    }

    /// Faces containing vertex `v` (box: its x, y, z faces; mesh: `polymap` order).
    fn faces_of(&self, v: usize, out: &mut [usize; MAXS]) -> usize {
        match self.kind {
            Kind::Box(_) => {
                for (k, o) in out.iter_mut().enumerate().take(3) {
                    *o = 2 * k + usize::from((v >> k) & 1 == 0);
                }
                3
            }
            Kind::Mesh(mesh) => {
                let p = &mesh.polymap[v];
                let n = p.len().min(MAXS);
                out[..n].copy_from_slice(&p[..n]);
                n
            }
            Kind::Capsule(..) => 0,
            Kind::Cylinder(..) => {
                out[0] = Self::cap_of(v);
                1
            }
        }
    }

    /// Corners of face `f` in the world, clockwise about its outward normal.
    fn face(&self, f: usize, out: &mut [Vector3<T>; MAXP]) -> usize {
        match self.kind {
            Kind::Box(_) => {
                for (o, &c) in out.iter_mut().zip(&BOX_FACE[f]) {
                    *o = self.world(c);
                }
                4
            }
            Kind::Mesh(mesh) => {
                let p = &mesh.polyvert[f];
                if p.len() > MAXP / 2 {
                    return 0;
                }
                for (o, &v) in out.iter_mut().zip(p.iter().rev()) {
                    *o = self.world(v);
                }
                p.len()
            }
            Kind::Capsule(..) => 0,
            // −z cap from angle 0 up, +z cap from angle 0 down (clockwise about each outward
            // normal; MuJoCo 4.0.0's order, measured: it decides the order of the patch)
            Kind::Cylinder(..) => {
                for (j, o) in out.iter_mut().enumerate().take(CYL_SIDES) {
                    *o = self.world(if f == 0 {
                        j
                    } else {
                        CYL_SIDES + (CYL_SIDES - j) % CYL_SIDES
                    });
                }
                CYL_SIDES
            }
        }
    }

    /// End vertices of the edges leaving vertex `v` (box: along x, y, z; mesh: the previous
    /// corner in each polygon containing `v`).
    fn edges_of(&self, v: usize, out: &mut [usize; MAXS]) -> usize {
        match self.kind {
            Kind::Box(_) => {
                out[..3].copy_from_slice(&[v ^ 1, v ^ 2, v ^ 4]);
                3
            }
            Kind::Mesh(mesh) => {
                let mut n = 0;
                for &f in mesh.polymap[v].iter().take(MAXS) {
                    let p = &mesh.polyvert[f];
                    if let Some(j) = p.iter().position(|&x| x == v) {
                        out[n] = p[(j + p.len() - 1) % p.len()];
                        n += 1;
                    }
                }
                n
            }
            Kind::Capsule(..) => {
                out[0] = 1 - v;
                1
            }
            // the side line through an exact rim point; the cap polygons' corners have none
            Kind::Cylinder(..) if v >= CYL_U => {
                out[0] = CYL_U + (CYL_U + 1 - v);
                1
            }
            Kind::Cylinder(..) => 0,
        }
    }

    /// Ends of the edge `v0`–`v1` in the world and a shift applied to the clipped points.
    /// A capsule (always geom 0 here) gives its side line facing the reference face (inward face
    /// normal `dir`): the segment moved by its radius along the part of `dir` normal to the axis,
    /// from its −z end to its +z end; its clipped points are then lifted along `−dir` onto the
    /// segment moved by the radius along `dir` itself (`r (1/c − 1)`, `c` the cosine between
    /// `dir` and the radial direction). Measured on MuJoCo 4.0.0: tilted capsules differ from
    /// this by a few 1e-6 at the unclipped ends, flat ones agree to rounding.
    fn edge(&self, v0: usize, v1: usize, dir: &Vector3<T>) -> (Vector3<T>, Vector3<T>, Vector3<T>) {
        match self.kind {
            Kind::Capsule(r, _) => {
                let a = self.mat.column(2).into_owned();
                let radial = dir - a * a.dot(dir);
                let c = radial.norm();
                if !(c > sc(1e-12)) {
                    return (self.world(0), self.world(1), Vector3::zeros());
                }
                let r = sc::<T>(r);
                let w = radial * (r / c);
                (
                    self.world(0) + w,
                    self.world(1) + w,
                    -dir * (r * (T::one() / c - T::one())),
                )
            }
            _ => (self.world(v0), self.world(v1), Vector3::zeros()),
        }
    }
}

impl Poly<'_> {
    /// Points a cylinder's exact rim points (`CYL_U`, `CYL_U + 1`) along the part of the world
    /// direction `dir` normal to its axis (no-op for other shapes or along the axis).
    fn aim(&mut self, dir: &V3) {
        if let Kind::Cylinder(_, _, ref mut u) = self.kind {
            let ld = self.mat.transpose() * dir;
            let rho = ld.x.hypot(ld.y);
            if rho > 0.0 {
                *u = [ld.x / rho, ld.y / rho];
            }
        }
    }
}

/// The supporting feature of a polytope along a direction: its vertices (up to `MAXS`), their
/// count, and the candidate faces containing them.
struct Feature {
    vert: [usize; MAXS],
    nvert: usize,
    face: [usize; MAXS],
    nface: usize,
}

impl Feature {
    fn dim(&self) -> usize {
        self.nvert.min(3)
    }
}

fn feature(p: &Poly, dir: &V3) -> Feature {
    if let Kind::Cylinder(..) = p.kind {
        return cylinder_feature(p, dir);
    }
    // the first NDOT projections are kept for the second pass (the same values recomputed
    // beyond)
    const NDOT: usize = 64;
    let ld = p.mat.transpose() * dir;
    let nv = p.nvert();
    let mut dots = [0.0; NDOT];
    let mut best = f64::NEG_INFINITY;
    let mut scale: f64 = 0.0;
    for i in 0..nv {
        let l = p.local(i);
        scale = scale.max(l.amax());
        let x = ld.dot(&l);
        if let Some(d) = dots.get_mut(i) {
            *d = x;
        }
        best = best.max(x);
    }
    let eps = 1e-10 * scale.max(1e-300);
    let mut f = Feature {
        vert: [0; MAXS],
        nvert: 0,
        face: [0; MAXS],
        nface: 0,
    };
    for i in 0..nv {
        let x = dots.get(i).copied().unwrap_or_else(|| ld.dot(&p.local(i)));
        if x >= best - eps && f.nvert < MAXS {
            f.vert[f.nvert] = i;
            f.nvert += 1;
        }
    }
    if f.nvert > 0 {
        candidate_faces(p, &mut f);
    }
    f
}

/// Sets the candidate faces of a feature with at least one vertex: the faces of its first
/// vertex containing all the others (only the first for three or more, the first two for two).
fn candidate_faces(p: &Poly, f: &mut Feature) {
    let mut cand = [0usize; MAXS];
    let nc = p.faces_of(f.vert[0], &mut cand);
    for &c in &cand[..nc] {
        if f.vert[1..f.nvert].iter().all(|&v| p.face_has(c, v)) {
            f.face[f.nface] = c;
            f.nface += 1;
            // a face: its first polygon; an edge: its first two (measured on MuJoCo 4.0.0: a
            // hull quad holding an edge as its diagonal, listed before the edge's second
            // triangle, is a candidate and that triangle is not; Menagerie's Spot-arm)
            if f.nvert >= 3 || (f.nvert == 2 && f.nface == 2) {
                break;
            }
        }
    }
}

/// The feature of a box or mesh named by the vertex indices of a penetration search's last
/// face (MuJoCo 4.0.0 reads the touching features off its EPA face: one distinct index is a
/// vertex, two an edge, three a face), with the candidate faces containing them all as in
/// [`feature`]. `None` for an index out of range.
fn indexed_feature(p: &Poly, idx: [i32; 3]) -> Option<Feature> {
    let mut f = Feature {
        vert: [0; MAXS],
        nvert: 0,
        face: [0; MAXS],
        nface: 0,
    };
    for i in idx {
        let i = usize::try_from(i).ok().filter(|&i| i < p.nvert())?;
        if !f.vert[..f.nvert].contains(&i) {
            f.vert[f.nvert] = i;
            f.nvert += 1;
        }
    }
    candidate_faces(p, &mut f);
    Some(f)
}

/// The supporting feature of a cylinder aimed along `dir` ([`Poly::aim`]): the whole cap polygon
/// when `dir` is along the axis, the side line (two exact rim points, no face) when it is normal
/// to the axis, else the exact rim point (the side line its edge; its cap the candidate face
/// when within `FACE_TOL` of `dir`).
/// MuJoCo 4.0.0 reads these off its penetration search's simplex; here they follow from the
/// normal (`CYL_EPS` decides "along" and "normal to").
fn cylinder_feature(p: &Poly, dir: &V3) -> Feature {
    const CYL_EPS: f64 = 1e-10;
    let ld = p.mat.transpose() * dir;
    let (lz, rho) = (ld.z, ld.x.hypot(ld.y));
    let mut f = Feature {
        vert: [0; MAXS],
        nvert: 0,
        face: [0; MAXS],
        nface: 0,
    };
    let top = usize::from(lz > 0.0);
    if !(lz.abs() > CYL_EPS * rho) {
        f.vert[..2].copy_from_slice(&[CYL_U, CYL_U + 1]);
        f.nvert = 2;
    } else if rho <= CYL_EPS * lz.abs() {
        for (k, v) in f.vert.iter_mut().enumerate().take(CYL_SIDES) {
            *v = top * CYL_SIDES + k;
        }
        f.nvert = CYL_SIDES;
        f.face[0] = top;
        f.nface = 1;
    } else {
        f.vert[0] = CYL_U + top;
        f.nvert = 1;
        // the cap only when it faces `dir` within the face tolerance (a lying cylinder's cap
        // must not pair with a side face of the other geom)
        if lz.abs() > FACE_TOL * ld.norm() {
            f.face[0] = top;
            f.nface = 1;
        }
    }
    f
}

/// An edge-face match: (edge start, edge end) on one geom, face on the other.
fn edge_face(
    pe: &Poly,
    fe: &Feature,
    pf: &Poly,
    ff: &Feature,
    tol: f64,
) -> Option<(usize, usize, usize)> {
    let mut ends = [0usize; MAXS];
    let (v0, ne) = if fe.nvert == 2 {
        ends[0] = fe.vert[1];
        (fe.vert[0], 1)
    } else {
        (fe.vert[0], pe.edges_of(fe.vert[0], &mut ends))
    };
    let x0 = pe.world(v0);
    for &f in &ff.face[..ff.nface] {
        let nf = pf.normal(f);
        for &v1 in &ends[..ne] {
            let e = pe.world(v1) - x0;
            let l = e.norm();
            if l > 0.0 && (e.dot(&nf) / l).abs() < tol {
                return Some((v0, v1, f));
            }
        }
    }
    None
}

/// Edge–face match with the face aligned with `dir` within `FACE_TOL`: an edge of the vertex or
/// edge feature `fe` nearly parallel (`|e·n_face| < EDGE_TOL`) to a candidate face of
/// `ff` whose outward normal `n_face` satisfies `n_face·dir > FACE_TOL`.
fn edge_on_face(
    pe: &Poly,
    fe: &Feature,
    pf: &Poly,
    ff: &Feature,
    dir: &V3,
) -> Option<(usize, usize, usize)> {
    if fe.dim() >= 3 {
        return None;
    }
    let mut aligned = Feature {
        vert: ff.vert,
        nvert: ff.nvert,
        face: [0; MAXS],
        nface: 0,
    };
    // the candidates: the faces containing every vertex of the feature (measured on MuJoCo
    // 4.0.0: a mesh edge or face feature is not paired through its vertices' other faces),
    // else the faces of its first three vertices
    let mut cand = [0usize; MAXS];
    let mut align = [0.0; MAXS];
    let mut nc = 0;
    if ff.nface > 0 {
        cand[..ff.nface].copy_from_slice(&ff.face[..ff.nface]);
        nc = ff.nface;
    } else {
        let mut vf = [0usize; MAXS];
        for &v in &ff.vert[..ff.nvert.min(3)] {
            let n = pf.faces_of(v, &mut vf);
            for &f in &vf[..n] {
                if nc < MAXS && !cand[..nc].contains(&f) {
                    cand[nc] = f;
                    nc += 1;
                }
            }
        }
    }
    for &f in &cand[..nc] {
        let a = pf.normal(f).dot(dir);
        if a > FACE_TOL {
            // a single vertex's faces: the most aligned first (measured on MuJoCo 4.0.0: a
            // mesh vertex on a large flat polygon and on small bevel polygons, all within the
            // tolerance, pairs the edge with the flat polygon)
            let mut k = aligned.nface;
            while ff.nvert == 1 && k > 0 && align[k - 1] < a {
                aligned.face[k] = aligned.face[k - 1];
                align[k] = align[k - 1];
                k -= 1;
            }
            aligned.face[k] = f;
            align[k] = a;
            aligned.nface += 1;
        }
    }
    if aligned.nface == 0 {
        return None;
    }
    edge_face(pe, fe, pf, &aligned, EDGE_TOL)
}

impl Lab {
    /// Subject edges through the point (`ns` subject corners; a 2-corner subject is one edge).
    fn edges(self, ns: usize) -> [Option<u8>; 2] {
        match self {
            Lab::V(_) if ns == 2 => [Some(0), None],
            Lab::V(i) => [Some(((i as usize + ns - 1) % ns) as u8), Some(i)],
            Lab::E(e, _) => [Some(e), None],
            _ => [None, None],
        }
    }
    fn planes(self) -> [Option<u8>; 2] {
        match self {
            Lab::E(_, k) => [Some(k), None],
            Lab::C(a, b) => [Some(a), Some(b)],
            _ => [None, None],
        }
    }
    /// The label of the cut of segment `p`–`q` by side plane `k`.
    fn cut(p: Lab, q: Lab, k: u8, ns: usize) -> Lab {
        let (ep, eq) = (p.edges(ns), q.edges(ns));
        if let Some(e) = ep.iter().flatten().find(|e| eq.contains(&Some(**e))) {
            return Lab::E(*e, k);
        }
        let (pp, pq) = (p.planes(), q.planes());
        if let Some(j) = pp.iter().flatten().find(|j| pq.contains(&Some(**j))) {
            return Lab::C(*j, k);
        }
        Lab::Bad
    }
}

/// Sutherland–Hodgman: clips `subj[..ns]` by the prism of the polygon `clip[..nc]` (clockwise
/// about `n`) along `n`; the result replaces `subj` (and, when `track`, the points' origins
/// `lbuf[0]`; `other` and `lbuf[1]` are scratch). Returns the new count.
#[allow(clippy::too_many_arguments)]
fn clip_polygon(
    subj: &mut [V3; MAXP],
    other: &mut [V3; MAXP],
    ns: usize,
    clip: &[V3; MAXP],
    nc: usize,
    n: &V3,
    track: bool,
    lbuf: &mut [[Lab; MAXP]; 2],
) -> usize {
    // two buffers used in turn (points, labels): `subj` and `other` (scratch), no copies
    // between passes
    let mut ncur = ns;
    if track {
        for (i, l) in lbuf[0].iter_mut().enumerate().take(ns) {
            *l = Lab::V(i as u8);
        }
    }
    // `flip`: the current polygon is in `other` (else in `subj`); labels in lbuf[flip]
    let mut flip = false;
    for k in 0..nc {
        let c0 = clip[k];
        let c1 = clip[(k + 1) % nc];
        let pn = (c1 - c0).cross(n);
        let pd = pn.dot(&c0);
        let (cur, out) = if flip {
            (&*other, &mut *subj)
        } else {
            (&*subj, &mut *other)
        };
        let [l0, l1] = &mut *lbuf;
        let (lcur, lout) = if flip { (&*l1, l0) } else { (&*l0, l1) };
        let mut no = 0;
        for i in 0..ncur {
            let p = cur[i];
            let q = cur[(i + 1) % ncur];
            let ip = (p - c0).dot(&pn) > 0.0;
            let iq = (q - c0).dot(&pn) > 0.0;
            if !ip && !iq {
                continue;
            }
            if ip && iq {
                if no < MAXP {
                    out[no] = q;
                    if track {
                        lout[no] = lcur[(i + 1) % ncur];
                    }
                    no += 1;
                }
                continue;
            }
            let d = q - p;
            let den = pn.dot(&d);
            if den != 0.0 {
                let t = (pd - pn.dot(&p)) / den;
                if (0.0..=1.0).contains(&t) && no < MAXP {
                    out[no] = p + d * t;
                    if track {
                        lout[no] = Lab::cut(lcur[i], lcur[(i + 1) % ncur], k as u8, ns);
                    }
                    no += 1;
                }
            }
            if iq && no < MAXP {
                out[no] = q;
                if track {
                    lout[no] = lcur[(i + 1) % ncur];
                }
                no += 1;
            }
        }
        flip = !flip;
        ncur = no;
        if ncur == 0 {
            break;
        }
    }
    if flip {
        subj[..ncur].copy_from_slice(&other[..ncur]);
    }
    if track && flip {
        let [l0, l1] = &mut *lbuf;
        l0[..ncur].copy_from_slice(&l1[..ncur]);
    }
    ncur
}

/// A clipped point in `T` from its origin `lab` (see [`Lab`]): `subj`, `clip`, `nref` as in
/// [`clip_polygon`], `snorm` the subject face's normal (face subjects).
#[allow(clippy::too_many_arguments)]
fn eval_lab<T: Scalar>(
    lab: Lab,
    subj: &[Vector3<T>; MAXP],
    ns: usize,
    clip: &[Vector3<T>; MAXP],
    nc: usize,
    nref: &Vector3<T>,
    snorm: Option<Vector3<T>>,
) -> Option<Vector3<T>> {
    let plane = |k: usize| {
        let c0 = clip[k];
        let pn = (clip[(k + 1) % nc] - c0).cross(nref);
        (pn, pn.dot(&c0))
    };
    match lab {
        Lab::V(i) => Some(subj[i as usize]),
        Lab::E(e, k) => {
            let (pn, pd) = plane(k as usize);
            let e = e as usize;
            let (p, q) = (subj[e], subj[(e + 1) % ns]);
            let t = (pd - pn.dot(&p)) / pn.dot(&(q - p));
            Some(p + (q - p) * t)
        }
        Lab::C(a, b) => {
            let ((n1, d1), (n2, d2)) = (plane(a as usize), plane(b as usize));
            let n3 = snorm?;
            let d3 = n3.dot(&subj[0]);
            let det = n1.dot(&n2.cross(&n3));
            Some((n2.cross(&n3) * d1 + n3.cross(&n1) * d2 + n1.cross(&n2) * d3) / det)
        }
        Lab::Bad => None,
    }
}

/// The clipping set-up chosen from the features: the reference face (`rside`'s face `rface`)
/// and the subject on the other geom (a face, or an edge `(v0, v1)`).
#[derive(Clone, Copy, Debug)]
struct Plan {
    rside: usize,
    rface: usize,
    subj: Subj,
}

#[derive(Clone, Copy, Debug)]
enum Subj {
    Face(usize),
    Edge(usize, usize),
}

/// Subject and clip polygons of a [`Plan`]: `(nref, ncon, ns, nc, lift, subject normal)`.
type Setup<T> = (
    Vector3<T>,
    Vector3<T>,
    usize,
    usize,
    Vector3<T>,
    Option<Vector3<T>>,
);

fn setup<T: Scalar>(
    plan: &Plan,
    polys: [&Poly<T>; 2],
    subj: &mut [Vector3<T>; MAXP],
    clip: &mut [Vector3<T>; MAXP],
) -> Setup<T> {
    let (pr, ps) = (polys[plan.rside], polys[1 - plan.rside]);
    let nref = pr.normal(plan.rface);
    let nc = pr.face(plan.rface, clip);
    match plan.subj {
        Subj::Face(j) => {
            let ns = ps.face(j, subj);
            let sn = ps.normal(j);
            (nref, -sn, ns, nc, Vector3::zeros(), Some(sn))
        }
        Subj::Edge(v0, v1) => {
            let lift;
            (subj[0], subj[1], lift) = ps.edge(v0, v1, &-nref);
            let ncon = if plan.rside == 0 { nref } else { -nref };
            (nref, ncon, 2, nc, lift, None)
        }
    }
}

/// MuJoCo 4.0.0's reduction of a clipped polygon to four corners (measured: it differs from the
/// plane–mesh search [`super::meshpoly::quad_positions`] and may repeat a corner). A greedy
/// search over positions `(a, b, c, d)` of the quadrilateral area `|(p_a − p_c) × (p_b − p_d)|/2`:
/// for each `a` in turn (keeping `b`, `c`, `d` and the best value from the previous `a`), advance
/// `d` while the value strictly grows, after each step advancing `c`, then `b`, the same way;
/// then, if `b` has reached `a`, push `b` (and `c`, `d` if they collide) one position on.
fn polygon_quad(p: &[V3]) -> [usize; 4] {
    let n = p.len();
    let nx = |i: usize| (i + 1) % n;
    let area =
        |a: usize, b: usize, c: usize, d: usize| 0.5 * (p[a] - p[c]).cross(&(p[b] - p[d])).norm();
    let (mut b, mut c, mut d) = (1, 2, 3);
    let mut res = [0, 1, 2, 3];
    let mut best = area(0, b, c, d);
    for a in 0..n {
        loop {
            let v = area(a, b, c, nx(d));
            if !(v > best) {
                break;
            }
            best = v;
            d = nx(d);
            res = [a, b, c, d];
            loop {
                let v = area(a, b, nx(c), d);
                if !(v > best) {
                    break;
                }
                best = v;
                c = nx(c);
                res = [a, b, c, d];
            }
            loop {
                let v = area(a, nx(b), c, d);
                if !(v > best) {
                    break;
                }
                best = v;
                b = nx(b);
                res = [a, b, c, d];
            }
        }
        if b == a {
            b = nx(b);
            if c == b {
                c = nx(c);
                if d == c {
                    d = nx(d);
                }
            }
        }
    }
    res
}

/// What the re-evaluation in `T` needs besides the [`Patch`]: the plan, the geoms' shapes (a
/// cylinder with its `f64` aim), the polygon sizes, and per patch point its clip origin and
/// its clipped point before projection (indices as in the patch).
struct Trace<'a> {
    plan: Plan,
    kind: [Kind<'a>; 2],
    pose: [(V3, Matrix3<f64>); 2],
    ns: usize,
    nc: usize,
}

/// The patch of the pair `geom` (posed by `pose`, penetration result `c`) with points beyond
/// `margin` (margin + gap) dropped, or None when the touching features do not match.
#[cfg(test)]
pub fn patch(
    m: &Model,
    geom: [usize; 2],
    pose: [(V3, Matrix3<f64>); 2],
    c: &ConvexContact,
    margin: f64,
) -> Option<Patch> {
    let mut buf = PatchBuf::new();
    traced_patch(m, geom, pose, c, None, None, margin, false, &mut buf)?;
    Some(buf.patch)
}

/// [`patch`] into `buf`, with the clip origins recorded when `track` (for [`multi_contact`] in
/// `T`).
#[allow(clippy::too_many_arguments)]
fn traced_patch<'a>(
    m: &'a Model,
    geom: [usize; 2],
    pose: [(V3, Matrix3<f64>); 2],
    c: &ConvexContact,
    feat: Option<[[i32; 3]; 2]>,
    aim: Option<[V3; 2]>,
    margin: f64,
    track: bool,
    buf: &mut PatchBuf,
) -> Option<Trace<'a>> {
    let [g0, g1] = geom;
    let mut pa = Poly::new(m, g0, pose[0].0, pose[0].1)?;
    let mut pb = Poly::new(m, g1, pose[1].0, pose[1].1)?;
    let n = c.normal;
    // a cylinder's rim points: through its support point of the native search's final face's
    // first vertex when there is one (measured on MuJoCo 4.0.0, `native::contact_aimed`), else
    // along the normal
    match aim {
        Some([xa, xb]) => {
            pa.aim(&(xa - pose[0].0));
            pb.aim(&(xb - pose[1].0));
        }
        None => {
            pa.aim(&n);
            pb.aim(&-n);
        }
    }
    // a cylinder's feature follows from its aim even when the other geom's is the EPA face's
    let side = |p: &Poly, idx: [i32; 3], dir: &V3| {
        if p.is_cylinder() {
            Some(cylinder_feature(p, dir))
        } else {
            indexed_feature(p, idx)
        }
    };
    let (fa, fb) = match feat {
        Some([ia, ib]) => (side(&pa, ia, &n)?, side(&pb, ib, &-n)?),
        None => (feature(&pa, &n), feature(&pb, &-n)),
    };
    if fa.nvert == 0 || fb.nvert == 0 {
        return None;
    }
    // the most anti-parallel pair of candidate faces, if within the tolerance (measured on
    // MuJoCo 4.0.0: Menagerie's ALOHA finger, two faces of an edge anti-parallel to a triangle
    // within FACE_TOL, pairs the triangle with the closer one, not the first)
    let mut pair = None;
    let mut best = -FACE_TOL;
    for &i in &fa.face[..fa.nface] {
        for &j in &fb.face[..fb.nface] {
            let c = pa.normal(i).dot(&pb.normal(j));
            if c < best {
                best = c;
                pair = Some((i, j));
            }
        }
    }
    // reference face on geom 0 (rside 0) or geom 1, subject on the other
    let plan = |rside, rface, subj| Plan { rside, rface, subj };
    let plan = if let Some((i, j)) = pair {
        plan(0, i, Subj::Face(j))
    } else if feat.is_some() {
        // the features of MuJoCo's own EPA face: an edge of the smaller feature on a candidate
        // face of the other, whatever its alignment with the normal; both ways for features of
        // one size, geom 0's edges first (measured on MuJoCo 4.0.0, Menagerie's Spot-arm and
        // ALOHA states, tools/zoo/gen_regressions.py)
        // a cylinder's rim point with its cap as candidate face counts as that face (measured
        // on MuJoCo 4.0.0: a mesh edge under a ring's cap, the normal 3e-8 off the axis, is
        // clipped on the cap)
        let dim = |p: &Poly, f: &Feature| {
            if p.is_cylinder() && f.nface > 0 {
                3
            } else {
                f.dim()
            }
        };
        let (da, db) = (dim(&pa, &fa), dim(&pb, &fb));
        let on_b = (da <= db)
            .then(|| edge_face(&pa, &fa, &pb, &fb, EDGE_TOL))
            .flatten();
        if let Some((v0, v1, f)) = on_b {
            plan(1, f, Subj::Edge(v0, v1))
        } else if let Some((v0, v1, f)) = (db <= da)
            .then(|| edge_face(&pb, &fb, &pa, &fa, EDGE_TOL))
            .flatten()
        {
            plan(0, f, Subj::Edge(v0, v1))
        } else {
            return None;
        }
    } else if let Some((v0, v1, f)) = edge_on_face(&pb, &fb, &pa, &fa, &n) {
        plan(0, f, Subj::Edge(v0, v1))
    } else if let Some((v0, v1, f)) = edge_on_face(&pa, &fa, &pb, &fb, &-n) {
        plan(1, f, Subj::Edge(v0, v1))
    } else if (pa.is_cylinder() && fa.nvert == 1) || (pb.is_cylinder() && fb.nvert == 1) {
        // the side line through a cylinder's rim point pairs only with a face along the normal
        // (edge_on_face); the fallbacks below would put it on faces far from the normal
        // (measured: MuJoCo gives one contact), unlike a whole side line
        return None;
    } else if fa.dim() < 3 && (fa.dim() <= fb.dim() || pa.is_cylinder()) {
        // (a cylinder's side line has no face: only it can be the edge; MuJoCo's simplex may
        // also see an edge where the exact support on the other geom is one vertex)
        let (v0, v1, f) = edge_face(&pa, &fa, &pb, &fb, EDGE_TOL)?;
        plan(1, f, Subj::Edge(v0, v1))
    } else if fb.dim() < 3 {
        let (v0, v1, f) = edge_face(&pb, &fb, &pa, &fa, EDGE_TOL)?;
        plan(0, f, Subj::Edge(v0, v1))
    } else {
        return None;
    };
    let PatchBuf {
        patch: out,
        lab,
        clipped: subj,
        clip,
        other,
    } = buf;
    let (nref, ncon, ns, nc, lift, _) = setup(&plan, [&pa, &pb], subj, clip);
    let on_b = plan.rside == 0;
    if nc < 3 || ns < 2 {
        return None;
    }
    let np = clip_polygon(subj, other, ns, clip, nc, &nref, track, lab);
    let lab = &mut lab[0];
    let subject = [&pa, &pb][1 - plan.rside];
    // a cylinder's side line gives its two points from the end of its point of the native
    // search's final face's first vertex on, whatever the number of clipping planes (measured
    // on MuJoCo 4.0.0: dm_control's Kinova arm, rings on link meshes, both ends at 5, 9 and 35
    // `ccd_iterations`); without that point, in the clipping's order
    let rs = plan.rside;
    if let (true, Subj::Edge(..), 2, Some(x)) = (subject.is_cylinder(), plan.subj, np, aim) {
        let axis = subject.mat.column(2);
        let z = axis.dot(&(x[1 - rs] - pose[1 - rs].0));
        if z * axis.dot(&(subj[0] - subj[1])) < 0.0 {
            subj.swap(0, 1);
            lab.swap(0, 1);
        }
    }
    let r0 = clip[0];
    out.n = 0;
    out.normal = ncon;
    out.side = matches!(plan.subj, Subj::Edge(..)) && subject.is_cylinder();
    for k in 0..np {
        let p = subj[k];
        let q = p - nref * (p - r0).dot(&nref);
        let p = p + lift;
        let (x0, x1) = if on_b { (q, p) } else { (p, q) };
        let d = ncon.dot(&(x1 - x0));
        if d <= margin {
            out.pos[out.n] = x0 + ncon * (0.5 * d);
            out.dist[out.n] = d;
            // (out.n ≤ k: the trace is compacted in place)
            lab[out.n] = lab[k];
            subj[out.n] = subj[k];
            out.n += 1;
        }
    }
    let trace = Trace {
        plan,
        kind: [pa.kind, pb.kind],
        pose,
        ns,
        nc,
    };
    (out.n > 0).then_some(trace)
}

/// Adds the multi-contact patch of a box, mesh, capsule or cylinder pair ([`patch`], reduced to
/// four points) and returns true, or returns false (nothing added) when the features do not
/// match (the caller adds the single contact). For a dual `T` the kept points are recomputed
/// from their clip origins and the geoms' poses `tpose` (features fixed; [`super::cvxdiff`]),
/// their values kept. A cylinder's cap corners are fixed in its frame. Its side line's rim
/// points follow the `f64` aim `u` (through the cylinder's point of the native search's final
/// face's first vertex, `aim`, else along the penetration normal): when `u` is the reference
/// face's inward normal (to 1e-9; the side lies on the face) they are re-aimed along that normal
/// in `T` (exact, the roll about the axis included); otherwise (an edge against the side) `u`
/// stays fixed in the cylinder frame, so a roll about the axis, which in `f64` re-aims `u`
/// (the support line stays put), here moves the line by `r` per radian.
pub fn multi_contact<T: Scalar>(
    m: &Model,
    pose: [(V3, Matrix3<f64>); 2],
    tpose: [(Vector3<T>, Matrix3<T>); 2],
    c: &ConvexContact,
    feat: Option<[[i32; 3]; 2]>,
    aim: Option<[V3; 2]>,
    s: &mut Sink<T>,
) -> bool {
    // the buffer leaves the sink for the call (the sink is passed on); no allocation
    let mut buf = s.scratch.take_patch();
    let r = multi_contact_in(m, pose, tpose, c, (feat, aim), s, &mut buf);
    s.scratch.put_patch(buf);
    r
}

/// [`multi_contact`] with its working storage.
fn multi_contact_in<T: Scalar>(
    m: &Model,
    pose: [(V3, Matrix3<f64>); 2],
    tpose: [(Vector3<T>, Matrix3<T>); 2],
    c: &ConvexContact,
    (feat, aim): (Option<[[i32; 3]; 2]>, Option<[V3; 2]>),
    s: &mut Sink<T>,
    buf: &mut PatchBuf,
) -> bool {
    let exact = !is_f64::<T>();
    let margin = f64of(s.margin);
    let Some(tr) = traced_patch(m, s.geom, pose, c, feat, aim, margin, exact, buf) else {
        return false;
    };
    let p = &buf.patch;
    let nk = p.n;
    let (idx, cnt) = if nk > 4 {
        (polygon_quad(&p.pos[..nk]), 4)
    } else if nk <= 2 {
        // two points left after the margin test are both kept, even when they coincide (an
        // edge clipped at one side plane gives the cut twice, once from each end; measured:
        // MuJoCo 4.0.0 makes two identical contacts when the other end lies beyond the margin)
        ([0, 1, 2, 3], nk)
    } else {
        let mut idx = [0usize; 4];
        let mut cnt = 0;
        for k in 0..nk {
            let dup = idx[..cnt]
                .iter()
                .any(|&j| (p.pos[j] - p.pos[k]).iter().all(|x| x.abs() < 1e-15));
            if !dup {
                idx[cnt] = k;
                cnt += 1;
            }
        }
        (idx, cnt)
    };
    if exact {
        // the same points in T from their origins (features fixed), values kept
        let poly = |i: usize| Poly {
            kind: tr.kind[i],
            pos: tpose[i].0,
            mat: tpose[i].1,
        };
        let (ta, tb) = (poly(0), poly(1));
        let plan = tr.plan;
        let mut ts = [Vector3::<T>::zeros(); MAXP];
        let mut tc = [Vector3::<T>::zeros(); MAXP];
        let (nref, ncon_t, _, _, lift, sn) = setup(&plan, [&ta, &tb], &mut ts, &mut tc);
        let fixed = [&ta, &tb][1 - plan.rside];
        let (pos0, mat0) = tr.pose[1 - plan.rside];
        let on_b = plan.rside == 0;
        // a cylinder's side line aimed along the reference face normal in f64 (to rounding: the
        // side lies on the face) is re-aimed along it in T, following the roll about its axis
        if let (Kind::Cylinder(r, h, u), Subj::Edge(v0, v1)) = (fixed.kind, plan.subj) {
            let rf = Poly::<f64> {
                kind: tr.kind[plan.rside],
                pos: tr.pose[plan.rside].0,
                mat: tr.pose[plan.rside].1,
            };
            let l0 = mat0.transpose() * -rf.normal(plan.rface);
            let rho0 = l0.x.hypot(l0.y);
            let along = (l0.x / rho0 - u[0]).abs().max((l0.y / rho0 - u[1]).abs()) < 1e-9;
            if v0 >= CYL_U && v1 >= CYL_U && along {
                let l = fixed.mat.transpose() * -nref;
                let rho = (l.x * l.x + l.y * l.y).sqrt();
                let r = sc::<T>(r);
                for (x, v) in ts.iter_mut().zip([v0, v1]) {
                    let z = sc::<T>(if v == CYL_U { -h } else { h });
                    *x = fixed.pos + fixed.mat * Vector3::new(l.x * r / rho, l.y * r / rho, z);
                }
            }
        }
        for &k in &idx[..cnt] {
            // a point eval_lab cannot place (not reached) moves with the subject geom
            let x =
                eval_lab(buf.lab[0][k], &ts, tr.ns, &tc, tr.nc, &nref, sn).unwrap_or_else(|| {
                    let l = mat0.transpose() * (buf.clipped[k] - pos0);
                    fixed.pos + fixed.mat * tv::<T>(&l)
                });
            let q = x - nref * (x - tc[0]).dot(&nref);
            let x = x + lift;
            let (x0, x1) = if on_b { (q, x) } else { (x, q) };
            let d = ncon_t.dot(&(x1 - x0));
            let pos = x0 + ncon_t * (d * sc::<T>(0.5));
            s.add_exact((p.dist[k], &p.pos[k], &p.normal), (d, pos, ncon_t));
        }
        return true;
    }
    let v = |x: V3| Vector3::new(sc::<T>(x.x), sc::<T>(x.y), sc::<T>(x.z));
    for &k in &idx[..cnt] {
        s.add(sc(p.dist[k]), v(p.pos[k]), v(p.normal), None);
    }
    true
}

#[cfg(test)]
mod tests;
