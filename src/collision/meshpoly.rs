//! Convex-hull polygons of a mesh (MuJoCo's `mesh_polyvert` / `mesh_polynormal` /
//! `mesh_polymap`), built as MuJoCo 4.0.0's compiler builds them, so that the polygons, their
//! order and their first corners agree with MuJoCo's (checked on every polygon of the
//! Menagerie robots). Used by the plane–mesh collider and multi-contact patches (Computation
//! "Checking"; MuJoCo 4.0.0 picks the hull polygon at the support vertex).
//!
//! The rule, as measured against MuJoCo 4.0.0:
//! - the hull triangles (in Qhull's order, [`crate::mjcf::mesh::hull_graph`]) are grouped by
//!   the direction of their normal in the mesh file's own frame (before `refpos`, `refquat`,
//!   `scale` and the principal-axis frame), rounded to 0.01 rad in azimuth
//!   `θ = round(atan2(n_y, n_x) / 0.01)` and polar angle `φ = round(acos(n_z) / 0.01)`
//!   (`θ = 0`, `φ = 0` or `round(π / 0.01)` within 1e-7 of the poles); triangles of area below
//!   `mjMINVAL` are skipped;
//! - within a group, each triangle's edges cancel the reverse edges already present (the
//!   group's boundary), new edges are appended, and triangles that touch no earlier one start
//!   an island; islands are merged (keeping the lower number) when a triangle joins them;
//! - each island's boundary is traced from its first edge, always following the first edge
//!   that leaves the current vertex; it becomes one polygon (vertex ids counter-clockwise about
//!   the outward normal) if it closes within as many steps as there are edges and has at least
//!   three corners;
//! - the groups are listed in the iteration order of MuJoCo's hash map keyed by (θ, φ) — a
//!   libc++ `unordered_map` whose hash combines the bit patterns of θ and φ as
//!   `h(θ) ^ (h(φ) + 0x9e3779b9 + (h(θ) << 6) + (h(θ) >> 2))` (`h(0) = 0`) — and reproduced
//!   here by replaying the map's bucket bookkeeping ([`MapOrder`]);
//! - the normal of each polygon is its Newell normal in the final mesh frame.

// `!(x > y)` is deliberate: a NaN area stops the search.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::model::Mesh;
use nalgebra::Vector3;

type V3 = Vector3<f64>;

/// Angular bucket of the normal grouping, radians.
const ANGLE_TOL: f64 = 0.01;

