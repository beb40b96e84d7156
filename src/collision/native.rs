//! MuJoCo 4.0.0's native convex collider (`nativeccd`) as observed, written clean-room from the
//! published algorithms: GJK as a distance query with the signed-volume subalgorithm of
//! Montanari, Petrinic and Barbieri (2017, ACM TOG 36(3)), then the expanding polytope algorithm
//! (van den Bergen 2001) with MuJoCo's stopping rules (docs/collision.md, "Convex pairs"). Used
//! for height-field prisms against a geom (in the height field's frame, Minkowski difference
//! prism − geom; tools/reference/probe_hfield_ccd.py), for convex pairs with a smooth shape
//! and for pairs of two polytopes (box, mesh) (world frame, geom 0 − geom 1; with a margin both
//! grown by half of it, [`Geom::Inflated`];
//! tools/zoo/gen_regressions.py probes the iterates). A mesh with its hull graph takes its
//! support point by hill climbing ([`hill_climb`]).
//!
//! The observed rules (each checked against MuJoCo 4.0.0's iterates as `ccd_iterations` runs
//! from 1 up): GJK starts from `x = c₀ − c₁` (the geoms' centres), takes the support point `s`
//! of the Minkowski difference in `−x`, stops when `x·(x − s) < tol²/2` (`tol` =
//! `ccd_tolerance`), else adds `s` to the simplex and moves `x` to the simplex's point closest to
//! the origin; a tetrahedron around the origin hands over to EPA. EPA expands the closest face
//! of the polytope towards its support point until the gap between the support's distance and
//! the face's is below `tol`; each runs at most `ccd_iterations` iterations and returns its
//! current iterate when the budget ends.

use crate::collision::scratch::prism::{Face, Poly, Pt, NFACE, NVERT, PT0};
use crate::collision::shape::{ConvexContact, Shape};
use crate::collision::simplex::count_support;
use crate::model::{HullEdge, HullNode, HullWalk};
use nalgebra::{Matrix3, Vector3};
use std::cell::Cell;

type V3 = Vector3<f64>;

/// Visibility threshold of a face from a new support point.
const VISIBLE: f64 = 1e-15;

/// A convex shape posed in the frame of the search (`mat`: shape → that frame).
#[derive(Clone)]
pub enum Geom<'a> {
    /// A height-field prism (bottom vertices 0–2, top 3–5).
    Prism([V3; 6]),
    /// A point (a sphere's centre: the sphere without its radius).
    Point {
        pos: V3,
    },
    /// A segment along the local z axis, half-length `h` (a capsule without its radius).
    Segment {
        pos: V3,
        mat: Matrix3<f64>,
        h: f64,
    },
    Sphere {
        pos: V3,
        r: f64,
    },
    Capsule {
        pos: V3,
        mat: Matrix3<f64>,
        r: f64,
        h: f64,
    },
    Ellipsoid {
        pos: V3,
        mat: Matrix3<f64>,
        size: [f64; 3],
    },
    Box {
        pos: V3,
        mat: Matrix3<f64>,
        size: [f64; 3],
    },
    /// A mesh's hull. With its hull graph (MuJoCo's `mesh_graph` layout) the support point is
    /// found by hill climbing from [`HullWalk::start`]: the previous support vertex (`warm`,
    /// graph-local; [`NO_WARM`] at the start of a search) or the direction's extremum, as
    /// MuJoCo 4.0.0 does; without, by a scan of every vertex.
    Mesh {
        pos: V3,
        mat: Matrix3<f64>,
        vert: &'a [[f64; 3]],
        graph: Option<&'a HullWalk>,
        warm: Cell<usize>,
    },
    Cylinder {
        pos: V3,
        mat: Matrix3<f64>,
        size: [f64; 2],
    },
    /// A shape grown by `r` in every direction (its support point moved by `r` along the
    /// direction): a geom with a contact margin, grown by half of it.
    Inflated {
        g: &'a Geom<'a>,
        r: f64,
    },
}

/// `a·b` summed x, y, z left to right (rounding decides support ties).
#[inline]
fn dot(a: &V3, b: &V3) -> f64 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

/// `matᵀ d`, component-wise.
#[inline]
fn to_local(mat: &Matrix3<f64>, d: &V3) -> V3 {
    V3::new(
        mat[(0, 0)] * d.x + mat[(1, 0)] * d.y + mat[(2, 0)] * d.z,
        mat[(0, 1)] * d.x + mat[(1, 1)] * d.y + mat[(2, 1)] * d.z,
        mat[(0, 2)] * d.x + mat[(1, 2)] * d.y + mat[(2, 2)] * d.z,
    )
}

/// `mat x + pos`, component-wise.
#[inline]
fn to_frame(mat: &Matrix3<f64>, pos: &V3, x: &V3) -> V3 {
    V3::new(
        mat[(0, 0)] * x.x + mat[(0, 1)] * x.y + mat[(0, 2)] * x.z + pos.x,
        mat[(1, 0)] * x.x + mat[(1, 1)] * x.y + mat[(1, 2)] * x.z + pos.y,
        mat[(2, 0)] * x.x + mat[(2, 1)] * x.y + mat[(2, 2)] * x.z + pos.z,
    )
}

