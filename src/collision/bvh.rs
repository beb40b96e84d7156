//! The midphase (Computation "Collision detection": MuJoCo gives each body a bounding-volume
//! tree of its geoms and tests the two trees of a body pair against each other): the per-body
//! geom trees of `Model::geom_tree` refit to the current poses, and the geom pairs of a body
//! pair whose leaf boxes overlap.
//!
//! A leaf's box is the world-aligned box around its geom's `geom_aabb` box (placed by
//! `geom_xpos`/`geom_xmat`), widened by the geom's margin and gap (the override margin under
//! `override`) and by [`SLACK`]; an inner node's box holds its children's. Two geoms whose
//! boxes do not overlap are farther apart than the sum of those widenings, which is at least
//! the pair's margin + gap, and every collider lists a contact only when the surfaces come
//! within margin + gap: a pair the trees leave out has no contact. The pairs that remain go
//! through the same pair tests as without the trees, in the same order, so the contacts and
//! their order are those without the midphase.

use crate::collision::scratch::{Fit, Swept, TreeScratch};
use crate::collision::sink::{f64of, ALL_SPACE, NO_SPACE};
use crate::data::Data;
use crate::math::Scalar;
use crate::model::{GeomTree, GeomType, Model};

/// Relative widening of the leaf boxes, above the round-off of the boxes (a mesh's `geom_aabb`
/// bounds its vertices before they are rounded to float32, 6e-8 relative) and of placing them.
const SLACK: f64 = 1e-6;

/// A body pair with at most this many geom pairs tests them all; one with more tests its two
/// bodies' trees against each other first ([`leaf_pairs`]), which costs more than the pair
/// tests it saves on a few geoms (on Menagerie's Robotiq, whose body pairs have at most 4 geom
/// pairs, walking the trees for every body pair made the step 5% dearer; docs/performance.md).
pub(super) const TREE_MIN_PAIRS: usize = 15;

/// Starts a step's midphase after the broad phase has swept `geoms` (grouped by body, all
/// with finite poses): maps each geom to its swept entry and marks every tree as not yet
/// refit. The trees are used only if `use_trees` and the model has them.
pub(super) fn begin(m: &Model, geoms: &[Swept], use_trees: bool, t: &mut TreeScratch) {
    let tree = &m.geom_tree;
    t.active = use_trees && tree.max_pairs > TREE_MIN_PAIRS && tree.body_root.len() == m.nbody;
    if !t.active {
        return;
    }
    t.swept_of.clear();
    t.swept_of.resize(m.ngeom, u32::MAX);
    for (i, s) in geoms.iter().enumerate() {
        if let Some(x) = t.swept_of.get_mut(s.id as usize) {
            *x = i as u32;
        }
    }
    t.node_box.resize(tree.child.len(), NO_SPACE);
    t.fit.clear();
    t.fit.resize(m.nbody, Fit::Pending);
}

/// Refits body `b`'s tree to the poses of `d` once per step; whether the tree holds exactly
/// the body's swept geoms (`geoms[body_start[b]..body_start[b + 1]]`, see [`begin`]), so that
/// its pairs can use it. `o_margin`: the override margin, if on.
pub(super) fn fit<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    geoms: &[Swept],
    body_start: &[u32],
    o_margin: Option<f64>,
    b: usize,
    t: &mut TreeScratch,
) -> bool {
    match t.fit[b] {
        Fit::Ok => return true,
        Fit::Unusable => return false,
        Fit::Pending => {}
    }
    let tree = &m.geom_tree;
    let nswept = (body_start[b + 1] - body_start[b]) as usize;
    let root = tree.body_root[b];
    let mut found = 0;
    if root != u32::MAX {
        let (root, n) = (root as usize, tree.body_nnode[b] as usize);
        for i in (root..root + n).rev() {
            let [c0, c1] = tree.child[i];
            t.node_box[i] = if c0 == GeomTree::LEAF {
                let g = c1 as usize;
                match t.swept_of.get(g).and_then(|&k| geoms.get(k as usize)) {
                    Some(s) if s.id as usize == g && s.body as usize == b => {
                        found += 1;
                        leaf_box(m, d, s, o_margin)
                    }
                    _ => NO_SPACE,
                }
            } else {
                let (x, y) = (&t.node_box[c0 as usize], &t.node_box[c1 as usize]);
                std::array::from_fn(|k| {
                    if k < 3 {
                        x[k].min(y[k])
                    } else {
                        x[k].max(y[k])
                    }
                })
            };
        }
    }
    let ok = found == nswept;
    t.fit[b] = if ok { Fit::Ok } else { Fit::Unusable };
    ok
}

