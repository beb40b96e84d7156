//! Height field against convex geoms (Computation "Checking": height fields are unions of
//! triangular prisms). Each grid cell under the geom's bounding sphere gives two prisms (top
//! triangle at the elevation, bottom at `-size[3]`; MuJoCo's diagonal and order: the prism
//! closed by vertex (i+1, j+1), then the one closed by (i, j+1)); each prism is collided with the
//! geom, one contact per prism within the margin, normal from the height field to the geom.
//! Computed in `f64`; for dual scalars each contact is re-evaluated from the prism's and the
//! geom's features ([`super::cvxdiff`]).
//!
//! Boxes, meshes and cylinders without margin: MuJoCo 4.0.0's native CCD as observed
//! ([`native`], written clean-room from the published GJK signed-volume and EPA algorithms;
//! tools/reference/probe_hfield_ccd.py): its EPA stops early (a repeated box corner or mesh
//! vertex ends it; the prism records no vertex index), so MuJoCo's depths are below the minimal
//! penetration depth (on a flat cell 0.0044 against 0.058). Against MuJoCo 4.0.0
//! (tests/engine/collision_oracle.rs, `hfield-*` rows: random and flat fields, a single cell, tilted
//! terrain, resting feet) all counts agree and 713 of 728 box/mesh contacts agree to 1e-9 (the
//! scenes without a differing contact to ≤ 2.1e-13); 15 differ (MuJoCo's EPA ends at another
//! iteration, once from another GJK tetrahedron; up to 1.1e-2 in depth); cylinders 29 of 192
//! (EPA to `ccd_tolerance`; up to 5.2e-7 in depth, 7e-2 in pos, 8e-2 in frame). Not modelled:
//! MuJoCo's EPA from a triangle or segment simplex (touching within `ccd_tolerance`, the origin
//! on a face of the GJK tetrahedron: no contact here) and geom margins (the minimal depth is
//! used then); a radial normal on cylinder walls (MuJoCo 3.x's normal correction) made the
//! cylinder rows worse, so it is not applied.
//!
//! Spheres, capsules, ellipsoids, and any geom with a margin: the minimal depth of each prism by
//! GJK/EPA ([`super::convex::penetration_within`]); MuJoCo agrees to its EPA tolerance in dist
//! (≤ 1e-6), its positions and normals less closely (see the test's tolerances).

use super::convex::penetration_within;
use super::cvxdiff;
use super::shape::{geom_shape, ConvexContact, Posed, Shape};
use super::sink::{f64of, Sink};
use crate::data::Data;
use crate::math::{sc, Scalar};
use crate::model::Model;
use nalgebra::Vector3;

type V3 = Vector3<f64>;

/// Round-off slack, relative to the scene's size, by which a prism must clear the geom's
/// bounding box (grown by the margin) before it is skipped unsearched.
const PRUNE_SLACK: f64 = 1e-10;

