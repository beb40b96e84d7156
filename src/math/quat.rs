//! Quaternions and rotations, `(w, x, y, z)`, in the two representations the pipeline uses:
//! nalgebra's [`Quaternion`] (kinematics, passive and actuator forces, sensors) and `[T; 4]`
//! arrays (the configuration-space arithmetic of `qpos`: `mj_integratePos`,
//! `mj_differentiatePos`), with the exponential and logarithm maps, the SO(3) Jacobians and
//! the derivatives `mjd_subQuat`, `mjd_quatIntegrate` (MuJoCo's "Numerical integration"; the
//! angular velocity of ball and free joints is in the local frame, `q_next = q ⊗ exp(h ω)`).

#![allow(clippy::needless_range_loop)]

use crate::math::{sc, Scalar};
use nalgebra::{Matrix3, Quaternion, Vector3};

// ------------------------------------------------------------------ nalgebra quaternions

/// `[f64; 4]` (w, x, y, z) model constant as a scalar quaternion.
#[inline(always)]
pub fn q4<T: Scalar>(x: &[f64; 4]) -> Quaternion<T> {
    Quaternion::new(sc(x[0]), sc(x[1]), sc(x[2]), sc(x[3]))
}

/// Normalizes a quaternion `[w, x, y, z]` as `mju_normalize4`: a (near) zero quaternion becomes
/// the identity, and one within round-off of unit length (|‖q‖ − 1| ≤ 1e-15) keeps its value.
/// The derivative (dual numbers) is always that of `q/‖q‖`: where the value is kept it is
/// `r − (r − q)` with the difference taken on the values alone, as a constant, which is exact
/// (Sterbenz: `r` and `q` are within a factor of 2), so the value is `q`'s bit for bit. The
/// squares are summed in pairs, `(w² + x²) + (y² + z²)`, then `q · (1/‖q‖)`: equal to
/// `mju_normalize4` to the last bit on 20,000 random quaternions (a left-to-right sum was 1 ulp
/// off on one in ten).
#[inline]
pub fn normalize4<T: Scalar>(q: [T; 4]) -> [T; 4] {
    let n = ((q[0] * q[0] + q[1] * q[1]) + (q[2] * q[2] + q[3] * q[3])).sqrt();
    if n < sc(1e-15) {
        return [T::one(), T::zero(), T::zero(), T::zero()];
    }
    let inv = T::one() / n;
    let r = [q[0] * inv, q[1] * inv, q[2] * inv, q[3] * inv];
    if (n - T::one()).abs() > sc(1e-15) {
        return r;
    }
    let re = |x: T| -> f64 { x.to_subset_unchecked() };
    let c = |a: T, b: T| -> T { sc(re(a) - re(b)) };
    [
        r[0] - c(r[0], q[0]),
        r[1] - c(r[1], q[1]),
        r[2] - c(r[2], q[2]),
        r[3] - c(r[3], q[3]),
    ]
}

/// `normalize4` on a nalgebra quaternion.
#[inline]
pub fn normalize_quat<T: Scalar>(q: Quaternion<T>) -> Quaternion<T> {
    let [w, i, j, k] = normalize4([q.w, q.i, q.j, q.k]);
    Quaternion::new(w, i, j, k)
}

/// The product `a ⊗ b` with MuJoCo 4.0.0's sums (`mju_mulQuat`): each component's four products
/// added in pairs, `(a_w b_w − a_x b_x) + (−a_y b_y − a_z b_z)` and the like (equal to it to the
/// last bit on 20,000 random pairs; a left-to-right sum was 1 ulp off on three in four).
#[inline]
pub fn mul_quat<T: Scalar>(a: &Quaternion<T>, b: &Quaternion<T>) -> Quaternion<T> {
    let (aw, ax, ay, az) = (a.w, a.i, a.j, a.k);
    let (bw, bx, by, bz) = (b.w, b.i, b.j, b.k);
    Quaternion::new(
        (aw * bw - ax * bx) + (-(ay * by) - az * bz),
        (aw * bx + ax * bw) + (ay * bz - az * by),
        (aw * by - ax * bz) + (ay * bw + az * bx),
        (aw * bz + ax * by) + (-(ay * bx) + az * bw),
    )
}

