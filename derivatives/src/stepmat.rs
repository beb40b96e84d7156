//! The implicit step matrix `He` of the Euler/implicit integrators, as the step builds it, and
//! `∂(He a)/∂x` for a fixed vector `a` (the chain rule of [`crate::contact`]; seed 000
//! "Numerical integration", mujoco-facts §6 and Surprises 13, 15).
//!
//! The step solves `He a_int = M qacc` with
//! - Euler with implicit damping: `He = M + h diag(s(v))`, `s_i = b_i + 2 p0_i |v_i| + 3 p1_i v_i²`
//!   the damping slope (actuator damping included);
//! - implicitfast: `He = M − h S∘sym(qDeriv)` (`qDeriv` without the RNE part, `S` M's pattern),
//!   except the 6×6 block of a childless free body, `M_b − h (qDeriv_b − ∂qfrc_bias_b/∂v_b)`
//!   (not symmetrized: MuJoCo 4.0.0's exact gyroscopic block);
//! - implicit: `He = M − h S∘qDeriv` with the RNE part, not symmetrized (an LU).
//!
//! [`he_offset`] is `He − M` on any scalar type; [`d_he_offset_vec`] differentiates
//! `(He − M) a` by `Dual64` passes restricted to the stages `He` reads: per position tangent
//! kinematics, COM, tendons, transmission (collision only for body transmissions), velocities
//! and actuation; per velocity the velocity stage and actuation; per activation/control the
//! actuation alone.

#![allow(clippy::needless_range_loop)]

use crate::rnea::Work;
use moreau::derivative::{d_rne_vel, is_ancestor, smooth_vel};
use moreau::integrator::gyro_blocks;
use moreau::inverse::{damping_slope, euler_damped};
use moreau::model::{GainType, Integrator, Model, TrnType};
use moreau::spatial::dof_parent;
use moreau::{Data, Scalar};
use nalgebra::DMatrix;
use num_dual::Dual64;

/// True if some dof or tendon has a damping polynomial (actuator damping included).
pub fn poly_damping(m: &Model) -> bool {
    let nz = |p: [f64; 2]| p[0] != 0.0 || p[1] != 0.0;
    (0..m.nv).any(|i| nz(m.dof_damping_eff(i).1))
        || (0..m.ntendon).any(|t| nz(m.tendon_damping_eff(t).1))
}

/// True if some actuator's gain depends on its velocity (affine `gainprm[2]`, muscles).
pub fn velocity_gain(m: &Model) -> bool {
    (0..m.nu).any(|u| {
        let g = m.actuator_gaintype[u];
        g == GainType::Muscle || (g == GainType::Affine && m.actuator_gainprm[u][2] != 0.0)
    })
}

/// True if the implicit(fast) step's `He` depends on the state or the inputs beyond what
/// [`crate::qderiv_pos`] covers (`∂qDeriv/∂q` with constant weights): the implicit integrator,
/// or implicitfast with polynomial damping, velocity-dependent gains or childless free bodies.
/// [`d_he_offset_vec`] then gives `∂(He a)/∂x`.
pub fn needs_dual(m: &Model) -> bool {
    match m.opt.integrator {
        Integrator::Implicit => true,
        Integrator::ImplicitFast => {
            poly_damping(m) || velocity_gain(m) || gyro_blocks(m).next().is_some()
        }
        _ => false,
    }
}

/// `He − M` (dense, row-major `nv × nv`, overwritten) as the model's integrator builds it (module
/// docs), from the position, velocity and actuation results in `d`; zero for RK4 and for Euler
/// without implicit damping. Writes `d.qDeriv` (implicit integrators).
pub fn he_offset<T: Scalar>(m: &Model, d: &mut Data<T>, out: &mut [T]) {
    he_offset_masked(m, d, out, &|_| true);
}

