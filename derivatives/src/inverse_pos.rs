//! `∂/∂q` of inverse dynamics (`qfrc_inverse`) and of the forward optimality residual
//! `g = qfrc_inverse − qfrc_applied − qfrc_actuator − Σ Jᵀ xfrc_applied` (Computation "Reduced
//! primal problem"): the analytic smooth-dynamics derivatives of [`crate::rne`], the analytic
//! constraint-force derivative of [`crate::constraint_pos`], and a dual-number pass restricted to what
//! they do not cover. The choice is explicit ([`method`], [`Method`]):
//!
//! - Always analytic: `∂(M a + c)/∂q` (and `Jᵀ xfrc_applied` for `g`).
//! - `Smooth` / `Constraint`: when nothing but the constraint force depends on `q` besides the
//!   above (no springs/dampers on spatial tendons, no `actuatorgravcomp` with gravity
//!   compensation, for `g` only hinge/slide joint and fixed-tendon transmissions): joint springs,
//!   fixed-tendon springs (`J` constant, `∂ten_length/∂q = J`: `Jᵀ f'(L) J`) and gravity
//!   compensation analytic, fluid forces in closed form, actuators with constant moment (their
//!   length-dependent force by duals over the actuation stage alone, seeded on
//!   `actuator_length`, cheap), and the constraint rows by
//!   [`crate::constraint_pos`] (contacts of the primitive and convex colliders, hinge/slide and fixed-tendon limits,
//!   friction loss, single-joint/tendon equalities).
//! - `Restricted` otherwise (or when [`Support::constraint_pos`](crate::support::Support::constraint_pos) refuses them: ball limits, spatial tendons, two-object equalities): per tangent direction, a
//!   `Dual64` run of only the position-dependent stages the constraint/passive/actuator forces
//!   need (kinematics, COM, tendons, collision, constraint assembly, transmission,
//!   tendon/actuator velocities, passive, constraint reference and the inverse constraint force,
//!   actuation) — no CRB, no factorization, no RNE; `cvel` (`com_vel`) only for connect/weld
//!   rows, whose `aref` subtracts `J̇ qvel`, and fluid forces. When only the passive/actuator
//!   terms need it (the rows are [`crate::constraint_pos`]'s, no body transmission), the pass skips
//!   collision and the constraint stages (e.g. smooth_contact's spatial tendon damper).
//! - Fluid forces: `crate::fluid::fluid_pos` (closed form, through the objects' frames and
//!   velocities) on the `Smooth`/`Constraint` paths; the restricted pass includes them (with
//!   `com_vel`).
//! - Tendon armature (not [`covers`]): the caller's full dual pass.
//!
//! Measured (humanoid, 16 contact rows, callgrind, `derivatives/examples/transition_profile`):
//! the restricted pass alone for every row would be 73% of an 8.0 M-instruction analytic
//! transition; with [`crate::constraint_pos`] covering the contact rows, that part is about 0.17 M
//! of a transition under 1 M (docs/performance.md). A multi-direction restricted pass (num-dual
//! `DualSVec64<8>`) is slower than one `Dual64` direction per pass.

#![allow(clippy::needless_range_loop)]

use crate::constraint_pos::add_constraint_pos;
use crate::dual::{lift_into, seed};
use crate::rne::{d_smooth_mass_pos, d_smooth_pos, Terms};
use crate::work::Work;
use moreau::model::{disable, BiasType, EqType, GainType, JointType, Model, TrnType};
use moreau::pipeline::{
    actuator_velocity, collision, com_pos, com_vel, fwd_actuation, inv_constraint, is_fixed,
    kinematics, make_constraint, passive, reference_constraint, tendon, tendon_velocity,
    transmission,
};
use moreau::Data;
use nalgebra::DMatrix;

/// True if [`d_pos`] applies to `m`: models outside [`Support::smooth_pos`](crate::support::Support::smooth_pos) other than those
/// with fluid forces alone (tendon armature is not covered).
pub fn covers(m: &Model) -> bool {
    m.tendon_armature.iter().all(|&a| a == 0.0)
}

/// Which output is differentiated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Output {
    /// `qfrc_inverse` (constraint and passive forces; no actuation, no applied forces).
    Inverse,
    /// The forward residual `g` (also actuation and `xfrc_applied`).
    Residual,
}

