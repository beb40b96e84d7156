//! Time stepping: `mj_step`, `mj_step1`/`mj_step2` and the four integrators (Computation
//! "Numerical integration"; API Reference "Main simulation"; docs/mujoco-behaviour.md#integrators).
//!
//! Every integrator ends with the common tail ([`advance`]): activations (exact filter update,
//! `actrange` clamp), `qvel += h a`, `qpos = qpos ⊕ h qvel`, `time += h`. `qacc_warmstart` is the
//! forward `qacc` (RK4: the last stage's). Nothing is allocated on `f64`: scratch is in [`Data`].

#![allow(clippy::needless_range_loop)]

use crate::data::arena::StackOverflow;
use crate::data::Data;
use crate::derivative;
use crate::math::dense::{lu_factor, lu_solve};
use crate::math::quat::dexpinv;
use crate::math::{sc, Scalar};
use crate::model::{disable, DynType, Integrator, JointType, Model};
use crate::smooth::crb::{factor_ld, solve_ld};
use crate::state::{integrate_joint, integrate_pos};
use crate::{check, forward};

/// `mj_step`: check position and velocity, forward dynamics, check acceleration, integrate.
///
/// ```
/// let m = moreau::load("models/cartpole.xml")?;
/// let mut d: moreau::Data = moreau::Data::new(&m);
/// d.reset_keyframe(&m, 0).unwrap(); // the pole near the bottom (qpos 0, 3.0)
/// for _ in 0..100 {
///     moreau::step(&m, &mut d);
/// }
/// assert!((d.time - 1.0).abs() < 1e-12); // 100 steps of 10 ms
/// // the pole swings back through the bottom (angle π) and stays below the horizontal
/// assert!(d.qpos[1] > std::f64::consts::FRAC_PI_2 && d.qvel[1] != 0.0);
/// # Ok::<(), moreau::MjcfError>(())
/// ```
pub fn step<T: Scalar>(m: &Model, d: &mut Data<T>) {
    check::check_pos(m, d);
    check::check_vel(m, d);
    forward::forward(m, d);
    if d.stack_overflow.is_some() {
        // MuJoCo's fatal error: the step stops, the state is not integrated
        return;
    }
    check::check_acc(m, d);
    sleep(m, d);
    integrate(m, d);
}

/// The sleep counters after the forward dynamics ([`crate::sleep::update`]); when islands fall
/// asleep, the velocity, acceleration and constraint stages and their sensors run again at
/// their zero velocity before the cycles are closed ([`crate::sleep::commit`]), as MuJoCo
/// 4.0.0's fields after such a step are (docs/mujoco-behaviour.md "Sleeping").
fn sleep<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if crate::sleep::update(m, d) {
        forward::forward_skip(m, d, forward::Skip::Pos, false);
        crate::sleep::commit(m, d);
    }
}

/// [`step`], with MuJoCo 4.0.0's fatal stack overflow as an error: `Err` if the arena could not
/// hold what a stage asked for (the step stopped there, `d.stack_overflow` says where; the
/// state was not integrated).
pub fn try_step<T: Scalar>(m: &Model, d: &mut Data<T>) -> Result<(), StackOverflow> {
    step(m, d);
    d.stack_overflow.map_or(Ok(()), Err)
}

/// [`forward::forward`], with MuJoCo 4.0.0's fatal stack overflow as an error, as [`try_step`].
pub fn try_forward<T: Scalar>(m: &Model, d: &mut Data<T>) -> Result<(), StackOverflow> {
    forward::forward(m, d);
    d.stack_overflow.map_or(Ok(()), Err)
}

/// `mj_step` with skipped stages (MuJoCo's internal `mj_stepSkip`, used by its
/// finite-difference Jacobians): [`forward::forward_skip`] with `skip`/`skip_sensor`, then the
/// integrator. With `skip == Vel` (only controls or activations changed) Euler reuses the
/// factor of `M + h·diag(∂damping/∂v)` left in `d.qH` by the previous call, which depends only
/// on position and velocity. The implicit integrators always recompute `qDeriv` (it depends on
/// controls and activations through velocity-dependent actuator gains; MuJoCo 4.0.0's
/// `mjd_transitionFD` equals differences of full steps exactly, checked). RK4 re-evaluates its
/// later stages from scratch; the caller must only skip stages whose results in `d` belong to the
/// current position (velocity): after an RK4 step they belong to the last stage, so finite
/// differences of RK4 use `Skip::None`.
pub fn step_skip<T: Scalar>(m: &Model, d: &mut Data<T>, skip: forward::Skip, skip_sensor: bool) {
    check::check_pos(m, d);
    check::check_vel(m, d);
    forward::forward_skip(m, d, skip, skip_sensor);
    if d.stack_overflow.is_some() {
        return;
    }
    check::check_acc(m, d);
    sleep(m, d);
    match m.opt.integrator {
        Integrator::Euler => euler_skip(m, d, skip >= forward::Skip::Vel),
        Integrator::Rk4 => runge_kutta(m, d),
        Integrator::Implicit | Integrator::ImplicitFast => implicit(m, d),
    }
}

