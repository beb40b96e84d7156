//! `∂/∂q` of inverse dynamics (`qfrc_inverse`) and of the forward optimality residual
//! `g = qfrc_inverse − qfrc_applied − qfrc_actuator − Σ Jᵀ xfrc_applied` (seed 000 "Reduced
//! primal problem"), combining the analytic smooth-dynamics derivatives of [`crate::rnea`] with a
//! dual-number pass restricted to what they do not cover.
//!
//! - Always analytic: `∂(M a + c)/∂q` (and `Jᵀ xfrc_applied` for `g`).
//! - Analytic when nothing else depends on `q` (no constraint rows, no tendon springs/dampers,
//!   no `actuatorgravcomp` with gravity compensation): joint springs and gravity compensation;
//!   for `g`, actuators with hinge/slide joint transmissions (constant moment; their
//!   length-dependent force by duals over the actuation stage alone, seeded on
//!   `actuator_length`, cheap).
//! - Otherwise the "residual" pass: per tangent direction, a `Dual64` run of only the
//!   position-dependent stages the constraint/passive/actuator forces need (kinematics, COM,
//!   tendons, collision, constraint assembly, transmission, tendon/actuator velocities, passive,
//!   constraint reference and the inverse constraint force, actuation) — no CRB, no
//!   factorization, no `cvel`/RNE.
//! - [`crate::rnea::unsupported`] models (tendon armature, fluid): the full dual pass.
//!
//! Measured (humanoid, 16 contact rows): the restricted pass is most of the analytic
//! transition's time. A multi-direction pass (num-dual `DualSVec64<8>`, 4 passes instead of 27)
//! was tried and was slower (952 µs vs 731 µs CPU per transition), so it stays one `Dual64`
//! direction per pass; the real fix is an analytic `∂(Jᵀ f)/∂q` through the contact geometry.

#![allow(clippy::needless_range_loop)]

use crate::dual::{lift, lift_into, seed};
use crate::rnea::{d_smooth_pos, Terms, Work};
use moreau::actuation::{actuator_velocity, transmission};
use moreau::collision::collision;
use moreau::com::com_pos;
use moreau::constraint::assemble::{make_constraint, reference_constraint};
use moreau::forward::fwd_actuation;
use moreau::inverse::inv_constraint;
use moreau::kinematics::kinematics;
use moreau::model::{disable, JointType, Model, TrnType};
use moreau::passive::passive;
use moreau::tendon::{tendon, tendon_velocity};
use moreau::Data;
use nalgebra::DMatrix;
use num_dual::Dual64;

/// Which output is differentiated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Output {
    /// `qfrc_inverse` (constraint and passive forces; no actuation, no applied forces).
    Inverse,
    /// The forward residual `g` (also actuation and `xfrc_applied`).
    Residual,
}

/// True if terms other than the RNE, joint springs, gravity compensation, `xfrc_applied` and
/// hinge/slide joint actuators depend on `q` at this state.
pub fn needs_residual(m: &Model, d: &Data<f64>, out: Output) -> bool {
    if d.nefc > 0 {
        return true;
    }
    let spring = !m.opt.disabled(disable::SPRING);
    let damper = !m.opt.disabled(disable::DAMPER);
    for t in 0..m.ntendon {
        let ps = m.tendon_stiffnesspoly.get(t).copied().unwrap_or([0.0; 2]);
        if spring && (m.tendon_stiffness[t] != 0.0 || ps != [0.0; 2]) {
            return true;
        }
        let (b, pd) = m.tendon_damping_eff(t);
        if damper && (b != 0.0 || pd != [0.0; 2]) {
            return true;
        }
    }
    if m.jnt_actgravcomp.iter().any(|&x| x) && m.body_gravcomp.iter().any(|&g| g != 0.0) {
        return true;
    }
    if out == Output::Residual {
        for i in 0..m.nu {
            let hinge_slide = matches!(
                m.actuator_trntype[i],
                TrnType::Joint | TrnType::JointInParent
            ) && usize::try_from(m.actuator_trnid[i][0])
                .is_ok_and(|j| matches!(m.jnt_type[j], JointType::Hinge | JointType::Slide));
            if !hinge_slide {
                return true;
            }
        }
    }
    false
}

