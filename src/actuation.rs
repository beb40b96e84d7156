//! Actuators (Computation "Actuation model"; docs/mujoco-behaviour.md#actuators): transmission
//! (`mj_transmission`), velocities, activation dynamics and force generation (`mj_fwdActuation`).
//!
//! Transmissions supported: joint and jointinparent (hinge, slide, ball, free), tendon (fixed
//! and spatial), site (with and without refsite), slider-crank and body (adhesion, acting
//! through the body's contacts, [`body_transmission`]). User dynamics/gain/bias
//! callbacks do not exist here (treated as zero).

use crate::data::scratch::gather_clear;
use crate::data::{Data, Warning};
use crate::math::quat::{mat2quat, quat2vel, sub_quat};
use crate::math::quat::{normalize_quat, quat2mat};
use crate::math::spatial::{body_last_dof, dof_parent};
use crate::math::{sc, Scalar};
use crate::model::{disable, BiasType, DynType, GainType, JointType, Model, TrnType};
use crate::smooth::tendon::{add_point_jac, add_rot_jac};
use nalgebra::{Quaternion, Vector3};

/// MuJoCo's `mjMAXVAL`: larger magnitudes count as divergence.
pub const MAXVAL: f64 = 1e10;

/// NaN, ±inf or `|x| > mjMAXVAL` (`mju_isBad`).
#[inline]
pub fn is_bad<T: Scalar>(x: T) -> bool {
    !matches!(
        x.abs().partial_cmp(&sc(MAXVAL)),
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    )
}

#[inline]
fn clamp<T: Scalar>(x: T, r: &[f64; 2]) -> T {
    if x < sc(r[0]) {
        sc(r[0])
    } else if x > sc(r[1]) {
        sc(r[1])
    } else {
        x
    }
}

/// Actuator lengths and moment arms (`actuator_length`, `actuator_moment`, nu × nv, written
/// on each row's pattern, `moment_colind`, and zero outside it).
/// Joint: hinge/slide `L = gear₀ q`; ball `L = gear₀..₂ · rotvec(q)` with moment `gear` (rotated
/// by `Rᵀ(q)` for jointinparent); free joints have `L = 0`, moment `gear`. Tendon:
/// `L = gear₀ ten_length`, moment `gear₀ ten_J`. Needs [`crate::smooth::tendon::tendon`].
pub fn transmission<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if !d.moment_set {
        // MuJoCo's mjData fields, zero since the reset (the stages read the model's pattern)
        d.set_moment_rows(true);
    }
    // each row is accumulated in a dense row of zeros, then copied onto its pattern
    let mut row = std::mem::take(&mut d.dense_row);
    for i in 0..m.nu {
        let g = &m.actuator_gear[i];
        let id = m.actuator_trnid[i][0].max(0) as usize;
        match m.actuator_trntype[i] {
            TrnType::Joint | TrnType::JointInParent => {
                let qa = m.jnt_qposadr[id];
                let da = m.jnt_dofadr[id];
                let inparent = m.actuator_trntype[i] == TrnType::JointInParent;
                match m.jnt_type[id] {
                    JointType::Hinge | JointType::Slide => {
                        d.actuator_length[i] = sc::<T>(g[0]) * d.qpos[qa];
                        row[da] = sc(g[0]);
                    }
                    JointType::Ball | JointType::Free => {
                        let free = m.jnt_type[id] == JointType::Free;
                        // rotational part: qpos/dof/gear offsets of the quaternion
                        let (qr, dr, gr) = if free {
                            (qa + 3, da + 3, 3)
                        } else {
                            (qa, da, 0)
                        };
                        if free {
                            for (k, gk) in g.iter().take(3).enumerate() {
                                row[da + k] = sc(*gk);
                            }
                        }
                        let q = normalize_quat(Quaternion::new(
                            d.qpos[qr],
                            d.qpos[qr + 1],
                            d.qpos[qr + 2],
                            d.qpos[qr + 3],
                        ));
                        let g3 = Vector3::new(sc(g[gr]), sc(g[gr + 1]), sc(g[gr + 2]));
                        let gv = if inparent {
                            quat2mat(&q).transpose() * g3
                        } else {
                            g3
                        };
                        for k in 0..3 {
                            row[dr + k] = gv[k];
                        }
                        d.actuator_length[i] = if free {
                            T::zero()
                        } else {
                            g3.dot(&quat2vel(&q))
                        };
                    }
                }
            }
            TrnType::Tendon => {
                let g0: T = sc(g[0]);
                d.actuator_length[i] = g0 * d.ten_length[id];
                let (cols, vals) = d.ten_J_row(id);
                for (&k, &j) in cols.iter().zip(vals) {
                    row[k] = g0 * j;
                }
            }
            TrnType::Site => site_transmission(m, d, i, &mut row),
            TrnType::SliderCrank => slider_crank(m, d, i, &mut row),
            TrnType::Body => body_transmission(m, d, i, &mut row),
        }
        let s = &d.sparse_scratch;
        let (a, n) = (s.moment_rowadr[i], s.moment_rownnz[i]);
        gather_clear(
            &mut row,
            &s.moment_colind[a..a + n],
            &mut d.actuator_moment[a..a + n],
        );
    }
    d.dense_row = row;
}

