//! Analytic velocity derivatives of the smooth forces, used by the implicit integrators
//! (Computation "Numerical integration": the matrix `D = ∂(τ − c)/∂v`;
//! docs/mujoco-behaviour.md#integrators).
//!
//! All functions *add* into a dense, row-major `nv × nv` matrix `out` (`out[i*nv + k] =
//! ∂f_i/∂qvel_k`), after `fwd_position` and `fwd_velocity` (and `fwd_actuation` for the
//! actuator terms) have run. Nothing is allocated: scratch lives in [`Data`].

#![allow(clippy::needless_range_loop)]

use crate::actuation::{actfrc_tendon, bad_ctrl, muscle_fl};
use crate::data::Data;
use crate::math::spatial::{cross_force, cross_motion, inert_mul as mul_inert};
use crate::math::{sc, Scalar};
use crate::model::{disable, BiasType, GainType, JointType, Model};
use nalgebra::Vector6;

// ------------------------------------------------------------------ RNE

/// `∂qfrc_bias/∂qvel` for the columns `k ∈ cols` (Computation "General framework": the
/// Coriolis/centrifugal term `c(v)` of RNE with `qacc = 0`), **added** into `out`. Differentiates
/// the recursion `cvel → cdof_dot → cacc → cfrc → qfrc_bias` directly; `cdof_dot` follows MuJoCo's
/// convention (ball dofs use the parent velocity, free rotations the velocity after the
/// translation). Column `k` moves only the bodies of the subtree of dof `k`'s body (contiguous in
/// the depth-first body order) and, through their force, its ancestors: rows outside those are left
/// untouched. Cost O(|cols| · (subtree + depth)).
pub fn d_rne_vel<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    cols: std::ops::Range<usize>,
    out: &mut [T],
) {
    let nv = m.nv;
    d_rne_vel_with(m, d, cols, |i, k, x| out[i * nv + k] += x);
}

/// [`d_rne_vel`] handing every entry `(i, k, ∂qfrc_bias_i/∂qvel_k)` to `add` (once per entry,
/// `i` the dof itself, an ancestor or a descendant of `k`) instead of adding into a dense matrix.
pub fn d_rne_vel_with<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    cols: std::ops::Range<usize>,
    mut add: impl FnMut(usize, usize, T),
) {
    let z6 = Vector6::zeros();
    for k in cols {
        let bk = m.dof_bodyid[k];
        // the subtree of bk: bodies bk..hi (depth-first order)
        let mut hi = bk + 1;
        while hi < m.nbody && m.body_parentid[hi] >= bk {
            hi += 1;
        }
        // forward pass: derivatives of cvel, cdof_dot, cacc (zero outside the subtree; the
        // parent of bk contributes zero)
        for b in bk..hi {
            let p = m.body_parentid[b];
            let (mut dcv, mut dca) = if b == bk {
                (z6, z6)
            } else {
                (d.deriv_cvel[p], d.deriv_cacc[p])
            };
            for jj in 0..m.body_jntnum[b] {
                let j = m.body_jntadr[b] + jj;
                let a = m.jnt_dofadr[j];
                let mut dofs = |lo: usize, hi: usize, dcv: &mut Vector6<T>| {
                    // cdof_dot of dofs lo..hi all use the same velocity dcv
                    for i in lo..hi {
                        let dcdd = cross_motion(dcv, &d.cdof[i]);
                        dca += dcdd * d.qvel[i];
                        if i == k {
                            dca += d.cdof_dot[i];
                        }
                    }
                    for i in lo..hi {
                        if i == k {
                            *dcv += d.cdof[i];
                        }
                    }
                };
                match m.jnt_type[j] {
                    JointType::Free => {
                        // translational cdof_dot is zero (and so is its derivative)
                        for i in a..a + 3 {
                            if i == k {
                                dcv += d.cdof[i];
                            }
                        }
                        dofs(a + 3, a + 6, &mut dcv);
                    }
                    JointType::Ball => dofs(a, a + 3, &mut dcv),
                    _ => dofs(a, a + 1, &mut dcv),
                }
            }
            d.deriv_cvel[b] = dcv;
            d.deriv_cacc[b] = dca;
        }
        // body forces
        for b in bk..hi {
            let ci = &d.cinert[b];
            let dcv = d.deriv_cvel[b];
            let cv = d.cvel[b];
            d.deriv_cfrc[b] = mul_inert(ci, &d.deriv_cacc[b])
                + cross_force(&dcv, &mul_inert(ci, &cv))
                + cross_force(&cv, &mul_inert(ci, &dcv));
        }
        // backward accumulation within the subtree; every ancestor of bk then carries bk's
        for b in (bk + 1..hi).rev() {
            let p = m.body_parentid[b];
            let f = d.deriv_cfrc[b];
            d.deriv_cfrc[p] += f;
        }
        let fk = d.deriv_cfrc[bk];
        // the dofs of the ancestors of bk, then those of the subtree
        let mut p = m.body_parentid[bk];
        while p > 0 {
            for i in m.body_dofadr[p]..m.body_dofadr[p] + m.body_dofnum[p] {
                add(i, k, d.cdof[i].dot(&fk));
            }
            p = m.body_parentid[p];
        }
        for b in bk..hi {
            for i in m.body_dofadr[b]..m.body_dofadr[b] + m.body_dofnum[b] {
                add(i, k, d.cdof[i].dot(&d.deriv_cfrc[b]));
            }
        }
    }
}