/// `∂qfrc_actuator/∂q` (rows outputs) for hinge/slide joint transmissions (`L = gear₀ q`,
/// constant moment): duals over the actuation stage with `actuator_length` seeded.
fn actuator_joint_pos(m: &Model, d: &Data<f64>, out: &mut DMatrix<f64>) {
    let nv = m.nv;
    if m.nu == 0 {
        return;
    }
    let mut dd = lift(m, d);
    let l = |x: &[f64], y: &mut [Dual64]| {
        for (a, b) in y.iter_mut().zip(x) {
            *a = Dual64::from(*b);
        }
    };
    l(&d.actuator_moment, &mut dd.actuator_moment);
    l(&d.actuator_length, &mut dd.actuator_length);
    l(&d.actuator_velocity, &mut dd.actuator_velocity);
    l(&d.qfrc_gravcomp, &mut dd.qfrc_gravcomp);
    // each actuator's force depends on its own length only: one pass with every length
    // seeded, unless a joint-level clamp (jnt_actfrcrange) mixes them
    if !m.jnt_actfrclimited.iter().any(|&x| x) {
        for x in dd.actuator_length.iter_mut() {
            x.eps = 1.0;
        }
        fwd_actuation(m, &mut dd);
        for i in 0..m.nu {
            let df = dd.actuator_force[i].eps;
            let Ok(jn) = usize::try_from(m.actuator_trnid[i][0]) else {
                continue;
            };
            if df == 0.0 {
                continue;
            }
            let j = m.jnt_dofadr[jn];
            let g = m.actuator_gear[i][0];
            for k in 0..nv {
                out[(k, j)] -= d.actuator_moment[i * nv + k] * df * g;
            }
        }
        return;
    }
    for j in 0..nv {
        let mut any = false;
        for i in 0..m.nu {
            let jn = m.actuator_trnid[i][0];
            if usize::try_from(jn).is_ok_and(|jn| m.jnt_dofadr[jn] == j) {
                dd.actuator_length[i].eps = m.actuator_gear[i][0];
                any = true;
            }
        }
        if !any {
            continue;
        }
        fwd_actuation(m, &mut dd);
        for k in 0..nv {
            out[(k, j)] -= dd.qfrc_actuator[k].eps;
        }
        for x in dd.actuator_length.iter_mut() {
            x.eps = 0.0;
        }
    }
}

/// Adds `∂(−qfrc_passive − qfrc_constraint [− qfrc_actuator])/∂q` (rows outputs) by the
/// restricted dual pass described in the module docs. `d` needs `qacc`.
fn residual_pass(m: &Model, d: &Data<f64>, actuators: bool, out: &mut DMatrix<f64>) {
    let nv = m.nv;
    let mut dd = lift(m, d);
    for j in 0..nv {
        if j > 0 {
            lift_into(d, &mut dd);
        }
        seed(m, &mut dd, j);
        kinematics(m, &mut dd);
        com_pos(m, &mut dd);
        tendon(m, &mut dd);
        collision(m, &mut dd);
        make_constraint(m, &mut dd);
        transmission(m, &mut dd);
        tendon_velocity(m, &mut dd);
        actuator_velocity(m, &mut dd);
        passive(m, &mut dd);
        reference_constraint(m, &mut dd);
        inv_constraint(m, &mut dd);
        if actuators {
            fwd_actuation(m, &mut dd);
        }
        for k in 0..nv {
            let mut x = -dd.qfrc_passive[k] - dd.qfrc_constraint[k];
            if actuators {
                x -= dd.qfrc_actuator[k];
            }
            out[(k, j)] += x.eps;
        }
    }
}

/// `∂out/∂q` (rows outputs, tangent columns) at the state and `qacc` of `d`, whose position and
/// velocity stages (and constraint rows) must be current. Not for
/// [`crate::rnea::unsupported`] models (the caller falls back to the full dual pass).
pub fn d_pos(m: &Model, d: &Data<f64>, output: Output, w: &mut Work) -> DMatrix<f64> {
    let mut out = DMatrix::zeros(m.nv, m.nv);
    d_pos_into(m, d, output, w, &mut out);
    out
}

/// [`d_pos`] into `out` (`nv × nv`, overwritten): no allocation on the analytic path.
pub fn d_pos_into(m: &Model, d: &Data<f64>, output: Output, w: &mut Work, out: &mut DMatrix<f64>) {
    let res = needs_residual(m, d, output);
    let terms = Terms {
        springs: !res,
        gravcomp: !res,
        xfrc: output == Output::Residual,
    };
    d_smooth_pos(m, d, Some(&d.qacc), terms, w, out);
    if res {
        residual_pass(m, d, output == Output::Residual, out);
    } else if output == Output::Residual {
        actuator_joint_pos(m, d, out);
    }
}
