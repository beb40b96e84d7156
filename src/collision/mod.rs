//! Collision detection (`mj_collision`): broad phase, filters, narrow phase, contact parameters.
//!
//! Computation "Collision detection": candidate geom pairs come from a sweep-and-prune broad phase
//! and from the explicit `pair` list; body-pair candidates pass the filters (contype/conaffinity,
//! same/welded body, parent–child, `exclude`), all candidates pass the bounding-sphere test and
//! the oriented-box test (mid-phase) with margin, and the narrow phase writes contacts with MuJoCo's conventions
//! (docs/mujoco-behaviour.md#contacts): signed distance, point midway between the surfaces, frame
//! rows (normal from geom 0 to geom 1, tangent 1, tangent 2). Contacts are listed up to `margin +
//! gap` and active below `margin`.
//!
//! Primitive colliders ([`primitive`], [`boxes`]) are generic over [`Scalar`] so dual numbers
//! propagate through them; the convex (GJK/EPA, multi-contact, plane–convex) paths search in
//! `f64` and re-evaluate each contact from its features in the scalar ([`cvxdiff`]: `f64`
//! values, exact derivative parts); so does the height-field path (prisms against convex geoms).

// `!(x <= y)` is deliberate throughout: it rejects NaN distances. Fixed 3-loops index several
// arrays in parallel.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop)]

pub mod boxes;
mod bvh;
pub mod convex;
pub mod cvxdiff;
mod grid;
pub mod hfield;
mod memo;
pub mod meshpoly;
pub mod mpr;
pub mod multiccd;
pub mod native;
pub mod primitive;
pub mod scratch;
pub mod shape;
mod simplex;
pub mod sink;
mod stack;

use scratch::Swept;
pub use scratch::{BroadScratch, CollisionScratch};
pub(crate) use sink::{explicit_pair, f64of, pose};
pub use sink::{frame_from_normal, Sink};
use sink::{ALL_SPACE, NO_SPACE};

use crate::data::{Contact, Data, Warning};
use crate::math::{sc, Scalar};
use crate::model::{disable, enable, GeomType, Model};
use nalgebra::{Matrix3, Vector3};

/// Smallest friction coefficient of a mixed contact (`mjMINMU`).
pub const MINMU: f64 = 1e-5;

/// True if MuJoCo has a collision function for this type pair, in either order: none between
/// two flat geoms (plane, height field) and none for an SDF.
#[inline]
pub fn has_collider(t1: GeomType, t2: GeomType) -> bool {
    use GeomType::*;
    let flat = |t| matches!(t, Plane | Hfield);
    !((flat(t1) && flat(t2)) || t1 == Sdf || t2 == Sdf)
}

/// Narrow phase for one geom pair (Computation "Checking"): pushes the geometric contacts (dist,
/// pos, frame, geom; default parameters) with `dist <= margin` into `out`, up to
/// `Data::nconmax` contacts. The geom with the lower type becomes `geom[0]`. Returns (contacts added, capacity
/// exceeded).
pub fn collide_geoms<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    g1: usize,
    g2: usize,
    margin: f64,
    out: &mut Vec<Contact<T>>,
    scratch: &mut CollisionScratch,
) -> (usize, bool) {
    let (added, dropped) = collide_checked(m, d, [g1, g2], margin, out, scratch, false);
    (added, dropped > 0)
}

/// [`collide_geoms`], returning (contacts added, contacts dropped); `finite`: both geoms' poses
/// are known to be finite (the broad phase leaves out geoms with non-finite poses), so the
/// narrow phase need not check them again.
fn collide_checked<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    [g1, g2]: [usize; 2],
    margin: f64,
    out: &mut Vec<Contact<T>>,
    scratch: &mut CollisionScratch,
    finite: bool,
) -> (usize, usize) {
    crate::work::add(crate::work::Loop::Narrow, 1);
    let (g1, g2) = if (m.geom_type[g1] as i32) > (m.geom_type[g2] as i32) {
        (g2, g1)
    } else {
        (g1, g2)
    };
    let mut s = Sink {
        out,
        scratch,
        limit: d.nconmax.min(d.ncon_limit),
        margin: sc(margin),
        geom: [g1, g2],
        added: 0,
        dropped: 0,
    };
    narrow(m, d, &mut s, finite);
    (s.added, s.dropped)
}

fn narrow<T: Scalar>(m: &Model, d: &Data<T>, s: &mut Sink<T>, finite: bool) {
    use GeomType::*;
    let [g1, g2] = s.geom;
    let (t1, t2) = (m.geom_type[g1], m.geom_type[g2]);
    if !has_collider(t1, t2) {
        return;
    }
    // Non-finite poses: no contact.
    let ok = finite || (pose_finite(d, g1) && pose_finite(d, g2));
    if !ok {
        return;
    }
    match (t1, t2) {
        (Plane, Sphere) => primitive::plane_sphere(m, d, s),
        (Plane, Capsule) => primitive::plane_capsule(m, d, s),
        (Plane, Cylinder) => primitive::plane_cylinder(m, d, s),
        (Plane, Box) => primitive::plane_box(m, d, s),
        (Plane, Ellipsoid) | (Plane, Mesh) => convex::plane_convex(m, d, s),
        (Hfield, _) => hfield::hfield_convex(m, d, s),
        (Sphere, Sphere) => primitive::sphere_sphere(m, d, s),
        (Sphere, Capsule) => primitive::sphere_capsule(m, d, s),
        (Sphere, Cylinder) => primitive::sphere_cylinder(m, d, s),
        (Sphere, Box) => boxes::sphere_box(m, d, s),
        (Capsule, Capsule) => primitive::capsule_capsule(m, d, s),
        (Capsule, Box) => boxes::capsule_box(m, d, s),
        (Box, Box) => boxes::box_box(m, d, s),
        _ => convex::convex_convex(m, d, s),
    }
}

/// True if geom `g`'s position and orientation are finite.
#[inline]
fn pose_finite<T: Scalar>(d: &Data<T>, g: usize) -> bool {
    d.geom_xpos[g].iter().all(|x| x.is_finite()) && d.geom_xmat[g].iter().all(|x| x.is_finite())
}

/// True if one finite sum of every geom's position and orientation proves them all finite, so
/// no geom needs [`pose_finite`]; false if the sum is not finite (a NaN or infinity among them,
/// or finite numbers whose sum overflows), where each geom is then tested alone.
fn poses_finite<T: Scalar>(d: &Data<T>) -> bool {
    d.geom_xpos
        .iter()
        .flat_map(|p| p.iter())
        .chain(d.geom_xmat.iter().flat_map(|r| r.iter()))
        .fold(T::zero(), |a, &x| a + x)
        .is_finite()
}

/// Contact parameters of a candidate pair: margin, gap and the mixed or explicit parameters.
#[derive(Clone, Copy, Debug)]
struct Params {
    margin: f64,
    gap: f64,
    dim: usize,
    friction: [f64; 5],
    solref: [f64; 2],
    solreffriction: [f64; 2],
    solimp: [f64; 5],
}

/// How a contact between geoms `g1` and `g2` takes its parameters from theirs (Modeling
/// "Contact", parameter mixing; docs/mujoco-behaviour.md#contacts "Mixing").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GeomMix {
    /// The geom of higher `priority`, whose condim, friction, solref and solimp are taken alone.
    Priority(usize),
    /// Equal priorities: the larger condim and friction, and solref (both in the positive
    /// format; else the smaller of each entry) and solimp weighted by this `solmix` weight of
    /// `g1` (`1 −` it of `g2`).
    Mixed(f64),
}

