//! Configuration-space arithmetic and the state vector (API Reference: `mj_integratePos`,
//! `mj_differentiatePos`, `mj_stateSize`/`mj_getState`/`mj_setState`, `mjd_subQuat`,
//! `mjd_quatIntegrate`; Computation "Numerical integration").
//!
//! Quaternions are `[w, x, y, z]`; the angular velocity of ball and free joints is in the
//! body (local) frame, so `q_next = q ⊗ exp(h ω)` (docs/mujoco-behaviour.md#integrators).

#![allow(clippy::needless_range_loop)]

use crate::data::{sc, Data, Scalar};
use crate::model::{JointType, Model};

/// Squared norm below which the exp/log maps switch to their Taylor series (smooth for duals).
const SMALL2: f64 = 1e-12;

/// Quaternion product `a ⊗ b`.
#[inline]
pub fn quat_mul<T: Scalar>(a: &[T; 4], b: &[T; 4]) -> [T; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

/// Conjugate (the inverse of a unit quaternion).
#[inline]
pub fn quat_conj<T: Scalar>(q: &[T; 4]) -> [T; 4] {
    [q[0], -q[1], -q[2], -q[3]]
}

/// Normalizes `q`; a (near-)zero quaternion becomes the identity (as `mju_normalize4`).
#[inline]
pub fn quat_normalize<T: Scalar>(q: &[T; 4]) -> [T; 4] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n < sc(1e-15) {
        return [T::one(), T::zero(), T::zero(), T::zero()];
    }
    [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
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

/// `mju_subQuat`: the rotation vector `r` with `qa = qb ⊗ exp(r)`, i.e. `log(qb⁻¹ ⊗ qa)`.
pub fn sub_quat<T: Scalar>(qa: &[T; 4], qb: &[T; 4]) -> [T; 3] {
    quat_log(&quat_mul(&quat_conj(qb), qa))
}

/// `mju_quatIntegrate`: `q ← normalize(q ⊗ exp(h v))`.
pub fn quat_integrate<T: Scalar>(q: &mut [T; 4], v: &[T; 3], h: T) {
    let e = quat_exp(&[v[0] * h, v[1] * h, v[2] * h]);
    *q = quat_normalize(&quat_mul(q, &e));
}

/// Rotates `v` by the unit quaternion `q`.
pub fn quat_rotate<T: Scalar>(q: &[T; 4], v: &[T; 3]) -> [T; 3] {
    let p = quat_mul(&quat_mul(q, &[T::zero(), v[0], v[1], v[2]]), &quat_conj(q));
    [p[1], p[2], p[3]]
}

#[inline]
fn read4<T: Scalar>(x: &[T], a: usize) -> [T; 4] {
    [x[a], x[a + 1], x[a + 2], x[a + 3]]
}

#[inline]
fn read3<T: Scalar>(x: &[T], a: usize) -> [T; 3] {
    [x[a], x[a + 1], x[a + 2]]
}

/// `mj_integratePos` (API Reference): `qpos ← qpos ⊕ h·qvel`. Hinge/slide add `h v`; the free
/// joint's position adds `h v_lin` (world frame); ball and free quaternions are rotated by
/// `exp(h ω)` with `ω` in the local frame and normalized.
pub fn integrate_pos<T: Scalar>(m: &Model, qpos: &mut [T], qvel: &[T], h: T) {
    for j in 0..m.njnt {
        let pa = m.jnt_qposadr[j];
        let va = m.jnt_dofadr[j];
        match m.jnt_type[j] {
            JointType::Free => {
                for k in 0..3 {
                    qpos[pa + k] += h * qvel[va + k];
                }
                integrate_quat_at(qpos, pa + 3, &read3(qvel, va + 3), h);
            }
            JointType::Ball => integrate_quat_at(qpos, pa, &read3(qvel, va), h),
            JointType::Hinge | JointType::Slide => qpos[pa] += h * qvel[va],
        }
    }
}

#[inline]
fn integrate_quat_at<T: Scalar>(qpos: &mut [T], a: usize, w: &[T; 3], h: T) {
    let mut q = read4(qpos, a);
    quat_integrate(&mut q, w, h);
    qpos[a..a + 4].copy_from_slice(&q);
}

/// `mj_differentiatePos` (API Reference): `qvel = (qpos2 ⊖ qpos1) / h`; quaternions are normalized
/// first and differenced with [`sub_quat`], so `integrate_pos(qpos1, qvel, h) == qpos2`.
pub fn differentiate_pos<T: Scalar>(m: &Model, qvel: &mut [T], h: T, qpos1: &[T], qpos2: &[T]) {
    let ih = T::one() / h;
    let dq = |qvel: &mut [T], pa: usize, va: usize| {
        let q1 = quat_normalize(&read4(qpos1, pa));
        let q2 = quat_normalize(&read4(qpos2, pa));
        let r = sub_quat(&q2, &q1);
        for k in 0..3 {
            qvel[va + k] = r[k] * ih;
        }
    };
    for j in 0..m.njnt {
        let pa = m.jnt_qposadr[j];
        let va = m.jnt_dofadr[j];
        match m.jnt_type[j] {
            JointType::Free => {
                for k in 0..3 {
                    qvel[va + k] = (qpos2[pa + k] - qpos1[pa + k]) * ih;
                }
                dq(qvel, pa + 3, va + 3);
            }
            JointType::Ball => dq(qvel, pa, va),
            JointType::Hinge | JointType::Slide => qvel[va] = (qpos2[pa] - qpos1[pa]) * ih,
        }
    }
}

/// Normalizes every ball and free quaternion in `qpos` (`mj_normalizeQuat`).
pub fn normalize_quat<T: Scalar>(m: &Model, qpos: &mut [T]) {
    for j in 0..m.njnt {
        let a = match m.jnt_type[j] {
            JointType::Free => m.jnt_qposadr[j] + 3,
            JointType::Ball => m.jnt_qposadr[j],
            _ => continue,
        };
        let q = quat_normalize(&read4(qpos, a));
        qpos[a..a + 4].copy_from_slice(&q);
    }
}

// ------------------------------------------------------------------ derivatives of quaternion maps

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

/// `mjd_subQuat` (API Reference): Jacobians of `r = sub_quat(qa, qb)` with respect to tangent
/// perturbations `qa ⊗ exp(δa)`, `qb ⊗ exp(δb)`: `Da = Jr⁻¹(r)`, `Db = −Jr⁻¹(r)ᵀ`.
pub fn mjd_sub_quat<T: Scalar>(qa: &[T; 4], qb: &[T; 4]) -> (Mat3<T>, Mat3<T>) {
    let r = sub_quat(qa, qb);
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

// ------------------------------------------------------------------ state vector

/// State component bits (`mjtState`, MuJoCo 4.0.0 values).
pub mod bits {
    pub const TIME: u32 = 1 << 0;
    pub const QPOS: u32 = 1 << 1;
    pub const QVEL: u32 = 1 << 2;
    pub const ACT: u32 = 1 << 3;
    pub const HISTORY: u32 = 1 << 4;
    pub const WARMSTART: u32 = 1 << 5;
    pub const CTRL: u32 = 1 << 6;
    pub const QFRC_APPLIED: u32 = 1 << 7;
    pub const XFRC_APPLIED: u32 = 1 << 8;
    pub const EQ_ACTIVE: u32 = 1 << 9;
    pub const MOCAP_POS: u32 = 1 << 10;
    pub const MOCAP_QUAT: u32 = 1 << 11;
    pub const USERDATA: u32 = 1 << 12;
    pub const PLUGIN: u32 = 1 << 13;
    pub const PLASTIC: u32 = 1 << 14;
    /// Number of element bits.
    pub const NSTATE: u32 = 15;
    pub const PHYSICS: u32 = QPOS | QVEL | ACT | HISTORY | PLASTIC;
    pub const FULLPHYSICS: u32 = TIME | PHYSICS | PLUGIN;
    pub const USER: u32 =
        CTRL | QFRC_APPLIED | XFRC_APPLIED | EQ_ACTIVE | MOCAP_POS | MOCAP_QUAT | USERDATA;
    pub const INTEGRATION: u32 = FULLPHYSICS | USER | WARMSTART;
}

/// Invalid state signature (bits outside `mjSTATE_INTEGRATION`), wrong vector length, or a
/// `Data` whose arrays do not have the model's sizes (made for another model).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateError {
    BadSpec(u32),
    BadLength {
        expected: usize,
        got: usize,
    },
    DataMismatch {
        field: &'static str,
        expected: usize,
        got: usize,
    },
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::BadSpec(s) => write!(f, "invalid state signature {s}"),
            StateError::BadLength { expected, got } => {
                write!(f, "state vector has {got} entries, expected {expected}")
            }
            StateError::DataMismatch {
                field,
                expected,
                got,
            } => write!(
                f,
                "data has {got} entries of {field}, the model needs {expected} (data made for \
                 another model?)"
            ),
        }
    }
}

