//! Quaternion derivatives in tangent coordinates (API Reference `mjd_subQuat`,
//! `mjd_quatIntegrate`), generic over moreau's scalar types.
//!
//! Conventions (MuJoCo's): quaternions are (w, x, y, z); a rotation vector `s` acts on the
//! right, `q ⊗ exp(s)` (`mju_quatIntegrate(q, v, h)` with `s = h v`), and a quaternion is
//! perturbed in its local tangent space, `q ⊗ exp(δ)`. `mju_subQuat(qa, qb) = log(qb⁻¹ ⊗ qa)`.
//! Matrices are `∂output/∂input` (rows = outputs).
//!
//! With the SO(3) right Jacobian `Jr(s) = I − (1 − cos θ)/θ² [s]× + (θ − sin θ)/θ³ [s]×²`
//! (`θ = |s|`), `exp(s + ds) ≈ exp(s) ⊗ exp(Jr(s) ds)`.

use moreau::pipeline::{sc, sub_quat};
use moreau::Scalar;
use nalgebra::{Matrix3, Quaternion, Vector3};

/// Below this θ² the trigonometric coefficients use their Taylor series (exact to round-off
/// for θ < 1e-4 with the terms kept, and well defined for dual numbers at θ = 0).
const SERIES: f64 = 1e-8;

/// Skew-symmetric cross-product matrix `[v]×`.
#[inline]
pub fn skew<T: Scalar>(v: &Vector3<T>) -> Matrix3<T> {
    let z = T::zero();
    Matrix3::new(z, -v.z, v.y, v.z, z, -v.x, -v.y, v.x, z)
}

/// `(sin θ/θ, (1 − cos θ)/θ², (θ − sin θ)/θ³)` for `θ² = t2`.
#[inline]
fn rodrigues_coefs<T: Scalar>(t2: T) -> (T, T, T) {
    if t2 < sc(SERIES) {
        let t4 = t2 * t2;
        (
            T::one() - t2 / sc(6.0) + t4 / sc(120.0),
            sc::<T>(0.5) - t2 / sc(24.0) + t4 / sc(720.0),
            sc::<T>(1.0 / 6.0) - t2 / sc(120.0) + t4 / sc(5040.0),
        )
    } else {
        let t = t2.sqrt();
        let s = t.sin();
        let h = (t * sc(0.5)).sin();
        (s / t, sc::<T>(2.0) * h * h / t2, (t - s) / (t2 * t))
    }
}

/// Rotation matrix `exp([s]×)` (Rodrigues).
pub fn exp_so3<T: Scalar>(s: &Vector3<T>) -> Matrix3<T> {
    let (a, b, _) = rodrigues_coefs(s.dot(s));
    let k = skew(s);
    Matrix3::identity() + k * a + k * k * b
}

/// Unit quaternion `exp(s)` of the rotation vector `s` (rotation by `|s|` about `s/|s|`).
pub fn quat_exp<T: Scalar>(s: &Vector3<T>) -> Quaternion<T> {
    let half = s * sc::<T>(0.5);
    let t2 = half.dot(&half);
    let (w, c) = if t2 < sc(SERIES) {
        (
            T::one() - t2 / sc(2.0) + t2 * t2 / sc(24.0),
            T::one() - t2 / sc(6.0) + t2 * t2 / sc(120.0),
        )
    } else {
        let t = t2.sqrt();
        (t.cos(), t.sin() / t)
    };
    Quaternion::new(w, half.x * c, half.y * c, half.z * c)
}

/// SO(3) right Jacobian `Jr(s)`: `exp(s + ds) ≈ exp(s) ⊗ exp(Jr(s) ds)`.
pub fn right_jacobian<T: Scalar>(s: &Vector3<T>) -> Matrix3<T> {
    let (_, b, c) = rodrigues_coefs(s.dot(s));
    let k = skew(s);
    Matrix3::identity() - k * b + k * k * c
}

/// Inverse right Jacobian `Jr⁻¹(r) = I + [r]×/2 + (1/θ² − (1 + cos θ)/(2 θ sin θ)) [r]×²`
/// (singular at θ = π, where the logarithm itself is).
pub fn right_jacobian_inv<T: Scalar>(r: &Vector3<T>) -> Matrix3<T> {
    let t2 = r.dot(r);
    let c = if t2 < sc(SERIES) {
        sc::<T>(1.0 / 12.0) + t2 / sc(720.0) + t2 * t2 / sc(30240.0)
    } else {
        let t = t2.sqrt();
        T::one() / t2 - (T::one() + t.cos()) / (sc::<T>(2.0) * t * t.sin())
    };
    let k = skew(r);
    let half: T = sc(0.5);
    Matrix3::identity() + k * half + k * k * c
}

/// Jacobians of `r = mju_subQuat(qa, qb) = log(qb⁻¹ ⊗ qa)` (`mjd_subQuat`) with respect to local
/// perturbations `qa ⊗ exp(δa)` and `qb ⊗ exp(δb)`: `Da = Jr⁻¹(r)`, `Db = −Jr⁻¹(r) R(r)ᵀ =
/// −Jr⁻¹(−r)`. Returns `(Da, Db)`. Quaternions need not be normalized.
pub fn sub_quat_deriv<T: Scalar>(
    qa: &Quaternion<T>,
    qb: &Quaternion<T>,
) -> (Matrix3<T>, Matrix3<T>) {
    let qa = moreau::pipeline::normalize_quat(*qa);
    let qb = moreau::pipeline::normalize_quat(*qb);
    let r = sub_quat(&qa, &qb);
    (right_jacobian_inv(&r), -right_jacobian_inv(&(-r)))
}

/// Jacobians of `q ← mju_quatIntegrate(q̄, v, h) = q̄ ⊗ exp(h v)` (`mjd_quatIntegrate`), in the
/// local tangent spaces of `q̄` and `q`, exactly as MuJoCo 4.0.0 returns them. With `s = h v`:
/// - `Dquat = ∂q/∂q̄ = exp([s]×)ᵀ`;
/// - `Dvel = Jr(s)`: MuJoCo 4.0.0 returns the derivative with respect to the **scaled**
///   velocity `s` (checked against the oracle for h ≠ 1), so `∂q/∂v = h · Dvel` (the API Reference
///   calls it `∂q/∂v`; they agree for `h = 1`);
/// - `Dscale = ∂q/∂h = Jr(s) v`.
///
/// Returns `(Dquat, Dvel, Dscale)`.
pub fn quat_integrate_deriv<T: Scalar>(
    vel: &Vector3<T>,
    scale: T,
) -> (Matrix3<T>, Matrix3<T>, Vector3<T>) {
    let s = vel * scale;
    let jr = right_jacobian(&s);
    (exp_so3(&s).transpose(), jr, jr * vel)
}
