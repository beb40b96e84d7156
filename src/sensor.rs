//! Sensors (`mj_sensorPos`, `mj_sensorVel`, `mj_sensorAcc`; Computation "Simulation pipeline"
//! stages 11, 15 and 21, MuJoCo's MJCF `sensor` reference) and the subtree velocities they need
//! (`mj_subtreeVel`).
//!
//! Each stage computes the sensors whose `needstage` ([`sensor_stage`]) is that stage and writes
//! `d.sensordata[sensor_adr .. + sensor_dim]`, then applies the cutoff ([`apply_cutoff`]). With the
//! `sensor` disable flag set every stage returns without touching `sensordata` (as MuJoCo 4.0.0).
//! Sensor noise is a model parameter only: MuJoCo does not add noise to `sensordata`, neither does
//! moreau (checked against the oracle: outputs equal the noiseless values).
//!
//! Conventions (all checked against MuJoCo 4.0.0, tests/engine/sensor_oracle.rs):
//! - frame objects: `body` is the body's inertial frame (`xipos`, `ximat`, `xquat·body_iquat`),
//!   `xbody` the body frame, `geom` and `site` their frames. With a reference frame
//!   (`reftype/refid`): position `Rᵣᵀ (p - pᵣ)`, quaternion `qᵣ⁻¹ q`, axes `Rᵣᵀ a`,
//!   angular velocity `Rᵣᵀ (ω - ωᵣ)`, linear velocity `Rᵣᵀ (v - vᵣ - ωᵣ × (p - pᵣ))`. The
//!   acceleration frame sensors ignore the reference frame.
//! - velocities/accelerations of objects are those of the point `p` of the object's frame
//!   (`mj_objectVelocity`/`mj_objectAcceleration`): `v = v_c + ω × (p - c)`, classical linear
//!   acceleration `a = a_c + α × (p - c) + ω × v` with `(α, a_c) = cacc` (which contains `-gravity`,
//!   so an accelerometer at rest reads `+g` upwards).
//! - force/torque: `cfrc_int` of the site's body (the force the parent exerts on the subtree),
//!   torque taken about the site, both in the site frame.
//! - touch: the sum of the positive normal forces ([`crate::smooth::rne::contact_force`]) of the
//!   contacts involving the site's body whose ray from the contact point along the normal
//!   (pointing into the site's body) hits the site volume; force / torque sensors see contact and
//!   connect/weld forces (`rne::post_constraint_ext`); rangefinder: [`crate::ray::ray`] along
//!   the site z axis, excluding the site's body (-1 for no hit).
//! - joint/tendon limit sensors read the first limit row of their element (`efc_pos −
//!   efc_margin`, `efc_vel`, `efc_force`; 0 without a row).
//! - camera frames are `cam_xpos` / `cam_xmat` (after the tracking mode), but a camera's
//!   `framequat` is `xquat[body] · cam_quat`, ignoring the mode (as MuJoCo 4.0.0).

use crate::data::Data;
use crate::math::quat::{normalize_quat, q4};
use crate::math::spatial::{ang, lin, v3};
use crate::math::{sc, Scalar};
use crate::model::{disable, Model, ObjType, SensorType};
use crate::smooth::rne::rne_post_constraint;
use nalgebra::{Matrix3, Quaternion, Vector3, Vector6};

/// Computation stage a sensor needs (`mjtStage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Pos = 1,
    Vel = 2,
    Acc = 3,
}

/// Sensor output data type (`mjtDataType`): decides how the cutoff applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataType {
    Real = 0,
    Positive = 1,
    Axis = 2,
    Quaternion = 3,
}

/// The stage at which a sensor type is computed (MuJoCo's `sensor_needstage`).
pub fn sensor_stage(t: SensorType) -> Stage {
    use SensorType::*;
    match t {
        Magnetometer | Rangefinder | JointPos | TendonPos | ActuatorPos | BallQuat
        | JointLimitPos | TendonLimitPos | FramePos | FrameQuat | FrameXAxis | FrameYAxis
        | FrameZAxis | SubtreeCom | EPotential | EKinetic | Clock => Stage::Pos,
        Velocimeter | Gyro | JointVel | TendonVel | ActuatorVel | BallAngVel | JointLimitVel
        | TendonLimitVel | FrameLinVel | FrameAngVel | SubtreeLinVel | SubtreeAngMom => Stage::Vel,
        Touch | Accelerometer | Force | Torque | ActuatorFrc | JointActFrc | JointLimitFrc
        | TendonLimitFrc | FrameLinAcc | FrameAngAcc | Contact => Stage::Acc,
    }
}