impl Geom<'_> {
    /// The geom-local vertex `i` (box corner: bits x = 1, y = 2, z = 4 set for +size; mesh
    /// vertex); `None` for cylinders and indices out of range.
    pub fn vertex(&self, i: i32) -> Option<V3> {
        if let Geom::Inflated { g, .. } = self {
            return g.vertex(i);
        }
        let i = usize::try_from(i).ok()?;
        match self {
            Geom::Box { size, .. } => {
                if i >= 8 {
                    return None;
                }
                let c = |k: usize| if i & (1 << k) != 0 { size[k] } else { -size[k] };
                Some(V3::new(c(0), c(1), c(2)))
            }
            Geom::Mesh { vert, .. } => vert.get(i).map(|v| V3::new(v[0], v[1], v[2])),
            _ => None,
        }
    }

    /// The shape's centre (GJK's first iterate is the difference of the two centres; a
    /// prism's is its vertex mean).
    pub fn center(&self) -> V3 {
        match self {
            Geom::Prism(p) => {
                let mut c = V3::zeros();
                for q in p {
                    c += q;
                }
                c / 6.0
            }
            Geom::Point { pos }
            | Geom::Sphere { pos, .. }
            | Geom::Segment { pos, .. }
            | Geom::Capsule { pos, .. }
            | Geom::Ellipsoid { pos, .. }
            | Geom::Box { pos, .. }
            | Geom::Mesh { pos, .. }
            | Geom::Cylinder { pos, .. } => *pos,
            Geom::Inflated { g, .. } => g.center(),
        }
    }

    /// Support point in direction `d` (height-field frame) and its vertex index.
    fn support(&self, d: &V3) -> (V3, i32) {
        match self {
            Geom::Prism(p) => (prism_support(p, d), -1),
            Geom::Inflated { g, r } => {
                let (p, idx) = g.support(d);
                let n = dot(d, d).sqrt();
                let u = if n > 0.0 { d / n } else { V3::x() };
                (p + u * *r, idx)
            }
            Geom::Point { pos } => (*pos, -1),
            Geom::Sphere { pos, r } => {
                let n = dot(d, d).sqrt();
                let u = if n > 0.0 { d / n } else { V3::x() };
                (pos + u * *r, -1)
            }
            Geom::Segment { pos, mat, h } => {
                let l = to_local(mat, d);
                let z = if l.z >= 0.0 { *h } else { -*h };
                (to_frame(mat, pos, &V3::new(0.0, 0.0, z)), -1)
            }
            Geom::Capsule { pos, mat, r, h } => {
                let l = to_local(mat, d);
                let n = dot(&l, &l).sqrt();
                let u = if n > 0.0 { l / n } else { V3::x() };
                let z = if l.z >= 0.0 { *h } else { -*h };
                (to_frame(mat, pos, &(u * *r + V3::new(0.0, 0.0, z))), -1)
            }
            Geom::Ellipsoid { pos, mat, size } => {
                let l = to_local(mat, d);
                let sl = V3::new(size[0] * l.x, size[1] * l.y, size[2] * l.z);
                let n = dot(&sl, &sl).sqrt();
                let loc = if n > 0.0 {
                    V3::new(size[0] * sl.x / n, size[1] * sl.y / n, size[2] * sl.z / n)
                } else {
                    V3::new(size[0], 0.0, 0.0)
                };
                (to_frame(mat, pos, &loc), -1)
            }
            Geom::Box { pos, mat, size } => {
                let l = to_local(mat, d);
                let mut idx = 0;
                let mut c = V3::zeros();
                for k in 0..3 {
                    if l[k] >= 0.0 {
                        c[k] = size[k];
                        idx |= 1 << k;
                    } else {
                        c[k] = -size[k];
                    }
                }
                (to_frame(mat, pos, &c), idx)
            }
            Geom::Mesh {
                pos,
                mat,
                vert,
                graph,
                warm,
            } => {
                let l = to_local(mat, d);
                let idx = match graph.and_then(|g| {
                    warm.set(g.start(&l, warm.get()));
                    hill_climb(g, &l, warm)
                }) {
                    Some(i) => i,
                    None => {
                        let mut best = -(f32::MAX as f64);
                        let mut idx = 0usize;
                        for (i, v) in vert.iter().enumerate() {
                            let p = l.x * v[0] + l.y * v[1] + l.z * v[2];
                            if p > best {
                                best = p;
                                idx = i;
                            }
                        }
                        idx
                    }
                };
                let v = vert.get(idx).copied().unwrap_or([0.0; 3]);
                (
                    to_frame(mat, pos, &V3::new(v[0], v[1], v[2])),
                    i32::try_from(idx).unwrap_or(-1),
                )
            }
            Geom::Cylinder { pos, mat, size } => {
                let l = to_local(mat, d);
                let n2 = l.x * l.x + l.y * l.y;
                let (x, y) = if n2 > 1e-30 {
                    // (l/|l|)·r in this order: with MuJoCo's kinematics to the bit, MuJoCo's
                    // test model's height-field cylinder at keyframe 0 and rollout step 0 takes
                    // MuJoCo's EPA iterate at every `ccd_iterations` from 5 to 35 but one (at
                    // step 0 a prism-vertex near-tie, 1 ulp, flips with r·l/|l|)
                    let n = n2.sqrt();
                    (l.x / n * size[0], l.y / n * size[0])
                } else {
                    (0.0, 0.0)
                };
                let z = if l.z >= 0.0 { size[1] } else { -size[1] };
                (to_frame(mat, pos, &V3::new(x, y, z)), -1)
            }
        }
    }
}

/// Whether `g` is a hull graph of a mesh with `nvert` vertices in MuJoCo's `mesh_graph` layout
/// (`[numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert], edge_localid[numvert +
/// 3 numface], face_globalid[3 numface]]`) that [`HullWalk::new`] can lay out without checks: at
/// least one vertex, every `vert_globalid` a vertex of the mesh, every `vert_edgeadr` inside
/// `edge_localid` with a -1 ending its list before the end, and every other entry of
/// `edge_localid` a graph vertex. `Mesh::set_polygons` checks every graph a model is loaded or
/// built with and clears one that fails (and with it the [`HullWalk`] the climb walks).
pub(crate) fn hull_graph_valid(g: &[i32], nvert: usize) -> bool {
    let count = |k: usize| g.get(k).and_then(|&x| usize::try_from(x).ok());
    let (Some(nv), Some(nf)) = (count(0), count(1)) else {
        return false;
    };
    // the vertex and edge lists: 2 + 3 numvert + 3 numface entries (the face list is not walked)
    let need = nf
        .checked_add(nv)
        .and_then(|x| x.checked_mul(3))
        .and_then(|x| x.checked_add(2));
    if nv == 0 || need.is_none_or(|n| g.len() < n) {
        return false;
    }
    let (adr, rest) = g[2..].split_at(nv);
    let (gid, rest) = rest.split_at(nv);
    let local = &rest[..nv + 3 * nf];
    let in_range = |x: i32, n: usize| usize::try_from(x).is_ok_and(|x| x < n);
    gid.iter().all(|&k| in_range(k, nvert))
        && local.iter().all(|&j| j == -1 || in_range(j, nv))
        && adr.iter().all(|&a| {
            usize::try_from(a)
                .ok()
                .and_then(|a| local.get(a..))
                .is_some_and(|list| list.contains(&-1))
        })
}