/// The mixing rule of geoms `g1` and `g2`: the higher `priority` wins; at equal priorities
/// `g1`'s weight is `solmix1/(solmix1 + solmix2)`, 0.5 when both are below `mjMINVAL`, 0 or 1
/// when one is.
pub fn geom_mix(m: &Model, g1: usize, g2: usize) -> GeomMix {
    let (p1, p2) = (m.geom_priority[g1], m.geom_priority[g2]);
    if p1 != p2 {
        return GeomMix::Priority(if p1 > p2 { g1 } else { g2 });
    }
    let (s1, s2) = (m.geom_solmix[g1], m.geom_solmix[g2]);
    GeomMix::Mixed(if s1 < 1e-15 && s2 < 1e-15 {
        0.5
    } else if s1 < 1e-15 {
        0.0
    } else if s2 < 1e-15 {
        1.0
    } else {
        s1 / (s1 + s2)
    })
}

/// A contact's `friction` (5 entries: sliding twice, torsional, rolling twice, each at least
/// `mjMINMU`) and `solref` from those of geoms `g1` and `g2` (`friction(g)`, `solref(g)`) by
/// the mixing rule `mix` of [`geom_mix`]: the higher-priority geom's alone; else the larger
/// friction and the `solmix`-weighted solref (the smaller of each entry when either is in the
/// direct, non-positive format). Generic so that dual numbers seeded on one geom's parameter
/// carry the contact's derivative; [`collision`] calls it with the model's values.
pub fn mix_friction_solref<T: Scalar>(
    mix: GeomMix,
    [g1, g2]: [usize; 2],
    friction: impl Fn(usize) -> [T; 3],
    solref: impl Fn(usize) -> [T; 2],
) -> ([T; 5], [T; 2]) {
    let (fr, sr) = match mix {
        GeomMix::Priority(g) => (friction(g), solref(g)),
        GeomMix::Mixed(w) => {
            let (f1, f2) = (friction(g1), friction(g2));
            let (r1, r2) = (solref(g1), solref(g2));
            let (w1, w2): (T, T) = (sc(w), sc(1.0 - w));
            let z = T::zero();
            let sr = if r1[0] > z && r2[0] > z {
                [w1 * r1[0] + w2 * r2[0], w1 * r1[1] + w2 * r2[1]]
            } else {
                [r1[0].min(r2[0]), r1[1].min(r2[1])]
            };
            ([f1[0].max(f2[0]), f1[1].max(f2[1]), f1[2].max(f2[2])], sr)
        }
    };
    let minmu: T = sc(MINMU);
    (
        [fr[0], fr[0], fr[1], fr[2], fr[2]].map(|f| f.max(minmu)),
        sr,
    )
}

/// Mixes the parameters of two geoms (docs/mujoco-behaviour.md#contacts "Mixing"), with `override`
/// applied.
fn mix_params(m: &Model, g1: usize, g2: usize) -> Params {
    let mut p = Params {
        margin: m.geom_margin[g1] + m.geom_margin[g2],
        gap: m.geom_gap[g1] + m.geom_gap[g2],
        dim: 3,
        friction: [0.0; 5],
        solref: [0.0; 2],
        solreffriction: [0.0; 2],
        solimp: [0.0; 5],
    };
    let mix = geom_mix(m, g1, g2);
    match mix {
        GeomMix::Priority(g) => {
            p.dim = m.geom_condim[g];
            p.solimp = m.geom_solimp[g];
        }
        GeomMix::Mixed(w) => {
            p.dim = m.geom_condim[g1].max(m.geom_condim[g2]);
            let (i1, i2) = (m.geom_solimp[g1], m.geom_solimp[g2]);
            for k in 0..5 {
                p.solimp[k] = w * i1[k] + (1.0 - w) * i2[k];
            }
        }
    }
    (p.friction, p.solref) =
        mix_friction_solref(mix, [g1, g2], |g| m.geom_friction[g], |g| m.geom_solref[g]);
    apply_override(m, &mut p);
    p
}

fn pair_params(m: &Model, k: usize) -> Params {
    let mut p = Params {
        margin: m.pair_margin[k],
        gap: m.pair_gap[k],
        dim: m.pair_dim[k],
        friction: m.pair_friction[k],
        solref: m.pair_solref[k],
        solreffriction: m.pair_solreffriction[k],
        solimp: m.pair_solimp[k],
    };
    for f in p.friction.iter_mut() {
        *f = f.max(MINMU);
    }
    apply_override(m, &mut p);
    p
}

fn apply_override(m: &Model, p: &mut Params) {
    if m.opt.enabled(enable::OVERRIDE) {
        p.margin = m.opt.o_margin;
        p.solref = m.opt.o_solref;
        p.solreffriction = m.opt.o_solref;
        p.solimp = m.opt.o_solimp;
        p.friction = m.opt.o_friction;
        for f in p.friction.iter_mut() {
            *f = f.max(MINMU);
        }
    }
}

/// Body-pair filters (Computation "Filtering", items 3–4 minus contype), without `exclude`
/// ([`excluded`]): same or welded body, two bodies without dofs, parent–child unless the parent
/// is the world (filterparent flag).
pub fn body_filter(m: &Model, b1: usize, b2: usize) -> bool {
    let (w1, w2) = (m.body_weldid[b1], m.body_weldid[b2]);
    if w1 == w2 {
        return false;
    }
    // two bodies without degrees of freedom (the world, mocap bodies) make no body-pair
    // contacts (measured on MuJoCo 4.0.0: a mocap sphere on the world's plane or on another
    // mocap sphere gives none; an explicit `<pair>` does)
    let fixed = |w: usize| m.body_dofnum.get(w) == Some(&0);
    if fixed(w1) && fixed(w2) {
        return false;
    }
    if !m.opt.disabled(disable::FILTERPARENT) && w1 != 0 && w2 != 0 {
        let (p1, p2) = (
            m.body_weldid[m.body_parentid[w1]],
            m.body_weldid[m.body_parentid[w2]],
        );
        if p1 == w2 || p2 == w1 {
            return false;
        }
    }
    true
}

/// Whether an `exclude` names the body pair: a binary search of `exclude_signature`, which
/// the compiler leaves sorted ((lower body) << 16 + higher body, as MuJoCo's signature).
fn excluded(m: &Model, b1: usize, b2: usize) -> bool {
    let (lo, hi) = (b1.min(b2) as u32, b1.max(b2) as u32);
    m.exclude_signature
        .binary_search(&((lo << 16) + hi))
        .is_ok()
}

