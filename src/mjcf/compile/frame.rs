//! Frames of bodies, geoms and sites: the orientation attributes (`quat`, `axisangle`, `euler`,
//! `xyaxes`, `zaxis`) and a geom's or site's placement with `fromto`.

use crate::mjcf::compile::attr::A;
use crate::mjcf::compile::ctx::{MINVAL, R};
use crate::mjcf::compile::options::Compiler;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::math::{
    add, axis_angle, cross, dot, from_cols, m2q, norm, normalize, qmul, qnormalize, scl, sub, z_to,
    Q, QID, V3,
};
use crate::model::GeomType;

/// Reads the orientation attributes of `a` (element first, then defaults). None if absent.
pub(super) fn orientation(a: &A, comp: &Compiler) -> R<Option<Q>> {
    let keys = ["quat", "axisangle", "xyaxes", "zaxis", "euler"];
    let own: Vec<&str> = keys.iter().copied().filter(|k| a.own(k)).collect();
    let given: Vec<&str> = if own.is_empty() {
        keys.iter().copied().filter(|k| a.has(k)).collect()
    } else {
        own
    };
    if given.len() > 1 {
        return Err(a.err(
            ErrorKind::InvalidValue,
            given[1],
            format!(
                "multiple orientation specifiers are not allowed ({})",
                given.join(", ")
            ),
        ));
    }
    let Some(&k) = given.first() else {
        return Ok(None);
    };
    let bad = |msg: &str| a.err(ErrorKind::InvalidValue, k, msg.to_string());
    let q = match k {
        "quat" => {
            let v = a.arr("quat", [0.0; 4])?;
            qnormalize(v).ok_or_else(|| bad("zero quaternion"))?
        }
        "axisangle" => {
            let v = a.arr("axisangle", [0.0; 4])?;
            let ax = normalize([v[0], v[1], v[2]]).ok_or_else(|| bad("zero axis"))?;
            axis_angle(ax, comp.angle(v[3]))
        }
        "xyaxes" => {
            let v = a.arr("xyaxes", [0.0; 6])?;
            let x = normalize([v[0], v[1], v[2]]).ok_or_else(|| bad("zero x axis"))?;
            let y = [v[3], v[4], v[5]];
            let y = normalize(sub(y, scl(x, dot(x, y))))
                .ok_or_else(|| bad("y axis parallel to x axis"))?;
            let z = cross(x, y);
            m2q(&from_cols(x, y, z))
        }
        "zaxis" => {
            let v = a.arr("zaxis", [0.0; 3])?;
            z_to(normalize(v).ok_or_else(|| bad("zero z axis"))?)
        }
        _ => {
            let v = a.arr("euler", [0.0; 3])?;
            let mut q = QID;
            for (i, &c) in comp.eulerseq.iter().enumerate() {
                let axis = match c.to_ascii_lowercase() {
                    b'x' => [1.0, 0.0, 0.0],
                    b'y' => [0.0, 1.0, 0.0],
                    _ => [0.0, 0.0, 1.0],
                };
                let r = axis_angle(axis, comp.angle(v[i]));
                q = if c.is_ascii_lowercase() {
                    qmul(q, r)
                } else {
                    qmul(r, q)
                };
            }
            q
        }
    };
    Ok(Some(q))
}

pub(super) const GEOM_TYPES: &[(&str, GeomType)] = &[
    ("plane", GeomType::Plane),
    ("hfield", GeomType::Hfield),
    ("sphere", GeomType::Sphere),
    ("capsule", GeomType::Capsule),
    ("ellipsoid", GeomType::Ellipsoid),
    ("cylinder", GeomType::Cylinder),
    ("box", GeomType::Box),
    ("mesh", GeomType::Mesh),
    ("sdf", GeomType::Sdf),
];

/// Position, orientation and size of a geom or site, with `fromto` handled: `fromto` (given on
/// the element or by its default class) overrides the orientation attributes and cannot be
/// combined with a nonzero `pos` (MuJoCo 4.0.0's loader: "both pos and fromto defined").
pub(super) fn placement(a: &A, comp: &Compiler, t: GeomType, mut size: V3) -> R<(V3, Q, V3)> {
    if a.has("fromto") {
        if a.arr("pos", [0.0; 3])? != [0.0; 3] {
            let msg = format!("both pos and fromto defined in {}", a.el.name);
            return Err(a.err(ErrorKind::InvalidValue, "pos", msg));
        }
        let f = a.arr("fromto", [0.0; 6])?;
        let (p1, p2) = ([f[0], f[1], f[2]], [f[3], f[4], f[5]]);
        let d = sub(p1, p2);
        let len = norm(d);
        if len < MINVAL {
            return Err(a.err(ErrorKind::InvalidValue, "fromto", "points coincide"));
        }
        let q = z_to(scl(d, 1.0 / len));
        match t {
            GeomType::Capsule | GeomType::Cylinder => size[1] = len / 2.0,
            GeomType::Box | GeomType::Ellipsoid => {
                size[1] = size[0];
                size[2] = len / 2.0;
            }
            _ => {
                let msg = format!(
                    "fromto requires capsule, cylinder, box or ellipsoid in {}",
                    a.el.name
                );
                return Err(a.err(ErrorKind::InvalidValue, "fromto", msg));
            }
        }
        return Ok((scl(add(p1, p2), 0.5), q, size));
    }
    let pos = a.arr("pos", [0.0; 3])?;
    let q = orientation(a, comp)?.unwrap_or(QID);
    Ok((pos, q, size))
}