impl HullWalk {
    /// The hull graph `g` of the mesh vertices `vert` laid out for the hill climb; empty when
    /// `g` is not a valid hull graph of `vert` (the checks of `Mesh::set_polygons`) or has more
    /// entries than `u32` indexes.
    pub fn new(g: &[i32], vert: &[[f64; 3]], extrema: &[i32; 27]) -> Self {
        if !hull_graph_valid(g, vert.len()) {
            return Self::default();
        }
        // hull_graph_valid: numvert > 0 and every list below is in range
        let nv = g[0] as usize;
        let (adr, rest) = g[2..].split_at(nv);
        let (gid, local) = rest.split_at(nv);
        let mut node = Vec::with_capacity(nv);
        let mut edge = Vec::new();
        for k in 0..nv {
            let start = edge.len();
            for &j in &local[adr[k] as usize..] {
                if j < 0 {
                    break;
                }
                edge.push(HullEdge {
                    p: vert[gid[j as usize] as usize],
                    k: j as u32,
                });
            }
            let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(edge.len())) else {
                return Self::default();
            };
            node.push(HullNode {
                p: vert[gid[k] as usize],
                start,
                end,
                gid: gid[k] as u32,
            });
        }
        // (graph-local vertices: `extrema` of this graph; kept inside it whatever they hold)
        let extrema = extrema.map(|e| u32::try_from(e).unwrap_or(0).min(nv as u32 - 1));
        HullWalk {
            node,
            edge,
            extrema,
        }
    }

    /// The graph vertex where MuJoCo 4.0.0's GJK and EPA start the hill climb of a support point
    /// along the local direction `l` (`mjc_hillclimbSupport`): the extremum of `l`'s octant,
    /// `extrema[`[`extremum_index`]`(l)]`, unless the previous support vertex of the same search
    /// (`warm`; [`NO_WARM`] before the first) projects at least as far along `l`, the two
    /// projections summed as the climb's. Read from MuJoCo 4.0.0's library (MPR's climb does not
    /// use the table, `crate::collision::mpr`) and checked on its contacts
    /// (tests/engine/hull_start_oracle.rs): on Menagerie's Robotiq gripper a climb from the
    /// previous vertex alone (vertex 0 at a search's start) is 2.6e-9 off MuJoCo's contact at
    /// four states of its rollout, this start 3.4e-14; the climbs there walk 2.7 times fewer
    /// hull edges (MuJoCo's count: 180,668 in 200 steps, against 482,471). An empty graph
    /// gives `warm`.
    #[inline]
    pub(crate) fn start(&self, l: &V3, warm: usize) -> usize {
        let nv = self.node.len();
        if nv == 0 {
            return warm;
        }
        let t = self.extrema[extremum_index(&[l.x, l.y, l.z])] as usize;
        if warm >= nv {
            return t;
        }
        let proj = |p: &[f64; 3]| l.x * p[0] + l.y * p[1] + l.z * p[2];
        if proj(&self.node[t].p) > proj(&self.node[warm].p) {
            t
        } else {
            warm
        }
    }

    /// Whether there is no graph to climb (the support search scans the vertices instead).
    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }
}

/// [`Geom::Mesh`]'s `warm` before the first support point of a search: none.
pub(crate) const NO_WARM: usize = usize::MAX;

/// The entry of a mesh's `extrema` (`mesh_extrema`) at which MuJoCo 4.0.0 starts the hull-graph
/// search of a support point along the direction `l` (mesh frame): each component counts as ±1
/// beyond ±0.4, else 0 (bisected on MuJoCo: a component of 0.399903 counts as 0, one of
/// 0.400031 as 1; tools/zoo/gen_regressions.py `plane_mesh_start`).
pub fn extremum_index(l: &[f64; 3]) -> usize {
    let q = |x: f64| {
        if x > 0.4 {
            2
        } else if x < -0.4 {
            0
        } else {
            1
        }
    };
    9 * q(l[0]) + 3 * q(l[1]) + q(l[2])
}

/// The support vertex of a mesh hull in the local direction `l` by steepest ascent on its hull
/// graph (MuJoCo's `mesh_graph`, laid out as a [`HullWalk`]; each vertex's neighbours in
/// `edge_localid`'s order, the first of equal projections kept) from the graph vertex `warm`,
/// which is then set to the result; the mesh vertex index, `None` for an empty graph. Measured
/// on MuJoCo 4.0.0 (a box corner on the 76-corner flat hull polygon of Menagerie's Robotiq
/// finger): its penetration depth is reproduced to the last bit with this warm-started steepest
/// ascent, not with a scan of all vertices, a first-improvement ascent, or an ascent from vertex
/// 0 each time; on a polygon flat to float32 round-off the ascent may stop at another vertex
/// than the scan.
#[inline]
pub(crate) fn hill_climb(hull: &HullWalk, l: &V3, warm: &Cell<usize>) -> Option<usize> {
    let nv = hull.node.len();
    if nv == 0 {
        return None;
    }
    let proj = |p: &[f64; 3]| l.x * p[0] + l.y * p[1] + l.z * p[2];
    let mut i = warm.get().min(nv - 1);
    let mut best = proj(&hull.node[i].p);
    // each step strictly increases the projection, so the walk visits no vertex twice
    loop {
        let cur = i;
        let n = &hull.node[cur];
        for e in &hull.edge[n.start as usize..n.end as usize] {
            let x = proj(&e.p);
            if x > best {
                best = x;
                i = e.k as usize;
            }
        }
        if i == cur {
            warm.set(i);
            return Some(n.gid as usize);
        }
    }
}

/// The prism's support in `d`: bottom (0–2) if `d.z < 0`, else top (3–5); first maximum.
fn prism_support(prism: &[V3; 6], d: &V3) -> V3 {
    let k0 = if d.z < 0.0 { 0 } else { 3 };
    let mut best = k0;
    let mut bd = dot(&prism[k0], d);
    for k in k0 + 1..k0 + 3 {
        let p = dot(&prism[k], d);
        if p > bd {
            bd = p;
            best = k;
        }
    }
    prism[best]
}

/// Support of a − b in `d` with both vertex indices.
fn support(prism: &Geom, geom: &Geom, d: &V3) -> Pt {
    count_support();
    let (a, ia) = prism.support(d);
    let (b, idx) = geom.support(&-d);
    Pt {
        w: a - b,
        a,
        b,
        idx,
        ia,
    }
}

impl Poly {
    /// Remove face `f` from the active list (the last entry moves into its slot) and mark
    /// it deleted.
    fn delete(&mut self, f: usize) {
        self.faces[f].deleted = true;
        let s = self.faces[f].slot;
        if s != usize::MAX {
            self.nlist -= 1;
            let last = self.list[self.nlist];
            self.list[s] = last;
            self.faces[last].slot = s;
            self.faces[f].slot = usize::MAX;
        }
    }

