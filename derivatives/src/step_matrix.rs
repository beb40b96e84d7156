//! The implicit step matrix `He` of the Euler/implicit integrators, as the step builds it, and
//! `∂(He a)/∂x` for a fixed vector `a` (the chain rule of [`crate::transition`](mod@crate::transition); Computation
//! "Numerical integration", docs/mujoco-behaviour.md#integrators).
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
//! `(He − M) a` by `Dual64` passes restricted to the stages `He` reads (per position tangent
//! kinematics, COM, tendons, transmission (collision only for body transmissions), velocities
//! and actuation; per velocity the velocity stage and actuation; per activation/control the
//! actuation alone), each forming `(He − M) a` directly (`add_he_offset_mul`: the RNE part
//! as one directional sweep, the damping/actuator terms as `S`-restricted rank-1 products),
//! and only along the directions that can move it (`pass_dirs`); the gyroscopic blocks of
//! free bodies on the world (`add_gyro_block`) and implicit's RNE velocity columns
//! (`(∂c/∂v)(a)`) in closed form. Instructions per call (callgrind,
//! `derivatives/examples/transition_profile MODEL N --integrator I`) against a full
//! dual pass: smooth_contact implicitfast 2.82 → 0.99 M, implicit 3.82 → 1.55 M;
//! box_drop implicitfast 4.01 → 0.66 M, implicit 6.98 → 1.67 M.

#![allow(clippy::needless_range_loop)]

use crate::work::Work;
use moreau::model::{disable, BiasType, GainType, Integrator, JointType, Model, TrnType, WrapType};
use moreau::pipeline::{
    actfrc_clamped, actuator_force_dvel, bad_ctrl, cross_force, cross_motion, d_rne_vel,
    d_rne_vel_with, damping_slope, dof_damping_deriv, dof_parent, euler_damped, gyro_blocks,
    inert_mul, is_fixed, sc, smooth_vel,
};
use moreau::{Data, Scalar};
use nalgebra::DMatrix;
use nalgebra::{Matrix3, Vector3, Vector6};
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
/// [`crate::smooth_vel_pos`] covers (`∂qDeriv/∂q` with constant weights): the implicit integrator,
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
    let nv = m.nv;
    let h: T = moreau::pipeline::sc(m.opt.timestep);
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
            // qDeriv in the D layout: the M entry at adr maps to (i, j) and (j, i)
            let q = &d.qDeriv;
            for i in 0..nv {
                let mut adr = m.dof_Madr[i];
                let mut j = Some(i);
                while let Some(ju) = j {
                    let (lo, up) = (q[m.dof_MDlower[adr]], q[m.dof_MDupper[adr]]);
                    if fast {
                        let s = (lo + up) * moreau::pipeline::sc(0.5);
                        out[i * nv + ju] = -(h * s);
                        out[ju * nv + i] = -(h * s);
                    } else {
                        out[i * nv + ju] = -(h * lo);
                        out[ju * nv + i] = -(h * up);
                    }
                    adr += 1;
                    j = dof_parent(m, ju);
                }
            }
            if fast {
                // ∂qfrc_bias/∂v of each block, as the step does
                for a in gyro_blocks(m) {
                    let mut g = [T::zero(); 36];
                    d_rne_vel_with(m, d, a..a + 6, |r, c, x| {
                        if (a..a + 6).contains(&r) {
                            g[(r - a) * 6 + c - a] += x;
                        }
                    });
                    let q = &d.qDeriv;
                    for r in 0..6 {
                        for c in 0..6 {
                            let rc = m.d_adr(a + r, a + c).expect("one free joint's dofs");
                            out[(a + r) * nv + a + c] = -(h * (q[rc] - g[r * 6 + c]));
                        }
                    }
                }
            }
        }
    }
}