/// Body (adhesion) transmission (MuJoCo's `mjTRN_BODY`, checked against 4.0.0 in
/// tests/engine/camera_rangefinder_oracle.rs): `actuator_length = 0`; the moment is minus the average, over the
/// contacts of `d.contact` that involve a geom of the body (all of them, also those only within
/// the margin), of the contact normal Jacobian `nᵀ (J(b₂, p) − J(b₁, p))` at the contact point
/// `p`, so that a positive force pulls the surfaces together. Zero without such contacts. Must
/// run after collision.
fn body_transmission<T: Scalar>(m: &Model, d: &mut Data<T>, i: usize, row: &mut [T]) {
    let body = m.actuator_trnid[i][0] as usize;
    d.actuator_length[i] = T::zero();
    let mut count = 0usize;
    for c in &d.contact {
        let b1 = m.geom_bodyid[c.geom[0]];
        let b2 = m.geom_bodyid[c.geom[1]];
        if b1 != body && b2 != body {
            continue;
        }
        let n = c.normal();
        add_point_jac(m, &d.cdof, &d.subtree_com, &c.pos, b2, &n, T::one(), row);
        add_point_jac(m, &d.cdof, &d.subtree_com, &c.pos, b1, &n, -T::one(), row);
        count += 1;
    }
    if count > 0 {
        let s: T = sc(-1.0 / count as f64);
        row.iter_mut().for_each(|x| *x *= s);
    }
}