/// The world-aligned box of swept geom `s` (see the module docs).
fn leaf_box<T: Scalar>(m: &Model, d: &Data<T>, s: &Swept, o_margin: Option<f64>) -> [f64; 6] {
    let g = s.id as usize;
    let Some(a) = m.geom_aabb.get(g) else {
        return ALL_SPACE;
    };
    if s.ty == GeomType::Plane || s.rbound <= 0.0 {
        return ALL_SPACE;
    }
    let r = &d.geom_xmat[g];
    let widen = o_margin.unwrap_or(s.margin).max(0.0) + s.gap.max(0.0);
    let mut bx = [0.0; 6];
    for k in 0..3 {
        let row = [f64of(r[(k, 0)]), f64of(r[(k, 1)]), f64of(r[(k, 2)])];
        let c = s.pos[k] + row[0] * a[0] + row[1] * a[1] + row[2] * a[2];
        let h = row[0].abs() * a[3] + row[1].abs() * a[4] + row[2].abs() * a[5];
        let h = h + widen + SLACK * (h + c.abs());
        bx[k] = c - h;
        bx[k + 3] = c + h;
    }
    bx
}

/// Whether two boxes overlap (touching counts; a NaN bound overlaps).
#[inline]
fn overlap(x: &[f64; 6], y: &[f64; 6]) -> bool {
    !(x[0] > y[3] || y[0] > x[3] || x[1] > y[4] || y[1] > x[4] || x[2] > y[5] || y[2] > x[5])
}

/// The geom pairs (`g1 << 32 | g2`, `g1` of body `b1`, `g2` of `b2`) whose leaf boxes overlap,
/// sorted, in `t.pairs`; needs both bodies' trees [`fit`].
pub(super) fn leaf_pairs(m: &Model, b1: usize, b2: usize, t: &mut TreeScratch) {
    let tree = &m.geom_tree;
    let TreeScratch {
        node_box,
        stack,
        pairs,
        ..
    } = t;
    pairs.clear();
    stack.clear();
    let (r1, r2) = (tree.body_root[b1], tree.body_root[b2]);
    if r1 == u32::MAX || r2 == u32::MAX {
        return;
    }
    stack.push((r1, r2));
    while let Some((n1, n2)) = stack.pop() {
        let (x, y) = (&node_box[n1 as usize], &node_box[n2 as usize]);
        if !overlap(x, y) {
            continue;
        }
        let ([a0, a1], [c0, c1]) = (tree.child[n1 as usize], tree.child[n2 as usize]);
        match (a0 == GeomTree::LEAF, c0 == GeomTree::LEAF) {
            (true, true) => pairs.push(((a1 as u64) << 32) | c1 as u64),
            (true, false) => {
                stack.push((n1, c1));
                stack.push((n1, c0));
            }
            (false, true) => {
                stack.push((a1, n2));
                stack.push((a0, n2));
            }
            (false, false) => {
                // split the larger box
                let size = |b: &[f64; 6]| (b[3] - b[0]) + (b[4] - b[1]) + (b[5] - b[2]);
                if size(x) >= size(y) {
                    stack.push((a1, n2));
                    stack.push((a0, n2));
                } else {
                    stack.push((n1, c1));
                    stack.push((n1, c0));
                }
            }
        }
    }
    if pairs.len() > 1 {
        pairs.sort_unstable();
    }
}
