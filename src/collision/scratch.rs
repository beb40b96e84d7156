//! The narrow phase's working storage, kept in `Data` between calls: the EPA polytope of the
//! convex search ([`epa`]), the EPA polytope of the height-field prisms ([`prism`]) and the
//! multi-contact patch buffer ([`patch`]), gathered in [`CollisionScratch`], and the broad
//! phase's sweep-and-prune storage ([`BroadScratch`]). Only the storage types live here; the
//! algorithms that fill them are in `mod.rs`, `convex.rs`, `hfield.rs` and `multiccd.rs`.

use crate::model::{GeomType, Model};
use nalgebra::Vector3;

/// The convex search's EPA polytope ([`super::convex`]).
pub(crate) mod epa {
    use nalgebra::Vector3;

    type V3 = Vector3<f64>;

    pub(in crate::collision) const MAXV: usize = 400;
    pub(in crate::collision) const MAXF: usize = 800;

    #[derive(Clone, Copy, Default)]
    pub(in crate::collision) struct Vert {
        pub(in crate::collision) w: V3, // a - b
        pub(in crate::collision) a: V3,
        pub(in crate::collision) b: V3,
    }

    /// A face of the EPA polytope: vertex indices (outward winding) and its plane (unit normal,
    /// offset), None when degenerate.
    #[derive(Clone, Copy)]
    pub(in crate::collision) struct Face {
        pub(in crate::collision) v: [usize; 3],
        pub(in crate::collision) plane: Option<(V3, f64)>,
    }

    /// The EPA polytope's storage, kept in `Data` ([`super::CollisionScratch`]) between calls so
    /// that a call does not clear (memset) ~90 kB of arrays it mostly leaves unused.
    pub(crate) struct Polytope {
        pub(in crate::collision) vs: [Vert; MAXV],
        pub(in crate::collision) faces: [Face; MAXF],
        pub(in crate::collision) edges: [[usize; 2]; MAXF],
    }

    const V0: V3 = V3::new(0.0, 0.0, 0.0);

    impl Polytope {
        pub(crate) const fn new() -> Self {
            Polytope {
                vs: [Vert {
                    w: V0,
                    a: V0,
                    b: V0,
                }; MAXV],
                faces: [Face {
                    v: [0; 3],
                    plane: None,
                }; MAXF],
                edges: [[0; 2]; MAXF],
            }
        }
    }
}

/// The EPA polytope of a height-field prism against a convex geom ([`super::hfield`]).
pub(crate) mod prism {
    use nalgebra::Vector3;

    type V3 = Vector3<f64>;

    /// Vertex capacity of the polytope (4 + at most 255 EPA iterations, plus one).
    pub(in crate::collision) const NVERT: usize = 260;
    /// Face capacity of the polytope (≥ max(6·NVERT, 1000)).
    pub(in crate::collision) const NFACE: usize = 1560;

    /// A point of the Minkowski difference with its two witnesses.
    #[derive(Clone, Copy)]
    pub(in crate::collision) struct Pt {
        pub(in crate::collision) w: V3,
        pub(in crate::collision) a: V3,
        pub(in crate::collision) b: V3,
        /// b's vertex index (box corner, mesh vertex; else -1).
        pub(in crate::collision) idx: i32,
        /// a's vertex index.
        pub(in crate::collision) ia: i32,
    }

    pub(in crate::collision) const PT0: Pt = Pt {
        w: V3::new(0.0, 0.0, 0.0),
        a: V3::new(0.0, 0.0, 0.0),
        b: V3::new(0.0, 0.0, 0.0),
        idx: -1,
        ia: -1,
    };

    /// A triangular face of the polytope: edge k runs from `verts[k]` to `verts[k+1 mod 3]`,
    /// `adj[k]` is the face across it; `v` the origin's projection on its plane.
    #[derive(Clone, Copy)]
    pub(in crate::collision) struct Face {
        pub(in crate::collision) verts: [usize; 3],
        pub(in crate::collision) adj: [usize; 3],
        pub(in crate::collision) v: V3,
        pub(in crate::collision) dist2: f64,
        /// Position in the active list, or `usize::MAX`.
        pub(in crate::collision) slot: usize,
        pub(in crate::collision) deleted: bool,
    }

    const FACE0: Face = Face {
        verts: [0; 3],
        adj: [0; 3],
        v: V3::new(0.0, 0.0, 0.0),
        dist2: 0.0,
        slot: usize::MAX,
        deleted: false,
    };

    /// The EPA polytope's fixed storage (no allocation).
    pub struct Poly {
        pub(in crate::collision) pts: [Pt; NVERT],
        pub(in crate::collision) npt: usize,
        pub(in crate::collision) faces: [Face; NFACE],
        pub(in crate::collision) nface: usize,
        pub(in crate::collision) list: [usize; NFACE],
        pub(in crate::collision) nlist: usize,
        pub(in crate::collision) horizon: [(usize, usize); NFACE],
        pub(in crate::collision) nhorizon: usize,
    }