/// Site transmission. Without a refsite: `L = 0`, moment `Jpᵀ R_s gear[0..3] + Jrᵀ R_s
/// gear[3..6]` at the site (the gear is a wrench in the site frame). With refsite `r`:
/// `L = gear[0..3] · R_rᵀ (p_s - p_r) + gear[3..6] · subQuat(q_s, q_r)` and moment
/// `(Jp_s - Jp_r)ᵀ R_r gear[0..3] + (Jr_s - Jr_r)ᵀ R_r gear[3..6]` over the dofs that do not
/// move both sites (zero on the shared ones, which move the pair rigidly); the derivative of the
/// reference frame's own rotation is not included, as in MuJoCo.
fn site_transmission<T: Scalar>(m: &Model, d: &mut Data<T>, i: usize, row: &mut [T]) {
    let g = &m.actuator_gear[i];
    let s = m.actuator_trnid[i][0] as usize;
    let bs = m.site_bodyid[s];
    let gt = Vector3::new(sc::<T>(g[0]), sc(g[1]), sc(g[2]));
    let gr = Vector3::new(sc::<T>(g[3]), sc(g[4]), sc(g[5]));
    let has_t = g[..3].iter().any(|x| *x != 0.0);
    let has_r = g[3..].iter().any(|x| *x != 0.0);
    let one = T::one();
    match usize::try_from(m.actuator_trnid[i][1]) {
        Err(_) => {
            d.actuator_length[i] = T::zero();
            let rs = d.site_xmat[s];
            if has_t {
                let f = rs * gt;
                add_point_jac(
                    m,
                    &d.cdof,
                    &d.subtree_com,
                    &d.site_xpos[s],
                    bs,
                    &f,
                    one,
                    row,
                );
            }
            if has_r {
                let tq = rs * gr;
                add_rot_jac(m, &d.cdof, bs, &tq, one, row);
            }
        }
        Ok(r) => {
            let br = m.site_bodyid[r];
            let rr = d.site_xmat[r];
            let mut len = T::zero();
            if has_t {
                let v = rr.tr_mul(&(d.site_xpos[s] - d.site_xpos[r]));
                len += v.dot(&gt);
                let f = rr * gt;
                add_point_jac(
                    m,
                    &d.cdof,
                    &d.subtree_com,
                    &d.site_xpos[s],
                    bs,
                    &f,
                    one,
                    row,
                );
                add_point_jac(
                    m,
                    &d.cdof,
                    &d.subtree_com,
                    &d.site_xpos[r],
                    br,
                    &f,
                    -one,
                    row,
                );
            }
            if has_r {
                let qs = mat2quat(&d.site_xmat[s]);
                let qr = mat2quat(&rr);
                len += sub_quat(&qs, &qr).dot(&gr);
                let tq = rr * gr;
                add_rot_jac(m, &d.cdof, bs, &tq, one, row);
                add_rot_jac(m, &d.cdof, br, &tq, -one, row);
            }
            // dofs moving both sites move them rigidly together: no effect on the length
            let mut kr = body_last_dof(m, br);
            while let Some(k) = kr {
                let mut ks = body_last_dof(m, bs);
                while let Some(j) = ks {
                    if j <= k {
                        if j == k {
                            row[k] = T::zero();
                        }
                        break;
                    }
                    ks = dof_parent(m, j);
                }
                kr = dof_parent(m, k);
            }
            d.actuator_length[i] = len;
        }
    }
}

/// Slider-crank transmission: crank site `c` (trnid[0]), slider site `s` (trnid[1]) whose z
/// axis `a` is the slider axis, crank length `r`. With `v = p_c - p_s`, `x = v · a` and
/// `det = x² + r² - |v|²`: `L = gear₀ (x - √det)` (`det <= 0`, crank too short: `L = gear₀ x`,
/// dropping the square-root terms). Moment: `gear₀ [(Jp_c - Jp_s)ᵀ ∂L/∂v + Jr_sᵀ (a × ∂L/∂a)]`.
fn slider_crank<T: Scalar>(m: &Model, d: &mut Data<T>, i: usize, row: &mut [T]) {
    let g0: T = sc(m.actuator_gear[i][0]);
    let c = m.actuator_trnid[i][0] as usize;
    let s = m.actuator_trnid[i][1] as usize;
    let r: T = sc(m.actuator_cranklength[i]);
    let axis: Vector3<T> = d.site_xmat[s].column(2).into();
    let v = d.site_xpos[c] - d.site_xpos[s];
    let x = v.dot(&axis);
    let det = x * x + r * r - v.dot(&v);
    let (len, dl_dv, dl_da) = if det <= T::zero() {
        (x, axis, v)
    } else {
        let sq = det.sqrt();
        (x - sq, axis - (axis * x - v) / sq, v * (T::one() - x / sq))
    };
    d.actuator_length[i] = g0 * len;
    let bc = m.site_bodyid[c];
    let bs = m.site_bodyid[s];
    add_point_jac(
        m,
        &d.cdof,
        &d.subtree_com,
        &d.site_xpos[c],
        bc,
        &dl_dv,
        g0,
        row,
    );
    add_point_jac(
        m,
        &d.cdof,
        &d.subtree_com,
        &d.site_xpos[s],
        bs,
        &dl_dv,
        -g0,
        row,
    );
    add_rot_jac(m, &d.cdof, bs, &axis.cross(&dl_da), g0, row);
}

