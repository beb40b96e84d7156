//! The stage order of `mj_forward` (Computation "Simulation pipeline", forward dynamics stages
//! 2-20): smooth dynamics, collision, constraint assembly and the constraint solver.

use crate::actuation::{actuator_velocity, transmission};
use crate::collision::collision;
use crate::constraint::assemble::{make_constraint, reference_constraint};
use crate::data::Data;
use crate::math::spatial::{ang, lin};
use crate::math::Scalar;
use crate::model::{enable, BiasType, DynType, EqType, GainType, Model, TrnType};
use crate::passive::passive;
use crate::sensor::{sensor_acc, sensor_pos, sensor_vel};
use crate::smooth::com::{com_pos, com_vel};
use crate::smooth::crb::{crb, factor_m, solve_ld};
use crate::smooth::jacobian::apply_ft_raw;
use crate::smooth::kinematics::{camlight, kinematics};
use crate::smooth::rne::rne_bias;
use crate::smooth::tendon::{tendon, tendon_armature_bias, tendon_velocity};

use crate::actuation::fwd_actuation;

/// Which leading stages `forward_skip`/`inverse_skip` may skip (`mjtStage`): their results in
/// `d` are reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skip {
    None = 0,
    Pos = 1,
    Vel = 2,
}

/// A model feature the smooth pipeline does not compute yet (it would otherwise produce NaN
/// lengths or missing forces). Returns the first one found.
pub fn unsupported(m: &Model) -> Option<&'static str> {
    let nz = |a: usize| {
        m.actuator_damping[a] != 0.0
            || m.actuator_dampingpoly
                .get(a)
                .is_some_and(|p| *p != [0.0; 2])
            || m.actuator_armature.get(a).is_some_and(|&x| x != 0.0)
    };
    if (0..m.actuator_damping.len()).any(|a| {
        nz(a)
            && !match m.actuator_trntype[a] {
                TrnType::Tendon => true,
                TrnType::Joint => usize::try_from(m.actuator_trnid[a][0]).is_ok_and(|j| {
                    matches!(
                        m.jnt_type[j],
                        crate::model::JointType::Hinge | crate::model::JointType::Slide
                    )
                }),
                _ => false,
            }
    }) {
        return Some(
            "actuator damping / armature on transmissions other than hinge/slide joints and tendons",
        );
    }
    if m.actuator_dyntype.contains(&DynType::User)
        || m.actuator_gaintype.contains(&GainType::User)
        || m.actuator_biastype.contains(&BiasType::User)
    {
        return Some("user actuator dynamics/gain/bias (callbacks)");
    }
    if m.eq_type
        .iter()
        .any(|t| matches!(t, EqType::Flex | EqType::Distance))
    {
        return Some("flex and distance equality constraints");
    }
    if m.opt.enabled(enable::DIAGEXACT) {
        return Some("diagexact (exact diagonal of A for R)");
    }
    if let Some(s) = crate::sleep::unsupported(m) {
        return Some(s);
    }
    None
}

/// Position-dependent stages (`mj_fwdPosition`): kinematics, COM quantities, camera tracking
/// ([`camlight`]), tendons, CRB
/// inertia and its factorization, collision, constraint rows with their impedance and R
/// ([`make_constraint`]), actuator transmission.
pub fn fwd_position<T: Scalar>(m: &Model, d: &mut Data<T>) {
    fwd_position_with(m, d, true);
}

/// [`fwd_position`]; without `contacts` the collision and constraint stages are left out (for
/// the compiler's constants, which read neither).
pub(crate) fn fwd_position_with<T: Scalar>(m: &Model, d: &mut Data<T>, contacts: bool) {
    d.stack_overflow = None;
    // the solver's islands and position-only problem data are rebuilt by the next solve
    d.solver_pos_valid = false;
    // a potential energy computed before this stage is stale from here on
    d.flg_energypos = false;
    crate::sleep::wake_changed(m, d);
    kinematics(m, d);
    com_pos(m, d);
    camlight(m, d);
    tendon(m, d);
    crb(m, d);
    factor_m(m, d);
    if contacts {
        collision(m, d);
        // a contact of an awake tree with a sleeping one wakes it, and its contacts count in
        // this step
        // and so does a constraint row (an equality, a tendon limit or friction loss)
        let limited = |d: &Data<T>, k: usize| {
            crate::constraint::assemble::tendon_limits(m, d, k)
                .iter()
                .any(Option::is_some)
        };
        while d.stack_overflow.is_none()
            && (crate::sleep::wake_by_contacts(m, d) | crate::sleep::wake_by_rows(m, d, limited))
        {
            collision(m, d);
        }
        if d.stack_overflow.is_some() {
            // the step stops in collision: no rows, and the later stages do not run
            d.drop_rows(m.nv);
            return;
        }
        make_constraint(m, d);
        d.maxuse_con = d.maxuse_con.max(d.contact.len());
        d.maxuse_efc = d.maxuse_efc.max(d.nefc);
    }
    transmission(m, d);
}

