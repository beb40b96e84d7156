//! Inverse dynamics (`mj_inverse`, `mj_inverseSkip`, `mj_discreteAcc`, `mj_compareFwdInv`;
//! Computation "Simulation pipeline" and "Inverse dynamics", API Reference
//! `mj_inverse`).
//!
//! Given the state and `qacc`, computes `qfrc_inverse = M qacc + qfrc_bias − qfrc_passive −
//! qfrc_constraint`: the generalized force that the applied, actuator and Cartesian forces must
//! sum to, i.e. `qfrc_inverse = qfrc_applied + qfrc_actuator + Σ Jᵀ xfrc_applied` after a
//! `forward`. Neither `qfrc_actuator` nor `xfrc_applied` is subtracted (checked against MuJoCo
//! 4.0.0: the identity holds to 1e-14, tests/engine/inverse_oracle.rs). `M` is `qM` (armature and
//! tendon armature included, as in forward dynamics).
//!
//! The constraint force is the analytic minimizer of the constraint cost at `qacc`
//! ([`inv_constraint`]).

use crate::data::Data;
use crate::derivative::smooth_vel;
use crate::forward::{fwd_position, fwd_velocity, Skip};
use crate::math::spatial::{ang, cross_force, dof_parent, inert_mul, join, lin};
use crate::math::{sc, Scalar};
use crate::model::{disable, enable, Integrator, JointType, Model};
use crate::sensor::{sensor_acc, sensor_pos, sensor_vel};
use crate::smooth::crb::{mul_m, solve_m};
use crate::smooth::jacobian::apply_ft_raw;
use nalgebra::{Vector3, Vector6};

/// Inverse dynamics (`mj_inverse`): writes `qfrc_inverse` and the sensors; `qacc` is an input
/// and is left unchanged. Allocation-free on `f64`.
///
/// With the `invdiscrete` enable flag, `qacc` is taken as the discrete-time acceleration of the
/// configured integrator and converted to continuous time first ([`discrete_acc`]); for the
/// implicit integrators that recomputes `d.qDeriv` at the current state (as MuJoCo 4.0.0's
/// `mj_discreteAcc`, which calls `mjd_smooth_vel`).
pub fn inverse<T: Scalar>(m: &Model, d: &mut Data<T>) {
    inverse_skip(m, d, Skip::None, false);
}

/// [`inverse`] skipping the stages before `skip` (`mj_inverseSkip`) and, with `skip_sensor`,
/// the sensors. Stage order (Computation "Simulation pipeline"): position stage, position sensors,
/// velocity stage (tendon/actuator velocities, `cvel`, passive forces, `qfrc_bias`), velocity
/// sensors, discrete to continuous `qacc` (invdiscrete), constraint force, `M qacc + qfrc_bias`,
/// acceleration sensors (with the continuous `qacc`), then the combination, and `qacc` is restored.
pub fn inverse_skip<T: Scalar>(m: &Model, d: &mut Data<T>, skip: Skip, skip_sensor: bool) {
    if skip >= Skip::Pos && d.stack_overflow.is_some() {
        // the position stage it would reuse stopped at a stack overflow
        return;
    }
    if skip < Skip::Pos {
        fwd_position(m, d);
        if d.stack_overflow.is_some() {
            // MuJoCo's fatal error: the call stops there
            return;
        }
        if !skip_sensor {
            sensor_pos(m, d);
        }
        if m.opt.enabled(enable::ENERGY) {
            crate::energy::energy_pos(m, d);
        }
    }
    if skip < Skip::Vel {
        fwd_velocity(m, d);
        if !skip_sensor {
            sensor_vel(m, d);
        }
        if m.opt.enabled(enable::ENERGY) {
            crate::energy::energy_vel(m, d);
        }
    }
    let discrete = m.opt.enabled(enable::INVDISCRETE) && discrete_supported(m);
    let mut saved = std::mem::take(&mut d.scratch_nv[1]);
    if discrete {
        saved.copy_from_slice(&d.qacc);
        discrete_acc(m, d);
    }
    inv_constraint(m, d);
    let mut ma = std::mem::take(&mut d.scratch_nv[0]);
    mul_m(m, d, &d.qacc, &mut ma);
    for (i, (out, mq)) in d.qfrc_inverse.iter_mut().zip(&ma).enumerate() {
        *out = *mq + d.qfrc_bias[i] - d.qfrc_passive[i] - d.qfrc_constraint[i];
    }
    d.scratch_nv[0] = ma;
    if !skip_sensor {
        sensor_acc(m, d);
    }
    if discrete {
        d.qacc.copy_from_slice(&saved);
    }
    d.scratch_nv[1] = saved;
}