/// `actuator_velocity = actuator_moment · qvel` (zero if the actuation flag is disabled, as
/// MuJoCo 4.0.0 does).
pub fn actuator_velocity<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if m.opt.disabled(disable::ACTUATION) {
        d.actuator_velocity.iter_mut().for_each(|x| *x = T::zero());
        return;
    }
    // row i of actuator_moment is zero outside its pattern (transmission): sums over the row
    // that start from +0 skip the exact zeros `0 · v` outside (finite `v`) without changing a
    // bit (an RTN sum started at +0 is never −0, and `x + ±0 = x` otherwise)
    for i in 0..m.nu {
        let (cols, vals) = d.moment_row(i);
        let v = cols
            .iter()
            .zip(vals)
            .fold(T::zero(), |s, (&k, &r)| s + r * d.qvel[k]);
        d.actuator_velocity[i] = v;
    }
}

/// Muscle active force-length curve `FL(Ln)` (docs/mujoco-behaviour.md#actuators).
pub fn muscle_fl<T: Scalar>(ln: T, lmin: f64, lmax: f64) -> T {
    let half: T = sc(0.5);
    let a = 0.5 * (lmin + 1.0);
    let b = 0.5 * (1.0 + lmax);
    if ln < sc(lmin) || ln > sc(lmax) {
        T::zero()
    } else if ln <= sc(a) {
        let x = (ln - sc(lmin)) / sc(a - lmin);
        half * x * x
    } else if ln <= T::one() {
        let x = (T::one() - ln) / sc(1.0 - a);
        T::one() - half * x * x
    } else if ln <= sc(b) {
        let x = (ln - T::one()) / sc(b - 1.0);
        T::one() - half * x * x
    } else {
        let x = (sc::<T>(lmax) - ln) / sc(lmax - b);
        half * x * x
    }
}

/// Muscle force-velocity curve `FV(Vn)` (docs/mujoco-behaviour.md#actuators).
pub fn muscle_fv<T: Scalar>(vn: T, fvmax: f64) -> T {
    let y = fvmax - 1.0;
    if vn <= -T::one() {
        T::zero()
    } else if vn <= T::zero() {
        (vn + T::one()) * (vn + T::one())
    } else if vn <= sc(y) {
        sc::<T>(fvmax) - (sc::<T>(y) - vn) * (sc::<T>(y) - vn) / sc(y)
    } else {
        sc(fvmax)
    }
}

/// Muscle passive force-length curve `FP(Ln)` (docs/mujoco-behaviour.md#actuators).
pub fn muscle_fp<T: Scalar>(ln: T, lmax: f64, fpmax: f64) -> T {
    let b = 0.5 * (1.0 + lmax);
    if ln <= T::one() {
        T::zero()
    } else if ln <= sc(b) {
        let x = (ln - T::one()) / sc(b - 1.0);
        sc::<T>(0.5 * fpmax) * x * x
    } else {
        sc::<T>(fpmax) * (sc::<T>(0.5) + (ln - sc(b)) / sc(b - 1.0))
    }
}

/// Normalized muscle length and velocity and the peak force `F0` for actuator `i`.
fn muscle_state<T: Scalar>(m: &Model, i: usize, prm: &[f64; 10], len: T, vel: T) -> (T, T, f64) {
    let [r0, r1] = [prm[0], prm[1]];
    let lr = m.actuator_lengthrange[i];
    let l0 = (lr[1] - lr[0]) / (r1 - r0).max(1e-15);
    let l0 = l0.max(1e-15);
    let ln = sc::<T>(r0) + (len - sc(lr[0])) / sc(l0);
    let vn = vel / sc(l0 * prm[6]);
    let f0 = if prm[2] >= 0.0 {
        prm[2]
    } else {
        prm[3] / m.actuator_acc0[i].max(1e-15)
    };
    (ln, vn, f0)
}

