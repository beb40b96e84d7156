//! Counts of the inner loops whose cost must stay linear in the model's size, kept by debug
//! builds only (a release build counts nothing and the calls compile to nothing). The scaling
//! test (`tests/engine/scaling.rs`) grows each dimension of a model 10× and checks that every
//! count grows about 10×: a deterministic measure of work, unlike time, on any machine and
//! under any load. Counts are per thread, as the test harness runs tests on several.

/// The counted loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loop {
    /// Entries of L visited by the sparse `M` solves (`solve_m` and its tree and range forms).
    MSolve = 0,
    /// Body pairs the broad phase visits.
    BroadPairs = 1,
    /// Geom pairs given to the broad phase's geom tests.
    GeomTests = 2,
    /// Narrow-phase calls.
    Narrow = 3,
    /// Constraint rows plus their Jacobian entries, as built.
    Rows = 4,
    /// Characters the MJCF parser counts to locate elements.
    Parse = 5,
}

/// Number of counted loops.
pub const NLOOP: usize = 6;

#[cfg(debug_assertions)]
thread_local! {
    static COUNTS: [std::cell::Cell<u64>; NLOOP] = const {
        [const { std::cell::Cell::new(0) }; NLOOP]
    };
}

/// Adds `n` to the count of `l` (debug builds).
#[inline(always)]
pub fn add(l: Loop, n: usize) {
    #[cfg(debug_assertions)]
    COUNTS.with(|c| c[l as usize].set(c[l as usize].get() + n as u64));
    #[cfg(not(debug_assertions))]
    let _ = (l, n);
}

/// This thread's counts so far, indexed by [`Loop`] (all zero in a release build).
pub fn counts() -> [u64; NLOOP] {
    #[cfg(debug_assertions)]
    {
        COUNTS.with(|c| std::array::from_fn(|i| c[i].get()))
    }
    #[cfg(not(debug_assertions))]
    {
        [0; NLOOP]
    }
}
