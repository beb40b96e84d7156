//! `∂(sym qDeriv · a)/∂q` of the implicitfast step (Computation "Numerical integration"; the
//! chain rule of [`crate::transition()`]) without a full dual pass.
//!
//! Under implicitfast `qDeriv = ∂(qfrc_passive + qfrc_actuator)/∂v` without the RNE part
//! ([`moreau::pipeline::smooth_vel`] with `with_rne = false`). For the models
//! models without polynomial damping, velocity-dependent gains or childless free bodies (those
//! take [`crate::step_matrix::d_he_offset_vec`] instead) and without fluid forces it is
//!
//! `qDeriv = −diag(b_dof) − Σ_t b_t J_tᵀ J_t + Σ_u c_u m_uᵀ m_u`,
//!
//! with the dof and tendon damping `b` (actuator damping included), the tendon Jacobians `J_t`,
//! the actuator moments `m_u` and `c_u = ∂actuator_force_u/∂actuator_velocity_u` (`biasprm[2]`,
//! or 0 where `forcerange` clamps: piecewise constant in `q`). So, with `S` the 0/1 pattern of
//! `M` (the step restricts `sym qDeriv` to it) and `X = Σ w (∂k kᵀ + k ∂kᵀ)` symmetric,
//!
//! `(S ∘ ∂qDeriv/∂q_i) a = Σ w [diag(∂k) S (k ∘ a) + diag(k) S (∂k ∘ a)]`,
//!
//! `k` the moment/tendon row, `w = c_u` or `−b_t`. `∂k/∂q_i` is zero (so the term drops out)
//! for fixed tendons and for joint transmissions other than ball/free joints in the parent
//! frame. The other rows (spatial tendons, site, slider-crank, body and ball/free in-parent
//! transmissions) take `∂k/∂q_i` from a `Dual64` pass over kinematics, COM, tendons and
//! transmission only (plus collision for body transmissions), for the tangent directions `i`
//! of the ancestors of the bodies those rows depend on. Fluid forces (whose `qDeriv` block
//! depends on `q` through the bodies' velocities) are not covered here ([`covered`]): the
//! transition adds their block's derivative from `crate::fluid::fluid_pos`.

#![allow(clippy::needless_range_loop)]

use crate::dual::seed;
use crate::work::Work;
use moreau::model::{disable, JointType, Model, TrnType, WrapType};
use moreau::pipeline::{
    actfrc_clamped, actuator_force_dvel, bad_ctrl, collision, com_pos, dof_parent, is_fixed,
    kinematics, tendon, transmission,
};
use moreau::Data;
use nalgebra::DMatrix;

/// True if [`add_dqderiv_vec`] applies to `m` (no fluid forces, whose velocity derivative
/// depends on `q` through every body's velocity).
pub fn covered(m: &Model) -> bool {
    m.opt.density == 0.0 && m.opt.viscosity == 0.0
}

/// A `q`-dependent term of `qDeriv`: weight `w` times `k kᵀ`, `k` an actuator moment row or a
/// tendon Jacobian row.
#[derive(Clone, Copy)]
enum Row {
    Actuator(usize),
    Tendon(usize),
}