/// Muscle gain `-F0 FL(Ln) FV(Vn)`.
pub fn muscle_gain<T: Scalar>(m: &Model, i: usize, len: T, vel: T) -> T {
    let p = &m.actuator_gainprm[i];
    let (ln, vn, f0) = muscle_state(m, i, p, len, vel);
    -sc::<T>(f0) * muscle_fl(ln, p[4], p[5]) * muscle_fv(vn, p[8])
}

/// Muscle bias `-F0 FP(Ln)`.
pub fn muscle_bias<T: Scalar>(m: &Model, i: usize, len: T, vel: T) -> T {
    let p = &m.actuator_biasprm[i];
    let (ln, _, f0) = muscle_state(m, i, p, len, vel);
    -sc::<T>(f0) * muscle_fp(ln, p[5], p[7])
}

/// Muscle activation dynamics (docs/mujoco-behaviour.md#actuators): time constants scaled by the
/// activation, the activation/deactivation choice optionally smoothed by a quintic sigmoid
/// (`dynprm[2] > 0`).
pub fn muscle_dynamics<T: Scalar>(u: T, act: T, prm: &[f64; 10]) -> T {
    let c01 = |x: T| {
        if x < T::zero() {
            T::zero()
        } else if x > T::one() {
            T::one()
        } else {
            x
        }
    };
    let uc = c01(u);
    let ac = c01(act);
    let s = sc::<T>(0.5) + sc::<T>(1.5) * ac;
    let ta = sc::<T>(prm[0]) * s;
    let td = sc::<T>(prm[1]) / s;
    let du = uc - act;
    let tau = if prm[2] > 0.0 {
        let x = c01(du / sc(prm[2]) + sc(0.5));
        let sig = x * x * x * (x * (x * sc(6.0) - sc(15.0)) + sc(10.0));
        td + (ta - td) * sig
    } else if du > T::zero() {
        ta
    } else {
        td
    };
    du / tau
}

/// The first bad control (NaN/inf/|u| > 1e10), judged as the actuator sees it: after clamping
/// to `ctrlrange` where the control is clamped (ctrllimited, clampctrl enabled), so that only
/// NaN is bad there, as in MuJoCo 4.0.0.
pub fn bad_ctrl<T: Scalar>(m: &Model, ctrl: &[T]) -> Option<usize> {
    let clampctrl = !m.opt.disabled(disable::CLAMPCTRL);
    ctrl.iter().enumerate().position(|(i, &u)| {
        is_bad(if clampctrl && m.actuator_ctrllimited[i] {
            clamp(u, &m.actuator_ctrlrange[i])
        } else {
            u
        })
    })
}