/// The stage at which sensor `i` of `m` is computed (MuJoCo's `sensor_needstage`): the
/// type's ([`sensor_stage`]), but a contact sensor that reads no force (no `force` or
/// `torque` field, `reduce` neither `maxforce` nor `netforce`) is a velocity sensor if it
/// reads `linvel` or `angvel`, else a position sensor, as in MuJoCo 4.0.0 (checked on it).
pub fn sensor_needstage(m: &Model, i: usize) -> Stage {
    let t = m.sensor_type[i];
    if t != SensorType::Contact {
        return sensor_stage(t);
    }
    let [spec, reduce, _] = m.sensor_intprm[i];
    if spec & (CONTACT_FORCE | CONTACT_TORQUE) != 0 || reduce >= REDUCE_MAXFORCE {
        Stage::Acc
    } else if spec & (CONTACT_LINVEL | CONTACT_ANGVEL) != 0 {
        Stage::Vel
    } else {
        Stage::Pos
    }
}

/// The data type of a sensor type (MuJoCo's `sensor_datatype`).
pub fn sensor_datatype(t: SensorType) -> DataType {
    use SensorType::*;
    match t {
        Touch => DataType::Positive,
        BallQuat | FrameQuat => DataType::Quaternion,
        FrameXAxis | FrameYAxis | FrameZAxis => DataType::Axis,
        _ => DataType::Real,
    }
}

/// Number of outputs of a sensor type (MuJoCo's `sensor_dim`); a contact sensor's depends on
/// its attributes (`num` slots of its `data` fields, in `Model::sensor_dim`): 0 here.
pub fn sensor_dim(t: SensorType) -> usize {
    use SensorType::*;
    match t {
        Contact => 0,
        Touch | Rangefinder | JointPos | JointVel | TendonPos | TendonVel | ActuatorPos
        | ActuatorVel | ActuatorFrc | JointActFrc | JointLimitPos | JointLimitVel
        | JointLimitFrc | TendonLimitPos | TendonLimitVel | TendonLimitFrc | EPotential
        | EKinetic | Clock => 1,
        BallQuat | FrameQuat => 4,
        _ => 3,
    }
}

/// The sensors of `m` that need [`rne_post_constraint`] (`cacc`, `cfrc_int`).
fn needs_rne_post(t: SensorType) -> bool {
    use SensorType::*;
    matches!(
        t,
        Accelerometer | Force | Torque | FrameLinAcc | FrameAngAcc
    )
}

/// The sensors of `m` that need [`subtree_vel`].
fn needs_subtree_vel(t: SensorType) -> bool {
    matches!(t, SensorType::SubtreeLinVel | SensorType::SubtreeAngMom)
}

/// Whether an awake sensor of a type `needs` is present: MuJoCo computes `subtree_vel` and
/// `rne_post_constraint` on demand, for the sensors it evaluates, so with every such sensor
/// asleep their fields (`subtree_linvel`, `subtree_angmom`; `cacc`, `cfrc_int`, `cfrc_ext`)
/// keep their last values for every body (measured on MuJoCo 4.0.0, docs/mujoco-behaviour.md
/// "Sleeping").
fn needed<T: Scalar>(m: &Model, d: &Data<T>, needs: fn(SensorType) -> bool) -> bool {
    (0..m.nsensor).any(|i| needs(m.sensor_type[i]) && !crate::sleep::sensor_idle(m, d, i))
}

/// Position, orientation and body of a frame object (`body`: inertial frame, `xbody`: body
/// frame, `geom`, `site`); `None` for other object types.
#[inline]
fn obj_frame<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    t: ObjType,
    id: usize,
) -> Option<(Vector3<T>, Matrix3<T>, usize)> {
    match t {
        ObjType::Body => Some((d.xipos[id], d.ximat[id], id)),
        ObjType::XBody => Some((d.xpos[id], d.xmat[id], id)),
        ObjType::Geom => Some((d.geom_xpos[id], d.geom_xmat[id], m.geom_bodyid[id])),
        ObjType::Site => Some((d.site_xpos[id], d.site_xmat[id], m.site_bodyid[id])),
        ObjType::Camera => Some((d.cam_xpos[id], d.cam_xmat[id], m.cam_bodyid[id])),
        _ => None,
    }
}

/// The position of a frame object, as [`obj_frame`] gives it.
#[inline(always)]
fn obj_pos<T: Scalar>(d: &Data<T>, t: ObjType, id: usize) -> Option<Vector3<T>> {
    match t {
        ObjType::Body => Some(d.xipos[id]),
        ObjType::XBody => Some(d.xpos[id]),
        ObjType::Geom => Some(d.geom_xpos[id]),
        ObjType::Site => Some(d.site_xpos[id]),
        ObjType::Camera => Some(d.cam_xpos[id]),
        _ => None,
    }
}

/// Orientation quaternion of a frame object (see [`obj_frame`]).
#[inline]
fn obj_quat<T: Scalar>(m: &Model, d: &Data<T>, t: ObjType, id: usize) -> Option<Quaternion<T>> {
    match t {
        ObjType::Body => Some(d.xquat[id] * q4::<T>(&m.body_iquat[id])),
        ObjType::XBody => Some(d.xquat[id]),
        ObjType::Geom => Some(d.xquat[m.geom_bodyid[id]] * q4::<T>(&m.geom_quat[id])),
        ObjType::Site => Some(d.xquat[m.site_bodyid[id]] * q4::<T>(&m.site_quat[id])),
        // body orientation times cam_quat, ignoring the tracking mode (as MuJoCo 4.0.0)
        ObjType::Camera => Some(d.xquat[m.cam_bodyid[id]] * q4::<T>(&m.cam_quat[id])),
        _ => None,
    }
}