impl std::error::Error for StateError {}

/// Size of one state element. History, plastic, userdata and plugin state are empty in moreau.
fn element_size(m: &Model, bit: u32) -> usize {
    match bit {
        bits::TIME => 1,
        bits::QPOS => m.nq,
        bits::QVEL | bits::WARMSTART | bits::QFRC_APPLIED => m.nv,
        bits::ACT => m.na,
        bits::CTRL => m.nu,
        bits::XFRC_APPLIED => 6 * m.nbody,
        bits::EQ_ACTIVE => m.neq,
        bits::MOCAP_POS => 3 * m.nmocap,
        bits::MOCAP_QUAT => 4 * m.nmocap,
        _ => 0,
    }
}

/// Name and scalar count of the `Data` array behind one state element.
fn data_element<T: Scalar>(d: &Data<T>, bit: u32) -> (&'static str, usize) {
    match bit {
        bits::TIME => ("time", 1),
        bits::QPOS => ("qpos", d.qpos.len()),
        bits::QVEL => ("qvel", d.qvel.len()),
        bits::ACT => ("act", d.act.len()),
        bits::WARMSTART => ("qacc_warmstart", d.qacc_warmstart.len()),
        bits::CTRL => ("ctrl", d.ctrl.len()),
        bits::QFRC_APPLIED => ("qfrc_applied", d.qfrc_applied.len()),
        bits::XFRC_APPLIED => ("xfrc_applied", 6 * d.xfrc_applied.len()),
        bits::EQ_ACTIVE => ("eq_active", d.eq_active.len()),
        bits::MOCAP_POS => ("mocap_pos", 3 * d.mocap_pos.len()),
        bits::MOCAP_QUAT => ("mocap_quat", 4 * d.mocap_quat.len()),
        _ => ("", 0),
    }
}

