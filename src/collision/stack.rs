//! The counts that size MuJoCo 4.0.0's stack requests after its broad phase
//! ([`crate::data::arena::collision_overflow`]): the body pairs its sweep keeps and the geom
//! pairs its narrow phase takes as candidates. moreau's own broad phase finds a superset of
//! MuJoCo's body pairs (docs/mujoco-behaviour.md, "Contact capacity"), so the counts are
//! computed here apart, as measured on the oracle (`tools/arena/narrow_stack.py`).

use crate::collision::sink::{f64of, NO_SPACE};
use crate::data::arena::BroadCounts;
use crate::data::Data;
use crate::math::Scalar;
use crate::model::{GeomType, Model};
use nalgebra::{Matrix3, Vector3};

/// The counts of model `m` at the poses of `d`. `body_ok(b1, b2)`: the body pair passes the
/// parent, weld and static filters; `geom_ok(g1, g2)`: a geom pair of such bodies passes the
/// masks, the bounding test with its margin and the `exclude` list (Computation, "Filtering").
///
/// - `sweep`: the body pairs (other than the world's) whose boxes overlap on all three axes of
///   the frame of the principal axes of the collidable geoms' centres, boxes built from each
///   geom's exact extent along those axes for a sphere (radius plus margin) and from its
///   `geom_aabb` for the other types, of bodies whose or'ed contype and conaffinity meet
///   (measured on 50 random piles of 25 to 90 spheres on free, ball, hinge and static bodies:
///   equal but for one pair in 5 piles, whose boxes meet within 10⁻⁴).
/// - `candidates`: the geom pairs the narrow phase takes, when they are known
///   ([`candidates_known`]). A sphere pair that passes
///   the bounding test has boxes that meet, so the candidates are the geom pairs that pass
///   `geom_ok`, whatever the sweep kept. Otherwise MuJoCo's midphase (`mj_collideTree`) and
///   its oriented boxes decide, which moreau does not reproduce: `None`.
pub fn broad_counts<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    boxes: &mut Vec<[f64; 6]>,
    order: &mut Vec<(f64, f64, u32)>,
    body_ok: impl Fn(usize, usize) -> bool,
    geom_ok: impl Fn(usize, usize) -> bool,
) -> BroadCounts {
    let ngeom = m.ngeom.min(m.geom_bodyid.len());
    let collidable = |g: usize| m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0;
    let pos = |g: usize| d.geom_xpos[g].map(|x| f64of(x));
    // the frame: eigenvectors of the covariance of the centres of the bodies' collidable geoms
    let (mut mean, mut n) = (Vector3::<f64>::zeros(), 0.0);
    for g in (0..ngeom).filter(|&g| m.geom_bodyid[g] != 0 && collidable(g)) {
        mean += pos(g);
        n += 1.0;
    }
    let mut frame = Matrix3::<f64>::identity();
    if n > 1.0 {
        mean /= n;
        let mut cov = Matrix3::<f64>::zeros();
        for g in (0..ngeom).filter(|&g| m.geom_bodyid[g] != 0 && collidable(g)) {
            let c = pos(g) - mean;
            cov += c * c.transpose();
        }
        if cov.iter().all(|x| x.is_finite()) {
            frame = nalgebra::SymmetricEigen::new(cov).eigenvectors.transpose();
        }
    }
    // each body's box (low x, y, z, high x, y, z in the frame), in the broad phase's scratch
    // (reserved for `nbody` bodies: no allocation)
    boxes.clear();
    boxes.resize(m.nbody, NO_SPACE);
    for g in (0..ngeom).filter(|&g| collidable(g)) {
        let bx = &mut boxes[m.geom_bodyid[g]];
        let (c, h) = if m.geom_type[g] == GeomType::Sphere {
            (frame * pos(g), Vector3::repeat(m.geom_size[g][0]))
        } else if m.geom_type[g] == GeomType::Plane {
            (Vector3::zeros(), Vector3::repeat(f64::INFINITY))
        } else {
            let r = d.geom_xmat[g].map(|x| f64of(x));
            let ab = &m.geom_aabb[g];
            let off = Vector3::new(ab[0], ab[1], ab[2]);
            (
                frame * (pos(g) + r * off),
                (frame * r).abs() * Vector3::new(ab[3], ab[4], ab[5]),
            )
        };
        for i in 0..3 {
            let e = h[i] + m.geom_margin[g];
            bx[i] = bx[i].min(c[i] - e);
            bx[i + 3] = bx[i + 3].max(c[i] + e);
        }
    }
    // a body's or'ed masks
    let masks = |b: usize| {
        let adr = m.body_geomadr.get(b).copied().unwrap_or(0);
        let num = m.body_geomnum.get(b).copied().unwrap_or(0);
        (adr..(adr + num).min(ngeom)).fold((0, 0), |(t, a), g| {
            (t | m.geom_contype[g], a | m.geom_conaffinity[g])
        })
    };
    // the sweep along the first axis, then the other two
    order.clear();
    order.extend(
        (1..m.nbody)
            .filter(|&b| boxes[b][0] <= boxes[b][3])
            .map(|b| (boxes[b][0], boxes[b][3], b as u32)),
    );
    order.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
    let mut sweep = 0u128;
    for (i, &(_, hi1, b1)) in order.iter().enumerate() {
        let (b1, x1) = (b1 as usize, &boxes[b1 as usize]);
        let (t1, a1) = masks(b1);
        for &(lo2, _, b2) in &order[i + 1..] {
            if lo2 > hi1 {
                break;
            }
            let (b2, x2) = (b2 as usize, &boxes[b2 as usize]);
            let meet = (1..3).all(|k| x1[k] <= x2[k + 3] && x2[k] <= x1[k + 3]);
            if !meet {
                continue;
            }
            let (t2, a2) = masks(b2);
            if (t1 & a2 != 0 || t2 & a1 != 0) && body_ok(b1.min(b2), b1.max(b2)) {
                sweep += 1;
            }
        }
    }
    BroadCounts {
        sweep,
        candidates: candidates(m, &body_ok, &geom_ok),
    }
}