/// `h (∂qfrc_bias/∂v) a` (the RNE part of `−h qDeriv a`) over the bodies `lo..hi`, added
/// into the rows of their dofs: the recursion of [`d_rne_vel`] along the one velocity
/// direction `a` instead of per column (`cvel`, `cdof_dot`, `cacc`, `cfrc` linearized in `v`;
/// `cdof_dot` with MuJoCo's convention: ball dofs use the parent velocity, free rotations the
/// velocity after the translation). `lo..hi` must hold every descendant of its bodies and the
/// parents outside it must not move along `a` (all bodies `1..nbody`, or a childless free
/// body). O(hi − lo), scratch in `d.deriv_*`.
fn add_rne_vel_dir<T: Scalar>(
    m: &Model,
    d: &mut Data<T>,
    bodies: std::ops::Range<usize>,
    a: &[f64],
    h: f64,
    out: &mut [T],
) {
    let lo = bodies.start;
    let z6 = Vector6::zeros();
    for b in bodies.clone() {
        let p = m.body_parentid[b];
        let (mut dcv, mut dca) = if p >= lo && p > 0 {
            (d.deriv_cvel[p], d.deriv_cacc[p])
        } else {
            (z6, z6)
        };
        for j in m.body_jntadr[b]..m.body_jntadr[b] + m.body_jntnum[b] {
            let mut k = m.jnt_dofadr[j];
            let n = match m.jnt_type[j] {
                JointType::Free => {
                    // translations: cdof_dot is zero
                    for i in k..k + 3 {
                        dcv += d.cdof[i] * sc::<T>(a[i]);
                    }
                    k += 3;
                    3
                }
                JointType::Ball => 3,
                _ => 1,
            };
            for i in k..k + n {
                dca += cross_motion(&dcv, &d.cdof[i]) * d.qvel[i] + d.cdof_dot[i] * sc::<T>(a[i]);
            }
            for i in k..k + n {
                dcv += d.cdof[i] * sc::<T>(a[i]);
            }
        }
        d.deriv_cvel[b] = dcv;
        d.deriv_cacc[b] = dca;
    }
    for b in bodies.clone() {
        let ci = &d.cinert[b];
        let (dcv, cv) = (d.deriv_cvel[b], d.cvel[b]);
        d.deriv_cfrc[b] = inert_mul(ci, &d.deriv_cacc[b])
            + cross_force(&dcv, &inert_mul(ci, &cv))
            + cross_force(&cv, &inert_mul(ci, &dcv));
    }
    for b in bodies.clone().skip(1).rev() {
        let p = m.body_parentid[b];
        if p >= lo {
            let f = d.deriv_cfrc[b];
            d.deriv_cfrc[p] += f;
        }
    }
    let hh: T = sc(h);
    for b in bodies {
        for i in m.body_dofadr[b]..m.body_dofadr[b] + m.body_dofnum[b] {
            out[i] += hh * d.cdof[i].dot(&d.deriv_cfrc[b]);
        }
    }
}

/// True if both parts of `x` are zero (`Dual64`'s `==` compares the real parts only).
fn is_zero(x: Dual64) -> bool {
    x.re == 0.0 && x.eps == 0.0
}

/// `out += w (S ∘ k kᵀ) a`, `S` the pattern of `M` (dof pairs on one chain): per row `r`,
/// `w k_r Σ_{c ∈ S(r)} k_c a_c`, walking each row's ancestors once.
fn add_rank1_restricted(m: &Model, k: &[Dual64], w: Dual64, a: &[f64], out: &mut [Dual64]) {
    for r in 0..m.nv {
        if is_zero(k[r]) {
            continue;
        }
        let wr = w * k[r];
        out[r] += wr * k[r] * a[r];
        let mut j = dof_parent(m, r);
        while let Some(c) = j {
            // entries (r, c) and (c, r)
            let x = wr * k[c];
            out[r] += x * a[c];
            out[c] += x * a[r];
            j = dof_parent(m, c);
        }
    }
}

/// True if the free joint at dof `blk` is on a child of the world (its gyroscopic block
/// depends on its own dofs only: [`add_gyro_block`]).
fn top_level(m: &Model, blk: usize) -> bool {
    m.body_parentid[m.dof_bodyid[blk]] == 0
}

