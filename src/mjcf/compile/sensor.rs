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
            let mut intprm = [0i32; 3];
            let (t, mut dim) = match el.name.as_str() {
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
                "contact" => (S::Contact, 0),
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
                S::Contact => {
                    (ot, oid, rt, rid, intprm) = contact_sensor(&a, &ix)?;
                    dim = contact_slot_size(intprm[0]) * intprm[2] as usize;
                }
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
            m.user_raw[7].push(a.nums("user")?.unwrap_or_default());
            m.sensor_type.push(t);
            m.sensor_objtype.push(ot);
            m.sensor_objid.push(oid);
            m.sensor_reftype.push(rt);
            m.sensor_refid.push(rid);
            m.sensor_dim.push(dim);
            m.sensor_adr.push(adr);
            m.sensor_cutoff.push(cutoff);
            m.sensor_noise.push(noise);
            m.sensor_intprm.push(intprm);
            adr += dim;
        }
    }
    m.nsensor = m.sensor_name.len();
    m.nsensordata = adr;
    Ok(())
}

/// The `data` fields of the contact sensor in their required order, with their sizes (MuJoCo's
/// XML reference, `sensor/contact`); field `k` is bit `1 << k` of `sensor_intprm[0]`.
pub const CONTACT_DATA: [(&str, usize); 9] = [
    ("found", 1),
    ("force", 3),
    ("torque", 3),
    ("dist", 1),
    ("pos", 3),
    ("normal", 3),
    ("tangent", 3),
    ("linvel", 3),
    ("angvel", 3),
];

/// Numbers per slot of a contact sensor whose `data` bits are `spec`.
pub fn contact_slot_size(spec: i32) -> usize {
    CONTACT_DATA
        .iter()
        .enumerate()
        .filter(|(k, _)| spec & (1 << k) != 0)
        .map(|(_, f)| f.1)
        .sum()
}

/// A contact sensor's matching objects and `sensor_intprm` (`data` bits, `reduce`, `num`), as
/// MuJoCo 4.0.0 compiles them (checked on it): the first object is one of `geom1` (geom),
/// `body1` (body), `subtree1` (xbody) or `site`, the second one of `geom2`, `body2`,
/// `subtree2`; `data` names fields in the order of [`CONTACT_DATA`] (empty: `found`).
#[allow(clippy::type_complexity)]
fn contact_sensor(a: &A, ix: &Names) -> R<(ObjType, i32, ObjType, i32, [i32; 3])> {
    let side = |keys: &[(&str, ObjType)]| -> R<(ObjType, i32)> {
        let given: Vec<_> = keys.iter().filter(|(k, _)| a.has(k)).collect();
        if given.len() > 1 {
            let names: Vec<String> = keys.iter().map(|(k, _)| format!("'{k}'")).collect();
            return Err(a.err(
                ErrorKind::InvalidValue,
                given[1].0,
                format!("at most one of {} can be specified", names.join(", ")),
            ));
        }
        let Some(&&(k, ty)) = given.first() else {
            return Ok((ObjType::Unknown, -1));
        };
        let names = match ty {
            ObjType::Geom => &ix.geom,
            ObjType::Site => &ix.site,
            _ => &ix.body,
        };
        Ok((ty, need(names, a, k, "object")? as i32))
    };
    let (ot, oid) = side(&[
        ("geom1", ObjType::Geom),
        ("body1", ObjType::Body),
        ("subtree1", ObjType::XBody),
        ("site", ObjType::Site),
    ])?;
    let (rt, rid) = side(&[
        ("geom2", ObjType::Geom),
        ("body2", ObjType::Body),
        ("subtree2", ObjType::XBody),
    ])?;
    let num = a.int_or("num", 1)?;
    if num <= 0 {
        return Err(a.err(ErrorKind::InvalidValue, "num", "'num' must be positive"));
    }
    let mut spec = 0i32;
    let mut last = None;
    for word in a.str("data").unwrap_or("").split_whitespace() {
        let Some(k) = CONTACT_DATA.iter().position(|f| f.0 == word) else {
            return Err(a.err(
                ErrorKind::InvalidValue,
                "data",
                format!("invalid keyword: '{word}'"),
            ));
        };
        if last == Some(k) {
            return Err(a.err(ErrorKind::InvalidValue, "data", "duplicate keyword"));
        }
        if last.is_some_and(|l| l > k) {
            return Err(a.err(
                ErrorKind::InvalidValue,
                "data",
                "data attributes must be in order: found, force, torque, dist, pos, normal, tangent, \
                 linvel, angvel",
            ));
        }
        last = Some(k);
        spec |= 1 << k;
    }
    if spec == 0 {
        spec = 1;
    }
    let reduce = a
        .keyword(
            "reduce",
            &[
                ("none", 0),
                ("mindist", 1),
                ("maxforce", 2),
                ("netforce", 3),
            ],
        )?
        .unwrap_or(0);
    // the velocity fields (bits 7 and 8) have no meaning for the synthetic netforce contact
    if reduce == 3 && spec & (3 << 7) != 0 {
        return Err(a.err(
            ErrorKind::InvalidValue,
            "reduce",
            "netforce reduction is incompatible with linvel or angvel",
        ));
    }
    let num = i32::try_from(num)
        .map_err(|_| a.err(ErrorKind::InvalidValue, "num", "'num' is too large"))?;
    Ok((ot, oid, rt, rid, [spec, reduce, num]))
}
