//! Numerical kernels shared by the pipeline stages: the scalar type the pipeline is generic over,
//! spatial algebra (`spatial`), quaternions and rotations (`quat`), dense linear algebra
//! (`dense`), and every `unsafe` SIMD kernel (`simd`).

use nalgebra::RealField;

pub(crate) mod dense;
pub(crate) mod pivot;
pub(crate) mod quat;
pub(crate) mod simd;
pub(crate) mod spatial;

/// The scalar types the pipeline is generic over: `f64` and forward-mode duals.
pub trait Scalar: RealField + Copy {}
impl<T: RealField + Copy> Scalar for T {}

/// Converts an `f64` model constant into the scalar type.
#[inline(always)]
pub fn sc<T: Scalar>(x: f64) -> T {
    nalgebra::convert(x)
}

/// Sets `v` to zero in pieces of at most 1 KiB: glibc's `memset` takes `rep stosb` from 2 KiB
/// on, which callgrind counts as one instruction per byte (the dense `efc_J` and
/// `actuator_moment` of the humanoid are 4–7 KiB); below that it stores 32 bytes at a time.
pub fn zero_fill<T: Scalar>(v: &mut [T]) {
    for c in v.chunks_mut((1024 / std::mem::size_of::<T>()).max(1)) {
        c.fill(T::zero());
    }
}

/// True if `x` is exactly zero, derivative parts included: a skip of the arithmetic on a zero
/// entry (sparsity shortcuts in factorizations and products) must not drop an entry whose value
/// is zero but whose derivative is not (`==` on num-dual's numbers compares values only, and an
/// entry of `qM` or `efc_J` can vanish at one configuration while its derivative does not).
/// For `f64` this is `x == 0`.
#[inline(always)]
pub fn exact_zero<T: Scalar>(x: T) -> bool {
    use std::any::Any;
    if x != T::zero() {
        return false;
    }
    let a = &x as &dyn Any;
    if let Some(v) = a.downcast_ref::<num_dual::Dual64>() {
        v.eps == 0.0
    } else if let Some(v) = a.downcast_ref::<num_dual::HyperDual64>() {
        v.eps1 == 0.0 && v.eps2 == 0.0 && v.eps1eps2 == 0.0
    } else {
        true
    }
}