/// Rotation matrix of a unit quaternion, from the products `qᵢqⱼ` with MuJoCo 4.0.0's sums: the
/// diagonal as two differences of squares added, `(w² − y²) + (x² − z²)`, `(w² + y²) − (x² + z²)`,
/// `(w² − y²) + (z² − x²)`, the rest as `2(xy ∓ wz)` and the like (equal to `mju_quat2Mat` to the
/// last bit on 50,000 random unit and non-unit quaternions; nalgebra's sums were 1 ulp off on the
/// diagonal).
#[inline]
pub fn quat2mat<T: Scalar>(q: &Quaternion<T>) -> Matrix3<T> {
    let (w, x, y, z) = (q.w, q.i, q.j, q.k);
    let (q00, q11, q22, q33) = (w * w, x * x, y * y, z * z);
    let (q01, q02, q03) = (w * x, w * y, w * z);
    let (q12, q13, q23) = (x * y, x * z, y * z);
    let two: T = sc(2.0);
    Matrix3::new(
        (q00 - q22) + (q11 - q33),
        two * (q12 - q03),
        two * (q13 + q02),
        two * (q12 + q03),
        (q00 + q22) - (q11 + q33),
        two * (q23 - q01),
        two * (q13 - q02),
        two * (q23 + q01),
        (q00 - q22) + (q33 - q11),
    )
}

/// `v` rotated by the unit quaternion `q`, rounded as MuJoCo 4.0.0's `mju_rotVecQuat`:
/// `v + 2 q⃗ × (w v + q⃗ × v)` (bit for bit on 20,000 random pairs; `quat2mat(q) v` differs in
/// the last bit on 70% of them).
#[inline]
pub fn rot_vec_quat<T: Scalar>(v: &Vector3<T>, q: &Quaternion<T>) -> Vector3<T> {
    let (w, x, y, z) = (q.w, q.i, q.j, q.k);
    let t = [
        w * v.x + y * v.z - z * v.y,
        w * v.y + z * v.x - x * v.z,
        w * v.z + x * v.y - y * v.x,
    ];
    let two: T = sc(2.0);
    Vector3::new(
        v.x + two * (y * t[2] - z * t[1]),
        v.y + two * (z * t[0] - x * t[2]),
        v.z + two * (x * t[1] - y * t[0]),
    )
}

/// Quaternion of a rotation by `angle` about the unit `axis`.
#[inline]
pub fn axis_angle<T: Scalar>(axis: &Vector3<T>, angle: T) -> Quaternion<T> {
    let h = angle * sc(0.5);
    let s = h.sin();
    Quaternion::new(h.cos(), axis.x * s, axis.y * s, axis.z * s)
}

/// Unit quaternion of a rotation matrix (Shepperd's method, w >= 0).
pub fn mat2quat<T: Scalar>(r: &Matrix3<T>) -> Quaternion<T> {
    let one = T::one();
    let quarter: T = sc(0.25);
    let tr = r[(0, 0)] + r[(1, 1)] + r[(2, 2)];
    let q = if tr > T::zero() {
        let s = (tr + one).sqrt() * sc(2.0);
        Quaternion::new(
            quarter * s,
            (r[(2, 1)] - r[(1, 2)]) / s,
            (r[(0, 2)] - r[(2, 0)]) / s,
            (r[(1, 0)] - r[(0, 1)]) / s,
        )
    } else if r[(0, 0)] > r[(1, 1)] && r[(0, 0)] > r[(2, 2)] {
        let s = (one + r[(0, 0)] - r[(1, 1)] - r[(2, 2)]).sqrt() * sc(2.0);
        Quaternion::new(
            (r[(2, 1)] - r[(1, 2)]) / s,
            quarter * s,
            (r[(0, 1)] + r[(1, 0)]) / s,
            (r[(0, 2)] + r[(2, 0)]) / s,
        )
    } else if r[(1, 1)] > r[(2, 2)] {
        let s = (one + r[(1, 1)] - r[(0, 0)] - r[(2, 2)]).sqrt() * sc(2.0);
        Quaternion::new(
            (r[(0, 2)] - r[(2, 0)]) / s,
            (r[(0, 1)] + r[(1, 0)]) / s,
            quarter * s,
            (r[(1, 2)] + r[(2, 1)]) / s,
        )
    } else {
        let s = (one + r[(2, 2)] - r[(0, 0)] - r[(1, 1)]).sqrt() * sc(2.0);
        Quaternion::new(
            (r[(1, 0)] - r[(0, 1)]) / s,
            (r[(0, 2)] + r[(2, 0)]) / s,
            (r[(1, 2)] + r[(2, 1)]) / s,
            quarter * s,
        )
    };
    let q = normalize_quat(q);
    if q.w < T::zero() {
        -q
    } else {
        q
    }
}