/// [`he_offset`] with the gyroscopic term `∂qfrc_bias_b/∂v_b` of the free block starting at
/// dof `a` evaluated only where `gyro(a)`; elsewhere it is taken as zero, which is exact for the
/// derivative part of a dual pass whose seed cannot move that block (not for the values).
fn he_offset_masked<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    out: &mut [T],
    gyro: &dyn Fn(usize) -> bool,
) {
    let nv = m.nv;
    let h: T = moreau::data::sc(m.opt.timestep);
    out.iter_mut().for_each(|x| *x = T::zero());
    match m.opt.integrator {
        Integrator::Rk4 => {}
        Integrator::Euler => {
            if euler_damped(m) {
                for i in 0..nv {
                    out[i * nv + i] = h * damping_slope(m, d, i);
                }
            }
        }
        Integrator::Implicit | Integrator::ImplicitFast => {
            let fast = m.opt.integrator == Integrator::ImplicitFast;
            smooth_vel(m, d, !fast);
            let q = &d.qDeriv;
            for i in 0..nv {
                let mut j = Some(i);
                while let Some(ju) = j {
                    if fast {
                        let s = (q[i * nv + ju] + q[ju * nv + i]) * moreau::data::sc(0.5);
                        out[i * nv + ju] = -(h * s);
                        out[ju * nv + i] = -(h * s);
                    } else {
                        out[i * nv + ju] = -(h * q[i * nv + ju]);
                        out[ju * nv + i] = -(h * q[ju * nv + i]);
                    }
                    j = dof_parent(m, ju);
                }
            }
            if fast {
                // ∂qfrc_bias/∂v of each block into d.qLU (scratch, as the step does)
                let mut g = std::mem::take(&mut d.qLU);
                for a in gyro_blocks(m) {
                    for r in a..a + 6 {
                        g[r * nv + a..r * nv + a + 6].fill(T::zero());
                    }
                    if gyro(a) {
                        d_rne_vel(m, d, a..a + 6, &mut g);
                    }
                    let q = &d.qDeriv;
                    for r in a..a + 6 {
                        for c in a..a + 6 {
                            out[r * nv + c] = -(h * (q[r * nv + c] - g[r * nv + c]));
                        }
                    }
                }
                d.qLU = g;
            }
        }
    }
}

/// `∂((He − M) a)/∂x` (`nv × (2nv + na + nu)`, columns position tangent, velocity, activation,
/// control as [`crate::dual::seed`]) at the forwarded state of `d`, `a` fixed.
pub fn d_he_offset_vec(m: &Model, d: &Data<f64>, a: &[f64], w: &mut Work) -> DMatrix<f64> {
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let mut out = DMatrix::zeros(nv, 2 * nv + na + nu);
    let mut hm = vec![Dual64::from(0.0); nv * nv];
    let body_trn = m.actuator_trntype.contains(&TrnType::Body);
    // a seed on dof k moves the gyroscopic block of the free body at dof a only if k's body
    // is that body or one of its ancestors
    let moves = |k: usize, a: usize| {
        let (bk, ba) = (m.dof_bodyid[k], m.dof_bodyid[a]);
        bk == ba || is_ancestor(m, bk, ba)
    };
    let mut read = |dd: &mut Data<Dual64>, col: usize, out: &mut DMatrix<f64>| {
        // column col: dof col (positions), col − nv (velocities), none (activations, controls)
        let k = if col < 2 * nv { Some(col % nv) } else { None };
        he_offset_masked(m, dd, &mut hm, &|a| k.is_some_and(|k| moves(k, a)));
        for r in 0..nv {
            let mut s = 0.0;
            for c in 0..nv {
                s += hm[r * nv + c].eps * a[c];
            }
            out[(r, col)] = s;
        }
    };
    let position = |dd: &mut Data<Dual64>| {
        moreau::kinematics::kinematics(m, dd);
        moreau::com::com_pos(m, dd);
        moreau::tendon::tendon(m, dd);
        if body_trn {
            moreau::collision::collision(m, dd);
        }
        moreau::actuation::transmission(m, dd);
    };
    let velocity = |dd: &mut Data<Dual64>| {
        moreau::tendon::tendon_velocity(m, dd);
        moreau::actuation::actuator_velocity(m, dd);
        moreau::com::com_vel(m, dd);
    };
    // position tangents: everything He reads moves (Euler's slope depends on v only)
    let euler = m.opt.integrator == Integrator::Euler;
    if !euler {
        for i in 0..nv {
            let dd = w.dual_of(m, d);
            crate::dual::seed(m, dd, i);
            position(dd);
            velocity(dd);
            moreau::forward::fwd_actuation(m, dd);
            read(dd, i, &mut out);
        }
    }
    // velocities, then activations and controls, about the unseeded position results
    let dd = w.dual_of(m, d);
    position(dd);
    for i in 0..nv {
        dd.qvel[i].eps = 1.0;
        velocity(dd);
        moreau::forward::fwd_actuation(m, dd);
        read(dd, nv + i, &mut out);
        dd.qvel[i].eps = 0.0;
    }
    // qDeriv depends on activations and controls only through velocity-dependent gains (the
    // forcerange clamp's switch is piecewise constant)
    if euler || !velocity_gain(m) {
        return out;
    }
    velocity(dd);
    for k in 0..na + nu {
        let x = if k < na {
            &mut dd.act[k]
        } else {
            &mut dd.ctrl[k - na]
        };
        x.eps = 1.0;
        moreau::forward::fwd_actuation(m, dd);
        read(dd, 2 * nv + k, &mut out);
        let x = if k < na {
            &mut dd.act[k]
        } else {
            &mut dd.ctrl[k - na]
        };
        x.eps = 0.0;
    }
    out
}