/// The (θ, φ) bucket of a triangle's normal; None for a degenerate triangle.
fn normal_key(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> Option<(f64, f64)> {
    let (a, b, c) = (V3::from(a), V3::from(b), V3::from(c));
    let n = (b - a).cross(&(c - a));
    let len = n.dot(&n).sqrt();
    if len < 1e-15 {
        return None;
    }
    // + 0.0 turns -0.0 into +0.0, which matters for atan2
    let n = V3::new(n.x / len + 0.0, n.y / len + 0.0, n.z / len + 0.0);
    if n.z.abs() > 1.0 - 1e-7 {
        let phi = if n.z < 0.0 {
            (std::f64::consts::PI / ANGLE_TOL).round()
        } else {
            0.0
        };
        return Some((0.0, phi));
    }
    Some((
        (n.y.atan2(n.x) / ANGLE_TOL).round(),
        (n.z.acos() / ANGLE_TOL).round(),
    ))
}

/// The hash of a bucket key (libc++ `std::hash<double>` of each angle, combined).
fn key_hash(k: (f64, f64)) -> u64 {
    let h = |x: f64| if x == 0.0 { 0 } else { x.to_bits() };
    let (h1, h2) = (h(k.0), h(k.1));
    h1 ^ h2
        .wrapping_add(0x9e37_79b9)
        .wrapping_add(h1 << 6)
        .wrapping_add(h1 >> 2)
}

/// Replays the bookkeeping of a libc++ `unordered_map` with unique keys and a maximum load
/// factor of one, to obtain its iteration order: one singly linked list of all nodes; each
/// bucket points at the node *before* its first node; a new key goes to the front of its
/// bucket, or to the front of the list if its bucket is empty; when the map grows (to `2n + 1`
/// buckets rounded up to a prime, or 2 when it starts empty), each node is relinked behind the
/// first node of its new bucket.
struct MapOrder {
    hash: Vec<u64>,
    next: Vec<usize>,
    first: usize,
    buckets: Vec<usize>,
}

/// No node.
const NIL: usize = usize::MAX;
/// The list head ("before begin").
const HEAD: usize = usize::MAX - 1;

impl MapOrder {
    fn new() -> Self {
        Self {
            hash: Vec::new(),
            next: Vec::new(),
            first: NIL,
            buckets: Vec::new(),
        }
    }

    fn slot(h: u64, bc: usize) -> usize {
        let bc64 = bc as u64;
        (if bc.is_power_of_two() {
            h & (bc64 - 1)
        } else if h < bc64 {
            h
        } else {
            h % bc64
        }) as usize
    }

    fn succ(&self, x: usize) -> usize {
        if x == HEAD {
            self.first
        } else {
            self.next[x]
        }
    }

    fn link(&mut self, x: usize, y: usize) {
        if x == HEAD {
            self.first = y;
        } else {
            self.next[x] = y;
        }
    }

    fn is_prime(n: usize) -> bool {
        if n < 2 {
            return false;
        }
        let mut d = 2;
        while d * d <= n {
            if n % d == 0 {
                return false;
            }
            d += 1;
        }
        true
    }

    fn grow(&mut self) {
        let bc = self.buckets.len();
        let pow2 = bc > 2 && bc.is_power_of_two();
        let mut n = (2 * bc + usize::from(!pow2)).max(self.hash.len() + 1);
        if n == 1 {
            n = 2;
        } else if !n.is_power_of_two() {
            while !Self::is_prime(n) {
                n += 1;
            }
        }
        self.buckets = vec![NIL; n];
        let mut pp = HEAD;
        let mut cp = self.first;
        if cp == NIL {
            return;
        }
        let mut prev_slot = Self::slot(self.hash[cp], n);
        self.buckets[prev_slot] = pp;
        pp = cp;
        cp = self.next[cp];
        while cp != NIL {
            let s = Self::slot(self.hash[cp], n);
            if s == prev_slot {
                pp = cp;
            } else if self.buckets[s] == NIL {
                self.buckets[s] = pp;
                pp = cp;
                prev_slot = s;
            } else {
                // move cp behind the node before its bucket's first node
                self.next[pp] = self.next[cp];
                let before = self.buckets[s];
                let after = self.succ(before);
                self.next[cp] = after;
                self.link(before, cp);
            }
            cp = self.next[pp];
        }
    }

    /// Inserts a new key (the caller guarantees it is new) and returns its node index.
    fn insert(&mut self, h: u64) -> usize {
        let bc = self.buckets.len();
        if bc == 0 || self.hash.len() + 1 > bc {
            self.grow();
        }
        let bc = self.buckets.len();
        let nd = self.hash.len();
        self.hash.push(h);
        self.next.push(NIL);
        let s = Self::slot(h, bc);
        let before = self.buckets[s];
        if before == NIL {
            self.next[nd] = self.first;
            self.first = nd;
            self.buckets[s] = HEAD;
            let nx = self.next[nd];
            if nx != NIL {
                let t = Self::slot(self.hash[nx], bc);
                self.buckets[t] = nd;
            }
        } else {
            let after = self.succ(before);
            self.next[nd] = after;
            self.link(before, nd);
        }
        nd
    }

    fn order(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.hash.len());
        let mut c = self.first;
        while c != NIL {
            out.push(c);
            c = self.next[c];
        }
        out
    }
}

/// The boundary of the triangles of one normal bucket, split into islands.
struct Group {
    /// Directed boundary edges in insertion order, with their island number.
    edges: Vec<(usize, usize, usize)>,
    nisland: usize,
}

impl Group {
    fn new(t: [usize; 3]) -> Self {
        Self {
            edges: vec![(t[0], t[1], 0), (t[1], t[2], 0), (t[2], t[0], 0)],
            nisland: 1,
        }
    }

    /// Removes the first boundary edge a → b and returns its island.
    fn take(&mut self, a: usize, b: usize) -> Option<usize> {
        let k = self.edges.iter().position(|e| e.0 == a && e.1 == b)?;
        Some(self.edges.remove(k).2)
    }

    /// Joins island `drop` into `keep` (`keep < drop`) and closes the numbering gap.
    fn merge(&mut self, keep: usize, drop: usize) {
        for e in &mut self.edges {
            if e.2 == drop {
                e.2 = keep;
            } else if e.2 > drop {
                e.2 -= 1;
            }
        }
        self.nisland -= 1;
    }