/// Bounding-sphere test with margin (plane: plane–sphere test). False if the pair cannot touch.
fn bound_test<T: Scalar>(m: &Model, d: &Data<T>, g1: usize, g2: usize, margin: f64) -> bool {
    let (p1, p2) = (d.geom_xpos[g1], d.geom_xpos[g2]);
    let (r1, r2) = (m.geom_rbound[g1], m.geom_rbound[g2]);
    let plane1 = m.geom_type[g1] == GeomType::Plane;
    let plane2 = m.geom_type[g2] == GeomType::Plane;
    let ok = match (plane1, plane2) {
        (true, true) => false,
        (true, false) | (false, true) => {
            let (gp, po, r) = if plane1 { (g1, p2, r2) } else { (g2, p1, r1) };
            let n = d.geom_xmat[gp].column(2).into_owned();
            let h = f64of(n.dot(&(po - d.geom_xpos[gp])));
            h <= r + margin
        }
        _ => {
            if r1 <= 0.0 || r2 <= 0.0 {
                // MuJoCo's rbound 0 marks an unbounded geom.
                true
            } else {
                f64of((p1 - p2).norm()) <= r1 + r2 + margin
            }
        }
    };
    ok
}

/// Runs the narrow phase for one candidate that passes the bounding tests ([`bound_test`],
/// [`boxes_near`]) and fills the new contacts with its parameters;
/// `lim` = margin + gap of the parameters, which are computed only for candidates that produce
/// contacts (MuJoCo mixes only for colliding pairs too).
fn process<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    g1: usize,
    g2: usize,
    lim: f64,
    finite: bool,
    params: impl FnOnce() -> Params,
) {
    if bound_test(m, d, g1, g2, lim) && boxes_near(m, d, g1, g2, lim) {
        narrow_pair(m, d, g1, g2, lim, finite, params);
    }
}

/// [`process`] after the bounding test.
#[inline(always)]
fn narrow_pair<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    g1: usize,
    g2: usize,
    lim: f64,
    finite: bool,
    params: impl FnOnce() -> Params,
) {
    let mut out = std::mem::take(&mut d.contact);
    let mut scratch = d.scratch_collision.take().unwrap_or_default();
    let start = out.len();
    let (added, dropped) = collide_checked(m, d, [g1, g2], lim, &mut out, &mut scratch, finite);
    d.scratch_collision = Some(scratch);
    if added > 0 {
        let p = params();
        debug_assert_eq!(lim, p.margin + p.gap);
        fill_params(m, &mut out[start..], p);
    }
    debug_assert_eq!(out.len(), start + added);
    d.contact = out;
    d.ncon_dropped += dropped;
}

/// Gives the contacts `out` of one candidate its parameters `p`.
fn fill_params<T: Scalar>(m: &Model, out: &mut [Contact<T>], p: Params) {
    let impratio = m.opt.impratio.max(1e-15);
    for c in out {
        c.includemargin = p.margin;
        c.friction = p.friction.map(sc);
        c.solref = p.solref.map(sc);
        c.solreffriction = p.solreffriction;
        c.solimp = p.solimp;
        c.dim = p.dim;
        c.exclude = if f64of(c.dist) < p.margin { 0 } else { 1 };
        c.mu = if p.dim > 1 && c.exclude == 0 {
            p.friction[0] / impratio.sqrt()
        } else {
            0.0
        };
        c.efc_address = -1;
    }
}

/// `margin + gap` with which the narrow phase runs for geoms `g1`, `g2` (the explicit pair's
/// parameters if they form one, else the mixed ones), so a caller can reproduce a pair's
/// contacts with [`collide_geoms`] (e.g. on dual numbers, for contact-geometry derivatives).
pub fn pair_limit(m: &Model, g1: usize, g2: usize) -> f64 {
    let p = match explicit_pair(m, g1, g2) {
        Some(k) => pair_params(m, k),
        None => mix_params(m, g1, g2),
    };
    p.margin + p.gap
}

/// True if dual numbers carry the contact geometry's derivatives through the narrow phase of
/// this ordered type pair (`t1 <= t2`): every pair with a collider (the primitive colliders are
/// generic over the scalar, `primitive`, `boxes`; the convex and height-field ones are
/// re-evaluated by `cvxdiff`).
pub fn differentiable(t1: GeomType, t2: GeomType) -> bool {
    has_collider(t1, t2)
}

/// `mj_collision` (Computation "Collision detection"): clears `d.contact` and fills it with the
/// contacts of the explicit pairs and of the broad-phase candidates that pass the filters, in
/// MuJoCo's order (both by body-pair signature, a signature's explicit pairs first).
/// Does nothing if the contact or constraint disable flag is set.
pub fn collision<T: Scalar>(m: &Model, d: &mut Data<T>) {
    collision_with(m, d, None);
}