/// `mj_step1`: the part of `mj_step` that does not depend on controls (position and
/// velocity stages, their sensors and energies).
pub fn step1<T: Scalar>(m: &Model, d: &mut Data<T>) {
    check::check_pos(m, d);
    check::check_vel(m, d);
    forward::fwd_position(m, d);
    if d.stack_overflow.is_some() {
        return;
    }
    crate::sensor::sensor_pos(m, d);
    crate::energy::energy_stage_pos(m, d);
    forward::fwd_velocity(m, d);
    crate::sensor::sensor_vel(m, d);
    if m.opt.enabled(crate::model::enable::ENERGY) {
        crate::energy::energy_vel(m, d);
    }
}

/// `mj_step2`: actuation, acceleration, constraints, acceleration sensors, then the
/// integrator. As in MuJoCo, RK4 is not available here and falls back to Euler.
pub fn step2<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if d.stack_overflow.is_some() {
        // `step1` stopped at a stack overflow
        return;
    }
    crate::actuation::fwd_actuation(m, d);
    forward::fwd_acceleration(m, d);
    forward::fwd_constraint(m, d);
    crate::sensor::sensor_acc(m, d);
    check::check_acc(m, d);
    sleep(m, d);
    match m.opt.integrator {
        Integrator::Implicit | Integrator::ImplicitFast => implicit(m, d),
        _ => euler(m, d),
    }
}

/// Runs the model's integrator on data whose forward dynamics are up to date.
pub fn integrate<T: Scalar>(m: &Model, d: &mut Data<T>) {
    match m.opt.integrator {
        Integrator::Euler => euler(m, d),
        Integrator::Rk4 => runge_kutta(m, d),
        Integrator::Implicit | Integrator::ImplicitFast => implicit(m, d),
    }
}

// ------------------------------------------------------------------ common tail

/// Activation update (docs/mujoco-behaviour.md#integrators): `act += h act_dot`, exact for
/// `filterexact` (`act += act_dot τ (1 − e^{−h/τ})`), then clamped to `actrange` if `actlimited`.
pub fn advance_act<T: Scalar>(m: &Model, act: &mut [T], act_dot: &[T], h: f64) {
    for u in 0..m.nu {
        let Ok(adr) = usize::try_from(m.actuator_actadr[u]) else {
            continue;
        };
        let cf: T = sc(act_step(m, u, h));
        for i in adr..adr + m.actuator_actnum[u] {
            act[i] += act_dot[i] * cf;
            if m.actuator_actlimited[u] {
                let r = m.actuator_actrange[u];
                act[i] = act[i].clamp(sc(r[0]), sc(r[1]));
            }
        }
    }
}

/// The factor `c` of actuator `u`'s activation update `act += c act_dot` ([`advance_act`]):
/// `h`, or `τ (1 − e^{−h/τ})` for `filterexact`.
pub fn act_step(m: &Model, u: usize, h: f64) -> f64 {
    if m.actuator_dyntype[u] == DynType::FilterExact {
        let tau = m.actuator_dynprm[u][0].max(1e-15);
        tau * (1.0 - (-h / tau).exp())
    } else {
        h
    }
}

/// `mj_advance` with the acceleration in `d.int_qacc`: activations, `qvel += h a`,
/// `qpos ⊕= h qvel`, `time += h`.
fn advance<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let h = m.opt.timestep;
    advance_act(m, &mut d.act, &d.act_dot, h);
    let hh: T = sc(h);
    if crate::sleep::any_asleep(m, d) {
        // sleeping trees are not integrated
        for i in 0..m.nv {
            if !crate::sleep::dof_asleep(d, i) {
                d.qvel[i] += hh * d.int_qacc[i];
            }
        }
        for j in 0..m.njnt {
            if !crate::sleep::dof_asleep(d, m.jnt_dofadr[j]) {
                integrate_joint(m, &mut d.qpos, &d.qvel, hh, j);
            }
        }
    } else {
        for (v, a) in d.qvel.iter_mut().zip(&d.int_qacc) {
            *v += hh * *a;
        }
        integrate_pos(m, &mut d.qpos, &d.qvel, hh);
    }
    d.time += hh;
}