/// Height field (geom 0) against any convex geom (geom 1).
pub fn hfield_convex<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>) {
    let [gh, g] = s.geom;
    let Some(hf) = usize::try_from(m.geom_dataid[gh])
        .ok()
        .and_then(|i| m.hfield.get(i))
    else {
        return;
    };
    let Some(shape) = geom_shape(m, g) else {
        return;
    };
    let (nr, nc) = (hf.nrow, hf.ncol);
    if nr < 2 || nc < 2 || hf.data.len() < nr * nc {
        return;
    }
    let [sx, sy, sz, sb] = hf.size;
    let hp: V3 = d.geom_xpos[gh].map(|x| f64of(x));
    let hm = d.geom_xmat[gh].map(|x| f64of(x));
    let b = Posed {
        shape,
        pos: d.geom_xpos[g].map(|x| f64of(x)),
        mat: d.geom_xmat[g].map(|x| f64of(x)),
    };
    let margin = f64of(s.margin);
    // geom bounding sphere in the height-field frame
    let c = hm.transpose() * (b.pos - hp);
    let r = m.geom_rbound[g] + margin;
    if !(c.z - r <= sz) || !(c.z + r >= -sb) {
        return;
    }
    let (dx, dy) = (2.0 * sx / (nc - 1) as f64, 2.0 * sy / (nr - 1) as f64);
    let cell = |v: f64, s: f64, dv: f64, n: usize| -> usize {
        (((v + s) / dv).floor().max(0.0) as usize).min(n - 2)
    };
    if !(c.x + r >= -sx && c.x - r <= sx && c.y + r >= -sy && c.y - r <= sy) {
        return;
    }
    // The geom's bounding box in the height field's frame (support points along its axes),
    // grown by the margin and a round-off slack: a prism outside it is farther than the margin
    // from the geom, so every search below would reject it; only the cells under the box are
    // visited, and prisms whose highest point is below the box's bottom are skipped.
    let slack = PRUNE_SLACK * (1.0 + sx + sy + sz + sb + m.geom_rbound[g] + c.norm());
    let mut lo = [0.0; 3];
    let mut hi = [0.0; 3];
    for k in 0..3 {
        let ax: V3 = hm.column(k).into_owned();
        hi[k] = ax.dot(&(b.support(&ax) - hp)) + margin + slack;
        lo[k] = ax.dot(&(b.support(&-ax) - hp)) - margin - slack;
    }
    let (xlo, xhi) = ((c.x - r).max(lo[0]), (c.x + r).min(hi[0]));
    let (ylo, yhi) = ((c.y - r).max(lo[1]), (c.y + r).min(hi[1]));
    if !(xlo <= xhi && ylo <= yhi && xhi >= -sx && xlo <= sx && yhi >= -sy && ylo <= sy) {
        return;
    }
    let (c0, c1) = (cell(xlo, sx, dx, nc), cell(xhi, sx, dx, nc));
    let (r0, r1) = (cell(ylo, sy, dy, nr), cell(yhi, sy, dy, nr));
    let vtx = |i: usize, j: usize| -> [f64; 3] {
        [
            -sx + dx * j as f64,
            -sy + dy * i as f64,
            hf.data[i * nc + j] * sz,
        ]
    };
    let tol = (m.opt.ccd_tolerance * 1e-4).max(1e-12);
    let iters = m.opt.ccd_iterations.max(50);
    // MuJoCo's discrete case (box or mesh, no margin): its native CCD as observed (module
    // `native`), in the height field's frame
    let hmt = hm.transpose();
    let (lpos, lmat) = (hmt * (b.pos - hp), hmt * b.mat);
    let native_geom = match (margin == 0.0, shape) {
        (true, Shape::Box(size)) => Some(native::Geom::Box {
            pos: lpos,
            mat: lmat,
            size,
        }),
        (true, Shape::Mesh(vert)) => Some(native::Geom::Mesh {
            pos: lpos,
            mat: lmat,
            vert,
        }),
        (true, Shape::Cylinder(r, h)) => Some(native::Geom::Cylinder {
            pos: lpos,
            mat: lmat,
            size: [r, h],
        }),
        _ => None,
    };
    let discrete = matches!(shape, Shape::Box(_) | Shape::Mesh(_));
    for i in r0..=r1 {
        for j in c0..=c1 {
            let (p00, p01, p10, p11) = (vtx(i, j), vtx(i, j + 1), vtx(i + 1, j), vtx(i + 1, j + 1));
            // MuJoCo's order: the prism closed by (i+1, j+1), then the one closed by (i, j+1)
            for tri in [[p10, p00, p11], [p00, p11, p01]] {
                if tri.iter().all(|v| v[2] < lo[2]) && -sb < lo[2] {
                    continue;
                }
                // bottom vertices first, then the top ones
                let mut pr = [[0.0; 3]; 6];
                for k in 0..3 {
                    pr[k] = [tri[k][0], tri[k][1], -sb];
                    pr[k + 3] = tri[k];
                }
                let a = Posed {
                    shape: Shape::Mesh(&pr),
                    pos: hp,
                    mat: hm,
                };
                let mut hit_face = None;
                let ct = if let Some(geom) = &native_geom {
                    let prism = pr.map(|q| V3::new(q[0], q[1], q[2]));
                    let r = native::penetration(
                        s.scratch.hfield(),
                        &prism,
                        geom,
                        lpos,
                        m.opt.ccd_iterations,
                        m.opt.ccd_tolerance,
                        discrete,
                    );
                    let Some(native::Hit {
                        depth,
                        pa,
                        pb,
                        face,
                    }) = r
                    else {
                        continue;
                    };
                    if discrete {
                        hit_face = Some(face);
                    }
                    let dir = pa - pb;
                    let nrm = dir.norm();
                    let dir = if nrm < 1e-15 {
                        V3::x()
                    } else {
                        dir * (1.0 / nrm)
                    };
                    ConvexContact {
                        dist: -depth,
                        pa: hm * pa + hp,
                        pb: hm * pb + hp,
                        normal: hm * dir,
                    }
                } else {
                    match penetration_within(&a, &b, tol, iters, margin, s.scratch) {
                        Some(ct) => ct,
                        None => continue,
                    }
                };
                if ct.dist <= margin {
                    let pos = (ct.pa + ct.pb) * 0.5;
                    if cvxdiff::is_f64::<T>() {
                        let v = |x: V3| Vector3::new(sc::<T>(x.x), sc::<T>(x.y), sc::<T>(x.z));
                        s.add(sc(ct.dist), v(pos), v(ct.normal), None);
                    } else if let (Some(face), Some(geom)) = (hit_face, &native_geom) {
                        // MuJoCo's contact is the EPA face's plane: differentiate it
                        let tpose = [super::pose(d, gh), super::pose(d, g)];
                        match face_plane::<T>(geom, &face, tpose) {
                            Some(exact) => s.add_exact((ct.dist, &pos, &ct.normal), exact),
                            None => s.add(sc(ct.dist), tv3(&pos), tv3(&ct.normal), None),
                        }
                    } else {
                        // the prism is a polytope fixed in the height field's frame
                        let tpose = [super::pose(d, gh), super::pose(d, g)];
                        let exact = cvxdiff::single(
                            [a.shape, b.shape],
                            [(hp, hm), (b.pos, b.mat)],
                            tpose,
                            &ct,
                        );
                        s.add_exact((ct.dist, &pos, &ct.normal), exact);
                    }
                }
            }
        }
    }
}