/// [`collision`] with the broad phase's mode given (`None`: [`BroadMode::for_model`]).
fn collision_with<T: Scalar>(m: &Model, d: &mut Data<T>, mode: Option<BroadMode>) {
    d.contact.clear();
    d.ncon_dropped = 0;
    d.ncon_limit = usize::MAX;
    // `Data::new` reserves `contact_capacity` contacts; a cloned `Data` has lost that reserve
    // (`Vec::clone` keeps only the length), so it is restored once here.
    let reserve = crate::data::contact_capacity(m);
    if d.contact.capacity() < reserve {
        d.contact.reserve_exact(reserve);
    }
    if m.opt.disabled(disable::CONTACT) || m.opt.disabled(disable::CONSTRAINT) {
        return;
    }
    // MuJoCo takes its body-pair list, its broad phase's arrays and its narrow phase's
    // candidates on the arena's stack first: an arena too small for them stops the step with
    // its fatal error
    let finite = poses_finite(d);
    let mut bp = d.scratch_broad.take().unwrap_or_default();
    let counts = || {
        let o_margin = m.opt.enabled(enable::OVERRIDE).then_some(m.opt.o_margin);
        stack::broad_counts(
            m,
            d,
            &mut bp.boxes,
            &mut bp.bodies,
            |b1, b2| body_filter(m, b1, b2),
            |g1, g2| {
                let (t1, a1) = (m.geom_contype[g1], m.geom_conaffinity[g1]);
                let (t2, a2) = (m.geom_contype[g2], m.geom_conaffinity[g2]);
                let lim = o_margin.unwrap_or(m.geom_margin[g1] + m.geom_margin[g2]);
                (t1 & a2 != 0 || t2 & a1 != 0)
                    && (finite || (pose_finite(d, g1) && pose_finite(d, g2)))
                    && bound_test(m, d, g1, g2, lim)
                    && !excluded(m, m.geom_bodyid[g1], m.geom_bodyid[g2])
            },
        )
    };
    let overflow = crate::data::arena::collision_overflow(m, || stack::candidates_known(m), counts);
    d.scratch_broad = Some(bp);
    if let Some(e) = overflow {
        d.stack_overflow = Some(e);
        return;
    }
    let mode = mode.unwrap_or_else(|| BroadMode::for_model(m));
    let sorted = broadphase(m, d, mode, finite);
    // MuJoCo keeps the contacts in its arena: no more than it holds are stored
    d.ncon_limit = reserve;
    // Explicit pairs bypass filters and mixing. MuJoCo's contact order: the explicit pairs
    // (sorted by `pair_signature` at compile time) merged with the candidate body pairs sorted
    // (lower body id, higher body id), a signature's explicit pairs before its body pair
    // (measured on MuJoCo 4.0.0), and within a body pair the geoms of the lower body, then
    // those of the higher, by id.
    let npair = m.npair.min(m.pair_geom1.len());
    let pair_key = |k: usize| {
        ((m.geom_bodyid[m.pair_geom1[k]] as u64) << 32) | m.geom_bodyid[m.pair_geom2[k]] as u64
    };
    let explicit = |d: &mut Data<T>, k: usize| {
        // a pair of bodies neither of which is awake is skipped, as a body pair is (measured
        // on MuJoCo 4.0.0: a sleeping box's explicit pairs with the floor and with the box it
        // rests on give no contacts; a pair with an awake body collides, and its contact wakes
        // the sleeping tree)
        let (b1, b2) = (
            m.geom_bodyid[m.pair_geom1[k]],
            m.geom_bodyid[m.pair_geom2[k]],
        );
        if crate::sleep::pair_idle(m, d, b1, b2) {
            return;
        }
        let p = pair_params(m, k);
        process(
            m,
            d,
            m.pair_geom1[k],
            m.pair_geom2[k],
            p.margin + p.gap,
            finite,
            || p,
        );
    };
    let mut next = 0;
    let mut bp = d.scratch_broad.take().unwrap_or_default();
    if !sorted {
        bp.body_pairs.sort_unstable();
    }
    let (geoms, start, tree) = (&bp.geoms, &bp.body_start, &mut bp.tree);
    let o_margin = m.opt.enabled(enable::OVERRIDE).then_some(m.opt.o_margin);
    for &key in &bp.body_pairs {
        while next < npair && pair_key(next) <= key {
            explicit(d, next);
            next += 1;
        }
        let (b1, b2) = ((key >> 32) as usize, (key & 0xffff_ffff) as usize);
        if crate::sleep::pair_idle(m, d, b1, b2) {
            continue;
        }
        let count = |b: usize| (start[b + 1] - start[b]) as usize;
        if tree.active
            && count(b1) * count(b2) > bvh::TREE_MIN_PAIRS
            && bvh::fit(m, d, geoms, start, o_margin, b1, tree)
            && bvh::fit(m, d, geoms, start, o_margin, b2, tree)
        {
            // the midphase: only the geom pairs whose leaf boxes overlap, in the same order
            bvh::leaf_pairs(m, b1, b2, tree);
            crate::work::add(crate::work::Loop::GeomTests, tree.pairs.len());
            let mut exclusion_checked = m.exclude_signature.is_empty();
            for &p in &tree.pairs {
                let (i1, i2) = (
                    tree.swept_of[(p >> 32) as usize],
                    tree.swept_of[p as u32 as usize],
                );
                if i1 == u32::MAX || i2 == u32::MAX {
                    continue;
                }
                let (s1, s2) = (&geoms[i1 as usize], &geoms[i2 as usize]);
                if let Some((a, b, lim)) = geom_pair_passes(m, s1, s2, o_margin) {
                    if !exclusion_checked {
                        exclusion_checked = true;
                        if excluded(m, b1, b2) {
                            break;
                        }
                    }
                    candidate(m, d, a, b, lim);
                }
            }
            continue;
        }
        let list2 = &geoms[start[b2] as usize..start[b2 + 1] as usize];
        // `exclude` is looked up only once a geom pair of the bodies passes (the geom tests
        // have no side effects, so the outcome is the same as filtering the body pair first)
        let mut exclusion_checked = m.exclude_signature.is_empty();
        'pair: for s1 in &geoms[start[b1] as usize..start[b1 + 1] as usize] {
            crate::work::add(crate::work::Loop::GeomTests, list2.len());
            for s2 in list2 {
                if let Some((a, b, lim)) = geom_pair_passes(m, s1, s2, o_margin) {
                    if !exclusion_checked {
                        exclusion_checked = true;
                        if excluded(m, b1, b2) {
                            break 'pair;
                        }
                    }
                    candidate(m, d, a, b, lim);
                }
            }
        }
    }
    for k in next..npair {
        explicit(d, k);
    }
    d.scratch_broad = Some(bp);
    // a pass keeps the first contacts that fit beside what the collision holds on the stack
    // and warns once with the number it found (mjWARN_CONTACTFULL, as measured on MuJoCo)
    let found = d.contact.len() + d.ncon_dropped;
    let kept = crate::data::arena::contacts_kept(m, found);
    if kept < found || d.ncon_dropped > 0 {
        d.contact.truncate(kept);
        d.warn(Warning::ContactFull, found as i64);
    }
}

/// The broad-phase tests of two swept geoms on bodies that passed [`body_filter`], cheapest
/// first: contype/conaffinity (Computation "Filtering"), a collider for the type pair, the sweep's interval overlap (as
/// in the list sorted by lower end, then id), not an explicit `pair`, and the bounding test
/// ([`bound_test`]) with the mixed margin and gap. Gives the geoms in id order and that limit.
#[inline(always)]
fn geom_pair_passes(
    m: &Model,
    s1: &Swept,
    s2: &Swept,
    o_margin: Option<f64>,
) -> Option<(usize, usize, f64)> {
    if (s1.contype & s2.conaffinity) == 0 && (s2.contype & s1.conaffinity) == 0 {
        return None;
    }
    if !has_collider(s1.ty, s2.ty) {
        return None;
    }
    // (infinite intervals, as every geom has when the broad phase pairs all bodies, overlap)
    let overlap = s1.lo == f64::NEG_INFINITY
        || s2.lo == f64::NEG_INFINITY
        || match s1.lo.total_cmp(&s2.lo).then(s1.id.cmp(&s2.id)) {
            std::cmp::Ordering::Greater => s1.lo <= s2.hi,
            _ => s2.lo <= s1.hi,
        };
    if !overlap {
        return None;
    }
    let (s1, s2) = if s1.id < s2.id { (s1, s2) } else { (s2, s1) };
    let (a, b) = (s1.id as usize, s2.id as usize);
    if m.npair > 0 && explicit_pair(m, a, b).is_some() {
        return None;
    }
    // `mixed_lim`
    let margin = o_margin.unwrap_or(s1.margin + s2.margin);
    let lim = margin + (s1.gap + s2.gap);
    let near = if s1.ty == GeomType::Plane || s2.ty == GeomType::Plane {
        // [`bound_test`]'s plane–sphere test on the swept copies: the other geom's centre
        // above the plane, along its normal, within its bounding radius plus the limit
        match (s1.ty == GeomType::Plane, s2.ty == GeomType::Plane) {
            (true, true) => false,
            (true, false) => s1.normal.dot(&(s2.pos - s1.pos)) <= s2.rbound + lim,
            _ => s2.normal.dot(&(s1.pos - s2.pos)) <= s1.rbound + lim,
        }
    } else if s1.rbound <= 0.0 || s2.rbound <= 0.0 {
        true
    } else {
        (s1.pos - s2.pos).norm() <= s1.rbound + s2.rbound + lim
    };
    near.then_some((a, b, lim))
}

/// margin + gap of the mixed parameters of a broad-phase pair ([`mix_params`]), the bounding
/// test's and the narrow phase's limit.
fn mixed_lim(m: &Model, g1: usize, g2: usize) -> f64 {
    let margin = if m.opt.enabled(enable::OVERRIDE) {
        m.opt.o_margin
    } else {
        m.geom_margin[g1] + m.geom_margin[g2]
    };
    margin + (m.geom_gap[g1] + m.geom_gap[g2])
}