/// True if `invdiscrete` applies to the model's integrator. MuJoCo 4.0.0 raises a fatal error
/// for RK4 (`mj_discreteAcc: discrete inverse dynamics is not supported by RK4 integrator`);
/// moreau then leaves `qacc` unconverted (see [`unsupported`]).
pub fn discrete_supported(m: &Model) -> bool {
    m.opt.integrator != Integrator::Rk4
}

/// An inverse-dynamics configuration moreau does not reproduce, if any.
pub fn unsupported(m: &Model) -> Option<&'static str> {
    if m.opt.enabled(enable::INVDISCRETE) && !discrete_supported(m) {
        return Some("invdiscrete with the RK4 integrator (a fatal error in MuJoCo)");
    }
    None
}

/// `∂(damping force magnitude)/∂v` of dof `i`: `a + 2b|v| + 3c v²` (linear and polynomial dof
/// damping). Public for the chain rule through [`discrete_acc`] (moreau-derivatives).
#[inline]
pub fn damping_slope<T: Scalar>(m: &Model, d: &Data<T>, i: usize) -> T {
    let (b, p) = m.dof_damping_eff(i);
    let v = d.qvel[i];
    sc::<T>(b) + sc::<T>(2.0 * p[0]) * v.abs() + sc::<T>(3.0 * p[1]) * v * v
}

/// True if Euler integrates dof damping implicitly (eulerdamp and damper on, some linear or
/// polynomial dof damping). Every dof counts, a sleeping tree's too: MuJoCo 4.0.0's
/// `mj_discreteAcc` converts a sleeping damped dof with its damping (measured,
/// tests/engine/inverse_sleep_oracle.rs), where the forward step counts awake dofs only.
pub fn euler_damped(m: &Model) -> bool {
    !m.opt.disabled(disable::EULERDAMP)
        && !m.opt.disabled(disable::DAMPER)
        && (0..m.nv).any(|i| {
            let (b, p) = m.dof_damping_eff(i);
            b != 0.0 || p[0] != 0.0 || p[1] != 0.0
        })
}

/// Converts `d.qacc` from the integrator's discrete-time acceleration to the continuous-time one
/// (`mj_discreteAcc`). The integrators solve `H a_d = f` with the continuous `M a_c = f`, so
/// `a_c = M⁻¹ H a_d`:
/// - Euler with implicit damping: `H = M + h diag(∂damping/∂v)`; plain Euler: no change;
/// - implicitfast: `H = M − h sym(qDeriv)`, implicit: `H = M − h qDeriv`, `qDeriv` (recomputed
///   into `d.qDeriv` by [`smooth_vel`], with the RNE part under implicit only, as MuJoCo 4.0.0's
///   `mjd_smooth_vel(m, d, flg_bias)`; with sleeping trees their dofs' entries keep their
///   values and are used as they are) restricted to the sparsity of `M` (pairs of dofs on one
///   ancestor chain);
///   under implicitfast the 6×6 block of a free joint with no dofs below it is instead
///   `M_b − h (qDeriv_b − ∂qfrc_bias_b/∂v_b)` (exact gyroscopic derivative, as the forward
///   integrator; the implicit `qDeriv` already contains it);
/// - RK4: unsupported (no change; a fatal error in MuJoCo 4.0.0, checked: `mj_inverse` raises
///   "mj_discreteAcc: discrete inverse dynamics is not supported by RK4 integrator").
///
/// Uses `scratch_nv[0]`. `qDeriv`'s actuator part reads `actuator_force` (forcerange clamp) as
/// left by the caller's last forward pass, as MuJoCo's.
pub fn discrete_acc<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let nv = m.nv;
    let h: T = sc(m.opt.timestep);
    let mut x = std::mem::take(&mut d.scratch_nv[0]);
    x.iter_mut().for_each(|v| *v = T::zero());
    // x = (H - M) a_d
    let any = match m.opt.integrator {
        Integrator::Euler => {
            let on = euler_damped(m);
            if on {
                for (i, xi) in x.iter_mut().enumerate() {
                    *xi = h * damping_slope(m, d, i) * d.qacc[i];
                }
            }
            on
        }
        Integrator::ImplicitFast | Integrator::Implicit => {
            let fast = m.opt.integrator == Integrator::ImplicitFast;
            smooth_vel(m, d, !fast);
            let q = &d.qDeriv;
            for i in 0..nv {
                if fast && in_rigid_free_block(m, i) {
                    continue;
                }
                // diagonal, then the (i, j) and (j, i) pairs for the ancestors j of i (qDeriv
                // in the D layout: the M entry at adr maps to (i, j) and (j, i))
                let mut adr = m.dof_Madr[i];
                x[i] -= h * q[m.dof_MDlower[adr]] * d.qacc[i];
                let mut j = dof_parent(m, i);
                while let Some(jj) = j {
                    adr += 1;
                    let (lo, up) = (q[m.dof_MDlower[adr]], q[m.dof_MDupper[adr]]);
                    let (a, b) = if fast {
                        let s = (lo + up) * sc(0.5);
                        (s, s)
                    } else {
                        (lo, up)
                    };
                    x[i] -= h * a * d.qacc[jj];
                    x[jj] -= h * b * d.qacc[i];
                    j = dof_parent(m, jj);
                }
            }
            if fast {
                for jn in 0..m.njnt {
                    if let Some(a) = rigid_free_joint(m, jn) {
                        // block D (unsymmetrized) minus the exact gyroscopic/Coriolis derivative
                        let mut y = [T::zero(); 6];
                        y.copy_from_slice(&d.qacc[a..a + 6]);
                        let db = free_bias_dvel(d, m.jnt_bodyid[jn], a, &y);
                        for r in 0..6 {
                            let mut s = -db[r];
                            for (c, yc) in y.iter().enumerate() {
                                let rc = m.d_adr(a + r, a + c).expect("one free joint's dofs");
                                s += q[rc] * *yc;
                            }
                            x[a + r] -= h * s;
                        }
                    }
                }
            }
            true
        }
        Integrator::Rk4 => false,
    };
    if any {
        solve_m(m, d, &mut x);
        for (a, dx) in d.qacc.iter_mut().zip(&x) {
            *a += *dx;
        }
    }
    d.scratch_nv[0] = x;
}