/// Checks that the arrays of `d` selected by `spec` have `m`'s sizes.
fn check_data<T: Scalar>(m: &Model, d: &Data<T>, spec: u32) -> Result<(), StateError> {
    for i in 0..bits::NSTATE {
        let b = 1u32 << i;
        if spec & b == 0 {
            continue;
        }
        let (field, got) = data_element(d, b);
        let expected = element_size(m, b);
        if got != expected {
            return Err(StateError::DataMismatch {
                field,
                expected,
                got,
            });
        }
    }
    Ok(())
}

/// The checks of [`get_state`] and [`set_state`]: a valid `spec`, `d` sized for `m`, and a
/// state vector of `len` = `state_size` entries.
fn check_state<T: Scalar>(m: &Model, d: &Data<T>, spec: u32, len: usize) -> Result<(), StateError> {
    let n = state_size(m, spec)?;
    check_data(m, d, spec)?;
    if len != n {
        return Err(StateError::BadLength {
            expected: n,
            got: len,
        });
    }
    Ok(())
}

fn check_spec(spec: u32) -> Result<(), StateError> {
    if spec & !bits::INTEGRATION != 0 {
        Err(StateError::BadSpec(spec))
    } else {
        Ok(())
    }
}

/// `mj_stateSize` (API Reference).
pub fn state_size(m: &Model, spec: u32) -> Result<usize, StateError> {
    check_spec(spec)?;
    Ok((0..bits::NSTATE)
        .map(|i| 1u32 << i)
        .filter(|b| spec & b != 0)
        .map(|b| element_size(m, b))
        .sum())
}

