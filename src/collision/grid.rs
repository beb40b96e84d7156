//! The broad phase's body pairs by a uniform grid of the bodies' boxes: the same pairs as the
//! sweep along one axis followed by the box test (both tests are kept, so the set is equal and,
//! sorted, gives MuJoCo's contact order), found in time linear in the bodies on piles where
//! the sweep's intervals overlap in ~n^(5/3) pairs (a cubic lattice: every body overlaps its
//! whole layer on the sweep axis).

/// The broad phase uses the grid with more bodies than this; with fewer, the sweep, whose walk
/// is then short (every model of the zoo's benchmark has at most 59 bodies with collidable
/// geoms, so their step is unchanged).
pub const MIN_BODIES: usize = 64;

/// The grid's working storage, reused from step to step.
#[derive(Debug, Default)]
pub struct GridScratch {
    /// (cell, body) for every cell a body's box touches, sorted.
    cells: Vec<([i64; 3], u32)>,
    /// Bodies too large for the grid (or with an unbounded box), in body order.
    big: Vec<u32>,
    /// The finite boxes' largest extents (for the cell size).
    extents: Vec<f64>,
    /// Each body's interval on the sweep axis (indexed by body).
    ival: Vec<(f64, f64)>,
}

// A clone keeps the capacity of every array (see `Data`'s `Clone`).
crate::data::reserved::clone_reserved! {
    impl[] GridScratch {
        cells: vec,
        big: vec,
        extents: vec,
        ival: vec,
    }
}

impl GridScratch {
    /// Storage for a model's bodies (each in at most 8 cells).
    pub fn for_bodies(nbody: usize) -> Self {
        GridScratch {
            cells: Vec::with_capacity(8 * nbody),
            big: Vec::with_capacity(nbody),
            extents: Vec::with_capacity(nbody),
            ival: Vec::with_capacity(nbody),
        }
    }
}

/// True if boxes `x` and `y` (low x, y, z, high x, y, z) overlap.
#[inline]
fn boxes_meet(x: &[f64; 6], y: &[f64; 6]) -> bool {
    !(0..3).any(|k| x[k] > y[k + 3] || y[k] > x[k + 3])
}

/// Pushes onto `out` (unsorted) the pairs `lower << 32 | higher` of the bodies of `bodies`
/// ((interval low, high, body), in body order) whose intervals overlap, whose boxes overlap
/// and that pass `filter` (the broad phase's body filter) of `nbody` bodies. The cell size is twice the median of the finite boxes'
/// largest extents; a body with a larger or unbounded box is tested against every other.
/// Returns false (and pushes nothing) if no cell size can be chosen.
pub fn grid_pairs(
    nbody: usize,
    filter: impl Fn(usize, usize) -> bool,
    bodies: &[(f64, f64, u32)],
    boxes: &[[f64; 6]],
    g: &mut GridScratch,
    out: &mut Vec<u64>,
) -> bool {
    let GridScratch {
        cells,
        big,
        extents,
        ival,
    } = g;
    extents.clear();
    for &(_, _, b) in bodies {
        let x = &boxes[b as usize];
        if x.iter().all(|v| v.is_finite()) {
            extents.push((0..3).map(|k| x[k + 3] - x[k]).fold(0.0, f64::max));
        }
    }
    if extents.is_empty() {
        return false;
    }
    let mid = extents.len() / 2;
    let h = 2.0 * *extents.select_nth_unstable_by(mid, f64::total_cmp).1;
    if !(h > 0.0 && h.is_finite()) {
        return false;
    }
    let cell = |v: f64| (v / h).floor() as i64;
    ival.clear();
    ival.resize(nbody, (f64::NAN, f64::NAN));
    cells.clear();
    big.clear();
    for &(lo, hi, b) in bodies {
        ival[b as usize] = (lo, hi);
        let x = &boxes[b as usize];
        let c0 = [cell(x[0]), cell(x[1]), cell(x[2])];
        let c1 = [cell(x[3]), cell(x[4]), cell(x[5])];
        // (cells saturate at the i64 range: a box spanning it must not overflow the difference
        // nor be walked cell by cell)
        let span = |k: usize| i128::from(c1[k]) - i128::from(c0[k]);
        if !x.iter().all(|v| v.is_finite()) || (0..3).any(|k| span(k) > 1) {
            big.push(b);
            continue;
        }
        for i in c0[0]..=c1[0] {
            for j in c0[1]..=c1[1] {
                for k in c0[2]..=c1[2] {
                    cells.push(([i, j, k], b));
                }
            }
        }
    }
    cells.sort_unstable();
    // the sweep's test: the intervals overlap (each interval has high >= low)
    let ival = &*ival;
    let keep = |b1: u32, b2: u32, out: &mut Vec<u64>| {
        let ((l1, h1), (l2, h2)) = (ival[b1 as usize], ival[b2 as usize]);
        if l1 <= h2 && l2 <= h1 {
            let (lo, hi) = (b1.min(b2), b1.max(b2));
            if filter(lo as usize, hi as usize) {
                out.push(((lo as u64) << 32) | hi as u64);
            }
        }
    };
    // pairs sharing a cell, each kept in one cell only: the cell of the low corner of the
    // boxes' intersection, which both boxes touch
    let mut s = 0;
    while s < cells.len() {
        let key = cells[s].0;
        let e = s + cells[s..].partition_point(|c| c.0 == key);
        crate::work::add(crate::work::Loop::BroadPairs, (e - s) * (e - s - 1) / 2);
        for i in s..e {
            for j in i + 1..e {
                let (b1, b2) = (cells[i].1, cells[j].1);
                let (x, y) = (&boxes[b1 as usize], &boxes[b2 as usize]);
                if !boxes_meet(x, y) {
                    continue;
                }
                let corner = [
                    cell(x[0].max(y[0])),
                    cell(x[1].max(y[1])),
                    cell(x[2].max(y[2])),
                ];
                if corner == key {
                    keep(b1, b2, out);
                }
            }
        }
        s = e;
    }
    // the large bodies against all others (a pair of two large ones once)
    for &b1 in big.iter() {
        crate::work::add(crate::work::Loop::BroadPairs, bodies.len());
        for &(_, _, b2) in bodies {
            if b2 == b1 || (b2 < b1 && big.binary_search(&b2).is_ok()) {
                continue;
            }
            if boxes_meet(&boxes[b1 as usize], &boxes[b2 as usize]) {
                keep(b1, b2, out);
            }
        }
    }
    true
}