    impl Default for Poly {
        fn default() -> Self {
            Self::new()
        }
    }

    impl Poly {
        pub const fn new() -> Self {
            Poly {
                pts: [PT0; NVERT],
                npt: 0,
                faces: [FACE0; NFACE],
                nface: 0,
                list: [0; NFACE],
                nlist: 0,
                horizon: [(0, 0); NFACE],
                nhorizon: 0,
            }
        }
    }
}

/// The multi-contact patch and its working storage ([`super::multiccd`]).
pub(crate) mod patch {
    use nalgebra::Vector3;

    type V3 = Vector3<f64>;

    /// Most vertices of a clip polygon (subject + clip corners) handled here; a face of up to
    /// `MAXP / 2` corners takes part (hull polygons of Menagerie's meshes reach 110 corners; a larger
    /// face falls back to the single contact). At most 256: clip origins are stored as `u8`.
    pub(crate) const MAXP: usize = 256;

    /// Every point of a multi-contact patch, before the reduction to four: contact points (midway
    /// between the geoms), their distances and the common normal (geom 0 → geom 1).
    pub struct Patch {
        pub n: usize,
        pub dist: [f64; MAXP],
        pub pos: [V3; MAXP],
        pub normal: V3,
        /// The clipped feature is a cylinder's side line, placed by the penetration normal.
        pub side: bool,
    }

    /// Where a clipped point comes from (for the re-evaluation in `T`): a subject vertex, a
    /// subject edge (from its corner `e` to the next) cut by the side plane of clip edge `k`, or the
    /// subject plane cut by two clip side planes.
    #[derive(Clone, Copy, Debug, PartialEq)]
    /// Indices fit in `u8` (`MAXP` corners), keeping the label arrays small.
    pub(in crate::collision) enum Lab {
        V(u8),
        E(u8, u8),
        C(u8, u8),
        /// Not reached by the clipping of a convex polygon (kept for robustness).
        Bad,
    }

    /// Working storage of `traced_patch` ([`super::super::multiccd`]), filled in place (returning these arrays by value cost
    /// more than the clipping itself): the patch, and per patch point its clip origin and its
    /// clipped point before projection (indices as in the patch).
    /// Also the clipping polygon and the clipper's second buffer. Kept in `Data`
    /// ([`super::CollisionScratch`]), so that a call does not clear ~28 kB.
    pub(crate) struct PatchBuf {
        pub(in crate::collision) patch: Patch,
        pub(in crate::collision) lab: [[Lab; MAXP]; 2],
        pub(in crate::collision) clipped: [V3; MAXP],
        pub(in crate::collision) clip: [V3; MAXP],
        pub(in crate::collision) other: [V3; MAXP],
    }

    const Z3: V3 = V3::new(0.0, 0.0, 0.0);

    impl PatchBuf {
        pub(crate) const fn new() -> Self {
            PatchBuf {
                patch: Patch {
                    n: 0,
                    dist: [0.0; MAXP],
                    pos: [Z3; MAXP],
                    normal: Z3,
                    side: false,
                },
                lab: [[Lab::Bad; MAXP]; 2],
                clipped: [Z3; MAXP],
                clip: [Z3; MAXP],
                other: [Z3; MAXP],
            }
        }
    }
}

/// Working storage of the narrow phase: the EPA polytopes of the convex search and of the
/// height-field prisms, and the multi-contact patch buffer (about 90, 20 and 28 kB). Kept in
/// `Data` between calls and never cleared; the contents carry nothing from one call to the
/// next. [`CollisionScratch::for_model`] allocates them up front for a model with geoms that
/// reach the convex search (so that stepping does not allocate); otherwise a buffer is
/// allocated the first time a pair needs it.
#[derive(Default)]
pub struct CollisionScratch {
    polytope: Option<Box<epa::Polytope>>,
    hfield: Option<Box<prism::Poly>>,
    patch: Option<Box<patch::PatchBuf>>,
    /// What [`Self::reuse_f64`] keeps (boxed: the scratch moves in and out of `Data`).
    memo: Option<Box<Memos>>,
}

/// The `f64` work of the convex colliders kept while [`CollisionScratch::reuse_f64`] is on.
#[derive(Default)]
pub(super) struct Memos {
    /// The convex re-evaluation's features.
    pub(super) feats: super::memo::FeatMemo,
    /// The convex pairs' `f64` search results.
    pub(super) search: super::memo::SearchMemo,
}

