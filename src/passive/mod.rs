//! Passive forces (`mj_passive`; Computation "Passive forces", "Polynomial forces"): joint and
//! tendon spring-dampers, gravity compensation and fluid forces ([`crate::passive::fluid`]).

pub mod fluid;
pub(crate) mod spring;

use crate::data::Data;
use crate::math::quat::{normalize_quat, q4, sub_quat};
use crate::math::{sc, Scalar};
use crate::model::{disable, JointType, Model};
use crate::smooth::jacobian::apply_ft_raw;
use nalgebra::{Quaternion, Vector3};
use spring::{tendon_stretch, Spring};

/// Stiffness polynomial force magnitude factor `a + b r + c r²` for a vector displacement of
/// norm `r` (ball and free joints apply it radially).
fn radial<T: Scalar>(k: f64, p: &[f64; 2], r: T) -> T {
    sc::<T>(k) + sc::<T>(p[0]) * r + sc::<T>(p[1]) * r * r
}

/// Tendon `t`'s spring force outside the `tendon_lengthspring` dead band, `-(k x + b x² + c x³)`
/// with `x` the distance past the band; `None` without stiffness or inside the band.
fn tendon_spring<T: Scalar>(m: &Model, d: &Data<T>, t: usize) -> Option<T> {
    let (k, p, x) = tendon_stretch(m, d.ten_length[t], t)?;
    Some(spring_force(k, &p, x))
}

/// The force `-(k x + p₀ x² + p₁ x³)` of a spring stretched by `x`.
fn spring_force<T: Scalar>(k: f64, p: &[f64; 2], x: T) -> T {
    -(x * (sc::<T>(k) + x * (sc::<T>(p[0]) + x * sc::<T>(p[1]))))
}

/// The force `-(k + p₀ r + p₁ r²) v` of a ball joint's (or a free joint's rotational) spring,
/// `v = subQuat(q, q_spring)` with `q` the normalized `qpos[qa..qa + 4]`, `r = |v|`.
fn ball_spring<T: Scalar>(m: &Model, qpos: &[T], qa: usize, k: f64, p: &[f64; 2]) -> Vector3<T> {
    let q = normalize_quat(Quaternion::new(
        qpos[qa],
        qpos[qa + 1],
        qpos[qa + 2],
        qpos[qa + 3],
    ));
    let s = [
        m.qpos_spring[qa],
        m.qpos_spring[qa + 1],
        m.qpos_spring[qa + 2],
        m.qpos_spring[qa + 3],
    ];
    let v = sub_quat(&q, &q4::<T>(&s));
    v * (-radial(k, p, v.norm()))
}

/// Tendon `t`'s damper force `-(a v + b v|v| + c v³)`, `v = ten_velocity`; `None` without
/// damping.
fn tendon_damper<T: Scalar>(m: &Model, d: &Data<T>, t: usize) -> Option<T> {
    let (b, p) = m.tendon_damping_eff(t);
    damper_force(d.ten_velocity[t], b, p)
}

/// The damper force `−v (b + |v| p₀ + v² p₁)` at velocity `v`, or `None` without damping
/// (every coefficient zero: the force is not written).
#[inline]
fn damper_force<T: Scalar>(v: T, b: f64, p: [f64; 2]) -> Option<T> {
    if b == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
        return None;
    }
    Some(-(v * (sc::<T>(b) + v.abs() * sc::<T>(p[0]) + v * v * sc::<T>(p[1]))))
}

/// The passive force along tendon `t` (spring and damper, each unless its flag is disabled), as
/// [`passive`] applies it through `ten_J`.
pub fn tendon_passive_force<T: Scalar>(m: &Model, d: &Data<T>, t: usize) -> T {
    let mut f = T::zero();
    if !m.opt.disabled(disable::SPRING) {
        f += tendon_spring(m, d, t).unwrap_or_else(T::zero);
    }
    if !m.opt.disabled(disable::DAMPER) {
        f += tendon_damper(m, d, t).unwrap_or_else(T::zero);
    }
    f
}