/// How [`d_pos`] obtains the constraint/passive/actuator part of `∂out/∂q` at a state.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Method {
    /// Nothing but the RNE, joint and fixed-tendon springs, gravity compensation,
    /// `xfrc_applied`, fluid forces and hinge/slide joint and fixed-tendon actuators depends on
    /// `q`: all analytic.
    Smooth,
    /// As `Smooth`, plus constraint rows covered by [`crate::constraint_pos`] (analytic contact
    /// geometry, limits, friction loss, simple equalities).
    Constraint,
    /// The restricted dual pass (tendon springs/dampers, other transmissions, actuator
    /// gravity compensation, or rows [`Support::constraint_pos`](crate::support::Support::constraint_pos) does not cover).
    Restricted,
}

/// True if terms other than the constraint force, the RNE, joint springs, fixed-tendon springs,
/// gravity compensation, `xfrc_applied`, fluid forces and the actuators of hinge/slide joints and
/// fixed tendons depend on `q`.
fn needs_other(m: &Model, out: Output) -> bool {
    let spring = !m.opt.disabled(disable::SPRING);
    let damper = !m.opt.disabled(disable::DAMPER);
    for t in 0..m.ntendon {
        // a fixed tendon's J is constant: its spring is tendon_spring_pos's, its damper does
        // not depend on q
        if is_fixed(m, t) {
            continue;
        }
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
            if !length_jacobian(m, i, |_, _| {}) {
                return true;
            }
        }
    }
    false
}

/// The [`Method`] [`d_pos`] uses at this state (before the contact-geometry check of
/// [`crate::constraint_pos::add_constraint_pos`], which falls back to `Restricted` if a pair's dual
/// collision does not reproduce its contacts).
pub fn method(m: &Model, d: &Data<f64>, out: Output) -> Method {
    if needs_other(m, out) {
        Method::Restricted
    } else if d.nefc == 0 {
        Method::Smooth
    } else if crate::support::Support::constraint_pos(m, d).is_covered() {
        Method::Constraint
    } else {
        Method::Restricted
    }
}

/// True if terms other than the RNE, joint springs, gravity compensation, `xfrc_applied` and
/// hinge/slide joint actuators depend on `q` at this state.
pub fn needs_residual(m: &Model, d: &Data<f64>, out: Output) -> bool {
    d.nefc > 0 || needs_other(m, out)
}

/// The constant `∂actuator_length/∂q` of actuator `i`, term by term as `f(dof, value)`, when its
/// transmission is a hinge/slide joint (`L = gear₀ q`) or a fixed tendon (`L = gear₀ Σ coef q`,
/// the tendon's constant `J` scaled); false (and no call) for other transmissions. Allocates
/// nothing: the optimizers linearize at every knot.
fn length_jacobian(m: &Model, i: usize, mut f: impl FnMut(usize, f64)) -> bool {
    let Ok(id) = usize::try_from(m.actuator_trnid[i][0]) else {
        return false;
    };
    let g = m.actuator_gear[i][0];
    match m.actuator_trntype[i] {
        TrnType::Joint | TrnType::JointInParent
            if matches!(m.jnt_type[id], JointType::Hinge | JointType::Slide) =>
        {
            f(m.jnt_dofadr[id], g);
            true
        }
        TrnType::Tendon if is_fixed(m, id) => {
            let wraps = m.tendon_adr[id]..m.tendon_adr[id] + m.tendon_num[id];
            if wraps.clone().any(|w| m.wrap_objid[w] < 0) {
                return false;
            }
            for w in wraps {
                f(m.jnt_dofadr[m.wrap_objid[w] as usize], g * m.wrap_prm[w]);
            }
            true
        }
        _ => false,
    }
}