/// `(ω, v)` of the frame origin `p` of body `b`: `v = v_c + ω × (p - c)` (world frame).
#[inline]
fn point_velocity<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    b: usize,
    p: &Vector3<T>,
) -> (Vector3<T>, Vector3<T>) {
    let cv = &d.cvel[b];
    let w = ang(cv);
    let r = p - d.subtree_com[m.body_rootid[b]];
    (w, lin(cv) + w.cross(&r))
}

/// Object velocity (`mj_objectVelocity`): `(ω, v)` at the object's frame origin, in the world
/// frame or (if `local`) the object frame.
pub fn object_velocity<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    t: ObjType,
    id: usize,
    local: bool,
) -> Option<(Vector3<T>, Vector3<T>)> {
    let (p, r, b) = obj_frame(m, d, t, id)?;
    let (w, v) = point_velocity(m, d, b, &p);
    Some(if local {
        (r.tr_mul(&w), r.tr_mul(&v))
    } else {
        (w, v)
    })
}

/// Object acceleration (`mj_objectAcceleration`): `(α, a)` at the object's frame origin with
/// the classical linear acceleration `a = a_c + α × (p - c) + ω × v`, in the world frame or (if
/// `local`) the object frame. Needs `cacc` ([`rne_post_constraint`]).
pub fn object_acceleration<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    t: ObjType,
    id: usize,
    local: bool,
) -> Option<(Vector3<T>, Vector3<T>)> {
    let (p, r, b) = obj_frame(m, d, t, id)?;
    let ca = &d.cacc[b];
    let alpha = ang(ca);
    let off = p - d.subtree_com[m.body_rootid[b]];
    let (w, v) = point_velocity(m, d, b, &p);
    let a = lin(ca) + alpha.cross(&off) + w.cross(&v);
    Some(if local {
        (r.tr_mul(&alpha), r.tr_mul(&a))
    } else {
        (alpha, a)
    })
}

/// Subtree COM velocities and angular momenta (`mj_subtreeVel`): `subtree_linvel[b] =
/// Σ mᵢ vᵢ / Mᵦ` over the subtree (COM velocities `vᵢ`), `subtree_angmom[b] = Σ Iᵢ ωᵢ +
/// mᵢ (cᵢ - Cᵦ) × (vᵢ - Vᵦ)` about the subtree COM `Cᵦ`, both in the world frame. Accumulated
/// from the leaves with the parallel-axis rule for momenta. Needs `cvel`.
pub fn subtree_vel<T: Scalar>(m: &Model, d: &mut Data<T>) {
    for b in 0..m.nbody {
        let (w, v) = point_velocity(m, d, b, &d.xipos[b]);
        d.subtree_linvel[b] = v * sc::<T>(m.body_mass[b]);
        // own spin momentum I ω with I = R diag(inertia) Rᵀ
        let r = &d.ximat[b];
        let li = r.tr_mul(&w).component_mul(&v3::<T>(&m.body_inertia[b]));
        d.subtree_angmom[b] = r * li;
    }
    for b in (1..m.nbody).rev() {
        let x = d.subtree_linvel[b];
        d.subtree_linvel[m.body_parentid[b]] += x;
    }
    for b in 0..m.nbody {
        d.subtree_linvel[b] /= sc::<T>(m.body_subtreemass[b].max(1e-15));
    }
    // own orbital term about the subtree COM
    for b in 1..m.nbody {
        let (_, v) = point_velocity(m, d, b, &d.xipos[b]);
        let dc = d.xipos[b] - d.subtree_com[b];
        let dv = v - d.subtree_linvel[b];
        let t = dc.cross(&dv) * sc::<T>(m.body_mass[b]);
        d.subtree_angmom[b] += t;
    }
    // children: momentum about their own COM plus the orbital term of their COM
    for b in (1..m.nbody).rev() {
        let p = m.body_parentid[b];
        let dc = d.subtree_com[b] - d.subtree_com[p];
        let dv = d.subtree_linvel[b] - d.subtree_linvel[p];
        let t = d.subtree_angmom[b] + dc.cross(&dv) * sc::<T>(m.body_subtreemass[b]);
        d.subtree_angmom[p] += t;
    }
}

