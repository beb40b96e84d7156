//! `<sensor>`: sensor types, their objects, data sizes and addresses.

use crate::mjcf::compile::actuator::nonneg;
use crate::mjcf::compile::attr::{need, A};
use crate::mjcf::compile::ctx::{Names, Unique, R};
use crate::mjcf::error::ErrorKind;
use crate::mjcf::xml::Elem;
use crate::model::{JointType, Model, ObjType, SensorType};

pub(super) fn compile_sensors(root: &Elem, m: &mut Model) -> R<()> {
    let mut seen = Unique::default();
    let ix = Names::of(m);
    use SensorType as S;
    let mut adr = 0;
    for sec in root.children.iter().filter(|e| e.name == "sensor") {
        for el in &sec.children {
            let a = A::new(el);
            let name = a.name();
            seen.check(&name, el, "sensor")?;
            let (t, dim) = match el.name.as_str() {
                "touch" => (S::Touch, 1),
                "accelerometer" => (S::Accelerometer, 3),
                "velocimeter" => (S::Velocimeter, 3),
                "gyro" => (S::Gyro, 3),
                "force" => (S::Force, 3),
                "torque" => (S::Torque, 3),
                "magnetometer" => (S::Magnetometer, 3),
                "rangefinder" => (S::Rangefinder, 1),
                "jointpos" => (S::JointPos, 1),
                "jointvel" => (S::JointVel, 1),
                "tendonpos" => (S::TendonPos, 1),
                "tendonvel" => (S::TendonVel, 1),
                "actuatorpos" => (S::ActuatorPos, 1),
                "actuatorvel" => (S::ActuatorVel, 1),
                "actuatorfrc" => (S::ActuatorFrc, 1),
                "jointactuatorfrc" => (S::JointActFrc, 1),
                "ballquat" => (S::BallQuat, 4),
                "ballangvel" => (S::BallAngVel, 3),
                "jointlimitpos" => (S::JointLimitPos, 1),
                "jointlimitvel" => (S::JointLimitVel, 1),
                "jointlimitfrc" => (S::JointLimitFrc, 1),
                "tendonlimitpos" => (S::TendonLimitPos, 1),
                "tendonlimitvel" => (S::TendonLimitVel, 1),
                "tendonlimitfrc" => (S::TendonLimitFrc, 1),
                "framepos" => (S::FramePos, 3),
                "framequat" => (S::FrameQuat, 4),
                "framexaxis" => (S::FrameXAxis, 3),
                "frameyaxis" => (S::FrameYAxis, 3),
                "framezaxis" => (S::FrameZAxis, 3),
                "framelinvel" => (S::FrameLinVel, 3),
                "frameangvel" => (S::FrameAngVel, 3),
                "framelinacc" => (S::FrameLinAcc, 3),
                "frameangacc" => (S::FrameAngAcc, 3),
                "subtreecom" => (S::SubtreeCom, 3),
                "subtreelinvel" => (S::SubtreeLinVel, 3),
                "subtreeangmom" => (S::SubtreeAngMom, 3),
                "e_potential" => (S::EPotential, 1),
                "e_kinetic" => (S::EKinetic, 1),
                "clock" => (S::Clock, 1),
                _ => return Err(el.err(ErrorKind::UnknownElement, None, "unknown sensor")),
            };
            let (mut ot, mut oid, mut rt, mut rid) =
                (ObjType::Unknown, -1i32, ObjType::Unknown, -1i32);
            match t {
                S::Touch
                | S::Accelerometer
                | S::Velocimeter
                | S::Gyro
                | S::Force
                | S::Torque
                | S::Magnetometer
                | S::Rangefinder => {
                    ot = ObjType::Site;
                    oid = need(&ix.site, &a, "site", "site")? as i32;
                }
                S::JointPos
                | S::JointVel
                | S::JointActFrc
                | S::BallQuat
                | S::BallAngVel
                | S::JointLimitPos
                | S::JointLimitVel
                | S::JointLimitFrc => {
                    ot = ObjType::Joint;
                    let j = need(&ix.jnt, &a, "joint", "joint")?;
                    oid = j as i32;
                    let jt = m.jnt_type[j];
                    let ok = match t {
                        S::JointPos | S::JointVel | S::JointActFrc => {
                            matches!(jt, JointType::Hinge | JointType::Slide)
                        }
                        S::BallQuat | S::BallAngVel => jt == JointType::Ball,
                        _ => m.jnt_limited[j],
                    };
                    if !ok {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            "joint",
                            "joint type or limits do not fit this sensor",
                        ));
                    }
                }
                S::TendonPos
                | S::TendonVel
                | S::TendonLimitPos
                | S::TendonLimitVel
                | S::TendonLimitFrc => {
                    ot = ObjType::Tendon;
                    let k = need(&ix.tendon, &a, "tendon", "tendon")?;
                    oid = k as i32;
                    if matches!(t, S::TendonLimitPos | S::TendonLimitVel | S::TendonLimitFrc)
                        && !m.tendon_limited[k]
                    {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            "tendon",
                            "tendon must be limited",
                        ));
                    }
                }
                S::ActuatorPos | S::ActuatorVel | S::ActuatorFrc => {
                    ot = ObjType::Actuator;
                    oid = need(&ix.actuator, &a, "actuator", "actuator")? as i32;
                }
                S::SubtreeCom | S::SubtreeLinVel | S::SubtreeAngMom => {
                    ot = ObjType::Body;
                    oid = need(&ix.body, &a, "body", "body")? as i32;
                }
                S::Clock | S::EPotential | S::EKinetic => {}
                _ => {
                    let obj = |tk: &str, nk: &str, required: bool| -> R<(ObjType, i32)> {
                        let Some(ty) = a.keyword(
                            tk,
                            &[
                                ("body", ObjType::Body),
                                ("xbody", ObjType::XBody),
                                ("geom", ObjType::Geom),
                                ("site", ObjType::Site),
                                ("camera", ObjType::Camera),
                            ],
                        )?
                        else {
                            if required || a.has(nk) {
                                return Err(a.err(
                                    ErrorKind::InvalidValue,
                                    tk,
                                    "missing object type",
                                ));
                            }
                            return Ok((ObjType::Unknown, -1));
                        };
                        let names = match ty {
                            ObjType::Body | ObjType::XBody => &ix.body,
                            ObjType::Geom => &ix.geom,
                            ObjType::Site => &ix.site,
                            _ => &ix.cam,
                        };
                        Ok((ty, need(names, &a, nk, "object")? as i32))
                    };
                    (ot, oid) = obj("objtype", "objname", true)?;
                    (rt, rid) = obj("reftype", "refname", false)?;
                }
            }
            let noise = nonneg(&a, "noise", a.f64_or("noise", 0.0)?)?;
            let cutoff = nonneg(&a, "cutoff", a.f64_or("cutoff", 0.0)?)?;
            m.sensor_name.push(name);
            m.sensor_type.push(t);
            m.sensor_objtype.push(ot);
            m.sensor_objid.push(oid);
            m.sensor_reftype.push(rt);
            m.sensor_refid.push(rid);
            m.sensor_dim.push(dim);
            m.sensor_adr.push(adr);
            m.sensor_cutoff.push(cutoff);
            m.sensor_noise.push(noise);
            adr += dim;
        }
    }
    m.nsensor = m.sensor_name.len();
    m.nsensordata = adr;
    Ok(())
}