/// Activation dynamics and actuator forces (`mj_fwdActuation`): fills `act_dot`,
/// `actuator_force`, `qfrc_actuator`.
///
/// - Controls are clamped to `ctrlrange` if ctrllimited (unless clampctrl is disabled). If any
///   control is bad (NaN/inf/|u| > 1e10) a `BadCtrl` warning is recorded with its index and every
///   actuator input is 0 for this evaluation (`ctrl` itself is left untouched). A control that
///   is clamped is judged after clamping, as MuJoCo 4.0.0 does: only NaN is bad there (an
///   infinite or huge control of a ctrllimited actuator is its range's bound).
/// - `act_dot`: integrator `u`; filter/filterexact `(u - act)/τ`; muscle as in
///   `muscle_dynamics`.
/// - The force input is the activation (the next activation `act + h·act_dot`, exact for
///   filterexact and clamped to actrange if actlimited, when actearly) or `u` if stateless.
/// - `force = gain · input + bias`, clamped to forcerange if forcelimited;
///   per tendon with `tendon_actfrclimited` the forces of its actuators are scaled so that their
///   total stays in `tendon_actfrcrange` (`tendon_actfrc_clamp`);
///   `qfrc_actuator = momentᵀ force` (plus `qfrc_gravcomp` on the dofs of `jnt_actgravcomp`
///   joints), then clamped per hinge/slide joint to `jnt_actfrcrange`.
/// - With the actuation flag disabled everything here is zero.
pub fn fwd_actuation<T: Scalar>(m: &Model, d: &mut Data<T>) {
    // an actuator whose trees all sleep keeps its force and activation derivative (measured
    // on MuJoCo 4.0.0: a control given to a sleeping tree's motor neither wakes it nor changes
    // `actuator_force`; docs/mujoco-behaviour.md "Sleeping")
    let asleep = crate::sleep::any_asleep(m, d);
    d.qfrc_actuator.iter_mut().for_each(|x| *x = T::zero());
    for i in 0..m.nu {
        if asleep && crate::sleep::actuator_idle(m, d, i) {
            continue;
        }
        d.actuator_force[i] = T::zero();
        if let Ok(a) = usize::try_from(m.actuator_actadr[i]) {
            for x in &mut d.act_dot[a..a + m.actuator_actnum[i]] {
                *x = T::zero();
            }
        }
    }
    if m.nu == 0 || m.opt.disabled(disable::ACTUATION) {
        return;
    }
    let clampctrl = !m.opt.disabled(disable::CLAMPCTRL);
    let bad = bad_ctrl(m, &d.ctrl);
    if let Some(i) = bad {
        d.warn(Warning::BadCtrl, i as i64);
    }
    let h = m.opt.timestep;
    for i in 0..m.nu {
        if asleep && crate::sleep::actuator_idle(m, d, i) {
            continue;
        }
        let mut u = if bad.is_some() { T::zero() } else { d.ctrl[i] };
        if clampctrl && m.actuator_ctrllimited[i] {
            u = clamp(u, &m.actuator_ctrlrange[i]);
        }
        let dynt = m.actuator_dyntype[i];
        let dp = &m.actuator_dynprm[i];
        let input = if m.actuator_actnum[i] > 0 && m.actuator_actadr[i] >= 0 {
            let a = m.actuator_actadr[i] as usize + m.actuator_actnum[i] - 1;
            let act = d.act[a];
            let tau = dp[0].max(1e-15);
            let ad = match dynt {
                DynType::Integrator => u,
                DynType::Filter | DynType::FilterExact => (u - act) / sc(tau),
                DynType::Muscle => muscle_dynamics(u, act, dp),
                DynType::None | DynType::User => T::zero(),
            };
            d.act_dot[a] = ad;
            if m.actuator_actearly[i] {
                let mut next = if dynt == DynType::FilterExact {
                    act + ad * sc(tau * (1.0 - (-h / tau).exp()))
                } else {
                    act + ad * sc(h)
                };
                if m.actuator_actlimited[i] {
                    next = clamp(next, &m.actuator_actrange[i]);
                }
                next
            } else {
                act
            }
        } else {
            u
        };
        let len = d.actuator_length[i];
        let vel = d.actuator_velocity[i];
        let gp = &m.actuator_gainprm[i];
        let gain = match m.actuator_gaintype[i] {
            GainType::Fixed => sc(gp[0]),
            GainType::Affine => sc::<T>(gp[0]) + sc::<T>(gp[1]) * len + sc::<T>(gp[2]) * vel,
            GainType::Muscle => muscle_gain(m, i, len, vel),
            GainType::User => T::zero(),
        };
        let bp = &m.actuator_biasprm[i];
        let bias = match m.actuator_biastype[i] {
            BiasType::None | BiasType::User => T::zero(),
            BiasType::Affine => sc::<T>(bp[0]) + sc::<T>(bp[1]) * len + sc::<T>(bp[2]) * vel,
            BiasType::Muscle => muscle_bias(m, i, len, vel),
        };
        let mut f = gain * input + bias;
        if m.actuator_forcelimited[i] {
            f = clamp(f, &m.actuator_forcerange[i]);
        }
        d.actuator_force[i] = f;
    }
    tendon_actfrc_clamp(m, d);
    for i in 0..m.nu {
        let f = d.actuator_force[i];
        // qfrc_actuator starts at +0: skipping the zeros outside the row's pattern changes no
        // bit (actuator_velocity)
        let s = &d.sparse_scratch;
        for x in s.moment_rowadr[i]..s.moment_rowadr[i] + s.moment_rownnz[i] {
            d.qfrc_actuator[s.moment_colind[x]] += d.actuator_moment[x] * f;
        }
    }
    // actuatorgravcomp joints: their gravity compensation counts as actuator force (it is left
    // out of qfrc_passive); like the actuator forces, not applied when there are no actuators
    for j in 0..m.njnt {
        if m.jnt_actgravcomp.get(j).copied().unwrap_or(false) {
            let a = m.jnt_dofadr[j];
            for k in a..a + joint_ndof(m.jnt_type[j]) {
                d.qfrc_actuator[k] += d.qfrc_gravcomp[k];
            }
        }
    }
    for j in 0..m.njnt {
        if m.jnt_actfrclimited[j] && matches!(m.jnt_type[j], JointType::Hinge | JointType::Slide) {
            let k = m.jnt_dofadr[j];
            d.qfrc_actuator[k] = clamp(d.qfrc_actuator[k], &m.jnt_actfrcrange[j]);
        }
    }
}