/// Clamps a sensor's outputs to `±cutoff` (real data) or `≤ cutoff` (positive data) if
/// `cutoff > 0`; axis and quaternion outputs are never clamped.
pub fn apply_cutoff<T: Scalar>(m: &Model, d: &mut Data<T>, i: usize) {
    let cutoff = m.sensor_cutoff[i];
    // the contact sensor ignores its cutoff (MuJoCo's XML reference, sensor/contact)
    if cutoff <= 0.0 || m.sensor_type[i] == SensorType::Contact {
        return;
    }
    let c: T = sc(cutoff);
    let adr = m.sensor_adr[i];
    let out = &mut d.sensordata[adr..adr + m.sensor_dim[i]];
    match sensor_datatype(m.sensor_type[i]) {
        DataType::Real => out.iter_mut().for_each(|x| {
            if *x > c {
                *x = c
            } else if *x < -c {
                *x = -c
            }
        }),
        DataType::Positive => out.iter_mut().for_each(|x| {
            if *x > c {
                *x = c
            }
        }),
        DataType::Axis | DataType::Quaternion => {}
    }
}

/// Output buffer of one sensor (at most 4 values).
struct Out<T: Scalar> {
    v: [T; 4],
    n: usize,
}

impl<T: Scalar> Out<T> {
    fn zero() -> Self {
        Out {
            v: [T::zero(); 4],
            n: 0,
        }
    }
    fn s(x: T) -> Self {
        Out {
            v: [x, T::zero(), T::zero(), T::zero()],
            n: 1,
        }
    }
    fn v3(x: &Vector3<T>) -> Self {
        Out {
            v: [x.x, x.y, x.z, T::zero()],
            n: 3,
        }
    }
    fn q(q: &Quaternion<T>) -> Self {
        Out {
            v: [q.w, q.i, q.j, q.k],
            n: 4,
        }
    }
}

/// Reference frame object of sensor `i`, if it has one.
#[inline]
fn ref_of(m: &Model, i: usize) -> Option<(ObjType, usize)> {
    let r = usize::try_from(m.sensor_refid[i]).ok()?;
    match m.sensor_reftype[i] {
        ObjType::Body | ObjType::XBody | ObjType::Geom | ObjType::Site | ObjType::Camera => {
            Some((m.sensor_reftype[i], r))
        }
        _ => None,
    }
}

/// Limit sensors read the first limit row of their joint / tendon: `efc_pos − efc_margin`,
/// `efc_vel` or `efc_force`; 0 when the limit has no row.
fn limit_value<T: Scalar>(d: &Data<T>, t: SensorType, id: usize) -> T {
    use crate::data::ConstraintType as Ct;
    use SensorType::*;
    let ty = match t {
        JointLimitPos | JointLimitVel | JointLimitFrc => Ct::LimitJoint,
        _ => Ct::LimitTendon,
    };
    let Some(r) = (0..d.nefc).find(|&r| d.efc_type[r] == ty && d.efc_id[r] == id) else {
        return T::zero();
    };
    match t {
        JointLimitPos | TendonLimitPos => d.efc_pos[r] - d.efc_margin[r],
        JointLimitVel | TendonLimitVel => d.efc_vel[r],
        _ => d.efc_force[r],
    }
}

/// Touch sensor on site `s`: the sum of the positive normal forces of the contacts involving the
/// site's body whose ray from the contact point along the normal (pointing into the site's body)
/// hits the site volume.
fn touch<T: Scalar>(m: &Model, d: &Data<T>, s: usize) -> T {
    let b = m.site_bodyid[s];
    let mut sum = T::zero();
    for (j, c) in d.contact.iter().enumerate() {
        if c.efc_address < 0 {
            continue;
        }
        let b1 = m.geom_bodyid[c.geom[0]];
        let b2 = m.geom_bodyid[c.geom[1]];
        if b1 != b && b2 != b {
            continue;
        }
        let f = crate::smooth::rne::contact_force(m, d, j)[0];
        if f <= T::zero() {
            continue;
        }
        let mut dir = c.normal();
        if b2 == b {
            dir = -dir;
        }
        let x = crate::ray::ray_primitive(
            &d.site_xpos[s],
            &d.site_xmat[s],
            &m.site_size[s],
            &c.pos,
            &dir,
            m.site_type[s],
        );
        if x >= T::zero() {
            sum += f;
        }
    }
    sum
}

/// Rangefinder on site `s`: distance along the site's z axis to the nearest geom (static geoms
/// included, the site's body excluded, all groups), or -1.
fn rangefinder<T: Scalar>(m: &Model, d: &Data<T>, s: usize) -> T {
    let z = d.site_xmat[s].column(2).into_owned();
    crate::ray::ray(
        m,
        d,
        &d.site_xpos[s],
        &z,
        None,
        true,
        Some(m.site_bodyid[s]),
    )
    .0
}

