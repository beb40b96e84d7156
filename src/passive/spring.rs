//! The springs that act on the system (Computation "Passive forces", "Polynomial forces"): joints
//! with a stiffness, and tendons with a stiffness stretched past their `springlength` dead band.
//! [`crate::passive::passive`] applies their forces and [`crate::energy::energy_pos`] sums their
//! potential, both by walking [`springs`], so the two visit the same springs in the same order.

use crate::math::{sc, Scalar};
use crate::model::{JointType, Model};

/// One active spring of [`springs`], with its stiffness `k` and polynomial coefficients `p`
/// (force `k x + p₀ x² + p₁ x³` at displacement `x`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Spring<T> {
    /// A joint whose stiffness is not zero; its displacement is read from `qpos` at `qadr`
    /// against `qpos_spring` (how depends on the type: a scalar for hinges and slides, a rotation
    /// for balls, a translation and a rotation for free joints). Its force acts on the dofs from
    /// `dadr`.
    Joint {
        ty: JointType,
        qadr: usize,
        dadr: usize,
        k: f64,
        p: [f64; 2],
    },
    /// Tendon `t`, stretched by `x` past its dead band (negative below it).
    Tendon { t: usize, k: f64, p: [f64; 2], x: T },
}

/// Tendon `t`'s stiffness, coefficients and stretch past its dead band, from its length
/// `len`; `None` without stiffness or inside the band.
pub(crate) fn tendon_stretch<T: Scalar>(m: &Model, len: T, t: usize) -> Option<(f64, [f64; 2], T)> {
    let k = m.tendon_stiffness[t];
    let p = m.tendon_stiffnesspoly.get(t).copied().unwrap_or([0.0; 2]);
    if k == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
        return None;
    }
    let [lo, hi] = m.tendon_lengthspring[t];
    let x = if len > sc(hi) {
        len - sc(hi)
    } else if len < sc(lo) {
        len - sc(lo)
    } else {
        return None;
    };
    Some((k, p, x))
}

/// Joint `j`'s spring, or `None` without a stiffness (the joints [`springs`] visits).
#[inline]
pub(crate) fn joint_spring<T>(m: &Model, j: usize) -> Option<Spring<T>> {
    let k = m.jnt_stiffness[j];
    let p = m.jnt_stiffnesspoly[j];
    if k == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
        return None;
    }
    Some(Spring::Joint {
        ty: m.jnt_type[j],
        qadr: m.jnt_qposadr[j],
        dadr: m.jnt_dofadr[j],
        k,
        p,
    })
}

/// Tendon `t`'s spring at length `len`, or `None` without a stiffness or inside its dead
/// band (the tendons [`springs`] visits).
#[inline]
pub(crate) fn tendon_spring<T: Scalar>(m: &Model, len: T, t: usize) -> Option<Spring<T>> {
    tendon_stretch(m, len, t).map(|(k, p, x)| Spring::Tendon { t, k, p, x })
}

/// The active springs: the joints with a stiffness in joint order ([`joint_spring`]), then the
/// stretched tendons in tendon order ([`tendon_spring`]; `ten_length` is `Data::ten_length`).
pub(crate) fn springs<'a, T: Scalar>(m: &'a Model, ten_length: &'a [T]) -> Springs<'a, T> {
    Springs {
        m,
        ten_length,
        j: 0,
        t: 0,
    }
}

/// The iterator of [`springs`]: a plain loop over the joints, then the tendons, whose `next` is
/// inlined into its callers' loops (the potential energy runs it on every forward; the passive
/// forces loop over [`joint_spring`] and [`tendon_spring`] themselves, in the same order).
pub(crate) struct Springs<'a, T> {
    m: &'a Model,
    ten_length: &'a [T],
    /// The next joint to look at.
    j: usize,
    /// The next tendon to look at.
    t: usize,
}

impl<T: Scalar> Iterator for Springs<'_, T> {
    type Item = Spring<T>;

    #[inline]
    fn next(&mut self) -> Option<Spring<T>> {
        let m = self.m;
        while self.j < m.njnt {
            let j = self.j;
            self.j += 1;
            if let Some(sp) = joint_spring(m, j) {
                return Some(sp);
            }
        }
        while self.t < m.ntendon {
            let t = self.t;
            self.t += 1;
            if let Some(sp) = tendon_spring(m, self.ten_length[t], t) {
                return Some(sp);
            }
        }
        None
    }
}