// ------------------------------------------------------------------ passive

/// `∂qfrc_passive/∂qvel`, added into `out` (Computation "Passive forces"): dof damping with its
/// polynomial `a v + b v|v| + c v³`, and tendon damping `−b Jᵀ J` (`b` the derivative of its
/// polynomial), and fluid forces ([`crate::passive::fluid::fluid_deriv`], symmetrized per object under
/// implicitfast as MuJoCo does). The fluid term needs `f64` or `Dual64` data
/// ([`crate::passive::fluid::FluidScalar`]; on `Dual64` with its derivative, so dual steps of the
/// implicit integrators differentiate the `f64` step): on other scalar types it is left out.
/// It allocates (per-object Jacobians); steps use `d.scratch_fluid` instead.
pub fn d_passive_vel<T: Scalar>(m: &Model, d: &Data<T>, out: &mut [T]) {
    let nv = m.nv;
    d_passive_vel_with(m, d, &mut Vec::new(), |i, k, x| out[i * nv + k] += x);
}

/// [`d_passive_vel`] handing every term `(i, k, x)` to `add` (an entry may receive several), the
/// fluid term's per-object Jacobians in `scratch` (a `Vec`: resized by
/// [`crate::passive::fluid::fluid_deriv_scratch`]).
#[allow(clippy::ptr_arg)]
fn d_passive_vel_with<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    scratch: &mut Vec<T>,
    mut add: impl FnMut(usize, usize, T),
) {
    let nv = m.nv;
    if m.opt.density > 0.0 || m.opt.viscosity > 0.0 {
        use num_dual::Dual64;
        use std::any::Any;
        let sym = m.opt.integrator == crate::model::Integrator::ImplicitFast;
        let scratch = scratch as &mut dyn Any;
        if let Some(df) = (d as &dyn Any).downcast_ref::<Data<f64>>() {
            let s = scratch
                .downcast_mut::<Vec<f64>>()
                .expect("scratch of Data's scalar");
            crate::passive::fluid::fluid_deriv_scratch(m, df, sym, s, |i, x| {
                add(i / nv, i % nv, sc::<T>(x))
            });
        } else if let Some(dd) = (d as &dyn Any).downcast_ref::<Data<Dual64>>() {
            // the same block with its derivative along the dual's direction, so dual steps of
            // the implicit integrators differentiate the f64 step
            let s = scratch
                .downcast_mut::<Vec<Dual64>>()
                .expect("scratch of Data's scalar");
            crate::passive::fluid::fluid_deriv_scratch(m, dd, sym, s, |i, x| {
                if let Some(&xt) = (&x as &dyn Any).downcast_ref::<T>() {
                    add(i / nv, i % nv, xt);
                }
            });
        }
    }
    if m.opt.disabled(disable::DAMPER) {
        return;
    }
    for i in 0..nv {
        add(i, i, -dof_damping_deriv(m, d, i));
    }
    for t in 0..m.ntendon {
        let (b, p) = m.tendon_damping_eff(t);
        if b == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
            continue;
        }
        // ∂(a v + b v|v| + c v³)/∂v = a + 2b|v| + 3c v²
        let v = d.ten_velocity[t];
        let b: T = sc::<T>(b) + sc::<T>(2.0 * p[0]) * v.abs() + sc::<T>(3.0 * p[1]) * v * v;
        // on the row's pattern: ten_J is zero outside it
        let (cols, j) = d.ten_J_row(t);
        for (&r, &jr) in cols.iter().zip(j) {
            if jr == T::zero() {
                continue;
            }
            let jr = jr * b;
            for (&c, &jc) in cols.iter().zip(j) {
                add(r, c, -(jr * jc));
            }
        }
    }
}