/// `h ∂(G a_b)/∂x` into the columns of `out` (`nv × (2nv + …)`), `G = ∂qfrc_bias_b/∂v_b` the
/// gyroscopic block of the childless free body at dof `blk` on the world (implicitfast's `He`
/// holds `−h (qDeriv_b − G)`), in closed form. With `R` = `xmat`, `ω` the local angular
/// velocity (`qvel[blk+3..]`), `J` the local inertia about the COM, `p` the local offset of the
/// COM from the joint anchor (`cdof` uses `subtree_com − xanchor`) and `m` the mass, RNE gives
/// `qfrc_bias_b = (R g, n + p × g)` with `g = m ω × (ω × p)` and `n = ω × J ω` (no dependence on
/// the translation or its velocity), so with `δ = a_b`'s rotational part
/// `G a_b = (R Dg, Dn + p × Dg)`, `Dg = m (δ × (ω × p) + ω × (δ × p))`, `Dn = δ × Jω + ω × Jδ`:
/// its `∂/∂θ_k` (local rotation tangent, `∂R = R [e_k]×`) is `(R (e_k × Dg), 0)`, its `∂/∂ω_k`
/// the same bilinear forms with `ω → e_k`.
fn add_gyro_block(m: &Model, d: &Data<f64>, blk: usize, a: &[f64], h: f64, out: &mut DMatrix<f64>) {
    let nv = m.nv;
    let b = m.dof_bodyid[blk];
    let r = d.xmat[b];
    let rt = r.transpose();
    let ri = rt * d.ximat[b];
    let inertia = m.body_inertia[b];
    let jl = ri * Matrix3::from_diagonal(&Vector3::from(inertia)) * ri.transpose();
    let p = rt * (d.subtree_com[m.body_rootid[b]] - d.xanchor[m.dof_jntid[blk]]);
    let mass = m.body_mass[b];
    let w = Vector3::new(d.qvel[blk + 3], d.qvel[blk + 4], d.qvel[blk + 5]);
    let da = Vector3::new(a[blk + 3], a[blk + 4], a[blk + 5]);
    let dg = |w: &Vector3<f64>| mass * (da.cross(&w.cross(&p)) + w.cross(&da.cross(&p)));
    let dn = |w: &Vector3<f64>| da.cross(&(jl * w)) + w.cross(&(jl * da));
    let g0 = dg(&w);
    for k in 0..3 {
        let e = Vector3::ith(k, 1.0);
        // position column (rotation tangent k): translation rows only
        let t = r * e.cross(&g0);
        // velocity column (ω_k): both, bilinear in (ω, δ)
        let (gk, nk) = (dg(&e), dn(&e));
        let (vt, vr) = (r * gk, nk + p.cross(&gk));
        for i in 0..3 {
            out[(blk + i, blk + 3 + k)] += h * t[i];
            out[(blk + i, nv + blk + 3 + k)] += h * vt[i];
            out[(blk + 3 + i, nv + blk + 3 + k)] += h * vr[i];
        }
    }
}