/// The terms whose row depends on `q`, their weights, whether collision is needed, and the
/// tangent directions that can move them.
fn terms(m: &Model, d: &Data<f64>) -> (Vec<(Row, f64)>, bool, Vec<bool>) {
    let mut out = Vec::new();
    let mut bodies = Vec::new();
    let mut all = false;
    let mut collide = false;
    let wrap_bodies = |t: usize, bodies: &mut Vec<usize>| {
        let a = m.tendon_adr[t];
        for w in a..a + m.tendon_num[t] {
            let Ok(id) = usize::try_from(m.wrap_objid[w]) else {
                continue;
            };
            match m.wrap_type[w] {
                WrapType::Site => bodies.push(m.site_bodyid[id]),
                WrapType::Sphere | WrapType::Cylinder => bodies.push(m.geom_bodyid[id]),
                _ => {}
            }
        }
    };
    if !m.opt.disabled(disable::DAMPER) {
        for t in 0..m.ntendon {
            let b = m.tendon_damping_eff(t).0;
            if b != 0.0 && !is_fixed(m, t) {
                out.push((Row::Tendon(t), -b));
                wrap_bodies(t, &mut bodies);
            }
        }
    }
    if !m.opt.disabled(disable::ACTUATION) {
        let ctrl_bad = bad_ctrl(m, &d.ctrl).is_some();
        // the actuators qDeriv leaves out (actuatorfrcrange clamps) are left out here too
        for u in (0..m.nu).filter(|&u| !actfrc_clamped(m, d, u)) {
            let c = actuator_force_dvel(m, d, u, ctrl_bad);
            if c == 0.0 {
                continue;
            }
            let id = usize::try_from(m.actuator_trnid[u][0]).ok();
            let id1 = usize::try_from(m.actuator_trnid[u][1]).ok();
            let moving = match (m.actuator_trntype[u], id) {
                (_, None) => false,
                (TrnType::Joint, _) => false,
                (TrnType::JointInParent, Some(j)) => {
                    let q = matches!(m.jnt_type[j], JointType::Ball | JointType::Free);
                    if q {
                        bodies.push(m.jnt_bodyid[j]);
                    }
                    q
                }
                (TrnType::Tendon, Some(t)) => {
                    let q = !is_fixed(m, t);
                    if q {
                        wrap_bodies(t, &mut bodies);
                    }
                    q
                }
                (TrnType::Site | TrnType::SliderCrank, Some(s)) => {
                    bodies.push(m.site_bodyid[s]);
                    if let Some(s1) = id1 {
                        bodies.push(m.site_bodyid[s1]);
                    }
                    true
                }
                (TrnType::Body, Some(_)) => {
                    all = true;
                    collide = true;
                    true
                }
            };
            if moving {
                out.push((Row::Actuator(u), c));
            }
        }
    }
    let mut dirs = vec![all; m.nv];
    for mut b in bodies {
        while b > 0 {
            let a = m.body_dofadr[b];
            for k in a..a + m.body_dofnum[b] {
                dirs[k] = true;
            }
            b = m.body_parentid[b];
        }
    }
    (out, collide, dirs)
}

/// `y += s · S x` with `S` the 0/1 pattern of `M` (a dof, its ancestors and descendants).
fn pattern_mul(m: &Model, x: &[f64], s: f64, y: &mut [f64]) {
    for i in 0..m.nv {
        y[i] += s * x[i];
        let mut j = dof_parent(m, i);
        while let Some(jj) = j {
            y[i] += s * x[jj];
            y[jj] += s * x[i];
            j = dof_parent(m, jj);
        }
    }
}

/// Adds `scale · (S ∘ ∂qDeriv/∂q_i) a` into column `i` of `out` (`nv × nv`), for every tangent
/// direction `i` (module docs). `d` needs the position stage and the actuation (for the
/// `forcerange` clamps) of the current state. Without the fluid block (not [`covered`]: the
/// transition adds `crate::fluid::fluid_pos`'s).
pub fn add_dqderiv_vec(
    m: &Model,
    d: &Data<f64>,
    a: &[f64],
    scale: f64,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) {
    let nv = m.nv;
    let (rows, collide, dirs) = terms(m, d);
    if rows.is_empty() {
        return;
    }
    fn row(dd: &Data<num_dual::Dual64>, r: Row, out: &mut [num_dual::Dual64]) {
        match r {
            Row::Actuator(u) => dd.moment_row_dense(u, out),
            Row::Tendon(t) => dd.ten_J_row_dense(t, out),
        }
    }
    let mut dense = vec![num_dual::Dual64::from(0.0); nv];
    let mut k = vec![0.0; nv];
    let mut dk = vec![0.0; nv];
    let mut x = vec![0.0; nv];
    let mut sx = vec![0.0; nv];
    let mut y = vec![0.0; nv];
    let dd = w.dual_of(m, d);
    for i in 0..nv {
        if !dirs[i] {
            continue;
        }
        if i > 0 {
            crate::dual::lift_into(d, dd);
        }
        seed(m, dd, i);
        kinematics(m, dd);
        com_pos(m, dd);
        tendon(m, dd);
        if collide {
            collision(m, dd);
        }
        transmission(m, dd);
        y.iter_mut().for_each(|v| *v = 0.0);
        for &(r, wt) in &rows {
            row(dd, r, &mut dense);
            for (c, v) in dense.iter().enumerate() {
                k[c] = v.re;
                dk[c] = v.eps;
            }
            if dk.iter().all(|v| *v == 0.0) {
                continue;
            }
            // diag(∂k) S (k ∘ a) + diag(k) S (∂k ∘ a)
            for (src, dst) in [(&k, &dk), (&dk, &k)] {
                for c in 0..nv {
                    x[c] = src[c] * a[c];
                }
                sx.iter_mut().for_each(|v| *v = 0.0);
                pattern_mul(m, &x, 1.0, &mut sx);
                for c in 0..nv {
                    y[c] += wt * dst[c] * sx[c];
                }
            }
        }
        for c in 0..nv {
            out[(c, i)] += scale * y[c];
        }
    }
}
