//! Convex-hull polygons of a mesh (MuJoCo's `mesh_polyvert` / `mesh_polynormal` /
//! `mesh_polymap`): the hull triangles with coplanar neighbours merged into one polygon, its
//! vertices listed counter-clockwise about the outward normal. Used by the plane–mesh collider
//! (seed 004 "Checking"; MuJoCo 4.0.0 picks the hull polygon at the support vertex).

// `!(x > y)` is deliberate: a NaN area stops the search.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::model::Mesh;
use nalgebra::Vector3;

type V3 = Vector3<f64>;

/// Hull faces whose unit normals differ by less than this (1 − cos) are merged when they share
/// an edge. MuJoCo's merge tolerance is not documented; exactly coplanar faces (the common case:
/// boxes, prisms) merge with any tolerance.
const COPLANAR: f64 = 1e-10;

impl Mesh {
    /// Fills `polyvert`, `polynormal` and `polymap` from the convex hull of `vert`. Leaves them
    /// empty if the hull cannot be computed (fewer than 4 points, flat point sets).
    pub fn build_polygons(&mut self) {
        self.polyvert.clear();
        self.polynormal.clear();
        self.polymap = vec![Vec::new(); self.vert.len()];
        let Some(tri) = crate::mjcf::mesh::convex_hull(&self.vert) else {
            return;
        };
        let p: Vec<V3> = self.vert.iter().map(|v| V3::new(v[0], v[1], v[2])).collect();
        let nrm: Vec<V3> = tri
            .iter()
            .map(|f| {
                (p[f[1]] - p[f[0]])
                    .cross(&(p[f[2]] - p[f[0]]))
                    .try_normalize(0.0)
                    .unwrap_or_else(V3::zeros)
            })
            .collect();
        // union-find over triangles sharing an edge with (nearly) equal normals
        let mut parent: Vec<usize> = (0..tri.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let mut edge_owner = std::collections::HashMap::new();
        for (t, f) in tri.iter().enumerate() {
            for k in 0..3 {
                edge_owner.insert((f[k], f[(k + 1) % 3]), t);
            }
        }
        for (t, f) in tri.iter().enumerate() {
            for k in 0..3 {
                if let Some(&u) = edge_owner.get(&(f[(k + 1) % 3], f[k])) {
                    if 1.0 - nrm[t].dot(&nrm[u]) < COPLANAR {
                        let (a, b) = (root(&mut parent, t), root(&mut parent, u));
                        if a != b {
                            parent[a.max(b)] = a.min(b);
                        }
                    }
                }
            }
        }
        // each group in order of its first triangle
        let mut done = vec![false; tri.len()];
        for t0 in 0..tri.len() {
            let g = root(&mut parent, t0);
            if done[g] {
                continue;
            }
            done[g] = true;
            let members: Vec<usize> = (0..tri.len())
                .filter(|&t| root(&mut parent, t) == g)
                .collect();
            let mut edges = std::collections::HashSet::new();
            let mut area = V3::zeros();
            for &t in &members {
                let f = tri[t];
                for k in 0..3 {
                    edges.insert((f[k], f[(k + 1) % 3]));
                }
                area += (p[f[1]] - p[f[0]]).cross(&(p[f[2]] - p[f[0]]));
            }
            let boundary: Vec<(usize, usize)> = edges
                .iter()
                .copied()
                .filter(|&(a, b)| !edges.contains(&(b, a)))
                .collect();
            let next: std::collections::HashMap<usize, usize> = boundary.iter().copied().collect();
            // walk the boundary loop from the first vertex of the first triangle on it
            let start = tri[members[0]]
                .iter()
                .copied()
                .find(|v| next.contains_key(v));
            let mut poly = Vec::new();
            if let Some(s) = start {
                let mut v = s;
                loop {
                    poly.push(v);
                    match next.get(&v) {
                        Some(&w) if w != s && poly.len() <= boundary.len() => v = w,
                        _ => break,
                    }
                }
            }
            let polys: Vec<Vec<usize>> = if poly.len() == boundary.len() && poly.len() >= 3 {
                vec![poly]
            } else {
                // not a single simple loop: keep the triangles
                members.iter().map(|&t| tri[t].to_vec()).collect()
            };
            let n = area.try_normalize(0.0).unwrap_or_else(V3::zeros);
            for poly in polys {
                let id = self.polyvert.len();
                for &v in &poly {
                    self.polymap[v].push(id);
                }
                self.polyvert.push(poly);
                self.polynormal.push([n.x, n.y, n.z]);
            }
        }
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
