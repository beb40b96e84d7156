//! Sensor Jacobians `C = ∂sensordata/∂x`, `D = ∂sensordata/∂u` of the transition (layout of
//! [`crate::fd::TransitionJacobians`], MuJoCo's `mjd_transitionFD`): the sensors of the step's
//! forward pass at the current state, `x = (q tangent, v, act)`.
//!
//! The sensors depend on `(q, v, act, u)` directly and, in the acceleration stage, through
//! `qacc` (accelerometers, force/torque, frame accelerations) and the constraint force
//! `efc_force = f(J qacc − aref)` (touch, limit forces, force/torque through contacts). Given
//! `∂qacc/∂x` from the implicit function theorem ([`crate::transition`](mod@crate::transition)), one `Dual64` pass per
//! input direction runs the sensor stages with that direction seeded and `qacc`'s directional
//! derivative fed in; `efc_force` is re-evaluated from `qacc` by the soft-constraint map
//! ([`moreau::pipeline::inv_constraint`]), which equals the solver's force at its optimum — no
//! constraint solve. Passes per direction: controls and activations the actuation stage and
//! acceleration sensors only, velocities also the velocity stage, positions also the position
//! stage, each restricted to what sensors read: kinematics, COM, cameras, tendons,
//! transmission, tendon/actuator velocities and `cvel` always; collision, constraint rows,
//! `aref` and the constraint force only with touch, force/torque or limit sensors; gravity
//! compensation only with `actuatorgravcomp` joints; no CRB, no RNE bias.

#![allow(clippy::needless_range_loop)]

use crate::dual::{lift_into, seed};
use crate::work::Work;
use moreau::model::{disable, Model, SensorType};
use moreau::pipeline::{
    actuator_velocity, camlight, collision, com_pos, com_vel, fwd_actuation, inv_constraint,
    kinematics, make_constraint, passive, reference_constraint, sensor_acc, sensor_pos, sensor_vel,
    tendon, tendon_velocity, transmission,
};
use moreau::Data;
use nalgebra::DMatrix;
use num_dual::Dual64;

/// Which optional stages the model's sensors need.
#[derive(Clone, Copy)]
struct Need {
    /// Constraint rows and forces (touch, force/torque, joint/tendon limit, contact sensors).
    efc: bool,
    /// `qfrc_gravcomp` routed to actuators (read by `fwd_actuation`).
    gravcomp: bool,
}

impl Need {
    fn of(m: &Model) -> Self {
        use SensorType::*;
        let efc = m.sensor_type.iter().any(|t| {
            matches!(
                t,
                Touch
                    | Force
                    | Torque
                    | JointLimitPos
                    | JointLimitVel
                    | JointLimitFrc
                    | TendonLimitPos
                    | TendonLimitVel
                    | TendonLimitFrc
                    | Contact
            )
        });
        let gravcomp = m.jnt_actgravcomp.iter().any(|&x| x);
        Need { efc, gravcomp }
    }
}

/// Position stage for the sensors (`mj_fwdPosition` without CRB and its factorization, which
/// no sensor reads; collision and constraint rows only if `need.efc`).
fn position(m: &Model, d: &mut Data<Dual64>, need: Need) {
    kinematics(m, d);
    com_pos(m, d);
    camlight(m, d);
    tendon(m, d);
    if need.efc {
        collision(m, d);
        make_constraint(m, d);
    }
    transmission(m, d);
}

/// Velocity stage for the sensors (`mj_fwdVelocity` without the RNE bias); `pos`: the
/// position-dependent gravity compensation too.
fn velocity(m: &Model, d: &mut Data<Dual64>, need: Need, pos: bool) {
    tendon_velocity(m, d);
    actuator_velocity(m, d);
    com_vel(m, d);
    if pos && need.gravcomp {
        passive(m, d);
    }
    if need.efc {
        reference_constraint(m, d);
    }
}