/// A broad-phase pair that passed the filters and the bounding test: the narrow phase with
/// limit `lim` ([`mixed_lim`]) if the geoms' oriented boxes come within it ([`boxes_near`]).
#[inline(always)]
fn candidate<T: Scalar>(m: &Model, d: &mut Data<T>, g1: usize, g2: usize, lim: f64) {
    debug_assert_eq!(lim, mixed_lim(m, g1, g2));
    if !boxes_near(m, d, g1, g2, lim) {
        return;
    }
    // the broad phase keeps only geoms with finite poses
    narrow_pair(m, d, g1, g2, lim, true, || mix_params(m, g1, g2));
}

/// The mid-phase's test of two geoms (Computation "Collision detection": MuJoCo prunes the geom
/// pairs of a body pair by a separating-axis test of oriented bounding boxes, `mj_collideOBB`):
/// false if the boxes `geom_aabb` (centre and half-sizes in the geom frame), posed by
/// `geom_xpos`/`geom_xmat`, are farther apart than `lim` along one of their six face normals.
/// Each geom lies inside its box, and every collider lists a contact only when the surfaces
/// come within `lim`, so a pair this test rejects has no contact: the contacts and their order
/// are those without it. The test is widened by `SLACK` of the boxes' extents and distance,
/// more than the round-off of the boxes (a mesh's box bounds its vertices before they are
/// rounded to float32, 6e-8 relative) and of the projections. Planes (unbounded) and geoms
/// without a box always pass.
fn boxes_near<T: Scalar>(m: &Model, d: &Data<T>, g1: usize, g2: usize, lim: f64) -> bool {
    /// Relative widening of the test (see above).
    const SLACK: f64 = 1e-6;
    if m.geom_type[g1] == GeomType::Plane || m.geom_type[g2] == GeomType::Plane {
        return true;
    }
    // (a model assembled without boxes is not pruned)
    let (Some(b1), Some(b2)) = (m.geom_aabb.get(g1), m.geom_aabb.get(g2)) else {
        return true;
    };
    let r1 = d.geom_xmat[g1].map(|x| f64of(x));
    let r2 = d.geom_xmat[g2].map(|x| f64of(x));
    let c1 = d.geom_xpos[g1].map(|x| f64of(x)) + r1 * Vector3::new(b1[0], b1[1], b1[2]);
    let c2 = d.geom_xpos[g2].map(|x| f64of(x)) + r2 * Vector3::new(b2[0], b2[1], b2[2]);
    let t = c2 - c1;
    let (h1, h2) = ([b1[3], b1[4], b1[5]], [b2[3], b2[4], b2[5]]);
    let reach = lim + SLACK * (h1[0] + h1[1] + h1[2] + h2[0] + h2[1] + h2[2] + t.abs().sum());
    // |r1ᵀ r2|: the cosines between the two frames' axes
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = r1.column(i).dot(&r2.column(j)).abs();
        }
    }
    for i in 0..3 {
        // along geom 1's axis i, then along geom 2's axis i
        let e2 = h2[0] * c[i][0] + h2[1] * c[i][1] + h2[2] * c[i][2];
        if r1.column(i).dot(&t).abs() > h1[i] + e2 + reach {
            return false;
        }
        let e1 = h1[0] * c[0][i] + h1[1] * c[1][i] + h1[2] * c[2][i];
        if r2.column(i).dot(&t).abs() > h2[i] + e1 + reach {
            return false;
        }
    }
    true
}

/// Up to this many collidable geoms the broad phase pairs every body with every other instead
/// of sweeping (see [`broadphase`]): the sweep axis and the two sorts cost more than the pairs
/// they save. Chosen by measured crossover (docs/performance.md, "The broad phase of small
/// models": 14 geoms are cheaper paired, 18 swept).
const ALL_PAIRS_MAX_GEOMS: usize = 16;

/// Up to this many collidable geoms the sweep runs along the coordinate axis in which the geom
/// centres spread most instead of their principal axis: the axis only prunes (the bounding test
/// decides, see [`broadphase`]), and the 3 × 3 eigen decomposition costs more than it saves on
/// a model of this size.
const COORDINATE_AXIS_MAX_GEOMS: usize = 32;

/// How [`broadphase`] finds its body pairs.
#[derive(Clone, Copy, Debug)]
struct BroadMode {
    /// Sweep and prune (else every body pair).
    sweep: bool,
    /// Sweep along the coordinate axis of the largest spread (else the principal axis).
    coordinate_axis: bool,
}

impl BroadMode {
    /// The mode for model `m`: every body pair up to [`ALL_PAIRS_MAX_GEOMS`] collidable geoms
    /// (`Model::ngeom_collidable`; unless `override` is on), the coordinate axis up to
    /// [`COORDINATE_AXIS_MAX_GEOMS`].
    fn for_model(m: &Model) -> Self {
        let n = m.ngeom_collidable;
        BroadMode {
            sweep: m.opt.enabled(enable::OVERRIDE) || n > ALL_PAIRS_MAX_GEOMS,
            coordinate_axis: n <= COORDINATE_AXIS_MAX_GEOMS,
        }
    }
}

/// Principal axis of the centres of the bounded collidable geoms (x if there is no such axis).
/// With `coordinate`, the coordinate axis of the largest spread instead (the first of equals).
fn principal_axis<T: Scalar>(m: &Model, d: &Data<T>, coordinate: bool) -> Vector3<f64> {
    let mut mean = Vector3::<f64>::zeros();
    let mut n = 0.0;
    let center = |g: usize| d.geom_xpos[g].map(|x| f64of(x));
    let bounded = |g: usize| collidable(m, g) && m.geom_type[g] != GeomType::Plane;
    for g in 0..m.ngeom {
        if bounded(g) {
            mean += center(g);
            n += 1.0;
        }
    }
    let mut axis = Vector3::new(1.0, 0.0, 0.0);
    if n > 1.0 && coordinate {
        mean /= n;
        let mut var = Vector3::<f64>::zeros();
        for g in 0..m.ngeom {
            if bounded(g) {
                var += (center(g) - mean).map(|x| x * x);
            }
        }
        let k = if var[1] > var[0] { 1 } else { 0 };
        let k = if var[2] > var[k] { 2 } else { k };
        axis = Vector3::zeros();
        axis[k] = 1.0;
    } else if n > 1.0 {
        mean /= n;
        let mut cov = Matrix3::<f64>::zeros();
        for g in 0..m.ngeom {
            if bounded(g) {
                let c = center(g) - mean;
                cov += c * c.transpose();
            }
        }
        if cov.iter().all(|x| x.is_finite()) {
            let e = nalgebra::SymmetricEigen::new(cov);
            let k = e.eigenvalues.imax();
            let v = e.eigenvectors.column(k).into_owned();
            if v.norm() > 0.5 {
                axis = v;
            }
        }
    }
    axis
}

/// Geom `g` takes part in collisions (contype or conaffinity nonzero).
#[inline]
fn collidable(m: &Model, g: usize) -> bool {
    m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0
}