/// `mj_getState` (API Reference): concatenates the components selected by `spec`, in bit order,
/// into `out` (which must have exactly `state_size` entries; `d` must be `m`'s).
pub fn get_state<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    out: &mut [T],
    spec: u32,
) -> Result<(), StateError> {
    check_state(m, d, spec, out.len())?;
    let mut k = 0;
    let mut put = |x: &mut dyn Iterator<Item = T>| {
        for v in x {
            out[k] = v;
            k += 1;
        }
    };
    for i in 0..bits::NSTATE {
        let b = 1u32 << i;
        if spec & b == 0 {
            continue;
        }
        match b {
            bits::TIME => put(&mut std::iter::once(d.time)),
            bits::QPOS => put(&mut d.qpos.iter().copied()),
            bits::QVEL => put(&mut d.qvel.iter().copied()),
            bits::ACT => put(&mut d.act.iter().copied()),
            bits::WARMSTART => put(&mut d.qacc_warmstart.iter().copied()),
            bits::CTRL => put(&mut d.ctrl.iter().copied()),
            bits::QFRC_APPLIED => put(&mut d.qfrc_applied.iter().copied()),
            bits::XFRC_APPLIED => put(&mut d.xfrc_applied.iter().flat_map(|f| f.iter().copied())),
            bits::EQ_ACTIVE => {
                put(&mut d
                    .eq_active
                    .iter()
                    .map(|&a| if a { T::one() } else { T::zero() }))
            }
            bits::MOCAP_POS => put(&mut d.mocap_pos.iter().flat_map(|p| p.iter().copied())),
            bits::MOCAP_QUAT => put(&mut d
                .mocap_quat
                .iter()
                .flat_map(|q| [q.w, q.i, q.j, q.k].into_iter())),
            _ => {}
        }
    }
    Ok(())
}

/// `mj_setState` (API Reference): the inverse of [`get_state`]. `EQ_ACTIVE` entries are true iff
/// nonzero.
pub fn set_state<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    state: &[T],
    spec: u32,
) -> Result<(), StateError> {
    check_state(m, d, spec, state.len())?;
    let mut k = 0;
    for i in 0..bits::NSTATE {
        let b = 1u32 << i;
        if spec & b == 0 {
            continue;
        }
        let len = element_size(m, b);
        let s = &state[k..k + len];
        k += len;
        match b {
            bits::TIME => d.time = s[0],
            bits::QPOS => d.qpos.copy_from_slice(s),
            bits::QVEL => d.qvel.copy_from_slice(s),
            bits::ACT => d.act.copy_from_slice(s),
            bits::WARMSTART => d.qacc_warmstart.copy_from_slice(s),
            bits::CTRL => d.ctrl.copy_from_slice(s),
            bits::QFRC_APPLIED => d.qfrc_applied.copy_from_slice(s),
            bits::XFRC_APPLIED => {
                for (f, c) in d.xfrc_applied.iter_mut().zip(s.chunks_exact(6)) {
                    f.copy_from_slice(c);
                }
            }
            bits::EQ_ACTIVE => {
                for (a, v) in d.eq_active.iter_mut().zip(s) {
                    *a = *v != T::zero();
                }
            }
            bits::MOCAP_POS => {
                for (p, c) in d.mocap_pos.iter_mut().zip(s.chunks_exact(3)) {
                    p.copy_from_slice(c);
                }
            }
            bits::MOCAP_QUAT => {
                for (q, c) in d.mocap_quat.iter_mut().zip(s.chunks_exact(4)) {
                    *q = nalgebra::Quaternion::new(c[0], c[1], c[2], c[3]);
                }
            }
            _ => {}
        }
    }
    Ok(())
}