fn tv3<T: Scalar>(x: &V3) -> Vector3<T> {
    Vector3::new(sc::<T>(x.x), sc::<T>(x.y), sc::<T>(x.z))
}

/// The contact of an EPA face in any scalar: the face's vertices are prism vertices (fixed in
/// the height field's frame) minus geom vertices (fixed in the geom's frame); the contact is the
/// projection `v` of the origin on the face's plane: `dist = −|v|`, normal `v/|v|`, position the
/// mean of the witness points `Σλₖaₖ`, `Σλₖbₖ` (λ: barycentric coordinates of `v`).
fn face_plane<T: Scalar>(
    geom: &native::Geom,
    face: &[(V3, i32); 3],
    [(hp, hm), (gp, gm)]: [(Vector3<T>, nalgebra::Matrix3<T>); 2],
) -> Option<(T, Vector3<T>, Vector3<T>)> {
    let mut a = [Vector3::<T>::zeros(); 3];
    let mut b = [Vector3::<T>::zeros(); 3];
    for k in 0..3 {
        a[k] = hp + hm * tv3::<T>(&face[k].0);
        b[k] = gp + gm * tv3::<T>(&geom.vertex(face[k].1)?);
    }
    let w = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let n = (w[1] - w[0]).cross(&(w[2] - w[0]));
    let nn = n.dot(&n);
    if !(f64of(nn) > 0.0) {
        return None;
    }
    let v = n * (n.dot(&w[0]) / nn);
    let depth = v.norm();
    let l0 = (w[1] - v).cross(&(w[2] - v)).dot(&n) / nn;
    let l1 = (w[2] - v).cross(&(w[0] - v)).dot(&n) / nn;
    let l2 = T::one() - l0 - l1;
    let pos = ((a[0] + b[0]) * l0 + (a[1] + b[1]) * l1 + (a[2] + b[2]) * l2) * sc::<T>(0.5);
    Some((-depth, pos, v / depth))
}

/// MuJoCo 4.0.0's native convex collider on one height-field prism, as observed
/// (tools/reference/probe_hfield_ccd.py), written clean-room from the published algorithms: GJK
/// as a distance query with the signed-volume subalgorithm of Montanari, Petrinic and Barbieri
/// (2017, ACM TOG 36(3)), then the expanding polytope algorithm (van den Bergen 2001) with
/// MuJoCo's stopping rules. Everything is in the height field's frame; the Minkowski difference
/// is prism − geom.
pub mod native {
    use crate::collision::scratch::prism::{Face, Poly, Pt, NFACE, NVERT, PT0};
    use nalgebra::{Matrix3, Vector3};