/// `∂(damping force magnitude)/∂v` of dof `i`: `a + 2b|v| + 3c v²`.
#[inline]
pub fn dof_damping_deriv<T: Scalar>(m: &Model, d: &Data<T>, i: usize) -> T {
    let (b, p) = m.dof_damping_eff(i);
    let v = d.qvel[i];
    let mut r: T = sc(b);
    if p[0] != 0.0 {
        r += sc::<T>(2.0 * p[0]) * v.abs();
    }
    if p[1] != 0.0 {
        r += sc::<T>(3.0 * p[1]) * v * v;
    }
    r
}

// ------------------------------------------------------------------ actuators

/// Derivative of the muscle force-velocity curve FV(Vn) (docs/mujoco-behaviour.md#actuators).
fn muscle_dfv<T: Scalar>(vn: T, fvmax: f64) -> T {
    let y: T = sc(fvmax - 1.0);
    if vn <= -T::one() {
        T::zero()
    } else if vn <= T::zero() {
        sc::<T>(2.0) * (vn + T::one())
    } else if vn <= y {
        sc::<T>(2.0) * (y - vn) / y
    } else {
        T::zero()
    }
}

/// `∂actuator_force_u/∂actuator_velocity_u` (docs/mujoco-behaviour.md#actuators): affine gain
/// `gainprm[2]·input`, muscle gain `−F0 FL(Ln) FV'(Vn)/(L0 vmax)·act`, affine bias `biasprm[2]`;
/// zero when the force is clamped by `forcerange`. `ctrl_bad` is `bad_ctrl(m, &d.ctrl).is_some()`
/// (a bad control zeroes every stateless actuator's input), judged once by the caller for all
/// actuators.
pub fn actuator_force_dvel<T: Scalar>(m: &Model, d: &Data<T>, u: usize, ctrl_bad: bool) -> T {
    if m.actuator_forcelimited[u] {
        let r = m.actuator_forcerange[u];
        let f = d.actuator_force[u];
        if f <= sc(r[0]) || f >= sc(r[1]) {
            return T::zero();
        }
    }
    let input = if m.actuator_actnum[u] == 0 || m.actuator_actadr[u] < 0 {
        if ctrl_bad {
            return actuator_bias_dvel(m, u);
        }
        let c = d.ctrl[u];
        if m.actuator_ctrllimited[u] && !m.opt.disabled(disable::CLAMPCTRL) {
            let r = m.actuator_ctrlrange[u];
            c.clamp(sc(r[0]), sc(r[1]))
        } else {
            c
        }
    } else {
        // stateful: the last activation (actearly adds h·act_dot, independent of qvel)
        let a = (m.actuator_actadr[u] as usize) + m.actuator_actnum[u] - 1;
        let mut x = d.act[a];
        if m.actuator_actearly[u] {
            x += d.act_dot[a] * sc(m.opt.timestep);
        }
        x
    };
    let g = &m.actuator_gainprm[u];
    let gain_v = match m.actuator_gaintype[u] {
        GainType::Affine => sc::<T>(g[2]),
        GainType::Muscle => {
            // same normalization as actuation::muscle_gain
            let lr = m.actuator_lengthrange[u];
            let l0 = ((lr[1] - lr[0]) / (g[1] - g[0]).max(1e-15)).max(1e-15);
            let f0 = if g[2] >= 0.0 {
                g[2]
            } else {
                g[3] / m.actuator_acc0[u].max(1e-15)
            };
            let ln = sc::<T>(g[0]) + (d.actuator_length[u] - sc(lr[0])) / sc(l0);
            let vn = d.actuator_velocity[u] / sc(l0 * g[6]);
            -sc::<T>(f0) * muscle_fl(ln, g[4], g[5]) * muscle_dfv(vn, g[8]) / sc(l0 * g[6])
        }
        _ => T::zero(),
    };
    gain_v * input + actuator_bias_dvel(m, u)
}