/// The tendon `actuatorfrcrange` clamp: per tendon with `tendon_actfrclimited`, the total
/// `actuator_force` of the actuators transmitting through it (`trntype` tendon, summed in
/// actuator order, gear not applied) is kept in `ten_actfrc`; when it lies outside
/// `tendon_actfrcrange`, every one of those actuators' forces is scaled by `bound / total`, so
/// that their sum is the bound (measured on MuJoCo 4.0.0: motors at 3 and 1 and a velocity
/// servo at -0.6 on one tendon with range ±0.5 give 0.441, 0.147, -0.088).
fn tendon_actfrc_clamp<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if !m.tendon_actfrclimited.iter().any(|&l| l) {
        return;
    }
    let tendon = |i: usize| actfrc_tendon(m, i);
    d.ten_actfrc.iter_mut().for_each(|x| *x = T::zero());
    for i in 0..m.nu {
        if let Some(t) = tendon(i) {
            d.ten_actfrc[t] += d.actuator_force[i];
        }
    }
    for i in 0..m.nu {
        if let Some(t) = tendon(i) {
            let total = d.ten_actfrc[t];
            let r = &m.tendon_actfrcrange[t];
            if total < sc(r[0]) {
                d.actuator_force[i] *= sc::<T>(r[0]) / total;
            } else if total > sc(r[1]) {
                d.actuator_force[i] *= sc::<T>(r[1]) / total;
            }
        }
    }
}

/// The tendon with `tendon_actfrclimited` that actuator `u` transmits through, if any (a model
/// put together by hand may leave the tendon fields out: no clamp then).
pub(crate) fn actfrc_tendon(m: &Model, u: usize) -> Option<usize> {
    match m.actuator_trntype[u] {
        TrnType::Tendon => usize::try_from(m.actuator_trnid[u][0])
            .ok()
            .filter(|&t| m.tendon_actfrclimited.get(t) == Some(&true)),
        _ => None,
    }
}

fn joint_ndof(t: JointType) -> usize {
    match t {
        JointType::Free => 6,
        JointType::Ball => 3,
        JointType::Hinge | JointType::Slide => 1,
    }
}