impl CollisionScratch {
    /// Empty for a model whose geoms are only planes, spheres and capsules (their pairs have
    /// closed-form colliders); the three buffers otherwise.
    pub fn for_model(m: &Model) -> Self {
        use GeomType::*;
        let needed = m
            .geom_type
            .iter()
            .any(|t| !matches!(t, Plane | Sphere | Capsule));
        Self::with_buffers(needed, needed, needed)
    }

    /// The buffers chosen, allocated.
    fn with_buffers(polytope: bool, hfield: bool, patch: bool) -> Self {
        CollisionScratch {
            polytope: polytope.then(|| Box::new(epa::Polytope::new())),
            hfield: hfield.then(|| Box::new(prism::Poly::new())),
            patch: patch.then(|| Box::new(patch::PatchBuf::new())),
            memo: polytope.then(Box::default),
        }
    }

    /// Keeps (`on`) or stops keeping the `f64` work of the convex colliders when they run on
    /// dual scalars — the penetration search's result of a pair and the features its contacts
    /// are re-evaluated from — and forgets what was kept. For repeated dual runs of one pair whose `f64` poses are the same in every run (one
    /// run per derivative direction): that work reads only the `f64` values, and what is kept is
    /// keyed by their exact bits, so the runs give what they give without it. The model must not
    /// change while on.
    /// Nothing is kept by a scratch without any buffer yet (a model whose geoms never reach the
    /// convex colliders, [`Self::for_model`]; a default scratch before its first convex pair);
    /// the storage is allocated once, on the first call with `on` after that.
    pub fn reuse_f64(&mut self, on: bool) {
        let used = self.polytope.is_some() || self.hfield.is_some() || self.patch.is_some();
        if on && self.memo.is_none() && used {
            self.memo = Some(Box::default());
        }
        if let Some(x) = self.memo.as_deref_mut() {
            x.feats.set(on);
            x.search.set(on);
        }
    }

    /// The kept `f64` work while [`Self::reuse_f64`] is on.
    pub(super) fn memo(&mut self) -> Option<&mut Memos> {
        self.memo.as_deref_mut().filter(|x| x.search.on())
    }

    /// The convex search's EPA polytope.
    pub(super) fn polytope(&mut self) -> &mut epa::Polytope {
        self.polytope
            .get_or_insert_with(|| Box::new(epa::Polytope::new()))
    }

    /// The height-field prisms' EPA polytope.
    pub(super) fn hfield(&mut self) -> &mut prism::Poly {
        self.hfield
            .get_or_insert_with(|| Box::new(prism::Poly::new()))
    }

    /// The multi-contact patch buffer, out of the scratch for a call ([`Self::put_patch`]).
    pub(super) fn take_patch(&mut self) -> Box<patch::PatchBuf> {
        self.patch
            .take()
            .unwrap_or_else(|| Box::new(patch::PatchBuf::new()))
    }

    pub(super) fn put_patch(&mut self, b: Box<patch::PatchBuf>) {
        self.patch = Some(b);
    }
}

impl Clone for CollisionScratch {
    /// Fresh storage for the buffers `self` has (the contents are scratch).
    fn clone(&self) -> Self {
        Self::with_buffers(
            self.polytope.is_some(),
            self.hfield.is_some(),
            self.patch.is_some(),
        )
    }

    /// The contents are scratch: the destination keeps its buffers, and gets fresh ones only
    /// for those `source` has and it lacks.
    fn clone_from(&mut self, source: &Self) {
        if (source.polytope.is_some() && self.polytope.is_none())
            || (source.hfield.is_some() && self.hfield.is_none())
            || (source.patch.is_some() && self.patch.is_none())
        {
            *self = source.clone();
        }
    }
}

impl std::fmt::Debug for CollisionScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CollisionScratch")
    }
}

/// Broad-phase working storage, kept in `Data` so that stepping does not allocate: the
/// sweep-and-prune intervals of the geoms grouped by body, the bodies' intervals and the body
/// pairs whose intervals overlap and pass [`body_filter`](super::body_filter).
#[derive(Debug, Default)]
pub struct BroadScratch {
    /// The swept geoms, grouped by body, by id within a body.
    pub(in crate::collision) geoms: Vec<Swept>,
    /// `geoms[body_start[b]..body_start[b + 1]]` are body `b`'s geoms (`nbody + 1` entries).
    pub(in crate::collision) body_start: Vec<u32>,
    /// (interval low, high, body) of the bodies with swept geoms: the union of their intervals.
    pub(in crate::collision) bodies: Vec<(f64, f64, u32)>,
    /// Each body's box (low x, y, z, high x, y, z) around its swept geoms' bounding spheres,
    /// indexed by body (`nbody` entries; set for the bodies in `bodies`).
    pub(in crate::collision) boxes: Vec<[f64; 6]>,
    /// Overlapping body pairs that pass the body filter, `lower << 32 | higher`.
    pub(in crate::collision) body_pairs: Vec<u64>,
    /// The grid that finds the body pairs ([`super::grid`]).
    pub(in crate::collision) grid: super::grid::GridScratch,
    /// The midphase's refit trees (`collision/bvh.rs`).
    pub(in crate::collision) tree: TreeScratch,
}