// ------------------------------------------------------------------ Euler

/// Semi-implicit Euler with implicit dof damping (Computation "Integrators";
/// docs/mujoco-behaviour.md#integrators): if eulerdamp and damper are enabled and some dof has
/// (polynomial) damping, solve `(M + h·diag(∂damping/∂v)) a = qfrc_smooth + qfrc_constraint` with
/// an L'DL in qM's layout; otherwise `a = qacc`.
pub fn euler<T: Scalar>(m: &Model, d: &mut Data<T>) {
    euler_skip(m, d, false);
}

/// `euler`; with `skip_factor` the factor of `M + h·diag(∂damping/∂v)` left in `d.qH` by the
/// previous call is reused (`mj_EulerSkip`; valid when position and velocity are unchanged).
pub fn euler_skip<T: Scalar>(m: &Model, d: &mut Data<T>, skip_factor: bool) {
    d.qacc_warmstart.copy_from_slice(&d.qacc);
    // only awake dofs count: with every damped tree asleep the awake trees take the explicit
    // update, so a sleeping damped pendulum leaves a box stack beside it bit for bit as
    // without it (measured on MuJoCo 4.0.0, docs/mujoco-behaviour.md "Sleeping")
    let sleeping = crate::sleep::any_asleep(m, d);
    let damped = !m.opt.disabled(disable::EULERDAMP)
        && !m.opt.disabled(disable::DAMPER)
        && (0..m.nv).any(|i| {
            let (b, p) = m.dof_damping_eff(i);
            (b > 0.0 || p[0] != 0.0 || p[1] != 0.0) && !(sleeping && crate::sleep::dof_asleep(d, i))
        });
    if damped {
        if !skip_factor {
            let h: T = sc(m.opt.timestep);
            d.qH.copy_from_slice(&d.qM);
            for i in 0..m.nv {
                let c = derivative::dof_damping_deriv(m, d, i);
                d.qH[m.dof_Madr[i]] += h * c;
            }
            factor_ld(m, &mut d.qH, &mut d.qHDiagInv).warn(d);
        }
        smooth_plus_constraint(d);
        solve_ld(m, &d.qH, &d.qHDiagInv, &mut d.int_qacc);
    } else {
        d.int_qacc.copy_from_slice(&d.qacc);
    }
    advance(m, d);
}

fn smooth_plus_constraint<T: Scalar>(d: &mut Data<T>) {
    for ((x, s), c) in d
        .int_qacc
        .iter_mut()
        .zip(&d.qfrc_smooth)
        .zip(&d.qfrc_constraint)
    {
        *x = *s + *c;
    }
}

// ------------------------------------------------------------------ implicit / implicitfast