fn actuator_bias_dvel<T: Scalar>(m: &Model, u: usize) -> T {
    match m.actuator_biastype[u] {
        BiasType::Affine => sc::<T>(m.actuator_biasprm[u][2]),
        _ => T::zero(),
    }
}

/// `∂qfrc_actuator/∂qvel = Σ_u momentᵤᵀ (∂force_u/∂V_u) momentᵤ`, added into `out`.
pub fn d_actuator_vel<T: Scalar>(m: &Model, d: &Data<T>, out: &mut [T]) {
    let nv = m.nv;
    d_actuator_vel_with(m, d, |i, k, x| out[i * nv + k] += x);
}

/// [`d_actuator_vel`] handing every term `(i, k, x)` to `add`.
fn d_actuator_vel_with<T: Scalar>(m: &Model, d: &Data<T>, mut add: impl FnMut(usize, usize, T)) {
    if m.opt.disabled(disable::ACTUATION) {
        return;
    }
    let ctrl_bad = bad_ctrl(m, &d.ctrl).is_some();
    for u in 0..m.nu {
        if actfrc_clamped(m, d, u) {
            continue;
        }
        let c = actuator_force_dvel(m, d, u, ctrl_bad);
        if c == T::zero() {
            continue;
        }
        // on the row's pattern: actuator_moment is zero outside it
        let (cols, mom) = d.moment_row(u);
        for (&r, &mr) in cols.iter().zip(mom) {
            if mr == T::zero() {
                continue;
            }
            let mr = mr * c;
            for (&cc, &mc) in cols.iter().zip(mom) {
                add(r, cc, mr * mc);
            }
        }
    }
}

/// True if MuJoCo's `qDeriv` leaves actuator `u` out: its joint's or its tendon's total
/// actuator force is at or beyond its `actuatorfrcrange` (`joint_actfrc_clamped`,
/// `tendon_actfrc_clamped`). Reads the actuation stage's outputs.
pub fn actfrc_clamped<T: Scalar>(m: &Model, d: &Data<T>, u: usize) -> bool {
    joint_actfrc_clamped(m, d, u) || tendon_actfrc_clamped(m, d, u)
}