/// True if [`broad_counts`] knows the narrow phase's candidates of model `m`: every body other
/// than the world has at most one collidable geom, a sphere, the world at most one, a sphere or
/// a plane, no collidable geom has a gap, and there is no explicit `pair`.
pub fn candidates_known(m: &Model) -> bool {
    let ngeom = m.ngeom.min(m.geom_bodyid.len());
    let mut last = None;
    m.npair == 0
        && (0..ngeom)
            .filter(|&g| m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0)
            .all(|g| {
                let b = m.geom_bodyid[g];
                // compiled models number geoms in body order: a second geom of a body follows
                let first = last.replace(b) != Some(b);
                first
                    && m.geom_gap[g] == 0.0
                    && (m.geom_type[g] == GeomType::Sphere
                        || (m.geom_type[g] == GeomType::Plane && b == 0))
            })
        && m.geom_bodyid[..ngeom].windows(2).all(|w| w[0] <= w[1])
}

/// The narrow phase's candidates when [`candidates_known`].
fn candidates(
    m: &Model,
    body_ok: &impl Fn(usize, usize) -> bool,
    geom_ok: &impl Fn(usize, usize) -> bool,
) -> Option<u128> {
    if !candidates_known(m) {
        return None;
    }
    let ngeom = m.ngeom.min(m.geom_bodyid.len());
    let collidable = |g: usize| m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0;
    let mut count = 0u128;
    for g1 in (0..ngeom).filter(|&g| collidable(g)) {
        for g2 in (g1 + 1..ngeom).filter(|&g| collidable(g)) {
            let (b1, b2) = (m.geom_bodyid[g1], m.geom_bodyid[g2]);
            if body_ok(b1.min(b2), b1.max(b2)) && geom_ok(g1, g2) {
                count += 1;
            }
        }
    }
    Some(count)
}