fn compute<T: Scalar>(m: &Model, d: &Data<T>, i: usize) -> Out<T> {
    use SensorType::*;
    let t = m.sensor_type[i];
    let ot = m.sensor_objtype[i];
    let id = m.sensor_objid[i].max(0) as usize;
    let refr = ref_of(m, i);
    match t {
        // -------------------------------------------------------------- position stage
        Magnetometer => {
            let (_, r, _) = obj_frame(m, d, ObjType::Site, id).unwrap();
            Out::v3(&r.tr_mul(&v3::<T>(&m.opt.magnetic)))
        }
        Rangefinder => Out::s(rangefinder(m, d, id)),
        JointPos => Out::s(d.qpos[m.jnt_qposadr[id]]),
        TendonPos => Out::s(d.ten_length[id]),
        ActuatorPos => Out::s(d.actuator_length[id]),
        BallQuat => {
            let a = m.jnt_qposadr[id];
            let q = Quaternion::new(d.qpos[a], d.qpos[a + 1], d.qpos[a + 2], d.qpos[a + 3]);
            Out::q(&normalize_quat(q))
        }
        JointLimitPos | TendonLimitPos | JointLimitVel | TendonLimitVel | JointLimitFrc
        | TendonLimitFrc => Out::s(limit_value(d, t, id)),
        Touch => Out::s(touch(m, d, id)),
        // without a reference frame only the object's position is read (not its whole frame)
        FramePos if refr.is_none() => obj_pos(d, ot, id).map_or_else(Out::zero, |p| Out::v3(&p)),
        FramePos => match obj_frame(m, d, ot, id) {
            None => Out::zero(),
            Some((p, _, _)) => match refr.and_then(|(rt, rid)| obj_frame(m, d, rt, rid)) {
                None => Out::v3(&p),
                Some((pr, rr, _)) => Out::v3(&rr.tr_mul(&(p - pr))),
            },
        },
        FrameQuat => match obj_quat(m, d, ot, id) {
            None => Out::zero(),
            Some(q) => match refr.and_then(|(rt, rid)| obj_quat(m, d, rt, rid)) {
                None => Out::q(&q),
                Some(qr) => Out::q(&(qr.conjugate() * q)),
            },
        },
        FrameXAxis | FrameYAxis | FrameZAxis => match obj_frame(m, d, ot, id) {
            None => Out::zero(),
            Some((_, r, _)) => {
                let k = match t {
                    FrameXAxis => 0,
                    FrameYAxis => 1,
                    _ => 2,
                };
                let a: Vector3<T> = r.column(k).into();
                match refr.and_then(|(rt, rid)| obj_frame(m, d, rt, rid)) {
                    None => Out::v3(&a),
                    Some((_, rr, _)) => Out::v3(&rr.tr_mul(&a)),
                }
            }
        },
        SubtreeCom => Out::v3(&d.subtree_com[id]),
        EPotential => Out::s(d.energy[0]),
        EKinetic => Out::s(d.energy[1]),
        Clock => Out::s(d.time),
        // -------------------------------------------------------------- velocity stage
        Velocimeter => Out::v3(&object_velocity(m, d, ObjType::Site, id, true).unwrap().1),
        Gyro => Out::v3(&object_velocity(m, d, ObjType::Site, id, true).unwrap().0),
        JointVel => Out::s(d.qvel[m.jnt_dofadr[id]]),
        TendonVel => Out::s(d.ten_velocity[id]),
        ActuatorVel => Out::s(d.actuator_velocity[id]),
        BallAngVel => {
            let a = m.jnt_dofadr[id];
            Out::v3(&Vector3::new(d.qvel[a], d.qvel[a + 1], d.qvel[a + 2]))
        }
        FrameLinVel | FrameAngVel => {
            let Some((w, v)) = object_velocity(m, d, ot, id, false) else {
                return Out::zero();
            };
            let rel = refr.and_then(|(rt, rid)| {
                let (pr, rr, _) = obj_frame(m, d, rt, rid)?;
                let (wr, vr) = object_velocity(m, d, rt, rid, false)?;
                Some((pr, rr, wr, vr))
            });
            match (t, rel) {
                (FrameAngVel, None) => Out::v3(&w),
                (_, None) => Out::v3(&v),
                (FrameAngVel, Some((_, rr, wr, _))) => Out::v3(&rr.tr_mul(&(w - wr))),
                (_, Some((pr, rr, wr, vr))) => {
                    let (p, _, _) = obj_frame(m, d, ot, id).unwrap();
                    Out::v3(&rr.tr_mul(&(v - vr - wr.cross(&(p - pr)))))
                }
            }
        }
        SubtreeLinVel => Out::v3(&d.subtree_linvel[id]),
        SubtreeAngMom => Out::v3(&d.subtree_angmom[id]),
        // -------------------------------------------------------------- acceleration stage
        Accelerometer => Out::v3(
            &object_acceleration(m, d, ObjType::Site, id, true)
                .unwrap()
                .1,
        ),
        Force | Torque => {
            let b = m.site_bodyid[id];
            let f: &Vector6<T> = &d.cfrc_int[b];
            let r = &d.site_xmat[id];
            if t == Force {
                Out::v3(&r.tr_mul(&lin(f)))
            } else {
                let off = d.site_xpos[id] - d.subtree_com[m.body_rootid[b]];
                Out::v3(&r.tr_mul(&(ang(f) - off.cross(&lin(f)))))
            }
        }
        ActuatorFrc => Out::s(d.actuator_force[id]),
        JointActFrc => Out::s(d.qfrc_actuator[m.jnt_dofadr[id]]),
        FrameLinAcc | FrameAngAcc => match object_acceleration(m, d, ot, id, false) {
            None => Out::zero(),
            Some((al, a)) => Out::v3(if t == FrameAngAcc { &al } else { &a }),
        },
        // written by `contact_sensor`
        Contact => Out::zero(),
    }
}