/// Velocity-dependent stages (`mj_fwdVelocity`): tendon and actuator velocities,
/// `cvel`/`cdof_dot`, passive forces, `qfrc_bias` (with the spatial-tendon armature term
/// `armature Jᵀ J̇ q̇`), constraint `efc_vel` and `efc_aref` ([`reference_constraint`]).
pub fn fwd_velocity<T: Scalar>(m: &Model, d: &mut Data<T>) {
    // a kinetic energy computed before this stage is stale from here on
    d.flg_energyvel = false;
    tendon_velocity(m, d);
    actuator_velocity(m, d);
    com_vel(m, d);
    passive(m, d);
    rne_bias(m, d);
    tendon_armature_bias(m, d);
    reference_constraint(m, d);
}

/// `qfrc_smooth = qfrc_passive - qfrc_bias + qfrc_applied + qfrc_actuator + Σ_b J_bᵀ
/// xfrc_applied[b]` (force and torque at each body's COM) and `qacc_smooth = M⁻¹ qfrc_smooth`
/// (`mj_fwdAcceleration`).
///
/// A sleeping tree keeps its `qfrc_smooth` (measured on MuJoCo 4.0.0: a tree asleep from its
/// reset keeps the reset's 0, so its `qacc_smooth` and `qacc` stay 0; a tree that fell asleep in
/// a step keeps that step's values, which a new computation at its unchanged position and zero
/// velocity repeats to the bit).
pub fn fwd_acceleration<T: Scalar>(m: &Model, d: &mut Data<T>) {
    let sleeping = crate::sleep::any_asleep(m, d);
    for i in 0..m.nv {
        if sleeping && crate::sleep::dof_asleep(d, i) {
            continue;
        }
        d.qfrc_smooth[i] =
            d.qfrc_passive[i] - d.qfrc_bias[i] + d.qfrc_applied[i] + d.qfrc_actuator[i];
    }
    for b in 1..m.nbody {
        // xfrc_applied = (force, torque)
        let x = d.xfrc_applied[b];
        if x.iter().all(|v| crate::math::exact_zero(*v)) {
            continue;
        }
        apply_ft_raw(
            m,
            &d.cdof,
            &d.subtree_com,
            &ang(&x),
            &lin(&x),
            &d.xipos[b],
            b,
            &mut d.qfrc_smooth,
        );
    }
    d.qacc_smooth.copy_from_slice(&d.qfrc_smooth);
    solve_ld(m, &d.qLD, &d.qLDiagInv, &mut d.qacc_smooth);
}

/// Constraint stage (`mj_fwdConstraint`): `efc_b = J qacc_smooth − aref`, then the solver
/// selected by `opt.solver` gives `qacc`, `efc_force` and `qfrc_constraint = Jᵀ efc_force`.
/// Without rows `qacc = qacc_smooth` and `qfrc_constraint = 0`.
pub fn fwd_constraint<T: Scalar>(m: &Model, d: &mut Data<T>) {
    fwd_constraint_skip(m, d, false);
}

/// [`fwd_constraint`] in a step that skipped the position stage (`skip_pos`): the solver
/// reuses the islands and its position-only problem data ([`crate::solver::solve_skip`]).
pub fn fwd_constraint_skip<T: Scalar>(m: &Model, d: &mut Data<T>, skip_pos: bool) {
    if d.nefc == 0 {
        d.qacc.copy_from_slice(&d.qacc_smooth);
        d.qfrc_constraint.iter_mut().for_each(|x| *x = T::zero());
        // the statistics keep their values (MuJoCo's), only the counts are zeroed
        d.solver_niter = [0; crate::data::NISLAND];
        d.nisland = 0;
        d.nidof = 0;
        return;
    }
    // efc_b = J qacc_smooth − aref (params::compute_b) is computed by the solver
    crate::solver::solve_skip(m, d, skip_pos);
}

/// Forward dynamics (`mj_forward`): position stage and position sensors, velocity stage and
/// velocity sensors, actuation, acceleration, constraint stage and acceleration sensors, in
/// order (Computation "Simulation pipeline"; the sensors respect the `sensor` disable flag).
/// Allocation-free.
pub fn forward<T: Scalar>(m: &Model, d: &mut Data<T>) {
    forward_skip(m, d, Skip::None, false);
}

/// [`forward`] skipping the stages before `skip` (`mj_forwardSkip`, API Reference "Main
/// simulation"): with [`Skip::Pos`] the position stage and position sensors are not recomputed
/// (their results in `d` are reused, and so are the constraint islands and the solver's
/// position-only data, [`crate::solver::solve_skip`]), with [`Skip::Vel`] neither are the
/// velocity stage and velocity sensors; `skip_sensor` skips all sensors. Used by the finite-difference Jacobians,
/// which perturb only velocities or controls.
pub fn forward_skip<T: Scalar>(m: &Model, d: &mut Data<T>, skip: Skip, skip_sensor: bool) {
    if skip >= Skip::Pos && d.stack_overflow.is_some() {
        // the position stage it would reuse stopped at a stack overflow
        return;
    }
    if skip < Skip::Pos {
        fwd_position(m, d);
        if d.stack_overflow.is_some() {
            return;
        }
        if !skip_sensor {
            sensor_pos(m, d);
        }
        crate::energy::energy_stage_pos(m, d);
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
    fwd_actuation(m, d);
    fwd_acceleration(m, d);
    fwd_constraint_skip(m, d, skip >= Skip::Pos);
    if !skip_sensor {
        sensor_acc(m, d);
    }
}