    /// Adds a face with its projection; `None` when the face's plane is degenerate.
    fn add_face(&mut self, verts: [usize; 3], adj: [usize; 3]) -> Option<usize> {
        let [s1, s2, s3] = [verts[2], verts[1], verts[0]].map(|i| self.pts[i].w);
        let v = project(&s1, &s2, &s3).unwrap_or_else(V3::zeros);
        let f = self.nface;
        self.faces[f] = Face {
            verts,
            adj,
            v,
            dist2: dot(&v, &v),
            slot: usize::MAX,
            deleted: false,
        };
        self.nface += 1;
        Some(f)
    }

    fn push_active(&mut self, f: usize) {
        self.faces[f].slot = self.nlist;
        self.list[self.nlist] = f;
        self.nlist += 1;
    }

    /// The edge of face `g` that starts at polytope vertex `start`.
    fn edge_from(&self, g: usize, start: usize) -> usize {
        let v = &self.faces[g].verts;
        if v[0] == start {
            0
        } else if v[1] == start {
            1
        } else {
            2
        }
    }

    /// Depth-first horizon search from face `g` entered through its edge `e`, seen from
    /// the new point `w`.
    fn visit(&mut self, g: usize, e: usize, w: &V3) {
        let fg = self.faces[g];
        if dot(&fg.v, w) - fg.dist2 > VISIBLE {
            self.delete(g);
            for i in [(e + 1) % 3, (e + 2) % 3] {
                let h = self.faces[g].adj[i];
                if !self.faces[h].deleted {
                    let eh = self.edge_from(h, fg.verts[(i + 1) % 3]);
                    self.visit(h, eh, w);
                }
            }
        } else if self.nhorizon < NFACE {
            self.horizon[self.nhorizon] = (g, e);
            self.nhorizon += 1;
        }
    }
}

/// The projection of the origin on the plane of a triangle, `n (n·q)/(n·n)`, trying three
/// normals in turn; `None` if the triangle is degenerate.
fn project(s1: &V3, s2: &V3, s3: &V3) -> Option<V3> {
    let sc = |n: V3, nq: f64, nn: f64| n * (nq / nn);
    let on = |n: V3, q: &V3| {
        let nq = dot(&n, q);
        let nn = dot(&n, &n);
        (nq, nn, n)
    };
    let (nq, nn, n) = on((s3 - s2).cross(&(s2 - s1)), s2);
    if nq != 0.0 && nn > 1e-15 {
        return Some(sc(n, nq, nn));
    }
    let (nq, nn, n) = on((s2 - s1).cross(&(s3 - s1)), s1);
    if nq != 0.0 && nn > 1e-15 {
        return Some(sc(n, nq, nn));
    }
    let (nq, nn, n) = on((s3 - s1).cross(&(s3 - s2)), s3);
    if nn == 0.0 {
        return None;
    }
    Some(sc(n, nq, nn))
}

/// Both strictly positive or both strictly negative.
#[inline]
fn same_sign(a: f64, b: f64) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

/// Signed-volume weights of the segment's point closest to the origin (S1D).
fn s1d(s1: &V3, s2: &V3) -> [f64; 2] {
    let t = s2 - s1;
    let tt = dot(&t, &t);
    // the origin's projection on the line, from s1 (of the orders tried, the one that
    // matches MuJoCo 4.0.0's cylinder contacts most closely)
    let p = if tt > 0.0 {
        s1 - t * (dot(s1, &t) / tt)
    } else {
        *s2
    };
    let mut ax = 0;
    let mut big = -1.0;
    for i in 0..3 {
        let d = (s1[i] - s2[i]).abs();
        if d >= big {
            big = d;
            ax = i;
        }
    }
    let mu = s1[ax] - s2[ax];
    let c1 = p[ax] - s2[ax];
    let c2 = s1[ax] - p[ax];
    if same_sign(mu, c1) && same_sign(mu, c2) {
        [c1 / mu, c2 / mu]
    } else {
        [0.0, 1.0]
    }
}

/// 2-D signed area of (a, b, c) in axes (u, v).
#[inline]
fn area(a: &V3, b: &V3, c: &V3, u: usize, v: usize) -> f64 {
    (b[u] - a[u]) * (c[v] - a[v]) - (b[v] - a[v]) * (c[u] - a[u])
}

/// Barycentric weights of `p` (a point of the triangle's plane) from the axis-dropped
/// projection of largest |minor|; also the minor and the three signed areas.
fn plane_weights(p: &V3, s1: &V3, s2: &V3, s3: &V3) -> (f64, [f64; 3]) {
    let mut best = (0.0f64, 1usize, 2usize);
    for (u, v) in [(1usize, 2usize), (0, 2), (0, 1)] {
        let m = area(s1, s2, s3, u, v);
        if m.abs() > best.0.abs() {
            best = (m, u, v);
        }
    }
    let (m, u, v) = best;
    (
        m,
        [
            area(p, s2, s3, u, v),
            area(p, s3, s1, u, v),
            area(p, s1, s2, u, v),
        ],
    )
}

#[inline]
fn norm2_of(w: &[f64], s: &[&V3]) -> f64 {
    let mut x = V3::zeros();
    for (l, p) in w.iter().zip(s) {
        x += *p * *l;
    }
    dot(&x, &x)
}