/// Rotation vector `v` with `qb · exp(v) = qa` (MuJoCo's `mju_subQuat`, local frame), the angle
/// wrapped to `[-π, π]`.
pub fn sub_quat<T: Scalar>(qa: &Quaternion<T>, qb: &Quaternion<T>) -> Vector3<T> {
    quat2vel(&(qb.conjugate() * qa))
}

/// Rotation vector of a unit quaternion (`mju_quat2Vel` with `dt = 1`).
pub fn quat2vel<T: Scalar>(q: &Quaternion<T>) -> Vector3<T> {
    let v = Vector3::new(q.i, q.j, q.k);
    let s = v.norm();
    if s < sc(1e-15) {
        // first order (zero value, correct derivative at the identity)
        return v * (sc::<T>(2.0) / q.w);
    }
    let mut angle = sc::<T>(2.0) * s.atan2(q.w);
    if angle > T::pi() {
        angle -= T::two_pi();
    }
    v * (angle / s)
}

// ------------------------------------------------------------------ [T; 4] quaternions

/// Squared norm below which the exp/log maps switch to their Taylor series (smooth for duals).
const SMALL2: f64 = 1e-12;

/// Quaternion product `a ⊗ b`, each component's four products summed in pairs as MuJoCo 4.0.0's
/// `mju_mulQuat` rounds them (bit for bit on 300 random pairs; the running sum differs in the
/// last bit on 30% of them).
#[inline]
pub fn quat_mul<T: Scalar>(a: &[T; 4], b: &[T; 4]) -> [T; 4] {
    [
        (a[0] * b[0] - a[1] * b[1]) - (a[2] * b[2] + a[3] * b[3]),
        (a[0] * b[1] + a[1] * b[0]) + (a[2] * b[3] - a[3] * b[2]),
        (a[0] * b[2] - a[1] * b[3]) + (a[2] * b[0] + a[3] * b[1]),
        (a[0] * b[3] + a[1] * b[2]) + (a[3] * b[0] - a[2] * b[1]),
    ]
}

/// Conjugate (the inverse of a unit quaternion).
#[inline]
pub fn quat_conj<T: Scalar>(q: &[T; 4]) -> [T; 4] {
    [q[0], -q[1], -q[2], -q[3]]
}

/// Normalizes `q` as `mju_normalize4` (`normalize4`).
#[inline]
pub fn quat_normalize<T: Scalar>(q: &[T; 4]) -> [T; 4] {
    normalize4(*q)
}

/// Exponential map: the unit quaternion of the rotation vector `t` (angle `|t|` about `t/|t|`).
pub fn quat_exp<T: Scalar>(t: &[T; 3]) -> [T; 4] {
    let s2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
    let (c, k) = if s2 < sc(SMALL2) {
        // cos(x/2), sin(x/2)/x as series in x² (exact to round-off here, smooth at 0)
        (
            T::one() - s2 / sc(8.0) + s2 * s2 / sc(384.0),
            sc::<T>(0.5) - s2 / sc(48.0) + s2 * s2 / sc(3840.0),
        )
    } else {
        let x = s2.sqrt();
        let half = x * sc(0.5);
        (half.cos(), half.sin() / x)
    };
    [c, t[0] * k, t[1] * k, t[2] * k]
}

