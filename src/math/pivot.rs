//! Pivots of the LᵀDL factorizations: the smallest one allowed and the record of raised ones,
//! shared by the scalar and SIMD factorizations (`smooth::crb`, `math::simd`).

use crate::math::{sc, Scalar};

/// Smallest pivot of the LᵀDL factorizations (`mjMINVAL`): a smaller one (zero, negative, or
/// lost to cancellation in a near-singular matrix) is raised to it, as MuJoCo's `mj_factorI`
/// does, so the factor stays finite.
pub const PIVOT_MIN: f64 = 1e-15;

/// The pivots a factorization raised to [`PIVOT_MIN`]: how many, and the lowest dof among them
/// (the last one met, rows being eliminated from the leaves up).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clamped {
    /// Number of raised pivots (0: none).
    pub count: usize,
    /// The lowest dof whose pivot was raised (meaningless when `count` is 0).
    pub dof: usize,
    /// The first dof whose pivot was raised, the highest (meaningless when `count` is 0).
    pub first: usize,
}

/// Raises the pivot `*dk` of row `k` to [`PIVOT_MIN`] if it is below (NaN is left as is, as
/// MuJoCo does), noting it in `c`; returns its reciprocal.
#[inline(always)]
pub(crate) fn pivot<T: Scalar>(dk: &mut T, k: usize, c: &mut Clamped) -> T {
    if *dk < sc(PIVOT_MIN) {
        *dk = sc(PIVOT_MIN);
        if c.count == 0 {
            c.first = k;
        }
        c.count += 1;
        c.dof = k;
    }
    T::one() / *dk
}