/// Signed-volume weights for a triangle (S2D).
fn s2d(s1: &V3, s2: &V3, s3: &V3) -> [f64; 3] {
    let Some(p) = project(s1, s2, s3) else {
        let [a, b] = s1d(s1, s2);
        return [a, b, 0.0];
    };
    let (m, c) = plane_weights(&p, s1, s2, s3);
    if c.iter().all(|&ck| same_sign(m, ck)) {
        return [c[0] / m, c[1] / m, c[2] / m];
    }
    let s = [s1, s2, s3];
    let mut out = [0.0; 3];
    let mut best = f64::INFINITY;
    for k in 0..3 {
        if same_sign(m, c[k]) {
            continue;
        }
        // the edge opposite vertex k, in simplex order
        let (i, j) = match k {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        let l = s1d(s[i], s[j]);
        let d = norm2_of(&l, &[s[i], s[j]]);
        if d < best || best == f64::INFINITY {
            best = d;
            out = [0.0; 3];
            out[i] = l[0];
            out[j] = l[1];
        }
    }
    out
}

/// `a·(b×c)`.
#[inline]
fn det3(a: &V3, b: &V3, c: &V3) -> f64 {
    dot(a, &b.cross(c))
}

/// Signed-volume weights for a tetrahedron (S3D).
fn s3d(s: [&V3; 4]) -> [f64; 4] {
    let c = [
        -det3(s[1], s[2], s[3]),
        det3(s[0], s[2], s[3]),
        -det3(s[0], s[1], s[3]),
        det3(s[0], s[1], s[2]),
    ];
    let m = c[0] + c[1] + c[2] + c[3];
    if c.iter().all(|&ck| same_sign(m, ck)) {
        return c.map(|ck| ck / m);
    }
    let mut out = [0.0; 4];
    let mut best = f64::INFINITY;
    for k in 0..4 {
        if same_sign(m, c[k]) {
            continue;
        }
        let mut ids = [0usize; 3];
        let mut n = 0;
        for i in 0..4 {
            if i != k {
                ids[n] = i;
                n += 1;
            }
        }
        let l = s2d(s[ids[0]], s[ids[1]], s[ids[2]]);
        let d = norm2_of(&l, &[s[ids[0]], s[ids[1]], s[ids[2]]]);
        if d < best || best == f64::INFINITY {
            best = d;
            out = [0.0; 4];
            for (q, &i) in ids.iter().enumerate() {
                out[i] = l[q];
            }
        }
    }
    out
}

/// Signed-volume weights (Montanari et al. 2017, S1D/S2D/S3D) of the point of the simplex
/// `w` (1 to 4 points, the newest last) closest to the origin, as GJK uses them: correct
/// when the closest point's support includes the newest point. `None` for other sizes.
#[cfg(test)]
pub fn simplex_weights(w: &[V3]) -> Option<[f64; 4]> {
    Some(match w {
        [_] => [1.0, 0.0, 0.0, 0.0],
        [a, b] => {
            let [x, y] = s1d(a, b);
            [x, y, 0.0, 0.0]
        }
        [a, b, c] => {
            let [x, y, z] = s2d(a, b, c);
            [x, y, z, 0.0]
        }
        [a, b, c, d] => s3d([a, b, c, d]),
        _ => return None,
    })
}

/// Signed-volume weights of the simplex's point closest to the origin.
fn weights(s: &[Pt]) -> [f64; 4] {
    match s.len() {
        1 => [1.0, 0.0, 0.0, 0.0],
        2 => {
            let [a, b] = s1d(&s[0].w, &s[1].w);
            [a, b, 0.0, 0.0]
        }
        3 => {
            let [a, b, c] = s2d(&s[0].w, &s[1].w, &s[2].w);
            [a, b, c, 0.0]
        }
        _ => s3d([&s[0].w, &s[1].w, &s[2].w, &s[3].w]),
    }
}

/// A penetration found by EPA.
pub struct Hit {
    /// Penetration depth (> 0).
    pub depth: f64,
    /// Witness point on the prism (height-field frame).
    pub pa: V3,
    /// Witness point on the geom (height-field frame).
    pub pb: V3,
    /// The final EPA face: (prism point, geom vertex index) per vertex.
    pub face: [(V3, i32); 3],
    /// The final EPA face's vertex indices on a (box corner, mesh vertex; else -1).
    pub ia: [i32; 3],
    /// The origin's projection on the final face (depth times the normal a → b).
    pub v: V3,
    /// The support points on a and on b of the final face's first vertex (in the face's own
    /// order, the newest support point for a face the search added): a cylinder's side line
    /// passes through its point (measured on MuJoCo 4.0.0, [`contact_aimed`]).
    pub first: [V3; 2],
}

/// MuJoCo 4.0.0's native collision of a prism (bottom vertices 0–2, top 3–5) with a geom
/// (`center`: its position): GJK from the prism's vertex mean, EPA if the origin is inside
/// the GJK tetrahedron. `discrete` (box or mesh): GJK's separation test and EPA's
/// repeated-vertex stop.
pub fn penetration(
    pt: &mut Poly,
    prism: &[V3; 6],
    geom: &Geom,
    center: V3,
    kmax: usize,
    tol: f64,
    discrete: bool,
) -> Option<Hit> {
    run(pt, prism, geom, center, kmax, tol, discrete, discrete)
}

/// [`penetration`] without the repeated-vertex stop: EPA to the tolerance `tol` (the
/// minimal penetration depth; for tests of the EPA itself).
#[cfg(test)]
pub fn penetration_converged(
    pt: &mut Poly,
    prism: &[V3; 6],
    geom: &Geom,
    center: V3,
    kmax: usize,
    tol: f64,
) -> Option<Hit> {
    run(pt, prism, geom, center, kmax, tol, false, false)
}

/// [`penetration`] with the repeated-vertex stop chosen separately (`repeat_stop`).
#[allow(clippy::too_many_arguments)]
fn run(
    pt: &mut Poly,
    prism: &[V3; 6],
    geom: &Geom,
    center: V3,
    kmax: usize,
    tol: f64,
    discrete: bool,
    repeat_stop: bool,
) -> Option<Hit> {
    let a = Geom::Prism(*prism);
    let x0 = a.center() - center;
    match gjk(&a, geom, x0, kmax, tol, discrete, f64::INFINITY) {
        Gjk::Inside(tet) => epa(pt, &a, geom, tet, kmax, tol, discrete, repeat_stop),
        _ => None,
    }
}

/// MuJoCo 4.0.0's native search on two polytopes (boxes, meshes) without margin: GJK from
/// `a.center() − b.center()` with the signed-volume subalgorithm and the separation test, EPA
/// with the repeated-vertex stop (a support point whose pair of vertex indices is already a
/// polytope vertex ends it) and the gap test at 1e-15; its last face is MuJoCo's contact and
/// holds the touching features. `None`: separated (or GJK's budget ran out); `Some(None)`: EPA
/// broke down.
pub fn polytopes(pt: &mut Poly, a: &Geom, b: &Geom, kmax: usize, tol: f64) -> Option<Option<Hit>> {
    gjk_epa(pt, a, b, kmax, tol, true)
}

/// GJK from `a.center() − b.center()`, then EPA from its tetrahedron; `discrete`: GJK's
/// separation test and EPA's repeated-vertex stop and 1e-15 gap (else the `tol²/2` stop and the
/// gap `tol`). `None`: apart (or GJK's budget ran out); `Some(None)`: EPA broke down.
fn gjk_epa(
    pt: &mut Poly,
    a: &Geom,
    b: &Geom,
    kmax: usize,
    tol: f64,
    discrete: bool,
) -> Option<Option<Hit>> {
    let x0 = a.center() - b.center();
    match gjk(a, b, x0, kmax, tol, discrete, f64::INFINITY) {
        Gjk::Inside(tet) => Some(epa(pt, a, b, tet, kmax, tol, discrete, discrete)),
        _ => None,
    }
}

/// [`polytopes`] with a contact margin, as MuJoCo 4.0.0 searches such a pair: both shapes grown
/// by half the margin ([`Geom::Inflated`]), GJK with the `tol²/2` stop and EPA to `tol` without
/// the repeated-vertex stop; the last EPA face of the grown shapes (its depth less the margin is
/// the contact's; its vertex indices are the polytopes' own). `None`: the grown shapes are apart
/// (or GJK's budget ran out); `Some(None)`: EPA broke down.
pub fn polytopes_with_margin(
    pt: &mut Poly,
    a: &Geom,
    b: &Geom,
    kmax: usize,
    tol: f64,
    margin: f64,
) -> Option<Option<Hit>> {
    let h = 0.5 * margin;
    let (ga, gb) = (Geom::Inflated { g: a, r: h }, Geom::Inflated { g: b, r: h });
    gjk_epa(pt, &ga, &gb, kmax, tol, false)
}

/// The outcome of the native search on a pair of shapes ([`query`]).
pub enum Query {
    /// Apart: the distance and the witness points on a and b (GJK's last iterate).
    Apart { dist: f64, pa: V3, pb: V3 },
    /// Proved farther apart than the cutoff.
    Beyond,
    /// Penetrating: EPA's face.
    Hit(Hit),
    /// GJK or EPA broke down (touching within round-off, a degenerate polytope).
    Lost,
}

/// MuJoCo 4.0.0's native search on a pair of non-polytope convex shapes (at least one smooth):
/// GJK from `a.center() − b.center()` with the `tol²/2` stop, EPA when its simplex encloses the
/// origin; `cutoff`: GJK stops once its lower bound `x·s/|x|` exceeds it.
pub fn query(pt: &mut Poly, a: &Geom, b: &Geom, kmax: usize, tol: f64, cutoff: f64) -> Query {
    let x0 = a.center() - b.center();
    if dot(&x0, &x0) >= 1e-30 {
        return query_from(pt, a, b, x0, kmax, tol, cutoff);
    }
    // Concentric shapes: the origin is itself a point of a − b and gives GJK no direction. It
    // starts from another point of a − b, its support along +x, and if the origin falls on
    // the simplex (a − b symmetric about it, as two concentric shapes aligned with x are),
    // once more along a direction off the axes; each search stays within `kmax` iterations
    // (the converged fallback search ran to its own caps: 1,000 copies of a geom on concentric
    // bodies cost minutes per step; fuzz/README.md, "Slow inputs").
    match query_from(pt, a, b, support(a, b, &V3::x()).w, kmax, tol, cutoff) {
        Query::Lost => {
            let d = V3::new(1.0, 2.0, 3.0);
            query_from(pt, a, b, support(a, b, &d).w, kmax, tol, cutoff)
        }
        q => q,
    }
}

/// [`query`] with GJK's first iterate `x0`, a point of `a − b`.
fn query_from(
    pt: &mut Poly,
    a: &Geom,
    b: &Geom,
    x0: V3,
    kmax: usize,
    tol: f64,
    cutoff: f64,
) -> Query {
    match gjk(a, b, x0, kmax, tol, false, cutoff) {
        Gjk::Inside(tet) => match epa(pt, a, b, tet, kmax, tol, false, false) {
            Some(h) => Query::Hit(h),
            None => Query::Lost,
        },
        Gjk::Apart { simplex, n, lam, x } => {
            let (mut pa, mut pb) = (V3::zeros(), V3::zeros());
            for i in 0..n {
                pa += simplex[i].a * lam[i];
                pb += simplex[i].b * lam[i];
            }
            let dist = dot(&x, &x).sqrt();
            if dist > 0.0 {
                Query::Apart { dist, pa, pb }
            } else {
                Query::Lost
            }
        }
        Gjk::Beyond => Query::Beyond,
        Gjk::Lost => Query::Lost,
    }
}

/// A shape as [`contact`] searches it: its core (a sphere's centre, a capsule's axis segment;
/// any other shape itself), the radius around the core, and the whole shape.
#[derive(Clone)]
pub struct Rounded<'a> {
    pub core: Geom<'a>,
    pub r: f64,
    pub full: Geom<'a>,
}