/// Logarithm map: the rotation vector (angle in `[-π, π]`) of the possibly unnormalized
/// quaternion `q` (MuJoCo's `mju_quat2Vel` with `dt = 1`).
pub fn quat_log<T: Scalar>(q: &[T; 4]) -> [T; 3] {
    // q and -q are the same rotation; pick w >= 0 so the angle is <= π
    let (w, u) = if q[0] < T::zero() {
        (-q[0], [-q[1], -q[2], -q[3]])
    } else {
        (q[0], [q[1], q[2], q[3]])
    };
    let s2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    let k = if s2 < sc::<T>(SMALL2) * w * w {
        // 2 atan(s/w)/s as a series in (s/w)²
        let r = s2 / (w * w);
        sc::<T>(2.0) / w * (T::one() - r / sc(3.0) + r * r / sc(5.0))
    } else {
        let s = s2.sqrt();
        sc::<T>(2.0) * s.atan2(w) / s
    };
    [u[0] * k, u[1] * k, u[2] * k]
}

/// `mju_subQuat` on arrays: the rotation vector `r` with `qa = qb ⊗ exp(r)`, i.e. `log(qb⁻¹ ⊗ qa)`.
pub fn quat_sub<T: Scalar>(qa: &[T; 4], qb: &[T; 4]) -> [T; 3] {
    quat_log(&quat_mul(&quat_conj(qb), qa))
}

/// `mju_quatIntegrate`: `q ← normalize(q) ⊗ exp(h v)`, rounded as MuJoCo 4.0.0 rounds it: the
/// axis `v·(1/|v|)`, the angle `h|v|`, the rotation `(cos(angle/2), axis·sin(angle/2))` (bit for
/// bit on 6,000 random quaternions, unit and not, and velocities; `exp(h v)` as a whole differs
/// in the last bit on 22% of them, which moves MuJoCo's test model's chaotic height-field
/// cylinder contact under the FD perturbations of `mjd_transitionFD`). A velocity below 1e-15
/// takes the series of `exp` (the derivative at `v = 0` for dual numbers; the value is `q`'s to
/// rounding).
pub fn quat_integrate<T: Scalar>(q: &mut [T; 4], v: &[T; 3], h: T) {
    let qn = quat_normalize(q);
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if n < sc(1e-15) {
        let e = quat_exp(&[v[0] * h, v[1] * h, v[2] * h]);
        *q = quat_mul(&qn, &e);
        return;
    }
    let inv = T::one() / n;
    let half = h * n * sc(0.5);
    let s = half.sin();
    let e = [half.cos(), v[0] * inv * s, v[1] * inv * s, v[2] * inv * s];
    *q = quat_mul(&qn, &e);
}

// ------------------------------------------------------------------ derivatives of the maps

/// 3×3 row-major matrix.
pub type Mat3<T> = [[T; 3]; 3];

fn skew<T: Scalar>(t: &[T; 3]) -> Mat3<T> {
    let z = T::zero();
    [[z, -t[2], t[1]], [t[2], z, -t[0]], [-t[1], t[0], z]]
}