/// The midphase's working storage (`collision/bvh.rs`): the boxes of the model's geom trees
/// refit to the current poses, and the traversal's stack and output.
#[derive(Debug, Default)]
pub(crate) struct TreeScratch {
    /// Per node of `Model::geom_tree`: its world-aligned box (low x, y, z, high x, y, z).
    pub(in crate::collision) node_box: Vec<[f64; 6]>,
    /// Per geom: its index in [`BroadScratch`]'s `geoms`, `u32::MAX` if it was not swept.
    pub(in crate::collision) swept_of: Vec<u32>,
    /// Per body: whether its tree was refit in this step, and whether it holds exactly its
    /// swept geoms (else its pairs test every geom pair).
    pub(in crate::collision) fit: Vec<Fit>,
    /// The traversal's pending node pairs.
    pub(in crate::collision) stack: Vec<(u32, u32)>,
    /// The geom pairs `g1 << 32 | g2` whose leaf boxes overlap, sorted.
    pub(in crate::collision) pairs: Vec<u64>,
    /// The trees may be used in this step (`bvh::begin`).
    pub(in crate::collision) active: bool,
}

/// The state of a body's tree in a step ([`TreeScratch`]'s `fit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::collision) enum Fit {
    /// Not refit yet.
    Pending,
    /// Refit, holding exactly the body's swept geoms.
    Ok,
    /// Not usable in this step.
    Unusable,
}

crate::data::reserved::clone_reserved! {
    impl[] TreeScratch {
        node_box: vec,
        swept_of: vec,
        fit: vec,
        stack: vec,
        pairs: vec,
        active: copy,
    }
}

impl TreeScratch {
    /// Storage for model `m`'s trees: no step allocates after this.
    pub(crate) fn for_model(m: &Model) -> Self {
        let nnode = m.geom_tree.child.len();
        TreeScratch {
            node_box: Vec::with_capacity(nnode),
            swept_of: Vec::with_capacity(m.ngeom),
            fit: Vec::with_capacity(m.nbody),
            stack: Vec::with_capacity(2 * nnode + 2),
            pairs: Vec::with_capacity(m.geom_tree.max_pairs),
            active: false,
        }
    }
}

// A clone keeps the capacity of every array (see `Data`'s `Clone`).
crate::data::reserved::clone_reserved! {
    impl[] BroadScratch {
        geoms: vec,
        body_start: vec,
        bodies: vec,
        boxes: vec,
        body_pairs: vec,
        grid: clone,
        tree: clone,
    }
}

/// A swept geom: its interval on the sweep axis and what the pair tests read, copied from the
/// model and the pose so that the pair loop reads one array.
#[derive(Clone, Copy, Debug)]
pub(in crate::collision) struct Swept {
    pub(in crate::collision) lo: f64,
    pub(in crate::collision) hi: f64,
    /// Centre (the real part of `geom_xpos`).
    pub(in crate::collision) pos: Vector3<f64>,
    /// A plane's normal (the real part of its frame's z axis); zero for other geoms.
    pub(in crate::collision) normal: Vector3<f64>,
    pub(in crate::collision) rbound: f64,
    pub(in crate::collision) margin: f64,
    pub(in crate::collision) gap: f64,
    pub(in crate::collision) contype: u32,
    pub(in crate::collision) conaffinity: u32,
    pub(in crate::collision) id: u32,
    pub(in crate::collision) body: u32,
    pub(in crate::collision) ty: GeomType,
}

impl BroadScratch {
    /// Reserves room for `n` body pairs (the capacity a clone does not keep).
    pub(crate) fn reserve_pairs(&mut self, n: usize) {
        let v = &mut self.body_pairs;
        v.reserve(n.saturating_sub(v.len()));
    }

    /// Storage for a model's geoms and bodies.
    pub fn for_model(m: &Model) -> Self {
        BroadScratch {
            geoms: Vec::with_capacity(m.ngeom),
            body_start: Vec::with_capacity(m.nbody + 1),
            bodies: Vec::with_capacity(m.nbody),
            boxes: Vec::with_capacity(m.nbody),
            body_pairs: Vec::with_capacity(crate::data::arena::max_body_pairs(m)),
            grid: super::grid::GridScratch::for_bodies(m.nbody),
            tree: TreeScratch::for_model(m),
        }
    }
}