    type V3 = Vector3<f64>;

    /// Visibility threshold of a face from a new support point.
    const VISIBLE: f64 = 1e-15;

    /// A convex geom posed in the height field's frame (`mat`: geom → height field).
    pub enum Geom<'a> {
        Box {
            pos: V3,
            mat: Matrix3<f64>,
            size: [f64; 3],
        },
        Mesh {
            pos: V3,
            mat: Matrix3<f64>,
            vert: &'a [[f64; 3]],
        },
        Cylinder {
            pos: V3,
            mat: Matrix3<f64>,
            size: [f64; 2],
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
                Geom::Cylinder { .. } => None,
            }
        }

        /// Support point in direction `d` (height-field frame) and its vertex index.
        fn support(&self, d: &V3) -> (V3, i32) {
            match self {
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
                Geom::Mesh { pos, mat, vert } => {
                    let l = to_local(mat, d);
                    let mut best = -(f32::MAX as f64);
                    let mut idx = 0usize;
                    for (i, v) in vert.iter().enumerate() {
                        let p = l.x * v[0] + l.y * v[1] + l.z * v[2];
                        if p > best {
                            best = p;
                            idx = i;
                        }
                    }
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
                        // r·l/|l| in this order (closest to MuJoCo 4.0.0 of the orders tried)
                        let n = n2.sqrt();
                        (size[0] * l.x / n, size[0] * l.y / n)
                    } else {
                        (0.0, 0.0)
                    };
                    let z = if l.z >= 0.0 { size[1] } else { -size[1] };
                    (to_frame(mat, pos, &V3::new(x, y, z)), -1)
                }
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

    /// Support of prism − geom in `d`.
    fn support(prism: &[V3; 6], geom: &Geom, d: &V3) -> Pt {
        let a = prism_support(prism, d);
        let (b, idx) = geom.support(&-d);
        Pt {
            w: a - b,
            a,
            b,
            idx,
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
        let tet = gjk(prism, geom, center, kmax, tol, discrete)?;
        epa(pt, prism, geom, tet, kmax, tol, discrete, repeat_stop)
    }

    /// GJK as a distance query; the tetrahedron enclosing the origin, if one is found.
    fn gjk(
        prism: &[V3; 6],
        geom: &Geom,
        center: V3,
        kmax: usize,
        tol: f64,
        discrete: bool,
    ) -> Option<[Pt; 4]> {
        let eps = if discrete { 0.0 } else { 0.5 * tol * tol };
        let mut cp = V3::zeros();
        for p in prism {
            cp += p;
        }
        let mut x = cp / 6.0 - center;
        let mut simplex = [PT0; 4];
        let mut n = 0;
        for _ in 0..kmax {
            let xx = dot(&x, &x);
            if xx < 1e-30 {
                return None;
            }
            let xn = xx.sqrt();
            let d = V3::new(-x.x / xn, -x.y / xn, -x.z / xn);
            let s = support(prism, geom, &d);
            if dot(&x, &(x - s.w)) < eps {
                return None;
            }
            if discrete && dot(&x, &s.w) > 0.0 {
                return None;
            }
            simplex[n] = s;
            n += 1;
            let l = weights(&simplex[..n]);
            let mut kept = 0;
            let mut nx = V3::zeros();
            for i in 0..n {
                if l[i] != 0.0 {
                    nx += simplex[i].w * l[i];
                    simplex[kept] = simplex[i];
                    kept += 1;
                }
            }
            n = kept;
            if (0..3).all(|i| (nx[i] - x[i]).abs() < 1e-15) {
                return None;
            }
            x = nx;
            if n == 4 {
                return Some(simplex);
            }
        }
        None
    }

    /// EPA from the GJK tetrahedron with MuJoCo's stopping rules.
    #[allow(clippy::too_many_arguments)]
    fn epa(
        pt: &mut Poly,
        prism: &[V3; 6],
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
            upper = upper.min(dot(&vf, &w.w) / lower);
            upper2 = upper * upper;
            // c. converged
            if upper - lower < tolp {
                break;
            }
            // d. a repeated box corner or mesh vertex ends the search
            if repeat_stop && pt.pts[..iw].iter().any(|p| p.idx == w.idx) {
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
        })
    }
}

#[cfg(test)]
mod tests;