/// `∂qfrc_actuator/∂q` (rows outputs) for hinge/slide joint and fixed-tendon transmissions
/// (constant moment, [`length_jacobian`]): duals over the actuation stage with
/// `actuator_length` seeded.
fn actuator_joint_pos(m: &Model, d: &Data<f64>, w: &mut Work, out: &mut DMatrix<f64>) {
    let nv = m.nv;
    // gain and bias without a length term (fixed gain, no/affine bias with biasprm[1] = 0,
    // affine gain with gainprm[1] = 0): the force does not depend on the length
    let length_free = (0..m.nu).all(|i| {
        let g = match m.actuator_gaintype[i] {
            GainType::Fixed => true,
            GainType::Affine => m.actuator_gainprm[i][1] == 0.0,
            _ => false,
        };
        let b = match m.actuator_biastype[i] {
            BiasType::None => true,
            BiasType::Affine => m.actuator_biasprm[i][1] == 0.0,
            _ => false,
        };
        g && b
    });
    if m.nu == 0 || length_free {
        return;
    }
    let dd = w.dual_of(m, d);
    crate::dual::lift_actuation_inputs(d, dd);
    // each actuator's force depends on its own length only: one pass with every length
    // seeded, unless a joint- or tendon-level clamp (jnt_actfrcrange, tendon_actfrcrange)
    // mixes them
    if !m.jnt_actfrclimited.iter().any(|&x| x) && !m.tendon_actfrclimited.iter().any(|&x| x) {
        for x in dd.actuator_length.iter_mut() {
            x.eps = 1.0;
        }
        fwd_actuation(m, dd);
        for i in 0..m.nu {
            let df = dd.actuator_force[i].eps;
            if df == 0.0 {
                continue;
            }
            // on the row's sparsity pattern (actuator_moment is zero outside it)
            let (cols, mom) = d.moment_row(i);
            length_jacobian(m, i, |j, g| {
                for (&k, &mk) in cols.iter().zip(mom) {
                    out[(k, j)] -= mk * df * g;
                }
            });
        }
        return;
    }
    for j in 0..nv {
        let mut any = false;
        for i in 0..m.nu {
            length_jacobian(m, i, |jj, g| {
                if jj == j {
                    dd.actuator_length[i].eps += g;
                    any = true;
                }
            });
        }
        if !any {
            continue;
        }
        fwd_actuation(m, dd);
        for k in 0..nv {
            out[(k, j)] -= dd.qfrc_actuator[k].eps;
        }
        for x in dd.actuator_length.iter_mut() {
            x.eps = 0.0;
        }
    }
}

/// Subtracts `∂qfrc_spring/∂q` of the fixed tendons' springs from `out` (rows outputs): a fixed
/// tendon's `J` is constant and `∂ten_length/∂q = J`, so each stretched tendon adds
/// `Jᵀ f'(L) J`, `f = −(k x + p₀ x² + p₁ x³)` with `x` the stretch past the `springlength`
/// dead band (Computation "Passive forces"; zero inside the band).
fn tendon_spring_pos(m: &Model, d: &Data<f64>, out: &mut DMatrix<f64>) {
    if m.opt.disabled(disable::SPRING) {
        return;
    }
    for t in 0..m.ntendon {
        let k = m.tendon_stiffness[t];
        let p = m.tendon_stiffnesspoly.get(t).copied().unwrap_or([0.0; 2]);
        if !is_fixed(m, t) || (k == 0.0 && p == [0.0; 2]) {
            continue;
        }
        let len = d.ten_length[t];
        let [lo, hi] = m.tendon_lengthspring[t];
        let x = if len > hi {
            len - hi
        } else if len < lo {
            len - lo
        } else {
            continue;
        };
        let df = -(k + x * (2.0 * p[0] + 3.0 * p[1] * x));
        let (cols, vals) = d.ten_J_row(t);
        for (&j, &vj) in cols.iter().zip(vals) {
            for (&r, &vr) in cols.iter().zip(vals) {
                out[(r, j)] -= vr * df * vj;
            }
        }
    }
}