impl<'a> Rounded<'a> {
    /// A geom's shape posed at `pos`, `mat` in the frame of the search.
    #[inline]
    pub fn new(shape: Shape<'a>, pos: V3, mat: Matrix3<f64>) -> Self {
        let full = match shape {
            Shape::Sphere(r) => Geom::Sphere { pos, r },
            Shape::Capsule(r, h) => Geom::Capsule { pos, mat, r, h },
            Shape::Ellipsoid(size) => Geom::Ellipsoid { pos, mat, size },
            Shape::Cylinder(r, h) => Geom::Cylinder {
                pos,
                mat,
                size: [r, h],
            },
            Shape::Box(size) => Geom::Box { pos, mat, size },
            Shape::Mesh(vert) => Geom::Mesh {
                pos,
                mat,
                vert,
                graph: None,
                warm: Cell::new(NO_WARM),
            },
        };
        let (core, r) = match shape {
            Shape::Sphere(r) => (Geom::Point { pos }, r),
            Shape::Capsule(r, h) => (Geom::Segment { pos, mat, h }, r),
            _ => (full.clone(), 0.0),
        };
        Rounded { core, r, full }
    }

    /// A height-field prism (bottom vertices 0–2, top 3–5).
    pub fn prism(p: [V3; 6]) -> Self {
        Rounded {
            core: Geom::Prism(p),
            r: 0.0,
            full: Geom::Prism(p),
        }
    }