/// True if actuator `u` transmits to a hinge/slide joint (`joint`/`jointinparent`) whose total
/// actuator force `qfrc_actuator` sits at its `actuatorfrcrange` bound (closed test): MuJoCo
/// 4.0.0 then drops the actuator from `qDeriv` (checked with mj_step under implicitfast: a
/// velocity servo and a muscle on a clamped joint give `qDeriv = 0`, at the bound too; a clamped
/// joint inside a fixed-tendon transmission keeps it), which is also the derivative of the
/// clamped force. Reads `qfrc_actuator` as left by the last actuation stage.
fn joint_actfrc_clamped<T: Scalar>(m: &Model, d: &Data<T>, u: usize) -> bool {
    use crate::model::TrnType;
    if !matches!(
        m.actuator_trntype[u],
        TrnType::Joint | TrnType::JointInParent
    ) {
        return false;
    }
    let Ok(j) = usize::try_from(m.actuator_trnid[u][0]) else {
        return false;
    };
    if !m.jnt_actfrclimited[j] || !matches!(m.jnt_type[j], JointType::Hinge | JointType::Slide) {
        return false;
    }
    let r = m.jnt_actfrcrange[j];
    let f = d.qfrc_actuator[m.jnt_dofadr[j]];
    f <= sc(r[0]) || f >= sc(r[1])
}

/// Adds to `out` (row-major `nv × nv`) what [`d_actuator_vel`] leaves out for the actuators
/// of tendons whose total actuator force is clamped (`tendon_actfrcrange`): the exact
/// `∂qfrc_actuator/∂qvel` of their scaled forces. With `S = Σ_j f_j` the tendon's total
/// before the clamp (`ten_actfrc`), `s = bound/S` and `g_i = s f_i` the applied forces,
/// `∂g_i/∂qvel = s c_i m_i − (g_i/S) Σ_j c_j m_j` (`c_j = ∂f_j/∂actuator_velocity_j`, `m_j`
/// the moment row); at the bound itself (no scaling) `∂g_i/∂qvel = c_i m_i`. MuJoCo's `qDeriv`
/// drops these actuators; the derivative of the forward dynamics needs them. `scratch` holds
/// two rows of `nv` (resized here, so a caller that keeps it allocates only once).
pub fn d_tendon_actfrc_vel(m: &Model, d: &Data<f64>, out: &mut [f64], scratch: &mut Vec<f64>) {
    if m.opt.disabled(disable::ACTUATION) || !m.tendon_actfrclimited.iter().any(|&l| l) {
        return;
    }
    let nv = m.nv;
    let ctrl_bad = bad_ctrl(m, &d.ctrl).is_some();
    scratch.resize(2 * nv, 0.0);
    let (w, mi) = scratch.split_at_mut(nv);
    for t in (0..m.ntendon).filter(|&t| m.tendon_actfrclimited.get(t) == Some(&true)) {
        let r = m.tendon_actfrcrange[t];
        let total = d.ten_actfrc[t];
        let scale = if total < r[0] {
            r[0] / total
        } else if total > r[1] {
            r[1] / total
        } else if total == r[0] || total == r[1] {
            1.0
        } else {
            continue;
        };
        let on_t = |u: usize| actfrc_tendon(m, u) == Some(t);
        w.iter_mut().for_each(|x| *x = 0.0);
        for u in (0..m.nu).filter(|&u| on_t(u)) {
            let c = actuator_force_dvel(m, d, u, ctrl_bad);
            let (cols, mom) = d.moment_row(u);
            for (&k, &mk) in cols.iter().zip(mom) {
                w[k] += c * mk;
            }
        }
        for u in (0..m.nu).filter(|&u| on_t(u)) {
            let c = actuator_force_dvel(m, d, u, ctrl_bad);
            let g_over_s = if scale == 1.0 {
                0.0
            } else {
                d.actuator_force[u] / total
            };
            d.moment_row_dense(u, mi);
            let (cols, mom) = d.moment_row(u);
            for (&row, &mr) in cols.iter().zip(mom) {
                for k in 0..nv {
                    out[row * nv + k] += mr * (scale * c * mi[k] - g_over_s * w[k]);
                }
            }
        }
    }
}