/// Implicit-in-velocity Euler (Computation "Integrators"; docs/mujoco-behaviour.md#integrators):
/// `(M − h D) a = qfrc_smooth + qfrc_constraint`, `D` = `qDeriv` on M's sparsity.
/// *implicitfast*: `D = sym ∂(qfrc_passive + qfrc_actuator)/∂qvel`, L'DL in qM's layout.
/// *implicit*: `D` also has `−∂qfrc_bias/∂qvel`; `M − h D` is factored in `qLU` by the sparse,
/// fill-free LU of [`lu_factor_d`] (MuJoCo's `mju_factorLUSparse` on the same pattern).
/// Childless free bodies get the exact gyroscopic block `M_b − h (D_b − ∂bias_b/∂v_b)` solved
/// by a 6×6 LU under implicitfast (docs/mujoco-behaviour.md#integrators).
pub fn implicit<T: Scalar>(m: &Model, d: &mut Data<T>) {
    d.qacc_warmstart.copy_from_slice(&d.qacc);
    let h: T = sc(m.opt.timestep);
    let fast = m.opt.integrator != Integrator::Implicit;
    derivative::smooth_vel(m, d, !fast);
    smooth_plus_constraint(d);
    if fast {
        let q = &d.qDeriv;
        for adr in 0..m.nM {
            let sym = (q[m.dof_MDlower[adr]] + q[m.dof_MDupper[adr]]) * sc(0.5);
            d.qH[adr] = d.qM[adr] - h * sym;
        }
        factor_ld(m, &mut d.qH, &mut d.qHDiagInv).warn(d);
        solve_ld(m, &d.qH, &d.qHDiagInv, &mut d.int_qacc);
        // childless free bodies: exact gyroscopic derivative
        for a in gyro_blocks(m) {
            let mut g = [T::zero(); 36];
            derivative::d_rne_vel_with(m, d, a..a + 6, |r, c, x| {
                if (a..a + 6).contains(&r) {
                    g[(r - a) * 6 + c - a] += x;
                }
            });
            let mut blk = [T::zero(); 36];
            for r in 0..6 {
                for c in 0..6 {
                    let (ri, ci) = (a + r, a + c);
                    let dd = d.qDeriv[d_entry(m, ri, ci)] - g[r * 6 + c];
                    blk[r * 6 + c] = m_entry(m, &d.qM, ri, ci) - h * dd;
                }
            }
            let mut piv = [0usize; 6];
            lu_factor(&mut blk, 6, &mut piv);
            let mut x = [T::zero(); 6];
            for r in 0..6 {
                x[r] = d.qfrc_smooth[a + r] + d.qfrc_constraint[a + r];
            }
            lu_solve(&blk, 6, &piv, &mut x);
            d.int_qacc[a..a + 6].copy_from_slice(&x);
        }
    } else {
        d.qLU.resize(m.nD, T::zero());
        for adr in 0..m.nM {
            let mij = d.qM[adr];
            let (lo, up) = (m.dof_MDlower[adr], m.dof_MDupper[adr]);
            d.qLU[lo] = mij - h * d.qDeriv[lo];
            d.qLU[up] = mij - h * d.qDeriv[up];
        }
        lu_factor_d(m, &mut d.qLU);
        lu_solve_d(m, &d.qLU, &mut d.int_qacc);
    }
    advance(m, d);
}

/// Address in the `D` layout of `(i, j)`, two dofs of one ancestor chain.
fn d_entry(m: &Model, i: usize, j: usize) -> usize {
    m.d_adr(i, j)
        .expect("dofs of one free joint are on one ancestor chain")
}

/// In-place LU factorization of a matrix `A` in the `D` layout (`qLU`): the pairs of dofs of
/// which one is the other or its ancestor. Eliminating the dofs from the last to the first (each
/// after all its descendants) creates no fill: dof `k` couples only its ancestors, which lie on
/// one chain. No pivoting. With `U` the rows `(k, j)`, `j` = `k` or an ancestor of `k`, and the
/// multipliers `l_ik = A_ik / U_kk` stored at `(i, k)`, `i` an ancestor of `k`.
pub fn lu_factor_d<T: Scalar>(m: &Model, a: &mut [T]) {
    for k in (0..m.nv).rev() {
        let base = m.dof_Madr[k];
        let pivot = a[m.dof_MDlower[base]];
        // t-th ancestor i of k: multiplier at (i, k)
        let mut i = m.dof_parentid[k];
        let mut t = 1;
        while let Ok(iu) = usize::try_from(i) {
            let ik = m.dof_MDupper[base + t];
            let l = a[ik] / pivot;
            a[ik] = l;
            // (i, j) -= l (k, j) for the ancestors j of k (j below i on the chain: (j, i) is
            // in M's row j, t − s places from its diagonal; j = i or above: (i, j) in row i)
            let mut s = 1;
            let mut j = m.dof_parentid[k];
            while let Ok(ju) = usize::try_from(j) {
                let kj = a[m.dof_MDlower[base + s]];
                let ij = if s < t {
                    m.dof_MDupper[m.dof_Madr[ju] + (t - s)]
                } else {
                    m.dof_MDlower[m.dof_Madr[iu] + (s - t)]
                };
                a[ij] -= l * kj;
                s += 1;
                j = m.dof_parentid[ju];
            }
            t += 1;
            i = m.dof_parentid[iu];
        }
    }
}