/// Computes `qfrc_spring`, `qfrc_damper`, `qfrc_gravcomp` and their sum `qfrc_passive`.
///
/// - hinge/slide spring: `-(k x + b x² + c x³)`, `x = q - qpos_spring`;
/// - ball (and free rotation): `-(k + b r + c r²) v`, `v = subQuat(q, q_spring)`, `r = |v|`;
///   free translation likewise with `v = p - p_spring`;
/// - dof damper: `-(a v + b v|v| + c v³)`;
/// - tendon spring outside the `tendon_lengthspring` dead band, `-(k x + b x² + c x³)` with `x`
///   the distance past the band; tendon damper `-(a v + b v|v| + c v³)`, `v = ten_velocity`;
/// - gravcomp: force `-gravity · mass · gravcomp` at each body's COM (off if gravity is disabled);
///   not part of `qfrc_passive` for the dofs of `jnt_actgravcomp` joints (see `fwd_actuation`);
/// - fluid forces `qfrc_fluid` ([`crate::passive::fluid::fluid`]).
///
/// With both the spring and damper flags disabled everything (including gravcomp and fluid) is
/// zero.
/// Needs `ten_velocity` (see [`crate::forward::fwd_velocity`]).
pub fn passive<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let z = T::zero();
    for v in [&mut d.qfrc_spring, &mut d.qfrc_damper, &mut d.qfrc_gravcomp] {
        v.iter_mut().for_each(|x| *x = z);
    }
    let spring = !m.opt.disabled(disable::SPRING);
    let damper = !m.opt.disabled(disable::DAMPER);
    if !spring && !damper {
        d.qfrc_passive.iter_mut().for_each(|x| *x = z);
        d.qfrc_fluid.iter_mut().for_each(|x| *x = z);
        return;
    }
    // below, `fluid` clears `qfrc_fluid` and every entry of `qfrc_passive` is assigned (their
    // sum), so neither is cleared here
    let nv = m.nv;
    if spring {
        // the springs of [`springs`] in its order (joints, then tendons), without its iterator
        for j in 0..m.njnt {
            if let Some(sp) = spring::joint_spring(m, j) {
                apply_spring(m, d, sp);
            }
        }
        for t in 0..m.ntendon {
            if let Some(sp) = spring::tendon_spring(m, d.ten_length[t], t) {
                apply_spring(m, d, sp);
            }
        }
    }
    if damper {
        let (actextra, poly) = (&m.dof_actextra, &m.dof_dampingpoly);
        if actextra.len() == nv && poly.len() == nv {
            // `Model::dof_damping_eff` of every dof, from its stored parts
            for ((((f, &v), &b0), p0), e) in d
                .qfrc_damper
                .iter_mut()
                .zip(&d.qvel)
                .zip(&m.dof_damping)
                .zip(poly)
                .zip(actextra)
            {
                if let Some(x) = damper_force(v, b0 + e[0], [p0[0] + e[1], p0[1] + e[2]]) {
                    *f = x;
                }
            }
        } else {
            for i in 0..nv {
                let (b, p) = m.dof_damping_eff(i);
                if let Some(x) = damper_force(d.qvel[i], b, p) {
                    d.qfrc_damper[i] = x;
                }
            }
        }
        for t in 0..m.ntendon {
            let Some(f) = tendon_damper(m, d, t) else {
                continue;
            };
            let s = &d.sparse_scratch;
            for x in s.ten_J_rowadr[t]..s.ten_J_rowadr[t] + s.ten_J_rownnz[t] {
                d.qfrc_damper[s.ten_J_colind[x]] += d.ten_J[x] * f;
            }
        }
    }
    // whether some body has gravity compensation; else qfrc_gravcomp stays +0 and adding it
    // changes no bit of qfrc_passive (its last term qfrc_fluid is accumulated from +0, so
    // neither it nor the sum is ever −0)
    let mut gravcomp = false;
    if !m.opt.disabled(disable::GRAVITY) {
        let g = m.opt.gravity;
        for b in 1..m.nbody {
            let gc = m.body_gravcomp[b];
            if gc == 0.0 {
                continue;
            }
            gravcomp = true;
            let s = -m.body_mass[b] * gc;
            let force = Vector3::new(sc(g[0] * s), sc(g[1] * s), sc(g[2] * s));
            apply_ft_raw(
                m,
                &d.cdof,
                &d.subtree_com,
                &force,
                &Vector3::zeros(),
                &d.xipos[b],
                b,
                &mut d.qfrc_gravcomp,
            );
        }
    }
    crate::passive::fluid::fluid(m, d);
    for i in 0..nv {
        d.qfrc_passive[i] = d.qfrc_spring[i] + d.qfrc_damper[i] + d.qfrc_fluid[i];
    }
    if gravcomp {
        for i in 0..nv {
            // joints with actuatorgravcomp take their gravcomp through qfrc_actuator instead
            if !m
                .jnt_actgravcomp
                .get(m.dof_jntid[i])
                .copied()
                .unwrap_or(false)
            {
                d.qfrc_passive[i] += d.qfrc_gravcomp[i];
            }
        }
    }
}

/// Writes spring `sp`'s force into `qfrc_spring` ([`passive`]).
#[inline]
fn apply_spring<T: Scalar>(m: &Model, d: &mut Data<T>, sp: Spring<T>) {
    match sp {
        Spring::Joint {
            ty,
            qadr: qa,
            dadr: da,
            k,
            p,
        } => match ty {
            JointType::Hinge | JointType::Slide => {
                let x = d.qpos[qa] - sc(m.qpos_spring[qa]);
                d.qfrc_spring[da] = spring_force(k, &p, x);
            }
            JointType::Ball => {
                let f = ball_spring(m, &d.qpos, qa, k, &p);
                d.qfrc_spring[da..da + 3].copy_from_slice(f.as_slice());
            }
            JointType::Free => {
                let dx = Vector3::new(
                    d.qpos[qa] - sc(m.qpos_spring[qa]),
                    d.qpos[qa + 1] - sc(m.qpos_spring[qa + 1]),
                    d.qpos[qa + 2] - sc(m.qpos_spring[qa + 2]),
                );
                let f = dx * (-radial(k, &p, dx.norm()));
                d.qfrc_spring[da..da + 3].copy_from_slice(f.as_slice());
                let f = ball_spring(m, &d.qpos, qa + 3, k, &p);
                d.qfrc_spring[da + 3..da + 6].copy_from_slice(f.as_slice());
            }
        },
        Spring::Tendon { t, k, p, x } => {
            let f = spring_force(k, &p, x);
            let s = &d.sparse_scratch;
            for e in s.ten_J_rowadr[t]..s.ten_J_rowadr[t] + s.ten_J_rownnz[t] {
                d.qfrc_spring[s.ten_J_colind[e]] += d.ten_J[e] * f;
            }
        }
    }
}