    /// The shape grown by `h` in every direction: its core's radius and its whole shape.
    fn grown(&'a self, h: f64) -> Rounded<'a> {
        Rounded {
            core: self.core.clone(),
            r: self.r + h,
            full: Geom::Inflated {
                g: &self.full,
                r: h,
            },
        }
    }
}

/// [`contact`] of a pair with a contact margin, as MuJoCo 4.0.0 searches it: both shapes grown
/// by half the margin ([`Geom::Inflated`]), the grown shapes' distance plus the margin. Apart,
/// GJK gives the exact distance; overlapping grown shapes go to EPA, which stops at `tol` on
/// their rounded edges, so the depth is not the minimal one (measured: two cube meshes 0.0253
/// deep with margin 0.05 get dist −0.02529844781 at `ccd_tolerance` 1e-6, −0.025298906005 at
/// 1e-10; without a margin −0.025298906009 at every tolerance). Contacts up to the margin.
pub fn contact_with_margin(
    pt: &mut Poly,
    a: &Rounded,
    b: &Rounded,
    kmax: usize,
    tol: f64,
    margin: f64,
) -> Option<Option<ConvexContact>> {
    let h = 0.5 * margin;
    let c = contact(pt, &a.grown(h), &b.grown(h), kmax, tol, 0.0)?;
    Some(c.map(|c| ConvexContact {
        dist: c.dist + margin,
        pa: c.pa - c.normal * h,
        pb: c.pb + c.normal * h,
        normal: c.normal,
    }))
}

/// MuJoCo 4.0.0's native search ([`query`]) on a pair with a smooth shape, with
/// `ccd_tolerance` and `ccd_iterations` as MuJoCo uses them, so the contact is MuJoCo's iterate,
/// not the converged one (an ellipsoid on a box edge: normal 1e-3 from the converged one,
/// measured; tools/zoo/gen_regressions.py). A sphere or a capsule is searched as its core with
/// the radius added, as MuJoCo does, while the cores are apart (exact on a polytope: a foot
/// sphere on a height-field prism or a mesh edge gets the exact distance at every tolerance).
/// The contact's normal points from a to b. `None`: the search broke down (the caller's
/// converged search instead); `Some(None)`: no contact within the cutoff.
pub fn contact(
    pt: &mut Poly,
    a: &Rounded,
    b: &Rounded,
    kmax: usize,
    tol: f64,
    cutoff: f64,
) -> Option<Option<ConvexContact>> {
    contact_aimed(pt, a, b, kmax, tol, cutoff).map(|c| c.map(|(c, _)| c))
}

/// What the last EPA face of a penetration tells the multi-contact patch ([`contact_aimed`]).
#[derive(Clone, Copy)]
pub struct Aim {
    /// The support points on a and on b of the face's first vertex ([`Hit::first`]).
    pub first: [V3; 2],
    /// The face's vertex indices on a and on b (box corner, mesh vertex; -1 for other shapes).
    pub idx: [[i32; 3]; 2],
}

/// [`contact`] with, for a penetration found by EPA, the support points on a and on b of its
/// final face's first vertex ([`Hit::first`]) and the face's vertex indices. MuJoCo 4.0.0 draws a cylinder's side line for
/// the multi-contact patch through the cylinder's point of that vertex, not along the normal:
/// measured on MuJoCo's test model's cylinder–box pair at its step-150 state and perturbed
/// poses at `ccd_tolerance` 1e-4 to 1e-8, that line gives MuJoCo's contacts to 2e-16, the line
/// facing the normal is up to 4e-3 off, and those through the face's other vertices up to 1e-3
/// (tools/zoo/gen_regressions.py, `cylinder_box_aim`: 32 poses).
pub fn contact_aimed(
    pt: &mut Poly,
    a: &Rounded,
    b: &Rounded,
    kmax: usize,
    tol: f64,
    cutoff: f64,
) -> Option<Option<(ConvexContact, Option<Aim>)>> {
    let (ra, rb) = (a.r, b.r);
    // concentric cores overlap (each holds its centre): the whole shapes at once
    let apart = a.full.center() - b.full.center();
    if (ra > 0.0 || rb > 0.0) && dot(&apart, &apart) >= 1e-30 {
        match query(pt, &a.core, &b.core, kmax, tol, cutoff + ra + rb) {
            Query::Apart { dist, pa, pb } => {
                let n = (pb - pa) / dist;
                let c = ConvexContact {
                    dist: dist - ra - rb,
                    pa: pa + n * ra,
                    pb: pb - n * rb,
                    normal: n,
                };
                return Some(Some((c, None)));
            }
            Query::Beyond => return Some(None),
            // the cores overlap: the whole shapes below
            Query::Hit(_) => {}
            Query::Lost => return None,
        }
    }
    match query(pt, &a.full, &b.full, kmax, tol, cutoff) {
        Query::Apart { dist, pa, pb } => {
            let c = ConvexContact {
                dist,
                pa,
                pb,
                normal: (pb - pa) / dist,
            };
            Some(Some((c, None)))
        }
        Query::Beyond => Some(None),
        Query::Hit(h) if h.depth > 0.0 => {
            let c = ConvexContact {
                dist: -h.depth,
                pa: h.pa,
                pb: h.pb,
                normal: h.v / h.depth,
            };
            let aim = Aim {
                first: h.first,
                idx: [h.ia, h.face.map(|f| f.1)],
            };
            Some(Some((c, Some(aim))))
        }
        Query::Hit(_) | Query::Lost => None,
    }
}

/// GJK's outcome.
enum Gjk {
    /// A tetrahedron enclosing the origin.
    Inside([Pt; 4]),
    /// Stopped apart: the simplex (first `n` points), its weights and its closest point `x`.
    Apart {
        simplex: [Pt; 4],
        n: usize,
        lam: [f64; 4],
        x: V3,
    },
    /// The lower bound proves the distance above the cutoff.
    Beyond,
    /// Separated (discrete test) or broken down.
    Lost,
}

/// GJK as a distance query from the iterate `x` (a point of the Minkowski difference a − b).
fn gjk(a: &Geom, b: &Geom, mut x: V3, kmax: usize, tol: f64, discrete: bool, cutoff: f64) -> Gjk {
    // the stop x·(x − s) < tol²/2, floored at half the machine epsilon (measured with
    // ccd_tolerance 1e-10: MuJoCo stops between gaps 8.0e-17 and 1.7e-16)
    let eps = if discrete {
        0.0
    } else {
        (0.5 * tol * tol).max(0.5 * f64::EPSILON)
    };
    let mut simplex = [PT0; 4];
    let mut lam = [1.0, 0.0, 0.0, 0.0];
    let mut n = 0;
    let apart = |simplex: [Pt; 4], n: usize, lam: [f64; 4], x: V3| {
        if n == 0 {
            Gjk::Lost
        } else {
            Gjk::Apart { simplex, n, lam, x }
        }
    };
    for _ in 0..kmax {
        let xx = dot(&x, &x);
        if xx < 1e-30 {
            return Gjk::Lost;
        }
        let xn = xx.sqrt();
        let d = V3::new(-x.x / xn, -x.y / xn, -x.z / xn);
        let s = support(a, b, &d);
        let xs = dot(&x, &s.w);
        if xs > cutoff * xn {
            return Gjk::Beyond;
        }
        if dot(&x, &(x - s.w)) < eps {
            return apart(simplex, n, lam, x);
        }
        if discrete && xs > 0.0 {
            return Gjk::Lost;
        }
        simplex[n] = s;
        n += 1;
        // the signed-volume weights for smooth and discrete pairs alike: dm_control's dog's
        // capsule on its torso ellipsoid gets MuJoCo's iterate at every `ccd_iterations` from 9
        // to 35 (1e-12), where the exact closest point of the simplex (Voronoi regions) leaves
        // it by 4e-6 once the simplex is flat to round-off (tools/zoo/gen_regressions.py)
        let l = weights(&simplex[..n]);
        let mut kept = 0;
        let mut nx = V3::zeros();
        lam = [0.0; 4];
        for i in 0..n {
            if l[i] != 0.0 {
                nx += simplex[i].w * l[i];
                simplex[kept] = simplex[i];
                lam[kept] = l[i];
                kept += 1;
            }
        }
        n = kept;
        if (0..3).all(|i| (nx[i] - x[i]).abs() < 1e-15) {
            return if discrete {
                Gjk::Lost
            } else {
                apart(simplex, n, lam, nx)
            };
        }
        x = nx;
        if n == 4 {
            return Gjk::Inside(simplex);
        }
    }
    if discrete {
        Gjk::Lost
    } else {
        apart(simplex, n, lam, x)
    }
}

/// EPA from the GJK tetrahedron with MuJoCo's stopping rules.
#[allow(clippy::too_many_arguments)]
fn epa(
    pt: &mut Poly,
    prism: &Geom,
    geom: &Geom,
    tet: [Pt; 4],
    kmax: usize,
    tol: f64,
    discrete: bool,
    repeat_stop: bool,
) -> Option<Hit> {
    pt.npt = 0;
    pt.nface = 0;
    pt.nlist = 0;
    for p in tet {
        pt.pts[pt.npt] = p;
        pt.npt += 1;
    }
    // the origin strictly inside the tetrahedron
    for (f, o) in [
        ([0, 1, 2], 3),
        ([0, 3, 1], 2),
        ([0, 2, 3], 1),
        ([3, 2, 1], 0),
    ] {
        let [a, b, c] = f.map(|i: usize| tet[i].w);
        let n = (b - a).cross(&(c - a));
        let so = dot(&n, &(tet[o].w - a));
        let s0 = -dot(&n, &a);
        if !same_sign(so, s0) {
            return None;
        }
    }
    for (verts, adj) in [
        ([0, 1, 2], [1, 3, 2]),
        ([0, 3, 1], [2, 3, 0]),
        ([0, 2, 3], [0, 3, 1]),
        ([3, 2, 1], [2, 0, 1]),
    ] {
        let f = pt.add_face(verts, adj)?;
        if pt.faces[f].dist2 < 1e-30 {
            return None;
        }
        pt.push_active(f);
    }
    let tolp = if discrete { 1e-15 } else { tol };
    let (mut upper, mut upper2) = (f64::INFINITY, f64::INFINITY);
    let mut result: Option<usize> = None;
    for _ in 0..kmax.min(NVERT - 5) {
        // a. the closest active face
        let mut f = usize::MAX;
        let mut lower2 = f64::INFINITY;
        for &g in &pt.list[..pt.nlist] {
            if f == usize::MAX || pt.faces[g].dist2 < lower2 {
                lower2 = pt.faces[g].dist2;
                f = g;
            }
        }
        if f == usize::MAX || lower2 > upper2 {
            break;
        }
        result = Some(f);
        if lower2 <= 0.0 {
            break;
        }
        // b. the support point beyond the face
        let lower = lower2.sqrt();
        let vf = pt.faces[f].v;
        let w = support(prism, geom, &(vf / lower));
        let iw = pt.npt;
        pt.pts[iw] = w;
        pt.npt += 1;
        let reach = dot(&vf, &w.w) / lower;
        upper = upper.min(reach);
        upper2 = upper * upper;
        // c. converged: this iteration's gap, not the best bound's (MuJoCo's iterates on an
        // ellipsoid go on while an earlier support bound is already within the tolerance)
        if reach - lower < tolp {
            break;
        }
        // d. a repeated box corner or mesh vertex ends the search
        if repeat_stop && pt.pts[..iw].iter().any(|p| p.idx == w.idx && p.ia == w.ia) {
            break;
        }
        // e. the horizon
        pt.nhorizon = 0;
        pt.delete(f);
        let ff = pt.faces[f];
        for k in 0..3 {
            let g = ff.adj[k];
            if k > 0 && pt.faces[g].deleted {
                continue;
            }
            let e = pt.edge_from(g, ff.verts[(k + 1) % 3]);
            pt.visit(g, e, &w.w);
        }
        // f. the new faces
        let ne = pt.nhorizon;
        if ne < 3 {
            return None;
        }
        if pt.nface + ne > NFACE {
            break;
        }
        let first = pt.nface;
        for i in 0..ne {
            let (h, e) = pt.horizon[i];
            let a = pt.faces[h].verts[e];
            let b = pt.faces[h].verts[(e + 1) % 3];
            let nf = first + i;
            pt.faces[h].adj[e] = nf;
            let prev = first + (i + ne - 1) % ne;
            let next = first + (i + 1) % ne;
            let g = pt.add_face([iw, b, a], [prev, h, next])?;
            let d2 = pt.faces[g].dist2;
            if d2 == 0.0 {
                return None;
            }
            if lower2 <= d2 && d2 <= upper2 {
                pt.push_active(g);
            }
        }
        // g. nothing left to expand
        if pt.nlist == 0 {
            break;
        }
    }
    let f = pt.faces[result?];
    let [p1, p2, p3] = f.verts.map(|i| pt.pts[i]);
    let (m, c) = plane_weights(&f.v, &p1.w, &p2.w, &p3.w);
    if m == 0.0 {
        return None;
    }
    let l = c.map(|ck| ck / m);
    let pa = p1.a * l[0] + p2.a * l[1] + p3.a * l[2];
    let pb = p1.b * l[0] + p2.b * l[1] + p3.b * l[2];
    Some(Hit {
        depth: f.dist2.sqrt(),
        pa,
        pb,
        face: [(p1.a, p1.idx), (p2.a, p2.idx), (p3.a, p3.idx)],
        ia: [p1.ia, p2.ia, p3.ia],
        v: f.v,
        first: [p1.a, p1.b],
    })
}
