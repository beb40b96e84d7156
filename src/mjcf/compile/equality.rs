//! `<equality>`: connect, weld, joint, tendon and flex constraints with their reference poses.

use crate::mjcf::compile::attr::{find, need};
use crate::mjcf::compile::ctx::{Names, Unique, DEFAULT_SOLIMP, DEFAULT_SOLREF, R};
use crate::mjcf::compile::defaults::Defaults;
use crate::mjcf::compile::options::Compiler;
use crate::mjcf::error::ErrorKind;
use crate::mjcf::math::{add, qconj, qmul, qnormalize, qrot, sub, Q, V3};
use crate::mjcf::xml::Elem;
use crate::model::{EqType, JointType, Model, ObjType};

pub(super) fn compile_equality(
    root: &Elem,
    defs: &Defaults,
    comp: &Compiler,
    m: &mut Model,
    xpos: &[V3],
    xquat: &[Q],
) -> R<()> {
    let mut seen = Unique::default();
    let ix = Names::of(m);
    let _ = comp;
    for sec in root.children.iter().filter(|e| e.name == "equality") {
        for el in &sec.children {
            let cls = defs.class_of(el, 0)?;
            let a = defs.reader(el, cls, "equality");
            let name = a.name();
            seen.check(&name, el, "equality")?;
            let mut data = [0.0; 12];
            let (t, objtype, o1, o2) = match el.name.as_str() {
                "connect" | "weld" => {
                    let weld = el.name == "weld";
                    let t = if weld { EqType::Weld } else { EqType::Connect };
                    if a.has("site1") || a.has("site2") {
                        if a.has("body1") || a.has("body2") || a.has("anchor") {
                            return Err(el.err(
                                ErrorKind::InvalidValue,
                                None,
                                "use either sites or bodies (with anchor), not both",
                            ));
                        }
                        let s1 = need(&ix.site, &a, "site1", "site")?;
                        let s2 = need(&ix.site, &a, "site2", "site")?;
                        if weld {
                            data[1] = 1.0;
                            data[10] = a.f64_or("torquescale", 1.0)?;
                        }
                        (t, ObjType::Site, s1 as i32, s2 as i32)
                    } else {
                        let b1 = need(&ix.body, &a, "body1", "body")?;
                        let b2 = find(&ix.body, &a, "body2", "body")?.unwrap_or(0);
                        let anchor = a.arr("anchor", [0.0; 3])?;
                        if !weld {
                            let pw = add(xpos[b1], qrot(xquat[b1], anchor));
                            let p2 = qrot(qconj(xquat[b2]), sub(pw, xpos[b2]));
                            data[..3].copy_from_slice(&anchor);
                            data[3..6].copy_from_slice(&p2);
                            data[10] = 1.0;
                        } else {
                            let rel = a.arr("relpose", [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])?;
                            data[..3].copy_from_slice(&anchor);
                            if rel[3..7].iter().all(|&x| x == 0.0) {
                                let pw = add(xpos[b2], qrot(xquat[b2], anchor));
                                let p1 = qrot(qconj(xquat[b1]), sub(pw, xpos[b1]));
                                let q = qmul(qconj(xquat[b1]), xquat[b2]);
                                data[3..6].copy_from_slice(&p1);
                                data[6..10].copy_from_slice(&q);
                                // MuJoCo 4.0.0 flags a relative pose computed at qpos0
                                data[11] = 1.0;
                            } else {
                                let q = qnormalize([rel[3], rel[4], rel[5], rel[6]]).ok_or_else(
                                    || a.err(ErrorKind::InvalidValue, "relpose", "zero quaternion"),
                                )?;
                                data[3..6].copy_from_slice(&rel[..3]);
                                data[6..10].copy_from_slice(&q);
                            }
                            data[10] = a.f64_or("torquescale", 1.0)?;
                        }
                        if b1 == b2 {
                            return Err(a.err(
                                ErrorKind::InvalidValue,
                                "body2",
                                "body1 and body2 are the same",
                            ));
                        }
                        (t, ObjType::Body, b1 as i32, b2 as i32)
                    }
                }
                "joint" | "tendon" => {
                    let joint = el.name == "joint";
                    let (k1, k2, names, what) = if joint {
                        ("joint1", "joint2", &ix.jnt, "joint")
                    } else {
                        ("tendon1", "tendon2", &ix.tendon, "tendon")
                    };
                    let o1 = need(names, &a, k1, what)?;
                    let o2 = find(names, &a, k2, what)?;
                    if o2 == Some(o1) {
                        return Err(a.err(
                            ErrorKind::InvalidValue,
                            k2,
                            format!("{what} is repeated"),
                        ));
                    }
                    if joint {
                        for o in [Some(o1), o2].into_iter().flatten() {
                            if !matches!(m.jnt_type[o], JointType::Hinge | JointType::Slide) {
                                return Err(a.err(
                                    ErrorKind::InvalidValue,
                                    k1,
                                    "joint equality needs hinge or slide joints",
                                ));
                            }
                        }
                    }
                    let pc = a.arr_min("polycoef", [0.0, 1.0, 0.0, 0.0, 0.0], 1)?;
                    data[..5].copy_from_slice(&pc);
                    data[10] = 1.0;
                    let t = if joint { EqType::Joint } else { EqType::Tendon };
                    (
                        t,
                        ObjType::Unknown,
                        o1 as i32,
                        o2.map(|x| x as i32).unwrap_or(-1),
                    )
                }
                _ => return Err(el.err(ErrorKind::UnknownElement, None, "unknown equality")),
            };
            m.eq_name.push(name);
            m.eq_type.push(t);
            m.eq_objtype.push(objtype);
            m.eq_obj1id.push(o1);
            m.eq_obj2id.push(o2);
            m.eq_active0.push(a.bool("active")?.unwrap_or(true));
            m.eq_solref.push(a.arr_min("solref", DEFAULT_SOLREF, 1)?);
            m.eq_solimp.push(a.arr_min("solimp", DEFAULT_SOLIMP, 1)?);
            m.eq_data.push(data);
        }
    }
    m.neq = m.eq_name.len();
    Ok(())
}