/// Actuation, `qacc` with derivative `dqacc`, the constraint force at it and the acceleration
/// sensors; then column `col` of `out` from `sensordata`'s derivative.
fn acc_stage(
    m: &Model,
    d: &Data<f64>,
    dd: &mut Data<Dual64>,
    need: Need,
    dqacc: &[f64],
    out: &mut DMatrix<f64>,
    col: usize,
) {
    fwd_actuation(m, dd);
    for i in 0..m.nv {
        dd.qacc[i] = Dual64::new(d.qacc[i], dqacc[i]);
    }
    if need.efc {
        inv_constraint(m, dd);
    }
    sensor_acc(m, dd);
    for (r, x) in dd.sensordata.iter().enumerate() {
        out[(r, col)] = x.eps;
    }
}

/// `(C, D)`: `nsensordata × (2nv+na)` and `nsensordata × nu`, given `dqacc = ∂qacc/∂(x, u)`
/// (`nv × (2nv+na+nu)`, [`crate::forward::forward_analytic`]'s layout) at the state of `d`,
/// which must be forwarded (position, velocity, actuation and constraint results current).
/// Zero with the `sensor` disable flag. Fails if [`Support::sensors`](crate::support::Support::sensors) refuses or if the dual collision does
/// not reproduce `d`'s constraint rows.
#[allow(non_snake_case)]
pub fn sensor_jacobians(
    m: &Model,
    d: &Data<f64>,
    dqacc: &DMatrix<f64>,
    w: &mut Work,
) -> Result<(DMatrix<f64>, DMatrix<f64>), &'static str> {
    let (nv, na, nu, ns) = (m.nv, m.na, m.nu, m.nsensordata);
    let nx = 2 * nv + na;
    assert_eq!(dqacc.shape(), (nv, nx + nu), "dqacc: nv × (2nv+na+nu)");
    let mut all = DMatrix::zeros(ns, nx + nu);
    if ns == 0 || m.opt.disabled(disable::SENSOR) {
        return Ok((
            all.columns(0, nx).into_owned(),
            all.columns(nx, nu).into_owned(),
        ));
    }
    if let Err(e) = crate::support::Support::sensors(m, d).check() {
        return Err(e.message());
    }
    let rows_differ = "the dual collision changed the constraint rows (sensor Jacobians)";
    let need = Need::of(m);
    let dd = w.dual_of(m, d);
    if !need.efc {
        // no sensor reads constraint forces: rne_post_constraint sees none
        dd.contact.clear();
        dd.resize_efc(nv, 0, 0);
    }
    // nominal position and velocity stages (zero derivative parts)
    position(m, dd, need);
    if need.efc && dd.nefc != d.nefc {
        return Err(rows_differ);
    }
    sensor_pos(m, dd);
    velocity(m, dd, need, true);
    sensor_vel(m, dd);
    // controls, activations: actuation and acceleration stage only
    for k in 2 * nv..nx + nu {
        seed(m, dd, k);
        acc_stage(m, d, dd, need, dqacc.column(k).as_slice(), &mut all, k);
        if k < nx {
            dd.act[k - 2 * nv].eps = 0.0;
        } else {
            dd.ctrl[k - nx].eps = 0.0;
        }
    }
    // velocities: from the velocity stage
    for k in nv..2 * nv {
        seed(m, dd, k);
        velocity(m, dd, need, false);
        sensor_vel(m, dd);
        acc_stage(m, d, dd, need, dqacc.column(k).as_slice(), &mut all, k);
        dd.qvel[k - nv].eps = 0.0;
    }
    // positions: every stage
    for k in 0..nv {
        lift_into(d, dd);
        seed(m, dd, k);
        position(m, dd, need);
        if need.efc && dd.nefc != d.nefc {
            return Err(rows_differ);
        }
        sensor_pos(m, dd);
        velocity(m, dd, need, true);
        sensor_vel(m, dd);
        acc_stage(m, d, dd, need, dqacc.column(k).as_slice(), &mut all, k);
    }
    Ok((
        all.columns(0, nx).into_owned(),
        all.columns(nx, nu).into_owned(),
    ))
}
