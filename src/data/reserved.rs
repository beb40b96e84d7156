//! Clones that keep their capacity. `Data::new` reserves every contact and constraint row the
//! arena holds and the solvers' work space (MuJoCo sizes its arena once, in `mj_makeData`);
//! `Vec::clone` keeps only the length, so a derived clone of `Data` would allocate on its
//! first step. `Data` and its work spaces clone their arrays with [`CloneReserved`], and
//! `clone_from` into a `Data` of the same model reuses the destination's arrays
//! ([`clone_reserved!`]).

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

/// `Clone` for a struct of arrays, from one list of its fields and how each is cloned: `copy`
/// (a `Copy` value), `vec` (an array, cloned with [`CloneReserved`]), `nested` (a list of
/// arrays, [`clone_reserved_nested`]), `each` (a fixed-size array of arrays), `clone` (a value
/// with its own `clone` and `clone_from`), `mark` (a record of the capacities reserved, a
/// `Copy` value whose `Default` claims none: copied by `clone`, which keeps every capacity, and
/// reset by `clone_from`, which may not). `clone` keeps every array's capacity; `clone_from`
/// writes into the destination's arrays (`Vec::clone_from`), which allocates only where the
/// source holds more than they can: never between two `Data` of the same model.
macro_rules! clone_reserved {
    (impl[$($g:tt)*] $ty:ident$(<$p:ident>)? { $($f:ident: $k:ident),* $(,)? }) => {
        impl<$($g)*> Clone for $ty$(<$p>)? {
            fn clone(&self) -> Self {
                Self { $($f: $crate::data::reserved::clone_reserved!(@clone $k, self.$f)),* }
            }

            fn clone_from(&mut self, source: &Self) {
                $($crate::data::reserved::clone_reserved!(@from $k, self.$f, source.$f);)*
            }
        }
    };
    (@clone copy, $e:expr) => { $e };
    (@clone vec, $e:expr) => { $crate::data::reserved::CloneReserved::clone_reserved(&$e) };
    (@clone nested, $e:expr) => { $crate::data::reserved::clone_reserved_nested(&$e) };
    (@clone each, $e:expr) => {
        $e.each_ref().map($crate::data::reserved::CloneReserved::clone_reserved)
    };
    (@clone clone, $e:expr) => { Clone::clone(&$e) };
    (@clone mark, $e:expr) => { $e };
    (@from copy, $d:expr, $s:expr) => { $d = $s };
    (@from mark, $d:expr, $s:expr) => { $d = Default::default() };
    (@from each, $d:expr, $s:expr) => {
        for (d, s) in $d.iter_mut().zip(&$s) {
            d.clone_from(s);
        }
    };
    (@from $k:ident, $d:expr, $s:expr) => { $d.clone_from(&$s) };
}
pub(crate) use clone_reserved;