/// Adds `∂(−qfrc_passive [− qfrc_constraint] [− qfrc_actuator])/∂q` (rows outputs) by the
/// restricted dual pass described in the module docs, on `w`'s reusable `Data<Dual64>`; without
/// `constraints` the pass skips collision and the constraint stages (their rows are
/// [`crate::constraint_pos`]'s). `d` needs `qacc`. Without contacts at the state the collision stage is
/// skipped (no contact appears under an infinitesimal perturbation, away from the measure-zero
/// `dist = margin`).
///
/// With `xd = Some(X)` (`ne × nv`, `ne` the leading equality rows, zeroed here; only with
/// `constraints`) also `X = ∂(J̇ qvel)/∂qvel` of the connect/weld rows (zero on the other rows)
/// from the same passes: `J̇ = Σ_j v_j ∂J/∂q_j` (tangent directions, `q̇ = v`), so
/// `X e_k = J̇ e_k + (∂J/∂q_k) v = Σ_j v_j (∂J/∂q_j) e_k + (∂J/∂q_k) v` — the engine's `J̇ qvel`
/// (docs/mujoco-behaviour.md#parameters) is the exact time derivative of the rows' `J` (what
/// [`crate::inverse::jdot_vel`] differentiates by `nv` more passes).
///
/// With `only = Some(rows)` (rows of `d` that are not contacts; `constraints` and no `xd`) the
/// constraint force's term is that of those rows alone, `Σ_r J_rᵀ efc_force_r`, and collision is
/// skipped: the other rows are [`crate::constraint_pos`]'s. Rows other than contacts come first
/// in the row order and are built the same without the contacts; false (and `out` untouched) if
/// a pass's rows do not match `d`'s.
#[allow(clippy::too_many_arguments)]
fn residual_pass(
    m: &Model,
    d: &Data<f64>,
    actuators: bool,
    constraints: bool,
    w: &mut Work,
    out: &mut DMatrix<f64>,
    mut xd: Option<&mut DMatrix<f64>>,
    only: Option<&[usize]>,
) -> bool {
    let nv = m.nv;
    let mut jrow = vec![
        num_dual::Dual64::from(0.0);
        if xd.is_some() || only.is_some() {
            nv
        } else {
            0
        }
    ];
    let mut qc = vec![num_dual::Dual64::from(0.0); if only.is_some() { nv } else { 0 }];
    let mut cols = DMatrix::zeros(if only.is_some() { nv } else { 0 }, nv);
    if let Some(x) = xd.as_deref_mut() {
        x.fill(0.0);
    }
    // connect/weld rows' aref subtracts J̇ qvel (docs/mujoco-behaviour.md#parameters), which needs
    // cvel/cdof_dot; so do fluid forces (in qfrc_passive)
    let jdot = m
        .eq_type
        .iter()
        .any(|t| matches!(t, EqType::Connect | EqType::Weld))
        || crate::fluid::has_fluid(m);
    let collide = !d.contact.is_empty() && only.is_none();
    let dd = w.dual_data(m);
    for j in 0..nv {
        lift_into(d, dd);
        seed(m, dd, j);
        kinematics(m, dd);
        com_pos(m, dd);
        tendon(m, dd);
        if constraints {
            if collide {
                collision(m, dd);
            } else {
                dd.contact.clear();
            }
            make_constraint(m, dd);
            if let Some(x) = xd.as_deref_mut() {
                for r in 0..x.nrows() {
                    if !matches!(m.eq_type[d.efc_id[r]], EqType::Connect | EqType::Weld) {
                        continue;
                    }
                    dd.efc_J_row(r, nv).expand(&mut jrow);
                    let mut jv = 0.0;
                    for k in 0..nv {
                        let djk = jrow[k].eps;
                        x[(r, k)] += d.qvel[j] * djk;
                        jv += djk * d.qvel[k];
                    }
                    x[(r, j)] += jv;
                }
            }
        }
        transmission(m, dd);
        tendon_velocity(m, dd);
        actuator_velocity(m, dd);
        if jdot {
            com_vel(m, dd);
        }
        passive(m, dd);
        if constraints {
            reference_constraint(m, dd);
            inv_constraint(m, dd);
        }
        if actuators {
            fwd_actuation(m, dd);
        }
        if let Some(rows) = only {
            qc.fill(num_dual::Dual64::from(0.0));
            for &r in rows {
                if r >= dd.nefc || dd.efc_type[r] != d.efc_type[r] || dd.efc_id[r] != d.efc_id[r] {
                    return false;
                }
                dd.efc_J_row(r, nv).expand(&mut jrow);
                let f = dd.efc_force[r];
                for (q, jk) in qc.iter_mut().zip(&jrow) {
                    *q += *jk * f;
                }
            }
        }
        for k in 0..nv {
            let mut x = -dd.qfrc_passive[k];
            if only.is_some() {
                x -= qc[k];
            } else if constraints {
                x -= dd.qfrc_constraint[k];
            }
            if actuators {
                x -= dd.qfrc_actuator[k];
            }
            if only.is_some() {
                cols[(k, j)] = x.eps;
            } else {
                out[(k, j)] += x.eps;
            }
        }
    }
    if only.is_some() {
        *out += cols;
    }
    true
}

/// `∂out/∂q` (rows outputs, tangent columns) at the state and `qacc` of `d`, whose position and
/// velocity stages (and constraint rows) must be current. Only for models it [`covers`] (the
/// caller falls back to the full dual pass).
pub fn d_pos(m: &Model, d: &Data<f64>, output: Output, w: &mut Work) -> DMatrix<f64> {
    d_pos_method(m, d, output, w).0
}

/// [`d_pos`] and the [`Method`] it used.
pub fn d_pos_method(
    m: &Model,
    d: &Data<f64>,
    output: Output,
    w: &mut Work,
) -> (DMatrix<f64>, Method) {
    let mut out = DMatrix::zeros(m.nv, m.nv);
    let meth = d_pos_into(m, d, output, w, &mut out);
    (out, meth)
}