/// First dof of joint `jn` if it is a free joint whose body carries no further dofs below it
/// (welded descendants allowed): the rigid-body blocks that MuJoCo 4.0.0's implicitfast treats
/// with the exact gyroscopic derivative (docs/mujoco-behaviour.md#integrators).
fn rigid_free_joint(m: &Model, jn: usize) -> Option<usize> {
    if m.jnt_type[jn] != JointType::Free {
        return None;
    }
    let a = m.jnt_dofadr[jn];
    let last = (a + 5) as i32;
    if m.dof_parentid.contains(&last) {
        return None;
    }
    Some(a)
}

/// True if dof `i` belongs to a [`rigid_free_joint`] block.
fn in_rigid_free_block(m: &Model, i: usize) -> bool {
    let jn = m.dof_jntid[i];
    rigid_free_joint(m, jn).is_some()
}

/// Directional derivative `(∂qfrc_bias/∂v) y` of the 6 dofs of a free joint at `a` moving
/// body `b` and its welded descendants rigidly: with `V = Σ cdof·v`, the bias wrench is
/// `F = I (gravity + (0, v_lin × ω)) + V ×* (I V)` (`I` = composite inertia `crb[b]`, `ω` =
/// angular part of `V`), so `δF = I (0, y_lin × ω + v_lin × ω_y) + Y ×* (I V) + V ×* (I Y)`
/// with `Y = Σ cdof·y`, and `δbias_k = cdof_k · δF`. Needs the position and velocity stages.
fn free_bias_dvel<T: Scalar>(d: &Data<T>, b: usize, a: usize, y: &[T; 6]) -> [T; 6] {
    let inert = &d.crb[b];
    let mut v = Vector6::zeros();
    let mut yy = Vector6::zeros();
    for (k, yk) in y.iter().enumerate() {
        v += d.cdof[a + k] * d.qvel[a + k];
        yy += d.cdof[a + k] * *yk;
    }
    let vl = Vector3::new(d.qvel[a], d.qvel[a + 1], d.qvel[a + 2]);
    let yl = Vector3::new(y[0], y[1], y[2]);
    let (w, wy) = (ang(&v), ang(&yy));
    let da = join(&Vector3::zeros(), &(yl.cross(&w) + vl.cross(&wy)));
    let df = inert_mul(inert, &da)
        + cross_force(&yy, &inert_mul(inert, &v))
        + cross_force(&v, &inert_mul(inert, &yy));
    let mut out = [T::zero(); 6];
    for (k, o) in out.iter_mut().enumerate() {
        *o = d.cdof[a + k].dot(&df);
    }
    out
}