/// Tangent and velocity directions whose `Dual64` passes can move `(He − M) a` (the rest of
/// [`d_he_offset_vec`]'s columns are zero or closed form): under implicit or with fluid forces
/// every position direction; the position directions of the bodies (and their ancestors) that
/// damped tendons, velocity-dependent actuators (transmission and length) and free bodies not
/// on the world depend on; velocity directions of polynomial dof damping, of the dofs a
/// polynomially damped tendon or a muscle moves (`J`, moment ≠ 0: their velocity is `J v`), of
/// free bodies not on the world, and all with fluid forces. Implicit's RNE velocity columns
/// and the world's free bodies' blocks are closed form ([`d_he_offset_vec`], [`add_gyro_block`]).
fn pass_dirs(m: &Model, d: &Data<f64>) -> (Vec<bool>, Vec<bool>) {
    let nv = m.nv;
    let implicit = m.opt.integrator == Integrator::Implicit;
    let fast = m.opt.integrator == Integrator::ImplicitFast;
    let fluid = crate::fluid::has_fluid(m) && (implicit || fast);
    let mut qd = vec![implicit || fluid; nv];
    let mut vd = vec![fluid; nv];
    for i in 0..nv {
        let p = m.dof_damping_eff(i).1;
        if p != [0.0; 2] {
            vd[i] = true;
        }
    }
    if !(implicit || fast) {
        return (qd, vd);
    }
    let mut bodies = Vec::new();
    let wrap_bodies = |t: usize, bodies: &mut Vec<usize>| {
        for w in m.tendon_adr[t]..m.tendon_adr[t] + m.tendon_num[t] {
            let Ok(id) = usize::try_from(m.wrap_objid[w]) else {
                continue;
            };
            bodies.push(match m.wrap_type[w] {
                WrapType::Joint => m.jnt_bodyid[id],
                WrapType::Site => m.site_bodyid[id],
                _ => m.geom_bodyid[id],
            });
        }
    };
    let jrow = |(cols, vals): (&[usize], &[f64]), vd: &mut [bool]| {
        for (&k, x) in cols.iter().zip(vals) {
            vd[k] |= *x != 0.0;
        }
    };
    if !m.opt.disabled(disable::DAMPER) {
        for t in 0..m.ntendon {
            let (b, p) = m.tendon_damping_eff(t);
            if b == 0.0 && p == [0.0; 2] {
                continue;
            }
            if !is_fixed(m, t) {
                wrap_bodies(t, &mut bodies);
            }
            if p != [0.0; 2] {
                jrow(d.ten_J_row(t), &mut vd);
            }
        }
    }
    if !m.opt.disabled(disable::ACTUATION) {
        for u in 0..m.nu {
            let (g, bp) = (&m.actuator_gainprm[u], &m.actuator_biasprm[u]);
            let muscle = m.actuator_gaintype[u] == GainType::Muscle;
            let affine = (m.actuator_gaintype[u] == GainType::Affine && g[2] != 0.0)
                || (m.actuator_biastype[u] == BiasType::Affine && bp[2] != 0.0);
            if !(muscle || affine) {
                continue;
            }
            if muscle {
                jrow(d.moment_row(u), &mut vd);
            }
            let id = usize::try_from(m.actuator_trnid[u][0]).ok();
            match (m.actuator_trntype[u], id) {
                (_, None) => {}
                (TrnType::Joint | TrnType::JointInParent, Some(j)) => bodies.push(m.jnt_bodyid[j]),
                (TrnType::Tendon, Some(t)) => wrap_bodies(t, &mut bodies),
                (TrnType::Site | TrnType::SliderCrank, Some(s)) => {
                    bodies.push(m.site_bodyid[s]);
                    if let Ok(s1) = usize::try_from(m.actuator_trnid[u][1]) {
                        bodies.push(m.site_bodyid[s1]);
                    }
                }
                (TrnType::Body, Some(_)) => qd.fill(true),
            }
        }
    }
    if fast {
        for blk in gyro_blocks(m).filter(|&k| !top_level(m, k)) {
            bodies.push(m.dof_bodyid[blk]);
            let mut b = m.dof_bodyid[blk];
            while b > 0 {
                for k in m.body_dofadr[b]..m.body_dofadr[b] + m.body_dofnum[b] {
                    vd[k] = true;
                }
                b = m.body_parentid[b];
            }
        }
    }
    for mut b in bodies {
        while b > 0 {
            for k in m.body_dofadr[b]..m.body_dofadr[b] + m.body_dofnum[b] {
                qd[k] = true;
            }
            b = m.body_parentid[b];
        }
    }
    (qd, vd)
}