fn mat_mul<T: Scalar>(a: &Mat3<T>, b: &Mat3<T>) -> Mat3<T> {
    let mut r = [[T::zero(); 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                r[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    r
}

/// `I + a K + b K²` with `K = [t]×`.
fn poly_skew<T: Scalar>(t: &[T; 3], a: T, b: T) -> Mat3<T> {
    let k = skew(t);
    let k2 = mat_mul(&k, &k);
    let mut r = [[T::zero(); 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            r[i][j] = a * k[i][j] + b * k2[i][j];
        }
        r[i][i] += T::one();
    }
    r
}

/// Inverse right Jacobian of SO(3): `I + K/2 + c K²`,
/// `c = 1/θ² − (1 + cos θ)/(2 θ sin θ)` (→ 1/12 at 0). Also `dexp⁻¹` of RKMK
/// (docs/mujoco-behaviour.md#integrators).
pub fn so3_jr_inv<T: Scalar>(t: &[T; 3]) -> Mat3<T> {
    poly_skew(t, sc(0.5), dexpinv_coef(t))
}

/// The coefficient `c(θ)` of [`so3_jr_inv`].
pub fn dexpinv_coef<T: Scalar>(t: &[T; 3]) -> T {
    let s2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
    if s2 < sc(1e-6) {
        // 1/12 + θ²/720 + θ⁴/30240
        sc::<T>(1.0 / 12.0) + s2 / sc(720.0) + s2 * s2 / sc(30240.0)
    } else {
        let x = s2.sqrt();
        T::one() / s2 - (T::one() + x.cos()) / (sc::<T>(2.0) * x * x.sin())
    }
}

/// Right Jacobian of SO(3): `I − (1 − cos θ)/θ² K + (θ − sin θ)/θ³ K²`.
pub fn so3_jr<T: Scalar>(t: &[T; 3]) -> Mat3<T> {
    let s2 = t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
    let (a, b) = if s2 < sc(1e-6) {
        (
            -(sc::<T>(0.5) - s2 / sc(24.0) + s2 * s2 / sc(720.0)),
            sc::<T>(1.0 / 6.0) - s2 / sc(120.0) + s2 * s2 / sc(5040.0),
        )
    } else {
        let x = s2.sqrt();
        (-(T::one() - x.cos()) / s2, (x - x.sin()) / (s2 * x))
    };
    poly_skew(t, a, b)
}

/// `mjd_subQuat` (API Reference): Jacobians of `r = quat_sub(qa, qb)` with respect to tangent
/// perturbations `qa ⊗ exp(δa)`, `qb ⊗ exp(δb)`: `Da = Jr⁻¹(r)`, `Db = −Jr⁻¹(r)ᵀ`.
pub fn mjd_sub_quat<T: Scalar>(qa: &[T; 4], qb: &[T; 4]) -> (Mat3<T>, Mat3<T>) {
    let r = quat_sub(qa, qb);
    let da = so3_jr_inv(&r);
    let mut db = [[T::zero(); 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            db[i][j] = -da[j][i];
        }
    }
    (da, db)
}

/// `mjd_quatIntegrate` (API Reference) for `q ← q ⊗ exp(s)`, `s = h v`, in tangent coordinates:
/// `Dq = exp(−[s]×)`, `Dv = Jr(s)`, `Dh = v`. As in MuJoCo 4.0.0 (checked against the
/// engine), `Dv` is the Jacobian with respect to `s`, i.e. *not* multiplied by `h`.
pub fn mjd_quat_integrate<T: Scalar>(v: &[T; 3], h: T) -> (Mat3<T>, Mat3<T>, [T; 3]) {
    let s = [v[0] * h, v[1] * h, v[2] * h];
    let s2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
    // exp(-K) = I - sin θ/θ K + (1 - cos θ)/θ² K²
    let (a, b) = if s2 < sc(1e-6) {
        (
            -(T::one() - s2 / sc(6.0) + s2 * s2 / sc(120.0)),
            sc::<T>(0.5) - s2 / sc(24.0) + s2 * s2 / sc(720.0),
        )
    } else {
        let x = s2.sqrt();
        (-x.sin() / x, (T::one() - x.cos()) / s2)
    };
    (poly_skew(&s, a, b), so3_jr(&s), *v)
}

/// `dexp⁻¹(θ, ω) = ω + θ×ω/2 + c(θ) θ×(θ×ω)` (docs/mujoco-behaviour.md#integrators).
pub fn dexpinv<T: Scalar>(th: &[T; 3], w: &[T; 3]) -> [T; 3] {
    let cr = |a: &[T; 3], b: &[T; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let c = dexpinv_coef(th);
    let t1 = cr(th, w);
    let t2 = cr(th, &t1);
    let half: T = sc(0.5);
    [
        w[0] + half * t1[0] + c * t2[0],
        w[1] + half * t1[1] + c * t2[1],
        w[2] + half * t1[2] + c * t2[2],
    ]
}