/// Solves `A x = b` in place with the factor of [`lu_factor_d`].
pub fn lu_solve_d<T: Scalar>(m: &Model, a: &[T], x: &mut [T]) {
    // the multipliers, in elimination order
    for k in (0..m.nv).rev() {
        let base = m.dof_Madr[k];
        let xk = x[k];
        let mut i = m.dof_parentid[k];
        let mut t = 1;
        while let Ok(iu) = usize::try_from(i) {
            x[iu] -= a[m.dof_MDupper[base + t]] * xk;
            t += 1;
            i = m.dof_parentid[iu];
        }
    }
    // U, whose row k reaches the ancestors of k (solved before k)
    for k in 0..m.nv {
        let base = m.dof_Madr[k];
        let mut s = x[k];
        let mut j = m.dof_parentid[k];
        let mut t = 1;
        while let Ok(ju) = usize::try_from(j) {
            s -= a[m.dof_MDlower[base + t]] * x[ju];
            t += 1;
            j = m.dof_parentid[ju];
        }
        x[k] = s / a[m.dof_MDlower[base]];
    }
}

/// First dof of every free joint whose body has no children: the 6×6 blocks that the
/// implicitfast step solves with MuJoCo 4.0.0's exact gyroscopic derivative.
pub fn gyro_blocks(m: &Model) -> impl Iterator<Item = usize> + '_ {
    (0..m.njnt)
        .filter(|&j| m.jnt_type[j] == JointType::Free && childless(m, m.jnt_bodyid[j]))
        .map(|j| m.jnt_dofadr[j])
}

/// True if no body has `b` as its parent.
fn childless(m: &Model, b: usize) -> bool {
    !m.body_parentid.iter().skip(b + 1).any(|&p| p == b)
}

/// Entry `(i, j)` of the full M from the tree-sparse layout (0 if not ancestor-related).
fn m_entry<T: Scalar>(m: &Model, qm: &[T], i: usize, j: usize) -> T {
    let (hi, lo) = if i >= j { (i, j) } else { (j, i) };
    let mut adr = m.dof_Madr[hi];
    let mut k = hi as i32;
    while k >= 0 {
        if k as usize == lo {
            return qm[adr];
        }
        adr += 1;
        k = m.dof_parentid[k as usize];
    }
    T::zero()
}

// ------------------------------------------------------------------ RK4 (RKMK for rotations)

const RK_A: [[f64; 3]; 4] = [[0.0; 3], [0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]];
const RK_B: [f64; 4] = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];
const RK_C: [f64; 4] = [0.0, 0.5, 0.5, 1.0];

/// Classic 4-stage Runge–Kutta (docs/mujoco-behaviour.md#integrators, RK4): velocity and activation
/// use the weighted stage derivatives; hinge/slide/free-translation positions the weighted stage
/// velocities; ball and free rotations Runge–Kutta–Munthe-Kaas with `k_j = dexp⁻¹(θ_j, ω_j)`, `θ_i
/// = h Σ a_ij k_j`, `q_i = q0 ⊗ exp(θ_i)`. Afterwards `qacc` holds the weighted acceleration and
/// `qacc_warmstart` the last stage's.
pub fn runge_kutta<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let (nv, na) = (m.nv, m.na);
    let h = m.opt.timestep;
    let hh: T = sc(h);
    let t0 = d.time;
    d.rk_qpos0.copy_from_slice(&d.qpos);
    d.rk_qvel0.copy_from_slice(&d.qvel);
    d.rk_act0.copy_from_slice(&d.act);
    for i in 0..4 {
        if i > 0 {
            // combined stage velocity / rotation vector / acceleration / act_dot
            rk_combine(m, d, &RK_A[i], i);
            d.qpos.copy_from_slice(&d.rk_qpos0);
            integrate_pos(m, &mut d.qpos, &d.rk_dv, hh);
            for x in 0..nv {
                let mut a = T::zero();
                for j in 0..i {
                    if RK_A[i][j] != 0.0 {
                        a += d.rk_qacc[j * nv + x] * sc(RK_A[i][j]);
                    }
                }
                d.qvel[x] = d.rk_qvel0[x] + hh * a;
            }
            for x in 0..na {
                let mut a = T::zero();
                for j in 0..i {
                    if RK_A[i][j] != 0.0 {
                        a += d.rk_actdot[j * na + x] * sc(RK_A[i][j]);
                    }
                }
                d.act[x] = d.rk_act0[x] + hh * a;
            }
            d.time = t0 + sc(RK_C[i] * h);
            // MuJoCo skips the sensors in the later stages: sensordata stays at the step's
            // initial state (checked against 4.0.0)
            forward::forward_skip(m, d, forward::Skip::None, true);
        }
        d.rk_qacc[i * nv..(i + 1) * nv].copy_from_slice(&d.qacc);
        d.rk_actdot[i * na..(i + 1) * na].copy_from_slice(&d.act_dot);
        // k_i: the stage velocity; rotations map through dexp⁻¹(θ_i)
        d.rk_k[i * nv..(i + 1) * nv].copy_from_slice(&d.qvel);
        if i > 0 {
            for jn in 0..m.njnt {
                let a = match m.jnt_type[jn] {
                    JointType::Free => m.jnt_dofadr[jn] + 3,
                    JointType::Ball => m.jnt_dofadr[jn],
                    _ => continue,
                };
                let th = [d.rk_dv[a] * hh, d.rk_dv[a + 1] * hh, d.rk_dv[a + 2] * hh];
                let w = [d.qvel[a], d.qvel[a + 1], d.qvel[a + 2]];
                let k = dexpinv(&th, &w);
                d.rk_k[i * nv + a..i * nv + a + 3].copy_from_slice(&k);
            }
        }
    }
    d.qacc_warmstart.copy_from_slice(&d.qacc);
    // final combination
    rk_combine(m, d, &[RK_B[0], RK_B[1], RK_B[2]], 3);
    for x in 0..nv {
        d.rk_dv[x] += d.rk_k[3 * nv + x] * sc(RK_B[3]);
    }
    d.qpos.copy_from_slice(&d.rk_qpos0);
    integrate_pos(m, &mut d.qpos, &d.rk_dv, hh);
    for x in 0..nv {
        let mut a = T::zero();
        for j in 0..4 {
            a += d.rk_qacc[j * nv + x] * sc(RK_B[j]);
        }
        d.qacc[x] = a;
        d.qvel[x] = d.rk_qvel0[x] + hh * a;
    }
    for x in 0..na {
        let mut a = T::zero();
        for j in 0..4 {
            a += d.rk_actdot[j * na + x] * sc(RK_B[j]);
        }
        d.act_dot[x] = a;
    }
    d.act.copy_from_slice(&d.rk_act0);
    advance_act(m, &mut d.act, &d.act_dot, h);
    d.time = t0 + hh;
}