// The contact sensor (MuJoCo's XML reference, `sensor/contact`; `sensor_intprm` = data bits,
// reduce, num).
const CONTACT_FOUND: i32 = 1;
const CONTACT_FORCE: i32 = 2;
const CONTACT_TORQUE: i32 = 4;
const CONTACT_DIST: i32 = 8;
const CONTACT_POS: i32 = 16;
const CONTACT_NORMAL: i32 = 32;
const CONTACT_TANGENT: i32 = 64;
const CONTACT_LINVEL: i32 = 128;
const CONTACT_ANGVEL: i32 = 256;
const REDUCE_MINDIST: i32 = 1;
const REDUCE_MAXFORCE: i32 = 2;
const REDUCE_NETFORCE: i32 = 3;

/// Whether the contact side `geom` matches a contact sensor's object (`geom1`/`geom2`: the
/// geom; `body1`/`body2`: its body; `subtree1`/`subtree2`: its body's subtree).
fn side_matches(m: &Model, ty: ObjType, id: usize, geom: usize) -> bool {
    match ty {
        ObjType::Geom => geom == id,
        ObjType::Body => m.geom_bodyid[geom] == id,
        ObjType::XBody => {
            let mut b = m.geom_bodyid[geom];
            loop {
                if b == id {
                    return true;
                }
                if b == 0 {
                    return false;
                }
                b = m.body_parentid[b];
            }
        }
        _ => false,
    }
}

/// Whether `p` (world) is inside the volume of site `s` (its geometric type and size).
fn inside_site<T: Scalar>(m: &Model, d: &Data<T>, s: usize, p: &Vector3<T>) -> bool {
    use crate::model::GeomType as G;
    let l = d.site_xmat[s].tr_mul(&(p - d.site_xpos[s]));
    let [a, b, c] = m.site_size[s].map(sc::<T>);
    let sq = |x: T| x * x;
    match m.site_type[s] {
        G::Sphere => l.norm_squared() <= sq(a),
        G::Capsule => {
            let z = if l.z > b {
                l.z - b
            } else if l.z < -b {
                l.z + b
            } else {
                T::zero()
            };
            sq(l.x) + sq(l.y) + sq(z) <= sq(a)
        }
        G::Ellipsoid => sq(l.x / a) + sq(l.y / b) + sq(l.z / c) <= T::one(),
        G::Cylinder => sq(l.x) + sq(l.y) <= sq(a) && l.z.abs() <= b,
        G::Box => l.x.abs() <= a && l.y.abs() <= b && l.z.abs() <= c,
        _ => false,
    }
}

/// Whether contact `j` matches contact sensor `i`: `None` if not, else whether its frame is
/// flipped so that the normal points from the sensor's first object to its second (when the
/// contact's geoms are in the other order). Every listed contact can match, those without
/// constraint rows (kept by `gap`, zero force) too, as in MuJoCo 4.0.0.
fn contact_match<T: Scalar>(m: &Model, d: &Data<T>, i: usize, j: usize) -> Option<bool> {
    let c = &d.contact[j];
    let (t1, t2) = (m.sensor_objtype[i], m.sensor_reftype[i]);
    let (id1, id2) = (m.sensor_objid[i], m.sensor_refid[i]);
    if t1 == ObjType::Site && id1 >= 0 && !inside_site(m, d, id1 as usize, &c.pos) {
        return None;
    }
    let s1 = |g: usize| id1 < 0 || t1 == ObjType::Site || side_matches(m, t1, id1 as usize, g);
    let s2 = |g: usize| id2 < 0 || side_matches(m, t2, id2 as usize, g);
    let [g0, g1] = c.geom;
    // as ordered in the contact, else swapped
    if s1(g0) && s2(g1) {
        Some(false)
    } else if s1(g1) && s2(g0) {
        Some(true)
    } else {
        None
    }
}

/// Contact `j`'s force and torque in its frame (`mj_contactForce`), the frame's normal and
/// first tangent, flipped if `flip`: the normal and first tangent negated, the second tangent
/// kept, so the force and torque keep their normal and first tangential components and negate
/// the second (checked on MuJoCo 4.0.0).
fn contact_wrench<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    j: usize,
    flip: bool,
) -> ([T; 6], Vector3<T>, Vector3<T>) {
    let mut f = crate::smooth::rne::contact_force(m, d, j);
    let fr = &d.contact[j].frame;
    let mut n = Vector3::new(fr[(0, 0)], fr[(0, 1)], fr[(0, 2)]);
    let mut t = Vector3::new(fr[(1, 0)], fr[(1, 1)], fr[(1, 2)]);
    if flip {
        f[2] = -f[2];
        f[5] = -f[5];
        n = -n;
        t = -t;
    }
    (f, n, t)
}