/// Sweep and prune (Computation "Collision detection", broad phase): the intervals of the
/// collidable geoms' bounding spheres (plus margin and gap) projected on the principal axis of
/// the geom centres (with at most [`COORDINATE_AXIS_MAX_GEOMS`] of them, on the coordinate axis
/// in which they spread most), grouped by body; each body's interval is the union of its geoms'; the
/// bodies are swept in the order of their lower ends, and the overlapping body pairs that pass
/// [`body_filter`] are left in `d.scratch_broad`. Planes get an infinite interval. Geoms with a
/// non-finite pose are left out (the narrow phase gives them no contact); `finite`: every geom's
/// pose is known to be finite ([`poses_finite`]), so none is tested alone.
///
/// With at most [`ALL_PAIRS_MAX_GEOMS`] collidable geoms (and no `override`, whose margin can
/// exceed the geoms' own), every body pair is a candidate and every geom gets an infinite
/// interval: in exact arithmetic the interval test is implied by the bounding test
/// ([`geom_pair_passes`]: the projections of two centres on a unit axis are no farther apart
/// than the centres; the same holds for any axis, which therefore only prunes), so the same pairs reach
/// the narrow phase, and the body pairs come out in MuJoCo's order without a sort. Returns
/// whether `body_pairs` is sorted.
fn broadphase<T: Scalar>(m: &Model, d: &mut Data<T>, mode: BroadMode, finite: bool) -> bool {
    let mut bp = d.scratch_broad.take().unwrap_or_default();
    let center = |g: usize| d.geom_xpos[g].map(|x| f64of(x));
    let sweep = mode.sweep;
    let axis = if sweep {
        principal_axis(m, d, mode.coordinate_axis)
    } else {
        Vector3::zeros()
    };
    // The geoms' intervals, grouped by body (compiled models number geoms in body order).
    let BroadScratch {
        geoms,
        body_start,
        bodies,
        boxes,
        body_pairs,
        grid,
        tree,
    } = &mut *bp;
    geoms.clear();
    body_start.clear();
    body_start.resize(m.nbody + 1, 0);
    let mut grouped = true;
    for g in 0..m.ngeom {
        if !collidable(m, g) || !(finite || pose_finite(d, g)) {
            continue;
        }
        let lim = m.geom_margin[g] + m.geom_gap[g];
        let pos = center(g);
        let (lo, hi) = if !sweep || m.geom_type[g] == GeomType::Plane || m.geom_rbound[g] <= 0.0 {
            (f64::NEG_INFINITY, f64::INFINITY)
        } else {
            let c = pos.dot(&axis);
            if !c.is_finite() {
                continue;
            }
            let r = m.geom_rbound[g] + lim;
            (c - r, c + r)
        };
        let normal = if m.geom_type[g] == GeomType::Plane {
            d.geom_xmat[g].column(2).map(|x| f64of(x))
        } else {
            Vector3::zeros()
        };
        let body = m.geom_bodyid[g];
        grouped &= geoms.last().is_none_or(|l: &Swept| l.body as usize <= body);
        geoms.push(Swept {
            lo,
            hi,
            pos,
            normal,
            rbound: m.geom_rbound[g],
            margin: m.geom_margin[g],
            gap: m.geom_gap[g],
            contype: m.geom_contype[g],
            conaffinity: m.geom_conaffinity[g],
            id: g as u32,
            body: body as u32,
            ty: m.geom_type[g],
        });
        body_start[body + 1] += 1;
    }
    if !grouped {
        geoms.sort_unstable_by_key(|s| (s.body, s.id));
    }
    for b in 0..m.nbody {
        body_start[b + 1] += body_start[b];
    }
    body_pairs.clear();
    // the midphase's trees, on swept models whose poses are all finite
    bvh::begin(m, geoms, sweep && finite, tree);
    if !sweep {
        // every pair of bodies with swept geoms, in (lower, higher) order
        for b1 in 0..m.nbody {
            if body_start[b1] == body_start[b1 + 1] {
                continue;
            }
            crate::work::add(crate::work::Loop::BroadPairs, m.nbody - b1 - 1);
            for b2 in b1 + 1..m.nbody {
                if body_start[b2] != body_start[b2 + 1] && body_filter(m, b1, b2) {
                    body_pairs.push(((b1 as u64) << 32) | b2 as u64);
                }
            }
        }
        d.scratch_broad = Some(bp);
        return true;
    }
    // The bodies' intervals (the upper end also covers each geom's lower end, so a geom pair
    // that the sweep would pair has its bodies paired here), swept in order of their lower end.
    bodies.clear();
    boxes.clear();
    boxes.resize(m.nbody, ALL_SPACE);
    for b in 0..m.nbody {
        let list = &geoms[body_start[b] as usize..body_start[b + 1] as usize];
        if let Some(f) = list.first() {
            let (lo, hi) = list[1..].iter().fold((f.lo, f.hi.max(f.lo)), |(l, h), s| {
                (l.min(s.lo), h.max(s.hi).max(s.lo))
            });
            bodies.push((lo, hi, b as u32));
            boxes[b] = body_box(list);
        }
    }
    // `override` may widen the pairs' margin beyond the geoms' own, which the boxes hold
    let prune = !m.opt.enabled(enable::OVERRIDE);
    // many bodies: a grid finds the same pairs in linear time where the sweep's intervals
    // overlap in many more (a lattice); few: the sweep is cheaper
    if prune
        && bodies.len() > grid::MIN_BODIES
        && grid::grid_pairs(
            m.nbody,
            |a, b| body_filter(m, a, b),
            bodies,
            boxes,
            grid,
            body_pairs,
        )
    {
        d.scratch_broad = Some(bp);
        return false;
    }
    sweep_pairs(m, bodies, boxes, prune, body_pairs);
    d.scratch_broad = Some(bp);
    false
}

/// The sweep: sorts `bodies` ((interval low, high, body)) by their lower ends and pushes onto
/// `out` (unsorted) the pairs `lower << 32 | higher` whose intervals overlap, whose boxes
/// overlap (with `prune`) and that pass [`body_filter`].
fn sweep_pairs(
    m: &Model,
    bodies: &mut [(f64, f64, u32)],
    boxes: &[[f64; 6]],
    prune: bool,
    out: &mut Vec<u64>,
) {
    bodies.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
    for (i, &(_, hi, b1)) in bodies.iter().enumerate() {
        for &(_, _, b2) in bodies[i + 1..].iter().take_while(|e| e.0 <= hi) {
            crate::work::add(crate::work::Loop::BroadPairs, 1);
            let (x, y) = (&boxes[b1 as usize], &boxes[b2 as usize]);
            if prune && (0..3).any(|k| x[k] > y[k + 3] || y[k] > x[k + 3]) {
                continue;
            }
            let (lo, hi) = (b1.min(b2), b1.max(b2));
            if body_filter(m, lo as usize, hi as usize) {
                out.push(((lo as u64) << 32) | hi as u64);
            }
        }
    }
}