    fn add(&mut self, t: [usize; 3]) {
        let mut island: Option<usize> = None;
        let mut new_edge = [true; 3];
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            if let Some(j) = self.take(b, a) {
                new_edge[k] = false;
                island = Some(match island {
                    None => j,
                    Some(i) if i == j => i,
                    Some(i) => {
                        let (keep, drop) = (i.min(j), i.max(j));
                        self.merge(keep, drop);
                        keep
                    }
                });
            }
        }
        let island = island.unwrap_or_else(|| {
            self.nisland += 1;
            self.nisland - 1
        });
        for k in 0..3 {
            if new_edge[k] {
                self.edges.push((t[k], t[(k + 1) % 3], island));
            }
        }
    }

    /// One closed loop per island (islands in order), traced from the island's first edge.
    fn loops(&self) -> Vec<Vec<usize>> {
        let ne = self.edges.len();
        let mut out = Vec::new();
        for i in 0..self.nisland {
            let Some(&(a, b, _)) = self.edges.iter().find(|e| e.2 == i) else {
                continue;
            };
            let mut path = vec![a, b];
            let mut cur = b;
            for _ in 0..ne {
                let Some(&(_, to, _)) = self.edges.iter().skip(1).find(|e| e.2 == i && e.0 == cur)
                else {
                    continue;
                };
                if to == a {
                    out.push(path);
                    break;
                }
                path.push(to);
                cur = to;
            }
        }
        out
    }
}

/// The hull polygons of a mesh, in MuJoCo 4.0.0's order: `raw` are the vertices in the mesh
/// file's frame (they decide the grouping), `faces` the hull triangles in Qhull's order.
pub fn hull_polygons(raw: &[[f64; 3]], faces: &[[usize; 3]]) -> Vec<Vec<usize>> {
    let mut map = MapOrder::new();
    let mut index: std::collections::HashMap<(u64, u64), usize> = std::collections::HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    for f in faces {
        let Some(k) = normal_key(raw[f[0]], raw[f[1]], raw[f[2]]) else {
            continue;
        };
        // -0.0 == 0.0 as keys
        let bits = (
            if k.0 == 0.0 { 0 } else { k.0.to_bits() },
            if k.1 == 0.0 { 0 } else { k.1.to_bits() },
        );
        match index.get(&bits) {
            Some(&g) => groups[g].add(*f),
            None => {
                let nd = map.insert(key_hash(k));
                debug_assert_eq!(nd, groups.len());
                index.insert(bits, nd);
                groups.push(Group::new(*f));
            }
        }
    }
    let mut polys = Vec::new();
    for g in map.order() {
        polys.extend(groups[g].loops().into_iter().filter(|p| p.len() >= 3));
    }
    polys
}