/// The velocity of contact `j`'s second geom relative to its first, at the contact point, in
/// the contact frame: `(linear, angular)`, each `frame · (v₂ − v₁)` with `vᵢ` the velocity of
/// geom `i`'s body at `pos` (`linvel`, `angvel`); flipped as the force (component 2 negated),
/// since the flip negates both the relative velocity and the first two frame axes (checked on
/// MuJoCo 4.0.0).
fn contact_velocity<T: Scalar>(
    m: &Model,
    d: &Data<T>,
    j: usize,
    flip: bool,
) -> (Vector3<T>, Vector3<T>) {
    let c = &d.contact[j];
    let [b1, b2] = c.geom.map(|g| m.geom_bodyid[g]);
    let (w1, v1) = point_velocity(m, d, b1, &c.pos);
    let (w2, v2) = point_velocity(m, d, b2, &c.pos);
    let mut lv = c.frame * (v2 - v1);
    let mut av = c.frame * (w2 - w1);
    if flip {
        lv.z = -lv.z;
        av.z = -av.z;
    }
    (lv, av)
}

/// The sort key of contact `j` under `reduce`: ascending `dist` (mindist), descending force
/// norm (maxforce), else its index only.
fn reduce_key<T: Scalar>(m: &Model, d: &Data<T>, reduce: i32, j: usize) -> T {
    match reduce {
        REDUCE_MINDIST => d.contact[j].dist,
        REDUCE_MAXFORCE => {
            let f = crate::smooth::rne::contact_force(m, d, j);
            -(f[0] * f[0] + f[1] * f[1] + f[2] * f[2])
        }
        _ => T::zero(),
    }
}

/// Contact sensor `i` into `out` (its `sensor_dim[i]` numbers): matching, reduction and
/// extraction as MuJoCo's XML reference describes `sensor/contact`, each rule checked on MuJoCo
/// 4.0.0 (`tools/zoo/gen_contact_sensor.py`). Slots are ordered by the reduction's key, ties
/// in `d.contact` order; slots beyond the matched contacts are zero. `netforce` gives one
/// synthetic contact in the world frame at the centroid of the contact positions weighted by
/// the norms of their forces, with the net force and the net torque about that point.
/// Allocation-free: the slots are selected one by one.
fn contact_sensor<T: Scalar>(m: &Model, d: &Data<T>, i: usize, out: &mut [T]) {
    out.iter_mut().for_each(|x| *x = T::zero());
    let [spec, reduce, num] = m.sensor_intprm[i];
    let num = num.max(0) as usize;
    let ncon = d.contact.len();
    let nmatch = (0..ncon)
        .filter(|&j| contact_match(m, d, i, j).is_some())
        .count();
    if nmatch == 0 || num == 0 {
        return;
    }
    let size = out.len() / num;
    let found: T = sc(nmatch as f64);
    let zero = Vector3::zeros();
    let mut put_slot = |k: usize,
                        f: &[T; 6],
                        dist: T,
                        pos: &Vector3<T>,
                        n: &Vector3<T>,
                        t: &Vector3<T>,
                        v: &(Vector3<T>, Vector3<T>)| {
        let mut o = &mut out[k * size..(k + 1) * size];
        let mut put = |vals: &[T]| {
            let (head, rest) = std::mem::take(&mut o).split_at_mut(vals.len());
            head.copy_from_slice(vals);
            o = rest;
        };
        for (bit, vals) in [
            (CONTACT_FOUND, std::slice::from_ref(&found)),
            (CONTACT_FORCE, &f[..3]),
            (CONTACT_TORQUE, &f[3..]),
            (CONTACT_DIST, std::slice::from_ref(&dist)),
            (CONTACT_POS, pos.as_slice()),
            (CONTACT_NORMAL, n.as_slice()),
            (CONTACT_TANGENT, t.as_slice()),
            (CONTACT_LINVEL, v.0.as_slice()),
            (CONTACT_ANGVEL, v.1.as_slice()),
        ] {
            if spec & bit != 0 {
                put(vals);
            }
        }
    };
    if reduce == REDUCE_NETFORCE {
        let world = |j: usize, flip: bool| {
            let (f, n, t) = contact_wrench(m, d, j, flip);
            let t2 = n.cross(&t);
            let fw = n * f[0] + t * f[1] + t2 * f[2];
            let tw = n * f[3] + t * f[4] + t2 * f[5];
            let w = (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).sqrt();
            (fw, tw, w)
        };
        let (mut fsum, mut tsum, mut psum) = (Vector3::zeros(), Vector3::zeros(), Vector3::zeros());
        let mut wsum = T::zero();
        for j in 0..ncon {
            if let Some(flip) = contact_match(m, d, i, j) {
                let (fw, tw, w) = world(j, flip);
                fsum += fw;
                tsum += tw;
                wsum += w;
                psum += d.contact[j].pos * w;
            }
        }
        let c = if wsum > T::zero() {
            psum / wsum
        } else {
            Vector3::zeros()
        };
        for j in 0..ncon {
            if let Some(flip) = contact_match(m, d, i, j) {
                let (fw, _, _) = world(j, flip);
                tsum += (d.contact[j].pos - c).cross(&fw);
            }
        }
        let f = [fsum.x, fsum.y, fsum.z, tsum.x, tsum.y, tsum.z];
        // netforce with linvel or angvel is refused by the compiler
        put_slot(
            0,
            &f,
            T::zero(),
            &c,
            &Vector3::x(),
            &Vector3::y(),
            &(zero, zero),
        );
        return;
    }
    // the next slot: the least (key, index) after the previous slot's
    let mut prev: Option<(T, usize)> = None;
    for k in 0..num.min(nmatch) {
        let mut best: Option<(T, usize, bool)> = None;
        for j in 0..ncon {
            let Some(flip) = contact_match(m, d, i, j) else {
                continue;
            };
            let key = reduce_key(m, d, reduce, j);
            let after = prev.is_none_or(|(pk, pj)| key > pk || (key == pk && j > pj));
            let better = best.is_none_or(|(bk, bj, _)| key < bk || (key == bk && j < bj));
            if after && better {
                best = Some((key, j, flip));
            }
        }
        let Some((key, j, flip)) = best else {
            break;
        };
        prev = Some((key, j));
        let (f, n, t) = contact_wrench(m, d, j, flip);
        let v = if spec & (CONTACT_LINVEL | CONTACT_ANGVEL) != 0 {
            contact_velocity(m, d, j, flip)
        } else {
            (zero, zero)
        };
        let c = &d.contact[j];
        put_slot(k, &f, c.dist, &c.pos, &n, &t, &v);
    }
}