/// `(He − M) a` (added into `out`) as [`he_offset`] builds `He`, without forming it: the
/// damping, tendon-damping and actuator terms of `qDeriv` as `S`-restricted rank-1 products
/// (symmetric, so implicitfast's symmetrization changes nothing), the fluid block (within `S`:
/// every entry couples two dofs of one body's chain), and with `rne` the RNE part along `a`
/// ([`add_rne_vel_dir`]: all bodies under implicit, the block of each childless free body not
/// on the world under implicitfast, whose rows `He` takes as `M_b − h (qDeriv_b −
/// ∂qfrc_bias_b/∂v_b)`; the blocks of those on the world are left to [`add_gyro_block`]). On
/// `Dual64` data the derivative parts are those of [`he_offset`]'s `(He − M) a` (less the parts
/// left out).
fn add_he_offset_mul(
    m: &Model,
    d: &mut Data<Dual64>,
    fluid: &[crate::fluid::LocalD],
    a: &[f64],
    rne: bool,
    out: &mut [Dual64],
) {
    let nv = m.nv;
    let h = m.opt.timestep;
    let hd = Dual64::from(h);
    match m.opt.integrator {
        Integrator::Rk4 => {}
        Integrator::Euler => {
            if euler_damped(m) {
                for i in 0..nv {
                    out[i] += hd * damping_slope(m, d, i) * a[i];
                }
            }
        }
        Integrator::Implicit | Integrator::ImplicitFast => {
            let fast = m.opt.integrator == Integrator::ImplicitFast;
            // a tendon's or actuator's row, dense
            let mut row = vec![Dual64::from(0.0); nv];
            // −h qDeriv a, qDeriv = ∂(qfrc_passive + qfrc_actuator)/∂v (− ∂qfrc_bias/∂v)
            if !fluid.is_empty() {
                let [mut jp, mut jr, mut y] = crate::fluid::mul_scratch(nv);
                crate::fluid::qderiv_mul(m, d, fluid, a, &mut jp, &mut jr, &mut y);
                for (o, y) in out.iter_mut().zip(&y) {
                    *o -= hd * *y;
                }
            }
            if !m.opt.disabled(disable::DAMPER) {
                for i in 0..nv {
                    out[i] += hd * dof_damping_deriv(m, d, i) * a[i];
                }
                for t in 0..m.ntendon {
                    let (b, p) = m.tendon_damping_eff(t);
                    if b == 0.0 && p[0] == 0.0 && p[1] == 0.0 {
                        continue;
                    }
                    // ∂(b v + p0 v|v| + p1 v³)/∂v
                    let v = d.ten_velocity[t];
                    let s = Dual64::from(b)
                        + nalgebra::ComplexField::abs(v) * (2.0 * p[0])
                        + v * v * (3.0 * p[1]);
                    d.ten_J_row_dense(t, &mut row);
                    add_rank1_restricted(m, &row, hd * s, a, out);
                }
            }
            if !m.opt.disabled(disable::ACTUATION) {
                let ctrl_bad = bad_ctrl(m, &d.ctrl).is_some();
                // as qDeriv: without the actuators of clamped actuatorfrcranges
                for u in (0..m.nu).filter(|&u| !actfrc_clamped(m, d, u)) {
                    let c = actuator_force_dvel(m, d, u, ctrl_bad);
                    if !is_zero(c) {
                        d.moment_row_dense(u, &mut row);
                        add_rank1_restricted(m, &row, -(hd * c), a, out);
                    }
                }
            }
            if !rne {
            } else if !fast {
                add_rne_vel_dir(m, d, 1..m.nbody, a, h, out);
            } else {
                for blk in gyro_blocks(m).filter(|&k| !top_level(m, k)) {
                    let b = m.dof_bodyid[blk];
                    add_rne_vel_dir(m, d, b..b + 1, a, h, out);
                }
            }
        }
    }
}

