//! Clones that keep their capacity. `Data::new` reserves every contact and constraint row the
//! arena holds and the solvers' work space (MuJoCo sizes its arena once, in `mj_makeData`);
//! `Vec::clone` keeps only the length, so a derived clone of `Data` would allocate on its
//! first step. `Data` and its work spaces clone their arrays with [`CloneReserved`].

/// A clone with the same capacity (address space: the pages past the length stay untouched).
pub(crate) trait CloneReserved {
    fn clone_reserved(&self) -> Self;
}

impl<X: Clone> CloneReserved for Vec<X> {
    fn clone_reserved(&self) -> Self {
        let mut v = Vec::with_capacity(self.capacity());
        v.extend_from_slice(self);
        v
    }
}

/// [`CloneReserved`] of a list of lists: each inner list keeps its capacity too.
pub(crate) fn clone_reserved_nested<X: Clone>(v: &Vec<Vec<X>>) -> Vec<Vec<X>> {
    let mut out = Vec::with_capacity(v.capacity());
    out.extend(v.iter().map(CloneReserved::clone_reserved));
    out
}