/// `rk_dv = Σ_{j<n} w_j k_j`.
fn rk_combine<T: Scalar>(m: &Model, d: &mut Data<T>, w: &[f64; 3], n: usize) {
    let nv = m.nv;
    for x in 0..nv {
        let mut s = T::zero();
        for (j, &wj) in w.iter().enumerate().take(n) {
            if wj != 0.0 {
                s += d.rk_k[j * nv + x] * sc(wj);
            }
        }
        d.rk_dv[x] = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::smooth::crb::{factor_ld as factor_tree, solve_ld as solve_tree};

    /// A model skeleton with only the dof tree (chain 0-1-2 and a separate dof 3).
    fn tree_model() -> Model {
        let mut m = Model {
            nv: 4,
            ..Default::default()
        };
        m.dof_parentid = vec![-1, 0, 1, -1];
        m.dof_Madr = vec![0, 1, 3, 6];
        m.nM = 7;
        m
    }

    #[test]
    fn tree_ldl_matches_dense() {
        let m = tree_model();
        // dense SPD matrix with the tree sparsity
        let full = [
            [4.0, 1.0, 0.5, 0.0],
            [1.0, 3.0, 0.7, 0.0],
            [0.5, 0.7, 2.0, 0.0],
            [0.0, 0.0, 0.0, 1.5],
        ];
        let mut a = vec![0.0; 7];
        for i in 0..4 {
            let mut adr = m.dof_Madr[i];
            let mut j = i as i32;
            while j >= 0 {
                a[adr] = full[i][j as usize];
                adr += 1;
                j = m.dof_parentid[j as usize];
            }
        }
        let mut di = vec![0.0; 4];
        factor_tree(&m, &mut a, &mut di);
        let b = [1.0, -2.0, 0.5, 3.0];
        let mut x = b;
        solve_tree(&m, &a, &di, &mut x);
        for i in 0..4 {
            let r: f64 = (0..4).map(|j| full[i][j] * x[j]).sum();
            assert!((r - b[i]).abs() < 1e-14, "row {i}: {r} vs {}", b[i]);
        }
        // dense LU agrees
        let mut l: Vec<f64> = full.iter().flatten().copied().collect();
        let mut piv = [0; 4];
        assert!(lu_factor(&mut l, 4, &mut piv));
        let mut y = b;
        lu_solve(&l, 4, &piv, &mut y);
        for i in 0..4 {
            assert!((x[i] - y[i]).abs() < 1e-14);
        }
    }
}