fn stage<T: Scalar>(m: &Model, d: &mut Data<T>, s: Stage) {
    // a sensor can be idle only while some tree sleeps: asked once per stage, not per sensor
    let some_asleep = crate::sleep::some_asleep(m, d);
    for i in 0..m.nsensor {
        if sensor_needstage(m, i) != s || (some_asleep && crate::sleep::sensor_idle(m, d, i)) {
            continue;
        }
        if m.sensor_type[i] == SensorType::Contact {
            let (adr, dim) = (m.sensor_adr[i], m.sensor_dim[i]);
            let mut sd = std::mem::take(&mut d.sensordata);
            contact_sensor(m, d, i, &mut sd[adr..adr + dim]);
            d.sensordata = sd;
            continue;
        }
        let out = compute(m, d, i);
        let adr = m.sensor_adr[i];
        let dim = m.sensor_dim[i];
        // the computed values, then zeros up to the sensor's dimension
        let n = out.n.min(dim);
        let dst = &mut d.sensordata[adr..adr + dim];
        dst[..n].copy_from_slice(&out.v[..n]);
        dst[n..].fill(T::zero());
        apply_cutoff(m, d, i);
    }
}

/// Position-stage sensors (`mj_sensorPos`). Needs the position stage (kinematics, COM,
/// tendons, transmission) and `time`.
pub fn sensor_pos<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if m.opt.disabled(disable::SENSOR) || m.nsensor == 0 {
        return;
    }
    // the energy sensors read what mj_energyPos / mj_energyVel left, running them first unless
    // they ran since the position (potential) or velocity (kinetic) stage began
    let has = |t| m.sensor_type.contains(&t);
    if !d.flg_energypos && has(SensorType::EPotential) {
        crate::energy::energy_pos(m, d);
    }
    if !d.flg_energyvel && has(SensorType::EKinetic) {
        crate::energy::energy_vel(m, d);
    }
    stage(m, d, Stage::Pos);
}

/// Velocity-stage sensors (`mj_sensorVel`); runs `subtree_vel` first if a subtree
/// velocity/momentum sensor is present. Needs the velocity stage.
pub fn sensor_vel<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if m.opt.disabled(disable::SENSOR) || m.nsensor == 0 {
        return;
    }
    if needed(m, d, needs_subtree_vel) {
        subtree_vel(m, d);
    }
    stage(m, d, Stage::Vel);
}

/// Acceleration-stage sensors (`mj_sensorAcc`); runs [`rne_post_constraint`] first if an
/// accelerometer, force, torque or frame acceleration sensor is present. Needs `qacc` and the
/// actuator forces.
pub fn sensor_acc<T: Scalar>(m: &Model, d: &mut Data<T>) {
    if m.opt.disabled(disable::SENSOR) || m.nsensor == 0 {
        return;
    }
    if needed(m, d, needs_rne_post) {
        rne_post_constraint(m, d);
    }
    stage(m, d, Stage::Acc);
}