/// `∂((He − M) a)/∂x` (`nv × (2nv + na + nu)`, columns position tangent, velocity, activation,
/// control as [`crate::dual::seed`]) at the forwarded state of `d`, `a` fixed: one `Dual64` pass
/// over the stages `He` reads per direction of `pass_dirs`, then `(He − M) a` by
/// `add_he_offset_mul` (no `nv × nv` matrix); the gyroscopic blocks of free bodies on the
/// world by `add_gyro_block`; under implicit the RNE velocity columns in closed form: `c(v)`
/// (`qfrc_bias` less gravity) is a quadratic form of `v`, so `∂/∂v ((∂c/∂v)(v) a) = (∂c/∂v)(a)`
/// ([`d_rne_vel`] with `cvel`, `cdof_dot` at the velocity `a`).
pub fn d_he_offset_vec(m: &Model, d: &Data<f64>, a: &[f64], w: &mut Work) -> DMatrix<f64> {
    let (nv, na, nu) = (m.nv, m.na, m.nu);
    let h = m.opt.timestep;
    let mut out = DMatrix::zeros(nv, 2 * nv + na + nu);
    let mut hv = vec![Dual64::from(0.0); nv];
    let body_trn = m.actuator_trntype.contains(&TrnType::Body);
    let implicit = m.opt.integrator == Integrator::Implicit;
    let fast = m.opt.integrator == Integrator::ImplicitFast;
    let (qd, vd) = pass_dirs(m, d);
    let fluid = crate::fluid::local_ds(m, d);
    let mut read = |dd: &mut Data<Dual64>, col: usize, rne: bool, out: &mut DMatrix<f64>| {
        hv.fill(Dual64::from(0.0));
        add_he_offset_mul(m, dd, &fluid, a, rne, &mut hv);
        for r in 0..nv {
            out[(r, col)] = hv[r].eps;
        }
    };
    let position = |dd: &mut Data<Dual64>| {
        moreau::pipeline::kinematics(m, dd);
        moreau::pipeline::com_pos(m, dd);
        moreau::pipeline::tendon(m, dd);
        if body_trn {
            moreau::pipeline::collision(m, dd);
        }
        moreau::pipeline::transmission(m, dd);
    };
    let velocity = |dd: &mut Data<Dual64>| {
        moreau::pipeline::tendon_velocity(m, dd);
        moreau::pipeline::actuator_velocity(m, dd);
        moreau::pipeline::com_vel(m, dd);
    };
    for i in (0..nv).filter(|&i| qd[i]) {
        let dd = w.dual_of(m, d);
        crate::dual::seed(m, dd, i);
        position(dd);
        velocity(dd);
        moreau::pipeline::fwd_actuation(m, dd);
        read(dd, i, true, &mut out);
    }
    if fast {
        for blk in gyro_blocks(m).filter(|&k| top_level(m, k)) {
            add_gyro_block(m, d, blk, a, h, &mut out);
        }
    }
    // velocities, then activations and controls, about the unseeded position results
    let acts = (implicit || fast) && velocity_gain(m);
    if !(implicit || acts || vd.contains(&true)) {
        return out;
    }
    let dd = w.dual_of(m, d);
    position(dd);
    for i in (0..nv).filter(|&i| vd[i]) {
        dd.qvel[i].eps = 1.0;
        velocity(dd);
        moreau::pipeline::fwd_actuation(m, dd);
        // implicit: the RNE part below
        read(dd, nv + i, !implicit, &mut out);
        dd.qvel[i].eps = 0.0;
    }
    if implicit {
        // h (∂c/∂v)(a): cvel and cdof_dot at the velocity a (unseeded position results)
        for (v, x) in dd.qvel.iter_mut().zip(a) {
            *v = Dual64::from(*x);
        }
        moreau::pipeline::com_vel(m, dd);
        let mut g = vec![Dual64::from(0.0); nv * nv];
        d_rne_vel(m, dd, 0..nv, &mut g);
        for r in 0..nv {
            for c in 0..nv {
                out[(r, nv + c)] += h * g[r * nv + c].re;
            }
        }
        for (v, x) in dd.qvel.iter_mut().zip(&d.qvel) {
            *v = Dual64::from(*x);
        }
    }
    // qDeriv depends on activations and controls only through velocity-dependent gains (the
    // forcerange clamp's switch is piecewise constant)
    if !acts {
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
        moreau::pipeline::fwd_actuation(m, dd);
        read(dd, 2 * nv + k, false, &mut out);
        let x = if k < na {
            &mut dd.act[k]
        } else {
            &mut dd.ctrl[k - na]
        };
        x.eps = 0.0;
    }
    out
}