/// Constraint force of the inverse dynamics (`mj_invConstraint`): the analytic minimizer of the
/// constraint cost at the given `qacc` (Computation "Inverse dynamics"): `jar = J qacc − aref`,
/// `efc_force = −∂s/∂jar` (docs/mujoco-behaviour.md#cost), `qfrc_constraint = Jᵀ efc_force`;
/// `efc_state` is updated. Needs the constraint rows of the position and velocity stages.
pub fn inv_constraint<T: Scalar>(m: &Model, d: &mut Data<T>) {
    use crate::constraint::cost::{efc_jar, evaluate, Rows};
    let nv = m.nv;
    let n = d.nefc;
    d.qfrc_constraint.iter_mut().for_each(|x| *x = T::zero());
    if n == 0 {
        return;
    }
    let mut jar = std::mem::take(&mut d.solver_scratch_mut().jar);
    jar.resize(n, T::zero());
    efc_jar(nv, d, &mut jar);
    let mut force = std::mem::take(&mut d.efc_force);
    let mut state = std::mem::take(&mut d.efc_state);
    evaluate(&Rows::of_data(d), &jar, &mut force, &mut state, None);
    d.efc_force = force;
    d.efc_state = state;
    d.solver_scratch_mut().jar = jar;
    let mut qfrc = std::mem::take(&mut d.qfrc_constraint);
    for r in 0..n {
        d.efc_J_row(r, nv).axpy(d.efc_force[r], &mut qfrc);
    }
    d.qfrc_constraint = qfrc;
}

/// Number of constraint rows of the current state (`nefc`).
pub fn constraint_rows<T: Scalar>(m: &Model, d: &Data<T>) -> usize {
    let _ = m;
    d.nefc
}

/// Forward/inverse comparison (`mj_compareFwdInv`, run by the step when the `fwdinv` enable
/// flag is set): with constraint rows present, runs the inverse dynamics on the forward `qacc`
/// (skipping the position and velocity stages and the sensors) and stores
/// `solver_fwdinv[0] = ‖qfrc_inverse − (qfrc_applied + qfrc_actuator + Σ Jᵀ xfrc_applied)‖` and
/// `solver_fwdinv[1] = ‖efc_force(inverse) − efc_force(forward)‖` (the solver's distance from
/// the exact optimum). `qfrc_constraint`, `efc_force` and `efc_state` keep the forward values. Like MuJoCo, does nothing when there are no
/// constraint rows (then the identity holds exactly).
pub fn compare_fwd_inv<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if !m.opt.enabled(enable::FWDINV) || constraint_rows(m, d) == 0 {
        return;
    }
    let mut saved = std::mem::take(&mut d.scratch_nv[2]);
    saved.copy_from_slice(&d.qfrc_constraint);
    let mut force = std::mem::take(&mut d.solver_scratch_mut().ftmp);
    let mut state = std::mem::take(&mut d.solver_scratch_mut().stmp);
    force.clear();
    force.extend_from_slice(&d.efc_force);
    state.clear();
    state.extend_from_slice(&d.efc_state);
    inverse_skip(m, d, Skip::Vel, true);
    let mut ef = T::zero();
    for (a, b) in d.efc_force.iter().zip(&force) {
        ef += (*a - *b) * (*a - *b);
    }
    d.efc_force.copy_from_slice(&force);
    d.efc_state.copy_from_slice(&state);
    d.solver_scratch_mut().ftmp = force;
    d.solver_scratch_mut().stmp = state;
    let mut f = std::mem::take(&mut d.scratch_nv[3]);
    for (i, fi) in f.iter_mut().enumerate() {
        *fi = d.qfrc_applied[i] + d.qfrc_actuator[i];
    }
    for b in 1..m.nbody {
        let x = d.xfrc_applied[b];
        if x.iter().any(|v| *v != T::zero()) {
            apply_ft_raw(
                m,
                &d.cdof,
                &d.subtree_com,
                &ang(&x),
                &lin(&x),
                &d.xipos[b],
                b,
                &mut f,
            );
        }
    }
    let mut n = T::zero();
    for (qi, fi) in d.qfrc_inverse.iter().zip(&f) {
        let e = *qi - *fi;
        n += e * e;
    }
    d.solver_fwdinv = [n.sqrt(), ef.sqrt()];
    d.qfrc_constraint.copy_from_slice(&saved);
    d.scratch_nv[2] = saved;
    d.scratch_nv[3] = f;
}