/// Unit normal of a polygon by Newell's method, `Σ (y_i − y_j)(z_i + z_j)`, … over its edges
/// i → j (the area-weighted normal of any planar or nearly planar loop); (1, 0, 0) for a loop
/// without area.
pub fn newell_normal(poly: &[usize], vert: &[[f64; 3]]) -> [f64; 3] {
    let mut n = [0.0; 3];
    for (k, &i) in poly.iter().enumerate() {
        let (a, b) = (vert[i], vert[poly[(k + 1) % poly.len()]]);
        n[0] += (a[1] - b[1]) * (a[2] + b[2]);
        n[1] += (a[2] - b[2]) * (a[0] + b[0]);
        n[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len > 0.0 {
        [n[0] / len, n[1] / len, n[2] / len]
    } else {
        [1.0, 0.0, 0.0]
    }
}

/// MuJoCo's `mesh_extrema` of a hull graph over the mesh's float32 vertices: for each direction
/// `e = (i, j, k)`, `i, j, k ∈ {-1, 0, 1}` (at `9 (i + 1) + 3 (j + 1) + (k + 1)`), the first
/// hull vertex in the graph's order of largest `(x i + y j) + z k`, summed in float32; 0 for
/// `(0, 0, 0)` and for an empty graph. Measured on MuJoCo 4.0.0: this reproduces all 9,531
/// entries of the hull meshes of myosuite's 60 `myohand_object_*` models (the same sums in
/// float64 pick another of two vertices a float32 rounding apart in 16 of them).
pub fn extrema(graph: &[i32], vert: &[[f64; 3]]) -> [i32; 27] {
    let mut out = [0; 27];
    let gid = graph
        .first()
        .and_then(|&n| usize::try_from(n).ok())
        .and_then(|n| graph.get(2 + n..2 + 2 * n))
        .unwrap_or(&[]);
    for (e, slot) in out.iter_mut().enumerate() {
        let dir = [
            (e / 9) as f32 - 1.0,
            (e / 3 % 3) as f32 - 1.0,
            (e % 3) as f32 - 1.0,
        ];
        if dir == [0.0; 3] {
            continue;
        }
        let mut best = f32::NEG_INFINITY;
        for (k, &g) in gid.iter().enumerate() {
            let Some(v) = usize::try_from(g).ok().and_then(|g| vert.get(g)) else {
                continue;
            };
            // the vertices are float32 values; the sum is rounded to float32 as MuJoCo's is
            let p = (v[0] as f32 * dir[0] + v[1] as f32 * dir[1]) + v[2] as f32 * dir[2];
            if p > best {
                best = p;
                *slot = k as i32;
            }
        }
    }
    out
}

/// The entry of [`extrema`] at which MuJoCo 4.0.0 starts the hull-graph search of a support
/// point along the unit direction `l` (mesh frame): each component counts as ±1 beyond ±0.4,
/// else 0 (bisected on MuJoCo: a component of 0.399903 counts as 0, one of 0.400031 as 1;
/// tools/zoo/gen_regressions.py `plane_mesh_start`).
pub fn extremum_index(l: &[f64; 3]) -> usize {
    super::native::extremum_index(l)
}

impl Mesh {
    /// Sets the polygons, their normals (`newell_normal` in `vert`, the final mesh-frame
    /// vertices before float32 rounding), the per-vertex map and the hull graph's extrema
    /// (`mesh_extrema`) and the graph's layout for the hill climb (`hull`). A hull graph that `native::hull_graph_valid` rejects is cleared first
    /// (the support search then scans the vertices), so the hill climb never meets one.
    pub fn set_polygons(&mut self, polys: Vec<Vec<usize>>, vert: &[[f64; 3]]) {
        if !super::native::hull_graph_valid(&self.graph, self.vert.len()) {
            self.graph.clear();
        }
        self.extrema = extrema(&self.graph, &self.vert);
        self.hull = crate::model::HullWalk::new(&self.graph, &self.vert, &self.extrema);
        self.polynormal = polys.iter().map(|p| newell_normal(p, vert)).collect();
        self.polymap = vec![Vec::new(); self.vert.len()];
        for (i, p) in polys.iter().enumerate() {
            for &v in p {
                self.polymap[v].push(i);
            }
        }
        self.polyvert = polys;
    }

    /// Fills `graph`, `polyvert`, `polynormal` and `polymap` from the convex hull of `vert`,
    /// taking `vert` as the mesh's own frame. Leaves them empty if the hull cannot be computed
    /// (fewer than 4 points, flat point sets).
    pub fn build_polygons(&mut self) {
        self.graph.clear();
        self.extrema = [0; 27];
        self.hull = Default::default();
        self.polyvert.clear();
        self.polynormal.clear();
        self.polymap = vec![Vec::new(); self.vert.len()];
        let Ok(g) = crate::mjcf::mesh::hull_graph(&self.vert) else {
            return;
        };
        let faces = crate::mjcf::mesh::graph_faces(&g);
        let polys = hull_polygons(&self.vert, &faces);
        self.graph = g;
        let vert = self.vert.clone();
        self.set_polygons(polys, &vert);
    }
}

/// MuJoCo's reduction of a polygon to at most four corners (plane–mesh, MuJoCo 4.0.0): of an
/// `n`-gon whose corner at position `k` is `pt(k)`, start from position `a` and its next three
/// positions, then advance the last, the third and the second corner while the quadrilateral
/// area `|(p_a - p_c) × (p_b - p_d)| / 2` strictly grows. Returns the chosen positions (walk
/// order, `a` first) and their count (`min(n, 4)`).
pub fn quad_positions(n: usize, a: usize, pt: impl Fn(usize) -> V3) -> ([usize; 4], usize) {
    if n <= 4 {
        let mut r = [0; 4];
        for (k, x) in r.iter_mut().enumerate().take(n) {
            *x = (a + k) % n;
        }
        return (r, n);
    }
    let area = |a: usize, b: usize, c: usize, d: usize| {
        0.5 * (pt(a) - pt(c)).cross(&(pt(b) - pt(d))).norm()
    };
    let (mut b, mut c, mut d) = ((a + 1) % n, (a + 2) % n, (a + 3) % n);
    let mut m = area(a, b, c, d);
    loop {
        let dn = (d + 1) % n;
        let mn = area(a, b, c, dn);
        if !(mn > m) {
            break;
        }
        d = dn;
        m = mn;
        loop {
            let cn = (c + 1) % n;
            let mn = area(a, b, cn, d);
            if !(mn > m) {
                break;
            }
            c = cn;
            m = mn;
        }
        loop {
            let bn = (b + 1) % n;
            let mn = area(a, bn, c, d);
            if !(mn > m) {
                break;
            }
            b = bn;
            m = mn;
        }
    }
    ([a, b, c, d], 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(vert: Vec<[f64; 3]>) -> Mesh {
        let mut m = Mesh {
            vert,
            ..Default::default()
        };
        m.build_polygons();
        m
    }

    /// Right prism over a regular n-gon of radius r, half-height h.
    fn prism(n: usize, r: f64, h: f64) -> Vec<[f64; 3]> {
        let mut v = Vec::new();
        for z in [-h, h] {
            for k in 0..n {
                let t = 2.0 * std::f64::consts::PI * k as f64 / n as f64 + 0.1;
                v.push([r * t.cos(), r * t.sin(), z]);
            }
        }
        v
    }

    #[test]
    fn cube_and_prisms_have_their_faces_as_ccw_polygons() {
        for (n, v) in [
            (4, prism(4, 0.1, 0.07)),
            (6, prism(6, 0.08, 0.05)),
            (8, prism(8, 0.09, 0.04)),
        ] {
            let m = mesh(v);
            // n side rectangles + 2 caps
            assert_eq!(m.polyvert.len(), n + 2);
            let caps = m.polyvert.iter().filter(|p| p.len() == n).count();
            assert_eq!(caps, if n == 4 { n + 2 } else { 2 });
            let p = |i: usize| V3::new(m.vert[i][0], m.vert[i][1], m.vert[i][2]);
            for (poly, nrm) in m.polyvert.iter().zip(&m.polynormal) {
                let nrm = V3::new(nrm[0], nrm[1], nrm[2]);
                assert!((nrm.norm() - 1.0).abs() < 1e-12);
                // outward: every vertex lies on or below the face plane
                let off = nrm.dot(&p(poly[0]));
                assert!(m
                    .vert
                    .iter()
                    .all(|q| nrm.dot(&V3::new(q[0], q[1], q[2])) <= off + 1e-12));
                // counter-clockwise about the normal, and planar
                for k in 0..poly.len() {
                    let (a, b, c) = (
                        p(poly[k]),
                        p(poly[(k + 1) % poly.len()]),
                        p(poly[(k + 2) % poly.len()]),
                    );
                    assert!((b - a).cross(&(c - b)).dot(&nrm) > 0.0);
                    assert!((nrm.dot(&a) - off).abs() < 1e-12);
                }
            }
            for (v, polys) in m.polymap.iter().enumerate() {
                assert_eq!(polys.len(), 3, "vertex {v}");
                assert!(polys.iter().all(|&k| m.polyvert[k].contains(&v)));
            }
        }
    }

    #[test]
    fn quad_search_is_bounded_by_the_largest_quadrilateral() {
        // MuJoCo's search is greedy (it misses the maximum on a regular heptagon, and MuJoCo
        // 4.0.0 reports the same non-maximal corners; see the plane-octprism/hexprism oracle
        // scenes). Checked against brute force: never above the largest quadrilateral through
        // corner a and within 20% of it for regular polygons.
        for n in 5..=12 {
            for irregular in [false, true] {
                let pts: Vec<V3> = (0..n)
                    .map(|k| {
                        let t = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                        let r = if irregular {
                            1.0 + 0.15 * (3.0 * t).sin() * (k % 2) as f64
                        } else {
                            1.0
                        };
                        V3::new(r * t.cos(), r * t.sin(), 0.0)
                    })
                    .collect();
                let area = |q: [usize; 4]| {
                    0.5 * (pts[q[0]] - pts[q[2]])
                        .cross(&(pts[q[1]] - pts[q[3]]))
                        .norm()
                };
                for a in 0..n {
                    let (q, cnt) = quad_positions(n, a, |k| pts[k]);
                    assert_eq!(cnt, 4);
                    assert_eq!(q[0], a);
                    let mut best: f64 = 0.0;
                    for i in 1..n {
                        for j in i + 1..n {
                            for k in j + 1..n {
                                let o = |x: usize| (a + x) % n;
                                best = best.max(area([a, o(i), o(j), o(k)]));
                            }
                        }
                    }
                    assert!(area(q) <= best + 1e-12, "n {n} a {a}");
                    if !irregular {
                        assert!(area(q) >= 0.8 * best, "n {n} a {a}");
                    }
                }
            }
        }
        // four or fewer corners: all of them, from a, in walk order
        let sq: Vec<V3> = (0..4)
            .map(|k| V3::new(k as f64, (k * k) as f64, 0.0))
            .collect();
        assert_eq!(quad_positions(4, 2, |k| sq[k]), ([2, 3, 0, 1], 4));
        assert_eq!(quad_positions(3, 1, |k| sq[k]), ([1, 2, 0, 0], 3));
    }
}
