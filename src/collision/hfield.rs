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
//! iteration, once from another GJK tetrahedron; up to 1.1e-2 in depth); cylinders 19 of 192
//! (EPA to `ccd_tolerance`; up to 1.1e-7 in depth, 1.6e-6 in frame off the flat field; MuJoCo's
//! test model's cylinder to rounding at keyframe 0 and rollout step 0). Not modelled:
//! MuJoCo's EPA from a triangle or segment simplex (touching within `ccd_tolerance`, the origin
//! on a face of the GJK tetrahedron: no contact here) and geom margins (the minimal depth is
//! used then); a radial normal on cylinder walls (MuJoCo 3.x's normal correction) made the
//! cylinder rows worse, so it is not applied.
//!
//! Spheres, capsules and ellipsoids: MuJoCo 4.0.0's native search as well
//! ([`native::contact`]): a sphere as its centre and a capsule as its axis with the radius added
//! while that core is outside the prism (exact at any tolerance), else the whole shape's EPA
//! stopped at `ccd_tolerance` or `ccd_iterations` (Menagerie's Barkour vb on its height field;
//! `zoo_regressions::native_hfield_iterates`, `collision_oracle`'s `hfield-sphere`,
//! `-capsule`, `-ellipsoid` rows: `dist` and frame to rounding); with a margin, the prism and
//! the geom both grown by half of it ([`native::contact_with_margin`],
//! `zoo_regressions::native_hfield_with_margin`). Boxes and meshes with a margin: as MuJoCo
//! 4.0.0 searches two polytopes with a margin, a prism overlapping the geom gives the last EPA
//! face of both grown by half the margin ([`native::polytopes_with_margin`]), a prism apart
//! within the margin the exact distance (`zoo_regressions::hfield_polytope_margin`: 32 poses to
//! 1e-9). Cylinders with a margin as the smooth shapes: [`native::contact_with_margin`] (the
//! cylinder's GJK iterate with the grown radius added while the shapes are apart, EPA on both
//! grown when they overlap); MuJoCo's contacts still differ on 9 of 16 poses there, by up to
//! 3.6e-5 in `pos` and frame (`dist` to 1e-10) on prisms apart within the margin, where MuJoCo's
//! GJK stops at another iterate (the polytope rule was off on 10, up to 1.2e-4; the converged
//! minimal depth on 14, up to 3.7e-3).

use super::convex::penetration_within;
use super::cvxdiff;
use super::native;
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
    // boxes, meshes and cylinders without margin (`native_geom`): MuJoCo's native CCD as
    // observed (module `native`), in the height field's frame
    let hmt = hm.transpose();
    let (lpos, lmat) = (hmt * (b.pos - hp), hmt * b.mat);
    let polytope = match shape {
        Shape::Box(size) => Some(native::Geom::Box {
            pos: lpos,
            mat: lmat,
            size,
        }),
        Shape::Mesh(vert) => Some(native::Geom::Mesh {
            pos: lpos,
            mat: lmat,
            vert,
            graph: None,
            warm: Default::default(),
        }),
        Shape::Cylinder(r, h) => Some(native::Geom::Cylinder {
            pos: lpos,
            mat: lmat,
            size: [r, h],
        }),
        _ => None,
    };
    // boxes and meshes with a margin (`grown_geom`): the native search as on two polytopes with
    // a margin (`convex::polytope_contact`): a prism overlapping the geom gives the last EPA
    // face of both grown by half the margin; one apart within the margin, the exact distance
    // (the converged search below). MuJoCo 4.0.0's on every box and mesh pose of
    // `zoo_regressions::hfield_polytope_margin`. Cylinders with a margin go with the smooth
    // shapes (`with_margin`): 7 of its 16 cylinder poses (the polytope rule 6).
    let (native_geom, grown_geom) = if margin == 0.0 {
        (polytope, None)
    } else if matches!(shape, Shape::Cylinder(..)) {
        (None, None)
    } else {
        (None, polytope)
    };
    let discrete = matches!(shape, Shape::Box(_) | Shape::Mesh(_));
    // spheres, capsules and ellipsoids without margin: MuJoCo's native search on the core
    // (`native::contact`), in the height field's frame
    let rounded = (margin == 0.0
        && matches!(
            shape,
            Shape::Sphere(_) | Shape::Capsule(..) | Shape::Ellipsoid(_)
        ))
    .then(|| native::Rounded::new(shape, lpos, lmat));
    // spheres, capsules, ellipsoids and cylinders with a margin: the native search on the prism
    // and the geom, both grown by half the margin (`native::contact_with_margin`)
    let with_margin = (margin > 0.0
        && matches!(
            shape,
            Shape::Sphere(_) | Shape::Capsule(..) | Shape::Ellipsoid(_) | Shape::Cylinder(..)
        ))
    .then(|| native::Rounded::new(shape, lpos, lmat));
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
                        ..
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
                } else if let Some(geom) = &grown_geom {
                    let prism = native::Geom::Prism(pr.map(|q| V3::new(q[0], q[1], q[2])));
                    let (ni, nt) = (m.opt.ccd_iterations, m.opt.ccd_tolerance);
                    let pt = s.scratch.hfield();
                    let grown = match native::query(pt, &prism, geom, ni, nt, margin) {
                        native::Query::Beyond => continue,
                        native::Query::Hit(_) => {
                            native::polytopes_with_margin(pt, &prism, geom, ni, nt, margin)
                        }
                        _ => None,
                    };
                    match grown {
                        Some(Some(h)) if h.depth > 0.0 => {
                            // the grown shapes' face, its witness points moved back onto the shapes
                            let n = h.v / h.depth;
                            ConvexContact {
                                dist: margin - h.depth,
                                pa: hm * (h.pa - n * (0.5 * margin)) + hp,
                                pb: hm * (h.pb + n * (0.5 * margin)) + hp,
                                normal: hm * n,
                            }
                        }
                        _ => match penetration_within(&a, &b, tol, iters, margin, s.scratch) {
                            Some(ct) => ct,
                            None => continue,
                        },
                    }
                } else {
                    let prism = pr.map(|q| V3::new(q[0], q[1], q[2]));
                    let (ni, nt) = (m.opt.ccd_iterations, m.opt.ccd_tolerance);
                    let p = native::Rounded::prism(prism);
                    let found = match (&rounded, &with_margin) {
                        (Some(g), _) => native::contact(s.scratch.hfield(), &p, g, ni, nt, margin),
                        (None, Some(g)) => {
                            native::contact_with_margin(s.scratch.hfield(), &p, g, ni, nt, margin)
                        }
                        (None, None) => None,
                    };
                    match found {
                        Some(Some(ct)) => ConvexContact {
                            dist: ct.dist,
                            pa: hm * ct.pa + hp,
                            pb: hm * ct.pb + hp,
                            normal: hm * ct.normal,
                        },
                        Some(None) => continue,
                        None => match penetration_within(&a, &b, tol, iters, margin, s.scratch) {
                            Some(ct) => ct,
                            None => continue,
                        },
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
                            None,
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

#[cfg(test)]
mod tests;