/// [`d_pos`] into `out` (`nv × nv`, overwritten) and the [`Method`] it used: no allocation on
/// the analytic paths.
pub fn d_pos_into(
    m: &Model,
    d: &Data<f64>,
    output: Output,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) -> Method {
    d_pos_mass_into(m, d, output, None, w, out)
}

/// [`d_pos_into`] and, with `mass = Some((x, outm))`, `∂M/∂q · x` into `outm`
/// ([`crate::rne::d_mass_vec_pos`]) from the same RNE sweep.
pub fn d_pos_mass_into(
    m: &Model,
    d: &Data<f64>,
    output: Output,
    mass: Option<(&[f64], &mut DMatrix<f64>)>,
    w: &mut Work,
    out: &mut DMatrix<f64>,
) -> Method {
    d_pos_full(m, d, output, mass, w, out, None)
}

/// [`d_pos_into`] for [`Output::Inverse`] and, when the restricted pass runs, the connect/weld
/// `∂(J̇ qvel)/∂qvel` from it into `xd` (`ne × nv`; see [`residual_pass`]); returns whether
/// `xd` was filled.
pub(crate) fn d_pos_inverse_jdot(
    m: &Model,
    d: &Data<f64>,
    w: &mut Work,
    out: &mut DMatrix<f64>,
    xd: &mut DMatrix<f64>,
) -> bool {
    d_pos_full(m, d, Output::Inverse, None, w, out, Some(xd)) == Method::Restricted
}

fn d_pos_full(
    m: &Model,
    d: &Data<f64>,
    output: Output,
    mut mass: Option<(&[f64], &mut DMatrix<f64>)>,
    w: &mut Work,
    out: &mut DMatrix<f64>,
    xd: Option<&mut DMatrix<f64>>,
) -> Method {
    let xfrc = output == Output::Residual;
    let mut meth = method(m, d, output);
    let mut smooth = |terms: Terms, w: &mut Work, out: &mut DMatrix<f64>| match mass.take() {
        Some((x, o)) => d_smooth_mass_pos(m, d, Some(&d.qacc), terms, x, w, out, o),
        None => d_smooth_pos(m, d, Some(&d.qacc), terms, w, out),
    };
    if meth != Method::Restricted {
        let terms = Terms {
            springs: true,
            gravcomp: true,
            xfrc,
        };
        smooth(terms, w, out);
        let mut cons = std::mem::take(&mut w.cons);
        let ok = meth == Method::Smooth || add_constraint_pos(m, d, w, &mut cons, out);
        w.cons = cons;
        if ok {
            if xfrc {
                actuator_joint_pos(m, d, w, out);
            }
            tendon_spring_pos(m, d, out);
            crate::fluid::fluid_pos(m, d, Some(out), None);
            return meth;
        }
        meth = Method::Restricted;
    }
    let terms = Terms {
        springs: false,
        gravcomp: false,
        xfrc,
    };
    smooth(terms, w, out);
    // the constraint rows analytic where constraint_pos covers them (body transmissions read the
    // contacts: collision stays in the pass; the connect/weld J̇ derivative `xd` comes from the
    // pass's constraint rows)
    let body_trn = m.actuator_trntype.contains(&TrnType::Body);
    let cons_analytic = xd.is_none() && !body_trn && {
        let mut cons = std::mem::take(&mut w.cons);
        let ok = add_constraint_pos(m, d, w, &mut cons, out);
        w.cons = cons;
        ok
    };
    // rows constraint_pos does not cover (connect/weld, spatial tendons, ball limits) beside
    // contacts it does: the contacts analytic, the pass over those rows alone without collision
    // (a dual collision per direction is most of the pass's cost on contact-rich models)
    if !cons_analytic && xd.is_none() && !body_trn && d.nefc > 0 {
        use crate::support::Support;
        let rest: Vec<usize> = (0..d.nefc)
            .filter(|&r| !Support::constraint_pos_row(m, d, r).is_covered())
            .collect();
        if rest.iter().all(|&r| !d.efc_type[r].is_contact()) {
            let mut part = DMatrix::zeros(m.nv, m.nv);
            let mut cons = std::mem::take(&mut w.cons);
            let ok =
                crate::constraint_pos::add_covered_constraint_pos(m, d, w, &mut cons, &mut part);
            w.cons = cons;
            if ok && residual_pass(m, d, xfrc, true, w, &mut part, None, Some(&rest)) {
                *out += part;
                return meth;
            }
        }
    }
    residual_pass(m, d, xfrc, !cons_analytic, w, out, xd, None);
    meth
}
