//! Potential and kinetic energy (`mj_energyPos`, `mj_energyVel`), computed by the forward and
//! inverse pipelines when the `energy` flag is enabled (XML Reference "option/flag": energy).
//!
//! `energy[0]` is the gravitational potential `−Σ_b m_b g·xipos_b` (unless gravity is
//! disabled) plus the potential of the joint and tendon springs (unless springs are disabled):
//! the integral of the spring force of Computation "Passive forces", `k x²/2 + b x³/3 + c x⁴/4`
//! for the polynomial stiffness `(k, b, c)` at displacement `x` (the rotation vector's norm for
//! ball joints and the free joint's rotation, the translation's norm for its position, the
//! distance past the `springlength` dead band for tendons). `energy[1] = ½ q̇ᵀ M q̇`.

use crate::data::Data;
use crate::math::quat::{q4, sub_quat};
use crate::math::{sc, Scalar};
use crate::model::{disable, enable, JointType, Model};
use crate::passive::spring::{springs, Spring};
use crate::smooth::crb::mul_sparse;
use nalgebra::{Quaternion, Vector3};

/// Potential of a spring of stiffness `k` and polynomial coefficients `p` stretched by `x`.
fn spring_potential<T: Scalar>(k: f64, p: &[f64; 2], x: T) -> T {
    let x2 = x * x;
    x2 * (sc::<T>(k / 2.0) + x * (sc::<T>(p[0] / 3.0) + x * sc::<T>(p[1] / 4.0)))
}

/// The energy after `mj_forward`'s position stage and its sensors: `mj_energyPos` with the
/// `energy` flag enabled; else both energies are zeroed, unless a potential-energy sensor
/// computed them since the position stage began (`mj_inverse` leaves them as they are).
pub fn energy_stage_pos<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if m.opt.enabled(enable::ENERGY) {
        energy_pos(m, d);
    } else if !d.flg_energypos {
        d.energy = [T::zero(); 2];
    }
}

/// `energy[0]`, the potential energy (`mj_energyPos`); needs the position stage.
pub fn energy_pos<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let mut e = T::zero();
    if !m.opt.disabled(disable::GRAVITY) {
        let g = Vector3::new(
            sc::<T>(m.opt.gravity[0]),
            sc(m.opt.gravity[1]),
            sc(m.opt.gravity[2]),
        );
        for b in 1..m.nbody {
            e -= sc::<T>(m.body_mass[b]) * g.dot(&d.xipos[b]);
        }
    }
    if !m.opt.disabled(disable::SPRING) {
        let quat = |qa: usize| {
            sub_quat(
                &Quaternion::new(d.qpos[qa], d.qpos[qa + 1], d.qpos[qa + 2], d.qpos[qa + 3]),
                &q4::<T>(&[
                    m.qpos_spring[qa],
                    m.qpos_spring[qa + 1],
                    m.qpos_spring[qa + 2],
                    m.qpos_spring[qa + 3],
                ]),
            )
            .norm()
        };
        for sp in springs(m, &d.ten_length) {
            match sp {
                Spring::Joint {
                    ty, qadr: qa, k, p, ..
                } => match ty {
                    JointType::Hinge | JointType::Slide => {
                        e += spring_potential(k, &p, d.qpos[qa] - sc(m.qpos_spring[qa]));
                    }
                    JointType::Ball => e += spring_potential(k, &p, quat(qa)),
                    JointType::Free => {
                        let dx =
                            Vector3::from_fn(|a, _| d.qpos[qa + a] - sc(m.qpos_spring[qa + a]));
                        e += spring_potential(k, &p, dx.norm());
                        e += spring_potential(k, &p, quat(qa + 3));
                    }
                },
                Spring::Tendon { k, p, x, .. } => e += spring_potential(k, &p, x),
            }
        }
    }
    d.energy[0] = e;
    d.flg_energypos = true;
}

/// `energy[1] = ½ q̇ᵀ M q̇`, the kinetic energy (`mj_energyVel`); needs `qM` (the position
/// stage). Allocation-free.
pub fn energy_vel<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let mut mv = std::mem::take(&mut d.scratch_nv[0]);
    mul_sparse(m, &d.qM, &d.qvel, &mut mv);
    let mut e = T::zero();
    for (a, v) in mv.iter().zip(&d.qvel) {
        e += *a * *v;
    }
    d.scratch_nv[0] = mv;
    d.energy[1] = sc::<T>(0.5) * e;
    d.flg_energyvel = true;
}
