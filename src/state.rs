//! Configuration-space arithmetic and the state vector (API Reference: `mj_integratePos`,
//! `mj_differentiatePos`, `mj_normalizeQuat`, `mj_stateSize`/`mj_getState`/`mj_setState`;
//! Computation "Numerical integration"). The quaternion maps are in `math::quat`.
//!
//! Quaternions are `[w, x, y, z]`; the angular velocity of ball and free joints is in the
//! body (local) frame, so `q_next = q ⊗ exp(h ω)` (docs/mujoco-behaviour.md#integrators).

#![allow(clippy::needless_range_loop)]

use crate::data::Data;
use crate::math::quat::{quat_integrate, quat_normalize, quat_sub};
use crate::math::Scalar;
use crate::model::{JointType, Model};

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
        integrate_joint(m, qpos, qvel, h, j);
    }
}

/// [`integrate_pos`] of joint `j` alone.
#[inline]
pub fn integrate_joint<T: Scalar>(m: &Model, qpos: &mut [T], qvel: &[T], h: T, j: usize) {
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

#[inline]
fn integrate_quat_at<T: Scalar>(qpos: &mut [T], a: usize, w: &[T; 3], h: T) {
    let mut q = read4(qpos, a);
    quat_integrate(&mut q, w, h);
    qpos[a..a + 4].copy_from_slice(&q);
}

/// `mj_differentiatePos` (API Reference): `qvel = (qpos2 ⊖ qpos1) / h`; quaternions are
/// normalized first and differenced with `quat_sub`, so `integrate_pos(qpos1, qvel, h) == qpos2`.
pub fn differentiate_pos<T: Scalar>(m: &Model, qvel: &mut [T], h: T, qpos1: &[T], qpos2: &[T]) {
    let ih = T::one() / h;
    let dq = |qvel: &mut [T], pa: usize, va: usize| {
        let q1 = quat_normalize(&read4(qpos1, pa));
        let q2 = quat_normalize(&read4(qpos2, pa));
        let r = quat_sub(&q2, &q1);
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
    // each component copied as a slice (a rollout records the state after every step)
    let mut k = 0;
    for i in 0..bits::NSTATE {
        let b = 1u32 << i;
        if spec & b == 0 {
            continue;
        }
        let len = element_size(m, b);
        let o = &mut out[k..k + len];
        k += len;
        match b {
            bits::TIME => o[0] = d.time,
            bits::QPOS => o.copy_from_slice(&d.qpos),
            bits::QVEL => o.copy_from_slice(&d.qvel),
            bits::ACT => o.copy_from_slice(&d.act),
            bits::WARMSTART => o.copy_from_slice(&d.qacc_warmstart),
            bits::CTRL => o.copy_from_slice(&d.ctrl),
            bits::QFRC_APPLIED => o.copy_from_slice(&d.qfrc_applied),
            bits::XFRC_APPLIED => {
                for (c, f) in o.chunks_exact_mut(6).zip(&d.xfrc_applied) {
                    c.copy_from_slice(f.as_slice());
                }
            }
            bits::EQ_ACTIVE => {
                for (x, &a) in o.iter_mut().zip(&d.eq_active) {
                    *x = if a { T::one() } else { T::zero() };
                }
            }
            bits::MOCAP_POS => {
                for (c, p) in o.chunks_exact_mut(3).zip(&d.mocap_pos) {
                    c.copy_from_slice(p.as_slice());
                }
            }
            bits::MOCAP_QUAT => {
                for (c, q) in o.chunks_exact_mut(4).zip(&d.mocap_quat) {
                    c.copy_from_slice(&[q.w, q.i, q.j, q.k]);
                }
            }
            _ => o.fill(T::zero()),
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