/// The box (low x, y, z, high x, y, z) around the bounding spheres of a body's swept geoms,
/// each widened by its margin and gap, and all by a relative 1e-9 against round-off; infinite
/// for a plane or a geom without a bounding radius. Two bodies whose boxes are apart have no
/// geom pair that passes the bounding test of [`geom_pair_passes`] (the centres' distance is
/// at least their distance along any axis), so the sweep leaves them out: it prunes along one
/// axis, the boxes along all three (a lattice of n bodies overlaps on the sweep axis in
/// ~n^(5/3) body pairs, of which the boxes keep the neighbours).
fn body_box(list: &[Swept]) -> [f64; 6] {
    let mut bx = NO_SPACE;
    for s in list {
        if s.ty == GeomType::Plane || s.rbound <= 0.0 {
            return ALL_SPACE;
        }
        let h = s.rbound + s.margin + s.gap;
        for k in 0..3 {
            let e = 1e-9 * (h.abs() + s.pos[k].abs());
            bx[k] = bx[k].min(s.pos[k] - h - e);
            bx[k + 3] = bx[k + 3].max(s.pos[k] + h + e);
        }
    }
    bx
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two free bodies with one geom each of the given types (sizes `sz`).
    fn model(types: [GeomType; 2], sz: [[f64; 3]; 2]) -> Model {
        let mut m = Model {
            nbody: 3,
            ngeom: 2,
            ..Default::default()
        };
        m.body_parentid = vec![0, 0, 0];
        m.body_rootid = vec![0, 1, 2];
        m.body_weldid = vec![0, 1, 2];
        m.body_mocapid = vec![-1; 3];
        m.geom_type = types.to_vec();
        m.geom_size = sz.to_vec();
        m.geom_bodyid = vec![1, 2];
        m.geom_contype = vec![1, 1];
        m.geom_conaffinity = vec![1, 1];
        m.geom_condim = vec![3, 3];
        m.geom_dataid = vec![-1, -1];
        m.geom_priority = vec![0, 0];
        m.geom_solmix = vec![1.0, 1.0];
        m.geom_solref = vec![[0.02, 1.0]; 2];
        m.geom_solimp = vec![[0.9, 0.95, 0.001, 0.5, 2.0]; 2];
        m.geom_friction = vec![[1.0, 0.005, 1e-4]; 2];
        m.geom_margin = vec![0.0; 2];
        m.geom_gap = vec![0.0; 2];
        m.geom_rbound = sz
            .iter()
            .map(|s| (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt())
            .collect();
        m
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        use GeomType::*;
        let kinds = [Sphere, Capsule, Ellipsoid, Cylinder, Box];
        for &t1 in &kinds {
            for &t2 in &kinds {
                for sz in [[0.0; 3], [0.1, 0.2, 0.3]] {
                    let m = model([t1, t2], [sz, [0.1, 0.1, 0.1]]);
                    let mut d: Data<f64> = Data::new(&m);
                    // coincident centres
                    collision(&m, &mut d);
                    for c in &d.contact {
                        assert!(c.dist.is_finite() && c.frame.iter().all(|x| x.is_finite()));
                    }
                    // NaN pose: no contact
                    d.geom_xpos[1] = Vector3::new(f64::NAN, 0.0, 0.0);
                    collision(&m, &mut d);
                    assert!(d.contact.is_empty());
                    d.geom_xmat[0][(0, 0)] = f64::NAN;
                    d.geom_xpos[1] = Vector3::zeros();
                    collision(&m, &mut d);
                    assert!(d.contact.is_empty());
                }
            }
        }
    }

    /// The three ways of finding body pairs (every pair; a sweep along the coordinate axis of
    /// the largest spread; a sweep along the principal axis) give the same contacts in the same
    /// order, bit for bit, along a humanoid's fall (floor and self contacts).
    /// The midphase's trees ([`bvh`]) leave the contacts and their order as they are: a world
    /// of 20 static boxes and a plane, and two tumbling bodies of 5 geoms each with margins
    /// (contacts within the margin need the widened boxes), stepped with the trees and
    /// compared at every step with the same state collided without them.
    #[test]
    fn geom_trees_give_the_same_contacts() {
        let mut xml = String::from(
            r#"<mujoco><option timestep="0.004"/><worldbody><geom type="plane" size="4 4 .1"/>"#,
        );
        for i in 0..20 {
            let (x, y) = ((i % 5) as f64 * 0.3 - 0.6, (i / 5) as f64 * 0.3 - 0.45);
            xml += &format!(
                r#"<geom type="box" size=".1 .08 .05" pos="{x} {y} .05" euler="0 0 {}"/>"#,
                7 * i
            );
        }
        for (k, z) in [(0, 0.5), (1, 0.9)] {
            xml += &format!(
                r#"<body pos="{} 0 {z}" euler="{} 20 0"><freejoint/>
                <geom type="box" size=".08 .05 .04" margin=".02"/>
                <geom type="sphere" size=".05" pos=".15 0 0" margin=".01"/>
                <geom type="capsule" size=".03 .08" pos="0 .15 0" euler="90 0 0"/>
                <geom type="box" size=".04 .04 .04" pos="-.15 0 0" gap=".01" margin=".03"/>
                <geom type="ellipsoid" size=".05 .03 .04" pos="0 -.15 .02"/></body>"#,
                0.2 * k as f64 - 0.1,
                30 * k
            );
        }
        xml += "</worldbody></mujoco>";
        let m = crate::mjcf::load_from_str(&xml, &Default::default()).unwrap();
        assert!(m.geom_tree.max_pairs > bvh::TREE_MIN_PAIRS);
        let mut plain = m.clone();
        plain.geom_tree = crate::model::GeomTree::default();
        let mut d: Data<f64> = Data::new(&m);
        d.qvel[0] = 0.3;
        d.qvel[4] = 2.0;
        d.qvel[9] = 3.0;
        let mut most = 0;
        for step in 0..300 {
            crate::integrator::step(&m, &mut d);
            let (mut e, mut f) = (d.clone(), d.clone());
            collision(&plain, &mut e);
            collision(&m, &mut f);
            assert_eq!(
                format!("{:?}", f.contact),
                format!("{:?}", e.contact),
                "step {step}"
            );
            most = most.max(f.contact.len());
        }
        assert!(most >= 8, "the bodies land on the boxes ({most})");
    }

    /// The midphase follows edits of a static body's geoms on a live model (as from Python's
    /// `geom_pos`, `geom_margin`, `geom_aabb`): from a `Data` stepped with the unedited model,
    /// a world box moved onto a falling body, a world box given a large margin and a world box
    /// whose `geom_aabb` is set right after its size grew each give the contacts of the same
    /// model collided without the trees, and the edited geom is in them. This guards any reuse
    /// of the world's boxes from step to step: with a cache checked only on the poses, the
    /// margin and `geom_aabb` cases fail.
    #[test]
    fn static_geom_edits_give_the_same_contacts() {
        let mut xml = String::from(r#"<mujoco><option timestep="0.004"/><worldbody>"#);
        for i in 0..20 {
            let (x, y) = ((i % 5) as f64 * 0.6 - 1.2, (i / 5) as f64 * 0.6 - 0.9);
            xml += &format!(r#"<geom type="box" size=".1 .08 .05" pos="{x} {y} .05"/>"#);
        }
        // a world geom above the boxes, so that the world's box holds the falling body and its
        // tree is refit while nothing touches
        xml += r#"<geom type="sphere" size=".05" pos="0 0 2"/><body pos=".3 .3 1"><freejoint/>
            <geom type="box" size=".08 .05 .04"/><geom type="sphere" size=".05" pos=".15 0 0"/>
            <geom type="capsule" size=".03 .08" pos="0 .15 0"/>
            <geom type="box" size=".04 .04 .04" pos="-.15 0 0"/>
            <geom type="ellipsoid" size=".05 .03 .04" pos="0 -.15 .02"/></body>
            </worldbody></mujoco>"#;
        let m = crate::mjcf::load_from_str(&xml, &Default::default()).unwrap();
        assert!(m.geom_tree.max_pairs > bvh::TREE_MIN_PAIRS);
        let mut d: Data<f64> = Data::new(&m);
        for _ in 0..20 {
            crate::integrator::step(&m, &mut d);
        }
        assert!(d.contact.is_empty(), "the body falls far from the boxes");
        // the falling body's first geom, and three world boxes
        let (body_geom, moved, wide, grown) = (21, 3, 7, 12);
        let x: [f64; 3] = d.geom_xpos[body_geom].into();
        let below = move |dz: f64| [x[0], x[1], x[2] - dz];
        // (geom, the model collided just before the edit, the edit)
        type Edit = Box<dyn Fn(&mut Model)>;
        let edits: [(usize, Edit, Edit); 3] = [
            // moved onto the body
            (
                moved,
                Box::new(|_: &mut Model| {}),
                Box::new(move |m: &mut Model| m.geom_pos[moved] = below(0.05)),
            ),
            // 0.2 under the body, then given a margin of 0.5 (and a bounding radius that holds
            // the box, so that the broad phase keeps the pair)
            (
                wide,
                Box::new(move |m: &mut Model| {
                    m.geom_pos[wide] = below(0.3);
                    m.geom_rbound[wide] = 0.3;
                }),
                Box::new(move |m: &mut Model| m.geom_margin[wide] = 0.5),
            ),
            // grown into the body with its `geom_aabb` left small, then the box set right
            (
                grown,
                Box::new(move |m: &mut Model| {
                    m.geom_pos[grown] = below(0.15);
                    m.geom_size[grown] = [0.2, 0.2, 0.15];
                    m.geom_rbound[grown] = 0.35;
                }),
                Box::new(move |m: &mut Model| m.geom_aabb[grown] = [0.0, 0.0, 0.0, 0.2, 0.2, 0.15]),
            ),
        ];
        for (g, base, edit) in &edits {
            let mut m1 = m.clone();
            base(&mut m1);
            let mut f = d.clone();
            crate::forward::fwd_position(&m1, &mut f);
            let mut m2 = m1.clone();
            edit(&mut m2);
            let mut plain = m2.clone();
            plain.geom_tree = crate::model::GeomTree::default();
            let mut e = d.clone();
            crate::forward::fwd_position(&plain, &mut e);
            crate::forward::fwd_position(&m2, &mut f);
            assert!(
                e.contact.iter().any(|c| c.geom == [*g, body_geom]),
                "geom {g} touches the body: {:?}",
                e.contact
            );
            assert_eq!(
                format!("{:?}", f.contact),
                format!("{:?}", e.contact),
                "geom {g}"
            );
        }
    }

    #[test]
    fn broad_phase_modes_give_the_same_contacts() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/models/humanoid.xml");
        let m = crate::mjcf::load(path).unwrap();
        let mut d: Data<f64> = Data::new(&m);
        let modes = [
            BroadMode {
                sweep: false,
                coordinate_axis: false,
            },
            BroadMode {
                sweep: true,
                coordinate_axis: true,
            },
            BroadMode {
                sweep: true,
                coordinate_axis: false,
            },
        ];
        let mut most = 0;
        for step in 0..400 {
            for (k, u) in d.ctrl.iter_mut().enumerate() {
                *u = (0.05 * step as f64 + k as f64).sin();
            }
            crate::integrator::step(&m, &mut d);
            if step % 10 != 0 {
                continue;
            }
            let lists: Vec<String> = modes
                .iter()
                .map(|&mode| {
                    let mut e = d.clone();
                    collision_with(&m, &mut e, Some(mode));
                    most = most.max(e.contact.len());
                    format!("{:?}", e.contact)
                })
                .collect();
            assert_eq!(lists[0], lists[1], "step {step}");
            assert_eq!(lists[0], lists[2], "step {step}");
            // the engine's own choice gives the same list
            let mut e = d.clone();
            collision(&m, &mut e);
            assert_eq!(format!("{:?}", e.contact), lists[0], "step {step}");
        }
        assert!(most >= 4, "the fall makes contacts ({most})");
    }

    /// The grid finds the sweep's body pairs: bodies of mixed sizes (up to 30× the median,
    /// some with planes or unbounded boxes) scattered at random, some coincident, compared as
    /// sorted lists.
    #[test]
    fn grid_pairs_equal_the_sweep() {
        let mut m = Model {
            nbody: 400,
            ..Default::default()
        };
        m.body_parentid = vec![0; 400];
        m.body_weldid = (0..400).collect();
        m.body_rootid = (0..400).collect();
        // a deterministic generator (xorshift)
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut rand = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut bodies = Vec::new();
        let mut boxes = vec![ALL_SPACE; 400];
        for b in 1..400u32 {
            let c = [rand() * 4.0, rand() * 4.0, (rand() * 4.0).floor() * 0.25];
            let r = if b % 37 == 0 {
                3.0
            } else {
                0.05 + 0.1 * rand()
            };
            let axis = [0.6, 0.8, 0.0];
            let p: f64 = (0..3).map(|k| c[k] * axis[k]).sum();
            if b % 101 != 0 {
                boxes[b as usize] = [c[0] - r, c[1] - r, c[2] - r, c[0] + r, c[1] + r, c[2] + r];
            }
            let (lo, hi) = if b % 101 == 0 {
                (f64::NEG_INFINITY, f64::INFINITY)
            } else {
                (p - r, p + r)
            };
            bodies.push((lo, hi, b));
        }
        let mut grid = grid::GridScratch::default();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let filter = |a, b| body_filter(&m, a, b);
        assert!(grid::grid_pairs(
            400, filter, &bodies, &boxes, &mut grid, &mut a
        ));
        sweep_pairs(&m, &mut bodies, &boxes, true, &mut b);
        a.sort_unstable();
        b.sort_unstable();
        assert!(b.len() > 1000, "{} pairs", b.len());
        assert_eq!(a, b);
    }

    #[test]
    fn capacity_is_respected() {
        let m = model([GeomType::Box, GeomType::Box], [[0.1; 3], [0.1; 3]]);
        let mut d: Data<f64> = Data::new(&m);
        d.nconmax = 2;
        // a new Data's poses are zeros, as MuJoCo's: the geoms axis-aligned
        d.geom_xmat.fill(Matrix3::identity());
        d.geom_xpos[1] = Vector3::new(0.0, 0.0, 0.15);
        collision(&m, &mut d);
        assert_eq!(d.contact.len(), 2);
        assert_eq!(d.warning[Warning::ContactFull as usize].number, 1);
    }

    #[test]
    fn duals_flow_through_sphere_plane() {
        use num_dual::Dual64;
        let mut m = model(
            [GeomType::Plane, GeomType::Sphere],
            [[1.0, 1.0, 0.1], [0.1, 0.0, 0.0]],
        );
        m.geom_bodyid = vec![0, 1];
        m.geom_rbound = vec![0.0, 0.1];
        let mut d: Data<Dual64> = Data::new(&m);
        d.geom_xmat.fill(Matrix3::identity());
        d.geom_xpos[1] = Vector3::new(Dual64::from(0.0), Dual64::from(0.0), Dual64::new(0.05, 1.0));
        collision(&m, &mut d);
        assert_eq!(d.contact.len(), 1);
        let c = &d.contact[0];
        assert!((c.dist.re + 0.05).abs() < 1e-15 && (c.dist.eps - 1.0).abs() < 1e-15);
    }
}
