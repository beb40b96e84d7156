//! The `f64` work of the convex colliders kept for repeated dual runs of one pair at the same
//! `f64` poses ([`super::scratch::CollisionScratch::reuse_f64`]): the feature classifications
//! of [`super::cvxdiff`] and the search results of [`super::convex`]. Fixed-size, no
//! allocation; the lookups are beside the code that fills them.

use super::shape::ConvexContact;
use nalgebra::Vector3;

type V3 = Vector3<f64>;

/// The supporting feature of one side's core (local frame).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Feat {
    /// A fixed point (polytope vertex, sphere centre, capsule end).
    Vertex(V3),
    /// A smooth support point (ellipsoid, cylinder rim; `f64`: the sign of the rim's z).
    Smooth(f64),
    /// A segment (polytope edge, capsule or cylinder side axis).
    Edge(V3, V3),
    /// A face: outward unit normal and a point on it.
    Face(V3, V3),
}

/// Most classifications a [`FeatMemo`] keeps (two per contact; a pair has at most a few
/// single contacts).
pub(super) const MEMO: usize = 16;

/// The features [`super::cvxdiff`]'s classification found, kept while on ([`super::scratch::CollisionScratch::reuse_f64`])
/// for repeated dual runs of one pair at the same `f64` poses (one run per derivative
/// direction): the classification depends only on the `f64` inputs, which those runs share.
/// Keyed by geom and the exact bits of the `f64` rotation and direction, so a hit returns what
/// the classification would. Fixed size: no allocation.
#[derive(Clone)]
pub(crate) struct FeatMemo {
    pub(super) on: bool,
    pub(super) n: usize,
    pub(super) next: usize,
    pub(super) keys: [(usize, [u64; 12]); MEMO],
    pub(super) vals: [(Feat, f64); MEMO],
}

impl Default for FeatMemo {
    fn default() -> Self {
        FeatMemo {
            on: false,
            n: 0,
            next: 0,
            keys: [(0, [0; 12]); MEMO],
            vals: [(Feat::Vertex(V3::zeros()), 0.0); MEMO],
        }
    }
}

impl FeatMemo {
    /// Turns the memo on or off; either forgets what it kept.
    pub(crate) fn set(&mut self, on: bool) {
        self.on = on;
        self.n = 0;
        self.next = 0;
    }
}

/// The vertex indices of the last EPA face on geom 0 and geom 1 (the touching features).
pub(super) type Features = [[i32; 3]; 2];

/// The support points on geom 0 and geom 1 of the native search's final EPA face's first
/// vertex ([`super::native`]'s search): a cylinder's side line passes through its point.
pub(super) type Aim = Option<[V3; 2]>;

/// Most searches a [`SearchMemo`] keeps.
pub(super) const SEARCHES: usize = 4;

/// The `f64` results of [`super::convex`]'s pair search, kept while on
/// ([`super::scratch::CollisionScratch::reuse_f64`]) for repeated dual runs of one pair at the same `f64` poses
/// (one run per derivative direction): the search reads only the `f64` values, which those runs
/// share. Keyed by the geoms, the cutoff and the exact bits of both `f64` poses, so a hit
/// returns what the search would. Fixed size: no allocation.
#[derive(Clone, Default)]
pub(crate) struct SearchMemo {
    pub(super) on: bool,
    pub(super) n: usize,
    pub(super) next: usize,
    pub(super) keys: [([usize; 2], [u64; 25]); SEARCHES],
    pub(super) vals: [Option<(ConvexContact, Option<Features>, Aim)>; SEARCHES],
}

impl SearchMemo {
    /// Turns the memo on or off; either forgets what it kept.
    pub(crate) fn set(&mut self, on: bool) {
        self.on = on;
        self.n = 0;
        self.next = 0;
    }

    /// Whether it keeps the searches.
    pub(crate) fn on(&self) -> bool {
        self.on
    }
}
