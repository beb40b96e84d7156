//! Passive forces (`mj_passive`; Computation "Passive forces", "Polynomial forces"): joint and
//! tendon spring-dampers, gravity compensation and fluid forces ([`crate::passive::fluid`]).

pub mod fluid;

use crate::data::Data;
use crate::math::quat::{normalize_quat, q4, sub_quat};
use crate::math::{sc, Scalar};
use crate::model::{disable, JointType, Model};
use crate::smooth::jacobian::apply_ft_raw;
use nalgebra::{Quaternion, Vector3};

/// Stiffness polynomial force magnitude factor `a + b r + c r²` for a vector displacement of
/// norm `r` (ball and free joints apply it radially).
fn radial<T: Scalar>(k: f64, p: &[f64; 2], r: T) -> T {
    sc::<T>(k) + sc::<T>(p[0]) * r + sc::<T>(p[1]) * r * r
}

/// Tendon `t`'s spring force outside the `tendon_lengthspring` dead band, `-(k x + b x² + c x³)`
/// with `x` the distance past the band; `None` without stiffness or inside the band.
fn tendon_spring<T: Scalar>(m: &Model, d: &Data<T>, t: usize) -> Option<T> {
    let k = m.tendon_stiffness[t];
    let p = m.tendon_stiffnesspoly.get(t).copied().unwrap_or([0.0; 2]);
    if k == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
        return None;
    }
    let [lo, hi] = m.tendon_lengthspring[t];
    let l = d.ten_length[t];
    let x = if l > sc(hi) {
        l - sc(hi)
    } else if l < sc(lo) {
        l - sc(lo)
    } else {
        return None;
    };
    Some(-(x * (sc::<T>(k) + x * (sc::<T>(p[0]) + x * sc::<T>(p[1])))))
}

/// Tendon `t`'s damper force `-(a v + b v|v| + c v³)`, `v = ten_velocity`; `None` without
/// damping.
fn tendon_damper<T: Scalar>(m: &Model, d: &Data<T>, t: usize) -> Option<T> {
    let (b, p) = m.tendon_damping_eff(t);
    if b == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
        return None;
    }
    let v = d.ten_velocity[t];
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
    for v in [
        &mut d.qfrc_spring,
        &mut d.qfrc_damper,
        &mut d.qfrc_gravcomp,
        &mut d.qfrc_passive,
    ] {
        v.iter_mut().for_each(|x| *x = z);
    }
    d.qfrc_fluid.iter_mut().for_each(|x| *x = z);
    let spring = !m.opt.disabled(disable::SPRING);
    let damper = !m.opt.disabled(disable::DAMPER);
    if !spring && !damper {
        return;
    }
    let nv = m.nv;
    if spring {
        for j in 0..m.njnt {
            let k = m.jnt_stiffness[j];
            let p = &m.jnt_stiffnesspoly[j];
            if k == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
                continue;
            }
            let qa = m.jnt_qposadr[j];
            let da = m.jnt_dofadr[j];
            let rot = |d: &mut Data<T>, qa: usize, da: usize| {
                let q = normalize_quat(Quaternion::new(
                    d.qpos[qa],
                    d.qpos[qa + 1],
                    d.qpos[qa + 2],
                    d.qpos[qa + 3],
                ));
                let s = [
                    m.qpos_spring[qa],
                    m.qpos_spring[qa + 1],
                    m.qpos_spring[qa + 2],
                    m.qpos_spring[qa + 3],
                ];
                let v = sub_quat(&q, &q4::<T>(&s));
                let f = v * (-radial(k, p, v.norm()));
                for a in 0..3 {
                    d.qfrc_spring[da + a] = f[a];
                }
            };
            match m.jnt_type[j] {
                JointType::Hinge | JointType::Slide => {
                    let x = d.qpos[qa] - sc(m.qpos_spring[qa]);
                    d.qfrc_spring[da] =
                        -(x * (sc::<T>(k) + x * (sc::<T>(p[0]) + x * sc::<T>(p[1]))));
                }
                JointType::Ball => rot(d, qa, da),
                JointType::Free => {
                    let dx = Vector3::new(
                        d.qpos[qa] - sc(m.qpos_spring[qa]),
                        d.qpos[qa + 1] - sc(m.qpos_spring[qa + 1]),
                        d.qpos[qa + 2] - sc(m.qpos_spring[qa + 2]),
                    );
                    let f = dx * (-radial(k, p, dx.norm()));
                    for a in 0..3 {
                        d.qfrc_spring[da + a] = f[a];
                    }
                    rot(d, qa + 3, da + 3);
                }
            }
        }
        for t in 0..m.ntendon {
            let Some(f) = tendon_spring(m, d, t) else {
                continue;
            };
            let s = &d.sparse_scratch;
            for x in s.ten_J_rowadr[t]..s.ten_J_rowadr[t] + s.ten_J_rownnz[t] {
                d.qfrc_spring[s.ten_J_colind[x]] += d.ten_J[x] * f;
            }
        }
    }
    if damper {
        for i in 0..nv {
            let (b, p) = m.dof_damping_eff(i);
            if b == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
                continue;
            }
            let v = d.qvel[i];
            d.qfrc_damper[i] =
                -(v * (sc::<T>(b) + v.abs() * sc::<T>(p[0]) + v * v * sc::<T>(p[1])));
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