/// True if actuator `u` transmits through a tendon whose total actuator force (`ten_actfrc`,
/// before the clamp) is at or outside its `actuatorfrcrange` (closed test): MuJoCo 4.0.0 then
/// drops the actuator from `qDeriv` as in the joint case (checked with mj_step under
/// implicitfast: a velocity servo on a fixed tendon gives `qDeriv = 0` exactly when the
/// tendon's total is clamped). Reads `ten_actfrc` as left by the last actuation stage.
fn tendon_actfrc_clamped<T: Scalar>(m: &Model, d: &Data<T>, u: usize) -> bool {
    let Some(t) = actfrc_tendon(m, u) else {
        return false;
    };
    let r = m.tendon_actfrcrange[t];
    let f = d.ten_actfrc[t];
    f <= sc(r[0]) || f >= sc(r[1])
}

/// Fills `d.qDeriv` (in the `D` layout of [`Model::D_rowadr`]: the pairs of dofs of which one
/// is the other or its ancestor; MuJoCo's sparsity) with `∂(qfrc_passive + qfrc_actuator)/∂qvel`,
/// and for `with_rne` also `−∂qfrc_bias/∂qvel` (MuJoCo's `mjd_smooth_vel`). Terms between dofs
/// on different branches (a tendon or an actuator coupling two trees or two siblings) are not
/// in `D` and are left out, as MuJoCo's. [`full_d`] expands it to a dense matrix.
///
/// With the `sleep` flag the rows of sleeping dofs are not recomputed: they keep their values
/// (0 for a tree asleep since the reset, else those of the last call while it was awake), as
/// MuJoCo 4.0.0's `mjd_smooth_vel` (measured: `mj_step` under implicitfast and `mj_inverse`
/// with `invdiscrete` leave a sleeping dof's `qDeriv` entries untouched,
/// tests/engine/inverse_sleep_oracle.rs; docs/mujoco-behaviour.md "Sleeping"). A row's entries
/// pair dofs of one tree, so the awake rows do not change.
pub fn smooth_vel<T: Scalar>(m: &Model, d: &mut Data<T>, with_rne: bool) {
    let mut q = std::mem::take(&mut d.qDeriv);
    q.resize(m.nD, T::zero());
    // the trees' sleep state, taken out of `d` while the derivatives borrow it (they read
    // neither); without sleeping trees both stay empty and every row is recomputed
    let sleeping = crate::sleep::any_asleep(m, d);
    let (asleep, dof_tree) = if sleeping {
        (
            std::mem::take(&mut d.tree_asleep),
            std::mem::take(&mut d.island_scratch.dof_treeid),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let awake = |i: usize| !sleeping || asleep[dof_tree[i]] < 0;
    for i in 0..m.nv {
        if awake(i) {
            let a = m.D_rowadr[i];
            q[a..a + m.D_rownnz[i]]
                .iter_mut()
                .for_each(|x| *x = T::zero());
        }
    }
    let mut into_d = |i: usize, k: usize, x: T| {
        if !awake(i) {
            return;
        }
        if let Some(a) = m.d_adr(i, k) {
            q[a] += x;
        }
    };
    let mut scratch = std::mem::take(&mut d.scratch_fluid);
    d_passive_vel_with(m, d, &mut scratch, &mut into_d);
    d.scratch_fluid = scratch;
    d_actuator_vel_with(m, d, &mut into_d);
    if with_rne {
        d_rne_vel_with(m, d, 0..m.nv, |i, k, x| {
            if !awake(i) {
                return;
            }
            if let Some(a) = m.d_adr(i, k) {
                q[a] -= x;
            }
        });
    }
    d.qDeriv = q;
    if sleeping {
        d.tree_asleep = asleep;
        d.island_scratch.dof_treeid = dof_tree;
    }
}

/// Expands a dof-dof matrix in the `D` layout (`qDeriv`, `qLU`) into a dense row-major
/// `nv × nv` matrix `out` (zero outside `D`).
pub fn full_d<T: Scalar>(m: &Model, sparse: &[T], out: &mut [T]) {
    let nv = m.nv;
    out.iter_mut().for_each(|x| *x = T::zero());
    for i in 0..nv {
        let a = m.D_rowadr[i];
        for k in a..a + m.D_rownnz[i] {
            out[i * nv + m.D_colind[k]] = sparse[k];
        }
    }
}
